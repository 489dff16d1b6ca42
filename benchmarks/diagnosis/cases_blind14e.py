"""Held-out wrong answers for lessons 12, blind round 14 (helper b14e, 2026-11-27):
mistakes new to the benchmark, written against the checks after round 15's fixes, to
measure how the diagnoses generalise to mistakes nobody here has seen. 22 cases over the
seven exercises; eleven transpose a mistake reported in public (the URL read for this
benchmark), the others are the author's.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run, and each case was compared with the causes of the benchmark's earlier cases for these
lessons (ids and causes only) and replaced where it repeated one.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L12 = "12_inference"

# The reports these cases transpose (each read with the search tool for this benchmark).
ATTRIBUTE_THEN_BUFFER = "https://github.com/pytorch/pytorch/issues/3232"
BUFFER_BEFORE_INIT = "https://github.com/pytorch/pytorch/pull/16110"
ROLLING_KV_CACHE = "https://github.com/crabml/crabml/issues/180"
WRITE_INTO_EXPANDED = "https://github.com/pytorch/pytorch/issues/69204"
TOKEN_FED_WITHOUT_AXIS = "https://github.com/syncdoth/RetNet/issues/11"
MASK_AFTER_SOFTMAX = "https://github.com/huggingface/pytorch-image-models/pull/2236"
CARET_IS_XOR = (
    "https://scipython.com/book/chapter-2-the-core-python-language-i/questions/"
    "exponentiation-gotcha"
)
FLASH_V1_RESCALE = "https://github.com/Dao-AILab/flash-attention/issues/1349"
FLOOR_DIVISION_SCALE = "https://github.com/ukoethe/vigra/pull/403"
AMAX_OF_EMPTY_BLOCK = "https://github.com/pytorch/pytorch/issues/130187"
CHUNKED_ATTENTION = "https://github.com/AI-Hypercomputer/maxtext/pull/1545"

_c = held_out_authored("blind14e")

BLIND14E: list[Case] = [
    # ------------------------------------------------------------------ KVCache
    _c(
        "kv-reset-on-multi-position-call",
        L12,
        "KVCache",
        "takes every call of several positions for a new prompt and sets self.length back "
        "to 0 before writing: a prefill followed by one-position steps is right, but a "
        "second call of several positions (a prompt fed in chunks) overwrites the stored "
        "positions from 0 and returns only that chunk.",
        (
            r"(reset|resets|restart|starts? (again|over)|back to (position )?0|sets? "
            r"(self\.)?length (back )?to 0).{0,100}(several|more than one|multi|chunk)",
            r"(several|more than one|multi-?position|chunk).{0,100}(reset|restart|"
            r"starts? (again|over)|back to (position )?0|(self\.)?length (back )?to 0)",
            r"(second|later|another) (call|chunk) of (several|more than one|\d+) "
            r"(new )?positions.{0,120}(overwr|from position 0|at position 0)",
        ),
        (
            r"never (advance|update)s?",
            r"advances? (self\.length )?by one",
            r"length.{0,30}(by|to) the chunk'?s size",
            r"sets? (self\.)?length to (the chunk'?s size|n\b)",
        ),
        edits=[
            (
                "start, stop = self.length, self.length + k_new.shape[-2]",
                "if k_new.shape[-2] > 1:  # several positions: a new prompt, start over\n"
                "            self.length = 0\n"
                "        start, stop = self.length, self.length + k_new.shape[-2]",
            )
        ],
    ),
    _c(
        "kv-attribute-then-register-buffer",
        L12,
        "KVCache",
        "assigns the two zero tensors to self.keys and self.values first and then calls "
        "register_buffer('keys', self.keys, ...) with them: register_buffer refuses a name "
        'that is already an attribute, so the constructor raises KeyError ("attribute '
        "'keys' already exists\").",
        (
            r"already exists",
            r"(assign|set)\w*.{0,60}(self\.keys|attribute).{0,80}(before|then).{0,40}"
            r"register_buffer",
            r"register_buffer.{0,100}(name|attribute).{0,60}(already|taken|exists)",
        ),
        (
            r"persistent=True|(lands?|land) in the (model's )?state.?dict",
            r"nn\.Parameter",
            r"super\(\)\.__init__",
        ),
        edits=[
            (
                'self.register_buffer("keys", torch.zeros(shape, dtype=dtype), '
                "persistent=False)\n"
                '        self.register_buffer("values", torch.zeros(shape, dtype=dtype), '
                "persistent=False)",
                "self.keys = torch.zeros(shape, dtype=dtype)\n"
                "        self.values = torch.zeros(shape, dtype=dtype)\n"
                '        self.register_buffer("keys", self.keys, persistent=False)\n'
                '        self.register_buffer("values", self.values, persistent=False)',
            )
        ],
        source=ATTRIBUTE_THEN_BUFFER,
    ),
    _c(
        "kv-evicts-oldest-when-full",
        L12,
        "KVCache",
        "makes the cache a rolling buffer (Mistral's): when a call would store more than "
        "max_len positions it rolls the buffers and drops the oldest positions instead of "
        "raising ValueError, so an overflowing call silently returns the last max_len "
        "positions.",
        (
            r"ValueError",
            r"(evict|drop|discard|roll|forget)\w*.{0,60}(oldest|earliest|first) positions",
            r"(more than|past|beyond) max_len.{0,100}(silently|no error|without (an )?"
            r"error|did not raise|returned)",
        ),
        (
            r"AssertionError|\bassert\b",
            r"(>=|refuses?|rejects?).{0,60}(exactly|full|fills?).{0,30}max_len",
            r"refuses? .{0,40}(that|which) fit",
        ),
        edits=[
            (
                "if stop > self.keys.shape[-2]:\n"
                '            raise ValueError(f"the cache holds {self.keys.shape[-2]} '
                'positions, not {stop}")',
                "if stop > self.keys.shape[-2]:  # full: evict the oldest (a rolling buffer)\n"
                "            drop = stop - self.keys.shape[-2]\n"
                "            self.keys = self.keys.roll(-drop, dims=2)\n"
                "            self.values = self.values.roll(-drop, dims=2)\n"
                "            start, stop = start - drop, stop - drop",
            )
        ],
        source=ROLLING_KV_CACHE,
    ),
    _c(
        "kv-buffers-expanded-over-batch",
        L12,
        "KVCache",
        "allocates one sequence's zeros and expands them over the batch "
        "(torch.zeros(1, num_heads, max_len, d_head).expand(shape)) to save memory: the "
        "buffers have the right shape, but every sequence shares one storage, so for a "
        'batch of more than one the write raises a RuntimeError ("more than one element of '
        'the written-to tensor refers to a single memory location"); a batch of one is '
        "right.",
        (
            r"expand",
            r"(single|same|one) memory location",
            r"(share|shares|sharing) (one|the same|a single) (storage|memory)",
            r"strides? (of )?0|zero strides?",
        ),
        (
            r"buffers? (have|has|with|of) a batch (axis|size|dimension) of 1",
            r"(allocate[sd]?|made|sized) .{0,30}for one sequence",
        ),
        edits=[
            (
                'self.register_buffer("keys", torch.zeros(shape, dtype=dtype), '
                "persistent=False)\n"
                '        self.register_buffer("values", torch.zeros(shape, dtype=dtype), '
                "persistent=False)",
                "one = torch.zeros(1, num_heads, max_len, d_head, dtype=dtype)\n"
                '        self.register_buffer("keys", one.expand(shape), persistent=False)\n'
                '        self.register_buffer("values", one.clone().expand(shape), '
                "persistent=False)",
            )
        ],
        source=WRITE_INTO_EXPANDED,
    ),
    _c(
        "kv-super-init-missing",
        L12,
        "KVCache",
        "forgets super().__init__() at the top of the constructor: nn.Module is not set up, "
        'so the first register_buffer raises AttributeError ("cannot assign buffer '
        'before Module.__init__() call").',
        (
            r"super\(\)\.__init__",
            r"Module\.__init__",
            r"nn\.Module'?s? (constructor|__init__)",
        ),
        (
            r"already exists",
            r"persistent=True|state.?dict",
            r"nn\.Parameter",
        ),
        edits=[("super().__init__()\n        shape", "shape")],
        source=BUFFER_BEFORE_INIT,
    ),
    # ------------------------------------------------------------------ generate
    _c(
        "gen-step-logits-at-prompt-last-index",
        L12,
        "generate",
        "reads every call's logits at index length - 1, the prompt's last position, "
        "instead of -1: right for the prefill, but a step's output has one position, so "
        "with a prompt of more than one token the step after the first new token raises "
        "an IndexError (a one-token prompt, or one new token, is right).",
        (
            r"length ?- ?1",
            r"\[:, ?-1\].{0,80}(not|instead)",
            r"(instead of|not) .{0,20}\[:, ?-1\]",
            r"(step|new token|one-token call)'?s? (output|logits) (has|have|holds?) "
            r"(only )?one position",
        ),
        (
            r"prefill.{0,60}(first position|\[:, ?0\])",
            r"start.{0,40}(stale|too far|one too)",
            r"squeeze",
        ),
        edits=[
            (
                "logits = model(prompt, caches=caches, start=0)[:, -1]",
                "logits = model(prompt, caches=caches, start=0)[:, length - 1]",
            ),
            (
                "logits = model(next_id, caches=caches, start=length + step)[:, -1]",
                "logits = model(next_id, caches=caches, start=length + step)[:, length - 1]",
            ),
        ],
    ),
    _c(
        "gen-new-token-fed-one-dimensional",
        L12,
        "generate",
        "feeds each new token as ids[:, -1], a (batch,) vector, instead of ids[:, -1:] or "
        "next_id, (batch, 1): the model takes it as one sequence of `batch` tokens without "
        "a length axis and raises inside its forward from the first step (one new token, "
        "which needs no step, is right).",
        (
            r"ids\[:, ?-1\](?!:)",
            r"\[:, ?-1:\]",
            r"\(batch,\)",
            r"1-?D|one-dimensional",
            r"(without|lost|drops?|missing) (the|its) (length|position|sequence) axis",
        ),
        (
            r"keepdim",
            r"unsqueeze\(0\)",
            r"argmax.{0,40}(batch axis|dim=0)",
        ),
        edits=[
            (
                "logits = model(next_id, caches=caches, start=length + step)[:, -1]",
                "logits = model(ids[:, -1], caches=caches, start=length + step)[:, -1]",
            )
        ],
        source=TOKEN_FED_WITHOUT_AXIS,
    ),
    _c(
        "gen-prompt-logits-recorded",
        L12,
        "generate",
        "feeds the prompt token by token (accepted) in the same loop as the new tokens and "
        "records every call's logits, those of the prompt's positions too: the tokens are "
        "right, but the logits have len - 1 + max_new_tokens steps instead of "
        "max_new_tokens (right only for a one-token prompt).",
        (
            r"(logits|steps?) (of|for|at) (the )?prompt'?s? (positions|tokens)",
            r"prompt'?s? (positions|tokens)'? logits",
            r"(records?|keeps?|appends?) .{0,40}(prompt|every call)",
            r"len(gth)? ?- ?1 (extra|too many|more)",
        ),
        (
            r"one (step|token) too many",
            r"max_new_tokens ?\+ ?1",
            r"(one|a) step late",
        ),
        code="""
