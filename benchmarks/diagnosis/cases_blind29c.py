"""Held-out wrong answers, blind round 29 (helper b29c, 2026-11-29, lessons 11-12): mistakes new to
the benchmark, written blind (no check module, no message read) while fix round 34 changed
the checks, to measure how the diagnoses generalise to mistakes nobody here has seen
(``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L11, L12 = "11_language_model", "12_inference"

_c = held_out_authored("blind29c")

# Where these mistakes are reported (each page was read for this batch).
PARTIAL_RMS = "https://github.com/ReaLLMASIC/ReaLLM-Forge/pull/153"
OFF_BY_ONE = "https://www.evanmiller.org/attention-is-off-by-one.html"
ATTN_SOFTCAP = "https://github.com/tenstorrent/tt-metal/issues/22807"
FINAL_SOFTCAP = "https://github.com/ReaLLMASIC/ReaLLM-Forge/issues/397"
TRUNC_BOUNDS = "https://github.com/foundation-model-stack/foundation-model-stack/issues/289"
REZERO_SKIP = "https://github.com/fabio-deep/Distributed-Pytorch-Boilerplate/issues/1"
TRITON_LOG2E = "https://github.com/triton-lang/triton/issues/2700"
MIXED_BASES = "https://github.com/sgl-project/sglang/pull/31904"
DILATED_WINDOW = "https://github.com/meta-pytorch/attention-gym/pull/12"
NGPT_ROPE = "https://github.com/NVIDIA/ngpt/issues/10"
TEMPERATURE_GUARD = "https://github.com/huggingface/transformers/pull/25722"

BLIND29C: list[Case] = [
    # ---- 11 language model ----------------------------------------------------------------
    _c(
        "rms-partial-first-sixteenth",
        L11,
        "RMSNorm",
        "copies the partial RMSNorm (pRMSNorm) of the RMSNorm paper: the mean square is "
        "estimated from the first 6.25 % of each token's features, x[..., :max(1, "
        "int(0.0625 * d_model))], instead of all d_model of them, so each token is divided "
        "by the root mean square of a few of its features, not of the whole vector.",
        (
            r"partial|p-?rms",
            r"(first|leading) (few|\d+|k|6\.25 ?%?) (of (its|the) )?(features|entries|components)"
            r"|subset of (the |its )?features|only (some|a few|part) of (the |its )?features",
            r"6\.25|1 ?/ ?16|sixteenth|0\.0625",
            r"not (over )?(all|every|the whole)( of)? (the |its )?(d_model )?features",
        ),
        (
            r"subtract\w* (the |each token'?s )?mean|layer ?norm",
            r"eps.{0,40}(outside|after) the (square )?root",
            r"(over|along|across) the (sequence|positions|batch)",
            r"sum (of the squares )?instead of (the |a )?mean|sqrt\(d_model\) times",
            r"(gain|weight).{0,40}(missing|not applied|never multiplied)",
        ),
        code="""
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5, partial=0.0625):
        super().__init__()
        self.eps = eps
        self.partial = partial  # pRMSNorm: estimate the RMS from the first p of the features
        self.weight = nn.Parameter(torch.ones(d_model))

    def forward(self, x):
        count = max(1, int(x.shape[-1] * self.partial))
        mean_square = x[..., :count].pow(2).mean(dim=-1, keepdim=True)
        return x * torch.rsqrt(mean_square + self.eps) * self.weight
""",
        source=PARTIAL_RMS,
    ),
    _c(
        "csa-softmax-plus-one-denominator",
        L11,
        "CausalSelfAttention",
        "writes the attention by hand with Evan Miller's 'softmax1', exp(s) / (1 + sum "
        "exp(s)), instead of the softmax: the extra 1 in the denominator (a key that is "
        "never there) makes every row of weights sum to less than 1, so each output is a "
        "shrunk mix of the values (much smaller where the scores are low).",
        (
            r"off[- ]by[- ]one|softmax_?1|quiet ?softmax|softmax ?\+ ?1",
            r"(extra|added?|additional) (1|one|constant|term)\b.{0,40}denominator"
            r"|denominator.{0,40}(\+ ?1|plus (1|one)|extra)",
            r"attend to nothing|null (token|key)|phantom",
        ),
        (
            r"(no|without|missing) (the )?(causal |look-?ahead )?mask|sees? the future",
            r"(not|never) (divided|scaled) by sqrt|sqrt\(d_model\)",
            r"softmax (over|along) (the )?(queries|query axis|wrong axis)|dim ?= ?-2",
            r"values?.{0,30}rotated",
            r"mask\w* after the softmax",
        ),
        code="""
