"""Held-out wrong answers, blind round 23 (helper b23c, 2026-11-29, lessons 11-12): mistakes new to
the benchmark, written blind (no check module, no message read) while fix round 25 changed
the checks, to measure how the diagnoses generalise to mistakes nobody here has seen
(``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L11, L12 = "11_language_model", "12_inference"

_c = held_out_authored("blind23c")

# Where these mistakes are reported (each page was read for this batch).
BOS_SHIFT = "https://github.com/tamangmilan/llama3/pull/1"
EMPTY_PARAMETER = "https://github.com/openai/CLIP/issues/15"
LLAMA3_ROPE = "https://github.com/trholding/llama2.c/pull/14"
PARTIAL_ROTARY = "https://github.com/lucidrains/x-transformers/issues/40"
PROJECT_AFTER_SPLIT = "https://github.com/MarcoMeter/episodic-transformer-memory-ppo/pull/22"
NORM_EPS_PROPAGATION = "https://github.com/meta-pytorch/torchtune/pull/29"
THRESHOLD_SCALES = "https://github.com/davidmrau/mixture-of-experts/issues/31"
CACHE_FIRST_CALL = "https://github.com/jingtian11/EasyOffer/issues/2"
CACHE_RESIZE = "https://github.com/karpathy/nanochat/pull/186"
REPETITION_PENALTY = "https://github.com/huggingface/transformers/issues/2302"
GQA_FOLD = "https://github.com/Dao-AILab/flash-attention/issues/690"
SCALE_BOTH = "https://github.com/cmsflash/efficient-attention/issues/5"
GATE_PLUS_ONE = "https://github.com/vllm-project/vllm/pull/42578"
TOP_P_CUTOFF_ARGMAX = "https://github.com/BlinkDL/ChatRWKV/pull/170"
SCALE_AFTER_SOFTMAX = "https://github.com/FrancescoSaverioZuppichini/ViT/issues/2"

BLIND23C: list[Case] = [
    # ---- 11 language model ----------------------------------------------------------------
    _c(
        "ntb-bos-prepended-targets-two-ahead",
        L11,
        "next_token_batches",
        "prepends a beginning-of-sequence id 0 to every input window (dropping the window's "
        "last token) but keeps the targets tokens[s + 1 : s + block_size + 1], so "
        "inputs[b, t] = tokens[s + t - 1]: every target after the first is two tokens ahead "
        "of its input, and the first input is a made-up id 0.",
        (
            r"two (tokens?|positions?|places|steps) (ahead|after|later)",
            r"(beginning|start)[- ]of[- ](sequence|text)|\bbos\b|prepend",
            r"inputs?.{0,60}shifted (right|by one|one (place|position))",
            r"(made[- ]up|extra|added|inserted) (id|token) 0|id 0 .{0,40}(first|front|start)",
            r"inputs?\[.{0,20}\] ?= ?tokens\[s ?\+ ?t ?- ?1\]",
        ),
        (
            r"targets? (are|equal) the inputs|(not|never) shifted",
            r"global (random|generator|stream)",
            r"last (valid )?start",
            r"time[- ]major|\(block_size, batch_size\)",
        ),
        code="""
import torch


def next_token_batches(tokens, block_size, batch_size, generator):
    starts = torch.randint(0, len(tokens) - block_size, (batch_size,), generator=generator)
    bos = torch.zeros(batch_size, 1, dtype=tokens.dtype)  # a start-of-sequence id
    positions = starts[:, None] + torch.arange(block_size - 1)
    inputs = torch.cat([bos, tokens[positions]], dim=1)
    targets = tokens[starts[:, None] + torch.arange(1, block_size + 1)]
    return inputs, targets
