"""Held-out wrong answers for lessons 05-06, blind round 16 (helper b16d, 2026-11-28):
mistakes new to the benchmark, written against the checks after round 18's fixes, to
measure how the diagnoses generalise to mistakes nobody here has seen. 20 cases over the
ten exercises and questions of the two lessons; six transpose a mistake reported in
public (the URL read for this benchmark), the others are the author's.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run, and each case was compared with the causes of the benchmark's earlier cases for these
lessons (ids and causes only) and replaced where it repeated one.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L05, L06 = "05_multi_head_attention", "06_masking"

# The reports these cases transpose (each read with the search tool for this benchmark).
TRANSPOSE_NOT_IN_PLACE = "https://github.com/flairNLP/flair/pull/1047"
BMM_NEEDS_3D = "https://github.com/keon/seq2seq/issues/16"
SQUEEZE_BATCH_OR_HEADS_OF_ONE = "https://github.com/mead-ml/mead-baseline/pull/703"
WHERE_ONE_ARGUMENT = "https://github.com/pytorch/pytorch/issues/21798"
OUTPUT_PROJECTION_WIDTH = (
    "https://github.com/labmlai/annotated_deep_learning_paper_implementations/issues/180"
)
DROPOUT_MODE_FLAG = "https://github.com/d2l-ai/d2l-en/issues/1093"

_c = held_out_authored("blind16d")

_SPLIT = "return x.reshape(batch, length, num_heads, d_model // num_heads).transpose(1, 2)"
_MERGE = (
    "batch, num_heads, length, d_head = x.shape\n"
    "    return x.transpose(1, 2).reshape(batch, length, num_heads * d_head)"
)
_ATTEND = "heads, weights = scaled_dot_product_attention(q, k, v, mask)"

BLIND16D: list[Case] = [
    # ------------------------------------------------------------ 05 quiz_head_width
    _c(
        "q-head-width-divided-by-tokens",
        L05,
        "quiz_head_width",
        "answers 38, 768 // 20: divides d_model by the sentence's 20 tokens, as if the "
        "tokens shared out the width, while d_k = d_model / h = 768 / 12 = 64 does not "
        "depend on the sentence length.",
        (
            r"\b20\b.{0,80}(tokens?|sentence|length)",
            r"(sentence|sequence)('s)? length",
            r"number of tokens",
            r"(not|never) depends? on (the )?(length|number of tokens|sentence)",
            r"768 ?(//|/) ?20",
        ),
        (r"\b96\b", r"square root", r"shared? (out )?(between|by) (the )?(queries|q, k)"),
        edits=[("return 64", "return 768 // 20  # d_model shared by the 20 tokens")],
    ),
    # ---------------------------------------------------------------- 05 split_heads
    _c(
        "split-transpose-result-dropped",
        L05,
        "split_heads",
        "calls heads.transpose(1, 2) on a line of its own without keeping the result "
        "(transpose returns a new view, it is not in place), so the (batch, len, "
        "num_heads, d_head) tensor comes back untransposed.",
        (
            r"not in.?place",
            r"returns a new (tensor|view)",
            r"result.{0,40}(discarded|thrown away|dropped|lost|never (used|kept|assigned)|"
            r"not (kept|assigned|used))",
            r"(assign|keep|store) (its|the) result",
            r"heads = heads\.transpose",
        ),
        (r"interleav", r"\(d_head, num_heads\)", r"transpose_\(", r"permute\(0, 2, 3, 1\)"),
        edits=[
            (
                _SPLIT,
                "heads = x.reshape(batch, length, num_heads, d_model // num_heads)\n"
                "    heads.transpose(1, 2)  # heads before tokens\n"
                "    return heads",
            )
        ],
        source=TRANSPOSE_NOT_IN_PLACE,
    ),
    _c(
        "split-resize-in-place",
        L05,
        "split_heads",
        "cuts the features with x.resize_(batch, length, num_heads, d_head) (numpy's "
        "resize habit), the in-place resize: the heads come out right, but the caller's "
        "x is itself reshaped to 4-D, and the contract says x is not modified.",
        (
            r"resize_",
            r"in.?place",
            r"(caller's|your|the) (input|tensor|x)\b.{0,60}(modified|changed|reshaped|resized)",
            r"(modifies|changes|reshapes|resizes) (the caller's |your |its )?(input|x)\b",
        ),
        (r"(forgot|without|no|missing) (the |a )?transpose", r"interleav", r"dtype"),
        edits=[
            (
                _SPLIT,
                "d_head = d_model // num_heads\n"
                "    return x.resize_(batch, length, num_heads, d_head).transpose(1, 2)",
            )
        ],
    ),
    # ---------------------------------------------------------------- 05 merge_heads
    _c(
        "merge-heads-prepended-in-loop",
        L05,
        "merge_heads",
        "glues the heads in a loop that puts each new head in front, torch.cat([x[:, i], "
        "merged], -1): the heads come out in reverse order (the last head's features "
        "first), right only for a single head.",
        (
            r"revers",
            r"(order of the heads|heads'? order|head order)",
            r"last head('s)? .{0,30}first",
            r"heads? .{0,30}(wrong|opposite|backwards?) order",
            r"in front",
        ),
        (r"interleav", r"(no|without|missing) transpose", r"(length|time) axis", r"summed"),
        edits=[
            (
                _MERGE,
                "merged = x[:, 0]\n"
                "    for i in range(1, x.shape[1]):\n"
                "        merged = torch.cat([x[:, i], merged], dim=-1)\n"
                "    return merged",
            )
        ],
    ),
    _c(
        "merge-unbind-length-axis",
        L05,
        "merge_heads",
        "concatenates torch.cat(x.unbind(2), dim=-1): unbind(2) walks the length axis, not "
        "the heads (axis 1), so each head's tokens are glued into one vector, (batch, "
        "num_heads, len * d_head) instead of (batch, len, num_heads * d_head).",
        (
            r"unbind\(2\)",
            r"(unbind|split|iterat)\w*.{0,60}(length|len|token|position)s? (axis|dim)",
            r"axis 2.{0,40}(length|len\b|tokens)",
            r"concatenat\w* (the )?(tokens|positions|length)",
            r"(tokens|positions) .{0,30}(concatenated|glued) .{0,30}(each|per) head",
        ),
        (r"interleav", r"summed", r"batch axis", r"(no|without|missing) transpose"),
        edits=[(_MERGE, "return torch.cat(x.unbind(2), dim=-1)  # one piece per head")],
    ),
    _c(
        "merge-returns-list-of-heads",
        L05,
        "merge_heads",
        "returns [x[:, i] for i in range(num_heads)], the list of the heads' (batch, len, "
        "d_head) tensors, without concatenating them into one tensor with torch.cat.",
        (
            r"\blist\b.{0,80}(torch\.cat|concatenat|one tensor|a tensor)",
            r"(returned|returns|got|gave) a (python )?list",
            r"list of .{0,20}(heads|tensors)",
        ),
        (r"\btuple\b", r"(length|time) axis", r"interleav", r"summed"),
        edits=[(_MERGE, "return [x[:, i] for i in range(x.shape[1])]  # one per head")],
    ),
    # ------------------------------------------------- 05 quiz_cross_attention_shape
    _c(
        "q-cross-shape-printed",
        L05,
        "quiz_cross_attention_shape",
        "prints the right letter, print('b'), instead of returning it: the function returns None.",
        (
            r"\bprint",
            r"\bNone\b.{0,80}return",
            r"(no|without( a)?|missing) return",
            r"returns? None",
        ),
        (r"\(2, 8, 7, 5\)", r"rows? .{0,20}(are|is) the keys", r"averaged"),
        edits=[('return "b"', 'print("b")')],
    ),
    # -------------------------------------------------------- 05 MultiHeadAttention
    _c(
        "mha-dropout-on-returned-weights-only",
        L05,
        "MultiHeadAttention",
        "applies dropout to the weights it returns after the heads were already computed "
        "from the undropped weights: the returned weights are dropped in training, but "
        "the output is the same as in eval mode, so dropout never reaches the values.",
        (
            r"(after|once) .{0,40}(heads|output|values) .{0,40}(computed|multiplied)",
            r"dropout.{0,60}(never|not|does not) (reach|affect|change)\w* .{0,30}"
            r"(values|output|heads)",
            r"only (to )?the (returned )?weights",
            r"(output|heads) .{0,40}(undropped|without dropout|unchanged by dropout)",
            r"(undropped|un-dropped) weights",
        ),
        (
            r"dropout.{0,20}(on|to) the values",
            r"(in|during) eval\w* mode.{0,40}(still|drops)",
            r"dropout.{0,20}(on|to) the (layer's )?output",
            r"(applied|drops?) twice",
        ),
        edits=[
            (
                "        if self.training and self.dropout.p > 0:\n"
                "            heads = self.dropout(weights) @ v  # (batch, num_heads, len_q, d_head)\n"
                "        return self.w_o(merge_heads(heads)), weights",
                "        output = self.w_o(merge_heads(heads))\n"
                "        weights = self.dropout(weights)  # dropout on the attention weights\n"
                "        return output, weights",
            )
        ],
    ),
    _c(
        "mha-inline-bmm-on-4d",
        L05,
        "MultiHeadAttention",
        "writes the attention inline with torch.bmm, which takes 3-D (batch, n, m) tensors "
        "only, on the 4-D (batch, num_heads, len, d_head) heads: it raises in the "
        "learner's line; torch.matmul (or @) broadcasts over both leading axes.",
        (
            r"(use|with|takes?|try|needs?) (torch\.matmul|matmul|@)",
            r"bmm (only|takes|accepts|works on|expects|needs) .{0,20}3",
            r"4-?D .{0,40}(bmm|batched matrix)",
            r"bmm.{0,40}(4-?D|four|(batch, num_heads)|two leading)",
        ),
        (r"k\.T\b", r"(transpose|swap) the last two", r"sqrt\(d_model\)"),
        edits=[
            (
                _ATTEND,
                "scores = torch.bmm(q, k.transpose(-2, -1)) / q.shape[-1] ** 0.5\n"
                "        if mask is not None:\n"
                "            scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)\n"
                "        weights = torch.softmax(scores, dim=-1)\n"
                "        heads = torch.bmm(weights, v)",
            )
        ],
        source=BMM_NEEDS_3D,
    ),
    _c(
        "mha-weights-squeezed",
        L05,
        "MultiHeadAttention",
        "returns weights.squeeze() (to tidy the maps of one sentence): a bare squeeze also "
        "removes the batch axis for a batch of one, the heads axis for one head and the "
        "query axis for one query; right for every other call.",
        (
            r"squeeze\(\).{0,80}(batch|head|axis|axes|size[- ]1|of one)",
            r"(batch|heads?|query) axis .{0,60}(removed|dropped|lost|squeezed)",
            r"(batch|sequence|head) of one .{0,60}(loses|lost|drops|removed)",
            r"squeez\w* (away|out) .{0,30}(batch|head)",
        ),
        (r"averag\w* over the heads", r"(mean|sum) over", r"keepdim"),
        edits=[
            (
                "return self.w_o(merge_heads(heads)), weights",
                "return self.w_o(merge_heads(heads)), weights.squeeze()",
            )
        ],
        source=SQUEEZE_BATCH_OR_HEADS_OF_ONE,
    ),
    _c(
        "mha-query-weights-rescaled-every-call",
        L05,
        "MultiHeadAttention",
        "folds 1/sqrt(d_head) into w_q by scaling its weight and bias in place at the top "
        "of forward and then attends without a scale: the first call is right, but every "
        "call rescales the parameters again, so each later call is scaled once more.",
        (
            r"(second|later|repeated|each|every|another) call",
            r"in.?place .{0,60}(w_q|weight|parameter)",
            r"(w_q|weights?|parameters?)('s)? .{0,20}(changed|modified|rescaled|overwritten)",
            r"mul_",
        ),
        (r"sqrt\(d_model\)", r"(never|not|without) scal\w*", r"mask (is )?(ignored|never)"),
        edits=[
            (
                "q = split_heads(self.w_q(query), self.num_heads)",
                "d_head = self.d_model // self.num_heads\n"
                "        with torch.no_grad():  # fold the scale into w_q\n"
                "            self.w_q.weight.mul_(d_head**-0.5)\n"
                "            self.w_q.bias.mul_(d_head**-0.5)\n"
                "        q = split_heads(self.w_q(query), self.num_heads)",
            ),
            (
                _ATTEND,
                "scores = q @ k.transpose(-2, -1)  # already scaled through w_q\n"
                "        if mask is not None:\n"
                "            scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)\n"
                "        weights = torch.softmax(scores, dim=-1)\n"
                "        heads = weights @ v",
            ),
        ],
    ),
    _c(
        "mha-w-o-head-width",
        L05,
        "MultiHeadAttention",
        "builds the output projection as nn.Linear(d_model // num_heads, d_model), as if "
        "W^O read one head, while it reads the concatenated heads, h * d_v = d_model "
        "features: w_o raises on the merged heads unless num_heads == 1.",
        (
            r"w_o.{0,80}(\(d_model, d_model\)|in_features|input width|num_heads \* d_head"
            r"|h ?\* ?d_v)",
            r"W\^?O.{0,60}(h ?d_v|h \* d_v|concatenat)",
            r"w_o .{0,60}(reads|takes|expects|sees) .{0,40}(concatenat|all (the )?heads|d_model)",
            r"w_o .{0,40}(d_model // num_heads|d_head) (inputs|features|wide)",
        ),
        (
            r"w_q.{0,30}(d_model // num_heads|d_head)",
            r"(before|ahead of) (the )?merg",
            r"bias",
            r"(no|missing|without) (the )?output projection",
        ),
        edits=[
            (
                "self.w_o = nn.Linear(d_model, d_model)",
                "self.w_o = nn.Linear(d_model // num_heads, d_model)  # W^O per head",
            )
        ],
        source=OUTPUT_PROJECTION_WIDTH,
    ),
    _c(
        "mha-dropout-training-is-train-method",
        L05,
        "MultiHeadAttention",
        "drops the weights with F.dropout(weights, p, training=self.train), passing the "
        "method that switches a module to training instead of the flag self.training: "
        "F.dropout needs a bool, so every call raises TypeError in the learner's line.",
        (
            r"self\.train\b(?!ing).{0,60}(method|instead|not the flag|truthy)",
            r"self\.training.{0,60}(not|instead of|rather than) self\.train\b",
            r"(is|a) (bound )?method.{0,40}(not|instead of) (a |the )?(bool|flag)",
            r"(flag|attribute) self\.training",
        ),
        (
            r"(on|to) the values",
            r"(on|to) the (layer's )?output",
            r"keep.?prob",
            r"(applied|drops?) twice",
        ),
        edits=[
            (
                "        if self.training and self.dropout.p > 0:\n"
                "            heads = self.dropout(weights) @ v",
                "        p = self.dropout.p\n"
                "        heads = torch.nn.functional.dropout(weights, p, training=self.train) @ v",
            ),
        ],
        source=DROPOUT_MODE_FLAG,
    ),
    # ------------------------------------------------------ 06 quiz_fully_masked_row
    _c(
        "q-fully-masked-returns-softmax",
        L06,
        "quiz_fully_masked_row",
        "returns the tensor it computed to find out, torch.softmax of a row of -inf (all "
        "NaN), instead of the letter of its answer: the function must return one of "
        "'a', 'b', 'c', 'd'.",
        (
            r"tensor.{0,80}(letter|string|one of)",
            r"(letter|string).{0,80}tensor",
            r"(not|instead of) a (letter|string)",
        ),
        (r"answer(ed)? \(?a\)?\W", r"uniform", r"own position"),
        edits=[
            (
                'return "b"',
                'return torch.softmax(torch.full((4,), float("-inf")), dim=-1)  # see',
            )
        ],
    ),
    # -------------------------------------------------------------- 06 padding_mask
    _c(
        "padmask-where-one-argument",
        L06,
        "padding_mask",
        "writes torch.where(ids != pad_id) with the condition alone, expecting the mask: "
        "with one argument torch.where returns a tuple of index tensors (as nonzero), so "
        "indexing it with [:, None, None, :] raises TypeError in the learner's line.",
        (
            r"(one|single|1)[- ]argument",
            r"where.{0,40}(returns|gives) .{0,30}(indices|index|positions|tuple of)",
            r"nonzero",
            r"(three|3) arguments",
            r"(comparison|ids != pad_id) (alone|itself|is already)",
        ),
        (r"polarity|inverted", r"== instead of !=", r"query axis"),
        edits=[
            (
                "return (ids != pad_id)[:, None, None, :]",
                "return torch.where(ids != pad_id)[:, None, None, :]",
            )
        ],
        source=WHERE_ONE_ARGUMENT,
    ),
    _c(
        "padmask-real-from-first-token-on",
        L06,
        "padding_mask",
        "marks as real every position from a row's first real token on, (ids != "
        "pad_id).cumsum(-1) > 0, which assumes the pads sit at the start: right for left "
        "padding, but the pads after a right-padded row's end are marked True.",
        (
            r"cumsum",
            r"(after|past) the (last|end).{0,60}(real|marked|True|attend)",
            r"(right|end)[- ]padd\w*.{0,80}(True|real|attend)",
            r"(pads?|padding) at the end.{0,60}(real|True|attend)",
            r"assum\w* .{0,40}(left|start|front)",
        ),
        (
            r"count\w* the real tokens",
            r"(==|equal) instead of !=",
            r"query axis",
            r"pad_id.{0,20}(hard.?coded|0 instead)",
        ),
        edits=[
            (
                "return (ids != pad_id)[:, None, None, :]",
                "real = (ids != pad_id).cumsum(-1) > 0  # from the first real token on\n"
                "    return real[:, None, None, :]",
            )
        ],
    ),
    _c(
        "padmask-batch-on-heads-axis",
        L06,
        "padding_mask",
        "indexes with [None, :, None, :], giving (1, batch, 1, len): the batch axis lands "
        "on the heads axis instead of staying first, (batch, 1, 1, len).",
        (
            r"\(1, batch, 1, len\)",
            r"batch.{0,40}(on|into|in|as) the (heads?|num_heads) (axis|position|dim)",
            r"heads? axis.{0,40}batch",
            r"batch (axis )?(is )?(not|no longer) first",
        ),
        (r"\(1, 1, batch, len\)", r"query axis", r"expand"),
        edits=[
            (
                "return (ids != pad_id)[:, None, None, :]",
                "return (ids != pad_id)[None, :, None, :]",
            )
        ],
    ),
    # ----------------------------------------------------------- 06 look_ahead_mask
    _c(
        "lookahead-squeezed-size-one",
        L06,
        "look_ahead_mask",
        "builds a batched (1, size, size) triangle and drops the leading axis with a bare "
        ".squeeze(): right for size > 1, but for size 1 every axis goes and a 0-d tensor "
        "comes back instead of (1, 1).",
        (
            r"squeeze\(\).{0,80}(size[ =]?1|one position|1 ?x ?1|\(1, 1\)|0-d|scalar|every axis)",
            r"(size|len)[ =]?1.{0,80}(squeez|0-d|scalar)",
            r"squeez\w* .{0,40}(every|all) (the )?(axis|axes|dims?)",
            r"squeeze\(0\)",
        ),
        (r"diagonal", r"upper triangle", r"float", r"leading axis"),
        edits=[
            (
                "return torch.tril(torch.ones(size, size, dtype=torch.bool))",
                "return torch.tril(torch.ones(1, size, size, dtype=torch.bool)).squeeze()",
            )
        ],
    ),
    # ------------------------------------------------- 06 decoder_self_attention_mask
    _c(
        "decmask-length-from-largest-size",
        L06,
        "decoder_self_attention_mask",
        "sizes the look-ahead part with max(tgt_ids.shape), taking the larger size for the "
        "length: right while len >= batch, but a batch with more rows than columns gets "
        "a (batch, batch) triangle that cannot combine with the padding part.",
        (
            r"max\(",
            r"(larger|largest|bigger) (of (the )?(two )?sizes|size)",
            r"batch (size )?(is )?(larger|bigger|greater|exceeds|more than)",
            r"more (rows|sequences) than (columns|positions|tokens)",
        ),
        (r"(or|\|) instead of (and|&)", r"query axis", r"shape\[0\]"),
        edits=[
            (
                "look_ahead_mask(tgt_ids.shape[1])",
                "look_ahead_mask(max(tgt_ids.shape))  # the length",
            )
        ],
    ),
    # ------------------------------------------------------------- 06 quiz_which_mask
    _c(
        "q-which-mask-assigned-string",
        L06,
        "quiz_which_mask",
        "assigns the right letter to the name, quiz_which_mask = 'c', instead of "
        "defining a function that returns it: the check calls it and the string is not "
        "callable.",
        (
            r"(a|the) (string|str)\b.{0,60}(not|instead of) a function",
            r"(define|write|needs?) .{0,20}(a )?function",
            r"def quiz_which_mask",
            r"assign\w*.{0,60}(string|name|'c'|\"c\")",
        ),
        (r"answer(ed)? \(?[abd]\)?\W", r"cross-attention.{0,40}(source|src)"),
        code='quiz_which_mask = "c"  # the answer\n',
    ),
]
