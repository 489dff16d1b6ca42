"""Lesson 04: the checks reject classic mistakes with the intended message, accept
correct variants, and the reference agrees with independent oracles (PyTorch's
own attention, a dense float64 computation of the paper's formula)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from transformer_course.checking import CheckFailure
from transformer_course.checks.attention import check_scaled_dot_product_attention, check_softmax
from transformer_course.reference import attention as ref

NEG_INF = float("-inf")


# ================================================================== softmax: mistakes
def sm_no_max(x, axis=-1):
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def sm_global_max(x, axis=-1):
    e = np.exp(x - np.max(x))
    return e / e.sum(axis=axis, keepdims=True)


def sm_fixed_axis(x, axis=-1):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def sm_max_wrong_axis(x, axis=-1):  # max along axis, but the sum ignores it
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)


def sm_not_normalised(x, axis=-1):
    return np.exp(x - x.max(axis=axis, keepdims=True))


def sm_whole_array(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum()


def sm_no_keepdims(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis)


def sm_nan_on_all_neg_inf(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def sm_finite_fill(x, axis=-1):
    x = np.where(np.isneginf(x), -1e9, x)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def sm_upcast(x, axis=-1):
    return ref.softmax(np.asarray(x, dtype=np.float64), axis=axis)


def sm_in_place(x, axis=-1):
    x -= np.where(np.isfinite(m := x.max(axis=axis, keepdims=True)), m, 0.0)
    return ref.softmax(x, axis=axis)


def sm_torch_tensor(x, axis=-1):
    return torch.softmax(torch.from_numpy(x), dim=axis)


def sm_list(x, axis=-1):
    return ref.softmax(x, axis=axis).tolist()


SOFTMAX_MISTAKES = [
    (sm_no_max, r"overflows to inf.*Subtract the maximum of each slice"),
    (sm_global_max, r"one maximum for the whole array"),
    (sm_fixed_axis, r"normalised along axis .* instead of axis="),
    (sm_max_wrong_axis, r"normalised along axis|add up to 1"),
    (sm_not_normalised, r"without dividing by the sum"),
    (sm_whole_array, r"add up to 1 over the whole array"),
    (sm_no_keepdims, r"keepdims=True"),
    (sm_nan_on_all_neg_inf, r"every entry is -inf.*all zeros.*Yours is NaN"),
    (sm_finite_fill, r"every entry is -inf.*Yours is uniform.*-1e9"),
    (sm_upcast, r"should have dtype float32.*Keep the input's dtype"),
    (sm_in_place, r"changed its argument `x` in place"),
    (sm_torch_tensor, r"should be a ndarray.*numpy array"),
    (sm_list, r"should be a ndarray"),
]


@pytest.mark.parametrize("hidden", [False, True], ids=["visible", "hidden"])
@pytest.mark.parametrize(
    "fn, message", SOFTMAX_MISTAKES, ids=[f.__name__ for f, _ in SOFTMAX_MISTAKES]
)
def test_softmax_mistake_is_diagnosed(fn, message, hidden):
    with pytest.raises(CheckFailure, match=message):
        check_softmax(fn, hidden=hidden)


def test_softmax_stub_says_not_implemented():
    def stub(x, axis=-1):
        raise NotImplementedError()

    for hidden in (False, True):
        with pytest.raises(CheckFailure, match="not implemented yet"):
            check_softmax(stub, hidden=hidden)


# =================================================================== softmax: correct
def sm_textbook(x, axis=-1):
    m = np.max(x, axis=axis, keepdims=True)
    e = np.exp(x - np.where(np.isfinite(m), m, 0.0))
    s = e.sum(axis=axis, keepdims=True)
    return np.divide(e, s, out=np.zeros_like(e), where=s > 0)


def sm_logsumexp(x, axis=-1):
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        lse = m + np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))
    with np.errstate(invalid="ignore"):
        out = np.exp(x - lse)
    return np.nan_to_num(out, nan=0.0).astype(x.dtype)


def sm_moveaxis_loop(x, axis=-1):
    moved = np.moveaxis(x, axis, -1)
    out = np.zeros_like(moved)
    for index in np.ndindex(moved.shape[:-1]):
        row = moved[index]
        if np.isneginf(row).all():
            continue
        e = np.exp(row - row.max())
        out[index] = e / e.sum()
    return np.moveaxis(out, -1, axis)


def sm_via_torch(x, axis=-1):
    y = torch.softmax(torch.from_numpy(np.ascontiguousarray(x)), dim=axis)
    return torch.nan_to_num(y, nan=0.0).numpy()


def sm_nan_to_num(x, axis=-1):
    with np.errstate(invalid="ignore"):
        e = np.exp(x - np.max(x, axis=axis, keepdims=True))
        out = e / np.sum(e, axis=axis, keepdims=True)
    return np.nan_to_num(out, nan=0.0)


SOFTMAX_CORRECT = [sm_textbook, sm_logsumexp, sm_moveaxis_loop, sm_via_torch, sm_nan_to_num,
                   ref.softmax]  # fmt: skip


@pytest.mark.parametrize("hidden", [False, True], ids=["visible", "hidden"])
@pytest.mark.parametrize("fn", SOFTMAX_CORRECT, ids=[f.__name__ for f in SOFTMAX_CORRECT])
def test_softmax_correct_variant_passes(fn, hidden, capsys):
    check_softmax(fn, hidden=hidden)
    assert "checks passed" in capsys.readouterr().out


# ================================================================== softmax: oracles
@pytest.mark.parametrize("seed", range(5))
def test_reference_softmax_matches_torch(seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(3, 4, 5)) * 30
    for axis in range(-3, 3):
        expected = torch.softmax(torch.from_numpy(x), dim=axis).numpy()
        np.testing.assert_allclose(ref.softmax(x, axis=axis), expected, rtol=1e-12, atol=1e-15)


def test_reference_softmax_by_hand():
    # softmax([0, ln 2, ln 3]) = [1, 2, 3] / 6; -inf entries get 0; all -inf -> zeros.
    x = np.array([[0.0, math.log(2), math.log(3)], [NEG_INF, 0.0, NEG_INF], [NEG_INF] * 3])
    expected = np.array([[1 / 6, 2 / 6, 3 / 6], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
    np.testing.assert_allclose(ref.softmax(x), expected, rtol=1e-12, atol=0)
    big = np.array([1000.0, 1000.0])
    np.testing.assert_allclose(ref.softmax(big), [0.5, 0.5])
    assert ref.softmax(big.astype(np.float32)).dtype == np.float32


# ====================================================================== sdpa: helpers
def _fill_and_softmax(scores, mask, fill=NEG_INF):
    if mask is not None:
        scores = scores.masked_fill(~mask, fill)
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return weights


def _scaled(q, k, divisor):
    return q @ k.transpose(-2, -1) / divisor


# ===================================================================== sdpa: mistakes
def a_no_scaling(q, k, v, mask=None):
    w = _fill_and_softmax(_scaled(q, k, 1.0), mask)
    return w @ v, w


def a_by_d_k(q, k, v, mask=None):
    w = _fill_and_softmax(_scaled(q, k, q.shape[-1]), mask)
    return w @ v, w


def a_by_len_k(q, k, v, mask=None):
    w = _fill_and_softmax(_scaled(q, k, k.shape[-2]), mask)
    return w @ v, w


def a_by_sqrt_len_k(q, k, v, mask=None):
    w = _fill_and_softmax(_scaled(q, k, math.sqrt(k.shape[-2])), mask)
    return w @ v, w


def a_by_sqrt_d_v(q, k, v, mask=None):
    w = _fill_and_softmax(_scaled(q, k, math.sqrt(v.shape[-1])), mask)
    return w @ v, w


def a_softmax_over_queries(q, k, v, mask=None):
    scores = _scaled(q, k, math.sqrt(q.shape[-1]))
    if mask is not None:
        scores = scores.masked_fill(~mask, NEG_INF)
    w = torch.nan_to_num(torch.softmax(scores, dim=-2), nan=0.0)
    return w @ v, w


def a_mask_after_softmax_fill(q, k, v, mask=None):
    w = torch.softmax(_scaled(q, k, math.sqrt(q.shape[-1])), dim=-1)
    if mask is not None:
        w = w.masked_fill(~mask, 0.0)
    return w @ v, w


def a_mask_after_softmax_multiply(q, k, v, mask=None):
    w = torch.softmax(_scaled(q, k, math.sqrt(q.shape[-1])), dim=-1)
    if mask is not None:
        w = w * mask
    return w @ v, w


def a_mask_ignored(q, k, v, mask=None):
    w = torch.softmax(_scaled(q, k, math.sqrt(q.shape[-1])), dim=-1)
    return w @ v, w


def a_polarity_inverted(q, k, v, mask=None):
    scores = _scaled(q, k, math.sqrt(q.shape[-1]))
    if mask is not None:
        scores = scores.masked_fill(mask, NEG_INF)  # True = blocked, as in nn.MultiheadAttention
    w = torch.softmax(scores, dim=-1)
    return w @ v, w


def a_polarity_inverted_zeroed(q, k, v, mask=None):
    return ref.scaled_dot_product_attention(q, k, v, None if mask is None else ~mask)


def a_qk_swapped(q, k, v, mask=None):
    scores = _scaled(k, q, math.sqrt(q.shape[-1]))  # (..., len_k, len_q)
    if mask is not None:
        scores = scores.masked_fill(~mask.transpose(-2, -1), NEG_INF)
    w = torch.softmax(scores, dim=-1)
    return w @ v, w


def a_large_negative_fill(q, k, v, mask=None):
    scores = _scaled(q, k, math.sqrt(q.shape[-1]))
    if mask is not None:
        scores = scores.masked_fill(~mask, -1e9)
    w = torch.softmax(scores, dim=-1)
    return w @ v, w


def a_nan_on_fully_masked(q, k, v, mask=None):
    scores = _scaled(q, k, math.sqrt(q.shape[-1]))
    if mask is not None:
        scores = scores.masked_fill(~mask, NEG_INF)
    w = torch.softmax(scores, dim=-1)
    return w @ v, w


def a_output_from_nan_weights(q, k, v, mask=None):
    scores = _scaled(q, k, math.sqrt(q.shape[-1]))
    if mask is not None:
        scores = scores.masked_fill(~mask, NEG_INF)
    w = torch.softmax(scores, dim=-1)
    return w @ v, torch.nan_to_num(w, nan=0.0)


def a_weights_transposed(q, k, v, mask=None):
    out, w = ref.scaled_dot_product_attention(q, k, v, mask)
    return out, w.transpose(-2, -1)


def a_weights_flattened(q, k, v, mask=None):
    out, w = ref.scaled_dot_product_attention(q, k, v, mask)
    return out, w.reshape(-1, w.shape[-1])


def a_only_output(q, k, v, mask=None):
    return ref.scaled_dot_product_attention(q, k, v, mask)[0]


def a_swapped_order(q, k, v, mask=None):
    out, w = ref.scaled_dot_product_attention(q, k, v, mask)
    return w, out


def a_upcast(q, k, v, mask=None):
    return ref.scaled_dot_product_attention(q.double(), k.double(), v.double(), mask)


def a_scale_q_in_place(q, k, v, mask=None):
    q /= math.sqrt(q.shape[-1])
    w = _fill_and_softmax(q @ k.transpose(-2, -1), mask)
    return w @ v, w


def a_detached(q, k, v, mask=None):
    out, w = ref.scaled_dot_product_attention(q.detach(), k.detach(), v.detach(), mask)
    return out, w


def a_via_numpy(q, k, v, mask=None):
    qn, kn = q.numpy(), k.numpy()
    scores = qn @ np.swapaxes(kn, -1, -2) / math.sqrt(qn.shape[-1])
    if mask is not None:
        scores = np.where(mask.numpy(), scores, NEG_INF)
    w = torch.from_numpy(ref.softmax(scores))
    return w @ v, w


def a_boolean_indexing(q, k, v, mask=None):
    scores = _scaled(q, k, math.sqrt(q.shape[-1]))
    if mask is not None:
        scores[~mask] = NEG_INF  # fails when the mask only broadcasts to the scores
    w = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return w @ v, w


def a_wrong_output(q, k, v, mask=None):
    out, w = ref.scaled_dot_product_attention(q, k, v, mask)
    return out + 0.1 * v.mean(dim=-2, keepdim=True), w


MASK_AFTER = r"mask was applied after the softmax"
FULLY_MASKED = r"has no key it may attend to"
SDPA_MISTAKES = [
    (a_no_scaling, r"with no scaling.*√d_k"),
    (a_by_d_k, r"divided by d_k = \d+ instead of by √d_k"),
    (a_by_len_k, r"divided by len_k = \d+, the number of keys"),
    (a_by_sqrt_len_k, r"divided by √len_k"),
    (a_by_sqrt_d_v, r"divided by √d_v"),
    (a_softmax_over_queries, r"sum to 1 over the queries \(dim=-2\)"),
    (a_mask_after_softmax_fill, MASK_AFTER),
    (a_mask_after_softmax_multiply, MASK_AFTER),
    (a_mask_ignored, r"attention with no mask at all"),
    (a_polarity_inverted, r"mask with its meaning inverted.*True = may attend"),
    (a_polarity_inverted_zeroed, r"mask with its meaning inverted.*True = may attend"),
    (a_qk_swapped, r"len_q = \d+ queries and len_k = \d+ keys.*swap q and k"),
    (a_large_negative_fill, FULLY_MASKED + r".*uniform.*-1e9"),
    (a_nan_on_fully_masked, FULLY_MASKED + r".*NaN"),
    (a_output_from_nan_weights, r"your output contains NaN.*after zeroing fully masked rows"),
    (a_weights_transposed, r"the weights should have shape.*swap q and k"),
    (a_weights_flattened, r"the weights should have shape"),
    (a_only_output, r"returned a single tensor.*\(output, weights\)"),
    (a_swapped_order, r"return \(output, weights\), in that order"),
    (a_upcast, r"should have dtype torch.float32.*Keep the dtype"),
    (a_scale_q_in_place, r"changed its argument `q` in place"),
    (a_detached, r"not connected to them.*grad_fn"),
    (a_via_numpy, r"Stay in torch"),
    (a_boolean_indexing, r"masked_fill or torch.where"),
    (a_wrong_output, r"your output differs from the reference.*output = weights @ v"),
]


@pytest.mark.parametrize("hidden", [False, True], ids=["visible", "hidden"])
@pytest.mark.parametrize("fn, message", SDPA_MISTAKES, ids=[f.__name__ for f, _ in SDPA_MISTAKES])
def test_sdpa_mistake_is_diagnosed(fn, message, hidden):
    with pytest.raises(CheckFailure, match=message):
        check_scaled_dot_product_attention(fn, hidden=hidden)


def test_sdpa_stub_says_not_implemented():
    def stub(q, k, v, mask=None):
        raise NotImplementedError()

    for hidden in (False, True):
        with pytest.raises(CheckFailure, match="not implemented yet"):
            check_scaled_dot_product_attention(stub, hidden=hidden)


# ====================================================================== sdpa: correct
def c_matmul(q, k, v, mask=None):
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), NEG_INF)
    weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return torch.matmul(weights, v), weights


def c_einsum(q, k, v, mask=None):
    scores = torch.einsum("...qd,...kd->...qk", q, k) / torch.sqrt(torch.tensor(q.shape[-1]))
    if mask is not None:
        scores = torch.where(mask, scores, torch.tensor(NEG_INF, dtype=scores.dtype))
    weights = scores.softmax(dim=-1)
    if mask is not None:
        weights = torch.where(mask.any(-1, keepdim=True), weights, torch.zeros_like(weights))
    return torch.einsum("...qk,...kd->...qd", weights, v), weights


def c_scale_q_first(q, k, v, mask=None):
    q = q / math.sqrt(q.shape[-1])
    scores = q @ k.mT
    if mask is not None:
        scores = scores.masked_fill(~mask, NEG_INF)
        weights = torch.softmax(scores, dim=-1)
        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    else:
        weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights


def c_bmm_flattened(q, k, v, mask=None):
    lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2])
    if mask is not None:
        lead = torch.broadcast_shapes(lead, mask.shape[:-2])
    len_q, len_k = q.shape[-2], k.shape[-2]
    q3 = q.expand(*lead, *q.shape[-2:]).reshape(-1, len_q, q.shape[-1])
    k3 = k.expand(*lead, *k.shape[-2:]).reshape(-1, len_k, k.shape[-1])
    v3 = v.expand(*lead, *v.shape[-2:]).reshape(-1, len_k, v.shape[-1])
    scores = torch.bmm(q3, k3.transpose(1, 2)) / math.sqrt(q.shape[-1])
    if mask is not None:
        m3 = mask.expand(*lead, len_q, len_k).reshape(-1, len_q, len_k)
        scores = scores.masked_fill(~m3, NEG_INF)
    weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    out = torch.bmm(weights, v3)
    return out.reshape(*lead, len_q, -1), weights.reshape(*lead, len_q, len_k)


def c_float64_inside(q, k, v, mask=None):
    out, w = ref.scaled_dot_product_attention(q.double(), k.double(), v.double(), mask)
    return out.to(q.dtype), w.to(q.dtype)


def c_loops(q, k, v, mask=None):
    """One query row at a time, on the broadcast batch."""
    lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2])
    if mask is not None:
        lead = torch.broadcast_shapes(lead, mask.shape[:-2])
    len_q, len_k = q.shape[-2], k.shape[-2]
    full_mask = (
        torch.ones(*lead, len_q, len_k, dtype=torch.bool)
        if mask is None
        else mask.expand(*lead, len_q, len_k)
    )
    qe, ke, ve = (t.expand(*lead, *t.shape[-2:]) for t in (q, k, v))
    rows_w, rows_o = [], []
    for index in np.ndindex(*lead) if lead else [()]:
        w_rows, o_rows = [], []
        for i in range(len_q):
            allowed = full_mask[index][i]
            scores = (ke[index] @ qe[index][i]) / math.sqrt(q.shape[-1])  # (len_k,)
            w = torch.zeros_like(scores)
            if allowed.any():
                w = torch.where(allowed, torch.softmax(scores.masked_fill(~allowed, NEG_INF), 0), w)
            w_rows.append(w)
            o_rows.append(w @ ve[index])
        rows_w.append(torch.stack(w_rows))
        rows_o.append(torch.stack(o_rows))
    weights = torch.stack(rows_w).reshape(*lead, len_q, len_k)
    out = torch.stack(rows_o).reshape(*lead, len_q, v.shape[-1])
    return out, weights


def c_torch_output(q, k, v, mask=None):
    """Own weights, PyTorch's fused kernel for the output."""
    weights = ref.scaled_dot_product_attention(q, k, v, mask)[1]
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask), weights


