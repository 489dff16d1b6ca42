"""The check of ``positional_encoding(max_len, d_model)``: the (max_len, d_model) table of
section 3.5, any float dtype, and the mistakes it names (see ``table_mistakes``), the odd
d_model, the columns left unwritten and a frequency exponent other than 2i.
"""

from __future__ import annotations

import contextlib
import io
import math
import re
import traceback

import numpy as np

from transformer_course.checking import Checker
from transformer_course.checking.arguments import arguments_swapped
from transformer_course.checking.failure import _is_learner_frame
from transformer_course.checking.series import series_kind
from transformer_course.checking.size_one_axes import flat_vector_broadcast
from transformer_course.reference import positional_encoding as ref

from .common import _expect_array, _exponent_why_everywhere, _tolerance
from .table_mistakes import (
    _pe_mistakes,
    _pe_mistakes_and_layout,
    _pe_pairs,
    _pe_positions_scaled,
    _pe_property_hint,
)

# --------------------------------------------------------------- positional_encoding
_VISIBLE_PE = [(6, 4), (20, 10), (9, 7), (1, 3)]
_HIDDEN_PE = [(12, 8), (64, 32), (17, 9), (256, 128), (30, 3), (1, 6), (5, 1)]


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
    # a sine feature 0 everywhere beside its cosine 1 everywhere: sin(0) and cos(0), written
    # at an angle that is 0 at every position, not a column left unwritten
    still = [
        j // 2
        for j in empty
        if j % 2 == 0 and j + 1 < got.shape[1] and np.allclose(got[:, j + 1], 1.0, atol=1e-6)
    ]
    pairs = got.shape[1] // 2
    first_right = got.shape[0] > 1 and np.allclose(
        got[:, :2],
        np.stack([np.sin(np.arange(got.shape[0])), np.cos(np.arange(got.shape[0]))], axis=1),
        atol=1e-6,
    )
    if still and len(still) == len(empty) and still == list(range(1, pairs)) and first_right:
        # pair 0 right (frequency 1) and every later pair's frequency exactly 0: an
        # exponential that underflowed (blind20d-pe-exp-form-log-dropped was told only
        # that the angle does not grow)
        return (
            f"Pair 0 is right, but every later pair (features {empty} are 0 and "
            f"{[2 * i + 1 for i in still]} are 1 at every position: sin(0) and cos(0)) has "
            "frequency 0: its angle never grows with the position. A frequency that is "
            "exactly 0 for every pair but the first is an exponential that underflowed: "
            "exp(-z) is 0.0 in floating point once z passes about 745, as exp(-2i·10000/"
            "d_model) is when the log is left out of the exp form, exp(-2i·log(10000)/"
            "d_model) (np.log(10000.0), math.log), or a power with a far too large base or "
            "exponent. Pair i's frequency is 10000^(-2i/d_model), between 1 and 1/10000: "
            "write the exp form with the log, or pos / np.power(10000.0, 2i / d_model)."
        )
    if still and len(still) == len(empty):
        return (
            f"Your features {empty} are 0 and the features {[2 * i + 1 for i in still]} are 1 "
            f"at every position: sin(0) and cos(0), so the angle of pair(s) {still} is 0 at "
            "every position. Something was written there, at an angle that does not grow "
            "with the position: the angle is pos / 10000^(2i/d_model), the position in the "
            "numerator (a pair index in the numerator, or a factor that is 0 for that pair, "
            "gives this)."
        )
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


