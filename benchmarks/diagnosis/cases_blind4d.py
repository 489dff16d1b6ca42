"""Held-out wrong answers for lessons 11-12, blind round 4 (helper b4d, 2026-11-26).

Written blind: without reading the checks of lessons 11-12 or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run. Half of them transpose a mistake reported in a public thread (the URL read for this
batch) to the course's exercise; the rest are the author's own.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out

AUTHOR = "author: written for this benchmark, no public report cited"

# Threads read for this batch (search tool, corpus issues).
NANOGPT_LAST = "https://github.com/karpathy/nanoGPT/issues/42"
GEMMA_OFFSET = "https://github.com/linkedin/Liger-Kernel/issues/74"
RMS_DTYPE = "https://github.com/huggingface/transformers/issues/30236"
SWIGLU_ORDER = "https://github.com/ml-explore/mlx-lm/pull/767"
SWIGLU_BIAS = "https://github.com/bkitano/llama-from-scratch/issues/7"
ROPE_FACTOR_TWO = "https://github.com/rasbt/LLMs-from-scratch/issues/410"
ROPE_ONE_INDEXED = "https://github.com/bkitano/llama-from-scratch/issues/8"
TOP_P_COMPLEMENT = "https://github.com/lucidrains/x-transformers/issues/184"
CAUSAL_ALIGN = "https://github.com/Dao-AILab/flash-attention/issues/517"
FA2_INVERSE = "https://github.com/Dao-AILab/flash-attention/issues/991"

L11, L12 = "11_language_model", "12_inference"


_c = held_out("blind4d")


BLIND4D: list[Case] = [
    # ------------------------------------------------------------------ 11 language model
    _c(
        "batches-global-rng",
        L11,
        "next_token_batches",
        "draws the starts with torch.randint without generator=, so the windows come from "
        "the global random state and the same generator does not give the same batch.",
        AUTHOR,
        (r"generator",),
        (r"target.*shift|shifted by|start range|num_tokens - block_size - 1",),
        edits=(
            (
                "starts = torch.randint(0, len(tokens) - block_size, (batch_size,), "
                "generator=generator)",
                "starts = torch.randint(0, len(tokens) - block_size, (batch_size,))",
            ),
        ),
    ),
    _c(
        "rms-gemma-unit-offset",
        L11,
        "RMSNorm",
        "multiplies by (1 + weight) (Gemma's offset-from-one convention) instead of weight, "
        "so with the gain initialised to ones every output is twice too large.",
        GEMMA_OFFSET,
        (
            r"1 ?\+ ?(self\.)?weight",
            r"offset",
            r"twice|doubled|factor (of )?2|2 ?(x|×|times)",
        ),
        (r"\beps\b.*(inside|outside)|sqrt.*missing|rsqrt|mean over",),
        edits=(
            (
                "return x * torch.rsqrt(mean_square + self.eps) * self.weight",
                "return x * torch.rsqrt(mean_square + self.eps) * (1 + self.weight)",
            ),
        ),
    ),
    _c(
        "rms-returns-float32",
        L11,
        "RMSNorm",
        "upcasts x to float32 for the statistics and never casts back, so the output's dtype "
        "is float32 whatever the input's (float64 or half precision).",
        RMS_DTYPE,
        (r"dtype", r"float32|float64|float16|bfloat16|half"),
        (r"\beps\b.*(inside|outside)|sqrt.*missing",),
        edits=(
            (
                "mean_square = x.pow(2).mean(dim=-1, keepdim=True)",
                "x = x.float()  # statistics in float32\n"
                "        mean_square = x.pow(2).mean(dim=-1, keepdim=True)",
            ),
        ),
    ),
    _c(
        "rope-theta-no-factor-two",
        L11,
        "rotary_embedding",
        "computes theta_i = base ** (-i / d_head) (arange over d_head // 2 without the factor "
        "2), so every frequency but the first is too high.",
        ROPE_FACTOR_TWO,
        (
            r"2 ?i ?/ ?d_head|-2 ?i|factor (of )?(2|two)|step (of )?2|arange\(0, d_head, 2",
            r"\bi ?/ ?d_head",
        ),
        (r"base.*(invert|reciprocal)|transpos|sign|1-indexed|i ?- ?1",),
        edits=(
            (
                "theta = base ** (-torch.arange(0, d_head, 2, dtype=torch.float64) / d_head)",
                "theta = base ** (-torch.arange(0, d_head // 2, dtype=torch.float64) / d_head)",
            ),
        ),
    ),
    _c(
        "rope-theta-one-indexed",
        L11,
        "rotary_embedding",
        "takes the paper's 1-indexed theta_i = base ** (-2 (i - 1) / d) with a 0-indexed i, "
        "so every frequency is shifted by one pair (theta_0 = base ** (2 / d_head), not 1).",
        ROPE_ONE_INDEXED,
        (
            r"i ?- ?1|off[- ]by[- ]one|(one|1)[- ]indexed|shift(ed)? by one",
            r"theta_0 (=|must be|should be|is) 1|first (pair|frequency)",
        ),
        (r"factor (of )?(2|two)|base.*(invert|reciprocal)|transpos",),
        edits=(
            (
                "theta = base ** (-torch.arange(0, d_head, 2, dtype=torch.float64) / d_head)",
                "theta = base ** (-(torch.arange(0, d_head, 2, dtype=torch.float64) - 2) / d_head)",
            ),
        ),
    ),
    _c(
        "swiglu-silu-on-value",
        L11,
        "SwiGLU",
        "applies silu to the value projection w3 instead of the gate w1: w2(w1(x) * silu(w3(x))).",
        SWIGLU_ORDER,
        (
            r"silu\(w3|silu.*(on|to) (the )?w3|w3.*(gate|silu)",
            r"w1 and w3|w3 and w1|swap|gate and (the )?value|value and (the )?gate",
        ),
        (r"silu.*(product|after)|gelu|relu|bias",),
        edits=(
            (
                "return self.w2(F.silu(self.w1(x)) * self.w3(x))",
                "return self.w2(self.w1(x) * F.silu(self.w3(x)))",
            ),
        ),
    ),
    _c(
        "swiglu-with-bias",
        L11,
        "SwiGLU",
        "builds w1, w3 and w2 as nn.Linear with their default bias, which SwiGLU's Llama "
        "layout has none of (extra state-dict keys *.bias).",
        SWIGLU_BIAS,
        (r"bias",),
        (r"silu|gelu|swap",),
        edits=(
            (
                "self.w1 = nn.Linear(d_model, d_ff, bias=False)",
                "self.w1 = nn.Linear(d_model, d_ff)",
            ),
            (
                "self.w3 = nn.Linear(d_model, d_ff, bias=False)",
                "self.w3 = nn.Linear(d_model, d_ff)",
            ),
            (
                "self.w2 = nn.Linear(d_ff, d_model, bias=False)",
                "self.w2 = nn.Linear(d_ff, d_model)",
            ),
        ),
    ),
    _c(
        "csa-ignores-base",
        L11,
        "CausalSelfAttention",
        "calls rotary_embedding(length, d_head) without self.base, so a model built with "
        "another base still rotates with 10000.",
        AUTHOR,
        (r"\bbase\b",),
        (r"keys? (are )?not rotated|rotates? (the )?values|no (output )?projection|scale",),
        edits=(
            (
                "cos, sin = rotary_embedding(length, self.d_head, self.base)",
                "cos, sin = rotary_embedding(length, self.d_head)",
            ),
        ),
    ),
    _c(
        "block-no-ffn-residual",
        L11,
        "DecoderBlock",
        "drops the feed-forward sub-layer's residual: returns feed_forward(norm2(h)) instead "
        "of h + feed_forward(norm2(h)).",
        AUTHOR,
        (
            r"residual.{0,60}(feed[-_ ]forward|ffn|second|swiglu)",
            r"(feed[-_ ]forward|ffn|second|swiglu).{0,60}residual",
            r"h \+ (self\.)?feed_forward",
        ),
        (r"attention('s)? residual|post-?norm|shared norm",),
        edits=(
            (
                "return h + self.feed_forward(self.norm2(h))",
                "return self.feed_forward(self.norm2(h))",
            ),
        ),
    ),
    _c(
        "gpt-last-position-only",
        L11,
        "GPT",
        "computes the logits of the last position only (the generation shortcut), so forward "
        "returns (batch, 1, vocab) instead of one row of logits per position.",
        NANOGPT_LAST,
        (
            r"last position|only the last|every position|each position|all positions",
            r"\(\d+, 1, \d+\)",
        ),
        (r"tied|untied|final norm|shared block|plain list",),
        edits=(
            (
                "return self.norm(x) @ self.embedding.weight.T",
                "return self.norm(x[:, [-1]]) @ self.embedding.weight.T",
            ),
        ),
    ),
    _c(
        "sample-top-p-complement",
        L11,
        "sample",
        "cuts the nucleus at 1 - top_p instead of top_p (removes a token once the mass "
        "before it reaches 1 - top_p), so it keeps too few tokens for top_p > 0.5.",
        TOP_P_COMPLEMENT,
        (r"1 ?- ?top_p|complement",),
        (r"temperature (after|before)|top_k|cross(es|ing)? top_p|vocabulary order",),
        edits=(("remove_sorted = before >= top_p", "remove_sorted = before >= 1 - top_p"),),
    ),
    _c(
        "sample-divides-in-place",
        L11,
        "sample",
        "divides the logits by the temperature in place (logits /= temperature), which "
        "modifies the caller's tensor.",
        AUTHOR,
        (r"in[- ]place|modif|mutat|/=",),
        (r"temperature (after|before) top|top_k|top_p",),
        edits=(
            (
                "logits = logits / temperature  # (batch, vocab)",
                "logits /= temperature  # (batch, vocab)",
            ),
        ),
    ),
    # ------------------------------------------------------------------ 12 inference
    _c(
        "kv-batch-shared",
        L12,
        "KVCache",
        "allocates the buffers with a batch axis of 1, (1, num_heads, max_len, d_head), so "
        "the sequences of a batch cannot each keep their own keys and values.",
        AUTHOR,
        (
            r"\(1, \d+, \d+, \d+\)",
            r"batch (axis|size|dimension)|each sequence|first axis|axis 0",
        ),
        (r"never advance|whole buffer|persistent|feature axis",),
        edits=(
            (
                "shape = (batch, num_heads, max_len, d_head)",
                "shape = (1, num_heads, max_len, d_head)",
            ),
        ),
    ),
    _c(
        "kv-rejects-full",
        L12,
        "KVCache",
        "raises ValueError when the chunk would exactly fill the cache (stop >= max_len), "
        "so the last of the max_len positions can never be stored.",
        AUTHOR,
        (
            r">=|exactly max_len|exactly fill|fills? (it|the cache)|up to max_len",
            r"max_len positions|last (free )?(slot|position)|off[- ]by[- ]one",
        ),
        (r"never advance|whole buffer|persistent|length.*not",),
        edits=(("if stop > self.keys.shape[-2]:", "if stop >= self.keys.shape[-2]:"),),
    ),
    _c(
        "gen-records-probabilities",
        L12,
        "generate",
        "records softmax(logits) (probabilities) in the returned logits instead of the "
        "logits themselves.",
        AUTHOR,
        (r"softmax|probabilit",),
        (r"one step late|stale|fresh caches|without (the )?cache|start",),
        edits=(("steps.append(logits)", "steps.append(logits.softmax(dim=-1))"),),
    ),
    _c(
        "gqa-repeat-batch-axis",
        L12,
        "grouped_query_attention",
        "repeats the key/value heads along the batch axis (dim=0) instead of the head axis "
        "(dim=1).",
        AUTHOR,
        (r"dim=1|head axis|heads axis|axis 1", r"dim=0|batch axis|axis 0"),
        (r"interleave.*tile|tile.*interleave|group.*invert|position axis|dim=2",),
        edits=(
            (
                "k = k.repeat_interleave(group, dim=1)",
                "k = k.repeat_interleave(group, dim=0)",
            ),
            (
                "v = v.repeat_interleave(group, dim=1)",
                "v = v.repeat_interleave(group, dim=0)",
            ),
        ),
    ),
    _c(
        "online-max-starts-zero",
        L12,
        "online_softmax",
        "starts the running maximum at 0 instead of -inf, so a row of large negative values "
        "keeps a maximum of 0 and every exp underflows (0 / 0).",
        AUTHOR,
        (
            r"-inf|minus infinity|negative infinity",
            r"start(s|ing)? (at|from) (0|zero)|initial(ised)? (running )?max",
        ),
        (r"correction|rescal|final block|block max",),
        edits=(
            (
                'running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)',
                "running_max = torch.zeros(x.shape[:-1], dtype=x.dtype)",
            ),
        ),
    ),
    _c(
        "tiled-causal-bottom-right",
        L12,
        "tiled_attention",
        "aligns the causal mask to the bottom right (query i sees keys up to "
        "i + len_k - len_q, FlashAttention 2.1's convention) instead of the top left "
        "(j <= i, as is_causal=True).",
        CAUSAL_ALIGN,
        (r"bottom[- ]right|top[- ]left|lower[- ]right|upper[- ]left|len_k ?- ?len_q|align",),
        (r"not causal|no mask|sqrt|correction|running",),
        edits=(
            (
                "future = torch.arange(start, stop)[None, :] > query_positions",
                "future = torch.arange(start, stop)[None, :] > query_positions + (len_k - len_q)",
            ),
        ),
    ),
    _c(
        "tiled-acc-correction-inverted",
        L12,
        "tiled_attention",
        "divides the running output by the correction exp(m_old - m_new) instead of "
        "multiplying (the inverse in FlashAttention-2's Algorithm 1 as printed), while the "
        "running sum is rescaled correctly.",
        FA2_INVERSE,
        (
            r"invert|divid|/ ?correction|reciprocal",
            r"(output|acc\w*).{0,60}(rescal|correction)|(rescal|correction).{0,60}(output|acc)",
        ),
        (r"(running )?sum.{0,30}not rescaled|sqrt\(d|mask",),
        edits=(
            (
                "acc = acc * correction[..., None] + weights @ v[..., start:stop, :]",
                "acc = acc / correction[..., None] + weights @ v[..., start:stop, :]",
            ),
        ),
    ),
    _c(
        "sliding-window-inverted",
        L12,
        "sliding_window_mask",
        "returns the complement of the mask (True = blocked), the opposite of the course's "
        "True = may attend.",
        AUTHOR,
        (r"invert|polarity|opposite|negat|complement|True (=|means) (may attend|blocked)",),
        (r"one too many|not causal|diagonal|window - 1",),
        edits=(
            (
                "return look_ahead_mask(size) & recent",
                "return ~(look_ahead_mask(size) & recent)",
            ),
        ),
    ),
]