""",
        source=BOS_SHIFT,
    ),
    _c(
        "rms-gain-torch-empty",
        L11,
        "RMSNorm",
        "creates the gain as nn.Parameter(torch.empty(d_model)) and never initialises it, so "
        "the weight holds whatever the memory held (zeros, huge numbers or NaN) instead of "
        "ones: the normalisation is right, but a fresh RMSNorm does not return x / rms(x).",
        (
            r"torch\.empty|uninitiali[sz]ed|garbage",
            r"(gain|weight).{0,80}(not|never) initiali[sz]ed",
            r"(gain|weight).{0,80}(should|must) (start|be initiali[sz]ed|be created) (as|at|with|to) "
            r"(ones|1)",
            r"(initiali[sz]\w*|start\w*|create\w*) (it |the (gain|weight) )?(with|as|to) "
            r"(torch\.)?ones",
        ),
        (
            r"subtract\w* (the |each token's )?mean|layer ?norm",
            r"eps.{0,30}(outside|after) the (square )?root",
            r"over the (sequence|positions|batch) axis",
            r"(gain|weight) (is )?(missing|never (used|applied|multiplied))",
        ),
        code="""
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.empty(d_model))

    def forward(self, x):
        mean_square = x.pow(2).mean(dim=-1, keepdim=True)
        return x * torch.rsqrt(mean_square + self.eps) * self.weight
""",
        source=EMPTY_PARAMETER,
    ),
    _c(
        "rms-square-of-the-mean",
        L11,
        "RMSNorm",
        "squares the mean instead of averaging the squares: x.mean(-1).pow(2) in place of "
        "x.pow(2).mean(-1), so each token is divided by |mean(x)| (about 0 for centred "
        "features) instead of its root mean square.",
        (
            r"square of the mean|mean\(x\) ?(\*\* ?2|squared)|squar\w* (the|its) mean",
            r"mean (is )?squared|squared? (after|before) (taking )?the mean",
            r"mean of (the )?squares",
            r"x\.mean\(.{0,30}\)\.pow\(2\)",
        ),
        (
            r"subtract\w* (the |each token's )?mean|variance|centr\w* (the )?(features|tokens)",
            r"over the (sequence|positions|batch) axis",
            r"absolute value",
            r"sum of (the )?squares|l2 norm",
            r"eps.{0,30}(outside|after) the (square )?root",
        ),
        edits=(
            (
                "mean_square = x.pow(2).mean(dim=-1, keepdim=True)",
                "mean_square = x.mean(dim=-1, keepdim=True).pow(2)",
            ),
        ),
    ),
    _c(
        "rope-llama3-frequency-scaling",
        L11,
        "rotary_embedding",
        "copies Llama 3.1's RoPE frequency scaling into the table (factor 8, low_freq_factor "
        "1, high_freq_factor 4, original context 8192): every frequency whose wavelength "
        "2 pi / theta_i is above 2048 is divided by up to 8, so the slow pairs' angles are "
        "not m * base ** (-2i / d_head).",
        (
            r"llama ?3|rope[_ ]scaling|frequency scaling|scaled frequenc",
            r"frequenc\w*.{0,80}(divided|scaled|too (small|low|slow)|by (a )?factor|smoothed)",
            r"(long|large|low[- ]frequency) wavelength|wavelength",
            r"(lowest|smallest|slowest|last) (few )?(frequenc|pairs?)",
        ),
        (
            r"positions? (start|from|counted from) (at )?1|positions 1 ?\.\.",
            r"base ?\*\* ?\(?\+|frequencies grow",
            r"(without|missing|leaves out) the (factor )?2|i ?/ ?d_head",
            r"(cos|sin).{0,20}swapped|\(sin, cos\)",
            r"float64|returns? float64",
        ),
        code="""
import math

import torch


