"""The check of ``softmax``: stable on large logits, along the given axis, all -inf slices
without NaN, and the mistakes it names (no max trick, a global maximum, no keepdims, the
wrong axis, ...).
"""

from __future__ import annotations

import contextlib
import io
import math
import re
from functools import partial

import numpy as np

from transformer_course.checking import (
    Checker,
    CheckFailure,
    numpy_rng,
    short,
    tolerance,
)
from transformer_course.checking.defaults import wrong_default
from transformer_course.checking.hints import two_mistakes
from transformer_course.checking.reshape_moves import reshape_along, reshape_note
from transformer_course.checking.size_one_axes import promoted_vector_note
from transformer_course.checking.temperature import (
    COMMON_FACTORS,
    fitted_temperature,
    named_factors,
)
from transformer_course.checking.uninitialised import WHERE_WITHOUT_OUT, unwritten_entries
from transformer_course.reference import attention as ref

from .common import _SOFTMAX_OVERFLOW

_NEG_INF = float("-inf")


_SOFTMAX_GLOBAL_MAX = (
    "The rows of this input live on very different scales. It looks like you subtracted "
    "one maximum for the whole array (np.max(x)) instead of the maximum of each slice: "
    "a row around -1000 minus a global maximum around +1000 underflows exp() to 0 "
    "everywhere, and 0 / 0 is NaN. Use np.max(x, axis=axis, keepdims=True)."
)
#: the NaN hint of the inputs on very different scales, when no shift model matched
_SOFTMAX_WIDE_NAN = (
    "The entries of each slice of this input span about 2200. Subtracting a constant per "
    "slice changes nothing mathematically, but only the slice's own maximum keeps every "
    "exponent between -inf and 0: shifted by less (its minimum, its mean, its first "
    "entry, or nothing) the largest entries still exceed about 709 and exp() overflows "
    "(inf / inf is NaN); shifted by more (one maximum for the whole array) a whole slice "
    "can underflow to 0 (0 / 0 is NaN). Use np.max(x, axis=axis, keepdims=True)."
)
#: The shifts other than the maximum that a stable softmax is sometimes written with:
#: each reproduces the reference wherever exp() does not overflow, so only a slice whose
#: entries span more than about 709 tells them apart (and apart from no shift at all).
_SOFTMAX_OTHER_SHIFTS = {
    "its minimum (np.min where np.max belongs)": lambda x, axis: np.min(
        x, axis=axis, keepdims=True
    ),
    "its mean": lambda x, axis: np.mean(x, axis=axis, keepdims=True),
    "its median": lambda x, axis: np.median(x, axis=axis, keepdims=True),
    "its first entry": lambda x, axis: np.take(x, [0], axis=axis),
}
_SOFTMAX_SCALES_NAN = (
    "The rows of this input live on very different scales: a row around -1000 shifted by "
    "anything but its own maximum (one maximum for the whole array, say) underflows exp() "
    "to 0 everywhere, and 0 / 0 is NaN. Use np.max(x, axis=axis, keepdims=True)."
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
#: exp(x - max), the largest entry of each slice 1: two codes give it, and no input
#: tells them apart (exp(x) / max(exp(x)) is exp(x - max))
_SOFTMAX_SHIFTED_NOT_NORMALISED = (
    "Your result is exp(x - max): the largest entry of each slice is 1, and the entries "
    "of a slice do not add up to 1. Either the exponentials were never divided by their "
    "sum, or they were divided by their maximum (np.max where np.sum belongs: "
    "exp(x) / max(exp(x)) is exp(x - max)); on any input the two give the same. Divide by "
    "the sum along the axis, np.sum(e, axis=axis, keepdims=True)."
)
_SOFTMAX_WHOLE_ARRAY = (
    "Your values add up to 1 over the whole array instead of along the axis: each slice "
    "along `axis` is normalised on its own. Pass axis=axis, keepdims=True to np.sum."
)
_SOFTMAX_MEAN = (
    "Your values are the right ones times {n}, the length of the slice: you divided by the "
    "mean of the exponentials along the axis (np.mean) where their sum belongs, so each slice "
    "adds up to {n}, not 1. Divide by np.sum(e, axis=axis, keepdims=True)."
)
_SOFTMAX_NARROWED = (
    "Your result is the softmax of x rounded to {dtype} first: {dtype} keeps about 3 "
    "significant digits, so large scores lose the differences between them (near 900 its "
    "steps are 0.5 apart), and those differences are all the softmax looks at. Compute in "
    "x's own dtype (no .astype(np.{dtype})); any float dtype is fine for the result."
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
_SOFTMAX_MAX_NOT_ADDED_BACK = (
    "Your result is the softmax times exp(max) of each slice, so each slice adds up to "
    "exp(its max) instead of 1: exp(x) divided by the sum of the *shifted* exponentials "
    "exp(x - max) (the shift applied to one of the two only), or exp(x - lse) with a "
    "log-sum-exp that dropped the max it subtracted (lse = max + log(sum(exp(x - max)))). "
    "Shift both the same way: exp(x - max) / sum(exp(x - max))."
)
_SOFTMAX_SUM_NOT_SHIFTED = (
    "Your result is exp(x - max) divided by the sum of the *unshifted* exponentials "
    "exp(x): the maximum is subtracted in the numerator only, so the shift no longer "
    "cancels and each slice adds up to exp(-max) instead of 1 (and the unshifted sum "
    "still overflows for large x). Shift both the same way: "
    "exp(x - max) / sum(exp(x - max))."
)
_SOFTMAX_EUCLIDEAN_NORM = (
    "Your result is exp(x - max) (or exp(x)) divided by the Euclidean norm (np.linalg.norm) of "
    "each "
    "slice instead of its sum: each slice has length 1 (its squares add up to 1), but "
    "softmax weights are a distribution, so the entries themselves must add up to 1. "
    "Divide by np.sum(e, axis=axis, keepdims=True)."
)
_SOFTMAX_NEG_INF_AS_ZERO = (
    "Your -inf entries get weight: they were treated as 0 (replaced by 0 before the "
    "exponential). An entry of -inf must get weight 0, and exp(-inf) is already 0, so "
    "nothing needs replacing; only a slice that is all -inf needs care (its max is -inf)."
)
_SOFTMAX_LOG = (
    "Yours is the log-softmax, x - log(sum(exp(x))): log-probabilities, all <= 0 (what "
    "F.log_softmax returns, for a loss). The weights are its exponential: "
    "exp(x - max) / sum(exp(x - max))."
)
_SOFTMAX_OF_MINUS_X = (
    "Yours is the softmax of -x: the smallest entry gets the most weight. The shift is "
    "written the wrong way round, exp(max - x) where exp(x - max) belongs."
)
_SOFTMAX_PLUS_ONE = (
    "Your result is exp(x{shift}) / (1 + sum): a 1 added to the denominator (the "
    "'softmax plus one', softmax1 or quiet softmax, of the 'attention is off by one' post), "
    "so each slice adds up to sum / (1 + sum), less than 1. The softmax divides by the sum "
    "alone: exp(x - max) / sum(exp(x - max))."
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
        right = ref.softmax(x, axis=axis)
        for how, wrong in reshape_along(
            lambda a, along: ref.softmax(a, axis=along), x, axis, "the softmax"
        ).items():
            if not np.allclose(wrong, right, atol=1e-6, equal_nan=True):
                mistakes[
                    reshape_note(how, "np.moveaxis(x, axis, -1) or np.swapaxes")
                    + " (Or take the max and the sum along axis=axis directly, with "
                    "keepdims=True: no reshape is needed.)"
                ] = wrong
        for message, wrong in _softmax_split_axes(x, axis).items():
            if not np.allclose(wrong, ref.softmax(x, axis=axis), atol=1e-6):
                mistakes[message] = wrong
        peak = np.max(x, axis=axis, keepdims=True)
        exps = np.exp(x - np.where(np.isfinite(peak), peak, 0.0))
        mistakes[_SOFTMAX_SHIFTED_NOT_NORMALISED] = exps
        mistakes[_SOFTMAX_NOT_NORMALISED.replace("exp(x) (or exp(x - max))", "exp(x)")] = np.exp(x)
        mistakes[_SOFTMAX_WHOLE_ARRAY] = exps / np.sum(exps)
        if x.ndim and x.shape[axis] > 1:
            mistakes[_SOFTMAX_MEAN.format(n=x.shape[axis])] = exps / np.mean(
                exps, axis=axis, keepdims=True
            )
        for narrow in (np.float16,):  # the input rounded before the softmax
            if x.dtype != narrow and np.isfinite(x[np.isfinite(x)]).all():
                rounded = ref.softmax(x.astype(narrow).astype(np.float64), axis=axis)
                if not np.allclose(rounded, right, atol=1e-3, equal_nan=True):
                    mistakes[_SOFTMAX_NARROWED.format(dtype=np.dtype(narrow).name)] = rounded
        mistakes[_SOFTMAX_PLUS_ONE.format(shift=" - max")] = exps / (
            1.0 + np.sum(exps, axis=axis, keepdims=True)
        )
        mistakes[_SOFTMAX_PLUS_ONE.format(shift="")] = np.exp(x) / (
            1.0 + np.sum(np.exp(x), axis=axis, keepdims=True)
        )
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
        if np.any(np.isfinite(peak) & (peak != 0)):  # the max shifts one side only
            mistakes[_SOFTMAX_MAX_NOT_ADDED_BACK] = np.exp(x) / np.sum(
                exps, axis=axis, keepdims=True
            )
        if np.any(np.isfinite(peak) & (peak != 0)):  # the max shifts the numerator only
            mistakes[_SOFTMAX_SUM_NOT_SHIFTED] = exps / np.sum(np.exp(x), axis=axis, keepdims=True)
        lengths = np.sqrt(np.sum(exps * exps, axis=axis, keepdims=True))
        by_length = np.divide(exps, lengths, out=np.zeros_like(exps), where=lengths > 0)
        if not np.allclose(by_length, right, atol=1e-6, equal_nan=True):
            mistakes[_SOFTMAX_EUCLIDEAN_NORM] = by_length
        live = np.isfinite(peak)
        total_shifted = np.sum(exps, axis=axis, keepdims=True)
        if live.all():  # the log of the softmax, and the softmax of -x (peak - x)
            mistakes[_SOFTMAX_LOG] = x - np.where(live, peak, 0.0) - np.log(total_shifted)
        if np.isfinite(x).all():
            mistakes[_SOFTMAX_OF_MINUS_X] = ref.softmax(-x, axis=axis)
        if np.isneginf(x).any():  # -inf entries read as 0
            mistakes[_SOFTMAX_NEG_INF_AS_ZERO] = ref.softmax(
                np.where(np.isneginf(x), 0.0, x), axis=axis
            )
        for decimals in range(1, 6):  # the weights rounded for display (np.round, round())
            rounded = np.round(right, decimals)
            if not np.allclose(rounded, right, atol=1e-6, equal_nan=True):
                mistakes[
                    f"Your weights are the softmax rounded to {decimals} decimal(s) "
                    f"(np.round(..., {decimals}), or round()): rounding moves every weight "
                    "by up to half a unit of the last decimal kept, so a slice no longer adds "
                    "up to 1 exactly and a weight below half that unit becomes 0. Return the weights "
                    "unrounded; round only where you print them."
                ] = rounded
        try:
            shifted = np.exp(x - np.max(x, axis=axis))
            mistakes[_SOFTMAX_PEAK_KEEPDIMS] = shifted / np.sum(shifted, axis=axis, keepdims=True)
        except ValueError:
            pass
    return mistakes


def _softmax_pairs(x: np.ndarray, axis: int) -> dict[str, np.ndarray]:
    """Two mistakes at once: a shift that is not each slice's maximum (none, or one for the
    whole array) with a normalisation that is not the slice's sum (no keepdims, the whole
    array's sum, none at all). Named only when exactly one pair fits (expect_close). Where
    no exp overflows or underflows, the two shifts give the same result (a constant
    cancels in a division by sums of exponentials): one candidate then names both."""
    if not np.isfinite(x).all():
        return {}
    none = "The maximum is not subtracted before exp (large scores overflow)."
    whole = (
        "One maximum for the whole array is subtracted (np.max(x)), not each slice's own, "
        "so slices far below the rest underflow."
    )
    both = (
        "The shift before exp is not each slice's own maximum: none, or one maximum for the "
        "whole array (np.max(x)); the two agree on this input. Subtract "
        "np.max(x, axis=axis, keepdims=True)."
    )
    pairs = {}
    with np.errstate(all="ignore"):
        variants = {}
        for shift_text, shift in ((none, 0.0), (whole, np.max(x))):
            exps = np.exp(x - shift)
            normalised = {_SOFTMAX_WHOLE_ARRAY: exps / np.sum(exps), _SOFTMAX_NOT_NORMALISED: exps}
            try:
                normalised[_SOFTMAX_KEEPDIMS] = exps / np.sum(exps, axis=axis)
            except ValueError:
                pass
            variants[shift_text] = normalised
        for norm_text in variants[none]:
            a, b = variants[none][norm_text], variants[whole][norm_text]
            if np.isfinite(a).all() and np.isfinite(b).all() and np.allclose(a, b):
                pairs[two_mistakes(both, norm_text)] = b
                continue
            for shift_text, wrong in ((none, a), (whole, b)):
                if np.isfinite(wrong).all():
                    pairs[two_mistakes(shift_text, norm_text)] = wrong
    return pairs


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


def _softmax_shift_not_max(got: np.ndarray, x: np.ndarray, axis: int) -> str:
    """When the result is NaN or inf where the reference is finite and exactly one of the
    usual wrong shifts reproduces it (NaN where exp(x - shift) overflows, equal
    elsewhere): that shift, named. "" otherwise (the case's hint then speaks)."""
    if np.isfinite(got).all() or not np.isfinite(x).all():
        return ""
    matches = []
    with np.errstate(all="ignore"):
        for name, shift in _SOFTMAX_OTHER_SHIFTS.items():
            exps = np.exp(x - shift(x, axis))
            wrong = exps / np.sum(exps, axis=axis, keepdims=True)
            bad = ~np.isfinite(wrong)
            if (
                bad.any()
                and np.array_equal(bad, ~np.isfinite(got))
                and np.allclose(got[~bad], wrong[~bad], rtol=1e-4, atol=1e-6)
            ):
                matches.append(name)
    if not matches:
        return ""
    shift = matches[0] if len(matches) == 1 else "one of " + " or ".join(matches)
    return (
        f"Your softmax shifts each slice by {shift} instead of its maximum: it is NaN "
        "exactly where exp(x - that shift) overflows and right everywhere else. "
        + _SOFTMAX_WIDE_NAN
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
        # Each row spans 2200 with its maximum in another place: only the maximum keeps
        # every exponent <= 0; the minimum, the mean, the median, the first entry and no
        # shift at all overflow on different entries, which tells them apart.
        wide = 800.0 + np.array(
            [
                [0.0, 800.0, 2000.0, 2200.0],
                [2200.0, 0.0, 800.0, 2000.0],
                [2000.0, 2200.0, 0.0, 800.0],
            ]
        )
        return [
            ("small logits", small, None, nan_hint),
            ("a 1-D vector of scores", drank, None, nan_hint),
            # a batch of one row: its axis of size 1 is part of the shape (a bare squeeze)
            ("a batch of one row", drank[None, :5].copy(), None, nan_hint),
            ("axis=0", np.array([[1.0, 2.0, 0.0, -1.0], [3.0, 0.0, 0.0, 2.0]]), 0, nan_hint),
            ("a 3-D input, axis=1", numpy_rng(40).normal(size=(2, 3, 4)), 1, nan_hint),
            ("float32 input", numpy_rng(41).normal(size=(2, 5)).astype(np.float32), -1, nan_hint),
            ("large logits", large, -1, _SOFTMAX_OVERFLOW),
            ("rows on very different scales", scales, -1, _SOFTMAX_SCALES_NAN),
            ("slices spanning a wide range", wide, -1, _SOFTMAX_WIDE_NAN),
            ("some -inf entries", some_inf, -1, neg_inf_hint),
            ("a row that is all -inf", dead_row, -1, _SOFTMAX_ALL_NEG_INF_NAN),
            ("a column that is all -inf, axis=0", dead_column, 0, _SOFTMAX_ALL_NEG_INF_NAN),
        ]
    rng = numpy_rng(4040)
    square = rng.normal(size=(4, 4)) * 2
    large = rng.normal(size=(3, 6)) * 5 + 800
    scales = np.stack([rng.normal(size=5) + 900, rng.normal(size=5) - 900, rng.normal(size=5)])
    wide = 800.0 + np.array(  # as the visible one (see there), in other places, jittered
        [[800.0, 0.0, 2200.0, 2000.0], [2000.0, 800.0, 0.0, 2200.0], [0.0, 2200.0, 2000.0, 800.0]]
    )
    wide += rng.normal(size=wide.shape)
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
        # two axes of size 1 besides the softmax axis: a bare squeeze drops both
        ("one slice, shape (1, 4, 1), axis=1", rng.normal(size=(1, 4, 1)), 1, nan_hint),
        ("a 1-D float32 input", rng.normal(size=7).astype(np.float32), -1, nan_hint),
        ("large logits", large, -1, _SOFTMAX_OVERFLOW),
        ("large logits along axis=0", large.T.copy(), 0, _SOFTMAX_OVERFLOW),
        ("rows on very different scales", scales, -1, _SOFTMAX_SCALES_NAN),
        ("slices spanning a wide range", wide, -1, _SOFTMAX_WIDE_NAN),
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


_SOFTMAX_SHIFT_NOT_BELOW_ZERO = (
    "Your shift never goes below 0: on rows around +1000 your weights are right, but on "
    "rows whose entries are all around -1000 (their own maximum about -1000) they come "
    "out 0 (or NaN) instead of adding up to 1. Three shifts do that: max(0, the slice "
    "maximum) (np.maximum(peak, 0)), the absolute value of the maximum "
    "(np.abs(np.max(x))), or the largest absolute value (np.max(np.abs(x)))."
)
#: rows that all live around -1000, close to one another: one maximum for the whole array
#: is right here, a shift that never goes below 0 underflows every row
_NEGATIVE_ROWS = np.array([[-1000.0, -1001.0, -1002.0], [-1001.0, -1000.0, -1003.0]])


#: rows that part the shifts that never go below 0 (each row's right weights, or 0 / NaN):
#: [-1000, 0, 1] underflows only under the largest magnitude (1000), [-400, -401, -402]
#: under the maximum's absolute value (400) too, and neither under max(0, max) (exp(-400)
#: is still a float)
_MAGNITUDE_ROWS = np.array([[-1000.0, 0.0, 1.0], [-400.0, -401.0, -402.0]])
#: which of _MAGNITUDE_ROWS come out wrong -> the shift that gives it
_SHIFTS_NOT_BELOW_ZERO = {
    (False, False): "Your shift never goes below 0: it is max(0, the slice maximum) "
    "(np.maximum(peak, 0), or a maximum clamped at 0): on rows whose entries are all around -1000 (their own maximum "
    "about -1000) you subtract 0, exp(-1000) underflows to 0 everywhere, and the weights "
    "come out 0 (or NaN) instead of adding up to 1.",
    (False, True): "Your shift is the absolute value of the slice maximum, "
    "np.abs(np.max(x, ...)): on a row whose maximum is negative it moves the row further "
    "down, not up to 0. A row around -400 (maximum -400) is shifted by +400 to about -800, "
    "where exp() underflows to 0 everywhere, and its weights come out 0 (or NaN) instead "
    "of adding up to 1 (rows around -1000 likewise).",
    (True, True): "Your shift is each slice's largest absolute value, np.max(np.abs(x), "
    "...), not its maximum: right wherever the largest magnitude is the maximum, but on "
    "the row [-1000, 0, 1] it subtracts 1000, not 1, and exp() underflows to 0 everywhere "
    "there, so its weights come out 0 (or NaN) instead of adding up to 1 (rows around "
    "-400 or -1000 likewise).",
}


def _shift_never_below_zero(c, softmax) -> str:
    """The message for a shift that never goes below 0 (low rows underflow, high rows are
    right): _MAGNITUDE_ROWS tells max(0, max), |max| and max(|x|) apart; the three as
    candidates when the probe fits none of them."""
    try:
        with np.errstate(all="ignore"):
            probe = np.asarray(
                c.call(softmax, _MAGNITUDE_ROWS.copy(), axis=-1), dtype=np.float64
            )  # (2, 3)
    except (CheckFailure, TypeError, ValueError):
        probe = None
    expected = ref.softmax(_MAGNITUDE_ROWS, axis=-1)  # (2, 3)
    found = None
    if probe is not None and probe.shape == expected.shape:
        right = [bool(np.allclose(p, e, atol=1e-6)) for p, e in zip(probe, expected, strict=True)]
        lost = [bool(np.allclose(p, 0.0, atol=1e-6) or np.isnan(p).all()) for p in probe]
        if all(r or w for r, w in zip(right, lost, strict=True)):
            found = _SHIFTS_NOT_BELOW_ZERO.get(tuple(lost))
    return (
        found or _SOFTMAX_SHIFT_NOT_BELOW_ZERO
    ) + " Subtract each slice's own maximum, negative or not: np.max(x, axis=axis, keepdims=True)."


def _shift_models(x: np.ndarray, axis: int, peak: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """softmax with `peak` subtracted: 0 / 0 guarded (zeros), and left as NaN."""
    with np.errstate(all="ignore"):
        shifted = np.exp(x - peak)
        total = np.sum(shifted, axis=axis, keepdims=True)
        return (
            np.divide(shifted, total, out=np.zeros_like(shifted), where=total > 0),
            shifted / total,
        )


def _softmax_global_or_clamped(c, softmax, got: np.ndarray, x: np.ndarray, axis: int) -> str:
    """Two shifts that are not each slice's own maximum make low slices underflow: one
    maximum for the whole array, and the slice maximum clamped at 0 (np.maximum(max, 0)).
    On slices around +1000 and -1000 alone they agree; a slice around 0, or a probe whose
    slices all live around -1000, parts them. "" when neither matches."""
    if not x.size or not np.isfinite(x).all():
        return ""
    right = ref.softmax(x, axis=axis)

    def matches(peak) -> bool:
        zeros, nans = _shift_models(x, axis, peak)
        return not np.allclose(zeros, right, atol=1e-6) and (
            np.allclose(got, zeros, atol=1e-6) or np.allclose(got, nans, atol=1e-6, equal_nan=True)
        )

    one_max = matches(np.max(x))
    clamped = matches(np.maximum(np.max(x, axis=axis, keepdims=True), 0.0))
    finite = np.isfinite(got).all()
    if one_max and not clamped:
        return _SOFTMAX_GLOBAL_MAX_ZEROS if finite else _SOFTMAX_GLOBAL_MAX
    if clamped and not one_max:
        return _shift_never_below_zero(c, softmax)
    if not one_max:
        return ""
    try:  # both agree on this input: rows that all live around -1000 part them
        with np.errstate(all="ignore"):
            probe = np.asarray(c.call(softmax, _NEGATIVE_ROWS.copy(), axis=-1), dtype=np.float64)
    except (CheckFailure, TypeError, ValueError):
        probe = None
    expected = ref.softmax(_NEGATIVE_ROWS, axis=-1)
    fits = probe is not None and probe.shape == expected.shape
    if fits and np.allclose(probe, expected, atol=1e-6):
        return _SOFTMAX_GLOBAL_MAX_ZEROS if finite else _SOFTMAX_GLOBAL_MAX
    if fits and (np.allclose(probe, 0.0, atol=1e-6) or np.isnan(probe).all()):
        return _shift_never_below_zero(c, softmax)
    return (
        "On rows around +1000 and -1000 your weights come out 0 (or NaN) on the low rows: "
        "either one maximum for the whole array (np.max(x)) or a shift that never goes "
        "below 0 (np.maximum(peak, 0)) gives that. Subtract each slice's own maximum: "
        "np.max(x, axis=axis, keepdims=True)."
    )


#: the probe that confirms a measured temperature: its t must be the same there
_TEMPERATURE_PROBE = np.array([[0.0, 1.0, 3.0], [2.0, -1.0, 0.5]])


def _softmax_temperature(c, softmax, got: np.ndarray, x: np.ndarray, axis: int) -> str:
    """A result that is softmax(t·x) along ``axis`` for one t other than 1 (-1 is a
    mistake of its own): a temperature, or another base of the exponential (2 ** x is
    exp(x·ln 2)). The factor measured from the learner's result; its name (base 2, the
    scores halved, ...) only when a second input gives the same t. "" when no t fits."""
    t = fitted_temperature(got, x, axis=axis)
    if (
        t is None
        or abs(t) < 1e-3  # uniform weights: no factor of x, something else flattened them
        or math.isclose(t, 1.0, rel_tol=1e-4)
        or math.isclose(t, -1.0, rel_tol=1e-4)
    ):
        return ""
    # a factor of the code gives the same t on any input: one that this input alone
    # produces (clipped logits, a data-dependent scale) does not
    try:
        with np.errstate(all="ignore"):
            probe = np.asarray(
                c.call(softmax, _TEMPERATURE_PROBE.copy(), axis=-1), dtype=np.float64
            )
        again = fitted_temperature(probe, _TEMPERATURE_PROBE, axis=-1)
    except (CheckFailure, TypeError, ValueError):
        again = None
    if again is None or not math.isclose(again, t, rel_tol=1e-4):
        return ""
    names = named_factors(t, COMMON_FACTORS)
    named = f" ({' or '.join(names)})" if names else ""
    return (
        f"Your result is the softmax of x times {t:.4g}: exp({t:.4g}·x) where exp(x) "
        f"belongs{named}. The softmax is exp(x - max) / sum(exp(x - max)), with np.exp and "
        "x as it is."
    )


def _quiet_call(softmax, x: np.ndarray, **call_args):
    """The learner's softmax on a copy of ``x``, its prints hidden; None when it raises
    (a probe: the failing call's message stays)."""
    try:
        with contextlib.redirect_stdout(io.StringIO()), np.errstate(all="ignore"):
            return softmax(x.copy(), **call_args)
    except Exception:
        return None


#: a 2-D input on which axis=1, the same axis as -1, tells a comparison with the literal
#: -1 from one with the normalised axis
_TWO_D_PROBE = numpy_rng(4242).normal(size=(3, 4))


def _close(result, wanted: np.ndarray) -> bool:
    return (
        isinstance(result, np.ndarray)
        and result.shape == wanted.shape
        and np.allclose(np.asarray(result, dtype=np.float64), wanted, atol=1e-6)
    )


def _axis_by_transpose_note(softmax, got64: np.ndarray, x: np.ndarray, axis: int) -> str:
    """A result normalised along the first axis where a middle or first-but-not-only axis
    was asked, while axis=-1 is right on the same input: the other axes handled by a
    transpose, softmax(x.T).T, which reverses every axis (round 20, blind19b-sm-other-axis-
    by-transpose, was asked whether the axis was hard-coded; a hard-coded axis=0 gets
    axis=-1 wrong too). "" otherwise."""
    own = axis % x.ndim
    if x.ndim < 3 or own in (0, x.ndim - 1) or not np.isfinite(x).all():
        return ""
    if not _close(got64, ref.softmax(x, axis=0)):
        return ""
    if not _close(_quiet_call(softmax, x, axis=-1), ref.softmax(x, axis=-1)):
        return ""
    two_d = _TWO_D_PROBE
    literal = _close(_quiet_call(softmax, two_d, axis=1), ref.softmax(two_d, axis=0))
    return (
        f"Your result is normalised along axis 0, the first, instead of axis={axis}, while "
        "axis=-1 gives the right result on the same input: an axis other than -1 is "
        "handled by a transpose, softmax(x.T).T (or a swap of the first and last axes). But "
        ".T reverses every axis, so the last axis of x.T is the first of x: that is the axis "
        "asked only for axis=0 of a 2-D input."
        + (
            " On a 2-D input, axis=1, the same axis as -1, comes out along axis 0 too: the "
            "axis is compared with the literal -1 instead of as axis % x.ndim."
            if literal
            else ""
        )
        + " Work along `axis` itself: np.max(x, axis=axis, keepdims=True) and np.sum(..., "
        "axis=axis, keepdims=True), or move it with np.moveaxis(x, axis, -1) and back with "
        "np.moveaxis(result, -1, axis)."
    )


def _wrong_move_back(got, moved: np.ndarray, axis: int) -> str:
    """The right softmax computed with `axis` moved to the end (``moved``), then moved
    back by a wrong np.moveaxis(result, source, destination): the one move that gives
    ``got``, named (round 20, blind12m-sm-moveaxis-back-same-way: np.moveaxis(out, axis,
    -1) again, where np.moveaxis(out, -1, axis) undoes it). "" when no single move fits,
    or when several give the same array (they cannot be told apart here)."""
    ndim = moved.ndim
    got64 = np.asarray(got, dtype=np.float64)
    fits = [
        (source - ndim, destination - ndim)
        for source in range(ndim)
        for destination in range(ndim)
        if source != destination
        and (back := np.moveaxis(moved, source, destination)).shape == got64.shape
        and np.allclose(got64, back, atol=1e-6, equal_nan=True)
    ]
    if len(fits) != 1 or fits[0] == (-1, axis - ndim if axis >= 0 else axis):
        return ""
    source, destination = fits[0]
    again = (
        " again, the same move as the first one"
        if (source, destination)
        == (
            axis - ndim if axis >= 0 else axis,
            -1,
        )
        else ""
    )
    return (
        f"Your values are the right softmax, with the axes out of place: you moved axis "
        f"{axis} to the end to work there, then moved it back with np.moveaxis(result, "
        f"{source}, {destination}){again}. np.moveaxis(x, a, b) is undone by "
        f"np.moveaxis(result, b, a): here np.moveaxis(result, -1, {axis})."
    )


def _moved_axis_hint(got, expected: np.ndarray, axis: int) -> str:
    """The shape hint: when the learner's result is the right softmax with `axis` moved to
    the end (np.moveaxis(x, axis, -1), or a transpose, never moved back), say so."""
    hint = "Softmax keeps the shape of its input."
    if axis in (-1, expected.ndim - 1) or not isinstance(got, np.ndarray):
        return hint
    moved = np.moveaxis(expected, axis, -1)
    back = _wrong_move_back(got, moved, axis)
    if back:
        return f"{hint} {back}"
    if got.shape == moved.shape and np.allclose(
        np.asarray(got, dtype=np.float64), moved, atol=1e-6, equal_nan=True
    ):
        return (
            f"{hint} Your values are the right softmax, with axis {axis} moved to the end: "
            f"you moved it there (np.moveaxis(x, {axis}, -1), or a transpose) to work on the "
            "last axis and never moved it back. Move the result back with "
            f"np.moveaxis(result, -1, {axis}), or work along `axis` directly "
            "(np.max(x, axis=axis, keepdims=True), np.sum(..., axis=axis, keepdims=True))."
        )
    return hint


#: errors of a step written for one number or one vector, met by a whole array: an `if`
#: on it, math.exp / float() / math.isinf on it
_ONE_VECTOR_ERRORS = re.compile(
    r"truth value of an array|only (0-dimensional|length-1|size-1) arrays can be converted"
)
#: the 1-D vector a softmax that failed on a 2-D input is probed with ("drank")
_ONE_VECTOR_PROBE = np.array([0.0, -4.0, 1.5, 1.5, 0.0, 3.5])


def _one_vector_hint(c, softmax, exc: BaseException) -> str:
    """An ambiguous truth value (or an array given to math.exp, float()) on an input of 2
    or more dims, from a softmax written for one vector: a probe on a 1-D vector tells a
    Python list (entry by entry) from a numpy result that is right there; "" when the
    probe tells neither."""
    try:
        got = c.call(softmax, _ONE_VECTOR_PROBE.copy())
    except Exception:  # the failing call gives the message
        return ""
    if isinstance(got, list):
        return (
            "On a 1-D vector your softmax returns a Python list: it is written for one "
            "vector only, entry by entry (a loop or a comprehension over x, with math.exp, "
            "max or sum). On this input each entry of x is a whole row, so comparing one "
            "(v != -inf, max(...)) or giving it to math.exp raises this error. softmax takes an array of any number "
            "of dims: work on the whole array with numpy, np.max(x, axis=axis, "
            "keepdims=True), np.exp and np.sum(..., axis=axis, keepdims=True), and return "
            "a numpy array."
        )
    if (
        isinstance(got, np.ndarray)
        and got.shape == _ONE_VECTOR_PROBE.shape
        and np.allclose(np.asarray(got, np.float64), ref.softmax(_ONE_VECTOR_PROBE), atol=1e-6)
    ):
        return (
            "Your softmax is right on a 1-D vector, so a step was written for one vector: "
            "on this input a slice maximum or an entry of x is a whole array (an `if` on "
            "the maximum, such as `if peak == -inf`, Python's max or a comparison over "
            "the entries of x, or math.exp or float() of one). Handle every slice at once: np.where(np.isfinite(peak), "
            "peak, 0.0) instead of an `if`, numpy reductions with axis=axis."
        )
    return ""


def _dims_handled(c, softmax) -> str:
    """None on an input of 3 or more dims from a softmax that returns arrays on a 1-D and
    a 2-D input: a branch for each number of dims it knows, nothing for the others; ""
    when the probes do not show that."""
    probes = (_ONE_VECTOR_PROBE, np.array([[1.0, 2.0, 3.0], [0.5, 0.5, 0.5]]))
    for probe in probes:
        try:
            got = c.call(softmax, probe.copy())
        except Exception:  # the failing call gives the message
            return ""
        if not isinstance(got, np.ndarray):
            return ""
    return (
        "On a 1-D and a 2-D input your softmax returns arrays: it handles those numbers of "
        "dims only (a branch for each x.ndim), and for this one no branch returns anything. "
        "softmax takes x of any number of dims: one formula along `axis` covers them all, "
        "np.max(x, axis=axis, keepdims=True), np.exp, np.sum(..., axis=axis, keepdims=True)."
    )


def _softmax_unwritten(
    softmax, x: np.ndarray, axis: int, call_args: dict, wrong, warnings=()
) -> str:
    """The ``wrong`` entries (a mask) are memory the learner's softmax never wrote (a ufunc
    given where= without out=): told apart from a deterministic mistake by a call made
    just after a sentinel-filled block of the result's size was freed. "" otherwise."""
    warned = any(WHERE_WITHOUT_OUT in text for text in warnings)
    if not warned:
        unwritten = unwritten_entries(lambda: softmax(x.copy(), **call_args), x.shape, x.dtype)
        if unwritten is None or not (unwritten & wrong).any():
            return ""
    return (
        "Those entries were never written"
        + (
            " (numpy warned: 'where' used without 'out')"
            if warned
            else ": called again just after a temporary of the same size was freed, your "
            "result held that temporary's values there"
        )
        + ". numpy's "
        "ufuncs given where= without out= (np.divide(exps, total, where=total > 0), "
        "np.exp(..., where=...)) leave the entries where the condition is False "
        "uninitialised, whatever the memory held. Pass an initialised out= as well, "
        "out=np.zeros_like(exps), so those entries start at 0."
    )


def _softmax_explain_wrong(c, softmax, got64, x, axis, call_args, expected, warned) -> str:
    """numpy's own warning of an uninitialised result first (it is a witness), then a
    temperature, then the sentinel test of left-over memory."""
    wrong = ~np.isclose(got64, expected, atol=1e-6, equal_nan=True)
    if any(WHERE_WITHOUT_OUT in text for text in warned):
        return _softmax_unwritten(softmax, x, axis, call_args, wrong, warned)
    return (
        _softmax_temperature(c, softmax, got64, x, axis)
        or _softmax_saturated(softmax, got64, x, axis)
        or _softmax_unwritten(softmax, x, axis, call_args, wrong)
    )


#: softmax([t, t + 1])[1], right at every t: e / (1 + e)
_PAIR_WEIGHT = math.e / (1.0 + math.e)


def _softmax_pair_weight(softmax, t: float) -> float | None:
    """The learner's weight of t + 1 in softmax([t, t + 1]) (float64); None when the call
    fails or gives no such weight."""
    try:
        with contextlib.redirect_stdout(io.StringIO()), np.errstate(all="ignore"):
            out = np.asarray(softmax(np.array([t, t + 1.0])), dtype=np.float64)
        return float(out.reshape(-1)[1]) if out.size == 2 else None
    except Exception:
        return None


def _softmax_saturated(softmax, got: np.ndarray, x: np.ndarray, axis: int) -> str:
    """Large inputs all treated alike: a cap T on the inputs (np.clip(x, -T, T), or
    np.minimum(x, T), to keep np.exp from overflowing) instead of the max shift. Probed on
    pairs [t, t + 1]: right below T, uniform above it, and in between the cap itself reads
    off the weights (T = t + ln(w1 / w0)); named when the learner's result on ``x`` is the
    softmax of x capped at that T. "" otherwise."""
    top = float(np.nanmax(np.where(np.isfinite(x), x, -np.inf))) if x.size else 0.0
    if not np.isfinite(top) or top < 20.0:
        return ""
    ladder = [t for t in (10.0, 30.0, 80.0, 200.0, 500.0, 700.0, 1000.0, 3000.0) if t < top]
    ladder.append(top)
    low = None
    for t in ladder:
        w = _softmax_pair_weight(softmax, t)
        if w is None:
            return ""
        if abs(w - _PAIR_WEIGHT) < 1e-6:
            low = t
            continue
        if abs(w - 0.5) > 1e-9 or low is None:
            return ""  # not saturated: another mistake
        high = t
        break
    else:
        return ""
    cap = None
    for _ in range(80):
        mid = (low + high) / 2.0
        w = _softmax_pair_weight(softmax, mid)
        if w is None:
            return ""
        if abs(w - _PAIR_WEIGHT) < 1e-9:
            low = mid
        elif abs(w - 0.5) < 1e-12:
            high = mid
        elif 0.5 < w < _PAIR_WEIGHT:
            cap = mid + math.log(w / (1.0 - w))
            break
        else:
            return ""
    if cap is None:
        cap = high  # the jump itself: t + 1 reached the cap where t did
    shown = f"{round(cap):g}" if abs(cap - round(cap)) < 1e-6 * max(1.0, abs(cap)) else f"{cap:.6g}"
    with np.errstate(all="ignore"):
        capped = np.minimum(x, cap)
        exps = np.exp(capped - np.max(capped, axis=axis, keepdims=True))
        model = exps / np.sum(exps, axis=axis, keepdims=True)
    if model.shape != got.shape or not np.allclose(got, model, rtol=1e-5, atol=1e-8):
        return ""
    return (
        f"Your softmax treats every input above {shown} as {shown}: softmax([t, t + 1]) is "
        f"right for small t but comes out uniform, [0.5, 0.5], once both entries pass "
        f"{shown}. The inputs were capped (np.clip(x, -{shown}, {shown}), or np.minimum) to "
        "keep np.exp from overflowing, so the large entries of a slice all weigh the same. "
        "Subtract each slice's maximum instead, np.exp(x - np.max(x, axis=axis, "
        "keepdims=True)): the result does not change, and the largest exponent is exp(0) = 1."
    )


def _uniform_by_last_axis(rows: np.ndarray, x: np.ndarray, axis: int) -> str:
    """Name uniform weights sized by the last axis on an all -inf slice along another axis."""
    length, last = x.shape[axis], x.shape[-1]
    if length == last or not np.allclose(rows, 1.0 / last, atol=1e-5):
        return ""
    return (
        f"Those are uniform weights 1/{last} = 1 / x.shape[-1], the length of the last axis, "
        f"instead of 1 / x.shape[axis] = 1/{length}: along axis={axis} the slice has {length} "
        f"entries, so they add up to {length / last:.3g}, not 1. "
    )


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
                hints=[
                    *_SOFTMAX_HINTS.items(),
                    (
                        lambda exc, x=x: x.ndim > 1 and bool(_ONE_VECTOR_ERRORS.search(str(exc))),
                        lambda exc: _one_vector_hint(c, softmax, exc),
                    ),
                ],
                mutation_hint=_SOFTMAX_INPLACE,
            )
            warned = list(c.last_warnings)  # this call's, before other calls replace them
            axis = -1 if axis is None else axis
            what = f"{shown} on {label}"
            if got is None and x.ndim > 2:
                some_dims = _dims_handled(c, softmax)
                if some_dims:
                    c.fail(f"{what} returned None. {some_dims}")
            c.expect_type(
                got,
                np.ndarray,
                what,
                "Return a numpy array (np.exp and np.sum on a numpy input give one; "
                "convert a torch result back with .numpy()).",
            )
            expected = ref.softmax(x, axis=axis)
            c.expect_shape(
                got,
                x.shape,
                what,
                " ".join(
                    filter(
                        None,
                        (
                            promoted_vector_note(
                                partial(_quiet_call, softmax, **call_args), x, got
                            ),
                            _moved_axis_hint(got, expected, axis),
                        ),
                    )
                ),
            )
            c.expect_floating(got, f"{what}: your result", preferred=x.dtype)
            got64 = np.asarray(got, dtype=np.float64)
            dead = np.broadcast_to(np.all(np.isneginf(x), axis=axis, keepdims=True), x.shape)
            if dead.any():
                rows = got64[dead]
                if not np.allclose(rows, 0.0, atol=1e-6) and not np.allclose(
                    rows, 1.0 / x.shape[axis], atol=1e-5
                ):
                    unwritten = _softmax_unwritten(softmax, x, axis, call_args, dead, warned)
                    if unwritten:
                        c.fail(
                            f"{what} gives the slice that is all -inf the values "
                            f"{short(rows)}. {unwritten}"
                        )
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
                        f"{_uniform_by_last_axis(rows, x, axis)}{_SOFTMAX_ALL_NEG_INF}"
                    )
                c.ok()
            if (
                np.isfinite(expected).all()
                and not np.isfinite(got64).all()
                and _overflows_like_no_max(got64, x, axis)
            ):
                c.fail(f"{what} is not what the reference gives. {_SOFTMAX_NO_MAX}{nan_hint}")
            if not call_args and not (
                got64.shape == expected.shape
                and np.allclose(got64, expected, atol=1e-6, equal_nan=True)
            ):
                default = wrong_default(
                    lambda x=x, shown=shown: c.call(
                        softmax, x.copy(), axis=-1, call_repr=shown[:-1] + ", axis=-1)"
                    ),
                    lambda result, expected=expected: (
                        np.shape(result) == expected.shape
                        and np.allclose(np.asarray(result, dtype=np.float64), expected, atol=1e-6)
                    ),
                    "axis",
                    -1,
                )
                if default:
                    c.fail(f"{what} is not what the reference gives. {default}")
            both = _softmax_axis_and_global_max(c, softmax, got64, x, axis)
            if both:
                c.fail(f"{what} is not what the reference gives. {both}")
            shift = _softmax_global_or_clamped(c, softmax, got64, x, axis)
            if shift:
                c.fail(f"{what} is not what the reference gives. {shift}")
            if np.isfinite(expected).all():
                other_shift = _softmax_shift_not_max(got64, x, axis)
                if other_shift:
                    c.fail(f"{what} is not what the reference gives. {other_shift}")
            if transposed := _axis_by_transpose_note(softmax, got64, x, axis):
                c.fail(f"{what} is not what the reference gives. {transposed}")
            c.expect_close(
                got,
                expected,
                what,
                **tolerance(got.dtype, x.dtype),
                hint=nan_hint if not np.isfinite(got64).all() else _softmax_explain(got64, x, axis),
                mistakes=_softmax_mistakes(x, axis),
                pairs=_softmax_pairs(x, axis),
                explain=lambda got64=got64, x=x, axis=axis, call_args=call_args, expected=(expected), warned=warned: (
                    _softmax_explain_wrong(c, softmax, got64, x, axis, call_args, expected, warned)
                ),
            )
