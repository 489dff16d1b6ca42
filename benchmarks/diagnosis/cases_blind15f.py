"""Held-out wrong answers for lessons 03-04, blind round 15 (helper b15f, 2026-11-28):
mistakes new to the benchmark, written against the checks after round 17's fixes, to
measure how the diagnoses generalise to mistakes nobody here has seen. 24 cases over the
eleven exercises; ten transpose a mistake reported in public (the URL read for this
benchmark), the others are the author's.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run, and each case was compared with the causes of the benchmark's earlier cases for these
lessons (ids and causes only) and replaced where it repeated one.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L03, L04 = "03_positional_encoding", "04_attention"

# The reports these cases transpose (each read with the search tool for this benchmark).
SIN_OF_WHOLE_ANGLE_TABLE = "https://huggingface.co/datasets/nvidia/Nemotron-CC-Math-v1"
RANGE_PLUS_INT = "https://ogeek.cn/qa/?qa=309799%2F"
ROPE_SIGN_OF_OFFSET = "https://github.com/huggingface/transformers/issues/30900"
ATTRIBUTE_THEN_BUFFER = "https://github.com/pytorch/pytorch/issues/3232"
DROPOUT_MODULE_AS_P = "https://github.com/pytorch/pytorch/issues/36270"
SOFTMAX_PLUS_ONE = "https://github.com/karpathy/llama2.c/issues/59"
SOFTMAX_1D_2D_ONLY = (
    "https://splunktool.com/in-python-calculate-the-softmax-of-an-array-columnwise-using-numpy"
)
SOFTMAX_OVER_SIZE_ONE_AXIS = "https://github.com/DEEP-PolyU/KEQA_WSDM19/issues/2"
SQUEEZE_ALL_AXES = "https://github.com/galsang/BiDAF-pytorch/pull/26"
COLUMN_MAJOR_SCORES = "https://github.com/stanford-cs336/assignment1-basics/issues/29"

_c = held_out_authored("blind15f")

BLIND15F: list[Case] = [
    # ------------------------------------------------------- 03 positional_encoding
    _c(
        "pe-returns-torch-tensor",
        L03,
        "positional_encoding",
        "builds the table in torch, the annotated Transformer's way (torch.arange, torch.exp "
        "of the log form, torch.sin and torch.cos), and returns the torch.Tensor instead of a "
        "numpy array: the values are right, the type is not.",
        (
            r"torch\.Tensor",
            r"tensor.{0,60}(instead of|not) (a )?numpy",
            r"numpy array.{0,60}(not|instead of) (a )?(torch )?tensor",
            r"\.numpy\(\)",
        ),
        (
            r"(sin|cos)(ines?)? .{0,20}swapped",
            r"positions? (start|count)\w* .{0,20}(from|at) 1",
            r"transposed",
        ),
        code="""
import math


