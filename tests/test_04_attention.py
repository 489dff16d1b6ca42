"""Lesson 04: the checks reject classic mistakes with the intended message (visible and
hidden), accept correct variants (including the way well-known sources write them),
and the reference agrees with independent oracles (PyTorch's own attention and
softmax, nn.MultiheadAttention with one head, a dense float64 formula, a scipy-free
logsumexp, numbers worked by hand in the lesson). Also: the lesson's text keeps its
facts straight, and learner tracebacks show only the learner's own frames.

What every exercise gets anyway (stub, reference, random state, determinism, inputs
changed in place, non-contiguous results, headers) is in tests/test_exercises.py.
"""

from __future__ import annotations

import math
import re
import tomllib

import jupytext
import numpy as np
import pytest
import torch
import torch.nn.functional as F
from common import Correct, Mistake, lesson_tests
from torch import nn

from transformer_course.build import REPO
from transformer_course.checking import CheckFailure
from transformer_course.checks.attention import (
    QUIZZES,
    check_attention_row,
    check_scaled_dot_product_attention,
    check_softmax,
)
from transformer_course.reference import attention as ref

NEG_INF = float("-inf")
MASTER = REPO / "solutions" / "04_attention" / "04_attention.py"


# ===================================================================== softmax: mistakes
def sm_no_max(x, axis=-1):  # d2l's first softmax: no shift
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def sm_global_max(x, axis=-1):
    e = np.exp(x - np.max(x))
    return e / e.sum(axis=axis, keepdims=True)


def sm_fixed_axis(x, axis=-1):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def sm_max_wrong_axis(x, axis=-1):  # max along axis, but the sum ignores it
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)


def sm_max_last_axis(x, axis=-1):  # the sum along axis, the max always along the last
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def sm_not_normalised(x, axis=-1):
    return np.exp(x - x.max(axis=axis, keepdims=True))


def sm_whole_array(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum()


def sm_no_keepdims(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis)


def sm_nan_on_all_neg_inf(x, axis=-1):  # the CS231n-style softmax, without the -inf case
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def sm_dead_fix_on_last_axis(x, axis=-1):
    """Handles an all -inf slice, but only along the last axis."""
    dead = np.isneginf(x).all(axis=-1, keepdims=True)
    safe = np.where(dead, 0.0, x)
    e = np.exp(safe - safe.max(axis=axis, keepdims=True))
    return np.where(dead, 0.0, e / e.sum(axis=axis, keepdims=True))


def sm_in_place(x, axis=-1):
    x -= np.where(np.isfinite(m := x.max(axis=axis, keepdims=True)), m, 0.0)
    return ref.softmax(x, axis=axis)


def sm_torch_tensor(x, axis=-1):
    return torch.softmax(torch.from_numpy(x), dim=axis)


def sm_list(x, axis=-1):
    return ref.softmax(x, axis=axis).tolist()


def sm_integer(x, axis=-1):
    return (ref.softmax(x, axis=axis) * 100).astype(np.int64)


def sm_global_max_guarded(x, axis=-1):  # one max for the array, 0/0 guarded: zeros, no NaN
    e = np.exp(x - np.max(x))
    s = e.sum(axis=axis, keepdims=True)
    return np.divide(e, s, out=np.zeros_like(e), where=s > 0)


def sm_shift_clamped_at_zero(x, axis=-1):  # max(0, slice max): negative slices underflow
    peak = np.maximum(np.max(x, axis=axis, keepdims=True), 0.0)
    e = np.exp(x - peak)
    s = e.sum(axis=axis, keepdims=True)
    return np.divide(e, s, out=np.zeros_like(e), where=s > 0)


def sm_shift_clamped_at_zero_nan(x, axis=-1):  # the same, 0 / 0 left as NaN
    e = np.exp(x - np.maximum(np.max(x, axis=axis, keepdims=True), 0.0))
    return e / e.sum(axis=axis, keepdims=True)


def sm_global_max_without_keepdims(x, axis=-1):  # two mistakes at once
    e = np.exp(x - np.max(x))
    return e / e.sum(axis=axis)


def sm_log_softmax(x, axis=-1):  # log-probabilities, not weights
    peak = np.max(x, axis=axis, keepdims=True)
    return x - peak - np.log(np.sum(np.exp(x - peak), axis=axis, keepdims=True))


def sm_shift_reversed(x, axis=-1):  # exp(max - x): the softmax of -x
    e = np.exp(np.max(x, axis=axis, keepdims=True) - x)
    return e / e.sum(axis=axis, keepdims=True)


def _sm_shifted_by(reduce):
    """A softmax that subtracts another statistic of each slice than its maximum: right
    wherever exp() does not overflow, NaN on slices that span more than about 709."""

    def softmax(x, axis=-1):
        e = np.exp(x - reduce(x, axis))
        return e / e.sum(axis=axis, keepdims=True)

    return softmax


sm_shift_by_min = _sm_shifted_by(lambda x, axis: np.min(x, axis=axis, keepdims=True))
sm_shift_by_mean = _sm_shifted_by(lambda x, axis: np.mean(x, axis=axis, keepdims=True))
sm_shift_by_median = _sm_shifted_by(lambda x, axis: np.median(x, axis=axis, keepdims=True))
sm_shift_by_first = _sm_shifted_by(lambda x, axis: np.take(x, [0], axis=axis))
# no model for this one: the case's hint says what every shift but the maximum does
sm_shift_by_last = _sm_shifted_by(lambda x, axis: np.take(x, [-1], axis=axis))


def sm_max_without_keepdims(x, axis=-1):
    e = np.exp(x - x.max(axis=axis))
    return e / e.sum(axis=axis, keepdims=True)


def sm_global_max_axis_0(x, axis=-1):
    """Two mistakes at once (a well-known Stack Overflow answer's form): one maximum for
    the whole array, and the sum along axis 0 whatever `axis` says."""
    e = np.exp(x - np.max(x))
    return e / e.sum(axis=0)


def sm_axis_one(x, axis=-1):  # hard-coded axis=1 breaks on a 1-D vector
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


OVERFLOW = r"overflows to inf.*Subtract the maximum of each slice"
DEAD_NAN = r"every entry is -inf.*Yours is NaN"


def sm_axis_moved_not_back(x, axis=-1):  # np.moveaxis to the end, never moved back
    x = np.moveaxis(x, axis, -1)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def sm_max_not_added_back(x, axis=-1):  # exp(x - lse), the lse without its max
    peak = np.max(x, axis=axis, keepdims=True)
    peak = np.where(np.isfinite(peak), peak, 0.0)
    with np.errstate(divide="ignore"):
        lse = np.log(np.sum(np.exp(x - peak), axis=axis, keepdims=True))
    return np.exp(x - np.where(np.isfinite(lse), lse, 0.0))


def sm_neg_inf_as_zero(x, axis=-1):  # -inf replaced by 0 "to avoid NaN"
    return ref.softmax(np.where(np.isneginf(x), 0.0, x), axis=axis)


# blind round 11: a signature default that is not the contract's (told apart by the same
# call with axis=-1 passed explicitly), and the temperature family softmax(t·x)
def sm_default_axis_0(x, axis=0):
    return ref.softmax(x, axis=axis)


def sm_default_axis_none(x, axis=None):  # np.max/np.sum over the whole array by default
    peak = np.max(x, axis=axis, keepdims=True)
    peak = np.where(np.isfinite(peak), peak, 0.0)
    exps = np.exp(x - peak)
    total = np.sum(exps, axis=axis, keepdims=True)
    return np.divide(exps, total, out=np.zeros_like(exps), where=total > 0)


def sm_base_2(x, axis=-1):  # 2 ** x where np.exp belongs
    peak = np.max(x, axis=axis, keepdims=True)
    peak = np.where(np.isfinite(peak), peak, 0.0)
    exps = np.power(2.0, x - peak)
    total = np.sum(exps, axis=axis, keepdims=True)
    return np.divide(exps, total, out=np.zeros_like(exps), where=total > 0)


def sm_uniform_fill_sized_by_last_axis(x, axis=-1):  # 1 / n with n the last axis's length
    shifted = x - np.max(x, axis=axis, keepdims=True)
    with np.errstate(invalid="ignore"):
        weights = np.exp(shifted) / np.exp(shifted).sum(axis=axis, keepdims=True)
    return np.nan_to_num(weights, nan=1.0 / x.shape[-1])


def sm_halved(x, axis=-1):  # a temperature of 2 applied to every input
    return ref.softmax(x / 2, axis=axis)


def sm_clipped_logits(x, axis=-1):  # uniform on large logits: no factor of x is claimed
    return ref.softmax(np.clip(x, -50.0, 50.0), axis=axis)


def sm_times_three(x, axis=-1):  # a factor no name explains: the factor said
    return ref.softmax(3.0 * x, axis=axis)


def sm_quiet_softmax(x, axis=-1):  # softmax1: one more (zero) logit in the denominator
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / (e.sum(axis=axis, keepdims=True) + 1)


def sm_capped_below_overflow(x, axis=-1):  # np.minimum at 700, just below exp's overflow
    e = np.exp(np.minimum(x, 700.0))
    return e / e.sum(axis=axis, keepdims=True)


def sm_loop_over_entries(x, axis=-1):  # written for one vector, a list out
    top = max(v for v in x if not math.isinf(v))
    out = [math.exp(v - top) for v in x]
    return [v / math.fsum(out) for v in out]


def sm_if_on_the_peak(x, axis=-1):  # right on 1-D; `if` on a whole array of maxima
    peak = np.max(x, axis=axis, keepdims=True)
    if peak == -np.inf:
        peak = 0.0
    e = np.exp(x - peak)
    return e / np.sum(e, axis=axis, keepdims=True)


def sm_matrix_or_vector_only(x, axis=-1):  # a branch per ndim, none for 3-D
    if x.ndim == 1:
        return ref.softmax(x)
    if x.ndim == 2:
        return np.apply_along_axis(ref.softmax, axis, x)
    return None


def sm_squeezed_to_tidy(x, axis=-1):  # every axis of size 1 dropped from the result
    shifted = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return np.squeeze(shifted / shifted.sum(axis=axis, keepdims=True))


def sm_two_decimals_for_display(x, axis=-1):  # weights rounded for a tidy printout
    return ref.softmax(x, axis=axis).round(2)


SOFTMAX_MISTAKES = [
    Mistake(check_softmax, sm_two_decimals_for_display, r"softmax rounded to 2 decimal"),
    # blind round 17: a bare squeeze of the result; a batch of one row shows it
    Mistake(check_softmax, sm_squeezed_to_tidy, r"of length 1 \(?.{0,12}dropped.{0,30}squeeze"),
    Mistake(
        check_softmax,
        sm_matrix_or_vector_only,
        r"-D input.* returned None\. On a 1-D and a 2-D input your softmax returns arrays: it "
        r"handles those numbers of dims only",
    ),
    # blind round 15: the 'plus one' denominator; a softmax written for one vector
    Mistake(check_softmax, sm_quiet_softmax, r"exp\(x - max\) / \(1 \+ sum\): a 1 added"),
    Mistake(
        check_softmax,
        sm_capped_below_overflow,
        r"treats every input above 700 as 700.*capped.*Subtract each slice's maximum",
    ),
    Mistake(
        check_softmax,
        sm_loop_over_entries,
        r"(truth value|0-dimensional).*\nOn a 1-D vector your softmax returns a Python list: it is written for "
        r"one vector only",
    ),
    Mistake(
        check_softmax,
        sm_if_on_the_peak,
        r"truth value.*\nYour softmax is right on a 1-D vector.*`if peak == -inf`",
    ),
    Mistake(check_softmax, sm_default_axis_0, r"default of `axis` in your signature is not -1"),
    Mistake(check_softmax, sm_default_axis_none, r"default of `axis` in your signature is not -1"),
    Mistake(check_softmax, sm_base_2, r"times 0\.6931.*ln 2: the exponential in base 2"),
    Mistake(check_softmax, sm_clipped_logits, r"^(?!(?s:.*)softmax of x times)(?s:.*)large logits"),
    Mistake(check_softmax, sm_halved, r"times 0\.5: exp\(0\.5·x\).*the scores halved"),
    Mistake(
        check_softmax,
        sm_uniform_fill_sized_by_last_axis,
        r"uniform weights 1/\d = 1 / x\.shape\[-1\], the length of the last axis, instead of "
        r"1 / x\.shape\[axis\] = 1/\d",
    ),
    Mistake(
        check_softmax, sm_times_three, r"softmax of x times 3: exp\(3·x\) where exp\(x\) belongs\."
    ),
    Mistake(check_softmax, sm_max_not_added_back, r"softmax times exp\(max\).*dropped the max"),
    Mistake(check_softmax, sm_neg_inf_as_zero, r"-inf entries get weight: they were treated as 0"),
    Mistake(
        check_softmax,
        sm_axis_moved_not_back,
        r"the right softmax, with axis -?\d+ moved to the end.*never moved it back",
    ),
    Mistake(check_softmax, sm_no_max, r"maximum is not subtracted.*" + OVERFLOW),
    Mistake(check_softmax, sm_max_without_keepdims, r"maximum without keepdims=True"),
    Mistake(check_softmax, sm_global_max, r"one maximum for the whole array"),
    Mistake(check_softmax, sm_global_max_guarded, r"one maximum for the whole array.*come out 0"),
    Mistake(check_softmax, sm_log_softmax, r"log-softmax.*exponential"),
    Mistake(check_softmax, sm_shift_by_min, r"shifts each slice by its minimum"),
    Mistake(check_softmax, sm_shift_by_mean, r"shifts each slice by its mean instead"),
    Mistake(check_softmax, sm_shift_by_median, r"shifts each slice by its median instead"),
    Mistake(check_softmax, sm_shift_by_first, r"shifts each slice by its first entry"),
    Mistake(
        check_softmax,
        sm_shift_by_last,
        r"^(?!.*shifts each slice by)(?s:.*)span about 2200.*only the slice's own maximum",
    ),
    Mistake(
        check_softmax,
        sm_global_max_without_keepdims,
        r"Two mistakes at once\. \(1\) The shift before exp is not each slice's own maximum.*"
        r"\(2\).*without keepdims=True",
    ),
    Mistake(check_softmax, sm_shift_reversed, r"softmax of -x.*exp\(max - x\)"),
    # blind round 10: on rows around +1000 and -1000 a shift clamped at 0 looks like one
    # global maximum; rows that all live around -1000 part them
    Mistake(
        check_softmax,
        sm_shift_clamped_at_zero,
        r"^(?!.*one maximum for the whole array)(?s:.*)shift never goes below 0.*"
        r"np\.maximum\(peak, 0\)",
    ),
    Mistake(
        check_softmax,
        sm_shift_clamped_at_zero_nan,
        r"^(?!.*one maximum for the whole array)(?s:.*)shift never goes below 0",
    ),
    Mistake(check_softmax, sm_fixed_axis, r"normalised along axis .* instead of axis="),
    Mistake(
        check_softmax,
        sm_max_wrong_axis,
        r"sum taken along axis -2 while the max is taken along axis=-1",
    ),
    Mistake(
        check_softmax,
        sm_max_last_axis,
        r"max taken along axis -1 while the sum is taken along axis=-?\d",
    ),
    Mistake(
        check_softmax,
        sm_global_max_axis_0,
        r"Two mistakes at once\. \(1\).*normalised along axis -2.*\(2\).*one maximum for the whole",
    ),
    Mistake(
        check_softmax,
        sm_not_normalised,
        r"Your result is exp\(x - max\).*never divided by their sum, or .*divided by their "
        r"maximum",
    ),
    Mistake(check_softmax, sm_whole_array, r"add up to 1 over the whole array"),
    Mistake(check_softmax, sm_no_keepdims, r"keepdims=True"),
    Mistake(check_softmax, sm_nan_on_all_neg_inf, DEAD_NAN),
    Mistake(check_softmax, sm_dead_fix_on_last_axis, DEAD_NAN),
    Mistake(check_softmax, sm_in_place, r"changed its argument `x` in place.*x -= x.max"),
    Mistake(check_softmax, sm_torch_tensor, r"should be a ndarray.*numpy array"),
    Mistake(check_softmax, sm_list, r"should be a ndarray"),
    Mistake(check_softmax, sm_integer, r"should hold floating-point numbers"),
    Mistake(
        check_softmax,
        sm_axis_one,
        r"(?s)out of bounds.*any number of dims.*axis=axis|hard-code the axis",
    ),
]


# ====================================================================== softmax: correct
def sm_textbook(x, axis=-1):
    m = np.max(x, axis=axis, keepdims=True)
    e = np.exp(x - np.where(np.isfinite(m), m, 0.0))
    s = e.sum(axis=axis, keepdims=True)
    return np.divide(e, s, out=np.zeros_like(e), where=s > 0)


def sm_logsumexp(x, axis=-1):
    """scipy.special.softmax's route, without scipy: exp(x - logsumexp(x))."""
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        lse = m + np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))
    with np.errstate(invalid="ignore"):
        out = np.exp(x - lse)
    return np.nan_to_num(out, nan=0.0).astype(x.dtype)


