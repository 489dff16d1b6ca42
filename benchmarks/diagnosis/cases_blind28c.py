"""Held-out wrong answers, blind round 28 (helper b28c, 2026-11-29, lessons 11-12): mistakes new to
the benchmark, written blind (no check module, no message read) while fix round 32 changed
the checks, to measure how the diagnoses generalise to mistakes nobody here has seen
(``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L11, L12 = "11_language_model", "12_inference"

_c = held_out_authored("blind28c")

# Where these mistakes are reported (each page was read for this batch).
SPLIT_IN_BATCHER = "https://benzales.github.io/notes/dataloader.html"
FROZEN_PARAMETER = "https://github.com/nttcslab/byol-a/issues/7"
ROPE_TIMES_PI = "https://github.com/lucidrains/vit-pytorch/issues/129"
SANDWICH_NORM = "https://github.com/ndif-team/nnterp/issues/53"
ONE_HOT_WIDTH = "https://runebook.dev/en/docs/pytorch/generated/torch.nn.functional.one_hot"
STEP_LOGITS_DISCARDED = "https://github.com/xberg-io/xberg/issues/1210"
TRIL_TRIU = "https://github.com/karpathy/nanoGPT/issues/170"
GLU_NO_PROJECTION = "https://github.com/Rishit-dagli/GLU/issues/2"
MAX_FROM_SUM = "https://github.com/ModelTC/LightLLM/issues/948"
DOUBLE_SCALING = "https://github.com/AI-Hypercomputer/maxtext/issues/3138"
LOGITS_LOSS_PAIR = "https://github.com/karpathy/llama2.c/pull/250"
ONE_KV_HEAD = "https://github.com/lucidrains/MEGABYTE-pytorch/issues/13"
STD_UNDER_ROOT = "https://github.com/stanford-cs336/assignment1-basics/issues/93"
CUMSUM_LOGPROBS = "https://github.com/skyzh/tiny-llm/issues/32"
REPEAT_NOT_INTERLEAVE = "https://github.com/facebookresearch/vjepa2/pull/15"

BLIND28C: list[Case] = [
    # ---- 11 language model ----------------------------------------------------------------
    _c(
        "ntb-validation-split-inside-batcher",
        L11,
        "next_token_batches",
        "holds out the last 10% of the stream inside the batcher, as 'Let's build GPT' splits "
        "train and validation data, and draws the starts below int(0.9 * len(tokens)) - "
        "block_size: the windows never come from the end of the stream it was given, and the "
        "draws differ from the contract's torch.randint(0, len(tokens) - block_size, ...).",
        (
            r"(last|final) 10 ?%|\b0\.9\b|90 ?%",
            r"(validation|held[- ]out|train(ing)?[/ -]val)",
            r"(end|tail|last part) of the (token )?(stream|tokens).{0,60}(never|not) (drawn|used|sampled)",
            r"(never|not) (drawn|sampled|used).{0,60}(end|tail|last part) of the (token )?(stream|tokens)",
            r"(upper )?(bound|high|range) of (the )?(starts|torch\.randint).{0,60}(too (small|low)|smaller)",
            r"(starts?|randint).{0,80}len\(tokens\) - block_size",
        ),
        (
            r"without (the )?generator|global (random|rng)|ignor\w* (the )?generator",
            r"targets? (are|equal) the inputs|not shifted",
            r"\(block_size, batch_size\)|transposed",
            r"sort\w* (the )?starts",
        ),
        edits=(
            (
                "starts = torch.randint(0, len(tokens) - block_size, (batch_size,), "
                "generator=generator)",
                "train = tokens[: int(0.9 * len(tokens))]  # the last 10% for validation\n"
                "    starts = torch.randint(0, len(train) - block_size, (batch_size,), "
                "generator=generator)",
            ),
        ),
        source=SPLIT_IN_BATCHER,
    ),
    _c(
        "rmsnorm-gain-frozen",
        L11,
        "RMSNorm",
        "creates the gain with nn.Parameter(torch.ones(d_model), requires_grad=False), so it "
        "is a parameter that is never trained: the output and the state dict are right, but "
        "no gradient reaches the weight and an optimizer leaves it at ones.",
        (
            r"requires_grad",
            r"(weight|gain).{0,60}(frozen|not trainable|never (be )?(trained|learned|updated)"
            r"|gets? no grad|receives? no grad|has no grad|grad(ient)? (is )?None)",
            r"(frozen|untrainable|non-trainable) (weight|gain|parameter)",
            r"no grad(ient)? (reaches|flows? (to|into)) (the )?(weight|gain)",
        ),
        (
            r"\bbuffer\b",
            r"plain tensor|not registered",
            r"detach",
            r"mean (of the )?squares?.{0,40}(wrong|axis|over)",
            r"eps.{0,30}(inside|outside|after) the (square )?root",
        ),
        edits=(
            (
                "self.weight = nn.Parameter(torch.ones(d_model))",
                "self.weight = nn.Parameter(torch.ones(d_model), requires_grad=False)",
            ),
        ),
        source=FROZEN_PARAMETER,
    ),
    _c(
        "rmsnorm-root-of-std",
        L11,
        "RMSNorm",
        "two mistakes at once: divides by sqrt(x.std(dim=-1) + eps), the square root of the "
        "standard deviation, instead of sqrt(mean(x**2) + eps): std subtracts each token's "
        "mean (a centred, unbiased statistic) and its square root is taken once more, so the "
        "output's scale depends on the token's magnitude instead of being normalised.",
        (
            r"\bstd\b|standard deviation",
            r"(subtracts?|removes?|centr\w*|center\w*).{0,30}(the |each token'?s )?mean",
            r"square root of (the )?(root mean square|standard deviation|std)",
            r"(extra|second|double|one more) (square )?root",
            r"mean of (the )?squares? (instead|rather)",
        ),
        (
            r"(no|missing|forg\w+|without) (the )?(learned )?(gain|weight)",
            r"eps.{0,30}(outside|after) the (square )?root",
            r"(sum|L2 norm) (of the squares )?instead of (the )?mean",
            r"over (the )?(sequence|positions|batch)( axis)?",
            r"rsqrt.{0,30}divid",
        ),
        edits=(
            (
                "mean_square = x.pow(2).mean(dim=-1, keepdim=True)",
                "std = x.std(dim=-1, keepdim=True)",
            ),
            (
                "return x * torch.rsqrt(mean_square + self.eps) * self.weight",
                "return x / torch.sqrt(std + self.eps) * self.weight",
            ),
        ),
        source=STD_UNDER_ROOT,
    ),
    _c(
        "rope-angles-times-pi",
        L11,
        "rotary_embedding",
        "multiplies every angle by pi (m * theta_i * math.pi, the Perceiver-style frequencies "
        "some rotary code copies), as if the frequencies counted half-turns: every angle but "
        "position 0's is about 3.14 times too large.",
        (
            r"\bpi\b|π|math\.pi",
            r"3\.14",
            r"(every|each|all) (the )?angles?.{0,60}(times|multiplied|scaled|too large|factor)",
            r"angles?.{0,40}(constant )?factor",
        ),
        (
            r"positions? (from|start at) 1|count\w* (the )?positions? from 1",
            r"(exponent|frequenc\w+).{0,40}(2i|factor (of )?2|i / d)",
            r"base\b.{0,30}(ignored|hard-?coded|wrong)",
            r"\(sin, cos\)|(cos|sin) (and|&) (sin|cos) (are )?swapped",
        ),
        edits=(
            (
                "angles = torch.arange(length, dtype=torch.float64)[:, None] * theta",
                "angles = torch.arange(length, dtype=torch.float64)[:, None] * theta * math.pi",
            ),
        ),
        source=ROPE_TIMES_PI,
    ),
    _c(
        "swiglu-input-halves-no-projection",
        L11,
        "SwiGLU",
        "cuts the block's input itself in two, value, gate = x.chunk(2, dim=-1), and gates "
        "them with silu(gate) * value before w2, without the projections: w1 and w3 are built "
        "but never used, and the gated product has d_model / 2 features where w2 expects d_ff "
        "(a shape error unless d_ff == d_model / 2).",
        (
            r"w1 and w3 (are )?(never|not) (used|applied|called)",
            r"(never|not|doesn't|does not) (use|uses|apply|applies|call|calls) (w1|w3|the (gate|value) projections?)",
            r"(w1|w3|gate projection|value projection) (is |are )?(never|not) (used|applied|called)",
            r"(split|chunk|cut)\w* (the )?(block'?s? )?input",
            r"input (itself|x) (is )?(split|chunked|cut)",
            r"(without|no|skips?) (the )?(gate|value|input) projections?",
        ),
        (
            r"silu.{0,40}(product|value branch)",
            r"(gate|value) and (the )?(value|gate) (are )?swapped",
            r"(extra|unexpected|default) bias|bias (keys?|terms?)",
            r"\b(gelu|sigmoid|relu)\b.{0,20}instead",
            r"(w2|output projection).{0,30}(missing|not applied|left out)",
        ),
        code="""
