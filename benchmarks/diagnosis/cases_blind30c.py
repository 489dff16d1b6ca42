"""Held-out wrong answers, blind round 30 (helper b30c, 2026-11-29, lessons 11-12): mistakes new to
the benchmark, written blind (no check module, no message read) after fix round 35, to measure
how the diagnoses generalise to mistakes nobody here has seen (``held_out_authored`` in
``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L11, L12 = "11_language_model", "12_inference"

_c = held_out_authored("blind30c")

# Where these mistakes are reported (each page was read for this batch).
BF16_TABLES = "https://github.com/deepspeedai/Megatron-DeepSpeed/pull/206"
ATAN_QUADRANT = "https://github.com/wanadev/perspective.js/pull/14"
INPLACE_SILU = "https://github.com/tile-ai/tilelang-ascend/issues/1658"
GLU_SIGMOID = "https://github.com/MooreThreads/torch_musa/issues/121"
PARALLEL_RESIDUAL = "https://github.com/huggingface/transformers/pull/18695"
EMBEDDING_MAX_NORM = "https://github.com/pytorch/pytorch/issues/26596"
TOP_K_MASK_INVERTED = "https://github.com/EricLBuehler/mistral.rs/pull/1316"
TOP_P_MASK_INVERTED = "https://github.com/hkproj/pytorch-llama/issues/16"
INFERENCE_MODE_CACHE = "https://github.com/Lightning-AI/litgpt/pull/837"
KV_CONCATENATED_TWICE = "https://github.com/OpenDriveLab/AgiBot-World/issues/157"
GENERATE_NO_GRAD = "https://github.com/allenai/OLMo/pull/164"
CHUNKED_PREFILL_OFFSET = "https://github.com/mlx-node/mlx-node/pull/33"

BLIND30C: list[Case] = [
    # ---- 11 language model: apply_rotary ----------------------------------------------------
    _c(
        "rot-tables-rounded-to-bfloat16",
        L11,
        "apply_rotary",
        "rounds the cos and sin tables to bfloat16 before rotating (the half-precision tables of "
        "a mixed-precision run), whatever x's dtype, and casts the result back to x's dtype: a "
        "float32 or float64 input is rotated with tables good to only two or three significant "
        "digits, so every rotated feature is off by up to a few tenths of a percent of its "
        "size, far above float32 rounding.",
        (
            r"b(fl(oa)?t)?16|half[- ]precision|low(er)? precision|reduced precision",
            r"(round|cast|convert)\w* (the )?(cos\w*|sin\w*|tables?|angles?)\b.{0,40}"
            r"(to|in(to)?) (b?float16|half|bf16|a (lower|smaller|narrower))",
            r"(tables?|cos\w*|sin\w*).{0,30}(rounded|cast|converted) (to|in(to)?) (b?float16|bf16|half)",
            r"precision of (the )?(cos|sin|tables?)|(cos|sin|tables?)\w* (lose|lost|loses) precision",
        ),
        (
            r"rotat\w* (the )?(wrong|other|opposite) (way|direction)|backwards|wrong sign|sign (is )?(flipped|wrong)",
            r"(halves|pairs?) (are )?(swapped|in the wrong order)|layout",
            r"comes? back as float32|upcast|dtype of the (output|result) (is|differs)",
            r"modif(y|ies|ied) (x|the input|its input) in[- ]place",
            r"(wrong|off[- ]by[- ]one|shifted) positions?",
        ),
        code="""
def apply_rotary(x, cos, sin):
    # tables in bfloat16, the precision the model runs in
    cos, sin = cos.to(torch.bfloat16), sin.to(torch.bfloat16)
    half = x.shape[-1] // 2
    first, second = x[..., :half], x[..., half:]
    rotated = torch.cat([first * cos - second * sin, first * sin + second * cos], dim=-1)
    return rotated.to(x.dtype)