import math

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

    def forward(self, x):
        length = x.shape[1]
        q = split_heads(self.w_q(x), self.num_heads)
        k = split_heads(self.w_k(x), self.num_heads)
        v = split_heads(self.w_v(x), self.num_heads)
        cos, sin = rotary_embedding(length, self.d_head, self.base)
        q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
        scores = scores.masked_fill(~look_ahead_mask(length), float("-inf"))
        # softmax1: the + 1 lets a head put its weight on "nothing"
        exp_scores = torch.exp(scores)
        weights = exp_scores / (1 + exp_scores.sum(dim=-1, keepdim=True))
        return self.w_o(merge_heads(weights @ v))
""",
        source=OFF_BY_ONE,
    ),
    _c(
        "csa-gemma-score-softcap",
        L11,
        "CausalSelfAttention",
        "soft-caps the attention scores as Gemma 2 does, 50 * tanh(scores / 50), before the "
        "mask and the softmax: the lesson's attention has no capping, so every scaled score "
        "is pulled towards 0 (a little for small scores, a lot for large ones) and the "
        "weights are flatter than softmax(q k^T / sqrt(d_head)).",
        (
            r"soft-?cap|tanh",
            r"cap(ped|s|ping)? (the )?(attention )?(scores|logits)",
            r"gemma",
            r"(scores|logits).{0,40}(squash|bounded|saturat|compress)",
        ),
        (
            r"(no|without|missing) (the )?(causal |look-?ahead )?mask|sees? the future",
            r"(not|never) (divided|scaled) by sqrt|sqrt\(d_model\)|scaled? twice",
            r"(queries|keys) (are )?(normali[sz]ed|unit length)|qk-?norm",
            r"values?.{0,30}rotated",
            r"\bdropout\b",
        ),
        code="""
import math

import torch
from torch import nn


class CausalSelfAttention(nn.Module):
    def __init__(self, d_model, num_heads, base=10000.0):
        super().__init__()
        if d_model % num_heads:
            raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
        self.num_heads, self.d_head, self.base = num_heads, d_model // num_heads, base
        self.softcap = 50.0
        self.w_q = nn.Linear(d_model, d_model, bias=False)
        self.w_k = nn.Linear(d_model, d_model, bias=False)
        self.w_v = nn.Linear(d_model, d_model, bias=False)
        self.w_o = nn.Linear(d_model, d_model, bias=False)

    def forward(self, x):
        length = x.shape[1]
        q = split_heads(self.w_q(x), self.num_heads)
        k = split_heads(self.w_k(x), self.num_heads)
        v = split_heads(self.w_v(x), self.num_heads)
        cos, sin = rotary_embedding(length, self.d_head, self.base)
        q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
        scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(self.d_head)
        scores = self.softcap * torch.tanh(scores / self.softcap)
        scores = scores.masked_fill(~look_ahead_mask(length), float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        return self.w_o(merge_heads(weights @ v))
""",
        source=ATTN_SOFTCAP,
    ),
    _c(
        "block-rezero-gate-on-skip",
        L11,
        "DecoderBlock",
        "adds ReZero's zero-initialised scalar gates the wrong way round, on the skip path "
        "instead of the sub-layer: h = alpha_attn * x + attn(norm1(x)) and alpha_ff * h + "
        "feed_forward(norm2(h)), with both alphas nn.Parameter(torch.zeros(1)), so a fresh "
        "block has no residual connections at all (the input is multiplied by 0) and the "
        "state dict has two extra keys.",
        (
            r"re-?zero|alpha",
            r"(skip|residual|identity)( path| connection| branch| term)?.{0,60}"
            r"(scaled|multiplied|gated|weighted|zero)",
            r"(gate|scalar|parameter)s?.{0,60}(zero|0)\b.{0,60}(input|skip|residual|x\b)",
            r"extra (state[- ]dict )?(keys?|parameters?)",
        ),
        (
            r"post-?norm",
            r"norms? (are )?(swapped|shared)",
            r"layer ?scale|\b0\.1\b",
            r"sub-?layers? in the wrong order",
            r"(normalised|normalized) (input|stream).{0,40}residual|residual.{0,40}norm1\(x\)",
        ),
        code="""
import torch
from torch import nn


class DecoderBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, eps=1e-5):
        super().__init__()
        self.norm1 = RMSNorm(d_model, eps)
        self.attn = CausalSelfAttention(d_model, num_heads)
        self.norm2 = RMSNorm(d_model, eps)
        self.feed_forward = SwiGLU(d_model, d_ff)
        # ReZero: learnable residual weights, starting at zero
        self.alpha_attn = nn.Parameter(torch.zeros(1))
        self.alpha_ff = nn.Parameter(torch.zeros(1))

    def forward(self, x):
        h = self.alpha_attn * x + self.attn(self.norm1(x))
        return self.alpha_ff * h + self.feed_forward(self.norm2(h))
