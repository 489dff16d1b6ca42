"""Blind round 4, helper b4b: held-out wrong answers for lessons 05-08 (issue 22).

Written blind: without reading the checks of lessons 05-08 or any message they print, from
the reference solutions alone. Causes, sources and judging patterns were written before any
run. The code is our own (edits of the reference); where ``source`` is a URL, the mistake is
the one that report describes, transposed to this course's exercise.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case

AUTHOR = "author: written for this benchmark, no public report cited"
L05, L06, L07, L08 = "05_multi_head_attention", "06_masking", "07_encoder", "08_decoder"

HEADS_BEFORE_BATCH = "https://github.com/lsdefine/attention-is-all-you-need-keras/issues/36"
HEADS_INTO_BATCH = "https://github.com/reczoo/FuxiCTR/issues/30"
MHA_VIEW_NO_TRANSPOSE = "https://github.com/harvardnlp/annotated-transformer/issues/17"
MASK_PAD_ROWS = "https://github.com/harvardnlp/annotated-transformer/issues/137"
MASK_ADDITIVE = "https://github.com/andrewpeng02/transformer-translation/issues/7"
LN_STD_EPS = "https://github.com/codertimo/BERT-pytorch/issues/30"
LN_NO_SQRT = "https://github.com/pbcquoc/transformer/issues/2"
NORM_ON_SUBLAYER = "https://github.com/harvardnlp/annotated-transformer/issues/110"
DROPOUT_AFTER_NORM = "https://github.com/hyunwoongko/transformer/issues/8"
RESIDUAL_AFTER_NORM = "https://github.com/SHI-Labs/Compact-Transformers/issues/25"
PRENORM_RESIDUAL = "https://github.com/Howuhh/faster-trajectory-transformer/issues/3"
DECODER_NO_SRC_MASK = "https://github.com/keras-team/keras-io/pull/1046"
ONE_LAYER_REPEATED = "https://github.com/espnet/espnet/issues/1278"
PLAIN_LIST = "https://www.engineermaxxing.com/micro/lessons/pytorch-internals.html"

BLIND4B: list[Case] = [
    # ------------------------------------------------------------ 05 multi-head attention
    Case(
        "blind4b-split-heads-before-batch",
        L05,
        "split_heads",
        "permutes to (num_heads, batch, len, d_head) (permute(2, 0, 1, 3)): the head axis "
        "is put before the batch axis instead of after it.",
        HEADS_BEFORE_BATCH,
        (
            r"permute\(2, ?0, ?1, ?3\)",
            r"(head|num_heads).{0,40}(before|ahead of|in front of).{0,20}batch",
            r"batch.{0,40}(axis 1|second|after)",
            r"\(num_heads, batch",
        ),
        (r"no transpose|without (a )?transpose|transpose is missing",),
        edits=((".transpose(1, 2)", ".permute(2, 0, 1, 3)"),),
        heldout=True,
    ),
    Case(
        "blind4b-split-heads-folded-into-batch",
        L05,
        "split_heads",
        "reshapes to (batch * num_heads, len, d_head), folding the heads into the batch "
        "axis (3 axes, no transpose) instead of (batch, num_heads, len, d_head).",
        HEADS_INTO_BATCH,
        (
            r"batch ?\* ?num_heads",
            r"(3|three) axes|(4|four) axes|4-d|ndim|number of (axes|dimensions)",
            r"\(batch, num_heads, len, d_head\)",
        ),
        (r"dtype", r"modif"),
        edits=(
            (
                "return x.reshape(batch, length, num_heads, d_model // num_heads).transpose(1, 2)",
                "return x.reshape(batch * num_heads, length, d_model // num_heads)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4b-merge-head-axis-last",
        L05,
        "merge_heads",
        "permutes to (batch, len, d_head, num_heads) before the reshape, so the heads' "
        "features come out interleaved (feature j of every head together) instead of head "
        "0's d_head features first.",
        AUTHOR,
        (
            r"interleav",
            r"permute\(0, ?2, ?3, ?1\)",
            r"(d_head|num_heads).{0,60}(order|swapped|last)",
            r"head 0'?s? .{0,40}first",
        ),
        (r"no transpose|without (a )?transpose|plain reshape",),
        edits=(
            (
                "return x.transpose(1, 2).reshape(batch, length, num_heads * d_head)",
                "return x.permute(0, 2, 3, 1).reshape(batch, length, num_heads * d_head)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4b-mha-inline-split-no-transpose",
        L05,
        "MultiHeadAttention",
        "splits q, k, v inside forward with a reshape straight to (batch, num_heads, len, "
        "d_head), without going through (batch, len, num_heads, d_head) and a transpose "
        "(split_heads not used), so each head mixes tokens.",
        MHA_VIEW_NO_TRANSPOSE,
        (
            r"transpose",
            r"split_heads",
            r"heads? (are |were )?(split|cut)",
            r"reshape.{0,60}(without|no|instead)",
        ),
        (r"w_o|output projection", r"scal(e|ing)", r"mask"),
        edits=(
            (
                "q = split_heads(self.w_q(query), self.num_heads)",
                "d_head = self.d_model // self.num_heads\n"
                "        q = self.w_q(query).reshape(query.shape[0], self.num_heads, -1, d_head)",
            ),
            (
                "k = split_heads(self.w_k(key), self.num_heads)",
                "k = self.w_k(key).reshape(key.shape[0], self.num_heads, -1, d_head)",
            ),
            (
                "v = split_heads(self.w_v(value), self.num_heads)",
                "v = self.w_v(value).reshape(value.shape[0], self.num_heads, -1, d_head)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4b-mha-mask-inverted-torch-convention",
        L05,
        "MultiHeadAttention",
        "passes ~mask to attention (PyTorch's True = blocked convention), so it attends "
        "exactly where it should not.",
        AUTHOR,
        (
            r"invert",
            r"~mask",
            r"opposite",
            r"True\W+(=|means) (blocked|may attend)",
            r"polarity",
        ),
        (r"w_q|w_k|w_v|w_o", r"scal(e|ing)", r"transpose"),
        edits=(
            (
                "heads, weights = scaled_dot_product_attention(q, k, v, mask)",
                "heads, weights = scaled_dot_product_attention(\n"
                "            q, k, v, None if mask is None else ~mask\n"
                "        )",
            ),
        ),
        heldout=True,
    ),
    # ------------------------------------------------------------------------ 06 masking
    Case(
        "blind4b-padmask-leading-axes",
        L06,
        "padding_mask",
        "adds the two new axes in front ([None, None]), giving (1, 1, batch, len) instead "
        "of (batch, 1, 1, len).",
        AUTHOR,
        (
            r"\[None, None\]",
            r"\(1, 1, \d+, \d+\)",
            r"batch.{0,40}(axis|first|position|third|2)",
            r"\[:, None, None, :\]",
        ),
        (r"invert|opposite|pad_id|== ?pad",),
        edits=(("return (ids != pad_id)[:, None, None, :]", "return (ids != pad_id)[None, None]"),),
        heldout=True,
    ),
    Case(
        "blind4b-lookahead-row-vector",
        L06,
        "look_ahead_mask",
        "compares arange(size)[None, :] with arange(size) without a column axis, so the "
        "result is one (1, size) row of True instead of a (size, size) lower triangle.",
        AUTHOR,
        (
            r"\(1, \d+\)",
            r"\[:, None\]|column",
            r"broadcast",
            r"one row|single row|a row",
        ),
        (r"diagonal", r"transpos", r"dtype|float"),
        edits=(
            (
                "return torch.tril(torch.ones(size, size, dtype=torch.bool))",
                "positions = torch.arange(size)\n    return positions[None, :] <= positions",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4b-lookahead-additive-inf",
        L06,
        "look_ahead_mask",
        "returns PyTorch's additive float mask (0 on and below the diagonal, -inf above) "
        "instead of a bool mask with True = may attend.",
        MASK_ADDITIVE,
        (r"additive", r"-inf", r"float", r"bool", r"dtype"),
        (r"diagonal", r"transpos", r"leading"),
        edits=(
            (
                "return torch.tril(torch.ones(size, size, dtype=torch.bool))",
                "return torch.triu(torch.full((size, size), float('-inf')), diagonal=1)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4b-decmask-pad-rows-too",
        L06,
        "decoder_self_attention_mask",
        "applies the padding on the query axis as well as on the keys, so padded query rows "
        "become fully blocked, where only padded keys should be.",
        MASK_PAD_ROWS,
        (
            r"quer(y|ies)",
            r"rows?.{0,60}(pad|all False|fully (masked|blocked)|no allowed)",
            r"keys? only|only (the )?keys",
        ),
        (r"look-?ahead|diagonal|future", r"\bor\b|\|"),
        edits=(
            (
                "return padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[1])",
                "real = tgt_ids != pad_id\n"
                "    both = real[:, None, :, None] & real[:, None, None, :]\n"
                "    return both & look_ahead_mask(tgt_ids.shape[1])",
            ),
        ),
        heldout=True,
    ),
    # ------------------------------------------------------------------------ 07 encoder
    Case(
        "blind4b-ln-std-unbiased-eps-outside",
        L07,
        "LayerNorm",
        "divides by x.std(-1) + eps: the unbiased (N-1) standard deviation with eps added "
        "outside the square root (two mistakes at once).",
        LN_STD_EPS,
        (
            r"(unbiased|N ?- ?1|bessel).{0,300}(eps|epsilon)",
            r"(eps|epsilon).{0,300}(unbiased|N ?- ?1|bessel)",
            r"\.std\(",
        ),
        (r"gain|bias|weight|axis|dim=",),
        edits=(
            (
                "variance = x.var(dim=-1, keepdim=True, unbiased=False)",
                "std = x.std(dim=-1, keepdim=True)",
            ),
            (
                "/ torch.sqrt(variance + self.eps)",
                "/ (std + self.eps)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4b-ln-divides-by-variance",
        L07,
        "LayerNorm",
        "divides by variance + eps instead of its square root (no sqrt).",
        LN_NO_SQRT,
        (
            r"sqrt|square root",
            r"standard deviation",
            r"by the variance|variance instead",
        ),
        (r"unbiased|N ?- ?1", r"gain|bias", r"axis|dim="),
        edits=(("/ torch.sqrt(variance + self.eps)", "/ (variance + self.eps)"),),
        heldout=True,
    ),
    Case(
        "blind4b-enc-norm-on-sublayer-output",
        L07,
        "EncoderLayer",
        "post-LN path normalises each sublayer's output before the residual "
        "(x + dropout(norm(sublayer(x)))) instead of normalising the sum norm(x + ...).",
        NORM_ON_SUBLAYER,
        (
            r"norm\w*\(?.{0,40}(sum|x \+)",
            r"(normali[sz]es?|norm) .{0,40}(the )?(sublayer|attention|feed-forward)('s)? output",
            r"(before|instead of after) the residual",
            r"residual.{0,60}(outside|after) the norm",
        ),
        (r"pre-?LN|norm_first=True", r"mask", r"dropout"),
        edits=(
            (
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))",
                "x = x + self.dropout(self.norm1(self.self_attn(x, x, x, mask)[0]))",
            ),
            (
                "return self.norm2(x + self.dropout(self.feed_forward(x)))",
                "return x + self.dropout(self.norm2(self.feed_forward(x)))",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4b-enc-dropout-after-norm",
        L07,
        "EncoderLayer",
        "post-LN path applies dropout after the residual and the norm "
        "(dropout(norm(x + sublayer(x)))) instead of to the sublayer's output before the "
        "residual.",
        DROPOUT_AFTER_NORM,
        (
            r"dropout.{0,80}(after|outside|on) (the )?(norm|residual|sum)",
            r"dropout.{0,80}(sublayer|attention|feed-forward)('s)? output",
            r"dropout.{0,40}before the residual",
        ),
        (r"pre-?LN|norm_first=True", r"mask", r"eval"),
        edits=(
            (
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))",
                "x = self.dropout(self.norm1(x + self.self_attn(x, x, x, mask)[0]))",
            ),
            (
                "return self.norm2(x + self.dropout(self.feed_forward(x)))",
                "return self.dropout(self.norm2(x + self.feed_forward(x)))",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4b-enc-prenorm-ffn-residual-normed",
        L07,
        "EncoderLayer",
        "pre-LN path overwrites x with norm2(x) before the feed-forward sublayer, so its "
        "residual adds the normalised x instead of x itself.",
        RESIDUAL_AFTER_NORM,
        (
            r"residual.{0,80}(normali[sz]ed|norm2)",
            r"(normali[sz]ed|norm2\(x\)).{0,80}residual",
            r"feed-forward.{0,60}residual",
        ),
        (r"attention residual|self-attention.{0,30}residual", r"post-?LN", r"mask"),
        edits=(
            (
                "return x + self.dropout(self.feed_forward(self.norm2(x)))",
                "x = self.norm2(x)\n            return x + self.dropout(self.feed_forward(x))",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4b-enc-return-in-loop",
        L07,
        "Encoder",
        "the return statement is indented inside the loop, so only layers[0] runs.",
        AUTHOR,
        (
            r"only (the )?first layer|only layers\[0\]|only one layer",
            r"return.{0,40}(inside|in) the loop",
            r"layers\[1\].{0,60}(never|not) (run|called)",
            r"stops? after (the )?first",
        ),
        (r"shared|same (layer|object)", r"final norm", r"chain|stack's input"),
        edits=(
            (
                "            x = layer(x, mask)  # (batch, len, d_model)\n"
                "        return x if self.norm is None else self.norm(x)",
                "            x = layer(x, mask)  # (batch, len, d_model)\n"
                "            return x if self.norm is None else self.norm(x)",
            ),
        ),
        heldout=True,
    ),
    # ------------------------------------------------------------------------ 08 decoder
    Case(
        "blind4b-dec-prenorm-cross-residual-normed",
        L08,
        "DecoderLayer",
        "pre-LN cross-attention sublayer adds its output to the normalised h = norm2(x) "
        "instead of to x (the residual carries the normalised stream).",
        PRENORM_RESIDUAL,
        (
            r"residual.{0,80}(normali[sz]ed|norm2|\bh\b)",
            r"(normali[sz]ed|norm2\(x\)).{0,80}residual",
            r"cross-attention.{0,60}residual",
        ),
        (r"memory", r"src_mask|tgt_mask", r"self-attention.{0,30}residual"),
        edits=(
            (
                "x = x + self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])",
                "x = h + self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4b-dec-cross-no-src-mask",
        L08,
        "DecoderLayer",
        "cross-attention is called without src_mask, so the decoder attends to the source's "
        "padding.",
        DECODER_NO_SRC_MASK,
        (
            r"src_mask",
            r"source.{0,30}(padding|mask)",
            r"cross-attention.{0,60}(mask|padding)",
        ),
        (r"tgt_mask|look-?ahead|future", r"memory.{0,40}(normali[sz]ed|norm)"),
        edits=(
            (
                "x = x + self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])",
                "x = x + self.dropout(self.cross_attn(h, memory, memory)[0])",
            ),
            (
                "x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))",
                "x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory)[0]))",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4b-dec-one-layer-applied-n-times",
        L08,
        "Decoder",
        "builds one DecoderLayer and applies it num_layers times in forward, so every layer "
        "shares its weights (and the state dict has no layers.N keys).",
        ONE_LAYER_REPEATED,
        (
            r"(same|one|single|shared?) (decoder ?)?(layer|object|module|instance|weights)",
            r"independent",
            r"layers\.\d|ModuleList",
        ),
        (r"final norm", r"not chained|stack's input", r"mask"),
        edits=(
            (
                "self.layers = nn.ModuleList(\n"
                "            [DecoderLayer(d_model, num_heads, d_ff, dropout, norm_first) "
                "for _ in range(num_layers)]\n"
                "        )",
                "self.layer = DecoderLayer(d_model, num_heads, d_ff, dropout, norm_first)\n"
                "        self.num_layers = num_layers",
            ),
            (
                "for layer in self.layers:\n            x = layer(x, memory, src_mask, tgt_mask)",
                "for _ in range(self.num_layers):\n"
                "            x = self.layer(x, memory, src_mask, tgt_mask)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4b-dec-plain-list",
        L08,
        "Decoder",
        "keeps the layers in a plain Python list instead of nn.ModuleList, so their "
        "parameters are not registered (not in parameters() or the state dict).",
        PLAIN_LIST,
        (r"ModuleList", r"plain (Python )?list", r"regist"),
        (r"final norm", r"chain", r"shared|same (layer|object)"),
        edits=(
            (
                "self.layers = nn.ModuleList(\n"
                "            [DecoderLayer(d_model, num_heads, d_ff, dropout, norm_first) "
                "for _ in range(num_layers)]\n"
                "        )",
                "self.layers = [\n"
                "            DecoderLayer(d_model, num_heads, d_ff, dropout, norm_first) "
                "for _ in range(num_layers)\n"
                "        ]",
            ),
        ),
        heldout=True,
    ),
]