""",
        source=BF16_TABLES,
    ),
    _c(
        "rot-angles-recovered-with-atan",
        L11,
        "apply_rotary",
        "rotates adjacent pairs as complex numbers (Meta's recipe, accepted) but rebuilds the "
        "angles from the tables with torch.atan(sin / cos) instead of atan2(sin, cos): atan only "
        "returns angles in (-pi/2, pi/2), so every angle whose cosine is negative is off by pi "
        "and its pair comes out negated (position 0, and every angle below pi/2, come out "
        "right).",
        (
            r"\batan\b|arctan|atan2",
            r"quadrant|off by (pi|π|180)|(by|of) (pi|π|180 degrees)",
            r"(negat\w*|flip\w*|sign).{0,60}(cos\w* (is )?negative|angles? (beyond|above|past|over) "
            r"(pi|π)|half[- ]turn)",
        ),
        (
            r"rotat\w* (the )?(wrong|other|opposite) (way|direction)|backwards",
            r"(halves|pairs?) (are )?(swapped|in the wrong order)|layout|interleav",
            r"upcast|comes? back as float32|dtype (is |comes back )?(wrong|changed|float32)",
            r"modif(y|ies|ied) (x|the input|its input) in[- ]place",
            r"(cos|sin)\w* (and|or) (sin|cos)\w* (are )?swapped",
        ),
        code="""
def apply_rotary(x, cos, sin):
    # Meta's Llama: each adjacent pair is a complex number, times e^(i * angle)
    angles = torch.atan(sin / cos)  # (len, d_head // 2)
    rotation = torch.polar(torch.ones_like(angles), angles)
    pairs = torch.view_as_complex(x.double().reshape(*x.shape[:-1], -1, 2).contiguous())
    rotated = torch.view_as_real(pairs * rotation).flatten(-2)
    return rotated.to(x.dtype)
""",
        source=ATAN_QUADRANT,
    ),
    _c(
        "rot-rotate-half-partner-from-own-halves",
        L11,
        "apply_rotary",
        "writes Hugging Face's form x * cos + rotate_half(x) * sin with the tables widened to "
        "d_head, but its rotate_half returns (-x1, x2) instead of (-x2, x1): each feature's "
        "partner is itself, so the two halves never mix and every feature is just scaled by "
        "cos - sin (first half) or cos + sin (second half), which is no rotation.",
        (
            r"rotate_half|partner",
            r"(never|do(es)? not|don't) (mix|combine|interact)|(paired|mixed|combined) with itself",
            r"(-x1, ?x2|\(-x1|x2\)).{0,40}(instead of|not|rather than).{0,20}(-x2, ?x1)",
            r"(scal\w*|multipl\w*) by (cos ?[-+] ?sin|\(cos ?[-+] ?sin\))",
        ),
        (
            r"rotat\w* (the )?(wrong|other|opposite) (way|direction)|backwards",
            r"(halves|pairs?) (are )?(swapped|in the wrong order)|written back in the wrong order",
            r"(tables?|cos|sin) (are |is )?not (doubled|widened|repeated)",
            r"upcast|comes? back as float32|dtype (is |comes back )?(wrong|changed|float32)",
            r"mix\w* (the two )?(layouts|conventions)",
        ),
        code="""
def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat([-x1, x2], dim=-1)


def apply_rotary(x, cos, sin):
    cos = torch.cat([cos, cos], dim=-1).to(x.dtype)  # (len, d_head)
    sin = torch.cat([sin, sin], dim=-1).to(x.dtype)
    return x * cos + rotate_half(x) * sin
""",
    ),
    # ---- 11 language model: SwiGLU ----------------------------------------------------------
    _c(
        "swiglu-sigmoid-in-place-on-gate",
        L11,
        "SwiGLU",
        "writes the SiLU without a temporary as gate * gate.sigmoid_(): the in-place sigmoid_ "
        "overwrites gate before the product reads it, so the gate is sigmoid(w1(x)) ** 2 "
        "instead of w1(x) * sigmoid(w1(x)).",
        (
            r"in[- ]place",
            r"sigmoid_",
            r"sigmoid\w*\W{0,4}(squared|\*\* ?2|twice|times itself)|squared sigmoid",
            r"overwrit\w*|alias",
        ),
        (
            r"\bglu\b|sigmoid (gate|instead of (the )?silu)",
            r"(gate|value) (and|or) (the )?(value|gate) (are )?swapped|w3.{0,30}(gate|silu)",
            r"\brelu\b|\bgelu\b",
            r"silu (of|on|over|applied to) (the )?product",
            r"(with|keeps?|extra) (the )?bias(es)?",
        ),
        code="""
