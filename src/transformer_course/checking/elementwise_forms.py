"""A learner's intermediate tensor written as the fewest terms of known elementwise
forms: which products of the step's operands (and how many of each) make it up. The
checks' way to say what a wrong hidden layer IS (silu(a) * b + silu(a), say) from its
values alone, whatever code produced it."""

from __future__ import annotations

import itertools
from collections.abc import Mapping

import torch

__all__ = ["fitted_form", "form_text"]


def _coefficient_text(value: float) -> str:
    """A fitted coefficient as a learner would write it: 1, -1, 2, 0.5 ..."""
    rounded = round(value, 3)
    return f"{rounded:g}"


def fitted_form(
    got: torch.Tensor,
    terms: Mapping[str, torch.Tensor],
    *,
    max_terms: int = 2,
    rtol: float = 1e-4,
    atol: float = 1e-5,
) -> tuple[tuple[str, float], ...] | None:
    """The smallest set of ``terms`` (each a tensor of got's shape, by its formula) whose
    linear combination, by least squares, equals ``got`` within the tolerance, with the
    coefficients: ((formula, coefficient), ...). None when no combination of up to
    ``max_terms`` terms fits, or when two different sets of the same size fit (the values
    do not tell them apart). Plain tensors only; nothing here needs autograd."""
    try:
        target = got.detach().double().flatten()  # (n,)
        columns = {name: t.detach().double().flatten() for name, t in terms.items()}
    except Exception:  # values that are not tensors: no answer
        return None
    if any(c.shape != target.shape for c in columns.values()) or target.numel() < 4:
        return None
    if not bool(torch.isfinite(target).all()):
        return None
    for size in range(1, max_terms + 1):
        found = []
        for names in itertools.combinations(columns, size):
            basis = torch.stack([columns[n] for n in names], dim=1)  # (n, size)
            solution = torch.linalg.lstsq(basis, target[:, None]).solution[:, 0]  # (size,)
            fitted = basis @ solution
            if bool(torch.allclose(fitted, target, rtol=rtol, atol=atol)) and bool(
                (solution.abs() > 1e-6).all()
            ):
                found.append(tuple(zip(names, solution.tolist(), strict=True)))
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            return None
    return None


def form_text(form: tuple[tuple[str, float], ...]) -> str:
    """((formula, coefficient), ...) as one expression: a + 2 · b - c."""
    text = ""
    for number, (name, coefficient) in enumerate(form):
        sign = "-" if coefficient < 0 else "+"
        size = abs(coefficient)
        factor = "" if abs(size - 1) < 1e-3 else f"{_coefficient_text(size)} · "
        if number == 0:
            text = f"{'-' if sign == '-' else ''}{factor}{name}"
        else:
            text += f" {sign} {factor}{name}"
    return text