@torch.no_grad()
def generate(model, prompt, max_new_tokens):
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    ids, steps = prompt, []
    for position in range(length + max_new_tokens - 1):
        token = ids[:, position : position + 1]  # (batch, 1)
        logits = model(token, caches=caches, start=position)[:, -1]
        steps.append(logits)
        if position >= length - 1:  # past the prompt: choose the next token
            ids = torch.cat([ids, logits.argmax(dim=-1, keepdim=True)], dim=1)
    return ids, torch.stack(steps, dim=1)
""",
    ),
    _c(
        "gen-new-tokens-prepended",
        L12,
        "generate",
        "concatenates in the wrong order, torch.cat([next_id, ids], dim=1): the model is "
        "fed the right tokens and the logits are right, but each new token is put in front "
        "of the sequence, so ids come back as the generated tokens (last first) followed "
        "by the prompt.",
        (
            r"(before|in front of|ahead of) the prompt",
            r"prepend",
            r"cat\(\[next_id, ids\]",
            r"order of (the )?(cat|concatenation|torch\.cat)",
            r"(new|generated) tokens? (first|at the (front|start|beginning))",
        ),
        (
            r"(without|missing|leaves? out|forgets?) the prompt",
            r"only the (generated|new) tokens",
            r"one (token|step) (late|too many|short|too few)",
        ),
        edits=[
            (
                "ids = torch.cat([ids, next_id], dim=1)",
                "ids = torch.cat([next_id, ids], dim=1)",
            )
        ],
    ),
    # ------------------------------------------------------------------ grouped_query_attention
    _c(
        "gqa-mask-applied-to-weights",
        L12,
        "grouped_query_attention",
        "writes the attention by hand and applies the mask after the softmax, setting the "
        "blocked weights to 0 (weights.masked_fill(~mask, 0)) instead of filling the "
        "blocked scores with -inf before it: masked keys get no weight, but each row's "
        "remaining weights no longer sum to 1 (right without a mask).",
        (
            r"mask\w*.{0,80}(after|before) (the )?softmax",
            r"softmax.{0,80}(before|then).{0,40}mask",
            r"re-?normali[sz]",
            r"(blocked|masked) weights (set )?to 0",
        ),
        (
            r"(filled|fills?) .{0,40}with 0 instead of -inf",
            r"mask\w* (is )?(ignored|never applied|not applied|not passed)",
            r"(True|mask).{0,30}(taken|read) as (blocked|masked)|inverted",
            r"0/1 bias|adds? the mask",
        ),
        code="""
