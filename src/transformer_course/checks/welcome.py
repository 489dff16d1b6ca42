"""Checks for lesson 00: the warm-up exercise, ``center_rows``.

What is required is what the concept needs: a numpy array of the input's shape
whose last-axis rows have had their own mean subtracted, in a floating-point
dtype (a float64 result for a float32 input is accepted, with a note), compared
with a tolerance that fits the dtype. How it is computed is free.
"""

from __future__ import annotations

import numpy as np

from transformer_course.checking import Checker, numpy_rng, tolerance
from transformer_course.exercise import Exercise
from transformer_course.reference import welcome as ref

__all__ = [
    "check_center_rows",
]


# Small inputs whose results can be worked out by hand. Together they catch every
# classic mistake at once: the first is the lesson's worked example; the square one
# shows what a mean without keepdims does when it happens to broadcast; the 3-D one
# tells axis=-1 from axis=1; the 1-D one is a single row.
_VISIBLE_INPUTS = (
    np.array([[1.0, 2.0, 3.0], [10.0, 20.0, 60.0]]),
    np.arange(8.0).reshape(4, 2),
    np.array([[1.0, 2.0, 6.0], [0.0, 3.0, 3.0], [4.0, 4.0, 4.0]]),
    np.array([[[1.0, 2.0, 3.0], [4.0, 6.0, 8.0]], [[0.0, 0.0, 9.0], [5.0, 5.0, 5.0]]]),
    np.array([2.0, 4.0, 9.0]),
)

_KEEPDIMS_HINT = (
    "A mean over the last axis drops that axis: for x of shape (n, m) the means have shape "
    "(n,), and numpy lines them up with x's *last* axis, not its first. Keep the reduced axis "
    "as a size-1 axis (numpy's mean has an argument for that), or add it back, so that each "
    "row's mean is subtracted from its own row."
)
_LAST_AXIS_HINT = (
    "'Each row' means the last axis, whatever the number of dimensions: axis=-1 is the "
    "last axis of a 1-D, 2-D or 3-D array alike, while axis=1 is the last one only in 2-D."
)


def _hidden_inputs() -> list[np.ndarray]:
    rng = numpy_rng(1001)
    inputs = [rng.normal(size=shape) * 10 + 3 for shape in [(5, 7), (2, 3, 4), (1, 1), (6,)]]
    inputs.append((rng.normal(size=(3, 5)) * 4 - 2).astype(np.float32))
    inputs.append(rng.normal(size=(4, 4)) + 7)
    return inputs


def _row_means_without_keepdims(x: np.ndarray) -> np.ndarray | None:
    """What `x - x.mean(axis=-1)` gives when it broadcasts (a square 2-D x)."""
    means = x.mean(axis=-1)
    try:
        wrong = x - means
    except ValueError:
        return None
    return None if wrong.shape != x.shape else wrong


def _mean_over_axis_1(x: np.ndarray) -> np.ndarray | None:
    return x - x.mean(axis=1, keepdims=True) if x.ndim >= 3 else None


def check_center_rows(center_rows, *, hidden: bool = False) -> None:
    """Check ``center_rows(x)``: x minus the mean of each row (the last axis)."""
    with Checker("center_rows", hidden=hidden) as c:
        c.require_callable(center_rows)
        for x in _hidden_inputs() if hidden else _VISIBLE_INPUTS:
            what = f"center_rows(x) for x of shape {x.shape}"
            got = c.call(
                center_rows,
                x.copy(),
                hints={
                    "could not be broadcast": _KEEPDIMS_HINT,
                    "out of bounds for array of dimension": _LAST_AXIS_HINT,
                },
            )
            c.expect_type(got, np.ndarray, what)
            c.expect_shape(
                got,
                x.shape,
                what,
                "Keep the input's shape: subtract each row's mean from that row.",
            )
            c.expect_floating(got, what, preferred=x.dtype)
            expected = ref.center_rows(x)
            c.expect_close(
                got,
                expected,
                what,
                **tolerance(got.dtype, x.dtype),
                hint="Each row (along the last axis) should end up with mean 0.",
                mistakes={
                    "It looks like you took the mean over axis 0 (down each column) instead of "
                    "over each row's entries (axis=-1).": x - x.mean(axis=0, keepdims=True),
                    "It looks like you subtracted the mean of the whole array, not of each row.": (
                        x - x.mean()
                    ),
                    "It looks like you also divided by the standard deviation: only subtract the "
                    "mean here.": expected / np.maximum(x.std(axis=-1, keepdims=True), 1e-12),
                    "It looks like the means were taken over axis 1, which is the last axis only "
                    f"of a 2-D array. {_LAST_AXIS_HINT}": _mean_over_axis_1(x),
                    "It looks like the row means were subtracted down the columns: on this square "
                    f"input the means broadcast without an error, but the wrong way. {_KEEPDIMS_HINT}": (
                        _row_means_without_keepdims(x)
                    ),
                },
            )


# ---------------------------------------------------------------------------- registry
LESSON = "00_welcome"
EXERCISES = (
    Exercise("center_rows", check_center_rows, kind="function", points=1, minutes=5, level=1),
)
