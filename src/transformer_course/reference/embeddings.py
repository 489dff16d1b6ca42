"""Reference implementation: lesson 02 · Embeddings: from token ids to vectors

Generated from the lesson master `solutions/02_embeddings/02_embeddings.py`
(its answer cells and its cells marked `export=true`) by `make notebooks`.
Edit the master, never this file.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn


def one_hot(ids: np.ndarray, vocab_size: int) -> np.ndarray:
    """One-hot encode integer token ids.

    ids: integer array of any shape (...), every entry in [0, vocab_size).
    Returns an array of shape (..., vocab_size) whose vector for each id i is all
    zeros except a 1 in position i. The reference returns float64; any float dtype,
    or integer zeros and ones, is accepted (booleans are not).

    >>> one_hot(np.array([2, 0]), 4)
    array([[0., 0., 1., 0.],
           [1., 0., 0., 0.]])
    """
    return np.eye(vocab_size, dtype=np.float64)[np.asarray(ids)]


def embed(ids: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Look up the embedding vector of each id.

    ids: integer array of any shape (...), entries in [0, vocab_size).
    table: float array (vocab_size, d_model); row i is the vector of token i.
    Returns an array (..., d_model) with result[..., :] = table[id], in the table's
    dtype (another float dtype passes with a note). The table is only read, never
    modified.
    """
    return np.asarray(table)[np.asarray(ids)]


def quiz_linear_layer() -> str:
    """Your answer to Question 1: "a", "b", "c" or "d"."""
    return "a"


def quiz_gradient_rows() -> int:
    """Your answer to Question 2: a number of rows."""
    return 5


def cosine_similarity(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pairwise cosine similarity of the rows of a and the rows of b.

    a: float array (n, d); b: float array (m, d).
    Returns a float array (n, m) with entry (i, j) = a[i]·b[j] / (|a[i]| |b[j]|).
    A zero vector has similarity 0 with everything (no NaN). Any float dtype is
    accepted, and so is a small eps in the denominator (PyTorch uses 1e-8).
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    a_unit = a / np.maximum(np.linalg.norm(a, axis=-1, keepdims=True), 1e-12)  # (n, d)
    b_unit = b / np.maximum(np.linalg.norm(b, axis=-1, keepdims=True), 1e-12)  # (m, d)
    return a_unit @ b_unit.T  # (n, m)


class TokenEmbedding(nn.Module):
    """Token embedding of the Transformer, scaled by sqrt(d_model) (paper, section 3.4).

    TokenEmbedding(vocab_size, d_model) holds one learnable table,
    self.embedding = nn.Embedding(vocab_size, d_model), so its state dict is
    {"embedding.weight": (vocab_size, d_model)} (another attribute name passes with a
    note; extra buffers such as a stored scale are allowed). nn.Embedding(vocab_size,
    d_model, padding_idx=0), as seq2seq tutorials write it for <pad>, is accepted too:
    row 0 then starts at zero and gets no gradient; every other row is unchanged.
    forward(ids): int64 ids (batch, len) -> float32 (batch, len, d_model) equal to
    self.embedding(ids) * sqrt(d_model).
    """

    def __init__(self, vocab_size: int, d_model: int):
        super().__init__()
        self.d_model = d_model
        self.embedding = nn.Embedding(vocab_size, d_model)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.embedding(ids) * math.sqrt(self.d_model)  # (batch, len, d_model)
