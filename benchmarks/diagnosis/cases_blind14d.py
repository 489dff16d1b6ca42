"""Held-out wrong answers for lessons 05-06, blind round 14 (helper b14d, 2026-11-27):
mistakes new to the benchmark, written against the checks after round 15's fixes, to
measure how the diagnoses generalise to mistakes nobody here has seen.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run, and each case was compared with the causes of the benchmark's earlier cases for these
lessons (ids and causes only) and replaced where it repeated one. 22 cases over the ten
exercises; eleven transpose a mistake reported in public (the URL read for this benchmark),
the others are the author's.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L05, L06 = "05_multi_head_attention", "06_masking"

# The reports these cases transpose (each read with the search tool for this benchmark).
PERMUTE_DIMS_DONT_MATCH = "https://github.com/voxelmorph/voxelmorph/issues/556"
ANNOTATED_MHA_SIGNATURE = "https://github.com/harvardnlp/annotated-transformer/issues/94"
WRONG_DEFAULT_DROPOUT = "https://github.com/tongtybj/TrTr/pull/5"
NANOGPT_ALWAYS_CAUSAL = "https://github.com/karpathy/nanoGPT/issues/451"
SCALE_DIVIDED_NOT_MULTIPLIED = "https://github.com/esceptico/perceiver-io/issues/9"
SOFTMAX_SUM_NOT_UNSQUEEZED = "https://github.com/sahandsafizadeh/qeep/pull/29"
EOS_MASKED_AS_PADDING = "https://github.com/mll-lab-nu/RAGEN/issues/59"
IS_NOT_FOR_INEQUALITY = "https://github.com/cupy/cupy/pull/2561"
TORCH_EMPTY_UNINITIALISED = "https://github.com/vllm-project/vllm/issues/940"
IN_PLACE_ON_EXPANDED = "https://github.com/huangleiBuaa/IterNorm-pytorch/issues/2"

_c = held_out_authored("blind14d")

BLIND14D: list[Case] = [
    # ------------------------------------------------------------------ 05 quiz_head_width
    _c(
        "q-head-width-square-root",
        L05,
        "quiz_head_width",
        "answers 8, the square root of d_k (the sqrt(d_k) the scores are divided by), "
        "computed as int((768 // 12) ** 0.5), instead of d_k itself, 768 / 12 = 64.",
        (
            r"8.{0,60}(square root|sqrt|√)",
            r"(square root|sqrt|√).{0,40}(of )?(d_k|64).{0,60}(not|instead|itself|rather)",
            r"scal(e|ing) (factor|divisor).{0,40}(not|instead of|rather than) d_k",
        ),
        (
            r"paper'?s? (8|eight) heads",
            r"768 ?/ ?8\b",
            r"8 (is|=) (the )?(paper'?s? )?(number of )?heads",
            r"(you|your answer).{0,40}(sentence length|number of tokens)",
        ),
        code="""
        def quiz_head_width():
            return int((768 // 12) ** 0.5)
        """,
    ),
    # ------------------------------------------------------------------ 05 quiz_cross_attention_shape
    _c(
        "q-cross-shape-letter-unquoted",
        L05,
        "quiz_cross_attention_shape",
        "writes the right letter without quotes, return b, so Python looks for a variable "
        "named b and raises NameError (name 'b' is not defined) inside the learner's "
        "function; the answer must be the string 'b'.",
        (
            r"quot(es|ation marks?|ed)",
            r"(a )?string.{0,30}['\"]b['\"]",
            r"['\"]b['\"].{0,40}(string|quot)",
            r"variable (named |called )?b\b",
        ),
        (
            r"\(2, ?8, ?7, ?5\)",
            r"\(2, ?5, ?7\)",
            r"self-attention'?s? (shape|weights)",
        ),
        code="""
        def quiz_cross_attention_shape():
            return b
        """,
    ),
    # ------------------------------------------------------------------ 05 split_heads
    _c(
        "split-slice-end-minus-one",
        L05,
        "split_heads",
        "cuts each head in a loop with x[..., i * d_head : (i + 1) * d_head - 1], copying the "
        "docstring's closed range 'i*d_head ... (i+1)*d_head - 1' into a Python slice, whose "
        "end is already excluded: each head loses its last feature, so the result is "
        "(batch, num_heads, len, d_head - 1).",
        (
            r"d_head ?- ?1",
            r"(one|1|a) (feature|column|value) (short|too few|missing|fewer|less)",
            r"last feature of (each|every) head",
            r"slice.{0,80}(end|stop).{0,60}(exclu|already|- ?1)",
            r"\(i ?\+ ?1\) ?\* ?d_head ?- ?1",
        ),
        (
            r"(forg[eo]t|missing|without|no) (the )?transpose",
            r"strided|interleav",
            r"mix(es|ing)? tokens",
            r"(num_heads|heads) and d_head.{0,30}(swapped|exchanged)",
        ),
        code="""
        def split_heads(x, num_heads):
            batch, length, d_model = x.shape
            d_head = d_model // num_heads
            heads = [x[:, :, i * d_head : (i + 1) * d_head - 1] for i in range(num_heads)]
            return torch.stack(heads, dim=1)
        """,
    ),
    _c(
        "split-size-without-call",
        L05,
        "split_heads",
        "unpacks the sizes from x.size without calling it (batch, length, d_model = x.size): "
        "x.size is a method, so Python raises TypeError (cannot unpack non-iterable "
        "builtin_function_or_method object) in the learner's first line; x.size() or x.shape "
        "was meant.",
        (
            r"x\.size\(\)",
            r"size (is a )?(method|function)",
            r"(call|parenthes[ie]s|brackets).{0,40}\bsize\b",
            r"\bsize\b.{0,40}(not called|without (calling|parenthes[ie]s|brackets))",
        ),
        (
            r"(divid|divisib).{0,40}num_heads",
            r"batch of one",
            r"(3|three)-?D input",
        ),
        code="""
        def split_heads(x, num_heads):
            batch, length, d_model = x.size
            return x.reshape(batch, length, num_heads, d_model // num_heads).transpose(1, 2)
        """,
    ),
    _c(
        "split-permute-three-axes",
        L05,
        "split_heads",
        "swaps the axes with permute(0, 2, 1), three indices (a habit from 3-D tensors), on "
        "the 4-D (batch, len, num_heads, d_head) tensor: permute needs one index per axis, "
        "so it raises a RuntimeError (input.dim() = 4 is not equal to len(dims) = 3) in the "
        "learner's line; permute(0, 2, 1, 3) or transpose(1, 2) was meant.",
        (
            r"permute.{0,80}(four|4|every|each|all).{0,30}(ax[ei]s|dims?|dimensions|indices)",
            r"(three|3) (indices|axes|dims|dimensions).{0,80}(four|4)",
            r"permute\(0, ?2, ?1, ?3\)",
            r"permute\(0, ?2, ?1\)",
        ),
        (
            r"(forg[eo]t|missing|without|no) (the )?transpose",
            r"view.{0,40}contiguous",
            r"(d_head|num_heads).{0,40}(swapped|exchanged)",
        ),
        code="""
        def split_heads(x, num_heads):
            batch, length, d_model = x.shape
            return x.reshape(batch, length, num_heads, d_model // num_heads).permute(0, 2, 1)
        """,
        source=PERMUTE_DIMS_DONT_MATCH,
    ),
    # ------------------------------------------------------------------ 05 merge_heads
    _c(
        "merge-takes-num-heads",
        L05,
        "merge_heads",
        "declares merge_heads(x, num_heads), a second parameter mirroring split_heads, "
        "although the contract is merge_heads(x) (the head count is x.shape[1]): called as "
        "merge_heads(x) it raises TypeError, missing 1 required positional argument "
        "'num_heads'; the body is right.",
        (
            r"missing 1 required positional argument: ?'num_heads'",
            r"merge_heads\(x\)",
            r"(extra|second|additional|one more) (argument|parameter)",
            r"(only|one|a single) (argument|parameter)",
            r"signature",
            r"(num_heads|head count).{0,60}x\.shape\[1\]",
        ),
        (
            r"(forg[eo]t|missing|without|no) (the )?transpose",
            r"view.{0,40}contiguous",
            r"interleav",
        ),
        code="""
        def merge_heads(x, num_heads):
            batch, _, length, d_head = x.shape
            return x.transpose(1, 2).reshape(batch, length, num_heads * d_head)
        """,
    ),
    _c(
        "merge-cat-keeps-head-axis",
        L05,
        "merge_heads",
        "concatenates the heads with torch.cat(x.split(1, dim=1), dim=-1), forgetting that "
        "split keeps the heads axis (size 1 in every piece): the features are glued in the "
        "right order, but the result is 4-D, (batch, 1, len, num_heads * d_head), instead of "
        "(batch, len, num_heads * d_head).",
        (
            r"\(batch, ?1, ?len(gth)?, ?(d_model|num_heads ?\* ?d_head)\)",
            r"(axis|dim(ension)?) of (size|length) 1",
            r"size-?1 (heads? )?(axis|dim)",
            r"(keeps|kept|still (has|holds)|leaves) (a |the )?(heads? )?(axis|dim)",
            r"(squeeze|drop|remove).{0,40}(heads? )?(axis|dim)",
            r"4-?D.{0,40}(instead of|not|rather than).{0,20}3-?D",
        ),
        (
            r"interleav",
            r"(forg[eo]t|missing|without|no) (the )?transpose",
            r"(reshape|view).{0,30}(never|missing|forg[eo]t)",
            r"(along|on) the length (axis|dim)",
        ),
        code="""
        def merge_heads(x):
            return torch.cat(x.split(1, dim=1), dim=-1)
        """,
    ),
    # ------------------------------------------------------------------ 05 MultiHeadAttention
    _c(
        "mha-init-heads-before-d-model",
        L05,
        "MultiHeadAttention",
        "declares __init__(self, num_heads, d_model, dropout=0.0), the Annotated "
        "Transformer's MultiHeadedAttention(h, d_model) order, while the contract (and every "
        "caller) passes d_model first: MultiHeadAttention(16, 4) is read as 16 heads of a "
        "4-wide model, and the learner's own divisibility test raises ValueError.",
        (
            r"(argument|parameter)s?.{0,60}(order|swapped|exchanged|other way round|reversed)",
            r"__init__\(self, ?d_model, ?num_heads",
            r"num_heads.{0,40}(first|before) d_model",
            r"d_model.{0,40}(first|before).{0,30}num_heads",
            r"MultiHeadedAttention\(h, ?d_model\)",
        ),
        (
            r"num_heads ?% ?d_model",
            r"(divisibility|divisible) (test|check).{0,40}(reversed|wrong way|backwards)",
            r"(does|do) not divide",
        ),
        code="""
        class MultiHeadAttention(nn.Module):
            def __init__(self, num_heads, d_model, dropout=0.0):
                super().__init__()
                if d_model % num_heads:
                    raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
                self.d_model, self.num_heads = d_model, num_heads
                self.w_q = nn.Linear(d_model, d_model)
                self.w_k = nn.Linear(d_model, d_model)
                self.w_v = nn.Linear(d_model, d_model)
                self.w_o = nn.Linear(d_model, d_model)
                self.dropout = nn.Dropout(dropout)

            def forward(self, query, key, value, mask=None):
                q = split_heads(self.w_q(query), self.num_heads)
                k = split_heads(self.w_k(key), self.num_heads)
                v = split_heads(self.w_v(value), self.num_heads)
                heads, weights = scaled_dot_product_attention(q, k, v, mask)
                if self.training and self.dropout.p > 0:
                    heads = self.dropout(weights) @ v
                return self.w_o(merge_heads(heads)), weights
        """,
        source=ANNOTATED_MHA_SIGNATURE,
    ),
    _c(
        "mha-linears-module-list",
        L05,
        "MultiHeadAttention",
        "keeps the four projections in one nn.ModuleList, self.linears (the Annotated "
        "Transformer's clones(nn.Linear(d_model, d_model), 4)), used as linears[0] ... "
        "linears[3]: the layer computes the right thing, but it has no w_q, w_k, w_v, w_o, "
        "and its state-dict keys are linears.0.weight ... instead of w_q.weight ....",
        (
            r"linears",
            r"ModuleList",
            r"(numbered|indexed) list",
            r"(no|missing|without) (attributes? |modules? |layers? )?.?w_q",
            r"w_q.{0,80}(missing|not found|no attribute|has no)",
            r"state.?dict.{0,100}(keys?|names?).{0,100}w_q",
        ),
        (
            r"fused|in_proj|3 ?\* ?d_model",
            r"bias(es)?.{0,20}(missing|False)",
            r"same (layer|object|weights)",
            r"not registered|plain (python )?list",
            r"built (in|inside) forward",
        ),
        code="""
        class MultiHeadAttention(nn.Module):
            def __init__(self, d_model, num_heads, dropout=0.0):
                super().__init__()
                if d_model % num_heads:
                    raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
                self.d_model, self.num_heads = d_model, num_heads
                self.linears = nn.ModuleList([nn.Linear(d_model, d_model) for _ in range(4)])
                self.dropout = nn.Dropout(dropout)

            def forward(self, query, key, value, mask=None):
                q, k, v = (
                    split_heads(linear(x), self.num_heads)
                    for linear, x in zip(self.linears, (query, key, value))
                )
                heads, weights = scaled_dot_product_attention(q, k, v, mask)
                if self.training and self.dropout.p > 0:
                    heads = self.dropout(weights) @ v
                return self.linears[3](merge_heads(heads)), weights
        """,
        source=ANNOTATED_MHA_SIGNATURE,
    ),
    _c(
        "mha-dropout-default-point-one",
        L05,
        "MultiHeadAttention",
        "gives the dropout argument a default of 0.1 (the paper's rate) instead of the "
        "contract's 0.0: a layer built with an explicit dropout is right, but one built "
        "without it, MultiHeadAttention(d_model, num_heads), drops attention weights in "
        "training mode.",
        (
            r"default.{0,80}(0\.1|dropout)",
            r"dropout.{0,80}default",
            r"(without|no|omit\w*) (a |the |an explicit )?dropout( argument)?.{0,80}"
            r"(drops|dropout|training|changes)",
        ),
        (
            r"ignor(es|ing|ed) (the )?dropout|hard-?coded",
            r"keep.?prob",
            r"dropout.{0,40}(on|to) (the )?(output|values|scores)",
            r"(eval|evaluation) mode.{0,60}(drops|still)",
            r"never appli",
        ),
        edits=[
            (
                "def __init__(self, d_model: int, num_heads: int, dropout: float = 0.0):",
                "def __init__(self, d_model: int, num_heads: int, dropout: float = 0.1):",
            )
        ],
        source=WRONG_DEFAULT_DROPOUT,
    ),
    _c(
        "mha-always-causal",
        L05,
        "MultiHeadAttention",
        "applies a causal (look-ahead) triangle of its own on every call, combined with the "
        "mask it is given, as nanoGPT's CausalSelfAttention does: right for the decoder's "
        "masked self-attention, but an encoder self-attention or a cross-attention, with "
        "mask=None or a padding mask, can no longer attend to later keys.",
        (
            r"(applies|adds|builds|uses|imposes) (its own |a |an? )?"
            r"(causal|look-?ahead|triangular|lower.?triangular)",
            r"(causal|look-?ahead|triangular)( mask)?.{0,80}"
            r"(always|every call|even (with|when|though)|not (asked|given|passed)|mask=None)",
            r"(blocks|hides|masks|cannot (see|attend to)) (every |the |all )?"
            r"(later|future|following) keys?.{0,80}(mask=None|no mask|not asked|without)",
        ),
        (
            r"mask.{0,30}(inverted|polarity)",
            r"mask (is )?(ignored|dropped|never passed)",
            r"softmax over (the )?(queries|heads)",
            r"(remember|earlier call|previous call)",
            r"keys? (and values? )?from (the )?query",
        ),
        code="""
        class MultiHeadAttention(nn.Module):
            def __init__(self, d_model, num_heads, dropout=0.0):
                super().__init__()
                if d_model % num_heads:
                    raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
                self.d_model, self.num_heads = d_model, num_heads
                self.w_q = nn.Linear(d_model, d_model)
                self.w_k = nn.Linear(d_model, d_model)
                self.w_v = nn.Linear(d_model, d_model)
                self.w_o = nn.Linear(d_model, d_model)
                self.dropout = nn.Dropout(dropout)

            def forward(self, query, key, value, mask=None):
                q = split_heads(self.w_q(query), self.num_heads)
                k = split_heads(self.w_k(key), self.num_heads)
                v = split_heads(self.w_v(value), self.num_heads)
                len_q, len_k = q.shape[-2], k.shape[-2]
                causal = torch.tril(torch.ones(len_q, len_k, dtype=torch.bool))
                mask = causal if mask is None else mask & causal
                heads, weights = scaled_dot_product_attention(q, k, v, mask)
                if self.training and self.dropout.p > 0:
                    heads = self.dropout(weights) @ v
                return self.w_o(merge_heads(heads)), weights
        """,
        source=NANOGPT_ALWAYS_CAUSAL,
    ),
    _c(
        "mha-inline-divides-by-inverse-scale",
        L05,
        "MultiHeadAttention",
        "writes the attention inline with self.scale = d_head ** -0.5 (the factor to "
        "multiply by) and then divides the scores by it: the scores are multiplied by "
        "sqrt(d_head) instead of divided, d_head times too large, and the weights too "
        "peaked.",
        (
            r"multipl(y|ies|ied|ying) (the scores )?by sqrt",
            r"sqrt\(d_head\).{0,60}(instead of|rather than|not) divid",
            r"divid(es|ing|ed)? by (1 ?/ ?sqrt|d_head ?\*\* ?-0\.5|the inverse|its inverse|"
            r"the reciprocal|its reciprocal|self\.scale)",
            r"d_head times too (large|big|high)",
            r"scal(e|ing).{0,40}(inverted|upside down|reciprocal|the wrong way)",
        ),
        (
            r"sqrt\(d_model\)",
            r"sqrt\(num_heads\)",
            r"(no|without|missing|forg[eo]t) (the )?scal(e|ing)",
            r"scaled twice",
            r"after (the )?softmax",
        ),
        code="""
        class MultiHeadAttention(nn.Module):
            def __init__(self, d_model, num_heads, dropout=0.0):
                super().__init__()
                if d_model % num_heads:
                    raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
                self.d_model, self.num_heads = d_model, num_heads
                self.scale = (d_model // num_heads) ** -0.5
                self.w_q = nn.Linear(d_model, d_model)
                self.w_k = nn.Linear(d_model, d_model)
                self.w_v = nn.Linear(d_model, d_model)
                self.w_o = nn.Linear(d_model, d_model)
                self.dropout = nn.Dropout(dropout)

            def forward(self, query, key, value, mask=None):
                q = split_heads(self.w_q(query), self.num_heads)
                k = split_heads(self.w_k(key), self.num_heads)
                v = split_heads(self.w_v(value), self.num_heads)
                scores = q @ k.transpose(-2, -1) / self.scale
                if mask is not None:
                    scores = scores.masked_fill(~mask, float("-inf"))
                weights = torch.softmax(scores, dim=-1).nan_to_num(0.0)
                heads = self.dropout(weights) @ v
                return self.w_o(merge_heads(heads)), weights
        """,
        source=SCALE_DIVIDED_NOT_MULTIPLIED,
    ),
    _c(
        "mha-inline-softmax-sum-without-keepdim",
        L05,
        "MultiHeadAttention",
        "writes the softmax by hand as exp / exp.sum(dim=-1) without keepdim=True: the sums "
        "(batch, num_heads, len_q) broadcast against the last axis, the keys, so each "
        "column j is divided by row j's sum: wrong weights (rows not summing to 1) when "
        "len_q == len_k, and a broadcasting error otherwise.",
        (
            r"keepdim",
            r"sum.{0,80}(without|no|lost|drops?|removes?) (the )?(summed |reduced |last )?"
            r"(axis|dim)",
            r"(sum|denominator|normali[sz]\w*).{0,80}(broadcast|align\w*).{0,60}"
            r"(keys?|columns?|last axis|wrong axis)",
            r"(each|every) column.{0,60}divided",
        ),
        (
            r"softmax over (the )?(queries|heads|dim=-2|dim=1)",
            r"columns? sums? to 1",
            r"(no|without|missing) (the )?scal(e|ing)",
            r"sqrt\(d_model\)",
            r"after (the )?softmax",
        ),
        code="""
        class MultiHeadAttention(nn.Module):
            def __init__(self, d_model, num_heads, dropout=0.0):
                super().__init__()
                if d_model % num_heads:
                    raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
                self.d_model, self.num_heads = d_model, num_heads
                self.w_q = nn.Linear(d_model, d_model)
                self.w_k = nn.Linear(d_model, d_model)
                self.w_v = nn.Linear(d_model, d_model)
                self.w_o = nn.Linear(d_model, d_model)
                self.dropout = nn.Dropout(dropout)

            def forward(self, query, key, value, mask=None):
                q = split_heads(self.w_q(query), self.num_heads)
                k = split_heads(self.w_k(key), self.num_heads)
                v = split_heads(self.w_v(value), self.num_heads)
                d_head = self.d_model // self.num_heads
                scores = q @ k.transpose(-2, -1) / d_head**0.5
                if mask is not None:
                    scores = scores.masked_fill(~mask, float("-inf"))
                exp = torch.exp(scores)
                weights = (exp / exp.sum(dim=-1)).nan_to_num(0.0)
                heads = self.dropout(weights) @ v
                return self.w_o(merge_heads(heads)), weights
        """,
        source=SOFTMAX_SUM_NOT_UNSQUEEZED,
    ),
    # ------------------------------------------------------------------ 06 quiz_fully_masked_row
    _c(
        "q-fully-masked-two-letters",
        L06,
        "quiz_fully_masked_row",
        "hedges between two answers and returns 'b or c' (zeros, or the uniform weights a "
        "finite fill gives), where the function must return one letter, 'b'.",
        (
            r"(one|a single|only one|exactly one) (letter|answer|choice)",
            r"two (letters|answers|choices)",
            r"more than one (letter|answer|choice)",
            r"['\"]b or c['\"]",
        ),
        (
            r"(answer(ed)?|chose|you said).{0,20}\(?c\)?.{0,40}uniform",
            r"\bNaN\b.{0,60}(0 ?/ ?0|undefined)",
            r"own position",
        ),
        code="""
        def quiz_fully_masked_row():
            return "b or c"
        """,
    ),
    # ------------------------------------------------------------------ 06 padding_mask
    _c(
        "padmask-hides-eos-too",
        L06,
        "padding_mask",
        "hides the <eos> token along with the pads, ((ids != pad_id) & (ids != "
        "tok.EOS_ID))[:, None, None, :], treating the end-of-sequence marker as padding: "
        "right on batches without <eos>, but wherever a row holds an <eos> that real token "
        "is marked False, so no query may attend to it.",
        (
            r"\beos\b|<eos>|end.of.(sequence|sentence)",
            r"special tokens?.{0,60}(masked|hidden|blocked|False|as (a )?pad)",
        ),
        (
            r"pad_id.{0,40}(hard-?coded|0 instead|ignored)",
            r"(ids )?> ?pad_id|greater than",
            r"nonzero|ids\.bool\(\)",
            r"True at (the )?pads|mask (is )?inverted",
            r"(query|queries) axis",
        ),
        edits=[
            (
                "return (ids != pad_id)[:, None, None, :]  # (batch, 1, 1, len)",
                "return ((ids != pad_id) & (ids != tok.EOS_ID))[:, None, None, :]",
            )
        ],
        source=EOS_MASKED_AS_PADDING,
    ),
    _c(
        "padmask-is-not-for-inequality",
        L06,
        "padding_mask",
        "compares with `is not` instead of != ((ids is not pad_id)[:, None, None, :]): `is "
        "not` tests whether ids and pad_id are the same object and gives one Python bool, "
        "True, not an element-wise tensor, so indexing it raises TypeError ('bool' object "
        "is not subscriptable) in the learner's line.",
        (
            r"\bis not\b.{0,80}(!=|identity|same object|element)",
            r"!=.{0,60}(not|instead of|rather than) .?is not",
            r"(identity|same object).{0,60}(not|instead of).{0,30}(compar|element)",
        ),
        (
            r"compar\w* with ==|True at (the )?pads|mask (is )?inverted",
            r"pad_id.{0,40}(hard-?coded|0 instead)",
            r"(query|queries) axis",
        ),
        edits=[
            (
                "return (ids != pad_id)[:, None, None, :]  # (batch, 1, 1, len)",
                "return (ids is not pad_id)[:, None, None, :]  # (batch, 1, 1, len)",
            )
        ],
        source=IS_NOT_FOR_INEQUALITY,
    ),
    # ------------------------------------------------------------------ 06 look_ahead_mask
    _c(
        "lookahead-tril-of-empty",
        L06,
        "look_ahead_mask",
        "applies torch.tril to torch.empty(size, size, dtype=torch.bool) instead of "
        "torch.ones: the upper triangle is cleared, but the lower triangle holds whatever "
        "the uninitialised memory held, so some allowed keys (the diagonal included) come "
        "out False, differently from call to call.",
        (
            r"torch\.empty",
            r"uninitiali[sz]ed",
            r"(garbage|arbitrary|random|leftover) (values|memory|bits|contents)",
            r"torch\.ones.{0,40}(not|instead of|rather than).{0,20}empty",
            r"non-?deterministic|(differ|change)s? (from|between) (one )?calls?",
        ),
        (
            r"upper triangle|triu",
            r"(excludes?|without|no|leaves out) (the )?diagonal",
            r"(returns?|got|is) (a |an )?(float|uint8|int64)",
            r"polarity|mask (is )?inverted",
        ),
        edits=[
            (
                "return torch.tril(torch.ones(size, size, dtype=torch.bool))  # (size, size)",
                "return torch.tril(torch.empty(size, size, dtype=torch.bool))  # (size, size)",
            )
        ],
        source=TORCH_EMPTY_UNINITIALISED,
    ),
    _c(
        "lookahead-tril-in-place-on-expand",
        L06,
        "look_ahead_mask",
        "builds the square with torch.ones(size, dtype=torch.bool).expand(size, size) and "
        "clears the upper triangle in place with .tril_(): expand makes every row a view "
        "of the same size elements, so zeroing entry (0, j) zeroes column j in every row, "
        "and the mask comes out True in column 0 only (each query sees only the first key).",
        (
            r"expand.{0,100}(shares?|same|one) (memory|storage|elements|row)",
            r"expand(ed)?.{0,100}(in-?place|tril_)",
            r"tril_.{0,100}(expand|view)",
            r"in-?place.{0,100}expand",
            r"(clone|contiguous|torch\.ones\(size, ?size).{0,60}(before|instead|first)",
        ),
        (
            r"(returns?|got|is) (a |an )?(float|uint8|int64)",
            r"triu|upper triangle",
            r"second size|1-?D (vector|tensor).{0,40}(tril|forgot)",
            r"polarity|mask (is )?inverted",
        ),
        edits=[
            (
                "return torch.tril(torch.ones(size, size, dtype=torch.bool))  # (size, size)",
                "return torch.ones(size, dtype=torch.bool).expand(size, size).tril_()",
            )
        ],
        source=IN_PLACE_ON_EXPANDED,
    ),
    # ------------------------------------------------------------------ 06 decoder_self_attention_mask
    _c(
        "decmask-tril-of-padding-mask",
        L06,
        "decoder_self_attention_mask",
        "applies torch.tril to the padding mask itself, torch.tril(padding_mask(tgt_ids, "
        "pad_id)), knowing that tril works on the last two axes but forgetting that the "
        "padding mask's query axis has size 1: the (batch, 1, 1, len) result keeps only key "
        "0 of a single row instead of a (batch, 1, len, len) triangle.",
        (
            r"tril.{0,100}(padding mask|\(batch, ?1, ?1, ?len\))",
            r"(query|row) axis.{0,80}(size )?(1|one).{0,80}(tril|triangle)",
            r"tril.{0,80}(1 ?[x×] ?len|one row|single row|size-?1)",
            r"(expand|broadcast).{0,60}before.{0,40}tril",
        ),
        (
            r"padding only|(no|without|forg[eo]t\w*) (the )?look-?ahead",
            r"\|.{0,20}instead of &",
            r"no heads? axis",
            r"pad (rows|queries)",
        ),
        code="""
        def decoder_self_attention_mask(tgt_ids, pad_id):
            return torch.tril(padding_mask(tgt_ids, pad_id))
        """,
    ),
    _c(
        "decmask-padding-unsqueezed-again",
        L06,
        "decoder_self_attention_mask",
        "adds a query axis to the padding mask with .unsqueeze(-2) (the Annotated "
        "Transformer's make_std_mask habit) although padding_mask already returns (batch, 1, "
        "1, len): combined with the (len, len) look-ahead mask it gives a 5-D (batch, 1, 1, "
        "len, len) mask, one axis too many.",
        (
            r"unsqueeze\(-2\)",
            r"5-?D|five (axes|dims|dimensions)",
            r"(extra|additional|one more|too many) (axis|axes|dim|dims|dimension)",
            r"padding_mask.{0,80}already.{0,60}(ax[ei]s|4-?D|\(batch, ?1, ?1, ?len\))",
        ),
        (
            r"no heads? axis|\(batch, ?len, ?len\)",
            r"\|.{0,20}instead of &",
            r"pad (rows|queries)",
            r"(batch size|shape\[0\])",
        ),
        code="""
        def decoder_self_attention_mask(tgt_ids, pad_id):
            return padding_mask(tgt_ids, pad_id).unsqueeze(-2) & look_ahead_mask(tgt_ids.shape[1])
        """,
    ),
    _c(
        "decmask-look-ahead-cached-first-call",
        L06,
        "decoder_self_attention_mask",
        "caches the look-ahead part in a mutable default argument (_cache={}) on the first "
        "call and reuses it on every later call: right as long as the length does not "
        "change, but a second call with another length combines the padding with the first "
        "call's (len, len) triangle (a broadcasting error, or a wrong mask).",
        (
            r"(cache[ds]?|remember\w*|kept|stored|reuse[ds]?).{0,100}(first|earlier|previous) call",
            r"(first|earlier|previous) call'?s? (length|look-?ahead|triangle|mask)",
            r"mutable default",
            r"_cache",
        ),
        (
            r"batch size|shape\[0\]|len\(tgt_ids\)",
            r"pad_id.{0,40}(size|length)",
            r"one too few|shape\[1\] ?- ?1",
            r"longest (real )?(row|sentence)",
        ),
        code="""
        def decoder_self_attention_mask(tgt_ids, pad_id, _cache={}):
            if "look_ahead" not in _cache:
                _cache["look_ahead"] = look_ahead_mask(tgt_ids.shape[1])
            return padding_mask(tgt_ids, pad_id) & _cache["look_ahead"]
        """,
    ),
    # ------------------------------------------------------------------ 06 quiz_which_mask
    _c(
        "q-which-mask-option-number",
        L06,
        "quiz_which_mask",
        "returns 3, the number of the right option counted from 1, instead of its letter "
        "'c': the function must return one of the strings 'a', 'b', 'c', 'd'.",
        (
            r"(int|integer|number).{0,60}(not|instead of|rather than).{0,20}(letter|str)",
            r"(letter|str(ing)?).{0,60}(not|instead of|rather than).{0,20}(an? )?"
            r"(int|integer|number|3)",
            r"\b3\b.{0,60}(letter|str(ing)?)",
            r"type int",
        ),
        (
            r"encoder self-attention.{0,60}look-?ahead",
            r"cross-attention.{0,80}(decoder|target)'?s? (mask|padding)",
            r"no return|returns? None",
        ),
        code="""
        def quiz_which_mask():
            return 3
        """,
    ),
]
