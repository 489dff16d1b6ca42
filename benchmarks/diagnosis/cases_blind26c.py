"""Held-out wrong answers, blind round 26 (helper b26c, 2026-11-29, lessons 11-12): mistakes new to
the benchmark, written blind (no check module, no message read) while fix round 28 changed
the checks, to measure how the diagnoses generalise to mistakes nobody here has seen
(``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L11, L12 = "11_language_model", "12_inference"

_c = held_out_authored("blind26c")

# Where these mistakes are reported (each page was read for this batch).
BATCH_WRAPS = "https://github.com/tensorflow/tensorflow/issues/15584"
POSITIONS_SCALED = "https://github.com/ggml-org/llama.cpp/pull/1967"
NTK_BASE = "https://github.com/LostRuins/koboldcpp/issues/375"
SWISH_BETA = "https://github.com/bkitano/llama-from-scratch/issues/7"
HIDDEN_TWO_THIRDS = "https://github.com/meta-llama/llama/issues/1019"
MASK_BUFFER_KEY = "https://github.com/karpathy/minGPT/pull/122"
PACKED_BATCH = "https://github.com/huggingface/transformers/issues/25452"
NAIVE_SOFTMAX = "https://manuelmazzuola.dev/2021/03/09/softmax-temperature-nan-loss"
KEPT_LOGITS_ONE = "https://github.com/lucidrains/x-transformers/issues/184"
PROMPT_TWICE = "https://github.com/huggingface/transformers/issues/34232"
MASK_AFTER_SUM = "https://github.com/ruotianluo/self-critical.pytorch/issues/89"
SUM_AXIS_ZERO = "https://techstalking.com/how-to-implement-the-softmax-function-in-python/"

BLIND26C: list[Case] = [
    # ---- 11 language model ----------------------------------------------------------------
    _c(
        "ntb-windows-wrap-around-stream",
        L11,
        "next_token_batches",
        "treats the stream as circular, as word2vec's batcher does with data_index % len(data): "
        "draws the starts from the whole stream, torch.randint(0, len(tokens), ...), and "
        "takes the positions modulo len(tokens), so a window that starts near the end wraps "
        "round to the stream's first tokens (and starts above num_tokens - block_size - 1 "
        "are drawn), instead of drawing starts below num_tokens - block_size only.",
        (
            r"wrap\w*( a)?round|wraps?\b",
            r"modul\w*|% ?len",
            r"circular",
            r"(windows?|starts?|positions?) (that )?(cross|run past|go past|run off|overrun|pass) the end",
            r"starts? (are |is )?(drawn )?(from|over|up to|across) the whole (stream|sequence)",
            r"starts? (above|beyond|past|greater than) (num_tokens|len\(tokens\)) ?- ?block_size",
        ),
        (
            r"global (random|generator|rng|stream)",
            r"targets? (are |is )?(not shifted|the inputs)",
            r"time[- ]major|transposed",
            r"targets? (two|2) (tokens? )?ahead",
        ),
        edits=(
            (
                "starts = torch.randint(0, len(tokens) - block_size, (batch_size,), generator=generator)",
                "starts = torch.randint(0, len(tokens), (batch_size,), generator=generator)",
            ),
            (
                "return tokens[positions], tokens[positions + 1]",
                "n = len(tokens)  # the stream read as a ring\n"
                "    return tokens[positions % n], tokens[(positions + 1) % n]",
            ),
        ),
        source=BATCH_WRAPS,
    ),
    _c(
        "rms-eps-added-to-output",
        L11,
        "RMSNorm",
        "adds eps to the normalised tokens instead of to the mean square, "
        "(x / sqrt(mean(x**2)) + eps) * weight: every output feature is shifted by eps, "
        "an all-zero token gives NaN (0 / 0), and a large eps is visible everywhere.",
        (
            r"eps (is )?added to (the )?(output|result|normali[sz]ed|quotient)",
            r"adds? eps (to|after) (the )?(output|result|division|normali[sz]ed|quotient)",
            r"eps (outside|after) the (division|quotient)",
            r"eps (belongs |goes |must go |should be |is not )?(inside|under|within) the (square )?root",
            r"(operator )?precedence",
            r"(zero|all-zero) (token|row|input|vector)s? (gives?|returns?|produces?) nan",
        ),
        (
            r"(no|missing|without) (the )?square root",
            r"subtracts? (the )?mean|(uses|divides by) the variance",
            r"(gain|weight) (is )?(missing|not applied|never applied)",
            r"(sum|l2 norm) (instead of|not) (the )?mean",
        ),
        edits=(
            (
                "return x * torch.rsqrt(mean_square + self.eps) * self.weight",
                "return (x / torch.sqrt(mean_square) + self.eps) * self.weight",
            ),
        ),
    ),
    _c(
        "rope-positions-linearly-interpolated",
        L11,
        "rotary_embedding",
        "copies the linear position interpolation of long-context RoPE (kaiokendev's, "
        "llama.cpp's scale 0.5) into the table: the positions are multiplied by 0.5 "
        "whatever the length, so every angle is m * theta_i / 2 instead of m * theta_i.",
        (
            r"(positions?|indices|m) (are |is )?(scaled|multiplied|halved|compressed|interpolated)",
            r"(position|linear) (interpolation|scaling)",
            r"(half|0\.5|halved) (the |of the )?(positions?|angles?)",
            r"angles? (are |is )?(half|halved|too small|scaled)",
            r"m \* theta_i ?/ ?2|theta_i ?/ ?2",
        ),
        (
            r"\bbase\b (is )?(wrong|ignored|hard-?coded|changed|scaled)",
            r"positions? (start|counted|numbered) (at|from) 1",
            r"without the (factor )?2\b|factor (of )?2 (is )?missing",
            r"(cos|sin) and (sin|cos) (are )?swapped",
            r"divided by (the )?length",
        ),
        edits=(
            (
                "angles = torch.arange(length, dtype=torch.float64)[:, None] * theta",
                "positions = torch.arange(length, dtype=torch.float64) * 0.5  # linear scaling\n"
                "    angles = positions[:, None] * theta",
            ),
        ),
        source=POSITIONS_SCALED,
    ),
    _c(
        "rope-ntk-aware-base-scaling",
        L11,
        "rotary_embedding",
        "copies NTK-aware RoPE scaling for a context twice as long into the table: the base is "
        "raised to base * 2 ** (d_head / (d_head - 2)) before the frequencies are computed, "
        "so every theta_i but the first is too small (a slower rotation) whatever the "
        "base passed.",
        (
            r"\bbase\b.{0,40}(scaled|raised|increased|changed|multiplied|altered|not the one passed)",
            r"ntk",
            r"(uses|with) a (larger|bigger|different) base",
            r"base \*|2 \*\* \(d_head",
            r"frequenc\w* (are |is )?(too (small|low)|too slow|lower)",
        ),
        (
            r"positions? (are |is )?(scaled|multiplied|halved|interpolated)",
            r"positions? (start|counted|numbered) (at|from) 1",
            r"without the (factor )?2\b|factor (of )?2 (is )?missing",
            r"(cos|sin) and (sin|cos) (are )?swapped",
        ),
        edits=(
            (
                "theta = base ** (-torch.arange(0, d_head, 2, dtype=torch.float64) / d_head)",
                "base = base * 2.0 ** (d_head / (d_head - 2))  # NTK-aware, context x2\n"
                "    theta = base ** (-torch.arange(0, d_head, 2, dtype=torch.float64) / d_head)",
            ),
        ),
        source=NTK_BASE,
    ),
    _c(
        "rot-tables-taken-as-angles",
        L11,
        "apply_rotary",
        "reads cos and sin as the angles themselves and takes their cosine and sine again, "
        "torch.cos(cos) and torch.sin(sin), before rotating: every pair is turned by "
        "cos(cos(angle)) and sin(sin(angle)), which is not a rotation (the norm changes) and "
        "position 0 is not left as it is.",
        (
            r"cos(ine)? (and sine )?(of|taken of) the (cos|tables?|cosines?)",
            r"(cos|sin)\((cos|sin)\b|torch\.(cos|sin)\(\s*(cos|sin)\b",
            r"(tables?|cos and sin) (are |is )?(already )?(the )?(cosines?|sines?|values)\b.{0,40}"
            r"not (the )?angles",
            r"(treats?|reads?|takes?) (the )?(tables?|cos and sin|cos, sin) as (the )?angles",
            r"(cos|sin)\w* (applied|taken) twice",
        ),
        (
            r"(rotates?|turns?) (backwards|the wrong way)|minus (the|its) angle",
            r"(cos and sin|sin and cos) (are )?(swapped|exchanged)",
            r"halves (are )?(swapped|in the wrong order)",
            r"adjacent pairs|interleav",
            r"in[- ]place (operation|write|update)|modif(ies|ied) (the caller|x)",
        ),
        edits=(
            (
                "cos, sin = cos.to(x.dtype), sin.to(x.dtype)",
                "cos, sin = torch.cos(cos).to(x.dtype), torch.sin(sin).to(x.dtype)  # the angles",
            ),
        ),
    ),
    _c(
        "swiglu-swish-random-beta",
        L11,
        "SwiGLU",
        "writes the gate as Swish with a slope beta, z * sigmoid(beta * z), and makes beta "
        "with torch.randn(1) (a plain tensor, not the SiLU's beta = 1): every SwiGLU built "
        "draws its own slope, so the gate is a sigmoid unit with a random slope instead of "
        "silu(w1(x)).",
        (
            r"\bbeta\b",
            r"(random|randn|randomly drawn) (slope|scale|factor|coefficient|multiplier)",
            r"slope",
            r"(not|isn't|is not) (the |a )?silu|instead of (the )?silu|silu'?s? (slope|beta)",
            r"sigmoid\(\s*\w+ \* ",
        ),
        (
            r"gelu (gate|instead)|(uses?|with|gates? with) (a )?gelu",
            r"gate and (the )?value (are |projections are )?swapped",
            r"silu (applied )?(to|on|over) the product",
            r"(adds?|with|applies) dropout",
            r"(no|without the) value branch",
        ),
        code="""