def c_returns_list(q, k, v, mask=None):
    return list(ref.scaled_dot_product_attention(q, k, v, mask))


SDPA_CORRECT = [c_matmul, c_einsum, c_scale_q_first, c_bmm_flattened, c_float64_inside, c_loops,
                c_torch_output, c_returns_list, ref.scaled_dot_product_attention]  # fmt: skip


@pytest.mark.parametrize("hidden", [False, True], ids=["visible", "hidden"])
@pytest.mark.parametrize("fn", SDPA_CORRECT, ids=[f.__name__ for f in SDPA_CORRECT])
def test_sdpa_correct_variant_passes(fn, hidden, capsys):
    check_scaled_dot_product_attention(fn, hidden=hidden)
    assert "checks passed" in capsys.readouterr().out


# ======================================================================= sdpa: oracles
def _random_case(seed, lead, len_q, len_k, d_k, d_v, mask_shape=None, empty_rows=()):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(*lead, len_q, d_k, generator=g, dtype=torch.float64)
    k = torch.randn(*lead, len_k, d_k, generator=g, dtype=torch.float64)
    v = torch.randn(*lead, len_k, d_v, generator=g, dtype=torch.float64)
    mask = None
    if mask_shape is not None:
        mask = torch.rand(*mask_shape, generator=g) < 0.5
        mask[..., 0] = True
        for row in empty_rows:
            mask[row] = False
    return q, k, v, mask


