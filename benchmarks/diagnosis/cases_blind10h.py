"""Held-out wrong answers for lesson 11, blind round 10, second batch (helper b10h,
2026-11-27), written after round 10's first fixes of these lessons (b10b).

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run. Half transpose a mistake described in a public issue thread (the URL read for this
benchmark with the search tool) to the course's exercise; the others are the author's.
Kinds favoured: mistakes that only show on some inputs (a second, longer call; heads
narrower than 32; another number of heads; a batch of more than one row; a norm gain that
is not ones; 4-axis inputs), two mistakes at once, copy-paste slips that leave one input
unused, and wrong dtypes and shapes returned.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L11 = "11_language_model"

# The reports these cases transpose (each read with the search tool for this benchmark).
SHIFT_DIRECTION = "https://github.com/rasbt/LLMs-from-scratch/issues/508"
SAME_COORDINATE_TWICE = "https://github.com/blurymind/1dollar_gesture_recogniser/issues/5"
MASK_AFTER_SOFTMAX = "https://github.com/abisee/pointer-generator/issues/88"
ROPE_CACHE_KEY = "https://github.com/lucidrains/rotary-embedding-torch/issues/11"
ROPE_MIN_DIM = "https://github.com/lucidrains/x-transformers/issues/296"
PARALLEL_SHARED_NORM = "https://github.com/lucidrains/PaLM-pytorch/pull/7"
DOUBLE_RESIDUAL = "https://github.com/llm-random/llm-random/pull/345"
NORM_GAIN_REINIT = "https://github.com/huggingface/transformers/issues/143"
FINAL_NORM_TWICE = "https://github.com/pytorch/pytorch/issues/50086"
SAMPLED_INT32 = "https://github.com/vllm-project/vllm/pull/15065"
TOP_K_BATCH_SLICE = "https://github.com/mistralai/mistral-inference/pull/26"

_case = held_out_authored("blind10h")

_CSA_INIT = """
class CausalSelfAttention(nn.Module):
    def __init__(self, d_model, num_heads, base=10000.0):
        super().__init__()
        if d_model % num_heads:
            raise ValueError("d_model must be divisible by num_heads")
        self.num_heads, self.d_head, self.base = num_heads, d_model // num_heads, base
        self.w_q = nn.Linear(d_model, d_model, bias=False)
        self.w_k = nn.Linear(d_model, d_model, bias=False)
        self.w_v = nn.Linear(d_model, d_model, bias=False)
        self.w_o = nn.Linear(d_model, d_model, bias=False)
"""

_BLOCK_INIT = """
class DecoderBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, eps=1e-5):
        super().__init__()
        self.norm1 = RMSNorm(d_model, eps)
        self.attn = CausalSelfAttention(d_model, num_heads)
        self.norm2 = RMSNorm(d_model, eps)
        self.feed_forward = SwiGLU(d_model, d_ff)
"""

_GPT_INIT = """
class GPT(nn.Module):
    def __init__(self, vocab_size, d_model, num_heads, d_ff, num_layers, eps=1e-5):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, d_model)
        nn.init.normal_(self.embedding.weight, std=0.02)
        self.layers = nn.ModuleList(
            [DecoderBlock(d_model, num_heads, d_ff, eps) for _ in range(num_layers)]
        )
        self.norm = RMSNorm(d_model, eps)
