"""Held-out wrong answers for lessons 11, blind round 15 (helper b15b, 2026-11-28):
mistakes new to the benchmark, written against the checks after round 17's fixes, to
measure how the diagnoses generalise to mistakes nobody here has seen. 22 cases over the
eleven exercises (the nine exercises and both questions); nine transpose a mistake reported
in public (the URL read for this benchmark), the others are the author's.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run, and each case was compared with the causes of the benchmark's earlier cases for these
lessons (ids and causes only) and replaced where it repeated one.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L11 = "11_language_model"

# The reports these cases transpose (each read with the search tool for this benchmark).
SQUEEZE_BATCH_OF_ONE = "https://github.com/NVIDIA/tacotron2/pull/303"
ROPE_TABLES_FOUR_AXES = "https://github.com/rasbt/LLMs-from-scratch/issues/411"
NANOGPT_FLOAT_TRIL = "https://github.com/karpathy/nanoGPT/issues/170"
MASK_DIAGONAL_EXCLUDED = "https://github.com/RVC-Boss/GPT-SoVITS/issues/965"
PROJECTION_WIDTH_D_K = (
    "https://github.com/jadore801120/attention-is-all-you-need-pytorch/issues/211"
)
NO_GRAD_IN_TRAINING = "https://github.com/nianticlabs/monodepth2/issues/24"
TEMPERATURE_IGNORED_WITHOUT_TOP_K = "https://github.com/vllm-project/tpu-inference/issues/1386"
TEMPERATURE_TWICE = "https://github.com/Adibvafa/CodonTransformer/pull/20"

_c = held_out_authored("blind15b")

BLIND15B: list[Case] = [
    # ------------------------------------------------------------------ next_token_batches
    _c(
        "ntb-squeezed-batch-of-one",
        L11,
        "next_token_batches",
        "squeezes both tables before returning them (.squeeze(), to drop any stray axis of "
        "size one): right for batches of several rows, but a batch of one comes back as "
        "1-D (block_size,) tables instead of (1, block_size) (and block_size = 1 loses the "
        "other axis).",
        (
            r"squeeze",
            r"batch(_size)? (of|=) ?(one|1).{0,120}(1-D|one axis|\(\d+,\)|batch axis|"
            r"axis (is )?(lost|dropped|missing))",
            r"(drops?|loses?|removes?|missing) .{0,30}(the )?batch (axis|dim)",
        ),
        (
            r"transposed|time.?major|axes (are )?swapped",
            r"flatten",
            r"targets?.{0,40}(not shifted|same as the inputs)",
            r"global (random|rng|generator)",
        ),
        edits=[
            (
                "return tokens[positions], tokens[positions + 1]",
                "return tokens[positions].squeeze(), tokens[positions + 1].squeeze()",
            )
        ],
        source=SQUEEZE_BATCH_OF_ONE,
    ),
    _c(
        "ntb-inputs-keep-the-extra-token",
        L11,
        "next_token_batches",
        "gathers windows of block_size + 1 tokens and slices the targets from them "
        "(chunks[:, 1:]) but returns the whole chunks as the inputs: the targets are right, "
        "but the inputs are (batch_size, block_size + 1), one token too long (their last "
        "token is the last target).",
        (
            r"inputs?.{0,100}(block_size \+ 1|one (token|position|column) too (long|many)|"
            r"too long|extra (token|position|column))",
            r"inputs?.{0,80}shape.{0,60}\(\d+, ?\d+\).{0,60}(expected|instead|should)",
            r"(drop|remove|leave out|slice off) .{0,40}last (token|position|column).{0,40}inputs?",
            r"inputs?.{0,40}\[:, ?:-1\]",
        ),
        (
            r"targets?.{0,40}(not shifted|same as the inputs|one (token|place) (too )?(late|early))",
            r"transposed|time.?major",
            r"last (valid )?start",
            r"(batch_size|block_size).{0,30}(swapped|instead of) .{0,10}(block_size|batch_size)",
        ),
        edits=[
            (
                "positions = starts[:, None] + torch.arange(block_size)",
                "positions = starts[:, None] + torch.arange(block_size + 1)",
            ),
            (
                "return tokens[positions], tokens[positions + 1]",
                "chunks = tokens[positions]  # a window and the token after it\n"
                "    return chunks, chunks[:, 1:]",
            ),
        ],
    ),
    # ------------------------------------------------------------------ RMSNorm
    _c(
        "rms-wraps-nn-rmsnorm",
        L11,
        "RMSNorm",
        "wraps PyTorch's own module, self.norm = nn.RMSNorm(d_model, eps=eps), and returns "
        "self.norm(x), which the exercise forbids: the values are right, but the gain "
        "lives at the state-dict key norm.weight instead of weight (and the module has no "
        "weight attribute of its own).",
        (
            r"nn\.RMSNorm",
            r"norm\.weight",
            r"(not allowed|forbidden|must not use|may not use|not with nn|own (module|code))",
            r"(state.?dict|keys?).{0,80}(\bweight\b.{0,40}(missing|expected|instead)|"
            r"(missing|expected).{0,40}\bweight\b)",
            r"(no|without( a)?|missing) .{0,20}(attribute |parameter )?.?weight.? "
            r"(attribute|parameter)",
        ),
        (
            r"bias",
            r"subtract\w* .{0,20}mean",
            r"eps.{0,40}(outside|after the square root|hard.?coded)",
            r"gamma",
            r"buffer",
        ),
        edits=[
            (
                "self.eps = eps\n        self.weight = nn.Parameter(torch.ones(d_model))",
                "self.norm = nn.RMSNorm(d_model, eps=eps)",
            ),
            (
                "mean_square = x.pow(2).mean(dim=-1, keepdim=True)  # (..., 1): one per token\n"
                "        return x * torch.rsqrt(mean_square + self.eps) * self.weight",
                "return self.norm(x)",
            ),
        ],
    ),
    _c(
        "rms-eps-stored-as-tuple",
        L11,
        "RMSNorm",
        "stores eps with a trailing comma, self.eps = eps, (a tuple of one number), so "
        "mean_square + self.eps raises a raw TypeError (unsupported operand type(s) for +: "
        "'Tensor' and 'tuple') on every call.",
        (
            r"tuple",
            r"trailing comma",
            r"self\.eps.{0,60}(,|comma)",
        ),
        (
            r"eps.{0,40}(outside|after the square root|hard.?coded|ignored|not passed)",
            r"keepdim",
            r"(rsqrt|square root).{0,40}(divid|instead of multipl)",
        ),
        edits=[("self.eps = eps\n", "self.eps = eps,\n")],
    ),
    # ------------------------------------------------------------------ rotary_embedding
    _c(
        "rope-math-cos-on-tensor",
        L11,
        "rotary_embedding",
        "takes the cosines and sines with the math module, math.cos(angles) and "
        "math.sin(angles), which work on one Python number only: for a table of angles "
        "they raise a raw error (only one element tensors can be converted to Python "
        "scalars) instead of returning tensors (torch.cos / angles.cos()).",
        (
            r"math\.(cos|sin)",
            r"\bmath\b.{0,40}(module|function)",
            r"torch\.(cos|sin)|\.cos\(\)|tensor'?s? (own )?cos",
            r"(one|single).element",
        ),
        (
            r"transposed",
            r"float64|float32",
            r"positions? (from|start) (1|one)",
            r"(cos|sin).{0,20}swapped",
        ),
        edits=[
            (
                "return angles.cos().float(), angles.sin().float()",
                "return math.cos(angles), math.sin(angles)",
            )
        ],
    ),
    _c(
        "rope-sin-table-is-cos",
        L11,
        "rotary_embedding",
        "a copy-paste slip in the return: angles.cos() twice, so the second table (the "
        "sines) holds the cosines: position 0's 'sines' are 1 instead of 0, and every "
        "rotation built from them is wrong.",
        (
            r"sin\w*.{0,80}(equal|same as|copy of|identical to|hold|are|is) .{0,20}"
            r"(the )?cos",
            r"(both|two) tables.{0,60}(equal|same|identical|cos)",
            r"sin\w*.{0,80}(position 0|first position|first row).{0,60}(should be 0|zero|"
            r"not 1|is 1|are 1)",
            r"cos(ine)?s? twice",
        ),
        (
            r"(cos|sin).{0,30}(swapped|wrong order)|\(sin, cos\)",
            r"positions? (from|start) (1|one)",
            r"transposed",
            r"base",
        ),
        edits=[
            (
                "return angles.cos().float(), angles.sin().float()",
                "return angles.cos().float(), angles.cos().float()",
            )
        ],
    ),
    # ------------------------------------------------------------------ apply_rotary
    _c(
        "rot-tables-unsqueezed-for-four-axes",
        L11,
        "apply_rotary",
        "adds two leading axes to the tables, cos[None, None] and sin[None, None], to fit "
        "(batch, num_heads, len, d_head // 2) halves: right for 4-D inputs, but a 2-D "
        "(len, d_head) or 3-D input comes back with extra leading axes ((1, 1, len, "
        "d_head) for one head), although the contract allows any leading axes.",
        (
            r"(extra|additional|two) (leading )?ax[ie]s",
            r"\[None, ?None\]|unsqueeze",
            r"(2-D|3-D|fewer (than four )?axes|(one|single) head'?s?).{0,120}"
            r"(shape|ax[ie]s|\(1, ?1,)",
            r"(four|4) (axes|dimensions)|4-D",
            r"(x'?s|input'?s?) shape.{0,60}(not kept|changed|differs)",
        ),
        (
            r"in place|overwrit",
            r"dtype|float32|upcast",
            r"(sign|direction)|backwards",
            r"halves.{0,30}(swapped|wrong order)",
        ),
        edits=[
            (
                "cos, sin = cos.to(x.dtype), sin.to(x.dtype)",
                "cos, sin = cos[None, None].to(x.dtype), sin[None, None].to(x.dtype)",
            )
        ],
        source=ROPE_TABLES_FOUR_AXES,
    ),
    _c(
        "rot-second-half-sin-twice",
        L11,
        "apply_rotary",
        "a copy-paste slip in the second rotated half: a * sin + b * sin instead of "
        "a * sin + b * cos, so the second feature of each pair is scaled by the sine where "
        "the cosine belongs (the first half is right; position 0's second half becomes 0).",
        (
            r"a ?\* ?sin ?\+ ?b ?\* ?sin",
            r"b ?\* ?cos.{0,60}(missing|instead|should|expected)",
            r"second (half|component|feature|output).{0,80}(sin\w* (where|instead of) .{0,20}"
            r"cos|should (use|be multiplied by) .{0,10}cos|cos\w* (is )?missing)",
            r"sin\w* twice",
        ),
        (
            r"(rotates?|turns?) .{0,20}(the )?wrong way|backwards|transposed rotation",
            r"halves.{0,30}(swapped|wrong order)",
            r"(cos|sin).{0,20}(swapped|exchanged)",
            r"minus sign|\bsign (is )?(wrong|flipped|reversed|on the)",
            r"first feature .{0,20}twice",
        ),
        edits=[
            (
                "torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)",
                "torch.cat([a * cos - b * sin, a * sin + b * sin], dim=-1)",
            )
        ],
    ),
    # ------------------------------------------------------------------ quiz_rope_values
    _c(
        "quiz-rope-values-embeddings",
        L11,
        "quiz_rope_values",
        "answers (a), that RoPE rotates the token embeddings once before the first layer, "
        "as lesson 03's encoding is added: RoPE rotates the queries and keys only, after "
        "the heads are split, in every layer (c).",
        (
            r"(not|never|rather than|instead of) .{0,30}(the )?(token )?embeddings",
            r"embeddings?.{0,80}(not rotated|aren't rotated|are not rotated|never rotated|"
            r"lesson 03|added|once)",
            r"(every|each) layer.{0,60}(not once|not (just )?before)",
            r"\(?a\)?.{0,20}(is|was) .{0,30}lesson 03",
        ),
        (
            r"values?.{0,40}(are not|aren't|not|never) rotated",
            r"attention weights|after the softmax",
            r"(output|values?).{0,40}carr(y|ies) (the )?position",
        ),
        edits=[('return "c"', 'return "a"')],
    ),
    # ------------------------------------------------------------------ SwiGLU
    _c(
        "swiglu-residual-inside-block",
        L11,
        "SwiGLU",
        "adds the input back inside the feed-forward block, x + w2(silu(w1(x)) * w3(x)), as "
        "if SwiGLU owned its residual connection: the block's output is shifted by x (and "
        "the decoder block, which adds its own residual, would add it twice).",
        (
            r"residual",
            r"(adds?|added|plus) .{0,20}(its |the )?(own )?input",
            r"x ?\+ ?(self\.)?w2|\+ ?x\b",
            r"(output|result).{0,60}(shifted|offset) by .{0,10}(the )?(input|x)",
        ),
        (
            r"(gate|value).{0,40}swapped|silu.{0,30}(on|to) (the )?(value|w3)",
            r"bias",
            r"dropout",
            r"(gelu|relu|sigmoid|selu)",
        ),
        edits=[
            (
                "return self.w2(F.silu(self.w1(x)) * self.w3(x))",
                "return x + self.w2(F.silu(self.w1(x)) * self.w3(x))",
            )
        ],
    ),
    _c(
        "swiglu-silu-by-hand-sigmoid-of-input",
        L11,
        "SwiGLU",
        "writes the SiLU by hand, z * sigmoid(z), but takes the sigmoid of the block's input "
        "x instead of the gate's pre-activation w1(x): w2(w1(x) * sigmoid(x) * w3(x)), a "
        "raw shape error whenever d_ff != d_model (and the wrong gate when they are equal).",
        (
            r"sigmoid.{0,40}(of|on) (the )?(block'?s )?(raw )?(input|x\b)",
            r"sigmoid\(x\)",
            r"sigmoid.{0,60}(should|must|instead).{0,30}w1\(x\)",
            r"(silu|swish).{0,80}(by hand|written out).{0,80}(w1|input|argument)",
        ),
        (
            r"sigmoid (instead of|rather than|in place of) (the )?(silu|swish)",
            r"(gate|value).{0,40}swapped",
            r"matmul|matrix product",
            r"w2.{0,40}(shape|d_model, d_ff)",
        ),
        edits=[
            (
                "return self.w2(F.silu(self.w1(x)) * self.w3(x))",
                "gate = self.w1(x) * torch.sigmoid(x)  # silu(z) = z * sigmoid(z)\n"
                "        return self.w2(gate * self.w3(x))",
            )
        ],
    ),
    # ------------------------------------------------------------------ CausalSelfAttention
    _c(
        "csa-float-tril-mask",
        L11,
        "CausalSelfAttention",
        "builds the causal mask itself as nanoGPT's buffer, torch.tril(torch.ones(len, "
        "len)), a float tensor of ones and zeros, and passes it to the course's attention, "
        "which takes a bool mask (it inverts it with ~): a raw TypeError (bitwise not on a "
        "float tensor) instead of the causal attention.",
        (
            r"float (mask|tensor)",
            r"bool(ean)?.{0,60}(mask|dtype)|(mask|dtype).{0,60}bool(ean)?",
            r"tril.{0,80}(float|bool|dtype)",
            r"torch\.ones.{0,60}(float|dtype|bool)",
        ),
        (
            r"(no|without|missing) (the )?(causal |look.?ahead )?mask\b",
            r"(inverted|upside|reversed|triu)",
            r"(sees?|attends? to|leaks?) .{0,20}(the )?future",
            r"F\.scaled_dot_product|not allowed",
        ),
        edits=[
            (
                "heads, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))",
                "causal = torch.tril(torch.ones(length, length))  # 1 = may attend\n"
                "        heads, _ = scaled_dot_product_attention(q, k, v, causal)",
            )
        ],
        source=NANOGPT_FLOAT_TRIL,
    ),
    _c(
        "csa-mask-excludes-diagonal",
        L11,
        "CausalSelfAttention",
        "builds the causal mask itself with torch.tril(..., diagonal=-1), the strict lower "
        "triangle: each query attends only to the keys before it, never to its own "
        "position, and the first query attends to nothing (a zero output row).",
        (
            r"diagonal",
            r"(attends?|sees?|see) .{0,20}(to )?(itself|its own (position|token|key))",
            r"(own|same) (position|token|key).{0,60}(blocked|masked|excluded|not|never)",
            r"strictly (lower|before|earlier)",
            r"first (position|token|query).{0,80}(nothing|no keys?|zero|all.zero)",
        ),
        (
            r"(no|without|missing) (the )?(causal |look.?ahead )?mask\b",
            r"(inverted|upside|reversed|triu)",
            r"(sees?|attends? to|leaks?) .{0,20}(the )?future",
            r"float (mask|tensor)",
        ),
        edits=[
            (
                "heads, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))",
                "causal = torch.tril(torch.ones(length, length, dtype=torch.bool), diagonal=-1)\n"
                "        heads, _ = scaled_dot_product_attention(q, k, v, causal)",
            )
        ],
        source=MASK_DIAGONAL_EXCLUDED,
    ),
    _c(
        "csa-projections-one-head-wide",
        L11,
        "CausalSelfAttention",
        "builds w_q, w_k and w_v as nn.Linear(d_model, self.d_head), one head's width, "
        "instead of nn.Linear(d_model, d_model) for all the heads together: the weights "
        "are (d_head, d_model), so splitting them into num_heads heads and rotating fails "
        "(right only for one head).",
        (
            r"w_[qkv].{0,100}(d_head|one head|\(\d+, ?\d+\)|d_model, d_model)",
            r"(projections?|w_q|queries).{0,80}(d_head|one head'?s?|too (small|narrow)|"
            r"all (the )?heads)",
            r"d_model(, | by | x )d_model",
        ),
        (
            r"bias",
            r"d_ff",
            r"rotat\w+ .{0,20}values",
            r"split_heads.{0,40}d_head",
        ),
        edits=[
            (
                "self.w_q = nn.Linear(d_model, d_model, bias=False)\n"
                "        self.w_k = nn.Linear(d_model, d_model, bias=False)\n"
                "        self.w_v = nn.Linear(d_model, d_model, bias=False)",
                "self.w_q = nn.Linear(d_model, self.d_head, bias=False)\n"
                "        self.w_k = nn.Linear(d_model, self.d_head, bias=False)\n"
                "        self.w_v = nn.Linear(d_model, self.d_head, bias=False)",
            )
        ],
        source=PROJECTION_WIDTH_D_K,
    ),
    # ------------------------------------------------------------------ DecoderBlock
    _c(
        "block-norm2-of-d-ff-features",
        L11,
        "DecoderBlock",
        "builds the norm in front of the feed-forward with the feed-forward's hidden width, "
        "norm2 = RMSNorm(d_ff, eps), although it normalises the (batch, len, d_model) "
        "stream: its gain is (d_ff,), a shape error whenever d_ff != d_model.",
        (
            r"norm2.{0,100}(d_ff|\(\d+,\)|width|shape|d_model|features)",
            r"RMSNorm\(d_ff",
            r"(norm|gain).{0,60}(d_ff|hidden width).{0,40}(instead of|not) .{0,10}d_model",
        ),
        (
            r"norms? (are )?(swapped|exchanged)",
            r"(shared|one|same) norm",
            r"LayerNorm",
            r"(SwiGLU|feed.?forward).{0,40}(arguments?|d_ff, d_model).{0,20}swapped",
        ),
        edits=[("self.norm2 = RMSNorm(d_model, eps)", "self.norm2 = RMSNorm(d_ff, eps)")],
    ),
    _c(
        "block-sublayers-in-wrong-order",
        L11,
        "DecoderBlock",
        "runs the two sub-layers in the wrong order, the feed-forward first and the "
        "attention second: h = x + feed_forward(norm1(x)); return h + attn(norm2(h)). The "
        "modules and keys are right, but each token's feed-forward runs before it has "
        "read the other tokens.",
        (
            r"feed.?forward (sub.?layer )?(runs |is applied |comes |is )?(before|first|ahead of)",
            r"attention (sub.?layer )?(runs |is applied |comes |is )?(after|second|last)",
            r"sub.?layers?.{0,40}(order|swapped|exchanged)",
            r"(wrong|reversed|swapped|other) order",
        ),
        (
            r"norms? (are )?(swapped|exchanged)",
            r"post.?norm",
            r"residual.{0,40}(missing|from the (input|normali))",
            r"(shared|one|same) norm",
        ),
        edits=[
            (
                "h = x + self.attn(self.norm1(x))",
                "h = x + self.feed_forward(self.norm1(x))",
            ),
            (
                "return h + self.feed_forward(self.norm2(h))",
                "return h + self.attn(self.norm2(h))",
            ),
        ],
    ),
    # ------------------------------------------------------------------ GPT
    _c(
        "gpt-forward-under-no-grad",
        L11,
        "GPT",
        "decorates forward with @torch.no_grad() (copied from estimate_loss and "
        "bits_per_byte): the logits are right, but they carry no graph, so the loss cannot "
        "be backpropagated and the model can never be trained.",
        (
            r"no_grad",
            r"(no|without( a)?) (gradient|grad\b|graph)",
            r"requires_grad|grad_fn",
            r"(cannot|can't|could not|can never) (be )?(train|backprop)",
            r"detach",
        ),
        (
            r"(untied|not tied|tying)",
            r"embedding.{0,40}(init|std|standard deviation)",
            r"final norm.{0,30}(missing|skipped)",
            r"parameters?.{0,30}(not registered|plain list)",
        ),
        edits=[
            (
                "def forward(self, ids: torch.Tensor) -> torch.Tensor:",
                "@torch.no_grad()\n    def forward(self, ids: torch.Tensor) -> torch.Tensor:",
            )
        ],
        source=NO_GRAD_IN_TRAINING,
    ),
    _c(
        "gpt-final-norm-on-logits",
        L11,
        "GPT",
        "two mistakes in one: builds the final norm over the vocabulary, norm = "
        "RMSNorm(vocab_size, eps), and applies it to the logits, norm(x @ embedding.weight.T), "
        "instead of normalising the stream before the tied output: the blocks' output "
        "reaches the output layer unnormalised and every row of logits is rescaled to unit "
        "RMS (state-dict norm.weight of shape (vocab_size,)).",
        (
            r"norm.{0,80}(logits|after the (tied )?output|vocab)",
            r"RMSNorm\(vocab",
            r"norm\.weight.{0,80}(\(\d+,\)|vocab|shape)",
            r"(logits|output).{0,40}normali[sz]ed",
            r"norm.{0,40}before the (tied )?(output|logits|embedding matrix)",
        ),
        (
            r"norm.{0,30}twice",
            r"(per|every|each) (layer|block)",
            r"embeddings?.{0,40}(normali[sz]|before the first)",
            r"softmax|probabilit",
        ),
        edits=[
            ("self.norm = RMSNorm(d_model, eps)", "self.norm = RMSNorm(vocab_size, eps)"),
            (
                "return self.norm(x) @ self.embedding.weight.T",
                "return self.norm(x @ self.embedding.weight.T)",
            ),
        ],
    ),
    # ------------------------------------------------------------------ sample
    _c(
        "sample-temperature-inside-top-k",
        L11,
        "sample",
        "divides the logits by the temperature inside the top-k branch (an indentation "
        "slip): with top_k given it is right, but without top_k the temperature is never "
        "applied, so sample(logits, 0.5) draws from softmax(logits) as if T were 1 (and "
        "top-p then sees the untempered probabilities).",
        (
            r"temperature.{0,120}(only|not applied|ignored|no effect|never).{0,120}top.?k",
            r"top.?k.{0,120}temperature.{0,80}(only|inside|branch|when|if)",
            r"(without|no) top.?k.{0,120}temperature",
            r"indent",
        ),
        (
            r"temperature.{0,40}(twice|after|on (the )?probabilit)",
            r"multipl\w+ .{0,30}temperature",
            r"top.?p before",
            r"global (random|rng|generator)",
        ),
        edits=[
            (
                "logits = logits / temperature  # (batch, vocab)\n    if top_k is not None:\n",
                "if top_k is not None:\n        logits = logits / temperature  # (batch, vocab)\n",
            )
        ],
        source=TEMPERATURE_IGNORED_WITHOUT_TOP_K,
    ),
    _c(
        "sample-top-p-temperature-twice",
        L11,
        "sample",
        "divides by the temperature a second time inside the top-p filter, "
        "softmax(logits / temperature) on logits already divided: the nucleus is chosen on "
        "the distribution at temperature T squared while the draw uses T, so with T != 1 "
        "and top_p top-p keeps the wrong number of tokens (right for T = 1 or without "
        "top_p).",
        (
            r"temperature.{0,80}(twice|two times|again|a second time|squared|T\^?2|T²|T \* T)",
            r"(divid\w+|appl\w+) .{0,60}twice",
        ),
        (
            r"top.?p.{0,60}(before (the )?temperature|untempered)",
            r"temperature (is )?(applied )?after",
            r"(not|never) renormali",
            r"top.?p before top.?k",
        ),
        edits=[
            (
                "torch.softmax(logits, dim=-1).sort(dim=-1, descending=True)",
                "torch.softmax(logits / temperature, dim=-1).sort(dim=-1, descending=True)",
            )
        ],
        source=TEMPERATURE_TWICE,
    ),
    _c(
        "sample-top-p-roll-wraps-round",
        L11,
        "sample",
        "marks the sorted tokens whose cumulative probability passes top_p and shifts the "
        "marks one place right with torch.roll(remove, 1, dims=-1), with no guard: roll "
        "wraps the last token's mark (set whenever top_p < 1) round to the first place, so "
        "the most probable token is removed every time (and when it alone passes top_p "
        "every token is removed and multinomial raises).",
        (
            r"\broll",
            r"wrap\w*",
            r"most (probable|likely) token.{0,80}(removed|dropped|excluded|never|filtered|lost|"
            r"masked)",
            r"(removes?|drops?|excludes?|filters? out) .{0,30}(the )?most (probable|likely)",
        ),
        (
            r"crossing token.{0,40}(dropped|removed)",
            r"gather",
            r"ascending",
            r"top.?p before",
            r"cumsum.{0,30}(batch|dim=0)",
        ),
        edits=[
            (
                "before = sorted_probs.cumsum(dim=-1) - sorted_probs  "
                "# (batch, vocab): mass before each\n"
                "        remove_sorted = before >= top_p\n"
                "        remove_sorted[..., 0] = False  # always keep the most probable token",
                "remove_sorted = sorted_probs.cumsum(dim=-1) > top_p\n"
                "        remove_sorted = remove_sorted.roll(1, dims=-1)  # keep the crossing token",
            )
        ],
    ),
    # ------------------------------------------------------------------ quiz_temperature
    _c(
        "quiz-temperature-raises",
        L11,
        "quiz_temperature",
        "answers (d), that dividing the probabilities by 0.5 raises an error because they "
        "sum to 2: torch.multinomial takes non-negative weights that need not sum to 1 and "
        "renormalises them, so nothing is raised and nothing changes (b).",
        (
            r"(does not|doesn't|never|no|will not|won't) (raise|error|complain|fail)",
            r"(need not|needn't|don't need to|do not need to|does not need|doesn't need|"
            r"not required to) .{0,20}sum to (1|one)",
            r"renormali[sz]|normali[sz]es",
            r"(any|non.?negative) weights",
        ),
        (
            r"sharpen",
            r"flatten",
        ),
        edits=[('return "b"', 'return "d"')],
    ),
]
