"""Held-out wrong answers for lesson 11, blind round 9 (helper b9b, 2026-11-27).

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run. Most transpose a mistake described in a public issue thread (the URL read for this
benchmark with the search tool) to the course's exercise; the others are the author's.
Kinds favoured: two mistakes at once, mistakes that only show on some inputs (batch > 1,
a batch of one, float32 vs float64 inputs, d_ff != d_model, num_layers > 1), wrong
shapes, dtypes and types returned, in-place edits of an input, Python-level slips that
raise (true division in a slice index, a tuple unpacked the wrong way round), and sizes
hard-coded to a common value.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out

AUTHOR = "author: written for this benchmark, no public report cited"

L11 = "11_language_model"

# The reports these cases transpose (each read with the search tool for this benchmark).
TARGETS_TOO_FAR = "https://github.com/tamangmilan/llama3/pull/1"
RMS_IN_PLACE_FLOAT32 = "https://github.com/GeeeekExplorer/nano-vllm/issues/170"
MEAN_NO_KEEPDIM = "https://github.com/jadore801120/attention-is-all-you-need-pytorch/pull/11"
LINSPACE_FREQS = "https://github.com/microsoft/torchscale/issues/80"
COMPLEX_ROPE_DTYPE = "https://github.com/patrick-kidger/equinox/pull/836"
GEGLU_FOR_SWIGLU = "https://github.com/THUDM/slime/pull/1825"
MERGE_NO_PERMUTE = "https://github.com/xieenze/Trans2Seg/issues/4"
IN_PLACE_RESIDUAL = "https://github.com/vllm-project/vllm/pull/24500"
LAYERS_NOT_CHAINED = "https://github.com/huaxiuyao/Wild-Time/issues/10"
NORMAL_MEAN_FIRST = "https://github.com/mila-iqia/blocks/issues/123"
TOPK_NO_KEEPDIM = "https://github.com/huggingface/transformers/pull/338"
TOP_P_ASCENDING = "https://github.com/dmlc/gluon-nlp/issues/1481"
SQUEEZE_BATCH_ONE = "https://github.com/NVIDIA/DeepLearningExamples/pull/765"

_case = held_out("blind9b")

_IN_PLACE = (
    r"in[- ]place",
    r"(modif|chang|overwr|alter|mutat)\w*.{0,50}(input|argument|caller|given tensor)",
)

BLIND9B: list[Case] = [
    # ------------------------------------------------------------ next_token_batches
    _case(
        "batches-targets-two-ahead",
        L11,
        "next_token_batches",
        "two mistakes at once: the targets are taken two tokens ahead (tokens[positions + "
        "2]) and, to keep that in range, the starts are drawn below len(tokens) - "
        "block_size - 1, so the last valid start is never drawn.",
        TARGETS_TOO_FAR,
        (
            r"(two|2) (tokens?|positions?) (ahead|too far|later|on)",
            r"positions \+ 2",
            r"shift\w* by (two|2)",
            r"one (token|position) too far",
            r"inputs?\[.{0,20}\+ ?2\]",
        ),
        (r"not shifted", r"same as the inputs", r"global (random|generator|stream)"),
        edits=(
            (
                "len(tokens) - block_size, (batch_size,)",
                "len(tokens) - block_size - 1, (batch_size,)",
            ),
            ("tokens[positions + 1]", "tokens[positions + 2]"),
        ),
    ),
    _case(
        "batches-targets-ids-plus-one",
        L11,
        "next_token_batches",
        "adds one to the token ids instead of to the positions (tokens[positions] + 1), "
        "so each target is its input's id plus one, not the next token.",
        AUTHOR,
        (
            r"(token )?(ids?|values?).{0,40}(\+ ?1|plus one|added|incremented)",
            r"tokens\[positions\] \+ 1",
            r"adds? (1|one) to the (token|id|value)",
            r"(inputs?|ids?) ?\+ ?1",
        ),
        (r"not shifted", r"global (random|generator|stream)", r"start"),
        edits=(("tokens[positions + 1]", "tokens[positions] + 1"),),
    ),
    # ------------------------------------------------------------ RMSNorm
    _case(
        "rms-in-place-on-float32",
        L11,
        "RMSNorm",
        "upcasts with x.float() and normalises with an in-place mul_: for a float32 "
        "input x.float() is x itself, so the caller's tensor is overwritten (a float64 "
        "input is copied and escapes).",
        RMS_IN_PLACE_FLOAT32,
        _IN_PLACE,
        (r"subtract", r"eps.{0,30}outside", r"dtype"),
        code="class RMSNorm(nn.Module):\n"
        "    def __init__(self, d_model, eps=1e-5):\n"
        "        super().__init__()\n"
        "        self.eps = eps\n"
        "        self.weight = nn.Parameter(torch.ones(d_model))\n"
        "\n"
        "    def forward(self, x):\n"
        "        dtype = x.dtype\n"
        "        h = x.float()\n"
        "        h.mul_(torch.rsqrt(h.pow(2).mean(dim=-1, keepdim=True) + self.eps))\n"
        "        return h.to(dtype) * self.weight\n",
    ),
    _case(
        "rms-mean-no-keepdim",
        L11,
        "RMSNorm",
        "takes the mean square without keepdim=True, so the (..., ) statistic does not "
        "broadcast against (..., d_model): a shape error, or a silently wrong result "
        "when the last two sizes happen to match.",
        MEAN_NO_KEEPDIM,
        (
            r"keepdim",
            r"\(\.\.\., ?1\)",
            r"broadcast",
            r"trailing (axis|dimension) of (size )?1",
        ),
        (r"subtract", r"eps.{0,30}outside", r"sequence axis"),
        edits=(("x.pow(2).mean(dim=-1, keepdim=True)", "x.pow(2).mean(dim=-1)"),),
    ),
    # ------------------------------------------------------------ rotary_embedding
    _case(
        "rope-linspace-exponents",
        L11,
        "rotary_embedding",
        "takes the exponents from torch.linspace(0, 1, d_head // 2) (RetNet's way) "
        "instead of 2i / d_head, so theta_i = base ** (-i / (d_head/2 - 1)): the last "
        "frequency is exactly 1 / base and every other one is slightly too low.",
        LINSPACE_FREQS,
        (
            r"linspace",
            r"2 ?i ?/ ?d_head",
            r"exponent",
            r"(last|lowest|smallest) frequenc",
            r"1 ?/ ?base",
        ),
        (r"positions? (start|from) 1", r"transpos", r"swap", r"base.{0,30}ignor"),
        edits=(
            (
                "-torch.arange(0, d_head, 2, dtype=torch.float64) / d_head",
                "-torch.linspace(0, 1, d_head // 2, dtype=torch.float64)",
            ),
        ),
    ),
    _case(
        "rope-returns-complex",
        L11,
        "rotary_embedding",
        "returns Meta Llama's single complex table torch.polar(ones, angles) "
        "(freqs_cis) instead of the tuple (cos, sin) of two float32 tensors.",
        AUTHOR,
        (r"complex", r"polar", r"tuple", r"\(cos, ?sin\)", r"two tensors"),
        (r"transpos", r"positions? (start|from) 1", r"swap"),
        code="def rotary_embedding(length, d_head, base=10000.0):\n"
        "    theta = 1.0 / base ** (torch.arange(0, d_head, 2).float() / d_head)\n"
        "    angles = torch.outer(torch.arange(length).float(), theta)\n"
        "    return torch.polar(torch.ones_like(angles), angles)\n",
    ),
    # ------------------------------------------------------------ apply_rotary
    _case(
        "rotary-complex-upcast",
        L11,
        "apply_rotary",
        "rotates adjacent pairs as complex numbers via view_as_complex(x.float()) and "
        "never casts back, so a float64 (or half) input comes back as float32.",
        COMPLEX_ROPE_DTYPE,
        (r"dtype", r"float32", r"(cast|convert)\w* back", r"type_as"),
        (r"sign", r"(halves|pairs).{0,30}swap", r"in[- ]place"),
        code="def apply_rotary(x, cos, sin):\n"
        "    pairs = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))\n"
        "    turned = pairs * torch.complex(cos, sin)\n"
        "    return torch.view_as_real(turned).flatten(-2)\n",
    ),
    _case(
        "rotary-half-true-division",
        L11,
        "apply_rotary",
        "computes half = x.shape[-1] / 2 (true division), a float, so slicing "
        "x[..., :half] raises a TypeError: it should be // 2.",
        AUTHOR,
        (r"//", r"integer", r"float.{0,40}(index|slice)", r"slice indices"),
        (r"sign", r"swap", r"dtype"),
        edits=(("half = x.shape[-1] // 2", "half = x.shape[-1] / 2"),),
    ),
    # ------------------------------------------------------------ SwiGLU
    _case(
        "swiglu-gelu-gate",
        L11,
        "SwiGLU",
        "gates with GELU instead of SiLU (a GEGLU, Gemma's feed-forward), w2(gelu(w1(x)) * w3(x)).",
        GEGLU_FOR_SWIGLU,
        (r"gelu", r"geglu"),
        (r"\brelu", r"sigmoid", r"bias", r"(gate|value).{0,30}swap"),
        edits=(("F.silu(self.w1(x))", "F.gelu(self.w1(x))"),),
    ),
    _case(
        "swiglu-w2-on-gate-only",
        L11,
        "SwiGLU",
        "applies w2 to the gate alone and multiplies by the value afterwards, "
        "w2(silu(w1(x))) * w3(x): a shape error whenever d_ff != d_model, a wrong "
        "result when they are equal.",
        AUTHOR,
        (
            r"w2.{0,80}(product|after|last|outermost|outside)",
            r"(appl|call)\w* w2.{0,40}(too early|before)",
            r"(product|multipl\w*).{0,60}(before|inside).{0,20}w2",
        ),
        (r"bias", r"(gate|value).{0,30}swap", r"silu.{0,30}(on|to) (the )?(value|w3|product)"),
        edits=(
            (
                "self.w2(F.silu(self.w1(x)) * self.w3(x))",
                "self.w2(F.silu(self.w1(x))) * self.w3(x)",
            ),
        ),
    ),
    # ------------------------------------------------------------ CausalSelfAttention
    _case(
        "csa-merge-reshape-no-transpose",
        L11,
        "CausalSelfAttention",
        "merges the heads with a plain reshape of (batch, num_heads, len, d_head) to "
        "(batch, len, d_model), without moving the head axis back first, so each "
        "output position mixes several positions of one head.",
        MERGE_NO_PERMUTE,
        (
            r"transpos",
            r"permut",
            r"merge_heads",
            r"(heads?|positions?) (are )?(mixed|interleaved|scrambled)",
            r"plain reshape",
        ),
        (r"no mask|without (a |the )?mask", r"rotat", r"scal(e|ing)"),
        edits=(
            (
                "return self.w_o(merge_heads(heads))",
                "return self.w_o(heads.reshape(x.shape[0], length, -1))",
            ),
        ),
    ),
    _case(
        "csa-keys-from-w-q",
        L11,
        "CausalSelfAttention",
        "a copy-paste slip: the keys are projected with w_q (k = split_heads(self.w_q(x), "
        "...)), so w_k is never used.",
        AUTHOR,
        (
            r"w_k.{0,60}(never|not|un)\s?(used|called)",
            r"keys?.{0,60}w_q",
            r"w_q.{0,60}keys?",
            r"(unused|never used).{0,30}w_k",
        ),
        (r"no mask|without (a |the )?mask", r"rotat\w* (the )?values", r"scal(e|ing)"),
        edits=(
            (
                "k = split_heads(self.w_k(x), self.num_heads)",
                "k = split_heads(self.w_q(x), self.num_heads)",
            ),
        ),
    ),
    _case(
        "csa-attention-tuple-swapped",
        L11,
        "CausalSelfAttention",
        "unpacks scaled_dot_product_attention's (output, weights) the wrong way round "
        "(_, heads = ...), so the (batch, num_heads, len, len) weights are merged and "
        "projected instead of the heads' outputs.",
        AUTHOR,
        (
            r"(took|takes|used|uses|unpack\w*|merg\w*).{0,60}weights",
            r"weights.{0,40}instead of",
            r"\((output|heads|result), ?(_|weights)\)",
            r"(first|second) (element|value|output|item)",
        ),
        (r"no mask|without (a |the )?mask", r"rotat", r"scal(e|ing)"),
        edits=(
            (
                "heads, _ = scaled_dot_product_attention(",
                "_, heads = scaled_dot_product_attention(",
            ),
        ),
    ),
    # ------------------------------------------------------------ DecoderBlock
    _case(
        "block-in-place-residual",
        L11,
        "DecoderBlock",
        "writes both residuals in place (x += attn(norm1(x)); x += feed_forward(norm2(x)); "
        "return x), which overwrites the caller's input tensor (and breaks backward, "
        "since norm1 saved x).",
        IN_PLACE_RESIDUAL,
        _IN_PLACE,
        (
            r"residual.{0,30}(missing|no |without)",
            r"post-?norm",
            r"norms?.{0,20}swap",
        ),
        edits=(
            (
                "h = x + self.attn(self.norm1(x))",
                "x += self.attn(self.norm1(x))\n        h = x",
            ),
            (
                "return h + self.feed_forward(self.norm2(h))",
                "h += self.feed_forward(self.norm2(h))\n        return h",
            ),
        ),
    ),
    _case(
        "block-eps-passed-as-base",
        L11,
        "DecoderBlock",
        "passes eps to CausalSelfAttention as its third positional argument, "
        "CausalSelfAttention(d_model, num_heads, eps), which is the RoPE base: the "
        "attention rotates with base 1e-5 instead of 10000.",
        AUTHOR,
        (r"\bbase\b", r"eps.{0,60}(attn|attention|CausalSelfAttention)"),
        (r"residual", r"post-?norm", r"norms?.{0,20}swap"),
        edits=(
            (
                "self.attn = CausalSelfAttention(d_model, num_heads)",
                "self.attn = CausalSelfAttention(d_model, num_heads, eps)",
            ),
        ),
    ),
    _case(
        "block-d-ff-hardcoded",
        L11,
        "DecoderBlock",
        "ignores d_ff and builds the feed-forward with the usual 4 * d_model, "
        "SwiGLU(d_model, 4 * d_model): right only when the caller's d_ff is 4 * d_model.",
        AUTHOR,
        (
            r"d_ff.{0,60}(ignor|not used|hard[- ]?coded|4 ?\* ?d_model)",
            r"4 ?\* ?d_model",
            r"(hidden (width|size)|w1|w3|w2).{0,60}d_ff",
        ),
        (r"bias", r"residual", r"post-?norm"),
        edits=(
            (
                "self.feed_forward = SwiGLU(d_model, d_ff)",
                "self.feed_forward = SwiGLU(d_model, 4 * d_model)",
            ),
        ),
    ),
    # ------------------------------------------------------------ GPT
    _case(
        "gpt-layers-not-chained",
        L11,
        "GPT",
        "does not chain the blocks: h = layer(x) in the loop feeds every block the "
        "embeddings, so only the last block's output reaches the final norm (right only "
        "for num_layers = 1).",
        LAYERS_NOT_CHAINED,
        (
            r"chain",
            r"(each|every) (layer|block).{0,60}(embedding|same input|stack's input)",
            r"layers?\[\d\].{0,60}(receives?|reads?|gets?).{0,60}(input|embedding)",
            r"(only|just) the last (layer|block)",
            r"previous (layer|block)'?s output",
        ),
        (r"final norm", r"tied|tying|transpos", r"shared|same weights", r"plain (python )?list"),
        edits=(
            ("x = layer(x)", "h = layer(x)"),
            ("return self.norm(x) @", "return self.norm(h) @"),
        ),
    ),
    _case(
        "gpt-init-std-as-mean",
        L11,
        "GPT",
        "writes nn.init.normal_(self.embedding.weight, 0.02): the second positional "
        "argument is the mean, so the embedding is initialised with mean 0.02 and "
        "standard deviation 1.",
        NORMAL_MEAN_FIRST,
        (
            r"mean.{0,30}0\.02",
            r"0\.02.{0,40}(as|is|was|became) the mean",
            r"second (positional )?argument.{0,40}mean",
            r"std ?=",
        ),
        (r"tied|tying|transpos", r"final norm"),
        edits=(
            (
                "nn.init.normal_(self.embedding.weight, std=0.02)",
                "nn.init.normal_(self.embedding.weight, 0.02)",
            ),
        ),
    ),
    _case(
        "gpt-returns-probabilities",
        L11,
        "GPT",
        "applies a softmax at the end of forward, returning probabilities instead of the logits.",
        AUTHOR,
        (r"softmax", r"probabilit", r"logits.{0,40}not (probabilities|normali)"),
        (r"final norm", r"tied|tying|transpos", r"scal(e|ing)"),
        edits=(
            (
                "return self.norm(x) @ self.embedding.weight.T",
                "return torch.softmax(self.norm(x) @ self.embedding.weight.T, dim=-1)",
            ),
        ),
    ),
    # ------------------------------------------------------------ sample
    _case(
        "sample-top-k-threshold-no-keepdim",
        L11,
        "sample",
        "takes the k-th largest logit as .values[..., -1] (shape (batch,)) instead of "
        "[..., -1:], so the threshold does not line up with the (batch, vocab) logits: "
        "right for a batch of one, a broadcasting error for larger batches.",
        TOPK_NO_KEEPDIM,
        (
            r"keepdim",
            r"\[\.\.\., ?-1:\]|\[:, ?\[-1\]\]|\[:, ?-1:\]",
            r"(threshold|k-th|kth).{0,60}(shape|broadcast|column|\(batch, ?1\))",
            r"broadcast",
        ),
        (r"temperature.{0,40}(multipl|after|not divid)", r"global (random|generator)"),
        edits=(("values[..., -1:]", "values[..., -1]"),),
    ),
    _case(
        "sample-top-p-ascending",
        L11,
        "sample",
        "sorts the probabilities for top-p in ascending order (no descending=True), so "
        "the nucleus is built from the least probable tokens.",
        TOP_P_ASCENDING,
        (
            r"descending",
            r"ascending",
            r"(least|lowest) probab",
            r"sort\w*.{0,40}(decreasing|largest first|most probable first)",
        ),
        (r"temperature", r"top-k.{0,30}(before|after)", r"gather", r"crossing"),
        edits=(("sort(dim=-1, descending=True)", "sort(dim=-1)"),),
    ),
    _case(
        "sample-squeeze-batch-of-one",
        L11,
        "sample",
        "returns torch.multinomial(...).squeeze() instead of [:, 0]: right for a batch "
        "of several rows, but a batch of one comes back as a 0-d tensor, shape () "
        "instead of (1,).",
        SQUEEZE_BATCH_ONE,
        (
            r"squeeze",
            r"batch (of|size) (one|1)",
            r"shape \(\)|shape=\(\)|0-d|scalar",
            r"\(1,\)",
        ),
        (r"\(batch, ?1\)", r"global (random|generator)", r"temperature"),
        edits=(
            (
                "torch.multinomial(probs, 1, generator=generator)[:, 0]",
                "torch.multinomial(probs, 1, generator=generator).squeeze()",
            ),
        ),
    ),
    _case(
        "sample-greedy-argmax-no-dim",
        L11,
        "sample",
        "at temperature 0 returns logits.argmax() without dim=-1: one index into the "
        "flattened batch (shape ()) instead of one argmax per row.",
        AUTHOR,
        (
            r"dim ?= ?-1",
            r"flatten",
            r"(whole|entire) (batch|tensor)",
            r"argmax.{0,40}(dim|axis|per row|each row)",
        ),
        (r"argmin", r"temperature.{0,30}(multipl|divid)", r"global (random|generator)"),
        edits=(("return logits.argmax(dim=-1)", "return logits.argmax()"),),
    ),
]
