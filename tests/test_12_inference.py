"""Lesson 12 (inference and memory): classic mistakes fail with their intended message in
the visible and the hidden check, correct variants (the forms of gpt-fast, Llama's
repeat_kv, HF's growing cache, einsum) pass both, and the references agree with
independent oracles: PyTorch's F.scaled_dot_product_attention (enable_gqa, is_causal),
torch.softmax, and generation without a cache."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from common import Correct, Mistake, lesson_tests
from torch import nn

from transformer_course.checks.inference import (
    check_generate,
    check_grouped_query_attention,
    check_KVCache,
    check_online_softmax,
    check_sliding_window_mask,
    check_tiled_attention,
)
from transformer_course.reference import inference as ref
from transformer_course.reference.masking import look_ahead_mask


def _named(name, fn):
    fn.__name__ = fn.__qualname__ = name
    return fn


# ------------------------------------------------------------------------------ KVCache
class OnlyNew(ref.KVCache):
    def forward(self, k_new, v_new):
        super().forward(k_new, v_new)
        return k_new.clone(), v_new.clone()


class OffByOne(ref.KVCache):
    """Writes each chunk one position too far (and returns one position more)."""

    def forward(self, k_new, v_new):
        start = self.length + 1
        stop = start + k_new.shape[-2]
        if stop > self.keys.shape[-2]:
            raise ValueError("full")
        self.keys[:, :, start:stop] = k_new
        self.values[:, :, start:stop] = v_new
        self.length = stop - 1
        return self.keys[:, :, : self.length], self.values[:, :, : self.length]


class SharedAcrossBatch(ref.KVCache):
    def forward(self, k_new, v_new):
        return super().forward(k_new[:1].expand_as(k_new), v_new[:1].expand_as(v_new))


class Swapped(ref.KVCache):
    def forward(self, k_new, v_new):
        keys, values = super().forward(k_new, v_new)
        return values, keys


class NeverFull(nn.Module):
    """A growing cache with no limit (HF's DynamicCache style) and no error when full."""

    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
        super().__init__()
        self.keys = self.values = None

    def forward(self, k_new, v_new):
        if self.keys is None:
            self.keys, self.values = k_new.clone(), v_new.clone()
        else:
            self.keys = torch.cat([self.keys, k_new], dim=-2)
            self.values = torch.cat([self.values, v_new], dim=-2)
        return self.keys, self.values


_SHARED_STORE: list = []


class ClassLevelStore(nn.Module):
    """Keeps its positions in a module-level list: every instance shares them."""

    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
        super().__init__()
        self.max_len = max_len
        _SHARED_STORE.clear()

    def forward(self, k_new, v_new):
        _SHARED_STORE.append((k_new.clone(), v_new.clone()))
        keys = torch.cat([k for k, _ in _SHARED_STORE], dim=-2)
        if keys.shape[-2] > self.max_len:
            raise ValueError("full")
        return keys, torch.cat([v for _, v in _SHARED_STORE], dim=-2)


class GrowingCache(nn.Module):
    """A correct growing cache with torch.cat (Hugging Face's DynamicCache style)."""

    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
        super().__init__()
        self.max_len = max_len
        self.register_buffer("keys", torch.zeros(batch, num_heads, 0, d_head, dtype=dtype))
        self.register_buffer("values", torch.zeros(batch, num_heads, 0, d_head, dtype=dtype))

    def forward(self, k_new, v_new):
        if self.keys.shape[-2] + k_new.shape[-2] > self.max_len:
            raise IndexError("the cache is full")
        self.keys = torch.cat([self.keys, k_new], dim=-2)
        self.values = torch.cat([self.values, v_new], dim=-2)
        return self.keys, self.values


class GptFastCache(nn.Module):
    """gpt-fast's KVCache, written again: index_copy_ at explicit positions."""

    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
        super().__init__()
        shape = (batch, num_heads, max_len, d_head)
        self.register_buffer("k_cache", torch.zeros(shape, dtype=dtype), persistent=False)
        self.register_buffer("v_cache", torch.zeros(shape, dtype=dtype), persistent=False)
        self.length = 0

    def forward(self, k_new, v_new):
        positions = torch.arange(self.length, self.length + k_new.shape[-2])
        self.k_cache.index_copy_(2, positions, k_new)  # raises when out of range
        self.v_cache.index_copy_(2, positions, v_new)
        self.length += k_new.shape[-2]
        return self.k_cache[:, :, : self.length], self.v_cache[:, :, : self.length]


class ReturnsBeforeAppending(ref.KVCache):
    def forward(self, k_new, v_new):
        old = self.keys[:, :, : self.length].clone(), self.values[:, :, : self.length].clone()
        super().forward(k_new, v_new)
        if old[0].shape[-2] == 0:  # the first call: return the new positions
            return self.keys[:, :, : self.length], self.values[:, :, : self.length]
        return old


# ----------------------------------------------------------------------------- generate
def _generate(
    model,
    prompt,
    new,
    *,
    offset=0,
    fixed_start=None,
    uncached=False,
    feed_last=False,
    token_by_token=False,
    shared=False,
    first_row=False,
):
    with torch.no_grad():
        if uncached:
            return ref.generate_without_cache(model, prompt, new)
        batch, length = prompt.shape
        if shared:
            caches = model.new_caches(1, batch * (length + new))
            out = [_one(model, row[None], new, caches) for row in prompt]
            return torch.cat([o[0] for o in out]), torch.cat([o[1] for o in out])
        caches = model.new_caches(batch, length + new + 1)
        if token_by_token:
            for position in range(length):
                logits = model(prompt[:, position : position + 1], caches=caches, start=position)
            logits = logits[:, -1]
        else:
            logits = model(prompt, caches=caches, start=0)[:, 0 if first_row else -1]
        ids, steps = prompt, []
        for step in range(new):
            steps.append(logits)
            next_id = logits.argmax(-1, keepdim=True)
            ids = torch.cat([ids, next_id], 1)
            if step + 1 < new or feed_last:
                start = length + step + offset if fixed_start is None else fixed_start
                logits = model(next_id, caches=caches, start=start)[:, -1]
        return ids, torch.stack(steps, 1)


def _one(model, prompt, new, caches):
    length = prompt.shape[1]
    logits = model(prompt, caches=caches, start=0)[:, -1]
    ids, steps = prompt, []
    for step in range(new):
        steps.append(logits)
        next_id = logits.argmax(-1, keepdim=True)
        ids = torch.cat([ids, next_id], 1)
        if step + 1 < new:
            logits = model(next_id, caches=caches, start=length + step)[:, -1]
    return ids, torch.stack(steps, 1)


def _gen(name, **knobs):
    return _named("generate", lambda model, prompt, new: _generate(model, prompt, new, **knobs))


# ------------------------------------------------------------- grouped_query_attention
def _gqa_tiled(q, k, v, mask=None):
    group = q.shape[1] // k.shape[1]
    output, _ = ref.scaled_dot_product_attention(
        q, k.repeat(1, group, 1, 1), v.repeat(1, group, 1, 1), mask
    )
    return output


def _gqa_unscaled(q, k, v, mask=None):
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, 1), v.repeat_interleave(group, 1)
    scores = q @ k.transpose(-2, -1)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores, -1) @ v


