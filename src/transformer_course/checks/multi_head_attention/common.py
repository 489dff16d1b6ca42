"""Lesson 05's shared check machinery: where a wrong entry of a reshaped tensor came from,
the dtype rule of a reshape, and the hint for a reshape that writes a batch of 1. Its names
keep their underscore: they are private to the package (its modules import them; tests do
not).
"""

from __future__ import annotations

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
