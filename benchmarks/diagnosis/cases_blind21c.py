"""Held-out wrong answers, blind round 21 (helper b21c, 2026-11-28, lessons 11-12): mistakes new to
the benchmark, written blind (no check module, no message read) while fix round 23 changed
the checks, to measure how the diagnoses generalise to mistakes nobody here has seen
(``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L11, L12 = "11_language_model", "12_inference"

_c = held_out_authored("blind21c")

# Where these mistakes are reported (each page was read for this batch).
CHUNKED_WINDOWS = "https://github.com/karpathy/build-nanogpt/issues/22"
SEQUENTIAL_PARTITION = "https://github.com/d2l-ai/d2l-zh/pull/1337"
RMS_UNDER_ROOT = "https://github.com/pytorch/pytorch/issues/139274"
LOG_SPACE_DIV_TERM = "https://github.com/pytorch/tutorials/issues/1778"
FREQS_CIS_POLAR = "https://github.com/thelonejordan/deeplearning.scratchpad (models/llama/rope.py)"
GLU_NO_DENSE = "https://github.com/Rishit-dagli/GLU/issues/2"
LAYER_SCALE = "https://github.com/facebookresearch/deit/issues/122"
TOP_P_BATCH = "https://github.com/huggingface/transformers/pull/1333"
MIN_TOKENS_END = "https://github.com/aburkov/theLMbook/issues/18"
PREFILL_FIRST_TOKEN = "https://github.com/1bit-MONSTER/1bit-MONSTER/issues/686"
CLAMP_TO_CACHE = "https://github.com/rsxdalv/chatterbox/issues/4"
POSITION_POINTER = "https://github.com/corybaird/Lectures (src/gpt/gpt_kvcache.py)"
ONE_KV_HEAD = "https://github.com/lucidrains/MEGABYTE-pytorch/issues/13"
FIRST_ELEMENT_INIT = "https://github.com/MrChen314/flash-attention (online softmax notebook)"
FULLY_MASKED_NAN = "https://github.com/tracel-ai/burn/pull/4697"
LOOK_BACKWARD = "https://github.com/lucidrains/local-attention"
ODD_EXPONENTS = "https://github.com/maxjcohen/transformer/issues/62"
DEFAULT_TOP_K = "https://github.com/vllm-project/tpu-inference/issues/1386"

BLIND21C: list[Case] = [
    # ---- 11 language model: next_token_batches -------------------------------------------
    _c(
        "batches-non-overlapping-chunks",
        L11,
        "next_token_batches",
        "cuts the stream into non-overlapping chunks of block_size tokens (the GPT-2 data "
        "loader's stride of block_size) and draws chunk numbers, starts = "
        "torch.randint(0, (len(tokens) - 1) // block_size, ...) * block_size, so every window "
        "starts at a multiple of block_size instead of at any position from 0 to "
        "num_tokens - block_size - 1.",
        (
            r"multiples? of block_size",
            r"non-?overlapping",
            r"chunk",
            r"stride",
            r"(any|every) (start|position|offset)",
            r"randint\(0, len\(tokens\) - block_size",
        ),
        (
            r"generator",
            r"one (place|position) (short|too)",
            r"(shift|target)\w* .{0,40}(wrong|not shifted|same as)",
            r"dtype|int64|float",
        ),
        edits=(
            (
                "starts = torch.randint(0, len(tokens) - block_size, (batch_size,), "
                "generator=generator)",
                "num_chunks = (len(tokens) - 1) // block_size\n"
                "    starts = torch.randint(0, num_chunks, (batch_size,), generator=generator) "
                "* block_size",
            ),
        ),
        source=CHUNKED_WINDOWS,
    ),
    _c(
        "batches-one-offset-consecutive-windows",
        L11,
        "next_token_batches",
        "partitions the stream sequentially, as d2l's loader does: draws ONE random offset "
        "below block_size and takes batch_size consecutive windows from it (starts = offset + "
        "arange(batch_size) * block_size), so the rows are neighbouring windows instead of "
        "batch_size independent random starts.",
        (
            r"(one|single|same) (random )?(offset|start|draw)",
            r"consecutive|sequential|neighbou?ring|adjacent",
            r"independent",
            r"(each|every) (row|window)s? .{0,40}(own|random|independent)",
            r"batch_size (random )?starts",
        ),
        (
            r"generator",
            r"(shift|target)\w* .{0,40}(wrong|not shifted)",
            r"dtype|int64|float",
            r"all (rows|windows) (are )?(the same|identical)",
        ),
        edits=(
            (
                "starts = torch.randint(0, len(tokens) - block_size, (batch_size,), "
                "generator=generator)",
                "offset = torch.randint(0, block_size, (1,), generator=generator)\n"
                "    starts = offset + torch.arange(batch_size) * block_size",
            ),
        ),
        source=SEQUENTIAL_PARTITION,
    ),
    # ---- 11: RMSNorm ------------------------------------------------------------------------
    _c(
        "rms-root-of-root-mean-square",
        L11,
        "RMSNorm",
        "reads the formula x / sqrt(RMS[x] + eps) (the misprint of PyTorch's RMSNorm page) "
        "literally: it takes the square root of the ROOT mean square, x / sqrt(sqrt(mean(x**2)) "
        "+ eps), a fourth root of the mean square instead of its square root.",
        (
            r"(square )?root (of|taken) (twice|two times)",
            r"(two|double|second) square roots?",
            r"fourth root",
            r"sqrt\(\s*sqrt",
            r"root mean square .{0,30}(under|inside) (the|a) (square )?root",
            r"mean square,? not (the|its) root",
        ),
        (
            r"eps",
            r"(subtract|centr)\w* (the )?mean",
            r"gain|weight",
            r"(last|feature) axis|dim=",
        ),
        edits=(
            (
                "return x * torch.rsqrt(mean_square + self.eps) * self.weight",
                "return x / torch.sqrt(torch.sqrt(mean_square) + self.eps) * self.weight",
            ),
        ),
        source=RMS_UNDER_ROOT,
    ),
    # ---- 11: rotary_embedding ---------------------------------------------------------------
    _c(
        "rope-log-space-without-log",
        L11,
        "rotary_embedding",
        "writes the frequencies in the log-space form of the sinusoidal encodings, "
        "exp(2i * -(log(base) / d_head)), but leaves out the logarithm: exp(2i * -(base / "
        "d_head)), so theta_0 is 1 and every other frequency is exp(-20000 i / d_head), "
        "practically 0 (those pairs are never rotated).",
        (
            r"\blog(arithm)?\b",
            r"log\(base\)",
            r"math\.log",
            r"exp\(.{0,30}base",
        ),
        (
            r"positions? .{0,40}(1|one)\b.{0,20}(instead|not 0)",
            r"(cos|sin) .{0,20}(swapped|wrong order)",
            r"float64|float32|dtype",
            r"2i|factor (of )?2|i / d_head",
        ),
        edits=(
            (
                "theta = base ** (-torch.arange(0, d_head, 2, dtype=torch.float64) / d_head)",
                "theta = torch.exp(torch.arange(0, d_head, 2, dtype=torch.float64) * "
                "-(base / d_head))",
            ),
        ),
        source=LOG_SPACE_DIV_TERM,
    ),
    _c(
        "rope-sines-from-odd-exponents",
        L11,
        "rotary_embedding",
        "computes the sines from their own frequencies with the odd exponents, base ** "
        "(-(2i + 1) / d_head) (torch.arange(1, d_head, 2), as the sinusoidal encodings' odd "
        "features are sometimes written), while the cosines use the even ones: cos and sin of "
        "a pair belong to different angles, so cos**2 + sin**2 is no longer 1 and the pairs "
        "are not rotated.",
        (
            r"\bodd\b",
            r"(different|two|separate) (angles|frequencies|exponents)",
            r"same (angle|frequenc)",
            r"cos\S*\s*(\*\*|\^)\s*2 ?\+ ?sin",
            r"arange\(1, ?d_head",
        ),
        (
            r"\blog(arithm)?\b",
            r"positions? .{0,40}(1|one)\b.{0,20}(instead|not 0)",
            r"(cos|sin) .{0,20}(swapped|wrong order)",
            r"ignores? (the )?base",
        ),
        code="""\
