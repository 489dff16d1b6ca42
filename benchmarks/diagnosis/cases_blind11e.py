"""Held-out wrong answers for lesson 12, blind round 11 (helper r11e, 2026-11-27).

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run. Ten of the 24 transpose a mistake reported in a public issue thread (the URL read for
this benchmark) to the course's exercise; the others are the author's. Kinds favoured: state
that goes wrong only at the second call or after a call of several positions, arguments
ignored (dtype, mask), checks that never fire, answers right for a batch of one only,
logits recorded one step late, masks aligned the other way (len_q < len_k), indices local
to a block, results of the wrong dtype, out-of-place idioms whose result is dropped, and
inputs modified in place.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L12 = "12_inference"

# The reports these cases transpose (each read with the search tool for this benchmark).
STATIC_CACHE_FULL_LENGTH = "https://github.com/microsoft/onnxruntime/pull/23615"
CACHE_DTYPE_DEFAULT = "https://github.com/meta-pytorch/torchtune/issues/398"
CACHE_CAPACITY_CHECK = "https://github.com/huggingface/candle/pull/3035"
OFFSET_ADVANCED_BY_TOKENS = "https://github.com/skyzh/tiny-llm/pull/46"
PAST_WITH_FULL_IDS = "https://github.com/huggingface/transformers/issues/1749"
GQA_TILE_ORDER = "https://github.com/onnx/onnx/pull/7274"
MASKED_FILL_NO_OP = "https://github.com/lucidrains/flamingo-pytorch/issues/10"
CAUSAL_ALIGNMENT = "https://github.com/Dao-AILab/flash-attention/issues/351"
WINDOW_ONE_TOO_MANY = "https://github.com/ml-explore/mlx-lm/pull/390"

_c = held_out_authored("blind11e")

_START_WRONG = r"start\b.{0,60}(should be|instead of|expected|wrong)"
_ARGMAX = r"argmax.{0,40}(dim|axis|flatten)"
_LATE = r"(one step|a step) (late|behind|ahead)"

BLIND11E: list[Case] = [
    # ------------------------------------------------------------------ KVCache
    _c(
        "kv-length-never-advanced",
        L12,
        "KVCache",
        "never advances self.length, so every call writes at position 0 and returns only "
        "the positions it was just given: the first call is right, from the second on the "
        "earlier positions are overwritten and missing from what it returns.",
        (
            r"length.{0,60}(never|not) (advanced|updated|increased|incremented|changed)",
            r"overwrit",
            r"(earlier|previous|old|first) positions?.{0,60}(lost|missing|dropped|not returned)",
            r"only the (new|last|latest) positions?",
        ),
        (r"dtype", r"max_len", r"ValueError", r"whole buffer", r"values.{0,30}keys"),
        edits=[("        self.length = stop\n", "")],
    ),
    _c(
        "kv-returns-whole-buffer",
        L12,
        "KVCache",
        "returns the whole buffers, (batch, heads, max_len, d_head), instead of their first "
        "length positions: the positions not yet written (zeros) come back too, and a "
        "query would attend to them.",
        (
            r"max_len",
            r"whole (buffer|cache)",
            r"\[:, :, :(length|stop)\]",
            r"(unfilled|empty|zero|unused|unwritten|not yet (written|stored)) (positions|rows|slots)",
        ),
        (r"never (advanced|updated)", r"dtype", r"overwrit", r"ValueError"),
        edits=[
            (
                "return self.keys[:, :, :stop], self.values[:, :, :stop]",
                "return self.keys, self.values",
            )
        ],
        source=STATIC_CACHE_FULL_LENGTH,
    ),
    _c(
        "kv-dtype-ignored",
        L12,
        "KVCache",
        "ignores the dtype argument: the buffers are always float32, so a cache made for "
        "float64 (or bfloat16) returns float32 keys and values.",
        (
            r"dtype",
            r"float32.{0,60}(instead|rather|not)",
            r"(float16|bfloat16|float64).{0,60}float32",
        ),
        (r"never (advanced|updated)", r"max_len", r"overwrit", r"whole buffer"),
        edits=[
            ("torch.zeros(shape, dtype=dtype)", "torch.zeros(shape)"),
            ("torch.zeros(shape, dtype=dtype)", "torch.zeros(shape)"),
        ],
        source=CACHE_DTYPE_DEFAULT,
    ),
    _c(
        "kv-overflow-check-before-adding",
        L12,
        "KVCache",
        "checks the capacity against the positions already stored (start) instead of the "
        "end after the new ones (stop): the check never fires, and a call that would pass "
        "max_len fails inside the slice assignment with a RuntimeError, not a ValueError.",
        (
            r"ValueError",
            r"(overflow|more than max_len|beyond max_len|too many positions)"
            r".{0,80}(not|never|no) (raise|check|caught)",
            r"check.{0,40}(start|current length|before adding|new positions)",
        ),
        (r"dtype", r"never (advanced|updated)", r"whole buffer", r"overwrit"),
        edits=[("if stop > self.keys.shape[-2]:", "if start > self.keys.shape[-2]:")],
        source=CACHE_CAPACITY_CHECK,
    ),
    _c(
        "kv-length-plus-one",
        L12,
        "KVCache",
        "advances self.length by one per call instead of by the n positions written: calls "
        "of one position are right, but after a call of several (the prefill) the next call "
        "overwrites the second of them and the cache returns too few positions.",
        (
            r"length.{0,80}(by|of) (1|one)\b",
            r"(advances?|grows?|increments?|increases?) (only )?(by )?(1|one)\b",
            r"(more than one|several|n > 1) (new )?positions",
        ),
        (r"dtype", r"never (advanced|updated)", r"whole buffer", r"ValueError"),
        edits=[("self.length = stop", "self.length += 1")],
    ),
    # ------------------------------------------------------------------ generate
    _c(
        "gen-offset-advanced-by-sequence",
        L12,
        "generate",
        "keeps its own position counter and, after each generated token, advances it by the "
        "length of the whole sequence so far (ids.shape[1]) instead of by the one token "
        "fed: the first token after the prefill gets the right start, every later one a "
        "start far too large, so RoPE rotates them wrongly and the tokens drift.",
        (
            _START_WRONG,
            r"advanced by.{0,40}(whole|sequence|ids)",
            r"start.{0,40}(too large|jumps|skips)",
        ),
        (
            r"prefill.{0,30}(without|no) cache",
            r"cache.{0,40}(not|never) (reused|passed|shared)",
            _LATE,
            _ARGMAX,
        ),
        code="""
        @torch.no_grad()
        def generate(model, prompt, max_new_tokens):
            batch, length = prompt.shape
            caches = model.new_caches(batch, length + max_new_tokens)
            position = 0
            logits = model(prompt, caches=caches, start=position)[:, -1]
            position += prompt.shape[1]
            ids, steps = prompt, []
            for step in range(max_new_tokens):
                steps.append(logits)
                next_id = logits.argmax(dim=-1, keepdim=True)
                ids = torch.cat([ids, next_id], dim=1)
                if step + 1 < max_new_tokens:
                    logits = model(next_id, caches=caches, start=position)[:, -1]
                    position += ids.shape[1]
            return ids, torch.stack(steps, dim=1)
        """,
        source=OFFSET_ADVANCED_BY_TOKENS,
    ),
    _c(
        "gen-whole-sequence-each-step",
        L12,
        "generate",
        "after the prefill, feeds the whole sequence so far (ids, start=0) with the caches "
        "at every step instead of only the new token: the cache receives every position "
        "again (and overflows), the model runs far more positions than once each.",
        (
            r"(whole|entire|full) (sequence|ids)",
            r"(only|just) the (new|last) token",
            r"(one|1) token per (call|step)",
            r"positions_processed|positions? (run|processed)",
            r"(again|twice|re-?fed|already cached)",
        ),
        (r"prefill.{0,30}(without|no) cache", _LATE, _ARGMAX),
        edits=[
            (
                "logits = model(next_id, caches=caches, start=length + step)[:, -1]",
                "logits = model(ids, caches=caches, start=0)[:, -1]",
            )
        ],
        source=PAST_WITH_FULL_IDS,
    ),
    _c(
        "gen-argmax-flattened",
        L12,
        "generate",
        "takes the argmax of the whole logits tensor (no dim) and views it as (1, 1): right "
        "for a batch of one, but with several sequences it picks one index over the "
        "flattened batch and the concatenation with ids fails.",
        (
            r"argmax.{0,80}(dim|axis|flatten|whole tensor|over (all|the batch))",
            r"batch (of|with) (more than one|several|2|two)",
            r"(batch|sequences?).{0,60}(only|just) (one|1|the first)",
            r"view\(1, 1\)|\(1, 1\)",
        ),
        (_START_WRONG, r"prefill.{0,30}(without|no) cache", _LATE),
        edits=[
            (
                "next_id = logits.argmax(dim=-1, keepdim=True)",
                "next_id = logits.argmax().view(1, 1)",
            )
        ],
        source=PAST_WITH_FULL_IDS,
    ),
    _c(
        "gen-logits-one-step-late",
        L12,
        "generate",
        "appends the logits after running the model on the chosen token, so logits[:, t] "
        "are the ones that chose token t + 1 (and the last step's are repeated): the tokens "
        "are right, the logits shifted by one step.",
        (
            _LATE,
            r"logits\[:, t\].{0,80}(t \+ 1|next)",
            r"shifted.{0,30}(one|1|by one)",
            r"(append|record|store)\w*.{0,60}(after|before).{0,60}(model|forward|call|next)",
        ),
        (_START_WRONG, _ARGMAX, r"prefill.{0,30}(without|no) cache", r"whole sequence"),
        code="""
        @torch.no_grad()
        def generate(model, prompt, max_new_tokens):
            batch, length = prompt.shape
            caches = model.new_caches(batch, length + max_new_tokens)
            logits = model(prompt, caches=caches, start=0)[:, -1]
            ids, steps = prompt, []
            for step in range(max_new_tokens):
                next_id = logits.argmax(dim=-1, keepdim=True)
                ids = torch.cat([ids, next_id], dim=1)
                if step + 1 < max_new_tokens:
                    logits = model(next_id, caches=caches, start=length + step)[:, -1]
                steps.append(logits)
            return ids, torch.stack(steps, dim=1)
        """,
    ),
    _c(
        "gen-prefill-without-cache",
        L12,
        "generate",
        "runs the prefill without the caches (model(prompt)), then feeds each new token "
        "with them: the first token is right, but the caches never hold the prompt, so "
        "every later token attends only to the generated ones.",
        (
            r"prefill.{0,80}(without|no|not).{0,20}(cache|caches)",
            r"prompt.{0,80}(not|never) (stored|in the cache|cached|passed)",
            r"cache.{0,60}(lacks|missing|without).{0,40}prompt",
        ),
        (_START_WRONG, _ARGMAX, _LATE, r"whole sequence"),
        edits=[
            (
                "logits = model(prompt, caches=caches, start=0)[:, -1]",
                "logits = model(prompt)[:, -1]",
            )
        ],
    ),
    # ------------------------------------------------------------------ grouped_query_attention
    _c(
        "gqa-repeat-tiles",
        L12,
        "grouped_query_attention",
        "copies the key/value heads with .repeat(1, group, 1, 1) ([k0, k1, k0, k1]) instead "
        "of repeat_interleave ([k0, k0, k1, k1]): query head h gets key/value head "
        "h % num_kv_heads instead of h // group.",
        (
            r"repeat_interleave",
            r"\[k0, k1, k0, k1\]|k0, k1, k0",
            r"(pairing|pairs?|order).{0,60}heads?",
            r"h // group|h % num_kv|modulo",
            r"\.repeat\(",
        ),
        (r"mask", r"sqrt|scal(e|ing)", r"transpos"),
        edits=[
            ("k.repeat_interleave(group, dim=1)", "k.repeat(1, group, 1, 1)"),
            ("v.repeat_interleave(group, dim=1)", "v.repeat(1, group, 1, 1)"),
        ],
        source=GQA_TILE_ORDER,
    ),
    _c(
        "gqa-mask-dropped",
        L12,
        "grouped_query_attention",
        "does not pass the mask on to the attention: right with mask=None, but with a mask "
        "the masked keys still get weight.",
        (
            r"mask.{0,60}(ignored|not used|not applied|dropped|unused|has no effect|never)",
            r"(without|ignor\w+) (the )?mask",
            r"masked (positions|keys).{0,60}(receive|get|non-?zero|weight)",
        ),
        (r"repeat_interleave|\.repeat\(", r"pairing", r"sqrt|scal(e|ing)"),
        edits=[
            (
                "output, _ = scaled_dot_product_attention(q, k, v, mask)",
                "output, _ = scaled_dot_product_attention(q, k, v)",
            )
        ],
    ),
    _c(
        "gqa-scale-by-dv",
        L12,
        "grouped_query_attention",
        "writes its own attention and divides the scores by sqrt(v.shape[-1]), the value "
        "size d_v, instead of sqrt(d_head): right whenever d_v == d_head, wrong otherwise.",
        (
            r"d_v|v\.shape\[-1\]",
            r"sqrt\(d_(k|head)\).{0,60}(not|instead)|(instead of|not) sqrt\(d_(k|head)",
            r"scal\w+.{0,60}(value|d_v)",
        ),
        (r"repeat_interleave|\.repeat\(", r"mask.{0,30}(ignored|not applied)", r"pairing"),
        code="""
        def grouped_query_attention(q, k, v, mask=None):
            group = q.shape[1] // k.shape[1]
            k = k.repeat_interleave(group, dim=1)
            v = v.repeat_interleave(group, dim=1)
            scores = q @ k.transpose(-2, -1) / math.sqrt(v.shape[-1])
            if mask is not None:
                scores = scores.masked_fill(~mask, float("-inf"))
            return torch.softmax(scores, dim=-1) @ v
        """,
    ),
    # ------------------------------------------------------------------ quiz_cache_memory
    _c(
        "quiz-query-heads",
        L12,
        "quiz_cache_memory",
        "counts the 32 query heads instead of the 8 key/value heads: 768 MiB, four times "
        "the cache's size.",
        (
            r"query heads",
            r"32 (heads|instead)",
            r"key/value heads|kv heads|num_kv_heads|8 (key|kv)",
            r"(4|four) times",
        ),
        (
            r"factor (of )?2|keys and values",
            r"bfloat16|bytes per|10\^6|1e6|1,000,000",
            r"layers",
        ),
        code="def quiz_cache_memory():\n    return 2 * 48 * 32 * 128 * 1024 * 2 / 2**20\n",
    ),
    # ------------------------------------------------------------------ online_softmax
    _c(
        "os-total-not-rescaled",
        L12,
        "online_softmax",
        "adds each block's sum of exp(s - m') to the running total without first "
        "multiplying the total by exp(m - m'): right while the maximum never grows after "
        "the first block, wrong when a later block raises it.",
        (
            r"(rescal|correct)\w*.{0,80}(sum|total)",
            r"(sum|total).{0,80}(not|never) (rescaled|corrected|multiplied)",
            r"exp\(m - m'?\)|exp\(running_max - new_max\)|e\^\{?m - m",
        ),
        (
            r"(start|initiali[sz]ed?).{0,30}(at|to|with) 0\b",
            r"block'?s? own max",
            r"(last|final|partial) block.{0,40}(dropped|skipped|missing)",
            r"in.place",
        ),
        edits=[
            (
                "total = total * torch.exp(running_max - new_max) + torch.exp(",
                "total = total + torch.exp(",
            )
        ],
    ),
    _c(
        "os-last-partial-block-dropped",
        L12,
        "online_softmax",
        "loops over range(0, n - block_size + 1, block_size), so when block_size does not "
        "divide n the last, shorter block is never visited: its columns are left out of the "
        "running maximum and sum (the rows no longer sum to 1).",
        (
            r"(last|final|partial|shorter|remaining|trailing) (block|columns)",
            r"not a multiple|does not divide|remainder",
            r"columns.{0,60}(skipped|never (seen|read|visited)|left out|missed)",
        ),
        (
            r"(start|initiali[sz]ed?).{0,30}(at|to|with) 0\b",
            r"(sum|total).{0,40}(not|never) (rescaled|corrected)",
            r"in.place",
        ),
        edits=[
            (
                "for start in range(0, x.shape[-1], block_size):",
                "for start in range(0, x.shape[-1] - block_size + 1, block_size):",
            )
        ],
    ),
    _c(
        "os-modifies-input",
        L12,
        "online_softmax",
        "normalises with in-place operations on x (x.sub_(m).exp_().div_(total)): the "
        "softmax is right, but the caller's x is overwritten with it.",
        (
            r"in.place",
            r"modif\w+ (x|the input|its input|your input)",
            r"(x|input).{0,40}(changed|modified|overwritten)",
            r"sub_|exp_|div_",
        ),
        (r"rescal", r"(last|partial) block", r"(start|initiali[sz]ed?).{0,30}0\b"),
        edits=[
            (
                "return torch.exp(x - running_max[..., None]) / total[..., None]",
                "return x.sub_(running_max[..., None]).exp_().div_(total[..., None])",
            )
        ],
    ),
    # ------------------------------------------------------------------ tiled_attention
    _c(
        "tiled-acc-not-rescaled",
        L12,
        "tiled_attention",
        "rescales the running sum by exp(m - m') but not the accumulated output: the "
        "blocks seen before the maximum grew keep too much weight.",
        (
            r"(acc\w*|output|accumulat\w*).{0,80}(not|never) (rescaled|corrected|multiplied)",
            r"(rescal|correct)\w*.{0,60}(acc|output|accumulat)",
        ),
        (r"(sum|total).{0,40}not (rescaled|corrected)", r"causal|mask", r"sqrt"),
        edits=[
            (
                "acc = acc * correction[..., None] + weights @ v[..., start:stop, :]",
                "acc = acc + weights @ v[..., start:stop, :]",
            )
        ],
    ),
    _c(
        "tiled-causal-fill-discarded",
        L12,
        "tiled_attention",
        "calls scores.masked_fill(future, -inf) without assigning the result (masked_fill "
        "is not in place): causal=True computes the non-causal attention.",
        (
            r"masked_fill.{0,80}(not in.place|returns a new|result|assign)",
            r"(not|never) (assigned|stored|kept)",
            r"masked_fill_",
            r"causal.{0,80}(ignored|no effect|not applied)",
            r"mask.{0,40}(has no effect|ignored|not applied)",
        ),
        (r"bottom.right|len_k - len_q", r"(block|local).{0,30}(index|position)", r"rescal"),
        edits=[
            (
                'scores = scores.masked_fill(future, float("-inf"))',
                'scores.masked_fill(future, float("-inf"))',
            )
        ],
        source=MASKED_FILL_NO_OP,
    ),
    _c(
        "tiled-causal-bottom-right",
        L12,
        "tiled_attention",
        "aligns the causal mask to the bottom right (query i sees keys j <= i + len_k - "
        "len_q), the cache's convention, instead of the top left that the exercise asks: "
        "right when len_q == len_k, wrong when len_q < len_k.",
        (
            r"bottom.right|lower.right|causal_lower_right",
            r"len_k - len_q",
            r"(top.left|upper.left).{0,60}(not|instead|rather)",
            r"(aligned|alignment|offset).{0,80}(len_q < len_k|len_k|end)",
        ),
        (
            r"masked_fill",
            r"(block|local).{0,30}(index|position)",
            r"rescal",
            r"causal.{0,40}(ignored|no effect)",
        ),
        edits=[
            (
                "future = torch.arange(start, stop)[None, :] > query_positions",
                "future = torch.arange(start, stop)[None, :] > query_positions + (len_k - len_q)",
            )
        ],
        source=CAUSAL_ALIGNMENT,
    ),
    _c(
        "tiled-causal-block-local",
        L12,
        "tiled_attention",
        "compares the query positions with key indices local to the block "
        "(torch.arange(stop - start)) instead of the keys' absolute positions: the first "
        "block is masked right, every later block as if it began at key 0.",
        (
            r"(block|local|relative).{0,40}(index|indices|position|offset)",
            r"arange\(start, stop\)|absolute (key )?position",
            r"(every|each|later) block.{0,60}(from 0|first block|restart|key 0)",
            r"offset.{0,30}start",
        ),
        (r"masked_fill.{0,40}(in.place|assign)", r"bottom.right|len_k - len_q", r"rescal"),
        edits=[
            (
                "future = torch.arange(start, stop)[None, :] > query_positions",
                "future = torch.arange(stop - start)[None, :] > query_positions",
            )
        ],
    ),
    # ------------------------------------------------------------------ sliding_window_mask
    _c(
        "sw-window-plus-one",
        L12,
        "sliding_window_mask",
        "uses diagonal=-window instead of 1 - window: each query sees window + 1 positions "
        "(itself and window before it), one too many.",
        (
            r"(window|one) (\+ ?1|too many|extra)",
            r"window \+ 1",
            r"off.by.one",
            r"1 - window",
            r"(one|1) (position|key) too (many|far)",
        ),
        (r"(future|later) keys", r"dtype", r"tril"),
        edits=[("diagonal=1 - window", "diagonal=-window")],
        source=WINDOW_ONE_TOO_MANY,
    ),
    _c(
        "sw-no-causal",
        L12,
        "sliding_window_mask",
        "returns the band triu(ones, 1 - window) alone, without and-ing it with the "
        "look-ahead mask: each query also sees every later key.",
        (
            r"(future|later) (keys|positions)",
            r"look_ahead_mask",
            r"causal.{0,40}(missing|dropped|left out|part)",
            r"(above|upper).{0,20}diagonal",
        ),
        (r"off.by.one|window \+ 1|too many", r"dtype"),
        edits=[("return look_ahead_mask(size) & recent", "return recent")],
    ),
    _c(
        "sw-float-mask",
        L12,
        "sliding_window_mask",
        "builds the band from torch.ones (float) and multiplies it with the look-ahead "
        "mask: the right pattern, but a float tensor of 0. and 1. instead of bool.",
        (r"dtype", r"bool", r"float"),
        (r"off.by.one|window \+ 1", r"(future|later) keys", r"transpos"),
        code="""
        def sliding_window_mask(size, window):
            recent = torch.triu(torch.ones(size, size), diagonal=1 - window)
            return look_ahead_mask(size) * recent
        """,
    ),
]
