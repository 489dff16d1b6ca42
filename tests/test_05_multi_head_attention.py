"""Lesson 05 (multi-head attention): classic mistakes are rejected with the intended
message by both the visible and the hidden checks, correct variants (including the way
the Annotated Transformer, d2l and nanoGPT write it) pass both, and the reference agrees
with independent oracles (nn.MultiheadAttention with copied weights, the paper's
per-head formula, F.scaled_dot_product_attention)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import torch
import torch.nn.functional as F
import torch.utils.checkpoint
from common import Correct, Mistake, lesson_tests
from torch import nn

from transformer_course.checks.multi_head_attention import (
    check_merge_heads,
    check_MultiHeadAttention,
    check_split_heads,
)
from transformer_course.reference import multi_head_attention as ref
from transformer_course.reference.attention import scaled_dot_product_attention


# =================================================================== split_heads
def split_view_transpose(x, num_heads):
    b, length, d_model = x.shape
    return x.view(b, length, num_heads, d_model // num_heads).transpose(1, 2)


def split_permute(x, num_heads):
    b, length, _ = x.shape
    return x.reshape(b, length, num_heads, -1).permute(0, 2, 1, 3)


def split_unflatten(x, num_heads):
    return x.unflatten(-1, (num_heads, -1)).transpose(1, 2)


def split_chunk_stack(x, num_heads):
    return torch.stack(x.chunk(num_heads, dim=-1), dim=1)


def split_loop(x, num_heads):
    d_head = x.shape[-1] // num_heads
    return torch.stack([x[..., i * d_head : (i + 1) * d_head] for i in range(num_heads)], dim=1)


def split_einsum(x, num_heads):
    b, length, d_model = x.shape
    return torch.einsum("blhd->bhld", x.reshape(b, length, num_heads, d_model // num_heads))


def split_annotated_transformer(x, num_heads):
    """The Annotated Transformer: `.view(nbatches, -1, self.h, self.d_k).transpose(1, 2)`."""
    nbatches = x.size(0)
    d_k = x.size(-1) // num_heads
    return x.view(nbatches, -1, num_heads, d_k).transpose(1, 2)


def split_nanogpt(x, num_heads):
    """nanoGPT: `k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)`."""
    B, T, C = x.size()
    return x.view(B, T, num_heads, C // num_heads).transpose(1, 2)


def split_d2l_then_unfold(x, num_heads):
    """d2l's transpose_qkv, (batch * heads, len, d_head), then the heads axis taken apart."""
    folded = x.reshape(x.shape[0], x.shape[1], num_heads, -1).permute(0, 2, 1, 3)
    folded = folded.reshape(-1, folded.shape[2], folded.shape[3])
    return folded.reshape(x.shape[0], num_heads, x.shape[1], -1)


