"""Reference implementation: lesson 12 · Inference and memory: the KV cache, grouped-query and tiled attention

Generated from the lesson master `solutions/12_inference/12_inference.py`
(its answer cells and its cells marked `export=true`) by `make notebooks`.
Edit the master, never this file.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import time
from typing import Self

import torch
from torch import nn
from torch.profiler import ProfilerActivity, profile

from transformer_course.reference.attention import scaled_dot_product_attention
from transformer_course.reference.language_model import (
    GPT,
    CausalSelfAttention,
    apply_rotary,
    rotary_embedding,
)
from transformer_course.reference.masking import look_ahead_mask
from transformer_course.reference.multi_head_attention import merge_heads, split_heads


class KVCache(nn.Module):
    """One attention layer's keys and values, for generation.

    KVCache(batch, num_heads, max_len, d_head, dtype=torch.float32) allocates two
    buffers `keys` and `values`, (batch, num_heads, max_len, d_head), registered with
    persistent=False, and starts empty (self.length == 0).

    forward(k_new, v_new): k_new and v_new are (batch, num_heads, n, d_head), the keys
    and values of n new positions (n >= 1). Stores them after the positions already
    held and returns (keys, values), each (batch, num_heads, length, d_head): every
    position stored so far, the new ones included, in order. Raises ValueError when
    more than max_len positions would be stored. k_new and v_new are not modified;
    each sequence of the batch keeps its own keys and values.
    """

    def __init__(self, batch: int, num_heads: int, max_len: int, d_head: int, dtype=torch.float32):
        super().__init__()
        shape = (batch, num_heads, max_len, d_head)
        self.register_buffer("keys", torch.zeros(shape, dtype=dtype), persistent=False)
        self.register_buffer("values", torch.zeros(shape, dtype=dtype), persistent=False)
        self.length = 0

    def forward(
        self, k_new: torch.Tensor, v_new: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        start, stop = self.length, self.length + k_new.shape[-2]
        if stop > self.keys.shape[-2]:
            raise ValueError(f"the cache holds {self.keys.shape[-2]} positions, not {stop}")
        self.keys[:, :, start:stop] = k_new  # (batch, num_heads, n, d_head)
        self.values[:, :, start:stop] = v_new
        self.length = stop
        return self.keys[:, :, :stop], self.values[:, :, :stop]  # (batch, heads, length, d_head)


def causal_cache_mask(len_q: int, len_k: int) -> torch.Tensor:
    """bool (len_q, len_k): the len_q queries are the last len_q of len_k positions;
    query a may attend to key b when b <= len_k - len_q + a (True = may attend)."""
    return look_ahead_mask(len_k)[len_k - len_q :]  # (len_q, len_k)


def cached_self_attention(
    attn: CausalSelfAttention, x: torch.Tensor, start: int, cache: nn.Module | None
) -> torch.Tensor:
    """Lesson 11's CausalSelfAttention ``attn`` (its own w_q, w_k, w_v, w_o), for tokens
    at positions start .. start + len - 1, with an optional KV cache.

    x: (batch, len, d_model), already normalised. The new queries and keys are rotated by
    their absolute positions; the new keys and values go through ``cache(k, v)``, which
    returns every key and value stored so far. Returns (batch, len, d_model).
    """
    length = x.shape[1]
    q = split_heads(attn.w_q(x), attn.num_heads)  # (batch, num_heads, len, d_head)
    k = split_heads(attn.w_k(x), attn.num_heads)
    v = split_heads(attn.w_v(x), attn.num_heads)
    cos, sin = rotary_embedding(start + length, attn.d_head, attn.base)  # (start + len, d_head/2)
    cos, sin = cos[start:], sin[start:]  # the angles of positions start .. start + len - 1
    q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
    if cache is not None:
        k, v = cache(k, v)  # (batch, num_heads, cached len, d_head), the new positions included
    heads, _ = scaled_dot_product_attention(q, k, v, causal_cache_mask(length, k.shape[-2]))
    return attn.w_o(merge_heads(heads))  # (batch, len, d_model)


class CachedGPT(GPT):
    """Lesson 11's GPT, whose forward takes optional KV caches.

    CachedGPT(vocab_size, d_model, num_heads, d_ff, num_layers, eps=1e-5,
    cache_class=None): GPT's submodules and weight keys, plus a buffer
    ``positions_processed`` (int64: token positions run so far). ``cache_class`` makes
    the caches of ``new_caches`` (None: the reference KVCache).

    forward(ids (batch, len), caches=None, start=0) -> logits (batch, len, vocab_size).
    ``start`` is the absolute position of ids[:, 0] (for RoPE); ``caches`` is None or one
    cache per layer (from ``new_caches``), which the forward appends to. With
    caches=None and start=0 it is GPT.forward itself.
    """

    def __init__(self, *sizes, cache_class=None, **options):
        super().__init__(*sizes, **options)
        self.cache_class = cache_class
        self.register_buffer("positions_processed", torch.zeros((), dtype=torch.int64))

    @classmethod
    def from_gpt(cls, gpt: GPT, cache_class=None) -> Self:
        """A CachedGPT with gpt's sizes and a copy of its weights, in gpt's mode."""
        first = gpt.layers[0]
        sizes = (
            gpt.embedding.num_embeddings,
            gpt.embedding.embedding_dim,
            first.attn.num_heads,
            first.feed_forward.w1.out_features,
            len(gpt.layers),
        )
        model = cls(*sizes, eps=gpt.norm.eps, cache_class=cache_class)
        model.load_state_dict({**gpt.state_dict(), "positions_processed": torch.tensor(0)})
        return model.train(gpt.training)

    def new_caches(self, batch: int, max_len: int) -> list[nn.Module]:
        """One empty cache per layer, room for max_len positions of `batch` sequences."""
        attn = self.layers[0].attn
        make = KVCache if self.cache_class is None else self.cache_class
        shape = (batch, attn.num_heads, max_len, attn.d_head)
        return [make(*shape, self.embedding.weight.dtype) for _ in self.layers]

    def forward(
        self, ids: torch.Tensor, caches: list[nn.Module] | None = None, start: int = 0
    ) -> torch.Tensor:
        self.positions_processed += ids.numel()
        if caches is None and start == 0:
            return super().forward(ids)  # lesson 11's forward, unchanged
        x = self.embedding(ids)  # (batch, len, d_model)
        for number, layer in enumerate(self.layers):  # DecoderBlock.forward, with a cache
            cache = None if caches is None else caches[number]
            x = x + cached_self_attention(layer.attn, layer.norm1(x), start, cache)
            x = x + layer.feed_forward(layer.norm2(x))
        return self.norm(x) @ self.embedding.weight.T  # tied output: (batch, len, vocab)


def make_cached_gpt(
    seed: int,
    vocab_size: int = 50,
    d_model: int = 32,
    num_heads: int = 4,
    num_layers: int = 2,
    d_ff: int = 64,
    logit_scale: float = 1.0,
) -> CachedGPT:
    """A small CachedGPT with fixed random weights (from a private generator), in eval
    mode: the checks' model. ``logit_scale`` multiplies the final norm's gains, and so
    the logits: a small one gives nearly uniform next-token probabilities, on which a
    token drawn at random is rarely the argmax."""
    model = CachedGPT(vocab_size, d_model, num_heads, d_ff, num_layers)
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if parameter.dim() == 1:  # the RMSNorm gains
                parameter.copy_(1 + 0.1 * torch.randn(parameter.shape, generator=generator))
            else:
                scale = 1.0 if name == "embedding.weight" else parameter.shape[-1] ** -0.5
                parameter.copy_(scale * torch.randn(parameter.shape, generator=generator))
        model.norm.weight.mul_(logit_scale)
    return model.eval()


@torch.no_grad()
def generate_without_cache(
    model: nn.Module, prompt: torch.Tensor, max_new_tokens: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Greedy generation the slow way: the whole sequence through the model at every step.

    prompt (batch, len) int64 -> (ids (batch, len + max_new_tokens), logits
    (batch, max_new_tokens, vocab_size)): logits[:, t] are the logits that chose token
    ids[:, len + t].
    """
    ids, steps = prompt, []
    for _ in range(max_new_tokens):
        logits = model(ids)[:, -1]  # (batch, vocab): only the last position's row is used
        steps.append(logits)
        ids = torch.cat([ids, logits.argmax(dim=-1, keepdim=True)], dim=1)
    return ids, torch.stack(steps, dim=1)


