"""Held-out wrong answers for lessons 07-08, blind round 15 (helper b15g, 2026-11-28):
mistakes new to the benchmark, written against the checks after round 17's fixes, to
measure how the diagnoses generalise to mistakes nobody here has seen. 21 cases over the
ten exercises; ten transpose a mistake reported in public (the URL read for this
benchmark), the others are the author's.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run, and each case was compared with the causes of the benchmark's earlier cases for these
lessons (ids and causes only) and replaced where it repeated one.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L07, L08 = "07_encoder", "08_decoder"

# The reports these cases transpose (each read with the search tool for this benchmark).
LAYERNORM_DETACHED_STATISTICS = "https://github.com/tinygrad/tinygrad/pull/4904"
LAYERNORM_TRAINING_STATISTICS_AT_INFERENCE = "https://github.com/Hsword/Hetu/pull/17"
POWER_ONE_HALF_PRECEDENCE = "https://github.com/davedelong/DDMathParser/issues/26"
LINEAR_WEIGHT_NOT_TRANSPOSED = "https://github.com/LazaroHurtado/micrograd-rs/pull/31"
DROPOUT_DEFAULT_01_VS_00 = "https://github.com/Dao-AILab/flash-attention/pull/105"
FAST_PATH_ZEROS_AT_PADS = "https://github.com/pytorch/pytorch/pull/100650"
SQUEEZE_DROPS_BATCH_OF_ONE = "https://github.com/NVIDIA/DeepLearningExamples/pull/765"
CAUSAL_MASK_IN_CROSS_ATTENTION = "https://github.com/NVIDIA/TransformerEngine/issues/629"
INPUTS_SCALED_BY_SQRT_D_MODEL = "https://github.com/unit8co/darts/issues/672"
NOT_IMPLEMENTED_LEFT_IN = "https://github.com/jupyter/nbgrader/issues/1154"

_c = held_out_authored("blind15g")

BLIND15G: list[Case] = [
    # ------------------------------------------------------------------ 07 LayerNorm
    _c(
        "ln-statistics-detached",
        L07,
        "LayerNorm",
        "detaches the mean and the variance (mean.detach(), variance.detach(), treating the "
        "statistics as constants as a BatchNorm's running statistics are): the values are "
        "right, but no gradient flows through the statistics, so the gradient with respect "
        "to x is wrong (it lacks the terms through the mean and the variance).",
        (
            r"detach",
            r"gradient.{0,80}(through|via|of) (the )?(mean|variance|statistics)",
            r"(mean|variance|statistics).{0,60}(no|without|cut|blocked|don't|do not|never)"
            r".{0,20}gradient",
            r"(statistics|mean|variance).{0,40}(treated as |as )constants?",
        ),
        (
            r"unbiased",
            r"eps.{0,30}(outside|after|added to the (std|standard))",
            r"(gain|bias|weight).{0,40}(not registered|not (an )?nn\.Parameter|buffer)",
            r"in.place",
        ),
        edits=[
            (
                "mean = x.mean(dim=-1, keepdim=True)",
                "mean = x.mean(dim=-1, keepdim=True).detach()",
            ),
            (
                "variance = x.var(dim=-1, keepdim=True, unbiased=False)",
                "variance = x.var(dim=-1, keepdim=True, unbiased=False).detach()",
            ),
        ],
        source=LAYERNORM_DETACHED_STATISTICS,
    ),
    _c(
        "ln-flattened-to-2d-never-reshaped",
        L07,
        "LayerNorm",
        "flattens the input to (-1, d_model) (one row per token) to take the statistics and "
        "returns that 2-D result without reshaping it back: a 2-D input is right, but a "
        "(batch, len, d_model) input comes back (batch * len, d_model) and a 1-D one "
        "(1, d_model).",
        (
            r"reshap|flatten|view\(",
            r"(leading|batch and (length|position)) (axes|dimensions).{0,60}"
            r"(lost|merged|flattened|not restored|collapsed)",
            r"returns? (a )?2-?D",
            r"(merged|flattened|collapsed).{0,40}(batch|leading|tokens)",
        ),
        (
            r"over (the )?(whole|positions|sentence|batch)",
            r"dim\s*=\s*(0|1|2)\b",
            r"unbiased",
            r"keepdim",
        ),
        edits=[
            (
                "mean = x.mean(dim=-1, keepdim=True)",
                "x = x.reshape(-1, x.shape[-1])  # one row per token\n"
                "        mean = x.mean(dim=-1, keepdim=True)",
            ),
        ],
    ),
    _c(
        "ln-power-one-half-precedence",
        L07,
        "LayerNorm",
        "takes the square root as (variance + eps) ** 1/2 without brackets around 1/2: "
        "** binds tighter than /, so it divides by (variance + eps) / 2 instead of by "
        "sqrt(variance + eps).",
        (
            r"\*\* ?1 ?/ ?2",
            r"precedence",
            r"(variance|var)\s*\+\s*(self\.)?eps\)?\s*/\s*2",
            r"half (of )?(the )?(variance|var)",
            r"\*\* ?\(1 ?/ ?2\)",
        ),
        (
            r"squar(es|ed)|\*\* ?2\b",
            r"unbiased",
            r"eps.{0,30}outside",
            r"rsqrt",
        ),
        edits=[
            (
                "torch.sqrt(variance + self.eps)",
                "(variance + self.eps) ** 1 / 2",
            ),
        ],
        source=POWER_ONE_HALF_PRECEDENCE,
    ),
    _c(
        "ln-statistics-kept-from-first-call",
        L07,
        "LayerNorm",
        "computes the mean and the variance on the first call only, keeps them in "
        "self.mean and self.variance (like BatchNorm's running statistics) and reuses them "
        "on every later call: the first call is right, a later call with another input is "
        "normalised with the first input's statistics (or fails when the shapes differ).",
        (
            r"(first|earlier|previous) (call|batch|input)",
            r"(stored|cached|kept|saved|reuse[sd]?).{0,60}(mean|variance|statistics)",
            r"(mean|variance|statistics).{0,60}(stored|cached|kept|saved|reused|stale)",
            r"running (mean|statistics|averages?)",
            r"second call",
        ),
        (
            r"(biased|unbiased) variance",
            r"over the batch axis|across the batch",
            r"over (the )?(whole|positions|sentence)",
        ),
        # (the variance's edit first: made second, its old text matched inside the first
        # edit's new line, and the code measured at the batch's commit was not this mistake)
        edits=[
            (
                "variance = x.var(dim=-1, keepdim=True, unbiased=False)",
                "variance = self.variance",
            ),
            (
                "mean = x.mean(dim=-1, keepdim=True)",
                'if not hasattr(self, "mean"):  # statistics of the first input, kept\n'
                "            self.mean = x.mean(dim=-1, keepdim=True)\n"
                "            self.variance = x.var(dim=-1, keepdim=True, unbiased=False)\n"
                "        mean = self.mean",
            ),
        ],
        source=LAYERNORM_TRAINING_STATISTICS_AT_INFERENCE,
    ),
    # ---------------------------------------------------- 07 PositionwiseFeedForward
    _c(
        "ffn-manual-matmul-untransposed-no-dropout",
        L07,
        "PositionwiseFeedForward",
        "two mistakes at once: writes the two layers by hand as x @ w.weight + w.bias, "
        "without transposing nn.Linear's (out_features, in_features) weight (a matmul "
        "shape error unless d_ff == d_model, and x W instead of x W^T when they are "
        "equal), and never applies the dropout module on the hidden activations.",
        (
            r"transpos",
            r"\.T\b|weight\.t\(\)",
            r"\(out_features, in_features\)|\(out, in\)",
            r"@ ?(self\.)?w_[12]\.weight",
        ),
        (
            r"(sizes|features|arguments).{0,30}(swapped|reversed|wrong order)",
            r"hidden width|d_ff.{0,30}ignored",
            r"w_2.{0,40}(reads|applied to) (the )?input",
        ),
        edits=[
            (
                "hidden = torch.relu(self.w_1(x))",
                "hidden = torch.relu(x @ self.w_1.weight + self.w_1.bias)",
            ),
            (
                "return self.w_2(self.dropout(hidden))",
                "return hidden @ self.w_2.weight + self.w_2.bias",
            ),
        ],
        source=LINEAR_WEIGHT_NOT_TRANSPOSED,
    ),
    _c(
        "ffn-linear-biases-added-twice",
        L07,
        "PositionwiseFeedForward",
        "copies the formula's + b_1 and + b_2 by hand after calling the nn.Linear layers "
        "(relu(w_1(x) + w_1.bias), w_2(...) + w_2.bias), although nn.Linear already adds "
        "its bias: both biases are added twice.",
        (
            r"bias(es)?.{0,60}(twice|two times|again|a second time|double)",
            r"(already|nn\.Linear) (adds|includes|has|applies) (its|the|a) bias",
            r"\+ (self\.)?w_[12]\.bias",
        ),
        (
            r"(without|no) bias(es)?\b|bias=False",
            r"residual (connection )?inside|adds? (the )?input back",
            r"relu.{0,30}(after|on the output)",
        ),
        edits=[
            (
                "hidden = torch.relu(self.w_1(x))",
                "hidden = torch.relu(self.w_1(x) + self.w_1.bias)",
            ),
            (
                "return self.w_2(self.dropout(hidden))",
                "return self.w_2(self.dropout(hidden)) + self.w_2.bias",
            ),
        ],
    ),
    _c(
        "ffn-dropout-twice",
        L07,
        "PositionwiseFeedForward",
        "applies the dropout twice: on the hidden activations, as it should, and once more "
        "on the output of w_2 (dropout(w_2(dropout(hidden)))); eval mode and dropout 0 "
        "hide it, training with dropout > 0 drops the block's output too.",
        (
            r"twice|two dropouts|second dropout|dropout.{0,30}(both|two places)",
            r"dropout.{0,60}(also|again|as well|too).{0,60}(output|w_2)",
            r"(output|w_2).{0,60}(also|again|as well|too).{0,30}dropout",
            r"(extra|additional) dropout",
        ),
        (
            r"dropout.{0,40}(instead of|rather than).{0,40}hidden",
            r"(no|missing|without) dropout.{0,30}hidden",
            r"keep.?prob",
            r"(rate|p)\b.{0,20}(hard.?coded|ignored)",
            r"dropout.{0,40}(on|to) the input",
        ),
        edits=[
            (
                "return self.w_2(self.dropout(hidden))",
                "return self.dropout(self.w_2(self.dropout(hidden)))",
            ),
        ],
    ),
    # ---------------------------------------------------------------- 07 EncoderLayer
    _c(
        "el-attention-dropout-and-heads-swapped",
        L07,
        "EncoderLayer",
        "builds the self-attention as MultiHeadAttention(d_model, dropout, num_heads): the "
        "dropout rate lands in the num_heads slot and num_heads in the dropout slot, so "
        "building the layer raises inside the attention's constructor (0.0 heads, or a "
        "dropout probability above 1).",
        (
            r"(num_heads|heads).{0,40}(and|,).{0,20}dropout.{0,40}"
            r"(swapped|exchanged|order|places|slots?)",
            r"dropout.{0,40}(and|,).{0,20}(num_heads|heads).{0,40}"
            r"(swapped|exchanged|order|places|slots?)",
            r"MultiHeadAttention\(d_model, dropout, num_heads",
            r"dropout.{0,40}(num_heads|heads) (slot|argument|position)",
            r"(num_heads|heads).{0,40}dropout (slot|argument|position)",
        ),
        (
            r"d_model.{0,20}(and|,) num_heads.{0,30}swapped|num_heads.{0,20}(and|,) "
            r"d_model.{0,30}swapped",
            r"d_ff.{0,40}(swapped|slot)",
        ),
        edits=[
            (
                "self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)",
                "self.self_attn = MultiHeadAttention(d_model, dropout, num_heads)",
            ),
        ],
    ),
    _c(
        "el-post-ln-extra-residual-around-norm",
        L07,
        "EncoderLayer",
        "post-LN: adds the input once more around each normalised sum, x = x + norm1(x + "
        "dropout(attn)) and x + norm2(x + dropout(ff)), mixing the residual and the post-LN "
        "norm: every residual is added twice and the layer's output is not normalised; "
        "pre-LN is right.",
        (
            r"(residual|input|x).{0,40}(added|adds?) (twice|two times|again|a second time)",
            r"(outside|around|after) (the )?(LayerNorm|norm\d?).{0,40}(residual|x \+|adds?)",
            r"x \+ (self\.)?norm\d?\(x \+",
            r"(second|extra|additional) residual",
            r"(output|result) (is |isn't |is not |not )?(no longer |never )?normali[sz]ed"
            r".{0,60}(residual|x \+|added)",
        ),
        (
            r"(computes|is|looks like|behaves like|written as) (the )?pre-?LN",
            r"dropout.{0,40}(residual sum|the sum)",
            r"norm.{0,30}(on|to) the (sub-?layer'?s? )?output",
            r"(no|missing|without) residual",
        ),
        edits=[
            (
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))",
                "x = x + self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))",
            ),
            (
                "return self.norm2(x + self.dropout(self.feed_forward(x)))",
                "return x + self.norm2(x + self.dropout(self.feed_forward(x)))",
            ),
        ],
    ),
    # --------------------------------------------------------------------- 07 Encoder
    _c(
        "enc-dropout-default-paper-rate",
        L07,
        "Encoder",
        "gives the dropout argument the paper's rate as its default (dropout: float = 0.1) "
        "instead of 0.0: an encoder built without a dropout argument drops 10% in training; "
        "eval mode, or any explicit dropout, hides it.",
        (
            r"default.{0,60}(dropout|0\.1)",
            r"dropout.{0,60}default",
            r"0\.1.{0,40}(instead of|not|rather than) 0(\.0)?\b",
        ),
        (
            r"dropout.{0,60}(not passed|never passed|not forwarded|left out)",
            r"keep.?prob",
            r"dropout.{0,30}(between (the )?layers|twice|again)",
        ),
        edits=[
            ("dropout: float = 0.0,", "dropout: float = 0.1,"),
        ],
        source=DROPOUT_DEFAULT_01_VS_00,
    ),
    _c(
        "enc-signature-norm-first-final-norm-swapped",
        L07,
        "Encoder",
        "declares __init__(..., dropout=0.0, final_norm=None, norm_first=False): the last "
        "two parameters in the other order than the contract's (..., dropout, norm_first, "
        "final_norm), so a caller passing them positionally gets them swapped (a pre-LN "
        "request builds post-LN layers with a final norm); keyword callers are right.",
        (
            r"(signature|parameters?|arguments?).{0,60}(order|swapped|positions?)",
            r"(norm_first|final_norm).{0,40}(and|,).{0,20}(norm_first|final_norm).{0,60}"
            r"(swapped|exchanged|order|wrong places)",
            r"positional(ly)?",
        ),
        (
            r"(default|None).{0,40}inverted",
            r"final norm.{0,30}always",
            r"layers.{0,40}(ignore|without) norm_first",
        ),
        edits=[
            (
                "norm_first: bool = False,\n        final_norm: bool | None = None,",
                "final_norm: bool | None = None,\n        norm_first: bool = False,",
            ),
        ],
    ),
    _c(
        "enc-pad-outputs-zeroed",
        L07,
        "Encoder",
        "zeroes the outputs at the padded positions after the last layer "
        "(x.masked_fill(~mask[:, 0, 0, :, None], 0.0), as nn.TransformerEncoder's fast "
        "path returns them): the real positions are right, the pads' outputs are not the "
        "layers' (and with a final norm they become its bias); without padding or a mask "
        "it is right.",
        (
            r"(pad|padded|<pad>) positions?.{0,80}(zero|set to 0|overwritten|masked_fill)",
            r"zero(es|s|ed)? .{0,40}(the )?(pad|padded|<pad>)",
            r"outputs? (at|of) (the )?(pad|padded|<pad>)",
            r"masked_fill.{0,40}output",
        ),
        (
            r"(real|non-pad) (tokens|positions) (attend|see|read).{0,30}pad",
            r"mask.{0,30}(not passed|first layer only|never passed)",
            r"mask.{0,20}inverted",
        ),
        edits=[
            (
                "return x if self.norm is None else self.norm(x)",
                "if mask is not None:  # zero the <pad> positions, as PyTorch's fast path does\n"
                "            x = x.masked_fill(~mask[:, 0, 0, :, None], 0.0)\n"
                "        return x if self.norm is None else self.norm(x)",
            ),
        ],
        source=FAST_PATH_ZEROS_AT_PADS,
    ),
    # ---------------------------------------------------------------- 07 quizzes
    _c(
        "quiz-ln-axis-raise-left-above",
        L07,
        "quiz_layer_norm_axis",
        "writes the right return below the cell's raise NotImplementedError() instead of "
        "deleting it: the function raises NotImplementedError before it reaches return 'b'.",
        (
            r"NotImplementedError",
            r"raise.{0,40}(left|still|delete|remove)",
        ),
        (
            r"over the batch|BatchNorm",
            r"whole sentence",
            r"positions of (each|one) sentence",
        ),
        code=(
            'def quiz_layer_norm_axis() -> str:\n    raise NotImplementedError()\n    return "b"\n'
        ),
        source=NOT_IMPLEMENTED_LEFT_IN,
    ),
    _c(
        "quiz-final-norm-words-not-letter",
        L07,
        "quiz_final_norm",
        "returns the answer in words, 'pre-LN', instead of the letter of the option that "
        "says it, 'c'.",
        (
            r"letter",
            r"pre-LN.{0,80}(not (a|one of)|instead of)",
            r"one of .{0,10}a.{0,6}b.{0,6}c.{0,8}d",
        ),
        (
            r"reverses? the two layouts",
            r"both (stacks|encoders) need",
            r"neither",
        ),
        code='def quiz_final_norm() -> str:\n    return "pre-LN"\n',
    ),
    # ---------------------------------------------------------------- 08 DecoderLayer
    _c(
        "dl-output-squeezed",
        L08,
        "DecoderLayer",
        "ends both branches with .squeeze() (to remove a stray size-1 axis), which also "
        "drops the batch axis for a batch of one and the length axis for a one-token target "
        "(the first step of decoding): other shapes are right.",
        (
            r"squeeze",
            r"(batch|length|len_tgt|target) (axis|dimension).{0,40}"
            r"(dropped|removed|lost|squeezed|missing)",
            r"(batch|target) of (one|1|length 1).{0,80}(shape|axis|dimension|2-?D)",
            r"size-?1 (axis|axes|dimension)",
        ),
        (
            r"returns? (a )?(tuple|pair)",
            r"memory.{0,30}(transposed|sequence.first)",
            r"cut to (the )?target",
        ),
        edits=[
            (
                "return x + self.dropout(self.feed_forward(self.norm3(x)))",
                "return (x + self.dropout(self.feed_forward(self.norm3(x)))).squeeze()",
            ),
            (
                "return self.norm3(x + self.dropout(self.feed_forward(x)))",
                "return self.norm3(x + self.dropout(self.feed_forward(x))).squeeze()",
            ),
        ],
        source=SQUEEZE_DROPS_BATCH_OF_ONE,
    ),
    _c(
        "dl-norm-first-default-true",
        L08,
        "DecoderLayer",
        "gives norm_first the default True (pre-LN, as most models since GPT-2) instead of "
        "False, the paper's post-LN: a layer built without norm_first is pre-LN; explicit "
        "norm_first=True or False is right.",
        (
            r"default.{0,60}(norm_first|pre-?LN|True)",
            r"norm_first.{0,60}default",
            r"(without|no) (a |an )?norm_first.{0,60}(pre-?LN|True)",
        ),
        (
            r"(branches|layouts?) (are )?(swapped|inverted)|not self\.norm_first",
            r"(always|only) (computes? )?pre-?LN|never reads norm_first|ignores norm_first",
        ),
        edits=[
            ("norm_first: bool = False,", "norm_first: bool = True,"),
        ],
    ),
    _c(
        "dl-look-ahead-added-to-cross-mask",
        L08,
        "DecoderLayer",
        "combines the source padding mask with the target mask for the cross-attention "
        "(src_mask = src_mask & tgt_mask, 'the decoder must not see the future'): with "
        "len_src == len_tgt the look-ahead and the target padding also block source "
        "positions; with different lengths the & raises a broadcast error in the learner's "
        "forward; without one of the two masks it is right.",
        (
            r"(look.?ahead|causal|future|tgt_mask|target mask).{0,80}cross.?attention",
            r"cross.?attention.{0,80}(look.?ahead|causal|future|tgt_mask|target mask)",
            r"src_mask & tgt_mask|combin.{0,40}(src_mask|source).{0,40}(tgt_mask|target)",
        ),
        (
            r"self.?attention.{0,40}(src_mask|source (padding )?mask)",
            r"masks?.{0,20}swapped",
            r"(no|without) src_mask|src_mask.{0,20}(missing|not passed)",
        ),
        edits=[
            (
                "if self.norm_first:",
                "if src_mask is not None and tgt_mask is not None:  # no peeking in the "
                "cross-attention either\n"
                "            src_mask = src_mask & tgt_mask\n"
                "        if self.norm_first:",
            ),
        ],
        source=CAUSAL_MASK_IN_CROSS_ATTENTION,
    ),
    # --------------------------------------------------------------------- 08 Decoder
    _c(
        "dec-returns-last-position-only",
        L08,
        "Decoder",
        "returns only the last position, x[:, -1] (batch, d_model), the one a generation "
        "loop reads to predict the next token, instead of every position (batch, len_tgt, "
        "d_model).",
        (
            r"last position",
            r"x\[:, ?-1\]",
            r"(only|just) (the )?(last|final|newest) (position|token)",
            r"len_tgt (axis|dimension).{0,30}(dropped|lost|missing)",
        ),
        (
            r"(first|one) sentence",
            r"\[0\]",
            r"(final )?norm.{0,30}(every|each) layer",
        ),
        edits=[
            (
                "return x if self.norm is None else self.norm(x)",
                "x = x if self.norm is None else self.norm(x)\n"
                "        return x[:, -1]  # the newest position predicts the next token",
            ),
        ],
    ),
    _c(
        "dec-input-scaled-by-sqrt-d-model",
        L08,
        "Decoder",
        "multiplies its input by sqrt(d_model) before the first layer (the embedding "
        "scaling of the paper's section 3.4, which belongs to the embedding, not to the "
        "decoder stack): every layer reads a stream sqrt(d_model) times too large.",
        (
            r"sqrt\(d_model\)|√d_model|d_model ?\*\* ?0\.5",
            r"scal(es|ed|ing).{0,40}(input|x\b|stream)",
            r"(input|x\b).{0,40}(multiplied|scaled)",
        ),
        (
            r"norm.{0,30}(applied )?(to the input|before the (first )?layer|before the loop)",
            r"(final )?norm.{0,30}(every|each) layer",
            r"memory.{0,30}normali[sz]ed",
        ),
        edits=[
            (
                "for layer in self.layers:",
                "x = x * x.size(-1) ** 0.5  # scale the inputs, as the paper does\n"
                "        for layer in self.layers:",
            ),
        ],
        source=INPUTS_SCALED_BY_SQRT_D_MODEL,
    ),
    # ---------------------------------------------------------------- 08 quizzes
    _c(
        "quiz-cross-norm-unquoted-letter",
        L08,
        "quiz_cross_attention_norm",
        "writes the letter without quotes, return b, so the function raises NameError "
        "(name 'b' is not defined) instead of returning the string 'b'.",
        (
            r"NameError",
            r"quot(es|ation marks|ed)",
            r"name 'b' is not defined",
        ),
        (
            r"norm2\(memory\)",
            r"roles? (are )?reversed",
            r"memory as the quer",
        ),
        code="def quiz_cross_attention_norm() -> str:\n    return b\n",
    ),
    _c(
        "quiz-decoder-masks-option-index",
        L08,
        "quiz_decoder_masks",
        "returns the option's index counted from 0, the int 1, instead of its letter, the "
        "string 'b'.",
        (
            r"(int|integer|number|index).{0,60}(letter|string|'b'|\"b\")",
            r"letter.{0,60}(not|instead of).{0,30}(int|number|index|\b1\b)",
            r"returned 1\b",
        ),
        (
            r"look.?ahead mask.{0,40}(belongs|is for|wrong)",
            r"target padding.{0,40}(belongs|is for|wrong)",
            r"no mask",
        ),
        code="def quiz_decoder_masks() -> str:\n    return 1  # option b, counting from 0\n",
    ),
]