def _gqa_no_mask(q, k, v, mask=None):
    return ref.grouped_query_attention(q, k, v)


def _gqa_repeat_kv(q, k, v, mask=None):
    """Llama's repeat_kv: expand a new group axis, then fold it into the heads."""
    batch, kv, length, d = k.shape
    group = q.shape[1] // kv
    k = k[:, :, None].expand(batch, kv, group, length, d).reshape(batch, kv * group, length, d)
    v = (
        v[:, :, None]
        .expand(batch, kv, group, length, v.shape[-1])
        .reshape(batch, kv * group, length, v.shape[-1])
    )
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores, -1) @ v


def _gqa_grouped_einsum(q, k, v, mask=None):
    """No copies: queries regrouped as (batch, kv, group, len_q, d), keys broadcast."""
    batch, heads, len_q, d = q.shape
    kv = k.shape[1]
    qg = q.reshape(batch, kv, heads // kv, len_q, d)
    scores = torch.einsum("bkgqd,bksd->bkgqs", qg, k) / math.sqrt(d)
    scores = scores.reshape(batch, heads, len_q, -1)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, -1).reshape(batch, kv, heads // kv, len_q, -1)
    return torch.einsum("bkgqs,bksd->bkgqd", weights, v).reshape(batch, heads, len_q, -1)


# --------------------------------------------------------------------- online_softmax
def _softmax_no_rescale(x, block_size):
    m = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    for start in range(0, x.shape[-1], block_size):
        block = x[..., start : start + block_size]
        m = torch.maximum(m, block.amax(-1))
        total = total + torch.exp(block - m[..., None]).sum(-1)
    return torch.exp(x - m[..., None]) / total[..., None]


def _softmax_no_max(x, block_size):
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    for start in range(0, x.shape[-1], block_size):
        total = total + torch.exp(x[..., start : start + block_size]).sum(-1)
    return torch.exp(x) / total[..., None]


def _softmax_two_pass(x, block_size):
    """A blocked two-pass softmax: the maximum first, then the sum (also correct)."""
    m = torch.stack(
        [x[..., s : s + block_size].amax(-1) for s in range(0, x.shape[-1], block_size)], -1
    ).amax(-1)
    total = sum(
        torch.exp(x[..., s : s + block_size] - m[..., None]).sum(-1)
        for s in range(0, x.shape[-1], block_size)
    )
    return torch.exp(x - m[..., None]) / total[..., None]


def _softmax_logsumexp_online(x, block_size):
    """The running log-sum-exp form: lse' = logaddexp(lse, logsumexp(block))."""
    lse = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
    for start in range(0, x.shape[-1], block_size):
        lse = torch.logaddexp(lse, torch.logsumexp(x[..., start : start + block_size], -1))
    return torch.exp(x - lse[..., None])


# ---------------------------------------------------------------------- tiled_attention
def _tiled(
    q,
    k,
    v,
    block_size,
    causal=False,
    *,
    rescale_acc=True,
    scale=True,
    diagonal=0,
    normalise_each_block=False,
):
    len_q, len_k = q.shape[-2], k.shape[-2]
    m = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
    total = torch.zeros(q.shape[:-1], dtype=q.dtype)
    acc = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)
    rows = torch.arange(len_q)[:, None]
    for start in range(0, len_k, block_size):
        stop = min(start + block_size, len_k)
        s = q @ k[..., start:stop, :].transpose(-2, -1)
        if scale:
            s = s / math.sqrt(q.shape[-1])
        if causal:
            s = s.masked_fill(torch.arange(start, stop)[None] > rows + diagonal, float("-inf"))
        new = torch.maximum(m, s.amax(-1))
        factor = torch.exp(m - new)
        p = torch.exp(s - new[..., None])
        total = total * factor + p.sum(-1)
        acc = acc * (factor[..., None] if rescale_acc else 1.0) + p @ v[..., start:stop, :]
        m = new
    return acc / total[..., None]


