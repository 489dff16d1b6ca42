"""Held-out wrong answers for lessons 07-08, blind round 11 (helper r11g, 2026-11-27).

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run. Eleven of the 24 transpose a mistake reported in a public issue thread (the URL read
for this benchmark) to the course's exercise; the others are the author's. Kinds favoured
this round: two mistakes at once, mistakes that show only on some inputs (a non-default
argument, train mode, a float64 input, padding, num_layers > 1, len_src != len_tgt),
arguments swapped, raw exceptions inside the learner's code, a sub-result replaced by the
input, and a loop whose state is never updated.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L07, L08 = "07_encoder", "08_decoder"

# The reports these cases transpose (each read with the search tool for this benchmark).
STD_PLUS_EPS = "https://github.com/hyunwoongko/transformer/issues/7"
UNBIASED_STD = "https://github.com/harvardnlp/annotated-transformer/pull/119"
RESIDUAL_INSIDE = "https://github.com/probml/pml-book/issues/709"
ALWAYS_PRE_LN = "https://github.com/espnet/espnet/issues/766"
SHARED_LIST = "https://github.com/zalandoresearch/pytorch-vq-vae/issues/2"
SAME_LAYER_REUSED = "https://github.com/espnet/espnet/issues/1278"
DUPLICATE_FINAL_NORM = "https://github.com/facebookresearch/detr/issues/94"
PRE_LN_NO_FINAL_NORM = "https://github.com/NVIDIA-NeMo/Speech/pull/2197"
CROSS_KV_FROM_DECODER = "https://github.com/bentrevett/pytorch-seq2seq/issues/143"
CROSS_WRONG_MASK = "https://github.com/Kamichanw/SeekDeeper/issues/3"
PRE_LN_CROSS_QUERY = "https://github.com/keras-team/keras-hub/pull/350"

_c = held_out_authored("blind11g")

_LN_OTHERS = (
    r"unbiased|\b[dn] ?- ?1\b|bessel",
    r"outside the square root|(std|σ|sigma) ?\+ ?(ε|eps)",
    r"over the (batch|positions|sentence)",
    r"float32|dtype",
)
_STACK_OTHERS = (
    r"same (layer )?object|one layer object|shar(e|ed|es) (its |the )?weights",
    r"final (layer ?)?norm",
    r"mask",
)
_SHARED_NAMED = (
    r"same (layer )?object",
    r"one layer.{0,40}(repeated|times|shared|object)",
    r"shar(e|es|ed|ing) .{0,20}(weights|parameters)",
    r"\] ?\* ?num_layers",
    r"not independent|identical objects|each layer.{0,30}own weights",
)
_MASK_ORDER_NAMED = (
    r"(src_mask|tgt_mask).{0,80}(swapped|order|other's|each other)",
    r"(order|positions?) of (the )?(two )?(masks|arguments|parameters)",
    r"(arguments?|parameters?|masks).{0,40}(swapped|in the wrong order|reversed)",
)

BLIND11G: list[Case] = [
    # ------------------------------------------------------------------ 07 LayerNorm
    _c(
        "ln-std-plus-eps-unbiased",
        L07,
        "LayerNorm",
        "two mistakes at once: divides by x.std(-1) + eps, which is the unbiased (d - 1) "
        "standard deviation and has eps outside the square root, instead of "
        "sqrt(biased variance + eps).",
        (
            r"(?s)(?=.*(unbiased|\b[dn] ?- ?1\b|bessel|correction))"
            r"(?=.*(outside the square root|(std|σ|sigma|standard deviation)\)? ?\+ ?(ε|eps)))",
            r"std\(.{0,40}\) ?\+ ?(self\.)?eps",
        ),
        (r"eps.{0,40}(ignored|default)", r"over the (batch|positions|sentence)", r"float32"),
        edits=[
            (
                "variance = x.var(dim=-1, keepdim=True, unbiased=False)",
                "std = x.std(dim=-1, keepdim=True)",
            ),
            ("/ torch.sqrt(variance + self.eps)", "/ (std + self.eps)"),
        ],
        source=STD_PLUS_EPS,
    ),
    _c(
        "ln-unbiased-var",
        L07,
        "LayerNorm",
        "takes x.var(dim=-1, keepdim=True) without unbiased=False: the variance is divided "
        "by d - 1 instead of d, so every output is sqrt((d-1)/d) times the right one "
        "(before the bias).",
        (r"unbiased", r"\b[dn] ?- ?1\b", r"bessel", r"correction"),
        (
            r"eps.{0,40}(outside|ignored|default|not inside)",
            r"(std|σ|sigma) ?\+ ?(ε|eps)",
            r"over the (batch|positions|sentence)",
            r"float32",
        ),
        edits=[
            (
                "x.var(dim=-1, keepdim=True, unbiased=False)",
                "x.var(dim=-1, keepdim=True)",
            )
        ],
        source=UNBIASED_STD,
    ),
    _c(
        "ln-eps-argument-ignored",
        L07,
        "LayerNorm",
        "stores the constant 1e-5 as self.eps instead of the eps argument: right for the "
        "default, wrong for LayerNorm(d, eps=...) with any other value (visible on tokens "
        "whose variance is small).",
        (
            r"eps.{0,80}(ignor|not (used|stored|passed)|argument|always 1e-0?5|hard-?coded)",
            r"(argument|constructor|__init__).{0,60}eps",
            r"self\.eps ?= ?1e-0?5",
        ),
        _LN_OTHERS[:3],
        edits=[("self.eps = eps", "self.eps = 1e-5")],
    ),
    _c(
        "ln-casts-to-float32",
        L07,
        "LayerNorm",
        "starts forward with x = x.float(), so a float64 input comes back float32 (and "
        "loses precision), against the docstring.",
        (r"float32", r"float64", r"dtype", r"\.float\(\)", r"cast"),
        _LN_OTHERS[:3],
        edits=[
            (
                "mean = x.mean(dim=-1, keepdim=True)",
                "x = x.float()\n        mean = x.mean(dim=-1, keepdim=True)",
            )
        ],
    ),
    _c(
        "ln-over-whole-sentence",
        L07,
        "LayerNorm",
        "takes the mean and the variance over the last two axes, dim=(-2, -1) (the whole "
        "sentence, the image-style LayerNorm), instead of over each token's features: "
        "every token of a sequence shares one mean and variance (and a 1-D input raises).",
        (
            r"over (the|all|every) (positions|sentence|tokens)|whole sentence",
            r"\(-2, ?-1\)",
            r"(last|one) (axis|dimension|dim) only|more than the last (axis|dim)",
            r"(each|every) token.{0,40}(own|separately|on its own)",
        ),
        (_LN_OTHERS[0], _LN_OTHERS[1], r"over the batch", r"float32"),
        edits=[
            ("x.mean(dim=-1, keepdim=True)", "x.mean(dim=(-2, -1), keepdim=True)"),
            (
                "x.var(dim=-1, keepdim=True, unbiased=False)",
                "x.var(dim=(-2, -1), keepdim=True, unbiased=False)",
            ),
        ],
    ),
    # ------------------------------------------------------ 07 PositionwiseFeedForward
    _c(
        "ffn-dropout-after-w2",
        L07,
        "PositionwiseFeedForward",
        "applies the dropout to the output of w_2 instead of to the d_ff-wide hidden "
        "activations between the ReLU and w_2: the same in eval mode or with p = 0, wrong "
        "in train mode.",
        (
            r"dropout.{0,80}(after|on the output of|to the output of) (w_2|the second|the last)",
            r"dropout.{0,60}(hidden|d_ff|between the relu and w_2|before w_2)",
            r"dropout.{0,40}(wrong place|misplaced|in the wrong)",
        ),
        (r"relu.{0,40}(missing|after|wrong)", r"(names?|state.dict)", r"eval(uation)? mode"),
        edits=[("return self.w_2(self.dropout(hidden))", "return self.dropout(self.w_2(hidden))")],
    ),
    # blind11g-ffn-sequential-names left out after the run: its code is one of the tests' own
    # mistakes (tests/test_07_encoder.py FFNNumberedSequential), which the benchmark keeps apart;
    # generalisation.py lists it with the reason.
    # _c(
    #     "ffn-sequential-names",
    #     L07,
    #     "PositionwiseFeedForward",
    #     "builds the block as one nn.Sequential(Linear, ReLU, Dropout, Linear) attribute "
    #     "`net`: the function is right, but there are no w_1 / w_2 attributes (the state "
    #     "dict says net.0 / net.3), so weights cannot be loaded by name.",
    #     (
    #         r"(no|missing|without|not found|lacks).{0,40}(w_1|w_2)",
    #         r"(w_1|w_2).{0,60}(missing|not found|attribute)",
    #         r"nn\.Sequential|net\.0|net\.3",
    #         r"state.dict.{0,40}(keys?|names?)",
    #     ),
    #     (r"dropout", r"relu", r"shape"),
    #     code="""
    #     class PositionwiseFeedForward(nn.Module):
    #         def __init__(self, d_model, d_ff, dropout=0.0):
    #             super().__init__()
    #             self.net = nn.Sequential(
    #                 nn.Linear(d_model, d_ff), nn.ReLU(), nn.Dropout(dropout), nn.Linear(d_ff, d_model)
    #             )
    #         def forward(self, x):
    #             return self.net(x)
    #     """,
    # ),
    _c(
        "ffn-functional-dropout-always-on",
        L07,
        "PositionwiseFeedForward",
        "calls nn.functional.dropout(hidden, self.dropout.p) without training=self.training: "
        "the functional form defaults to training=True, so with dropout > 0 the block still "
        "drops (and rescales) activations in eval mode.",
        (
            r"eval(uation)? mode.{0,100}(dropout|zero|drop|random)",
            r"(dropout|drops?).{0,100}eval(uation)? mode",
            r"training=|self\.training|functional\.dropout|F\.dropout",
        ),
        (r"dropout.{0,40}(after|on the output of) (w_2|the second)", r"relu", r"names?"),
        edits=[
            (
                "return self.w_2(self.dropout(hidden))",
                "return self.w_2(nn.functional.dropout(hidden, self.dropout.p))",
            )
        ],
    ),
    _c(
        "ffn-w2-wrong-shape",
        L07,
        "PositionwiseFeedForward",
        "creates w_2 as nn.Linear(d_model, d_ff), the same shape as w_1, instead of "
        "nn.Linear(d_ff, d_model): the forward raises a matmul shape error inside the "
        "learner's code whenever d_ff != d_model.",
        (
            r"w_2.{0,100}(d_ff ?(->|→|to) ?d_model|in_features|\(d_ff, d_model\)|"
            r"Linear\(d_ff, d_model\)|d_model, d_ff)",
            r"(d_ff ?(->|→|to) ?d_model).{0,60}w_2",
        ),
        (r"w_1.{0,60}(wrong|shape|d_ff ?(->|→))", r"dropout", r"relu"),
        edits=[("self.w_2 = nn.Linear(d_ff, d_model)", "self.w_2 = nn.Linear(d_model, d_ff)")],
    ),
    # ------------------------------------------------------------------ 07 EncoderLayer
    _c(
        "el-pre-ln-adds-normalised",
        L07,
        "EncoderLayer",
        "in the pre-LN branch adds the sub-layer's output to the normalised copy "
        "(h = norm(x); x = h + dropout(sublayer(h))) instead of to the original x, in both "
        "sub-layers: the residual stream is re-normalised at every sub-layer.",
        (
            r"(add|adds|added).{0,60}(normali[sz]ed|norm[12]\(x\)|\bh\b).{0,60}"
            r"(instead of|not|rather than).{0,30}(the original |the un-?normali[sz]ed )?x",
            r"residual.{0,80}(normali[sz]ed (copy|x|input)|norm[12]\(x\)|the original x|"
            r"un-?normali[sz]ed)",
            r"added back.{0,60}(original|un-?normali[sz]ed|x)",
        ),
        (
            r"post-?LN.{0,40}(instead|always)|norm_first.{0,30}(ignored|wrong)",
            r"dropout",
            r"mask",
            r"final (layer ?)?norm",
        ),
        edits=[
            (
                "x = x + self.dropout(self.self_attn(h, h, h, mask)[0])",
                "x = h + self.dropout(self.self_attn(h, h, h, mask)[0])",
            ),
            (
                "return x + self.dropout(self.feed_forward(self.norm2(x)))",
                "h = self.norm2(x)\n            return h + self.dropout(self.feed_forward(h))",
            ),
        ],
    ),
    _c(
        "el-pre-ln-residual-inside-sublayer",
        L07,
        "EncoderLayer",
        "in the pre-LN branch adds the residual to the sub-layer's input instead of to its "
        "output (x = sublayer(norm(x) + x)): no residual connection around either "
        "sub-layer.",
        (
            r"residual.{0,80}(inside|into|to the input of|before) (the |each )?sub-?layer",
            r"norm[12]?\(x\) ?\+ ?x",
            r"no residual|residual.{0,40}(missing|lost|dropped|left out)|"
            r"without (the|a) residual",
        ),
        (
            r"post-?LN.{0,40}(instead|always)",
            r"dropout",
            r"mask",
            r"added back.{0,40}normali[sz]ed",
        ),
        edits=[
            ("h = self.norm1(x)", "h = self.norm1(x) + x"),
            (
                "x = x + self.dropout(self.self_attn(h, h, h, mask)[0])",
                "x = self.dropout(self.self_attn(h, h, h, mask)[0])",
            ),
            (
                "return x + self.dropout(self.feed_forward(self.norm2(x)))",
                "return self.dropout(self.feed_forward(self.norm2(x) + x))",
            ),
        ],
        source=RESIDUAL_INSIDE,
    ),
    _c(
        "el-always-pre-ln",
        L07,
        "EncoderLayer",
        "writes only the pre-LN layout and never reads norm_first, so the default "
        "(norm_first=False, the paper's post-LN) computes pre-LN.",
        (
            r"norm_first.{0,80}(ignor|never read|not used|always|False)",
            r"(always|every call|regardless).{0,40}pre-?LN",
            r"post-?LN.{0,80}(pre-?LN|norm before)",
            r"pre-?LN.{0,60}(when|for|with|although) norm_first ?= ?False",
        ),
        (r"dropout", r"mask", r"unbiased|eps", r"residual.{0,40}(missing|normali)"),
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
                h = self.norm1(x)
                x = x + self.dropout(self.self_attn(h, h, h, mask)[0])
                h = self.norm2(x)
                return x + self.dropout(self.feed_forward(h))
        """,
        source=ALWAYS_PRE_LN,
    ),
    _c(
        "el-dropout-on-residual-sum",
        L07,
        "EncoderLayer",
        "in the post-LN branch applies dropout to the sum x + sublayer(x) instead of to the "
        "sub-layer's output alone (norm(dropout(x + sublayer(x)))): the residual itself is "
        "dropped; only train mode with dropout > 0 shows it (dropout=1.0 gives norm(0)).",
        (
            r"dropout.{0,80}(residual|the sum|x \+|whole|after (the )?(addition|add))",
            r"(residual|x).{0,60}(dropped|zeroed|through (the )?dropout)",
        ),
        (
            r"norm_first.{0,30}(ignored|wrong)",
            r"mask",
            r"dropout.{0,40}(missing|not applied|never applied)",
        ),
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
    _c(
        "el-post-ln-second-residual-from-input",
        L07,
        "EncoderLayer",
        "in the post-LN branch keeps the first sub-layer's result in a new name y and feeds "
        "it to the feed-forward, but adds the layer's input x (not y) back in the second "
        "residual: norm2(x + dropout(ff(y))).",
        (
            r"residual.{0,100}(original|layer'?s input|input x|instead of|rather than)"
            r".{0,60}(norm1|first sub-?layer|attention sub-?layer|self-?attention)",
            r"(adds?|added).{0,40}(original|layer'?s input|input x).{0,80}"
            r"(second|feed.?forward)",
            r"second residual",
        ),
        (r"pre-?LN|norm_first", r"dropout", r"mask"),
        edits=[
            (
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))",
                "y = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))",
            ),
            (
                "return self.norm2(x + self.dropout(self.feed_forward(x)))",
                "return self.norm2(x + self.dropout(self.feed_forward(y)))",
            ),
        ],
    ),
    # ------------------------------------------------------------------ 07 Encoder
    _c(
        "enc-list-times-n",
        L07,
        "Encoder",
        "builds the stack as nn.ModuleList([EncoderLayer(...)] * num_layers): one layer "
        "object num_layers times, so the layers share one set of weights.",
        _SHARED_NAMED,
        (r"final (layer ?)?norm", r"plain (python )?list", r"mask"),
        edits=[
            (
                "[EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first) for _ in "
                "range(num_layers)]",
                "[EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first)] * num_layers",
            )
        ],
        source=SHARED_LIST,
    ),
    _c(
        "enc-final-norm-unless-false",
        L07,
        "Encoder",
        "decides the final norm with final_norm is not False, so final_norm=None gives a "
        "final LayerNorm to the post-LN stack too (nn.Transformer's choice), instead of "
        "following norm_first.",
        (
            r"final_norm ?= ?None.{0,120}(post-?LN|norm_first|no final)",
            r"(post-?LN|norm_first ?= ?False).{0,100}(no|without|must not have|"
            r"should not have|extra|has a) final (layer ?)?norm",
            r"None.{0,40}(means|same as|follows).{0,30}norm_first",
            r"(extra|unexpected|second) (final )?layer ?norm",
        ),
        (_STACK_OTHERS[0], r"mask", r"(missing|no) final (layer ?)?norm"),
        edits=[
            (
                "use_final_norm = norm_first if final_norm is None else final_norm",
                "use_final_norm = final_norm is not False",
            )
        ],
        source=DUPLICATE_FINAL_NORM,
    ),
    _c(
        "enc-final-norm-none-as-false",
        L07,
        "Encoder",
        "decides the final norm with bool(final_norm), so final_norm=None (the default) "
        "gives no final LayerNorm to a pre-LN stack, whose output is then never normalised.",
        (
            r"final_norm ?= ?None.{0,120}(pre-?LN|norm_first ?= ?True)",
            r"(pre-?LN|norm_first ?= ?True).{0,100}(needs|missing|no|without|lacks)"
            r".{0,20}final (layer ?)?norm",
            r"None.{0,40}(means|same as|follows).{0,30}norm_first",
            r"(missing|no) final (layer ?)?norm",
        ),
        (_STACK_OTHERS[0], r"mask", r"(extra|unexpected) .{0,20}norm"),
        edits=[
            (
                "use_final_norm = norm_first if final_norm is None else final_norm",
                "use_final_norm = bool(final_norm)",
            )
        ],
        source=PRE_LN_NO_FINAL_NORM,
    ),
    # ------------------------------------------------------------------ 08 DecoderLayer
    _c(
        "dl-cross-kv-from-decoder",
        L08,
        "DecoderLayer",
        "takes the cross-attention's keys and values from the decoder's own tensor "
        "(cross_attn(x, x, x, src_mask)) instead of from memory, in both layouts: memory is "
        "never read, and with len_src != len_tgt the source mask does not fit the scores "
        "(a shape error inside the learner's call).",
        (
            r"(keys?|values?).{0,60}(from|of) (the )?(decoder|x\b|target)",
            r"(keys?|values?).{0,40}(should|must) (come from|be) (the )?memory",
            r"memory.{0,60}(never read|not used|unused|ignored|not read)",
            r"cross_attn\((x, ?x, ?x|h, ?h, ?h)",
        ),
        (
            r"masks?.{0,40}(swapped|wrong mask|tgt_mask)",
            r"quer(y|ies).{0,40}(from|of) (the )?(encoder|memory)",
            r"norm_first|pre-?LN",
        ),
        edits=[
            (
                "self.cross_attn(h, memory, memory, src_mask)",
                "self.cross_attn(h, h, h, src_mask)",
            ),
            (
                "self.cross_attn(x, memory, memory, src_mask)",
                "self.cross_attn(x, x, x, src_mask)",
            ),
        ],
        source=CROSS_KV_FROM_DECODER,
    ),
    _c(
        "dl-cross-uses-tgt-mask",
        L08,
        "DecoderLayer",
        "gives the cross-attention tgt_mask instead of src_mask (the self-attention's mask "
        "is right): with equal lengths the look-ahead and target padding are applied to the "
        "source keys and the source padding is ignored; with different lengths it raises.",
        (
            r"cross.?attention.{0,100}tgt_mask",
            r"tgt_mask.{0,100}cross.?attention",
            r"src_mask.{0,60}(not used|never|unused|ignored)",
            r"look-?ahead.{0,80}cross.?attention|cross.?attention.{0,80}look-?ahead",
        ),
        (
            r"(keys?|values?).{0,40}from (the )?decoder",
            r"quer(y|ies).{0,40}from (the )?(encoder|memory)",
            r"norm_first|pre-?LN",
        ),
        edits=[
            (
                "self.cross_attn(h, memory, memory, src_mask)",
                "self.cross_attn(h, memory, memory, tgt_mask)",
            ),
            (
                "self.cross_attn(x, memory, memory, src_mask)",
                "self.cross_attn(x, memory, memory, tgt_mask)",
            ),
        ],
        source=CROSS_WRONG_MASK,
    ),
    _c(
        "dl-pre-ln-cross-query-unnormalised",
        L08,
        "DecoderLayer",
        "in the pre-LN branch computes h = norm2(x) but gives the cross-attention the "
        "un-normalised x as its queries: only norm_first=True shows it.",
        (
            r"norm2.{0,80}(not used|never|unused|quer|skipp|missing)",
            r"quer(y|ies).{0,80}(un-?normali[sz]ed|not normali[sz]ed|norm2\(x\)|raw x|"
            r"x instead)",
            r"cross.?attention.{0,80}(norm2|normali[sz]ed quer)",
        ),
        (
            r"memory.{0,40}normali[sz]ed",
            r"(keys?|values?).{0,40}from (the )?decoder",
            r"mask",
            r"post-?LN.{0,40}(instead|always)",
        ),
        edits=[
            (
                "self.cross_attn(h, memory, memory, src_mask)",
                "self.cross_attn(x, memory, memory, src_mask)",
            )
        ],
        source=PRE_LN_CROSS_QUERY,
    ),
    _c(
        "dl-signature-masks-swapped",
        L08,
        "DecoderLayer",
        "declares forward(x, memory, tgt_mask=None, src_mask=None), PyTorch's order, so "
        "the caller's src_mask (third) reaches the self-attention and tgt_mask the "
        "cross-attention.",
        (
            *_MASK_ORDER_NAMED,
            r"forward\(x, ?memory, ?src_mask, ?tgt_mask\)",
        ),
        (
            r"(keys?|values?).{0,40}from (the )?decoder",
            r"norm_first|pre-?LN",
            r"dropout",
        ),
        edits=[
            (
                "src_mask: torch.Tensor | None = None,\n        tgt_mask: torch.Tensor | None "
                "= None,",
                "tgt_mask: torch.Tensor | None = None,\n        src_mask: torch.Tensor | None "
                "= None,",
            )
        ],
    ),
    # ------------------------------------------------------------------ 08 Decoder
    _c(
        "dec-layer-called-with-masks-swapped",
        L08,
        "Decoder",
        "calls each layer as layer(x, memory, tgt_mask, src_mask) (PyTorch's order), so "
        "every layer's self-attention gets the source mask and its cross-attention the "
        "target mask.",
        (*_MASK_ORDER_NAMED, r"layer\(x, ?memory, ?src_mask, ?tgt_mask\)"),
        (_STACK_OTHERS[0], r"final (layer ?)?norm", r"memory.{0,40}(previous|chained)"),
        edits=[
            (
                "x = layer(x, memory, src_mask, tgt_mask)",
                "x = layer(x, memory, tgt_mask, src_mask)",
            )
        ],
    ),
    _c(
        "dec-loop-never-chains",
        L08,
        "Decoder",
        "writes out = layer(x, memory, ...) in the loop and returns out: every layer reads "
        "the decoder's input x, so only the last layer's result on the input is returned "
        "(right for num_layers = 1 only).",
        (
            r"(only|just) the last layer",
            r"(each|every) layer.{0,60}(reads|gets|applied to|receives) (the )?"
            r"(original|same|decoder'?s|stack'?s) input",
            r"previous layer'?s output.{0,60}(not|never)",
            r"\bx\b.{0,30}(never|not) (updated|reassigned)",
            r"not chained|output of one layer.{0,40}(not|never).{0,40}next",
        ),
        (_STACK_OTHERS[0], r"final (layer ?)?norm", r"mask", r"one layer too (few|many)"),
        edits=[
            (
                "x = layer(x, memory, src_mask, tgt_mask)",
                "out = layer(x, memory, src_mask, tgt_mask)",
            ),
            (
                "return x if self.norm is None else self.norm(x)",
                "return out if self.norm is None else self.norm(out)",
            ),
        ],
    ),
    _c(
        "dec-one-layer-reused",
        L08,
        "Decoder",
        "creates one DecoderLayer before the list and fills the ModuleList with it "
        "([layer for _ in range(num_layers)]): the stack applies one set of weights "
        "num_layers times.",
        _SHARED_NAMED,
        (r"final (layer ?)?norm", r"mask", r"plain (python )?list"),
        edits=[
            (
                "self.layers = nn.ModuleList(",
                "layer = DecoderLayer(d_model, num_heads, d_ff, dropout, norm_first)\n"
                "        self.layers = nn.ModuleList(",
            ),
            (
                "[DecoderLayer(d_model, num_heads, d_ff, dropout, norm_first) for _ in "
                "range(num_layers)]",
                "[layer for _ in range(num_layers)]",
            ),
        ],
        source=SAME_LAYER_REUSED,
    ),
]