class SwiGLU(nn.Module):
    def __init__(self, d_model, d_ff):
        super().__init__()
        self.w1 = nn.Linear(d_model, d_ff, bias=False)
        self.w3 = nn.Linear(d_model, d_ff, bias=False)
        self.w2 = nn.Linear(d_ff, d_model, bias=False)

    def forward(self, x):
        value, gate = x.chunk(2, dim=-1)
        return self.w2(F.silu(gate) * value)
""",
        source=GLU_NO_PROJECTION,
    ),
    _c(
        "csa-keys-rotated-from-queries",
        L11,
        "CausalSelfAttention",
        "a copy-paste slip in the rotation line: q, k = apply_rotary(q, cos, sin), "
        "apply_rotary(q, cos, sin), so the keys are the rotated queries and w_k's keys are "
        "computed but never used: every score is a query against the other queries.",
        (
            r"keys? (are|is) (the )?(rotated )?quer(y|ies)",
            r"apply_rotary\(q.{0,60}(keys?|\bk\b)",
            r"w_k('s)? (keys? )?(is |are )?(never|not) used",
            r"keys? (come|are taken|are built|are computed) from (the )?(queries|w_q)",
            r"quer(y|ies) (in place of|instead of|where) (the )?keys",
            r"rotat\w+ (the )?quer(y|ies) twice",
        ),
        (
            r"values? (are |is )?(also )?rotated",
            r"(queries|keys) (are |is )?not rotated",
            r"(no|missing|without) (causal |look-ahead )?mask|sees? the future",
            r"base\b.{0,30}(ignored|default|10000)",
            r"(merge_heads|split_heads).{0,30}(wrong|missing|instead|left out)",
            r"\bw_o\b.{0,30}(missing|not applied)",
        ),
        edits=(
            (
                "q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)",
                "q, k = apply_rotary(q, cos, sin), apply_rotary(q, cos, sin)",
            ),
        ),
    ),
    _c(
        "csa-one-shared-kv-head",
        L11,
        "CausalSelfAttention",
        "builds w_k and w_v with one head's width, nn.Linear(d_model, d_head), and shares that "
        "single key/value head across all the query heads (multi-query attention, as "
        "MEGABYTE's attention did): the state dict's w_k.weight and w_v.weight are (d_head, "
        "d_model) instead of (d_model, d_model), and every head reads the same keys and values.",
        (
            r"(one|a single|single|shared) (key/value|kv|key and value|key-value) head",
            r"multi-?query",
            r"w_k.{0,60}(d_head|one head'?s? width|\(\d+, \d+\)|shape)",
            r"w_v.{0,60}(d_head|one head'?s? width|\(\d+, \d+\)|shape)",
            r"(keys|values).{0,40}(shared|same) (by|for|across) (all|every) (the )?heads",
            r"(every|each|all) heads? .{0,30}(the )?same (keys|values)",
        ),
        (
            r"w_q.{0,40}(d_head|one head)",
            r"(values?|keys?) (are |is )?(also )?rotated|values? rotated",
            r"(extra|unexpected|default) bias|bias (keys?|terms?)",
            r"(no|missing|without) (causal |look-ahead )?mask",
            r"heads? (axis|are) (not )?(moved|transposed)",
        ),
        code="""
