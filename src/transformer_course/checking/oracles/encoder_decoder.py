"""The encoder-decoder Transformer's layers and stacks in float64 (lessons 07-09), built
from :mod:`.attention`, :mod:`.feed_forward` and :mod:`.norms`, with one knob per
classic mistake. State dicts use the course's names: ``self_attn``, ``cross_attn``
(w_q, w_k, w_v, w_o), ``feed_forward`` (w_1, w_2), ``norm1`` .. ``norm3``, a stack's
``layers.<i>`` and final ``norm``.

Shapes: x (batch, len, d_model) (len = len_src in the encoder, len_tgt in the decoder),
memory (batch, len_src, d_model); masks bool (True = may attend), broadcastable to
(batch, num_heads, len_q, len_k).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import torch

from transformer_course.checking.oracles.attention import multi_head_attention_f
from transformer_course.checking.oracles.feed_forward import ffn_f
from transformer_course.checking.oracles.norms import layer_norm_f
from transformer_course.checking.oracles.state import sub, zero_if

__all__ = [
    "decoder_f",
    "decoder_layer_f",
    "encoder_f",
    "encoder_layer_f",
    "residual_block",
    "stack_f",
    "uses_final_norm",
]


def _attention(p, query, key, value, mask, num_heads, drop) -> torch.Tensor:
    """The output of multi-head attention (the weights dropped entirely when ``drop``)."""
    return multi_head_attention_f(p, query, key, value, mask, num_heads, drop=drop)[0]


def residual_block(
    x: torch.Tensor,
    sublayer: Callable[[torch.Tensor], torch.Tensor],
    norm: Callable[[torch.Tensor], torch.Tensor],
    *,
    norm_first: bool,
    drop: bool = False,
    residual: str = "normal",
    dropout_at: str = "output",
) -> torch.Tensor:
    """One sub-layer with its residual connection and LayerNorm; x (batch, len, d_model).

    Post-LN: norm(x + dropout(sublayer(x))); pre-LN: x + dropout(sublayer(norm(x))).
    ``drop``: every dropout zeroes (p=1, train). ``residual``: "normal", "none",
    "after_norm" (post-LN: x + norm(sublayer(x))), "from_normed" (pre-LN: norm(x) +
    sublayer(norm(x))). ``dropout_at``: "output" (right), "missing", "after_norm",
    "on_sum" (post-LN: dropout(x + sublayer(x)) before the norm).
    """
    zero = zero_if(drop)
    on_output = zero if dropout_at == "output" else (lambda t: t)
    if norm_first:
        h = norm(x)
        if dropout_at == "after_norm":
            h = zero(h)
        y = on_output(sublayer(h))
        if residual == "none":
            return y
        return (h if residual == "from_normed" else x) + y
    y = on_output(sublayer(x))
    if residual == "after_norm":
        return x + norm(y)
    total = y if residual == "none" else x + y
    if dropout_at == "on_sum":
        total = zero(total)
    out = norm(total)
    return zero(out) if dropout_at == "after_norm" else out


def encoder_layer_f(
    x: torch.Tensor,
    p: Mapping[str, torch.Tensor],
    mask: torch.Tensor | None,
    num_heads: int,
    *,
    norm_first: bool,
    drop: bool = False,
    residual: str = "normal",
    dropout_at: str = "output",
    norms: tuple[str, str] = ("norm1", "norm2"),
    order: tuple[str, str] = ("attn", "ffn"),
    mask_mode: str = "given",
) -> torch.Tensor:
    """One encoder layer in float64: self-attention, then the feed-forward block, each in
    a :func:`residual_block`. x (batch, len_src, d_model) -> the same shape.

    Knobs: ``drop``, ``residual``, ``dropout_at`` (of :func:`residual_block`); ``norms``:
    which LayerNorm each sub-layer uses; ``order``: the sub-layers' order; ``mask_mode``
    "given" (right), "none", "inverted"."""
    sublayers = {
        "attn": lambda h: multi_head_attention_f(
            sub(p, "self_attn"), h, h, h, mask, num_heads, mask_mode=mask_mode, drop=drop
        )[0],
        "ffn": lambda h: ffn_f(h, sub(p, "feed_forward"), drop=drop),
    }
    x = x.double()
    for part, norm_name in zip(order, norms, strict=True):
        norm_p = sub(p, norm_name)
        x = residual_block(
            x,
            sublayers[part],
            lambda t, norm_p=norm_p: layer_norm_f(t, norm_p),
            norm_first=norm_first,
            drop=drop,
            residual=residual,
            dropout_at=dropout_at,
        )
    return x


def decoder_layer_f(
    x: torch.Tensor,
    memory: torch.Tensor,
    p: Mapping[str, torch.Tensor],
    src_mask: torch.Tensor | None,
    tgt_mask: torch.Tensor | None,
    num_heads: int,
    *,
    norm_first: bool,
    drop: bool = False,
    residual: str = "normal",
    dropout_at: str = "output",
    norms: tuple[str, str, str] = ("norm1", "norm2", "norm3"),
    order: tuple[str, str, str] = ("self", "cross", "ffn"),
    cross_from: tuple[str, str, str] = ("x", "memory", "memory"),
    self_mask: str = "tgt",
    cross_mask: str = "src",
    memory_norm: bool = False,
    self_kv: str = "x",
) -> torch.Tensor:
    """One decoder layer in float64: masked self-attention, cross-attention over the
    memory, the feed-forward block, each in a :func:`residual_block`. x (batch, len_tgt,
    d_model), memory (batch, len_src, d_model) -> (batch, len_tgt, d_model).

    ``cross_from``: where the cross-attention's (queries, keys, values) come from, each
    "x" (the decoder side, normalised in pre-LN) or "memory". ``self_mask`` and
    ``cross_mask``: "tgt", "src", "none" or "causal" (a look-ahead mask of the layer's
    own). ``memory_norm``: pre-LN with the memory normalised too. ``self_kv``: "memory"
    makes the self-attention read the memory. The other knobs as in
    :func:`encoder_layer_f`.
    """
    len_tgt = x.shape[1]
    causal = torch.ones(len_tgt, len_tgt, dtype=torch.bool).tril()  # (len_tgt, len_tgt)
    masks = {"tgt": tgt_mask, "src": src_mask, "none": None, "causal": causal}
    mem = memory.double()

    def norm(name: str):
        params = sub(p, name)
        return lambda t: layer_norm_f(t, params)

    def self_attention(h):
        kv = h if self_kv == "x" else mem
        return _attention(sub(p, "self_attn"), h, kv, kv, masks[self_mask], num_heads, drop)

    def cross_attention(h):
        m = norm(norms[1])(mem) if memory_norm else mem
        sources = {"x": h, "memory": m}
        q, k, v = (sources[name] for name in cross_from)
        return _attention(sub(p, "cross_attn"), q, k, v, masks[cross_mask], num_heads, drop)

    sublayers = {
        "self": self_attention,
        "cross": cross_attention,
        "ffn": lambda h: ffn_f(h, sub(p, "feed_forward"), drop=drop),
    }
    x = x.double()
    for part, norm_name in zip(order, norms, strict=True):
        x = residual_block(
            x,
            sublayers[part],
            norm(norm_name),
            norm_first=norm_first,
            drop=drop,
            residual=residual,
            dropout_at=dropout_at,
        )
    return x


def stack_f(
    layer: Callable[[torch.Tensor, dict], torch.Tensor],
    x: torch.Tensor,
    p: Mapping[str, torch.Tensor],
    num_layers: int,
    *,
    final: bool,
    order: str = "forward",
    norm_each: bool = False,
) -> torch.Tensor:
    """A stack: ``layer(x, layer_state)`` for each of the num_layers layers (state
    ``layers.<i>``), then the final LayerNorm ``norm`` if ``final``. ``order``: "forward",
    "reversed", "first_only" (layer 0 applied num_layers times), "first_once" (a return
    inside the loop). ``norm_each``: the final norm applied after every layer."""
    indices = {
        "forward": list(range(num_layers)),
        "reversed": list(reversed(range(num_layers))),
        "first_only": [0] * num_layers,
        "first_once": [0],
    }[order]
    x = x.double()
    for index in indices:
        x = layer(x, sub(p, f"layers.{index}"))
        if norm_each and final:
            x = layer_norm_f(x, sub(p, "norm"))
    if final and not norm_each:
        x = layer_norm_f(x, sub(p, "norm"))
    return x


def uses_final_norm(norm_first: bool, final_norm: bool | None) -> bool:
    """The course's contract: final_norm=None means 'the same as norm_first'."""
    return norm_first if final_norm is None else final_norm