def rotary_embedding(length, d_head, base=10000.0):
    positions = torch.arange(length, dtype=torch.float64)[:, None]  # (length, 1)
    theta_cos = base ** (-torch.arange(0, d_head, 2, dtype=torch.float64) / d_head)
    theta_sin = base ** (-torch.arange(1, d_head, 2, dtype=torch.float64) / d_head)
    return (positions * theta_cos).cos().float(), (positions * theta_sin).sin().float()
""",
        source=ODD_EXPONENTS,
    ),
    # ---- 11: apply_rotary -------------------------------------------------------------------
    _c(
        "rotary-polar-of-cos-and-sin",
        L11,
        "apply_rotary",
        "rotates adjacent pairs as complex numbers (accepted) but builds the rotation with "
        "Meta's torch.polar recipe from the wrong inputs, torch.polar(cos, sin): polar takes "
        "a magnitude and an ANGLE, so each pair is scaled by cos(angle) and turned by "
        "sin(angle) radians instead of multiplied by cos + i sin (torch.complex(cos, sin)).",
        (
            r"polar",
            r"magnitude",
            r"torch\.complex\(cos, sin\)",
            r"(scaled|scales|shrunk|shrinks) by cos",
            r"(turned|rotated) by sin",
            r"sin\w* (used|taken|read) as (the |an )?angle",
        ),
        (
            r"layout|adjacent|interleav|halves|rotate.half",
            r"float32|dtype",
            r"minus sign|wrong (way|direction)|opposite",
            r"in place",
        ),
        code="""\
