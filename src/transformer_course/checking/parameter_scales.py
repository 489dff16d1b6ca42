"""How far each parameter moved, as a multiple of its own gradient: an edit applied to only
part of the parameters.

After one plain SGD step (no momentum, no weight decay) a parameter moves by
-lr * scale * grad, where grad is its gradient before any clipping and scale the factor the
clipping (or a scaled loss) applied. The reference applies ONE scale to every parameter.
A learner's step that scales only some of them (a clipping handed part of the parameters,
model.encoder.parameters(); a loop over the gradients that stops early; gradients cleared
for part of the model) gives two or more scales: this module reads them off the update and
groups the parameters by scale, named by the shortest module paths that cover each group.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import torch

__all__ = ["covering_paths", "described_parameters", "parameter_scales", "scale_groups"]


def parameter_scales(
    start: Mapping[str, torch.Tensor],
    state: Mapping[str, torch.Tensor],
    lr: float,
    grads: Mapping[str, torch.Tensor],
    tolerance: float = 1e-3,
) -> dict[str, float] | None:
    """name -> s where state[name] = start[name] - lr * s * grads[name], for every parameter
    whose gradient is not (near) zero; None when one parameter's update is not such a multiple (the
    update is not a scaled gradient there: another direction, an optimizer with state) or a
    value cannot be read (no tensor, another shape)."""
    scales = {}
    try:
        largest = max((float(g.detach().double().norm()) for g in grads.values()), default=0.0)
        for name, grad in grads.items():
            gradient = grad.detach().double().flatten()  # (entries,)
            size = float(gradient @ gradient)
            if size <= (1e-6 * largest) ** 2:
                # zero in exact arithmetic (a key bias, which softmax ignores): its rounding
                # noise says nothing about the scale
                continue
            moved = (start[name].detach().double() - state[name].detach().double()).flatten()
            scale = float(moved @ gradient) / (lr * size)
            residual = float((moved - lr * scale * gradient).norm())
            if not math.isfinite(scale) or residual > tolerance * max(float(moved.norm()), 1e-9):
                return None
            scales[name] = scale
    except (KeyError, RuntimeError, TypeError, AttributeError, ValueError):
        return None
    return scales


def scale_groups(scales: Mapping[str, float], rel_tol: float = 1e-3) -> list[tuple[float, list]]:
    """The parameters grouped by their scale (within rel_tol), the largest group first:
    [(scale, [names in the model's order])]."""
    groups: list[tuple[float, list]] = []
    for name, scale in scales.items():
        for group_scale, names in groups:
            if math.isclose(scale, group_scale, rel_tol=rel_tol, abs_tol=1e-9):
                names.append(name)
                break
        else:
            groups.append((scale, [name]))
    return sorted(groups, key=lambda group: -len(group[1]))


def covering_paths(chosen: Sequence[str], every: Sequence[str]) -> list[str]:
    """The shortest dotted prefixes that hold the names in ``chosen`` and no other name of
    ``every`` ('encoder' for all of encoder.*), in the order of ``every``."""
    chosen_set = set(chosen)
    paths: list[str] = []
    for name in every:
        if name not in chosen_set or any(name.startswith(p + ".") or name == p for p in paths):
            continue
        parts = name.split(".")
        for depth in range(1, len(parts) + 1):
            prefix = ".".join(parts[:depth])
            under = [n for n in every if n == prefix or n.startswith(prefix + ".")]
            if all(n in chosen_set for n in under):
                paths.append(prefix)
                break
    return paths


def described_parameters(
    chosen: Sequence[str], every: Sequence[str], shapes: Mapping[str, torch.Size], most: int = 6
) -> str:
    """``chosen`` (a part of ``every``) in words: by what they share where that is all of
    them (every matrix, every bias, every vector), else as the fewest module paths."""
    chosen_set = set(chosen)
    kinds = {
        "every weight matrix (the parameters with p.dim() > 1)": lambda n: len(shapes[n]) > 1,
        "every vector parameter, the biases and the norms' gains (p.dim() == 1)": lambda n: (
            len(shapes[n]) == 1
        ),
        "every bias": lambda n: n.endswith(".bias"),
        "every parameter but the biases": lambda n: not n.endswith(".bias"),
    }
    for words, belongs in kinds.items():
        if {n for n in every if belongs(n)} == chosen_set:
            return words
    paths = [f"model.{path}" for path in covering_paths(chosen, every)]
    if len(paths) > most:
        paths = [*paths[:most], f"and {len(paths) - most} more"]
    return "the parameters of " + ", ".join(paths)
