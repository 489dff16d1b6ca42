"""Position encodings, from their formulas: the paper's sinusoidal table and its
relative shift (lesson 03, float64 numpy) and rotary position embeddings, RoPE (lesson 11,
float64 torch), each with knobs for the classic mistakes."""

from __future__ import annotations

import numpy as np
import torch

__all__ = ["relative_shift_f", "rope_angles_f", "rotate_f", "sinusoidal_positions_f"]


def sinusoidal_positions_f(
    max_len: int,
    d_model: int,
    *,
    base: float = 10000.0,
    start: int = 0,
    exponent: str = "2i",
    swap: bool = False,
    layout: str = "interleaved",
    multiply: bool = False,
    odd_last: str = "sin",
    denominator: str = "d_model",
) -> np.ndarray:
    """The paper's sinusoidal table (section 3.5), float64 numpy (max_len, d_model):
    PE[pos, 2i] = sin(pos / base^(2i/d_model)), PE[pos, 2i+1] = cos(the same angle); with
    odd d_model the last feature is a sine without a partner.

    Knobs (the defaults give the right table): ``base`` (1000: the wrong base), ``start``
    (1: positions counted from 1), ``swap`` (cos in the even features), ``layout``
    "concatenated" (all sines, then all cosines), ``multiply`` (pos times base^(..)),
    ``odd_last`` "zero" or "cos" (odd d_model's last feature), ``exponent``: "2i" (right), "i" (pair index without the 2), "j" (the column index j,
    so the cos column 2i+1 gets the wrong frequency), "2j" (2 * the even column
    index 2i, i.e. 4i), "2col" (2 * each column's own index: 4i for the sines,
    2(2i+1) for the cosines), "2i+1" (the odd index for both members of pair i), "int" (2i // d_model: integer division), "t2t" (2i / (d_model - 2):
    tensor2tensor's spacing, num_timescales - 1 in the denominator, for even d_model).
    ``denominator``: the size the exponent's 2i is divided by, "d_model" (right),
    "d_model // 2", "d_model - 1", "d_model + 1", "2 * d_model" or "max_len".
    """
    pos = np.arange(start, start + max_len, dtype=np.float64)[:, None]  # (max_len, 1)
    cols = np.arange(d_model)
    pair = cols // 2  # i for columns 2i and 2i+1
    if denominator != "d_model":
        size = {
            "d_model // 2": d_model // 2,
            "d_model - 1": d_model - 1,
            "d_model + 1": d_model + 1,
            "2 * d_model": 2 * d_model,
            "max_len": max_len,
        }[denominator]
        with np.errstate(all="ignore"):  # a size of 0 gives NaN, as the learner's code does
            power = 2 * pair / np.float64(size)
            angles = pos / np.power(base, power)
        return np.where(cols % 2 == 0, np.sin(angles), np.cos(angles))
    power = {
        "2i": 2 * pair / d_model,
        "i": pair / d_model,
        "j": cols / d_model,
        "2j": 4 * pair / d_model,
        "2col": 2 * cols / d_model,
        "2i+1": (2 * pair + 1) / d_model,
        "int": (2 * pair // d_model).astype(np.float64),
        "t2t": 2 * pair / (d_model - 2 if d_model > 2 else 1),
    }[exponent]
    scale = np.power(base, power)  # (d_model,)
    angles = pos * scale if multiply else pos / scale  # (max_len, d_model)
    if layout == "concatenated":
        half = (d_model + 1) // 2
        rates = np.power(base, 2 * np.arange(half) / d_model)
        ang = pos / rates  # (max_len, half)
        return np.concatenate([np.sin(ang), np.cos(ang[:, : d_model // 2])], axis=1)
    even = np.sin(angles) if not swap else np.cos(angles)
    odd = np.cos(angles) if not swap else np.sin(angles)
    table = np.where(cols % 2 == 0, even, odd)
    if d_model % 2 and odd_last != "sin":
        table[:, -1] = 0.0 if odd_last == "zero" else np.cos(angles[:, -1])
    return table


def relative_shift_f(
    k: int,
    d_model: int,
    *,
    transpose: bool = False,
    angle: str = "wk",
    exponent: str = "2i",
    layout: str = "interleaved",
) -> np.ndarray:
    """The (d_model, d_model) matrix M with PE[pos] @ M = PE[pos + k] (lesson 03): a 2x2
    rotation by w_i k per pair (2i, 2i+1), w_i = 1 / 10000^(2i/d_model), in float64 numpy.

    Knobs (the defaults give the right matrix): ``transpose`` (the shift by -k),
    ``angle`` "wk" (right), "w" (the shift for k = 1), "k" (one angle for every pair);
    ``exponent`` "i" (10000^(i/d_model)); ``layout`` "concatenated" (pairs (i, i +
    d_model/2))."""
    pairs = d_model // 2
    i = np.arange(pairs)
    w = 1.0 / np.power(10000.0, (2 * i if exponent == "2i" else i) / d_model)
    theta = {"wk": w * k, "w": w, "k": np.full(pairs, float(k))}[angle]
    m = np.zeros((d_model, d_model))
    s_idx = 2 * i if layout == "interleaved" else i
    c_idx = 2 * i + 1 if layout == "interleaved" else i + pairs
    m[s_idx, s_idx] = np.cos(theta)
    m[c_idx, c_idx] = np.cos(theta)
    m[s_idx, c_idx] = -np.sin(theta)
    m[c_idx, s_idx] = np.sin(theta)
    return m.T if transpose else m


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
    x: torch.Tensor,
    angles: torch.Tensor,
    pairing: str = "half",
    *,
    direction: int = 1,
    signs: tuple[int, int] = (-1, 1),
) -> torch.Tensor:
    """Rotate each feature pair of x (..., len, d) by angles (len, d/2), with an explicit
    2x2 rotation matrix per pair. ``pairing`` "half" (i, i + d/2) or "adjacent"
    (2i, 2i+1); ``direction`` -1 rotates the other way; ``signs``: the signs of the two
    sin terms, (a cos + signs[0] b sin, signs[1] a sin + b cos) ((-1, 1) is a rotation;
    (1, 1) and (-1, -1) are not)."""
    x = x.double()
    d = x.shape[-1]
    index_a = torch.arange(d // 2) if pairing == "half" else torch.arange(0, d, 2)
    index_b = index_a + d // 2 if pairing == "half" else index_a + 1
    a, b = x[..., index_a], x[..., index_b]  # (..., len, d/2)
    cos, sin = torch.cos(angles), direction * torch.sin(angles)
    first, second = signs
    rotation = torch.stack(
        [torch.stack([cos, first * sin], -1), torch.stack([second * sin, cos], -1)], -2
    )
    pair = torch.stack([a, b], dim=-1)[..., None]  # (..., len, d/2, 2, 1)
    turned = (rotation @ pair)[..., 0]  # (..., len, d/2, 2)
    out = torch.empty_like(x)
    out[..., index_a], out[..., index_b] = turned[..., 0], turned[..., 1]
    return out
