"""Lesson 05 reference: splitting into heads and multi-head attention."""

from __future__ import annotations

import torch
from torch import nn

from transformer_course.reference.attention import scaled_dot_product_attention


def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    """(batch, len, d_model) -> (batch, num_heads, len, d_head), d_head = d_model // num_heads."""
    batch, length, d_model = x.shape
    if d_model % num_heads:
        raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
    # reshape, not view: x may be a non-contiguous view (a slice, a transpose).
    return x.reshape(batch, length, num_heads, d_model // num_heads).transpose(1, 2)


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    """(batch, num_heads, len, d_head) -> (batch, len, num_heads * d_head); inverse of split_heads."""
    batch, num_heads, length, d_head = x.shape
    return x.transpose(1, 2).reshape(batch, length, num_heads * d_head)


class MultiHeadAttention(nn.Module):
    """Multi-head attention (Vaswani et al. 2017, section 3.2.2).

    forward(query (batch, len_q, d_model), key (batch, len_k, d_model),
    value (batch, len_k, d_model), mask bool broadcastable to
    (batch, num_heads, len_q, len_k), True = may attend) returns
    output (batch, len_q, d_model) and weights (batch, num_heads, len_q, len_k).
    Dropout, when training, applies to the attention weights, as in
    ``nn.MultiheadAttention``.
    """

    def __init__(self, d_model: int, num_heads: int, dropout: float = 0.0):
        super().__init__()
        if d_model % num_heads:
            raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
        self.d_model, self.num_heads = d_model, num_heads
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key, value, mask=None):
        q = split_heads(self.w_q(query), self.num_heads)  # (batch, heads, len_q, d_head)
        k = split_heads(self.w_k(key), self.num_heads)  # (batch, heads, len_k, d_head)
        v = split_heads(self.w_v(value), self.num_heads)  # (batch, heads, len_k, d_head)
        heads, weights = scaled_dot_product_attention(q, k, v, mask)  # (batch, heads, len_q, ...)
        if self.training and self.dropout.p > 0:  # drop attention weights, not the weights returned
            heads = self.dropout(weights) @ v  # (batch, heads, len_q, d_head)
        return self.w_o(merge_heads(heads)), weights  # (batch, len_q, d_model)