""",
        source=REZERO_SKIP,
    ),
    _c(
        "gpt-final-logit-softcap",
        L11,
        "GPT",
        "soft-caps the output logits as Gemma 2 does, 30 * tanh(logits / 30), after the "
        "tied output layer: the lesson's GPT returns norm(x) @ embedding.weight.T "
        "unchanged, so every logit is pulled towards 0 (hardly for the small logits of a "
        "fresh model, strongly for a trained model's large ones) and none can exceed 30.",
        (
            r"soft-?cap|tanh",
            r"cap(ped|s|ping)? (the |its )?(output |final )?logits",
            r"gemma",
            r"logits.{0,40}(squash|bounded|saturat|compress|never exceed)",
        ),
        (
            r"untied|not tied|separate output",
            r"(no|without|skips?( the)?) final norm",
            r"sqrt\(d_model\)|d_model ?\*\* ?-?0\.5",
            r"(applies|applied|returns?) (a )?softmax|probabilities instead of (the )?logits",
            r"temperature",
        ),
        code="""
import torch
from torch import nn


class GPT(nn.Module):
    def __init__(self, vocab_size, d_model, num_heads, d_ff, num_layers, eps=1e-5):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, d_model)
        nn.init.normal_(self.embedding.weight, mean=0.0, std=0.02)
        self.layers = nn.ModuleList(
            DecoderBlock(d_model, num_heads, d_ff, eps) for _ in range(num_layers)
        )
        self.norm = RMSNorm(d_model, eps)
        self.final_logit_softcap = 30.0

    def forward(self, ids):
        x = self.embedding(ids)
        for block in self.layers:
            x = block(x)
        logits = self.norm(x) @ self.embedding.weight.T
        cap = self.final_logit_softcap
        return cap * torch.tanh(logits / cap)
""",
        source=FINAL_SOFTCAP,
    ),
    _c(
        "gpt-embedding-truncated-at-one-std",
        L11,
        "GPT",
        "initialises the embedding with nn.init.trunc_normal_(weight, std=0.02, a=-0.02, "
        "b=0.02), meaning to truncate the tails, but a and b are absolute bounds, not "
        "multiples of std: the normal is cut at one standard deviation, so no weight "
        "exceeds 0.02 in size and their standard deviation is about 0.011 instead of the "
        "contract's 0.02.",
        (
            r"trunc\w*",
            r"(cut|clipped|clamped|bounded|truncated) at|\ba ?= ?-?0\.02|one standard deviation"
            r"|±?0\.02 (bounds?|limits?)",
            r"tails? (are )?(cut|removed|clipped)|no (weight|value) (exceeds|above|larger than) 0\.02",
        ),
        (
            r"N\(0, ?1\)|default (init|N\()|standard deviation (of )?1\b",
            r"uniform",
            r"\bzeros?\b",
            r"d_model ?\*\* ?-0\.5|1 ?/ ?sqrt\(d_model\)",
            r"0\.02 (as|is) the mean|mean (of )?0\.02",
        ),
        code="""
import torch
from torch import nn


class GPT(nn.Module):
    def __init__(self, vocab_size, d_model, num_heads, d_ff, num_layers, eps=1e-5):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, d_model)
        # GPT-2's 0.02, with the tails cut off
        nn.init.trunc_normal_(self.embedding.weight, mean=0.0, std=0.02, a=-0.02, b=0.02)
        self.layers = nn.ModuleList(
            [DecoderBlock(d_model, num_heads, d_ff, eps) for _ in range(num_layers)]
        )
        self.norm = RMSNorm(d_model, eps)

    def forward(self, ids):
        h = self.embedding(ids)
        for layer in self.layers:
            h = layer(h)
        return F.linear(self.norm(h), self.embedding.weight)
