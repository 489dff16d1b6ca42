# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 12 · Inference and memory: the KV cache, grouped-query and tiled attention
#
# **Time:** about 2½ hours: 103 minutes for the six exercises and one question, the
# rest for reading and the measurements.
#
# A trained language model is used one token at a time: read the prompt, predict the
# next token, append it, predict again. Done naively, every step runs the model over
# the *whole* sequence again, and attention builds a `(len, len)` table of scores
# that grows with the square of the length. This lesson builds the four ideas that
# make today's models affordable to run, and measures each one:
#
# | idea | saves | exercise |
# |---|---|---|
# | **KV cache**: keep every layer's keys and values, feed only the new token | time: one step costs one token, not the whole sequence | `KVCache`, `generate` |
# | **grouped-query attention** (GQA): several query heads share one key/value head | cache memory, by the group size | `grouped_query_attention` |
# | **online softmax / tiled attention**: the idea behind FlashAttention | memory: linear instead of quadratic in the length | `online_softmax`, `tiled_attention` |
# | **sliding-window attention** (Mistral): each token sees the last *w* | cache and compute: bounded by *w* | `sliding_window_mask` |
#
# **By the end of this lesson you can**
#
# * say what a generation step recomputes without a cache, and build a cache that
#   gives *exactly* the same tokens, with the positions (RoPE) right;
# * compute a model's cache memory with 2 · layers · heads · d_head · length · bytes,
#   and say what grouped-query and multi-query attention save;
# * compute softmax and attention over blocks of keys with a running maximum and sum,
#   and measure with PyTorch's profiler that peak memory then grows linearly;
# * build a sliding-window causal mask from lesson 06's look-ahead mask.
#
# **How to work:** fill in each cell marked `# YOUR CODE HERE` (delete the
# `raise NotImplementedError()`), run it, then run the test cell under it. A test cell
# prints `✓ ...` when your code is right and explains what is wrong when it is not.
# The demos use the course's reference code, so they work whatever state your earlier
# notebooks are in. Shapes use the glossary's symbols: attention tensors are
# `(batch, num_heads, len, d_head)`.

# %% nbgrader={"locked": true, "grade_id": "setup"}
import contextlib
import json
import math
import os
import sys
import time
from typing import Self

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from torch import nn
from torch.profiler import ProfilerActivity, profile

from transformer_course import stdlib_corpus
from transformer_course.checkpoints import DIRECTORY as CHECKPOINTS
from transformer_course.checkpoints import language_model as shipped_model
from transformer_course.checks.inference import (
    check_generate,
    check_grouped_query_attention,
    check_KVCache,
    check_online_softmax,
    check_quiz_cache_memory,
    check_sliding_window_mask,
    check_tiled_attention,
)
from transformer_course.plotting import mask_heatmap, running_headless
from transformer_course.reference.attention import scaled_dot_product_attention
from transformer_course.reference.language_model import (
    GPT,
    CausalSelfAttention,
    apply_rotary,
    rotary_embedding,
)
from transformer_course.reference.masking import look_ahead_mask
from transformer_course.reference.multi_head_attention import merge_heads, split_heads
from transformer_course.reference.tokenization import bpe_decode

torch.manual_seed(0)  # the demos' random inputs (the checks seed themselves)
torch.set_num_threads(1)  # one thread: on a shared machine two mostly wait for each other

# %% [markdown]
# ## 1. What generation recomputes
#
# A decoder-only language model maps token ids `(batch, len)` to next-token logits
# `(batch, len, vocab)`. Generation keeps only the last row, picks a token, appends it
# and runs the model again on `len + 1` tokens. Look at what changed between the two
# runs: **nothing** at the first `len` positions. With a causal mask, position *i*
# only reads positions ≤ *i*, so its query, key and value at every layer are exactly
# what they were one step earlier. The only new work is the new token's row.
#
# The new token's query still needs the keys and values of *every* earlier position
# (that is what attention reads), so we keep them: one tensor of keys and one of
# values per layer, `(batch, num_heads, len, d_head)` each, growing by one position
# per step. That is the **KV cache**. Queries are never cached: an old query is never
# used again.
#
# This lesson's model is lesson 11's GPT (RMSNorm, rotary position embedding, SwiGLU,
# tied embedding), given a forward that takes optional caches (section 2). You write the
# cache and the generation loop, then run them on the GPT that lesson 11 trained.
#
# ### Exercise 1: `KVCache`
# *3 points · about 15 min · core*
#
# One layer's cache, as an `nn.Module` (like the caches of gpt-fast and torchtune): it
# allocates room for `max_len` positions up front (two buffers, `keys` and `values`,
# made with `register_buffer(..., persistent=False)`: they are state, not weights), and
# each call appends the new positions and returns everything stored so far.
#
# <details><summary>Hint 1</summary>
#
# Keep a plain Python int, `self.length`: how many positions are stored. A call with
# `n` new positions writes into `[:, :, length : length + n]`.
# </details>
#
# <details><summary>Hint 2</summary>
#
# Write first, then return slices `[:, :, :length]` of both buffers: the new positions
# must be in what the attention reads, or a token cannot attend to itself.
# </details>


