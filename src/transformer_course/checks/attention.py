"""Checks for lesson 04: a numerically stable softmax, one row of attention by hand,
scaled dot-product attention, and three concept questions.

The inputs are chosen so that the classic mistakes cannot hide: len_q != len_k (so
swapping q and k breaks the shapes), d_k, d_v, len_q, len_k and the batch size all
different (so scaling by the wrong number gives a recognisably different answer,
and returning the pair in the wrong order shows in the shapes), masks that are not
symmetric and have a fully masked query row, large logits in float32 (so a softmax
without the max trick overflows), batched inputs (so ``k.T`` and ``transpose(1, 2)``
show). Every mistake the hidden run can find, the visible run finds too; the
hidden run adds other seeds and shapes against hard-coded answers.

What is accepted, because the concept does not fix it: any floating dtype for the
results (a note when it is not the input's); any value to block masked keys (-inf,
-1e9, -1e4, ``torch.finfo(dtype).min``, ``masked_fill``, ``torch.where`` or an
additive float mask); for a query with no key it may attend to, all-zero weights
(the reference), uniform weights or another finite distribution (a note), but
never NaN; for a softmax slice that is all -inf, zeros (the reference) or uniform
weights (a note), but never NaN.
"""

from __future__ import annotations

import math
import re
import traceback
from collections.abc import Callable
from functools import partial

import numpy as np
import torch

from transformer_course.checking import (
    Checker,
    CheckFailure,
    numpy_rng,
    short,
    tolerance,
    torch_generator,
)
from transformer_course.checking.attention_weights import (
    INVERTED_MASK,
    SOFTMAX_OVER_QUERIES,
    attention_weights_variant,
    expect_attention_weights,
    with_fully_masked_rows,
)
from transformer_course.checking.failure import _is_learner_frame
from transformer_course.checking.quiz import Quiz, quiz_check
from transformer_course.exercise import Exercise
from transformer_course.reference import attention as ref

__all__ = [
    "check_attention_row",
    "check_quiz_cross_attention_roles",
    "check_quiz_fully_masked",
    "check_quiz_score_scale",
    "check_scaled_dot_product_attention",
    "check_softmax",
]

_NEG_INF = float("-inf")


def _output_tolerance(*dtypes, values) -> dict[str, float]:
    """The tolerance for an attention output: a weighted average of the value rows, so
    an absolute error in proportion to the size of the values is rounding, not a mistake
    (outputs near 0 come from large terms that cancel)."""
    tol = tolerance(*dtypes)
    if isinstance(values, torch.Tensor):
        values = values.detach().double().numpy()
    scale = float(np.abs(np.asarray(values, dtype=np.float64)).max(initial=0.0))
    return {"rtol": tol["rtol"], "atol": max(tol["atol"], tol["rtol"] * scale)}


def _learner_source(exc: BaseException) -> str:
    """The source lines of the frames an exception passed through (the learner's among
    them), to recognise what the code that raised it wrote."""
    return "\n".join(frame.line or "" for frame in traceback.extract_tb(exc.__traceback__))


# =============================================================================== softmax
_SOFTMAX_OVERFLOW = (
    "np.exp(1000.0) overflows to inf, and inf / inf is NaN. Subtract the maximum of each "
    "slice before exponentiating: m = np.max(x, axis=axis, keepdims=True), then "
    "np.exp(x - m). This changes nothing mathematically (softmax(x) = softmax(x - c) for "
    "any constant c per slice), and the largest exponent becomes exp(0) = 1."
)
_SOFTMAX_GLOBAL_MAX = (
    "The rows of this input live on very different scales. It looks like you subtracted "
    "one maximum for the whole array (np.max(x)) instead of the maximum of each slice: "
    "a row around -1000 minus a global maximum around +1000 underflows exp() to 0 "
    "everywhere, and 0 / 0 is NaN. Use np.max(x, axis=axis, keepdims=True)."
)
_SOFTMAX_GLOBAL_MAX_ZEROS = (
    "Your result matches a softmax that subtracts one maximum for the whole array "
    "(np.max(x)) instead of the maximum of each slice: a slice far below the global "
    "maximum underflows exp() to 0 everywhere, so its weights come out 0 instead of adding "
    "up to 1. Use np.max(x, axis=axis, keepdims=True)."
)
_SOFTMAX_NOT_NORMALISED = (
    "Your result is exp(x) (or exp(x - max)) without dividing by the sum along the axis, "
    "so the entries of a slice do not add up to 1. Divide by "
    "np.sum(e, axis=axis, keepdims=True)."
)
_SOFTMAX_WHOLE_ARRAY = (
    "Your values add up to 1 over the whole array instead of along the axis: each slice "
    "along `axis` is normalised on its own. Pass axis=axis, keepdims=True to np.sum."
)
_SOFTMAX_KEEPDIMS = (
    "It looks like you divided by the sums without keepdims=True: np.sum(e, axis=-1) has "
    "shape (n,), and numpy broadcasts it along the wrong axis (entry [i, j] gets divided by "
    "the sum of row j). Pass keepdims=True to np.sum (and np.max) so the sums line up "
    "with their slices."
)
_SOFTMAX_PEAK_KEEPDIMS = (
    "It looks like you took the maximum without keepdims=True: np.max(x, axis=-1) has shape "
    "(n,), and x - m then subtracts the maximum of row j from column j instead of each "
    "row's own maximum (on a square input it runs, and gives wrong weights). Pass "
    "keepdims=True to np.max (and np.sum) so the maxima line up with their slices."
)
_SOFTMAX_NO_MAX = (
    "Your softmax exponentiates x as it is: wherever exp(x) overflows it gives NaN, and "
    "everywhere else it matches exp(x) / sum(exp(x)), so the maximum is not subtracted. "
)
_SOFTMAX_ALL_NEG_INF = (
    "A slice in which every entry is -inf has nothing to give weight to, and the formula "
    "gives 0 / 0. The contract asks for a finite answer there: all zeros (the reference, "
    "like F.scaled_dot_product_attention for a fully masked row) or uniform weights (the "
    "limit of a softmax of equal entries)."
)
_SOFTMAX_ALL_NEG_INF_NAN = (
    _SOFTMAX_ALL_NEG_INF + " Yours is NaN there: the slice maximum is -inf and "
    "-inf - (-inf) is NaN (or, without the max, exp gives all zeros and 0 / 0 is NaN). "
    "Replace a maximum that is not finite by 0 before subtracting it (np.isfinite tells "
    "which), and divide only where the sum is positive (np.divide has where= and out=)."
)
_SOFTMAX_UNIFORM_NOTE = (
    "your softmax gives a slice that is all -inf uniform weights (1/n each): the limit "
    "of a softmax of n equal entries, and what replacing -inf by a large finite number "
    "such as -1e9 gives. That is accepted. The reference returns zeros there (a query with "
    "nothing to attend to takes in nothing), as F.scaled_dot_product_attention does."
)
_SOFTMAX_INPLACE = (
    "For example x -= x.max(...) or np.exp(x, out=x) write into the caller's array: "
    "compute x - m into a new array instead."
)
_SOFTMAX_HINTS = {
    "could not be broadcast together": (
        "The slice maxima or sums do not line up with x: reduce with keepdims=True "
        "(np.max(x, axis=axis, keepdims=True)), so that the reduced axis stays, with size 1, "
        "and broadcasts along the right axis."
    ),
    "out of bounds for array of dimension": (
        "x may have any number of dims (a 1-D vector of scores too): reduce along the "
        "`axis` you were given (axis=axis), never a fixed axis number."
    ),
}


def _softmax_wrong_axis(x: np.ndarray, axis: int) -> dict[str, np.ndarray]:
    """The answer of a softmax taken along every other axis."""
    wrong = {}
    own = axis % x.ndim
    for other in range(x.ndim):
        if other != own:
            message = (
                f"Your result is normalised along axis {other - x.ndim} instead of "
                f"axis={axis}: did you hard-code the axis (e.g. axis=-1), or forget to "
                "pass axis=axis to np.max or np.sum?"
            )
            wrong[message] = ref.softmax(x, axis=other)
    return wrong


