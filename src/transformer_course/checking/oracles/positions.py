"""Position encodings in float64, from their formulas: the paper's sinusoidal table
(lesson 03) and rotary position embeddings, RoPE (lesson 11), with knobs for the
classic mistakes."""

from __future__ import annotations

import torch

__all__ = ["rope_angles_f", "rotate_f", "sinusoidal_positions_f"]


def sinusoidal_positions_f(length: int, d_model: int) -> torch.Tensor:
    """float64 (length, d_model): PE[pos, 2i] = sin(pos / 10000^(2i/d_model)),
    PE[pos, 2i+1] = cos(pos / 10000^(2i/d_model)) (paper, section 3.5)."""
    position = torch.arange(length, dtype=torch.float64)[:, None]  # (length, 1)
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)  # (d_model/2,)
    angle = position / 10000.0 ** (two_i / d_model)  # (length, d_model/2)
    table = torch.zeros(length, d_model, dtype=torch.float64)
    table[:, 0::2] = torch.sin(angle)
    table[:, 1::2] = torch.cos(angle[:, : d_model // 2])
    return table


def rope_angles_f(
    length: int, d_head: int, base: float = 10000.0, *, first: int = 0, exponent: str = "2i/d"
) -> torch.Tensor:
    """float64 (length, d_head // 2): angle[m, i] = (first + m) * base ** (-2i / d_head).
    ``first``: the position of the first row (1: one-indexed positions). ``exponent``
    "2i/d" (right), "i/d" (the 2 forgotten), "+2i/d" (the sign), "2i/(d-2)" (linspace
    to 1)."""
    i = torch.arange(d_head // 2, dtype=torch.float64)
    power = {
        "2i/d": 2 * i / d_head,
        "i/d": i / d_head,
        "+2i/d": -2 * i / d_head,
        "2i/(d-2)": 2 * i / max(d_head - 2, 1),
    }[exponent]
    theta = base**-power  # (d_head/2,)
    positions = torch.arange(first, first + length, dtype=torch.float64)
    return positions[:, None] * theta  # (length, d_head/2)


def rotate_f(
    x: torch.Tensor, angles: torch.Tensor, pairing: str = "half", *, direction: int = 1
) -> torch.Tensor:
    """Rotate each feature pair of x (..., len, d) by angles (len, d/2), with an explicit
    2x2 rotation matrix per pair. ``pairing`` "half" (i, i + d/2) or "adjacent"
    (2i, 2i+1); ``direction`` -1 rotates the other way."""
    x = x.double()
    d = x.shape[-1]
    index_a = torch.arange(d // 2) if pairing == "half" else torch.arange(0, d, 2)
    index_b = index_a + d // 2 if pairing == "half" else index_a + 1
    a, b = x[..., index_a], x[..., index_b]  # (..., len, d/2)
    cos, sin = torch.cos(angles), direction * torch.sin(angles)
    rotation = torch.stack([torch.stack([cos, -sin], -1), torch.stack([sin, cos], -1)], -2)
    pair = torch.stack([a, b], dim=-1)[..., None]  # (..., len, d/2, 2, 1)
    turned = (rotation @ pair)[..., 0]  # (..., len, d/2, 2)
    out = torch.empty_like(x)
    out[..., index_a], out[..., index_b] = turned[..., 0], turned[..., 1]
    return out
