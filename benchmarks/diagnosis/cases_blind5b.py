"""Blind round 5, helper b5b: held-out wrong answers for lessons 05-08, written from the
reference solutions alone (no check module or message read), judging criteria fixed before
any run. Where ``source`` is a URL, the mistake is the one that thread reports, transposed to
this course's exercise (no code copied from it)."""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case

AUTHOR = "author: a plausible learner slip, written from the exercise's docstring"
L05, L06, L07, L08 = "05_multi_head_attention", "06_masking", "07_encoder", "08_decoder"

# Reports read for this round (search tool, corpus issues/pages).
ANNOTATED_VIEW_HEADS = "https://github.com/harvardnlp/annotated-transformer/issues/17"
VIEW_CONTIGUOUS = (
    "https://errorhandle.ai/reshaping-tensors-for-multi-head-attention-in-pytorch-view-vs-transpose"
)
MASK_HEAD_AXIS = "https://github.com/phlippe/uvadlc_notebooks/issues/67"
UINT8_MASK = "https://github.com/jiesutd/NCRFpp/issues/137"
QUERY_KEY_MASKING = "https://github.com/Kyubyong/transformer/issues/3"
FLOAT_SUBSEQUENT = "https://github.com/pytorch/pytorch/pull/92817"
NUMPY_SUBSEQUENT = "https://github.com/andrewpeng02/transformer-translation/issues/7"
PAD_ROWS_NAN = "https://github.com/pytorch/pytorch/issues/41508"
ANNOTATED_LAYERNORM = "https://github.com/harvardnlp/annotated-transformer/issues/122"
NORM_ON_SUBLAYER = "https://github.com/harvardnlp/annotated-transformer/issues/110"
LAYERS_IN_LIST = "https://github.com/maruya24/pytorch_robotics_transformer/issues/3"
CROSS_NO_PAD_MASK = "https://github.com/facebookresearch/fairseq/issues/318"

