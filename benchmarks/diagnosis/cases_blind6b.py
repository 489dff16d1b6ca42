"""Held-out wrong answers, blind round 6 (helper b6b, 2026-11-26): lessons 05-08.

Written blind: without reading the checks of lessons 05-08 or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run. Where ``source`` is a URL, the mistake is the one that thread reports (read with the
search tool for this benchmark), transposed to this course's exercise (no code copied from
it); the others are the author's. This round favours kinds earlier rounds lacked: two
mistakes at once, mistakes that show only on some inputs (batch > 1, padding at the start,
cross-attention lengths, float64, training mode, an argument left at None), returned
dtypes/shapes, and state/step mistakes in loops.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out

AUTHOR = "author: a plausible learner slip, written from the exercise's docstring"
L05, L06, L07, L08 = "05_multi_head_attention", "06_masking", "07_encoder", "08_decoder"

# The reports these cases transpose (each read with the search tool for this benchmark).
SPLIT_SIZE_NOT_COUNT = "https://github.com/VincLee8188/GMAN-PyTorch/issues/3"
SCALE_WHOLE_WIDTH = "https://github.com/chelsea0x3b/dfdx/issues/171"
KV_QUERY_LENGTH = "https://github.com/huggingface/transformers/pull/48356"
LENGTHS_RIGHT_PADDING = "https://github.com/huggingface/transformers/pull/24979"
NANOGPT_FLOAT_BIAS = "https://github.com/karpathy/nanoGPT/issues/473"
INPLACE_BROADCAST = "https://github.com/pytorch/pytorch/issues/71098"
UPCAST_DOWNCASTS_F64 = "https://github.com/patrick-kidger/equinox/pull/723"
EPS_1E6 = "https://github.com/huggingface/candle/pull/271"
NORM_INIT_SWAPPED = "https://github.com/google/objax/pull/94"
FUNCTIONAL_DROPOUT = "https://github.com/pytorch/pytorch/issues/26338"
DROPOUT_ON_SUM = "https://github.com/codertimo/BERT-pytorch/issues/85"
ONE_LAYER_LESS = "https://github.com/LukasHedegaard/continual-inference/pull/70"
CAUSAL_IN_CROSS = "https://github.com/onlybooks/llm/issues/4"
SUBLAYER_DISCARDED = "https://github.com/facebookresearch/multimodal/pull/305"
SAME_LAYER_EVERY_TIME = "https://github.com/geometric-intelligence/pirounet/pull/37"

_held_out = held_out("blind6b")


def _e(id_, lesson, exercise, cause, source, named, misnamed=(), edits=()):
    return _held_out(id_, lesson, exercise, cause, source, named, misnamed, edits)


def _code(id_, lesson, exercise, cause, source, named, misnamed, code):
    return _held_out(id_, lesson, exercise, cause, source, named, misnamed, code=code)


BLIND6B: list[Case] = [
    # ------------------------------------------------------------ 05 multi-head attention
    _code(
        "split-torch-split-size",
        L05,
        "split_heads",
        "cuts the features with torch.split(x, num_heads, dim=-1), whose second argument is "
        "the size of each piece, not the number of pieces: d_head pieces of num_heads "
        "features are stacked, so the heads and d_head axes are exchanged.",
        SPLIT_SIZE_NOT_COUNT,
        (
            r"torch\.split",
            r"split_size",
            r"\bchunk",
            r"size of each (piece|chunk|part)",
            r"pieces? of (size |width )?num_heads",
            r"num_heads.{0,60}d_head.{0,60}(swap|exchang|confus|the other way)",
            r"(swap|exchang|confus).{0,60}num_heads.{0,60}d_head",
            r"\(d_head, num_heads\)",
        ),
        (r"(missing|no|without) (a |the )?transpose", r"contiguous", r"float"),
        "def split_heads(x, num_heads):\n"
        "    return torch.stack(torch.split(x, num_heads, dim=-1), dim=1)\n",
    ),
    _code(
        "merge-unpacks-split-layout",
        L05,
        "merge_heads",
        "unpacks x.shape as (batch, length, num_heads, d_head), the layout before the split, "
        "although x is (batch, num_heads, len, d_head): the length and the head count are "
        "exchanged, which goes unseen when num_heads == len.",
        AUTHOR,
        (
            r"unpack",
            r"x\.shape.{0,80}(order|batch, num_heads, len)",
            r"(len(gth)?|num_heads).{0,40}(and|with).{0,20}(len(gth)?|num_heads).{0,40}"
            r"(swap|exchang|confus|the wrong (way|order))",
            r"(axes|dimensions|sizes) (read |taken )?in the wrong order",
            r"reads? num_heads (from|as) .{0,30}len",
        ),
        (r"contiguous", r"\.view", r"cat"),
        "def merge_heads(x):\n"
        "    batch, length, num_heads, d_head = x.shape\n"
        "    return x.transpose(1, 2).reshape(batch, length, num_heads * d_head)\n",
    ),
    _code(
        "merge-batch-of-one",
        L05,
        "merge_heads",
        "reshapes to (1, len, d_model), a batch of one hard-coded from a single-sentence "
        "example, so any batch of more than one sequence fails.",
        AUTHOR,
        (
            r"batch (size |axis |dimension )?(of )?(1|one)\b",
            r"hard-?coded?.{0,40}(1|one|batch)",
            r"reshape\(1,",
            r"(keep|use|take) (the )?batch (size|axis|dimension)",
            r"batch (size|axis|dimension).{0,60}(lost|dropped|missing|fixed|ignored)",
        ),
        (r"contiguous", r"transpose"),
        "def merge_heads(x):\n"
        "    _, num_heads, length, d_head = x.shape\n"
        "    return x.transpose(1, 2).reshape(1, length, num_heads * d_head)\n",
    ),
    _e(
        "mha-inline-scale-d-model",
        L05,
        "MultiHeadAttention",
        "writes the attention inline and scales the scores by sqrt(d_model), the full width, "
        "instead of sqrt(d_head), the width of one head.",
        SCALE_WHOLE_WIDTH,
        (
            r"sqrt\(d_model\)",
            r"d_model.{0,60}instead of.{0,40}d_head",
            r"(scal|divid).{0,80}(d_model|full width|whole width|per-head|d_head|d_k)",
            r"(d_head|d_k).{0,60}not.{0,30}d_model",
            r"temperature",
        ),
        (r"dropout", r"(mask|padding).{0,40}(ignored|dropped|not passed)", r"w_o"),
        edits=[
            (
                "heads, weights = scaled_dot_product_attention(q, k, v, mask)",
                "scores = q @ k.transpose(-2, -1) / (self.d_model**0.5)\n"
                "        if mask is not None:\n"
                '            scores = scores.masked_fill(~mask, float("-inf"))\n'
                "        weights = torch.softmax(scores, dim=-1)\n"
                "        heads = weights @ v",
            )
        ],
    ),
    _e(
        "mha-kv-viewed-with-query-length",
        L05,
        "MultiHeadAttention",
        "splits the keys and values with the query's length (view(batch, len_q, -1, d_head)), "
        "so self-attention works but cross-attention with len_k != len_q infers a wrong head "
        "count and fails.",
        KV_QUERY_LENGTH,
        (
            r"len_k|key length|length of (the )?keys",
            r"(query|len_q|queries)'?s? length.{0,80}(key|value|memory)",
            r"(key|value)s?.{0,80}(query|len_q)'?s? length",
            r"cross-attention.{0,120}(different|differ|longer|shorter|other) length",
            r"len_q ?!= ?len_k",
        ),
        (r"transpose", r"scal", r"dropout"),
        edits=[
            (
                "k = split_heads(self.w_k(key), self.num_heads)",
                "batch, len_q = query.shape[:2]\n"
                "        d_head = self.d_model // self.num_heads\n"
                "        k = self.w_k(key).view(batch, len_q, -1, d_head).transpose(1, 2)",
            ),
            (
                "v = split_heads(self.w_v(value), self.num_heads)",
                "v = self.w_v(value).view(batch, len_q, -1, d_head).transpose(1, 2)",
            ),
        ],
    ),
    # ------------------------------------------------------------------------ 06 masking
    _code(
        "padmask-from-lengths",
        L06,
        "padding_mask",
        "counts the real tokens of each row and marks the first `count` positions as real, "
        "which assumes the pads sit at the end: a row padded at the start (or in the middle) "
        "gets its pads marked real and its last tokens marked as pads.",
        LENGTHS_RIGHT_PADDING,
        (
            r"(start|left|beginning|front|middle).{0,60}pad",
            r"pad.{0,60}(at|on) the (start|left|beginning|front)",
            r"(count|length)s? of (the )?real tokens",
            r"assum.{0,60}(end|right)",
            r"(where|which positions?) (the )?pads? (are|sit)",
            r"compare (each|every) (id|token|position).{0,30}pad_id",
        ),
        (r"invert", r"query axis", r"hard-?coded? 0|compar.{0,20}with 0"),
        "def padding_mask(ids, pad_id):\n"
        "    lengths = (ids != pad_id).sum(dim=1)  # real tokens per row\n"
        "    positions = torch.arange(ids.shape[1])\n"
        "    return (positions[None, :] < lengths[:, None])[:, None, None, :]\n",
    ),
    _code(
        "lookahead-nanogpt-bias",
        L06,
        "look_ahead_mask",
        "two mistakes at once, as nanoGPT's registered `bias`: a float triangle of ones "
        "(not bool) with two leading axes, shape (1, 1, size, size) instead of (size, size).",
        NANOGPT_FLOAT_BIAS,
        (
            r"(float|bool|dtype)[\s\S]{0,300}(shape|axes|\(1, 1,|4-?d|four)",
            r"(shape|axes|\(1, 1,|4-?d|four)[\s\S]{0,300}(float|bool|dtype)",
        ),
        (r"upper|triu", r"diagonal"),
        "def look_ahead_mask(size):\n"
        "    return torch.tril(torch.ones(size, size)).view(1, 1, size, size)\n",
    ),
    _code(
        "decmask-inplace-and",
        L06,
        "decoder_self_attention_mask",
        "combines the masks in place (mask &= padding): the (len, len) look-ahead mask cannot "
        "hold the (batch, 1, len, len) result, so PyTorch raises; an out-of-place & is needed.",
        INPLACE_BROADCAST,
        (
            r"in-?place",
            r"&=",
            r"out-of-place",
            r"(output|result) with shape.{0,80}broadcast",
            r"cannot hold|can ?not (be )?(resized|grow)",
        ),
        (r"\|", r"query axis", r"float"),
        "def decoder_self_attention_mask(tgt_ids, pad_id):\n"
        "    mask = look_ahead_mask(tgt_ids.shape[1])\n"
        "    mask &= padding_mask(tgt_ids, pad_id)\n"
        "    return mask\n",
    ),
    _code(
        "decmask-loop-shared-causal",
        L06,
        "decoder_self_attention_mask",
        "builds the mask row by row in a loop, blocking each row's pad columns in ONE shared "
        "causal tensor, so the pads of earlier rows stay blocked in every later row (batch > 1 "
        "only).",
        AUTHOR,
        (
            r"(earlier|previous|other|first) rows?'? (pads|padding)",
            r"(pads|padding) of (an? )?(earlier|previous|other) rows?",
            r"(shared|same) (mask|tensor|causal).{0,80}(modif|overwrit|mutat|in-?place|reused)",
            r"leak",
            r"accumulat",
            r"\.clone\(\)|a (fresh )?copy",
            r"row \d.{0,120}(pads?|padding) of row \d",
        ),
        (r"\|", r"query axis", r"look-?ahead.{0,30}(missing|forgot)"),
        "def decoder_self_attention_mask(tgt_ids, pad_id):\n"
        "    batch, length = tgt_ids.shape\n"
        "    causal = look_ahead_mask(length)\n"
        "    mask = torch.zeros(batch, 1, length, length, dtype=torch.bool)\n"
        "    for b in range(batch):\n"
        "        causal[:, tgt_ids[b] == pad_id] = False\n"
        "        mask[b, 0] = causal\n"
        "    return mask\n",
    ),
    # ------------------------------------------------------------------------ 07 encoder
    _e(
        "ln-float32-upcast",
        L07,
        "LayerNorm",
        "computes in float32 for stability (x = x.float()) and never casts back, so a float64 "
        "input comes back float32 (precision lost).",
        UPCAST_DOWNCASTS_F64,
        (
            r"float32",
            r"\.float\(\)",
            r"(cast|convert)s?.{0,40}back",
            r"(same|input'?s?) dtype",
            r"dtype.{0,60}(float64|double)",
        ),
        (r"unbiased|n ?- ?1", r"\beps\b.{0,40}(outside|inside)", r"axis|over the batch"),
        edits=[
            (
                "mean = x.mean(dim=-1, keepdim=True)",
                "x = x.float()  # float32 for stability\n"
                "        mean = x.mean(dim=-1, keepdim=True)",
            )
        ],
    ),
    _e(
        "ln-eps-default-1e-6",
        L07,
        "LayerNorm",
        "defaults eps to 1e-6 (timm/T5 style) instead of the 1e-5 of the docstring and "
        "nn.LayerNorm; only tokens with a small variance show the difference.",
        EPS_1E6,
        (
            r"1e-0?6",
            r"\beps(ilon)?\b.{0,80}(1e-0?5|default|10\^?-5)",
            r"default.{0,40}\beps",
        ),
        (r"unbiased|n ?- ?1", r"(std|standard deviation).{0,40}\+ ?eps", r"outside"),
        edits=[("eps: float = 1e-5", "eps: float = 1e-6")],
    ),
    _e(
        "ln-init-swapped",
        L07,
        "LayerNorm",
        "initialises the gain to zeros and the bias to ones (the two inits swapped), so a "
        "fresh layer outputs 1 everywhere; the forward formula is right.",
        NORM_INIT_SWAPPED,
        (
            r"initiali[sz]",
            r"\binit\b",
            r"(fresh|new|untrained) (layer|LayerNorm)",
            r"(weight|gain).{0,60}(ones|1\.0?\b).{0,80}bias.{0,40}(zeros|0\.0?\b)",
            r"torch\.(ones|zeros)",
        ),
        (r"multipl\w* by (the )?bias", r"adds? (the )?(weight|gain)", r"forward"),
        edits=[
            (
                "self.weight = nn.Parameter(torch.ones(d_model))",
                "self.weight = nn.Parameter(torch.zeros(d_model))",
            ),
            (
                "self.bias = nn.Parameter(torch.zeros(d_model))",
                "self.bias = nn.Parameter(torch.ones(d_model))",
            ),
        ],
    ),
    _e(
        "ffn-functional-dropout-eval",
        L07,
        "PositionwiseFeedForward",
        "calls the functional dropout (F.dropout(hidden, p)) whose training flag defaults to "
        "True, so dropout stays on in eval mode.",
        FUNCTIONAL_DROPOUT,
        (
            r"F\.dropout|functional\.dropout",
            r"training=",
            r"self\.training",
            r"eval(\(\))? mode.{0,80}(dropout|random|differ|determin)",
            r"dropout.{0,80}(eval|evaluation|inference)",
            r"nn\.Dropout",
        ),
        (r"relu", r"after w_2", r"gelu"),
        edits=[
            (
                "return self.w_2(self.dropout(hidden))",
                "return self.w_2(nn.functional.dropout(hidden, self.dropout.p))",
            )
        ],
    ),
    _e(
        "enc-dropout-on-residual-sum",
        L07,
        "EncoderLayer",
        "post-LN applies the dropout to the residual sum, norm(dropout(x + sublayer(x))), "
        "instead of to the sub-layer's output before it is added (training mode only).",
        DROPOUT_ON_SUM,
        (
            r"dropout.{0,80}(the sum|residual sum|x \+|whole sum|residual (stream|path))",
            r"(sum|residual).{0,60}(through|inside|into) (the )?dropout",
            r"dropout.{0,80}(sub-?layer'?s? output|output of (each|the) sub-?layer)",
            r"before (it is )?added",
            r"dropout\(x \+",
        ),
        (r"after (the )?norm", r"norm.{0,40}sub-?layer'?s? output", r"residual.{0,30}missing"),
        edits=[
            (
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))",
                "x = self.norm1(self.dropout(x + self.self_attn(x, x, x, mask)[0]))",
            ),
            (
                "return self.norm2(x + self.dropout(self.feed_forward(x)))",
                "return self.norm2(self.dropout(x + self.feed_forward(x)))",
            ),
        ],
    ),
    _e(
        "enc-preln-mask-dropped",
        L07,
        "EncoderLayer",
        "the pre-LN branch calls the self-attention without the mask (the post-LN branch "
        "passes it), so only norm_first=True with padding attends to the pads.",
        AUTHOR,
        (
            r"mask.{0,120}(pre-?LN|norm_first=True|norm_first branch)",
            r"(pre-?LN|norm_first=True).{0,120}mask",
            r"(pads?|padding).{0,80}(pre-?LN|norm_first=True)",
        ),
        (r"norm1|norm2", r"residual", r"chain"),
        edits=[
            (
                "x = x + self.dropout(self.self_attn(h, h, h, mask)[0])",
                "x = x + self.dropout(self.self_attn(h, h, h)[0])",
            )
        ],
    ),
    _e(
        "encoder-skips-last-layer",
        L07,
        "Encoder",
        "loops over range(len(self.layers) - 1), an off-by-one that never runs the last layer "
        "(one layer fewer than num_layers).",
        ONE_LAYER_LESS,
        (
            r"last layer",
            r"layers\[-1\]",
            r"one layer (less|fewer|short)",
            r"(skip|never (run|call)|misses).{0,40}layer",
            r"num_layers ?- ?1",
            r"off[- ]by[- ]one",
            r"layers\[\d\].{0,60}(never|not) (run|called|used)",
        ),
        (r"(shar|same) (weights|layer object)", r"plain (python )?list", r"not chained"),
        edits=[
            (
                "for layer in self.layers:\n            x = layer(x, mask)",
                "for i in range(len(self.layers) - 1):\n            x = self.layers[i](x, mask)",
            )
        ],
    ),
    # ------------------------------------------------------------------------ 08 decoder
    _e(
        "dec-causal-mask-in-cross",
        L08,
        "DecoderLayer",
        "two mistakes at once: the self-attention gets no mask (it may look ahead) and the "
        "cross-attention gets tgt_mask instead of src_mask.",
        CAUSAL_IN_CROSS,
        (
            r"self-?attention[\s\S]{0,300}(no|without|missing|unmasked|never gets)[\s\S]{0,300}"
            r"cross-?attention[\s\S]{0,200}tgt_mask",
            r"cross-?attention[\s\S]{0,200}tgt_mask[\s\S]{0,300}self-?attention[\s\S]{0,200}"
            r"(no|without|missing|unmasked|never gets)",
            r"tgt_mask.{0,80}(cross|wrong (sub-?layer|attention))[\s\S]{0,300}src_mask.{0,80}"
            r"(unused|never|not)",
            r"masks?.{0,60}(swap|exchang|in the wrong (attention|sub-?layer))",
        ),
        (r"memory.{0,40}(query|queries)", r"residual", r"norm[123]"),
        edits=[
            (
                "x = x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])",
                "x = x + self.dropout(self.self_attn(h, h, h)[0])",
            ),
            (
                "x = x + self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])",
                "x = x + self.dropout(self.cross_attn(h, memory, memory, tgt_mask)[0])",
            ),
            (
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))",
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x)[0]))",
            ),
            (
                "x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))",
                "x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, tgt_mask)[0]))",
            ),
        ],
    ),
    _e(
        "dec-ffn-output-discarded",
        L08,
        "DecoderLayer",
        "post-LN computes the feed-forward but adds dropout(x) instead of its output "
        "(norm3(x + dropout(x))): the feed-forward sub-layer is discarded.",
        SUBLAYER_DISCARDED,
        (
            r"feed[- ]?forward.{0,100}(unused|discard|never (used|added)|ignored|not added|"
            r"missing|dropped|thrown away|lost)",
            r"(no|without|missing|lost (its|the)) feed[- ]?forward",
            r"x \+ (self\.)?dropout\(x\)",
            r"adds? x to itself",
            r"2 ?\* ?x|twice x|x doubled",
        ),
        (r"norm3.{0,60}(norm2|twice)", r"cross", r"self-?attention"),
        edits=[
            (
                "return self.norm3(x + self.dropout(self.feed_forward(x)))",
                "ff = self.feed_forward(x)\n        return self.norm3(x + self.dropout(x))",
            )
        ],
    ),
    # "dec-always-causal" (https://github.com/keras-team/keras-hub/pull/1083) (a causal mask built when tgt_mask is None) was written here and measured in its batch's commit; read afterwards, it is an answer
    # the course accepts on purpose (d2l's decoder block, a Correct variant of test_08), so it
    # is left out here and in the generalisation record, with that reason.
    _e(
        "decoder-layers0-every-step",
        L08,
        "Decoder",
        "the loop calls self.layers[0] at every step (index typo), so the first layer runs "
        "num_layers times and the others never run, although all were built.",
        SAME_LAYER_EVERY_TIME,
        (
            r"layers\[0\]",
            r"(same|first) layer.{0,80}(every|each|all|repeated|num_layers times|again|"
            r"\d+ times)",
            r"only (the )?first layer",
            r"layers\[[1-9]\].{0,80}(never|not) (run|called|used)",
            r"(never|not) (run|call|use)s?.{0,40}layers\[[1-9]\]",
        ),
        (r"\] ?\* ?num_layers", r"plain (python )?list", r"ModuleList.{0,60}(same|one) object"),
        edits=[
            (
                "for layer in self.layers:\n            x = layer(x, memory, src_mask, tgt_mask)",
                "for i in range(len(self.layers)):\n"
                "            x = self.layers[0](x, memory, src_mask, tgt_mask)",
            )
        ],
    ),
]
