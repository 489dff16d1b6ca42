"""Held-out wrong answers, blind round 20 (helper b20b, 2026-11-28, lessons 07-10): mistakes new to
the benchmark, written blind (no check module, no message read) while fix round 22 changed
the checks, to measure how the diagnoses generalise to mistakes nobody here has seen
(``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L07, L08, L09, L10 = "07_encoder", "08_decoder", "09_transformer", "10_training"

_c = held_out_authored("blind20b")

# Where these mistakes are reported (each page was read for this batch).
LLAMA_SWIGLU = "https://github.com/meta-llama/llama/issues/245"
FAIRSEQ_LAYER_TUPLE = "https://github.com/facebookresearch/fairseq/pull/1532"
KEY_PADDING_MASK = "https://github.com/pytorch/pytorch/issues/22374"
ENCODER_ONE_VECTOR = "https://github.com/bentrevett/pytorch-seq2seq/issues/116"
DROPOUT_DEFAULT_HALF = "https://github.com/huawei-noah/multi_hyp_cc/pull/17"
SHALLOW_COPY = "https://github.com/BravoLu/SSAE/issues/6"
T5_TIED_SCALING = "https://github.com/ml-explore/mlx-examples/pull/591"
CACHED_MASK = "https://github.com/pytorch/examples/pull/555"
PAD_NEVER_GENERATED = "https://github.com/dphnAI/sonar/pull/80"
REPETITION_PENALTY = "https://github.com/OpenNMT/CTranslate2/issues/615"
PAD_TO_DATASET_MAX = "https://github.com/lonePatient/BERT-NER-Pytorch/issues/56"
SORT_WITHIN_BATCH = "https://github.com/pytorch/text/issues/62"
NOAM_OWN_STEP = "https://github.com/harvardnlp/annotated-transformer/issues/30"
LOSS_DATA_INDEX = "https://github.com/Sundrops/video-caption.pytorch/issues/5"
RETURN_ALL_BEAMS = "https://github.com/hiyouga/LlamaFactory/issues/848"

# Phrases that name the other likely causes, shared by several cases.
_LN_OTHERS = (
    r"unbiased|n ?- ?1\b|bessel",
    r"eps.{0,40}(outside|after|added to the (std|standard))",
    r"(gain|weight).{0,40}(never|not) (multipl|applied)",
    r"bias.{0,40}(never|not) added",
)
_LAYER_OTHERS = (
    r"(no|missing|without|forg[eo]t\w*) (the )?residual",
    r"norm_first.{0,40}(ignored|inverted|never)|always (pre|post)-?LN",
    r"norm[123].{0,30}(swapped|instead of)",
)
_STACK_OTHERS = (
    r"final (layer ?)?norm.{0,40}(missing|always|never|extra|should)",
    r"(not|never) chain|stack's input|same input",
    r"plain (python )?list",
)
_GREEDY_OTHERS = (
    r"first position|logits\[:, ?0\]",
    r"pad.{0,40}after.{0,20}<?eos",
    r"stops? (the whole batch|as soon as (any|one))",
    r"keeps? <?bos",
)
_BATCH_OTHERS = (
    r"left[- ]pad|pad\w* (on )?the left",
    r"shuffl\w*.{0,40}(seed|global|ignor)",
    r"(drops?|dropped|lost) (the )?last batch",
    r"-100",
    r"float(32)? (tensor|ids|dtype)",
)
_LOSS_OTHERS = (
    r"pad\w* (position|token|label)s?.{0,40}(counted|included|not (excluded|ignored|masked))",
    r"V ?- ?1|V ?- ?2|other tokens",
    r"KL",
    r"smoothing (term )?(is )?(missing|dropped|forgotten)",
)
_STEP_OTHERS = (
    r"(zero_grad|clear\w* the gradients).{0,30}(never|missing|not called|forgot)",
    r"clip\w*.{0,40}(after|before|value|per[- ]parameter)",
    r"(eval|training) mode",
    r"backward.{0,30}(never|missing|not called)",
)
_BEAM_OTHERS = (
    r"length penalty.{0,40}(wrong|missing|multipl|instead)",
    r"<?eos.{0,40}(never|not) (finish|set aside)",
    r"log-?prob\w* (are )?not (added|accumulated|summed)",
    r"stop(ping)? (rule|early).{0,40}(wrong|too|never|missing)",
)

BLIND20B: list[Case] = [
    # ------------------------------------------------------------------ 07 encoder
    _c(
        "ln-variance-over-whole-tensor",
        L07,
        "LayerNorm",
        "takes the mean per token, as it should, but the variance with no dim "
        "(x.var(unbiased=False)): one variance over every feature of every token of the "
        "whole input, so each token is divided by the same global spread instead of its own "
        "(a single token (d_model,) is right).",
        (
            r"variance.{0,80}(whole|entire|all (the )?(tokens|positions|elements|features of "
            r"every)|every token|global|single (number|value|scalar)|one (number|value|scalar))",
            r"(one|single|same|shared) variance",
            r"var\(\).{0,40}(no|without) dim|variance.{0,40}(no|without) (a )?dim",
            r"variance.{0,40}(not|isn't|is not) (taken |computed )?per token",
        ),
        (
            *_LN_OTHERS,
            r"mean.{0,40}(whole|entire|global|all tokens)",
            r"over the batch axis|dim=0",
        ),
        edits=(
            (
                "variance = x.var(dim=-1, keepdim=True, unbiased=False)",
                "variance = x.var(unbiased=False)",
            ),
        ),
    ),
    _c(
        "ln-var-positional-true-is-unbiased",
        L07,
        "LayerNorm",
        "writes the variance as x.var(-1, True), meaning keepdim=True, but var's second "
        "positional argument is unbiased: the variance is the unbiased one (divided by "
        "d_model - 1) and has no kept axis, so (..., ) does not broadcast against x's "
        "feature axis (two mistakes from one positional True).",
        (
            r"keepdim",
            r"positional(ly)?.{0,60}(True|unbiased|argument)",
            r"second (positional )?argument",
            r"var\(-1, ?True\)",
            r"keep(ing)? the (reduced )?(dim|axis)",
        ),
        (
            r"eps.{0,40}(outside|after|added to the (std|standard))",
            r"over the batch axis|dim=0",
            r"(gain|weight|bias).{0,40}(swapped|never)",
        ),
        edits=(
            (
                "variance = x.var(dim=-1, keepdim=True, unbiased=False)",
                "variance = x.var(-1, True)",
            ),
        ),
    ),
    _c(
        "ffn-swiglu-gated",
        L07,
        "PositionwiseFeedForward",
        "builds LLaMA's gated feed-forward (SwiGLU) instead of the paper's: a third linear "
        "layer w_3 (d_model -> d_ff) and w_2(dropout(silu(w_1(x)) * w_3(x))), a SiLU gate "
        "multiplied by a second projection where the paper has relu(w_1(x)) alone.",
        (
            r"swiglu|\bglu\b|gated|gate",
            r"silu|swish",
            r"w_3|third (linear|layer|projection)|extra (linear|layer|projection|parameters?)",
            r"element-?wise (product|multiplication)",
        ),
        (
            r"gelu",
            r"dropout.{0,40}(after|on the output|input)",
            r"relu.{0,30}(after|on the output)",
        ),
        code="""