def positional_encoding(max_len, d_model):
    position = torch.arange(max_len, dtype=torch.float64).unsqueeze(1)  # (max_len, 1)
    div_term = torch.exp(
        torch.arange(0, d_model, 2, dtype=torch.float64) * -(math.log(10000.0) / d_model)
    )
    pe = torch.zeros(max_len, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term[: d_model // 2])
    return pe
""",
    ),
    _c(
        "pe-math-sin-on-array",
        L03,
        "positional_encoding",
        "takes the sines and cosines with math.sin and math.cos, which accept a single number: "
        "on the (max_len, pairs) array of angles they raise TypeError (only length-1 arrays "
        "can be converted to Python scalars), where np.sin and np.cos work elementwise.",
        (
            r"math\.(sin|cos).{0,80}(one number|scalar|single|elementwise|np\.|numpy)",
            r"(use|with|call) np\.(sin|cos)",
            r"np\.(sin|cos).{0,40}(instead|elementwise|whole array)",
            r"numpy'?s? (sin|cos)",
        ),
        (
            r"(sin|cos)(ines?)? .{0,20}swapped",
            r"odd d_model",
        ),
        code="""
import math


def positional_encoding(max_len, d_model):
    positions = np.arange(max_len, dtype=np.float64)[:, None]  # (max_len, 1)
    two_i = np.arange(0, d_model, 2, dtype=np.float64)
    angles = positions / np.power(10000.0, two_i / d_model)  # (max_len, pairs)
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2] = math.sin(angles)
    pe[:, 1::2] = math.cos(angles[:, : d_model // 2])
    return pe
""",
    ),
    _c(
        "pe-sin-of-whole-angle-table",
        L03,
        "positional_encoding",
        "builds one angle per feature with the pair's exponent (2 * (i // 2), which is right) "
        "but writes the sines and cosines of the whole (max_len, d_model) angle table into the "
        "even and odd columns instead of those of its even and odd columns: d_model columns do "
        "not fit into d_model / 2, so numpy raises a broadcasting ValueError (d_model = 1 "
        "aside).",
        (
            r"angles?\[:, ?[01]::2\]",
            r"(whole|entire|all) .{0,30}(angle|table).{0,60}(even|odd|half|columns)",
            r"(d_model|all) columns? .{0,40}into .{0,30}(even|odd|half)",
            r"slice .{0,40}angles",
            r"(sines?|cosines?) of (the|its) (even|odd) columns",
        ),
        (
            r"odd d_model",
            r"positions? .{0,20}(flat|column)",
            r"transposed",
        ),
        code="""
def positional_encoding(max_len, d_model):
    pos = np.arange(max_len)[:, None]  # (max_len, 1)
    i = np.arange(d_model)[None, :]  # (1, d_model): feature index
    angles = pos / np.power(10000.0, (2 * (i // 2)) / d_model)  # (max_len, d_model)
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)
    return pe
""",
        source=SIN_OF_WHOLE_ANGLE_TABLE,
    ),
    _c(
        "pe-log-of-ratio",
        L03,
        "positional_encoding",
        "writes the frequencies in the exp/log form with the parenthesis around "
        "10000.0 / d_model, np.exp(two_i * -np.log(10000.0 / d_model)), instead of "
        "np.exp(two_i * -(np.log(10000.0) / d_model)): pair i turns at (d_model / 10000)^(2i) "
        "radians per position instead of 10000^(-2i / d_model), so past pair 0 the waves slow "
        "down far too fast.",
        (
            r"log\(10000(\.0)? ?/ ?d_model\)",
            r"parenthes",
            r"log of (the )?(ratio|quotient)",
            r"\(d_model ?/ ?10000\)",
        ),
        (
            r"log10",
            r"base 1000\b",
            r"multipl(y|ies) .{0,30}instead of divid",
            r"\bi\b.{0,20}instead of 2i",
        ),
        code="""
def positional_encoding(max_len, d_model):
    positions = np.arange(max_len, dtype=np.float64)[:, None]  # (max_len, 1)
    two_i = np.arange(0, d_model, 2, dtype=np.float64)
    angles = positions * np.exp(two_i * -np.log(10000.0 / d_model))
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return pe
""",
    ),
    # ------------------------------------------------------------ 03 relative_shift
    _c(
        "rs-range-not-array",
        L03,
        "relative_shift",
        "keeps the even feature indices as a Python range (range(0, d_model, 2)) instead of "
        "np.arange: indexing with it works, but two_i + 1 raises TypeError (unsupported "
        "operand type(s) for +: 'range' and 'int') on every call with an even d_model.",
        (
            r"range.{0,80}(np\.arange|numpy array|an array)",
            r"np\.arange.{0,60}(instead of|not) .{0,10}range",
            r"'range' and 'int'",
        ),
        (
            r"odd d_model",
            r"IndexError",
            r"ValueError",
        ),
        code="""
def relative_shift(k, d_model):
    if d_model % 2:
        raise ValueError(f"relative_shift needs an even d_model, got {d_model}")
    two_i = range(0, d_model, 2)
    theta = np.array([k / 10000.0 ** (j / d_model) for j in two_i])
    m = np.zeros((d_model, d_model))
    m[two_i, two_i] = np.cos(theta)
    m[two_i + 1, two_i] = np.sin(theta)
    m[two_i, two_i + 1] = -np.sin(theta)
    m[two_i + 1, two_i + 1] = np.cos(theta)
    return m
""",
        source=RANGE_PLUS_INT,
    ),
    _c(
        "rs-abs-k",
        L03,
        "relative_shift",
        "uses the offset's absolute value in the angle (abs(k), read as a distance): every "
        "k >= 0 is right, but a negative k rotates forward too, giving the shift by |k| "
        "instead of the shift backwards.",
        (
            r"abs(olute)?",
            r"negative k.{0,80}(forward|\|k\||same (matrix|as)|positive)",
            r"sign of k",
            r"(backward|negative) (shift|offset)s?.{0,60}(forward|wrong direction|opposite)",
        ),
        (
            r"only (for )?k ?= ?1\b",
            r"transposed",
            r"column.vector",
            r"ignores? k\b",
        ),
        edits=[
            (
                "theta = k / np.power(10000.0, two_i / d_model)",
                "theta = abs(k) / np.power(10000.0, two_i / d_model)",
            )
        ],
        source=ROPE_SIGN_OF_OFFSET,
    ),
    _c(
        "rs-fill-diagonal-repeats-cosines",
        L03,
        "relative_shift",
        "writes the cosines with np.fill_diagonal(m, np.cos(theta)): fill_diagonal puts the "
        "d_model / 2 cosines one per diagonal entry and starts again from the first, instead "
        "of twice each (once per feature of the pair), so diagonal entry j holds the cosine of "
        "pair j mod (d_model / 2) instead of pair j // 2 (right only for k = 0 and "
        "d_model = 2).",
        (
            r"fill_diagonal",
            r"diagonal.{0,80}(repeat|cycl|wrap|once per (feature|entry)|not twice)",
            r"(each|every) cosine .{0,40}(twice|two (diagonal )?entries)",
            r"diagonal entr(y|ies) .{0,60}(wrong pair|another pair|other pair)",
        ),
        (
            r"transposed",
            r"column.vector",
            r"minus sign",
            r"reflection",
        ),
        edits=[
            ("m[two_i, two_i] = np.cos(theta)", "np.fill_diagonal(m, np.cos(theta))"),
            ("m[two_i + 1, two_i + 1] = np.cos(theta)", "pass"),
        ],
    ),
    # ------------------------------------------------------------- 03 quizzes
    _c(
        "quiz-shift-not-backwards",
        L03,
        "quiz_shift",
        "answers (b), every k > 0 but not k < 0, as if a backward shift could not be a "
        "rotation, instead of (c): a negative k rotates each pair by the negative angle "
        "w_i * k, one matrix per k that works at every position.",
        (
            r"negative k.{0,80}(rotat|also|too|as well|just as)",
            r"backward.{0,60}(rotat|shift).{0,40}(also|too|as well|is)",
            r"(rotat\w+|turn\w*) .{0,30}(the other way|by (a |the )?negative|backwards)",
            r"inverse (rotation|matrix)",
        ),
        (
            r"depends? on (the )?pos(ition)?\b",
            r"only (for )?k ?= ?1\b",
            r"non.?linear map",
        ),
        code="""
def quiz_shift():
    return "b"
""",
    ),
    _c(
        "quiz-row-length-for-512",
        L03,
        "quiz_row_length",
        "answers 16, the length of a row for d_model = 512 quoted in section 5, instead of "
        "the length for the question's d_model = 128: sqrt(128 / 2) = 8.",
        (
            r"512",
            r"(other|another|wrong|different) d_model",
        ),
        (
            r"squared",
            r"square root",
            r"sqrt\(128\)",
            r"unit (vector|length)",
        ),
        code="""
def quiz_row_length():
    return 16.0
""",
    ),
    _c(
        "quiz-row-length-not-returned",
        L03,
        "quiz_row_length",
        "computes the right number, sqrt(128 / 2) = 8, into a variable but never returns it, "
        "so the function returns None.",
        (
            r"\bNone\b",
            r"\breturn",
            r"no (value|number) (was )?returned",
        ),
        (
            r"squared",
            r"512",
            r"string",
        ),
        code="""
def quiz_row_length():
    length = (128 / 2) ** 0.5
""",
    ),
    # ----------------------------------------------------- 03 PositionalEncoding
    _c(
        "PE-attribute-then-register-buffer",
        L03,
        "PositionalEncoding",
        "assigns the table to self.pe first and then calls self.register_buffer('pe', "
        "self.pe): register_buffer refuses a name that is already a plain attribute, so "
        "building the module raises KeyError (attribute 'pe' already exists).",
        (
            r"already exists",
            r"(assign\w*|set) .{0,30}self\.pe.{0,60}(before|then|first)",
            r"self\.pe ?=.{0,80}register_buffer",
            r"register_buffer.{0,80}(same name|name .{0,20}(taken|already))",
        ),
        (
            r"not (a |registered as a )?buffer",
            r"nn\.Parameter",
            r"before super\(\)\.__init__",
        ),
        code="""
class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        table = torch.tensor(positional_encoding(max_len, d_model), dtype=torch.float32)
        self.pe = table.unsqueeze(0)  # (1, max_len, d_model)
        self.register_buffer("pe", self.pe)

    def forward(self, x):
        length = x.shape[1]
        if length > self.pe.shape[1]:
            raise ValueError(f"sequence length {length} exceeds max_len={self.pe.shape[1]}")
        return self.dropout(x + self.pe[:, :length])
""",
        source=ATTRIBUTE_THEN_BUFFER,
    ),
    _c(
        "PE-dropout-module-passed-as-p",
        L03,
        "PositionalEncoding",
        "creates self.dropout = nn.Dropout(dropout) in __init__ but calls the functional "
        "F.dropout(x + pe, self.dropout, self.training) in forward, passing the module where "
        "the probability p goes: F.dropout compares p with 0 and 1 and raises TypeError on "
        "every call.",
        (
            r"F\.dropout.{0,80}(module|nn\.Dropout|probability|\bp\b|float)",
            r"(module|nn\.Dropout).{0,60}(as|in place of|where) .{0,20}(the )?"
            r"(probability|p\b|rate)",
            r"not supported between instances of 'Dropout'",
            r"call (the module|self\.dropout)\(",
        ),
        (
            r"training=self\.training",
            r"eval(uation)? mode.{0,40}drop",
            r"dropout .{0,30}before .{0,20}(the )?(addition|sum)",
        ),
        code="""
import torch.nn.functional as F


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        table = torch.tensor(positional_encoding(max_len, d_model), dtype=torch.float32)
        self.register_buffer("pe", table.unsqueeze(0))  # (1, max_len, d_model)

    def forward(self, x):
        length = x.shape[1]
        if length > self.pe.shape[1]:
            raise ValueError(f"sequence length {length} exceeds max_len={self.pe.shape[1]}")
        return F.dropout(x + self.pe[:, :length], self.dropout, self.training)
""",
        source=DROPOUT_MODULE_AS_P,
    ),
    _c(
        "PE-table-built-in-forward",
        L03,
        "PositionalEncoding",
        "computes the table in forward, positional_encoding(len, d_model) on every call, "
        "instead of once in __init__ as a registered buffer: the module holds no table at all, "
        "so .to() and state_dict() never see it, and a module converted with "
        ".to(torch.bfloat16) adds a float32 table (its output is not in x's dtype).",
        (
            r"(in|inside) forward.{0,60}(every|each) call",
            r"(every|each) call.{0,60}(table|positional_encoding)",
            r"no (table|buffer)\b",
            r"(never|not) (build|built|compute[sd]?) .{0,30}(in|once in) __init__",
            r"once in __init__",
        ),
        (
            r"plain attribute",
            r"self\.pe ?= ",
            r"float64",
            r"nn\.Parameter",
        ),
        code="""
class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.d_model = d_model
        self.max_len = max_len
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        length = x.shape[1]
        if length > self.max_len:
            raise ValueError(f"sequence length {length} exceeds max_len={self.max_len}")
        table = torch.tensor(positional_encoding(length, self.d_model), dtype=torch.float32)
        return self.dropout(x + table)
""",
    ),
    # ------------------------------------------------------------------ 04 softmax
    _c(
        "sm-plus-one-in-denominator",
        L04,
        "softmax",
        "adds 1 to the denominator, exps / (1 + sum) (the 'softmax plus one' variant of the "
        "attention-is-off-by-one post): each slice sums to sum / (1 + sum), less than 1; an "
        "all -inf slice happens to come out as zeros.",
        (
            r"1 ?\+ ?(the )?(sum|total)",
            r"(sum|total) ?\+ ?1\b",
            r"extra (1|one|term)",
            r"plus one|\+ ?1 in the denominator|add(s|ed)? (1|one) to the denominator",
            r"softmax1|quiet",
        ),
        (
            r"keepdims",
            r"(global|whole.array) max",
            r"(does not|doesn't|never) (subtract|shift)",
            r"log.?softmax",
            r"euclidean|linalg\.norm",
        ),
        edits=[
            (
                "np.divide(exps, total, out=np.zeros_like(exps), where=total > 0)",
                "exps / (1.0 + total)",
            )
        ],
        source=SOFTMAX_PLUS_ONE,
    ),
    _c(
        "sm-1d-2d-only-returns-none",
        L04,
        "softmax",
        "handles 1-D and 2-D inputs only, one explicit branch each (rows or columns of a "
        "matrix), and for any other number of dims prints a message and returns None: a 3-D "
        "array of scores gets no softmax at all.",
        (
            r"\bNone\b",
            r"(3-?D|three.dim\w*).{0,80}(not handled|None|nothing)",
            r"only 1-?D (and|or) 2-?D",
        ),
        (
            r"keepdims",
            r"(global|whole.array) max",
            r"axis (argument )?(is )?ignored",
            r"in place",
        ),
        code="""
def softmax(x, axis=-1):
    def vector_softmax(v):
        peak = v.max()
        if not np.isfinite(peak):
            peak = 0.0
        e = np.exp(v - peak)
        total = e.sum()
        return e / total if total > 0 else np.zeros_like(e)

    if x.ndim == 1:
        return vector_softmax(x)
    elif x.ndim == 2:
        if axis in (0, -2):
            return np.stack([vector_softmax(col) for col in x.T], axis=1)
        return np.stack([vector_softmax(row) for row in x])
    else:
        print("The input array is not 1- or 2-dimensional.")
""",
        source=SOFTMAX_1D_2D_ONLY,
    ),
    _c(
        "sm-python-list-1d-only",
        L04,
        "softmax",
        "written for one vector with Python lists and math.exp, entry by entry: a 1-D input "
        "comes back as a list, not a numpy array, and on a 2-D input each 'entry' is a row, "
        "so comparing it with -inf raises ValueError (the axis argument is never used).",
        (
            r"\blist\b",
            r"math\.exp",
            r"(python|plain) (loop|list)",
            r"only (for )?(a )?1-?D|1-?D (vector|input)s? only",
        ),
        (
            r"keepdims",
            r"(global|whole.array) max",
            r"in place",
        ),
        code="""
import math


def softmax(x, axis=-1):
    finite = [v for v in x if v != -math.inf]
    peak = max(finite) if finite else 0.0
    exps = [math.exp(v - peak) for v in x]
    total = sum(exps)
    return [e / total if total > 0 else 0.0 for e in exps]
""",
    ),
    # ------------------------------------------------------------- 04 attention_row
    _c(
        "ar-softmax-over-size-one-axis",
        L04,
        "attention_row",
        "computes the scores as a (len_k, 1) column (keys @ query[:, None]) and takes the "
        "softmax along its default last axis, which has size 1: every weight is 1.0 and the "
        "output is the plain sum of the value rows.",
        (
            r"(axis|dim(ension)?) of (size|length) 1",
            r"size.?1 (axis|dim)",
            r"(all|every) (the )?weights? (is|are|equal|=) ?1(\.0)?\b",
            r"weights? .{0,20}all (equal )?(to )?(1|one)\b",
            r"column.{0,60}(softmax|axis)",
            r"each score (alone|on its own|by itself)",
        ),
        (
            r"(forg\w+|missing|no|without) .{0,20}scal",
            r"sqrt\(len_k\)",
            r"keys instead of (the )?values",
            r"output first",
        ),
        edits=[
            (
                "scores = keys @ query / math.sqrt(d_k)",
                "scores = keys @ query[:, None] / math.sqrt(d_k)",
            ),
            ("weights = softmax(scores)", "weights = softmax(scores)[:, 0]"),
        ],
        source=SOFTMAX_OVER_SIZE_ONE_AXIS,
    ),
    _c(
        "ar-hard-argmax",
        L04,
        "attention_row",
        "takes the single best key (np.argmax of the scores), as a search engine returns its "
        "best match: the weights are one-hot and the output is that key's value row, instead "
        "of softmax weights and a weighted average of all the value rows.",
        (
            r"one.?hot",
            r"argmax",
            r"hard (attention|choice|max)",
            r"(only|single|just) (the )?(one |best |top |highest.scoring )?(key|match|value row)",
            r"(best|top|largest) (key|score|match) .{0,30}(only|all (the )?weight|weight 1)",
        ),
        (
            r"(forg\w+|missing|no|without) .{0,20}scal",
            r"keys instead of (the )?values",
            r"softmax .{0,20}(wrong axis|axis 0)",
        ),
        code="""
def attention_row(query, keys, values):
    d_k = query.shape[-1]
    scores = keys @ query / math.sqrt(d_k)
    best = int(np.argmax(scores))
    weights = np.zeros_like(scores)
    weights[best] = 1.0
    output = values[best].copy()
    return weights, output
""",
    ),
    _c(
        "ar-output-squeezed",
        L04,
        "attention_row",
        "computes the output as the (1, d_v) row weights[None, :] @ values and squeezes every "
        "axis of size 1: right when d_v > 1, but with one value feature (d_v = 1) the output "
        "loses that axis too and comes back a 0-d array instead of shape (1,).",
        (
            r"squeeze",
            r"d_v ?= ?1",
            r"0-?d|zero.dim\w*|shape \(\)",
            r"(lost|loses|dropped|drops) .{0,30}axis",
        ),
        (
            r"\(1, ?d_v\)",
            r"leading axis",
            r"summed over (the )?features",
        ),
        edits=[("output = weights @ values", "output = np.squeeze(weights[None, :] @ values)")],
        source=SQUEEZE_ALL_AXES,
    ),
    # ------------------------------------------------------------- 04 quizzes
    _c(
        "quiz-score-scale-heads",
        L04,
        "quiz_score_scale",
        "answers (d), the number of attention heads, instead of (c): d_k is the width of each "
        "query and key vector, q.shape[-1] (d_model / num_heads per head, 64 in the paper).",
        (r"\bheads?\b",),
        (
            r"number of words|sentence length",
            r"\bd_model\b.{0,40}(not|instead)",
        ),
        code="""
def quiz_score_scale():
    return "d"
""",
    ),
    _c(
        "quiz-fully-masked-first-key",
        L04,
        "quiz_fully_masked",
        "answers (d), weight 1 on the first key (what an argmax over equal scores would pick), "
        "instead of (b): a query with no allowed key gets all-zero weights, so it takes in "
        "nothing from keys it may not see.",
        (
            r"first key",
            r"(weight|all) .{0,20}(on|to) (the )?first",
            r"argmax",
        ),
        (
            r"as if there were no mask",
            r"\bNaN\b.{0,40}(spread|is not)",
        ),
        code="""
def quiz_fully_masked():
    return "d"
""",
    ),
    _c(
        "quiz-cross-values-from-decoder",
        L04,
        "quiz_cross_attention_roles",
        "answers (c), queries and keys from the encoder's output and values from the decoder "
        "(the illustrated guide's version the lesson warns about), instead of (b): the output "
        "has one row per query, so the queries come from the decoder, keys and values from "
        "the encoder.",
        (
            r"values? .{0,40}(from|come from) the encoder",
            r"(one|a) row per query",
            r"values? .{0,20}(not|never) from the decoder",
            r"queries .{0,30}(must|have to|come) from the decoder",
        ),
        (
            r"decoder's own words|self.attention",
            r"roles reversed",
        ),
        code="""
def quiz_cross_attention_roles():
    return "c"
""",
    ),
    # ----------------------------------------------- 04 scaled_dot_product_attention
    _c(
        "sdpa-scores-k-times-q",
        L04,
        "scaled_dot_product_attention",
        "computes the scores as k @ q^T (the column-vector formula K^T Q read with row-vector "
        "tensors) instead of q @ k^T: the scores come out keys by queries, (..., len_k, "
        "len_q), so the softmax runs over the queries, and the mask and the product with v "
        "fail unless len_q == len_k.",
        (
            r"k ?@ ?q",
            r"(operands?|factors?|order of the product).{0,40}(swapped|reversed|wrong order)",
            r"(keys?|k) (by|x|×) (quer(y|ies)|q)\b",
            r"\(\.\.\., ?len_k, ?len_q\)",
            r"transpos\w* (the )?(quer(y|ies)|q)\b.{0,40}instead of .{0,10}(the )?(keys?|k)\b",
            r"scores? .{0,30}transposed",
        ),
        (
            r"k\.T\b",
            r"transpose\(1, ?2\)",
            r"softmax .{0,40}(dim=-2|over the quer)",
        ),
        edits=[
            (
                "scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)",
                "scores = k @ q.transpose(-2, -1) / math.sqrt(d_k)",
            )
        ],
        source=COLUMN_MAJOR_SCORES,
    ),
    _c(
        "sdpa-flipped-mask-reused",
        L04,
        "scaled_dot_product_attention",
        "rebinds mask = ~mask to fill the blocked scores, then reuses the flipped mask to find "
        "the rows with no allowed key: ~mask.any(dim=-1) now finds the rows with no blocked "
        "key, so a query that may attend to every key gets all-zero weights (the last row of a "
        "causal mask, every row of an unpadded sequence), and a fully masked row keeps NaN.",
        (
            r"(flipped|inverted|negated) mask.{0,80}(reus|again|second|later|rows)",
            r"mask ?= ?~ ?mask",
            r"rows? (that|which|where) (may attend to|allows?|sees?) (every|all) keys?"
            r".{0,60}zero",
            r"rows? with no blocked key.{0,40}zero",
            r"zero(es|ed)? .{0,40}rows? .{0,40}(nothing|no key) is blocked",
        ),
        (
            r"(all|any)\(dim=-1\).{0,30}instead of",
            r"over the queries",
            r"masked_fill.{0,40}(not assigned|discarded|result)",
            r"True ?= ?blocked|opposite convention",
        ),
        edits=[
            (
                'scores = scores.masked_fill(~mask, float("-inf"))',
                'mask = ~mask\n        scores = scores.masked_fill(mask, float("-inf"))',
            )
        ],
    ),
]
