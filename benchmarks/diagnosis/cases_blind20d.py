"""Held-out wrong answers, blind round 20 (helper b20d, 2026-11-28, lessons 03, 04, 06, 08,
09 and 12, two thirds transposed from public reports): mistakes new to the benchmark,
written blind (no check module, no message read) while fix round 22 changed the checks, to
measure how the diagnoses generalise to mistakes nobody here has seen
(``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L03, L04, L06 = "03_positional_encoding", "04_attention", "06_masking"
L08, L09, L12 = "08_decoder", "09_transformer", "12_inference"

_c = held_out_authored("blind20d")

PE_LOG_EXP = "https://github.com/pytorch/tutorials/issues/1778"
PE_2D_HALF_WIDTH = "https://github.com/zju3dv/LoFTR/issues/17"
SOFTMAX_COLUMNS = (
    "https://splunktool.com/in-python-calculate-the-softmax-of-an-array-columnwise-using-numpy"
)
SIGMOID_ATTENTION = "https://github.com/codekansas/keras-language-modeling/issues/30"
UNSQUEEZE_IN_PLACE = "https://github.com/espnet/espnet/issues/1604"
MASK_CAST_FLIPS = "https://github.com/wfondrie/depthcharge/pull/38"
LONG_ATTN_MASK = "https://github.com/seal-rg/recurrent-pretraining/issues/23"
NORM_BEFORE_RESIDUAL = "https://github.com/google-research/tuning_playbook/issues/50"
NORM_TWICE_AT_END = "https://github.com/pytorch/pytorch/issues/50086"
LAYER_OPTION_NOT_PASSED = "https://github.com/k2-fsa/snowfall/pull/184"
DETR_INTERMEDIATE = "https://github.com/facebookresearch/detr (models/transformer.py)"
ANNOTATED_EMBEDDINGS_ORDER = "https://github.com/namespace-io/nlp (transformer/train.py)"
KERAS_VOCAB_PLUS_ONE = "https://bookstack.cn/read/keras-2.3-en/dd1e1e3be9921111.md?wd=keras"
EOS_LEFT_OUT = "https://github.com/vllm-project/vllm/pull/9627"
START_POS_OFF_BY_ONE = "https://github.com/pytorch/executorch/pull/2689"
REPEAT_ON_FEATURES = "https://github.com/jxiw/M1/issues/4"
ONLINE_SUM_TERM_DROPPED = "https://github.com/PaddleJitLab/CUDATutorial/issues/69"
ROTATING_WINDOW = "https://github.com/ml-explore/mlx-lm/pull/390"

BLIND20D: list[Case] = [
    # ------------------------------------------------------------------ 03 positional encoding
    _c(
        "pe-exp-form-log-dropped",
        L03,
        "positional_encoding",
        "writes the frequencies in the exp form of the PyTorch tutorial but drops the log, "
        "exp(2i * -(10000 / d_model)) instead of exp(2i * -(log(10000) / d_model)): pair 0 "
        "keeps frequency 1, every other pair's frequency underflows to 0, so its columns are "
        "sin 0 = 0 and cos 0 = 1 at every position.",
        (
            r"\blog\b|logarithm|math\.log|np\.log",
            r"exp\(.{0,40}10000",
            r"frequenc(y|ies).{0,60}(0\b|zero|underflow|vanish)",
            r"(every|all) (other )?pairs?.{0,60}(but|except|after) (the )?first.{0,60}"
            r"(constant|0\b|zero|1\b|one)",
            r"(columns?|features?).{0,60}constant",
        ),
        (
            r"base (of )?1000\b",
            r"multipl(y|ies|ied).{0,40}(instead of|rather than) divid",
            r"(sin|sine)e?s? and (cos|cosine)s? (are )?swapped",
            r"exponent.{0,40}\bi\b.{0,20}instead of 2i",
            r"positions? (start|count).{0,20}(at|from) 1",
        ),
        edits=(
            (
                "angles = positions / np.power(10000.0, two_i / d_model)",
                "angles = positions * np.exp(two_i * -(10000.0 / d_model))",
            ),
        ),
        source=PE_LOG_EXP,
    ),
    _c(
        "pe-frequencies-over-half-width",
        L03,
        "positional_encoding",
        "copies the frequencies of a 2-D (image) sine encoding, which splits d_model between "
        "the x and y axes: the pair indices come from np.arange(0, d_model // 2, 2) and the "
        "exponent is 2i / (d_model // 2), so there are only about d_model / 4 angles, with "
        "the wrong frequencies, for the d_model / 2 sine columns (a broadcasting error, or "
        "a repeated angle when d_model is 4).",
        (
            r"d_model ?// ?2",
            r"half (of )?(d_model|the (features|width))",
            r"(only|too few) .{0,40}(angles|frequencies|pairs)",
            r"(2-?D|two-dimensional|image)",
            r"(d_model ?/ ?4|quarter)",
        ),
        (
            r"(odd|ceil).{0,40}d_model",
            r"transpos",
            r"base (of )?1000\b",
            r"exponent.{0,40}\bi\b.{0,20}instead of 2i",
        ),
        edits=(
            (
                "two_i = np.arange(0, d_model, 2, dtype=np.float64)",
                "two_i = np.arange(0, d_model // 2, 2, dtype=np.float64)",
            ),
            (
                "angles = positions / np.power(10000.0, two_i / d_model)",
                "angles = positions / np.power(10000.0, two_i / (d_model // 2))",
            ),
        ),
        source=PE_2D_HALF_WIDTH,
    ),
    _c(
        "rs-angle-floor-divided",
        L03,
        "relative_shift",
        "divides k by the wavelengths with floor division, k // 10000^(2i/d_model): pair 0 "
        "is right, but every other angle is rounded down to a whole number (0 for |k| below "
        "the wavelength, so those blocks are the identity, and -1 for a small negative k).",
        (
            r"floor",
            r"//",
            r"integer division",
            r"round(s|ed|ing)? (down|to (a )?whole)",
            r"truncat",
        ),
        (
            r"(frequency|w_i) (is )?(left out|missing|forgotten)",
            r"(leaves|left) (out )?k\b|without k\b|ignores k\b",
            r"transpos",
            r"minus sign",
            r"odd d_model",
        ),
        edits=(
            (
                "theta = k / np.power(10000.0, two_i / d_model)",
                "theta = k // np.power(10000.0, two_i / d_model)",
            ),
        ),
    ),
    _c(
        "posenc-multiplied-not-added",
        L03,
        "PositionalEncoding",
        "multiplies the embeddings by the position rows (x * PE[:len]) instead of adding "
        "them: every feature is scaled by a sine or cosine, so the first position's sine "
        "features are zeroed and the token's meaning is mixed with its position "
        "multiplicatively.",
        (
            r"multipl",
            r"\bx \* ",
            r"product",
            r"(instead of|rather than|not) (by )?add",
            r"(should|must) (be )?add",
        ),
        (
            r"sqrt\(d_model\)|scales? x",
            r"dropout",
            r"(plain )?attribute|buffer",
            r"(slice|rows?) .{0,30}(batch|first axis)",
            r"concatenat",
        ),
        edits=(
            (
                "return self.dropout(x + self.pe[:, :length])",
                "return self.dropout(x * self.pe[:, :length])",
            ),
        ),
    ),
    # ------------------------------------------------------------------ 04 attention
    _c(
        "softmax-default-axis-zero",
        L04,
        "softmax",
        "declares the axis parameter with the default 0 (normalising the columns, as the "
        "column-wise NumPy answers do) instead of -1: every call that passes axis is right, "
        "but softmax(x) on a matrix normalises over the first axis instead of the last.",
        (
            r"default",
            r"axis ?= ?0",
            r"first axis|axis 0",
            r"columns?",
        ),
        (
            r"(whole|entire) array",
            r"keepdims",
            r"(does not|doesn't|never) subtract.{0,30}max",
            r"global max",
            r"in[- ]place",
        ),
        code="""