class SwiGLU(nn.Module):
    def __init__(self, d_model, d_ff):
        super().__init__()
        self.w1 = nn.Linear(d_model, d_ff, bias=False)
        self.w3 = nn.Linear(d_model, d_ff, bias=False)
        self.w2 = nn.Linear(d_ff, d_model, bias=False)

    def forward(self, x):
        gate = self.w1(x)
        gate = gate * gate.sigmoid_()  # swish, without an extra buffer
        return self.w2(gate * self.w3(x))
""",
        source=INPLACE_SILU,
    ),
    _c(
        "swiglu-f-glu-on-concatenation",
        L11,
        "SwiGLU",
        "takes F.glu for the gated unit and calls it on torch.cat([w1(x), w3(x)], -1): F.glu "
        "gates its first half with the sigmoid of its second half, so the block computes "
        "w2(w1(x) * sigmoid(w3(x))), a sigmoid GLU gated by w3, instead of "
        "w2(silu(w1(x)) * w3(x)).",
        (
            r"\bF\.glu\b|\bglu\b",
            r"sigmoid\w*.{0,60}(instead of|not|rather than).{0,20}(silu|swish)",
            r"sigmoid of (the )?(w3|value|second half)|w1\(x\) ?\* ?sigmoid",
            r"gate.{0,40}(w3|value|second half)",
        ),
        (
            r"\brelu\b|\bgelu\b",
            r"silu (of|on|over|applied to) (the )?product",
            r"(with|keeps?|extra) (the )?bias(es)?",
            r"(w2|output projection) (is )?(missing|never used|not applied)",
            r"two[- ]thirds|2 ?/ ?3",
        ),
        code="""
class SwiGLU(nn.Module):
    def __init__(self, d_model, d_ff):
        super().__init__()
        self.w1 = nn.Linear(d_model, d_ff, bias=False)
        self.w3 = nn.Linear(d_model, d_ff, bias=False)
        self.w2 = nn.Linear(d_ff, d_model, bias=False)

    def forward(self, x):
        hidden = F.glu(torch.cat([self.w1(x), self.w3(x)], dim=-1), dim=-1)
        return self.w2(hidden)
""",
        source=GLU_SIGMOID,
    ),
    _c(
        "swiglu-softmax-gate",
        L11,
        "SwiGLU",
        "gates with a softmax over the d_ff hidden features, softmax(w1(x), dim=-1), as a "
        "mixture-of-experts router weighs its experts, instead of the elementwise SiLU: the "
        "gate values sum to one per token, so the hidden layer is about d_ff times too small "
        "and each gate depends on every other hidden unit.",
        (
            r"soft ?max",
            r"sums? (up )?to (one|1)|adds? up to (one|1)|normali[sz]\w* (across|over) (the )?(hidden|features?|d_ff)",
            r"(router|experts?|mixture)",
        ),
        (
            r"\bsigmoid\b(?! ?\()|\bglu\b",
            r"(gate|value) (and|or) (the )?(value|gate) (are )?swapped|w3.{0,30}(gate|silu)",
            r"\brelu\b|\bgelu\b",
            r"silu (of|on|over|applied to) (the )?product",
            r"(with|keeps?|extra) (the )?bias(es)?",
        ),
        code="""
class SwiGLU(nn.Module):
    def __init__(self, d_model, d_ff):
        super().__init__()
        self.w1 = nn.Linear(d_model, d_ff, bias=False)
        self.w3 = nn.Linear(d_model, d_ff, bias=False)
        self.w2 = nn.Linear(d_ff, d_model, bias=False)

    def forward(self, x):
        gate = torch.softmax(self.w1(x), dim=-1)  # how much of each hidden unit to let through
        return self.w2(gate * self.w3(x))
""",
    ),
    # ---- 11 language model: GPT -------------------------------------------------------------
    _c(
        "gpt-return-inside-layer-loop",
        L11,
        "GPT",
        "indents the return statement into the loop over the blocks: forward returns after the "
        "first block, so with num_layers > 1 only layers.0 runs and the other blocks' weights "
        "never reach the logits (right only for num_layers == 1).",
        (
            r"return\w* (is )?(inside|in|within) the (for[- ])?loop|indent",
            r"(only|just) (the )?(first|one|layers\.0) (block|layer)",
            r"(after|stops? after|exits? after) (the )?first (block|layer|iteration)",
            r"(other|remaining|later|rest of the) (blocks?|layers?).{0,40}(never|not|unused|skipped)",
        ),
        (
            r"(same|shared) (weights|block)|repeat\w* (one|the same) block",
            r"(plain|python) list|not registered",
            r"(no|missing|skips?|without) (the )?final norm|final norm (is )?(missing|skipped|twice)",
            r"not chained|embeddings? to every (block|layer)",
            r"one (block|layer) (too )?(short|fewer)",
            r"(not|un)tied|separate output|without (the )?transpose",
        ),
        code="""