def apply_rotary(x, cos, sin):
    rotation = torch.polar(cos, sin)  # (len, d_head/2) complex
    pairs = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2).contiguous())
    rotated = torch.view_as_real(pairs * rotation).flatten(-2)
    return rotated.to(x.dtype)
""",
        source=FREQS_CIS_POLAR,
    ),
    # ---- 11: SwiGLU -------------------------------------------------------------------------
    _c(
        "swiglu-value-is-the-input",
        L11,
        "SwiGLU",
        "gates the block's input x itself instead of its value projection: w2(silu(w1(x)) * "
        "x), so w3 is built but never used (and the product only has a shape when d_ff == "
        "d_model).",
        (
            r"w3 .{0,40}(never|not|unused)",
            r"(never|not|without) (use|call|appl)\w* w3",
            r"value (projection|branch)",
            r"\* ?x\b",
            r"(the )?input x (itself|directly|instead)",
        ),
        (
            r"silu .{0,30}(value|w3)",
            r"gelu|relu|sigmoid",
            r"bias",
            r"w2 .{0,30}(never|missing|without)",
        ),
        edits=(
            (
                "return self.w2(F.silu(self.w1(x)) * self.w3(x))",
                "return self.w2(F.silu(self.w1(x)) * x)",
            ),
        ),
        source=GLU_NO_DENSE,
    ),
    _c(
        "swiglu-no-activation-bilinear",
        L11,
        "SwiGLU",
        "leaves out the SiLU altogether and multiplies the two projections, w2(w1(x) * "
        "w3(x)) (the 'bilinear' GLU variant): nothing is activated, so the block is a "
        "quadratic form of x.",
        (
            r"(no|without|missing|forgot\w*|never appl\w*) (the )?(silu|activation|swish)",
            r"silu .{0,40}(missing|never|not applied|left out)",
            r"bilinear",
        ),
        (
            r"silu .{0,30}(value|w3|product)",
            r"gelu|relu|sigmoid",
            r"bias",
            r"w3 .{0,40}(never|unused)",
        ),
        edits=(
            (
                "return self.w2(F.silu(self.w1(x)) * self.w3(x))",
                "return self.w2(self.w1(x) * self.w3(x))",
            ),
        ),
    ),
    # ---- 11: CausalSelfAttention ------------------------------------------------------------
    _c(
        "attention-keys-and-queries-swapped",
        L11,
        "CausalSelfAttention",
        "passes the rotated keys where the queries belong, scaled_dot_product_attention(k, "
        "q, v, mask): the scores are k_i . q_j, each key's row over the queries, so after the "
        "causal mask position i mixes the values with weights computed from the wrong "
        "dot products.",
        (
            r"(queries|q\b) and (the )?(keys|k\b) .{0,30}(swapped|wrong order|exchanged|the other way)",
            r"(keys|k\b) and (the )?(queries|q\b) .{0,30}(swapped|wrong order|exchanged)",
            r"\(k, ?q, ?v",
            r"k ?@ ?q|keys? (times|by) (the )?quer",
            r"(swapped|exchanged) .{0,30}(queries|q\b)",
        ),
        (
            r"mask|future",
            r"sqrt\(d_head\)|scale",
            r"rotat\w* .{0,30}values?",
            r"w_o|output projection",
        ),
        edits=(
            (
                "heads, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))",
                "heads, _ = scaled_dot_product_attention(k, q, v, look_ahead_mask(length))",
            ),
        ),
    ),
    _c(
        "attention-unit-length-queries-and-keys",
        L11,
        "CausalSelfAttention",
        "adds QK normalisation the lesson's attention does not have: after the rotation it "
        "scales every query and key to unit length (F.normalize(q, dim=-1), likewise k), so "
        "each score is a cosine divided by sqrt(d_head), at most 1 / sqrt(d_head), and the "
        "weights are nearly uniform.",
        (
            r"normali[sz]\w* (the )?(quer|keys?\b|q\b|k\b)",
            r"(quer\w*|keys?) .{0,30}normali[sz]",
            r"qk.?norm",
            r"unit (length|norm|vectors?)",
            r"cosine",
        ),
        (
            r"mask|future",
            r"sqrt\(d_head\)|scale",
            r"rotat\w* .{0,30}values?",
            r"w_o|output projection",
        ),
        edits=(
            (
                "q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)",
                "q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)\n"
                "        q, k = F.normalize(q, dim=-1), F.normalize(k, dim=-1)",
            ),
        ),
    ),
    # ---- 11: DecoderBlock -------------------------------------------------------------------
    _c(
        "block-layer-scale",
        L11,
        "DecoderBlock",
        "adds CaiT's LayerScale: two learned per-feature gains, nn.Parameter(0.1 * "
        "ones(d_model)) (CaiT's value for 12 layers), multiply the attention's and the "
        "feed-forward's outputs before each residual addition, so each sub-layer adds only a "
        "tenth of its output and the state dict has two extra keys.",
        (
            r"layer.?scale",
            r"gamma",
            r"(extra|unexpected) (keys?|parameters?)",
            r"(scal|multipl)\w* .{0,40}(sub-?layers?|branch|residual)",
        ),
        (
            r"post-?norm|after (the|each) (residual|addition)",
            r"norm1|norm2",
            r"layer-?norm",
            r"residual .{0,30}(missing|dropped|no)\b",
        ),
        edits=(
            (
                "self.feed_forward = SwiGLU(d_model, d_ff)",
                "self.feed_forward = SwiGLU(d_model, d_ff)\n"
                "        self.gamma1 = nn.Parameter(0.1 * torch.ones(d_model))\n"
                "        self.gamma2 = nn.Parameter(0.1 * torch.ones(d_model))",
            ),
            (
                "h = x + self.attn(self.norm1(x))",
                "h = x + self.gamma1 * self.attn(self.norm1(x))",
            ),
            (
                "return h + self.feed_forward(self.norm2(h))",
                "return h + self.gamma2 * self.feed_forward(self.norm2(h))",
            ),
        ),
        source=LAYER_SCALE,
    ),
    _c(
        "block-feed-forward-reads-attention-alone",
        L11,
        "DecoderBlock",
        "keeps the attention's output in its own variable and feeds THAT to the feed-forward, "
        "a = attn(norm1(x)); h = x + a; return h + feed_forward(norm2(a)): the feed-forward "
        "reads the attention's output without the residual stream instead of norm2(h).",
        (
            r"without (the )?(residual|stream|x)",
            r"(attention'?s? )?output (alone|only)",
            r"(feed-?forward|ffn|second sub-?layer) .{0,60}(attention'?s? output|not h\b)",
        ),
        (
            r"norm2\(x\)|block'?s input",
            r"post-?norm",
            r"layer-?norm",
            r"(residual|adds?) .{0,30}twice",
        ),
        edits=(
            (
                "h = x + self.attn(self.norm1(x))",
                "a = self.attn(self.norm1(x))\n        h = x + a",
            ),
            (
                "return h + self.feed_forward(self.norm2(h))",
                "return h + self.feed_forward(self.norm2(a))",
            ),
        ),
    ),
    # ---- 11: GPT ----------------------------------------------------------------------------
    _c(
        "gpt-blocks-in-reverse",
        L11,
        "GPT",
        "runs the blocks in reverse order (for layer in reversed(self.layers)): the weights "
        "and keys are right, but layers.{num_layers - 1} reads the embeddings and layers.0 "
        "feeds the final norm.",
        (
            r"revers",
            r"(wrong|backwards?|opposite) order",
            r"order of the (blocks|layers)",
            r"last (block|layer) first",
        ),
        (
            r"shar\w* .{0,30}weights?|same (block|weights)",
            r"tied|tying|transpose",
            r"final norm",
            r"0\.02|init",
        ),
        edits=(
            (
                "for layer in self.layers:",
                "for layer in reversed(self.layers):",
            ),
        ),
    ),
    _c(
        "gpt-embeddings-added-back-at-the-end",
        L11,
        "GPT",
        "adds a long skip connection around the whole stack: the token embeddings are added "
        "again to the last block's output before the final norm, norm(x + embedding(ids)), "
        "although each block already carries its own residuals.",
        (
            r"(long|global|outer|extra) (skip|residual)",
            r"embeddings? .{0,40}(added|adds?) (again|back|twice)",
            r"(adds?|added) .{0,30}embeddings? .{0,30}(again|back|twice|after)",
        ),
        (
            r"(position|absolute|wpe)",
            r"sqrt\(d_model\)",
            r"tied|tying|transpose",
            r"final norm .{0,30}(missing|skipped|twice)",
        ),
        edits=(
            (
                "x = self.embedding(ids)",
                "embedded = x = self.embedding(ids)",
            ),
            (
                "return self.norm(x) @ self.embedding.weight.T",
                "return self.norm(x + embedded) @ self.embedding.weight.T",
            ),
        ),
    ),
    # ---- 11: sample -------------------------------------------------------------------------
    _c(
        "sample-top-p-removal-shared-by-rows",
        L11,
        "sample",
        "maps the nucleus back to the vocabulary as the single-sequence recipe does, "
        "logits[:, order[remove_sorted]] = -inf: order[remove_sorted] flattens every row's "
        "removed token ids into one list, so each row loses the union of all rows' removed "
        "tokens (right for a batch of one).",
        (
            r"union",
            r"(other|another|every|all) rows?'?s? .{0,40}(removed|tokens|ids)",
            r"(each|per) row .{0,40}(own|separately|independent)",
            r"flatten",
            r"batch (of|with) (more than one|several|two)",
            r"scatter",
        ),
        (
            r"temperature",
            r"crossing|crosses",
            r"top-?k",
            r"generator",
        ),
        edits=(
            (
                "remove = remove_sorted.scatter(-1, order, remove_sorted)",
                "logits = logits.clone()\n"
                "        logits[:, order[remove_sorted]] = float('-inf')\n"
                "        remove = torch.zeros_like(remove_sorted)",
            ),
        ),
        source=TOP_P_BATCH,
    ),
    _c(
        "sample-top-p-guard-keeps-least-probable",
        L11,
        "sample",
        "puts the keep-at-least-one guard at the wrong end of the sorted list, "
        "remove_sorted[..., -1] = False: the LEAST probable token always survives top-p "
        "(and the most probable is no longer protected), instead of remove_sorted[..., 0].",
        (
            r"least (probable|likely)",
            r"\[\.\.\., ?-1\]",
            r"wrong end",
            r"(last|smallest) (sorted )?(token|probability)",
            r"(always|still) (kept|survives?)",
        ),
        (
            r"temperature",
            r"crossing|crosses",
            r"top-?k",
            r"generator",
            r"(first|whole) row",
        ),
        edits=(
            (
                "remove_sorted[..., 0] = False",
                "remove_sorted[..., -1] = False",
            ),
        ),
        source=MIN_TOKENS_END,
    ),
    _c(
        "sample-default-top-k-one",
        L11,
        "sample",
        "declares top_k's default as 1 instead of None in the signature, so a call that does "
        "not pass top_k keeps only the largest logit: sampling at any temperature silently "
        "becomes greedy (a call that passes top_k is right).",
        (
            r"default",
            r"top_k ?= ?1\b",
            r"top_k=None",
            r"(not|without) (pass\w* |giv\w* )?top_k",
        ),
        (
            r"temperature .{0,40}(ignored|never|not applied)",
            r"crossing|crosses",
            r"generator",
            r"top-?p",
        ),
        edits=(("top_k: int | None = None", "top_k: int | None = 1"),),
        source=DEFAULT_TOP_K,
    ),
    _c(
        "sample-top-k-threshold-before-temperature",
        L11,
        "sample",
        "takes the k-th largest logit from the logits as given, before dividing by the "
        "temperature, and compares the tempered logits with that untempered threshold: with "
        "temperature != 1 the cut falls at kth * temperature in the original scale, so more "
        "or fewer than top_k tokens survive (depending on the threshold's sign), none at all "
        "when every tempered logit falls below it (NaN probabilities).",
        (
            r"(before|without) (dividing by |the )?temperature",
            r"untempered|unscaled|raw logits",
            r"threshold .{0,60}(temperature|tempered)",
            r"(temperature|tempered) .{0,60}threshold",
            r"k-?th .{0,60}(temperature|original)",
        ),
        (
            r"crossing|crosses",
            r"generator",
            r"ties",
            r"top-?p",
        ),
        code="""\