def _tiled_causal_local_index(q, k, v, block_size, causal=False):
    """Masks with the key's index inside the block instead of its position."""
    len_q, len_k = q.shape[-2], k.shape[-2]
    m = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
    total = torch.zeros(q.shape[:-1], dtype=q.dtype)
    acc = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)
    rows = torch.arange(len_q)[:, None]
    for start in range(0, len_k, block_size):
        stop = min(start + block_size, len_k)
        s = q @ k[..., start:stop, :].transpose(-2, -1) / math.sqrt(q.shape[-1])
        if causal:
            s = s.masked_fill(torch.arange(stop - start)[None] > rows, float("-inf"))
        new = torch.maximum(m, s.amax(-1))
        factor = torch.exp(m - new)
        p = torch.exp(s - new[..., None])
        total = total * factor + p.sum(-1)
        acc = acc * factor[..., None] + p @ v[..., start:stop, :]
        m = new
    return acc / total[..., None]


def _tiled_normalised_running(q, k, v, block_size, causal=False):
    """Keeps the output normalised after every block (FlashAttention-1's form)."""
    len_q, len_k = q.shape[-2], k.shape[-2]
    m = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
    total = torch.zeros(q.shape[:-1], dtype=q.dtype)
    out = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)
    rows = torch.arange(len_q)[:, None]
    for start in range(0, len_k, block_size):
        stop = min(start + block_size, len_k)
        s = q @ k[..., start:stop, :].transpose(-2, -1) / math.sqrt(q.shape[-1])
        if causal:
            s = s.masked_fill(torch.arange(start, stop)[None] > rows, float("-inf"))
        new = torch.maximum(m, s.amax(-1))
        p = torch.exp(s - new[..., None])
        new_total = total * torch.exp(m - new) + p.sum(-1)
        out = (out * (total * torch.exp(m - new))[..., None] + p @ v[..., start:stop, :]) / (
            new_total[..., None]
        )
        m, total = new, new_total
    return out