import torch.nn.functional as F


class PositionwiseFeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__()
        self.w_1 = nn.Linear(d_model, d_ff)  # gate projection
        self.w_3 = nn.Linear(d_model, d_ff)  # up projection
        self.w_2 = nn.Linear(d_ff, d_model)  # down projection
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        hidden = F.silu(self.w_1(x)) * self.w_3(x)  # SwiGLU
        return self.w_2(self.dropout(hidden))
""",
        source=LLAMA_SWIGLU,
    ),
    _c(
        "ffn-layers-rebuilt-in-forward",
        L07,
        "PositionwiseFeedForward",
        "creates the two linear layers inside forward (self.w_1 = nn.Linear(...) at every "
        "call) instead of once in __init__: every call draws new random weights, so weights "
        "that were set, loaded or trained are thrown away, and a fresh module has no "
        "parameters before its first call.",
        (
            r"(built|buil[dt]s?|creat\w*|re-?creat\w*|new|fresh|re-?initiali[sz]\w*|"
            r"redefin\w*).{0,60}(in(side)? forward|every call|each call|every time)",
            r"(in(side)? forward|every call|each call).{0,60}(new|fresh|random|re-?creat|"
            r"re-?initiali)",
            r"__init__",
            r"(no|without) parameters|parameters\(\) (is )?empty",
        ),
        (
            r"relu.{0,30}(missing|after|on the output)",
            r"dropout.{0,40}(after|on the output)",
            r"gelu",
        ),
        code="""
class PositionwiseFeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__()
        self.d_model, self.d_ff = d_model, d_ff
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        self.w_1 = nn.Linear(self.d_model, self.d_ff)
        self.w_2 = nn.Linear(self.d_ff, self.d_model)
        hidden = torch.relu(self.w_1(x))
        return self.w_2(self.dropout(hidden))
""",
    ),
    _c(
        "el-returns-output-and-weights",
        L07,
        "EncoderLayer",
        "keeps the self-attention's weights and returns the pair (output, attention "
        "weights), as fairseq's and Hugging Face's layers do, instead of the output tensor "
        "(batch, len, d_model) alone.",
        (
            r"(returns?|returned|returning|got|gave)( a| an)? (tuple|pair)",
            r"(tuple|pair) (instead of|rather than|not) (a |the )?tensor",
            r"(returns?|returned|returning).{0,60}(attention )?weights",
            r"tensor (alone|only)|only the output",
        ),
        (*_LAYER_OTHERS, r"\[0\].{0,30}missing"),
        code="""
