"""The encoder-decoder Transformer's layers, stacks and whole model in float64 (lessons
07-09), built from :mod:`.attention`, :mod:`.feed_forward`, :mod:`.norms` and
:mod:`.positions`, with one knob per classic mistake. State dicts use the course's names:
``self_attn``, ``cross_attn`` (w_q, w_k, w_v, w_o), ``feed_forward`` (w_1, w_2),
``norm1`` .. ``norm3``, a stack's ``layers.<i>`` and final ``norm``; the whole model's
``src_embedding``, ``tgt_embedding``, ``encoder``, ``decoder``, ``output``.

Shapes: x (batch, len, d_model) (len = len_src in the encoder, len_tgt in the decoder),
memory (batch, len_src, d_model); masks bool (True = may attend), broadcastable to
(batch, num_heads, len_q, len_k).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import torch

from transformer_course.checking.oracles.attention import multi_head_attention_f
from transformer_course.checking.oracles.feed_forward import ffn_f
from transformer_course.checking.oracles.norms import layer_norm_f
from transformer_course.checking.oracles.positions import sinusoidal_positions_f
from transformer_course.checking.oracles.state import linear, sub, zero_if

__all__ = [
    "count_parameters_f",
    "decoder_f",
    "decoder_layer_f",
    "encoder_f",
    "encoder_layer_f",
    "residual_block",
    "stack_f",
    "transformer_decode_f",
    "transformer_embed_f",
    "transformer_encode_f",
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


#: where a sub-layer's LayerNorm sits, by name (one family: "the norm's placement", each
#: sub-layer on its own): the paper's post-LN, pre-LN, a norm before *and* after, the norm on
#: the residual branch alone, and a norm on both sides of the sub-layer inside the residual
PLACEMENTS = ("post", "pre", "both", "norm_residual", "sandwich")


def placement_block(
    x: torch.Tensor,
    sublayer: Callable[[torch.Tensor], torch.Tensor],
    norm: Callable[[torch.Tensor], torch.Tensor],
    placement: str,
    *,
    drop: bool = False,
) -> torch.Tensor:
    """One sub-layer with its norm at ``placement`` (:data:`PLACEMENTS`): "post"
    norm(x + s(x)), "pre" x + s(norm(x)), "both" norm(x + s(norm(x))), "norm_residual"
    norm(x) + s(x), "sandwich" x + norm(s(norm(x))); dropout on s's output as usual."""
    zero = zero_if(drop)
    if placement == "post":
        return norm(x + zero(sublayer(x)))
    if placement == "pre":
        return x + zero(sublayer(norm(x)))
    if placement == "both":
        return norm(x + zero(sublayer(norm(x))))
    if placement == "norm_residual":
        return norm(x) + zero(sublayer(x))
    if placement == "sandwich":
        return x + zero(norm(sublayer(norm(x))))
    raise ValueError(placement)