def _softmax_split_axes(x: np.ndarray, axis: int) -> dict[str, np.ndarray]:
    """The answers whose max and sum are taken along different axes (one of them `axis`):
    the max's shift then differs inside a slice and no longer cancels."""
    wrong = {}
    own = axis % x.ndim
    for other in range(x.ndim):
        if other == own:
            continue
        for max_axis, sum_axis, which in ((other, own, "max"), (own, other, "sum")):
            peak = np.max(x, axis=max_axis, keepdims=True)
            exps = np.exp(x - np.where(np.isfinite(peak), peak, 0.0))
            total = np.sum(exps, axis=sum_axis, keepdims=True)
            stray = (max_axis if which == "max" else sum_axis) - x.ndim
            message = (
                f"Your result matches the {which} taken along axis {stray} while the "
                f"{'sum' if which == 'max' else 'max'} is taken along axis={axis}: "
                f"take both along the same axis, `axis` (np.max(x, axis=axis, keepdims=True) "
                f"and np.sum(..., axis=axis, keepdims=True)). Subtracting a max taken along "
                f"another axis shifts the entries of one slice by different amounts, which "
                f"changes the result."
            )
            wrong[message] = np.divide(exps, total, out=np.zeros_like(exps), where=total > 0)
    return wrong


def _softmax_mistakes(x: np.ndarray, axis: int) -> dict[str, np.ndarray]:
    mistakes: dict[str, np.ndarray] = {}
    with np.errstate(all="ignore"):
        mistakes.update(_softmax_wrong_axis(x, axis))
        for message, wrong in _softmax_split_axes(x, axis).items():
            if not np.allclose(wrong, ref.softmax(x, axis=axis), atol=1e-6):
                mistakes[message] = wrong
        peak = np.max(x, axis=axis, keepdims=True)
        exps = np.exp(x - np.where(np.isfinite(peak), peak, 0.0))
        mistakes[_SOFTMAX_NOT_NORMALISED] = exps
        mistakes[_SOFTMAX_NOT_NORMALISED.replace("exp(x) (or exp(x - max))", "exp(x)")] = np.exp(x)
        mistakes[_SOFTMAX_WHOLE_ARRAY] = exps / np.sum(exps)
        sums = np.sum(exps, axis=axis)
        try:
            mistakes[_SOFTMAX_KEEPDIMS] = exps / sums
        except ValueError:
            pass
        if x.size and np.isfinite(np.max(x)):  # one maximum for the whole array
            whole = np.exp(x - np.max(x))
            total = np.sum(whole, axis=axis, keepdims=True)
            global_max = np.divide(whole, total, out=np.zeros_like(whole), where=total > 0)
            if not np.allclose(global_max, ref.softmax(x, axis=axis), atol=1e-6):
                mistakes[_SOFTMAX_GLOBAL_MAX_ZEROS] = global_max
        try:
            shifted = np.exp(x - np.max(x, axis=axis))
            mistakes[_SOFTMAX_PEAK_KEEPDIMS] = shifted / np.sum(shifted, axis=axis, keepdims=True)
        except ValueError:
            pass
    return mistakes


def _overflows_like_no_max(got: np.ndarray, x: np.ndarray, axis: int) -> bool:
    """The learner's result is exp(x) / sum(exp(x)): NaN exactly where that overflows,
    equal to it elsewhere."""
    with np.errstate(all="ignore"):
        exps = np.exp(x.astype(np.float64))
        naive = exps / np.sum(exps, axis=axis, keepdims=True)
    bad = ~np.isfinite(naive)
    return (
        bool(bad.any())
        and bool(np.array_equal(bad, ~np.isfinite(got)))
        and bool(np.allclose(got[~bad], naive[~bad], rtol=1e-4, atol=1e-6))
    )


def _softmax_explain(got: np.ndarray, x: np.ndarray, axis: int) -> str:
    """A property-based hint when no known mistake matches."""
    with np.errstate(all="ignore"):
        if (got < 0).any():
            return "Softmax weights are never negative (they are exponentials divided by a sum)."
        live = ~np.all(np.isneginf(x), axis=axis, keepdims=True)
        sums = np.sum(got, axis=axis, keepdims=True)
        if not np.allclose(np.where(live, sums, 1.0), 1.0, atol=1e-5):
            return (
                f"Your values do not add up to 1 along axis={axis} (sums: {short(sums.squeeze())})."
            )
    return "Check each step: subtract the slice max, exponentiate, divide by the slice sum."


def _softmax_cases(hidden: bool) -> list[tuple[str, np.ndarray, int | None, str]]:
    """(label, x, axis or None for the default, hint for results that are not finite)."""
    nan_hint = "Where does a NaN come from? exp(large) = inf, inf/inf and 0/0 are NaN."
    neg_inf_hint = "exp(-inf) is exactly 0, so a -inf entry simply gets weight 0."
    if not hidden:
        drank = np.array([0.0, -4.0, 1.5, 1.5, 0.0, 3.5])  # "drank" against its sentence
        small = np.array([[1.0, 2.0, 3.0], [0.5, 0.5, 0.5], [-1.0, 0.0, 4.0]])
        large = np.array([[1000.0, 1001.0, 1002.0], [990.0, 1000.0, 1010.0]])
        scales = np.array([[1000.0, 1001.0, 1002.0], [-1000.0, -1001.0, -1000.0]])
        some_inf = np.array([[0.0, _NEG_INF, 1.0, _NEG_INF], [2.0, 2.0, _NEG_INF, 0.0]])
        dead_row = np.array([[1.0, 2.0, 3.0], [_NEG_INF, _NEG_INF, _NEG_INF]])
        dead_column = np.array([[0.5, _NEG_INF, 1.0], [2.0, _NEG_INF, -1.0]])
        return [
            ("small logits", small, None, nan_hint),
            ("a 1-D vector of scores", drank, None, nan_hint),
            ("axis=0", np.array([[1.0, 2.0, 0.0, -1.0], [3.0, 0.0, 0.0, 2.0]]), 0, nan_hint),
            ("a 3-D input, axis=1", numpy_rng(40).normal(size=(2, 3, 4)), 1, nan_hint),
            ("float32 input", numpy_rng(41).normal(size=(2, 5)).astype(np.float32), -1, nan_hint),
            ("large logits", large, -1, _SOFTMAX_OVERFLOW),
            ("rows on very different scales", scales, -1, _SOFTMAX_GLOBAL_MAX),
            ("some -inf entries", some_inf, -1, neg_inf_hint),
            ("a row that is all -inf", dead_row, -1, _SOFTMAX_ALL_NEG_INF_NAN),
            ("a column that is all -inf, axis=0", dead_column, 0, _SOFTMAX_ALL_NEG_INF_NAN),
        ]
    rng = numpy_rng(4040)
    square = rng.normal(size=(4, 4)) * 2
    large = rng.normal(size=(3, 6)) * 5 + 800
    scales = np.stack([rng.normal(size=5) + 900, rng.normal(size=5) - 900, rng.normal(size=5)])
    with_inf = rng.normal(size=(2, 3, 5))
    with_inf[rng.random(size=with_inf.shape) < 0.3] = _NEG_INF
    with_inf[..., 0] = 0.0  # every slice along the last axis keeps one finite entry
    empty = rng.normal(size=(3, 4, 2)).astype(np.float32)
    empty[1, :, 0] = _NEG_INF  # one slice along axis=1 is all -inf
    dead = np.array([[_NEG_INF] * 4, [3.0, _NEG_INF, 1.0, 2.0]])
    return [
        ("a random square input", square, None, nan_hint),
        ("a 4-D input, axis=-3", rng.normal(size=(2, 3, 2, 2)), -3, nan_hint),
        ("a 3-D input, axis=0", rng.normal(size=(3, 2, 4)), 0, nan_hint),
        ("a 1-D float32 input", rng.normal(size=7).astype(np.float32), -1, nan_hint),
        ("large logits", large, -1, _SOFTMAX_OVERFLOW),
        ("large logits along axis=0", large.T.copy(), 0, _SOFTMAX_OVERFLOW),
        ("rows on very different scales", scales, -1, _SOFTMAX_GLOBAL_MAX),
        ("some -inf entries", with_inf, -1, neg_inf_hint),
        ("an all -inf slice along axis=1 (float32)", empty, 1, _SOFTMAX_ALL_NEG_INF_NAN),
        ("a row that is all -inf", dead, -1, _SOFTMAX_ALL_NEG_INF_NAN),
    ]