@torch.no_grad()
def generate(
    model: nn.Module, prompt: torch.Tensor, max_new_tokens: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Greedy generation with a KV cache.

    model: a CachedGPT (forward(ids, caches=None, start=0), new_caches(batch, max_len)).
    prompt: int64 (batch, len), len >= 1; max_new_tokens >= 1.
    Returns (ids, logits) exactly as generate_without_cache does: ids (batch, len +
    max_new_tokens) int64, the prompt followed by the greedy tokens; logits (batch,
    max_new_tokens, vocab_size), logits[:, t] the ones that chose ids[:, len + t].
    The model runs every position once: the prompt (best in one call, the prefill), then
    one token per call.
    """
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits = model(prompt, caches=caches, start=0)[:, -1]  # (batch, vocab): the prefill
    ids, steps = prompt, []
    for step in range(max_new_tokens):
        steps.append(logits)
        next_id = logits.argmax(dim=-1, keepdim=True)  # (batch, 1)
        ids = torch.cat([ids, next_id], dim=1)
        if step + 1 < max_new_tokens:
            logits = model(next_id, caches=caches, start=length + step)[:, -1]
    return ids, torch.stack(steps, dim=1)


@torch.no_grad()
def step_times(model: CachedGPT, lengths, repeats: int = 5) -> dict[str, list[float]]:
    """Seconds for the step that generates token number `length + 1`, with and without
    the cache, for each context length (batch 1): the fastest of `repeats` rounds after
    a warm-up round. Other work on the machine only ever adds time, so the minimum is
    the best estimate of what the step itself costs (a median still jumps when a busy
    spell covers half the rounds). The lengths take turns, one step each per round, so
    that a change in the machine's load hits them all alike."""
    vocab_size = model.embedding.num_embeddings
    attn = model.layers[0].attn
    contexts = [torch.randint(0, vocab_size, (1, length + 1)) for length in lengths]
    samples = {"without cache": [[] for _ in lengths], "with cache": [[] for _ in lengths]}
    for round_number in range(repeats + 1):  # round 0 warms up
        for number, (length, context) in enumerate(zip(lengths, contexts, strict=True)):
            begin = time.perf_counter()
            model(context)  # the whole context: (1, length + 1, vocab)
            without = time.perf_counter() - begin
            caches = model.new_caches(1, length + 1)
            filler = torch.zeros(1, attn.num_heads, length, attn.d_head)  # a context's keys
            for cache in caches:  # each layer's cache holds `length` positions
                cache(filler, filler)
            begin = time.perf_counter()
            model(context[:, -1:], caches=caches, start=length)  # one token: (1, 1, vocab)
            with_cache = time.perf_counter() - begin
            if round_number:
                samples["without cache"][number].append(without)
                samples["with cache"][number].append(with_cache)
    return {label: [min(times) for times in per_length] for label, per_length in samples.items()}


def grouped_query_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None
) -> torch.Tensor:
    """Scaled dot-product attention where groups of query heads share key/value heads.

    q: (batch, num_heads, len_q, d_head); k: (batch, num_kv_heads, len_k, d_head);
    v: (batch, num_kv_heads, len_k, d_v); num_heads is a multiple of num_kv_heads, and
    query head h uses key/value head h // (num_heads // num_kv_heads).
    mask: None, or bool broadcastable to (batch, num_heads, len_q, len_k), True = may
    attend. Returns the output (batch, num_heads, len_q, d_v). Inputs are not modified.
    """
    group = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(group, dim=1)  # (batch, num_heads, len_k, d_head)
    v = v.repeat_interleave(group, dim=1)  # (batch, num_heads, len_k, d_v)
    output, _ = scaled_dot_product_attention(q, k, v, mask)
    return output  # (batch, num_heads, len_q, d_v)


