"""checking.sequence_slices: an output that is the right one with positions cut off or
indexed away is told so; any other wrong shape gets no claim."""

from __future__ import annotations

import torch

from transformer_course.checking.sequence_slices import position_slice_note


def test_cut_and_indexed_outputs_are_told_apart():
    expected = torch.randn(2, 5, 3, dtype=torch.float64)  # (batch, len, d)
    assert "without its last 2 positions" in position_slice_note(expected[:, :-2], expected)
    assert "without its first position" in position_slice_note(expected[:, 1:], expected)
    assert "at the last position alone" in position_slice_note(expected[:, -1], expected)
    assert "at the first position alone" in position_slice_note(expected[:, 0], expected)


def test_no_claim_for_other_values_or_non_tensors():
    expected = torch.randn(2, 5, 3, dtype=torch.float64)
    assert position_slice_note(torch.randn(2, 4, 3), expected) == ""
    assert position_slice_note(expected.mean(1), expected) == ""
    assert position_slice_note((expected,), expected) == ""