class GPT(nn.Module):
    def __init__(self, vocab_size, d_model, num_heads, d_ff, num_layers, eps=1e-5):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, d_model)
        nn.init.normal_(self.embedding.weight, std=0.02)
        self.layers = nn.ModuleList(
            [DecoderBlock(d_model, num_heads, d_ff, eps) for _ in range(num_layers)]
        )
        self.norm = RMSNorm(d_model, eps)

    def forward(self, ids):
        x = self.embedding(ids)
        for layer in self.layers:
            x = layer(x)
            return self.norm(x) @ self.embedding.weight.T
""",
    ),
    _c(
        "gpt-parallel-residual",
        L11,
        "GPT",
        "walks the blocks' submodules itself with GPT-J's and GPT-NeoX's parallel residual, "
        "x = x + attn(norm1(x)) + feed_forward(norm2(x)): the feed-forward reads the block's "
        "input instead of h = x + attn(norm1(x)), so every block after the embedding differs "
        "from DecoderBlock's sequential pre-norm forward.",
        (
            r"parallel",
            r"(feed[- ]?forward|ffn|swiglu|mlp).{0,80}(block'?s input|same input|(reads?|sees?|gets?) "
            r"x\b|instead of h\b|before (the )?attention)",
            r"(side by side|at the same time|alongside)",
            r"decoderblock'?s (own )?forward|(call|use) (the )?(block|layer)s? (themselves|directly)",
        ),
        (
            r"(same|shared) (weights|block)|repeat\w* (one|the same) block",
            r"(no|missing|skips?|without) (the )?final norm|final norm (is )?(missing|skipped|twice)",
            r"post[- ]?(ln|norm)",
            r"(extra|another|double|second) residual",
            r"(not|un)tied|separate output|without (the )?transpose",
        ),
        code="""
class GPT(nn.Module):
    def __init__(self, vocab_size, d_model, num_heads, d_ff, num_layers, eps=1e-5):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, d_model)
        nn.init.normal_(self.embedding.weight, std=0.02)
        self.layers = nn.ModuleList(
            [DecoderBlock(d_model, num_heads, d_ff, eps) for _ in range(num_layers)]
        )
        self.norm = RMSNorm(d_model, eps)

    def forward(self, ids):
        x = self.embedding(ids)  # (batch, len, d_model)
        for block in self.layers:
            # attention and feed-forward side by side (GPT-J), one residual add
            x = x + block.attn(block.norm1(x)) + block.feed_forward(block.norm2(x))
        return self.norm(x) @ self.embedding.weight.T
""",
        source=PARALLEL_RESIDUAL,
    ),
    _c(
        "gpt-embedding-max-norm",
        L11,
        "GPT",
        "builds the embedding with nn.Embedding(vocab_size, d_model, max_norm=1.0) to keep the "
        "token vectors bounded: every lookup renormalises the rows it reads to norm at most 1, "
        "in place, so with weights whose rows are longer than 1 (a trained or loaded model) the "
        "inputs and the tied output matrix both change, and the weights change on every call.",
        (
            r"max_norm",
            r"renorm\w*|(clip|cap|clamp|limit)\w* (the )?(row|embedding|vector)s?'? norms?",
            r"(modif\w*|chang\w*|rescal\w*) (the )?(embedding )?weights? in[- ]place",
            r"norm (of )?(at most|<=|no more than|above|greater than) (1|one)",
        ),
        (
            r"(std|standard deviation) (of|is) (1|one)|default initiali[sz]\w*|initiali[sz]\w* (wrong|with)",
            r"sqrt\(d_model\)|scaled? by",
            r"padding_idx",
            r"(not|un)tied|separate output|without (the )?transpose",
            r"(no|missing|skips?|without) (the )?final norm|final norm (is )?(missing|skipped|twice)",
        ),
        code="""
