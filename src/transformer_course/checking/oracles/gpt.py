"""The decoder-only GPT of lesson 11 in float64: causal self-attention with RoPE (lesson
05's :func:`~.attention.multi_head_attention_f` with a rotation and a causal mask), the
pre-norm block (RMSNorm, SwiGLU) and the whole model with tied embeddings, each with one
knob per classic mistake. State dicts use lesson 11's names: ``attn`` (bias-free w_q,
w_k, w_v, w_o), ``feed_forward`` (w1, w2, w3), ``norm1``/``norm2``, ``layers.<i>``,
``norm``, ``embedding``.

Shapes: x (batch, len, d_model), ids (batch, len), logits (batch, len, vocab_size).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import torch

from transformer_course.checking.oracles.attention import multi_head_attention_f
from transformer_course.checking.oracles.feed_forward import swiglu_f
from transformer_course.checking.oracles.norms import rms_norm_f
from transformer_course.checking.oracles.positions import rope_angles_f, rotate_f
from transformer_course.checking.oracles.state import sub

__all__ = ["causal_self_attention_f", "decoder_block_f", "gpt_f"]


def causal_self_attention_f(
    x: torch.Tensor,
    p: Mapping[str, torch.Tensor],
    num_heads: int,
    *,
    pairing: str = "half",
    rope: bool = True,
    rotate_values: bool = False,
    split: str = "after",
    first: int = 0,
    causal: bool | str = True,
    rotated: str = "qk",
    use_w_o: bool = True,
    scale: str | float = "sqrt_d_head",
    base: float = 10000.0,
    heads_split: str = "correct",
    heads_merge: str = "correct",
    fill: float = float("-inf"),
    softmax_dim: int = -1,
    mask_mode: str = "given",
    tables: str = "right",
    diagonal: int = 0,
) -> torch.Tensor:
    """softmax(rot(q) rot(k)ᵀ / sqrt(d_head) + causal) v per head, then w_o: x (batch,
    len, d_model) -> the same shape. ``pairing``: RoPE's feature pairs ("half" or
    "adjacent"); ``rope`` False: no rotation; ``rotate_values``: the values rotated too;
    ``split`` "after" (right: rotate each head's d_head features) or "before" (rotate the
    d_model-wide projections with d_model's angles, then split); ``first``: the first
    position (1: one-indexed); ``causal`` False: every query sees every key; ``rotated``
    "qk" (right), "q", "k": which of queries and keys are rotated; ``use_w_o`` False: no
    output projection; ``scale``: as in :func:`multi_head_attention_f`; ``base``: RoPE's;
    ``heads_split``/``heads_merge``: "correct" or "no_transpose" (one view to (batch,
    num_heads, len, d_head), or back, without the transpose); ``fill``: what the blocked
    scores become (0.0: filled with zero, or the scores multiplied by the mask);
    ``softmax_dim`` -2: the softmax over the queries instead of the keys (``causal``
    "future": the mask transposed, each query sees itself and the later keys); ``mask_mode``
    "after": the causal mask applied to the weights after the softmax, not renormalised;
    ``tables`` "swapped": RoPE's cos and sin tables exchanged (sin, cos = ...);
    ``diagonal``: the causal mask's diagonal moved, torch.tril(..., diagonal=k) (1: each
    query also sees the next key; -1 is ``causal`` "strict")."""
    length = x.shape[1]
    # causal "strict": the mask without its diagonal (tril(..., diagonal=-1));
    # causal "inverted": the mask written True = blocked (torch.triu(..., diagonal=1)) and
    # read True = may attend: every query sees the keys after it only (the last none)
    inverted = causal == "inverted"
    mask = torch.ones(length, length, dtype=torch.bool).triu(1) if inverted else None
    if causal == "future":  # the mask transposed: j >= i (look_ahead_mask(len).T)
        mask, causal = torch.ones(length, length, dtype=torch.bool).triu(0), False
    if causal == "strict":  # j < i: each query blind to its own key (the first to all)
        mask, causal = torch.ones(length, length, dtype=torch.bool).tril(-1), False
    if diagonal and causal is True:  # j <= i + diagonal
        mask, causal = torch.ones(length, length, dtype=torch.bool).tril(diagonal), False

    def rotate(t: torch.Tensor) -> torch.Tensor:  # (..., len, width) -> the same
        angles = rope_angles_f(length, t.shape[-1], base, first=first)
        if tables == "swapped":  # cos and sin exchanged: cos(pi/2 - a) = sin(a)
            angles = math.pi / 2 - angles
        return rotate_f(t, angles, pairing)

    output, _ = multi_head_attention_f(
        p,
        x,
        x,
        x,
        mask,
        num_heads,
        is_causal=bool(causal) and not inverted,
        rotate=rotate if rope else None,
        rotate_at="heads" if split == "after" else "model",
        rotate_values=rotate_values,
        rotate_which=rotated,
        use_w_o=use_w_o,
        scale=scale,
        split=heads_split,
        merge=heads_merge,
        fill=fill,
        softmax_dim=softmax_dim,
        mask_mode=mask_mode,
    )
    return output


def decoder_block_f(
    x: torch.Tensor,
    p: Mapping[str, torch.Tensor],
    num_heads: int,
    eps: float = 1e-5,
    *,
    pairing: str = "half",
    layout: str = "pre",
    attention: Mapping[str, Any] | None = None,
    no_residual: tuple[str, ...] = (),
    norms: tuple[str, str] = ("norm1", "norm2"),
    default_eps: tuple[str, ...] = (),
) -> torch.Tensor:
    """One pre-norm decoder block in float64: h = x + attn(norm1(x)), then h +
    feed_forward(norm2(h)); x (batch, len, d_model) -> the same shape. ``layout`` "pre"
    (right), "post" (norm after each residual sum), "no_residual",
    "residual_from_normed", "swapped_norms", "parallel" (both sub-layers read the same
    x); ``attention``: knobs of :func:`causal_self_attention_f`; ``no_residual``: the
    sub-layers ("attn", "ffn") whose residual connection alone is missing; ``norms``:
    which norm each sub-layer reads (("norm1", "norm1"): norm1 used twice);
    ``default_eps``: the norms built without the block's eps, which compute with
    RMSNorm's default 1e-5 (("norm2",): eps passed to norm1 only)."""
    x = x.double()
    knobs = {"pairing": pairing, **(attention or {})}

    def attn(t):
        return causal_self_attention_f(t, sub(p, "attn"), num_heads, **knobs)

    def ffn(t):
        return swiglu_f(t, sub(p, "feed_forward"))

    def norm(name, t):
        return rms_norm_f(t, sub(p, name), 1e-5 if name in default_eps else eps)

    n1, n2 = ("norm2", "norm1") if layout == "swapped_norms" else norms
    if layout == "post":
        h = norm(n1, x + attn(x))
        return norm(n2, h + ffn(h))
    if layout == "no_residual":
        return ffn(norm(n2, attn(norm(n1, x))))
    if layout == "residual_from_normed":
        a = norm(n1, x)
        h = a + attn(a)
        b = norm(n2, h)
        return b + ffn(b)
    if layout == "parallel":
        return x + attn(norm(n1, x)) + ffn(norm(n2, x))
    h = attn(norm(n1, x)) + (0 if "attn" in no_residual else x)
    return ffn(norm(n2, h)) + (0 if "ffn" in no_residual else h)