ORACLE_CASES = [
    dict(seed=0, lead=(), len_q=3, len_k=5, d_k=4, d_v=6),
    dict(seed=1, lead=(2,), len_q=4, len_k=4, d_k=8, d_v=8, mask_shape=(4, 4)),
    dict(seed=2, lead=(2, 3), len_q=5, len_k=7, d_k=16, d_v=3, mask_shape=(2, 1, 1, 7)),
    dict(seed=3, lead=(2, 2), len_q=6, len_k=3, d_k=5, d_v=2, mask_shape=(2, 2, 6, 3),
         empty_rows=[(0, 1, 2), (1, 0, 5)]),
    dict(seed=4, lead=(3,), len_q=1, len_k=9, d_k=64, d_v=64, mask_shape=(3, 1, 9),
         empty_rows=[(2,)]),
]  # fmt: skip


@pytest.mark.parametrize("case", ORACLE_CASES, ids=lambda c: f"seed{c['seed']}")
def test_reference_output_matches_torch_sdpa(case):
    """F.scaled_dot_product_attention (bool mask, True = attend; fully masked rows -> 0)."""
    q, k, v, mask = _random_case(**case)
    out, _ = ref.scaled_dot_product_attention(q, k, v, mask)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, attn_mask=mask))


@pytest.mark.parametrize("case", ORACLE_CASES, ids=lambda c: f"seed{c['seed']}")
def test_reference_weights_match_torch_sdpa_on_identity_values(case):
    """With v = the identity matrix, PyTorch's output *is* the weight matrix."""
    q, k, _, mask = _random_case(**case)
    eye = torch.eye(k.shape[-2], dtype=torch.float64)  # (len_k, len_k)
    _, weights = ref.scaled_dot_product_attention(q, k, eye, mask)
    torch.testing.assert_close(weights, F.scaled_dot_product_attention(q, k, eye, attn_mask=mask))