""",
        source=TRUNC_BOUNDS,
    ),
    _c(
        "sample-top-p-sorted-rank-returned",
        L11,
        "sample",
        "with top_p, filters and draws in sorted order as Meta's Llama sample_top_p does, "
        "but returns the position drawn in the sorted list without mapping it back through "
        "the sort's indices (torch.gather(order, -1, drawn)): the returned numbers are ranks "
        "(0 = the most probable token), not vocabulary ids; without top_p it is right.",
        (
            r"\branks?\b|position (in|within) the sorted|sorted (position|index)(es)?\b",
            r"(gather|map\w*|translat\w*) (the (drawn|sampled) (index|indices|position|token)s? )?back"
            r"|probs_idx|(drawn|sampled) (index|position).{0,40}(sort|order)",
            r"not (the |a )?(vocabulary|token) (ids?|index|indices)",
        ),
        (
            r"(drops?|removes?) the (crossing|last) token|strictly",
            r"ascending",
            r"temperature (after|before)|order of the (filters|steps)",
            r"global (random|generator|stream)|ignores? the generator",
            r"renormali[sz]",
            r"mask.{0,40}(not|never) (mapped|scattered) back|scatter",
        ),
        code="""
import torch


def sample(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return logits.argmax(dim=-1)
    logits = logits / temperature
    if top_k is not None:
        kth = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1).values[..., -1:]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    probs = torch.softmax(logits, dim=-1)
    if top_p is None:
        return torch.multinomial(probs, 1, generator=generator)[:, 0]
    probs_sort, probs_idx = torch.sort(probs, dim=-1, descending=True)
    probs_sum = torch.cumsum(probs_sort, dim=-1)
    mask = probs_sum - probs_sort >= top_p
    probs_sort = probs_sort.masked_fill(mask, 0.0)
    probs_sort = probs_sort / probs_sort.sum(dim=-1, keepdim=True)
    next_token = torch.multinomial(probs_sort, 1, generator=generator)
    return next_token[:, 0]
""",
    ),
    _c(
        "rot-partner-times-cos-sin-only",
        L11,
        "apply_rotary",
        "rotates adjacent pairs (a, b) = (x[..., 2i], x[..., 2i + 1]) by multiplying the "
        "partner vector (-b, a) elementwise by (cos, sin), as nGPT's "
        "apply_rotary_position_embeddings did: each pair becomes (-b cos, a sin) instead of "
        "(a cos - b sin, a sin + b cos), the x * cos and partner * sin terms are never "
        "added, so the result is not a rotation at all (position 0 turns (a, b) into (-b, 0)).",
        (
            r"(never|not|no) (added|summed|combined)|missing (the )?(x ?\* ?cos|a ?\*? ?cos|cos(ine)? term|first term)",
            r"only (the )?(partner|rotate[_ ]half|swapped)( vector| term)?",
            r"\(-b ?\*? ?cos|-b ?\* ?cos",
        ),
        (
            r"(rotates?|rotation) (the other way|backwards|the wrong way)|transposed rotation",
            r"(halves|pairs) (mixed|interleaved)|written back as halves|halves and pairs",
            r"cos(ines?)? and sin(es?)? (are )?swapped",
            r"in place|overwrit",
            r"dtype|float32",
        ),
        code="""
import torch


def apply_rotary(x, cos, sin):
    cos, sin = cos.to(x.dtype), sin.to(x.dtype)
    even, odd = x[..., 0::2], x[..., 1::2]  # the pairs (x_2i, x_2i+1)
    partner = torch.stack((-odd, even), dim=-1)  # (..., len, d_head // 2, 2)
    rotated = partner * torch.stack((cos, sin), dim=-1)
    return rotated.flatten(-2)  # (..., len, d_head)