def quiz_cache_memory() -> float:
    """Your answer to Question 1: the cache's size in MiB (2**20 bytes)."""
    return 2 * 48 * 8 * 128 * 1024 * 2 / 2**20


def online_softmax(x: torch.Tensor, block_size: int) -> torch.Tensor:
    """softmax(x) over the last axis, with a running maximum and sum over column blocks.

    x: float (..., n) with finite values (large ones too); block_size >= 1 (the last
    block may be shorter). Returns a tensor of x's shape and dtype whose rows sum to 1.
    x is not modified.
    """
    running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)  # (...)
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)  # (...)
    for start in range(0, x.shape[-1], block_size):
        block = x[..., start : start + block_size]  # (..., block)
        new_max = torch.maximum(running_max, block.amax(dim=-1))
        total = total * torch.exp(running_max - new_max) + torch.exp(
            block - new_max[..., None]
        ).sum(dim=-1)
        running_max = new_max
    return torch.exp(x - running_max[..., None]) / total[..., None]


def tiled_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, block_size: int, causal: bool = False
) -> torch.Tensor:
    """softmax(q kᵀ / sqrt(d_k)) v, computed over blocks of block_size keys with a running
    maximum, sum and output (the FlashAttention algorithm, without the kernel).

    q: (..., len_q, d_k); k: (..., len_k, d_k); v: (..., len_k, d_v); block_size >= 1.
    causal: query i may attend to key j only when j <= i (as
    F.scaled_dot_product_attention(..., is_causal=True)); used with len_q <= len_k.
    Returns the output (..., len_q, d_v). Inputs are not modified.
    """
    len_q, len_k = q.shape[-2], k.shape[-2]
    scale = 1 / math.sqrt(q.shape[-1])
    running_max = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)  # (..., len_q)
    total = torch.zeros(q.shape[:-1], dtype=q.dtype)  # (..., len_q)
    acc = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)  # (..., len_q, d_v)
    query_positions = torch.arange(len_q)[:, None]  # (len_q, 1)
    for start in range(0, len_k, block_size):
        stop = min(start + block_size, len_k)
        scores = q @ k[..., start:stop, :].transpose(-2, -1) * scale  # (..., len_q, block)
        if causal:
            future = torch.arange(start, stop)[None, :] > query_positions  # (len_q, block)
            scores = scores.masked_fill(future, float("-inf"))
        new_max = torch.maximum(running_max, scores.amax(dim=-1))  # (..., len_q)
        correction = torch.exp(running_max - new_max)  # (..., len_q), at most 1
        weights = torch.exp(scores - new_max[..., None])  # (..., len_q, block)
        total = total * correction + weights.sum(dim=-1)
        acc = acc * correction[..., None] + weights @ v[..., start:stop, :]
        running_max = new_max
    return acc / total[..., None]  # (..., len_q, d_v)


