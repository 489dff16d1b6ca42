"""Lesson 05's shared check machinery: where a wrong entry of a reshaped tensor came from,
the dtype rule of a reshape, and the hint for a reshape that writes a batch of 1. Its names
keep their underscore: they are private to the package (its modules import them; tests do
not).
"""

from __future__ import annotations

import contextlib
import io
import math
import re

import torch


def _where_from(got: torch.Tensor, x: torch.Tensor, index: tuple[int, ...]) -> str:
    """Which entry of ``x`` the learner's value at ``index`` is (random values are unique)."""
    hits = (x == got[index]).nonzero()
    return f"x{tuple(int(i) for i in hits[0])}" if len(hits) == 1 else "a value not taken from x"


_SAME_DTYPE = "Reshaping and transposing move numbers around; they never need to change the dtype."


def _batch_of_one_hint(batch: int):
    """A view/reshape that asks for a batch of 1 of a tensor that holds ``batch`` (> 1)
    sequences: the requested size times batch is exactly the number of elements, so the
    other sizes are right and the 1 was written into the code."""

    def hit(exc: BaseException) -> str:
        found = re.search(r"shape '\[([-\d, ]+)\]' is invalid for input of size (\d+)", str(exc))
        if batch <= 1 or found is None:
            return ""
        shape = [int(n) for n in found.group(1).split(",")]
        if shape[0] != 1 or -1 in shape or math.prod(shape) * batch != int(found.group(2)):
            return ""
        return (
            f"Your reshape asks for {tuple(shape)}: a batch of one, but the tensor holds "
            f"batch = {batch} sequences. Take the batch size from the input (batch = "
            "x.shape[0]) instead of writing 1."
        )

    return [(RuntimeError, hit)]


#: head counts written into code: the paper's h = 8, BERT-base's 12, and 16
_FIXED_HEAD_COUNTS = (8, 12, 16)


def _fixed_heads_note(right_with, num_heads: int, where: str) -> str:
    """A function right only when the number of heads is a constant (round 10: heads
    concatenated in a loop over range(8)): ``right_with(k)`` says whether the learner's
    function is right with k heads (or, for split_heads, whether it cut x into k heads)."""
    for k in _FIXED_HEAD_COUNTS:
        if k == num_heads:
            continue
        with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
            if right_with(k):
                return (
                    f"Yours {where.format(k=k, num_heads=num_heads)}: is {k} written into your "
                    "code? Take the number of heads from the input (x.shape[1] in merge_heads, "
                    "the num_heads argument in split_heads)."
                )
    return ""


def _fixed_heads_hint(right_with, num_heads: int, where: str):
    """:func:`_fixed_heads_note` as a hint for an exception the learner's code raised."""

    def hit(_exc: BaseException) -> str:
        return _fixed_heads_note(right_with, num_heads, where)

    return [(Exception, hit)]