def sample(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return logits.argmax(dim=-1)
    if top_k is not None:
        kth = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1).values[..., -1:]
    logits = logits / temperature
    if top_k is not None:
        logits = logits.masked_fill(logits < kth, float("-inf"))
    if top_p is not None:
        sorted_probs, order = torch.softmax(logits, dim=-1).sort(dim=-1, descending=True)
        before = sorted_probs.cumsum(dim=-1) - sorted_probs
        remove_sorted = before >= top_p
        remove_sorted[..., 0] = False
        remove = remove_sorted.scatter(-1, order, remove_sorted)
        logits = logits.masked_fill(remove, float("-inf"))
    probs = torch.softmax(logits, dim=-1)
    return torch.multinomial(probs, 1, generator=generator)[:, 0]
""",
    ),
    # ---- 12 inference: KVCache --------------------------------------------------------------
    _c(
        "cache-stores-first-new-position-only",
        L12,
        "KVCache",
        "writes only the first of the n new positions, keys[:, :, start:start + 1] = "
        "k_new[:, :, :1] (likewise the values), while advancing the length by n: one-token "
        "steps are right, but after a prefill of several positions all but its first come "
        "back as zeros.",
        (
            r"(only|just) (the )?first (new )?position",
            r"(all )?but (the|its) first",
            r"(one|single) position .{0,40}(of|instead of) (the )?n\b",
            r"start ?: ?start ?\+ ?1",
            r"(prefill|several|multi\w*).{0,60}(zeros?|lost|dropped|missing)",
        ),
        (
            r"(length|counter) .{0,40}(by one|never advance|not advanced)",
            r"dtype",
            r"persistent",
            r"ValueError",
            r"(keys|values) .{0,20}swapped",
        ),
        code="""\