""",
        source=NGPT_ROPE,
    ),
    _c(
        "swiglu-silu-after-output-projection",
        L11,
        "SwiGLU",
        "misplaces a parenthesis and applies the SiLU to the block's output, "
        "silu(w2(w1(x) * w3(x))), instead of to the gate, w2(silu(w1(x)) * w3(x)): the "
        "hidden layer is a plain bilinear product and the output itself goes through the "
        "SiLU (so no output is below about -0.28).",
        (
            r"silu.{0,60}(output|after (the )?w2|outside|last|end)",
            r"(output|w2).{0,40}(through|passed through|goes through) (the )?silu",
            r"silu\(\s*(self\.)?w2",
            r"(gate|w1).{0,40}(never|not) (activated|passed through|gated)|no activation on the gate",
        ),
        (
            r"silu.{0,30}(value|w3)\b|gate and (the )?value.{0,20}swapped",
            r"silu (of|over|on) the product|silu\(w1\(x\) ?\* ?w3",
            r"\bgelu\b|sigmoid (gate|instead)|\brelu\b",
            r"\bbias(es)?\b",
            r"(missing|without|no) (the )?(output )?projection|w2 (is )?missing",
        ),
        code="""
import torch.nn.functional as F
from torch import nn


class SwiGLU(nn.Module):
    def __init__(self, d_model, d_ff):
        super().__init__()
        self.w1 = nn.Linear(d_model, d_ff, bias=False)
        self.w3 = nn.Linear(d_model, d_ff, bias=False)
        self.w2 = nn.Linear(d_ff, d_model, bias=False)

    def forward(self, x):
        return F.silu(self.w2(self.w1(x) * self.w3(x)))
""",
    ),
    _c(
        "rope-tables-halves-of-interleaved-sinusoid",
        L11,
        "rotary_embedding",
        "builds lesson 03's sinusoidal table (sines of the angles on the even features, "
        "cosines on the odd ones, d_head features in all) and cuts it in two with "
        "chunk(2, dim=-1) for the sines and the cosines: the shapes are right, (length, "
        "d_head // 2), but each half interleaves sines and cosines (of the first d_head // 4 "
        "frequencies in the first half, of the last ones in the second), so neither table "
        "holds cos(m theta_i) or sin(m theta_i).",
        (
            r"interleav\w*",
            r"(lesson 03|sinusoid\w*)'?s? (table|encoding)",
            r"chunk\w*|(cut|split) (it )?in (two|half)|halves",
            r"(even|odd) (features|columns|entries).{0,60}(sin|cos)",
            r"(sines? and cosines?|cos(ines)? and sin(es)?) (are )?mixed",
        ),
        (
            r"(cos\w*|sin\w*) (and|,) (sin\w*|cos\w*) (are )?swapped|returns? \(sin, cos\)",
            r"positions? (start|from) (at )?1",
            r"base.{0,30}(ignored|hard-?coded)",
            r"factor (of )?2\b|\b2i ?/ ?d",
            r"float64|bfloat16",
            r"duplicat\w*|\(length, d_head\)",
        ),
        code="""
import math

import torch


def rotary_embedding(length, d_head, base=10000.0):
    position = torch.arange(length, dtype=torch.float32)[:, None]  # (length, 1)
    div_term = torch.exp(torch.arange(0, d_head, 2, dtype=torch.float32) * (-math.log(base) / d_head))
    table = torch.zeros(length, d_head)
    table[:, 0::2] = torch.sin(position * div_term)
    table[:, 1::2] = torch.cos(position * div_term)
    sin, cos = table.chunk(2, dim=-1)  # (length, d_head // 2) each
    return cos, sin
""",
        source=NGPT_ROPE,
    ),
    _c(
        "sample-temperature-zero-raises",
        L11,
        "sample",
        "copies Hugging Face's TemperatureLogitsWarper guard and raises ValueError whenever "
        "the temperature is not strictly positive: temperature 0 raises instead of returning "
        "the argmax (greedy decoding) as the contract asks; every temperature above 0 is "
        "right.",
        (
            r"temperature ?(=|==|of)? ?0(\.0)?\b.{0,60}(raises?|ValueError|exception|rejected|refused)",
            r"(raises?|ValueError|rejects?|refuses?).{0,60}temperature ?(=|==|of)? ?0",
            r"strictly positive",
            r"instead of (returning|taking) the argmax|(greedy|argmax) (case|branch) (is )?missing",
        ),
        (
            r"argmin",
            r"divid\w* by (zero|0)|\binf\b|\bnan\b",
            r"\bis 0\b|identity",
            r"argmax\(\) without dim|flattened",
            r"keepdim|column",
        ),
        code="""