class CausalSelfAttention(nn.Module):
    def __init__(self, d_model, num_heads, base=10000.0):
        super().__init__()
        if d_model % num_heads:
            raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
        self.num_heads, self.d_head, self.base = num_heads, d_model // num_heads, base
        self.w_q = nn.Linear(d_model, d_model, bias=False)
        self.w_k = nn.Linear(d_model, self.d_head, bias=False)  # one key head for all
        self.w_v = nn.Linear(d_model, self.d_head, bias=False)  # one value head for all
        self.w_o = nn.Linear(d_model, d_model, bias=False)

    def forward(self, x):
        length = x.shape[1]
        q = split_heads(self.w_q(x), self.num_heads)  # (batch, heads, len, d_head)
        k = self.w_k(x)[:, None]  # (batch, 1, len, d_head), broadcast over the heads
        v = self.w_v(x)[:, None]
        cos, sin = rotary_embedding(length, self.d_head, self.base)
        q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
        heads, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))
        return self.w_o(merge_heads(heads))
""",
        source=ONE_KV_HEAD,
    ),
    _c(
        "decoder-sandwich-norm",
        L11,
        "DecoderBlock",
        "adds Gemma 2's post-sublayer norms with the block's own two norms: each sub-layer's "
        "output is normalised again before it is added to the stream, h = x + "
        "norm1(attn(norm1(x))) and h + norm2(feed_forward(norm2(h))), so each residual "
        "branch is rescaled to unit root mean square instead of added as it is.",
        (
            r"sandwich",
            r"(normalis|normaliz)\w* (each |the )?(sub-?layers?'?s?|attention'?s?|feed-?forward'?s?) outputs?",
            r"(output|result)s? of (the )?(attention|feed-?forward|sub-?layers?).{0,60}(normalis|normaliz|norm1|norm2|RMSNorm)",
            r"norm(1|2)\w* (applied |used )?(twice|two times|again)",
            r"post-?(sub-?layer|attention|feed-?forward) norm",
            r"(norm1|norm2)\(self\.(attn|feed_forward)",
        ),
        (
            r"(no|missing|without) (the )?residual",
            r"norm(alis|aliz)\w* after (the )?residual (add|sum)|norm\w*\(x \+",
            r"(LayerNorm|layer norm) (instead|in place) of|subtracts? the mean",
            r"order of (the )?sub-?layers|feed-?forward (runs )?first",
            r"norm(1|2) (is )?(never|not) used",
        ),
        edits=(
            (
                "h = x + self.attn(self.norm1(x))",
                "h = x + self.norm1(self.attn(self.norm1(x)))",
            ),
            (
                "return h + self.feed_forward(self.norm2(h))",
                "return h + self.norm2(self.feed_forward(self.norm2(h)))",
            ),
        ),
        source=SANDWICH_NORM,
    ),
    _c(
        "gpt-one-hot-lookup-width",
        L11,
        "GPT",
        "looks the tokens up as a one-hot product, F.one_hot(ids).float() @ embedding.weight, "
        "without num_classes: F.one_hot makes the table as wide as the largest id in the "
        "batch plus one, not vocab_size, so the product fails (a shape error) for any batch "
        "that does not contain the last token of the vocabulary.",
        (
            r"one[_-]?hot",
            r"num_classes",
            r"(largest|max(imum)?|highest) (token )?id",
            r"(width|size|classes|columns).{0,60}(inferred|from the (largest|max))",
        ),
        (
            r"transpos\w* (the )?(embedding|weight)|without (the )?\.T\b",
            r"(embedding|vocab).{0,30}(arguments?|dimensions?) (are )?swapped",
            r"sqrt\(d_model\)|scal\w+ (the )?embeddings?",
            r"(final|last) norm (is )?(missing|skipped|not applied|applied twice)",
        ),
        edits=(
            (
                "x = self.embedding(ids)",
                "x = F.one_hot(ids).float() @ self.embedding.weight",
            ),
        ),
        source=ONE_HOT_WIDTH,
    ),
    _c(
        "ntb-targets-one-short",
        L11,
        "next_token_batches",
        "gathers the windows with a list comprehension and stops each target slice one token "
        "early, tokens[s + 1 : s + block_size] instead of tokens[s + 1 : s + block_size + 1]: "
        "the inputs are right, but every row of targets has block_size - 1 tokens, so the "
        "last input of each window has no target.",
        (
            r"block_size - 1",
            r"targets?.{0,60}(one (token )?(too )?short|one token (too )?few|shorter)",
            r"(last|final) (input|position|token).{0,60}(no|without a|missing) target",
            r"s \+ block_size \+ 1",
            r"targets?.{0,40}\(\d+, \d+\).{0,40}(instead of|expected)",
        ),
        (
            r"without (the )?generator|global (random|rng)|ignor\w* (the )?generator",
            r"targets? (are|equal) the inputs|not shifted",
            r"\(block_size, batch_size\)|transposed",
            r"starts?.{0,40}(one short|never drawn|too (small|large))",
        ),
        code="""