def split_no_transpose(x, num_heads):
    b, length, d_model = x.shape
    return x.reshape(b, num_heads, length, d_model // num_heads)


def split_strided(x, num_heads):
    b, length, d_model = x.shape
    return x.reshape(b, length, d_model // num_heads, num_heads).permute(0, 3, 1, 2)


def split_forgot_transpose(x, num_heads):
    b, length, d_model = x.shape
    return x.reshape(b, length, num_heads, d_model // num_heads)


def split_wrong_transpose(x, num_heads):
    b, length, d_model = x.shape
    return x.reshape(b, length, num_heads, d_model // num_heads).transpose(2, 3)


def split_d2l_folded(x, num_heads):
    """d2l's transpose_qkv as the answer: batch and heads folded into one axis."""
    folded = x.reshape(x.shape[0], x.shape[1], num_heads, -1).permute(0, 2, 1, 3)
    return folded.reshape(-1, folded.shape[2], folded.shape[3])


def split_numpy(x, num_heads):
    return split_permute(x, num_heads).numpy()


def split_float32(x, num_heads):
    return split_permute(x, num_heads).float()


def split_transpose_1_3(x, num_heads):
    """transpose(1, 3) instead of (1, 2) (mutant-split_heads-1; before: the shape read as
    "(batch, d_head, num_heads, len) or (num_heads, d_head, batch, len)")."""
    b, length, d_model = x.shape
    return x.reshape(b, length, num_heads, d_model // num_heads).transpose(1, 3)


def split_heads_before_batch(x, num_heads):
    """(num_heads, batch, len, d_head): a reshape then permute(2, 0, 1, 3); the first
    visible case has batch == num_heads, so the shape alone cannot show it."""
    b, length, d_model = x.shape
    return x.reshape(b, length, num_heads, d_model // num_heads).permute(2, 0, 1, 3)


def split_pieces_of_num_heads(x, num_heads):
    """torch.split's second argument read as a number of pieces (blind6b-split-torch-split-
    size): d_head pieces of num_heads features."""
    return torch.stack(torch.split(x, num_heads, dim=-1), dim=1)


def split_batch_of_one(x, num_heads):
    """A batch of one written into the reshape."""
    _, length, d_model = x.shape
    return x.reshape(1, length, num_heads, d_model // num_heads).transpose(1, 2)


def split_sequence_first(x, num_heads):
    """x.shape unpacked as (len, batch, d_model) (blind7b-split-sequence-first-unpack)."""
    length, batch, d_model = x.shape
    return x.reshape(batch, length, num_heads, d_model // num_heads).transpose(1, 2)


def split_rolled_heads(x, num_heads):
    """Heads in the wrong order: no known mistake, so the check locates the first bad entry."""
    return split_permute(x, num_heads).roll(1, dims=1)


# =================================================================== merge_heads
def merge_transpose_reshape(x):  # no .contiguous(): reshape copies when it must
    b, h, length, d_head = x.shape
    return x.transpose(1, 2).reshape(b, length, h * d_head)


def merge_contiguous_view(x):
    b, h, length, d_head = x.shape
    return x.permute(0, 2, 1, 3).contiguous().view(b, length, h * d_head)


def merge_cat(x):
    return torch.cat([x[:, i] for i in range(x.shape[1])], dim=-1)


def merge_unbind_cat(x):
    return torch.cat(x.unbind(dim=1), dim=-1)


def merge_flatten(x):
    return x.transpose(1, 2).flatten(2)


def merge_einsum(x):
    b, h, length, d_head = x.shape
    return torch.einsum("bhld->blhd", x).reshape(b, length, h * d_head)


def merge_annotated_transformer(x):
    """The Annotated Transformer: `x.transpose(1, 2).contiguous().view(nbatches, -1, h * d_k)`."""
    nbatches, h, _, d_k = x.shape
    return x.transpose(1, 2).contiguous().view(nbatches, -1, h * d_k)


def merge_d2l_transpose_output(x):
    """d2l's transpose_output, fed with the heads folded into the batch axis."""
    num_heads = x.shape[1]
    folded = x.reshape(-1, x.shape[2], x.shape[3])  # (batch * heads, len, d_head)
    out = folded.reshape(-1, num_heads, folded.shape[1], folded.shape[2])
    out = out.permute(0, 2, 1, 3)
    return out.reshape(out.shape[0], out.shape[1], -1)


def merge_no_transpose(x):
    b, h, length, d_head = x.shape
    return x.reshape(b, length, h * d_head)


def merge_interleaved(x):
    b, h, length, d_head = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, length, h * d_head)


def merge_no_flatten(x):
    return x.transpose(1, 2)


def merge_view_without_contiguous(x):
    b, h, length, d_head = x.shape
    return x.transpose(1, 2).view(b, length, h * d_head)


def merge_len_and_d_head(x):
    b, h, length, d_head = x.shape
    return x.reshape(b, h, length * d_head)


def merge_float64(x):
    return merge_transpose_reshape(x).double()


def merge_unpacked_as_split(x):
    """x.shape unpacked in split_heads' layout (blind6b-merge-unpacks-split-layout): the
    transpose is there, len and num_heads are exchanged in the reshape."""
    b, length, h, d_head = x.shape
    return x.transpose(1, 2).reshape(b, length, h * d_head)


def merge_transpose_1_3(x):
    """transpose(1, 3) instead of (1, 2) (mutant-merge_heads-1; before: only located)."""
    b, h, length, d_head = x.shape
    return x.transpose(1, 3).reshape(b, length, h * d_head)


def merge_heads_axis_first(x):
    """x.shape unpacked as (num_heads, batch, len, d_head) and permuted (1, 2, 0, 3)
    (blind8d-merge-unpacks-heads-first; before: only the first wrong entry located)."""
    h, b, length, d_head = x.shape
    return x.permute(1, 2, 0, 3).reshape(b, length, h * d_head)


def merge_squeezed(x):
    """A bare .squeeze() at the end (blind10g-merge-squeeze-drops-batch-of-one; before:
    told 'len and batch exchanged', a permutation that a size-1 axis lets match)."""
    b, h, length, d_head = x.shape
    return x.transpose(1, 2).reshape(b, length, h * d_head).squeeze()


def merge_flattens_batch(x):
    """Folds batch and len into one axis (blind7b-merge-flattens-batch; before: the
    contract's shape restated)."""
    return x.transpose(1, 2).reshape(-1, x.shape[1] * x.shape[3])


def merge_batch_of_one(x):
    """A batch of one written into the reshape (blind6b-merge-batch-of-one)."""
    _, h, length, d_head = x.shape
    return x.transpose(1, 2).reshape(1, length, h * d_head)


def split_transposed_then_reshaped(x, num_heads):  # blind9d-split-transpose-before-reshape
    batch, length, d_model = x.shape
    return x.mT.reshape(batch, num_heads, length, d_model // num_heads)


def merge_heads_averaged(x):  # the heads reduced, not concatenated (blind9d-merge-heads-summed)
    return x.mean(dim=1)


def merge_flattened_from_dim_1(x):  # blind9d-merge-flatten-from-dim-1
    return x.permute(0, 2, 1, 3).reshape(x.shape[0], -1)


def split_folded_head_major(x, num_heads):  # blind10d-split-heads-concat-on-batch-axis's kind
    return torch.stack(x.chunk(num_heads, dim=-1)).flatten(0, 1)


def split_slices_joined_on_length(x, num_heads):  # heads end to end: cat where stack belongs
    d_head = x.shape[-1] // num_heads
    return torch.cat([x[..., i * d_head : (i + 1) * d_head] for i in range(num_heads)], dim=1)


def merge_eight_heads_fixed(x):  # round 10's kind (blind10d-merge-loop-over-eight-heads)
    batch, _, length, d_head = x.shape
    return x.transpose(1, 2).reshape(batch, length, 8 * d_head)


def split_twelve_heads_fixed(x, num_heads):  # the number of heads ignored: BERT-base's 12
    batch, length, d_model = x.shape
    return x.reshape(batch, length, 12, d_model // 12).transpose(1, 2)


# ============================================================ MultiHeadAttention
class Base(nn.Module):
    """What a learner's __init__ looks like; forward is what the variants change."""

    def __init__(self, d_model, num_heads, dropout=0.0):
        super().__init__()
        self.d_model, self.num_heads, self.d_head = d_model, num_heads, d_model // num_heads
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)

    def split(self, x):  # (batch, len, d_model) -> (batch, heads, len, d_head)
        return x.reshape(x.shape[0], x.shape[1], self.num_heads, self.d_head).transpose(1, 2)

    def merge(self, x):  # (batch, heads, len, d_head) -> (batch, len, d_model)
        return x.transpose(1, 2).reshape(x.shape[0], x.shape[2], self.d_model)

    def qkv(self, query, key, value):
        return self.split(self.w_q(query)), self.split(self.w_k(key)), self.split(self.w_v(value))


class RMSNormAfterOutputProjection(Base):  # a norm inside the layer (no residual)
    def __init__(self, d_model, num_heads, dropout=0.0):
        super().__init__(d_model, num_heads, dropout)
        self.out_norm = nn.RMSNorm(d_model)

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        return self.out_norm(self.w_o(self.merge(weights @ v))), weights


# ---------------------------------------------------------------- correct ones
class WithReferenceAttention(Base):
    """The solution: project, split, lesson-04 attention, merge, project."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        return self.w_o(self.merge(self.dropout(weights) @ v)), weights


class Einsum(Base):
    """Own math with einsum; fully masked rows zeroed by nan_to_num."""

    def forward(self, query, key, value, mask=None):
        b, lq, _ = query.shape
        lk = key.shape[1]
        q = self.w_q(query).reshape(b, lq, self.num_heads, self.d_head)
        k = self.w_k(key).reshape(b, lk, self.num_heads, self.d_head)
        v = self.w_v(value).reshape(b, lk, self.num_heads, self.d_head)
        scores = torch.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(self.d_head)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1).nan_to_num(0.0)
        heads = torch.einsum("bhqk,bkhd->bqhd", self.dropout(weights), v)
        return self.w_o(heads.reshape(b, lq, self.d_model)), weights


class LoopOverHeads(Base):
    """The paper's formula head by head: head_i = Attention(Q W_i^Q, K W_i^K, V W_i^V)."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.w_q(query), self.w_k(key), self.w_v(value)
        outputs, all_weights = [], []
        for i in range(self.num_heads):
            cols = slice(i * self.d_head, (i + 1) * self.d_head)
            head_mask = None
            if mask is not None:
                head_mask = mask if mask.dim() == 2 else mask[:, i if mask.shape[1] > 1 else 0]
            scores = q[..., cols] @ k[..., cols].transpose(-2, -1) / self.d_head**0.5
            if head_mask is not None:
                scores = scores.masked_fill(~head_mask, -1e9)
            weights = torch.softmax(scores, dim=-1)
            if head_mask is not None:
                weights = weights * head_mask.any(dim=-1, keepdim=True)
            outputs.append(self.dropout(weights) @ v[..., cols])
            all_weights.append(weights)
        return self.w_o(torch.cat(outputs, dim=-1)), torch.stack(all_weights, dim=1)


class TorchSdpaPlusWeights(Base):
    """Outputs from F.scaled_dot_product_attention (its dropout_p only while training),
    weights computed alongside."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        p = self.dropout.p if self.training else 0.0
        heads = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=p)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        weights = torch.where(torch.isnan(weights), torch.zeros_like(weights), weights)
        return self.w_o(self.merge(heads)), weights


class PermuteFloat64Inside(Base):
    """reshape + permute, the arithmetic in float64, cast back to the input dtype."""

    def forward(self, query, key, value, mask=None):
        def heads(x):
            b, length, _ = x.shape
            return x.reshape(b, length, self.num_heads, self.d_head).permute(0, 2, 1, 3).double()

        q, k, v = heads(self.w_q(query)), heads(self.w_k(key)), heads(self.w_v(value))
        scores = q @ k.transpose(-2, -1) * self.d_head**-0.5
        if mask is not None:
            scores = torch.where(mask, scores, torch.tensor(float("-inf"), dtype=scores.dtype))
        weights = torch.softmax(scores, dim=-1)
        if mask is not None:
            weights = torch.where(mask.any(-1, keepdim=True), weights, torch.zeros_like(weights))
        out = (self.dropout(weights) @ v).permute(0, 2, 1, 3)
        out = out.reshape(query.shape[0], query.shape[1], -1)
        return self.w_o(out.to(query.dtype)), weights.to(query.dtype)


class Float64Result(Base):
    """Everything after the projections in float64, and float64 returned (a note, not a fail)."""

    def forward(self, query, key, value, mask=None):
        q, k, v = (t.double() for t in self.qkv(query, key, value))
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        merged = self.merge(self.dropout(weights) @ v)
        return F.linear(merged, self.w_o.weight.double(), self.w_o.bias.double()), weights


class FunctionalDropout(Base):
    """F.dropout with training=self.training is as good as an nn.Dropout module."""

    def __init__(self, d_model, num_heads, dropout=0.0):
        super().__init__(d_model, num_heads, dropout)
        self.p = dropout

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        dropped = F.dropout(weights, self.p, training=self.training)
        return self.w_o(self.merge(dropped @ v)), weights


def _plain_attention(self, query, key, value, mask, *, fill, zero_dead=False):
    q, k, v = self.qkv(query, key, value)
    scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
    if mask is not None:
        scores = scores.masked_fill(~mask, fill)
    weights = torch.softmax(scores, dim=-1)
    if zero_dead and mask is not None:
        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return self.w_o(self.merge(self.dropout(weights) @ v)), weights


class LargeNegativeFill(Base):
    """-1e9 instead of -inf, fully masked rows left uniform (accepted with a note)."""

    def forward(self, query, key, value, mask=None):
        return _plain_attention(self, query, key, value, mask, fill=-1e9)


class FinfoMinFill(Base):
    """torch.finfo(dtype).min, the fill value that also works in float16."""

    def forward(self, query, key, value, mask=None):
        return _plain_attention(self, query, key, value, mask, fill=torch.finfo(query.dtype).min)


class MinusInfZeroedRows(Base):
    """-inf, then fully masked rows set to zero explicitly."""

    def forward(self, query, key, value, mask=None):
        return _plain_attention(self, query, key, value, mask, fill=float("-inf"), zero_dead=True)


class AdditiveMask(Base):
    """The paper's form: the bool mask turned into 0 / -inf and added to the scaled scores."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
        if mask is not None:
            scores = scores + torch.zeros(mask.shape).masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1).nan_to_num(0.0)
        return self.w_o(self.merge(self.dropout(weights) @ v)), weights


class AdditiveLargeNegativeInFloat64(Base):
    """-1e9 *added* to float64 scores: a fully masked row keeps the differences of its
    scores (a finite distribution over all keys, accepted with a note)."""

    def forward(self, query, key, value, mask=None):
        q, k, v = (t.double() for t in self.qkv(query, key, value))
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
        if mask is not None:
            scores = scores + (~mask) * -1e9
        weights = torch.softmax(scores, dim=-1)
        out = self.merge(self.dropout(weights) @ v).float()
        return self.w_o(out), weights.float()


def _annotated_attention(query, key, value, mask=None, dropout=None):
    """The Annotated Transformer's `attention`, written again: -1e9 fill, dropout on p_attn."""
    d_k = query.size(-1)
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    p_attn = scores.softmax(dim=-1)
    if dropout is not None:
        p_attn = dropout(p_attn)
    return torch.matmul(p_attn, value), p_attn


class AnnotatedTransformerStyle(nn.Module):
    """The Annotated Transformer's MultiHeadedAttention, with this contract's layer names
    instead of its ModuleList: `.view(nbatches, -1, h, d_k).transpose(1, 2)` to split,
    `.transpose(1, 2).contiguous().view(nbatches, -1, h * d_k)` to merge, and the weights
    returned after dropout (accepted with a note)."""

    def __init__(self, d_model, num_heads, dropout=0.0):
        super().__init__()
        assert d_model % num_heads == 0
        self.d_k = d_model // num_heads
        self.h = num_heads
        self.w_q, self.w_k, self.w_v, self.w_o = (nn.Linear(d_model, d_model) for _ in range(4))
        self.attn = None
        self.dropout = nn.Dropout(p=dropout)

    def forward(self, query, key, value, mask=None):
        nbatches = query.size(0)
        query, key, value = [
            lin(x).view(nbatches, -1, self.h, self.d_k).transpose(1, 2)
            for lin, x in zip((self.w_q, self.w_k, self.w_v), (query, key, value), strict=True)
        ]
        x, self.attn = _annotated_attention(query, key, value, mask=mask, dropout=self.dropout)
        x = x.transpose(1, 2).contiguous().view(nbatches, -1, self.h * self.d_k)
        return self.w_o(x), self.attn


def transpose_qkv(X, num_heads):
    """d2l: (batch, len, d_model) -> (batch * num_heads, len, d_head)."""
    X = X.reshape(X.shape[0], X.shape[1], num_heads, -1)
    X = X.permute(0, 2, 1, 3)
    return X.reshape(-1, X.shape[2], X.shape[3])


def transpose_output(X, num_heads):
    """d2l: the inverse of transpose_qkv."""
    X = X.reshape(-1, num_heads, X.shape[1], X.shape[2])
    X = X.permute(0, 2, 1, 3)
    return X.reshape(X.shape[0], X.shape[1], -1)


class D2lStyle(Base):
    """d2l's MultiHeadAttention: heads folded into the batch axis for torch.bmm, masked
    positions filled with -1e6 (its masked_softmax), the mask repeated for every head."""

    def forward(self, queries, keys, values, mask=None):
        batch, len_q, len_k = queries.shape[0], queries.shape[1], keys.shape[1]
        queries = transpose_qkv(self.w_q(queries), self.num_heads)
        keys = transpose_qkv(self.w_k(keys), self.num_heads)
        values = transpose_qkv(self.w_v(values), self.num_heads)
        scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(queries.shape[-1])
        if mask is not None:
            flat = mask.expand(batch, self.num_heads, len_q, len_k).reshape(-1, len_q, len_k)
            scores = scores.masked_fill(~flat, -1e6)
        weights = F.softmax(scores, dim=-1)  # (batch * num_heads, len_q, len_k)
        output = torch.bmm(self.dropout(weights), values)
        output_concat = transpose_output(output, self.num_heads)
        return self.w_o(output_concat), weights.reshape(batch, self.num_heads, len_q, len_k)


class NanoGPTStyle(Base):
    """nanoGPT's CausalSelfAttention, generalised to cross-attention and any mask."""

    def forward(self, query, key, value, mask=None):
        B, T, C = query.size()
        S, nh = key.size(1), self.num_heads
        q = self.w_q(query).view(B, T, nh, C // nh).transpose(1, 2)
        k = self.w_k(key).view(B, S, nh, C // nh).transpose(1, 2)
        v = self.w_v(value).view(B, S, nh, C // nh).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        if mask is not None:
            att = att.masked_fill(mask == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        att = att.masked_fill(att.isnan(), 0.0)  # rows with no key (never causal-only)
        y = self.dropout(att) @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.w_o(y), att


class ChunkStackHeads(Base):
    """Heads cut with torch.chunk and stacked, einsum for both products, torch.where with
    finfo.min for the mask, heads glued back with unbind + cat."""

    def forward(self, query, key, value, mask=None):
        def heads(x):
            return torch.stack(x.chunk(self.num_heads, dim=-1), dim=1)

        q, k, v = heads(self.w_q(query)), heads(self.w_k(key)), heads(self.w_v(value))
        scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(self.d_head)
        if mask is not None:
            scores = torch.where(mask, scores, torch.finfo(scores.dtype).min)
        weights = scores.softmax(dim=-1)
        out = torch.einsum("bhqk,bhkd->bhqd", self.dropout(weights), v)
        return self.w_o(torch.cat(out.unbind(dim=1), dim=-1)), weights


class WeightsAfterDropout(Base):
    """Returns the weights after dropout, as nn.MultiheadAttention does in training."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        weights = self.dropout(weights)
        return self.w_o(self.merge(weights @ v)), weights


class DropoutOnValues(Base):
    """Dropout on the values instead of on the attention weights (issue 22, blind round 5)."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        return self.w_o(self.merge(weights @ self.dropout(v))), weights


class DropoutOnHeads(Base):
    """Dropout on the heads (weights @ v) instead of on the attention weights."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        return self.w_o(self.merge(self.dropout(weights @ v))), weights


class TrainingBranchMixesKeys(Base):
    """In training, the dropped-out weights multiply the projected keys, not the values."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        if self.training and self.dropout.p > 0:  # dropout skipped when it does nothing
            heads = torch.matmul(self.dropout(weights), k)  # (batch, heads, len_q, d_head)
        else:
            heads = weights @ v
        return self.w_o(self.merge(heads)), weights


class MaskDefaultsToLastOne(Base):
    """A call without a mask reuses the mask of the last call that had one."""

    saved_mask = None

    def forward(self, query, key, value, mask=None):
        if mask is not None:
            self.saved_mask = mask
        q, k, v = self.qkv(query, key, value)
        _, weights = scaled_dot_product_attention(q, k, v, self.saved_mask)
        return self.w_o(self.merge(self.dropout(weights) @ v)), weights


class AttentionPairIndexedBackwards(Base):
    """The attention's (output, weights) read as result[1], result[0]."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        result = scaled_dot_product_attention(q, k, v, mask)
        heads, weights = result[1], result[0]
        return self.w_o(self.merge(heads)), weights


class ReturnsHeadsForWeights(Base):
    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        heads = self.dropout(weights) @ v  # (batch, heads, len_q, d_head)
        return self.w_o(self.merge(heads)), heads


class ProjectsTheValuesOnly(Base):
    """The weights computed and returned, but the values, not weights @ v, concatenated."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        concatenated = v.transpose(1, 2).flatten(2)  # (batch, len_k, d_model)
        return self.w_o(concatenated), weights


def merge_heads_counted_by_width(x):  # the head count read from the last axis
    pieces = []
    for head in range(x.size(-1)):
        pieces.append(x[:, head])  # (batch, len, d_head)
    return torch.cat(pieces, dim=-1)


class KeepProbabilityDropout(Base):
    """The dropout argument read as the probability of keeping a weight."""

    def __init__(self, d_model, num_heads, dropout=0.0):
        super().__init__(d_model, num_heads, dropout)
        self.dropout = nn.Dropout(p=max(0.0, 1.0 - dropout))  # keep_prob -> drop rate

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        return self.w_o(self.merge(self.dropout(weights) @ v)), weights


class ScoresWithDotT(Base):
    """q @ k.T on 4-D tensors, .T reversing all four axes (blind10g-mha-inline-scores-with-
    dot-T; before: told of an element-wise operation, where a matmul's batch axes met)."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        scores = q @ k.T / math.sqrt(self.d_head)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        return self.w_o(self.merge(self.dropout(weights) @ v)), weights


class ProjectionsUntransposed(Base):
    """x @ w.weight + w.bias for q, k and v: nn.Linear's stored (out, in) weight applied
    untransposed (blind10g-mha-projection-weight-not-transposed; before: the formula
    restated)."""

    def qkv(self, query, key, value):
        q = query @ self.w_q.weight + self.w_q.bias
        k = key @ self.w_k.weight + self.w_k.bias
        v = value @ self.w_v.weight + self.w_v.bias
        return self.split(q), self.split(k), self.split(v)

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        return self.w_o(self.merge(self.dropout(weights) @ v)), weights


class OutputProjectionBeforeMerge(WithReferenceAttention):
    """w_o applied to the split heads, merge_heads(w_o(heads)) (blind10g-mha-output-
    projection-before-merge; before: the generic matmul advice, 'usually a transpose')."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        return self.merge(self.w_o(self.dropout(weights) @ v)), weights


class DropoutNotRescaled(Base):
    """Drops attention weights but does not scale the kept ones by 1/(1 - p) (no name)."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        if self.training:
            keep = torch.rand_like(weights) >= self.dropout.p
            return self.w_o(self.merge((weights * keep) @ v)), weights
        return self.w_o(self.merge(weights @ v)), weights


class MaskUnsqueezedAgain(Base):
    """Adds a heads axis to a mask that already has one, as the Annotated Transformer
    does for its 3-D masks (issue 22, blind round 5)."""

    def forward(self, query, key, value, mask=None):
        if mask is not None:
            mask = mask.unsqueeze(1)
        q, k, v = self.qkv(query, key, value)
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        return self.w_o(self.merge(self.dropout(weights) @ v)), weights


class SplitIntoDHeadHeads(Base):
    """Passes d_head where split_heads expects the number of heads (blind round 5)."""

    def forward(self, query, key, value, mask=None):
        def split(x):
            return x.reshape(x.shape[0], x.shape[1], self.d_head, self.num_heads).transpose(1, 2)

        q, k, v = split(self.w_q(query)), split(self.w_k(key)), split(self.w_v(value))
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        merged = weights @ v
        return self.w_o(merged.transpose(1, 2).reshape(query.shape)), weights


# ------------------------------------------------------------------- mistakes
def own_math(
    self,
    query,
    key,
    value,
    mask=None,
    *,
    q_in="query",
    k_in="key",
    k_layer="w_k",
    v_layer="w_v",
    v_in="value",
    divisor="sqrt_d_head",
    softmax_dim=-1,
    fill=float("-inf"),
    invert=False,
    use_mask=True,
    zero_dead=True,
    split_ok=True,
    merge_ok=True,
    use_w_o=True,
    average=False,
):
    """A learner's forward with one thing changed (each keyword is one classic mistake)."""
    inputs = {"query": query, "key": key, "value": value}
    layer = {"w_q": self.w_q, "w_k": self.w_k, "w_v": self.w_v, None: nn.Identity()}

    def split(x):
        b, length, _ = x.shape
        if split_ok:
            return self.split(x)
        return x.reshape(b, self.num_heads, length, self.d_head)

    q = split(self.w_q(inputs[q_in]))
    k = split(layer[k_layer](inputs[k_in]))
    v = split(layer[v_layer](inputs[v_in]))
    scale = {
        "sqrt_d_head": math.sqrt(self.d_head),
        "sqrt_d_model": math.sqrt(self.d_model),
        "d_head": self.d_head,
        "none": 1.0,
        "sqrt_num_heads": math.sqrt(self.num_heads),
        "power_precedence": self.d_head**1 / 2,  # d_head ** 1/2 as Python reads it
        "d_head_to_0.4": self.d_head**0.4,  # no usual formula
    }[divisor]
    scores = q @ k.transpose(-2, -1) / scale
    if mask is not None and use_mask:
        scores = scores.masked_fill(mask if invert else ~mask, fill)
    weights = torch.softmax(scores, dim=softmax_dim)
    if mask is not None and use_mask and zero_dead and not invert:
        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    heads = self.dropout(weights) @ v
    b, h, lq, dh = heads.shape
    merged = self.merge(heads) if merge_ok else heads.reshape(b, lq, h * dh)
    out = self.w_o(merged) if use_w_o else merged
    return out, (weights.mean(dim=1) if average else weights)


def mistake(name, **knobs):
    def forward(self, *args, **kwargs):
        return own_math(self, *args, **kwargs, **knobs)

    return type(name, (Base,), {"forward": forward})


class MaskAfterSoftmax(Base):
    """Multiplies the softmax's weights by the mask and never renormalises (blind7b-mha-
    inline-mask-after-softmax; before: told to take the softmax over dim=-1)."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        weights = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(self.d_head), dim=-1)
        if mask is not None:
            weights = weights * mask
        return self.w_o(self.merge(self.dropout(weights) @ v)), weights


class MaskOnFirstHeadOnly(Base):
    """Masks the scores of head 0 alone (scores[:, :1]), the other heads see every key."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)  # (b, h, len_q, len_k)
        if mask is not None:
            first = scores[:, :1].masked_fill(~mask, float("-inf"))  # (b, 1, len_q, len_k)
            scores = torch.cat([first, scores[:, 1:]], dim=1)
        weights = torch.nan_to_num(scores.softmax(dim=-1))
        return self.w_o(self.merge(self.dropout(weights) @ v)), weights


class OutputsKeptByInputs(Base):
    """Memoises (output, weights) on the inputs' identities: a weight update never shows."""

    def forward(self, query, key, value, mask=None):
        token = (id(query), id(key), id(value), id(mask))
        if token not in self.__dict__.setdefault("kept", {}):
            q, k, v = self.qkv(query, key, value)
            heads, weights = scaled_dot_product_attention(q, k, v, mask)
            if self.training and self.dropout.p > 0:
                heads = self.dropout(weights) @ v
            self.kept[token] = (self.w_o(self.merge(heads)), weights)
        return self.kept[token]


class MergeKeepsHeadsAxis(Base):
    """Merges with a reshape that keeps the heads axis second, (batch, num_heads,
    len_q * d_head): w_o then meets len_q * d_head numbers per row."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)  # (b, h, len_q, len_k)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = scores.softmax(dim=-1)
        heads = self.dropout(weights) @ v  # (b, h, len_q, d_head)
        merged = heads.reshape(heads.shape[0], self.num_heads, -1)  # (b, h, len_q * d_head)
        return self.w_o(merged), weights


class ForwardKeyQueryValueOrder(Base):
    """Declares forward(self, key, query, value, mask=None): a positional call takes the
    queries from `key` and the keys from `query`."""

    def forward(self, key, query, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)  # (b, h, len_q, len_k)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = scores.softmax(dim=-1)
        return self.w_o(self.merge(self.dropout(weights) @ v)), weights


class QueriesProjectedWithWv(Base):
    """Projects the queries with w_v (a copy-paste slip): self.w_v(query)."""

    def forward(self, query, key, value, mask=None):
        q = self.split(self.w_v(query))  # (b, h, len_q, d_head)
        k, v = self.split(self.w_k(key)), self.split(self.w_v(value))
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)  # (b, h, len_q, len_k)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = scores.softmax(dim=-1)
        return self.w_o(self.merge(self.dropout(weights) @ v)), weights


class ScoresFilledWithTinyNegative(Base):
    """Blocks in place with -1e-10, the exponent's sign slipped from -1e10: a blocked score
    stays practically 0, an ordinary score."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)  # (b, h, len_q, len_k)
        if mask is not None:
            scores.masked_fill_(mask == 0, -1e-10)
        weights = scores.softmax(dim=-1)
        return self.w_o(self.merge(self.dropout(weights) @ v)), weights


class BoolMaskAddedAsFloat(Base):
    """Adds the bool mask as a float, the way an additive mask of 0 and -inf is used: the
    allowed keys get +1, nothing is blocked."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)  # (b, h, len_q, len_k)
        if mask is not None:
            scores += mask.float()
        weights = torch.softmax(scores, dim=-1)
        return self.w_o(self.merge(self.dropout(weights) @ v)), weights


class WeightsThroughTwoDropouts(Base):
    """Two dropout modules both built from the argument (nanoGPT keeps an attn_dropout and a
    resid_dropout) and both applied to the weights: each weight is dropped twice."""

    def __init__(self, d_model, num_heads, dropout=0.0):
        super().__init__(d_model, num_heads, dropout)
        self.attn_dropout = nn.Dropout(dropout)

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        heads = self.attn_dropout(self.dropout(weights)) @ v  # (b, h, len_q, d_head)
        return self.w_o(self.merge(heads)), weights


class TorchAttentionUnpackedOwnMerge(Base):
    """PyTorch's fused attention unpacked as (output, weights), merged by hand: the one
    tensor it returns is split along its batch axis, and the merge's reshape refuses it."""

    def forward(self, query, key, value, mask=None):
        b, len_q, _ = query.shape
        q, k, v = self.qkv(query, key, value)
        out, attn = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        out = out.transpose(1, 2).contiguous().view(b, len_q, self.d_model)  # (b, len_q, d)
        return self.w_o(out), attn


class KeysViewedWithQueryLength(Base):
    """Splits the keys and values with the query's length (blind6b-mha-kv-viewed-with-
    query-length): self-attention works, cross-attention raises in the view."""

    def forward(self, query, key, value, mask=None):
        b, len_q = query.shape[:2]
        q = self.split(self.w_q(query))
        k = self.w_k(key).view(b, len_q, -1, self.d_head).transpose(1, 2)
        v = self.w_v(value).view(b, len_q, -1, self.d_head).transpose(1, 2)
        heads, weights = scaled_dot_product_attention(q, k, v, mask)
        return self.w_o(self.merge(heads)), weights


class HeadsOfABatchOfOne(Base):
    """Splits the heads with a batch of one written in (a single-sentence example's code)."""

    def forward(self, query, key, value, mask=None):
        def split(t):
            return t.view(1, t.shape[1], self.num_heads, self.d_head).transpose(1, 2)

        q, k, v = split(self.w_q(query)), split(self.w_k(key)), split(self.w_v(value))
        heads, weights = scaled_dot_product_attention(q, k, v, mask)
        return self.w_o(self.merge(heads)), weights


class QueriesOfHeadZero(Base):
    """Every head attends with head 0's queries: q is not split like k and v."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        q = q[:, :1].expand_as(q)
        heads, weights = scaled_dot_product_attention(q, k, v, mask)
        return self.w_o(self.merge(heads)), weights


class InvertedMaskWithReference(Base):
    """Passes ~mask to the lesson-04 attention (the polarity of nn.MultiheadAttention)."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        out, weights = scaled_dot_product_attention(q, k, v, None if mask is None else ~mask)
        return self.w_o(self.merge(out)), weights


class SharedLinear(Base):
    def __init__(self, d_model, num_heads, dropout=0.0):
        super().__init__(d_model, num_heads, dropout)
        self.w_q = self.w_k = self.w_v = nn.Linear(d_model, d_model)

    forward = WithReferenceAttention.forward


class FusedLinear(nn.Module):
    def __init__(self, d_model, num_heads, dropout=0.0):
        super().__init__()
        self.num_heads = num_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.w_o = nn.Linear(d_model, d_model)

    def forward(self, query, key, value, mask=None):
        raise AssertionError("never called: the state dict is rejected first")


class AnnotatedTransformerLinears(nn.Module):
    """The Annotated Transformer's `self.linears = clones(nn.Linear(d_model, d_model), 4)`:
    the same computation, but the state dict says linears.0 ... linears.3."""

    def __init__(self, d_model, num_heads, dropout=0.0):
        super().__init__()
        self.d_k, self.h = d_model // num_heads, num_heads
        self.linears = nn.ModuleList(nn.Linear(d_model, d_model) for _ in range(4))
        self.dropout = nn.Dropout(p=dropout)

    def forward(self, query, key, value, mask=None):
        raise AssertionError("never called: the state dict is rejected first")


class NoBias(Base):
    def __init__(self, d_model, num_heads, dropout=0.0):
        super().__init__(d_model, num_heads, dropout)
        for name in ("w_q", "w_k", "w_v", "w_o"):
            setattr(self, name, nn.Linear(d_model, d_model, bias=False))

    forward = WithReferenceAttention.forward


class PerHeadLinear(Base):
    """W_Q of one head (d_model -> d_head) instead of all heads at once."""

    def __init__(self, d_model, num_heads, dropout=0.0):
        super().__init__(d_model, num_heads, dropout)
        d_head = d_model // num_heads
        self.w_q, self.w_k, self.w_v = (nn.Linear(d_model, d_head) for _ in range(3))


class ValueProjectionReadsOneHead(Base):
    """W_V built to read one head's width (d_head -> d_model) instead of d_model."""

    def __init__(self, d_model, num_heads, dropout=0.0):
        super().__init__(d_model, num_heads, dropout)
        self.w_v = nn.Linear(d_model // num_heads, d_model)


class DropoutAlwaysOn(Base):
    """F.dropout without training=self.training: F.dropout defaults to training=True."""

    def __init__(self, d_model, num_heads, dropout=0.0):
        super().__init__(d_model, num_heads, dropout)
        self.p = dropout

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        return self.w_o(self.merge(F.dropout(weights, self.p) @ v)), weights


class MergedWithValueLength(Base):
    """Merges the heads back with the values' length, value.size(1) (len_k)."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        heads, weights = scaled_dot_product_attention(q, k, v, mask)
        merged = heads.permute(0, 2, 1, 3).reshape(query.size(0), value.size(1), self.d_model)
        return self.w_o(merged), weights


class DropoutNeverApplied(Base):
    """Creates self.dropout and never uses it."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        heads, weights = scaled_dot_product_attention(q, k, v, mask)
        return self.w_o(self.merge(heads)), weights


class DropoutAfterOutputProjection(Base):
    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        heads, weights = scaled_dot_product_attention(q, k, v, mask)
        return self.dropout(self.w_o(self.merge(heads))), weights


class DropoutOnScores(Base):
    """Dropout on the scaled scores, before the mask and the softmax."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        scores = self.dropout(q @ k.transpose(-2, -1) / math.sqrt(self.d_head))
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1).nan_to_num(0.0)
        return self.w_o(self.merge(weights @ v)), weights


class OnlyOutput(Base):
    def forward(self, query, key, value, mask=None):
        return WithReferenceAttention.forward(self, query, key, value, mask)[0]


class NoGrad(Base):
    @torch.no_grad()
    def forward(self, query, key, value, mask=None):
        return WithReferenceAttention.forward(self, query, key, value, mask)


class MergeWithoutTransposeNoOutputProjection(Base):
    """Two mistakes at once: the heads merged with a plain reshape, and no w_o."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        heads = self.dropout(weights) @ v  # (batch, heads, len_q, d_head)
        return heads.reshape(heads.shape[0], heads.shape[2], self.d_model), weights


class KeysValuesCachedOnFirstCall(Base):
    """Keeps the first call's projected keys and values on self and reuses them on every
    later call (blind8d-mha-keys-values-cached-first-call; before: accepted, every check
    built one module per call)."""

    cache = None

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        if self.cache is None:
            self.cache = (k, v)
        k, v = self.cache
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        return self.w_o(self.merge(self.dropout(weights) @ v)), weights


class _HeadsFoldedIntoBatch(Base):
    """Attention on (batch * num_heads, len, d_head), the mask copied per head by
    ``spread``; the weights unfolded back to (batch, num_heads, len_q, len_k)."""

    def spread(self, mask, shape):
        raise NotImplementedError

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        b, h, lq, lk = q.shape[0], self.num_heads, q.shape[2], k.shape[2]
        fold = lambda t: t.flatten(0, 1)  # noqa: E731
        if mask is not None:
            mask = self.spread(mask, (b, h, lq, lk))
        _, weights = scaled_dot_product_attention(fold(q), fold(k), fold(v), mask)
        heads = (self.dropout(weights) @ fold(v)).unflatten(0, (b, h))
        return self.w_o(self.merge(heads)), weights.unflatten(0, (b, h))


class HeadsFoldedMaskExpanded(_HeadsFoldedIntoBatch):
    """Correct: the mask expanded over the heads, folded in the same order as q, k, v."""

    def spread(self, mask, shape):
        return mask.expand(shape).flatten(0, 1)


class HeadsFoldedMaskTiled(_HeadsFoldedIntoBatch):
    """The batch's masks tiled (mask.repeat(heads, 1, 1)): heads take another sequence's
    mask (blind9d-mha-mask-repeat-not-interleave; before: told the mask is not applied)."""

    def spread(self, mask, shape):
        b, h, lq, lk = shape
        return mask.expand(b, 1, lq, lk)[:, 0].repeat(h, 1, 1)


class FixedEightHeads(Base):
    """Splits with a hard-coded 8 (the paper's h), not self.num_heads
    (blind9d-mha-num-heads-hardcoded-8; before: the shape alone)."""

    def forward(self, query, key, value, mask=None):
        b = query.shape[0]
        q, k, v = (
            layer(t).reshape(b, t.shape[1], 8, -1).transpose(1, 2)
            for layer, t in ((self.w_q, query), (self.w_k, key), (self.w_v, value))
        )
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        heads = (self.dropout(weights) @ v).transpose(1, 2).reshape(b, q.shape[2], self.d_model)
        return self.w_o(heads), weights


class QueriesPreScaled(Base):
    """Scales q by 1/sqrt(d_head), then calls the attention that scales again
    (blind9d-mha-queries-scaled-twice)."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        _, weights = scaled_dot_product_attention(q * self.d_head**-0.5, k, v, mask)
        return self.w_o(self.merge(self.dropout(weights) @ v)), weights


MISTAKES = [
    Mistake(
        check_MultiHeadAttention,
        RMSNormAfterOutputProjection,
        r"normalisation layer its contract does not have: `out_norm` is RMSNorm.*must not "
        r"normalise its result",
    ),
    Mistake(
        check_MultiHeadAttention,
        KeysValuesCachedOnFirstCall,
        r"when the same module was called once before.*keeps something from one call to the "
        r"next",
    ),
    Mistake(
        check_MultiHeadAttention,
        MergeWithoutTransposeNoOutputProjection,
        r"Two mistakes at once\. \(1\) .*output projection.* \(2\) .*without transpose",
    ),
    # split_heads
    Mistake(
        check_split_heads,
        split_no_transpose,
        r"reshaped straight to \(batch, num_heads, len, d_head\) without a transpose",
    ),
    Mistake(check_split_heads, split_strided, r"split along the wrong axis"),
    Mistake(
        check_split_heads,
        split_forgot_transpose,
        r"\(batch, len, num_heads, d_head\).*Add `\.transpose\(1, 2\)`",
    ),
    Mistake(
        check_split_heads,
        split_transpose_1_3,
        r"^(?![\s\S]* or \(num_heads)[\s\S]*Your axes come out in the order \(batch, d_head, "
        r"num_heads, len\): that is x\.reshape\(batch, len, num_heads, d_head\)\.permute\(0, 3, "
        r"2, 1\)",
    ),
    Mistake(
        check_split_heads, split_wrong_transpose, r"The last two axes are \(d_head, num_heads\)"
    ),
    Mistake(
        check_split_heads,
        split_heads_before_batch,
        r"\(num_heads, batch, len, d_head\)",
    ),
    Mistake(check_split_heads, split_d2l_folded, r"Keep batch and heads as separate axes.*d2l"),
    Mistake(check_split_heads, split_numpy, r"should be a Tensor, but it is a ndarray"),
    Mistake(check_split_heads, split_float32, r"should have dtype torch.float64"),
    Mistake(
        check_split_heads,
        split_rolled_heads,
        r"At index \[0, 0, 0, 0\] yours holds x\(0, 0, \d+\), but head 0 of token 0 should hold",
    ),
    # merge_heads
    Mistake(
        check_merge_heads, merge_no_transpose, r"straight to \(batch, len, d_model\) without a"
    ),
    Mistake(
        check_split_heads,
        split_transposed_then_reshaped,
        r"You transposed first and reshaped after",
    ),
    Mistake(check_merge_heads, merge_interleaved, r"interleaved"),
    Mistake(
        check_merge_heads,
        merge_heads_counted_by_width,
        r"counts the heads with d_head \(the size of the last axis\) instead of num_heads",
    ),
    Mistake(check_merge_heads, merge_heads_averaged, r"one head's width: the heads are averaged"),
    Mistake(
        check_merge_heads,
        merge_flattened_from_dim_1,
        r"the positions are flattened into the features too",
    ),
    Mistake(
        check_merge_heads,
        merge_transpose_1_3,
        r"Yours is x\.permute\(0, 3, 2, 1\) = x\.transpose\(1, 3\) reshaped",
    ),
    Mistake(
        check_merge_heads,
        merge_heads_axis_first,
        r"Yours is x\.permute\(1, 2, 0, 3\).*the num_heads and batch axes are exchanged",
    ),
    Mistake(check_merge_heads, merge_no_flatten, r"flatten the last two axes"),
    Mistake(check_merge_heads, merge_view_without_contiguous, r"[Uu]se `\.reshape\(\.\.\.\)`"),
    Mistake(check_merge_heads, merge_len_and_d_head, r"You flattened len and d_head together"),
    Mistake(check_merge_heads, merge_float64, r"should have dtype torch.float32"),
    Mistake(
        check_split_heads,
        split_pieces_of_num_heads,
        r"num_heads and d_head are swapped.*torch\.split\(x, num_heads, dim=-1\) stacked on "
        r"dim=1, whose second argument is the size",
    ),
    Mistake(
        check_split_heads,
        split_sequence_first,
        r"x\.shape was read as \(len, batch, d_model\), PyTorch's sequence-first order",
    ),
    Mistake(check_split_heads, split_batch_of_one, r"a batch of one, but the tensor holds batch"),
    # round 10: the heads folded into the batch axis, head-major (before: the shape, and a
    # note on d2l's batch-major fold)
    Mistake(
        check_split_heads,
        split_folded_head_major,
        r"Yours is 3-D: the heads are folded into the batch axis, head-major",
    ),
    # round 18: the heads laid end to end along the length axis (blind15d; before: "a
    # reshape, view, flatten or concatenation combined them")
    Mistake(
        check_split_heads,
        split_slices_joined_on_length,
        r"the heads are laid end to end along the length axis, head after head.*joined with "
        r"torch\.cat\(\.\.\., dim=1\), where torch\.stack\(\.\.\., dim=1\)",
    ),
    # round 10: a head count written into the code (before: a raw error, or only the shape)
    Mistake(
        check_split_heads,
        split_twelve_heads_fixed,
        r"Yours cuts x into 12 heads when asked for \d+: is 12 written into your code\?",
    ),
    Mistake(
        check_merge_heads,
        merge_eight_heads_fixed,
        r"Yours is right with 8 heads but not with \d+: is 8 written into your code\?",
    ),
    Mistake(
        check_MultiHeadAttention,
        HeadsOfABatchOfOne,
        r"a batch of one, but the tensor holds batch = \d+ sequences",
    ),
    Mistake(
        check_merge_heads,
        merge_flattens_batch,
        r"folds the batch and the positions together \(a reshape to \(-1, num_heads \* d_head\)\)",
    ),
    Mistake(check_merge_heads, merge_unpacked_as_split, r"the transpose is there, but the sizes"),
    Mistake(
        check_merge_heads, merge_squeezed, r"axes of size 1 .{0,40} are gone: a bare \.squeeze\(\)"
    ),
    Mistake(
        check_merge_heads,
        merge_batch_of_one,
        r"a batch of one, but the tensor holds batch = \d+ sequences",
    ),
    Mistake(
        check_MultiHeadAttention,
        KeysViewedWithQueryLength,
        r"a key or value projection \(len_k = \d+, the encoder's length\), but the shape asks "
        r"for len_q = \d+ positions",
    ),
    # attention written inline, masked or scaled wrongly (blind7b): before, the first was
    # told "the mask is not applied", the second to take the softmax over dim=-1, the last
    # two got the generic "largest difference" / "does not sum to 1"
    Mistake(
        check_MultiHeadAttention,
        mistake("ScoresTimesMask", fill=0.0),
        r"Your blocked scores become 0 or practically 0 \(the scores multiplied by the mask",
    ),
    # round 18: a fill value with the exponent's sign slipped (blind15d; before: told only
    # "the scores multiplied by the mask, or masked_fill with 0")
    Mistake(
        check_MultiHeadAttention,
        ScoresFilledWithTinyNegative,
        r"a fill value close to 0 such as -1e-9, a typo for -1e9",
    ),
    # round 18: a bool mask added to the scores (blind15d; before: "the mask is not applied")
    Mistake(
        check_MultiHeadAttention,
        BoolMaskAddedAsFloat,
        r"You added the bool mask to the scores \(scores \+ mask\): True counts as 1",
    ),
    # round 18: PyTorch's attention unpacked as a pair (blind15d; before: a raw error)
    Mistake(
        check_MultiHeadAttention,
        TorchAttentionUnpackedOwnMerge,
        r"unpacks a tensor whose first axis is the batch as a pair.*PyTorch's "
        r"F\.scaled_dot_product_attention returns only one tensor",
    ),
    # round 18: the weights dropped twice (blind15d; before: told the rate is fixed in the code)
    Mistake(
        check_MultiHeadAttention,
        WeightsThroughTwoDropouts,
        r"at 0\.36 when built with dropout=0\.2: the rate 1 - \(1 - p\)\^2 of dropout applied "
        r"twice",
    ),
    Mistake(
        check_MultiHeadAttention,
        ForwardKeyQueryValueOrder,
        r"queries come from `key` and your keys from `query`, the argument order",
    ),
    Mistake(
        check_MultiHeadAttention,
        QueriesProjectedWithWv,
        r"queries look like `query` projected with w_v",
    ),
    Mistake(check_MultiHeadAttention, MergeKeepsHeadsAxis, r"heads axis is still second"),
    Mistake(check_MultiHeadAttention, MaskAfterSoftmax, r"applied the mask after the softmax"),
    Mistake(
        check_MultiHeadAttention,
        OutputsKeptByInputs,
        r"after the module's weights changed in place.*returned exactly its earlier output",
    ),
    Mistake(
        check_MultiHeadAttention,
        MaskOnFirstHeadOnly,
        r"head 0 follows the mask exactly, while head",
    ),
    Mistake(
        check_MultiHeadAttention,
        FixedEightHeads,
        r"Your weights have 8 heads where this MultiHeadAttention was built with num_heads"
        r"|shape .\[2, 5, 8, -1\]. is invalid",  # hidden: d_model 12, not divisible by 8
    ),
    Mistake(
        check_MultiHeadAttention,
        QueriesPreScaled,
        r"divided the scores by d_head.*Scaled twice\? scaled_dot_product_attention already",
    ),
    Mistake(
        check_MultiHeadAttention,
        HeadsFoldedMaskTiled,
        r"zero exactly where the mask of batch element \d blocks.*repeat_interleave",
    ),
    Mistake(
        check_MultiHeadAttention,
        mistake("SoftmaxOverHeads", softmax_dim=1, fill=-1e9, zero_dead=False),
        r"sum to 1 over the heads axis \(dim=1\) instead of over the keys",
    ),
    Mistake(
        check_MultiHeadAttention,
        mistake("ScaledBySqrtNumHeads", divisor="sqrt_num_heads"),
        r"right scores q kᵀ divided by [\d.]+ = sqrt\(num_heads\)",
    ),
    # round 10 (blind10d-mha-inline-scale-power-precedence): the fallback before
    Mistake(
        check_MultiHeadAttention,
        mistake("ScalePowerPrecedence", divisor="power_precedence"),
        r"divided by [\d.]+ = d_head / 2 \(d_head \*\* 1/2 is read as \(d_head \*\* 1\) / 2",
    ),
    # a divisor no usual formula gives: shown per input, next to sqrt(d_head)
    Mistake(
        check_MultiHeadAttention,
        mistake("ScaleUnusualPower", divisor="d_head_to_0.4"),
        r"divided by a number other than sqrt\(d_head\) on the inputs the check ran \(d_head = "
        r"\d+ \(num_heads = \d+\): yours [\d.]+, sqrt\(d_head\) [\d.]+",
    ),
    # MultiHeadAttention: the layers
    Mistake(check_MultiHeadAttention, SharedLinear, r"one and the same object"),
    Mistake(check_MultiHeadAttention, FusedLinear, r"fused nn.Linear"),
    Mistake(
        check_MultiHeadAttention,
        AnnotatedTransformerLinears,
        r"ModuleList.*`self\.linears = clones\(nn\.Linear\(d_model, d_model\), 4\)`.*self\.w_q",
    ),
    Mistake(check_MultiHeadAttention, NoBias, r"no bias"),
    Mistake(
        check_MultiHeadAttention,
        ValueProjectionReadsOneHead,
        r"w_v takes only d_head inputs \(in_features = d_model // num_heads = \d+\)[^.]*"
        r"nn\.Linear\(d_head, d_model\)\. Every projection reads d_model features",
    ),
    Mistake(
        check_MultiHeadAttention,
        PerHeadLinear,
        r"w_q.weight has shape .* w_q and w_k and w_v project onto d_model // num_heads = \d+ "
        r"features, one head's width.*nn\.Linear\(d_model, d_model\)",
    ),
    # MultiHeadAttention: forward
    Mistake(check_MultiHeadAttention, mistake("ForgotWo", use_w_o=False), r"left out the output"),
    Mistake(
        check_MultiHeadAttention,
        mistake("KeysWithWq", k_layer="w_q"),
        r"keys look like `key` projected with w_q",
    ),
    Mistake(
        check_MultiHeadAttention,
        mistake("QueriesFromMemory", q_in="key"),
        r"queries come from `key`",
    ),
    Mistake(
        check_MultiHeadAttention,
        mistake("KeysValuesFromQuery", k_in="query", v_in="query"),
        r"Your keys and (your )?values (both )?come from `query`(\.|:) [Ii]n cross-attention",
    ),
    Mistake(
        check_MultiHeadAttention,
        mistake("KeysFromQuery", k_in="query"),
        r"(?s)len_q = \d.*yours gives exactly what this gives: Your keys come from `query`",
    ),
    Mistake(
        check_MultiHeadAttention, mistake("ScaleDModel", divisor="sqrt_d_model"), r"sqrt\(d_model\)"
    ),
    Mistake(check_MultiHeadAttention, mistake("NoScaling", divisor="none"), r"did not scale"),
    Mistake(
        check_MultiHeadAttention,
        mistake("ScaleDHeadNoSqrt", divisor="d_head"),
        r"divided the scores by d_head",
    ),
    Mistake(check_MultiHeadAttention, mistake("SoftmaxOverQueries", softmax_dim=-2), r"dim=-2"),
    Mistake(check_MultiHeadAttention, mistake("MaskIgnored", use_mask=False), r"ignores the mask"),
    Mistake(
        check_MultiHeadAttention,
        mistake("MaskInvertedOwnMath", invert=True),
        r"inverted.*True means 'may attend'",
    ),
    Mistake(check_MultiHeadAttention, InvertedMaskWithReference, r"inverted"),
    Mistake(
        check_MultiHeadAttention,
        mistake("AveragedWeights", average=True),
        r"averaged over the heads",
    ),
    Mistake(
        check_MultiHeadAttention,
        mistake("SplitNoTranspose", split_ok=False),
        r"not the ones split_heads makes",
    ),
    Mistake(
        check_MultiHeadAttention,
        mistake("MergeNoTranspose", merge_ok=False),
        r"merged the heads with a reshape",
    ),
    Mistake(
        check_MultiHeadAttention,
        mistake("MinusInfNoDeadRows", zero_dead=False),
        r"mask is all False.*came out as NaN",
    ),
    Mistake(
        check_MultiHeadAttention,
        mistake("ValuesNotProjected", v_layer=None),
        r"values are not projected",
    ),
    Mistake(
        check_MultiHeadAttention,
        mistake("ValuesFromKey", v_in="key"),
        r"values come from the `key` input",
    ),
    Mistake(
        check_MultiHeadAttention,
        mistake("ValuesFromQuery", v_in="query"),
        r"values come from (the )?`query`",
    ),
    Mistake(check_MultiHeadAttention, OnlyOutput, r"should return a pair: \(output, weights\)"),
    Mistake(
        check_MultiHeadAttention,
        QueriesOfHeadZero,
        r"Every head uses the queries of head 0.*not split into heads",
    ),
    Mistake(check_MultiHeadAttention, NoGrad, r"requires_grad is False"),
    # MultiHeadAttention: dropout, in eval and in train mode
    Mistake(
        check_MultiHeadAttention,
        DropoutAlwaysOn,
        r"^(?!.*largest difference).*two calls on the same inputs, in eval mode, give two "
        r"different outputs.*eval mode, where dropout must do nothing",
    ),
    Mistake(check_MultiHeadAttention, DropoutNeverApplied, r"dropout is not applied in training"),
    Mistake(
        check_MultiHeadAttention,
        MergedWithValueLength,
        r"the attention's output, merged back.*merge with the queries' length",
    ),
    Mistake(check_MultiHeadAttention, DropoutAfterOutputProjection, r"after w_o"),
    Mistake(check_MultiHeadAttention, DropoutOnScores, r"applied dropout to the scores"),
    Mistake(check_MultiHeadAttention, DropoutOnValues, r"applied dropout to the values v instead"),
    Mistake(
        check_MultiHeadAttention,
        MaskUnsqueezedAgain,
        r"runs on these inputs without a mask but fails.*already has its heads axis",
    ),
    Mistake(
        check_MultiHeadAttention,
        SplitIntoDHeadHeads,
        r"number of heads and the width of a head are swapped.*or a head count written as a "
        r"number",
    ),
    Mistake(check_MultiHeadAttention, DropoutOnHeads, r"dropout to the attention's result"),
    Mistake(
        check_MultiHeadAttention,
        AttentionPairIndexedBackwards,
        r"is the heads, each head's weights @ v.*unpacked the other way round",
    ),
    Mistake(
        check_MultiHeadAttention,
        ReturnsHeadsForWeights,
        r"it is the heads, each head's weights @ v.*your output is right",
    ),
    Mistake(
        check_MultiHeadAttention,
        ProjectsTheValuesOnly,
        r"Your output is w_o of the projected values alone.*weights never reach the output",
    ),
    Mistake(
        check_MultiHeadAttention,
        KeepProbabilityDropout,
        r"built with dropout=0\.0, your layer drops every attention weight in train mode.*"
        r"probability of keeping a weight",
    ),
    Mistake(
        check_MultiHeadAttention,
        MaskDefaultsToLastOne,
        r"gives the masked output again.*the earlier call's mask was kept on the module",
    ),
    Mistake(
        check_MultiHeadAttention,
        TrainingBranchMixesKeys,
        r"\(dropped-out attention weights\) @ k, the projected keys .*instead of @ v",
    ),
    Mistake(
        check_MultiHeadAttention,
        OutputProjectionBeforeMerge,
        r"received vectors \d+ wide, one head's d_head.{0,200}self\.w_o\(merge_heads\(heads\)\)",
    ),
    Mistake(
        check_MultiHeadAttention,
        ProjectionsUntransposed,
        r"queries, keys and values are x @ w\.weight \+ w\.bias",
    ),
    Mistake(
        check_MultiHeadAttention, ScoresWithDotT, r"uses `\.T`, which reverses \*all\* the axes"
    ),
    Mistake(
        check_MultiHeadAttention,
        DropoutNotRescaled,
        r"^(?!.*(values v instead|attention's result)).*not \(dropped-out attention weights\)",
    ),
    # concept questions
]

CORRECT = [
    *(
        Correct(check_split_heads, fn)
        for fn in (
            split_view_transpose,
            split_permute,
            split_unflatten,
            split_chunk_stack,
            split_loop,
            split_einsum,
            split_annotated_transformer,
            split_nanogpt,
            split_d2l_then_unfold,
        )
    ),
    *(
        Correct(check_merge_heads, fn)
        for fn in (
            merge_transpose_reshape,
            merge_contiguous_view,
            merge_cat,
            merge_unbind_cat,
            merge_flatten,
            merge_einsum,
            merge_annotated_transformer,
            merge_d2l_transpose_output,
        )
    ),
    *(
        Correct(check_MultiHeadAttention, cls)
        for cls in (
            WithReferenceAttention,
            Einsum,
            LoopOverHeads,
            PermuteFloat64Inside,
            Float64Result,
            FunctionalDropout,
            LargeNegativeFill,
            FinfoMinFill,
            MinusInfZeroedRows,
            AdditiveMask,
            AdditiveLargeNegativeInFloat64,
            AnnotatedTransformerStyle,
            D2lStyle,
            NanoGPTStyle,
            ChunkStackHeads,
            WeightsAfterDropout,
            HeadsFoldedMaskExpanded,
        )
    ),
]

MISTAKES.append(  # right values through the API the exercise forbids (issue 22)
    Mistake(
        check_MultiHeadAttention,
        TorchSdpaPlusWeights,
        r"(?s)calls torch\.nn\.functional\.scaled_dot_product_attention.*grader scores it 0",
    )
)


# Round 11 (r11d): fixes by family, each proved on the blind case's mistake and on another
# member of the family that no case contains.
# -- the batch axis mishandled: right on every sequence alone, wrong on the batch
def split_one_sequence(x, num_heads):  # blind11d-split-assumes-batch-of-one's mistake
    t, d = x.shape[1], x.shape[2]
    return x.view(t, num_heads, d // num_heads).permute(1, 0, 2)[None]


def split_first_sequence_only(x, num_heads):  # the family: x[0], a (1, ...) result
    return ref.split_heads(x[0][None], num_heads)


def merge_first_sequence_only(x):  # the family, in merge_heads: an index [0]
    heads = x[0].transpose(0, 1)  # (len, num_heads, d_head)
    return heads.reshape(heads.shape[0], -1)[None]


_BATCH_AXIS = r"right for each sequence given alone .* does not handle the batch axis"


# -- the sizes num_heads and d_head swapped
def split_sizes_swapped(x, num_heads):  # blind11d-split-heads-and-width-swapped's mistake
    b, t, d = x.shape
    return x.view(b, t, d // num_heads, num_heads).permute(0, 2, 1, 3)


def split_unflatten_sizes_swapped(x, num_heads):  # the family: unflatten given (-1, num_heads)
    return x.unflatten(-1, (-1, num_heads)).transpose(1, 2)


# -- a step's result thrown away (a non-in-place op on a line of its own)
class MaskedFillResultDropped(Base):  # blind11d-mha-masked-fill-result-dropped
    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
        if mask is not None:
            scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        return self.w_o(self.merge(self.dropout(weights) @ v)), weights


class ScaleResultDropped(Base):  # the family: the division's result dropped
    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        scores = q @ k.transpose(-2, -1)
        scores.div(math.sqrt(self.d_head))
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1).nan_to_num(0.0)
        return self.w_o(self.merge(self.dropout(weights) @ v)), weights


class DropoutResultDropped(Base):  # the family: self.dropout(weights) on a line of its own
    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        heads, weights = scaled_dot_product_attention(q, k, v, mask)
        if self.training:
            self.dropout(weights)
        return self.w_o(self.merge(heads)), weights


# -- axes of size 1 lost (a bare .squeeze() on a batch of one): the same numbers in the same
# order as heads folded into the batch axis there, told apart by a batch of two
def split_then_bare_squeeze(x, num_heads):
    b, t, d = x.shape
    return x.reshape(b, t, num_heads, d // num_heads).transpose(1, 2).squeeze()


class WeightsSqueezed(Base):  # the family in MultiHeadAttention's weights
    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        heads, weights = scaled_dot_product_attention(q, k, v, mask)
        heads = self.dropout(weights) @ v
        return self.w_o(self.merge(heads)), weights.squeeze(0)


class WeightsAveragedKeepdim(Base):  # (batch, 1, len_q, len_k): was named a head count of 1
    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        heads, weights = scaled_dot_product_attention(q, k, v, mask)
        heads = self.dropout(weights) @ v
        return self.w_o(self.merge(heads)), weights.mean(dim=1, keepdim=True)


# -- the batch axis mishandled in MultiHeadAttention (checking.batch_rows)
class FirstSequenceMaskForAll(Base):  # mask[0]: sequence 0's padding used for every sequence
    def forward(self, query, key, value, mask=None):
        if mask is not None and mask.ndim == 4:
            mask = mask[0]
        q, k, v = self.qkv(query, key, value)
        heads, weights = scaled_dot_product_attention(q, k, v, mask)
        heads = self.dropout(weights) @ v
        return self.w_o(self.merge(heads)), weights


class FirstSequenceOutputForAll(Base):  # sequence 0's result broadcast over the batch
    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        heads, weights = scaled_dot_product_attention(q, k, v, mask)
        heads = self.dropout(weights) @ v
        out = self.w_o(self.merge(heads))
        return out[:1].expand_as(out), weights


# -- weights of the wrong shape or layout whose numbers are the reference's, named by value
# (round 11: head 0's weights alone and the summed heads were told "averaged", the weights
# transposed on return "take the softmax over dim=-1")
def _returning(name, transform):
    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        heads, weights = scaled_dot_product_attention(q, k, v, mask)
        heads = self.dropout(weights) @ v
        return self.w_o(self.merge(heads)), transform(weights)

    return type(name, (Base,), {"forward": forward})


WeightsOfHeadZero = _returning("WeightsOfHeadZero", lambda w: w[:, 0])
WeightsSummedOverHeads = _returning("WeightsSummedOverHeads", lambda w: w.sum(dim=1))
WeightsTransposedOnReturn = _returning("WeightsTransposedOnReturn", lambda w: w.mT)


def split_batch_and_heads_exchanged(x, num_heads):  # (num_heads, len, batch, d_head)
    b, t, d = x.shape
    return x.reshape(b, t, num_heads, d // num_heads).transpose(0, 2)


# -- a reshape size taken from the wrong variable (checking.reshape_sizes)
def split_d_head_from_len(x, num_heads):
    b, t, _ = x.shape
    return x.reshape(b, t, num_heads, t).transpose(1, 2)


def merge_len_from_d_head(x):
    b, h, _, d = x.shape
    return x.transpose(1, 2).reshape(b, d, h * d)


# -- one step too many after the right output (checking.extra_steps)
class ResidualInside(Base):
    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        heads, weights = scaled_dot_product_attention(q, k, v, mask)
        heads = self.dropout(weights) @ v
        return query + self.w_o(self.merge(heads)), weights


class SubLayerBlockInside(Base):
    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        heads, weights = scaled_dot_product_attention(q, k, v, mask)
        heads = self.dropout(weights) @ v
        return F.layer_norm(query + self.w_o(self.merge(heads)), (self.d_model,)), weights


_SIZE_ONE_LOST = r"Your numbers are right and in the right order, but axes of size 1 of .* are gone"

MISTAKES += [
    Mistake(check_split_heads, split_one_sequence, _BATCH_AXIS),
    Mistake(
        check_split_heads,
        split_then_bare_squeeze,
        r"^(?![\s\S]*folded into the batch axis)[\s\S]*" + _SIZE_ONE_LOST,
    ),
    Mistake(check_MultiHeadAttention, WeightsSqueezed, _SIZE_ONE_LOST),
    Mistake(
        check_split_heads,
        split_batch_and_heads_exchanged,
        r"^(?![\s\S]*Add `\.transpose\(1, 2\)`)[\s\S]*Your axes come out in the order "
        r"\(num_heads, len, batch, d_head\)",
    ),
    Mistake(check_MultiHeadAttention, WeightsOfHeadZero, r"Those are head 0's weights alone"),
    Mistake(
        check_MultiHeadAttention, WeightsSummedOverHeads, r"Those are the heads' weights summed"
    ),
    Mistake(
        check_MultiHeadAttention,
        WeightsTransposedOnReturn,
        r"^(?![\s\S]*softmax with dim=-1)[\s\S]*Yours are the right weights transposed",
    ),
    Mistake(
        check_MultiHeadAttention,
        FirstSequenceMaskForAll,
        # (the visible mask of sequence 0 blocks nothing: no zero tells it from no mask)
        rf"the mask of sequence 0 alone was applied|{_BATCH_AXIS}",
    ),
    Mistake(check_MultiHeadAttention, FirstSequenceOutputForAll, _BATCH_AXIS),
    Mistake(
        check_split_heads,
        split_d_head_from_len,
        r"in place of d_head = \d+ it has \d+, which is len here",
    ),
    Mistake(
        check_merge_heads,
        merge_len_from_d_head,
        r"in place of len = \d+ it has \d+, which is (\w+ or )?d_head( or \w+)? here",
    ),
    Mistake(
        check_MultiHeadAttention,
        ResidualInside,
        r"^(?![\s\S]*plus `(key|value)`)[\s\S]*Yours is the right output plus `query`: a "
        r"residual connection inside MultiHeadAttention",
    ),
    Mistake(
        check_MultiHeadAttention,
        SubLayerBlockInside,
        r"Yours is LayerNorm\(`query` \+ the right output\): a whole sub-layer block",
    ),
    Mistake(
        check_MultiHeadAttention,
        WeightsAveragedKeepdim,
        r"^(?![\s\S]*a fixed 1)[\s\S]*averaged over the heads, kept as one head",
    ),
    Mistake(check_split_heads, split_first_sequence_only, _BATCH_AXIS),
    Mistake(check_merge_heads, merge_first_sequence_only, _BATCH_AXIS),
    Mistake(
        check_split_heads,
        split_sizes_swapped,
        r"num_heads and d_head are swapped\. Two recipes give exactly this: x\.reshape\(batch, "
        r"len, d_head, num_heads\)\.transpose\(1, 2\).*torch\.split\(x, num_heads",
    ),
    Mistake(check_split_heads, split_unflatten_sizes_swapped, r"num_heads and d_head are swapped"),
    Mistake(
        check_MultiHeadAttention,
        MaskedFillResultDropped,
        r"ignores the mask.*or the masking step's result is thrown away: "
        r"scores\.masked_fill\(~mask, \.\.\.\) returns a new tensor",
    ),
    Mistake(
        check_MultiHeadAttention,
        ScaleResultDropped,
        r"did not scale the scores.*its result is thrown away",
    ),
    Mistake(
        check_MultiHeadAttention,
        DropoutResultDropped,
        r"dropout is not applied in training, or its result never reaches the output",
    ),
]


# ----------------------------------------------------------------- round 14 (r14c) families
# -- the result cut from autograd: a numpy round trip refuses an x that requires grad, and
# a copy of the values (torch.tensor of a list, .detach()) leaves the graph silently
def split_heads_via_numpy_swapaxes(x, num_heads):
    batch, length, d_model = x.shape
    heads = x.numpy().reshape(batch, length, num_heads, d_model // num_heads)
    return torch.as_tensor(np.ascontiguousarray(np.swapaxes(heads, 1, 2)))


def split_heads_from_a_list(x, num_heads):
    copy = torch.tensor(x.tolist(), dtype=x.dtype)  # (batch, len, d_model), no graph
    return copy.unflatten(-1, (num_heads, -1)).transpose(1, 2)


def merge_heads_via_numpy(x):
    batch, num_heads, length, d_head = x.shape
    merged = np.moveaxis(x.numpy(), 1, 2).reshape(batch, length, num_heads * d_head)
    return torch.from_numpy(merged)


def merge_heads_detached(x):  # "no gradient needed to move numbers around"
    return x.detach().transpose(1, 2).flatten(2)


# -- heads missing from the concatenation: which are there, and, with a probe of more
# heads, whether the last one is dropped whatever the count or a fixed one is kept
def merge_heads_sliced_one_short(x):
    return x[:, :-1].transpose(1, 2).flatten(2)


def merge_heads_first_head_only(x):
    first = x.select(1, 0)  # (batch, len, d_head)
    return first.contiguous()


class DropoutInPlaceOnWeights(Base):
    """F.dropout(..., inplace=True) straight on the softmax's output: right forward values,
    and backward raises in training (softmax's backward needs the overwritten output)."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
        if mask is not None:
            scores = scores.masked_fill(~mask, -1e9)
        weights = scores.softmax(dim=-1)  # (batch, heads, len_q, len_k)
        dropped = F.dropout(weights, self.dropout.p, self.training, inplace=True)
        return self.w_o(self.merge(dropped @ v)), weights


_CUT_FROM_GRAPH = r"for an x that requires grad returned a tensor outside the autograd graph"
_NUMPY_REFUSED = r"x\.numpy\(\) refuses such a tensor, and a numpy round trip"
MISTAKES += [
    Mistake(check_split_heads, split_heads_via_numpy_swapaxes, _NUMPY_REFUSED),
    Mistake(check_split_heads, split_heads_from_a_list, _CUT_FROM_GRAPH),
    Mistake(check_merge_heads, merge_heads_via_numpy, _NUMPY_REFUSED),
    Mistake(check_merge_heads, merge_heads_detached, _CUT_FROM_GRAPH),
    Mistake(
        check_merge_heads,
        merge_heads_sliced_one_short,
        r"(are|is) missing\. With \d+ heads, yours keeps heads 0, 1, [\d, ]+: one head short "
        r"both times, the last head is dropped",
    ),
    Mistake(
        check_merge_heads,
        merge_heads_first_head_only,
        r"With \d+ heads, yours keeps head 0 too: the same heads whatever the number of heads",
    ),
    Mistake(
        check_MultiHeadAttention,
        DropoutInPlaceOnWeights,
        r"With dropout=0\.\d+ in train mode, backward .*modified by an inplace operation.*\n"
        r"In eval mode the same module's backward runs.*the dropout, built in place.*the "
        r"softmax's output",
    ),
]

test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


def test_notes_say_what_was_accepted(capsys):
    """Incidental choices pass with a note that says what the reference does instead."""
    check_MultiHeadAttention(LargeNegativeFill)
    assert "uniform weights" in capsys.readouterr().out
    check_MultiHeadAttention(AnnotatedTransformerStyle)
    out = capsys.readouterr().out
    assert "after dropout" in out and "uniform weights" in out
    check_MultiHeadAttention(Float64Result)
    assert "float64; the reference gives float32" in capsys.readouterr().out
    check_MultiHeadAttention(WithReferenceAttention)
    assert "note" not in capsys.readouterr().out
    # a divisibility test of the learner's own that lets some invalid sizes through: told,
    # not graded (the lesson asks for no test; checking.validity_tests)
    check_MultiHeadAttention(RefusesOnlyMoreHeadsThanWidth)
    assert re.search(
        r"\(2, 4\), \(3, 4\) raise your error, but \(10, 4\).* build without one.*Your test "
        r"computes .*`d_model < num_heads`.*Test the remainder.*Not graded",
        capsys.readouterr().out.replace("\n", " "),
    )


def test_a_mistake_is_named_only_if_no_input_contradicts_it():
    """Scaled by sqrt(d_model) only when len_q == len_k: the first (self-attention) case
    matches that mistake, but the cross-attention case, computed right, contradicts it,
    so the message must not state it as the cause (it used to)."""
    from transformer_course.checking import CheckFailure

    def forward(self, query, key, value, mask=None):
        divisor = "sqrt_d_model" if query.shape[1] == key.shape[1] else "sqrt_d_head"
        return own_math(self, query, key, value, mask, divisor=divisor)

    cls = type("ScaleDependsOnLength", (Base,), {"forward": forward})
    with pytest.raises(CheckFailure) as caught:
        check_MultiHeadAttention(cls)
    assert "sqrt(d_model)" not in caught.value.message
    with pytest.raises(CheckFailure) as caught:  # the plain mistake is still named
        check_MultiHeadAttention(mistake("ScaleDModelEverywhere", divisor="sqrt_d_model"))
    assert "sqrt(d_model)" in caught.value.message


def test_cross_attention_shape_error_is_taught_without_torch_frames():
    """K/V from `query` in cross-attention: a teaching message, and a traceback with the
    learner's frames only (no torch/nn/modules/module.py)."""
    from transformer_course.checking import CheckFailure

    cls = mistake("KeysValuesFromQueryTraceback", k_in="query", v_in="query")
    with pytest.raises(CheckFailure) as caught:
        check_MultiHeadAttention(cls)
    failure = caught.value
    assert "len_q = 3" in failure.message and "len_k = 5" in failure.message
    assert "own_math" in failure.learner_traceback
    assert "site-packages" not in failure.learner_traceback
    assert "module.py" not in failure.learner_traceback


# ====================================================================== oracles
def _random_reference(d_model, num_heads, seed, dropout=0.0):
    torch.manual_seed(seed)
    module = ref.MultiHeadAttention(d_model, num_heads, dropout=dropout)
    with torch.no_grad():  # non-zero biases, so that a bias mix-up would show
        for name in ("w_q", "w_k", "w_v", "w_o"):
            getattr(module, name).bias.normal_(0.0, 0.5)
    return module


def _torch_copy(module, dropout=0.0):
    """nn.MultiheadAttention holding the same weights (q, k, v fused into in_proj)."""
    torch_mha = nn.MultiheadAttention(
        module.d_model, module.num_heads, dropout=dropout, batch_first=True
    )
    with torch.no_grad():
        torch_mha.in_proj_weight.copy_(
            torch.cat([module.w_q.weight, module.w_k.weight, module.w_v.weight])
        )
        torch_mha.in_proj_bias.copy_(torch.cat([module.w_q.bias, module.w_k.bias, module.w_v.bias]))
        torch_mha.out_proj.weight.copy_(module.w_o.weight)
        torch_mha.out_proj.bias.copy_(module.w_o.bias)
    return torch_mha.eval()


ORACLE_CASES = [  # (batch, len_q, len_k, d_model, num_heads, self_attention, mask kind)
    (2, 5, 5, 16, 4, True, None),
    (2, 5, 5, 16, 4, True, "causal"),
    (3, 4, 7, 12, 3, False, None),
    (3, 4, 7, 12, 3, False, "padding"),
    (1, 6, 6, 8, 1, True, "causal"),
    (2, 3, 9, 32, 8, False, "padding"),
    (2, 6, 6, 16, 2, True, "causal+padding"),
]


@pytest.mark.parametrize("case", ORACLE_CASES)
def test_reference_matches_nn_multihead_attention(case):
    batch, len_q, len_k, d_model, num_heads, self_attention, mask_kind = case
    module = _random_reference(d_model, num_heads, seed=len_k * 100 + d_model)
    torch_mha = _torch_copy(module)
    gen = torch.Generator().manual_seed(7)
    query = torch.randn(batch, len_q, d_model, generator=gen)
    memory = query if self_attention else torch.randn(batch, len_k, d_model, generator=gen)
    mask, torch_kwargs = None, {}
    causal = torch.tril(torch.ones(len_q, len_k, dtype=torch.bool))  # True = may attend
    real = torch.arange(len_k) < torch.tensor([len_k - i for i in range(batch)])[:, None]
    if mask_kind == "causal":
        mask = causal
        torch_kwargs["attn_mask"] = ~causal  # nn.MultiheadAttention: True = may NOT attend
    elif mask_kind == "padding":
        mask = real[:, None, None, :]  # (batch, 1, 1, len_k)
        torch_kwargs["key_padding_mask"] = ~real  # True = a pad
    elif mask_kind == "causal+padding":
        mask = causal & real[:, None, None, :]  # (batch, 1, len_q, len_k)
        torch_kwargs["attn_mask"] = ~causal
        torch_kwargs["key_padding_mask"] = ~real
    with torch.no_grad():
        out, weights = module(query, memory, memory, mask)
        expected_out, expected_mean = torch_mha(query, memory, memory, **torch_kwargs)
        _, expected_heads = torch_mha(
            query, memory, memory, average_attn_weights=False, **torch_kwargs
        )
    assert weights.shape == (batch, num_heads, len_q, len_k)
    torch.testing.assert_close(out, expected_out, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(weights, expected_heads, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(weights.mean(dim=1), expected_mean, rtol=1e-5, atol=1e-6)


def test_reference_matches_paper_formula_per_head_with_fully_masked_rows():
    """MultiHead(Q, K, V) = Concat(head_1..head_h) W^O, head_i = Attention(Q W_i^Q, K W_i^K, V W_i^V),
    with W_i^Q the i-th block of d_head columns of W^Q (paper convention x W), each head computed
    by F.scaled_dot_product_attention, which gives fully masked rows zero output."""
    d_model, num_heads, batch, len_q, len_k = 12, 3, 2, 4, 5
    d_head = d_model // num_heads
    module = _random_reference(d_model, num_heads, seed=3)
    gen = torch.Generator().manual_seed(11)
    x = torch.randn(batch, len_q, d_model, generator=gen)
    memory = torch.randn(batch, len_k, d_model, generator=gen)
    mask = torch.rand(batch, num_heads, len_q, len_k, generator=gen) < 0.5
    mask[0, 1, 2, :] = False  # a query row with nothing to attend to
    mask[1, :, 0, :] = True
    w = {n: getattr(module, n).weight.detach().T for n in ("w_q", "w_k", "w_v", "w_o")}
    bias = {n: getattr(module, n).bias.detach() for n in ("w_q", "w_k", "w_v", "w_o")}
    heads = []
    for i in range(num_heads):
        cols = slice(i * d_head, (i + 1) * d_head)
        q_i = x @ w["w_q"][:, cols] + bias["w_q"][cols]  # (batch, len_q, d_head)
        k_i = memory @ w["w_k"][:, cols] + bias["w_k"][cols]
        v_i = memory @ w["w_v"][:, cols] + bias["w_v"][cols]
        heads.append(F.scaled_dot_product_attention(q_i, k_i, v_i, attn_mask=mask[:, i]))
    expected = torch.cat(heads, dim=-1) @ w["w_o"] + bias["w_o"]
    with torch.no_grad():
        out, weights = module(x, memory, memory, mask)
    torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-5)
    assert torch.all(weights[0, 1, 2] == 0)
    torch.testing.assert_close(weights.sum(-1)[mask.any(-1)], torch.ones(int(mask.any(-1).sum())))


@pytest.mark.parametrize(("batch", "length", "d_model", "num_heads"), [(2, 3, 8, 2), (1, 5, 12, 4)])
def test_split_merge_blocks_and_round_trip(batch, length, d_model, num_heads):
    x = torch.randn(batch, length, d_model, generator=torch.Generator().manual_seed(5))
    heads = ref.split_heads(x, num_heads)
    d_head = d_model // num_heads
    for i in range(num_heads):  # head i = the i-th block of d_head features, every token
        assert torch.equal(heads[:, i], x[..., i * d_head : (i + 1) * d_head])
    assert torch.equal(ref.merge_heads(heads), x)
    assert torch.equal(ref.split_heads(x.transpose(0, 1).transpose(0, 1), num_heads), heads)


@pytest.mark.parametrize("num_heads", [1, 2, 4, 8, 16])
def test_parameter_count_does_not_depend_on_num_heads(num_heads):
    d_model = 64
    ours = sum(p.numel() for p in ref.MultiHeadAttention(d_model, num_heads).parameters())
    theirs = sum(p.numel() for p in nn.MultiheadAttention(d_model, num_heads).parameters())
    assert ours == theirs == 4 * d_model * d_model + 4 * d_model


def test_reference_dropout_applies_to_weights_only_when_training():
    module = _random_reference(16, 4, seed=0, dropout=0.5)
    x = torch.randn(2, 6, 16, generator=torch.Generator().manual_seed(1))
    out_train, weights_train = module(x, x, x)
    module.eval()
    out_eval, weights_eval = module(x, x, x)
    # the returned weights are taken before dropout, in both modes
    torch.testing.assert_close(weights_train, weights_eval)
    torch.testing.assert_close(weights_train.sum(-1), torch.ones(2, 4, 6))
    assert not torch.allclose(out_train, out_eval)
    torch.testing.assert_close(out_eval, module(x, x, x)[0])  # eval is deterministic


@pytest.mark.parametrize("p", [0.0, 1.0])
def test_reference_in_training_agrees_with_nn_multihead_attention_at_p_0_and_1(p):
    """The two dropout rates whose result does not depend on a random stream: p = 0 changes
    nothing, p = 1 drops every weight, leaving the output projection's bias."""
    module = _random_reference(12, 3, seed=9, dropout=p)
    torch_mha = _torch_copy(module, dropout=p).train()
    gen = torch.Generator().manual_seed(2)
    query, memory = torch.randn(2, 3, 12, generator=gen), torch.randn(2, 5, 12, generator=gen)
    real = torch.tensor([[True] * 5, [True, True, True, False, False]])
    with torch.no_grad():
        out, _ = module.train()(query, memory, memory, real[:, None, None, :])
        expected, _ = torch_mha(query, memory, memory, key_padding_mask=~real)
    torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-5)
    if p == 1.0:
        torch.testing.assert_close(out, module.w_o.bias.detach().expand(2, 3, 12))


def test_quiz_answers_agree_with_the_reference_shapes():
    """The concept questions' answers, computed: d_k = d_model / h, and cross-attention's
    weights are (len_q, len_k) with queries from the decoder."""
    from transformer_course.checks.multi_head_attention import (
        QUIZ_CROSS_ATTENTION_SHAPE,
        QUIZ_HEAD_WIDTH,
    )

    layer = ref.MultiHeadAttention(768, 12)
    q = ref.split_heads(torch.zeros(1, 5, 768), layer.num_heads)
    assert q.shape[-1] == QUIZ_HEAD_WIDTH.answer == 64
    layer = ref.MultiHeadAttention(64, 8)
    decoder, encoder = torch.zeros(2, 5, 64), torch.zeros(2, 7, 64)  # targets 5, sources 7
    with torch.no_grad():
        out, weights = layer(decoder, encoder, encoder)
    assert out.shape[1] == 5  # one output row per decoder query
    assert (
        str(tuple(weights.shape))
        == QUIZ_CROSS_ATTENTION_SHAPE.choices[QUIZ_CROSS_ATTENTION_SHAPE.answer]
    )
    assert QUIZ_CROSS_ATTENTION_SHAPE.answer == "b"


def test_quiz_head_width_accepts_the_number_as_text_with_a_note():
    """The quizzes' convention (tests/test_exercises.py: a numeric answer is accepted as
    int, float, scalar or text): '64' passes, and a note says the usual form is the number;
    a wrong number as text is still told why it is wrong."""
    from common import assert_accepted, assert_rejected, quiz_answer

    from transformer_course.checks.multi_head_attention import check_quiz_head_width

    assert_accepted(
        check_quiz_head_width, quiz_answer("64"), r"returned '64', a string.*return 64\."
    )
    assert_rejected(check_quiz_head_width, quiz_answer("768"), r"768 is d_model")


def test_quiz_head_width_explains_the_papers_head_count():
    """768 / 8 (the original paper's h, not BERT-base's) is told apart, and the message
    does not give the answer away."""
    from transformer_course.checks.multi_head_attention import check_quiz_head_width

    with pytest.raises(Exception) as failure:
        check_quiz_head_width(lambda: 768 // 8)
    message = str(failure.value)
    assert re.search(r"768 / 8.{0,40}paper's number of heads", message), message
    assert "64" not in message and "12" not in message, message


def test_quiz_head_width_explains_d_model_shared_by_q_k_v():
    """768 / 3 (d_model shared out between q, k and v; round 18, blind15d: before, "256 is
    not right") is told apart, and the message does not give the answer away."""
    from transformer_course.checks.multi_head_attention import check_quiz_head_width

    with pytest.raises(Exception) as failure:
        check_quiz_head_width(lambda: 768 // 3)
    message = str(failure.value)
    assert re.search(r"768 / 3, as if d_model were shared out between the queries", message)
    assert "64" not in message and "12" not in message, message


# ---------------------------------------------------------------- round 12 (r12d) families
# -- a reshape size from the wrong quantity, told by probes (checking.size_sources): the
# cases' d_head = len // num_heads and the constant 64, and members no case holds
def split_d_head_len_over_heads(x, num_heads):
    b, t, _ = x.shape
    return x.reshape(b, t, num_heads, t // num_heads).transpose(1, 2)


def split_d_head_constant_32(x, num_heads):
    b, t, _ = x.shape
    return x.reshape(b, t, num_heads, 32).transpose(1, 2)


def split_d_head_batch_times_heads(x, num_heads):  # another expression of the sizes
    b, t, _ = x.shape
    return x.reshape(b, t, num_heads, b * num_heads).transpose(1, 2)


# -- pieces cut along another axis than the features (torch.stack refuses them)
def split_chunks_tokens(x, num_heads):
    return torch.stack(x.chunk(num_heads, dim=1), dim=1)


def split_pieces_of_tokens(x, num_heads):  # torch.split: pieces of num_heads tokens each
    return torch.stack(x.split(num_heads, dim=1), dim=1)


# -- merge: iterating over x walks the batch axis
def merge_cat_iterates(x):
    return torch.cat(list(x), dim=-1)


def merge_loop_over_x(x):
    return torch.cat([t for t in x], dim=-1)


def merge_sizes_after_transpose(x):
    x = x.transpose(1, 2)
    return x.reshape(x.shape[0], x.shape[2], -1)


# -- one projection slot given another's weights, or the keys and values exchanged
class OutputThroughWq(Base):
    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        heads, weights = scaled_dot_product_attention(q, k, v, mask)
        return self.w_q(self.merge(heads)), weights


class OutputThroughWv(Base):
    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        heads, weights = scaled_dot_product_attention(q, k, v, mask)
        return self.w_v(self.merge(heads)), weights


class KeysValuesSwappedInCall(Base):
    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        heads, weights = scaled_dot_product_attention(q, v, k, mask)
        return self.w_o(self.merge(heads)), weights


# -- the returned pair in the wrong order
class ReturnsWeightsFirst(Base):
    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        heads, weights = scaled_dot_product_attention(q, k, v, mask)
        return weights, self.w_o(self.merge(heads))


# -- dropout at the right place, at a rate that ignores the argument
class DropoutRateFixed(Base):
    def __init__(self, d_model, num_heads, dropout=0.0):
        super().__init__(d_model, num_heads, dropout)
        self.dropout = nn.Dropout(0.1)

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        return self.w_o(self.merge(self.dropout(weights) @ v)), weights


class DropoutRateFixedAtThreeQuarters(DropoutRateFixed):
    """A fixed rate that equals 1 - (1 - 0.5)^2 for the visible case's dropout=0.5: the
    probe with another rate tells it from dropout applied twice."""

    def __init__(self, d_model, num_heads, dropout=0.0):
        super().__init__(d_model, num_heads, dropout)
        self.dropout = nn.Dropout(0.75)


class DropoutRateHalved(Base):  # another rate than the argument's: p / 2
    def __init__(self, d_model, num_heads, dropout=0.0):
        super().__init__(d_model, num_heads, dropout / 2)

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        return self.w_o(self.merge(self.dropout(weights) @ v)), weights


# -- heads computed from values never split into heads (train mode only, or always)
class DropoutTimesRawValue(Base):
    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        heads, weights = scaled_dot_product_attention(q, k, v, mask)
        if self.training:
            heads = self.dropout(weights) @ value
        return self.w_o(self.merge(heads)), weights


class DropoutTimesUnsplitProjection(Base):  # w_v(value) never split into heads
    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        heads, weights = scaled_dot_product_attention(q, k, v, mask)
        if self.training:
            heads = self.dropout(weights) @ self.w_v(value)
        return self.w_o(self.merge(heads)), weights


# -- the mask expanded as if 4-D
class MaskExpandedToHeads(Base):
    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        if mask is not None:
            mask = mask.expand(-1, self.num_heads, -1, -1)
        heads, weights = scaled_dot_product_attention(q, k, v, mask)
        return self.w_o(self.merge(heads)), weights


_SIZE_SOURCE = r"it has \d+, which is len // num_heads here and on every input tried"
MISTAKES += [
    Mistake(check_split_heads, split_d_head_len_over_heads, _SIZE_SOURCE),
    Mistake(
        check_split_heads,
        split_d_head_constant_32,
        r"it has 32, and 32 again on every input tried.*the constant 32 is written into your "
        r"code where d_head belongs",
    ),
    Mistake(
        check_split_heads,
        split_d_head_batch_times_heads,
        r"which is batch \* num_heads here and on every input tried",
    ),
    Mistake(check_split_heads, split_chunks_tokens, r"was cut along the len axis \(dim=1\)"),
    Mistake(check_split_heads, split_pieces_of_tokens, r"was cut along the len axis \(dim=1\)"),
    Mistake(check_merge_heads, merge_cat_iterates, r"iterates over x's first axis, the batch"),
    Mistake(check_merge_heads, merge_loop_over_x, r"iterates over x's first axis, the batch"),
    Mistake(
        check_merge_heads,
        merge_sizes_after_transpose,
        r"or the sizes read after the transpose",
    ),
    Mistake(
        check_MultiHeadAttention,
        OutputThroughWq,
        r"Your output projection is w_q: the merged heads go through self\.w_q",
    ),
    Mistake(
        check_MultiHeadAttention,
        OutputThroughWv,
        r"Your output projection is w_v: the merged heads go through self\.w_v",
    ),
    Mistake(
        check_MultiHeadAttention,
        KeysValuesSwappedInCall,
        r"Your keys and values are exchanged.*scaled_dot_product_attention\(q, v, k\)",
    ),
    Mistake(
        check_MultiHeadAttention,
        ReturnsWeightsFirst,
        r"returns \(weights, output\): the right shapes, in the wrong order",
    ),
    Mistake(
        check_MultiHeadAttention,
        DropoutRateFixed,
        r"drops attention weights at the rate 0\.1 .*built with dropout=[\d.]+: your layer "
        r"ignores the dropout argument",
    ),
    Mistake(
        check_MultiHeadAttention,
        DropoutRateFixedAtThreeQuarters,
        r"^(?![\s\S]*twice)[\s\S]*at the rate 0\.75 .*your layer ignores the dropout argument",
    ),
    Mistake(
        check_MultiHeadAttention,
        DropoutRateHalved,
        r"drops attention weights at the rate (0\.25|0\.5) .*built with dropout=(0\.5|1\.0)",
    ),
    Mistake(
        check_MultiHeadAttention,
        DropoutTimesRawValue,
        r"(?s)(?=.*[Ii]n train mode).*never split into heads: @ value",
    ),
    Mistake(
        check_MultiHeadAttention,
        DropoutTimesUnsplitProjection,
        r"(?s)(?=.*[Ii]n train mode).*never split into heads: @ value \(.*or w_v\(value\) unsplit",
    ),
    Mistake(
        check_MultiHeadAttention,
        MaskExpandedToHeads,
        r"The error is expand's: your mask\.expand\(\.\.\.\) is written for a 4-D mask",
    ),
]

# the round-12 entries above come after the first lesson_tests call: collect them too
test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


# -- dropout on the masked scores, before the softmax (with dropout=1.0 the weights are
# uniform over every key, the blocked ones included): not "the mask is not applied"
class DropoutOnMaskedScores(Base):
    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
        if mask is not None:
            scores = scores.masked_fill(~mask, -1e9)
        weights = torch.softmax(self.dropout(scores), dim=-1)
        return self.w_o(self.merge(weights @ v)), weights


class DropoutOnMaskedScoresNegInf(Base):  # -inf blocked: rows guarded with nan_to_num
    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(self.dropout(scores).nan_to_num(0.0), dim=-1).nan_to_num(0.0)
        return self.w_o(self.merge(weights @ v)), weights


_SCORES_DROPPED = r"^(?![\s\S]*the mask is not applied)[\s\S]*applied dropout to the scores"
MISTAKES += [
    Mistake(check_MultiHeadAttention, DropoutOnMaskedScores, _SCORES_DROPPED),
    Mistake(check_MultiHeadAttention, DropoutOnMaskedScoresNegInf, _SCORES_DROPPED),
]
test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


# ---------------------------------------------------------------- round 15 (r15c)
class RefusesDivisibleSizes(Base):  # the validity test inverted: raises for valid sizes
    def __init__(self, d_model, num_heads, dropout=0.0):
        if d_model % num_heads == 0:
            raise ValueError(f"d_model ({d_model}) must be a multiple of num_heads ({num_heads})")
        super().__init__(d_model, num_heads, dropout)


class WeightsScaledAfterSoftmax(Base):  # 1/sqrt(d_head) applied to the softmax's output
    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)  # (batch, heads, len, d_head)
        scores = torch.einsum("bhqd,bhkd->bhqk", q, k)
        if mask is not None:
            scores = scores.masked_fill(mask.logical_not(), -1e9)
        weights = F.softmax(scores, dim=-1).mul(self.d_head**-0.5)  # (batch, heads, lq, lk)
        return self.w_o(self.merge(weights @ v)), weights


def split_single_head_unchanged(x, num_heads):  # one head taken as "nothing to split"
    batch, length, d_model = x.shape
    if num_heads < 2:
        return x
    return x.view(batch, length, num_heads, d_model // num_heads).permute(0, 2, 1, 3)


MISTAKES += [
    Mistake(
        check_split_heads,
        split_single_head_unchanged,
        r"For num_heads=1 yours returns x itself, unchanged.*A special case for a single head",
    ),
    Mistake(
        check_MultiHeadAttention,
        RefusesDivisibleSizes,
        r"raised its ValueError even though this layer is valid: the divisibility test is the "
        r"wrong way round",
    ),
    Mistake(
        check_MultiHeadAttention,
        WeightsScaledAfterSoftmax,
        r"You divided by sqrt\(d_head\) after the softmax",
    ),
]
test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


# ---------------------------------------------------------------- round 17 (fix17d)
class DropoutDefaultsToPapersRate(Base):  # left out, the dropout falls back to 0.1
    def __init__(self, d_model, num_heads, dropout=None):
        super().__init__(d_model, num_heads, 0.1 if dropout is None else dropout)

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        return self.w_o(self.merge(self.dropout(weights) @ v)), weights


MISTAKES += [
    Mistake(
        check_MultiHeadAttention,
        DropoutDefaultsToPapersRate,
        r"built without the dropout argument, gives in train mode another output.*the default "
        r"of dropout in your signature is not 0\.0\. .*at the rate 0\.1",
    ),
]
test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


class HeadsFirstAsserted(
    Base
):  # the Annotated Transformer's order, MultiHeadedAttention(h, d_model)
    def __init__(self, h, d_model, dropout=0.0):
        assert d_model % h == 0
        super().__init__(d_model, h, dropout)

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        return self.w_o(self.merge(self.dropout(weights) @ v)), weights


class HeadsFirstUnchecked(HeadsFirstAsserted):  # the same order, no validity test
    def __init__(self, h, d_model, dropout=0.0):
        Base.__init__(self, d_model, h, dropout)


_HEADS_FIRST = (
    r"Built as MultiHeadAttention\(\d+, \d+\) instead, your layer has the weights of a layer "
    r"of width \d+.*other order, num_heads before d_model"
)
MISTAKES += [
    Mistake(
        check_MultiHeadAttention, HeadsFirstAsserted, r"(?s)raised AssertionError.*" + _HEADS_FIRST
    ),
    Mistake(
        check_MultiHeadAttention,
        HeadsFirstUnchecked,
        r"does not have the weights of a layer of width d_model = \d+\. " + _HEADS_FIRST,
    ),
]
test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


def split_narrow_length_minus_one(x, num_heads):  # narrow's length read as an end index
    d_head = x.shape[-1] // num_heads
    return torch.stack([x.narrow(-1, i * d_head, d_head - 1) for i in range(num_heads)], 1)


def split_size_indexed_uncalled(x, num_heads):  # x.size[-1]: the method, not its result
    d_head = x.size[-1] // num_heads
    return x.unflatten(-1, (num_heads, d_head)).transpose(1, 2)


def merge_shape_called(x):  # x.shape(): the attribute called
    batch, num_heads, length, d_head = x.shape()
    return x.transpose(1, 2).reshape(batch, length, num_heads * d_head)


def merge_permute_three_indices(x):  # a 3-D habit on the 4-D heads
    batch, num_heads, length, d_head = x.shape
    return x.permute(0, 2, 1).reshape(batch, length, num_heads * d_head)


def merge_cat_of_chunks(x):  # chunks along the heads axis keep it, size 1
    return torch.cat(torch.chunk(x, x.shape[1], dim=1), dim=3)


MISTAKES += [
    Mistake(
        check_split_heads,
        split_narrow_length_minus_one,
        r"Each of your heads holds its first \d+ features, right, and lacks its last one: "
        r"d_head - 1",
    ),
    Mistake(
        check_split_heads,
        split_size_indexed_uncalled,
        r"builtin_function_or_method' object is not subscriptable\n.*A method was used without "
        r"being called: x\.size",
    ),
    Mistake(check_merge_heads, merge_shape_called, r"x\.shape is an attribute .*not a method"),
    Mistake(
        check_merge_heads,
        merge_permute_three_indices,
        r"the input has 4 axes and 3 were given.*permute\(0, 2, 1, 3\)",
    ),
    Mistake(
        check_merge_heads,
        merge_cat_of_chunks,
        r"yours keeps a heads axis of size 1, \(batch, 1, len, num_heads \* d_head\), a 4-D",
    ),
]
test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


class CausalEveryCall(Base):  # a look-ahead triangle added whatever the mask
    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        len_q, len_k = q.shape[-2], k.shape[-2]
        future = torch.ones(len_q, len_k, dtype=torch.bool, device=q.device).triu(1)
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(self.d_head)
        scores = scores.masked_fill(future, float("-inf"))
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1).nan_to_num(0.0)
        return self.w_o(self.merge(self.dropout(weights) @ v)), weights


class DividedByInverseRoot(Base):  # the multiplier 1/sqrt(d_head) used as a divisor
    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        scores = torch.matmul(q, k.transpose(-2, -1)) / (1.0 / math.sqrt(self.d_head))
        if mask is not None:
            scores = scores.masked_fill(mask == 0, -1e9)
        weights = scores.softmax(dim=-1)
        return self.w_o(self.merge(self.dropout(weights) @ v)), weights


MISTAKES += [
    Mistake(
        check_MultiHeadAttention,
        CausalEveryCall,
        r"Your attention applies a causal \(look-ahead\) triangle of its own on every call",
    ),
    Mistake(
        check_MultiHeadAttention,
        DividedByInverseRoot,
        r"divided by 0\.5 = 1 / sqrt\(d_head\), the factor to multiply by \(d_head \*\* -0\.5\), "
        r"used as the divisor: the scores are multiplied by sqrt\(d_head\) instead of divided",
    ),
]
test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


class SoftmaxRowSumsWithoutAxis(Base):  # the stable softmax by hand, the sum's axis dropped
    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
        if mask is not None:
            scores = scores.masked_fill(~mask, -1e9)
        e = torch.exp(scores - scores.max(-1, keepdim=True).values)
        weights = e / torch.sum(e, -1)
        return self.w_o(self.merge(self.dropout(weights) @ v)), weights


MISTAKES += [
    Mistake(
        check_MultiHeadAttention,
        SoftmaxRowSumsWithoutAxis,
        r"raised RuntimeError: .*\nYour softmax divides by row sums that lost their axis: "
        r"exp\.sum\(dim=-1\) without keepdim=True",
    ),
]
test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


def test_quiz_letter_without_quotes_is_told_to_quote_it():
    """`return d` (no quotes) raises NameError: the message says the letter needs quotes,
    and nothing about whether d is the answer."""
    from transformer_course.checking import CheckFailure
    from transformer_course.checks.multi_head_attention import check_quiz_cross_attention_shape

    def quiz_cross_attention_shape():
        return d  # noqa: F821

    for hidden in (False, True):
        with pytest.raises(CheckFailure) as failure:
            check_quiz_cross_attention_shape(quiz_cross_attention_shape, hidden=hidden)
        message = str(failure.value)
        assert re.search(
            r"raised NameError: name 'd' is not defined\nYour answer d is written without "
            r"quotes.*return 'd'",
            message,
        ), message
        assert "not right" not in message, message


def split_heads_permute_result_unused(x, num_heads):  # permute is not in place either
    batch, length, d_model = x.shape
    heads = x.view(batch, length, num_heads, d_model // num_heads)
    heads.permute(0, 2, 1, 3)
    return heads


def merge_heads_transpose_result_unused(x):
    x.transpose(1, 2)  # meant: x = x.transpose(1, 2)
    return x.flatten(2)


def merge_heads_reversed(x):
    heads = [x[:, h] for h in range(x.shape[1])]  # each (batch, len, d_head)
    return torch.cat(heads[::-1], dim=-1)


# round 19 (blind16d-split-transpose-result-dropped, blind16d-merge-heads-prepended-in-loop):
# a transpose whose result was dropped is named beside a missing one (the calls cannot tell
# them apart); heads concatenated in reverse order are named (before: the first wrong entry)
MISTAKES += [
    Mistake(
        check_split_heads,
        split_heads_permute_result_unused,
        r"Add `\.transpose\(1, 2\)`\. If your code has the transpose \(or a permute\), its "
        r"result was not kept: neither is in place",
    ),
    Mistake(
        check_merge_heads,
        merge_heads_transpose_result_unused,
        r"You flattened len and d_head together.*its result was not kept",
    ),
    Mistake(
        check_merge_heads,
        merge_heads_reversed,
        r"Yours holds every head, each whole, but its blocks of d_head = \d+ columns are the "
        r"heads in reverse order, the last head first",
    ),
]
test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


# Round 20: the global generator seeded inside forward (checking.randomness:
# reseeded_global_generator; blind19b-mha-seeds-rng-in-forward was uncaught: every mask
# it drew is a valid dropout mask). Proved on a seed drawn in the dropout step alone.
class SeedsTheDropoutStep(Base):
    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        torch.random.manual_seed(1234 + self.num_heads)  # the same mask on every rerun
        return self.w_o(self.merge(self.dropout(weights) @ v)), weights


class RefusesOnlyMoreHeadsThanWidth(WithReferenceAttention):
    """A divisibility test that compares the sizes instead of taking the remainder (the
    family of blind18b-mha-divisibility-floor-division: checking.validity_tests)."""

    def __init__(self, d_model, num_heads, dropout=0.0):
        if num_heads > d_model:
            raise ValueError("num_heads must divide d_model")
        super().__init__(d_model, num_heads, dropout)


class RenormalisesWithAGuard(Base):
    """Dropped-out weights divided by their row sums, guarded against 0 / 0 (the family of
    blind19b-mha-dropped-weights-renormalised, which gives NaN at dropout=1.0)."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        dropped = self.dropout(weights)
        dropped = dropped / dropped.sum(dim=-1, keepdim=True).clamp_min(1e-9)
        return self.w_o(self.merge(dropped @ v)), weights


class ProjectionsBuiltInForward(nn.Module):
    """w_o in __init__, the q/k/v projection made in forward as one local layer (the family
    of blind12k-mha-linears-built-in-forward: checking.unregistered.unregistered_layers)."""

    def __init__(self, d_model, num_heads, dropout=0.0):
        super().__init__()
        self.num_heads = num_heads
        self.w_o = nn.Linear(d_model, d_model)

    def forward(self, query, key, value, mask=None):
        d = query.shape[-1]
        project = nn.Linear(d, 3 * d)  # a new layer at every call
        q = ref.split_heads(project(query)[..., :d], self.num_heads)
        k = ref.split_heads(project(key)[..., d : 2 * d], self.num_heads)
        v = ref.split_heads(project(value)[..., 2 * d :], self.num_heads)
        heads, weights = scaled_dot_product_attention(q, k, v, mask)
        return self.w_o(ref.merge_heads(heads)), weights


def split_heads_stacked_copies(x, num_heads):  # every head the whole vector
    return torch.stack([x] * num_heads, dim=1)


def split_heads_stacked_head_major(x, num_heads):  # (num_heads, batch, ...) read back
    batch, length, d_model = x.shape
    return torch.stack(x.chunk(num_heads, dim=-1)).reshape(
        batch, num_heads, length, d_model // num_heads
    )


def test_heads_stacked_head_major_are_named_both_ways_where_batch_equals_num_heads():
    """Where batch == num_heads (the visible run), (num_heads, batch, ...) read back as
    (batch, num_heads, ...) and the heads concatenated on the batch axis and viewed back
    agree on every value: both are named (round 20, blind17d-split-chunks-on-batch-then-
    viewed was told the permutation alone). The hidden run's batch of 3 tells the batch
    mixed instead."""
    from transformer_course.checking import CheckFailure

    with pytest.raises(CheckFailure) as failure:
        check_split_heads(split_heads_stacked_head_major)
    assert re.search(
        r"order \(num_heads, batch, len, d_head\).*The same values come from the heads folded "
        r"into the batch axis head-major and read back batch-first.*mixes the batch's sequences "
        r"with the heads",
        failure.value.message,
    ), failure.value.message


def merge_heads_positions_concatenated(x):  # each head's tokens joined, not the heads
    return torch.cat([x[:, :, i] for i in range(x.shape[2])], dim=-1)


def merge_heads_sizes_as_transposed_keys(x):
    b, h, dh, length = x.size()  # read as the layout of k.transpose(-2, -1)
    return x.permute(0, 2, 1, 3).contiguous().view(b, length, h * dh)


def merge_heads_unbound(x):  # a tuple of the heads, never joined
    return x.unbind(dim=1)


def merge_heads_flattened_without_transpose(x):
    return x.flatten(1, 2)  # (batch, num_heads * len, d_head)


class ValuesProjectedToOneHead(WithReferenceAttention):
    """w_v one head wide (the family of blind15d-mha-projections-to-head-width)."""

    def __init__(self, d_model, num_heads, dropout=0.0):
        super().__init__(d_model, num_heads, dropout)
        self.w_v = nn.Linear(d_model, d_model // num_heads)


MISTAKES += [
    Mistake(
        check_MultiHeadAttention,
        ValuesProjectedToOneHead,
        r"w_v projects onto d_model // num_heads = \d+ features, one head's width",
    ),
    # round 20: the heads never joined (blind16d-merge-returns-list-of-heads), and the
    # wrong pair of axes flattened, named by the values (blind15d-merge-flattens-length-
    # and-heads)
    # every head a copy of x (blind12k-split-repeats-whole-vector-per-head)
    Mistake(
        check_split_heads,
        split_heads_stacked_copies,
        r"Each of your \d+ heads holds a full copy of x, every token's whole d_model",
    ),
    Mistake(
        check_merge_heads,
        merge_heads_positions_concatenated,
        r"You flattened len and d_head together: each head's tokens are concatenated one after "
        r"the other",
    ),
    Mistake(
        check_merge_heads,
        merge_heads_sizes_as_transposed_keys,
        r"the sizes were read from x\.shape as \(batch, num_heads, d_head, len\)",
    ),
    Mistake(
        check_merge_heads,
        merge_heads_unbound,
        r"It is a tuple of the \d+ heads, each a \(batch, len, d_head\).*torch\.cat\(heads, "
        r"dim=-1\)",
    ),
    Mistake(
        check_merge_heads,
        merge_heads_flattened_without_transpose,
        r"Yours is x\.flatten\(1, 2\), x's axes 1 and 2, the heads and the length",
    ),
    Mistake(
        check_MultiHeadAttention,
        ProjectionsBuiltInForward,
        r"lacks the state-dict keys .*Your forward runs 1 nn\.Linear layer that is not among "
        r"the module's registered sub-modules.*new objects at every call: built inside forward",
    ),
    Mistake(
        check_MultiHeadAttention,
        RenormalisesWithAGuard,
        r"^(?![\s\S]*NaN)[\s\S]*dropout=0\.\d in train mode: Built with dropout=0\.5 and read "
        r"back through w_o and the values, your dropped-out weights add up to 1 in every row "
        r"again.*You renormalised the dropped-out weights",
    ),
    Mistake(
        check_MultiHeadAttention,
        SeedsTheDropoutStep,
        r"leaves the generator in the same state both times and gives the same result both "
        r"times: your code seeds the global generator itself",
    ),
]
test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


@pytest.mark.parametrize("answer", [768 / 20, 20])
def test_quiz_head_width_explains_the_sentence_length(answer):
    """d_model divided by the sentence's 20 tokens, or the 20 tokens themselves (round 19,
    blind16d-q-head-width-divided-by-tokens: before, "38 is not right") is told that the
    width does not depend on the length, and the message does not give the answer away."""
    from transformer_course.checks.multi_head_attention import check_quiz_head_width

    with pytest.raises(Exception) as failure:
        check_quiz_head_width(lambda: answer)
    message = str(failure.value)
    assert re.search(r"does not depend on the sentence length", message), message
    assert "64" not in message and "12" not in message, message


# ------------------------------------------------------------------- round 34 (f34g0106)
class _Wired(ref.MultiHeadAttention):
    """The reference with its four steps spelt out, each overridable."""

    def project(self, query, key, value):
        return self.w_q(query), self.w_k(key), self.w_v(value)

    def out(self, merged):
        return self.w_o(merged)

    def forward(self, query, key, value, mask=None):
        q, k, v = (ref.split_heads(t, self.num_heads) for t in self.project(query, key, value))
        heads, weights = scaled_dot_product_attention(q, k, v, mask)
        if self.training and self.dropout.p > 0:
            heads = self.dropout(weights) @ v
        return self.out(ref.merge_heads(heads)), weights


class KeysAndValuesThroughWQ(_Wired):  # one projection copied three times
    def project(self, query, key, value):
        return self.w_q(query), self.w_q(key), self.w_q(value)


class QueriesAndValuesThroughWK(_Wired):
    def project(self, query, key, value):
        return self.w_k(query), self.w_k(key), self.w_k(value)


class OutputBiasLeftOut(_Wired):  # F.linear without w_o's bias
    def out(self, merged):
        return F.linear(merged, self.w_o.weight)


class OutputBiasAddedAgain(_Wired):  # w_o(...) already holds the bias
    def out(self, merged):
        return self.w_o(merged) + self.w_o.bias


class OutputProjectionHalved(_Wired):  # a stray average of two copies
    def out(self, merged):
        return 0.5 * F.linear(merged, self.w_o.weight) + self.w_o.bias


class DropoutOnProjectedKeys(Base):
    """Dropout on the keys after w_k (split into heads first), none on the weights."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        k = F.dropout(k, self.dropout.p, training=self.training)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1).nan_to_num(0.0)
        return self.w_o(self.merge(weights @ v)), weights


MISTAKES += [
    # checking.dropout_sources: which tensor before the softmax the dropout zeroed
    Mistake(
        check_MultiHeadAttention,
        DropoutOnProjectedKeys,
        r"uniform over the allowed keys: you applied dropout to the projected keys",
    ),
    # a weight mistake and an output one at once, as a pair of the weights' check
    Mistake(
        check_MultiHeadAttention,
        KeysAndValuesThroughWQ,
        r"Two mistakes at once\. \(1\) Your keys look like `key` projected with w_q[\s\S]*"
        r"\(2\) Your values look like `value` projected with w_q",
    ),
    Mistake(
        check_MultiHeadAttention,
        QueriesAndValuesThroughWK,
        r"Two mistakes at once\. \(1\) Your queries look like `query` projected with w_k"
        r"[\s\S]*\(2\) Your values look like `value` projected with w_k",
    ),
    # checking.term_factors: w_o's two terms, each with its weight
    Mistake(
        check_MultiHeadAttention,
        OutputBiasLeftOut,
        r"weights are off: `w_o\.bias` is missing \(weight 0\)",
    ),
    Mistake(
        check_MultiHeadAttention,
        OutputBiasAddedAgain,
        r"weights are off: `w_o\.bias` is added twice \(weight 2\)",
    ),
    Mistake(
        check_MultiHeadAttention,
        OutputProjectionHalved,
        r"^(?![\s\S]*`w_o\.bias` is)[\s\S]*`merged heads @ w_o\.weight\.T` is multiplied by "
        r"0\.5",
    ),
]
CORRECT += [Correct(check_MultiHeadAttention, _Wired)]
test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


class SelfAttentionSignature(_Wired):  # forward(x, mask): key arrives as the mask
    def forward(self, x, mask=None, *rest):
        return super().forward(x, x, x, mask)


class MaskMadeFloatThenInverted(_Wired):  # a bool mask turned into floats, then ~
    def forward(self, query, key, value, mask=None):
        if mask is not None:
            mask = ~(~mask).float()
        return super().forward(query, key, value, mask)


MISTAKES += [
    # with mask=None the float tensor that ~ met can only be query, key or value
    Mistake(
        check_MultiHeadAttention,
        SelfAttentionSignature,
        r"^(?![\s\S]*a mask turned into numbers)[\s\S]*your forward took one of them for its "
        r"mask",
    ),
    # with a bool mask passed, a float made inside fits too: no claim about the signature
    Mistake(
        check_MultiHeadAttention,
        MaskMadeFloatThenInverted,
        r"^(?![\s\S]*your forward took one of them)[\s\S]*~ negates a bool mask",
    ),
]
test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


class QueriesWithoutBias(_Wired):  # F.linear with the weight alone
    def project(self, query, key, value):
        return F.linear(query, self.w_q.weight), self.w_k(key), self.w_v(value)


class ValuesWithoutBias(_Wired):
    def project(self, query, key, value):
        return self.w_q(query), self.w_k(key), value @ self.w_v.weight.T


class ProjectionsWithoutBias(_Wired):
    def project(self, query, key, value):
        return tuple(
            F.linear(x, layer.weight)
            for x, layer in ((query, self.w_q), (key, self.w_k), (value, self.w_v))
        )


class KeysWithoutBias(_Wired):  # invisible: a bias on every key shifts each row's scores
    def project(self, query, key, value):
        return self.w_q(query), F.linear(key, self.w_k.weight), self.w_v(value)


MISTAKES += [
    # the oracle's no_bias knob: which projection lost its bias, where it shows
    Mistake(
        check_MultiHeadAttention,
        QueriesWithoutBias,
        r"Your queries went through w_q without its bias",
    ),
    Mistake(
        check_MultiHeadAttention,
        ValuesWithoutBias,
        r"Your values went through w_v without its bias[\s\S]*self\.w_v\(value\)",
    ),
    Mistake(
        check_MultiHeadAttention,
        ProjectionsWithoutBias,
        r"Your queries, keys and values went through w_q, w_k, w_v without their bias",
    ),
]
# the keys' bias cancels in the softmax: nothing to see, nothing to grade
CORRECT += [Correct(check_MultiHeadAttention, KeysWithoutBias)]
test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


# ------------------------------------------- round 35: a mistake on one path (mode) only
def _scores(self, q, k):
    return torch.einsum("bhqd,bhkd->bhqk", q, k) / self.d_head**0.5


class TrainPathUnmaskedWeightsAfterDropout(Base):
    """In train mode with dropout > 0 the weights are written out, dropped with F.dropout
    and returned after dropout, and the mask is forgotten there; eval mode and dropout 0 go
    through the lesson-04 attention, masked. At dropout=1.0 the output is w_o's bias
    whatever the mask, so only a rate between 0 and 1, with a mask, shows it (passed every
    check before round 35)."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        if not (self.training and self.dropout.p > 0):
            _, weights = scaled_dot_product_attention(q, k, v, mask)
            return self.w_o(self.merge(weights @ v)), weights
        weights = F.dropout(_scores(self, q, k).softmax(dim=-1), self.dropout.p, training=True)
        return self.w_o(self.merge(weights @ v)), weights


class EvalPathUnmasked(Base):
    """The other side: the training branch masks (torch.where), the eval branch forgets."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        scores = _scores(self, q, k)
        if self.training and mask is not None:
            scores = torch.where(mask, scores, torch.finfo(scores.dtype).min)
        weights = scores.softmax(dim=-1)
        return self.w_o(self.merge(self.dropout(weights) @ v)), weights


class MaskIgnoredOnEveryPath(Base):
    """The sibling: the mask ignored in every mode keeps the plain diagnosis, no branch."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        weights = _scores(self, q, k).softmax(dim=-1)
        return self.w_o(self.merge(self.dropout(weights) @ v)), weights


class TwoPathsBothMasked(Base):
    """Right: a written-out training branch (F.dropout) that masks as the eval branch does
    (the lesson-04 attention); an additive float mask there."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.qkv(query, key, value)
        if self.training and self.dropout.p > 0:
            scores = _scores(self, q, k)
            if mask is not None:
                scores = scores + torch.zeros_like(scores).masked_fill(~mask, float("-inf"))
            weights = torch.nan_to_num(scores.softmax(dim=-1))
            heads = F.dropout(weights, self.dropout.p, training=True) @ v
        else:
            _, weights = scaled_dot_product_attention(q, k, v, mask)
            heads = weights @ v
        return self.w_o(self.merge(heads)), weights


MISTAKES += [
    Mistake(
        check_MultiHeadAttention,
        TrainPathUnmaskedWeightsAfterDropout,
        r"^MultiHeadAttention: Run again in three modes[\s\S]*In train mode with dropout=0\.5 "
        r"your heads mix in the values of keys the mask blocks \(read back through w_o and "
        r"w_v\): they are the weights without any mask, the mask is ignored there; in eval mode "
        r"and train mode with dropout=0\.0 they do not[\s\S]*only in training with dropout > 0",
    ),
    Mistake(
        check_MultiHeadAttention,
        EvalPathUnmasked,
        r"In eval mode your heads mix in the values of keys the mask blocks[\s\S]*in train "
        r"mode with dropout=0\.0 and train mode with dropout=0\.5 they do not[\s\S]*only in "
        r"eval mode",
    ),
    Mistake(
        check_MultiHeadAttention,
        MaskIgnoredOnEveryPath,
        r"^(?![\s\S]*three modes)[\s\S]*Your attention ignores the mask: keys the mask forbids "
        r"get weight, exactly as with no mask",
    ),
]
CORRECT += [Correct(check_MultiHeadAttention, TwoPathsBothMasked)]
test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


class CheckpointedReentrant(WithReferenceAttention):
    """The attention recomputed in backward (torch.utils.checkpoint, use_reentrant=True):
    no graph for inputs that do not require grad (round 35's graph family)."""

    def forward(self, query, key, value, mask=None):
        parent = super().forward
        return torch.utils.checkpoint.checkpoint(
            lambda q, k, v: parent(q, k, v, mask), query, key, value, use_reentrant=True
        )


MISTAKES += [
    Mistake(
        check_MultiHeadAttention,
        CheckpointedReentrant,
        r"requires_grad is False\)\. Called again on the same inputs made to require grad"
        r"[\s\S]*use_reentrant=False",
    ),
    # the sibling keeps its own message: no graph whatever the inputs
    Mistake(
        check_MultiHeadAttention, NoGrad, r"^(?![\s\S]*reentrant)[\s\S]*requires_grad is False"
    ),
]
test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


def test_quiz_cross_attention_shape_reads_a_shape_returned_for_its_letter():
    """A shape returned as a tuple (or torch.Size) is read as the choice that writes it."""
    from transformer_course.checking import CheckFailure
    from transformer_course.checks.multi_head_attention import check_quiz_cross_attention_shape

    with pytest.raises(CheckFailure, match=r"which is choice \(b\), \(2, 8, 5, 7\)[\s\S]*\"b\""):
        check_quiz_cross_attention_shape(lambda: torch.Size([2, 8, 5, 7]))
    with pytest.raises(CheckFailure, match=r"which is choice \(a\)[\s\S]*not right either"):
        check_quiz_cross_attention_shape(lambda: (2, 8, 7, 5))
