"""Held-out wrong answers for lessons 07-08, blind round 17 (helper b17g, 2026-11-28):
mistakes new to the benchmark, written against the checks after round 19's fixes, to
measure how the diagnoses generalise to mistakes nobody here has seen. All the author's
(no public report was read in the time given).

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause and judging criteria were written before any run, and
each case was compared with the causes of the benchmark's earlier cases for these lessons
(ids and causes only).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L07, L08 = "07_encoder", "08_decoder"

_c = held_out_authored("blind17g")

_LN_RET = "return self.weight * (x - mean) / torch.sqrt(variance + self.eps) + self.bias"
_FF_RET = "return self.w_2(self.dropout(hidden))  # (batch, len, d_model)"
_EL_POST2 = "return self.norm2(x + self.dropout(self.feed_forward(x)))  # (batch, len, d_model)"
_EL_PRE2 = "return x + self.dropout(self.feed_forward(self.norm2(x)))"

BLIND17G: list[Case] = [
    # ------------------------------------------------------------------ 07 LayerNorm
    _c(
        "ln-mean-without-keepdim",
        L07,
        "LayerNorm",
        "takes the mean without keepdim=True (x.mean(dim=-1)), so x - mean broadcasts the "
        "(batch, len) means against the feature axis: a shape error, or wrong values when len "
        "equals d_model.",
        (r"keepdim", r"mean.{0,60}(shape|axis).{0,40}(\(batch, len\)|broadcast)"),
        (r"unbiased", r"eps.{0,30}(outside|inside)", r"sqrt"),
        edits=(
            (
                "mean = x.mean(dim=-1, keepdim=True)  # (..., 1): one mean per token",
                "mean = x.mean(dim=-1)",
            ),
        ),
    ),
    _c(
        "ln-multiplies-by-std",
        L07,
        "LayerNorm",
        "multiplies the centred input by sqrt(variance + eps) instead of dividing by it "
        "(a '* ' for '/ '), so the output grows with the token's spread instead of having "
        "unit variance.",
        (
            r"multipl(y|ies|ied).{0,60}(standard deviation|sqrt|std)",
            r"instead of divid",
            r"(\*|times) (torch\.)?sqrt",
        ),
        (r"unbiased", r"eps.{0,30}outside", r"keepdim", r"gain.{0,20}bias.{0,20}swapped"),
        edits=(
            (
                _LN_RET,
                "return self.weight * (x - mean) * torch.sqrt(variance + self.eps) + self.bias",
            ),
        ),
    ),
    _c(
        "ln-stats-over-batch-axis",
        L07,
        "LayerNorm",
        "takes the mean and the variance over dim=0, the batch axis (BatchNorm's statistics), "
        "instead of over the last axis, the features of each token.",
        (r"dim=0", r"batch (axis|dimension)", r"over the batch", r"batch ?norm"),
        (r"unbiased", r"eps.{0,30}outside", r"dim=1\b", r"dim=\(?-2"),
        edits=(
            (
                "mean = x.mean(dim=-1, keepdim=True)  # (..., 1): one mean per token",
                "mean = x.mean(dim=0, keepdim=True)",
            ),
            (
                "variance = x.var(dim=-1, keepdim=True, unbiased=False)  # (..., 1), biased",
                "variance = x.var(dim=0, keepdim=True, unbiased=False)",
            ),
        ),
    ),
    _c(
        "ln-mean-absolute-deviation",
        L07,
        "LayerNorm",
        "measures the spread as the mean absolute deviation ((x - mean).abs().mean(-1)) and "
        "divides by its square root, instead of using the variance (mean of squared "
        "deviations).",
        (r"abs(olute)?", r"(not|instead of) (the )?(squared|square of)", r"mean absolute"),
        (r"unbiased", r"eps.{0,30}outside", r"keepdim"),
        edits=(
            (
                "variance = x.var(dim=-1, keepdim=True, unbiased=False)  # (..., 1), biased",
                "variance = (x - mean).abs().mean(dim=-1, keepdim=True)",
            ),
        ),
    ),
    # ------------------------------------------------------------------ 07 feed-forward
    _c(
        "ffn-dropout-only-in-eval",
        L07,
        "PositionwiseFeedForward",
        "inverts the training test, applying the dropout only when not self.training: in "
        "training mode the hidden activations are never dropped (and in eval nn.Dropout is a "
        "no-op anyway), so the block has no dropout at all.",
        (
            r"(no|never|without|not).{0,40}dropout.{0,60}training",
            r"training mode.{0,80}(no|never|without|not).{0,20}drop",
            r"self\.training.{0,40}(invert|revers|wrong way|not)",
        ),
        (r"after w_2", r"on the (block's )?output", r"relu.{0,30}(missing|after)"),
        edits=(
            (
                _FF_RET,
                "if not self.training:\n"
                "            hidden = self.dropout(hidden)\n"
                "        return self.w_2(hidden)",
            ),
        ),
    ),
    _c(
        "ffn-relu-capped-at-one",
        L07,
        "PositionwiseFeedForward",
        "writes the ReLU as hidden.clamp(0, 1), capping the activations at 1 (a hard sigmoid) "
        "instead of clamp(min=0): every hidden unit above 1 is cut to 1.",
        (r"(cap|clamp|clip|cut|saturat).{0,40}\b1\b", r"max=1", r"upper (bound|limit)"),
        (r"dropout.{0,30}(after|on the output)", r"gelu", r"relu.{0,30}missing"),
        edits=(
            (
                "hidden = torch.relu(self.w_1(x))  # (batch, len, d_ff)",
                "hidden = self.w_1(x).clamp(0, 1)",
            ),
        ),
    ),
    _c(
        "ffn-w2-is-w1-transposed",
        L07,
        "PositionwiseFeedForward",
        "builds no second layer of its own: w_2 reuses w_1's weight transposed "
        "(F.linear(hidden, self.w_1.weight.t())), so the block has one weight matrix, tied, "
        "and no second bias.",
        (
            r"w_2.{0,60}(missing|never built|not (a|an) (nn\.)?Linear|no (own|separate))",
            r"(tied|shares?|reuses?).{0,40}w_1",
            r"one weight matrix",
        ),
        (r"dropout.{0,30}after", r"relu.{0,30}missing", r"\(out, in\)"),
        edits=(
            ("        self.w_2 = nn.Linear(d_ff, d_model)\n", ""),
            (
                _FF_RET,
                "return nn.functional.linear(self.dropout(hidden), self.w_1.weight.t())",
            ),
        ),
    ),
    # ------------------------------------------------------------------ 07 EncoderLayer
    _c(
        "el-post-ln-ffn-without-residual",
        L07,
        "EncoderLayer",
        "post-LN: the feed-forward sub-layer has no residual connection, norm2(dropout("
        "feed_forward(x))) instead of norm2(x + dropout(feed_forward(x))).",
        (
            r"(no|missing|without|forg\w+)( the)? residual.{0,80}feed.?forward",
            r"feed.?forward.{0,80}(no|missing|without)( the)? residual",
            r"x \+ .{0,20}feed_forward",
        ),
        (
            r"norm_first.{0,30}(ignored|inverted)",
            r"mask.{0,30}not passed",
            r"attention.{0,40}no residual",
        ),
        edits=((_EL_POST2, "return self.norm2(self.dropout(self.feed_forward(x)))"),),
    ),
    _c(
        "el-post-ln-norm1-reused",
        L07,
        "EncoderLayer",
        "post-LN: normalises the feed-forward sub-layer's sum with norm1 again instead of "
        "norm2, so norm2 is never used and the two sub-layers share one gain and bias.",
        (r"norm1.{0,60}(twice|again|both|instead of norm2)", r"norm2.{0,40}(never|not) used"),
        (r"pre-LN.{0,40}norm1", r"residual.{0,30}missing", r"norm_first.{0,30}ignored"),
        edits=((_EL_POST2, "return self.norm1(x + self.dropout(self.feed_forward(x)))"),),
    ),
    _c(
        "el-functional-dropout-always-on",
        L07,
        "EncoderLayer",
        "applies the residual dropout with nn.functional.dropout(..., self.dropout.p) whose "
        "training flag defaults to True, so in eval mode the layer still drops activations "
        "(pre-LN and post-LN alike).",
        (
            r"eval(uation)? mode.{0,80}(still|random|drop|differ)",
            r"training=(True|self\.training)",
            r"functional.{0,30}dropout",
            r"(not|isn't|is not) deterministic",
        ),
        (
            r"dropout.{0,30}residual sum",
            r"dropout.{0,30}(sub-?layer's )?input",
            r"mask.{0,30}not passed",
        ),
        edits=(
            (
                "x = x + self.dropout(self.self_attn(h, h, h, mask)[0])\n"
                "            return x + self.dropout(self.feed_forward(self.norm2(x)))",
                "x = x + nn.functional.dropout(self.self_attn(h, h, h, mask)[0], self.dropout.p)\n"
                "            return x + nn.functional.dropout(\n"
                "                self.feed_forward(self.norm2(x)), self.dropout.p\n"
                "            )",
            ),
            (
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))",
                "x = self.norm1(x + nn.functional.dropout(self.self_attn(x, x, x, mask)[0], "
                "self.dropout.p))",
            ),
            (
                _EL_POST2,
                "return self.norm2(x + nn.functional.dropout(self.feed_forward(x), "
                "self.dropout.p))",
            ),
        ),
    ),
    _c(
        "el-pre-ln-output-normalised",
        L07,
        "EncoderLayer",
        "pre-LN: normalises the layer's output as well, returning norm2(x + dropout("
        "feed_forward(norm2(x)))): a post-LN norm left on the pre-LN stream, so the residual "
        "stream never passes through unnormalised.",
        (
            r"pre-LN.{0,80}(normalis|norm2).{0,40}(output|sum|stream)",
            r"(output|result|sum).{0,40}(normalised|norm2).{0,40}pre-LN",
            r"norm2.{0,40}(twice|also|again)",
        ),
        (
            r"norm_first.{0,30}(ignored|inverted)",
            r"post-LN.{0,30}(wrong|mistake)",
            r"mask.{0,30}not passed",
        ),
        edits=(
            (_EL_PRE2, "return self.norm2(x + self.dropout(self.feed_forward(self.norm2(x))))"),
        ),
    ),
    # ------------------------------------------------------------------ 07 Encoder
    _c(
        "enc-detaches-between-layers",
        L07,
        "Encoder",
        "detaches each layer's output in the loop (x = layer(x, mask).detach()), so no "
        "gradient flows back past the last layer: the earlier layers' parameters get no "
        "gradient although the values are right.",
        (
            r"detach",
            r"(no|none|zero) gradient.{0,80}(layers?|earlier|first)",
            r"gradient.{0,40}(cut|stopped|blocked)",
        ),
        (r"no_grad", r"plain (python )?list", r"shared? weights"),
        edits=(("x = layer(x, mask)  # (batch, len, d_model)", "x = layer(x, mask).detach()"),),
    ),
    _c(
        "enc-num-layers-d-model-swapped",
        L07,
        "Encoder",
        "declares __init__(self, d_model, num_layers, ...), the first two parameters in the "
        "other order, so Encoder(2, 16, ...) builds 16 layers of width 2 (or fails on the "
        "heads).",
        (
            r"num_layers.{0,40}d_model.{0,40}(swapped|order|other way)",
            r"d_model.{0,40}num_layers.{0,40}(swapped|order|other way)",
            r"(parameter|argument)s?.{0,30}(order|swapped)",
        ),
        (
            r"final.?norm.{0,30}(always|never)",
            r"not chained",
            r"norm_first.{0,30}(ignored|not passed)",
        ),
        edits=(
            (
                "        num_layers: int,\n        d_model: int,\n        num_heads: int,\n"
                "        d_ff: int,\n        dropout: float = 0.0,\n        norm_first: bool = False,\n"
                "        final_norm: bool | None = None,",
                "        d_model: int,\n        num_layers: int,\n        num_heads: int,\n"
                "        d_ff: int,\n        dropout: float = 0.0,\n        norm_first: bool = False,\n"
                "        final_norm: bool | None = None,",
            ),
        ),
    ),
    # ------------------------------------------------------------------ 07 quizzes
    _c(
        "quiz-ln-axis-list",
        L07,
        "quiz_layer_norm_axis",
        "returns the right letter inside a list, ['b'], instead of the string 'b'.",
        (r"\blist\b", r"\['b'\]", r"not a (str|string)", r"a string.{0,30}(letter|'b')"),
        (r"batch", r"whole sentence", r"positions"),
        edits=(('return "b"', 'return ["b"]'),),
    ),
    # ------------------------------------------------------------------ 08 DecoderLayer
    _c(
        "dl-one-attention-module-for-both",
        L08,
        "DecoderLayer",
        "assigns one attention module to both roles (self.cross_attn = self.self_attn), so the "
        "masked self-attention and the cross-attention share their projections W^Q, W^K, "
        "W^V, W^O.",
        (
            r"(self_attn|self-attention).{0,60}(cross_attn|cross-attention).{0,40}(same|one|shared?)",
            r"(same|one|shared?) (attention )?(module|object|weights|projections)",
            r"cross_attn.{0,30}(is|=) self_attn",
        ),
        (r"cross.{0,30}tgt_mask", r"memory.{0,30}(as|for) (the )?quer", r"residual.{0,30}missing"),
        edits=(
            (
                "self.cross_attn = MultiHeadAttention(d_model, num_heads, dropout)",
                "self.cross_attn = self.self_attn",
            ),
        ),
    ),
    _c(
        "dl-post-ln-ffn-reads-memory",
        L08,
        "DecoderLayer",
        "post-LN: feeds the feed-forward block the encoder output (feed_forward(memory)) "
        "instead of the stream x, a slip from the cross-attention line above; it shows when "
        "len_src != len_tgt as a shape error, otherwise as wrong values.",
        (
            r"feed.?forward.{0,60}memory",
            r"memory.{0,60}feed.?forward",
            r"feed_forward\(memory\)",
        ),
        (
            r"cross.{0,30}tgt_mask",
            r"memory.{0,30}(as|for) (the )?quer",
            r"norm_first.{0,30}ignored",
        ),
        edits=(
            (
                "return self.norm3(x + self.dropout(self.feed_forward(x)))",
                "return self.norm3(x + self.dropout(self.feed_forward(memory)))",
            ),
        ),
    ),
    _c(
        "dl-pre-ln-cross-unmasked-undropped",
        L08,
        "DecoderLayer",
        "pre-LN: two mistakes at once: the cross-attention gets no mask (src_mask left out) "
        "and its residual dropout is missing: x + cross_attn(h, memory, memory)[0].",
        (
            r"(no|without|missing).{0,30}src_mask.{0,80}(dropout)",
            r"dropout.{0,80}src_mask",
            r"(two|both|several) (mistakes|problems)",
        ),
        (r"tgt_mask.{0,30}cross", r"memory.{0,30}normalis", r"norm_first.{0,30}ignored"),
        edits=(
            (
                "x = x + self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])",
                "x = x + self.cross_attn(h, memory, memory)[0]",
            ),
        ),
    ),
    _c(
        "dl-norm3-built-with-d-ff",
        L08,
        "DecoderLayer",
        "builds norm3 as LayerNorm(d_ff), the feed-forward's inner width, instead of "
        "LayerNorm(d_model): its gain and bias have d_ff elements and the final norm raises "
        "a broadcast error whenever d_ff != d_model.",
        (r"norm3.{0,60}d_ff", r"LayerNorm\(d_ff\)", r"norm3.{0,60}(width|size|shape)"),
        (r"feed.?forward.{0,30}(width|d_ff).{0,20}(wrong|d_model)", r"norm2.{0,20}twice"),
        edits=(("self.norm3 = LayerNorm(d_model)", "self.norm3 = LayerNorm(d_ff)"),),
    ),
    # ------------------------------------------------------------------ 08 Decoder
    _c(
        "dec-final-norm-width-d-ff",
        L08,
        "Decoder",
        "builds the final norm as LayerNorm(d_ff) instead of LayerNorm(d_model), so a stack "
        "with a final norm fails (or mis-scales) on the (batch, len_tgt, d_model) output.",
        (r"(final )?norm.{0,60}d_ff", r"LayerNorm\(d_ff\)", r"final norm.{0,60}(width|size|shape)"),
        (r"final.?norm.{0,30}(always|never|inverted)", r"not chained", r"masks.{0,20}swapped"),
        edits=(
            (
                "self.norm = LayerNorm(d_model) if use_final_norm else None",
                "self.norm = LayerNorm(d_ff) if use_final_norm else None",
            ),
        ),
    ),
    _c(
        "dec-src-mask-dropped-after-first-layer",
        L08,
        "Decoder",
        "sets src_mask = None after the first layer (meant to free memory), so from layers[1] "
        "on the cross-attention attends to the source padding.",
        (
            r"src_mask.{0,80}(first layer|layers\[0\]) only",
            r"(later|other|second|following) layers?.{0,60}(no|without).{0,20}(src_mask|source (padding )?mask)",
            r"src_mask.{0,40}(dropped|None).{0,40}(after|later)",
        ),
        (r"masks.{0,20}swapped", r"tgt_mask.{0,30}(missing|left out)", r"not chained"),
        edits=(
            (
                "x = layer(x, memory, src_mask, tgt_mask)  # (batch, len_tgt, d_model)",
                "x = layer(x, memory, src_mask, tgt_mask)\n            src_mask = None",
            ),
        ),
    ),
    # ------------------------------------------------------------------ 08 quizzes
    _c(
        "quiz-cross-norm-printed",
        L08,
        "quiz_cross_attention_norm",
        "prints the letter (print('b')) instead of returning it, so the function returns None.",
        (r"print", r"returns? None", r"(no|nothing) (is )?returned"),
        (r"memory.{0,30}(normalis|norm2)", r"roles reversed"),
        code='def quiz_cross_attention_norm() -> str:\n    print("b")\n',
    ),
]
