"""Held-out wrong answers for lessons 11-12, blind round 18 (helper b18d, 2026-11-28):
mistakes new to the benchmark, written blind (no check module, no message read) while fix
round 20 changed the checks, to measure how the diagnoses generalise to mistakes nobody
here has seen (``held_out_authored`` in ``cases.py`` makes each case). Written late, from
the reference solutions and the earlier cases' causes only, criteria written before any
run; every mistake is the author's own.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L11, L12 = "11_language_model", "12_inference"

_c = held_out_authored("blind18d")

BLIND18D: list[Case] = [
    _c(
        "ntb-targets-previous-token",
        L11,
        "next_token_batches",
        "shifts the targets the wrong way, tokens[positions - 1] instead of tokens[positions + 1]: "
        "each target is the token before the input, and a window starting at 0 wraps round to the "
        "stream's last token.",
        (
            r"previous (token|position)",
            r"positions? ?- ?1\b",
            r"shift\w* (the )?(wrong|other) (way|direction)",
            r"(one|1) (position|place|token|step) (back|behind|earlier|to the left|before)",
            r"token (just )?before (the|each|its) input",
        ),
        (
            r"(inputs and targets|two tables|tables) (are )?(swapped|the wrong way round)",
            r"global (random|stream|generator)",
            r"(upper|high) (bound|end).{0,40}randint|randint.{0,60}(upper|high) (bound|end)",
            r"targets? (are|is) (equal to|the same as) (the )?inputs",
        ),
        edits=(
            (
                "return tokens[positions], tokens[positions + 1]",
                "return tokens[positions], tokens[positions - 1]",
            ),
        ),
    ),
    _c(
        "rms-mean-over-sequence",
        L11,
        "RMSNorm",
        "averages the squares over the last two axes, mean(dim=(-2, -1)), one statistic per "
        "sequence, instead of over each token's features alone (dim=-1): a one-token input is "
        "right, but every token of a longer sequence is scaled by the whole sequence's mean square.",
        (
            r"dim ?= ?\(-2, ?-1\)",
            r"(over|across) (the |every |all )?(tokens|positions|sequence|length|last two (axes|dims|dimensions))",
            r"(whole|entire) sequence",
            r"last (axis|dimension|dim) (only|alone)",
            r"mix\w* (the )?(tokens|positions)",
        ),
        (
            r"eps (is )?(added )?(outside|after) (the )?(square )?root",
            r"subtract\w* (the |each token's )?mean",
            r"sum\w* (of )?(the )?squares,? (instead of|not) (the )?mean",
            r"(gain|weight) (is )?(not|never) (applied|used|multiplied)",
        ),
        edits=(
            (
                "mean_square = x.pow(2).mean(dim=-1, keepdim=True)",
                "mean_square = x.pow(2).mean(dim=(-2, -1), keepdim=True)",
            ),
        ),
    ),
    _c(
        "rope-angles-as-powers",
        L11,
        "rotary_embedding",
        "raises theta_i to the power of the position, theta_i ** m, instead of multiplying, "
        "m * theta_i: position 0 gets the angle 1 rad instead of 0, and the angles shrink with the "
        "position instead of growing.",
        (
            r"power",
            r"theta\w*(_i)? ?\*\* ?m\b",
            r"\*\* ?(the )?positions?",
            r"rais\w* .{0,30}to the",
            r"(instead of|not) (the )?(product|multiply\w*|m ?\* ?theta)",
            r"exponentiat\w*",
        ),
        (
            r"factor (of )?(2|two)",
            r"(base (is )?ignored|default base)",
            r"(integer|floor) division",
            r"(sin and cos|cos and sin|tables) (are )?swapped",
            r"returns? float64",
        ),
        edits=(
            (
                "angles = torch.arange(length, dtype=torch.float64)[:, None] * theta",
                "angles = theta ** torch.arange(length, dtype=torch.float64)[:, None]",
            ),
        ),
    ),
    _c(
        "rot-input-detached-copy",
        L11,
        "apply_rotary",
        "copies x with x.detach().clone() first, so as not to modify the caller's tensor: the "
        "values are right, but the result is cut from the autograd graph, so no gradient reaches "
        "the queries and keys (the projections never learn).",
        (
            r"detach",
            r"(no|without|not a) gradients?",
            r"gradients? (do(es)?n't|does not|do not|cannot|can't|never) (flow|reach|pass|propagate)",
            r"(cut|breaks?|outside|off) (from |of )?(the )?(autograd|computation graph|graph)",
            r"requires_grad",
        ),
        (
            r"in[- ]place",
            r"rotat\w* (the )?(wrong|other) (way|direction)",
            r"(halves|pairs) (are )?(swapped|mixed)",
            r"(sin|cos) (and|with) (cos|sin) (are )?swapped",
        ),
        edits=(
            (
                "    half = x.shape[-1] // 2\n",
                "    x = x.detach().clone()  # keep the caller's x unmodified\n"
                "    half = x.shape[-1] // 2\n",
            ),
        ),
    ),
    _c(
        "swiglu-hidden-two-thirds",
        L11,
        "SwiGLU",
        "shrinks the hidden width to int(2 * d_ff / 3), the rule Llama's code applies to its "
        "hidden size, although the contract takes d_ff as the hidden width itself: w1, w3 and w2 "
        "have the wrong shapes (and the output differs).",
        (
            r"2 ?/ ?3|two[- ]thirds|2 ?\* ?d_ff ?/ ?3",
            r"hidden (width|size|dimension|features).{0,60}(not|instead of|expected|should be) (d_ff|\d+)",
            r"w[123]\.weight.{0,60}(shape|size)",
            r"(shrink|reduc)\w* (the )?(hidden|d_ff)",
            r"d_ff ?= ?\d+.{0,40}(not|instead of) \d+",
        ),
        (
            r"(has|with|keeps?) (a |the )?bias",
            r"(gate|w1) and (value|w3) (are )?swapped",
            r"(gelu|sigmoid) instead of (the )?silu",
            r"w2 (is )?(not|never) (applied|used)",
        ),
        edits=(
            (
                "        self.w1 = nn.Linear(d_model, d_ff, bias=False)\n",
                "        d_ff = int(2 * d_ff / 3)  # Llama's hidden size\n"
                "        self.w1 = nn.Linear(d_model, d_ff, bias=False)\n",
            ),
        ),
    ),
    _c(
        "csa-sdpa-dropout-p",
        L11,
        "CausalSelfAttention",
        "calls torch's F.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=0.1), "
        "copied from a training model: dropout_p is applied whatever the module's mode, so even "
        "in eval mode the attention weights are dropped at random and every call differs.",
        (
            r"dropout_p",
            r"drop(s|ped|ping)? (out )?(some |the )?(attention )?weights",
            r"dropout (is )?(applied|active|on|used)",
            r"(differ|change)\w* (from|between|on|with) (one |each |every )?(call|run)s?",
            r"(not|non-?) ?deterministic",
            r"random(ly|ness)?.{0,40}(every|each|second) call",
        ),
        (
            r"(no|without|missing) (causal |look-ahead )?mask",
            r"sees? the future",
            r"(values|v) (are )?(also )?rotated",
            r"(scale|divid)\w* (by|with) (sqrt\()?d_model",
            r"(keys|k) (are )?not rotated",
        ),
        edits=(
            (
                "heads, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))",
                "heads = F.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=0.1)",
            ),
        ),
    ),
    _c(
        "block-residual-detached",
        L11,
        "DecoderBlock",
        "adds the attention's output to x.detach() instead of x, h = x.detach() + "
        "attn(norm1(x)): the forward values are right, but no gradient flows back through the "
        "first residual path, so the gradient with respect to the block's input is wrong.",
        (
            r"detach",
            r"residual.{0,80}(gradient|graph|autograd)",
            r"gradient.{0,80}(residual|skip|identity)",
            r"(cut|breaks?) (the )?(autograd|graph|gradient)",
        ),
        (
            r"(missing|no|drops?|without) (the )?(attention('s)? )?residual",
            r"norm1? (is )?(not|never) (applied|used)",
            r"in[- ]place",
            r"sub-?layers? in (the )?wrong order",
        ),
        edits=(
            (
                "h = x + self.attn(self.norm1(x))",
                "h = x.detach() + self.attn(self.norm1(x))",
            ),
        ),
    ),
    _c(
        "block-output-normalised",
        L11,
        "DecoderBlock",
        "normalises the block's output as well, returning norm2(h + feed_forward(norm2(h))) "
        "(a post-norm habit): the stream leaving every block is rescaled to unit root mean "
        "square instead of passing through with its residual.",
        (
            r"normali[sz]\w* (the |its )?(block's )?(output|result|sum)",
            r"norm2?\(h ?\+",
            r"(extra|additional|second|third) (use of )?(norm|normali[sz]ation|rmsnorm)",
            r"post-?norm",
            r"(norm|rmsnorm) (applied )?(after|on|to) (the )?(residual|sum|output|stream)",
        ),
        (
            r"(missing|no|drops?|without) (the )?(feed-forward('s)? )?residual",
            r"norms? (are )?swapped",
            r"sub-?layers? in (the )?wrong order",
            r"layernorm",
        ),
        edits=(
            (
                "return h + self.feed_forward(self.norm2(h))",
                "return self.norm2(h + self.feed_forward(self.norm2(h)))",
            ),
        ),
    ),
    _c(
        "gpt-weight-transposed-in-place",
        L11,
        "GPT",
        "ties the output with embedding.weight.t_(), the in-place transpose, instead of .T: "
        "under autograd it raises a raw RuntimeError (a leaf that requires grad used in an "
        "in-place operation), and without grad the first call is right but transposes the "
        "embedding's own weight, so the second call looks up a (d_model, vocab) table.",
        (
            r"t_\(\)",
            r"in[- ]place (transpose|\.?t_)",
            r"transpos\w* (the )?(embedding('s)? )?weight in[- ]place",
            r"(modif|chang|overwrit|transpos)\w* (the )?embedding('s)?( own)? weight",
            r"\.T (instead of|not) (\.)?t_",
        ),
        (
            r"(not|without|missing|forgets?) (the )?(transpose|\.T)\b",
            r"not tied|untied|copy of the embedding",
            r"(final )?norm (is )?(missing|skipped|not applied)",
            r"shared (block|layer)",
        ),
        edits=(
            (
                "return self.norm(x) @ self.embedding.weight.T",
                "return self.norm(x) @ self.embedding.weight.t_()",
            ),
        ),
    ),
    _c(
        "sample-top-k-after-top-p",
        L11,
        "sample",
        "applies top-p before top-k (the two filters in the wrong order): the nucleus is "
        "chosen on the probabilities before top-k, so with both given a different set of tokens "
        "is kept; either filter alone is right.",
        (
            r"top-?k.{0,60}after (the )?top-?p",
            r"top-?p.{0,60}before (the )?top-?k",
            r"(wrong )?order (of|in which) (the )?(filters|top-?k and top-?p|top-?p and top-?k)",
            r"top-?p.{0,80}(on|over|from) (the )?probabilities (before|without) (the )?top-?k",
            r"(filters|top-?k and top-?p) in the wrong order",
        ),
        (
            r"crossing token",
            r"(not|never) renormali[sz]",
            r"temperature (is )?(applied|divided) (after|twice|inside)",
            r"global (random|generator|stream)",
            r"(threshold|kth).{0,30}(largest|first)",
        ),
        edits=(
            (
                "    if top_k is not None:\n"
                "        kth = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1).values[..., -1:]\n"
                '        logits = logits.masked_fill(logits < kth, float("-inf"))\n',
                "",
            ),
            (
                "    probs = torch.softmax(logits, dim=-1)  # (batch, vocab), renormalised\n",
                "    if top_k is not None:\n"
                "        kth = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1).values[..., -1:]\n"
                '        logits = logits.masked_fill(logits < kth, float("-inf"))\n'
                "    probs = torch.softmax(logits, dim=-1)  # (batch, vocab), renormalised\n",
            ),
        ),
    ),
    _c(
        "kv-writes-before-capacity-check",
        L12,
        "KVCache",
        "writes the new positions before checking the capacity: an overflowing call fails in "
        "the slice assignment with a raw RuntimeError (the slice is shorter than k_new) before "
        "the ValueError is reached.",
        (
            r"(check|test)\w* (the )?capacity.{0,40}after",
            r"before (checking|the (capacity )?check|raising|testing)",
            r"writ\w* .{0,50}before .{0,40}(check|ValueError)",
            r"check .{0,40}before (the )?writ",
        ),
        (
            r"(>=|greater than or equal).{0,40}instead of >",
            r"assert",
            r"length (is )?advanced (by|before)",
            r"(shape\[0\]|batch axis|heads axis)",
        ),
        edits=(
            (
                "        if stop > self.keys.shape[-2]:\n"
                '            raise ValueError(f"the cache holds {self.keys.shape[-2]} positions, not {stop}")\n'
                "        self.keys[:, :, start:stop] = k_new  # (batch, num_heads, n, d_head)\n"
                "        self.values[:, :, start:stop] = v_new\n",
                "        self.keys[:, :, start:stop] = k_new  # (batch, num_heads, n, d_head)\n"
                "        self.values[:, :, start:stop] = v_new\n"
                "        if stop > self.keys.shape[-2]:\n"
                '            raise ValueError(f"the cache holds {self.keys.shape[-2]} positions, not {stop}")\n',
            ),
        ),
    ),
    _c(
        "tiled-query-positions-len-k",
        L12,
        "tiled_attention",
        "builds the query positions from the number of keys, torch.arange(len_k)[:, None], "
        "instead of len_q: right when len_q == len_k, but with causal=True and fewer queries the "
        "(len_k, block) mask does not fit the (len_q, block) scores.",
        (
            r"arange\(len_k\)",
            r"query positions.{0,60}(len_k|number of keys|the keys)",
            r"(len_k|keys?) (rows|positions) instead of (len_q|quer)",
            r"(len_k|number of keys) instead of (len_q|the number of queries)",
        ),
        (
            r"bottom[- ]right",
            r"block[- ]local",
            r"(diagonal|>=)",
            r"masked_fill.{0,40}(not assigned|discarded|dropped)",
        ),
        edits=(
            (
                "query_positions = torch.arange(len_q)[:, None]",
                "query_positions = torch.arange(len_k)[:, None]",
            ),
        ),
    ),
    _c(
        "sw-difference-sign-flipped",
        L12,
        "sliding_window_mask",
        "tests the window with the difference the wrong way round, j - i < window instead of "
        "i - j < window, and ands it with the look-ahead mask: every past key has j - i <= 0, so "
        "the window keeps them all and the result is the plain causal mask (window ignored).",
        (
            r"j ?- ?i",
            r"(difference|offset|subtraction) (is )?(the )?(wrong way|reversed|inverted|flipped)",
            r"window (is )?(ignored|has no effect|never (applied|used))",
            r"(plain|ordinary|full) (causal|look-?ahead) mask",
            r"(too old|older) keys? (are )?(not|never) (blocked|removed|masked)",
        ),
        (
            r"(one|1) (key )?too (wide|many|few|narrow)",
            r"(inverted|complement)\b",
            r"transposed",
            r"(not causal|sees? the future|future keys)",
            r"float|uint8",
        ),
        edits=(
            (
                "    recent = torch.triu(torch.ones(size, size, dtype=torch.bool), diagonal=1 - window)\n",
                "    rows, cols = torch.arange(size)[:, None], torch.arange(size)[None, :]\n"
                "    recent = cols - rows < window  # (size, size)\n",
            ),
        ),
    ),
    _c(
        "quiz-cache-per-thousand-tokens",
        L12,
        "quiz_cache_memory",
        "reads 'per 1024 tokens' as per 1000 tokens and multiplies by 1000: 187.5 instead of 192.",
        (
            r"\b1000\b",
            r"(thousand|1k) tokens",
            r"1024 (tokens|positions)",
            r"2 ?\*\* ?10 (tokens|positions)",
        ),
        (
            r"query heads",
            r"10 ?\*\* ?6|megabytes|decimal",
            r"(factor|times) (of )?(2|two) for (keys and values|k and v)",
            r"float32|4 bytes",
            r"GiB|KiB",
            r"(one|a single) layer",
        ),
        edits=(
            (
                "return 2 * 48 * 8 * 128 * 1024 * 2 / 2**20",
                "return 2 * 48 * 8 * 128 * 1000 * 2 / 2**20",
            ),
        ),
    ),
    _c(
        "gqa-group-from-len",
        L12,
        "grouped_query_attention",
        "computes the group size as len(q) // len(k): len() is the size of the first axis, the "
        "batch, so the group is 1 and the key/value heads are never repeated: right when "
        "num_kv_heads equals num_heads (or is 1, by broadcasting), a shape error otherwise.",
        (
            r"len\((q|k)\)",
            r"batch (axis|size|dimension).{0,60}(instead of|not) (the )?(number of )?heads?",
            r"group.{0,60}(from|of|with) (the )?batch",
            r"(group|ratio).{0,40}shape\[1\]",
            r"first axis",
        ),
        (
            r"\.repeat\(|tiles?\b|tiled|h ?% ?num_kv",
            r"(dim ?= ?2|length axis|position axis)",
            r"values (are )?not repeated",
            r"(dim ?= ?0|batch axis) instead of (the )?head",
        ),
        edits=(
            (
                "group = q.shape[1] // k.shape[1]",
                "group = len(q) // len(k)",
            ),
        ),
    ),
]