# ------------------------------------------------------------------ sliding_window_mask
def _offsets(size):
    return torch.arange(size)[:, None] - torch.arange(size)[None, :]


MISTAKES = [
    Mistake(check_KVCache, ReturnsBeforeAppending, r"\*before\* this call"),
    Mistake(check_KVCache, OnlyNew, r"only the new positions"),
    Mistake(check_KVCache, OffByOne, r"holds zeros.*off by one"),
    Mistake(check_KVCache, SharedAcrossBatch, r"shared across the batch"),
    Mistake(check_KVCache, Swapped, r"Keys and values are swapped"),
    Mistake(check_KVCache, NeverFull, r"did not raise an error"),
    Mistake(check_KVCache, ClassLevelStore, r"(?s)second KVCache.*own buffers"),
    Mistake(check_generate, _gen("off+1", offset=1), r"one position too far"),
    Mistake(check_generate, _gen("off-1", offset=-1), r"one position too early"),
    Mistake(check_generate, _gen("start0", fixed_start=0), r"start=0"),
    Mistake(check_generate, _gen("shared", shared=True), r"shared set of caches"),
    Mistake(check_generate, _gen("uncached", uncached=True), r"without a cache"),
    Mistake(check_grouped_query_attention, _named("gqa", _gqa_tiled), r"paired wrongly"),
    Mistake(check_grouped_query_attention, _named("gqa", _gqa_unscaled), r"sqrt\(d_head\)"),
    Mistake(check_grouped_query_attention, _named("gqa", _gqa_no_mask), r"mask was ignored"),
    Mistake(check_online_softmax, _named("s", _softmax_no_rescale), r"not rescaled"),
    Mistake(check_online_softmax, _named("s", _softmax_no_max), r"NaN or inf.*running maximum"),
    Mistake(
        check_tiled_attention,
        _named("t", lambda q, k, v, b, causal=False: _tiled(q, k, v, b, causal, rescale_acc=False)),
        r"accumulated over earlier blocks is not rescaled",
    ),
    Mistake(
        check_tiled_attention,
        _named("t", lambda q, k, v, b, causal=False: _tiled(q, k, v, b, causal, scale=False)),
        r"not divided by sqrt\(d_k\)",
    ),
    Mistake(
        check_tiled_attention, _named("t", _tiled_causal_local_index), r"index \*inside the block\*"
    ),
    Mistake(
        check_sliding_window_mask,
        _named("w", lambda n, w: (_offsets(n) >= 0) & (_offsets(n) <= w)),
        r"window \+ 1 keys",
    ),
    Mistake(
        check_sliding_window_mask,
        _named("w", lambda n, w: _offsets(n).abs() < w),
        r"not causal",
    ),
    Mistake(
        check_sliding_window_mask,
        _named("w", lambda n, w: ~((_offsets(n) >= 0) & (_offsets(n) < w))),
        r"inverted",
    ),
]

