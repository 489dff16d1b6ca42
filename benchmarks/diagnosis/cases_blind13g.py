"""Held-out wrong answers for lessons 07-08, blind round 13 (helper r13g, 2026-11-27):
mistakes new to the benchmark, written while the checks' mutation-based diagnosis was being
built, and judged before and after it. 24 cases over the ten exercises; eleven transpose a
mistake reported in public (the URL read for this benchmark), the others are the author's.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run, and each case was compared with the causes of the benchmark's earlier cases for these
lessons (ids and causes only) and replaced where it repeated one.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L07, L08 = "07_encoder", "08_decoder"

# The reports these cases transpose (each read with the search tool for this benchmark).
AFFINE_NOT_PER_FEATURE = "https://github.com/davisking/dlib/issues/2486"
EPS_NEVER_IN_DENOMINATOR = "https://github.com/VeriSilicon/TIM-VX/pull/589"
DROPOUT_KEEP_PROB = "https://github.com/hassony2/kinetics_i3d_pytorch/issues/6"
VIEW_BEFORE_CONV = "https://github.com/proceduralia/pytorch-conv2_1d/issues/1"
DROPOUT_LIST_EVAL = "https://github.com/namisan/mt-dnn/issues/45"
DROPOUT_ON_SUBLAYER_INPUT = "https://github.com/OpenNMT/OpenNMT-tf/issues/207"
FLOAT_VERSUS_BOOL_MASK = "https://github.com/huggingface/pytorch-image-models/pull/2674"
TORCH_ONLY_KEYWORD = "https://github.com/bkitano/llama-from-scratch/issues/1"
FORWARD_CACHE_NOT_CLEARED = "https://github.com/MenghaoGuo/AutoDeeplab/pull/27"
DECODER_ALWAYS_CAUSAL = "https://github.com/pytorch/pytorch/issues/31567"
DROPOUT_AFTER_BLOCK = "https://github.com/codertimo/BERT-pytorch/issues/85"

_c = held_out_authored("blind13g")

BLIND13G: list[Case] = [
    # ------------------------------------------------------------------ 07 LayerNorm
    _c(
        "ln-one-gain-one-bias",
        L07,
        "LayerNorm",
        "creates the gain and the bias with one element each (torch.ones(1), torch.zeros(1)): "
        "a single scale and offset shared by every feature instead of one per feature, shape "
        "(d_model,); a fresh layer computes the right values, but the parameters' shapes "
        "differ from nn.LayerNorm's and per-feature weights cannot be loaded.",
        (
            r"\(1,\)",
            r"Size\(\[1\]\)",
            r"torch\.ones\(1\)",
            r"(one|a single|scalar) (gain|weight|scale).{0,60}(every|all|each) feature",
            r"(gain|weight|bias).{0,60}(one|single|1) (element|number|value)\b",
        ),
        (
            r"unbiased|\bn ?- ?1\b|d_model ?- ?1",
            r"eps.{0,40}(inside|outside) the square root",
            r"over the (batch|positions|whole sentence)",
            r"(named|names?) .{0,20}(gamma|beta)",
        ),
        edits=[
            ("nn.Parameter(torch.ones(d_model))", "nn.Parameter(torch.ones(1))"),
            ("nn.Parameter(torch.zeros(d_model))", "nn.Parameter(torch.zeros(1))"),
        ],
        source=AFFINE_NOT_PER_FEATURE,
    ),
    _c(
        "ln-eps-added-after-division",
        L07,
        "LayerNorm",
        "writes ... / torch.sqrt(variance) + self.eps without brackets, so by operator "
        "precedence eps is added to the normalised result instead of to the denominator: "
        "ordinary tokens come out shifted by eps, and a constant token (variance 0) divides "
        "0 by 0 and gives NaN.",
        (
            r"precedence",
            r"parenthes[ie]s|brackets",
            r"eps.{0,60}(added|adds) to the (result|output|quotient|normali[sz]ed)",
            r"eps.{0,80}(never|not) (reaches|in|inside|under) the (denominator|square root)",
        ),
        (
            r"unbiased|\bn ?- ?1\b|d_model ?- ?1",
            r"eps.{0,40}(added to|plus) the (std|standard deviation)",
            r"over the (batch|positions|whole sentence)",
        ),
        edits=[
            (
                "/ torch.sqrt(variance + self.eps) + self.bias",
                "/ torch.sqrt(variance) + self.eps + self.bias",
            )
        ],
        source=EPS_NEVER_IN_DENOMINATOR,
    ),
    _c(
        "ln-variance-floor-divided",
        L07,
        "LayerNorm",
        "computes the variance as the sum of squared deviations floor-divided by the feature "
        "count (// instead of /), so every variance is rounded down to a whole number: "
        "tokens whose variance is below 1 get 0 (and are divided by sqrt(eps)), the others a "
        "variance too small.",
        (r"//", r"floor", r"integer division", r"round(ed|s)? down", r"whole number"),
        (
            r"unbiased|\bn ?- ?1\b|d_model ?- ?1",
            r"eps.{0,40}(inside|outside) the square root",
            r"over the (batch|positions|whole sentence)",
        ),
        edits=[
            (
                "variance = x.var(dim=-1, keepdim=True, unbiased=False)",
                "variance = ((x - mean) ** 2).sum(dim=-1, keepdim=True) // x.shape[-1]",
            )
        ],
    ),
    _c(
        "ln-math-sqrt-of-tensor",
        L07,
        "LayerNorm",
        "takes the square root with math.sqrt instead of torch.sqrt: with more than one "
        "token the variance tensor cannot be turned into one Python float and the learner's "
        "forward raises; a single token (d_model,) goes through, but as a Python float that "
        "carries no gradient.",
        (r"math\.sqrt", r"torch\.sqrt", r"element-?wise square root"),
        (r"keepdim", r"unbiased|\bn ?- ?1\b", r"dtype"),
        code="""
        import math


        class LayerNorm(nn.Module):
            def __init__(self, d_model: int, eps: float = 1e-5):
                super().__init__()
                self.eps = eps
                self.weight = nn.Parameter(torch.ones(d_model))
                self.bias = nn.Parameter(torch.zeros(d_model))

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                mean = x.mean(dim=-1, keepdim=True)
                variance = x.var(dim=-1, keepdim=True, unbiased=False)
                return self.weight * (x - mean) / math.sqrt(variance + self.eps) + self.bias
        """,
    ),
    # ------------------------------------------------------------------ 07 PositionwiseFeedForward
    _c(
        "ffn-dropout-as-keep-probability",
        L07,
        "PositionwiseFeedForward",
        "builds nn.Dropout(1 - dropout), reading the argument as a keep probability "
        "(TensorFlow's keep_prob) where nn.Dropout takes the probability of zeroing: with "
        "dropout=0.0 training drops every hidden unit, with dropout=0.1 it drops 90%; eval "
        "mode hides it.",
        (
            r"1 ?- ?(dropout|p)\b",
            r"keep[-_ ]?prob",
            r"probability of (keeping|being kept)",
            r"p ?= ?1(\.0)?\b.{0,80}dropout ?= ?0",
        ),
        (
            r"after w_2|on the (block'?s? )?output",
            r"functional|F\.dropout",
            r"dropout.{0,30}on the input",
            r"ignor(es|ing) the dropout argument",
        ),
        edits=[("self.dropout = nn.Dropout(dropout)", "self.dropout = nn.Dropout(1 - dropout)")],
        source=DROPOUT_KEEP_PROB,
    ),
    _c(
        "ffn-conv1d-with-view",
        L07,
        "PositionwiseFeedForward",
        "two mistakes at once: builds w_1 and w_2 as nn.Conv1d(..., kernel_size=1) (the "
        "paper's 'two convolutions with kernel size 1'), whose weights are (out, in, 1) "
        "instead of nn.Linear's (out, in), and moves the features to axis 1 with view "
        "instead of transpose, which reshuffles the numbers instead of swapping the axes: "
        "positions and features are mixed unless len == 1.",
        (
            r"Conv1d",
            r"nn\.Linear",
            r"view.{0,80}transpose|transpose.{0,80}view",
            r"\(\d+, \d+, 1\)",
            r"kernel",
        ),
        (
            r"(no|without|missing|forgot).{0,20}relu",
            r"dropout (on|after) (the )?(input|output|w_2)",
            r"\(out, in\).{0,40}(order|swapped)",
        ),
        code="""
        class PositionwiseFeedForward(nn.Module):
            def __init__(self, d_model: int, d_ff: int, dropout: float = 0.0):
                super().__init__()
                # the paper: "two convolutions with kernel size 1"
                self.w_1 = nn.Conv1d(d_model, d_ff, kernel_size=1)
                self.w_2 = nn.Conv1d(d_ff, d_model, kernel_size=1)
                self.dropout = nn.Dropout(dropout)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                batch, length, d_model = x.shape
                h = x.view(batch, d_model, length)  # Conv1d wants (batch, channels, len)
                h = self.w_2(self.dropout(torch.relu(self.w_1(h))))
                return h.view(batch, length, d_model)
        """,
        source=VIEW_BEFORE_CONV,
    ),
    _c(
        "ffn-relu-on-input",
        L07,
        "PositionwiseFeedForward",
        "applies the ReLU to the block's input before w_1, w_1(relu(x)), instead of to w_1's "
        "output: the hidden layer is linear (no non-linearity between w_1 and w_2) and the "
        "negative input features are zeroed.",
        (
            r"relu.{0,80}(the (block'?s? )?input|before w_1|to x\b)",
            r"(before|instead of after) w_1",
            r"w_1\((torch\.)?relu\(x\)\)",
        ),
        (
            r"(no|without|missing|forgot).{0,20}relu",
            r"relu.{0,40}after w_2",
            r"gelu",
        ),
        edits=[("hidden = torch.relu(self.w_1(x))", "hidden = self.w_1(torch.relu(x))")],
    ),
    # ------------------------------------------------------------------ 07 EncoderLayer
    _c(
        "el-dropouts-in-plain-list",
        L07,
        "EncoderLayer",
        "keeps its two residual dropouts in a plain Python list (self.dropouts = "
        "[nn.Dropout(p), nn.Dropout(p)]): they are not registered as sub-modules, so "
        ".eval() never reaches them and the residual dropout stays on in eval mode whenever "
        "dropout > 0; training mode is right.",
        (
            r"(plain|python) list",
            r"not (registered|a sub-?module)",
            r"ModuleList",
            r"eval\(\).{0,80}(not|never) (reach|switch|turn)",
        ),
        (
            r"functional|F\.dropout|training=self\.training",
            r"dropout.{0,40}(residual )?sum",
            r"after the norm",
        ),
        code="""
        class EncoderLayer(nn.Module):
            def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
                super().__init__()
                self.norm_first = norm_first
                self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
                self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)
                self.norm1 = LayerNorm(d_model)
                self.norm2 = LayerNorm(d_model)
                # one dropout per sub-layer
                self.dropouts = [nn.Dropout(dropout), nn.Dropout(dropout)]

            def forward(self, x, mask=None):
                drop_attn, drop_ff = self.dropouts
                if self.norm_first:
                    h = self.norm1(x)
                    x = x + drop_attn(self.self_attn(h, h, h, mask)[0])
                    return x + drop_ff(self.feed_forward(self.norm2(x)))
                x = self.norm1(x + drop_attn(self.self_attn(x, x, x, mask)[0]))
                return self.norm2(x + drop_ff(self.feed_forward(x)))
        """,
        source=DROPOUT_LIST_EVAL,
    ),
    _c(
        "el-norm-first-default-true",
        L07,
        "EncoderLayer",
        "declares norm_first: bool = True in __init__ (pre-LN, the modern default) instead "
        "of the paper's False: an EncoderLayer built without norm_first is pre-LN; both "
        "branches are right when norm_first is given.",
        (
            r"default.{0,80}norm_first|norm_first.{0,80}default",
            r"without (passing |giving )?norm_first",
        ),
        (
            r"ignor(es|ing) norm_first|never reads norm_first",
            r"(branches|layouts) (are )?(swapped|inverted)|if not self\.norm_first",
        ),
        edits=[("norm_first: bool = False,", "norm_first: bool = True,")],
    ),
    _c(
        "el-dropout-on-sublayer-input",
        L07,
        "EncoderLayer",
        "applies the residual dropout to each sub-layer's input (self_attn(dropout(x), ...), "
        "feed_forward(dropout(x))) instead of to its output before the addition, in both "
        "layouts: only training mode with dropout > 0 shows it (at dropout=1 the sub-layers "
        "read zeros and their outputs are still added).",
        (
            r"dropout.{0,80}(sub-?layer'?s? input|input of (each|the) sub-?layer|before the "
            r"sub-?layer)",
            r"dropout.{0,60}(on|to) the (attention'?s?|feed-forward'?s?) (input|queries)",
        ),
        (
            r"dropout.{0,30}(residual )?sum",
            r"after the norm",
            r"(no|missing|without) (residual )?dropout",
        ),
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
                    h = self.dropout(self.norm1(x))
                    x = x + self.self_attn(h, h, h, mask)[0]
                    return x + self.feed_forward(self.dropout(self.norm2(x)))
                h = self.dropout(x)
                x = self.norm1(x + self.self_attn(h, h, h, mask)[0])
                return self.norm2(x + self.feed_forward(self.dropout(x)))
        """,
        source=DROPOUT_ON_SUBLAYER_INPUT,
    ),
    _c(
        "el-feed-forward-arguments-swapped",
        L07,
        "EncoderLayer",
        "builds the feed-forward block as PositionwiseFeedForward(d_model, dropout, d_ff): "
        "the dropout rate lands in the d_ff slot and d_ff in the dropout slot, so building "
        "the layer raises inside nn.Linear (a float size) before any forward.",
        (
            r"PositionwiseFeedForward\(.{0,60}(order|swapped|places)",
            r"d_ff.{0,60}dropout.{0,60}(swapped|order|places|exchanged)",
            r"dropout.{0,60}d_ff.{0,60}(swapped|order|places|exchanged)",
        ),
        (r"MultiHeadAttention\(.{0,40}(order|swapped)", r"num_heads.{0,40}(swapped|order)"),
        edits=[
            (
                "self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)",
                "self.feed_forward = PositionwiseFeedForward(d_model, dropout, d_ff)",
            )
        ],
    ),
    # ------------------------------------------------------------------ 07 Encoder
    _c(
        "enc-mask-made-additive",
        L07,
        "Encoder",
        "converts the bool padding mask into an additive float mask (0 = attend, -inf = "
        "blocked, nn.Transformer's float form) before the layers, although lesson 05's "
        "attention takes the bool mask (True = may attend): every call with a mask fails "
        "inside the attention; without a mask it is right.",
        (
            r"(additive|float(ing[- ]point)?) mask",
            r"(converts?|turns?|casts?).{0,40}mask.{0,40}(float|additive|-inf)",
            r"0 and -inf",
        ),
        (
            r"invert(ed|s)? (the )?mask|~mask|True = (ignore|blocked)",
            r"(not|never) pass(es|ed)? the mask|without the mask",
            r"squeez",
        ),
        edits=[
            (
                "        for layer in self.layers:",
                "        if mask is not None:  # additive form: 0 = attend, -inf = blocked\n"
                "            mask = torch.zeros(mask.shape, dtype=x.dtype).masked_fill("
                '~mask, float("-inf"))\n'
                "        for layer in self.layers:",
            )
        ],
        source=FLOAT_VERSUS_BOOL_MASK,
    ),
    _c(
        "enc-final-norm-named-final-layer-norm",
        L07,
        "Encoder",
        "keeps the final LayerNorm under the name final_layer_norm (Hugging Face's) instead "
        "of norm: the values are right, but the encoder has no `norm` attribute and its "
        "state-dict keys are final_layer_norm.* instead of norm.*.",
        (
            r"final_layer_norm",
            r"has no attribute '?norm'?",
            r"(attribute|called|named) `?norm`?\b",
            r"\bnorm\.weight",
            r"state[- ]dict keys?",
        ),
        (
            r"final_norm=None.{0,60}(means|read|as)",
            r"always (adds?|applies)",
            r"never appl(ied|ies)",
        ),
        edits=[
            (
                "self.norm = LayerNorm(d_model) if use_final_norm else None",
                "self.final_layer_norm = LayerNorm(d_model) if use_final_norm else None",
            ),
            (
                "return x if self.norm is None else self.norm(x)",
                "return x if self.final_layer_norm is None else self.final_layer_norm(x)",
            ),
        ],
    ),
    # ------------------------------------------------------------------ 07 quizzes
    _c(
        "quiz-ln-axis-returns-dim",
        L07,
        "quiz_layer_norm_axis",
        "answers with the axis itself, the int -1 (dim=-1), instead of the letter of the "
        "option, the string 'b'.",
        (
            r"(got|returned|received|is) (the )?(\bint\b|integer|-1)",
            r"(letter|string|str).{0,60}(not|instead of).{0,30}(\bint\b|integer|number|-1)",
            r"not a (letter|string|str)\b",
        ),
        (r"batch ?norm|over the batch", r"(whole|entire) sentence", r"over the positions"),
        edits=[('return "b"', "return -1  # the last axis")],
    ),
    _c(
        "quiz-final-norm-neither",
        L07,
        "quiz_final_norm",
        "answers (b), neither encoder needs a final LayerNorm, as if it only slowed training, "
        "although a pre-LN stack ends with a residual sum that no LayerNorm follows and whose "
        "size grows layer by layer.",
        (
            r"pre-?LN.{0,120}(residual|not normali[sz]ed|no LayerNorm|unnormali[sz]ed|grows)",
            r"(residual|stream).{0,80}(never|not|no) (normali[sz]ed|LayerNorm)",
        ),
        (r"post-?LN.{0,60}(needs|grows)",),
        edits=[('return "c"', 'return "b"')],
    ),
    # ------------------------------------------------------------------ 08 DecoderLayer
    _c(
        "dl-is-causal-keyword",
        L08,
        "DecoderLayer",
        "calls the self-attention with nn.MultiheadAttention's keyword, self_attn(x, x, x, "
        "tgt_mask, is_causal=True), in both layouts: lesson 05's MultiHeadAttention has no "
        "is_causal argument, so every forward raises TypeError in the learner's code (the "
        "look-ahead is already in tgt_mask).",
        (r"is_causal", r"unexpected keyword"),
        (
            r"tgt_mask.{0,40}(missing|not passed)",
            r"look-?ahead.{0,40}(missing|not applied)",
        ),
        edits=[
            (
                "self.self_attn(h, h, h, tgt_mask)[0]",
                "self.self_attn(h, h, h, tgt_mask, is_causal=True)[0]",
            ),
            (
                "self.self_attn(x, x, x, tgt_mask)[0]",
                "self.self_attn(x, x, x, tgt_mask, is_causal=True)[0]",
            ),
        ],
        source=TORCH_ONLY_KEYWORD,
    ),
    _c(
        "dl-memory-kept-from-first-call",
        L08,
        "DecoderLayer",
        "keeps the memory of its first call in self.memory (since the encoder output does "
        "not change while decoding) and reads that on every later call: the first call is "
        "right, a later call with another memory cross-attends to the stale one (or fails "
        "when its shape differs).",
        (
            r"(second|later|next|another|new) call",
            r"(stale|previous|first|earlier|cached|stored|kept) memory",
            r"cach(e|es|ed|ing)\b",
            r"self\.memory",
        ),
        (
            r"(queries|keys|values) (come )?from",
            r"detach",
            r"normali[sz](e|es|ed).{0,30}memory",
        ),
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
                self.memory = None  # the encoder output does not change while decoding

            def forward(self, x, memory, src_mask=None, tgt_mask=None):
                if self.memory is None:
                    self.memory = memory
                memory = self.memory
                if self.norm_first:
                    h = self.norm1(x)
                    x = x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])
                    h = self.norm2(x)
                    x = x + self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])
                    return x + self.dropout(self.feed_forward(self.norm3(x)))
                x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))
                x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))
                return self.norm3(x + self.dropout(self.feed_forward(x)))
        """,
        source=FORWARD_CACHE_NOT_CLEARED,
    ),
    _c(
        "dl-src-mask-expanded-to-len-src",
        L08,
        "DecoderLayer",
        "expands src_mask to one row per query with memory.size(1), the source length, "
        "instead of x.size(1), the target length (src_mask.expand(-1, -1, len_src, -1)): "
        "right when len_src == len_tgt, a shape error in the attention otherwise.",
        (
            r"expand",
            r"len_src.{0,60}(instead of|not|rather than|where).{0,40}len_tgt",
            r"memory\.size\(1\)|memory\.shape\[1\]",
        ),
        (
            r"tgt_mask.{0,60}(cross|instead of src_mask)",
            r"quer(y|ies) from (the )?memory",
            r"(no|without|missing) src_mask",
        ),
        edits=[
            (
                "        if self.norm_first:\n            h = self.norm1(x)",
                "        if src_mask is not None:  # one row per query\n"
                "            src_mask = src_mask.expand(-1, -1, memory.size(1), -1)\n"
                "        if self.norm_first:\n            h = self.norm1(x)",
            )
        ],
    ),
    _c(
        "dl-norm-first-read-as-bare-name",
        L08,
        "DecoderLayer",
        "tests `if norm_first:` in forward, the constructor's argument, instead of the "
        "attribute self.norm_first: the name is not defined in forward, so every call raises "
        "NameError in the learner's code.",
        (r"self\.norm_first", r"NameError", r"norm_first.{0,40}(not defined|undefined)"),
        (r"ignor(es|ing) norm_first", r"always (post|pre)-?LN"),
        edits=[("        if self.norm_first:\n", "        if norm_first:\n")],
    ),
    # ------------------------------------------------------------------ 08 Decoder
    _c(
        "dec-causal-mask-when-none",
        L08,
        "Decoder",
        "builds a look-ahead mask itself when tgt_mask is None (so that the decoder could "
        "never see the future), although None means no mask: every given mask is used as it "
        "is, but a call without tgt_mask is causal instead of unmasked.",
        (
            r"tgt_mask=None.{0,120}(no mask|nothing (is )?masked|every (position|target)|attend "
            r"to all|unmasked|not causal)",
            r"(builds?|adds?|creates?|makes?) (its own|a|an) (look-?ahead|causal|triangular) mask",
            r"None (means|=) no mask",
        ),
        (
            r"padding.{0,60}(dropped|lost|ignored)",
            r"masks? (are )?swapped|tgt_mask.{0,30}src_mask.{0,30}(swapped|order)",
        ),
        edits=[
            (
                "        for layer in self.layers:",
                "        if tgt_mask is None:  # a decoder must never see the future\n"
                "            n = x.size(1)\n"
                "            tgt_mask = torch.ones(n, n, dtype=torch.bool, device=x.device).tril()\n"
                "        for layer in self.layers:",
            )
        ],
        source=DECODER_ALWAYS_CAUSAL,
    ),
    _c(
        "dec-module-list-of-lists",
        L08,
        "Decoder",
        "misplaces the list's closing bracket, nn.ModuleList([DecoderLayer(...)] for _ in "
        "range(num_layers)): a generator of one-element lists, which ModuleList refuses "
        "(a list is not a Module), so building the decoder raises TypeError.",
        (
            r"not a Module subclass",
            r"lists? (inside|of lists|nested)",
            r"bracket",
            r"\[DecoderLayer\(.{0,80}\] for",
        ),
        (
            r"plain (python )?list",
            r"(same|one) (layer )?object|shared weights",
            r"nn\.Sequential",
        ),
        edits=[
            (
                "[DecoderLayer(d_model, num_heads, d_ff, dropout, norm_first) "
                "for _ in range(num_layers)]",
                "[DecoderLayer(d_model, num_heads, d_ff, dropout, norm_first)] "
                "for _ in range(num_layers)",
            )
        ],
    ),
    _c(
        "dec-dropout-between-layers",
        L08,
        "Decoder",
        "adds a dropout of its own to every layer's output in the loop (x = "
        "self.dropout(layer(...))), on top of the layers' residual dropouts: eval mode and "
        "dropout 0 hide it; training with dropout > 0 drops the stream between layers.",
        (
            r"dropout.{0,60}between (the )?layers",
            r"(extra|additional|own) dropout",
            r"dropout.{0,60}(each|every) layer'?s? output",
        ),
        (
            r"not (forwarded|passed) to the layers",
            r"(ignores?|without) (the )?dropout argument",
            r"final norm",
        ),
        edits=[
            (
                "self.norm = LayerNorm(d_model) if use_final_norm else None",
                "self.norm = LayerNorm(d_model) if use_final_norm else None\n"
                "        self.dropout = nn.Dropout(dropout)",
            ),
            (
                "x = layer(x, memory, src_mask, tgt_mask)",
                "x = self.dropout(layer(x, memory, src_mask, tgt_mask))",
            ),
        ],
        source=DROPOUT_AFTER_BLOCK,
    ),
    # ------------------------------------------------------------------ 08 quizzes
    _c(
        "quiz-cross-norm-roles-reversed",
        L08,
        "quiz_cross_attention_norm",
        "answers (d), memory as the query and norm2(x) as keys and values: the roles "
        "reversed; the queries are the decoder's normalised stream norm2(x), the keys and "
        "values the memory as it comes.",
        (
            r"quer(y|ies).{0,80}(decoder|norm2\(x\))",
            r"(keys?|values?).{0,60}(memory|encoder)",
            r"roles? (reversed|swapped)",
        ),
        (r"norm2\(memory\)", r"memory.{0,40}(normali[sz]ed|norm2) (again|twice|too)"),
        edits=[('return "b"', 'return "d"')],
    ),
    # blind13g-quiz-decoder-masks-letter-in-brackets left out after the run: the quiz checks
    # accept a letter written with brackets or a full stop on purpose (checking.quiz strips them);
    # generalisation.py lists it with the reason.
    # _c(
    #     "quiz-decoder-masks-letter-in-brackets",
    #     L08,
    #     "quiz_decoder_masks",
    #     'returns the option\'s label as printed, "(b)", brackets included, instead of the '
    #     'letter "b": the right choice in the wrong form.',
    #     (
    #         r"parenthes[ie]s|brackets",
    #         r"\(b\).{0,60}(not|instead)",
    #         r"(just|only) the letter|the letter alone|a single letter|one letter",
    #         r'"a", "b", "c" or "d"',
    #     ),
    #     (r"look-?ahead", r"target padding", r"no mask"),
    #     edits=[('return "b"', 'return "(b)"')],
    # ),
]
