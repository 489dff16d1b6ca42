"""Held-out wrong answers for lesson 12, blind round 10, second batch (helper b10k,
2026-11-27), written after round 10's first fixes of these lessons (b10e).

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run. Half transpose a mistake described in a public issue thread (the URL read for this
benchmark with the search tool) to the course's exercise; the others are the author's.
Kinds favoured: mistakes that only show on some inputs (batch > 1, len_q < len_k, rows
fewer than columns, a window as large as the mask, scores far below 0, a second call),
state mistakes across calls, a wrong order of returned values, numbers in the wrong unit.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L12 = "12_inference"

# The reports these cases transpose (each read with the search tool for this benchmark).
PROMPT_TOKEN_TWICE = "https://github.com/ggml-org/llama.cpp/issues/7859"
SCORES_AFTER_TEMPERATURE = "https://github.com/OpenNMT/OpenNMT-py/issues/1816"
FIRST_TOKEN_BROADCAST = "https://github.com/karpathy/nanochat/pull/201"
GQA_MASK_NOT_REGROUPED = "https://github.com/ml-explore/mlx-lm/pull/1467"
KV_BYTES_QUERY_HEADS = "https://github.com/jranaraki/vllm-fit/issues/2"
SCALE_ONE_OVER_D = "https://github.com/charliezchen/scaling-matrix-preconditioning/issues/2"
ROW_MAX_ZERO = "https://github.com/Dao-AILab/flash-attention/issues/2082"
MASK_ASSUMES_SQUARE = "https://github.com/harvard-edge/cs249r_book/pull/1875"
NUMPY_MASK = "https://github.com/google-deepmind/dm-haiku/issues/363"

_make = held_out_authored("blind10k")


def _e(id_, exercise, cause, named, misnamed=(), edits=(), source=None):
    return _make(id_, L12, exercise, cause, named, misnamed, edits=edits, source=source)


def _code(id_, exercise, cause, named, misnamed, code, source=None):
    return _make(id_, L12, exercise, cause, named, misnamed, code=code, source=source)


_KV_INIT = (
    "class KVCache(nn.Module):\n"
    "    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):\n"
    "        super().__init__()\n"
    "        shape = (batch, num_heads, max_len, d_head)\n"
    '        self.register_buffer("keys", torch.zeros(shape, dtype=dtype), persistent=False)\n'
    '        self.register_buffer("values", torch.zeros(shape, dtype=dtype), '
    "persistent=False)\n"
    "        self.length = 0\n"
    "\n"
)

BLIND10K: list[Case] = [
    # ------------------------------------------------------------------ KVCache
    _e(
        "kv-returns-values-first",
        "KVCache",
        "returns the pair in the wrong order, (values, keys) instead of (keys, values): "
        "everything is stored right, but the attention reads the values as keys and the "
        "keys as values.",
        (
            r"\b(swap|swapped|order|reversed|other way round|wrong way round)\b",
            r"values?.{0,40}(instead of|in place of|where).{0,30}keys",
            r"keys.{0,40}(instead of|in place of|where).{0,30}values",
            r"\(values, keys\)",
        ),
        (
            r"never advances",
            r"whole buffer",
            r"returns? only the new",
            r"persistent",
            r"dtype",
            r"writes? k_new into the values",
        ),
        edits=(
            (
                "return self.keys[:, :, :stop], self.values[:, :, :stop]",
                "return self.values[:, :, :stop], self.keys[:, :, :stop]",
            ),
        ),
    ),
    _e(
        "kv-capacity-checks-batch-axis",
        "KVCache",
        "the capacity check compares the new length with self.keys.shape[0], the batch "
        "size, instead of shape[-2], max_len: chunks that fit are refused as soon as the "
        "length passes the batch size (and, with a large batch, an overflow is not caught "
        "by the check).",
        (
            r"shape\[0\]",
            r"batch (axis|size|dimension)",
            r"capacity (check|test)",
            r"(refus|reject|rais)\w*.{0,80}(fits?|room|within max_len|not (yet )?full)",
            r"(fits?|room|not (yet )?full).{0,80}(refus|reject|ValueError)",
        ),
        (
            r"never advances",
            r"whole buffer",
            r"persistent",
            r"dtype",
            r"returns? only the new",
            r"for one sequence|batch (of )?1\b",
        ),
        edits=(("if stop > self.keys.shape[-2]:", "if stop > self.keys.shape[0]:"),),
    ),
    _code(
        "kv-cat-replaces-buffers",
        "KVCache",
        "mixes the preallocated and the growing designs: it replaces the buffers with the "
        "concatenation of the stored and the new positions (self.keys = torch.cat(...)), so "
        "they shrink to the stored length and the capacity check then refuses the second "
        "call (its max_len is gone).",
        (
            r"second (call|chunk)",
            r"(replac|overwrit|reassign|rebind|rebound)\w*.{0,40}(buffers?|self\.keys)",
            r"(buffers?|self\.keys).{0,60}(shr[iu]nk|smaller|no longer (hold|ha(s|ve)) max_len)",
            r"torch\.cat",
        ),
        (
            r"never advances",
            r"whole buffer",
            r"persistent",
            r"dtype",
            r"returns? only the new",
        ),
        _KV_INIT + "    def forward(self, k_new, v_new):\n"
        "        start, stop = self.length, self.length + k_new.shape[-2]\n"
        "        if stop > self.keys.shape[-2]:\n"
        '            raise ValueError(f"the cache holds {self.keys.shape[-2]} positions")\n'
        "        self.keys = torch.cat([self.keys[:, :, :start], k_new], dim=-2)\n"
        "        self.values = torch.cat([self.values[:, :, :start], v_new], dim=-2)\n"
        "        self.length = stop\n"
        "        return self.keys, self.values\n",
    ),
    # ------------------------------------------------------------------ generate
    _code(
        "gen-last-prompt-token-fed-twice",
        "generate",
        "after the prefill (whose logits it throws away) it feeds the prompt's last token "
        "again as the first step (start=len - 1): that position is stored twice in the "
        "caches, so every new token attends to a duplicated key and value.",
        (
            r"\b(twice|two times|more than once|again)\b",
            r"last (prompt )?(token|position).{0,60}(again|twice|re-?fed|re-?run|duplicat)",
            r"duplicat",
            r"prefill('s)? logits.{0,40}(discard|thrown|ignored|not used|unused)",
        ),
        (
            r"one step late",
            r"fresh caches",
            r"without the caches?",
            r"probabilit",
            r"start.{0,30}(stale|never advanc|stays)",
        ),
        "def generate(model, prompt, max_new_tokens):\n"
        "    batch, length = prompt.shape\n"
        "    caches = model.new_caches(batch, length + max_new_tokens)\n"
        "    model(prompt, caches=caches, start=0)\n"
        "    next_id = prompt[:, -1:]\n"
        "    ids, steps = prompt, []\n"
        "    for step in range(max_new_tokens):\n"
        "        logits = model(next_id, caches=caches, start=length - 1 + step)[:, -1]\n"
        "        steps.append(logits)\n"
        "        next_id = logits.argmax(dim=-1, keepdim=True)\n"
        "        ids = torch.cat([ids, next_id], dim=1)\n"
        "    return ids, torch.stack(steps, dim=1)\n",
        source=PROMPT_TOKEN_TWICE,
    ),
    _code(
        "gen-records-temperature-scaled-logits",
        "generate",
        "divides the logits by a temperature (0.8, kept from a sampling loop) before "
        "recording them: the greedy tokens are unchanged, but the returned logits are the "
        "processed ones, 1.25 times the model's.",
        (
            r"temperature",
            r"(scaled|multiplied|divided)",
            r"1\.25|0\.8\b",
            r"(factor|ratio|constant)",
        ),
        (r"probabilit", r"one step late", r"softmax", r"fresh caches", r"\bstart\b"),
        "def generate(model, prompt, max_new_tokens):\n"
        "    temperature = 0.8\n"
        "    batch, length = prompt.shape\n"
        "    caches = model.new_caches(batch, length + max_new_tokens)\n"
        "    logits = model(prompt, caches=caches, start=0)[:, -1] / temperature\n"
        "    ids, steps = prompt, []\n"
        "    for step in range(max_new_tokens):\n"
        "        steps.append(logits)\n"
        "        next_id = logits.argmax(dim=-1, keepdim=True)\n"
        "        ids = torch.cat([ids, next_id], dim=1)\n"
        "        if step + 1 < max_new_tokens:\n"
        "            out = model(next_id, caches=caches, start=length + step)\n"
        "            logits = out[:, -1] / temperature\n"
        "    return ids, torch.stack(steps, dim=1)\n",
        source=SCORES_AFTER_TEMPERATURE,
    ),
    _code(
        "gen-first-token-from-first-row",
        "generate",
        "picks the first generated token from the first sequence's logits only "
        "(logits[0].argmax()) and gives it to every sequence of the batch; later tokens "
        "are per sequence: right for a batch of one, wrong for the other sequences.",
        (
            r"(first|one|single) (sequence|row)('s)?.{0,80}(all|every|each|other) "
            r"(the )?(sequences?|rows?)",
            r"(shared|same|broadcast|copied)\w*.{0,60}(across|for all|to all|by all|every) "
            r"(the )?(sequences|rows|batch)",
            r"(row|sequence) 0\b",
            r"batch.{0,80}(first (row|sequence))",
        ),
        (
            r"argmax.{0,40}batch axis",
            r"one step late",
            r"start.{0,30}(stale|never advanc|stays)",
            r"\.item\(\)",
            r"probabilit",
        ),
        "def generate(model, prompt, max_new_tokens):\n"
        "    batch, length = prompt.shape\n"
        "    caches = model.new_caches(batch, length + max_new_tokens)\n"
        "    logits = model(prompt, caches=caches, start=0)[:, -1]\n"
        "    next_id = logits[0].argmax().expand(batch, 1)\n"
        "    ids, steps = torch.cat([prompt, next_id], dim=1), [logits]\n"
        "    for step in range(1, max_new_tokens):\n"
        "        logits = model(next_id, caches=caches, start=length + step - 1)[:, -1]\n"
        "        steps.append(logits)\n"
        "        next_id = logits.argmax(dim=-1, keepdim=True)\n"
        "        ids = torch.cat([ids, next_id], dim=1)\n"
        "    return ids, torch.stack(steps, dim=1)\n",
        source=FIRST_TOKEN_BROADCAST,
    ),
    _code(
        "gen-prompt-token-by-token-start-zero",
        "generate",
        "feeds the prompt token by token (accepted) but with start=0 for every prompt "
        "token, so all of the prompt is rotated as position 0; the new tokens get the "
        "right start: right only for a one-token prompt.",
        (
            r"prompt.{0,80}(start|position|rotat)",
            r"start\s*=\s*0",
            r"(rotat|position)\w*.{0,60}\b(0|zero|first position)\b",
            r"(start|position).{0,40}(prompt|prefill)",
        ),
        (
            r"one step late",
            r"fresh caches",
            r"without the caches?",
            r"start stays at the prompt",
            r"one (position )?too far",
            r"probabilit",
        ),
        "def generate(model, prompt, max_new_tokens):\n"
        "    batch, length = prompt.shape\n"
        "    caches = model.new_caches(batch, length + max_new_tokens)\n"
        "    for position in range(length):\n"
        "        piece = prompt[:, position : position + 1]\n"
        "        logits = model(piece, caches=caches, start=0)[:, -1]\n"
        "    ids, steps = prompt, []\n"
        "    for step in range(max_new_tokens):\n"
        "        steps.append(logits)\n"
        "        next_id = logits.argmax(dim=-1, keepdim=True)\n"
        "        ids = torch.cat([ids, next_id], dim=1)\n"
        "        if step + 1 < max_new_tokens:\n"
        "            logits = model(next_id, caches=caches, start=length + step)[:, -1]\n"
        "    return ids, torch.stack(steps, dim=1)\n",
    ),
    # ------------------------------------------------------- grouped_query_attention
    _code(
        "gqa-grouped-mask-not-regrouped",
        "grouped_query_attention",
        "groups the query heads instead of repeating the keys (q reshaped to (batch, "
        "num_kv_heads, group, len_q, d_head), the scores 5-D) but applies the mask as given: "
        "a (len_q, len_k) mask still broadcasts, a per-batch or per-head 4-D mask lines up "
        "with the wrong axes (a broadcast error, or the wrong rows masked).",
        (
            r"mask.{0,80}(group|5-?d|five|reshap|regroup|layout)",
            r"(per-head|per head|4-?d|batch|per-sequence)\w*.{0,40}masks?",
            r"masks?.{0,60}(broadcast|align)\w*.{0,80}(heads?|batch|group)",
        ),
        (
            r"\btil(e|es|ed|ing)\b|h % num_kv",
            r"mask (is )?(ignored|never applied)",
            r"inverted|wrong way round",
            r"not (divided|scaled)|no scale",
        ),
        "def grouped_query_attention(q, k, v, mask=None):\n"
        "    batch, num_heads, len_q, d_head = q.shape\n"
        "    num_kv_heads = k.shape[1]\n"
        "    group = num_heads // num_kv_heads\n"
        "    q = q.reshape(batch, num_kv_heads, group, len_q, d_head)\n"
        "    scores = q @ k.unsqueeze(2).transpose(-2, -1) / math.sqrt(d_head)\n"
        "    if mask is not None:\n"
        '        scores = scores.masked_fill(~mask, float("-inf"))\n'
        "    weights = torch.softmax(scores, dim=-1)\n"
        "    output = weights @ v.unsqueeze(2)\n"
        "    return output.reshape(batch, num_heads, len_q, v.shape[-1])\n",
        source=GQA_MASK_NOT_REGROUPED,
    ),
    _e(
        "gqa-returns-weights",
        "grouped_query_attention",
        "unpacks lesson 04's (output, weights) pair the wrong way round (_, output = ...) "
        "and returns the attention weights, (batch, num_heads, len_q, len_k), instead of "
        "the output (batch, num_heads, len_q, d_v).",
        (
            r"(attention )?weights",
            r"len_k\)",
            r"second (element|item|value|of the pair)",
            r"(unpack|order).{0,40}(tuple|pair)|(tuple|pair).{0,40}(unpack|order)",
        ),
        (
            r"transposed",
            r"repeat",
            r"not (divided|scaled)|no scale",
            r"(returns?|is) (a|lesson 04's) tuple",
        ),
        edits=(
            (
                "output, _ = scaled_dot_product_attention(q, k, v, mask)",
                "_, output = scaled_dot_product_attention(q, k, v, mask)",
            ),
        ),
    ),
    # ------------------------------------------------------------------ quiz
    _code(
        "quiz-query-heads-not-kv-heads",
        "quiz_cache_memory",
        "sizes the cache with the 32 query heads (the model's full width, 32 * 128) instead "
        "of the 8 key/value heads: 768 instead of 192.",
        (
            r"query heads",
            r"32 (query )?heads",
            r"(key/value|kv|key-value|key and value) heads",
        ),
        (r"megabytes|10 ?\*\* ?6|\bMB\b", r"GiB", r"bytes per|bfloat16|float32|4 bytes"),
        "def quiz_cache_memory():\n    return 2 * 48 * 32 * 128 * 1024 * 2 / 2**20\n",
        source=KV_BYTES_QUERY_HEADS,
    ),
    _code(
        "quiz-answer-in-gib",
        "quiz_cache_memory",
        "gives the size in GiB (bytes / 2**30 = 0.1875) where the question asks for MiB "
        "(bytes / 2**20 = 192).",
        (
            r"GiB",
            r"2 ?\*\* ?30",
            r"gibi|gigabyte",
            r"1024 ?(times|×|x|\*)",
        ),
        (r"query heads", r"megabytes|10 ?\*\* ?6", r"bytes per|bfloat16"),
        "def quiz_cache_memory():\n    return 2 * 48 * 8 * 128 * 1024 * 2 / 2**30\n",
    ),
    # ------------------------------------------------------------------ online_softmax
    _e(
        "online-block-terms-own-max",
        "online_softmax",
        "adds each block's exponentials taken against the block's own maximum "
        "(exp(block - block.amax)) instead of the new running maximum: the running "
        "maximum and the rescaling are right, but a block whose maximum is below the "
        "running one adds too much.",
        (
            r"block('s)? (own )?max",
            r"(its|the block's) own max",
            r"(against|relative to|minus|with) the block('s)? max",
            r"not the (new|running) max",
        ),
        (
            r"never rescal|not rescaled",
            r"inverted|inverse",
            r"starts? at 0",
            r"last block('s)? max",
            r"in place",
        ),
        edits=(("block - new_max[..., None]", "block - block.amax(dim=-1, keepdim=True)"),),
    ),
    _e(
        "online-blocks-over-len",
        "online_softmax",
        "walks the column blocks over range(0, len(x), block_size): len(x) is the size of "
        "the first axis, not the number of columns, so for rows of x the blocks stop after "
        "as many columns as there are rows (columns missing, or empty blocks and an error "
        "when there are more rows than columns); a 1-D x is right.",
        (
            r"len\(x\)",
            r"first (axis|dimension)|shape\[0\]|number of rows",
            r"(columns|last axis).{0,60}(not all|missing|skipp|never|not (visited|covered))",
            r"rows?.{0,40}(instead of|not) (the )?columns",
        ),
        (
            r"in place",
            r"max.{0,30}starts? at 0",
            r"inverted|inverse",
            r"(last|shorter|partial) block",
        ),
        edits=(
            (
                "for start in range(0, x.shape[-1], block_size):",
                "for start in range(0, len(x), block_size):",
            ),
        ),
    ),
    # ------------------------------------------------------------------ tiled_attention
    _e(
        "tiled-scale-one-over-d",
        "tiled_attention",
        "scales the scores by 1/d_k (as muP does) instead of 1/sqrt(d_k).",
        (
            r"sqrt|square root|√",
            r"1 ?/ ?d_k\b",
            r"\bscal(e|ed|ing)\b",
        ),
        (
            r"len_k|number of keys",
            r"d_v\b",
            r"no scale|not scaled|unscaled",
            r"multiplied by sqrt",
        ),
        edits=(("scale = 1 / math.sqrt(q.shape[-1])", "scale = 1 / q.shape[-1]"),),
        source=SCALE_ONE_OVER_D,
    ),
    _e(
        "tiled-max-starts-zero",
        "tiled_attention",
        "starts the running maximum at 0 instead of -inf: exact while some score of a row "
        "is near or above 0, but a row whose scores are all far below 0 keeps the maximum "
        "0, every exp underflows, and the output is 0 / 0.",
        (
            r"(start|initial|init)\w*.{0,60}\b(0|zero)\b",
            r"-inf.{0,60}(start|initial)",
            r"running max(imum)?.{0,60}\b(0|zero)\b",
            r"stuck at 0",
            r"underflow",
        ),
        (
            r"block('s)? (own )?max",
            r"not rescaled",
            r"not (divided|scaled)|no scale",
            r"diagonal",
        ),
        edits=(
            (
                'running_max = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)',
                "running_max = torch.zeros(q.shape[:-1], dtype=q.dtype)",
            ),
        ),
        source=ROW_MAX_ZERO,
    ),
    _code(
        "tiled-causal-mask-square",
        "tiled_attention",
        "cuts each block's causal mask from a square look_ahead_mask(len_q), assuming "
        "len_k == len_q: with more keys than queries the block's columns past len_q are "
        "missing (a shape error); a square input is right.",
        (
            r"len_q ?(<|!=|≠|is less than|smaller than) ?len_k",
            r"\bsquare\b",
            r"more keys than queries|fewer queries than keys",
            r"\(len_q, len_q\)",
            r"len_k (>|is larger than|greater than) len_q",
        ),
        (r"bottom.right", r"diagonal", r"block-local", r"skip"),
        "def tiled_attention(q, k, v, block_size, causal=False):\n"
        "    len_q, len_k = q.shape[-2], k.shape[-2]\n"
        "    scale = 1 / math.sqrt(q.shape[-1])\n"
        '    running_max = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)\n'
        "    total = torch.zeros(q.shape[:-1], dtype=q.dtype)\n"
        "    acc = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)\n"
        "    allowed = look_ahead_mask(len_q)\n"
        "    for start in range(0, len_k, block_size):\n"
        "        stop = min(start + block_size, len_k)\n"
        "        scores = q @ k[..., start:stop, :].transpose(-2, -1) * scale\n"
        "        if causal:\n"
        '            scores = scores.masked_fill(~allowed[:, start:stop], float("-inf"))\n'
        "        new_max = torch.maximum(running_max, scores.amax(dim=-1))\n"
        "        correction = torch.exp(running_max - new_max)\n"
        "        weights = torch.exp(scores - new_max[..., None])\n"
        "        total = total * correction + weights.sum(dim=-1)\n"
        "        acc = acc * correction[..., None] + weights @ v[..., start:stop, :]\n"
        "        running_max = new_max\n"
        "    return acc / total[..., None]\n",
        source=MASK_ASSUMES_SQUARE,
    ),
    # ------------------------------------------------------------------ sliding_window_mask
    _e(
        "sliding-window-big-window-all-ones",
        "sliding_window_mask",
        "adds a shortcut for a window that covers everything (window >= size) that returns "
        "torch.ones, all True, forgetting that the mask must stay causal: right for smaller "
        "windows, the future let through for window >= size.",
        (
            r"window ?(>=|≥|of|larger than|at least|as large as|equal to|=) ?(the )?size",
            r"(?s)window.{0,40}(>=|≥|\bsize\b|larger|covers).{0,120}"
            r"(future|not causal|look.ahead|upper)",
            r"(large|big|wide|whole|full) windows?",
        ),
        (
            r"one too (many|few|wide|narrow)",
            r"transposed",
            r"inverted|complement",
            r"float",
            r"both sides|symmetric",
        ),
        edits=(
            (
                "recent = torch.triu(",
                "if window >= size:  # the window covers every key\n"
                "        return torch.ones(size, size, dtype=torch.bool)\n"
                "    recent = torch.triu(",
            ),
        ),
    ),
    _code(
        "sliding-window-numpy",
        "sliding_window_mask",
        "builds the band with numpy (np.arange comparisons) and returns the numpy bool "
        "array, not a torch tensor.",
        (
            r"numpy|ndarray|\bnp\.",
            r"torch\.(Tensor|tensor|from_numpy|as_tensor)",
            r"not a (torch )?tensor",
        ),
        (r"float", r"one too", r"transposed", r"inverted|complement"),
        "def sliding_window_mask(size, window):\n"
        "    import numpy as np\n"
        "\n"
        "    rows = np.arange(size)[:, None]\n"
        "    cols = np.arange(size)[None, :]\n"
        "    return (cols <= rows) & (rows - cols < window)\n",
        source=NUMPY_MASK,
    ),
]
