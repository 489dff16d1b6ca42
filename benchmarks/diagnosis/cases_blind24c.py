"""Held-out wrong answers, blind round 24 (helper b24c, 2026-11-29, lessons 11-12): mistakes new to
the benchmark, written blind (no check module, no message read) while fix round 26 changed
the checks, to measure how the diagnoses generalise to mistakes nobody here has seen
(``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L11, L12 = "11_language_model", "12_inference"

_c = held_out_authored("blind24c")

# Where these mistakes are reported (each page was read for this batch).
SHUFFLED_ROWS = "https://github.com/pytorch/torchtitan/issues/635"
READS_PAST_END = "https://github.com/AOSSIE-Org/OpenVerifiableLLM/pull/92"
FLATTENED_ROWS = "https://github.com/linkedin/Liger-Kernel/pull/255"
ROTARY_IN_PLACE = "https://github.com/lucidrains/rotary-embedding-torch/pull/31"
PROJECTION_REUSE = "https://github.com/stevezheng23/sequence_labeling_tf/pull/81"
HEADS_PERMUTED = "https://github.com/gazelle93/Transformer-Various-Positional-Encoding/issues/1"
NO_RESIDUAL = "https://github.com/tensorflow/models/issues/7533"
FINAL_LAYERNORM = "https://github.com/karpathy/nanoGPT/pull/454"
SCALE_AFTER_LOOKUP = "https://github.com/tensorflow/tensor2tensor/issues/1718"
ZERO_INIT = "https://github.com/karpathy/minGPT/pull/62"
TOP_P_ONE_ROW = "https://github.com/huggingface/transformers/pull/1333"
OFFSET_MOVED = "https://github.com/ml-explore/mlx-lm/issues/1699"
CACHE_ORDER = "https://github.com/huggingface/transformers/issues/35684"
CAUSAL_WHEN_NO_MASK = "https://github.com/open-lm-engine/lm-engine/pull/498"
SLOT_LATE = "https://lynx-cortex.pages.dev/phase-22-kv-cache/break/00-break-kv-cache-off-by-one/"
OUT_BUFFER = "https://github.com/jzhang38/TinyLlama/issues/188"

BLIND24C: list[Case] = [
    # ---- 11 next_token_batches -------------------------------------------------------------
    _c(
        "ntb-windows-from-shuffled-stream",
        L11,
        "next_token_batches",
        "shuffles the token stream itself (tokens[torch.randperm(len(tokens), generator=...)]) "
        "before cutting the windows, so the tokens of a window are no longer consecutive in "
        "the text and each target is a random token instead of the one that follows its "
        "input; the permutation also uses up the generator before the starts are drawn.",
        (
            r"shuffl",
            r"permut",
            r"(not|no longer|aren't|are not) (consecutive|contiguous|in (text |their )?order)",
            r"order of the (tokens|stream|text)",
        ),
        (
            r"targets? (are |is )?(shifted |taken )?two (tokens |positions )?ahead",
            r"(global|default) random (stream|generator|state)",
            r"last (possible )?start",
            r"inputs? and targets? (are )?swapped",
        ),
        code="""
def next_token_batches(tokens, block_size, batch_size, generator):
    shuffled = tokens[torch.randperm(len(tokens), generator=generator)]
    starts = torch.randint(0, len(shuffled) - block_size, (batch_size,), generator=generator)
    positions = starts[:, None] + torch.arange(block_size)
    return shuffled[positions], shuffled[positions + 1]