def sm_moveaxis_loop(x, axis=-1):
    moved = np.moveaxis(x, axis, -1)
    out = np.zeros_like(moved)
    for index in np.ndindex(moved.shape[:-1]):
        row = moved[index]
        if np.isneginf(row).all():
            continue
        e = np.exp(row - row.max())
        out[index] = e / e.sum()
    return np.moveaxis(out, -1, axis)


def sm_via_torch(x, axis=-1):
    y = torch.softmax(torch.from_numpy(np.ascontiguousarray(x)), dim=axis)
    return torch.nan_to_num(y, nan=0.0).numpy()


def sm_nan_to_num(x, axis=-1):
    with np.errstate(invalid="ignore"):
        e = np.exp(x - np.max(x, axis=axis, keepdims=True))
        out = e / np.sum(e, axis=axis, keepdims=True)
    return np.nan_to_num(out, nan=0.0)


def sm_finite_fill(x, axis=-1):
    """-inf replaced by -1e9: an all -inf slice comes out uniform (accepted with a note)."""
    x = np.where(np.isneginf(x), -1e9, x)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def sm_finfo_min(x, axis=-1):
    """-inf replaced by the most negative number of the dtype (uniform on dead slices)."""
    x = np.maximum(x, np.finfo(x.dtype).min)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def sm_upcast(x, axis=-1):
    """Computes and returns float64 even for float32 input (accepted with a note)."""
    return ref.softmax(np.asarray(x, dtype=np.float64), axis=axis)


def sm_in_place_on_a_copy(x, axis=-1):
    """In-place operations are fine on an array the function made itself."""
    y = np.array(x, copy=True)
    peak = y.max(axis=axis, keepdims=True)
    y -= np.where(np.isfinite(peak), peak, 0.0)
    np.exp(y, out=y)
    total = y.sum(axis=axis, keepdims=True)
    np.divide(y, total, out=y, where=total > 0)
    return y


def sm_apply_along_axis(x, axis=-1):
    def one(row):
        if np.isneginf(row).all():
            return np.zeros_like(row)
        e = np.exp(row - row.max())
        return e / e.sum()

    return np.apply_along_axis(one, axis, x)


SOFTMAX_CORRECT = [
    Correct(check_softmax, fn)
    for fn in (
        sm_textbook,
        sm_logsumexp,
        sm_moveaxis_loop,
        sm_nan_to_num,
        sm_finite_fill,
        sm_finfo_min,
        sm_upcast,
        sm_in_place_on_a_copy,
        sm_apply_along_axis,
        ref.softmax,
    )
]


# ================================================================ attention_row: mistakes
def _row(query, keys, values, *, scale=None, weights_fn=None):
    scale = math.sqrt(query.shape[-1]) if scale is None else scale
    scores = keys @ query / scale
    weights = ref.softmax(scores) if weights_fn is None else weights_fn(scores)
    return weights, weights @ values


def r_no_scaling(query, keys, values):
    return _row(query, keys, values, scale=1.0)


def r_by_number_of_words(query, keys, values):
    return _row(query, keys, values, scale=len(keys))


def r_by_d_k(query, keys, values):
    return _row(query, keys, values, scale=query.shape[-1])


def r_query_and_keys_scaled(query, keys, values):  # both divided by √d_k: / d_k in all
    root = math.sqrt(query.shape[-1])
    weights = ref.softmax((keys / root) @ (query / root))  # (len_k,)
    return weights, weights @ values


def r_times_sqrt_d_k(query, keys, values):
    return _row(query, keys, values, scale=1 / math.sqrt(query.shape[-1]))


def r_by_sqrt_len_k(query, keys, values):
    return _row(query, keys, values, scale=math.sqrt(len(keys)))


def r_scaled_after_softmax(query, keys, values):
    return _row(
        query, keys, values, scale=1.0, weights_fn=lambda s: ref.softmax(s) / math.sqrt(len(query))
    )


def r_no_softmax(query, keys, values):
    return _row(query, keys, values, weights_fn=lambda s: s)


def r_no_scaling_no_softmax(query, keys, values):
    return _row(query, keys, values, scale=1.0, weights_fn=lambda s: s)


def r_sum_normalised(query, keys, values):
    return _row(query, keys, values, weights_fn=lambda s: s / s.sum())


def r_scores_negated(query, keys, values):  # softmax(max - scores): the sign flipped
    return _row(query, keys, values, weights_fn=lambda s: ref.softmax(s.max() - s))


def r_argmax(query, keys, values):
    return _row(query, keys, values, weights_fn=lambda s: np.eye(len(s))[np.argmax(s)])


def r_exp_not_normalised(query, keys, values):
    return _row(query, keys, values, weights_fn=np.exp)


def r_naive_exp(query, keys, values):
    return _row(query, keys, values, weights_fn=lambda s: np.exp(s) / np.exp(s).sum())


def r_output_from_keys(query, keys, values):
    weights, _ = _row(query, keys, values)
    return weights, weights @ keys


def r_output_mean(query, keys, values):
    weights, _ = _row(query, keys, values)
    return weights, values.mean(axis=0)


def r_output_from_scores(query, keys, values):
    scores = keys @ query / math.sqrt(query.shape[-1])
    return ref.softmax(scores), scores @ values


def r_values_times_weights(query, keys, values):
    weights, _ = _row(query, keys, values)
    return weights, values @ weights


def r_no_sum(query, keys, values):
    weights, _ = _row(query, keys, values)
    return weights, weights[:, None] * values


def r_len_k_scale_not_normalised(query, keys, values):  # two mistakes at once
    scores = keys @ query / math.sqrt(len(keys))
    weights = np.exp(scores - scores.max())
    return weights, weights @ values


def r_weighted_mean(query, keys, values):  # mean over the keys of the weighted values
    weights, _ = _row(query, keys, values)
    return weights, (weights[:, None] * values).mean(axis=0)


def r_swapped_order(query, keys, values):
    weights, output = _row(query, keys, values)
    return output, weights


def r_in_place(query, keys, values):
    query /= math.sqrt(query.shape[-1])
    return _row(query, keys, values, scale=1.0)


def r_torch(query, keys, values):
    weights, output = _row(query, keys, values)
    return torch.from_numpy(weights), torch.from_numpy(output)


def r_weights_2d(query, keys, values):
    weights = ref.softmax(query[None, :] @ keys.T / math.sqrt(query.shape[-1]))  # (1, len_k)
    return weights, (weights @ values)[0]


def r_output_summed_to_scalar(query, keys, values):  # np.sum without axis
    weights = ref.softmax(keys @ query / math.sqrt(query.shape[-1]))
    return weights, np.sum(weights[:, None] * values)


def r_output_column_squeezed(query, keys, values):  # a (d_v, 1) column, every size-1 axis dropped
    weights = ref.softmax(keys @ query / math.sqrt(query.shape[-1]))
    return weights, (values.T @ weights[:, None]).squeeze()  # (d_v,), but () when d_v = 1


def r_weights_row_squeezed(query, keys, values):  # a (1, len_k) row, every size-1 axis dropped
    weights = ref.softmax(query[None, :] @ keys.T / math.sqrt(query.shape[-1])).squeeze()
    return weights, (weights[..., None] * values).sum(axis=0)  # weights () when len_k = 1


def r_softmax_per_score(query, keys, values):  # normalised along a (len_k, 1) column's rows
    scores = (keys @ query / math.sqrt(query.shape[-1]))[:, np.newaxis]  # (len_k, 1)
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights = (e / e.sum(axis=1, keepdims=True)).ravel()  # all 1
    return weights, weights @ values


def _unit(x):
    with np.errstate(all="ignore"):
        return x / np.linalg.norm(x, axis=-1, keepdims=True)


def r_cosine_scores(query, keys, values):  # cosine similarity (0 / 0 for a zero key)
    weights = ref.softmax(_unit(keys) @ _unit(query) / math.sqrt(query.shape[-1]))
    return weights, weights @ values


def r_cosine_scores_guarded(query, keys, values):  # the same, zero vectors kept at 0
    def unit(x):
        return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)

    weights = ref.softmax(unit(keys) @ unit(query))
    return weights, weights @ values


# blind round 11: the temperature family in the row (a factor measured, named when its
# ratio to 1/√d_k is a known one), softmax applied twice, one array returned
def r_base_2_softmax(query, keys, values):
    scores = keys @ query / math.sqrt(query.shape[-1])
    exps = np.power(2.0, scores - scores.max())
    weights = exps / exps.sum()
    return weights, weights @ values


def r_scores_times_five(query, keys, values):
    weights = ref.softmax(keys @ query * 5.0)
    return weights, weights @ values


def r_softmax_twice(query, keys, values):
    weights = ref.softmax(ref.softmax(keys @ query / math.sqrt(query.shape[-1])))
    return weights, weights @ values


def r_divided_by_two(query, keys, values):  # √d_v = 2 on the drank input: confirmed apart
    weights = ref.softmax(keys @ query / 2.0)
    return weights, weights @ values


def r_weights_as_column(query, keys, values):  # (len_k, 1) weights, broadcast on the values
    scores = keys @ query[:, None] / np.sqrt(len(query))  # (len_k, 1)
    weights = np.exp(scores - scores.max()) / np.exp(scores - scores.max()).sum()  # (len_k, 1)
    return weights, (values * weights).sum(axis=0)  # (len_k, 1), (d_v,)


def r_output_only(query, keys, values):
    return ref.attention_row(query, keys, values)[1]


def r_query_as_residual(query, keys, values):  # a residual inside attention: + query
    weights = ref.softmax(keys @ query / math.sqrt(query.shape[-1]))  # (len_k,)
    return weights, np.add(values.T @ weights, query)  # (d_v,) + (d_k,)


def r_integer_output_buffer(query, keys, values):  # float products into an int32 array
    weights = ref.softmax(keys @ query / math.sqrt(query.shape[-1]))  # (len_k,)
    output = np.zeros_like(values[0], dtype=np.int32)  # (d_v,)
    for weight, row in zip(weights, values, strict=True):
        output += weight * row
    return weights, output


ROW = check_attention_row
ROW_MISTAKES = [
    # blind round 17: the query added to the output; an integer accumulator
    Mistake(ROW, r_query_as_residual, r"met one of \d+ \(d_k.*residual connection"),
    Mistake(ROW, r_integer_output_buffer, r"Float results were written into an integer array"),
    Mistake(ROW, r_base_2_softmax, r"a factor 0\.6931 off\): the scaled scores times ln 2"),
    Mistake(
        ROW, r_scores_times_five, r"scores are multiplied by 5 \(divided by 0\.2\) where 1/√d_k"
    ),
    Mistake(ROW, r_divided_by_two, r"^(?!(?s:.*)√d_v)(?s:.*)multiplied by 0\.5 \(divided by 2\)"),
    Mistake(ROW, r_softmax_twice, r"softmax of the softmax: your softmax was applied twice"),
    Mistake(ROW, r_output_only, r"one array of shape \(\d+,\): the output alone"),
    Mistake(
        ROW,
        r_weights_as_column,
        r"shape \((\d+), 1\)\. .*kept as a \(\1, 1\) column \(len_k, 1\).*instead of a \(\1,\) vector",
    ),
    Mistake(ROW, r_scores_negated, r"softmax of the negated scores.*most similar.*smallest"),
    # blind round 10: cosines for scores; the zero keys of the visible sentence give NaN
    # scores, and a probe without them tells the cosine
    Mistake(
        ROW,
        r_cosine_scores,
        r"^(?!.*never stored)(?s:.*)weights match a softmax of cosine similarities: the query "
        r"and every key.*then scaled by √d_k",
    ),
    Mistake(ROW, r_cosine_scores_guarded, r"softmax of cosine similarities.*with no √d_k"),
    Mistake(ROW, r_output_summed_to_scalar, r"It is a single number: a sum with no axis"),
    Mistake(ROW, r_no_scaling, r"no scaling.*√d_k"),
    Mistake(ROW, r_by_number_of_words, r"the number of keys \(words\).*not the number of words"),
    Mistake(ROW, r_by_d_k, r"divided by d_k = \d+ instead of by sqrt\(d_k\) = √\d+"),
    Mistake(ROW, r_query_and_keys_scaled, r"divided by d_k = \d+ .*each divided by √d_k"),
    Mistake(ROW, r_times_sqrt_d_k, r"multiplied by sqrt\(d_k\) = √\d+ instead of divided"),
    Mistake(ROW, r_by_sqrt_len_k, r"square root of the number of keys"),
    Mistake(ROW, r_scaled_after_softmax, r"divided by √d_k = √\d+ afterwards.*before the softmax"),
    Mistake(ROW, r_no_softmax, r"scores themselves, without the softmax.*not optional"),
    Mistake(ROW, r_no_scaling_no_softmax, r"raw scores, without the softmax"),
    Mistake(ROW, r_sum_normalised, r"divided by their sum.*not a softmax"),
    Mistake(ROW, r_argmax, r"one-hot.*argmax, not attention"),
    Mistake(ROW, r_exp_not_normalised, r"without dividing by their sum"),
    Mistake(
        ROW,
        r_naive_exp,
        r"^(?!.*NaN or inf \(first).*exp\(scores\) / sum\(exp\(scores\)\) computed as written.*"
        r"overflows to inf",
    ),
    Mistake(ROW, r_output_from_keys, r"mixes the \*values\*, not the keys"),
    Mistake(ROW, r_output_mean, r"plain mean of the value rows"),
    Mistake(
        ROW,
        r_len_k_scale_not_normalised,
        r"Two mistakes at once\. \(1\) Your weights are scores divided by √\d+, the square "
        r"root of the number of keys.*\(2\).*without dividing by their sum",
    ),
    Mistake(ROW, r_weighted_mean, r"weighted sum divided by len_k = \d+: a mean over the keys"),
    Mistake(ROW, r_output_from_scores, r"mixes the values with the scores"),
    Mistake(ROW, r_values_times_weights, r"(?s)raised ValueError.*weights @ values"),
    Mistake(ROW, r_no_sum, r"output should have shape.*weighted sum over the keys"),
    Mistake(ROW, r_swapped_order, r"return \(weights, output\), in that order"),
    Mistake(ROW, r_in_place, r"changed its argument `query` in place.*query /= np.sqrt"),
    Mistake(ROW, r_torch, r"should be a ndarray.*numpy arrays"),
    Mistake(ROW, r_weights_2d, r"weights should have shape.*Squeeze"),
    Mistake(ROW, r_softmax_per_score, r"Every one of your weights is 1.*axis of size 1"),
    # blind round 15: a squeeze with no axis also drops d_v = 1 (len_k = 1: hidden only)
    Mistake(
        ROW,
        r_output_column_squeezed,
        r"d_v = 1\).*output should have shape \(1,\), but it has shape \(\)\. Your output is "
        r"a 0-d array.*squeeze with no axis",
    ),
    Mistake(
        ROW,
        r_weights_row_squeezed,
        r"^(?!.*Squeeze the extra dim).*weights is a 0-d array \(shape \(\)\), here where "
        r"len_k = 1: a squeeze with no axis",
        hidden_only=True,
    ),
]