class EncoderLayer(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__()
        self.norm_first = norm_first
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)
        self.norm1 = LayerNorm(d_model)
        self.norm2 = LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, mask=None):
        if self.norm_first:
            h = self.norm1(x)
            attended, weights = self.self_attn(h, h, h, mask)
            x = x + self.dropout(attended)
            x = x + self.dropout(self.feed_forward(self.norm2(x)))
            return x, weights
        attended, weights = self.self_attn(x, x, x, mask)
        x = self.norm1(x + self.dropout(attended))
        x = self.norm2(x + self.dropout(self.feed_forward(x)))
        return x, weights
""",
        source=FAIRSEQ_LAYER_TUPLE,
    ),
    _c(
        "el-mask-as-key-padding-mask-keyword",
        L07,
        "EncoderLayer",
        "calls the self-attention the way nn.MultiheadAttention is called, "
        "self_attn(x, x, x, key_padding_mask=mask), but lesson 05's MultiHeadAttention takes "
        "the mask as its fourth argument, mask: every forward raises TypeError (unexpected "
        "keyword argument 'key_padding_mask'), with or without a mask.",
        (
            r"key_padding_mask",
            r"(unexpected|unknown|wrong) keyword",
            r"keyword (argument|name)",
            r"fourth (positional )?argument|positional(ly)?",
        ),
        (*_LAYER_OTHERS, r"invert|~mask|True = (blocked|ignore)"),
        edits=(
            (
                "self.self_attn(h, h, h, mask)[0]",
                "self.self_attn(h, h, h, key_padding_mask=mask)[0]",
            ),
            (
                "self.self_attn(x, x, x, mask)[0]",
                "self.self_attn(x, x, x, key_padding_mask=mask)[0]",
            ),
        ),
        source=KEY_PADDING_MASK,
    ),
    _c(
        "enc-mean-pooled-output",
        L07,
        "Encoder",
        "averages the last layer's output over the positions (x.mean(dim=1)) to give one "
        "vector per sentence, as an encoder for classification does, instead of returning "
        "every position's vector: the result is (batch, d_model) instead of (batch, len, "
        "d_model), and the padding is averaged in.",
        (
            r"(mean|averag\w*|pool\w*).{0,40}(over|across) (the )?(positions|tokens|sequence|len)",
            r"mean\(dim=1\)|\bpool",
            r"one vector per (sentence|sequence)",
            r"position.{0,40}(axis|dimension).{0,40}(lost|gone|missing|reduced|collapsed|"
            r"removed)",
            r"\(batch, d_model\)",
            r"(return|keep) (every|each|all) position",
        ),
        (*_STACK_OTHERS, r"mask.{0,30}(not passed|missing|ignored)"),
        edits=(
            (
                "return x if self.norm is None else self.norm(x)",
                "x = x if self.norm is None else self.norm(x)\n"
                "        return x.mean(dim=1)  # one vector per sentence",
            ),
        ),
        source=ENCODER_ONE_VECTOR,
    ),
    _c(
        "enc-sequential-drops-mask",
        L07,
        "Encoder",
        "chains the layers in an nn.Sequential and calls self.layers(x): Sequential passes "
        "one input from layer to layer, so the mask is never handed to any layer and the "
        "whole stack attends to the source padding (without padding it is right).",
        (
            r"sequential",
            r"mask.{0,60}(not|never|ignored|dropped|lost|without|missing)",
            r"(ignor|drop|los|never pass|not pass)\w*.{0,30}mask",
            r"attend\w*.{0,40}pad",
        ),
        _STACK_OTHERS,
        code="""
class Encoder(nn.Module):
    def __init__(self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False,
                 final_norm=None):
        super().__init__()
        self.layers = nn.Sequential(
            *[EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first)
              for _ in range(num_layers)]
        )
        use_final_norm = norm_first if final_norm is None else final_norm
        self.norm = LayerNorm(d_model) if use_final_norm else None

    def forward(self, x, mask=None):
        x = self.layers(x)
        return x if self.norm is None else self.norm(x)
