"""A wrong tensor taken apart as a weighted sum of the parts the right one is made of.

When the right value is a sum of known parts with known weights (an embedding scaled by
sqrt(d_model) plus the positional encoding, a residual plus a sub-layer, ...), the
learner's value is often the same parts with other weights: a factor applied to the whole
sum instead of one part, a part left out or added twice. :func:`fit_weights` finds the
weights by least squares and keeps them only when they reproduce the learner's value
exactly, so what it reports is observed, not guessed; :func:`describe_weights` says which
parts got which weight.
"""

from __future__ import annotations

from collections.abc import Mapping

import torch

from .relations import recognisable_number

__all__ = ["describe_weights", "fit_weights"]


def fit_weights(
    got: torch.Tensor,
    parts: Mapping[str, torch.Tensor],
    *,
    rtol: float = 1e-4,
    atol: float = 1e-5,
) -> dict[str, float] | None:
    """The weights w such that got == Σ w[name]·parts[name] (to rtol/atol at every entry),
    or None when no weights do, the shapes differ, or the parts are not independent."""
    try:
        target = got.detach().double().reshape(-1)  # (n,)
        columns = [p.detach().double().reshape(-1) for p in parts.values()]  # k x (n,)
        if any(col.shape != target.shape for col in columns) or not columns:
            return None
        basis = torch.stack(columns, dim=1)  # (n, k)
        if target.numel() <= basis.shape[1] or not bool(torch.isfinite(target).all()):
            return None
        if int(torch.linalg.matrix_rank(basis)) < basis.shape[1]:
            return None  # two parts alike: their weights cannot be told apart
        weights = torch.linalg.lstsq(basis, target[:, None]).solution[:, 0]  # (k,)
        fitted = basis @ weights  # (n,)
    except (RuntimeError, TypeError, ValueError, AttributeError):
        return None
    if not torch.allclose(fitted, target, rtol=rtol, atol=atol):
        return None
    return {name: float(w) for name, w in zip(parts, weights)}


def _weight_text(weight: float) -> str:
    if abs(weight) < 1e-6:
        return "0"
    if abs(weight - round(weight)) < 1e-6 * max(1.0, abs(weight)):
        return str(round(weight))
    named = recognisable_number(abs(weight))
    return f"{weight:.4g} ({'-' if weight < 0 else ''}{named})" if named else f"{weight:.4g}"


def describe_weights(found: Mapping[str, float], right: Mapping[str, float]) -> str:
    """``found`` against ``right`` part by part: "yours is 2.828 (sqrt(8))·E + 2.828
    (sqrt(8))·P; the right value is 2.828 (sqrt(8))·E + 1·P", the parts named by their
    keys."""

    def said(weights: Mapping[str, float]) -> str:
        return " + ".join(f"{_weight_text(w)}·{name}" for name, w in weights.items())

    return f"yours is {said(found)}; the right value is {said(right)}"