"""

_TOP_K_LINE = "kth = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1).values[..., -1:]"

BLIND10H: list[Case] = [
    # ------------------------------------------------------------ next_token_batches
    _case(
        "batches-inputs-targets-swapped",
        L11,
        "next_token_batches",
        "returns the two tables the wrong way round, (tokens[positions + 1], "
        "tokens[positions]): the targets are the tokens one place BEFORE the inputs, so "
        "the model would learn to predict the previous token.",
        (
            r"swap",
            r"(the )?wrong way round",
            r"inputs and targets.{0,40}(exchanged|reversed|other way)",
            r"previous token",
            r"targets?.{0,60}(before|behind|left of|one (place|position|token) earlier)",
            r"(inputs?|first).{0,40}(one|1) (token|position|place) (ahead|later|too far)",
        ),
        (
            r"global (random|generator|stream)",
            r"not shifted",
            r"float32",
            r"two (tokens |positions )?ahead",
            r"last (valid )?start",
        ),
        edits=(
            (
                "return tokens[positions], tokens[positions + 1]",
                "return tokens[positions + 1], tokens[positions]",
            ),
        ),
        source=SHIFT_DIRECTION,
    ),
    _case(
        "batches-block-size-starts",
        L11,
        "next_token_batches",
        "draws block_size starts instead of batch_size ((block_size,) as randint's size), "
        "so the batch has block_size rows: right only when batch_size == block_size.",
        (
            r"batch_size",
            r"number of (windows|rows|starts|sequences)",
            r"block_size (starts|rows|windows)",
            r"(first|leading) (axis|dimension).{0,60}(batch|rows)",
        ),
        (
            r"global (random|generator|stream)",
            r"not shifted",
            r"time-major|transpos",
            r"last (valid )?start",
        ),
        edits=(
            (
                "(batch_size,), generator=generator)",
                "(block_size,), generator=generator)",
            ),
        ),
    ),
    # ------------------------------------------------------------ RMSNorm
    _case(
        "rms-mean-absolute-value",
        L11,
        "RMSNorm",
        "squares the mean absolute value instead of taking the mean of the squares "
        "(x.abs().mean(-1).pow(2)), so each token is divided by its mean |x| (an L1 scale), "
        "not its root mean square.",
        (
            r"\babs\b|absolute",
            r"mean of (the )?squares",
            r"square (each|every) (feature|element|value)",
            r"square.{0,30}before.{0,30}(mean|averag)",
            r"root[- ]mean[- ]square.{0,60}(instead|not|rather)",
        ),
        (
            r"subtract\w*.{0,30}mean",
            r"layer ?norm",
            r"\beps\b.{0,40}(outside|after|missing|ignored)",
            r"(weight|gain).{0,40}(missing|not (applied|multiplied|used))",
            r"wrong axis|over the (sequence|positions|batch)",
            r"(no|without|missing) (the )?square root",
        ),
        edits=(
            (
                "x.pow(2).mean(dim=-1, keepdim=True)",
                "x.abs().mean(dim=-1, keepdim=True).pow(2)",
            ),
        ),
    ),
    _case(
        "rms-gain-three-axes",
        L11,
        "RMSNorm",
        "creates the gain with shape (1, 1, d_model) to broadcast over (batch, len, "
        "d_model), so the state dict's weight has the wrong shape for nn.RMSNorm's and an "
        "input with two axes comes back with three.",
        (
            r"\(1, ?1, ?\d+\)",
            r"(weight|gain).{0,60}shape",
            r"shape.{0,40}(weight|gain)",
            r"\(d_model,\)",
            r"torch\.ones\(d_model\)",
            r"(extra|added) (leading )?ax[ie]s",
        ),
        (
            r"subtract\w*.{0,30}mean",
            r"\beps\b",
            r"layer ?norm",
            r"(weight|gain).{0,40}(missing|not (applied|multiplied|used))",
        ),
        edits=(("nn.Parameter(torch.ones(d_model))", "nn.Parameter(torch.ones(1, 1, d_model))"),),
    ),
    # ------------------------------------------------------------ rotary_embedding
    _case(
        "rope-positions-linspace",
        L11,
        "rotary_embedding",
        "takes the positions from torch.linspace(0, length, length) instead of "
        "torch.arange(length): they are spaced length / (length - 1) apart, so only "
        "position 0 has the right angle.",
        (
            r"linspace",
            r"positions?.{0,60}(not (the )?integers|wrong|spac)",
            r"not (the )?integers",
            r"spac(ing|ed)",
            r"arange\(length\)",
            r"0, 1, \.\.\., ?len(gth)? ?- ?1",
        ),
        (
            r"factor (of )?2",
            r"(count|start)\w* (the positions )?from 1",
            r"\bswap",
            r"\bbase\b.{0,40}(ignored|wrong)",
            r"transpos",
        ),
        code="""