""",
        source=SHUFFLED_ROWS,
    ),
    _c(
        "ntb-window-offsets-from-one",
        L11,
        "next_token_batches",
        "builds the window offsets with torch.arange(1, block_size + 1) instead of "
        "torch.arange(block_size), so every window begins one token after its drawn start "
        "(inputs tokens[s + 1 : s + block_size + 1]): token 0 is never an input and the "
        "largest start reads one token past the end of the stream (an IndexError).",
        (
            r"arange\(1",
            r"(one|1) (token|position|place) (too )?(late|after|further|to the right)",
            r"(offsets?|positions?|windows?) (start|begin)\w* (at|from) (1|one|s ?\+ ?1)",
            r"shifted (right |forward )?by one",
            r"off[- ]by[- ]one",
        ),
        (
            r"targets? (are |is )?the same as (the )?inputs?",
            r"inputs? and targets? (are )?swapped",
            r"(global|default) random",
            r"size parameters",
        ),
        edits=(("torch.arange(block_size)", "torch.arange(1, block_size + 1)"),),
        source=READS_PAST_END,
    ),
    # ---- 11 RMSNorm ----------------------------------------------------------------------
    _c(
        "rms-flattened-rows-returned",
        L11,
        "RMSNorm",
        "flattens the input to (tokens, d_model) rows to normalise them and returns that 2-D "
        "tensor without reshaping it back, so a (batch, len, d_model) input comes back "
        "(batch * len, d_model); the values themselves are right.",
        (
            r"reshap\w* (it |the result )?back|restor\w* the (input'?s? )?shape|original shape",
            r"flatten",
            r"(leading|batch|sequence) (axes|axis|dimensions?) (are |is )?(merged|flattened|lost)",
            r"shape \(\d+, \d+\)",
            r"two[- ]dimensional|2-?d (tensor|output)",
        ),
        (
            r"mean (square )?(is )?(taken )?over (the )?(whole tensor|all axes|every axis)",
            r"(wrong|first|sequence) axis",
            r"eps (is )?(outside|missing)",
            r"gain (is )?(applied|initiali[sz]ed|missing|before)",
        ),
        code="""
class RMSNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))

    def forward(self, x):
        rows = x.reshape(-1, x.shape[-1])  # (tokens, d_model)
        mean_square = rows.pow(2).mean(dim=-1, keepdim=True)
        return rows * torch.rsqrt(mean_square + self.eps) * self.weight
""",
        source=FLATTENED_ROWS,
    ),
    # ---- 11 rotary_embedding -------------------------------------------------------------
    _c(
        "rope-frequencies-in-reverse-order",
        L11,
        "rotary_embedding",
        "lists the frequencies in reverse order (exponents -(d_head - 2) / d_head, ..., 0 from "
        "torch.arange(d_head - 2, -1, -2)), so column i holds theta_(d_head/2 - 1 - i): the "
        "first pair turns slowest and the last pair one radian per position.",
        (
            r"revers",
            r"(frequenc\w*|columns?|thetas?) (are |is )?(in the )?(wrong|opposite|reversed) order",
            r"flip",
            r"(first|column 0|pair 0) .{0,30}(slowest|lowest frequency)",
            r"(last|final) (pair|column) .{0,30}(fastest|highest frequency|one radian)",
        ),
        (
            r"(no|without|missing|forg\w*) (the )?factor (of )?(2|two)",
            r"positions? (start|count\w*|from) (at )?1",
            r"\((sin|cos), (cos|sin)\) (are |is )?swapped|swapp\w* cos and sin",
            r"base (is )?inverted|positive exponent",
        ),
        edits=(
            (
                "-torch.arange(0, d_head, 2, dtype=torch.float64)",
                "-torch.arange(d_head - 2, -1, -2, dtype=torch.float64)",
            ),
        ),
    ),
    # ---- 11 apply_rotary -----------------------------------------------------------------
    _c(
        "rot-first-half-rotated-in-place",
        L11,
        "apply_rotary",
        "rotates the first half with in-place methods on a view of x, a.mul_(cos).sub_(b * sin): "
        "x's first half is overwritten, and the second half's a * sin + b * cos then reads the "
        "already rotated a, so the second half is wrong and the caller's queries or keys "
        "are modified.",
        (
            r"in[- ]place",
            r"mul_|sub_",
            r"(modif|overwr|chang|mutat)\w* (the )?(input|x\b|caller|quer|keys?)",
            r"(second|other) half .{0,30}(already[- ])?rotated",
        ),
        (
            r"sign (is )?(flipped|wrong)|rotat\w* backwards",
            r"(cos|sin) and (sin|cos) (are )?swapped",
            r"adjacent pairs",
            r"(tables|angles) (are )?not (cast|converted)",
        ),
        code="""