def _softmax_axis_and_global_max(c, softmax, got: np.ndarray, x: np.ndarray, axis: int) -> str:
    """When the result is the softmax along another axis (a hard-coded one), a probe whose
    slices along that axis live on very different scales tells whether the maximum is one
    for the whole array too: then both mistakes are named. "" otherwise."""
    if x.ndim < 2 or not np.isfinite(x).all():
        return ""
    own = axis % x.ndim
    for other in range(x.ndim):
        if other == own or not np.allclose(got, ref.softmax(x, axis=other), atol=1e-6):
            continue
        across = (other + 1) % x.ndim  # the slices along `other` differ along this axis
        if x.shape[across] < 2:
            return ""
        offsets = np.where(np.arange(x.shape[across]) % 2 == 0, 900.0, -900.0)
        shape = [1] * x.ndim
        shape[across] = x.shape[across]
        probe = numpy_rng(4141).normal(size=x.shape) + offsets.reshape(shape)
        try:
            with np.errstate(all="ignore"):
                result = np.asarray(
                    c.call(softmax, probe.copy(), axis=other - x.ndim), dtype=np.float64
                )
        except CheckFailure:
            return ""
        whole = np.exp(probe - np.max(probe))
        total = np.sum(whole, axis=other, keepdims=True)
        with np.errstate(all="ignore"):
            zeros = np.divide(whole, total, out=np.zeros_like(whole), where=total > 0)
            nans = whole / total
        right = ref.softmax(probe, axis=other)
        if result.shape != probe.shape or np.allclose(result, right, atol=1e-6):
            return ""
        if np.allclose(result, zeros, atol=1e-6) or np.allclose(
            result, nans, atol=1e-6, equal_nan=True
        ):
            return (
                f"Two mistakes at once. (1) Your result is normalised along axis "
                f"{other - x.ndim} (axis {other} of this {x.ndim}-D input) instead of "
                f"axis={axis}: did you hard-code the axis, or "
                "forget to pass axis=axis to np.max or np.sum? (2) On an input whose slices "
                "along that axis live on very different scales (around +900 and -900), "
                "yours come out 0 (or NaN) where they should add up to 1: you subtract one "
                "maximum for the whole array (np.max(x)). Use "
                "np.max(x, axis=axis, keepdims=True) and np.sum(..., axis=axis, keepdims=True)."
            )
        return ""
    return ""


def check_softmax(softmax, *, hidden: bool = False) -> None:
    """softmax(x, axis=-1) on numpy arrays of any shape.

    Required: a numpy array of the input's shape holding the softmax along ``axis``
    (default -1) within a tolerance that fits its dtype; no overflow on large logits;
    weight 0 for -inf entries; a finite answer for a slice that is all -inf; ``x`` left
    unchanged. Accepted: any floating dtype (a note when it is not the input's); an
    all -inf slice given as zeros (the reference) or as uniform weights (a note).
    """
    with Checker("softmax", hidden=hidden) as c:
        c.require_callable(softmax)
        for label, x, axis, nan_hint in _softmax_cases(hidden):
            call_args = {} if axis is None else {"axis": axis}
            shown = (
                f"softmax({' '.join(short(x, 120).split())}"
                + ("" if axis is None else f", axis={axis}")
                + ")"
            )
            got = c.call(
                softmax,
                x.copy(),
                **call_args,
                call_repr=shown,
                hints=_SOFTMAX_HINTS,
                mutation_hint=_SOFTMAX_INPLACE,
            )
            axis = -1 if axis is None else axis
            what = f"{shown} on {label}"
            c.expect_type(
                got,
                np.ndarray,
                what,
                "Return a numpy array (np.exp and np.sum on a numpy input give one; "
                "convert a torch result back with .numpy()).",
            )
            c.expect_shape(got, x.shape, what, "Softmax keeps the shape of its input.")
            c.expect_floating(got, "your result", preferred=x.dtype)
            expected = ref.softmax(x, axis=axis)
            got64 = np.asarray(got, dtype=np.float64)
            dead = np.broadcast_to(np.all(np.isneginf(x), axis=axis, keepdims=True), x.shape)
            if dead.any():
                rows = got64[dead]
                if not np.isfinite(rows).all():
                    c.fail(
                        f"{what} is NaN on the slice that is all -inf. {_SOFTMAX_ALL_NEG_INF_NAN}"
                    )
                uniform = 1.0 / x.shape[axis]
                if np.allclose(rows, uniform, atol=1e-5) and not np.allclose(rows, 0.0, atol=1e-6):
                    c.note(_SOFTMAX_UNIFORM_NOTE)
                    expected = np.where(dead, uniform, expected).astype(expected.dtype)
                elif not np.allclose(rows, 0.0, atol=1e-6):
                    c.fail(
                        f"{what} gives the slice that is all -inf the values {short(rows)}. "
                        f"{_SOFTMAX_ALL_NEG_INF}"
                    )
                c.ok()
            if (
                np.isfinite(expected).all()
                and not np.isfinite(got64).all()
                and _overflows_like_no_max(got64, x, axis)
            ):
                c.fail(f"{what} is not what the reference gives. {_SOFTMAX_NO_MAX}{nan_hint}")
            both = _softmax_axis_and_global_max(c, softmax, got64, x, axis)
            if both:
                c.fail(f"{what} is not what the reference gives. {both}")
            c.expect_close(
                got,
                expected,
                what,
                **tolerance(got.dtype, x.dtype),
                hint=nan_hint if not np.isfinite(got64).all() else _softmax_explain(got64, x, axis),
                mistakes=_softmax_mistakes(x, axis),
            )


# ====================================================================== attention_row
_ROW_NO_SOFTMAX = (
    "Your weights are the scores themselves, without the softmax. Scaling and softmax are "
    "not optional details (one popular explanation leaves them out): raw scores can be "
    "negative and do not add up to 1, so the output would not be a weighted average of the "
    "values. Turn the scaled scores into weights with your softmax."
)
#: the scale applied to the weights, after the softmax, instead of to the scores
_SCALED_AFTER_SOFTMAX = (
    "Your weights are softmax({scores}) divided by √d_k = √{d_k} afterwards: the scaling "
    "went after the softmax, so each row of weights adds up to 1/√d_k = {total:.4g} instead "
    "of 1. Scale the scores, before the softmax: softmax({scores} / √d_k)."
)
_ROW_SUM_NORMALISED = (
    "Your weights are the scaled scores divided by their sum. That is not a softmax: "
    "negative scores give negative weights, and a sum near 0 blows the weights up. "
    "Exponentiate first (your softmax does it)."
)
_ROW_NOT_NORMALISED = (
    "Your weights are the exponentials of the scaled scores without dividing by their sum, "
    "so they do not add up to 1. Use your softmax, which normalises."
)
_ROW_ARGMAX = (
    "Your weights put everything on the best-matching key (a one-hot vector): that is a "
    "hard lookup, argmax, not attention. The softmax gives every key a share, larger for "
    "larger scores, so the output blends the values."
)
_ROW_OUTPUT_UNWEIGHTED = (
    "Your output is the plain {how} of the value rows: the weights are not used. Output = "
    "sum over j of weights[j] * values[j], i.e. weights @ values."
)
_ROW_OUTPUT_FROM_SCORES = (
    "Your output mixes the values with the scores instead of the weights. Use the weights "
    "(after the softmax), so that the output is a weighted average of the value rows."
)


def _row_scale_mistakes(query, keys, values, make) -> dict[str, np.ndarray]:
    """Diagnoses for a wrong scale, each mapped to the weights it gives (``make(scale)``)."""
    d_k, len_k, d_v = query.shape[-1], keys.shape[-2], values.shape[-1]
    root = math.sqrt(d_k)
    candidates = [
        (
            1.0,
            f"Your weights match softmax(keys @ query) with no scaling. Divide the scores by "
            f"√d_k = √{d_k} before the softmax (d_k = query.shape[-1], the width of the query "
            "and key vectors).",
        ),
        (
            1.0 / root,
            f"Your weights match scores multiplied by sqrt(d_k) = √{d_k} instead of divided "
            "by it: the scale shrinks the scores, scores = keys @ query / sqrt(d_k).",
        ),
        (
            float(d_k),
            f"Your weights match scores divided by d_k = {d_k} instead of by sqrt(d_k) = "
            f"√{d_k} = {root:.4g}: take the square root.",
        ),
        (
            float(len_k),
            f"Your weights match scores divided by {len_k}, the number of keys (words). d_k is "
            f"not the number of words in the sentence (a popular explanation says so): it is "
            f"the width of each query and key vector, here {d_k}, and the scale is √d_k.",
        ),
        (
            math.sqrt(len_k),
            f"Your weights match scores divided by √{len_k}, the square root of the number of "
            f"keys. d_k is the width of each query and key vector (here {d_k}), not a length; "
            "it does not change when the sentence gets longer.",
        ),
        (
            math.sqrt(d_v),
            f"Your weights match scores divided by √d_v = √{d_v}: you took the width of the "
            f"values. The scale is √d_k, the width of the queries and keys (here {d_k}).",
        ),
    ]
    return {message: make(scale) for scale, message in candidates if not math.isclose(scale, root)}


