"""Held-out wrong answers for lessons 07-08, blind round 12, second batch (helper s12n,
2026-11-27): mistakes new to the benchmark, written after round 12's first fixes of these
lessons.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run, and each case was compared with the causes of the benchmark's earlier cases for these
lessons (ids and causes only) and replaced where it repeated one. Eight of the 21 transpose
a mistake reported in a public issue thread or pull request (the URL read for this
benchmark) to the course's exercise; the others are the author's.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L07, L08 = "07_encoder", "08_decoder"

# The reports these cases transpose (each read with the search tool for this benchmark).
LN_SECOND_MOMENT_CANCELS = "https://github.com/tracel-ai/burn/issues/5607"
LN_PARAMETERS_AS_BUFFERS = "https://github.com/imbue-ai/slot_attention/issues/8"
LN_EPS_IN_COUNT = "https://github.com/xlite-dev/LeetCUDA/issues/309"
MHA_SEQUENCE_FIRST = "https://github.com/karttikeya/minREV/issues/4"
MASK_TRUTH_VALUE = "https://github.com/OpenNMT/OpenNMT-py/pull/120"
MEMORY_DETACHED = "https://github.com/Peterande/D-FINE/issues/121"
CAUSAL_MASK_FLIPPED = "https://github.com/pytorch/examples/issues/649"
MEMORY_PER_LAYER = "https://github.com/Kyubyong/transformer/issues/163"

_c = held_out_authored("blind12n")

_LN_OTHER_CAUSES = (
    r"unbiased|n ?- ?1\b|d_model ?- ?1|Bessel",
    r"(std|standard deviation) ?\+ ?eps|eps (is )?(added )?outside",
    r"over the (batch|positions|whole sentence)|dim ?= ?\(?-2",
    r"1e-?0?6|1e-?12|eps argument (is )?ignored",
)

BLIND12N: list[Case] = [
    # ------------------------------------------------------------------ 07 LayerNorm
    _c(
        "ln-variance-from-second-moment",
        L07,
        "LayerNorm",
        "computes the variance as the mean of the squares minus the squared mean, "
        "E[x^2] - E[x]^2, which is the biased variance on paper but cancels catastrophically "
        "in float32 on tokens whose mean is large next to their spread: their variance comes "
        "out 0, negative (NaN) or far off; ordinary tokens and float64 hide it.",
        (
            r"cancel",
            r"precision",
            r"E\[x\^?2\] ?- ?E\[x\]\^?2|mean of (the )?squares? minus",
            r"numerical(ly)? (unstable|instability|error)",
            r"two-pass|subtract(ing)? the mean (first|before squaring)",
        ),
        (*_LN_OTHER_CAUSES, r"uncentred|about zero|without subtracting the mean"),
        edits=[
            (
                "x.var(dim=-1, keepdim=True, unbiased=False)",
                "(x * x).mean(dim=-1, keepdim=True) - mean * mean",
            )
        ],
        source=LN_SECOND_MOMENT_CANCELS,
    ),
    _c(
        "ln-parameters-as-buffers",
        L07,
        "LayerNorm",
        "registers weight and bias with register_buffer instead of as nn.Parameter: the "
        "state-dict keys and the outputs are right, but the module has no parameters, so "
        "no gradient reaches them and an optimiser never trains the gain and the bias.",
        (
            r"buffer",
            r"not (an? )?(nn\.)?Parameter",
            r"parameters\(\).{0,40}(empty|no )|no (learn|train)able parameters",
            r"not (learned|trained|trainable)|requires_grad",
        ),
        (r"plain tensor", r"gamma|beta", r"init(ialis|ializ)ed (with|to) (ones|zeros|random)"),
        edits=[
            (
                "self.weight = nn.Parameter(torch.ones(d_model))",
                'self.register_buffer("weight", torch.ones(d_model))',
            ),
            (
                "self.bias = nn.Parameter(torch.zeros(d_model))",
                'self.register_buffer("bias", torch.zeros(d_model))',
            ),
        ],
        source=LN_PARAMETERS_AS_BUFFERS,
    ),
    _c(
        "ln-eps-in-feature-count",
        L07,
        "LayerNorm",
        "adds eps to the feature count that divides the sum of squared deviations "
        "(sum / (d_model + eps)) instead of to the variance under the square root: ordinary "
        "tokens are right to about 1e-7, but a constant token divides 0 by 0 (NaN) and "
        "small-variance tokens are not damped.",
        (
            r"eps.{0,60}(count|number of features|divisor|shape\[-1\])",
            r"(add|put) eps to the variance",
            r"eps.{0,40}(missing|not added|never added)",
            r"no eps (under|inside)",
        ),
        (*_LN_OTHER_CAUSES, r"\*\* ?2\b|squared instead"),
        edits=[
            (
                "x.var(dim=-1, keepdim=True, unbiased=False)",
                "((x - mean) ** 2).sum(dim=-1, keepdim=True) / (x.shape[-1] + self.eps)",
            ),
            ("torch.sqrt(variance + self.eps)", "torch.sqrt(variance)"),
        ],
        source=LN_EPS_IN_COUNT,
    ),
    _c(
        "ln-variance-clamped-at-eps",
        L07,
        "LayerNorm",
        "clamps the variance at eps (sqrt(variance.clamp(min=eps)), max(variance, eps)) "
        "instead of adding eps to it: the same where the variance is far above eps, "
        "different on near-constant tokens, whose variance is replaced by eps.",
        (
            r"clamp",
            r"max\(var(iance)?, ?eps\)",
            r"(floor|lower bound|minimum).{0,40}(variance|eps)",
            r"instead of add(ing)? eps|eps.{0,40}(added|add) to the variance",
        ),
        _LN_OTHER_CAUSES,
        edits=[("torch.sqrt(variance + self.eps)", "torch.sqrt(variance.clamp(min=self.eps))")],
    ),
    # ------------------------------------------------------------------ 07 quiz
    _c(
        "quiz-ln-axis-batch",
        L07,
        "quiz_layer_norm_axis",
        "answers (a), each feature over the batch (BatchNorm's axis), instead of (b), the "
        "features of each token: a token's result would depend on the other sentences.",
        (r"batch ?norm", r"(over|across) (the |a )?batch", r"other sentences|across sentences"),
        (r"positions of (each|one) sentence|instance", r"whole sentence|all positions and"),
        edits=[('return "b"', 'return "a"')],
    ),
    # ------------------------------------------------------------------ 07 FFN
    _c(
        "ffn-w2-reads-input",
        L07,
        "PositionwiseFeedForward",
        "computes hidden = relu(w_1(x)) but gives w_2 the input x (w_2(dropout(x))), so w_2 "
        "receives d_model features where it expects d_ff: a matmul shape error inside the "
        "learner's forward unless d_ff == d_model (and then w_1 and the ReLU are skipped).",
        (
            r"w_2.{0,60}(input|\bx\b).{0,40}(instead|not).{0,40}hidden",
            r"hidden.{0,60}(unused|never used|not (passed|used|fed))",
            r"w_1.{0,40}(skipped|unused|never used)",
            r"w_2.{0,40}(reads|receives|gets|applied to) (the )?(input|\bx\b)",
        ),
        (
            r"(in|out).{0,20}(order )?swapped|Linear\(d_ff, d_model\)",
            r"hidden width|d_ff.{0,30}ignored|2048",
            r"no relu|relu (is )?missing",
        ),
        edits=[("return self.w_2(self.dropout(hidden))", "return self.w_2(self.dropout(x))")],
    ),
    _c(
        "ffn-torch-max-reduces-batch",
        L07,
        "PositionwiseFeedForward",
        "writes the ReLU as torch.max(w_1(x), 0)[0]: with an int second argument torch.max "
        "is a reduction over dim 0, so it takes the maximum over the batch axis (which the "
        "output loses) and zeroes no negative value, instead of max(h, 0) element-wise.",
        (
            r"torch\.max.{0,80}(dim|reduc|axis)",
            r"reduc(es|ing|tion|ed).{0,40}(batch|first axis|dim(ension)? 0|axis 0)",
            r"max(imum)? over the batch|batch axis.{0,40}(lost|missing|reduced|gone|dropped)",
        ),
        (r"GELU", r"clamp\(max", r"flatten|reshaped? back", r"relu (is )?(applied )?after w_2"),
        edits=[("torch.relu(self.w_1(x))", "torch.max(self.w_1(x), 0)[0]")],
    ),
    _c(
        "ffn-dropout-rate-stored-as-float",
        L07,
        "PositionwiseFeedForward",
        "stores the dropout rate itself as self.dropout (self.dropout = dropout) instead of "
        "an nn.Dropout module, so self.dropout(hidden) raises TypeError ('float' object is "
        "not callable) in the learner's forward, in every mode.",
        (
            r"not callable",
            r"self\.dropout = nn\.Dropout|(build|make|create|store) (an? )?nn\.Dropout",
            r"(rate|number|float).{0,40}instead of (an? )?(nn\.)?Dropout",
            r"self\.dropout (is|holds) (a |the )?(float|rate|number)",
        ),
        (r"functional", r"(after|on the output of) w_2", r"Dropout\(0\.1\)|hard-?coded", r"bias"),
        edits=[("self.dropout = nn.Dropout(dropout)", "self.dropout = dropout")],
    ),
    # ------------------------------------------------------------------ 07 EncoderLayer
    _c(
        "el-torch-mha-sequence-first",
        L07,
        "EncoderLayer",
        "builds the self-attention as PyTorch's nn.MultiheadAttention(d_model, num_heads, "
        "dropout) instead of lesson 05's MultiHeadAttention: with its default batch_first="
        "False it reads (batch, len, d_model) as (len, batch, d_model) and attends across the "
        "batch, its fourth positional argument is key_padding_mask (True = ignore), and its "
        "weights are in_proj_weight / out_proj instead of w_q, w_k, w_v, w_o.",
        (
            r"nn\.MultiheadAttention",
            r"batch_first",
            r"(sequence|seq)-first|\(len, batch",
            r"lesson 05'?s? MultiHeadAttention|MultiHeadAttention from lesson 05",
            r"in_proj",
        ),
        (
            r"mask (is )?(not passed|missing|never passed)",
            r"~mask|invert",
            r"\[0\] (is )?missing",
            r"norm_first (is )?ignored|always (pre|post)-?LN",
        ),
        edits=[
            (
                "self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)",
                "self.self_attn = nn.MultiheadAttention(d_model, num_heads, dropout)",
            )
        ],
        source=MHA_SEQUENCE_FIRST,
    ),
    _c(
        "el-pre-ln-queries-unnormalised",
        L07,
        "EncoderLayer",
        "pre-LN: gives the self-attention the raw x as its queries and norm1(x) as its keys "
        "and values, self_attn(x, h, h, mask), instead of norm1(x) for all three; post-LN is "
        "right.",
        (
            r"quer(y|ies).{0,60}(raw|un-?normali[sz]ed|not normali[sz]ed|x instead)",
            r"self_attn\(x, h, h",
            r"quer(y|ies).{0,40}(should|must|need).{0,20}norm1",
        ),
        (
            r"keys and values.{0,40}(raw|un-?normali[sz]ed)",
            r"residual.{0,60}normali[sz]ed",
            r"mask (is )?(not passed|missing)",
            r"norm_first (is )?(ignored|inverted)|always (pre|post)-?LN",
        ),
        edits=[("self.self_attn(h, h, h, mask)", "self.self_attn(x, h, h, mask)")],
    ),
    _c(
        "el-pre-ln-returns-before-ffn",
        L07,
        "EncoderLayer",
        "pre-LN: a `return x` written before the feed-forward line returns right after the "
        "attention sub-layer, so the pre-LN layer has no feed-forward sub-layer (the line "
        "after it never runs); post-LN is right.",
        (
            r"feed.?forward.{0,60}(skipped|missing|never (runs|run|applied|called)|not applied|"
            r"unused|not used)",
            r"(without|no) (the )?feed.?forward",
            r"norm2.{0,40}(unused|never used)",
        ),
        (
            r"feed.?forward.{0,40}(reads|input).{0,40}norm1",
            r"residual.{0,40}(missing|normali[sz]ed)",
            r"mask (is )?(not passed|missing)",
            r"always post-?LN|norm_first (is )?(ignored|inverted)",
        ),
        edits=[
            (
                "return x + self.dropout(self.feed_forward(self.norm2(x)))",
                "return x\n            x = x + self.dropout(self.feed_forward(self.norm2(x)))",
            )
        ],
    ),
    # ------------------------------------------------------------------ 07 Encoder
    _c(
        "enc-if-mask-truthiness",
        L07,
        "Encoder",
        "chooses between layer(x, mask) and layer(x) with `if mask` (the tensor's truth "
        "value) instead of `mask is not None`: any mask of more than one element raises "
        "RuntimeError (Boolean value of Tensor ... is ambiguous) in the learner's forward; "
        "without a mask it is right.",
        (r"if mask\b|bool\(mask\)|truth value", r"is not None"),
        (
            r"masks? (is |are )?(not passed|never passed|missing)",
            r"first layer only",
            r"squeez",
            r"not chained|every layer.{0,30}(stack'?s? )?input",
        ),
        edits=[("x = layer(x, mask)", "x = layer(x, mask) if mask else layer(x)")],
        source=MASK_TRUTH_VALUE,
    ),
    _c(
        "enc-returns-output-and-mask",
        L07,
        "Encoder",
        "returns the pair (output, mask), so that stacks could be chained, instead of the "
        "output tensor (batch, len, d_model) alone.",
        (r"\(output, mask\)|output and (the )?mask", r"returns? (a )?(tuple|pair)"),
        (
            r"attention weights",
            r"every layer'?s output|stacked|hidden states",
            r"final (layer ?)?norm (is )?(missing|always)",
        ),
        edits=[
            (
                "return x if self.norm is None else self.norm(x)",
                "return (x if self.norm is None else self.norm(x)), mask",
            )
        ],
    ),
    # ------------------------------------------------------------------ 07 quiz
    _c(
        "quiz-final-norm-both",
        L07,
        "quiz_final_norm",
        "answers (d), both stacks need a final norm as in the paper's Figure 1, although a "
        "post-LN layer already ends with a LayerNorm: only the pre-LN stack's last residual "
        "sum is left unnormalised.",
        (
            r"post-?LN.{0,80}(already|ends with|last).{0,40}(LayerNorm|norm)",
            r"(already|each) (ends|end) with a (LayerNorm|norm)",
            r"figure 1.{0,80}(no|does not|doesn't|without)",
        ),
        (r"slows?( training)? down|neither", r"grows? without bound"),
        edits=[('return "c"', 'return "d"')],
    ),
    # ------------------------------------------------------------------ 08 DecoderLayer
    _c(
        "dl-memory-detached",
        L08,
        "DecoderLayer",
        "detaches memory at the start of forward (memory = memory.detach()): the outputs are "
        "right, but no gradient flows back through the cross-attention into the encoder "
        "output, so the encoder would never be trained by the decoder's loss.",
        (
            r"detach",
            r"(no|without) gradient.{0,60}(memory|encoder)",
            r"(memory|encoder output).{0,60}(no|without|zero|None) grad",
            r"gradient.{0,60}(does not|doesn't|never) (flow|reach).{0,40}(memory|encoder)",
        ),
        (
            r"no_grad",
            r"cross-attention.{0,40}(keys|values|queries).{0,40}(from|instead)",
            r"source (padding )?mask (is )?(missing|not passed|ignored)",
        ),
        edits=[("if self.norm_first:", "memory = memory.detach()\n        if self.norm_first:")],
        source=MEMORY_DETACHED,
    ),
    _c(
        "dl-tgt-mask-transposed",
        L08,
        "DecoderLayer",
        "transposes tgt_mask's last two axes before using it (reading it as (key, query)), "
        "so the look-ahead is flipped: each position attends to itself and the later "
        "positions instead of the earlier ones (and the target padding lands on the query "
        "axis); the source mask is right.",
        (
            r"transpos",
            r"(later|future|subsequent) positions.{0,60}(instead|not).{0,40}(earlier|past|"
            r"previous)",
            r"(upper|lower)[- ]triangular.{0,40}(instead|swapped|flipped)",
            r"flipped|look-?ahead.{0,30}(reversed|the wrong way round|upside)",
            r"(query|queries) and (key|keys) (axes )?(are )?swapped|\(key, query\)",
        ),
        (
            r"source (padding )?mask.{0,40}(self-attention|instead)",
            r"cross-attention.{0,40}(tgt_mask|target mask|look-?ahead)",
            r"(no|without) (the )?(look-?ahead|target) mask|tgt_mask (is )?(not passed|missing|"
            r"ignored)",
            r"masks? (are )?swapped",
        ),
        edits=[
            (
                "if self.norm_first:",
                "if tgt_mask is not None:\n"
                "            tgt_mask = tgt_mask.transpose(-2, -1)\n"
                "        if self.norm_first:",
            )
        ],
        source=CAUSAL_MASK_FLIPPED,
    ),
    _c(
        "dl-post-ln-dropout-on-memory",
        L08,
        "DecoderLayer",
        "post-LN: also applies the layer's dropout to the memory given to the cross-attention "
        "(cross_attn(x, dropout(memory), dropout(memory), src_mask), keys and values each with "
        "its own dropout mask); eval mode or dropout 0 hide it, and pre-LN is right.",
        (
            r"(dropout|dropped).{0,20}(on|to|applied to) (the )?(memory|encoder output)",
            r"memory.{0,20}(dropped|through (the )?dropout)",
            r"dropout\(memory\)",
        ),
        (
            r"cross-attention.{0,40}(without|no) (the )?(residual )?dropout",
            r"dropout (on|to) the (residual )?sum",
            r"normali[sz]ed memory|norm2\(memory\)",
        ),
        edits=[
            (
                "self.cross_attn(x, memory, memory, src_mask)",
                "self.cross_attn(x, self.dropout(memory), self.dropout(memory), src_mask)",
            )
        ],
    ),
    # ------------------------------------------------------------------ 08 quizzes
    _c(
        "quiz-cross-norm-memory-only",
        L08,
        "quiz_cross_attention_norm",
        "answers (c), the raw x as queries and norm2(memory) as keys and values: the roles "
        "reversed, since norm2 belongs to the decoder's stream (the queries) and the memory "
        "arrives already normalised by the encoder.",
        (
            r"quer(y|ies).{0,60}norm2\(x\)|norm2\(x\).{0,40}quer",
            r"(decoder'?s? (stream|input)|queries).{0,60}(must|should|need).{0,30}normali[sz]",
        ),
        (r"(source )?padding mask", r"keys.{0,30}(from|are) the decoder"),
        edits=[('return "b"', 'return "c"')],
    ),
    _c(
        "quiz-decoder-masks-look-ahead",
        L08,
        "quiz_decoder_masks",
        "answers (a), the look-ahead mask, although the cross-attention's keys are source "
        "positions, all known from the start (no future to hide); it needs the source "
        "padding mask.",
        (
            r"source (positions|sentence|tokens).{0,60}(known|available|visible|no future)",
            r"(no|nothing in the) future.{0,60}(source|memory|encoder)",
            r"look-?ahead.{0,80}(self-attention|not (for|in) the cross)",
            r"source padding mask",
        ),
        (r"target padding", r"no padding left"),
        edits=[('return "b"', 'return "a"')],
    ),
    # ------------------------------------------------------------------ 08 Decoder
    _c(
        "dec-memory-indexed-per-layer",
        L08,
        "Decoder",
        "gives layer i memory[i], as if memory held one encoder output per layer, but "
        "memory[i] is the i-th sentence of the batch (len_src, d_model): every layer "
        "cross-attends to one sentence's encoder output (or fails) instead of the whole "
        "memory, and num_layers > batch raises IndexError.",
        (
            r"memory\[",
            r"(one|a single) (sentence|row|example|batch element)'?s?.{0,20}(memory|encoder "
            r"output)",
            r"index(es|ing)? (into )?(the )?memory",
            r"(same|whole|full) memory.{0,40}every layer|every layer.{0,40}(same|whole|full) "
            r"memory",
        ),
        (
            r"(decoder'?s? own|its own) (state|output|input) as (the )?memory",
            r"masks? (are )?swapped",
            r"not chained|(stack'?s?|the) input.{0,40}every layer",
            r"normali[sz]e(s|d)? (the )?memory",
        ),
        edits=[
            ("for layer in self.layers:", "for i, layer in enumerate(self.layers):"),
            (
                "x = layer(x, memory, src_mask, tgt_mask)",
                "x = layer(x, memory[i], src_mask, tgt_mask)",
            ),
        ],
        source=MEMORY_PER_LAYER,
    ),
    _c(
        "dec-x-and-memory-swapped",
        L08,
        "Decoder",
        "calls each layer with its first two arguments swapped, layer(memory, x, src_mask, "
        "tgt_mask): the encoder output is decoded as the target (under the look-ahead mask) "
        "and the decoder's stream serves as the memory; a shape error when len_src != "
        "len_tgt, wrong values when they are equal.",
        (
            r"layer\(memory, x",
            r"(memory|encoder output).{0,40}(as|in) (the )?(first|x|target|decoder'?s? input)",
            r"(x|decoder'?s? (input|stream)) and memory.{0,20}swapped|arguments.{0,20}swapped",
        ),
        (
            r"masks? (are )?swapped|tgt_mask.{0,20}src_mask.{0,20}order",
            r"not chained",
            r"(decoder'?s? own|its own) (state|output|input) as (the )?memory",
        ),
        edits=[
            (
                "x = layer(x, memory, src_mask, tgt_mask)",
                "x = layer(memory, x, src_mask, tgt_mask)",
            )
        ],
    ),
]
