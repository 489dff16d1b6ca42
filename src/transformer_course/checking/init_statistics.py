"""What distribution a freshly initialised weight was drawn from, read off its values.

The family: an initialisation whose statistics are wrong in a recognisable way. A normal
cut at absolute bounds that were meant as multiples of the standard deviation
(``nn.init.trunc_normal_(w, std=0.02, a=-0.02, b=0.02)`` cuts at one standard deviation:
every weight within ±0.02, their standard deviation about 0.011); a uniform draw
(nn.Linear's default, ±1/sqrt(fan_in), left in place by a tie written the wrong way round;
``uniform_``); a normal of another standard deviation; a constant.

:func:`init_shape` reads, from many draws, the largest magnitude relative to the standard
deviation (about 4.5 for 32,768 normal draws, sqrt(3) for a uniform one, between the two
for a normal truncated at k standard deviations) and the kurtosis, and returns the
distribution whose both figures agree (a truncated normal's k and its scale solved from
them), or None. Nothing is said on few draws.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import torch

__all__ = ["InitShape", "init_shape"]


@dataclass(frozen=True)
class InitShape:
    """kind: "constant", "uniform", "truncated normal" or "normal"; bound: the largest
    magnitude (uniform and truncated: the cut); scale: the normal's own standard deviation
    before any cut; cut_in_stds: where a truncated normal was cut, in its own standard
    deviations; std: the standard deviation of the values."""

    kind: str
    std: float
    bound: float = 0.0
    scale: float = 0.0
    cut_in_stds: float = 0.0


@functools.lru_cache(maxsize=1)
def _moment_table() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(k, standard deviation, kurtosis) of a unit normal truncated at ±k, on a grid of k
    from 0.05 to 3.5 (computed once)."""
    ks = torch.linspace(0.05, 3.5, 691, dtype=torch.float64)  # steps of 0.005
    unit = torch.linspace(-1, 1, 1001, dtype=torch.float64)
    grid = ks[:, None] * unit[None, :]  # (k, points)
    density = torch.exp(-grid * grid / 2)
    mass = torch.trapezoid(density, grid, dim=-1)
    var = torch.trapezoid(density * grid**2, grid, dim=-1) / mass
    fourth = torch.trapezoid(density * grid**4, grid, dim=-1) / mass
    return ks, var.sqrt(), fourth / var**2


def init_shape(weight: torch.Tensor, min_draws: int = 4096) -> InitShape | None:
    """The distribution ``weight``'s values were drawn from (centred at 0), or None when
    they are too few or fit none of the shapes."""
    if not isinstance(weight, torch.Tensor) or weight.numel() < min_draws:
        return None
    w = weight.detach().double().flatten()
    if not bool(torch.isfinite(w).all()):
        return None
    std = float(w.std())
    if std < 1e-12:
        return InitShape("constant", 0.0, bound=float(w.abs().max()))
    if abs(float(w.mean())) > 0.1 * std:  # not centred: left to the caller's words
        return None
    centred = w - w.mean()
    kurtosis = float((centred**4).mean()) / float((centred**2).mean()) ** 2
    bound = float(w.abs().max())
    ratio = bound / std
    if abs(ratio - math.sqrt(3)) < 0.03 and abs(kurtosis - 1.8) < 0.05:
        return InitShape("uniform", std, bound=bound)
    if ratio > 3.5:
        return InitShape("normal", std, scale=std) if abs(kurtosis - 3) < 0.2 else None
    # a truncated normal: bound / std grows with the cut k (sqrt(3) as k -> 0); read k
    # off the table where k / std(k) is nearest the measured ratio
    ks, stds, kurtoses = _moment_table()
    at = int((ks / stds - ratio).abs().argmin())
    k = float(ks[at])
    if abs(k / float(stds[at]) - ratio) > 0.02 or abs(float(kurtoses[at]) - kurtosis) > 0.06:
        return None
    return InitShape("truncated normal", std, bound=bound, scale=bound / k, cut_in_stds=k)