def test_row_nan_scores_from_zero_keys_are_explained_not_blamed_on_a_missing_write():
    """The visible sentence has two zero keys: cosines make their scores 0 / 0 = NaN and
    the softmax's weights all 0. The message says so (not "nothing is ever written") and
    names the cosine from a probe without those keys (blind round 10)."""
    with pytest.raises(CheckFailure) as failure:
        check_attention_row(r_cosine_scores)
    message = str(failure.value)
    assert "never stored" not in message
    assert re.search(
        r"weights are all 0.*Keys 0, 4 are zero vectors.*Without those keys: Your weights "
        r"match a softmax of cosine similarities",
        message,
    ), message


# ================================================================= attention_row: correct
def rc_loops(query, keys, values):
    """Plain Python loops over the keys, the way one works it on paper."""
    d_k = len(query)
    scores = [sum(q * k for q, k in zip(query, key)) / math.sqrt(d_k) for key in keys]
    top = max(scores)
    exps = [math.exp(s - top) for s in scores]
    weights = np.array([e / sum(exps) for e in exps])
    output = sum(w * value for w, value in zip(weights, values))
    return weights, output


def rc_einsum(query, keys, values):
    scores = np.einsum("kd,d->k", keys, query) / np.sqrt(query.shape[0])
    weights = ref.softmax(scores)
    return weights, np.einsum("k,kv->v", weights, values)


def rc_scale_query_first(query, keys, values):
    query = query / np.sqrt(query.size)
    weights = ref.softmax(keys @ query)
    return weights, values.T @ weights


def rc_via_torch(query, keys, values):
    q, k, v = (torch.from_numpy(np.asarray(t)) for t in (query, keys, values))
    weights = torch.softmax(k @ q / math.sqrt(q.shape[-1]), dim=0)
    return weights.numpy(), (weights @ v).numpy()


def rc_float64_and_list(query, keys, values):
    """Computes in float64 whatever the input (a note) and returns a list."""
    weights, output = _row(query.astype(np.float64), keys.astype(np.float64), values)
    return [weights, output.astype(np.float64)]


ROW_CORRECT = [
    Correct(ROW, fn)
    for fn in (
        rc_loops,
        rc_einsum,
        rc_scale_query_first,
        rc_via_torch,
        rc_float64_and_list,
        ref.attention_row,
    )
]


# ============================================================================ sdpa: helpers
def _fill_and_softmax(scores, mask, fill=NEG_INF):
    if mask is not None:
        scores = scores.masked_fill(~mask, fill)
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return weights


def _scaled(q, k, divisor):
    return q @ k.transpose(-2, -1) / divisor


def _root(q):
    return math.sqrt(q.shape[-1])


# ========================================================================== sdpa: mistakes
def a_scaled_after_softmax(q, k, v, mask=None):
    w = _fill_and_softmax(_scaled(q, k, 1.0), mask) / _root(q)
    return w @ v, w


def a_zeroes_rows_with_nothing_blocked(q, k, v, mask=None):  # all where ~any belongs
    scores = _scaled(q, k, _root(q))  # (..., len_q, len_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, NEG_INF)
    w = torch.softmax(scores, dim=-1)
    if mask is not None:
        w = torch.where(mask.all(dim=-1, keepdim=True), torch.zeros_like(w), w)
    return w @ v, w


def a_no_scaling(q, k, v, mask=None):
    w = _fill_and_softmax(_scaled(q, k, 1.0), mask)
    return w @ v, w


def a_by_d_k(q, k, v, mask=None):
    w = _fill_and_softmax(_scaled(q, k, q.shape[-1]), mask)
    return w @ v, w


def a_scaled_after_too(q, k, v, mask=None):  # q pre-scaled, then the scores scaled again
    scores = _scaled(q / _root(q), k, _root(q))  # (batch, len_q, len_k): / d_k in all
    w = _fill_and_softmax(scores, mask)
    return w @ v, w


def a_by_inverted_scale(q, k, v, mask=None):  # divides by d_k ** -0.5: multiplies by √d_k
    w = _fill_and_softmax(_scaled(q, k, q.shape[-1] ** -0.5), mask)
    return w @ v, w


def a_by_fourth_root(q, k, v, mask=None):  # a constant no named mistake gives: d_k ** 0.75
    w = _fill_and_softmax(_scaled(q, k, q.shape[-1] ** 0.75), mask)
    return w @ v, w


def a_by_len_k(q, k, v, mask=None):
    w = _fill_and_softmax(_scaled(q, k, k.shape[-2]), mask)
    return w @ v, w


def a_by_sqrt_len_k(q, k, v, mask=None):
    w = _fill_and_softmax(_scaled(q, k, math.sqrt(k.shape[-2])), mask)
    return w @ v, w


def a_by_sqrt_d_v(q, k, v, mask=None):
    w = _fill_and_softmax(_scaled(q, k, math.sqrt(v.shape[-1])), mask)
    return w @ v, w


def a_by_sqrt_len_of_q(q, k, v, mask=None):  # len(q) is the batch size for batched q
    w = _fill_and_softmax(_scaled(q, k, math.sqrt(len(q))), mask)
    return w @ v, w


def a_softmax_over_queries(q, k, v, mask=None):
    scores = _scaled(q, k, _root(q))
    if mask is not None:
        scores = scores.masked_fill(~mask, NEG_INF)
    w = torch.nan_to_num(torch.softmax(scores, dim=-2), nan=0.0)
    return w @ v, w


def a_softmax_dim_0(q, k, v, mask=None):
    scores = _scaled(q, k, _root(q))
    if mask is not None:
        scores = scores.masked_fill(~mask, NEG_INF)
    w = torch.nan_to_num(F.softmax(scores, dim=0), nan=0.0)
    return w @ v, w


def a_mask_after_softmax_fill(q, k, v, mask=None):
    w = torch.softmax(_scaled(q, k, _root(q)), dim=-1)
    if mask is not None:
        w = w.masked_fill(~mask, 0.0)
    return w @ v, w


def a_mask_after_softmax_multiply(q, k, v, mask=None):
    w = torch.softmax(_scaled(q, k, _root(q)), dim=-1)
    if mask is not None:
        w = w * mask
    return w @ v, w


def a_mask_ignored(q, k, v, mask=None):
    w = torch.softmax(_scaled(q, k, _root(q)), dim=-1)
    return w @ v, w


def _without_source(source: str, name: str):
    """A function compiled from a string that linecache does not know, as in a session
    whose tracebacks carry no source lines: hints must then reason from the data alone."""
    namespace = {"torch": torch, "math": math}
    exec(compile(source, "<no source>", "exec"), namespace)
    return namespace[name]


a_dot_t_no_source = _without_source(
    "def a_dot_t_no_source(q, k, v, mask=None):\n"
    "    w = torch.softmax(q @ k.T / math.sqrt(q.shape[-1]), dim=-1)\n"
    "    return w @ v, w\n",
    "a_dot_t_no_source",
)


def a_masked_fill_discarded(q, k, v, mask=None):
    scores = _scaled(q, k, _root(q))
    if mask is not None:
        scores.masked_fill(~mask, NEG_INF)  # not in place: the result is dropped
    w = torch.softmax(scores, dim=-1)
    return w @ v, w


def a_polarity_inverted(q, k, v, mask=None):
    scores = _scaled(q, k, _root(q))
    if mask is not None:
        scores = scores.masked_fill(mask, NEG_INF)  # True = blocked, as in nn.MultiheadAttention
    w = torch.softmax(scores, dim=-1)
    return w @ v, w


def a_polarity_inverted_zeroed(q, k, v, mask=None):
    return ref.scaled_dot_product_attention(q, k, v, None if mask is None else ~mask)


def a_polarity_inverted_finite(q, k, v, mask=None):
    scores = _scaled(q, k, _root(q))
    if mask is not None:
        scores = scores.masked_fill(mask, -1e9)
    w = torch.softmax(scores, dim=-1)
    return w @ v, w


def a_fill_zero(q, k, v, mask=None):  # "zero out the masked scores"
    scores = _scaled(q, k, _root(q))
    if mask is not None:
        scores = scores * mask
    w = torch.softmax(scores, dim=-1)
    return w @ v, w


def a_bool_mask_added(q, k, v, mask=None):
    scores = _scaled(q, k, _root(q))
    if mask is not None:
        scores = scores + mask
    w = torch.softmax(scores, dim=-1)
    return w @ v, w


def a_qk_swapped(q, k, v, mask=None):
    scores = _scaled(k, q, _root(q))  # (..., len_k, len_q)
    if mask is not None:
        scores = scores.masked_fill(~mask.transpose(-2, -1), NEG_INF)
    w = torch.softmax(scores, dim=-1)
    return w @ v, w


def a_k_dot_T(q, k, v, mask=None):
    scores = q @ k.T / math.sqrt(q.shape[-1])
    w = _fill_and_softmax(scores, mask)
    return w @ v, w


def a_transpose_1_2(q, k, v, mask=None):  # d2l's keys.transpose(1, 2): right for 3-D only
    scores = q @ (k.transpose(1, 2) if k.dim() > 2 else k.transpose(0, 1)) / _root(q)
    w = _fill_and_softmax(scores, mask)
    return w @ v, w


def a_transpose_2_3(q, k, v, mask=None):  # right for 4-D only; IndexError on 3-D
    w = _fill_and_softmax(q @ k.transpose(2, 3) / _root(q), mask)
    return w @ v, w


def a_bmm(q, k, v, mask=None):  # torch.bmm takes 3-D tensors only
    w = _fill_and_softmax(torch.bmm(q, k.transpose(-2, -1)) / _root(q), mask)
    return torch.bmm(w, v), w


def a_naive_exp(q, k, v, mask=None):  # a hand-made softmax without the max
    scores = _scaled(q, k, _root(q))
    if mask is not None:
        scores = scores.masked_fill(~mask, NEG_INF)
    e = scores.exp()
    w = e / e.sum(dim=-1, keepdim=True)
    if mask is not None:
        w = w.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return w @ v, w


def a_nan_on_fully_masked(q, k, v, mask=None):
    scores = _scaled(q, k, _root(q))
    if mask is not None:
        scores = scores.masked_fill(~mask, NEG_INF)
    w = torch.softmax(scores, dim=-1)
    return w @ v, w


def a_output_from_nan_weights(q, k, v, mask=None):
    scores = _scaled(q, k, _root(q))
    if mask is not None:
        scores = scores.masked_fill(~mask, NEG_INF)
    w = torch.softmax(scores, dim=-1)
    return w @ v, torch.nan_to_num(w, nan=0.0)


def a_output_from_keys(q, k, v, mask=None):
    _, w = ref.scaled_dot_product_attention(q, k, v, mask)
    return w @ k, w


def a_weights_transposed(q, k, v, mask=None):
    out, w = ref.scaled_dot_product_attention(q, k, v, mask)
    return out, w.transpose(-2, -1)


def a_mask_flipped_in_place(q, k, v, mask=None):  # logical_not_: the caller's mask flips
    if mask is None:
        return ref.scaled_dot_product_attention(q, k, v)
    blocked = mask.logical_not_()
    w = torch.softmax(
        (q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])).masked_fill(blocked, NEG_INF), -1
    )
    w = w.masked_fill(blocked.all(dim=-1, keepdim=True), 0.0)
    return w @ v, w


def a_weights_flattened(q, k, v, mask=None):
    out, w = ref.scaled_dot_product_attention(q, k, v, mask)
    return out, w.reshape(-1, w.shape[-1])


def a_only_output(q, k, v, mask=None):
    return ref.scaled_dot_product_attention(q, k, v, mask)[0]


def a_swapped_order(q, k, v, mask=None):
    out, w = ref.scaled_dot_product_attention(q, k, v, mask)
    return w, out


def a_scale_q_in_place(q, k, v, mask=None):
    q /= math.sqrt(q.shape[-1])
    w = _fill_and_softmax(q @ k.transpose(-2, -1), mask)
    return w @ v, w


def a_detached(q, k, v, mask=None):
    out, w = ref.scaled_dot_product_attention(q.detach(), k.detach(), v.detach(), mask)
    return out, w


def a_via_numpy(q, k, v, mask=None):
    qn, kn = q.numpy(), k.numpy()
    scores = qn @ np.swapaxes(kn, -1, -2) / math.sqrt(qn.shape[-1])
    if mask is not None:
        scores = np.where(mask.numpy(), scores, NEG_INF)
    w = torch.from_numpy(ref.softmax(scores))
    return w @ v, w


def a_boolean_indexing(q, k, v, mask=None):
    scores = _scaled(q, k, _root(q))
    if mask is not None:
        scores[~mask] = NEG_INF  # fails when the mask only broadcasts to the scores
    w = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return w @ v, w


def a_squeezed(q, k, v, mask=None):  # squeeze() also drops a len_q of 1
    out, w = ref.scaled_dot_product_attention(q, k, v, mask)
    return out.squeeze(), w.squeeze()