import numpy as np


def softmax(x, axis=0):
    peak = np.max(x, axis=axis, keepdims=True)
    peak = np.where(np.isfinite(peak), peak, 0.0)  # an all -inf slice
    exps = np.exp(x - peak)
    total = exps.sum(axis=axis, keepdims=True)
    return np.divide(exps, total, out=np.zeros_like(exps), where=total > 0)
""",
        source=SOFTMAX_COLUMNS,
    ),
    _c(
        "row-sigmoid-weights",
        L04,
        "attention_row",
        "turns the scaled scores into weights with the logistic sigmoid, 1 / (1 + exp(-s)), "
        "one gate per key, instead of the softmax over the keys: the weights lie in (0, 1) "
        "but no longer add up to 1, and the output is a sum of gated values.",
        (
            r"sigmoid",
            r"logistic",
            r"1 ?/ ?\(1 ?\+ ?(np\.)?exp",
            r"(instead of|rather than|not) (a |the )?softmax",
            r"(each|every) (key|weight) (on its own|independently|separately)",
        ),
        (
            r"sqrt\(d_k\)|scal(e|ing)",
            r"(output|weights) (first|swapped)|wrong order",
            r"keys instead of (the )?values",
            r"(does not|doesn't|never) subtract.{0,30}max",
        ),
        edits=(("weights = softmax(scores)", "weights = 1 / (1 + np.exp(-scores))"),),
        source=SIGMOID_ATTENTION,
    ),
    _c(
        "sdpa-log-softmax-weights",
        L04,
        "scaled_dot_product_attention",
        "takes torch.log_softmax of the scores instead of torch.softmax, so the weights are "
        "log-probabilities (negative, -inf at blocked keys) and the output mixes the values "
        "with them (NaN or -inf as soon as a key is blocked).",
        (
            r"log[_ -]?softmax",
            r"log[- ]?probabilit",
            r"logarithm",
            r"\blog\b",
        ),
        (
            r"dim ?= ?-?2|over (the )?queries",
            r"(not|never) (divided|scaled)|sqrt\(d_k\)",
            r"mask.{0,40}(inverted|polarity|ignored)",
            r"NaN rows?.{0,40}(not|never) (zeroed|repaired)",
        ),
        edits=(
            (
                "weights = torch.softmax(scores, dim=-1)",
                "weights = torch.log_softmax(scores, dim=-1)",
            ),
        ),
    ),
    # ------------------------------------------------------------------ 06 masking
    _c(
        "padmask-unsqueezed-in-place",
        L06,
        "padding_mask",
        "adds the two axes with the in-place ids.unsqueeze_(1).unsqueeze_(1) (to be sure "
        "they are applied, unsqueeze itself not being in place) and compares afterwards: "
        "the mask is right, but the caller's ids are reshaped to (batch, 1, 1, len).",
        (
            r"in[- ]place",
            r"unsqueeze_",
            r"(changes|modifies|reshapes|alters|overwrites) (the caller'?s |your |its )?"
            r"(ids|input)",
            r"ids.{0,60}(shape (was |is )?changed|modified|reshaped|must not)",
        ),
        (
            r"inverted|True (at|for|marks) (the )?pads?",
            r"query axis",
            r"\(batch, 1, len\)|head axis",
            r"(compares with|hard-?coded) 0",
        ),
        code="""
