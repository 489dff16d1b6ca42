"""A score of predictions against targets, computed with the two misaligned by positions.

A sequence loss (or metric) pairs the prediction at position t with the target at
position t. Code that shifts one against the other, the causal-LM habit
(logits[..., :-1, :] against labels[..., 1:]) applied to inputs that are already aligned,
the opposite shift, a shift by two, or a torch.roll that wraps around, scores every
position against a neighbour's target. :func:`misaligned_pairings` recomputes the right
score on each such pairing and says which give the learner's value (all of them, when
several do); each is a fact about the value on the inputs the check ran.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

__all__ = ["misaligned_pairings"]


def _sliced(name: str, axis: int, piece: str) -> str:
    """``name`` sliced to ``piece`` ("1:", ":-1") on ``axis``, as it would be written."""
    if axis < 0:
        return f"{name}[..., {piece}{', :' * (-axis - 1)}]"
    return f"{name}[{':, ' * axis}{piece}]"


def _pairings(predictions, targets, axes: tuple[int, int], names: tuple[str, str], shifts):
    """(description, predictions, targets) for each misalignment by ``shifts`` positions."""
    (pred_axis, target_axis), (pred, target) = axes, names
    length = predictions.shape[pred_axis]
    for k in shifts:
        if k >= length:
            continue
        later = "the next position" if k == 1 else f"the position {k} later"
        earlier = "the previous position" if k == 1 else f"the position {k} earlier"
        first = "first position" if k == 1 else f"first {k} positions"
        last = "last position" if k == 1 else f"last {k} positions"
        yield (
            f"{_sliced(pred, pred_axis, f':-{k}')} scored against "
            f"{_sliced(target, target_axis, f'{k}:')} (each position against the {target} "
            f"of {later}, the causal-LM shift; the {first} of {target} and the {last} of "
            f"{pred} dropped)",
            predictions.narrow(pred_axis, 0, length - k),
            targets.narrow(target_axis, k, length - k),
        )
        yield (
            f"{_sliced(pred, pred_axis, f'{k}:')} scored against "
            f"{_sliced(target, target_axis, f':-{k}')} (each position against the {target} "
            f"of {earlier}; the {last} of {target} and the {first} of {pred} "
            "dropped)",
            predictions.narrow(pred_axis, k, length - k),
            targets.narrow(target_axis, 0, length - k),
        )
        for sign, where in ((-k, later), (k, earlier)):
            yield (
                f"{target} rolled by {sign} along the positions (torch.roll({target}, "
                f"{sign}, dims={target_axis}): each position against the {target} of "
                f"{where}, wrapping around the end)",
                predictions,
                torch.roll(targets, sign, dims=target_axis),
            )


def misaligned_pairings(
    score: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    predictions: torch.Tensor,
    targets: torch.Tensor,
    value: float,
    *,
    pred_axis: int = -2,
    target_axis: int = -1,
    names: tuple[str, str] = ("predictions", "targets"),
    shifts=(1, 2),
    rel_tol: float = 1e-4,
    abs_tol: float = 1e-5,
) -> list[str]:
    """The misaligned pairings (descriptions) on which ``score`` (the right computation)
    gives ``value``: predictions (..., T, V) with their positions on ``pred_axis``,
    targets (..., T) with theirs on ``target_axis``, called ``names`` in the descriptions;
    [] when none does or ``score`` equals ``value`` as it is."""
    try:
        if math.isclose(
            float(score(predictions, targets)), value, rel_tol=rel_tol, abs_tol=abs_tol
        ):
            return []
        found = []
        for description, moved, moved_targets in _pairings(
            predictions, targets, (pred_axis, target_axis), names, shifts
        ):
            try:
                wrong = float(score(moved, moved_targets))
            except Exception:  # a pairing the score cannot take: not the learner's
                continue
            if math.isfinite(wrong) and math.isclose(
                wrong, value, rel_tol=rel_tol, abs_tol=abs_tol
            ):
                found.append(description)
        return found
    except Exception:  # values that cannot be scored here (not tensors): nothing to say
        return []
