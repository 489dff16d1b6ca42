"""Lesson 12 (inference and memory): classic mistakes fail with their intended message in
the visible and the hidden check, correct variants (the forms of gpt-fast, Llama's
repeat_kv, HF's growing cache, einsum) pass both, and the references agree with
independent oracles: PyTorch's F.scaled_dot_product_attention (enable_gqa, is_causal),
torch.softmax, and generation without a cache."""

from __future__ import annotations

import json
import math
import re

import pytest
import torch
import torch.nn.functional as F
from common import REPO, Correct, Mistake, lesson_tests, validated_notebook
from torch import nn

from transformer_course import stdlib_corpus
from transformer_course.checking.failure import CheckFailure
from transformer_course.checking.oracles import online_softmax_f, tiled_attention_f
from transformer_course.checkpoints import DIRECTORY as CHECKPOINTS
from transformer_course.checkpoints import language_model as shipped_model
from transformer_course.checks import inference as checks
from transformer_course.checks.inference import (
    check_generate,
    check_grouped_query_attention,
    check_KVCache,
    check_online_softmax,
    check_sliding_window_mask,
    check_tiled_attention,
)
from transformer_course.reference import inference as ref
from transformer_course.reference.attention import scaled_dot_product_attention
from transformer_course.reference.language_model import GPT
from transformer_course.reference.masking import look_ahead_mask


def _named(name, fn):
    fn.__name__ = fn.__qualname__ = name
    return fn


def _gqa_values_einsum_summed(q, k, v, mask=None):
    """Round 37: the keys repeated right, the values mixed with an einsum whose key/value
    head subscript (g) is missing from the output: summed over every value head."""
    k = k.repeat_interleave(q.shape[1] // k.shape[1], dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.einsum("bhij,bgjd->bhid", scores.softmax(-1), v)


def _tiled_factor_without_old_max(q, k, v, block_size, causal=False):
    """Round 37: the rescale factor exp(-m_new), the old maximum left out of it."""
    scale = q.shape[-1] ** -0.5
    m = q.new_full(q.shape[:-1], float("-inf"))
    denom = q.new_zeros(q.shape[:-1])
    o = q.new_zeros((*q.shape[:-1], v.shape[-1]))
    i = torch.arange(q.shape[-2])[:, None]
    for j0 in range(0, k.shape[-2], block_size):
        j1 = min(j0 + block_size, k.shape[-2])
        s = torch.matmul(q, k[..., j0:j1, :].mT) * scale
        if causal:
            s = s.masked_fill(torch.arange(j0, j1)[None, :] > i, float("-inf"))
        m_new = torch.max(m, s.max(-1).values)
        alpha = (-m_new).exp()
        p = (s - m_new[..., None]).exp()
        denom = alpha * denom + p.sum(-1)
        o = alpha[..., None] * o + p @ v[..., j0:j1, :]
        m = m_new
    return o / denom[..., None]


def _window_every_third_key(size, window):
    """Round 37: a dilated window (dilation 3) built diagonal by diagonal."""
    i, j = torch.arange(size)[:, None], torch.arange(size)[None, :]
    keep = torch.zeros(size, size, dtype=torch.bool)
    for step in range(window):
        keep |= i - j == 3 * step
    return keep


def _generate_feeds_previous_token(model, prompt, max_new_tokens):
    """Each step feeds a variable still holding the previous step's token (the prompt's
    last token on the first step)."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits = model(prompt, caches=caches, start=0)[:, -1]
    ids, steps, previous = prompt, [], prompt[:, -1:]
    for step in range(max_new_tokens):
        steps.append(logits)
        next_id = logits.argmax(dim=-1, keepdim=True)  # (batch, 1)
        ids = torch.cat([ids, next_id], dim=1)
        if step + 1 < max_new_tokens:
            logits = model(previous, caches=caches, start=length + step)[:, -1]
        previous = next_id
    return ids, torch.stack(steps, dim=1)


def _generate_seen_penalised(how):
    """Changes the logits of the tokens already in the sequence before each argmax:
    lowered by 2 ("presence") or set to -inf ("ban", no token repeated)."""

    def generate(model, prompt, max_new_tokens):
        batch, length = prompt.shape
        caches = model.new_caches(batch, length + max_new_tokens)
        logits = model(prompt, caches=caches, start=0)[:, -1]  # (batch, vocab)
        ids, steps = prompt, []
        for step in range(max_new_tokens):
            seen = torch.zeros_like(logits, dtype=torch.bool).scatter(1, ids, True)
            if how == "ban":
                logits = logits.masked_fill(seen, float("-inf"))
            else:
                logits = logits - 2.0 * seen
            steps.append(logits)
            next_id = logits.argmax(dim=-1, keepdim=True)  # (batch, 1)
            ids = torch.cat([ids, next_id], dim=1)
            if step + 1 < max_new_tokens:
                logits = model(next_id, caches=caches, start=length + step)[:, -1]
        return ids, torch.stack(steps, dim=1)

    return _named("generate", generate)


def _generate_prefill_first_sequence(model, prompt, max_new_tokens):
    """Takes the prefill's logits with [0], the first sequence, instead of [:, -1]."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits = model(prompt, caches=caches, start=0)[0]
    ids, steps = prompt, []
    for step in range(max_new_tokens):
        steps.append(logits)
        next_id = logits.argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
        if step + 1 < max_new_tokens:
            logits = model(next_id, caches=caches, start=length + step)[:, -1]
    return ids, torch.stack(steps, dim=1)


# ------------------------------------------------------------------------------ KVCache
class OnlyNew(ref.KVCache):
    def forward(self, k_new, v_new):
        super().forward(k_new, v_new)
        return k_new.clone(), v_new.clone()


class FirstNewPositionBroadcast(ref.KVCache):
    """Round 30: writes k_new[:, :, :1] into all n new slots: one-token steps are right,
    a prefill stores its first position n times."""

    def forward(self, k_new, v_new):
        start, stop = self.length, self.length + k_new.shape[-2]
        if stop > self.keys.shape[-2]:
            raise ValueError(f"the cache holds {self.keys.shape[-2]} positions, not {stop}")
        self.keys[:, :, start:stop] = k_new[:, :, :1]  # (batch, heads, 1, d_head), broadcast
        self.values[:, :, start:stop] = v_new[:, :, :1]
        self.length = stop
        return self.keys[:, :, :stop], self.values[:, :, :stop]


class LastNewPositionBroadcast(ref.KVCache):
    """Round 30: the same with the last new position, k_new[:, :, -1:]."""

    def forward(self, k_new, v_new):
        start, stop = self.length, self.length + k_new.shape[-2]
        if stop > self.keys.shape[-2]:
            raise ValueError(f"the cache holds {self.keys.shape[-2]} positions, not {stop}")
        self.keys[:, :, start:stop] = k_new[:, :, -1:]  # (batch, heads, 1, d_head), broadcast
        self.values[:, :, start:stop] = v_new[:, :, -1:]
        self.length = stop
        return self.keys[:, :, :stop], self.values[:, :, :stop]


class KeepsFirstPositionTwice(ref.KVCache):
    """Round 30: returns position 0 where the last stored position belongs (a slice
    [0, 0 .. stop - 2]): positions returned twice and never, with no broadcast cause."""

    def forward(self, k_new, v_new):
        keys, values = super().forward(k_new, v_new)
        order = torch.tensor([0, *range(keys.shape[-2] - 1)])  # (stop,)
        return keys[:, :, order], values[:, :, order]


class LengthAsScratchTensor(ref.KVCache):
    """The count kept as a tensor buffer, persistent=False (out of the state dict) and
    advanced in place: right positions, but self.length is not the contract's int."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        del self.length
        self.register_buffer("length", torch.zeros((), dtype=torch.long), persistent=False)

    def forward(self, k_new, v_new):
        start = int(self.length)
        stop = start + k_new.shape[-2]
        if stop > self.keys.shape[-2]:
            raise ValueError(f"the cache holds {self.keys.shape[-2]} positions, not {stop}")
        self.keys[:, :, start:stop] = k_new
        self.values[:, :, start:stop] = v_new
        self.length.fill_(stop)
        return self.keys[:, :, :stop], self.values[:, :, :stop]


class WritesAtZero(ref.KVCache):
    """Writes every chunk at 0 .. n - 1, though its length advances."""

    def forward(self, k_new, v_new):
        n = k_new.shape[-2]
        self.keys[:, :, :n] = k_new
        self.values[:, :, :n] = v_new
        self.length += n
        return self.keys[:, :, : self.length], self.values[:, :, : self.length]


class StoresOnlyAfterPrefill(ref.KVCache):
    """Writes only calls that continue something stored (stop beyond this call's own
    positions): the first call, the prompt, is never stored, though counted."""

    def forward(self, k_new, v_new):
        n = k_new.shape[-2]
        start, stop = self.length, self.length + n
        if stop > n:
            self.keys[:, :, start:stop] = k_new
            self.values[:, :, start:stop] = v_new
        self.length = stop
        return self.keys[:, :, :stop], self.values[:, :, :stop]


class SkipsSinglePositionCalls(ref.KVCache):
    """Stores only calls of several positions, though its length advances on every call."""

    def forward(self, k_new, v_new):
        start, stop = self.length, self.length + k_new.shape[-2]
        if k_new.shape[-2] > 1:
            self.keys[:, :, start:stop] = k_new
            self.values[:, :, start:stop] = v_new
        self.length = stop
        return self.keys[:, :, :stop], self.values[:, :, :stop]


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


class NewFirstByRoll(ref.KVCache):
    """Writes after the stored positions, then rolls the new ones to the front."""

    def forward(self, k_new, v_new):
        n = k_new.shape[-2]
        keys, values = super().forward(k_new, v_new)
        return keys.roll(n, dims=-2), values.roll(n, dims=-2)


class ReturnsReversed(ref.KVCache):
    """Returns the stored positions newest first, flipped."""

    def forward(self, k_new, v_new):
        keys, values = super().forward(k_new, v_new)
        return keys.flip(-2), values.flip(-2)


class WritesLastNewOnly(ref.KVCache):
    """Writes only the last of the new positions, though its length advances by all."""

    def forward(self, k_new, v_new):
        stop = self.length + k_new.shape[-2]
        self.keys[:, :, stop - 1] = k_new[:, :, -1]
        self.values[:, :, stop - 1] = v_new[:, :, -1]
        self.length = stop
        return self.keys[:, :, :stop], self.values[:, :, :stop]


class SlotTooLong(ref.KVCache):
    """Writes n new positions into a slice one position longer (stop + 1)."""

    def forward(self, k_new, v_new):
        start, stop = self.length, self.length + k_new.shape[-2]
        self.keys[:, :, start : stop + 1] = k_new
        self.values[:, :, start : stop + 1] = v_new
        self.length = stop
        return self.keys[:, :, :stop], self.values[:, :, :stop]


class SlotFromHeads(ref.KVCache):
    """n read from k_new's heads axis (k_new.shape[1]) instead of its positions axis."""

    def forward(self, k_new, v_new):
        start, stop = self.length, self.length + k_new.shape[1]
        self.keys[:, :, start:stop] = k_new
        self.values[:, :, start:stop] = v_new
        self.length = stop
        return self.keys[:, :, :stop], self.values[:, :, :stop]


class SharedAcrossBatch(ref.KVCache):
    def forward(self, k_new, v_new):
        return super().forward(k_new[:1].expand_as(k_new), v_new[:1].expand_as(v_new))


class Swapped(ref.KVCache):
    def forward(self, k_new, v_new):
        keys, values = super().forward(k_new, v_new)
        return values, keys


class RejectsFull(ref.KVCache):
    """Raises when the cache would be exactly full (stop >= max_len, not >)."""

    def forward(self, k_new, v_new):
        if self.length + k_new.shape[-2] >= self.keys.shape[-2]:
            raise ValueError("the cache is full")
        return super().forward(k_new, v_new)


class FullRaisesOwnError(ref.KVCache):
    """Refuses a chunk past max_len with an error type of its own choosing, not ValueError."""

    def forward(self, k_new, v_new):
        if self.length + k_new.size(2) > self.keys.size(2):
            raise Exception("KV cache overflow")
        return super().forward(k_new, v_new)


class RefusesOnlyWhenFull(ref.KVCache):
    """Refuses only a cache already full: a chunk that straddles the end reaches the write,
    whose slice is cut short at the buffer's end (PyTorch's shape error, by accident)."""

    def forward(self, k_new, v_new):
        if self.length == self.keys.shape[2]:
            raise ValueError("no room left")
        stop = self.length + k_new.shape[2]
        self.keys[:, :, self.length : stop] = k_new
        self.values[:, :, self.length : stop] = v_new
        self.length = stop
        return self.keys[:, :, :stop], self.values[:, :, :stop]


class CountsTheBatchAxis(ref.KVCache):
    """Counts k_new.shape[0] (the batch) as the new positions in its capacity test."""

    def forward(self, k_new, v_new):
        if self.length + k_new.shape[0] > self.keys.shape[-2]:
            raise ValueError("the cache is full")
        stop = self.length + k_new.shape[-2]
        self.keys[:, :, self.length : stop] = k_new
        self.values[:, :, self.length : stop] = v_new
        self.length = stop
        return self.keys[:, :, :stop], self.values[:, :, :stop]


class ChecksTheAdvancedLength(ref.KVCache):
    """Writes and advances the length, then refuses when the length went past max_len."""

    def forward(self, k_new, v_new):
        start = self.length
        self.length += k_new.shape[2]
        self.keys[:, :, start : self.length] = k_new
        self.values[:, :, start : self.length] = v_new
        if self.length > self.keys.shape[2]:
            raise ValueError("the cache is full")
        return self.keys[:, :, : self.length], self.values[:, :, : self.length]


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


class ClassLevelLength(nn.Module):
    """The length kept on the class (KVCache.length), shared by every cache (blind8b): was
    told its overflow test was wrong."""

    length = 0

    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
        super().__init__()
        shape = (batch, num_heads, max_len, d_head)
        self.register_buffer("keys", torch.zeros(shape, dtype=dtype), persistent=False)
        self.register_buffer("values", torch.zeros(shape, dtype=dtype), persistent=False)

    def forward(self, k_new, v_new):
        start, stop = type(self).length, type(self).length + k_new.shape[-2]
        if stop > self.keys.shape[-2]:
            raise ValueError("full")
        self.keys[:, :, start:stop] = k_new
        self.values[:, :, start:stop] = v_new
        type(self).length = stop
        return self.keys[:, :, :stop], self.values[:, :, :stop]


class PositionsSecond(nn.Module):
    """Buffers (batch, max_len, num_heads, d_head), transposed in and out: the returned
    keys and values are right, the buffers' layout is not the contract's (blind8b)."""

    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
        super().__init__()
        shape = (batch, max_len, num_heads, d_head)
        self.register_buffer("keys", torch.zeros(shape, dtype=dtype), persistent=False)
        self.register_buffer("values", torch.zeros(shape, dtype=dtype), persistent=False)
        self.length = 0

    def forward(self, k_new, v_new):
        start, stop = self.length, self.length + k_new.shape[-2]
        if stop > self.keys.shape[1]:
            raise ValueError("full")
        self.keys[:, start:stop] = k_new.transpose(1, 2)
        self.values[:, start:stop] = v_new.transpose(1, 2)
        self.length = stop
        return self.keys[:, :stop].transpose(1, 2), self.values[:, :stop].transpose(1, 2)


class KeysStoredForTheProduct(nn.Module):
    """The keys buffer (batch, num_heads, d_head, max_len), kᵀ ready for q @ kᵀ, and the
    keys transposed back on the way out: the returned keys are right, the layout is not."""

    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
        super().__init__()
        keys = torch.zeros(batch, num_heads, d_head, max_len, dtype=dtype)
        values = torch.zeros(batch, num_heads, max_len, d_head, dtype=dtype)
        self.register_buffer("keys", keys, persistent=False)
        self.register_buffer("values", values, persistent=False)
        self.length = 0

    def forward(self, k_new, v_new):
        start, stop = self.length, self.length + k_new.shape[-2]
        if stop > self.values.shape[-2]:
            raise ValueError("full")
        self.keys[..., start:stop] = k_new.transpose(-2, -1)
        self.values[:, :, start:stop] = v_new
        self.length = stop
        return self.keys[..., :stop].transpose(-2, -1), self.values[:, :, :stop]


class ReturnsOneTooMany(ref.KVCache):
    """Returns the keys one position past the stored ones (mutant KVCache-8)."""

    def forward(self, k_new, v_new):
        super().forward(k_new, v_new)
        return self.keys[:, :, : self.length + 1], self.values[:, :, : self.length]


class SpareSlotsBelowMaxLen(ref.KVCache):
    """Buffers of max_len + 2 positions ("room for the next token"), the capacity tested
    against max_len: the buffers' shape alone is wrong (blind30c-kv-one-spare-slot's
    family, its capacity test right)."""

    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
        super().__init__(batch, num_heads, max_len, d_head, dtype)
        self.max_len = max_len
        room = torch.zeros(batch, num_heads, max_len + 2, d_head, dtype=dtype)
        self.register_buffer("keys", room, persistent=False)
        self.register_buffer("values", room.clone(), persistent=False)

    def forward(self, k_new, v_new):
        n = k_new.shape[2]
        if self.length + n > self.max_len:
            raise ValueError("the cache is full")
        self.keys[:, :, self.length : self.length + n] = k_new
        self.values[:, :, self.length : self.length + n] = v_new
        self.length += n
        return self.keys[:, :, : self.length], self.values[:, :, : self.length]


class SpareSlotUnchecked(ref.KVCache):
    """Buffers for positions 0 .. max_len (max_len + 1 of them) and no capacity test: one
    position past max_len fills the spare slot."""

    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
        super().__init__(batch, num_heads, max_len, d_head, dtype)
        slots = torch.zeros(batch, num_heads, max_len + 1, d_head, dtype=dtype)
        self.register_buffer("keys", slots, persistent=False)
        self.register_buffer("values", slots.clone(), persistent=False)

    def forward(self, k_new, v_new):
        stop = self.length + k_new.shape[-2]
        self.keys[:, :, self.length : stop] = k_new
        self.values[:, :, self.length : stop] = v_new
        self.length = stop
        return self.keys[:, :, :stop], self.values[:, :, :stop]


class GrowingCacheAppendsAgain(nn.Module):
    """A growing cache that returns what it holds with the new positions joined again
    (blind30c-kv-new-positions-returned-twice's family, written otherwise)."""

    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
        super().__init__()
        self.max_len = max_len
        self.register_buffer("keys", torch.zeros(batch, num_heads, 0, d_head, dtype=dtype))
        self.register_buffer("values", torch.zeros(batch, num_heads, 0, d_head, dtype=dtype))

    def forward(self, k_new, v_new):
        if self.keys.shape[-2] + k_new.shape[-2] > self.max_len:
            raise ValueError("the cache is full")
        self.keys = torch.cat([self.keys, k_new], dim=-2)
        self.values = torch.cat([self.values, v_new], dim=-2)
        return torch.cat((self.keys, k_new), -2), torch.cat((self.values, v_new), -2)


class ReturnsPastTheNewPositions(ref.KVCache):
    """Returns length + 2n positions of the buffers (the slice's end counted from the new
    length, self.length + n after self.length was advanced): unwritten zeros, not the new
    positions again, and never told they come back twice."""

    def forward(self, k_new, v_new):
        super().forward(k_new, v_new)
        n = k_new.shape[-2]
        return self.keys[:, :, : self.length + n], self.values[:, :, : self.length + n]


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
    """gpt-fast's KVCache, written again: index_copy_ at explicit positions (its buffers
    under the contract's names, keys and values: gpt-fast's own k_cache and v_cache are
    refused since blind round 13)."""

    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
        super().__init__()
        shape = (batch, num_heads, max_len, d_head)
        self.register_buffer("keys", torch.zeros(shape, dtype=dtype), persistent=False)
        self.register_buffer("values", torch.zeros(shape, dtype=dtype), persistent=False)
        self.length = 0

    def forward(self, k_new, v_new):
        positions = torch.arange(self.length, self.length + k_new.shape[-2])
        self.keys.index_copy_(2, positions, k_new)  # raises when out of range
        self.values.index_copy_(2, positions, v_new)
        self.length += k_new.shape[-2]
        return self.keys[:, :, : self.length], self.values[:, :, : self.length]


class ReturnsBeforeAppending(ref.KVCache):
    def forward(self, k_new, v_new):
        old = self.keys[:, :, : self.length].clone(), self.values[:, :, : self.length].clone()
        super().forward(k_new, v_new)
        if old[0].shape[-2] == 0:  # the first call: return the new positions
            return self.keys[:, :, : self.length], self.values[:, :, : self.length]
        return old


class ReturnsOld(ref.KVCache):
    """Returns what it held before the call (nothing, on the first call)."""

    def forward(self, k_new, v_new):
        old = self.keys[:, :, : self.length].clone(), self.values[:, :, : self.length].clone()
        super().forward(k_new, v_new)
        return old


class CatReplacesBuffers(ref.KVCache):
    """Replaces the buffers with the stored positions and the new ones concatenated, so
    its own capacity test (against self.keys.shape[-2]) refuses the second call."""

    def forward(self, k_new, v_new):
        start, stop = self.length, self.length + k_new.shape[-2]
        if stop > self.keys.shape[-2]:
            raise ValueError(f"the cache holds {self.keys.shape[-2]} positions")
        self.keys = torch.cat([self.keys[:, :, :start], k_new], dim=-2)
        self.values = torch.cat([self.values[:, :, :start], v_new], dim=-2)
        self.length = stop
        return self.keys, self.values


class ClearsOnNewPrompt(ref.KVCache):
    """Takes any call of several positions for a new prompt: clears the buffers and starts
    over from 0 before writing (a prompt fed in chunks loses its first chunks)."""

    def forward(self, k_new, v_new):
        if k_new.size(2) != 1:
            self.keys.zero_()
            self.values.zero_()
            self.length = 0
        return super().forward(k_new, v_new)


# ----------------------------------------------------------------------------- generate
def _gen(**knobs):
    """generate as the learner might write it: the checks' own cached generation, right
    by default, with one knob turned (a mistake or a correct variant)."""
    return _named(
        "generate",
        lambda model, prompt, new: checks.cached_generation(model, prompt, new, **knobs),
    )


@torch.no_grad()
def _generate_no_keepdim(model, prompt, max_new_tokens):
    """The chosen tokens appended as (batch,), not as a column (batch, 1)."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits = model(prompt, caches=caches, start=0)[:, -1]
    ids, steps = prompt, []
    for step in range(max_new_tokens):
        steps.append(logits)
        next_id = logits.argmax(dim=-1)
        ids = torch.cat([ids, next_id], dim=1)
        logits = model(next_id[:, None], caches=caches, start=length + step)[:, -1]
    return ids, torch.stack(steps, dim=1)


def _generate_sampling(temperature=1.0):
    """Each token drawn with torch.multinomial from softmax(logits / temperature) (the global
    stream) instead of the argmax (blind8b: caught by the hidden run only, the visible
    models' logits being too peaked for a draw to differ from the argmax)."""

    def generate(model, prompt, max_new_tokens):
        batch, length = prompt.shape
        caches = model.new_caches(batch, length + max_new_tokens)
        logits = model(prompt, caches=caches, start=0)[:, -1]
        ids, steps = prompt, []
        for step in range(max_new_tokens):
            steps.append(logits)
            next_id = torch.multinomial(torch.softmax(logits / temperature, dim=-1), 1)
            ids = torch.cat([ids, next_id], dim=1)
            if step + 1 < max_new_tokens:
                logits = model(next_id, caches=caches, start=length + step)[:, -1]
        return ids, torch.stack(steps, dim=1)

    return generate


# ------------------------------------------------------------- grouped_query_attention
def _gqa_axes(q_axis=1, k_axis=1, dim=1):
    """The group size read from axes q_axis and k_axis, the repeat along dim."""

    def grouped_query_attention(q, k, v, mask=None):
        group = q.shape[q_axis] // k.shape[k_axis]
        k, v = k.repeat_interleave(group, dim=dim), v.repeat_interleave(group, dim=dim)
        return scaled_dot_product_attention(q, k, v, mask)[0]

    return grouped_query_attention


def _gqa_tiled(q, k, v, mask=None):
    return checks.gqa_expected(q, k, v, mask, tile=True)


def _gqa_scaled_by_d_v(q, k, v, mask=None):
    """Written by hand, scaled by the values' width: right only when d_v == d_head."""
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(v.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v


def _gqa_scaled_by_model_width(q, k, v, mask=None):
    """Written with einsum, the scores scaled by 1 / sqrt(d_model), the width all the
    query heads fill together, not one head's d_head."""
    heads, kv, d_head = q.shape[1], k.shape[1], q.shape[-1]
    d_model = heads * d_head
    keys = k.repeat_interleave(heads // kv, dim=1)  # (batch, num_heads, len_k, d_head)
    values = v.repeat_interleave(heads // kv, dim=1)
    scores = torch.einsum("bhqd,bhkd->bhqk", q, keys) * d_model**-0.5
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    return torch.einsum("bhqk,bhkd->bhqd", scores.softmax(dim=-1), values)


def _gqa_keys_cut_to_len_q(q, k, v, mask=None):
    """Round 30: k and v cut to the queries' length, k[:, :, : q.shape[2]] (a length from
    the wrong tensor): attention over keys 0 .. len_q - 1 only."""
    len_q = q.shape[2]
    k, v = k[:, :, :len_q], v[:, :, :len_q]  # (batch, num_kv_heads, len_q, d)
    cut = None if mask is None else mask[..., :len_q]
    return checks.gqa_expected(q, k, v, cut)


def _gqa_keys_from_second(q, k, v, mask=None):
    """Round 30: the first key dropped, k[:, :, 1:] (as if it were a start token to skip)."""
    k, v = k[:, :, 1:], v[:, :, 1:]  # (batch, num_kv_heads, len_k - 1, d)
    cut = None if mask is None else mask[..., 1:]
    return checks.gqa_expected(q, k, v, cut)


def _gqa_mask_inverted_by_hand(q, k, v, mask=None):
    """Round 30: a hand-written attention that fills the *allowed* keys with -inf: under
    a causal mask the last query keeps no key and its softmax is NaN (0 / 0)."""
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (batch, heads, len_q, len_k)
    if mask is not None:
        scores = scores.masked_fill(mask, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v


def _gqa_unscaled(q, k, v, mask=None):
    return checks.gqa_expected(q, k, v, mask, scale=1)


def _gqa_mask_filled_zero(q, k, v, mask=None):
    """The blocked scores set to 0, not -inf."""
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, 0.0)
    return torch.softmax(scores, dim=-1) @ v


def _tiled_mask_filled_zero(q, k, v, block_size, causal=False):
    """Tiled, right but for the causal mask's fill: 0 instead of -inf."""
    len_q, len_k = q.shape[-2], k.shape[-2]
    m = torch.full(q.shape[:-1], float("-inf"))
    total = torch.zeros(q.shape[:-1])
    acc = torch.zeros((*q.shape[:-1], v.shape[-1]))
    for start in range(0, len_k, block_size):
        stop = min(start + block_size, len_k)
        s = q @ k[..., start:stop, :].transpose(-2, -1) / math.sqrt(q.shape[-1])
        if causal:
            s = s.masked_fill(torch.arange(start, stop)[None] > torch.arange(len_q)[:, None], 0.0)
        new = torch.maximum(m, s.amax(-1))
        p = torch.exp(s - new[..., None])
        total = total * torch.exp(m - new) + p.sum(-1)
        acc = acc * torch.exp(m - new)[..., None] + p @ v[..., start:stop, :]
        m = new
    return acc / total[..., None]


def _tiled_slips(*, queries_axis=-2, sum_axis=-1, acc_axis=-1, v_extra=0):
    """Tiled, right but for one slip: len_q read from queries_axis, the block's weights
    summed over sum_axis, the output made with v.shape[acc_axis], v sliced v_extra long."""

    def tiled_attention(q, k, v, block_size, causal=False):
        len_q, len_k = q.shape[queries_axis], k.shape[-2]
        m = torch.full(q.shape[:-1], float("-inf"))
        total = torch.zeros(q.shape[:-1])
        acc = torch.zeros((*q.shape[:-1], v.shape[acc_axis]))
        for start in range(0, len_k, block_size):
            stop = min(start + block_size, len_k)
            s = q @ k[..., start:stop, :].transpose(-2, -1) / math.sqrt(q.shape[-1])
            if causal:
                future = torch.arange(start, stop)[None] > torch.arange(len_q)[:, None]
                s = s.masked_fill(future, float("-inf"))
            new = torch.maximum(m, s.amax(-1))
            p = torch.exp(s - new[..., None])
            total = total * torch.exp(m - new) + p.sum(sum_axis)
            acc = acc * torch.exp(m - new)[..., None] + p @ v[..., start : stop + v_extra, :]
            m = new
        return acc / total[..., None]

    return tiled_attention


def _gqa_divided_by_d(q, k, v, mask=None):
    return checks.gqa_expected(q, k, v, mask, scale=1 / q.shape[-1])


def _tiled_divided_by_d(q, k, v, block_size, causal=False):
    return tiled_attention_f(q / math.sqrt(q.shape[-1]), k, v, block_size, causal)


def _gqa_float_group(q, k, v, mask=None):
    group = q.shape[1] / k.shape[1]
    k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    return ref.scaled_dot_product_attention(q, k, v, mask)[0]


def _gqa_any_2d_mask_as_padding(q, k, v, mask=None):
    """Every 2-D mask given two axes of size 1 after its first (a padding mask's form)."""
    if mask is not None and mask.dim() == 2:
        mask = mask.unsqueeze(1).unsqueeze(1)  # (len_q, 1, 1, len_k)
    return ref.grouped_query_attention(q, k, v, mask)


def _gqa_no_mask(q, k, v, mask=None):
    return ref.grouped_query_attention(q, k, v)


def _gqa_default_look_ahead(q, k, v, mask=None):
    """No mask given: lesson 06's look-ahead mask as the default, aligned to the last key."""
    if mask is None:
        mask = look_ahead_mask(k.shape[-2])[-q.shape[-2] :]  # (len_q, len_k)
    return ref.grouped_query_attention(q, k, v, mask)


def _gqa_default_skips_first_key(q, k, v, mask=None):
    """No mask given: a default that blocks key 0 (no named default mask)."""
    if mask is None:
        mask = torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool)  # (len_q, len_k)
        mask[:, 0] = False
    return ref.grouped_query_attention(q, k, v, mask)


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


def _gqa_repeat_kv_remainder(q, k, v, mask=None):
    """Llama's repeat_kv with the group as a remainder: n_rep = num_heads % num_kv_heads."""
    batch, kv, length, d = k.shape
    n_rep = q.shape[1] % kv
    k = k[:, :, None].expand(batch, kv, n_rep, length, d).reshape(batch, kv * n_rep, length, d)
    v = (
        v[:, :, None]
        .expand(batch, kv, n_rep, length, v.shape[-1])
        .reshape(batch, kv * n_rep, length, v.shape[-1])
    )
    return ref.scaled_dot_product_attention(q, k, v, mask)[0]


def _gqa_group_inverted(q, k, v, mask=None):
    """The group divided the wrong way round: num_kv_heads // num_heads."""
    num_kv_heads, num_heads = k.size(1), q.size(1)
    group = num_kv_heads // num_heads
    k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    return ref.scaled_dot_product_attention(q, k, v, mask)[0]


def _gqa_chunked_groups_whole_mask(q, k, v, mask=None):
    """Attends group by group (q.chunk per key/value head), each group given the whole
    mask: wrong for a mask with one slice per query head."""
    outputs = []
    for q_g, k_g, v_g in zip(q.chunk(k.shape[1], dim=1), k.split(1, 1), v.split(1, 1), strict=True):
        scores = q_g @ k_g.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        outputs.append(scores.softmax(-1) @ v_g)  # (batch, group, len_q, d_v)
    return torch.cat(outputs, dim=1)


def _gqa_chunked_groups(q, k, v, mask=None):
    """Group by group, the mask cut into each group's heads when it has one per head."""
    group = q.shape[1] // k.shape[1]
    outputs = []
    for g in range(k.shape[1]):
        heads = slice(g * group, (g + 1) * group)
        scores = q[:, heads] @ k[:, g : g + 1].transpose(-2, -1) / math.sqrt(q.shape[-1])
        if mask is not None:
            group_mask = mask[:, heads] if mask.dim() == 4 and mask.shape[1] > 1 else mask
            scores = scores.masked_fill(~group_mask, float("-inf"))
        outputs.append(scores.softmax(-1) @ v[:, g : g + 1])  # (batch, group, len_q, d_v)
    return torch.cat(outputs, dim=1)


def _gqa_mask_or_all_true(q, k, v, mask=None):
    """The optional mask replaced by an all-True one with `or`: a tensor's truth value."""
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    mask = mask or torch.ones_like(scores, dtype=torch.bool)
    return torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1) @ v


def _gqa_keys_permuted(q, k, v, mask=None):
    """Written by hand, the keys permuted on heads and positions (0, 2, 1, 3) for q @ kᵀ."""
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    scores = q @ k.permute(0, 2, 1, 3) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v


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
    return online_softmax_f(x, block_size, rescale="none")


def _softmax_no_max(x, block_size):
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    for start in range(0, x.shape[-1], block_size):
        total = total + torch.exp(x[..., start : start + block_size]).sum(-1)
    return torch.exp(x) / total[..., None]


def _softmax_state_one_axis_short(x, block_size):
    """The running sum made with x.shape[:-2]: broadcasting hides it whenever the leading
    axes happen to broadcast, so the hidden inputs include ones that do not."""
    running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
    total = torch.zeros(x.shape[:-2], dtype=x.dtype)
    for start in range(0, x.shape[-1], block_size):
        block = x[..., start : start + block_size]
        new_max = torch.maximum(running_max, block.amax(dim=-1))
        total = total * torch.exp(running_max - new_max) + torch.exp(
            block - new_max[..., None]
        ).sum(dim=-1)
        running_max = new_max
    return torch.exp(x - running_max[..., None]) / total[..., None]


def _softmax_blocks(extra=0, stop_axis=-1):
    """Blocks of block_size + extra columns; the loop bound read from axis stop_axis."""

    def online_softmax(x, block_size):
        running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
        total = torch.zeros(x.shape[:-1], dtype=x.dtype)
        for start in range(0, x.shape[stop_axis], block_size):
            block = x[..., start : start + block_size + extra]
            new_max = torch.maximum(running_max, block.amax(dim=-1))
            scaled = torch.exp(block - new_max[..., None]).sum(dim=-1)
            total = total * torch.exp(running_max - new_max) + scaled
            running_max = new_max
        return torch.exp(x - running_max[..., None]) / total[..., None]

    return online_softmax


def _softmax_max_from_zero(x, block_size):
    return online_softmax_f(x, block_size, start=0.0)


def _softmax_running_min(x, block_size):
    """A running minimum where the maximum belongs (min everywhere, from +inf)."""
    low = torch.full(x.shape[:-1], float("inf"), dtype=x.dtype)
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    for start in range(0, x.shape[-1], block_size):
        block = x[..., start : start + block_size]
        new_low = torch.min(low, block.min(dim=-1).values)
        total = total * torch.exp(low - new_low) + torch.exp(block - new_low[..., None]).sum(-1)
        low = new_low
    return torch.exp(x - low[..., None]) / total[..., None]


def _softmax_variant(final_max=True, factor="right"):
    """Online softmax with the final exp(x) taking no maximum (final_max False), or the
    running sum rescaled by exp(m_old) alone (factor "old_only")."""

    def online_softmax(x, block_size):
        running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
        total = torch.zeros(x.shape[:-1], dtype=x.dtype)
        for start in range(0, x.shape[-1], block_size):
            block = x[..., start : start + block_size]
            new_max = torch.maximum(running_max, block.amax(dim=-1))
            scale = running_max - new_max if factor == "right" else running_max
            total = total * torch.exp(scale) + torch.exp(block - new_max[..., None]).sum(-1)
            running_max = new_max
        numerator = torch.exp(x - running_max[..., None]) if final_max else torch.exp(x)
        return numerator / total[..., None]

    return online_softmax


def _softmax_first_block_counted_twice(x, block_size):
    """The state started from the first block's maximum and sum, the loop still from 0."""
    first = x[..., :block_size]
    running_max = first.amax(dim=-1)
    total = torch.exp(first - running_max[..., None]).sum(dim=-1)
    for start in range(0, x.shape[-1], block_size):
        block = x[..., start : start + block_size]
        new_max = torch.maximum(running_max, block.amax(dim=-1))
        total = total * torch.exp(running_max - new_max) + torch.exp(
            block - new_max[..., None]
        ).sum(dim=-1)
        running_max = new_max
    return torch.exp(x - running_max[..., None]) / total[..., None]


def _softmax_new_terms_against_both_maxima(x, block_size):
    """Each block's terms taken as exp(block - 2 m_new + m_old), the running sum never
    multiplied: the factor exp(m_old - m_new) lands on the new terms."""
    running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    for start in range(0, x.shape[-1], block_size):
        block = x[..., start : start + block_size]
        new_max = torch.maximum(running_max, block.amax(dim=-1))
        shift = 2 * new_max - running_max  # (...,)
        total = total + torch.exp(block - shift[..., None]).sum(dim=-1)
        running_max = new_max
    return torch.exp(x - running_max[..., None]) / total[..., None]


def _softmax_blocks_each_averaged(x, block_size):
    """torch.softmax of each block alone, divided by the number of blocks."""
    blocks = torch.split(x, block_size, dim=-1)
    return torch.cat([torch.softmax(block, dim=-1) / len(blocks) for block in blocks], dim=-1)


def _softmax_stale_numerators(x, block_size):
    """Each block's exp(x - m) kept with the maximum of that moment, never rescaled."""
    running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    pieces = []
    for start in range(0, x.shape[-1], block_size):
        block = x[..., start : start + block_size]
        new_max = torch.maximum(running_max, block.amax(dim=-1))
        exps = torch.exp(block - new_max[..., None])
        total = total * torch.exp(running_max - new_max) + exps.sum(dim=-1)
        running_max = new_max
        pieces.append(exps)
    return torch.cat(pieces, dim=-1) / total[..., None]


def _softmax_block_max(x, block_size):
    """The maximum of each block, not the running one (exact, until exp overflows)."""
    m = total = None
    for start in range(0, x.shape[-1], block_size):
        block = x[..., start : start + block_size]
        new = block.amax(-1)
        part = torch.exp(block - new[..., None]).sum(-1)
        total = part if total is None else total * torch.exp(m - new) + part
        m = new
    return torch.exp(x - m[..., None]) / total[..., None]


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


def _softmax_blocks_reshaped(x, block_size):
    """The row cut into blocks by a reshape: right only when block_size divides it."""
    blocks = x.reshape(*x.shape[:-1], -1, block_size)  # (..., n_blocks, block_size)
    m = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    for b in range(blocks.shape[-2]):
        block = blocks[..., b, :]
        new_m = torch.maximum(m, block.amax(-1))
        total = total * torch.exp(m - new_m) + torch.exp(block - new_m[..., None]).sum(-1)
        m = new_m
    return torch.exp(x - m[..., None]) / total[..., None]


def _softmax_result_squeezed(x, block_size):
    """Right values, the result squeezed: axes of size 1 are lost."""
    return _softmax_two_pass(x, block_size).squeeze()


# ---------------------------------------------------------------------- tiled_attention
def _tiled_weights_without_max(q, k, v, block_size, causal=False):
    """Each block's weights exp(s), the maximum never subtracted, while the running sum
    and output are still rescaled (mutant tiled_attention-9: "largest difference" before)."""
    len_q, len_k = q.shape[-2], k.shape[-2]
    running_max = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
    total = torch.zeros(q.shape[:-1], dtype=q.dtype)
    acc = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)
    for start in range(0, len_k, block_size):
        stop = min(start + block_size, len_k)
        scores = q @ k[..., start:stop, :].transpose(-2, -1) / math.sqrt(q.shape[-1])
        if causal:
            future = torch.arange(start, stop)[None, :] > torch.arange(len_q)[:, None]
            scores = scores.masked_fill(future, float("-inf"))
        new_max = torch.maximum(running_max, scores.amax(dim=-1))
        correction = torch.exp(running_max - new_max)
        weights = torch.exp(scores)
        total = total * correction + weights.sum(dim=-1)
        acc = acc * correction[..., None] + weights @ v[..., start:stop, :]
        running_max = new_max
    return acc / total[..., None]


def _tiled(**knobs):
    return _named(
        "tiled_attention",
        lambda q, k, v, b, causal=False: tiled_attention_f(q, k, v, b, causal, **knobs),
    )


def _tiled_bottom_right(q, k, v, block_size, causal=False):
    """The causal mask of section 2's cache: query i sees keys j <= len_k - len_q + i."""
    len_q, len_k = q.shape[-2], k.shape[-2]
    m = torch.full(q.shape[:-1], float("-inf"))
    total = torch.zeros(q.shape[:-1])
    acc = torch.zeros((*q.shape[:-1], v.shape[-1]))
    last = torch.arange(len_q)[:, None] + len_k - len_q  # the last key each query sees
    for start in range(0, len_k, block_size):
        stop = min(start + block_size, len_k)
        s = q @ k[..., start:stop, :].transpose(-2, -1) / math.sqrt(q.shape[-1])
        if causal:
            s = s.masked_fill(torch.arange(start, stop)[None] > last, float("-inf"))
        new = torch.maximum(m, s.amax(-1))
        p = torch.exp(s - new[..., None])
        total = total * torch.exp(m - new) + p.sum(-1)
        acc = acc * torch.exp(m - new)[..., None] + p @ v[..., start:stop, :]
        m = new
    return acc / total[..., None]


def _tiled_weights_times_allowed(q, k, v, block_size, causal=False):
    """The causal mask multiplied into the block's weights once the running sum has taken
    them in: the sum still counts the future keys (round 29's class, blind26c)."""
    len_k = k.shape[-2]
    m = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)  # (..., len_q)
    total = torch.zeros(q.shape[:-1], dtype=q.dtype)  # (..., len_q)
    acc = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)  # (..., len_q, d_v)
    for start in range(0, len_k, block_size):
        stop = min(start + block_size, len_k)
        s = q @ k[..., start:stop, :].transpose(-2, -1) / math.sqrt(q.shape[-1])
        new = torch.maximum(m, s.amax(-1))
        p = torch.exp(s - new[..., None])  # (..., len_q, block)
        total = total * torch.exp(m - new) + p.sum(-1)
        if causal:
            allowed = torch.arange(start, stop)[None] <= torch.arange(q.shape[-2])[:, None]
            p = p * allowed
        acc = acc * torch.exp(m - new)[..., None] + p @ v[..., start:stop, :]
        m = new
    return acc / total[..., None]


