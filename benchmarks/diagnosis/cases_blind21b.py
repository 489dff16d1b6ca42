"""Held-out wrong answers, blind round 21 (helper b21b, 2026-11-28, lessons 07-10): mistakes new to
the benchmark, written blind (no check module, no message read) while fix round 23 changed
the checks, to measure how the diagnoses generalise to mistakes nobody here has seen
(``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L07, L08, L09, L10 = "07_encoder", "08_decoder", "09_transformer", "10_training"

_c = held_out_authored("blind21b")

# Where these mistakes are reported (each page was read for this batch).
NANOGPT_LAYERNORM = "https://github.com/kp7742/gpt-trainer (layers/layernorm.py)"
DROPOUT2D_3D = "https://github.com/pytorch/pytorch/issues/77081"
FUNCTIONAL_DROPOUT = (
    "http://iopenv.com/V26QIRRJF/The-difference-between-torch-nn-dropout-and-torch-nn-F-dropout-"
    "in-pytorch"
)
ZERO_PAD_EMBEDDINGS = "https://openillumi.com/?p=113514"
JADORE_LAYERS = (
    "https://github.com/jadore801120/attention-is-all-you-need-pytorch (transformer/Layers.py)"
)
NORM_AFTER_EACH = "https://github.com/hkproj/pytorch-transformer/issues/32"
NORMALIZE_BEFORE = "https://github.com/facebookresearch/fairseq/issues/1938"
MASK_CONVENTION = "https://github.com/huggingface/transformers/pull/8981"
DECODER_KEY_PADDING = "https://github.com/facebookresearch/fairseq/issues/537"
FINAL_SKIP = "https://github.com/marian-nmt/marian-dev/pull/719"
BERT_EMBEDDING_NORM = (
    "https://github.com/shah5488/bert-model-from-scratch (model/bert_embeddings.py)"
)
FLOAT_HEAD_DIM = "https://github.com/microsoft/Olive/pull/1159"
NUMPY_INT32 = "https://github.com/numpy/numpy/issues/9464"
VIEW_STRIDE = "https://github.com/chickenbestlover/RNN-Time-series-Anomaly-Detection/issues/38"
SCATTER_SMOOTHING = "https://github.com/admsit0/tfg (src/regularizers/label_smoothing.py)"
OPTIMIZER_PER_STEP = "https://github.com/zju3dv/Vox-Fusion/issues/31"
SACREBLEU_TOKENIZE = "https://github.com/mjpost/sacrebleu/issues/195"
ROW_ZERO_LOGITS = "https://github.com/Blaizzy/mlx-audio-swift/pull/253"

_LN_OTHERS = (
    r"unbiased|n ?- ?1\b|bessel",
    r"eps.{0,40}(outside|after|added to the (std|standard deviation))",
    r"over (the )?(batch|positions|sequence)",
    r"keepdim",
)
_EL_OTHERS = (
    r"(pre|post)-?LN (and|instead of|for) (pre|post)-?LN|norm_first.{0,30}(ignored|inverted)",
    r"mask.{0,30}invert",
    r"\[0\]|tuple",
)

BLIND21B: list[Case] = [
    # ---- 07 LayerNorm ----------------------------------------------------------------------
    _c(
        "ln-bias-optional-off-by-default",
        L07,
        "LayerNorm",
        "copies nanoGPT's 'LayerNorm with an optional bias': __init__ takes bias=False by "
        "default and sets self.bias = None unless asked, so LayerNorm(d_model) has no learned "
        "bias parameter (no 'bias' key in its state dict) and forward adds nothing.",
        (
            r"bias.{0,80}(missing|none|not (a |an )?(nn\.)?parameter|absent|not registered)",
            r"(missing|no|without|lacks?)( the| a| its)?( learned| learnable| registered)? "
            r"(bias|beta|β|shift)\b",
            r"bias ?= ?false",
        ),
        (*_LN_OTHERS, r"gain.{0,40}(missing|never)"),
        code="""
class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5, bias=False):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model)) if bias else None

    def forward(self, x):
        mean = x.mean(dim=-1, keepdim=True)
        variance = x.var(dim=-1, keepdim=True, unbiased=False)
        out = self.weight * (x - mean) / torch.sqrt(variance + self.eps)
        if self.bias is not None:
            out = out + self.bias
        return out
