"""Held-out wrong answers for lessons 07-08, blind round 11, second batch (helper s11n,
2026-11-27), written after round 11's first fixes of these lessons.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run. Eleven of the 24 transpose a mistake reported in a public issue thread (the URL read
for this benchmark) to the course's exercise; the others are the author's. Kinds favoured:
mistakes that only show on some inputs (pre-LN only, train mode with dropout, padding
present, len_src != len_tgt, final_norm=None), raw exceptions in the learner's code (a
tuple where a tensor is expected), two mistakes at once (a copy-pasted cross-attention),
the statistics taken over the wrong axes, residuals taken from the wrong tensor, arguments
passed in another API's order, and modules shared or left unregistered.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L07, L08 = "07_encoder", "08_decoder"

# The reports these cases transpose (each read with the search tool for this benchmark).
LN_EPS_ON_STD = "https://github.com/hkproj/pytorch-transformer/pull/31"
LN_UNBIASED = "https://github.com/harvardnlp/annotated-transformer/pull/119"
LN_SQUARED = "https://github.com/131250208/TPlinker-joint-extraction/issues/37"
FFN_DROPOUT_AFTER_W2 = "https://github.com/tensorflow/swift-models/issues/104"
FFN_RELU_ON_OUTPUT = "https://github.com/bentrevett/pytorch-seq2seq/issues/157"
RESIDUAL_FROM_LAYER_INPUT = "https://github.com/strutive07/transformer-tensorflow2.0/issues/14"
PRELN_RESIDUAL_NORMALISED = "https://github.com/pytorch/pytorch/issues/61165"
LAYER_LIST_TIMES_N = "https://github.com/zalandoresearch/pytorch-vq-vae/issues/2"
LAYERS_READ_EMBEDDING = "https://github.com/Atcold/NYU-DLSP20/issues/270"
CROSS_GETS_TGT_MASK = "https://github.com/Kamichanw/SeekDeeper/issues/3"
QUERIES_FROM_ENCODER = "https://github.com/rexrex9/nlp_torchtext/pull/2"

_c = held_out_authored("blind11n")

_LN_OTHER = (
    r"unbiased|bessel|divid\w* by \(?(d|n|d_model) ?- ?1",
    r"eps.{0,40}(outside|added to the (standard deviation|std))|std \+ eps",
    r"(gain|weight).{0,30}(missing|not (applied|multiplied))",
    r"bias.{0,30}(missing|not added)",
)


def _others(*drop: int) -> tuple[str, ...]:
    return tuple(p for i, p in enumerate(_LN_OTHER) if i not in drop)


BLIND11N: list[Case] = [
    # ------------------------------------------------------------------ 07 LayerNorm
    _c(
        "ln-eps-added-to-std",
        L07,
        "LayerNorm",
        "divides by the biased standard deviation plus eps, (x - mean) / (std + eps), instead "
        "of by sqrt(variance + eps): eps sits outside the square root, which only shows "
        "where a token's variance is small (an all-equal or near-constant vector).",
        (
            r"eps.{0,60}(outside|inside|under|within) (the )?(square root|sqrt)",
            r"(square root|sqrt).{0,40}(of )?\(?(the )?variance ?\+ ?eps",
            r"(std|standard deviation) ?\+ ?eps",
            r"eps.{0,40}added to the (std|standard deviation)",
        ),
        _others(1),
        edits=[
            (
                "variance = x.var(dim=-1, keepdim=True, unbiased=False)",
                "std = x.std(dim=-1, keepdim=True, unbiased=False)",
            ),
            ("torch.sqrt(variance + self.eps)", "(std + self.eps)"),
        ],
        source=LN_EPS_ON_STD,
    ),
    _c(
        "ln-unbiased-variance",
        L07,
        "LayerNorm",
        "takes the variance with x.var's default, the unbiased one (divided by d_model - 1), "
        "instead of the biased one (divided by d_model); eps is inside the root as it should be.",
        (
            r"unbiased",
            r"bessel",
            r"\(?(d|n|d_model) ?- ?1\)?",
            r"correction",
            r"biased variance.{0,60}(not|instead)",
        ),
        _others(0),
        edits=[
            (
                "x.var(dim=-1, keepdim=True, unbiased=False)",
                "x.var(dim=-1, keepdim=True)",
            )
        ],
        source=LN_UNBIASED,
    ),
    _c(
        "ln-variance-squared",
        L07,
        "LayerNorm",
        "raises (variance + eps) to the power 2 where it should take the square root (** 2 "
        "for ** 0.5): the result is divided by the variance squared.",
        (
            r"square root|sqrt|\*\* ?0\.5",
            r"squared|\*\* ?2|power",
        ),
        _others(),
        edits=[("torch.sqrt(variance + self.eps)", "(variance + self.eps) ** 2")],
        source=LN_SQUARED,
    ),
    _c(
        "ln-stats-over-positions",
        L07,
        "LayerNorm",
        "takes the mean and the variance over the last two axes, dim=(-2, -1) (every position "
        "and feature of a sentence together, the image-style LayerNorm), instead of over each "
        "token's features alone: a token's result depends on the other tokens of its sentence "
        "and on the padding, and a 1-D input raises.",
        (
            r"(over|across|includ\w*) (the |all )?(positions|whole sentence|sequence|"
            r"other tokens|tokens of)",
            r"dim=\(-2, ?-1\)|dim(ension)? -2|axis -2|last two (axes|dim)",
            r"(other tokens|other positions|padding|neighbou?rs).{0,60}(change|affect|depend)",
            r"depends? on.{0,40}(other (tokens|positions)|padding|sentence)",
        ),
        (*_others(), r"over the batch|batch ?norm"),
        edits=[
            ("x.mean(dim=-1, keepdim=True)", "x.mean(dim=(-2, -1), keepdim=True)"),
            (
                "x.var(dim=-1, keepdim=True, unbiased=False)",
                "x.var(dim=(-2, -1), keepdim=True, unbiased=False)",
            ),
        ],
    ),
    # ------------------------------------------------------------------ 07 quizzes
    _c(
        "quiz-ln-axis-whole-sentence",
        L07,
        "quiz_layer_norm_axis",
        "answers (d), the whole sentence (all positions and features together), carrying over "
        "the image picture of LayerNorm ('across channels and spatial dims').",
        (
            r"whole sentence|all (its )?positions|(across|over) (the )?positions",
            r"image|channels|spatial",
            r"(each|every|one) token.{0,40}(on its own|alone|its own)",
        ),
        (),
        code='def quiz_layer_norm_axis() -> str:\n    return "d"\n',
    ),
    _c(
        "quiz-final-norm-post-ln",
        L07,
        "quiz_final_norm",
        "answers (a), a post-LN encoder, reversing the two layouts: it is the pre-LN stream "
        "that is never normalised, a post-LN layer already ends with a LayerNorm.",
        (
            r"post-?LN.{0,80}(already|ends|own|last)",
            r"(ends|end) with a (LayerNorm|norm)",
            r"pre-?LN.{0,80}(never normali[sz]ed|residual sum|grows|no LayerNorm follows)",
        ),
        (),
        code='def quiz_final_norm() -> str:\n    return "a"\n',
    ),
    # ------------------------------------------------------------------ 07 feed-forward
    _c(
        "ffn-dropout-after-w2",
        L07,
        "PositionwiseFeedForward",
        "applies the dropout to the block's output, dropout(w_2(relu(w_1(x)))), instead of to "
        "the d_ff-wide hidden activations between the ReLU and w_2: only train mode with "
        "dropout > 0 shows it.",
        (
            r"dropout.{0,80}(after|on) (the )?(w_2|second linear|output|block'?s output)",
            r"dropout.{0,60}(hidden|d_ff|between (the )?relu and w_2).{0,40}(not|instead)",
            r"(w_2|second linear).{0,40}before (the )?dropout",
            r"dropout.{0,40}(wrong place|misplaced|in the wrong)",
        ),
        (
            r"relu.{0,30}(missing|not applied|after w_2)",
            r"dropout.{0,30}(missing|not applied|never applied)",
            r"w_1.{0,30}w_2.{0,30}swapped",
        ),
        edits=[
            (
                "return self.w_2(self.dropout(hidden))",
                "return self.dropout(self.w_2(hidden))",
            )
        ],
        source=FFN_DROPOUT_AFTER_W2,
    ),
    _c(
        "ffn-relu-on-output",
        L07,
        "PositionwiseFeedForward",
        "applies the ReLU after w_2 instead of after w_1, relu(w_2(dropout(w_1(x)))): the "
        "hidden layer is linear and the block's output is never negative.",
        (
            r"relu.{0,60}(after|on) (the )?(w_2|second|output)",
            r"relu.{0,60}(not|instead).{0,30}(after )?w_1",
            r"(never|no|not) negative|non-?negative",
            r"relu.{0,40}(wrong place|misplaced)",
        ),
        (
            r"dropout.{0,40}(after|on) (the )?(w_2|output)|dropout.{0,30}(missing|misplaced)",
            r"w_1.{0,30}w_2.{0,30}swapped",
        ),
        edits=[
            ("hidden = torch.relu(self.w_1(x))", "hidden = self.w_1(x)"),
            (
                "return self.w_2(self.dropout(hidden))",
                "return torch.relu(self.w_2(self.dropout(hidden)))",
            ),
        ],
        source=FFN_RELU_ON_OUTPUT,
    ),
    # ------------------------------------------------------------------ 07 EncoderLayer
    _c(
        "el-ffn-residual-from-layer-input",
        L07,
        "EncoderLayer",
        "post-LN: feeds the feed-forward block the first sub-layer's normalised output but adds "
        "the layer's original input x as its residual, norm2(x + ffn(norm1(...))), instead of "
        "norm1's output; pre-LN is right.",
        (
            r"residual.{0,80}(original|layer'?s input|input x|before norm1|"
            r"first sub-?layer'?s input)",
            r"(adds?|added).{0,60}(original|layer'?s input).{0,60}instead",
            r"(second|feed-?forward) (sub-?layer'?s )?residual.{0,80}(norm1|first sub-?layer)",
            r"norm1'?s output.{0,60}(residual|added|not)",
        ),
        (
            r"mask.{0,30}(not passed|ignored|missing)",
            r"dropout.{0,30}(missing|on the residual)",
            r"norm_first.{0,20}(ignored|swapped|inverted)|pre-LN (order|layout)",
            r"norm[12].{0,20}swapped",
        ),
        edits=[
            (
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))",
                "h = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))",
            ),
            (
                "self.norm2(x + self.dropout(self.feed_forward(x)))",
                "self.norm2(x + self.dropout(self.feed_forward(h)))",
            ),
        ],
        source=RESIDUAL_FROM_LAYER_INPUT,
    ),
    _c(
        "el-preln-residual-normalised",
        L07,
        "EncoderLayer",
        "pre-LN: overwrites x with its normalised form before each sub-layer (x = norm1(x), "
        "then x + attn(x)), so both residuals carry the normalised stream instead of the raw "
        "x; post-LN is right.",
        (
            r"residual.{0,80}(normali[sz]ed|norm[12]\(x\)|after (the )?(layer)?norm)",
            r"(normali[sz]ed|norm[12]\(x\)).{0,80}(residual|added|instead of (the )?(raw )?x)",
            r"(raw|un-?normali[sz]ed) (x|input|stream)",
        ),
        (
            r"final (layer)?norm",
            r"mask.{0,30}(not passed|ignored|missing)",
            r"post-LN (order|layout) in pre-LN|norm_first.{0,20}(ignored|swapped|inverted)",
        ),
        edits=[
            ("h = self.norm1(x)", "x = h = self.norm1(x)"),
            (
                "return x + self.dropout(self.feed_forward(self.norm2(x)))",
                "x = self.norm2(x)\n            return x + self.dropout(self.feed_forward(x))",
            ),
        ],
        source=PRELN_RESIDUAL_NORMALISED,
    ),
    _c(
        "el-mask-not-passed",
        L07,
        "EncoderLayer",
        "calls the self-attention without the mask, self_attn(x, x, x), in both layouts: the "
        "real tokens attend to the padding, which shows only when the batch has padding.",
        (
            r"mask.{0,60}(not passed|ignored|missing|never|dropped|not (used|applied|given))",
            r"(attend|attends|attended|read|reads).{0,40}(pad|padding|padded)",
            r"pad\w*.{0,60}(change|changes|changed|affect|leak|visible)",
            r"without (the |a )?mask",
        ),
        (
            r"look-?ahead",
            r"residual.{0,40}(missing|wrong|normali)",
            r"dropout.{0,30}(missing|misplaced)",
        ),
        edits=[
            ("self.self_attn(h, h, h, mask)", "self.self_attn(h, h, h)"),
            ("self.self_attn(x, x, x, mask)", "self.self_attn(x, x, x)"),
        ],
    ),
    _c(
        "el-dropout-on-residual-sum",
        L07,
        "EncoderLayer",
        "post-LN: applies dropout to the residual sum, norm(dropout(x + sublayer(x))), instead "
        "of to the sub-layer's output before the addition: only train mode with dropout > 0 "
        "shows it (at dropout=1 the output is norm(0)).",
        (
            r"dropout.{0,80}(residual|the sum|whole|x \+|stream)",
            r"(residual|stream|sum).{0,60}dropped",
            r"dropout.{0,60}(after|on) the (addition|sum)",
            r"dropout.{0,60}before (the )?(addition|adding|it is added)",
        ),
        (
            r"dropout.{0,30}(missing|not applied|never applied)",
            r"mask.{0,30}(not passed|ignored|missing)",
            r"dropout.{0,40}(twice|too many)",
        ),
        edits=[
            (
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))",
                "x = self.norm1(self.dropout(x + self.self_attn(x, x, x, mask)[0]))",
            ),
            (
                "self.norm2(x + self.dropout(self.feed_forward(x)))",
                "self.norm2(self.dropout(x + self.feed_forward(x)))",
            ),
        ],
    ),
    # ------------------------------------------------------------------ 07 Encoder
    _c(
        "enc-one-layer-times-n",
        L07,
        "Encoder",
        "builds the stack as [EncoderLayer(...)] * num_layers inside nn.ModuleList: one layer "
        "object, referenced num_layers times, so the stack has one layer's weights.",
        (
            r"same (layer )?object|one (layer )?object",
            r"shar(e|ed|es|ing)",
            r"\* ?num_layers|\] ?\* ?",
            r"independent|own weights|separate weights",
            r"deepcopy|new layer (each|per)",
        ),
        (
            r"final (layer)?norm.{0,40}(missing|extra|should)",
            r"plain (python )?list|not registered",
            r"mask.{0,30}(not passed|missing)",
        ),
        edits=[
            (
                "[EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first) for _ in "
                "range(num_layers)]",
                "[EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first)] * num_layers",
            )
        ],
        source=LAYER_LIST_TIMES_N,
    ),
    _c(
        "enc-every-layer-reads-input",
        L07,
        "Encoder",
        "runs every layer on the stack's input x (out = layer(x, mask)) instead of on the "
        "previous layer's output, so only the last layer's result on x is returned.",
        (
            r"(each|every) layer.{0,60}(reads?|gets?|receives?|on|applied to).{0,40}"
            r"(same |stack'?s |original )?(input|x)\b",
            r"previous layer'?s output.{0,40}(not|never|instead)",
            r"only the last layer",
            r"(not|never) chain|feed.{0,30}(output|result).{0,30}next layer",
        ),
        (
            r"same (layer )?object|shar(e|ed|ing) (one|the same) layer",
            r"final (layer)?norm.{0,40}(missing|extra)",
        ),
        edits=[
            ("x = layer(x, mask)", "out = layer(x, mask)"),
            (
                "return x if self.norm is None else self.norm(x)",
                "return out if self.norm is None else self.norm(out)",
            ),
        ],
        source=LAYERS_READ_EMBEDDING,
    ),
    _c(
        "enc-final-norm-none-means-false",
        L07,
        "Encoder",
        "reads final_norm=None as False (self.norm only when final_norm is truthy), so a pre-LN "
        "encoder built with the default final_norm has no final LayerNorm; final_norm=True and "
        "False, and post-LN, are right.",
        (
            r"final_norm=None.{0,100}(norm_first|pre-?LN|same as)",
            r"(pre-?LN|norm_first=True).{0,100}(final|norm).{0,60}(missing|None|no |needs)",
            r"None means.{0,40}(norm_first|same)",
        ),
        (
            r"same (layer )?object|shar(e|ed|ing) (one|the same) layer",
            r"mask.{0,30}(not passed|missing)",
            r"plain (python )?list|not registered",
        ),
        edits=[
            (
                "use_final_norm = norm_first if final_norm is None else final_norm",
                "use_final_norm = bool(final_norm)",
            )
        ],
    ),
    # ------------------------------------------------------------------ 08 DecoderLayer
    _c(
        "dl-cross-gets-tgt-mask",
        L08,
        "DecoderLayer",
        "gives the cross-attention the target mask (tgt_mask) instead of the source padding "
        "mask (src_mask), in both layouts: a shape error when len_src != len_tgt, wrong "
        "values when they are equal.",
        (
            r"cross-?attention.{0,100}(tgt_mask|target mask|look-?ahead)",
            r"(tgt_mask|look-?ahead|target mask).{0,100}cross-?attention",
            r"masks?.{0,40}(swapped|mixed up|wrong attention)",
            r"src_mask.{0,60}(not (used|passed)|ignored|never)",
        ),
        (
            r"quer(y|ies).{0,40}(from|are) (the )?memory",
            r"keys? and values?.{0,40}(from )?(x|the decoder)\b",
            r"residual.{0,40}(wrong|normali)",
        ),
        edits=[
            (
                "self.cross_attn(h, memory, memory, src_mask)",
                "self.cross_attn(h, memory, memory, tgt_mask)",
            ),
            (
                "self.cross_attn(x, memory, memory, src_mask)",
                "self.cross_attn(x, memory, memory, tgt_mask)",
            ),
        ],
        source=CROSS_GETS_TGT_MASK,
    ),
    _c(
        "dl-queries-from-memory",
        L08,
        "DecoderLayer",
        "calls the cross-attention as cross_attn(memory, memory, x, src_mask): queries and keys "
        "from the encoder output, values from the decoder, the illustrated guide's reversed "
        "roles; a shape error when len_src != len_tgt, wrong values when they are equal.",
        (
            r"quer(y|ies).{0,60}(from|is|are|=) (the )?(memory|encoder)",
            r"memory.{0,40}(as|for) (the )?quer",
            r"values?.{0,40}(from|is|are) (the )?(decoder|x)\b",
            r"quer(y|ies).{0,40}(from )?(the decoder|x)\b.{0,60}keys? and values?.{0,40}memory",
            r"(roles|arguments).{0,40}(swapped|reversed)",
        ),
        (
            r"cross-?attention.{0,60}(tgt_mask|look-?ahead)",
            r"norm2\(memory\)|memory.{0,30}normali[sz]ed",
        ),
        edits=[
            (
                "self.cross_attn(h, memory, memory, src_mask)",
                "self.cross_attn(memory, memory, h, src_mask)",
            ),
            (
                "self.cross_attn(x, memory, memory, src_mask)",
                "self.cross_attn(memory, memory, x, src_mask)",
            ),
        ],
        source=QUERIES_FROM_ENCODER,
    ),
    _c(
        "dl-preln-memory-normalised",
        L08,
        "DecoderLayer",
        "pre-LN: normalises the memory with norm2 as well, cross_attn(h, norm2(memory), "
        "norm2(memory), src_mask), instead of reading it as it comes; post-LN is right.",
        (
            r"norm2\(memory\)",
            r"memory.{0,60}(normali[sz]ed|through norm2|by norm2)",
            r"normali[sz]\w* (the )?memory",
            r"memory.{0,40}as it comes|(raw|un-?normali[sz]ed) memory",
        ),
        (
            r"quer(y|ies).{0,40}(from|are) (the )?memory",
            r"residual.{0,40}normali[sz]ed",
            r"cross-?attention.{0,60}(tgt_mask|look-?ahead)",
        ),
        edits=[
            (
                "self.cross_attn(h, memory, memory, src_mask)",
                "self.cross_attn(h, self.norm2(memory), self.norm2(memory), src_mask)",
            )
        ],
    ),
    _c(
        "dl-cross-copy-of-self",
        L08,
        "DecoderLayer",
        "two mistakes from one copy-paste: the cross-attention line is the self-attention's, "
        "cross_attn(x, x, x, tgt_mask), so memory is never read (keys and values from the "
        "decoder) and the mask is the target's.",
        (
            r"memory.{0,60}(never|not|unused|ignored|isn't|is not)",
            r"(output|result).{0,60}(does not|doesn't|never) (depend|change).{0,40}memory",
            r"keys? and values?.{0,40}(from|are) (the )?(decoder|x)\b",
            r"cross-?attention.{0,60}(x, x, x|self-?attention)",
        ),
        (
            r"quer(y|ies).{0,40}(from|are) (the )?memory",
            r"norm2\(memory\)",
        ),
        edits=[
            (
                "self.cross_attn(h, memory, memory, src_mask)",
                "self.cross_attn(h, h, h, tgt_mask)",
            ),
            (
                "self.cross_attn(x, memory, memory, src_mask)",
                "self.cross_attn(x, x, x, tgt_mask)",
            ),
        ],
    ),
    _c(
        "dl-self-attn-tuple-not-indexed",
        L08,
        "DecoderLayer",
        "post-LN: forgets the [0] after the self-attention call, so the (output, weights) pair "
        "goes into dropout and raises TypeError in the learner's code; pre-LN is right.",
        (
            r"\[0\]",
            r"tuple|pair",
            r"\(output, weights\)|returns two",
        ),
        (
            r"mask.{0,30}(not passed|wrong|swapped)",
            r"quer(y|ies).{0,40}(from|are) (the )?memory",
        ),
        edits=[
            (
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))",
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)))",
            )
        ],
    ),
    # ------------------------------------------------------------------ 08 quizzes
    _c(
        "quiz-cross-norm-memory-too",
        L08,
        "quiz_cross_attention_norm",
        "answers (a), norm2 on the memory as well as on x, though the memory arrives "
        "normalised by the encoder and only the decoder's stream is normalised.",
        (
            r"memory.{0,80}(already|not|un-?)\s?normali[sz]ed",
            r"norm2\(memory\)",
            r"encoder'?s? (final )?(LayerNorm|norm)",
            r"only (the decoder'?s|x)",
        ),
        (),
        code='def quiz_cross_attention_norm() -> str:\n    return "a"\n',
    ),
    _c(
        "quiz-decoder-masks-target",
        L08,
        "quiz_decoder_masks",
        "answers (c), the look-ahead and target padding masks, which belong to the decoder's "
        "self-attention; the cross-attention gets the source padding mask.",
        (
            r"(look-?ahead|target padding).{0,80}self-?attention",
            r"source padding|src_mask",
            r"(whole|entire) source.{0,60}known",
        ),
        (),
        code='def quiz_decoder_masks() -> str:\n    return "c"\n',
    ),
    # ------------------------------------------------------------------ 08 Decoder
    _c(
        "dec-masks-in-torch-order",
        L08,
        "Decoder",
        "passes the masks to each layer in nn.TransformerDecoderLayer's order, layer(x, memory, "
        "tgt_mask, src_mask), instead of DecoderLayer.forward's (x, memory, src_mask, "
        "tgt_mask): the self-attention gets the source mask and the cross-attention the target "
        "mask.",
        (
            r"(src_mask|tgt_mask).{0,80}(swapped|order|wrong (place|position|argument))",
            r"masks?.{0,60}(swapped|exchanged|order|other way)",
            r"\(x, memory, src_mask, tgt_mask\)",
            r"cross-?attention.{0,80}(tgt_mask|target mask|look-?ahead)",
        ),
        (
            r"same (layer )?object|shar(e|ed|ing) (one|the same) layer",
            r"final (layer)?norm.{0,40}(missing|extra)",
            r"memory.{0,40}(changed|updated|overwritten)",
        ),
        edits=[
            (
                "x = layer(x, memory, src_mask, tgt_mask)",
                "x = layer(x, memory, tgt_mask, src_mask)",
            )
        ],
    ),
    _c(
        "dec-plain-list",
        L08,
        "Decoder",
        "keeps the layers in a plain Python list instead of an nn.ModuleList: the layers' "
        "parameters are not registered (not in parameters() nor the state dict).",
        (
            r"ModuleList",
            r"plain (python )?list|python list",
            r"not registered|unregistered",
            r"(no|missing) (layer )?parameters|state.?dict.{0,60}(missing|no |lacks|keys)",
        ),
        (
            r"same (layer )?object|shar(e|ed|ing) (one|the same) layer",
            r"final (layer)?norm.{0,40}(missing|extra)",
        ),
        code=(
            "class Decoder(nn.Module):\n"
            "    def __init__(self, num_layers, d_model, num_heads, d_ff, dropout=0.0,\n"
            "                 norm_first=False, final_norm=None):\n"
            "        super().__init__()\n"
            "        self.layers = [\n"
            "            DecoderLayer(d_model, num_heads, d_ff, dropout, norm_first)\n"
            "            for _ in range(num_layers)\n"
            "        ]\n"
            "        use_final_norm = norm_first if final_norm is None else final_norm\n"
            "        self.norm = LayerNorm(d_model) if use_final_norm else None\n"
            "\n"
            "    def forward(self, x, memory, src_mask=None, tgt_mask=None):\n"
            "        for layer in self.layers:\n"
            "            x = layer(x, memory, src_mask, tgt_mask)\n"
            "        return x if self.norm is None else self.norm(x)\n"
        ),
    ),
]