def _row_weight_mistakes(query, keys, values) -> dict[str, np.ndarray]:
    q, k = np.asarray(query, np.float64), np.asarray(keys, np.float64)
    scores = k @ q  # (len_k,)
    scaled = scores / math.sqrt(q.shape[-1])
    mistakes = _row_scale_mistakes(q, k, values, lambda scale: ref.softmax(scores / scale))
    mistakes[_ROW_NO_SOFTMAX] = scaled
    root = math.sqrt(q.shape[-1])
    mistakes[
        _SCALED_AFTER_SOFTMAX.format(d_k=q.shape[-1], total=1 / root, scores="keys @ query")
    ] = ref.softmax(scores) / root
    mistakes[_ROW_NO_SOFTMAX.replace("the scores themselves", "the raw scores")] = scores
    with np.errstate(all="ignore"):
        mistakes[_ROW_SUM_NORMALISED] = scaled / scaled.sum()
        mistakes[_ROW_NOT_NORMALISED] = np.exp(scaled)
        shifted = _ROW_NOT_NORMALISED.replace("exponentials", "shifted exponentials")
        mistakes[shifted] = np.exp(scaled - scaled.max())
    one_hot = np.zeros_like(scores)
    one_hot[int(np.argmax(scores))] = 1.0
    mistakes[_ROW_ARGMAX] = one_hot
    return mistakes


def _row_cases(hidden: bool) -> list[tuple[str, np.ndarray, np.ndarray, np.ndarray]]:
    """(label, query (d_k,), keys (len_k, d_k), values (len_k, d_v)) with d_k != d_v."""
    words = ref.CAT_WORDS
    q_drank, q_cat = ref.CAT_QUERIES[words.index("drank")], ref.CAT_QUERIES[words.index("cat")]

    def random_case(seed, len_k, d_k, d_v, dtype=np.float64, scale=1.0):
        rng = numpy_rng(seed)
        query = rng.normal(size=d_k) * scale  # (d_k,)
        keys = rng.normal(size=(len_k, d_k))  # (len_k, d_k)
        values = rng.normal(size=(len_k, d_v))  # (len_k, d_v)
        return query.astype(dtype), keys.astype(dtype), values.astype(dtype)

    sentence = f'"{" ".join(ref.CAT_WORDS).capitalize()}"'
    if not hidden:
        return [
            (f'the query of "drank" over {sentence}', q_drank, ref.CAT_KEYS, ref.CAT_VALUES),
            (f'the query of "cat" over {sentence}', q_cat, ref.CAT_KEYS, ref.CAT_VALUES),
            (
                f'the query of "drank" times 1000 (large scores) over {sentence}',
                q_drank * 1000,
                ref.CAT_KEYS,
                ref.CAT_VALUES,
            ),
            ("random float32 inputs", *random_case(60, len_k=4, d_k=5, d_v=3, dtype=np.float32)),
        ]
    return [
        ("random inputs", *random_case(61, len_k=7, d_k=6, d_v=2)),
        ("random inputs with large scores", *random_case(62, len_k=5, d_k=9, d_v=4, scale=2000.0)),
        ("a single key", *random_case(63, len_k=1, d_k=3, d_v=5)),
        ("a query of zeros (every score 0)", np.zeros(4), *random_case(64, 6, 4, 3)[1:]),
        ("random float32 inputs", *random_case(65, len_k=8, d_k=2, d_v=6, dtype=np.float32)),
    ]


def check_attention_row(attention_row, *, hidden: bool = False) -> None:
    """(weights, output) = attention_row(query, keys, values), one query, numpy.

    Required: weights (len_k,) = softmax(keys @ query / √d_k), output (d_v,) = weights @
    values, within a tolerance that fits the dtype; the inputs left unchanged; no
    overflow on large scores. Accepted: any floating dtype; a list or tuple pair.
    """
    with Checker("attention_row", hidden=hidden) as c:
        c.require_callable(attention_row)
        for label, query, keys, values in _row_cases(hidden):
            (d_k,), (len_k, _), (_, d_v) = query.shape, keys.shape, values.shape
            shown = (
                f"attention_row(query {query.shape}, keys {keys.shape}, values {values.shape}, "
                f"{query.dtype!s})"
            )
            result = c.call(
                attention_row,
                query.copy(),
                keys.copy(),
                values.copy(),
                call_repr=shown,
                hints={
                    "mismatch in its core dimension": (
                        "Check the shapes of your matrix products: the scores are keys @ query, "
                        "(len_k, d_k) @ (d_k,) -> (len_k,); the output is weights @ values, "
                        "(len_k,) @ (len_k, d_v) -> (d_v,)."
                    ),
                    "not aligned": (
                        "Check the shapes of your matrix products: the scores are keys @ query, "
                        "(len_k, d_k) @ (d_k,) -> (len_k,); the output is weights @ values, "
                        "(len_k,) @ (len_k, d_v) -> (d_v,)."
                    ),
                },
                mutation_hint="For example query /= np.sqrt(d_k) changes the caller's array: "
                "write query = query / np.sqrt(d_k), or scale the scores instead.",
            )
            what = f"On {label}, {shown}"
            c.expect_type(result, tuple | list, what, "Return the pair (weights, output).")
            c.expect_true(
                len(result) == 2,
                f"{what} returned {len(result)} items: return exactly (weights, output).",
            )
            weights, output = result
            numpy_hint = "Return numpy arrays (np.exp and @ on the numpy inputs give them)."
            c.expect_type(weights, np.ndarray, what + ": the weights (first item)", numpy_hint)
            c.expect_type(output, np.ndarray, what + ": the output (second item)", numpy_hint)
            if weights.shape == (d_v,) and output.shape == (len_k,):
                c.fail(f"{what}: return (weights, output), in that order.")
            c.expect_shape(
                weights,
                (len_k,),
                what + ": the weights",
                "One weight per key: (len_k,). "
                + ("Squeeze the extra dim of size 1. " if weights.size == len_k else ""),
            )
            c.expect_shape(
                output,
                (d_v,),
                what + ": the output",
                "The output mixes the *values*, not the keys: weights @ values, shape (d_v,)."
                if output.shape == (d_k,)
                else "Output = weights @ values: (len_k,) @ (len_k, d_v) -> (d_v,); a "
                "weighted sum over the keys, one number per value feature.",
            )
            c.expect_floating(weights, "your weights", preferred=query.dtype)
            c.expect_floating(output, "your output", preferred=query.dtype)
            exp_w, exp_out = ref.attention_row(
                query.astype(np.float64), keys.astype(np.float64), values.astype(np.float64)
            )
            finite = np.isfinite(np.asarray(weights, dtype=np.float64)).all()
            scores = keys.astype(np.float64) @ query.astype(np.float64) / math.sqrt(d_k)
            if not finite and _overflows_like_no_max(
                np.asarray(weights, dtype=np.float64), scores, -1
            ):
                c.fail(
                    f"{what}: your `weights` are exp(scores) / sum(exp(scores)) computed as "
                    "written, NaN exactly where that overflows (the largest score here is "
                    f"{float(scores.max()):.4g}). " + _SOFTMAX_OVERFLOW
                )
            c.expect_close(
                weights,
                exp_w,
                what + ": your `weights`",
                **tolerance(weights.dtype, query.dtype),
                hint=(
                    "Weights = softmax(keys @ query / √d_k) with d_k = query.shape[-1]."
                    if finite
                    else "These scores are large: " + _SOFTMAX_OVERFLOW
                ),
                mistakes=_row_weight_mistakes(query, keys, values),
            )
            v64 = values.astype(np.float64)
            c.expect_close(
                output,
                exp_out,
                what + ": your `output`",
                **_output_tolerance(output.dtype, query.dtype, values=values),
                hint="Your weights are right, so check the last step: output = weights @ values, "
                "the weighted sum of the value rows.",
                mistakes={
                    _ROW_OUTPUT_UNWEIGHTED.format(how="mean"): v64.mean(axis=0),
                    _ROW_OUTPUT_UNWEIGHTED.format(how="sum"): v64.sum(axis=0),
                    _ROW_OUTPUT_FROM_SCORES: (keys.astype(np.float64) @ query / math.sqrt(d_k))
                    @ v64,
                },
            )


