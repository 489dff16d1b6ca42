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

from dataclasses import dataclass

import numpy as np

__all__ = ["Relation", "first_wrong", "match_relation"]


@dataclass(frozen=True)
class Relation:
    """``kind``: "zero", "negated", "scaled" or "offset"; ``message``: what the learner
    reads."""

    kind: str
    message: str


def _recognisable(value: float) -> str:
    """``value`` as an integer, a square root of one, or a reciprocal of those, if it is
    one (to 4 significant digits); "" otherwise."""
    for form, number in (("{}", value), ("1/{}", 1 / value)):
        for name, candidate in (("{}", number), ("sqrt({})", number * number)):
            nearest = round(candidate)
            if 2 <= nearest <= 65536 and abs(candidate - nearest) <= 1e-4 * nearest:
                return form.format(name.format(nearest))
    return ""


def match_relation(
    got: np.ndarray, expected: np.ndarray, *, rtol: float, atol: float
) -> Relation | None:
    """The one relation that turns ``expected`` into ``got`` (same shape, both finite), or
    None. Nothing is said when the reference is (nearly) all zeros, where every relation
    holds at once."""
    if got.shape != expected.shape or got.size < 2:
        return None
    if not (np.isfinite(got).all() and np.isfinite(expected).all()):
        return None
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
    factor = float(np.vdot(got, expected) / np.vdot(expected, expected))
    if abs(factor) > 1e-6 and abs(factor - 1) > 1e-3 and np.allclose(got, factor * expected, **tol):
        named = _recognisable(abs(factor))
        shown = f"{factor:.6g}" + (f" (= {'-' if factor < 0 else ''}{named})" if named else "")
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
