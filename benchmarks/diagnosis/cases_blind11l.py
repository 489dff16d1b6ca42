"""Held-out wrong answers for lesson 12, blind round 11, second batch (helper s11l,
2026-11-27), written after round 11's first fixes of these lessons.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run. Ten of the 24 transpose a mistake reported in a public issue thread (the URL read for
this benchmark) to the course's exercise; the others are the author's. Kinds favoured:
mistakes that show only on some inputs (a batch of more than one, len_q < len_k, d_k !=
d_v, more than one key/value head, a length that is not a multiple of the block, a cache
filled exactly to max_len, a non-default dtype), state shared by two buffers, in-place
operations on a view of the input, an out-of-place masked_fill whose result is dropped,
`expand` + `flatten` in the wrong axis order, a wrong axis for stack and repeat, and
Python/PyTorch idioms (argmax without dim, integer division of the length).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L12 = "12_inference"

# The reports these cases transpose (each read with the search tool for this benchmark).
CACHE_DTYPE_FIXED = "https://github.com/meta-pytorch/torchtune/issues/398"
OFFSET_COUNTS_PROMPT_TWICE = "https://github.com/skyzh/tiny-llm/pull/46"
GQA_TILED_NOT_INTERLEAVED = "https://github.com/onnx/onnx/pull/7274"
GQA_REPEAT_WRONG_AXIS = "https://github.com/PrimeIntellect-ai/prime-rl/pull/2681"
CACHE_SIZE_QUERY_HEADS = "https://github.com/jranaraki/vllm-fit/issues/2"
SOFTMAX_MAX_FROM_ZERO = "https://github.com/FluxML/NNlib.jl/pull/43"
CAUSAL_ALIGNMENT = "https://github.com/pytorch/pytorch/issues/103082"
MASKED_FILL_NOT_IN_PLACE = "https://github.com/lucidrains/flamingo-pytorch/issues/10"
WINDOW_ONE_TOO_MANY = "https://github.com/ml-explore/mlx-lm/pull/390"
WINDOW_BOTH_SIDES = "https://github.com/huggingface/transformers/issues/39408"

_c = held_out_authored("blind11l")

_KV_OTHER = (r"self\.length.{0,40}(never|not) advance", r"returned only the new")

BLIND11L: list[Case] = [
    # ------------------------------------------------------------------ KVCache
    _c(
        "kv-one-tensor-both-buffers",
        L12,
        "KVCache",
        "registers one zeros tensor as both the keys and the values buffer, so the two "
        "share storage and every write of the values overwrites the keys: the cache "
        "returns the values twice.",
        (
            r"same (tensor|storage|memory|buffer|object)",
            r"shar(e|es|ed|ing).{0,40}(storage|memory|tensor|buffer)",
            r"keys.{0,60}(overwritten|equal (to )?the values|same as the values)",
            r"values.{0,40}(overwrite|overwrote).{0,40}keys",
            r"one tensor.{0,40}(both|twice)",
        ),
        (r"max_len", r"dtype", r"persistent", r"order", *_KV_OTHER),
        edits=[
            (
                '        self.register_buffer("keys", torch.zeros(shape, dtype=dtype), '
                "persistent=False)\n"
                '        self.register_buffer("values", torch.zeros(shape, dtype=dtype), '
                "persistent=False)",
                "        empty = torch.zeros(shape, dtype=dtype)\n"
                '        self.register_buffer("keys", empty, persistent=False)\n'
                '        self.register_buffer("values", empty, persistent=False)',
            )
        ],
    ),
    _c(
        "kv-full-cache-rejected",
        L12,
        "KVCache",
        "tests the capacity with >= instead of >, so filling the cache exactly to max_len "
        "positions raises ValueError although the positions fit.",
        (
            r">=",
            r"exactly (to )?(max_len|full)",
            r"(fill|filling|hold|holds|store|storing).{0,40}max_len.{0,60}(raise|reject|ValueError)",
            r"off by one",
            r"last (free )?(position|slot)",
            r"max_len positions.{0,60}(raised|rejected|ValueError)",
        ),
        (r"never raise|does not raise|no ValueError", r"dtype", r"shar(e|ed) storage", *_KV_OTHER),
        edits=[("if stop > self.keys.shape[-2]:", "if stop >= self.keys.shape[-2]:")],
    ),
    _c(
        "kv-dtype-argument-ignored",
        L12,
        "KVCache",
        "allocates both buffers with torch.zeros(shape) and drops the dtype argument, so "
        "the cache is always float32: a bfloat16 or float64 cache stores and returns "
        "float32 keys and values.",
        (
            r"(ignor|drop|forg|not use)\w*.{0,30}dtype",
            r"dtype (argument|parameter|given|asked|requested)",
            r"dtype.{0,60}(float32|default)",
            r"buffers?.{0,40}(are|is|were|have) (dtype )?(torch\.)?float32",
            r"float32.{0,60}(instead of|not|rather than).{0,30}(bfloat16|float16|float64|half|double)",
        ),
        (r"max_len", r"persistent", r"shar(e|ed) storage", *_KV_OTHER),
        edits=[
            (
                '        self.register_buffer("keys", torch.zeros(shape, dtype=dtype), '
                "persistent=False)\n"
                '        self.register_buffer("values", torch.zeros(shape, dtype=dtype), '
                "persistent=False)",
                '        self.register_buffer("keys", torch.zeros(shape), persistent=False)\n'
                '        self.register_buffer("values", torch.zeros(shape), persistent=False)',
            )
        ],
        source=CACHE_DTYPE_FIXED,
    ),
    _c(
        "kv-new-length-from-heads-axis",
        L12,
        "KVCache",
        "reads the number of new positions from k_new.shape[1] (the heads axis) instead of "
        "k_new.shape[-2]: one new position is broadcast into num_heads slots and the length "
        "advances by num_heads per call (right only when n == num_heads).",
        (
            r"shape\[1\]",
            r"num_heads.{0,60}(instead of|not|rather than).{0,40}(n\b|new positions|len)",
            r"(advance|length|grow)\w*.{0,40}by num_heads",
            r"(head|heads) axis|axis 1|dim(ension)? 1",
            r"(broadcast|copied|repeated).{0,60}(slots|positions)",
        ),
        (r"dtype", r"max_len.{0,30}(not raised|never)", *_KV_OTHER),
        edits=[("self.length + k_new.shape[-2]", "self.length + k_new.shape[1]")],
    ),
    # ------------------------------------------------------------------ generate
    _c(
        "gen-prompt-counted-twice-in-start",
        L12,
        "generate",
        "keeps a position counter that starts at len and then adds the prompt's length "
        "again after the prefill, so every token after it is fed with start = 2·len + t "
        "instead of len + t (RoPE rotates it len positions too far).",
        (
            r"(2|two) ?[\*·×x]? ?len|twice|double",
            r"start.{0,80}too (far|large|high|late).{0,40}(by )?(the )?(prompt|len)",
            r"start.{0,60}(should be|must be|expected) len ?\+ ?t",
            r"position.{0,60}(shifted|ahead).{0,40}(by )?(the )?(prompt|len)",
        ),
        (
            r"start.{0,40}(never|does not|doesn't) (advance|change|grow)",
            r"off by one|one too (far|many)|\+ ?1\b",
            r"cache.{0,30}(not|never) (passed|used)",
            r"whole sequence",
        ),
        edits=[
            (
                "    logits = model(prompt, caches=caches, start=0)[:, -1]",
                "    position = length\n"
                "    logits = model(prompt, caches=caches, start=0)[:, -1]\n"
                "    position += prompt.shape[1]",
            ),
            ("start=length + step)", "start=position + step)"),
        ],
        source=OFFSET_COUNTS_PROMPT_TWICE,
    ),
    _c(
        "gen-logits-recorded-one-step-late",
        L12,
        "generate",
        "appends the logits after the step's forward instead of before it, so logits[:, t] "
        "are the ones that chose token t + 1 (the last step's repeated); the tokens "
        "themselves are right.",
        (
            r"logits\[:, ?t\].{0,80}(next|following|t ?\+ ?1)",
            r"(shifted|one step (late|later|ahead|too late))",
            r"logits.{0,60}(of|from) the (next|following) (step|token|call)",
            r"(appended|stored|recorded|kept) (after|too late|one step)",
            r"logits.{0,60}(chose|choose|picked) (the )?(next|following) token",
        ),
        (
            r"tokens? (differ|are wrong|are not)",
            r"start",
            r"softmax|probabilit",
            r"cache.{0,30}(not|never) (passed|used)",
        ),
        edits=[
            ("        steps.append(logits)\n        next_id", "        next_id"),
            (
                "            logits = model(next_id, caches=caches, start=length + step)[:, -1]\n",
                "            logits = model(next_id, caches=caches, start=length + step)[:, -1]\n"
                "        steps.append(logits)\n",
            ),
        ],
    ),
    _c(
        "gen-argmax-over-whole-batch",
        L12,
        "generate",
        "takes logits.argmax() without dim and reshapes it to (1, 1): right for a batch of "
        "one, but with several rows the argmax runs over the flattened (batch, vocab) "
        "logits and one token is appended for the whole batch (the cat fails).",
        (
            r"argmax.{0,60}(dim|axis|flatten|whole|every row|all rows)",
            r"dim=-1",
            r"batch of (more than one|two|several|2|3)",
            r"(only|just) (for )?(a )?batch of (one|1)",
            r"(one|a single) token for (the whole|all|every) (batch|rows?)",
        ),
        (r"start", r"cache.{0,30}(not|never) (passed|used)", r"logits\[:, ?t\]"),
        edits=[
            (
                "next_id = logits.argmax(dim=-1, keepdim=True)",
                "next_id = logits.argmax().view(1, 1)",
            )
        ],
    ),
    _c(
        "gen-logits-stacked-on-axis-0",
        L12,
        "generate",
        "stacks the per-step logits with torch.stack(steps) (dim 0), returning "
        "(max_new_tokens, batch, vocab) instead of (batch, max_new_tokens, vocab).",
        (
            r"stack.{0,40}(dim|axis)",
            r"dim=1",
            r"\(max_new_tokens, batch",
            r"(batch|steps?|axes|axis|dims?).{0,40}(swapped|transposed|wrong order|order)",
            r"steps? (axis|dimension) (first|0)",
        ),
        (r"start", r"cache.{0,30}(not|never) (passed|used)", r"argmax", r"tokens? differ"),
        edits=[("return ids, torch.stack(steps, dim=1)", "return ids, torch.stack(steps)")],
    ),
    # ------------------------------------------------------------------ grouped_query_attention
    _c(
        "gqa-expand-flatten-tiles-heads",
        L12,
        "grouped_query_attention",
        "copies the key/value heads with k[:, None].expand(...).flatten(1, 2), which puts "
        "the copy axis outside the head axis and gives [k0, k1, k0, k1]: query head h "
        "reads key/value head h % num_kv_heads instead of h // group.",
        (
            r"\[k0, ?k1, ?k0, ?k1\]",
            r"tiled|tiling|\btile\b|interleav",
            r"pairing|paired|order of the (copies|heads)",
            r"h ?// ?group|h ?% ?num_kv_heads|modulo",
            r"repeat_interleave",
            r"(copies|copy axis).{0,60}(outside|before|wrong order)",
        ),
        (
            r"scale|sqrt",
            r"mask.{0,40}(ignored|not passed|dropped)",
            r"len(gth)? axis|sequence axis",
        ),
        edits=[
            (
                "    k = k.repeat_interleave(group, dim=1)",
                "    k = k[:, None].expand(-1, group, -1, -1, -1).flatten(1, 2)",
            ),
            (
                "    v = v.repeat_interleave(group, dim=1)",
                "    v = v[:, None].expand(-1, group, -1, -1, -1).flatten(1, 2)",
            ),
        ],
        source=GQA_TILED_NOT_INTERLEAVED,
    ),
    _c(
        "gqa-repeat-along-length",
        L12,
        "grouped_query_attention",
        "repeats the keys and values along dim=2 (the length axis) instead of dim=1 (the "
        "heads): each key is duplicated in place and the head counts still differ, so with "
        "more than one key/value head the matmul fails (with one, only a mask breaks it).",
        (
            r"dim=2|axis 2|dim(ension)? 2",
            r"len(gth)?(_k)? axis|sequence axis|positions axis|along the (keys'? )?(length|positions)",
            r"repeat\w*.{0,60}(length|len_k|positions|wrong (axis|dim))",
            r"(head|heads) axis.{0,40}(dim=1|axis 1|not)",
        ),
        (r"tiled|\[k0, ?k1|pairing", r"scale|sqrt", r"mask.{0,40}(ignored|not passed|dropped)"),
        edits=[
            ("k.repeat_interleave(group, dim=1)", "k.repeat_interleave(group, dim=2)"),
            ("v.repeat_interleave(group, dim=1)", "v.repeat_interleave(group, dim=2)"),
        ],
        source=GQA_REPEAT_WRONG_AXIS,
    ),
    _c(
        "gqa-values-not-repeated",
        L12,
        "grouped_query_attention",
        "repeats the keys but not the values: with one key/value head the values broadcast "
        "and the answer is right, with several the product of weights and values cannot "
        "broadcast (num_heads against num_kv_heads).",
        (
            r"\bv\b.{0,60}(not|never) (repeated|copied|expanded)",
            r"values?.{0,60}(not|never|weren't|aren't) (repeated|copied|expanded|shared)",
            r"only (the )?keys",
            r"(repeat|copy|expand)\w*.{0,40}(k|keys) (but|and) not.{0,20}(v|values)",
        ),
        (r"tiled|\[k0, ?k1|pairing", r"scale|sqrt", r"mask.{0,40}(ignored|not passed)"),
        edits=[("    v = v.repeat_interleave(group, dim=1)", "    pass")],
    ),
    # ------------------------------------------------------------------ quiz_cache_memory
    _c(
        "quiz-query-heads-not-kv-heads",
        L12,
        "quiz_cache_memory",
        "counts the 32 query heads instead of the 8 key/value heads, 4 times the cache "
        "(3072 MiB instead of 768).",
        (
            r"(32|query) heads?.{0,60}(instead|not|rather)",
            r"key/value heads|kv heads|num_kv_heads|8 (key|kv)",
            r"(4|four) ?(times|×|x) (too (large|big|much)|the)",
            r"group( size)?",
        ),
        (r"keys and values|factor (of )?2", r"\bMB\b|10\*\*6|1e6|million", r"bytes per|2 bytes"),
        edits=[("2 * 48 * 8 * 128", "2 * 48 * 32 * 128")],
        source=CACHE_SIZE_QUERY_HEADS,
    ),
    _c(
        "quiz-decimal-megabytes",
        L12,
        "quiz_cache_memory",
        "divides by 10**6 (decimal megabytes) instead of 2**20, answering 805.3 instead of "
        "768 MiB.",
        (
            r"2\*\*20|1 ?048 ?576|1,048,576",
            r"(MB|megabytes|10\*\*6|1e6|million|decimal).{0,60}(instead|not|rather)",
            r"MiB.{0,40}(not|rather than|instead of).{0,20}(MB|10\*\*6|1e6|million)",
            r"decimal",
        ),
        (r"query heads|32 heads|num_kv_heads|key/value heads", r"factor (of )?2|keys and values"),
        edits=[("/ 2**20", "/ 1e6")],
    ),
    # ------------------------------------------------------------------ online_softmax
    _c(
        "os-running-max-starts-at-zero",
        L12,
        "online_softmax",
        "starts the running maximum at 0 instead of -inf, so on a row whose scores are all "
        "far below 0 every exp(s - 0) underflows, the sum is 0 and the row is NaN or 0.",
        (
            r"(starts?|initiali[sz]\w*|begins?).{0,40}\b(at|with|to|from) 0\b",
            r"-inf.{0,40}not 0|not 0.{0,40}-inf|instead of -inf",
            r"(far|well) below (0|zero)|(all|every) (score|value)s?.{0,30}negative",
            r"underflow",
            r"max\(0,",
        ),
        (
            r"block('s)? own max|block max(imum)? alone",
            r"(sum|total).{0,40}(not|never) rescaled",
            r"last (partial )?block",
            r"in[- ]place|modif",
        ),
        edits=[
            (
                'running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)',
                "running_max = torch.zeros(x.shape[:-1], dtype=x.dtype)",
            )
        ],
        source=SOFTMAX_MAX_FROM_ZERO,
    ),
    _c(
        "os-total-never-rescaled",
        L12,
        "online_softmax",
        "adds each block's sum to the running total without multiplying the total by "
        "exp(m - m'), so whenever a later block raises the maximum the earlier terms stay "
        "measured against the old maximum and the rows do not sum to 1.",
        (
            r"rescal\w*",
            r"exp\(m ?- ?m|e\^\{?m ?- ?m|exp\(running_max ?- ?new_max\)",
            r"correction|correct\w* factor",
            r"(old|earlier|previous|running) (sum|total).{0,60}(not|never) (multiplied|rescaled|corrected)",
        ),
        (r"starts? at 0|initiali[sz]\w* (to|at) 0", r"last (partial )?block", r"in[- ]place"),
        edits=[
            (
                "total = total * torch.exp(running_max - new_max) + torch.exp(",
                "total = total + torch.exp(",
            )
        ],
    ),
    _c(
        "os-block-shifted-in-place",
        L12,
        "online_softmax",
        "subtracts the new maximum from the block in place (block -= ...), and the block is "
        "a view of x: the caller's x is modified and the final exp(x - m) reads the shifted "
        "values.",
        (
            r"(modif|chang|overwr|alter|mutat)\w*.{0,40}(\bx\b|input|argument|caller)",
            r"in[- ]place",
            r"-=|sub_",
            r"view of x|x's (storage|memory)",
        ),
        (r"(sum|total).{0,40}(not|never) rescaled", r"starts? at 0", r"last (partial )?block"),
        edits=[
            (
                "        total = total * torch.exp(running_max - new_max) + torch.exp(\n"
                "            block - new_max[..., None]\n"
                "        ).sum(dim=-1)",
                "        block -= new_max[..., None]  # shift the block by its maximum\n"
                "        total = total * torch.exp(running_max - new_max) + "
                "torch.exp(block).sum(dim=-1)",
            )
        ],
    ),
    _c(
        "os-partial-last-block-dropped",
        L12,
        "online_softmax",
        "loops over x.shape[-1] // block_size blocks, so when the length is not a multiple "
        "of block_size the last, shorter block is never seen: its columns are missing from "
        "the maximum and the sum.",
        (
            r"last (partial |shorter |incomplete )?block",
            r"integer division|//|floor",
            r"not a multiple",
            r"remainder|leftover|trailing (columns|block)",
            r"(shorter|partial) block",
        ),
        (r"(sum|total).{0,40}(not|never) rescaled", r"starts? at 0", r"in[- ]place"),
        edits=[
            (
                "    for start in range(0, x.shape[-1], block_size):\n",
                "    for number in range(x.shape[-1] // block_size):\n"
                "        start = number * block_size\n",
            )
        ],
    ),
    # ------------------------------------------------------------------ tiled_attention
    _c(
        "tiled-causal-bottom-right",
        L12,
        "tiled_attention",
        "aligns the causal mask to the bottom right like section 2's cache mask (key j "
        "blocked when j > i + len_k - len_q) instead of the top left the exercise asks for: "
        "the same when len_q == len_k, wrong when len_q < len_k.",
        (
            r"bottom[- ]right|lower[- ]right",
            r"top[- ]left|upper[- ]left",
            r"len_k ?- ?len_q",
            r"aligned|alignment",
            r"(cache|section 2)('s)? mask",
        ),
        (
            r"(forgot|never|not) (masked|applied)|masked_fill",
            r"rescal",
            r"sqrt|scal(e|ing) factor",
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
        "tiled-output-not-rescaled",
        L12,
        "tiled_attention",
        "rescales the running sum by exp(m - m') but not the accumulated output, so the "
        "earlier blocks' contributions stay measured against the old maximum whenever a "
        "block raises it.",
        (
            r"acc\w*.{0,60}(not|never) (rescaled|multiplied|corrected)",
            r"(output|accumulat\w*).{0,60}(rescal|correction|exp\(m)",
            r"both .{0,30}(total|sum) and .{0,30}(acc|output)",
        ),
        (
            r"(sum|total).{0,40}(not|never) rescaled",
            r"causal|mask",
            r"sqrt|scal(e|ing) factor",
            r"starts? at 0",
        ),
        edits=[
            (
                "acc = acc * correction[..., None] + weights @ v[..., start:stop, :]",
                "acc = acc + weights @ v[..., start:stop, :]",
            )
        ],
    ),
    _c(
        "tiled-masked-fill-result-dropped",
        L12,
        "tiled_attention",
        "calls scores.masked_fill(future, -inf) without assigning the result (masked_fill "
        "is not in place), so causal=True masks nothing.",
        (
            r"masked_fill.{0,80}(not in[- ]place|returns? a new|discard|assign|result)",
            r"(result|return value).{0,40}(discarded|thrown away|not assigned|unused|dropped)",
            r"causal.{0,60}(ignored|no effect|not applied|never applied|masks nothing)",
            r"masked_fill_",
            r"(future|later) keys.{0,60}(not masked|attended|visible|seen)",
        ),
        (
            r"bottom[- ]right|lower[- ]right|len_k ?- ?len_q",
            r"rescal",
            r"sqrt|scal(e|ing) factor",
            r">=|diagonal",
        ),
        edits=[
            (
                'scores = scores.masked_fill(future, float("-inf"))',
                'scores.masked_fill(future, float("-inf"))',
            )
        ],
        source=MASKED_FILL_NOT_IN_PLACE,
    ),
    _c(
        "tiled-scaled-by-d-v",
        L12,
        "tiled_attention",
        "scales the scores by 1/sqrt(v.shape[-1]) (d_v) instead of 1/sqrt(d_k): right "
        "whenever d_k == d_v, wrong when they differ.",
        (
            r"sqrt\(d_v\)|√ ?d_v",
            r"v\.shape\[-1\]",
            r"(scal\w*|divid\w*) by .{0,30}d_v",
            r"d_v.{0,40}instead of.{0,20}d_k",
            r"d_k.{0,40}(not|rather than|instead of).{0,20}d_v",
        ),
        (r"causal|mask", r"rescal", r"acc\w* .{0,30}not"),
        edits=[
            ("scale = 1 / math.sqrt(q.shape[-1])", "scale = 1 / math.sqrt(v.shape[-1])"),
        ],
    ),
    # ------------------------------------------------------------------ sliding_window_mask
    _c(
        "sw-window-one-too-wide",
        L12,
        "sliding_window_mask",
        "uses diagonal=-window instead of 1 - window, so each query sees window + 1 keys "
        "(itself and window before it) instead of window.",
        (
            r"window ?\+ ?1",
            r"one (key|position) too many|one too many",
            r"off by one",
            r"diagonal.{0,40}(1 ?- ?window|-window)",
            r"i ?- ?j ?<= ?window\b",
        ),
        (
            r"future|later (keys|positions)|look[- ]?ahead",
            r"bool|dtype",
            r"both sides|symmetric|two-sided",
        ),
        edits=[("diagonal=1 - window", "diagonal=-window")],
        source=WINDOW_ONE_TOO_MANY,
    ),
    _c(
        "sw-window-on-both-sides",
        L12,
        "sliding_window_mask",
        "builds a band with tril(diagonal=window - 1) in place of the look-ahead mask, so "
        "each query also sees the window - 1 keys after it (a Longformer-style two-sided "
        "window, not a causal one).",
        (
            r"future|later (keys|positions)",
            r"both sides|two-sided|symmetric|around",
            r"(not |non-?)causal",
            r"look[- ]?ahead.{0,40}(missing|left out|dropped|not)",
            r"j ?> ?i",
        ),
        (r"window ?\+ ?1|one too many|off by one", r"bool|dtype"),
        edits=[
            (
                "    return look_ahead_mask(size) & recent",
                "    ahead = torch.tril(torch.ones(size, size, dtype=torch.bool), "
                "diagonal=window - 1)\n"
                "    return ahead & recent",
            )
        ],
        source=WINDOW_BOTH_SIDES,
    ),
    _c(
        "sw-float-mask",
        L12,
        "sliding_window_mask",
        "builds the window from torch.ones(size, size) without dtype=torch.bool and "
        "multiplies it by the look-ahead mask, returning a float mask of 0.0/1.0 instead "
        "of a bool one.",
        (r"dtype", r"\bbool", r"float", r"True/False"),
        (r"window ?\+ ?1|one too many|off by one", r"future|later (keys|positions)"),
        edits=[
            (
                "torch.triu(torch.ones(size, size, dtype=torch.bool), diagonal=1 - window)",
                "torch.triu(torch.ones(size, size), diagonal=1 - window)",
            ),
            ("look_ahead_mask(size) & recent", "look_ahead_mask(size) * recent"),
        ],
    ),
]