# ==================================================================== scaled dot-product attention
_SDPA_SWAP = (
    "The inputs have len_q = {len_q} queries and len_k = {len_k} keys on purpose. The scores "
    "are q @ kᵀ, shape (..., len_q, len_k): one row per query, one column per key. Did you "
    "swap q and k (k @ qᵀ), or transpose the weights?"
)
_SDPA_SHAPES = (
    "Check the shapes of the two products: the scores are q @ k.transpose(-2, -1), "
    "(..., len_q, d_k) @ (..., d_k, len_k) -> (..., len_q, len_k); the output is weights @ v, "
    "(..., len_q, len_k) @ (..., len_k, d_v) -> (..., len_q, d_v). Here len_q = {len_q}, "
    "len_k = {len_k}, d_k = {d_k} and d_v = {d_v} differ on purpose. Did you swap q and k "
    "(k @ qᵀ), multiply by k instead of v, or transpose other dims than the last two (k.T "
    "reverses them all, k.transpose(0, 1) swaps the first two; k.transpose(-2, -1) is right "
    "whatever the batch dims)?"
)
_SDPA_DOT_T = (
    "`k.T` reverses *all* the dims of a tensor: on a batch of keys of shape {shape} it gives "
    "{reversed}, not {wanted}, so the batch dims end up in the matrix product (PyTorch warns "
    "that .T on a tensor that is not 2-D is deprecated). It works on a single 2-D sentence "
    "and breaks on batches. Transpose only the last two dims: k.transpose(-2, -1) (or k.mT)."
)
_SDPA_SMALL_T = (
    "k.t() only transposes 2-D tensors, and these inputs have batch dims in front. "
    "Transpose the last two dims: k.transpose(-2, -1) (or k.mT)."
)
_SDPA_TRANSPOSE_DIMS = (
    "Transposing with dims counted from the front (transpose(0, 1), transpose(1, 2)) only "
    "swaps the last two dims for inputs of one particular rank: with (batch, len, d) "
    "transpose(1, 2) is right, with (batch, num_heads, len, d) it swaps heads and len. "
    "Count from the end: k.transpose(-2, -1) works for any number of batch dims."
)
_SDPA_BMM = (
    "torch.bmm only takes 3-D tensors (batch, n, m); these inputs have {ndim} dims. Use @ "
    "(torch.matmul), which broadcasts over any number of leading batch dims."
)
_SDPA_BOOL_INDEX = (
    "The mask is only broadcastable to (..., len_q, len_k), not necessarily of the same shape "
    "as the scores: boolean indexing (scores[~mask] = ...) needs equal shapes. Use masked_fill "
    "or torch.where, which broadcast."
)
_SDPA_MUTATION = (
    "For example q /= math.sqrt(d_k) divides the caller's q: write q = q / math.sqrt(d_k) "
    "(a new tensor), or scale the scores instead."
)
_SDPA_FILL_ZERO = (
    "Your weights match blocked scores set to 0 instead of -inf. A score of 0 still gets "
    "weight e^0 = 1 in the softmax, so the blocked keys are not hidden at all. Fill with "
    "-inf (or a large negative number such as -1e9)."
)
_SDPA_BOOL_ADDED = (
    "Your weights match softmax(scores + mask) with the bool mask read as numbers (True = 1, "
    "False = 0): adding it shifts some scores by 1 and blocks nothing. Block the keys where "
    "the mask is False with masked_fill or torch.where, or first turn the mask into an "
    "additive one (0 where allowed, -inf where blocked)."
)
_SDPA_MASK_IGNORED = (
    "Your weights match attention with no mask at all: keys where the mask is False still "
    "get weight, so the mask never reached the scores. Either it is not used, or its result "
    "was thrown away: scores.masked_fill(...) returns a new tensor and leaves scores as they "
    "were, so assign it (scores = scores.masked_fill(~mask, float('-inf'))) or use the "
    "in-place masked_fill_. The blocked keys' scaled scores must be -inf (or a large "
    "negative number) before the softmax."
)
_SDPA_MASK_AFTER = (
    "Your weights look like the mask was applied after the softmax: masked keys get 0, but "
    "the remaining weights of those rows no longer add up to 1. Apply the mask to the scaled "
    "scores before the softmax (fill with -inf), so the softmax renormalises over the keys "
    "that are allowed."
)


def _sdpa_output_mistakes(exp_out: torch.Tensor, mask) -> dict[str, torch.Tensor]:
    """The output computed from the softmax's weights before the rows with no allowed key
    were fixed: NaN in those rows, right everywhere else."""
    if mask is None:
        return {}
    dead = ~mask.any(dim=-1, keepdim=True)  # (..., len_q, 1)
    if not bool(dead.any()):
        return {}
    nan_rows = torch.where(dead, torch.full_like(exp_out, float("nan")), exp_out)
    return {
        "Your weights are right, but your output is NaN in the rows of the queries that may "
        "attend to no key: it was computed from the softmax's weights before those rows were "
        "set to zero (their softmax is 0/0 = NaN). Compute output = weights @ v last, from "
        "the final weights.": nan_rows
    }


_SDPA_OUTPUT_HINT = (
    "Your weights are right, so check the last step: output = weights @ v, computed from the "
    "final weights (after fixing fully masked rows). Row i of the output is the weighted sum "
    "of the value rows, with query i's weights."
)


def _is_dot_t(exc: BaseException) -> bool:
    return isinstance(exc, RuntimeError) and re.search(r"\.T\b", _learner_source(exc)) is not None


def _is_front_transpose(exc: BaseException) -> bool:
    source = _learner_source(exc)
    calls = re.findall(r"(?:transpose|swapaxes)\(([^()]*)\)", source)
    return isinstance(exc, RuntimeError) and any(
        re.fullmatch(r"\s*\d+\s*,\s*\d+\s*", args) for args in calls
    )


_SHAPE_ERRORS = (
    "must match the size",
    "cannot be multiplied",
    "size mismatch",
    "Expected size for first two dimensions",
)


def _is_shape_error(exc: BaseException) -> bool:
    text = str(exc)
    return (
        isinstance(exc, RuntimeError)
        and any(key in text for key in _SHAPE_ERRORS)
        and not _is_dot_t(exc)
        and not _is_front_transpose(exc)
    )


_DIM_OUT_OF_RANGE = re.compile(
    r"Dimension out of range \(expected to be in range of \[-(\d+), (\d+)\], but got (\d+)\)"
)


def _front_axis_hint(exc: BaseException) -> str:
    """A positive axis that this input lacks: the code counts axes from the front, for
    inputs of one rank (read from torch's message, so the source is not needed)."""
    found = _DIM_OUT_OF_RANGE.search(str(exc))
    if not isinstance(exc, IndexError) or not found:
        return ""
    ndim, axis = int(found.group(1)), int(found.group(3))
    return (
        f"Your code names axis {axis}, counted from the front, and this input has only {ndim} "
        "axes: q, k and v may have any number of leading batch dims ((batch, len, d) here, "
        "(batch, num_heads, len, d) in multi-head attention). Count from the end: "
        "k.transpose(-2, -1), softmax(dim=-1)."
    )


_SDPA_MASK_RESHAPED = (
    "The error comes from the line that applies the mask, and the mask you were given, "
    "shape {mask}, already broadcasts against the scores, shape {scores}: use it as it is. "
    "Did you reshape it (unsqueeze, view, or a heads axis added as multi-head code does)? "
    "masked_fill(~mask, float('-inf')) broadcasts a mask of any shape that fits."
)
_SDPA_DTYPES = (
    "Two tensors of different dtypes met in one operation, and the inputs here are all "
    "{dtype}. Did a cast change the dtype of the scores or the weights (.float(), "
    ".to(torch.float32), softmax(..., dtype=torch.float32)) without casting back "
    "(.to(q.dtype), .type_as(q))? Keep the inputs' dtype from the scores to the output."
)


def _is_dtype_mismatch(exc: BaseException) -> bool:
    return isinstance(exc, RuntimeError) and (
        re.search(r"scalar type \w+ but found|same dtype|dtype.{0,40}but got", str(exc)) is not None
    )


