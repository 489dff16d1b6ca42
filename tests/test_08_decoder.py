"""Lesson 08 (the decoder): classic mistakes are rejected with their own message by the
visible and the hidden checks, correct variants pass both, and the reference agrees with
PyTorch's nn.TransformerDecoderLayer and nn.TransformerDecoder (weights copied, dropout
off), including the two properties the masks exist for."""

from __future__ import annotations

import copy
import functools
import math

import pytest
import torch
import torch.nn.functional as F
import torch.utils.checkpoint
from common import (
    Correct,
    Mistake,
    copy_attention,
    copy_norm,
    lesson_tests,
    randomize,
    stack_base,
)
from torch import nn

from transformer_course.checking import Checker
from transformer_course.checking.attention_weights import expect_attention_weights
from transformer_course.checks.decoder import (
    check_Decoder,
    check_DecoderLayer,
)
from transformer_course.reference import decoder as ref
from transformer_course.reference.encoder import EncoderLayer, LayerNorm, PositionwiseFeedForward
from transformer_course.reference.masking import (
    decoder_self_attention_mask,
    look_ahead_mask,
    padding_mask,
)
from transformer_course.reference.multi_head_attention import MultiHeadAttention

pytestmark = pytest.mark.usefixtures("no_fastpath")


# ================================================================================= DecoderLayer
class LayerBase(nn.Module):
    """What a learner's __init__ looks like (on the reference building blocks)."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__()
        self.norm_first = norm_first
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.cross_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)
        self.norm1 = LayerNorm(d_model)
        self.norm2 = LayerNorm(d_model)
        self.norm3 = LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)


def layer_variant(
    name,
    *,
    cross=("x", "memory", "memory"),
    masks=("tgt", "src"),
    mode=None,
    residual="normal",
    dropout_at="output",
    norms=("norm1", "norm2", "norm3"),
    order=("self", "cross", "ffn"),
    memory_norm=False,
    self_kv="x",
):
    """A learner's DecoderLayer with one thing changed (each keyword is one classic mistake)."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        causal = torch.tril(torch.ones(x.shape[1], x.shape[1], dtype=torch.bool))
        given = {"tgt": tgt_mask, "src": src_mask, "none": None, "causal": causal}
        given["inverted_tgt"] = None if tgt_mask is None else ~tgt_mask
        self_mask, cross_mask = given[masks[0]], given[masks[1]]
        pre = self.norm_first if mode is None else mode == "pre"

        def self_block(h):
            kv = h if self_kv == "x" else memory
            return self.self_attn(h, kv, kv, self_mask)[0]

        def cross_block(h):
            mem = getattr(self, norms[1])(memory) if memory_norm and pre else memory
            sources = {"x": h, "memory": mem}
            return self.cross_attn(*(sources[s] for s in cross), cross_mask)[0]

        blocks = {"self": self_block, "cross": cross_block, "ffn": self.feed_forward}
        for part, norm_name in zip(order, norms):
            norm, sublayer = getattr(self, norm_name), blocks[part]
            if pre:
                h = norm(x)
                y = sublayer(h) if dropout_at == "missing" else self.dropout(sublayer(h))
                x = y if residual == "none" else (h if residual == "from_normed" else x) + y
            else:
                y = sublayer(x)
                if residual == "after_norm":
                    x = x + norm(self.dropout(y))
                elif residual == "none":
                    x = norm(self.dropout(y))
                elif dropout_at == "after_norm":
                    x = self.dropout(norm(x + y))
                elif dropout_at == "on_sum":
                    x = norm(self.dropout(x + y))
                elif dropout_at == "missing":
                    x = norm(x + y)
                else:
                    x = norm(x + self.dropout(y))
        return x

    return type(name, (LayerBase,), {"forward": forward})


# ---------------------------------------------------------------- correct
class LayerTorchStyle(LayerBase):
    """PyTorch's structure: _sa_block, _mha_block, _ff_block, each with its own dropout."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.dropout1, self.dropout2, self.dropout3 = (nn.Dropout(dropout) for _ in range(3))

    def _sa_block(self, x, mask):
        return self.dropout1(self.self_attn(x, x, x, mask)[0])

    def _mha_block(self, x, memory, mask):
        return self.dropout2(self.cross_attn(x, memory, memory, mask)[0])

    def _ff_block(self, x):
        return self.dropout3(self.feed_forward(x))

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask)
            x = x + self._mha_block(self.norm2(x), memory, src_mask)
            return x + self._ff_block(self.norm3(x))
        x = self.norm1(x + self._sa_block(x, tgt_mask))
        x = self.norm2(x + self._mha_block(x, memory, src_mask))
        return self.norm3(x + self._ff_block(x))


class LayerAnnotatedStyle(LayerBase):
    """The Annotated Transformer's DecoderLayer: three SublayerConnections (pre-LN,
    x + dropout(sublayer(norm(x)))), with `m = memory` read by the second; post-LN for
    norm_first=False. (Its `src_attn` is this contract's `cross_attn`.)"""

    def connect(self, x, norm, sublayer):
        if self.norm_first:
            return x + self.dropout(sublayer(norm(x)))
        return norm(x + self.dropout(sublayer(x)))

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        m = memory
        x = self.connect(x, self.norm1, lambda h: self.self_attn(h, h, h, tgt_mask)[0])
        x = self.connect(x, self.norm2, lambda h: self.cross_attn(h, m, m, src_mask)[0])
        return self.connect(x, self.norm3, self.feed_forward)


class LayerD2LStyle(LayerBase):
    """d2l's TransformerDecoderBlock: AddNorm(X, Y) = LayerNorm(dropout(Y) + X); it builds the
    look-ahead mask itself from the length of its input (here: and-ed with tgt_mask, which
    changes nothing when tgt_mask already holds it)."""

    def add_norm(self, norm, x, y):
        return norm(self.dropout(y) + x)

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        causal = torch.tril(torch.ones(x.shape[1], x.shape[1], dtype=torch.bool))
        self_mask = causal if tgt_mask is None else tgt_mask & causal
        if self.norm_first:
            return LayerTorchStyle.forward(self_as_torch(self), x, memory, src_mask, self_mask)
        y = self.add_norm(self.norm1, x, self.self_attn(x, x, x, self_mask)[0])
        z = self.add_norm(self.norm2, y, self.cross_attn(y, memory, memory, src_mask)[0])
        return self.add_norm(self.norm3, z, self.feed_forward(z))


def self_as_torch(layer):
    """Borrow LayerTorchStyle's blocks for a LayerBase (one dropout module for all three)."""
    layer.dropout1 = layer.dropout2 = layer.dropout3 = layer.dropout
    layer._sa_block = functools.partial(LayerTorchStyle._sa_block, layer)
    layer._mha_block = functools.partial(LayerTorchStyle._mha_block, layer)
    layer._ff_block = functools.partial(LayerTorchStyle._ff_block, layer)
    return layer


class LayerKeywordMasks(LayerBase):
    """Masks passed by keyword, functional dropout, a loop over (norm, sub-layer) pairs."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.p = dropout

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        blocks = [
            (self.norm1, lambda h: self.self_attn(h, h, h, mask=tgt_mask)[0]),
            (
                self.norm2,
                lambda h: self.cross_attn(query=h, key=memory, value=memory, mask=src_mask)[0],
            ),
            (self.norm3, self.feed_forward),
        ]
        for norm, sublayer in blocks:
            if self.norm_first:
                x = x + F.dropout(sublayer(norm(x)), self.p, training=self.training)
            else:
                x = norm(x + F.dropout(sublayer(x), self.p, training=self.training))
        return x


LAYER_CORRECT = [
    ref.DecoderLayer,
    LayerTorchStyle,
    LayerAnnotatedStyle,
    LayerD2LStyle,
    LayerKeywordMasks,
    layer_variant("PlainOwnCode"),
]


# ---------------------------------------------------------------- mistakes
class LayerTorchParameterOrder(LayerBase):
    """forward(x, memory, tgt_mask, src_mask): nn.TransformerDecoderLayer's order."""

    def forward(self, x, memory, tgt_mask=None, src_mask=None):
        return ref.DecoderLayer.forward(self, x, memory, src_mask, tgt_mask)


class LayerSignatureMasksRenamed(ref.DecoderLayer):
    """forward(x, memory, tgt_mask=None, src_mask=None) whose body passes each mask to its own
    attention by name: the same family as LayerTorchParameterOrder (the parameters' order
    alone wrong), written the other way round."""

    def forward(self, x, memory, tgt_mask=None, src_mask=None):
        return super().forward(x, memory, src_mask=src_mask, tgt_mask=tgt_mask)


class LayerAttentionsInEachOthersPlace(ref.DecoderLayer):
    """The two attention modules used in each other's place, through local names: the
    family of blind14g-dl-attention-modules-swapped, written another way."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        attend_to_self, attend_to_memory = self.cross_attn, self.self_attn
        if self.norm_first:
            h = self.norm1(x)
            x = x + self.dropout(attend_to_self(h, h, h, tgt_mask)[0])
            h = self.norm2(x)
            x = x + self.dropout(attend_to_memory(h, memory, memory, src_mask)[0])
            return x + self.dropout(self.feed_forward(self.norm3(x)))
        x = self.norm1(x + self.dropout(attend_to_self(x, x, x, tgt_mask)[0]))
        x = self.norm2(x + self.dropout(attend_to_memory(x, memory, memory, src_mask)[0]))
        return self.norm3(x + self.dropout(self.feed_forward(x)))


class LayerPreCrossReadsLayerInput(ref.DecoderLayer):
    """Pre-LN: the cross-attention's queries are norm2 of the layer's input, the
    self-attention's residual sum kept in another variable and never read by norm2: the
    family of ho2-enc-prenorm-ffn-reads-input on the decoder's second sub-layer."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if not self.norm_first:
            return super().forward(x, memory, src_mask, tgt_mask)
        h = self.norm1(x)
        stream = x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])
        queries = self.norm2(x)
        stream = stream + self.dropout(self.cross_attn(queries, memory, memory, src_mask)[0])
        return stream + self.dropout(self.feed_forward(self.norm3(stream)))


class LayerSelfAttentionWithoutDropout(ref.DecoderLayer):
    """The self-attention's output added without its residual dropout, in both branches:
    the family of blind12g-dl-pre-ln-cross-without-dropout on the first sub-layer."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if self.norm_first:
            h = self.norm1(x)
            x = x + self.self_attn(h, h, h, tgt_mask)[0]
            h = self.norm2(x)
            x = x + self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])
            return x + self.dropout(self.feed_forward(self.norm3(x)))
        x = self.norm1(x + self.self_attn(x, x, x, tgt_mask)[0])
        x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))
        return self.norm3(x + self.dropout(self.feed_forward(x)))


class LayerCrossWithoutDropout(ref.DecoderLayer):
    """The cross-attention's output added without its dropout, in both branches (round 10:
    one sub-layer's dropout forgotten was told to check the earlier exercises)."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if self.norm_first:
            h = self.norm1(x)
            x = x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])
            h = self.norm2(x)
            x = x + self.cross_attn(h, memory, memory, src_mask)[0]
            return x + self.dropout(self.feed_forward(self.norm3(x)))
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))
        x = self.norm2(x + self.cross_attn(x, memory, memory, src_mask)[0])
        return self.norm3(x + self.dropout(self.feed_forward(x)))


class LayerCrossAttentionBuiltWithoutDropout(ref.DecoderLayer):
    """cross_attn = MultiHeadAttention(d_model, num_heads): its attention weights never
    dropped (the class of blind10g-enc-layer-attention-without-dropout, accepted before)."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.cross_attn = type(self.cross_attn)(d_model, num_heads)


class LayerPreLNSelfOutputAddedToItself(ref.DecoderLayer):
    """Pre-LN: x overwritten by the self-attention's output, then added to itself (round
    10, blind10d-declayer-pre-ln-self-attention-output-added-to-itself: only located)."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if not self.norm_first:
            return super().forward(x, memory, src_mask, tgt_mask)
        h = self.norm1(x)
        x = self.self_attn(h, h, h, tgt_mask)[0]
        x = x + self.dropout(x)
        h = self.norm2(x)
        x = x + self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])
        return x + self.dropout(self.feed_forward(self.norm3(x)))


class LayerNoDropoutAnywhere(LayerBase):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, 0.0, norm_first)

    forward = ref.DecoderLayer.forward


class AlwaysDropout(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.p = p

    def forward(self, x):
        return F.dropout(x, self.p)  # training=True, whatever the mode


class LayerAlwaysDropout(LayerBase):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.dropout = AlwaysDropout(dropout)

    forward = ref.DecoderLayer.forward


class LayerDropoutsInTuple(LayerBase):
    """One residual dropout per sub-layer, held in a tuple: not registered, so eval() never
    reaches them (the class of blind13g-el-dropouts-in-plain-list)."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.sublayer_dropouts = tuple(nn.Dropout(dropout) for _ in range(3))

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        drop_self, drop_cross, drop_ffn = self.sublayer_dropouts
        if self.norm_first:
            h = self.norm1(x)
            x = x + drop_self(self.self_attn(h, h, h, tgt_mask)[0])
            h = self.norm2(x)
            x = x + drop_cross(self.cross_attn(h, memory, memory, src_mask)[0])
            return x + drop_ffn(self.feed_forward(self.norm3(x)))
        x = self.norm1(x + drop_self(self.self_attn(x, x, x, tgt_mask)[0]))
        x = self.norm2(x + drop_cross(self.cross_attn(x, memory, memory, src_mask)[0]))
        return self.norm3(x + drop_ffn(self.feed_forward(x)))


class LayerKeepProbDropouts(LayerTorchStyle):
    """PyTorch's three dropouts, each built with the keep probability 1 - dropout as its
    rate (the class of blind13g-ffn-dropout-as-keep-probability, one exercise on)."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        keep_prob = 1.0 - dropout
        self.dropout1, self.dropout2, self.dropout3 = (nn.Dropout(keep_prob) for _ in range(3))


class LayerMemoryByShape(ref.DecoderLayer):
    """The encoder output remembered per shape, on the first call that brings that shape,
    and read from there afterwards: a later batch of the same shape cross-attends to a
    stale memory (the class of blind13g-dl-memory-kept-from-first-call, accepted before:
    every call of a case had the same memory)."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.memory_by_shape = {}

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        memory = self.memory_by_shape.setdefault(tuple(memory.shape), memory)
        return super().forward(x, memory, src_mask, tgt_mask)


class LayerFirstOutputKept(ref.DecoderLayer):
    """The output of the first call kept and returned again for inputs of the same shape."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if getattr(self, "_output", None) is None or self._output.shape != x.shape:
            self._output = super().forward(x, memory, src_mask, tgt_mask)
        return self._output


class LayerSharedAttention(LayerBase):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.cross_attn = self.self_attn

    forward = ref.DecoderLayer.forward


class LayerForgotIndex(LayerBase):
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)))
        x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)))
        return self.norm3(x + self.dropout(self.feed_forward(x)))


