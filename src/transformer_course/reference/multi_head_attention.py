"""Reference implementation: lesson 05 · Multi-head attention

Generated from the lesson master `solutions/05_multi_head_attention/05_multi_head_attention.py`
(its answer cells and its cells marked `export=true`) by `make notebooks`.
Edit the master, never this file.
"""

from __future__ import annotations

import torch
from torch import nn

from transformer_course.reference.attention import scaled_dot_product_attention


def quiz_head_width() -> int:
    """Your answer to Question 1: d_k, as a number."""
    return 64


def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    """Cut the features of every token into `num_heads` heads.

    x: (batch, len, d_model), with d_model divisible by num_heads.
    Returns (batch, num_heads, len, d_head), d_head = d_model // num_heads, where
    head i holds features i*d_head ... (i+1)*d_head - 1 of every token:
    result[b, i, t, j] == x[b, t, i * d_head + j]. Same dtype as x; x is not modified.
    """
    batch, length, d_model = x.shape
    return x.reshape(batch, length, num_heads, d_model // num_heads).transpose(1, 2)


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    """Concatenate the heads of every token: the inverse of `split_heads`.

    x: (batch, num_heads, len, d_head). Returns (batch, len, num_heads * d_head) with
    head 0's d_head features first, then head 1's, ...:
    result[b, t, i * d_head + j] == x[b, i, t, j]. Same dtype as x; x is not modified.
    """
    batch, num_heads, length, d_head = x.shape
    return x.transpose(1, 2).reshape(batch, length, num_heads * d_head)


def quiz_cross_attention_shape() -> str:
    """Your answer to Question 2: "a", "b", "c" or "d"."""
    return "b"


class MultiHeadAttention(nn.Module):
    """Multi-head attention (Vaswani et al. 2017, section 3.2.2).

    __init__(d_model, num_heads, dropout=0.0): four nn.Linear(d_model, d_model) with
    bias, named w_q, w_k, w_v, w_o (state-dict keys w_q.weight, w_q.bias, ...,
    w_o.bias; a fused q/k/v Linear does not meet this contract), and dropout.
    d_model must be divisible by num_heads; d_head = d_model // num_heads.

    forward(query, key, value, mask=None):
        query (batch, len_q, d_model): where the queries come from (the decoder, in
            cross-attention); key (batch, len_k, d_model) and value (batch, len_k,
            d_model): where keys and values come from (the encoder output, in
            cross-attention).
        mask: None, or bool broadcastable to (batch, num_heads, len_q, len_k),
            True = may attend. Any blocking value is fine (-inf, -1e9, finfo.min);
            a query row with no allowed key gets all-zero (or uniform) weights.
    Returns (output (batch, len_q, d_model), weights (batch, num_heads, len_q, len_k)),
    the weights per head, before dropout (after dropout is accepted too). Dropout
    (training only) applies to the weights that multiply the values.
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
        q = split_heads(self.w_q(query), self.num_heads)  # (batch, num_heads, len_q, d_head)
        k = split_heads(self.w_k(key), self.num_heads)  # (batch, num_heads, len_k, d_head)
        v = split_heads(self.w_v(value), self.num_heads)  # (batch, num_heads, len_k, d_head)
        heads, weights = scaled_dot_product_attention(q, k, v, mask)  # weights (b, h, len_q, len_k)
        if self.training and self.dropout.p > 0:
            heads = self.dropout(weights) @ v  # (batch, num_heads, len_q, d_head)
        return self.w_o(merge_heads(heads)), weights  # (batch, len_q, d_model)