def apply_rotary(x, cos, sin):
    half = x.shape[-1] // 2
    cos, sin = cos.to(x.dtype), sin.to(x.dtype)
    a, b = x[..., :half], x[..., half:]
    first = a.mul_(cos).sub_(b * sin)
    second = a * sin + b * cos
    return torch.cat([first, second], dim=-1)
""",
        source=ROTARY_IN_PLACE,
    ),
    _c(
        "rot-output-buffer-never-filled",
        L11,
        "apply_rotary",
        "allocates out = torch.empty_like(x), takes its halves o1, o2 = out.chunk(2, dim=-1) "
        "and then rebinds those names to the rotated halves (o1 = a * cos - b * sin) instead "
        "of writing into them (o1.copy_(...) or o1[...] = ...): out is never filled, so "
        "uninitialised memory is returned instead of the rotated x.",
        (
            r"(never|not) (filled|written|assigned)",
            r"empty_like|uninitiali[sz]ed|garbage",
            r"rebind|rebound|(assign\w*|bind\w*) (to )?(the )?names?",
            r"copy_|o1\[\.\.\.\]",
        ),
        (
            r"sign (is )?(flipped|wrong)|rotat\w* backwards",
            r"(cos|sin) and (sin|cos) (are )?swapped",
            r"adjacent pairs",
            r"in[- ]place|modif\w* (the )?(input|x\b)",
        ),
        code="""
def apply_rotary(x, cos, sin):
    half = x.shape[-1] // 2
    cos, sin = cos.to(x.dtype), sin.to(x.dtype)
    a, b = x[..., :half], x[..., half:]
    out = torch.empty_like(x)
    o1, o2 = out.chunk(2, dim=-1)
    o1 = a * cos - b * sin
    o2 = a * sin + b * cos
    return out