""",
        source=NANOGPT_LAYERNORM,
    ),
    _c(
        "ln-functional-without-affine",
        L07,
        "LayerNorm",
        "builds the gain and the bias but forward returns F.layer_norm(x, x.shape[-1:], "
        "eps=self.eps) without passing weight and bias, so the learned parameters are never "
        "applied: a fresh layer is right, a trained or loaded one is not.",
        (
            r"(weight|gain|bias|gamma|beta|γ|β|learned parameters?|parameters).{0,80}"
            r"(never|not|unused|ignored|no effect)",
            r"(ignores?|never uses?|does not use|doesn't use|without)( the| its)?( learned| own)? "
            r"(weight|gain|bias|parameters|γ|β|gamma|beta)",
        ),
        _LN_OTHERS,
        edits=(
            (
                "return self.weight * (x - mean) / torch.sqrt(variance + self.eps) + self.bias",
                "return torch.nn.functional.layer_norm(x, x.shape[-1:], eps=self.eps)",
            ),
        ),
        source=NANOGPT_LAYERNORM,
    ),
    # ---- 07 PositionwiseFeedForward --------------------------------------------------------
    _c(
        "ffn-dropout2d-drops-positions",
        L07,
        "PositionwiseFeedForward",
        "builds the dropout as nn.Dropout2d(dropout) ('dropout for a 2-D layout'): on a 3-D "
        "(batch, len, d_ff) input Dropout2d treats axis 1 as channels, so in training it zeroes "
        "whole positions (every hidden unit of a token at once) instead of independent units.",
        (
            r"dropout2d",
            r"(whole|entire) (positions?|tokens?|rows?|channels?)",
            r"(channel|position|token)[- ]wise",
            r"every (hidden )?(unit|feature|activation) of (a|one|the same) (token|position)",
        ),
        (
            r"dropout.{0,40}(after|on the output of) w_2",
            r"dropout.{0,40}(on|to) the input",
            r"(rate|probability).{0,40}(hard-?coded|ignored|0\.1)",
        ),
        edits=(("self.dropout = nn.Dropout(dropout)", "self.dropout = nn.Dropout2d(dropout)"),),
        source=DROPOUT2D_3D,
    ),
    _c(
        "ffn-functional-dropout-training-as-p",
        L07,
        "PositionwiseFeedForward",
        "calls the functional dropout as nn.functional.dropout(hidden, self.training): the "
        "second positional argument is p, not training, so in training mode p = True = 1 and "
        "every hidden unit is zeroed (the block outputs w_2's bias alone), whatever the rate.",
        (
            r"self\.training.{0,60}(\bp\b|probability|rate|second (positional )?argument)",
            r"(\bp\b|probability|rate).{0,40}(self\.training|true|1(\.0)?\b)",
            r"(zero(e?s|ed)?|drops?) (every|all)( the)? (hidden )?(units?|activations?)",
        ),
        (
            r"(stays?|still|left) (on|active) in eval",
            r"dropout.{0,40}(after|on the output of) w_2",
            r"dropout.{0,40}(on|to) the input",
        ),
        edits=(
            (
                "return self.w_2(self.dropout(hidden))",
                "return self.w_2(nn.functional.dropout(hidden, self.training))",
            ),
        ),
        source=FUNCTIONAL_DROPOUT,
    ),
    # ---- 07 EncoderLayer -------------------------------------------------------------------
    _c(
        "el-pads-zeroed-instead-of-masked",
        L07,
        "EncoderLayer",
        "zeroes the vectors of the padded positions (x.masked_fill(~mask[:, 0, 0, :, None], 0)) "
        "and then calls the self-attention without the mask, believing a zero vector is "
        "ignored: the pads still get attention weight (their keys are w_k's bias), so the real "
        "tokens attend to the padding, and the padded rows are changed too.",
        (
            r"(attend|attention|weight).{0,60}(to )?(the )?(pad|padding|padded)",
            r"mask.{0,60}(never|not) (passed|given|handed|used)",
            r"(without|no) (the )?(padding )?mask",
            r"(zero(e?s|ed|ing)?|masked_fill).{0,60}(pad|padded|input|vectors?)",
        ),
        _EL_OTHERS,
        edits=(
            (
                "        if self.norm_first:\n",
                "        if mask is not None:  # zero the pads: a zero vector carries nothing\n"
                "            x = x.masked_fill(~mask[:, 0, 0, :, None], 0.0)\n"
                "            mask = None\n"
                "        if self.norm_first:\n",
            ),
        ),
        source=ZERO_PAD_EMBEDDINGS,
    ),
    _c(
        "el-sublayers-expected-to-add-and-norm",
        L07,
        "EncoderLayer",
        "writes the layer the way jadore801120's EncoderLayer reads, where the attention and "
        "feed-forward modules add their own residual and LayerNorm: forward just chains "
        "dropout(self_attn(x, x, x, mask)[0]) and dropout(feed_forward(x)), so lesson 05/07's "
        "bare sub-layers get no residual connection and norm1/norm2 are never applied, in "
        "either layout.",
        (
            r"residual",
            r"(no|without|missing|never)( the)? (layer ?norm|norm1|norm2|normali[sz])",
            r"(norm1|norm2|layer ?norms?).{0,40}(never|not) (used|applied|called)",
            r"skip connection",
        ),
        (
            r"mask.{0,30}(not passed|inverted|missing|ignored)",
            r"dropout.{0,30}(missing|never|twice)",
            r"norm_first.{0,30}(ignored|inverted)",
        ),
        edits=(
            (
                "            h = self.norm1(x)\n"
                "            x = x + self.dropout(self.self_attn(h, h, h, mask)[0])\n"
                "            return x + self.dropout(self.feed_forward(self.norm2(x)))\n",
                "            x = self.dropout(self.self_attn(x, x, x, mask)[0])\n"
                "            return self.dropout(self.feed_forward(x))\n",
            ),
            (
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))",
                "x = self.dropout(self.self_attn(x, x, x, mask)[0])",
            ),
            (
                "return self.norm2(x + self.dropout(self.feed_forward(x)))",
                "return self.dropout(self.feed_forward(x))",
            ),
        ),
        source=JADORE_LAYERS,
    ),
    # ---- 07 Encoder ------------------------------------------------------------------------
    _c(
        "enc-final-norm-after-every-layer",
        L07,
        "Encoder",
        "applies the final LayerNorm inside the loop, after every layer (reading 'normalise "
        "after each block' into the stack), instead of once after the last layer: a stack with "
        "a final norm and more than one layer normalises every intermediate output too.",
        (
            r"(every|each) layer.{0,60}norm|norm.{0,60}(every|each|after (every|each)) layer",
            r"(inside|within|in) the (for )?loop",
            r"(final|last) (layer ?)?norm.{0,60}(more than once|repeatedly|several times|"
            r"num_layers times|once per layer)",
        ),
        (
            r"final norm.{0,40}(missing|never|not applied)",
            r"(share|shared) (weights|one layer)",
            r"not chained|(stack'?s?|the) input",
        ),
        edits=(
            (
                "            x = layer(x, mask)  # (batch, len, d_model)\n"
                "        return x if self.norm is None else self.norm(x)",
                "            x = layer(x, mask)\n"
                "            if self.norm is not None:\n"
                "                x = self.norm(x)\n"
                "        return x",
            ),
        ),
        source=NORM_AFTER_EACH,
    ),
    _c(
        "enc-final-norm-before-the-layers",
        L07,
        "Encoder",
        "applies the stack's extra LayerNorm to the input before the first layer ('normalize "
        "before', as fairseq's flag name suggests) instead of to the output of the last layer: "
        "a pre-LN stack's output is never normalised, and its input is.",
        (
            r"before the (first )?(layer|stack|loop|layers)",
            r"normali[sz]\w* (of )?the (stack'?s? )?input",
            r"(input|embeddings?).{0,40}normali[sz]ed",
            r"(output|end|after the last layer).{0,60}(not|never|no|missing).{0,20}normali[sz]",
        ),
        (
            r"(every|each) layer.{0,40}norm",
            r"(share|shared) (weights|one layer)",
            r"not chained",
        ),
        edits=(
            (
                "        for layer in self.layers:\n"
                "            x = layer(x, mask)  # (batch, len, d_model)\n"
                "        return x if self.norm is None else self.norm(x)",
                "        if self.norm is not None:\n"
                "            x = self.norm(x)  # normalize before the blocks\n"
                "        for layer in self.layers:\n"
                "            x = layer(x, mask)\n"
                "        return x",
            ),
        ),
        source=NORMALIZE_BEFORE,
    ),
    # ---- 08 DecoderLayer -------------------------------------------------------------------
    _c(
        "dl-cross-mask-inverted",
        L08,
        "DecoderLayer",
        "inverts the source padding mask for the cross-attention only (~src_mask, thinking "
        "True marks the pads to ignore, as in Hugging Face's or PyTorch's masks), so each "
        "target position may attend only to the source pads and never to the real source "
        "tokens; the self-attention's mask is right.",
        (
            r"invert",
            r"(~|not |negat\w* )src_mask",
            r"(only|just) (to )?(the )?(source )?pad",
            r"(true|false).{0,40}(opposite|other way|the reverse|swapped)",
        ),
        (
            r"tgt_mask.{0,40}cross|cross.{0,40}tgt_mask",
            r"self-attention.{0,40}(src_mask|invert)",
            r"queries.{0,30}(from )?(the )?memory",
        ),
        edits=(
            (
                "self.cross_attn(h, memory, memory, src_mask)[0]",
                "self.cross_attn(h, memory, memory, None if src_mask is None else ~src_mask)[0]",
            ),
            (
                "self.cross_attn(x, memory, memory, src_mask)[0]",
                "self.cross_attn(x, memory, memory, None if src_mask is None else ~src_mask)[0]",
            ),
        ),
        source=MASK_CONVENTION,
    ),
    _c(
        "dl-own-causal-mask-drops-target-padding",
        L08,
        "DecoderLayer",
        "builds its own look-ahead mask inside the layer (torch.tril of ones, len_tgt x "
        "len_tgt) and gives that to the self-attention instead of the tgt_mask it receives, "
        "so the target padding part of tgt_mask is lost (and a caller's other mask ignored).",
        (
            r"(target|tgt)[ _]?(padding|pad)",
            r"tgt_mask.{0,60}(ignored|never used|not used|replaced|unused|discarded)",
            r"(ignores?|never uses?|does not use|doesn't use|instead of)( the)?( given| passed| "
            r"received)? tgt_mask",
            r"(own|builds?) (a |its own )?(causal|look-?ahead) mask",
        ),
        (
            r"src_mask.{0,40}(self|invert)",
            r"cross.{0,40}(tgt_mask|look-?ahead|causal)",
            r"invert",
        ),
        edits=(
            (
                "self.self_attn(h, h, h, tgt_mask)[0]",
                "self.self_attn(h, h, h, torch.tril(torch.ones(h.shape[1], h.shape[1], "
                "dtype=torch.bool)))[0]",
            ),
            (
                "self.self_attn(x, x, x, tgt_mask)[0]",
                "self.self_attn(x, x, x, torch.tril(torch.ones(x.shape[1], x.shape[1], "
                "dtype=torch.bool)))[0]",
            ),
        ),
        source=DECODER_KEY_PADDING,
    ),
    # ---- 08 Decoder ------------------------------------------------------------------------
    _c(
        "dec-skip-connection-around-stack",
        L08,
        "Decoder",
        "adds a skip connection from the stack's input to its output (x = x + input after the "
        "last layer, the 'final skip connection from the bottom' some toolkits offer), so the "
        "decoder returns its input embeddings plus the layers' result.",
        (
            r"(skip|residual).{0,60}(stack|whole|around|input|bottom)",
            r"(adds?|plus) (the )?(stack'?s? |decoder'?s? |original )?input",
            r"input.{0,40}added",
        ),
        (
            r"(every|each) layer.{0,40}(residual|norm)",
            r"final norm",
            r"memory.{0,30}(normali[sz]ed|detached|swapped)",
        ),
        edits=(
            (
                "        for layer in self.layers:\n"
                "            x = layer(x, memory, src_mask, tgt_mask)  # (batch, len_tgt, d_model)\n",
                "        bottom = x\n"
                "        for layer in self.layers:\n"
                "            x = layer(x, memory, src_mask, tgt_mask)\n"
                "        x = x + bottom  # final skip connection\n",
            ),
        ),
        source=FINAL_SKIP,
    ),
    _c(
        "dec-six-layers-hard-coded",
        L08,
        "Decoder",
        "builds the paper's N = 6 layers (range(6)) and ignores num_layers: right only when "
        "num_layers is 6.",
        (
            r"num_layers.{0,60}(ignored|not used|unused|never used)",
            r"(ignores?|never uses?|does not use|doesn't use) num_layers",
            r"\b6\b.{0,40}layers?|layers?.{0,40}\b6\b",
            r"(number|count) of layers",
        ),
        (
            r"(share|shared) (weights|one layer)",
            r"final norm.{0,30}(missing|always)",
            r"not chained",
        ),
        edits=(("for _ in range(num_layers)]", "for _ in range(6)]"),),
    ),
    # ---- 09 Transformer --------------------------------------------------------------------
    _c(
        "tr-bert-style-embedding-norm",
        L09,
        "Transformer",
        "adds BERT's embedding LayerNorm: a LayerNorm (embedding_norm) applied to the "
        "embeddings plus positions on both sides before the stacks, which the paper's "
        "Transformer does not have (extra parameters and different outputs).",
        (
            r"(extra|additional|unexpected) (layer ?norm|normali[sz]ation|parameters?|keys?|"
            r"modules?)",
            r"normali[sz]\w* the (sum of the )?(embeddings|inputs? to the (encoder|stacks?))",
            r"embedding_norm",
            r"layer ?norm.{0,40}(embedding|before the (encoder|stack))",
        ),
        (
            r"(not|un|twice) ?scaled|sqrt\(d_model\)",
            r"positional encoding.{0,30}(missing|twice)",
            r"final norm",
        ),
        edits=(
            (
                "self.positional_encoding = PositionalEncoding(d_model, max_len, dropout)",
                "self.positional_encoding = PositionalEncoding(d_model, max_len, dropout)\n"
                "        self.embedding_norm = nn.LayerNorm(d_model)",
            ),
            (
                "x = self.positional_encoding(self.src_embedding(src_ids))",
                "x = self.embedding_norm(self.positional_encoding(self.src_embedding(src_ids)))",
            ),
            (
                "y = self.positional_encoding(self.tgt_embedding(tgt_ids))",
                "y = self.embedding_norm(self.positional_encoding(self.tgt_embedding(tgt_ids)))",
            ),
        ),
        source=BERT_EMBEDDING_NORM,
    ),
    _c(
        "tr-look-ahead-sized-by-source",
        L09,
        "Transformer",
        "builds the decoder's self-attention mask by hand as padding_mask(tgt_ids) & "
        "look_ahead_mask(src_ids.shape[1]), the look-ahead sized by the source length instead "
        "of the target length: wrong (or a shape error) whenever the two lengths differ.",
        (
            r"src(_ids)?\.shape\[1\]|len(gth)?_src|source length|length of the source",
            r"look-?ahead.{0,80}(source|src)",
            r"(sized|size) (by|from|of) the source",
        ),
        (
            r"padding.{0,40}quer",
            r"look-?ahead.{0,40}(missing|never)",
            r"src_mask.{0,40}(tgt|target)",
        ),
        edits=(
            (
                "tgt_mask = decoder_self_attention_mask(tgt_ids, self.pad_id)",
                "tgt_mask = padding_mask(tgt_ids, self.pad_id) & look_ahead_mask(src_ids.shape[1])",
            ),
        ),
    ),
    # ---- 09 count_parameters ---------------------------------------------------------------
    _c(
        "cp-head-size-true-division",
        L09,
        "count_parameters",
        "computes the head size with true division, d_head = d_model / num_heads, so every "
        "count that uses it (attention, hence encoder and decoder) is a float such as 3072.0 "
        "instead of an int.",
        (
            r"float",
            r"true division|integer division|//",
            r"\bints?\b|integers?",
        ),
        (
            r"bias(es)? (missing|not counted|counted twice)",
            r"layer ?norms?.{0,30}(missing|not counted)",
            r"tie_embeddings.{0,30}(ignored|inverted)",
        ),
        edits=(("d_head = d_model // num_heads", "d_head = d_model / num_heads"),),
        source=FLOAT_HEAD_DIM,
    ),
    _c(
        "cp-output-layer-counted-in-decoder",
        L09,
        "count_parameters",
        "files the output projection under the decoder (as fairseq's decoder owns its output "
        "projection): 'decoder' includes the output layer's parameters and 'output' is 0; the "
        "total is right, the split is not.",
        (
            r"output.{0,80}(decoder|counted (in|under|with))",
            r"decoder.{0,80}(includes?|counts?|contains?)( the)? output",
            r"output.{0,40}\b0\b",
        ),
        (
            r"final (layer ?)?norm.{0,30}(missing|counted)",
            r"cross-?attention.{0,30}(missing|not counted)",
            r"tie_embeddings.{0,30}(ignored|inverted)",
        ),
        edits=(
            (
                '"decoder": num_layers * decoder_layer + final,',
                '"decoder": num_layers * decoder_layer + final\n'
                "        + (vocab_size if tie_embeddings else table + vocab_size),",
            ),
            ('"output": vocab_size if tie_embeddings else table + vocab_size,', '"output": 0,'),
        ),
    ),
    # ---- 09 greedy_decode ------------------------------------------------------------------
    _c(
        "gd-finished-reassigned-each-step",
        L09,
        "greedy_decode",
        "recomputes the finished flags from the newest token alone (finished = next_token == "
        "eos_id) instead of accumulating them with |: a row that produced <eos> gets one pad, "
        "is then no longer finished and goes on generating real tokens after its pad.",
        (
            r"accumulat|or-ed|\|=|with \|",
            r"(overwrit|reassign|reset|recomput)\w*.{0,40}finished",
            r"finished.{0,60}(forgotten|lost|overwritten|reset|only the (last|newest))",
            r"(tokens?|generat\w*).{0,40}after (the )?(pad|eos|<eos>)",
        ),
        (
            r"never (marked )?finished|& instead of \|",
            r"(no|never) (break|stops?)",
            r"pad(ded)? with eos",
        ),
        edits=(
            (
                "finished = finished | (next_token == eos_id)",
                "finished = next_token == eos_id",
            ),
        ),
    ),
    # ---- 10 make_batches -------------------------------------------------------------------
    _c(
        "mb-int32-tensors",
        L10,
        "make_batches",
        "converts every field to 32-bit integers (.int(), 'ids fit in 32 bits', numpy's int "
        "on Windows), so src, decoder_input and labels are torch.int32 instead of int64.",
        (r"int32", r"int64|torch\.long|\blong\b", r"dtype"),
        (r"float", r"pad\w* (on )?the left", r"shuffl"),
        edits=(
            (
                "batches.append(tuple(torch.from_numpy(a) for a in (src, decoder_input, labels)))",
                "batches.append(tuple(torch.from_numpy(a).int() for a in (src, decoder_input, "
                "labels)))",
            ),
        ),
        source=NUMPY_INT32,
    ),
    _c(
        "mb-source-and-target-one-width",
        L10,
        "make_batches",
        "pads src, decoder_input and labels to one common width, the longest source or target "
        "row of the batch, instead of padding src to the longest source and the target fields "
        "to the longest target: one of the two sides gets extra columns of pads.",
        (
            r"(same|one|common|shared) (width|length)",
            r"(extra|additional|too many) (pad(ding)?|columns?)",
            r"(longest|max(imum)?) (of )?(the )?(source|target).{0,60}(both|other|each)",
            r"(src|source).{0,60}(padded|width|length).{0,40}(target|tgt)",
        ),
        (r"left", r"dataset|all (the )?pairs", r"eos|bos"),
        edits=(
            (
                "        src = pad_batch([list(source) for source, _ in chunk], pad_id)  "
                "# (batch, len_src)\n"
                "        decoder_input = pad_batch([[bos_id, *target] for _, target in chunk], "
                "pad_id)\n"
                "        labels = pad_batch([[*target, eos_id] for _, target in chunk], pad_id)  "
                "# same shape\n",
                "        src_rows = [list(source) for source, _ in chunk]\n"
                "        input_rows = [[bos_id, *target] for _, target in chunk]\n"
                "        label_rows = [[*target, eos_id] for _, target in chunk]\n"
                "        width = max(len(row) for row in src_rows + input_rows)\n"
                "        src, decoder_input, labels = (\n"
                "            pad_batch([row + [pad_id] * (width - len(row)) for row in rows], "
                "pad_id)\n"
                "            for rows in (src_rows, input_rows, label_rows)\n"
                "        )\n",
            ),
        ),
    ),
    # ---- 10 noam_lr ------------------------------------------------------------------------
    _c(
        "noam-trailing-comma-tuple",
        L10,
        "noam_lr",
        "ends the return line with a stray comma, return d_model ** -0.5 * min(...), so the "
        "function returns a one-element tuple (lr,) instead of a float.",
        (r"tuple", r"trailing comma|stray comma|comma", r"\(lr,\)|one-element"),
        (r"tensor", r"numpy", r"round"),
        edits=(
            (
                "return d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)",
                "return d_model**-0.5 * min(step**-0.5, step * warmup**-1.5),",
            ),
        ),
    ),
    # ---- 10 label_smoothed_loss ------------------------------------------------------------
    _c(
        "ls-flattened-with-view",
        L10,
        "label_smoothed_loss",
        "flattens with .view (logits.view(-1, V), labels.view(-1)) before the loss: view needs "
        "contiguous memory, so labels or logits that are a slice or a transpose (labels = "
        "tgt[:, 1:]) raise 'view size is not compatible with input tensor's size and stride' "
        "where .reshape or the unflattened computation works.",
        (
            r"\.view\b|\bview\(",
            r"contiguous",
            r"reshape",
            r"stride",
        ),
        (
            r"pad\w* (positions? )?(are |is )?(not excluded|counted|included)",
            r"smoothing (spread )?over V ?- ?1",
            r"(softmax|log_softmax) over (the )?(axis|dim) ?1",
        ),
        code="""