import torch
from torch import nn


class SwiGLU(nn.Module):
    def __init__(self, d_model: int, d_ff: int):
        super().__init__()
        self.w1 = nn.Linear(d_model, d_ff, bias=False)
        self.w3 = nn.Linear(d_model, d_ff, bias=False)
        self.w2 = nn.Linear(d_ff, d_model, bias=False)
        self.beta = torch.randn(1)  # Swish's slope

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate = self.w1(x)
        swish = gate * torch.sigmoid(self.beta * gate)
        return self.w2(swish * self.w3(x))
""",
        source=SWISH_BETA,
    ),
    _c(
        "swiglu-hidden-two-thirds",
        L11,
        "SwiGLU",
        "applies Llama's hidden-size rule to d_ff, int(2 * d_ff / 3), before building the "
        "layers, although the block's d_ff is already the hidden width: w1 and w3 have "
        "int(2 * d_ff / 3) outputs and w2 as many inputs, so the state dict's shapes differ "
        "from (d_ff, d_model) and (d_model, d_ff).",
        (
            r"2 ?/ ?3|two[- ]thirds|8 ?/ ?3",
            r"(hidden|inner|intermediate) (size|width|dim\w*|layer) (is |of )?"
            r"(not d_ff|smaller|reduced|shrunk|rescaled|wrong)",
            r"(w1|w3|w2)(\.weight)?('s)? (has the wrong |has |wrong )?shape",
            r"(built|sized|has) \d+ (hidden )?(features|units|outputs) (instead of|not) (d_ff|\d+)",
            r"not d_ff\b|d_ff (is )?(changed|rescaled|not used as given)",
        ),
        (
            r"gelu (gate|instead)|(uses?|with|gates? with) (a )?gelu",
            r"(extra|with|adds?) (a )?bias (terms?|keys?|parameters?)",
            r"gate_proj|up_proj|down_proj",
            r"(arguments|d_model and d_ff) (are )?swapped",
            r"fused (gate|projection|layer)|w13",
        ),
        edits=(
            (
                "self.w1 = nn.Linear(d_model, d_ff, bias=False)",
                "d_ff = int(2 * d_ff / 3)  # Llama's hidden size for a gated unit\n"
                "        self.w1 = nn.Linear(d_model, d_ff, bias=False)",
            ),
        ),
        source=HIDDEN_TWO_THIRDS,
    ),
    _c(
        "csa-mask-buffer-in-state-dict",
        L11,
        "CausalSelfAttention",
        "precomputes the causal mask for 1024 positions as minGPT does, "
        "register_buffer('bias', torch.tril(...)), with the default persistent=True, and "
        "slices it to the input's length: the attention is right, but the state dict gains "
        "an extra key 'bias' (1024 x 1024) that the contract's attention does not have.",
        (
            r"persistent",
            r"(extra|unexpected|additional) (state.?dict )?keys?",
            r"buffer.{0,60}state.?dict|state.?dict.{0,60}buffer",
            r"'?bias'? (buffer|key)|key '?bias",
            r"register_buffer",
        ),
        (
            r"(no|missing) (causal )?mask|sees? the future",
            r"mask (is )?(inverted|transposed|not sliced)",
            r"w_[qkvo]\.bias|projections? (built )?with (a )?bias|nn\.Linear'?s? (default )?bias",
            r"(scale|sqrt)\w* (by|with) d_model",
        ),
        code="""