""",
        source=OUT_BUFFER,
    ),
    # ---- 11 SwiGLU -----------------------------------------------------------------------
    _c(
        "swiglu-mish-gate",
        L11,
        "SwiGLU",
        "gates with Mish, F.mish(w1(x)) = w1(x) * tanh(softplus(w1(x))), instead of SiLU, "
        "w1(x) * sigmoid(w1(x)): every hidden value differs.",
        (
            r"mish",
            r"(not|instead of|rather than) (the )?(silu|swish|x ?\* ?sigmoid)",
            r"(wrong|another|a different|other) activation",
            r"activation (is |was )?(not|isn't) (the )?(silu|swish)",
        ),
        (
            r"silu (is )?(applied )?(to|on) (the )?(value|w3|product|input)",
            r"w1 and w3 (are )?swapped|gate and value (are )?swapped",
            r"(extra|unexpected) bias|with (a )?bias",
            r"w2 .{0,20}(missing|not applied)",
        ),
        edits=(("F.silu(self.w1(x))", "F.mish(self.w1(x))"),),
    ),
    # ---- 11 CausalSelfAttention ----------------------------------------------------------
    _c(
        "csa-values-from-key-projection",
        L11,
        "CausalSelfAttention",
        "projects the values with w_k (a copy-paste slip: v = split_heads(self.w_k(x), ...)), "
        "so the values are the keys before rotation and w_v is never used.",
        (
            r"w_k .{0,30}values?",
            r"values? .{0,40}(w_k|key projection)",
            r"w_v (is )?(never|not) used|w_v .{0,20}unused",
            r"values? (are|equal) (the )?(unrotated )?keys",
        ),
        (
            r"(rotat\w*|rope) (to |on )?(the )?values",
            r"keys? (are )?not rotated",
            r"mask (is )?(missing|inverted|ignored|not applied)",
            r"(missing|wrong|no) scal(e|ing)|sqrt\(d_(head|model)\)",
            r"w_q .{0,20}keys|keys .{0,20}w_q",
        ),
        edits=(
            (
                "v = split_heads(self.w_v(x), self.num_heads)",
                "v = split_heads(self.w_k(x), self.num_heads)",
            ),
        ),
        source=PROJECTION_REUSE,
    ),
    _c(
        "csa-heads-joined-feature-major",
        L11,
        "CausalSelfAttention",
        "joins the heads with heads.permute(0, 2, 3, 1).reshape(...) instead of merge_heads: "
        "the feature axis goes before the heads axis, so the concatenated features are "
        "interleaved (feature j of every head side by side) instead of head 0's d_head "
        "features, then head 1's, and w_o reads them in the wrong order.",
        (
            r"permut",
            r"interleav",
            r"(heads?|features?) (are |is )?(in the wrong order|mixed|shuffled|scrambled)",
            r"merge_heads",
            r"concatenat\w* (the )?heads? .{0,20}wrong",
        ),
        (
            r"(without|no|missing) (the )?transpose",
            r"mask (is )?(missing|inverted|ignored|not applied)",
            r"(missing|wrong|no) scal(e|ing)|sqrt\(d_(head|model)\)",
            r"rotat\w* (the )?values",
        ),
        edits=(
            (
                "return self.w_o(merge_heads(heads))",
                "return self.w_o(heads.permute(0, 2, 3, 1).reshape(x.shape))",
            ),
        ),
        source=HEADS_PERMUTED,
    ),
    # ---- 11 DecoderBlock -----------------------------------------------------------------
    _c(
        "block-sublayers-chained-no-residuals",
        L11,
        "DecoderBlock",
        "chains the four sublayers one after the other (norm1, attn, norm2, feed_forward) with "
        "no residual connection at all: the block returns feed_forward(norm2(attn(norm1(x)))) "
        "instead of adding each sublayer's output back to its input.",
        (
            r"(no|without|missing|forg\w*|drops?) (both |the |any )?(of the )?residual",
            r"residual (connections? )?(are |is )?(missing|absent|dropped)",
            r"(neither|none of the|both) .{0,20}residual",
            r"skip connections?",
        ),
        (
            r"post-?norm",
            r"(second|feed-forward) residual (starts|adds|from) (from )?(x|the input)",
            r"norm1 (is )?(used|shared) (twice|for both)",
            r"(only|just) (the )?(first|attention|second|feed-forward) residual",
        ),
        code="""
class DecoderBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, eps=1e-5):
        super().__init__()
        self.norm1 = RMSNorm(d_model, eps)
        self.attn = CausalSelfAttention(d_model, num_heads)
        self.norm2 = RMSNorm(d_model, eps)
        self.feed_forward = SwiGLU(d_model, d_ff)

    def forward(self, x):
        for sublayer in (self.norm1, self.attn, self.norm2, self.feed_forward):
            x = sublayer(x)
        return x
