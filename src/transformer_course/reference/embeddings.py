"""Lesson 02 reference: one-hot vectors, embedding lookup, cosine similarity, TokenEmbedding."""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn


def one_hot(ids: np.ndarray, vocab_size: int) -> np.ndarray:
    """Ids of any shape (...) to float64 one-hot vectors (..., vocab_size)."""
    ids = np.asarray(ids)
    return (ids[..., None] == np.arange(vocab_size)).astype(np.float64)


def embed(ids: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Look up rows of ``table`` (vocab_size, d_model): ids (...) -> (..., d_model)."""
    return np.asarray(table)[np.asarray(ids)]


def cosine_similarity(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pairwise cosine similarity: a (n, d), b (m, d) -> (n, m).

    A zero vector has similarity 0 with everything (its norm is clamped to 1e-12).
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    a_unit = a / np.maximum(np.linalg.norm(a, axis=-1, keepdims=True), 1e-12)
    b_unit = b / np.maximum(np.linalg.norm(b, axis=-1, keepdims=True), 1e-12)
    return a_unit @ b_unit.T


class TokenEmbedding(nn.Module):
    """A learned lookup table, scaled by sqrt(d_model) as in the paper (section 3.4).

    ids (batch, len) -> (batch, len, d_model). The table is ``self.embedding``
    (an ``nn.Embedding``), so the state dict holds ``embedding.weight``.
    """

    def __init__(self, vocab_size: int, d_model: int):
        super().__init__()
        self.d_model = d_model
        self.embedding = nn.Embedding(vocab_size, d_model)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.embedding(ids) * math.sqrt(self.d_model)