def _raised_on_mask_line(exc: BaseException) -> bool:
    """A shape error raised by the learner's line that uses the mask."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if _is_learner_frame(f.filename)]
    last = (frames[-1].line or "") if frames else ""
    return isinstance(exc, RuntimeError) and "mask" in last and "must match the size" in str(exc)


def _sdpa_hints(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask=None) -> list:
    shape = tuple(k.shape)
    dims = {"len_q": q.shape[-2], "len_k": k.shape[-2], "d_k": q.shape[-1], "d_v": v.shape[-1]}
    scores = (*torch.broadcast_shapes(q.shape[:-2], k.shape[:-2]), q.shape[-2], k.shape[-2])
    mask_hints = (
        []
        if mask is None
        else [
            (
                _raised_on_mask_line,
                _SDPA_MASK_RESHAPED.format(mask=tuple(mask.shape), scores=scores),
            )
        ]
    )
    return [
        *mask_hints,
        (_is_dtype_mismatch, _SDPA_DTYPES.format(dtype=str(q.dtype).replace("torch.", ""))),
        (
            _is_dot_t,
            _SDPA_DOT_T.format(
                shape=shape, reversed=shape[::-1], wanted=(*shape[:-2], shape[-1], shape[-2])
            ),
        ),
        ("t() expects a tensor with <= 2 dimensions", _SDPA_SMALL_T),
        (_is_front_transpose, _SDPA_TRANSPOSE_DIMS),
        (IndexError, _front_axis_hint),
        ("must be a 3D tensor", _SDPA_BMM.format(ndim=q.dim())),
        ("The shape of the mask", _SDPA_BOOL_INDEX),
        (
            lambda exc: _is_shape_error(exc) and not (mask is not None and _raised_on_mask_line(exc)),
            _SDPA_SHAPES.format(**dims),
        ),
        ("a leaf Variable that requires grad is being used in an in-place operation",
         "An in-place operation changed an input that requires gradients. " + _SDPA_MUTATION),
    ]  # fmt: skip


def _bool_mask_added(q, k, mask) -> torch.Tensor:
    """softmax(scores + mask) with the bool mask read as 0 / 1."""
    scores = q.detach().double() @ k.detach().double().transpose(-2, -1) / math.sqrt(q.shape[-1])
    return torch.softmax(scores + mask, dim=-1)


def _sdpa_mistakes(q, k, v, mask) -> dict[str, Callable[[], torch.Tensor]]:
    """Diagnosis -> the weights (float64) that mistake gives on these inputs."""
    d_k, len_q, len_k, d_v = q.shape[-1], q.shape[-2], k.shape[-2], v.shape[-1]
    root = math.sqrt(d_k)
    scales = [
        (
            1.0,
            f"Your weights match softmax(q kᵀ) with no scaling. Divide the scores by √d_k = "
            f"√{d_k} before the softmax, with d_k = q.shape[-1]. Without it the scores grow "
            "with d_k and the softmax saturates (see the section on scaling).",
        ),
        (
            float(d_k),
            f"Your weights match scores divided by d_k = {d_k} instead of by √d_k = "
            f"{root:.4g}: take the square root (math.sqrt(d_k)).",
        ),
        (
            float(len_k),
            f"Your weights match scores divided by len_k = {len_k}, the number of keys. The "
            "paper divides by √d_k, where d_k is the width of each query/key vector "
            f"(q.shape[-1] = {d_k}), not the number of words in the sentence (a popular "
            "explanation gets this wrong).",
        ),
        (
            math.sqrt(len_k),
            f"Your weights match scores divided by √len_k = √{len_k}, the square root of the "
            f"number of keys. d_k is the width of each query/key vector (q.shape[-1] = {d_k}), "
            "not the number of keys (k.shape[-2]); it does not change with sentence length.",
        ),
        (
            math.sqrt(len_q),
            f"Your weights match scores divided by √len_q = √{len_q}, the square root of the "
            f"number of queries (q.shape[-2], or len(q) for a single sentence). d_k is the last "
            f"dim, q.shape[-1] = {d_k}.",
        ),
        (
            math.sqrt(d_v),
            f"Your weights match scores divided by √d_v = √{d_v}: you took the width from v. "
            f"The scale is √d_k, the width of the queries and keys (q.shape[-1] = {d_k}); here "
            f"d_v = {d_v} differs from d_k on purpose.",
        ),
    ]
    scales.append(
        (
            1.0 / root,
            f"Your weights match scores multiplied by √d_k = √{d_k} instead of divided by it "
            f"(dividing by d_k ** -0.5, or by a scale already inverted, does that): the scale "
            f"shrinks the scores, scores = q @ kᵀ / math.sqrt(d_k).",
        )
    )
    if q.dim() > 2:
        scales.append(
            (
                math.sqrt(q.shape[0]),
                f"Your weights match scores divided by √{q.shape[0]}, the square root of "
                f"q.shape[0] (or len(q)): the first dim of q is a batch dim here. Count from the "
                f"end: d_k = q.shape[-1] = {d_k}.",
            )
        )
    mistakes: dict[str, Callable[[], torch.Tensor]] = {}  # computed only when needed
    for scale, message in scales:
        if not math.isclose(scale, root):
            mistakes.setdefault(
                message, partial(attention_weights_variant, q, k, mask, scale=scale)
            )
    after = _SCALED_AFTER_SOFTMAX.format(d_k=d_k, total=1 / root, scores="q kᵀ")
    mistakes[after] = lambda: attention_weights_variant(q, k, mask, scale=1.0) / root
    for dim in range(q.dim() - 1):  # every dim of the scores but the keys'
        message = (
            SOFTMAX_OVER_QUERIES
            if dim == q.dim() - 2
            else f"Your weights are normalised over dim {dim}, a batch dim, instead of over "
            "the keys (dim=-1). Each query row is a probability distribution over the keys: "
            "take the softmax with dim=-1."
        )
        mistakes.setdefault(message, partial(attention_weights_variant, q, k, mask, dim=dim))
    if mask is not None:
        mistakes[_SDPA_MASK_IGNORED] = partial(
            attention_weights_variant, q, k, mask, mask_mode="none"
        )
        mistakes[_SDPA_MASK_AFTER] = partial(
            attention_weights_variant, q, k, mask, mask_mode="after"
        )
        mistakes[INVERTED_MASK] = partial(
            attention_weights_variant, q, k, mask, mask_mode="inverted"
        )
        mistakes[_SDPA_FILL_ZERO] = partial(attention_weights_variant, q, k, mask, fill=0.0)
        mistakes[_SDPA_BOOL_ADDED] = partial(_bool_mask_added, q, k, mask)
    return mistakes


def _fitted_scale(q, k, mask, weights) -> float | None:
    """The one constant c for which the learner's weights are closest to softmax(q kᵀ / c),
    fitted on the log-weights of the allowed keys (None when it cannot be fitted: weights
    not positive where allowed, or no row with two allowed keys)."""
    w = weights.detach().double()
    scores = q.detach().double() @ k.detach().double().transpose(-2, -1)  # (..., len_q, len_k)
    allowed = torch.ones_like(scores, dtype=torch.bool)
    if mask is not None:
        allowed = allowed & mask
    scores, w = torch.broadcast_tensors(scores, w)
    allowed = allowed.expand_as(scores)
    if not bool(torch.isfinite(w).all()) or not bool((w[allowed] > 0).all()):
        return None
    count = allowed.sum(dim=-1, keepdim=True).clamp(min=1)
    log_w = torch.where(allowed, w.clamp(min=1e-300).log(), 0.0)
    s = torch.where(allowed, scores, 0.0)
    d_log = torch.where(allowed, log_w - log_w.sum(-1, keepdim=True) / count, 0.0)
    d_s = torch.where(allowed, s - s.sum(-1, keepdim=True) / count, 0.0)
    denominator = float((d_s * d_s).sum())
    slope = float((d_s * d_log).sum()) / denominator if denominator > 0 else 0.0
    return 1.0 / slope if slope > 0 else None


def _fitted_scale_mistake(q, k, mask, weights) -> dict[str, Callable[[], torch.Tensor]]:
    """A wrong constant scale that none of the named ones explains: what it is, measured
    (the matcher keeps it only if softmax(q kᵀ / c) then gives the learner's weights)."""
    d_k = q.shape[-1]
    root = math.sqrt(d_k)
    c = _fitted_scale(q, k, mask, weights)
    if c is None or math.isclose(c, root, rel_tol=1e-3):
        return {}
    message = (
        f"Your weights match softmax(q kᵀ / c) with one constant c = {c:.4g} for every score, "
        f"but c must be √d_k = √{d_k} = {root:.4g} (d_k = q.shape[-1]): your scores are "
        f"{'too large' if c < root else 'too small'} by a factor {max(c, root) / min(c, root):.4g}"
        f" = {'√d_k / c' if c < root else 'c / √d_k'}. Look at the number you divide by."
    )
    return {message: partial(attention_weights_variant, q, k, mask, scale=c)}


def _sdpa_cases(hidden: bool) -> list[dict]:
    """Inputs: len_q != len_k, d_v != d_k, d_v != len_k and d_k, len_k, d_v all different."""

    def make(seed, lead, len_q, len_k, d_k, d_v, dtype=torch.float64, scale=1.0):
        g = torch_generator(seed)
        q = torch.randn(*lead, len_q, d_k, generator=g, dtype=torch.float64) * scale
        k = torch.randn(*lead, len_k, d_k, generator=g, dtype=torch.float64)
        v = torch.randn(*lead, len_k, d_v, generator=g, dtype=torch.float64)
        return q.to(dtype), k.to(dtype), v.to(dtype)

    def rand_mask(seed, shape, empty_rows=()):
        g = torch_generator(seed)
        mask = torch.rand(*shape, generator=g) < 0.6
        mask[..., 0] |= True  # every row keeps a key ...
        for row in empty_rows:  # ... except the ones fully masked on purpose
            mask[row] = False
        return mask

    if not hidden:
        q, k, v = make(1, (2,), 3, 5, 4, 6)
        mask = torch.tensor(
            [[True, True, False, True, False], [False] * 5, [False, True, True, True, True]]
        )  # (len_q, len_k): row 1 is fully masked
        q4, k4, v4 = make(2, (2, 2), 3, 4, 5, 2)
        pad = torch.tensor([[True, True, True, False], [True, True, False, False]])
        q32, k32, v32 = make(3, (2,), 4, 3, 8, 5, dtype=torch.float32)
        ql, kl, vl = make(5, (2,), 4, 6, 8, 3, dtype=torch.float32, scale=80.0)  # large logits
        qg, kg, vg = make(4, (), 2, 3, 4, 5)
        q1, k1, v1 = make(7, (2,), 1, 4, 3, 5)  # a single query
        return [
            {"label": "no mask, batch of 2", "qkv": (q, k, v), "mask": None},
            {
                "label": "a (len_q, len_k) mask broadcast over the batch, with a fully masked "
                "query row",
                "qkv": (q, k, v),
                "mask": mask,
            },
            {
                "label": "4-D inputs (batch, heads, len, d) with a padding mask of shape "
                "(batch, 1, 1, len_k)",
                "qkv": (q4, k4, v4),
                "mask": pad[:, None, None, :],
            },
            {"label": "float32 inputs", "qkv": (q32, k32, v32), "mask": None},
            {
                "label": "large float32 logits (scores up to a few hundred) with a mask",
                "qkv": (ql, kl, vl),
                "mask": rand_mask(6, (4, 6), [2]),
            },
            {"label": "a single query (len_q = 1)", "qkv": (q1, k1, v1), "mask": None},
            {
                "label": "2-D inputs (no batch dims) that require gradients",
                "qkv": (qg, kg, vg),
                "mask": None,
                "grad": True,
            },
        ]
    q, k, v = make(101, (3,), 4, 7, 8, 5)
    qb, kb, vb = make(102, (2, 3), 5, 6, 3, 4)
    ql, kl, vl = make(103, (2,), 3, 6, 16, 7, scale=8.0)  # large logits
    q1, k1, v1 = make(104, (2, 2), 1, 5, 6, 3)  # a single query
    q32, k32, v32 = make(105, (2, 2), 5, 3, 4, 6, dtype=torch.float32)
    qg, kg, vg = make(106, (2,), 3, 4, 6, 2)
    qx, kx, vx = make(111, (3,), 5, 4, 6, 2, dtype=torch.float32, scale=100.0)  # large logits
    pad = torch.tensor([[True, True, True, True, True, False], [False] * 6])
    return [
        {"label": "no mask, batch of 3", "qkv": (q, k, v), "mask": None},
        {
            "label": "a (batch, 1, len_q, len_k) mask over 4-D inputs, with fully masked rows",
            "qkv": (qb, kb, vb),
            "mask": rand_mask(107, (2, 1, 5, 6), [(0, 0, 2), (1, 0, 4)]),
        },
        {
            "label": "a padding mask (batch, 1, 1, len_k) where one sequence is all padding",
            "qkv": (qb, kb, vb),
            "mask": pad[:, None, None, :],
        },
        {
            "label": "large logits with a (len_q, len_k) mask",
            "qkv": (ql, kl, vl),
            "mask": rand_mask(108, (3, 6), [1]),
        },
        {
            "label": "a single query, 4-D inputs",
            "qkv": (q1, k1, v1),
            "mask": rand_mask(109, (1, 5)),
        },
        {
            "label": "float32 inputs with a mask",
            "qkv": (q32, k32, v32),
            "mask": rand_mask(110, (2, 2, 5, 3), [(1, 0, 3)]),
        },
        {
            "label": "large float32 logits (scores up to a few hundred) with a mask",
            "qkv": (qx, kx, vx),
            "mask": rand_mask(112, (5, 4), [3]),
        },
        {
            "label": "3-D inputs that require gradients",
            "qkv": (qg, kg, vg),
            "mask": None,
            "grad": True,
        },
    ]


def _describe(q, k, v, mask) -> str:
    text = f"q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}"
    if mask is not None:
        text += f", mask {tuple(mask.shape)}"
    return f"{text}, {str(q.dtype).replace('torch.', '')}"


def _expect_deterministic(c, fn, args, weights: torch.Tensor, what: str) -> None:
    """Call ``fn`` again on copies of the same inputs: different weights mean something
    random runs inside (dropout), which no comparison with the reference can name."""
    again = c.call(fn, *[a.detach().clone() for a in args], unchanged=False)
    if not isinstance(again, tuple | list) or len(again) != 2:
        return
    second = again[1]
    if not isinstance(second, torch.Tensor) or second.shape != weights.shape:
        return
    first, second = weights.detach().double(), second.detach().double()
    if torch.equal(first.isnan(), second.isnan()) and torch.equal(
        first.nan_to_num(), second.nan_to_num()
    ):
        return
    c.fail(
        what + "two calls with the same inputs returned different weights (largest "
        f"difference {float((first - second).abs().nan_to_num().max()):.3g}): something random "
        "runs in your function. Dropout? F.dropout(x, p) drops entries at random on every call "
        "(its training flag defaults to True, whatever mode a module is in). This function has "
        "no dropout: remove it."
    )


def check_scaled_dot_product_attention(scaled_dot_product_attention, *, hidden: bool = False):
    """(output, weights) = scaled_dot_product_attention(q, k, v, mask=None) on torch tensors.

    Required: weights (..., len_q, len_k) = softmax over the keys of q kᵀ / √d_k with the
    blocked keys (mask False) at weight 0, output (..., len_q, d_v) = weights @ v, for any
    number of leading batch dims, within a tolerance that fits the dtype; q, k, v and the
    mask left unchanged; the output connected to the autograd graph. Accepted: any
    floating dtype (a note); any value to block keys (-inf, -1e9, -1e4, finfo.min,
    masked_fill, torch.where, an additive mask); fully masked rows as zeros (the
    reference), uniform, or another finite distribution (a note), never NaN; a tuple or
    a list.
    """
    with Checker("scaled_dot_product_attention", hidden=hidden) as c:
        c.require_callable(scaled_dot_product_attention)
        for case in _sdpa_cases(hidden):
            (q, k, v), mask, label = case["qkv"], case["mask"], case["label"]
            given = [t.clone().requires_grad_(case.get("grad", False)) for t in (q, k, v)]
            args = given if mask is None else [*given, mask.clone()]
            result = c.call(
                scaled_dot_product_attention,
                *args,
                call_repr=f"scaled_dot_product_attention({_describe(q, k, v, mask)})",
                hints=_sdpa_hints(q, k, v, mask),
                mutation_hint=_SDPA_MUTATION,
            )
            what = f"On {label} ({_describe(q, k, v, mask)}), "
            if isinstance(result, torch.Tensor):
                c.fail(
                    what + "your function returned a single tensor. Return a tuple "
                    "(output, weights): the weights are what we plot and inspect."
                )
            c.expect_type(result, tuple | list, what + "the result", "Return (output, weights).")
            c.expect_true(
                len(result) == 2,
                what + f"the result has {len(result)} items; return exactly (output, weights).",
            )
            output, weights = result
            c.expect_type(output, torch.Tensor, what + "the output (first item)")
            c.expect_type(weights, torch.Tensor, what + "the weights (second item)")
            lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2])
            if mask is not None:
                lead = torch.broadcast_shapes(lead, mask.shape[:-2])
            len_q, len_k, d_v = q.shape[-2], k.shape[-2], v.shape[-1]
            w_shape, o_shape = (*lead, len_q, len_k), (*lead, len_q, d_v)
            if tuple(output.shape) == w_shape and tuple(weights.shape) == o_shape:
                c.fail(
                    what + "the first item has the shape of the weights and the second the shape "
                    "of the output: return (output, weights), in that order."
                )
            swap_hint = _SDPA_SWAP.format(len_q=len_q, len_k=len_k)
            c.expect_shape(
                weights,
                w_shape,
                what + "your `weights`",
                "They are (..., len_q, len_k): one row per query, one column per key, with the "
                "batch dims of the inputs in front. "
                + (swap_hint if tuple(weights.shape[-2:]) == (len_k, len_q) else "")
                + (
                    f" Yours have {weights.dim()} dims, more than q, k and the mask give: did you "
                    "reshape the mask (an unsqueeze adds a dim)? The mask you were given, shape "
                    f"{tuple(mask.shape)}, already broadcasts against the scores: use it as it is."
                    if mask is not None and weights.dim() > len(w_shape)
                    else ""
                ),
            )
            c.expect_shape(
                output,
                o_shape,
                what + "your `output`",
                "It is weights @ v: (..., len_q, len_k) @ (..., len_k, d_v) -> (..., len_q, d_v)."
                + (
                    " Did you multiply by k instead of v?"
                    if output.shape[-1] == q.shape[-1]
                    else ""
                ),
            )
            c.expect_floating(weights, "your `weights`", preferred=q.dtype)
            c.expect_floating(output, "your `output`", preferred=q.dtype)
            _expect_deterministic(c, scaled_dot_product_attention, args, weights, what)
            exp_out, exp_w = ref.scaled_dot_product_attention(
                q.double(), k.double(), v.double(), mask
            )  # (..., len_q, d_v), (..., len_q, len_k)
            convention = expect_attention_weights(
                c,
                weights,
                mask,
                what + "your `weights`",
                expected=exp_w,
                mistakes={
                    **_sdpa_mistakes(q, k, v, mask),
                    **_fitted_scale_mistake(q, k, mask, weights),
                },
                **tolerance(weights.dtype, q.dtype),
            )
            accepted_w = with_fully_masked_rows(exp_w, mask, convention, like=weights)
            c.expect_close(
                output,
                accepted_w @ v.double() if convention else exp_out,
                what + "your `output`",
                **_output_tolerance(output.dtype, q.dtype, values=v),
                hint=_SDPA_OUTPUT_HINT,
                mistakes=_sdpa_output_mistakes(exp_out, mask),
            )
            if case.get("grad"):
                c.expect_true(
                    output.grad_fn is not None,
                    what + "q, k and v require gradients, but your output is not connected to "
                    "them (it has no grad_fn). Did you use .detach(), torch.no_grad() or go "
                    "through numpy? Later lessons train through this function, so stay in torch.",
                )