def encoder_f(
    x: torch.Tensor,
    p: Mapping[str, torch.Tensor],
    mask: torch.Tensor | None,
    num_heads: int,
    num_layers: int,
    *,
    norm_first: bool,
    final: bool,
    drop: bool = False,
    layer_norm_first: bool | None = None,
    mask_passed: bool = True,
    **stack_knobs: Any,
) -> torch.Tensor:
    """The encoder stack in float64: x (batch, len_src, d_model) -> memory, the same
    shape. Knobs: ``layer_norm_first`` (the layers built with another norm_first than the
    stack's), ``mask_passed`` False (the layers get no mask), and :func:`stack_f`'s."""
    layer_nf = norm_first if layer_norm_first is None else layer_norm_first
    m = mask if mask_passed else None

    def layer(h, layer_p):
        return encoder_layer_f(h, layer_p, m, num_heads, norm_first=layer_nf, drop=drop)

    return stack_f(layer, x, p, num_layers, final=final, **stack_knobs)


def decoder_f(
    x: torch.Tensor,
    memory: torch.Tensor,
    p: Mapping[str, torch.Tensor],
    src_mask: torch.Tensor | None,
    tgt_mask: torch.Tensor | None,
    num_heads: int,
    num_layers: int,
    *,
    norm_first: bool,
    final: bool,
    drop: bool = False,
    layer_norm_first: bool | None = None,
    src_passed: bool = True,
    tgt_passed: bool = True,
    masks_swapped: bool = False,
    memory_from: str = "memory",
    **stack_knobs: Any,
) -> torch.Tensor:
    """The decoder stack in float64: x (batch, len_tgt, d_model), memory (batch, len_src,
    d_model) -> (batch, len_tgt, d_model). Knobs: ``layer_norm_first``, ``src_passed`` /
    ``tgt_passed`` False (that mask not passed on), ``masks_swapped``, ``memory_from``
    "memory" (right) or "x" (each layer reads its own input as memory), and
    :func:`stack_f`'s."""
    layer_nf = norm_first if layer_norm_first is None else layer_norm_first
    src = src_mask if src_passed else None
    tgt = tgt_mask if tgt_passed else None
    if masks_swapped:
        src, tgt = tgt, src

    def layer(h, layer_p):
        mem = memory if memory_from == "memory" else h
        return decoder_layer_f(h, mem, layer_p, src, tgt, num_heads, norm_first=layer_nf, drop=drop)

    return stack_f(layer, x, p, num_layers, final=final, **stack_knobs)
