"""A step applied to part of an axis (checking/partial_slices.py), state kept outside its
owner and sizes rounded up (checking/kept_outside.py): each named only from what the
values and objects show, and nothing said where the split could be a coincidence."""

from __future__ import annotations

import torch

from transformer_course.checking.kept_outside import rounded_up
from transformer_course.checking.partial_slices import match_partial_slices, rows_filled_at

TOL = {"rtol": 1e-5, "atol": 1e-6}


def _expected() -> torch.Tensor:
    return torch.randn(3, 4, 5, generator=torch.Generator().manual_seed(0)) + 3  # no zeros


def test_zeros_on_the_indices_never_written():
    expected = _expected()
    got = expected.clone()
    got[:, 1:] = 0
    found = match_partial_slices(got, expected, **TOL, axes=("batch", "heads", "d"))
    assert found is not None and found.axis == 1 and found.filler == "zeros"
    assert found.right == (0,) and found.wrong == (1, 2, 3)
    assert "axis 1 (heads)" in found.message


def test_copies_of_one_right_index():
    expected = _expected()
    got = expected[:1].expand_as(expected).clone()
    found = match_partial_slices(got, expected, **TOL)
    assert found is not None and found.filler == "copy" and found.source == 0


def test_the_input_left_as_it_came():
    x = torch.randn(4, 6, generator=torch.Generator().manual_seed(1))
    expected = 2 * x + 1
    got = x.clone()
    got[-1] = expected[-1]
    found = match_partial_slices(got, expected, **TOL, untouched=x)
    assert found is not None and found.filler == "input" and found.right == (3,)
    whole = match_partial_slices(x, expected, **TOL, untouched=x)
    assert whole is not None and "at every entry" in whole.message


def test_nothing_said_for_a_wrong_formula_or_the_last_axis():
    expected = _expected()
    got = expected.clone()
    got[1] = got[1] * 1.5  # wrong, but no filler
    assert match_partial_slices(got, expected, **TOL) is None
    features = expected.clone()
    features[..., 2:] = 0  # only the last axis is split: another family
    assert match_partial_slices(features, expected, **TOL) is None


def test_an_identity_index_alone_does_not_make_a_split():
    x = torch.randn(4, 6, generator=torch.Generator().manual_seed(2))
    expected = x.clone()
    expected[1:] = 2 * x[1:]  # the step changes nothing at index 0
    fillers = ("zeros", "input", "copy")  # (a factor on several indices: its own test below)
    assert match_partial_slices(x.clone(), expected, **TOL, fillers=fillers) is None
    # the whole input returned, with the input known: said as the input at every entry
    found = match_partial_slices(x.clone(), expected, **TOL, untouched=x)
    assert found is not None and found.right == () and "at every entry" in found.message


def test_one_constant_factor_on_two_wrong_indices_or_more():
    expected = torch.randn(4, 3, 5, generator=torch.Generator().manual_seed(3)) + 2.0
    got = expected.clone()
    got[1:] = expected[1:] / 8**0.5  # out[:1] scaled, the rest not
    found = match_partial_slices(got, expected, **TOL, axes=("batch", "len", "d_model"))
    assert found is not None and found.filler == "scaled"
    assert (found.right, found.wrong) == ((0,), (1, 2, 3))
    assert "times one constant, 0.3536" in found.message
    one = expected.clone()
    one[3] = expected[3] * 0.5  # one wrong index: a factor there tells nothing
    assert match_partial_slices(one, expected, **TOL) is None
    two = expected.clone()
    two[2], two[3] = expected[2] * 0.5, expected[3] * 0.25  # a factor of each index's own
    assert match_partial_slices(two, expected, **TOL) is None


def test_rounded_up_only_for_clear_paddings():
    assert rounded_up(64, 23) == "a multiple of 64"
    assert rounded_up(50304, 50257) == "a multiple of 128"
    assert rounded_up(8, 4) == ""  # twice the size: two things in one axis
    assert rounded_up(8, 7) == ""  # one more: an off-by-one
    assert rounded_up(30, 23) == ""


def test_rows_filled_at_the_masked_positions_name_their_filler_and_nothing_else():
    right = torch.randn(2, 4, 3, generator=torch.Generator().manual_seed(0))
    keep = torch.tensor([[True, True, False, False], [True, True, True, False]])
    assert rows_filled_at(right * keep[..., None], right, keep) == "0"
    assert rows_filled_at(right.masked_fill(~keep[..., None], float("-inf")), right, keep) == "-inf"
    assert rows_filled_at(right.masked_fill(~keep[..., None], -1e9), right, keep) == "-1e+09"
    # garbage at the masked rows, a wrong kept row, or no masked row at all: nothing said
    noisy = torch.where(keep[..., None], right, torch.randn(2, 4, 3))
    assert rows_filled_at(noisy, right, keep) == ""
    wrong = (right * keep[..., None]).clone()
    wrong[0, 0] += 1
    assert rows_filled_at(wrong, right, keep) == ""
    assert rows_filled_at(right, right, torch.ones(2, 4, dtype=torch.bool)) == ""
    # right values that already hold the filler there: nothing was changed
    zeroed = right * keep[..., None]
    assert rows_filled_at(zeroed, zeroed, keep) == ""