def a_wrong_output(q, k, v, mask=None):
    out, w = ref.scaled_dot_product_attention(q, k, v, mask)
    return out + 0.1 * v.mean(dim=-2, keepdim=True), w


def a_functional_dropout(q, k, v, mask=None):  # F.dropout's training flag defaults to True
    _, w = ref.scaled_dot_product_attention(q, k, v, mask)
    w = F.dropout(w, p=0.1)
    return w @ v, w


def a_softmax_upcast_kept(q, k, v, mask=None):  # float32 weights meet float64 values
    scores = _scaled(q, k, _root(q))
    if mask is not None:
        scores = scores.masked_fill(~mask, NEG_INF)
    w = torch.nan_to_num(torch.softmax(scores.float(), dim=-1), nan=0.0)
    return w @ v, w


def a_mask_unsqueezed(q, k, v, mask=None):  # a heads axis added to a mask that fits
    scores = _scaled(q, k, _root(q))
    if mask is not None:
        mask = mask.unsqueeze(1)
        scores = scores.masked_fill(~mask, NEG_INF)
    w = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return w @ v, w


def a_log_softmax_weights(q, k, v, mask=None):  # log-probabilities returned as weights
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, -1e9)
    logs = torch.log_softmax(scores, dim=-1)
    return logs.exp() @ v, logs


def a_scores_as_weights(q, k, v, mask=None):  # no softmax at all
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    return scores @ v, scores


def a_len_k_scale_over_queries(q, k, v, mask=None):  # two mistakes at once
    scores = q @ k.transpose(-2, -1) / math.sqrt(k.shape[-2])
    if mask is not None:
        scores = scores.masked_fill(~mask, NEG_INF)
    w = torch.nan_to_num(torch.softmax(scores, dim=-2), nan=0.0)
    return w @ v, w


def a_output_from_scores(q, k, v, mask=None):  # the scores mix the values
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    return scores @ v, _fill_and_softmax(scores, mask)


def a_permute_three_dims(q, k, v, mask=None):  # permute(0, 2, 1): 3-D inputs only
    w = _fill_and_softmax(q @ k.permute(0, 2, 1) / math.sqrt(q.shape[-1]), mask)
    return w @ v, w


def a_torch_sqrt_of_int(q, k, v, mask=None):  # torch.sqrt(d_k): a Python int, TypeError
    w = _fill_and_softmax(q @ k.transpose(-2, -1) / torch.sqrt(q.shape[-1]), mask)
    return w @ v, w


def a_no_scaling_and_over_queries(q, k, v, mask=None):  # two mistakes at once
    scores = q @ k.transpose(-2, -1)
    if mask is not None:
        scores = scores.masked_fill(~mask, NEG_INF)
    w = torch.nan_to_num(torch.softmax(scores, dim=-2), nan=0.0)
    return w @ v, w


def a_fully_masked_rows_without_keepdim(q, k, v, mask=None):  # any(dim=-1) lost its axis
    scores = _scaled(q, k, _root(q))
    if mask is not None:
        scores = scores.masked_fill(~mask, NEG_INF)
    w = torch.softmax(scores, dim=-1)
    if mask is not None:
        nothing_allowed = ~mask.any(dim=-1)
        w = w.masked_fill(nothing_allowed, 0.0)
    return w @ v, w


def a_fill_plus_inf(q, k, v, mask=None):  # -float("-inf") is +inf
    w = _fill_and_softmax(_scaled(q, k, _root(q)), mask, fill=-NEG_INF)
    return w @ v, w


def a_zero_all_when_one_row_is_nan(q, k, v, mask=None):  # the fix of one row, on all of them
    scores = _scaled(q, k, _root(q))
    if mask is not None:
        scores = scores.masked_fill(~mask, NEG_INF)
    w = torch.softmax(scores, dim=-1)
    if torch.isnan(w).any().item():
        w = torch.zeros_like(w)
    return w @ v, w


def a_scores_negated(q, k, v, mask=None):  # exp(max - s): the softmax of -scores
    scores = _scaled(q, k, _root(q))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("inf"))
    w = torch.exp(scores.amin(dim=-1, keepdim=True) - scores)
    w = torch.nan_to_num(w / w.sum(dim=-1, keepdim=True), nan=0.0)
    return w @ v, w


def a_output_before_mask(q, k, v, mask=None):  # output from the unmasked weights
    scores = _scaled(q, k, _root(q))
    output = torch.softmax(scores, dim=-1) @ v
    if mask is not None:
        scores = scores.masked_fill(~mask, NEG_INF)
    return output, torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)


# blind round 11: a square mask read on swapped axes (only a square, non-symmetric mask,
# a causal one, shows it), softmax applied twice, base 2 for e
def _sdpa_with(mask_of=lambda m: m, exp_base=None, twice=False):
    def scaled_dot_product_attention(q, k, v, mask=None):
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        if mask is not None:
            scores = scores.masked_fill(~mask_of(mask), float("-inf"))
        if exp_base is not None:
            peak = scores.amax(dim=-1, keepdim=True).nan_to_num(0.0, 0.0, 0.0)
            exps = torch.pow(exp_base, scores - peak)
            weights = exps / exps.sum(dim=-1, keepdim=True)
        else:
            weights = torch.softmax(scores, dim=-1)
        if twice:
            weights = torch.softmax(weights, dim=-1)
        weights = torch.nan_to_num(weights)
        return weights @ v, weights

    return scaled_dot_product_attention


def _square_transposed(mask):
    return mask.transpose(-2, -1) if mask.shape[-1] == mask.shape[-2] else mask


a_mask_transposed_when_square = _sdpa_with(mask_of=_square_transposed)
a_mask_mT_when_square = _sdpa_with(
    mask_of=lambda m: m.mT if m.dim() >= 2 and m.shape[-1] == m.shape[-2] else m
)
a_softmax_twice = _sdpa_with(twice=True)
a_exp_base_2 = _sdpa_with(exp_base=2.0)
a_exp_base_10 = _sdpa_with(exp_base=10.0)


# blind round 11: a fill value that is finite and not negative enough (measured), and a
# scale confirmed on a second input (at d_k = 4, 2·√d_k is d_k)
def _sdpa_fill(fill, before_scale=False):
    def scaled_dot_product_attention(q, k, v, mask=None):
        scores = q @ k.transpose(-2, -1)
        if not before_scale:
            scores = scores / math.sqrt(q.size(-1))
        if mask is not None:
            scores = scores.masked_fill(~mask, fill)
        if before_scale:
            scores = scores / math.sqrt(q.size(-1))
        weights = torch.softmax(scores, dim=-1)
        return weights @ v, weights

    return scaled_dot_product_attention


a_fill_minus_10 = _sdpa_fill(-10.0)
a_fill_minus_20_before_scaling = _sdpa_fill(-20.0, before_scale=True)


def a_future_always_blocked(q, k, v, mask=None):  # GPT's look-ahead mask on every call
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.size(-1))
    future = torch.triu(torch.ones(q.size(-2), k.size(-2)), diagonal=1).bool()
    scores = scores.masked_fill(future, -1e9)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    weights = scores.softmax(dim=-1)
    return torch.matmul(weights, v), weights


def a_scale_twice_root(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / (2 * math.sqrt(q.size(-1)))
    if mask is not None:
        scores = scores.masked_fill(~mask, NEG_INF)
    weights = torch.nan_to_num(torch.softmax(scores, dim=-1))
    return weights @ v, weights


SDPA = check_scaled_dot_product_attention
INVERTED = r"mask's meaning is inverted.*True means 'may attend'"
MASK_AFTER = r"mask was applied after the softmax"


def sdpa_scaled_only_if_mask_is_none(q, k, v, mask=None):
    """The scores divided by √d_k under `if mask is None:`: a masked call is unscaled."""
    scores = q @ k.transpose(-2, -1)  # (..., len_q, len_k)
    if mask is None:
        scores = scores / math.sqrt(q.size(-1))
    else:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.nan_to_num(torch.softmax(scores, dim=-1))
    return weights @ v, weights


SDPA_MISTAKES = [
    Mistake(  # a step only on one path of the mask test (family of blind28a-sdpa-scaled-only)
        check_scaled_dot_product_attention,
        sdpa_scaled_only_if_mask_is_none,
        r"Called on the same q, k, v without a mask, your weights are right: the scores are "
        r"divided by √d_k only when no mask is given",
    ),
    # blind round 15: the fully masked rows repaired where nothing is blocked instead
    Mistake(
        SDPA,
        a_zeroes_rows_with_nothing_blocked,
        r"came out as NaN, and on the same input with query row 0 allowed every key, that row "
        r"came out all zeros.*no \*blocked\* key instead",
    ),
    Mistake(
        SDPA,
        a_future_always_blocked,
        r"causal \(lower-triangular\) mask added (although no mask was given|on top of the "
        r"given mask)",
    ),
    Mistake(SDPA, a_fill_minus_10, r"scaled scores are set to -10 \(measured"),
    Mistake(
        SDPA, a_fill_minus_20_before_scaling, r"scaled scores are set to -\d+(\.\d+)? \(measured"
    ),
    Mistake(SDPA, a_scale_twice_root, r"^(?!(?s:.*)divided by d_k)(?s:.*)one constant c = \d"),
    Mistake(SDPA, a_mask_transposed_when_square, r"zero exactly where the \*transposed\* mask"),
    Mistake(SDPA, a_mask_mT_when_square, r"query and key axes swapped"),
    Mistake(SDPA, a_softmax_twice, r"softmax of the softmax: it was applied twice"),
    Mistake(SDPA, a_exp_base_2, r"scaled scores times ln 2: the exponential in base 2"),
    Mistake(SDPA, a_exp_base_10, r"scaled scores times ln 10: the exponential in base 10"),
    Mistake(SDPA, a_output_before_mask, r"output is the one attention gives with no mask"),
    Mistake(SDPA, a_scores_negated, r"softmax of the negated scores.*most similar"),
    Mistake(SDPA, a_output_from_scores, r"output is the scaled scores times v"),
    Mistake(
        SDPA,
        a_len_k_scale_over_queries,
        r"Two mistakes at once\. \(1\) Your weights match scores divided by √len_k.*\(2\) "
        r"Your weights sum to 1 over the queries",
    ),
    # blind round 10: negative weights are told the log-softmax only when they are the
    # logarithms of the right weights; otherwise the candidates are named
    Mistake(
        SDPA,
        a_log_softmax_weights,
        r"^(?!.*without the softmax)(?s:.*)negative entries.*logarithms of the right weights",
    ),
    Mistake(
        SDPA,
        a_scores_as_weights,
        r"^(?!.*logarithms of the right)(?s:.*)negative entries.*without the softmax",
    ),
    Mistake(
        SDPA,
        a_permute_three_dims,
        r"(?s)raised RuntimeError.*permute\(0, 2, 1\).*transpose\(-2, -1\)",
    ),
    # blind round 10: an in-place method on the mask is told as such
    Mistake(
        SDPA,
        a_mask_flipped_in_place,
        r"changed its argument `mask` in place.*mask\.logical_not_\(\)",
    ),
    # blind round 10: the learner's TypeError comes with what to write instead
    Mistake(
        SDPA,
        a_torch_sqrt_of_int,
        r"(?s)raised TypeError.*must be Tensor, not int.*Python number.*math\.sqrt\(d_k\)",
    ),
    Mistake(SDPA, a_fill_plus_inf, r"blocks nothing they are finite.*\+inf or NaN, not -inf"),
    Mistake(SDPA, a_zero_all_when_one_row_is_nan, r"zero everywhere.*applied to the whole tensor"),
    Mistake(SDPA, a_no_scaling, r"with no scaling.*√d_k"),
    Mistake(SDPA, a_scaled_after_softmax, r"divided by √d_k = √\d+ afterwards.*before the softmax"),
    Mistake(SDPA, a_by_d_k, r"divided by d_k = \d+ instead of by √d_k"),
    Mistake(SDPA, a_scaled_after_too, r"divided by d_k = \d+ .*applied twice"),
    Mistake(SDPA, a_by_inverted_scale, r"multiplied by √d_k = √\d+ instead of divided"),
    Mistake(
        SDPA, a_by_fourth_root, r"one constant c = [\d.]+ for every score.*must be √d_k.*too small"
    ),
    Mistake(
        SDPA, a_by_len_k, r"divided by len_k = \d+, the number of keys.*not the number of words"
    ),
    Mistake(SDPA, a_by_sqrt_len_k, r"divided by √len_k"),
    Mistake(SDPA, a_by_sqrt_d_v, r"divided by √d_v"),
    Mistake(SDPA, a_by_sqrt_len_of_q, r"square root of q.shape\[0\].*batch dim|√len_q"),
    Mistake(SDPA, a_softmax_over_queries, r"sum to 1 over the queries \(dim=-2\)"),
    Mistake(
        SDPA,
        a_no_scaling_and_over_queries,
        r"Two mistakes at once\. \(1\) .*with no scaling.*\(2\) .*sum to 1 over the queries",
    ),
    Mistake(SDPA, a_softmax_dim_0, r"normalised over dim 0, a batch dim"),
    Mistake(SDPA, a_mask_after_softmax_fill, MASK_AFTER),
    Mistake(SDPA, a_mask_after_softmax_multiply, MASK_AFTER),
    Mistake(SDPA, a_mask_ignored, r"attention with no mask at all"),
    Mistake(SDPA, a_dot_t_no_source, r"k\.T reverses them all"),
    Mistake(SDPA, a_masked_fill_discarded, r"masked_fill\(\.\.\.\) returns a new tensor.*assign"),
    Mistake(SDPA, a_polarity_inverted, INVERTED),
    Mistake(SDPA, a_polarity_inverted_zeroed, INVERTED),
    Mistake(SDPA, a_polarity_inverted_finite, INVERTED),
    Mistake(SDPA, a_fill_zero, r"blocked scores set to 0 instead of -inf.*e\^0 = 1"),
    Mistake(SDPA, a_bool_mask_added, r"bool mask read as numbers"),
    Mistake(SDPA, a_qk_swapped, r"len_q = \d+, len_k = \d+.*swap q and k"),
    Mistake(
        SDPA,
        a_k_dot_T,
        r"(?s)^(?!.*swap q and k).*`k\.T` reverses \*all\* the dims.*transpose\(-2, -1\)",
    ),
    Mistake(SDPA, a_transpose_1_2, r"transpose\(1, 2\) is right.*Count from the end"),
    Mistake(
        SDPA, a_transpose_2_3, r"(?s)raised IndexError: Dimension out of range.*Count from the end"
    ),
    Mistake(SDPA, a_bmm, r"torch.bmm only takes 3-D tensors.*torch.matmul"),
    Mistake(SDPA, a_naive_exp, r"NaN or inf.*overflows"),
    Mistake(SDPA, a_nan_on_fully_masked, r"mask is all False.*came out as NaN.*spreads"),
    Mistake(
        SDPA,
        a_output_from_nan_weights,
        r"weights are right, but your output is NaN in the rows.*before those rows were set to zero",
    ),
    Mistake(
        SDPA, a_output_from_keys, r"your `output` should have shape.*multiply by k instead of v"
    ),
    # the output is right, so the weights were only returned transposed: not "swap q and k"
    # (blind round 10)
    Mistake(
        SDPA,
        a_weights_transposed,
        r"^(?!.*swap q and k)(?s:.*)your `weights` should have shape.*Your output is right, and "
        r"your weights are the right ones transposed",
    ),
    Mistake(SDPA, a_weights_flattened, r"your `weights` should have shape"),
    Mistake(SDPA, a_only_output, r"returned a single tensor.*\(output, weights\)"),
    Mistake(SDPA, a_swapped_order, r"return \(output, weights\), in that order"),
    Mistake(SDPA, a_scale_q_in_place, r"changed its argument `q` in place.*q /= math.sqrt\(d_k\)"),
    Mistake(SDPA, a_detached, r"not connected to them.*grad_fn"),
    Mistake(SDPA, a_via_numpy, r"Stay in torch"),
    Mistake(SDPA, a_boolean_indexing, r"masked_fill or torch.where"),
    Mistake(SDPA, a_squeezed, r"should have shape \(2, 1, \d\)|should have shape \(2, 2, 1, 5\)"),
    Mistake(
        SDPA, a_wrong_output, r"your `output` differs from the reference.*output = weights @ v"
    ),
    Mistake(SDPA, a_functional_dropout, r"^(?!.*softmax).*two calls with the same inputs.*Dropout"),
    Mistake(SDPA, a_softmax_upcast_kept, r"raised RuntimeError.*\n.*without casting back"),
    Mistake(
        SDPA,
        a_fully_masked_rows_without_keepdim,
        r"(?s)^(?!.*Did you reshape it).*this line of yours.*`w = w\.masked_fill\(nothing_allowed, "
        r"0\.0\)`.*len_q = \d+ entries on its last axis.*without keepdim=True",
    ),
    Mistake(
        SDPA,
        a_mask_unsqueezed,
        r"(?s)^(?!.*Did you swap q and k).*(line that applies the mask|reshape the mask).*already "
        r"broadcasts",
    ),
]


# ========================================================================== sdpa: correct
def c_annotated_transformer(query, key, value, mask=None, dropout=None):
    """The Annotated Transformer's attention(): masked_fill(mask == 0, -1e9), Tensor.softmax.
    A fully masked row comes out uniform (accepted with a note)."""
    d_k = query.size(-1)
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    p_attn = scores.softmax(dim=-1)
    if dropout is not None:
        p_attn = dropout(p_attn)
    return torch.matmul(p_attn, value), p_attn


def _d2l_masked_softmax(scores, mask):
    """d2l's masked_softmax, with our bool mask in place of valid_lens: -1e6 where blocked."""
    if mask is None:
        return F.softmax(scores, dim=-1)
    return F.softmax(scores.masked_fill(~mask, -1e6), dim=-1)


class _D2lDotProductAttention(nn.Module):
    """d2l's DotProductAttention (bmm replaced by matmul, for any number of batch dims)."""

    def __init__(self, dropout: float):
        super().__init__()
        self.dropout = nn.Dropout(dropout)

    def forward(self, queries, keys, values, mask=None):
        d = queries.shape[-1]
        scores = torch.matmul(queries, keys.transpose(-2, -1)) / math.sqrt(d)
        self.attention_weights = _d2l_masked_softmax(scores, mask)
        return torch.matmul(self.dropout(self.attention_weights), values)


def c_d2l(q, k, v, mask=None):
    layer = _D2lDotProductAttention(dropout=0.5).eval()  # eval: dropout off
    return layer(q, k, v, mask), layer.attention_weights


def c_pytorch_docs(query, key, value, attn_mask=None):
    """The reference code in the docs of F.scaled_dot_product_attention: an additive bias
    of -inf, F.softmax; plus the NaN fix the docs' version leaves out."""
    len_q, len_k = query.size(-2), key.size(-2)
    scale_factor = 1 / math.sqrt(query.size(-1))
    attn_bias = torch.zeros(len_q, len_k, dtype=query.dtype)
    if attn_mask is not None:
        attn_bias = attn_bias.masked_fill(attn_mask.logical_not(), float("-inf"))
    attn_weight = query @ key.transpose(-2, -1) * scale_factor
    attn_weight = F.softmax(attn_weight + attn_bias, dim=-1)
    attn_weight = torch.nan_to_num(attn_weight, nan=0.0)
    return attn_weight @ value, attn_weight


def c_nanogpt(q, k, v, mask=None):
    """nanoGPT's CausalSelfAttention (slow path), with any mask: masked_fill(mask == 0, -inf)."""
    att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
    if mask is not None:
        att = att.masked_fill(mask == 0, float("-inf"))
    att = F.softmax(att, dim=-1)
    att = torch.nan_to_num(att)  # a causal row always keeps a key; a padding row may not
    y = att @ v
    return y, att


def c_einsum(q, k, v, mask=None):
    scores = torch.einsum("...qd,...kd->...qk", q, k) / torch.sqrt(torch.tensor(q.shape[-1]))
    if mask is not None:
        scores = torch.where(mask, scores, torch.tensor(NEG_INF, dtype=scores.dtype))
    weights = scores.softmax(dim=-1)
    if mask is not None:
        weights = torch.where(mask.any(-1, keepdim=True), weights, torch.zeros_like(weights))
    return torch.einsum("...qk,...kd->...qd", weights, v), weights


def _flatten_batch(q, k, v, mask):
    lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2])
    if mask is not None:
        lead = torch.broadcast_shapes(lead, mask.shape[:-2])
    len_q, len_k = q.shape[-2], k.shape[-2]
    q3 = q.expand(*lead, *q.shape[-2:]).reshape(-1, len_q, q.shape[-1])
    k3 = k.expand(*lead, *k.shape[-2:]).reshape(-1, len_k, k.shape[-1])
    v3 = v.expand(*lead, *v.shape[-2:]).reshape(-1, len_k, v.shape[-1])
    m3 = None if mask is None else mask.expand(*lead, len_q, len_k).reshape(-1, len_q, len_k)
    return lead, q3, k3, v3, m3


