"""Checks for lesson 00: the warm-up exercise."""

from __future__ import annotations

import numpy as np

from transformer_course.checking import Checker, numpy_rng
from transformer_course.reference import welcome as ref
from transformer_course.registry import Exercise


def check_center_rows(center_rows, *, hidden: bool = False) -> None:
    with Checker("center_rows", hidden=hidden) as c:
        c.require_callable(center_rows)
        if hidden:
            rng = numpy_rng(1001)
            inputs = [
                rng.normal(size=shape) * 10 + 3 for shape in [(5, 7), (2, 3, 4), (1, 1), (6,)]
            ]
        else:
            inputs = [np.array([[1.0, 2.0, 3.0], [10.0, 20.0, 60.0]]), np.arange(8.0).reshape(4, 2)]
        for x in inputs:
            what = f"center_rows(x) for x of shape {x.shape}"
            got = c.call(center_rows, x.copy())
            c.expect_type(got, np.ndarray, what, "Return a numpy array.")
            c.expect_shape(
                got,
                x.shape,
                what,
                "Keep the input's shape: use keepdims=True (or [..., None]) so the means broadcast.",
            )
            expected = ref.center_rows(x)
            c.expect_close(
                got,
                expected,
                what,
                hint="Each row should end up with mean 0.",
                mistakes={
                    "It looks like you took the mean over axis 0 (down each column) instead of "
                    "over each row's entries (axis=-1).": x - x.mean(axis=0, keepdims=True),
                    "It looks like you subtracted the mean of the whole array, not of each row.": (
                        x - x.mean()
                    ),
                    "It looks like you also divided by the standard deviation: only subtract the "
                    "mean here.": expected / np.maximum(x.std(axis=-1, keepdims=True), 1e-12),
                },
            )


# ---------------------------------------------------------------------------- registry
LESSON = "00_welcome"
EXERCISES = (
    Exercise("center_rows", check_center_rows, kind="function", points=1, minutes=5, level=1),
)
