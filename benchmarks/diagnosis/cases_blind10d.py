"""Held-out wrong answers for lessons 05-08, blind round 10 (helper b10d, 2026-11-27).

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run. More than half transpose a mistake described in a public report (the URL read for this
benchmark with the search tool) to the course's exercise; the others are the author's.
Kinds favoured: mistakes that only show on some inputs (batch > 1, num_heads other than 8,
d_head other than 4, d_ff other than 2048, training mode, the default final_norm), wrong
shapes returned, an input modified in place, state-dict names, two mistakes at once
(torch.var_mean unpacked in the wrong order, with its unbiased default), a residual that
adds a sub-layer's output to itself, and a mask combined in the other convention.
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
SPLIT_CONCAT_BATCH = "https://github.com/Kyubyong/transformer/issues/55"
DROPOUT_UNUSED = "https://github.com/zhouhaoyi/Informer2020/issues/97"
PADDING_NOT_CAUSAL = "https://github.com/huggingface/candle/pull/3609"
MASKS_AND_OR = "https://github.com/lucidrains/local-attention/issues/5"
GAMMA_BETA = "https://github.com/huggingface/transformers/issues/29554"
LN_RANDOM_INIT = "https://github.com/pytorch/pytorch/pull/4922"
FFN_2048 = "https://github.com/OpenNMT/OpenNMT-py/issues/771"
INPLACE_RESIDUAL = (
    "https://discuss.pytorch.org/t/when-would-the-error-one-of-the-variables-needed-for-"
    "gradient-computation-has-been-modified-occur/11976"
)
RESIDUAL_X_PLUS_X = "https://github.com/kyegomez/BitNet/issues/32"
OUTER_RESIDUAL_IN_LOOP = "https://github.com/lucidrains/x-transformers/issues/145"
CROSS_USES_SELF = "https://github.com/maxjcohen/transformer/issues/23"
RESIDUAL_OUTPUT_PLUS_OUTPUT = "https://github.com/LeeSureman/Flat-Lattice-Transformer/issues/111"
NO_NORM_AFTER_FFN = "https://github.com/keyvank/femtoGPT/issues/29"

_c = held_out_authored("blind10d")

_MHA_INIT = (
    "class MultiHeadAttention(nn.Module):\n"
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
)

BLIND10D: list[Case] = [
    # ------------------------------------------------------------------ 05 multi-head attention
    _c(
        "split-heads-concat-on-batch-axis",
        L05,
        "split_heads",
        "cuts the features into num_heads pieces and concatenates them along the batch axis "
        "(torch.cat(torch.split(x, d_head, dim=-1), dim=0), the TensorFlow recipe), "
        "returning a 3-D (num_heads * batch, len, d_head) tensor, head-major, instead of "
        "(batch, num_heads, len, d_head).",
        (
            r"(fold|concatenat|stack|cat)\w*.{0,50}(batch|first|0) ?(axis|dim)",
            r"heads?.{0,40}(into|onto|along|in) the (batch|first) (axis|dim)",
            r"(3|three)[- ]?(d\b|dim|axes|dimension)",
            r"num_heads \* batch|batch \* num_heads",
            r"\(\d+, \d+, \d+\) instead of \(\d+, \d+, \d+, \d+\)",
        ),
        (r"float", r"dtype", r"d_head before len"),
        code="def split_heads(x, num_heads):\n"
        "    d_head = x.shape[-1] // num_heads\n"
        "    return torch.cat(torch.split(x, d_head, dim=-1), dim=0)\n",
        source=SPLIT_CONCAT_BATCH,
    ),
    _c(
        "merge-transposes-last-two-axes",
        L05,
        "merge_heads",
        "transposes the last two axes (x.transpose(-2, -1), the habit from k.transpose(-2, "
        "-1)) instead of axes 1 and 2 before the reshape, so the shape comes out right but "
        "each token's vector mixes positions and features of one head.",
        (
            r"transpos\w*.{0,50}(last two|-2, -1|-1, -2|2, 3|3, 2|d_head and len|len and d_head)",
            r"(axes|dims|dimensions) 1 and 2",
            r"transpose\(1, ?2\)",
            r"wrong (pair of )?ax[ei]s",
        ),
        (
            r"without (a |the )?transpos",
            r"no transpos",
            r"forg[eo]t\w* (the )?transpos",
            r"float|dtype",
        ),
        edits=[
            (
                "x.transpose(1, 2).reshape(batch, length, num_heads * d_head)",
                "x.transpose(-2, -1).reshape(batch, length, num_heads * d_head)",
            )
        ],
    ),
    _c(
        "merge-loop-over-eight-heads",
        L05,
        "merge_heads",
        "concatenates the heads in a loop over range(8), the paper's h hard-coded, instead "
        "of over x.shape[1]: fewer than 8 heads raise an IndexError, more than 8 drop heads.",
        (
            r"\b8\b.{0,50}heads?",
            r"heads?.{0,50}\b8\b",
            r"hard[- ]?cod",
            r"x\.shape\[1\]|x\.size\(1\)",
            r"number of heads.{0,40}(from|of) (x|the input|its shape)",
        ),
        (r"transpos", r"float|dtype", r"contiguous"),
        code="def merge_heads(x):\n    return torch.cat([x[:, i] for i in range(8)], dim=-1)\n",
    ),
    _c(
        "mha-dropout-built-never-applied",
        L05,
        "MultiHeadAttention",
        "creates self.dropout in __init__ but never applies it in forward (the heads are "
        "scaled_dot_product_attention's output as they come), so training mode with "
        "dropout > 0 gives the same output as eval mode.",
        (
            r"dropout.{0,60}(never|not) (applied|used|called)",
            r"(never|not|no) (appl|us|call)\w*.{0,30}dropout",
            r"dropout (has|had) no effect",
            r"train\w*( mode)?.{0,80}(same|identical|unchanged|as in eval|deterministic)",
            r"(no|without|missing) dropout",
        ),
        (
            r"(still|stays|remains) (on|active) in eval",
            r"dropout (on|to) the (values|output|scores)",
            r"mask",
        ),
        edits=[
            (
                "        if self.training and self.dropout.p > 0:\n"
                "            heads = self.dropout(weights) @ v",
                "        if False:\n            pass",
            )
        ],
        source=DROPOUT_UNUSED,
    ),
    _c(
        "mha-inline-scale-power-precedence",
        L05,
        "MultiHeadAttention",
        "writes the attention inline with scale = d_head ** 1/2, which Python reads as "
        "(d_head ** 1) / 2 = d_head / 2, not the square root: right only when d_head == 4.",
        (
            r"\*\* ?\(?1 ?/ ?2",
            r"precedence",
            r"d_head ?/ ?2|d_k ?/ ?2",
            r"half (of )?(d_head|d_k)",
            r"(scal\w*|divid\w*).{0,60}(d_head|d_k) / 2",
        ),
        (
            r"sqrt\(d_model\)|by d_model",
            r"no scal|not scaled|unscaled|without (the )?scal",
            r"num_heads",
            r"mask",
        ),
        code=_MHA_INIT + "    def forward(self, query, key, value, mask=None):\n"
        "        q = split_heads(self.w_q(query), self.num_heads)\n"
        "        k = split_heads(self.w_k(key), self.num_heads)\n"
        "        v = split_heads(self.w_v(value), self.num_heads)\n"
        "        d_head = self.d_model // self.num_heads\n"
        "        scale = d_head ** 1/2\n"
        "        scores = q @ k.transpose(-2, -1) / scale\n"
        "        if mask is not None:\n"
        "            scores = scores.masked_fill(~mask, -1e9)\n"
        "        weights = torch.softmax(scores, dim=-1)\n"
        "        heads = self.dropout(weights) @ v\n"
        "        return self.w_o(merge_heads(heads)), weights\n",
    ),
    # ------------------------------------------------------------------ 06 masking
    _c(
        "padmask-view-batch-of-one",
        L06,
        "padding_mask",
        "reshapes the comparison with .view(1, 1, 1, -1), written for one sentence: with "
        "batch > 1 the batch axis is folded into the last one, (1, 1, 1, batch * len) "
        "instead of (batch, 1, 1, len).",
        (
            r"hard[- ]?cod",
            r"batch (size )?(of )?(1|one)\b",
            r"(flatten|merg|fold|collaps)\w*.{0,40}batch",
            r"batch.{0,40}(flattened|merged|folded|collapsed|lost)",
            r"only (works|right|correct) (for|with) (a )?(single|one)",
            r"view\(1, 1, 1, -1\)",
        ),
        (r"dtype|float|long|uint8", r"invert", r"quer(y|ies) axis", r"pad_id|pad id"),
        edits=[
            (
                "return (ids != pad_id)[:, None, None, :]",
                "return (ids != pad_id).view(1, 1, 1, -1)",
            )
        ],
    ),
    _c(
        "lookahead-not-triu-without-offset",
        L06,
        "look_ahead_mask",
        "inverts torch.triu of a bool matrix without diagonal=1 (~torch.triu(ones)), so "
        "the diagonal is blocked too: no position may attend to itself.",
        (
            r"diagonal",
            r"(attend|see|look)\w* (to |at )?(itself|its own)",
            r"j ?< ?i",
        ),
        (
            r"polarity|invert",
            r"dtype|float",
            r"(sees|attend\w*|look\w*) (to |at )?(the )?future",
        ),
        edits=[
            (
                "return torch.tril(torch.ones(size, size, dtype=torch.bool))",
                "return ~torch.triu(torch.ones(size, size, dtype=torch.bool))",
            )
        ],
    ),
    _c(
        "decmask-padding-only-expanded",
        L06,
        "decoder_self_attention_mask",
        "builds the mask from the padding alone, expanded to (batch, 1, len, len), and "
        "never combines it with the look-ahead mask, so every query may attend to the real "
        "tokens after it.",
        (
            r"look[- ]ahead.{0,50}(missing|not (applied|used|combined|included)|forg|absent)",
            r"(missing|without|no|forg[eo]t\w*) (the )?(look[- ]ahead|causal)",
            r"(future|later) (keys?|positions?|tokens?).{0,50}(visible|allowed|attend|True)",
            r"(attend|see)s? (to )?(the )?(future|later)",
            r"causal (part|mask|rule).{0,40}(missing|absent|not)",
            r"only the padding",
        ),
        (
            r"\|.{0,30}(instead of|not|rather than) ?&|either (rule|mask)",
            r"padding.{0,30}(missing|not applied|forg)",
            r"quer(y|ies) axis|pad rows",
        ),
        edits=[
            (
                "return padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[1])",
                "length = tgt_ids.shape[1]\n"
                "    return padding_mask(tgt_ids, pad_id).expand(-1, -1, length, -1)",
            )
        ],
        source=PADDING_NOT_CAUSAL,
    ),
    _c(
        "decmask-expanded-to-eight-heads",
        L06,
        "decoder_self_attention_mask",
        "expands the combined mask to 8 heads (.expand(-1, 8, -1, -1), the paper's h "
        "hard-coded), returning (batch, 8, len, len) instead of (batch, 1, len, len), which "
        "breaks for any other number of heads.",
        (
            r"\b8\b.{0,50}heads?",
            r"heads? (axis|dimension).{0,50}(1|one|size 1)",
            r"(expand|repeat)\w*.{0,50}heads?",
            r"\(\d+, 8, \d+, \d+\)",
            r"hard[- ]?cod",
        ),
        (r"\|.{0,30}&", r"future", r"pad(_| )id", r"diagonal"),
        edits=[
            (
                "return padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[1])",
                "mask = padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[1])\n"
                "    return mask.expand(-1, 8, -1, -1)",
            )
        ],
    ),
    _c(
        "decmask-blocked-masks-and-then-inverted",
        L06,
        "decoder_self_attention_mask",
        "builds both masks in the True = blocked convention (tgt_ids == pad_id and "
        "triu(diagonal=1)) and combines them with & before inverting: a key is then blocked "
        "only when BOTH rules block it (blocked masks need |), which is the same as "
        "allowing a key that either rule allows.",
        (
            r"either (rule|mask|one)",
            r"(one|any) of the (two )?(rules|masks)",
            r"blocked.{0,60}(both|\|)",
            r"de ?morgan",
            r"\bor\b.{0,30}(instead of|rather than|not).{0,10}\band\b",
        ),
        (
            r"look[- ]ahead.{0,30}(missing|invert|forg)",
            r"padding.{0,30}(missing|invert|forg)",
            r"polarity",
            r"quer(y|ies) axis",
        ),
        code="def decoder_self_attention_mask(tgt_ids, pad_id):\n"
        "    length = tgt_ids.shape[1]\n"
        "    pad_blocked = (tgt_ids == pad_id)[:, None, None, :]\n"
        "    future_blocked = torch.triu(torch.ones(length, length, dtype=torch.bool), 1)\n"
        "    return ~(pad_blocked & future_blocked)\n",
        source=MASKS_AND_OR,
    ),
    # ------------------------------------------------------------------ 07 encoder
    _c(
        "ln-var-mean-unpacked-reversed",
        L07,
        "LayerNorm",
        "two mistakes at once: unpacks torch.var_mean as (mean, variance) although it "
        "returns (variance, mean), so the mean and the variance are exchanged, and keeps "
        "var_mean's unbiased (n - 1) default.",
        (
            r"var_mean",
            r"(mean and (the )?variance|variance and (the )?mean).{0,40}(swapped|exchanged|reversed|order)",
            r"returns? \(var\w*, mean\)",
            r"(swapped|exchanged) (the )?mean and (the )?variance",
        ),
        (r"eps", r"keepdim", r"(gain|weight) and (the )?bias"),
        edits=[
            (
                "mean = x.mean(dim=-1, keepdim=True)  # (..., 1): one mean per token\n"
                "        variance = x.var(dim=-1, keepdim=True, unbiased=False)",
                "mean, variance = torch.var_mean(x, dim=-1, keepdim=True)",
            )
        ],
    ),
    _c(
        "ln-parameters-named-gamma-beta",
        L07,
        "LayerNorm",
        "names the learned parameters gamma and beta (the paper's symbols, as old BERT "
        "checkpoints did) instead of weight and bias, so the state-dict keys differ from "
        "nn.LayerNorm's; the computation is right.",
        (
            r"gamma|beta",
            r"(weight|bias).{0,50}(names?|keys?|attribute|missing)",
            r"state[- ]dict.{0,40}keys?",
            r"named? `?weight`? and `?bias`?",
        ),
        (r"eps", r"varian", r"init\w* (to )?(ones|zeros)", r"swap"),
        edits=[
            (
                "self.weight = nn.Parameter(torch.ones(d_model))",
                "self.gamma = nn.Parameter(torch.ones(d_model))",
            ),
            (
                "self.bias = nn.Parameter(torch.zeros(d_model))",
                "self.beta = nn.Parameter(torch.zeros(d_model))",
            ),
            (
                "return self.weight * (x - mean) / torch.sqrt(variance + self.eps) + self.bias",
                "return self.gamma * (x - mean) / torch.sqrt(variance + self.eps) + self.beta",
            ),
        ],
        source=GAMMA_BETA,
    ),
    _c(
        "ln-gain-random-init",
        L07,
        "LayerNorm",
        "initialises the gain with random numbers (torch.rand(d_model), uniform in [0, 1)) "
        "instead of ones, so a fresh layer rescales every feature by a random factor; the "
        "formula is right.",
        (
            r"init\w*.{0,60}(ones|\b1\b)",
            r"random\w*.{0,40}(weight|gain|init)",
            r"(weight|gain).{0,50}(random|not (all )?ones|uniform)",
            r"torch\.ones",
        ),
        (r"swap", r"bias.{0,30}(ones|random)", r"eps", r"varian"),
        edits=[
            (
                "self.weight = nn.Parameter(torch.ones(d_model))",
                "self.weight = nn.Parameter(torch.rand(d_model))",
            )
        ],
        source=LN_RANDOM_INIT,
    ),
    _c(
        "ffn-linears-without-bias",
        L07,
        "PositionwiseFeedForward",
        "builds both linear layers with bias=False (as T5 and LLaMA do), so there are no "
        "w_1.bias and w_2.bias parameters, where the paper's network has biases.",
        (
            r"bias",
            r"(w_1|w_2)\.bias",
        ),
        (r"relu", r"dropout", r"d_ff", r"gelu"),
        edits=[
            (
                "self.w_1 = nn.Linear(d_model, d_ff)",
                "self.w_1 = nn.Linear(d_model, d_ff, bias=False)",
            ),
            (
                "self.w_2 = nn.Linear(d_ff, d_model)",
                "self.w_2 = nn.Linear(d_ff, d_model, bias=False)",
            ),
        ],
    ),
    _c(
        "ffn-hidden-width-2048",
        L07,
        "PositionwiseFeedForward",
        "hard-codes the paper's hidden width, nn.Linear(d_model, 2048) and nn.Linear(2048, "
        "d_model), ignoring the d_ff argument: right only when d_ff == 2048.",
        (
            r"2048",
            r"d_ff.{0,50}(ignored|not used|unused|hard|fixed)",
            r"hidden (width|size|layer|dimension).{0,50}(d_ff|wrong|2048)",
            r"hard[- ]?cod",
        ),
        (r"d_model.{0,20}(wide|instead)", r"relu", r"dropout"),
        edits=[
            ("self.w_1 = nn.Linear(d_model, d_ff)", "self.w_1 = nn.Linear(d_model, 2048)"),
            ("self.w_2 = nn.Linear(d_ff, d_model)", "self.w_2 = nn.Linear(2048, d_model)"),
        ],
        source=FFN_2048,
    ),
    _c(
        "enc-layer-pre-ln-in-place-residual",
        L07,
        "EncoderLayer",
        "pre-LN: adds the sub-layers' outputs with x += ..., in place, so the caller's input "
        "tensor is overwritten with the layer's output (and autograd refuses it when x is a "
        "leaf that requires grad); the values returned are right.",
        (
            r"in[- ]place",
            r"\+=",
            r"(modif|overwr|chang|mutat)\w*.{0,40}(input|caller|argument)",
            r"(input|caller'?s?|argument).{0,40}(modified|overwritten|changed|mutated)",
        ),
        (r"residual.{0,30}(missing|normali[sz]ed)", r"norm[12]?.{0,20}(missing|wrong)", r"mask"),
        edits=[
            (
                "x = x + self.dropout(self.self_attn(h, h, h, mask)[0])\n"
                "            return x + self.dropout(self.feed_forward(self.norm2(x)))",
                "x += self.dropout(self.self_attn(h, h, h, mask)[0])\n"
                "            x += self.dropout(self.feed_forward(self.norm2(x)))\n"
                "            return x",
            )
        ],
        source=INPLACE_RESIDUAL,
    ),
    _c(
        "enc-layer-post-ln-attention-output-added-to-itself",
        L07,
        "EncoderLayer",
        "post-LN: assigns the attention's output to x (x = self_attn(x, x, x, mask)[0]) and "
        "then adds x to itself (norm1(x + dropout(x))), so the layer's input is lost: the "
        "attention sub-layer has no residual connection in effect.",
        (
            r"(no|without|missing|lost|forg[eo]t\w*) (the )?residual",
            r"residual.{0,60}(missing|lost|not added|omitted|itself|sub-?layer'?s? (own )?output)",
            r"x \+ x|to itself",
            r"input (x )?(is )?(overwritten|lost|replaced)",
            r"(overwrit|replac)\w*.{0,40}\bx\b",
        ),
        (r"norm1?.{0,20}(missing|twice)", r"mask", r"dropout.{0,20}(placement|after)"),
        edits=[
            (
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))",
                "x = self.self_attn(x, x, x, mask)[0]\n        x = self.norm1(x + self.dropout(x))",
            )
        ],
        source=RESIDUAL_X_PLUS_X,
    ),
    _c(
        "enc-layer-post-ln-ffn-without-dropout",
        L07,
        "EncoderLayer",
        "post-LN: applies the residual dropout to the attention sub-layer only and forgets "
        "it on the feed-forward sub-layer (norm2(x + feed_forward(x))); only training mode "
        "shows it.",
        (
            r"dropout.{0,60}feed[- ]forward",
            r"feed[- ]forward.{0,60}dropout",
            r"second sub-?layer.{0,50}dropout",
            r"dropout.{0,50}(second|ffn|ff) sub-?layer",
        ),
        (
            r"dropout.{0,40}(residual sum|after (the )?norm)",
            r"attention.{0,40}dropout (missing|not)",
            r"mask",
        ),
        edits=[
            (
                "return self.norm2(x + self.dropout(self.feed_forward(x)))",
                "return self.norm2(x + self.feed_forward(x))",
            )
        ],
    ),
    _c(
        "encoder-residual-around-each-layer",
        L07,
        "Encoder",
        "adds a residual connection around every whole layer (x = x + layer(x, mask)), "
        "although each layer already has its own residuals inside.",
        (
            r"(extra|additional|second|outer) residual",
            r"residual.{0,50}(around|each layer|whole layer|stack)",
            r"x \+ layer",
            r"adds? (the )?(layer'?s? )?input.{0,50}(output|back)",
        ),
        (r"chain", r"final norm", r"mask", r"plain list|ModuleList"),
        edits=[("x = layer(x, mask)", "x = x + layer(x, mask)")],
        source=OUTER_RESIDUAL_IN_LOOP,
    ),
    _c(
        "encoder-final-norm-default-inverted",
        L07,
        "Encoder",
        "reads final_norm=None the wrong way round (not norm_first): the default post-LN "
        "stack gets a final LayerNorm and the default pre-LN stack none; explicit True and "
        "False are right.",
        (
            r"final_norm=None",
            r"(default|None).{0,60}(norm_first|same as)",
            r"(invert|revers|opposite|swap|wrong way)\w*.{0,50}(default|norm_first|rule|None)",
            r"post-LN.{0,80}(final|extra) (norm|LayerNorm).{0,120}pre-LN.{0,60}(no|without|missing)",
        ),
        (r"chain", r"plain list|ModuleList", r"mask", r"shared"),
        edits=[
            (
                "use_final_norm = norm_first if final_norm is None else final_norm",
                "use_final_norm = (not norm_first) if final_norm is None else final_norm",
            )
        ],
    ),
    # ------------------------------------------------------------------ 08 decoder
    _c(
        "declayer-cross-attention-through-self-attn",
        L08,
        "DecoderLayer",
        "builds cross_attn but calls self.self_attn for the cross-attention too (in both "
        "branches), so the two attentions share one set of weights and cross_attn is never "
        "used.",
        (
            r"cross_attn.{0,60}(never|not) (used|called)",
            r"self_attn.{0,60}(cross|twice|both|memory)",
            r"(same|one) (attention )?(module|weights).{0,50}(both|twice|self and cross)",
            r"cross[- ]attention.{0,60}self_attn",
        ),
        (
            r"(queries|query).{0,40}(from )?memory",
            r"src_mask|tgt_mask",
            r"norm[123]",
        ),
        edits=[
            (
                "self.cross_attn(h, memory, memory, src_mask)",
                "self.self_attn(h, memory, memory, src_mask)",
            ),
            (
                "self.cross_attn(x, memory, memory, src_mask)",
                "self.self_attn(x, memory, memory, src_mask)",
            ),
        ],
        source=CROSS_USES_SELF,
    ),
    _c(
        "declayer-pre-ln-self-attention-output-added-to-itself",
        L08,
        "DecoderLayer",
        "pre-LN: assigns the self-attention's output to x and then adds x to itself "
        "(x = x + dropout(x)), so the residual stream is lost and twice the attention "
        "output goes on.",
        (
            r"(no|without|missing|lost|forg[eo]t\w*) (the )?residual",
            r"residual.{0,60}(missing|lost|not added|omitted|itself|sub-?layer'?s? (own )?output)",
            r"x \+ x|to itself|twice the",
            r"input (x )?(is )?(overwritten|lost|replaced)",
            r"(overwrit|replac)\w*.{0,40}\bx\b",
        ),
        (r"norm[123]?.{0,20}(missing|twice)", r"mask", r"cross"),
        edits=[
            (
                "x = x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])",
                "x = self.self_attn(h, h, h, tgt_mask)[0]\n            x = x + self.dropout(x)",
            )
        ],
        source=RESIDUAL_OUTPUT_PLUS_OUTPUT,
    ),
    _c(
        "declayer-post-ln-no-norm3",
        L08,
        "DecoderLayer",
        "post-LN: returns x + dropout(feed_forward(x)) without norm3, so the feed-forward "
        "sub-layer's sum is never normalised (norm3 is built but unused).",
        (
            r"norm3.{0,50}(missing|never|not (used|applied|called)|unused)",
            r"(missing|no|without|forg[eo]t\w*) (the )?(final |third |last )?(norm3|LayerNorm|norm)",
            r"feed[- ]forward.{0,60}(not normali[sz]ed|no norm|without (a )?norm)",
        ),
        (r"norm2.{0,20}twice", r"residual.{0,30}missing", r"dropout", r"mask"),
        edits=[
            (
                "return self.norm3(x + self.dropout(self.feed_forward(x)))",
                "return x + self.dropout(self.feed_forward(x))",
            )
        ],
        source=NO_NORM_AFTER_FFN,
    ),
    _c(
        "decoder-indexes-layer-output",
        L08,
        "Decoder",
        "takes element [0] of each layer's output (x = layer(...)[0], the habit from layers "
        "that return a tuple), but DecoderLayer returns a tensor, so [0] keeps the first "
        "sequence of the batch only, (len_tgt, d_model), and the next layer fails.",
        (
            r"\[0\]",
            r"(first|one) (sequence|batch element|example|row).{0,40}(only|kept|index)",
            r"(index|indexing)\w*.{0,40}(batch|output|result)",
            r"(returns?|is) a tensor,? not a (tuple|pair)",
            r"batch (axis|dimension).{0,30}(dropped|lost|removed)",
        ),
        (r"mask", r"memory", r"chain", r"final norm"),
        edits=[
            (
                "x = layer(x, memory, src_mask, tgt_mask)",
                "x = layer(x, memory, src_mask, tgt_mask)[0]",
            )
        ],
    ),
    _c(
        "decoder-skips-first-layer",
        L08,
        "Decoder",
        "loops over self.layers[1:] (an off-by-one, as if layers[0] were the input), so "
        "the first layer never runs: num_layers - 1 layers are applied.",
        (
            r"layers\[0\].{0,50}(never|not|skipped)",
            r"(skip|miss)\w*.{0,30}(first|layers\[0\])",
            r"first layer.{0,50}(never|not) (run|called|used|applied)",
            r"one layer (fewer|too few|missing)",
            r"layers\[1:\]",
        ),
        (r"last layer", r"chain", r"final norm", r"mask"),
        edits=[("for layer in self.layers:", "for layer in self.layers[1:]:")],
    ),
]