class LayerNotImplemented(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__()
        raise NotImplementedError()


class LayerNoCrossResidual(LayerBase):
    """Post-LN with the cross-attention's residual alone missing."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))
        x = self.norm2(self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))
        return self.norm3(x + self.dropout(self.feed_forward(x)))


class LayerCrossResidualFromMemory(LayerBase):
    """Post-LN whose cross-attention residual adds memory, not x (blind7b-dec-cross-residual-
    from-memory; before: told to pass src_mask to the cross-attention, which it does)."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))
        x = self.norm2(memory + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))
        return self.norm3(x + self.dropout(self.feed_forward(x)))


class LayerCrossReadsLayerInput(LayerBase):
    """Post-LN that writes the self-attention sub-layer to a new variable and goes on with
    the stale x (blind7b-dec-cross-queries-from-layer-input; before: "does not read the
    output of `self.norm1`", without saying what it reads)."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if self.norm_first:
            return ref.DecoderLayer.forward(self, x, memory, src_mask, tgt_mask)
        a = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))  # noqa: F841
        x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))
        return self.norm3(x + self.dropout(self.feed_forward(x)))


class LayerCrossHalved(LayerBase):
    """Post-LN whose cross-attention output is halved before the sum: in no table."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))
        x = self.norm2(x + 0.5 * self.cross_attn(x, memory, memory, src_mask)[0])
        return self.norm3(x + self.dropout(self.feed_forward(x)))


C = check_DecoderLayer


class LayerCrossQueriesFromSelfOutput(ref.DecoderLayer):
    """Post-LN: the cross-attention's queries are the self-attention's raw output."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if self.norm_first:
            return super().forward(x, memory, src_mask, tgt_mask)
        y = self.dropout(self.self_attn(x, x, x, tgt_mask)[0])
        x = self.norm1(x + y)
        x = self.norm2(x + self.dropout(self.cross_attn(y, memory, memory, src_mask)[0]))
        return self.norm3(x + self.dropout(self.feed_forward(x)))


class LayerPreFeedForwardUnnormed(ref.DecoderLayer):
    """Pre-LN: the feed-forward reads x, not norm3(x)."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if not self.norm_first:
            return super().forward(x, memory, src_mask, tgt_mask)
        h = self.norm1(x)
        x = x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])
        h = self.norm2(x)
        x = x + self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])
        return x + self.dropout(self.feed_forward(x))


class LayerFeedForwardBeforeCross(ref.DecoderLayer):
    """Post-LN: the feed-forward sub-layer runs before the cross-attention."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if self.norm_first:
            return super().forward(x, memory, src_mask, tgt_mask)
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))
        x = self.norm3(x + self.dropout(self.feed_forward(x)))
        return self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))


class LayerFeedForwardDiscarded(LayerBase):
    """Computes the feed-forward but adds dropout(x) (blind6b-dec-ffn-output-discarded;
    before: located at the residual sum only)."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if self.norm_first:
            return ref.DecoderLayer.forward(self, x, memory, src_mask, tgt_mask)
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))
        x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))
        self.feed_forward(x)
        return self.norm3(x + self.dropout(x))


class LayerDefaultPreLN(ref.DecoderLayer):
    """norm_first defaults to True (mutant-DecoderLayer-9; before: accepted, every check
    passed norm_first explicitly)."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)


class LayerReturnsCrossWeights(ref.DecoderLayer):
    """Returns (x, cross-attention weights) (blind8d-declayer-returns-cross-weights;
    before: the check itself crashed on the tuple, AttributeError: no attribute 'shape')."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        out = super().forward(x, memory, src_mask, tgt_mask)
        return out, self.cross_attn(out, memory, memory, src_mask)[1]


class LayerPreStaleNormForCross(ref.DecoderLayer):
    """Pre-LN reusing norm1's copy for the cross-attention's queries, norm2 never run
    (blind9d-declayer-pre-ln-stale-h-for-cross; before: "check the step right after
    `self.self_attn`")."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if not self.norm_first:
            return super().forward(x, memory, src_mask, tgt_mask)
        normed = self.norm1(x)
        x = x + self.dropout(self.self_attn(normed, normed, normed, tgt_mask)[0])
        x = x + self.dropout(self.cross_attn(normed, memory, memory, src_mask)[0])
        return x + self.dropout(self.feed_forward(self.norm3(x)))


class LayerPreCrossResidualIntoQueries(ref.DecoderLayer):
    """Pre-LN adding the stream to the cross-attention's queries, cross_attn(norm2(h) + h),
    and no residual after it: the family of blind11g-el-pre-ln-residual-inside-sublayer on
    the decoder's middle sub-layer."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if not self.norm_first:
            return super().forward(x, memory, src_mask, tgt_mask)
        h = self.norm1(x)
        x = x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])
        q = x + self.norm2(x)
        x = self.dropout(self.cross_attn(q, memory, memory, src_mask)[0])
        return x + self.dropout(self.feed_forward(self.norm3(x)))


class LayerPreFeedForwardReadsNormPlusStream(ref.DecoderLayer):
    """Pre-LN whose feed-forward reads norm3(h2) + h2 and keeps its residual."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if not self.norm_first:
            return super().forward(x, memory, src_mask, tgt_mask)
        h = self.norm1(x)
        x = x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])
        h = self.norm2(x)
        x = x + self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])
        return x + self.dropout(self.feed_forward(x + self.norm3(x)))


class LayerPreCrossQueriesRaw(ref.DecoderLayer):
    """Pre-LN giving the cross-attention the un-normalised stream as its queries (norm2's
    copy computed, then not passed) (blind11g-dl-pre-ln-cross-query-unnormalised; before:
    "`self.cross_attn` reads h itself", which slot not said)."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if not self.norm_first:
            return super().forward(x, memory, src_mask, tgt_mask)
        h = self.norm1(x)
        x = x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])
        _ = self.norm2(x)
        x = x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0])
        return x + self.dropout(self.feed_forward(self.norm3(x)))


class LayerPreSelfQueriesRaw(ref.DecoderLayer):
    """Pre-LN self-attention whose keys and values are norm1(x) but whose queries are x:
    the same family (one slot un-normalised), on another sub-layer, in no case."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if not self.norm_first:
            return super().forward(x, memory, src_mask, tgt_mask)
        h = self.norm1(x)
        x = x + self.dropout(self.self_attn(x, h, h, tgt_mask)[0])
        h = self.norm2(x)
        x = x + self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])
        return x + self.dropout(self.feed_forward(self.norm3(x)))


class LayerPreCrossAddedTwice(ref.DecoderLayer):
    """Pre-LN adding the cross-attention's output twice, h + c + c: a residual sum with a
    wrong factor (mutant-DecoderLayer-3/16's family; before: "check the step right after")."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if not self.norm_first:
            return super().forward(x, memory, src_mask, tgt_mask)
        h = self.norm1(x)
        x = x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])
        h = self.norm2(x)
        c = self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])
        x = x + c + c
        return x + self.dropout(self.feed_forward(self.norm3(x)))


class LayerPostFeedForwardSubtracted(ref.DecoderLayer):
    """Post-LN norm3(x - dropout(feed_forward(x)))."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if self.norm_first:
            return super().forward(x, memory, src_mask, tgt_mask)
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))
        x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))
        return self.norm3(x - self.dropout(self.feed_forward(x)))


class LayerPostMemoryNormalised(ref.DecoderLayer):
    """Post-LN cross-attention on norm2(memory) (quiz option (a) carried to post-LN; before:
    the fallback "check the order of the steps")."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if self.norm_first:
            return super().forward(x, memory, src_mask, tgt_mask)
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))
        m = self.norm2(memory)
        x = self.norm2(x + self.dropout(self.cross_attn(x, m, m, src_mask)[0]))
        return self.norm3(x + self.dropout(self.feed_forward(x)))


class LayerPostMemoryThroughNorm3(ref.DecoderLayer):
    """Post-LN cross-attention whose keys and values are norm3(memory): the same family
    (memory changed on its way to the cross-attention), another norm."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if self.norm_first:
            return super().forward(x, memory, src_mask, tgt_mask)
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))
        memory = self.norm3(memory)
        x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))
        return self.norm3(x + self.dropout(self.feed_forward(x)))


class LayerMemoryThroughNumpy(ref.DecoderLayer):
    """memory taken through numpy on its way in (to "clean" it): the values are right, the
    encoder gets no gradient from the decoder's loss"""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        memory = torch.from_numpy(memory.detach().cpu().numpy())
        return super().forward(x, memory, src_mask, tgt_mask)


class LayerMemoryDroppedOnce(ref.DecoderLayer):
    """post-LN: one dropout mask on memory, shared by the keys and the values"""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if self.norm_first:
            return super().forward(x, memory, src_mask, tgt_mask)
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))
        enc = self.dropout(memory)
        x = self.norm2(x + self.dropout(self.cross_attn(x, enc, enc, src_mask)[0]))
        return self.norm3(x + self.dropout(self.feed_forward(x)))


class LayerMemoryKeptLastPositions(ref.DecoderLayer):
    """keeps memory's last len_tgt positions (and the mask's), to make the lengths agree"""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        n = x.shape[1]
        if memory.shape[1] > n:
            memory = memory[:, memory.shape[1] - n :]
            src_mask = None if src_mask is None else src_mask[..., -n:]
        return super().forward(x, memory, src_mask, tgt_mask)


class LayerCrossAttendsLastTwoSourcePositions(ref.DecoderLayer):
    """The family of blind26b-dl-cross-attends-last-source-position: the last two source
    positions as keys and values, no src_mask (it no longer fits)."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        return super().forward(x, memory[:, -2:], None, tgt_mask)


class LayerCrossAttendsFirstSourcePosition(ref.DecoderLayer):
    """The same family: the first source position alone (a summary token's state)."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        return super().forward(x, memory[:, :1], None, tgt_mask)


class LayerPreNormalisesItsOutput(ref.DecoderLayer):
    """Pre-LN ending with norm1 of the last residual sum: the same family (a post-LN step
    added at the end of a pre-LN layer), with another norm."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        return (
            self.norm1(super().forward(x, memory, src_mask, tgt_mask))
            if self.norm_first
            else (super().forward(x, memory, src_mask, tgt_mask))
        )


class LayerSelfAttentionOnlyWithTargetMask(ref.DecoderLayer):
    """The whole self-attention sub-layer under `if tgt_mask is not None:`: the family of
    blind20b-dl-cross-attention-only-with-src-mask, on the other mask and sub-layer."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if self.norm_first:
            if tgt_mask is not None:
                h = self.norm1(x)
                x = x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])
            h = self.norm2(x)
            x = x + self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])
            return x + self.dropout(self.feed_forward(self.norm3(x)))
        if tgt_mask is not None:
            x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))
        x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))
        return self.norm3(x + self.dropout(self.feed_forward(x)))


class LayerFeedForwardDropoutDefaultRate(ref.DecoderLayer):
    """The feed-forward block's inner dropout built as nn.Dropout(), PyTorch's default rate
    0.5: the family of blind20b-dl-dropout-default-half, inside a sub-module."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.feed_forward.dropout = nn.Dropout()


class LayerFixedDropoutRate(ref.DecoderLayer):
    """Every attention and the residual dropout built with fixed rates: the family of
    "a dropout whose rate is not the argument", on the decoder layer."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.dropout = nn.Dropout(0.2)


class LayerFlattensSourceMask(ref.DecoderLayer):
    """src_mask viewed as (batch, len_src) before the cross-attention: the family of the
    mask reshaped on the way, on the decoder's cross-attention."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if src_mask is not None:
            src_mask = src_mask.view(src_mask.shape[0], -1)
        return super().forward(x, memory, src_mask, tgt_mask)


class LayerPostEndsWithNorm1(ref.DecoderLayer):
    """Post-LN returning norm1 of the last norm's output: the same family (a norm run once
    more at the end), another norm."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        out = super().forward(x, memory, src_mask, tgt_mask)
        return out if self.norm_first else self.norm1(out)


class LayerSrcMaskOfLastSentence(ref.DecoderLayer):
    """src_mask[-1:] before the cross-attention: the last sentence's source padding mask for
    every sentence (the family of blind24b-dec-layer-src-mask-of-first-sentence, another
    row: one row of a padding mask broadcast over the batch)."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if src_mask is not None:
            src_mask = src_mask[-1:]  # (1, 1, 1, len_src)
        return super().forward(x, memory, src_mask, tgt_mask)


class DecoderSrcMaskOfFirstSentence(ref.Decoder):
    """src_mask[:1] in the stack: the first sentence's source padding mask, unpadded in the
    check's batches, for every sentence of every layer (same family, in the stack)."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if src_mask is not None:
            src_mask = src_mask[:1]  # (1, 1, 1, len_src)
        return super().forward(x, memory, src_mask, tgt_mask)