def _dropout_place(
    part: str, no_dropout: tuple[str, ...], places: tuple[tuple[str, str], ...], default: str
) -> str:
    """Where ``part``'s dropout sits: "missing" when listed in ``no_dropout``, else its own
    place from ``places``, else the layer's ``default``."""
    if part in no_dropout:
        return "missing"
    return dict(places).get(part, default)


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
    no_residual: tuple[str, ...] = (),
    discarded: tuple[str, ...] = (),
    no_dropout: tuple[str, ...] = (),
    parallel: bool = False,
    placements: tuple[str, str] | None = None,
    dropout_places: tuple[tuple[str, str], ...] = (),
) -> torch.Tensor:
    """One encoder layer in float64: self-attention, then the feed-forward block, each in
    a :func:`residual_block`. x (batch, len_src, d_model) -> the same shape.

    Knobs: ``drop``, ``residual``, ``dropout_at`` (of :func:`residual_block`); ``norms``:
    which LayerNorm each sub-layer uses; ``order``: the sub-layers' order; ``mask_mode``
    "given" (right), "none", "inverted"; ``no_residual``: the sub-layers ("attn", "ffn")
    whose residual connection is missing (the others keep theirs); ``discarded``: the
    sub-layers whose output is never used, their input taking its place; ``no_dropout``:
    the sub-layers whose output reaches the residual sum without its dropout;
    ``dropout_places``: ((sub-layer, ``dropout_at``), ...), where one sub-layer's dropout
    sits when it differs from the others' (its sum dropped, norm2(dropout(x + ffn(x))),
    the others right); ``parallel``
    (post-LN): GPT-J's layout, both sub-layers reading x and summed in one residual under
    the first norm, norm1(x + attn(x) + ffn(x))."""
    sublayers = {
        "attn": lambda h: multi_head_attention_f(
            sub(p, "self_attn"), h, h, h, mask, num_heads, mask_mode=mask_mode, drop=drop
        )[0],
        "ffn": lambda h: ffn_f(h, sub(p, "feed_forward"), drop=drop),
    }
    x = x.double()
    if placements is not None:  # each sub-layer's norm placed on its own (PLACEMENTS)
        for part, norm_name, placement in zip(order, norms, placements, strict=True):
            norm_p = sub(p, norm_name)
            x = placement_block(
                x,
                sublayers[part],
                lambda t, norm_p=norm_p: layer_norm_f(t, norm_p),
                placement,
                drop=drop,
            )
        return x
    if parallel and not norm_first:
        total = x.clone()
        for part in order:
            total = total + (torch.zeros_like(x) if drop else sublayers[part](x))
        return layer_norm_f(total, sub(p, norms[0]))
    for part, norm_name in zip(order, norms, strict=True):
        norm_p = sub(p, norm_name)
        x = residual_block(
            x,
            (lambda h: h) if part in discarded else sublayers[part],
            lambda t, norm_p=norm_p: layer_norm_f(t, norm_p),
            norm_first=norm_first,
            drop=drop,
            residual="none" if part in no_residual else residual,
            dropout_at=_dropout_place(part, no_dropout, dropout_places, dropout_at),
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
    no_residual: tuple[str, ...] = (),
    discarded: tuple[str, ...] = (),
    no_dropout: tuple[str, ...] = (),
    placements: tuple[str, str, str] | None = None,
    dropout_places: tuple[tuple[str, str], ...] = (),
) -> torch.Tensor:
    """One decoder layer in float64: masked self-attention, cross-attention over the
    memory, the feed-forward block, each in a :func:`residual_block`. x (batch, len_tgt,
    d_model), memory (batch, len_src, d_model) -> (batch, len_tgt, d_model).

    ``cross_from``: where the cross-attention's (queries, keys, values) come from, each
    "x" (the decoder side, normalised in pre-LN) or "memory". ``self_mask`` and
    ``cross_mask``: "tgt", "src", "none" or "causal" (a look-ahead mask of the layer's
    own). ``memory_norm``: pre-LN with the memory normalised too. ``self_kv``: "memory"
    makes the self-attention read the memory. ``no_residual``: the sub-layers ("self",
    "cross", "ffn") whose residual connection is missing; ``discarded``: the sub-layers
    whose output is never used; ``no_dropout``: those whose output is added without its
    dropout; ``dropout_places``: one sub-layer's own dropout place. The other knobs as in
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
    if placements is not None:  # each sub-layer's norm placed on its own (PLACEMENTS)
        for part, norm_name, placement in zip(order, norms, placements, strict=True):
            x = placement_block(x, sublayers[part], norm(norm_name), placement, drop=drop)
        return x
    for part, norm_name in zip(order, norms, strict=True):
        x = residual_block(
            x,
            (lambda h: h) if part in discarded else sublayers[part],
            norm(norm_name),
            norm_first=norm_first,
            drop=drop,
            residual="none" if part in no_residual else residual,
            dropout_at=_dropout_place(part, no_dropout, dropout_places, dropout_at),
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
    stream_dropped: bool = False,
) -> torch.Tensor:
    """A stack: ``layer(x, layer_state)`` for each of the num_layers layers (state
    ``layers.<i>``), then the final LayerNorm ``norm`` if ``final``. ``order``: "forward",
    "reversed", "first_only" (layer 0 applied num_layers times), "first_once" (a return
    inside the loop), "all_but_last" (a loop that stops one layer early), "unchained" (every
    layer fed the stack's input, the last one's output returned). ``norm_each``: the final
    norm applied after every layer. ``stream_dropped``: a dropout at rate 1 on every layer's
    output (the same as on the last one's alone: zeros)."""
    indices = {
        "forward": list(range(num_layers)),
        "reversed": list(reversed(range(num_layers))),
        "first_only": [0] * num_layers,
        "first_once": [0],
        "all_but_last": list(range(num_layers - 1)),
        "unchained": list(range(num_layers)),
    }[order]
    x = x.double()
    stack_input = x
    for index in indices:
        x = layer(stack_input if order == "unchained" else x, sub(p, f"layers.{index}"))
        if stream_dropped:
            x = torch.zeros_like(x)
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


# ==================================================== the whole encoder-decoder (lesson 09)
def _padding(ids: torch.Tensor, pad_id: int) -> torch.Tensor:
    return (ids != pad_id)[:, None, None, :]  # (batch, 1, 1, len): True = a real token


def _causal_padding(ids: torch.Tensor, pad_id: int) -> torch.Tensor:
    causal = torch.ones(ids.shape[1], ids.shape[1], dtype=torch.bool).tril()  # (len, len)
    return _padding(ids, pad_id) & causal  # (batch, 1, len, len)


def transformer_embed_f(
    ids: torch.Tensor,
    p: Mapping[str, torch.Tensor],
    side: str,
    *,
    drop: bool = False,
    scale: int = 1,
    positions: str = "both",
    emb_dropout: str = "sum",
    table: str = "own",
    pe_times: int = 1,
) -> torch.Tensor:
    """One side's input in float64: dropout(embedding(ids) * sqrt(d_model) + PE), ids
    (batch, len) -> (batch, len, d_model); ``p`` the Transformer's state dict (its
    ``src_embedding.embedding.weight``, ``tgt_embedding.embedding.weight``), ``side``
    "src" or "tgt". Knobs: ``scale`` (the power of sqrt(d_model): 1 right, 0 none, 2
    twice), ``positions`` ("both", "none", "src", "tgt": which sides get them),
    ``emb_dropout`` ("sum" right, "missing", "before": dropout on the embeddings before
    the positions are added), ``table`` ("own", or "other": the other side's table),
    ``pe_times`` (how often the positions are added where they are: 1 right, 2 twice)."""
    other = {"src": "tgt", "tgt": "src"}[side]
    weight = p[f"{other if table == 'other' else side}_embedding.embedding.weight"].double()
    d_model = weight.shape[1]
    x = weight[ids] * math.sqrt(d_model) ** scale  # (batch, len, d_model)
    pe = pe_times * torch.from_numpy(sinusoidal_positions_f(ids.shape[1], d_model))
    zero = zero_if(drop)
    with_positions = positions in ("both", side)
    if emb_dropout == "before":
        return zero(x) + pe if with_positions else zero(x)
    x = x + pe if with_positions else x
    return x if emb_dropout == "missing" else zero(x)


def transformer_encode_f(
    src: torch.Tensor,
    p: Mapping[str, torch.Tensor],
    pad_id: int,
    num_heads: int,
    num_layers: int,
    *,
    norm_first: bool,
    final: bool,
    drop: bool = False,
    mask: str = "pad",
    **embed_knobs: Any,
) -> torch.Tensor:
    """Lesson 09's ``encode``: src (batch, len_src) -> memory (batch, len_src, d_model),
    ``p`` the Transformer's state dict (``encoder.*``). Knobs: ``mask`` ("pad" right,
    "none", "pad0": the padding taken to be id 0, "inverted": True at the pads, as
    nn.Transformer's key_padding_mask), and :func:`transformer_embed_f`'s."""
    x = transformer_embed_f(src, p, "src", drop=drop, **embed_knobs)
    src_mask = {
        "pad": _padding(src, pad_id),
        "none": None,
        "pad0": _padding(src, 0),
        "inverted": ~_padding(src, pad_id),
    }[mask]
    encoder = sub(p, "encoder")
    return encoder_f(
        x, encoder, src_mask, num_heads, num_layers, norm_first=norm_first, final=final, drop=drop
    )


def transformer_decode_f(
    tgt: torch.Tensor,
    memory: torch.Tensor,
    src: torch.Tensor,
    p: Mapping[str, torch.Tensor],
    pad_id: int,
    num_heads: int,
    num_layers: int,
    *,
    norm_first: bool,
    final: bool,
    drop: bool = False,
    self_mask: str = "causal_pad",
    cross_mask: str | torch.Tensor = "src_pad",
    reads: str = "memory",
    output: str = "logits",
    **embed_knobs: Any,
) -> torch.Tensor:
    """Lesson 09's ``decode``: tgt (batch, len_tgt), memory (batch, len_src, d_model), src
    (batch, len_src) -> logits (batch, len_tgt, tgt_vocab_size). Knobs: ``self_mask``
    ("causal_pad" right, "pad" (no look-ahead), "causal" (no target padding), "src_pad",
    "src_causal_pad" (decoder_self_attention_mask(src_ids): the source's length), "pad0", "inverted", "pad_or_causal": the two parts joined by |, "causal_pad_queries": the
    padding part on the query axis), ``cross_mask`` ("src_pad" right, "none", "tgt", "tgt_pad": padding_mask(tgt_ids), "pad0", "inverted", or a bool mask itself, (batch, 1, 1, len_src)), ``reads`` ("memory"
    right, "self": the target read as memory, "swap": decoder(memory, target)), ``output``
    ("logits" right, "softmax", "log_softmax", "softmax_positions"), and
    :func:`transformer_embed_f`'s."""
    y = transformer_embed_f(tgt, p, "tgt", drop=drop, **embed_knobs)
    causal = torch.ones(tgt.shape[1], tgt.shape[1], dtype=torch.bool).tril()
    masks_self = {
        "causal_pad": lambda: _causal_padding(tgt, pad_id),
        "pad": lambda: _padding(tgt, pad_id),
        "causal": lambda: causal,
        "src_pad": lambda: _padding(src, pad_id),
        "src_causal_pad": lambda: _causal_padding(src, pad_id),
        "pad0": lambda: _causal_padding(tgt, 0),
        "inverted": lambda: ~_causal_padding(tgt, pad_id),  # nn.Transformer's convention
        "pad_or_causal": lambda: _padding(tgt, pad_id) | causal,  # | where & belongs
        # the padding on the query axis, (batch, 1, len, 1): padded rows blanked, not columns
        "causal_pad_queries": lambda: (tgt != pad_id)[:, None, :, None] & causal,
    }
    masks_cross = {
        "src_pad": lambda: _padding(src, pad_id),
        "none": lambda: None,
        "tgt": lambda: _causal_padding(tgt, pad_id),
        "tgt_pad": lambda: _padding(tgt, pad_id) if tgt.shape[1] == src.shape[1] else None,
        "pad0": lambda: _padding(src, 0),
        "inverted": lambda: ~_padding(src, pad_id),  # True at the pads: key_padding_mask's
    }
    self_m = masks_self[self_mask]()
    # a bool tensor: that mask itself (a probe's, checking.mask_sources)
    cross_m = cross_mask if isinstance(cross_mask, torch.Tensor) else masks_cross[cross_mask]()
    decoder = sub(p, "decoder")
    knobs = {"norm_first": norm_first, "final": final, "drop": drop}
    if reads == "swap":
        out = decoder_f(memory, y, decoder, cross_m, self_m, num_heads, num_layers, **knobs)
    else:
        mem = y if reads == "self" else memory
        out = decoder_f(y, mem, decoder, cross_m, self_m, num_heads, num_layers, **knobs)
    logits = linear(out, p, "output")  # (batch, len_tgt, tgt_vocab_size)
    return {
        "logits": lambda: logits,
        "softmax": lambda: torch.softmax(logits, dim=-1),
        "log_softmax": lambda: torch.log_softmax(logits, dim=-1),
        "softmax_positions": lambda: torch.softmax(logits, dim=1),
    }[output]()


def count_parameters_f(
    vocab_size: int,
    d_model: int,
    num_heads: int,
    num_layers: int,
    d_ff: int,
    tie: bool,
    final_norm: bool,
    *,
    biases: bool = True,
    norms: int = 2,  # parameters per feature of one LayerNorm
    heads_multiply: bool = False,
    decoder_like_encoder: bool = False,
    d_ff_4: bool = False,
    one_layer: bool = False,
    tied_copies: int = 1,  # how often a tied matrix is counted
    tied_output_bias: bool = True,
    untied_tables: int = 2,
    final: str = "given",  # "given", "never", "always"
    attention_biases: bool | None = None,  # None: as ``biases``
    ffn_biases: bool | None = None,  # None: as ``biases``
    attention_projections: int = 4,
    decoder_attentions: int = 2,
    decoder_norms: int = 3,
    final_in: tuple[str, ...] = ("encoder", "decoder"),
    untied_output_bias: bool = True,
    ffn_omitted: tuple[str, ...] = (),  # "w_1.bias", "w_2.bias", "w_2.weight"
    qkv_per_head: bool = False,
    final_per_layer: bool = False,
    per_head_projections: int = 0,
    per_head_bias: bool = False,
    encoder_attentions: int = 1,
    encoder_norms: int = 2,
    subtracted: tuple[str, ...] = (),  # "w_1.bias", "w_2.bias", "attention.bias"
    ffn_bias_widths: str = "fd",  # the widths of w_1's and w_2's biases: d_ff (f), d_model (d)
    single_layer: tuple[str, ...] = (),  # the stacks counted with one layer, not num_layers
) -> dict[str, int]:
    """Lesson 09's count_parameters from the formulas: {"embeddings", "encoder", "decoder",
    "output": number of parameters}, with one knob per classic mistake: ``biases`` False
    (no bias counted), ``norms`` (parameters per feature of a LayerNorm), ``heads_multiply``
    (each head given d_model x d_model matrices), ``decoder_like_encoder`` (no
    cross-attention), ``d_ff_4`` (d_ff taken as 4 * d_model), ``one_layer``,
    ``tied_copies`` (how often a tied matrix is counted), ``tied_output_bias`` False,
    ``untied_tables`` (tables counted when untied), ``final`` ("given", "never",
    "always": the final norms). Finer knobs: ``attention_biases`` / ``ffn_biases`` False
    (those biases alone left out), ``attention_projections`` (projections counted per
    attention), ``decoder_attentions`` and ``decoder_norms`` (per decoder layer),
    ``final_in`` (the stacks that get the final norm), ``untied_output_bias`` False (the
    untied output layer's bias left out), ``ffn_omitted`` (single tensors of the
    feed-forward left out: "w_1.bias", "w_2.bias", "w_2.weight"), ``qkv_per_head`` (w_q,
    w_k and w_v counted as d_model x d_head, one head's share, while w_o stays d_model x
    d_model), ``final_per_layer`` (the final norm counted in every layer, not once),
    ``per_head_projections`` (how many of the four projections are counted as d_model x
    d_head, one head's share; ``qkv_per_head`` is 3) with ``per_head_bias`` (their bias
    counted as d_head numbers, not d_model); ``encoder_attentions`` and ``encoder_norms``
    (per encoder layer, as ``decoder_attentions`` and ``decoder_norms``); ``subtracted``
    (biases subtracted where they are added: "w_1.bias", "w_2.bias", "attention.bias");
    ``ffn_bias_widths`` (the sizes counted for w_1's and w_2's biases, "f" for d_ff and
    "d" for d_model: "fd" is right, "ff" sizes w_2's like w_1's); ``single_layer`` (the
    stacks, "encoder" and/or "decoder", counted with one layer instead of num_layers)."""
    d, f, layers = d_model, (4 * d_model if d_ff_4 else d_ff), (1 if one_layer else num_layers)
    attention_bias = biases if attention_biases is None else attention_biases
    ffn_bias = biases if ffn_biases is None else ffn_biases
    attention = attention_projections * (
        d * d * (num_heads if heads_multiply else 1) + (d if attention_bias else 0)
    )
    shrunk = 3 if qkv_per_head else per_head_projections
    attention -= shrunk * d * (d - d // num_heads)
    if per_head_bias and attention_bias:
        attention -= shrunk * (d - d // num_heads)
    width = {"f": f, "d": d}
    ffn = 2 * d * f + ((width[ffn_bias_widths[0]] + width[ffn_bias_widths[1]]) if ffn_bias else 0)
    ffn -= sum({"w_1.bias": 2 * f, "w_2.bias": 2 * d}.get(t, 0) for t in subtracted)
    if "attention.bias" in subtracted and attention_bias:
        attention -= 2 * attention_projections * d
    ffn -= sum({"w_1.bias": f, "w_2.bias": d, "w_2.weight": f * d}[t] for t in ffn_omitted)
    norm = norms * d
    enc_layer = encoder_attentions * attention + ffn + encoder_norms * norm
    dec_layer = (
        attention + ffn + 2 * norm
        if decoder_like_encoder
        else decoder_attentions * attention + ffn + decoder_norms * norm
    )
    has_final = {"given": final_norm, "never": False, "always": True}[final]
    extra = {
        key: norm * (layers if final_per_layer else 1) if has_final and key in final_in else 0
        for key in ("encoder", "decoder")
    }
    table = vocab_size * d
    out_bias = vocab_size if biases else 0
    if tie:
        embeddings = table * min(tied_copies, 2)
        output = (table if tied_copies == 3 else 0) + (out_bias if tied_output_bias else 0)
    else:
        embeddings = untied_tables * table
        output = table + (out_bias if untied_output_bias else 0)
    return {
        "embeddings": embeddings,
        "encoder": (1 if "encoder" in single_layer else layers) * enc_layer + extra["encoder"],
        "decoder": (1 if "decoder" in single_layer else layers) * dec_layer + extra["decoder"],
        "output": output,
    }