class KVCache(nn.Module):
    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
        super().__init__()
        shape = (batch, num_heads, max_len, d_head)
        self.register_buffer("keys", torch.zeros(shape, dtype=dtype), persistent=False)
        self.register_buffer("values", torch.zeros(shape, dtype=dtype), persistent=False)
        self.length = 0

    def forward(self, k_new, v_new):
        start, stop = self.length, self.length + k_new.shape[-2]
        if stop > self.keys.shape[-2]:
            raise ValueError(f"the cache holds {self.keys.shape[-2]} positions, not {stop}")
        self.keys[:, :, start : start + 1] = k_new[:, :, :1]
        self.values[:, :, start : start + 1] = v_new[:, :, :1]
        self.length = stop
        return self.keys[:, :, :stop], self.values[:, :, :stop]
""",
        source=PREFILL_FIRST_TOKEN,
    ),
    _c(
        "cache-clamps-at-capacity",
        L12,
        "KVCache",
        "clamps instead of refusing: when more than max_len positions would be stored it "
        "keeps only the new positions that still fit (stop = min(stop, max_len)) and drops "
        "the rest silently, with no ValueError.",
        (
            r"ValueError",
            r"(silently|quietly) (drop|discard|truncat|ignor|clamp)",
            r"(clamp|truncat|cut)\w* .{0,40}(max_len|capacity)",
            r"(no|without|never raises?) (an? )?(error|exception)",
            r"overflow",
        ),
        (
            r"(length|counter) .{0,40}(by one|never advance)",
            r"dtype",
            r"persistent",
            r"(only|just) the first",
            r"roll|oldest",
        ),
        code="""\