class LayerPostCrossReadsRawSum(ref.DecoderLayer):
    """Post-LN: the self-attention's residual sum kept as s, normalised into x, but the
    cross-attention's queries read s while its residual adds x (the family of
    blind24b-enc-layer-post-ln-ffn-reads-raw-sum, on the decoder's second sub-layer)."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if self.norm_first:
            return super().forward(x, memory, src_mask, tgt_mask)
        s = x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0])
        x = self.norm1(s)
        x = self.norm2(x + self.dropout(self.cross_attn(s, memory, memory, src_mask)[0]))
        return self.norm3(x + self.dropout(self.feed_forward(x)))


class LayerPostCrossDropsItsSum(ref.DecoderLayer):
    """Post-LN: the cross-attention's dropout on the residual sum, norm2(dropout(x +
    cross(x))), the other two lines right."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if self.norm_first:
            return super().forward(x, memory, src_mask, tgt_mask)
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))
        x = self.norm2(self.dropout(x + self.cross_attn(x, memory, memory, src_mask)[0]))
        return self.norm3(x + self.dropout(self.feed_forward(x)))


class LayerPostCrossNormInsideResidual(ref.DecoderLayer):
    """Post-LN: the cross-attention's residual added after its norm, x + norm2(cross(x))."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if self.norm_first:
            return super().forward(x, memory, src_mask, tgt_mask)
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))
        x = x + self.norm2(self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))
        return self.norm3(x + self.dropout(self.feed_forward(x)))


LAYER_MISTAKES = [
    Mistake(
        C,
        LayerPostCrossDropsItsSum,
        r"the cross-attention sub-layer drops its whole residual sum, norm2\(dropout\(x \+ "
        r"cross_attn\(x\)\)\)",
    ),
    Mistake(
        C,
        LayerPostCrossNormInsideResidual,
        r"The residual sum around `self\.cross_attn` is taken after `self\.norm2`",
    ),
    Mistake(
        check_DecoderLayer,
        LayerPostCrossReadsRawSum,
        r"`self\.cross_attn` reads the un-normalised residual sum x \+ self_attn\(\.\.\.\), "
        r"the input of `self\.norm1`, not its output, while the residual around "
        r"`self\.cross_attn` adds the normalised stream",
    ),
    # round 27: one sentence's src_mask broadcast to every sentence, told apart on a probe
    # batch whose sentences are all padded differently
    Mistake(
        check_DecoderLayer,
        LayerSrcMaskOfLastSentence,
        r"Every sentence of the batch is masked with the last sentence's padding mask: the "
        r"batch axis of `src_mask` is indexed or reduced away \(src_mask\[-1\]",
    ),
    # round 24: a mask inverted on its way to an attention, read from the mask each
    # attention receives (blind21b-dl-cross-mask-inverted was told to pass src_mask)
    Mistake(
        C,
        layer_variant("SelfMaskInverted", masks=("inverted_tgt", "src")),
        r"`self\.self_attn` gets tgt_mask inverted \(~tgt_mask\): every True turned False",
    ),
    Mistake(
        check_DecoderLayer,
        LayerPostEndsWithNorm1,
        r"the layer returns the last norm's output normalised once more, by `self\.norm1`",
    ),
    Mistake(
        check_DecoderLayer,
        LayerFlattensSourceMask,
        r"`self\.cross_attn` gets (a mask of shape|src_mask with [^:]+: shape) \([0-9, ]+\), "
        r"where the module was given src_mask of shape \([0-9, ]+\)(: the same values, "
        r"reshaped on the way|\. Pass it on as it is)",
    ),
    Mistake(
        check_DecoderLayer,
        LayerSelfAttentionOnlyWithTargetMask,
        r"Your forward skips a sub-layer when a mask is None \(with tgt_mask=None, "
        r"`self\.self_attn` never runs",
    ),
    Mistake(
        check_DecoderLayer,
        LayerFeedForwardDropoutDefaultRate,
        r"`self\.feed_forward` \(PositionwiseFeedForward\) was built with the fixed rate 0\.5 "
        r"in place of the dropout argument \(or its dropouts were built as nn\.Dropout\(\)",
    ),
    Mistake(
        check_DecoderLayer,
        LayerFixedDropoutRate,
        r"yours changes from one call to the next\. .*`self\.dropout` is nn\.Dropout\(p=0\.[12]\): "
        r"built with a fixed rate in place of the dropout argument",
    ),
    Mistake(
        check_DecoderLayer,
        LayerPreNormalisesItsOutput,
        r"your pre-LN layer returns `self\.norm1` of the last sum instead of the sum itself",
    ),
    Mistake(
        check_DecoderLayer,
        LayerMemoryThroughNumpy,
        r"is right, but no gradient flows back from it into `memory` .*The encoder then never "
        r"learns",
    ),
    Mistake(
        check_DecoderLayer,
        LayerMemoryDroppedOnce,
        r"The keys and values of `self\.cross_attn` are dropout\(memory\) \(train mode",
    ),
    Mistake(
        check_DecoderLayer,
        LayerCrossAttendsLastTwoSourcePositions,
        r"The keys and values of `self\.cross_attn` are memory cut to its last 2 positions "
        r"\(memory\[:, -2:\]",
    ),
    Mistake(
        check_DecoderLayer,
        LayerCrossAttendsFirstSourcePosition,
        r"The keys and values of `self\.cross_attn` are memory cut to its first source position "
        r"alone \(memory\[:, :1\]\): a single key and value",
    ),
    Mistake(
        check_DecoderLayer,
        LayerMemoryKeptLastPositions,
        r"The keys and values of `self\.cross_attn` are memory cut to its last \d positions "
        r"\(memory\[:, -\d:\], the target's length\)",
    ),
    Mistake(
        check_DecoderLayer,
        LayerPostMemoryNormalised,
        r"The keys and values of `self\.cross_attn` are norm2\(memory\), not memory as given",
    ),
    Mistake(
        check_DecoderLayer,
        LayerPostMemoryThroughNorm3,
        r"The keys and values of `self\.cross_attn` are norm3\(memory\), not memory as given",
    ),
    Mistake(
        check_DecoderLayer,
        LayerPreCrossAddedTwice,
        r"The input of `self\.norm3` is h \+ 2 \* cross_attn\(\.\.\.\) .*the residual sum "
        r"around `self\.cross_attn` has a wrong sign or factor",
    ),
    Mistake(
        check_DecoderLayer,
        LayerPostFeedForwardSubtracted,
        r"The input of `self\.norm3` is x - feed_forward\(x\): the residual sum around "
        r"`self\.feed_forward` has a wrong sign or factor",
    ),
    Mistake(
        check_DecoderLayer,
        LayerPreCrossResidualIntoQueries,
        r"residual around `self\.cross_attn` is added to its input instead of its output: "
        r"`self\.cross_attn` reads norm2\(h\) \+ h, .* no residual after it",
    ),
    Mistake(
        check_DecoderLayer,
        LayerPreFeedForwardReadsNormPlusStream,
        r"`self\.feed_forward` reads norm3\(h2\) \+ h2: the stream is added to the "
        r"normalised copy before the sub-layer as well as after it",
    ),
    Mistake(
        check_DecoderLayer,
        LayerPreCrossQueriesRaw,
        r"The queries of `self\.cross_attn` are h itself, un-normalised, not norm2\(h\)",
    ),
    Mistake(
        check_DecoderLayer,
        LayerPreSelfQueriesRaw,
        r"The queries of `self\.self_attn` are x itself, un-normalised, not norm1\(x\)",
    ),
    Mistake(
        check_DecoderLayer,
        LayerPreStaleNormForCross,
        r"`self\.cross_attn` reads the same normalised copy as `self\.self_attn`, norm1\(x\)",
    ),
    Mistake(
        check_DecoderLayer,
        LayerReturnsCrossWeights,
        r"should be a Tensor.*Yours returns a tuple of 2 \(Tensor, Tensor\): return the output "
        r"alone",
    ),
    Mistake(
        check_DecoderLayer,
        LayerDefaultPreLN,
        r"built with its defaults, gives another result.*Your default is norm_first=True",
    ),
    Mistake(
        C,
        LayerCrossReadsLayerInput,
        r"The cross-attention \(`self\.cross_attn`\) reads the layer's input x, not the output of "
        r"`self\.norm1`: the result of the self-attention sub-layer \(`self\.self_attn`\) is "
        r"discarded",
    ),
    Mistake(
        C,
        LayerCrossResidualFromMemory,
        r"although your cross-attention gives those positions no weight.*memory reaches the "
        r"output by another path",
    ),
    Mistake(
        C,
        LayerFeedForwardDiscarded,
        r"The output of `self\.feed_forward` never reaches the result: yours gives what "
        r"norm3\(x \+ dropout\(x\)\) gives",
    ),
    # two masks moved at once (blind6b-dec-causal-mask-in-cross): only the self-attention's
    # was named before
    Mistake(
        C,
        layer_variant("SelfUnmaskedCrossTgt", masks=("none", "tgt")),
        r"Two masks in the wrong places: your self-attention gets no mask .* cross-attention gets "
        r"tgt_mask",
    ),
    Mistake(
        C,
        LayerCrossQueriesFromSelfOutput,
        r"The cross-attention sub-layer's queries \(`self\.cross_attn`'s first input\) is the raw "
        r"output of `self\.self_attn`, the self-attention's output before its residual sum",
    ),
    Mistake(
        C,
        LayerPreFeedForwardUnnormed,
        # the stream after two residuals is h2, defined, not "x" (the layer's input)
        r"`self\.feed_forward` reads h2 itself, not norm3\(h2\) \(where h2 = h \+ cross_attn",
    ),
    Mistake(
        C,
        LayerPreCrossReadsLayerInput,
        r"input of `self\.norm2` is the stream from before `self\.self_attn` .*"
        r"\(so `self\.cross_attn` works on norm2\(x\)",
    ),
    Mistake(C, LayerAttentionsInEachOthersPlace, r"Your two attention modules are swapped"),
    Mistake(
        C,
        layer_variant("CrossAttentionFirst", order=("cross", "self", "ffn")),
        # the memory read first by the right module: the order, not swapped modules
        r"Your layer runs the cross-attention before the self-attention",
    ),
    Mistake(
        C,
        LayerFeedForwardBeforeCross,
        r"sub-layers run in the order self_attn, feed_forward, cross_attn",
    ),
    Mistake(C, LayerNoCrossResidual, r"output of `self\.cross_attn` is not added back"),
    Mistake(
        C,
        layer_variant("Norm2Twice", norms=("norm1", "norm2", "norm2")),
        r"`self\.feed_forward` sub-layer uses `self\.norm2` instead of its own `self\.norm3`",
    ),
    Mistake(C, LayerCrossHalved, r"residual sum around `self\.cross_attn`"),
    # where cross-attention's queries, keys and values come from: every swap
    Mistake(C, layer_variant("CrossIsSelf", cross=("x", "x", "x")), r"never reads memory"),
    Mistake(
        C,
        layer_variant("IllustratedGuide", cross=("memory", "memory", "x")),
        r"queries and keys from the encoder output.*popular illustrated guide",
    ),
    Mistake(C, layer_variant("RolesReversed", cross=("memory", "x", "x")), r"roles are reversed"),
    Mistake(
        C,
        layer_variant("KeysFromX", cross=("x", "x", "memory")),
        r"keys come from x \(the decoder\) and its values from memory",
    ),
    Mistake(
        C,
        layer_variant("ValuesFromX", cross=("x", "memory", "x")),
        r"keys come from memory but its values from x",
    ),
    Mistake(
        C,
        layer_variant("QueriesKeysSwapped", cross=("memory", "x", "memory")),
        r"queries from memory and its keys from x",
    ),
    Mistake(
        C, layer_variant("CrossNeverReadsX", cross=("memory", "memory", "memory")), r"never reads x"
    ),
    # masks routed to the wrong attention, or missing
    Mistake(
        C, layer_variant("MasksSwapped", masks=("src", "tgt")), r"masks go to the wrong attentions"
    ),
    # the masks exchanged: in the signature (right by keyword) or in the body (wrong by
    # keyword too), told apart by a call by keyword (before: both said at once)
    Mistake(
        C,
        LayerTorchParameterOrder,
        r"Your forward's signature takes the masks in the other order, forward\(x, memory, "
        r"tgt_mask, src_mask\).*called by keyword, src_mask=\.\.\., tgt_mask=\.\.\., your "
        r"layer is right",
    ),
    Mistake(
        C,
        LayerSignatureMasksRenamed,
        r"Your forward's signature takes the masks in the other order",
    ),
    Mistake(
        C,
        layer_variant("MasksSwappedInBody", masks=("src", "tgt")),
        r"The masks go to the wrong attentions inside forward: the self-attention gets src_mask "
        r"and the cross-attention tgt_mask, the two exchanged \(called by keyword too",
    ),
    Mistake(
        C,
        LayerCrossAttentionBuiltWithoutDropout,
        r"`layer\.cross_attn` called alone should return only the bias.*`self\.cross_attn` "
        r"\(MultiHeadAttention\) was built without the dropout argument",
    ),
    Mistake(
        C, layer_variant("NoLookAhead", masks=("none", "src")), r"self-attention ignores tgt_mask"
    ),
    Mistake(
        C,
        layer_variant("NoSourcePadding", masks=("tgt", "none")),
        r"cross-attention ignores src_mask",
    ),
    Mistake(C, layer_variant("NoMasks", masks=("none", "none")), r"ignores both masks"),
    Mistake(
        C,
        layer_variant("OwnCausalMask", masks=("causal", "src")),
        r"builds a look-ahead mask of its own",
    ),
    Mistake(
        C, layer_variant("SourceMaskTwice", masks=("src", "src")), r"self-attention gets src_mask"
    ),
    Mistake(
        C, layer_variant("TargetMaskTwice", masks=("tgt", "tgt")), r"cross-attention gets tgt_mask"
    ),
    # the structure of the layer
    Mistake(C, layer_variant("MemoryNormalised", memory_norm=True), r"memory is normalised too"),
    Mistake(
        C,
        layer_variant("SelfReadsMemory", self_kv="memory"),
        r"self-attention takes its keys and values from memory",
    ),
    Mistake(
        C,
        layer_variant("CrossFirst", order=("cross", "self", "ffn")),
        r"cross-attention before the self-attention",
    ),
    Mistake(
        C,
        layer_variant("NormsTwoThree", norms=("norm1", "norm3", "norm2")),
        r"LayerNorms in the wrong places.*norm3 for the cross-attention",
    ),
    Mistake(
        C,
        layer_variant("NormsReversed", norms=("norm3", "norm2", "norm1")),
        r"LayerNorms in the wrong places",
    ),
    Mistake(
        C, layer_variant("OneNorm", norms=("norm1", "norm1", "norm1")), r"norm1 for every sub-layer"
    ),
    Mistake(
        C, layer_variant("AlwaysPreLN", mode="pre"), r"normalises before the sub-layer \(pre-LN\)"
    ),
    Mistake(C, layer_variant("AlwaysPostLN", mode="post"), r"Yours computes post-LN"),
    Mistake(
        C, layer_variant("ResidualAfterNorm", residual="after_norm"), r"residual after the norm"
    ),
    Mistake(C, layer_variant("NoResidual", residual="none"), r"no residual connection"),
    Mistake(
        C,
        layer_variant("ResidualFromNormed", residual="from_normed"),
        r"residual adds the normalised x",
    ),
    # dropout
    Mistake(
        C,
        layer_variant("DropoutMissing", dropout_at="missing"),
        r"sub-layer outputs still reach the residual sum",
    ),
    Mistake(
        C,
        layer_variant("DropoutAfterNorm", dropout_at="after_norm"),
        r"drops the normalised result",
    ),
    Mistake(
        C,
        layer_variant("DropoutOnSum", dropout_at="on_sum"),
        r"reference gives\. In train mode with dropout=1\.0 your layer drops the residual sum",
    ),
    Mistake(C, LayerNoDropoutAnywhere, r"same as in eval mode: dropout is never applied"),
    Mistake(
        C,
        LayerPreLNSelfOutputAddedToItself,
        r"The input of `self\.norm2` is twice the output of `self\.self_attn`: that output was "
        r"added to itself",
    ),
    Mistake(
        C,
        LayerSelfAttentionWithoutDropout,
        r"the output of `self\.self_attn` still reaches the residual sum: the self-attention "
        r"sub-layer's output is added without its dropout",
    ),
    Mistake(
        C,
        LayerCrossWithoutDropout,
        r"the output of `self\.cross_attn` still reaches the residual sum: the cross-attention "
        r"sub-layer's output is added without its dropout",
    ),
    Mistake(C, LayerAlwaysDropout, r"In eval mode your output changes from one call to the next"),
    Mistake(
        C,
        LayerKeepProbDropouts,
        r"drops every sub-layer's output when built with dropout=0\.0, and not when built with "
        r"dropout=1\.0.*keep_prob",
    ),
    # state kept between calls (round 14): a later call with another memory
    Mistake(
        C,
        LayerMemoryByShape,
        r"called after the calls above on the same module: .*freshly built module.*right "
        r"result.*what the memory of the first call gives.*stale memory",
    ),
    Mistake(C, LayerFirstOutputKept, r"state kept on the module.*It is the first call's result"),
    Mistake(
        C,
        LayerDropoutsInTuple,
        r"^(?![\s\S]*training=self\.training)[\s\S]*In eval mode your output changes from "
        r"one call to the next: your LayerDropoutsInTuple calls 3 nn\.Dropout modules that "
        r"are not among its registered sub-modules[\s\S]*nn\.ModuleList",
    ),
    # objects and return values
    Mistake(C, LayerSharedAttention, r"one and the same object"),
    Mistake(C, LayerForgotIndex, r"returns a pair, \(output, weights\)"),
    Mistake(C, LayerNotImplemented, r"not implemented yet"),
]


# ====================================================================================== Decoder
StackBase = stack_base(ref.DecoderLayer)


def stack_class(name, forward, base=StackBase):
    return type(name, (base,), {"forward": forward})


def _loop(self, x, memory, src_mask=None, tgt_mask=None):
    for layer in self.layers:
        x = layer(x, memory, src_mask, tgt_mask)
    return self.finish(x)


def _src_mask_cat_per_head(self, x, memory, src_mask=None, tgt_mask=None):
    """One source mask per head by concatenating the batch num_heads times, then viewed
    as (batch, num_heads, 1, len_src): the heads of a sentence get other sentences' masks."""
    if src_mask is not None:
        batch, heads = x.shape[0], self.layers[0].cross_attn.num_heads
        src_mask = src_mask.expand(batch, 1, 1, -1)  # (batch, 1, 1, len_src)
        src_mask = torch.cat([src_mask] * heads).view(batch, heads, 1, -1)
    return _loop(self, x, memory, src_mask, tgt_mask)


