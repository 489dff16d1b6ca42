"""Held-out wrong answers for lessons 11-12, blind round 6 (helper b6d, 2026-11-26).

Written blind: without reading the checks of lessons 11-12 or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run. More than half transpose a mistake described in a public issue thread or page (the
URL read with the search tool for this benchmark) to the course's exercise; the others are
the author's. This round favours kinds the earlier rounds lacked: mistakes that only show
on some inputs (batch > 1, half precision, d_v != d_head, more rows than a block, a norm
whose gains differ), shapes and dtypes returned, registration and state-dict names, a
state/step mistake in the generation loop, and two mistakes at once.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out

AUTHOR = "author: written for this benchmark, no public report cited"

L11, L12 = "11_language_model", "12_inference"

# The reports these cases transpose (each read with the search tool for this benchmark).
TIME_MAJOR = "https://github.com/pytorch/text/issues/36"
GAMMA_NAME = "https://github.com/stanford-cs336/assignment1-basics/issues/93"
NOT_PARAMETER = "https://github.com/SimonThomine/RememberingNormality/issues/7"
ROPE_DTYPE = "https://github.com/huggingface/transformers/pull/24262"
SPLIT_NO_TRANSPOSE = (
    "https://tracker-7ex.pages.dev/00_ai_foundation/04_autoregressive_generation/"
    "06-multi-head-split-merge/"
)
EPS_NOT_PASSED = "https://github.com/huggingface/transformers/issues/38025"
TOP_P_GUARD = "https://github.com/fishaudio/fish-speech/pull/1326"
TOP_P_GATHER = "https://github.com/lucidrains/routing-transformer/issues/1"
TOP_K_VOCAB = "https://github.com/TransformerLensOrg/TransformerLens/pull/1347"
OFFSET_HEADS = "https://github.com/fla-org/flash-linear-attention/issues/126"
LEAF_IN_PLACE = "https://github.com/Atcold/NYU-DLSP20/issues/765"
FULL_IDS_WITH_PAST = "https://github.com/huggingface/transformers/issues/1749"
FLOAT_MASK = "https://github.com/wfondrie/depthcharge/pull/38"

_held_out = held_out("blind6d")


def _c(id_, lesson, exercise, cause, named, misnamed=(), edits=(), source=AUTHOR):
    return _held_out(id_, lesson, exercise, cause, source, named, misnamed, edits)


BLIND6D: list[Case] = [
    # ------------------------------------------------------------------ 11 language model
    _c(
        "batches-time-major",
        L11,
        "next_token_batches",
        "returns the windows time-major, (block_size, batch_size), as a seq-first iterator "
        "would, instead of (batch_size, block_size).",
        (
            r"\(block_size, ?batch_size\)",
            r"transpos",
            r"time.?major|seq(uence)?.?first|batch.?first",
            r"(axes|dimensions|dims).{0,40}(swapped|order|exchanged)",
        ),
        (r"not shifted|shift(ed)? by one|global random|without (the )?generator",),
        edits=[
            (
                "return tokens[positions], tokens[positions + 1]",
                "return tokens[positions].T, tokens[positions + 1].T",
            )
        ],
        source=TIME_MAJOR,
    ),
    _c(
        "rms-gain-named-gamma",
        L11,
        "RMSNorm",
        "names the learned gain `gamma` instead of `weight`, so the state dict has the key "
        "gamma and no key weight (the values are right).",
        (
            r"gamma",
            r"state.?dict.{0,120}\bweight\b",
            r"\bweight\b.{0,80}(key|name|attribute|missing)",
            r"(key|name|attribute).{0,60}\bweight\b",
        ),
        (r"subtract|eps.{0,30}(inside|outside)|wrong axis|square root.{0,30}missing",),
        edits=[
            (
                "self.weight = nn.Parameter(torch.ones(d_model))",
                "self.gamma = nn.Parameter(torch.ones(d_model))",
            ),
            (
                "torch.rsqrt(mean_square + self.eps) * self.weight",
                "torch.rsqrt(mean_square + self.eps) * self.gamma",
            ),
        ],
        source=GAMMA_NAME,
    ),
    _c(
        "rms-weight-plain-tensor",
        L11,
        "RMSNorm",
        "stores the gain as a plain tensor (torch.ones, not nn.Parameter), so it is never "
        "registered: not in parameters() nor the state dict, and never trained.",
        (
            r"nn\.Parameter",
            r"not (a |an )?(registered|parameter|learn)",
            r"parameters\(\)",
            r"requires_grad",
            r"(never|not) (be )?(trained|learned|registered)",
            r"state.?dict.{0,120}\bweight\b",
        ),
        (r"subtract|eps.{0,30}(inside|outside)|wrong axis|gamma",),
        edits=[
            (
                "self.weight = nn.Parameter(torch.ones(d_model))",
                "self.weight = torch.ones(d_model)",
            )
        ],
        source=NOT_PARAMETER,
    ),
    _c(
        "rms-layernorm-and-eps-outside",
        L11,
        "RMSNorm",
        "two mistakes at once: subtracts each token's mean first (a LayerNorm) and adds eps "
        "after the square root instead of inside it.",
        (
            r"(subtract|mean|centr|LayerNorm).{0,300}eps",
            r"eps.{0,300}(subtract|centr|LayerNorm)",
            r"two (mistakes|things|errors)",
        ),
        (r"wrong axis|sequence axis|(weight|gain).{0,20}(missing|forgot)",),
        edits=[
            (
                "return x * torch.rsqrt(mean_square + self.eps) * self.weight",
                "x = x - x.mean(dim=-1, keepdim=True)\n"
                "        rms = torch.sqrt(x.pow(2).mean(dim=-1, keepdim=True))\n"
                "        return x / (rms + self.eps) * self.weight",
            )
        ],
    ),
    _c(
        "rope-returns-float64",
        L11,
        "rotary_embedding",
        "computes the angles in float64 and returns cos and sin as float64, without the "
        "cast to float32 the contract asks for.",
        (r"float64|double", r"dtype.{0,60}float32", r"float32.{0,60}dtype"),
        (r"position.{0,20}(from|start)|theta|base|frequenc|swapped|transpos",),
        edits=[
            (
                "return angles.cos().float(), angles.sin().float()",
                "return angles.cos(), angles.sin()",
            )
        ],
    ),
    _c(
        "rotary-upcasts-half",
        L11,
        "apply_rotary",
        "multiplies x by the float32 cos and sin without casting them to x's dtype, so a "
        "float16 or bfloat16 input comes back as float32.",
        (
            r"dtype",
            r"float16|bfloat16|half",
            r"float32.{0,80}(instead|not|input)",
            r"cast",
        ),
        (r"sign|halves|adjacent|pairs? .{0,20}(wrong|swapped)|in place",),
        edits=[("cos, sin = cos.to(x.dtype), sin.to(x.dtype)", "cos, sin = cos, sin")],
        source=ROPE_DTYPE,
    ),
    _c(
        "swiglu-w2-wrong-shape",
        L11,
        "SwiGLU",
        "builds w2 as nn.Linear(d_model, d_ff) instead of nn.Linear(d_ff, d_model), so its "
        "weight has the wrong shape (a shape error whenever d_ff != d_model).",
        (
            r"w2.{0,120}(shape|in_features|out_features|d_ff|size)",
            r"(shape|size).{0,80}w2",
            r"nn\.Linear\(d_ff, ?d_model",
        ),
        (r"relu|sigmoid|gate and value|bias",),
        edits=[
            (
                "self.w2 = nn.Linear(d_ff, d_model, bias=False)",
                "self.w2 = nn.Linear(d_model, d_ff, bias=False)",
            )
        ],
    ),
    _c(
        "csa-heads-view-no-transpose",
        L11,
        "CausalSelfAttention",
        "splits the heads with one view to (batch, num_heads, len, d_head), without the "
        "reshape to (batch, len, num_heads, d_head) and transpose, so each head mixes "
        "features of different positions.",
        (
            r"transpose",
            r"\bview\b",
            r"split.{0,40}head|head.{0,40}(split|layout)",
            r"permut",
        ),
        (
            r"no mask|without (a |the )?mask|rotat.{0,30}values|values.{0,30}rotat|not scaled|output projection|ignor.{0,20}base",
        ),
        edits=[
            ("length = x.shape[1]", "batch, length = x.shape[0], x.shape[1]"),
            (
                "q = split_heads(self.w_q(x), self.num_heads)",
                "q = self.w_q(x).view(batch, self.num_heads, length, self.d_head)",
            ),
            (
                "k = split_heads(self.w_k(x), self.num_heads)",
                "k = self.w_k(x).view(batch, self.num_heads, length, self.d_head)",
            ),
            (
                "v = split_heads(self.w_v(x), self.num_heads)",
                "v = self.w_v(x).view(batch, self.num_heads, length, self.d_head)",
            ),
        ],
        source=SPLIT_NO_TRANSPOSE,
    ),
    _c(
        "block-eps-not-passed",
        L11,
        "DecoderBlock",
        "builds norm1 and norm2 as RMSNorm(d_model), dropping the block's eps argument, so "
        "a block built with another eps normalises with the default.",
        (r"\beps\b", r"epsilon"),
        (r"residual.{0,30}(missing|drop|no)|post-?norm|shared norm|norms? swapped",),
        edits=[
            ("self.norm1 = RMSNorm(d_model, eps)", "self.norm1 = RMSNorm(d_model)"),
            ("self.norm2 = RMSNorm(d_model, eps)", "self.norm2 = RMSNorm(d_model)"),
        ],
        source=EPS_NOT_PASSED,
    ),
    _c(
        "block-norms-swapped",
        L11,
        "DecoderBlock",
        "uses norm2 before the attention and norm1 before the feed-forward (the two norms "
        "swapped): invisible while both gains are ones, wrong once they differ.",
        (
            r"norm1.{0,120}norm2",
            r"norm2.{0,120}norm1",
            r"swap",
            r"(wrong|which) norm",
        ),
        (r"residual.{0,30}(missing|drop|no)|post-?norm|\beps\b",),
        edits=[
            ("h = x + self.attn(self.norm1(x))", "h = x + self.attn(self.norm2(x))"),
            (
                "return h + self.feed_forward(self.norm2(h))",
                "return h + self.feed_forward(self.norm1(h))",
            ),
        ],
    ),
    _c(
        "gpt-tied-to-linear-init",
        L11,
        "GPT",
        "ties the wrong way round after initialising: the embedding takes an nn.Linear's "
        "weight (self.embedding.weight = self.output.weight), so the shared matrix keeps "
        "nn.Linear's default initialisation, not the normal(0, 0.02) one.",
        (
            r"0\.02",
            r"standard deviation|\bstd\b",
            r"initiali[sz]",
        ),
        (
            r"final norm.{0,30}(missing|skip)|without the transpose|not tied|untied|plain (python )?list",
        ),
        edits=[
            (
                "nn.init.normal_(self.embedding.weight, std=0.02)",
                "nn.init.normal_(self.embedding.weight, std=0.02)\n"
                "        self.output = nn.Linear(d_model, vocab_size, bias=False)\n"
                "        self.embedding.weight = self.output.weight",
            ),
            (
                "return self.norm(x) @ self.embedding.weight.T",
                "return self.output(self.norm(x))",
            ),
        ],
    ),
    _c(
        "sample-top-p-guard-row-zero",
        L11,
        "sample",
        "the keep-the-most-probable-token guard is written remove_sorted[0] = False, which "
        "un-removes the whole of row 0 (no top-p there) and gives the other rows no guard, "
        "instead of remove_sorted[..., 0] = False.",
        (
            r"\[0\] ?= ?False",
            r"\[\.\.\., ?0\]",
            r"(first|whole) row",
            r"row 0.{0,100}(not filtered|unfiltered|kept|every token|all)",
            r"(most probable|likeliest|top) token.{0,80}(every|each) row",
            r"(every|each) row.{0,80}(most probable|at least one)",
        ),
        (
            r"temperature (after|before|multipl)|top.?k.{0,30}(plus|strict|one too)|crossing token.{0,30}(drop|remov)|before top.?k",
        ),
        edits=[("remove_sorted[..., 0] = False", "remove_sorted[0] = False")],
        source=TOP_P_GUARD,
    ),
    _c(
        "sample-top-p-gather-back",
        L11,
        "sample",
        "maps the top-p decision back to vocabulary order with gather(-1, order) instead of "
        "scatter(-1, order, ...), so the removed set is permuted onto the wrong tokens.",
        (
            r"gather",
            r"scatter",
            r"back to.{0,40}(vocabulary|original) order",
            r"(sorted|vocabulary) order",
            r"permut|unsort",
        ),
        (
            r"temperature (after|before|multipl)|crossing token.{0,30}(drop|remov)|top.?k.{0,30}(plus|strict|one too)",
        ),
        edits=[
            (
                "remove = remove_sorted.scatter(-1, order, remove_sorted)",
                "remove = remove_sorted.gather(-1, order)",
            )
        ],
        source=TOP_P_GATHER,
    ),
    _c(
        "sample-top-k-beyond-vocab",
        L11,
        "sample",
        "calls torch.topk(logits, top_k) without clamping top_k to the vocabulary size, so "
        "top_k larger than the vocabulary raises a RuntimeError instead of keeping every "
        "token.",
        (
            r"top_k.{0,80}(larger|greater|more|exceed|bigger|>).{0,60}vocab",
            r"vocab.{0,80}(smaller|fewer|less)",
            r"min\(top_k",
            r"clamp",
            r"selected index k out of range",
        ),
        (r"temperature (after|before|multipl)|top.?p.{0,30}(crossing|before)|strict",),
        edits=[
            (
                "kth = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1)",
                "kth = torch.topk(logits, top_k, dim=-1)",
            )
        ],
        source=TOP_K_VOCAB,
    ),
    # ------------------------------------------------------------------ 12 inference
    _c(
        "kv-advances-by-heads",
        L12,
        "KVCache",
        "advances the cache by k_new.shape[1], the number of heads, instead of "
        "k_new.shape[-2], the number of new positions.",
        (
            r"shape\[1\]",
            r"shape\[-2\]",
            r"(number of |num_)heads.{0,100}(position|length|advanc)",
            r"(position|length|advanc).{0,100}(number of |num_)heads",
            r"head axis",
        ),
        (r"persistent|dtype|whole buffer|max_len buffer|overwrit.{0,40}position 0",),
        edits=[
            (
                "start, stop = self.length, self.length + k_new.shape[-2]",
                "start, stop = self.length, self.length + k_new.shape[1]",
            )
        ],
        source=OFFSET_HEADS,
    ),
    _c(
        "kv-buffers-as-parameters",
        L12,
        "KVCache",
        "makes keys and values nn.Parameter instead of buffers: they require grad (the "
        "in-place write fails outside no_grad), show up in parameters() and the state dict.",
        (
            r"nn\.Parameter",
            r"register_buffer",
            r"\bbuffers?\b",
            r"leaf",
            r"requires.?grad",
            r"parameters\(\)",
        ),
        (r"ignores? (the )?dtype|batch (axis )?of 1|whole max_len",),
        edits=[
            (
                'self.register_buffer("keys", torch.zeros(shape, dtype=dtype), persistent=False)',
                "self.keys = nn.Parameter(torch.zeros(shape, dtype=dtype))",
            ),
            (
                'self.register_buffer("values", torch.zeros(shape, dtype=dtype), persistent=False)',
                "self.values = nn.Parameter(torch.zeros(shape, dtype=dtype))",
            ),
        ],
        source=LEAF_IN_PLACE,
    ),
    _c(
        "gen-whole-sequence-each-step",
        L12,
        "generate",
        "after the prefill, feeds the whole sequence so far (ids, start 0) with the caches "
        "at every step instead of the one new token, so cached positions are run again.",
        (
            r"(whole|full|entire).{0,60}(sequence|ids)",
            r"one (new )?token (per|each|at a time)",
            r"only the new token",
            r"(run|fed|feed|see|process).{0,60}(again|twice|more than once)",
            r"each position once",
        ),
        (r"stale|never advance|fresh caches|one step late|start=0 for every",),
        edits=[
            (
                "logits = model(next_id, caches=caches, start=length + step)[:, -1]",
                "logits = model(ids, caches=caches)[:, -1]",
            )
        ],
        source=FULL_IDS_WITH_PAST,
    ),
    _c(
        "gen-unsqueeze-batch-one",
        L12,
        "generate",
        "turns the argmax into a column with .unsqueeze(0), (1, batch), which is only the "
        "(batch, 1) the loop needs when the batch has one sequence.",
        (
            r"unsqueeze",
            r"\(1, ?batch\)",
            r"\(batch, ?1\)",
            r"batch (of|size) (1|one)",
            r"more than one (sequence|row)",
            r"transpos",
        ),
        (r"stale|start.{0,30}(never|not|one too)|fresh caches|one step late",),
        edits=[
            (
                "next_id = logits.argmax(dim=-1, keepdim=True)",
                "next_id = logits.argmax(dim=-1).unsqueeze(0)",
            )
        ],
    ),
    _c(
        "gen-prefill-first-position",
        L12,
        "generate",
        "takes the prefill's logits at the prompt's first position ([:, 0]) instead of its "
        "last ([:, -1]): only a one-token prompt gets the right first token.",
        (
            r"\[:, ?0\]",
            r"\[:, ?-1\]",
            r"first position",
            r"last position",
            r"prompt'?s? (last|final) (token|position|row)",
        ),
        (r"stale|fresh caches|one step late|start=0 for every",),
        edits=[
            (
                "logits = model(prompt, caches=caches, start=0)[:, -1]",
                "logits = model(prompt, caches=caches, start=0)[:, 0]",
            )
        ],
    ),
    _c(
        "gqa-scale-by-d-v",
        L12,
        "grouped_query_attention",
        "writes the attention by hand and scales the scores by 1/sqrt(d_v) (v.shape[-1]) "
        "instead of 1/sqrt(d_head): right only when d_v == d_head.",
        (
            r"d_v",
            r"v\.shape",
            r"sqrt\(d_(head|k)\)",
            r"scal.{0,80}(d_head|d_k|key|query)",
        ),
        (
            r"tile|interleav|mask.{0,30}(ignored|inverted|not applied)|softmax.{0,30}(axis|dim)|values.{0,20}not repeated",
        ),
        edits=[
            (
                "output, _ = scaled_dot_product_attention(q, k, v, mask)",
                "scores = q @ k.transpose(-2, -1) / math.sqrt(v.shape[-1])\n"
                "    if mask is not None:\n"
                '        scores = scores.masked_fill(~mask, float("-inf"))\n'
                "    output = torch.softmax(scores, dim=-1) @ v",
            )
        ],
    ),
    _c(
        "online-upcast-float32",
        L12,
        "online_softmax",
        "upcasts x to float32 first (x = x.float(), as some softmax code does) and never "
        "casts back, so a float64 input returns float32 with float32 precision.",
        (r"dtype", r"float64|double", r"float32", r"precision", r"cast"),
        (
            r"not rescaled|never rescal|correction.{0,30}invert|maximum.{0,30}start|last block|overflow",
        ),
        edits=[
            (
                'running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)',
                "x = x.float()  # a stable softmax in float32\n"
                '    running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)',
            )
        ],
    ),
    _c(
        "online-blocks-over-rows",
        L12,
        "online_softmax",
        "walks the blocks over the first axis (x[start : start + block_size], range over "
        "x.shape[0]) instead of the last: right for a 1-D input or when every row fits in "
        "one block, wrong once there are more rows than block_size.",
        (
            r"(last|column|final) ax[ie]s",
            r"dim(ension)?\s*=?\s*-1",
            r"x\[\.\.\.",
            r"shape\[0\]|first axis|rows? instead of columns",
            r"over (the )?rows",
        ),
        (r"not rescaled|never rescal|correction.{0,30}invert|maximum.{0,30}start",),
        edits=[
            (
                "for start in range(0, x.shape[-1], block_size):",
                "for start in range(0, x.shape[0], block_size):",
            ),
            (
                "block = x[..., start : start + block_size]",
                "block = x[start : start + block_size]",
            ),
        ],
    ),
    _c(
        "tiled-divide-without-none",
        L12,
        "tiled_attention",
        "divides the accumulated output by total without [..., None], so the per-query sum "
        "broadcasts against the d_v axis (an error, or wrong when len_q == d_v).",
        (
            r"\[\.\.\., ?None\]",
            r"unsqueeze",
            r"broadcast",
            r"keepdim",
            r"(divid|normali[sz]).{0,80}(each|per|every) query",
        ),
        (
            r"not rescaled|rescal.{0,30}(missing|never)|correction.{0,30}invert|not (scaled|divided by sqrt)|causal mask.{0,40}(diagonal|bottom)",
        ),
        edits=[("return acc / total[..., None]", "return acc / total")],
    ),
    _c(
        "tiled-slices-first-axis",
        L12,
        "tiled_attention",
        "slices the key and value blocks on the first axis (k[start:stop], v[start:stop]) "
        "instead of the key axis (k[..., start:stop, :]): right for 2-D inputs only.",
        (
            r"k\[\.\.\.",
            r"(key|position) axis",
            r"(axis|dim(ension)?) -2",
            r"(first|batch|leading) axis",
            r"2-?d",
        ),
        (
            r"not rescaled|rescal.{0,30}(missing|never)|correction.{0,30}invert|not (scaled|divided by sqrt)|causal mask.{0,40}(diagonal|bottom)",
        ),
        edits=[
            (
                "scores = q @ k[..., start:stop, :].transpose(-2, -1) * scale",
                "scores = q @ k[start:stop].transpose(-2, -1) * scale",
            ),
            ("weights @ v[..., start:stop, :]", "weights @ v[start:stop]"),
        ],
    ),
    _c(
        "sliding-window-float-mask",
        L12,
        "sliding_window_mask",
        "builds the band from float ones (tril minus a shifted tril), so the right pattern "
        "comes back as a float 0/1 tensor, not a bool mask.",
        (r"bool", r"dtype", r"float"),
        (
            r"window \+ 1|one too (wide|many)|leaves? (out )?the diagonal|not causal|sees the future|invert|complement",
        ),
        edits=[
            (
                "recent = torch.triu(torch.ones(size, size, dtype=torch.bool), diagonal=1 - window)\n"
                "    return look_ahead_mask(size) & recent",
                "ones = torch.ones(size, size)\n"
                "    return torch.tril(ones) - torch.tril(ones, diagonal=-window)",
            )
        ],
        source=FLOAT_MASK,
    ),
]