""",
        source=NO_RESIDUAL,
    ),
    # ---- 11 GPT --------------------------------------------------------------------------
    _c(
        "gpt-final-norm-layernorm",
        L11,
        "GPT",
        "makes the final norm nn.LayerNorm(d_model) (nanoGPT's ln_f) instead of RMSNorm: it "
        "subtracts each token's mean and has a bias (an extra key norm.bias), so the logits "
        "differ.",
        (
            r"layer ?norm",
            r"norm\.bias",
            r"(subtract|centr|remov)\w* (the |each token'?s )?mean",
            r"final norm (is )?(not|isn't) (an )?rms ?norm",
        ),
        (
            r"(untied|separate|own) (output|head|lm_head)",
            r"(no|missing|without) (the )?final norm",
            r"(embedding|std) .{0,20}0\.02",
            r"(one|same) block (repeated|shared)|blocks? (in )?(reverse|wrong order)",
        ),
        edits=(
            ("self.norm = RMSNorm(d_model, eps)", "self.norm = nn.LayerNorm(d_model, eps=eps)"),
        ),
        source=FINAL_LAYERNORM,
    ),
    _c(
        "gpt-embeddings-scaled-in-forward",
        L11,
        "GPT",
        "leaves the embedding at nn.Embedding's default N(0, 1) initialisation and multiplies "
        "the looked-up vectors by 0.02 in forward instead of initialising the weight with "
        "standard deviation 0.02: the tied output layer then multiplies by weights about 50 "
        "times too large.",
        (
            r"0\.02",
            r"(std|standard deviation) (of |is )?(about )?1\b",
            r"(init\w*|weight) .{0,40}(std|standard deviation)",
            r"default (init\w*|N\(0, ?1\))",
            r"scal\w* .{0,30}(in|inside) forward",
        ),
        (
            r"sqrt\(d_model\)|square root of d_model",
            r"(untied|separate) (output|head)",
            r"(no|missing) final norm",
            r"layer ?norm",
        ),
        edits=(
            ("nn.init.normal_(self.embedding.weight, std=0.02)", "pass"),
            ("x = self.embedding(ids)", "x = self.embedding(ids) * 0.02"),
        ),
        source=SCALE_AFTER_LOOKUP,
    ),
    _c(
        "gpt-embedding-initialised-to-zero",
        L11,
        "GPT",
        "initialises the embedding with zeros (nn.init.zeros_) instead of a normal distribution "
        "with standard deviation 0.02: every token starts with the same (zero) vector and the "
        "tied output gives all-zero logits.",
        (
            r"zeros?",
            r"(all|every) (the )?(embedding|token)s? .{0,30}(same|identical|equal)",
            r"(std|standard deviation) (of |is )?0\b|std 0\.0\b",
            r"0\.02",
        ),
        (
            r"(untied|separate) (output|head)",
            r"(no|missing) final norm",
            r"layer ?norm",
            r"sqrt\(d_model\)",
        ),
        edits=(
            (
                "nn.init.normal_(self.embedding.weight, std=0.02)",
                "nn.init.zeros_(self.embedding.weight)",
            ),
        ),
        source=ZERO_INIT,
    ),
    # ---- 11 sample -----------------------------------------------------------------------
    _c(
        "sample-top-p-ids-index-rows",
        L11,
        "sample",
        "maps the nucleus back with the single-sequence recipe logits[order[remove_sorted]] = "
        "-inf: order[remove_sorted] is a flat list of vocabulary ids, which then index "
        "logits' first axis, the batch rows, so it raises an IndexError or blanks whole rows "
        "instead of removing those tokens from their own row.",
        (
            r"(batch|first) (axis|dimension|rows?) .{0,40}(vocab\w*|token) (ids|indices)",
            r"(vocab\w*|token) (ids|indices) .{0,40}(rows?|batch axis|first axis)",
            r"index\w* (the )?(batch )?rows",
            r"scatter",
            r"(its|their) own rows?",
        ),
        (
            r"crossing token",
            r"(keep|keeps|kept) (at least )?one token|guard",
            r"temperature (is )?(applied|divid\w*) (after|twice|to the probabilities)",
            r"top[- ]?k .{0,30}(threshold|keeps|ties)",
        ),
        edits=(
            (
                "remove = remove_sorted.scatter(-1, order, remove_sorted)",
                "logits = logits.clone()\n        logits[order[remove_sorted]] = -math.inf",
            ),
            (
                'logits = logits.masked_fill(remove, float("-inf"))',
                "pass",
            ),
        ),
        source=TOP_P_ONE_ROW,
    ),
    _c(
        "sample-renormalised-without-keepdim",
        L11,
        "sample",
        "renormalises the kept probabilities with probs / probs.sum(dim=-1) without keepdim, "
        "so the (batch,) sums broadcast along the vocabulary axis: right for one row, an "
        "error (or a wrong division when batch equals the vocabulary size) for batches of "
        "several rows.",
        (
            r"keepdim",
            r"broadcast",
            r"(sum|total)s? .{0,40}(vocab\w*|last) (axis|dimension)",
            r"batch(es)? (of|with) (more than one|several|two|2)|more than one row",
        ),
        (
            r"temperature (is )?(applied|divid\w*) (after|twice|to the probabilities)",
            r"top[- ]?p .{0,30}(crossing|drops|cutoff)",
            r"top[- ]?k .{0,30}(threshold|keeps|ties)",
            r"(global|default) random",
        ),
        edits=(
            (
                "probs = torch.softmax(logits, dim=-1)",
                "probs = torch.softmax(logits, dim=-1)\n    probs = probs / probs.sum(dim=-1)",
            ),
        ),
    ),
    # ---- 12 KVCache ----------------------------------------------------------------------
    _c(
        "kv-length-advanced-by-each-store",
        L12,
        "KVCache",
        "stores the keys and the values through one helper that advances self.length each "
        "time it writes, so every call advances it twice: the values land n positions after "
        "their keys, the returned tensors hold 2n positions per n new ones, and the cache "
        "is full (ValueError) at half its capacity.",
        (
            r"twice",
            r"(two|2) ?(times|x|n)\b",
            r"values? (are |were )?(stored|written|land\w*) .{0,40}(after|later|offset|wrong position)",
            r"length (grows|advances|increases) by 2|doubl",
        ),
        (
            r"(never|not) advanc",
            r"whole buffer",
            r"persistent (buffers?|=)",
            r"values first",
            r"(one|single) sequence",
        ),
        code="""
