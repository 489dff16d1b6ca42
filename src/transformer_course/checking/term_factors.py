"""A sum whose terms came out with the wrong weights: a term left out, added twice,
subtracted, or multiplied by a stray factor.

Many outputs are a plain sum of known terms: ``x + PE[:len]`` (a positional encoding),
``x + sublayer(x)`` (a residual connection), ``scores + mask`` (an additive mask). When the
learner's output is exactly ``c_1 * term_1 + c_2 * term_2 + ...`` with other weights than
all ones, the weights say which step is wrong: a weight of 0 is a term left out, 2 a term
added twice, -1 a term subtracted, 0.5 or sqrt(d) a stray scale on that term alone.

The weights are found by least squares over every entry of the output and must reproduce
it to the check's tolerance; they are named only when the terms are far from collinear (a
term that is nearly a multiple of another would let several weightings fit), so a fit is a
fact about the inputs the check ran, never a guess.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .formatting import as_numpy
from .relations import recognisable_number

__all__ = ["term_factors", "term_factors_message"]


def term_factors(
    got: Any, terms: Mapping[str, Any], *, rtol: float = 1e-5, atol: float = 1e-6
) -> dict[str, float] | None:
    """{term: weight} with ``got`` = sum of weight * term (each weight rounded to 4
    decimals where it is that close to a round value), when that sum fits ``got`` to the
    tolerance and the terms are linearly independent (well conditioned); None otherwise,
    and None when every weight is 1 (the right sum)."""
    try:
        out = as_numpy(got).astype(np.float64)
        columns = [
            np.broadcast_to(as_numpy(t).astype(np.float64), out.shape) for t in terms.values()
        ]
    except (ValueError, TypeError, RuntimeError):
        return None
    if not columns or out.size <= len(columns) or not np.isfinite(out).all():
        return None
    matrix = np.stack([c.reshape(-1) for c in columns], axis=1)  # (entries, terms)
    if not np.isfinite(matrix).all():
        return None
    singular = np.linalg.svd(matrix, compute_uv=False)
    if singular[-1] <= 1e-3 * singular[0]:
        return None  # nearly collinear terms: several weightings fit
    weights, *_ = np.linalg.lstsq(matrix, out.reshape(-1), rcond=None)
    if not np.allclose(
        matrix @ weights, out.reshape(-1), rtol=max(rtol, 1e-5), atol=max(atol, 1e-6)
    ):
        return None
    rounded = [_rounded(float(w)) for w in weights]
    if all(abs(w - 1) < 1e-4 for w in rounded):
        return None
    return dict(zip(terms, rounded, strict=True))


def _rounded(weight: float) -> float:
    """``weight`` to 4 decimals (an int when whole) where it is that close to them."""
    short = round(weight, 4)
    if abs(weight - short) >= 1e-5 * max(1.0, abs(weight)):
        return weight
    return int(short) if short == int(short) else short


def _weight_text(name: str, weight: float) -> str:
    if abs(weight) < 1e-4:
        return f"{name} is missing (weight 0)"
    if abs(weight - 2) < 1e-4:
        return f"{name} is added twice (weight 2)"
    if abs(weight + 1) < 1e-4:
        return f"{name} is subtracted (weight -1)"
    named = recognisable_number(abs(weight))
    shown = f"{weight:.4g}" + (f" = {'-' if weight < 0 else ''}{named}" if named else "")
    return f"{name} is multiplied by {shown}"


def term_factors_message(
    got: Any,
    terms: Mapping[str, Any],
    *,
    rtol: float = 1e-5,
    atol: float = 1e-6,
    where: str = "",
) -> str:
    """What :func:`term_factors` finds, in words: which terms of the sum carry a wrong
    weight ("PE[:len] is multiplied by 0.5"), with ``where`` (the step that should add them,
    say) appended; "" when no weighting other than all ones fits."""
    weights = term_factors(got, terms, rtol=rtol, atol=atol)
    if weights is None:
        return ""
    wrong = [_weight_text(f"`{name}`", w) for name, w in weights.items() if abs(w - 1) >= 1e-4]
    right = " + ".join(weights)
    return (
        f"Your output is exactly a weighted sum of the right terms, and the weights are off: "
        f"{'; '.join(wrong)}. The output is {right}, each term once, unscaled.{where}"
    )
