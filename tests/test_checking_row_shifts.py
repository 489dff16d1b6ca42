"""checking.row_shifts: logits moved by one number per row are named by the shift."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from transformer_course.checking.row_shifts import row_shift_note


def _logits() -> torch.Tensor:
    return torch.randn(2, 5, 7, generator=torch.Generator().manual_seed(0)) * 3


def test_log_probabilities_are_named():
    logits = _logits()
    note = row_shift_note(F.log_softmax(logits, -1), logits)
    assert note.startswith("yours are the right logits minus one number per row: log-prob")


def test_maximum_and_mean_are_named():
    logits = _logits()
    assert "largest logit" in row_shift_note(logits - logits.amax(-1, keepdim=True), logits)
    assert "its mean" in row_shift_note(logits - logits.mean(-1, keepdim=True), logits)


def test_another_shift_is_described_not_named():
    logits = _logits()
    note = row_shift_note(logits + torch.arange(10.0).reshape(2, 5, 1), logits)
    assert "plus one number per row" in note and "log_softmax" not in note


def test_no_note_without_a_row_shift():
    logits = _logits()
    assert row_shift_note(logits, logits) == ""
    assert row_shift_note(logits * 2, logits) == ""
    assert row_shift_note(torch.softmax(logits, -1), logits) == ""
    assert row_shift_note(logits[..., :3], logits) == ""


def test_shifts_that_agree_on_peaked_rows_are_named_together():
    """Class 1: on rows with one dominant logit, log_softmax and the maximum subtracted give
    the same numbers, so neither is named alone."""
    logits = torch.tensor([[30.0, 0.0, -1.0], [0.0, 40.0, 2.0]])
    note = row_shift_note(logits - logits.amax(-1, keepdim=True), logits)
    assert "2 shifts agree" in note and "log-probabilities" in note and "largest" in note, note
