"""Held-out wrong answers for lessons 05-08, blind round 8 (helper b8d, 2026-11-27).

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run. Half of them transpose a mistake reported in a public issue thread (the URL read for
this benchmark) to the course's exercise; the others are the author's. Kinds favoured:
mistakes that only show on some inputs (float64, batch != num_heads, lengths above a
cached size, ids below pad_id, three-dimensional inputs, training mode), in-place edits of
an input, state kept between calls, wrong return types, arguments passed in the wrong
slot, and two mistakes at once.
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
SILENT_DOWNCAST = "https://github.com/xarray-contrib/xarray-spatial/issues/2769"
TRANSPOSE_INPLACE = "https://github.com/flairNLP/flair/pull/1047"
HEADS_BEFORE_BATCH = "https://github.com/gazelle93/Transformer-Various-Positional-Encoding/issues/1"
FUSED_IN_PROJ = "https://github.com/facebookresearch/fairseq/issues/1320"
CACHED_CAUSAL_MASK = "https://github.com/huggingface/transformers/issues/28215"
LN_WRONG_AXIS = "https://github.com/GokuMohandas/fast-weights/issues/9"
FFN_NO_D_FF = "https://github.com/brightmart/text_classification/pull/86"
PRE_NORM_ANNOTATED = "https://github.com/harvardnlp/annotated-transformer/issues/92"
MASKS_NOT_PASSED = "https://github.com/pytorch/tutorials/issues/719"
TGT_MASK_OPTIONAL = "https://github.com/pytorch/pytorch/issues/31567"
LAYER_RETURNS_ATTN = "https://github.com/facebookresearch/fairseq/pull/1532"


_c = held_out_authored("blind8d")


BLIND8D: list[Case] = [
    # ------------------------------------------------------------------ 05 multi-head attention
    _c(
        "split-casts-to-float32",
        L05,
        "split_heads",
        "casts x to float32 (x.float()) before the reshape, so a float64 input comes back "
        "float32: the layout is right, the dtype (and precision) is not kept.",
        (r"float32", r"dtype", r"\.float\(\)", r"precision"),
        (r"transpos", r"interleav", r"(heads?|positions?) (are )?mixed"),
        edits=[
            (
                "batch, length, d_model = x.shape",
                "x = x.float()\n    batch, length, d_model = x.shape",
            )
        ],
        source=SILENT_DOWNCAST,
    ),
    _c(
        "merge-transpose-in-place",
        L05,
        "merge_heads",
        "swaps the axes with the in-place x.transpose_(1, 2), so the result is right but "
        "the caller's tensor is left transposed (its shape changed) after the call.",
        (
            r"in[- ]place",
            r"transpose_",
            r"(modif|chang|alter)\w*.{0,40}(input|argument|caller|x\b)",
            r"(input|argument|caller'?s?).{0,40}(modif|chang|alter)",
        ),
        (r"without (a |the )?transpos", r"contiguous", r"\.view"),
        edits=[
            (
                "x.transpose(1, 2).reshape(",
                "x.transpose_(1, 2).reshape(",
            )
        ],
        source=TRANSPOSE_INPLACE,
    ),
    _c(
        "merge-unpacks-heads-first",
        L05,
        "merge_heads",
        "unpacks x.shape as (num_heads, batch, len, d_head), heads before the batch, and "
        "permutes (1, 2, 0, 3) accordingly, so the batch and head axes are exchanged: the "
        "shape is right only when batch == num_heads, and then the values are not.",
        (
            r"(batch|sequence).{0,60}(head|axis 1)s?.{0,40}(swap|exchang|confus|mix)",
            r"(swap|exchang|confus|mix)\w*.{0,60}batch.{0,40}head",
            r"(swap|exchang|confus|mix)\w*.{0,60}head.{0,40}batch",
            r"\(num_heads, batch",
            r"head axis (first|before the batch)",
        ),
        (r"contiguous", r"\.view", r"cat\w* along"),
        code="def merge_heads(x):\n"
        "    num_heads, batch, length, d_head = x.shape\n"
        "    return x.permute(1, 2, 0, 3).reshape(batch, length, num_heads * d_head)\n",
        source=HEADS_BEFORE_BATCH,
    ),
    _c(
        "mha-fused-qkv-projection",
        L05,
        "MultiHeadAttention",
        "builds one fused nn.Linear(d_model, 3 * d_model) for the queries, keys and values "
        "(as fairseq's in_proj or nanoGPT's c_attn) and slices its weight per input, so the "
        "module has no w_q, w_k, w_v layers (state-dict keys w_q.weight, ... missing), "
        "which the contract requires.",
        (
            r"w_q",
            r"w_k",
            r"w_v",
            r"fused",
            r"qkv",
            r"state[- ]dict",
            r"missing .{0,30}(keys?|layers?|attributes?)",
        ),
        (r"mask", r"scal", r"dropout"),
        code="import torch.nn.functional as F\n\n"
        "class MultiHeadAttention(nn.Module):\n"
        "    def __init__(self, d_model, num_heads, dropout=0.0):\n"
        "        super().__init__()\n"
        "        self.d_model, self.num_heads = d_model, num_heads\n"
        "        self.qkv = nn.Linear(d_model, 3 * d_model)\n"
        "        self.w_o = nn.Linear(d_model, d_model)\n"
        "        self.dropout = nn.Dropout(dropout)\n\n"
        "    def forward(self, query, key, value, mask=None):\n"
        "        weights_q, weights_k, weights_v = self.qkv.weight.chunk(3, dim=0)\n"
        "        bias_q, bias_k, bias_v = self.qkv.bias.chunk(3)\n"
        "        q = split_heads(F.linear(query, weights_q, bias_q), self.num_heads)\n"
        "        k = split_heads(F.linear(key, weights_k, bias_k), self.num_heads)\n"
        "        v = split_heads(F.linear(value, weights_v, bias_v), self.num_heads)\n"
        "        heads, weights = scaled_dot_product_attention(q, k, v, mask)\n"
        "        if self.training and self.dropout.p > 0:\n"
        "            heads = self.dropout(weights) @ v\n"
        "        return self.w_o(merge_heads(heads)), weights\n",
        source=FUSED_IN_PROJ,
    ),
    _c(
        "mha-keys-values-cached-first-call",
        L05,
        "MultiHeadAttention",
        "keeps the projected keys and values of the first call on the module (a cache "
        "written too early) and reuses them on every later call, so a second call with "
        "another key/value input attends over the first call's keys and values.",
        (
            r"(first|earlier|previous|former) call",
            r"second call",
            r"between calls|across calls|from one call to the next",
            r"\bcach",
            r"stale|kept on the module|stored on (self|the module)|state",
        ),
        (r"\bmask", r"scal(e|ing)", r"w_k\b.{0,40}(instead|for the values)"),
        code="class MultiHeadAttention(nn.Module):\n"
        "    def __init__(self, d_model, num_heads, dropout=0.0):\n"
        "        super().__init__()\n"
        "        self.d_model, self.num_heads = d_model, num_heads\n"
        "        self.w_q = nn.Linear(d_model, d_model)\n"
        "        self.w_k = nn.Linear(d_model, d_model)\n"
        "        self.w_v = nn.Linear(d_model, d_model)\n"
        "        self.w_o = nn.Linear(d_model, d_model)\n"
        "        self.dropout = nn.Dropout(dropout)\n"
        "        self.cache = None\n\n"
        "    def forward(self, query, key, value, mask=None):\n"
        "        q = split_heads(self.w_q(query), self.num_heads)\n"
        "        if self.cache is None:\n"
        "            self.cache = (\n"
        "                split_heads(self.w_k(key), self.num_heads),\n"
        "                split_heads(self.w_v(value), self.num_heads),\n"
        "            )\n"
        "        k, v = self.cache\n"
        "        heads, weights = scaled_dot_product_attention(q, k, v, mask)\n"
        "        if self.training and self.dropout.p > 0:\n"
        "            heads = self.dropout(weights) @ v\n"
        "        return self.w_o(merge_heads(heads)), weights\n",
    ),
    # ------------------------------------------------------------------ 06 masking
    _c(
        "padmask-greater-than-pad-id",
        L06,
        "padding_mask",
        "marks real tokens with ids > pad_id instead of ids != pad_id, which works while "
        "pad_id is the smallest id (0) but marks every token whose id is below pad_id as a "
        "pad.",
        (
            r"!=|not equal|differ(s|ent)? from pad_id",
            r"greater|>\s*pad_id|below pad_id|smaller than pad_id|less than pad_id",
            r"ids? (below|under|smaller|less)",
        ),
        (r"invert|polarity|True marks the pad", r"hard-?coded|compares with 0"),
        edits=[("(ids != pad_id)", "(ids > pad_id)")],
    ),
    _c(
        "lookahead-sliced-from-cached-triangle",
        L06,
        "look_ahead_mask",
        "slices a triangle precomputed once for a maximum size of 8 (as a registered "
        "causal buffer of block_size), so any size above 8 gets an (8, 8) mask instead of "
        "(size, size).",
        (
            r"\(8, 8\)",
            r"(maximum|max|fixed|precomputed|cached) (size|length)",
            r"(larger|longer|above|more than|greater than) (8|eight)",
            r"block_size",
        ),
        (r"diagonal", r"triu|upper triangle", r"float"),
        code="_CAUSAL = torch.tril(torch.ones(8, 8, dtype=torch.bool))\n\n"
        "def look_ahead_mask(size):\n"
        "    return _CAUSAL[:size, :size]\n",
        source=CACHED_CAUSAL_MASK,
    ),
    _c(
        "decmask-multiplied-by-float-triangle",
        L06,
        "decoder_self_attention_mask",
        "combines the padding mask with a float triangle by multiplication (pad * "
        "tril(ones)), which runs and has the right entries but returns a float32 mask, not "
        "a bool one.",
        (r"float", r"dtype", r"\bbool"),
        (r"pad\w* .{0,30}quer", r"diagonal", r"\bor\b|\|"),
        code="def decoder_self_attention_mask(tgt_ids, pad_id):\n"
        "    causal = torch.tril(torch.ones(tgt_ids.shape[1], tgt_ids.shape[1]))\n"
        "    return padding_mask(tgt_ids, pad_id) * causal\n",
    ),
    _c(
        "decmask-no-diagonal-and-pad-rows",
        L06,
        "decoder_self_attention_mask",
        "two mistakes at once: the causal part excludes the diagonal (tril(..., "
        "diagonal=-1), no position sees itself) and the padding is applied to the query "
        "rows as well as the keys.",
        (
            r"(?s)(diagonal|itself|j <= i|j < i).*(quer|rows?\b)",
            r"(?s)(quer|rows?\b).*(diagonal|itself|j <= i|j < i)",
        ),
        (r"\bor\b|\|", r"float", r"batch size"),
        code="def decoder_self_attention_mask(tgt_ids, pad_id):\n"
        "    size = tgt_ids.shape[1]\n"
        "    keys = padding_mask(tgt_ids, pad_id)\n"
        "    causal = torch.tril(torch.ones(size, size, dtype=torch.bool), diagonal=-1)\n"
        "    return keys & keys.transpose(-1, -2) & causal\n",
    ),
    # ------------------------------------------------------------------ 07 encoder
    _c(
        "ln-stats-over-dim-1",
        L07,
        "LayerNorm",
        "takes the mean and the variance over dim=1, which is the feature axis of a 2-D "
        "(tokens, d_model) input but the position axis of a (batch, len, d_model) one, so "
        "3-D inputs are normalised over the positions.",
        (
            r"dim=1|dim 1|axis 1",
            r"(over|across) (the )?(positions|sequence|len\b|tokens of)",
            r"last (axis|dim)|dim=-1|feature (axis|dim)",
        ),
        (r"\beps\b", r"unbiased|n - 1|bessel", r"batch axis"),
        edits=[
            ("x.mean(dim=-1, keepdim=True)", "x.mean(dim=1, keepdim=True)"),
            ("x.var(dim=-1, keepdim=True", "x.var(dim=1, keepdim=True"),
        ],
        source=LN_WRONG_AXIS,
    ),
    _c(
        "ln-centres-input-in-place",
        L07,
        "LayerNorm",
        "centres the input in place (x -= mean), so the output is right but the caller's "
        "tensor is overwritten by its centred values.",
        (
            r"in[- ]place",
            r"-=|sub_",
            r"(modif|chang|overwr|alter)\w*.{0,40}(input|argument|caller|x\b)",
            r"(input|argument|caller'?s?).{0,40}(modif|chang|overwr|alter)",
        ),
        (r"\beps\b", r"unbiased", r"axis|dim="),
        code="class LayerNorm(nn.Module):\n"
        "    def __init__(self, d_model, eps=1e-5):\n"
        "        super().__init__()\n"
        "        self.eps = eps\n"
        "        self.weight = nn.Parameter(torch.ones(d_model))\n"
        "        self.bias = nn.Parameter(torch.zeros(d_model))\n\n"
        "    def forward(self, x):\n"
        "        x -= x.mean(dim=-1, keepdim=True)\n"
        "        variance = (x * x).mean(dim=-1, keepdim=True)\n"
        "        return self.weight * x / torch.sqrt(variance + self.eps) + self.bias\n",
    ),
    _c(
        "ffn-hidden-width-d-model",
        L07,
        "PositionwiseFeedForward",
        "ignores d_ff: both layers are Linear(d_model, d_model), so the hidden layer is "
        "d_model wide instead of d_ff.",
        (r"d_ff", r"hidden (size|width|layer|dim)", r"inner", r"\(d_model, d_model\)"),
        (r"relu|gelu", r"dropout", r"bias"),
        edits=[
            ("nn.Linear(d_model, d_ff)", "nn.Linear(d_model, d_model)"),
            ("nn.Linear(d_ff, d_model)", "nn.Linear(d_model, d_model)"),
        ],
        source=FFN_NO_D_FF,
    ),
    _c(
        "ffn-dropout-on-input",
        L07,
        "PositionwiseFeedForward",
        "applies the dropout to the input x before w_1 instead of to the hidden ReLU "
        "activations (only training mode shows it).",
        (
            r"dropout.{0,80}(input|before w_1|on x\b|to x\b)",
            r"(input|x\b).{0,40}dropout",
            r"dropout.{0,80}(hidden|relu|activations|between)",
        ),
        (r"after w_2|on the output|to the output", r"relu.{0,30}(missing|after)", r"d_ff"),
        code="class PositionwiseFeedForward(nn.Module):\n"
        "    def __init__(self, d_model, d_ff, dropout=0.0):\n"
        "        super().__init__()\n"
        "        self.w_1 = nn.Linear(d_model, d_ff)\n"
        "        self.w_2 = nn.Linear(d_ff, d_model)\n"
        "        self.dropout = nn.Dropout(dropout)\n\n"
        "    def forward(self, x):\n"
        "        return self.w_2(torch.relu(self.w_1(self.dropout(x))))\n",
    ),
    _c(
        "enc-layer-always-pre-ln",
        L07,
        "EncoderLayer",
        "always uses the pre-LN form x + dropout(sublayer(norm(x))) (the annotated "
        "Transformer's SublayerConnection), ignoring norm_first=False, the paper's post-LN.",
        (
            r"pre-?LN|pre-?norm|norm_first|post-?LN|post-?norm",
            r"norm\w*.{0,40}(before|first)",
            r"(after|around) the residual",
        ),
        (r"mask", r"residual .{0,20}(missing|dropped|no\b)", r"tuple|\[0\]"),
        edits=[
            (
                "if self.norm_first:",
                "if True:",
            )
        ],
        source=PRE_NORM_ANNOTATED,
    ),
    _c(
        "enc-layer-norms-built-in-forward",
        L07,
        "EncoderLayer",
        "creates its two LayerNorms inside forward (LayerNorm(d_model)(x) at every call) "
        "instead of as norm1/norm2 in __init__, so they are fresh every call, never "
        "registered and never trained (the output of a fresh layer is right).",
        (
            r"norm1|norm2",
            r"regist",
            r"state[- ]dict|parameters\(\)",
            r"(inside|in) forward|every call|each call",
            r"never (trained|updated|learn)",
        ),
        (r"mask", r"pre-?LN|norm_first", r"residual"),
        code="class EncoderLayer(nn.Module):\n"
        "    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):\n"
        "        super().__init__()\n"
        "        self.d_model, self.norm_first = d_model, norm_first\n"
        "        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)\n"
        "        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)\n"
        "        self.dropout = nn.Dropout(dropout)\n\n"
        "    def forward(self, x, mask=None):\n"
        "        norm1, norm2 = LayerNorm(self.d_model), LayerNorm(self.d_model)\n"
        "        if self.norm_first:\n"
        "            h = norm1(x)\n"
        "            x = x + self.dropout(self.self_attn(h, h, h, mask)[0])\n"
        "            return x + self.dropout(self.feed_forward(norm2(x)))\n"
        "        x = norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))\n"
        "        return norm2(x + self.dropout(self.feed_forward(x)))\n",
    ),
    _c(
        "encoder-layers-without-mask",
        L07,
        "Encoder",
        "calls every layer without the mask (layer(x)), so the whole stack attends to the "
        "source padding.",
        (
            r"mask.{0,60}(not passed|never|without|dropped|ignored|missing|passed on)",
            r"without (the |a )?mask",
            r"(attend|attends|attention).{0,40}pad",
        ),
        (r"chain", r"final norm", r"shar\w* (weights|layer)"),
        edits=[("x = layer(x, mask)", "x = layer(x)")],
        source=MASKS_NOT_PASSED,
    ),
    _c(
        "encoder-norm-first-in-dropout-slot",
        L07,
        "Encoder",
        "builds the layers as EncoderLayer(d_model, num_heads, d_ff, norm_first): "
        "norm_first lands in the dropout slot, so a pre-LN stack holds post-LN layers "
        "(with dropout p = 1.0 in training).",
        (
            r"positional|keyword|argument .{0,40}(order|slot|position)",
            r"dropout.{0,60}(True|1\.0|norm_first)",
            r"norm_first.{0,80}(not passed|dropout|layers|each layer|EncoderLayer)",
            r"(layers|each layer).{0,60}(post-?LN|norm_first)",
        ),
        (r"final norm", r"chain", r"mask"),
        edits=[
            (
                "EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first)",
                "EncoderLayer(d_model, num_heads, d_ff, norm_first)",
            )
        ],
    ),
    # ------------------------------------------------------------------ 08 decoder
    _c(
        "decoder-layers-without-tgt-mask",
        L08,
        "Decoder",
        "calls every layer as layer(x, memory, src_mask), leaving tgt_mask out, so the "
        "decoder's self-attention sees future positions (and target pads).",
        (
            r"tgt_mask.{0,60}(not passed|never|without|dropped|ignored|missing)",
            r"without (the )?(tgt_mask|target mask|look-?ahead)",
            r"look-?ahead|future|causal",
        ),
        (r"swap|exchang", r"src_mask.{0,30}instead", r"chain"),
        edits=[
            (
                "x = layer(x, memory, src_mask, tgt_mask)",
                "x = layer(x, memory, src_mask)",
            )
        ],
        source=TGT_MASK_OPTIONAL,
    ),
    _c(
        "decoder-discards-layer-outputs",
        L08,
        "Decoder",
        "calls each layer without assigning its result (layer(x, memory, ...) instead of "
        "x = layer(...)), so the layers' outputs are thrown away and the stack returns its "
        "input (through the final norm when there is one).",
        (
            r"discard|thrown away|not (assigned|kept|used)",
            r"x = layer",
            r"(returns?|output is) (its |the stack's |the )?input",
            r"(unchanged|identity|no effect)",
        ),
        (r"tgt_mask|src_mask|swap", r"final norm", r"shar\w* (weights|layer)"),
        edits=[
            (
                "x = layer(x, memory, src_mask, tgt_mask)",
                "layer(x, memory, src_mask, tgt_mask)",
            )
        ],
    ),
    _c(
        "declayer-returns-cross-weights",
        L08,
        "DecoderLayer",
        "returns (x, cross_attention_weights), a tuple kept for visualisation, instead "
        "of the tensor x alone.",
        (r"tuple", r"weights", r"(one|a single|single) tensor", r"not a tensor"),
        (r"mask", r"residual", r"norm"),
        code="class DecoderLayer(nn.Module):\n"
        "    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):\n"
        "        super().__init__()\n"
        "        self.norm_first = norm_first\n"
        "        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)\n"
        "        self.cross_attn = MultiHeadAttention(d_model, num_heads, dropout)\n"
        "        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)\n"
        "        self.norm1 = LayerNorm(d_model)\n"
        "        self.norm2 = LayerNorm(d_model)\n"
        "        self.norm3 = LayerNorm(d_model)\n"
        "        self.dropout = nn.Dropout(dropout)\n\n"
        "    def forward(self, x, memory, src_mask=None, tgt_mask=None):\n"
        "        if self.norm_first:\n"
        "            h = self.norm1(x)\n"
        "            x = x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])\n"
        "            out, weights = self.cross_attn(self.norm2(x), memory, memory, src_mask)\n"
        "            x = x + self.dropout(out)\n"
        "            return x + self.dropout(self.feed_forward(self.norm3(x))), weights\n"
        "        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))\n"
        "        out, weights = self.cross_attn(x, memory, memory, src_mask)\n"
        "        x = self.norm2(x + self.dropout(out))\n"
        "        return self.norm3(x + self.dropout(self.feed_forward(x))), weights\n",
        source=LAYER_RETURNS_ATTN,
    ),
    _c(
        "declayer-both-masks-swapped",
        L08,
        "DecoderLayer",
        "two mistakes at once (one swap): the self-attention gets src_mask and the "
        "cross-attention gets tgt_mask, in both the post-LN and the pre-LN paths.",
        (
            r"swap|exchang|other way (a)?round|the wrong way|reversed",
            r"(?s)self-?attention.{0,120}src_mask.{0,300}cross-?attention.{0,120}tgt_mask",
            r"(?s)cross-?attention.{0,120}tgt_mask.{0,300}self-?attention.{0,120}src_mask",
        ),
        (r"residual", r"norm[123]", r"memory .{0,30}(query|queries)"),
        edits=[
            ("self.self_attn(h, h, h, tgt_mask)", "self.self_attn(h, h, h, src_mask)"),
            (
                "self.cross_attn(h, memory, memory, src_mask)",
                "self.cross_attn(h, memory, memory, tgt_mask)",
            ),
            ("self.self_attn(x, x, x, tgt_mask)", "self.self_attn(x, x, x, src_mask)"),
            (
                "self.cross_attn(x, memory, memory, src_mask)",
                "self.cross_attn(x, memory, memory, tgt_mask)",
            ),
        ],
    ),
    _c(
        "declayer-pre-ln-ffn-no-residual",
        L08,
        "DecoderLayer",
        "the pre-LN path returns dropout(feed_forward(norm3(x))) without adding x: the "
        "feed-forward sub-layer has no residual connection (post-LN is right).",
        (
            r"residual.{0,80}(feed-?forward|ffn|third|last)",
            r"(feed-?forward|ffn|third|last).{0,80}residual",
            r"x \+ .{0,30}feed_forward",
        ),
        (r"cross", r"mask", r"memory"),
        edits=[
            (
                "return x + self.dropout(self.feed_forward(self.norm3(x)))",
                "return self.dropout(self.feed_forward(self.norm3(x)))",
            )
        ],
    ),
]