class DecoderAnnotatedClones(StackBase):
    """clones(): copy.deepcopy of one layer N times; nn.Identity when there is no final norm."""

    def __init__(
        self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False, final_norm=None
    ):
        super().__init__(1, d_model, num_heads, d_ff, dropout, norm_first, final_norm)
        layer = ref.DecoderLayer(d_model, num_heads, d_ff, dropout, norm_first)
        self.layers = nn.ModuleList([copy.deepcopy(layer) for _ in range(num_layers)])
        self.norm = self.norm or nn.Identity()

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for layer in self.layers:
            x = layer(x, memory, src_mask=src_mask, tgt_mask=tgt_mask)
        return self.norm(x)


class DecoderDefaultSrcMaskFromMemory(ref.Decoder):
    """src_mask=None replaced by an all-True mask sized from memory: the same as no mask."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if src_mask is None:
            src_mask = torch.ones(memory.size(0), 1, 1, memory.size(1), dtype=torch.bool)
        return super().forward(x, memory, src_mask, tgt_mask)


DECODER_CORRECT = [
    ref.Decoder,
    DecoderAnnotatedClones,
    DecoderDefaultSrcMaskFromMemory,
    # layers that build the look-ahead mask themselves (d2l's block, accepted by the layer's
    # check): called without tgt_mask the stack's output is causal, its masks passed on as
    # they came
    stack_class("DecoderOnD2LLayers", _loop, base=stack_base(LayerD2LStyle)),
    stack_class(
        "DecoderReduce",
        lambda self, x, memory, src_mask=None, tgt_mask=None: self.finish(
            functools.reduce(lambda h, layer: layer(h, memory, src_mask, tgt_mask), self.layers, x)
        ),
    ),
]


class DecoderMeanOfLayerOutputs(ref.Decoder):
    """The mean of every layer's output returned (layer averaging), not the last one's."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        outputs = []
        for layer in self.layers:
            x = layer(x, memory, src_mask, tgt_mask)
            outputs.append(x)
        x = torch.stack(outputs).mean(dim=0)  # (batch, len_tgt, d_model)
        return x if self.norm is None else self.norm(x)


class DecoderEveryLayerOutput(ref.Decoder):
    """Every layer's output kept and stacked (the class of blind10g-encoder-returns-every-
    layer-output: the contract's shape restated before)."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        outputs = []
        for layer in self.layers:
            x = layer(x, memory, src_mask, tgt_mask)
            outputs.append(x if self.norm is None else self.norm(x))
        return torch.stack(outputs)


class DecoderSharedLayer(StackBase):
    def __init__(
        self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False, final_norm=None
    ):
        super().__init__(num_layers, d_model, num_heads, d_ff, dropout, norm_first, final_norm)
        self.layers = nn.ModuleList([self.layers[0] for _ in range(num_layers)])

    forward = _loop


class DecoderPythonList(StackBase):
    def __init__(
        self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False, final_norm=None
    ):
        nn.Module.__init__(self)
        self.layers = [
            ref.DecoderLayer(d_model, num_heads, d_ff, dropout, norm_first)
            for _ in range(num_layers)
        ]
        use = norm_first if final_norm is None else final_norm
        self.norm = LayerNorm(d_model) if use else None

    forward = _loop


class DecoderOneLayerReused(StackBase):
    """One DecoderLayer held as `self.layer` and applied num_layers times."""

    def __init__(
        self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False, final_norm=None
    ):
        nn.Module.__init__(self)
        self.layer = ref.DecoderLayer(d_model, num_heads, d_ff, dropout, norm_first)
        self.num_layers = num_layers
        use = norm_first if final_norm is None else final_norm
        self.norm = LayerNorm(d_model) if use else None

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for _ in range(self.num_layers):
            x = self.layer(x, memory, src_mask, tgt_mask)
        return self.finish(x)


class DecoderBlocksName(StackBase):
    """num_layers layers in an nn.ModuleList named `blocks` instead of `layers`."""

    def __init__(
        self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False, final_norm=None
    ):
        super().__init__(num_layers, d_model, num_heads, d_ff, dropout, norm_first, final_norm)
        self.blocks = self.layers
        del self.layers

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for layer in self.blocks:
            x = layer(x, memory, src_mask, tgt_mask)
        return self.finish(x)


class DecoderIgnoresNormFirst(StackBase):
    def __init__(
        self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False, final_norm=None
    ):
        super().__init__(num_layers, d_model, num_heads, d_ff, dropout, norm_first, final_norm)
        self.layers = nn.ModuleList(
            [ref.DecoderLayer(d_model, num_heads, d_ff, dropout) for _ in range(num_layers)]
        )

    forward = _loop


def _call_each(call):
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for layer in self.layers:
            x = call(layer, x, memory, src_mask, tgt_mask)
        return self.finish(x)

    return forward


S = check_Decoder


class DecoderFinalNormOr(ref.Decoder):
    """`final_norm or norm_first`: an explicit final_norm=False on a pre-LN stack still
    gets a final norm (no case had that combination before)."""

    def __init__(self, num_layers, d_model, *args, norm_first=False, final_norm=None, **kw):
        super().__init__(
            num_layers, d_model, *args, norm_first=norm_first, final_norm=final_norm, **kw
        )
        if self.norm is None and norm_first:
            self.norm = LayerNorm(d_model)


class DecoderAlwaysFinalNorm(StackBase):
    def __init__(
        self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False, final_norm=None
    ):
        super().__init__(num_layers, d_model, num_heads, d_ff, dropout, norm_first, True)


def _discards_outputs(self, x, memory, src_mask=None, tgt_mask=None):
    """layer(x, ...) without x = ...: every result thrown away, the input returned
    (blind8d-decoder-discards-layer-outputs; before: "cut off from the module's parameters
    ... torch.no_grad(), .detach()")."""
    for layer in self.layers:
        layer(x, memory, src_mask, tgt_mask)
    return self.finish(x)


class DecoderDropsLastOutput(StackBase):
    """A dropout of its own on the last layer's output (functional, at the layers' rate)."""

    def __init__(
        self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False, final_norm=None
    ):
        super().__init__(num_layers, d_model, num_heads, d_ff, dropout, norm_first, final_norm)
        self.rate = dropout

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for layer in self.layers:
            x = layer(x, memory, src_mask, tgt_mask)
        return self.finish(torch.nn.functional.dropout(x, self.rate, self.training))


class DecoderSequential(nn.Module):
    """The layers in an nn.Sequential, called with every argument
    (blind9d-decoder-sequential-several-inputs; before: the raw TypeError)."""

    def __init__(self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False, **kw):
        super().__init__()
        self.layers = nn.Sequential(
            *(
                ref.DecoderLayer(d_model, num_heads, d_ff, dropout, norm_first)
                for _ in range(num_layers)
            )
        )
        final = kw.get("final_norm")
        self.norm = LayerNorm(d_model) if (norm_first if final is None else final) else None

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.layers(x, memory, src_mask, tgt_mask)
        return x if self.norm is None else self.norm(x)


def _memory_normalised(self, x, memory, src_mask=None, tgt_mask=None):
    if self.norm is not None:
        memory = self.norm(memory)
    for layer in self.layers:
        x = layer(x, memory, src_mask, tgt_mask)
    return self.finish(x)


class DecoderDefaultPreLN(ref.Decoder):
    """norm_first defaults to True (the stack twin of mutant-DecoderLayer-9)."""

    def __init__(self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=True, **kw):
        super().__init__(num_layers, d_model, num_heads, d_ff, dropout, norm_first, **kw)


class DecoderMemoryChained(ref.Decoder):
    """Each layer after the first reads the previous layer's output as memory: the target
    leaks through the cross-attention although every self-attention gets tgt_mask (before:
    "The self-attention must get tgt_mask", a cause the call's arguments ruled out)."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for layer in self.layers:
            x = layer(x, memory, src_mask, tgt_mask)
            memory = x
        return x if self.norm is None else self.norm(x)


class DecoderTgtMaskFirstLayerOnly(ref.Decoder):
    """Round 32: tgt_mask reaches the first layer only (set to None after it): the family
    'a mask applied to part of the stack', read off what each self-attention receives."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for layer in self.layers:
            x = layer(x, memory, src_mask, tgt_mask)
            tgt_mask = None
        return x if self.norm is None else self.norm(x)


class DecoderTgtMaskFirstTwoLayers(ref.Decoder):
    """The family of blind28b-dec-look-ahead-first-layer-only: tgt_mask handed to the
    first two layers, None to the rest (a condition on the layer's index)."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for index, layer in enumerate(self.layers):
            x = layer(x, memory, src_mask, tgt_mask if index < 2 else None)
        return x if self.norm is None else self.norm(x)


class DecoderTgtMaskLastLayerOnly(ref.Decoder):
    """Round 32: tgt_mask given to the last layer only."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        last = len(self.layers) - 1
        for i, layer in enumerate(self.layers):
            x = layer(x, memory, src_mask, tgt_mask if i == last else None)
        return x if self.norm is None else self.norm(x)


class DecoderMemoryFromFirstLayer(ref.Decoder):
    """The first layer's output kept as the memory of every later layer: the same family."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for i, layer in enumerate(self.layers):
            x = layer(x, memory, src_mask, tgt_mask)
            if i == 0:
                memory = x
        return x if self.norm is None else self.norm(x)


class DecoderSummedOverPositions(ref.Decoder):
    """Sums the stack's output over the target positions, one vector per sentence: the
    family of blind20b-enc-mean-pooled-output on the decoder, with a sum."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        return super().forward(x, memory, src_mask, tgt_mask).sum(dim=1)  # (batch, d_model)


class DecoderLayersWithoutDropout(ref.Decoder):
    """The stack's layers built without the dropout argument (their default, 0.0)."""

    def __init__(
        self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False, final_norm=None
    ):
        super().__init__(num_layers, d_model, num_heads, d_ff, dropout, norm_first, final_norm)
        self.layers = nn.ModuleList(
            [
                ref.DecoderLayer(d_model, num_heads, d_ff, norm_first=norm_first)
                for _ in range(num_layers)
            ]
        )


class DecoderLookAheadWhenNone(ref.Decoder):
    """tgt_mask=None replaced by a look-ahead mask of its own before the loop (the class of
    blind13g-dec-causal-mask-when-none, accepted before: every case gave a tgt_mask)."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if tgt_mask is None:
            tgt_mask = look_ahead_mask(x.shape[1])[None, None]  # (1, 1, len_tgt, len_tgt)
        return super().forward(x, memory, src_mask, tgt_mask)


class DecoderDefaultSrcMaskFromTarget(ref.Decoder):
    """src_mask=None replaced by an all-True mask cut from the target x, so sized with the
    target's length: right while the two lengths are equal (the class of
    blind19c-dec-default-src-mask-target-length, accepted before)."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if src_mask is None:
            src_mask = torch.ones_like(x[..., 0], dtype=torch.bool)[:, None, None, :]
        return super().forward(x, memory, src_mask, tgt_mask)