class KVCache(nn.Module):
    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
        super().__init__()
        shape = (batch, num_heads, max_len, d_head)
        self.register_buffer("keys", torch.zeros(shape, dtype=dtype), persistent=False)
        self.register_buffer("values", torch.zeros(shape, dtype=dtype), persistent=False)
        self.length = 0

    def _store(self, buffer, new):
        stop = self.length + new.shape[-2]
        if stop > buffer.shape[-2]:
            raise ValueError(f"the cache holds {buffer.shape[-2]} positions, not {stop}")
        buffer[:, :, self.length : stop] = new
        self.length = stop

    def forward(self, k_new, v_new):
        self._store(self.keys, k_new)
        self._store(self.values, v_new)
        return self.keys[:, :, : self.length], self.values[:, :, : self.length]
""",
        source=OFFSET_MOVED,
    ),
    _c(
        "kv-new-positions-put-first",
        L12,
        "KVCache",
        "puts each call's new keys and values in front of the ones already held "
        "(torch.cat([k_new, old])), so the positions come back newest first instead of in "
        "order: after a prefill of the prompt and one step, [new, 0, 1, ...].",
        (
            r"(newest|latest|new (ones|positions|keys)) (first|in front|before|at the (start|front|beginning))",
            r"prepend",
            r"(reverse|wrong) order|out of order",
            r"not in (the )?order",
        ),
        (
            r"(never|not) advanc",
            r"whole buffer",
            r"(overwrit|writes?) .{0,20}position 0",
            r"values first",
            r"persistent (buffers?|=)",
        ),
        code="""
class KVCache(nn.Module):
    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
        super().__init__()
        shape = (batch, num_heads, max_len, d_head)
        self.register_buffer("keys", torch.zeros(shape, dtype=dtype), persistent=False)
        self.register_buffer("values", torch.zeros(shape, dtype=dtype), persistent=False)
        self.length = 0

    def forward(self, k_new, v_new):
        stop = self.length + k_new.shape[-2]
        if stop > self.keys.shape[-2]:
            raise ValueError(f"the cache holds {self.keys.shape[-2]} positions, not {stop}")
        old_k = self.keys[:, :, : self.length].clone()
        old_v = self.values[:, :, : self.length].clone()
        self.keys[:, :, :stop] = torch.cat([k_new, old_k], dim=2)
        self.values[:, :, :stop] = torch.cat([v_new, old_v], dim=2)
        self.length = stop
        return self.keys[:, :, :stop], self.values[:, :, :stop]