def grouped_query_attention(q, k, v, mask=None):
    group = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(group, dim=1)  # (batch, num_heads, len_k, d_head)
    v = v.repeat_interleave(group, dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask, 0.0)  # blocked keys get no weight
    return weights @ v  # (batch, num_heads, len_q, d_v)
""",
        source=MASK_AFTER_SOFTMAX,
    ),
    _c(
        "gqa-loop-drops-kv-head-axis",
        L12,
        "grouped_query_attention",
        "loops over the key/value heads and takes each one as k[:, head] and v[:, head], "
        "which drops the head axis: the group's queries (batch, group, len_q, d_head) then "
        "broadcast against (batch, len_k, d_head) with the batch axis lined up against the "
        "group axis, so a batch of one is right and larger batches fail or mix sequences "
        "(k[:, head : head + 1] keeps the axis).",
        (
            r"k\[:, ?(head|h|i|kv_head)\]",
            r"(head|h|i) ?: ?(head|h|i) ?\+ ?1",
            r"(drops?|loses?|removes?) the (key/value )?head axis",
            r"(without|no) (a |the )?(key/value )?head axis",
            r"batch (axis|size).{0,80}(against|lined up with|broadcasts? against).{0,40}"
            r"(group|heads?)",
        ),
        (
            r"tiles?\b|h ?% ?num_kv_heads",
            r"repeat_interleave.{0,40}(without|dim)",
            r"mask.{0,60}(indexed|per head|\[:, ?head\])",
        ),
        code="""