def padding_mask(ids, pad_id):
    ids.unsqueeze_(1).unsqueeze_(1)  # (batch, 1, 1, len)
    return ids != pad_id
""",
        source=UNSQUEEZE_IN_PLACE,
    ),
    _c(
        "lookahead-square-subsequent-cast-to-bool",
        L06,
        "look_ahead_mask",
        "reuses nn.Transformer.generate_square_subsequent_mask(size) and casts it with "
        ".bool(): that float mask holds -inf at the future keys and 0.0 elsewhere, so the "
        "cast makes the future True and the past and diagonal False, the opposite of the "
        "course's True = may attend.",
        (
            r"invert|polarity|opposite|reversed",
            r"True (marks|at|for|means|where) (the )?(blocked|future|masked)",
            r"-inf.{0,60}True",
            r"\.bool\(\)",
            r"generate_square_subsequent_mask",
            r"(additive|float) mask.{0,60}bool",
        ),
        (
            r"lower triangle.{0,40}(missing|wrong)|upper triangle",
            r"float (dtype|tensor|mask)\b(?!.{0,40}bool)",
            r"leading axis|\(1, size, size\)",
            r"numpy",
        ),
        code="""
import torch


def look_ahead_mask(size):
    return torch.nn.Transformer.generate_square_subsequent_mask(size).bool()