""",
    ),
    # ------------------------------------------------------------------ 08 decoder
    _c(
        "dl-dropout-default-half",
        L08,
        "DecoderLayer",
        "builds the residual dropout as nn.Dropout() without the dropout argument, so it "
        "takes PyTorch's default p = 0.5 whatever rate the layer was given: in training every "
        "sub-layer's output is half dropped (eval mode hides it).",
        (
            r"p ?= ?0\.5|0\.5 (dropout|rate|probability)|(rate|probability|p) (of )?0\.5",
            r"default.{0,30}0\.5",
            r"nn\.Dropout\(\)",
            r"default (rate|probability|p\b)",
            r"dropout (rate|argument|probability|p\b).{0,50}(ignored|not (passed|used)|never)",
            r"(ignor|not pass|never pass)\w*.{0,30}dropout",
        ),
        (
            *_LAYER_OTHERS,
            r"mask.{0,30}(swapped|wrong|not passed)",
            r"cross.{0,30}(queries|keys|values) from",
        ),
        edits=(("self.dropout = nn.Dropout(dropout)", "self.dropout = nn.Dropout()"),),
        source=DROPOUT_DEFAULT_HALF,
    ),
    _c(
        "dl-cross-attention-only-with-src-mask",
        L08,
        "DecoderLayer",
        "puts the whole cross-attention sub-layer under `if src_mask is not None:` (meant to "
        "guard the mask only), so a call without a source mask skips the cross-attention "
        "and the decoder never reads the encoder's memory; calls with a mask are right.",
        (
            r"(skip|skipped|skips|never run|not run|missing|left out).{0,60}cross",
            r"cross.{0,60}(skip|never (run|applied)|not (run|applied)|only (when|if))",
            r"src_mask is (not )?None|without (a |the )?(source |src_)?mask",
            r"memory.{0,40}(never|not) (read|used)|ignores? (the )?memory",
        ),
        (*_LAYER_OTHERS, r"look-?ahead|tgt_mask.{0,30}cross"),
        code="""
class DecoderLayer(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__()
        self.norm_first = norm_first
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.cross_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)
        self.norm1 = LayerNorm(d_model)
        self.norm2 = LayerNorm(d_model)
        self.norm3 = LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if self.norm_first:
            h = self.norm1(x)
            x = x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])
            if src_mask is not None:
                h = self.norm2(x)
                x = x + self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])
            return x + self.dropout(self.feed_forward(self.norm3(x)))
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))
        if src_mask is not None:
            x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))
        return self.norm3(x + self.dropout(self.feed_forward(x)))
""",
    ),
    _c(
        "dec-layers-shallow-copied",
        L08,
        "Decoder",
        "builds one DecoderLayer and fills the stack with copy.copy(layer) for each layer: "
        "a shallow copy shares the original's parameter and sub-module dictionaries, so the "
        "num_layers layers are distinct objects holding one set of weights (copy.deepcopy, "
        "the annotated Transformer's clones, makes independent ones).",
        (
            r"shallow",
            r"copy\.copy|deepcopy",
            r"shar\w*.{0,40}(weights|parameters)",
            r"(same|one) (set of )?(weights|parameters)",
            r"(not )?independent",
        ),
        _STACK_OTHERS,
        code="""
import copy


class Decoder(nn.Module):
    def __init__(self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False,
                 final_norm=None):
        super().__init__()
        layer = DecoderLayer(d_model, num_heads, d_ff, dropout, norm_first)
        self.layers = nn.ModuleList([copy.copy(layer) for _ in range(num_layers)])
        use_final_norm = norm_first if final_norm is None else final_norm
        self.norm = LayerNorm(d_model) if use_final_norm else None

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for layer in self.layers:
            x = layer(x, memory, src_mask, tgt_mask)
        return x if self.norm is None else self.norm(x)