""",
        source=CACHE_ORDER,
    ),
    _c(
        "kv-written-one-slot-late",
        L12,
        "KVCache",
        "writes the n new keys and values into slots start + 1 .. stop instead of start .. "
        "stop - 1 (one slot late) while returning slots 0 .. stop - 1: the returned tensors "
        "hold an empty (zero) slot where the first position should be and lack the newest "
        "one, and a call that fills the cache to max_len does not fit (shape mismatch).",
        (
            r"(one|1) (slot|position|place) (too )?(late|far|ahead|to the right|after)",
            r"start ?\+ ?1",
            r"off[- ]by[- ]one",
            r"(first|slot 0|position 0) .{0,40}(zero|empty|never written)",
            r"(newest|last|latest) (position|key|slot)s? .{0,30}(missing|not returned|dropped|lost)",
        ),
        (
            r"(never|not) advanc",
            r"whole buffer",
            r"persistent (buffers?|=)",
            r"values first",
            r"(one|single) sequence",
        ),
        edits=(
            (
                "self.keys[:, :, start:stop] = k_new",
                "self.keys[:, :, start + 1 : stop + 1] = k_new",
            ),
            (
                "self.values[:, :, start:stop] = v_new",
                "self.values[:, :, start + 1 : stop + 1] = v_new",
            ),
        ),
        source=SLOT_LATE,
    ),
    # ---- 12 generate ---------------------------------------------------------------------
    _c(
        "gen-last-prompt-token-one-position-late",
        L12,
        "generate",
        "prefills all but the prompt's last token, then runs that last token at start=length "
        "instead of length - 1 (its own position), and every generated token one position "
        "later too: from the prompt's last token on, queries and keys are rotated one "
        "position too far, leaving a gap after position length - 2.",
        (
            r"(one|1) position (too )?(late|far|ahead|further)",
            r"length ?- ?1",
            r"\bgap\b",
            r"(last prompt token|prompt'?s last token) .{0,60}(position|start)",
            r"off[- ]by[- ]one",
        ),
        (
            r"(whole|entire) sequence (at )?(each|every) step",
            r"(fresh|new) caches",
            r"logits? .{0,20}(one step )?late",
            r"(prefill|prompt) (without|not through|outside) the cache",
        ),
        code="""
@torch.no_grad()
def generate(model, prompt, max_new_tokens):
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    if length > 1:
        model(prompt[:, :-1], caches=caches, start=0)
    logits = model(prompt[:, -1:], caches=caches, start=length)[:, -1]
    ids, steps = prompt, []
    for step in range(max_new_tokens):
        steps.append(logits)
        next_id = logits.argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
        if step + 1 < max_new_tokens:
            logits = model(next_id, caches=caches, start=length + step + 1)[:, -1]
    return ids, torch.stack(steps, dim=1)
""",
    ),
    # ---- 12 grouped_query_attention ------------------------------------------------------
    _c(
        "gqa-causal-when-no-mask",
        L12,
        "grouped_query_attention",
        "calls F.scaled_dot_product_attention(..., is_causal=mask is None, enable_gqa=True): "
        "a call without a mask gets a causal mask (query i sees keys 0 .. i only) instead of "
        "attending to every key.",
        (
            r"is_causal",
            r"causal .{0,60}(without|no|none|mask is none|mask=none)",
            r"(without|no) (a )?mask .{0,60}(causal|only|earlier|later|future|restrict|hid)",
            r"mask=None .{0,60}(mask|restrict|only)",
        ),
        (
            r"tile|repeat\b|modulo|h ?% ?num_kv",
            r"(missing|wrong|no) scal(e|ing)|sqrt\(d_(head|model)\)",
            r"(mask|true) (is )?inverted",
            r"softmax over (the )?(query|first)",
        ),
        code="""
