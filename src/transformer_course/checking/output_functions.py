"""A function applied to a result that is otherwise right, read off the two.

The family: the right values passed through one more elementwise step at the end: a
soft-cap ``c * tanh(x / c)`` (Gemma 2's final-logit soft-capping), a hard clamp at ±c, a
constant factor (a temperature, a stray ``d_model ** -0.5``), a constant added (a bias).
Such a step leaves every sub-result before it right, so a localisation that compares
sub-results blames the last one it sees.

:func:`output_function` fits each candidate to (expected, got) by its one parameter
(solved on the largest entry, or by least squares) and names the one that reproduces
every entry, when exactly one does; "" otherwise.
"""

from __future__ import annotations

import math

import torch

from .relations import recognisable_number

__all__ = ["KINDS", "output_function"]


def _soft_cap(expected: torch.Tensor, got: torch.Tensor) -> float | None:
    """The c with got = c * tanh(expected / c), solved on the entry of largest magnitude
    (tanh(u) / u falls from 1 as u grows); None when no c fits there."""
    at = int(expected.abs().argmax())
    e, g = float(expected.flatten()[at]), float(got.flatten()[at])
    if e == 0 or g / e <= 0 or g / e >= 1:
        return None
    target = g / e  # tanh(u) / u with u = e / c
    low, high = 1e-9, 50.0
    for _ in range(200):
        mid = (low + high) / 2
        if math.tanh(mid) / mid > target:
            low = mid
        else:
            high = mid
    return abs(e) / ((low + high) / 2)


def _number(value: float) -> str:
    rounded = round(value)
    shown = str(rounded) if abs(value - rounded) < 1e-3 * max(1.0, abs(value)) else f"{value:.4g}"
    named = recognisable_number(abs(value))
    return shown + (f" (= {named})" if named and named != shown else "")


KINDS = ("scale", "shift", "soft-cap", "clamp")


def output_function(got, expected, what: str = "result", kinds=KINDS) -> str:
    """What one elementwise step applied to ``expected`` gives ``got`` (both tensors of one
    shape), in words beginning "Your {what} ...", or "" when none, or several, fit. Only
    the ``kinds`` asked are tried (a check with its own words for a factor leaves "scale"
    out); a fit of a kind not asked still counts against naming another."""
    if not isinstance(got, torch.Tensor) or not isinstance(expected, torch.Tensor):
        return ""
    g, e = got.detach().double(), expected.detach().double()
    if g.shape != e.shape or not bool(torch.isfinite(g).all()) or not bool(torch.isfinite(e).all()):
        return ""
    size = float(e.abs().max())
    if size == 0:
        return ""
    tol = {"rtol": 1e-4, "atol": 1e-5 * size}
    if torch.allclose(g, e, **tol):
        return ""
    found: list[tuple[str, str]] = []
    scale = float((g * e).sum() / (e * e).sum())
    if torch.allclose(g, scale * e, **tol):
        found.append(
            (
                "scale",
                f"Your {what} are the right ones multiplied by {_number(scale)}: a constant "
                "factor applied after the last step (a temperature, or a scale that belongs "
                "elsewhere).",
            ),
        )
    shift = float((g - e).mean())
    if torch.allclose(g, e + shift, **tol):
        found.append(
            (
                "shift",
                f"Your {what} are the right ones with {_number(shift)} added to every entry: a "
                "constant (a bias) added after the last step.",
            ),
        )
    cap = _soft_cap(e, g)
    if cap is not None and torch.allclose(g, cap * torch.tanh(e / cap), **tol):
        found.append(
            (
                "soft-cap",
                f"Your {what} are the right ones soft-capped: {_number(cap)} * tanh({what} / "
                f"{_number(cap)})"
                + (", as Gemma 2 caps its final logits" if what == "logits" else "")
                + f": every value is pulled towards 0 (the large ones most) and none can pass "
                f"±{_number(cap)}.",
            ),
        )
    bound = float(g.abs().max())
    if bound < size and torch.allclose(g, e.clamp(-bound, bound), **tol):
        found.append(
            (
                "clamp",
                f"Your {what} are the right ones clamped at ±{bound:.4g}: every larger value is "
                "cut to the bound.",
            ),
        )
    if len(found) != 1 or found[0][0] not in kinds:
        return ""
    return found[0][1]