# %% nbgrader={"solution": true, "grade_id": "KVCache"}
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
        ### BEGIN SOLUTION
        shape = (batch, num_heads, max_len, d_head)
        self.register_buffer("keys", torch.zeros(shape, dtype=dtype), persistent=False)
        self.register_buffer("values", torch.zeros(shape, dtype=dtype), persistent=False)
        self.length = 0
        ### END SOLUTION

    def forward(
        self, k_new: torch.Tensor, v_new: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        ### BEGIN SOLUTION
        start, stop = self.length, self.length + k_new.shape[-2]
        if stop > self.keys.shape[-2]:
            raise ValueError(f"the cache holds {self.keys.shape[-2]} positions, not {stop}")
        self.keys[:, :, start:stop] = k_new  # (batch, num_heads, n, d_head)
        self.values[:, :, start:stop] = v_new
        self.length = stop
        return self.keys[:, :, :stop], self.values[:, :, :stop]  # (batch, heads, length, d_head)
        ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_KVCache", "points": 3}
check_KVCache(KVCache)
### BEGIN HIDDEN TESTS
check_KVCache(KVCache, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ## 2. Lesson 11's GPT, with a cache
#
# From here on the lesson uses the reference `KVCache`:

# %%
from transformer_course.reference import inference as ref

# %% [markdown]
# The model is lesson 11's `GPT`, unchanged: its embedding, its `DecoderBlock`s (RMSNorm,
# causal self-attention with RoPE, SwiGLU) and its final norm, the same weights under the
# same state-dict keys. What lesson 11's forward cannot do is take caches, so the code
# below (given) adds a forward that can: `CachedGPT` is a `GPT` whose forward walks the
# GPT's own submodules, and `cached_self_attention` is lesson 11's `CausalSelfAttention`
# run through a cache. With `caches=None` it *is* lesson 11's forward; with one
# `KVCache` per layer it appends each layer's new keys and values to that layer's cache
# and lets the new queries attend to everything cached.
#
# Two things in it matter for your generation loop:
#
# * **`start`, the position of the first token passed in.** RoPE (lesson 11) rotates
#   each query and key by an angle that depends on its *absolute* position. When you
#   feed the 7th token alone, the model cannot see that it is the 7th: you tell it with
#   `start=6`. A cached key keeps the rotation it got when it was stored.
# * **`positions_processed`**, a counter of token positions the model has run (in the
#   state dict). The checks read it to see whether your loop really feeds one token per
#   step.
#
# The mask with a cache: the `n` new queries are the *last* `n` of the `length` cached
# positions, so query `a` may attend to key `b` when `b <= length - n + a` (lesson
# 06's look-ahead mask, aligned to the bottom right). That is **not** the mask of
# `F.scaled_dot_product_attention(..., is_causal=True)`, which is aligned to the top
# left (query `a` sees keys `b <= a`, PyTorch's `causal_upper_left`; the bottom-right one
# is `torch.nn.attention.bias.causal_lower_right`): the two agree only when
# `len_q == len_k`, as in the prefill, and every step after it needs this one.


# %% export=true
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
        make = ref.KVCache if self.cache_class is None else self.cache_class
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


# %% [markdown]
# ### Exercise 2: `generate`
# *4 points · about 20 min · core*
#
# Greedy generation with the cache. The contract is `generate_without_cache`'s (same
# arguments, same results, to float tolerance for the logits and exactly for the
# tokens), but the model must see each position **once**: the prompt in one call
# (the "prefill": one forward over all its positions, the fast way and the one the hints
# follow; feeding the prompt token by token also sees each position once, and is
# accepted), then one new token per call. Keep the `@torch.no_grad()` given above
# `def generate`: generation needs no gradients, and without it every forward records an
# autograd graph that the returned logits keep alive, so memory grows with every step (the
# logits you return must not require grad, as `generate_without_cache`'s do not).
#
# <details><summary>Hint 1</summary>
#
# `caches = model.new_caches(batch, len + max_new_tokens)`, then
# `model(prompt, caches=caches, start=0)` gives the logits of the first new token (the
# last row). Which position does the first generated token have?
# </details>
#
# <details><summary>Hint 2</summary>
#
# The token chosen at step `t` sits at position `len + t`; feed it as `ids` of shape
# `(batch, 1)` with `start=len + t`. The last chosen token need not be fed at all.
# </details>


# %% nbgrader={"solution": true, "grade_id": "generate"}
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
    ### BEGIN SOLUTION
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
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_generate", "points": 4}
check_generate(generate)
### BEGIN HIDDEN TESTS
check_generate(generate, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# **Predict, then check.** Lesson 11's trained GPT writes Python. The cell below loads
# the checkpoint shipped with the course, gives the model your `KVCache`, and lets your
# `generate` continue a prompt; then the reference generates the same continuation
# without a cache. Will the tokens be identical? The logits? How many positions does
# each run push through the model?

# %%
shipped = shipped_model.load_record()
gpt = shipped_model.load_model(shipped)  # lesson 11's GPT, trained (sizes: the record's config)
merges = shipped_model.merges(shipped)  # lesson 11's byte-pair encoding
prompt_ids = torch.tensor([stdlib_corpus.encode("def __init__(self", merges)])  # (1, len)
new_tokens = min(60, shipped["config"]["block_size"] - prompt_ids.shape[1])  # in its context
try:
    cached_lm = ref.CachedGPT.from_gpt(gpt, cache_class=KVCache)  # with your KVCache
    fast_ids, fast_logits = generate(cached_lm, prompt_ids, new_tokens)
    whose = "your generate and your KVCache"
except NotImplementedError:  # Exercises 1 and 2 not done yet: the reference's, meanwhile
    cached_lm = ref.CachedGPT.from_gpt(gpt)
    fast_ids, fast_logits = ref.generate(cached_lm, prompt_ids, new_tokens)
    whose = "the reference (finish Exercises 1 and 2 to see yours)"
lm = ref.CachedGPT.from_gpt(gpt)  # the same weights, the reference cache
slow_ids, slow_logits = ref.generate_without_cache(lm, prompt_ids, new_tokens)
print(f"with a cache ({whose}):\n{bpe_decode(fast_ids[0].tolist(), merges)}\n")
print("same tokens as without a cache:", torch.equal(slow_ids, fast_ids))
print(f"largest logit difference: {(slow_logits - fast_logits).abs().max():.2e}")
print(
    f"positions run: {int(lm.positions_processed)} without the cache, "
    f"{int(cached_lm.positions_processed)} with it"
)

# %% [markdown]
# The tokens are identical and the logits agree to float rounding (the cached run adds
# the same numbers in a different order). Without the cache the model ran
# $\sum_t (\text{len} + t)$ positions, which grows with the *square* of the number of
# generated tokens; with it, each position once.
#
# **Time per token.** The cell below times one generation step of this model at several
# context lengths: without the cache, a forward pass over the whole context; with it,
# one token against a cache that already holds the context. Live, it measures on your
# machine with one thread, as set in the first cell (your numbers will differ, the
# shape of the curves should not); when the notebook is graded or tested it shows the
# figures that `benchmarks/inference_benchmark.py` recorded with the same function.
# Each point is the *fastest* of several rounds: whatever else the computer is doing
# only ever adds time, so the minimum is the steadiest estimate of the step's own cost.


# %% export=true
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


# %%
recorded = json.loads((CHECKPOINTS / "inference_benchmark.json").read_text())  # its record
if running_headless():  # graded or tested: the recorded figures, no timing
    lengths, timings = recorded["step_times"]["lengths"], recorded["step_times"]["seconds"]
    print(
        f"recorded by {recorded['made_with']} ({recorded['machine']}), the fastest of "
        f"{recorded['step_times']['rounds']} rounds:"
    )
else:
    lengths = [64, 128, 256, 512, 1024]
    timings = ref.step_times(lm, lengths)
for length, slow, fast in zip(
    lengths, timings["without cache"], timings["with cache"], strict=True
):
    print(f"context {length:5d}: {1e3 * slow:7.2f} ms without, {1e3 * fast:6.2f} ms with the cache")
fig, ax = plt.subplots(figsize=(6, 3.5), layout="constrained")
for label, seconds in timings.items():
    ax.plot(lengths, [1e3 * s for s in seconds], marker="o", label=label)
ax.set_xscale("log", base=2)
ax.set_yscale("log")
ax.set_xlabel("context length (tokens)")
ax.set_ylabel("time per generated token (ms),\nfastest of several rounds")
ax.set_title("one generation step of lesson 11's GPT on the CPU")
ax.legend()
plt.show()

# %% [markdown]
# Without the cache a step's cost grows with the context (linearly for the
# projections and the feed-forward, quadratically for attention's scores); with it,
# a step computes one row, and only attention's read of the cache grows. The benchmark
# also times whole generations, from a 16-token prompt:

# %%
run = recorded["generation"]
print(
    f"{run['tokens']} generated tokens: {run['ms_per_token_without_cache']:.1f} ms per token "
    f"without the cache, {run['ms_per_token_with_cache']:.1f} ms with it, "
    f"{run['ms_per_token_without_cache'] / run['ms_per_token_with_cache']:.1f}x faster; "
    f"same tokens: {run['same_tokens']}"
)

# %% [markdown]
# ## 3. What the cache costs in memory
#
# Each layer stores keys and values: two tensors of `num_heads · d_head` numbers per
# position. For one sequence,
#
# $$\text{cache bytes} = 2 \cdot \text{layers} \cdot \text{heads} \cdot d_\text{head}
# \cdot \text{length} \cdot \text{bytes per element}.$$
#
# The cell below makes the caches of lesson 11's GPT for 1024 positions and compares the
# bytes their buffers hold with the formula.

# %%
length = 1024
attn = lm.layers[0].attn
caches = lm.new_caches(1, length)
measured = sum(c.keys.nbytes + c.values.nbytes for c in caches)
element_bytes = caches[0].keys.element_size()
formula = 2 * len(lm.layers) * attn.num_heads * attn.d_head * length * element_bytes
print(f"buffers: {measured:,} bytes; formula: {formula:,} bytes; equal: {measured == formula}")

# %% [markdown]
# For a real model the numbers are large. A model shaped like Llama 2 7B (32 layers,
# 32 heads of 128, 16-bit numbers) at a context of 4096 tokens:

# %%
layers, heads, d_head, context, element_bytes = 32, 32, 128, 4096, 2
per_sequence = 2 * layers * heads * d_head * context * element_bytes
print(
    f"{per_sequence / 2**30:.1f} GiB per sequence; a batch of 16: {16 * per_sequence / 2**30:.0f} GiB"
)

# %% [markdown]
# That is why serving is limited by memory, and why the next idea exists.
#
# ## 4. Grouped-query attention
#
# The cache holds `heads` key heads and `heads` value heads per layer. **Multi-query
# attention** (Shazeer, 2019) keeps many query heads but only **one** key head and one
# value head, shared by all: the cache shrinks by the number of heads. **Grouped-query
# attention** (Ainslie et al., 2023; Llama 2 70B, Llama 3, Mistral) is the middle
# ground: `num_kv_heads` key/value heads, each shared by a group of
# `num_heads / num_kv_heads` query heads. Query head `h` uses key/value head
# `h // group`, so heads 0..group−1 share the first one.
#
# ```
# q: (batch, num_heads,    len_q, d_head)   e.g. 8 query heads
# k: (batch, num_kv_heads, len_k, d_head)   e.g. 2 key heads: q heads 0-3 use k head 0
# v: (batch, num_kv_heads, len_k, d_v)                         q heads 4-7 use k head 1
# ```
#
# ### Exercise 3: `grouped_query_attention`
# *3 points · about 15 min · core*
#
# Attention with shared key/value heads, equal to PyTorch's
# `F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)` (which you
# may not use here: the test cell rejects an answer that calls it, and the grader scores
# it 0). Lesson 04's `scaled_dot_product_attention` is imported and welcome.
#
# <details><summary>Hint 1</summary>
#
# One way: copy each key/value head `group` times along the head axis, so that heads
# line up one to one, and call ordinary attention. Which copy order puts key head 0 next
# to query heads 0..group−1: `[k0, k0, k1, k1]` or `[k0, k1, k0, k1]`?
# </details>
#
# <details><summary>Hint 2</summary>
#
# `torch.repeat_interleave(k, group, dim=1)` gives `[k0, k0, k1, k1]`; `k.repeat(1,
# group, 1, 1)` gives `[k0, k1, k0, k1]`, the wrong pairing.
# </details>


# %% nbgrader={"solution": true, "grade_id": "grouped_query_attention"}
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
    ### BEGIN SOLUTION
    group = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(group, dim=1)  # (batch, num_heads, len_k, d_head)
    v = v.repeat_interleave(group, dim=1)  # (batch, num_heads, len_k, d_v)
    output, _ = scaled_dot_product_attention(q, k, v, mask)
    return output  # (batch, num_heads, len_q, d_v)
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_grouped_query_attention", "points": 3}
check_grouped_query_attention(grouped_query_attention)
### BEGIN HIDDEN TESTS
check_grouped_query_attention(grouped_query_attention, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# Multi-query attention is the special case `num_kv_heads = 1`. The cell below compares
# the reference with PyTorch's own implementation for both, and prints what each choice
# saves in the Llama-2-7B-shaped cache of section 3.

# %%
q = torch.randn(2, 8, 5, 16)  # (batch, num_heads, len_q, d_head)
for num_kv_heads in (8, 2, 1):
    k = torch.randn(2, num_kv_heads, 7, 16)  # (batch, num_kv_heads, len_k, d_head)
    v = torch.randn(2, num_kv_heads, 7, 16)
    ours = ref.grouped_query_attention(q, k, v)
    theirs = F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
    print(
        f"num_kv_heads={num_kv_heads}: largest difference to PyTorch {(ours - theirs).abs().max():.1e}"
    )
for name, kv_heads in [("multi-head", 32), ("grouped-query, 8 groups", 8), ("multi-query", 1)]:
    gib = 2 * layers * kv_heads * d_head * context * element_bytes / 2**30
    print(f"{name:>24}: {kv_heads:2d} key/value heads, cache {gib:.3f} GiB per sequence")

# %% [markdown]
# ### Question 1: what grouped-query attention saves
# *1 point · about 3 min · core*
#
# A model has 48 layers, 32 query heads of `d_head = 128`, and 8 key/value heads. It
# stores its cache in bfloat16 (2 bytes). How many **MiB** does its cache take per
# sequence per 1024 tokens? Make `quiz_cache_memory` return the number.


# %% nbgrader={"solution": true, "grade_id": "quiz_cache_memory"}
def quiz_cache_memory() -> float:
    """Your answer to Question 1: the cache's size in MiB (2**20 bytes)."""
    ### BEGIN SOLUTION
    return 2 * 48 * 8 * 128 * 1024 * 2 / 2**20
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_quiz_cache_memory", "points": 1}
check_quiz_cache_memory(quiz_cache_memory)
### BEGIN HIDDEN TESTS
check_quiz_cache_memory(quiz_cache_memory, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ## 5. Online softmax: one pass over blocks
#
# Attention's memory problem is the `(len_q, len_k)` table of scores: 4096 tokens make
# 16.8 million scores per head. FlashAttention (Dao et al., 2022) never builds it. It
# walks over the keys **block by block**, and keeps for each query only three things: the
# largest score seen so far $m$, the sum $\ell$ of $e^{s - m}$ over the scores seen so
# far, and the output accumulated so far. The trick that makes this possible is the
# **online softmax** (Milakov and Gimelshein, 2018).
#
# A safe softmax subtracts the row maximum before `exp`. Over blocks, the maximum is
# not known until the end. So keep a running one, and whenever a new block raises it
# from $m$ to $m'$, rescale what was summed with the old maximum:
#
# $$m' = \max(m, \max_j s_j), \qquad
# \ell' = \ell \cdot e^{m - m'} + \sum_{j \in \text{block}} e^{s_j - m'} .$$
#
# After the last block, $\ell = \sum_j e^{s_j - m}$ with the true maximum $m$, and
# $\operatorname{softmax}(s)_j = e^{s_j - m} / \ell$.
#
# Two details decide whether this survives large scores. $m$ starts at $-\infty$, not 0:
# on a row whose scores are all far below 0 a maximum stuck at 0 makes every
# $e^{s - 0}$ underflow to 0, and the sum is 0. And $m'$ is the largest score *so far*,
# never just the block's own maximum: after a block far below an earlier one,
# $e^{m - m'}$ would overflow. (In exact arithmetic any reference point would do; in
# floating point only the running maximum keeps every exponent at most 0.)
#
# ### Exercise 4: `online_softmax`
# *3 points · about 15 min · core*
#
# Softmax over the last axis, computed with one pass over blocks of `block_size`
# columns (running maximum and sum), then the normalisation. The softmax functions
# (`torch.softmax`, `F.softmax`, `torch.special.softmax`) are off limits here: the test
# cell rejects an answer that calls them, and the grader scores it 0.
#
# <details><summary>Hint 1</summary>
#
# Start with `m = torch.full(x.shape[:-1], float("-inf"))` and `total = zeros`; for
# each block `x[..., start:start + block_size]` update `m` and `total` as in the
# formulas. `exp(-inf) = 0`, so the first block needs no special case.
# </details>
#
# <details><summary>Hint 2</summary>
#
# The rescaling factor is `torch.exp(m - m_new)`: at most 1, never an overflow. The end:
# `torch.exp(x - m[..., None]) / total[..., None]`.
# </details>


# %% nbgrader={"solution": true, "grade_id": "online_softmax"}
def online_softmax(x: torch.Tensor, block_size: int) -> torch.Tensor:
    """softmax(x) over the last axis, with a running maximum and sum over column blocks.

    x: float (..., n) with finite values (large ones too); block_size >= 1 (the last
    block may be shorter). Returns a tensor of x's shape and dtype whose rows sum to 1.
    x is not modified.
    """
    ### BEGIN SOLUTION
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
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_online_softmax", "points": 3}
check_online_softmax(online_softmax)
### BEGIN HIDDEN TESTS
check_online_softmax(online_softmax, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ## 6. Tiled attention
#
# Now the same for attention. For each block of keys and values: compute the block's
# scores `(len_q, block)`, update the running maximum, rescale the running sum **and
# the output accumulated so far** by $e^{m - m'}$, and add the block's contribution
# $e^{s - m'} V_\text{block}$. Divide by $\ell$ at the end. The full `(len_q, len_k)`
# table never exists; the largest temporary is `(len_q, block)`.
#
# With `causal=True`, query `i` may attend to key `j` when `j <= i` (the convention of
# `F.scaled_dot_product_attention(..., is_causal=True)`, lesson 06's look-ahead mask):
# inside each block, scores of later keys become −∞ before the update. This mask is
# aligned to the top left even when `len_q < len_k`, unlike section 2's cache mask, and
# the checks include such a case. A block in which every key is masked for a query has
# the maximum −∞, which the running maximum $\max(m, \cdot)$ ignores. (Real
# FlashAttention also skips blocks that are entirely in the future, and tiles the
# queries too; the memory argument is the same.)
#
# ### Exercise 5: `tiled_attention`
# *4 points · about 25 min · challenging*
#
# `F.scaled_dot_product_attention` and the softmax functions are off limits here (the
# test cell rejects an answer that calls them, and the grader scores it 0).
#
# <details><summary>Hint 1</summary>
#
# Three running tensors per query: `m` `(..., len_q)`, `total` `(..., len_q)` and
# `acc` `(..., len_q, d_v)`. When the maximum changes, both `total` and `acc` were
# computed with the old maximum, so both are multiplied by `exp(m - m_new)`.
# </details>
#
# <details><summary>Hint 2</summary>
#
# For the causal mask of a block starting at key `start`: key positions
# `torch.arange(start, stop)` against query positions `torch.arange(len_q)[:, None]`;
# blocked where the key position is larger.
# </details>


# %% nbgrader={"solution": true, "grade_id": "tiled_attention"}
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
    ### BEGIN SOLUTION
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
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_tiled_attention", "points": 4}
check_tiled_attention(tiled_attention)
### BEGIN HIDDEN TESTS
check_tiled_attention(tiled_attention, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ### Measuring memory with PyTorch's profiler
#
# **Predict, then check.** Doubling the length doubles the memory of tiled attention's
# temporaries. What does it do to naive attention's? The profiler
# (`torch.profiler.profile(profile_memory=True)`) records every allocation and free
# on the CPU; replaying them in time order gives the peak extra memory an attention
# call needed on top of its inputs.


# %% export=true
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


# %%
block_size = 128
memory_lengths = [256, 512, 1024, 2048, 4096]
naive_peaks, tiled_peaks = [], []
for n in memory_lengths:
    q = k = v = torch.randn(1, 1, n, 64)  # (batch, heads, len, d_head)
    naive_peaks.append(ref.peak_memory(ref.naive_attention, q, k, v))
    tiled_peaks.append(ref.peak_memory(ref.tiled_attention, q, k, v, block_size))
    print(
        f"len {n:5d}: naive {naive_peaks[-1] / 2**20:8.2f} MiB, "
        f"tiled {tiled_peaks[-1] / 2**20:6.2f} MiB"
    )
print(f"at 4096: tiled needs 1/{naive_peaks[-1] / tiled_peaks[-1]:.0f} of naive attention's memory")
fig, ax = plt.subplots(figsize=(6, 3.5), layout="constrained")
ax.plot(memory_lengths, [p / 2**20 for p in naive_peaks], marker="o", label="naive")
ax.plot(
    memory_lengths, [p / 2**20 for p in tiled_peaks], marker="o", label=f"tiled, block {block_size}"
)
ax.set_xscale("log", base=2)
ax.set_yscale("log", base=2)
ax.set_xlabel("sequence length (len_q = len_k)")
ax.set_ylabel("peak extra memory (MiB)")
ax.set_title("attention's peak memory (PyTorch profiler, d_head 64)")
ax.legend()
plt.show()

# %% [markdown]
# On log-log axes a straight line of slope 1 is linear growth and slope 2 quadratic:
# naive attention's memory quadruples with each doubling (the scores and their softmax,
# `len²` numbers each), tiled attention's only doubles (`len × block` scores and a
# `len × d_v` accumulator). The results agree:

# %%
q, k, v = torch.randn(3, 2, 300, 32), torch.randn(3, 2, 300, 32), torch.randn(3, 2, 300, 32)
for causal in (False, True):
    difference = ref.tiled_attention(q, k, v, 64, causal) - F.scaled_dot_product_attention(
        q, k, v, is_causal=causal
    )
    print(f"causal={causal}: largest difference to PyTorch {difference.abs().max():.1e}")

# %% [markdown]
# Tiling saves memory, not arithmetic: it does the same multiplications (and a few
# rescalings more). FlashAttention is fast on GPUs because the small tiles stay in the
# chip's fast on-chip memory instead of travelling to and from its main memory; in
# plain PyTorch on a CPU, the Python loop costs time. PyTorch's
# `F.scaled_dot_product_attention` picks such a kernel for you.
#
# ## 7. Sliding-window attention
#
# Mistral 7B lets each token attend only to the last `window` positions (itself
# included). A layer then costs `len × window` instead of `len²`, and the cache never
# holds more than `window` positions per layer (a rolling buffer). The idea is older:
# Longformer (Beltagy et al., 2020) gives each token a window of $w$ positions *around*
# it, $w/2$ on each side, plus a few "global" tokens that attend to and are attended by
# every position; only its autoregressive variant, for language modelling, looks back
# alone, as the causal window here does. Information
# still travels further: each layer reaches `window − 1` positions further back, so
# after `L` layers a token can be influenced by tokens about `L · (window − 1)` back.
#
# ### Exercise 6: `sliding_window_mask`
# *2 points · about 10 min · warm-up*
#
# The causal mask with a window: query `i` may attend to key `j` when `j <= i` and
# `i − j < window`. Start from lesson 06's `look_ahead_mask` (imported).
#
# <details><summary>Hint 1</summary>
#
# `torch.triu(m, diagonal=d)` keeps the entries with `j − i >= d`. Which `d` keeps
# exactly `i − j <= window − 1`?
# </details>
#
# <details><summary>Hint 2</summary>
#
# `look_ahead_mask(size) & torch.triu(torch.ones(size, size, dtype=torch.bool),
# diagonal=1 - window)`; or compare `torch.arange` columns and rows.
# </details>


# %% nbgrader={"solution": true, "grade_id": "sliding_window_mask"}
def sliding_window_mask(size: int, window: int) -> torch.Tensor:
    """bool (size, size), True = may attend: query i sees keys j with j <= i and
    i - j < window (itself and the window - 1 positions before it). window >= 1; a
    window of size or more gives lesson 06's look_ahead_mask(size)."""
    ### BEGIN SOLUTION
    recent = torch.triu(torch.ones(size, size, dtype=torch.bool), diagonal=1 - window)
    return look_ahead_mask(size) & recent  # (size, size)
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_sliding_window_mask", "points": 2}
check_sliding_window_mask(sliding_window_mask)
### BEGIN HIDDEN TESTS
check_sliding_window_mask(sliding_window_mask, hidden=True)
### END HIDDEN TESTS

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
mask_heatmap(look_ahead_mask(8), title="causal (lesson 06)", ax=axes[0])
mask_heatmap(ref.sliding_window_mask(8, 3), title="sliding window, window = 3", ax=axes[1])
plt.show()

# %% [markdown]
# ## 8. Outlook: what serving a large model adds
#
# The ideas above are in every serving system; a 2026 model and server add a few more.
# Each paragraph names the paper or model where it comes from.
#
# **Attention sinks.** A sliding window evicts the oldest positions, and with them the
# first tokens of the text. Xiao et al. (StreamingLLM, ["Efficient Streaming Language
# Models with Attention Sinks"](https://arxiv.org/abs/2309.17453), 2023) found that a
# model trained with full attention degrades as soon as those first tokens leave the
# cache: they receive a large share of the attention whatever their content (the weights
# of a softmax must go somewhere; lesson 11, section 10, looked for such heads). Keeping
# the keys and values of a few initial tokens next to the rolling window restores the
# model's quality, without retraining: the mask of section 7 with `j < num_sinks` added.
#
# **Interleaved local and global layers.** A window need not be in every layer. Gemma 2
# alternates sliding-window layers (a window of 4096) with global layers that see the
# whole context; Gemma 3 (["Gemma 3 Technical Report"](https://arxiv.org/abs/2503.19786),
# 2025) uses five local layers with a window of 1024 for each global one, so only one
# layer in six keeps a cache as long as the context. Its global layers use a RoPE base of
# 1,000,000 and its local ones 10,000 (lesson 11, "Beyond this lesson").
#
# **Multi-head latent attention.** Grouped-query attention shrinks the cache by sharing
# key/value heads. DeepSeek-V2 (["DeepSeek-V2"](https://arxiv.org/abs/2405.04434), 2024)
# caches instead, per token and layer, one latent vector of 512 numbers from which
# learned up-projections make every head's keys and values, plus one key of 64 numbers,
# shared by all heads, that carries RoPE (a rotation that depends on the position cannot
# be folded into those projections). Multi-head attention with its 128 heads of 128
# would cache 2 · 128 · 128 = 32,768 numbers per token and layer; MLA caches 576, as
# much as grouped-query attention with 2.25 groups, and the paper reports better results
# than multi-head attention.
#
# **Paged attention.** Section 3's caches reserve `max_len` positions per sequence up
# front; a server whose requests have unknown lengths wastes most of that. vLLM's
# PagedAttention (Kwon et al., ["Efficient Memory Management for Large Language Model
# Serving with PagedAttention"](https://arxiv.org/abs/2309.06180), 2023) stores the cache
# in fixed-size blocks of positions, allocated as a sequence grows, and a block table per
# sequence maps its positions to blocks, as an operating system's page table maps virtual
# memory; the attention kernel reads keys and values through the table. Sequences that
# share a prompt can share its blocks, and the paper reports near-zero waste of cache
# memory.
#
# **Continuous batching.** Generating for a batch until its longest sequence ends keeps
# finished sequences waiting and new requests queueing. Orca (Yu et al., ["Orca: A
# Distributed Serving System for Transformer-Based Generative
# Models"](https://www.usenix.org/conference/osdi22/presentation/yu), OSDI 2022)
# schedules one generation step at a time instead ("iteration-level scheduling"): after
# every step, finished sequences leave the batch and waiting requests join it.
#
# **Speculative decoding.** On an accelerator, a generation step of a large model is
# limited by reading every weight and the cache, not by its arithmetic, so scoring a few
# tokens in one forward pass costs little more than scoring one. A small *draft* model proposes the next `k` tokens; the
# large model scores all of them in one pass (with its cache, as `generate` fed the
# prompt); a proposed token `x` is accepted with probability $\min(1, p(x) / q(x))$ ($p$
# the large model's probability, $q$ the draft's), and at the first rejection a token is
# drawn from the normalised $\max(0, p - q)$. The tokens then follow exactly the large
# model's distribution (Leviathan et al., ["Fast Inference from Transformers via
# Speculative Decoding"](https://arxiv.org/abs/2211.17192), 2023; Chen et al.,
# ["Accelerating Large Language Model Decoding with Speculative
# Sampling"](https://arxiv.org/abs/2302.01318), 2023). With greedy decoding it is
# simpler: keep the proposed tokens up to the first one that is not the large model's
# argmax, and take the large model's token there.

# %% [markdown]
# ## Common misconceptions
#
# * **"The cache stores the queries too."** A query is used once, by its own position;
#   only keys and values are read again by later tokens.
# * **"With a cache, the new token needs no position."** RoPE rotates by the absolute
#   position: the token fed alone at step `t` must be told `start = len + t`, or its
#   query and key get the wrong rotation (the logits change; the check shows by how
#   much).
# * **"Grouped-query attention makes attention cheaper to compute."** It computes as
#   many query heads as before; it saves cache memory and the memory traffic of reading
#   it, which is what limits generation.
# * **"FlashAttention approximates attention."** It is exact: the online softmax gives
#   the same numbers up to rounding. It saves memory (and, on a GPU, time).
#
# ## Summary
#
# * A KV cache keeps each layer's keys and values, `(batch, heads, len, d_head)`; a
#   generation step then computes one token, and the tokens are exactly those of
#   generation without a cache.
# * Its memory is 2 · layers · heads · d_head · length · bytes per sequence;
#   grouped-query attention divides it by `num_heads / num_kv_heads`, multi-query by
#   `num_heads`.
# * The online softmax keeps a running maximum and sum, rescaled by $e^{m - m'}$;
#   tiled attention rescales the accumulated output the same way, and its memory grows
#   linearly with the length.
# * A sliding window bounds what each token attends to (and what the cache holds).
#
# ## Further reading
#
# * Pope et al., ["Efficiently Scaling Transformer Inference"](https://arxiv.org/abs/2211.05102)
#   (2022): where the time and memory of generation go, KV cache and multi-query
#   attention at scale.
# * Shazeer, ["Fast Transformer Decoding: One Write-Head is All You Need"](https://arxiv.org/abs/1911.02150)
#   (2019): multi-query attention. Ainslie et al., ["GQA"](https://arxiv.org/abs/2305.13245)
#   (2023): grouped-query attention, and turning a multi-head model into one.
# * Milakov and Gimelshein, ["Online normalizer calculation for softmax"](https://arxiv.org/abs/1805.02867)
#   (2018), and Dao et al., ["FlashAttention"](https://arxiv.org/abs/2205.14135) (2022),
#   Algorithm 1: the tiled algorithm of section 6, with the GPU memory hierarchy.
# * Jiang et al., ["Mistral 7B"](https://arxiv.org/abs/2310.06825) (2023), section 2:
#   sliding-window attention and the rolling buffer cache; Beltagy et al.,
#   ["Longformer"](https://arxiv.org/abs/2004.05150) (2020).
# * PyTorch's [`F.scaled_dot_product_attention`](https://pytorch.org/docs/stable/generated/torch.nn.functional.scaled_dot_product_attention.html)
#   (`enable_gqa`, `is_causal`) and the [profiler recipe](https://pytorch.org/tutorials/recipes/recipes/profiler_recipe.html)
#   (`profile_memory=True`).