class KVCache(nn.Module):
    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
        super().__init__()
        shape = (batch, num_heads, max_len, d_head)
        self.register_buffer("keys", torch.zeros(shape, dtype=dtype), persistent=False)
        self.register_buffer("values", torch.zeros(shape, dtype=dtype), persistent=False)
        self.length = 0

    def forward(self, k_new, v_new):
        start = self.length
        stop = min(start + k_new.shape[-2], self.keys.shape[-2])  # keep what fits
        self.keys[:, :, start:stop] = k_new[:, :, : stop - start]
        self.values[:, :, start:stop] = v_new[:, :, : stop - start]
        self.length = stop
        return self.keys[:, :, :stop], self.values[:, :, :stop]
""",
        source=CLAMP_TO_CACHE,
    ),
    # ---- 12: generate -----------------------------------------------------------------------
    _c(
        "generate-start-from-positions-processed",
        L12,
        "generate",
        "reads each call's start position from the model's running counter, start = "
        "int(model.positions_processed), as a model-level position pointer (never reset): the "
        "counter counts the tokens of EVERY sequence (batch x len) and of earlier calls, so "
        "only a fresh model with a batch of one gets positions len, len + 1, ...",
        (
            r"positions_processed",
            r"(counter|pointer) .{0,60}(batch|every sequence|earlier calls|reset)",
            r"batch ?(x|\*|×) ?len",
            r"start .{0,40}(batch|previous call|earlier call)",
        ),
        (
            r"argmax",
            r"(cache|caches) .{0,30}(size|sized|room)",
            r"stack|cat\b",
            r"prefill .{0,30}(without|no) cache",
        ),
        code="""\
