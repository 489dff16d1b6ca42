"""Checks for lesson 00: the warm-up exercise, ``center_rows``.

What is required is what the concept needs: a numpy array of the input's shape
whose last-axis rows have had their own mean subtracted, in a floating-point
dtype (a float64 result for a float32 input is accepted, with a note), compared
with a tolerance that fits the dtype. How it is computed is free.
"""

from __future__ import annotations

import contextlib
import io
import re

import numpy as np

from transformer_course.checking import Checker, CheckFailure, numpy_rng, tolerance
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
    # its two x[i] have different means (4 and 4.5): a mean per x[i] is not the whole mean
    np.array([[[1.0, 2.0, 3.0], [4.0, 6.0, 8.0]], [[0.0, 0.0, 9.0], [5.0, 5.0, 8.0]]]),
    np.array([2.0, 4.0, 9.0]),
    # one row, kept 2-D: its axis of length 1 is part of the shape (a .squeeze() drops it)
    np.array([[5.0, 1.0, 3.0]]),
)

_KEEPDIMS_HINT = (
    "Your row means lost their axis (a mean, or a sum, over axis=-1 without keepdims=True): "
    "a reduction over the last axis drops that axis, so for x of shape (n, m) the means have shape (n,), and numpy "
    "lines them up with x's *last* axis, not its first. Keep the reduced axis as a size-1 "
    "axis, x.mean(axis=-1, keepdims=True) (or add it back, means[..., None]), so that each "
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


def _misplaced_axis_hint(x: np.ndarray):
    """A hint for the broadcast error that row means with their size-1 axis put back in
    the wrong place give (means[:, None] on a 3-D x): (matches, text) for ``c.call``."""

    def means_shape(exc: BaseException) -> tuple[int, ...] | None:
        found = re.findall(r"\(([\d,]*)\)", str(exc))
        shapes = [tuple(int(n) for n in s.split(",") if n) for s in found]
        rows = x.shape[:-1]
        for shape in shapes:
            if len(shape) == x.ndim and 1 in shape and shape.index(1) < x.ndim - 1:
                at = shape.index(1)
                if shape[:at] + shape[at + 1 :] == rows:
                    return shape
        return None

    def text(exc: BaseException) -> str:
        shape = means_shape(exc)
        return (
            f"Your row means came out with shape {shape}: the size-1 axis was put back at "
            f"position {shape.index(1)} (as means[:, None] does), where it lines the means up "
            f"with the rows only when x is 2-D. Here x has shape {x.shape}: the means need "
            f"shape {(*x.shape[:-1], 1)}, the size-1 axis last (means[..., None], or "
            "x.mean(axis=-1, keepdims=True))."
        )

    return (lambda exc: means_shape(exc) is not None, text)


def _error_shapes(exc: BaseException) -> list[tuple[int, ...]]:
    """The operand shapes a numpy broadcast error names, in order."""
    found = re.findall(r"\(([\d,\s]*)\)", str(exc))
    return [tuple(int(n) for n in s.split(",") if n.strip()) for s in found]


def _is_keepdims_error(x: np.ndarray):
    """True when the error's shapes are those of ``x - x.mean(axis=-1)``: x's and the row
    means' without their size-1 axis (the case the keepdims hint explains)."""
    return lambda exc: sorted(_error_shapes(exc)) == sorted([x.shape, x.shape[:-1]])


def _shape_names(x: np.ndarray) -> dict[tuple[int, ...], list[str]]:
    """{shape: the expressions of x that have it}: x, x.T, and each axis's mean (with and
    without keepdims, and transposed)."""
    names: dict[tuple[int, ...], list[str]] = {}

    def add(shape, name):
        names.setdefault(tuple(shape), []).append(name)

    add(x.shape, "x")
    if x.ndim > 1 and x.shape[::-1] != x.shape:
        add(x.shape[::-1], "x.T (every axis of x reversed)")
    for axis in range(x.ndim):
        reduced = x.shape[:axis] + x.shape[axis + 1 :]
        add(reduced, f"x.mean(axis={axis})")
        add((*x.shape[:axis], 1, *x.shape[axis + 1 :]), f"x.mean(axis={axis}, keepdims=True)")
        if len(reduced) > 1 and reduced[::-1] != reduced:
            add(reduced[::-1], f"x.mean(axis={axis}).T")
    if x.ndim >= 3:
        rows = int(np.prod(x.shape[:-1]))
        add((rows, 1), "the row means flattened into one column (x.mean(axis=-1).reshape(-1, 1))")
        add((rows, x.shape[-1]), "a 2-D array of one row per row of x, x's rows flattened")
    return names


def _operand_shapes_hint(x: np.ndarray):
    """A hint for a broadcast error that is not the missing keepdims: what each operand's
    shape is (x, x.T, a mean over some axis) and, when a mean over another axis than the
    last is among them, that axis. (matches, text) for ``c.call``."""
    names = _shape_names(x)

    def described(exc: BaseException) -> list[tuple[tuple[int, ...], list[str]]]:
        shapes = _error_shapes(exc)
        if len(shapes) < 2 or not all(shape in names for shape in shapes):
            return []
        return [(shape, names[shape]) for shape in shapes]

    def text(exc: BaseException) -> str:
        parts = described(exc)
        said = "; ".join(f"{shape} is the shape of {' or '.join(n)}" for shape, n in parts)
        axes = sorted(
            {
                int(m.group(1))
                for _, n in parts
                for name in n
                if (m := re.match(r"x\.mean\(axis=(\d+)", name)) and int(m.group(1)) != x.ndim - 1
            }
        )
        transposed = any(".T" in name for _, n in parts for name in n)
        flattened = any("flattened" in name for _, n in parts for name in n)
        cause = ""
        if axes:
            which = " or ".join(f"axis {a}" for a in axes)
            cause += (
                f" Your means look taken over {which}, not over the last axis"
                + (" (here these give the same shape)" if len(axes) > 1 else "")
                + f": x is {x.ndim}-D, and each row is along its last axis."
            )
        if flattened:
            cause += (
                f" Your means (or the rows they are spread over) lost x's leading axes: x is "
                f"{x.ndim}-D, its rows are indexed by x.shape[:-1] = {x.shape[:-1]}, and a "
                "2-D reshape (or np.outer) lines up with them only when x is 2-D."
            )
        if transposed:
            cause += (
                " x.T reverses *every* axis: for a 2-D x that swaps rows and columns, but for "
                "a 3-D x it puts the last axis first and the first last, so subtracting "
                "through transposes lines the means up with the rows only in 2-D."
            )
        return (
            f"x has shape {x.shape}, and the subtraction met arrays it cannot broadcast "
            f"together: {said}.{cause} x - x.mean(axis=-1, keepdims=True) works for any "
            "number of dimensions."
        )

    return (lambda exc: bool(described(exc)), text)


_SCALAR_HINT = (
    "Your code converted an array of several values (the row means, say) into one Python "
    "number (float(...), int(...), .item(), or a math.* function, which take a single "
    "value): that works only when there is a single row (a 1-D x). Here x has several "
    "rows, each with its own mean: keep the means as an array, x.mean(axis=-1, "
    "keepdims=True), and subtract that array."
)


def _inferred_divisor(x: np.ndarray, got: np.ndarray) -> int | None:
    """The one whole number D when ``got`` is x minus each row's sum divided by D, D not
    the row's length (None otherwise)."""
    taken = x - got  # what was subtracted from each entry
    if x.ndim == 0 or not np.allclose(taken, taken[..., :1], atol=1e-6):
        return None
    sums = x.sum(axis=-1)
    per_row = taken[..., 0]
    usable = (np.abs(sums) > 1e-6) & (np.abs(per_row) > 1e-9)
    if not usable.any():
        return None
    divisors = sums[usable] / per_row[usable]
    divisor = float(divisors.flat[0])
    if not np.allclose(divisors, divisor, rtol=1e-6) or np.isclose(divisor, x.shape[-1]):
        return None
    if not np.isclose(divisor, round(divisor)):
        return None
    return round(divisor)


def _divisor_names(shape: tuple[int, ...], divisor: int) -> list[str]:
    """The sizes of an x of this shape that equal ``divisor``, as code."""
    names = [
        f"x.shape[{axis}]" + (", len(x)" if axis == 0 else "")
        for axis, size in enumerate(shape[:-1])
        if size == divisor
    ]
    names += ["x.size"] if len(shape) > 1 and divisor == int(np.prod(shape)) else []
    names += ["x.shape[-1] - 1, one less than the row's length"] if divisor == shape[-1] - 1 else []
    return names


def _probe_shape(ndim: int) -> tuple[int, ...]:
    """A shape of ``ndim`` axes on which every size _divisor_names knows differs."""
    return (*(2, 3, 5)[: ndim - 1], 9)


def _divisor_message(center_rows, x: np.ndarray, got: np.ndarray) -> str | None:
    """When the learner subtracted each row's sum divided by one wrong number D (x.shape[0],
    len(x), x.size, x.shape[-1] - 1, ...) instead of the row's length: that D, and which
    size it is. When several sizes of x equal D, one probe on an x whose sizes all differ
    keeps the one the learner's code divides by."""
    divisor = _inferred_divisor(x, got)
    if divisor is None:
        return None
    n = x.shape[-1]
    names = _divisor_names(x.shape, divisor)
    if len(names) > 1 and x.ndim <= 4:
        probe_x = numpy_rng(7).normal(size=_probe_shape(x.ndim)) * 3 + 1
        with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
            probe = np.asarray(center_rows(probe_x.copy()), dtype=np.float64)
            if probe.shape == probe_x.shape and (
                probe_divisor := _inferred_divisor(probe_x, probe)
            ):
                kept = _divisor_names(probe_x.shape, probe_divisor)
                names = [name for name in names if name in kept] or names
    which = f" ({' or '.join(names)})" if names else ""
    return (
        f"You subtracted each row's sum divided by {divisor}{which}, not by the length of a row, "
        f"{n} (x.shape[-1]): a row's mean is its sum over its own entries. Divide by "
        "x.shape[-1], or use x.mean(axis=-1, keepdims=True)."
    )


_PER_SAMPLE_TAIL = (
    "Subtract each row's own mean, over the last axis alone: x - x.mean(axis=-1, "
    "keepdims=True) works for any number of dimensions."
)
#: two ways of taking each x[i]'s mean, which give the same results on every input
_PER_SAMPLE_CAUSES = {
    "axes": "x.mean(axis=tuple(range(1, x.ndim)), keepdims=True), the per-sample mean of "
    "image normalisation, which averages every axis but the first",
    "loop": "a loop over the first axis (`for row in x`), whose x[i] is a 2-D slice when x "
    "is 3-D, so row.mean() averages the whole slice",
}
_PER_SAMPLE = (
    "You subtracted from each x[i] the mean of all of x[i]: either "
    f"{_PER_SAMPLE_CAUSES['axes']}, or {_PER_SAMPLE_CAUSES['loop']}. {_PER_SAMPLE_TAIL}"
)
_ONE_DIM = np.array([2.0, 4.0, 9.0])


def _per_sample_mean(x: np.ndarray) -> np.ndarray | None:
    """x minus the mean of each x[i] over all its entries (3-D x and up)."""
    return x - x.mean(axis=tuple(range(1, x.ndim)), keepdims=True) if x.ndim >= 3 else None


def _per_sample_message(center_rows, x: np.ndarray, got) -> str:
    """When got is x minus each x[i]'s mean: one call on a 1-D x can single out code that
    takes the first axis for the rows (a plain loop over it, a reshape to (len(x), -1)),
    which centres each single number on itself (zeros). Right
    there, the two causes stay: the axes' mean (axis=tuple(range(1, 1)) or -1 is -1) and a
    loop that treats 1-D x apart give the same results on every input."""
    model = _per_sample_mean(x)
    got = np.asarray(got, dtype=np.float64)
    if model is None or got.shape != model.shape or not np.allclose(got, model):
        return _PER_SAMPLE
    probe = None
    with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
        probe = np.asarray(center_rows(_ONE_DIM.copy()), dtype=np.float64)
    if probe is None or probe.shape != _ONE_DIM.shape:
        return _PER_SAMPLE
    shown = f"center_rows({_ONE_DIM.tolist()})"
    if np.allclose(probe, 0.0):
        return (
            f"You subtracted from each x[i] the mean of all of x[i], and {shown} gives "
            "zeros, each number centred on itself: x's first axis was taken for the rows, "
            f"either by {_PER_SAMPLE_CAUSES['loop']}, or by a mean of each x[i] flattened "
            f"(x.reshape(len(x), -1).mean(axis=1)). {_PER_SAMPLE_TAIL}"
        )
    return _PER_SAMPLE


def _mistakes(x: np.ndarray, expected: np.ndarray, per_sample: str = _PER_SAMPLE) -> dict:
    return {
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
        "Row (i, j) of yours had the mean of row (j, i) subtracted: the means were "
        "transposed on the way, as (x.T - x.mean(axis=-1)).T does (x.T reverses *every* axis "
        "of a 3-D x, not just two; the trick works in 2-D only), or a .T on the means. x - "
        "x.mean(axis=-1, keepdims=True) works for any number of dimensions.": (
            x - np.transpose(x.mean(axis=-1))[..., None]
            if x.ndim >= 3 and x.shape[:-1] == x.shape[:-1][::-1]
            else None
        ),
        per_sample: _per_sample_mean(x),
        **{
            f"You subtracted each row's {name} instead of its mean: x - x.mean(axis=-1, "
            "keepdims=True).": x - value
            for name, value in (
                ("median", np.median(x, axis=-1, keepdims=True)),
                ("largest entry (max)", x.max(axis=-1, keepdims=True)),
                ("smallest entry (min)", x.min(axis=-1, keepdims=True)),
                ("first entry", x[..., :1]),
                ("sum", x.sum(axis=-1, keepdims=True)),
                (
                    "mean rounded down to a whole number (floor division, x.sum(...) // n, "
                    "or np.floor)",
                    np.floor(x.mean(axis=-1, keepdims=True)),
                ),
                (
                    "mean rounded to the nearest whole number (round, np.round)",
                    np.round(x.mean(axis=-1, keepdims=True)),
                ),
                (
                    "mean cut to a whole number (int(...), astype(int), np.trunc)",
                    np.trunc(x.mean(axis=-1, keepdims=True)),
                ),
            )
        },
        "You returned x unchanged: nothing was subtracted. Subtract each row's mean, "
        "x - x.mean(axis=-1, keepdims=True).": x,
        "You added each row's mean instead of subtracting it: x - mean, not x + mean.": (
            x + x.mean(axis=-1, keepdims=True)
        ),
    }


# An input on which the row statistics of _mistakes all differ (min, first entry, median,
# the mean floored, rounded or cut): run when several agree on a check's own input.
_TELL_APART = np.array([[3.0, -1.0, 2.5, -2.25], [-3.0, -1.0, 0.5, -2.0]])


def _told_apart(center_rows, x: np.ndarray, got, mistakes: dict) -> dict:
    """``mistakes`` without the ones that agree with ``got`` on x but not with the
    learner's result on :data:`_TELL_APART` (unchanged when fewer than two agree on x, or
    the probe fails)."""
    got = np.asarray(got, dtype=np.float64)

    def agrees(value, result) -> bool:
        return value is not None and value.shape == result.shape and np.allclose(result, value)

    agree = [m for m, value in mistakes.items() if agrees(value, got)]
    if len(agree) < 2:
        return mistakes
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            probe = np.asarray(center_rows(_TELL_APART.copy()), dtype=np.float64)
    except Exception:
        return mistakes
    models = _mistakes(_TELL_APART, ref.center_rows(_TELL_APART))
    kept = [m for m in agree if agrees(models.get(m), probe)]
    if not kept:
        return mistakes
    return {m: value for m, value in mistakes.items() if m not in agree or m in kept}


def _values_too(center_rows, x: np.ndarray, expected: np.ndarray) -> str:
    """When the learner's function also changed its input: what its result shows, so that
    a second mistake is named with the first ("" when the result is right, or unusable)."""
    try:
        got = np.asarray(center_rows(x.copy()), dtype=np.float64)
    except Exception:  # the in-place change is reported; the rest is for the next run
        return ""
    if got.shape != x.shape or np.allclose(got, expected, rtol=1e-5, atol=1e-6):
        return ""
    for message, value in _mistakes(x, expected).items():
        if value is not None and value.shape == got.shape and np.allclose(got, value, atol=1e-6):
            return f"Its result is wrong too. {message}"
    return (
        _divisor_message(center_rows, x, got)
        or "Its result is wrong too: each row should end up with mean 0."
    )


def check_center_rows(center_rows, *, hidden: bool = False) -> None:
    """Check ``center_rows(x)``: x minus the mean of each row (the last axis)."""
    with Checker("center_rows", hidden=hidden, explain_shapes=True) as c:
        c.require_callable(center_rows)
        for x in _hidden_inputs() if hidden else _VISIBLE_INPUTS:
            what = f"center_rows(x) for x of shape {x.shape}"
            expected = ref.center_rows(x)
            try:
                got = c.call(
                    center_rows,
                    x.copy(),
                    hints=[
                        (misplaced := _misplaced_axis_hint(x)),
                        (
                            lambda exc, misplaced=misplaced, x=x: (
                                "could not be broadcast" in str(exc)
                                and not misplaced[0](exc)
                                and _is_keepdims_error(x)(exc)
                            ),
                            _KEEPDIMS_HINT,
                        ),
                        (
                            lambda exc, misplaced=misplaced, x=x: (
                                "could not be broadcast" in str(exc)
                                and not misplaced[0](exc)
                                and not _is_keepdims_error(x)(exc)
                                and _operand_shapes_hint(x)[0](exc)
                            ),
                            _operand_shapes_hint(x)[1],
                        ),
                        ("out of bounds for array of dimension", _LAST_AXIS_HINT),
                        ("converted to Python scalars", _SCALAR_HINT),
                    ],
                )
            except CheckFailure as failure:
                also = (
                    _values_too(center_rows, x, expected) if "in place" in failure.message else ""
                )
                if not also:
                    raise
                raise CheckFailure(
                    failure.exercise, f"{failure.message} {also}", failure.learner_traceback
                ) from None
            c.expect_type(got, np.ndarray, what)
            c.expect_shape(
                got,
                x.shape,
                what,
                "Keep the input's shape: subtract each row's mean from that row.",
            )
            c.expect_floating(got, what, preferred=x.dtype, expected=expected)
            c.expect_close(
                got,
                expected,
                what,
                **tolerance(got.dtype, x.dtype),
                hint="Each row (along the last axis) should end up with mean 0.",
                mistakes=_told_apart(
                    center_rows,
                    x,
                    got,
                    _mistakes(x, expected, _per_sample_message(center_rows, x, got)),
                ),
                explain=lambda got=got, x=x: (
                    _divisor_message(center_rows, x, np.asarray(got, np.float64)) or ""
                ),
            )


# ---------------------------------------------------------------------------- registry
LESSON = "00_welcome"
EXERCISES = (
    Exercise("center_rows", check_center_rows, kind="function", points=1, minutes=5, level=1),
)