def rotary_embedding(length, d_head, base=10000.0):
    theta = base ** (-torch.arange(0, d_head, 2, dtype=torch.float64) / d_head)
    # Llama 3.1's frequency scaling, for long contexts
    factor, low_freq_factor, high_freq_factor, old_context = 8.0, 1.0, 4.0, 8192
    low_wavelen, high_wavelen = old_context / low_freq_factor, old_context / high_freq_factor
    wavelen = 2 * math.pi / theta
    smooth = (old_context / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    scaled = torch.where(wavelen > low_wavelen, theta / factor, theta)
    middle = (wavelen >= high_wavelen) & (wavelen <= low_wavelen)
    scaled = torch.where(middle, (1 - smooth) * theta / factor + smooth * theta, scaled)
    angles = torch.arange(length, dtype=torch.float64)[:, None] * scaled
    return angles.cos().float(), angles.sin().float()
""",
        source=LLAMA3_ROPE,
    ),
    _c(
        "rotary-partial-first-half-only",
        L11,
        "apply_rotary",
        "rotates only the first half of each head's features (a partial rotary dimension, "
        "as GPT-NeoX's rotary_pct or x-transformers' rotary_emb_dim do) and passes the "
        "second half through unchanged, using the first d_head // 4 angles: the lesson "
        "rotates every pair of the head.",
        (
            r"only (the )?(first )?half|partial|rotary_(pct|dim|emb_dim)",
            r"(second|last|other) half.{0,80}(unchanged|not rotated|unrotated|untouched|passed "
            r"through|left as)",
            r"(features|dimensions|pairs).{0,60}(not rotated|left unrotated|never rotated)",
            r"(every|all) (the )?(pairs|features)",
        ),
        (
            r"rotat\w* (the )?(wrong way|backwards)|sign (is )?(wrong|flipped)",
            r"(halves|pairs) (are )?(swapped|in the wrong order)",
            r"in[- ]place|modif\w* (the )?(caller|input)",
            r"(returns|comes back) (as )?float32|upcast",
        ),
        code="""
import torch


def apply_rotary(x, cos, sin):
    rot = x.shape[-1] // 2  # the rotated part of the head; the rest passes through
    x_rot, x_pass = x[..., :rot], x[..., rot:]
    half = rot // 2
    cos, sin = cos[..., :half].to(x.dtype), sin[..., :half].to(x.dtype)
    a, b = x_rot[..., :half], x_rot[..., half:]
    return torch.cat([a * cos - b * sin, a * sin + b * cos, x_pass], dim=-1)
""",
        source=PARTIAL_ROTARY,
    ),
    _c(
        "swiglu-silu-on-input",
        L11,
        "SwiGLU",
        "applies the SiLU to the block's input before the gate projection, w1(silu(x)), "
        "instead of to the gate projection's output, silu(w1(x)): the product is "
        "w2(w1(silu(x)) * w3(x)).",
        (
            r"silu.{0,60}(the )?(input|x\b)|silu\(x\)",
            r"(before|inside) (the )?(gate )?(projection|w1)",
            r"w1\(silu|w1\(f\.silu",
            r"(gate|w1\(x\)).{0,60}(not|never|without) (passed through|activated|gated|a silu)",
        ),
        (
            r"silu.{0,30}(of |on |over )?(the )?(product|w3|value)",
            r"gate and (the )?value.{0,20}swapped|w1 and w3.{0,20}swapped",
            r"\brelu\b|\bgelu\b|sigmoid (instead|gate)",
            r"bias",
        ),
        edits=(
            (
                "return self.w2(F.silu(self.w1(x)) * self.w3(x))",
                "return self.w2(self.w1(F.silu(x)) * self.w3(x))",
            ),
        ),
    ),
    _c(
        "swiglu-gate-times-value-plus-one",
        L11,
        "SwiGLU",
        "computes the gated product with a fused multiply-add that adds the gate once more, "
        "silu(w1(x)) * w3(x) + silu(w1(x)) = silu(w1(x)) * (w3(x) + 1), so the hidden layer "
        "carries an extra copy of the activated gate before w2.",
        (
            r"(w3\(x\)|value) ?\+ ?1|plus one",
            r"(extra|additional|second) (copy of the |term of the )?(activated )?gate",
            r"(adds|added) the (activated )?gate",
            r"fma|multiply-add",
        ),
        (
            r"silu.{0,30}(of |on |over )?(the )?(product|w3|value)",
            r"gate and (the )?value.{0,20}swapped|w1 and w3.{0,20}swapped",
            r"\brelu\b|\bgelu\b|sigmoid (instead|gate)",
            r"residual|x ?\+ ?w2",
        ),
        edits=(
            (
                "return self.w2(F.silu(self.w1(x)) * self.w3(x))",
                "gate = F.silu(self.w1(x))\n"
                "        return self.w2(torch.addcmul(gate, gate, self.w3(x)))",
            ),
        ),
        source=GATE_PLUS_ONE,
    ),
    _c(
        "csa-project-after-split-shared-by-heads",
        L11,
        "CausalSelfAttention",
        "splits the input x into heads first and projects each head with one "
        "nn.Linear(d_head, d_head) shared by all heads (w_q, w_k, w_v of shape "
        "(d_head, d_head)), instead of projecting the whole d_model features with "
        "nn.Linear(d_model, d_model) and splitting the result: each head sees only its own "
        "slice of x and every head uses the same weights.",
        (
            r"(split|cut)\w* (x|the input).{0,60}(before|then) (the )?project",
            r"project\w*.{0,60}(after|per|each|shared by (all|every)) (splitting|head)",
            r"(one|same|single|shared) (projection|w_q|weight|linear).{0,60}(every|all|each) heads?",
            r"\(d_head, d_head\)|linear\(d_head, d_head\)|d_head (in|input) features",
            r"(d_model, d_model)",
        ),
        (
            r"\bbias(es)?\b",
            r"values?.{0,30}rotated",
            r"(no|without) (the )?(causal )?mask|sees? the future",
            r"(not|never) (divided|scaled) by sqrt",
        ),
        code="""
import torch
from torch import nn


class CausalSelfAttention(nn.Module):
    def __init__(self, d_model, num_heads, base=10000.0):
        super().__init__()
        if d_model % num_heads:
            raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
        self.num_heads, self.d_head, self.base = num_heads, d_model // num_heads, base
        self.w_q = nn.Linear(self.d_head, self.d_head, bias=False)
        self.w_k = nn.Linear(self.d_head, self.d_head, bias=False)
        self.w_v = nn.Linear(self.d_head, self.d_head, bias=False)
        self.w_o = nn.Linear(d_model, d_model, bias=False)

    def forward(self, x):
        length = x.shape[1]
        heads = split_heads(x, self.num_heads)  # (batch, num_heads, len, d_head)
        q, k, v = self.w_q(heads), self.w_k(heads), self.w_v(heads)
        cos, sin = rotary_embedding(length, self.d_head, self.base)
        q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
        out, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))
        return self.w_o(merge_heads(out))
