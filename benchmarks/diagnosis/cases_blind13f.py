"""Held-out wrong answers for lessons 03-04, blind round 13 (helper r13f, 2026-11-27):
mistakes new to the benchmark, written while the checks' mutation-based diagnosis was being
built, and judged before and after it.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run, and each case was compared with the causes of the benchmark's earlier cases for these
lessons (ids and causes only) and replaced where it repeated one.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L03, L04 = "03_positional_encoding", "04_attention"

# The reports these cases transpose (each read with the search tool for this benchmark).
SINES_OVERWRITE_ANGLES = "https://github.com/huggingface/transformers/issues/11724"
BASE_WITHOUT_PARENTHESES = "https://github.com/janvainer/speedyspeech/issues/46"
MODULE_BEFORE_SUPER_INIT = "https://github.com/pyg-team/pytorch_geometric/issues/681"
DROPOUT_PASSED_AS_MAX_LEN = "https://github.com/sooftware/transformer/issues/1"
NON_TENSOR_BUFFER = "https://github.com/gpleiss/temperature_scaling/issues/5"
AXIS_1_OF_1D = "https://github.com/hpc203/nanodet-opncv-dnn-cpp-python/issues/1"
ALWAYS_CAUSAL = "https://github.com/sgl-project/sglang/pull/35434"
INVERT_FLOAT_MASK = "https://github.com/rikeda71/TorchCRF/pull/4"
SHIFT_NOT_LINEAR = (
    "https://datascience.stackexchange.com/questions/45691/"
    "how-can-positional-encodings-including-a-sine-operation-be-linearly-transformabl/46008"
)
SCALE_BY_D_MODEL = "https://github.com/jadore801120/attention-is-all-you-need-pytorch/issues/42"
FULLY_MASKED_NAN = "https://github.com/iree-org/iree/pull/24178"
QUERIES_FROM_ENCODER = "https://github.com/humza909/LLM_Survey/issues/2"

_c = held_out_authored("blind13f")

BLIND13F: list[Case] = [
    # ------------------------------------------------------------------ 03 positional_encoding
    _c(
        "pe-cosines-of-overwritten-sines",
        L03,
        "positional_encoding",
        "keeps one angle per feature in the table itself, overwrites the even columns with "
        "their sines, then takes the cosines from those same even columns (a pair shares its "
        "angle): each cosine is cos(sin(angle)) instead of cos(angle); row 0 is still right.",
        (
            r"cos\(sin",
            r"cosines?.{0,60}(of|from) the (sines|sine values|overwritten)",
            r"overwr(i|o)t\w*.{0,80}(before|then).{0,60}cos",
            r"(already|been) (replaced|overwritten).{0,60}sin",
        ),
        (
            r"exponent.{0,40}(2i ?\+ ?1|own (odd )?index)",
            r"sin.{0,20}cos.{0,20}swapped",
            r"sines? then (all )?(the )?cosines|halves|concatenat",
            r"positions? (start|from) (at )?1",
        ),
        code="""
        def positional_encoding(max_len, d_model):
            positions = np.arange(max_len, dtype=np.float64)[:, None]  # (max_len, 1)
            pair = np.arange(d_model) // 2  # the pair index of each feature
            pe = positions / np.power(10000.0, 2 * pair / d_model)  # one angle per feature
            pe[:, 0::2] = np.sin(pe[:, 0::2])
            pe[:, 1::2] = np.cos(pe[:, 0::2][:, : d_model // 2])  # a pair shares its angle
            return pe
        """,
        source=SINES_OVERWRITE_ANGLES,
    ),
    _c(
        "pe-base-power-without-parentheses",
        L03,
        "positional_encoding",
        "writes the denominator as 10.0**4 ** (2i / d_model) without parentheses around "
        "10.0**4: ** is right-associative, so it computes 10 ** (4 ** (2i / d_model)) instead "
        "of 10000 ** (2i / d_model): pair 0 turns by 1/10 radian per position instead of 1, "
        "and only the last pairs come near their frequency.",
        (
            r"right-associative",
            r"10(\.0)? ?\*\* ?\(4 ?\*\*",
            r"parenthes[ie]s.{0,60}10(\.0)? ?\*\* ?4",
            r"\(10(\.0)? ?\*\* ?4\)",
        ),
        (
            r"multipl(y|ies|ied).{0,40}(instead of|rather than) divid",
            r"base (of )?1000\b",
            r"floor division|//",
            r"exponent.{0,30}\bi ?/ ?d_model",
        ),
        edits=[
            (
                "angles = positions / np.power(10000.0, two_i / d_model)",
                "angles = positions / 10.0**4 ** (two_i / d_model)",
            )
        ],
        source=BASE_WITHOUT_PARENTHESES,
    ),
    _c(
        "pe-cosines-from-sqrt-of-sines",
        L03,
        "positional_encoding",
        "derives each cosine from its sine as sqrt(1 - sin^2), which is |cos|: every cosine "
        "that should be negative (an angle between pi/2 and 3pi/2, mod 2pi) comes out "
        "positive.",
        (
            r"sqrt\(1 ?- ?sin",
            r"absolute value of (the )?cos",
            r"\|cos",
            r"sign of (the |each )?cos",
            r"cosines?.{0,60}(never|not|cannot be) negative",
            r"negative cosines?.{0,60}(positive|sign)",
        ),
        (
            r"sin.{0,20}cos.{0,20}swapped",
            r"exponent.{0,40}(2i ?\+ ?1|own (odd )?index)",
            r"positions? (start|from) (at )?1",
        ),
        edits=[
            (
                "    pe[:, 0::2] = np.sin(angles)\n"
                "    pe[:, 1::2] = np.cos(angles[:, : d_model // 2])",
                "    sines = np.sin(angles)\n"
                "    pe[:, 0::2] = sines\n"
                "    pe[:, 1::2] = np.sqrt(1.0 - sines[:, : d_model // 2] ** 2)  # cos^2 = 1 - sin^2",
            )
        ],
    ),
    _c(
        "pe-cosines-always-drop-last-angle",
        L03,
        "positional_encoding",
        "drops the last angle for the cosines whatever d_model is (angles[:, :-1], hint 3's "
        "rule for an odd d_model applied to every d_model): an odd d_model is right, but an "
        "even one has as many cosines as angles, so numpy raises a broadcasting ValueError.",
        (
            r"angles\[:, ?:-1\]",
            r"even d_model.{0,120}(cosines?|angles?).{0,60}(few|short|missing|drop|last)",
            r"(drops?|leaves? out|without) the last angle.{0,80}even",
            r"even d_model.{0,80}(as many|every|all) (cosines?|angles?)",
        ),
        (
            r"odd d_model.{0,80}(one cosine fewer|extra cosine|cosine partner)",
            r"sines? then (all )?(the )?cosines|halves",
            r"transpos",
        ),
        edits=[
            (
                "pe[:, 1::2] = np.cos(angles[:, : d_model // 2])",
                "pe[:, 1::2] = np.cos(angles[:, :-1])",
            )
        ],
    ),
    # ------------------------------------------------------------------ 03 relative_shift
    _c(
        "rs-negative-k-rejected",
        L03,
        "relative_shift",
        "rejects a negative k with ValueError (as if a shift backwards could not be a "
        "rotation) instead of rotating by the negative angle: every backward shift raises, "
        "while k >= 0 is right.",
        (
            r"negative k.{0,80}(raise|reject|ValueError|refus)",
            r"(raise|reject|refus)\w*.{0,60}negative k",
            r"k ?= ?-\d+.{0,80}(raised|ValueError)",
            r"(raised|ValueError).{0,80}k ?= ?-\d",
            r"backwards?.{0,60}(shift|k).{0,60}(valid|allowed|rotation|raise)",
        ),
        (
            r"odd d_model.{0,60}(not )?(reject|ValueError)",
            r"transpos",
            r"-k\b.{0,30}instead of",
            r"odd k",
        ),
        edits=[
            (
                "    if d_model % 2:\n",
                "    if k < 0:\n"
                "        raise ValueError(f'a backward shift is not a rotation: k = {k}')\n"
                "    if d_model % 2:\n",
            )
        ],
    ),
    _c(
        "rs-returns-stacked-blocks",
        L03,
        "relative_shift",
        "returns the d_model/2 rotation blocks stacked, shape (d_model/2, 2, 2), each pair's "
        "block right, instead of placing them on the diagonal of the (d_model, d_model) "
        "matrix.",
        (
            r"blocks?.{0,80}(not|instead of|rather than).{0,40}(placed|assembled|on the diagonal|"
            r"\(d_model, ?d_model\))",
            r"(stack|list|array) of.{0,30}(2 ?x ?2 |rotation )?blocks",
            r"(assembl|plac|put)\w*.{0,40}blocks?.{0,40}diagonal",
            r"\(d_model ?/ ?2, ?2, ?2\)",
        ),
        (r"transpos", r"\(k, ?k\)|parameters.{0,30}swapped", r"odd d_model"),
        code="""
        def relative_shift(k, d_model):
            if d_model % 2:
                raise ValueError(f"relative_shift needs an even d_model, got {d_model}")
            two_i = np.arange(0, d_model, 2)
            theta = k / np.power(10000.0, two_i / d_model)  # (d_model / 2,)
            cos, sin = np.cos(theta), np.sin(theta)
            top = np.stack([cos, -sin], axis=-1)  # row 2i of each block
            bottom = np.stack([sin, cos], axis=-1)  # row 2i + 1 of each block
            return np.stack([top, bottom], axis=-2)  # one 2x2 rotation per pair
        """,
    ),
    _c(
        "rs-lower-sine-written-above",
        L03,
        "relative_shift",
        "writes the +sin entry of each block at [2i, 2i+1] instead of [2i+1, 2i] (row and "
        "column left as in the copied line), where the -sin line then overwrites it: every "
        "block's lower-left entry stays 0, so the cosine feature no longer feeds the sine "
        "(k = 0 is still right).",
        (
            r"\[2i ?\+ ?1, ?2i\].{0,80}(0|zero|missing|empty|not (set|written))",
            r"lower.?left.{0,60}(0|zero|missing|empty)",
            r"(missing|zero|never written).{0,60}(\+ ?)?sin.{0,40}(below|lower|\[2i ?\+ ?1, ?2i\])",
            r"overwr\w*.{0,60}sin",
        ),
        (
            r"transpos",
            r"minus sign (dropped|missing)|both .{0,20}\+ ?sin",
            r"reflection",
            r"-k\b",
        ),
        edits=[("m[two_i + 1, two_i] = np.sin(theta)", "m[two_i, two_i + 1] = np.sin(theta)")],
    ),
    # ------------------------------------------------------------------ 03 PositionalEncoding
    _c(
        "PE-dropout-assigned-before-super-init",
        L03,
        "PositionalEncoding",
        "creates self.dropout = nn.Dropout(dropout) before calling super().__init__(): "
        "nn.Module refuses to store a submodule before its own __init__ has run, so building "
        "the module raises AttributeError.",
        (
            r"super\(\)\.__init__\(\).{0,80}(first|before|after)",
            r"before Module\.__init__\(\) call",
            r"(call|calls|calling) super.{0,60}(first|before)",
        ),
        (
            r"plain attribute|not a (registered )?buffer",
            r"dropout.{0,40}(hard-?coded|ignored)",
            r"nn\.Parameter|trainable",
        ),
        edits=[
            (
                "super().__init__()\n        self.dropout = nn.Dropout(dropout)\n",
                "self.dropout = nn.Dropout(dropout)\n        super().__init__()\n",
            )
        ],
        source=MODULE_BEFORE_SUPER_INIT,
    ),
    _c(
        "PE-signature-dropout-before-max-len",
        L03,
        "PositionalEncoding",
        "declares __init__(self, d_model, dropout=0.1, max_len=5000), the annotated "
        "Transformer's order, instead of (d_model, max_len=5000, dropout=0.1): a call that "
        "passes max_len and dropout by position, PositionalEncoding(16, 50, 0.1), builds "
        "nn.Dropout(50), which raises, and would build a table of 0.1 rows.",
        (
            r"(argument|parameter)s?.{0,60}(order|swapped|by position)",
            r"max_len.{0,40}dropout.{0,40}(swapped|order|exchanged|other's place)",
            r"dropout.{0,40}max_len.{0,40}(swapped|order|exchanged|other's place)",
            r"signature",
        ),
        (
            r"dropout.{0,40}(hard-?coded|ignored)",
            r"keep.?prob",
            r"max_len.{0,40}(hard-?coded|ignored)",
        ),
        edits=[
            (
                "def __init__(self, d_model: int, max_len: int = 5000, dropout: float = 0.1):",
                "def __init__(self, d_model: int, dropout: float = 0.1, max_len: int = 5000):",
            )
        ],
        source=DROPOUT_PASSED_AS_MAX_LEN,
    ),
    _c(
        "PE-numpy-table-registered",
        L03,
        "PositionalEncoding",
        "registers the numpy array returned by positional_encoding as the buffer without "
        "turning it into a tensor: register_buffer accepts only a tensor (or None), so "
        "building the module raises TypeError.",
        (
            r"numpy.{0,60}(torch\.tensor|from_numpy|convert|into a tensor)",
            r"(convert|turn)\w*.{0,60}(table|array).{0,40}tensor",
            r"register_buffer.{0,80}(tensor|numpy)",
            r"'numpy\.ndarray'.{0,40}buffer",
        ),
        (r"plain attribute", r"nn\.Parameter|trainable", r"float64"),
        edits=[
            (
                "table = torch.tensor(positional_encoding(max_len, d_model), dtype=torch.float32)\n"
                '        self.register_buffer("pe", table.unsqueeze(0))',
                "table = positional_encoding(max_len, d_model)[None]  # (1, max_len, d_model)\n"
                '        self.register_buffer("pe", table)',
            )
        ],
        source=NON_TENSOR_BUFFER,
    ),
    _c(
        "PE-requires-grad-off-on-the-sum",
        L03,
        "PositionalEncoding",
        "calls .requires_grad_(False) on the sum x + pe instead of on the table rows (the "
        "annotated Transformer's idiom with its parenthesis moved): right for plain inputs, "
        "but when x requires grad the sum is not a leaf and the call raises RuntimeError, so "
        "nothing can be trained through the module.",
        (
            r"requires_grad_?\(False\).{0,80}(sum|x \+|instead of|table|rows)",
            r"(sum|x \+ (self\.)?pe).{0,60}requires_grad",
            r"requires_grad.{0,80}leaf|leaf.{0,80}requires_grad",
        ),
        (r"x\.data|detach(es|ed)\b", r"in.?place|x \+=", r"nn\.Parameter|trainable"),
        edits=[
            (
                "return self.dropout(x + self.pe[:, :length])",
                "return self.dropout((x + self.pe[:, :length]).requires_grad_(False))",
            )
        ],
    ),
    # ------------------------------------------------------------------ 04 softmax
    _c(
        "sm-uniform-fallback-sized-by-last-axis",
        L04,
        "softmax",
        "gives an all -inf slice uniform weights 1 / x.shape[-1], the length of the last axis, "
        "instead of 1 / x.shape[axis]: right along the last axis, but along another axis of a "
        "different length such a slice's weights do not add up to 1.",
        (
            r"shape\[-1\].{0,60}(instead of|not|rather than).{0,30}(shape\[axis\]|axis)",
            r"1 ?/ ?n.{0,80}(last axis|wrong (axis|length))",
            r"uniform.{0,100}(last axis|length of the (wrong|last) axis|shape\[-1\])",
        ),
        (r"ignor\w* (the )?axis|axis.{0,20}ignored", r"keepdims", r"global max"),
        code="""
        def softmax(x, axis=-1):
            peak = np.max(x, axis=axis, keepdims=True)
            peak = np.where(np.isfinite(peak), peak, 0.0)  # an all -inf slice
            exps = np.exp(x - peak)
            total = np.sum(exps, axis=axis, keepdims=True)
            safe = np.where(total > 0, total, 1.0)
            return np.where(total > 0, exps / safe, 1.0 / x.shape[-1])  # uniform if nothing
        """,
    ),
    _c(
        "sm-python-if-on-array-of-maxima",
        L04,
        "softmax",
        "guards the all -inf slices with a Python if on the array of maxima (if "
        "np.isneginf(peak): peak = 0): fine for a 1-D input, whose peak has one element, but "
        "any input with more than one slice raises ValueError (the truth value of an array "
        "with more than one element is ambiguous).",
        (
            r"truth value",
            r"\bif\b.{0,40}(array|peak|maxima).{0,60}(more than one|element-?wise|ambiguous|"
            r"np\.where)",
            r"python `?if`?.{0,60}array",
        ),
        (r"keepdims", r"axis.{0,20}ignored", r"global max"),
        code="""
        def softmax(x, axis=-1):
            peak = np.max(x, axis=axis, keepdims=True)
            if np.isneginf(peak):  # an all -inf slice: subtract nothing
                peak = np.zeros_like(peak)
            exps = np.exp(x - peak)
            total = np.sum(exps, axis=axis, keepdims=True)
            return np.divide(exps, total, out=np.zeros_like(exps), where=total > 0)
        """,
    ),
    # ------------------------------------------------------------------ 04 attention_row
    _c(
        "ar-softmax-axis-1-on-1d-scores",
        L04,
        "attention_row",
        "calls softmax(scores, axis=1) as for a matrix of scores, but one query's scores are "
        "a 1-D (len_k,) vector: numpy raises AxisError (axis 1 is out of bounds for array of "
        "dimension 1).",
        (
            r"axis ?= ?1",
            r"axis 1 is out of bounds",
            r"(1-?D|one.?dimensional).{0,60}(axis|scores).{0,60}(axis|out of bounds)",
        ),
        (r"query @ keys|keys\.T", r"sqrt\(len_k\)|number of keys", r"sum.{0,30}feature axis"),
        edits=[("weights = softmax(scores)", "weights = softmax(scores, axis=1)")],
        source=AXIS_1_OF_1D,
    ),
    _c(
        "ar-scores-from-values",
        L04,
        "attention_row",
        "computes the scores from the values (values @ query) instead of the keys: a matmul "
        "error when d_v != d_k, and otherwise weights that follow the values, not the keys.",
        (
            r"values @ query",
            r"scores.{0,60}(from|with|of) the values",
            r"values.{0,40}(instead of|not|rather than).{0,20}(the )?keys.{0,40}scor",
            r"(keys|key rows).{0,40}(never used|unused|not used)",
        ),
        (
            r"query @ keys",
            r"weighted sum of the keys|keys as values|keys instead of (the )?values",
            r"sqrt\(d_v\)|scale",
        ),
        edits=[
            (
                "scores = keys @ query / math.sqrt(d_k)",
                "scores = values @ query / math.sqrt(d_k)",
            )
        ],
    ),
    _c(
        "ar-weights-kept-as-column",
        L04,
        "attention_row",
        "keeps the weights as a (len_k, 1) column (the softmax of scores[:, None] along axis "
        "0) so that they broadcast against the values: the output is right, but the weights "
        "come back (len_k, 1) instead of (len_k,).",
        (
            r"\(len_k, ?1\)",
            r"\(\d+, ?1\).{0,60}(instead of|not|rather than|expected).{0,20}\(\d+,\)",
            r"column.{0,60}(instead of|not|rather than).{0,30}(vector|1-?D|\(len_k,\))",
            r"(extra|trailing) axis.{0,40}(size|of) 1",
        ),
        (r"output.{0,40}(wrong|differs)", r"sum.{0,30}(over|along) the feature", r"\(1, ?d_v\)"),
        edits=[
            (
                "    weights = softmax(scores)\n    output = weights @ values",
                "    weights = softmax(scores[:, None], axis=0)  # (len_k, 1)\n"
                "    output = (weights * values).sum(axis=0)",
            )
        ],
    ),
    # ------------------------------------------------------------------ 04 sdpa
    _c(
        "sdpa-always-causal",
        L04,
        "scaled_dot_product_attention",
        "always applies a causal (lower-triangular) mask on top of the given one, as a GPT "
        "block does: query i never sees the keys after position i, even without a mask or in "
        "cross-attention; only a single key, or a mask that is causal already, comes out "
        "right.",
        (
            r"(always|own|adds?|applies) (a |its own )?causal",
            r"causal.{0,60}(without|even when no|not given|on top|although|never asked)",
            r"lower.?triangular.{0,60}(without|no mask|always)",
            r"(blocks?|ignores?|never (sees|attends)).{0,60}(later|future) (keys|positions)",
        ),
        (
            r"mask.{0,20}inverted|True (means|=) blocked",
            r"softmax.{0,30}(over|along) the queries|dim=-2",
            r"mask.{0,30}transposed",
        ),
        edits=[
            (
                "    if mask is not None:\n        scores = scores.masked_fill(",
                "    causal = torch.ones(scores.shape[-2:], dtype=torch.bool).tril()\n"
                '    scores = scores.masked_fill(~causal, float("-inf"))  # no peeking ahead\n'
                "    if mask is not None:\n        scores = scores.masked_fill(",
            )
        ],
        source=ALWAYS_CAUSAL,
    ),
    _c(
        "sdpa-default-mask-float-ones",
        L04,
        "scaled_dot_product_attention",
        "when no mask is given, builds an 'allow everything' mask with torch.ones(len_q, "
        "len_k), whose dtype is float, and ~ on a float tensor raises TypeError: every call "
        "without a mask fails (calls with a bool mask are right).",
        (
            r"torch\.ones.{0,60}(float|bool|dtype)",
            r"float.{0,40}mask.{0,60}(~|invert|bool)",
            r"~.{0,60}(only|not).{0,40}(integer|boolean|bool)",
            r"(without|no) mask.{0,80}(float|dtype=torch\.bool|TypeError)",
        ),
        (r"if mask:|truth value", r"1 ?- ?mask", r"mask.{0,20}inverted"),
        edits=[
            (
                "    if mask is not None:\n"
                '        scores = scores.masked_fill(~mask, float("-inf"))',
                "    if mask is None:\n"
                "        mask = torch.ones(q.shape[-2], k.shape[-2])  # nothing blocked\n"
                '    scores = scores.masked_fill(~mask, float("-inf"))',
            )
        ],
        source=INVERT_FLOAT_MASK,
    ),
    _c(
        "sdpa-output-merged-to-3d",
        L04,
        "scaled_dot_product_attention",
        "reshapes the output to (q.shape[0], -1, d_v), merging every axis between the first "
        "and the last as a multi-head layer merges its heads: right for a 3-D batch, but the "
        "4-D multi-head layout comes back (batch, num_heads * len_q, d_v) and one 2-D "
        "sentence (len_q, 1, d_v).",
        (
            r"(merg|flatten|fold)\w*.{0,60}(heads?|axes|dims)",
            r"reshap\w*.{0,60}(output|3-?D)",
            r"num_heads ?\* ?len_q",
        ),
        (r"transpos", r"k\.T\b", r"bmm|three dims only", r"softmax.{0,30}dim"),
        edits=[
            (
                "output = weights @ v",
                "output = (weights @ v).reshape(q.shape[0], -1, v.shape[-1])",
            )
        ],
    ),
    # ------------------------------------------------------------------ quizzes
    _c(
        "quiz-shift-only-k-1",
        L03,
        "quiz_shift",
        "answers (a), only k = 1 is a rotation and longer shifts need a non-linear map (as "
        "when one fits PE[pos + k] from the sine feature alone and the fit degrades as k "
        "grows), instead of (c): every integer k is a rotation of each pair by w_i * k, one "
        "matrix per k for every position.",
        (
            r"only k ?= ?1",
            r"longer shifts?.{0,60}(also|too|are|is) (linear|a rotation|rotations)",
            r"(any|every) (integer )?k.{0,60}(rotation|linear|matrix)",
        ),
        (r"depends on (the )?pos", r"negative k|backwards"),
        edits=[('return "c"', 'return "a"')],
        source=SHIFT_NOT_LINEAR,
    ),
    _c(
        "quiz-score-scale-d-model",
        L04,
        "quiz_score_scale",
        "answers (b), d_model, as an implementation that scales the scores by sqrt(d_model) "
        "does, instead of (c): d_k is the width of each query and key vector, d_model / "
        "num_heads per head (64 in the paper, not 512).",
        (
            r"d_model.{0,60}(not|instead of|isn't|is not).{0,40}(d_k|width of (each|a) "
            r"(query|head))",
            r"(per head|one head|each head).{0,60}(d_model ?/ ?num_heads|64)",
            r"d_k ?= ?d_model ?/ ?(h|num_heads)",
        ),
        (r"number of (words|tokens|keys)|sentence length", r"number of (attention )?heads"),
        edits=[('return "c"', 'return "b"')],
        source=SCALE_BY_D_MODEL,
    ),
    _c(
        "quiz-fully-masked-nan",
        L04,
        "quiz_fully_masked",
        "answers (a), NaN, taking 0/0 for the right result of a row with no allowed key, "
        "instead of (b): the lesson's attention gives that row all-zero weights, because a "
        "NaN spreads into the loss and the gradients.",
        (
            r"NaN.{0,80}(spreads?|propagat|poison|contaminat)",
            r"(zero|all-zero) weights.{0,80}(not|instead of|rather than) NaN",
            r"NaN.{0,60}(not|never) (returned|accepted|the convention)",
        ),
        (r"weight 1 on the first key", r"as if there were no mask|ignores? the mask"),
        edits=[('return "b"', 'return "a"')],
        source=FULLY_MASKED_NAN,
    ),
    _c(
        "quiz-cross-queries-from-encoder",
        L04,
        "quiz_cross_attention_roles",
        "answers (d), queries from the encoder's output and keys and values from the decoder, "
        "the roles reversed, instead of (b): the decoder's words ask (queries), the encoder's "
        "output answers (keys and values).",
        (
            r"(reversed|swapped|the other way round|backwards)",
            r"queries.{0,30}(from|of) the encoder.{0,60}(not|wrong|cannot|instead)",
            r"encoder.{0,40}(doesn't|does not|cannot) (ask|query)",
        ),
        (r"all from the decoder|decoder's own words", r"queries and keys (both )?from the encoder"),
        edits=[('return "b"', 'return "d"')],
        source=QUERIES_FROM_ENCODER,
    ),
]
