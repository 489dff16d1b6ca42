"""Lesson 04 reference: a stable softmax and scaled dot-product attention."""

from __future__ import annotations

import math

import numpy as np
import torch


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax along ``axis``.

    Subtracting the maximum first keeps exp() from overflowing on large logits.
    -inf entries get weight exactly 0. A slice where *every* entry is -inf has
    nothing to give weight to: it comes back as all zeros (not NaN), the same
    convention as ``F.scaled_dot_product_attention`` for fully masked rows.
    """
    x = np.asarray(x)
    if not np.issubdtype(x.dtype, np.floating):
        x = x.astype(np.float64)
    peak = np.max(x, axis=axis, keepdims=True)
    peak = np.where(np.isfinite(peak), peak, 0.0)
    exps = np.exp(x - peak)
    total = np.sum(exps, axis=axis, keepdims=True)
    return np.divide(exps, total, out=np.zeros_like(exps), where=total > 0)


def scaled_dot_product_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """softmax(q k^T / sqrt(d_k) + mask) v, for any leading batch dims.

    q (..., len_q, d_k), k (..., len_k, d_k), v (..., len_k, d_v);
    mask: bool, broadcastable to (..., len_q, len_k), True = may attend.
    Returns output (..., len_q, d_v) and weights (..., len_q, len_k).
    A query row with no key it may attend to gets all-zero weights and output.
    """
    d_k = q.shape[-1]
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (..., len_q, len_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        nothing_to_attend = ~mask.any(dim=-1, keepdim=True)  # (..., len_q, 1)
        weights = weights.masked_fill(nothing_to_attend, 0.0)
    return weights @ v, weights
