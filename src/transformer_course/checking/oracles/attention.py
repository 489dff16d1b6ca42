"""Attention in float64, from the formulas: scaled dot-product attention (lesson 04) and
multi-head attention (lesson 05), with one knob per classic mistake. Every later
attention (the encoder's and decoder's self- and cross-attention, lesson 11's causal
attention with RoPE) is :func:`multi_head_attention_f` with other inputs and knobs.

Masks follow the course's convention: a bool tensor, True = this query may attend to this
key, broadcastable to (..., len_q, len_k); a query row with no allowed key gets all-zero
weights.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import torch

from transformer_course.checking.oracles.state import linear, zero_if

__all__ = [
    "merge_heads_f",
    "multi_head_attention_f",
    "scaled_dot_product_attention_f",
    "split_heads_f",
]


def scaled_dot_product_attention_f(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None = None,
    *,
    scale: float | None = None,
    softmax_dim: int = -1,
    mask_mode: str = "given",
    fill: float = float("-inf"),
    is_causal: bool = False,
    enable_gqa: bool = False,
    uniform_weights: bool = False,
    drop: bool = False,
    weights: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """softmax(q kᵀ · scale, masked) v in float64; returns (output, weights).

    q: (..., len_q, d_k), k: (..., len_k, d_k), v: (..., len_k, d_v);
    output: (..., len_q, d_v), weights: (..., len_q, len_k), before any dropout.

    ``scale``: what the scores are multiplied by (None: 1 / sqrt(d_k), right; 1.0: no
    scaling), as in F.scaled_dot_product_attention. ``softmax_dim``: -1 (over the keys,
    right) or any other dim (-2: over the queries). ``mask_mode``: "given" (right),
    "none" (the mask ignored), "inverted" (~mask used), "after" (the weights multiplied by
    the mask after the softmax, not renormalised); ``fill``: what blocked scores become
    (-inf, right; 0.0: masked with zeros). ``is_causal``: query i also sees only keys 0 .. i.
    ``enable_gqa``: k and v have num_kv_heads heads (dim -3), each shared by num_heads /
    num_kv_heads query heads. ``uniform_weights``: the scores zeroed before the softmax
    (dropout on the scores). ``drop``: the weights dropped (dropout p=1 in train mode)
    before they multiply the values. ``weights``: use these weights instead of computing
    them.
    """
    q, k, v = q.double(), k.double(), v.double()
    if enable_gqa:
        groups = q.shape[-3] // k.shape[-3]
        k = k.repeat_interleave(groups, dim=-3)  # (..., num_heads, len_k, d_k)
        v = v.repeat_interleave(groups, dim=-3)
    len_q, len_k = q.shape[-2], k.shape[-2]
    if weights is None:
        factor = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
        scores = q @ k.transpose(-2, -1) * factor  # (..., len_q, len_k)
        if uniform_weights:
            scores = torch.zeros_like(scores)
        allowed = None if mask is None or mask_mode == "none" else mask
        if allowed is not None and mask_mode == "inverted":
            allowed = ~allowed
        if is_causal:
            causal = torch.ones(len_q, len_k, dtype=torch.bool).tril()  # (len_q, len_k)
            allowed = causal if allowed is None else allowed & causal
        if allowed is not None and mask_mode != "after":
            scores = scores.masked_fill(~allowed.expand(scores.shape), fill)
        weights = torch.softmax(scores, dim=softmax_dim)
        if allowed is not None and mask_mode == "after":
            weights = weights * allowed
        weights = weights.nan_to_num(0.0)  # rows with no allowed key: all zero
    output = zero_if(drop)(weights.double()) @ v  # (..., len_q, d_v)
    return output, weights


def split_heads_f(x: torch.Tensor, num_heads: int, *, transpose: bool = True) -> torch.Tensor:
    """(batch, len, d_model) -> (batch, num_heads, len, d_head). ``transpose`` False: a
    direct reshape to (batch, num_heads, len, d_head), which mixes tokens into each head."""
    batch, length, d_model = x.shape
    if not transpose:
        return x.reshape(batch, num_heads, length, d_model // num_heads)
    return x.reshape(batch, length, num_heads, d_model // num_heads).transpose(1, 2)


def merge_heads_f(x: torch.Tensor, *, transpose: bool = True) -> torch.Tensor:
    """(batch, num_heads, len, d_head) -> (batch, len, d_model). ``transpose`` False: a
    reshape without transpose(1, 2) first, which cuts each token out of one head's block."""
    batch, num_heads, length, d_head = x.shape
    if not transpose:
        return x.reshape(batch, length, num_heads * d_head)
    return x.transpose(1, 2).reshape(batch, length, num_heads * d_head)