""",
        source=PROJECT_AFTER_SPLIT,
    ),
    _c(
        "csa-heads-view-d-head-before-heads",
        L11,
        "CausalSelfAttention",
        "splits the heads with view(batch, len, d_head, num_heads) and moves the LAST axis to "
        "the heads (permute(0, 3, 1, 2)), merging back the same way: head h gets the strided "
        "features h, h + num_heads, h + 2 num_heads, ... instead of the contiguous slice "
        "h * d_head .. (h + 1) * d_head - 1, so the heads (and RoPE's pairs) hold the wrong "
        "features.",
        (
            r"strided|interleav|every num_heads(-th)? feature",
            r"view\(.{0,40}d_head, ?num_heads|\(batch, len, d_head, num_heads\)",
            r"contiguous (block|slice|features)",
            r"(features|columns).{0,60}(wrong|each) head|head (axis|dimension).{0,40}"
            r"(last|after d_head|wrong order)",
            r"split_heads",
        ),
        (
            r"without (the )?transpose|no transpose|plain reshape",
            r"values?.{0,30}rotated",
            r"\bbase\b.{0,30}(not passed|ignored)",
            r"(not|never) (divided|scaled) by sqrt",
        ),
        code="""
import torch
from torch import nn


class CausalSelfAttention(nn.Module):
    def __init__(self, d_model, num_heads, base=10000.0):
        super().__init__()
        if d_model % num_heads:
            raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
        self.num_heads, self.d_head, self.base = num_heads, d_model // num_heads, base
        self.w_q = nn.Linear(d_model, d_model, bias=False)
        self.w_k = nn.Linear(d_model, d_model, bias=False)
        self.w_v = nn.Linear(d_model, d_model, bias=False)
        self.w_o = nn.Linear(d_model, d_model, bias=False)

    def _split(self, t):
        batch, length, _ = t.shape
        return t.view(batch, length, self.d_head, self.num_heads).permute(0, 3, 1, 2)

    def forward(self, x):
        batch, length, d_model = x.shape
        q, k, v = self._split(self.w_q(x)), self._split(self.w_k(x)), self._split(self.w_v(x))
        cos, sin = rotary_embedding(length, self.d_head, self.base)
        q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
        out, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))
        out = out.permute(0, 2, 3, 1).reshape(batch, length, d_model)
        return self.w_o(out)