def grouped_query_attention(q, k, v, mask=None):
    group = q.shape[1] // k.shape[1]
    outputs = []
    for head in range(k.shape[1]):  # one key/value head and its group of query heads
        queries = q[:, head * group : (head + 1) * group]  # (batch, group, len_q, d_head)
        head_mask = mask
        if mask is not None and mask.dim() == 4 and mask.shape[1] > 1:
            head_mask = mask[:, head * group : (head + 1) * group]
        output, _ = scaled_dot_product_attention(queries, k[:, head], v[:, head], head_mask)
        outputs.append(output)
    return torch.cat(outputs, dim=1)  # (batch, num_heads, len_q, d_v)
""",
    ),
    # ------------------------------------------------------------------ quiz_cache_memory
    _c(
        "quiz-bytes-not-converted",
        L12,
        "quiz_cache_memory",
        "computes the cache's size in bytes and returns it without converting to MiB: "
        "201326592 instead of 192.",
        (
            r"(in|as|counted in|number of|the) bytes\b(?! per)",
            r"(not|never) (converted|divided)",
            r"(divide|convert)\w* .{0,30}by 2 ?\*\* ?20",
        ),
        (
            r"megabytes|10 ?\*\* ?6",
            r"KiB|kibibytes|2 ?\*\* ?10\b",
            r"GiB|2 ?\*\* ?30",
            r"query heads",
        ),
        edits=[
            (
                "return 2 * 48 * 8 * 128 * 1024 * 2 / 2**20",
                "return 2 * 48 * 8 * 128 * 1024 * 2",
            )
        ],
    ),
    _c(
        "quiz-caret-as-power",
        L12,
        "quiz_cache_memory",
        "writes 2**20 as 2 ^ 20: in Python ^ is the bitwise exclusive or, so it divides by "
        "22 and answers 9151208.7 instead of 192.",
        (
            r"\^",
            r"\bxor\b|exclusive.or|bitwise",
            r"divided by 22|/ ?22\b",
        ),
        (
            r"KiB|kibibytes",
            r"megabytes|10 ?\*\* ?6",
            r"bits? (as|for) bytes|16 bytes",
            r"(one|a single) layer|48 layers",
        ),
        edits=[
            (
                "return 2 * 48 * 8 * 128 * 1024 * 2 / 2**20",
                "return 2 * 48 * 8 * 128 * 1024 * 2 / (2 ^ 20)",
            )
        ],
        source=CARET_IS_XOR,
    ),
    # ------------------------------------------------------------------ online_softmax
    _c(
        "online-vector-left-as-one-row",
        L12,
        "online_softmax",
        "turns a 1-D x into one row (x.unsqueeze(0)) so that the code only handles rows, "
        "and never squeezes the result back: the values are right, but a 1-D input of n "
        "numbers comes back (1, n) instead of (n,).",
        (
            r"\(1, ?\d+\)",
            r"unsqueeze|squeeze",
            r"extra (leading )?(axis|dimension)",
            r"(1-?D|one-dimensional|a vector).{0,80}(shape|\(1,|comes back|returned)",
        ),
        (
            r"keepdim",
            r"\[\.\.\., ?None\]",
            r"(accumulators?|running max\w*|sums?) (shaped|sized) like x",
            r"hard-?codes? (a )?2-?D",
        ),
        edits=[
            (
                'running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)',
                "x = x.unsqueeze(0) if x.dim() == 1 else x  # a vector as one row\n"
                '    running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)',
            )
        ],
    ),
    _c(
        "online-block-terms-from-whole-row",
        L12,
        "online_softmax",
        "copy slip in the running sum: adds torch.exp(x - new_max[..., None]).sum(dim=-1), "
        "the whole row, instead of the block's terms: with one block it is right, with "
        "several every column is added once per block (and the columns not seen yet are "
        "taken against a maximum that may be too small, which can overflow).",
        (
            r"whole row|entire row|all (the )?columns|every column",
            r"\bx\b (instead of|not) (the )?block",
            r"(added|counted|summed) (once per block|several times|more than once|"
            r"\d+ times|again for each block)",
        ),
        (
            r"(total|sum) (is )?not rescaled|without (first )?(multiplying|rescaling)",
            r"overlap",
            r"block'?s own maximum",
            r"last (partial |shorter )?block",
        ),
        edits=[("block - new_max[..., None]", "x - new_max[..., None]")],
    ),
    # ------------------------------------------------------------------ tiled_attention
    _c(
        "tiled-normalised-output-without-old-sum",
        L12,
        "tiled_attention",
        "keeps the output normalised after every block (FlashAttention-1's form) but "
        "rescales the old output by exp(m - m') alone, without the old running sum "
        "(acc = (acc * correction + weights @ v_block) / new_total instead of "
        "(total * correction * acc + weights @ v_block) / new_total): one block is right, "
        "with several the earlier blocks' contribution is divided by the sum twice.",
        (
            r"(old|previous|earlier) (running )?(sum|total)",
            r"normali[sz]ed (running )?(output|accumulator)",
            r"(multipl|scal)\w* .{0,40}by (the )?(old|previous) (running )?(sum|total)",
            r"divided by (the )?(running )?(sum|total) (twice|more than once|at every)",
        ),
        (
            r"(never|not) divided|no final divi",
            r"(output|accumulator|acc) (is )?not rescaled",
            r"(running )?(sum|total) (is )?not rescaled",
            r"correction.{0,30}invert",
        ),
        edits=[
            (
                "total = total * correction + weights.sum(dim=-1)\n"
                "        acc = acc * correction[..., None] + weights @ v[..., start:stop, :]",
                "new_total = total * correction + weights.sum(dim=-1)\n"
                "        acc = (acc * correction[..., None] + weights @ v[..., start:stop, :]) "
                "/ new_total[..., None]\n"
                "        total = new_total",
            ),
            (
                "return acc / total[..., None]",
                "return acc  # normalised after every block",
            ),
        ],
        source=FLASH_V1_RESCALE,
    ),
    _c(
        "tiled-causal-fills-visible-keys",
        L12,
        "tiled_attention",
        "builds the causal mask in the course's convention (True = may attend, key j <= "
        "query i) and passes it to masked_fill, which fills where the mask is True: with "
        "causal=True each query sees only the keys after it, and the last query (or any "
        "query without a later key) has no key at all; causal=False is right.",
        (
            r"masked_fill.{0,100}(True|where).{0,60}(fill|block|mask)",
            r"(fills?|blocks?|masks?) (the )?(allowed|visible|past|earlier) (keys|positions)",
            r"(wrong way round|opposite|inverted|invert)",
            r"sees? only (the )?(future|later keys|keys after)",
        ),
        (
            r"bottom.?right|len_k ?- ?len_q",
            r"diagonal|j ?>= ?i",
            r"block.?local|local (key )?indices",
            r"(not|never) assigned|not in.?place",
        ),
        edits=[
            (
                "future = torch.arange(start, stop)[None, :] > query_positions",
                "visible = torch.arange(start, stop)[None, :] <= query_positions",
            ),
            ("scores.masked_fill(future,", "scores.masked_fill(visible,"),
        ],
    ),
    _c(
        "tiled-scale-floor-division",
        L12,
        "tiled_attention",
        "writes the scale with floor division, 1 // math.sqrt(d_k): for any d_k above 1 it "
        "is 0.0, so every score is 0 and each query gets the plain average of the values it "
        "may attend to (d_k = 1 is right).",
        (
            r"//|floor division|integer division",
            r"scale.{0,40}(is |of )?0(\.0)?\b|zero scale",
            r"scores? (are )?(all )?(0|zero)\b",
            r"(plain|uniform|equal).{0,20}(average|weights|mean)",
        ),
        (
            r"no scale|not (multiplied|scaled|divided) by",
            r"1 ?/ ?d_k\b|1/d\b",
            r"sqrt\(len_k\)|number of keys",
            r"sqrt\(d_v\)",
        ),
        edits=[
            (
                "scale = 1 / math.sqrt(q.shape[-1])",
                "scale = 1 // math.sqrt(q.shape[-1])",
            )
        ],
        source=FLOOR_DIVISION_SCALE,
    ),
    _c(
        "tiled-blocks-past-last-key",
        L12,
        "tiled_attention",
        "walks the key blocks over range(0, len_k + 1, block_size), taking the stop as "
        "inclusive: when block_size divides len_k the last start is len_k, the block is "
        "empty, and its amax raises an IndexError; other lengths are right.",
        (
            r"len_k ?\+ ?1",
            r"empty (key )?block",
            r"(block|start) (at|starting at|past|beyond) (len_k|the last key|the end)",
            r"block_size divides len_k",
        ),
        (
            r"(last|shorter|partial) block.{0,40}(never visited|dropped|skipped|left out)",
            r"(number|count) of blocks",
            r"range\(0, ?len_q",
        ),
        edits=[
            (
                "for start in range(0, len_k, block_size):",
                "for start in range(0, len_k + 1, block_size):",
            )
        ],
        source=AMAX_OF_EMPTY_BLOCK,
    ),
    # ------------------------------------------------------------------ sliding_window_mask
    _c(
        "sw-chunked-not-sliding",
        L12,
        "sliding_window_mask",
        "builds chunked attention (Llama 4's) instead of a sliding window: positions are "
        "cut into fixed chunks of `window` and a query sees the earlier keys of its own "
        "chunk only (i // window == j // window), so a query at the start of a chunk sees "
        "itself alone instead of the window - 1 keys before it.",
        (
            r"chunk",
            r"(fixed|non-overlapping|separate) (blocks|segments|windows)",
            r"i ?// ?window|//",
            r"(same|own) (block|segment)",
        ),
        (
            r"one too (few|narrow|many|wide)",
            r"window ?- ?1 keys|diagonal ?= ?2 ?- ?window",
            r"window ?\+ ?1",
            r"not causal|(sees?|attends? to) the future",
        ),
        code="""