def _tiled_first_block_last(q, k, v, block_size, causal=False):
    """Visits the key blocks from the second on and the first block last."""
    len_k = k.shape[-2]
    m = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
    total = torch.zeros(q.shape[:-1], dtype=q.dtype)
    acc = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)
    starts = list(range(0, len_k, block_size))
    for start in starts[1:] + starts[:1]:
        stop = min(start + block_size, len_k)
        s = q @ k[..., start:stop, :].transpose(-2, -1) / math.sqrt(q.shape[-1])
        if causal:
            future = torch.arange(start, stop)[None] > torch.arange(q.shape[-2])[:, None]
            s = s.masked_fill(future, float("-inf"))
        new = torch.maximum(m, s.amax(-1))
        p = torch.exp(s - new[..., None])
        total = total * torch.exp(m - new) + p.sum(-1)
        acc = acc * torch.exp(m - new)[..., None] + p @ v[..., start:stop, :]
        m = new
    return acc / total[..., None]


def _tiled_scaled_by_length(q, k, v, block_size, causal=False):
    """Divides the scores by sqrt(q.shape[-2]), a length, instead of sqrt(d_k)."""
    scale = math.sqrt(q.shape[-1]) / math.sqrt(q.shape[-2])
    return tiled_attention_f(q * scale, k, v, block_size, causal)


def _tiled_scale_on_sum_and_output(q, k, v, block_size, causal=False):
    """Multiplies each block's contributions to the running sum and to the output by
    1/sqrt(d_k) (the scores themselves unscaled): the final division cancels it."""
    len_q, len_k = q.shape[-2], k.shape[-2]
    scale = 1 / math.sqrt(q.shape[-1])
    m = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
    total = torch.zeros(q.shape[:-1], dtype=q.dtype)
    acc = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)
    for start in range(0, len_k, block_size):
        stop = min(start + block_size, len_k)
        s = q @ k[..., start:stop, :].transpose(-2, -1)  # (..., len_q, block)
        if causal:
            future = torch.arange(start, stop)[None] > torch.arange(len_q)[:, None]
            s = s.masked_fill(future, float("-inf"))
        new = torch.maximum(m, s.amax(-1))
        p = torch.exp(s - new[..., None])
        total = total * torch.exp(m - new) + scale * p.sum(-1)
        acc = acc * torch.exp(m - new)[..., None] + scale * (p @ v[..., start:stop, :])
        m = new
    return acc / total[..., None]


def _tiled_mask_transposed_after(q, k, v, block_size, causal=False):
    """Builds each block's (len_q, block) causal test right, then transposes it before
    the fill: (block, len_q), which broadcasts only when block_size == len_q."""
    len_q, len_k = q.shape[-2], k.shape[-2]
    m = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
    total = torch.zeros(q.shape[:-1], dtype=q.dtype)
    acc = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)
    for start in range(0, len_k, block_size):
        stop = min(start + block_size, len_k)
        s = q @ k[..., start:stop, :].transpose(-2, -1) / math.sqrt(q.shape[-1])
        if causal:
            future = torch.arange(start, stop)[None] > torch.arange(len_q)[:, None]
            s = s.masked_fill(future.t(), float("-inf"))  # (block, len_q)
        new = torch.maximum(m, s.amax(-1))
        p = torch.exp(s - new[..., None])
        total = total * torch.exp(m - new) + p.sum(-1)
        acc = acc * torch.exp(m - new)[..., None] + p @ v[..., start:stop, :]
        m = new
    return acc / total[..., None]


def _tiled_unscaled(q, k, v, block_size, causal=False):
    """Forgets to divide the scores by sqrt(d_k): the scaled variant on q * sqrt(d_k)."""
    return tiled_attention_f(q * math.sqrt(q.shape[-1]), k, v, block_size, causal)


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


def _tiled_fa1_form(share):
    """FlashAttention-1's normalised output, O = share · O_old + P V / l_new, with the old
    output's share computed by ``share(old_sum, correction, new_sum)`` (right: old_sum ·
    correction / new_sum)."""

    def tiled_attention(q, k, v, block_size, causal=False):
        rows = torch.arange(q.shape[-2])[:, None]
        m = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
        total = torch.zeros(q.shape[:-1], dtype=q.dtype)
        out = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)
        for start in range(0, k.shape[-2], block_size):
            stop = min(start + block_size, k.shape[-2])
            s = q @ k[..., start:stop, :].transpose(-2, -1) / math.sqrt(q.shape[-1])
            if causal:
                s = s.masked_fill(torch.arange(start, stop)[None] > rows, float("-inf"))
            new = torch.maximum(m, s.amax(-1))
            correction = torch.exp(m - new)
            p = torch.exp(s - new[..., None])
            new_total = total * correction + p.sum(-1)
            out = (
                share(total, correction, new_total)[..., None] * out
                + (p @ v[..., start:stop, :]) / new_total[..., None]
            )
            m, total = new, new_total
        return out

    return tiled_attention


def _tiled_exp_kernel(log2e: bool, exp):
    """Tiled attention whose scores are multiplied by log2(e) (``log2e``) and exponentiated
    with ``exp`` (torch.exp2 is right with log2(e), torch.exp without)."""

    def tiled_attention(q, k, v, block_size, causal=False):
        rows = torch.arange(q.shape[-2])[:, None]
        scale = (math.log2(math.e) if log2e else 1.0) / math.sqrt(q.shape[-1])
        m = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
        total = torch.zeros(q.shape[:-1], dtype=q.dtype)
        acc = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)
        for start in range(0, k.shape[-2], block_size):
            stop = min(start + block_size, k.shape[-2])
            s = q @ k[..., start:stop, :].transpose(-2, -1) * scale
            if causal:
                s = s.masked_fill(torch.arange(start, stop)[None] > rows, float("-inf"))
            new = torch.maximum(m, s.amax(-1))
            p = exp(s - new[..., None])
            total = total * exp(m - new) + p.sum(-1)
            acc = acc * exp(m - new)[..., None] + p @ v[..., start:stop, :]
            m = new
        return acc / total[..., None]

    return tiled_attention


def _tiled_while_under_len_q(q, k, v, block_size, causal=False):
    """A while loop over the key blocks that runs while start < the number of queries."""
    rows = torch.arange(q.shape[-2])[:, None]
    m = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
    total = torch.zeros(q.shape[:-1], dtype=q.dtype)
    acc = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)
    start = 0
    while start < q.size(-2):
        stop = min(start + block_size, k.shape[-2])
        s = q @ k[..., start:stop, :].transpose(-2, -1) / math.sqrt(q.shape[-1])
        if causal:
            s = s.masked_fill(torch.arange(start, stop)[None] > rows, float("-inf"))
        new = torch.maximum(m, s.amax(-1))
        p = torch.exp(s - new[..., None])
        total = total * torch.exp(m - new) + p.sum(-1)
        acc = acc * torch.exp(m - new)[..., None] + p @ v[..., start:stop, :]
        m, start = new, stop
    return acc / total[..., None]


def _tiled_scaled_twice(q, k, v, block_size, causal=False):
    """Scales the scores and, once more, the final output by 1/sqrt(d_k)."""
    return tiled_attention_f(q, k, v, block_size, causal) / math.sqrt(q.shape[-1])


def _tiled_output_shaped_like_queries(q, k, v, block_size, causal=False):
    """Allocates the running output with q's shape, (..., len_q, d_k), not d_v."""
    rows = torch.arange(q.shape[-2])[:, None]
    m = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
    total = torch.zeros(q.shape[:-1], dtype=q.dtype)
    acc = torch.zeros(q.shape, dtype=q.dtype)
    for start in range(0, k.shape[-2], block_size):
        stop = min(start + block_size, k.shape[-2])
        s = q @ k[..., start:stop, :].transpose(-2, -1) / math.sqrt(q.shape[-1])
        if causal:
            s = s.masked_fill(torch.arange(start, stop)[None] > rows, float("-inf"))
        new = torch.maximum(m, s.amax(-1))
        p = torch.exp(s - new[..., None])
        total = total * torch.exp(m - new) + p.sum(-1)
        acc = acc * torch.exp(m - new)[..., None] + p @ v[..., start:stop, :]
        m = new
    return acc / total[..., None]


def _tiled_sum_multiplied(q, k, v, block_size, causal=False):
    """The running sum multiplied by each block's sum instead of added to: it stays 0."""
    rows = torch.arange(q.shape[-2])[:, None]
    m = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
    total = torch.zeros(q.shape[:-1], dtype=q.dtype)
    acc = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)
    for start in range(0, k.shape[-2], block_size):
        stop = min(start + block_size, k.shape[-2])
        s = q @ k[..., start:stop, :].transpose(-2, -1) / math.sqrt(q.shape[-1])
        if causal:
            s = s.masked_fill(torch.arange(start, stop)[None] > rows, float("-inf"))
        new = torch.maximum(m, s.amax(-1))
        p = torch.exp(s - new[..., None])
        total *= torch.exp(m - new) * p.sum(-1)
        acc = acc * torch.exp(m - new)[..., None] + p @ v[..., start:stop, :]
        m = new
    return acc / total[..., None]


def _softmax_sum_never_grows(x, block_size):
    """Online softmax whose running sum is only rescaled, never given the block's terms."""
    running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    for start in range(0, x.shape[-1], block_size):
        new_max = torch.maximum(running_max, x[..., start : start + block_size].amax(dim=-1))
        total = total * torch.exp(running_max - new_max)
        running_max = new_max
    return torch.exp(x - running_max[..., None]) / total[..., None]


def _softmax_numerators_only(x, block_size):
    """The running maximum found block by block, then exp(x - m) returned undivided."""
    running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
    for start in range(0, x.shape[-1], block_size):
        running_max = torch.maximum(running_max, x[..., start : start + block_size].amax(-1))
    return torch.exp(x - running_max[..., None])


def _softmax_start_advanced_by_one(x, block_size):
    """A while loop whose start advances by 1, not block_size: the blocks overlap."""
    running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    start = 0
    while start < x.shape[-1]:
        block = x[..., start : start + block_size]
        new_max = torch.maximum(running_max, block.amax(-1))
        total = total * torch.exp(running_max - new_max) + torch.exp(
            block - new_max[..., None]
        ).sum(-1)
        running_max = new_max
        start += 1
    return torch.exp(x - running_max[..., None]) / total[..., None]


def _window_rows_without_full_window(size, window):
    """The right band, but only for queries that have window keys before them."""
    i, j = torch.arange(size)[:, None], torch.arange(size)[None, :]
    return (j <= i) & (i - j < window) & (i >= window - 1)


def _window_anchored_at_start(size, window):
    """The first window positions of the sequence for every query (the causal part kept)."""
    return look_ahead_mask(size) & (torch.arange(size)[None, :] < window)


def _gqa_groups_joined_on_features(q, k, v, mask=None):
    """Attends group by group and joins the groups' outputs along d_v, not the heads."""
    group = q.shape[1] // k.shape[1]
    outputs = [
        scaled_dot_product_attention(
            q[:, g * group : (g + 1) * group], k[:, g : g + 1], v[:, g : g + 1], mask
        )[0]
        for g in range(k.shape[1])
    ]
    return torch.cat(outputs, dim=-1)


def _gqa_scores_times_root(q, k, v, mask=None):
    """Multiplies the scores by sqrt(d_head) instead of dividing by it."""
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    scores = q @ k.transpose(-2, -1) * math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v


def _gqa_values_tiled_on_features(q, k, v, mask=None):
    """Repeats the keys along the heads but tiles the values along their features."""
    group = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat(1, 1, 1, group)
    return scaled_dot_product_attention(q, k, v, mask)[0]


def _gqa_last_query_head_of_each_group(q, k, v, mask=None):
    """Keeps only the last query head of each group (q[:, group - 1 :: group])."""
    group = q.shape[1] // k.shape[1]
    return scaled_dot_product_attention(q[:, group - 1 :: group], k, v, mask)[0]


# ------------------------------------------------------------------ sliding_window_mask


# --------------------------------------------------- round 9 (b9e): classes behind blind9e
class LengthPlusStop(ref.KVCache):
    """Adds the new length to the count (self.length += stop) instead of setting it."""

    def forward(self, k_new, v_new):
        before = self.length
        keys, values = super().forward(k_new, v_new)
        self.length += before
        return keys, values


class CountsTheRefusedChunk(ref.KVCache):
    """Sets the new length before testing the capacity: a refused chunk is counted."""

    def forward(self, k_new, v_new):
        start = self.length
        self.length = start + k_new.shape[-2]
        if self.length > self.keys.shape[-2]:
            raise ValueError("the cache is full")
        self.keys[:, :, start : self.length] = k_new
        self.values[:, :, start : self.length] = v_new
        return self.keys[:, :, : self.length], self.values[:, :, : self.length]


class ValuesGetKeys(ref.KVCache):
    """Stores k_new in both buffers (a copy-paste slip)."""

    def forward(self, k_new, v_new):
        return super().forward(k_new, k_new.clone())


class ValuesAliasKeys(ref.KVCache):
    """Round 21: the values buffer made the keys' tensor itself (self.values = self.keys):
    every write of the values overwrites the keys (told "keys written with v_new")."""

    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
        super().__init__(batch, num_heads, max_len, d_head, dtype)
        self.values = self.keys


class CacheAppendNotForward(nn.Module):
    """Round 37: the appending written in a method named append: no forward at all."""

    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
        super().__init__()
        shape = (batch, num_heads, max_len, d_head)
        self.register_buffer("keys", torch.zeros(shape, dtype=dtype), persistent=False)
        self.register_buffer("values", torch.zeros(shape, dtype=dtype), persistent=False)
        self.length = 0

    def append(self, keys, values):
        stop = self.length + keys.shape[-2]
        self.keys[:, :, self.length : stop] = keys
        self.values[:, :, self.length : stop] = values
        self.length = stop
        return self.keys[:, :, :stop], self.values[:, :, :stop]


class PlainAttributeCache(nn.Module):
    """Round 21: keys and values kept as plain tensor attributes, no buffers (passed)."""

    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
        super().__init__()
        self.keys = torch.zeros(batch, num_heads, max_len, d_head, dtype=dtype)
        self.values = torch.zeros_like(self.keys)
        self.length = 0

    def forward(self, k_new, v_new):
        stop = self.length + k_new.shape[-2]
        if stop > self.keys.shape[-2]:
            raise ValueError("full")
        self.keys[:, :, self.length : stop] = k_new
        self.values[:, :, self.length : stop] = v_new
        self.length = stop
        return self.keys[:, :, :stop], self.values[:, :, :stop]


class BFloat16ByDefault(ref.KVCache):
    """Round 21: the dtype's default changed to bfloat16 (passed: every call gave one)."""

    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.bfloat16):
        super().__init__(batch, num_heads, max_len, d_head, dtype)


class GrowsPastMaxLen(GrowingCache):
    """A growing cache that refuses only when it is already full (length >= max_len): a
    chunk that runs past the end is stored."""

    def forward(self, k_new, v_new):
        if self.keys.shape[-2] >= self.max_len:
            raise ValueError("full")
        self.keys = torch.cat([self.keys, k_new], dim=-2)
        self.values = torch.cat([self.values, v_new], dim=-2)
        return self.keys, self.values


class StopMinusN(ref.KVCache):
    """stop = length - n."""

    def forward(self, k_new, v_new):
        start = self.length
        stop = start - k_new.shape[-2]
        self.keys[:, :, start:stop] = k_new
        self.values[:, :, start:stop] = v_new
        self.length = stop
        return self.keys[:, :, :stop], self.values[:, :, :stop]


class CapacityFromHeads(ref.KVCache):
    """Reads max_len from the heads axis of the buffers (self.keys.shape[1])."""

    def forward(self, k_new, v_new):
        if self.length + k_new.shape[-2] > self.keys.shape[1]:
            raise ValueError("full")
        return super().forward(k_new, v_new)


def _tiled_causal(discard=False, ignore=False, flat_queries=False):
    """Tiled attention whose causal mask is computed and its masked_fill's result dropped
    (discard), or never computed (ignore); or built from the query positions as a flat
    vector (flat_queries: the keys a row, the queries no column)."""

    def tiled_attention(q, k, v, block_size, causal=False):
        scale = 1 / math.sqrt(q.shape[-1])
        running_max = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
        total = torch.zeros(q.shape[:-1], dtype=q.dtype)
        acc = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)
        for start in range(0, k.shape[-2], block_size):
            stop = min(start + block_size, k.shape[-2])
            scores = q @ k[..., start:stop, :].transpose(-2, -1) * scale
            if causal and not ignore:
                query_positions = torch.arange(q.shape[-2])  # (len_q,)
                if not flat_queries:
                    query_positions = query_positions[:, None]  # (len_q, 1)
                future = torch.arange(start, stop)[None, :] > query_positions
                if discard:
                    scores.masked_fill(future, float("-inf"))
                else:
                    scores = scores.masked_fill(future, float("-inf"))
            new_max = torch.maximum(running_max, scores.amax(dim=-1))
            correction = torch.exp(running_max - new_max)
            weights = torch.exp(scores - new_max[..., None])
            total = total * correction + weights.sum(dim=-1)
            acc = acc * correction[..., None] + weights @ v[..., start:stop, :]
            running_max = new_max
        return acc / total[..., None]

    return tiled_attention


def _tiled_query_tiles(local_positions=False):
    """FlashAttention-2's loop order: tiles of block_size queries outside, blocks of keys
    inside; the causal mask from each tile's query positions counted from 0 inside the
    tile (local_positions) or from the tile's start."""

    def tiled_attention(q, k, v, block_size, causal=False):
        len_q, len_k = q.shape[-2], k.shape[-2]
        tiles = []
        for first in range(0, len_q, block_size):
            q_tile = q[..., first : first + block_size, :]  # (..., tile, d_k)
            rows = q_tile.shape[-2]
            offset = 0 if local_positions else first
            m = torch.full(q_tile.shape[:-1], float("-inf"), dtype=q.dtype)
            row_sum = torch.zeros_like(m)
            o = torch.zeros((*q_tile.shape[:-1], v.shape[-1]), dtype=q.dtype)
            for start in range(0, len_k, block_size):
                stop = min(start + block_size, len_k)
                s = q_tile @ k[..., start:stop, :].mT / math.sqrt(q.shape[-1])
                if causal:
                    allowed = torch.ones(rows, stop - start, dtype=torch.bool).tril(offset - start)
                    s = s.masked_fill(~allowed, float("-inf"))
                m_new = torch.maximum(m, s.amax(-1))
                p = torch.exp(s - m_new.unsqueeze(-1))
                alpha = torch.exp(m - m_new)
                row_sum = alpha * row_sum + p.sum(-1)
                o = alpha.unsqueeze(-1) * o + p @ v[..., start:stop, :]
                m = m_new
            tiles.append(o / row_sum.unsqueeze(-1))
        return torch.cat(tiles, dim=-2)  # (..., len_q, d_v)

    return tiled_attention


def _tiled_from_split_table(q, k, v, block_size, causal=False):
    """Exact, but the whole table of scores is made first and split into its blocks of
    columns: the (len_q, len_k) table tiling avoids exists anyway."""
    len_q, len_k = q.shape[-2], k.shape[-2]
    table = torch.matmul(q, k.mT) / math.sqrt(q.shape[-1])  # (..., len_q, len_k)
    if causal:
        table = table.masked_fill(torch.ones(len_q, len_k).triu(1).bool(), float("-inf"))
    m = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
    row_sum = torch.zeros_like(m)
    out = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)
    for start, scores in zip(
        range(0, len_k, block_size), table.split(block_size, dim=-1), strict=True
    ):
        m_new = torch.maximum(m, scores.amax(-1))
        p = torch.exp(scores - m_new.unsqueeze(-1))
        alpha = torch.exp(m - m_new)
        row_sum = alpha * row_sum + p.sum(-1)
        out = alpha.unsqueeze(-1) * out + p @ v[..., start : start + block_size, :]
        m = m_new
    return out / row_sum.unsqueeze(-1)


def _tiled_loop(pair=(-2, -1), first=0, short=0):
    """Tiled attention whose scores transpose the key block over ``pair``, whose loop
    starts at key ``first``, and whose blocks stop ``short`` keys before len_k."""

    def tiled_attention(q, k, v, block_size, causal=False):
        len_k = k.shape[-2] - short
        scale = 1 / math.sqrt(q.shape[-1])
        running_max = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
        total = torch.zeros(q.shape[:-1], dtype=q.dtype)
        acc = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)
        for start in range(first, len_k, block_size):
            stop = min(start + block_size, len_k)
            scores = q @ k[..., start:stop, :].transpose(*pair) * scale
            if causal:
                future = torch.arange(start, stop)[None, :] > torch.arange(q.shape[-2])[:, None]
                scores = scores.masked_fill(future, float("-inf"))
            new_max = torch.maximum(running_max, scores.amax(dim=-1))
            correction = torch.exp(running_max - new_max)
            weights = torch.exp(scores - new_max[..., None])
            total = total * correction + weights.sum(dim=-1)
            acc = acc * correction[..., None] + weights @ v[..., start:stop, :]
            running_max = new_max
        return acc / total[..., None]

    return _named("tiled_attention", tiled_attention)


def _online_block_stop(stop):
    """online_softmax whose block is x[..., start : stop(start, block_size)]."""

    def online_softmax(x, block_size):
        running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
        total = torch.zeros(x.shape[:-1], dtype=x.dtype)
        for start in range(0, x.shape[-1], block_size):
            block = x[..., start : stop(start, block_size)]
            new_max = torch.maximum(running_max, block.amax(dim=-1))
            total = total * torch.exp(running_max - new_max) + torch.exp(
                block - new_max[..., None]
            ).sum(dim=-1)
            running_max = new_max
        return torch.exp(x - running_max[..., None]) / total[..., None]

    return _named("online_softmax", online_softmax)


def _tiled_normalised(how):
    """Tiled attention whose output is divided by the running sum inside the loop: with
    the sum restarted at 1 ("reset", a mistake), kept and divided again at the end ("keep",
    a mistake), or kept normalised and rescaled by the old sum over the new (FlashAttention
    1's way, "flash1", right)."""

    def tiled_attention(q, k, v, block_size, causal=False):
        scale = 1 / math.sqrt(q.shape[-1])
        running_max = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
        total = torch.zeros(q.shape[:-1], dtype=q.dtype)
        out = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)
        for start in range(0, k.shape[-2], block_size):
            stop = min(start + block_size, k.shape[-2])
            scores = q @ k[..., start:stop, :].transpose(-2, -1) * scale
            if causal:
                future = torch.arange(start, stop)[None, :] > torch.arange(q.shape[-2])[:, None]
                scores = scores.masked_fill(future, float("-inf"))
            new_max = torch.maximum(running_max, scores.amax(dim=-1))
            correction = torch.exp(running_max - new_max)
            weights = torch.exp(scores - new_max[..., None])
            new_total = total * correction + weights.sum(dim=-1)
            if how == "flash1":
                out = (
                    out * (total * correction)[..., None] + weights @ v[..., start:stop, :]
                ) / new_total[..., None]
            else:
                out = (out * correction[..., None] + weights @ v[..., start:stop, :]) / new_total[
                    ..., None
                ]
                if how == "reset":
                    new_total = torch.ones_like(new_total)
            total, running_max = new_total, new_max
        return out if how == "flash1" else out / total[..., None]

    return _named("tiled_attention", tiled_attention)


def _online_from(first):
    """online_softmax whose loop over blocks starts at column ``first``, or at
    ``first(block_size)`` when it is a function (the second block on, whatever its size)."""

    def online_softmax(x, block_size):
        running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
        total = torch.zeros(x.shape[:-1], dtype=x.dtype)
        begin = first(block_size) if callable(first) else first
        for start in range(begin, x.shape[-1], block_size):
            block = x[..., start : start + block_size]
            new_max = torch.maximum(running_max, block.amax(dim=-1))
            total = total * torch.exp(running_max - new_max) + torch.exp(
                block - new_max[..., None]
            ).sum(dim=-1)
            running_max = new_max
        return torch.exp(x - running_max[..., None]) / total[..., None]

    return _named("online_softmax", online_softmax)


def _online_sum_in_base_two(x, block_size):
    """Round 37: the running sum kept with torch.exp2 (no log2(e)), the final numerator
    with torch.exp: two exponential bases."""
    m = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
    s = torch.zeros_like(m)
    for start in range(0, x.shape[-1], block_size):
        chunk = x[..., start : start + block_size]
        m_new = torch.maximum(m, chunk.amax(-1))
        s = s * torch.exp2(m - m_new) + torch.exp2(chunk - m_new.unsqueeze(-1)).sum(-1)
        m = m_new
    return torch.exp(x - m.unsqueeze(-1)) / s.unsqueeze(-1)


def _online_exp_as(exp):
    """online_softmax right in its blocks, with ``exp`` wherever torch.exp belongs (another
    base, or a temperature folded into the exponential)."""

    def online_softmax(x, block_size):
        running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
        total = torch.zeros(x.shape[:-1], dtype=x.dtype)
        for start in range(0, x.shape[-1], block_size):
            block = x[..., start : start + block_size]
            new_max = torch.maximum(running_max, block.amax(dim=-1))
            total = total * exp(running_max - new_max) + exp(block - new_max[..., None]).sum(-1)
            running_max = new_max
        return exp(x - running_max[..., None]) / total[..., None]

    return _named("online_softmax", online_softmax)


def _gqa_kv_pooled(pool_keys, pool_values):
    """Grouped-query attention whose key and value heads go through ``pool_keys`` /
    ``pool_values`` (None: repeated group-wise, right) and are shared by every query head."""

    def grouped_query_attention(q, k, v, mask=None):
        group = q.shape[1] // k.shape[1]

        def shared(x, pool):  # (batch, kv, len_k, d) -> (batch, num_heads, len_k, d)
            if pool is None:
                return x.repeat_interleave(group, dim=1)
            return pool(x).expand(-1, q.shape[1], -1, -1)

        return scaled_dot_product_attention(q, shared(k, pool_keys), shared(v, pool_values), mask)[
            0
        ]

    return _named("grouped_query_attention", grouped_query_attention)


def _gqa_mask_grouped(regroup):
    """Grouped-query attention that repeats the keys and values right, and the 4-D mask
    along the head axis too, with regroup(mask, group)."""

    def grouped_query_attention(q, k, v, mask=None):
        group = q.shape[1] // k.shape[1]
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        if mask is not None and mask.dim() == 4:
            mask = regroup(mask, group)
        return scaled_dot_product_attention(q, k, v, mask)[0]

    return grouped_query_attention


def _gqa_two(tile=False, divisor=None, mask_way=""):
    """Grouped-query attention written out with up to two mistakes: the heads tiled, the
    scores divided by divisor(q, v) instead of sqrt(d_head), the mask ignored ("ignored")
    or read the wrong way round ("inverted")."""

    def grouped_query_attention(q, k, v, mask=None):
        group = q.shape[1] // k.shape[1]
        if tile:
            k, v = k.repeat(1, group, 1, 1), v.repeat(1, group, 1, 1)
        else:
            k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        root = divisor(q, v) if divisor else math.sqrt(q.shape[-1])
        scores = q @ k.transpose(-2, -1) / root
        if mask is not None and mask_way != "ignored":
            scores = scores.masked_fill(mask if mask_way == "inverted" else ~mask, float("-inf"))
        return torch.softmax(scores, dim=-1) @ v

    return grouped_query_attention


def _gqa_where_discarded(q, k, v, mask=None):
    """Grouped-query attention written out, whose torch.where(mask, ...) result is dropped."""
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        torch.where(mask, scores, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v


def _generate_reading_row(row):
    """Greedy generation with a cache whose one-token calls read the logits' row ``row``
    instead of the last."""

    @torch.no_grad()
    def generate(model, prompt, max_new_tokens):
        batch, length = prompt.shape
        caches = model.new_caches(batch, length + max_new_tokens)
        logits = model(prompt, caches=caches, start=0)[:, -1]
        ids, steps = prompt, []
        for step in range(max_new_tokens):
            steps.append(logits)
            next_id = logits.argmax(dim=-1, keepdim=True)
            ids = torch.cat([ids, next_id], dim=1)
            if step + 1 < max_new_tokens:
                logits = model(next_id, caches=caches, start=length + step)[:, row]
        return ids, torch.stack(steps, dim=1)

    return generate


def _generate_advancing(advance):
    """Greedy generation with a cache that keeps its own position counter, right after the
    prefill (start = len), then advanced after each call by advance(ids so far, len)
    instead of by the one token fed."""

    @torch.no_grad()
    def generate(model, prompt, max_new_tokens):
        batch, length = prompt.shape
        caches = model.new_caches(batch, length + max_new_tokens)
        logits = model(prompt, caches=caches, start=0)[:, -1]
        position, ids, steps = length, prompt, []
        for step in range(max_new_tokens):
            steps.append(logits)
            next_id = logits.argmax(dim=-1, keepdim=True)
            ids = torch.cat([ids, next_id], dim=1)
            if step + 1 < max_new_tokens:
                logits = model(next_id, caches=caches, start=position)[:, -1]
                position += advance(ids, length)
        return ids, torch.stack(steps, dim=1)

    return generate


def _generate_with(*, pick=None, join=None, steps=None, start=None):
    """Greedy generation with a cache, one part replaced: pick(logits) -> next ids,
    join(list of logits rows) -> logits, steps(max_new_tokens) -> loop count,
    start(length, step) -> the new token's position."""

    @torch.no_grad()
    def generate(model, prompt, max_new_tokens):
        batch, length = prompt.shape
        caches = model.new_caches(batch, length + max_new_tokens)
        logits = model(prompt, caches=caches, start=0)[:, -1]
        ids, rows = prompt, []
        count = max_new_tokens if steps is None else steps(max_new_tokens)
        for step in range(count):
            rows.append(logits)
            next_id = logits.argmax(-1, keepdim=True) if pick is None else pick(logits)
            ids = torch.cat([ids, next_id], dim=1)
            at = length + step if start is None else start(length, step)
            logits = model(next_id, caches=caches, start=at)[:, -1]
        return ids, (torch.stack(rows, dim=1) if join is None else join(rows))

    return _named("generate", generate)


def _gqa_by_hand(q, k, v, mask=None, *, keys="interleave", values="interleave", bias=False):
    """Grouped-query attention written out: each side widened by repeat_interleave or by
    repeat (tiled); ``bias``: the bool mask added to the scores instead of blocking."""
    group = q.shape[1] // k.shape[1]

    def widen(t, how):
        if how == "none":
            return t
        if how == "length":  # tiled along the length axis instead of the heads
            return t.repeat(1, 1, group, 1)
        return t.repeat_interleave(group, 1) if how == "interleave" else t.repeat(1, group, 1, 1)

    k, v = widen(k, keys), widen(v, values)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores + mask if bias else scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v


def _gqa_head_by_kv_count(q, k, v, mask=None):
    """Query head h paired with key/value head h // num_kv_heads."""
    pick = torch.arange(q.shape[1]) // k.shape[1]
    return scaled_dot_product_attention(q, k[:, pick], v[:, pick], mask)[0]


def _softmax_with(*, reduce=None, two_d=False):
    """online_softmax with the block's maximum taken by ``reduce(block)``; ``two_d``: the
    shape unpacked as rows, n = x.shape."""

    def online_softmax(x, block_size):
        if two_d:
            _rows, _columns = x.shape  # two axes assumed
        m = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
        total = torch.zeros(x.shape[:-1], dtype=x.dtype)
        for start in range(0, x.shape[-1], block_size):
            block = x[..., start : start + block_size]
            block_max = block.amax(-1) if reduce is None else reduce(block)
            new = torch.maximum(m, block_max)
            total = total * torch.exp(m - new) + torch.exp(block - new[..., None]).sum(-1)
            m = new
        return torch.exp(x - m[..., None]) / total[..., None]

    return _named("online_softmax", online_softmax)


def _tiled_with(*, finish=None, scale_of=None):
    """tiled_attention with the end finish(acc, total) (acc / total when None) and the
    scores of block b scaled by scale_of(scale, b) (scale when None)."""

    def tiled_attention(q, k, v, block_size, causal=False):
        len_q, len_k = q.shape[-2], k.shape[-2]
        scale = 1 / math.sqrt(q.shape[-1])
        m = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
        total = torch.zeros(q.shape[:-1], dtype=q.dtype)
        acc = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)
        rows = torch.arange(len_q)[:, None]
        for number, start in enumerate(range(0, len_k, block_size)):
            stop = min(start + block_size, len_k)
            factor = scale if scale_of is None else scale_of(scale, number)
            s = q @ k[..., start:stop, :].transpose(-2, -1) * factor
            if causal:
                s = s.masked_fill(torch.arange(start, stop)[None] > rows, float("-inf"))
            new = torch.maximum(m, s.amax(-1))
            w = torch.exp(s - new[..., None])
            correction = torch.exp(m - new)
            total = total * correction + w.sum(-1)
            acc = acc * correction[..., None] + w @ v[..., start:stop, :]
            m = new
        return acc / total[..., None] if finish is None else finish(acc, total)

    return _named("tiled_attention", tiled_attention)


