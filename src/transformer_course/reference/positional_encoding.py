"""Reference implementation: lesson 03 · Positional encoding: telling attention where each token is

Generated from the lesson master `solutions/03_positional_encoding/03_positional_encoding.py`
(its answer cells and its cells marked `export=true`) by `make notebooks`.
Edit the master, never this file.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn


def positional_encoding(max_len: int, d_model: int) -> np.ndarray:
    """The sinusoidal position table of the paper (section 3.5).

    Returns a numpy array of shape (max_len, d_model) where, for
    pos = 0 .. max_len-1 and each pair index i:
        PE[pos, 2i]   = sin(pos / 10000^(2i / d_model))
        PE[pos, 2i+1] = cos(pos / 10000^(2i / d_model))
    Works for odd d_model too: the last feature is then a sine without a cosine partner.
    The reference returns float64; any float dtype is accepted (float32 with a note).
    """
    positions = np.arange(max_len, dtype=np.float64)[:, None]  # (max_len, 1)
    two_i = np.arange(0, d_model, 2, dtype=np.float64)  # (ceil(d_model / 2),)
    angles = positions / np.power(10000.0, two_i / d_model)  # (max_len, ceil(d_model / 2))
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles[:, : d_model // 2])  # an odd d_model has one cosine fewer
    return pe


def relative_shift(k: int, d_model: int) -> np.ndarray:
    """The matrix M (d_model, d_model) with PE[pos + k] = PE[pos] @ M for every pos.

    Block diagonal: the 2x2 block on features (2i, 2i+1) rotates pair i by the angle
    w_i * k, where w_i = 1 / 10000^(2i / d_model); every entry outside these blocks is 0.
    k is any integer (negative k shifts backwards). Raises ValueError if d_model is odd.
    The reference returns float64; any float dtype is accepted (float32 with a note).
    """
    if d_model % 2:
        raise ValueError(f"relative_shift needs an even d_model, got {d_model}")
    two_i = np.arange(0, d_model, 2)  # (d_model / 2,)
    theta = k / np.power(10000.0, two_i / d_model)  # the rotation angle of each pair
    m = np.zeros((d_model, d_model))
    m[two_i, two_i] = np.cos(theta)  # sin a -> sin a cos b ...
    m[two_i + 1, two_i] = np.sin(theta)  # ... + cos a sin b
    m[two_i, two_i + 1] = -np.sin(theta)  # cos a -> -sin a sin b ...
    m[two_i + 1, two_i + 1] = np.cos(theta)  # ... + cos a cos b
    return m


def quiz_shift() -> str:
    """Your answer to Question 1: "a", "b", "c" or "d"."""
    return "c"


def quiz_row_length() -> float:
    """Your answer to Question 2: the length of a row of the table for d_model = 128."""
    return 8.0


class PositionalEncoding(nn.Module):
    """Adds the sinusoidal encoding to a batch of embeddings, then applies dropout.

    forward(x): x (batch, len, d_model), len <= max_len  ->  dropout(x + PE[:len]),
    shape (batch, len, d_model), in x's dtype. The table PE (max_len, d_model) is
    built once in __init__ with positional_encoding (exercise 1) and kept fixed: in
    the course's layout, a float32 buffer named `pe` of shape (1, max_len, d_model)
    (register_buffer: converted by .to() and saved with the module, never trained;
    register_buffer(..., persistent=False), left out of state_dict, is accepted too,
    as the table is rebuilt from the formula in __init__).
    Other names and layouts that broadcast correctly, such as (max_len, d_model), are
    accepted too; a plain attribute (self.pe = table) is not, as .to() leaves it behind.
    """

    def __init__(self, d_model: int, max_len: int = 5000, dropout: float = 0.1):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        table = torch.tensor(positional_encoding(max_len, d_model), dtype=torch.float32)
        self.register_buffer("pe", table.unsqueeze(0))  # (1, max_len, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        length = x.shape[1]
        if length > self.pe.shape[1]:
            raise ValueError(f"sequence length {length} exceeds max_len={self.pe.shape[1]}")
        return self.dropout(x + self.pe[:, :length])  # (batch, len, d_model)