def c_baddbmm(q, k, v, mask=None):
    """An additive mask fused into the product: baddbmm(bias, q, kᵀ, alpha=1/√d_k)."""
    lead, q3, k3, v3, m3 = _flatten_batch(q, k, v, mask)
    bias = torch.zeros(q3.shape[0], q3.shape[1], k3.shape[1], dtype=q.dtype)
    if m3 is not None:
        bias = bias.masked_fill(~m3, NEG_INF)
    scores = torch.baddbmm(bias, q3, k3.transpose(1, 2), alpha=1 / math.sqrt(q.shape[-1]))
    weights = torch.softmax(scores, dim=-1).nan_to_num(0.0)
    out = torch.bmm(weights, v3)
    return out.reshape(*lead, *out.shape[-2:]), weights.reshape(*lead, *weights.shape[-2:])


def c_bmm_flattened(q, k, v, mask=None):
    lead, q3, k3, v3, m3 = _flatten_batch(q, k, v, mask)
    scores = torch.bmm(q3, k3.transpose(1, 2)) / math.sqrt(q.shape[-1])
    if m3 is not None:
        scores = scores.masked_fill(~m3, NEG_INF)
    weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    out = torch.bmm(weights, v3)
    return out.reshape(*lead, *out.shape[-2:]), weights.reshape(*lead, *weights.shape[-2:])


def c_scale_q_first(q, k, v, mask=None):
    q = q / math.sqrt(q.shape[-1])
    scores = q @ k.mT
    if mask is not None:
        scores = scores.masked_fill(~mask, NEG_INF)
        weights = torch.softmax(scores, dim=-1)
        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    else:
        weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights


def c_fill_minus_1e4(q, k, v, mask=None):
    scores = _scaled(q, k, _root(q))
    if mask is not None:
        scores = scores.masked_fill(~mask, -1e4)
    w = torch.softmax(scores, dim=-1)
    return w @ v, w


def c_finfo_min(q, k, v, mask=None):
    """The most negative number of the dtype, as Hugging Face models do."""
    scores = _scaled(q, k, _root(q))
    if mask is not None:
        scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
    w = torch.softmax(scores, dim=-1)
    return w @ v, w


def c_additive_finite_mask(q, k, v, mask=None):
    """-1e9 *added* to blocked scores: in float64 a fully masked row keeps the differences of
    its scores, a finite distribution (accepted with a note); in float32 it is uniform."""
    scores = _scaled(q, k, _root(q))
    if mask is not None:
        scores = scores + (~mask).to(scores.dtype) * -1e9
    w = torch.softmax(scores, dim=-1)
    return w @ v, w


def c_additive_inf_mask(q, k, v, mask=None):
    scores = _scaled(q, k, _root(q))
    if mask is not None:
        additive = torch.zeros(mask.shape, dtype=scores.dtype).masked_fill(~mask, NEG_INF)
        scores = scores + additive
    w = torch.softmax(scores, dim=-1)
    w = torch.where(torch.isnan(w), torch.zeros_like(w), w)
    return w @ v, w


def c_mask_before_scaling(q, k, v, mask=None):
    """A popular explanation's softmax((QKᵀ + M) / √d_k): the same for a 0/-inf mask."""
    scores = q @ k.transpose(-2, -1)
    if mask is not None:
        scores = scores.masked_fill(~mask, NEG_INF)
    w = torch.softmax(scores / _root(q), dim=-1)
    if mask is not None:
        w = w.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return w @ v, w


def c_log_softmax(q, k, v, mask=None):
    scores = _scaled(q, k, _root(q))
    if mask is not None:
        scores = scores.masked_fill(~mask, NEG_INF)
    w = torch.log_softmax(scores, dim=-1).exp().nan_to_num(0.0)
    return w @ v, w


def c_upcast(q, k, v, mask=None):
    """Returns float64 for float32 inputs (accepted with a note)."""
    return ref.scaled_dot_product_attention(q.double(), k.double(), v.double(), mask)


def c_float64_inside(q, k, v, mask=None):
    out, w = ref.scaled_dot_product_attention(q.double(), k.double(), v.double(), mask)
    return out.to(q.dtype), w.to(q.dtype)


def c_loops(q, k, v, mask=None):
    """One query row at a time, on the broadcast batch."""
    lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2])
    if mask is not None:
        lead = torch.broadcast_shapes(lead, mask.shape[:-2])
    len_q, len_k = q.shape[-2], k.shape[-2]
    full_mask = (
        torch.ones(*lead, len_q, len_k, dtype=torch.bool)
        if mask is None
        else mask.expand(*lead, len_q, len_k)
    )
    qe, ke, ve = (t.expand(*lead, *t.shape[-2:]) for t in (q, k, v))
    rows_w, rows_o = [], []
    for index in np.ndindex(*lead) if lead else [()]:
        w_rows, o_rows = [], []
        for i in range(len_q):
            allowed = full_mask[index][i]
            scores = (ke[index] @ qe[index][i]) / math.sqrt(q.shape[-1])  # (len_k,)
            w = torch.zeros_like(scores)
            if allowed.any():
                w = torch.where(allowed, torch.softmax(scores.masked_fill(~allowed, NEG_INF), 0), w)
            w_rows.append(w)
            o_rows.append(w @ ve[index])
        rows_w.append(torch.stack(w_rows))
        rows_o.append(torch.stack(o_rows))
    weights = torch.stack(rows_w).reshape(*lead, len_q, len_k)
    out = torch.stack(rows_o).reshape(*lead, len_q, v.shape[-1])
    return out, weights


def c_torch_output(q, k, v, mask=None):
    """Own weights, PyTorch's fused kernel for the output."""
    weights = ref.scaled_dot_product_attention(q, k, v, mask)[1]
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask), weights


def c_returns_list(q, k, v, mask=None):
    return list(ref.scaled_dot_product_attention(q, k, v, mask))


SDPA_CORRECT = [
    Correct(SDPA, fn)
    for fn in (
        c_annotated_transformer,
        c_d2l,
        c_pytorch_docs,
        c_nanogpt,
        c_einsum,
        c_baddbmm,
        c_bmm_flattened,
        c_scale_q_first,
        c_fill_minus_1e4,
        c_finfo_min,
        c_additive_finite_mask,
        c_additive_inf_mask,
        c_mask_before_scaling,
        c_log_softmax,
        c_upcast,
        c_float64_inside,
        c_loops,
        c_returns_list,
        ref.scaled_dot_product_attention,
    )
]


FORBIDDEN_MISTAKES = [  # right values through the API the exercise forbids (issue 22)
    Mistake(
        check_softmax,
        sm_via_torch,
        r"(?s)calls torch\.softmax.*`torch\.softmax` computes the answer for you; exponentiate "
        r"the shifted scores.*grader scores it 0",
    ),
    Mistake(
        SDPA,
        c_torch_output,
        r"(?s)calls torch\.nn\.functional\.scaled_dot_product_attention.*compute the scores, the "
        r"mask and the weighted sum of the values yourself.*grader scores it 0",
    ),
]


# ------------------------------------------------- blind round 12 (r12f): the families
def sm_divide_where_no_out(x, axis=-1):
    """np.divide with where= but no out=: the all -inf slice is never written."""
    peak = np.max(x, axis=axis, keepdims=True)
    exps = np.exp(x - np.where(np.isfinite(peak), peak, 0.0))
    total = np.sum(exps, axis=axis, keepdims=True)
    return np.divide(exps, total, where=total > 0)


def sm_exp_where_no_out(x, axis=-1):
    """np.exp with where= (skipping the -inf entries) but no out=: those entries of the
    exponentials are never written."""
    peak = np.max(x, axis=axis, keepdims=True)
    shifted = x - np.where(np.isfinite(peak), peak, 0.0)
    exps = np.exp(shifted, where=np.isfinite(shifted))
    total = np.sum(exps, axis=axis, keepdims=True)
    return np.divide(exps, total, out=np.zeros_like(exps), where=total > 0)


def sm_rows_by_reshape(x, axis=-1):
    """The axis brought last by x.reshape(-1, n) instead of np.moveaxis."""
    n = x.shape[axis]
    return ref.softmax(x.reshape(-1, n), axis=-1).reshape(x.shape)


def sm_columns_by_reshape(x, axis=-1):
    """The axis brought first by x.reshape(n, -1), normalised down the columns."""
    n = x.shape[axis]
    return ref.softmax(x.reshape(n, -1), axis=0).reshape(x.shape)


def row_tanh_gates(query, keys, values):  # tanh of each scaled score: no softmax
    weights = np.tanh(keys @ query / np.sqrt(query.shape[-1]))
    return weights, weights @ values


def row_power_one_half(query, keys, values):
    """The square root written d_k ** 1 / 2: divided by 2·d_k."""
    d_k = query.shape[-1]
    weights = ref.softmax(keys @ query / d_k**1 / 2)
    return weights, weights @ values


def row_times_power_minus_one_half(query, keys, values):
    """A factor d_k ** -1 / 2: (1 / d_k) / 2."""
    d_k = query.shape[-1]
    weights = ref.softmax(keys @ query * d_k**-1 / 2)
    return weights, weights @ values


