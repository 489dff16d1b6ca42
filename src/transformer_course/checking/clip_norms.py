"""Which 'total norm' a hand-written gradient clipping divided by.

Clipping by the total norm scales every gradient by min(1, max_norm / total), total the
2-norm of all the gradient entries together. A clipping written by hand that measures
the total another way (the square root forgotten, the absolute values added, each
parameter's norms added, one parameter's norm only, a mean instead of a sum) scales the
gradients by max_norm / T for its own T, so the whole update is the reference's times a
constant. From that constant and the gradients (the reference's, before clipping) the
learner's T follows, T = max_norm / (their scale), and is compared with every way of
measuring the gradients below: a way is named only when it gives T (and, when the check
can run one more call, the learner's scale on that call too).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

__all__ = [
    "NORM_MEASURES",
    "clip_scale",
    "implied_total_norm",
    "loss_scale_behind",
    "matching_norm_measures",
    "predicted_factor",
]


def _entries(grads: Sequence[torch.Tensor]) -> torch.Tensor:
    return torch.cat([g.detach().double().flatten() for g in grads])  # (all entries,)


def _norms(grads: Sequence[torch.Tensor]) -> torch.Tensor:
    return torch.stack([g.detach().double().norm() for g in grads])  # (parameters,)


#: ways to measure a list of gradients as a 'total norm': what each is, written for a
#: learner, -> the measure (the first is the right one, the 2-norm of all entries)
NORM_MEASURES = {
    "the total 2-norm, sqrt(sum of the squared entries)": lambda g: float(_entries(g).norm()),
    "the sum of the squared gradient entries (the squared total norm, G ** 2): the square "
    "root is missing, so the total norm it stands for is too large when G > 1 (too small "
    "below 1)": lambda g: float((_entries(g) ** 2).sum()),
    "the sum of the absolute values of the entries (the 1-norm)": lambda g: float(
        _entries(g).abs().sum()
    ),
    "the largest absolute entry (the max-norm)": lambda g: float(_entries(g).abs().max()),
    "the sum of each parameter's gradient norm (the norms added, not their squares)": lambda g: (
        float(_norms(g).sum())
    ),
    "the mean of each parameter's gradient norm": lambda g: float(_norms(g).mean()),
    "the largest parameter's gradient norm": lambda g: float(_norms(g).max()),
    "the last parameter's gradient norm only (a total overwritten in the loop, not added "
    "to)": lambda g: float(_norms(g)[-1]),
    "the first parameter's gradient norm only": lambda g: float(_norms(g)[0]),
    "the root mean square of the entries (the 2-norm divided by sqrt(number of "
    "entries))": lambda g: float((_entries(g) ** 2).mean().sqrt()),
    "the mean of the squared entries": lambda g: float((_entries(g) ** 2).mean()),
}
_RIGHT = next(iter(NORM_MEASURES))


def clip_scale(total: float, max_norm: float) -> float:
    """The factor a clipping that measured ``total`` applies: min(1, max_norm / total)."""
    return 1.0 if total <= max_norm else max_norm / total


def implied_total_norm(factor: float, grads: Sequence[torch.Tensor], max_norm: float):
    """The total norm T a clipping divided by, when the learner's update is ``factor`` times
    the reference's (their scale max_norm / T, the reference's min(1, max_norm / G));
    None when it cannot be told (no scaling down, no gradients)."""
    if not grads or factor <= 0 or max_norm <= 0:
        return None
    theirs = factor * clip_scale(NORM_MEASURES[_RIGHT](grads), max_norm)
    if not theirs < 1.0:
        return None
    return max_norm / theirs


def predicted_factor(description: str, grads: Sequence[torch.Tensor], max_norm: float) -> float:
    """How many times the reference's update a clipping that measures the total norm as
    ``description`` (a key of :data:`NORM_MEASURES`) gives on the gradients ``grads``."""
    right = clip_scale(NORM_MEASURES[_RIGHT](grads), max_norm)
    return clip_scale(NORM_MEASURES[description](grads), max_norm) / right


def matching_norm_measures(
    factor: float, grads: Sequence[torch.Tensor], max_norm: float, rel_tol: float = 1e-3
) -> list[str]:
    """The wrong measures of the total norm (descriptions, keys of :data:`NORM_MEASURES`)
    whose clipping scales the gradients ``grads`` (the reference's, before clipping)
    exactly ``factor`` times as much as clipping by the 2-norm does; [] when none does."""
    try:
        found = []
        for description in NORM_MEASURES:
            if description == _RIGHT:
                continue
            predicted = predicted_factor(description, grads, max_norm)
            if math.isclose(predicted, 1.0, rel_tol=rel_tol):
                continue  # no different from the right clipping here: it cannot explain it
            if math.isclose(predicted, factor, rel_tol=rel_tol):
                found.append(description)
        return found
    except Exception:  # gradients that cannot be measured (none, not tensors): nothing
        return []


def loss_scale_behind(
    factor: float, grads: Sequence[torch.Tensor], max_norm: float, rel_tol: float = 0.1
) -> float | None:
    """The constant S by which the gradients were multiplied when they were clipped, when
    the learner's update is ``factor`` times the reference's and S is a power of 2 of at
    least 2 ** 4 (a loss scale, GradScaler's 2 ** 16 to start with): the clipping then saw
    the total norm S·G, and the update, divided by S afterwards, is S times too small
    (or, clipped anyway, clip_norm / (S·G) of the gradients). ``rel_tol`` allows for an
    update measured in float32 weights, where a step S times too small is mostly rounding.
    None when the implied total norm is no such multiple of the gradients' 2-norm."""
    total = implied_total_norm(factor, grads, max_norm)
    if total is None:
        return None
    norm = float(NORM_MEASURES[_RIGHT](grads))
    if norm <= 0:
        return None
    ratio = total / norm
    if ratio < 2**3.5:
        return None
    power = round(math.log2(ratio))
    return float(2**power) if abs(ratio / 2**power - 1) < rel_tol else None
