"""The batch axis mishandled: a function right on every sequence given alone (a batch of one)
and wrong, or raising, on the same sequences together.

The family is any code that assumes batch = 1: the batch size left out of a reshape or
written as 1, an index [0], a bare .squeeze() that drops the batch axis when it has size 1,
a mask or tensor built for one sequence; and any code that mixes the sequences of a batch
(an operation over the batch axis, a reshape that crosses it). Whatever the line, the test
that tells it from every other mistake is the same: call the learner's function on each
sequence alone, ``x[i : i + 1]``, and compare with the reference on that sequence. A
mistake inside a sequence (wrong axis, wrong constant, missing step) is wrong there too, so
the diagnosis is stated only when every sequence alone is right.

The checks give :func:`row_by_row_note` a ``row_right(i)`` callable that makes that call
and comparison for sequence ``i``; the learner's exceptions count as "not right".
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Sequence

import torch

from .hints import matching_hints

__all__ = ["alone_right", "row_by_row_hint", "row_by_row_note"]


def alone_right(learner: Callable, reference: Callable, batch, *args) -> Callable[[int], bool]:
    """``row_right`` for the notes below: whether ``learner(row, *args)`` equals
    ``reference(row, *args)`` (both tensors) on row i of ``batch`` given alone, a batch of
    one (``batch[i : i + 1]``)."""

    def row_right(i: int) -> bool:
        alone = batch[i : i + 1].clone()
        got = learner(alone, *args)
        return isinstance(got, torch.Tensor) and torch.equal(got, reference(alone, *args))

    return row_right


def _right_alone(row_right: Callable[[int], bool], batch: int) -> bool:
    if batch <= 1:
        return False
    for i in range(batch):
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                if not row_right(i):
                    return False
        except Exception:
            return False
    return True


def row_by_row_note(
    row_right: Callable[[int], bool], batch: int, *, noun: str = "sequence", size: str = "x"
) -> str:
    """The diagnosis when the learner's function is right on each of the ``batch`` rows
    given alone (``row_right(i)`` for every i) although not on the batch; else ""."""
    if not _right_alone(row_right, batch):
        return ""
    return (
        f"Yours is right for each {noun} given alone (a batch of one, {size}[i:i+1]) but not "
        f"for these {batch} {noun}s together: your code does not handle the batch axis. It "
        "assumes a batch of one somewhere (the batch size left out of a reshape or view, or "
        "written as 1; an index [0]; a bare .squeeze() that drops the batch axis when it has "
        f"size 1), or it mixes the {noun}s of the batch. Keep the batch axis and take its size "
        f"from the input ({size}.shape[0])."
    )


def row_by_row_hint(
    row_right: Callable[[int], bool],
    batch: int,
    *,
    noun: str = "sequence",
    size: str = "x",
    unless: Sequence = (),
):
    """:func:`row_by_row_note` as a hint for an exception the learner's code raised on the
    batch (``Checker.call``'s ``hints``); silent when one of the hints ``unless`` (more
    specific ones, e.g. a reshape that asks for a batch of 1) already explains it."""

    def hit(exc: BaseException) -> str:
        if matching_hints(exc, unless):
            return ""
        return row_by_row_note(row_right, batch, noun=noun, size=size)

    return [(Exception, hit)]
