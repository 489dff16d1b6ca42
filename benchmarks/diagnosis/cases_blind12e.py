"""Held-out wrong answers for lesson 12, blind round 12 (helper r12e, 2026-11-27):
mistakes new to the benchmark.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run, and each case was compared with the causes of the benchmark's earlier cases for these
lessons (ids and causes only) and replaced where it repeated one. Eleven of the 24 transpose
a mistake reported in a public thread (the URL read for this benchmark); the others are the
author's. Kinds favoured: arguments swapped (constructor, shape unpacking, positional call),
standard idioms misused (``.T`` on a batch, ``keepdim``, ``sum()`` without dim,
``zeros_like``, ``torch.stack`` of columns, ``assert``), mistakes that show only on some
inputs (a window larger than size, a last shorter block, large scores, len_q != len_k,
several key/value heads), and state that goes wrong at one step.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L12 = "12_inference"

# The reports these cases transpose (each read with the search tool for this benchmark).
LAZY_CACHE = "https://github.com/li-plus/chatglm.cpp/pull/277"
ASSERT_NOT_RAISE = "https://github.com/AI-Hypercomputer/maxtext/pull/1984"
STACK_VS_CAT = "https://github.com/yunjey/pytorch-tutorial/issues/84"
KV_AXIS_LAYOUT = "https://github.com/ByteDance-Seed/VeOmni/pull/162"
MASK_REPEATED_HEADS = "https://github.com/huggingface/diffusers/pull/3023"
EXP_OVERFLOW = "https://github.com/uTensor/uTensor/issues/175"
LAST_TILE = "https://github.com/moonmath-ai/LiteAttention/pull/3"
DOT_T_DEPRECATED = "https://github.com/pytorch/pytorch/pull/64180"
WINDOW_INTERPRETATIONS = "https://github.com/elixir-nx/bumblebee/pull/341"
BITS_AND_BYTES = "https://github.com/jranaraki/vllm-fit/issues/2"

_c = held_out_authored("blind12e")

BLIND12E: list[Case] = [
    # ------------------------------------------------------------------ KVCache
    _c(
        "kv-write-through-end",
        L12,
        "KVCache",
        "writes the new positions into [:, :, start:] (through the end of the buffer) instead "
        "of [:, :, start:stop]: a one-position chunk broadcasts into every remaining slot "
        "(harmless, later calls overwrite them), but a chunk of several positions raises a "
        "shape RuntimeError unless it exactly fills the rest of the buffer.",
        (
            r"start:\]",
            r"(through|to) the end of the (buffer|cache)",
            r"(rest|remainder) of the buffer",
            r"start:stop.{0,40}(instead|not|rather)",
            r"(instead of|not|rather than) \[?:?,? ?:?,? ?start:stop",
        ),
        (
            r"no (capacity|overflow) check",
            r"length (is )?never advanced",
            r"returns? the whole buffers?",
        ),
        edits=[
            ("self.keys[:, :, start:stop] = k_new", "self.keys[:, :, start:] = k_new"),
            ("self.values[:, :, start:stop] = v_new", "self.values[:, :, start:] = v_new"),
        ],
    ),
    _c(
        "kv-buffers-allocated-lazily",
        L12,
        "KVCache",
        "registers keys and values as None in __init__ and allocates them on the first "
        "forward call: the returned keys and values are right, but a new cache has no "
        "(batch, num_heads, max_len, d_head) buffers until it is first called.",
        (
            r"(lazily|lazy|on the first (call|forward)).{0,80}(alloc|buffer|None)",
            r"(keys|values|buffers?).{0,60}None.{0,60}(after|construct|__init__|new cache)",
            r"alloc\w*.{0,60}(in|at|inside) __init__",
            r"__init__.{0,60}(does not|doesn't|never) alloc",
        ),
        (r"persistent", r"ignores? the dtype|dtype (argument )?(is )?ignored"),
        code="""
        class KVCache(nn.Module):
            def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
                super().__init__()
                self.shape = (batch, num_heads, max_len, d_head)
                self.dtype = dtype
                self.register_buffer("keys", None, persistent=False)
                self.register_buffer("values", None, persistent=False)
                self.length = 0

            def forward(self, k_new, v_new):
                if self.keys is None:
                    self.keys = torch.zeros(self.shape, dtype=self.dtype)
                    self.values = torch.zeros(self.shape, dtype=self.dtype)
                start, stop = self.length, self.length + k_new.shape[-2]
                if stop > self.keys.shape[-2]:
                    raise ValueError("the cache is full")
                self.keys[:, :, start:stop] = k_new
                self.values[:, :, start:stop] = v_new
                self.length = stop
                return self.keys[:, :, :stop], self.values[:, :, :stop]
        """,
        source=LAZY_CACHE,
    ),
    _c(
        "kv-capacity-asserted",
        L12,
        "KVCache",
        "checks the capacity with an assert (assert stop <= max_len) instead of raising "
        "ValueError: an overflowing call raises AssertionError (and nothing at all under "
        "python -O).",
        (r"AssertionError", r"\bassert\b"),
        (
            r"RuntimeError",
            r"no (capacity|overflow) check",
            r">=\s*instead of >|rejects? (a |the )?full",
        ),
        edits=[
            (
                "        if stop > self.keys.shape[-2]:\n"
                '            raise ValueError(f"the cache holds {self.keys.shape[-2]} positions, '
                'not {stop}")\n',
                '        assert stop <= self.keys.shape[-2], "the cache is full"\n',
            )
        ],
        source=ASSERT_NOT_RAISE,
    ),
    _c(
        "kv-constructor-arguments-swapped",
        L12,
        "KVCache",
        "declares the constructor as __init__(self, batch, max_len, num_heads, d_head, ...) "
        "(max_len and num_heads swapped): called positionally as the contract says, the "
        "buffers are (batch, max_len, num_heads, d_head) and the capacity is num_heads.",
        (
            r"(argument|parameter)s?.{0,80}(order|swapped|exchanged|wrong way)",
            r"max_len.{0,60}num_heads.{0,60}(swapped|exchanged|order|wrong way)",
            r"num_heads.{0,60}max_len.{0,60}(swapped|exchanged|order|wrong way)",
        ),
        (r"ignores? the dtype", r"one sequence|batch (axis )?of 1"),
        code="""
        class KVCache(nn.Module):
            def __init__(self, batch, max_len, num_heads, d_head, dtype=torch.float32):
                super().__init__()
                shape = (batch, num_heads, max_len, d_head)
                self.register_buffer("keys", torch.zeros(shape, dtype=dtype), persistent=False)
                self.register_buffer("values", torch.zeros(shape, dtype=dtype), persistent=False)
                self.length = 0

            def forward(self, k_new, v_new):
                start, stop = self.length, self.length + k_new.shape[-2]
                if stop > self.keys.shape[-2]:
                    raise ValueError("the cache is full")
                self.keys[:, :, start:stop] = k_new
                self.values[:, :, start:stop] = v_new
                self.length = stop
                return self.keys[:, :, :stop], self.values[:, :, :stop]
        """,
    ),
    # ------------------------------------------------------------------ generate
    _c(
        "gen-new-tokens-stacked",
        L12,
        "generate",
        "keeps the (batch, 1) next tokens in a list and joins them with torch.stack(dim=1), "
        "(batch, max_new_tokens, 1), before concatenating with the prompt: the cat of a 3-D "
        "and a 2-D tensor raises a RuntimeError (torch.cat of the columns was meant).",
        (
            r"torch\.stack.{0,80}\(batch, ?1\)",
            r"\(batch, ?max_new_tokens, ?1\)",
            r"torch\.cat.{0,40}(instead of|not|rather than).{0,20}(torch\.)?stack",
            r"stack.{0,60}(extra|third|new) (axis|dimension)",
        ),
        (r"keepdim", r"argmax.{0,40}(batch axis|flattened)"),
        code="""
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
            ids = torch.cat([prompt, torch.stack(new, dim=1)], dim=1)
            return ids, torch.stack(steps, dim=1)
        """,
        source=STACK_VS_CAT,
    ),
    _c(
        "gen-shape-unpacked-swapped",
        L12,
        "generate",
        "unpacks the prompt's shape the wrong way round (length, batch = prompt.shape): the "
        "caches are made for `length` sequences of batch + max_new_tokens positions and the "
        "new tokens get start=batch + step; right only when batch == length.",
        (
            r"(batch, length|length, batch).{0,80}(swapped|wrong (way round|order)|reversed)",
            r"prompt\.shape.{0,80}(swapped|wrong way|order|unpack)",
            r"unpack",
        ),
        (r"sized (for )?the (prompt|new tokens) only", r"start.{0,30}forgets the prompt"),
        edits=[("batch, length = prompt.shape", "length, batch = prompt.shape")],
    ),
    _c(
        "gen-step-arguments-positional-swapped",
        L12,
        "generate",
        "calls the model for each new token as model(next_id, length + step, caches), "
        "positionally, while its signature is forward(ids, caches=None, start=0): the int "
        "lands in caches and the list in start, so the second step raises a TypeError "
        "inside the model (one new token is right).",
        (
            r"positional",
            r"(start|caches).{0,60}(start|caches).{0,60}(swapped|wrong order|order|exchanged)",
            r"keyword",
        ),
        (r"start.{0,30}(stale|never advanc|stays)", r"fresh caches"),
        edits=[
            (
                "model(next_id, caches=caches, start=length + step)",
                "model(next_id, length + step, caches)",
            )
        ],
    ),
    _c(
        "gen-logits-returned-as-list",
        L12,
        "generate",
        "returns the per-step logits as the Python list it collected (return ids, steps) "
        "instead of stacking them into a (batch, max_new_tokens, vocab_size) tensor.",
        (
            r"\blist\b.{0,60}(not|instead of|rather than).{0,30}tensor",
            r"python list",
            r"returns? a list",
            r"torch\.stack\(steps",
        ),
        (r"dim ?0|axis 0", r"torch\.cat"),
        edits=[("return ids, torch.stack(steps, dim=1)", "return ids, steps")],
    ),
    # ------------------------------------------------------------------ GQA
    _c(
        "gqa-group-from-length-axis",
        L12,
        "grouped_query_attention",
        "computes the group size from the length axis (q.shape[2] // k.shape[2], len_q // "
        "len_k) instead of the head axis: with len_q == len_k the group is 1 and the key/"
        "value heads are not repeated (right only with one key/value head, by broadcasting).",
        (
            r"(length|position|len_q|len_k).{0,60}(axis|shape\[2\]|sizes?).{0,80}"
            r"(instead of|not|rather than).{0,40}head",
            r"shape\[2\]",
            r"len_q ?// ?len_k",
        ),
        (
            r"tiles?\b|h % num_kv_heads",
            r"repeats?.{0,40}along the (length|position) axis",
            r"hard-?coded",
        ),
        edits=[("group = q.shape[1] // k.shape[1]", "group = q.shape[2] // k.shape[2]")],
        source=KV_AXIS_LAYOUT,
    ),
    _c(
        "gqa-mask-repeated-too",
        L12,
        "grouped_query_attention",
        "repeats the mask along the head axis as well (mask.repeat_interleave(group, dim=1)), "
        "as if it had num_kv_heads heads: a (batch, 1, len_q, len_k) mask becomes (batch, "
        "group, ...) and no longer broadcasts against num_heads (right without a mask, or "
        "when the group is 1 or equals num_heads).",
        (
            r"repeat(s|ed|_interleave)?.{0,40}(the )?mask",
            r"mask.{0,30}(is |was )?(also )?repeat",
        ),
        (
            r"ignores? the mask|mask (is )?(dropped|never applied|not passed)",
            r"mask.{0,30}(inverted|wrong way round)",
        ),
        code="""
        def grouped_query_attention(q, k, v, mask=None):
            group = q.shape[1] // k.shape[1]
            k = k.repeat_interleave(group, dim=1)
            v = v.repeat_interleave(group, dim=1)
            if mask is not None and mask.dim() == 4:
                mask = mask.repeat_interleave(group, dim=1)
            output, _ = scaled_dot_product_attention(q, k, v, mask)
            return output
        """,
        source=MASK_REPEATED_HEADS,
    ),
    _c(
        "gqa-values-from-keys",
        L12,
        "grouped_query_attention",
        "copy-paste slip: builds the repeated values from the keys (v = k.repeat_interleave("
        "group, dim=1)), so the attention averages the keys, not the values.",
        (
            r"values?.{0,60}(from|are|were|copied from|taken from|built from).{0,30}keys",
            r"keys.{0,40}(as|in place of|instead of).{0,20}values",
            r"v = k\b",
        ),
        (r"values?.{0,30}not repeated", r"tiles?\b"),
        edits=[("v = v.repeat_interleave(group, dim=1)", "v = k.repeat_interleave(group, dim=1)")],
    ),
    _c(
        "gqa-scaled-after-softmax",
        L12,
        "grouped_query_attention",
        "writes the attention by hand and divides by sqrt(d_head) after the softmax (on the "
        "weights) instead of before it (on the scores): the weights no longer sum to 1 and "
        "the softmax runs on unscaled scores.",
        (
            r"after (the )?softmax",
            r"(scale|sqrt).{0,80}(the )?(weights|probabilit)",
        ),
        (
            r"no scal|not (divided|scaled)|forgets? the scal",
            r"softmax.{0,30}(query axis|wrong axis|dim=-2)",
        ),
        code="""
        def grouped_query_attention(q, k, v, mask=None):
            group = q.shape[1] // k.shape[1]
            k = k.repeat_interleave(group, dim=1)
            v = v.repeat_interleave(group, dim=1)
            scores = q @ k.transpose(-2, -1)
            if mask is not None:
                scores = scores.masked_fill(~mask, float("-inf"))
            weights = torch.softmax(scores, dim=-1) / math.sqrt(q.shape[-1])
            return weights @ v
        """,
    ),
    # ------------------------------------------------------------------ online_softmax
    _c(
        "online-normalised-inside-loop",
        L12,
        "online_softmax",
        "writes each block's output inside the loop, exp(block - m) / total with the running "
        "maximum and sum of that moment, instead of normalising every column after the last "
        "block: only the last block is right (and every block when there is one block).",
        (
            r"(each|every) block.{0,80}(normalis|divided).{0,80}(running|partial|so far|"
            r"that moment)",
            r"(normalis|divid)\w*.{0,60}(inside|during|in) the (loop|pass)",
            r"(before|not after) the last block",
        ),
        (r"not rescaled|never rescaled", r"last block's maximum", r"skips?.{0,20}last"),
        code="""
        def online_softmax(x, block_size):
            running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
            total = torch.zeros(x.shape[:-1], dtype=x.dtype)
            out = torch.empty_like(x)
            for start in range(0, x.shape[-1], block_size):
                block = x[..., start : start + block_size]
                new_max = torch.maximum(running_max, block.amax(dim=-1))
                total = total * torch.exp(running_max - new_max) + torch.exp(
                    block - new_max[..., None]
                ).sum(dim=-1)
                running_max = new_max
                out[..., start : start + block_size] = (
                    torch.exp(block - running_max[..., None]) / total[..., None]
                )
            return out
        """,
    ),
    _c(
        "online-factor-ratio-of-exps",
        L12,
        "online_softmax",
        "computes the rescaling factor as exp(m) / exp(m') instead of exp(m - m'): equal in "
        "exact arithmetic and right for moderate scores, but once a score passes exp's range "
        "(about 88 in float32) both exps overflow and inf / inf makes the row NaN.",
        (
            r"exp\(m\) ?/ ?exp\(m'?",
            r"exp\(running_max\) ?/ ?exp",
            r"(ratio|quotient) of (two )?exp",
            r"overflow.{0,80}(factor|rescal|correction)",
            r"(factor|rescal|correction).{0,80}overflow",
        ),
        (
            r"no max(imum)? (is )?subtracted|without subtracting",
            r"starts? at 0",
            r"inverted",
        ),
        edits=[
            (
                "total * torch.exp(running_max - new_max)",
                "total * (torch.exp(running_max) / torch.exp(new_max))",
            )
        ],
        source=EXP_OVERFLOW,
    ),
    _c(
        "online-block-sum-without-dim",
        L12,
        "online_softmax",
        "sums each block's exponentials with .sum() (no dim) instead of .sum(dim=-1): the "
        "terms of every row go into one total shared by all rows, so a 1-D input is right "
        "but rows of a 2-D input sum to less than 1.",
        (
            r"sum\(\)",
            r"sum.{0,40}(without|no) dim",
            r"sum\w*.{0,60}(over|across) (all|every) (the )?rows",
            r"rows? share.{0,30}(one |a )?(sum|total)",
            r"(whole|entire) tensor.{0,40}sum|sum.{0,40}(whole|entire) tensor",
        ),
        (
            r"global max|max\w*.{0,30}(whole|entire) tensor|max\(\) without dim",
            r"blocks? over (the )?rows|first axis",
        ),
        edits=[
            (
                "block - new_max[..., None]\n        ).sum(dim=-1)",
                "block - new_max[..., None]\n        ).sum()",
            )
        ],
    ),
    _c(
        "online-block-max-keepdim",
        L12,
        "online_softmax",
        "takes the block maximum with keepdim=True, (..., 1), and combines it with the "
        "running maximum (...): torch.maximum broadcasts them into a (rows, rows) table (or "
        "(1,) for a 1-D input), and the output comes back with the wrong shape.",
        (r"keepdim", r"\(rows?, ?1\).{0,80}broadcast"),
        (r"not unsqueezed|without \[\.\.\., ?None\]", r"hard-?codes? (a )?2-?D"),
        edits=[("block.amax(dim=-1)", "block.amax(dim=-1, keepdim=True)")],
    ),
    # ------------------------------------------------------------------ tiled_attention
    _c(
        "tiled-keys-as-values",
        L12,
        "tiled_attention",
        "copy-paste slip: accumulates weights @ k[..., start:stop, :] (the key block) instead "
        "of the value block: a shape error when d_v != d_k, a wrong output otherwise.",
        (
            r"keys?.{0,40}(instead of|in place of|as) (the )?values?",
            r"k\[\.\.\., ?start:stop",
            r"values?.{0,40}(from|are) (the )?keys",
        ),
        (r"sized (like q|d_k)", r"not rescaled"),
        edits=[("weights @ v[..., start:stop, :]", "weights @ k[..., start:stop, :]")],
    ),
    _c(
        "tiled-causal-positions-full-block",
        L12,
        "tiled_attention",
        "builds each block's key positions with torch.arange(start, start + block_size) "
        "instead of arange(start, stop): with causal=True a last, shorter block gets a mask "
        "wider than its scores (a shape error); right when block_size divides len_k.",
        (
            r"arange\(start, ?start ?\+ ?block_size\)",
            r"(last|shorter|partial) block.{0,80}mask.{0,60}(wider|too (wide|long)|block_size)",
            r"mask.{0,80}(last|shorter|partial) block",
        ),
        (
            r"block-local|local to the block",
            r"bottom.right",
            r"drops?.{0,20}(last|partial) block|never visited",
        ),
        edits=[
            (
                "torch.arange(start, stop)[None, :]",
                "torch.arange(start, start + block_size)[None, :]",
            )
        ],
        source=LAST_TILE,
    ),
    _c(
        "tiled-keys-dot-T",
        L12,
        "tiled_attention",
        "transposes the key block with .T instead of .transpose(-2, -1): .T reverses every "
        "axis, so 2-D inputs are right but batched (..., len_k, d_k) keys become (d_k, "
        "len_k, ...) and the product fails or mixes the batch axes.",
        (
            r"\.T\b",
            r"revers\w* (all|every) (the )?(axes|dimensions)",
            r"\.mT|transpose\(-2, ?-1\)",
        ),
        (r"k\[start:stop\]|first axis",),
        edits=[
            (
                "k[..., start:stop, :].transpose(-2, -1)",
                "k[..., start:stop, :].T",
            )
        ],
        source=DOT_T_DEPRECATED,
    ),
    _c(
        "tiled-acc-zeros-like-v",
        L12,
        "tiled_attention",
        "allocates the running output with torch.zeros_like(v), (..., len_k, d_v), instead "
        "of (..., len_q, d_v): right when len_q == len_k, a broadcast error otherwise.",
        (
            r"zeros_like\(v\)",
            r"acc\w*.{0,80}(len_k|like v|v's shape)",
            r"\(\.\.\., ?len_k, ?d_v\)",
        ),
        (r"sized.{0,20}d_k|like q", r"float32"),
        edits=[
            (
                "acc = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)",
                "acc = torch.zeros_like(v)",
            )
        ],
    ),
    # ------------------------------------------------------------------ sliding_window_mask
    _c(
        "sliding-window-halved",
        L12,
        "sliding_window_mask",
        "reads window as the span around a token (Longformer's w/2 per side) and keeps only "
        "window // 2 keys before the query (diagonal=-(window // 2)): right for window 1 and "
        "2, one too few for 3, two too few for 5.",
        (r"window ?// ?2", r"half (the|of the) window|window ?/ ?2|halv", r"w/2"),
        (
            r"one too (few|narrow|many|wide)",
            r"both sides|two-sided|symmetric",
            r"diagonal=-window\b",
        ),
        code="""
        def sliding_window_mask(size, window):
            recent = torch.triu(torch.ones(size, size, dtype=torch.bool), diagonal=-(window // 2))
            return look_ahead_mask(size) & recent
        """,
        source=WINDOW_INTERPRETATIONS,
    ),
    _c(
        "sliding-window-diagonals-past-size",
        L12,
        "sliding_window_mask",
        "builds the band from one torch.diag per offset d in range(window), each of size - d "
        "ones: right while window <= size, but a window larger than size asks for a negative "
        "number of ones and raises a RuntimeError.",
        (
            r"window (is )?(larger|greater|bigger|more) than (the )?size",
            r"window ?> ?size",
            r"(min|clamp)\w*.{0,40}(window|size)",
        ),
        (r"all ones|not causal", r"numpy"),
        code="""
        def sliding_window_mask(size, window):
            mask = torch.zeros(size, size, dtype=torch.bool)
            for d in range(window):
                mask |= torch.diag(torch.ones(size - d, dtype=torch.bool), -d)
            return mask
        """,
    ),
    # ------------------------------------------------------------------ quiz_cache_memory
    _c(
        "quiz-one-layer",
        L12,
        "quiz_cache_memory",
        "leaves out the 48 layers (sizes one layer's cache): 4 MiB instead of 192.",
        (
            r"48 layers",
            r"layers?.{0,60}(forgot|missing|left out|one layer|per layer)",
            r"one layer",
        ),
        (r"query heads", r"10\*\*6|megabytes", r"GiB"),
        code="""
        def quiz_cache_memory():
            return 2 * 8 * 128 * 1024 * 2 / 2**20
        """,
    ),
    _c(
        "quiz-bits-as-bytes",
        L12,
        "quiz_cache_memory",
        "counts bfloat16 as 16 bytes (its bits) instead of 2 bytes: 1536 MiB, eight times "
        "the cache.",
        (
            r"bits?.{0,40}(instead of|not|as|for) bytes",
            r"16 bits",
            r"bytes.{0,30}not bits",
            r"(8|eight) times",
        ),
        (r"query heads", r"factor (of )?2|keys and values", r"4 bytes|float32"),
        code="""
        def quiz_cache_memory():
            return 2 * 48 * 8 * 128 * 1024 * 16 / 2**20
        """,
        source=BITS_AND_BYTES,
    ),
]