import torch
from torch import nn


class CausalSelfAttention(nn.Module):
    def __init__(self, d_model: int, num_heads: int, base: float = 10000.0):
        super().__init__()
        if d_model % num_heads:
            raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
        self.num_heads, self.d_head, self.base = num_heads, d_model // num_heads, base
        self.w_q = nn.Linear(d_model, d_model, bias=False)
        self.w_k = nn.Linear(d_model, d_model, bias=False)
        self.w_v = nn.Linear(d_model, d_model, bias=False)
        self.w_o = nn.Linear(d_model, d_model, bias=False)
        # the causal mask, computed once (minGPT's "bias" buffer)
        self.register_buffer("bias", torch.tril(torch.ones(1024, 1024, dtype=torch.bool)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        length = x.shape[1]
        q = split_heads(self.w_q(x), self.num_heads)
        k = split_heads(self.w_k(x), self.num_heads)
        v = split_heads(self.w_v(x), self.num_heads)
        cos, sin = rotary_embedding(length, self.d_head, self.base)
        q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
        mask = self.bias[:length, :length]
        heads, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.w_o(merge_heads(heads))
""",
        source=MASK_BUFFER_KEY,
    ),
    _c(
        "block-norm2-built-in-forward",
        L11,
        "DecoderBlock",
        "builds the second norm inside forward, norm2 = RMSNorm(d_model) on every call, "
        "instead of in __init__: a fresh block computes the right values (gains of ones), but "
        "the state dict has no norm2.weight, that gain is never trained nor loaded, and the "
        "block's eps is not passed to it.",
        (
            r"norm2.{0,60}(missing|not registered|never registered|absent|not in the state.?dict)",
            r"(missing|no) (state.?dict )?key.{0,40}norm2",
            r"(built|created|made|constructed) (in|inside) forward",
            r"(new|fresh) (RMSNorm|norm) (on|at|in) (every|each) call",
            r"norm2\.weight",
        ),
        (
            r"post-?norm",
            r"(one|same) norm (is )?(shared|used twice)|norm1 (is )?used (for )?both",
            r"residual (is )?(missing|dropped|added (twice|to))",
            r"(uses?|built as|builds?) (a |an )?(nn\.)?layer ?norm",
        ),
        edits=(
            (
                "        self.norm2 = RMSNorm(d_model, eps)\n",
                "",
            ),
            (
                "return h + self.feed_forward(self.norm2(h))",
                "norm2 = RMSNorm(h.shape[-1])  # the norm in front of the feed-forward\n"
                "        return h + self.feed_forward(norm2(h))",
            ),
        ),
    ),
    _c(
        "gpt-batch-packed-into-one-row",
        L11,
        "GPT",
        "packs the batch into one long sequence, embedding(ids.reshape(1, batch * len)), "
        "runs the blocks on that row and views the logits back to (batch, len, vocab): "
        "with a batch of one it is right, but each later sequence attends to the earlier "
        "sequences of the batch (and its RoPE positions continue after theirs), so a row's "
        "logits depend on the other rows.",
        (
            r"(sequences?|rows?) (of the batch )?(attend|see|leak|look|depend)\w* "
            r"(to |into |at |on )?(each other|other (rows|sequences)|earlier (rows|sequences)|across)",
            r"(pack|concatenat|flatten|reshap|join)\w* (the )?(whole )?batch (in)?to one "
            r"(long )?(row|sequence)",
            r"one (long )?(row|sequence)",
            r"cross[- ]?contamination|leak\w* (between|across) (rows|sequences)",
            r"depends? on (other|another|the other|earlier) (rows?|sequences?|batch)",
            r"(rows?|sequences?) (of the batch )?(are |is )?not (processed )?independent",
        ),
        (
            r"(no|missing|skips?) (the )?final norm",
            r"untied|not tied",
            r"sqrt\(d_model\)",
            r"(blocks?|layers?) (share|repeated|not chained)",
            r"(drops?|only) the last position",
        ),
        edits=(
            (
                "x = self.embedding(ids)  # (batch, len, d_model)",
                "batch, length = ids.shape\n"
                "        x = self.embedding(ids.reshape(1, batch * length))  # one packed row",
            ),
            (
                "return self.norm(x) @ self.embedding.weight.T  # (batch, len, vocab)",
                "return (self.norm(x) @ self.embedding.weight.T).view(batch, length, -1)",
            ),
        ),
        source=PACKED_BATCH,
    ),
    _c(
        "sample-softmax-without-max",
        L11,
        "sample",
        "computes the probabilities by hand as exp(logits) / exp(logits).sum(), without "
        "subtracting each row's maximum (in the top-p filter and for the final draw): right "
        "for small logits, but once a tempered logit passes about 88 the exponential "
        "overflows to inf, inf / inf gives NaN and the draw fails or goes wrong.",
        (
            r"overflow",
            r"(subtract|shift)\w* (the )?(row'?s? |each row'?s? )?(max|maximum|largest)",
            r"(numerically )?(un)?stable|stabili[sz]",
            r"exp\w* of (large|big) (tempered )?(logits|values|scores)",
            r"inf ?/ ?inf",
            r"log-?sum-?exp|torch\.softmax|f\.softmax",
        ),
        (
            r"temperature (is )?(multiplied|applied after|ignored|not applied)",
            r"(drops|removes) the (crossing|last) token",
            r"global (generator|random)",
            r"(softmax|sum) over the batch",
            r"top_k \+ 1|one (token )?too (many|few)",
        ),
        edits=(
            (
                "sorted_probs, order = torch.softmax(logits, dim=-1).sort(dim=-1, descending=True)",
                "exps = torch.exp(logits)\n"
                "        probs = exps / exps.sum(dim=-1, keepdim=True)\n"
                "        sorted_probs, order = probs.sort(dim=-1, descending=True)",
            ),
            (
                "probs = torch.softmax(logits, dim=-1)  # (batch, vocab), renormalised",
                "exps = torch.exp(logits)\n    probs = exps / exps.sum(dim=-1, keepdim=True)",
            ),
        ),
        source=NAIVE_SOFTMAX,
    ),
    _c(
        "sample-top-k-kept-logits-set-to-one",
        L11,
        "sample",
        "keeps the top k as x-transformers' top_a filter does, setting every kept logit to 1 "
        "(torch.where(logits < kth, -inf, 1.0)) instead of leaving it as it was: the kept "
        "tokens are drawn uniformly, their own probabilities (and the temperature) lost.",
        (
            r"(kept|surviving|remaining|top-?k) (logits|tokens) (are |all )?"
            r"(set|overwritten|replaced|equal) (to|with|by)? ?(1|one|a constant|the same)",
            r"uniform\w* (among|over|across|between) the (top|kept|k)",
            r"(loses|drops|discards|throws away|overwrites) (the )?"
            r"(logits|relative|probabilities|their values|logit values)",
            r"equal (probabilit|chance|weight)",
            r"(same|equal) (logit|weight|probability) (to|for) (every|each|all)",
        ),
        (
            r"top_k \+ 1|one (token )?too (many|few)",
            r"(k-th|kth) (smallest|largest)",
            r"temperature (is )?(multiplied|ignored|not applied)",
            r"(top-?p|nucleus) (drops|removes)",
            r"global (generator|random)",
        ),
        edits=(
            (
                'logits = logits.masked_fill(logits < kth, float("-inf"))',
                'logits = torch.where(logits < kth, float("-inf"), 1.0)  # keep the top k',
            ),
        ),
        source=KEPT_LOGITS_ONE,
    ),
    # ---- 12 inference ---------------------------------------------------------------------
    _c(
        "kv-returns-positions-held-before-call",
        L12,
        "KVCache",
        "slices the keys and values to return with the length held before this call, "
        "keys[:, :, :self.length] taken before the new positions are written and the "
        "length advanced: every call returns the positions stored by earlier calls, without "
        "the new ones (the first call returns no position at all).",
        (
            r"(new|latest|just[- ]stored|newly stored) (positions?|keys?|tokens?|ones)"
            r" (are |is )?(not |never )?(included|returned|missing|left out|excluded)",
            r"(without|excluding|minus|except|leaves out) the (new|latest|newly stored) "
            r"(positions?|keys|ones|tokens)",
            r"(old|previous|stale) length",
            r"(before|prior to) (the |this )?(call|update|write|store|new positions)",
            r"first call returns? (nothing|no positions?|an empty|zero positions)",
            r"one call (late|behind)",
        ),
        (
            r"(length|counter) (never advances|is not advanced|not advanced|advanced by)",
            r"(whole|entire|full) (max_len )?buffer",
            r"only the new (keys|positions)",
            r"(persistent|registered) buffers?.{0,30}state.?dict",
            r"(writes?|written) (at|to) (position )?0",
        ),
        edits=(
            (
                "self.keys[:, :, start:stop] = k_new  # (batch, num_heads, n, d_head)",
                "keys, values = self.keys[:, :, : self.length], self.values[:, :, : self.length]\n"
                "        self.keys[:, :, start:stop] = k_new",
            ),
            (
                "return self.keys[:, :, :stop], self.values[:, :, :stop]",
                "return keys, values",
            ),
        ),
    ),
    _c(
        "gen-prompt-run-twice",
        L12,
        "generate",
        "runs the prompt twice: once without the caches to get the first logits "
        "(model(prompt)[:, -1]) and once more with the caches only to fill them: the tokens "
        "and logits are right, but every prompt position is computed twice, where the "
        "contract asks for each position once.",
        (
            r"(prompt|prefill) (is )?(run|processed|computed|fed|passed)\w* twice",
            r"two (forward )?(passes|calls) (over|on|through|for) the prompt",
            r"positions_processed|(positions?|tokens?) (run|processed|computed) more than once",
            r"each position (only )?once",
            r"(extra|second|redundant) (forward )?(pass|call) (over|on|through|for) the prompt",
        ),
        (
            r"caches? (stay|are|is|remain)s? empty",
            r"(wrong|stale) start|start (is|=) (0|wrong)",
            r"(logits|tokens?) (recorded )?one step (late|early)",
            r"(caches?|cache) (too small|overflow)",
        ),
        edits=(
            (
                "logits = model(prompt, caches=caches, start=0)[:, -1]  # (batch, vocab): the prefill",
                "logits = model(prompt)[:, -1]  # (batch, vocab): the prompt's next-token logits\n"
                "    model(prompt, caches=caches, start=0)  # fills the caches",
            ),
        ),
        source=PROMPT_TWICE,
    ),
    _c(
        "tiled-future-masked-after-sum",
        L12,
        "tiled_attention",
        "with causal=True, zeroes the future weights only after adding the block's weights to "
        "the running sum (weights.masked_fill(future, 0) before the product with v, but the "
        "scores never filled with -inf): the denominator still counts the future keys, so "
        "each query's weights sum to less than 1 and the output is too small.",
        (
            r"(denominator|running sum|total|normali[sz]\w*) (still )?(includes?|counts?|contains?)"
            r" (the )?(future|masked|blocked)",
            r"mask\w* (is )?applied (after|too late)",
            r"(future|masked|blocked) (keys?|weights?|scores?|exponentials?) (are |is )?(still )?"
            r"(counted|summed|added|included)",
            r"(weights?|rows?) (do not |don't |no longer )?sum to (less than )?1",
            r"(not|never) renormali[sz]ed",
            r"(before|instead of) (the )?(exp|exponential|softmax|max)",
        ),
        (
            r"bottom[- ]right",
            r"(diagonal|itself) (is )?(masked|blocked|excluded)",
            r"(block[- ]local|local) (key )?(indices|positions)",
            r"(not|never) (multiplied|scaled) by 1 ?/ ?sqrt|no scale",
            r"(accumulated )?output (is )?not rescaled",
        ),
        edits=(
            (
                'scores = scores.masked_fill(future, float("-inf"))',
                "pass  # masked below, on the weights",
            ),
            (
                "acc = acc * correction[..., None] + weights @ v[..., start:stop, :]",
                "if causal:\n"
                "            weights = weights.masked_fill(future, 0.0)  # no weight on the future\n"
                "        acc = acc * correction[..., None] + weights @ v[..., start:stop, :]",
            ),
        ),
        source=MASK_AFTER_SUM,
    ),
    _c(
        "gqa-output-heads-regrouped-group-major",
        L12,
        "grouped_query_attention",
        "groups the query heads under their key/value head (q viewed as (batch, num_kv_heads, "
        "group, len_q, d_head), which is right) but merges them back with "
        "output.transpose(1, 2).reshape(...), group-major: output head g * num_kv_heads + j "
        "holds query head j * group + g, so the heads come back in the wrong order (right "
        "only with one key/value head or a group of one).",
        (
            r"(heads?|outputs?) (come back |are |is )?(in the wrong order|out of order|"
            r"permuted|shuffled|scrambled|reordered)",
            r"(wrong|different) (head )?order",
            r"order of the (query )?heads",
            r"(transpos|swap)\w* (the )?(group|kv|key/value)[- ]?(heads? )?(and|with) (the )?"
            r"(group|kv|key/value)",
            r"group[- ]major|head h .{0,40}(holds|gets|is) (query )?head",
        ),
        (
            r"\.repeat\(|tiles? (the )?(key|value|k|v)",
            r"(repeat\w*|copies) along the (length|batch|feature)",
            r"mask (is )?(ignored|dropped|inverted|not applied)",
            r"scale\w* (by|with) (d_v|the model|sqrt\(d_model)",
            r"group (size )?(is )?(inverted|hard-?coded|wrong ratio)",
        ),
        code="""
def grouped_query_attention(q, k, v, mask=None):
    batch, num_heads, len_q, d_head = q.shape
    num_kv_heads, len_k = k.shape[1], k.shape[2]
    group = num_heads // num_kv_heads
    q = q.reshape(batch, num_kv_heads, group, len_q, d_head)  # each key/value head's queries
    if mask is not None:
        mask = mask.expand(batch, num_heads, len_q, len_k)
        mask = mask.reshape(batch, num_kv_heads, group, len_q, len_k)
    output, _ = scaled_dot_product_attention(q, k[:, :, None], v[:, :, None], mask)
    return output.transpose(1, 2).reshape(batch, num_heads, len_q, v.shape[-1])
""",
    ),
    _c(
        "online-block-sums-over-first-axis",
        L12,
        "online_softmax",
        "sums each block's exponentials with .sum(dim=0), the first axis, as the "
        "np.exp(x) / np.sum(np.exp(x), axis=0) recipe does, instead of over the block's "
        "columns (dim=-1): a 1-D x is right, but for rows of scores the block sum runs down "
        "the rows, so it raises a broadcasting error or, when the number of rows equals the "
        "block's width, mixes the rows' sums silently.",
        (
            r"(sum|summed|sums|adds?)\w* (the exponentials )?(over|along|down|across) (the )?"
            r"(first|rows?|batch|leading|wrong) ?(axis|dim\w*)?",
            r"dim ?= ?0|axis ?= ?0|axis 0|dim(ension)? 0|first axis",
            r"instead of (the )?(last|column|feature) axis|not dim ?= ?-1",
            r"(sums?|totals?) of (the )?(other|different) rows",
        ),
        (
            r"(max|maximum) (over|across) (all|the whole|every) (rows|tensor)",
            r"(not|never) rescaled|correction (is )?(inverted|missing)",
            r"(last|partial) block (is )?(dropped|skipped)",
            r"in[- ]place (operation|write|update)|(modifies|overwrites) (the caller'?s? )?(input|x)",
            r"(running )?(max|maximum) (starts?|initiali[sz]ed) (at|to) 0",
        ),
        edits=(
            (
                "block - new_max[..., None]\n        ).sum(dim=-1)",
                "block - new_max[..., None]\n        ).sum(dim=0)",
            ),
        ),
        source=SUM_AXIS_ZERO,
    ),
    _c(
        "quiz-cache-divided-by-group-again",
        L12,
        "quiz_cache_memory",
        "sizes the cache with the 8 key/value heads and then divides it by the group size "
        "32 / 8 = 4 again, as if grouped-query attention saved a factor 4 on top of the "
        "fewer heads: 48 MiB instead of 192.",
        (
            r"\b48\b",
            r"(divid\w*|saving) (by )?(the group( size)?|4) (again|twice)",
            r"group (size|factor) (is )?(applied|counted|divided) (twice|again)",
            r"(four|4) times too (small|little)",
        ),
        (
            r"(counts?|uses?|with) (the )?32 query heads",
            r"10\*\*6|megabytes",
            r"(keys only|factor (of )?2 (for )?(keys and values|k and v))",
            r"(4|four) bytes (per|a|for each) value",
        ),
        code="""
def quiz_cache_memory() -> float:
    layers, kv_heads, d_head, tokens, bytes_per_value = 48, 8, 128, 1024, 2
    group = 32 // kv_heads
    return 2 * layers * kv_heads * d_head * tokens * bytes_per_value / group / 2**20
""",
    ),
]
