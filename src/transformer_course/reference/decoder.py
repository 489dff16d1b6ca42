"""Reference implementation: lesson 08 · The decoder

Generated from the lesson master `solutions/08_decoder/08_decoder.py`
(its answer cells and its cells marked `export=true`) by `make notebooks`.
Edit the master, never this file.
"""

from __future__ import annotations

import torch
from torch import nn

from transformer_course.reference.encoder import (
    LayerNorm,
    PositionwiseFeedForward,
    copy_attention_into,
    copy_feed_forward_into,
)
from transformer_course.reference.multi_head_attention import MultiHeadAttention


class DecoderLayer(nn.Module):
    """One decoder layer: masked self-attention, cross-attention, feed-forward, each
    wrapped in a residual connection and a LayerNorm.

    DecoderLayer(d_model, num_heads, d_ff, dropout=0.0, norm_first=False) has
    `self_attn` and `cross_attn` = MultiHeadAttention(d_model, num_heads, dropout),
    `feed_forward` = PositionwiseFeedForward(d_model, d_ff, dropout), `norm1`,
    `norm2`, `norm3` = LayerNorm(d_model), and dropout on each sub-layer's output.

    forward(x, memory, src_mask=None, tgt_mask=None):
        x: (batch, len_tgt, d_model), the decoder's input;
        memory: (batch, len_src, d_model), the encoder's output;
        tgt_mask: bool, broadcastable to (batch, num_heads, len_tgt, len_tgt), True =
            may attend (look-ahead and target padding), for the self-attention;
        src_mask: bool, broadcastable to (batch, num_heads, len_tgt, len_src) (the
            source padding mask), for the cross-attention.
    Cross-attention takes its queries from the decoder (x) and its keys and values
    from the encoder output (memory). Post-LN (norm_first=False, the paper):
        x = norm1(x + dropout(self_attn(x, x, x, tgt_mask)))
        x = norm2(x + dropout(cross_attn(x, memory, memory, src_mask)))
        x = norm3(x + dropout(feed_forward(x)))
    Pre-LN (norm_first=True): x = x + dropout(sublayer(norm_i(x))) for each, with the
    cross-attention's keys and values the (un-normalised) memory.
    Returns (batch, len_tgt, d_model).
    """

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        d_ff: int,
        dropout: float = 0.0,
        norm_first: bool = False,
    ):
        super().__init__()
        self.norm_first = norm_first
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.cross_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)
        self.norm1 = LayerNorm(d_model)
        self.norm2 = LayerNorm(d_model)
        self.norm3 = LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(
        self,
        x: torch.Tensor,
        memory: torch.Tensor,
        src_mask: torch.Tensor | None = None,
        tgt_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        if self.norm_first:
            h = self.norm1(x)
            x = x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])
            h = self.norm2(x)  # queries from the decoder, keys and values from the encoder
            x = x + self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])
            return x + self.dropout(self.feed_forward(self.norm3(x)))
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))
        x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))
        return self.norm3(x + self.dropout(self.feed_forward(x)))  # (batch, len_tgt, d_model)


def torch_decoder_layer(ours: nn.Module, norm_first: bool = False) -> nn.TransformerDecoderLayer:
    """An nn.TransformerDecoderLayer (batch_first, ReLU, dropout 0, eval mode) holding the
    weights of our DecoderLayer `ours` (PyTorch calls the cross-attention multihead_attn)."""
    d_model, d_ff = ours.feed_forward.w_1.in_features, ours.feed_forward.w_1.out_features
    theirs = nn.TransformerDecoderLayer(
        d_model,
        ours.self_attn.num_heads,
        d_ff,
        dropout=0.0,
        batch_first=True,
        norm_first=norm_first,
    )
    copy_attention_into(ours.self_attn, theirs.self_attn)
    copy_attention_into(ours.cross_attn, theirs.multihead_attn)
    copy_feed_forward_into(ours.feed_forward, theirs)
    for name in ("norm1", "norm2", "norm3"):
        getattr(theirs, name).load_state_dict(getattr(ours, name).state_dict())
    return theirs.eval()


def quiz_cross_attention_norm() -> str:
    """Your answer to Question 1: "a", "b", "c" or "d"."""
    return "b"


class Decoder(nn.Module):
    """A stack of `num_layers` independent DecoderLayers.

    Decoder(num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False,
    final_norm=None): `layers` is an nn.ModuleList of new DecoderLayer objects, and
    `norm` a final LayerNorm when final_norm is True (None means "the same as
    norm_first", as for the Encoder; nn.Transformer always has it). Without a final
    norm, `norm` is None.

    forward(x, memory, src_mask=None, tgt_mask=None): x (batch, len_tgt, d_model)
    through every layer in order, each reading the same memory (batch, len_src,
    d_model) and masks; returns (batch, len_tgt, d_model).
    """

    def __init__(
        self,
        num_layers: int,
        d_model: int,
        num_heads: int,
        d_ff: int,
        dropout: float = 0.0,
        norm_first: bool = False,
        final_norm: bool | None = None,
    ):
        super().__init__()
        self.layers = nn.ModuleList(
            [DecoderLayer(d_model, num_heads, d_ff, dropout, norm_first) for _ in range(num_layers)]
        )
        use_final_norm = norm_first if final_norm is None else final_norm
        self.norm = LayerNorm(d_model) if use_final_norm else None

    def forward(
        self,
        x: torch.Tensor,
        memory: torch.Tensor,
        src_mask: torch.Tensor | None = None,
        tgt_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        for layer in self.layers:
            x = layer(x, memory, src_mask, tgt_mask)  # (batch, len_tgt, d_model)
        return x if self.norm is None else self.norm(x)


def quiz_decoder_masks() -> str:
    """Your answer to Question 2: "a", "b", "c" or "d"."""
    return "b"