def rotary_embedding(length, d_head, base=10000.0):
    theta = base ** (-torch.arange(0, d_head, 2, dtype=torch.float64) / d_head)
    positions = torch.linspace(0, length, length, dtype=torch.float64)
    angles = positions[:, None] * theta
    return angles.cos().float(), angles.sin().float()
""",
    ),
    # ------------------------------------------------------------ apply_rotary
    _case(
        "rotary-first-feature-twice",
        L11,
        "apply_rotary",
        "a copy-paste slip: both rotated halves use the first feature a in place of b, "
        "(a cos - a sin, a sin + a cos), so the second feature of each pair never enters "
        "the result.",
        (
            r"\bb\b.{0,60}(never|not used|unused|ignored|missing)",
            r"second (half|feature|element|member).{0,60}(never|not used|unused|ignored|lost)",
            r"cop(y|ied)",
            r"same (feature|half|element|value) twice",
            r"(ignores|drops|loses) .{0,30}second",
            r"does not depend on .{0,30}second",
        ),
        (
            r"\bsign\b",
            r"wrong (way|direction)",
            r"\bswap",
            r"adjacent",
            r"dtype",
        ),
        edits=(
            (
                "torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)",
                "torch.cat([a * cos - a * sin, a * sin + a * cos], dim=-1)",
            ),
        ),
        source=SAME_COORDINATE_TWICE,
    ),
    _case(
        "rotary-half-from-axis-one",
        L11,
        "apply_rotary",
        "reads the feature count from axis 1 (half = x.shape[1] // 2): right for a "
        "(len, d_head) input, but for (batch, num_heads, len, d_head) it splits at half "
        "the number of heads.",
        (
            r"shape\[1\]",
            r"axis 1\b",
            r"shape\[-1\]",
            r"last axis",
            r"(3|4|three|four|more)[- ](axes|axis|dimensional|d\b)",
            r"leading axes",
            r"number of heads.{0,40}(instead|not)",
        ),
        (
            r"\bsign\b",
            r"adjacent",
            r"in place",
            r"dtype",
            r"wrong (way|direction)",
        ),
        edits=(("half = x.shape[-1] // 2", "half = x.shape[1] // 2"),),
    ),
    # ------------------------------------------------------------ SwiGLU
    _case(
        "swiglu-gate-added",
        L11,
        "SwiGLU",
        "adds the gate to the value instead of multiplying: w2(silu(w1(x)) + w3(x)).",
        (
            r"\badd(s|ed|ing)?\b",
            r"\bsum\b",
            r"multipl",
            r"product",
            r"element-?wise",
        ),
        (
            r"relu",
            r"sigmoid",
            r"gelu",
            r"\bbias",
            r"\bswap",
            r"silu.{0,30}(value|w3)",
        ),
        edits=(("F.silu(self.w1(x)) * self.w3(x)", "F.silu(self.w1(x)) + self.w3(x)"),),
    ),
    _case(
        "swiglu-value-from-w1",
        L11,
        "SwiGLU",
        "a copy-paste slip: the value comes from w1 too, w2(silu(w1(x)) * w1(x)), so w3 "
        "is never used.",
        (
            r"w3.{0,60}(never|not used|unused|ignored|no effect|does not matter)",
            r"w1.{0,20}twice",
            r"(value|second).{0,40}\bw1\b",
            r"cop(y|ied)",
            r"does not (use|depend on) w3",
        ),
        (
            r"silu.{0,30}(value|w3)",
            r"\bswap",
            r"relu",
            r"\bbias",
            r"sigmoid",
        ),
        edits=(("* self.w3(x))", "* self.w1(x))"),),
    ),
    # ------------------------------------------------------------ CausalSelfAttention
    _case(
        "csa-mask-after-softmax",
        L11,
        "CausalSelfAttention",
        "writes the attention by hand and applies the causal mask after the softmax "
        "(zeroing the future weights) without renormalising, so each query's weights sum "
        "to less than 1 (still causal, wrong values).",
        (
            r"after (the )?softmax",
            r"before (the )?softmax",
            r"renormali",
            r"sum to (less than )?1",
            r"do(es)? not sum",
            r"(rows|weights).{0,40}sum",
        ),
        (
            r"\bno mask|without (a |the )?mask|sees? (the )?future|not causal",
            r"scal(e|ing)|sqrt",
            r"rotat\w* (the )?values",
            r"keys.{0,20}not rotated",
        ),
        code=_CSA_INIT
        + """
    def forward(self, x):
        batch, length, d_model = x.shape
        q = split_heads(self.w_q(x), self.num_heads)
        k = split_heads(self.w_k(x), self.num_heads)
        v = split_heads(self.w_v(x), self.num_heads)
        cos, sin = rotary_embedding(length, self.d_head, self.base)
        q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
        weights = torch.softmax(scores, dim=-1).masked_fill(~look_ahead_mask(length), 0.0)
        return self.w_o(merge_heads(weights @ v))