import torch


def sample(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    if not temperature > 0:
        raise ValueError(
            f"`temperature` (={temperature}) has to be a strictly positive float; "
            "for greedy decoding take the argmax"
        )
    scaled = logits / temperature
    if top_k is not None:
        values, _ = torch.topk(scaled, min(top_k, scaled.shape[-1]), dim=-1)
        scaled = torch.where(scaled < values[..., -1:], float("-inf"), scaled)
    if top_p is not None:
        probs = torch.softmax(scaled, dim=-1)
        sorted_probs, order = probs.sort(dim=-1, descending=True)
        mass_before = sorted_probs.cumsum(dim=-1) - sorted_probs
        drop_sorted = mass_before >= top_p
        drop_sorted[..., 0] = False
        drop = torch.zeros_like(drop_sorted).scatter(-1, order, drop_sorted)
        scaled = scaled.masked_fill(drop, float("-inf"))
    probs = torch.softmax(scaled, dim=-1)
    return torch.multinomial(probs, num_samples=1, generator=generator).squeeze(-1)
""",
        source=TEMPERATURE_GUARD,
    ),
    # ---- 12 inference ---------------------------------------------------------------------
    _c(
        "kv-method-named-update",
        L12,
        "KVCache",
        "writes the logic in a method named update (the name of Hugging Face's Cache.update) "
        "instead of forward: the buffers and the appending are right, but the module has "
        "no forward, so calling the cache, cache(k_new, v_new), raises nn.Module's "
        "NotImplementedError (missing the required forward function).",
        (
            r"\bupdate\b",
            r"(no|missing|without( a)?|lacks?( a)?|never defines?( a)?) (the )?forward\b"
            r"|forward\b.{0,40}(missing|not defined|never defined|not implemented)",
            r"(method|function) (is )?(named|called) \w+ (instead of|rather than|not) forward",
        ),
        (
            r"not (yet )?(written|attempted|implemented)|placeholder|delete the raise"
            r"|YOUR CODE HERE",
            r"persistent",
            r"length.{0,30}(not|never) (advanced|updated)",
            r"capacity|ValueError|max_len",
            r"(plain|not registered as) (attributes?|buffers?)",
        ),
        code="""
import torch
from torch import nn


class KVCache(nn.Module):
    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
        super().__init__()
        shape = (batch, num_heads, max_len, d_head)
        self.register_buffer("keys", torch.zeros(shape, dtype=dtype), persistent=False)
        self.register_buffer("values", torch.zeros(shape, dtype=dtype), persistent=False)
        self.length = 0

    def update(self, k_new, v_new):
        start = self.length
        stop = start + k_new.shape[2]
        if stop > self.keys.shape[2]:
            raise ValueError(f"the cache holds {self.keys.shape[2]} positions, not {stop}")
        self.keys[:, :, start:stop] = k_new
        self.values[:, :, start:stop] = v_new
        self.length = stop
        return self.keys[:, :, :stop], self.values[:, :, :stop]
""",
    ),
    _c(
        "kv-forward-requires-input-positions",
        L12,
        "KVCache",
        "copies gpt-fast's cache signature and makes forward take the positions to write as "
        "a required third argument, forward(k_new, v_new, input_pos), writing at "
        "keys[:, :, input_pos]: the contract's call cache(k_new, v_new) raises a TypeError "
        "(missing argument input_pos), and the cache does not keep track of how many "
        "positions it holds itself.",
        (
            r"input_pos|positions? (argument|parameter)",
            r"(extra|third|additional|required) (positional )?(argument|parameter)",
            r"missing (1 )?(required )?(positional )?argument",
            r"signature",
        ),
        (
            r"not (yet )?(written|attempted|implemented)|placeholder|delete the raise",
            r"persistent",
            r"length.{0,30}(not|never) (advanced|updated)",
            r"capacity|ValueError",
            r"\bupdate\b",
        ),
        code="""
import torch
from torch import nn


class KVCache(nn.Module):
    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
        super().__init__()
        cache_shape = (batch, num_heads, max_len, d_head)
        self.register_buffer("keys", torch.zeros(cache_shape, dtype=dtype), persistent=False)
        self.register_buffer("values", torch.zeros(cache_shape, dtype=dtype), persistent=False)
        self.length = 0

    def forward(self, k_new, v_new, input_pos):
        # input_pos: (n,) the positions of the new keys and values
        if int(input_pos.max()) >= self.keys.shape[2]:
            raise ValueError("the cache is full")
        self.keys[:, :, input_pos] = k_new
        self.values[:, :, input_pos] = v_new
        self.length = max(self.length, int(input_pos.max()) + 1)
        return self.keys[:, :, : self.length], self.values[:, :, : self.length]
""",
    ),
    _c(
        "gqa-einsum-sums-over-kv-heads",
        L12,
        "grouped_query_attention",
        "writes the attention with einsum and gives the key/value heads a subscript of "
        "their own, 'bhqd,bgkd->bhqk' and 'bhqk,bgkd->bhqd': a subscript missing from the "
        "output is summed, so every query head scores against the sum of all key heads and "
        "mixes the sum of all value heads, instead of its own group's key/value head (right "
        "only with one key/value head, multi-query attention).",
        (
            r"einsum",
            r"summ?(ed|s|ing)? (over|across) (all )?(the )?(key/?value|kv|key) heads"
            r"|sum of (all )?(the )?(key|value|kv|key/value) heads",
            r"subscript|(index|letter).{0,30}(missing from|not in|absent from) the output",
        ),
        (
            r"\bmean\b|averag\w*",
            r"\btil(e|ed|es)\b|\.repeat\(|k0, ?k1, ?k0",
            r"(first|one|single) (key/?value|kv) head (for|shared by) (all|every)",
            r"(not|never) (divided|scaled) by sqrt",
            r"mask.{0,30}(ignored|inverted|dropped)",
        ),
        code="""
import torch


def grouped_query_attention(q, k, v, mask=None):
    scores = torch.einsum("bhqd,bgkd->bhqk", q, k) * q.shape[-1] ** -0.5
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return torch.einsum("bhqk,bgkd->bhqd", weights, v)
""",
    ),
    _c(
        "online-exp2-numerator-without-log2e",
        L12,
        "online_softmax",
        "mixes two exponential bases: the running sum uses exp2 with the log2(e) factor, "
        "exp2((s - m) * log2 e) = e^(s - m) (right), but the final numerator is "
        "torch.exp2(x - m) without the factor, so the output is 2^(x - m) / sum e^(x - m): "
        "a base-2 numerator over a natural-base sum, and the rows do not sum to 1.",
        (
            r"exp2|base[- ]?2|2 ?\*\* ?\(|\b2 ?\^",
            r"log_?2\s*\(?e\)?|1\.44|ln ?\(?2",
            r"(mix\w*|two( different)?|inconsistent|different) (exponential )?bases?"
            r"|(numerator|final).{0,60}(different|another|other) base",
        ),
        (
            r"(not|never) rescaled|without (the )?(correction|rescal)",
            r"(running )?max\w* (starts?|initiali[sz]ed) (at )?0\b",
            r"last (block|partial block)|partial block",
            r"(no|forgot|missing) (the )?final (division|normali[sz]ation)",
            r"block'?s own max",
        ),
        code="""
import torch

LOG2E = 1.4426950408889634  # exp(t) = exp2(t * log2(e)), the FlashAttention kernels' trick


def online_softmax(x, block_size):
    running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    for start in range(0, x.shape[-1], block_size):
        block = x[..., start : start + block_size]
        new_max = torch.maximum(running_max, block.amax(dim=-1))
        total = total * torch.exp2((running_max - new_max) * LOG2E)
        total = total + torch.exp2((block - new_max[..., None]) * LOG2E).sum(dim=-1)
        running_max = new_max
    return torch.exp2(x - running_max[..., None]) / total[..., None]
""",
        source=MIXED_BASES,
    ),
    _c(
        "tiled-log2e-scale-with-natural-exp",
        L12,
        "tiled_attention",
        "keeps the Triton tutorial's qk_scale = sm_scale * 1.44269504 (log2 e, there because "
        "the kernel exponentiates with exp2) but exponentiates with torch.exp: every score "
        "is multiplied by 1.4427 / sqrt(d_k) instead of 1 / sqrt(d_k), a softmax at "
        "temperature ln 2 = 0.69, so the weights are too sharp.",
        (
            r"log_?2\s*\(?e\)?|1\.44|ln ?\(?2|exp2",
            r"(scale|scores?).{0,40}\b1\.4\d* times|times 1\.4\d*",
            r"base[- ]?2|natural (exp|base)",
        ),
        (
            r"(not|never) (divided|scaled|multiplied) by (1 ?/ ?)?sqrt|no scale",
            r"1 ?/ ?d_k\b|scale.{0,20}1 ?/ ?d\b",
            r"\bd_v\b|v\.shape",
            r"(not|never) rescaled|correction",
            r"scaled? twice|both (the )?quer(y|ies) and (the )?keys",
            r"causal",
        ),
        code="""
import math

import torch


def tiled_attention(q, k, v, block_size, causal=False):
    len_q, len_k = q.shape[-2], k.shape[-2]
    sm_scale = 1.0 / math.sqrt(q.shape[-1])
    qk_scale = sm_scale * 1.44269504  # as in Triton's fused attention tutorial
    m = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
    l = torch.zeros(q.shape[:-1], dtype=q.dtype)
    acc = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
    rows = torch.arange(len_q)[:, None]
    for start in range(0, len_k, block_size):
        stop = min(start + block_size, len_k)
        s = (q @ k[..., start:stop, :].transpose(-2, -1)) * qk_scale
        if causal:
            s = s.masked_fill(torch.arange(start, stop)[None, :] > rows, float("-inf"))
        m_new = torch.maximum(m, s.amax(dim=-1))
        alpha = torch.exp(m - m_new)
        p = torch.exp(s - m_new[..., None])
        l = l * alpha + p.sum(dim=-1)
        acc = acc * alpha[..., None] + p @ v[..., start:stop, :]
        m = m_new
    return acc / l[..., None]
""",
        source=TRITON_LOG2E,
    ),
    _c(
        "sw-dilated-every-other-key",
        L12,
        "sliding_window_mask",
        "builds a dilated sliding window (Longformer's, as attention-gym's "
        "dilated_sliding_window mask_mod writes it) with dilation 2: query i sees keys i, "
        "i - 2, ..., i - 2 (window - 1), every other position over a span of 2 window - 1, "
        "instead of the window consecutive keys i - window + 1 .. i.",
        (
            r"dilat\w*",
            r"every (other|second)( key| position)?|stride (of )?2|gaps?\b|skips? (every )?(other|odd|alternate)",
            r"(span|reach)\w*.{0,30}(2 ?\* ?window|twice)",
        ),
        (
            r"window ?\+ ?1|one too (wide|many)",
            r"one too (few|narrow)",
            r"(not|no longer) causal|future|both sides|symmetric",
            r"transposed",
            r"inverted|complement",
            r"float|uint8|dtype",
        ),
        code="""
import torch


def sliding_window_mask(size, window, dilation=2):
    offset = torch.arange(size)[:, None] - torch.arange(size)[None, :]  # i - j
    in_window = (offset >= 0) & (offset < window * dilation)
    return in_window & (offset % dilation == 0)
""",
        source=DILATED_WINDOW,
    ),
    _c(
        "quiz-cache-memory-two-times-twenty",
        L12,
        "quiz_cache_memory",
        "writes the MiB divisor 2**20 as 2*20 (one asterisk missing), so the bytes are "
        "divided by 40 instead of 1048576: 5033164.8 instead of 192.",
        (
            r"2 ?\* ?20\b|\b40\b",
            r"(asterisk|\*\*|power|exponent).{0,40}(missing|dropped|forgot)"
            r"|(multipli\w*|times) instead of (a )?power",
        ),
        (
            r"10 ?\*\* ?6|megabytes?\b|\bMB\b|decimal",
            r"2 ?\^ ?20|xor|exclusive",
            r"query heads|32 heads",
            r"(factor|times) 2.{0,30}(keys? and values?|missing)",
            r"KiB|kibi|GiB|gibi",
            r"bytes? per element|float32|4 bytes",
        ),
        code="""
def quiz_cache_memory() -> float:
    layers, kv_heads, d_head, tokens, bytes_per_element = 48, 8, 128, 1024, 2
    total_bytes = 2 * layers * kv_heads * d_head * tokens * bytes_per_element
    return total_bytes / (2*20)
""",
    ),
]
