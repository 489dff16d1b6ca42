"""Reference implementation: lesson 07 · The encoder

Generated from the lesson master `solutions/07_encoder/07_encoder.py`
(its answer cells and its cells marked `export=true`) by `make notebooks`.
Edit the master, never this file.
"""

from __future__ import annotations

import torch
from torch import nn

from transformer_course.reference.multi_head_attention import MultiHeadAttention


class LayerNorm(nn.Module):
    """Layer normalisation of each token's feature vector (Ba et al. 2016).

    LayerNorm(d_model, eps=1e-5) has a learned gain `weight` (d_model,), initialised
    to ones, and a learned bias `bias` (d_model,), initialised to zeros: the same
    state-dict keys as nn.LayerNorm.

    forward(x): x (..., d_model) -> (..., d_model). For every token separately, over
    its d_model features: subtract their mean, divide by sqrt(their biased variance
    + eps), then multiply by `weight` and add `bias`. Nothing is averaged over the
    batch or over the positions of a sequence. A float64 x gives a float64 result
    (the float32 parameters promote; nothing casts x down to float32).
    """

    def __init__(self, d_model: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))  # gain
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean = x.mean(dim=-1, keepdim=True)  # (..., 1): one mean per token
        variance = x.var(dim=-1, keepdim=True, unbiased=False)  # (..., 1), biased
        return self.weight * (x - mean) / torch.sqrt(variance + self.eps) + self.bias


def quiz_layer_norm_axis() -> str:
    """Your answer to Question 1: "a", "b", "c" or "d"."""
    return "b"


class PositionwiseFeedForward(nn.Module):
    """The position-wise feed-forward network (paper, section 3.3).

    PositionwiseFeedForward(d_model, d_ff, dropout=0.0): two nn.Linear layers named
    `w_1` (d_model -> d_ff) and `w_2` (d_ff -> d_model), with biases, and
    nn.Dropout(dropout).

    forward(x): x (batch, len, d_model) -> w_2(dropout(relu(w_1(x)))), shape
    (batch, len, d_model). The same weights act on every position separately.
    """

    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.0):
        super().__init__()
        self.w_1 = nn.Linear(d_model, d_ff)
        self.w_2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = torch.relu(self.w_1(x))  # (batch, len, d_ff)
        return self.w_2(self.dropout(hidden))  # (batch, len, d_model)


class EncoderLayer(nn.Module):
    """One encoder layer: self-attention, then the feed-forward network, each wrapped
    in a residual connection and a LayerNorm.

    EncoderLayer(d_model, num_heads, d_ff, dropout=0.0, norm_first=False) has
    `self_attn` = MultiHeadAttention(d_model, num_heads, dropout) (lesson 05),
    `feed_forward` = PositionwiseFeedForward(d_model, d_ff, dropout),
    `norm1`, `norm2` = LayerNorm(d_model), and dropout (p = dropout) on the output
    of each sub-layer before it is added to the residual.

    forward(x, mask=None): x (batch, len, d_model); mask: None or bool, broadcastable
    to (batch, num_heads, len, len), True = may attend (the source padding mask).
    Post-LN (norm_first=False, the paper):
        x = norm1(x + dropout(self_attn(x, x, x, mask)))
        x = norm2(x + dropout(feed_forward(x)))
    Pre-LN (norm_first=True):
        x = x + dropout(self_attn(norm1(x), norm1(x), norm1(x), mask))
        x = x + dropout(feed_forward(norm2(x)))
    Returns (batch, len, d_model).
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
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)
        self.norm1 = LayerNorm(d_model)
        self.norm2 = LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        if self.norm_first:
            h = self.norm1(x)
            x = x + self.dropout(self.self_attn(h, h, h, mask)[0])
            return x + self.dropout(self.feed_forward(self.norm2(x)))
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))
        return self.norm2(x + self.dropout(self.feed_forward(x)))  # (batch, len, d_model)


def copy_attention_into(ours: nn.Module, theirs: nn.MultiheadAttention) -> None:
    """Copy lesson 05's MultiHeadAttention (w_q, w_k, w_v, w_o) into nn.MultiheadAttention,
    which keeps the three input projections in one (3·d_model, d_model) in_proj_weight."""
    with torch.no_grad():
        theirs.in_proj_weight.copy_(torch.cat([ours.w_q.weight, ours.w_k.weight, ours.w_v.weight]))
        theirs.in_proj_bias.copy_(torch.cat([ours.w_q.bias, ours.w_k.bias, ours.w_v.bias]))
        theirs.out_proj.weight.copy_(ours.w_o.weight)
        theirs.out_proj.bias.copy_(ours.w_o.bias)


def copy_feed_forward_into(ours: nn.Module, theirs: nn.Module) -> None:
    """Copy a PositionwiseFeedForward (w_1, w_2) into PyTorch's layer (linear1, linear2)."""
    theirs.linear1.load_state_dict(ours.w_1.state_dict())
    theirs.linear2.load_state_dict(ours.w_2.state_dict())


def torch_encoder_layer(ours: nn.Module, norm_first: bool = False) -> nn.TransformerEncoderLayer:
    """An nn.TransformerEncoderLayer (batch_first, ReLU, dropout 0, eval mode) holding the
    weights of our EncoderLayer `ours`."""
    d_model, d_ff = ours.feed_forward.w_1.in_features, ours.feed_forward.w_1.out_features
    theirs = nn.TransformerEncoderLayer(
        d_model,
        ours.self_attn.num_heads,
        d_ff,
        dropout=0.0,
        batch_first=True,
        norm_first=norm_first,
    )
    copy_attention_into(ours.self_attn, theirs.self_attn)
    copy_feed_forward_into(ours.feed_forward, theirs)
    theirs.norm1.load_state_dict(ours.norm1.state_dict())
    theirs.norm2.load_state_dict(ours.norm2.state_dict())
    return theirs.eval()


class Encoder(nn.Module):
    """A stack of `num_layers` independent EncoderLayers.

    Encoder(num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False,
    final_norm=None): `layers` is an nn.ModuleList of num_layers new EncoderLayer
    objects (each with its own weights); when final_norm is True there is one more
    LayerNorm, `norm`, applied to the output of the last layer. final_norm=None means
    "the same as norm_first": the paper's post-LN stack has none (every layer already
    ends with a LayerNorm), a pre-LN stack needs one. nn.Transformer always adds it:
    Encoder(..., final_norm=True) is its encoder. Without a final norm, `norm` is None.

    forward(x, mask=None): x (batch, len, d_model) through every layer in order, with
    the same mask; returns (batch, len, d_model).
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
            [EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first) for _ in range(num_layers)]
        )
        use_final_norm = norm_first if final_norm is None else final_norm
        self.norm = LayerNorm(d_model) if use_final_norm else None

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        for layer in self.layers:
            x = layer(x, mask)  # (batch, len, d_model)
        return x if self.norm is None else self.norm(x)


def quiz_final_norm() -> str:
    """Your answer to Question 2: "a", "b", "c" or "d"."""
    return "c"