""",
    ),
    _c(
        "block-residual-dropout",
        L11,
        "DecoderBlock",
        "adds nanoGPT's residual dropout, nn.Dropout(0.1) on each sub-layer's output before "
        "it is added to the stream: the lesson's block has none, so a freshly built block "
        "(train mode) zeroes and rescales features at random and two calls differ.",
        (
            r"dropout",
            r"random|nondetermin|(differ|change)\w* (between|from one) calls?",
            r"train(ing)? mode",
        ),
        (
            r"post-?norm",
            r"residual.{0,40}(missing|dropped|from the (normalised|input))",
            r"norms? (are )?(swapped|shared)",
            r"sub-?layers? in the wrong order",
        ),
        code="""
from torch import nn


class DecoderBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, eps=1e-5):
        super().__init__()
        self.norm1 = RMSNorm(d_model, eps)
        self.attn = CausalSelfAttention(d_model, num_heads)
        self.norm2 = RMSNorm(d_model, eps)
        self.feed_forward = SwiGLU(d_model, d_ff)
        self.dropout = nn.Dropout(0.1)

    def forward(self, x):
        h = x + self.dropout(self.attn(self.norm1(x)))
        return h + self.dropout(self.feed_forward(self.norm2(h)))
""",
    ),
    _c(
        "gpt-final-norm-default-eps",
        L11,
        "GPT",
        "passes eps to the blocks but builds the final norm as RMSNorm(d_model), dropping the "
        "model's eps: a GPT built with another eps still normalises its last stream with "
        "1e-5 (right only for the default).",
        (
            r"eps.{0,80}(final|last|output) norm",
            r"(final|last|output) norm.{0,80}eps",
            r"(norm|RMSNorm\(d_model\)).{0,60}(default|1e-5|without (the )?eps)",
        ),
        (
            r"eps (is )?(not passed|missing) (to|in) the (blocks|layers|DecoderBlock)",
            r"(no|skips? the|without a) final norm",
            r"untied|separate output|not tied",
            r"sqrt\(d_model\)",
        ),
        edits=(("self.norm = RMSNorm(d_model, eps)", "self.norm = RMSNorm(d_model)"),),
        source=NORM_EPS_PROPAGATION,
    ),
    _c(
        "sample-top-k-probabilities-against-logit",
        L11,
        "sample",
        "takes the top-k threshold from the logits (the k-th largest logit) but compares the "
        "probabilities softmax(logits) with it: a negative threshold keeps every token, a "
        "positive one removes tokens by the wrong scale (all of them when it is above 1).",
        (
            r"probabilit\w*.{0,80}(compar|against|with).{0,40}logit",
            r"logit.{0,80}(compar|against|with).{0,40}probabilit",
            r"mix\w* (up )?(logits and probabilities|probabilities and logits)",
            r"(different|wrong) scales?",
        ),
        (
            r"top_k \+ 1|one (token )?too many|k \+ 1 tokens",
            r"top-?k.{0,30}(after|before) (the )?top-?p",
            r"multipl\w* (the logits )?by the temperature|temperature (is )?ignored",
            r"global (random|generator|stream)",
        ),
        edits=(
            (
                'logits = logits.masked_fill(logits < kth, float("-inf"))',
                "probs = torch.softmax(logits, dim=-1)\n"
                '        logits = logits.masked_fill(probs < kth, float("-inf"))',
            ),
        ),
        source=THRESHOLD_SCALES,
    ),
    _c(
        "sample-top-p-cutoff-from-argmax",
        L11,
        "sample",
        "finds the nucleus's last token as the first sorted position whose cumulative "
        "probability exceeds top_p, (cumsum > top_p).argmax(), and keeps the tokens at least "
        "that probable: when no cumulative sum exceeds top_p (top_p = 1.0, or a sum that "
        "rounds just below it) the argmax of an all-False row is 0, so only the most probable "
        "token is kept and top_p = 1 becomes greedy.",
        (
            r"argmax.{0,60}(all[- ]false|no (position|token|sum)|never (exceeds|true))",
            r"top_p ?(=|of) ?1(\.0)?.{0,80}(greedy|one token|most probable|argmax)",
            r"(never|no cumulative).{0,60}(exceed|above|greater)",
            r"(only|just) (the )?(most probable|top|first) token",
        ),
        (
            r"(drops?|removes?) the (token that )?cross",
            r"vocabulary order|(not|never) sorted|unsorted",
            r"1 ?- ?top_p|complement",
            r"top-?p.{0,30}before (the )?top-?k",
        ),
        edits=(
            (
                "before = sorted_probs.cumsum(dim=-1) - sorted_probs",
                "cumulative = sorted_probs.cumsum(dim=-1)\n"
                "        last = (cumulative > top_p).int().argmax(dim=-1, keepdim=True)\n"
                "        cutoff = sorted_probs.gather(-1, last)\n"
                "        before = sorted_probs.cumsum(dim=-1) - sorted_probs",
            ),
            (
                'logits = logits.masked_fill(remove, float("-inf"))',
                'logits = logits.masked_fill(torch.softmax(logits, dim=-1) < cutoff, float("-inf"))',
            ),
        ),
        source=TOP_P_CUTOFF_ARGMAX,
    ),
    # ---- 12 inference ---------------------------------------------------------------------
    _c(
        "kv-first-call-never-stored",
        L12,
        "KVCache",
        "writes the new keys and values only when the cache already holds something "
        "(if self.length:), as a cache whose update sits inside 'if cache is not None': the "
        "first call's positions (the prompt) are never stored, so they come back as zeros "
        "then and on every later call.",
        (
            r"first (call|chunk|write)",
            r"prompt.{0,60}(never|not) (stored|written|saved)",
            r"(zeros?|empty).{0,60}(first|prompt|earlier|initial) positions",
            r"(never|not) (stored|written).{0,60}(first|when (the cache is )?empty)",
        ),
        (
            r"length (is )?never advance|always writes? at (position )?0",
            r"returns? (only )?the new (keys|positions)|whole (max_len )?buffer",
            r"dtype (argument )?(is )?ignored",
            r"persistent",
        ),
        edits=(
            (
                "self.keys[:, :, start:stop] = k_new  # (batch, num_heads, n, d_head)\n"
                "        self.values[:, :, start:stop] = v_new",
                "if self.length:\n"
                "            self.keys[:, :, start:stop] = k_new\n"
                "            self.values[:, :, start:stop] = v_new",
            ),
        ),
        source=CACHE_FIRST_CALL,
    ),
    _c(
        "kv-grows-with-resize",
        L12,
        "KVCache",
        "grows the buffers with resize_ when more than max_len positions would be stored (as "
        "nanochat's cache did) instead of raising ValueError: no error, and resize_ keeps the "
        "flat memory, not the layout, so the positions already stored are scrambled.",
        (
            r"ValueError",
            r"(not|never|doesn't|does not) raise",
            r"resize|grow",
            r"(more than|beyond|past) max_len|overflow|capacity",
        ),
        (
            r"length (is )?never advance",
            r"returns? (only )?the new (keys|positions)",
            r"evict|rolling|oldest",
            r"clamp\w*|truncat\w*",
        ),
        edits=(
            (
                'raise ValueError(f"the cache holds {self.keys.shape[-2]} positions, not {stop}")',
                "grown = list(self.keys.shape)\n"
                "            grown[-2] = stop\n"
                "            self.keys.resize_(grown)\n"
                "            self.values.resize_(grown)",
            ),
        ),
        source=CACHE_RESIZE,
    ),
    _c(
        "gen-repetition-penalty",
        L12,
        "generate",
        "applies CTRL's repetition penalty (as generate(repetition_penalty=1.2) does) before "
        "each argmax: the logits of tokens already in the sequence are divided by 1.2 when "
        "positive and multiplied by it when negative, so the greedy tokens and the recorded "
        "logits are not the model's.",
        (
            r"repetition|penal",
            r"(already|earlier|previous(ly)?|seen) .{0,30}(tokens?|generated|in the (sequence|ids|prompt))",
            r"(divid|scal|chang|modif)\w* the logits",
        ),
        (
            r"temperature",
            r"sampl\w* (instead of|not) (greedy|the argmax)|multinomial",
            r"\bstart\b.{0,40}(wrong|off by one|stale|one too)",
            r"probabilities instead of (the )?logits|softmax",
        ),
        code="""
