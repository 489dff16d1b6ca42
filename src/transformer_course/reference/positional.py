"""Lesson 03 reference: sinusoidal positional encoding (Vaswani et al. 2017, section 3.5)."""

from __future__ import annotations

import numpy as np
import torch
from torch import nn


def positional_encoding(max_len: int, d_model: int) -> np.ndarray:
    """PE[pos, 2i] = sin(pos / 10000^(2i/d_model)), PE[pos, 2i+1] = cos(same angle).

    Returns a float64 array (max_len, d_model); works for odd d_model too
    (the last feature is then a sine without its cosine partner).
    """
    positions = np.arange(max_len, dtype=np.float64)[:, None]  # (max_len, 1)
    even = np.arange(0, d_model, 2, dtype=np.float64)  # the 2i of each pair
    angles = positions / np.power(10000.0, even / d_model)  # (max_len, ceil(d/2))
    pe = np.zeros((max_len, d_model), dtype=np.float64)
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return pe


def relative_shift(k: int, d_model: int) -> np.ndarray:
    """The matrix M (d_model, d_model) with PE[pos + k] = PE[pos] @ M for every pos.

    Block diagonal: each (sin, cos) pair of frequency w is rotated by the angle
    w * k. Needs an even d_model (an unpaired sine has no such linear map).
    """
    if d_model % 2:
        raise ValueError("relative_shift needs an even d_model: every sine needs its cosine")
    freqs = 1.0 / np.power(10000.0, np.arange(0, d_model, 2, dtype=np.float64) / d_model)
    m = np.zeros((d_model, d_model), dtype=np.float64)
    cos, sin = np.cos(freqs * k), np.sin(freqs * k)
    m[0::2, 0::2] = np.diag(cos)
    m[0::2, 1::2] = np.diag(-sin)
    m[1::2, 0::2] = np.diag(sin)
    m[1::2, 1::2] = np.diag(cos)
    return m


class PositionalEncoding(nn.Module):
    """Adds the sinusoidal encoding to a batch of embeddings, then applies dropout.

    x (batch, len, d_model) -> (batch, len, d_model). The table is a buffer
    ``pe`` of shape (1, max_len, d_model), float32, not a parameter.
    """

    def __init__(self, d_model: int, max_len: int = 5000, dropout: float = 0.1):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        table = torch.tensor(positional_encoding(max_len, d_model), dtype=torch.float32)
        self.register_buffer("pe", table.unsqueeze(0))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        length = x.shape[-2]
        if length > self.pe.shape[1]:
            raise ValueError(f"sequence length {length} exceeds max_len={self.pe.shape[1]}")
        return self.dropout(x + self.pe[:, :length].to(x.dtype))  # (batch, len, d_model)
