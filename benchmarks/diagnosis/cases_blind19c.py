"""Held-out wrong answers, blind round 19 (helper b19c, 2026-11-28): mistakes new to the
benchmark, written blind (no check module, no message read) while fix round 21 changed the
checks, to measure how the diagnoses generalise to mistakes nobody here has seen
(``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L07, L08 = "07_encoder", "08_decoder"
L09, L10 = "09_transformer", "10_training"

LN_FROZEN = "https://github.com/harvard-edge/cs249r_book/pull/1504"
RELU_PY_MAX = "https://whosebug.com/question/6393650/ValueError-with-ReLU-function-in-python"
MASKS_MIXED = "https://github.com/keras-team/keras-io/pull/1046"
D_FF_FOUR = "https://github.com/HorizonRobotics/alf/pull/1299"
STACK_CAT = "https://github.com/pytorch/pytorch/issues/15037"
TIE_SAME_SIZE = "https://github.com/marian-nmt/marian-dev/issues/502"
ARRAY_SPLIT = "https://errorhandle.ai/how-does-the-numpy-function-array-split-work-mathematically"
CLIP_MODEL = "https://runebook.dev/en/docs/pytorch/generated/torch.nn.utils.clip_grad_norm_"
OUTPUTS_0 = "https://github.com/DSL-Lab/Specformer/issues/7"
BLEU_DEFAULTS = "https://github.com/mjpost/sacrebleu/issues/195"
TEACHER_FORCING = (
    "https://publish.obsidian.md/subhaditya/KB/AI/Machine+Learning/Models/Teacher+Forcing"
)

_c = held_out_authored("blind19c")

BLIND19C: list[Case] = [
    # ------------------------------------------------------------------ 07 encoder
    _c(
        "ln-gain-never-multiplied",
        L07,
        "LayerNorm",
        "forward adds the bias but never multiplies by the learned gain, returning "
        "(x - mean) / sqrt(variance + eps) + bias: a fresh layer (gain of ones) is right, a "
        "layer whose gain was trained or loaded is not.",
        (
            r"(gain|weight)\b.{0,40}(never|not|isn't|is not) (multipl|appl|used)",
            r"(never|not|forg[eo]t\w*|without) (multipl\w* by|apply\w*|using|scal\w* by) "
            r"(the )?(learned )?(gain|weight|self\.weight)",
            r"(ignores|drops|leaves out|omits) (the )?(learned )?(gain|weight|self\.weight)",
            r"self\.weight \*",
            r"gain (is )?(missing|ignored|unused)",
        ),
        (
            r"bias (is )?(never|not) added",
            r"(gain|weight) and (the )?bias (are )?swapped",
            r"unbiased",
            r"eps (is )?(added )?outside",
        ),
        edits=(
            (
                "        return self.weight * (x - mean) / torch.sqrt(variance + self.eps) + self.bias",
                "        return (x - mean) / torch.sqrt(variance + self.eps) + self.bias",
            ),
        ),
    ),
    _c(
        "ln-parameters-frozen",
        L07,
        "LayerNorm",
        "creates the gain and the bias with nn.Parameter(..., requires_grad=False): the "
        "values and the state-dict keys are right, but the two parameters get no gradient, "
        "so the optimiser never trains them.",
        (
            r"requires_grad",
            r"(no|never get|receive no|without) gradients?",
            r"(frozen|freez\w*|not trainable|never trained|untrainable)",
        ),
        (
            r"buffers?\b",
            r"plain tensors?",
            r"not (an )?nn\.Parameter",
            r"detach\w*",
        ),
        edits=(
            (
                "        self.weight = nn.Parameter(torch.ones(d_model))  # gain",
                "        self.weight = nn.Parameter(torch.ones(d_model), requires_grad=False)  # gain",
            ),
            (
                "        self.bias = nn.Parameter(torch.zeros(d_model))",
                "        self.bias = nn.Parameter(torch.zeros(d_model), requires_grad=False)",
            ),
        ),
        source=LN_FROZEN,
    ),
    _c(
        "ffn-python-max-as-relu",
        L07,
        "PositionwiseFeedForward",
        "writes the ReLU as Python's built-in max(0, w_1(x)), the formula max(0, x) read "
        "literally: the built-in compares the whole tensor with 0 and raises 'Boolean value "
        "of Tensor with more than one value is ambiguous' inside the learner's forward.",
        (
            r"(Python'?s?|built-?in) max",
            r"max\(0,",
            r"(max|maximum) of (a|the) (whole )?tensor",
        ),
        (
            r"(no|missing|forg\w*) (the )?relu",
            r"relu (is )?(applied )?after",
            r"gelu",
            r"clamp\(max",
        ),
        edits=(
            (
                "        hidden = torch.relu(self.w_1(x))  # (batch, len, d_ff)",
                "        hidden = max(0, self.w_1(x))  # (batch, len, d_ff)",
            ),
        ),
        source=RELU_PY_MAX,
    ),
    _c(
        "el-feed-forward-before-attention",
        L07,
        "EncoderLayer",
        "runs the two sub-layers in the other order, the feed-forward block first and the "
        "self-attention second (each with its own residual, dropout and norm), in both "
        "layouts.",
        (
            r"(feed.?forward|ffn|feed_forward).{0,60}(before|first).{0,40}(self.?)?attention",
            r"(self.?)?attention.{0,40}(after|second).{0,40}(feed.?forward|ffn)",
            r"order of (the )?(two )?sub.?layers",
            r"sub.?layers? (are |run )?(in )?(the )?(wrong|reversed|other|swapped) order",
            r"(sub.?layers|attention and (the )?feed.?forward) (are )?swapped",
        ),
        (
            r"norm1 and norm2 (are )?swapped",
            r"(never passes|ignores|drops) the (padding )?mask|mask (is )?(not|never) passed",
            r"(no|missing|without) (a |the )?residual",
            r"dropout (is )?applied (to|on) the (residual|sum|input)",
        ),
        edits=(
            (
                "            h = self.norm1(x)\n"
                "            x = x + self.dropout(self.self_attn(h, h, h, mask)[0])\n"
                "            return x + self.dropout(self.feed_forward(self.norm2(x)))",
                "            x = x + self.dropout(self.feed_forward(self.norm1(x)))\n"
                "            h = self.norm2(x)\n"
                "            return x + self.dropout(self.self_attn(h, h, h, mask)[0])",
            ),
            (
                "        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))\n"
                "        return self.norm2(x + self.dropout(self.feed_forward(x)))",
                "        x = self.norm1(x + self.dropout(self.feed_forward(x)))\n"
                "        return self.norm2(x + self.dropout(self.self_attn(x, x, x, mask)[0]))",
            ),
        ),
    ),
    _c(
        "el-pre-ln-norms-swapped",
        L07,
        "EncoderLayer",
        "pre-LN: normalises the self-attention's input with norm2 and the feed-forward's "
        "input with norm1, the two norms in each other's place (the post-LN branch is "
        "right): the same while both norms are fresh, wrong once they hold different "
        "weights.",
        (
            r"norm1 and norm2 (are )?(swapped|exchanged|mixed up|in each other'?s place)",
            r"norm2 and norm1 (are )?(swapped|exchanged|mixed up|in each other'?s place)",
            r"(self.?attention|first sub.?layer).{0,60}norm2 instead of norm1",
            r"norm2 (for|on|before) the (self.?)?attention",
            r"(feed.?forward|second sub.?layer).{0,60}norm1 instead of norm2",
        ),
        (
            r"(feed.?forward|ffn).{0,40}(before|first).{0,30}attention",
            r"(one|a single|shared) (LayerNorm|norm)\b",
            r"norm1 (twice|for both)",
            r"residual.{0,40}normali[sz]ed",
        ),
        edits=(
            ("            h = self.norm1(x)", "            h = self.norm2(x)"),
            (
                "            return x + self.dropout(self.feed_forward(self.norm2(x)))",
                "            return x + self.dropout(self.feed_forward(self.norm1(x)))",
            ),
        ),
    ),
    _c(
        "enc-head-size-in-num-heads-slot",
        L07,
        "Encoder",
        "builds each layer as EncoderLayer(d_model, d_model // num_heads, ...): the size of "
        "one head where EncoderLayer takes the number of heads, right only when d_head "
        "equals num_heads (d_model 16 with 4 heads).",
        (
            r"d_model ?// ?num_heads",
            r"(head size|size of (a|one|each) head|d_head).{0,60}(instead of|in place of|where|for) "
            r"(the )?(number of heads|num_heads|head count)",
            r"(number of heads|num_heads).{0,40}(is|was|becomes|gets) (the )?(head size|d_head)",
            r"\d+ heads? instead of \d+",
        ),
        (
            r"num_heads and d_ff (are )?swapped",
            r"d_ff and num_heads (are )?swapped",
            r"(shared|same) (layer|weights)",
            r"norm_first (is )?(not passed|ignored)",
        ),
        edits=(
            (
                "            [EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first) "
                "for _ in range(num_layers)]",
                "            [\n"
                "                EncoderLayer(d_model, d_model // num_heads, d_ff, dropout, "
                "norm_first)\n"
                "                for _ in range(num_layers)\n"
                "            ]",
            ),
        ),
    ),
    # ------------------------------------------------------------------ 08 decoder
    _c(
        "dl-feed-forward-without-dropout",
        L08,
        "DecoderLayer",
        "builds the feed-forward block as PositionwiseFeedForward(d_model, d_ff), leaving "
        "the dropout argument out, so its inner dropout on the d_ff-wide hidden activations "
        "is always 0: eval mode, dropout=0.0 and dropout=1.0 (the residual dropout zeroes "
        "the block's output anyway) are right; only a rate between 0 and 1 in training "
        "shows it.",
        (
            r"(feed.?forward|ffn|feed_forward|PositionwiseFeedForward).{0,60}(without|no|missing|"
            r"lacks|never gets|not (given|passed)|forg\w*).{0,20}(its |the |a )?dropout",
            r"dropout (argument |rate )?(is )?(not|never) (passed|given|forwarded) to (the )?"
            r"(feed.?forward|PositionwiseFeedForward|feed_forward)",
            r"PositionwiseFeedForward\(d_model, d_ff\)",
            r"feed_forward\.dropout",
            r"(inner|hidden) dropout.{0,40}(0|off|missing|never)",
        ),
        (
            r"(self|cross).?attention.{0,40}(without|no|missing) (its |the )?dropout",
            r"residual dropout (is )?(missing|never|not)",
            r"dropout (is )?applied (to|on) (the )?(residual|sum|memory|input)",
        ),
        edits=(
            (
                "        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)",
                "        self.feed_forward = PositionwiseFeedForward(d_model, d_ff)",
            ),
        ),
    ),
    _c(
        "dl-self-attention-mask-anded-with-src-mask",
        L08,
        "DecoderLayer",
        "combines the source padding mask into the self-attention's mask (tgt_mask = "
        "tgt_mask & src_mask, 'no attention to padding anywhere'): with equal lengths the "
        "target keys are blocked wherever the source is padded; with len_tgt != len_src the "
        "& raises a broadcasting error.",
        (
            r"tgt_mask ?& ?src_mask|src_mask ?& ?tgt_mask",
            r"(combin|merg|and)\w* (the )?(source|src).{0,30}(into|with) (the )?"
            r"(self.?attention|tgt_mask|target)",
            r"self.?attention.{0,60}(source|src)(_| )(padding )?mask",
            r"source padding (mask )?(in|on|applied to) the (masked )?self.?attention",
        ),
        (
            r"masks? (are )?swapped",
            r"cross.?attention (gets|receives|is given) (the )?(tgt_mask|look.?ahead|target mask)",
            r"self.?attention.{0,30}(without|no|missing) (the )?(look.?ahead|tgt_mask|target mask)",
        ),
        edits=(
            (
                "        if self.norm_first:\n"
                "            h = self.norm1(x)\n"
                "            x = x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])",
                "        if tgt_mask is not None and src_mask is not None:\n"
                "            tgt_mask = tgt_mask & src_mask  # no attention to padding anywhere\n"
                "        if self.norm_first:\n"
                "            h = self.norm1(x)\n"
                "            x = x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])",
            ),
        ),
        source=MASKS_MIXED,
    ),
    _c(
        "dl-post-ln-norm2-result-discarded",
        L08,
        "DecoderLayer",
        "post-LN: splits the cross-attention sub-layer in two lines and calls self.norm2(x) "
        "as a statement without assigning its result, so that sub-layer's sum is never "
        "normalised; the pre-LN branch is right.",
        (
            r"norm2.{0,60}(result|output|return value).{0,40}(discard|thrown away|dropped|"
            r"never (used|assigned|kept)|not (assigned|used|kept))",
            r"(discard\w*|throw\w* away|never assign\w*|not assign\w*|ignor\w*) (the )?"
            r"(result|output|return value) of (self\.)?norm2",
            r"norm2 (is )?(never|not) applied",
            r"(without|no|missing) norm2",
            r"(cross.?attention|second) sub.?layer.{0,60}(never|not|un)normali[sz]ed",
        ),
        (
            r"norm3 (is )?(never|not) applied|(without|no|missing) norm3",
            r"norm1 and norm2 (are )?swapped",
            r"cross.?attention.{0,40}(no|without|missing) (the )?residual",
            r"(queries|query).{0,40}(from|of) (the )?memory",
        ),
        edits=(
            (
                "        x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, "
                "src_mask)[0]))",
                "        x = x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0])\n"
                "        self.norm2(x)",
            ),
        ),
    ),
    _c(
        "dec-layers-in-module-dict",
        L08,
        "Decoder",
        "keeps the layers in an nn.ModuleDict keyed '0', '1', ... (for the same state-dict "
        "keys) and loops over it as over a list: iterating a ModuleDict yields its keys, so "
        "forward calls a string and raises TypeError ('str' object is not callable).",
        (
            r"ModuleDict",
            r"(iterat\w*|loop\w*) (over|through) (a |the )?dict\w*.{0,40}(keys|names|strings)",
            r"\.values\(\)",
            r"(keys|names) instead of (the )?(layers|modules)",
        ),
        (
            r"plain (Python )?list",
            r"(shared|same) (layer|weights)",
            r"nn\.Sequential",
            r"not registered",
        ),
        edits=(
            (
                "        self.layers = nn.ModuleList(\n"
                "            [DecoderLayer(d_model, num_heads, d_ff, dropout, norm_first) "
                "for _ in range(num_layers)]\n"
                "        )",
                "        self.layers = nn.ModuleDict(\n"
                "            {\n"
                "                str(i): DecoderLayer(d_model, num_heads, d_ff, dropout, "
                "norm_first)\n"
                "                for i in range(num_layers)\n"
                "            }\n"
                "        )",
            ),
        ),
    ),
    _c(
        "dec-default-src-mask-target-length",
        L08,
        "Decoder",
        "when src_mask is None builds an all-True source mask sized with the target's "
        "length, x.size(1), instead of memory's: right when a mask is given or the two "
        "lengths are equal, a broadcasting error in the cross-attention when len_tgt != "
        "len_src.",
        (
            r"x\.size\(1\)|x\.shape\[1\]",
            r"(target|tgt|decoder'?s?)(_| )(length|len).{0,60}(instead of|in place of|where|for) "
            r"(the )?(source|src|memory'?s?)(_| )(length|len)",
            r"memory\.size\(1\)|memory\.shape\[1\]",
            r"(default|built|own|all.?True) (source |src_)?mask.{0,60}(sized|length|shape)"
            r".{0,40}(target|tgt|len_tgt)",
        ),
        (
            r"src_mask (is )?(dropped|not passed|missing|never passed)",
            r"masks? (are )?swapped",
            r"(x|target) and memory (are )?swapped",
            r"builds? (its own )?(a )?(causal|look.?ahead) mask",
        ),
        edits=(
            (
                "        for layer in self.layers:\n"
                "            x = layer(x, memory, src_mask, tgt_mask)",
                "        if src_mask is None:  # no padding: every query may see every position\n"
                "            src_mask = torch.ones(x.size(0), 1, 1, x.size(1), dtype=torch.bool)\n"
                "        for layer in self.layers:\n"
                "            x = layer(x, memory, src_mask, tgt_mask)",
            ),
        ),
    ),
    # ------------------------------------------------------------------ 09 transformer
    _c(
        "tr-forward-returns-token-ids",
        L09,
        "Transformer",
        "forward returns the predicted token ids, the argmax over the vocabulary "
        "((batch, len_tgt) int64), instead of the logits (batch, len_tgt, tgt_vocab_size).",
        (
            r"argmax",
            r"(token )?ids? instead of (the )?logits",
            r"(predicted|most (likely|probable)) tokens?",
            r"int(eger|64)?s? .{0,30}instead of .{0,20}(float|logits)",
        ),
        (
            r"returns? (log.?)?probabilities",
            r"(log_)?softmax (is |was )?applied",
            r"last position",
            r"(drops|without) the last",
        ),
        edits=(
            (
                "        return self.decode(tgt_ids, self.encode(src_ids), src_ids)",
                "        return self.decode(tgt_ids, self.encode(src_ids), src_ids).argmax(dim=-1)",
            ),
        ),
    ),
    _c(
        "tr-stacks-layers-and-heads-swapped",
        L09,
        "Transformer",
        "hands Encoder and Decoder the model's arguments in its own order, num_heads before "
        "num_layers ((num_heads, d_model, num_layers, d_ff, ...)), so each stack has "
        "num_heads layers of num_layers heads: right only when the two numbers are equal.",
        (
            r"num_heads and num_layers (are )?(swapped|exchanged|in each other)",
            r"num_layers and num_heads (are )?(swapped|exchanged|in each other)",
            r"(number of )?layers and (the )?(number of )?heads (are )?(swapped|exchanged)",
            r"\d+ layers?.{0,40}instead of \d+.{0,40}heads?",
        ),
        (
            r"num_heads and d_ff (are )?swapped",
            r"d_ff and num_heads (are )?swapped",
            r"norm_first and final_norm",
            r"dropout (is )?not passed",
        ),
        edits=(
            (
                "        layers = (num_layers, d_model, num_heads, d_ff, dropout, norm_first, "
                "final_norm)",
                "        layers = (num_heads, d_model, num_layers, d_ff, dropout, norm_first, "
                "final_norm)",
            ),
        ),
    ),
    _c(
        "cp-d-ff-assumed-four-d-model",
        L09,
        "count_parameters",
        "overwrites d_ff with 4 * d_model (the paper's ratio, 2048 = 4 * 512) instead of "
        "using the d_ff argument: right for the paper's sizes and whenever d_ff = 4 * "
        "d_model, wrong for any other d_ff.",
        (
            r"4 ?\* ?d_model",
            r"d_ff (argument )?(is )?(ignored|overwritten|not used|never used)",
            r"(ignores|overwrites|never uses) (the )?d_ff",
            r"(assum\w*|hard.?cod\w*).{0,30}(ratio|d_ff)",
        ),
        (
            r"(no|missing|forg\w*) (the )?(feed.?forward )?bias",
            r"w_[12]'?s? bias",
            r"(one|a single) (attention|LayerNorm)",
        ),
        edits=(
            (
                "    feed_forward = (d_model * d_ff + d_ff) + (d_ff * d_model + d_model)  # w_1, w_2",
                "    d_ff = 4 * d_model  # the paper's ratio: 2048 = 4 * 512\n"
                "    feed_forward = (d_model * d_ff + d_ff) + (d_ff * d_model + d_model)  # w_1, w_2",
            ),
        ),
        source=D_FF_FOUR,
    ),
    _c(
        "gd-appends-with-stack",
        L09,
        "greedy_decode",
        "appends each step's tokens with torch.stack([tokens, next_token], dim=1) instead "
        "of torch.cat([tokens, next_token[:, None]], dim=1): stack needs tensors of equal "
        "shapes and adds a new axis, so the first step raises 'stack expects each tensor to "
        "be equal size'.",
        (
            r"torch\.stack.{0,60}(instead of|rather than|where|in place of).{0,30}(torch\.)?cat",
            r"(use|call|with|needs?) (torch\.)?cat\b",
            r"stack\w* (adds|creates|makes) a new (axis|dimension)",
            r"concatenat\w* .{0,40}(column|along (dim(ension)?|axis) 1)",
        ),
        (
            r"appends? .{0,20}as a row",
            r"keepdim",
            r"float",
            r"last token only",
        ),
        edits=(
            (
                "            tokens = torch.cat([tokens, next_token[:, None]], dim=1)",
                "            tokens = torch.stack([tokens, next_token], dim=1)",
            ),
        ),
        source=STACK_CAT,
    ),
    _c(
        "gd-padding-mask-as-src-ids",
        L09,
        "greedy_decode",
        "passes decode a bool padding mask (src_ids != model.pad_id) where it takes the "
        "source ids, from which it builds the mask itself: decode compares that mask with "
        "pad_id again, which gives the right mask only when pad_id is 0.",
        (
            r"(mask|bool\w*( tensor)?) (instead of|in place of|where decode (takes|expects|wants)) "
            r"(the )?(source )?ids",
            r"src_ids != (model\.)?pad_id",
            r"(third|last) argument.{0,60}(src_ids|source ids)",
            r"(pass|give|hand)\w* (decode )?(the )?src_ids (itself|as it is|unchanged)",
        ),
        (
            r"pad_id (is )?(hard.?coded|written in)",
            r"(pads?|fills?) .{0,30}with 0\b",
            r"generated tokens as (the )?(third|source)",
        ),
        edits=(
            (
                "        memory = model.encode(src_ids)  # (batch, len_src, d_model), computed once",
                "        memory = model.encode(src_ids)  # (batch, len_src, d_model), computed once\n"
                "        src_mask = src_ids != model.pad_id  # the source padding mask",
            ),
            (
                "            logits = model.decode(tokens, memory, src_ids)",
                "            logits = model.decode(tokens, memory, src_mask)",
            ),
        ),
    ),
    _c(
        "quiz-tie-same-size-vocabularies",
        L09,
        "quiz_tie_embeddings",
        "answers (b), two separate vocabularies of exactly 32,000 tokens each, taking equal "
        "sizes as enough: the shapes match, but id i is a different token on each side, so "
        "one shared row would stand for two unrelated tokens; tying needs one shared "
        "vocabulary, (a).",
        (
            r"(same|equal|matching) (sizes?|shapes?).{0,80}(not enough|isn'?t enough|"
            r"does not|doesn'?t|different tokens?)",
            r"(different|unrelated|two) tokens?.{0,60}(same|one|shared) (id|row|index)",
            r"(same|one|shared) (id|row|index).{0,60}(different|unrelated|two) tokens?",
            r"(one|a single|shared|the same) vocabular",
        ),
        (
            r"30,?000 and 40,?000",
            r"only (needs|requires) the same d_model",
        ),
        edits=(('return "a"', 'return "b"'),),
        source=TIE_SAME_SIZE,
    ),
    # ------------------------------------------------------------------ 10 training
    _c(
        "mb-array-split-count-not-size",
        L10,
        "make_batches",
        "cuts the order with np.array_split(order, batch_size), whose second argument is "
        "the number of pieces, not their size: it makes batch_size batches of about "
        "len(pairs) / batch_size pairs (empty ones when there are fewer pairs than "
        "batch_size), right only when len(pairs) == batch_size ** 2.",
        (
            r"array_split",
            r"number of (batches|pieces|chunks|sections|parts)",
            r"batch_size (batches|pieces|chunks)",
            r"(size|length) of each (batch|piece|chunk)",
        ),
        (
            r"drop\w* (the )?last",
            r"(shuffles?|shuffled) (when|although|the caller|in place)",
            r"seed (is )?ignored",
            r"order\[start ?: ?batch_size\]",
        ),
        edits=(
            (
                "    for start in range(0, len(order), batch_size):\n"
                "        chunk = [pairs[i] for i in order[start : start + batch_size]]",
                "    for indices in np.array_split(np.array(order), batch_size):\n"
                "        chunk = [pairs[i] for i in indices]",
            ),
        ),
        source=ARRAY_SPLIT,
    ),
    _c(
        "noam-warmup-power-right-associative",
        L10,
        "noam_lr",
        "writes the warm-up term as step / warmup ** 3 ** 0.5, meaning step / sqrt(warmup "
        "** 3), but ** is right-associative: it divides by warmup ** (3 ** 0.5) = warmup ** "
        "1.732, so the warm-up rates are too small and the peak comes after step == warmup.",
        (
            r"right.?assoc",
            r"3 ?\*\* ?0\.5",
            r"\(warmup ?\*\* ?3\) ?\*\* ?0\.5",
            r"warmup ?\*\* ?\(?1\.73",
            r"(exponent|power) (of|on) warmup (is )?(wrong|1\.7)",
            r"warm.?up (term|branch|line).{0,60}(exponent|power|too (small|low))",
        ),
        (
            r"max instead of min",
            r"(no|missing) d_model",
            r"step 0",
            r"d_model and warmup (are )?swapped",
            r"warmup ?\*\* ?-0\.5",
        ),
        edits=(
            (
                "    return d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)",
                "    return d_model**-0.5 * min(step**-0.5, step / warmup**3**0.5)",
            ),
        ),
    ),
    _c(
        "ls-keep-from-relabelled-labels",
        L10,
        "label_smoothed_loss",
        "replaces the pad labels by 0 first and only then computes keep = labels != pad_id, "
        "from the replaced labels: with pad_id 0 nothing changes; with any other pad_id the "
        "padded positions are kept and averaged in, as if their label were token 0.",
        (
            r"(after|once) (the )?(pad )?labels? (are|were|have been|is) (replaced|overwritten|"
            r"filled|zeroed)",
            r"keep.{0,60}(computed|built|taken|made) (from|after|on) the (replaced|filled|"
            r"modified|zeroed)",
            r"(replac|fill|overwrit)\w* .{0,60}before .{0,40}(keep|mask|the padding test)",
            r"order of (the )?(two )?(lines|steps)",
        ),
        (
            r"pad_id (is )?(hard.?coded|written in)",
            r"0 (written in|as the pad)",
            r"labels > pad_id",
            r"in.?place",
            r"(keep|mask) (is )?inverted",
        ),
        edits=(
            (
                "    keep = labels != pad_id  # (...): the positions that count\n"
                "    safe_labels = labels.masked_fill(~keep, 0)  # any valid index where the label "
                "is pad",
                "    labels = labels.masked_fill(labels == pad_id, 0)  # a valid index for the pads\n"
                "    keep = labels != pad_id  # (...): the positions that count\n"
                "    safe_labels = labels",
            ),
        ),
    ),
    _c(
        "ts-clip-given-the-model",
        L10,
        "train_step",
        "hands clip_grad_norm_ the model itself, clip_grad_norm_(model, clip_norm), instead "
        "of model.parameters(): a module is not an iterable of tensors, so every step with "
        "clipping raises TypeError; clip_norm=None is right.",
        (
            r"model\.parameters\(\)",
            r"(pass|give|hand)\w* (it |clip_grad_norm_ )?(the )?model (itself|object|module)",
            r"module (itself )?instead of (its )?parameters",
            r"parameters, not the model",
        ),
        (
            r"named_parameters",
            r"clip_grad_value_",
            r"after (the )?(optimizer\.)?step",
            r"before (loss\.)?backward",
            r"exhausted|generator",
        ),
        edits=(
            (
                "        torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)",
                "        torch.nn.utils.clip_grad_norm_(model, clip_norm)",
            ),
        ),
        source=CLIP_MODEL,
    ),
    _c(
        "ts-logits-first-element",
        L10,
        "train_step",
        "takes element [0] of the model's output (the outputs[0] habit of models that return "
        "a tuple), but the Transformer returns the logits tensor itself: [0] is the first "
        "sentence's logits (len_tgt, vocab), and the loss fails against the (batch, len_tgt) "
        "labels.",
        (
            r"\[0\]",
            r"first (sentence|row|element|example)'?s? logits",
            r"(returns|return value is|output is) (not )?a tuple",
        ),
        (
            r"detach\w*",
            r"(arguments|inputs) (are )?swapped",
            r"labels (as|instead of) (the )?decoder",
            r"batch (is )?unpacked",
        ),
        edits=(
            (
                "    logits = model(src, decoder_input)  # (batch, len_tgt, tgt_vocab_size)",
                "    logits = model(src, decoder_input)[0]  # (batch, len_tgt, tgt_vocab_size)",
            ),
        ),
        source=OUTPUTS_0,
    ),
    _c(
        "tsc-bleu-floor-smoothing",
        L10,
        "translation_scores",
        "calls sacrebleu.corpus_bleu with smooth_method='floor', taking it for the default "
        "(corpus_bleu's default is 'exp'): the same score while every n-gram order has a "
        "match, a different one as soon as some order has none.",
        (
            r"smooth\w*",
            r"'floor'|\"floor\"|floor smoothing",
        ),
        (
            r"lowercase",
            r"holes? (are )?(filled|left out|dropped)",
            r"streams? (are )?(not )?transposed",
            r"\bround(ed|s|ing)?\b",
            r"(divid\w*|scal\w*) by 100",
            r"tokeni[sz]",
        ),
        edits=(
            (
                "    bleu = sacrebleu.corpus_bleu(hypotheses, streams).score",
                '    bleu = sacrebleu.corpus_bleu(hypotheses, streams, smooth_method="floor").score',
            ),
        ),
        source=BLEU_DEFAULTS,
    ),
    _c(
        "bs-no-finished-answers-worst-live",
        L10,
        "beam_search",
        "when no hypothesis has finished within max_len, answers beam[-1], the worst live "
        "hypothesis (the beam is sorted best first), instead of the best one; with a "
        "finished hypothesis, or beam_size=1, the answer is right.",
        (
            r"beam\[-1\]",
            r"(worst|last|lowest.scor\w*) (live |unfinished )?hypothes",
            r"(best|highest).{0,30}(live|unfinished) hypothes.{0,60}(none|nothing|no hypothesis) "
            r"(has )?finish",
            r"(none|nothing|no hypothesis) (has )?finish\w*.{0,80}(best|highest|beam\[0\])",
        ),
        (
            r"length penalty (is )?(wrong|misapplied|multipl\w*|without|counts)",
            r"normalis\w* (only )?in the stop",
            r"prefers? (the )?live",
            r"(among|from) (the )?finished and (the )?live",
        ),
        edits=(
            (
                "            results.append(max(finished or beam, key=normalised)[0])",
                "            best = max(finished, key=normalised) if finished else beam[-1]\n"
                "            results.append(best[0])",
            ),
        ),
    ),
    _c(
        "quiz-tf-gold-prefix-at-inference",
        L10,
        "quiz_teacher_forcing",
        "answers (c), that greedy_decode also reads the reference prefix <bos> el gato negro, "
        "as in training: at inference there is no reference, the decoder reads its own "
        "outputs, so after the mistake it reads <bos> el gato blanco, (a).",
        (
            r"no reference (translation )?(at|during|in) inference",
            r"(its )?own (previous )?(outputs|predictions|tokens)",
            r"(greedy_decode|inference|translat\w+) .{0,60}(reads|feeds|sees) .{0,40}blanco",
            r"exposure bias",
        ),
        (
            r"shift\w* (right|left)",
            r"without <bos>",
            r"training step reads (its own|blanco)",
        ),
        edits=(('return "a"', 'return "c"'),),
        source=TEACHER_FORCING,
    ),
    _c(
        "quiz-loss-floor-v-minus-one",
        L10,
        "quiz_loss_floor",
        "answers 0.545, the entropy of fairseq's smoothed target (0.9 on the right token, "
        "0.1 spread over the 9 others) instead of PyTorch's definition that the question "
        "names (smoothing / V on every token, 0.91 on the right one), whose entropy is 0.500.",
        (
            r"V ?- ?1",
            r"(nine|9) other tokens",
            r"other tokens",
            r"fairseq",
            r"0\.9\b.{0,60}(right|correct|label|target)",
            r"0\.91",
            r"PyTorch'?s? (definition|convention)",
        ),
        (
            r"bits|log2|base.?2",
            r"(plain|one.?hot) cross.?entropy",
            r"\b0(\.0+)? (is|would be) the floor",
        ),
        edits=(("return 0.500", "return 0.545"),),
    ),
]