""",
        source=MASK_CAST_FLIPS,
    ),
    _c(
        "decmask-long-attention-mask",
        L06,
        "decoder_self_attention_mask",
        "builds the padding part as Hugging Face's attention_mask, (tgt_ids != pad_id).long(), "
        "and multiplies it with the look-ahead mask: the pattern is right, but the result is "
        "an int64 tensor of 0s and 1s instead of a bool mask.",
        (
            r"int64|long|integer",
            r"(not|instead of) (a )?bool",
            r"dtype",
            r"0s? and 1s?|0/1",
        ),
        (
            r"\(batch, len, len\)|head(s)? axis",
            r"\||\bor\b",
            r"pad(ding)? .{0,30}quer(y|ies)",
            r"float",
        ),
        code="""
def decoder_self_attention_mask(tgt_ids, pad_id):
    keep = (tgt_ids != pad_id).long()[:, None, None, :]  # Hugging Face's attention_mask
    return keep * look_ahead_mask(tgt_ids.shape[1])
""",
        source=LONG_ATTN_MASK,
    ),
    # ------------------------------------------------------------------ 08 decoder
    _c(
        "dl-post-ln-norm-inside-residual",
        L08,
        "DecoderLayer",
        "post-LN: normalises each sub-layer's output before adding it back, "
        "x + dropout(norm(sublayer(x))), instead of normalising the residual sum, "
        "norm(x + dropout(sublayer(x))): the stream itself is never normalised.",
        (
            r"x \+ .{0,20}norm\w*\(",
            r"normali[sz]\w* (each |the )?sub-?layer'?s? (output|result)",
            r"norm\w*.{0,40}before (the )?(residual|adding|addition|sum)",
            r"(residual )?sum.{0,40}(never|not) normali[sz]",
            r"inside the residual",
        ),
        (
            r"pre-?LN|norm_first",
            r"no residual|residual.{0,20}(missing|forgotten)",
            r"cross-attention.{0,60}(swapped|memory as (the )?quer)",
            r"mask",
        ),
        edits=(
            (
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))",
                "x = x + self.dropout(self.norm1(self.self_attn(x, x, x, tgt_mask)[0]))",
            ),
            (
                "x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))",
                "x = x + self.dropout(self.norm2(self.cross_attn(x, memory, memory, src_mask)[0]))",
            ),
            (
                "return self.norm3(x + self.dropout(self.feed_forward(x)))",
                "return x + self.dropout(self.norm3(self.feed_forward(x)))",
            ),
        ),
        source=NORM_BEFORE_RESIDUAL,
    ),
    _c(
        "dl-pre-ln-output-normalised",
        L08,
        "DecoderLayer",
        "pre-LN: also normalises the layer's output, norm3(x + dropout(feed_forward(norm3(x)))), "
        "a final norm inside every layer: the post-LN path is right, but a pre-LN layer "
        "returns a normalised stream instead of the raw residual sum.",
        (
            r"pre-?LN.{0,120}(output|result|return|residual sum).{0,60}normali[sz]",
            r"normali[sz]\w* (the|its) (output|result|residual sum|return)",
            r"norm3.{0,60}(twice|two times|again|on the output|after the residual)",
            r"final norm.{0,60}(inside|in) (each|every) layer",
            r"extra (layer ?)?norm",
        ),
        (
            r"post-?LN",
            r"memory.{0,40}normali[sz]",
            r"quer(y|ies).{0,40}(un-?normali[sz]|not normali[sz])",
            r"no residual",
        ),
        edits=(
            (
                "return x + self.dropout(self.feed_forward(self.norm3(x)))",
                "return self.norm3(x + self.dropout(self.feed_forward(self.norm3(x))))",
            ),
        ),
        source=NORM_TWICE_AT_END,
    ),
    _c(
        "dec-returns-every-layer-stacked",
        L08,
        "Decoder",
        "returns the output of every layer stacked (DETR's return_intermediate: "
        "torch.stack of each layer's normalised output), shape (num_layers, batch, len_tgt, "
        "d_model), instead of the last layer's output alone.",
        (
            r"(every|each|all)( the)? layers?'?s? (outputs?|results?)",
            r"intermediate",
            r"stack",
            r"num_layers.{0,40}(axis|dim|leading|in front)",
            r"(extra|leading|additional) (axis|dim)",
        ),
        (
            r"final norm.{0,40}(every|each|after each) layer",
            r"(not|never) chain",
            r"revers",
            r"same layer|shar(e|ed) weights",
        ),
        edits=(
            (
                "        for layer in self.layers:\n"
                "            x = layer(x, memory, src_mask, tgt_mask)  # (batch, len_tgt, d_model)\n"
                "        return x if self.norm is None else self.norm(x)",
                "        outputs = []\n"
                "        for layer in self.layers:\n"
                "            x = layer(x, memory, src_mask, tgt_mask)\n"
                "            outputs.append(x if self.norm is None else self.norm(x))\n"
                "        return torch.stack(outputs)",
            ),
        ),
        source=DETR_INTERMEDIATE,
    ),
    _c(
        "dec-layers-built-without-norm-first",
        L08,
        "Decoder",
        "builds the layers as DecoderLayer(d_model, num_heads, d_ff, dropout) without passing "
        "norm_first on, so every layer keeps its default post-LN: Decoder(..., "
        "norm_first=True) stacks post-LN layers (under a final norm), while the default "
        "post-LN decoder is right.",
        (
            r"norm_first.{0,80}(not|never) (passed|forwarded|given|handed)",
            r"(not|never) (pass|forward|give|hand)\w*.{0,40}norm_first",
            r"layers?.{0,60}(post-?LN|norm_first=False).{0,60}(pre-?LN|norm_first=True)",
            r"(pre-?LN|norm_first=True).{0,80}layers?.{0,40}post-?LN",
        ),
        (
            r"final[_ ]norm.{0,60}(ignored|missing|never built|not built)",
            r"(not|never) chain",
            r"masks?.{0,30}(swapped|order)",
            r"(plain )?list|ModuleList",
        ),
        edits=(
            (
                "[DecoderLayer(d_model, num_heads, d_ff, dropout, norm_first) for _ in range(num_layers)]",
                "[DecoderLayer(d_model, num_heads, d_ff, dropout) for _ in range(num_layers)]",
            ),
        ),
        source=LAYER_OPTION_NOT_PASSED,
    ),
    # ------------------------------------------------------------------ 09 transformer
    _c(
        "tr-token-embedding-annotated-order",
        L09,
        "Transformer",
        "builds both embeddings with the Annotated Transformer's argument order, "
        "TokenEmbedding(d_model, vocab_size) (its Embeddings(d_model, vocab)), where the "
        "course's TokenEmbedding takes (vocab_size, d_model): each table has d_model rows "
        "of vocab_size features, so ids >= d_model fail and the widths do not match.",
        (
            r"TokenEmbedding\(d_model",
            r"arguments?.{0,60}(swapped|order|reversed|other way)",
            r"(vocab_size|vocabulary size).{0,40}d_model.{0,40}(swapped|order|reversed)",
            r"embedding (table|matrix|weight).{0,80}(d_model|\d+) ?(rows|x|,) ?.{0,20}"
            r"(vocab|\d+)",
        ),
        (
            r"positional",
            r"tie|tied",
            r"mask",
            r"sqrt\(d_model\)|scal",
        ),
        edits=(
            (
                "self.src_embedding = TokenEmbedding(src_vocab_size, d_model)",
                "self.src_embedding = TokenEmbedding(d_model, src_vocab_size)",
            ),
            (
                "self.tgt_embedding = TokenEmbedding(tgt_vocab_size, d_model)",
                "self.tgt_embedding = TokenEmbedding(d_model, tgt_vocab_size)",
            ),
        ),
        source=ANNOTATED_EMBEDDINGS_ORDER,
    ),
    _c(
        "cp-table-with-extra-padding-row",
        L09,
        "count_parameters",
        "counts each vocabulary matrix as (vocab_size + 1) * d_model, the Keras habit of "
        "reserving one more row for index 0 (input_dim = vocabulary size + 1): the "
        "embeddings are d_model (tied) or 2 * d_model too many, and an untied output layer "
        "d_model too many.",
        (
            r"vocab_size ?\+ ?1",
            r"(one|an) (extra|more|additional) row",
            r"extra (row|token|entry)",
            r"padding (row|index)",
            r"(\+|too many|more).{0,30}\bd_model\b.{0,40}(embedding|table|output)",
        ),
        (
            r"bias",
            r"positional",
            r"tied|tie_embeddings",
            r"LayerNorm|layer norm",
        ),
        edits=(("table = vocab_size * d_model", "table = (vocab_size + 1) * d_model"),),
        source=KERAS_VOCAB_PLUS_ONE,
    ),
    _c(
        "cp-output-projection-without-bias",
        L09,
        "count_parameters",
        "counts w_q, w_k and w_v with their biases but the attention's output projection w_o "
        "as a weight alone (d_model * d_model, no bias): every attention block is d_model "
        "short, so each encoder layer is d_model and each decoder layer 2 * d_model short.",
        (
            r"w_o.{0,60}bias",
            r"output projection.{0,60}bias",
            r"bias.{0,60}(w_o|output projection)",
            r"(fourth|4th) bias",
        ),
        (
            r"feed-?forward.{0,40}bias",
            r"LayerNorm|layer norm",
            r"(one|single) attention",
            r"three projections|forgets? (the )?(output projection|w_o)\b(?!.{0,20}bias)",
            r"tied|tie_embeddings",
        ),
        edits=(
            (
                "attention = 4 * (d_model * num_heads * d_head + d_model)",
                "attention = 3 * (d_model * num_heads * d_head + d_model) + d_model * num_heads * d_head",
            ),
        ),
    ),
    _c(
        "gd-eos-left-out-of-result",
        L09,
        "greedy_decode",
        "strips <eos> from what it returns (the output.masked_fill(output == eos_id, pad_id) "
        "of 'skip the special tokens'): every row ends with pad ids where its <eos> should "
        "be, while the contract keeps the tokens up to and including <eos>.",
        (
            r"<?eos>?.{0,60}(removed|dropped|replaced|stripped|missing|left out|turned into|"
            r"overwritten|became|becomes)",
            r"(include|keep|up to and including).{0,40}<?eos",
            r"eos_id.{0,40}pad",
            r"(no|without) <?eos",
        ),
        (
            r"<?bos>?.{0,30}(kept|in front)",
            r"(keeps|continues) generating",
            r"first row",
            r"finished.{0,40}before",
        ),
        edits=(
            (
                "return tokens[:, 1:]",
                "output = tokens[:, 1:]\n"
                "    return output.masked_fill(output == eos_id, model.pad_id)",
            ),
        ),
        source=EOS_LEFT_OUT,
    ),
    # ------------------------------------------------------------------ 12 inference
    _c(
        "kv-new-length-from-d-head",
        L12,
        "KVCache",
        "reads the number of new positions from k_new.shape[-1] (d_head, the last axis) "
        "instead of k_new.shape[-2]: the slice to write is d_head positions long, so a "
        "chunk whose length is not d_head fails with a shape error (and the length advances "
        "by d_head).",
        (
            r"shape\[-1\]",
            r"d_head",
            r"(last|feature) (axis|dim)",
            r"shape\[-2\]",
        ),
        (
            r"head(s)? axis|shape\[1\]",
            r"batch axis|shape\[0\]",
            r"never advanc",
            r"persistent",
            r"whole buffer",
        ),
        edits=(
            (
                "start, stop = self.length, self.length + k_new.shape[-2]",
                "start, stop = self.length, self.length + k_new.shape[-1]",
            ),
        ),
    ),
    _c(
        "gen-step-start-one-early",
        L12,
        "generate",
        "runs each new token at start = length + step - 1, taking the prompt's last index "
        "length - 1 as the first free position: every generated token is rotated as the "
        "position before its own (the first one as the prompt's last token).",
        (
            r"one (position )?(too )?(early|before|short|low|small|less)",
            r"length \+ step - 1|len(gth)? ?- ?1",
            r"start.{0,60}off[- ]by[- ]one",
            r"(previous|preceding) position",
        ),
        (
            r"one (position )?too far|\+ ?1\b",
            r"start ?= ?0|position 0",
            r"(same|stale) (start|position)",
            r"prefill",
            r"argmax",
        ),
        edits=(("start=length + step)", "start=length + step - 1)"),),
        source=START_POS_OFF_BY_ONE,
    ),
    _c(
        "gqa-values-repeated-on-features",
        L12,
        "grouped_query_attention",
        "repeats the keys along the head axis but the values with dim=-1, the feature axis: "
        "the values keep num_kv_heads heads, each value vector copied group times side by "
        "side, so the output is group times too wide (or a shape error) unless group is 1.",
        (
            r"dim ?= ?-1",
            r"(feature|last|value width|d_v) (axis|dim)",
            r"values?.{0,60}(repeated|copied|widened|interleaved).{0,40}(feature|last|width)",
            r"(d_v|width).{0,40}(times|\*|multiplied|too wide)",
        ),
        (
            r"values? (are )?not repeated",
            r"tile|\.repeat\(",
            r"length axis|dim ?= ?2",
            r"keys? and values? swapped",
            r"group.{0,30}(inverted|wrong way)",
        ),
        edits=(
            (
                "v = v.repeat_interleave(group, dim=1)",
                "v = v.repeat_interleave(group, dim=-1)",
            ),
        ),
        source=REPEAT_ON_FEATURES,
    ),
    _c(
        "online-block-sum-keepdim",
        L12,
        "online_softmax",
        "sums each block's exponentials with keepdim=True, so the block term is (..., 1) "
        "while the running total is (...): the sum broadcasts into a (rows, rows) table "
        "(a 1-D x gives a (1, n) result), and the final division mixes the rows' totals.",
        (
            r"keepdim",
            r"(running )?(sum|total).{0,80}(shape|\(rows?, ?rows?\)|broadcast)",
            r"\(\.\.\., ?1\)",
        ),
        (
            r"max.{0,30}keepdim",
            r"(not|never) rescaled",
            r"last (partial )?block",
            r"in[- ]place",
            r"running max.{0,30}(zero|0\b)",
        ),
        edits=(
            (
                "block - new_max[..., None]\n        ).sum(dim=-1)",
                "block - new_max[..., None]\n        ).sum(dim=-1, keepdim=True)",
            ),
        ),
    ),
    _c(
        "tiled-block-weights-never-summed",
        L12,
        "tiled_attention",
        "updates the running sum with the rescaled old sum only, total = total * correction, "
        "leaving out the block's weights.sum(dim=-1) (the FlashAttention tutorial slip of "
        "the issue): the sum stays 0, so the final division gives inf or NaN.",
        (
            r"weights\.sum",
            r"(running )?(sum|total|denominator).{0,80}(never|not|without).{0,40}"
            r"(add|accumulat|include|grow|sum)",
            r"(sum|total).{0,40}(stays|remains|is) (0|zero)",
            r"divi(de|sion|ded) by (zero|0)",
        ),
        (
            r"(acc|output).{0,40}(not|never) rescaled",
            r"(never|not) divided",
            r"sqrt\(d_k\)|scale",
            r"causal",
        ),
        edits=(
            (
                "total = total * correction + weights.sum(dim=-1)",
                "total = total * correction",
            ),
        ),
        source=ONLINE_SUM_TERM_DROPPED,
    ),
    _c(
        "sw-window-counted-from-sequence-end",
        L12,
        "sliding_window_mask",
        "keeps the last window positions of the whole sequence, as a rotating cache does "
        "at the end of generation (mask[:, :size - window] = False on the causal mask), "
        "instead of the window - 1 keys before each query: the last query is right, but "
        "earlier queries lose their own recent keys and the first size - window rows are "
        "fully masked.",
        (
            r"last window (positions|keys|tokens) of the (whole |entire )?sequence",
            r"(relative to|from|at) the end",
            r"(same|fixed) (keys|columns|positions) for (every|each|all) quer",
            r"not (relative to|measured from) (each|the) query",
            r"(rotating|rolling) (cache|buffer)",
        ),
        (
            r"one too (wide|many|few|narrow)",
            r"not causal|future",
            r"transpos",
            r"diagonal",
            r"float|uint8",
        ),
        code="""
def sliding_window_mask(size, window):
    mask = look_ahead_mask(size).clone()
    mask[:, : max(size - window, 0)] = False  # only the last `window` positions
    return mask
""",
        source=ROTATING_WINDOW,
    ),
]