""",
        source=MASK_AFTER_SOFTMAX,
    ),
    _case(
        "csa-rope-cached-first-call",
        L11,
        "CausalSelfAttention",
        "computes the rotation tables on the first call, stores them on the module and "
        "slices them on later calls without checking their length: a later call on a "
        "LONGER sequence than the first fails (a shorter one works).",
        (
            r"second call",
            r"(first|earlier|previous) call",
            r"longer",
            r"cach",
            r"stale",
            r"length.{0,30}chang",
        ),
        (
            r"rotat\w* (the )?values",
            r"\bno mask|without (a |the )?mask",
            r"scal(e|ing)",
            r"keys.{0,20}not rotated",
            r"\bbase\b",
        ),
        code=_CSA_INIT
        + """
    def forward(self, x):
        length = x.shape[1]
        q = split_heads(self.w_q(x), self.num_heads)
        k = split_heads(self.w_k(x), self.num_heads)
        v = split_heads(self.w_v(x), self.num_heads)
        if not hasattr(self, "_tables"):
            self._tables = rotary_embedding(length, self.d_head, self.base)
        cos, sin = self._tables
        cos, sin = cos[:length], sin[:length]
        q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
        heads, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))
        return self.w_o(merge_heads(heads))
""",
        source=ROPE_CACHE_KEY,
    ),
    _case(
        "csa-rope-min-width-32",
        L11,
        "CausalSelfAttention",
        "computes the rotation tables for max(d_head, 32) features (a floor copied from a "
        "library default): heads of 32 features or more are right, narrower heads get "
        "tables of the wrong width.",
        (
            r"max\(",
            r"\b32\b",
            r"tables?.{0,60}(wide|width|size|features|shape)",
            r"(cos|sin).{0,40}(shape|size|width)",
            r"rotary_embedding\(\s*len(gth)?\s*,\s*(self\.)?d_head",
        ),
        (
            r"d_model",
            r"\bbase\b",
            r"rotat\w* (the )?values",
            r"\bno mask|without (a |the )?mask",
        ),
        edits=(
            (
                "cos, sin = rotary_embedding(length, self.d_head, self.base)",
                "cos, sin = rotary_embedding(length, max(self.d_head, 32), self.base)",
            ),
        ),
        source=ROPE_MIN_DIM,
    ),
    _case(
        "csa-four-heads-hard-coded",
        L11,
        "CausalSelfAttention",
        "splits and rotates with 4 heads whatever num_heads is (view(batch, length, 4, -1)): "
        "right only for models built with num_heads = 4.",
        (
            r"\b4 heads",
            r"num_heads.{0,40}(ignored|not used|unused)",
            r"number of heads",
            r"hard-?coded",
            r"heads?.{0,30}(is|are) fixed",
        ),
        (
            r"scal(e|ing)",
            r"\bno mask|without (a |the )?mask",
            r"rotat\w* (the )?values",
            r"\bbase\b",
            r"without (the )?transpose|no transpose",
        ),
        code=_CSA_INIT
        + """
    def forward(self, x):
        batch, length, d_model = x.shape
        q = self.w_q(x).view(batch, length, 4, -1).transpose(1, 2)
        k = self.w_k(x).view(batch, length, 4, -1).transpose(1, 2)
        v = self.w_v(x).view(batch, length, 4, -1).transpose(1, 2)
        cos, sin = rotary_embedding(length, q.shape[-1], self.base)
        q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
        heads, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))
        return self.w_o(heads.transpose(1, 2).reshape(batch, length, d_model))