# ======================================================================= concept questions
QUIZ_SCORE_SCALE = Quiz(
    name="quiz_score_scale",
    answer="c",
    choices={
        "a": "the number of words in the sentence",
        "b": "d_model, the width of the token vectors between layers",
        "c": "the width of each query and key vector, q.shape[-1] (64 per head in the paper)",
        "d": "the number of attention heads",
    },
    why={
        "a": "A popular explanation says so, but the scale must not change with the sentence: "
        "q · k is a sum over the d_k features of one query and one key, so its spread "
        "grows with d_k, whatever the number of words.",
        "b": "The projections W^Q and W^K map d_model down to d_k (512 -> 64 per head in the "
        "paper). The dot product runs over the d_k features of q and k, not over d_model.",
        "c": "q · k sums d_k products; with unit-variance entries its variance is d_k, so "
        "dividing by √d_k brings the spread of the scores back to 1, whatever the width.",
        "d": "The number of heads decides how d_model is split (d_k = d_model / num_heads), "
        "but the scale is set by the width of the vectors in the dot product, d_k.",
    },
)
QUIZ_FULLY_MASKED = Quiz(
    name="quiz_fully_masked",
    answer="b",
    choices={
        "a": "NaN, so that the problem shows",
        "b": "all-zero weights, so the query takes in nothing and its output is zero",
        "c": "the softmax of its scores as if there were no mask",
        "d": "weight 1 on the first key",
    },
    why={
        "a": "NaN does not stay put: it spreads into every later layer, the loss and every "
        "gradient (even NaN times a zero weight is NaN), and training breaks. That is why the "
        "convention gives such a row finite weights.",
        "b": "The row belongs to padding and may attend to nothing, so it takes in nothing. "
        "F.scaled_dot_product_attention (PyTorch 2.5 and later) does the same. The checks "
        "also accept uniform weights (what a finite fill such as -1e9 gives), never NaN.",
        "c": "That lets the query see exactly the keys the mask forbids, pads and future words "
        "included: the mask would be ignored just where every key is forbidden.",
        "d": "Nothing singles out the first key: that would invent information the mask "
        "forbids, and it is not what any of the usual implementations computes.",
    },
)
QUIZ_CROSS_ATTENTION_ROLES = Quiz(
    name="quiz_cross_attention_roles",
    answer="b",
    choices={
        "a": "queries, keys and values all from the decoder's own words",
        "b": "queries from the decoder, keys and values from the encoder's output",
        "c": "queries and keys from the encoder's output, values from the decoder",
        "d": "queries from the encoder's output, keys and values from the decoder",
    },
    why={
        "a": "That is the decoder's (masked) self-attention. Cross-attention is where the "
        "decoder reads the source sentence, so something must come from the encoder.",
        "b": "Each Spanish word being produced asks a question (its query) and reads the answer "
        "out of the English sentence (its keys and values). The weights are (len_q, len_k) = "
        "(target length, source length): one output row per target word.",
        "c": "A widely read illustrated guide says so, but it cannot work: the output has one "
        "row per query, and the decoder needs one output row per target word; and the values "
        "must be rows of the sequence the keys describe.",
        "d": "Then the output would have one row per *source* word, but the decoder needs one "
        "per target word: the roles are the other way round.",
    },
)
check_quiz_score_scale = quiz_check(QUIZ_SCORE_SCALE)
check_quiz_fully_masked = quiz_check(QUIZ_FULLY_MASKED)
check_quiz_cross_attention_roles = quiz_check(QUIZ_CROSS_ATTENTION_ROLES)
QUIZZES = (QUIZ_SCORE_SCALE, QUIZ_FULLY_MASKED, QUIZ_CROSS_ATTENTION_ROLES)


