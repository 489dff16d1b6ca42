"""An output of the wrong shape that is a slice of the right one along the positions.

A sequence model returns one row per position. An output with fewer rows, or with the
position axis gone, is often the right output cut: the last position dropped (the target
shifted inside the decoder, x[:, :-1], although the caller shifts it; an output cut one
short), the first dropped, or one position kept alone (x[:, -1], the one a generation
loop reads). The shape alone cannot tell these from a wrong computation; the values can.
:func:`position_slice_note` compares the learner's output with those slices of the
expected one and says which it equals (blind19e-dec-target-shifted-inside and
blind15g-dec-returns-last-position-only were told the shapes alone).
"""

from __future__ import annotations

from typing import Any

import torch

__all__ = ["position_slice_note"]


def _close(got: torch.Tensor, expected: torch.Tensor) -> bool:
    return got.shape == expected.shape and bool(
        torch.allclose(got.detach().double(), expected.double(), rtol=1e-4, atol=1e-5)
    )


def position_slice_note(got: Any, expected: torch.Tensor, *, axis: int = 1) -> str:
    """What the wrong-shaped ``got`` is, when it equals a slice of ``expected`` (float64,
    positions on ``axis``): the first or last k positions dropped, or the first or last
    position alone; "" otherwise (and for anything but a tensor)."""
    if not isinstance(got, torch.Tensor) or got.shape == expected.shape:
        return ""
    length = expected.shape[axis]
    if got.dim() == expected.dim() and 0 < got.shape[axis] < length:
        kept = got.shape[axis]
        dropped = length - kept
        count = "position" if dropped == 1 else f"{dropped} positions"
        verb = "is" if dropped == 1 else "are"
        if _close(got, expected.narrow(axis, 0, kept)):
            return (
                f"Your output is the right output without its last {count}: its {kept} rows "
                f"are the reference's first {kept} of {length}. Every position of the input "
                f"gets its output row; the last {count} {verb} lost on the way (the input cut, "
                f"x[:, :-{dropped}], or the output)."
            )
        if _close(got, expected.narrow(axis, dropped, kept)):
            return (
                f"Your output is the right output without its first {count}: its {kept} rows "
                f"are the reference's last {kept} of {length}. Every position of the input "
                f"gets its output row; the first {count} {verb} lost on the way (the input cut, "
                f"x[:, {dropped}:], or the output)."
            )
    if got.dim() == expected.dim() - 1:
        for index, which in ((length - 1, "last"), (0, "first")):
            if _close(got, expected.select(axis, index)):
                return (
                    f"Your output is the right output at the {which} position alone, "
                    f"x[:, {-1 if which == 'last' else 0}] of the result (position {index} of "
                    f"{length}): the position axis is indexed away. Return every position, "
                    "one row each; a generation loop picks the row it needs itself."
                )
    return ""