class GPT(nn.Module):
    def __init__(self, vocab_size, d_model, num_heads, d_ff, num_layers, eps=1e-5):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, d_model, max_norm=1.0)  # bounded token vectors
        nn.init.normal_(self.embedding.weight, std=0.02)
        self.layers = nn.ModuleList(
            [DecoderBlock(d_model, num_heads, d_ff, eps) for _ in range(num_layers)]
        )
        self.norm = RMSNorm(d_model, eps)

    def forward(self, ids):
        x = self.embedding(ids)
        for layer in self.layers:
            x = layer(x)
        return F.linear(self.norm(x), self.embedding.weight)
""",
        source=EMBEDDING_MAX_NORM,
    ),
    # ---- 11 language model: sample ----------------------------------------------------------
    _c(
        "sample-top-k-mask-inverted",
        L11,
        "sample",
        "builds a boolean mask that is True at the top_k indices (topk(...).indices scattered "
        "into zeros) and passes it to masked_fill(mask, -inf): the k most likely tokens are "
        "the ones removed, and only the rest of the vocabulary can be drawn.",
        (
            r"invert\w*|revers\w*|wrong (side|way round)|opposite",
            r"(remov\w*|mask\w*|drop\w*|discard\w*|fill\w*) (the )?(top[-_ ]?k|k (most|largest|best))",
            r"keeps? (only )?(the )?(rest|others?|tail|(all )?but the top)",
            r"~ ?mask|logical_not|negat\w* the mask",
        ),
        (
            r"top[-_ ]?k ?\+ ?1|k ?- ?1|one (token )?too (many|few)",
            r"(divid|multipl)\w* (the logits )?by (the )?temperature|temperature (is )?(applied|used) (twice|after|before)",
            r"top[-_ ]?p",
            r"generator|global (random|rng)",
            r"threshold.{0,40}(row|batch)",
        ),
        code="""
