"""Held-out wrong answers for lessons 05-08, blind round 9 (helper b9d, 2026-11-27).

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run. Half transpose a mistake described in a public issue thread (the URL read for this
benchmark with the search tool) to the course's exercise; the others are the author's.
Kinds favoured: mistakes that only show on some inputs (batch > 1 with different padding,
a pad id other than 0, a token mean other than 0, norms whose parameters differ, training
mode with another dropout rate, a final norm present, num_heads other than 8), wrong
shapes and dtypes returned, raw exceptions (an attention's weights added to x, arguments
out of order, nn.Sequential given several inputs), two mistakes at once, and state
(a stale normalised h reused).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L05, L06, L07, L08 = (
    "05_multi_head_attention",
    "06_masking",
    "07_encoder",
    "08_decoder",
)

# The reports these cases transpose (each read with the search tool for this benchmark).
MASK_REPEAT = "https://github.com/ArrowLuo/CLIP4Clip/issues/22"
SOFTMAX_AXIS = "https://github.com/labmlai/annotated_deep_learning_paper_implementations/issues/146"
HEADS_SUMMED = "https://github.com/awf/functional-transformer/issues/8"
DOUBLE_SCALE = "https://github.com/huggingface/transformers/pull/38290"
UINT8_MASK = "https://github.com/kimiyoung/transformer-xl/issues/148"
PAD_ZERO = "https://github.com/wzhouad/RE_improved_baseline/issues/3"
VARIANCE_UNCENTRED = "https://github.com/huggingface/transformers/issues/14772"
LN_SQUARED = "https://github.com/131250208/TPlinker-joint-extraction/issues/37"
DROPOUT_FIXED = "https://github.com/josedolz/LiviaNET/issues/9"
SHARED_NORM = "https://github.com/bentrevett/pytorch-seq2seq/pull/100"
KV_UNNORMED = "https://github.com/NVIDIA/TransformerEngine/issues/392"
RESIDUAL_FROM_INPUT = "https://github.com/strutive07/transformer-tensorflow2.0/issues/14"
SEQUENTIAL_ARGS = "https://github.com/huggingface/pytorch-image-models/issues/627"

_c = held_out_authored("blind9d")


BLIND9D: list[Case] = [
    # ------------------------------------------------------------------ 05 multi-head attention
    _c(
        "split-transpose-before-reshape",
        L05,
        "split_heads",
        "transposes x to (batch, d_model, len) first and then reshapes to (batch, num_heads, "
        "len, d_head): the shape is right but each head's block mixes features and "
        "positions; the reshape must come before the transpose.",
        (
            r"transpos\w*.{0,40}(before|first|ahead of).{0,40}(reshap|view|split)",
            r"(reshap|view)\w*.{0,40}(after|before|then).{0,40}transpos",
            r"(wrong|reversed|swapped) order",
            r"order of (the )?(reshape|transpose|operations|steps)",
        ),
        (
            r"float",
            r"without (a |the )?transpos",
            r"no transpos",
            r"forg[eo]t\w* (the )?transpos",
        ),
        edits=[
            (
                "return x.reshape(batch, length, num_heads, d_model // num_heads).transpose(1, 2)",
                "return x.transpose(1, 2).reshape(batch, num_heads, length, d_model // num_heads)",
            )
        ],
    ),
    _c(
        "merge-heads-summed",
        L05,
        "merge_heads",
        "adds the heads together (x.sum(dim=1)) instead of concatenating them, returning "
        "(batch, len, d_head) instead of (batch, len, num_heads * d_head).",
        (
            r"(sum|add|averag|mean|reduc)\w*.{0,40}(the |over the |across the )?heads",
            r"heads.{0,40}(summed|added|averaged|reduced|collapsed)",
            r"(instead of|not|rather than) concatenat",
            r"\(batch, len, d_head\)",
        ),
        (r"transpos", r"contiguous", r"\.view"),
        code="def merge_heads(x):\n    return x.sum(dim=1)\n",
        source=HEADS_SUMMED,
    ),
    _c(
        "merge-flatten-from-dim-1",
        L05,
        "merge_heads",
        "flattens from dim 1 (x.transpose(1, 2).flatten(1)), merging the length axis into "
        "the features too: (batch, len * d_model) instead of (batch, len, d_model); "
        "flatten(2) was meant.",
        (
            r"flatten\(2\)",
            r"flatten\(1\)",
            r"(length|len|position|time)\w* (axis )?.{0,30}(merged|folded|flattened|collapsed)",
            r"(merg|fold|flatten|collaps)\w*.{0,40}(length|len|position|time)",
            r"len \* d_model",
        ),
        (r"without (a |the )?transpos", r"contiguous", r"batch.{0,20}(folded|merged)"),
        edits=[
            (
                "x.transpose(1, 2).reshape(batch, length, num_heads * d_head)",
                "x.transpose(1, 2).flatten(1)",
            )
        ],
    ),
    _c(
        "mha-mask-repeat-not-interleave",
        L05,
        "MultiHeadAttention",
        "folds the heads into the batch axis (batch * num_heads, batch-major, from "
        "split_heads) and copies the mask per head with .repeat(num_heads, 1, 1), which "
        "tiles the batch ([m0, m1, m0, m1]) instead of repeating each sequence's mask "
        "num_heads times (repeat_interleave): with batch > 1 and different padding per "
        "sequence, heads use another sequence's padding mask.",
        (
            r"repeat_interleave",
            r"\.repeat\b",
            r"(another|other|wrong|different|neighbou?ring) (sequence|row|example|sample|batch element)'?s? (padding|mask)",
            r"mask.{0,60}(wrong|other|another|different) (row|sequence|batch element|example|sample)",
            r"(batch|rows?|sequences?).{0,40}mask\w*.{0,40}(mixed|swapped|shuffled|mismatch)",
        ),
        (
            r"look[- ]ahead",
            r"invert|polarity",
            r"mask (is )?(not|never) (passed|used|applied)",
            r"scal(e|ing)",
        ),
        code="class MultiHeadAttention(nn.Module):\n"
        "    def __init__(self, d_model, num_heads, dropout=0.0):\n"
        "        super().__init__()\n"
        "        if d_model % num_heads:\n"
        "            raise ValueError('d_model must be divisible by num_heads')\n"
        "        self.d_model, self.num_heads = d_model, num_heads\n"
        "        self.w_q = nn.Linear(d_model, d_model)\n"
        "        self.w_k = nn.Linear(d_model, d_model)\n"
        "        self.w_v = nn.Linear(d_model, d_model)\n"
        "        self.w_o = nn.Linear(d_model, d_model)\n"
        "        self.dropout = nn.Dropout(dropout)\n"
        "\n"
        "    def forward(self, query, key, value, mask=None):\n"
        "        b, len_q, len_k = query.shape[0], query.shape[1], key.shape[1]\n"
        "        h = self.num_heads\n"
        "        d = self.d_model // h\n"
        "        q = split_heads(self.w_q(query), h).reshape(b * h, len_q, d)\n"
        "        k = split_heads(self.w_k(key), h).reshape(b * h, len_k, d)\n"
        "        v = split_heads(self.w_v(value), h).reshape(b * h, len_k, d)\n"
        "        if mask is not None:\n"
        "            mask = mask.expand(b, 1, len_q, len_k).reshape(b, len_q, len_k)\n"
        "            mask = mask.repeat(h, 1, 1)\n"
        "        heads, weights = scaled_dot_product_attention(q, k, v, mask)\n"
        "        if self.training and self.dropout.p > 0:\n"
        "            heads = self.dropout(weights) @ v\n"
        "        heads = heads.reshape(b, h, len_q, d)\n"
        "        weights = weights.reshape(b, h, len_q, len_k)\n"
        "        return self.w_o(merge_heads(heads)), weights\n",
        source=MASK_REPEAT,
    ),
    _c(
        "mha-inline-softmax-over-queries",
        L05,
        "MultiHeadAttention",
        "writes the attention inline and takes the softmax over dim=-2 (the queries) "
        "instead of dim=-1 (the keys), so each key's column sums to 1 rather than each "
        "query's row.",
        (
            r"dim ?= ?-2",
            r"(over|along|across) (the )?quer(y|ies)",
            r"columns? sums?",
            r"softmax.{0,60}(over|along|across) (the )?(keys|last (axis|dim))",
            r"softmax.{0,40}(wrong|other) (axis|dim)",
        ),
        (
            r"heads? axis",
            r"dim ?= ?1\b",
            r"sqrt|scal(e|ing)",
            r"mask (is )?(not|never|wrong)",
        ),
        code="class MultiHeadAttention(nn.Module):\n"
        "    def __init__(self, d_model, num_heads, dropout=0.0):\n"
        "        super().__init__()\n"
        "        if d_model % num_heads:\n"
        "            raise ValueError('d_model must be divisible by num_heads')\n"
        "        self.d_model, self.num_heads = d_model, num_heads\n"
        "        self.w_q = nn.Linear(d_model, d_model)\n"
        "        self.w_k = nn.Linear(d_model, d_model)\n"
        "        self.w_v = nn.Linear(d_model, d_model)\n"
        "        self.w_o = nn.Linear(d_model, d_model)\n"
        "        self.dropout = nn.Dropout(dropout)\n"
        "\n"
        "    def forward(self, query, key, value, mask=None):\n"
        "        q = split_heads(self.w_q(query), self.num_heads)\n"
        "        k = split_heads(self.w_k(key), self.num_heads)\n"
        "        v = split_heads(self.w_v(value), self.num_heads)\n"
        "        scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5\n"
        "        if mask is not None:\n"
        "            scores = scores.masked_fill(~mask, -1e9)\n"
        "        weights = torch.softmax(scores, dim=-2)\n"
        "        heads = self.dropout(weights) @ v\n"
        "        return self.w_o(merge_heads(heads)), weights\n",
        source=SOFTMAX_AXIS,
    ),
    _c(
        "mha-queries-scaled-twice",
        L05,
        "MultiHeadAttention",
        "scales the projected queries by 1/sqrt(d_head) itself (as fairseq and OPT do in "
        "the projection) and then calls scaled_dot_product_attention, which scales again: "
        "the scores are divided by d_head instead of sqrt(d_head).",
        (
            r"twice",
            r"double",
            r"two times",
            r"d_head instead of (the )?sqrt",
            r"(by|with) d_head,? (not|instead of|rather than)",
            r"scal\w* again",
        ),
        (
            r"sqrt\(d_model\)",
            r"sqrt\(num_heads\)",
            r"not scaled|unscaled|without (the )?scal|no scal",
            r"mask",
        ),
        edits=[
            (
                "q = split_heads(self.w_q(query), self.num_heads)",
                "q = split_heads(self.w_q(query), self.num_heads)\n"
                "        q = q / (self.d_model // self.num_heads) ** 0.5",
            )
        ],
        source=DOUBLE_SCALE,
    ),
    _c(
        "mha-num-heads-hardcoded-8",
        L05,
        "MultiHeadAttention",
        "splits the queries, keys and values with a hard-coded 8 (the paper's h) instead "
        "of self.num_heads, which is right only when num_heads == 8.",
        (
            r"hard[- ]?cod",
            r"num_heads.{0,60}(ignor|not (used|the one)|instead of)",
            r"(number of heads|head count).{0,40}(fixed|constant|wrong|ignored)",
            r"\b8 heads",
            r"heads?.{0,30}\b8\b.{0,30}instead of",
        ),
        (r"transpos", r"scal(e|ing)", r"mask", r"w_o"),
        edits=[
            ("split_heads(self.w_q(query), self.num_heads)", "split_heads(self.w_q(query), 8)"),
            ("split_heads(self.w_k(key), self.num_heads)", "split_heads(self.w_k(key), 8)"),
            ("split_heads(self.w_v(value), self.num_heads)", "split_heads(self.w_v(value), 8)"),
        ],
    ),
    # ------------------------------------------------------------------ 06 masking
    _c(
        "padmask-bool-of-ids",
        L06,
        "padding_mask",
        "marks real tokens with ids.bool() (the nonzero ids), which assumes the pad id is "
        "0: with another pad_id the pads count as real, and a real token whose id is 0 is "
        "marked as padding.",
        (
            r"pad_id",
            r"\.bool\(\)",
            r"non-?zero",
            r"(id|ids) (==|!=|equal to|is) 0",
            r"pad.{0,40}\b0\b|\b0\b.{0,40}pad",
        ),
        (r"ax[ie]s", r"invert|polarity", r"dtype", r"quer(y|ies)"),
        edits=[
            (
                "return (ids != pad_id)[:, None, None, :]",
                "return ids.bool()[:, None, None, :]",
            )
        ],
        source=PAD_ZERO,
    ),
    _c(
        "lookahead-uint8",
        L06,
        "look_ahead_mask",
        "builds the triangle from uint8 ones (the old byte-mask convention), returning a "
        "uint8 mask instead of a bool one.",
        (r"uint8", r"byte", r"torch\.bool", r"dtype"),
        (r"triu", r"diagonal", r"polarity|invert|blocked"),
        edits=[
            (
                "torch.tril(torch.ones(size, size, dtype=torch.bool))",
                "torch.tril(torch.ones(size, size, dtype=torch.uint8))",
            )
        ],
        source=UINT8_MASK,
    ),
    _c(
        "decmask-look-ahead-inverted",
        L06,
        "decoder_self_attention_mask",
        "inverts the look-ahead mask (~look_ahead_mask(len), reading it with nn.Transformer's "
        "True = blocked convention), so every query may attend only to later keys, never to "
        "itself or the past.",
        (
            r"invert",
            r"~",
            r"polarity",
            r"(negat|revers|flip)\w*.{0,40}look[- ]ahead",
            r"look[- ]ahead.{0,40}(negat|revers|flip)",
            r"(only|instead).{0,40}(future|later) (keys|positions|tokens)",
            r"upper triangle",
        ),
        (r"\| instead of &", r"pad\w* (on|along) (the )?quer", r"batch size"),
        edits=[
            (
                "padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[1])",
                "padding_mask(tgt_ids, pad_id) & ~look_ahead_mask(tgt_ids.shape[1])",
            )
        ],
    ),
    _c(
        "decmask-padding-without-axes",
        L06,
        "decoder_self_attention_mask",
        "combines the (batch, len) comparison tgt_ids != pad_id with the (len, len) "
        "look-ahead mask without adding the heads and query axes, so broadcasting pairs "
        "the batch axis with the query axis: an error when batch != len, a wrong "
        "(len, len) mask when they are equal.",
        (
            r"unsqueeze",
            r"\[:, None, None",
            r"\(batch, 1, 1, len",
            r"padding_mask\(",
            r"(heads?|query) ax[ie]s.{0,40}(missing|add|insert)",
            r"(missing|add|insert)\w*.{0,40}(heads?|query|two) ax[ie]s",
            r"broadcast\w*.{0,60}batch.{0,40}(query|len)",
        ),
        (r"\| instead", r"invert", r"diagonal"),
        edits=[
            (
                "return padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[1])",
                "return (tgt_ids != pad_id) & look_ahead_mask(tgt_ids.shape[1])",
            )
        ],
    ),
    # ------------------------------------------------------------------ 07 encoder
    _c(
        "ln-variance-uncentred",
        L07,
        "LayerNorm",
        "computes the variance as the mean of x squared (the second moment about zero, "
        "T5-style) while still subtracting the mean in the numerator, which is right only "
        "for tokens whose mean is 0.",
        (
            r"mean of (the )?squares",
            r"second moment",
            r"x\.pow\(2\)|x \*\* 2",
            r"(variance|var)\b.{0,60}(not centred|uncentred|uncentered|not centered|without (subtracting|removing) the mean|about (zero|0))",
            r"(root mean square|\brms\b).{0,60}(instead of|not|rather than).{0,30}(std|standard deviation|variance)",
        ),
        (
            r"unbiased|n ?- ?1",
            r"eps.{0,30}outside",
            r"(over|along) (the )?(batch|positions|sequence)",
            r"(does not|never|without) subtract\w* the mean",
        ),
        edits=[
            (
                "variance = x.var(dim=-1, keepdim=True, unbiased=False)",
                "variance = x.pow(2).mean(dim=-1, keepdim=True)",
            )
        ],
        source=VARIANCE_UNCENTRED,
    ),
    _c(
        "ln-squares-instead-of-root",
        L07,
        "LayerNorm",
        "divides by (variance + eps) ** 2 instead of its square root, ** 0.5 (a typo in "
        "the exponent).",
        (
            r"\*\* ?2",
            r"squar\w*.{0,40}(instead of|not|rather than).{0,30}(root|sqrt)",
            r"(power|exponent)",
            r"(variance|var)\b.{0,30}squared",
        ),
        (r"unbiased", r"eps.{0,30}outside", r"(over|along) (the )?(batch|positions)"),
        edits=[
            (
                "torch.sqrt(variance + self.eps)",
                "(variance + self.eps) ** 2",
            )
        ],
        source=LN_SQUARED,
    ),
    _c(
        "ln-parameters-3d",
        L07,
        "LayerNorm",
        "creates weight and bias with shape (1, 1, d_model) so that they broadcast against "
        "(batch, len, d_model): the state-dict shapes differ from nn.LayerNorm's "
        "(d_model,), and a 2-D (tokens, d_model) input comes back 3-D.",
        (
            r"\(1, 1, (d_model|\d+)\)",
            r"(weight|bias|gain).{0,60}shape",
            r"shape.{0,60}(weight|bias|gain)",
            r"state[- ]dict",
        ),
        (r"swap", r"init\w* (to )?(zeros|ones)", r"(over|along) (the )?(batch|positions)"),
        edits=[
            ("nn.Parameter(torch.ones(d_model))", "nn.Parameter(torch.ones(1, 1, d_model))"),
            ("nn.Parameter(torch.zeros(d_model))", "nn.Parameter(torch.zeros(1, 1, d_model))"),
        ],
    ),
    _c(
        "ffn-residual-inside",
        L07,
        "PositionwiseFeedForward",
        "adds the input back inside the feed-forward network (returns x + w_2(...)), a "
        "residual connection that belongs to the encoder layer, not to this module.",
        (r"residual", r"(adds?|plus|added) (back )?(the )?(input|x)\b", r"x \+", r"skip"),
        (r"relu|gelu", r"dropout (is )?(applied )?(after|on the output|to the input)", r"bias"),
        edits=[
            (
                "return self.w_2(self.dropout(hidden))",
                "return x + self.w_2(self.dropout(hidden))",
            )
        ],
    ),
    _c(
        "ffn-dropout-rate-hardcoded",
        L07,
        "PositionwiseFeedForward",
        "builds nn.Dropout(0.1), the paper's rate, instead of nn.Dropout(dropout), so the "
        "dropout argument is ignored: only training mode with another rate shows it "
        "(dropout=0.0 still drops 10% of the hidden units).",
        (
            r"0\.1",
            r"(dropout|rate|\bp\b).{0,60}(ignor|hard[- ]?cod|fixed|not (used|passed))",
            r"(ignor\w*|not (use|pass)\w*).{0,40}(dropout|rate)",
        ),
        (
            r"dropout (is )?(applied )?(after w_2|on the output|to the input|before w_1)",
            r"functional",
            r"relu",
        ),
        edits=[("self.dropout = nn.Dropout(dropout)", "self.dropout = nn.Dropout(0.1)")],
        source=DROPOUT_FIXED,
    ),
    _c(
        "enc-layer-one-norm-shared",
        L07,
        "EncoderLayer",
        "assigns one LayerNorm object to both norm1 and norm2 (self.norm2 = self.norm1), "
        "so the two sub-layers share one gain and bias: identical while fresh, wrong once "
        "the norms' parameters differ.",
        (
            r"(shar|same|single|one)\w*.{0,40}(LayerNorm|norm|object|module|parameters)",
            r"norm2.{0,40}(is|=|same as|alias\w*).{0,20}norm1",
            r"alias",
        ),
        (r"residual", r"mask", r"dropout"),
        edits=[("self.norm2 = LayerNorm(d_model)", "self.norm2 = self.norm1")],
        source=SHARED_NORM,
    ),
    _c(
        "enc-layer-pre-ln-keys-values-unnormed",
        L07,
        "EncoderLayer",
        "in the pre-LN branch, normalises only the queries: the keys and values are the "
        "raw x (self_attn(h, x, x, mask)) instead of norm1(x).",
        (
            r"(keys?|values?).{0,60}(un-?normali[sz]ed|not normali[sz]ed|raw|without (the )?norm|norm1)",
            r"(only|just) the quer",
            r"self_attn\(h, x, x",
        ),
        (r"residual", r"mask", r"norm2", r"post-?LN"),
        edits=[
            (
                "self.self_attn(h, h, h, mask)[0]",
                "self.self_attn(h, x, x, mask)[0]",
            )
        ],
        source=KV_UNNORMED,
    ),
    _c(
        "enc-layer-norm-first-inverted",
        L07,
        "EncoderLayer",
        "tests `if not self.norm_first`, so the two branches are swapped: norm_first=False "
        "runs the pre-LN form and norm_first=True the post-LN form.",
        (
            r"(swap|invert|revers|exchang)\w*.{0,60}(branch|norm_first|pre-?LN|post-?LN)",
            r"norm_first=False.{0,80}pre-?LN",
            r"pre-?LN.{0,60}(when|for|with) norm_first=False",
            r"norm_first=True.{0,80}post-?LN",
            r"post-?LN.{0,60}(when|for|with) norm_first=True",
        ),
        (r"ignor\w* norm_first", r"always (post|pre)", r"mask", r"residual"),
        edits=[("if self.norm_first:", "if not self.norm_first:")],
    ),
    _c(
        "enc-layer-adds-attention-weights",
        L07,
        "EncoderLayer",
        "takes element [1] of the attention's (output, weights) pair, the attention "
        "weights (batch, num_heads, len, len), instead of [0], the output, and adds it to "
        "x (which fails to broadcast).",
        (
            r"\[1\]",
            r"\[0\]",
            r"weights.{0,40}instead of.{0,40}output",
            r"\(output, weights\)",
        ),
        (r"mask", r"norm", r"residual"),
        edits=[
            ("self.self_attn(h, h, h, mask)[0]", "self.self_attn(h, h, h, mask)[1]"),
            ("self.self_attn(x, x, x, mask)[0]", "self.self_attn(x, x, x, mask)[1]"),
        ],
    ),
    _c(
        "encoder-layer-arguments-swapped",
        L07,
        "Encoder",
        "builds each layer as EncoderLayer(d_model, d_ff, num_heads, ...): num_heads and "
        "d_ff are swapped, so the attention is asked for d_ff heads (an error when d_model "
        "is not divisible by d_ff).",
        (
            r"(num_heads|d_ff).{0,60}(swap|order|exchang|position)",
            r"(swap|order|exchang)\w*.{0,60}(num_heads|d_ff)",
            r"argument order",
            r"EncoderLayer\(d_model, num_heads, d_ff",
        ),
        (r"norm_first", r"final norm", r"ModuleList|registered"),
        edits=[
            (
                "EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first)",
                "EncoderLayer(d_model, d_ff, num_heads, dropout, norm_first)",
            )
        ],
    ),
    _c(
        "encoder-unchained-and-final-norm-always",
        L07,
        "Encoder",
        "two mistakes at once: every layer is fed the stack's input (out = layer(x, mask), "
        "only the last layer's output kept), and a final LayerNorm is always applied, "
        "also to the post-LN stack that should have none.",
        (
            r"(?s)(chain|stack'?s input|the same input|previous layer'?s output|each layer.{0,30}input).*(final (layer ?)?norm|extra norm)",
            r"(?s)(final (layer ?)?norm|extra norm).*(chain|stack'?s input|the same input|previous layer'?s output|each layer.{0,30}input)",
        ),
        (r"ModuleList|registered", r"shar\w* (weights|layer)", r"mask"),
        code="class Encoder(nn.Module):\n"
        "    def __init__(self, num_layers, d_model, num_heads, d_ff, dropout=0.0,\n"
        "                 norm_first=False, final_norm=None):\n"
        "        super().__init__()\n"
        "        self.layers = nn.ModuleList(\n"
        "            [EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first)\n"
        "             for _ in range(num_layers)]\n"
        "        )\n"
        "        self.norm = LayerNorm(d_model)\n"
        "\n"
        "    def forward(self, x, mask=None):\n"
        "        for layer in self.layers:\n"
        "            out = layer(x, mask)\n"
        "        return self.norm(out)\n",
    ),
    # ------------------------------------------------------------------ 08 decoder
    _c(
        "declayer-pre-ln-stale-h-for-cross",
        L08,
        "DecoderLayer",
        "pre-LN: never recomputes h = norm2(x) before the cross-attention, so its queries "
        "are the stale norm1(x) from before the self-attention (norm2 is unused).",
        (
            r"norm2.{0,60}(never|not|unused|missing|skipp)",
            r"(stale|reus\w*|old|same) h\b",
            r"norm1.{0,80}cross",
            r"cross-?attention.{0,80}quer(y|ies).{0,60}(norm1|before the self-?attention|stale|layer'?s input)",
        ),
        (r"memory.{0,30}normali", r"residual", r"mask", r"post-?LN"),
        edits=[("h = self.norm2(x)", "# (h from norm1 is reused)")],
    ),
    _c(
        "declayer-post-ln-cross-residual-from-input",
        L08,
        "DecoderLayer",
        "post-LN: the cross-attention's residual adds the layer's input x instead of the "
        "stream after the self-attention sub-layer (norm1's output, which it keeps in y "
        "and uses only as the cross-attention's queries).",
        (
            r"residual.{0,80}(layer'?s input|input of the layer|original x|before the self-?attention|norm1)",
            r"(layer'?s input|original input).{0,60}residual",
            r"self-?attention('s)? (sub-?layer|result|output).{0,60}(skipped|dropped|lost|bypass)",
        ),
        (r"residual.{0,40}memory", r"quer(y|ies).{0,40}(from|are) (memory|x\b)", r"mask"),
        edits=[
            (
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))",
                "y = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))",
            ),
            (
                "x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))",
                "x = self.norm2(x + self.dropout(self.cross_attn(y, memory, memory, src_mask)[0]))",
            ),
        ],
        source=RESIDUAL_FROM_INPUT,
    ),
    _c(
        "decoder-sequential-several-inputs",
        L08,
        "Decoder",
        "keeps the layers in an nn.Sequential and calls self.layers(x, memory, src_mask, "
        "tgt_mask): Sequential passes one input from module to module, so the call raises "
        "a TypeError; the layers need an nn.ModuleList and a loop.",
        (
            r"Sequential",
            r"(one|a single|only one) (input|argument)",
            r"ModuleList and (a )?(for )?loop",
            r"loop over (the )?layers",
        ),
        (
            r"plain (Python )?list|not registered",
            r"shar\w* (weights|layer)",
            r"mask.{0,20}(order|swap)",
        ),
        code="class Decoder(nn.Module):\n"
        "    def __init__(self, num_layers, d_model, num_heads, d_ff, dropout=0.0,\n"
        "                 norm_first=False, final_norm=None):\n"
        "        super().__init__()\n"
        "        self.layers = nn.Sequential(\n"
        "            *[DecoderLayer(d_model, num_heads, d_ff, dropout, norm_first)\n"
        "              for _ in range(num_layers)]\n"
        "        )\n"
        "        use_final_norm = norm_first if final_norm is None else final_norm\n"
        "        self.norm = LayerNorm(d_model) if use_final_norm else None\n"
        "\n"
        "    def forward(self, x, memory, src_mask=None, tgt_mask=None):\n"
        "        x = self.layers(x, memory, src_mask, tgt_mask)\n"
        "        return x if self.norm is None else self.norm(x)\n",
        source=SEQUENTIAL_ARGS,
    ),
    _c(
        "decoder-normalises-memory",
        L08,
        "Decoder",
        "also applies the decoder's final norm to memory before the layers (memory = "
        "self.norm(memory)), so with a final norm every cross-attention reads a "
        "re-normalised encoder output; without one (the post-LN default) it is right.",
        (
            r"memory.{0,60}(normali[sz]|norm\(|self\.norm)",
            r"(normali[sz]\w*|norm)\w*.{0,40}(the )?(memory|encoder('s)? output)",
        ),
        (r"final norm.{0,40}(missing|never|not applied|always)", r"norm_first", r"mask"),
        edits=[
            (
                "for layer in self.layers:",
                "if self.norm is not None:\n"
                "            memory = self.norm(memory)\n"
                "        for layer in self.layers:",
            )
        ],
    ),
]