""",
        source=SHALLOW_COPY,
    ),
    _c(
        "dec-returns-sequence-first",
        L08,
        "Decoder",
        "returns the output transposed to (len_tgt, batch, d_model), the sequence-first "
        "layout of nn.TransformerDecoder's default (batch_first=False), instead of (batch, "
        "len_tgt, d_model) as it came in.",
        (
            r"sequence[- ]first",
            r"transpos",
            r"batch_first",
            r"\(len_tgt, batch",
            r"(first two )?(axes|dimensions) (swapped|exchanged|transposed|in the wrong order)",
        ),
        _STACK_OTHERS,
        edits=(
            (
                "return x if self.norm is None else self.norm(x)",
                "x = x if self.norm is None else self.norm(x)\n"
                "        return x.transpose(0, 1)  # (len_tgt, batch, d_model)",
            ),
        ),
    ),
    # ------------------------------------------------------------------ 09 transformer
    _c(
        "tr-tied-output-rescaled",
        L09,
        "Transformer",
        "with tie_embeddings=True multiplies the decoder's output by d_model ** -0.5 before "
        "the shared output projection (mesh-tensorflow's and T5's rescaling for tied "
        "embeddings), so a tied model's logits are sqrt(d_model) times too small; untied "
        "models are right.",
        (
            r"d_model ?\*\* ?-0?\.5|1 ?/ ?sqrt\(d_model\)",
            r"rescal",
            r"(scal|divid|shr[iu]nk|multipl)\w*.{0,40}(decoder's output|before the (output|shared) "
            r"(layer|projection)|logits)",
            r"\bT5\b",
            r"logits.{0,40}too small",
        ),
        (
            r"(not|never) tied|tie\w*.{0,30}(missing|never)",
            r"output.{0,30}bias",
            r"(applies|returns?) (a )?softmax|probabilities instead of logits",
            r"embeddings? (scaled|scaling) twice",
        ),
        edits=(
            ("self.pad_id = pad_id", "self.pad_id = pad_id\n        self.tied = tie_embeddings"),
            (
                "return self.output(y)",
                "if self.tied:  # rescale before the shared projection\n"
                "            y = y * y.shape[-1] ** -0.5\n"
                "        return self.output(y)",
            ),
        ),
        source=T5_TIED_SCALING,
    ),
    _c(
        "tr-target-mask-cached",
        L09,
        "Transformer",
        "caches the decoder's self-attention mask on the model (self.tgt_mask) and rebuilds "
        "it only when its shape changes, as the PyTorch word-language-model example does for "
        "its causal mask: but this mask also holds the batch's target padding, so a later "
        "batch of the same shape gets the first batch's padding.",
        (
            r"cach",
            r"(first|earlier|previous|stale|old) (call|batch|mask)",
            r"second call|later (call|batch)",
            r"reus|stored (on|in) (the )?(model|self)",
        ),
        (
            r"look-?ahead.{0,30}(missing|never)",
            r"src_mask.{0,40}(tgt|target)",
            r"pad_id.{0,30}(0|hard)",
        ),
        edits=(
            (
                "tgt_mask = decoder_self_attention_mask(tgt_ids, self.pad_id)",
                "shape = (tgt_ids.shape[0], 1, tgt_ids.shape[1], tgt_ids.shape[1])\n"
                "        if getattr(self, 'tgt_mask', None) is None or self.tgt_mask.shape != "
                "shape:\n"
                "            self.tgt_mask = decoder_self_attention_mask(tgt_ids, self.pad_id)\n"
                "        tgt_mask = self.tgt_mask",
            ),
        ),
        source=CACHED_MASK,
    ),
    _c(
        "cp-layer-norm-with-running-stats",
        L09,
        "count_parameters",
        "counts each LayerNorm as 4 * d_model, adding a running mean and a running variance "
        "to the gain and the bias as if it were a BatchNorm (whose running statistics are "
        "buffers anyway, not parameters), so every norm is counted twice over.",
        (
            r"layer ?norm",
            r"running (mean|var|stat)",
            r"batch ?norm",
            r"norm\w*.{0,40}(4 ?\* ?d_model|four|twice|double|2 ?\* ?d_model too many)",
            r"buffers?",
        ),
        (
            r"attention",
            r"feed-?forward|w_1|w_2",
            r"embedding|output layer",
            r"final (layer ?)?norm\w* (only|once)",
        ),
        edits=(("layer_norm = 2 * d_model", "layer_norm = 4 * d_model"),),
    ),
    _c(
        "cp-embedding-table-with-bias",
        L09,
        "count_parameters",
        "gives each embedding table a bias of vocab_size entries, as if nn.Embedding were a "
        "Linear layer (table = vocab_size * d_model + vocab_size): 'embeddings' is "
        "vocab_size too large per table (one table when tied, two otherwise).",
        (
            r"embedding.{0,60}(bias|vocab_size too (many|large)|extra)",
            r"(no|has no|without) bias.{0,40}embedding|embedding.{0,40}(no|has no|without) bias",
            r"nn\.Embedding.{0,60}(bias|lookup)",
        ),
        (
            r"output.{0,30}bias",
            r"tied.{0,40}(twice|two tables)",
            r"positional",
        ),
        edits=(
            (
                '"embeddings": table if tie_embeddings else 2 * table,',
                '"embeddings": (table + vocab_size) * (1 if tie_embeddings else 2),',
            ),
        ),
    ),
    _c(
        "gd-pad-and-bos-suppressed",
        L09,
        "greedy_decode",
        "sets the <pad> and <bos> logits to -inf before the argmax (generation libraries' "
        "suppress_tokens, 'pad is never a real word'), so whenever the model's most probable "
        "next token is one of them a row gets its second-best token instead of the argmax.",
        (
            r"(pad|bos|special).{0,60}(suppress|forbid|mask|exclud|-inf|never|block|ban)",
            r"(suppress|forbid|exclud|block|ban)\w*.{0,60}(pad|bos|special)",
            r"(second|next)[- ]best",
            r"argmax (over|of) (the )?(whole|full|every|all)",
            r"(logits|scores) (are )?(changed|modified|altered)",
        ),
        _GREEDY_OTHERS,
        code="""