def row_floor_divided(query, keys, values):
    """Floor division of the scores by √d_k."""
    weights = ref.softmax(keys @ query // math.sqrt(query.shape[-1]))
    return weights, weights @ values


def row_scores_cast_to_int(query, keys, values):
    """The scaled scores cast to int (truncated toward zero)."""
    weights = ref.softmax((keys @ query / math.sqrt(query.shape[-1])).astype(int))
    return weights, weights @ values


def row_weights_not_column(query, keys, values):
    """(weights * values).sum(axis=0) without weights[:, None]."""
    weights = ref.softmax(keys @ query / math.sqrt(query.shape[-1]))
    return weights, (weights * values).sum(axis=0)


def row_weights_not_column_no_sum(query, keys, values):
    """np.sum(weights * values, axis=1): the same missing column, another reduction."""
    weights = ref.softmax(keys @ query / math.sqrt(query.shape[-1]))
    return weights, np.sum(values * weights, axis=1)


def sdpa_additive_mask_from_float_product(q, k, v, mask=None):  # 0 * -inf = NaN if allowed
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., len_q, len_k)
    if mask is not None:
        scores = scores + (1.0 - mask.to(scores.dtype)) * -math.inf
    weights = torch.softmax(scores, dim=-1)  # (..., len_q, len_k)
    return weights @ v, weights


def sdpa_k_viewed(q, k, v, mask=None):
    """kᵀ made with a view to the transposed shape."""
    kt = k.view(*k.shape[:-2], k.shape[-1], k.shape[-2])
    return ref.scaled_dot_product_attention(q, kt.transpose(-2, -1), v, mask)


def sdpa_k_reshaped(q, k, v, mask=None):
    """kᵀ made with reshape(..., d_k, -1): the same regrouping as a view."""
    scores = q @ k.reshape(*k.shape[:-2], k.shape[-1], -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.nan_to_num(torch.softmax(scores, dim=-1))
    return weights @ v, weights


def sdpa_weights_detached(q, k, v, mask=None):
    """The weights detached after the softmax: no gradient reaches q and k."""
    _, weights = ref.scaled_dot_product_attention(q, k, v, mask)
    weights = weights.detach()
    return weights @ v, weights


def sdpa_scores_no_grad(q, k, v, mask=None):
    """The scores computed under torch.no_grad()."""
    with torch.no_grad():
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.nan_to_num(torch.softmax(scores, dim=-1))
    return weights @ v, weights


def sdpa_first_sequence_mask(q, k, v, mask=None):  # mask[0]: sequence 0's for the batch
    if mask is not None and mask.dim() == q.dim():
        mask = mask[0]
    return ref.scaled_dot_product_attention(q, k, v, mask)


def sdpa_last_sequence_mask(q, k, v, mask=None):  # a loop over the batch that kept the last
    if mask is not None and mask.dim() == q.dim():
        for sequence_mask in mask:
            kept = sequence_mask
        mask = kept
    return ref.scaled_dot_product_attention(q, k, v, mask)


def sdpa_mask_on_first_sequence(q, k, v, mask=None):  # scores[:1]: the rest unmasked
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., len_q, len_k)
    if mask is not None and scores.dim() == 4:
        first = scores[:1].masked_fill(~mask[:1], float("-inf"))
        scores = torch.cat([first, scores[1:]])
    elif mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.nan_to_num(torch.softmax(scores, dim=-1))
    return weights @ v, weights


def sdpa_if_mask(q, k, v, mask=None):
    """`if mask:` for `if mask is not None:`."""
    if mask:
        return ref.scaled_dot_product_attention(q, k, v, mask)
    return ref.scaled_dot_product_attention(q, k, v)


def sdpa_if_not_mask(q, k, v, mask=None):
    """`if not mask:` for `if mask is None:`."""
    if not mask:
        return ref.scaled_dot_product_attention(q, k, v)
    return ref.scaled_dot_product_attention(q, k, v, mask)


R12F_MISTAKES = [
    # the truth value of the mask asked for where `is not None` belongs
    Mistake(SDPA, sdpa_if_mask, r"The line `if mask:`.*`if mask is not None:`"),
    Mistake(SDPA, sdpa_first_sequence_mask, r"the mask of sequence 0 alone was applied"),
    Mistake(SDPA, sdpa_mask_on_first_sequence, r"the mask reached only part of the batch"),
    Mistake(SDPA, sdpa_last_sequence_mask, r"the mask of sequence \d+ alone was applied"),
    Mistake(SDPA, sdpa_if_not_mask, r"The line `if not mask:`.*`if mask is not None:`"),
    # memory never written: numpy's where= without out=
    Mistake(check_softmax, sm_divide_where_no_out, r"never written.*where= without out="),
    Mistake(check_softmax, sm_exp_where_no_out, r"never written.*where= without out="),
    # a reshape where an axis move belongs
    Mistake(check_softmax, sm_rows_by_reshape, r"x\.reshape\(-1, \d+\).*does not move an axis"),
    Mistake(check_softmax, sm_columns_by_reshape, r"x\.reshape\(\d+, -1\).*does not move an axis"),
    Mistake(SDPA, sdpa_k_viewed, r"reshape \(view\).*in place of kᵀ"),
    Mistake(SDPA, sdpa_k_reshaped, r"reshape \(view\).*in place of kᵀ"),
    # ** 1/2's precedence, confirmed on the probe
    Mistake(ROW, row_power_one_half, r"1/\(2·d_k\).*binds tighter"),
    Mistake(
        ROW, row_tanh_gates, r"Your weights are tanh of the scaled scores.*instead of the softmax"
    ),
    Mistake(ROW, row_times_power_minus_one_half, r"1/\(2·d_k\).*binds tighter"),
    # scores rounded to whole numbers
    Mistake(ROW, row_floor_divided, r"rounded down to whole numbers: a floor division"),
    Mistake(ROW, row_scores_cast_to_int, r"truncated toward zero: a cast to int"),
    # a 1-D vector against the rows of a 2-D array
    Mistake(ROW, row_weights_not_column, r"lines a 1-D vector up with the \*last\* axis"),
    Mistake(ROW, row_weights_not_column_no_sum, r"lines a 1-D vector up with the \*last\* axis"),
    # weights cut from the autograd graph
    Mistake(SDPA, sdpa_weights_detached, r"`weights` do not: they were cut from the autograd"),
    Mistake(SDPA, sdpa_scores_no_grad, r"not connected|cut from the autograd"),
]


# ============================================================ round 17 (blind round 14)
def sm_sum_of_raw_exp(x, axis=-1):  # the max subtracted above the fraction bar only
    peak = np.max(x, axis=axis, keepdims=True)
    numerator = np.exp(x - peak)
    return numerator / np.exp(x).sum(axis=axis, keepdims=True)


def sm_unit_length(x, axis=-1):  # normalised to length 1: sqrt of the sum of squares
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sqrt((e**2).sum(axis=axis, keepdims=True))


def sdpa_unmasked_when_nothing_allowed(q, k, v, mask=None):
    """Returns the unmasked attention when the mask allows no key anywhere."""
    if mask is None or not torch.any(mask):
        return ref.scaled_dot_product_attention(q, k, v)
    return ref.scaled_dot_product_attention(q, k, v, mask)


def sdpa_scale_from_size(q, k, v, mask=None):  # q.size() ** 0.5: the whole torch.Size
    scale = q.size() ** 0.5
    return ref.scaled_dot_product_attention(q * scale, k, v, mask)


def sdpa_fourth_root_scale(q, k, v, mask=None):  # q and k's shared factor, used once
    scores = torch.matmul(q, k.mT) / q.size(-1) ** 0.25
    if mask is not None:
        scores = torch.where(mask, scores, float("-inf"))
    weights = scores.softmax(dim=-1).nan_to_num(0.0)
    return weights @ v, weights


def sdpa_dead_rows_times_keep(q, k, v, mask=None):  # NaN rows multiplied by a 0/1 float
    scores = q @ k.mT / math.sqrt(q.size(-1))
    if mask is None:
        weights = scores.softmax(-1)
    else:
        weights = scores.masked_fill(mask.logical_not(), -math.inf).softmax(-1)
        keep = mask.sum(dim=-1, keepdim=True).clamp(max=1).to(weights.dtype)
        weights = keep * weights
    return weights @ v, weights


def row_scores_per_feature(query, keys, values):  # the products summed down the keys
    scores = np.sum(query * keys, axis=0) / np.sqrt(query.size)  # (d_k,)
    weights = ref.softmax(scores)
    return weights, np.dot(weights, values)


def row_query_before_keys(query, keys, values):  # query @ keys: the transpose forgotten
    weights = ref.softmax(query @ keys / math.sqrt(len(query)))
    return weights, weights @ values


R17F_MISTAKES = [
    Mistake(ROW, row_scores_per_feature, r"summed over the keys \(axis 0\).*shape \(d_k,\)"),
    Mistake(ROW, row_query_before_keys, r"query @ keys pairs the query's features"),
    Mistake(check_softmax, sm_sum_of_raw_exp, r"sum of the \*unshifted\* exponentials"),
    Mistake(check_softmax, sm_unit_length, r"Euclidean norm \(np\.linalg\.norm\)"),
    Mistake(
        SDPA,
        sdpa_unmasked_when_nothing_allowed,
        r"all padding.*those of no mask at all.*skipped when the whole mask is False",
    ),
    Mistake(SDPA, sdpa_scale_from_size, r"A torch\.Size, a whole shape.*q\.shape\[-1\]"),
    Mistake(
        SDPA, sdpa_fourth_root_scale, r"divided by d_k \*\* 0\.25.*square root was taken twice"
    ),
    Mistake(SDPA, sdpa_dead_rows_times_keep, r"came out as NaN.*NaN \* 0 is NaN"),
]


# round 19 (blind round 16): the exponentials divided by their maximum (exp(x - max), the
# same as never divided), and the shifts that never go below 0 told apart by a probe
def sm_over_largest_exponential(x, axis=-1):
    exps = np.exp(x)
    return exps / exps.max(axis=axis, keepdims=True)


def sm_shift_abs_of_max(x, axis=-1):  # |slice max|: a negative maximum shifts further down
    e = np.exp(x - np.abs(x.max(axis=axis, keepdims=True)))
    with np.errstate(invalid="ignore"):
        return e / e.sum(axis=axis, keepdims=True)


def sm_shift_largest_magnitude(x, axis=-1):  # max |x|, as for a "safe" scale
    scale = np.amax(np.absolute(x), axis=axis, keepdims=True)
    e = np.exp(x - scale)
    total = e.sum(axis=axis, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


def row_values_scaled(query, keys, values):
    """The scale put on the values: the weights unscaled, the output shrunk by √d_k."""
    weights = ref.softmax(keys @ query)
    return weights, weights @ (values / np.sqrt(query.size))


def row_scaled_by_all_key_entries(query, keys, values):
    """The divisor counts every entry of keys (len_k * d_k), not the width."""
    weights = ref.softmax(keys @ query / np.sqrt(np.prod(keys.shape)))
    return weights, weights @ values


def row_scaled_by_number_of_keys(query, keys, values):
    weights = ref.softmax(keys @ query / np.sqrt(keys.shape[0]))  # len_k, not d_k
    return weights, weights @ values


def sdpa_output_scaled(q, k, v, mask=None):
    """The scale divides the mixed values, not the scores."""
    scores = torch.matmul(q, k.transpose(-2, -1))
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), float("-inf"))
    weights = torch.nan_to_num(F.softmax(scores, dim=-1))
    return torch.matmul(weights, v) / math.sqrt(k.size(-1)), weights


def sdpa_weights_mT_times_v(q, k, v, mask=None):
    """The output mixes v with the weights transposed (.mT), as if v were indexed by the
    queries."""
    _, weights = ref.scaled_dot_product_attention(q, k, v, mask)
    return weights.mT.matmul(v), weights


def sdpa_dead_rows_nan_to_num_in_place(q, k, v, mask=None):
    """The fully masked rows' NaN replaced in place on the softmax's output."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., len_q, len_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights.nan_to_num_(0.0)  # rows with no allowed key: NaN -> 0
    return weights @ v, weights


def sdpa_scale_fixed_at_eight(q, k, v, mask=None):
    """The scale of the paper's d_k = 64 example, written as a number."""
    scores = q @ k.transpose(-2, -1) / 8.0  # sqrt(64)
    weights = _fill_and_softmax(scores, mask)
    return weights @ v, weights