def label_smoothed_loss(logits, labels, pad_id, smoothing=0.1):
    vocab = logits.size(-1)
    logits = logits.view(-1, vocab)  # (N, V)
    labels = labels.view(-1)  # (N,)
    log_probs = torch.log_softmax(logits, dim=-1)
    keep = labels != pad_id
    safe_labels = labels.masked_fill(~keep, 0)
    target = -log_probs.gather(-1, safe_labels[:, None]).squeeze(-1)
    uniform = -log_probs.mean(dim=-1)
    loss = (1 - smoothing) * target + smoothing * uniform
    return loss[keep].mean()
""",
        source=VIEW_STRIDE,
    ),
    _c(
        "ls-scatter-overwrites-smoothing-mass",
        L10,
        "label_smoothed_loss",
        "builds the target distribution by filling smoothing / V everywhere and then "
        "scatter_-ing 1 - smoothing at the label, which overwrites the label's share instead of "
        "adding to it: q[y] = 1 - smoothing instead of 1 - smoothing + smoothing / V, so q "
        "sums to 1 - smoothing / V.",
        (
            r"(overwrit|replac)\w*.{0,80}(smoothing|ε|eps) ?/ ?V",
            r"q\[y\]",
            r"sums? to (less than|under) (1|one)|does(n't| not) sum to (1|one)",
            r"1 ?- ?(smoothing|ε|eps) ?\+ ?(smoothing|ε|eps) ?/ ?V",
        ),
        (r"V ?- ?1", r"pad\w* (are |is )?(not )?(excluded|counted)", r"kl"),
        code="""
