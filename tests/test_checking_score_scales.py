"""checking.score_scales: the candidate factors of the attention scores, one per power of
each size, the right one and the caller's own left out."""

from __future__ import annotations

import math

from transformer_course.checking.score_scales import score_scale_candidates


def test_every_power_but_the_right_one_and_the_skipped():
    found = score_scale_candidates({"d_head": 8, "d_model": 24}, skip=(("d_model", -0.5),))
    factors = sorted(found.values())
    assert math.sqrt(8) in factors and 1 / 24 in factors and 8**-0.25 in factors
    assert 1 / math.sqrt(8) not in factors and 1 / math.sqrt(24) not in factors
    assert any(m.startswith("Your scores are multiplied by sqrt(d_head) = 2.828") for m in found)


def test_a_factor_equal_to_the_right_one_is_no_candidate():
    # d_head = 4, num_heads = 2: 1 / num_heads is 1 / sqrt(d_head)
    found = score_scale_candidates({"d_head": 4, "num_heads": 2})
    assert all(abs(f - 0.5) > 1e-12 for f in found.values())