class DecoderTgtMaskTransposed(ref.Decoder):
    """The stack hands its layers tgt_mask transposed (the family of
    blind12n-dl-tgt-mask-transposed: a mask read as (key, query))."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if tgt_mask is not None:
            tgt_mask = tgt_mask.mT
        return super().forward(x, memory, src_mask, tgt_mask)


class DecoderSrcMaskTruthiness(ref.Decoder):
    """`src_mask if src_mask else None`: the tensor's truth value for "was it given" (the
    family of blind12n-enc-if-mask-truthiness, a conditional expression)."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for layer in self.layers:
            x = layer(x, memory, src_mask if src_mask else None, tgt_mask)
        return x if self.norm is None else self.norm(x)


class DecoderLastMemoryRow(ref.Decoder):
    """memory[-1] for "the encoder's last output": the last sentence of the batch (the
    family of blind12n-dec-memory-indexed-per-layer)."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for layer in self.layers:
            x = layer(x, memory[-1], src_mask, tgt_mask)
        return x if self.norm is None else self.norm(x)


class DecoderSrcMaskLastLayerOnly(ref.Decoder):
    """src_mask passed to the last layer only (the family of
    blind17g-dec-src-mask-dropped-after-first-layer: some layers get no source mask)."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for i, layer in enumerate(self.layers):
            last = i == len(self.layers) - 1
            x = layer(x, memory, src_mask if last else None, tgt_mask)
        return x if self.norm is None else self.norm(x)


class DecoderFirstRowCut(ref.Decoder):
    """The output's first position cut off, out[:, 1:] (the family of
    blind19e-dec-target-shifted-inside, told the shapes alone)."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        return super().forward(x, memory, src_mask, tgt_mask)[:, 1:]


class DecoderFirstPositionOnly(ref.Decoder):
    """The first position alone, out[:, 0] (the family of
    blind15g-dec-returns-last-position-only)."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        return super().forward(x, memory, src_mask, tgt_mask)[:, 0]


class DecoderMemoryKept(ref.Decoder):
    """The stack keeps the memory of its first call for every later one."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if not hasattr(self, "kept_memory"):
            self.kept_memory = memory
        return super().forward(x, self.kept_memory, src_mask, tgt_mask)


class DecoderFinalNormFeedForwardWide(ref.Decoder):
    """The final norm sized like the feed-forward's hidden layer (round 20, blind17g)."""

    def __init__(self, num_layers, d_model, num_heads, d_ff, *args, **kw):
        super().__init__(num_layers, d_model, num_heads, d_ff, *args, **kw)
        if self.norm is not None:
            self.norm = LayerNorm(d_ff)


class DecoderStopsEarlyInTraining(ref.Decoder):
    """The loop broken off at random while training (a stochastic-depth variant, the rate
    the layers' dropout): the family of blind24b-dec-layerdrop-with-dropout-rate, with
    `break` for `continue`."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for layer in self.layers:
            if self.training and torch.rand(()).item() < layer.dropout.p:
                break
            x = layer(x, memory, src_mask, tgt_mask)
        return x if self.norm is None else self.norm(x)


DECODER_MISTAKES = [
    Mistake(
        S,
        DecoderStopsEarlyInTraining,
        r"In train mode your stack skips whole layers: `layers\.0`, `layers\.1` never ran",
    ),
    Mistake(
        S,
        DecoderSrcMaskOfFirstSentence,
        r"Every sentence of the batch is masked with the first sentence's padding mask",
    ),
    Mistake(
        S,
        DecoderSrcMaskLastLayerOnly,
        r"`layers\.0\.cross_attn`, `layers\.1\.cross_attn` get no mask, while "
        r"`layers\.2\.cross_attn` gets src_mask: it is set to None \(or not passed on\) for some "
        r"layers",
    ),
    Mistake(
        S,
        DecoderLastMemoryRow,
        r"`layers\.0\.cross_attn` gets as its key memory\[(\d)\], shape \(\d, \d+\): one "
        r"sentence's memory, row \1 of the batch axis",
    ),
    Mistake(
        S,
        DecoderSrcMaskTruthiness,
        r"Boolean value of Tensor.*\n`if src_mask` asks whether the tensor itself is true.*"
        r"write `if src_mask is not None`\.",
    ),
    Mistake(
        S,
        DecoderTgtMaskTransposed,
        r"`layers\.0\.self_attn` gets tgt_mask transposed, its last two axes \(queries, keys\) "
        r"swapped",
    ),
    Mistake(
        S,
        DecoderFirstRowCut,
        r"should have shape \(\d, (\d), \d+\), but it has shape .* Your output is the right "
        r"output without its first position: its \d rows are the reference's last \d of \1",
    ),
    Mistake(
        S,
        DecoderFirstPositionOnly,
        r"Your output is the right output at the first position alone, x\[:, 0\] of the result",
    ),
    Mistake(
        S,
        DecoderDefaultSrcMaskFromTarget,
        r"source and target of different lengths\) raised RuntimeError.*src_mask of shape "
        r"\(2, 1, 1, (\d)\).*Its last axis .* is \1, which is x\.size\(1\) here.*where "
        r"memory\.size\(1\), the source length, belongs",
    ),
    Mistake(
        S,
        DecoderFinalNormFeedForwardWide,
        r"norm\.weight has shape \(\d+,\), expected \(\d+,\)\. Its size \d+ is d_ff, where "
        r"d_model \(\d+\) belongs",
    ),
    Mistake(
        S,
        DecoderLookAheadWhenNone,
        r"both masks left to their default, None: yours gives what the look-ahead mask gives.*"
        r"builds its own look-ahead mask when tgt_mask is None",
    ),
    Mistake(S, DecoderMemoryKept, r"freshly built module.*stale memory"),
    Mistake(
        S,
        DecoderSummedOverPositions,
        r"right result summed over axis 1 \(target position, size \d+\), \.sum\(dim=1\)",
    ),
    Mistake(
        S,
        DecoderLayersWithoutDropout,
        r"`self\.layers\[0\]` and `self\.layers\[1\]` \(DecoderLayer\) were built without "
        r"the dropout argument \(it is not passed on\)",
    ),
    Mistake(
        S,
        DecoderTgtMaskFirstLayerOnly,
        r"`layers\.1\.self_attn`, `layers\.2\.self_attn` get no mask \(None\), while "
        r"`layers\.0\.self_attn` gets tgt_mask.* Only the first layer gets it: the later "
        r"layers \(layers\.1, layers\.2\) attend without it",
    ),
    Mistake(
        S,
        DecoderTgtMaskFirstTwoLayers,
        r"Only layers 0, 1 get it: the later layers \(layers\.2\) attend without it, to every "
        r"position tgt_mask forbids",
    ),
    Mistake(
        S,
        DecoderTgtMaskLastLayerOnly,
        r"`layers\.0\.self_attn`.* no mask \(None\), while `layers\.\d\.self_attn` gets "
        r"tgt_mask",
    ),
    Mistake(
        S,
        DecoderMemoryChained,
        r"looks into the future, although every self-attention gets tgt_mask as it should: "
        r"`layers\.1\.cross_attn` gets keys and values that are not memory",
    ),
    Mistake(
        S,
        DecoderMemoryFromFirstLayer,
        r"although every self-attention gets tgt_mask as it should: `layers\.1\.cross_attn` "
        r"gets keys and values that are not memory",
    ),
    Mistake(S, DecoderDropsLastOutput, r"what a dropout of the stream itself gives"),
    Mistake(
        S,
        DecoderDefaultPreLN,
        r"built with its defaults, gives another result.*Your default is norm_first=True",
    ),
    Mistake(
        S,
        stack_class("DiscardsLayerOutputs", _discards_outputs),
        # with a final norm (the hidden run's first case) the layers are told unchained
        r"^(?![\s\S]*no_grad)[\s\S]*(is its input `x` itself, unchanged[\s\S]*"
        r"without keeping what it returns|not chained[\s\S]*x = layer\(x)",
    ),
    # a stack of layers whose cross-attention residual adds memory: the property is told
    # from the layers' own cross-attentions (blind7b-dec-cross-residual-from-memory)
    Mistake(
        S,
        stack_class("MemoryResidualLayers", _loop, base=stack_base(LayerCrossResidualFromMemory)),
        r"although your cross-attention gives those positions no weight.*memory reaches the "
        r"output by another path",
    ),
    # an off-by-one loop (the decoder twin of blind6b-encoder-skips-last-layer), told apart
    # from a return inside the loop by the three-layer case
    Mistake(
        S,
        stack_class(
            "LoopOneShort",
            lambda self, x, m, s=None, t=None: _loop(
                type("_", (), {"layers": self.layers[:-1], "finish": self.finish})(), x, m, s, t
            ),
        ),
        r"Your loop stops one layer early: the last layer, layers\[num_layers - 1\], never runs",
    ),
    Mistake(S, DecoderFinalNormOr, r"unexpected: \['norm\.bias', 'norm\.weight'\]"),
    Mistake(
        S,
        stack_class(
            "NotChained",
            lambda self, x, memory, src_mask=None, tgt_mask=None: self.finish(
                [layer(x, memory, src_mask, tgt_mask) for layer in self.layers][-1]
            ),
        ),
        r"feeds every layer the stack's input x instead of the previous layer's output",
    ),
    # two mistakes at once (round 10): the final norm's keys were named, the unchained
    # layers not; now the stack is checked again with the learner's final norm
    Mistake(
        S,
        stack_class(
            "NotChainedAlwaysFinalNorm",
            lambda self, x, memory, src_mask=None, tgt_mask=None: self.finish(
                [layer(x, memory, src_mask, tgt_mask) for layer in self.layers][-1]
            ),
            base=DecoderAlwaysFinalNorm,
        ),
        # the visible run meets a post-LN stack first, where only the final norm was told
        # before; the hidden run a pre-LN one (its final norm is right there)
        r"feeds every layer the stack's input x",
    ),
    # round 10 (blind10d-decoder-indexes-layer-output): a raw error from split_heads before
    Mistake(
        S,
        stack_class(
            "IndexesLayerOutput",
            _call_each(lambda layer, x, m, s, t: layer(x, m, s, t)[0]),
        ),
        r"layers\[1\] received shape \(\d+, \d+\), where it should get what layers\[0\] "
        r"returned.*The batch axis is gone",
    ),
    # round 10: a residual around each whole layer was told "does not receive layers[0]'s
    # output", read as layers not chained
    Mistake(
        S,
        stack_class(
            "ResidualAroundLayers",
            lambda self, x, m, s=None, t=None: self.finish(
                functools.reduce(lambda h, layer: h + layer(h, m, s, t), self.layers, x)
            ),
        ),
        r"layers\[1\] receives layers\[0\]'s input plus its output: an? (extra )?residual connection",
    ),
    # round 24 (blind21b-dec-skip-connection-around-stack was told "not layers[2]'s output"
    # and "no final norm"): a stream the stack adds back itself, named from the recorded
    # layer inputs: the stack's input around the whole stack (here through the final norm
    # of a pre-LN stack), or added after every layer (a skip from the bottom)
    Mistake(
        S,
        stack_class(
            "SkipFromInputIntoFinalNorm",
            lambda self, x, m, s=None, t=None: self.finish(
                x + functools.reduce(lambda h, layer: layer(h, m, s, t), self.layers, x)
            ),
        ),
        r"(output is|final norm receives) layers\[\d\]'s output plus the stack's input x: an extra "
        r"skip connection added by the stack itself around the whole stack",
    ),
    Mistake(
        S,
        stack_class(
            "InputAddedAfterEveryLayer",
            lambda self, x, m, s=None, t=None: self.finish(
                functools.reduce(lambda h, layer: layer(h, m, s, t) + x, self.layers, x)
            ),
        ),
        r"layers\[1\] receives layers\[0\]'s output plus the stack's input x: the stack adds "
        r"its input back after every layer",
    ),
    Mistake(
        S,
        stack_class(
            "SumsLayers",
            lambda self, x, memory, src_mask=None, tgt_mask=None: self.finish(
                sum(layer(x, memory, src_mask, tgt_mask) for layer in self.layers)
            ),
        ),
        r"layers\[1\] receives the stack's input x, not layers\[0\]'s output",
    ),
    Mistake(
        S,
        stack_class(
            "NormEveryLayerAndEnd",
            lambda self, x, m, s=None, t=None: self.finish(
                functools.reduce(lambda h, layer: self.finish(layer(h, m, s, t)), self.layers, x)
            ),
        ),
        r"(layers\[1\] receives the final norm of layers\[0\]'s output|final norm applied "
        r"twice to layers\[0\]'s output): the final norm runs once",
    ),
    Mistake(
        S,
        stack_class(
            "NormBeforeLoop",
            lambda self, x, m, s=None, t=None: functools.reduce(
                lambda h, layer: layer(h, m, s, t), self.layers, self.finish(x)
            ),
        ),
        r"layers\[0\] receives the stack's input x normalised by the final norm: self\.norm is "
        r"applied before the first layer",
    ),
    Mistake(S, DecoderSharedLayer, r"one layer object appended N times"),
    Mistake(S, DecoderEveryLayerOutput, r"every layer's output, stacked"),
    Mistake(S, DecoderMeanOfLayerOutputs, r"The stack's output is the mean of every layer"),
    Mistake(S, DecoderPythonList, r"plain Python list does not register"),
    Mistake(S, DecoderBlocksName, r"registered, but under other names \(`blocks\.0`"),
    Mistake(S, DecoderOneLayerReused, r"weights of one layer only, under `layer\.\*`"),
    Mistake(S, DecoderIgnoresNormFirst, r"norm_first is not passed on to the layers"),
    Mistake(
        S,
        stack_class(
            "SrcMaskInvertedForLayers",
            _call_each(lambda layer, x, m, s, t: layer(x, m, None if s is None else ~s, t)),
        ),
        r"`layers\.0\.cross_attn` gets src_mask inverted \(~src_mask\)",
    ),
    Mistake(
        S,
        stack_class("NoSrcMask", _call_each(lambda layer, x, m, s, t: layer(x, m, None, t))),
        r"does not pass src_mask on",
    ),
    Mistake(
        S,
        stack_class("NoTgtMask", _call_each(lambda layer, x, m, s, t: layer(x, m, s))),
        r"does not pass tgt_mask on",
    ),
    Mistake(
        S,
        stack_class("NoMasks", _call_each(lambda layer, x, m, s, t: layer(x, m))),
        r"passes neither mask on",
    ),
    Mistake(
        S,
        stack_class("TorchOrder", _call_each(lambda layer, x, m, s, t: layer(x, m, t, s))),
        r"masks to its layers in the wrong order",
    ),
    Mistake(
        S,
        stack_class("MemoryIsX", _call_each(lambda layer, x, m, s, t: layer(x, x, s, t))),
        r"does not give its layers the encoder output",
    ),
    # the final norm applied to memory as well (blind9d-decoder-normalises-memory; before:
    # asked whether the masks were passed on)
    Mistake(S, DecoderSequential, r"nn\.Sequential passes one input from module to module"),
    Mistake(
        S,
        stack_class("MemoryNormalised", _memory_normalised),
        r"layers\[0\] receives the final norm of the stack's memory, not memory as it was given",
    ),
    Mistake(
        S,
        stack_class(
            "Reversed",
            lambda self, x, m, s=None, t=None: self.finish(
                functools.reduce(lambda h, layer: layer(h, m, s, t), list(self.layers)[::-1], x)
            ),
        ),
        r"reverse order",
    ),
    # round 10 (blind10d-decoder-skips-first-layer): the order alone was told
    Mistake(
        S,
        stack_class(
            "SkipsFirstLayer",
            lambda self, x, m, s=None, t=None: self.finish(
                functools.reduce(lambda h, layer: layer(h, m, s, t), self.layers[1:], x)
            ),
        ),
        r"The layers ran in the order layers\.1, layers\.2 \(the first layer, layers\.0, never "
        r"runs\)",
    ),
    # the family of blind26b-dec-src-mask-tiled-per-head: copies per head concatenated
    Mistake(
        S,
        stack_class("SrcMaskCatPerHead", _src_mask_cat_per_head),
        r"`layers\.0\.cross_attn` gets src_mask with shape \(\d+, \d+, 1, \d+\), one copy per "
        r"head, but the heads of a sentence read other sentences' masks \(head \d+ of sentence "
        r"\d+ gets sentence \d+'s src_mask\)",
    ),
    # the family of blind26b-dec-stack-run-num-layers-times: the whole stack run twice
    Mistake(
        S,
        stack_class(
            "StackRunTwice",
            lambda self, x, m, s=None, t=None: self.finish(
                functools.reduce(lambda h, layer: layer(h, m, s, t), list(self.layers) * 2, x)
            ),
        ),
        r"the whole stack runs 2 times over \(6 layer calls instead of 3\)",
    ),
    Mistake(
        S,
        stack_class(
            "FirstOnly",
            lambda self, x, m, s=None, t=None: self.finish(
                functools.reduce(lambda h, _: self.layers[0](h, m, s, t), self.layers, x)
            ),
        ),
        r"applies layers\[0\] num_layers times",
    ),
    Mistake(
        S,
        stack_class(
            "NoFinalNorm",
            lambda self, x, m, s=None, t=None: functools.reduce(
                lambda h, layer: layer(h, m, s, t), self.layers, x
            ),
        ),
        r"self\.norm is never applied \(or its result is not what forward returns\)",
    ),
]


# ------------------------------------------------ round 12: an argument rearranged on the way
class LayerMemorySequenceFirst(ref.DecoderLayer):
    """memory.transpose(0, 1), the sequence-first habit (blind12g-dl-memory-transposed)."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        return super().forward(x, memory.transpose(0, 1), src_mask, tgt_mask)