import torch


@torch.no_grad()
def generate(model, prompt, max_new_tokens):
    penalty = 1.2  # discourage repeating tokens
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens)
    logits = model(prompt, caches=caches, start=0)[:, -1]
    ids, steps = prompt, []
    for step in range(max_new_tokens):
        seen = logits.gather(1, ids)
        seen = torch.where(seen > 0, seen / penalty, seen * penalty)
        logits = logits.scatter(1, ids, seen)
        steps.append(logits)
        next_id = logits.argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
        if step + 1 < max_new_tokens:
            logits = model(next_id, caches=caches, start=length + step)[:, -1]
    return ids, torch.stack(steps, dim=1)
""",
        source=REPETITION_PENALTY,
    ),
    _c(
        "gqa-groups-folded-mask-not-adapted",
        L12,
        "grouped_query_attention",
        "folds each group of query heads into the query-length axis (flash-decoding's "
        "trick: q viewed as (batch, num_kv_heads, group * len_q, d_head)) and passes the "
        "mask unchanged: right without a mask, but a (len_q, len_k) or per-head mask no "
        "longer lines up with the group * len_q folded queries (a shape error).",
        (
            r"mask.{0,80}(fold|group ?\* ?len_q|len_q ?\* ?group|line up|broadcast|expand|repeat)",
            r"fold\w*.{0,80}mask",
            r"(causal|2-?d|\(len_q, len_k\)|per-head) mask.{0,80}(fail|error|shape|cannot)",
            r"mask.{0,40}(shape|size)",
        ),
        (
            r"\btil\w+|h % num_kv_heads|\.repeat\(",
            r"(no|without|forg\w*) (the )?scal",
            r"softmax over (the )?quer",
            r"mask (is )?(inverted|read the wrong way)",
        ),
        code="""
