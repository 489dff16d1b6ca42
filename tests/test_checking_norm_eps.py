"""checking.norm_eps: the effective eps of a root mean square, and how it follows from the
eps given."""

import torch

from transformer_course.checking.norm_eps import effective_eps, eps_relation


def _mean_square():
    torch.manual_seed(0)
    x = torch.randn(4, 8, dtype=torch.float64)
    x[0] *= 1e-3  # two tokens whose mean square is near eps
    x[1] *= 2e-3
    return x.pow(2).mean(-1, keepdim=True)


def test_effective_eps_is_read_off_the_small_tokens():
    ms = _mean_square()
    assert abs(effective_eps((ms + 1.25e-6).sqrt(), ms, 1e-5) - 1.25e-6) < 1e-10


def test_effective_eps_is_none_for_the_right_eps_or_another_form():
    ms = _mean_square()
    assert effective_eps((ms + 1e-5).sqrt(), ms, 1e-5) is None
    assert effective_eps(ms.sqrt() + 1e-5, ms, 1e-5) is None  # eps outside the root
    assert effective_eps(ms.sqrt(), ms, 1e-5) is None  # eps left out


def test_effective_eps_needs_a_token_that_tells_it():
    ms = _mean_square()[2:]  # ordinary tokens only
    assert effective_eps((ms + 1.25e-6).sqrt(), ms, 1e-5) is None


def test_eps_relation_names_each_operation_that_fits():
    assert "divided by d_model = 8" in eps_relation(1.25e-6, 1e-5, 8)[0]
    # 1e-5 / 10 is also the fixed eps 1e-6: both are said
    both = eps_relation(1e-6, 1e-5, 10)
    assert len(both) == 2 and "fixed eps = 1e-06" in both[1]
    assert eps_relation(3.3e-6, 1e-5, 8) == []