def sdpa_mask_as_numbers(q, k, v, mask=None):
    """The bool mask turned into 0.0 / 1.0 first, then negated with ~."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        keep = mask.float()
        scores = scores.masked_fill(~keep, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights


def sdpa_values_mT(q, k, v, mask=None):
    """The output mixes the values transposed (.mT), as the keys are in the scores."""
    _, weights = ref.scaled_dot_product_attention(q, k, v, mask)
    return torch.matmul(weights, v.mT), weights


def row_output_from_weights_scaled_by_d_k(query, keys, values):
    """Right weights returned; the output from a second softmax of the scores / d_k."""
    weights = ref.attention_row(query, keys, values)[0]
    scores = keys @ query / query.shape[-1]  # (len_k,)
    other = np.exp(scores - scores.max()) / np.exp(scores - scores.max()).sum()
    return weights, other @ values


R19F_MISTAKES = [
    Mistake(  # the output from other weights (family of blind28a-ar-output-from-unscaled-softmax)
        check_attention_row,
        row_output_from_weights_scaled_by_d_k,
        r"Your returned weights are right, but your output is not weights @ values.*Those "
        r"weights match scores divided by d_k = \d+ instead of by sqrt\(d_k\)",
    ),
    Mistake(
        check_attention_row,
        row_scaled_by_all_key_entries,
        r"You divided by √\(len_k · d_k\) = √keys\.size",
    ),
    Mistake(
        check_attention_row,
        row_scaled_by_number_of_keys,
        r"divided by √\d, the square root of the number of keys",
    ),
    Mistake(
        check_attention_row,
        row_values_scaled,
        r"no scaling, and your output is weights @ values divided by √d_k.*went onto the "
        r"output \(or the values\), not onto the scores",
    ),
    Mistake(
        check_scaled_dot_product_attention,
        sdpa_additive_mask_from_float_product,
        r"passing a mask turns the allowed entries into NaN too.*0 \* inf is NaN",
    ),
    Mistake(
        check_scaled_dot_product_attention,
        sdpa_output_scaled,
        r"no scaling, and your output is weights @ v divided by √d_k.*went onto the output",
    ),
    Mistake(
        check_scaled_dot_product_attention,
        sdpa_weights_mT_times_v,
        r"On a square input the check ran.*your output is weights\.transpose\(-2, -1\) @ v",
    ),
    Mistake(
        check_scaled_dot_product_attention,
        sdpa_dead_rows_nan_to_num_in_place,
        r"modified by an inplace operation[\s\S]*Without a mask the same backward runs, so the "
        r"step is in your mask branch: here the tensor is the softmax's output",
    ),
    Mistake(
        check_scaled_dot_product_attention,
        sdpa_scale_fixed_at_eight,
        r"with c = 8, and on an input with d_k = \d+ the check ran too, with the same c = 8: "
        r"your scale is a constant",
    ),
    Mistake(
        check_scaled_dot_product_attention,
        sdpa_mask_as_numbers,
        r"^(?![\s\S]*without dtype=torch\.bool)[\s\S]*The mask this call passed is bool.*your "
        r"code turned the mask into numbers",
    ),
    Mistake(
        check_scaled_dot_product_attention,
        sdpa_values_mT,
        r"len_k = d_v = 4, your weights are right, but your output is weights @ "
        r"v\.transpose\(-2, -1\)",
    ),
    Mistake(
        check_softmax,
        sm_over_largest_exponential,
        r"Your result is exp\(x - max\).*or they were divided by their maximum",
    ),
    Mistake(
        check_softmax,
        sm_shift_abs_of_max,
        r"^(?!.*np\.maximum\(peak, 0\))(?s:.*)absolute value of the slice maximum",
    ),
    Mistake(
        check_softmax,
        sm_shift_largest_magnitude,
        r"^(?!.*np\.maximum\(peak, 0\))(?s:.*)each slice's largest absolute value",
    ),
]


# Round 20: one argument read where another belongs, or never read (checking.stand_ins),
# found on probes whose arguments share a shape; the family of blind19b-sdpa-scores-q-
# times-q, blind13f-ar-scores-from-values and blind19b-ar-scores-from-global-cat-keys,
# proved on other substitutions.
def sdpa_scores_against_values(q, k, v, mask=None):
    scores = q @ v.transpose(-2, -1) / math.sqrt(q.shape[-1])  # v where k belongs
    if mask is not None:
        scores = scores.masked_fill(~mask, NEG_INF)
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights


def row_values_from_global(query, keys, values):
    weights = ref.softmax(keys @ query / math.sqrt(query.shape[-1]))
    return weights, weights @ ref.CAT_VALUES  # the sentence's values, not the argument


def sm_vector_reshaped_to_a_row(x, axis=-1):
    if x.ndim == 1:
        x = x.reshape(1, -1)  # a row, so that axis=-1 means the same for every input
    exps = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return exps / np.sum(exps, axis=axis, keepdims=True)


def sm_in_float32(x, axis=-1):  # float32 whatever the input: accepted with a note
    return ref.softmax(np.asarray(x, dtype=np.float32), axis=axis)


def row_pair_as_one_array(query, keys, values):
    weights = ref.softmax(keys @ query / math.sqrt(query.shape[-1]))
    output = weights @ values
    return np.asarray((weights, output))


def sm_other_axes_by_swapping_first_and_last(x, axis=-1):
    if axis != -1:
        return np.swapaxes(sm_other_axes_by_swapping_first_and_last(np.swapaxes(x, 0, -1)), 0, -1)
    exps = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return exps / np.sum(exps, axis=-1, keepdims=True)


def sdpa_output_repaired_alone(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, NEG_INF)
    weights = torch.softmax(scores, dim=-1)
    return torch.nan_to_num(weights @ v), weights  # the NaN rows of the output set to 0


def sm_moved_back_to_the_front(x, axis=-1):
    if axis in (-1, x.ndim - 1):
        exps = np.exp(x - np.max(x, axis=-1, keepdims=True))
        return exps / np.sum(exps, axis=-1, keepdims=True)
    moved = np.moveaxis(x, axis, -1)
    exps = np.exp(moved - np.max(moved, axis=-1, keepdims=True))
    return np.moveaxis(exps / np.sum(exps, axis=-1, keepdims=True), -1, 0)  # always to 0


def row_accumulator_as_long_as_the_query(query, keys, values):
    weights = ref.softmax(keys @ query / math.sqrt(query.shape[-1]))
    total = np.zeros(len(query))  # one entry per feature of the query
    for weight, row in zip(weights, values, strict=True):
        total += weight * row
    return weights, total


def row_raw_scores_returned(query, keys, values):
    weights = ref.softmax(keys @ query / math.sqrt(query.shape[-1]))
    return keys @ query, weights @ values  # the scores in the weights' place


R20_MISTAKES = [
    # the scores returned with a right output (row: _scores_returned_note; blind17f-ar-
    # returns-scores-as-weights was told the softmax was left out)
    Mistake(
        check_attention_row,
        row_raw_scores_returned,
        r"Your `weights` are the raw scores, the values before the softmax, while your output "
        r"is right",
    ),
    # an accumulator of the query's size (row: _accumulator_of_query_size; blind12m-ar-
    # output-zeros-like-query was told about a residual)
    Mistake(
        check_attention_row,
        row_accumulator_as_long_as_the_query,
        r"^(?![\s\S]*residual)[\s\S]*Your accumulator `total` has d_k = \d+ entries, the query's "
        r"shape",
    ),
    # a wrong move back after np.moveaxis (softmax: _wrong_move_back; blind12m-sm-moveaxis-
    # back-same-way was told the shape alone)
    Mistake(
        check_softmax,
        sm_moved_back_to_the_front,
        r"then moved it back with np\.moveaxis\(result, -1, -\d\)\. np\.moveaxis\(x, a, b\) is "
        r"undone by np\.moveaxis\(result, b, a\)",
    ),
    # the repair reached the output and not the returned weights (sdpa: _output_rows_
    # repaired; blind19b-sdpa-returns-unrepaired-weights was told to repair the rows)
    Mistake(
        check_scaled_dot_product_attention,
        sdpa_output_repaired_alone,
        r"your `weights` are NaN in the query rows whose mask allows no key.*while your "
        r"`output` is all zeros and finite in those rows",
    ),
    # an axis other than -1 handled by moving the first axis last (softmax: _axis_by_
    # transpose_note; blind19b-sm-other-axis-by-transpose was asked about a hard-coded axis)
    Mistake(
        check_softmax,
        sm_other_axes_by_swapping_first_and_last,
        r"normalised along axis 0, the first, instead of axis=-?\d, while axis=-1 gives the "
        r"right result on the same input.*On a 2-D input, axis=1, the same axis as -1",
    ),
    # the results packed into one array (hints: _packed_return_advice; blind19b-ar-pair-
    # packed-in-one-array was told to pad ragged rows)
    Mistake(
        check_attention_row,
        row_pair_as_one_array,
        r"^(?![\s\S]*pad it)[\s\S]*Your return line packs the results into one numpy array, "
        r"np\.asarray\(\(weights, output\)\).*\(here weights \(\d+,\), output \(\d+,\)\).*"
        r"return weights, output\.",
    ),
    # a vector promoted to a row and never restored (checking.size_one_axes:
    # promoted_vector_note; blind19b-sm-atleast-2d-never-restored was told "unsqueeze")
    Mistake(
        check_softmax,
        sm_vector_reshaped_to_a_row,
        r"^(?![\s\S]*squeez)[\s\S]*has shape \(1, (\d+)\) instead of \(\1,\): it gained a "
        r"leading axis of length 1, while a 2-D input of shape \(1, \1\) keeps its shape",
    ),
    Mistake(
        check_scaled_dot_product_attention,
        sdpa_scores_against_values,
        r"^(?![\s\S]*k\.T\b)[\s\S]*exactly what the correct code gives with v where k belongs "
        r"\(q @ v\.transpose\(-2, -1\)\): the keys \(k\) are never used",
    ),
    Mistake(
        check_attention_row,
        row_values_from_global,
        r"stay the same when only the `values` argument changes: your code never reads its "
        r"`values`.*CAT_VALUES",
    ),
]


# ------------------------------------------------------------------- round 34 (f34g0106)
def sdpa_renormalised_after_softmax(q, k, v, mask=None):  # softmax over all keys, then masked
    weights = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1)
    if mask is not None:
        weights = weights * mask
        weights = weights / weights.sum(dim=-1, keepdim=True).clamp_min(1e-30)
    return weights @ v, weights


def sdpa_exponentials_masked(q, k, v, mask=None):  # exp(s - max over all keys) * mask, renormalised
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    exps = torch.exp(scores - scores.amax(dim=-1, keepdim=True))
    if mask is not None:
        exps = exps * mask
    weights = exps / (exps.sum(dim=-1, keepdim=True) + 1e-20)
    return weights @ v, weights


def sdpa_masked_exponentials_after_masked_max(q, k, v, mask=None):  # the max over allowed keys
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    peak = scores.amax(dim=-1, keepdim=True)
    exps = torch.exp(scores - torch.where(torch.isfinite(peak), peak, torch.zeros_like(peak)))
    total = exps.sum(dim=-1, keepdim=True)
    weights = torch.where(total > 0, exps / total.clamp_min(1e-30), torch.zeros_like(exps))
    return weights @ v, weights


def sm_divided_by_mean(x, axis=-1):
    exps = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return exps / np.mean(exps, axis=axis, keepdims=True)


def sdpa_scores_through_bfloat16(q, k, v, mask=None):  # autocast habit: bfloat16 softmax
    scores = (q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))).to(torch.bfloat16)
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), float("-inf"))
    weights = F.softmax(scores, dim=-1).type_as(q)
    weights = torch.nan_to_num(weights)
    return weights @ v, weights


R34_MISTAKES = [
    Mistake(
        check_scaled_dot_product_attention,
        sdpa_scores_through_bfloat16,
        r"every weight is a bfloat16 number \(cast back to float(32|64)\)[\s\S]*lower precision",
    ),
    Mistake(
        check_scaled_dot_product_attention,
        sdpa_renormalised_after_softmax,
        r"right on every query row but \d+ \([\s\S]*exactly the rows where a key the mask "
        r"blocks scores far above every allowed key[\s\S]*are all zero[\s\S]*a mask applied "
        r"after the softmax",
    ),
    Mistake(
        check_scaled_dot_product_attention,
        sdpa_exponentials_masked,
        r"^(?![\s\S]*take the softmax of the scaled scores over the last axis)[\s\S]*"
        r"exactly the rows where a key the mask blocks scores far above every allowed key"
        r"[\s\S]*a mask applied after the softmax",
    ),
    Mistake(
        check_softmax,
        sm_divided_by_mean,
        r"the right ones times [34], the length of the slice: you divided by the mean",
    ),
]


def sm_rounded_to_float16(x, axis=-1):  # right on small or whole-number scores
    x = x.astype(np.float16)
    peak = np.max(x, axis=axis, keepdims=True)
    exps = np.exp(x - np.where(np.isfinite(peak), peak, 0))
    total = np.sum(exps, axis=axis, keepdims=True)
    return np.divide(exps, total, out=np.zeros_like(exps), where=total > 0)


def test_a_softmax_of_scores_rounded_to_float16_is_named_where_it_shows():
    """Only the hidden scores near 900, not whole numbers, show the rounding: the hidden
    run names it (the visible inputs are all exact in float16)."""
    check_softmax(sm_rounded_to_float16)
    with pytest.raises(CheckFailure, match=r"the softmax of x rounded to float16 first"):
        check_softmax(sm_rounded_to_float16, hidden=True)


R34_CORRECT = [
    Correct(check_scaled_dot_product_attention, sdpa_masked_exponentials_after_masked_max)
]


def sdpa_bias_grown_in_place(q, k, v, mask=None):  # a (len_q, len_k) bias, += a batched one
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    bias = scores.new_zeros(scores.shape[-2:])
    if mask is not None:
        blocked = torch.zeros(mask.shape, dtype=scores.dtype).masked_fill(~mask, float("-inf"))
        bias += blocked
    weights = torch.softmax(scores + bias, dim=-1).nan_to_num(0.0)
    return weights @ v, weights


# the family of blind29a-sdpa-docs-bias-two-dimensional: an in-place operation whose
# result would grow the tensor it writes into, named with the tensor, the operation and
# the operand that grows it (checking.raw_errors)
R37_MISTAKES = [
    Mistake(
        check_scaled_dot_product_attention,
        sdpa_bias_grown_in_place,
        r"`bias` has shape \(\d+, \d+\), and its in-place \+= must write its result back into "
        r"it, but the result broadcasts with `blocked` of shape \(\d+, 1, \d+, \d+\) to "
        r"\(\d+, 1, \d+, \d+\): an in-place operation cannot grow the tensor it writes into",
    ),
]


test_classic_mistake, test_correct_variant = lesson_tests(
    R20_MISTAKES
    + SOFTMAX_MISTAKES
    + ROW_MISTAKES
    + SDPA_MISTAKES
    + FORBIDDEN_MISTAKES
    + R12F_MISTAKES
    + R17F_MISTAKES
    + R19F_MISTAKES
    + R34_MISTAKES
    + R37_MISTAKES,
    SOFTMAX_CORRECT + ROW_CORRECT + SDPA_CORRECT + R34_CORRECT,
)


# ============================================================ notes for accepted choices
@pytest.mark.parametrize(
    "check, fn, note",
    [
        (check_softmax, sm_finite_fill, "uniform weights"),
        (check_softmax, sm_upcast, "the reference gives float32"),
        # the docstring accepts any float dtype: a float32 result for float64 scores is
        # compared with float32's tolerance (blind18c-softmax-cast-float32, left out of the
        # generalisation figures as an accepted choice)
        (check_softmax, sm_in_float32, "the reference gives float64"),
        (SDPA, c_annotated_transformer, "uniform weights, 1/len_k each"),
        (SDPA, c_additive_finite_mask, "finite weights that add up to 1"),
        (SDPA, c_upcast, "the reference gives float32"),
    ],
    ids=[
        "softmax-uniform",
        "softmax-float64",
        "softmax-float32",
        "sdpa-uniform",
        "sdpa-distribution",
        "sdpa-float64",
    ],
)
def test_accepted_choices_get_a_note(check, fn, note, capsys):
    check(fn)
    assert note in capsys.readouterr().out


# ========================================================= learner tracebacks: own frames only
def sdpa_raising_in_torch_functional(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    weights = F.softmax(scores, dim=7)  # raises inside torch's Python code
    return weights @ v, weights


def sdpa_raising_in_a_module(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    weights = nn.Softmax(dim=7)(scores)  # raises inside an nn.Module's call
    return weights @ v, weights


def softmax_raising_in_numpy(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / np.sum(e, axis=5, keepdims=True)  # raises inside numpy's Python code


@pytest.mark.parametrize(
    "check, fn",
    [
        (SDPA, sdpa_raising_in_torch_functional),
        (SDPA, sdpa_raising_in_a_module),
        (check_softmax, softmax_raising_in_numpy),
    ],
    ids=["torch-functional", "torch-module", "numpy"],
)
def test_learner_traceback_shows_only_the_learners_frames(check, fn):
    with pytest.raises(CheckFailure) as caught:
        check(fn)
    failure = caught.value
    assert fn.__name__ in failure.learner_traceback
    rendered = "\n".join(failure._render_traceback_())
    for text in (failure.learner_traceback, rendered):
        assert "site-packages" not in text, text
        assert "torch/nn" not in text and "numpy/_core" not in text, text
        assert "transformer_course" not in text, text


# ================================================================================ oracles
@pytest.mark.parametrize("seed", range(5))
def test_reference_softmax_matches_torch(seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(3, 4, 5)) * 30
    for axis in range(-3, 3):
        expected = torch.softmax(torch.from_numpy(x), dim=axis).numpy()
        np.testing.assert_allclose(ref.softmax(x, axis=axis), expected, rtol=1e-12, atol=1e-15)


def test_reference_softmax_matches_a_logsumexp_oracle():
    """softmax(x) = exp(x - logsumexp(x)), with logsumexp summed in math.fsum (no scipy)."""
    rng = np.random.default_rng(11)
    x = rng.normal(size=(6, 9)) * 200
    for row, got in zip(x, ref.softmax(x), strict=True):
        top = max(row)
        lse = top + math.log(math.fsum(math.exp(s - top) for s in row))
        np.testing.assert_allclose(got, [math.exp(s - lse) for s in row], rtol=1e-12, atol=1e-300)


def test_reference_softmax_by_hand():
    # softmax([0, ln 2, ln 3]) = [1, 2, 3] / 6; -inf entries get 0; all -inf -> zeros.
    x = np.array([[0.0, math.log(2), math.log(3)], [NEG_INF, 0.0, NEG_INF], [NEG_INF] * 3])
    expected = np.array([[1 / 6, 2 / 6, 3 / 6], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
    np.testing.assert_allclose(ref.softmax(x), expected, rtol=1e-12, atol=0)
    big = np.array([1000.0, 1000.0])
    np.testing.assert_allclose(ref.softmax(big), [0.5, 0.5])
    assert ref.softmax(big.astype(np.float32)).dtype == np.float32


def test_uniform_is_the_limit_of_a_softmax_of_equal_entries():
    """The lesson's argument for accepting uniform weights on an all -inf slice."""
    for c in (0.0, -1e3, -1e300, float(np.finfo(np.float64).min)):
        np.testing.assert_allclose(ref.softmax(np.full(5, c)), np.full(5, 0.2))