def grouped_query_attention(q, k, v, mask=None):
    return torch.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=mask, is_causal=mask is None, enable_gqa=True
    )
""",
        source=CAUSAL_WHEN_NO_MASK,
    ),
    # ---- 12 online_softmax ---------------------------------------------------------------
    _c(
        "online-first-block-never-summed",
        L12,
        "online_softmax",
        "starts the running maximum from the first block's maximum and loops from the second "
        "block, but starts the running sum at zero, so the first block's exponentials are "
        "never added: the rows sum to more than 1 (a division by zero when the row is one "
        "block).",
        (
            r"first block",
            r"sums? (to )?(more|greater) than 1|sums? .{0,20}(exceed|above) 1",
            r"(never|not) (added|counted|summed|included)",
            r"(total|sum) (starts|initiali[sz]ed) (at|to|with) (zero|0)",
        ),
        (
            r"(not|never) rescal",
            r"last (partial )?block",
            r"(running )?max(imum)? (starts|initiali[sz]ed) (at|to) (zero|0)",
            r"correction (factor )?(is )?inverted",
        ),
        code="""
def online_softmax(x, block_size):
    running_max = x[..., :block_size].amax(dim=-1)
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    for start in range(block_size, x.shape[-1], block_size):
        block = x[..., start : start + block_size]
        new_max = torch.maximum(running_max, block.amax(dim=-1))
        total = total * torch.exp(running_max - new_max) + torch.exp(
            block - new_max[..., None]
        ).sum(dim=-1)
        running_max = new_max
    return torch.exp(x - running_max[..., None]) / total[..., None]
""",
    ),
    # ---- 12 tiled_attention --------------------------------------------------------------
    _c(
        "tiled-correction-without-trailing-axis",
        L12,
        "tiled_attention",
        "multiplies the accumulated output by correction without a trailing axis (acc * "
        "correction instead of correction[..., None]): the (..., len_q) factors broadcast "
        "along the value features, so each feature column is rescaled by another query's "
        "factor when the shapes happen to line up (one unbatched query block with len_q == "
        "d_v), and the shapes clash (a RuntimeError) otherwise.",
        (
            r"\[\.\.\., ?None\]|unsqueeze|trailing axis|new axis",
            r"broadcast",
            r"(feature|column)s? .{0,40}(another|other|wrong) quer",
            r"correction .{0,40}(shape|axis)",
        ),
        (
            r"(not|never) rescal\w* (the )?(acc|output|accumulat)",
            r"(total|sum) (is )?(not|never) rescal",
            r"causal (mask|positions?) .{0,30}(wrong|local|bottom|diagonal)",
            r"(missing|wrong|no) scal(e|ing)|scaled by",
            r"(final|last) divi",
        ),
        edits=(("acc = acc * correction[..., None]", "acc = acc * correction"),),
    ),
    # ---- 12 sliding_window_mask ----------------------------------------------------------
    _c(
        "sw-look-ahead-mask-negated",
        L12,
        "sliding_window_mask",
        "negates lesson 06's look_ahead_mask, taking it for a mask of blocked (future) "
        "positions: ~look_ahead_mask(size) & recent keeps only the keys after each query "
        "(all of them, since the band has no upper edge), and no query sees itself or its "
        "past.",
        (
            r"look_ahead_mask .{0,60}(true|allowed|may attend|convention)",
            r"(negat|invert)\w* (the )?(look.ahead|causal)",
            r"(future|later) (keys|positions)",
            r"(not|never|cannot) (see|attend\w*) (to )?(itself|the diagonal|its past|earlier)",
        ),
        (
            r"window (is )?(one )?too (wide|narrow)|window ?\+ ?1|window ?- ?1",
            r"both sides",
            r"float (mask|dtype)|not (a )?bool",
            r"(mask|band) (is )?transposed",
        ),
        edits=(
            ("return look_ahead_mask(size) & recent", "return ~look_ahead_mask(size) & recent"),
        ),
    ),
]