def next_token_batches(tokens, block_size, batch_size, generator):
    starts = torch.randint(0, len(tokens) - block_size, (batch_size,), generator=generator)
    inputs = torch.stack([tokens[s : s + block_size] for s in starts])
    targets = torch.stack([tokens[s + 1 : s + block_size] for s in starts])
    return inputs, targets
""",
    ),
    _c(
        "rotary-halves-tables-on-adjacent-pairs",
        L11,
        "apply_rotary",
        "rotates adjacent pairs (rotate-every-two: x[2i], x[2i + 1]) but widens the half-width "
        "tables with torch.cat([cos, cos], -1), the rotate-half layout, instead of "
        "repeat_interleave(2, -1): the two features of a pair are turned by different "
        "angles (theta_2i and theta_2i+1 of the first half), so it is no longer a rotation.",
        (
            r"repeat_interleave",
            r"torch\.cat\(\[cos, cos\]|(cat|concatenat)\w* (the )?(tables|cos|angles)",
            r"(two|both) (features|components|halves) of (a|each|the) pair.{0,60}different angles?",
            r"(different|mismatched) angles?.{0,40}(within|inside|in) (a|each|the) pair",
            r"(layout|convention)s?.{0,40}(mix|mismatch|inconsistent)",
            r"(mix|mismatch)\w*.{0,40}(layouts?|conventions?)",
        ),
        (
            r"(minus|sign).{0,30}(wrong|missing|flipped)",
            r"(cos|sin) (and|&) (sin|cos) (are )?(swapped|exchanged)",
            r"(modif|overwrit)\w* (the )?caller'?s",
            r"(first|only) half (of the features )?(is )?rotated",
        ),
        code="""