BLIND5B: list[Case] = [
    # ------------------------------------------------------------------ 05 multi-head attention
    Case(
        "blind5b-split-float-division",
        L05,
        "split_heads",
        "d_head is computed with true division (d_model / num_heads), a float, which reshape "
        "rejects.",
        AUTHOR,
        (r"//", r"integer division", r"float", r"d_model ?/ ?num_heads", r"must be an? int"),
        (r"transpose",),
        edits=(("d_model // num_heads", "d_model / num_heads"),),
        heldout=True,
    ),
    Case(
        "blind5b-split-view-heads-first",
        L05,
        "split_heads",
        "views the features straight into (batch, num_heads, len, d_head) with no transpose, so "
        "each head gets a block of consecutive numbers rather than its slice of every token.",
        ANNOTATED_VIEW_HEADS,
        (
            r"transpose",
            r"without (a |the )?(transpose|swap)",
            r"(view|reshape)d? (directly|straight)",
            r"(len|length) and num_heads",
        ),
        (r"contiguous", r"float|integer division"),
        code="def split_heads(x, num_heads):\n"
        "    batch, length, d_model = x.shape\n"
        "    return x.view(batch, num_heads, -1, d_model // num_heads)\n",
        heldout=True,
    ),
    Case(
        "blind5b-merge-view-not-contiguous",
        L05,
        "merge_heads",
        "calls .view on the transposed (non-contiguous) tensor, which raises; needs .reshape or "
        ".contiguous() first.",
        VIEW_CONTIGUOUS,
        (r"contiguous", r"\.view", r"use \.?reshape"),
        (r"(missing|no|without) (a |the )?transpose",),
        code="def merge_heads(x):\n"
        "    batch, num_heads, length, d_head = x.shape\n"
        "    return x.transpose(1, 2).view(batch, length, num_heads * d_head)\n",
        heldout=True,
    ),
    Case(
        "blind5b-mha-mask-extra-unsqueeze",
        L05,
        "MultiHeadAttention",
        "adds a heads axis to the mask (mask.unsqueeze(1)) although the mask it receives "
        "already broadcasts over the heads, so the mask has one axis too many.",
        MASK_HEAD_AXIS,
        (
            r"unsqueeze",
            r"(extra|additional|one more|too many|5|five)[- ]?(d\b|dim|axis|axes)",
            r"mask.{0,60}already (has|broadcasts)",
            r"mask.{0,40}(as (it is )?given|unchanged|as is)",
        ),
        (r"invert|polarity", r"scal(e|ing)"),
        edits=(
            (
                "        q = split_heads(self.w_q(query), self.num_heads)",
                "        if mask is not None:\n"
                "            mask = mask.unsqueeze(1)\n"
                "        q = split_heads(self.w_q(query), self.num_heads)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind5b-mha-d-head-as-num-heads",
        L05,
        "MultiHeadAttention",
        "passes d_head (d_model // num_heads) to split_heads where the number of heads is "
        "expected, so the model splits into d_head heads of width num_heads.",
        AUTHOR,
        (
            r"num_heads.{0,80}d_head",
            r"d_head.{0,80}num_heads",
            r"number of heads",
            r"wrong number of heads",
        ),
        (r"scal(e|ing)", r"w_o|output projection"),
        edits=(
            (
                "q = split_heads(self.w_q(query), self.num_heads)",
                "q = split_heads(self.w_q(query), self.d_model // self.num_heads)",
            ),
            (
                "k = split_heads(self.w_k(key), self.num_heads)",
                "k = split_heads(self.w_k(key), self.d_model // self.num_heads)",
            ),
            (
                "v = split_heads(self.w_v(value), self.num_heads)",
                "v = split_heads(self.w_v(value), self.d_model // self.num_heads)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind5b-mha-dropout-on-values",
        L05,
        "MultiHeadAttention",
        "in training, applies dropout to the values v instead of to the attention weights.",
        AUTHOR,
        (
            r"dropout.{0,80}(values|\bv\b)",
            r"dropout.{0,80}(on|to) the (attention )?weights",
            r"weights.{0,40}dropout",
        ),
        (r"w_o|output projection", r"mask"),
        edits=(("heads = self.dropout(weights) @ v", "heads = weights @ self.dropout(v)"),),
        heldout=True,
    ),
    # ------------------------------------------------------------------ 06 masking
    Case(
        "blind5b-padmask-uint8",
        L06,
        "padding_mask",
        "returns a uint8 (byte) mask, the old PyTorch convention, instead of a bool one.",
        UINT8_MASK,
        (r"bool", r"uint8|byte", r"dtype"),
        (r"invert|polarity", r"axis|shape"),
        edits=(
            (
                "return (ids != pad_id)[:, None, None, :]",
                "return (ids != pad_id).to(torch.uint8)[:, None, None, :]",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind5b-padmask-queries-and-keys",
        L06,
        "padding_mask",
        "masks pads as queries as well as keys, returning (batch, 1, len, len) whose pad rows "
        "are all False.",
        QUERY_KEY_MASKING,
        (
            r"quer(y|ies)",
            r"keys only|only the keys",
            r"\(batch, 1, 1, len\)",
            r"row",
            r"do not expand|expanded",
        ),
        (r"invert|polarity", r"pad_id.{0,30}(0|zero|hard)"),
        code="def padding_mask(ids, pad_id):\n"
        "    real = ids != pad_id\n"
        "    return (real[:, :, None] & real[:, None, :])[:, None]\n",
        heldout=True,
    ),
    Case(
        "blind5b-lookahead-float-neg-inf",
        L06,
        "look_ahead_mask",
        "returns PyTorch's additive float mask (0 where allowed, -inf above the diagonal) "
        "instead of the bool mask, True = may attend.",
        FLOAT_SUBSEQUENT,
        (r"bool", r"additive", r"-inf|float"),
        (r"diagonal", r"transpos"),
        code="def look_ahead_mask(size):\n"
        "    return torch.triu(torch.full((size, size), float('-inf')), diagonal=1)\n",
        heldout=True,
    ),
    Case(
        "blind5b-lookahead-numpy",
        L06,
        "look_ahead_mask",
        "builds the triangle with numpy (as the annotated Transformer's subsequent_mask) and "
        "returns the numpy array, not a torch tensor.",
        NUMPY_SUBSEQUENT,
        (r"numpy|ndarray", r"not a (torch )?tensor", r"torch\.Tensor", r"from_numpy"),
        (r"diagonal", r"polarity|invert"),
        code="import numpy as np\n\n"
        "def look_ahead_mask(size):\n"
        "    return np.tril(np.ones((size, size), dtype=bool))\n",
        heldout=True,
    ),
    Case(
        "blind5b-decmask-pad-queries-and-keys",
        L06,
        "decoder_self_attention_mask",
        "applies the padding to the queries as well as the keys, so pad query rows are fully "
        "masked (all False).",
        PAD_ROWS_NAN,
        (r"quer(y|ies)", r"keys only|only the keys|on the keys", r"row"),
        (r"look-?ahead.{0,40}(missing|absent|not applied)", r"\bor\b|\|"),
        code="def decoder_self_attention_mask(tgt_ids, pad_id):\n"
        "    keys = padding_mask(tgt_ids, pad_id)\n"
        "    return keys & keys.transpose(-1, -2) & look_ahead_mask(tgt_ids.shape[1])\n",
        heldout=True,
    ),
    Case(
        "blind5b-decmask-size-minus-one",
        L06,
        "decoder_self_attention_mask",
        "builds the look-ahead mask for tgt_ids.shape[1] - 1 positions (confusing it with the "
        "shifted decoder input), one too few, so it cannot combine with the padding mask.",
        AUTHOR,
        (
            r"len(gth)? ?- ?1",
            r"one (too )?(short|few|small)|one fewer",
            r"shape\[1\] ?- ?1",
            r"look_ahead_mask\(.{0,30}\).{0,60}(size|length)",
        ),
        (r"batch", r"quer(y|ies)"),
        edits=(("look_ahead_mask(tgt_ids.shape[1])", "look_ahead_mask(tgt_ids.shape[1] - 1)"),),
        heldout=True,
    ),
    # ------------------------------------------------------------------ 07 encoder
    Case(
        "blind5b-ln-annotated-std",
        L07,
        "LayerNorm",
        "the annotated Transformer's LayerNorm: divides by the unbiased standard deviation "
        "plus eps (two departures: Bessel's correction and eps outside the square root).",
        ANNOTATED_LAYERNORM,
        (
            r"(unbiased|bessel|n ?- ?1).{0,300}eps",
            r"eps.{0,300}(unbiased|bessel|n ?- ?1)",
            r"\.std\(",
            r"standard deviation.{0,80}(unbiased|eps)",
        ),
        (r"axis|dim=0|over the (batch|sequence)",),
        edits=(
            (
                "variance = x.var(dim=-1, keepdim=True, unbiased=False)  # (..., 1), biased",
                "std = x.std(dim=-1, keepdim=True)",
            ),
            (
                "/ torch.sqrt(variance + self.eps) + self.bias",
                "/ (std + self.eps) + self.bias",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind5b-ln-plain-tensors",
        L07,
        "LayerNorm",
        "weight and bias are plain tensors, not nn.Parameter, so they are not registered (no "
        "state-dict keys, never trained).",
        AUTHOR,
        (r"nn\.Parameter", r"not (a )?param", r"regist", r"state[- _]?dict"),
        (r"eps", r"unbiased"),
        edits=(
            (
                "self.weight = nn.Parameter(torch.ones(d_model))",
                "self.weight = torch.ones(d_model)",
            ),
            ("self.bias = nn.Parameter(torch.zeros(d_model))", "self.bias = torch.zeros(d_model)"),
        ),
        heldout=True,
    ),
    Case(
        "blind5b-enc-postln-norm-on-sublayer",
        L07,
        "EncoderLayer",
        "post-LN written as x + dropout(norm(sublayer(x))): the norm is applied to the "
        "sub-layer's output instead of to the residual sum.",
        NORM_ON_SUBLAYER,
        (
            r"norm.{0,80}(of|to|after) the (residual )?(sum|addition)",
            r"norm1\(x \+",
            r"(normali[sz]es?|norm\d?) .{0,40}sub-?layer'?s? output",
            r"after (the )?(residual|addition)",
        ),
        (r"pre-?ln|norm_first", r"mask"),
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
        "blind5b-enc-attn-tuple",
        L07,
        "EncoderLayer",
        "uses self_attn's return value as a tensor although MultiHeadAttention returns "
        "(output, weights): the [0] is missing.",
        AUTHOR,
        (r"tuple", r"\[0\]", r"\(output, weights\)", r"returns (a pair|two)"),
        (r"mask", r"norm"),
        edits=(
            (
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))",
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)))",
            ),
            (
                "x = x + self.dropout(self.self_attn(h, h, h, mask)[0])",
                "x = x + self.dropout(self.self_attn(h, h, h, mask))",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind5b-enc-final-norm-or",
        L07,
        "Encoder",
        "decides the final norm with `final_norm or norm_first`, so an explicit "
        "final_norm=False on a pre-LN stack still gets a final norm.",
        AUTHOR,
        (
            r"final_norm ?= ?False",
            r"final norm.{0,80}(should not|must not|not be|no final)",
            r"norm.{0,40}should be None",
        ),
        (r"chain", r"shared|same (layer|object)"),
        edits=(
            (
                "use_final_norm = norm_first if final_norm is None else final_norm",
                "use_final_norm = final_norm or norm_first",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind5b-enc-plain-list",
        L07,
        "Encoder",
        "keeps the layers in a plain Python list instead of nn.ModuleList, so their "
        "parameters are not registered.",
        LAYERS_IN_LIST,
        (r"ModuleList", r"regist", r"plain (python )?list", r"parameters.{0,40}(missing|not)"),
        (r"final norm", r"shared|same (layer|object)"),
        edits=(
            (
                "self.layers = nn.ModuleList(\n"
                "            [EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first) "
                "for _ in range(num_layers)]\n"
                "        )",
                "self.layers = [\n"
                "            EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first) "
                "for _ in range(num_layers)\n"
                "        ]",
            ),
        ),
        heldout=True,
    ),
    # ------------------------------------------------------------------ 08 decoder
    Case(
        "blind5b-dec-cross-no-src-mask",
        L08,
        "DecoderLayer",
        "the cross-attention is called without src_mask, so source padding is attended to.",
        CROSS_NO_PAD_MASK,
        (
            r"src_mask",
            r"source (padding )?mask",
            r"cross-?attention.{0,80}mask",
            r"mask.{0,80}cross-?attention",
        ),
        (r"tgt_mask.{0,60}(instead|cross)", r"memory.{0,40}(normali|norm)"),
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
        "blind5b-dec-cross-values-from-x",
        L08,
        "DecoderLayer",
        "the cross-attention takes its keys from memory but its values from the decoder "
        "input x instead of memory.",
        AUTHOR,
        (
            r"values?.{0,80}memory",
            r"memory.{0,80}values?",
            r"values?.{0,60}(decoder|x\b)",
        ),
        (r"quer(y|ies).{0,40}memory", r"src_mask|tgt_mask"),
        edits=(
            (
                "self.cross_attn(x, memory, memory, src_mask)[0]",
                "self.cross_attn(x, memory, x, src_mask)[0]",
            ),
            (
                "self.cross_attn(h, memory, memory, src_mask)[0]",
                "self.cross_attn(h, memory, h, src_mask)[0]",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind5b-dec-shared-norm1",
        L08,
        "DecoderLayer",
        "post-LN uses norm1 after all three sub-layers; norm2 and norm3 are never used.",
        AUTHOR,
        (
            r"norm1.{0,120}(three|every|all|each|cross|feed)",
            r"norm[23].{0,60}(never|not used|unused)",
            r"(same|one|shared?) (layer ?)?norm",
        ),
        (r"pre-?ln|norm_first", r"residual.{0,30}missing"),
        edits=(
            (
                "x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))",
                "x = self.norm1(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))",
            ),
            (
                "return self.norm3(x + self.dropout(self.feed_forward(x)))",
                "return self.norm1(x + self.dropout(self.feed_forward(x)))",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind5b-dec-layer-masks-torch-order",
        L08,
        "Decoder",
        "calls each layer with the masks in nn.TransformerDecoder's order (tgt_mask before "
        "the memory mask), so every layer gets src_mask and tgt_mask swapped.",
        AUTHOR,
        (
            r"src_mask.{0,80}tgt_mask",
            r"tgt_mask.{0,80}src_mask",
            r"swapped|order",
        ),
        (r"chain", r"final norm"),
        edits=(
            (
                "x = layer(x, memory, src_mask, tgt_mask)",
                "x = layer(x, memory, tgt_mask, src_mask)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind5b-dec-return-in-loop",
        L08,
        "Decoder",
        "the return statement sits inside the loop, so only the first layer runs (and no "
        "final norm is applied).",
        AUTHOR,
        (
            r"(only|just) (the )?first layer",
            r"return.{0,40}(inside|in) the loop",
            r"layers\[1\].{0,80}(never|not) (called|run)",
            r"(one|1) layer",
        ),
        (r"chain", r"shared|same (layer|object)"),
        edits=(
            (
                "            x = layer(x, memory, src_mask, tgt_mask)  # (batch, len_tgt, d_model)\n"
                "        return x if self.norm is None else self.norm(x)",
                "            x = layer(x, memory, src_mask, tgt_mask)  # (batch, len_tgt, d_model)\n"
                "            return x if self.norm is None else self.norm(x)",
            ),
        ),
        heldout=True,
    ),
]