""",
    ),
    # ------------------------------------------------------------ DecoderBlock
    _case(
        "block-parallel-shared-norm",
        L11,
        "DecoderBlock",
        "two mistakes at once: a parallel block (GPT-J, PaLM) whose feed-forward reads the "
        "block's input instead of h, and one norm (norm1) shared by both sub-layers: "
        "x + attn(norm1(x)) + feed_forward(norm1(x)); norm2 is never used.",
        (
            r"parallel",
            r"norm2.{0,60}(never|not used|unused|ignored|no effect)",
            r"norm2\(h\)",
            r"(feed-?forward|ffn).{0,80}(reads|sees|gets|input|applied to).{0,40}(\bx\b|input)",
            r"norm1.{0,40}(both|twice|shared)",
        ),
        (
            r"post-?norm",
            r"(no|missing|without (the )?) residual",
            r"layer ?norm",
            r"\beps\b",
        ),
        code=_BLOCK_INIT
        + """
    def forward(self, x):
        normed = self.norm1(x)
        return x + self.attn(normed) + self.feed_forward(normed)
""",
        source=PARALLEL_SHARED_NORM,
    ),
    _case(
        "block-ffn-residual-twice",
        L11,
        "DecoderBlock",
        "adds the feed-forward residual twice, h + (h + feed_forward(norm2(h))), as when a "
        "sub-layer that already returns its residual is added to the stream again.",
        (
            r"twice",
            r"double",
            r"2 ?\* ?h",
            r"two times",
            r"(added|counted) (again|more than once)",
        ),
        (
            r"(no|missing|without (the )?) residual",
            r"post-?norm",
            r"residual.{0,40}(from|adds) (the )?(block's )?input",
            r"norm1",
        ),
        edits=(
            (
                "return h + self.feed_forward(self.norm2(h))",
                "return h + (h + self.feed_forward(self.norm2(h)))",
            ),
        ),
        source=DOUBLE_RESIDUAL,
    ),
    # ------------------------------------------------------------ GPT
    _case(
        "gpt-init-every-parameter",
        L11,
        "GPT",
        "re-initialises every parameter with N(0, 0.02) after building the model, the "
        "RMSNorm gains included, which must start at ones: every norm then scales its "
        "output by about 0.02 (and flips signs).",
        (
            r"(gain|weight)s?.{0,60}(ones|\b1\b|one)",
            r"(norm|RMSNorm).{0,60}(weight|gain).{0,60}(init|ones|changed|overwr)",
            r"every parameter",
            r"all (the )?parameters",
        ),
        (
            r"std(andard deviation)?.{0,20}\b1\b|N\(0, ?1\)",
            r"not tied|untied|separate output",
            r"(no|missing|skips?) (the )?final norm",
            r"transpos",
        ),
        code=_GPT_INIT
        + """
        for parameter in self.parameters():
            nn.init.normal_(parameter, std=0.02)

    def forward(self, ids):
        x = self.embedding(ids)
        for layer in self.layers:
            x = layer(x)
        return self.norm(x) @ self.embedding.weight.T
""",
        source=NORM_GAIN_REINIT,
    ),
    _case(
        "gpt-final-norm-twice",
        L11,
        "GPT",
        "applies the final norm twice, norm(norm(x)): with the initial unit gain the "
        "second is almost a no-op (an RMS-normalised vector has RMS 1), so it only shows "
        "once the gain is not ones.",
        (
            r"twice",
            r"two times",
            r"norm\(\s*(self\.)?norm",
            r"(final )?norm.{0,40}(again|more than once)",
        ),
        (
            r"(no|missing|skips?) (the )?final norm",
            r"(every|each) (block|layer)",
            r"not tied|untied",
            r"transpos",
        ),
        edits=(
            (
                "return self.norm(x) @ self.embedding.weight.T",
                "return self.norm(self.norm(x)) @ self.embedding.weight.T",
            ),
        ),
        source=FINAL_NORM_TWICE,
    ),
    _case(
        "gpt-norm-on-embeddings",
        L11,
        "GPT",
        "applies the final norm to the embeddings before the first block instead of after "
        "the last one, so the logits read the un-normalised residual stream.",
        (
            r"before the (first )?(block|layer)",
            r"after the last (block|layer)",
            r"(embedding|input)s?.{0,40}normali[sz]ed",
            r"norm.{0,40}(embedding|too early|wrong place)",
            r"(final )?norm.{0,40}(before|at the start)",
        ),
        (
            r"twice",
            r"(every|each) (block|layer)",
            r"not tied|untied",
            r"std|standard deviation",
            r"transpos",
        ),
        code=_GPT_INIT
        + """
    def forward(self, ids):
        x = self.norm(self.embedding(ids))
        for layer in self.layers:
            x = layer(x)
        return x @ self.embedding.weight.T
