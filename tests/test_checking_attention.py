"""The shared diagnosis of attention weights (transformer_course.checking.attention_weights),
tested on its own: every convention it accepts, every message it gives, and the
helpers lessons 04-09 use to compute what a learner's convention implies."""

from __future__ import annotations

import math
import re

import pytest
import torch

from transformer_course.checking import Checker, CheckFailure
from transformer_course.checking import attention_weights as A

WHAT = "On a test case, your `weights`"


def _case(seed=0, mask_rows=None):
    """q (2, 3, 4), k (2, 5, 4) and a (3, 5) mask whose row 1 allows no key."""
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(2, 3, 4, generator=g, dtype=torch.float64)
    k = torch.randn(2, 5, 4, generator=g, dtype=torch.float64)
    mask = torch.tensor(
        mask_rows or [[True, True, False, True, False], [False] * 5, [True, True, True, True, True]]
    )
    return q, k, mask


def _reference(q, k, mask):
    """The reference weights, written here independently: fully masked rows -> 0."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return torch.nan_to_num(weights, nan=0.0)


def _diagnose(weights, mask, expected, **kwargs):
    with Checker("attention") as c:
        return A.expect_attention_weights(c, weights, mask, WHAT, expected=expected, **kwargs)


def _fails(weights, mask, expected, pattern, **kwargs):
    with pytest.raises(CheckFailure, match=pattern) as caught:
        _diagnose(weights, mask, expected, **kwargs)
    assert WHAT in str(caught.value)
    return str(caught.value)


# ------------------------------------------------------------------- accepted answers
def test_reference_weights_pass_and_report_their_convention(capsys):
    q, k, mask = _case()
    expected = _reference(q, k, mask)
    assert _diagnose(expected.clone(), mask, expected) == "zero"
    assert _diagnose(_reference(q, k, None), None, _reference(q, k, None)) is None
    assert "note" not in capsys.readouterr().out


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("fill", [-1e9, -1e4, "finfo"])
def test_any_large_negative_fill_is_accepted_with_a_note(fill, dtype, capsys):
    q, k, mask = _case()
    q, k = q.to(dtype), k.to(dtype)
    value = torch.finfo(dtype).min if fill == "finfo" else fill
    scores = (q @ k.transpose(-2, -1) / 2).masked_fill(~mask, value)
    weights = torch.softmax(scores, dim=-1)
    expected = _reference(q.double(), k.double(), mask)
    assert _diagnose(weights, mask, expected, rtol=1e-4, atol=1e-5) == "uniform"
    assert "uniform weights, 1/len_k each" in capsys.readouterr().out


def test_an_additive_finite_mask_in_float64_gives_an_accepted_distribution(capsys):
    q, k, mask = _case()
    scores = q @ k.transpose(-2, -1) / 2 + (~mask).double() * -1e9
    weights = torch.softmax(scores, dim=-1)
    assert A.fully_masked_convention(weights, mask) == "distribution"
    assert _diagnose(weights, mask, _reference(q, k, mask)) == "distribution"
    assert "finite weights that add up to 1" in capsys.readouterr().out


# ----------------------------------------------------------------- fully masked rows
def test_nan_on_exactly_the_fully_masked_rows():
    q, k, mask = _case()
    weights = torch.softmax((q @ k.transpose(-2, -1) / 2).masked_fill(~mask, float("-inf")), -1)
    message = _fails(weights, mask, _reference(q, k, mask), r"mask is all False.*came out as NaN")
    assert "query row (0, 1)" in message


def test_fully_masked_rows_that_are_not_a_distribution():
    q, k, mask = _case()
    weights = _reference(q, k, mask)
    weights[:, 1] = torch.tensor([0.5, 0.0, 0.0, 0.0, 0.0], dtype=torch.float64)
    assert A.fully_masked_convention(weights, mask) == "other"
    _fails(
        weights,
        mask,
        _reference(q, k, mask),
        re.escape(A.FULLY_MASKED_OTHER[:60]) + r".*adding up to 0.5",
    )


# ----------------------------------------------------------------------- the mask
def test_nan_on_the_rows_that_allow_every_key_means_an_inverted_mask():
    q, k, mask = _case()
    scores = (q @ k.transpose(-2, -1) / 2).masked_fill(mask, float("-inf"))
    _fails(torch.softmax(scores, -1), mask, _reference(q, k, mask), r"allows every key.*inverted")


@pytest.mark.parametrize("fill", [float("-inf"), -1e9])
def test_an_inverted_mask_has_its_own_message(fill):
    q, k, mask = _case()
    scores = (q @ k.transpose(-2, -1) / 2).masked_fill(mask, fill)  # True read as blocked
    weights = torch.nan_to_num(torch.softmax(scores, -1), nan=0.0)
    message = _fails(weights, mask, _reference(q, k, mask), r"only on keys the mask forbids")
    assert A.INVERTED_MASK in message and A.MASK_NOT_APPLIED not in message


def test_weight_on_forbidden_keys_names_the_first_one():
    q, k, mask = _case()
    weights = _reference(q, k, None)
    message = _fails(weights, mask, _reference(q, k, mask), r"forbids \(first at index \(0, 0, 2\)")
    assert A.MASK_NOT_APPLIED in message


def test_a_matching_mistake_explains_a_leak_before_the_generic_message():
    q, k, mask = _case()
    weights = _reference(q, k, None)
    mistakes = {"You ignored the mask.": lambda: _reference(q, k, None)}
    _fails(weights, mask, _reference(q, k, mask), r"You ignored the mask", mistakes=mistakes)


def test_mask_applied_after_the_softmax_is_recognised_without_a_mistake_table():
    q, k, mask = _case()
    weights = _reference(q, k, None) * mask
    _fails(weights, mask, _reference(q, k, mask), r"applied after the softmax")


# --------------------------------------------------------------------- the values
def test_softmax_over_the_queries():
    q, k, _ = _case()
    weights = torch.softmax(q @ k.transpose(-2, -1) / 2, dim=-2)
    _fails(weights, None, _reference(q, k, None), r"sum to 1 over the queries \(dim=-2\)")


def test_rows_that_do_not_add_up_to_one():
    q, k, _ = _case()
    weights = torch.exp(q @ k.transpose(-2, -1) / 2) / 10
    _fails(weights, None, _reference(q, k, None), r"does not sum to 1 over the keys")


def test_negative_weights():
    q, k, _ = _case()
    _fails(q @ k.transpose(-2, -1), None, _reference(q, k, None), r"negative entries")


def test_nan_in_rows_that_allow_keys_points_at_overflow():
    q, k, _ = _case()
    weights = _reference(q, k, None)
    weights[1, 2, 3] = float("nan")
    _fails(
        weights,
        None,
        _reference(q, k, None),
        r"NaN or inf \(first in query row \(1, 2\).*overflows",
    )


def test_uniform_rows_that_ignore_the_scores():
    q, k, mask = _case()
    counts = mask.sum(dim=-1, keepdim=True).clamp(min=1)
    weights = (mask / counts).double().expand(2, 3, 5)
    _fails(
        weights, mask, _reference(q, k, mask), r"evenly over the keys.*never reached the softmax"
    )


def test_a_known_mistake_is_named_and_otherwise_the_largest_difference():
    q, k, mask = _case()
    unscaled = A.attention_weights_variant(q, k, mask, scale=1.0)
    _fails(
        unscaled, mask, _reference(q, k, mask), r"No scaling\.", mistakes={"No scaling.": unscaled}
    )
    _fails(unscaled, mask, _reference(q, k, mask), r"largest difference .* at index")


# ------------------------------------------------------------------------- helpers
def test_fully_masked_rows():
    _, _, mask = _case()
    assert A.fully_masked_rows(mask, (2, 3, 5)).tolist() == [[False, True, False]] * 2
    assert not A.fully_masked_rows(None, (2, 3, 5)).any()


def test_with_fully_masked_rows_for_every_convention():
    q, k, mask = _case()
    expected = _reference(q, k, mask)
    assert torch.equal(A.with_fully_masked_rows(expected, mask, "zero"), expected)
    uniform = A.with_fully_masked_rows(expected, mask, "uniform")
    assert torch.allclose(uniform[:, 1], torch.full((2, 5), 0.2, dtype=torch.float64))
    assert torch.equal(uniform[:, 0], expected[:, 0])
    learner = expected.clone()
    learner[:, 1] = torch.tensor([0.1, 0.2, 0.3, 0.4, 0.0], dtype=torch.float64)
    copied = A.with_fully_masked_rows(expected, mask, "distribution", like=learner)
    assert torch.equal(copied, learner)
    assert torch.equal(A.with_fully_masked_rows(expected, mask, "other", like=learner), expected)
    assert torch.equal(A.with_fully_masked_rows(expected, None, "zero"), expected)


def test_attention_weights_variant_modes():
    q, k, mask = _case()
    torch.testing.assert_close(A.attention_weights_variant(q, k, mask), _reference(q, k, mask))
    torch.testing.assert_close(
        A.attention_weights_variant(q, k, mask, mask_mode="none"), _reference(q, k, None)
    )
    torch.testing.assert_close(
        A.attention_weights_variant(q, k, mask, mask_mode="after"), _reference(q, k, None) * mask
    )
    inverted = A.attention_weights_variant(q, k, mask, mask_mode="inverted")
    assert (inverted[..., 2, :] == 0).all()  # row 2 allows every key: inverted, it allows none
    columns = A.attention_weights_variant(q, k, None, dim=-2).sum(dim=-2)
    torch.testing.assert_close(columns, torch.ones_like(columns))


# ------------------------------------------------------ weights read off the outputs
def _attention_masked_late(q, k, v, allowed):
    """Softmax over every key, the blocked weights zeroed afterwards (rows sum below 1)."""
    weights = torch.softmax(q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5, dim=-1)
    return (weights * allowed) @ v  # (..., len_q, d_v)


def _attention_with(q, k, v, allowed):
    scores = (q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5).masked_fill(~allowed, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v  # (..., len_q, d_v)


def test_weights_read_off_outputs_name_a_mask_applied_too_late():
    from transformer_course.checking.attention_weights import (
        mask_misapplied,
        weights_through_values,
    )

    generator = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 5, 4, generator=generator) for _ in range(3))  # (2, 5, 4)
    allowed = torch.ones(5, 5, dtype=torch.bool).tril()
    scores = q.double() @ k.double().transpose(-2, -1) / 2.0
    output = _attention_masked_late(q, k, v, allowed)
    weights = weights_through_values(
        lambda ones: _attention_masked_late(q, k, ones, allowed), v, output
    )
    assert weights is not None
    assert "the mask is applied too late" in mask_misapplied(weights, scores, allowed, "")
    # a mask one diagonal too wide: the pairs it leaks to are named, not a cause
    wide = torch.ones(5, 5, dtype=torch.bool).tril(diagonal=1)
    output = _attention_with(q, k, v, wide)
    weights = weights_through_values(lambda ones: _attention_with(q, k, ones, wide), v, output)
    text = mask_misapplied(weights, scores, allowed, "")
    assert "weight on (query, key) pairs the mask blocks: (0, 1)" in text
    assert "too late" not in text
    # the right attention: nothing to say; a function not linear in v: no weights
    output = _attention_with(q, k, v, allowed)
    weights = weights_through_values(lambda ones: _attention_with(q, k, ones, allowed), v, output)
    assert mask_misapplied(weights, scores, allowed, "") == ""
    assert weights_through_values(lambda ones: ones.exp()[..., :4], v, output) is None
