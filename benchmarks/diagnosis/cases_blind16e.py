"""Held-out wrong answers for lesson 12, blind round 16 (helper b16e, 2026-11-28):
mistakes new to the benchmark, written against the checks after round 18's fixes, to
measure how the diagnoses generalise to mistakes nobody here has seen. 21 cases over the
six coded exercises and the question; three transpose a mistake reported in public (the
URL read for this benchmark), the others are the author's.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run, and each case was compared with the causes of the benchmark's earlier cases for these
lessons (ids and causes only) and replaced where it repeated one.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L12 = "12_inference"

# The reports these cases transpose (each read with the search tool for this benchmark).
BYTE_MASK = "https://github.com/microsoft/IRNet/issues/5"
MASKED_FILL_NOT_IN_PLACE = "https://github.com/lucidrains/flamingo-pytorch/issues/10"
SCALE_BY_MODEL_WIDTH = "https://github.com/omihub777/ViT-CIFAR/pull/11"

_c = held_out_authored("blind16e")

_KV_INIT = (
    '        self.register_buffer("values", torch.zeros(shape, dtype=dtype), persistent=False)\n'
)
_KV_START = "        start, stop = self.length, self.length + k_new.shape[-2]\n"
_KV_CHECK = "        if stop > self.keys.shape[-2]:\n"
_KV_RAISE = (
    '            raise ValueError(f"the cache holds {self.keys.shape[-2]} positions, not {stop}")\n'
)

BLIND16E: list[Case] = [
    # ------------------------------------------------------------------ KVCache
    _c(
        "kv-new-length-from-batch-axis",
        L12,
        "KVCache",
        "reads the number of new positions from k_new.shape[0] (the batch axis) instead of "
        "k_new.shape[-2]: right only when the batch size equals the chunk's length; "
        "otherwise the length advances by the batch size and the slice does not fit the chunk.",
        (
            r"shape\[0\]",
            r"batch (axis|size|dimension).{0,80}(instead of|not) .{0,40}(positions|shape\[-2\]|n\b)",
            r"(advanc|length).{0,60}by the batch",
        ),
        (r"heads? axis", r"shape\[1\]", r"(never|not) advanc", r"persistent"),
        edits=((_KV_START, _KV_START.replace("k_new.shape[-2]", "k_new.shape[0]")),),
    ),
    _c(
        "kv-capacity-from-d-head",
        L12,
        "KVCache",
        "the capacity check compares the new length with self.keys.shape[-1] (d_head) instead "
        "of shape[-2] (max_len): with d_head < max_len chunks that fit are refused, with "
        "d_head > max_len an overflow is not caught (raw RuntimeError in the slice).",
        (
            r"shape\[-1\]",
            r"d_head.{0,80}(instead of|not|rather than) .{0,20}max_len",
            r"(capacity|check|refus).{0,80}d_head",
        ),
        (r"batch (size|axis).{0,40}(capacity|check)", r">=", r"assert"),
        edits=((_KV_CHECK, _KV_CHECK.replace("shape[-2]", "shape[-1]")),),
    ),
    _c(
        "kv-overflow-raises-runtime-error",
        L12,
        "KVCache",
        "detects the overflow at the right place but raises RuntimeError instead of the "
        "ValueError the contract asks for.",
        (
            r"RuntimeError.{0,80}(instead of|not|rather than|expected).{0,20}ValueError",
            r"ValueError.{0,80}(instead of|not|but|got).{0,30}RuntimeError",
            r"(raise|must raise|should raise) (a )?ValueError",
        ),
        (r"assert", r">=", r"(never|no) (overflow |capacity )?check", r"persistent"),
        edits=((_KV_RAISE, _KV_RAISE.replace("ValueError", "RuntimeError")),),
    ),
    _c(
        "kv-values-buffer-shaped-d-v-from-keys",
        L12,
        "KVCache",
        "allocates the values buffer transposed like the keys for q @ k.T, shape (batch, "
        "num_heads, d_head, max_len), and writes the values into [:, :, :, start:stop] "
        "transposed: returned values are transposed (batch, num_heads, d_head, length) "
        "instead of (batch, num_heads, length, d_head).",
        (
            r"values?.{0,80}(transpos|\(batch, num_heads, d_head, max_len\)|d_head, max_len)",
            r"(layout|shape).{0,60}values? buffer",
            r"values? buffer.{0,80}(layout|shape|axes)",
        ),
        (r"keys? buffer.{0,40}(layout|transpos)", r"persistent", r"one sequence"),
        edits=(
            (
                _KV_INIT,
                '        self.register_buffer("values", torch.zeros(batch, num_heads, d_head, '
                "max_len, dtype=dtype), persistent=False)\n",
            ),
            (
                "        self.values[:, :, start:stop] = v_new\n",
                "        self.values[:, :, :, start:stop] = v_new.transpose(-2, -1)\n",
            ),
            (
                "self.values[:, :, :stop]  # (batch",
                "self.values[:, :, :, :stop]  # (batch",
            ),
        ),
    ),
    # ------------------------------------------------------------------ generate
    _c(
        "gen-feeds-last-token-caches-one-short",
        L12,
        "generate",
        "sizes the caches len + max_new_tokens - 1 (the last token is never stored) but runs "
        "the model on the last generated token too (no `if step + 1 < max_new_tokens`): the "
        "final, useless call overflows the caches and the cache's ValueError escapes.",
        (
            r"(last|final) (generated )?token.{0,80}(run|fed|model|call|never needs)",
            r"(extra|one more|useless|unneeded) (model )?(call|forward|step)",
            r"(run|feed|call)s? the model .{0,40}(after|on) the last",
        ),
        (r"sized for the prompt only", r"new tokens only", r"fresh.{0,20}caches"),
        edits=(
            (
                "caches = model.new_caches(batch, length + max_new_tokens)",
                "caches = model.new_caches(batch, length + max_new_tokens - 1)",
            ),
            (
                "        if step + 1 < max_new_tokens:\n"
                "            logits = model(next_id, caches=caches, start=length + step)[:, -1]\n",
                "        logits = model(next_id, caches=caches, start=length + step)[:, -1]\n",
            ),
        ),
    ),
    _c(
        "gen-no-cache-recomputes-whole-sequence",
        L12,
        "generate",
        "never uses the caches: at every step it runs the model on the whole sequence so far "
        "(model(ids)[:, -1]), as generate_without_cache does: tokens and logits are right, but "
        "every position is run again at every step, which the exercise forbids.",
        (
            r"(without|no|never uses?|not using) (the |any )?(kv[ -])?caches?",
            r"(whole|entire|full) (sequence|prompt).{0,60}(every|each) step",
            r"(every|each) position .{0,30}(once|more than once|again|twice)",
            r"caches? (are|were|is) never",
        ),
        (r"fresh.{0,20}caches", r"sized", r"start.{0,30}(stale|one too far|zero)"),
        code="""
