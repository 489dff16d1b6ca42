"""Held-out wrong answers, blind round 20 (helper b20c, 2026-11-28, lessons 11-12): mistakes new to
the benchmark, written blind (no check module, no message read) while fix round 22 changed
the checks, to measure how the diagnoses generalise to mistakes nobody here has seen
(``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L11, L12 = "11_language_model", "12_inference"

_c = held_out_authored("blind20c")

# Where these mistakes are reported (each page was read for this batch).
NEXT_LETTER_ONLY = (
    "https://discuss.tensorflow.org/t/text-generation-tutorial-why-not-just-predicting-the-"
    "next-letter/7456"
)
SOFTMAX_TWICE = "https://github.com/runame/laplace-redux/pull/1"
SAMPLE_LAST_POSITION = "https://github.com/Lightning-AI/litgpt/issues/1347"
MIN_P = "https://docs.aspose.com/llm/net/developer-reference/parameters/sampler/min-p/"
ROPE_BEFORE_PROJECTIONS = "https://github.com/facebookresearch/blt/issues/71"
SWIGLU_CHUNK = "https://github.com/kyegomez/zeta (zeta/nn/modules/swiglu.py)"
NANOGPT_DROPOUT = "https://github.com/karpathy/nanoGPT (model.py: transformer.drop)"
KEYS_TRANSPOSED = "https://github.com/PaddlePaddle/PaddleNLP/pull/6667"
EXP2_SCALE = "https://github.com/newturing/GStar-Assignment-1/pull/6"
FA2_RATIO_TYPO = "https://github.com/Dao-AILab/flash-attention/issues/2342"
LOGSUMEXP_NAIVE = "https://meijun.github.io/page2/"
RMS_SCALE_INVERTED = "https://github.com/kyegomez/zeta/issues/180"
NORM_TWICE = "https://github.com/ggml-org/llama.cpp/pull/1925"

BLIND20C: list[Case] = [
    # ------------------------------------------------------------------ 11 language model
    _c(
        "ntb-target-token-after-window",
        L11,
        "next_token_batches",
        "gives each window one target, the token right after it (tokens[s + block_size], "
        "the many-to-one reading 'Hell' -> 'o'), instead of the window shifted by one "
        "position (tokens[s + 1 : s + block_size + 1]): the targets come back (batch_size,) "
        "instead of (batch_size, block_size), with no target for the positions inside the "
        "window.",
        (
            r"targets?.{0,80}(shape|size)",
            r"(shape|size).{0,60}targets?",
            r"one (target|token|label) (per|for each) (window|row)",
            r"(every|each) position.{0,80}(target|next token|label)",
            r"(target|label)s?.{0,60}(every|each) position",
        ),
        (
            r"not shifted|same as the inputs|targets? (equal|are) the inputs",
            r"global (random|generator|stream)|ignor\w* (the )?generator",
            r"(last|final) (valid )?(start|window).{0,40}(never|excluded|not drawn)",
            r"int32|float",
        ),
        edits=(
            (
                "return tokens[positions], tokens[positions + 1]",
                "return tokens[positions], tokens[starts + block_size]",
            ),
        ),
        source=NEXT_LETTER_ONLY,
    ),
    _c(
        "ntb-start-zero-never-drawn",
        L11,
        "next_token_batches",
        "draws the starts from 1, torch.randint(1, len(tokens) - block_size, ...), as if "
        "position 0 held a start-of-text token to skip: the window at start 0 is never drawn "
        "and the same generator gives other starts than the contract's draw from 0.",
        (
            r"(start|position|offset|index) 0\b",
            r"first (start|window|position|token)",
            r"randint\(0|from 0|lower (bound|end)|low=0|low bound",
        ),
        (
            r"(last|final) (valid )?(start|window)|len\(tokens\) - block_size - 1|upper bound",
            r"not shifted|same as the inputs",
            r"global (random|generator|stream)|ignor\w* (the )?generator",
        ),
        edits=(
            (
                "torch.randint(0, len(tokens) - block_size,",
                "torch.randint(1, len(tokens) - block_size,",
            ),
        ),
    ),
    _c(
        "rms-unit-vector-scale-inverted",
        L11,
        "RMSNorm",
        "normalises with the unit-vector form F.normalize(x, dim=-1) but multiplies by "
        "d_model ** -0.5 instead of d_model ** 0.5 (the scale inverted): the RMS of each "
        "token is 1 / d_model instead of 1, every output d_model times too small.",
        (
            r"d_model ?\*\* ?-?0\.5|sqrt\(d_model\)|√ ?d_model",
            r"(d_model|\d+) times (too )?(small|large)",
            r"scale.{0,40}(invert|wrong way|reciprocal|divid)",
            r"(multipl|divid)\w*.{0,40}instead of (multipl|divid)",
        ),
        (
            r"subtract\w* (the )?mean|layer ?norm",
            r"eps.{0,40}(outside|after|inside)",
            r"(wrong|sequence|positions?) ax",
            r"gain|weight (never|not) (used|applied)",
        ),
        code="""
        class RMSNorm(nn.Module):
            def __init__(self, d_model: int, eps: float = 1e-5):
                super().__init__()
                self.eps = eps
                self.scale = d_model**-0.5
                self.weight = nn.Parameter(torch.ones(d_model))

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                # x / ||x|| has unit length; times the scale: unit root mean square
                return F.normalize(x, dim=-1, eps=self.eps) * self.scale * self.weight
        """,
        source=RMS_SCALE_INVERTED,
    ),
    _c(
        "rot-partner-from-flipped-features",
        L11,
        "apply_rotary",
        "builds each feature's partner with x.flip(-1), as a 'rotate half' written with a "
        "flip, so feature i is paired with feature d_head - 1 - i instead of i + d_head // "
        "2: the partners of the first half come in reverse order and meet the tables' "
        "angles of other pairs, so the result is not a rotation of the lesson's pairs.",
        (
            r"flip",
            r"revers",
            r"d_head ?- ?1 ?- ?i",
            r"i ?\+ ?d_head ?// ?2|i ?\+ ?half",
            r"pair\w*.{0,60}(wrong|mismatch|not the lesson|other)",
        ),
        (
            r"sign|minus|rotates? (the )?(wrong way|backwards)",
            r"halves? (swapped|in the wrong order)",
            r"dtype|float32",
            r"in place|modif",
        ),
        code="""
        def apply_rotary(x, cos, sin):
            half = x.shape[-1] // 2
            cos = torch.cat([cos, cos], dim=-1).to(x.dtype)  # (len, d_head)
            sin = torch.cat([sin, sin], dim=-1).to(x.dtype)
            signs = torch.cat([-torch.ones(half), torch.ones(half)]).to(x.dtype)
            rotated = x.flip(-1) * signs  # (-x2, x1), written with a flip
            return x * cos + rotated * sin
        """,
    ),
    _c(
        "swiglu-d-ff-split-between-gate-and-value",
        L11,
        "SwiGLU",
        "splits d_ff between the gate and the value, as the fused SwiGLU layers that chunk "
        "one projection in two do (x, gate = proj(x).chunk(2, dim=-1)): w1 and w3 have "
        "d_ff // 2 outputs each and w2 takes d_ff // 2 inputs, so the hidden width is half "
        "the contract's d_ff.",
        (
            r"d_ff ?// ?2|half (of )?(the )?d_ff|half (the )?(hidden|width)",
            r"hidden (width|size|dim\w*|features?).{0,60}(d_ff|\d+)",
            r"w[123]\.weight.{0,60}(shape|size)|(shape|size).{0,60}w[123]",
            r"(out|in)_features",
        ),
        (
            r"bias",
            r"2 ?\* ?d_ff ?/ ?3|two.thirds|8 ?/ ?3",
            r"relu|sigmoid|gelu|silu (on|of) (the )?(value|product|w3)",
            r"(gate|value).{0,30}swapped",
        ),
        code="""
        class SwiGLU(nn.Module):
            def __init__(self, d_model: int, d_ff: int):
                super().__init__()
                hidden = d_ff // 2  # the gate and the value share the d_ff features
                self.w1 = nn.Linear(d_model, hidden, bias=False)
                self.w3 = nn.Linear(d_model, hidden, bias=False)
                self.w2 = nn.Linear(hidden, d_model, bias=False)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                return self.w2(F.silu(self.w1(x)) * self.w3(x))
        """,
        source=SWIGLU_CHUNK,
    ),
    _c(
        "csa-rope-on-input-before-projections",
        L11,
        "CausalSelfAttention",
        "rotates the block's input x over all its d_model features before the projections "
        "(rotary_embedding(length, d_model) then w_q, w_k, w_v), as if RoPE commuted with "
        "the projections, instead of rotating each head's projected queries and keys: the "
        "rotation does not survive w_q and w_k, so the scores no longer depend on the offset "
        "alone, and the values carry positions too.",
        (
            r"before (the )?(projection|w_q|w_k|linear)",
            r"(rotat|rope)\w*.{0,60}(input|\bx\b|embedding|d_model features)",
            r"(projected|after (the )?projection).{0,60}(quer|key)",
            r"(quer|key)\w*.{0,60}(after|once) (they are )?projected",
        ),
        (
            r"no (causal )?mask|sees? the future|causal",
            r"keys? (are )?not rotated|quer\w* (are )?not rotated",
            r"\bbase\b",
            r"scale|sqrt\(d_(head|model)\)",
        ),
        edits=(
            (
                "        q = split_heads(self.w_q(x), self.num_heads)",
                "        cos, sin = rotary_embedding(length, x.shape[-1], self.base)\n"
                "        x = apply_rotary(x, cos, sin)  # positions first, then the projections\n"
                "        q = split_heads(self.w_q(x), self.num_heads)",
            ),
            (
                "        cos, sin = rotary_embedding(length, self.d_head, self.base)"
                "  # (len, d_head/2)\n"
                "        q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)\n",
                "",
            ),
        ),
        source=ROPE_BEFORE_PROJECTIONS,
    ),
    _c(
        "block-functional-rms-norm-without-gains",
        L11,
        "DecoderBlock",
        "builds norm1 and norm2 but normalises with the functional F.rms_norm(x, "
        "(d_model,), eps=eps), without their weight: the norms' learned gains are never "
        "applied (right while they are ones, wrong once they are trained or loaded).",
        (
            r"(gain|weight)s?.{0,60}(never|not) (used|applied|multiplied)",
            r"(norm1|norm2|the norms?)\W.{0,60}(never|not) (used|called)",
            r"F\.rms_norm|functional",
            r"without (the |its |their )?(weight|gain)",
        ),
        (
            r"post.?norm|after (the )?residual",
            r"(no|missing) residual|residual.{0,40}(missing|dropped)",
            r"norms? (swapped|shared)|same norm",
            r"layer ?norm|subtract\w* (the )?mean",
        ),
        code="""
        class DecoderBlock(nn.Module):
            def __init__(self, d_model: int, num_heads: int, d_ff: int, eps: float = 1e-5):
                super().__init__()
                self.norm1 = RMSNorm(d_model, eps)
                self.attn = CausalSelfAttention(d_model, num_heads)
                self.norm2 = RMSNorm(d_model, eps)
                self.feed_forward = SwiGLU(d_model, d_ff)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                shape = (x.shape[-1],)
                h = x + self.attn(F.rms_norm(x, shape, eps=self.norm1.eps))
                return h + self.feed_forward(F.rms_norm(h, shape, eps=self.norm2.eps))
        """,
    ),
    _c(
        "block-attention-input-normalised-twice",
        L11,
        "DecoderBlock",
        "a copy-paste slip leaves a second norm in front of the attention, "
        "self.attn(self.norm1(self.norm1(x))): the attention's input is normalised twice, "
        "so its gain is applied twice (right while the gains are ones, wrong once they "
        "differ).",
        (
            r"twice|two times|second (time|norm)|again|norm1\(self\.norm1|norm1\(norm1",
            r"(gain|weight)s?.{0,60}(squared|applied twice)",
        ),
        (
            r"post.?norm|after (the )?residual",
            r"(no|missing) residual|residual.{0,40}(missing|dropped)",
            r"norms? (swapped|shared)|same norm|norm2 (never|not) used",
            r"layer ?norm|subtract\w* (the )?mean",
        ),
        edits=(
            (
                "h = x + self.attn(self.norm1(x))",
                "h = x + self.attn(self.norm1(self.norm1(x)))",
            ),
        ),
        source=NORM_TWICE,
    ),
    _c(
        "gpt-embedding-dropout",
        L11,
        "GPT",
        "adds nanoGPT's embedding dropout, nn.Dropout(0.1) on the token embeddings, which "
        "the lesson's GPT has none of: a freshly built model (train mode) returns different "
        "logits on every call for the same ids.",
        (
            r"dropout",
            r"(random|differ\w*|not the same|chang\w*).{0,60}(every|each|two|second|repeated) "
            r"call",
            r"(two|repeated) calls?.{0,60}(differ|not (the )?same|random)",
            r"train(ing)? mode",
        ),
        (
            r"sqrt\(d_model\)|scaled",
            r"position(al)? (embedding|encoding)",
            r"final norm",
            r"tied|tying|output layer",
        ),
        edits=(
            (
                "        self.norm = RMSNorm(d_model, eps)",
                "        self.norm = RMSNorm(d_model, eps)\n        self.drop = nn.Dropout(0.1)",
            ),
            (
                "        x = self.embedding(ids)  # (batch, len, d_model)",
                "        x = self.drop(self.embedding(ids))  # (batch, len, d_model)",
            ),
        ),
        source=NANOGPT_DROPOUT,
    ),
    _c(
        "sample-softmax-twice",
        L11,
        "sample",
        "applies the softmax a second time to the probabilities, softmax(softmax(logits)), "
        "treating the probabilities as logits: the distribution is flattened towards "
        "uniform, and the tokens top-k or top-p removed (probability 0) get weight exp(0) "
        "back.",
        (
            r"softmax.{0,60}(twice|two times|second time|again|of (the )?probabilit)",
            r"double softmax",
            r"probabilit\w* (as|treated as|taken as|used as) logits",
        ),
        (
            r"multipl\w* .{0,30}temperature|temperature.{0,40}(multipl|not divid)",
            r"top.?k.{0,60}(too many|one too|k ?\+ ?1)",
            r"crossing token|crosses top.?p",
            r"global (random|generator)",
        ),
        edits=(
            (
                "probs = torch.softmax(logits, dim=-1)",
                "probs = torch.softmax(torch.softmax(logits, dim=-1), dim=-1)",
            ),
        ),
        source=SOFTMAX_TWICE,
    ),
    _c(
        "sample-slices-last-position",
        L11,
        "sample",
        "slices the last position, logits[:, -1], at the top of sample, as if it received "
        "the model's (batch, len, vocab) output (that slice belongs in the generation loop): "
        "on the (batch, vocab) logits it keeps only each row's last vocabulary entry, so the "
        "greedy branch returns one index into the batch and sampling fails.",
        (
            r"\[:, ?-1\]",
            r"last (position|column|vocab\w* entry|token'?s? logits?)",
            r"(already|is|are) (2-?d|two-dimensional|\(batch, ?vocab\))",
            r"\(batch, ?len(gth)?, ?vocab\)",
        ),
        (
            r"argmax.{0,30}(batch axis|dim=0)",
            r"multinomial.{0,40}(column|\(batch, ?1\))",
            r"temperature",
            r"int32|dtype",
        ),
        edits=(
            (
                "    if temperature == 0:\n",
                "    logits = logits[:, -1]  # the last position's logits\n"
                "    if temperature == 0:\n",
            ),
        ),
        source=SAMPLE_LAST_POSITION,
    ),
    _c(
        "sample-greedy-returns-max-value",
        L11,
        "sample",
        "at temperature 0 returns logits.max(dim=-1).values, each row's largest logit, "
        "instead of its index (argmax): float logit values come back instead of int64 "
        "token ids.",
        (
            r"argmax",
            r"ind(ex|ices)",
            r"\.values|values? (of the|instead)",
            r"float.{0,60}(token|id|int64)|dtype.{0,40}(float|int64)",
        ),
        (
            r"argmin",
            r"batch axis|dim=0",
            r"keepdim|\(batch, ?1\)",
            r"divid\w* by (zero|0)",
        ),
        edits=(("return logits.argmax(dim=-1)", "return logits.max(dim=-1).values"),),
    ),
    _c(
        "sample-top-p-as-min-p",
        L11,
        "sample",
        "implements min-p instead of top-p: keeps the tokens whose probability is at least "
        "top_p times the most probable token's (a threshold relative to the top token), "
        "instead of the smallest set of the most probable tokens whose cumulative "
        "probability reaches top_p.",
        (
            r"min.?p",
            r"cumulative",
            r"(smallest|fewest) (set|number)",
            r"(mass|sum).{0,40}(reach|at least|top.?p)",
            r"relative to the (top|most probable|largest)",
        ),
        (
            r"crossing token|crosses",
            r"ascending|sort\w* the wrong way",
            r"gather|scatter|vocabulary order",
            r"temperature",
        ),
        edits=(
            (
                "        sorted_probs, order = torch.softmax(logits, dim=-1)"
                ".sort(dim=-1, descending=True)\n",
                "        probs = torch.softmax(logits, dim=-1)\n",
            ),
            (
                "        before = sorted_probs.cumsum(dim=-1) - sorted_probs"
                "  # (batch, vocab): mass before each\n",
                "",
            ),
            (
                "        remove_sorted = before >= top_p\n",
                "",
            ),
            (
                "        remove_sorted[..., 0] = False  # always keep the most probable token\n",
                "",
            ),
            (
                "        remove = remove_sorted.scatter(-1, order, remove_sorted)"
                "  # back to vocabulary order\n",
                "        remove = probs < top_p * probs.amax(dim=-1, keepdim=True)\n",
            ),
        ),
        source=MIN_P,
    ),
    # ------------------------------------------------------------------ 12 inference
    _c(
        "kv-capacity-checks-chunk-only",
        L12,
        "KVCache",
        "checks the capacity against the new chunk's size alone (k_new.shape[-2] > "
        "max_len) instead of the end after the positions already stored (length + n > "
        "max_len): a chunk that would fit an empty cache but overflows a partly filled one "
        "passes the check and fails in the slice assignment with a raw RuntimeError instead "
        "of the ValueError.",
        (
            r"already (stored|held|in the cache)",
            r"length ?\+ ?n|self\.length ?\+|stored so far|positions? (already )?held",
            r"(end|stop|total).{0,60}(max_len|capacity)",
            r"(partly|partially|already) (filled|full)",
        ),
        (
            r"assert",
            r">= ?max_len|exactly (fill|max_len)|full cache (is )?rejected",
            r"persistent",
            r"dtype",
        ),
        edits=(("if stop > self.keys.shape[-2]:", "if k_new.shape[-2] > self.keys.shape[-2]:"),),
    ),
    _c(
        "kv-keys-stored-transposed",
        L12,
        "KVCache",
        "stores the keys transposed, (batch, num_heads, d_head, max_len), ready for q @ k as "
        "Bloom's cache keeps them, and returns them so: the keys come back (batch, "
        "num_heads, d_head, length) instead of (batch, num_heads, length, d_head) like the "
        "values.",
        (
            r"transpos",
            r"\(batch, ?num_heads, ?d_head, ?(length|len|max_len|n)\)",
            r"last two ax",
            r"d_head.{0,40}(before|ahead of) .{0,20}(length|positions)",
        ),
        (
            r"persistent",
            r"dtype|float32",
            r"whole buffer|unfilled|max_len positions",
            r"length (is )?never (advanced|updated)",
        ),
        code="""
        class KVCache(nn.Module):
            def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
                super().__init__()
                keys = torch.zeros(batch, num_heads, d_head, max_len, dtype=dtype)
                values = torch.zeros(batch, num_heads, max_len, d_head, dtype=dtype)
                self.register_buffer("keys", keys, persistent=False)  # kept as k^T
                self.register_buffer("values", values, persistent=False)
                self.length = 0

            def forward(self, k_new, v_new):
                start, stop = self.length, self.length + k_new.shape[-2]
                if stop > self.values.shape[-2]:
                    raise ValueError(f"the cache holds {self.values.shape[-2]} positions")
                self.keys[..., start:stop] = k_new.transpose(-2, -1)
                self.values[:, :, start:stop] = v_new
                self.length = stop
                return self.keys[..., :stop], self.values[:, :, :stop]
        """,
        source=KEYS_TRANSPOSED,
    ),
    _c(
        "gen-steps-called-without-caches",
        L12,
        "generate",
        "runs the prefill with the caches but calls the model for each new token without "
        "them (model(next_id, start=length + step), caches left at None): every generated "
        "token after the first attends to itself alone, never to the prompt or the earlier "
        "tokens.",
        (
            r"(without|no|not (passed|given)).{0,30}cach",
            r"caches ?=",
            r"attends? (only )?to itself|itself (alone|only)",
            r"cach\w*.{0,40}(not|never) (passed|used|given)",
        ),
        (
            r"fresh|new (empty )?caches",
            r"start ?=|rotat\w* (as|at|by) (position|the wrong)",
            r"one step late",
            r"prefill.{0,40}(last token|first position|without)",
        ),
        edits=(
            (
                "logits = model(next_id, caches=caches, start=length + step)[:, -1]",
                "logits = model(next_id, start=length + step)[:, -1]",
            ),
        ),
    ),
    _c(
        "gqa-group-outputs-joined-on-positions",
        L12,
        "grouped_query_attention",
        "attends group by group (each key/value head with its group of query heads) and "
        "joins the groups' outputs with torch.cat(..., dim=2), the positions axis, instead "
        "of dim=1, the heads: right with one key/value head, a (batch, group, num_kv_heads "
        "* len_q, d_v) output otherwise.",
        (
            r"dim ?= ?1\b|head(s)? ax(is|es)",
            r"(cat|concatenat|join|stack)\w*.{0,60}(position|length|len_q|dim ?= ?2)",
            r"(position|length) ax(is|es).{0,40}(instead|not)",
        ),
        (
            r"tile|h ?% |interleav",
            r"scale|sqrt",
            r"mask",
            r"softmax.{0,30}(query|dim ?= ?-2)",
        ),
        code="""
        def grouped_query_attention(q, k, v, mask=None):
            num_kv_heads = k.shape[1]
            group = q.shape[1] // num_kv_heads
            outputs = []
            for g in range(num_kv_heads):  # one key/value head and its group of queries
                heads = slice(g * group, (g + 1) * group)
                m = mask
                if mask is not None and mask.dim() == 4 and mask.shape[1] > 1:
                    m = mask[:, heads]
                out, _ = scaled_dot_product_attention(
                    q[:, heads], k[:, g : g + 1], v[:, g : g + 1], m
                )
                outputs.append(out)
            return torch.cat(outputs, dim=2)
        """,
    ),
    _c(
        "quiz-cache-d-head-split-over-kv-heads",
        L12,
        "quiz_cache_memory",
        "reads d_head = 128 as the width shared by the 8 key/value heads (16 features "
        "each) and sizes the cache with 128 // 8 features per head: 24 MiB instead of 192.",
        (
            r"d_head.{0,60}(per head|each head|of each head|every head)",
            r"16 features|128 ?/ ?8|128 ?// ?8|divid\w* d_head",
            r"(8|eight) times (too )?small|1 ?/ ?8",
        ),
        (
            r"layers",
            r"query heads|32 heads",
            r"bytes|bfloat16|bits",
            r"factor (of )?2|keys and values|keys only",
            r"10 ?\*\* ?6|megabytes|GiB|KiB",
        ),
        code="""
        def quiz_cache_memory() -> float:
            width = 128 // 8  # d_head split over the 8 key/value heads
            return 2 * 48 * 8 * width * 1024 * 2 / 2**20
        """,
    ),
    _c(
        "online-no-final-divide",
        L12,
        "online_softmax",
        "returns exp(x - running maximum) and forgets the final division by the running "
        "sum: each row holds the unnormalised exponentials (its largest is 1), which do not "
        "sum to 1.",
        (
            r"(divid|normalis|normaliz)\w*.{0,40}(running )?(sum|total|ℓ)",
            r"(sum|total).{0,40}(never|not) (used|divided|applied)",
            r"(do|does) not sum to (1|one)|sum to (1|one)",
            r"unnormali[sz]ed",
        ),
        (
            r"(not|never) rescal",
            r"overflow|max\w* (never|not) (updated|subtracted)",
            r"(last|partial) block",
            r"in place|in-place",
        ),
        edits=(
            (
                "return torch.exp(x - running_max[..., None]) / total[..., None]",
                "return torch.exp(x - running_max[..., None])",
            ),
        ),
    ),
    _c(
        "online-log-sums-combined-naively",
        L12,
        "online_softmax",
        "keeps the running sum in log space, each block's log-sum-exp taken stably against "
        "the block's maximum, but combines the running and the block's log-sums with "
        "log(exp(a) + exp(b)) instead of logaddexp: right for moderate scores, but exp "
        "overflows to inf for large ones and the output is NaN or 0.",
        (
            r"overflow",
            r"logaddexp|log\(exp|log1p|logsumexp",
            r"(combin|merg|add)\w*.{0,60}log.?(sum|space)",
            r"(large|big) (values|inputs|scores).{0,60}(inf|nan)",
        ),
        (
            r"(not|never) rescal",
            r"(last|partial) block",
            r"in place|in-place",
            r"max\w* starts? (at )?(0|zero)",
        ),
        code="""
        def online_softmax(x, block_size):
            log_total = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
            for start in range(0, x.shape[-1], block_size):
                block = x[..., start : start + block_size]
                block_max = block.amax(dim=-1)
                block_lse = block_max + torch.log(
                    torch.exp(block - block_max[..., None]).sum(dim=-1)
                )
                log_total = torch.log(torch.exp(log_total) + torch.exp(block_lse))
            return torch.exp(x - log_total[..., None])
        """,
        source=LOGSUMEXP_NAIVE,
    ),
    _c(
        "tiled-exp2-without-log2e",
        L12,
        "tiled_attention",
        "computes the exponentials with torch.exp2 (as the Triton FlashAttention kernels "
        "do) without first multiplying the scores by log2(e): 2 ** s instead of e ** s, so "
        "the softmax is taken over scores scaled by ln 2 (too flat).",
        (
            r"exp2|base.?2|2 ?\*\* ?s",
            r"log2 ?\(?e\)?|1\.44|ln ?\(?2\)?",
            r"(too flat|flatter).{0,60}(ln|0\.69|log)",
        ),
        (
            r"(missing|forgot\w*|without) (the )?(1 ?/ ?sqrt|scale)",
            r"(not|never) rescal",
            r"(no|never|without) (the )?final divi",
            r"causal|diagonal",
        ),
        edits=(
            (
                "correction = torch.exp(running_max - new_max)",
                "correction = torch.exp2(running_max - new_max)",
            ),
            (
                "weights = torch.exp(scores - new_max[..., None])",
                "weights = torch.exp2(scores - new_max[..., None])",
            ),
        ),
        source=EXP2_SCALE,
    ),
    _c(
        "tiled-normalised-output-ratio-inverted",
        L12,
        "tiled_attention",
        "keeps the output normalised after every block (FlashAttention-1's form) and "
        "rescales the old output by l_new / (l_old e^(m - m')), the ratio inverted as in "
        "the formula diag(l1 / l2)^-1 O1 of FlashAttention-2's section 3.1, instead of "
        "l_old e^(m - m') / l_new: the earlier blocks keep too much weight whenever a later "
        "block adds to the sum.",
        (
            r"(ratio|factor).{0,60}(invert|upside|wrong way|reciprocal|flipped)",
            r"l_new ?/ ?l_old|new (sum|total) ?/ ?(the )?old|ℓ.{0,12}/",
            r"(rescal|correct)\w*.{0,60}(old|previous|earlier) (output|blocks?|accumulat)",
            r"diag",
        ),
        (
            r"(not|never) rescal",
            r"(no|never|without) (the )?final divi",
            r"causal|diagonal",
            r"1 ?/ ?sqrt|scale by",
        ),
        code="""
        def tiled_attention(q, k, v, block_size, causal=False):
            len_q, len_k = q.shape[-2], k.shape[-2]
            scale = 1 / math.sqrt(q.shape[-1])
            running_max = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
            total = torch.zeros(q.shape[:-1], dtype=q.dtype)
            out = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)  # normalised
            query_positions = torch.arange(len_q)[:, None]
            for start in range(0, len_k, block_size):
                stop = min(start + block_size, len_k)
                scores = q @ k[..., start:stop, :].transpose(-2, -1) * scale
                if causal:
                    future = torch.arange(start, stop)[None, :] > query_positions
                    scores = scores.masked_fill(future, float("-inf"))
                new_max = torch.maximum(running_max, scores.amax(dim=-1))
                correction = torch.exp(running_max - new_max)
                weights = torch.exp(scores - new_max[..., None])
                new_total = total * correction + weights.sum(dim=-1)
                old = total * correction
                # diag(l_old / l_new)^-1 O_old + P_new V_new
                ratio = torch.where(old > 0, new_total / old, torch.zeros_like(old))
                out = ratio[..., None] * out + weights @ v[..., start:stop, :] / new_total[
                    ..., None
                ]
                running_max, total = new_max, new_total
            return out
        """,
        source=FA2_RATIO_TYPO,
    ),
    _c(
        "tiled-softmax-per-block-averaged",
        L12,
        "tiled_attention",
        "normalises each block of keys on its own (one softmax per block) and averages the "
        "blocks' outputs, instead of one softmax over all the keys carried across blocks "
        "with a running maximum and sum: every block gets the same total weight, whatever "
        "its scores.",
        (
            r"(per|each|every) block.{0,60}(softmax|normalis|normaliz)",
            r"(softmax|normalis|normaliz)\w*.{0,60}(per|each|every|its own) block",
            r"averag",
            r"(same|equal) (total )?weight",
            r"(across|over) (all )?(the )?blocks",
        ),
        (
            r"(not|never) rescal",
            r"causal|diagonal",
            r"1 ?/ ?sqrt|scale by",
            r"(last|partial) block",
        ),
        code="""
        def tiled_attention(q, k, v, block_size, causal=False):
            len_q, len_k = q.shape[-2], k.shape[-2]
            scale = 1 / math.sqrt(q.shape[-1])
            acc = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)
            blocks = torch.zeros(q.shape[:-1], dtype=q.dtype)
            query_positions = torch.arange(len_q)[:, None]
            for start in range(0, len_k, block_size):
                stop = min(start + block_size, len_k)
                scores = q @ k[..., start:stop, :].transpose(-2, -1) * scale
                if causal:
                    future = torch.arange(start, stop)[None, :] > query_positions
                    scores = scores.masked_fill(future, float("-inf"))
                weights = torch.softmax(scores, dim=-1).nan_to_num()  # a block in the future: 0
                acc = acc + weights @ v[..., start:stop, :]
                blocks = blocks + (weights.sum(dim=-1) > 0)
            return acc / blocks[..., None]
        """,
    ),
    _c(
        "sliding-window-loop-skips-first-rows",
        L12,
        "sliding_window_mask",
        "fills each query's row in a loop that starts at row window - 1 (to avoid negative "
        "slice starts), so the first window - 1 queries, which have fewer than window keys "
        "before them, attend to nothing (all-False rows); a window larger than size gives an "
        "all-False mask.",
        (
            r"first (window ?- ?1 )?(rows|queries|positions|tokens)",
            r"(empty|all.false|no key|nothing).{0,60}(rows?|quer)",
            r"(rows?|quer\w*).{0,60}(empty|all.false|no key|nothing)",
            r"(start|beginning) of the sequence",
        ),
        (
            r"one too (wide|many|narrow|few)|window ?\+ ?1 keys|window ?- ?1 keys",
            r"future|not causal|look.ahead",
            r"transpos",
            r"float|dtype|uint8",
        ),
        code="""
        def sliding_window_mask(size, window):
            mask = torch.zeros(size, size, dtype=torch.bool)
            for i in range(window - 1, size):  # rows from window - 1 on have a full window
                mask[i, i - window + 1 : i + 1] = True
            return mask
        """,
    ),
]