@pytest.mark.parametrize("case", ORACLE_CASES, ids=lambda c: f"seed{c['seed']}")
def test_reference_weights_match_the_paper_formula_by_hand(case):
    """Dense float64 formula, entry by entry: w_ij = exp(s_ij) / sum_{allowed j'} exp(s_ij')."""
    q, k, v, mask = _random_case(**case)
    out, weights = ref.scaled_dot_product_attention(q, k, v, mask)
    lead = weights.shape[:-2]
    len_q, len_k = weights.shape[-2:]
    full = (
        torch.ones(*lead, len_q, len_k, dtype=torch.bool)
        if mask is None
        else mask.expand(*lead, len_q, len_k)
    )
    qe, ke, ve = (t.expand(*lead, *t.shape[-2:]) for t in (q, k, v))
    for index in np.ndindex(*lead) if lead else [()]:
        for i in range(len_q):
            s = [float(qe[index][i] @ ke[index][j]) / math.sqrt(q.shape[-1]) for j in range(len_k)]
            allowed = [bool(full[index][i, j]) for j in range(len_k)]
            top = max((s[j] for j in range(len_k) if allowed[j]), default=0.0)
            e = [math.exp(s[j] - top) if allowed[j] else 0.0 for j in range(len_k)]
            total = sum(e)
            expected = [x / total if total else 0.0 for x in e]
            np.testing.assert_allclose(weights[index][i].numpy(), expected, rtol=1e-12, atol=1e-15)
            row = sum(expected[j] * ve[index][j].numpy() for j in range(len_k))
            np.testing.assert_allclose(out[index][i].numpy(), row, rtol=1e-12, atol=1e-14)