class LayerSelfAttentionSequenceFirst(ref.DecoderLayer):
    """Another member, in no case: the self-attention reads x sequence-first."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        h = x.transpose(0, 1)
        out = self.self_attn(h, h, h, tgt_mask)[0].transpose(0, 1)
        x = self.norm1(x + self.dropout(out))
        x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))
        return self.norm3(x + self.dropout(self.feed_forward(x)))


class LayerCrossSizesSwapped(ref.DecoderLayer):
    """Another member of "two sizes exchanged", in no case: the cross-attention built as
    MultiHeadAttention(num_heads, d_model)."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.cross_attn = MultiHeadAttention(num_heads, d_model, dropout)


def _stack_with_masks(change_src, change_tgt):
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        src_mask = None if src_mask is None else change_src(src_mask)
        tgt_mask = None if tgt_mask is None else change_tgt(tgt_mask)
        for layer in self.layers:
            x = layer(x, memory, src_mask, tgt_mask)
        return self.finish(x)

    return forward


class DecoderFinalNormInNormFirstSlot(StackBase):
    """DecoderLayer(d_model, num_heads, d_ff, dropout, final_norm) (blind12g)."""

    def __init__(
        self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False, final_norm=None
    ):
        super().__init__(num_layers, d_model, num_heads, d_ff, dropout, norm_first, final_norm)
        self.layers = nn.ModuleList(
            [
                ref.DecoderLayer(d_model, num_heads, d_ff, dropout, final_norm)
                for _ in range(num_layers)
            ]
        )

    forward = _loop


class LayerPreLNCrossPostLN(ref.DecoderLayer):
    """A member of "each sub-layer's norm placement" in no case: a pre-LN layer whose
    cross-attention sub-layer is written post-LN, norm2(x + cross_attn(x, memory, ...))."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if not self.norm_first:
            return super().forward(x, memory, src_mask, tgt_mask)
        h = self.norm1(x)
        x = x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])
        x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))
        return x + self.dropout(self.feed_forward(self.norm3(x)))


R12G_MISTAKES = [
    Mistake(
        check_DecoderLayer,
        LayerPreLNCrossPostLN,
        r"`self\.cross_attn` sub-layer as norm2\(x \+ cross_attn\(x\)\) \(post-LN\)",
    ),
    Mistake(
        check_Decoder,
        DecoderFinalNormInNormFirstSlot,
        # visible: the post-LN final_norm=True case comes first and tells it apart; hidden:
        # a pre-LN stack fails first, where the layers' layout is all that shows
        r"(builds pre-LN layers although norm_first=False was asked for, with final_norm=True: "
        r"is final_norm reaching the layers' norm_first parameter|builds post-LN layers "
        r"although norm_first=True was asked for: norm_first is not passed on)",
    ),
    Mistake(
        check_DecoderLayer,
        LayerMemorySequenceFirst,
        r"`self\.cross_attn` gets as its key memory with its axes 0 and 1 exchanged "
        r"\(a transpose\(0, 1\)\)",
    ),
    Mistake(
        check_DecoderLayer,
        LayerSelfAttentionSequenceFirst,
        r"`self\.self_attn` gets as its query x with its axes 0 and 1 exchanged",
    ),
    Mistake(
        check_DecoderLayer,
        LayerCrossSizesSwapped,
        r"the two sizes reached the attention exchanged, MultiHeadAttention\(num_heads, "
        r"d_model, \.\.\.\)",
    ),
    Mistake(
        check_Decoder,
        stack_class(
            "DecoderTgtMaskSqueezed", _stack_with_masks(lambda m: m, lambda m: m.squeeze(1))
        ),
        r"(receives the stack's tgt_mask|self_attn` gets tgt_mask) with its axis 1, of size 1, "
        r"removed \(squeeze\(1\)\)",
    ),
    Mistake(
        check_Decoder,
        stack_class("DecoderSrcMaskIndexed", _stack_with_masks(lambda m: m[:, 0], lambda m: m)),
        r"(receives the stack's src_mask|cross_attn` gets src_mask) with its axis 1, of size 1, "
        r"removed",
    ),
]


# ---------------------------------------------------------------- round 17 (fix17g)
class LayerNorm3EpsFromRate(LayerBase):
    """The dropout rate handed to the third norm as its eps, LayerNorm(d_model, dropout)."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.norm3 = LayerNorm(d_model, dropout)

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        return ref.DecoderLayer.forward(self, x, memory, src_mask, tgt_mask)


class LayerPreLNWithoutReturn(LayerBase):
    """The pre-LN branch ends in an assignment: the post-LN lines run on its result."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if self.norm_first:
            x = x + self.dropout(self.self_attn(*[self.norm1(x)] * 3, tgt_mask)[0])
            h = self.norm2(x)
            x = x + self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])
            x = x + self.dropout(self.feed_forward(self.norm3(x)))
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))
        x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))
        return self.norm3(x + self.dropout(self.feed_forward(x)))


class LayerDropsTheStream(LayerBase):
    """The residual dropout applied to the stream, dropout(x) + sublayer(...), both layouts."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        blocks = (
            (self.norm1, lambda h: self.self_attn(h, h, h, tgt_mask)[0]),
            (self.norm2, lambda h: self.cross_attn(h, memory, memory, src_mask)[0]),
            (self.norm3, self.feed_forward),
        )
        for norm, sublayer in blocks:
            if self.norm_first:
                x = self.dropout(x) + sublayer(norm(x))
            else:
                x = norm(self.dropout(x) + sublayer(x))
        return x


class LayerNormsWithoutAffine(LayerBase):
    """The three norms built as nn.LayerNorm without their learned gain and bias."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        for name in ("norm1", "norm2", "norm3"):
            setattr(self, name, nn.LayerNorm(d_model, elementwise_affine=False))

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        return ref.DecoderLayer.forward(self, x, memory, src_mask, tgt_mask)


class DecoderOfEncoderLayers(nn.Module):
    """The stack built from lesson 07's EncoderLayer, each layer given the target mask."""

    def __init__(
        self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False, final_norm=None
    ):
        super().__init__()
        self.layers = nn.ModuleList(
            EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first) for _ in range(num_layers)
        )
        use = norm_first if final_norm is None else final_norm
        self.norm = LayerNorm(d_model) if use else None

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for layer in self.layers:
            x = layer(x, tgt_mask)
        return x if self.norm is None else self.norm(x)


class LayerSrcMaskRowsPerKey(ref.DecoderLayer):
    """src_mask repeated to one row per source position, memory.shape[1], where the
    cross-attention has one row per target position."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if src_mask is not None:
            src_mask = src_mask.repeat(1, 1, memory.shape[1], 1)
        return super().forward(x, memory, src_mask, tgt_mask)


R17G_MISTAKES = [
    Mistake(
        check_DecoderLayer,
        LayerSrcMaskRowsPerKey,
        r"`self\.cross_attn` gets src_mask expanded along its query axis \(axis 2\) to (\d+) rows"
        r".* \1 is len_src, the source's length \(memory\.size\(1\)\)",
    ),
    Mistake(
        check_DecoderLayer,
        LayerNormsWithoutAffine,
        r"`norm1`, `norm2` and `norm3` have no learned gain and bias .*elementwise_affine=False",
    ),
    Mistake(
        check_Decoder,
        DecoderOfEncoderLayers,
        r"Each of your layers has exactly an EncoderLayer's submodules .* built from lesson 07's "
        r"EncoderLayer",
    ),
    Mistake(
        check_DecoderLayer,
        LayerNorm3EpsFromRate,
        r"`self\.norm3` normalises with eps = 0\.\d+ .* That is the dropout rate, 0\.\d+: it "
        r"reaches LayerNorm's second parameter, eps",
    ),
    Mistake(
        check_DecoderLayer,
        LayerPreLNWithoutReturn,
        r"computes the whole pre-LN layer and then the whole post-LN layer on its result.*falls "
        r"through",
    ),
    Mistake(
        check_DecoderLayer,
        LayerDropsTheStream,
        r"your dropout acts on the residual stream, dropout\(x\) \+ sublayer\(\.\.\.\)",
    ),
]


class LayerDropoutDefaultTenth(ref.DecoderLayer):
    """The paper's rate as the default, dropout=0.1 (blind round 15: a default rate other
    than 0.0 was accepted, the defaults being compared in eval mode only)."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.1, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)