def multi_head_attention_f(
    p: Mapping[str, torch.Tensor],
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    mask: torch.Tensor | None,
    num_heads: int,
    *,
    q_from: str = "query",
    k_from: str = "key",
    v_from: str = "value",
    k_proj: str | None = "w_k",
    v_proj: str | None = "w_v",
    scale: str | float = "sqrt_d_head",
    softmax_dim: int = -1,
    mask_mode: str = "given",
    is_causal: bool = False,
    split: str = "correct",
    merge: str = "correct",
    use_w_o: bool = True,
    uniform_weights: bool = False,
    drop: bool = False,
    rotate: Callable[[torch.Tensor], torch.Tensor] | None = None,
    rotate_at: str = "heads",
    rotate_values: bool = False,
    weights: torch.Tensor | None = None,
    rotate_which: str = "qk",
    fill: float = float("-inf"),
    transposed: tuple[str, ...] = (),
    o_proj: str = "w_o",
    q_proj: str = "w_q",
    no_bias: tuple[str, ...] = (),
) -> tuple[torch.Tensor, torch.Tensor]:
    """Multi-head attention in float64: w_o(merge(attention(split(w_q q), split(w_k k),
    split(w_v v)))), ``p`` holding the nn.Linear w_q, w_k, w_v, w_o (d_model, d_model),
    with or without biases. Returns (output (batch, len_q, d_model), weights (batch,
    num_heads, len_q, len_k), before dropout).

    query (batch, len_q, d_model), key and value (batch, len_k, d_model); mask: bool,
    broadcastable to (batch, num_heads, len_q, len_k).

    Knobs: ``q_from``/``k_from``/``v_from``: which input ("query", "key", "value") each
    projection reads; ``k_proj``/``v_proj``: which projection the keys/values go through
    (None: none); ``scale`` "sqrt_d_head" (right), "sqrt_d_model", "d_head", "half_d_head" (d_head ** 1 / 2), "none",
    or a number: the factor the scores are multiplied by;
    ``softmax_dim``, ``mask_mode``, ``is_causal``, ``uniform_weights``, ``drop``,
    ``weights``: as in :func:`scaled_dot_product_attention_f`; ``split``/``merge``
    "correct" or "no_transpose"; ``use_w_o`` False: the merged heads are the output.
    ``rotate``: a position encoding applied to the queries and keys (RoPE: a function of
    (..., len, width) -> same), on each head's d_head features (``rotate_at="heads"``,
    right) or on the d_model-wide projections before the split (``"model"``);
    ``rotate_values`` rotates the values too; ``rotate_which`` "qk" (right), "q" or "k":
    only the queries or only the keys rotated. ``fill``: what blocked scores become.
    ``transposed``: the projections whose stored weight is applied as it is, x @ weight +
    bias, where nn.Linear computes x @ weight.T + bias (a weight multiplied by hand).
    ``o_proj``: the projection the merged heads go through (w_o, right); ``q_proj``: the
    one the queries go through (w_q, right). ``no_bias``: the projections applied without
    their bias (F.linear(x, w.weight), or x @ w.weight.T).
    """
    if no_bias:
        dropped = {f"{name}.bias" for name in no_bias}
        p = {key: torch.zeros_like(t) if key in dropped else t for key, t in p.items()}
    if transposed:
        wrong = {f"{name}.weight" for name in transposed}
        p = {key: tensor.T if key in wrong else tensor for key, tensor in p.items()}
    inputs = {"query": query.double(), "key": key.double(), "value": value.double()}

    def project(name: str | None, x: torch.Tensor) -> torch.Tensor:
        return x if name is None else linear(x, p, name)

    q = project(q_proj, inputs[q_from])  # (batch, len_q, d_model)
    k = project(k_proj, inputs[k_from])  # (batch, len_k, d_model)
    v = project(v_proj, inputs[v_from])

    def rotate_qk(q: torch.Tensor, k: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        assert rotate is not None
        return (rotate(q) if "q" in rotate_which else q), (rotate(k) if "k" in rotate_which else k)

    if rotate is not None and rotate_at == "model":
        q, k = rotate_qk(q, k)
        v = rotate(v) if rotate_values else v
    transpose = split != "no_transpose"
    q, k, v = (split_heads_f(t, num_heads, transpose=transpose) for t in (q, k, v))
    if rotate is not None and rotate_at == "heads":  # (batch, num_heads, len, d_head)
        q, k = rotate_qk(q, k)
        v = rotate(v) if rotate_values else v
    d_head, d_model = q.shape[-1], query.shape[-1]
    factor = (
        float(scale)  # a number: the factor the scores are multiplied by
        if isinstance(scale, int | float)
        else {
            "sqrt_d_head": 1.0 / math.sqrt(d_head),
            "sqrt_d_model": 1.0 / math.sqrt(d_model),
            "d_head": 1.0 / d_head,
            "half_d_head": 2.0 / d_head,
            "none": 1.0,
        }[scale]
    )
    heads, weights = scaled_dot_product_attention_f(
        q,
        k,
        v,
        mask,
        scale=factor,
        softmax_dim=softmax_dim,
        mask_mode=mask_mode,
        fill=fill,
        is_causal=is_causal,
        uniform_weights=uniform_weights,
        drop=drop,
        weights=weights,
    )  # (batch, num_heads, len_q, d_head), (batch, num_heads, len_q, len_k)
    merged = merge_heads_f(heads, transpose=merge != "no_transpose")  # (batch, len_q, d_model)
    return (linear(merged, p, o_proj) if use_w_o else merged), weights