def greedy_decode(model, src_ids, max_len, bos_id, eos_id):
    with torch.no_grad():
        memory = model.encode(src_ids)
        batch = src_ids.shape[0]
        tokens = torch.full((batch, 1), bos_id, dtype=torch.long)
        finished = torch.zeros(batch, dtype=torch.bool)
        for _ in range(max_len):
            logits = model.decode(tokens, memory, src_ids)[:, -1]
            logits[:, model.pad_id] = float("-inf")  # never generate <pad> or <bos>
            logits[:, bos_id] = float("-inf")
            next_token = logits.argmax(dim=-1)
            next_token = next_token.masked_fill(finished, model.pad_id)
            tokens = torch.cat([tokens, next_token[:, None]], dim=1)
            finished = finished | (next_token == eos_id)
            if finished.all():
                break
    return tokens[:, 1:]
""",
        source=PAD_NEVER_GENERATED,
    ),
    _c(
        "gd-repetition-penalty",
        L09,
        "greedy_decode",
        "applies a repetition penalty before the argmax (CTRL's 1.2: the logit of every "
        "token the row has already generated is divided by 1.2 when positive, multiplied "
        "when negative), so greedy decoding no longer picks the most probable token once a "
        "word could repeat.",
        (
            r"repetit",
            r"penal",
            r"already (generated|produced|seen)|previous(ly)? (generated )?tokens",
            r"(logits|scores).{0,40}(changed|modified|altered|divided|rescaled|scaled)",
            r"(not|isn't|no longer) (the )?(most probable|argmax)",
        ),
        _GREEDY_OTHERS,
        code="""
def greedy_decode(model, src_ids, max_len, bos_id, eos_id, repetition_penalty=1.2):
    with torch.no_grad():
        memory = model.encode(src_ids)
        batch = src_ids.shape[0]
        tokens = torch.full((batch, 1), bos_id, dtype=torch.long)
        finished = torch.zeros(batch, dtype=torch.bool)
        for _ in range(max_len):
            logits = model.decode(tokens, memory, src_ids)[:, -1]
            seen = logits.gather(1, tokens[:, 1:]) if tokens.shape[1] > 1 else None
            if seen is not None:  # CTRL's penalty on the tokens generated so far
                seen = torch.where(seen > 0, seen / repetition_penalty, seen * repetition_penalty)
                logits = logits.scatter(1, tokens[:, 1:], seen)
            next_token = logits.argmax(dim=-1)
            next_token = next_token.masked_fill(finished, model.pad_id)
            tokens = torch.cat([tokens, next_token[:, None]], dim=1)
            finished = finished | (next_token == eos_id)
            if finished.all():
                break
    return tokens[:, 1:]
""",
        source=REPETITION_PENALTY,
    ),
    # ------------------------------------------------------------------ 10 training
    _c(
        "mb-padded-to-dataset-max",
        L10,
        "make_batches",
        "pads every batch to the longest source and the longest target of all the pairs "
        "(a fixed max length computed once, as padding='max_length' does) instead of to the "
        "longest row of its own batch, so most batches carry extra columns of padding only.",
        (
            r"longest (row )?(of|in) (its|the|each|this) (own )?batch",
            r"(longest|max\w*).{0,40}(of|over|across|in) (all|every) (the )?(pairs|batches|sequences)",
            r"whole (data|dataset|corpus)|\bglobal",
            r"max(imum)? length.{0,30}(over|of|across) (all|every|the whole)",
            r"(extra|too many|additional) (pad(ding)? )?columns?|too (wide|long)",
            r"columns? of (only )?pad",
        ),
        _BATCH_OTHERS,
        code="""
def make_batches(pairs, batch_size, *, pad_id=PAD_ID, bos_id=BOS_ID, eos_id=EOS_ID,
                 shuffle=False, seed=0):
    src_len = max((len(source) for source, _ in pairs), default=0)
    tgt_len = max((len(target) for _, target in pairs), default=0) + 1

    def padded(rows, width):
        return torch.tensor([row + [pad_id] * (width - len(row)) for row in rows],
                            dtype=torch.long)

    order = list(range(len(pairs)))
    if shuffle:
        order = torch.randperm(len(pairs), generator=torch.Generator().manual_seed(seed)).tolist()
    batches = []
    for start in range(0, len(order), batch_size):
        chunk = [pairs[i] for i in order[start : start + batch_size]]
        src = padded([list(source) for source, _ in chunk], src_len)
        decoder_input = padded([[bos_id, *target] for _, target in chunk], tgt_len)
        labels = padded([[*target, eos_id] for _, target in chunk], tgt_len)
        batches.append((src, decoder_input, labels))
    return batches