def gpt_f(
    ids: torch.Tensor,
    p: Mapping[str, torch.Tensor],
    num_heads: int,
    num_layers: int,
    eps: float = 1e-5,
    *,
    pairing: str = "half",
    final_norm: bool = True,
    scale_embedding: bool = False,
    softmax: bool = False,
    causal: bool = True,
    block_eps: float | None = None,
    final_eps: float | None = None,
) -> torch.Tensor:
    """The GPT in float64: ids (batch, len) -> logits (batch, len, vocab_size), the output
    layer tied to the embedding. Knobs: ``final_norm`` False (no RMSNorm before the
    logits), ``scale_embedding`` (embeddings times sqrt(d_model)), ``softmax``
    (probabilities returned), ``causal`` False (every block's attention sees every key,
    the future too); ``block_eps`` / ``final_eps``: the blocks' norms / the final norm
    computed with that eps instead of ``eps`` (one of them not given the GPT's eps)."""
    embedding = p["embedding.weight"].double()  # (vocab_size, d_model)
    x = embedding[ids]  # (batch, len, d_model)
    if scale_embedding:
        x = x * math.sqrt(embedding.shape[1])
    for i in range(num_layers):
        attention = {"causal": causal}
        x = decoder_block_f(
            x,
            sub(p, f"layers.{i}"),
            num_heads,
            eps if block_eps is None else block_eps,
            pairing=pairing,
            attention=attention,
        )
    if final_norm:
        x = rms_norm_f(x, sub(p, "norm"), eps if final_eps is None else final_eps)
    logits = x @ embedding.T  # (batch, len, vocab_size)
    return torch.softmax(logits, -1) if softmax else logits