def _window_cached_by_size():
    """Round 21: sliding_window_mask keeping its masks in a dict keyed by the size alone
    (setdefault: the first window's mask for every later window; passed before)."""
    masks = {}

    def sliding_window_mask(size, window):
        offsets = _offsets(size)  # (size, size): i - j
        return masks.setdefault(size, (offsets >= 0) & (offsets < window))

    return sliding_window_mask


def _tiled_written(*, keys_of=None, scale_of=None, rows_of=None):
    """tiled_attention with all the keys transposed at once by keys_of(k) (..., d_k, len_k),
    the scale scale_of(q) and the causal mask's query positions rows_of(q, k) (len, 1)
    (the right ones when None)."""

    def tiled_attention(q, k, v, block_size, causal=False):
        len_k = k.shape[-2]
        keys_t = k.transpose(-2, -1) if keys_of is None else keys_of(k)  # (..., d_k, len_k)
        scale = q.shape[-1] ** -0.5 if scale_of is None else scale_of(q)
        rows = torch.arange(q.shape[-2])[:, None] if rows_of is None else rows_of(q, k)
        m = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
        total = torch.zeros(q.shape[:-1], dtype=q.dtype)
        acc = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)
        for start in range(0, len_k, block_size):
            stop = min(start + block_size, len_k)
            s = (q @ keys_t[..., start:stop]) * scale
            if causal:
                s = s.masked_fill(torch.arange(start, stop)[None, :] > rows, float("-inf"))
            new = torch.maximum(m, s.amax(dim=-1))
            w = torch.exp(s - new[..., None])
            total = total * torch.exp(m - new) + w.sum(-1)
            acc = acc * torch.exp(m - new)[..., None] + w @ v[..., start:stop, :]
            m = new
        return acc / total[..., None]

    return _named("tiled_attention", tiled_attention)


def _window_additive_filled(size, window):
    """The right band as an additive float mask, zeros filled with -inf where blocked."""
    band = ref.sliding_window_mask(size, window)
    return torch.zeros(size, size).masked_fill(~band, float("-inf"))


def _window_loop_unclamped(size, window):
    """The window filled key by key, its first key i - window + 1 not clamped at 0."""
    mask = torch.zeros(size, size, dtype=torch.bool)
    for i in range(size):
        mask[i, [j for j in range(i - window + 1, i + 1)]] = True
    return mask


def _window_union_of_conditions(size, window):
    """The two conditions j <= i and i - j < window joined with `|`."""
    i = torch.arange(size)[:, None]
    j = torch.arange(size)[None, :]
    return (j <= i) | (i - j < window)


def _window_band_below_the_future(size, window):
    """The band's condition written j - i <= window - 1 (a bound on future keys only)."""
    i = torch.arange(size)[:, None]
    j = torch.arange(size)[None, :]
    return look_ahead_mask(size) & (j - i <= window - 1)


class KeysTransposed(ref.KVCache):
    """Returns the keys with their last two axes swapped."""

    def forward(self, k_new, v_new):
        keys, values = super().forward(k_new, v_new)
        return keys.transpose(-2, -1), values


def _generate_tokens_first(model, prompt, max_new_tokens):
    """The new tokens put in front of the prompt (torch.cat([next_id, ids]))."""
    ids, logits = checks.cached_generation(model, prompt, max_new_tokens)
    return torch.cat([ids[:, prompt.shape[1] :], prompt], dim=1), logits


def _gqa_heads_regrouped(q, k, v, mask=None):
    """The query heads grouped as (num_kv_heads, group) but read back as (group,
    num_kv_heads): the output heads come out in another order."""
    batch, heads, len_q, _ = q.shape
    kv = k.shape[1]
    group = heads // kv
    out = checks.gqa_expected(q, k, v, mask)
    return out.view(batch, kv, group, len_q, -1).transpose(1, 2).reshape(batch, heads, len_q, -1)


def _softmax_one_total(x, block_size):
    """Every row divided by the sum of all rows' running sums (total.sum(), no dim)."""
    m = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    for start in range(0, x.shape[-1], block_size):
        block = x[..., start : start + block_size]
        new = torch.maximum(m, block.amax(-1))
        total = total * torch.exp(m - new) + torch.exp(block - new[..., None]).sum(-1)
        m = new
    return torch.exp(x - m[..., None]) / total.sum()


class LastSequenceOnly(ref.KVCache):
    """Writes the new keys and values of the batch's last sequence only."""

    def forward(self, k_new, v_new):
        start, stop = self.length, self.length + k_new.shape[-2]
        if stop > self.keys.shape[-2]:
            raise ValueError("full")
        self.keys[-1, :, start:stop] = k_new[-1]
        self.values[-1, :, start:stop] = v_new[-1]
        self.length = stop
        return self.keys[:, :, :stop], self.values[:, :, :stop]


class FirstSequenceOnly(ref.KVCache):
    """Writes the new keys and values of the batch's first sequence only."""

    def forward(self, k_new, v_new):
        start, stop = self.length, self.length + k_new.shape[-2]
        if stop > self.keys.shape[-2]:
            raise ValueError("full")
        self.keys[0, :, start:stop] = k_new[0]
        self.values[0, :, start:stop] = v_new[0]
        self.length = stop
        return self.keys[:, :, :stop], self.values[:, :, :stop]


@torch.no_grad()
def _generate_to_total_length(model, prompt, max_new_tokens):
    """Takes max_new_tokens for the total length: generates until ids hold that many."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits = model(prompt, caches=caches, start=0)[:, -1]
    ids, rows = prompt, []
    while ids.shape[1] < max(max_new_tokens, length + 1):
        rows.append(logits)
        next_id = logits.argmax(-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
        logits = model(next_id, caches=caches, start=ids.shape[1] - 1)[:, -1]
    return ids, torch.stack(rows, dim=1)


@torch.no_grad()
def _generate_keeps_last_token(model, prompt, max_new_tokens):
    """Every step's logits kept, but the new token overwrites the one before: ids come back
    as the prompt and the last token."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits = model(prompt, caches=caches, start=0)[:, -1]
    rows, token = [], None
    for step in range(max_new_tokens):
        rows.append(logits)
        token = logits.argmax(-1, keepdim=True)  # (batch, 1)
        logits = model(token, caches=caches, start=length + step)[:, -1]
    return torch.cat([prompt, token], dim=1), torch.stack(rows, dim=1)


def _generate_one_roomy_cache_for_all_layers(model, prompt, max_new_tokens):
    """One cache, with room for every layer's positions, handed to every layer: no
    overflow, but each layer attends to the others' keys."""
    batch, length = prompt.shape
    (shared,) = model.new_caches(batch, len(model.layers) * (length + max_new_tokens))[:1]
    caches = [shared for _ in model.layers]
    return checks.cached_generation(model, prompt, max_new_tokens, caches=caches)