import torch


def generate(model, prompt, max_new_tokens):
    ids, steps = prompt, []
    for _ in range(max_new_tokens):
        logits = model(ids)[:, -1]
        steps.append(logits)
        next_id = logits.argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
    return ids, torch.stack(steps, dim=1)
""",
    ),
    _c(
        "gen-logits-stacked-vocab-before-steps",
        L12,
        "generate",
        "stacks the per-step logits along the last axis (torch.stack(steps, dim=-1)): the "
        "logits come back (batch, vocab_size, max_new_tokens) instead of (batch, "
        "max_new_tokens, vocab_size).",
        (
            r"stack.{0,60}(dim ?= ?1|axis 1|dim=-1|last axis)",
            r"\(batch, vocab_size, max_new_tokens\)",
            r"(vocab(ulary)?|steps?) .{0,40}(swapped|transposed|wrong order|axes)",
        ),
        (r"torch\.cat", r"\(max_new_tokens, batch", r"probabilit", r"one step late"),
        edits=(("torch.stack(steps, dim=1)", "torch.stack(steps, dim=-1)"),),
    ),
    _c(
        "gen-next-token-cast-to-logits-dtype",
        L12,
        "generate",
        "casts the chosen tokens to the logits' dtype (next_id = argmax(...).to(logits.dtype), "
        "to 'match' the tensors): the ids turn float and the embedding refuses the float next "
        "token, so the first step after the prefill raises.",
        (
            r"float.{0,60}(token|ids|next)",
            r"(token|ids|next_id).{0,60}(float|not int64|must be int|integer|long)",
            r"\.to\(logits\.dtype\)",
        ),
        (r"max\(.{0,20}values", r"zeros.{0,40}(buffer|default dtype)", r"probabilit"),
        edits=(
            (
                "next_id = logits.argmax(dim=-1, keepdim=True)  # (batch, 1)",
                "next_id = logits.argmax(dim=-1, keepdim=True).to(logits.dtype)",
            ),
        ),
    ),
    # ------------------------------------------------------------------ GQA
    _c(
        "gqa-scale-by-model-width",
        L12,
        "grouped_query_attention",
        "writes the attention by hand and scales the scores by 1/sqrt(num_heads * d_head), the "
        "model's width, instead of 1/sqrt(d_head): the weights are too flat (right only with "
        "one query head).",
        (
            r"sqrt\(num_heads",
            r"num_heads \* d_head",
            r"(model'?s? width|d_model).{0,80}(instead of|not|rather than) .{0,20}d_head",
            r"scale.{0,80}(sqrt\(d_head\)|per head)",
        ),
        (r"d_v", r"(not|never|no) (scaled|divided)", r"after (the )?softmax", r"inverse"),
        source=SCALE_BY_MODEL_WIDTH,
        code="""