CORRECT = [
    Correct(check_KVCache, GrowingCache),
    Correct(check_KVCache, GptFastCache),
    Correct(check_generate, _gen("token_by_token", token_by_token=True)),
    Correct(check_generate, _gen("feed_last", feed_last=True)),
    Correct(check_grouped_query_attention, _named("gqa", _gqa_repeat_kv)),
    Correct(check_grouped_query_attention, _named("gqa", _gqa_grouped_einsum)),
    Correct(check_online_softmax, _named("s", _softmax_two_pass)),
    Correct(check_online_softmax, _named("s", _softmax_logsumexp_online)),
    Correct(check_tiled_attention, _named("t", _tiled)),
    Correct(check_tiled_attention, _named("t", _tiled_normalised_running)),
    Correct(
        check_sliding_window_mask,
        _named("w", lambda n, w: torch.tril(torch.ones(n, n, dtype=torch.bool)).triu(1 - w)),
    ),
    Correct(
        check_sliding_window_mask,
        _named("w", lambda n, w: look_ahead_mask(n) & (_offsets(n) < w)),
    ),
]

test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


# --------------------------------------------------------------------------- oracles
def test_grouped_query_attention_equals_pytorch_gqa_and_multi_query():
    generator = torch.Generator().manual_seed(0)
    q = torch.randn(2, 8, 5, 16, generator=generator)
    mask = look_ahead_mask(5)
    for kv in (8, 4, 2, 1):
        k = torch.randn(2, kv, 5, 16, generator=generator)
        v = torch.randn(2, kv, 5, 12, generator=generator)
        ours = ref.grouped_query_attention(q, k, v, mask)
        theirs = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)
        torch.testing.assert_close(ours, theirs, rtol=1e-5, atol=1e-5)


def test_tiled_attention_equals_pytorch_with_and_without_causal_mask():
    generator = torch.Generator().manual_seed(1)
    q, k, v = (torch.randn(2, 3, 37, 8, generator=generator) for _ in range(3))
    for causal in (False, True):
        for block in (1, 5, 16, 64):
            torch.testing.assert_close(
                ref.tiled_attention(q, k, v, block, causal),
                F.scaled_dot_product_attention(q, k, v, is_causal=causal),
                rtol=1e-5,
                atol=1e-5,
            )


def test_online_softmax_equals_torch_softmax_with_large_logits():
    x = torch.randn(4, 50, generator=torch.Generator().manual_seed(2)) * 300
    torch.testing.assert_close(ref.online_softmax(x, 7), torch.softmax(x, -1))


def test_sliding_window_mask_is_its_definition_and_the_look_ahead_mask_for_wide_windows():
    size, window = 9, 4
    i, j = torch.meshgrid(torch.arange(size), torch.arange(size), indexing="ij")
    assert torch.equal(ref.sliding_window_mask(size, window), (j <= i) & (i - j < window))
    assert torch.equal(ref.sliding_window_mask(size, size), look_ahead_mask(size))


def test_cached_generation_gives_the_uncached_tokens_and_runs_each_position_once():
    model = ref.make_lm(seed=3)
    prompt = torch.randint(0, 50, (3, 6), generator=torch.Generator().manual_seed(3))
    slow_ids, slow_logits = ref.generate_without_cache(model, prompt, 30)
    before = int(model.positions_processed)
    fast_ids, fast_logits = ref.generate(model, prompt, 30)
    assert torch.equal(slow_ids, fast_ids)
    torch.testing.assert_close(fast_logits, slow_logits, rtol=1e-4, atol=1e-4)
    assert int(model.positions_processed) - before == 3 * (6 + 30 - 1)


def test_cache_bytes_match_the_formula():
    model = ref.make_lm(seed=0, d_model=64, num_heads=4, num_layers=3)
    caches = model.new_caches(2, 100)
    measured = sum(c.keys.nbytes + c.values.nbytes for c in caches)
    assert (
        measured == 2 * 3 * 4 * 16 * 100 * 4 * 2
    )  # 2 . layers . heads . d_head . len . bytes . batch


def test_tiled_attention_peak_memory_grows_linearly_and_naive_quadratically():
    small, large = 512, 2048
    peaks = {}
    for n in (small, large):
        q = torch.randn(1, 1, n, 64)
        peaks[n] = (
            ref.peak_memory(ref.naive_attention, q, q, q),
            ref.peak_memory(ref.tiled_attention, q, q, q, 128),
        )
    naive_growth = peaks[large][0] / peaks[small][0]
    tiled_growth = peaks[large][1] / peaks[small][1]
    assert naive_growth > 12, naive_growth  # 16 for len²
    assert tiled_growth < 6, tiled_growth  # 4 for len