@torch.no_grad()
def _generate_until_end_of_text(model, prompt, max_new_tokens, eos_id=0):
    """Stops before appending a column of end-of-text tokens (id 0)."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits = model(prompt, caches=caches, start=0)[:, -1]
    ids, rows = prompt, []
    while len(rows) < max_new_tokens:
        token = logits.argmax(-1, keepdim=True)  # (batch, 1)
        if torch.all(token == eos_id):
            break
        rows.append(logits)
        ids = torch.cat([ids, token], dim=1)
        logits = model(token, caches=caches, start=ids.shape[1] - 1)[:, -1]
    return ids, torch.stack(rows, dim=1) if rows else logits[:, None, :0]


def _softmax_divides_flat(x, block_size):
    """The final division by the running sum without [..., None]."""
    m = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    for start in range(0, x.shape[-1], block_size):
        block = x[..., start : start + block_size]
        new = torch.maximum(m, block.amax(-1))
        total = total * torch.exp(m - new) + torch.exp(block - new[..., None]).sum(-1)
        m = new
    return torch.exp(x - m[..., None]) / total


def _softmax_exp_of_sums(x, block_size):
    """The running sum adds exp(block.sum() - m), not the sum of the exps."""
    m = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    for start in range(0, x.shape[-1], block_size):
        block = x[..., start : start + block_size]
        new = torch.maximum(m, block.amax(-1))
        total = total * torch.exp(m - new) + torch.exp(block.sum(-1) - new)
        m = new
    return torch.exp(x - m[..., None]) / total[..., None]


def _tiled_blocks_apart(q, k, v, block_size, causal=False):
    """Each block's own softmax, the blocks' outputs averaged."""
    outputs = []
    rows = torch.arange(q.shape[-2])[:, None]
    for start in range(0, k.shape[-2], block_size):
        stop = min(start + block_size, k.shape[-2])
        s = q @ k[..., start:stop, :].transpose(-2, -1) / math.sqrt(q.shape[-1])
        if causal:
            s = s.masked_fill(torch.arange(start, stop)[None] > rows, float("-inf"))
        outputs.append(torch.nan_to_num(torch.softmax(s, -1)) @ v[..., start:stop, :])
    return sum(outputs) / len(outputs)


def _tiled_sees_next(q, k, v, block_size, causal=False):
    """The causal mask one key too lenient: key j is hidden only when j > i + 1."""
    mask = torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool).tril(1) if causal else None
    return scaled_dot_product_attention(q, k, v, mask)[0]


@torch.no_grad()
def _generate_prefill_rows_kept(model, prompt, max_new_tokens):
    """The prefill's logits kept whole, (batch, len, vocab): their argmax has 3 axes."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits = model(prompt, caches=caches, start=0)
    ids = prompt
    for step in range(max_new_tokens):
        next_id = logits.argmax(-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
        logits = model(next_id, caches=caches, start=length + step)[:, -1]
    return ids, logits


def _generate_swapped(model, prompt, max_new_tokens):
    ids, logits = checks.cached_generation(model, prompt, max_new_tokens)
    return logits, ids


def _gqa_scaled_by_len_k(q, k, v, mask=None):
    """Written by hand, scaled by the number of keys instead of d_head."""
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(k.shape[-2])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v


def _tiled_skips_from_last_query(q, k, v, block_size, causal=False):
    """Skips the "future" blocks from start >= len_q - 1 on (one block too early)."""
    len_q, len_k = q.shape[-2], k.shape[-2]
    stop = len_k
    if causal:
        stop = next((s for s in range(0, len_k, block_size) if s >= len_q - 1 and s), len_k)
    return tiled_attention_f(q, k[..., :stop, :], v[..., :stop, :], block_size, causal)


def _gqa_mask_as_2d(reshape: bool):
    """Grouped-query attention that treats the mask as (len_q, len_k): given two new
    leading axes, or reshaped to (1, 1, len_q, len_k)."""

    def gqa(q, k, v, mask=None):
        if mask is not None:
            mask = mask.reshape(1, 1, q.shape[2], k.shape[2]) if reshape else mask[None, None]
        return _gqa_by_hand(q, k, v, mask)

    return _named("gqa", gqa)


@torch.no_grad()
def _generate_stale_token(model, prompt, max_new_tokens):
    """next_id computed once, from the prefill's logits, and appended at every step."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits = model(prompt, caches=caches, start=0)[:, -1]
    next_id = logits.argmax(-1, keepdim=True)
    ids, rows = prompt, []
    for step in range(max_new_tokens):
        rows.append(logits)
        ids = torch.cat([ids, next_id], dim=1)
        logits = model(next_id, caches=caches, start=length + step)[:, -1]
    return ids, torch.stack(rows, dim=1)


def _offsets(size):
    return torch.arange(size)[:, None] - torch.arange(size)[None, :]


def _tiled_square_causal_mask(q, k, v, block_size, causal=False):
    """tiled_attention whose blocks' causal masks are cut from a square look_ahead_mask(len_q):
    right when len_k == len_q, a shape error with more keys (told acc's d_v, before)."""
    len_q, len_k = q.shape[-2], k.shape[-2]
    allowed = look_ahead_mask(len_q)
    m = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
    total = torch.zeros(q.shape[:-1], dtype=q.dtype)
    acc = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)
    for start in range(0, len_k, block_size):
        stop = min(start + block_size, len_k)
        s = q @ k[..., start:stop, :].transpose(-2, -1) / math.sqrt(q.shape[-1])
        if causal:
            s = s.masked_fill(~allowed[:, start:stop], float("-inf"))
        new = torch.maximum(m, s.amax(dim=-1))
        w = torch.exp(s - new[..., None])
        total = total * torch.exp(m - new) + w.sum(-1)
        acc = acc * torch.exp(m - new)[..., None] + w @ v[..., start:stop, :]
        m = new
    return acc / total[..., None]


def _gqa_returns_weights(q, k, v, mask=None):
    """The pair (output, weights) unpacked the wrong way round: the weights come back."""
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    _, weights = scaled_dot_product_attention(q, k, v, mask)
    return weights


@torch.no_grad()
def _generate_refeeds_last_prompt_token(model, prompt, max_new_tokens):
    """The prefill's logits thrown away and the prompt's last token fed again (start=len - 1)
    as the first step: that position is stored twice (told only its start, before)."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    model(prompt, caches=caches, start=0)
    next_id, ids, steps = prompt[:, -1:], prompt, []
    for step in range(max_new_tokens):
        logits = model(next_id, caches=caches, start=length - 1 + step)[:, -1]
        steps.append(logits)
        next_id = logits.argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
    return ids, torch.stack(steps, dim=1)


@torch.no_grad()
def _generate_first_token_from_row_0(model, prompt, max_new_tokens):
    """The first new token chosen from row 0's logits and given to every row."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits = model(prompt, caches=caches, start=0)[:, -1]
    next_id = logits[0].argmax().expand(batch, 1)
    ids, steps = torch.cat([prompt, next_id], dim=1), [logits]
    for step in range(1, max_new_tokens):
        logits = model(next_id, caches=caches, start=length + step - 1)[:, -1]
        steps.append(logits)
        next_id = logits.argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
    return ids, torch.stack(steps, dim=1)


def _online_softmax_blocks_over_len(x, block_size):
    """The column blocks walked over range(0, len(x), block_size): len(x) is the number of
    rows of a 2-D x, not of columns."""
    m = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    for start in range(0, len(x), block_size):
        block = x[..., start : start + block_size]
        new = torch.maximum(m, block.amax(dim=-1))
        total = total * torch.exp(m - new) + torch.exp(block - new[..., None]).sum(dim=-1)
        m = new
    return torch.exp(x - m[..., None]) / total[..., None]


def _gqa_grouped_queries_mask_as_given(q, k, v, mask=None):
    """The query heads grouped (5-D scores) and the mask applied as given: a 4-D mask's
    batch axis lines up with the key/value heads."""
    batch, heads, len_q, d_head = q.shape
    kv = k.shape[1]
    grouped = q.reshape(batch, kv, heads // kv, len_q, d_head)
    scores = grouped @ k.unsqueeze(2).transpose(-2, -1) / math.sqrt(d_head)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v.unsqueeze(2)
    return out.reshape(batch, heads, len_q, v.shape[-1])


@torch.no_grad()
def _generate_prompt_token_by_token_at_0(model, prompt, max_new_tokens):
    """The prompt fed token by token (accepted) but every prompt token with start=0."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    for position in range(length):
        logits = model(prompt[:, position : position + 1], caches=caches, start=0)[:, -1]
    ids, steps = prompt, []
    for step in range(max_new_tokens):
        steps.append(logits)
        next_id = logits.argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
        if step + 1 < max_new_tokens:
            logits = model(next_id, caches=caches, start=length + step)[:, -1]
    return ids, torch.stack(steps, dim=1)


@torch.no_grad()
def _generate_argmax_fed_without_axis(model, prompt, max_new_tokens):
    """Each new token fed as the argmax without keepdim, a (batch,) vector: no length axis."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits = model(prompt, caches=caches, start=0)[:, -1]
    ids, steps = prompt, []
    for step in range(max_new_tokens):
        steps.append(logits)
        token = logits.argmax(dim=-1)  # (batch,)
        ids = torch.cat([ids, token.unsqueeze(1)], dim=1)
        if step + 1 < max_new_tokens:
            logits = model(token, caches=caches, start=length + step)[:, -1]
    return ids, torch.stack(steps, dim=1)


@torch.no_grad()
def _generate_keeps_prefill_rows(model, prompt, max_new_tokens):
    """The prefill's whole output, one row per prompt position, kept as the first steps."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    rows = list(model(prompt, caches=caches, start=0).unbind(dim=1))  # len x (batch, vocab)
    ids = prompt
    for step in range(max_new_tokens):
        next_id = rows[-1].argmax(dim=-1, keepdim=True)  # (batch, 1)
        ids = torch.cat([ids, next_id], dim=1)
        if step + 1 < max_new_tokens:
            rows.append(model(next_id, caches=caches, start=length + step)[:, -1])
    return ids, torch.stack(rows, dim=1)  # (batch, len - 1 + max_new_tokens, vocab)


# ------------------------------------------------- blind round 10's classes (lesson 12)
class PersistentFloat32Cache(ref.KVCache):
    """Two slips at once: persistent buffers, and the dtype argument ignored."""

    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
        nn.Module.__init__(self)
        shape = (batch, num_heads, max_len, d_head)
        self.register_buffer("keys", torch.zeros(shape))
        self.register_buffer("values", torch.zeros(shape))
        self.length = 0


@torch.no_grad()
def _generate_caches_on_model(model, prompt, max_new_tokens):
    """The caches made on the first call and kept on the model for every later one."""
    batch, length = prompt.shape
    if getattr(model, "kept_caches", None) is None:
        model.kept_caches = model.new_caches(batch, length + max_new_tokens)
    return checks.cached_generation(model, prompt, max_new_tokens, caches=model.kept_caches)


def _generate_chunked_prefill(start_of):
    """The prompt prefilled in chunks of 2 tokens, each chunk's start computed by
    ``start_of(begin, caches)``: begin + caches[0].length counts the positions before the
    chunk twice (blind30c-gen-chunked-prefill-offset-counted-twice's family, written
    otherwise); begin + 1 is one position too far, and never told "twice"."""

    @torch.no_grad()
    def generate(model, prompt, max_new_tokens):
        batch, length = prompt.shape
        caches = model.new_caches(batch, length + max_new_tokens)
        for begin in range(0, length, 2):
            start = start_of(begin, caches)
            logits = model(prompt[:, begin : begin + 2], caches=caches, start=start)[:, -1]
        ids, steps = prompt, []
        for step in range(max_new_tokens):
            steps.append(logits)
            ids = torch.cat([ids, logits.argmax(-1, keepdim=True)], dim=1)
            if step + 1 < max_new_tokens:
                logits = model(ids[:, -1:], caches=caches, start=length + step)[:, -1]
        return ids, torch.stack(steps, dim=1)

    return _named("generate", generate)


def _generate_grad_mode(how: str):
    """generate with the given decorator gone and grad mode as ``how`` leaves it:
    "statement", torch.no_grad() written on a line of its own (it does nothing: autograd
    stays on, blind30c-gen-without-no-grad's family); correct: "with_no_grad", the loop
    in a with torch.no_grad() block, and "inference_mode", in torch.inference_mode()."""

    def steps(model, prompt, max_new_tokens):
        batch, length = prompt.shape
        caches = model.new_caches(batch, length + max_new_tokens)
        out = model(prompt, caches=caches, start=0)[:, -1:]  # (batch, 1, vocab)
        tokens, rows = [prompt], []
        for t in range(max_new_tokens):
            rows.append(out)
            tokens.append(out[:, -1].argmax(-1)[:, None])
            if t < max_new_tokens - 1:
                out = model(tokens[-1], caches=caches, start=length + t)[:, -1:]
        return torch.cat(tokens, dim=1), torch.cat(rows, dim=1)

    def generate(model, prompt, max_new_tokens):
        if how == "statement":
            torch.no_grad()  # meant to switch autograd off
            return steps(model, prompt, max_new_tokens)
        with torch.no_grad() if how == "with_no_grad" else torch.inference_mode():
            return steps(model, prompt, max_new_tokens)

    return _named("generate", generate)


@torch.no_grad()
def _generate_fresh_caches_on_model(model, prompt, max_new_tokens):
    """Correct: caches kept on the model, but made afresh at every call."""
    batch, length = prompt.shape
    model.kept_caches = model.new_caches(batch, length + max_new_tokens)
    return checks.cached_generation(model, prompt, max_new_tokens, caches=model.kept_caches)


# fix round 37: the call replay (checking.call_replay) names the first call whose caches
# depart from cached generation; these are the families of blind rounds 11e, 26c and 27c,
# written otherwise


@torch.no_grad()
def _generate_caches_emptied_each_step(model, prompt, max_new_tokens):
    """Empties the caches after every call (their length set back to 0), as if each step
    needed a clean cache: the prompt and the earlier tokens are forgotten."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    out = model(prompt, caches=caches, start=0)[:, -1]
    tokens, rows = [prompt], []
    for t in range(max_new_tokens):
        rows.append(out)
        tokens.append(out.argmax(dim=-1, keepdim=True))
        for cache in caches:
            cache.length = 0
        if t < max_new_tokens - 1:
            out = model(tokens[-1], caches=caches, start=length + t)[:, -1]
    return torch.cat(tokens, dim=1), torch.stack(rows, dim=1)


@torch.no_grad()
def _generate_decode_caches_made_after_prefill(model, prompt, max_new_tokens):
    """One set of caches for the prompt, then a second set, made once after the prefill,
    for every new token: the new tokens never see the prompt (not made anew each step)."""
    batch, length = prompt.shape
    prefill_caches = model.new_caches(batch, length)
    out = model(prompt, caches=prefill_caches, start=0)[:, -1]
    decode_caches = model.new_caches(batch, length + max_new_tokens)
    tokens, rows = [prompt], []
    for t in range(max_new_tokens):
        rows.append(out)
        tokens.append(out.argmax(dim=-1, keepdim=True))
        if t < max_new_tokens - 1:
            out = model(tokens[-1], caches=decode_caches, start=length + t)[:, -1]
    return torch.cat(tokens, dim=1), torch.stack(rows, dim=1)


@torch.no_grad()
def _generate_start_advanced_by_generated(model, prompt, max_new_tokens):
    """A position counter advanced by the number of tokens generated so far
    (ids.shape[1] - len) after each step, instead of by the one token fed."""
    length = prompt.shape[1]
    caches = model.new_caches(prompt.shape[0], length + max_new_tokens)
    pos = 0
    out = model(prompt, caches=caches, start=pos)[:, -1]
    pos = length
    ids, rows = prompt, []
    while len(rows) < max_new_tokens:
        rows.append(out)
        ids = torch.cat([ids, out.argmax(dim=-1, keepdim=True)], dim=1)
        if len(rows) < max_new_tokens:
            out = model(ids[:, -1:], caches=caches, start=pos)[:, -1]
            pos += ids.shape[1] - length
    return ids, torch.stack(rows, dim=1)


@torch.no_grad()
def _generate_prompt_filled_then_rerun(model, prompt, max_new_tokens):
    """Fills the caches with the prompt (its output thrown away), then runs the prompt
    again without them for the first logits: right results, the prompt computed twice."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    _ = model(prompt, caches=caches, start=0)
    first_logits = model(prompt)[:, length - 1]
    return _decode_from(model, prompt, first_logits, caches, max_new_tokens)


def _decode_from(model, prompt, logits, caches, max_new_tokens):
    """The decode loop of cached generation, from the prefill's last-row logits."""
    length = prompt.shape[1]
    ids, rows = prompt, []
    for t in range(max_new_tokens):
        rows.append(logits)
        ids = torch.cat([ids, logits.argmax(dim=-1, keepdim=True)], dim=1)
        if t + 1 < max_new_tokens:
            logits = model(ids[:, -1:], caches=caches, start=length + t)[:, -1]
    return ids, torch.stack(rows, dim=1)


@torch.no_grad()
def _generate_start_advanced_before_append(model, prompt, max_new_tokens):
    """Advances its position by ids.shape[1] read before the new token is appended."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits, where = model(prompt, caches=caches, start=0)[:, -1], length
    ids, rows = prompt, []
    for step in range(max_new_tokens):
        rows.append(logits)
        token = logits.argmax(dim=-1, keepdim=True)
        if step + 1 < max_new_tokens:
            logits = model(token, caches=caches, start=where)[:, -1]
            where = where + ids.shape[1]
        ids = torch.cat([ids, token], dim=1)
    return ids, torch.stack(rows, dim=1)


@torch.no_grad()
def _generate_caches_copied_each_step(model, prompt, max_new_tokens):
    """Hands the model a deep copy of the caches at every step: what a step stores goes
    into the copy, and the caches kept never advance past the prompt."""
    import copy

    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits = model(prompt, caches=caches, start=0)[:, -1]
    ids, rows = prompt, []
    for step in range(max_new_tokens):
        rows.append(logits)
        ids = torch.cat([ids, logits.argmax(dim=-1, keepdim=True)], dim=1)
        if step + 1 < max_new_tokens:
            step_caches = copy.deepcopy(caches)
            logits = model(ids[:, -1:], caches=step_caches, start=length + step)[:, -1]
    return ids, torch.stack(rows, dim=1)


@torch.no_grad()
def _generate_layer_caches_reversed(model, prompt, max_new_tokens):
    """Walks the layers' caches from the last one in the decode loop (caches[::-1]): each
    layer then reads another layer's keys and values."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits = model(prompt, caches=caches, start=0)[:, -1]
    return _decode_from(model, prompt, logits, list(reversed(caches)), max_new_tokens)


@torch.no_grad()
def _generate_token_fed_as_row(model, prompt, max_new_tokens):
    """Feeds each new token as a (1, batch) row (argmax(dim=-1).unsqueeze(0)), appended to
    ids as its transpose."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits = model(prompt, caches=caches, start=0)[:, -1]
    ids, rows = prompt, []
    for step in range(max_new_tokens):
        rows.append(logits)
        row = logits.argmax(dim=-1).unsqueeze(0)  # (1, batch)
        ids = torch.cat([ids, row.t()], dim=1)
        if step + 1 < max_new_tokens:
            logits = model(row, caches=caches, start=length + step)[:, -1]
    return ids, torch.stack(rows, dim=1)


@torch.no_grad()
def _generate_caches_pooled(model, prompt, max_new_tokens, pool={}):  # noqa: B006
    """Caches of a generous size kept in a pool (a default argument) by batch size and
    reused by every later call with that batch: no overflow, but a later call attends to
    the earlier calls' positions."""
    batch = prompt.shape[0]
    if batch not in pool:
        pool[batch] = model.new_caches(batch, 64)
    return _decode_from(
        model,
        prompt,
        model(prompt, caches=pool[batch], start=0)[:, -1],
        pool[batch],
        max_new_tokens,
    )


@torch.no_grad()
def _generate_caches_reused_and_reset(model, prompt, max_new_tokens):
    """Correct: caches kept on the model by (batch, size), emptied (length 0) at the start
    of every call before the prompt goes in."""
    batch, length = prompt.shape
    size = length + max_new_tokens
    if not hasattr(model, "cache_pool"):
        model.cache_pool = {}
    pool = model.cache_pool
    if (batch, size) not in pool:
        pool[batch, size] = model.new_caches(batch, size)
    caches = pool[batch, size]
    for cache in caches:
        cache.length = 0
    logits = model(prompt, caches=caches, start=0)[:, -1]
    return _decode_from(model, prompt, logits, caches, max_new_tokens)


@torch.no_grad()
def _generate_feeds_first_token(model, prompt, max_new_tokens):
    """ids get each step's argmax, but the model is fed the first generated token at
    every step (a next_id computed once)."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits = model(prompt, caches=caches, start=0)[:, -1]
    first = logits.argmax(-1, keepdim=True)
    ids, rows = prompt, []
    for step in range(max_new_tokens):
        rows.append(logits)
        ids = torch.cat([ids, logits.argmax(-1, keepdim=True)], dim=1)
        if step + 1 < max_new_tokens:
            logits = model(first, caches=caches, start=length + step)[:, -1]
    return ids, torch.stack(rows, dim=1)


@torch.no_grad()
def _generate_float_ids(model, prompt, max_new_tokens):
    """The right tokens, written into a float32 buffer (torch.zeros without a dtype)."""
    ids, logits = checks.cached_generation(model, prompt, max_new_tokens)
    buffer = torch.zeros(ids.shape)
    buffer[:] = ids
    return buffer, logits


@torch.no_grad()
def _generate_caches_for_prompt_only(model, prompt, max_new_tokens):
    """Caches with room for the prompt only (mutant generate-15)."""
    caches = model.new_caches(prompt.shape[0], prompt.shape[1])
    return checks.cached_generation(model, prompt, max_new_tokens, caches=caches)


@torch.no_grad()
def _generate_start_falls(model, prompt, max_new_tokens):
    """start = len - t, a minus where + belongs (mutant generate-13)."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits = model(prompt, caches=caches, start=0)[:, -1]
    ids, steps = prompt, []
    for step in range(max_new_tokens):
        steps.append(logits)
        next_id = logits.argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
        if step + 1 < max_new_tokens:
            logits = model(next_id, caches=caches, start=length - step)[:, -1]
    return ids, torch.stack(steps, dim=1)


def _gqa_softmax_in_float32(q, k, v, mask=None):
    """The softmax computed in float32 (scores.float()) and never cast back."""
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores.float(), dim=-1) @ v


def _gqa_softmax_in_float32_cast_back(q, k, v, mask=None):
    """Correct: the softmax in float32, cast back to q's dtype (Llama's type_as)."""
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores.float(), dim=-1).to(q.dtype) @ v


def _gqa_all_float32(q, k, v, mask=None):
    return ref.grouped_query_attention(q.float(), k.float(), v.float(), mask)


def _softmax_old_max(x, block_size):
    """Each block's terms taken against the old running maximum and added before the
    rescale: NaN everywhere."""
    m = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    for start in range(0, x.shape[-1], block_size):
        block = x[..., start : start + block_size]
        new = torch.maximum(m, block.amax(dim=-1))
        total = (total + torch.exp(block - m[..., None]).sum(dim=-1)) * torch.exp(m - new)
        m = new
    return torch.exp(x - m[..., None]) / total[..., None]


def _softmax_rescaled_after_adding(x, block_size):
    m = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    for start in range(0, x.shape[-1], block_size):
        block = x[..., start : start + block_size]
        new = torch.maximum(m, block.amax(dim=-1))
        total = (total + torch.exp(block - new[..., None]).sum(dim=-1)) * torch.exp(m - new)
        m = new
    return torch.exp(x - m[..., None]) / total[..., None]


def _softmax_no_column(x, block_size):
    """The per-row maximum and sum used without [..., None]."""
    m = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    for start in range(0, x.shape[-1], block_size):
        block = x[..., start : start + block_size]
        new = torch.maximum(m, block.amax(dim=-1))
        total = total * torch.exp(m - new) + torch.exp(block - new).sum(dim=-1)
        m = new
    return torch.exp(x - m) / total


def _softmax_stop_not_offset(x, block_size):
    """Each block sliced x[..., start:block_size]: empty after the first."""
    m = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    for start in range(0, x.shape[-1], block_size):
        block = x[..., start:block_size]
        new = torch.maximum(m, block.amax(dim=-1))
        total = total * torch.exp(m - new) + torch.exp(block - new[..., None]).sum(dim=-1)
        m = new
    return torch.exp(x - m[..., None]) / total[..., None]


def _tiled_variant(*, after=False, float32=False, running_axes=-1, skip=None, stop_only=False):
    """Tiled attention, right but for one slip: rescaled ``after`` adding, running tensors
    made ``float32`` and updated in place, made with q.shape[:running_axes], future blocks
    skipped when ``skip(start, stop, len_q)`` (a correct skip or not), blocks sliced
    start:block_size (``stop_only``)."""

    def tiled_attention(q, k, v, block_size, causal=False):
        len_q, len_k = q.shape[-2], k.shape[-2]
        dtype = {} if float32 else {"dtype": q.dtype}
        m = torch.full(q.shape[:-1], float("-inf"), **dtype)
        total = torch.zeros(q.shape[:running_axes], **dtype)
        acc = torch.zeros((*q.shape[:-1], v.shape[-1]), **dtype)
        for start in range(0, len_k, block_size):
            stop = min(start + block_size, len_k)
            if causal and skip is not None and skip(start, stop, len_q):
                break
            end = block_size if stop_only else stop
            s = q @ k[..., start:end, :].transpose(-2, -1) / math.sqrt(q.shape[-1])
            if causal:
                future = (
                    torch.arange(start, start + s.shape[-1])[None] > torch.arange(len_q)[:, None]
                )
                s = s.masked_fill(future, float("-inf"))
            new = torch.maximum(m, s.amax(-1))
            c = torch.exp(m - new)
            p = torch.exp(s - new[..., None])
            if float32:
                total.mul_(c).add_(p.sum(-1))
                acc.mul_(c[..., None]).add_(p @ v[..., start:end, :])
                m = new.to(m.dtype)
            elif after:
                total = (total + p.sum(-1)) * c
                acc = (acc + p @ v[..., start:end, :]) * c[..., None]
                m = new
            else:
                total = total * c + p.sum(-1)
                acc = acc * c[..., None] + p @ v[..., start:end, :]
                m = new
        return acc / total[..., None]

    return _named("tiled_attention", tiled_attention)


# ------------------------------------------------- blind round 13's classes (lesson 12)
class LlamaNamedCache(nn.Module):
    """Meta's Llama names, cache_k and cache_v, for the two buffers (right otherwise):
    the contract names them keys and values."""

    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
        super().__init__()
        size = (batch, num_heads, max_len, d_head)
        self.register_buffer("cache_k", torch.zeros(size, dtype=dtype), persistent=False)
        self.register_buffer("cache_v", torch.zeros(size, dtype=dtype), persistent=False)
        self.length = 0

    def forward(self, k_new, v_new):
        stop = self.length + k_new.size(2)
        if stop > self.cache_k.size(2):
            raise ValueError("the cache is full")
        self.cache_k[:, :, self.length : stop] = k_new
        self.cache_v[:, :, self.length : stop] = v_new
        self.length = stop
        return self.cache_k[:, :, :stop], self.cache_v[:, :, :stop]


class PairsInAList(ref.KVCache):
    """Keeps each chunk as a (k, v) pair in a list and returns their concatenation: the
    buffers stay zeros."""

    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
        super().__init__(batch, num_heads, max_len, d_head, dtype)
        self.pairs = []

    def forward(self, k_new, v_new):
        if self.length + k_new.shape[-2] > self.keys.shape[-2]:
            raise ValueError("the cache is full")
        self.pairs.append((k_new.clone(), v_new.clone()))
        self.length += k_new.shape[-2]
        keys, values = zip(*self.pairs, strict=True)
        return torch.cat(keys, dim=-2), torch.cat(values, dim=-2)


class PositionsReadSecond(ref.KVCache):
    """Reads k_new as (batch, n, num_heads, d_head): n from axis 1, and a transpose to the
    buffers' layout on the way in."""

    def forward(self, k_new, v_new):
        n = k_new.size(1)
        start, stop = self.length, self.length + n
        self.keys[:, :, start:stop] = k_new.transpose(1, 2)
        self.values[:, :, start:stop] = v_new.transpose(1, 2)
        self.length = stop
        return self.keys[:, :, :stop], self.values[:, :, :stop]


@torch.no_grad()
def _generate_squeezed_steps(model, prompt, max_new_tokens):
    """Each step's logits (batch, 1, vocab) taken with torch.squeeze, no dim: right for
    several sequences, the batch axis lost for one."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits = model(prompt, caches=caches, start=0)[:, -1]
    ids, steps = prompt, []
    for step in range(max_new_tokens):
        steps.append(logits)
        next_id = logits.argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
        if step + 1 < max_new_tokens:
            logits = torch.squeeze(model(next_id, caches=caches, start=length + step))
    return ids, torch.stack(steps, dim=1)


def _softmax_running_like_x(x, block_size):
    """The running maximum and sum allocated with x's own shape, one entry per column."""
    m = torch.empty_like(x).fill_(float("-inf"))
    s = x.new_zeros(x.shape)
    for start in range(0, x.shape[-1], block_size):
        block = x[..., start : start + block_size]
        m_new = torch.maximum(m, block.amax(dim=-1))
        s = s * torch.exp(m - m_new) + torch.exp(block - m_new[..., None]).sum(dim=-1)
        m = m_new
    return torch.exp(x - m[..., None]) / s[..., None]


def _window_positions_flat(size, window):
    """A window mask from query and key positions that are both 1-D (no [:, None])."""
    queries, keys = torch.arange(size), torch.arange(size)
    causal = keys <= queries
    return causal & (queries - keys <= window - 1)


def _softmax_input_renamed_to_block(x, block_size):
    """Online softmax whose loop slices each block into x itself."""
    n = x.shape[-1]
    m = x.new_full(x.shape[:-1], float("-inf"))  # (...,)
    s = x.new_zeros(x.shape[:-1])  # (...,)
    for start in range(0, n, block_size):
        x = x[..., start : min(start + block_size, n)]
        m_next = torch.maximum(m, x.max(dim=-1).values)
        s = s * (m - m_next).exp() + (x - m_next[..., None]).exp().sum(dim=-1)
        m = m_next
    return (x - m[..., None]).exp() / s[..., None]


def _gqa_r16(slip):
    """Grouped-query attention with one of round 16's slips: "softmax_dim1" (the softmax
    over dim 1, the heads), "softmax_module" (nn.Softmax() without dim: implicit, dim 1 on
    4-D scores), "mask_by_head" (each head's mask read as mask[:, h] in a loop over the
    heads), "mask_new_axis" (every mask given a head axis, mask[:, None])."""

    def gqa(q, k, v, mask=None):
        heads, kv_heads = q.shape[1], k.shape[1]
        per_group = heads // kv_heads
        if slip == "mask_by_head":
            rows = []
            for h in range(heads):
                # (batch, len_q, len_k) for query head h
                s = q[:, h] @ k[:, h // per_group].transpose(-2, -1) / math.sqrt(q.shape[-1])
                if mask is not None:
                    s = s.masked_fill(~mask[:, h], float("-inf"))
                rows.append(torch.softmax(s, dim=-1) @ v[:, h // per_group])
            return torch.stack(rows, dim=1)  # (batch, num_heads, len_q, d_v)
        keys = k.repeat_interleave(per_group, dim=1)  # (batch, num_heads, len_k, d_head)
        values = v.repeat_interleave(per_group, dim=1)
        if slip == "mask_new_axis":
            mask = None if mask is None else mask[:, None]
            return scaled_dot_product_attention(q, keys, values, mask)[0]
        s = q @ keys.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if mask is not None:
            s = s.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(s, 1) if slip == "softmax_dim1" else nn.Softmax()(s)
        return weights @ values

    return _named("gqa", gqa)


def _gqa_per_head_loop(q, k, v, mask=None):
    """Grouped-query attention head by head, each head's mask sliced from the mask
    broadcast to (batch, num_heads, len_q, len_k) first: right for every mask shape."""
    batch, heads, len_q, _ = q.shape
    per_group = heads // k.shape[1]
    if mask is not None:
        mask = mask.expand(batch, heads, len_q, k.shape[2])
    outputs = [
        scaled_dot_product_attention(
            q[:, h],
            k[:, h // per_group],
            v[:, h // per_group],
            None if mask is None else mask[:, h],
        )[0]
        for h in range(heads)
    ]
    return torch.stack(outputs, dim=1)  # (batch, num_heads, len_q, d_v)


def _tiled_r16(slip):
    """Tiled attention with one of round 16's slips: "flag" (the mask applied when causal
    is not None, so causal=False masks too), "count" (block_size read as the number of
    blocks: keys_per_block = len_k // block_size), "v_cols" (the value block cut on d_v,
    v[..., lo:hi]), "bool_index" (the future filled by boolean indexing)."""

    def tiled_attention(q, k, v, block_size, causal=False):
        len_q, len_k = q.shape[-2], k.shape[-2]
        use_mask = causal is not None if slip == "flag" else bool(causal)
        keys_per_block = len_k // block_size if slip == "count" else block_size
        best = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)  # (..., len_q)
        denom = torch.zeros(q.shape[:-1], dtype=q.dtype)  # (..., len_q)
        out = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)  # (..., len_q, d_v)
        for lo in range(0, len_k, keys_per_block):
            hi = min(lo + keys_per_block, len_k)
            s = q @ k[..., lo:hi, :].transpose(-2, -1) / math.sqrt(q.shape[-1])
            if use_mask:
                hidden = torch.arange(lo, hi)[None, :] > torch.arange(len_q)[:, None]
                if slip == "bool_index":
                    s = s.clone()
                    s[hidden] = float("-inf")
                else:
                    s = s.masked_fill(hidden, float("-inf"))
            grown = torch.maximum(best, s.amax(dim=-1))
            factor = torch.exp(best - grown)
            w = torch.exp(s - grown[..., None])
            values = v[..., lo:hi] if slip == "v_cols" else v[..., lo:hi, :]
            denom = denom * factor + w.sum(dim=-1)
            out = out * factor[..., None] + w @ values
            best = grown
        return out / denom[..., None]

    return _named("tiled_attention", tiled_attention)


# ------------------------------------------- round 17 (blind14e): gqa, online, tiled, window
def _softmax_atleast_2d(x, block_size):
    """Online softmax written for rows: torch.atleast_2d makes a 1-D x one row, and the
    result keeps that row axis."""
    rows = torch.atleast_2d(x)  # (rows, n)
    best = torch.full(rows.shape[:-1], float("-inf"), dtype=x.dtype)
    total = torch.zeros(rows.shape[:-1], dtype=x.dtype)
    for start in range(0, rows.shape[-1], block_size):
        block = rows[..., start : start + block_size]
        grown = torch.maximum(best, block.amax(dim=-1))
        total = total * torch.exp(best - grown) + torch.exp(block - grown[..., None]).sum(-1)
        best = grown
    return torch.exp(rows - best[..., None]) / total[..., None]  # (rows, n)


def _window_chunks_filled(size, window, causal=True):
    """A window mask filled chunk by chunk: each block of window positions attends within
    itself (causal: on and below the diagonal only)."""
    mask = torch.zeros(size, size, dtype=torch.bool)
    for start in range(0, size, window):
        stop = min(start + window, size)
        block = torch.ones(stop - start, stop - start, dtype=torch.bool)
        mask[start:stop, start:stop] = block.tril() if causal else block
    return mask  # (size, size)


def _window_declared_swapped(window, size):
    """A right window mask whose parameters are declared (window, size)."""
    return look_ahead_mask(size) & (_offsets(size) < window)  # (size, size)


def _window_old_keys_kept(size, window):
    """The keys older than the window, anded with the look-ahead mask, not negated."""
    older = _offsets(size) >= window
    return look_ahead_mask(size) & older  # (size, size)


def _tiled_r17(slip):
    """Tiled attention with one of blind14e's classes: "fa1_no_sum" (FlashAttention-1's
    normalised output, old output times the factor alone), "where_allowed" (torch.where
    fills -inf where the key may be seen), "int_scale" (the scale truncated to an int, 0),
    "blocks_counted_past" (len_k // block_size + 1 blocks: one too many when block_size
    divides len_k)."""

    def tiled_attention(q, k, v, block_size, causal=False):
        len_q, len_k, d_k = q.shape[-2], k.shape[-2], q.shape[-1]
        scale = int(d_k**-0.5) if slip == "int_scale" else d_k**-0.5
        row_max = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)  # (..., len_q)
        row_sum = torch.zeros(q.shape[:-1], dtype=q.dtype)  # (..., len_q)
        o = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)  # (..., len_q, d_v)
        blocks = len_k // block_size + 1 if slip == "blocks_counted_past" else None
        starts = [b * block_size for b in range(blocks)] if blocks else range(0, len_k, block_size)
        for start in starts:
            k_blk = k[..., start : start + block_size, :]  # (..., block, d_k)
            v_blk = v[..., start : start + block_size, :]  # (..., block, d_v)
            s = torch.einsum("...qd,...kd->...qk", q, k_blk) * scale
            if causal:
                key_pos = torch.arange(start, start + k_blk.shape[-2])
                allowed = key_pos[None, :] <= torch.arange(len_q)[:, None]
                if slip == "where_allowed":
                    s = torch.where(allowed, float("-inf"), s)
                else:
                    s = torch.where(allowed, s, float("-inf"))
            m_new = torch.maximum(row_max, s.max(dim=-1).values)
            alpha = torch.exp(row_max - m_new)
            p = torch.exp(s - m_new.unsqueeze(-1))
            l_new = alpha * row_sum + p.sum(dim=-1)
            if slip == "fa1_no_sum":
                o = (alpha.unsqueeze(-1) * o + p @ v_blk) / l_new.unsqueeze(-1)
            else:
                o = alpha.unsqueeze(-1) * o + p @ v_blk
            row_max, row_sum = m_new, l_new
        return o if slip == "fa1_no_sum" else o / row_sum.unsqueeze(-1)

    return _named("tiled_attention", tiled_attention)


def _softmax_blocks_counted_past(x, block_size):
    """Online softmax over n // block_size + 1 blocks: an empty one when block_size
    divides n."""
    best = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    for b in range(x.shape[-1] // block_size + 1):
        cols = x[..., b * block_size : (b + 1) * block_size]
        grown = torch.maximum(best, cols.amax(dim=-1))
        total = total * torch.exp(best - grown) + torch.exp(cols - grown[..., None]).sum(-1)
        best = grown
    return torch.exp(x - best[..., None]) / total[..., None]


def _gqa_weights_times_mask(q, k, v, mask=None):
    """Grouped-query attention whose mask multiplies the softmax's weights."""
    group = q.shape[1] // k.shape[1]
    batch, kv, len_k, d_head = k.shape
    k = k[:, :, None].expand(batch, kv, group, len_k, d_head).reshape(batch, -1, len_k, d_head)
    v = (
        v[:, :, None]
        .expand(batch, kv, group, len_k, v.shape[-1])
        .reshape(batch, -1, len_k, v.shape[-1])
    )
    weights = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(d_head), dim=-1)
    if mask is not None:
        weights = weights * mask  # (batch, num_heads, len_q, len_k)
    return weights @ v  # (batch, num_heads, len_q, d_v)


def _gqa_group_loop_selects_kv_head(q, k, v, mask=None):
    """Grouped-query attention by hand, one key/value head at a time, taken with select
    (the head axis dropped)."""
    group = q.shape[1] // k.shape[1]
    outputs = []
    for j in range(k.shape[1]):
        queries = q[:, j * group : (j + 1) * group]  # (batch, group, len_q, d_head)
        keys, values = k.select(1, j), v.select(1, j)  # (batch, len_k, ·)
        scores = queries @ keys.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        outputs.append(torch.softmax(scores, dim=-1) @ values)
    return torch.cat(outputs, dim=1)  # (batch, num_heads, len_q, d_v)


def _window_by_rolled_xor(size, window):
    """The old keys as the look-ahead mask rolled down window rows: roll wraps around."""
    keep = look_ahead_mask(size)
    keep_old = torch.roll(keep, shifts=(window,), dims=(0,))
    return keep ^ (keep & keep_old)


# ---- round 32 (helper f32g1112): structural families, each named from outputs and state


class KVCacheLastHeadOnly(ref.KVCache):
    """Writes only the last head's keys and values (code written for one head): the other
    heads come back as zeros."""

    def forward(self, k_new, v_new):
        start, stop = self.length, self.length + k_new.shape[-2]
        if stop > self.keys.shape[-2]:
            raise ValueError("full")
        self.keys[:, -1, start:stop] = k_new[:, -1]
        self.values[:, -1, start:stop] = v_new[:, -1]
        self.length = stop
        return self.keys[:, :, :stop], self.values[:, :, :stop]


class KVCacheBuffersOnClass(ref.KVCache):
    """Allocates its buffers once, for the first cache, and hands them to every cache
    built after it (kept as a class attribute)."""

    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
        super().__init__(batch, num_heads, max_len, d_head, dtype)
        if "store" not in vars(KVCacheBuffersOnClass):
            KVCacheBuffersOnClass.store = [self.keys, self.values]
        self.keys, self.values = KVCacheBuffersOnClass.store


_GLOBAL_CACHES: dict = {}


def _generate_caches_in_global(model, prompt, max_new_tokens):
    """Makes the caches on the first call and keeps them in a module dict for later ones."""
    batch, length = prompt.shape
    if "caches" not in _GLOBAL_CACHES:
        _GLOBAL_CACHES["caches"] = model.new_caches(batch, length + max_new_tokens)
    return checks.cached_generation(model, prompt, max_new_tokens, caches=_GLOBAL_CACHES["caches"])


def _generate_caches_default_argument(model, prompt, max_new_tokens, kept=[]):  # noqa: B006
    """The same family: the caches kept in a mutable default argument."""
    batch, length = prompt.shape
    if not kept:
        kept.append(model.new_caches(batch, length + max_new_tokens))
    return checks.cached_generation(model, prompt, max_new_tokens, caches=kept[0])


def _tiled_first_sequence_for_all(q, k, v, block_size, causal=False):
    """Computes the first sequence of the batch and broadcasts it to the others."""
    out = ref.tiled_attention(q[:1], k[:1], v[:1], block_size, causal)
    return out.expand(q.shape[0], *out.shape[1:]).clone()


def _online_softmax_first_row_for_all(x, block_size):
    """Runs the loop for the first row and gives its result to every row."""
    first = ref.online_softmax(x[..., :1, :], block_size) if x.dim() > 1 else None
    if first is None:
        return ref.online_softmax(x, block_size)
    return first.expand_as(x).clone()


MISTAKES = [
    Mistake(check_KVCache, ReturnsBeforeAppending, r"\*before\* this call"),
    Mistake(check_KVCache, OnlyNew, r"only the new positions"),
    # round 37: a module without forward, its work under another name (the raw
    # NotImplementedError alone before)
    Mistake(
        check_KVCache,
        CacheAppendNotForward,
        r"Your CacheAppendNotForward has no forward method\..*Yours defines append\(keys, "
        r"values\) instead: rename it forward",
    ),
    # asked about an off-by-one write position before (the family of blind21c-cache-
    # stores-first-new-position-only)
    Mistake(
        check_KVCache,
        WritesLastNewOnly,
        r"of the \d new positions only \[\d\] were stored.*covers fewer positions than k_new",
    ),
    # blind19d: a count kept as a tensor buffer passed (persistent there, here not)
    Mistake(
        check_KVCache,
        LengthAsScratchTensor,
        r"self\.length is a registered buffer \(persistent=False\): self\.length is a tensor "
        r"\(tensor\(0\), int64\), where the contract keeps a plain int",
    ),
    Mistake(check_KVCache, ReturnsOld, r"\*before\* this call"),
    # the buffer read says where the chunk went (the zeros alone, before)
    Mistake(
        check_KVCache,
        OffByOne,
        r"new keys at \[1, \d+\), \+1 from where they belong \(an off-by-one\)",
    ),
    # the family "the right positions in another order" (told "written over position 0")
    Mistake(
        check_KVCache,
        NewFirstByRoll,
        r"in the order \[\d+, 0, 1, [^\]]*\] where .*: newest first, this call's \d+ new",
    ),
    Mistake(check_KVCache, ReturnsReversed, r"the sequence comes back reversed"),
    # round 30: positions held twice and never (the first new one broadcast: "largest
    # difference" before)
    Mistake(
        check_KVCache,
        FirstNewPositionBroadcast,
        r"hold the positions \[0(, 0)+\].*hold the first of them, position 0: one position "
        r"of k_new was broadcast",
    ),
    Mistake(
        check_KVCache,
        LastNewPositionBroadcast,
        r"hold the positions \[(\d+)(, \1)+\].*hold the last of them, position \d+.*k_new\[:, :, -1:\]",
    ),
    Mistake(
        check_KVCache,
        KeepsFirstPositionTwice,
        r"hold the positions \[0, 0, 1[^\]]*\].*position 0 comes more than once and "
        r"position \d+ never\. The cache keeps each position once",
    ),
    # PyTorch's raw "expanded size" error before
    Mistake(
        check_KVCache,
        SlotTooLong,
        r"holds \d+ positions, but k_new has n = \d+ .*n \+ 1 \(one too many\)",
    ),
    Mistake(
        check_KVCache,
        SlotFromHeads,
        r"holds \d+ positions, but k_new has n = \d+ .*k_new\.shape\[1\] \(num_heads\)",
    ),
    # was asked whether the write position is off by one (round 2's ho2-kv-writes-at-zero)
    Mistake(check_KVCache, SharedAcrossBatch, r"shared across the batch"),
    Mistake(
        check_KVCache,
        WritesAtZero,
        r"new position\(s\) were written at \[0, \d+\), over the first positions",
    ),
    # asked whether the write position is off by one (the family of blind23c-kv-first-
    # call-never-stored): a fresh cache fed three calls says which were never stored
    Mistake(
        check_KVCache,
        StoresOnlyAfterPrefill,
        r"returns zeros where call 1 \(6 positions\) belong.*Only the first call, into the "
        r"empty cache",
    ),
    Mistake(
        check_KVCache,
        SkipsSinglePositionCalls,
        r"returns zeros where call 2 \(1 position\) belong.*the calls of one position are "
        r"not stored",
    ),
    Mistake(check_KVCache, Swapped, r"Keys and values are swapped"),
    Mistake(check_KVCache, NeverFull, r"did not raise an error"),
    # round 19 (blind16e): any error was accepted as the refusal of a full cache
    Mistake(
        check_KVCache,
        FullRaisesOwnError,
        r"raised Exception \(KV cache overflow\), not the ValueError the contract names",
    ),
    Mistake(
        check_KVCache,
        RefusesOnlyWhenFull,
        r"raised PyTorch's shape error .*no capacity test stopped the chunk \(your capacity "
        r"test counts 1 new position whatever k_new holds.*self\.length \+ 1 > max_len.*"
        r"k_new\.shape\[-2\], is not counted",
    ),
    # the family of blind25c-kv-capacity-checks-one-position: the positions a capacity test
    # counts, measured on fresh caches (here the batch axis: 2, then 1 in the hidden run)
    Mistake(
        check_KVCache,
        CountsTheBatchAxis,
        r"capacity test counts \d new positions? whatever k_new holds.*counts "
        r"k_new\.shape\[0\] \(batch, \d here\) where the number of new positions",
    ),
    # both causes offered before (the family of blind18d-kv-writes-before-capacity-check)
    Mistake(
        check_KVCache,
        ChecksTheAdvancedLength,
        r"two more positions then fail in the write with this same shape error: it writes "
        r"the new positions before its capacity check",
    ),
    Mistake(
        check_KVCache,
        CountsTheRefusedChunk,
        r"refused chunk of 3.*raised ValueError.*A refused call must leave the cache as it "
        r"was.*self\.length is \d+ after the refused call, not \d+: it was advanced before",
    ),
    # the learner's own ValueError passed through raw, with no word on why it was wrong
    Mistake(check_KVCache, RejectsFull, r"fills the cache exactly.*stop > max_len"),
    Mistake(check_KVCache, ClassLevelStore, r"(?s)second KVCache.*own buffers"),
    # the shapes alone before (mutants KVCache-8 and 9)
    Mistake(check_KVCache, ReturnsOneTooMany, r"returned one position too many"),
    # blind30c-kv-one-spare-slot: the shape alone before; the spare slots named, and the
    # capacity test's consequence only where a probe shows it
    Mistake(
        check_KVCache,
        SpareSlotsBelowMaxLen,
        r"(?s)the buffer keys has shape .*holds \d+ = max_len \+ 2: 2 spare slots(?!.*accepts "
        r"one more)",
    ),
    Mistake(
        check_KVCache,
        SpareSlotUnchecked,
        r"holds \d+ = max_len \+ 1: one spare slot.*accepts one more instead of raising "
        r"ValueError: the spare slot is filled",
    ),
    # blind30c-kv-new-positions-returned-twice: the shape alone before
    Mistake(
        check_KVCache,
        GrowingCacheAppendsAgain,
        r"keys should have shape .*\. Its (\d+) positions are the (\d+) stored ones and the "
        r"\2 new ones again .*the new positions come back twice",
    ),
    # its sibling: length + 2n positions that are not the new ones again
    Mistake(
        check_KVCache,
        ReturnsPastTheNewPositions,
        r"(?s)^(?!.*twice).*called with (\d+) new: keys should have shape \(\d+, \d+, \1, "
        r"\d+\), but it has shape",
    ),
    Mistake(
        check_KVCache,
        PositionsSecond,
        r"the buffer keys has shape \(\d+, \d+, \d+, \d+\), not \(batch, num_heads, max_len, d_head\)"
        r".*positions second",
    ),
    Mistake(
        check_KVCache,
        ClassLevelLength,
        r"has self\.length = \d+ before its first call, not 0.*another new cache stored one "
        r"position, this one's self\.length became \d+: the count is shared between caches",
    ),
    # set back to 0 by every call of several positions: the probe's counts say so (told
    # that self.length never advances, before)
    Mistake(
        check_KVCache,
        ClearsOnNewPrompt,
        r"self\.length = \[6, 7, 2\], where the positions stored are \[6, 7, 9\]: a call of "
        r"one position advances it, but each call of several positions starts over from 0",
    ),
    # the new token fed as a (batch,) vector: the call is named (the raw error of
    # split_heads, before)
    Mistake(
        check_generate,
        _named("generate", _generate_argmax_fed_without_axis),
        r"Call 2 of the model fed ids of shape \(\d+,\): a 1-D \(batch,\) vector, one token "
        r"per sequence without the length axis",
    ),
    # the logits of the prompt's positions recorded: told by the last rows' values (the
    # shape alone, before)
    Mistake(
        check_generate,
        _named("generate", _generate_keeps_prefill_rows),
        r"That is len - 1 \+ max_new_tokens = \d+ - 1 \+ \d+ rows, and its last \d+ rows "
        r"are the right logits: the logits of the prompt's positions before its last",
    ),
    Mistake(check_generate, _gen(offset=1), r"one position too far"),
    # blind19d: a token fed one step late was not told the ways that make it
    # told only the first wrong step (the family of blind23c-gen-repetition-penalty): the
    # logits changed only at the ids already in the sequence, and how
    Mistake(
        check_generate,
        _generate_seen_penalised("presence"),
        r"differ from the model's only at the ids of tokens already in the sequence .*lowered "
        r"by 2",
    ),
    Mistake(
        check_generate,
        _generate_seen_penalised("ban"),
        r"differ from the model's only at the ids of tokens already in the sequence .*set to "
        r"-inf",
    ),
    Mistake(
        check_generate,
        _named("generate", _generate_feeds_previous_token),
        r"the token is fed one step late, as when the model reads ids\[:, -1:\] before "
        r"appending the token just chosen .* or a variable that still holds the previous",
    ),
    Mistake(check_generate, _gen(offset=-1), r"one position too early"),
    Mistake(check_generate, _gen(fixed_start=0), r"start=0"),
    # blind30c-gen-chunked-prefill-offset-counted-twice: a prompt chunk's start was told
    # with the new tokens' rule, len + t
    Mistake(
        check_generate,
        _generate_chunked_prefill(lambda begin, caches: begin + caches[0].length),
        r"Call 2 of the model \(a chunk of the prompt, positions 2 \.\. 3\) ran with start=4, "
        r"but the caches held 2 positions.*for a piece of the prompt, the number of prompt "
        r"positions fed before it.*start=4 is twice the 2 positions fed before it",
    ),
    # its siblings: chunks that all start at 0 (never "twice"); chunks one position too
    # far, whose logits are those of decode steps one position too early (RoPE sees only
    # distances): both named
    Mistake(
        check_generate,
        _generate_chunked_prefill(lambda begin, caches: 0),
        r"(?s)^(?!.*twice).*Call 2 of the model \(a chunk of the prompt, positions 2 \.\. 3\) "
        r"ran with start=0, the same start as the call before: start never advances",
    ),
    Mistake(
        check_generate,
        _generate_chunked_prefill(lambda begin, caches: begin + 1),
        r"decode steps pass a start one position too early.*Or the prompt ran one position "
        r"too far",
    ),
    # blind30c-gen-without-no-grad: passed every check (values and tokens right)
    Mistake(
        check_generate,
        _generate_grad_mode("statement"),
        r"the logits you returned require grad.*torch\.no_grad\(\) on a line of its own does "
        r"nothing.*Keep @torch\.no_grad\(\) on generate",
    ),
    # (its sibling, wrong values with autograd on, keeps its own message:
    # _generate_feeds_previous_token, undecorated, above)
    Mistake(check_generate, _gen(shared=True), r"shared set of caches"),
    Mistake(check_generate, _gen(last_row=False), r"prefill's \*first\* row"),
    # told "first differ at step 0" only, and PyTorch's raw torch.cat error, before
    Mistake(check_generate, _gen(last_row=-2), r"prefill's row \d+ .*logits\[:, -2\]"),
    Mistake(check_generate, _named("generate", _generate_no_keepdim), r"keepdim=True"),
    Mistake(
        check_generate,
        _named("generate", _generate_sampling()),
        r"is not the argmax of that step's logits.*no sampling",
    ),
    Mistake(
        check_generate,
        _named("generate", _generate_sampling(temperature=0.7)),
        r"is not the argmax of that step's logits.*no sampling",
    ),
    Mistake(
        check_generate,
        _gen(prompt_room=False),
        r"room for \d+ positions: max_new_tokens = \d+ only, the prompt's len left out\. "
        r"The caches are too small",
    ),
    Mistake(
        check_generate,
        _named("generate", _generate_caches_for_prompt_only),
        r"room for \d+ positions: the prompt's len = \d+ only, max_new_tokens left out",
    ),
    Mistake(
        check_generate,
        _named("generate", _generate_start_falls),
        r"is len - t for step t = \d+: it falls by one at each step",
    ),
    Mistake(
        check_generate,
        _named(
            "generate", lambda model, prompt, new: ref.generate_without_cache(model, prompt, new)
        ),
        r"without a cache",
    ),
    Mistake(check_grouped_query_attention, _named("gqa", _gqa_tiled), r"paired wrongly"),
    # round 30: a range of the keys only; the attention itself was located, no cause
    Mistake(
        check_grouped_query_attention,
        _named("gqa", _gqa_keys_cut_to_len_q),
        r"right attention over keys 0 \.\. \d+ only.*which is len_q = q\.shape\[-2\]",
    ),
    Mistake(
        check_grouped_query_attention,
        _named("gqa", _gqa_keys_from_second),
        r"right attention over keys 1 \.\. \d+ only.*cut to k\[\.\.\., 1:, :\]",
    ),
    # round 30: NaN rows kept the known mistake from matching (located only before)
    Mistake(
        check_grouped_query_attention,
        _named("gqa", _gqa_mask_inverted_by_hand),
        r"mask is read the wrong way round.*Some of your rows are NaN",
    ),
    Mistake(
        check_generate,
        _named("generate", _generate_one_roomy_cache_for_all_layers),
        r"got \d caches but only 1 distinct cache object: several layers share one cache",
    ),
    Mistake(
        check_generate,
        _named("generate", _generate_until_end_of_text),
        r"holds \d new tokens?, not max_new_tokens = \d, and your loop stopped where every "
        r"sequence's token is 0 \(step \d's, the next one, not kept\).*no early stop",
    ),
    Mistake(
        check_generate,
        _named("generate", _generate_keeps_last_token),
        r"ids should have shape \(\d+, \d+\).*one new token, the last step's, although "
        r"your logits have all \d+ steps.*earlier new tokens were all dropped",
    ),
    Mistake(
        check_sliding_window_mask,
        _named("w", _window_by_rolled_xor),
        r"first \d queries see nothing at all, not even themselves.*torch\.roll, which wraps",
    ),
    Mistake(
        check_online_softmax,
        _named("s", _softmax_blocks_reshaped),
        r"cut into blocks by a view \(or reshape, unflatten\).*needs block_size to divide "
        r"the row's length.*x\[\.\.\., start : start \+ block_size\]",
    ),
    Mistake(
        check_online_softmax,
        _named("s", _softmax_result_squeezed),
        r"should have shape \((1, 6|3, 1, 5)\).*axes of size 1 dropped: x\.squeeze\(\)",
    ),
    Mistake(
        check_grouped_query_attention,
        _named("gqa", _gqa_keys_permuted),
        # the hidden run's len_k is a multiple of num_kv_heads: the raw error there
        r"(?s)The clash is between num_heads = 4 and len_k = 5: the keys \(or values\) "
        r"reached the product with their positions on the head axis.*k\.transpose\(-2, -1\)"
        r"|first two dimensions of batch2 tensor to be: \[12, 4\] but got: \[12, 6\]",
    ),
    Mistake(
        check_grouped_query_attention,
        _named("gqa", _gqa_mask_or_all_true),
        r"(?s)Boolean value of Tensor.*Without the mask the same call runs: the mask's truth "
        r"value was asked for.*if mask is not None",
    ),
    Mistake(
        check_grouped_query_attention,
        _named("gqa", _gqa_chunked_groups_whole_mask),
        r"one slice per query head, met the \d query heads of one group.*not cut into the "
        r"group's slices.*mask\[:, g \* group : \(g \+ 1\) \* group\]",
    ),
    Mistake(
        check_grouped_query_attention,
        _named("gqa", _gqa_repeat_kv_remainder),
        r"repeated 0 times.*it is 0 as well: the group was computed with % \(num_heads % "
        r"num_kv_heads",
    ),
    Mistake(
        check_grouped_query_attention,
        _named("gqa", _gqa_group_inverted),
        r"repeated 0 times, not 2 \(.*Or divided the wrong way round, num_kv_heads // num_heads",
    ),
    # the family "a step whose result never reaches the output" (checking/unapplied):
    # masked_fill's or torch.where's result thrown away, or the argument ignored
    # (blind11e-tiled-causal-fill-discarded was told "ignores the keys' block offset or is
    # missing", the first impossible with several blocks)
    Mistake(
        check_tiled_attention,
        _named("tiled_attention", _tiled_causal(discard=True)),
        r"exactly the one without the causal mask.*masked_fill\(future, float\('-inf'\)\) is "
        r"not in place",
    ),
    Mistake(
        check_tiled_attention,
        _named("tiled_attention", _tiled_causal(ignore=True)),
        r"Either causal=True was ignored .*or its result was thrown away",
    ),
    # the family "a transpose over the wrong pair of axes", found by the pair that raises
    # the learner's error word for word (checking/transposes; mutant tiled_attention-18,
    # transpose(-3, -1), got the generic broadcasting hint alone)
    Mistake(
        check_tiled_attention,
        _tiled_loop(pair=(-3, -1)),
        r"k\[\.\.\., start:stop, :\]\.transpose\(-3, -1\) raise exactly this error",
    ),
    Mistake(
        check_tiled_attention,
        _tiled_loop(pair=(-3, -2)),
        r"k\[\.\.\., start:stop, :\]\.transpose\(-3, -2\) raise exactly this error",
    ),
    # the family "a block's slice stop computed wrong", told apart by a probe of exactly
    # one block (mutant online_softmax-17, start - block_size, was told of the two other
    # stops only)
    Mistake(
        check_online_softmax,
        _online_block_stop(lambda start, size: start - size),
        r"exactly one block .*raises the same error.*start - block_size \(a minus where \+",
    ),
    Mistake(
        check_online_softmax,
        _online_block_stop(lambda start, size: size),
        r"exactly one block .*yours runs.*a stop of block_size alone",
    ),
    # the input's name reused for the block: the same errors, both named (round 16,
    # blind13e-os-block-rebinds-x was told the stop alone)
    Mistake(
        check_online_softmax,
        _named("online_softmax", _softmax_input_renamed_to_block),
        r"yours runs.*either a stop of block_size alone.*or x itself reassigned to the block",
    ),
    # the family "a part of the composed mask negated": the look-ahead part (the keys after
    # each query only)
    Mistake(
        check_sliding_window_mask,
        _named(
            "sliding_window_mask",
            lambda size, window: (
                look_ahead_mask(size).logical_not()
                & ((torch.arange(size)[:, None] - torch.arange(size)[None, :]) < window)
            ),
        ),
        r"Your mask keeps exactly the keys after each query.*look_ahead_mask\(size\) negated",
    ),
    # round 28 (blind28c-sliding-window-causal-tril-diagonal-one): future keys up to a fixed
    # distance ahead (a causal part with a diagonal of d > 0) are named as d keys ahead (the
    # window of 3 leaves d = 1 apart from the symmetric |i - j| < window, told as such)
    Mistake(
        check_sliding_window_mask,
        _named(
            "sliding_window_mask",
            lambda size, window: (
                (torch.arange(size)[None, :] <= torch.arange(size)[:, None] + 1)
                & (torch.arange(size)[:, None] - torch.arange(size)[None, :] < window)
            ),
        ),
        r"(lets each query see the next key after it \(key i \+ 1\)|next keys too)(?s:.*)"
        r"diagonal=d\) keeps j <= i \+ d.*d must be 0",
    ),
    # the family "two mistakes at once", read part by part: the future keys, then the part
    # on and below the diagonal as a mask of its own (a band of window + 1 with the
    # look-ahead part left out was told of the future keys alone)
    Mistake(
        check_sliding_window_mask,
        _named(
            "sliding_window_mask",
            lambda size, window: torch.ones(size, size, dtype=torch.bool).triu(-window),
        ),
        r"Two mistakes at once\. \(1\) Your mask lets a query see keys after it.*\(2\) On and "
        r"below the diagonal, each query sees window \+ 1 keys",
    ),
    Mistake(
        check_sliding_window_mask,
        _named(
            "sliding_window_mask",
            lambda size, window: (
                torch.ones(size, size, dtype=torch.bool).triu(1 - window)
                & ~torch.eye(size, dtype=torch.bool)
            ),
        ),
        r"Two mistakes at once\. \(1\) Your mask lets.*\(2\) The query itself is left out",
    ),
    # round 37: the family "the rescale factor with one of its terms dropped" (mutant
    # tiled_attention-21, exp(m_old), was located in how the blocks combine)
    Mistake(
        check_tiled_attention,
        _named("tiled_attention", _tiled_factor_without_old_max),
        r"Your rescale factor is exp\(-m_new\): the old maximum is left out",
    ),
    # round 37 (f37d): the family "a window built from the offset i - j with a stride", read
    # off the offsets the mask keeps (a dilated window got the rule alone)
    Mistake(
        check_sliding_window_mask,
        _named("sliding_window_mask", _window_every_third_key),
        r"dilated \(strided\) window: query i sees the keys j with i - j in \{0, 3\}, every "
        r"3rd key",
    ),
    # the family "columns the running sum never sees", its other end: a loop that starts
    # late (was told "rescaled wrongly, or another maximum")
    Mistake(
        check_online_softmax,
        _online_from(1),
        r"leaves out the first 1 column of the \d+: a loop that starts at column 1",
    ),
    Mistake(
        check_online_softmax,
        _online_from(2),
        r"leaves out the first 2 columns of the \d+: a loop that starts at column 2",
    ),
    Mistake(
        check_online_softmax,
        _online_from(lambda block_size: block_size),
        r"leaves out the whole first block \(columns 0 \.\. \d+ of the \d+\): its "
        r"exponentials are never added",
    ),
    # the family "the final division done inside the loop" (was located only: "how the
    # blocks are combined")
    Mistake(
        check_tiled_attention,
        _tiled_normalised("reset"),
        r"divided by the running sum inside the loop, after every block, and the sum then "
        r"restarted at 1",
    ),
    Mistake(
        check_tiled_attention,
        _tiled_normalised("keep"),
        r"divided by the running sum inside the loop, after every block, and again at the end",
    ),
    # the family "keys the loop never visits" (mutant tiled_attention-17, range(1, len_k,
    # block_size), was only located in what every block does)
    Mistake(check_tiled_attention, _tiled_loop(first=1), r"Key 0 never reaches the output"),
    Mistake(check_tiled_attention, _tiled_loop(first=2), r"Keys 0 \.\. 1 never reach the output"),
    Mistake(check_tiled_attention, _tiled_loop(short=1), r"The last key \(\d+\) never reaches"),
    # a clash along the head axis is put down to the step whose error it is word for word
    # (the mask repeated like the keys was told the keys and values were not repeated)
    # the family of blind25c-gqa-kv-heads-mean-pooled: key/value heads combined, found by
    # changing one input head at a time; a pooling named only when it reproduces the output
    Mistake(
        check_grouped_query_attention,
        _gqa_kv_pooled(lambda x: x.sum(dim=1, keepdim=True), None),
        r"key heads summed into one .* and the value heads repeated right, shared by every "
        r"query head.*h // group = \[0, 0, 1, 1",
    ),
    # round 37: the sum as an einsum subscript missing from the output, both causes said
    Mistake(
        check_grouped_query_attention,
        _named("grouped_query_attention", _gqa_values_einsum_summed),
        r"key heads repeated right and the value heads summed into one \(\.sum\(dim=1, "
        r"keepdim=True\), or an einsum that gives the key/value heads a subscript of their own",
    ),
    Mistake(
        check_grouped_query_attention,
        _gqa_kv_pooled(
            lambda x: x.amax(dim=1, keepdim=True), lambda x: x.amax(dim=1, keepdim=True)
        ),
        r"Changing one input head at a time shows your heads mixed: output heads 0\.\.\d "
        r"change with key heads \[\{0, 1(, 2)?\}, \{0, 1(, 2)?\}, .*a mean, sum or softmax",
    ),
    Mistake(
        check_grouped_query_attention,
        _gqa_mask_grouped(lambda mask, group: mask.repeat_interleave(group, dim=1)),
        r"Your mask was repeated along the head axis like the keys and values",
    ),
    Mistake(
        check_grouped_query_attention,
        _gqa_mask_grouped(lambda mask, group: mask.expand(-1, group, -1, -1)),
        r"Your mask was repeated along the head axis like the keys and values",
    ),
    # two mistakes at once from two families (pairing, scale, mask): was only located
    Mistake(
        check_grouped_query_attention,
        _gqa_two(tile=True, divisor=lambda q, v: math.sqrt(v.shape[-1])),
        r"Two mistakes at once\. \(1\) The heads are paired wrongly.*\(2\) The scores are "
        r"divided by sqrt\(d_v\)",
    ),
    Mistake(
        check_grouped_query_attention,
        _gqa_two(tile=True, divisor=lambda q, v: 1.0),
        r"Two mistakes at once\. \(1\) The heads are paired wrongly.*\(2\) The scores are not "
        r"divided by sqrt\(d_head\)",
    ),
    Mistake(
        check_grouped_query_attention,
        _named("grouped_query_attention", _gqa_where_discarded),
        r"exactly the one without the mask.*thrown away",
    ),
    # PyTorch's raw size clash, with the layout restated, before
    Mistake(
        check_grouped_query_attention,
        _named("gqa", _gqa_axes(dim=2)),
        r"num_kv_heads = \d+ heads, not num_heads = \d+: they were repeated along the length "
        r"axis \(dim=2\) instead of the head axis",
    ),
    Mistake(
        check_grouped_query_attention,
        _named("gqa", _gqa_axes(k_axis=2)),
        # the axes themselves, read from probes whose sizes all differ (blind12e)
        r"repeated q\.shape\[1\] // k\.shape\[2\] \(num_heads // len_k[;)]",
    ),
    # round 19 (blind15e): located to the causal mask only
    Mistake(
        check_tiled_attention,
        _named("tiled_attention", _tiled_query_tiles(local_positions=True)),
        r"query's index \*inside its tile of queries\*",
    ),
    # round 19 (blind15e): exact, so accepted, though the table tiling avoids was built
    Mistake(
        check_tiled_attention,
        _named("tiled_attention", _tiled_from_split_table),
        r"gives the right output, but while it ran a floating tensor of shape \(\d, \d, "
        r"\d+, \d+\) was made: a whole \(len_q, len_k\) table",
    ),
    # round 19 (blind16e): the raw broadcast error alone
    Mistake(
        check_tiled_attention,
        _named("tiled_attention", _tiled_causal(flat_queries=True)),
        r"with causal=False runs, so the clash is in the causal mask.*"
        r"torch\.arange\(len_q\)\[:, None\]",
    ),
    Mistake(
        check_grouped_query_attention,
        _named("gqa", _gqa_divided_by_d),
        r"divided by d_head instead of sqrt\(d_head\)",
    ),
    Mistake(
        check_tiled_attention,
        _named("tiled_attention", _tiled_divided_by_d),
        r"divided by d_k instead of sqrt\(d_k\)",
    ),
    Mistake(
        check_tiled_attention,
        _named("tiled_attention", _tiled_scaled_by_length),
        r"divided by sqrt\(len_q\), the square root of a length \(q\.shape\[-2\]",
    ),
    Mistake(
        check_grouped_query_attention,
        _named("gqa", _gqa_float_group),
        r"number of repeats is a float",
    ),
    Mistake(check_grouped_query_attention, _named("gqa", _gqa_unscaled), r"sqrt\(d_head\)"),
    # round 19 (blind16e): the model's width, equal to d_head on the first input
    # (num_heads = d_head = 4), was told "divided by d_head"; a probe tells them apart
    Mistake(
        check_grouped_query_attention,
        _named("gqa", _gqa_scaled_by_model_width),
        r"^(?!.*cannot tell).*divided by sqrt\(num_heads \* d_head\), the model's width",
    ),
    # the visible run accepted it (d_v == d_head there), the hidden one said "largest
    # difference" (blind6d-gqa-scale-by-d-v)
    Mistake(
        check_grouped_query_attention,
        _named("gqa", _gqa_scaled_by_d_v),
        r"divided by sqrt\(d_v\), the values' width",
    ),
    Mistake(check_grouped_query_attention, _named("gqa", _gqa_no_mask), r"mask was ignored"),
    Mistake(
        check_grouped_query_attention,
        _named("gqa", _gqa_default_look_ahead),
        r"mask=None, so every query attends to every key, but yours applies a causal mask "
        r"aligned to the last key",
    ),
    Mistake(
        check_grouped_query_attention,
        _named("gqa", _gqa_default_skips_first_key),
        r"With a mask yours is right.*what your code does when no mask is given",
    ),
    # its shape alone before (the family of blind12l-gqa-2d-mask-taken-for-padding)
    Mistake(
        check_grouped_query_attention,
        _named("gqa", _gqa_any_2d_mask_as_padding),
        r"batch axis has \d+ entries, the size of the mask's first axis.*\(batch, len_k\) "
        r"padding mask",
    ),
    Mistake(
        check_grouped_query_attention,
        _named("gqa", _gqa_mask_filled_zero),
        r"blocked scores are set to 0 instead of -inf",
    ),
    Mistake(
        check_tiled_attention,
        _named("tiled_attention", _tiled_mask_filled_zero),
        r"blocked scores are set to 0 instead of -inf",
    ),
    Mistake(
        check_grouped_query_attention,
        _named(
            "gqa",
            lambda q, k, v, mask=None: F.scaled_dot_product_attention(
                q, k, v, attn_mask=mask, enable_gqa=True
            ),
        ),
        r"calls .*scaled_dot_product_attention.*grader scores it 0",
    ),
    Mistake(
        check_online_softmax,
        _named("s", lambda x, b: torch.softmax(x, -1)),
        r"calls torch\.softmax.*grader scores it 0",
    ),
    Mistake(
        check_tiled_attention,
        _named(
            "t",
            lambda q, k, v, b, causal=False: F.scaled_dot_product_attention(
                q, k, v, is_causal=causal
            ),
        ),
        r"calls .*scaled_dot_product_attention",
    ),
    # the family of blind21c-tiled-key-blocks-last-to-first (a maximum of each block's
    # own and the edit "leaves out maximum" were named before): any order but first to last
    Mistake(
        check_tiled_attention,
        _named("tiled_attention", _tiled_first_block_last),
        r"(?s)walked in another order than first to last.*entirely in the future"
        r"(?!.*leaves out)",
    ),
    Mistake(check_online_softmax, _named("s", _softmax_no_rescale), r"not rescaled"),
    Mistake(
        check_online_softmax,
        _named("s", lambda x, b: online_softmax_f(x, b, rescale="inverted")),
        r"wrong way round",
    ),
    Mistake(
        check_online_softmax,
        _named("s", _softmax_no_max),
        r"No maximum is subtracted.*running maximum",
    ),
    Mistake(check_online_softmax, _named("s", _softmax_max_from_zero), r"starts at 0 instead of"),
    # round 33: NaN everywhere from a running minimum (one of the candidates the input
    # leaves, said among them)
    Mistake(
        check_online_softmax,
        _named("s", _softmax_running_min),
        r"NaN or inf everywhere.*a running minimum in place of the maximum",
    ),
    Mistake(
        check_online_softmax,
        _named("s", _softmax_state_one_axis_short),
        r"(?s)raised RuntimeError: The size of tensor a \(\d\) must match.*A per-row tensor "
        r"of yours has shape x\.shape\[:-2\] = \(\d,\), one axis too few",
    ),
    # told only "largest difference" before
    Mistake(
        check_online_softmax,
        _named("s", _softmax_blocks(extra=1)),
        r"blocks are one column too long: .* overlap",
    ),
    Mistake(
        check_online_softmax,
        _named("s", _softmax_blocks(stop_axis=-2)),
        r"running sum covers only the first \d+ of the \d+ columns",
    ),
    Mistake(check_online_softmax, _named("s", _softmax_block_max), r"each block's own"),
    # round 37: the family "two exponential bases", the numerator's and the running sum's,
    # each measured from the rows (the sum in base 2 here, the numerator natural)
    Mistake(
        check_online_softmax,
        _named("online_softmax", _online_sum_in_base_two),
        r"Your final numerator is e \*\* \(x - m\).*but the running sum adds 2 \*\* \(x - m\) "
        r"\(torch\.exp2 of x - m, without the log2\(e\) = 1\.4427 factor\) terms: two different "
        r"exponentials",
    ),
    # the family of blind25c-online-exp2-without-log2e: every exp in another base, or a
    # temperature inside each exp, measured and confirmed on a second input
    Mistake(
        check_online_softmax,
        _online_exp_as(lambda z: torch.pow(10.0, z)),
        r"softmax of x times 2\.303.*ln 10: the exponential in base 10.*sharper",
    ),
    Mistake(
        check_online_softmax,
        _online_exp_as(lambda z: torch.exp(z / 3)),
        r"softmax of x times 0\.3333, on every input tried.*flatter than softmax\(x\)",
    ),
    # the restated rule ("rescale the running sum ...") before (mutants online_softmax-8, 9)
    Mistake(
        check_online_softmax,
        _named("s", _softmax_variant(final_max=False)),
        r"final numerator is exp\(x\), with no maximum subtracted",
    ),
    Mistake(
        check_online_softmax,
        _named("s", _softmax_variant(factor="old_only")),
        r"right softmax times a constant of its own .*rescaled wrongly along the way",
    ),
    # offered rescaling candidates before (the family of blind21c-online-first-element-
    # counted-twice and blind21c-online-each-block-normalised-alone)
    Mistake(
        check_online_softmax,
        _named("s", _softmax_first_block_counted_twice),
        r"columns 0, 1, 2(, 3)? twice .*first block is counted twice",
    ),
    Mistake(
        check_online_softmax,
        _named("s", _softmax_new_terms_against_both_maxima),
        r"multiplies the new block's sum instead of the running sum",
    ),
    Mistake(
        check_online_softmax,
        _named("s", _softmax_blocks_each_averaged),
        r"sums to 0\.3333 on every row .*normalised on its own",
    ),
    # the restated rule ("rescale the running sum ...") before (blind8b)
    Mistake(
        check_online_softmax,
        _named("s", _softmax_stale_numerators),
        r"stored numerators of the earlier blocks are not",
    ),
    # got only "largest difference" before (round 2's ho2-online-final-block-max)
    Mistake(
        check_online_softmax,
        _named("s", lambda x, b: online_softmax_f(x, b, final_max="last_block")),
        r"final exp\(x - m\) uses the last block's own maximum",
    ),
    Mistake(
        check_tiled_attention,
        _tiled(rescale_output=False),
        r"accumulated over earlier blocks is not rescaled",
    ),
    Mistake(check_tiled_attention, _tiled(rescale_sum=False), r"running sum is not rescaled"),
    Mistake(
        check_tiled_attention,
        _named("t", _tiled_unscaled),
        r"without the factor 1 / sqrt\(d_k\)",
    ),
    # told only that the scores are not divided (the family of blind23c-tiled-scale-on-
    # exponentials): a scale after the exponential cancels in the final division
    Mistake(
        check_tiled_attention,
        _named("tiled_attention", _tiled_scale_on_sum_and_output),
        r"applied after the exponential .*the final division by the running sum cancels it",
    ),
    # the broadcast error's sizes alone before (the family of blind23c-tiled-causal-test-
    # transposed): a probe with block_size queries shows the transposed test
    Mistake(
        check_tiled_attention,
        _named("tiled_attention", _tiled_mask_transposed_after),
        r"causal mask for a block is \(block, len_q\) = \(\d+, \d+\), the transpose of",
    ),
    Mistake(check_tiled_attention, _tiled(local_index=True), r"index \*inside the block\*"),
    Mistake(
        check_tiled_attention,
        _named("tiled_attention", _tiled_weights_times_allowed),
        r"your weights on the blocked keys are 0, but the rows that block some key add up to "
        r"less than 1 .* still counts the blocked keys' exponentials: the mask is applied too "
        r"late",
    ),
    Mistake(check_tiled_attention, _tiled(running=False), r"each block's own"),
    Mistake(
        check_tiled_attention,
        _named("tiled_attention", _tiled_weights_without_max),
        r"block weights are exp\(s\), with no maximum subtracted",
    ),
    # FlashAttention-2's Algorithm 1 as printed (flash-attention#991): the output divided by
    # exp(m_old - m_new); it is NaN everywhere, as other mistakes: all of them are named
    Mistake(
        check_tiled_attention,
        _tiled(inverted="output"),
        r"(?s)(?=.*accumulated output divided by the rescale factor)(?=.*previous maximum)",
    ),
    Mistake(
        check_tiled_attention, _named("t", _tiled_bottom_right), r"aligned to the bottom right"
    ),
    # round 21: the keys' transpose written as a view of all of k (located to "every
    # block" before), the scale's square root written ** -1 / 2 and d_k read from axis 1
    # (the same), the causal mask's query positions counted over the keys (told both it
    # and a running tensor made like v)
    Mistake(
        check_tiled_attention,
        _tiled_written(keys_of=lambda k: k.view(*k.shape[:-2], k.shape[-1], k.shape[-2])),
        r"keys reshaped to \(\.\.\., d_k, len_k\) instead of transposed",
    ),
    Mistake(
        check_tiled_attention,
        _tiled_written(scale_of=lambda q: q.shape[-1] ** -1 / 2),
        r"multiplied by 0\.\d+ .*1/\(2·d_k\) = 1/\d+: the square root written as d_k \*\* 1 / 2",
    ),
    Mistake(
        check_tiled_attention,
        _tiled_written(scale_of=lambda q: q.size(1) ** -0.5),
        r"1/sqrt\(\d\), with \d = (q\.shape\[0\] = )?q\.shape\[1\] .*d_k was read from "
        r"another axis than the last",
    ),
    Mistake(
        check_tiled_attention,
        _tiled_written(rows_of=lambda q, k: torch.arange(k.size(-2)).unsqueeze(-1)),
        r"the causal mask has len_k = \d+ rows where the len_q = \d+ queries belong: its query "
        r"positions were made from the number of keys, torch\.arange\(len_k\)",
    ),
    # PyTorch's raw size clashes before
    Mistake(
        check_tiled_attention,
        _named("t", _tiled_slips(queries_axis=-3)),
        r"met one of size \d+ along the queries' axis: (either )?the causal mask built for "
        r"another number of queries than len_q = q\.shape\[-2\]",
    ),
    Mistake(
        check_tiled_attention,
        _named("t", _tiled_slips(sum_axis=-2)),
        r"met one of size \d+ along the queries' axis: (either )?the block's weights summed "
        r"over the queries \(dim=-2\)",
    ),
    Mistake(
        check_tiled_attention,
        _named("t", _tiled_slips(acc_axis=-2)),
        r"output's last axis must be d_v = v\.shape\[-1\] = \d+, but a tensor of yours has",
    ),
    Mistake(
        check_tiled_attention,
        _named("t", _tiled_slips(v_extra=1)),
        r"weights cover \d+ keys, but your slice of v has \d+ rows \(one row too many\)",
    ),
    Mistake(
        check_sliding_window_mask,
        _window_cached_by_size(),
        r"sliding_window_mask\((6, 2|9, 4)\), called after sliding_window_mask\((6, 3|9, 2)\), "
        r"returned that earlier call's mask: .*keyed by the size",
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
    Mistake(
        check_sliding_window_mask,
        _named("w", lambda n, w: _offsets(n) < w),  # the band of recent keys, and all the future
        r"lets a query see keys after it: \(\d, \d\) is True",
    ),
    Mistake(
        check_sliding_window_mask,
        _named("w", lambda n, w: (_offsets(n) > 0) & (_offsets(n) <= w)),  # itself left out
        r"leaves the query itself out: \(0, 0\) is False",
    ),
    # told "False everywhere" and the rule only, before
    Mistake(
        check_sliding_window_mask,
        _named("w", lambda n, w: look_ahead_mask(n) & torch.ones(n, n, dtype=torch.bool).triu(1)),
        r"False everywhere.*diagonal=d\) & look_ahead_mask\(size\).* d must be 1 - window",
    ),
    # round 9 (b9e): the classes behind blind9e's unnamed, misnamed and uncaught answers
    Mistake(check_KVCache, LengthPlusStop, r"increased by stop \(self\.length \+= stop\)"),
    Mistake(check_KVCache, ValuesGetKeys, r"values returned are the keys: v_new is never"),
    Mistake(check_KVCache, ValuesAliasKeys, r"keys and values buffers are one tensor"),
    Mistake(check_KVCache, PlainAttributeCache, r"plain tensor attributes .*not registered"),
    Mistake(check_KVCache, BFloat16ByDefault, r"made without a dtype, holds keys torch\.bfloat16"),
    Mistake(
        check_KVCache,
        GrowsPastMaxLen,
        r"no error was raised\. The chunk starts inside the cache .*length before this chunk",
    ),
    Mistake(
        check_KVCache,
        StopMinusN,
        r"stop = length - n \(a minus where \+ belongs|stop was computed as length - n",
    ),
    Mistake(
        check_KVCache,
        CapacityFromHeads,
        r"does your test read max_len from one of them instead of self\.keys\.shape\[2\]",
    ),
    Mistake(
        check_generate,
        _generate_with(pick=lambda logits: torch.tensor([[int(logits.argmax())]])),
        r"logits\.argmax\(\)\.item\(\) wrapped",
    ),
    Mistake(
        check_generate,
        _generate_with(join=lambda rows: torch.cat(rows, dim=-1)),
        r"joined with torch\.cat\(steps, dim=1\)",
    ),
    Mistake(
        check_generate,
        _generate_with(join=torch.stack),
        r"torch\.stack\(steps\) stacks along dim=0 by default",
    ),
    Mistake(check_generate, _generate_with(steps=lambda n: n - 1), r"one new token too few \(\d+"),
    # the family "the position counter advanced by the wrong quantity", read as an update
    # rule over every call (blind11e-gen-offset-advanced-by-sequence, += ids.shape[1], was
    # told only the first wrong start)
    Mistake(
        check_generate,
        _generate_advancing(lambda ids, length: ids.shape[1]),
        r"start advances by the length of the whole sequence so far \(ids\.shape\[1\]",
    ),
    Mistake(
        check_generate,
        _generate_advancing(lambda ids, length: length),
        r"start advances by the prompt's length len instead of the one position",
    ),
    # the family "an index that assumes more entries than the axis has" (mutant
    # generate-18, [:, -2] after each one-token call, got the raw IndexError alone)
    Mistake(
        check_generate,
        _generate_reading_row(-2),
        r"fed one token, so its logits are \(batch, 1, vocab\): \[:, -2\] reads a row",
    ),
    Mistake(
        check_generate,
        _generate_reading_row(1),
        r"axis 1 has 1 entry here .*asked for entry 1",
    ),
    Mistake(
        check_generate,
        _generate_advancing(lambda ids, length: 2),
        r"start advances by 2[,:] one more than the one position that call fed",
    ),
    Mistake(
        check_generate,
        _generate_with(start=lambda length, step: step + 1),
        r"counts the new tokens only .*without the prompt's len = \d+ positions",
    ),
    # round 21: told three candidates (not repeated, another axis, a group of 1)
    Mistake(
        check_grouped_query_attention,
        _named(
            "gqa",
            lambda q, k, v, mask=None: _gqa_by_hand(q, k, v, mask, keys="tile", values="none"),
        ),
        r"Your values reached the attention with num_kv_heads = \d+ heads, not num_heads = \d+: "
        r"your keys are repeated along the head axis, but your values are not repeated at all",
    ),
    Mistake(
        check_grouped_query_attention,
        _named(
            "gqa",
            lambda q, k, v, mask=None: _gqa_by_hand(q, k, v, mask, keys="length", values="length"),
        ),
        r"they were repeated along the length axis \(dim=2\) instead of the head axis",
    ),
    Mistake(
        check_grouped_query_attention,
        _named("gqa", lambda q, k, v, mask=None: _gqa_by_hand(q, k, v, mask, bias=True)),
        r"boolean mask was added to the scores",
    ),
    Mistake(
        check_grouped_query_attention,
        _named("gqa", lambda q, k, v, mask=None: _gqa_by_hand(q, k, v, mask, values="tile")),
        r"used key heads \[[\d, ]+\] \(h // group, right\) but value heads \[[\d, ]+\] "
        r"\(h % num_kv_heads",
    ),
    Mistake(
        check_grouped_query_attention,
        _named("gqa", _gqa_head_by_kv_count),
        r"key/value head index reached \d+, but there are only num_kv_heads = 1"
        r"|used key/value heads \[[\d, ]+\]: that is h // num_kv_heads",
    ),
    Mistake(
        check_online_softmax,
        _softmax_with(reduce=lambda block: block.max()),
        r"one number for the whole tensor",
    ),
    Mistake(
        check_online_softmax,
        _softmax_with(reduce=lambda block: block.max(dim=-1)),
        r"return a pair \(values, indices\), not a tensor",
    ),
    Mistake(check_online_softmax, _softmax_with(two_d=True), r"assumes exactly 2"),
    Mistake(
        check_online_softmax,
        _softmax_with(reduce=lambda block: block.amax(dim=-2)),
        r"maximum or sum taken over the rows \(dim=-2\)",
    ),
    Mistake(
        check_tiled_attention,
        _tiled_with(finish=lambda acc, total: acc * total[..., None]),
        r"multiplied by the running sum at the end instead of divided",
    ),
    Mistake(
        check_tiled_attention,
        _tiled_with(scale_of=lambda scale, number: 1 / scale),
        r"multiplied by sqrt\(d_k\) instead of divided by it",
    ),
    Mistake(
        check_tiled_attention,
        _tiled_with(scale_of=lambda scale, number: scale ** (number + 1)),
        r"applied again in every block",
    ),
    # a constant factor on the scale is not read as d_k from an axis of that size (the
    # hidden run's batch and heads are 2: 2 / sqrt(d_k) was told "d_k from an axis of size
    # 2") nor as d_k for sqrt(d_k) where sqrt(d_k) = 2: a probe of other sizes tells them
    Mistake(
        check_tiled_attention,
        _tiled_with(scale_of=lambda scale, number: 2 * scale),
        r"your scale is again 2 / sqrt\(d_k\): a constant factor 2 on top of the right "
        r"1/sqrt\(d_k\), not a size read from the wrong place",
    ),
    Mistake(
        check_tiled_attention,
        _tiled_with(scale_of=lambda scale, number: scale / 2),
        r"your scale is again 0\.5 / sqrt\(d_k\): a constant factor 0\.5",
    ),
    Mistake(check_sliding_window_mask, _named("w", _window_loop_unclamped), r"wraps around"),
    # "two mistakes at once" before (the family of blind15e-sw-or-instead-of-and)
    Mistake(
        check_sliding_window_mask,
        _named("w", _window_union_of_conditions),
        r"True everywhere, whatever the window.*\| instead of &",
    ),
    Mistake(
        check_sliding_window_mask,
        _named("w", _window_band_below_the_future),
        r"just lesson 06.s look-ahead mask, whatever the window: older keys are never cut",
    ),
    # blind19f: an additive 0/-inf window mask was told only its dtype
    Mistake(
        check_sliding_window_mask,
        _named("w", _window_additive_filled),
        r"the \*additive\* form .*Its entries are the right mask in that form",
    ),
    Mistake(
        check_sliding_window_mask,
        _named("w", lambda n, w: ((_offsets(n) >= 0) & (_offsets(n) < w)).T),
        r"right one transposed",
    ),
    Mistake(check_KVCache, KeysTransposed, r"last two axes are swapped"),
    Mistake(
        check_generate,
        _named("generate", _generate_tokens_first),
        r"new tokens were put in front of it",
    ),
    Mistake(
        check_generate,
        _generate_with(join=lambda rows: torch.stack(rows, dim=1) / 0.7),
        r"logits are the model's logits times 1\.429 \(divided by 0\.7",
    ),
    Mistake(
        check_grouped_query_attention,
        _named("gqa", _gqa_heads_regrouped),
        r"output heads are the right ones in another order",
    ),
    Mistake(
        check_online_softmax,
        _named("online_softmax", _softmax_one_total),
        r"divided by one total for the whole tensor",
    ),
    Mistake(
        check_tiled_attention,
        _tiled(rescale_output=False, rescale_sum=False),
        r"Neither the running sum nor the accumulated output is rescaled",
    ),
    Mistake(
        check_sliding_window_mask,
        _named("w", lambda n, w: look_ahead_mask(6) & (_offsets(6) < w)),
        r"size an earlier call \(or the visible test\) asked for: is the size hard-coded",
    ),
    Mistake(
        check_KVCache,
        FirstSequenceOnly,
        r"Only the first sequence of the batch \(index 0\) holds its keys: the other "
        r"sequence\(s\) \[[\d, ]+\] were never stored",
    ),
    # round 31: another single sequence stored, said by its index (not as the first one)
    Mistake(
        check_KVCache,
        LastSequenceOnly,
        r"Sequence\(s\) \[0(, 1)?\] of the batch hold only zeros.*written for "
        r"sequence\(s\) \[\d\] only",
    ),
    Mistake(
        check_generate,
        _named("generate", _generate_to_total_length),
        r"max_new_tokens = \d+ positions in all, the prompt's \d+ included",
    ),
    Mistake(
        check_online_softmax,
        _named("online_softmax", _softmax_divides_flat),
        r"divided by the running sum \(\.\.\.,\) without \[\.\.\., None\]",
    ),
    Mistake(
        check_online_softmax,
        _named("online_softmax", _softmax_exp_of_sums),
        r"one exp of the block's sum",
    ),
    Mistake(
        check_tiled_attention,
        _named("tiled_attention", _tiled_blocks_apart),
        r"softmax is taken on its own and the blocks' outputs are averaged",
    ),
    Mistake(
        check_tiled_attention,
        _named("tiled_attention", _tiled_sees_next),
        r"lets query i see key i \+ 1 too",
    ),
    Mistake(
        check_sliding_window_mask,
        _named("w", lambda n, w: (_offsets(n) >= 0) & (-_offsets(n) < w)),
        r"just lesson 06.s look-ahead mask.*bounds the keys ahead of the query",
    ),
    Mistake(
        check_generate,
        _named("generate", _generate_prefill_rows_kept),
        r"tokens you appended have 3 axes: the argmax was taken over logits with a position",
    ),
    Mistake(
        check_generate,
        _named("generate", _generate_swapped),
        r"returned in the wrong order\. Return \(ids, logits\)",
    ),
    Mistake(
        check_grouped_query_attention,
        _named(
            "gqa",
            lambda q, k, v, mask=None: checks.gqa_expected(q, k, v, mask).transpose(1, 2),
        ),
        r"heads and positions are swapped",
    ),
    # round 31: the heads merged into the features after the attention (blind27c's
    # family; the shapes alone before), here with the heads as the fast axis
    Mistake(
        check_grouped_query_attention,
        _named(
            "gqa",
            lambda q, k, v, mask=None: (
                checks.gqa_expected(q, k, v, mask).permute(0, 2, 3, 1).flatten(2)
            ),
        ),
        r"with axes merged: it is \(batch, len_q, d_v \* num_heads\).*d_v and num_heads "
        r"merged into one axis",
    ),
    Mistake(
        check_grouped_query_attention,
        _named("gqa", _gqa_scaled_by_len_k),
        r"divided by sqrt\(len_[kq]\), the square root of a length",
    ),
    Mistake(
        check_tiled_attention,
        _named(
            "t",
            lambda q, k, v, b, causal=False: tiled_attention_f(
                q * math.sqrt(q.shape[-1]) / math.sqrt(v.shape[-1]), k, v, b, causal
            ),
        ),
        r"divided by sqrt\(d_v\), the values' width",
    ),
    # hidden-only before: the visible run had no block starting at the last query's key
    Mistake(
        check_tiled_attention,
        _named("t", _tiled_skips_from_last_query),
        r"attention over keys 0 \.\. \d+ only: the blocks from key \d+ on were "
        r"(never visited|skipped).*start > len_q - 1",
    ),
    # hidden-only before: the visible run's masks were all (len_q, len_k)
    Mistake(
        check_grouped_query_attention,
        _gqa_mask_as_2d(reshape=False),
        r"the mask, \(2, 1, 1, \d+\) here, got new axes",
    ),
    Mistake(
        check_grouped_query_attention,
        _gqa_mask_as_2d(reshape=True),
        r"The mask \(\(2, 1, 1, \d+\) here, \d+ entries\) was reshaped",
    ),
    # hidden-only before: the visible models repeated one token from the first step on
    Mistake(
        check_generate,
        _named("generate", _generate_stale_token),
        r"repeats the one of step \d+ where that step's argmax differs: next_id is not "
        r"recomputed",
    ),
    # blind round 10: two slips at once, both named (the persistent buffers only, before)
    Mistake(
        check_KVCache,
        PersistentFloat32Cache,
        r"(?s)persistent=False.*A second slip: .*not float64: allocate them with dtype=dtype",
    ),
    # a second call on the same model (every single call passed before)
    Mistake(
        check_generate,
        _named("generate", _generate_caches_on_model),
        r"The second generate call on this model started with caches that were not empty: its "
        r"first call of the model, the prompt's, found them already holding 6 positions, the "
        r"first generate call's",
    ),
    # fix round 37: the call replay names the first call whose caches depart
    Mistake(
        check_generate,
        _named("generate", _generate_caches_emptied_each_step),
        r"The caches changed between call 1 and call 2 of the model, outside it: call 1 left "
        r"them holding \d+ positions, and call 2 found 0: emptied between the two calls",
    ),
    Mistake(
        check_generate,
        _named("generate", _generate_decode_caches_made_after_prefill),
        r"Call 2 of the model \(the token at position \d+\) got new, empty caches instead of "
        r"the ones the earlier calls filled: a second set was made after the earlier calls",
    ),
    Mistake(
        check_generate,
        _named("generate", _generate_start_advanced_by_generated),
        r"start advances by the number of tokens generated so far \(the step count",
    ),
    Mistake(
        check_generate,
        _named("generate", _generate_start_advanced_before_append),
        r"start advances by the length of the whole sequence so far, read before the step's "
        r"new token was appended",
    ),
    Mistake(
        check_generate,
        _named("generate", _generate_caches_copied_each_step),
        r"Call 2 of the model \(the token at position \d+\) got other cache objects than the "
        r"ones the call before used, holding the \d+ positions the call before left in its "
        r"own: copies of the caches",
    ),
    Mistake(
        check_generate,
        _named("generate", _generate_layer_caches_reversed),
        r"Call 2 of the model \(the token at position \d+\) got the same caches as the call "
        r"before, but in another order: its list is the call before's caches\[j\] for j in "
        r"\[(2, )?1, 0\] \(reversed\)",
    ),
    Mistake(
        check_generate,
        _named("generate", _generate_token_fed_as_row),
        r"Call 2 of the model fed ids of shape \(1, 2\): a row holding the 2 sequences' new "
        r"tokens side by side",
    ),
    Mistake(
        check_generate,
        _named("generate", _generate_prompt_filled_then_rerun),
        r"the prompt ran twice \(positions 0 \.\. \d+\), in call 1 \(ids of \d+ positions, "
        r"with the caches, start=0\) and call 2 \(ids of \d+ positions, without caches\)",
    ),
    Mistake(
        check_generate,
        _named("generate", _generate_caches_pooled),
        r"This generate started with caches that were not empty: its first call of the model, "
        r"the prompt's, found them already holding \d+ positions, the keys and values of an "
        r"earlier generate call",
    ),
    # the fed token replayed against the learner's own ids (the first wrong step, before)
    Mistake(
        check_generate,
        _named("generate", _generate_feeds_first_token),
        r"fed \[\d+\] \(row \d+\) at position \d+, but your own ids hold \[\d+\] there.*"
        r"first generated token again, fed at every step",
    ),
    # torch's dtype advice, not numpy's
    Mistake(check_generate, _named("generate", _generate_float_ids), r"dtype=torch\.long"),
    # float64 inputs (float32 only, before: passed, or a raw dtype RuntimeError)
    Mistake(
        check_grouped_query_attention,
        _named("gqa", _gqa_softmax_in_float32),
        r"The inputs are float64 here, and a float32 tensor of yours met them.*\.float\(\)",
    ),
    Mistake(
        check_grouped_query_attention,
        _named("gqa", _gqa_all_float32),
        r"returned torch\.float32 for float64 inputs",
    ),
    Mistake(
        check_tiled_attention,
        _tiled_variant(float32=True),
        r"returned torch\.float32 for float64 inputs.*in-place updates",
    ),
    # NaN everywhere: every candidate that gives it, without "one of them is yours"
    Mistake(
        check_online_softmax,
        _named("s", _softmax_old_max),
        r"(?s)(?!.*one of them, or several, is yours)"
        r"each of these mistakes gives exactly that.*against the old running maximum.*"
        r"Other slips can give it too",
    ),
    Mistake(
        check_online_softmax,
        _named("s", _softmax_rescaled_after_adding),
        r"rescaled after adding each block's terms instead of before",
    ),
    Mistake(
        check_tiled_attention,
        _tiled_variant(after=True),
        r"rescaled after adding each block's terms instead of before",
    ),
    # a clash that two slips give: both named (a reduction over the rows, before)
    Mistake(
        check_online_softmax,
        _named("s", _softmax_no_column),
        r"(?s)Two slips give exactly this error: a block's maximum or sum taken over the rows"
        r".*without \[\.\.\., None\]",
    ),
    # an empty block (the raw IndexError, before)
    Mistake(
        check_online_softmax,
        _named("s", _softmax_stop_not_offset),
        r"A maximum was taken over an empty block.*x\[\.\.\., start : start \+ block_size\]",
    ),
    Mistake(
        check_tiled_attention,
        _tiled_variant(stop_only=True),
        r"A maximum was taken over an empty block",
    ),
    # a running tensor with one axis too few (told a sum over dim=-2 when heads == block)
    Mistake(
        check_tiled_attention,
        _tiled_variant(running_axes=-2),
        r"met one of size \d+ along the queries' axis: .*a running tensor \(the maximum, the "
        r"sum or the output\) made with one axis too few, q\.shape\[:-2\]",
    ),
    # a causal skip of partly visible blocks, told apart from a loop that stops early
    Mistake(
        check_tiled_attention,
        _tiled_variant(skip=lambda start, stop, len_q: stop > len_q),
        # (the hidden run has no causal=False call over as many keys first: both candidates)
        r"were skipped\. Your results with causal=False over as many blocks were right.*"
        r"start >= len_q|never visited \(a loop that stops early, or a skip of blocks thought",
    ),
    # blind round 10, second batch (b10k): a running maximum started at 0 (uncaught before:
    # no input had a row whose scores are all far below 0)
    Mistake(
        check_tiled_attention,
        _tiled(initial_max=0.0),
        r"0 / 0 \(NaN\) on the rows whose scores are all far below 0.*starts at 0 instead of "
        r"-inf.*or no maximum is subtracted at all",
    ),
    # a causal mask cut from a square (len_q, len_q) table: the mask, not acc, is named
    Mistake(
        check_tiled_attention,
        _named("t", _tiled_square_causal_mask),
        r"raised RuntimeError.*\n(?!.*accumulated output).*A block's scores have \d+ columns.*"
        r"a square \(len_q, len_q\) one",
    ),
    # the prompt's last token fed again after the prefill: the re-fed position is named
    Mistake(
        check_generate,
        _named("generate", _generate_refeeds_last_prompt_token),
        r"Call 2 of the model \(the token at position \d+\) fed the token at position \d+ "
        r"again \(start=\d+\), the prompt's last token, which the call before already stored",
    ),
    # one row's token given to the whole batch: named (only "not the argmax", before)
    Mistake(
        check_generate,
        _named("generate", _generate_first_token_from_row_0),
        r"every sequence of the batch got the same token, \d+, the argmax of row 0's logits, "
        r"although the rows' argmaxes differ",
    ),
    # each block's terms against the block's own maximum: a model of its own (one of two
    # candidates of a "constant per row" message, neither of them this, before)
    Mistake(
        check_online_softmax,
        _named("s", lambda x, b: online_softmax_f(x, b, terms_max="block")),
        r"running maximum and rescaling are right, but each block's terms are added as "
        r"exp\(block - the block's own maximum\)",
    ),
    # a loop bound of len(x), the rows: the bound is named (only "stops early", before)
    Mistake(
        check_online_softmax,
        _named("s", _online_softmax_blocks_over_len),
        r"covers only the first \d+ of the \d+ columns.*Your loop's bound looks like len\(x\) = "
        r"x\.shape\[0\] = \d+, the number of rows",
    ),
    # grouped query heads with the mask applied as given: named (located only, before)
    Mistake(
        check_grouped_query_attention,
        _named("gqa", _gqa_grouped_queries_mask_as_given),
        # (the visible run's mask lines up silently, the hidden run's raises)
        r"grouped query heads look right, but the mask was applied as given to 5-D scores|"
        r"The mask's batch axis \(\d+\) met num_kv_heads \(\d+\) along axis 1: your scores "
        r"have 5 axes",
    ),
    # a prompt token fed at a stale start: its position in the prompt, not len + t
    Mistake(
        check_generate,
        _named("generate", _generate_prompt_token_by_token_at_0),
        r"Call 2 of the model \(the prompt's token at position 1\) ran with start=0, the same "
        r"start as "
        r"the call before: start never advances\. The caches held 1 position, so this token "
        r"sits at position 1: pass start=1 \(its position in the prompt",
    ),
    # the attention weights returned: their shape is named, both ways to get it (only the
    # shapes, before)
    Mistake(
        check_grouped_query_attention,
        _named("gqa", _gqa_returns_weights),
        r"shape of the attention weights.*unpacked the wrong way round.*never multiplied by "
        r"the values",
    ),
    # buffers replaced by smaller ones, refused by their own capacity test: the replaced
    # buffer is named, not an axis the test might read (asked, before)
    Mistake(
        check_KVCache,
        CatReplacesBuffers,
        r"fit in max_len=\d+: raise ValueError only when more than max_len positions would be "
        r"stored\. Your buffer keys now holds \d+ positions, not max_len = \d+: an earlier call "
        r"replaced it",
    ),
    # a shortcut for window >= size returning all ones: the known models that got an earlier
    # call wrong (not causal, wrapped around) are not named (both were, before)
    Mistake(
        check_sliding_window_mask,
        _named(
            "w",
            lambda n, w: (
                torch.ones(n, n, dtype=torch.bool)
                if w >= n
                else look_ahead_mask(n) & (_offsets(n) < w)
            ),
        ),
        r"dtype=torch\.bool\)\. Your mask is all True: a window that covers every key "
        r"\(window >= size\) still leaves the mask causal",
    ),
    # blind round 13: the buffers under other names than the contract's (passed, before)
    Mistake(
        check_KVCache,
        LlamaNamedCache,
        r"registers its buffers as 'cache_k' and 'cache_v', none named 'keys' and 'values': "
        r"the contract names the two buffers keys and values",
    ),
    # the positions kept outside the buffers, which stay zeros (passed, before)
    Mistake(
        check_KVCache,
        PairsInAList,
        r"returned are right, but your buffer\(s\) keys and values still hold only zeros at "
        r"positions \[0, \d+\): nothing is written into the buffers",
    ),
    # k_new read as (batch, n, num_heads, d_head) and transposed: the tensor written is
    # named (stop = length + n was asked about, before)
    Mistake(
        check_KVCache,
        PositionsReadSecond,
        r"The tensor you wrote into the buffer is \(\d+, \d+, \d+, \d+\): k_new .* with its "
        r"heads and positions axes exchanged.*transposed \(transpose\(1, 2\)\)",
    ),
    # a squeeze that takes a batch axis of 1 with it: a batch of two tells it apart from an
    # argmax without keepdim (which was named, before)
    Mistake(
        check_generate,
        _named("generate", _generate_squeezed_steps),
        r"runs with a batch of 2 sequences \(this prompt twice\) and fails with this batch "
        r"of one: an axis of size 1 is dropped.*\.squeeze\(\) with no dim",
    ),
    # running tensors shaped like x: a 1-D x returns (n, n) (a missing [..., None] was
    # asked about, before)
    Mistake(
        check_online_softmax,
        _named("online_softmax", _softmax_running_like_x),
        r"On a 1-D x of 5 values \(blocks of 2\) your online_softmax returns shape \(5, 5\), "
        r"not \(5,\): your running maximum or sum is shaped like x",
    ),
    # round 17 (blind14e): a 1-D x made one row and returned so, (1, n) (passed, before)
    Mistake(
        check_online_softmax,
        _named("online_softmax", _softmax_atleast_2d),
        r"should have shape \(\d+,\), but it has shape \(1, \d+\)\. On inputs with leading "
        r"axes your shapes were right, so a 1-D x of n values is handled as one row",
    ),
    # round 17 (blind14e): chunked attention, the parameters declared (window, size), the
    # old keys kept without ~ (its band widths, its shape, "the query itself left out",
    # before)
    Mistake(
        check_sliding_window_mask,
        _named("w", _window_chunks_filled),
        r"cuts the positions into fixed chunks of window \(i // window == j // window",
    ),
    Mistake(
        check_sliding_window_mask,
        _named("w", lambda n, w: _window_chunks_filled(n, w, causal=False)),
        r"(?s)lets a query see keys after it.*On and below the diagonal: your mask cuts the "
        r"positions into fixed chunks",
    ),
    Mistake(
        check_sliding_window_mask,
        _named("w", _window_declared_swapped),
        r"the two arguments exchanged, gives the right \(\d+, \d+\) mask: your parameters are "
        r"declared in the order \(window, size\)",
    ),
    Mistake(
        check_sliding_window_mask,
        _named("w", _window_old_keys_kept),
        r"keeps exactly the keys outside the window, those too old \(i - j >= window\).*"
        r"without negating them",
    ),
    # round 17 (blind14e): tiled_attention's FlashAttention-1 output rescaled without the
    # old sum, causal mask filling the allowed keys, a scale of 0 (located only before),
    # blocks counted one past the end (three candidates alike before); online_softmax too
    Mistake(
        check_tiled_attention,
        _tiled_r17("fa1_no_sum"),
        r"kept normalised after every block \(FlashAttention-1's form\), but the old output is "
        r"rescaled by exp\(m_old - m_new\) alone",
    ),
    Mistake(
        check_tiled_attention,
        _tiled_r17("where_allowed"),
        r"Your causal mask is the wrong way round: each query sees only the keys after it",
    ),
    Mistake(
        check_tiled_attention,
        _tiled_r17("int_scale"),
        r"Your scores are all 0: each query's output is the plain average of the values",
    ),
    Mistake(
        check_tiled_attention,
        _tiled_r17("blocks_counted_past"),
        r"runs on n = 5 with blocks of 2, where block_size does not divide n: your starts run "
        r"one block past the end",
    ),
    Mistake(
        check_online_softmax,
        _named("online_softmax", _softmax_blocks_counted_past),
        r"runs on n = 5 with blocks of 2, where block_size does not divide n: your starts run "
        r"one block past the end",
    ),
    # round 17 (blind14e): grouped_query_attention's mask applied to the weights (among
    # candidates before), a key/value head taken without its axis (located only before)
    Mistake(
        check_grouped_query_attention,
        _named("gqa", _gqa_weights_times_mask),
        r"Your mask is applied after the softmax: the blocked weights are set to 0",
    ),
    Mistake(
        check_grouped_query_attention,
        _named("gqa", _gqa_group_loop_selects_kv_head),
        r"takes each one as k\[:, head\] and v\[:, head\]: the integer index drops the head "
        r"axis",
    ),
    # round 16 (blind13e): the causal flag tested for None, block_size read as a count of
    # blocks (the hidden run accepted it), v cut on d_v, the mask used as a boolean index
    Mistake(
        check_tiled_attention,
        _tiled_r16("flag"),
        r"causal=False still gets the causal mask.*`if causal is not None:`",
    ),
    Mistake(
        check_tiled_attention,
        _tiled_r16("count"),
        r"step is 0 with block_size = \d+ > len_k = \d+.*len_k // block_size.*number of blocks",
    ),
    Mistake(
        check_tiled_attention,
        _tiled_r16("v_cols"),
        r"= len_k: v's rows were not cut at all\. .*you sliced v on its last axis",
    ),
    Mistake(
        check_tiled_attention,
        _tiled_r16("bool_index"),
        r"was used as a boolean index.*leading axes of scores",
    ),
    # round 16 (blind13e): grouped_query_attention's softmax over the heads (located only
    # before), the mask read per head or given a new axis (told the key/value heads were
    # repeated len_q times)
    Mistake(
        check_grouped_query_attention,
        _gqa_r16("softmax_dim1"),
        r"Your softmax runs over the heads \(dim=1\), not over the keys: a softmax called "
        r"without dim picks dim=1 on a 4-D tensor",
    ),
    Mistake(
        check_grouped_query_attention,
        _gqa_r16("softmax_module"),
        r"Your softmax runs over the heads \(dim=1\), not over the keys: your softmax was "
        r"called without dim \(PyTorch warned",
    ),
    Mistake(
        check_grouped_query_attention,
        _gqa_r16("mask_by_head"),
        r"spelled out to \(batch, num_heads, len_q, len_k\) = \(\d+, \d+, \d+, \d+\), one slice "
        r"per query head, yours is right.*indexes the mask along the head axis \(mask\[:, h\]",
    ),
    Mistake(
        check_grouped_query_attention,
        _gqa_r16("mask_new_axis"),
        # (the hidden run's first mask is 4-D: its 5-D output is told by the shape check)
        r"Your code inserts a new axis into the mask whatever its shape \(mask\.unsqueeze\(1\).*"
        r"returns a 5-D output|Your output has 5 axes: the mask, .* got new axes .*unsqueeze",
    ),
    # round 16 (blind13e): sliding_window_mask with the window clamped to size - 1 (its band
    # width alone before), positions compared element by element (its shape alone)
    Mistake(
        check_sliding_window_mask,
        _named("w", lambda n, w: look_ahead_mask(n) & (_offsets(n) < min(w, n - 1))),
        r"window is clamped to size - 1 = \d+ \(window = min\(window, size - 1\)\)",
    ),
    Mistake(
        check_sliding_window_mask,
        _named("w", _window_positions_flat),
        r"vector, True everywhere: the query and key positions, two torch\.arange\(size\), "
        r"were compared element by element.*torch\.arange\(size\)\[:, None\]",
    ),
    # round 23: another exponential base; a denominator that stays 0; FlashAttention-1's
    # normalised output with a wrong share of the old output; empty rows; a window
    # anchored at fixed keys; a group's outputs joined on another axis, heads subsampled
    Mistake(
        check_tiled_attention,
        _named("tiled_attention", _tiled_exp_kernel(log2e=True, exp=torch.exp)),
        r"multiplied by log2\(e\), the factor torch\.exp2 needs, but exponentiated with "
        r"torch\.exp",
    ),
    Mistake(
        check_tiled_attention,
        _named("tiled_attention", _tiled_sum_multiplied),
        r"inf everywhere, each entry with the sign of the right value.*divided by 0.*"
        r"running sum of the weights is still 0",
    ),
    Mistake(
        check_online_softmax,
        _named("s", _softmax_sum_never_grows),
        r"divided by 0\. Your running sum is still 0",
    ),
    Mistake(
        check_tiled_attention,
        _named(
            "tiled_attention",
            _tiled_fa1_form(
                lambda old, correction, new: (
                    torch.where(old > 0, new / old, torch.zeros_like(old)) * correction
                )
            ),
        ),
        r"ratio of the sums next to it is upside down: l_new / l_old",
    ),
    Mistake(
        check_tiled_attention,
        _named("tiled_attention", _tiled_fa1_form(lambda old, correction, new: old / new)),
        r"multiplied by the ratio of the sums l_old / l_new, but without exp\(m_old - m_new\)",
    ),
    Mistake(
        check_sliding_window_mask,
        _named("w", _window_rows_without_full_window),
        r"rows? \[?0(, 1)?\]? (is|are) all False.*exactly the first window - 1 = \d+ quer.*"
        r"The other rows are right",
    ),
    Mistake(
        check_sliding_window_mask,
        _named("w", _window_anchored_at_start),
        r"same keys for every query, the first window = \d+ positions.*a condition j < window "
        r"on the key alone",
    ),
    Mistake(
        check_grouped_query_attention,
        _named("gqa", _gqa_groups_joined_on_features),
        r"cut into \d pieces of shape \(2, 2, \d, \d\) along axis 1 \(num_heads\) and "
        r"concatenated along axis 3 \(d_v\).*torch\.cat\(pieces, dim=3\)",
    ),
    Mistake(
        check_grouped_query_attention,
        _named("gqa", _gqa_last_query_head_of_each_group),
        r"right output of query heads \[1, 3(, 5)?\] only.*q\[:, 1::group\]",
    ),
    Mistake(
        check_online_softmax,
        _named("s", _softmax_numerators_only),
        r"unnormalised exponentials exp\(x - m\).*never divided by the running sum",
    ),
    Mistake(
        check_online_softmax,
        _named("s", _softmax_start_advanced_by_one),
        r"column j is counted min\(j \+ 1, block_size\) times, as blocks that overlap",
    ),
    Mistake(
        check_tiled_attention,
        _named("tiled_attention", _tiled_while_under_len_q),
        r"exactly where range\(0, len_q, block_size\) stops: a loop over len_q = "
        r"q\.shape\[-2\] = \d+, the number of queries, instead of len_k",
    ),
    Mistake(
        check_tiled_attention,
        _named("tiled_attention", _tiled_scaled_twice),
        r"the right output times 1/sqrt\(d_k\).*as well as the scores: the scale is applied "
        r"twice",
    ),
    Mistake(
        check_KVCache,
        KeysStoredForTheProduct,
        r"Your keys buffer is transposed: \(batch, num_heads, d_head, max_len\)",
    ),
    Mistake(
        check_generate,
        _named("generate", _generate_prefill_first_sequence),
        r"has len = \d+ rows where batch = \d+ belong.*indexed on its first axis, the batch "
        r"axis",
    ),
    Mistake(
        check_tiled_attention,
        _named("tiled_attention", _tiled_output_shaped_like_queries),
        r"d_k = q\.shape\[-1\], the queries' width: the output was made like q",
    ),
    Mistake(
        check_grouped_query_attention,
        _named("gqa", _gqa_scores_times_root),
        r"is sqrt\(d_head\) = sqrt\(\d+\) = [\d.]+, the inverse of the scale",
    ),
    Mistake(
        check_grouped_query_attention,
        _named("gqa", _gqa_values_tiled_on_features),
        r"values were repeated along their last axis \(dim=-1, the features\).*copied whole, "
        r"one after another 4 times \(repeat along dim=-1\)",
    ),
    # round 32: a step applied to part of an axis (zeros, copies of one index)
    Mistake(
        check_KVCache,
        KVCacheLastHeadOnly,
        r"Along axis 1 .*indices \[\d\] \(of \d\) are right and \[[\d, ]+\] are all zeros",
    ),
    Mistake(
        check_tiled_attention,
        _named("tiled_attention", _tiled_first_sequence_for_all),
        r"Along axis 0 .*are copies of index 0's right result",
    ),
    Mistake(
        check_online_softmax,
        _named("online_softmax", _online_softmax_first_row_for_all),
        r"Along axis 0 .*are copies of index 0's right result",
    ),
    # round 32: state kept outside the call or the instance
    Mistake(
        check_KVCache,
        KVCacheBuffersOnClass,
        r"Your keys buffer is the very tensor of a cache built earlier \(the same memory\)",
    ),
    Mistake(
        check_generate,
        _named("generate", _generate_caches_in_global),
        r"This generate started with caches that were not empty: .*already holding \d+ "
        r"positions, the keys and values of an earlier generate call",
    ),
    Mistake(
        check_generate,
        _named("generate", _generate_caches_default_argument),
        r"This generate started with caches that were not empty: .*already holding \d+ "
        r"positions, the keys and values of an earlier generate call",
    ),
]

CORRECT = [
    # round 21: the keys transposed once for all blocks, the scale as a power
    Correct(check_tiled_attention, _tiled_written(keys_of=lambda k: k.mT)),
    Correct(check_KVCache, GrowingCache),
    Correct(check_tiled_attention, _named("tiled_attention", _tiled_causal())),
    Correct(check_tiled_attention, _tiled_loop()),
    Correct(check_tiled_attention, _named("tiled_attention", _tiled_query_tiles())),
    Correct(check_tiled_attention, _tiled_normalised("flash1")),
    Correct(check_KVCache, GptFastCache),
    Correct(check_generate, _gen(token_by_token=True)),
    Correct(check_generate, _gen(feed_last=True)),
    Correct(check_grouped_query_attention, _named("gqa", _gqa_repeat_kv)),
    Correct(check_grouped_query_attention, _named("gqa", _gqa_grouped_einsum)),
    Correct(check_grouped_query_attention, _named("gqa", _gqa_per_head_loop)),
    Correct(check_grouped_query_attention, _named("gqa", _gqa_chunked_groups)),
    Correct(check_online_softmax, _named("s", _softmax_two_pass)),
    Correct(check_online_softmax, _named("s", _softmax_logsumexp_online)),
    Correct(check_tiled_attention, _named("t", _tiled_normalised_running)),
    # a running maximum started at the most negative float, not -inf: exact
    Correct(check_tiled_attention, _tiled(initial_max=torch.finfo(torch.float32).min)),
    # blind round 10's probes accept: a right skip of the future blocks, state kept on
    # the model but made afresh at each call, a float32 softmax cast back
    Correct(check_tiled_attention, _tiled_variant(skip=lambda start, stop, len_q: start >= len_q)),
    Correct(check_generate, _named("generate", _generate_fresh_caches_on_model)),
    Correct(check_generate, _named("generate", _generate_caches_reused_and_reset)),
    # autograd switched off by a with block instead of the decorator
    Correct(check_generate, _generate_grad_mode("with_no_grad")),
    Correct(check_generate, _generate_grad_mode("inference_mode")),
    Correct(check_grouped_query_attention, _named("gqa", _gqa_softmax_in_float32_cast_back)),
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


def test_the_two_causal_alignments_are_pytorchs():
    """Section 2's cache mask is PyTorch's causal_lower_right; tiled_attention's
    causal=True is is_causal=True (causal_upper_left), also when len_q < len_k."""
    from torch.nn.attention.bias import causal_lower_right, causal_upper_left

    for len_q, len_k in ((3, 7), (1, 5), (4, 4)):
        lower_right = causal_lower_right(len_q, len_k)._materialize()
        assert torch.equal(ref.causal_cache_mask(len_q, len_k), lower_right)
        upper_left = causal_upper_left(len_q, len_k)._materialize()
        assert torch.equal(look_ahead_mask(len_k)[:len_q], upper_left)
    generator = torch.Generator().manual_seed(5)
    q = torch.randn(2, 2, 5, 8, generator=generator)
    k, v = (
        torch.randn(2, 2, 11, 8, generator=generator),
        torch.randn(2, 2, 11, 6, generator=generator),
    )
    for block in (1, 3, 11):
        torch.testing.assert_close(
            ref.tiled_attention(q, k, v, block, True),
            F.scaled_dot_product_attention(q, k, v, is_causal=True),
            rtol=1e-5,
            atol=1e-5,
        )


def test_online_softmax_equals_torch_softmax_with_large_logits():
    x = torch.randn(4, 50, generator=torch.Generator().manual_seed(2)) * 300
    torch.testing.assert_close(ref.online_softmax(x, 7), torch.softmax(x, -1))
    far_below = torch.randn(3, 20, generator=torch.Generator().manual_seed(3)) - 1000
    torch.testing.assert_close(ref.online_softmax(far_below, 6), torch.softmax(far_below, -1))


def test_sliding_window_mask_is_its_definition_and_the_look_ahead_mask_for_wide_windows():
    size, window = 9, 4
    i, j = torch.meshgrid(torch.arange(size), torch.arange(size), indexing="ij")
    assert torch.equal(ref.sliding_window_mask(size, window), (j <= i) & (i - j < window))
    assert torch.equal(ref.sliding_window_mask(size, size), look_ahead_mask(size))


# ------------------------------------------------------- the cache on lesson 11's GPT
def _random_gpt(seed: int) -> GPT:
    """Lesson 11's own GPT with its own initialisation (seeded), in eval mode."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        gpt = GPT(vocab_size=60, d_model=48, num_heads=4, d_ff=96, num_layers=3).eval()
        with torch.no_grad():  # larger embeddings than lesson 11's 0.02: distinct logits
            gpt.embedding.weight.normal_()
    return gpt


def test_cached_gpt_without_caches_is_lesson_11s_gpt():
    gpt = _random_gpt(0)
    cached = ref.CachedGPT.from_gpt(gpt)
    assert set(cached.state_dict()) == {*gpt.state_dict(), "positions_processed"}
    assert not cached.training
    ids = torch.randint(0, 60, (2, 9), generator=torch.Generator().manual_seed(0))
    assert torch.equal(cached(ids), gpt(ids))
    assert int(cached.positions_processed) == 2 * 9


def test_cached_forward_chunk_by_chunk_equals_lesson_11s_gpt_on_the_whole_sequence():
    """The oracle is GPT.forward over the whole sequence; the cached forward sees the
    prompt once, then chunks of 1 and 3 tokens at their positions."""
    gpt = _random_gpt(1)
    cached = ref.CachedGPT.from_gpt(gpt)
    ids = torch.randint(0, 60, (3, 12), generator=torch.Generator().manual_seed(1))
    caches = cached.new_caches(3, 12)
    pieces = []
    for start, stop in ((0, 5), (5, 6), (6, 9), (9, 10), (10, 12)):
        pieces.append(cached(ids[:, start:stop], caches=caches, start=start))
    with torch.no_grad():
        torch.testing.assert_close(torch.cat(pieces, dim=1), gpt(ids), rtol=1e-4, atol=1e-4)
    assert all(cache.length == 12 for cache in caches)


def test_a_cache_one_position_off_changes_the_logits_on_lesson_11s_gpt():
    """RoPE makes the positions matter: the same tokens fed one position too far give
    other logits (what check_generate's off-by-one messages rely on)."""
    gpt = _random_gpt(2)
    cached = ref.CachedGPT.from_gpt(gpt)
    ids = torch.randint(0, 60, (1, 8), generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        right, wrong = cached.new_caches(1, 8), cached.new_caches(1, 8)
        cached(ids[:, :7], caches=right, start=0)
        cached(ids[:, :7], caches=wrong, start=0)
        good = cached(ids[:, 7:], caches=right, start=7)
        off = cached(ids[:, 7:], caches=wrong, start=8)
    assert (good - off).abs().max() > 1e-2


def test_cached_generation_gives_the_uncached_tokens_and_runs_each_position_once():
    model = ref.make_cached_gpt(seed=3)
    prompt = torch.randint(0, 50, (3, 6), generator=torch.Generator().manual_seed(3))
    slow_ids, slow_logits = ref.generate_without_cache(model, prompt, 30)
    before = int(model.positions_processed)
    fast_ids, fast_logits = ref.generate(model, prompt, 30)
    assert torch.equal(slow_ids, fast_ids)
    torch.testing.assert_close(fast_logits, slow_logits, rtol=1e-4, atol=1e-4)
    assert int(model.positions_processed) - before == 3 * (6 + 30 - 1)


def test_a_learners_cache_class_plugs_into_the_shipped_gpt_and_generates_its_tokens():
    """The lesson's demo: lesson 11's shipped checkpoint, a cache of the learner's own
    (here the HF-style growing one), generation of Python with the uncached tokens."""
    record = shipped_model.load_record()
    gpt = shipped_model.load_model(record)
    prompt = torch.tensor([stdlib_corpus.encode("def __init__(self", shipped_model.merges(record))])
    new_tokens = min(60, record["config"]["block_size"] - prompt.shape[1])  # the lesson's demo
    theirs = ref.CachedGPT.from_gpt(gpt, cache_class=GrowingCache)
    assert isinstance(theirs.new_caches(1, 4)[0], GrowingCache)
    fast_ids, fast_logits = ref.generate(theirs, prompt, new_tokens)
    slow = ref.CachedGPT.from_gpt(gpt)
    slow_ids, slow_logits = ref.generate_without_cache(slow, prompt, new_tokens)
    assert torch.equal(fast_ids, slow_ids)
    torch.testing.assert_close(fast_logits, slow_logits, rtol=1e-4, atol=1e-4)


def test_cache_bytes_of_the_shipped_gpt_match_the_formula():
    """Sizes from the checkpoint's record (never typed here): 2 · layers · heads · d_head
    · length · bytes, per sequence."""
    config = shipped_model.load_record()["config"]
    model = ref.CachedGPT.from_gpt(shipped_model.load_model())
    caches = model.new_caches(2, 100)
    measured = sum(c.keys.nbytes + c.values.nbytes for c in caches)
    d_head = config["d_model"] // config["num_heads"]
    assert measured == 2 * config["num_layers"] * config["num_heads"] * d_head * 100 * 4 * 2


def test_step_times_measure_both_ways_at_every_length():
    times = ref.step_times(ref.make_cached_gpt(seed=4), [8, 16], repeats=1)
    assert set(times) == {"without cache", "with cache"}
    assert all(len(seconds) == 2 and min(seconds) > 0 for seconds in times.values())


# ------------------------------------------------------- the benchmark's record (README)
def test_the_benchmark_record_is_of_the_shipped_model_and_meets_the_targets():
    """What the lesson shows when graded and the README states, checked against the
    targets and against the shipped checkpoint (remake the record with
    `python benchmarks/inference_benchmark.py --record` when lesson 11's model changes)."""
    record = json.loads((CHECKPOINTS / "inference_benchmark.json").read_text())
    config = shipped_model.load_record()["config"]
    assert record["model"] == {
        key: config[key] for key in ("d_model", "num_heads", "d_ff", "num_layers")
    }, "the record was measured on another model: re-run the benchmark with --record"
    generation = record["generation"]
    assert generation["tokens"] == 512 and generation["same_tokens"]
    assert generation["ms_per_token_without_cache"] >= 3 * generation["ms_per_token_with_cache"]
    assert record["step_times"]["lengths"] == [64, 128, 256, 512, 1024]
    assert record["step_times"]["rounds"] >= 5  # the plot shows the fastest round of each
    memory = record["cache_memory"]
    d_head = config["d_model"] // config["num_heads"]
    for length, measured in zip(memory["lengths"], memory["bytes"], strict=True):
        assert measured == 2 * config["num_layers"] * config["num_heads"] * d_head * length * 4
    attention = record["attention_memory"]
    assert attention["lengths"][-1] == 4096
    assert attention["tiled"][-1] <= attention["naive"][-1] / 8


def test_the_readme_states_the_benchmark_record():
    """The README's lesson-12 paragraph gives the benchmark's recorded figures, none typed
    out of step with the record (remake both with `benchmarks/inference_benchmark.py
    --record`)."""
    from common import REPO

    record = json.loads((CHECKPOINTS / "inference_benchmark.json").read_text())
    model, generation = record["model"], record["generation"]
    steps = record["step_times"]["seconds"]
    attention = record["attention_memory"]
    readme = (REPO / "README.md").read_text()
    paragraph = readme.split("**Lesson 12, measured.**")[1].split("```")[0]
    paragraph = " ".join(paragraph.split())  # line breaks folded

    def per_step(key: str) -> str:
        return " / ".join(f"{seconds * 1000:.1f}" for seconds in steps[key])

    without, with_cache = (
        generation["ms_per_token_without_cache"],
        generation["ms_per_token_with_cache"],
    )
    figures = [
        f"d_model {model['d_model']}, {model['num_heads']} heads, {model['num_layers']} layers, "
        f"d_ff {model['d_ff']}",
        f"{generation['tokens']} tokens ({generation['prompt_tokens']}-token prompt",
        f"took {without:.1f} ms per token without a KV cache and {with_cache:.1f} ms with it, "
        f"{without / with_cache:.1f}x faster",
        f"took {per_step('without cache')} ms without the cache",
        f"and {per_step('with cache')} ms with it",
        f"the fastest of {record['step_times']['rounds']} rounds",
        record["machine"].split("(")[-1].rstrip(")"),  # the load average while it ran
        f"({record['cache_memory']['bytes'][-1]:,} at {record['cache_memory']['lengths'][-1]} positions)",
        f"{attention['tiled'][-1] / 2**20:.2f} MiB",
        f"naive attention's {attention['naive'][-1] / 2**20:.2f} MiB, "
        f"1/{attention['naive'][-1] / attention['tiled'][-1]:.1f}",
    ]
    assert [figure for figure in figures if figure not in paragraph] == []


@pytest.mark.notebook
def test_untouched_student_notebook_runs_every_cell_but_the_graded_ones():
    """Run headless as nbgrader runs it, the untouched student notebook fails only its
    graded test cells: the demos run on the reference until the learner's KVCache and
    generate exist. (The same run as tests/test_notebooks.py's: common.validated_notebook.)"""
    run = validated_notebook(REPO / "notebooks" / "12_inference" / "12_inference.ipynb")
    problems = []
    for cell in run.nb.cells:
        if cell.cell_type != "code" or cell.metadata.get("nbgrader", {}).get("grade"):
            continue
        for error in run.errors(cell):
            problems.append(f"{cell.source.splitlines()[0]!r}: {error.ename}: {error.evalue}")
    assert not problems, "\n".join(problems)
    assert run.seconds < 60, f"the graded run took {run.seconds:.1f} s"


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


# ------------------------------------------ issue 22: diagnoses that name the mistake made
def _visible_message(check, fn) -> str:
    with pytest.raises(CheckFailure) as failure:
        check(fn)
    return failure.value.message


@torch.no_grad()
def _generate_stale_start(model, prompt, max_new_tokens):
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits = model(prompt, caches=caches, start=0)[:, -1]
    ids, steps = prompt, []
    for step in range(max_new_tokens):
        steps.append(logits)
        next_id = logits.argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
        if step + 1 < max_new_tokens:
            logits = model(next_id, caches=caches, start=length + 1)[:, -1]
    return ids, torch.stack(steps, dim=1)


@torch.no_grad()
def _generate_start_counts_every_sequence(model, prompt, max_new_tokens):
    """Each new token's start is the number of tokens before it in all the sequences."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits = model(prompt, caches=caches, start=0)[:, -1]
    ids, steps = prompt, []
    for step in range(max_new_tokens):
        steps.append(logits)
        next_id = logits.argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
        if step + 1 < max_new_tokens:
            logits = model(next_id, caches=caches, start=ids.numel() - batch)[:, -1]
    return ids, torch.stack(steps, dim=1)


@torch.no_grad()
def _generate_start_from_sequence_and_prompt(model, prompt, max_new_tokens):
    """Each new token's start is the sequence's length plus the prompt's, minus one."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits = model(prompt, caches=caches, start=0)[:, -1]
    ids, steps = prompt, []
    for step in range(max_new_tokens):
        steps.append(logits)
        next_id = logits.argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
        if step + 1 < max_new_tokens:
            logits = model(next_id, caches=caches, start=ids.shape[1] + length - 1)[:, -1]
    return ids, torch.stack(steps, dim=1)


@torch.no_grad()
def _generate_prompt_tail_one_late(model, prompt, max_new_tokens):
    """The prompt's last two tokens run after a prefill of the others, every start one late."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    model(prompt[:, : length - 2], caches=caches, start=0)
    logits = model(prompt[:, -2:], caches=caches, start=length - 1)[:, -1]
    ids, steps = prompt, []
    for step in range(max_new_tokens):
        steps.append(logits)
        next_id = logits.argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
        if step + 1 < max_new_tokens:
            logits = model(next_id, caches=caches, start=ids.shape[1])[:, -1]
    return ids, torch.stack(steps, dim=1)


@torch.no_grad()
def _generate_last_prompt_token_apart(model, prompt, max_new_tokens):
    """The prompt's last token run after a prefill of the others, every start one late."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    model(prompt[:, : length - 1], caches=caches, start=0)
    ids, steps, token = prompt, [], prompt[:, -1:]
    while len(steps) < max_new_tokens:
        logits = model(token, caches=caches, start=ids.shape[1])[:, -1]
        steps.append(logits)
        token = logits.argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, token], dim=1)
    return ids, torch.stack(steps, dim=1)


@torch.no_grad()
def _generate_while_feeding_every_token(model, prompt, max_new_tokens):
    """A while loop that feeds every chosen token, with caches of len + max_new_tokens - 1."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens - 1)
    logits = model(prompt, caches=caches, start=0)[:, -1]
    ids, steps = prompt, []
    while len(steps) < max_new_tokens:
        steps.append(logits)
        next_id = logits.argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
        logits = model(next_id, caches=caches, start=ids.shape[1] - 1)[:, -1]
    return ids, torch.stack(steps, dim=1)


@torch.no_grad()
def _generate_steps_read_at_prompt_end(model, prompt, max_new_tokens):
    """The prefill read at [:, -1], each step's logits at the prompt's last index."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits = model(prompt, caches=caches, start=0)[:, -1]
    ids, steps = prompt, []
    for step in range(max_new_tokens):
        steps.append(logits)
        next_id = logits.argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
        if step + 1 < max_new_tokens:
            out = model(next_id, caches=caches, start=length + step)
            logits = out[:, prompt.shape[1] - 1]
    return ids, torch.stack(steps, dim=1)


@torch.no_grad()
def _generate_prompt_uncached(model, prompt, max_new_tokens):
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    for position in range(length):  # the prompt token by token, but without the caches
        logits = model(prompt[:, : position + 1])[:, -1]
    ids, steps = prompt, []
    for step in range(max_new_tokens):
        steps.append(logits)
        next_id = logits.argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
        if step + 1 < max_new_tokens:
            logits = model(next_id, caches=caches, start=length + step)[:, -1]
    return ids, torch.stack(steps, dim=1)


@torch.no_grad()
def _generate_fresh_caches(model, prompt, max_new_tokens):
    batch, length = prompt.shape
    logits = model(prompt, caches=model.new_caches(batch, length), start=0)[:, -1]
    ids, steps = prompt, []
    for step in range(max_new_tokens):
        steps.append(logits)
        next_id = logits.argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
        if step + 1 < max_new_tokens:
            fresh = model.new_caches(batch, 1)
            logits = model(next_id, caches=fresh, start=length + step)[:, -1]
    return ids, torch.stack(steps, dim=1)


@torch.no_grad()
def _generate_logits_late(model, prompt, max_new_tokens):
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits = model(prompt, caches=caches, start=0)[:, -1]
    ids, steps = prompt, []
    for step in range(max_new_tokens):
        next_id = logits.argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
        logits = model(next_id, caches=caches, start=length + step)[:, -1]
        steps.append(logits)
    return ids, torch.stack(steps, dim=1)


@torch.no_grad()
def _generate_skips_last_call(model, prompt, max_new_tokens):
    """The loop's last model call is skipped (step + 2 < max_new_tokens): the last step
    records the logits of the step before."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits = model(prompt, caches=caches, start=0)[:, -1]
    ids, steps = prompt, []
    for step in range(max_new_tokens):
        steps.append(logits)
        next_id = logits.argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
        if step + 2 < max_new_tokens:
            logits = model(next_id, caches=caches, start=length + step)[:, -1]
    return ids, torch.stack(steps, dim=1)


@torch.no_grad()
def _generate_prefill_last_token(model, prompt, max_new_tokens):
    """Only the prompt's last token is run as the prefill."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits = model(prompt[:, -1:], caches=caches, start=length - 1)[:, -1]
    ids, steps = prompt, []
    for step in range(max_new_tokens):
        steps.append(logits)
        next_id = logits.argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
        if step + 1 < max_new_tokens:
            logits = model(next_id, caches=caches, start=length + step)[:, -1]
    return ids, torch.stack(steps, dim=1)


@torch.no_grad()
def _generate_caches_batch_one(model, prompt, max_new_tokens):
    _batch, length = prompt.shape
    caches = model.new_caches(1, length + max_new_tokens)
    logits = model(prompt, caches=caches, start=0)[:, -1]
    return prompt, logits


@torch.no_grad()
def _generate_negative_cache(model, prompt, max_new_tokens):
    batch, length = prompt.shape
    caches = model.new_caches(batch, length - max_new_tokens)
    logits = model(prompt, caches=caches, start=0)[:, -1]
    return prompt, logits


@torch.no_grad()
def _generate_whole_sequence(model, prompt, max_new_tokens, room=0):
    """After the prefill, the whole sequence so far fed with the caches at every step (as
    with a cache API that takes the full ids, https://github.com/huggingface/transformers/issues/1749)."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens + room)
    logits = model(prompt, caches=caches, start=0)[:, -1]
    ids, steps = prompt, []
    for step in range(max_new_tokens):
        steps.append(logits)
        ids = torch.cat([ids, logits.argmax(dim=-1, keepdim=True)], dim=1)
        if step + 1 < max_new_tokens:
            logits = model(ids, caches=caches)[:, -1]
    return ids, torch.stack(steps, dim=1)


@torch.no_grad()
def _generate_unsqueezed(model, prompt, max_new_tokens):
    """The argmax made a row with unsqueeze(0): right for a batch of one only."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits = model(prompt, caches=caches, start=0)[:, -1]
    ids, steps = prompt, []
    for step in range(max_new_tokens):
        steps.append(logits)
        next_id = logits.argmax(dim=-1).unsqueeze(0)
        ids = torch.cat([ids, next_id], dim=1)
        if step + 1 < max_new_tokens:
            logits = model(next_id, caches=caches, start=length + step)[:, -1]
    return ids, torch.stack(steps, dim=1)


@torch.no_grad()
def _generate_sampled(model, prompt, max_new_tokens):
    """Each token drawn from the softmax instead of the argmax."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits = model(prompt, caches=caches, start=0)[:, -1]
    ids, steps, generator = prompt, [], torch.Generator().manual_seed(0)
    for step in range(max_new_tokens):
        steps.append(logits)
        next_id = torch.multinomial(torch.softmax(logits, -1), 1, generator=generator)
        ids = torch.cat([ids, next_id], dim=1)
        if step + 1 < max_new_tokens:
            logits = model(next_id, caches=caches, start=length + step)[:, -1]
    return ids, torch.stack(steps, dim=1)


def _generate_probabilities(model, prompt, max_new_tokens):
    ids, logits = ref.generate(model, prompt, max_new_tokens)
    return ids, logits.softmax(dim=-1)


@torch.no_grad()
def _generate_prompt_logits_twice_uncached(model, prompt, max_new_tokens):
    """The prompt's first logits taken from two uncached runs (the second to compare), the
    caches filled by a third: the prompt runs 3 times, every result right (round 29's
    class: positions run more than once, read off the model calls)."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits = model(prompt)[:, -1]  # (batch, vocab)
    logits = 0.5 * (logits + model(prompt)[:, -1])
    model(prompt, caches=caches, start=0)
    ids, steps = prompt, []
    for step in range(max_new_tokens):
        steps.append(logits)
        next_id = logits.argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
        if step + 1 < max_new_tokens:
            logits = model(next_id, caches=caches, start=length + step)[:, -1]
    return ids, torch.stack(steps, dim=1)


@torch.no_grad()
def _generate_reads_first_output(model, prompt, max_new_tokens):
    """Every step's model output kept in a list, but each step reads the list's first entry
    (round 28's class: a step's logits computed and never read, with every call right)."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    outputs = [model(prompt, caches=caches, start=0)[:, -1]]  # each (batch, vocab)
    ids, steps = prompt, []
    for step in range(max_new_tokens):
        logits = outputs[0]
        steps.append(logits)
        next_id = logits.argmax(dim=-1, keepdim=True)  # (batch, 1)
        ids = torch.cat([ids, next_id], dim=1)
        if step + 1 < max_new_tokens:
            outputs.append(model(next_id, caches=caches, start=length + step)[:, -1])
    return ids, torch.stack(steps, dim=1)


def _generate_log_probabilities(model, prompt, max_new_tokens):
    ids, logits = ref.generate(model, prompt, max_new_tokens)
    return ids, logits.log_softmax(dim=-1)


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        # told "check what that step fed to the model", although the model ran as it should
        (_generate_probabilities, r"logits are probabilities"),
        (_generate_log_probabilities, r"logits are log-probabilities"),
        (
            _generate_skips_last_call,
            r"logits at step \d repeat those of step \d: the model was not",
        ),
        (
            _generate_reads_first_output,
            r"logits at step 1 repeat those of step 0, although your function ran the model \d+ "
            r"times, as it should, on the right tokens: the step's new logits are discarded",
        ),
        (_generate_negative_cache, r"(?s)non-negative.*caches were made with a negative size"),
        (_generate_prefill_last_token, r"positions 0 \.\. \d+ of the prompt never ran"),
        (_generate_caches_batch_one, r"(?s)axis 0 \(batch\).*caches hold one slot per sequence"),
        (_generate_stale_start, r"Call 2 of the model .* ran with start=6, but the caches held 5"),
        (
            _generate_prompt_uncached,
            r"prefill ran without the caches: the prompt's calls of the model \(calls 1 \.\. 5\) "
            r"got caches=None.*still empty when call 6, the first new token's, used them",
        ),
        (
            _generate_prompt_logits_twice_uncached,
            r"the prompt ran 3 times \(positions 0 \.\. \d+\), in call 1 .*without caches.* "
            r"and call 3 \(ids of \d+ positions, with the caches, start=0\)",
        ),
        # "advances by 2, one more than" before (the family of blind21c-generate-start-
        # from-positions-processed)
        (
            _generate_start_counts_every_sequence,
            r"start is 2 × the positions the caches held, the tokens of all 2 sequences",
        ),
        # the caches' size alone before (the family of blind16e-gen-feeds-last-token-
        # caches-one-short)
        (
            _generate_while_feeding_every_token,
            r"the last chosen token was fed to the model too, a useless call.*Either skip",
        ),
        # the family of blind14e-gen-step-logits-at-prompt-last-index
        (
            _generate_steps_read_at_prompt_end,
            r"Index \d+ is len - 1 = \d+ - 1, the prompt's last position",
        ),
        # no rule named before (the family of blind11l-gen-prompt-counted-twice-in-start)
        (
            _generate_start_from_sequence_and_prompt,
            r"each start is 5 more than the positions held.*prompt's length len: it is "
            r"counted twice",
        ),
        # the family "every start one position off after the prefill" (told "the start
        # is len" although the prefill stopped one token short)
        (
            _generate_prompt_tail_one_late,
            r"rotated 1 position too far, leaving a gap after position \d+ \(position \d+ never",
        ),
        (
            _generate_last_prompt_token_apart,
            r"prompt's last token, fed on its own next, sits at position len - 1",
        ),
        (_generate_fresh_caches, r"got new, empty caches"),
        (_generate_logits_late, r"recorded one step late"),
        # was "The caches are too small ...: make them with model.new_caches(batch, len +
        # max_new_tokens)", which they were (blind6d-gen-whole-sequence-each-step)
        (
            _generate_whole_sequence,
            r"(?s)room for \d+ positions .*enough.*Call 2 of the model fed the whole sequence so "
            r"far \(6 positions, start=0\).*feed only the newest token",
        ),
        # was torch.cat's axes and the (batch, 1) rule only (blind6d-gen-unsqueeze-batch-one)
        (_generate_unsqueezed, r"appended have 1 row, not batch = 2: either a \(1, batch\)"),
        (
            lambda model, prompt, new: _generate_whole_sequence(model, prompt, new, room=100),
            r"Call 2 of the model fed the whole sequence so far",
        ),
    ],
)
def test_generate_names_the_first_call_that_departs_from_cached_generation(fn, message):
    """Four cache bugs used to share "logits differ ... largest difference at index ..."."""
    text = _visible_message(check_generate, _named("generate", fn))
    assert re.search(message, text), text
    assert "largest difference" not in text


class _LengthNeverAdvances(ref.KVCache):
    def forward(self, k_new, v_new):
        n = k_new.shape[-2]
        self.keys[:, :, :n] = k_new
        self.values[:, :, :n] = v_new
        return self.keys[:, :, :n], self.values[:, :, :n]


class _PersistentCache(ref.KVCache):
    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
        super().__init__(batch, num_heads, max_len, d_head, dtype)
        keys, values = self.keys, self.values
        del self.keys, self.values
        self.register_buffer("keys", keys)
        self.register_buffer("values", values)


class _Float32Cache(ref.KVCache):
    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
        super().__init__(batch, num_heads, max_len, d_head)


class _FeatureAxisCache(nn.Module):
    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
        super().__init__()
        empty = torch.zeros(batch, num_heads, 0, d_head, dtype=dtype)
        self.register_buffer("keys", empty, persistent=False)
        self.register_buffer("values", empty.clone(), persistent=False)

    def forward(self, k_new, v_new):
        self.keys = torch.cat([self.keys, k_new], dim=-1)
        self.values = torch.cat([self.values, v_new], dim=-1)
        return self.keys, self.values


class _AdvancesByHeads(ref.KVCache):
    """The offset taken from the heads axis
    (https://github.com/fla-org/flash-linear-attention/issues/126)."""

    def forward(self, k_new, v_new):
        start, stop = self.length, self.length + k_new.shape[1]
        self.keys[:, :, start:stop] = k_new
        self.values[:, :, start:stop] = v_new
        self.length = stop
        return self.keys[:, :, :stop], self.values[:, :, :stop]


class _LengthByHeads(ref.KVCache):
    """Writes the n new positions, then counts num_heads of them."""

    def forward(self, k_new, v_new):
        keys, values = super().forward(k_new, v_new)
        self.length += k_new.shape[1] - k_new.shape[-2]
        return keys, values


class _LengthOneShort(ref.KVCache):
    """Writes the n new positions, then counts one too few."""

    def forward(self, k_new, v_new):
        keys, values = super().forward(k_new, v_new)
        self.length -= 1
        return keys, values


def _length_by(update):
    """A cache that writes the n new positions where they belong, then sets self.length to
    update(length, n) instead of length + n."""

    class LengthByRule(ref.KVCache):
        def forward(self, k_new, v_new):
            length = self.length
            keys, values = super().forward(k_new, v_new)
            self.length = update(length, k_new.shape[-2])
            return keys, values

    return LengthByRule


class _ParameterCache(ref.KVCache):
    """Keys and values made nn.Parameter instead of buffers."""

    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
        super().__init__(batch, num_heads, max_len, d_head, dtype)
        keys, values = self.keys, self.values
        del self.keys, self.values
        self.keys, self.values = nn.Parameter(keys), nn.Parameter(values)


@pytest.mark.parametrize(
    ("cls", "message"),
    [
        # was PyTorch's "expanded size ... must match" and the shapes' rule alone
        # (blind6d-kv-advances-by-heads)
        (
            _AdvancesByHeads,
            r"holds 2 positions, but k_new has n = 3.*k_new\.shape\[1\] \(num_heads\)",
        ),
        # a probe whose sizes all differ tells apart the rules that give the check's one
        # count (they were named alongside: "n - 1, one too few ... or num_heads")
        (_LengthByHeads, r"advances by 4, whatever .*k_new\.shape\[1\] \(num_heads\), not n"),
        (_LengthOneShort, r"self\.length advances by n - 1, one too few \(an off-by-one\)\."),
        # the family "self.length advanced by the wrong quantity", read as an update rule
        # (blind11e-kv-length-plus-one, += 1, was told only that it counts wrongly)
        (_length_by(lambda length, n: length + 1), r"advances by 1, whatever .*\+= 1"),
        (_length_by(lambda length, n: length + 2), r"advances by 2, whatever .*\+= 2"),
        (
            _length_by(lambda length, n: length + 2 * n),
            r"advances by 2n: the positions of the keys",
        ),
        # was "self.length never advances", although it moves on every call
        (_length_by(lambda length, n: n), r"is set to the n positions of the last call"),
        # was "register the buffers with persistent=False", although they were no buffers
        # (blind6d-kv-buffers-as-parameters)
        (_ParameterCache, r"has parameters \['keys', 'values'\].*register_buffer"),
        # was "It returned only the new positions" (the symptom another bug shares)
        (_LengthNeverAdvances, r"self\.length never advances"),
        (_PersistentCache, r"persistent=False"),
        (_Float32Cache, r"allocate the buffers with dtype=dtype"),
        # was PyTorch's raw "Sizes of tensors must match except in dimension 3" alone
        (_FeatureAxisCache, r"along axis 3 \(d_head\)"),
    ],
)
def test_kv_cache_names_the_state_or_the_axis_that_is_wrong(cls, message):
    text = _visible_message(check_KVCache, cls)
    assert re.search(message, text), text


def test_an_error_raised_in_course_code_called_by_the_learner_says_so():
    @torch.no_grad()
    def generate(model, prompt, max_new_tokens):
        caches = model.new_caches(prompt.shape[0], prompt.shape[1])  # no room for new tokens
        logits = model(prompt, caches=caches)[:, -1]
        model(logits.argmax(-1, keepdim=True), caches=caches, start=prompt.shape[1])
        raise AssertionError("the cache should have refused")

    text = _visible_message(check_generate, generate)
    assert "the course's own code" in text, text


def _online_softmax_upcast(x, block_size):
    """Computed in float32 (x.float(), as some softmax code does), never cast back."""
    return ref.online_softmax(x.float(), block_size)


def _online_softmax_blocks_over_rows(x, block_size):
    """The blocks taken along the first axis: right for a 1-D x only."""
    running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    for start in range(0, x.shape[0], block_size):
        block = x[start : start + block_size]
        new_max = torch.maximum(running_max, block.amax(dim=-1))
        total = total * torch.exp(running_max - new_max) + torch.exp(
            block - new_max[..., None]
        ).sum(dim=-1)
        running_max = new_max
    return torch.exp(x - running_max[..., None]) / total[..., None]


@pytest.mark.parametrize(
    ("fn", "message", "hidden"),
    [
        # accepted with a note before, although the contract keeps x's dtype
        # (blind6d-online-upcast-float32)
        (_online_softmax_upcast, r"returned torch\.float32 for a float64 input", False),
        (_online_softmax_upcast, r"returned torch\.float32 for a float64 input", True),
        # was "largest difference" and the algorithm restated; the hidden run accepted it
        # (blind6d-online-blocks-over-rows)
        (_online_softmax_blocks_over_rows, r"blocks walk the first axis", False),
        (_online_softmax_blocks_over_rows, r"blocks walk the first axis", True),
    ],
)
def test_online_softmax_names_a_lost_dtype_and_blocks_over_rows(fn, message, hidden):
    with pytest.raises(CheckFailure) as failure:
        check_online_softmax(_named("online_softmax", fn), hidden=hidden)
    assert re.search(message, failure.value.message), failure.value.message


def _tiled_sum_not_column(q, k, v, block_size, causal=False):
    """The final division by the running sum without [..., None]."""
    unnormalised = ref.tiled_attention(q, k, v, block_size, causal)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    total = torch.exp(scores - scores.amax(-1, keepdim=True)).sum(-1)  # (..., len_q)
    return unnormalised * total[..., None] / total


def _tiled_blocks_on_first_axis(q, k, v, block_size, causal=False):
    """The key and value blocks sliced on the first axis: right for 2-D inputs only."""
    output = torch.zeros((*q.shape[:-1], v.shape[-1]))
    for start in range(0, k.shape[-2], block_size):
        scores = q @ k[start : start + block_size].transpose(-2, -1)
        output = output + torch.softmax(scores, dim=-1) @ v[start : start + block_size]
    return output


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        # was PyTorch's size mismatch and the generic broadcasting hint
        # (blind6d-tiled-divide-without-none)
        (_tiled_sum_not_column, r"The sizes 4 and 6 are d_v and len_q.*total\[\.\.\., None\]"),
        # was the shapes alone (blind6d-tiled-slices-first-axis)
        (_tiled_blocks_on_first_axis, r"leading axes are \(0, 3\), not \(1, 3\).*first axis"),
    ],
)
def test_tiled_attention_names_a_sum_that_is_not_a_column_and_blocks_on_the_first_axis(fn, message):
    text = _visible_message(check_tiled_attention, _named("tiled_attention", fn))
    assert re.search(message, text), text


def test_generate_names_a_token_that_is_not_the_argmax():
    """Told "check what that step fed to the model" before, although the model was fed the
    token chosen; the visible models' logits are peaked enough that sampling picks the
    argmax there."""
    with pytest.raises(CheckFailure) as failure:
        check_generate(_named("generate", _generate_sampled), hidden=True)
    assert re.search(
        r"logits up to step 0 are right, but the token appended at step 0 .* is not the argmax",
        failure.value.message,
    ), failure.value.message


def _tiled_skips_last_block(q, k, v, block_size, causal=False):
    """The loop stops before the last, shorter block of keys."""
    cut = k.shape[-2] - k.shape[-2] % block_size
    return ref.tiled_attention(q, k[..., :cut, :], v[..., :cut, :], block_size, causal)


def test_tiled_attention_names_a_skipped_last_block():
    """ "largest difference" and the algorithm restated before."""
    text = _visible_message(
        check_tiled_attention, _named("tiled_attention", _tiled_skips_last_block)
    )
    assert "The last, shorter block of keys is skipped" in text, text


def test_all_nan_online_softmax_names_every_cause_that_gives_it():
    """An output NaN everywhere used to get the fixed hint ("large scores overflow")."""

    def online_softmax(x, block_size):
        return online_softmax_f(x, block_size, rescale="inverted_raw")

    text = _visible_message(check_online_softmax, online_softmax)
    assert "NaN or inf everywhere" in text and "inverted" in text, text


def test_grouped_query_attention_names_an_inverted_mask_and_the_axis_of_a_shape_error():
    def inverted(q, k, v, mask=None):
        return ref.grouped_query_attention(q, k, v, None if mask is None else ~mask)

    def repeated_on_positions(q, k, v, mask=None):
        group = q.shape[1] // k.shape[1]
        k, v = k.repeat_interleave(group, dim=2), v.repeat_interleave(group, dim=2)
        return scaled_dot_product_attention(q, k, v)[0]

    assert "wrong way round" in _visible_message(check_grouped_query_attention, inverted)
    text = _visible_message(check_grouped_query_attention, repeated_on_positions)
    assert re.search(r"axis 1 \(heads\)", text), text


def test_quiz_cache_memory_names_every_slip_that_gives_a_wrong_number():
    """384 is 4 bytes per number, or the 32 query heads with keys or values only: both are
    named (only the first was, and blind10e-quiz-query-heads-no-kv-factor made the second);
    201.3 is megabytes (a bare "not right" before)."""
    from transformer_course.checks.inference import check_quiz_cache_memory

    def message(number):
        with pytest.raises(CheckFailure) as failure:
            check_quiz_cache_memory(lambda: number)
        return failure.value.message

    text = message(384)
    assert (
        "4 bytes per number" in text
        and "(keys or values, not both) and (the 32 query heads)" in text
    )
    assert "megabytes" in message(2 * 48 * 8 * 128 * 1024 * 2 / 10**6)
    assert "the 32 query heads" in message(768)
    check_quiz_cache_memory(lambda: 192)


def test_quiz_cache_memory_names_d_head_split_over_the_heads():
    """d_head read as a width the heads share: split over the 32 query heads (4 numbers
    each) gives 6 MiB, which nothing named before; 24 MiB, split over the 8 key/value
    heads, is also one key/value head: both are named (blind20c-quiz-cache-d-head-split-
    over-kv-heads was told only the second)."""
    from transformer_course.checks.inference import check_quiz_cache_memory

    with pytest.raises(CheckFailure, match=r"d_head = 128 split over the 32 query heads"):
        check_quiz_cache_memory(lambda: 2 * 48 * 8 * (128 // 32) * 1024 * 2 / 2**20)
    with pytest.raises(
        CheckFailure, match=r"one key/value head, not 8; or d_head = 128 split over the 8"
    ):
        check_quiz_cache_memory(lambda: 24.0)


@pytest.mark.parametrize(
    "number, named",
    [
        (
            2 * 48 * 8 * 128 * 1024 * 2 / (2 ^ 30),
            r"2 \^ 30 as the power 2\*\*30: in Python \^ is the bitwise exclusive or.* = 28 ",
        ),
        (
            2 * 48 * 8 * 128 * 1024 * 2 / (10 ^ 6),
            r"exclusive or \(xor\), so 10 \^ 6 = 12 .*a MiB is 2\*\*20",
        ),
        # with another slip: both named (4 bytes per number and the xor)
        (2 * 48 * 8 * 128 * 1024 * 4 / (2 ^ 20), r"\(4 bytes\) and \(2 \^ 20 = 22\)"),
    ],
)
def test_quiz_cache_memory_names_a_power_written_with_a_caret(number, named):
    """^ is Python's xor, not a power: 2 ^ 20 = 22 (blind14e-quiz-caret-as-power was told
    "not right" alone)."""
    from transformer_course.checks.inference import check_quiz_cache_memory

    with pytest.raises(CheckFailure, match=named):
        check_quiz_cache_memory(lambda: number)


@pytest.mark.parametrize(
    "number, named",
    [
        # one asterisk missing in 10**6 (or in 2**30: the same 60, both named)
        (
            2 * 48 * 8 * 128 * 1024 * 2 / (10 * 6),
            r"10\*6 where the power 10\*\*6 belongs: one asterisk is missing.*divides by 60"
            r".*; or 2\*30 where the power 2\*\*30 belongs",
        ),
        # with another slip: both named (4 bytes per number and the product)
        (2 * 48 * 8 * 128 * 1024 * 4 / (2 * 20), r"\(4 bytes\) and \(2\*20 = 40\)"),
    ],
)
def test_quiz_cache_memory_names_a_power_with_one_asterisk_missing(number, named):
    """2*20 where 2**20 belongs divides by 40 (blind29c-quiz-cache-memory-two-times-twenty
    was told "26214 times the right one" alone)."""
    from transformer_course.checks.inference import check_quiz_cache_memory

    with pytest.raises(CheckFailure, match=named):
        check_quiz_cache_memory(lambda: number)


def test_quiz_cache_memory_names_cached_queries_and_a_number_given_with_its_unit():
    """The queries cached with the keys and values, 48 heads where 16 are (a bare "not
    right" before, blind13e-quiz-queries-cached-too), alone and with float32; a string
    holding the number and its unit is told to drop the unit (told "return a number",
    blind13e-quiz-string-with-unit); a numeric string stays accepted."""
    from transformer_course.checks.inference import check_quiz_cache_memory

    def message(answer):
        with pytest.raises(CheckFailure) as failure:
            check_quiz_cache_memory(lambda: answer)
        return failure.value.message

    per_head = 48 * 128 * 1024 / 2**20  # MiB per cached head at one byte a number
    assert re.search(
        r"counts the queries too.*only the keys and values", message(48 * per_head * 2)
    )
    # the saving over multi-head attention, in float32: the same number as the queries
    # cached in float32, so both are named (the queries alone were, a wrong diagnosis for
    # a learner who answered what grouped-query attention saves)
    text = message((32 - 8) * 2 * per_head * 4)
    assert re.search(r"Two mistakes give this number.*memory saved.*queries too", text), text
    assert text.count("4 bytes per number") == 2, text
    assert "4 bytes per number" in message(48 * per_head * 4)
    text = message("192.0MiB")
    assert re.search(
        r"returned the string '192\.0MiB', a number with its unit 'MiB': return the", text
    )
    assert "such as 192.0, not a str" in text
    assert message("three") == "quiz_cache_memory() returned 'three': return a number."
    check_quiz_cache_memory(lambda: "192")


def _tiled_output_rescaled_twice(q, k, v, block_size, causal=False):
    """The output so far multiplied by the factor squared: no known mistake."""
    m = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
    total = torch.zeros(q.shape[:-1], dtype=q.dtype)
    acc = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)
    for start in range(0, k.shape[-2], block_size):
        stop = min(start + block_size, k.shape[-2])
        s = q @ k[..., start:stop, :].transpose(-2, -1) / math.sqrt(q.shape[-1])
        if causal:
            later = torch.arange(start, stop)[None] > torch.arange(q.shape[-2])[:, None]
            s = s.masked_fill(later, float("-inf"))
        new = torch.maximum(m, s.amax(-1))
        c = torch.exp(m - new)
        p = torch.exp(s - new[..., None])
        total = total * c + p.sum(-1)
        acc = acc * (c * c)[..., None] + p @ v[..., start:stop, :]
        m = new
    return acc / total[..., None]


def _tiled_mask_one_late_after_first_block(q, k, v, block_size, causal=False):
    """Later blocks masked one key late: no known mistake, right without the mask."""
    out = ref.tiled_attention(q, k, v, block_size, False)
    if not causal:
        return out
    allowed = torch.arange(k.shape[-2])[None] <= torch.arange(q.shape[-2])[:, None] + (
        torch.arange(k.shape[-2])[None] >= block_size
    )
    return scaled_dot_product_attention(q, k, v, allowed)[0]


def _softmax_squared_numerators(x, block_size):
    m = x.amax(dim=-1, keepdim=True)
    return torch.exp(2 * (x - m)) / torch.exp(x - m).sum(dim=-1, keepdim=True)


@pytest.mark.parametrize(
    "check, fn, message",
    [
        (
            check_tiled_attention,
            _tiled_output_rescaled_twice,
            r"several blocks, each raising the largest score: wrong \(the first wrong one\)\. The blocks combine right "
            r"while the maximum stays and go wrong when a later block raises it",
        ),
        (
            check_tiled_attention,
            _tiled_mask_one_late_after_first_block,
            r"this very input with causal=False: right\. Without the mask your result on this "
            r"very input is right, so the mistake is in the causal mask",
        ),
        (
            check_online_softmax,
            _softmax_squared_numerators,
            # round 37: now measured (checking.exponent_bases), before the probes run
            r"a single block \(n <= block_size\): wrong.*Already a single block is wrong"
            r"|Your final numerator is e \*\* \(2 · \(x - m\)\), but the running sum adds e "
            r"\*\* \(x - m\)",
        ),
    ],
)
def test_unknown_blocked_mistakes_are_located_by_probes(check, fn, message):
    """A tiled or online mistake that no model matches got "differs from the reference:
    largest difference"; the learner's function now runs on a single block, on blocks
    whose first holds the maximum, on blocks that raise it (and, under causal=True, on
    the same input without the mask), and the first wrong situation locates the part."""
    name = "tiled_attention" if check is check_tiled_attention else "online_softmax"
    text = _visible_message(check, _named(name, fn))
    assert re.search(message, text), text


def _gqa_mask_on_first_head_only(q, k, v, mask=None):
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, 1), v.repeat_interleave(group, 1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        allowed = mask.expand(scores.shape).clone()
        allowed[:, 1:] = True
        scores = scores.masked_fill(~allowed, float("-inf"))
    return torch.softmax(scores, -1) @ v


def _gqa_scaled_by_group(q, k, v, mask=None):
    return ref.grouped_query_attention(q / math.sqrt(q.shape[1] // k.shape[1]), k, v, mask)


@pytest.mark.parametrize(
    "fn, message",
    [
        (
            _gqa_mask_on_first_head_only,
            r"the same with a mask: wrong \(the first wrong one\)\. Without a mask all is right.*query heads \[0\] are "
            r"right and the others wrong",
        ),
        (
            _gqa_scaled_by_group,
            r"shared key/value heads .*: wrong.*Plain multi-head attention is right and shared "
            r"heads are not: the mistake is in what depends on the group",
        ),
    ],
)
def test_unknown_grouped_query_attention_mistakes_are_located_by_probes(fn, message):
    """No model matches these; they got "differs from the reference" before."""
    text = _visible_message(check_grouped_query_attention, _named("gqa", fn))
    assert re.search(message, text), text


def _window_with_a_sink(size, window):
    mask = look_ahead_mask(size) & (_offsets(size) < window)
    mask[:, 0] = True
    return mask


def _window_capped_at_half(size, window):
    return look_ahead_mask(size) & (_offsets(size) < min(window, max(1, size // 2)))


@pytest.mark.parametrize(
    "fn, message",
    [
        (_window_with_a_sink, r"in column 0: key 0 is also allowed for queries \[3, 4, 5\]"),
        (
            _window_capped_at_half,
            r"its rows hold \[1, 2, 2, 2\] keys where the window asks for \[1, 2, 3, 4\]",
        ),
    ],
)
def test_a_window_mask_that_no_model_matches_gets_its_pattern_of_differences(fn, message):
    """A first key kept for every query, and a band narrower than window on one input,
    got the rule alone after the first wrong entry."""
    text = _visible_message(check_sliding_window_mask, _named("w", fn))
    assert re.search(message, text), text


def test_a_hard_coded_group_and_a_padded_window_mask_are_named():
    """The group size 2 of the first visible input, hard-coded, was told it was read from
    other axes; a (1, 1, size, size) window mask got only the expected shape."""

    def hard_coded(q, k, v, mask=None):
        k, v = k.repeat_interleave(2, dim=1), v.repeat_interleave(2, dim=1)
        return scaled_dot_product_attention(q, k, v, mask)[0]

    text = _visible_message(check_grouped_query_attention, _named("gqa", hard_coded))
    assert (
        "2 is the group size of an earlier input, which passed: is the group size hard-coded?"
        in text
    ), text
    padded = _named("w", lambda n, w: ref.sliding_window_mask(n, w)[None, None])
    text = _visible_message(check_sliding_window_mask, padded)
    assert "2 leading axes of size 1 added" in text, text


class AdvancesBeforeWriting(ref.KVCache):
    """self.length advanced before the write, so the chunk lands at [length + n, ...)."""

    def forward(self, k_new, v_new):
        n = k_new.shape[-2]
        if self.length + n > self.keys.shape[-2]:
            raise ValueError("the cache is full")
        self.length += n
        self.keys[:, :, self.length : self.length + n] = k_new
        self.values[:, :, self.length : self.length + n] = v_new
        return self.keys[:, :, : self.length], self.values[:, :, : self.length]


def test_kv_cache_reads_its_buffers_to_say_where_the_new_keys_went():
    """The keys returned held only zeros: the message asked whether the write position was
    off by one; the learner's buffer says where the chunk went (length + n)."""
    text = _visible_message(check_KVCache, AdvancesBeforeWriting)
    assert re.search(
        r"Your buffer keys holds the 3 new keys at \[3, 6\), \+3 from where they belong.*"
        r"self\.length was advanced before the write",
        text,
    ), text


def test_tiled_attention_names_a_default_of_causal_true():
    """Mutant tiled_attention-12 (causal=True as the default) passed: every call gave
    causal explicitly."""

    def tiled_attention(q, k, v, block_size, causal=True):
        return ref.tiled_attention(q, k, v, block_size, causal)

    text = _visible_message(check_tiled_attention, tiled_attention)
    assert "your default is causal=True" in text, text
    with pytest.raises(CheckFailure, match="your default is causal=True"):
        check_tiled_attention(tiled_attention, hidden=True)


@torch.no_grad()
def _generate_caches_arguments_swapped(model, prompt, max_new_tokens):
    batch, length = prompt.shape
    caches = model.new_caches(length + max_new_tokens, batch)
    return checks.cached_generation(model, prompt, max_new_tokens, caches=caches)


@torch.no_grad()
def _generate_prefill_at_len(model, prompt, max_new_tokens):
    """The whole prompt fed with start = len (positions len .. 2 len - 1)."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits = model(prompt, caches=caches, start=length)[:, -1]
    ids, steps = prompt, []
    for step in range(max_new_tokens):
        steps.append(logits)
        next_id = logits.argmax(-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
        if step + 1 < max_new_tokens:
            logits = model(next_id, caches=caches, start=length + step)[:, -1]
    return ids, torch.stack(steps, dim=1)


@pytest.mark.parametrize(
    "fn, message",
    [
        (
            _generate_caches_arguments_swapped,
            r"the arguments of new_caches are swapped, new_caches\(len \+ max_new_tokens, batch\)",
        ),
        (
            _generate_prefill_at_len,
            r"fed all \d+ prompt tokens, but with start=\d+: RoPE rotated them as positions",
        ),
    ],
)
def test_generate_names_swapped_cache_arguments_and_a_prefill_at_the_wrong_start(fn, message):
    """The swapped arguments were told the caches were too small; the whole prompt fed
    with start=len was told that part of the prompt never ran (a wrong diagnosis)."""
    text = _visible_message(check_generate, _named("generate", fn))
    assert re.search(message, text), text


def test_raw_errors_of_common_slips_in_blocked_code_get_their_cause():
    """Python's max on tensors, math.exp on a tensor, the keys of a block not transposed,
    repeat_interleave without dim: each got PyTorch's error and a generic line."""

    def python_max(x, block_size):
        m = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
        total = torch.zeros(x.shape[:-1], dtype=x.dtype)
        for start in range(0, x.shape[-1], block_size):
            block = x[..., start : start + block_size]
            new = max(m, block.amax(-1))
            total = total * torch.exp(m - new) + torch.exp(block - new[..., None]).sum(-1)
            m = new
        return torch.exp(x - m[..., None]) / total[..., None]

    def math_exp(x, block_size):
        m = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
        total = torch.zeros(x.shape[:-1], dtype=x.dtype)
        for start in range(0, x.shape[-1], block_size):
            block = x[..., start : start + block_size]
            new = torch.maximum(m, block.amax(-1))
            total = total * math.exp(m - new) + torch.exp(block - new[..., None]).sum(-1)
            m = new
        return torch.exp(x - m[..., None]) / total[..., None]

    def flattened(q, k, v, mask=None):
        group = q.shape[1] // k.shape[1]
        k, v = torch.repeat_interleave(k, group), torch.repeat_interleave(v, group)
        return scaled_dot_product_attention(q, k, v, mask)[0]

    def untransposed(q, k, v, block_size, causal=False):
        scores = q @ k[..., :block_size, :] / math.sqrt(q.shape[-1])
        return scores @ v[..., :block_size, :]

    text = _visible_message(check_online_softmax, _named("online_softmax", python_max))
    assert "on tensors use torch.maximum(a, b)" in text, text
    text = _visible_message(check_online_softmax, _named("online_softmax", math_exp))
    assert "on tensors use torch.exp" in text, text
    text = _visible_message(check_tiled_attention, _named("tiled_attention", untransposed))
    assert "the scores need the block's keys transposed" in text, text
    text = _visible_message(check_grouped_query_attention, _named("gqa", flattened))
    assert "with no dim flattens k into one long axis" in text, text


def test_quiz_cache_memory_names_a_factor_left_out():
    """A factor forgotten (its value replaced by 1) is named for every factor: the 48
    layers (blind12e-quiz-one-layer, a bare "not right" before) and d_head, which no
    case contains."""
    from transformer_course.checks.inference import check_quiz_cache_memory

    def message(number):
        with pytest.raises(CheckFailure) as failure:
            check_quiz_cache_memory(lambda: number)
        return failure.value.message

    assert "the 48 layers left out" in message(2 * 8 * 128 * 1024 * 2 / 2**20)
    assert "d_head = 128 (the numbers per head) left out" in message(2 * 48 * 8 * 1024 * 2 / 2**20)


def _generate_stacking_columns(dim):
    @torch.no_grad()
    def generate(model, prompt, max_new_tokens):
        batch, length = prompt.shape
        caches = model.new_caches(batch, length + max_new_tokens)
        logits = model(prompt, caches=caches, start=0)[:, -1]
        new, steps = [], []
        for step in range(max_new_tokens):
            steps.append(logits)
            next_id = logits.argmax(dim=-1, keepdim=True)
            new.append(next_id)
            if step + 1 < max_new_tokens:
                logits = model(next_id, caches=caches, start=length + step)[:, -1]
        return torch.cat([prompt, torch.stack(new, dim=dim)], dim=1), torch.stack(steps, dim=1)

    return _named("generate", generate)


@pytest.mark.parametrize("dim", [1, 2])
def test_generate_names_columns_joined_with_stack(dim):
    """(batch, 1) columns joined with torch.stack (dim=1: blind12e-gen-new-tokens-stacked;
    dim=2, in no case) while every call fed the right columns: the join is named, not an
    argmax over logits with a position axis (what the message asserted before)."""
    text = _visible_message(check_generate, _generate_stacking_columns(dim))
    assert "torch.stack of (batch, 1) columns adds an axis" in text, text
    assert "argmax was taken over logits" not in text, text


def _online_softmax_raw_exps(factor: str):
    def online_softmax(x, block_size):
        m = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
        total = torch.zeros(x.shape[:-1], dtype=x.dtype)
        for start in range(0, x.shape[-1], block_size):
            block = x[..., start : start + block_size]
            new = torch.maximum(m, block.amax(-1))
            if factor == "ratio":
                rescale = torch.exp(m) / torch.exp(new)
            elif factor == "product":
                rescale = torch.exp(m) * torch.exp(-new)
            else:
                rescale = torch.exp(m - new)
            total = total * rescale + torch.exp(block - new[..., None]).sum(-1)
            m = new
        if factor != "right":
            return torch.exp(x - m[..., None]) / total[..., None]
        return torch.exp(x) / torch.exp(m[..., None]) / total[..., None]

    return _named("online_softmax", online_softmax)


def test_online_softmax_names_an_exp_of_raw_scores_that_overflows():
    """Right on moderate scores, NaN on large ones: the rescale factor from exps of the
    maxima (exp(m) / exp(m'): blind12e-online-factor-ratio-of-exps, told four unrelated
    candidates before; exp(m) * exp(-m'), in no case) is named by the single-block probe;
    a final exp(x) / exp(m) with a right factor is not told the factor."""
    for factor in ("ratio", "product"):  # exp(m) / exp(m'), and exp(m) * exp(-m')
        text = _visible_message(check_online_softmax, _online_softmax_raw_exps(factor))
        assert "the rescale factor is what overflows" in text, text
        assert "inverted" not in text, text
    text = _visible_message(check_online_softmax, _online_softmax_raw_exps("right"))
    assert "rescale factor is what overflows" not in text, text


def _kv_cache_writing_into(slot: str):
    class KVCache(torch.nn.Module):
        def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
            super().__init__()
            shape = (batch, num_heads, max_len, d_head)
            self.register_buffer("keys", torch.zeros(shape, dtype=dtype), persistent=False)
            self.register_buffer("values", torch.zeros(shape, dtype=dtype), persistent=False)
            self.length = 0

        def forward(self, k_new, v_new):
            start, stop = self.length, self.length + k_new.shape[-2]
            if stop > self.keys.shape[-2]:
                raise ValueError("full")
            if slot == "through the end":
                self.keys[:, :, start:] = k_new
                self.values[:, :, start:] = v_new
            else:  # the whole buffer
                self.keys[:, :, :] = k_new
                self.values[:, :, :] = v_new
            self.length = stop
            return self.keys[:, :, :stop], self.values[:, :, :stop]

    return KVCache


def test_kv_cache_names_a_write_slice_with_a_bound_left_out():
    """A write into [:, :, start:] (blind12e-kv-write-through-end, generic before) and into
    [:, :, :] (in no case) fill the same slot on a first call: a write of 2 after 1 tells
    them apart, and each is named alone."""
    text = _visible_message(check_KVCache, _kv_cache_writing_into("through the end"))
    assert "runs through the end of the buffer" in text and "the whole buffer" not in text, text
    text = _visible_message(check_KVCache, _kv_cache_writing_into("whole"))
    assert "[:, :, :], the whole buffer" in text and "through the end" not in text, text


def _kv_cache_variant(lazy: str = "", asserted: str = ""):
    class KVCache(torch.nn.Module):
        def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
            super().__init__()
            self.shape, self.dtype = (batch, num_heads, max_len, d_head), dtype
            if lazy == "none":
                self.register_buffer("keys", None, persistent=False)
                self.register_buffer("values", None, persistent=False)
            elif not lazy:
                self._allocate()
            self.length = 0

        def _allocate(self):
            for name in ("keys", "values"):
                zeros = torch.zeros(self.shape, dtype=self.dtype)
                self.register_buffer(name, zeros, persistent=False)

        def forward(self, k_new, v_new):
            if getattr(self, "keys", None) is None:
                self._allocate()
            start, stop = self.length, self.length + k_new.shape[-2]
            if asserted == "stop":
                assert stop <= self.keys.shape[-2], "full"
            elif asserted == "not":
                assert not stop > self.shape[2]
            elif stop > self.keys.shape[-2]:
                raise ValueError("full")
            self.keys[:, :, start:stop] = k_new
            self.values[:, :, start:stop] = v_new
            self.length = stop
            return self.keys[:, :, :stop], self.values[:, :, :stop]

    return KVCache


@pytest.mark.parametrize("lazy", ["none", "registered on the first call"])
def test_kv_cache_names_buffers_allocated_lazily(lazy):
    """Buffers registered as None and made on the first call (blind12e-kv-buffers-
    allocated-lazily), or registered only on the first call (in no case): passed before."""
    text = _visible_message(check_KVCache, _kv_cache_variant(lazy=lazy))
    assert "allocated lazily, on the first call" in text, text


@pytest.mark.parametrize("asserted", ["stop", "not"])
def test_kv_cache_names_a_capacity_test_written_as_an_assert(asserted):
    """assert stop <= max_len (blind12e-kv-capacity-asserted) and assert not stop > max_len
    (in no case) raised AssertionError, which passed as a refusal."""
    text = _visible_message(check_KVCache, _kv_cache_variant(asserted=asserted))
    assert "raised AssertionError: the capacity test is an assert" in text, text


def _kv_cache_declared(order):
    class KVCache(torch.nn.Module):
        def __init__(self, *args, dtype=torch.float32, **kwargs):
            super().__init__()
            sizes = dict(zip(order, args, strict=False)) | kwargs
            shape = tuple(sizes[key] for key in ("batch", "num_heads", "max_len", "d_head"))
            self.register_buffer("keys", torch.zeros(shape, dtype=dtype), persistent=False)
            self.register_buffer("values", torch.zeros(shape, dtype=dtype), persistent=False)
            self.length = 0

        def forward(self, k_new, v_new):
            start, stop = self.length, self.length + k_new.shape[-2]
            if stop > self.keys.shape[-2]:
                raise ValueError("full")
            self.keys[:, :, start:stop] = k_new
            self.values[:, :, start:stop] = v_new
            self.length = stop
            return self.keys[:, :, :stop], self.values[:, :, :stop]

    return KVCache


@pytest.mark.parametrize(
    "order, swapped",
    [
        (("batch", "max_len", "num_heads", "d_head"), "num_heads and max_len swapped"),
        (("d_head", "num_heads", "max_len", "batch"), "batch and d_head swapped"),
    ],
)
def test_kv_cache_names_constructor_parameters_declared_in_another_order(order, swapped):
    """max_len and num_heads declared swapped (blind12e-kv-constructor-arguments-swapped,
    told "positions second" before) and batch and d_head (in no case): a keyword-built
    cache has the right buffers."""
    text = _visible_message(check_KVCache, _kv_cache_declared(order))
    assert f"declares its parameters in another order than the contract's ({swapped})" in text
    assert "positions second" not in text, text


def _gqa_group_from(q_axis, k_axis):
    def grouped_query_attention(q, k, v, mask=None):
        group = q.shape[q_axis] // k.shape[k_axis]
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        return scaled_dot_product_attention(q, k, v, mask)[0]

    return _named("grouped_query_attention", grouped_query_attention)


@pytest.mark.parametrize(
    "q_axis, k_axis, named", [(2, 2, "len_q // len_k"), (2, 1, "len_q // num_kv_heads")]
)
def test_grouped_query_attention_names_the_axes_a_group_size_was_read_from(q_axis, k_axis, named):
    """len_q // len_k (blind12e-gqa-group-from-length-axis) and len_q // num_kv_heads (in
    no case): probes whose sizes all differ leave one expression."""
    text = _visible_message(check_grouped_query_attention, _gqa_group_from(q_axis, k_axis))
    assert f"q.shape[{q_axis}] // k.shape[{k_axis}] ({named}" in text, text


def _gqa_values_from_keys(reassigned):
    def grouped_query_attention(q, k, v, mask=None):
        group = q.shape[1] // k.shape[1]
        if reassigned:
            k = k.repeat_interleave(group, dim=1)
            v = k.repeat_interleave(group, dim=1)
        else:
            k, v = k.repeat_interleave(group, dim=1), k.repeat_interleave(group, dim=1)
        return scaled_dot_product_attention(q, k, v, mask)[0]

    return _named("grouped_query_attention", grouped_query_attention)


@pytest.mark.parametrize("reassigned", [True, False])
def test_grouped_query_attention_names_values_built_from_the_keys(reassigned):
    """v built from the already repeated k (blind12e-gqa-values-from-keys, told "the group
    size read from other axes") or from k itself (in no case): attention(q, k, k)."""
    text = _visible_message(check_grouped_query_attention, _gqa_values_from_keys(reassigned))
    assert "Your values are the keys" in text, text


def _tiled_sized(acc_like_v=False, total_like_k=False, mask_width=None):
    """Tiled attention, right but for a running tensor made like v or k, or a block's
    causal mask block_size wide (``mask_width``: "arange" or "padded")."""

    def tiled_attention(q, k, v, block_size, causal=False):
        len_q, len_k = q.shape[-2], k.shape[-2]
        m = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
        total = torch.zeros(k.shape[:-1] if total_like_k else q.shape[:-1], dtype=q.dtype)
        acc = torch.zeros_like(v) if acc_like_v else torch.zeros((*q.shape[:-1], v.shape[-1]))
        for start in range(0, len_k, block_size):
            stop = min(start + block_size, len_k)
            s = q @ k[..., start:stop, :].transpose(-2, -1) / math.sqrt(q.shape[-1])
            if causal:
                queries = torch.arange(len_q)[:, None]
                if mask_width == "padded":  # cut from a mask padded by one block
                    padded = torch.arange(len_k + block_size)[None] > queries
                    future = padded[:, start : start + block_size]
                else:
                    width = block_size if mask_width == "arange" else stop - start
                    future = torch.arange(start, start + width)[None] > queries
                s = s.masked_fill(future, float("-inf"))
            new = torch.maximum(m, s.amax(-1))
            p = torch.exp(s - new[..., None])
            total = total * torch.exp(m - new) + p.sum(-1)
            acc = acc * torch.exp(m - new)[..., None] + p @ v[..., start:stop, :]
            m = new
        return acc / total[..., None]

    return _named("tiled_attention", tiled_attention)


@pytest.mark.parametrize("knobs", [{"acc_like_v": True}, {"total_like_k": True}])
def test_tiled_attention_names_a_running_tensor_made_like_the_keys(knobs):
    """acc = torch.zeros_like(v) (blind12e-tiled-acc-zeros-like-v, generic before) and the
    sum made with k.shape[:-1] (in no case): len_k rows where len_q belong."""
    text = _visible_message(check_tiled_attention, _tiled_sized(**knobs))
    assert "made like k or v, with len_k" in text, text


@pytest.mark.parametrize("width", ["arange", "padded"])
def test_tiled_attention_names_a_last_block_mask_as_wide_as_block_size(width):
    """arange(start, start + block_size) (blind12e-tiled-causal-positions-full-block) and a
    mask cut start : start + block_size from one padded by a block (in no case): the last,
    shorter block's mask is block_size wide."""
    text = _visible_message(check_tiled_attention, _tiled_sized(mask_width=width))
    assert "its causal mask is block_size" in text, text


def _online_slip(slip):
    def online_softmax(x, block_size):
        m = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
        total = torch.zeros(x.shape[:-1], dtype=x.dtype)
        pieces = []
        for start in range(0, x.shape[-1], block_size):
            block = x[..., start : start + block_size]
            new = torch.maximum(m, block.amax(-1, keepdim=slip == "max keepdim"))
            terms = torch.exp(block - new[..., None])
            if slip == "sum()":
                block_sum = terms.sum()
            elif slip == "sum().item()":
                block_sum = terms.sum().item()
            else:
                block_sum = terms.sum(-1, keepdim=slip == "sum keepdim")
            total = total * torch.exp(m - new) + block_sum
            m = new
            if slip in ("in loop", "in loop, cat"):
                pieces.append(torch.exp(block - m[..., None]) / total[..., None])
        if slip == "in loop":
            out = torch.empty_like(x)
            for i, start in enumerate(range(0, x.shape[-1], block_size)):
                out[..., start : start + block_size] = pieces[i]
            return out
        if slip == "in loop, cat":
            return torch.cat(pieces, dim=-1)
        return torch.exp(x - m[..., None]) / total[..., None]

    return _named("online_softmax", online_softmax)


@pytest.mark.parametrize(
    "slip, named",
    [
        ("sum()", "one number shared by every row"),
        ("sum().item()", "one number shared by every row"),
        ("in loop", "normalised inside the loop"),
        ("in loop, cat", "normalised inside the loop"),
        ("max keepdim", "Its leading axes come twice"),
        ("sum keepdim", "Its leading axes come twice"),
    ],
)
def test_online_softmax_names_a_shared_sum_an_in_loop_normalisation_and_a_kept_axis(slip, named):
    """Each first spelling is a blind12e case (pointed before: "a constant of its own", "how
    the blocks are combined", a bare shape); each second is in no case."""
    text = _visible_message(check_online_softmax, _online_slip(slip))
    assert named in text, text


@pytest.mark.parametrize(
    "back, named",
    [
        (lambda w: w // 2 + 1, "itself and window // 2 keys before it"),
        (lambda w: w // 2, ": window // 2 keys"),
        (lambda w: (w + 1) // 2, "(window + 1) // 2 keys"),
    ],
)
def test_sliding_window_mask_names_a_band_width_that_is_another_function_of_the_window(back, named):
    """Itself and window // 2 before it (blind12e-sliding-window-halved, told "window - 1"
    on window 3), window // 2 and (window + 1) // 2 keys (in no case): probed on windows
    1..6."""

    def sliding_window_mask(size, window):
        return _window_band(size, back(window))

    text = _visible_message(check_sliding_window_mask, _named("w", sliding_window_mask))
    assert named in text and "window - 1 keys:" not in text, text


def _window_band(size, width):
    offset = torch.arange(size)[:, None] - torch.arange(size)[None, :]
    return (offset >= 0) & (offset < width)


@pytest.mark.parametrize("per_offset", [True, False])
def test_sliding_window_mask_names_a_size_that_goes_negative_past_the_mask(per_offset):
    """One diagonal per offset d < window (blind12e-sliding-window-diagonals-past-size) and
    a count of rows made as torch.ones(size - window + 1) (in no case): a window > size
    raises."""

    def sliding_window_mask(size, window):
        mask = torch.zeros(size, size, dtype=torch.bool)
        if per_offset:
            for d in range(window):
                mask |= torch.diag(torch.ones(size - d, dtype=torch.bool), -d)
            return mask
        # the rows that have keys out of the window, counted as size - window + 1
        outside = torch.ones(size - window + 1, dtype=torch.bool)
        for i in range(size):
            mask[i, max(0, i - window + 1) : i + 1] = True
        return mask | ~outside.all()

    text = _visible_message(check_sliding_window_mask, _named("w", sliding_window_mask))
    assert "is larger than the mask (size = 4): a size of yours went negative" in text, text


@pytest.mark.parametrize("container", [list, tuple])
def test_generate_names_per_step_logits_returned_as_a_python_collection(container):
    """The per-step logits returned as the list collected (blind12e-gen-logits-returned-
    as-list, a bare "is a list" before) or as a tuple (in no case)."""

    @torch.no_grad()
    def generate(model, prompt, max_new_tokens):
        batch, length = prompt.shape
        caches = model.new_caches(batch, length + max_new_tokens)
        logits = model(prompt, caches=caches, start=0)[:, -1]
        ids, steps = prompt, []
        for step in range(max_new_tokens):
            steps.append(logits)
            next_id = logits.argmax(dim=-1, keepdim=True)
            ids = torch.cat([ids, next_id], dim=1)
            if step + 1 < max_new_tokens:
                logits = model(next_id, caches=caches, start=length + step)[:, -1]
        return ids, container(steps)

    text = _visible_message(check_generate, _named("generate", generate))
    assert f"It is a Python {container.__name__} of" in text, text
    assert "torch.stack(steps, dim=1)" in text, text


@pytest.mark.parametrize("spelling", ["block", "whole"])
def test_tiled_attention_names_the_keys_taken_as_values(spelling):
    """weights @ k[..., start:stop, :] (blind12e-tiled-keys-as-values, located only before)
    and v = k at the top (in no case): attention with the keys as values."""

    def tiled_attention(q, k, v, block_size, causal=False):
        if spelling == "whole":
            v = k
        m = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
        total = torch.zeros(q.shape[:-1], dtype=q.dtype)
        acc = torch.zeros((*q.shape[:-1], k.shape[-1]), dtype=q.dtype)
        for start in range(0, k.shape[-2], block_size):
            stop = min(start + block_size, k.shape[-2])
            s = q @ k[..., start:stop, :].transpose(-2, -1) / math.sqrt(q.shape[-1])
            if causal:
                future = torch.arange(start, stop)[None] > torch.arange(q.shape[-2])[:, None]
                s = s.masked_fill(future, float("-inf"))
            new = torch.maximum(m, s.amax(-1))
            p = torch.exp(s - new[..., None])
            total = total * torch.exp(m - new) + p.sum(-1)
            values = k if spelling == "block" else v
            acc = acc * torch.exp(m - new)[..., None] + p @ values[..., start:stop, :]
            m = new
        return acc / total[..., None]

    text = _visible_message(check_tiled_attention, _named("tiled_attention", tiled_attention))
    assert "attention with the keys as values" in text, text


@pytest.mark.parametrize("keywords", [False, True])
def test_generate_names_caches_and_start_passed_in_each_others_place(keywords):
    """model(next_id, length + step, caches) (blind12e-gen-step-arguments-positional-
    swapped: the check's own call trace raised before) and the keywords swapped (in no
    case): the model got the number as caches and the list as start."""

    @torch.no_grad()
    def generate(model, prompt, max_new_tokens):
        batch, length = prompt.shape
        caches = model.new_caches(batch, length + max_new_tokens)
        logits = model(prompt, caches=caches, start=0)[:, -1]
        ids, steps = prompt, []
        for step in range(max_new_tokens):
            steps.append(logits)
            next_id = logits.argmax(dim=-1, keepdim=True)
            ids = torch.cat([ids, next_id], dim=1)
            if step + 1 < max_new_tokens:
                if keywords:
                    logits = model(next_id, caches=length + step, start=caches)[:, -1]
                else:
                    logits = model(next_id, length + step, caches)[:, -1]
        return ids, torch.stack(steps, dim=1)

    text = _visible_message(check_generate, _named("generate", generate))
    assert "passed in each other's place" in text, text
    assert "generate._record" not in text, text


@pytest.mark.parametrize("spelling", ["unpacked", "indexed"])
def test_generate_names_the_prompt_shape_read_the_wrong_way_round(spelling):
    """length, batch = prompt.shape (blind12e-gen-shape-unpacked-swapped, pointed before)
    and batch = prompt.shape[1], length = prompt.shape[0] (in no case)."""

    @torch.no_grad()
    def generate(model, prompt, max_new_tokens):
        if spelling == "unpacked":
            length, batch = prompt.shape
        else:
            batch, length = prompt.shape[1], prompt.shape[0]
        caches = model.new_caches(batch, length + max_new_tokens)
        logits = model(prompt, caches=caches, start=0)[:, -1]
        ids, steps = prompt, []
        for step in range(max_new_tokens):
            steps.append(logits)
            next_id = logits.argmax(dim=-1, keepdim=True)
            ids = torch.cat([ids, next_id], dim=1)
            if step + 1 < max_new_tokens:
                logits = model(next_id, caches=caches, start=length + step)[:, -1]
        return ids, torch.stack(steps, dim=1)

    text = _visible_message(check_generate, _named("generate", generate))
    assert "the prompt's shape was unpacked the wrong way round" in text, text


@pytest.mark.parametrize("divide", [True, False])
def test_grouped_query_attention_names_a_scale_applied_after_the_softmax(divide):
    """Weights divided by sqrt(d_head) after the softmax (blind12e-gqa-scaled-after-softmax,
    located only before) or multiplied by it (in no case)."""

    def grouped_query_attention(q, k, v, mask=None):
        group = q.shape[1] // k.shape[1]
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        scores = q @ k.transpose(-2, -1)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        scale = math.sqrt(q.shape[-1])
        return (weights / scale if divide else weights * scale) @ v

    text = _visible_message(check_grouped_query_attention, _named("gqa", grouped_query_attention))
    assert "Your scale is applied after the softmax" in text, text


def test_a_scale_that_is_1_at_d_k_4_is_not_called_unscaled():
    """A scale of 2 / sqrt(d_k) is 1 at the visible run's d_k = 4, where it looks unscaled
    (mutant-tiled_attention-20 was told "no scale is applied"): a run at d_k = 6 tells them
    apart. Visible run only: at the hidden run's d_k = 8 the scale 1/sqrt(2) is also what
    d_k read from an axis of size 2 gives, which that message names."""
    with pytest.raises(CheckFailure, match=r"Your scores are multiplied by 1 where 1/sqrt\(d_k\)"):
        check_tiled_attention(_tiled_with(scale_of=lambda scale, _block: scale * 2))


@torch.no_grad()
def _generate_first_item_as_logits(model, prompt, max_new_tokens):
    """The model's output read as a (logits, loss) pair by its item [0] (round 28's class:
    the output taken apart along the batch as if it were a pair)."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits = model(prompt, caches=caches, start=0)[0][-1]  # (vocab,): sequence 0 alone
    ids, steps = prompt, []
    for step in range(max_new_tokens):
        steps.append(logits)
        next_id = logits.argmax(dim=-1, keepdim=True)  # (1,)
        ids = torch.cat([ids, next_id], dim=1)
        if step + 1 < max_new_tokens:
            logits = model(next_id, caches=caches, start=length + step)[0][-1]
    return ids, torch.stack(steps, dim=1)


def test_generate_names_the_model_output_taken_apart_along_the_batch():
    with pytest.raises(CheckFailure, match=r"taking its item \[0\] as if it were a pair"):
        check_generate(_generate_first_item_as_logits)


# -------------------------------------------- round 34: a loop that stopped after one pass
def _generate_stopping_in_the_loop(how):
    """The return indented into the loop's body ("return"), or a break at the end of its
    first pass ("break"): one new token, one step of logits."""

    def generate(model, prompt, max_new_tokens):
        batch, length = prompt.shape
        caches = model.new_caches(batch, length + max_new_tokens)
        logits = model(prompt, caches=caches, start=0)[:, -1]
        ids, steps = prompt, []
        for step in range(max_new_tokens):
            steps.append(logits)
            next_id = logits.argmax(dim=-1, keepdim=True)
            ids = torch.cat([ids, next_id], dim=1)
            if step + 1 < max_new_tokens:
                logits = model(next_id, caches=caches, start=length + step)[:, -1]
            if how == "return":
                return ids, torch.stack(steps, dim=1)
            if how == "break":
                break
        return ids, torch.stack(steps, dim=1)

    return _named("generate", generate)


def _generate_cat_after_the_loop(model, prompt, max_new_tokens):
    """next_id overwritten at every step; the torch.cat dedented out of the loop."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits = model(prompt, caches=caches, start=0)[:, -1]
    steps = []
    for step in range(max_new_tokens):
        steps.append(logits)
        next_id = logits.argmax(dim=-1, keepdim=True)
        if step + 1 < max_new_tokens:
            logits = model(next_id, caches=caches, start=length + step)[:, -1]
    ids = torch.cat([prompt, next_id], dim=1)
    return ids, torch.stack(steps, dim=1)


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        # the first visible case has len + 1 == max_new_tokens: was told max_new_tokens
        # was taken for the total length; a probe of another length tells them apart
        (
            _generate_stopping_in_the_loop("return"),
            r"one new token, and your logits one step .*: the loop stopped after its first "
            r"pass: a return \(or a break\) indented into the loop's body",
        ),
        (
            _generate_stopping_in_the_loop("break"),
            r"the loop stopped after its first pass: a return \(or a break\)",
        ),
        # the sibling a too-eager rule would misname: a total length, told as before
        (
            _named("generate", _generate_to_total_length),
            r"It holds max_new_tokens = \d+ positions in all.*takes it for the total length",
        ),
        (
            _named("generate", _generate_cat_after_the_loop),
            r"the loop ran max_new_tokens times, but the earlier new tokens were all dropped.*"
            r"the torch\.cat run once, after the loop",
        ),
    ],
)
def test_generate_tells_a_loop_that_stopped_after_one_pass_from_a_total_length(fn, message):
    for hidden in (False, True):
        with pytest.raises(CheckFailure, match=message):
            check_generate(fn, hidden=hidden)


# ------------------------------------------- round 34: a line on the loop's edge, one level off
def _online_softmax_edge(slip):
    """The running maximum's update dedented after the loop ("max after"), the old sum
    left out of the update ("sum dropped": the sibling that gives the same numbers), or
    the return indented into the loop ("return")."""

    def online_softmax(x, block_size):
        running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
        total = torch.zeros(x.shape[:-1], dtype=x.dtype)
        for start in range(0, x.shape[-1], block_size):
            block = x[..., start : start + block_size]
            new_max = torch.maximum(running_max, block.amax(dim=-1))
            carried = 0 if slip == "sum dropped" else total * torch.exp(running_max - new_max)
            total = carried + torch.exp(block - new_max[..., None]).sum(dim=-1)
            if slip != "max after":
                running_max = new_max
            if slip == "return":
                return torch.exp(x - running_max[..., None]) / total[..., None]
        if slip == "max after":
            running_max = new_max
        return torch.exp(x - running_max[..., None]) / total[..., None]

    return _named("online_softmax", online_softmax)


def _tiled_edge(slip):
    """tiled_attention with the running maximum's update dedented after the loop ("max
    after") or the return indented into the loop ("return")."""

    def tiled_attention(q, k, v, block_size, causal=False):
        len_q, len_k = q.shape[-2], k.shape[-2]
        running_max = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
        total = torch.zeros(q.shape[:-1], dtype=q.dtype)
        acc = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)
        rows = torch.arange(len_q)[:, None]
        for start in range(0, len_k, block_size):
            stop = min(start + block_size, len_k)
            scores = q @ k[..., start:stop, :].transpose(-2, -1) / math.sqrt(q.shape[-1])
            if causal:
                future = torch.arange(start, stop)[None, :] > rows
                scores = scores.masked_fill(future, float("-inf"))
            new_max = torch.maximum(running_max, scores.amax(dim=-1))
            correction = torch.exp(running_max - new_max)
            weights = torch.exp(scores - new_max[..., None])
            total = total * correction + weights.sum(dim=-1)
            acc = acc * correction[..., None] + weights @ v[..., start:stop, :]
            if slip != "max after":
                running_max = new_max
            if slip == "return":
                return acc / total[..., None]
        if slip == "max after":
            running_max = new_max
        return acc / total[..., None]

    return _named("tiled_attention", tiled_attention)


_LAST_BLOCK_ONLY = (
    r"Only the last block is counted: the running sum starts over at every block\. Two "
    r"slips give exactly this .*the old sum left out of the update.*or the running maximum "
    r"never carried .*dedented after the loop"
)


@pytest.mark.parametrize(
    ("check", "fn", "message"),
    [
        # was told, by the single-edit search, only that the old sum is not added
        (check_online_softmax, _online_softmax_edge("max after"), _LAST_BLOCK_ONLY),
        (check_online_softmax, _online_softmax_edge("sum dropped"), _LAST_BLOCK_ONLY),
        (
            check_online_softmax,
            _online_softmax_edge("return"),
            r"covers only the first \d+ of the \d+ columns.*or the return indented into the "
            r"loop's body, which ends the function after its first block",
        ),
        (
            check_tiled_attention,
            _tiled_edge("return"),
            r"attention over keys 0 \.\. \d+ only.*or the return indented into the loop's "
            r"body, which ends the function after its first block",
        ),
        # was told "how the blocks are combined" only
        (
            check_tiled_attention,
            _tiled_edge("max after"),
            r"A single block is right but several are not.*what each pass hands to the next.*"
            r"running_max = new_max dedented after the loop",
        ),
    ],
)
def test_a_line_on_the_loops_edge_one_level_off_is_named_with_its_siblings(check, fn, message):
    message_seen = _visible_message(check, fn)
    assert re.search(message, message_seen, re.S), message_seen
    assert "does not add" not in message_seen  # no single cause where two fit
    with pytest.raises(CheckFailure, match=message):
        check(fn, hidden=True)


# ------------------------- round 34: a mask in another form with wrong entries; `.T`; >= max_len
@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (
            lambda n, w: torch.ones(n, n).tril().triu(-w),
            r"Two mistakes at once\. \(1\) .*dtype torch\.float32, not torch\.bool.*\(2\) Its "
            r"entries are wrong too.*\(1 = may attend\): Each query sees window \+ 1 keys",
        ),
        (
            lambda n, w: (
                (torch.arange(n)[None, :] - torch.arange(n)[:, None]).ge(0).int()
                & (torch.arange(n)[None, :] - torch.arange(n)[:, None]).lt(w).int()
            ),
            r"Two mistakes at once\. \(1\) .*dtype torch\.int32.*\(2\) Its entries are wrong "
            r"too.*The window is at the wrong end",
        ),
        (
            lambda n, w: torch.zeros(n, n).masked_fill(
                ~(torch.ones(n, n, dtype=torch.bool).tril() & torch.ones(n, n).bool().triu(-w)),
                float("-inf"),
            ),
            r"Two mistakes at once\. \(1\) .*the \*additive\* form.*\(2\) Its entries are wrong "
            r"too.*\(0 = may attend\): Each query sees window \+ 1 keys",
        ),
        # the siblings: the form alone, entries right, told the form alone
        (
            lambda n, w: ref.sliding_window_mask(n, w).float(),
            r"^sliding_window_mask\(6, 3\) should have dtype torch\.bool",
        ),
        (
            lambda n, w: torch.zeros(n, n).masked_fill(~ref.sliding_window_mask(n, w), -math.inf),
            r"Its entries are the right mask in that form",
        ),
    ],
)
def test_sliding_window_mask_in_another_dtype_names_wrong_entries_too(fn, message):
    fn = _named("sliding_window_mask", fn)
    assert re.search(message, _visible_message(check_sliding_window_mask, fn))
    with pytest.raises(CheckFailure):
        check_sliding_window_mask(fn, hidden=True)


def _gqa_scores_with_dot_t(q, k, v, mask=None):
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    scores = q @ k.T / math.sqrt(q.shape[-1])  # .T on 4 axes: every axis reversed
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return scores.softmax(dim=-1) @ v


def _tiled_scores_with_dot_t(q, k, v, block_size, causal=False):
    running_max = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
    total = torch.zeros(q.shape[:-1], dtype=q.dtype)
    acc = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)
    for start in range(0, k.shape[-2], block_size):
        scores = q @ k[..., start : start + block_size, :].T / math.sqrt(q.shape[-1])
        new_max = torch.maximum(running_max, scores.amax(dim=-1))
        weights = torch.exp(scores - new_max[..., None])
        correction = torch.exp(running_max - new_max)
        total = total * correction + weights.sum(dim=-1)
        acc = acc * correction[..., None] + weights @ v[..., start : start + block_size, :]
        running_max = new_max
    return acc / total[..., None]


class GrowingCacheRefusesWhenFull(GrowingCache):
    """A correct growing cache (torch.cat) whose test is >= max_len: refuses a call that
    fills it exactly. Was told its buffers were replaced (a growing cache is right)."""

    def forward(self, k_new, v_new):
        if self.keys.shape[-2] + k_new.shape[-2] >= self.max_len:
            raise ValueError("the cache is full")
        return super().forward(k_new, v_new)


@pytest.mark.parametrize(
    ("check", "fn", "message", "absent"),
    [
        (
            check_grouped_query_attention,
            _named("grouped_query_attention", _gqa_scores_with_dot_t),
            r"your line uses `\.T`: on the 4-axis keys .* reverses all four axes",
            "as k.transpose(1, 2)",
        ),
        (
            check_tiled_attention,
            _named("tiled_attention", _tiled_scores_with_dot_t),
            r"Your line uses `\.T` on the block of keys: .*reverses all of them",
            "transposed over the wrong pair of axes",
        ),
        (
            check_KVCache,
            GrowingCacheRefusesWhenFull,
            r"This call fills the cache exactly \(\d+ = max_len\): is your test stop >= max_len",
            "replaced it",
        ),
    ],
)
def test_a_cause_read_from_an_error_gives_way_to_what_the_line_shows(check, fn, message, absent):
    seen = _visible_message(check, fn)
    assert re.search(message, seen), seen
    assert absent not in seen


# ------------------- round 34: raw errors of the learner's calls, told what the call lacked
class KVCacheForwardWithStart(ref.KVCache):
    """forward(k_new, v_new, start): a parameter the contract does not pass."""

    def forward(self, k_new, v_new, start):
        return super().forward(k_new, v_new)


def _generate_asking_the_model(attribute):
    """The caches sized from (or the prompt moved to) an attribute the course's model does
    not have: model.block_size, model.device."""

    def generate(model, prompt, max_new_tokens):
        batch, length = prompt.shape
        if attribute == "block_size":
            caches = model.new_caches(batch, model.block_size)
        else:
            caches = model.new_caches(batch, length + max_new_tokens)
            prompt = prompt.to(model.device)
        return _greedy_with_caches(model, prompt, max_new_tokens, caches)

    return _named("generate", generate)


def _generate_caches_without_max_len(model, prompt, max_new_tokens):
    caches = model.new_caches(prompt.shape[0])
    return _greedy_with_caches(model, prompt, max_new_tokens, caches)


def _greedy_with_caches(model, prompt, max_new_tokens, caches):
    length = prompt.shape[1]
    logits = model(prompt, caches=caches, start=0)[:, -1]
    ids, steps = prompt, []
    for step in range(max_new_tokens):
        steps.append(logits)
        next_id = logits.argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
        if step + 1 < max_new_tokens:
            logits = model(next_id, caches=caches, start=length + step)[:, -1]
    return ids, torch.stack(steps, dim=1)


def _gqa_view_of_expand(q, k, v, mask=None):
    batch, kv, length, d_head = k.shape
    group = q.shape[1] // kv
    k = k[:, :, None].expand(batch, kv, group, length, d_head).view(batch, -1, length, d_head)
    v = v[:, :, None].expand(batch, kv, group, length, v.shape[-1])
    v = v.view(batch, -1, length, v.shape[-1])
    output, _ = scaled_dot_product_attention(q, k, v, mask)
    return output


@pytest.mark.parametrize(
    ("check", "fn", "message"),
    [
        (
            check_KVCache,
            KVCacheForwardWithStart,
            r"The check calls your KVCacheForwardWithStart\.forward as the exercise's contract "
            r"allows, and yours requires 'start'",
        ),
        (
            check_generate,
            _generate_asking_the_model("block_size"),
            r"asked the CachedGPT it was given for \.block_size, which it does not have.*"
            r"new_caches\(\.\.\.\)",
        ),
        (
            check_generate,
            _generate_asking_the_model("device"),
            r"asked the CachedGPT it was given for \.device, which it does not have",
        ),
        (
            check_generate,
            _named("generate", _generate_caches_without_max_len),
            r"Your code calls CachedGPT\.new_caches without 'max_len'",
        ),
        (
            check_grouped_query_attention,
            _named("grouped_query_attention", _gqa_view_of_expand),
            r"Your line views a tensor made by \.expand.*Use \.reshape",
        ),
    ],
)
def test_a_raw_error_of_the_learners_call_is_told_what_the_call_lacked(check, fn, message):
    for hidden in (False, True):
        with pytest.raises(CheckFailure, match=message):
            check(fn, hidden=hidden)


# ----------------------------------------- round 34: two known tiled mistakes at once, named
def _tiled_two_slips(*, scale=None, rescale_acc=True, strict=False, divide=True):
    """Tiled attention with the scale ``scale(d_k)`` (1 / sqrt(d_k) when None), the output
    not rescaled (``rescale_acc`` False), the causal mask hiding the diagonal (``strict``),
    no final division (``divide`` False): two of them at once make the pairs."""

    def tiled_attention(q, k, v, block_size, causal=False):
        len_q, len_k = q.shape[-2], k.shape[-2]
        factor = 1 / math.sqrt(q.shape[-1]) if scale is None else scale(q.shape[-1])
        m = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
        total = torch.zeros(q.shape[:-1], dtype=q.dtype)
        acc = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)
        rows = torch.arange(len_q)[:, None]
        for start in range(0, len_k, block_size):
            stop = min(start + block_size, len_k)
            s = q @ k[..., start:stop, :].transpose(-2, -1) * factor
            if causal:
                keys = torch.arange(start, stop)[None, :]
                s = s.masked_fill(keys >= rows if strict else keys > rows, float("-inf"))
            new = torch.maximum(m, s.amax(-1))
            c = torch.exp(m - new)
            p = torch.exp(s - new[..., None])
            total = total * c + p.sum(-1)
            acc = (acc * c[..., None] if rescale_acc else acc) + p @ v[..., start:stop, :]
            m = new
        return acc / total[..., None] if divide else acc

    return _named("tiled_attention", tiled_attention)


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        # was located only ("Already a single block is wrong")
        (
            _tiled_two_slips(scale=lambda d: 1 / d, rescale_acc=False),
            r"Two mistakes at once\. \(1\) The output accumulated over earlier blocks is not "
            r"rescaled.*\(2\) The scores are divided by d_k instead of sqrt\(d_k\)",
        ),
        (
            _tiled_two_slips(scale=lambda d: 1.0, divide=False),
            r"Two mistakes at once\. \(1\) The scores are not multiplied by 1 / sqrt\(d_k\)\. "
            r"\(2\) The accumulated output is never divided by the running sum",
        ),
        # the siblings, one slip each: named alone, as before
        (
            _tiled_two_slips(rescale_acc=False),
            r"The output accumulated over earlier blocks is not rescaled",
        ),
        (_tiled_two_slips(divide=False), r"never divided by the running sum"),
    ],
)
def test_tiled_attention_names_two_known_mistakes_made_at_once(fn, message):
    seen = _visible_message(check_tiled_attention, fn)
    assert re.search(message, seen), seen
    if "Two mistakes" not in message:
        assert "Two mistakes" not in seen
    with pytest.raises(CheckFailure):
        check_tiled_attention(fn, hidden=True)


def _online_two_slips(*, rescale=True, stop_short=False, final_last=False):
    """Online softmax with the running sum not rescaled (``rescale`` False), the loop
    stopping before the last short block (``stop_short``), the final exp taken with the last
    block's own maximum (``final_last``): two of them at once make the pairs."""

    def online_softmax(x, block_size):
        running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
        total = torch.zeros(x.shape[:-1], dtype=x.dtype)
        n = x.shape[-1]
        for start in range(0, n - block_size + 1 if stop_short else n, block_size):
            block = x[..., start : start + block_size]
            new_max = torch.maximum(running_max, block.amax(dim=-1))
            kept = total * torch.exp(running_max - new_max) if rescale else total
            total = kept + torch.exp(block - new_max[..., None]).sum(dim=-1)
            running_max = new_max
            last = block.amax(dim=-1)
        final = last if final_last else running_max
        return torch.exp(x - final[..., None]) / total[..., None]

    return _named("online_softmax", online_softmax)


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        # was told "a constant of its own per row: either ... or ... or ..."
        (
            _online_two_slips(rescale=False, stop_short=True),
            r"Two mistakes at once\. \(1\) The running sum is not rescaled.*\(2\) The last, "
            r"shorter block is skipped",
        ),
        (
            _online_two_slips(rescale=False, final_last=True),
            r"Two mistakes at once\. \(1\) The running sum is not rescaled.*\(2\) Your final "
            r"exp\(x - m\) uses the last block's own maximum",
        ),
        # the sibling, one slip: named alone
        (
            _online_two_slips(rescale=False),
            r"is not what the reference gives\. The running sum is not rescaled when",
        ),
    ],
)
def test_online_softmax_names_two_known_mistakes_made_at_once(fn, message):
    for hidden in (False, True):
        with pytest.raises(CheckFailure) as failure:
            check_online_softmax(fn, hidden=hidden)
        assert re.search(message, failure.value.message, re.S), failure.value.message
        if "Two mistakes" not in message:
            assert "Two mistakes" not in failure.value.message


def _generate_recording_shifted(shift):
    """Records each step's logits minus a constant of the row's own ("max" or "mean"):
    right tokens, other numbers. Was told to check what the step fed to the model."""

    def generate(model, prompt, max_new_tokens):
        batch, length = prompt.shape
        caches = model.new_caches(batch, length + max_new_tokens)
        logits = model(prompt, caches=caches, start=0)[:, -1]
        ids, steps = prompt, []
        for step in range(max_new_tokens):
            if shift == "max":
                steps.append(logits - logits.max(dim=-1, keepdim=True).values)
            else:
                steps.append(logits - logits.mean(dim=-1, keepdim=True))
            next_id = logits.argmax(dim=-1, keepdim=True)
            ids = torch.cat([ids, next_id], dim=1)
            if step + 1 < max_new_tokens:
                logits = model(next_id, caches=caches, start=length + step)[:, -1]
        return ids, torch.stack(steps, dim=1)

    return _named("generate", generate)


@pytest.mark.parametrize(
    ("shift", "message"),
    [
        # on peaked logits (a hidden model) log_softmax gives the same numbers: both named
        (
            "max",
            r"(minus one number per row.*each row minus its largest logit|minus one constant "
            r"per row: log-probabilities \(log_softmax\), or.*the row's maximum subtracted)",
        ),
        ("mean", r"minus one number per row: each row minus its mean"),
    ],
)
def test_generate_names_logits_recorded_with_a_shift_of_each_rows_own(shift, message):
    for hidden in (False, True):
        with pytest.raises(CheckFailure, match=message):
            check_generate(_generate_recording_shifted(shift), hidden=hidden)


def _generate_start_from_numel(model, prompt, max_new_tokens):
    """start = ids.numel() - 1 after appending: every sequence's tokens counted, so with
    two sequences it advances by 2 a step, which one position too many per step gives as
    well (was told that one alone)."""
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits = model(prompt, caches=caches, start=0)[:, -1]
    ids, steps = prompt, []
    for step in range(max_new_tokens):
        steps.append(logits)
        next_id = logits.argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
        if step + 1 < max_new_tokens:
            logits = model(next_id, caches=caches, start=ids.numel() - 1)[:, -1]
    return ids, torch.stack(steps, dim=1)


def test_generate_names_both_causes_of_a_start_that_advances_by_the_batch_of_two():
    for hidden in (False, True):
        with pytest.raises(CheckFailure) as failure:
            check_generate(_named("generate", _generate_start_from_numel), hidden=hidden)
        assert re.search(
            r"advances by 2: one more than the one position that call fed, or the batch's 2 "
            r"sequences' new tokens together",
            failure.value.message,
        ), failure.value.message


# --------------- round 34: a subscript counted from the front, where leading axes vary
def _online_softmax_front_counted(x, block_size):
    """x[:, start:stop]: written for 2-D rows; a 1-D x raises, a 3-D x is cut on axis 1."""
    running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    for start in range(0, x.shape[-1], block_size):
        block = x[:, start : start + block_size]
        new_max = torch.maximum(running_max, block.amax(dim=-1))
        total = total * torch.exp(running_max - new_max) + torch.exp(
            block - new_max[..., None]
        ).sum(dim=-1)
        running_max = new_max
    return torch.exp(x - running_max[..., None]) / total[..., None]


def _tiled_front_counted(leading):
    """k[:, start:stop] (written for (batch, len_k, d_k)) or k[:, :, start:stop] (for
    (batch, heads, len_k, d_k)): the other number of leading axes is cut elsewhere. Was
    told of a transpose over the wrong pair of axes, of a block's keys not transposed."""

    def tiled_attention(q, k, v, block_size, causal=False):
        len_q, len_k = q.shape[-2], k.shape[-2]
        running_max = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
        total = torch.zeros(q.shape[:-1], dtype=q.dtype)
        acc = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)
        rows = torch.arange(len_q)[:, None]
        for start in range(0, len_k, block_size):
            stop = min(start + block_size, len_k)
            if leading == 1:
                k_block, v_block = k[:, start:stop], v[:, start:stop]
            else:
                k_block, v_block = k[:, :, start:stop], v[:, :, start:stop]
            scores = q @ k_block.transpose(-2, -1) / math.sqrt(q.shape[-1])
            if causal:
                future = torch.arange(start, stop)[None, :] > rows
                scores = scores.masked_fill(future, float("-inf"))
            new_max = torch.maximum(running_max, scores.amax(dim=-1))
            correction = torch.exp(running_max - new_max)
            weights = torch.exp(scores - new_max[..., None])
            total = total * correction + weights.sum(dim=-1)
            acc = acc * correction[..., None] + weights @ v_block
            running_max = new_max
        return acc / total[..., None]

    return _named("tiled_attention", tiled_attention)


