"""Held-out wrong answers for lessons 04-06, blind round 18 (helper b18b, 2026-11-28):
mistakes new to the benchmark, written blind (no check module, no message read) while fix
round 20 changed the checks, to measure how the diagnoses generalise to mistakes nobody
here has seen (``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L04, L05, L06 = "04_attention", "05_multi_head_attention", "06_masking"

ATTORCH_SCALE = "https://github.com/BobMcDear/attorch/issues/14"
SPLIT_BEFORE_PROJECTION = "https://github.com/MarcoMeter/episodic-transformer-memory-ppo/pull/22"
CAUSAL_SKIPPED = "https://github.com/facebookresearch/xformers/issues/103"

_c = held_out_authored("blind18b")

_SDPA_SCORES = "scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (..., len_q, len_k)"
_SDPA_FILL = '        scores = scores.masked_fill(~mask, float("-inf"))  # blocked keys: -inf\n'
_SPLIT_RETURN = "return x.reshape(batch, length, num_heads, d_model // num_heads).transpose(1, 2)"
_DEC_RETURN = "return padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[1])"

BLIND18B: list[Case] = [
    _c(
        "sm-shift-by-first-entry",
        L04,
        "softmax",
        "shifts each slice by its first entry (np.take(x, [0], axis=axis)) instead of its "
        "maximum, reading 'subtract any constant' as 'any entry': right while no entry is far "
        "above the first, but a slice with a much larger later entry overflows (inf / inf = "
        "NaN), and a slice whose first entry is -inf is not shifted at all.",
        (
            r"first (entry|element|value|score)",
            r"np\.take",
            r"(shift|subtract)\w* .{0,40}(not|instead of|rather than) (the |its |each "
            r"slice'?s? )?(max|largest)",
        ),
        (
            r"min(imum)?\b.{0,30}instead of (the |its )?max",
            r"(its|the|slice'?s) mean\b",
            r"sum\w* over the whole",
            r"axis (argument )?(is )?ignored",
            r"global max",
        ),
        edits=(
            (
                "peak = np.max(x, axis=axis, keepdims=True)  # (..., 1, ...): one max per slice",
                "peak = np.take(x, [0], axis=axis)  # any constant works: the first entry",
            ),
        ),
    ),
    _c(
        "ar-output-mean-over-keys",
        L04,
        "attention_row",
        "averages the weighted value rows ((weights[:, None] * values).mean(axis=0)) instead of "
        "summing them: the weights already add up to 1, so the output is len_k times too small.",
        (
            r"\bmean\b",
            r"averag",
            r"divided by (the number of keys|len_?k)",
            r"len_k times (too )?small",
        ),
        (
            r"(forgot|missing|without) (the )?(1 ?/ ?)?sqrt",
            r"keys instead of (the )?values",
            r"sum\w* over (the )?features",
            r"sqrt\(len_k\)",
        ),
        edits=(
            (
                "output = weights @ values  # (d_v,): weighted sum of the value rows",
                "output = (weights[:, None] * values).mean(axis=0)  # (d_v,)",
            ),
        ),
    ),
    _c(
        "ar-scale-numpy-size-of-keys",
        L04,
        "attention_row",
        "scales the scores by math.sqrt(keys.size), numpy's count of every entry of keys "
        "(len_k * d_k), taking .size for the width as with a torch tensor's size(-1): the "
        "scores are divided by sqrt(len_k * d_k) instead of sqrt(d_k).",
        (
            r"keys\.size",
            r"len_k ?\* ?d_k",
            r"(number|count) of (all )?(entries|elements)",
        ),
        (
            r"sqrt\(len_k\)",
            r"divid\w* by d_k (instead of|not) (the )?sqrt",
            r"(forgot|missing|without) (the )?scal",
            r"sqrt\(d_v\)",
        ),
        edits=(
            (
                "scores = keys @ query / math.sqrt(d_k)",
                "scores = keys @ query / math.sqrt(keys.size)",
            ),
        ),
    ),
    _c(
        "sdpa-constant-scale-half",
        L04,
        "scaled_dot_product_attention",
        "hard-codes the scale as 0.5 (scores * 0.5, the 1/sqrt(d_k) of a d_k = 4 example) "
        "instead of 1/sqrt(d_k): right only when d_k is 4.",
        (
            r"\* ?0\.5",
            r"scale of 0\.5",
            r"0\.5 (instead of|rather than|for every|whatever)",
            r"(hard-?coded|constant|fixed) (scale|factor)",
            r"(only|right) (when|for|if) d_k ?(=|==|is) ?4",
            r"does ?n[o']t (depend|change) (on|with) d_k",
        ),
        (
            r"sqrt\(len_k\)",
            r"sqrt\(d_v\)",
            r"divid\w* by d_k (instead of|not)",
            r"(forgot|missing|without) (the )?scal",
            r"multipl\w* by sqrt\(d_k\)",
        ),
        edits=((_SDPA_SCORES, "scores = q @ k.transpose(-2, -1) * 0.5  # (..., len_q, len_k)"),),
        source=ATTORCH_SCALE,
    ),
    _c(
        "sdpa-values-transposed-too",
        L04,
        "scaled_dot_product_attention",
        "transposes the values as well as the keys (weights @ v.transpose(-2, -1)), copying the "
        "line above: a matmul error when d_v != len_k, and a wrong output when they are equal.",
        (
            r"v\.transpose",
            r"v\.T\b",
            r"v\.mT\b",
            r"transpos\w* (the )?values",
            r"values? (are|is) transposed",
        ),
        (
            r"weights? (are|is) (returned )?transposed",
            r"softmax over (the )?quer",
            r"keys instead of (the )?values",
            r"k\.T\b",
        ),
        edits=(
            (
                "output = weights @ v  # (..., len_q, d_v)",
                "output = weights @ v.transpose(-2, -1)  # (..., len_q, d_v)",
            ),
        ),
    ),
    _c(
        "sdpa-mask-after-softmax-renormalised",
        L04,
        "scaled_dot_product_attention",
        "applies the mask after the softmax, multiplying the weights by it and dividing by the "
        "new row sums: right for every row with an allowed key, but a row with none divides 0 by "
        "0 and comes back NaN.",
        (
            r"0 ?/ ?0",
            r"(no allowed key|fully (masked|blocked)|every key (is )?(masked|blocked)).{0,80}NaN",
            r"NaN.{0,80}(no allowed key|fully (masked|blocked)|every key)",
            r"divid\w* by (a )?zero",
            r"(row )?sum (is|of) (0|zero)",
        ),
        (
            r"fill\w* .{0,30}with 0 instead of -inf",
            r"(masked_fill|its result) (is )?(discarded|not assigned)",
            r"True ?= ?blocked",
            r"softmax over (the )?quer",
            r"never renormalis",
        ),
        edits=(
            (
                "    if mask is not None:\n"
                + _SDPA_FILL
                + "    weights = torch.softmax(scores, dim=-1)  # (..., len_q, len_k): over the keys\n"
                "    if mask is not None:\n"
                "        nothing_allowed = ~mask.any(dim=-1, keepdim=True)  # (..., len_q, 1)\n"
                "        if nothing_allowed.any():  # a causal or padding mask has none: skip the copy\n"
                "            weights = weights.masked_fill(nothing_allowed, 0.0)  # NaN rows -> 0\n",
                "    weights = torch.softmax(scores, dim=-1)  # (..., len_q, len_k): over the keys\n"
                "    if mask is not None:\n"
                "        weights = weights * mask  # blocked keys: weight 0\n"
                "        weights = weights / weights.sum(dim=-1, keepdim=True)  # rows add up to 1\n",
            ),
        ),
    ),
    _c(
        "sdpa-mask-cast-to-scores-dtype",
        L04,
        "scaled_dot_product_attention",
        "casts the mask to the scores' dtype first (mask = mask.to(scores.dtype), to match "
        "them): ~ of a float tensor raises TypeError, so every call with a mask fails; without "
        "a mask the function is right.",
        (
            r"mask\.to\(",
            r"(cast|convert|turn)\w* (the )?mask (in)?to (a |the )?(float|scores'? dtype)",
            r"mask (is|as|became|becomes) (a )?float",
            r"float(32)? mask",
        ),
        (
            r"1 ?- ?mask",
            r"True ?= ?blocked",
            r"additive mask",
            r"if mask:",
        ),
        edits=(
            (
                _SDPA_FILL,
                "        mask = mask.to(scores.dtype)  # same dtype as the scores\n" + _SDPA_FILL,
            ),
        ),
    ),
    _c(
        "split-batch-and-length-folded",
        L05,
        "split_heads",
        "folds batch and length into one axis, (batch * len, num_heads, d_head), puts the heads "
        "first with transpose(0, 1) and reshapes to (batch, num_heads, len, d_head): right for a "
        "batch of one, but with more sentences the heads-major data is read batch-major, so "
        "sentences and heads are mixed.",
        (
            r"batch.{0,60}heads?.{0,40}(mix|swap|scrambl|interleav|order)",
            r"(mix|swap|scrambl|interleav)\w*.{0,40}(batch|sentences?).{0,40}heads?",
            r"heads?.{0,40}(mix|swap|scrambl|interleav)\w*.{0,40}(batch|sentences)",
            r"batch ?\* ?len",
            r"transpose\(0, ?1\)",
        ),
        (
            r"(no|without|missing|forg[eo]t) (the )?transpose",
            r"\(d_head, num_heads\)",
            r"sequence-first",
            r"casts?\b.{0,20}float32",
        ),
        edits=(
            (
                _SPLIT_RETURN,
                "heads = x.reshape(batch * length, num_heads, d_model // num_heads).transpose(0, 1)\n"
                "    return heads.reshape(batch, num_heads, length, d_model // num_heads)",
            ),
        ),
    ),
    _c(
        "split-returns-d-head-too",
        L05,
        "split_heads",
        "returns the head width along with the heads, (heads, d_head), for the caller's "
        "convenience: a tuple instead of the (batch, num_heads, len, d_head) tensor.",
        (
            r"\btuple\b",
            r"\bpair\b",
            r"(also|as well|too)\W+returns? (the )?d_head",
            r"returns? (the )?d_head (too|as well|also)",
            r"(two|2) (values|things|results|objects)",
        ),
        (
            r"tuple of (the )?(heads|num_heads|tensors)",
            r"torch\.split",
            r"(no|without|missing) (the )?transpose",
        ),
        edits=(
            (
                _SPLIT_RETURN,
                "d_head = d_model // num_heads\n"
                "    return x.reshape(batch, length, num_heads, d_head).transpose(1, 2), d_head",
            ),
        ),
    ),
    _c(
        "merge-loop-over-d-head",
        L05,
        "merge_heads",
        "concatenates the heads in a loop over range(d_head) instead of range(num_heads): right "
        "when the two are equal, an IndexError when d_head > num_heads, and some heads left out "
        "when d_head < num_heads.",
        (
            r"range\(d_head\)",
            r"(loops?|iterat\w*) over d_head",
            r"d_head (instead of|where|in place of|rather than) (the )?(num_heads|number of heads)",
            r"(num_heads|number of heads).{0,40}(not|instead of|rather than) d_head",
        ),
        (
            r"(no|without|forg[eo]t) (the )?transpose",
            r"range\(8\)",
            r"range\(num_heads ?- ?1\)",
            r"(cat|concatenat)\w* (along|on) (the )?(length|time)",
        ),
        edits=(
            (
                "return x.transpose(1, 2).reshape(batch, length, num_heads * d_head)",
                "return torch.cat([x[:, i] for i in range(d_head)], dim=-1)  # head after head",
            ),
        ),
    ),
    _c(
        "merge-unpacks-d-head-before-length",
        L05,
        "merge_heads",
        "unpacks x.shape as (batch, num_heads, d_head, length), the transposed keys' layout, "
        "instead of (batch, num_heads, length, d_head): the reshape to (batch, d_head, "
        "num_heads * length) is right only when length == d_head.",
        (
            r"unpack\w*.{0,60}(d_head, len|len(gth)?, ?d_head)",
            r"len(gth)? and d_head (are )?(swapped|exchanged|confused)",
            r"d_head and (the )?len(gth)? (are )?(swapped|exchanged|confused)",
            r"d_head (before|in place of|where|for) (the )?len",
            r"\(batch, num_heads, d_head, len(gth)?\)",
        ),
        (
            r"(no|without|forg[eo]t) (the )?transpose",
            r"heads first",
            r"unpack\w* .{0,30}\(batch, len(gth)?, num_heads",
            r"sequence-first",
        ),
        edits=(
            (
                "batch, num_heads, length, d_head = x.shape",
                "batch, num_heads, d_head, length = x.shape",
            ),
        ),
    ),
    _c(
        "mha-split-before-projection",
        L05,
        "MultiHeadAttention",
        "splits the inputs into heads before projecting them (self.w_q(split_heads(query, h)) "
        "and the same for keys and values): each d_model-wide Linear meets d_head features, a "
        "raw shape error whenever num_heads > 1.",
        (
            r"(split\w*|cut\w*) (into heads |the heads )?before (the )?(projection|projecting|w_q|linear)",
            r"project\w* (after|each head|the heads)",
            r"w_q\(split_heads",
            r"(linear|w_q|projection)s? (is |are )?applied (to|on) (the |each )?(split )?heads?",
            r"(project|w_q|linear).{0,40}(before|then) split",
        ),
        (
            r"fused",
            r"d_head as (the )?num_heads",
            r"projections? to (the )?head width",
            r"nn\.Linear\(d_model, ?d_model ?// ?num_heads\)",
        ),
        edits=(
            (
                "q = split_heads(self.w_q(query), self.num_heads)",
                "q = self.w_q(split_heads(query, self.num_heads))",
            ),
            (
                "k = split_heads(self.w_k(key), self.num_heads)",
                "k = self.w_k(split_heads(key, self.num_heads))",
            ),
            (
                "v = split_heads(self.w_v(value), self.num_heads)",
                "v = self.w_v(split_heads(value, self.num_heads))",
            ),
        ),
        source=SPLIT_BEFORE_PROJECTION,
    ),
    _c(
        "mha-forward-mask-required",
        L05,
        "MultiHeadAttention",
        "declares forward(self, query, key, value, mask) without the default mask=None: every "
        "call with a mask is right, but a call without one raises TypeError.",
        (
            r"mask ?= ?None",
            r"default (value )?(of |for |to )?(the )?[`'\"]?mask",
            r"mask\W+(has|needs|must have|should have|with|without)\W+(a |its )?default",
            r"mask (is|must be|should be) optional",
        ),
        (
            r"self-attention only",
            r"forward\(self, x",
            r"never passes (on )?the mask",
            r"mask (is )?(never )?passed on",
        ),
        edits=(
            (
                "def forward(self, query, key, value, mask=None):",
                "def forward(self, query, key, value, mask):",
            ),
        ),
    ),
    _c(
        "mha-divisibility-floor-division",
        L05,
        "MultiHeadAttention",
        "tests divisibility with floor division, if d_model // num_heads == 0, instead of the "
        "remainder d_model % num_heads: a d_model that num_heads does not divide (10 and 4) is "
        "accepted without the ValueError.",
        (
            r"d_model // num_heads == 0",
            r"floor division",
            r"modulo|remainder|d_model % num_heads",
            r"(no|did not|didn'?t|never|without) rais\w*.{0,40}ValueError",
            r"ValueError.{0,60}(not|never) raised",
            r"(accept\w*|allow\w*) .{0,40}(not divisible|indivisible)",
            r"not divisible.{0,80}(no|without|never) (ValueError|rais|error)",
        ),
        (
            r"reversed",
            r"num_heads % d_model",
            r"fused",
        ),
        edits=(("if d_model % num_heads:", "if d_model // num_heads == 0:"),),
    ),
    _c(
        "mha-sdpa-result-unpacked-reversed",
        L05,
        "MultiHeadAttention",
        "unpacks scaled_dot_product_attention's result as weights, heads = ... while it returns "
        "(output, weights): the weights are merged as if they were the heads and the heads "
        "returned as the weights.",
        (
            r"(unpack|swapp?)\w*.{0,60}(output|heads).{0,30}weights",
            r"weights, heads",
            r"order of (the )?(results?|outputs?|pair)",
            r"(output|heads) and (the )?weights (are )?(swapped|exchanged|reversed)",
            r"merg\w* (the )?weights",
        ),
        (
            r"forward returns? \(weights, output\)",
            r"keys? (and|in) (the )?quer\w* place",
            r"mask (is )?(never )?passed",
            r"averag\w* over (the )?heads",
        ),
        edits=(
            (
                "heads, weights = scaled_dot_product_attention(q, k, v, mask)",
                "weights, heads = scaled_dot_product_attention(q, k, v, mask)",
            ),
        ),
    ),
    _c(
        "padmask-view-with-batch-size",
        L06,
        "padding_mask",
        "reshapes with (ids != pad_id).view(-1, 1, 1, ids.size(0)), the batch size where the "
        "length belongs: the mask comes back (len, 1, 1, batch) with the flags regrouped, right "
        "only when batch == len.",
        (
            r"size\(0\)",
            r"shape\[0\]",
            r"batch size (as|for|in place of|where) (the )?len",
            r"len(gth)? (and|with) (the )?batch (size )?(are )?(swapped|exchanged)",
            r"\(len(gth)?, 1, 1, batch\)",
        ),
        (
            r"leading axes",
            r"query axis",
            r"\(batch, len(gth)?, 1, 1\)",
            r"view\(1, 1, 1",
            r"inverted",
        ),
        edits=(
            (
                "return (ids != pad_id)[:, None, None, :]",
                "return (ids != pad_id).view(-1, 1, 1, ids.size(0))",
            ),
        ),
    ),
    _c(
        "decmask-causal-skipped-without-padding",
        L06,
        "decoder_self_attention_mask",
        "returns the padding mask alone when the batch holds no pad (if keep.all(): return keep, "
        "'nothing to mask'): with padding it is right, but an unpadded batch gets no look-ahead "
        "part, so every query sees the future (and the mask is (batch, 1, 1, len)).",
        (
            r"(no|without|skip\w*|miss\w*|forg[eo]t\w*|lacks?) (the )?(look-?ahead|causal)",
            r"(look-?ahead|causal) (mask |part )?(is )?(skipped|missing|dropped|left out|absent)",
            r"(when|if) (there is |the batch has )?no (pad|padding)",
            r"(batch|sequence)s? (with no|without) (pad|padding)",
            r"future (keys|positions|tokens) (are )?(visible|allowed|not blocked)",
        ),
        (
            r"\| instead of &",
            r"batch size",
            r"query axis",
            r"inverted",
            r"pads? (as|on the) quer",
        ),
        edits=(
            (
                _DEC_RETURN,
                "keep = padding_mask(tgt_ids, pad_id)\n"
                "    if keep.all():  # no padding: nothing to mask\n"
                "        return keep\n"
                "    return keep & look_ahead_mask(tgt_ids.shape[1])",
            ),
        ),
        source=CAUSAL_SKIPPED,
    ),
    _c(
        "decmask-look-ahead-repeated-over-batch",
        L06,
        "decoder_self_attention_mask",
        "repeats the look-ahead mask over the batch, (batch, len, len), with no heads axis, "
        "before combining: right for a batch of one, but with more sentences the batch axis "
        "meets the padding's heads axis and the mask broadcasts to (batch, batch, len, len).",
        (
            r"repeat",
            r"(look-?ahead|causal)( part| mask)? (is )?\(batch, len(gth)?, len(gth)?\)",
            r"batch (axis )?(twice|two times|repeated)",
            r"\(batch, batch,",
        ),
        (
            r"\| instead of &",
            r"query axis",
            r"len\(tgt_ids\)",
            r"tgt_ids\.shape\[0\]",
            r"(eight|8) heads",
        ),
        edits=(
            (
                _DEC_RETURN,
                "batch, length = tgt_ids.shape\n"
                "    causal = look_ahead_mask(length).unsqueeze(0).repeat(batch, 1, 1)\n"
                "    return padding_mask(tgt_ids, pad_id) & causal",
            ),
        ),
    ),
    _c(
        "decmask-tril-of-ones-like-ids",
        L06,
        "decoder_self_attention_mask",
        "builds the causal part as torch.tril(torch.ones_like(tgt_ids, dtype=torch.bool)), "
        "shaped like the (batch, len) ids instead of (len, len): right only when batch == len; "
        "otherwise the mask broadcasts to (batch, 1, batch, len).",
        (
            r"ones_like",
            r"\(batch, len(gth)?\).{0,40}(not|instead of) (a )?(square|\(len, len\))",
            r"not (a )?square",
            r"tril of (the )?\(batch, len",
            r"(shape|size) of (the )?(ids|tgt_ids)",
        ),
        (
            r"\| instead of &",
            r"query axis",
            r"len\(tgt_ids\)",
            r"tgt_ids\.shape\[0\]",
        ),
        edits=(
            (
                _DEC_RETURN,
                "causal = torch.tril(torch.ones_like(tgt_ids, dtype=torch.bool))\n"
                "    return padding_mask(tgt_ids, pad_id) & causal",
            ),
        ),
    ),
]
