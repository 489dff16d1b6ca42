"""checking.reference_points: which reference point a softmax subtracted, told by a probe
whose rows separate the members of the family."""

import torch

from transformer_course.checking.reference_points import (
    KINDS,
    PROBE,
    online_with_reference,
    reference_kind,
)


def test_the_right_reference_is_the_softmax():
    x = torch.randn(3, 7, generator=torch.Generator().manual_seed(0)) * 3
    assert torch.allclose(online_with_reference(x, 3), torch.softmax(x, dim=-1), atol=1e-6)


def test_every_member_is_told_from_the_others_by_the_probe():
    for kind in KINDS:
        assert reference_kind(lambda x, b, kind=kind: online_with_reference(x, b, kind)) == kind


def test_members_that_agree_on_one_input_are_told_apart():
    x = torch.tensor([[1000.0, 999.0, 1001.0, -5.0, 998.0], [-1000.0, -999.0, 0.0, 3.0, 2.0]])
    a, b = online_with_reference(x, 2, "abs"), online_with_reference(x, 2, "shared")
    assert torch.equal(torch.isnan(a), torch.isnan(b))  # the same NaN rows here
    assert reference_kind(lambda x, size: online_with_reference(x, size, "abs")) == "abs"


def test_right_code_others_and_errors():
    assert reference_kind(lambda x, b: torch.softmax(x, dim=-1)) == ""
    assert reference_kind(lambda x, b: torch.zeros_like(x)) == ""
    assert reference_kind(lambda x, b: x[:1]) is None

    def raises(x, b):
        raise ValueError("no")

    assert reference_kind(raises) is None
    assert PROBE.shape == (4, 6)