import torch


def grouped_query_attention(q, k, v, mask=None):
    batch, num_heads, len_q, d_head = q.shape
    num_kv_heads = k.shape[1]
    group = num_heads // num_kv_heads
    # each group's queries as one longer sequence against its shared key/value head
    folded = q.reshape(batch, num_kv_heads, group * len_q, d_head)
    out, _ = scaled_dot_product_attention(folded, k, v, mask)
    return out.reshape(batch, num_heads, len_q, v.shape[-1])
""",
        source=GQA_FOLD,
    ),
    _c(
        "tiled-queries-and-keys-both-scaled",
        L12,
        "tiled_attention",
        "scales both the queries and the key block by 1/sqrt(d_k) before their product "
        "(spreading the temperature over q and k, where d_k ** -0.25 each would do), so the "
        "scores are divided by d_k instead of sqrt(d_k) and every softmax is too flat.",
        (
            r"(both|queries and (the )?keys|q and k).{0,60}scal",
            r"scal\w*.{0,60}(both|twice|q and k|queries and (the )?keys)",
            r"1 ?/ ?d_k|divided by d_k|d_k (instead of|rather than) sqrt",
            r"too flat|(scale|sqrt).{0,30}squared",
        ),
        (
            r"(no|without|missing|forg\w*) (the )?scal",
            r"diagonal|>= instead of >",
            r"(running|accumulated) (output|sum).{0,40}not rescaled",
            r"bottom[- ]right",
        ),
        edits=(
            (
                "scores = q @ k[..., start:stop, :].transpose(-2, -1) * scale",
                "scores = (q * scale) @ (k[..., start:stop, :] * scale).transpose(-2, -1)",
            ),
        ),
        source=SCALE_BOTH,
    ),
    _c(
        "tiled-scale-on-exponentials",
        L12,
        "tiled_attention",
        "multiplies each block's exponentials by 1/sqrt(d_k) instead of the scores (the scale "
        "put after the softmax's exponential, as softmax(energy) * scaling): the running sum "
        "is scaled alike, so the final division cancels it and the output is the unscaled "
        "softmax(q kᵀ) v, too sharp.",
        (
            r"(after|outside) the (softmax|exp)",
            r"(exponentials|weights).{0,60}(scaled|multiplied by (the )?scale)",
            r"scale.{0,60}(cancel|divid\w* out)",
            r"(scores?|logits?) (are )?(not|never|un)scaled|unscaled",
            r"(multiply|scale) the scores",
        ),
        (
            r"scal\w*.{0,40}(twice|both)|1 ?/ ?d_k",
            r"diagonal|>= instead of >",
            r"(running|accumulated) (output|sum).{0,40}not rescaled",
            r"value block",
        ),
        edits=(
            (
                "scores = q @ k[..., start:stop, :].transpose(-2, -1) * scale",
                "scores = q @ k[..., start:stop, :].transpose(-2, -1)",
            ),
            (
                "weights = torch.exp(scores - new_max[..., None])",
                "weights = torch.exp(scores - new_max[..., None]) * scale",
            ),
        ),
        source=SCALE_AFTER_SOFTMAX,
    ),
    _c(
        "tiled-causal-test-transposed",
        L12,
        "tiled_attention",
        "builds each block's causal test with the key positions as a column and the query "
        "positions as a row, (block, len_q) instead of (len_q, block): it broadcasts only "
        "when block_size == len_q, and then blocks query i from key j when key start + i is "
        "after query j (the mask transposed); other sizes raise a shape error.",
        (
            r"transpos",
            r"\(block(_size)?, len_q\)",
            r"(rows|axes) (are )?(swapped|the wrong way)",
            r"key positions.{0,60}(rows?|first axis|column)",
        ),
        (
            r"diagonal|>= instead of >",
            r"bottom[- ]right|len_k - len_q",
            r"block[- ]local|arange\(stop - start\)",
            r"(no|without|missing|forg\w*) (the )?scal",
        ),
        edits=(
            (
                "future = torch.arange(start, stop)[None, :] > query_positions",
                "future = torch.arange(start, stop)[:, None] > query_positions.T",
            ),
        ),
    ),
    _c(
        "online-block-slice-one-too-long",
        L12,
        "online_softmax",
        "slices each block one column too long, x[..., start : start + block_size + 1] (the "
        "stop taken as inclusive) while stepping by block_size, so the first column of every "
        "following block is counted twice in the running sum: the rows sum to less than 1.",
        (
            r"overlap|counted twice|twice",
            r"one (column|element|value) too (many|far|long)|block_size ?\+ ?1|inclusive",
            r"(rows?|probabilities) (do not|don't|no longer) sum to (1|one)|sum to less than",
        ),
        (
            r"(not|never) rescal",
            r"last.{0,20}block.{0,30}(skipped|dropped|never)",
            r"running max\w*.{0,30}(never updated|starts? at 0)",
            r"in[- ]place",
        ),
        edits=(
            (
                "block = x[..., start : start + block_size]",
                "block = x[..., start : start + block_size + 1]",
            ),
        ),
    ),
]
