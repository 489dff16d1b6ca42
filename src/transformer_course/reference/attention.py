"""Reference implementation: lesson 04 · Scaled dot-product attention

Generated from the lesson master `solutions/04_attention/04_attention.py`
(its answer cells and its cells marked `export=true`) by `make notebooks`.
Edit the master, never this file.
"""

from __future__ import annotations

import math

import numpy as np
import torch


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax of `x` along `axis`.

    x: a float numpy array of any shape (float32 or float64); it is not modified.
    Returns an array of the same shape and dtype whose slices along `axis` are
    non-negative and add up to 1. Entries equal to -inf get weight 0; a slice in
    which every entry is -inf comes back as all zeros (not NaN).
    """
    peak = np.max(x, axis=axis, keepdims=True)  # (..., 1, ...): one max per slice
    peak = np.where(np.isfinite(peak), peak, 0.0)  # an all -inf slice: subtract nothing
    exps = np.exp(x - peak)  # largest entry of each slice is exp(0) = 1
    total = np.sum(exps, axis=axis, keepdims=True)
    return np.divide(exps, total, out=np.zeros_like(exps), where=total > 0)


def scaled_dot_product_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """softmax(q kᵀ / sqrt(d_k) + mask) v, for any number of leading batch dims.

    q:    (..., len_q, d_k)   queries
    k:    (..., len_k, d_k)   keys
    v:    (..., len_k, d_v)   values
    mask: None, or a bool tensor broadcastable to (..., len_q, len_k);
          True = this query may attend to this key, False = blocked.

    Returns (output, weights):
    output:  (..., len_q, d_v)    row i = sum over j of weights[..., i, j] * v[..., j, :]
    weights: (..., len_q, len_k)  each row sums to 1 over the keys it may attend to;
             a query row with no allowed key gets all-zero weights (and a zero output).
    Both have the dtype of q; q, k and v are not modified.
    """
    d_k = q.shape[-1]
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (..., len_q, len_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))  # blocked keys: -inf
    weights = torch.softmax(scores, dim=-1)  # (..., len_q, len_k): over the keys
    if mask is not None:
        nothing_allowed = ~mask.any(dim=-1, keepdim=True)  # (..., len_q, 1)
        weights = weights.masked_fill(nothing_allowed, 0.0)  # NaN rows -> 0
    output = weights @ v  # (..., len_q, d_v)
    return output, weights
