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

__all__ = ["dropped_term_mask", "fitting_placements", "sum_placements"]


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


def dropped_term_mask(
    out: torch.Tensor, base: torch.Tensor, term: torch.Tensor, p: float
) -> torch.Tensor | None:
    """When every entry of ``out`` is ``base + term`` with ``term`` through one dropout
    mask, the same for every entry that ``term`` broadcasts over (each entry base, or
    base + term / (1 - p)), and some of term's entries dropped: that mask (True where
    kept, ``term``'s shape). None otherwise, or for anything but tensors. A mask shared
    along the broadcast axes was drawn on ``term`` itself, not on the sum: a dropout
    applied to a stored table or weight (once, when the module was built, say)."""
    if not all(isinstance(t, torch.Tensor) for t in (out, base, term)) or not 0 < p < 1:
        return None
    got = out.detach().double()
    try:
        left = base.detach().double().expand_as(got)
        part = term.detach().double().expand_as(got)
    except RuntimeError:
        return None
    counted = part.abs() > 1e-6  # an entry of term that is 0 shows no mask
    kept = torch.isclose(got, left + part / (1 - p), rtol=1e-4, atol=1e-5) & counted
    dropped = torch.isclose(got, left, rtol=1e-4, atol=1e-5) & counted
    if not bool((kept | dropped | ~counted).all()) or not bool(dropped.any()):
        return None
    # the broadcast axes of term: every slice along them must show the one mask
    lead = got.dim() - term.dim()
    axes = [a for a in range(got.dim()) if a < lead or term.shape[a - lead] == 1]
    mask = kept.any(dim=axes[0], keepdim=True) if axes else kept
    for axis in axes[1:]:
        mask = mask.any(dim=axis, keepdim=True)
    if not bool(((kept == mask.expand_as(kept)) | ~counted).all()):
        return None
    return mask.reshape(term.shape) if mask.numel() == term.numel() else None
