"""Where dropout is applied: on the sum it belongs to, on one of its terms, on each term
separately, or twice (nested, or on the sum again). Each placement gives every entry of
the output as one of a few combinations of the terms: with s = 1 / (1 - p), dropout(x +
t) gives each entry 0 or s·(x + t); dropout(x) + t gives t or s·x + t; dropout(dropout(x) +
t) gives 0, s·t or s·(s·x + t). Which entries a random draw drops does not matter: a
placement fits when *every* entry is one of its combinations, whatever the draw, so a
check can name the placement from one training-mode call with 0 < p < 1 (seeded first).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import torch

__all__ = ["fitting_placements", "sum_placements"]


def fitting_placements(
    out: torch.Tensor,
    terms: Sequence[torch.Tensor],
    placements: Mapping[str, Sequence[tuple[float, ...]]],
    rtol: float = 1e-4,
    atol: float = 1e-5,
) -> list[str]:
    """The placements (description -> the coefficient tuples of ``terms`` an entry may
    take) that every entry of ``out`` fits."""
    if not isinstance(out, torch.Tensor):
        return []
    got = out.detach().double()
    parts = [t.detach().double().expand_as(got) for t in terms] if terms else []
    if any(p.shape != got.shape for p in parts):
        return []
    fits = []
    for name, combos in placements.items():
        covered = torch.zeros_like(got, dtype=torch.bool)
        for combo in combos:
            value = sum(c * p for c, p in zip(combo, parts))
            covered |= torch.isclose(got, value, rtol=rtol, atol=atol)
        if bool(covered.all()):
            fits.append(name)
    return fits


def sum_placements(p: float, first: str = "x", second: str = "the table") -> dict:
    """The placements of dropout around ``first + second`` with probability ``p``: the
    right one first (key ``""``), then the misplaced ones, by description."""
    s = 1.0 / (1.0 - p)
    return {
        "": [(0.0, 0.0), (s, s)],
        f"dropout is applied twice: to {first} before the addition and again to the sum "
        f"(dropout(dropout({first}) + {second})), so {first} is dropped more often than p "
        "and scaled twice": [(0.0, 0.0), (0.0, s), (s * s, s)],
        f"dropout is applied twice to the sum (dropout(dropout({first} + {second}))), so "
        "entries are dropped more often than p and the kept ones scaled twice": [
            (0.0, 0.0),
            (s * s, s * s),
        ],
        f"dropout is applied to {first} and to {second} separately, then added "
        f"(dropout({first}) + dropout({second})), each with its own draw": [
            (0.0, 0.0),
            (s, 0.0),
            (0.0, s),
            (s, s),
        ],
        f"dropout is applied to {first} alone, before the addition (dropout({first}) + {second})": [
            (0.0, 1.0),
            (s, 1.0),
        ],
        f"dropout is applied to {second} alone, then {first} is added ({first} + "
        f"dropout({second}))": [(1.0, 0.0), (1.0, s)],
    }
