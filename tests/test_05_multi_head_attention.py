"""Lesson 05 (multi-head attention): classic mistakes are rejected with the intended
message by both the visible and the hidden checks, correct variants pass both,
and the reference agrees with independent oracles (nn.MultiheadAttention, the
paper's per-head formula, F.scaled_dot_product_attention)."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from transformer_course.checking import CheckFailure
from transformer_course.checks.multi_head_attention import (
    check_merge_heads,
    check_MultiHeadAttention,
    check_split_heads,
)
from transformer_course.reference import multi_head_attention as ref
from transformer_course.reference.attention import scaled_dot_product_attention

HIDDEN = pytest.mark.parametrize("hidden", [False, True], ids=["visible", "hidden"])


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


SPLIT_CORRECT = [
    split_view_transpose,
    split_permute,
    split_unflatten,
    split_chunk_stack,
    split_loop,
    split_einsum,
]


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


def split_numpy(x, num_heads):
    return split_permute(x, num_heads).numpy()


def split_float32(x, num_heads):
    return split_permute(x, num_heads).float()


def split_not_implemented(x, num_heads):
    raise NotImplementedError()


SPLIT_MISTAKES = [
    (
        split_no_transpose,
        r"reshaped straight to \(batch, num_heads, len, d_head\) without a transpose",
    ),
    (split_strided, r"split along the wrong axis"),
    (split_forgot_transpose, r"\(batch, len, num_heads, d_head\).*Add `\.transpose\(1, 2\)`"),
    (split_wrong_transpose, r"The last two axes are \(d_head, num_heads\)"),
    (split_numpy, r"should be a Tensor, but it is a ndarray"),
    (split_float32, r"should have dtype torch.float64"),
    (split_not_implemented, r"not implemented yet"),
]


@HIDDEN
@pytest.mark.parametrize("fn", SPLIT_CORRECT, ids=lambda f: f.__name__)
def test_split_heads_accepts_correct_variants(fn, hidden, capsys):
    check_split_heads(fn, hidden=hidden)
    assert "checks passed" in capsys.readouterr().out


@HIDDEN
@pytest.mark.parametrize(
    ("fn", "message"), SPLIT_MISTAKES, ids=lambda v: getattr(v, "__name__", "")
)
def test_split_heads_rejects_mistakes(fn, message, hidden):
    with pytest.raises(CheckFailure, match=message):
        check_split_heads(fn, hidden=hidden)


# =================================================================== merge_heads
def merge_transpose_reshape(x):  # no .contiguous(): reshape copies when it must
    b, h, length, d_head = x.shape
    return x.transpose(1, 2).reshape(b, length, h * d_head)


def merge_contiguous_view(x):
    b, h, length, d_head = x.shape
    return x.permute(0, 2, 1, 3).contiguous().view(b, length, h * d_head)


def merge_cat(x):
    return torch.cat([x[:, i] for i in range(x.shape[1])], dim=-1)


def merge_flatten(x):
    return x.transpose(1, 2).flatten(2)


def merge_einsum(x):
    b, h, length, d_head = x.shape
    return torch.einsum("bhld->blhd", x).reshape(b, length, h * d_head)


MERGE_CORRECT = [
    merge_transpose_reshape,
    merge_contiguous_view,
    merge_cat,
    merge_flatten,
    merge_einsum,
]


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


def merge_not_implemented(x):
    raise NotImplementedError()


MERGE_MISTAKES = [
    (merge_no_transpose, r"straight to \(batch, len, d_model\) without a transpose"),
    (merge_interleaved, r"interleaved"),
    (merge_no_flatten, r"flatten the last two axes"),
    (merge_view_without_contiguous, r"Use `\.reshape\(\.\.\.\)`"),
    (merge_len_and_d_head, r"You flattened len and d_head together"),
    (merge_not_implemented, r"not implemented yet"),
]


@HIDDEN
@pytest.mark.parametrize("fn", MERGE_CORRECT, ids=lambda f: f.__name__)
def test_merge_heads_accepts_correct_variants(fn, hidden, capsys):
    check_merge_heads(fn, hidden=hidden)
    assert "checks passed" in capsys.readouterr().out


@HIDDEN
@pytest.mark.parametrize(
    ("fn", "message"), MERGE_MISTAKES, ids=lambda v: getattr(v, "__name__", "")
)
def test_merge_heads_rejects_mistakes(fn, message, hidden):
    with pytest.raises(CheckFailure, match=message):
        check_merge_heads(fn, hidden=hidden)


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


# ---------------------------------------------------------------- correct ones
class WithReferenceAttention(Base):
    """The solution: project, split, lesson-04 attention, merge, project."""

    def forward(self, query, key, value, mask=None):
        q, k, v = (
            self.split(self.w_q(query)),
            self.split(self.w_k(key)),
            self.split(self.w_v(value)),
        )
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
                m = mask if mask.dim() == 2 else mask[:, i if mask.shape[1] > 1 else 0]
                head_mask = m
            scores = q[..., cols] @ k[..., cols].transpose(-2, -1) / self.d_head**0.5
            if head_mask is not None:
                scores = scores.masked_fill(~head_mask, -1e9)
            weights = torch.softmax(scores, dim=-1)
            if head_mask is not None:
                weights = weights * head_mask.any(dim=-1, keepdim=True)
            outputs.append(weights @ v[..., cols])
            all_weights.append(weights)
        return self.w_o(torch.cat(outputs, dim=-1)), torch.stack(all_weights, dim=1)


class TorchSdpaPlusWeights(Base):
    """Outputs from F.scaled_dot_product_attention, weights computed alongside."""

    def forward(self, query, key, value, mask=None):
        q, k, v = (
            self.split(self.w_q(query)),
            self.split(self.w_k(key)),
            self.split(self.w_v(value)),
        )
        heads = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
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
        out = (weights @ v).permute(0, 2, 1, 3).reshape(query.shape[0], query.shape[1], -1)
        return self.w_o(out.to(query.dtype)), weights.to(query.dtype)


class FunctionalDropout(Base):
    """F.dropout with training=self.training is as good as an nn.Dropout module."""

    def __init__(self, d_model, num_heads, dropout=0.0):
        super().__init__(d_model, num_heads, dropout)
        self.p = dropout

    def forward(self, query, key, value, mask=None):
        q, k, v = (
            self.split(self.w_q(query)),
            self.split(self.w_k(key)),
            self.split(self.w_v(value)),
        )
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        dropped = F.dropout(weights, self.p, training=self.training)
        return self.w_o(self.merge(dropped @ v)), weights


MHA_CORRECT = [
    ref.MultiHeadAttention,
    WithReferenceAttention,
    Einsum,
    LoopOverHeads,
    TorchSdpaPlusWeights,
    PermuteFloat64Inside,
    FunctionalDropout,
]


@HIDDEN
@pytest.mark.parametrize("cls", MHA_CORRECT, ids=lambda c: c.__name__)
def test_mha_accepts_correct_variants(cls, hidden, capsys):
    check_MultiHeadAttention(cls, hidden=hidden)
    assert "checks passed" in capsys.readouterr().out


# ------------------------------------------------------------------- mistakes
def own_math(
    self,
    query,
    key,
    value,
    mask=None,
    *,
    q_in="query",
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
    k = split(layer[k_layer](key))
    v = split(layer[v_layer](inputs[v_in]))
    scale = {"sqrt_d_head": math.sqrt(self.d_head), "sqrt_d_model": math.sqrt(self.d_model),
             "d_head": self.d_head, "none": 1.0}[divisor]  # fmt: skip
    scores = q @ k.transpose(-2, -1) / scale
    if mask is not None and use_mask:
        scores = scores.masked_fill(mask if invert else ~mask, fill)
    weights = torch.softmax(scores, dim=softmax_dim)
    if mask is not None and use_mask and zero_dead and not invert:
        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    heads = weights @ v
    b, h, lq, dh = heads.shape
    merged = self.merge(heads) if merge_ok else heads.reshape(b, lq, h * dh)
    out = self.w_o(merged) if use_w_o else merged
    return out, (weights.mean(dim=1) if average else weights)


def mistake(name, **knobs):
    cls = type(name, (Base,), {"forward": lambda self, *a, **kw: own_math(self, *a, **kw, **knobs)})
    return cls


class InvertedMaskWithReference(Base):
    """Passes ~mask to the lesson-04 attention (the polarity of nn.MultiheadAttention)."""

    def forward(self, query, key, value, mask=None):
        q, k, v = (
            self.split(self.w_q(query)),
            self.split(self.w_k(key)),
            self.split(self.w_v(value)),
        )
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


class DropoutAlwaysOn(Base):
    def __init__(self, d_model, num_heads, dropout=0.0):
        super().__init__(d_model, num_heads, dropout)
        self.p = dropout

    def forward(self, query, key, value, mask=None):
        q, k, v = (
            self.split(self.w_q(query)),
            self.split(self.w_k(key)),
            self.split(self.w_v(value)),
        )
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        return self.w_o(self.merge(F.dropout(weights, self.p) @ v)), weights


class OnlyOutput(Base):
    def forward(self, query, key, value, mask=None):
        return WithReferenceAttention.forward(self, query, key, value, mask)[0]


class NoGrad(Base):
    @torch.no_grad()
    def forward(self, query, key, value, mask=None):
        return WithReferenceAttention.forward(self, query, key, value, mask)


class NotImplementedMHA(nn.Module):
    def __init__(self, d_model, num_heads, dropout=0.0):
        super().__init__()
        raise NotImplementedError()


MHA_MISTAKES = [
    (mistake("ForgotWo", use_w_o=False), r"left out the output projection"),
    (mistake("KeysWithWq", k_layer="w_q"), r"keys look like `key` projected with w_q"),
    (mistake("QueriesFromMemory", q_in="key"), r"queries come from `key`"),
    (mistake("ScaleDModel", divisor="sqrt_d_model"), r"sqrt\(d_model\)"),
    (mistake("NoScaling", divisor="none"), r"did not scale"),
    (mistake("ScaleDHeadNoSqrt", divisor="d_head"), r"divided the scores by d_head"),
    (mistake("SoftmaxOverQueries", softmax_dim=-2), r"dim=-2"),
    (mistake("MaskIgnored", use_mask=False), r"mask is not applied"),
    (mistake("MaskInvertedOwnMath", invert=True), r"True means 'may attend'"),
    (InvertedMaskWithReference, r"polarity is inverted"),
    (mistake("AveragedWeights", average=True), r"averaged over the heads"),
    (SharedLinear, r"one and the same nn.Linear"),
    (FusedLinear, r"fused nn.Linear"),
    (NoBias, r"no bias"),
    (PerHeadLinear, r"w_q.weight has shape .* Each projection is nn.Linear\(d_model, d_model\)"),
    (mistake("SplitNoTranspose", split_ok=False), r"not the ones split_heads makes"),
    (mistake("MergeNoTranspose", merge_ok=False), r"merged the heads with a reshape"),
    (mistake("LargeNegativeFill", fill=-1e9, zero_dead=False), r"uniform \(1/len_k each\)"),
    (mistake("MinusInfNoDeadRows", zero_dead=False), r"NaN in exactly the query rows"),
    (mistake("ValuesNotProjected", v_layer=None), r"values are not projected"),
    (mistake("ValuesFromKey", v_in="key"), r"values come from the `key` input"),
    (DropoutAlwaysOn, r"eval mode, where dropout must do nothing"),
    (OnlyOutput, r"should return a pair: \(output, weights\)"),
    (NoGrad, r"requires_grad is False"),
    (NotImplementedMHA, r"not implemented yet"),
]


@HIDDEN
@pytest.mark.parametrize(("cls", "message"), MHA_MISTAKES, ids=lambda v: getattr(v, "__name__", ""))
def test_mha_rejects_mistakes(cls, message, hidden):
    with pytest.raises(CheckFailure, match=message):
        check_MultiHeadAttention(cls, hidden=hidden)


# ====================================================================== oracles
def _random_reference(d_model, num_heads, seed):
    torch.manual_seed(seed)
    module = ref.MultiHeadAttention(d_model, num_heads)
    with torch.no_grad():  # non-zero biases, so that a bias mix-up would show
        for name in ("w_q", "w_k", "w_v", "w_o"):
            getattr(module, name).bias.normal_(0.0, 0.5)
    return module


def _torch_copy(module):
    """nn.MultiheadAttention holding the same weights (q, k, v fused into in_proj)."""
    torch_mha = nn.MultiheadAttention(module.d_model, module.num_heads, batch_first=True)
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
    if mask_kind == "causal":
        mask = torch.tril(torch.ones(len_q, len_k, dtype=torch.bool))  # True = may attend
        torch_kwargs["attn_mask"] = ~mask  # nn.MultiheadAttention: True = may NOT attend
    elif mask_kind == "padding":
        lengths = torch.tensor([len_k - i for i in range(batch)])
        real = torch.arange(len_k) < lengths[:, None]  # (batch, len_k)
        mask = real[:, None, None, :]  # (batch, 1, 1, len_k)
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


def test_checks_are_deterministic_and_leave_global_rng_alone(capsys):
    torch.manual_seed(0)
    before = torch.rand(3)
    torch.manual_seed(0)
    check_MultiHeadAttention(ref.MultiHeadAttention)
    check_split_heads(ref.split_heads, hidden=True)
    check_merge_heads(ref.merge_heads, hidden=True)
    assert torch.equal(torch.rand(3), before)
    out = capsys.readouterr().out
    assert "✓ MultiHeadAttention: all" in out and "visible checks passed" in out


def test_reference_dropout_applies_to_weights_only_when_training():
    torch.manual_seed(0)
    module = ref.MultiHeadAttention(16, 4, dropout=0.5)
    x = torch.randn(2, 6, 16, generator=torch.Generator().manual_seed(1))
    out_train, weights_train = module(x, x, x)
    module.eval()
    out_eval, weights_eval = module(x, x, x)
    # the returned weights are taken before dropout, in both modes
    torch.testing.assert_close(weights_train, weights_eval)
    torch.testing.assert_close(weights_train.sum(-1), torch.ones(2, 4, 6))
    assert not torch.allclose(out_train, out_eval)
    torch.testing.assert_close(out_eval, module(x, x, x)[0])  # eval is deterministic
