"""Held-out wrong answers for lessons 07-08, blind round 16 (helper b16g, 2026-11-28):
mistakes new to the benchmark, written against the checks after round 18's fixes, to
measure how the diagnoses generalise to mistakes nobody here has seen. 19 cases over the
ten exercises (six coded, four questions); two transpose a mistake reported in public (the
URL read for this benchmark), the others are the author's.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run, and each case was compared with the causes of the benchmark's earlier cases for these
lessons (ids and causes only) and replaced where it repeated one.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L07, L08 = "07_encoder", "08_decoder"

# The reports these cases transpose (each read with the search tool for this benchmark).
SUPER_INIT_FORGOTTEN = "https://thecodeforge.io/ml-ai/pytorch-neural-network/"
PADDING_ON_QUERY_ROWS = "https://github.com/pytorch/pytorch/issues/41508"

_c = held_out_authored("blind16g")

BLIND16G: list[Case] = [
    # ------------------------------------------------------------------ 07 LayerNorm
    _c(
        "ln-super-init-forgotten",
        L07,
        "LayerNorm",
        "leaves out super().__init__() at the start of __init__, so assigning the first "
        "nn.Parameter raises AttributeError (cannot assign parameter before "
        "Module.__init__() call) and no LayerNorm can be built.",
        (
            r"super\(\)\.__init__",
            r"(call|calls|calling|forg[oe]t\w*|never call\w*|missing|add)\W{0,3}super",
            r"parent (class'?s? )?(constructor|__init__)",
            r"nn\.Module'?s? (constructor|__init__) (is )?never (called|run)",
        ),
        (
            r"plain tensors?",
            r"not (an? |wrapped in )?nn\.Parameter",
            r"register_buffer",
        ),
        edits=[("        super().__init__()\n        self.eps = eps", "        self.eps = eps")],
        source=SUPER_INIT_FORGOTTEN,
    ),
    _c(
        "ln-gain-column-shape",
        L07,
        "LayerNorm",
        "creates the gain as torch.ones(d_model, 1), a column, instead of torch.ones(d_model): "
        "multiplying (..., d_model) by a (d_model, 1) weight broadcasts the output to "
        "(..., d_model, d_model), and the state-dict shape differs from nn.LayerNorm's.",
        (
            r"\(d_model, 1\)",
            r"weight.{0,60}(shape|size)d?.{0,30}\(\d+, 1\)",
            r"(gain|weight).{0,60}(column|extra (axis|dimension)|should be (1-?D|\(d_model,\)))",
            r"(gain|weight).{0,40}\(\d+,\) (expected|instead)",
        ),
        (
            r"bias.{0,40}(shape|initiali[sz]ed|init\b)",
            r"\bunbiased\b",
            r"keepdim",
        ),
        edits=[
            (
                "self.weight = nn.Parameter(torch.ones(d_model))",
                "self.weight = nn.Parameter(torch.ones(d_model, 1))",
            )
        ],
    ),
    _c(
        "ln-only-mean-divided-precedence",
        L07,
        "LayerNorm",
        "writes self.weight * (x - mean / torch.sqrt(variance + self.eps)) + self.bias: the "
        "bracket closes after the division, so only the mean is divided by the standard "
        "deviation and x itself is never scaled.",
        (
            r"precedence",
            r"bracket|parenthes",
            r"only the mean (is )?(divided|scaled)",
            r"divid\w* only the mean",
            r"x - mean / ",
            r"x (itself )?(is )?never (divided|scaled)",
        ),
        (
            r"\bunbiased\b",
            r"eps.{0,40}(outside|after|added to the (std|standard))",
            r"keepdim",
            r"(over|wrong) (the )?(batch|positions|axis)",
        ),
        edits=[
            (
                "self.weight * (x - mean) / torch.sqrt(variance + self.eps) + self.bias",
                "self.weight * (x - mean / torch.sqrt(variance + self.eps)) + self.bias",
            )
        ],
    ),
    # ------------------------------------------------------------------ 07 question 1
    _c(
        "quiz-ln-axis-list",
        L07,
        "quiz_layer_norm_axis",
        "returns the letter inside a list, ['b'], instead of the string 'b'.",
        (r"\blist\b",),
        (
            r"wrong (option|letter|answer)",
            r"BatchNorm|over the batch",
            r"(whole|entire) sentence",
        ),
        edits=[('return "b"', 'return ["b"]')],
    ),
    # ------------------------------------------------------------------ 07 feed-forward
    _c(
        "ffn-dropout-result-discarded",
        L07,
        "PositionwiseFeedForward",
        "calls self.dropout(hidden) as a statement without keeping its result and gives w_2 "
        "the undropped hidden activations: in training the block never drops anything.",
        (
            r"dropout.{0,80}(discard|never (used|applied|kept)|not (used|applied|kept|assigned)"
            r"|no effect|does nothing|drops nothing|never drops)",
            r"(result|output|return value) of (self\.)?dropout.{0,60}(discard|unused|thrown away"
            r"|not (used|assigned|kept))",
            r"no dropout (is )?(applied|at all)",
            r"(never|not) drop(s|ped)? (any|anything)",
        ),
        (
            r"dropout.{0,40}after (the )?w_2",
            r"dropout.{0,30}(on|to) the (block's )?(input|output)",
            r"hard-?coded",
            r"keep probability",
        ),
        edits=[
            (
                "        return self.w_2(self.dropout(hidden))",
                "        self.dropout(hidden)\n        return self.w_2(hidden)",
            )
        ],
    ),
    _c(
        "ffn-relu-twice",
        L07,
        "PositionwiseFeedForward",
        "applies a second ReLU to the output of w_2 (torch.relu(self.w_2(...))) as well as "
        "the one on the hidden layer, so the block can never return a negative value.",
        (
            r"relu.{0,60}(after|on|to) (the )?(output|w_2|second (linear|layer))",
            r"(second|extra|two|another) relu",
            r"(never|no|cannot (return|output|be)) (any )?negative",
            r"non-?negative",
            r"output.{0,40}clamp\w* (at|to) (zero|0)",
        ),
        (
            r"(no|without|forg\w* the|missing) relu",
            r"gelu",
            r"relu.{0,20}(before|on) (the )?(input|w_1's input)",
        ),
        edits=[
            (
                "        return self.w_2(self.dropout(hidden))",
                "        return torch.relu(self.w_2(self.dropout(hidden)))",
            )
        ],
    ),
    # ------------------------------------------------------------------ 07 EncoderLayer
    _c(
        "el-padding-mask-on-query-rows",
        L07,
        "EncoderLayer",
        "transposes the padding mask's last two axes at the start of forward "
        "(mask.transpose(-1, -2), (batch, 1, len, 1)), so it blocks the padded query rows "
        "instead of the padded key columns: the real tokens still attend to the pads and "
        "each pad's row is fully blocked.",
        (
            r"transpos",
            r"(query|queries|rows?).{0,60}instead of (the )?(keys?|columns?)",
            r"(masks?|blocks?) (the )?(padded )?(query|queries|rows)\b",
            r"\(batch, 1, len, 1\)|\(2, 1, \d+, 1\)",
            r"last two (axes|dimensions).{0,30}swapped",
        ),
        (
            r"invert|~mask|True = (blocked|pad)",
            r"(without|no|never passes|ignores) (the )?(padding )?mask",
            r"mask.{0,30}not passed",
            r"extra (axis|dimension)|5-?D",
        ),
        edits=[
            (
                "    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) "
                "-> torch.Tensor:\n        if self.norm_first:",
                "    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) "
                "-> torch.Tensor:\n        if mask is not None:\n"
                "            mask = mask.transpose(-1, -2)  # (batch, 1, len, 1)\n"
                "        if self.norm_first:",
            )
        ],
        source=PADDING_ON_QUERY_ROWS,
    ),
    _c(
        "el-norm-first-never-stored",
        L07,
        "EncoderLayer",
        "never stores the norm_first argument in __init__ (no self.norm_first = norm_first) "
        "but reads self.norm_first in forward, so every forward raises AttributeError.",
        (
            r"self\.norm_first\s*=\s*norm_first",
            r"norm_first.{0,60}(never|not) (stored|saved|assigned|kept)",
            r"(store|save|keep|assign)\w* (the )?(argument )?norm_first.{0,40}(__init__|attribute"
            r"|self)",
        ),
        (
            r"(always|only) (pre|post)-?LN",
            r"ignores? norm_first",
            r"bare name",
        ),
        edits=[("        self.norm_first = norm_first\n", "")],
    ),
    _c(
        "el-feed-forward-width-num-heads",
        L07,
        "EncoderLayer",
        "builds the feed-forward block as PositionwiseFeedForward(d_model, num_heads, dropout), "
        "the attention line's arguments copied: its hidden layer is num_heads wide instead of "
        "d_ff.",
        (
            r"(feed_forward|PositionwiseFeedForward|feed-forward).{0,80}(num_heads|hidden (width"
            r"|size|layer) (of|is) \d+|\d+ wide)",
            r"num_heads.{0,30}(as|in|for|into) (the )?(d_ff|hidden)",
            r"w_1.{0,60}(out_features|\(\d+, \d+\))",
            r"d_ff.{0,40}(not passed|never passed|replaced|instead)",
        ),
        (
            r"MultiHeadAttention.{0,60}swapped",
            r"(ReLU|relu).{0,30}(missing|after)",
            r"dropout.{0,30}(slot|rate).{0,30}swapped",
        ),
        edits=[
            (
                "self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)",
                "self.feed_forward = PositionwiseFeedForward(d_model, num_heads, dropout)",
            )
        ],
    ),
    # ------------------------------------------------------------------ 07 Encoder
    _c(
        "enc-default-mask-batch-by-len",
        L07,
        "Encoder",
        "when mask is None builds an all-True mask of shape (batch, len) "
        "(torch.ones(x.shape[:2], dtype=torch.bool)) instead of passing None on: against the "
        "(batch, heads, len, len) scores it lines up as (len, len), which fails whenever the "
        "batch size differs from the length (and from 1).",
        (
            r"mask=None.{0,80}(build|make|creat)",
            r"(build|make|creat)\w* (its own|a|an all-True) mask",
            r"torch\.ones",
            r"\(batch, len\).{0,60}(mask|broadcast)",
            r"(leave|pass|keep)\w* (the )?mask (as )?None",
        ),
        (
            r"invert|~mask",
            r"(without|no) mask.{0,30}(to|for) (the )?layers",
            r"squeez",
            r"keyword",
        ),
        edits=[
            (
                "        for layer in self.layers:\n",
                "        if mask is None:\n"
                "            mask = torch.ones(x.shape[:2], dtype=torch.bool)\n"
                "        for layer in self.layers:\n",
            )
        ],
    ),
    _c(
        "enc-d-model-as-d-ff",
        L07,
        "Encoder",
        "builds the layers as EncoderLayer(d_model, num_heads, d_model, dropout, norm_first): "
        "d_model in the d_ff slot, so every feed-forward block is d_model wide and d_ff is "
        "never used.",
        (
            r"d_ff.{0,60}(d_model|ignored|not passed|never (passed|used))",
            r"d_model.{0,40}(as|in|for|into) (the )?d_ff",
            r"hidden (width|size|layer).{0,40}(d_model|\d+ instead)",
            r"feed.?forward.{0,60}(\d+|d_model) wide",
        ),
        (
            r"swapped",
            r"num_heads.{0,30}(as|in|for|into) (the )?d_ff",
            r"shar\w+ (one|the same) (layer|weights)",
        ),
        edits=[
            (
                "[EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first)",
                "[EncoderLayer(d_model, num_heads, d_model, dropout, norm_first)",
            )
        ],
    ),
    _c(
        "enc-layers-attribute-renamed",
        L07,
        "Encoder",
        "keeps the stack under the name encoder_layers (self.encoder_layers = "
        "nn.ModuleList(...)) instead of layers: the values are right, but the encoder has no "
        "`layers` attribute and its state-dict keys differ from the contract's.",
        (
            r"encoder_layers",
            r"\blayers\b.{0,40}(attribute|name|not found|missing)",
            r"(no|missing) (attribute )?[`'\"]?layers",
            r"(called|named) [`'\"]?layers",
        ),
        (
            r"plain (python )?list",
            r"shar\w+ (one|the same) (layer|weights)",
            r"(fewer|more) layers",
        ),
        edits=[
            ("self.layers = nn.ModuleList(", "self.encoder_layers = nn.ModuleList("),
            ("for layer in self.layers:", "for layer in self.encoder_layers:"),
        ],
    ),
    # ------------------------------------------------------------------ 07 question 2
    _c(
        "quiz-final-norm-yield",
        L07,
        "quiz_final_norm",
        "writes yield 'c' instead of return 'c', so calling the function gives a generator "
        "object, not the string 'c'.",
        (r"generator", r"\byield\b"),
        (
            r"post-LN encoder",
            r"(neither|both) (encoder|stack)s?",
            r"wrong (option|letter|answer)",
        ),
        edits=[('return "c"', 'yield "c"')],
    ),
    # ------------------------------------------------------------------ 08 DecoderLayer
    _c(
        "dl-masks-cast-to-bool-when-none",
        L08,
        "DecoderLayer",
        "starts forward with src_mask = src_mask.bool() and tgt_mask = tgt_mask.bool() "
        "without testing for None, so a layer called without masks (their documented "
        "default) raises AttributeError; with both masks it is right.",
        (
            r"(src_|tgt_)?masks? (is|are|=) ?None.{0,80}(\.bool|convert|cast|handl|check|test)",
            r"(check|test)\w* .{0,20}is (not )?None",
            r"without (a |the |any )?(src_|tgt_)?masks?.{0,60}(fail|rais|error|crash)",
            r"\.bool\(\).{0,60}None",
            r"masks? (are |is )?optional",
        ),
        (
            r"swapped|wrong order",
            r"(look-ahead|tgt_mask) (to|for|in) the cross",
            r"(no|without) (the )?src_mask (to|for|in) the cross",
        ),
        edits=[
            (
                "    ) -> torch.Tensor:\n        if self.norm_first:",
                "    ) -> torch.Tensor:\n        src_mask = src_mask.bool()\n"
                "        tgt_mask = tgt_mask.bool()\n        if self.norm_first:",
            )
        ],
    ),
    _c(
        "dl-dropout-built-with-num-heads",
        L08,
        "DecoderLayer",
        "builds the residual dropout as nn.Dropout(num_heads), the attention line's argument "
        "copied: with more than one head the constructor raises ValueError (a probability "
        "must lie between 0 and 1), and with one head every residual branch is dropped.",
        (
            r"Dropout\(num_heads\)",
            r"num_heads.{0,30}(as|in|for|into) (the )?(residual )?dropout",
            r"dropout (rate|probability|p) (of |is |= ?)?num_heads",
            r"(rate|probability).{0,30}(from|is) num_heads",
        ),
        (
            r"(heads|MultiHeadAttention).{0,40}swapped",
            r"dropout.{0,30}(on|to) (the )?memory",
            r"keep probability",
        ),
        edits=[
            (
                "        self.dropout = nn.Dropout(dropout)",
                "        self.dropout = nn.Dropout(num_heads)",
            )
        ],
    ),
    # ------------------------------------------------------------------ 08 question 1
    _c(
        "quiz-cross-norm-quotes-inside",
        L08,
        "quiz_cross_attention_norm",
        "returns the letter with its quotes inside the string, '\"b\"' (three characters), "
        "instead of 'b'.",
        (
            r"quot(e|es|ation|ed)",
            r"extra (quote|character)s?",
            r"(three|3) characters",
        ),
        (
            r"roles? (are )?reversed",
            r"memory.{0,30}normali[sz]ed (too|as well)",
            r"wrong (option|letter)",
        ),
        edits=[('return "b"', "return '\"b\"'")],
    ),
    # ------------------------------------------------------------------ 08 Decoder
    _c(
        "dec-masks-keyword-only",
        L08,
        "Decoder",
        "declares the masks keyword-only, forward(self, x, memory, *, src_mask=None, "
        "tgt_mask=None): the contract's positional call decoder(x, memory, src_mask, "
        "tgt_mask) raises TypeError.",
        (
            r"keyword[- ]only",
            r"(bare|lone|the) \*,? (in|of) (the |your )?(signature|forward)",
            r"(masks?|src_mask).{0,40}(by position|positionally)",
        ),
        (
            r"swapped|wrong order|torch'?s? order",
            r"(missing|no) defaults?",
            r"(x|memory).{0,20}swapped",
        ),
        edits=[
            (
                "        memory: torch.Tensor,\n        src_mask:",
                "        memory: torch.Tensor,\n        *,\n        src_mask:",
            )
        ],
    ),
    _c(
        "dec-final-norm-is-last-layers-norm3",
        L08,
        "Decoder",
        "takes the final norm from the last layer (self.norm = self.layers[-1].norm3) instead "
        "of a new LayerNorm: the values are right while fresh, but the final norm shares its "
        "gain and bias with the last layer's norm3, so training or loading one changes the "
        "other and the stack has one LayerNorm's parameters fewer.",
        (
            r"norm3",
            r"shar\w+ .{0,60}(last layer|layers\[-1\])",
            r"(own|separate|new|independent) LayerNorm",
            r"same (LayerNorm|object|parameters) as",
        ),
        (
            r"(never|not) applied",
            r"final norm.{0,40}(missing|absent)",
            r"norm_first.{0,40}(ignored|not passed)",
            r"every layer",
        ),
        edits=[
            (
                "self.norm = LayerNorm(d_model) if use_final_norm else None",
                "self.norm = self.layers[-1].norm3 if use_final_norm else None",
            )
        ],
    ),
    # ------------------------------------------------------------------ 08 question 2
    _c(
        "quiz-dec-masks-mask-name",
        L08,
        "quiz_decoder_masks",
        "returns the name of the mask, 'src_mask', instead of the letter of the option that "
        "describes it, 'b'.",
        (
            r"letter",
            r"one of .{0,3}a.{0,6}b.{0,6}c.{0,6}d",
            r"(name|variable) of (the )?mask",
        ),
        (
            r"(you|your answer).{0,40}(look-ahead|target padding)",
            r"no mask (is )?needed",
        ),
        edits=[('return "b"', 'return "src_mask"')],
    ),
]
