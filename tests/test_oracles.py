"""The float64 oracles of ``transformer_course.checking.oracles``, tested once: against
PyTorch's own modules (weights copied, dropout off), against the papers' formulas where
PyTorch has no module (RoPE, the sinusoidal table), by their defining properties
(causality, RoPE's relative positions), and every knob against what it names.

The checks of lessons 05-11 take their expected values and their mistakes' values from
these oracles; the lesson tests prove the references against PyTorch, so a reference and
its oracle agree through PyTorch, not through each other.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from transformer_course.checking import oracles as o

D_MODEL, NUM_HEADS, D_FF = 12, 3, 20
CLOSE = {"rtol": 1e-10, "atol": 1e-10}  # float64 against float64


def gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def randn(*shape: int, seed: int) -> torch.Tensor:
    return torch.randn(*shape, generator=gen(seed), dtype=torch.float64)


def randomized(module: nn.Module, seed: int) -> nn.Module:
    """The module in float64 with every parameter drawn at random (no zero biases, no unit
    gains, so that a mix-up of weights shows), in eval mode."""
    module = module.double()
    g = gen(seed)
    with torch.no_grad():
        for parameter in module.parameters():
            parameter.copy_(torch.randn(parameter.shape, generator=g, dtype=torch.float64) * 0.4)
    return module.eval()


def prefixed(prefix: str, state: dict) -> dict:
    return {f"{prefix}.{key}": value for key, value in state.items()}


# ------------------------------------------------------- PyTorch's names -> the course's
def mha_state(mha: nn.MultiheadAttention) -> dict[str, torch.Tensor]:
    """nn.MultiheadAttention's fused in_proj as the course's w_q, w_k, w_v, w_o."""
    w_q, w_k, w_v = mha.in_proj_weight.detach().chunk(3)
    b_q, b_k, b_v = mha.in_proj_bias.detach().chunk(3)
    return {
        "w_q.weight": w_q,
        "w_q.bias": b_q,
        "w_k.weight": w_k,
        "w_k.bias": b_k,
        "w_v.weight": w_v,
        "w_v.bias": b_v,
        "w_o.weight": mha.out_proj.weight.detach(),
        "w_o.bias": mha.out_proj.bias.detach(),
    }


def norm_state(norm: nn.LayerNorm) -> dict[str, torch.Tensor]:
    return {"weight": norm.weight.detach(), "bias": norm.bias.detach()}


def ffn_state(layer) -> dict[str, torch.Tensor]:
    return {
        "w_1.weight": layer.linear1.weight.detach(),
        "w_1.bias": layer.linear1.bias.detach(),
        "w_2.weight": layer.linear2.weight.detach(),
        "w_2.bias": layer.linear2.bias.detach(),
    }


def encoder_layer_state(layer: nn.TransformerEncoderLayer) -> dict[str, torch.Tensor]:
    return {
        **prefixed("self_attn", mha_state(layer.self_attn)),
        **prefixed("feed_forward", ffn_state(layer)),
        **prefixed("norm1", norm_state(layer.norm1)),
        **prefixed("norm2", norm_state(layer.norm2)),
    }


def decoder_layer_state(layer: nn.TransformerDecoderLayer) -> dict[str, torch.Tensor]:
    return {
        **prefixed("self_attn", mha_state(layer.self_attn)),
        **prefixed("cross_attn", mha_state(layer.multihead_attn)),
        **prefixed("feed_forward", ffn_state(layer)),
        **prefixed("norm1", norm_state(layer.norm1)),
        **prefixed("norm2", norm_state(layer.norm2)),
        **prefixed("norm3", norm_state(layer.norm3)),
    }


def stack_state(stack, layer_state) -> dict[str, torch.Tensor]:
    state = {}
    for i, layer in enumerate(stack.layers):
        state |= prefixed(f"layers.{i}", layer_state(layer))
    if stack.norm is not None:
        state |= prefixed("norm", norm_state(stack.norm))
    return state


def padding(lengths: tuple[int, ...], length: int) -> torch.Tensor:
    """(batch, len) True at real tokens, False at right padding."""
    return torch.arange(length)[None, :] < torch.tensor(lengths)[:, None]


# ============================================================== scaled dot-product attention
@pytest.mark.parametrize("is_causal", [False, True])
def test_scaled_dot_product_attention_is_pytorch_s(is_causal):
    q, k, v = randn(2, 3, 5, 4, seed=1), randn(2, 3, 5, 4, seed=2), randn(2, 3, 5, 6, seed=3)
    mask = torch.rand(2, 1, 5, 5, generator=gen(4)) < 0.7
    mask[..., 0] = True  # no fully masked row (PyTorch gives NaN there)
    got, weights = o.scaled_dot_product_attention_f(q, k, v, mask, is_causal=is_causal)
    if is_causal:  # PyTorch takes a mask or is_causal, not both
        expected = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        got = o.scaled_dot_product_attention_f(q, k, v, is_causal=True)[0]
    else:
        expected = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    torch.testing.assert_close(got, expected, **CLOSE)
    torch.testing.assert_close(weights.sum(-1), torch.ones(2, 3, 5, dtype=torch.float64))


def test_scaled_dot_product_attention_grouped_query_is_pytorch_s():
    q = randn(2, 6, 4, 8, seed=5)  # num_heads = 6
    k, v = randn(2, 2, 7, 8, seed=6), randn(2, 2, 7, 8, seed=7)  # num_kv_heads = 2
    got, _ = o.scaled_dot_product_attention_f(q, k, v, enable_gqa=True)
    torch.testing.assert_close(got, F.scaled_dot_product_attention(q, k, v, enable_gqa=True))


def test_scaled_dot_product_attention_knobs():
    q, k, v = randn(2, 4, 6, seed=8), randn(2, 5, 6, seed=9), randn(2, 5, 3, seed=10)
    mask = torch.rand(2, 4, 5, generator=gen(11)) < 0.6
    mask[:, :, 0] = True
    mask[0, 1] = False  # a fully masked row: all-zero weights, zero output

    def f(**knobs):
        return o.scaled_dot_product_attention_f(q, k, v, mask, **knobs)

    out, weights = f()
    assert torch.all(weights[0, 1] == 0) and torch.all(out[0, 1] == 0)
    ours = f(scale=1.0)[0]  # no scaling: PyTorch with scale 1
    mask_without_empty_rows = mask.clone()
    mask_without_empty_rows[0, 1] = True
    torch.testing.assert_close(
        o.scaled_dot_product_attention_f(q, k, v, mask_without_empty_rows, scale=1.0)[0],
        F.scaled_dot_product_attention(q, k, v, attn_mask=mask_without_empty_rows, scale=1.0),
    )
    assert not torch.allclose(ours, out)
    # the softmax over the queries: each key's column sums to 1 (where some query sees it)
    columns = f(softmax_dim=-2, mask_mode="none")[1].sum(-2)
    torch.testing.assert_close(columns, torch.ones_like(columns))
    torch.testing.assert_close(f(mask_mode="none"), o.scaled_dot_product_attention_f(q, k, v))
    torch.testing.assert_close(
        f(mask_mode="inverted"), o.scaled_dot_product_attention_f(q, k, v, ~mask)
    )
    uniform = f(uniform_weights=True)[1]  # each row spread evenly over its allowed keys
    allowed = mask.sum(-1, keepdim=True).clamp(min=1)
    torch.testing.assert_close(uniform, mask.double() / allowed)
    dropped, kept = f(drop=True)  # the weights dropped, before the values: zero output
    assert torch.all(dropped == 0) and torch.equal(kept, weights)
    after = f(mask_mode="after")[1]  # the softmax over every key, then the mask, no renormalising
    torch.testing.assert_close(after, o.scaled_dot_product_attention_f(q, k, v)[1] * mask)
    zero_filled = f(fill=0.0)[1]  # blocked scores set to 0 instead of -inf
    scores = (q @ k.transpose(-2, -1) / math.sqrt(6)).masked_fill(~mask, 0.0)
    torch.testing.assert_close(zero_filled, scores.softmax(-1))
    given = torch.rand(2, 4, 5, generator=gen(12), dtype=torch.float64)
    torch.testing.assert_close(f(weights=given)[0], given @ v)


# ==================================================================== multi-head attention
def mha_pair(seed: int, bias: bool = True):
    mha = randomized(nn.MultiheadAttention(D_MODEL, NUM_HEADS, bias=bias, batch_first=True), seed)
    return mha, mha_state(mha) if bias else None


@pytest.mark.parametrize("len_q, len_k", [(5, 5), (4, 7)])
def test_multi_head_attention_is_nn_multihead_attention(len_q, len_k):
    mha, state = mha_pair(20)
    query, key, value = randn(2, len_q, D_MODEL, seed=21), randn(2, len_k, D_MODEL, seed=22), None
    value = randn(2, len_k, D_MODEL, seed=23)
    keep = padding((len_k, len_k - 2), len_k)  # (batch, len_k)
    expected, expected_weights = mha(
        query, key, value, key_padding_mask=~keep, average_attn_weights=False
    )
    mask = keep[:, None, None, :]  # (batch, 1, 1, len_k): True = may attend
    got, weights = o.multi_head_attention_f(state, query, key, value, mask, NUM_HEADS)
    torch.testing.assert_close(got, expected.detach(), **CLOSE)
    torch.testing.assert_close(weights, expected_weights.detach(), **CLOSE)


def test_multi_head_attention_causal_is_a_causal_mask():
    mha, state = mha_pair(24)
    x = randn(2, 6, D_MODEL, seed=25)
    future = torch.ones(6, 6, dtype=torch.bool).triu(1)  # PyTorch: True = blocked
    expected, _ = mha(x, x, x, attn_mask=future)
    got, _ = o.multi_head_attention_f(state, x, x, x, None, NUM_HEADS, is_causal=True)
    torch.testing.assert_close(got, expected.detach(), **CLOSE)


def _scaled_q(state: dict, factor: float) -> dict:
    """The state with w_q (weight and bias) multiplied by factor: the scores times factor."""
    return state | {
        "w_q.weight": state["w_q.weight"] * factor,
        "w_q.bias": state["w_q.bias"] * factor,
    }


def test_multi_head_attention_knobs_compute_what_they_name():
    _, state = mha_pair(26)
    query, key, value = (randn(2, 5, D_MODEL, seed=s) for s in (27, 28, 29))
    mask = torch.rand(2, 1, 5, 5, generator=gen(30)) < 0.7
    mask[..., 0] = True

    def f(p=state, q=query, k=key, v=value, m=mask, **knobs):
        return o.multi_head_attention_f(p, q, k, v, m, NUM_HEADS, **knobs)

    right = f()
    d_head = D_MODEL // NUM_HEADS
    same = [  # (knobs, the same computation by other means)
        ({"q_from": "key"}, f(q=key)),
        ({"q_from": "value"}, f(q=value)),
        ({"k_from": "query"}, f(k=query)),
        ({"v_from": "key"}, f(v=key)),
        ({"v_from": "query"}, f(v=query)),
        (
            {"k_proj": "w_q"},
            f(p=state | {"w_k.weight": state["w_q.weight"], "w_k.bias": state["w_q.bias"]}),
        ),
        (
            {"k_proj": "w_v"},
            f(p=state | {"w_k.weight": state["w_v.weight"], "w_k.bias": state["w_v.bias"]}),
        ),
        (
            {"v_proj": "w_q"},
            f(p=state | {"w_v.weight": state["w_q.weight"], "w_v.bias": state["w_q.bias"]}),
        ),
        (
            {"v_proj": "w_k"},
            f(p=state | {"w_v.weight": state["w_k.weight"], "w_v.bias": state["w_k.bias"]}),
        ),
        (
            {"v_proj": None},
            f(
                p=state
                | {
                    "w_v.weight": torch.eye(D_MODEL, dtype=torch.float64),
                    "w_v.bias": torch.zeros(D_MODEL, dtype=torch.float64),
                }
            ),
        ),
        (
            {"no_bias": ("w_q", "w_v")},
            f(
                p=state
                | {
                    "w_q.bias": torch.zeros_like(state["w_q.bias"]),
                    "w_v.bias": torch.zeros_like(state["w_v.bias"]),
                }
            ),
        ),
        ({"scale": "none"}, f(p=_scaled_q(state, math.sqrt(d_head)))),
        # a number: the factor itself (round 34), here the scores multiplied by sqrt(d_head)
        ({"scale": math.sqrt(d_head)}, f(p=_scaled_q(state, d_head))),
        ({"scale": "d_head"}, f(p=_scaled_q(state, 1 / math.sqrt(d_head)))),
        ({"scale": "sqrt_d_model"}, f(p=_scaled_q(state, math.sqrt(d_head / D_MODEL)))),
        ({"mask_mode": "none"}, f(m=None)),
        ({"mask_mode": "inverted"}, f(m=~mask)),
        ({"rotate": lambda t: t}, right),  # a rotation that does nothing changes nothing
    ]
    for knobs, expected in same:
        got = f(**knobs)
        torch.testing.assert_close(got, expected, **CLOSE, msg=str(knobs))
        if "rotate" not in knobs:
            assert not torch.allclose(got[0], right[0]), knobs
    no_w_o = state | {
        "w_o.weight": torch.eye(D_MODEL, dtype=torch.float64),
        "w_o.bias": torch.zeros(D_MODEL, dtype=torch.float64),
    }
    torch.testing.assert_close(f(use_w_o=False)[0], f(p=no_w_o)[0], **CLOSE)
    # the softmax over the queries: each key's weights sum to 1 over the queries
    columns = f(softmax_dim=-2, mask_mode="none")[1].sum(-2)
    torch.testing.assert_close(columns, torch.ones_like(columns))
    # dropout on the scores: uniform weights over the allowed keys; on the weights: w_o's bias
    uniform = f(uniform_weights=True)[1]
    torch.testing.assert_close(
        uniform, (mask.double() / mask.sum(-1, keepdim=True)).expand_as(uniform)
    )
    torch.testing.assert_close(f(drop=True)[0], state["w_o.bias"].expand(2, 5, D_MODEL))
    torch.testing.assert_close(f(weights=right[1])[0], right[0], **CLOSE)


def test_split_and_merge_knobs_matter_only_where_they_name():
    """A missing transpose mixes tokens into heads: it changes nothing with one head, and in
    the merge nothing with one query; with several of each it changes the output."""
    _, state = mha_pair(31)
    x = randn(2, 5, D_MODEL, seed=32)
    one_query = x[:, :1]
    for knob in ({"split": "no_transpose"}, {"merge": "no_transpose"}):
        several = o.multi_head_attention_f(state, x, x, x, None, NUM_HEADS, **knob)[0]
        assert not torch.allclose(
            several, o.multi_head_attention_f(state, x, x, x, None, NUM_HEADS)[0]
        )
        one_head = o.multi_head_attention_f(state, x, x, x, None, 1, **knob)[0]
        torch.testing.assert_close(one_head, o.multi_head_attention_f(state, x, x, x, None, 1)[0])
    merged = o.multi_head_attention_f(state, one_query, x, x, None, NUM_HEADS, merge="no_transpose")
    torch.testing.assert_close(
        merged, o.multi_head_attention_f(state, one_query, x, x, None, NUM_HEADS), **CLOSE
    )
    heads = randn(2, NUM_HEADS, 5, 4, seed=33)
    torch.testing.assert_close(o.split_heads_f(o.merge_heads_f(heads), NUM_HEADS), heads)


# ================================================================================== norms
def test_layer_norm_is_nn_layer_norm_and_its_knobs():
    norm = randomized(nn.LayerNorm(D_MODEL, eps=0.1), 40)
    x = randn(2, 4, D_MODEL, seed=41) * 3 + 1
    p = norm_state(norm)
    torch.testing.assert_close(o.layer_norm_f(x, p, 0.1), norm(x).detach(), **CLOSE)
    plain = nn.LayerNorm(D_MODEL, eps=0.1, elementwise_affine=False).double()
    n = D_MODEL
    knob_equivalents = [
        ({"gain": False}, plain(x) + p["bias"]),
        ({"shift": False}, plain(x) * p["weight"]),
        ({"swap": True}, plain(x) * p["bias"] + p["weight"]),
        # the unbiased variance is n / (n - 1) times the biased one
        (
            {"unbiased": True},
            (x - x.mean(-1, keepdim=True)) / torch.sqrt(x.var(-1, keepdim=True) + 0.1) * p["weight"]
            + p["bias"],
        ),
        ({"eps_at": "none"}, nn.functional.layer_norm(x, (n,), p["weight"], p["bias"], eps=0.0)),
        (
            {"over": "sequence"},
            nn.functional.layer_norm(x.transpose(-1, -2), (4,), eps=0.1).transpose(-1, -2)
            * p["weight"]
            + p["bias"],
        ),
        (
            {"over": "sequence_and_features"},
            nn.functional.layer_norm(x, (4, n), eps=0.1) * p["weight"] + p["bias"],
        ),
        (
            {"over": "batch"},
            nn.functional.batch_norm(x.reshape(-1, n), None, None, training=True, eps=0.1).reshape(
                x.shape
            )
            * p["weight"]
            + p["bias"],
        ),
    ]
    for knobs, expected in knob_equivalents:
        got = o.layer_norm_f(x, p, 0.1, **knobs)
        torch.testing.assert_close(got, expected.detach(), **CLOSE, msg=str(knobs))
    outside = o.layer_norm_f(x, p, 0.1, eps_at="outside")
    std = x.std(-1, keepdim=True, correction=0)
    torch.testing.assert_close(
        outside, (x - x.mean(-1, keepdim=True)) / (std + 0.1) * p["weight"] + p["bias"]
    )


def test_rms_norm_is_nn_rms_norm_and_its_knobs():
    norm = randomized(nn.RMSNorm(D_MODEL, eps=0.1), 42)
    x = randn(2, 4, D_MODEL, seed=43) + 0.5
    p = {"weight": norm.weight.detach()}
    torch.testing.assert_close(o.rms_norm_f(x, p, 0.1), norm(x).detach(), **CLOSE)
    w = p["weight"]
    knob_equivalents = [
        ({"gain": False}, F.rms_norm(x, (D_MODEL,), eps=0.1)),
        ({"statistic": "variance"}, F.layer_norm(x, (D_MODEL,), eps=0.1) * w),
        (
            {"statistic": "sum_square"},
            F.rms_norm(x, (D_MODEL,), eps=0.1 / D_MODEL) / math.sqrt(D_MODEL) * w,
        ),
        ({"eps_at": "none"}, F.rms_norm(x, (D_MODEL,), eps=0.0) * w),
        (
            {"over": "sequence"},
            F.rms_norm(x.transpose(-1, -2), (4,), eps=0.1).transpose(-1, -2) * w,
        ),
        ({"over": "everything"}, F.rms_norm(x, tuple(x.shape), eps=0.1) * w),
        ({"over": "first"}, F.rms_norm(x.movedim(0, -1), (2,), eps=0.1).movedim(-1, 0) * w),
    ]
    for knobs, expected in knob_equivalents:
        torch.testing.assert_close(
            o.rms_norm_f(x, p, 0.1, **knobs), expected, **CLOSE, msg=str(knobs)
        )
    mean = x.mean(-1, keepdim=True)
    torch.testing.assert_close(
        o.rms_norm_f(x, p, 0.1, statistic="mean"), x / torch.sqrt(mean + 0.1) * w, equal_nan=True
    )
    rms = x.pow(2).mean(-1, keepdim=True).sqrt()
    torch.testing.assert_close(o.rms_norm_f(x, p, 0.1, eps_at="outside"), x / (rms + 0.1) * w)
    torch.testing.assert_close(
        o.rms_norm_f(x, p, 0.1, root=False), x / (x.pow(2).mean(-1, keepdim=True) + 0.1) * w
    )


# =========================================================================== feed-forward
def test_feed_forward_is_two_linears_around_a_relu_and_its_knobs():
    layer = randomized(nn.TransformerEncoderLayer(D_MODEL, NUM_HEADS, D_FF, dropout=0.0), 44)
    p, x = ffn_state(layer), randn(2, 4, D_MODEL, seed=45)
    l1, l2 = layer.linear1, layer.linear2
    with torch.no_grad():
        torch.testing.assert_close(o.ffn_f(x, p), l2(F.relu(l1(x))), **CLOSE)
        torch.testing.assert_close(o.ffn_f(x, p, activation="none"), l2(l1(x)), **CLOSE)
        torch.testing.assert_close(o.ffn_f(x, p, activation="gelu"), l2(F.gelu(l1(x))), **CLOSE)
        torch.testing.assert_close(
            o.ffn_f(x, p, activation="relu_twice"), F.relu(l2(F.relu(l1(x)))), **CLOSE
        )
        # dropout p=1 in train mode: on the hidden layer (right) leaves w_2's bias
        torch.testing.assert_close(o.ffn_f(x, p, drop=True), l2.bias.expand(2, 4, D_MODEL))
        torch.testing.assert_close(o.ffn_f(x, p, drop=True, drop_at="output"), torch.zeros_like(x))
        torch.testing.assert_close(
            o.ffn_f(x, p, drop=True, drop_at="input"),
            l2(F.relu(l1.bias)).expand(2, 4, D_MODEL),
            **CLOSE,
        )
        torch.testing.assert_close(o.ffn_f(x, p, drop=True, drop_at="nowhere"), o.ffn_f(x, p))


def test_swiglu_is_the_llama_formula_and_its_knobs():
    w1, w2, w3 = (
        randomized(nn.Linear(*dims, bias=False), s)
        for dims, s in (((D_MODEL, D_FF), 46), ((D_FF, D_MODEL), 47), ((D_MODEL, D_FF), 48))
    )
    p = {
        "w1.weight": w1.weight.detach(),
        "w2.weight": w2.weight.detach(),
        "w3.weight": w3.weight.detach(),
    }
    x = randn(2, 4, D_MODEL, seed=49)
    with torch.no_grad():
        torch.testing.assert_close(o.swiglu_f(x, p), w2(F.silu(w1(x)) * w3(x)), **CLOSE)
        knob_equivalents = [
            ({"activation": "relu"}, w2(F.relu(w1(x)) * w3(x))),
            ({"activation": "gelu"}, w2(F.gelu(w1(x)) * w3(x))),
            ({"activation": "sigmoid"}, w2(torch.sigmoid(w1(x)) * w3(x))),
            ({"swap": True}, w2(F.silu(w3(x)) * w1(x))),
            ({"gate": False}, w2(F.silu(w1(x)))),
            ({"after": True}, w2(F.silu(w1(x) * w3(x)))),
        ]
        for knobs, expected in knob_equivalents:
            torch.testing.assert_close(o.swiglu_f(x, p, **knobs), expected, **CLOSE, msg=str(knobs))


# ===================================================================== encoder and decoder
def _src():
    x = randn(3, 6, D_MODEL, seed=50)
    keep = padding((6, 4, 5), 6)  # (batch, len_src)
    return x, keep


@pytest.mark.parametrize("norm_first", [False, True])
def test_encoder_layer_is_nn_transformer_encoder_layer(norm_first):
    layer = nn.TransformerEncoderLayer(
        D_MODEL, NUM_HEADS, D_FF, dropout=0.0, batch_first=True, norm_first=norm_first
    )
    layer = randomized(layer, 51)
    x, keep = _src()
    expected = layer(x, src_key_padding_mask=~keep)  # grad mode on: no fast path
    got = o.encoder_layer_f(
        x, encoder_layer_state(layer), keep[:, None, None, :], NUM_HEADS, norm_first=norm_first
    )
    torch.testing.assert_close(got, expected.detach(), **CLOSE)


@pytest.mark.parametrize("norm_first", [False, True])
def test_decoder_layer_is_nn_transformer_decoder_layer(norm_first):
    layer = nn.TransformerDecoderLayer(
        D_MODEL, NUM_HEADS, D_FF, dropout=0.0, batch_first=True, norm_first=norm_first
    )
    layer = randomized(layer, 52)
    memory, src_keep = _src()
    x = randn(3, 5, D_MODEL, seed=53)
    tgt_keep = padding((5, 5, 2), 5)
    future = torch.ones(5, 5, dtype=torch.bool).triu(1)
    expected = layer(
        x,
        memory,
        tgt_mask=future,
        tgt_key_padding_mask=~tgt_keep,
        memory_key_padding_mask=~src_keep,
    )
    tgt_mask = tgt_keep[:, None, None, :] & ~future  # (batch, 1, len_tgt, len_tgt)
    src_mask = src_keep[:, None, None, :]
    state = decoder_layer_state(layer)
    got = o.decoder_layer_f(x, memory, state, src_mask, tgt_mask, NUM_HEADS, norm_first=norm_first)
    torch.testing.assert_close(got, expected.detach(), **CLOSE)
    # the layer's own look-ahead mask is the causal mask
    causal = o.decoder_layer_f(
        x, memory, state, src_mask, None, NUM_HEADS, norm_first=norm_first, self_mask="causal"
    )
    with_tgt = o.decoder_layer_f(
        x, memory, state, src_mask, ~future, NUM_HEADS, norm_first=norm_first
    )
    torch.testing.assert_close(causal, with_tgt)


@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")
@pytest.mark.parametrize("norm_first", [False, True])
def test_the_stacks_and_the_whole_transformer_are_nn_transformer(norm_first):
    """nn.Transformer: encoder and decoder stacks, each with a final LayerNorm."""
    model = nn.Transformer(
        D_MODEL, NUM_HEADS, 2, 2, D_FF, dropout=0.0, batch_first=True, norm_first=norm_first
    )
    model = randomized(model, 54)
    src, src_keep = _src()
    tgt = randn(3, 5, D_MODEL, seed=55)
    future = torch.ones(5, 5, dtype=torch.bool).triu(1)
    expected_memory = model.encoder(src, src_key_padding_mask=~src_keep)
    expected = model(
        src, tgt, tgt_mask=future, src_key_padding_mask=~src_keep, memory_key_padding_mask=~src_keep
    )
    src_mask = src_keep[:, None, None, :]
    enc = stack_state(model.encoder, encoder_layer_state)
    dec = stack_state(model.decoder, decoder_layer_state)
    memory = o.encoder_f(src, enc, src_mask, NUM_HEADS, 2, norm_first=norm_first, final=True)
    torch.testing.assert_close(memory, expected_memory.detach(), **CLOSE)
    got = o.decoder_f(
        tgt, memory, dec, src_mask, ~future, NUM_HEADS, 2, norm_first=norm_first, final=True
    )
    torch.testing.assert_close(got, expected.detach(), **CLOSE)


def test_residual_block_knobs_compute_what_they_name():
    x = randn(2, 3, 4, seed=56)

    def sublayer(t):
        return 2 * t + 1

    def norm(t):
        return t / 3

    def block(norm_first, **knobs):
        return o.residual_block(x, sublayer, norm, norm_first=norm_first, **knobs)

    cases = [  # (norm_first, knobs, expected)
        (False, {}, norm(x + sublayer(x))),
        (True, {}, x + sublayer(norm(x))),
        (False, {"residual": "none"}, norm(sublayer(x))),
        (True, {"residual": "none"}, sublayer(norm(x))),
        (False, {"residual": "after_norm"}, x + norm(sublayer(x))),
        (True, {"residual": "from_normed"}, norm(x) + sublayer(norm(x))),
        (False, {"drop": True}, norm(x)),  # dropout p=1 on the sub-layer's output
        (True, {"drop": True}, x),
        (False, {"drop": True, "dropout_at": "missing"}, norm(x + sublayer(x))),
        (False, {"drop": True, "dropout_at": "on_sum"}, norm(torch.zeros_like(x))),
        (False, {"drop": True, "dropout_at": "after_norm"}, torch.zeros_like(x)),
        (True, {"drop": True, "dropout_at": "after_norm"}, x + sublayer(torch.zeros_like(x))),
    ]
    for norm_first, knobs, expected in cases:
        torch.testing.assert_close(
            block(norm_first, **knobs), expected, msg=f"{norm_first} {knobs}"
        )


def test_layer_and_stack_knobs_compute_what_they_name():
    layer = randomized(
        nn.TransformerEncoderLayer(D_MODEL, NUM_HEADS, D_FF, dropout=0.0, batch_first=True), 57
    )
    state = encoder_layer_state(layer)
    x, keep = _src()
    mask = keep[:, None, None, :]

    def f(**knobs):
        return o.encoder_layer_f(x, state, mask, NUM_HEADS, norm_first=False, **knobs)

    swapped = (
        state | prefixed("norm1", o.sub(state, "norm2")) | prefixed("norm2", o.sub(state, "norm1"))
    )
    torch.testing.assert_close(
        f(norms=("norm2", "norm1")),
        o.encoder_layer_f(x, swapped, mask, NUM_HEADS, norm_first=False),
    )
    torch.testing.assert_close(
        f(mask_mode="none"), o.encoder_layer_f(x, state, None, NUM_HEADS, norm_first=False)
    )
    torch.testing.assert_close(
        f(mask_mode="inverted"), o.encoder_layer_f(x, state, ~mask, NUM_HEADS, norm_first=False)
    )
    assert not torch.allclose(f(order=("ffn", "attn")), f())
    # the stack's order knobs: which layers run, and where the final norm goes
    stack = stack_state(
        randomized(
            nn.TransformerEncoder(layer, 3, norm=nn.LayerNorm(D_MODEL), enable_nested_tensor=False),
            58,
        ),
        encoder_layer_state,
    )

    def run(indices, final=True):
        h = x
        for i in indices:
            h = o.encoder_layer_f(h, o.sub(stack, f"layers.{i}"), mask, NUM_HEADS, norm_first=False)
        return o.layer_norm_f(h, o.sub(stack, "norm")) if final else h

    def enc(**knobs):
        return o.encoder_f(x, stack, mask, NUM_HEADS, 3, norm_first=False, **knobs)

    torch.testing.assert_close(enc(final=True), run([0, 1, 2]))
    torch.testing.assert_close(enc(final=False), run([0, 1, 2], final=False))
    torch.testing.assert_close(enc(final=True, order="reversed"), run([2, 1, 0]))
    torch.testing.assert_close(enc(final=True, order="first_only"), run([0, 0, 0]))
    torch.testing.assert_close(enc(final=True, order="first_once"), run([0]))
    unchained = o.encoder_layer_f(
        x, o.sub(stack, "layers.2"), mask, NUM_HEADS, norm_first=False
    )  # every layer reads x: only the last one's result goes on
    torch.testing.assert_close(
        enc(final=True, order="unchained"), o.layer_norm_f(unchained, o.sub(stack, "norm"))
    )
    # one residual alone missing: post-LN norm1(attn(x)), then the feed-forward's own
    norm1, norm2 = o.sub(state, "norm1"), o.sub(state, "norm2")
    attended = o.layer_norm_f(
        o.multi_head_attention_f(o.sub(state, "self_attn"), x, x, x, mask, NUM_HEADS)[0], norm1
    )
    torch.testing.assert_close(
        f(no_residual=("attn",)),
        o.layer_norm_f(attended + o.ffn_f(attended, o.sub(state, "feed_forward")), norm2),
    )
    torch.testing.assert_close(
        enc(final=False, mask_passed=False),
        o.encoder_f(x, stack, None, NUM_HEADS, 3, norm_first=False, final=False),
    )
    assert not torch.allclose(enc(final=True, norm_each=True), enc(final=True))
    assert o.uses_final_norm(True, None) and not o.uses_final_norm(False, None)
    assert o.uses_final_norm(False, True) and not o.uses_final_norm(True, False)


def test_decoder_knobs_compute_what_they_name():
    layer = randomized(
        nn.TransformerDecoderLayer(D_MODEL, NUM_HEADS, D_FF, dropout=0.0, batch_first=True), 59
    )
    state = decoder_layer_state(layer)
    memory, src_keep = _src()
    x = randn(3, 6, D_MODEL, seed=60)  # len_tgt == len_src: every routing of the masks computes
    src_mask = src_keep[:, None, None, :]
    tgt_mask = torch.ones(6, 6, dtype=torch.bool).tril()

    def f(x=x, memory=memory, src=src_mask, tgt=tgt_mask, **knobs):
        knobs = {"norm_first": False, **knobs}
        return o.decoder_layer_f(x, memory, state, src, tgt, NUM_HEADS, **knobs)

    torch.testing.assert_close(f(self_mask="none"), f(tgt=None))
    torch.testing.assert_close(f(cross_mask="none"), f(src=None))
    torch.testing.assert_close(f(self_mask="src", cross_mask="tgt"), f(src=tgt_mask, tgt=src_mask))
    torch.testing.assert_close(f(self_mask="causal", tgt=None), f())
    for knobs in (
        {"cross_from": ("memory", "x", "x")},
        {"self_kv": "memory"},
        {"memory_norm": True, "norm_first": True},
        {"order": ("cross", "self", "ffn")},
    ):
        assert not torch.allclose(f(**knobs), f()), knobs
    # the decoder stack: masks swapped, not passed, memory read from the decoder's own input
    stack = stack_state(
        randomized(nn.TransformerDecoder(layer, 2, norm=nn.LayerNorm(D_MODEL)), 61),
        decoder_layer_state,
    )

    def dec(src=src_mask, tgt=tgt_mask, memory=memory, **knobs):
        return o.decoder_f(
            x, memory, stack, src, tgt, NUM_HEADS, 2, norm_first=False, final=True, **knobs
        )

    torch.testing.assert_close(dec(masks_swapped=True), dec(src=tgt_mask, tgt=src_mask))
    torch.testing.assert_close(dec(src_passed=False), dec(src=None))
    torch.testing.assert_close(dec(tgt_passed=False), dec(tgt=None))
    assert not torch.allclose(dec(memory_from="x"), dec())
    assert not torch.allclose(dec(layer_norm_first=True), dec())


def test_dropout_one_in_train_mode_gives_the_documented_results():
    """With every dropout zeroing (p=1, train): a post-LN encoder layer gives
    norm2(norm1(x)), a pre-LN one x (the lessons' documented results)."""
    layer = randomized(nn.TransformerEncoderLayer(D_MODEL, NUM_HEADS, D_FF, dropout=0.0), 62)
    state, x = encoder_layer_state(layer), randn(2, 4, D_MODEL, seed=63)
    post = o.encoder_layer_f(x, state, None, NUM_HEADS, norm_first=False, drop=True)
    norm1, norm2 = o.sub(state, "norm1"), o.sub(state, "norm2")
    torch.testing.assert_close(post, o.layer_norm_f(o.layer_norm_f(x, norm1), norm2))
    torch.testing.assert_close(
        o.encoder_layer_f(x, state, None, NUM_HEADS, norm_first=True, drop=True), x
    )


# ============================================================== positions, RoPE and the GPT
def test_sinusoidal_positions_are_the_paper_s_formula():
    """Paper, section 3.5: PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), PE(pos, 2i+1) = cos."""
    table = o.sinusoidal_positions_f(7, 6)
    for pos in range(7):
        for i in range(3):
            angle = pos / 10000 ** (2 * i / 6)
            assert math.isclose(table[pos, 2 * i], math.sin(angle), abs_tol=1e-12)
            assert math.isclose(table[pos, 2 * i + 1], math.cos(angle), abs_tol=1e-12)


def test_sinusoidal_knobs_compute_what_they_name():
    right = o.sinusoidal_positions_f(6, 8)
    odd = o.sinusoidal_positions_f(6, 7)
    np.testing.assert_allclose(o.sinusoidal_positions_f(6, 8, swap=True)[0], [1, 0] * 4)
    np.testing.assert_allclose(o.sinusoidal_positions_f(6, 8, start=1)[:-1], right[1:])
    concatenated = o.sinusoidal_positions_f(6, 8, layout="concatenated")
    np.testing.assert_allclose(concatenated, np.concatenate([right[:, 0::2], right[:, 1::2]], 1))
    np.testing.assert_allclose(
        o.sinusoidal_positions_f(6, 8, exponent="2j"), o.sinusoidal_positions_f(6, 8, base=1e8)
    )
    by_column = o.sinusoidal_positions_f(6, 8, exponent="j")  # cos 2i+1 at its own frequency
    np.testing.assert_allclose(by_column[:, 0::2], right[:, 0::2])
    np.testing.assert_allclose(by_column[:, 3], np.cos(np.arange(6.0) / 10000 ** (3 / 8)))
    # 10000^(i/d) = 100^(2i/d): the base's square root
    np.testing.assert_allclose(
        o.sinusoidal_positions_f(6, 8, exponent="i"), o.sinusoidal_positions_f(6, 8, base=100.0)
    )
    np.testing.assert_allclose(
        o.sinusoidal_positions_f(6, 8, exponent="int")[:, 0::2],
        np.sin(np.arange(6.0))[:, None].repeat(4, 1),
    )
    np.testing.assert_allclose(
        o.sinusoidal_positions_f(6, 8, multiply=True)[:, 2], np.sin(np.arange(6.0) * 10000**0.25)
    )
    np.testing.assert_allclose(o.sinusoidal_positions_f(6, 7, odd_last="zero")[:, -1], 0.0)
    np.testing.assert_allclose(
        o.sinusoidal_positions_f(6, 7, odd_last="cos")[:, -1],
        np.cos(np.arange(6.0) / 10000 ** (6 / 7)),
    )
    np.testing.assert_allclose(odd[:, -1], np.sin(np.arange(6.0) / 10000 ** (6 / 7)))


def test_relative_shift_moves_every_position_by_k_and_its_knobs():
    """The defining property: PE[pos] @ M(k) = PE[pos + k]."""
    table = o.sinusoidal_positions_f(12, 8)
    for k in (1, 3):
        np.testing.assert_allclose(table[:-k] @ o.relative_shift_f(k, 8), table[k:], atol=1e-12)
    np.testing.assert_allclose(
        table[3:] @ o.relative_shift_f(3, 8, transpose=True), table[:-3], atol=1e-12
    )
    np.testing.assert_allclose(o.relative_shift_f(3, 8, angle="w"), o.relative_shift_f(1, 8))
    concatenated = o.sinusoidal_positions_f(12, 8, layout="concatenated")
    shifted = concatenated[:-2] @ o.relative_shift_f(2, 8, layout="concatenated")
    np.testing.assert_allclose(shifted, concatenated[2:], atol=1e-12)
    i_table = o.sinusoidal_positions_f(12, 8, exponent="i")
    np.testing.assert_allclose(
        i_table[:-2] @ o.relative_shift_f(2, 8, exponent="i"), i_table[2:], atol=1e-12
    )
    same_angle = o.relative_shift_f(2, 8, angle="k")
    np.testing.assert_allclose(np.diag(same_angle), np.cos(2.0))


def test_rotate_is_rope_in_both_pairings_and_its_knobs():
    """Adjacent pairs as Meta's Llama code writes it (a complex product); "rotate half" as
    GPT-NeoX does (x cos + rotate_half(x) sin)."""
    x = randn(2, 5, 8, seed=64)
    angles = o.rope_angles_f(5, 8)
    theta = 10000.0 ** (-torch.arange(0, 8, 2, dtype=torch.float64) / 8)
    torch.testing.assert_close(angles, torch.arange(5, dtype=torch.float64)[:, None] * theta)
    complex_x = torch.view_as_complex(x.reshape(2, 5, 4, 2).contiguous())
    adjacent = torch.view_as_real(complex_x * torch.polar(torch.ones_like(angles), angles)).flatten(
        -2
    )
    torch.testing.assert_close(o.rotate_f(x, angles, "adjacent"), adjacent, **CLOSE)
    cos, sin = torch.cat([angles.cos()] * 2, -1), torch.cat([angles.sin()] * 2, -1)
    rotate_half = torch.cat([-x[..., 4:], x[..., :4]], -1)
    torch.testing.assert_close(o.rotate_f(x, angles, "half"), x * cos + rotate_half * sin, **CLOSE)
    torch.testing.assert_close(o.rotate_f(x, angles, direction=-1), o.rotate_f(x, -angles))
    torch.testing.assert_close(o.rope_angles_f(5, 8, first=1), o.rope_angles_f(6, 8)[1:])
    torch.testing.assert_close(o.rope_angles_f(5, 8, exponent="i/d"), o.rope_angles_f(5, 16)[:, :4])
    torch.testing.assert_close(
        o.rope_angles_f(5, 8, exponent="+2i/d"),
        torch.arange(5.0, dtype=torch.float64)[:, None] / theta,
    )
    torch.testing.assert_close(
        o.rope_angles_f(5, 8, exponent="2i/(d-2)")[:, -1],
        torch.arange(5.0, dtype=torch.float64) / 10000,
    )


def test_rope_dot_products_depend_only_on_the_offset():
    q, k = randn(8, seed=65), randn(8, seed=66)
    angles = o.rope_angles_f(12, 8)

    def score(m, n):
        return float(
            o.rotate_f(q[None], angles[m : m + 1]) @ o.rotate_f(k[None], angles[n : n + 1]).T
        )

    assert math.isclose(score(3, 1), score(10, 8), rel_tol=1e-10)
    assert not math.isclose(score(3, 1), score(3, 2), rel_tol=1e-3)


def gpt_state(seed: int, vocab: int = 11, layers: int = 2) -> dict[str, torch.Tensor]:
    g = gen(seed)

    def r(*shape):
        return torch.randn(*shape, generator=g, dtype=torch.float64) * 0.4

    state = {"embedding.weight": r(vocab, D_MODEL), "norm.weight": 1 + r(D_MODEL)}
    for i in range(layers):
        block = {f"attn.{n}.weight": r(D_MODEL, D_MODEL) for n in ("w_q", "w_k", "w_v", "w_o")}
        block |= {
            "feed_forward.w1.weight": r(D_FF, D_MODEL),
            "feed_forward.w3.weight": r(D_FF, D_MODEL),
        }
        block |= {"feed_forward.w2.weight": r(D_MODEL, D_FF)}
        block |= {"norm1.weight": 1 + r(D_MODEL), "norm2.weight": 1 + r(D_MODEL)}
        state |= prefixed(f"layers.{i}", block)
    return state


def test_causal_self_attention_without_rope_is_pytorch_s_causal_attention():
    state = o.sub(gpt_state(70), "layers.0.attn")
    x = randn(2, 6, D_MODEL, seed=71)
    lin = {
        n: nn.Linear(D_MODEL, D_MODEL, bias=False).double() for n in ("w_q", "w_k", "w_v", "w_o")
    }
    with torch.no_grad():
        for n, module in lin.items():
            module.weight.copy_(state[f"{n}.weight"])
        q, k, v = (
            lin[n](x).view(2, 6, NUM_HEADS, -1).transpose(1, 2) for n in ("w_q", "w_k", "w_v")
        )
        heads = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        expected = lin["w_o"](heads.transpose(1, 2).reshape(2, 6, D_MODEL))
        # with RoPE: the same, on rotated queries and keys
        angles = o.rope_angles_f(6, D_MODEL // NUM_HEADS)
        rq, rk = o.rotate_f(q, angles), o.rotate_f(k, angles)
        rotated = lin["w_o"](
            F.scaled_dot_product_attention(rq, rk, v, is_causal=True)
            .transpose(1, 2)
            .reshape(2, 6, D_MODEL)
        )
    torch.testing.assert_close(
        o.causal_self_attention_f(x, state, NUM_HEADS, rope=False), expected, **CLOSE
    )
    torch.testing.assert_close(o.causal_self_attention_f(x, state, NUM_HEADS), rotated, **CLOSE)
    not_causal = o.causal_self_attention_f(x, state, NUM_HEADS, rope=False, causal=False)
    torch.testing.assert_close(
        not_causal,
        lin["w_o"](
            F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(2, 6, D_MODEL)
        ).detach(),
        **CLOSE,
    )
    for knobs in (
        {"rotate_values": True},
        {"split": "before"},
        {"pairing": "adjacent"},
    ):
        assert not torch.allclose(
            o.causal_self_attention_f(x, state, NUM_HEADS, **knobs), rotated
        ), knobs
    # the mask's diagonal moved (round 34): tril(diagonal=k) as the mask, k = -1 the
    # "strict" mask, k = 1 one future key seen
    for k in (-1, 1):
        moved = F.scaled_dot_product_attention(
            rq, rk, v, attn_mask=torch.ones(6, 6, dtype=torch.bool).tril(k)
        )
        torch.testing.assert_close(
            o.causal_self_attention_f(x, state, NUM_HEADS, diagonal=k),
            lin["w_o"](moved.transpose(1, 2).reshape(2, 6, D_MODEL)).detach(),
            **CLOSE,
        )
    # RoPE sees only offsets: one-indexed positions give the same attention (the mistake
    # shows in rotary_embedding's own check, not here)
    one_indexed = o.causal_self_attention_f(x, state, NUM_HEADS, first=1)
    torch.testing.assert_close(one_indexed, rotated, **CLOSE)


def test_decoder_block_and_gpt_are_pre_norm_and_causal():
    state = gpt_state(72)
    block = o.sub(state, "layers.0")
    x = randn(2, 6, D_MODEL, seed=73)
    norm1, norm2 = nn.RMSNorm(D_MODEL, eps=1e-5).double(), nn.RMSNorm(D_MODEL, eps=1e-5).double()
    with torch.no_grad():
        norm1.weight.copy_(block["norm1.weight"])
        norm2.weight.copy_(block["norm2.weight"])
    attn, ffn = o.sub(block, "attn"), o.sub(block, "feed_forward")
    h = x + o.causal_self_attention_f(norm1(x).detach(), attn, NUM_HEADS)
    expected = h + o.swiglu_f(norm2(h).detach(), ffn)
    torch.testing.assert_close(o.decoder_block_f(x, block, NUM_HEADS), expected, **CLOSE)
    h_alone = o.causal_self_attention_f(norm1(x).detach(), attn, NUM_HEADS)
    torch.testing.assert_close(
        o.decoder_block_f(x, block, NUM_HEADS, no_residual=("attn",)),
        h_alone + o.swiglu_f(norm2(h_alone).detach(), ffn),
        **CLOSE,
    )
    torch.testing.assert_close(
        o.decoder_block_f(x, block, NUM_HEADS, norms=("norm1", "norm1")),
        h + o.swiglu_f(norm1(h).detach(), ffn),
        **CLOSE,
    )
    for layout in ("post", "no_residual", "residual_from_normed", "swapped_norms", "parallel"):
        assert not torch.allclose(
            o.decoder_block_f(x, block, NUM_HEADS, layout=layout), expected
        ), layout
    parallel = (
        x
        + o.causal_self_attention_f(norm1(x).detach(), attn, NUM_HEADS)
        + o.swiglu_f(norm2(x).detach(), ffn)
    )
    torch.testing.assert_close(
        o.decoder_block_f(x, block, NUM_HEADS, layout="parallel"), parallel, **CLOSE
    )
    ids = torch.randint(0, 11, (2, 6), generator=gen(74))
    logits = o.gpt_f(ids, state, NUM_HEADS, 2)
    assert logits.shape == (2, 6, 11)
    torch.testing.assert_close(o.gpt_f(ids, state, NUM_HEADS, 2, softmax=True), logits.softmax(-1))
    for knobs in ({"final_norm": False}, {"scale_embedding": True}, {"causal": False}):
        assert not torch.allclose(o.gpt_f(ids, state, NUM_HEADS, 2, **knobs), logits), knobs
    # causality: changing the last token changes no earlier position, unless causal=False
    changed = ids.clone()
    changed[:, -1] = (changed[:, -1] + 1) % 11
    torch.testing.assert_close(o.gpt_f(changed, state, NUM_HEADS, 2)[:, :-1], logits[:, :-1])
    leaky = o.gpt_f(changed, state, NUM_HEADS, 2, causal=False)[:, :-1]
    assert not torch.allclose(leaky, o.gpt_f(ids, state, NUM_HEADS, 2, causal=False)[:, :-1])
    later = x.clone()
    later[:, -1] += 1
    torch.testing.assert_close(o.decoder_block_f(later, block, NUM_HEADS)[:, :-1], expected[:, :-1])


# ======================================================= the whole encoder-decoder (lesson 09)
def transformer_state(model: nn.Transformer, vocab: tuple[int, int], seed: int) -> dict:
    """The course's state dict of a Transformer: nn.Transformer's stacks, two random
    tables and a random output layer."""
    g = gen(seed)
    src_vocab, tgt_vocab = vocab
    return {
        "src_embedding.embedding.weight": torch.randn(src_vocab, D_MODEL, generator=g).double(),
        "tgt_embedding.embedding.weight": torch.randn(tgt_vocab, D_MODEL, generator=g).double(),
        **prefixed("encoder", stack_state(model.encoder, encoder_layer_state)),
        **prefixed("decoder", stack_state(model.decoder, decoder_layer_state)),
        "output.weight": torch.randn(tgt_vocab, D_MODEL, generator=g).double(),
        "output.bias": torch.randn(tgt_vocab, generator=g).double(),
    }


@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")
@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_encode_and_decode_are_nn_transformer_with_embeddings(norm_first):
    """Embeddings times sqrt(d_model) plus the sinusoids (paper, sections 3.4-3.5), then
    nn.Transformer (final norms in both stacks), then the output layer."""
    model = nn.Transformer(
        D_MODEL, NUM_HEADS, 2, 2, D_FF, dropout=0.0, batch_first=True, norm_first=norm_first
    )
    model = randomized(model, 80)
    p, pad = transformer_state(model, (9, 11), 81), 1
    src = torch.tensor([[4, 5, 6, 7, 1, 1], [3, 8, 2, 5, 6, 0]])
    tgt = torch.tensor([[2, 9, 10, 1, 1], [2, 4, 3, 7, 8]])

    def embed(ids, side):
        table = p[f"{side}_embedding.embedding.weight"]
        return table[ids] * math.sqrt(D_MODEL) + torch.from_numpy(
            o.sinusoidal_positions_f(ids.shape[1], D_MODEL)
        )

    future = torch.ones(5, 5, dtype=torch.bool).triu(1)
    out = model(
        embed(src, "src"),
        embed(tgt, "tgt"),
        tgt_mask=future,
        src_key_padding_mask=src == pad,
        tgt_key_padding_mask=tgt == pad,
        memory_key_padding_mask=src == pad,
    )
    expected = out @ p["output.weight"].T + p["output.bias"]
    sizes = {"norm_first": norm_first, "final": True}
    memory = o.transformer_encode_f(src, p, pad, NUM_HEADS, 2, **sizes)
    expected_memory = model.encoder(embed(src, "src"), src_key_padding_mask=src == pad)
    torch.testing.assert_close(memory, expected_memory.detach(), **CLOSE)
    logits = o.transformer_decode_f(tgt, memory, src, p, pad, NUM_HEADS, 2, **sizes)
    torch.testing.assert_close(logits, expected.detach(), **CLOSE)

    # knobs: the output's normalisation, the embeddings' scale and positions
    def decode(**k):
        return o.transformer_decode_f(tgt, memory, src, p, pad, NUM_HEADS, 2, **sizes, **k)

    torch.testing.assert_close(decode(output="log_softmax"), logits.log_softmax(-1))
    torch.testing.assert_close(decode(output="softmax_positions"), logits.softmax(1))
    # a cross mask given as a tensor is that mask (checking.mask_sources' probes)
    torch.testing.assert_close(decode(cross_mask=(src != pad)[:, None, None, :]), logits)
    everything = torch.ones(src.shape, dtype=torch.bool)[:, None, None, :]
    torch.testing.assert_close(decode(cross_mask=everything), decode(cross_mask="none"))
    torch.testing.assert_close(
        o.transformer_embed_f(src, p, "src", scale=0),
        p["src_embedding.embedding.weight"][src]
        + torch.from_numpy(o.sinusoidal_positions_f(6, D_MODEL)),
    )
    torch.testing.assert_close(
        o.transformer_embed_f(src, p, "src", positions="tgt"),
        p["src_embedding.embedding.weight"][src] * math.sqrt(D_MODEL),
    )
    torch.testing.assert_close(
        o.transformer_embed_f(tgt, p, "tgt", drop=True, emb_dropout="before"),
        torch.from_numpy(o.sinusoidal_positions_f(5, D_MODEL)).expand(2, 5, D_MODEL),
    )
    torch.testing.assert_close(
        o.transformer_embed_f(tgt, p, "tgt", drop=True),
        torch.zeros(2, 5, D_MODEL, dtype=torch.float64),
    )
    torch.testing.assert_close(
        o.transformer_encode_f(src, p, pad, NUM_HEADS, 2, **sizes, mask="none"),
        o.encoder_f(embed(src, "src"), o.sub(p, "encoder"), None, NUM_HEADS, 2, **sizes),
    )


def test_count_parameters_f_counts_what_pytorch_holds():
    """The formula against the parameters of a model made of PyTorch's modules: nn.Transformer
    (final norms in both stacks), two embedding tables and the output layer."""
    v, d, h, n, f = 37, 16, 4, 3, 24
    model = nn.Transformer(d, h, n, n, f, batch_first=True)
    counts = o.count_parameters_f(v, d, h, n, f, False, True)
    assert counts["encoder"] == sum(q.numel() for q in model.encoder.parameters())
    assert counts["decoder"] == sum(q.numel() for q in model.decoder.parameters())
    assert counts["embeddings"] == 2 * v * d and counts["output"] == v * d + v
    tied = o.count_parameters_f(v, d, h, n, f, True, False)
    assert tied["embeddings"] == v * d and tied["output"] == v  # one matrix, the output's bias
    assert tied["encoder"] == counts["encoder"] - 2 * d  # without the final norm
    for knobs in (
        {"biases": False},
        {"heads_multiply": True},
        {"one_layer": True},
        {"final": "never"},
    ):
        assert o.count_parameters_f(v, d, h, n, f, False, True, **knobs) != counts, knobs
    layer = model.encoder.layers[0]
    for omitted, tensor in (
        ("w_1.bias", layer.linear1.bias),
        ("w_2.bias", layer.linear2.bias),
        ("w_2.weight", layer.linear2.weight),
    ):
        fewer = o.count_parameters_f(v, d, h, n, f, False, True, ffn_omitted=(omitted,))
        assert fewer["encoder"] == counts["encoder"] - n * tensor.numel(), omitted
        assert fewer["decoder"] == counts["decoder"] - n * tensor.numel(), omitted


def test_greedy_decode_f_is_the_greedy_loop():
    """The argmax of the last position, fed back, finished rows padded, <bos> dropped."""

    class Toy(nn.Module):
        pad_id = 0

        def encode(self, src):
            return src.double()[..., None]

        def decode(self, tokens, memory, src):  # next token: (last + row's first src) % 5
            nxt = (tokens[:, -1:] + src[:, :1]) % 5
            return F.one_hot(nxt.expand(-1, tokens.shape[1]), 5).double()

    src = torch.tensor([[1, 2], [3, 4]])
    out = o.greedy_decode_f(Toy(), src, 6, bos_id=2, eos_id=4)
    # row 0: 2 -> 3 -> 4 (eos), then padded; row 1: 2 -> 0 -> 3 -> 1 -> 4 (eos)
    assert out.tolist() == [[3, 4, 0, 0], [0, 3, 1, 4]]
    assert o.greedy_decode_f(Toy(), src, 6, bos_id=2, eos_id=4, keep_bos=True)[:, 0].tolist() == [
        2,
        2,
    ]
    assert o.greedy_decode_f(Toy(), src, 6, bos_id=2, eos_id=4, early_stop=False).shape == (2, 6)
    assert o.greedy_decode_f(Toy(), src, 6, bos_id=2, eos_id=4, fill="eos").tolist() == [
        [3, 4, 4, 4],
        [0, 3, 1, 4],
    ]


# =============================================================================== sampling
def test_sample_probabilities_follow_temperature_top_k_and_top_p():
    """softmax(logits / T); top-k keeps the k largest logits; top-p the fewest most probable
    tokens whose probabilities reach p (the token that crosses p kept), as Holtzman et al.
    define the nucleus; top-k before top-p, renormalised after each."""
    logits = torch.tensor([0.8, 2.0, -1.1, 1.4, -0.4, 0.1, -1.7], dtype=torch.float64)
    torch.testing.assert_close(o.sample_probabilities_f(logits, 0.5), (logits / 0.5).softmax(-1))
    top3 = o.sample_probabilities_f(logits, top_k=3)
    keep = torch.tensor([1, 1, 0, 1, 0, 0, 0], dtype=torch.bool)
    torch.testing.assert_close(top3, logits.masked_fill(~keep, -math.inf).softmax(-1))
    probs = logits.softmax(-1)  # sorted: 1 (.46), 3 (.25), 0 (.14), 5 (.07), ...
    nucleus = o.sample_probabilities_f(logits, top_p=0.8)  # .46 + .25 < .8 <= .46 + .25 + .14
    assert set(torch.nonzero(nucleus).flatten().tolist()) == {0, 1, 3}
    assert probs[[1, 3]].sum() < 0.8 <= probs[[0, 1, 3]].sum()
    few = o.sample_probabilities_f(logits, top_p=0.8, top_p_rule="one_too_few")
    many = o.sample_probabilities_f(logits, top_p=0.8, top_p_rule="one_too_many")
    assert (few > 0).sum() == 2 and (many > 0).sum() == 4
    # the temperature does nothing where it divides the probabilities before renormalising
    torch.testing.assert_close(
        o.sample_probabilities_f(logits, 0.5, temperature_at="probs"), logits.softmax(-1)
    )
    torch.testing.assert_close(
        o.sample_probabilities_f(logits, 0.5, temperature_at="multiplied"),
        (logits * 0.5).softmax(-1),
    )
    tied = torch.tensor([1.0, 1.0, 0.0], dtype=torch.float64)
    assert (o.sample_probabilities_f(tied, top_k=1) > 0).sum() == 2  # ties at the k-th kept
    assert o.sample_probabilities_f(tied, top_k=1, ties="strict").isnan().all()


# ================================================================================= losses
def test_label_smoothing_f_is_pytorch_s_cross_entropy_and_its_slips():
    logits = randn(2, 5, 7, seed=90)
    labels = torch.tensor([[3, 4, 5, 1, 1], [2, 6, 1, 1, 1]])  # pad_id 1
    flat_logits, flat_labels = logits.reshape(-1, 7), labels.reshape(-1)
    losses = o.label_smoothing_f(logits, labels, 1, 0.1)

    def ce(**kwargs):
        return F.cross_entropy(flat_logits, flat_labels, **kwargs)

    torch.testing.assert_close(losses["pytorch"], ce(ignore_index=1, label_smoothing=0.1))
    torch.testing.assert_close(losses["no_smoothing"], ce(ignore_index=1))
    # the <pad> positions averaged in too (their target read as token 0)
    zeroed = flat_labels.masked_fill(flat_labels == 1, 0)
    with_pad = F.cross_entropy(flat_logits, zeroed, label_smoothing=0.1)
    torch.testing.assert_close(losses["with_pad"], with_pad)
    torch.testing.assert_close(
        losses["sum"], ce(ignore_index=1, label_smoothing=0.1, reduction="sum")
    )
    torch.testing.assert_close(losses["pad_zero"], ce(ignore_index=0, label_smoothing=0.1))


# ----------------------------------------------------- online softmax, tiled attention
@pytest.mark.parametrize("block_size", [1, 3, 7, 16])
def test_online_softmax_f_is_the_softmax_and_its_slips_are_not(block_size):
    x = randn(4, 7, seed=41) * 5.0  # (rows, n): block sizes that divide n and do not
    right = o.online_softmax_f(x, block_size)
    torch.testing.assert_close(right, torch.softmax(x, dim=-1), **CLOSE)
    if block_size >= x.shape[-1]:
        return  # one block: no rescaling happens, every knob below gives the softmax
    # (``running`` False, each block's own maximum, is exact in exact arithmetic: its slip
    # is overflow, which the lesson's check provokes with large scores)
    for knobs in ({"rescale": "none"}, {"rescale": "inverted"}, {"final_max": "last_block"}):
        wrong = o.online_softmax_f(x, block_size, **knobs)
        assert not torch.allclose(wrong, right), knobs
    # a running maximum started at 0: the softmax again unless every score is negative
    negative = -x.abs() - 1.0
    started_at_0 = o.online_softmax_f(negative, block_size, start=0.0)
    torch.testing.assert_close(started_at_0.sum(-1), torch.ones(4, dtype=torch.float64))
    assert torch.isfinite(started_at_0).all()


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("block_size", [1, 2, 5, 8])
def test_tiled_attention_f_is_scaled_dot_product_attention(causal, block_size):
    q, k, v = randn(2, 3, 5, 4, seed=42), randn(2, 3, 5, 4, seed=43), randn(2, 3, 5, 6, seed=44)
    right = o.tiled_attention_f(q, k, v, block_size, causal)
    torch.testing.assert_close(
        right, F.scaled_dot_product_attention(q, k, v, is_causal=causal), **CLOSE
    )
    if block_size == 1 or block_size >= k.shape[-2]:
        return
    # each knob is a different slip: none of them gives the right attention here
    slips = [{"rescale_sum": False}, {"rescale_output": False}, {"old_max": True}]
    if causal:
        slips += [{"local_index": True}, {"strict": True}]
    for knobs in slips:
        wrong = o.tiled_attention_f(q * 4.0, k, v, block_size, causal, **knobs)
        expected = F.scaled_dot_product_attention(q * 4.0, k, v, is_causal=causal)
        assert not torch.allclose(wrong, expected), knobs


def test_diagnose_names_the_one_match_all_matches_or_localises():
    from transformer_course.checking.localise import diagnose

    got = torch.tensor([1.0, 2.0])
    table = {"A": torch.tensor([1.0, 2.0]), "B": lambda: None, "C": torch.tensor([0.0, 2.0])}
    assert diagnose(got, table, rtol=1e-5, atol=1e-6) == "A"
    both = diagnose(got, table | {"D": lambda: got.clone()}, rtol=1e-5, atol=1e-6)
    assert "2 different mistakes" in both and "(1) A" in both and "(2) D" in both
    assert diagnose(got, {"C": table["C"]}, rtol=1e-5, atol=1e-6, localise=lambda: "L") == "L"
    assert diagnose(got, {}, rtol=1e-5, atol=1e-6) == ""