class DecoderFinalNormBeforeNormFirst(ref.Decoder):
    """__init__(..., dropout, final_norm, norm_first): the two flags in the other order
    (blind round 15; before: accepted, every check passed them by keyword)."""

    def __init__(
        self, num_layers, d_model, num_heads, d_ff, dropout=0.0, final_norm=None, norm_first=False
    ):
        super().__init__(
            num_layers,
            d_model,
            num_heads,
            d_ff,
            dropout,
            norm_first=norm_first,
            final_norm=final_norm,
        )


R18G_MISTAKES = [
    Mistake(
        check_DecoderLayer,
        LayerDropoutDefaultTenth,
        r"gives another result in train mode than DecoderLayer\(8, 2, 16, dropout=0\.0\).*your "
        r"default dropout rate is not 0\.0, the contract's\. Yours is 0\.1",
    ),
    Mistake(
        check_Decoder,
        DecoderFinalNormBeforeNormFirst,
        r"passed by position.*your norm_first and final_norm are exchanged",
    ),
]


class LayerMasksReshapedWithoutNoneTest(ref.DecoderLayer):
    """Brings 3-D masks to four axes with mask.dim() at the top of forward, never testing for
    None: right with both masks given, AttributeError without them (round 19; before:
    accepted, every call of the layer's check gave both masks)."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        src_mask = src_mask.unsqueeze(1) if src_mask.dim() == 3 else src_mask
        tgt_mask = tgt_mask.unsqueeze(1) if tgt_mask.dim() == 3 else tgt_mask
        return super().forward(x, memory, src_mask, tgt_mask)


class LayerNoneMasksAllTrue(ref.DecoderLayer):
    """Correct: a mask left to None replaced by an all-True one, which allows everything."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if src_mask is None:  # (1, 1, 1, len_src)
            src_mask = torch.ones(1, 1, 1, memory.shape[1], dtype=torch.bool)
        if tgt_mask is None:  # (1, 1, len_tgt, len_tgt)
            tgt_mask = torch.ones(1, 1, x.shape[1], x.shape[1], dtype=torch.bool)
        return super().forward(x, memory, src_mask, tgt_mask)


class LayerCrossRateAsHeads(ref.DecoderLayer):
    """The cross-attention built with the rate and the head count in each other's places."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, 0.5, norm_first)
        self.cross_attn = MultiHeadAttention(d_model, dropout, num_heads)
        for module in self.modules():
            if isinstance(module, nn.Dropout):
                module.p = dropout


class LayerResidualDropoutsFromHeads(LayerTorchStyle):
    """PyTorch's three residual dropouts, each built with the head count as its rate (round
    19; before: three candidates, the attention's, the feed-forward's and this one)."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.dropout1, self.dropout2, self.dropout3 = (nn.Dropout(num_heads) for _ in range(3))


class LayerFeedForwardRateFromHeads(ref.DecoderLayer):
    """The feed-forward block built with the head count as its rate: the probe that names a
    residual dropout must not name it here."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, num_heads)


R19G_MISTAKES = [
    Mistake(
        check_DecoderLayer,
        LayerResidualDropoutsFromHeads,
        r"raised ValueError[^\n]*got \d+\nThe rate \d+ is num_heads\. Built with num_heads=1 and "
        r"dropout=0\.0 instead, your layer in train mode drops every sub-layer's output whole"
        r".*nn\.Dropout\(num_heads\) where nn\.Dropout\(dropout\) belongs",
    ),
    Mistake(
        check_DecoderLayer,
        LayerFeedForwardRateFromHeads,
        r"^(?![\s\S]*drops every sub-layer's output whole)[\s\S]*raised ValueError",
    ),
    Mistake(
        check_DecoderLayer,
        LayerCrossRateAsHeads,
        r"raised ZeroDivisionError[\s\S]*your layer hands nn\.Dropout the rate \d, which is "
        r"num_heads\. num_heads and dropout reach one of the attentions \(self_attn or "
        r"cross_attn\) in swapped places",
    ),
    Mistake(
        check_DecoderLayer,
        LayerMasksReshapedWithoutNoneTest,
        r"both masks left to their default, None` raised AttributeError[\s\S]*Your layer was right "
        r"with both masks given and fails with both left to their default, None.*test `if "
        r"src_mask is not None` first",
    ),
]


# ------------------------------------------------------- round 34: families, not instances
class LayerCrossOverSqrtTwo(LayerBase):
    """Post-LN, the cross-attention's output divided by sqrt(2) before its residual sum
    (a term of the residual sum scaled by a size: the coefficients fitted freely)."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if self.norm_first:
            h = self.norm1(x)
            x = x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])
            h = self.norm2(x)
            x = x + self.dropout(self.cross_attn(h, memory, memory, src_mask)[0]) / math.sqrt(2)
            return x + self.dropout(self.feed_forward(self.norm3(x)))
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))
        cross = self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]) / math.sqrt(2)
        x = self.norm2(x + cross)
        return self.norm3(x + self.dropout(self.feed_forward(x)))


class LayerPostNorm3BuiltInForward(LayerBase):
    """Post-LN, the last sum normalised by an nn.LayerNorm built inside forward (fresh: gain
    1, bias 0): the same family, another way to write it."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if self.norm_first:
            return ref.DecoderLayer.forward(self, x, memory, src_mask, tgt_mask)
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))
        x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))
        return nn.LayerNorm(x.shape[-1])(x + self.dropout(self.feed_forward(x)))


class DecoderGraphOnlyForGradInputs(ref.Decoder):
    """Builds the graph only when an input requires grad (an 'inference fast path' keyed on
    the inputs): the family of a graph that depends on the inputs' requires_grad, as
    reentrant activation checkpointing makes it (round 35)."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        with torch.set_grad_enabled(x.requires_grad or memory.requires_grad):
            for layer in self.layers:
                x = layer(x, memory, src_mask, tgt_mask)
            return x if self.norm is None else self.norm(x)


class LayerReentrantCheckpoint(LayerBase):
    """The whole layer recomputed in backward through torch.utils.checkpoint with
    use_reentrant=True: no graph at all when neither x nor memory requires grad."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        body = functools.partial(ref.DecoderLayer.forward, self)
        return torch.utils.checkpoint.checkpoint(
            body, x, memory, src_mask, tgt_mask, use_reentrant=True
        )


class DecoderUnderNoGrad(ref.Decoder):
    """The sibling: the layers run under torch.no_grad() whatever the inputs; the graph is
    cut for inputs that require grad too, so no checkpoint is named."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        with torch.no_grad():
            for layer in self.layers:
                x = layer(x, memory, src_mask, tgt_mask)
        return x if self.norm is None else self.norm(x)


class LayerSourceMaskOnlyInEval(ref.DecoderLayer):
    """The source padding mask dropped in train mode (any rate): the mask tables named it
    'ignores src_mask, pass it on', which eval mode refutes (the family of blind29a-mha-
    mask-dropped-in-dropout-path, in a layer)."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        given = None if self.training else src_mask
        return ref.DecoderLayer.forward(self, x, memory, given, tgt_mask)


class DecoderLookAheadOnlyInEval(ref.Decoder):
    """The stack hands its layers tgt_mask in eval mode only (a 'generation' branch)."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for layer in self.layers:
            x = layer(x, memory, src_mask, None if self.training else tgt_mask)
        return x if self.norm is None else self.norm(x)


_INPUT_GRAD_ONLY = (
    r"requires_grad is False\)\. Called again on the same inputs made to require grad.*"
    r"builds its graph only when an input requires grad.*use_reentrant=True"
)

R35_MISTAKES = [
    Mistake(
        check_DecoderLayer,
        LayerSourceMaskOnlyInEval,
        r"Run again in two modes[\s\S]*In train mode with dropout=0\.0 the output changes "
        r"when memory changes at the source positions src_mask blocks: src_mask is ignored "
        r"there; in eval mode it does not[\s\S]*only in train mode"
        r"[\s\S]*self\.cross_attn\(x, memory, memory, src_mask\)",
    ),
    Mistake(
        S,
        DecoderLookAheadOnlyInEval,
        r"Run again in two modes[\s\S]*In train mode with dropout=0\.0 the output at the "
        r"earlier target positions changes when x changes at the last one: tgt_mask \(the "
        r"look-ahead\) is ignored there[\s\S]*only in train mode",
    ),
    Mistake(S, DecoderGraphOnlyForGradInputs, _INPUT_GRAD_ONLY),
    Mistake(check_DecoderLayer, LayerReentrantCheckpoint, _INPUT_GRAD_ONLY),
    Mistake(
        S,
        DecoderUnderNoGrad,
        # the hidden run's pre-LN stack ends with a final norm, which still gets a gradient:
        # the inputs and the layers' weights get none (round 36)
        r"^(?![\s\S]*reentrant)[\s\S]*(requires_grad is False\)\.|nor into the weights of "
        r"`layers\.0`, `layers\.1`, `layers\.2`: the layers run cut off from the graph\.) Did "
        r"you use torch\.no_grad\(\)",
    ),
]


class DecoderNonReentrantCheckpoint(ref.Decoder):
    """Right: activation checkpointing with use_reentrant=False builds the graph whatever
    the inputs."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for layer in self.layers:
            x = torch.utils.checkpoint.checkpoint(
                layer, x, memory, src_mask, tgt_mask, use_reentrant=False
            )
        return x if self.norm is None else self.norm(x)


class DecoderMemoryDataPerLayer(ref.Decoder):
    """The family of blind30b-dec-memory-detached, written another way: each layer reads
    memory.data (to "save memory"): right values, no gradient to the encoder."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for layer in self.layers:
            x = layer(x, memory.data, src_mask, tgt_mask)
        return x if self.norm is None else self.norm(x)


class DecoderInputDetached(ref.Decoder):
    """The sibling: the stack's input x is detached before the first layer; the message
    names x, not memory."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = x.detach()
        for layer in self.layers:
            x = layer(x, memory, src_mask, tgt_mask)
        return x if self.norm is None else self.norm(x)


class DecoderMemoryCastAndContiguous(ref.Decoder):
    """Right: memory cast to x's dtype and made contiguous (both keep the graph)."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        memory = memory.to(x.dtype).contiguous()
        for layer in self.layers:
            x = layer(x, memory, src_mask, tgt_mask)
        return x if self.norm is None else self.norm(x)


R36_MISTAKES = [
    Mistake(
        S,
        DecoderMemoryDataPerLayer,
        r"is right, but no gradient flows back from it into `memory` \(its gradient is None\): "
        r"memory enters the layers cut off.*The encoder then never learns.*layer\(x, memory, "
        r"src_mask, tgt_mask\)",
    ),
    Mistake(
        S,
        DecoderInputDetached,
        r"^(?![\s\S]*`memory`)[\s\S]*no gradient flows back from it into `x` \(its gradient "
        r"is None\).*Nothing before the decoder",
    ),
]


class _LayerNoGradMemory(ref.DecoderLayer):
    """A DecoderLayer whose cross-attention reads memory under torch.no_grad() (for the
    stack's check below)."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        with torch.no_grad():
            memory = memory * 1.0
        return super().forward(x, memory, src_mask, tgt_mask)


class DecoderOverMemoryCuttingLayer(ref.Decoder):
    """A right Decoder stacked on a DecoderLayer that cuts memory off: the message blames
    the layer (layers[0] alone gives memory no gradient), not the stack."""

    def __init__(
        self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False, final_norm=None
    ):
        super().__init__(num_layers, d_model, num_heads, d_ff, dropout, norm_first, final_norm)
        self.layers = nn.ModuleList(
            _LayerNoGradMemory(d_model, num_heads, d_ff, dropout, norm_first)
            for _ in range(num_layers)
        )


R37C_MISTAKES = [
    Mistake(
        S,
        DecoderOverMemoryCuttingLayer,
        r"^(?![\s\S]*hand memory itself)[\s\S]*into `memory`.*the cut is in your "
        r"DecoderLayer, not in the stack: `layers\[0\]` alone",
    ),
]

R34_MISTAKES = [
    Mistake(
        check_DecoderLayer,
        LayerPostNorm3BuiltInForward,
        r"residual sum after `self\.feed_forward` is normalised without `self\.norm3`",
    ),
    Mistake(
        check_DecoderLayer,
        LayerCrossOverSqrtTwo,
        r"is x \+ 0\.7071 \(1/sqrt\(2\)\) \* cross_attn\(x\): the residual sum around "
        r"`self\.cross_attn` has a wrong sign or factor",
    ),
]


# ------------------------------ round 37 (f37b): sub-layer structure, how a step departs
class LayerPostSelfUnmaskedFeedForwardUndropped(LayerBase):
    """Post-LN, two mistakes at once: the self-attention gets no tgt_mask and the
    feed-forward's residual dropout is missing, norm3(x + feed_forward(x)): the mask is
    named from the eval cases, the missing dropout from the layer built again at
    dropout=1.0 (its own sub-results), and both are said."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if self.norm_first:
            h = self.norm1(x)
            x = x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])
            h = self.norm2(x)
            x = x + self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])
            return x + self.dropout(self.feed_forward(self.norm3(x)))
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x)[0]))
        x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))
        return self.norm3(x + self.feed_forward(x))