""",
    ),
    # ------------------------------------------------------------ sample
    _case(
        "sample-returns-int32",
        L11,
        "sample",
        "casts the sampled ids to int32 (.int()) where int64 is asked for (the greedy "
        "branch still returns int64).",
        (r"int32", r"int64", r"dtype", r"torch\.long", r"\blong\b"),
        (
            r"column|\(batch, 1\)",
            r"global (random|generator)",
            r"argmax",
        ),
        edits=(
            (
                "return torch.multinomial(probs, 1, generator=generator)[:, 0]",
                "return torch.multinomial(probs, 1, generator=generator)[:, 0].int()",
            ),
        ),
        source=SAMPLED_INT32,
    ),
    _case(
        "sample-top-k-rows-sliced",
        L11,
        "sample",
        "slices the sorted logits along the batch axis (values[:top_k], the first top_k "
        "ROWS) instead of the vocabulary, so the threshold is each row's smallest logit: "
        "top-k keeps every token (and a batch of more than top_k rows fails).",
        (
            r"batch axis|first axis|dim(ension)? 0|axis 0",
            r"\brows?\b.{0,40}(instead|not).{0,20}(vocab|tokens|columns)",
            r"top-?k.{0,60}(no effect|ignored|keeps (all|every))",
            r"\[:\s*top_k\]",
            r"smallest logit",
        ),
        (
            r"temperature",
            r"top-?p",
            r"k ?\+ ?1",
            r"global (random|generator)",
        ),
        edits=(
            (_TOP_K_LINE, "kth = logits.sort(dim=-1, descending=True).values[:top_k][..., -1:]"),
        ),
        source=TOP_K_BATCH_SLICE,
    ),
    _case(
        "sample-top-p-on-logits",
        L11,
        "sample",
        "sorts and accumulates the logits themselves for top-p, without the softmax, so "
        "the nucleus is cut where the running sum of logits reaches top_p.",
        (
            r"logits?.{0,40}(instead of|not|rather than).{0,20}probabilit",
            r"probabilit.{0,40}(not|instead of|rather than).{0,20}logit",
            r"softmax.{0,30}(first|before)",
            r"sum\w* (of )?(the )?logits",
            r"cumsum.{0,30}logits",
        ),
        (
            r"temperature",
            r"ascending",
            r"cross",
            r"gather",
            r"top-?k",
            r"1 ?- ?top_p|complement",
        ),
        edits=(
            (
                "sorted_probs, order = torch.softmax(logits, dim=-1).sort(dim=-1, descending=True)",
                "sorted_probs, order = logits.sort(dim=-1, descending=True)",
            ),
        ),
    ),
    _case(
        "sample-top-k-threshold-row-zero",
        L11,
        "sample",
        "takes the k-th largest logit of the first row as a Python number "
        "(.values[0, -1].item()) and applies it to every row: right for a batch of one, "
        "wrong for the other rows of a batch.",
        (
            r"(one|single|same) (threshold|k-th|cut)",
            r"first row|row 0",
            r"\.item\(\)",
            r"threshold.{0,40}(every|all|each) rows?",
            r"rows? (after|other than|beyond) the first",
            r"per[- ]row",
        ),
        (
            r"temperature",
            r"top-?p",
            r"k ?\+ ?1",
            r"global (random|generator)",
            r"in place",
        ),
        edits=(
            (
                _TOP_K_LINE,
                "kth = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1)"
                ".values[0, -1].item()",
            ),
        ),
    ),
]