def apply_rotary(x, cos, sin):
    cos = torch.cat([cos, cos], dim=-1).to(x.dtype)  # (len, d_head)
    sin = torch.cat([sin, sin], dim=-1).to(x.dtype)
    even, odd = x[..., 0::2], x[..., 1::2]
    rotated = torch.stack([-odd, even], dim=-1).flatten(-2)  # (-x1, x0, -x3, x2, ...)
    return x * cos + rotated * sin
""",
        source=REPEAT_NOT_INTERLEAVE,
    ),
    _c(
        "sample-top-p-cumsum-of-log-probs",
        L11,
        "sample",
        "sorts and accumulates log-probabilities (torch.log_softmax) for top-p instead of "
        "probabilities: every cumulative sum is 0 or negative, never reaches top_p, so no "
        "token is ever removed and top-p has no effect.",
        (
            r"log[- _]?(softmax|probs?|probabilit)",
            r"(cumulative|cumsum|running sum).{0,60}(negative|log)",
            r"(nothing|no token) (is )?(ever )?(removed|filtered|dropped)",
            r"top_p (has no effect|is ignored|does nothing|never (applies|removes))",
            r"never reach\w* top_p",
        ),
        (
            r"cumsum of (the )?(raw )?logits|logits themselves",
            r"(ascending|not (sorted )?descending)",
            r"gather\b.{0,40}scatter|scatter\b.{0,40}gather",
            r"(before|after) (the )?temperature",
            r"(crossing|crosses) (token|top_p).{0,30}(dropped|removed)",
        ),
        edits=(
            (
                "sorted_probs, order = torch.softmax(logits, dim=-1).sort(dim=-1, descending=True)",
                "sorted_probs, order = torch.log_softmax(logits, dim=-1).sort(dim=-1, "
                "descending=True)",
            ),
        ),
        source=CUMSUM_LOGPROBS,
    ),
    # ---- 12 inference ---------------------------------------------------------------------
    _c(
        "kvcache-returns-keys-as-values",
        L12,
        "KVCache",
        "a copy-paste slip in the return line: return self.keys[:, :, :stop], "
        "self.keys[:, :, :stop], so the values are stored but never returned: the second "
        "tensor that comes back holds the keys.",
        (
            r"(returns?|gives?|hands? back) (the )?keys (twice|in place of|instead of|as|for) (the )?values",
            r"values? (returned|that come back|you return)\w* (are|is|hold) (the )?keys",
            r"second (returned )?(tensor|element|item).{0,60}keys",
            r"return (line|statement).{0,60}keys",
            r"keys (are )?returned twice",
        ),
        (
            r"(writes?|stores?) (k_new|the (new )?keys?) (into|in) (the )?values",
            r"(values|v_new) (are |is )?never (stored|written)",
            r"\(values, keys\)|wrong order",
            r"(whole|entire|full) (max_len )?buffers?",
            r"length.{0,30}(not|never) advanc",
        ),
        edits=(
            (
                "return self.keys[:, :, :stop], self.values[:, :, :stop]",
                "return self.keys[:, :, :stop], self.keys[:, :, :stop]",
            ),
        ),
    ),
    _c(
        "generate-step-logits-discarded",
        L12,
        "generate",
        "assigns each decode step's logits to a new name that is never read (next_logits = "
        "model(next_id, ...)[:, -1]), so every step reuses the prefill's logits: the first "
        "greedy token is chosen again at every step and the same logits are recorded "
        "max_new_tokens times, although the caches fill up correctly.",
        (
            r"(same|prefill'?s?|first) (logits|token).{0,80}(every|each|all|repeated|again)",
            r"repeat\w* (the )?(first|same) token",
            r"logits? (are |is )?(never|not) updated",
            r"(discard|ignor|throw\w* away|unused)\w*.{0,60}(step'?s?|new|decode|model'?s?) logits",
            r"(step'?s?|new|decode) logits.{0,60}(discard|ignor|never (used|read)|unused|thrown away)",
            r"(output|result) of (the )?(model|decode|step).{0,40}(never|not) (used|read)",
        ),
        (
            r"\bstart\b.{0,40}(wrong|off by one|one too)",
            r"cache.{0,40}(empty|not used|never (filled|used))",
            r"argmax over the batch",
            r"(one|a) step late|after the step'?s? forward",
            r"(feeds?|runs?|passes) the (whole|entire) sequence",
        ),
        edits=(
            (
                "logits = model(next_id, caches=caches, start=length + step)[:, -1]",
                "next_logits = model(next_id, caches=caches, start=length + step)[:, -1]",
            ),
        ),
        source=STEP_LOGITS_DISCARDED,
    ),
    _c(
        "generate-unpacks-logits-loss",
        L12,
        "generate",
        "unpacks each call of the model as nanoGPT's (logits, loss) pair, logits, _ = "
        "model(...), although the model returns the logits tensor: unpacking iterates over "
        "the batch axis, so it raises (too many values to unpack) unless the batch has two "
        "sequences, and then 'logits' is the first sequence's table.",
        (
            r"\(logits, loss\)|logits, _ =",
            r"unpack\w*",
            r"(returns?|gives?) (only )?(the )?logits( tensor)?,? not (a )?(pair|tuple)",
            r"(pair|tuple).{0,40}(model|forward)",
            r"batch axis.{0,40}(unpack|split|iterat)",
        ),
        (
            r"\bstart\b.{0,40}(wrong|off by one|one too)",
            r"cache.{0,40}(empty|not used|never (filled|used))",
            r"argmax over the batch",
            r"\[:, -1\].{0,30}(missing|instead of)",
        ),
        edits=(
            (
                "logits = model(prompt, caches=caches, start=0)[:, -1]",
                "logits, _ = model(prompt, caches=caches, start=0)\n    logits = logits[:, -1]",
            ),
            (
                "logits = model(next_id, caches=caches, start=length + step)[:, -1]",
                "logits, _ = model(next_id, caches=caches, start=length + step)\n"
                "            logits = logits[:, -1]",
            ),
        ),
        source=LOGITS_LOSS_PAIR,
    ),
    _c(
        "gqa-queries-prescaled-twice",
        L12,
        "grouped_query_attention",
        "scales the queries by 1/sqrt(d_head) before calling lesson 04's "
        "scaled_dot_product_attention, which divides the scores by sqrt(d_head) again: the "
        "scores are divided by d_head instead of sqrt(d_head), so every head's weights are "
        "too flat.",
        (
            r"(scal|divid)\w*.{0,40}(twice|two times)",
            r"double[- ]scal|twice.{0,30}(scal|sqrt)",
            r"(scal|divid)\w*.{0,60}(again|already|a second time)",
            r"\bd_head\b (instead of|rather than|not) (by )?sqrt",
            r"(pre-?scal|scal\w+ the quer(y|ies))",
        ),
        (
            r"\btiles? (the )?(key|kv|heads)|h % num_kv_heads|repeat\b.{0,20}instead of repeat_interleave",
            r"mask.{0,40}(ignored|never applied|dropped|inverted)",
            r"(no|missing|without) (the )?scal(e|ing)|not divided by sqrt",
            r"group (size )?.{0,30}(wrong|inverted|swapped)",
            r"softmax over the (query|first) axis",
        ),
        edits=(
            (
                "output, _ = scaled_dot_product_attention(q, k, v, mask)",
                "q = q / math.sqrt(q.shape[-1])\n"
                "    output, _ = scaled_dot_product_attention(q, k, v, mask)",
            ),
        ),
        source=DOUBLE_SCALING,
    ),
    _c(
        "online-max-against-running-sum",
        L12,
        "online_softmax",
        "takes the new maximum as the larger of the block's maximum and the running SUM "
        "(torch.maximum(total, block.amax(-1))) instead of the running maximum: the shift is "
        "still applied consistently, so ordinary rows come out right, but on a row of large "
        "negative values the 'maximum' is the sum (0 or more), every exponential underflows "
        "to 0 and the row is NaN.",
        (
            r"running (sum|total).{0,60}(maximum|max\b)",
            r"(maximum|max\b).{0,60}(running (sum|total)|\btotal\b)",
            r"torch\.maximum\(total",
            r"(sum|total) (in place|instead) of the (running )?max",
        ),
        (
            r"(running )?max\w* (starts?|initiali[sz]ed) (at|to|with) 0",
            r"(sum|total) (is )?not rescaled",
            r"factor (is )?inverted|exp\(new_max - running_max\)",
            r"(last|shorter) block",
            r"(modif|overwrit)\w* (the caller'?s |x )|in[- ]place (on|to) x",
        ),
        edits=(
            (
                "new_max = torch.maximum(running_max, block.amax(dim=-1))",
                "new_max = torch.maximum(total, block.amax(dim=-1))",
            ),
        ),
        source=MAX_FROM_SUM,
    ),
    _c(
        "online-running-minimum",
        L12,
        "online_softmax",
        "tracks a running MINIMUM instead of a maximum (torch.minimum and block.amin, starting "
        "from +inf instead of -inf): the first rescaling of the sum is exp(inf - m) = inf, "
        "0 * inf is NaN, so every row comes back NaN (and even with that fixed, values far "
        "above the minimum would overflow).",
        (
            r"minimum|\bmin\b|amin",
            r"(smallest|lowest) (value|score)",
            r"(subtract|shift)\w* .{0,40}(minimum|smallest)",
            r"\+inf\b.{0,40}(instead of|not) -inf",
        ),
        (
            r"(sum|total) (is )?not rescaled",
            r"factor (is )?inverted",
            r"(last|shorter) block",
            r"(modif|overwrit)\w* (the caller'?s |x )|in[- ]place (on|to) x",
            r"(running )?max\w* (starts?|initiali[sz]ed) (at|to|with) 0",
        ),
        edits=(
            (
                'running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)',
                'running_max = torch.full(x.shape[:-1], float("inf"), dtype=x.dtype)',
            ),
            (
                "new_max = torch.maximum(running_max, block.amax(dim=-1))",
                "new_max = torch.minimum(running_max, block.amin(dim=-1))",
            ),
        ),
    ),
    _c(
        "tiled-max-without-trailing-axis",
        L12,
        "tiled_attention",
        "subtracts the new running maximum from the block's scores without a trailing axis, "
        "exp(scores - new_max) instead of new_max[..., None]: the (..., len_q) maxima "
        "broadcast against the block's key axis, so each key column is shifted by another "
        "query's maximum (a shape error unless len_q equals the block's width, then silently "
        "wrong).",
        (
            r"new_max.{0,60}(\[\.\.\., None\]|trailing|axis|unsqueez|broadcast)",
            r"(maximum|max\b).{0,80}(broadcast|without (a |the )?(trailing|new|last|key) axis|\[\.\.\., None\]|unsqueez)",
            r"broadcast\w* (against|along|over) the (key|block|last|column) axis",
            r"(another|other|wrong) query'?s? max",
        ),
        (
            r"correction.{0,40}(\[\.\.\., None\]|trailing axis)",
            r"(total|sum)\b.{0,40}(\[\.\.\., None\]|trailing axis)",
            r"(old|previous|running) max\w*.{0,40}(instead of|not) the new",
            r"1/sqrt\(d_k\).{0,30}(missing|not applied|wrong)",
            r"causal (mask|test).{0,30}(wrong|local|bottom)",
        ),
        edits=(
            (
                "weights = torch.exp(scores - new_max[..., None])",
                "weights = torch.exp(scores - new_max)",
            ),
        ),
    ),
    _c(
        "sliding-window-causal-tril-diagonal-one",
        L12,
        "sliding_window_mask",
        "builds the causal part itself by turning the blocked-future mask triu(ones, "
        "diagonal=1) into an allowed mask with tril but keeps diagonal=1, torch.tril(ones, "
        "diagonal=1): each query may also attend to the NEXT position (key i + 1), one token "
        "of the future, besides its window.",
        (
            r"(next|following) (key|position|token)",
            r"diagonal=1",
            r"(one|a) (key|position|token) (in the future|ahead|after)",
            r"i \+ 1",
            r"future",
            r"(above|past) the diagonal",
        ),
        (
            r"(itself|the query) (is )?(left out|excluded)",
            r"transpos\w* (mask|band)|mask (is )?transposed",
            r"complement|inverted|True = blocked",
            r"symmetric|both sides|\|i - j\|",
            r"(float|uint8|0/1) (mask|tensor) instead of (a )?bool",
        ),
        edits=(
            (
                "return look_ahead_mask(size) & recent",
                "causal = torch.tril(torch.ones(size, size, dtype=torch.bool), diagonal=1)\n"
                "    return causal & recent",
            ),
        ),
        source=TRIL_TRIU,
    ),
]
