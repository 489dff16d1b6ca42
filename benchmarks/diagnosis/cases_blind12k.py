"""Held-out wrong answers for lessons 05-06, blind round 12, second batch (helper s12k,
2026-11-27): mistakes new to the benchmark, written after round 12's first fixes of these
lessons.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run, and each case was compared with the causes of the benchmark's earlier cases for these
lessons (ids and causes only) and replaced where it repeated one.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L05, L06 = "05_multi_head_attention", "06_masking"

# The reports these cases transpose (each read with the search tool for this benchmark).
INIT_BEFORE_SUPER = "https://github.com/pytorch/pytorch/issues/37824"
LINEAR_IN_FORWARD = "https://github.com/graykode/nlp-tutorial/issues/29"
KEEP_PROB_AS_P = "https://github.com/hassony2/kinetics_i3d_pytorch/issues/6"
DROPOUT_RESCALE = "https://github.com/rasbt/LLMs-from-scratch/issues/431"
LAYERS_IN_PLAIN_LIST = "https://github.com/pytorch/pytorch/issues/59925"
WEIGHTS_AVERAGED_OVER_HEADS = "https://github.com/pytorch/pytorch/issues/34537"
EMPTY_ROW_UNMASKED = "https://github.com/HabanaAI/vllm-fork/pull/318"
TO_OTHER_TENSOR_DTYPE = "https://github.com/pytorch/pytorch/issues/5448"

_c = held_out_authored("blind12k")

_FOUR_LINEARS = (
    "        self.w_q = nn.Linear(d_model, d_model)\n"
    "        self.w_k = nn.Linear(d_model, d_model)\n"
    "        self.w_v = nn.Linear(d_model, d_model)\n"
    "        self.w_o = nn.Linear(d_model, d_model)\n"
)
_OTHER_DROPOUT_CAUSES = (
    r"hard-?coded",
    r"eval(uation)? mode.{0,40}(still|on|active)",
    r"(applied )?(on|to) the (output|values)\b",
    r"never applied",
    r"before the softmax",
)

BLIND12K: list[Case] = [
    # ------------------------------------------------------------ 05 MultiHeadAttention
    _c(
        "mha-super-init-after-layers",
        L05,
        "MultiHeadAttention",
        "calls super().__init__() at the end of __init__, after assigning the Linear "
        "layers: nn.Module refuses to register a submodule before its own __init__ has run, "
        "so building the layer raises AttributeError ('cannot assign module before "
        "Module.__init__() call') inside the learner's __init__.",
        (
            r"super\(\)\.__init__\(\).{0,80}(first|before|top|start)",
            r"(before|first).{0,60}super\(\)\.__init__",
            r"cannot assign module before",
        ),
        (r"fused", r"bias ?= ?False", r"divisible"),
        edits=[
            ("        super().__init__()\n", ""),
            (
                "        self.dropout = nn.Dropout(dropout)\n",
                "        self.dropout = nn.Dropout(dropout)\n        super().__init__()\n",
            ),
        ],
        source=INIT_BEFORE_SUPER,
    ),
    _c(
        "mha-linears-built-in-forward",
        L05,
        "MultiHeadAttention",
        "builds the four nn.Linear layers inside forward, as local variables, instead of in "
        "__init__: the module has no w_q ... w_o and no parameters, and every call draws "
        "fresh random weights, so two calls on the same input disagree.",
        (
            r"(created|built|made|constructed|new).{0,40}(in|inside|during) forward",
            r"(not registered|unregistered|no parameters|parameters\(\) is empty)",
            r"(fresh|new) (random )?(weights|layers?).{0,40}(every|each) call",
            r"(two|each|every|second) calls?.{0,60}(differ|disagree|different)",
        ),
        (r"bias ?= ?False", r"fused", r"w_o.{0,30}(missing|skipped|not applied)", r"scal"),
        edits=[
            (_FOUR_LINEARS, ""),
            (
                "        q = split_heads(self.w_q(query), self.num_heads)",
                "        w_q, w_k, w_v, w_o = (nn.Linear(self.d_model, self.d_model) "
                "for _ in range(4))\n"
                "        q = split_heads(w_q(query), self.num_heads)",
            ),
            ("self.w_k(key)", "w_k(key)"),
            ("self.w_v(value)", "w_v(value)"),
            ("self.w_o(merge_heads(heads))", "w_o(merge_heads(heads))"),
        ],
        source=LINEAR_IN_FORWARD,
    ),
    _c(
        "mha-dropout-keep-probability",
        L05,
        "MultiHeadAttention",
        "builds nn.Dropout(1 - dropout), reading the argument as a keep probability "
        "(TensorFlow 1's keep_prob) while nn.Dropout's p is the probability of zeroing: a "
        "layer built with dropout=0.1 drops 90% of the weights in training, one built with "
        "dropout=0.0 drops them all; eval mode is unaffected.",
        (
            r"1 ?- ?dropout",
            r"keep[_ ]?prob",
            r"(probability|rate).{0,40}(of keeping|kept|to keep|retain)",
            r"(complement|inverted).{0,30}(rate|probability|p\b)",
        ),
        _OTHER_DROPOUT_CAUSES,
        edits=[("self.dropout = nn.Dropout(dropout)", "self.dropout = nn.Dropout(1 - dropout)")],
        source=KEEP_PROB_AS_P,
    ),
    _c(
        "mha-manual-dropout-not-rescaled",
        L05,
        "MultiHeadAttention",
        "drops the attention weights by hand in training, weights * (rand_like(weights) >= "
        "p), without dividing the kept ones by 1 - p as nn.Dropout does: the expected "
        "weights shrink by a factor 1 - p in training (each row sums to about 1 - p) and "
        "training and eval outputs no longer match on average.",
        (
            r"1 ?/ ?\(1 ?- ?p\)|/ ?\(1 ?- ?p\)|divid.{0,30}1 ?- ?p",
            r"(not |never |without )(re)?scal",
            r"inverted dropout",
            r"(kept|surviving|remaining) (weights|entries|values).{0,40}(scal|divid|multipl)",
        ),
        _OTHER_DROPOUT_CAUSES,
        edits=[
            (
                "heads = self.dropout(weights) @ v",
                "heads = (weights * (torch.rand_like(weights) >= self.dropout.p)) @ v",
            )
        ],
        source=DROPOUT_RESCALE,
    ),
    _c(
        "mha-per-head-linears-in-python-lists",
        L05,
        "MultiHeadAttention",
        "builds one nn.Linear(d_model, d_head) per head for queries, keys and values and "
        "keeps them in plain Python lists (the W_i of the paper's formula), not in w_q, w_k, "
        "w_v: the lists' layers are not registered, so the module has no w_q/w_k/w_v "
        "parameters (absent from the state dict, invisible to an optimizer), although "
        "forward computes per-head projections.",
        (
            r"(plain |python )?list.{0,80}(not registered|unregistered|ModuleList)",
            r"(w_q|w_k|w_v)(\.weight)?.{0,60}(missing|not found|absent|no such)",
            r"(missing|no) (attribute|parameter|submodule|key)s?.{0,40}w_[qkv]",
            r"not registered",
        ),
        (r"fused", r"bias ?= ?False", r"scrambl|interleav"),
        edits=[
            (
                "        self.w_q = nn.Linear(d_model, d_model)\n"
                "        self.w_k = nn.Linear(d_model, d_model)\n"
                "        self.w_v = nn.Linear(d_model, d_model)\n",
                "        d_head = d_model // num_heads\n"
                "        self.q_heads = [nn.Linear(d_model, d_head) for _ in range(num_heads)]\n"
                "        self.k_heads = [nn.Linear(d_model, d_head) for _ in range(num_heads)]\n"
                "        self.v_heads = [nn.Linear(d_model, d_head) for _ in range(num_heads)]\n",
            ),
            (
                "q = split_heads(self.w_q(query), self.num_heads)",
                "q = torch.stack([w(query) for w in self.q_heads], dim=1)",
            ),
            (
                "k = split_heads(self.w_k(key), self.num_heads)",
                "k = torch.stack([w(key) for w in self.k_heads], dim=1)",
            ),
            (
                "v = split_heads(self.w_v(value), self.num_heads)",
                "v = torch.stack([w(value) for w in self.v_heads], dim=1)",
            ),
        ],
        source=LAYERS_IN_PLAIN_LIST,
    ),
    _c(
        "mha-mask-remembered-across-calls",
        L05,
        "MultiHeadAttention",
        "keeps the last mask it was given on the module (self.last_mask) and uses it "
        "whenever a later call passes mask=None: the first call is right, but an unmasked "
        "call after a masked one is still masked with the earlier call's mask.",
        (
            r"(previous|earlier|first|last|prior) call.{0,80}mask",
            r"mask.{0,60}(kept|stored|remembered|reused|carried over|cached)",
            r"mask ?= ?None.{0,80}(still|masked|applied)",
            r"(state|attribute).{0,40}(between|across) calls",
        ),
        (
            r"mask (is )?(not applied|ignored|never passed)",
            r"invert",
            r"unsqueeze",
            r"cached? (keys|values|k/v|projections)",
        ),
        edits=[
            (
                "        q = split_heads(self.w_q(query), self.num_heads)",
                "        if mask is None:\n"
                '            mask = getattr(self, "last_mask", None)\n'
                "        self.last_mask = mask\n"
                "        q = split_heads(self.w_q(query), self.num_heads)",
            )
        ],
    ),
    # ------------------------------------------------------------------ 05 split_heads
    _c(
        "split-repeats-whole-vector-per-head",
        L05,
        "split_heads",
        "gives every head a full copy of each token's vector, x.unsqueeze(1).repeat(1, "
        "num_heads, 1, 1), reading 'each head sees every token and the whole d_model-wide "
        "vector' as copying: (batch, num_heads, len, d_model) instead of cutting the "
        "features into num_heads slices of width d_head.",
        (
            r"(whole|full|entire|all( the)?) (d_model|features?|vector).{0,60}(every|each) head",
            r"cop(y|ies|ied)",
            r"repeat",
            r"d_model instead of d_head|last (axis|dim\w*).{0,40}d_model.{0,30}(instead|not)",
        ),
        (r"transpose.{0,30}(missing|forgot|without)", r"interleav", r"float", r"tuple"),
        code="def split_heads(x, num_heads):\n    return x.unsqueeze(1).repeat(1, num_heads, 1, 1)\n",
    ),
    _c(
        "split-swaps-with-mT",
        L05,
        "split_heads",
        "cuts the features correctly into (batch, len, num_heads, d_head) and then swaps "
        "with .mT, which exchanges the last two axes, not axes 1 and 2: (batch, len, d_head, "
        "num_heads) comes back (the same shape as the answer only when len == num_heads "
        "== d_head).",
        (
            r"\.mT|last two (axes|dim)",
            r"transpose\((-2, -1|2, 3|-1, -2|3, 2)\)",
            r"\(batch, len(gth)?, d_head, num_heads\)",
            r"(axes|dims?) 1 and 2.{0,40}(instead|not)|(instead of|not) (axes|dims?) 1 and 2",
        ),
        (r"float", r"tuple", r"(no|without|missing|forgets?) (the )?transpose", r"interleav"),
        code="def split_heads(x, num_heads):\n"
        "    batch, length, d_model = x.shape\n"
        "    return x.reshape(batch, length, num_heads, d_model // num_heads).mT\n",
    ),
    # ------------------------------------------------------------------ 05 merge_heads
    _c(
        "merge-through-data-cuts-gradient",
        L05,
        "merge_heads",
        "merges x.data instead of x (an old idiom from pre-0.4 PyTorch code): the values are "
        "right, but the result is cut from the autograd graph, so no gradient flows back "
        "through the heads to the attention and the projections w_q, w_k, w_v.",
        (
            r"\.data\b|detach",
            r"(gradient|grad|autograd).{0,60}(cut|lost|not flow|no |none|broken|does not|never)",
            r"requires_grad",
        ),
        (r"contiguous", r"\bview\b", r"in[- ]place", r"interleav"),
        code="def merge_heads(x):\n"
        "    batch, num_heads, length, d_head = x.shape\n"
        "    return x.data.transpose(1, 2).reshape(batch, length, num_heads * d_head)\n",
    ),
    _c(
        "merge-width-d-head-squared",
        L05,
        "merge_heads",
        "reshapes to (batch, len, d_head * d_head), a typo for num_heads * d_head: right "
        "whenever num_heads == d_head, and a RuntimeError inside the learner's reshape "
        "otherwise.",
        (
            r"d_head ?\* ?d_head|d_head ?\*\* ?2|d_head squared",
            r"(instead of|not) num_heads ?\* ?d_head",
        ),
        (r"contiguous", r"\bview\b", r"transpose.{0,30}(missing|forgot|without)", r"interleav"),
        code="def merge_heads(x):\n"
        "    batch, num_heads, length, d_head = x.shape\n"
        "    return x.transpose(1, 2).reshape(batch, length, d_head * d_head)\n",
    ),
    # -------------------------------------------------------------------- 05 quizzes
    _c(
        "q-head-width-d-model",
        L05,
        "quiz_head_width",
        "answers 768, d_model, as if every head worked on the whole width: each head's "
        "queries and keys are d_model / h = 768 / 12 = 64 wide.",
        (
            r"768.{0,60}(d_model|whole|every head|all heads|full width)",
            r"d_model.{0,60}(not|instead of|rather than).{0,40}(one head|per head|d_k|each head)",
            r"divid\w*.{0,30}(by )?(h\b|12|the number of heads)",
        ),
        (r"tokens|sentence", r"number of heads, not"),
        code="def quiz_head_width():\n    return 768\n",
    ),
    _c(
        "q-cross-shape-averaged-heads",
        L05,
        "quiz_cross_attention_shape",
        "answers (d) (2, 5, 7): nn.MultiheadAttention's default weights, averaged over the "
        "heads, while the course's layer returns them per head, (2, 8, 5, 7).",
        (
            r"(averag|mean).{0,40}heads",
            r"heads? axis.{0,40}(missing|dropped|left out|kept)",
            r"per head",
            r"nn\.MultiheadAttention",
        ),
        (r"(rows?|quer(y|ies)).{0,40}(source|\b7\b)", r"square", r"target length for both"),
        code='def quiz_cross_attention_shape():\n    return "d"\n',
        source=WEIGHTS_AVERAGED_OVER_HEADS,
    ),
    # ------------------------------------------------------------------ 06 padding_mask
    _c(
        "padmask-all-pad-rows-unmasked",
        L06,
        "padding_mask",
        "adds a guard against fully masked rows: a row made only of pads gets every "
        "position marked True (attendable), so the mask is right on every row with a real "
        "token and wrong, all True instead of all False, on an all-padding row.",
        (
            r"(all|only|entirely)[- ]pad(ding|s)?( rows?| sequences?)?.{0,80}"
            r"(True|unmasked|attend|real)",
            r"(row|sequence) (made )?(of|with) only pads.{0,60}(True|unmasked|real)",
            r"guard",
        ),
        (r"invert", r"query axis", r"pad_id.{0,30}(0|zero|hard)", r"modif(y|ies|ied) (the )?ids"),
        code="def padding_mask(ids, pad_id):\n"
        "    keep = ids != pad_id\n"
        "    keep[~keep.any(dim=-1)] = True  # a row of only pads would give NaN\n"
        "    return keep[:, None, None, :]\n",
        source=EMPTY_ROW_UNMASKED,
    ),
    _c(
        "padmask-ids-read-sequence-first",
        L06,
        "padding_mask",
        "reads ids as sequence-first, (len, batch) as nn.Transformer's default, and "
        "transposes them (.T) before adding the axes: the result is (len, 1, 1, batch), "
        "the batch and length exchanged (a square batch hides the shape, not the values).",
        (
            r"sequence[- ]first|\(len(gth)?, batch\)",
            r"transpos\w*.{0,40}(ids|batch and len|batch and length)",
            r"\.T\b",
            r"(batch|length) and (length|batch|len).{0,30}(swapped|exchanged|transposed)",
        ),
        (r"query axis", r"invert", r"leading axes", r"pad_id.{0,30}(0|zero)"),
        code="def padding_mask(ids, pad_id):\n"
        "    # ids: (len, batch), sequence first as in nn.Transformer\n"
        "    return (ids != pad_id).T[:, None, None, :]\n",
    ),
    # --------------------------------------------------------------- 06 look_ahead_mask
    _c(
        "lookahead-loop-skips-first-row",
        L06,
        "look_ahead_mask",
        "fills the triangle in a loop starting at row 1 (for i in range(1, size)), so row "
        "0 stays all False: query 0 may not even attend to itself, every other row is right.",
        (
            r"(first (row|query|position)|row 0|query 0|position 0).{0,60}"
            r"(all False|no key|nothing|fully masked|itself|empty)",
            r"range\(1",
            r"off[- ]by[- ]one",
            r"\[0, ?0\]",
        ),
        (r"diagonal ?= ?-1", r"triu|upper triangle", r"float", r"(every|no) position.{0,30}itself"),
        code="def look_ahead_mask(size):\n"
        "    import torch\n\n"
        "    mask = torch.zeros(size, size, dtype=torch.bool)\n"
        "    for i in range(1, size):\n"
        "        mask[i, : i + 1] = True\n"
        "    return mask\n",
    ),
    _c(
        "lookahead-tril-second-argument-size",
        L06,
        "look_ahead_mask",
        "passes size as torch.tril's second argument (torch.tril(ones, size)), believing "
        "it a size, while it is the diagonal offset: nothing is cut, the mask is all True "
        "and every query sees every later key.",
        (
            r"diagonal ?= ?size|(second argument|offset).{0,40}(diagonal|size)",
            r"(all|every(thing)?) (True|allowed|visible)",
            r"no (later |future )?(key|position|entry).{0,30}(blocked|masked)",
            r"(nothing|no entry) (is )?(blocked|masked)",
        ),
        (r"triu|upper triangle", r"float", r"diagonal.{0,30}(excluded|missing)", r"one ahead"),
        code="def look_ahead_mask(size):\n"
        "    import torch\n\n"
        "    return torch.tril(torch.ones(size, size, dtype=torch.bool), size)\n",
    ),
    # --------------------------------------------------- 06 decoder_self_attention_mask
    _c(
        "decmask-look-ahead-transposed",
        L06,
        "decoder_self_attention_mask",
        "transposes the look-ahead mask (.T) before combining, reading it as (len_k, len_q): "
        "the causal part becomes the upper triangle, so every query sees itself and the "
        "later keys (padding still applied on the keys).",
        (
            r"transpos",
            r"\.T\b",
            r"(upper triangle|triu|later keys|future keys?).{0,60}(allowed|visible|attend|True)",
            r"\(len_k, len_q\)",
        ),
        (r"\| instead of &|OR instead of AND", r"query axis", r"pad_id", r"float"),
        code="def decoder_self_attention_mask(tgt_ids, pad_id):\n"
        "    return padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[1]).T\n",
    ),
    _c(
        "decmask-padding-mask-per-row",
        L06,
        "decoder_self_attention_mask",
        "loops over the rows of tgt_ids and calls padding_mask on each 1-D row, which "
        "expects a (batch, len) tensor: indexing a 1-D row with [:, None, None, :] raises "
        "an IndexError ('too many indices') inside padding_mask.",
        (
            r"(1-?D|one-dimensional|single row|one row|each row).{0,60}padding_mask",
            r"padding_mask.{0,80}(2-?D|\(batch, len\)|whole batch|1-?D|a row)",
            r"loop.{0,40}(rows?|batch)",
        ),
        (r"\| instead of &", r"query axis", r"float", r"len\(tgt_ids\)|batch size"),
        code="def decoder_self_attention_mask(tgt_ids, pad_id):\n"
        "    import torch\n\n"
        "    causal = look_ahead_mask(tgt_ids.shape[1])\n"
        "    return torch.stack([padding_mask(row, pad_id) & causal for row in tgt_ids])\n",
    ),
    _c(
        "decmask-look-ahead-to-ids-dtype",
        L06,
        "decoder_self_attention_mask",
        "moves the look-ahead mask with .to(tgt_ids), meant for the device, which also "
        "takes the ids' dtype: the causal part becomes int64 and the & gives an int64 "
        "mask of 0/1 instead of a bool one (the right pattern).",
        (
            r"\.to\((tgt_)?ids\)",
            r"(dtype|type) of (the )?(tgt_)?ids",
            r"\.to\(\w+\.device\)|device ?=",
        ),
        (r"float", r"multipl", r"\| instead of &"),
        code="def decoder_self_attention_mask(tgt_ids, pad_id):\n"
        "    causal = look_ahead_mask(tgt_ids.shape[1]).to(tgt_ids)  # same device as the ids\n"
        "    return padding_mask(tgt_ids, pad_id) & causal\n",
        source=TO_OTHER_TENSOR_DTYPE,
    ),
    # -------------------------------------------------------------------- 06 quizzes
    _c(
        "q-fully-masked-own-position",
        L06,
        "quiz_fully_masked_row",
        "answers (d) weight 1 on the query's own position, as if a query could always see "
        "itself: the mask may block the query's own key too, and the course's attention "
        "then returns all-zero weights, not a one on the diagonal.",
        (
            r"(own (position|key)|itself|diagonal).{0,80}(blocked|masked|not (allowed|special)"
            r"|no exception)",
            r"(no|not) (special|exception).{0,40}(own|itself|diagonal)",
            r"(blocks?|masks?) (the query's own|its own|itself)",
        ),
        (r"large finite negative", r"uniform.{0,30}(answer|1/len_k)"),
        code='def quiz_fully_masked_row():\n    return "d"\n',
    ),
    _c(
        "q-which-mask-everything-shifted",
        L06,
        "quiz_which_mask",
        "answers (a): the look-ahead mask in the encoder (which reads the whole source), "
        "padding alone in the decoder's self-attention (no look-ahead), and the target's "
        "padding in cross-attention, whose keys are the source positions.",
        (
            r"encoder.{0,80}(no look-?ahead|not causal|whole (source|sentence)|bidirectional"
            r"|every (source )?position|does not need)",
            r"decoder.{0,40}self-attention.{0,80}(needs|must|look-?ahead|causal)",
            r"cross-attention.{0,80}keys.{0,60}(source|encoder|src)",
        ),
        (r"look-?ahead (in|on) cross", r"target.{0,20}for both"),
        code='def quiz_which_mask():\n    return "a"\n',
    ),
]