@torch.no_grad()
def generate(model, prompt, max_new_tokens):
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits = model(prompt, caches=caches, start=int(model.positions_processed))[:, -1]
    ids, steps = prompt, []
    for step in range(max_new_tokens):
        steps.append(logits)
        next_id = logits.argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
        if step + 1 < max_new_tokens:
            position = int(model.positions_processed)  # where the model has got to
            logits = model(next_id, caches=caches, start=position)[:, -1]
    return ids, torch.stack(steps, dim=1)
""",
        source=POSITION_POINTER,
    ),
    # ---- 12: grouped_query_attention --------------------------------------------------------
    _c(
        "gqa-first-kv-head-for-all",
        L12,
        "grouped_query_attention",
        "implements multi-query attention instead of grouped-query: every query head uses "
        "the FIRST key/value head, k[:, :1] and v[:, :1] expanded to num_heads, so the other "
        "key/value heads are ignored (right only when num_kv_heads == 1).",
        (
            r"multi-?query",
            r"(first|one|single) (key/value|kv|key) head",
            r"k\[:, ?:1\]",
            r"(other|remaining) (key/value|kv) heads? .{0,30}(ignored|unused|never)",
            r"h ?// ?group",
        ),
        (
            r"tile|h ?% ?num_kv",
            r"mask",
            r"sqrt\(d_head\)|scale",
            r"dim=2|length axis|position axis",
        ),
        code="""\
def grouped_query_attention(q, k, v, mask=None):
    num_heads = q.shape[1]
    k = k[:, :1].expand(-1, num_heads, -1, -1)  # the shared key head
    v = v[:, :1].expand(-1, num_heads, -1, -1)
    output, _ = scaled_dot_product_attention(q, k, v, mask)
    return output
""",
        source=ONE_KV_HEAD,
    ),
    # ---- 12: online_softmax -----------------------------------------------------------------
    _c(
        "online-first-element-counted-twice",
        L12,
        "online_softmax",
        "starts the running state from the first element, as the element-wise algorithm "
        "does (running maximum x[..., 0], running sum 1 for its exp(0)), but then walks the "
        "blocks from column 0: the first element is counted twice, so every row sums to more "
        "than 1.",
        (
            r"(first|initial) (element|column|value) .{0,40}(twice|two times|double)",
            r"counted twice|double[- ]count",
            r"(running )?sum .{0,40}(starts?|initiali[sz]ed) (at|to|with) (1|one)",
            r"sum (to )?more than (1|one)|exceeds? 1",
        ),
        (
            r"rescal\w*|exp\(m",
            r"last block|shorter block",
            r"in place",
            r"dtype",
        ),
        code="""\
def online_softmax(x, block_size):
    running_max = x[..., 0].clone()  # the first element is its own maximum...
    total = torch.ones(x.shape[:-1], dtype=x.dtype)  # ...and exp(0) = 1 of the sum
    for start in range(0, x.shape[-1], block_size):
        block = x[..., start : start + block_size]
        new_max = torch.maximum(running_max, block.amax(dim=-1))
        total = total * torch.exp(running_max - new_max) + torch.exp(
            block - new_max[..., None]
        ).sum(dim=-1)
        running_max = new_max
    return torch.exp(x - running_max[..., None]) / total[..., None]
