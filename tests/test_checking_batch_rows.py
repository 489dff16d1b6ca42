"""checking.batch_rows: the batch axis mishandled is named only when every sequence given
alone is right (a mistake inside a sequence is wrong there too), and never for a batch of
one."""

from __future__ import annotations

import pytest

from transformer_course.checking.batch_rows import row_by_row_hint, row_by_row_note


def test_named_when_every_sequence_alone_is_right():
    note = row_by_row_note(lambda i: True, 3, noun="sequence", size="ids")
    assert "right for each sequence given alone" in note
    assert "ids[i:i+1]" in note and "ids.shape[0]" in note


@pytest.mark.parametrize(
    ("row_right", "batch"),
    [
        (lambda i: True, 1),  # a batch of one: nothing to compare
        (lambda i: i != 1, 3),  # one sequence wrong alone: a mistake inside a sequence
        (lambda i: 1 / 0, 2),  # the learner's code raises on a sequence alone
    ],
)
def test_silent_otherwise(row_right, batch):
    assert row_by_row_note(row_right, batch) == ""


def test_hint_yields_to_a_more_specific_one():
    specific = [(RuntimeError, lambda exc: "the reshape asks for a batch of 1")]
    [(when, hint)] = row_by_row_hint(lambda i: True, 2, unless=specific)
    assert when is Exception
    assert hint(RuntimeError("shape")) == ""
    assert "given alone" in hint(ValueError("other"))