import math

import torch


def grouped_query_attention(q, k, v, mask=None):
    num_heads = q.shape[1]
    group = num_heads // k.shape[1]
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(num_heads * q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v
""",
    ),
    _c(
        "gqa-masked-fill-result-dropped",
        L12,
        "grouped_query_attention",
        "writes the attention by hand and calls scores.masked_fill(~mask, -inf) without "
        "assigning the result (masked_fill is not in place): right without a mask, but masked "
        "keys still get weight.",
        (
            r"masked_fill.{0,80}(not in[ -]place|assign|result|discard|return)",
            r"(assign|keep).{0,40}(result|return value).{0,40}masked_fill",
            r"masked_fill_",
        ),
        (
            r"(mask|argument) (is )?(never|not) (passed|applied|used)",
            r"invert",
            r"fill(s|ed)? (with )?(0|zero)",
        ),
        source=MASKED_FILL_NOT_IN_PLACE,
        code="""
import math

import torch


def grouped_query_attention(q, k, v, mask=None):
    group = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v
""",
    ),
    _c(
        "gqa-query-heads-subsampled",
        L12,
        "grouped_query_attention",
        "shrinks the queries to the key/value heads instead of widening the keys: keeps every "
        "group-th query head (q[:, ::group]) and attends with num_kv_heads heads, returning "
        "(batch, num_kv_heads, len_q, d_v) and dropping the other query heads.",
        (
            r"(drop|discard|keeps? only|skip).{0,60}query heads",
            r"num_kv_heads.{0,40}heads?.{0,60}(instead of|not) .{0,20}num_heads",
            r"one output per query head",
            r"q\[:, ?::",
        ),
        (r"averag", r"tile", r"values? (are )?not repeated", r"returns? .{0,20}weights"),
        code="""
import math

import torch


def grouped_query_attention(q, k, v, mask=None):
    group = q.shape[1] // k.shape[1]
    q = q[:, ::group]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v
""",
    ),
    # ------------------------------------------------------------------ quiz
    _c(
        "quiz-float32-bytes",
        L12,
        "quiz_cache_memory",
        "counts 4 bytes per value (float32) instead of bfloat16's 2: 384 MiB, twice the cache.",
        (
            r"bfloat16.{0,60}2 bytes",
            r"2 bytes.{0,60}(bfloat16|per value|per element)",
            r"(4 bytes|float32).{0,60}(instead of|not|rather than)",
            r"bytes per (value|element|number)",
        ),
        (r"query heads", r"10\*\*6|megabytes", r"factor (of )?2 for keys", r"keys? (alone|only)"),
        edits=(
            (
                "return 2 * 48 * 8 * 128 * 1024 * 2 / 2**20",
                "return 2 * 48 * 8 * 128 * 1024 * 4 / 2**20",
            ),
        ),
    ),
    # ------------------------------------------------------------------ online softmax
    _c(
        "os-final-shift-last-block-max",
        L12,
        "online_softmax",
        "normalises with the last block's own maximum (exp(x - block.amax(-1))) instead of the "
        "running maximum: the running sum was taken against the running maximum, so a row "
        "whose maximum lies in an earlier block is scaled by exp(running_max - last_max) "
        "(and can overflow to inf).",
        (
            r"(last|final) block'?s? (own )?max",
            r"(running|overall|global) max.{0,60}(final|normalis|at the end|instead)",
            r"(final|normalis|at the end).{0,80}running max",
        ),
        (
            r"not (rescaled|multiplied)",
            r"starts? at (0|zero)",
            r"(block|own) max.{0,30}(running sum|total)",
        ),
        edits=(
            (
                "    return torch.exp(x - running_max[..., None]) / total[..., None]",
                "    return torch.exp(x - block.amax(dim=-1, keepdim=True)) / total[..., None]",
            ),
        ),
    ),
    _c(
        "os-correction-sign-flipped",
        L12,
        "online_softmax",
        "rescales the running sum by exp(new_max - running_max) instead of exp(running_max - "
        "new_max) (the factor inverted): from the first block, exp(inf) times 0 gives nan, "
        "and later growths of the maximum multiply the sum instead of shrinking it.",
        (
            r"(invert|sign|wrong way|reciprocal|upside)",
            r"exp\(running_max - new_max\)",
            r"exp\(m - m'?\)",
            r"(at most 1|<= ?1|shrink)",
        ),
        (r"not (rescaled|multiplied)", r"starts? at (0|zero)", r"block'?s? own max"),
        edits=(
            (
                "torch.exp(running_max - new_max)",
                "torch.exp(new_max - running_max)",
            ),
        ),
    ),
    _c(
        "os-block-slice-one-short",
        L12,
        "online_softmax",
        "slices each block as x[..., start : start + block_size - 1] (an inclusive stop, off "
        "by one): the last column of every block is never counted in the running maximum and "
        "sum, and with block_size=1 every block is empty (amax of an empty tensor raises).",
        (
            r"(last|one) column.{0,60}(block|skipped|missing|never)",
            r"block_size - 1",
            r"off[- ]by[- ]one",
            r"(block|slice).{0,60}(one (column )?(short|too few)|block_size - 1 columns)",
        ),
        (r"last,? (shorter|partial) block", r"overlap", r"rows"),
        edits=(
            (
                "block = x[..., start : start + block_size]",
                "block = x[..., start : start + block_size - 1]",
            ),
        ),
    ),
    _c(
        "os-block-max-over-all-rows",
        L12,
        "online_softmax",
        "takes each block's maximum with block.amax() (no dim), one maximum shared by every "
        "row: the softmax is unchanged by a common shift, so rows of similar scale are right, "
        "but a row far below the others underflows to 0 / 0 (nan).",
        (
            r"amax\(\)",
            r"(one|single|shared|common) max.{0,60}(rows|every row|all rows|whole)",
            r"max.{0,60}(per row|each row|of each row|dim ?= ?-1)",
            r"(across|over) (all|every|the) rows",
        ),
        (r"starts? at (0|zero)", r"not (rescaled|multiplied)", r"sum\(\)"),
        edits=(
            (
                "torch.maximum(running_max, block.amax(dim=-1))",
                "torch.maximum(running_max, block.amax())",
            ),
        ),
    ),
    # ------------------------------------------------------------------ tiled attention
    _c(
        "tiled-values-not-sliced",
        L12,
        "tiled_attention",
        "multiplies each block's weights by the whole v (weights @ v) instead of the block's "
        "values v[..., start:stop, :]: right while one block covers every key, a shape error "
        "as soon as there are several blocks.",
        (
            r"(whole|entire|all of|full) v\b",
            r"v\[\.\.\., ?start ?: ?stop",
            r"values?.{0,60}(block|slice).{0,40}(not|never|missing|instead)",
            r"(block'?s?|slice of the) values",
        ),
        (r"last axis", r"keys? as values", r"d_v", r"first axis"),
        edits=(("weights @ v[..., start:stop, :]", "weights @ v"),),
    ),
    _c(
        "tiled-total-summed-over-queries",
        L12,
        "tiled_attention",
        "sums the block's weights over the query axis (weights.sum(dim=-2)) instead of the "
        "keys (dim=-1): the running sum gets one entry per key of the block, a broadcast "
        "error unless the block's size equals len_q (then wrong sums).",
        (
            r"sum.{0,60}(dim ?= ?-2|query axis|over (the )?queries)",
            r"(over|across) (the )?keys.{0,40}(dim ?= ?-1)?",
            r"dim ?= ?-1.{0,40}(sum|keys)",
        ),
        (r"not rescaled", r"never divided", r"(dim ?= ?-2|query axis).{0,40}softmax"),
        edits=(
            (
                "total = total * correction + weights.sum(dim=-1)",
                "total = total * correction + weights.sum(dim=-2)",
            ),
        ),
    ),
    _c(
        "tiled-causal-positions-not-column",
        L12,
        "tiled_attention",
        "builds the query positions as torch.arange(len_q) without [:, None], so the causal "
        "comparison with the block's key positions is element-wise 1-D, not a (len_q, block) "
        "table: a broadcast error unless the block's size equals len_q (then the wrong keys "
        "are masked); causal=False is right.",
        (
            r"\[:, ?None\]",
            r"column",
            r"\(len_q, block\)",
            r"(query|key) positions.{0,80}(broadcast|1-?D|shape)",
        ),
        (r"bottom[- ]right", r"block[- ]local", r"diagonal", r"not in[ -]place"),
        edits=(
            (
                "query_positions = torch.arange(len_q)[:, None]  # (len_q, 1)",
                "query_positions = torch.arange(len_q)",
            ),
            (
                "future = torch.arange(start, stop)[None, :] > query_positions",
                "future = torch.arange(start, stop) > query_positions",
            ),
        ),
    ),
    # ------------------------------------------------------------------ sliding window
    _c(
        "sw-returned-four-dimensional",
        L12,
        "sliding_window_mask",
        "returns the mask ready for attention, (1, 1, size, size) (mask[None, None]), instead "
        "of the (size, size) the contract asks for: the pattern is right.",
        (
            r"\(1, 1, (size, size|\d+, \d+)\)",
            r"(4-?D|four[- ]dim|extra (leading )?(axes|dimensions))",
            r"\[None, None\]",
            r"(shape|dims?).{0,60}\((size, size|\d+, \d+)\).{0,30}(not|instead)",
        ),
        (r"transpos", r"invert", r"float", r"one too (wide|many)"),
        edits=(
            (
                "    return look_ahead_mask(size) & recent  # (size, size)",
                "    return (look_ahead_mask(size) & recent)[None, None]  # (1, 1, size, size)",
            ),
        ),
    ),
    _c(
        "sw-uint8-mask",
        L12,
        "sliding_window_mask",
        "returns the right pattern as a torch.uint8 0/1 tensor (.to(torch.uint8), the byte "
        "masks older PyTorch code used) instead of a bool mask.",
        (
            r"uint8",
            r"(byte|0/1|integer).{0,60}(instead of|not|rather than).{0,20}bool",
            r"bool.{0,40}(dtype|mask).{0,40}(not|instead)",
            r"(must|should) be (a )?bool",
        ),
        (r"transpos", r"invert", r"one too (wide|many)", r"float( 0/1)? (mask|tensor)"),
        source=BYTE_MASK,
        edits=(
            (
                "    return look_ahead_mask(size) & recent  # (size, size)",
                "    return (look_ahead_mask(size) & recent).to(torch.uint8)  # (size, size)",
            ),
        ),
    ),
]