def test_attention_row_matches_torch_sdpa_with_one_query():
    g = torch.Generator().manual_seed(3)
    for len_k, d_k, d_v in [(6, 3, 4), (9, 16, 2), (1, 5, 7)]:
        q = torch.randn(d_k, generator=g, dtype=torch.float64)
        k = torch.randn(len_k, d_k, generator=g, dtype=torch.float64)
        v = torch.randn(len_k, d_v, generator=g, dtype=torch.float64)
        weights, output = ref.attention_row(q.numpy(), k.numpy(), v.numpy())
        torch.testing.assert_close(torch.from_numpy(weights), torch.softmax(k @ q / d_k**0.5, 0))
        expected = F.scaled_dot_product_attention(q[None], k, v)[0]
        torch.testing.assert_close(torch.from_numpy(output), expected)


def test_the_lessons_hand_worked_numbers():
    """The prose quotes these numbers; they must follow from the data the lesson uses."""
    from transformer_course.data import BLACK_CAT

    assert ref.CAT_WORDS == BLACK_CAT.lower().split()  # the reference spells out the sentence
    drank = ref.CAT_QUERIES[ref.CAT_WORDS.index("drank")]
    scores = {w: float(k @ drank) for w, k in zip(ref.CAT_WORDS, ref.CAT_KEYS, strict=True)}
    assert (scores["black"], scores["cat"], scores["milk"]) == (-4.0, 1.5, 3.5)
    weights, output = ref.attention_row(drank, ref.CAT_KEYS, ref.CAT_VALUES)
    assert ref.CAT_WORDS[int(np.argmax(weights))] == "milk" and 0.45 < weights.max() < 0.6
    assert np.argmax(output) == 0  # mostly "liquid"
    # Cross-attention, the row of "la": scaled scores (2, 1, 0, 0) -> (0.61, 0.22, 0.08, 0.08).
    exps = [math.exp(s) for s in (2, 1, 0, 0)]
    by_hand = [e / sum(exps) for e in exps]
    la = torch.tensor([[2.0, 1.0, 0.0, 0.0]], dtype=torch.float64)
    eye = torch.eye(4, dtype=torch.float64)
    _, w = ref.scaled_dot_product_attention(la, 2 * eye, eye)
    np.testing.assert_allclose(w[0].numpy(), by_hand)
    np.testing.assert_allclose(by_hand, [0.61, 0.22, 0.08, 0.08], atol=0.006)


# ------------------------------------------------------------------------ sdpa oracles
def _random_case(seed, lead, len_q, len_k, d_k, d_v, mask_shape=None, empty_rows=()):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(*lead, len_q, d_k, generator=g, dtype=torch.float64)
    k = torch.randn(*lead, len_k, d_k, generator=g, dtype=torch.float64)
    v = torch.randn(*lead, len_k, d_v, generator=g, dtype=torch.float64)
    mask = None
    if mask_shape is not None:
        mask = torch.rand(*mask_shape, generator=g) < 0.5
        mask[..., 0] = True
        for row in empty_rows:
            mask[row] = False
    return q, k, v, mask


ORACLE_CASES = [
    dict(seed=0, lead=(), len_q=3, len_k=5, d_k=4, d_v=6),
    dict(seed=1, lead=(2,), len_q=4, len_k=4, d_k=8, d_v=8, mask_shape=(4, 4)),
    dict(seed=2, lead=(2, 3), len_q=5, len_k=7, d_k=16, d_v=3, mask_shape=(2, 1, 1, 7)),
    dict(
        seed=3,
        lead=(2, 2),
        len_q=6,
        len_k=3,
        d_k=5,
        d_v=2,
        mask_shape=(2, 2, 6, 3),
        empty_rows=[(0, 1, 2), (1, 0, 5)],
    ),
    dict(
        seed=4, lead=(3,), len_q=1, len_k=9, d_k=64, d_v=64, mask_shape=(3, 1, 9), empty_rows=[(2,)]
    ),
]


@pytest.mark.parametrize("case", ORACLE_CASES, ids=lambda c: f"seed{c['seed']}")
def test_reference_output_matches_torch_sdpa(case):
    """F.scaled_dot_product_attention (bool mask, True = attend; fully masked rows -> 0 in
    PyTorch 2.5 and later, the floor pyproject.toml sets)."""
    q, k, v, mask = _random_case(**case)
    out, _ = ref.scaled_dot_product_attention(q, k, v, mask)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, attn_mask=mask))


@pytest.mark.parametrize("case", ORACLE_CASES, ids=lambda c: f"seed{c['seed']}")
def test_reference_weights_match_torch_sdpa_on_identity_values(case):
    """With v = the identity matrix, PyTorch's output *is* the weight matrix."""
    q, k, _, mask = _random_case(**case)
    eye = torch.eye(k.shape[-2], dtype=torch.float64)  # (len_k, len_k)
    _, weights = ref.scaled_dot_product_attention(q, k, eye, mask)
    torch.testing.assert_close(weights, F.scaled_dot_product_attention(q, k, eye, attn_mask=mask))


@pytest.mark.parametrize("case", ORACLE_CASES, ids=lambda c: f"seed{c['seed']}")
def test_reference_weights_match_the_paper_formula_by_hand(case):
    """Dense float64 formula, entry by entry: w_ij = exp(s_ij) / sum_{allowed j'} exp(s_ij')."""
    q, k, v, mask = _random_case(**case)
    out, weights = ref.scaled_dot_product_attention(q, k, v, mask)
    lead = weights.shape[:-2]
    len_q, len_k = weights.shape[-2:]
    full = (
        torch.ones(*lead, len_q, len_k, dtype=torch.bool)
        if mask is None
        else mask.expand(*lead, len_q, len_k)
    )
    qe, ke, ve = (t.expand(*lead, *t.shape[-2:]) for t in (q, k, v))
    for index in np.ndindex(*lead) if lead else [()]:
        for i in range(len_q):
            s = [float(qe[index][i] @ ke[index][j]) / math.sqrt(q.shape[-1]) for j in range(len_k)]
            allowed = [bool(full[index][i, j]) for j in range(len_k)]
            top = max((s[j] for j in range(len_k) if allowed[j]), default=0.0)
            e = [math.exp(s[j] - top) if allowed[j] else 0.0 for j in range(len_k)]
            total = sum(e)
            expected = [x / total if total else 0.0 for x in e]
            np.testing.assert_allclose(weights[index][i].numpy(), expected, rtol=1e-12, atol=1e-15)
            row = sum(expected[j] * ve[index][j].numpy() for j in range(len_k))
            np.testing.assert_allclose(out[index][i].numpy(), row, rtol=1e-12, atol=1e-14)


def test_multihead_attention_with_one_head_is_the_reference_and_its_masks_mean_the_opposite():
    """nn.MultiheadAttention with identity projections is plain attention on (x, x, x),
    but its bool attn_mask / key_padding_mask mark positions that may NOT be attended."""
    d_model, length = 4, 5
    mha = nn.MultiheadAttention(d_model, num_heads=1, bias=False, batch_first=True)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.eye(d_model).repeat(3, 1))
        mha.out_proj.weight.copy_(torch.eye(d_model))
    x = torch.randn(2, length, d_model, generator=torch.Generator().manual_seed(0))
    allowed = torch.tril(torch.ones(length, length, dtype=torch.bool))  # True = may attend
    out, weights = ref.scaled_dot_product_attention(x, x, x, allowed)
    mha_out, mha_w = mha(x, x, x, attn_mask=~allowed)  # True = blocked
    torch.testing.assert_close(mha_out, out)
    torch.testing.assert_close(mha_w, weights)
    wrong_out, _ = mha(x, x, x, attn_mask=allowed)  # our convention, read the other way
    assert not torch.allclose(wrong_out, out)
    keys_real = torch.tensor([[True] * 5, [True, True, True, False, False]])  # True = real token
    out_p, _ = ref.scaled_dot_product_attention(x, x, x, keys_real[:, None, :])
    mha_p, _ = mha(x, x, x, key_padding_mask=~keys_real)  # True = padding, to be ignored
    torch.testing.assert_close(mha_p, out_p)


def test_scaling_keeps_score_variance_at_one():
    """The paper's argument (footnote 4): q·k of unit-variance entries has variance d_k."""
    g = torch.Generator().manual_seed(0)
    for d_k in (4, 64, 512):
        q = torch.randn(20000, d_k, generator=g, dtype=torch.float64)
        k = torch.randn(20000, d_k, generator=g, dtype=torch.float64)
        dots = (q * k).sum(-1)
        assert abs(float(dots.var()) / d_k - 1) < 0.05
        assert abs(float((dots / math.sqrt(d_k)).var()) - 1) < 0.05


# ==================================================================== the lesson's text
def _master_cells():
    return jupytext.read(MASTER, fmt="py:percent").cells


def _markdown() -> str:
    """The master's markdown, whitespace (line breaks included) folded to single spaces."""
    text = " ".join(cell.source for cell in _master_cells() if cell.cell_type == "markdown")
    return " ".join(text.split())


def test_fully_masked_convention_claims_name_the_pytorch_version():
    """F.scaled_dot_product_attention returns zeros for a fully masked row only from
    PyTorch 2.5; every claim says so, and the package requires it."""
    text = _markdown()
    claims = [m.start() for m in re.finditer(r"F\.scaled_dot_product_attention` returns", text)]
    claims += [m.start() for m in re.finditer(r"as in `F\.scaled_dot_product_attention`", text)]
    assert claims
    for start in claims:
        assert "PyTorch 2.5 and later" in text[start : start + 200], text[start : start + 200]
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert any(
        dep.replace(" ", "").startswith("torch>=2.5")
        for dep in pyproject["project"]["dependencies"]
    )
    major, minor = (int(part) for part in torch.__version__.split(".")[:2])
    assert (major, minor) >= (2, 5)


def test_cross_attention_is_pointed_to_the_right_lessons():
    text = _markdown()
    assert "lesson 07" not in text
    assert "lesson 05 §4" in text
    assert "lesson 06 §5" in text


def test_no_solution_code_in_the_prose_before_the_exercises():
    """The prose (and the hints) before an exercise never give its answer code."""
    cells = _master_cells()
    answer = next(
        i
        for i, c in enumerate(cells)
        if c.metadata.get("nbgrader", {}).get("grade_id") == "scaled_dot_product_attention"
    )
    before = "\n".join(c.source for c in cells[:answer] if c.cell_type == "markdown")
    for line in (
        "masked_fill(~mask",
        "mask.any(dim=-1, keepdim=True)",
        "q @ k.transpose(-2, -1)",
        "np.max(x, axis=axis, keepdims=True)",
        "keys @ query / math.sqrt",
        "weights @ values",
    ):
        assert line not in before, f"the prose gives away {line!r}"


def test_quiz_choices_in_the_lesson_match_the_checks():
    text = _markdown()
    for quiz in QUIZZES:
        for letter, choice in quiz.choices.items():
            assert f"({letter}) {choice}" in text, f"{quiz.name}: choice ({letter}) differs"


def test_lesson_has_core_path_deeper_dives_and_further_reading():
    text = _markdown()
    assert "Deeper dive" in text and "Further reading" in text
    for source in ("1706.03762", "illustrated-transformer", "annotated-transformer", "d2l.ai"):
        assert source in text
    assert "Predict, then check" in text


@pytest.mark.parametrize("hidden", [False, True])
def test_a_random_answer_gets_the_same_message_whatever_the_global_stream(hidden):
    """The check seeds the global torch stream before each call of the learner's function
    (another seed for the second call that detects randomness): F.dropout left in draws the
    same masks whatever state the stream was in, so the same answer always gets the same
    message (the same largest difference)."""
    messages = []
    for seed in (1, 12345):
        torch.manual_seed(seed)
        torch.rand(seed % 7 + 1)  # and a stream moved on by a different amount
        with pytest.raises(CheckFailure) as failure:
            check_scaled_dot_product_attention(a_functional_dropout, hidden=hidden)
        messages.append(str(failure.value))
    assert "two calls with the same inputs returned different weights" in messages[0]
    assert messages[0] == messages[1]


def test_quiz_score_scale_d_model_says_why_without_the_answer():
    from transformer_course.checks.attention import QUIZ_SCORE_SCALE

    why = QUIZ_SCORE_SCALE.why["b"]
    assert re.search(r"per head, d_model / num_heads", why)
    assert "(c)" not in why and QUIZ_SCORE_SCALE.choices["c"] not in why


def test_quiz_values_returned_for_their_letters_are_read():
    """The paper's sizes and the weights' values returned in place of a letter are read as
    the choice they stand for; 8 (sqrt(d_k) or the number of heads) is left unread."""
    from transformer_course.checks.attention import (
        check_quiz_fully_masked,
        check_quiz_score_scale,
    )

    with pytest.raises(CheckFailure, match=r"512, the paper's d_model, which is choice \(b\)"):
        check_quiz_score_scale(lambda: 512)
    with pytest.raises(CheckFailure, match=r"returned the number 8, an int: this question"):
        check_quiz_score_scale(lambda: 8)
    with pytest.raises(CheckFailure, match=r"0, the weight on every key, which is choice \(b\)"):
        check_quiz_fully_masked(lambda: torch.tensor(0.0))
