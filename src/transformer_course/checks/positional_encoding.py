"""Checks for lesson 03: sinusoidal positional encoding.

Three exercises and two concept questions: the table ``positional_encoding(max_len,
d_model)``, the rotation ``relative_shift(k, d_model)`` that moves every position by
k, and the module ``PositionalEncoding(d_model, max_len, dropout)`` that adds the
table to a batch of embeddings.

The tables and matrices that classic mistakes give come from the float64 oracles
``sinusoidal_positions_f`` and ``relative_shift_f`` of
:mod:`transformer_course.checking.oracles`, one knob per mistake.

What the checks accept beyond the reference's own choices:

* ``positional_encoding`` and ``relative_shift``: any float dtype (float64 preferred,
  a note otherwise); values are compared at float32 precision or looser, because
  computing the angles in float32 (PyTorch's default, or the exp/log form of
  10000^(2i/d_model)) is a correct way too.
* ``PositionalEncoding``: the table may come from the learner's own
  ``positional_encoding`` or from any formula; it may be stored in any layout that
  broadcasts correctly ((1, max_len, d_model) as in the Annotated Transformer, or
  (max_len, d_model)), under any name, in any dtype as long as the output keeps x's
  dtype; and it may stay out of the state dict (a plain attribute, as d2l keeps it,
  or a non-persistent buffer), with a note. A table stored as a learnable
  parameter is rejected: it would be trained.
"""

from __future__ import annotations

import math
import re

import numpy as np
import torch

from transformer_course.checking import Checker, CheckFailure, tolerance, torch_generator
from transformer_course.checking.layers import mistake_pairs, mistake_values
from transformer_course.checking.modules import build_module
from transformer_course.checking.oracles import relative_shift_f, sinusoidal_positions_f
from transformer_course.checking.quiz import Quiz, quiz_check
from transformer_course.exercise import Exercise
from transformer_course.reference import positional_encoding as ref

__all__ = [
    "check_PositionalEncoding",
    "check_positional_encoding",
    "check_quiz_row_length",
    "check_quiz_shift",
    "check_relative_shift",
]

# float32 arithmetic (torch's default, or the exp/log form of 10000^(2i/d_model))
# loses about 1e-7 of the angle per unit of position: at position 255 that is a
# few 1e-5 after sin/cos. Every real mistake is off by far more than 1e-4.
_FLOAT32_FORMULA = {"rtol": 1e-5, "atol": 1e-4}


def _tolerance(*dtypes) -> dict[str, float]:
    """The tolerance of the least precise dtype, but never tighter than a float32 formula."""
    fit = tolerance(*dtypes)
    return {key: max(fit[key], _FLOAT32_FORMULA[key]) for key in fit}


# ------------------------------------------------------------------ wrong tables
#: diagnosis -> the knobs of sinusoidal_positions_f that make that mistake
_PE_MISTAKES: dict[str, dict] = {
    "Sine and cosine are swapped: even features (0, 2, 4, ...) hold the sine, "
    "PE[pos, 2i] = sin(...), and odd features the cosine, PE[pos, 2i+1] = cos(...). "
    "(Row 0 is a give-away: it must read 0, 1, 0, 1, ...)": {"swap": True},
    "The sin and cos halves are concatenated (all sines in features 0..d_model/2-1, then "
    "all cosines). Some codebases (tensor2tensor, for one) use that layout and it carries "
    "the same information, but the paper, and this course, interleave them: sin in "
    "feature 2i, cos in feature 2i+1 (the even and the odd columns).": {"layout": "concatenated"},
    "The exponent uses i/d_model where the formula has 2i/d_model (i counts the "
    "sin/cos *pairs*, so the exponent runs over 0, 2/d_model, 4/d_model, ...). With i "
    "alone the wavelengths stop at about 100·2π instead of reaching 10000·2π.": {"exponent": "i"},
    "The cos feature 2i+1 has the wrong frequency: you put the feature index j = 2i+1 "
    "in the exponent. Both members of a pair share one angle, pos / 10000^(2i/d_model) "
    "with the *even* index 2i (use j - j % 2, or compute the angles once per pair).": {
        "exponent": "j"
    },
    "The exponent is doubled: you wrote 2·j/d_model with j the even feature index, but "
    "j already *is* 2i (range(0, d_model, 2) gives 2i). Use j/d_model, or 2i/d_model "
    "with i = j // 2.": {"exponent": "2j"},
    "The exponent uses the odd index 2i+1 for both features of pair i "
    "(np.arange(1, d_model, 2) where np.arange(0, d_model, 2) belongs): pair 0 must turn "
    "with frequency 1, 10000^0, so that feature 0 is sin(pos). The exponent is 2i/d_model, "
    "with the even index 2i.": {"exponent": "2i+1"},
    "The exponent is 2i / (d_model - 2), as tensor2tensor spreads its frequencies (num_"
    "timescales - 1 in the denominator): the last pair then reaches exactly 1/10000 and "
    "every pair after the first turns too slowly. The paper's exponent is 2i/d_model: "
    "divide by d_model, not d_model - 2.": {"exponent": "t2t"},
    "Every pair has the same frequency (1): the exponent 2i/d_model came out as 0. Did "
    "you use integer division (2 * i // d_model)?": {"exponent": "int"},
    "The base is 1000; the paper uses 10000 (10000^(2i/d_model)).": {"base": 1000.0},
    "The angle is pos *times* 10000^(2i/d_model) (multiplied instead of divided); it must "
    "be pos *divided* by it "
    "(equivalently times 10000^(-2i/d_model), i.e. exp(-2i·ln(10000)/d_model)).": {
        "multiply": True
    },
    "Positions start at 1; they start at 0 (row 0 is sin(0), cos(0), ... = 0, 1, 0, 1, "
    "...). Count the positions from 0 to max_len - 1.": {"start": 1},
}


def _pe_compute(max_len, d_model):
    return lambda **knobs: sinusoidal_positions_f(max_len, d_model, **knobs)