# ---------------------------------------------------------------------------- registry
LESSON = "04_attention"
EXERCISES = (
    Exercise(
        "softmax",
        check_softmax,
        kind="function",
        points=2,
        minutes=15,
        level=2,
        forbidden=("scipy.special.softmax", "torch.softmax", "torch.nn.functional.softmax"),
    ),
    Exercise(
        "attention_row",
        check_attention_row,
        kind="function",
        points=2,
        minutes=15,
        level=1,
        forbidden=("torch.nn.functional.scaled_dot_product_attention",),
    ),
    Exercise("quiz_score_scale", check_quiz_score_scale, kind="quiz", points=1, minutes=2, level=1),
    Exercise(
        "quiz_fully_masked", check_quiz_fully_masked, kind="quiz", points=1, minutes=2, level=1
    ),
    Exercise(
        "scaled_dot_product_attention",
        check_scaled_dot_product_attention,
        kind="function",
        points=3,
        minutes=30,
        level=3,
        forbidden=(
            "torch.nn.functional.scaled_dot_product_attention",
            "torch.nn.MultiheadAttention",
        ),
    ),
    Exercise(
        "quiz_cross_attention_roles",
        check_quiz_cross_attention_roles,
        kind="quiz",
        points=1,
        minutes=2,
        level=1,
    ),
)