""",
        source=PAD_TO_DATASET_MAX,
    ),
    _c(
        "mb-rows-sorted-within-batch",
        L10,
        "make_batches",
        "sorts the pairs of each batch by source length, longest first (the order "
        "pack_padded_sequence wants), so with shuffle=False batch 0 holds pairs[0:batch_size] "
        "but not in their order: row i is no longer pair i.",
        (
            r"sort",
            r"(order|reorder)\w*.{0,40}(rows|pairs|within)",
            r"row i.{0,40}(not|isn't) pair i|row order",
            r"descending|longest first",
            r"(not )?in (their|the original|the given) order",
        ),
        _BATCH_OTHERS,
        edits=(
            (
                "chunk = [pairs[i] for i in order[start : start + batch_size]]",
                "chunk = [pairs[i] for i in order[start : start + batch_size]]\n"
                "        chunk.sort(key=lambda pair: len(pair[0]), reverse=True)",
            ),
        ),
        source=SORT_WITHIN_BATCH,
    ),
    _c(
        "mb-labels-rolled",
        L10,
        "make_batches",
        "builds the labels by rolling the padded decoder input one step to the left "
        "(torch.roll(decoder_input, -1, dims=1)), which wraps the <bos> around to the last "
        "column: no row's labels end with <eos>, the longest rows end with <bos>, and the "
        "shorter ones have <bos> after their padding.",
        (
            r"roll",
            r"wrap",
            r"<?bos>?.{0,60}(end|last (column|position)|wrapped)",
            r"(no|missing|without|never) <?eos",
            r"<?eos>?.{0,40}(missing|never|absent|not appended)",
        ),
        (
            r"left[- ]pad|pad\w* (on )?the left",
            r"shift(ed)? twice|double",
            r"-100",
            r"shuffl",
        ),
        edits=(
            (
                "batches.append(tuple(torch.from_numpy(a) for a in (src, decoder_input, labels)))",
                "decoder_input = torch.from_numpy(decoder_input)\n"
                "        labels = torch.roll(decoder_input, -1, dims=1)  # next token at each step\n"
                "        batches.append((torch.from_numpy(src), decoder_input, labels))",
            ),
        ),
    ),
    _c(
        "noam-own-step-counter",
        L10,
        "noam_lr",
        "counts the steps itself, the way the annotated Transformer's NoamOpt keeps "
        "self._step (a counter kept on the function, increased at every call), and ignores "
        "the step argument: the first call gives step 1's rate, the n-th call step n's, "
        "whatever step is asked for.",
        (
            r"(ignor|never (use|read)|not (use|read)|disregard)\w*.{0,40}\bstep\b",
            r"counter",
            r"(own|internal|hidden) (step|state|count)",
            r"(number|count) of (calls|times)",
            r"(second|repeated|same|earlier|previous) call",
            r"state",
        ),
        (
            r"d_model ?\*\* ?-?0?\.5.{0,30}(missing|instead)",
            r"warmup ?\*\* ?-?(1\.5|0\.5)",
            r"step 0|zero",
            r"\bmax\b.{0,20}\bmin\b",
        ),
        code="""
def noam_lr(step, d_model, warmup):
    noam_lr.calls = getattr(noam_lr, "calls", 0) + 1  # like NoamOpt's self._step
    step = noam_lr.calls
    return d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)
""",
        source=NOAM_OWN_STEP,
    ),
    _c(
        "ls-target-term-on-raw-logits",
        L10,
        "label_smoothed_loss",
        "takes the right token's term from the raw logits, -logits[y] (gathered from logits "
        "instead of log_probs), while the smoothing term uses the log-probabilities: the "
        "target term is not -log p[y], so the loss changes when a constant is added to the "
        "logits and can be negative.",
        (
            r"raw logits",
            r"logits (instead of|rather than|not) (the )?log",
            r"(target|right token's|label's) term.{0,60}(from|on|uses?|used) (the )?(raw )?logits",
            r"unnormali[sz]ed",
            r"gather\w*.{0,40}(from )?(the )?logits",
            r"add\w* a constant",
        ),
        (*_LOSS_OTHERS, r"uniform.{0,40}logits|smoothing term.{0,40}logits"),
        edits=(
            (
                "target = -log_probs.gather(-1, safe_labels[..., None]).squeeze(-1)",
                "target = -logits.gather(-1, safe_labels[..., None]).squeeze(-1)",
            ),
        ),
    ),
    _c(
        "ls-cross-entropy-averaged-over-vocab",
        L10,
        "label_smoothed_loss",
        "builds the smoothed target q correctly but reduces q * -log p over the vocabulary "
        "with .mean(dim=-1) instead of .sum(dim=-1): each position's cross-entropy is divided "
        "by V, so the whole loss is V times too small.",
        (
            r"(divid|scal)\w*.{0,40}(\bV\b|vocab)",
            r"(mean|averag)\w*.{0,30}(over|across) (the )?(vocab|\bV\b)",
            r"(sum|add)\w*.{0,30}over (the )?(vocab|\bV\b)",
            r"\bV\b times (too )?(small|smaller|less)",
        ),
        _LOSS_OTHERS,
        code="""