def label_smoothed_loss(logits, labels, pad_id, smoothing=0.1):
    log_probs = torch.log_softmax(logits, dim=-1)  # (..., V)
    vocab = logits.size(-1)
    keep = labels != pad_id
    safe_labels = labels.masked_fill(~keep, 0)
    q = torch.full_like(log_probs, smoothing / vocab)
    q.scatter_(-1, safe_labels[..., None], 1 - smoothing)
    loss = -(q * log_probs).sum(dim=-1)
    return loss[keep].mean()
""",
        source=SCATTER_SMOOTHING,
    ),
    # ---- 10 train_step ---------------------------------------------------------------------
    _c(
        "ts-new-optimizer-every-step",
        L10,
        "train_step",
        "creates a new torch.optim.Adam(model.parameters(), lr=...) inside train_step and steps "
        "that one: the optimizer it was given never steps, and Adam's moment estimates start "
        "from zero at every call (the given optimizer's state and settings are lost).",
        (
            r"(new|fresh|own|another|second) optimi[sz]er",
            r"optimi[sz]er.{0,60}(re-?created|rebuilt|built|created|constructed)",
            r"(given|passed|caller'?s?) optimi[sz]er.{0,60}(never|not) (used|stepped|called)",
            r"(moment|momentum|adam'?s?) (state|estimates).{0,60}(reset|lost|discarded|zero)",
        ),
        (r"zero_grad", r"clip", r"train\(\)|training mode"),
        edits=(
            (
                "    model.train()\n",
                "    model.train()\n"
                '    optimizer = torch.optim.Adam(model.parameters(), lr=optimizer.param_groups[0]["lr"])\n',
            ),
        ),
        source=OPTIMIZER_PER_STEP,
    ),
    _c(
        "ts-returns-running-total",
        L10,
        "train_step",
        "keeps a running total of the losses on the function (train_step.total += loss.item()) "
        "and returns that total, so the first call returns the loss and every later call the "
        "sum of all the losses so far.",
        (
            r"(cumulative|running|accumulated) (sum|total|loss)",
            r"(sum|total) (of|over) (the |all )?(losses|calls|steps|previous)",
            r"(second|later|subsequent|next) calls?",
            r"across calls",
        ),
        (r"after the (optimizer )?step", r"returns? (a |the )?tensor", r"zero_grad"),
        edits=(
            (
                "    return loss.item()",
                '    train_step.total = getattr(train_step, "total", 0.0) + loss.item()\n'
                "    return train_step.total",
            ),
        ),
    ),
    # ---- 10 translation_scores -------------------------------------------------------------
    _c(
        "tsc-bleu-tokenize-none",
        L10,
        "translation_scores",
        "calls sacrebleu.corpus_bleu(hypotheses, streams, tokenize='none'), splitting on "
        "whitespace only, instead of with the default 13a tokenizer: punctuation attached to a "
        "word ('casa.') stays part of it, so BLEU differs whenever the sentences carry "
        "punctuation.",
        (
            r"tokeni[sz]\w*",
            r"13a",
            r"default settings",
        ),
        (r"lowercas", r"smooth", r"0-1|fraction|scale"),
        edits=(
            (
                "bleu = sacrebleu.corpus_bleu(hypotheses, streams).score",
                'bleu = sacrebleu.corpus_bleu(hypotheses, streams, tokenize="none").score',
            ),
        ),
        source=SACREBLEU_TOKENIZE,
    ),
    # ---- 10 beam_search --------------------------------------------------------------------
    _c(
        "bs-top-k-per-hypothesis-not-global",
        L10,
        "beam_search",
        "takes the beam_size best tokens of each live hypothesis and walks them hypothesis by "
        "hypothesis (parent 0's candidates first) instead of sorting all the candidates of all "
        "the hypotheses together: the new beam is filled from the first parent, whatever the "
        "others score.",
        (
            r"(sort|rank)\w*.{0,60}(all|every|global|together|across)",
            r"(per|each) (hypothes[ie]s|parent|beam)",
            r"first (parent|hypothesis)",
            r"not (globally )?sorted",
        ),
        (r"length penalty", r"(stop|stopping) rule", r"eos.{0,30}(slot|place)"),
        edits=(
            (
                "order = scores.flatten().argsort(descending=True, stable=True)",
                "order = (scores.argsort(dim=-1, descending=True)[:, :beam_size]"
                " + torch.arange(k)[:, None] * scores.shape[1]).flatten()",
            ),
        ),
    ),
    _c(
        "bs-one-step-too-many",
        L10,
        "beam_search",
        "runs range(max_len + 1) steps instead of range(max_len), so a search that has not "
        "stopped early can add one token more than max_len allows.",
        (
            r"max_len ?\+ ?1",
            r"one (step|token) (too many|more|extra)",
            r"(more|longer) than max_len",
            r"off[- ]by[- ]one",
        ),
        (
            r"length penalty",
            r"stop(ping)? (rule|early)",
            r"eos.{0,30}(slot|place|counted)",
        ),
        edits=(("for _ in range(max_len):", "for _ in range(max_len + 1):"),),
    ),
    _c(
        "bs-every-hypothesis-scored-with-first",
        L10,
        "beam_search",
        "takes the log-probabilities of the first live hypothesis only, log_softmax(logits[0, "
        "-1]), and broadcasts them onto every hypothesis's score: each hypothesis is extended "
        "with the next-token distribution of hypothesis 0 instead of its own.",
        (
            r"(first|hypothesis 0|row 0)('s)? (hypothesis'?s? )?(log-?prob|distribution|logits)",
            r"logits\[0",
            r"(same|one) (next-token )?distribution for (every|all)",
            r"(its own|own) (log-?prob|distribution|logits)",
            r"broadcast",
        ),
        (r"length penalty", r"(stop|stopping) rule", r"(not )?accumulat"),
        edits=(
            (
                "log_probs = torch.log_softmax(logits[:, -1], dim=-1)",
                "log_probs = torch.log_softmax(logits[0, -1], dim=-1)",
            ),
        ),
        source=ROW_ZERO_LOGITS,
    ),
]
