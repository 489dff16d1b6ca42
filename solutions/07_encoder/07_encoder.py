# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 07 · The encoder
#
# (Draft master: the answer cells hold the contract of lesson 07; the lesson's prose,
# checks and demos are written around them.)

# %% nbgrader={"locked": true, "grade_id": "setup"}
import torch
from torch import nn

# Lesson 05's attention layer, the reference version: later lessons build on the
# reference, so that a slip in your lesson-05 code cannot break this lesson.
from transformer_course.reference.multi_head_attention import MultiHeadAttention


# %% nbgrader={"solution": true, "grade_id": "LayerNorm"}
class LayerNorm(nn.Module):
    """Layer normalisation of each token's feature vector (Ba et al. 2016).

    LayerNorm(d_model, eps=1e-5) has a learned gain `weight` (d_model,), initialised
    to ones, and a learned bias `bias` (d_model,), initialised to zeros: the same
    state-dict keys as nn.LayerNorm.

    forward(x): x (..., d_model) -> (..., d_model). For every token separately, over
    its d_model features: subtract their mean, divide by sqrt(their biased variance
    + eps), then multiply by `weight` and add `bias`. Nothing is averaged over the
    batch or over the positions of a sequence.
    """

    def __init__(self, d_model: int, eps: float = 1e-5):
        super().__init__()
        ### BEGIN SOLUTION
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))  # gain
        self.bias = nn.Parameter(torch.zeros(d_model))
        ### END SOLUTION

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        ### BEGIN SOLUTION
        mean = x.mean(dim=-1, keepdim=True)  # (..., 1): one mean per token
        variance = x.var(dim=-1, keepdim=True, unbiased=False)  # (..., 1), biased
        return self.weight * (x - mean) / torch.sqrt(variance + self.eps) + self.bias
        ### END SOLUTION


# %% nbgrader={"solution": true, "grade_id": "PositionwiseFeedForward"}
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
        ### BEGIN SOLUTION
        self.w_1 = nn.Linear(d_model, d_ff)
        self.w_2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)
        ### END SOLUTION

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        ### BEGIN SOLUTION
        hidden = torch.relu(self.w_1(x))  # (batch, len, d_ff)
        return self.w_2(self.dropout(hidden))  # (batch, len, d_model)
        ### END SOLUTION


# %% nbgrader={"solution": true, "grade_id": "EncoderLayer"}
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
        ### BEGIN SOLUTION
        self.norm_first = norm_first
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)
        self.norm1 = LayerNorm(d_model)
        self.norm2 = LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)
        ### END SOLUTION

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        ### BEGIN SOLUTION
        if self.norm_first:
            h = self.norm1(x)
            x = x + self.dropout(self.self_attn(h, h, h, mask)[0])
            return x + self.dropout(self.feed_forward(self.norm2(x)))
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))
        return self.norm2(x + self.dropout(self.feed_forward(x)))  # (batch, len, d_model)
        ### END SOLUTION


# %% nbgrader={"solution": true, "grade_id": "Encoder"}
class Encoder(nn.Module):
    """A stack of `num_layers` independent EncoderLayers.

    Encoder(num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False,
    final_norm=None): `layers` is an nn.ModuleList of num_layers new EncoderLayer
    objects (each with its own weights); when final_norm is True there is one more
    LayerNorm, `norm`, applied to the output of the last layer. final_norm=None means
    "the same as norm_first": the paper's post-LN stack has none (every layer already
    ends with a LayerNorm), a pre-LN stack needs one. nn.Transformer always adds it:
    Encoder(..., final_norm=True) is its encoder.

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
        ### BEGIN SOLUTION
        self.layers = nn.ModuleList(
            [EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first) for _ in range(num_layers)]
        )
        use_final_norm = norm_first if final_norm is None else final_norm
        self.norm = LayerNorm(d_model) if use_final_norm else None
        ### END SOLUTION

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        ### BEGIN SOLUTION
        for layer in self.layers:
            x = layer(x, mask)  # (batch, len, d_model)
        return x if self.norm is None else self.norm(x)
        ### END SOLUTION