def _unwritten_rows(got: np.ndarray) -> str:
    """Positions (rows) that are 0 at every feature while the rest of the table is right
    (the reference has none: row 0 is 0, 1, 0, 1, ...): the loop over the positions
    skipped them, at its start (range(1, max_len)) or its end (range(max_len - 1)); ""
    otherwise."""
    max_len, d_model = got.shape
    empty = (got == 0).all(axis=1)
    if not empty.any() or empty.all() or d_model < 2:
        return ""
    expected = ref.positional_encoding(max_len, d_model)
    if not np.allclose(got[~empty], expected[~empty], rtol=1e-4, atol=1e-4):
        return ""
    rows = [int(r) for r in np.flatnonzero(empty)]
    where = (
        "the first ones: the loop over the positions starts late (range(1, max_len))"
        if rows == list(range(len(rows)))
        else "the last ones: the loop over the positions stops early (range(max_len - 1))"
        if rows == list(range(max_len - len(rows), max_len))
        else "some positions the loop over them skips"
    )
    return (
        f"Your rows {rows} (positions) are 0 at every feature, and every other row is right: "
        f"nothing was written to them, {where}. Every position 0 .. max_len - 1 gets its "
        "row, range(max_len) (position 0 too: sin(0), cos(0), ... = 0, 1, 0, 1, ...)."
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
        if rows == max_len and d_model % 2 == 0 and room == d_model // 2 == given + 1:
            return (
                f"At this even d_model the cosines' slice pe[:, 1::2] holds {room} columns, "
                f"one per angle, but it was given {given}, one angle fewer: angles[:, :-1] "
                "(dropping the last angle, the rule for an odd d_model, whose last sine has "
                "no cosine partner) or a slice end one short. Use "
                "np.cos(angles[:, : d_model // 2]), right for both."
            )
        if rows != max_len or given not in {(d_model + 1) // 2, d_model // 2}:
            return ""
        return (
            f"Your slice of the table's features holds {room} columns, but it was given "
            f"{given} (one per pair): the sines go to pe[:, 0::2] ({(d_model + 1) // 2} "
            f"columns) and the cosines to pe[:, 1::2] ({d_model // 2}); a slice start off by "
            "one (2::2, say) or another step holds another count."
        )

    return lambda exc: isinstance(exc, ValueError), text


def _whole_table_hint(max_len: int, d_model: int):
    """For numpy's "could not broadcast input array from shape (max_len, d_model) into
    shape (max_len, half)": one angle per feature went whole into the sines' or cosines'
    slice, which holds one column per pair."""

    def text(exc: BaseException) -> str:
        found = re.search(r"from shape \((\d+),(\d+)\) into shape \((\d+),(\d+)\)", str(exc))
        if not found:
            return ""
        rows, given, _, room = (int(g) for g in found.groups())
        if rows != max_len or given != d_model or room not in {(d_model + 1) // 2, d_model // 2}:
            return ""
        return (
            f"The value has d_model = {d_model} columns, one per feature, but the slice holds "
            f"{room}, one per pair (the sines pe[:, 0::2], the cosines pe[:, 1::2]). Either "
            "the sines (or cosines) of a whole (max_len, d_model) table of angles went into "
            "the slice: with one angle per feature, take the sines of its even columns and "
            "the cosines of its odd ones, np.sin(angles[:, 0::2]) and np.cos(angles[:, "
            "1::2]); or the frequencies were made for every feature (np.arange(d_model) "
            "where np.arange(0, d_model, 2) belongs): one frequency per pair."
        )

    return lambda exc: isinstance(exc, ValueError), text


#: numpy's error for an array given to a function of one number (math.sin, float(), ...)
_SCALAR_ONLY = re.compile(r"only (0-dimensional|length-1|size-1) arrays can be converted")


def _scalar_function_hint(exc: BaseException) -> str:
    """An array given to a function of Python's math module (one number in, one out): the
    failing line of the learner's code names which; "" for another error."""
    if not _SCALAR_ONLY.search(str(exc)):
        return ""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if _is_learner_frame(f.filename)]
    line = (frames[-1].line or "") if frames else ""
    # a call on a number written out (math.log(10000.0)) cannot be the one given an array
    literal = set(re.findall(r"\bmath\.(\w+)\s*\(\s*[\d.eE+-]+\s*\)", line))
    called = [
        name
        for name in dict.fromkeys(re.findall(r"\bmath\.(\w+)\s*\(", line))
        if name not in literal
    ]
    if len(called) == 1:
        return (
            f"math.{called[0]} takes a single number, and here it was given an array (the "
            "table is computed for every position and pair at once): use "
            f"np.{called[0]}, which works elementwise on a whole array."
        )
    if called:
        names = " or ".join(f"math.{name}" for name in called)
        return (
            f"{names} was given an array (the table is computed for every position and "
            "pair at once), and each of them takes a single number: use "
            + " and ".join(f"np.{name}" for name in called)
            + ", which work elementwise on a whole array."
        )
    return (
        "A function of one number (math.sin, math.cos, math.exp, float(), ...) was given an "
        "array: the table is computed for every position and pair at once, so use numpy's "
        "elementwise functions (np.sin, np.cos, np.exp, np.power) on the whole array."
    )


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
                    # a model that predicts NaN (a size of 0 in a division) agrees with a
                    # learner's table that is NaN at the same entries
                    and np.allclose(
                        table, np.asarray(value, dtype=np.float64), equal_nan=True, **tol
                    )
                )
                if not agrees:
                    break
        if agrees:
            confirmed[message] = wrong
    return confirmed


def _pe_measured_exponent(got: np.ndarray, max_len: int, d_model: int) -> float | None:
    """The c of a table of sin/cos pairs whose frequencies fall geometrically, w_i =
    10000^(-c·i/d_model) (read off row 1), when that table is ``got``; None otherwise."""
    pairs = d_model // 2
    if max_len < 2 or pairs < 2 or got.shape != (max_len, d_model):
        return None
    two_i = 2 * np.arange(pairs)
    w = np.arctan2(got[1, two_i], got[1, two_i + 1])  # each pair's angle at position 1
    index = np.arange(1, pairs)
    usable = (np.abs(w[1:]) < 3.0) & (w[1:] > 0)  # away from the wrap at ±π
    if not usable.any():
        return None
    slope = -float(np.sum(index[usable] * np.log(w[1:][usable])) / np.sum(index[usable] ** 2))
    model = _pe_geometric(max_len, d_model, slope)
    if not np.allclose(got, model, rtol=1e-5, atol=1e-4):
        return None
    return slope * d_model / math.log(10000.0)


def _pe_geometric(max_len: int, d_model: int, slope: float) -> np.ndarray:
    """The table whose pair i turns at exp(-slope·i) per position."""
    rates = np.exp(-slope * np.arange((d_model + 1) // 2))
    angles = np.arange(max_len, dtype=np.float64)[:, None] * rates  # (max_len, pairs)
    model = np.zeros((max_len, d_model))
    model[:, 0::2] = np.sin(angles)
    model[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return model


def _pe_fitted_frequencies(got: np.ndarray, max_len: int, d_model: int, others=lambda: ()) -> str:
    """A table of sin/cos pairs whose frequencies fall geometrically, w_i =
    10000^(-c·i/d_model), with another c than 2 (nor 1 or 4, named mistakes of their own):
    the c measured from the learner's row 1, said when that table is the learner's; ""
    otherwise. What c says about the code is said
    only when the learner's ``others()`` tables ((table, (max_len, d_model)) each, the
    check's other calls, made only then) give the same cause."""
    c = _pe_measured_exponent(got, max_len, d_model)
    if c is None or c <= 0 or any(abs(c - named) < 1e-3 for named in (1.0, 2.0, 4.0)):
        return ""
    measured = [
        (
            lambda c_other, table=table, case=case: np.allclose(
                table,
                _pe_geometric(*case, c_other * math.log(10000.0) / case[1]),
                rtol=1e-5,
                atol=1e-4,
            ),
            case[1],
        )
        for table, case in others()
        if case[0] >= 2 and case[1] >= 4 and table.shape == case
    ]
    why = _exponent_why_everywhere(c, d_model, measured)
    if not why:
        why = _whole_step_why(c, d_model, others)
    base = _round_base(c)
    if base is not None and not why:
        return _wrong_base_sentence(c, base)
    shown = f"{round(c)}i" if abs(c - round(c)) < 1e-3 else f"{c:.4g}·i"
    return (
        f"Your sines and cosines are in place, but pair i turns at pos / 10000^({shown}/d_model) "
        "(i the pair index, measured from your table): the exponent is 2i/d_model." + why
    )


def _whole_step(c: float, d_model: int, least: int = 1) -> int | None:
    """The whole number k when the measured exponent c·i/d_model makes pair i turn at
    pos·e^(-k·i) (k >= least), else None."""
    step = c * math.log(10000.0) / d_model
    k = round(step)
    return k if k >= least and abs(step - k) < 1e-4 else None


def _whole_step_why(c: float, d_model: int, others) -> str:
    """A step of a whole power of e per pair, in this table and in every other table of
    the check that can be measured (their d_models differ, so the true step,
    2·ln(10000)/d_model, cannot be whole in all of them, and neither can log10's 8/d_model):
    a value in the exponent rounded to a whole number, most often a floor division that
    binds to more than the writer meant; "" otherwise."""
    k = _whole_step(c, d_model)
    if k is None:
        return ""
    steps = {d_model: k}
    for table, case in others():
        if case[0] < 2 or case[1] < 4 or table.shape != case:
            continue
        other = _pe_measured_exponent(table, *case)
        # (a step rounded down to 0 is whole too: every pair at frequency 1)
        other_k = None if other is None else _whole_step(other, case[1], least=0)
        if other_k is None:
            return ""
        steps[case[1]] = other_k
    if len(steps) < 2:  # one d_model alone: a whole step there can be a coincidence
        return ""
    shown = ", ".join(f"e^(-{k}·i) at d_model = {d}" for d, k in steps.items())
    return (
        " In every table the check measured, pair i turns at pos times e^(-k·i) with a whole "
        f"number k ({shown}): a whole power of e per pair, so a value in the exponent was rounded "
        "to a whole number. Most often a floor division with the wrong precedence: in "
        "-log(10000) / d_model // 2 the // applies to the whole quotient -log(10000) / "
        "d_model (/ and // bind equally, left to right) and floors it to a negative whole "
        "number, instead of dividing by d_model // 2; int() or round() would do the same. "
        "Put the parentheses where you mean them, or write the rate directly: "
        "np.exp(-np.log(10000.0) * 2i / d_model), that is 10000^(-2i / d_model)."
    )


def _single_round_base(got: np.ndarray, max_len: int, d_model: int) -> bool:
    """Whether ``got`` is the table of pos / B^(2i/d_model) for a round base B other than
    10000 (and other than a named exponent mistake)."""
    c = _pe_measured_exponent(got, max_len, d_model)
    return (
        c is not None
        and c > 0
        and not any(abs(c - named) < 1e-3 for named in (1.0, 2.0, 4.0))
        and _round_base(c) is not None
    )


def _round_base(c: float) -> float | None:
    """The base B of pos / B^(2i/d_model) that gives the measured exponent c of
    pos / 10000^(c·i/d_model), when B is a number a learner writes (1, 2 or 5 times a power
    of ten: 1000, 100000, 20000, ...); None otherwise. Base and exponent cannot be told
    apart from any table (B^(2i/d) = 10000^(c·i/d) at every i and d_model), so a round
    base is the likelier reading of a c that is not a named exponent mistake."""
    base = 10000.0 ** (c / 2.0)
    if not 10.0 <= base <= 1e9:
        return None
    power = 10.0 ** math.floor(math.log10(base) + 1e-9)
    for mantissa in (1.0, 2.0, 5.0, 10.0):
        if abs(base - mantissa * power) < 1e-3 * base:
            return mantissa * power
    return None


def _wrong_base_sentence(c: float, base: float) -> str:
    """The sentence for a table whose frequencies are pos / ``base``^(2i/d_model)."""
    written = f"{base:,.0f}".replace(",", " ")
    slip = ""
    if base == 100000.0:
        slip = " A common slip: 10e4 is 10·10^4 = 100000, not 10000; write 1e4 or 10000.0."
    elif base == 1000.0:
        slip = " (10e2, or 1e3, is 1000; the base is 1e4 = 10000.)"
    slower = "slower" if base > 10000.0 else "faster"
    return (
        f"Your sines and cosines are in place, but pair i turns at pos / {written}^(2i/d_model) "
        f"(measured from your table): the base is {written} instead of 10000, so every pair "
        f"after the first turns {slower} than the paper's. The base must be 10000: "
        f"pos / 10000^(2i/d_model).{slip} (The same table also comes from base 10000 with "
        f"the exponent {c:.4g}·i/d_model instead of 2i/d_model, if you changed the exponent "
        "rather than the base.)"
    )


_BROADCAST_INTO = re.compile(r"from shape \((\d+), ?(\d+)\) into shape \((\d+), ?(\d+)\)")


def _read_divisors(table: np.ndarray, max_len: int, d_model: int) -> np.ndarray | None:
    """Each pair's divisor d_i (angle = pos / d_i) read off the learner's row 1 (the angle
    there is 1 / d_i), when a table of sin/cos pairs with those divisors is the learner's;
    None otherwise (a table of one row, angles past pi at position 1, another layout)."""
    pairs = d_model // 2
    if max_len < 2 or pairs < 1 or table.shape != (max_len, d_model):
        return None
    two_i = 2 * np.arange(pairs)
    rates = np.arctan2(table[1, two_i], table[1, two_i + 1])  # (pairs,), in (-pi, pi]
    if not (rates > 1e-12).all():
        return None
    angles = np.arange(max_len, dtype=np.float64)[:, None] * rates  # (max_len, pairs)
    model = np.empty((max_len, 2 * pairs))
    model[:, 0::2], model[:, 1::2] = np.sin(angles), np.cos(angles)
    if not np.allclose(table[:, : 2 * pairs], model, rtol=1e-5, atol=1e-4):
        return None
    return 1.0 / rates


def _linear_divisors(got: np.ndarray, max_len: int, d_model: int, others=lambda: ()) -> str:
    """The pairs' divisors, read from the learner's own table (:func:`_read_divisors`),
    evenly spaced (np.linspace(1, 10000, pairs): 'wavelengths from 2 pi to 10000 2 pi' read
    as a linear series) where the paper's grow geometrically, 10000^(2i/d_model). With
    fewer than three pairs both readings fit, so a table of the check's other calls
    (``others()``, made only then) with three pairs or more must show the linear series.
    The sentence, or ""."""
    tables = [(got, (max_len, d_model))]
    if d_model // 2 < 3:
        tables = [(t, case) for t, case in others() if case[1] // 2 >= 3 and case[0] >= 2]
    for table, (rows, width) in tables:
        divisors = _read_divisors(table, rows, width)
        if divisors is None or d_model // 2 < 1:
            continue
        kind = series_kind(divisors, rtol=1e-3)
        if kind is None or kind[0] != "linear":
            continue
        first, last = float(divisors[0]), float(divisors[-1])
        paper = 10000.0 ** (2 * np.arange(width // 2) / width)
        shown = ", ".join(f"{d:.6g}" for d in divisors[:5]) + (", ..." if len(divisors) > 5 else "")
        right = ", ".join(f"{d:.6g}" for d in paper[:5]) + (", ..." if len(paper) > 5 else "")
        where = (
            f"On positional_encoding({rows}, {width}), your"
            if (rows, width) != (max_len, d_model)
            else "Your"
        )
        later, right_later = divisors[1:], paper[1 : len(divisors)]
        speed = (
            "too slowly"
            if (later > right_later).all()
            else "too fast"
            if (later < right_later).all()
            else "at other speeds than the paper's"
        )
        return (
            f"{where} pairs divide pos by {shown} (read from your table's angles at "
            f"position 1): evenly spaced, a linear series from {first:.6g} to {last:.6g} in "
            f"steps of {kind[1]:.6g} (np.linspace({first:.6g}, {last:.6g}, number of pairs)), "
            f"where the paper's divisors grow geometrically, each a constant factor times the "
            f"one before: 10000^(2i/d_model) = {right}. The wavelengths run from 2 pi to "
            f"10000 * 2 pi as a geometric progression; in yours the pairs after the first turn "
            f"{speed}. Write the divisors as a power: np.power(10000.0, "
            "np.arange(0, d_model, 2) / d_model)."
        )
    return ""


def _short_cosine_slice(positional_encoding, cases, current, got64, where: str = "here") -> str:
    """The sine columns right and the cosine columns not, the cosines given fewer angles
    than there are pairs: on this table one angle broadcast over the cosine columns, and on
    the check's other cases a broadcasting error into the d_model // 2 cosine columns. Named
    when every count is d_model // k for one k >= 3 (the slice's end with another divisor
    than 2, mutant-positional_encoding-10's d_model // 3), with the counts; "" otherwise."""
    max_len, d_model = current
    expected = ref.positional_encoding(max_len, d_model)
    if got64.shape != expected.shape or d_model < 4 or max_len < 2:
        return ""
    if not np.allclose(got64[:, 0::2], expected[:, 0::2], atol=1e-5):
        return ""  # the sines depart too: not the cosines' step
    angles = np.arange(max_len, dtype=np.float64)[:, None] / np.power(
        10000.0, np.arange(0, d_model, 2) / d_model
    )
    if not np.allclose(got64[:, 1::2], np.cos(angles[:, :1]), atol=1e-5):
        return ""  # not one angle broadcast over the cosine columns
    counts: dict[int, int] = {d_model: 1}
    raised = []
    for rows, width in cases:
        if (rows, width) == current or width < 2 or rows < 1:
            continue
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                positional_encoding(rows, width)
        except ValueError as exc:
            found = _BROADCAST_INTO.search(str(exc))
            if found and int(found[3]) == rows and int(found[4]) == width // 2:
                counts[width] = int(found[2])
                raised.append((rows, width, str(exc)))
        except Exception:
            continue
    if not raised:
        return ""
    divisors = [k for k in range(3, 9) if all(width // k == n for width, n in counts.items())]
    if not divisors:
        return ""  # one angle short (angles[:, :-1]) and the like have messages of their own
    divisor = " or d_model // ".join(map(str, divisors))  # several: these counts fit each
    listed = ", ".join(f"{n} for d_model = {width}" for width, n in sorted(counts.items()))
    rows, width, error = raised[0]
    return (
        "Your sine columns are right, but the cosine columns get fewer angles than there are "
        f"pairs: {where} every cosine column holds the cosine of pair 0's angle (one angle "
        f"broadcast over the {d_model // 2} cosine columns), and positional_encoding({rows}, "
        f"{width}) raises ValueError: {error}. Your cosines' angle counts, {listed}, "
        + f"are d_model // {divisor}: the slice angles[:, : d_model // {divisors[0]}]"
        + (" (or the like)" if len(divisors) > 1 else "")
        + " where d_model // 2 belongs. Each pair has its cosine: pe[:, 1::2] = np.cos(angles[:, : d_model // 2]) (with "
        "an odd d_model the last sine has no cosine partner)."
    )


#: tables the error path reads when the check's own call raised: a small one where the
#: cosines' short slice is a single angle broadcast, and wider ones that give its counts
_SLICE_PROBES = ((6, 4), (20, 10), (9, 7), (12, 8), (64, 32))


def _short_cosine_slice_from_error(positional_encoding, max_len: int, d_model: int) -> str:
    """After this call's broadcasting error: the learner's small probe table has right
    sines and one angle broadcast over its cosines, and the counts of every probe's error
    fit one slice end (:func:`_short_cosine_slice`); "" otherwise."""
    small = _SLICE_PROBES[0]
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            table = np.asarray(positional_encoding(*small), dtype=np.float64)
    except Exception:
        return ""
    cases = [*_SLICE_PROBES, (max_len, d_model)]
    return _short_cosine_slice(
        positional_encoding, cases, small, table, f"on positional_encoding{small}"
    )


def _too_few_angles(positional_encoding, cases, current) -> str:
    """A wrong table here and, on another case with an even d_model, a broadcasting error
    that writes k < d_model/2 angles into the d_model/2 sine columns: the code computes too
    few angles (pair indices from a range over part of the width), which a small table can
    hide (at d_model = 4 one angle broadcasts over both pairs, like frequency 1
    everywhere). Said with the sizes; the range np.arange(0, d_model // 2, 2) named when it
    gives k on every such case. "" when no other case shows it."""
    seen = []
    for max_len, d_model in cases:
        if (max_len, d_model) == current or d_model % 2 or max_len < 1:
            continue
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                positional_encoding(max_len, d_model)
        except ValueError as exc:
            found = _BROADCAST_INTO.search(str(exc))
            if not found:
                continue
            rows, angles, rows_into, columns = (int(g) for g in found.groups())
            if rows == rows_into == max_len and columns == d_model // 2 and angles < columns:
                seen.append((max_len, d_model, angles, str(exc)))
        except Exception:
            continue
    # one angle short is another family (the cosines given angles[:, :-1]): only the
    # counts of a range over half the width, about d_model / 4, are said here
    if not seen or not all(len(range(0, d // 2, 2)) == k for _, d, k, _ in seen):
        return ""
    max_len, d_model, angles, error = seen[0]
    return _few_angles_sentence(max_len, d_model, angles, error)


def _few_angles_from_error(exc: BaseException, max_len: int, d_model: int) -> str:
    """The hint for a broadcasting error of this very call that writes about d_model / 4
    angles into the d_model / 2 sine (or cosine) columns; "" otherwise."""
    found = _BROADCAST_INTO.search(str(exc))
    if not found or d_model % 2:
        return ""
    rows, angles, rows_into, columns = (int(g) for g in found.groups())
    if not (rows == rows_into == max_len and columns == d_model // 2):
        return ""
    if angles != len(range(0, d_model // 2, 2)) or angles >= columns:
        return ""
    return _few_angles_sentence(max_len, d_model, angles, "")


def _few_angles_sentence(max_len: int, d_model: int, angles: int, error: str) -> str:
    """Too few angles, about d_model / 4, for the d_model / 2 pairs: the sizes, and the two
    ranges that give that count."""
    raised = (
        f"positional_encoding({max_len}, {d_model}) raises ValueError: {error}: " if error else ""
    )
    why = (
        " Your counts, about d_model / 4, are those of np.arange(0, d_model // 2, 2), the "
        "pair indices taken over half of the width (as a 2-D, image, sine encoding splits "
        "d_model between its x and y axes), or of np.arange(0, d_model, 4), a step of 4 "
        "(both give the same number of angles)."
    )
    hidden = (
        " (on this small table they broadcast over the pairs and hide the mistake)" if error else ""
    )
    return (
        f"{raised}Your code computes {angles} angles where there are d_model / 2 = "
        f"{d_model // 2} pairs, so there are too few frequencies{hidden}.{why} There is one "
        "angle per pair: 2i runs over "
        "np.arange(0, d_model, 2), and pair i's angle is pos / 10000^(2i/d_model)."
    )


def _other_tables(positional_encoding, cases, current) -> list:
    """The learner's tables for the check's other cases, (table, case) each; the cases
    that raise are left out (the check reaches them with their own message)."""
    tables = []
    for case in cases:
        if case == current:
            continue
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                table = np.asarray(positional_encoding(*case), dtype=np.float64)
        except Exception:
            continue
        tables.append((table, case))
    return tables


def _rows_off_by_one(got, max_len: int, d_model: int) -> str:
    """The sentence for a table one row short or one row long: which positions its rows
    hold (0 .. max_len - 2, 1 .. max_len - 1, 0 .. max_len) when its values tell it."""
    rows = int(np.shape(got)[0])
    table = ref.positional_encoding(max_len + 1, d_model)  # (max_len + 1, d_model)
    try:
        got64 = np.asarray(got, dtype=np.float64)  # (rows, d_model)
    except (TypeError, ValueError):
        got64 = None

    def holds(first: int) -> bool:
        return got64 is not None and np.allclose(got64, table[first : first + rows], atol=1e-5)

    if rows == max_len - 1:
        if holds(0):
            which = (
                f"positions 0 .. {max_len - 2}: the last position, max_len - 1 = "
                f"{max_len - 1}, is missing (np.arange(max_len - 1), or range(max_len - 1))"
            )
        elif holds(1):
            which = (
                f"positions 1 .. {max_len - 1}: position 0 is missing (positions counted "
                "from 1, np.arange(1, max_len))"
            )
        else:
            which = "one position short (a range that stops at max_len - 1, or starts at 1)"
        return (
            f"Your table has max_len - 1 = {rows} rows, one row short: {which}. Positions "
            "run 0 .. max_len - 1, max_len of them: np.arange(max_len)."
        )
    which = (
        f"positions 0 .. {max_len}: one past the last"
        if holds(0)
        else "one position too many (a range that runs to max_len inclusive)"
    )
    return (
        f"Your table has max_len + 1 = {rows} rows, one row too many: {which}. Positions "
        "run 0 .. max_len - 1, max_len of them: np.arange(max_len)."
    )


#: the first even feature index 2i where 10000^(2i) no longer fits in an int64
_FIRST_OVERFLOWING_COLUMN = next(c for c in range(0, 64, 2) if 10000**c > np.iinfo(np.int64).max)


def _integer_power_overflow_hint(got64: np.ndarray, max_len: int, d_model: int) -> str:
    """Every column before 2i = 6 right and the pair at 6 wrong: exactly where 10000^(2i)
    = 10^24 leaves the int64 range, so a power taken in integers wrapped around silently
    (blind19a-pe-integer-power-overflow: np.power(np.power(10000, two_i), 1 / d_model));
    "" otherwise."""
    column = _FIRST_OVERFLOWING_COLUMN
    if got64.shape != (max_len, d_model) or d_model < column + 2:
        return ""  # the whole pair at 2i = 6 must be there (an odd last column is another matter)
    expected = ref.positional_encoding(max_len, d_model)
    close = np.isclose(got64, expected, rtol=1e-5, atol=1e-5)  # (max_len, d_model)
    if not close[:, :column].all() or close[:, column].all() or close[:, column + 1].all():
        return ""  # both columns of the pair wrong: its frequency, not one column
    return (
        f"Columns 0 to {column - 1} are right, and the pair from column {column} on is wrong: "
        f"at 2i = {column}, 10000^(2i) = 10^{4 * column} is past the largest int64 (about "
        "9.2·10^18), so a power computed in integers (np.power or ** with an integer base "
        "and integer exponents, such as 10000 ** two_i) overflows and wraps around without "
        "an error, giving garbage or NaN. Compute the power in floating point: "
        "np.power(10000.0, two_i / d_model), with the exponent divided first."
    )


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
                    _whole_table_hint(max_len, d_model),
                    (TypeError, _scalar_function_hint),
                    (
                        ValueError,
                        lambda exc, max_len=max_len, d_model=d_model: (
                            _short_cosine_slice_from_error(positional_encoding, max_len, d_model)
                            or _few_angles_from_error(exc, max_len, d_model)
                            or flat_vector_broadcast(
                                exc, {max_len: "positions", (d_model + 1) // 2: "pairs"}
                            )
                        ),
                    ),
                    *([(Exception, _odd_hint(max_len, d_model))] if d_model % 2 else []),
                ],
            )
            _expect_array(c, got, what, "(max_len, d_model)")
            shape = tuple(got.shape)
            hint = "Rows are positions, columns are features: (max_len, d_model)."
            swapped = (
                arguments_swapped(
                    positional_encoding,
                    (max_len, d_model),
                    ("max_len", "d_model"),
                    lambda table, case=(max_len, d_model): (
                        np.shape(table) == case
                        and np.allclose(
                            np.asarray(table, dtype=np.float64),
                            ref.positional_encoding(*case),
                            atol=1e-5,
                        )
                    ),
                )
                if shape != (max_len, d_model)
                else ""
            )
            if swapped:
                hint = swapped
            elif shape == (d_model, max_len):
                hint += " Yours looks transposed."
            elif shape == (1, max_len, d_model):
                hint += " Return the 2-D table; the batch axis is added later, by the module."
            elif len(shape) == 2 and shape[1] == d_model and abs(shape[0] - max_len) == 1:
                hint += " " + _rows_off_by_one(got, max_len, d_model)
            elif len(shape) == 2 and shape[0] == max_len and shape[1] == d_model + 1:
                hint += (
                    " With an odd d_model your table got one extra column: keep d_model of them."
                )
            c.expect_shape(got, (max_len, d_model), what, hint)
            c.expect_floating(got, what, preferred="float64")
            got64 = got.astype(np.float64)
            overflow = _integer_power_overflow_hint(got64, max_len, d_model)
            if overflow:
                c.fail(f"{what} is not what the reference gives. {overflow}")
            few = (
                ""
                if np.allclose(got64, ref.positional_encoding(max_len, d_model), atol=1e-4)
                else _short_cosine_slice(positional_encoding, cases, (max_len, d_model), got64)
                or _too_few_angles(positional_encoding, cases, (max_len, d_model))
            )
            if few:
                c.fail(f"{what} is not what the reference gives. {few}")
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
                    **_pe_positions_scaled(
                        got64,
                        max_len,
                        d_model,
                        lambda current=(max_len, d_model): _other_tables(
                            positional_encoding, cases, current
                        ),
                    ),
                },
                # a measured exponent comes after the named mistakes: every mistake of the
                # exponent's family also fits a geometric frequency
                explain=lambda got64=got64, current=(max_len, d_model): (
                    _unwritten_rows(got64)
                    or _unwritten_columns(got64)
                    or _linear_divisors(
                        got64,
                        *current,
                        lambda: _other_tables(positional_encoding, cases, current),
                    )
                    or _pe_fitted_frequencies(
                        got64,
                        *current,
                        lambda: _other_tables(positional_encoding, cases, current),
                    )
                ),
                # a pair of knobs whose table is one wrong round base (base 1000 with a
                # doubled exponent is base 1000000) yields to that single mistake
                pairs=lambda max_len=max_len, d_model=d_model, got=got, got64=got64: (
                    {}
                    if _single_round_base(got64, max_len, d_model)
                    else _pe_pairs(
                        positional_encoding, cases, (max_len, d_model), _tolerance(got.dtype)
                    )
                ),
                axes=("position", "d_model"),
            )