def test_multihead_attention_masks_mean_the_opposite():
    """nn.MultiheadAttention with identity projections is plain attention on (x, x, x),
    but its bool attn_mask / key_padding_mask mark positions that may NOT be attended."""
    d_model, length = 4, 5
    mha = nn.MultiheadAttention(d_model, num_heads=1, bias=False, batch_first=True)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.eye(d_model).repeat(3, 1))
        mha.out_proj.weight.copy_(torch.eye(d_model))
    x = torch.randn(2, length, d_model, generator=torch.Generator().manual_seed(0))
    allowed = torch.tril(torch.ones(length, length, dtype=torch.bool))  # True = may attend
    out, weights = ref.scaled_dot_product_attention(x, x, x, allowed)
    mha_out, mha_w = mha(x, x, x, attn_mask=~allowed)  # True = blocked
    torch.testing.assert_close(mha_out, out)
    torch.testing.assert_close(mha_w, weights)
    wrong_out, _ = mha(x, x, x, attn_mask=allowed)  # our convention, read the other way
    assert not torch.allclose(wrong_out, out)
    keys_real = torch.tensor([[True] * 5, [True, True, True, False, False]])  # True = real token
    out_p, _ = ref.scaled_dot_product_attention(x, x, x, keys_real[:, None, :])
    mha_p, _ = mha(x, x, x, key_padding_mask=~keys_real)  # True = padding, to be ignored
    torch.testing.assert_close(mha_p, out_p)


def test_scaling_keeps_score_variance_at_one():
    """The paper's argument (footnote 4): q·k of unit-variance entries has variance d_k."""
    g = torch.Generator().manual_seed(0)
    for d_k in (4, 64, 512):
        q = torch.randn(20000, d_k, generator=g, dtype=torch.float64)
        k = torch.randn(20000, d_k, generator=g, dtype=torch.float64)
        dots = (q * k).sum(-1)
        assert abs(float(dots.var()) / d_k - 1) < 0.05
        assert abs(float((dots / math.sqrt(d_k)).var()) - 1) < 0.05