def sliding_window_mask(size, window):
    positions = torch.arange(size)
    same_chunk = positions[:, None] // window == positions[None, :] // window
    return look_ahead_mask(size) & same_chunk  # (size, size)
""",
        source=CHUNKED_ATTENTION,
    ),
    _c(
        "sw-parameters-declared-swapped",
        L12,
        "sliding_window_mask",
        "declares the parameters as (window, size) instead of (size, window): called as "
        "the contract says, sliding_window_mask(size, window), it builds a window x window "
        "mask with a window of `size` (right only when size == window).",
        (
            r"(argument|parameter)s?.{0,60}(order|swapped|exchanged|wrong way|other way|"
            r"reversed)",
            r"\(window, ?size\)",
            r"size and window.{0,40}(swapped|exchanged|the other way)",
            r"window (as|for) (the )?size",
        ),
        (
            r"transpose|\.T\b",
            r"one too (wide|narrow|many|few)",
            r"numpy",
            r"leading (broadcast )?axes|\(1, ?1, ",
        ),
        edits=[
            (
                "def sliding_window_mask(size: int, window: int) -> torch.Tensor:",
                "def sliding_window_mask(window: int, size: int) -> torch.Tensor:",
            )
        ],
    ),
    _c(
        "sw-old-keys-without-negation",
        L12,
        "sliding_window_mask",
        "builds the keys that are too old, torch.tril(ones, diagonal=-window) (i - j >= "
        "window), and ands them with the look-ahead mask without negating them (~): each "
        "query sees exactly the keys outside its window and not the window itself (window >= "
        "size gives an empty mask).",
        (
            r"(forgot|forgets|missing|without) (the )?(~|negation|logical not|not\b)",
            r"(only|just) (the )?(keys )?(too old|older than|outside|beyond) (the |its )?window",
            r"i ?- ?j ?>= ?window",
            r"(keys )?outside (the |its )?window",
        ),
        (
            r"True (=|means|is) blocked",
            r"whole mask (is )?inverted|complement of the (whole )?mask",
            r"not causal|(sees?|attends? to) the future",
        ),
        code="""
def sliding_window_mask(size, window):
    too_old = torch.tril(torch.ones(size, size, dtype=torch.bool), diagonal=-window)
    return look_ahead_mask(size) & too_old  # (size, size)
""",
    ),
]