def sample(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return logits.argmax(dim=-1)
    logits = logits / temperature
    if top_k is not None:
        k = min(top_k, logits.shape[-1])
        top = torch.topk(logits, k, dim=-1).indices  # (batch, k)
        mask = torch.zeros_like(logits, dtype=torch.bool).scatter(-1, top, True)
        logits = logits.masked_fill(mask, float("-inf"))
    if top_p is not None:
        sorted_probs, order = torch.softmax(logits, dim=-1).sort(dim=-1, descending=True)
        remove_sorted = sorted_probs.cumsum(dim=-1) - sorted_probs >= top_p
        remove_sorted[..., 0] = False
        remove = remove_sorted.scatter(-1, order, remove_sorted)
        logits = logits.masked_fill(remove, float("-inf"))
    probs = torch.softmax(logits, dim=-1)
    return torch.multinomial(probs, 1, generator=generator)[:, 0]
""",
        source=TOP_K_MASK_INVERTED,
    ),
    _c(
        "sample-top-p-mask-inverted",
        L11,
        "sample",
        "writes top-p as Meta's sample_top_p on sorted probabilities, mask = cumsum - probs > "
        "top_p, but zeroes the complement, probs_sort[~mask] = 0: the nucleus is the part "
        "removed and only the tokens past it are kept (a row whose nucleus is the whole "
        "vocabulary is left with nothing to draw).",
        (
            r"invert\w*|revers\w*|wrong (side|way round)|opposite|complement",
            r"(remov\w*|zero\w*|drop\w*|discard\w*) (the )?nucleus|nucleus (is |gets )?(removed|dropped|zeroed|discarded)",
            r"keeps? (only )?(the )?(tokens? )?(past|after|outside|beyond) (the )?nucleus|keeps? the tail|tail (is )?kept",
            r"~ ?mask|logical_not",
        ),
        (
            r"(drops?|removes?) the (token that )?cross\w*|crossing token",
            r"(divid|multipl)\w* (the logits )?by (the )?temperature|temperature (is )?(applied|used) (twice|after|before)",
            r"gather|scatter",
            r"ascending|least probable first",
            r"top[-_ ]?k",
            r"renormali[sz]",
        ),
        code="""
def sample(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return logits.argmax(dim=-1)
    logits = logits / temperature
    if top_k is not None:
        kth = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1).values[..., -1:]
        logits = torch.where(logits < kth, float("-inf"), logits)
    probs = torch.softmax(logits, dim=-1)
    if top_p is None:
        return torch.multinomial(probs, 1, generator=generator)[:, 0]
    probs_sort, probs_idx = torch.sort(probs, dim=-1, descending=True)
    mask = torch.cumsum(probs_sort, dim=-1) - probs_sort > top_p
    probs_sort[~mask] = 0.0
    probs_sort = probs_sort / probs_sort.sum(dim=-1, keepdim=True)
    choice = torch.multinomial(probs_sort, 1, generator=generator)  # (batch, 1) sorted rank
    return torch.gather(probs_idx, -1, choice)[:, 0]
""",
        source=TOP_P_MASK_INVERTED,
    ),
    _c(
        "sample-probs-taken-before-filters",
        L11,
        "sample",
        "computes probs = softmax(logits / temperature) right after the temperature, then "
        "filters the logits with top-k and top-p but draws from that earlier probs: the "
        "filtered logits are never used, so top_k and top_p have no effect on the draw.",
        (
            r"(before|ahead of) (the )?(filter\w*|top[-_ ]?k|top[-_ ]?p)",
            r"(top[-_ ]?k|top[-_ ]?p|filters?)\w*.{0,40}(no effect|ignored|never used|not applied|do(es)? nothing)",
            r"(stale|earlier|unfiltered|original) (probs|probabilities|distribution)",
            r"(filtered|masked) logits.{0,40}(never|not) used",
        ),
        (
            r"(divid|multipl)\w* (the logits )?by (the )?temperature|temperature (is )?(applied|used) (twice|after|before)",
            r"generator|global (random|rng)",
            r"(drops?|removes?) the (token that )?cross\w*",
            r"top[-_ ]?k ?\+ ?1|one (token )?too (many|few)",
            r"gather|scatter",
        ),
        code="""
def sample(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return logits.argmax(dim=-1)
    logits = logits / temperature
    probs = torch.softmax(logits, dim=-1)  # (batch, vocab)
    if top_k is not None:
        kth = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1).values[..., -1:]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    if top_p is not None:
        sorted_probs, order = torch.softmax(logits, dim=-1).sort(dim=-1, descending=True)
        remove_sorted = sorted_probs.cumsum(dim=-1) - sorted_probs >= top_p
        remove_sorted[..., 0] = False
        remove = remove_sorted.scatter(-1, order, remove_sorted)
        logits = logits.masked_fill(remove, float("-inf"))
    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)
""",
    ),
    # ---- 12 inference: KVCache --------------------------------------------------------------
    _c(
        "kv-buffers-made-in-inference-mode",
        L12,
        "KVCache",
        "allocates the two buffers inside a torch.inference_mode() block in __init__ (a cache "
        "is only for inference): they are inference tensors, so the first write into them "
        "outside inference mode (under no_grad or with autograd on) raises a raw RuntimeError, "
        "'Inplace update to inference tensor outside InferenceMode is not allowed'.",
        (
            r"inference[_ ]mode",
            r"inference tensors?",
            r"(creat|allocat|made|built)\w* (inside|in|under) (a |the )?(torch\.)?inference",
        ),
        (
            r"persistent",
            r"(ignor|drop)\w* (the )?dtype|always float32",
            r"(plain|python) (attribute|tensor)s?|not registered|instead of register_buffer",
            r"\bno_grad\b.{0,30}(missing|forgot)",
            r"nn\.Parameter|as parameters",
        ),
        code="""
class KVCache(nn.Module):
    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
        super().__init__()
        with torch.inference_mode():  # a cache never needs gradients
            zeros = torch.zeros(batch, num_heads, max_len, d_head, dtype=dtype)
            self.register_buffer("keys", zeros.clone(), persistent=False)
            self.register_buffer("values", zeros.clone(), persistent=False)
        self.length = 0

    def forward(self, k_new, v_new):
        start, stop = self.length, self.length + k_new.shape[-2]
        if stop > self.keys.shape[-2]:
            raise ValueError(f"the cache holds {self.keys.shape[-2]} positions, not {stop}")
        self.keys[:, :, start:stop] = k_new
        self.values[:, :, start:stop] = v_new
        self.length = stop
        return self.keys[:, :, :stop], self.values[:, :, :stop]