def _one_function(max_len, d_model, function):
    """The table with `function` (np.sin or np.cos) in every feature, at each pair's angle."""
    positions = np.arange(max_len, dtype=np.float64)[:, None]
    angles = positions / np.power(10000.0, np.arange(0, d_model, 2) / d_model)
    table = np.zeros((max_len, d_model))
    table[:, 0::2] = function(angles)
    table[:, 1::2] = function(angles[:, : d_model // 2])
    return table


def _rows_alternate(max_len, d_model):
    """sin on the even positions (rows) and cos on the odd ones, of the right angles."""
    pairs = 2 * (np.arange(d_model) // 2)  # (d_model,): 2i of each feature
    angles = np.arange(max_len, dtype=np.float64)[:, None] / np.power(10000.0, pairs / d_model)
    even_row = (np.arange(max_len) % 2 == 0)[:, None]
    return np.where(even_row, np.sin(angles), np.cos(angles))


def _pe_mistakes(max_len, d_model):
    """diagnosis -> (a zero-argument function giving the table that mistake produces)."""
    mistakes = mistake_values(_pe_compute(max_len, d_model), _PE_MISTAKES)
    mistakes[
        "The odd features hold a sine too: there is no cosine at all (a copy of the even "
        "line?). Feature 2i+1 is cos(pos / 10000^(2i/d_model)), the cosine of the same angle "
        "as feature 2i (row 0 reads 0, 1, 0, 1, ...)."
    ] = lambda: _one_function(max_len, d_model, np.sin)
    mistakes[
        "The even features hold a cosine too: there is no sine at all. Feature 2i is "
        "sin(pos / 10000^(2i/d_model)), feature 2i+1 the cosine of the same angle."
    ] = lambda: _one_function(max_len, d_model, np.cos)
    mistakes[
        "The sines and cosines alternate along the wrong axis: yours has sin on the even "
        "*positions* (rows) and cos on the odd ones, as pe[0::2, :] = sin, pe[1::2, :] = cos "
        "would write. They alternate along the features: pe[:, 0::2] = sin and "
        "pe[:, 1::2] = cos, so every row holds sin, cos, sin, cos, ..."
    ] = lambda: _rows_alternate(max_len, d_model)
    if d_model % 2:
        last = (
            f"With odd d_model={d_model} the last feature, {d_model - 1}, is even: it is the "
            f"sine of pair i={(d_model - 1) // 2}, which simply has no cosine partner. "
        )
        mistakes[last + "Yours is all zeros there."] = lambda: sinusoidal_positions_f(
            max_len, d_model, odd_last="zero"
        )
        mistakes[last + "Yours holds a cosine there."] = lambda: sinusoidal_positions_f(
            max_len, d_model, odd_last="cos"
        )
    return mistakes


def _pe_pairs(positional_encoding, cases, current, tol) -> dict[str, np.ndarray]:
    """Two mistakes of the table at once that agree with the learner's tables on every
    case the check runs ({both messages: the table for the ``current`` case}): on one
    small table two
    pairs of knobs can coincide (base 1000 with 4i/d_model is 10000 with 3i/d_model at
    d_model = 4), so a pair is named only when every case agrees with it."""
    tables = []
    for max_len, d_model in cases:
        try:
            tables.append(np.asarray(positional_encoding(max_len, d_model), dtype=np.float64))
        except Exception:  # the learner's code fails on another case: no pair is confirmed
            return {}
    per_case = [mistake_pairs(_pe_compute(*case), _PE_MISTAKES) for case in cases]
    found = {}
    for message in per_case[0]:
        values = [pairs[message]() for pairs in per_case]
        if all(
            v is not None
            and np.shape(v) == t.shape
            and np.allclose(t, np.asarray(v, dtype=np.float64), **tol)
            for v, t in zip(values, tables, strict=True)
        ):
            found[message] = values[cases.index(current)]
    return found


def _pe_layout_hint(got: np.ndarray, max_len: int, d_model: int) -> str | None:
    """When each of the learner's features is one of the reference's (the sine or cosine of
    one pair, each used once) but in another order: say which order, feature by feature."""
    expected = ref.positional_encoding(max_len, d_model)
    atol = _FLOAT32_FORMULA["atol"]
    names = [f"{'cos' if j % 2 else 'sin'}{j // 2}" for j in range(d_model)]
    order = []
    for j in range(d_model):
        same = [m for m in range(d_model) if np.allclose(got[:, j], expected[:, m], atol=10 * atol)]
        if len(same) != 1:
            return None  # not a reference feature, or one that several features equal
        order.append(same[0])
    if sorted(order) != list(range(d_model)) or order == list(range(d_model)):
        return None

    def show(indices) -> str:
        shown = ", ".join(names[m] for m in indices[:8])
        return f"[{shown}{', ...' if len(indices) > 8 else ''}]"

    first = next(j for j in range(d_model) if order[j] != j)
    return (
        "Your table holds exactly the right sines and cosines, but in another feature order "
        f"(sinI / cosI: the sine / cosine of pair i): yours is {show(order)}, the course's is "
        f"{show(list(range(d_model)))}. The first misplaced one is feature {first}, which holds "
        f"{names[order[first]]} instead of {names[first]}. "
        + (
            "Each sine sits next to its cosine, but the pairs are out of order: pair i "
            "(frequency 1 / 10000^(2i/d_model)) belongs in features 2i and 2i+1."
            if all(order[j] // 2 == order[j + 1] // 2 for j in range(0, d_model - 1, 2))
            else "Interleave them: PE[:, 2i] = sin(angle_i), PE[:, 2i+1] = cos(angle_i) "
            "(pe[:, 0::2] and pe[:, 1::2])."
        )
    )


def _pe_mistakes_and_layout(got: np.ndarray, max_len: int, d_model: int) -> dict:
    """The named mistakes, then the layout diagnosis only where none of them gives the
    learner's table (a sin/cos swap or the sin|cos halves are permutations too, and their
    own messages say more)."""
    named = _pe_mistakes(max_len, d_model)
    for wrong in named.values():
        value = wrong() if callable(wrong) else wrong
        if (
            value is not None
            and np.shape(value) == got.shape
            and np.allclose(value, got, atol=1e-3)
        ):
            return named
    return {**named, **_pe_layout(got, max_len, d_model)}


def _pe_layout(got: np.ndarray, max_len: int, d_model: int) -> dict[str, np.ndarray]:
    """{the layout diagnosis: the reference's features in the learner's order}, or {}."""
    if got.shape != (max_len, d_model) or not np.isfinite(got).all():
        return {}
    message = _pe_layout_hint(got, max_len, d_model)
    if message is None:
        return {}
    expected = ref.positional_encoding(max_len, d_model)
    order = [
        next(m for m in range(d_model) if np.allclose(got[:, j], expected[:, m], atol=1e-3))
        for j in range(d_model)
    ]
    return {message: expected[:, order]}


def _pe_property_hint(got: np.ndarray, max_len: int, d_model: int) -> str:
    """Explain the first basic property the learner's table violates."""
    if np.abs(got).max() > 1 + 1e-6:
        return (
            "Some values are outside [-1, 1], which sin and cos never leave. Is the angle "
            "inside the sin/cos?"
        )
    atol = _FLOAT32_FORMULA["atol"]
    row0 = np.where(np.arange(d_model) % 2 == 0, 0.0, 1.0)
    if not np.allclose(got[0], row0, atol=atol):
        return (
            f"Row 0 (position 0) should be sin(0), cos(0), ... = {np.round(row0[:6], 3)}... "
            f"but yours starts {np.round(got[0, :6], 3)}."
        )
    if not np.allclose(got[:, 0], np.sin(np.arange(max_len)), atol=atol):
        return "Feature 0 should be sin(pos): pair i = 0 has frequency 1 (wavelength 2π)."
    pairs = d_model // 2
    sin_cos = got[:, 0 : 2 * pairs : 2] ** 2 + got[:, 1 : 2 * pairs : 2] ** 2
    if pairs and not np.allclose(sin_cos, 1.0, atol=10 * atol):
        return (
            "Features 2i and 2i+1 should be the sine and cosine of the *same* angle, so "
            "their squares should sum to 1, but they don't."
        )
    return (
        "Compare with the formula: PE[pos, 2i] = sin(pos / 10000^(2i/d_model)), "
        "PE[pos, 2i+1] = cos(pos / 10000^(2i/d_model))."
    )


# --------------------------------------------------------------- positional_encoding
_VISIBLE_PE = [(6, 4), (20, 10), (9, 7), (1, 3)]
_HIDDEN_PE = [(12, 8), (64, 32), (17, 9), (256, 128), (30, 3), (1, 6), (5, 1)]


def _expect_array(c: Checker, got, what: str, shape: str) -> None:
    """A numpy array, with a word for the learner who returned a tensor."""
    hint = f"Return a numpy array of shape {shape}."
    if isinstance(got, torch.Tensor):
        hint = (
            "You returned a torch.Tensor. The exercises of this lesson work in numpy (the "
            "module of exercise 3 turns the table into a tensor itself): return a numpy "
            "array, e.g. convert a tensor with `.numpy()`."
        )
    c.expect_type(got, np.ndarray, what, hint)


def _odd_hint(max_len: int, d_model: int) -> str:
    return (
        f"This input has an odd d_model: there are {(d_model + 1) // 2} sine features "
        f"(0, 2, ..., {d_model - 1}) but only {d_model // 2} cosine features, so the cosines "
        f"take only the first {d_model // 2} angles."
    )


def _unwritten_columns(got: np.ndarray) -> str:
    """Feature columns that are 0 at every position (the reference has none: feature 2i
    is a sine, 0 only at position 0, and 2i + 1 a cosine, 1 there): nothing was written
    to them; "" when there are none."""
    empty = [int(j) for j in np.flatnonzero((got == 0).all(axis=0))]
    if not empty:
        return ""
    parity = {j % 2 for j in empty}
    which = (
        "the even features 2i (the sines)"
        if parity == {0}
        else "the odd features 2i + 1 (the cosines)"
        if parity == {1}
        else "features of both kinds"
    )
    return (
        f"Your features {empty} are 0 at every position: nothing was written to them, "
        f"{which}. The sines go to pe[:, 0::2] (start 0) and the cosines to pe[:, 1::2] "
        "(start 1): a slice start off by one writes one kind over the other."
    )


def _column_slice_hint(max_len: int, d_model: int):
    """For numpy's "could not broadcast input array from shape (max_len, a) into shape
    (max_len, b)": a slice of the table's features with b columns got a sines' or
    cosines' a."""

    def text(exc: BaseException) -> str:
        found = re.search(r"from shape \((\d+),(\d+)\) into shape \((\d+),(\d+)\)", str(exc))
        if not found:
            return ""
        rows, given, _, room = (int(g) for g in found.groups())
        if rows != max_len or given not in {(d_model + 1) // 2, d_model // 2}:
            return ""
        return (
            f"Your slice of the table's features holds {room} columns, but it was given "
            f"{given} (one per pair): the sines go to pe[:, 0::2] ({(d_model + 1) // 2} "
            f"columns) and the cosines to pe[:, 1::2] ({d_model // 2}); a slice start off by "
            "one (2::2, say) or another step holds another count."
        )

    return lambda exc: isinstance(exc, ValueError), text


def _pe_confirmed(positional_encoding, cases, current, got64, tol) -> dict:
    """The mistakes of the ``current`` case, less the named ones that another case the
    check runs contradicts: on one small table two mistakes can coincide (at d_model = 4 a
    doubled exponent, 4i/d_model, equals tensor2tensor's 2i/(d_model - 2)), so a cause is
    stated only when the learner's tables agree with it on every case that can be run."""
    expected = ref.positional_encoding(*current)
    if got64.shape == expected.shape and np.allclose(got64, expected, **tol):
        return {}  # right on this case: nothing to diagnose (and no extra calls)
    mistakes = _pe_mistakes_and_layout(got64, *current)
    others = []
    for case in cases:
        if case == current:
            continue
        try:
            table = np.asarray(positional_encoding(*case), dtype=np.float64)
        except Exception:  # that case gets its own message when the check reaches it
            continue
        others.append((table, _pe_mistakes(*case)))
    confirmed = {}
    for message, wrong in mistakes.items():
        agrees = True
        for table, theirs in others:
            if message in theirs:
                value = theirs[message]()
                agrees = (
                    value is not None
                    and np.shape(value) == table.shape
                    and np.allclose(table, np.asarray(value, dtype=np.float64), **tol)
                )
                if not agrees:
                    break
        if agrees:
            confirmed[message] = wrong
    return confirmed


def _exponent_why(c: float, d_model: int) -> str:
    """What a measured exponent c·i/d_model (i the pair index) says about the code."""
    if abs(c - 4.0) < 1e-3:
        return (
            " 4i, not 2i: did you multiply by 2 indices that already are even (2i)? "
            "np.arange(0, d_model, 2) gives 2i itself."
        )
    if abs(c - 1.0) < 1e-3:
        return " i, not 2i: the exponent needs twice the pair index."
    if abs(c - 2.0 * d_model**2) < 1e-3 * d_model**2:
        return (
            f" That is 2i·d_model = 2i·{d_model}: the exponent multiplies by d_model where it "
            "divides, 2i / d_model."
        )
    return ""


def _pe_fitted_frequencies(got: np.ndarray, max_len: int, d_model: int) -> dict:
    """A table of sin/cos pairs whose frequencies fall geometrically, w_i =
    10000^(-c·i/d_model), with another c than 2 (nor 1 or 4, named mistakes of their own):
    {the c measured from the learner's row 1: the table it gives}, kept by the matcher only
    when that table is the learner's. {} otherwise."""
    pairs = d_model // 2
    if max_len < 2 or pairs < 2 or got.shape != (max_len, d_model):
        return {}
    two_i = 2 * np.arange(pairs)
    w = np.arctan2(got[1, two_i], got[1, two_i + 1])  # each pair's angle at position 1
    index = np.arange(1, pairs)
    usable = (np.abs(w[1:]) < 3.0) & (w[1:] > 0)  # away from the wrap at ±π
    if not usable.any():
        return {}
    slope = -float(np.sum(index[usable] * np.log(w[1:][usable])) / np.sum(index[usable] ** 2))
    c = slope * d_model / math.log(10000.0)
    if c <= 0 or any(abs(c - named) < 1e-3 for named in (1.0, 2.0, 4.0)):
        return {}
    rates = np.exp(-slope * np.arange((d_model + 1) // 2))
    angles = np.arange(max_len, dtype=np.float64)[:, None] * rates  # (max_len, pairs)
    model = np.zeros((max_len, d_model))
    model[:, 0::2] = np.sin(angles)
    model[:, 1::2] = np.cos(angles[:, : d_model // 2])
    shown = f"{round(c)}i" if abs(c - round(c)) < 1e-3 else f"{c:.4g}·i"
    message = (
        f"Your sines and cosines are in place, but pair i turns at pos / 10000^({shown}/d_model) "
        "(i the pair index, measured from your table): the exponent is 2i/d_model."
        + _exponent_why(c, d_model)
    )
    return {message: model}


def check_positional_encoding(positional_encoding, *, hidden: bool = False) -> None:
    """positional_encoding(max_len, d_model) -> the (max_len, d_model) sinusoidal table.

    Any float dtype passes (float64 preferred, with a note otherwise).
    """
    with Checker("positional_encoding", hidden=hidden) as c:
        c.require_callable(positional_encoding)
        cases = _HIDDEN_PE if hidden else _VISIBLE_PE
        for max_len, d_model in cases:
            what = f"positional_encoding(max_len={max_len}, d_model={d_model})"
            got = c.call(
                positional_encoding,
                max_len,
                d_model,
                call_repr=what,
                hints=[
                    _column_slice_hint(max_len, d_model),
                    *([(Exception, _odd_hint(max_len, d_model))] if d_model % 2 else []),
                ],
            )
            _expect_array(c, got, what, "(max_len, d_model)")
            shape = tuple(got.shape)
            hint = "Rows are positions, columns are features: (max_len, d_model)."
            if shape == (d_model, max_len):
                hint += " Yours looks transposed."
            elif shape == (1, max_len, d_model):
                hint += " Return the 2-D table; the batch axis is added later, by the module."
            elif len(shape) == 2 and shape[0] == max_len and shape[1] == d_model + 1:
                hint += (
                    " With an odd d_model your table got one extra column: keep d_model of them."
                )
            c.expect_shape(got, (max_len, d_model), what, hint)
            c.expect_floating(got, what, preferred="float64")
            got64 = got.astype(np.float64)
            hint = (
                "If you wrote `10000 ** 2 * i / d_model`, Python reads it as (10000**2) * i / d_model: "
                "put the exponent in parentheses."
                if not np.isfinite(got64).all()
                else _pe_property_hint(got64, max_len, d_model)
            )
            c.expect_close(
                got,
                ref.positional_encoding(max_len, d_model),
                what,
                **_tolerance(got.dtype),
                hint=hint,
                mistakes={
                    **_pe_confirmed(
                        positional_encoding, cases, (max_len, d_model), got64, _tolerance(got.dtype)
                    ),
                    **_pe_fitted_frequencies(got64, max_len, d_model),
                },
                explain=lambda got64=got64: _unwritten_columns(got64),
                pairs=lambda max_len=max_len, d_model=d_model, got=got: _pe_pairs(
                    positional_encoding, cases, (max_len, d_model), _tolerance(got.dtype)
                ),
                axes=("position", "d_model"),
            )


# ------------------------------------------------------------------- relative_shift
def _shift_mistakes(k, d_model):
    return {
        "The sine terms have the wrong sign: this matrix shifts by -k (it is the transpose "
        "of the right one). PE[pos] is a *row* vector multiplied from the left, PE[pos] @ M, "
        "and sin(a+b) = sin a·cos b + cos a·sin b, cos(a+b) = cos a·cos b - sin a·sin b give "
        "M[2i, 2i] = M[2i+1, 2i+1] = cos(w_i·k), M[2i+1, 2i] = +sin(w_i·k) and "
        "M[2i, 2i+1] = -sin(w_i·k). (Deriving it for a column vector, M @ PE[pos], gives "
        "the transpose.)": (lambda: relative_shift_f(k, d_model, transpose=True)),
        "Each pair rotates by w_i, the shift for k = 1. To move k positions it must rotate "
        "by the angle w_i·k.": lambda: relative_shift_f(k, d_model, angle="w"),
        "Every pair rotates by the same angle k. Pair i rotates by w_i·k, with its own "
        "frequency w_i = 1 / 10000^(2i/d_model).": lambda: relative_shift_f(k, d_model, angle="k"),
        "The frequencies use 10000^(i/d_model); they are the ones of positional_encoding, "
        "w_i = 1 / 10000^(2i/d_model).": lambda: relative_shift_f(k, d_model, exponent="i"),
        "The blocks sit at (i, i + d_model/2), the concatenated layout. In this course a "
        "pair is the interleaved features (2i, 2i+1).": lambda: relative_shift_f(
            k, d_model, layout="concatenated"
        ),
        "The angle is k *times* 10000^(2i/d_model); it is k *divided* by it, w_i·k with "
        "w_i = 1 / 10000^(2i/d_model) (the frequencies of positional_encoding).": (
            lambda: _shift_at_angles(k * np.power(10000.0, np.arange(0, d_model, 2) / d_model))
        ),
    }


def _shift_at_angles(theta: np.ndarray) -> np.ndarray:
    """The block-diagonal rotation with pair i turned by theta[i]."""
    two_i = 2 * np.arange(len(theta))
    m = np.zeros((2 * len(theta), 2 * len(theta)))
    m[two_i, two_i] = m[two_i + 1, two_i + 1] = np.cos(theta)
    m[two_i + 1, two_i], m[two_i, two_i + 1] = np.sin(theta), -np.sin(theta)
    return m


def _block_entries(got: np.ndarray, k: int, d_model: int) -> str:
    """Localise by the four places of the 2×2 blocks: which of them hold what (cos, ±sin
    of the right angles, or 0) in every block; "" unless each wrong place holds one."""
    if d_model < 2:
        return ""
    i = np.arange(0, d_model, 2)
    theta = k / np.power(10000.0, i / d_model)
    forms = {
        "cos(w_i·k)": np.cos(theta),
        "+sin(w_i·k)": np.sin(theta),
        "-sin(w_i·k)": -np.sin(theta),
        "-cos(w_i·k)": -np.cos(theta),
        "0": np.zeros_like(theta),
    }
    places = {
        "M[2i, 2i]": ((i, i), "cos(w_i·k)"),
        "M[2i+1, 2i]": ((i + 1, i), "+sin(w_i·k)"),
        "M[2i, 2i+1]": ((i, i + 1), "-sin(w_i·k)"),
        "M[2i+1, 2i+1]": ((i + 1, i + 1), "cos(w_i·k)"),
    }
    wrong, moved = [], []
    for place, (index, right) in places.items():
        values = got[index]
        if np.allclose(values, forms[right], atol=1e-6):
            continue
        held = [name for name, form in forms.items() if np.allclose(values, form, atol=1e-6)]
        if len(held) != 1:
            return ""
        wrong.append(f"{place} holds {held[0]} where {right} belongs")
        if held == ["0"] and not np.allclose(forms[right], 0.0, atol=1e-6):
            moved += _written_elsewhere(got, place, index, forms[right], d_model)
    if not wrong:
        return ""
    return (
        "In every 2×2 block, "
        + "; ".join(wrong)
        + ". "
        + "".join(moved)
        + "The block of pair i is "
        "[[cos, -sin], [+sin, cos]] at the angle w_i·k: M[2i, 2i] = M[2i+1, 2i+1] = "
        "cos(w_i·k), M[2i+1, 2i] = +sin(w_i·k), M[2i, 2i+1] = -sin(w_i·k) (did one line "
        "write to the wrong row or column?)."
    )


def _written_elsewhere(got, place: str, index, values, d_model: int) -> list[str]:
    """Where the values missing from ``place`` went: a row (or column) offset of -2..2 at
    which ``got`` holds them in every block (numpy's negative indices wrap around, as an
    index computed as 2i - 1 does for i = 0). Offsets that land on the same entries (-2
    and +2 when d_model = 4) are named together; [] unless one set of entries fits."""
    rows, cols = index
    row_name, col_name = place[2:-1].split(", ")
    targets: dict[tuple, list[tuple[int, int, str]]] = {}
    for axis, name in ((0, row_name), (1, col_name)):
        for offset in (-2, -1, 1, 2):
            r = (rows + offset) % d_model if axis == 0 else rows
            c_ = (cols + offset) % d_model if axis == 1 else cols
            if np.allclose(got[r, c_], values, atol=1e-6):
                targets.setdefault((tuple(r), tuple(c_)), []).append((axis, offset, name))
    if len(targets) != 1:
        return []
    (found,) = targets.values()
    axis = found[0][0]
    if any(a != axis for a, _, _ in found):
        return []

    def shifted(name: str, offset: int) -> str:
        base = int(name.split("+")[1]) if "+" in name else 0
        return f"2i{base + offset:+d}".replace("+0", "") if base + offset else "2i"

    names = [shifted(name, offset) for _, offset, name in found]
    first = names[0]
    where = f"M[{first}, {col_name}]" if axis == 0 else f"M[{row_name}, {first}]"
    return [
        f"Its values were written to {where} instead"
        + (f" (or, the same entries here, with {' or '.join(names[1:])})" if len(names) > 1 else "")
        + f": the {'row' if axis == 0 else 'column'} index of that assignment is off "
        f"({first} where {found[0][2]} belongs; numpy's negative indices wrap around to the "
        "end, so 2i - 1 for i = 0 is the last one). "
    ]


def _fitted_frequencies(got: np.ndarray, k: int, d_model: int) -> str:
    """A rotation per pair whose frequencies fall geometrically, w_i = 10000^(-c·i/d_model),
    with another c than 2 (i the pair index): the c measured from the learner's angles,
    said only when the matrix it gives is the learner's. "" otherwise."""
    pairs = d_model // 2
    if k == 0 or pairs < 2:
        return ""
    two_i = 2 * np.arange(pairs)
    theta = np.arctan2(got[two_i + 1, two_i], got[two_i, two_i])  # each pair's angle
    if not np.allclose(got, _shift_at_angles(theta), atol=1e-6):
        return ""  # not one rotation per pair
    index = np.arange(1, pairs)
    freq = theta[1:] / k
    usable = (np.abs(theta[1:]) < 3.0) & (freq > 0)  # away from the wrap at ±π
    if not usable.any():
        return ""
    slope = -float(np.sum(index[usable] * np.log(freq[usable])) / np.sum(index[usable] ** 2))
    c = slope * d_model / math.log(10000.0)
    if abs(c - 2.0) < 1e-3 or c <= 0:
        return ""
    model = _shift_at_angles(k * np.exp(-slope * np.arange(pairs)))
    if not np.allclose(got, model, atol=1e-6):
        return ""
    why = _exponent_why(c, d_model)
    shown = f"{round(c)}i" if abs(c - round(c)) < 1e-3 else f"{c:.4g}·i"
    return (
        f"Each pair is rotated, but pair i turns by k / 10000^({shown}/d_model) (i the "
        f"pair index, measured from your matrix): the frequencies are those of "
        f"positional_encoding, w_i = 1 / 10000^(2i/d_model), so the exponent is 2i/d_model." + why
    )


def _shift_property_hint(got: np.ndarray, k: int, d_model: int) -> str:
    blocks = np.kron(np.eye(d_model // 2), np.ones((2, 2))) > 0
    if np.abs(np.where(blocks, 0.0, got)).max() > _FLOAT32_FORMULA["atol"]:
        return (
            "M should be block diagonal: each 2×2 block (2i, 2i+1) mixes one sine with its "
            "own cosine, and everything outside those blocks is 0."
        )
    pe = ref.positional_encoding(50 + abs(k), d_model)
    lo = max(0, -k)
    moved = pe[lo : lo + 50] @ got
    err = np.abs(moved - pe[lo + k : lo + k + 50]).max()
    return (
        f"PE[pos] @ M should equal PE[pos + {k}] for every pos; with yours they differ by "
        f"up to {err:.3g}. Check the angles (w_i·k) and where cos and ±sin sit."
    )


_VISIBLE_SHIFT = [(3, 4), (5, 8), (-2, 6), (0, 4)]
_HIDDEN_SHIFT = [(7, 16), (-11, 10), (100, 32), (0, 4), (1, 2), (4, 64)]

_RAISE_VALUE_ERROR = (
    "For an odd d_model, raise a ValueError yourself, with a message that says why, so "
    "that the caller learns what went wrong."
)


def check_relative_shift(relative_shift, *, hidden: bool = False) -> None:
    """relative_shift(k, d_model) -> M (d_model, d_model) with PE[pos + k] = PE[pos] @ M.

    Any float dtype passes (float64 preferred, with a note otherwise); an odd d_model
    must raise ValueError.
    """
    with Checker("relative_shift", hidden=hidden) as c:
        c.require_callable(relative_shift)
        for k, d_model in _HIDDEN_SHIFT if hidden else _VISIBLE_SHIFT:
            what = f"relative_shift(k={k}, d_model={d_model})"
            got = c.call(relative_shift, k, d_model, call_repr=what)
            _expect_array(c, got, what, "(d_model, d_model)")
            c.expect_shape(
                got,
                (d_model, d_model),
                what,
                "M maps one row of the table (d_model features) to another.",
            )
            c.expect_floating(got, what, preferred="float64")
            c.expect_close(
                got,
                ref.relative_shift(k, d_model),
                what,
                **_tolerance(got.dtype),
                hint=_shift_property_hint(got.astype(np.float64), k, d_model),
                mistakes=_shift_mistakes(k, d_model) if d_model % 2 == 0 else None,
                explain=lambda got=got, k=k, d_model=d_model: (
                    _block_entries(np.asarray(got, dtype=np.float64), k, d_model)
                    or _fitted_frequencies(np.asarray(got, dtype=np.float64), k, d_model)
                ),
            )
        for d_model in (7, 1) if hidden else (5,):
            what = f"relative_shift(k=2, d_model={d_model})"
            try:
                result = c.call(
                    relative_shift,
                    2,
                    d_model,
                    call_repr=what,
                    hints=[(lambda error: not isinstance(error, ValueError), _RAISE_VALUE_ERROR)],
                )
            except CheckFailure as failure:
                if isinstance(failure.__cause__, ValueError):
                    c.ok()  # the ValueError the contract asks for
                    continue
                raise
            c.fail(
                f"{what} returned {type(result).__name__} instead of raising ValueError. With "
                "an odd d_model the last feature is a sine without its cosine partner, and no "
                "matrix turns sin(a) alone into sin(a + w·k): raise ValueError."
            )


# --------------------------------------------------------------- PositionalEncoding
_VISIBLE_MODULE = [(8, 20, [(2, 5), (1, 20)])]
_HIDDEN_MODULE = [
    (16, 64, [(3, 17), (2, 64), (1, 1)]),
    (6, 10, [(4, 10), (5, 3)]),
    (4, 12, [(2, 7)]),
]
_LAYOUTS = ("(1, max_len, d_model)", "(max_len, d_model)", "(max_len, 1, d_model)")

_NOT_IN_STATE_DICT = (
    "PositionalEncoding's state dict is empty: the table is not saved with the module (a "
    "buffer with persistent=False, or rows computed in forward). That works; a buffer made "
    "with register_buffer('pe', table) is also saved by state_dict()."
)
_EVAL_HINT = (
    "In eval mode dropout must do nothing. F.dropout(x, p) defaults to training=True and "
    "drops anyway: use an nn.Dropout module (it follows .train() and .eval()) or pass "
    "training=self.training."
)


def _exercise_1(mistake: str) -> str:
    return (
        "It looks like the positional-encoding table with a classic mistake of exercise 1. "
        f"{mistake} Fix positional_encoding first (its test cell explains more); this "
        "module builds its table with it."
    )


def _stored_tables(found: dict, max_len: int, d_model: int) -> dict[str, tuple[str, np.ndarray]]:
    """key -> (layout, the (max_len, d_model) table) of every state-dict entry shaped like one."""
    shapes = {(1, max_len, d_model): _LAYOUTS[0], (max_len, d_model): _LAYOUTS[1]}
    shapes[(max_len, 1, d_model)] = _LAYOUTS[2]
    tables = {}
    for key, value in found.items():
        layout = shapes.get(tuple(value.shape))
        if layout and value.is_floating_point():
            tables[key] = (layout, value.detach().reshape(max_len, d_model).double().numpy())
    return tables


def _check_stored_table(c: Checker, found: dict, built: str, max_len: int, d_model: int) -> str:
    """Diagnose the table in the state dict, if there is one; returns its layout (or "")."""
    if not found:
        c.note(_NOT_IN_STATE_DICT)
        return ""
    expected = ref.positional_encoding(max_len, d_model)
    if max_len != d_model:
        swapped = ref.positional_encoding(d_model, max_len)  # (d_model, max_len)
        for key, value in found.items():
            if (
                value.is_floating_point()
                and value.numel() == swapped.size
                and tuple(value.shape)[-2:] == swapped.shape
                and np.allclose(value.detach().double().reshape(swapped.shape), swapped, atol=1e-5)
            ):
                c.fail(
                    f"{built}: the table in its state dict, `{key}`, has shape "
                    f"{tuple(value.shape)}: it is positional_encoding({d_model}, {max_len}), "
                    f"the arguments swapped. The function takes (max_len, d_model): call "
                    f"positional_encoding(max_len, d_model), {max_len} positions of "
                    f"{d_model} features."
                )
    unknown = ""  # the layout of a table-shaped entry that is not the table
    for key, (layout, table) in _stored_tables(found, max_len, d_model).items():
        if np.allclose(table, expected, **_FLOAT32_FORMULA):
            c.ok()
            return layout
        for mistake, wrong in _pe_mistakes(max_len, d_model).items():
            if np.allclose(table, wrong(), **_FLOAT32_FORMULA):
                c.fail(
                    f"{built}: the table in its state dict, `{key}`, is wrong. "
                    + _exercise_1(mistake)
                )
        unknown = unknown or layout
    return unknown  # the output check explains what is wrong, if anything is


#: the table kept as (max_len, 1, d_model) (the layout the state dict shows), whatever slice
#: of it was taken: its len rows meet x's batch axis
_SEQ_FIRST_TABLE = (
    "Your table is stored as (max_len, 1, d_model), the sequence-first layout of older "
    "PyTorch tutorials (for x of shape (len, batch, d_model)): a slice of its first axis, "
    "table[:{length}], is ({length}, 1, d_model), so its positions line up with the *batch* "
    "axis of x and its axis of size 1 with the positions. Here x is (batch, len, d_model): "
    "store the table as (1, max_len, d_model) (table.unsqueeze(0)) and add table[:, :len]."
)


def _slice_hint(layout: str, batch: int, length: int, max_len: int, d_model: int = 0):
    """Advice for a shape mismatch in x + table, from the sizes the error names: the
    number of table rows the learner added tells which slice they took."""

    def hint(exc: BaseException) -> str:
        if layout == _LAYOUTS[1]:
            return (
                "Your table is 2-D, (max_len, d_model), so slicing its second axis picks "
                "feature columns, not positions. Either store it with a batch axis in front, "
                "(1, max_len, d_model) (table.unsqueeze(0)), and slice table[:, :len], or keep "
                "it 2-D and slice its rows, table[:len]."
            )
        if layout == _LAYOUTS[2]:
            return _SEQ_FIRST_TABLE.format(length=length)
        found = re.search(r"tensor a \((\d+)\) must match the size of tensor b \((\d+)\)", str(exc))
        sizes = {int(found[1]), int(found[2])} if found else set()
        added = sizes - {length}
        rows = next(iter(added)) if length in sizes and len(added) == 1 else None
        # the slices that add `rows` rows here; two of them alike on this input: name both
        candidates = [
            text
            for hit, text in (
                (rows == batch and batch not in (length, max_len), f"x.size(0), the batch size {batch}"),
                (rows == d_model and d_model not in (batch, max_len), f"x.size(-1), the feature width d_model={d_model}"),
                (rows == max_len, f"no slice at all, the whole table of max_len={max_len} rows"),
                (rows is not None and abs(rows - length) == 1, f"x.size(1) {'+' if (rows or 0) > length else '-'} 1, a slice off by one"),
            )
            if hit
        ]  # fmt: skip
        if len(candidates) > 1:
            return (
                f"You added {rows} rows of the table to x's len={length} positions. On this "
                "input more than one slice gives that many rows: "
                + "; or ".join(f"sliced with {text}" for text in candidates)
                + ". Add exactly the first len rows, table[:, :x.size(1)] for a (1, max_len, "
                "d_model) table."
            )
        if length in sizes and added == {batch} and batch not in (length, max_len):
            return (
                f"You added {batch} rows of the table, the batch size of x, to its "
                f"len={length} positions: the table was sliced with x.size(0) (x.shape[0]), "
                "the sequence-first (len, batch, d_model) convention of older tutorials. Here "
                "x is (batch, len, d_model): slice with x.size(1), table[:, :x.size(1)] for "
                "a (1, max_len, d_model) table."
            )
        if length in sizes and added == {d_model} and d_model not in (batch, max_len):
            return (
                f"You added {d_model} rows of the table, x's d_model (its last axis), to its "
                f"len={length} positions: the table was sliced with x.size(-1) (x.shape[-1]), "
                "the feature width. The positions are x's second axis: slice with x.size(1), "
                "table[:, :x.size(1)] for a (1, max_len, d_model) table."
            )
        if length in sizes and added == {max_len}:
            return (
                f"You added all max_len={max_len} rows of the table to x's len={length} "
                "positions: add only the first len rows (for a (1, max_len, d_model) table, "
                "table[:, :len]). Slicing table[:len] cuts the batch axis (of size 1) and "
                "leaves every row, and adding the whole table only works when len happens "
                "to equal max_len."
            )
        if rows is not None and abs(rows - length) == 1:
            more = "one too many" if rows > length else "one too few"
            return (
                f"You added {rows} rows of the table to x's len={length} positions, {more}: "
                f"the slice is off by one (:x.size(1) {'+' if rows > length else '-'} 1). Add "
                "exactly the first len rows, table[:, :x.size(1)] for a (1, max_len, d_model) "
                "table (the end of a slice is already excluded)."
            )
        return (
            f"x has len={length} positions (batch {batch}, max_len={max_len}): add only the "
            "first len rows of the table, table[:, :x.size(1)] for a (1, max_len, d_model) "
            "table. The two sizes in the error are x's len and the number of rows you added."
        )

    return hint


#: the global torch stream is seeded before each call of the learner's module whose output
#: is reported (the Checker puts it back afterwards): a dropout left on (the functional
#: F.dropout in eval mode, a hard-coded probability) draws the same mask on every run, so
#: the same answer always gets the same message (the same counts of zeroed entries)
_CALL_SEED = 0


def _table_shapes(module) -> dict[str, tuple[int, ...]]:
    """The shape of each buffer and tensor attribute of the module (the table, wherever
    the learner keeps it)."""
    shapes = {name: tuple(b.shape) for name, b in module.named_buffers()}
    for name, value in vars(module).items():
        if isinstance(value, torch.Tensor) and not name.startswith("_"):
            shapes.setdefault(name, tuple(value.shape))
    return shapes


def _expect_tables_kept(c, module, what: str, tables: dict | None, length: int) -> None:
    """forward leaves the module's state alone: a table cut to this call's length (self.pe
    = self.pe[:, :len]) refuses, or misreads, every later and longer input."""
    if not tables:
        return
    now = _table_shapes(module)
    for name, shape in tables.items():
        if name in now and now[name] != shape:
            cut = len(now[name]) == len(shape) and [
                i for i, (a, b) in enumerate(zip(shape, now[name], strict=True)) if a != b
            ] == [next((i for i, n in enumerate(now[name]) if n == length and shape[i] != n), -1)]
            if not cut:
                c.fail(
                    f"{what} changed the module itself: its table `{name}` was {shape} when "
                    f"the module was built and is {now[name]} after this call. forward must "
                    "leave the table as built (a fixed buffer): compute x + the slice you "
                    "need into a new tensor, without assigning anything to the module."
                )
            c.fail(
                f"{what} changed the module itself: its table `{name}` was {shape} when the "
                f"module was built and is {now[name]} after this call (len={length}). forward "
                f"assigned a slice back to the module (self.{name} = self.{name}[:, :len]), so "
                "every later call sees a table cut to this length, and a longer x is refused "
                "or fails. Slice into a local value and leave the table as built: return "
                f"self.dropout(x + self.{name}[:, :x.size(1)])."
            )


def _check_forward(c, module, built, x, table, layout, max_len, tables=None):
    """dropout off (eval, or p = 0): the output must be x + PE[:len]; the module's tables
    (``tables``: their shapes when built) keep their shapes."""
    batch, length, d_model = x.shape
    what = f"{built} applied to x of shape {tuple(x.shape)}"
    torch.manual_seed(_CALL_SEED)
    out = c.call(
        module,
        x,
        call_repr=what,
        hints=[
            ("must match the size of tensor", _slice_hint(layout, batch, length, max_len, d_model)),
            (
                lambda error: isinstance(error, ValueError) and length <= max_len,
                f"Your PositionalEncoding refused x with len={length} positions, although "
                f"it was built with max_len={max_len}: len <= max_len is a legal input. "
                "Refuse only len > max_len. Your test is off: >= where > belongs (off by "
                "one), or a size read from another axis of x or of the table (x.size(1) is "
                "len; the table's position axis, pe.shape[1] for a (1, max_len, d_model) "
                "table, holds max_len)."
                + (f" {_SEQ_FIRST_TABLE.format(length=length)}" if layout == _LAYOUTS[2] else ""),
            ),
        ],
        mutation_hint="Return x + the table as a new tensor: `x += ...` (or x.add_) "
        "changes the caller's embeddings.",
    )
    _expect_tables_kept(c, module, what, tables, length)
    c.expect_type(out, torch.Tensor, what, "Return a tensor.")
    hint = "The output has the shape of x: (batch, len, d_model)."
    if layout == _LAYOUTS[2] and tuple(out.shape) == (length, length, d_model):
        hint += " " + _SEQ_FIRST_TABLE.format(length=length)
    if tuple(out.shape) == (1, length, d_model):
        hint += " Yours has batch size 1: did you return the encoding without adding x?"
    c.expect_shape(out, x.shape, what, hint)
    c.expect_true(
        not out.requires_grad,
        f"{what} returned a tensor that requires grad, although x does not: the table is "
        "a learnable nn.Parameter, so an optimiser would change it. The sinusoidal table is "
        "fixed, not learned: keep it as a buffer (register_buffer), which moves with "
        ".to(device) and is saved in the state dict, but is never trained.",
    )
    c.expect_dtype(
        out,
        x.dtype,
        what,
        "x is float32, like every layer of the model; a float64 table turns x + table into "
        "float64, and the next layer (float32 weights) then fails with a dtype mismatch. "
        "Make the table float32: torch.tensor(a float64 numpy array) stays float64, so pass "
        "dtype=torch.float32 (or convert with .float()).",
    )
    pe = table[:length].unsqueeze(0)  # (1, len, d_model)
    mistakes = {
        "You returned the encoding without adding x: the output must be x + PE, the token "
        "embeddings *plus* their positions.": pe.expand_as(x),
        "You returned x unchanged: add the first len rows of the table.": x,
        "You multiplied x by the encoding; add it.": x * pe,
        "You subtracted the encoding from x (x - PE): add it, x + PE.": x - pe,
        "You subtracted x from the encoding (PE - x): the output is x + PE.": pe - x,
        "Every sequence got one row of the table for all its positions: the row of its "
        "*batch* index. That's the sequence-first (len, batch, d_model) convention of older "
        "PyTorch tutorials (the word-language-model example keeps the table as "
        "(max_len, 1, d_model) and adds table[:x.size(0)]); here x is (batch, len, d_model), "
        "so slice the positions, the second axis of x.": (
            x + table[:batch].unsqueeze(1) if batch <= max_len else None
        ),
        "x was also scaled by sqrt(d_model). That scaling belongs to the token embedding "
        "(lesson 02); this module only adds the encoding.": x * d_model**0.5 + pe,
    }
    for mistake, wrong in _pe_mistakes(max_len, d_model).items():
        mistakes[f"The encoding you add is wrong. {_exercise_1(mistake)}"] = lambda wrong=wrong: (
            x + torch.tensor(wrong()[:length], dtype=x.dtype)
        )
    c.expect_close(
        out,
        x + pe,
        what,
        **_tolerance(out.dtype),
        hint="Expected x + PE[:len]: position p of every sequence in the batch gets row p of "
        "the table.",
        mistakes=mistakes,
    )


def _expect_given_p(c, out, total, what: str, p: float) -> None:
    """Training-mode output that is dropout of x + PE with another probability than the
    one passed (each entry 0 or the sum times one factor 1 / (1 - p')): the argument is
    not used."""
    if not isinstance(out, torch.Tensor) or out.shape != total.shape:
        return
    got, want = out.detach().double(), total.double()
    dropped = got.abs() <= 1e-6
    kept = ~dropped & (want.abs() > 1e-3)
    if not bool(dropped.any()) or not bool(kept.any()):
        return
    ratios = got[kept] / want[kept]
    scale = float(ratios.median())
    if scale <= 1.0 + 1e-6 or not torch.allclose(ratios, torch.full_like(ratios, scale), rtol=1e-4):
        return
    c.fail(
        f"{what}: {int(dropped.sum())} of your {got.numel()} entries are 0 and the others are "
        f"(x + PE) × {scale:.4g}, which is dropout with p = {1 - 1 / scale:.2g}, not the "
        f"dropout={p} the module was given. The `dropout` argument is not used: create "
        "nn.Dropout(dropout) in __init__, not a fixed probability."
    )


def _check_dropout(c, cls, d_model, max_len, x, table):
    """Dropout, checked without depending on a random stream: p = 0.5 in eval mode and
    p = 0 in training mode change nothing; p = 1 in training mode zeroes everything."""
    length = x.shape[1]
    total = x + table[:length].unsqueeze(0)  # (batch, len, d_model)

    def run(p, mode):
        module, built = build_module(
            c, cls, d_model, name="PositionalEncoding", max_len=max_len, dropout=p, mode=mode
        )
        what = f"{built} in {mode} mode, applied to x of shape {tuple(x.shape)}"
        torch.manual_seed(_CALL_SEED)
        return c.call(module, x.clone(), call_repr=what), what

    out, what = run(0.5, "eval")
    if isinstance(out, torch.Tensor) and out.shape == total.shape:
        # dropout's training behaviour: each entry 0, or the sum scaled by 1 / (1 - p)
        got = out.detach().double()
        dropped = got.abs() <= 1e-6
        kept = torch.isclose(got, 2.0 * total.double(), rtol=1e-4, atol=1e-5)
        if bool((dropped | kept).all()) and bool(dropped.any()):
            c.fail(
                f"{what} still drops: {int(dropped.sum())} of its {got.numel()} entries are 0 "
                "and the others are (x + PE) / (1 - p) = 2·(x + PE), which is dropout in "
                f"training mode. {_EVAL_HINT}"
            )
    c.expect_close(out, total, what, **_tolerance(out.dtype), hint=_EVAL_HINT)

    out, what = run(0.0, "train")
    if (
        isinstance(out, torch.Tensor)
        and out.shape == total.shape
        and bool((out.detach() == 0).all())
        and bool((total != 0).any())
    ):
        # dropout with p = 1: is the argument read as a keep probability (1 - dropout)?
        # dropout=1.0 then keeps everything; a fixed p = 1 would zero it all again
        out_one, _ = run(1.0, "train")
        keeps_all = (
            isinstance(out_one, torch.Tensor)
            and out_one.shape == total.shape
            and bool(torch.allclose(out_one.detach().double(), total.double(), atol=1e-5))
        )
        c.fail(
            f"{what}: all {out.numel()} entries are 0, which is dropout with p = 1, although "
            "the module was given dropout=0.0"
            + (
                ", and with dropout=1.0 nothing is dropped at all: the argument is read as "
                "the probability of *keeping* an entry (nn.Dropout(1 - dropout), TensorFlow's "
                "keep_prob). PyTorch's p is the probability of *zeroing* one: create "
                "nn.Dropout(dropout)."
                if keeps_all
                else ": a dropout probability of 1 (a fixed one, or 1 - dropout) zeroes "
                "everything. Create nn.Dropout(dropout), where p is the probability of "
                "zeroing an entry."
            )
        )
    _expect_given_p(c, out, total, what, 0.0)
    c.expect_close(
        out,
        total,
        what,
        **_tolerance(out.dtype),
        hint=lambda: (
            f"With dropout=0.0, training mode must give what eval mode gives, x + PE; "
            f"{int((out == 0).sum())} of your entries are 0. Did you ignore the `dropout` "
            "argument (a hard-coded nn.Dropout(0.1), say)?"
        ),
    )

    out, what = run(1.0, "train")
    c.expect_close(
        out,
        torch.zeros_like(total),
        what,
        **_tolerance(out.dtype),
        hint=lambda: (
            f"With dropout=1.0 in training mode every entry must be 0 "
            f"(nn.Dropout(1.0) drops everything), but {int((out != 0).sum())} of yours are not. "
            "Did you ignore the `dropout` argument (a hard-coded nn.Dropout(0.1), say)?"
        ),
        mistakes={
            "The output is exactly x + PE, so dropout was not applied in training mode. "
            "Create an nn.Dropout(dropout) in __init__ and call it on the sum in forward.": total,
            "Dropout was applied to x *before* adding the encoding (with dropout=1.0 the "
            "output holds the encoding alone). The paper applies dropout to the *sums* of the "
            "embeddings and the positional encodings (section 5.4): dropout(x + PE).": (total - x),
            "Dropout was applied to the encoding alone, then x was added (with dropout=1.0 "
            "the output is x). The paper applies dropout to the *sum*: dropout(x + PE).": x,
        },
    )


_NOT_A_BUFFER = (
    "The table did not follow the module: after .to(torch.bfloat16) the output is {got}, "
    "so the table is still float32 (or float64). It is a plain attribute (self.pe = table, "
    "a numpy array, or a tensor kept outside the module): .to(dtype), .half(), "
    ".to(device)/.cuda() and state_dict() only see parameters and buffers, so on a GPU or "
    "in half precision the model fails with a device or dtype mismatch. Register it in "
    "__init__: self.register_buffer('pe', table) (fixed, never trained, moved and saved "
    "with the module). (d2l keeps a plain attribute and moves it to x's device in every "
    "forward; .half() still leaves it behind.)"
)


def _check_follows_to(c, cls, d_model, max_len, gen):
    """The table is a buffer (or computed from x): converting the module converts it.
    Run in bfloat16, where a table left behind in float32 shows in the output's dtype."""
    module, built = build_module(
        c, cls, d_model, name="PositionalEncoding", max_len=max_len, dropout=0.0, mode="eval"
    )
    c.call(module.to, torch.bfloat16, call_repr=f"{built}.to(torch.bfloat16)")
    x = torch.randn(2, min(max_len, 4), d_model, generator=gen)  # (batch, len, d_model)
    what = f"{built}.to(torch.bfloat16) applied to x of shape {tuple(x.shape)} in bfloat16"
    torch.manual_seed(_CALL_SEED)
    out = c.call(module, x.to(torch.bfloat16), call_repr=what)
    c.expect_type(out, torch.Tensor, what, "Return a tensor.")
    if out.dtype != torch.bfloat16:
        c.fail(f"{what} returned dtype {out.dtype}. " + _NOT_A_BUFFER.format(got=out.dtype))
    table = torch.tensor(ref.positional_encoding(max_len, d_model), dtype=torch.float32)
    c.expect_close(
        out.float(),
        (x.to(torch.bfloat16) + table[: x.shape[1]].to(torch.bfloat16)).float(),
        what,
        rtol=2e-2,
        atol=2e-2,
        hint="In bfloat16 the output must still be x + PE[:len].",
    )


def check_PositionalEncoding(cls, *, hidden: bool = False) -> None:
    """PositionalEncoding(d_model, max_len=..., dropout=...): x (batch, len, d_model) ->
    dropout(x + PE[:len]), with a fixed (never trained) table; see the module docstring
    for the layouts and dtypes that are accepted."""
    with Checker("PositionalEncoding", hidden=hidden) as c:
        c.require_callable(cls)
        gen = torch_generator(303 if hidden else 30)
        for d_model, max_len, inputs in _HIDDEN_MODULE if hidden else _VISIBLE_MODULE:
            module, built = build_module(
                c,
                cls,
                d_model,
                name="PositionalEncoding",
                max_len=max_len,
                dropout=0.0,
                mode="eval",
            )
            found = c.call(module.state_dict, call_repr=f"{built}.state_dict()")
            layout = _check_stored_table(c, found, built, max_len, d_model)
            table = torch.tensor(ref.positional_encoding(max_len, d_model), dtype=torch.float32)
            tables = _table_shapes(module)
            for batch, length in inputs:
                x = torch.randn(batch, length, d_model, generator=gen)  # (batch, len, d_model)
                _check_forward(c, module, built, x, table, layout, max_len, tables)
            x = torch.randn(2, min(max_len, 6), d_model, generator=gen)  # (batch, len, d_model)
            _check_dropout(c, cls, d_model, max_len, x, table)
            _check_follows_to(c, cls, d_model, max_len, gen)


# ------------------------------------------------------------------ concept questions
QUIZ_SHIFT = Quiz(
    name="quiz_shift",
    answer="c",
    choices={
        "a": "Only k = 1: one step is a rotation, but a longer shift needs a non-linear map.",
        "b": "Every k > 0, but not k < 0: moving backwards cannot be a rotation.",
        "c": "Every integer k (positive, negative or zero), with one matrix per k that works "
        "at every position.",
        "d": "Every k, but the matrix depends on pos as well, so each position needs its own.",
    },
    why={
        "a": "A shift by k is k shifts by 1, and a product of rotations is a rotation: "
        "M(k) = M(1)^k is one fixed matrix, linear like M(1).",
        "b": "Rotating pair i backwards by the angle w_i·k is a rotation too; its matrix is "
        "the transpose, M(-k) = M(k)^T.",
        "c": "The angle-addition formulas give coefficients cos(w_i·k) and ±sin(w_i·k) that "
        "depend on k only, so one matrix M(k) maps PE[pos] to PE[pos + k] for every pos, "
        "backwards for negative k, and M(0) is the identity.",
        "d": "That is the point of the sin/cos pairs: the coefficients cos(w_i·k) and "
        "sin(w_i·k) contain k but not pos, so the same matrix works everywhere.",
    },
)
check_quiz_shift = quiz_check(QUIZ_SHIFT)

QUIZ_ROW_LENGTH = Quiz(
    name="quiz_row_length",
    answer=8,
    rel_tol=1e-3,
    why={
        8: "Each pair contributes sin² + cos² = 1 to the squared length, and d_model = 128 "
        "has 64 pairs: squared length 64, length √64 = 8, the same for every position. "
        "(In general √(d_model/2): 16 for the paper's 512.)",
        64: "64 is the squared length (one 1 per pair, 64 pairs); the length is its square root.",
        math.sqrt(128): "√128 would be the length if each of the 128 entries were ±1. Only "
        "the pairs are bounded that way: sin² + cos² = 1 per pair, not per entry.",
        128: "Each entry lies in [-1, 1], and each *pair* contributes exactly 1 to the "
        "squared length, not each entry.",
        16: "16 is the length for d_model = 512 (lesson 02 printed it); here d_model is 128.",
        1: "The rows are not normalised: each pair is a point on the unit circle, and there "
        "are 64 pairs.",
    },
)
check_quiz_row_length = quiz_check(QUIZ_ROW_LENGTH)


# ---------------------------------------------------------------------------- registry
LESSON = "03_positional_encoding"
EXERCISES = (
    Exercise(
        "positional_encoding",
        check_positional_encoding,
        kind="function",
        points=3,
        minutes=20,
        level=2,
    ),
    Exercise(
        "relative_shift", check_relative_shift, kind="function", points=2, minutes=25, level=3
    ),
    Exercise("quiz_shift", check_quiz_shift, kind="quiz", points=1, minutes=3, level=2),
    Exercise("quiz_row_length", check_quiz_row_length, kind="quiz", points=1, minutes=3, level=2),
    Exercise(
        "PositionalEncoding", check_PositionalEncoding, kind="module", points=2, minutes=20, level=2
    ),
)
