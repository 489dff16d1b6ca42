"""Which keys a square mask lets each query see, read as *offsets* i - j.

The family: a mask built from the offset ``i - j`` alone (``offset = arange(size)[:, None] -
arange(size)[None, :]`` and a condition on it) holds the same value along each diagonal, so
the whole mask is the set of offsets it keeps. A sliding window keeps ``0 .. window - 1``; a
*dilated* (strided) window, Longformer's, keeps ``0, d, 2d, ...`` (every d-th key over a span
of d (window - 1) + 1 positions); a band one too wide keeps ``0 .. window``; a mask that
leaves the query out starts at 1; one that sees the future holds negative offsets.
:func:`kept_offsets` reads that set off the learner's mask (None when the mask is not
constant along its diagonals), and :func:`offsets_sentence` says what it is, next to what
was asked, in words a learner can act on.
"""

from __future__ import annotations

from typing import Any

import torch

__all__ = ["kept_offsets", "offsets_sentence"]


def kept_offsets(mask: Any) -> list[int] | None:
    """The offsets i - j a square 2-D bool mask keeps (True), sorted, when the mask is the
    same along each of its diagonals; None otherwise (or for anything else)."""
    if not isinstance(mask, torch.Tensor) or mask.dim() != 2 or mask.shape[0] != mask.shape[1]:
        return None
    mask = mask.bool()
    size = mask.shape[0]
    kept = []
    for offset in range(-(size - 1), size):
        diagonal = mask.diagonal(-offset)  # entries (i, i - offset)
        if bool(diagonal.all()):
            kept.append(offset)
        elif bool(diagonal.any()):
            return None
    return kept


def _ordinal(n: int) -> str:
    return {2: "2nd", 3: "3rd"}.get(n, f"{n}th")


def _listed(offsets: list[int]) -> str:
    if len(offsets) <= 6:
        return "{" + ", ".join(map(str, offsets)) + "}"
    return "{" + ", ".join(map(str, offsets[:3])) + ", ..., " + str(offsets[-1]) + "}"


def offsets_sentence(offsets: list[int], low: int, high: int, size: int) -> str:
    """What a mask keeping ``offsets`` (i - j) does, against the consecutive offsets ``low ..
    high`` it should keep, for masks of ``size``: "" when the two agree or nothing plain can
    be said. A mask of ``size`` shows offsets up to size - 1 only, so sets are compared
    there."""
    wanted = [d for d in range(low, high + 1) if -size < d < size]
    if offsets == wanted or not offsets:
        return ""
    shown = f"query i sees the keys j with i - j in {_listed(offsets)}"
    steps = {b - a for a, b in zip(offsets, offsets[1:])}
    if len(offsets) >= 2 and len(steps) == 1 and (step := steps.pop()) > 1:
        count = len(offsets)
        span = offsets[-1] - offsets[0] + 1
        return (
            f"Your mask is a dilated (strided) window: {shown}, every {_ordinal(step)} key "
            f"(dilation {step}): {count} keys spread over {span} positions, with gaps between "
            f"them, instead of the consecutive keys i - {high} .. i (offsets "
            f"{low} .. {high}). Keep every offset in the range: no step and no "
            f"`offset % {step} == 0` condition."
            if low == 0
            else f"Your mask is a dilated (strided) window: {shown}, every {_ordinal(step)} key, "
            f"instead of the consecutive offsets {low} .. {high}."
        )
    return ""