""",
        source=INFERENCE_MODE_CACHE,
    ),
    _c(
        "kv-one-spare-slot",
        L12,
        "KVCache",
        "allocates the buffers with one spare position, (batch, num_heads, max_len + 1, "
        "d_head), 'to be safe', and checks the capacity against the buffers' own length: the "
        "buffers have the wrong shape, and storing max_len + 1 positions is accepted instead of "
        "raising ValueError.",
        (
            r"max_len ?\+ ?1|one (extra|spare|more) (slot|position|row)|spare",
            r"(buffers?|allocat\w*).{0,60}(too (large|big|long)|one (position )?(too )?(long|many|large))",
            r"(max_len ?\+ ?1|one more|one too many) positions?.{0,60}(accept|stor|no error|without)",
            r"(does not|doesn't|never|fails to) raise.{0,40}(max_len ?\+ ?1|one (position )?(too )?(many|more))",
        ),
        (
            r"persistent",
            r"(ignor|drop)\w* (the )?dtype|always float32",
            r"(>=|>) (instead of|rather than) (>|>=)|full cache (is )?rejected",
            r"length.{0,30}(never|not) (advanced|updated)",
            r"RuntimeError|assert",
        ),
        code="""
class KVCache(nn.Module):
    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
        super().__init__()
        shape = (batch, num_heads, max_len + 1, d_head)  # one spare slot, to be safe
        self.register_buffer("keys", torch.zeros(shape, dtype=dtype), persistent=False)
        self.register_buffer("values", torch.zeros(shape, dtype=dtype), persistent=False)
        self.length = 0

    def forward(self, k_new, v_new):
        n = k_new.shape[2]
        if self.length + n > self.keys.shape[2]:
            raise ValueError("KV cache is full")
        self.keys[:, :, self.length : self.length + n] = k_new
        self.values[:, :, self.length : self.length + n] = v_new
        self.length += n
        return self.keys[:, :, : self.length], self.values[:, :, : self.length]
