"""Held-out wrong answers for lessons 11-12, blind round 8 (helper b8b, 2026-11-27).

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run. Most transpose a mistake described in a public issue thread or Q&A page (the URL read
for this benchmark with the search tool) to the course's exercise; the others are the
author's. Kinds favoured: wrong shapes and dtypes returned, in-place edits of an input,
mistakes that only show on some inputs (batch != len, an explicit eps, gains other than
ones, num_kv_heads > 1, float64, len_k not a multiple of block_size, temperature 1 with
top_k), state shared between instances, and a model run once too often.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out

AUTHOR = "author: written for this benchmark, no public report cited"

L11, L12 = "11_language_model", "12_inference"

# The reports these cases transpose (each read with the search tool for this benchmark).
DOUBLE_SHIFT = "https://github.com/google-deepmind/jax_privacy/pull/90"
RMS_EPS_HARDCODED = "https://github.com/apache/tvm/pull/15856"
ROPE_CAT_FREQS = "https://github.com/facebookresearch/xformers/issues/779"
ROPE_IN_PLACE = "https://github.com/jzhang38/TinyLlama/issues/188"
SWIGLU_TWO_THIRDS = "https://github.com/meta-llama/llama/issues/1019"
TRIU_MASK_SDPA = "https://github.com/rasbt/LLMs-from-scratch/issues/1061"
ROPE_LENGTH_FROM_BATCH = "https://github.com/kroggen/tokenformer-minimal/issues/1"
NORM_EPS_NOT_PASSED = "https://github.com/ybubnov/metalchat/issues/81"
EMBEDDING_INIT = "https://github.com/pytorch/pytorch/issues/3121"
SAMPLE_SHAPE = "https://github.com/mila-iqia/babyai/pull/73"
CLASS_ATTRIBUTE = "https://codemia.io/knowledge-hub/path/correct_way_to_define_class_variables_in_python_duplicate"
SAMPLING_NOT_ARGMAX = "https://github.com/geek-ai/Texygen/issues/39"
NEW_TOKEN_SHAPE = "https://github.com/pytorch/torchchat/pull/1254"
MQA_EXPAND = "https://github.com/vllm-project/vllm/pull/305"
ATTENTION_FLOAT32 = "https://github.com/lucidrains/flash-attention-jax/pull/13"

_held_out = held_out("blind8b")


def _e(id_, lesson, exercise, cause, source, named, misnamed=(), edits=()):
    return _held_out(id_, lesson, exercise, cause, source, named, misnamed, edits)


def _code(id_, lesson, exercise, cause, source, named, misnamed, code):
    return _held_out(id_, lesson, exercise, cause, source, named, misnamed, code=code)


_IN_PLACE = (
    r"in[- ]place",
    r"(modif|chang|overwr|alter|mutat)\w*.{0,50}(input|argument|caller|given tensor)",
)

BLIND8B: list[Case] = [
    # ------------------------------------------------------------ 11 language model
    _code(
        "batches-shift-inside-window",
        L11,
        "next_token_batches",
        "gathers windows of block_size tokens and then shifts inside the window "
        "(inputs = w[:, :-1], targets = w[:, 1:]), so inputs and targets are both "
        "(batch_size, block_size - 1), one position short: the windows should span "
        "block_size + 1 tokens.",
        DOUBLE_SHIFT,
        (
            r"block_size \+ 1",
            r"block_size - 1",
            r"one (token|position|column) (short|too few|fewer|less)",
            r"shift\w* (inside|within) (the|each) window",
        ),
        (r"global (random|generator|stream)", r"not shifted", r"same as the inputs"),
        "def next_token_batches(tokens, block_size, batch_size, generator):\n"
        "    starts = torch.randint(0, len(tokens) - block_size, (batch_size,), generator=generator)\n"
        "    windows = tokens[starts[:, None] + torch.arange(block_size)]\n"
        "    return windows[:, :-1], windows[:, 1:]\n",
    ),
    _e(
        "rms-eps-hardcoded",
        L11,
        "RMSNorm",
        "ignores the eps argument and always uses 1e-6 (a kernel's hard-coded value), so "
        "RMSNorm(d, eps=...) with another eps normalises with the wrong one.",
        RMS_EPS_HARDCODED,
        (
            r"eps.{0,80}(ignor|not (used|stored|passed|the one)|hard[- ]?coded|fixed|1e-0?6|argument)",
            r"(ignor\w*|does not use|never uses).{0,40}eps",
        ),
        (r"eps.{0,40}outside", r"subtract", r"mean (is )?(subtracted|removed)"),
        edits=(("self.eps = eps", "self.eps = 1e-6"),),
    ),
    _code(
        "rms-gain-before-norm",
        L11,
        "RMSNorm",
        "multiplies by the gain before measuring the root mean square, so the gain is "
        "normalised away: right while weight is all ones, wrong once the gains differ.",
        AUTHOR,
        (
            r"(gain|weight).{0,80}(before|inside|normalis\w* (away|out)|cancel)",
            r"(scal|multipl)\w*.{0,40}(before|after).{0,40}(normalis|rms|root)",
        ),
        (
            r"subtract",
            r"eps.{0,30}outside",
            r"(no|missing|forg[eo]t\w*) (the )?(gain|weight)",
        ),
        "class RMSNorm(nn.Module):\n"
        "    def __init__(self, d_model, eps=1e-5):\n"
        "        super().__init__()\n"
        "        self.eps = eps\n"
        "        self.weight = nn.Parameter(torch.ones(d_model))\n"
        "\n"
        "    def forward(self, x):\n"
        "        y = x * self.weight\n"
        "        return y * torch.rsqrt(y.pow(2).mean(dim=-1, keepdim=True) + self.eps)\n",
    ),
    _e(
        "rope-angles-duplicated",
        L11,
        "rotary_embedding",
        "concatenates the angle table with itself (torch.cat([angles, angles], -1), as "
        "rotate-half libraries cache it), so cos and sin are (len, d_head) instead of "
        "(len, d_head // 2).",
        ROPE_CAT_FREQS,
        (
            r"d_head ?// ?2",
            r"d_head ?/ ?2",
            r"(duplicat|twice|repeated|concatenat|torch\.cat|both halves)",
        ),
        (r"transpos", r"swap", r"positions? (start|from) 1"),
        edits=(
            (
                "    return angles.cos()",
                "    angles = torch.cat([angles, angles], dim=-1)\n    return angles.cos()",
            ),
        ),
    ),
    _code(
        "rotary-writes-into-x",
        L11,
        "apply_rotary",
        "rotates correctly but writes the result into x itself (x[..., :half] = ..., "
        "return x), modifying the caller's queries and keys in place.",
        ROPE_IN_PLACE,
        _IN_PLACE,
        (r"sign", r"halves.{0,20}(swap|order)", r"adjacent", r"dtype"),
        "def apply_rotary(x, cos, sin):\n"
        "    half = x.shape[-1] // 2\n"
        "    cos, sin = cos.to(x.dtype), sin.to(x.dtype)\n"
        "    a, b = x[..., :half].clone(), x[..., half:].clone()\n"
        "    x[..., :half] = a * cos - b * sin\n"
        "    x[..., half:] = a * sin + b * cos\n"
        "    return x\n",
    ),
    _code(
        "swiglu-two-thirds-hidden",
        L11,
        "SwiGLU",
        "shrinks the hidden width to int(2 * d_ff / 3) as Llama's FeedForward does with "
        "its 4 * d_model, although d_ff given here is already the hidden width: w1, w3 "
        "and w2 have the wrong shapes.",
        SWIGLU_TWO_THIRDS,
        (
            r"2 ?/ ?3|2 \* d_ff / 3|two[- ]thirds",
            r"d_ff.{0,80}(not|instead|shr[iu]nk|smaller|hidden (size|width))",
            r"hidden (size|width|dimension)",
            r"out_features.{0,60}d_ff",
        ),
        (r"bias", r"(silu|relu|sigmoid)", r"gate.{0,30}value.{0,30}swap"),
        "class SwiGLU(nn.Module):\n"
        "    def __init__(self, d_model, d_ff):\n"
        "        super().__init__()\n"
        "        hidden = int(2 * d_ff / 3)\n"
        "        self.w1 = nn.Linear(d_model, hidden, bias=False)\n"
        "        self.w3 = nn.Linear(d_model, hidden, bias=False)\n"
        "        self.w2 = nn.Linear(hidden, d_model, bias=False)\n"
        "\n"
        "    def forward(self, x):\n"
        "        return self.w2(F.silu(self.w1(x)) * self.w3(x))\n",
    ),
    _e(
        "csa-triu-mask-inverted",
        L11,
        "CausalSelfAttention",
        "builds the causal mask with nn.MultiheadAttention's convention (torch.triu(..., "
        "diagonal=1), True = blocked) and passes it to the course's attention, whose True "
        "means may attend: every query attends to the future only (the last row to "
        "nothing).",
        TRIU_MASK_SDPA,
        (
            r"(invert|opposite|complement|the wrong way round|True\W+(means? )?(blocked|masked))",
            r"(attends?|sees?|looks?) (only )?(at |to )?(the )?(future|later)",
            r"~mask|logical_not",
        ),
        (r"no mask", r"(missing|without) (the |a )?mask", r"rotat", r"scal(e|ing)"),
        edits=(
            (
                "look_ahead_mask(length)",
                "torch.triu(torch.ones(length, length, dtype=torch.bool), diagonal=1)",
            ),
        ),
    ),
    _e(
        "csa-length-from-batch-axis",
        L11,
        "CausalSelfAttention",
        "reads the sequence length from x.shape[0], the batch axis, so the rotation table "
        "and the mask are built for `batch` positions: right only when batch == len, a "
        "shape error or wrong rotations otherwise.",
        ROPE_LENGTH_FROM_BATCH,
        (
            r"shape\[0\]",
            r"batch (axis|size|dimension).{0,80}(len|length|positions?)",
            r"(len|length).{0,80}(from|of|as) the batch",
        ),
        (r"rotat\w* (the )?values", r"keys? (are )?not rotated", r"no mask", r"scal(e|ing)"),
        edits=(("length = x.shape[1]", "length = x.shape[0]"),),
    ),
    _e(
        "block-ffn-residual-from-input",
        L11,
        "DecoderBlock",
        "the feed-forward residual adds the block's input x instead of h (x + "
        "feed_forward(norm2(h))), so the attention sub-layer's output is lost from the "
        "residual stream.",
        AUTHOR,
        (
            r"(residual|add)\w*.{0,80}\bx\b.{0,60}(instead of|not|rather than).{0,30}\bh\b",
            r"attention('s)? (sub-?layer'?s? )?(output|contribution|result|update)"
            r".{0,60}(lost|dropped|missing|discarded|not (kept|added|carried))",
            r"second residual.{0,60}(\bx\b|input)",
        ),
        (
            r"post-?norm",
            r"norm2\(x\)",
            r"feed[- ]forward reads",
            r"(no|missing|without) (the )?(feed[- ]forward'?s? )?residual",
        ),
        edits=(
            (
                "return h + self.feed_forward(self.norm2(h))",
                "return x + self.feed_forward(self.norm2(h))",
            ),
        ),
    ),
    _e(
        "gpt-blocks-default-eps",
        L11,
        "GPT",
        "passes eps to the final norm but not to the blocks (DecoderBlock(d_model, "
        "num_heads, d_ff)), so a GPT built with another eps normalises inside every block "
        "with the default.",
        NORM_EPS_NOT_PASSED,
        (
            r"eps.{0,100}(block|layer|DecoderBlock)",
            r"(block|layer|DecoderBlock).{0,100}eps",
        ),
        (
            r"final norm.{0,30}(missing|skipp|no\b)",
            r"shared|same (block|layer)",
            r"not chained",
            r"tied|tying",
        ),
        edits=(
            (
                "DecoderBlock(d_model, num_heads, d_ff, eps)",
                "DecoderBlock(d_model, num_heads, d_ff)",
            ),
        ),
    ),
    _e(
        "gpt-embedding-default-init",
        L11,
        "GPT",
        "leaves nn.Embedding's default N(0, 1) initialisation instead of a standard "
        "deviation of 0.02, so the tied output's logits start about 50 times too large.",
        EMBEDDING_INIT,
        (
            r"0\.02",
            r"std(andard deviation)?.{0,60}(1(\.0)?\b|too (large|big)|init)",
            r"initiali[sz]",
        ),
        (r"sqrt\(d_model\)", r"untied|not tied", r"final norm"),
        edits=(("nn.init.normal_(self.embedding.weight, std=0.02)", "pass"),),
    ),
    _e(
        "sample-returns-column",
        L11,
        "sample",
        "returns torch.multinomial's (batch, 1) column without [:, 0], so a sampled batch "
        "of tokens has shape (batch, 1) instead of (batch,) (the greedy branch is right).",
        SAMPLE_SHAPE,
        (
            r"\(batch,\s*1\)",
            r"\[:, ?0\]|squeeze",
            r"\(\d+, 1\).{0,80}\(\d+,\)",
            r"(extra|trailing) (axis|dimension)",
        ),
        (r"argmax", r"temperature", r"top[-_ ]?[kp]", r"global"),
        edits=(("generator=generator)[:, 0]", "generator=generator)"),),
    ),
    _e(
        "sample-top-k-in-place-at-t1",
        L11,
        "sample",
        "skips the division when temperature == 1 and masks the top-k logits in place "
        "(logits[logits < kth] = -inf), so sample(logits, 1.0, top_k=...) overwrites the "
        "caller's logits.",
        AUTHOR,
        (*_IN_PLACE, r"(modif|chang|overwr|alter)\w*.{0,40}logits"),
        (r"temperature.{0,40}(multipl|wrong)", r"top_k \+ 1|one too (many|few)"),
        edits=(
            (
                "logits = logits / temperature",
                "if temperature != 1.0:\n        logits = logits / temperature",
            ),
            (
                'logits = logits.masked_fill(logits < kth, float("-inf"))',
                'logits[logits < kth] = float("-inf")',
            ),
        ),
    ),
    # ------------------------------------------------------------ 12 inference
    _code(
        "kv-length-on-the-class",
        L12,
        "KVCache",
        "keeps the length on the class (KVCache.length), shared by every cache: a second "
        "cache (another layer, or a new generation) starts where the previous one stopped "
        "instead of at 0.",
        CLASS_ATTRIBUTE,
        (
            r"(shared|class attribute|every cache|all caches|other cache|another cache"
            r"|second cache|new cache).{0,100}(length|positions?|count)",
            r"(length|count).{0,100}(shared|class attribute|other cache|another cache"
            r"|second cache|not (start|reset)\w*|fresh cache|new cache)",
        ),
        (
            r"length (never advances|one (too )?short)",
            r"whole buffer",
            r"dtype",
            r"persistent",
        ),
        "class KVCache(nn.Module):\n"
        "    length = 0\n"
        "\n"
        "    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):\n"
        "        super().__init__()\n"
        "        shape = (batch, num_heads, max_len, d_head)\n"
        '        self.register_buffer("keys", torch.zeros(shape, dtype=dtype), persistent=False)\n'
        '        self.register_buffer("values", torch.zeros(shape, dtype=dtype), persistent=False)\n'
        "\n"
        "    def forward(self, k_new, v_new):\n"
        "        start, stop = KVCache.length, KVCache.length + k_new.shape[-2]\n"
        "        if stop > self.keys.shape[-2]:\n"
        '            raise ValueError(f"the cache holds {self.keys.shape[-2]} positions, not {stop}")\n'
        "        self.keys[:, :, start:stop] = k_new\n"
        "        self.values[:, :, start:stop] = v_new\n"
        "        KVCache.length = stop\n"
        "        return self.keys[:, :, :stop], self.values[:, :, :stop]\n",
    ),
    _code(
        "kv-buffers-positions-second",
        L12,
        "KVCache",
        "allocates the buffers positions-second, (batch, max_len, num_heads, d_head), and "
        "transposes on the way in and out: the returned keys and values are right, but "
        "the buffers keys and values do not have the (batch, num_heads, max_len, d_head) "
        "layout the contract asks for.",
        AUTHOR,
        (
            r"(buffer|keys|values).{0,100}\(batch, num_heads, max_len, d_head\)",
            r"layout",
            r"\(\d+, \d+, \d+, \d+\).{0,100}(expected|should|instead|not)",
        ),
        (r"length", r"dtype", r"persistent", r"batch.{0,20}(of )?(1|one)\b"),
        "class KVCache(nn.Module):\n"
        "    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):\n"
        "        super().__init__()\n"
        "        shape = (batch, max_len, num_heads, d_head)\n"
        '        self.register_buffer("keys", torch.zeros(shape, dtype=dtype), persistent=False)\n'
        '        self.register_buffer("values", torch.zeros(shape, dtype=dtype), persistent=False)\n'
        "        self.length = 0\n"
        "\n"
        "    def forward(self, k_new, v_new):\n"
        "        start, stop = self.length, self.length + k_new.shape[-2]\n"
        "        if stop > self.keys.shape[1]:\n"
        '            raise ValueError(f"the cache holds {self.keys.shape[1]} positions, not {stop}")\n'
        "        self.keys[:, start:stop] = k_new.transpose(1, 2)\n"
        "        self.values[:, start:stop] = v_new.transpose(1, 2)\n"
        "        self.length = stop\n"
        "        return self.keys[:, :stop].transpose(1, 2), self.values[:, :stop].transpose(1, 2)\n",
    ),
    _e(
        "gen-samples-not-greedy",
        L12,
        "generate",
        "draws each next token with torch.multinomial(softmax(logits)) instead of taking "
        "the argmax: generation is random where it must be greedy.",
        SAMPLING_NOT_ARGMAX,
        (
            r"sampl|multinomial|random",
            r"not (the )?(argmax|greedy|most (likely|probable))",
        ),
        (r"stale|start\b|position", r"one step late", r"fresh caches", r"prompt.{0,30}without"),
        edits=(
            (
                "next_id = logits.argmax(dim=-1, keepdim=True)",
                "next_id = torch.multinomial(torch.softmax(logits, dim=-1), 1)",
            ),
        ),
    ),
    _e(
        "gen-next-id-no-keepdim",
        L12,
        "generate",
        "takes the argmax without keepdim=True, so the next tokens are a (batch,) vector "
        "that cannot be concatenated to ids (batch, len) nor fed to the model as "
        "(batch, 1).",
        NEW_TOKEN_SHAPE,
        (
            r"keepdim",
            r"\(batch, ?1\)",
            r"column|unsqueeze|\[:, ?None\]",
            r"1-D|one-dimensional|\(batch,\)",
        ),
        (r"batch axis", r"cache.{0,30}(small|overflow)", r"argmax.{0,30}over the batch"),
        edits=(
            (
                "next_id = logits.argmax(dim=-1, keepdim=True)",
                "next_id = logits.argmax(dim=-1)",
            ),
        ),
    ),
    # blind8b-gen-extra-last-forward was left out after the run: a generate that feeds
    # the last new token through the model once more after the loop is the tests'
    # correct variant _gen(feed_last=True): the lesson accepts it on purpose (the extra
    # step is wasted work, not a wrong result); generalisation.py lists it with the
    # reason.
    _code(
        "gqa-expand-only-mqa",
        L12,
        "grouped_query_attention",
        "widens the key/value heads with k.expand(-1, num_heads, -1, -1), which only "
        "works for multi-query attention (num_kv_heads == 1) or no grouping: with 1 < "
        "num_kv_heads < num_heads it raises.",
        MQA_EXPAND,
        (
            r"expand",
            r"num_kv_heads ?(==|=|is) ?1",
            r"(only|just) (for|when|with) (one|a single|1) (key|kv|key/value)",
            r"multi-query",
            r"repeat_interleave",
        ),
        (r"tile|h % num_kv_heads", r"group.{0,30}(inverted|wrong way)", r"scal(e|ing)", r"mask"),
        "def grouped_query_attention(q, k, v, mask=None):\n"
        "    num_heads = q.shape[1]\n"
        "    k = k.expand(-1, num_heads, -1, -1)\n"
        "    v = v.expand(-1, num_heads, -1, -1)\n"
        "    output, _ = scaled_dot_product_attention(q, k, v, mask)\n"
        "    return output\n",
    ),
    _code(
        "gqa-scales-q-in-place",
        L12,
        "grouped_query_attention",
        "writes the attention by hand and scales the queries in place (q /= sqrt(d_head)): "
        "the output is right but the caller's q is modified.",
        AUTHOR,
        (*_IN_PLACE, r"(modif|chang|overwr|alter)\w*.{0,40}(\bq\b|quer)"),
        (r"(no|missing|without) (the )?scal", r"sqrt\(d_v\)", r"tile"),
        "def grouped_query_attention(q, k, v, mask=None):\n"
        "    group = q.shape[1] // k.shape[1]\n"
        "    k = k.repeat_interleave(group, dim=1)\n"
        "    v = v.repeat_interleave(group, dim=1)\n"
        "    q /= math.sqrt(q.shape[-1])\n"
        "    scores = q @ k.transpose(-2, -1)\n"
        "    if mask is not None:\n"
        '        scores = scores.masked_fill(~mask, float("-inf"))\n'
        "    return torch.softmax(scores, dim=-1) @ v\n",
    ),
    _code(
        "online-stale-block-numerators",
        L12,
        "online_softmax",
        "keeps each block's exponentials computed against the maximum of that moment and "
        "never rescales them when the maximum grows (the sum is rescaled): earlier blocks "
        "come out too large unless the maximum is in the first block.",
        AUTHOR,
        (
            r"(earlier|previous|stored|kept|first) (blocks?|exponentials|numerators|pieces|columns)"
            r".{0,100}(rescal|not (re)?scaled|stale|old max|earlier max)",
            r"(rescal|correct)\w*.{0,60}(earlier|previous|stored) (blocks|exponentials|numerators)",
            r"(final|running|last|overall) max\w*.{0,80}(numerator|exponentials|exp\(x)",
        ),
        (
            r"no max",
            r"overflow",
            r"in[- ]place",
            r"skip",
            r"correction.{0,20}invert",
            r"(running )?(sum|total) (is )?not rescaled",
        ),
        "def online_softmax(x, block_size):\n"
        '    running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)\n'
        "    total = torch.zeros(x.shape[:-1], dtype=x.dtype)\n"
        "    pieces = []\n"
        "    for start in range(0, x.shape[-1], block_size):\n"
        "        block = x[..., start : start + block_size]\n"
        "        new_max = torch.maximum(running_max, block.amax(dim=-1))\n"
        "        exps = torch.exp(block - new_max[..., None])\n"
        "        total = total * torch.exp(running_max - new_max) + exps.sum(dim=-1)\n"
        "        running_max = new_max\n"
        "        pieces.append(exps)\n"
        "    return torch.cat(pieces, dim=-1) / total[..., None]\n",
    ),
    # blind8b-tiled-computes-in-float32 was left out after the run: tiled_attention's
    # contract fixes no dtype and its check accepts any floating-point result by design;
    # generalisation.py lists it with the reason.
    _e(
        "tiled-drops-partial-block",
        L12,
        "tiled_attention",
        "loops over range(0, len_k - block_size + 1, block_size), so when len_k is not a "
        "multiple of block_size the last, shorter block of keys is never visited.",
        AUTHOR,
        (
            r"(last|final|shorter|partial|remaining|tail|trailing) (keys?|block|columns)",
            r"not a multiple|multiple of block_size",
        ),
        (r"causal", r"scal(e|ing)", r"rescal", r"divid"),
        edits=(
            (
                "for start in range(0, len_k, block_size):",
                "for start in range(0, len_k - block_size + 1, block_size):",
            ),
        ),
    ),
    _e(
        "sliding-window-transposed",
        L12,
        "sliding_window_mask",
        "returns the band transposed (.T): query i sees keys i .. i + window - 1, the "
        "future, instead of i - window + 1 .. i.",
        AUTHOR,
        (
            r"transpos",
            r"\.T\b",
            r"(rows?|quer\w+) and (columns?|keys?) (are )?(swapped|exchanged)",
            r"upper",
        ),
        (
            r"(forg[eo]t\w*|without|missing|no) (the )?look[- ]ahead",
            r"one too (wide|many)",
            r"invert|complement",
        ),
        edits=(
            (
                "return look_ahead_mask(size) & recent",
                "return (look_ahead_mask(size) & recent).T",
            ),
        ),
    ),
]
