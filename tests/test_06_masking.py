"""Lesson 06 (masking): classic mistakes must fail with their intended message in the
visible and the hidden check, correct variants must pass both, and the reference
masks agree with independent oracles (PyTorch's own modules and the paper's
definition of masking: attention restricted to the allowed keys)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from transformer_course.checking import CheckFailure
from transformer_course.checks.masking import (
    check_decoder_self_attention_mask,
    check_look_ahead_mask,
    check_padding_mask,
)
from transformer_course.reference import masking as ref
from transformer_course.reference.attention import scaled_dot_product_attention
from transformer_course.reference.multi_head_attention import MultiHeadAttention


def _not_implemented(*args):
    raise NotImplementedError()


def _tril(n, diagonal=0):
    return torch.tril(torch.ones(n, n, dtype=torch.bool), diagonal=diagonal)


# ------------------------------------------------------------------------- padding_mask
PADDING_MISTAKES = {
    "inverted polarity": (lambda ids, p: (ids == p)[:, None, None, :], r"polarity is inverted"),
    "(batch, len)": (lambda ids, p: ids != p, r"needs two singleton axes"),
    "(batch, 1, len, 1): query axis": (
        lambda ids, p: (ids != p)[:, None, :, None],
        r"broadcast over the keys instead of over the queries",
    ),
    "(batch, len, 1, 1)": (
        lambda ids, p: (ids != p)[:, :, None, None],
        r"in the num_heads position",
    ),
    "(batch, 1, len)": (lambda ids, p: (ids != p)[:, None, :], r"One singleton axis is missing"),
    "expanded (batch, 1, len, len)": (
        lambda ids, p: (ids != p)[:, None, None, :].expand(-1, 1, ids.shape[1], -1),
        r"expanded the mask over the query axis",
    ),
    "int dtype": (
        lambda ids, p: (ids != p).long()[:, None, None, :],
        r"dtype torch.bool.*drop any",
    ),
    "float dtype": (lambda ids, p: (ids != p).float()[:, None, None, :], r"dtype torch.bool"),
    "additive float": (
        lambda ids, p: torch.zeros(ids.shape).masked_fill(ids == p, -math.inf)[:, None, None, :],
        r"additive",
    ),
    "hard-coded pad id 0": (lambda ids, p: (ids != 0)[:, None, None, :], r"hard-coded 0"),
    "all True": (
        lambda ids, p: torch.ones(ids.shape[0], 1, 1, ids.shape[1], dtype=torch.bool),
        r"True everywhere",
    ),
    "numpy array": (lambda ids, p: (ids.numpy() != p)[:, None, None, :], r"torch.from_numpy"),
    "forgot return": (lambda ids, p: None, r"forget the `return`"),
    "in place": (
        lambda ids, p: ids.masked_fill_(ids == p, -1)[:, None, None, :] != -1,
        r"in place",
    ),
    "pads only at the end assumed (counts real tokens)": (
        lambda ids, p: (torch.arange(ids.shape[1])[None, :] < (ids != p).sum(1, keepdim=True))[
            :, None, None, :
        ],
        r"gets zero weight|pad key at position",
    ),
}


def _padding_loop(ids, pad_id):
    mask = torch.zeros(ids.shape[0], 1, 1, ids.shape[1], dtype=torch.bool)
    for b in range(ids.shape[0]):
        for j in range(ids.shape[1]):
            mask[b, 0, 0, j] = bool(ids[b, j] != pad_id)
    return mask


PADDING_CORRECT = {
    "None indexing": lambda ids, p: (ids != p)[:, None, None, :],
    "unsqueeze": lambda ids, p: (ids != p).unsqueeze(1).unsqueeze(2),
    "view": lambda ids, p: ids.ne(p).view(ids.shape[0], 1, 1, ids.shape[1]),
    "reshape of not-equal": lambda ids, p: (~(ids == p)).reshape(ids.shape[0], 1, 1, -1),
    "logical_not of eq": lambda ids, p: torch.logical_not(torch.eq(ids, p))[:, None, None],
    "numpy round trip": lambda ids, p: torch.from_numpy(ids.numpy() != p)[:, None, None, :],
    "loop": _padding_loop,
}


@pytest.mark.parametrize("hidden", [False, True], ids=["visible", "hidden"])
@pytest.mark.parametrize("name", list(PADDING_MISTAKES))
def test_padding_mask_mistakes_are_diagnosed(name, hidden):
    fn, message = PADDING_MISTAKES[name]
    with pytest.raises(CheckFailure, match=message):
        check_padding_mask(fn, hidden=hidden)


@pytest.mark.parametrize("hidden", [False, True], ids=["visible", "hidden"])
@pytest.mark.parametrize("name", list(PADDING_CORRECT))
def test_padding_mask_correct_variants_pass(name, hidden, capsys):
    check_padding_mask(PADDING_CORRECT[name], hidden=hidden)
    assert "checks passed" in capsys.readouterr().out


# ---------------------------------------------------------------------- look_ahead_mask
LOOK_AHEAD_MISTAKES = {
    "triu": (
        lambda n: torch.triu(torch.ones(n, n, dtype=torch.bool)),
        r"torch.triu instead of torch.tril",
    ),
    "inverted (triu diagonal=1)": (
        lambda n: torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1),
        r"True marks the blocked",
    ),
    "no diagonal (tril -1)": (lambda n: _tril(n, -1), r"leaves out the diagonal"),
    "all True": (lambda n: torch.ones(n, n, dtype=torch.bool), r"True everywhere"),
    "float tril": (lambda n: torch.tril(torch.ones(n, n)), r"dtype torch.bool"),
    "int tril": (lambda n: torch.tril(torch.ones(n, n, dtype=torch.int64)), r"bitwise NOT"),
    "additive (generate_square_subsequent_mask)": (
        lambda n: nn.Transformer.generate_square_subsequent_mask(n),
        r"additive",
    ),
    "(1, 1, size, size)": (lambda n: _tril(n)[None, None], r"Return exactly \(size, size\)"),
    "numpy": (lambda n: np.tril(np.ones((n, n), dtype=bool)), r"torch.from_numpy"),
    "tril with diagonal=1 (sees one step ahead)": (lambda n: _tril(n, 1), r"can see the future"),
    "band of width 2 (forgets the distant past)": (
        lambda n: _tril(n) & ~_tril(n, -3),
        r"Query i may attend to keys 0..i",
    ),
}


def _look_ahead_loop(size):
    mask = torch.zeros(size, size, dtype=torch.bool)
    for i in range(size):
        for j in range(i + 1):
            mask[i, j] = True
    return mask


LOOK_AHEAD_CORRECT = {
    "tril bool": lambda n: _tril(n),
    "tril float then bool": lambda n: torch.tril(torch.ones(n, n)).bool(),
    "triu(1) == 0": lambda n: torch.triu(torch.ones(n, n), diagonal=1) == 0,
    "~triu(ones, 1)": lambda n: ~torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1),
    "arange comparison": lambda n: torch.arange(n)[:, None] >= torch.arange(n)[None, :],
    "numpy round trip": lambda n: torch.from_numpy(np.tril(np.ones((n, n), dtype=bool))),
    "from generate_square_subsequent_mask": lambda n: (
        nn.Transformer.generate_square_subsequent_mask(n) == 0
    ),
    "loop": _look_ahead_loop,
}


@pytest.mark.parametrize("hidden", [False, True], ids=["visible", "hidden"])
@pytest.mark.parametrize("name", list(LOOK_AHEAD_MISTAKES))
def test_look_ahead_mask_mistakes_are_diagnosed(name, hidden):
    fn, message = LOOK_AHEAD_MISTAKES[name]
    with pytest.raises(CheckFailure, match=message):
        check_look_ahead_mask(fn, hidden=hidden)


@pytest.mark.parametrize("hidden", [False, True], ids=["visible", "hidden"])
@pytest.mark.parametrize("name", list(LOOK_AHEAD_CORRECT))
def test_look_ahead_mask_correct_variants_pass(name, hidden, capsys):
    check_look_ahead_mask(LOOK_AHEAD_CORRECT[name], hidden=hidden)
    assert "checks passed" in capsys.readouterr().out


# ---------------------------------------------------------- decoder_self_attention_mask
def _pad(ids, p):
    return (ids != p)[:, None, None, :]  # (batch, 1, 1, len)


DECODER_MISTAKES = {
    "OR instead of AND": (lambda ids, p: _pad(ids, p) | _tril(ids.shape[1]), r"OR \(\|\)"),
    "only causal (expanded)": (
        lambda ids, p: _tril(ids.shape[1]).expand(ids.shape[0], 1, -1, -1),
        r"look-ahead mask alone \(broadcast",
    ),
    "only causal (len, len)": (
        lambda ids, p: _tril(ids.shape[1]),
        r"look-ahead mask alone: the padding",
    ),
    "only padding (expanded)": (
        lambda ids, p: _pad(ids, p).expand(-1, 1, ids.shape[1], -1),
        r"padding mask alone \(broadcast",
    ),
    "only padding (batch, 1, 1, len)": (
        lambda ids, p: _pad(ids, p),
        r"padding mask alone: combine",
    ),
    "no head axis (batch, len, len)": (
        lambda ids, p: (ids != p)[:, None, :] & _tril(ids.shape[1]),
        r"head axis is missing",
    ),
    "padding on the query axis": (
        lambda ids, p: (ids != p)[:, None, :, None] & _tril(ids.shape[1]),
        r"rows of pad \*queries\*",
    ),
    "padding on both axes": (
        lambda ids, p: (ids != p)[:, None, :, None] & _pad(ids, p) & _tril(ids.shape[1]),
        r"rows of pad \*queries\*",
    ),
    "inverted": (lambda ids, p: ~(_pad(ids, p) & _tril(ids.shape[1])), r"mask is inverted"),
    "triu": (
        lambda ids, p: (
            _pad(ids, p) & torch.triu(torch.ones(ids.shape[1], ids.shape[1], dtype=torch.bool))
        ),
        r"upper triangle",
    ),
    "causal part inverted": (
        lambda ids, p: _pad(ids, p) & ~_tril(ids.shape[1]),
        r"look-ahead part is inverted",
    ),
    "no diagonal": (
        lambda ids, p: _pad(ids, p) & _tril(ids.shape[1], -1),
        r"leaves out the diagonal",
    ),
    "multiplied (float)": (
        lambda ids, p: _pad(ids, p).float() * _tril(ids.shape[1]).float(),
        r"use & \(logical AND\)",
    ),
    "multiplied (int)": (
        lambda ids, p: _pad(ids, p).long() * _tril(ids.shape[1]).long(),
        r"dtype torch.bool",
    ),
    "hard-coded pad id 0": (lambda ids, p: _pad(ids, 0) & _tril(ids.shape[1]), r"hard-coded 0"),
    "sees one step ahead": (
        lambda ids, p: _pad(ids, p) & _tril(ids.shape[1], 1),
        r"can see the future",
    ),
}


def _decoder_loop(ids, pad_id):
    batch, length = ids.shape
    mask = torch.zeros(batch, 1, length, length, dtype=torch.bool)
    for b in range(batch):
        for i in range(length):
            for j in range(i + 1):
                mask[b, 0, i, j] = bool(ids[b, j] != pad_id)
    return mask


DECODER_CORRECT = {
    "reference pieces with &": lambda ids, p: (
        ref.padding_mask(ids, p) & ref.look_ahead_mask(ids.shape[1])
    ),
    "logical_and": lambda ids, p: torch.logical_and(_pad(ids, p), _tril(ids.shape[1])),
    "expand then &": lambda ids, p: (
        _pad(ids, p).expand(-1, -1, ids.shape[1], -1) & _tril(ids.shape[1])[None, None]
    ),
    "multiply then bool": lambda ids, p: (_pad(ids, p).int() * _tril(ids.shape[1]).int()).bool(),
    "where": lambda ids, p: torch.where(_tril(ids.shape[1]), _pad(ids, p), False),
    "arange comparison + unsqueeze": lambda ids, p: (
        (ids != p).unsqueeze(1).unsqueeze(2)
        & (torch.arange(ids.shape[1])[:, None] >= torch.arange(ids.shape[1])[None, :])
    ),
    "loop": _decoder_loop,
}


@pytest.mark.parametrize("hidden", [False, True], ids=["visible", "hidden"])
@pytest.mark.parametrize("name", list(DECODER_MISTAKES))
def test_decoder_mask_mistakes_are_diagnosed(name, hidden):
    fn, message = DECODER_MISTAKES[name]
    with pytest.raises(CheckFailure, match=message):
        check_decoder_self_attention_mask(fn, hidden=hidden)


@pytest.mark.parametrize("hidden", [False, True], ids=["visible", "hidden"])
@pytest.mark.parametrize("name", list(DECODER_CORRECT))
def test_decoder_mask_correct_variants_pass(name, hidden, capsys):
    check_decoder_self_attention_mask(DECODER_CORRECT[name], hidden=hidden)
    assert "checks passed" in capsys.readouterr().out


# ------------------------------------------------------------------ generic behaviour
CHECKS = [check_padding_mask, check_look_ahead_mask, check_decoder_self_attention_mask]


@pytest.mark.parametrize("hidden", [False, True], ids=["visible", "hidden"])
@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_stub_says_not_implemented(check, hidden):
    with pytest.raises(CheckFailure, match="not implemented yet"):
        check(_not_implemented, hidden=hidden)


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_checks_leave_the_global_random_stream_alone(check, capsys):
    torch.manual_seed(123)
    before = torch.get_rng_state()
    fn = {
        check_padding_mask: ref.padding_mask,
        check_look_ahead_mask: ref.look_ahead_mask,
        check_decoder_self_attention_mask: ref.decoder_self_attention_mask,
    }[check]
    check(fn)
    check(fn, hidden=True)
    assert torch.equal(torch.get_rng_state(), before)


def test_checks_are_deterministic(capsys):
    """The hidden inputs come from fixed seeds: two runs see the same tensors."""
    from transformer_course.checks import masking as checks

    first = [ids.clone() for ids, _ in checks._hidden_decoder_cases()]
    second = [ids for ids, _ in checks._hidden_decoder_cases()]
    assert all(torch.equal(a, b) for a, b in zip(first, second, strict=True))
    visible = [ids for ids, _ in checks._visible_padding_cases()]
    hidden = [ids for ids, _ in checks._hidden_padding_cases()]
    assert all(a.shape != b.shape or not torch.equal(a, b) for a in visible for b in hidden)


def test_hidden_inputs_cover_the_hard_cases():
    from transformer_course.checks import masking as checks

    cases = checks._hidden_padding_cases() + checks._hidden_decoder_cases()
    assert any(bool((ids == p).all(dim=1).any()) for ids, p in cases), "a fully padded sequence"
    assert any(p != 0 for _, p in cases), "a pad id other than 0"
    assert any(bool((ids[:, 0] == p).any()) and not bool((ids == p).all()) for ids, p in cases), (
        "left padding"
    )
    assert any(ids.shape == (1, 1) for ids, _ in cases), "a single token"
    assert 1 in checks.HIDDEN_SIZES and max(checks.HIDDEN_SIZES) >= 16


# ----------------------------------------------------------------------------- oracles
@pytest.mark.parametrize("size", [1, 2, 5, 13])
def test_look_ahead_mask_matches_generate_square_subsequent_mask(size):
    """nn.Transformer's causal mask is float: 0 where allowed, -inf above the diagonal
    (True = blocked in bool form); ours is its opposite-polarity bool."""
    torch_mask = nn.Transformer.generate_square_subsequent_mask(size)
    assert torch.equal(ref.look_ahead_mask(size), ~torch.isinf(torch_mask))
    assert torch.equal(ref.to_additive(ref.look_ahead_mask(size)), torch_mask)
    assert ref.look_ahead_mask(size).dtype == torch.bool


def _batch(seed, lengths, length, pad_id=0):
    gen = torch.Generator().manual_seed(seed)
    ids = torch.randint(1, 30, (len(lengths), length), generator=gen)
    for row, n in enumerate(lengths):
        ids[row, n:] = pad_id
    return ids


def _copy_into_torch(ours: MultiHeadAttention) -> nn.MultiheadAttention:
    theirs = nn.MultiheadAttention(ours.d_model, ours.num_heads, batch_first=True)
    with torch.no_grad():
        theirs.in_proj_weight.copy_(torch.cat([ours.w_q.weight, ours.w_k.weight, ours.w_v.weight]))
        theirs.in_proj_bias.copy_(torch.cat([ours.w_q.bias, ours.w_k.bias, ours.w_v.bias]))
        theirs.out_proj.weight.copy_(ours.w_o.weight)
        theirs.out_proj.bias.copy_(ours.w_o.bias)
    return theirs.eval()


def test_padding_mask_agrees_with_nn_multihead_attention_key_padding_mask():
    torch.manual_seed(0)
    ours = MultiHeadAttention(16, 4).eval()
    theirs = _copy_into_torch(ours)
    ids = _batch(1, [6, 3, 5], 6)  # no fully padded row: nn.MultiheadAttention gives NaN there
    x = torch.randn(3, 6, 16)
    with torch.no_grad():
        out, weights = ours(x, x, x, ref.padding_mask(ids, 0))
        expected, expected_weights = theirs(
            x, x, x, key_padding_mask=~(ids != 0), average_attn_weights=False
        )
    torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(weights, expected_weights, rtol=1e-5, atol=1e-6)
    assert bool((weights[..., ids[0] == 0] == 0).all())


def test_decoder_mask_agrees_with_nn_multihead_attention():
    """attn_mask (float, -inf = blocked) plus key_padding_mask (True = pad) in PyTorch
    equals our single combined bool mask."""
    torch.manual_seed(1)
    ours = MultiHeadAttention(16, 2).eval()
    theirs = _copy_into_torch(ours)
    ids = _batch(2, [7, 4, 1], 7)
    x = torch.randn(3, 7, 16)
    pads = ids == 0  # (batch, len), True = ignore this key
    with torch.no_grad():
        out, _ = ours(x, x, x, ref.decoder_self_attention_mask(ids, 0))
        as_bool, _ = theirs(x, x, x, attn_mask=~ref.look_ahead_mask(7), key_padding_mask=pads)
        as_float, _ = theirs(
            x, x, x,
            attn_mask=nn.Transformer.generate_square_subsequent_mask(7),
            key_padding_mask=torch.zeros(pads.shape).masked_fill(pads, -math.inf),
        )  # fmt: skip
    torch.testing.assert_close(out, as_bool, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(out, as_float, rtol=1e-5, atol=1e-6)


def test_masks_agree_with_f_scaled_dot_product_attention():
    """F.scaled_dot_product_attention takes bool masks with our polarity (True = attend)."""
    gen = torch.Generator().manual_seed(3)
    ids = _batch(3, [5, 2, 0], 5)
    q, k, v = (torch.randn(3, 2, 5, 4, generator=gen) for _ in range(3))
    for mask in (ref.padding_mask(ids, 0), ref.decoder_self_attention_mask(ids, 0)):
        out, _ = scaled_dot_product_attention(q, k, v, mask)
        expected = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-6)
        additive = F.scaled_dot_product_attention(
            q[:2], k[:2], v[:2], attn_mask=ref.to_additive(mask[:2])
        )
        torch.testing.assert_close(out[:2], additive, rtol=1e-5, atol=1e-6)


def test_decoder_mask_means_attending_only_to_allowed_keys():
    """The paper's meaning of masking, computed without any mask: for each query, a
    plain softmax over only the keys that are real and not in the future."""
    gen = torch.Generator().manual_seed(4)
    ids = _batch(4, [6, 3], 6)
    d_k = 8
    q, k, v = (torch.randn(2, 6, d_k, generator=gen, dtype=torch.float64) for _ in range(3))
    out, _ = scaled_dot_product_attention(q, k, v, ref.decoder_self_attention_mask(ids, 0)[:, 0])
    for b in range(2):
        for i in range(6):
            allowed = [j for j in range(i + 1) if ids[b, j] != 0]
            scores = torch.stack([q[b, i] @ k[b, j] for j in allowed]) / math.sqrt(d_k)
            weights = torch.softmax(scores, dim=0)
            expected = sum(w * v[b, j] for w, j in zip(weights, allowed, strict=True))
            torch.testing.assert_close(out[b, i], expected)


def test_future_tokens_do_not_change_earlier_outputs_in_torch_decoder_layer():
    """nn.TransformerDecoderLayer with our mask (converted) is causal: the property the
    checks test with the reference attention, confirmed on PyTorch's own layer."""
    torch.manual_seed(5)
    layer = nn.TransformerDecoderLayer(16, 2, 32, dropout=0.0, batch_first=True).eval()
    memory = torch.randn(1, 4, 16)
    x = torch.randn(1, 6, 16)
    blocked = ref.to_blocked(ref.look_ahead_mask(6))  # True = not allowed
    with torch.no_grad():
        base = layer(x, memory, tgt_mask=blocked)
        x2 = x.clone()
        x2[:, 3:] = torch.randn(1, 3, 16)
        changed = layer(x2, memory, tgt_mask=blocked)
    torch.testing.assert_close(changed[:, :3], base[:, :3])
    assert not torch.allclose(changed[:, 3:], base[:, 3:])


def test_cross_attention_mask_handles_len_q_different_from_len_k():
    torch.manual_seed(6)
    ours = MultiHeadAttention(16, 2).eval()
    theirs = _copy_into_torch(ours)
    src = _batch(6, [4, 2], 4)  # (batch, len_src)
    tgt = torch.randn(2, 7, 16)  # (batch, len_tgt, d_model): len_q = 7 != len_k = 4
    memory = torch.randn(2, 4, 16)
    mask = ref.cross_attention_mask(src, 0)
    assert mask.shape == (2, 1, 1, 4)
    with torch.no_grad():
        out, weights = ours(tgt, memory, memory, mask)
        expected, _ = theirs(tgt, memory, memory, key_padding_mask=src == 0)
    assert weights.shape == (2, 2, 7, 4)
    torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-6)
