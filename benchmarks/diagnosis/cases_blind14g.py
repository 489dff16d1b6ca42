"""Held-out wrong answers for lessons 07-08, blind round 14 (helper b14g, 2026-11-27):
mistakes new to the benchmark, written against the checks after round 15's fixes, to
measure how the diagnoses generalise to mistakes nobody here has seen. 22 cases over the
ten exercises; nine transpose a mistake reported in public (the URL read for this
benchmark), the others are the author's.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run, and each case was compared with the causes of the benchmark's earlier cases for these
lessons (ids and causes only) and replaced where it repeated one.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L07, L08 = "07_encoder", "08_decoder"

# The reports these cases transpose (each read with the search tool for this benchmark).
EPS_LEARNED = "https://github.com/PAIR-code/tiny-transformers/issues/49"
SEQUENTIAL_KEYS = (
    "https://discuss.pytorch.org/t/torchvision-vgg16-pretrained-model-layer-naming/108873"
)
EPS_FROM_DROPOUT = "https://github.com/HenryNdubuaku/nanodl/issues/25"
CROSS_FIRST = "https://github.com/er-muyue/BeMapNet/issues/13"
RESIDUAL_DROPPED = "https://github.com/OpenNMT/OpenNMT-tf/issues/207"
NONE_NORM_CALLED = "https://github.com/junyanz/pytorch-CycleGAN-and-pix2pix/issues/630"
LAYERS_FROM_HEADS = "https://github.com/doldolOuO/IAET/issues/1"
IMPLICIT_RETURN = "https://philip-trauner.me/blog/post/python-quirks-implicit-return"
TRAILING_COMMA_TUPLE = (
    "https://langdev.stackexchange.com/questions/1628/"
    "how-can-single-item-tuples-be-disambiguated-from-the-grouping-operator"
)

_c = held_out_authored("blind14g")

BLIND14G: list[Case] = [
    # ------------------------------------------------------------------ 07 LayerNorm
    _c(
        "ln-mean-over-whole-tensor",
        L07,
        "LayerNorm",
        "subtracts x.mean() with no dim, one mean over the whole tensor (every feature of "
        "every token of every sentence), while the variance is still taken per token over "
        "its features: a token's output no longer has mean 0 and depends on the other "
        "tokens and the padding; a single token (d_model,) is right.",
        (
            r"x\.mean\(\)",
            r"(one|a single|global) mean",
            r"mean.{0,80}(whole|entire) (tensor|input|batch|sentence)",
            r"mean.{0,60}(over|across) (all|every) (the )?(tokens|positions|elements)",
            r"mean (is|was) not (taken |computed )?(per|for each) token",
            r"mean.{0,40}(without|no|missing) (a )?dim",
        ),
        (
            r"unbiased",
            r"d_?(model)? ?- ?1",
            r"eps.{0,40}outside",
            r"variance.{0,40}(over|across) (the )?(whole|positions|batch|sentence)",
            r"(gain|weight) and (the )?bias (are )?swapped",
        ),
        edits=[
            (
                "mean = x.mean(dim=-1, keepdim=True)  # (..., 1): one mean per token",
                "mean = x.mean()  # the mean",
            ),
        ],
    ),
    _c(
        "ln-parameters-float64",
        L07,
        "LayerNorm",
        "creates the gain and the bias in float64 (dtype=torch.float64, 'for precision'), so "
        "a float32 input comes back float64 (the parameters promote it) and the state dict "
        "holds float64 tensors where nn.LayerNorm's are float32; the values are right.",
        (
            r"float32 (input|x).{0,80}(float64|double)",
            r"(weight|bias|gain|parameters?).{0,60}(float64|double)",
            r"(float64|double).{0,60}(weight|bias|gain|parameters?)",
            r"dtype of (the |your )?(weight|bias|gain|parameters?)",
        ),
        (
            r"cast\w* (x |the input )?(down )?to float32",
            r"\.float\(\)",
            r"float64 (input|x).{0,60}(came back|returned|gives) float32",
        ),
        edits=[
            (
                "self.weight = nn.Parameter(torch.ones(d_model))  # gain",
                "self.weight = nn.Parameter(torch.ones(d_model, dtype=torch.float64))  # gain",
            ),
            (
                "self.bias = nn.Parameter(torch.zeros(d_model))",
                "self.bias = nn.Parameter(torch.zeros(d_model, dtype=torch.float64))",
            ),
        ],
    ),
    _c(
        "ln-eps-learned-parameter",
        L07,
        "LayerNorm",
        "wraps eps in an nn.Parameter like the gain and the bias (self.eps = "
        "nn.Parameter(torch.tensor(eps))): the values are right, but the module has a third, "
        "trainable parameter and an extra state-dict key 'eps' that nn.LayerNorm does not "
        "have, and an optimiser would change eps (even drive it negative).",
        (
            r"eps.{0,40}(is|as|registered as|became|wrapped in) (an? )?(nn\.)?Parameter",
            r"(learned|learnable|trainable) eps",
            r"eps.{0,40}(is )?(learned|learnable|trainable)",
            r"(unexpected|extra) (state.?dict )?(key|parameter).{0,40}eps",
            r"eps.{0,40}should be a (plain|constant|float|python)",
            r"'eps'",
        ),
        (
            r"eps.{0,60}(ignored|default|1e-6|1e-12)",
            r"eps.{0,40}outside",
            r"plain tensors",
            r"(weight|bias).{0,40}not (an? )?(nn\.)?Parameters?",
            r"buffers?",
        ),
        edits=[
            (
                "self.eps = eps",
                "self.eps = nn.Parameter(torch.tensor(eps))  # learned, like the gain and bias",
            ),
        ],
        source=EPS_LEARNED,
    ),
    # ------------------------------------------------------------------ 07 feed-forward
    _c(
        "ffn-w2-never-applied",
        L07,
        "PositionwiseFeedForward",
        "builds w_2 but forward returns dropout(relu(w_1(x))), the d_ff-wide hidden "
        "activations, without applying w_2: the output is (batch, len, d_ff) instead of "
        "(batch, len, d_model) (right-shaped only when d_ff == d_model, and still wrong).",
        (
            r"w_2.{0,60}(never|not|missing|skipped|unused)",
            r"(without|missing|skip\w*|forg\w*) (the second linear|(self\.)?w_2)",
            r"hidden (activations|layer).{0,60}(returned|as the output)",
            r"returns? the (d_ff|hidden)",
            r"d_ff.{0,30}(wide|width).{0,60}(output|returned)",
        ),
        (
            r"dropout (after|on the output of) w_2",
            r"relu.{0,40}(after|on the output)",
            r"w_2.{0,40}(wrong shape|Linear\(d_model, ?d_ff\))",
            r"(no|missing|forg\w*) (the )?relu",
        ),
        edits=[
            (
                "return self.w_2(self.dropout(hidden))  # (batch, len, d_model)",
                "return self.dropout(hidden)  # (batch, len, d_model)",
            ),
        ],
    ),
    _c(
        "ffn-sequential-unnamed-dropout-last",
        L07,
        "PositionwiseFeedForward",
        "two mistakes at once: builds the block as one nn.Sequential(Linear, ReLU, Linear, "
        "Dropout) without names, so there are no w_1 and w_2 (the state-dict keys are "
        "net.0.* and net.2.*), and puts the dropout after the second linear layer instead "
        "of on the hidden activations.",
        (
            r"net\.0",
            r"(no|missing) (attribute |sub-?module |layer )?.?w_1",
            r"w_1.{0,40}(missing|not found|no attribute)",
            r"has no attribute .?w_[12]",
            r"nn\.Sequential",
            r"OrderedDict",
            r"dropout.{0,60}(after|on the output of) (w_2|the second linear)",
        ),
        (
            r"(no|missing|forg\w*) (the )?relu",
            r"gelu",
            r"bias=False",
            r"hidden width",
        ),
        code="""
        class PositionwiseFeedForward(nn.Module):
            def __init__(self, d_model: int, d_ff: int, dropout: float = 0.0):
                super().__init__()
                self.net = nn.Sequential(
                    nn.Linear(d_model, d_ff),
                    nn.ReLU(),
                    nn.Linear(d_ff, d_model),
                    nn.Dropout(dropout),
                )

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                return self.net(x)  # (batch, len, d_model)
        """,
        source=SEQUENTIAL_KEYS,
    ),
    # ------------------------------------------------------------------ 07 EncoderLayer
    _c(
        "el-norms-eps-from-dropout",
        L07,
        "EncoderLayer",
        "builds the two norms as LayerNorm(d_model, dropout): the dropout rate lands in "
        "LayerNorm's second argument, eps, so dropout=0.0 gives eps 0 (a constant token "
        "divides 0 by 0) and dropout=0.1 gives eps 0.1 (every token visibly damped).",
        (
            r"eps (is|was|=|of) (the )?dropout",
            r"dropout (rate )?(as|in|into|for|lands in) (the |its |their )?"
            r"(LayerNorms?'?s? |norms?'? )?eps",
            r"LayerNorm\(d_model, ?dropout\)",
            r"norm[12]\.eps",
            r"(LayerNorms?|norm1|norm2).{0,60}eps.{0,30}(not 1e-0?5|instead of 1e-0?5|wrong)",
        ),
        (
            r"dropout (on|applied to) the residual",
            r"dropout.{0,40}(missing|not applied|never applied)",
            r"unbiased",
            r"eps.{0,40}outside",
        ),
        edits=[
            ("self.norm1 = LayerNorm(d_model)", "self.norm1 = LayerNorm(d_model, dropout)"),
            ("self.norm2 = LayerNorm(d_model)", "self.norm2 = LayerNorm(d_model, dropout)"),
        ],
        source=EPS_FROM_DROPOUT,
    ),
    _c(
        "el-norms-without-affine",
        L07,
        "EncoderLayer",
        "builds norm1 and norm2 as nn.LayerNorm(d_model, elementwise_affine=False), thinking "
        "a fresh LayerNorm needs no gain and bias: a fresh layer's values are right, but the "
        "norms have no weight and bias, so the state-dict keys norm1.weight ... norm2.bias "
        "are missing, loaded weights cannot go in and nothing is learned there.",
        (
            r"elementwise_affine",
            r"norm[12]\.(weight|bias).{0,60}(missing|not found|absent|no )",
            r"(missing|no) (state.?dict )?keys?.{0,60}norm[12]",
            r"norm[12].{0,60}(no|without) (learned )?(gain|weight|bias|affine|parameters)",
            r"(no|without) (learned )?(gain and bias|affine)",
        ),
        (
            r"plain tensors",
            r"buffers?",
            r"(share|shared|same) (LayerNorm|norm)",
            r"built in(side)? forward",
            r"unbiased",
        ),
        edits=[
            (
                "self.norm1 = LayerNorm(d_model)",
                "self.norm1 = nn.LayerNorm(d_model, elementwise_affine=False)",
            ),
            (
                "self.norm2 = LayerNorm(d_model)",
                "self.norm2 = nn.LayerNorm(d_model, elementwise_affine=False)",
            ),
        ],
    ),
    _c(
        "el-post-ln-ffn-reads-attention-output",
        L07,
        "EncoderLayer",
        "post-LN: keeps the attention's raw output in `attended` and feeds that to the "
        "feed-forward block, feed_forward(attended), instead of the first sub-layer's "
        "normalised result norm1(x + dropout(attended)) (the residual of the second "
        "sub-layer is right); pre-LN is right.",
        (
            r"feed.?forward.{0,80}(reads?|input|applied to|fed|gets).{0,60}"
            r"(attention'?s? (raw )?output|attended)",
            r"(attention'?s? (raw )?output|attended).{0,80}(feed.?forward|ffn)",
            r"feed.?forward.{0,60}(not|instead of).{0,40}norm1",
            r"norm1'?s? (output|result).{0,60}(feed.?forward|ffn)",
        ),
        (
            r"residual.{0,40}(from|adds) the (layer'?s )?input",
            r"no residual",
            r"norm (on|of) the sub-?layer",
            r"parallel",
            r"pre-?LN (form|layout) (for|in) post",
        ),
        edits=[
            (
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))\n"
                "        return self.norm2(x + self.dropout(self.feed_forward(x)))",
                "attended = self.self_attn(x, x, x, mask)[0]\n"
                "        x = self.norm1(x + self.dropout(attended))\n"
                "        return self.norm2(x + self.dropout(self.feed_forward(attended)))",
            ),
        ],
    ),
    # ------------------------------------------------------------------ 07 Encoder
    _c(
        "enc-norm-always-built",
        L07,
        "Encoder",
        "always builds self.norm = LayerNorm(d_model) and keeps the decision in a flag "
        "(use_final_norm) that forward reads: the values are right, but an encoder without "
        "a final norm (the post-LN default, final_norm=False) has a `norm` that is not None, "
        "with norm.weight and norm.bias keys that nn.TransformerEncoder(norm=None) lacks.",
        (
            r"norm.{0,40}(should be|must be|expected|is not|isn't|to be) None",
            r"(norm|final LayerNorm).{0,80}(unused|never (used|applied)|built but)",
            r"(unexpected|extra) (keys?|parameters?).{0,60}norm\.(weight|bias)",
            r"norm\.(weight|bias).{0,60}(unexpected|extra|should not)",
        ),
        (
            r"final (Layer)?norm (is )?applied (to|in) (the )?post-?LN",
            r"final_norm=None.{0,40}(read|treated) as",
            r"(no|missing) final (Layer)?norm",
            r"(share|shared|same) (layer|object)",
        ),
        edits=[
            (
                "self.norm = LayerNorm(d_model) if use_final_norm else None",
                "self.use_final_norm = use_final_norm\n"
                "        self.norm = LayerNorm(d_model)  # applied only when use_final_norm",
            ),
            (
                "return x if self.norm is None else self.norm(x)",
                "return self.norm(x) if self.use_final_norm else x",
            ),
        ],
    ),
    _c(
        "enc-mask-as-src-mask-keyword",
        L07,
        "Encoder",
        "calls each layer with the mask as a keyword under the decoder's name, "
        "layer(x, src_mask=mask), but EncoderLayer.forward's parameter is `mask`: every "
        "forward raises TypeError (unexpected keyword argument 'src_mask') in the learner's "
        "loop, with or without a mask.",
        (
            r"src_mask",
            r"unexpected keyword",
            r"keyword.{0,40}mask",
            r"parameter (is )?(called|named) .?mask",
        ),
        (
            r"(without|no) (the )?mask",
            r"mask.{0,30}first layer only",
            r"mask (is )?required",
            r"(share|shared|same) (layer|object)",
        ),
        edits=[
            (
                "x = layer(x, mask)  # (batch, len, d_model)",
                "x = layer(x, src_mask=mask)  # (batch, len, d_model)",
            ),
        ],
    ),
    # ------------------------------------------------------------------ 07 quizzes
    _c(
        "quiz-ln-axis-two-letters",
        L07,
        "quiz_layer_norm_axis",
        "hedges between two options and returns both letters in one string, 'b, d', "
        "instead of the single letter of the answer, 'b'.",
        (
            r"(one|a single|only one|exactly one) letter",
            r"(two|several|more than one) (letters|answers|options)",
            r"'b, d'",
        ),
        (
            r"each feature over the batch",
            r"instance.?norm",
            r"BatchNorm",
        ),
        code="""
        def quiz_layer_norm_axis() -> str:
            \"\"\"Your answer to Question 1: "a", "b", "c" or "d".\"\"\"
            return "b, d"
        """,
    ),
    _c(
        "quiz-final-norm-no-return",
        L07,
        "quiz_final_norm",
        "assigns the right letter to a variable (answer = 'c') but never returns it, so the "
        "function returns None.",
        (
            r"\bNone\b",
            r"(missing|forgot|no) return",
            r"return(s|ed)? nothing",
        ),
        (
            r"post-?LN encoder",
            r"both (stacks|encoders)",
            r"neither",
        ),
        code="""
        def quiz_final_norm() -> str:
            \"\"\"Your answer to Question 2: "a", "b", "c" or "d".\"\"\"
            answer = "c"
        """,
        source=IMPLICIT_RETURN,
    ),
    # ------------------------------------------------------------------ 08 DecoderLayer
    _c(
        "dl-cross-before-self",
        L08,
        "DecoderLayer",
        "runs the cross-attention sub-layer first and the masked self-attention second (each "
        "with its own mask, wrapped the right way, norm1 then norm2), in both layouts, "
        "instead of self-attention, then cross-attention, then feed-forward.",
        (
            r"cross.?attention.{0,60}(before|first|ahead of) (the )?(masked )?self.?attention",
            r"self.?attention.{0,60}after (the )?cross.?attention",
            r"order of (the )?(two attentions|sub-?layers|attentions)",
            r"(sub-?layers?|attentions) (are |run )?in the wrong order",
            r"(swapped|exchanged) (the )?(two )?(attention )?sub-?layers",
        ),
        (
            r"masks? (are )?swapped",
            r"(src_mask|tgt_mask) (given|passed) to the (self|cross)",
            r"queries from (the )?memory",
            r"feed.?forward before",
        ),
        edits=[
            (
                "h = self.norm1(x)\n"
                "            x = x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])\n"
                "            h = self.norm2(x)  # queries from the decoder, keys and values "
                "from the encoder\n"
                "            x = x + self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])",
                "h = self.norm1(x)\n"
                "            x = x + self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])\n"
                "            h = self.norm2(x)\n"
                "            x = x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])",
            ),
            (
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))\n"
                "        x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, "
                "src_mask)[0]))",
                "x = self.norm1(x + self.dropout(self.cross_attn(x, memory, memory, "
                "src_mask)[0]))\n"
                "        x = self.norm2(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))",
            ),
        ],
        source=CROSS_FIRST,
    ),
    _c(
        "dl-attention-modules-swapped",
        L08,
        "DecoderLayer",
        "calls the two attention modules in each other's place, in both layouts: "
        "cross_attn does the masked self-attention (x, x, x, tgt_mask) and self_attn the "
        "cross-attention (x, memory, memory, src_mask): a fresh layer computes the same kind "
        "of function, but weights loaded by name act in the wrong sub-layer.",
        (
            r"self_attn.{0,60}(used|called|serves?|does) (as|for|the) (the )?cross",
            r"cross_attn.{0,60}(used|called|serves?|does) (as|for|the) (the )?(masked )?self",
            r"(two )?attention (modules|sub-?modules|weights) (are )?(swapped|exchanged)",
            r"(swapped|exchanged).{0,40}self_attn.{0,20}cross_attn",
            r"self_attn and cross_attn.{0,40}(swapped|exchanged|each other)",
        ),
        (
            r"masks? (are )?swapped",
            r"(share|shared|same) (weights|module|attention)",
            r"queries from (the )?memory",
            r"norm[123].{0,20}swapped",
        ),
        edits=[
            (
                "x = x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])",
                "x = x + self.dropout(self.cross_attn(h, h, h, tgt_mask)[0])",
            ),
            (
                "x = x + self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])",
                "x = x + self.dropout(self.self_attn(h, memory, memory, src_mask)[0])",
            ),
            (
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))",
                "x = self.norm1(x + self.dropout(self.cross_attn(x, x, x, tgt_mask)[0]))",
            ),
            (
                "x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))",
                "x = self.norm2(x + self.dropout(self.self_attn(x, memory, memory, src_mask)[0]))",
            ),
        ],
    ),
    _c(
        "dl-pre-ln-falls-through-to-post-ln",
        L08,
        "DecoderLayer",
        "the pre-LN branch ends with an assignment (x = x + dropout(feed_forward(norm3(x)))) "
        "instead of a return, so it falls through into the post-LN lines below: "
        "norm_first=True computes a whole pre-LN layer and then a whole post-LN layer on its "
        "result; post-LN is right.",
        (
            r"falls? through",
            r"pre-?LN.{0,80}(then|followed by|and then|also).{0,40}post-?LN",
            r"post-?LN.{0,80}(also|too|as well|after|on top of).{0,40}pre-?LN",
            r"(missing|no) return.{0,60}pre-?LN",
            r"pre-?LN branch.{0,60}(return|continues|does not end)",
            r"both (layouts|branches)",
        ),
        (
            r"norm_first (is )?(ignored|inverted)",
            r"always (post|pre)-?LN",
            r"norm3.{0,40}(missing|not applied)",
        ),
        edits=[
            (
                "return x + self.dropout(self.feed_forward(self.norm3(x)))",
                "x = x + self.dropout(self.feed_forward(self.norm3(x)))",
            ),
        ],
    ),
    _c(
        "dl-memory-cut-to-target-length",
        L08,
        "DecoderLayer",
        "cuts memory and src_mask to the target's length at the start of forward "
        "(memory[:, : x.size(1)], src_mask[..., : x.size(1)], to make a shape error go "
        "away): right when len_src <= len_tgt, but with a longer source the last source "
        "positions are never read by the cross-attention.",
        (
            r"(memory|source).{0,60}(cut|truncat\w*|slic\w*|shortened|only the first)",
            r"memory\[:, ?: ?x\.size\(1\)\]",
            r"(last|later) source (positions|tokens).{0,60}(ignored|dropped|never read|lost)",
            r"len_src.{0,40}(cut|truncat\w*)",
        ),
        (
            r"(src|source) padding (mask )?(ignored|missing|not applied)",
            r"masks? (are )?swapped",
            r"keys and values from (the )?decoder",
            r"look-?ahead",
        ),
        edits=[
            (
                "if self.norm_first:\n            h = self.norm1(x)",
                "memory = memory[:, : x.size(1)]  # source cut to the target's length\n"
                "        if src_mask is not None:\n"
                "            src_mask = src_mask[..., : x.size(1)]\n"
                "        if self.norm_first:\n            h = self.norm1(x)",
            ),
        ],
    ),
    _c(
        "dl-pre-ln-dropout-on-residual",
        L08,
        "DecoderLayer",
        "pre-LN: applies the residual dropout to the stream x instead of to the sub-layer's "
        "output, x = dropout(x) + sublayer(norm_i(x)), for all three sub-layers: eval mode "
        "hides it; in training the residual path itself is dropped (with dropout=1.0 the "
        "layer returns the sub-layers' outputs instead of x).",
        (
            r"dropout.{0,60}(on|to) the residual (path|stream|input|branch|connection)",
            r"dropout\(x\)",
            r"(residual|skip) (path|connection|stream) (is |was )?dropped",
            r"dropout.{0,40}(instead of|rather than|not) (on |to )?(the )?sub-?layer'?s? output",
            r"drops? (the )?(residual|skip|stream)",
        ),
        (
            r"dropout (on|to) the (residual )?sum",
            r"dropout.{0,40}(missing|not applied|never applied)",
            r"dropout.{0,40}sub-?layer'?s? input",
            r"post-?LN",
        ),
        edits=[
            (
                "x = x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])",
                "x = self.dropout(x) + self.self_attn(h, h, h, tgt_mask)[0]",
            ),
            (
                "x = x + self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])",
                "x = self.dropout(x) + self.cross_attn(h, memory, memory, src_mask)[0]",
            ),
            (
                "return x + self.dropout(self.feed_forward(self.norm3(x)))",
                "return self.dropout(x) + self.feed_forward(self.norm3(x))",
            ),
        ],
        source=RESIDUAL_DROPPED,
    ),
    # ------------------------------------------------------------------ 08 Decoder
    _c(
        "dec-norm-called-when-none",
        L08,
        "Decoder",
        "returns self.norm(x) unconditionally, without testing for None: with a final norm "
        "it is right, but the default post-LN decoder (norm None) raises TypeError "
        "('NoneType' object is not callable) in the learner's forward.",
        (
            r"NoneType",
            r"not callable",
            r"self\.norm (is )?None",
            r"norm is None",
            r"(test|check)\w* (for|whether|if).{0,30}None",
        ),
        (
            r"final (Layer)?norm.{0,40}(missing|never applied)",
            r"final_norm=None.{0,40}(read|treated)",
            r"(share|shared|same) (layer|object)",
        ),
        edits=[
            (
                "return x if self.norm is None else self.norm(x)",
                "return self.norm(x)",
            ),
        ],
        source=NONE_NORM_CALLED,
    ),
    _c(
        "dec-layer-count-from-num-heads",
        L08,
        "Decoder",
        "builds the stack with range(num_heads) instead of range(num_layers): the decoder "
        "has num_heads layers, right only when the two numbers happen to be equal.",
        (
            r"num_heads.{0,80}layers",
            r"layers.{0,80}num_heads",
            r"\d+ layers.{0,60}(expected|instead of|not|should be) \d+",
            r"(expected|should have) \d+ layers",
            r"number of layers",
        ),
        (
            r"(share|shared|same) (layer|object|weights)",
            r"plain (Python )?list",
            r"skip\w* (the )?(first|last) layer",
        ),
        edits=[
            ("for _ in range(num_layers)]", "for _ in range(num_heads)]"),
        ],
        source=LAYERS_FROM_HEADS,
    ),
    _c(
        "dec-built-from-encoder-layers",
        L08,
        "Decoder",
        "copies lesson 07's Encoder and keeps EncoderLayer in the comprehension: the stack "
        "holds encoder layers (no cross-attention, no norm3), and calling them with "
        "(x, memory, src_mask, tgt_mask) raises TypeError (too many positional arguments) "
        "in the learner's loop.",
        (
            r"EncoderLayer",
            r"encoder'?s? layers?.{0,40}(instead of|not) (a |the )?DecoderLayer",
            r"DecoderLayer.{0,40}(instead|expected|not)",
        ),
        (
            r"memory.{0,40}(not passed|missing)",
            r"masks? (are )?(swapped|in the wrong order)",
            r"(share|shared|same) (layer|object)",
        ),
        edits=[
            (
                "[DecoderLayer(d_model, num_heads, d_ff, dropout, norm_first) for _ in range(num_layers)]",
                "[EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first) for _ in range(num_layers)]",
            ),
        ],
    ),
    # ------------------------------------------------------------------ 08 quizzes
    _c(
        "quiz-cross-norm-option-text",
        L08,
        "quiz_cross_attention_norm",
        "returns the text of the right option, 'norm2(x), memory, memory', instead of its "
        "letter 'b'.",
        (
            r"letter",
            r"option'?s? (text|content|formula)",
            r"not one of .{0,20}a.{0,10}b.{0,10}c.{0,10}d",
        ),
        (
            r"roles? (are )?reversed",
            r"(you|your answer) normali[sz]e[sd]? (the )?memory",
        ),
        code="""
        def quiz_cross_attention_norm() -> str:
            \"\"\"Your answer to Question 1: "a", "b", "c" or "d".\"\"\"
            return "norm2(x), memory, memory"
        """,
    ),
    _c(
        "quiz-decoder-masks-trailing-comma",
        L08,
        "quiz_decoder_masks",
        "writes return 'b', with a trailing comma, so the function returns the one-element "
        "tuple ('b',) instead of the string 'b'.",
        (
            r"tuple",
            r"trailing comma",
            r"\('b',\)",
        ),
        (
            r"look-?ahead",
            r"no mask",
            r"target padding",
        ),
        code="""
        def quiz_decoder_masks() -> str:
            \"\"\"Your answer to Question 2: "a", "b", "c" or "d".\"\"\"
            return "b",
        """,
        source=TRAILING_COMMA_TUPLE,
    ),
]
