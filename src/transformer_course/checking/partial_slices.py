"""A step applied to only part of an axis: the learner's value is exactly the reference's on
some indices of one axis (some sequences of the batch, some heads, some positions) and, on
every other index of that axis, all zeros (never written), the caller's input unchanged
(never transformed), a copy of one right index (one result given to all) or, on two
indices or more, the right values times one constant (a scale that reached part of the
axis; one wrong index is too little to tell a factor from a per-index mistake).

The family is every edit made for part of a tensor: code written for one prompt
(``keys[0, ...] = k_new[0]``), for one head (``[:, -1]``), a loop that stops early, an
``[:1]`` or ``[0]`` index, a result broadcast from the first row (``[:1].expand_as``). The
line differs from one learner to the next; what they leave behind is the same split of one
axis into right indices and indices that hold a recognisable filler. Nothing is said when
the wrong indices hold anything else (a wrong formula is wrong there and usually on the
"right" indices too, and the split would then be a coincidence).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["PartialSlices", "match_partial_slices", "rows_filled_at"]


#: the longest axis read index by index (a batch, heads, positions of a check's inputs;
#: a draw of thousands of rows is left alone, so that a failure answers at once)
_MAX_INDICES = 64


@dataclass(frozen=True)
class PartialSlices:
    """``axis``: the axis split; ``right`` and ``wrong``: its indices; ``filler``: "zeros",
    "input" or "copy"; ``source``: the right index copied (filler "copy"); ``message``:
    what the learner reads."""

    axis: int
    right: tuple[int, ...]
    wrong: tuple[int, ...]
    filler: str
    source: int | None
    message: str


def _indices(indices: tuple[int, ...]) -> str:
    if len(indices) > 6:
        return "[" + ", ".join(str(i) for i in indices[:6]) + ", ...]"
    return "[" + ", ".join(str(i) for i in indices) + "]"


def _close(a: np.ndarray, b: np.ndarray, tol: dict) -> bool:
    return a.shape == b.shape and bool(np.allclose(a, b, equal_nan=False, **tol))


def _common_factor(slices: list, expected: list) -> float | None:
    """The one constant c != 1 with slices[i] = c * expected[i] for every i (two slices at
    least, each with nonzero expected values), or None: a factor that depends on the
    slice (its number of pads, its length) differs between them."""
    if len(slices) < 2:
        return None
    ratios = []
    for got, right in zip(slices, expected, strict=True):
        nonzero = np.abs(right) > 1e-6
        if not nonzero.any() or not np.allclose(got[~nonzero], 0.0, atol=1e-6):
            return None
        ratio = got[nonzero] / right[nonzero]
        if float(np.ptp(ratio)) > 1e-4 * max(1.0, float(np.abs(ratio).max())):
            return None
        ratios.append(float(ratio.mean()))
    spread = max(ratios) - min(ratios) > 1e-4 * max(1.0, abs(ratios[0]))
    if spread or abs(ratios[0] - 1) < 1e-4 or abs(ratios[0]) < 1e-4:  # (zeros: their own)
        return None
    return ratios[0]


def _filler_of(
    got: np.ndarray,
    expected: np.ndarray,
    untouched: np.ndarray | None,
    axis: int,
    wrong,
    right,
    tol,
) -> tuple[str, float | None] | None:
    """The one filler that every wrong index holds, or None. A filler must also differ from
    the reference on one right index at least: a step that does nothing there (position
    0's rotation, a row of zeros) cannot tell "applied there" from "applied nowhere"."""
    slices = [np.take(got, i, axis=axis) for i in wrong]
    if all(not np.any(s) for s in slices) and all(
        np.any(np.take(expected, i, axis=axis)) for i in (*wrong, *right)
    ):
        return "zeros", None
    if (
        untouched is not None
        and untouched.shape == got.shape
        and not all(
            _close(np.take(untouched, i, axis=axis), np.take(expected, i, axis=axis), tol)
            for i in right
        )
    ):
        if all(
            _close(s, np.take(untouched, i, axis=axis), tol)
            and not _close(np.take(untouched, i, axis=axis), np.take(expected, i, axis=axis), tol)
            for s, i in zip(slices, wrong, strict=True)
        ):
            return "input", None
    for source in right[:2]:  # a copy of the first right index (bounded: see below)
        copied = np.take(expected, source, axis=axis)
        if all(
            _close(s, copied, tol) and not _close(copied, np.take(expected, i, axis=axis), tol)
            for s, i in zip(slices, wrong, strict=True)
        ):
            return "copy", source
    scale = _common_factor(slices, [np.take(expected, i, axis=axis) for i in wrong])
    if scale is not None:
        return "scaled", scale
    return None


def match_partial_slices(
    got: Any,
    expected: Any,
    *,
    rtol: float,
    atol: float,
    untouched: Any = None,
    axes: tuple[str, ...] | None = None,
    noun: str = "value",
    fillers: tuple[str, ...] = ("zeros", "input", "copy", "scaled"),
    untouched_name: str = "the input",
) -> PartialSlices | None:
    """The first leading axis (of at least two indices; the last axis is never split) that splits into indices where ``got``
    equals ``expected`` and indices that all hold one filler (zeros, ``untouched`` as
    given, named ``untouched_name``, a copy of a right index, or the right values times one
    constant); None when no axis does, when the values are not
    finite arrays of one shape, or on anything unexpected (the grader's plain values
    included: the caller then keeps its message). ``axes`` names the axes ("batch",
    "heads", ...); ``fillers``: the fillers a caller accepts (zeros in a softmax's rows
    are a numerical failure, not a row left unwritten)."""
    try:
        got = np.asarray(got, dtype=np.float64)
        expected = np.asarray(expected, dtype=np.float64)
        untouched = None if untouched is None else np.asarray(untouched, dtype=np.float64)
    except (TypeError, ValueError, RuntimeError):
        return None
    if got.shape != expected.shape or got.ndim < 1 or got.size < 2:
        return None
    if not (np.isfinite(got).all() and np.isfinite(expected).all()):
        return None
    tol = {"rtol": max(rtol, 1e-5), "atol": max(atol, 1e-6)}
    if untouched is not None and untouched.shape == got.shape and _close(got, untouched, tol):
        return PartialSlices(
            -1,
            (),
            tuple(range(got.shape[0])),
            "input",
            None,
            f"Your {noun} is {untouched_name} as it came in, at every entry: the step never "
            "changed it. Either it never ran, or its result was dropped (computed into a "
            "new tensor that was not returned or assigned, as a method without a trailing "
            "underscore does), or it ran only where it changes nothing.",
        )
    # the leading axes only: a step that reaches part of the features (the last axis) is
    # another family (features passed through, half a rotation), each check's own
    for axis in range(got.ndim - 1):
        size = got.shape[axis]
        if size < 2 or size > _MAX_INDICES:
            continue
        right = tuple(
            i
            for i in range(size)
            if _close(np.take(got, i, axis=axis), np.take(expected, i, axis=axis), tol)
        )
        wrong = tuple(i for i in range(size) if i not in right)
        if not right or not wrong:
            continue
        found = _filler_of(got, expected, untouched, axis, wrong, right, tol)
        if found is None or found[0] not in fillers:
            continue
        filler, found_value = found
        source = None if filler == "scaled" or found_value is None else int(found_value)
        label = str(axes[axis]) if axes and axis < len(axes) else ""
        name = f"axis {axis}" + (f" ({label})" if label and label != f"axis {axis}" else "")
        held = {
            "zeros": "all zeros: nothing was ever written there",
            "input": f"{untouched_name} as it came in: the step never ran on them",
            "copy": f"copies of index {source}'s right result: one result given to all (or "
            f"those indices differ from index {source} only in something your code ignores, "
            "their padding or mask, say)",
            "scaled": "the right values times one constant, "
            f"{found_value if found_value is not None else 0.0:.4g}: a scale that reached only "
            "the others",
        }[filler]
        message = (
            f"Along {name} of your {noun}, indices {_indices(right)} (of {size}) are right and "
            f"{_indices(wrong)} are {held}. The step was applied to only part of that axis: "
            "an index such as [0], [-1] or [:1] where the whole axis belongs (code written "
            "for one sequence, one head or one row), a slice or a loop that stops early, or a "
            "result broadcast from one index. Apply it to every index, with ':' (or '...') "
            "on that axis."
        )
        return PartialSlices(axis, right, wrong, filler, source, message)
    return None


def rows_filled_at(got: Any, expected: Any, keep: Any) -> str:
    """The same family along a mask instead of an axis: ``got`` is ``expected`` at every
    position where ``keep`` (a bool tensor of ``got``'s leading axes, (batch, len) for a
    (batch, len, d) result) is True, and at every other position one filler: "0" (the
    result multiplied by the mask, or masked_fill(..., 0)), "-inf" (masked_fill with -inf)
    or another constant, written as a number. "" when not so, when keep holds no False,
    or when the right values already hold that filler there (nothing was changed)."""
    try:
        mine = np.asarray(got.detach().cpu().double())
        right = np.asarray(expected.detach().cpu().double())
        kept = np.asarray(keep.detach().cpu()).astype(bool)
    except AttributeError:
        return ""
    if mine.shape != right.shape or kept.shape != mine.shape[: kept.ndim] or kept.all():
        return ""
    tol = {"rtol": 1e-4, "atol": 1e-5}
    if not kept.any() or not _close(mine[kept], right[kept], tol):
        return ""
    dropped = mine[~kept]  # (positions, ...)
    value = dropped.flat[0]
    if not np.all(dropped == value) and not (
        np.isfinite(value) and np.allclose(dropped, value, **tol)
    ):
        return ""
    if np.allclose(right[~kept], value, **tol):
        return ""  # the right values are that filler already
    if value == 0:
        return "0"
    if np.isneginf(value):
        return "-inf"
    return f"{value:.4g}"