@pytest.mark.parametrize(
    ("check", "fn", "message"),
    [
        (
            check_online_softmax,
            _named("online_softmax", _online_softmax_front_counted),
            r"Your `x\[:, start:start \+ block_size\]` (asks for 2 axes of a tensor that has 1 "
            r"here|cuts axis 1 of x, counted from the front).*count from the end with an "
            r"ellipsis, x\[\.\.\., start:start \+ block_size\]",
        ),
        (
            check_tiled_attention,
            _tiled_front_counted(1),
            r"Your `k\[:, start:stop\]` cuts axis 1 of k, counted from the front \(`v\[:, "
            r"start:stop\]` likewise\).*k\[\.\.\., start:stop, :\]",
        ),
        (
            check_tiled_attention,
            _tiled_front_counted(2),
            r"Your `k\[:, :, start:stop\]` cuts axis 2 of k, counted from the front.*"
            r"k\[\.\.\., start:stop, :\]",
        ),
    ],
)
def test_a_subscript_counted_from_the_front_is_named_where_leading_axes_vary(check, fn, message):
    for hidden in (False, True):
        with pytest.raises(CheckFailure) as failure:
            check(fn, hidden=hidden)
        seen = failure.value.message
        assert re.search(message, seen, re.S), seen
        for misread in ("transposed over the wrong pair", "chunk(n)", "need the block's keys"):
            assert misread not in seen, seen