""",
        source=FIRST_ELEMENT_INIT,
    ),
    _c(
        "online-each-block-normalised-alone",
        L12,
        "online_softmax",
        "normalises each block of columns on its own (exp(block - block max) / its own sum) "
        "and concatenates the blocks, with no running maximum or sum carried between them: "
        "each block sums to 1, so a row sums to its number of blocks.",
        (
            r"(each|every|per) block .{0,40}(own|separately|alone|sums? to 1)",
            r"(no|without) (a )?running (max|maximum|sum)",
            r"(sums? to|totals?) (the )?number of blocks",
            r"concatenat",
            r"(sum|total) (over|across) (all|the whole|every) (row|blocks?)",
        ),
        (
            r"rescal\w*",
            r"last block|shorter block",
            r"in place",
            r"dtype",
        ),
        code="""\
def online_softmax(x, block_size):
    pieces = []
    for start in range(0, x.shape[-1], block_size):
        block = x[..., start : start + block_size]
        weights = torch.exp(block - block.amax(dim=-1, keepdim=True))
        pieces.append(weights / weights.sum(dim=-1, keepdim=True))
    return torch.cat(pieces, dim=-1)
""",
    ),
    # ---- 12: tiled_attention ----------------------------------------------------------------
    _c(
        "tiled-key-blocks-last-to-first",
        L12,
        "tiled_attention",
        "walks the key blocks from the last to the first (reversed(range(0, len_k, "
        "block_size))): without the mask the order does not matter, but with causal=True the "
        "first block visited is entirely in the future of the early queries, their running "
        "maximum stays -inf and exp(-inf - (-inf)) makes their rows NaN.",
        (
            r"revers",
            r"(last|final) (block )?(to|first)",
            r"(order|direction) of the (key )?blocks",
            r"fully masked|entirely (in the )?future|all (scores|keys) masked",
            r"-inf - \(?-inf",
        ),
        (
            r"bottom.right|len_k - len_q",
            r"sqrt\(d_k\)|scale",
            r"(>=|>) .{0,20}diagonal|own (key|position)",
            r"(block-)?local (key )?ind",
        ),
        edits=(
            (
                "for start in range(0, len_k, block_size):",
                "for start in reversed(range(0, len_k, block_size)):",
            ),
        ),
        source=FULLY_MASKED_NAN,
    ),
    # ---- 12: sliding_window_mask ------------------------------------------------------------
    _c(
        "window-local-buckets",
        L12,
        "sliding_window_mask",
        "builds local attention by buckets, as local-attention's look_backward = 1 does: "
        "positions are cut into buckets of `window`, and a query sees (causally) every key of "
        "its own bucket and of the bucket before it: past the first bucket that is window + 1 "
        "to 2 * window keys instead of exactly window (itself and the window - 1 before it).",
        (
            r"bucket|chunk|block",
            r"(previous|preceding) (bucket|chunk|block|window)",
            r"2 ?\* ?window",
            r"i - j < window",
            r"(more|too many) (than )?(window )?keys",
        ),
        (
            r"(future|look-?ahead|causal) .{0,30}(missing|forgot|sees)",
            r"dtype|bool|float",
            r"window \+ 1",
            r"transpos",
        ),
        code="""\
def sliding_window_mask(size, window):
    bucket = torch.arange(size) // window  # (size,)
    nearby = (bucket[:, None] - bucket[None, :]) <= 1  # own bucket or the one before
    return look_ahead_mask(size) & nearby
""",
        source=LOOK_BACKWARD,
    ),
    _c(
        "window-first-positions-only",
        L12,
        "sliding_window_mask",
        "measures the window from the start of the sequence instead of from each query: the "
        "keys allowed are the first `window` positions (j < window), so a query past the "
        "window sees keys 0 .. window - 1 instead of the window - 1 keys before it and itself.",
        (
            r"(start|beginning) of the sequence",
            r"first (window|`window`) (positions|keys)",
            r"j < window",
            r"(relative|counted) (to|from) (the|each) query",
            r"i - j < window",
            r"(not|never) (sees|attends to) itself",
        ),
        (
            r"window \+ 1",
            r"dtype|bool|float",
            r"transpos",
            r"(future|look-?ahead) .{0,30}(missing|sees)",
        ),
        code="""\
def sliding_window_mask(size, window):
    keys = torch.arange(size)
    return look_ahead_mask(size) & (keys < window)[None, :]
""",
    ),
]