def label_smoothed_loss(logits, labels, pad_id, smoothing=0.1):
    vocab = logits.shape[-1]
    log_probs = torch.log_softmax(logits, dim=-1)
    keep = labels != pad_id
    safe_labels = labels.masked_fill(~keep, 0)
    q = torch.full_like(log_probs, smoothing / vocab)
    q = q.scatter_add(-1, safe_labels[..., None],
                      torch.full_like(log_probs[..., :1], 1 - smoothing))
    loss = (q * -log_probs).mean(dim=-1)  # cross-entropy at each position
    return loss[keep].mean()
""",
    ),
    _c(
        "ts-loss-data-index",
        L10,
        "train_step",
        "returns loss.data[0], the pre-0.4 PyTorch idiom for the loss's value: the loss is a "
        "0-d tensor, so indexing it raises IndexError (invalid index of a 0-dim tensor) after "
        "the step has been taken, instead of returning loss.item().",
        (
            r"data\[0\]",
            r"\.item\(\)",
            r"invalid index|0-dim|zero-dim|0-d tensor",
            r"index\w*.{0,40}(scalar|0-d|zero-dim)",
        ),
        _STEP_OTHERS,
        edits=(("return loss.item()", "return loss.data[0]"),),
        source=LOSS_DATA_INDEX,
    ),
    _c(
        "ts-prints-loss-returns-none",
        L10,
        "train_step",
        "prints the loss (print(loss.item())) at the end of the step instead of returning "
        "it, so train_step returns None; the step itself is right.",
        (
            r"\bNone\b",
            r"(returns?|returned) nothing|no return|missing return|(doesn't|does not|never) "
            r"return",
            r"print",
        ),
        (*_STEP_OTHERS, r"tensor instead|a tensor"),
        edits=(("return loss.item()", "print(f'loss {loss.item():.4f}')"),),
    ),
    _c(
        "tsc-references-sorted-in-place",
        L10,
        "translation_scores",
        "sorts each sentence's list of references in place (refs.sort(), to build the "
        "streams in a canonical order): the scores are right, but the caller's reference "
        "lists are reordered, which the docstring forbids.",
        (
            r"modif|mutat",
            r"in[- ]place",
            r"caller",
            r"sort",
            r"reorder",
        ),
        (
            r"stream",
            r"\bNone\b",
            r"exact[_ ]match.{0,40}(fraction|count|percent)",
            r"0-100|scale",
        ),
        code="""
def translation_scores(hypotheses, references):
    for refs in references:
        refs.sort()  # a canonical order for the streams
    exact = sum(h in refs for h, refs in zip(hypotheses, references)) / len(hypotheses)
    width = max(len(refs) for refs in references)
    streams = [[refs[j] if j < len(refs) else None for refs in references] for j in range(width)]
    bleu = sacrebleu.corpus_bleu(hypotheses, streams).score
    return {"exact_match": exact, "bleu": bleu}
""",
    ),
    _c(
        "bs-beam-not-reset-per-sentence",
        L10,
        "beam_search",
        "creates the initial beam, [([], 0.0)], once before the loop over the sentences "
        "(finished is reset per sentence): every sentence after the first starts its search "
        "from the previous sentence's last live hypotheses instead of from the empty "
        "hypothesis; a batch of one sentence is right.",
        (
            r"beam.{0,60}(reset|re-?initiali|carried|left over|leftover|kept|shared)",
            r"(previous|first|earlier|last) sentence",
            r"(start|starts|begin|begins).{0,40}(empty hypothesis|from scratch|fresh)",
            r"(reset|fresh|new|empty) (beam|hypothesis) (for|per) (each|every) (sentence|row)",
            r"(carried|leaks?|left) over from",
        ),
        (*_BEAM_OTHERS, r"finished.{0,40}(shared|once)"),
        edits=(
            ("    results = []\n", "    results = []\n    beam = [([], 0.0)]\n"),
            (
                "beam, finished = [([], 0.0)], []",
                "finished = []",
            ),
        ),
    ),
    _c(
        "bs-returns-every-beam-hypothesis",
        L10,
        "beam_search",
        "returns the beam_size best hypotheses of every sentence (finished ones first, "
        "then live ones, by normalised score), beam_size rows per sentence as "
        "num_return_sequences does, instead of the single best hypothesis per sentence: the "
        "result has batch * beam_size rows.",
        (
            r"beam_size (rows|hypotheses|sequences|results|answers) (per|for each|for every)",
            r"(every|all) (the )?(beam'?s? )?hypothes\w+ (returned|instead)",
            r"one (row|answer|hypothesis) per (sentence|source)",
            r"(batch ?\* ?beam_size|beam_size times (too )?many) rows",
            r"(\d+|too many|more) rows",
            r"num_return_sequences",
        ),
        _BEAM_OTHERS,
        edits=(
            (
                "results.append(max(finished or beam, key=normalised)[0])",
                "ranked = sorted(finished, key=normalised, reverse=True) + beam\n"
                "            results.extend(tokens for tokens, _ in ranked[:beam_size])",
            ),
        ),
        source=RETURN_ALL_BEAMS,
    ),
]