""",
    ),
    _c(
        "kv-new-positions-returned-twice",
        L12,
        "KVCache",
        "writes the new keys and values into the buffers, then returns the stored positions "
        "concatenated with k_new and v_new once more, torch.cat([keys[:, :, :stop], k_new]): "
        "the new positions, already in the slice, come back twice, so the result has "
        "length + n positions instead of length.",
        (
            r"twice|duplicat\w*|(double|two)[- ]?(count|copies)",
            r"concatenat\w*.{0,60}(again|once more|already (stored|in))",
            r"length ?\+ ?n\b|n (extra|too many) positions",
        ),
        (
            r"persistent",
            r"(ignor|drop)\w* (the )?dtype|always float32",
            r"(only|just) the new (keys|positions)",
            r"whole (buffer|max_len)|unfilled|zeros",
            r"(head|feature|last) axis",
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
        start, stop = self.length, self.length + k_new.shape[-2]
        if stop > self.keys.shape[-2]:
            raise ValueError(f"cannot store {stop} positions in a cache of {self.keys.shape[-2]}")
        self.keys[:, :, start:stop] = k_new
        self.values[:, :, start:stop] = v_new
        self.length = stop
        keys = torch.cat([self.keys[:, :, :stop], k_new], dim=-2)
        values = torch.cat([self.values[:, :, :stop], v_new], dim=-2)
        return keys, values
""",
        source=KV_CONCATENATED_TWICE,
    ),
    # ---- 12 inference: generate -------------------------------------------------------------
    _c(
        "gen-without-no-grad",
        L12,
        "generate",
        "leaves out the @torch.no_grad() decorator: the tokens and the logits' values are "
        "right, but every forward builds an autograd graph (the model's weights require grad), "
        "so the returned logits require grad and carry the graph of the whole generation, "
        "whose memory grows with every step.",
        (
            r"no_grad|inference_mode",
            r"requires?[_ ]grad|autograd|(computation(al)?|backward) graph|grad_fn",
            r"memory.{0,40}(grow|leak|kept|retain)",
        ),
        (
            r"start (is |stays )?(wrong|stale|zero|0\b|one (too )?(far|early))|wrong (start|positions?)",
            r"caches?.{0,30}(sized|too small|overflow|fresh|empty)",
            r"one step late|(late|off) by one",
            r"(records?|returns?) (the )?(probabilit\w*|softmax)",
            r"argmax.{0,30}(batch|flatten)",
        ),
        code="""
def generate(model, prompt, max_new_tokens):
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits = model(prompt, caches=caches, start=0)[:, -1]
    ids, steps = prompt, []
    for step in range(max_new_tokens):
        steps.append(logits)
        next_id = logits.argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
        if step + 1 < max_new_tokens:
            logits = model(next_id, caches=caches, start=length + step)[:, -1]
    return ids, torch.stack(steps, dim=1)
""",
        source=GENERATE_NO_GRAD,
    ),
    _c(
        "gen-chunked-prefill-offset-counted-twice",
        L12,
        "generate",
        "prefills the prompt in chunks of 4 tokens (each position still runs once, as a chunked "
        "prefill may) but passes start = processed + begin, adding the chunk's offset to a "
        "counter that already holds it: the second chunk is rotated as positions 8.., the "
        "third as 16.., so for a prompt longer than 4 tokens the cached keys of every chunk "
        "after the first sit at twice their position.",
        (
            r"chunk\w*",
            r"(offset|start|position)\w*.{0,60}(twice|double\w*|counted two|added (twice|again))",
            r"(twice|2 ?[x×*]|double) (its|their|the) (position|offset)",
        ),
        (
            r"start.{0,30}(zero|0\b)",
            r"caches?.{0,30}(sized|too small|overflow|fresh|empty)",
            r"one step late|logits.{0,30}late",
            r"(prefill|prompt).{0,40}without (the )?cache",
            r"argmax.{0,30}(batch|flatten)",
        ),
        code="""
@torch.no_grad()
def generate(model, prompt, max_new_tokens):
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    chunk_size = 4  # prefill a few tokens at a time, as mlx-lm does
    processed = 0
    for begin in range(0, length, chunk_size):
        chunk = prompt[:, begin : begin + chunk_size]
        logits = model(chunk, caches=caches, start=processed + begin)[:, -1]
        processed += chunk.shape[1]
    ids, steps = prompt, []
    for step in range(max_new_tokens):
        steps.append(logits)
        next_id = logits.argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
        if step + 1 < max_new_tokens:
            logits = model(next_id, caches=caches, start=length + step)[:, -1]
    return ids, torch.stack(steps, dim=1)
""",
        source=CHUNKED_PREFILL_OFFSET,
    ),
    _c(
        "gen-logits-buffer-takes-prompt-dtype",
        L12,
        "generate",
        "preallocates the returned logits with prompt.new_zeros(batch, max_new_tokens, vocab), "
        "which takes the prompt's int64 dtype: each step's logits are truncated to whole "
        "numbers when written into it and come back as int64, although the tokens (chosen from "
        "the float logits before the copy) are right.",
        (
            r"int(eger|64)?\b.{0,60}(logits|buffer)|(logits|buffer).{0,60}\bint(eger|64)?\b",
            r"truncat\w*|whole numbers|round\w* (down|towards zero)",
            r"new_zeros|(inherit|tak)\w* (the )?(prompt|ids)'?s? dtype",
            r"dtype.{0,40}(prompt|ids|token)",
        ),
        (
            r"start (is |stays )?(wrong|stale|zero|0\b|one (too )?(far|early))|wrong (start|positions?)",
            r"caches?.{0,30}(sized|too small|overflow|fresh|empty)",
            r"one step late|(late|off) by one",
            r"(records?|returns?) (the )?(probabilit\w*|softmax)",
            r"argmax.{0,30}(batch|flatten)",
        ),
        code="""
@torch.no_grad()
def generate(model, prompt, max_new_tokens):
    batch, length = prompt.shape
    vocab = model.embedding.num_embeddings
    caches = model.new_caches(batch, length + max_new_tokens)
    all_logits = prompt.new_zeros(batch, max_new_tokens, vocab)
    ids = prompt
    logits = model(prompt, caches=caches, start=0)[:, -1]
    for step in range(max_new_tokens):
        all_logits[:, step] = logits
        next_id = logits.argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
        if step + 1 < max_new_tokens:
            logits = model(next_id, caches=caches, start=length + step)[:, -1]
    return ids, all_logits
""",
    ),
]
