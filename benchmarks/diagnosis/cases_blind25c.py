"""Held-out wrong answers, blind round 25 (helper b25c, 2026-11-29, lessons 11-12): mistakes new to
the benchmark, written blind (no check module, no message read) while fix round 27 changed
the checks, to measure how the diagnoses generalise to mistakes nobody here has seen
(``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L11, L12 = "11_language_model", "12_inference"

_c = held_out_authored("blind25c")

# Where these mistakes are reported (each page was read for this batch).
RESHAPE_NOT_TRANSPOSE = "https://github.com/inmoonlight/notebooks"
FREQS_HALF_DIM = "https://github.com/lucidrains/RETRO-pytorch/issues/12"
GUMBEL_ONE_LOG = "https://github.com/openai/baselines/issues/172"
GUMBEL_ON_PROBS = "https://github.com/vithursant/VAE-Gumbel-Softmax/issues/1"
SCORES_NOT_LOGITS = "https://github.com/huggingface/transformers/issues/14498"
EXP2_LOG2E = "https://github.com/jax-ml/jax/pull/25984"
RMS_SCALE_POWER = "https://github.com/microsoft/TRELLIS/issues/314"
PREFILL_NOT_CHECKED = "https://github.com/Lightning-AI/litgpt/pull/2215"
KV_HEAD_MEAN = "https://github.com/wandb/senpai/pull/796"
HALF_STEP_FFN = "https://github.com/lucidrains/conformer/issues/5"
FACTOR_OLD_MAX = "https://github.com/deepseek-ai/FlashMLA/pull/177"

BLIND25C: list[Case] = [
    # ---- 11 language model ----------------------------------------------------------------
    _c(
        "ntb-time-major-positions-reshaped",
        L11,
        "next_token_batches",
        "builds the positions time-major, (block_size, batch_size), and reshapes them to "
        "(batch_size, block_size) instead of transposing, so each row of inputs and targets "
        "mixes positions of several windows instead of holding one contiguous window.",
        (
            r"reshape\w* (instead of|rather than|not) transpos",
            r"(view|reshape)\w* (scrambles|mixes|interleaves)",
            r"(rows?|windows?) (are |is )?not (a )?contiguous|not consecutive tokens",
            r"(mix|interleav)\w* (positions|tokens) (of|from) (several|different) windows",
        ),
        (
            r"targets? (are |is )?not shifted",
            r"global (random )?(stream|generator|rng)",
            r"start\w* (range|off by one)",
        ),
        edits=(
            (
                "positions = starts[:, None] + torch.arange(block_size)",
                "positions = (starts[None, :] + torch.arange(block_size)[:, None]).reshape("
                "batch_size, block_size)",
            ),
        ),
        source=RESHAPE_NOT_TRANSPOSE,
    ),
    _c(
        "rms-sum-of-squares-over-d-squared",
        L11,
        "RMSNorm",
        "divides the sum of squares by d_model squared (the L2 norm divided by d_model, "
        "not by sqrt(d_model)), so the statistic is d_model times too small and the output "
        "sqrt(d_model) times too large.",
        (
            r"d_model\s*(\*\*\s*2|squared|²)",
            r"(divid\w*|normalis\w*|normaliz\w*) by d(_model)? (instead of|rather than|not) sqrt",
            r"sqrt\(?d(_model)?\)? times too (large|big)",
            r"(norm|sum of squares) (divided )?by d_model",
        ),
        (
            r"eps (is )?(outside|added after)",
            r"subtract\w* the mean",
            r"over the (sequence|wrong) axis",
        ),
        edits=(
            (
                "mean_square = x.pow(2).mean(dim=-1, keepdim=True)",
                "mean_square = x.pow(2).sum(dim=-1, keepdim=True) / x.shape[-1] ** 2",
            ),
        ),
        source=RMS_SCALE_POWER,
    ),
    _c(
        "rope-frequencies-for-half-the-head",
        L11,
        "rotary_embedding",
        "passes d_head // 2 where d_head belongs in the frequency formula "
        "(base ** (-arange(0, d_head // 2, 2) / (d_head // 2))), halving the width twice: "
        "only d_head // 4 frequencies, spaced for a head half as wide.",
        (
            r"d_head ?// ?4|quarter",
            r"d_head ?// ?2 (where|instead of|in place of) d_head",
            r"(halv\w*|divid\w* by 2|half) (the )?(head )?(width|d_head) twice",
            r"too few (frequencies|columns)",
        ),
        (
            r"positions? (start\w* )?(at|from) (1|one)",
            r"(cos|sin)\w* (and|,) (sin|cos)\w* swapped",
            r"base (is )?inverted",
        ),
        edits=(
            (
                "theta = base ** (-torch.arange(0, d_head, 2, dtype=torch.float64) / d_head)",
                "theta = base ** (-torch.arange(0, d_head // 2, 2, dtype=torch.float64) / "
                "(d_head // 2))",
            ),
        ),
        source=FREQS_HALF_DIM,
    ),
    _c(
        "swiglu-silu-on-both-branches",
        L11,
        "SwiGLU",
        "applies silu to the value branch too, w2(silu(w1(x)) * silu(w3(x))): only the gate "
        "w1 goes through silu, the value w3(x) is multiplied in linearly.",
        (
            r"silu (on|to) (both|the value|w3)",
            r"value (branch |w3\(x\) )?(must not|should not|is not to) (go through|be passed)",
            r"w3\(x\) (is )?(linear|without (an )?activation)",
            r"both branches",
        ),
        (
            r"gate and value (are )?swapped",
            r"relu|gelu|sigmoid gate",
            r"silu (of|on|over) the product",
        ),
        edits=(("F.silu(self.w1(x)) * self.w3(x)", "F.silu(self.w1(x)) * F.silu(self.w3(x))"),),
    ),
    _c(
        "sample-exponential-noise-not-gumbel",
        L11,
        "sample",
        "draws with the Gumbel-max trick but adds -log(u) (exponential noise, one log) "
        "instead of -log(-log(u)) to the log-probabilities before the argmax, so the draws "
        "do not follow softmax(logits / temperature).",
        (
            r"not (standard )?gumbel|gumbel noise (is|must be|should be) -log\(-log",
            r"-log\(-log|log\(-log|two logs|double log|one log",
            r"exponential noise",
        ),
        (
            r"(noise|gumbel)\w* (added )?(to|on) (the )?probabilit",
            r"temperature (is )?(multiplied|applied twice)",
            r"global (random )?(stream|generator|rng)",
            r"top.?k (keeps|drops) one",
        ),
        edits=(
            (
                "return torch.multinomial(probs, 1, generator=generator)[:, 0]",
                "noise = -torch.log(torch.rand(probs.shape, generator=generator))\n"
                "    return (probs.log() + noise).argmax(dim=-1)",
            ),
        ),
        source=GUMBEL_ONE_LOG,
    ),
    _c(
        "sample-gumbel-noise-on-probabilities",
        L11,
        "sample",
        "uses the Gumbel-max trick but adds the Gumbel noise -log(-log(u)) to the "
        "probabilities softmax(logits / temperature) instead of to their logarithms (or the "
        "scaled logits), so the argmax draws from a much flatter distribution.",
        (
            r"(noise|gumbel)\w* (added )?(to|on) (the )?probabilit",
            r"log.?probabilit\w*|log\(probs\)|(instead of|not) (to )?(the )?(scaled )?logits",
            r"flatter|too flat|nearly uniform",
        ),
        (
            r"exponential noise|-log\(u\) instead of -log\(-log",
            r"temperature (is )?(multiplied|applied twice)",
            r"global (random )?(stream|generator|rng)",
            r"top.?p (drops|keeps) the (crossing|last)",
        ),
        edits=(
            (
                "return torch.multinomial(probs, 1, generator=generator)[:, 0]",
                "gumbel = -torch.log(-torch.log(torch.rand(probs.shape, generator=generator)))\n"
                "    return (probs + gumbel).argmax(dim=-1)",
            ),
        ),
        source=GUMBEL_ON_PROBS,
    ),
    # ---- 12 inference ---------------------------------------------------------------------
    _c(
        "gen-records-log-probabilities",
        L12,
        "generate",
        "records log_softmax(logits) for each step instead of the raw logits that chose the "
        "token, so the returned logits are shifted per row (log-probabilities).",
        (
            r"log.?softmax",
            r"log.?probabilit",
            r"(raw|unnormali[sz]ed) logits",
            r"shifted (by a constant )?per row",
        ),
        (
            r"one step late",
            r"start\w* (position )?(one )?(too far|off by one)",
            r"prompt'?s? logits",
        ),
        edits=(("steps.append(logits)", "steps.append(torch.log_softmax(logits, dim=-1))"),),
        source=SCORES_NOT_LOGITS,
    ),
    _c(
        "online-exp2-without-log2e",
        L12,
        "online_softmax",
        "uses torch.exp2 everywhere for speed without multiplying the exponents by log2(e), "
        "so it computes softmax(x * ln 2), a flatter distribution, not softmax(x).",
        (
            r"exp2",
            r"log2\s*\(?e\)?|log2e|1\.4427",
            r"ln ?\(?2\)?|base 2",
            r"flatter|too flat",
        ),
        (
            r"correction (is )?inverted",
            r"(running )?total (is )?not rescaled",
            r"last (partial )?block",
        ),
        edits=(
            ("total * torch.exp(", "total * torch.exp2("),
            ("+ torch.exp(", "+ torch.exp2("),
            ("return torch.exp(x", "return torch.exp2(x"),
        ),
        source=EXP2_LOG2E,
    ),
    _c(
        "kv-capacity-checks-one-position",
        L12,
        "KVCache",
        "checks the capacity for one new position (self.length + 1 > max_len) whatever "
        "k_new holds, so a multi-position call (the prefill) that overflows is not rejected "
        "with ValueError.",
        (
            r"length \+ 1",
            r"(one|a single) (new )?position",
            r"(n|k_new\.shape\[-2\]|the number of new positions) (is )?(ignored|not counted)",
            r"(prefill|several positions|multi-position)\w* (overflow|beyond|past)",
        ),
        (
            r"length (is )?never advanced",
            r"(returns|whole) buffer",
            r"persistent",
        ),
        edits=(
            (
                "if stop > self.keys.shape[-2]:",
                "if self.length + 1 > self.keys.shape[-2]:",
            ),
        ),
        source=PREFILL_NOT_CHECKED,
    ),
    _c(
        "csa-rotary-tables-num-heads-wide",
        L11,
        "CausalSelfAttention",
        "builds the rotary tables with rotary_embedding(length, self.num_heads, base): the "
        "number of heads where the head width d_head belongs, so the angles are for a "
        "num_heads-wide head (and do not fit the d_head features unless the two are equal).",
        (
            r"num_heads (where|instead of|in place of) d_head",
            r"rotary_embedding\(\w+, (self\.)?num_heads",
            r"(tables?|angles|frequencies) (built |computed )?for num_heads",
            r"head width d_head",
        ),
        (
            r"values? (are )?rotated",
            r"keys? (are )?not rotated",
            r"d_model (where|instead of)",
        ),
        edits=(
            (
                "rotary_embedding(length, self.d_head, self.base)",
                "rotary_embedding(length, self.num_heads, self.base)",
            ),
        ),
    ),
    _c(
        "gqa-kv-heads-mean-pooled",
        L12,
        "grouped_query_attention",
        "averages the key and value heads into one (k.mean(dim=1, keepdim=True), the same "
        "for v) and shares it with every query head, instead of giving query head h its own "
        "key/value head h // group.",
        (
            r"(averag|mean)\w* (over |of |across )?(the )?(key|value|kv|key/value) heads",
            r"mean-?pool",
            r"(one|a single) (shared )?(key/value|kv) head",
            r"h ?// ?(group|\(num_heads ?// ?num_kv_heads\))",
        ),
        (
            r"tile[sd]? (instead of|rather than) (interleav|repeat)",
            r"scal\w* by (d_v|sqrt\(d_v\))",
            r"mask (is )?(inverted|ignored)",
        ),
        edits=(
            (
                "k = k.repeat_interleave(group, dim=1)",
                "k = k.mean(dim=1, keepdim=True)",
            ),
            (
                "v = v.repeat_interleave(group, dim=1)",
                "v = v.mean(dim=1, keepdim=True)",
            ),
        ),
        source=KV_HEAD_MEAN,
    ),
    _c(
        "tiled-max-updated-before-correction",
        L12,
        "tiled_attention",
        "overwrites the running maximum with the new one before computing the correction "
        "exp(running_max - new_max), so the correction is always 1 and the running sum and "
        "output accumulated under the old maximum are never rescaled.",
        (
            r"(before|after) (computing |the )?(the )?correction",
            r"correction (is )?always (1|one)",
            r"(running )?max\w* (is )?(updated|overwritten) (too early|first|before)",
            r"exp\(m_old ?- ?m_new\)|old max\w*",
            r"never rescaled|not rescaled",
        ),
        (
            r"correction (is )?inverted|exp\(new_max ?- ?running_max\)",
            r"causal (mask )?(bottom|off by one|diagonal)",
            r"(no|missing|unscaled) (1/)?sqrt\(d_k\)",
        ),
        edits=(
            (
                "correction = torch.exp(running_max - new_max)",
                "running_max = new_max\n        correction = torch.exp(running_max - new_max)",
            ),
        ),
        source=FACTOR_OLD_MAX,
    ),
    _c(
        "sw-window-limits-future-not-past",
        L12,
        "sliding_window_mask",
        "builds the window with torch.tril(..., diagonal=window - 1) instead of "
        "torch.triu(..., diagonal=1 - window), limiting how far ahead a query may look "
        "(which the causal mask already forbids) instead of how far back: old keys are "
        "never cut, and the result is the plain look-ahead mask.",
        (
            r"tril (instead of|rather than|not) triu",
            r"(limits?|cuts?|bounds?) (the )?(future|keys? ahead|later keys)",
            r"old(er)? keys (are )?(never|not) (cut|masked|dropped|excluded)",
            r"(same as|just|only|equals?) (the )?(plain )?look.?ahead mask|no window",
        ),
        (
            r"one (key |position )?too (wide|many|few|narrow)",
            r"both sides",
            r"transposed",
        ),
        edits=(
            (
                "torch.triu(torch.ones(size, size, dtype=torch.bool), diagonal=1 - window)",
                "torch.tril(torch.ones(size, size, dtype=torch.bool), diagonal=window - 1)",
            ),
        ),
    ),
    _c(
        "block-feed-forward-half-step",
        L11,
        "DecoderBlock",
        "adds the feed-forward sublayer with a Conformer-style half step, "
        "h + 0.5 * feed_forward(norm2(h)): the decoder block's second residual adds the "
        "whole feed-forward output, unscaled.",
        (
            r"0\.5|half[- ]step|halved|by (one )?half",
            r"(feed.?forward|second) (residual|branch|sublayer|output) (is )?(scaled|multiplied)",
            r"(unscaled|whole|full) feed.?forward output",
            r"conformer|macaron",
        ),
        (
            r"post.?norm",
            r"(one|the same|a single) norm (is )?(shared|reused)",
            r"feed.?forward (reads|is given) (the )?(input|x)\b",
        ),
        edits=(
            (
                "return h + self.feed_forward(self.norm2(h))",
                "return h + 0.5 * self.feed_forward(self.norm2(h))",
            ),
        ),
        source=HALF_STEP_FFN,
    ),
    _c(
        "rot-second-half-sin-sign-flipped",
        L11,
        "apply_rotary",
        "writes the second half as b * cos - a * sin instead of a * sin + b * cos: the sine "
        "term of the second half has the wrong sign, so the pair is not rotated (the first "
        "half turns forwards, the second backwards) and its length is not preserved.",
        (
            r"second half",
            r"sign of (the )?(sin|sine)",
            r"a \* sin \+ b \* cos|x1 \* sin \+ x2 \* cos",
            r"(length|norm) (of (each|the) pair )?(is )?not preserved|not a rotation",
        ),
        (
            r"cos and sin (are )?swapped",
            r"halves (are )?swapped",
            r"adjacent pairs",
            r"(writes|modifies) (into )?x in place",
        ),
        edits=(("a * sin + b * cos", "b * cos - a * sin"),),
    ),
    _c(
        "gpt-tied-output-unit-rows",
        L11,
        "GPT",
        "ties the output to F.normalize(embedding.weight, dim=-1), the embedding rows scaled "
        "to unit length (nGPT-style cosine logits), instead of the embedding matrix itself, "
        "so every logit is off by its token's embedding norm.",
        (
            r"normali[sz]\w* (the )?(embedding|output) (rows|weight|matrix|vectors)",
            r"unit(-| )(length|norm)",
            r"cosine",
            r"embedding\.weight itself|the (same )?embedding matrix (itself|unchanged)",
        ),
        (
            r"(no|missing|without) (the )?final norm",
            r"(not|never) tied|separate (output|lm_head)",
            r"sqrt\(d_model\)",
        ),
        edits=(
            (
                "return self.norm(x) @ self.embedding.weight.T",
                "return self.norm(x) @ F.normalize(self.embedding.weight, dim=-1).T",
            ),
        ),
    ),
]