def naive_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """softmax(q kᵀ / sqrt(d_k)) v with the whole (len_q, len_k) table of scores."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., len_q, len_k)
    return torch.softmax(scores, dim=-1) @ v  # (..., len_q, d_v)


@contextlib.contextmanager
def _quiet_stderr():
    """The profiler's C++ side logs two lines per run straight to file descriptor 2."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def peak_memory(fn, *args) -> int:
    """Peak bytes allocated on the CPU while ``fn(*args)`` runs, beyond what was allocated
    before it: the profiler's allocations (at the start of the operator that made them)
    and frees, replayed in time order."""
    with _quiet_stderr(), profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        fn(*args)
    changes = []
    for event in prof.events():
        if event.name == "[memory]":
            changes.append((event.time_range.start, event.cpu_memory_usage))
        elif event.self_cpu_memory_usage > 0:
            changes.append((event.time_range.start, event.self_cpu_memory_usage))
    current = peak = 0
    for _, change in sorted(changes, key=lambda item: item[0]):
        current += change
        peak = max(peak, current)
    return peak


def sliding_window_mask(size: int, window: int) -> torch.Tensor:
    """bool (size, size), True = may attend: query i sees keys j with j <= i and
    i - j < window (itself and the window - 1 positions before it). window >= 1; a
    window of size or more gives lesson 06's look_ahead_mask(size)."""
    recent = torch.triu(torch.ones(size, size, dtype=torch.bool), diagonal=1 - window)
    return look_ahead_mask(size) & recent  # (size, size)