class LayerPostSelfUnmaskedOnly(LayerBase):
    """The sibling: only the self-attention's tgt_mask left out, every dropout in place:
    no second mistake is added to its message."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if self.norm_first:
            h = self.norm1(x)
            x = x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])
            h = self.norm2(x)
            x = x + self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])
            return x + self.dropout(self.feed_forward(self.norm3(x)))
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x)[0]))
        x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))
        return self.norm3(x + self.dropout(self.feed_forward(x)))


class LayerFeedForwardLayerScaleAtOne(LayerBase):
    """A per-feature learned scale of its own on the feed-forward branch, initialised to 1
    (a fresh layer is right): the extra learned tensor is named with its shape and value."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.ffn_scale = nn.Parameter(torch.ones(d_model))

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if self.norm_first:
            h = self.norm1(x)
            x = x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])
            h = self.norm2(x)
            x = x + self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])
            return x + self.ffn_scale * self.dropout(self.feed_forward(self.norm3(x)))
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))
        x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))
        return self.norm3(x + self.ffn_scale * self.dropout(self.feed_forward(x)))


class LayerCrossDroppedPerSentence(LayerBase):
    """The cross-attention's residual dropout drawn once per sentence with torch.where
    (no NaN at p = 1): every value case passes, the draw at dropout=0.5 tells."""

    def drop_sentences(self, y):
        p = self.dropout.p
        if not self.training or p == 0.0:
            return y
        keep = torch.rand(y.shape[0], 1, 1) >= p
        return torch.where(keep, y / max(1 - p, 1e-12), torch.zeros_like(y))

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if self.norm_first:
            h = self.norm1(x)
            x = x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])
            h = self.norm2(x)
            x = x + self.drop_sentences(self.cross_attn(h, memory, memory, src_mask)[0])
            return x + self.dropout(self.feed_forward(self.norm3(x)))
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))
        x = self.norm2(x + self.drop_sentences(self.cross_attn(x, memory, memory, src_mask)[0]))
        return self.norm3(x + self.dropout(self.feed_forward(x)))


R37B_MISTAKES = [
    Mistake(
        check_DecoderLayer,
        LayerPostSelfUnmaskedFeedForwardUndropped,
        r"tgt_mask[\s\S]*A second mistake, besides that one: built with dropout=1\.0, in train "
        r"mode, your layer adds the output of `self\.feed_forward` to the stream as it is",
    ),
    Mistake(
        check_DecoderLayer,
        LayerPostSelfUnmaskedOnly,
        r"^(?![\s\S]*second mistake)[\s\S]*tgt_mask",
    ),
    Mistake(
        check_DecoderLayer,
        LayerFeedForwardLayerScaleAtOne,
        r"has 1 extra learned tensor of its own that the contract does not have[\s\S]*"
        r"`ffn_scale` \((\d+) numbers, shape \(\1,\), all 1 at construction\)",
    ),
    Mistake(
        check_DecoderLayer,
        LayerCrossDroppedPerSentence,
        r"after `self\.cross_attn`[\s\S]*your dropout zeroes whole sentences: one draw per "
        r"sentence",
    ),
]


test_classic_mistake, test_correct_variant = lesson_tests(
    [
        *LAYER_MISTAKES,
        *DECODER_MISTAKES,
        *R12G_MISTAKES,
        *R17G_MISTAKES,
        *R18G_MISTAKES,
        *R19G_MISTAKES,
        *R34_MISTAKES,
        *R35_MISTAKES,
        *R36_MISTAKES,
        *R37B_MISTAKES,
        *R37C_MISTAKES,
    ],
    [
        *(Correct(check_DecoderLayer, cls) for cls in [*LAYER_CORRECT, LayerNoneMasksAllTrue]),
        *(
            Correct(check_Decoder, cls)
            for cls in [
                *DECODER_CORRECT,
                DecoderNonReentrantCheckpoint,
                DecoderMemoryCastAndContiguous,
            ]
        ),
    ],
)


# ======================================================================================= oracles
def torch_decoder_layer(ours, d_model, num_heads, d_ff, norm_first):
    theirs = nn.TransformerDecoderLayer(
        d_model, num_heads, d_ff, 0.0, batch_first=True, norm_first=norm_first
    )
    with torch.no_grad():
        copy_attention(ours.self_attn, theirs.self_attn)
        copy_attention(ours.cross_attn, theirs.multihead_attn)  # nn's name for cross-attention
        theirs.linear1.weight.copy_(ours.feed_forward.w_1.weight)
        theirs.linear1.bias.copy_(ours.feed_forward.w_1.bias)
        theirs.linear2.weight.copy_(ours.feed_forward.w_2.weight)
        theirs.linear2.bias.copy_(ours.feed_forward.w_2.bias)
        for name in ("norm1", "norm2", "norm3"):
            copy_norm(getattr(ours, name), getattr(theirs, name))
    return theirs.eval()


SRC_IDS = {
    "right": torch.tensor([[5, 6, 7, 8, 9, 0, 0], [3, 4, 5, 6, 7, 8, 9], [9, 4, 0, 0, 0, 0, 0]]),
    "left": torch.tensor([[0, 0, 5, 6, 7, 8, 9], [3, 4, 5, 6, 7, 8, 9], [0, 0, 0, 0, 0, 9, 4]]),
}
TGT_IDS = torch.tensor([[2, 11, 12, 3, 0], [2, 13, 14, 15, 3], [2, 16, 3, 0, 0]])  # len_tgt = 5


def _run_both(ours, theirs, x, memory, src_ids, tgt_ids):
    length = tgt_ids.shape[1]
    with torch.no_grad():
        got = ours(x, memory, padding_mask(src_ids, 0), decoder_self_attention_mask(tgt_ids, 0))
        expected = theirs(
            x,
            memory,
            tgt_mask=~look_ahead_mask(length),  # nn: True = may NOT attend
            tgt_key_padding_mask=tgt_ids == 0,
            memory_key_padding_mask=src_ids == 0,
        )
    return got, expected


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("padding", ["right", "left"])
def test_decoder_layer_matches_nn_transformer_decoder_layer(norm_first, padding):
    d_model, num_heads, d_ff = 16, 4, 40
    ours = randomize(ref.DecoderLayer(d_model, num_heads, d_ff, 0.0, norm_first), seed=20).eval()
    theirs = torch_decoder_layer(ours, d_model, num_heads, d_ff, norm_first)
    gen = torch.Generator().manual_seed(21)
    x, memory = torch.randn(3, 5, d_model, generator=gen), torch.randn(3, 7, d_model, generator=gen)
    got, expected = _run_both(ours, theirs, x, memory, SRC_IDS[padding], TGT_IDS)
    assert got.shape == (3, 5, d_model)  # len_tgt = 5 != len_src = 7
    torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("norm_first", "final_norm"), [(False, None), (False, True), (True, None)])
def test_decoder_matches_nn_transformer_decoder(norm_first, final_norm):
    num_layers, d_model, num_heads, d_ff = 3, 16, 4, 32
    ours = randomize(
        ref.Decoder(num_layers, d_model, num_heads, d_ff, 0.0, norm_first, final_norm), 22
    ).eval()
    use_norm = ours.norm is not None
    template = nn.TransformerDecoderLayer(
        d_model, num_heads, d_ff, 0.0, batch_first=True, norm_first=norm_first
    )
    theirs = nn.TransformerDecoder(
        template, num_layers, norm=nn.LayerNorm(d_model) if use_norm else None
    ).eval()
    with torch.no_grad():
        for layer_ours, layer_theirs in zip(ours.layers, theirs.layers, strict=True):
            mine = torch_decoder_layer(layer_ours, d_model, num_heads, d_ff, norm_first)
            layer_theirs.load_state_dict(mine.state_dict())
        if use_norm:
            copy_norm(ours.norm, theirs.norm)
    gen = torch.Generator().manual_seed(23)
    x, memory = torch.randn(3, 5, d_model, generator=gen), torch.randn(3, 7, d_model, generator=gen)
    got, expected = _run_both(ours, theirs, x, memory, SRC_IDS["right"], TGT_IDS)
    torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-5)


def test_output_at_t_never_depends_on_later_targets_ours_and_pytorchs():
    d_model = 16
    ours = randomize(ref.DecoderLayer(d_model, 4, 32), seed=24).eval()
    theirs = torch_decoder_layer(ours, d_model, 4, 32, False)
    gen = torch.Generator().manual_seed(25)
    x, memory = torch.randn(2, 6, d_model, generator=gen), torch.randn(2, 4, d_model, generator=gen)
    causal = look_ahead_mask(6)
    with torch.no_grad():
        base = ours(x, memory, None, causal)
        torch.testing.assert_close(base, theirs(x, memory, tgt_mask=~causal), rtol=1e-5, atol=1e-5)
        for t in range(6):
            changed = x.clone()
            changed[:, t + 1 :] += 10 * torch.randn(changed[:, t + 1 :].shape, generator=gen)
            mine, pytorchs = (
                ours(changed, memory, None, causal),
                theirs(changed, memory, tgt_mask=~causal),
            )
            assert torch.equal(mine[:, : t + 1], base[:, : t + 1])
            torch.testing.assert_close(pytorchs[:, : t + 1], base[:, : t + 1], rtol=1e-5, atol=1e-5)
            if t < 5:
                assert not torch.allclose(mine[:, t + 1 :], base[:, t + 1 :])
        changed = x.clone()
        changed[:, 1:] += 10 * torch.randn(changed[:, 1:].shape, generator=gen)
        unmasked = ours(changed, memory)  # without the mask, position 0 sees the change
        assert not torch.allclose(unmasked[:, 0], ours(x, memory)[:, 0])


def test_padded_source_positions_get_zero_cross_attention_weight_and_change_nothing():
    d_model = 16
    layer = randomize(ref.DecoderLayer(d_model, 4, 32), seed=26).eval()
    theirs = torch_decoder_layer(layer, d_model, 4, 32, False)
    gen = torch.Generator().manual_seed(27)
    x, memory = torch.randn(3, 5, d_model, generator=gen), torch.randn(3, 7, d_model, generator=gen)
    src_ids = SRC_IDS["left"]
    src_mask, tgt_mask = padding_mask(src_ids, 0), decoder_self_attention_mask(TGT_IDS, 0)
    with torch.no_grad():
        h = layer.norm1(x + layer.self_attn(x, x, x, tgt_mask)[0])  # the cross-attention's queries
        _, weights = layer.cross_attn(h, memory, memory, src_mask)  # (batch, num_heads, 5, 7)
        _, expected = theirs.multihead_attn(
            h, memory, memory, key_padding_mask=src_ids == 0, average_attn_weights=False
        )
        with Checker("reference cross-attention") as c:
            expect_attention_weights(
                c, weights, src_mask, "cross-attention weights", expected=expected
            )
        assert torch.all(weights[..., src_ids[:, None, None, :].expand_as(weights) == 0] == 0)
        noisy = memory.clone()
        noisy[src_ids == 0] += 100 * torch.randn(noisy[src_ids == 0].shape, generator=gen)
        torch.testing.assert_close(
            layer(x, noisy, src_mask, tgt_mask), layer(x, memory, src_mask, tgt_mask)
        )


def test_dropout_one_in_train_mode_gives_the_documented_results():
    x = torch.randn(2, 4, 8, generator=torch.Generator().manual_seed(31))
    memory = torch.randn(2, 6, 8, generator=torch.Generator().manual_seed(32))
    post = randomize(ref.DecoderLayer(8, 2, 16, dropout=1.0), seed=33).train()
    pre = randomize(ref.DecoderLayer(8, 2, 16, dropout=1.0, norm_first=True), seed=34).train()
    with torch.no_grad():
        torch.testing.assert_close(post(x, memory), post.norm3(post.norm2(post.norm1(x))))
        torch.testing.assert_close(pre(x, memory), x)


def test_the_three_attentions_have_the_shapes_the_lesson_draws():
    """Encoder self-attention (len_src x len_src), masked decoder self-attention
    (len_tgt x len_tgt) and cross-attention (len_tgt x len_src)."""
    layer = ref.DecoderLayer(8, 2, 16).eval()
    x, memory = torch.randn(1, 5, 8), torch.randn(1, 7, 8)
    with torch.no_grad():
        assert layer.self_attn(x, x, x, look_ahead_mask(5))[1].shape == (1, 2, 5, 5)
        assert layer.cross_attn(x, memory, memory)[1].shape == (1, 2, 5, 7)
        assert layer.self_attn(memory, memory, memory)[1].shape == (1, 2, 7, 7)
        with pytest.raises(RuntimeError):  # queries and keys from memory, values from x
            layer.cross_attn(memory, memory, x)


def test_quiz_answer_agrees_with_the_pre_ln_reference_layer():
    """Question 1's answer, observed: in a pre-LN layer, cross-attention gets norm2(x) as
    its queries and the memory, untouched, as its keys and values."""
    from transformer_course.checks.decoder import QUIZ_CROSS_ATTENTION_NORM

    torch.manual_seed(0)
    layer = ref.DecoderLayer(8, 2, 16, norm_first=True).eval()
    seen = {}
    layer.cross_attn.register_forward_hook(lambda m, args, out: seen.update(args=args))
    layer.self_attn.register_forward_hook(lambda m, args, out: seen.update(self_out=out[0]))
    x, memory = torch.randn(1, 3, 8), torch.randn(1, 5, 8)
    with torch.no_grad():
        layer(x, memory)
        after_self = x + seen["self_out"]  # the residual stream entering the second sub-layer
        query, key, value = seen["args"][:3]
        torch.testing.assert_close(query, layer.norm2(after_self))
    assert key is memory and value is memory
    assert QUIZ_CROSS_ATTENTION_NORM.answer == "b"
