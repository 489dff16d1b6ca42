"""Simple relations between a wrong value and the reference's, tried when no known mistake
and no layout explains it: all zeros, the same numbers with the opposite sign, the same
numbers times one constant, or plus one constant.

Each is a fact about the learner's output on the inputs the check ran, and is stated as
such, with the kind of step that produces it (a flipped sign, a scale factor, a constant
term); the exact line is the learner's to find. A constant that is a recognisable number
(an integer, the square root of one, or their reciprocals) is shown in that form, since a
factor of 2.828 reads better as sqrt(8), the d_k of a scaling left out.

:func:`first_wrong` locates the first wrong entry in reading order, which the fallback
message gives next to the largest difference: a computation that goes wrong from one
step on is found where it starts, not where the error has grown largest.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from .rounding import rounded_variants

__all__ = [
    "LOG_BASE_CAUSES",
    "Relation",
    "contracted_by_vector",
    "divided_by_zero",
    "first_wrong",
    "match_relation",
    "number_relation",
    "recognisable_number",
    "reordered_rows",
    "reordered_rows_sentence",
]


@dataclass(frozen=True)
class Relation:
    """``kind``: "rounded", "zero", "negated", "scaled" or "offset"; ``message``: what the learner
    reads."""

    kind: str
    message: str


#: factors that turn a logarithm of one base into another's: a result in bits where nats
#: belong (log2 for the natural log) is 1/ln 2 = 1.4427 times too large
_LOG_BASES = (
    (1 / np.log(2), "1/ln 2 = log2(e)"),
    (np.log(2), "ln 2"),
    (1 / np.log(10), "1/ln 10 = log10(e)"),
    (np.log(10), "ln 10"),
)

#: what each factor of :data:`_LOG_BASES` says about the logarithm used
LOG_BASE_CAUSES = {
    "1/ln 2 = log2(e)": "a logarithm in base 2 (bits) where the natural log (nats) belongs",
    "ln 2": "the natural log where a logarithm in base 2 belongs",
    "1/ln 10 = log10(e)": "a logarithm in base 10 where the natural log belongs",
    "ln 10": "the natural log where a logarithm in base 10 belongs",
}


def _recognisable(value: float, rel_tol: float = 1e-4) -> str:
    """``value`` as an integer, a square root of one, a reciprocal of those, or a factor
    between two logarithms' bases, if it is one (to 4 significant digits, or ``rel_tol``
    for the factor); "" otherwise."""
    for factor, name in _LOG_BASES:
        if abs(value - factor) <= rel_tol * factor:
            return name
    for form, number in (("{}", value), ("1/{}", 1 / value)):
        for name, candidate in (("{}", number), ("sqrt({})", number * number)):
            nearest = round(candidate)
            if 2 <= nearest <= 65536 and abs(candidate - nearest) <= 1e-4 * nearest:
                return form.format(name.format(nearest))
    return ""


def recognisable_number(value: float) -> str:
    """``value`` as an integer, a square root of one or a reciprocal of those ("1/sqrt(2)"),
    when it is one to 4 significant digits; "" otherwise."""
    return _recognisable(value) if value else ""


def _rounded(got: np.ndarray, expected: np.ndarray) -> Relation | None:
    """The reference's values rounded to whole numbers (floor division //, a cast to int,
    round: :func:`rounded_variants`, every way that gives them named), to a number of
    decimals, or of significant digits (round(x, 4) for a tidy print, f"{x:.3g}"), where
    rounding changes some of them and leaves some non-zero: blind17a-noam-rounded-to-four-
    places got "differs" alone, blind19f-ls-mean-by-floor-division (a mean taken with //)
    the fallback. One number is enough (a loss): a value that is exactly the reference's
    rounded comes from a rounding."""
    if not np.any(got):
        return None
    close = {"rtol": 1e-6, "atol": 1e-6 * float(np.abs(expected).max())}

    missed = float(np.abs(got - expected).max())

    def fits(candidate: np.ndarray) -> bool:
        # the rounding explains the whole difference, not a hundredth of it less
        return (
            bool(np.any(candidate))
            and not np.allclose(candidate, expected, rtol=1e-9, atol=0.0)
            and np.allclose(got, candidate, **close)
            and float(np.abs(got - candidate).max()) <= 0.01 * missed
        )

    whole = [
        description for description, value in rounded_variants(expected).items() if fits(value)
    ]
    if whole:  # rounded to whole numbers: every way of rounding that gives these values
        return Relation(
            "rounded",
            f"Your values are the reference's {'; or '.join(whole)}"
            + (" (the ways agree on these values)" if len(whole) > 1 else "")
            + ". Keep the value a real number: true division /, no int(...) or round.",
        )
    for decimals in range(1, 9):
        if fits(np.round(expected, decimals)):
            return Relation(
                "rounded",
                f"Your values are the reference's rounded to {decimals} decimal place"
                f"{'s' if decimals != 1 else ''} (round(x, {decimals}), np.round): rounding "
                "for a tidy print changes the values themselves. Return them unrounded, and "
                'round only where you print them (f"{x:.4f}" formats without changing x).',
            )
    for digits in range(1, 7):
        significant = np.vectorize(lambda v, d=digits: float(f"{v:.{d}g}"))(expected)
        if fits(significant):
            return Relation(
                "rounded",
                f"Your values are the reference's rounded to {digits} significant digit"
                f'{"s" if digits != 1 else ""} (f"{{x:.{digits}g}}" turned back into a '
                "number): rounding for a tidy print changes the values themselves. Return "
                "them unrounded, and round only where you print them.",
            )
    return None


def _features_named(indices: list[int], size: int) -> str:
    """Indices of the last axis, in words: the odd or even ones, a half, or the list."""
    if indices == list(range(1, size, 2)):
        return "the odd features (1, 3, 5, ...)"
    if indices == list(range(0, size, 2)):
        return "the even features (0, 2, 4, ...)"
    if indices == list(range(size // 2, size)) and size % 2 == 0:
        return f"the second half of the features ({size // 2} .. {size - 1})"
    if indices == list(range(size // 2)) and size % 2 == 0:
        return f"the first half of the features (0 .. {size // 2 - 1})"
    shown = ", ".join(map(str, indices[:8])) + (", ..." if len(indices) > 8 else "")
    return f"the features {shown}"


def _negated_features(got: np.ndarray, expected: np.ndarray, tol: dict) -> Relation | None:
    """Some features (indices of the last axis) with the opposite sign at every entry,
    the others right: the formula of those features has a sign flipped (a cosine written
    as sin(angle - π/2) = -cos(angle), say). None unless both groups hold a nonzero
    feature (an all-zero feature fits either)."""
    if got.ndim < 2 or got.shape[-1] < 2:
        return None
    size = got.shape[-1]
    mine = got.reshape(-1, size)  # (entries, features)
    theirs = expected.reshape(-1, size)  # (entries, features)
    silent = np.all(np.isclose(theirs, 0, atol=tol["atol"]), axis=0)  # (features,)
    same = np.all(np.isclose(mine, theirs, **tol), axis=0)  # (features,)
    negated = np.all(np.isclose(mine, -theirs, **tol), axis=0)  # (features,)
    if not np.all(same | negated):
        return None
    flipped = negated & ~same & ~silent
    kept = same & ~negated & ~silent
    if not flipped.any() or not kept.any():
        return None
    indices = [int(i) for i in np.nonzero(negated & ~silent)[0]]
    right = [int(i) for i in np.nonzero(same & ~silent)[0]]
    named = _features_named(indices, size)
    if silent.any():  # an all-zero feature is either: name the pattern when it fits
        for candidate in (list(range(1, size, 2)), list(range(0, size, 2))):
            if set(indices) <= set(candidate) and not set(right) & set(candidate):
                named = _features_named(candidate, size)
    return Relation(
        "negated features",
        f"Your values have the opposite sign in {named} of the last axis, at every entry, "
        "and are right in the others: the formula of those features has a minus too many "
        "or too few.",
    )


def _layer_normalised(values: np.ndarray) -> np.ndarray:
    """Each row over the last axis with its mean subtracted, divided by sqrt(var + 1e-5)."""
    centred = values - values.mean(-1, keepdims=True)
    return centred / np.sqrt((centred**2).mean(-1, keepdims=True) + 1e-5)


def _log_softmax(values: np.ndarray) -> np.ndarray:
    shifted = values - values.max(-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))


#: a step applied once more to a right result, {how it is said: the step}, over the
#: last axis where it acts on rows
_EXTRA_STEPS = {
    "normalised once more over the last axis (each row's mean subtracted and divided by "
    "its standard deviation): an extra LayerNorm, F.layer_norm or normalisation after the "
    "step that produces them": _layer_normalised,
    "passed through a softmax over the last axis": lambda v: np.exp(_log_softmax(v)),
    "passed through a log_softmax over the last axis": _log_softmax,
    "passed through a ReLU (every negative value set to 0)": lambda v: np.maximum(v, 0),
    "passed through a tanh": np.tanh,
}


def _function_applied(got: np.ndarray, expected: np.ndarray, tol: dict) -> Relation | None:
    """The reference's values with one more step of :data:`_EXTRA_STEPS` applied, when
    exactly one step fits (blind misses: an encoder output normalised once more was told
    "largest difference"); None otherwise."""
    if got.ndim < 1 or expected.shape[-1] < 2:
        return None
    found = []
    with np.errstate(all="ignore"):
        for said, step in _EXTRA_STEPS.items():
            candidate = step(expected)
            if candidate.shape == got.shape and np.allclose(got, candidate, **tol):
                found.append(said)
    if len(found) != 1:
        return None
    return Relation(
        "function applied",
        f"Your values are the reference's {found[0]}: the right result, then one step too "
        "many. Remove that step.",
    )


def reordered_rows(got: Sequence, expected: Sequence, same: Callable) -> list[int] | None:
    """The order p with ``same(got[i], expected[p[i]])`` for every row i: a permutation
    other than the identity, each row matching exactly one expected row (rows that repeat
    tell no order); None otherwise."""
    rows = len(got)
    if rows < 2 or len(expected) != rows:
        return None
    order = []
    for i in range(rows):
        matches = [j for j in range(rows) if same(got[i], expected[j])]
        if len(matches) != 1:
            return None
        order.append(matches[0])
    if sorted(order) != list(range(rows)) or order == list(range(rows)):
        return None
    return order


def reordered_rows_sentence(order: Sequence[int], noun: str = "row") -> str:
    """What a learner reads when their rows are the expected ones in the ``order`` given by
    :func:`reordered_rows`."""
    moved = ", ".join(f"{noun} {i} holds {noun} {j}'s" for i, j in enumerate(order) if i != j)
    return (
        f"Your {noun}s are the right ones in another order ({moved}): the batch was "
        "reordered on the way (sorted by length to batch with less padding, say, or "
        "gathered by an index) and not put back. Return the results in the order of the "
        "input: undo the sort with its inverse (result[order] = sorted_result, or "
        "order.argsort())."
    )


def _rows_permuted(got: np.ndarray, expected: np.ndarray, tol: dict) -> Relation | None:
    """The batch's rows (the first axis) in another order, each the expected value of
    exactly one other row."""
    if got.ndim < 2:
        return None
    order = reordered_rows(list(got), list(expected), lambda a, b: bool(np.allclose(a, b, **tol)))
    if order is None:
        return None
    return Relation("rows permuted", reordered_rows_sentence(order))


def _rows_copied(got: np.ndarray, expected: np.ndarray, tol: dict) -> Relation | None:
    """Every wrong row along the first axis (the batch) holding the expected values of one
    other row, the same one for all: one row's result given to the whole batch, or an edit
    applied to part of it (blind misses: logits of row 0 copied to the batch were told
    "largest difference"). None when no row is wrong, a wrong row matches no other or
    several, or the rows are too few to tell."""
    if got.ndim < 2 or got.shape[0] < 2:
        return None
    rows = got.shape[0]

    def same(a: np.ndarray, b: np.ndarray) -> bool:
        return bool(np.allclose(a, b, **tol))

    wrong = [i for i in range(rows) if not same(got[i], expected[i])]
    if not wrong:
        return None
    sources = set()
    for i in wrong:
        matches = [j for j in range(rows) if j != i and same(got[i], expected[j])]
        if len(matches) != 1:
            return None
        sources.add(matches[0])
    if len(sources) != 1:
        return None
    source = sources.pop()
    right = [i for i in range(rows) if i not in wrong]
    said = ", ".join(str(i) for i in wrong)
    kept = f"; row(s) {', '.join(str(i) for i in right)} are right" if right else ""
    return Relation(
        "rows copied",
        f"Along the first axis (the batch), your row(s) {said} hold the expected values of "
        f"row {source}, not their own{kept}: either one row's result is given to other "
        "rows (an index such as [0] or [:1] broadcast over the batch, a value computed once "
        "and reused, an assignment into part of the batch), or those rows differ from row "
        f"{source} only in something your code ignores (their padding or mask, say). Each "
        "row must be computed from its own input.",
    )


def match_relation(
    got: np.ndarray, expected: np.ndarray, *, rtol: float, atol: float
) -> Relation | None:
    """The one relation that turns ``expected`` into ``got`` (same shape, both finite), or
    None. Nothing is said when the reference is (nearly) all zeros, where every relation
    holds at once."""
    if got.shape != expected.shape or got.size < 1:
        return None
    if not (np.isfinite(got).all() and np.isfinite(expected).all()):
        return None
    rounded = _rounded(got, expected)  # one number is enough: rounding leaves a trace
    if rounded is not None or got.size < 2:
        return rounded
    tol = {"rtol": max(rtol, 1e-4), "atol": max(atol, 1e-5)}
    spread = float(np.abs(expected).max())
    if spread <= 100 * tol["atol"]:
        return None
    if not np.any(got):
        return Relation(
            "zero",
            "Your values are all 0 where the reference's are not: nothing is ever added or "
            "written to them (an assignment where an addition belongs, or a result never "
            "stored), or a NaN on the way (0 / 0, a softmax of NaN scores) was turned into 0 "
            "by a guard (np.divide's where=, nan_to_num, masked_fill).",
        )
    if np.allclose(got, -expected, **tol):
        return Relation(
            "negated",
            "Your values are the reference's with the opposite sign at every entry: one sign "
            "is flipped on the way (a subtraction where an addition belongs, or a minus too "
            "many or too few).",
        )
    flipped = _negated_features(got, expected, tol)
    if flipped is not None:
        return flipped
    permuted = _rows_permuted(got, expected, tol)
    if permuted is not None:
        return permuted
    copied = _rows_copied(got, expected, tol)
    if copied is not None:
        return copied
    applied = _function_applied(got, expected, tol)
    if applied is not None:
        return applied
    factor = float(np.vdot(got, expected) / np.vdot(expected, expected))
    if abs(factor) > 1e-6 and abs(factor - 1) > 1e-3 and np.allclose(got, factor * expected, **tol):
        named = _recognisable(abs(factor))
        shown = f"{factor:.6g}" + (f" (= {'-' if factor < 0 else ''}{named})" if named else "")
        if named in LOG_BASE_CAUSES and factor > 0:
            return Relation(
                "scaled",
                f"Your values are the reference's times one constant, {shown}, at every "
                f"entry: the factor between two logarithms' bases, so {LOG_BASE_CAUSES[named]}"
                " (np.log and torch.log are the natural log).",
            )
        return Relation(
            "scaled",
            f"Your values are the reference's times one constant, {shown}, at every entry: a "
            "scale factor is missing, extra or wrong (a division or a multiplication by a "
            "size or its square root, say).",
        )
    offset = float(np.mean(got - expected))
    if abs(offset) > 10 * tol["atol"] and np.allclose(got, expected + offset, **tol):
        return Relation(
            "offset",
            f"Your values are the reference's plus one constant, {offset:.6g}, at every "
            "entry: a term that is the same everywhere is added, or left out.",
        )
    return None


def first_wrong(got: np.ndarray, expected: np.ndarray, *, rtol: float, atol: float) -> str:
    """'k of n entries differ, the first at index (...) (yours a, expected b)', or "" when
    every entry differs (the first one then says nothing the largest does not)."""
    wrong = ~np.isclose(got, expected, rtol=rtol, atol=atol, equal_nan=True)
    count = int(wrong.sum())
    if got.ndim == 0 or count in (0, wrong.size):
        return ""
    index = tuple(int(i) for i in np.argwhere(wrong)[0])
    return (
        f"{count} of {wrong.size} entries differ, the first at index {index} (yours "
        f"{float(got[index]):.6g}, expected {float(expected[index]):.6g})."
    )


#: the powers a unit or a size is written with, which a slip of the keyboard turns into
#: a product (one asterisk missing, 2*20 = 40) or an exclusive or (2 ^ 20 = 22)
_POWERS = ((2, 10), (2, 20), (2, 30), (10, 3), (10, 6), (10, 9))


def _mistyped_power(ratio: float) -> str:
    """When ``ratio`` (yours / the right number) is a power over a mistyped power (a
    divisor written 2*20 for 2**20; 10*6 where 2**20 belongs, a unit slip as well) or the
    reverse (a factor mistyped): the sentence, every reading that gives it named; ""
    otherwise."""
    found = []
    for base, exponent in _POWERS:
        for typed_base, typed_exponent in _POWERS:
            power = base**exponent
            for typed, value, how in (
                (
                    f"{typed_base}*{typed_exponent}",
                    typed_base * typed_exponent,
                    "one asterisk missing: a product",
                ),
                (
                    f"{typed_base} ^ {typed_exponent}",
                    typed_base ^ typed_exponent,
                    "^ is Python's bitwise exclusive or",
                ),
            ):
                also = (
                    ""
                    if (typed_base, typed_exponent) == (base, exponent)
                    else f", and {typed_base}**{typed_exponent} is another unit than "
                    f"{base}**{exponent}"
                )
                for factor, role in ((power / value, "divides"), (value / power, "multiplies")):
                    whole = max(factor, 1 / factor)
                    if abs(whole - round(whole)) <= 1e-9 * whole:
                        continue  # a whole factor (2**10 / (2 ^ 10) = 128) has other readings
                    if abs(ratio - factor) <= 1e-6 * factor:
                        found.append(
                            f"{typed} = {value} where {base}**{exponent} = {power} belongs "
                            f"({how}, not a power{also}), so yours {role} by {value}"
                        )
    if not found:
        return ""
    return (
        "Your number is the right one times a power over a mistyped one: "
        + "; or ".join(dict.fromkeys(found))
        + ". A power is written with two asterisks, base**exponent."
    )


def number_relation(got: float, expected: float, rel_tol: float = 1e-4) -> str:
    """For one wrong number (a concept question's answer): how it relates to the right one,
    when one simple relation does (a logarithm of another base, one too many or too few, a
    whole factor too many or too few, the reciprocal); "" otherwise."""
    if not (np.isfinite(got) and np.isfinite(expected)) or expected == 0 or got == 0:
        return ""
    ratio = got / expected
    named = _recognisable(abs(ratio), max(rel_tol, 1e-4)) if ratio > 0 else ""
    if named in LOG_BASE_CAUSES:
        return f"Your number is the right one times {named}: {LOG_BASE_CAUSES[named]}."
    for power in (1, 2, 3):  # 1000 where 1024 = 2^10 belongs (MB for MiB), or the reverse
        for used, belongs in ((1000, 1024), (1024, 1000)):
            factor = (used / belongs) ** power
            if abs(ratio - factor) <= 1e-6 * factor:
                exponent, times = ("", "") if power == 1 else (f"^{power}", f", {power} times over")
                return (
                    f"Your number is the right one times ({used}/{belongs}){exponent}: {used} "
                    f"where {belongs} belongs{times} (a thousand and 2^10 = 1024 are different "
                    "units: MB and MiB, or 1000 tokens and 1024)."
                )
    mistyped = _mistyped_power(ratio)
    if mistyped:
        return mistyped
    if abs(got - expected) == 1.0 and float(expected).is_integer():
        return "Your number is one away from the right one: an off-by-one in what you counted."
    if abs(got - 1 / expected) <= 1e-6 * abs(got):
        return "Your number is the right one's reciprocal: one quantity divided by the other the wrong way up."
    if named and ratio > 0 and named.isdigit():
        return f"Your number is {named} times the right one: a factor of {named} too many."
    if named.startswith("1/") and named[2:].isdigit():
        return (
            f"Your number is the right one divided by {named[2:]}: a factor of {named[2:]} "
            "left out, or divided where it belongs."
        )
    return ""


def contracted_by_vector(got: Any, operand: torch.Tensor, vector: torch.Tensor) -> bool:
    """Whether ``got`` is ``operand @ vector``: the last axis summed away by a product
    with a (d,) vector where an element-wise ``*`` belongs (blind19d-rms-gain-applied-
    with-matmul: x * rsqrt(...) @ weight, a (...) result for (..., d))."""
    if not isinstance(got, torch.Tensor) or tuple(got.shape) != tuple(operand.shape[:-1]):
        return False
    if vector.dim() != 1 or vector.shape[0] != operand.shape[-1]:
        return False
    expected = operand.detach().double() @ vector.detach().double()  # (...)
    return bool(torch.allclose(got.detach().double(), expected, rtol=1e-3, atol=1e-4))


def divided_by_zero(got: Any, expected: Any) -> bool:
    """Whether ``got`` is what dividing the right numerator by 0 gives: inf with the
    sign of the right value wherever that value is not 0 (NaN, 0 / 0, where it is),
    and at least one inf. A normalisation whose denominator never grew (a running sum
    left at its initial 0, a sum multiplied where it should be added) gives exactly
    this; a NaN from inf - inf or 0 · inf does not keep the signs."""
    if not isinstance(got, np.ndarray):
        got = np.asarray(got.detach() if isinstance(got, torch.Tensor) else got, dtype=np.float64)
    if not isinstance(expected, np.ndarray):
        expected = np.asarray(
            expected.detach() if isinstance(expected, torch.Tensor) else expected,
            dtype=np.float64,
        )
    if got.shape != expected.shape or got.size == 0 or not np.isfinite(expected).all():
        return False
    nonzero = expected != 0
    if not nonzero.any():
        return False
    signed_inf = np.isinf(got) & (np.sign(got) == np.sign(expected))
    return bool(signed_inf[nonzero].all() and np.isnan(got[~nonzero]).all())
