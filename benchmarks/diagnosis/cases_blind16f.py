"""Held-out wrong answers for lessons 03-04, blind round 16 (helper b16f, 2026-11-28):
mistakes new to the benchmark, written against the checks after round 18's fixes, to
measure how the diagnoses generalise to mistakes nobody here has seen. 20 cases over the
six coded exercises and four questions; four transpose a mistake reported in public (the
URL read for this benchmark), the others are the author's.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run, and each case was compared with the causes of the benchmark's earlier cases for these
lessons (ids and causes only) and replaced where it repeated one.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

BLIND16F: list[Case] = []

L03, L04 = "03_positional_encoding", "04_attention"

# The reports these cases transpose (each read with the search tool for this benchmark).
RAISE_STRING = "https://github.com/wolf71/TinyWebDav/issues/9"
VIEW_BATCH_OF_ONE = "https://github.com/ssbuild/qwen_finetuning/issues/2"
MAX_LENGTH_512 = "https://github.com/huggingface/transformers/issues/1791"

_c = held_out_authored("blind16f")

BLIND16F: list[Case] = [
    # ------------------------------------------------------------ 03 positional_encoding
    _c(
        "pe-angles-times-two-pi",
        L03,
        "positional_encoding",
        "multiplies every angle by 2*pi (reading 10000^(2i/d_model) as a period in "
        "positions, sin(2*pi*pos / period)): the wavelengths are 2*pi times too short, "
        "so every position but 0 gets the wrong sines and cosines.",
        (
            r"2\s*\*?\s*(π|pi)",
            r"two pi",
            r"(wavelengths?|periods?|frequenc(y|ies)).{0,60}(2\s*\*?\s*(π|pi)|6\.28)",
        ),
        (
            r"positions? (start|count).{0,20}(1|one)",
            r"(sin|cos)\w* .{0,20}swapped",
            r"\bbase\b.{0,30}1000\b",
        ),
        edits=[
            (
                "angles = positions / np.power(10000.0, two_i / d_model)",
                "angles = 2 * np.pi * positions / np.power(10000.0, two_i / d_model)",
            )
        ],
    ),
    _c(
        "pe-positions-and-indices-swapped",
        L03,
        "positional_encoding",
        "swaps the roles of the positions and the feature indices in the angle, "
        "two_i / 10000^(pos / d_model) instead of pos / 10000^(2i / d_model): the "
        "exponent grows with the position and the numerator with the feature.",
        (
            r"(positions?|pos)\b.{0,60}(exponent|power).{0,80}(instead|not|rather)",
            r"(swap|exchang|revers)\w*.{0,60}(positions?|pos\b).{0,40}(feature|pair|index|2i)",
            r"(feature|pair|index|2i).{0,40}(swap|exchang)\w*.{0,40}(positions?|pos\b)",
            r"roles? of .{0,40}(position|pos\b)",
        ),
        (
            r"\bbase\b.{0,30}1000\b",
            r"positions? (start|count).{0,20}(1|one)",
            r"(sin|cos)\w* .{0,20}swapped",
        ),
        edits=[
            (
                "angles = positions / np.power(10000.0, two_i / d_model)",
                "angles = two_i / np.power(10000.0, positions / d_model)",
            )
        ],
    ),
    # ------------------------------------------------------------ 03 relative_shift
    _c(
        "rs-sin-cos-swapped-in-blocks",
        L03,
        "relative_shift",
        "writes the sines on the block's diagonal and the cosines off it (sin and cos "
        "swapped in every 2x2 block): the blocks are not rotations, so PE[pos] @ M is not "
        "PE[pos + k] for any k.",
        (
            r"(sin\w*|cos\w*) and (cos\w*|sin\w*).{0,40}(swapped|exchanged|the wrong way|other way)",
            r"(sines?|sin) (on|along) the diagonal",
            r"diagonal.{0,60}(cos).{0,60}(not|instead).{0,30}sin",
            r"diagonal.{0,40}(holds?|has|carries) (the )?sin",
        ),
        (
            r"transpos",
            r"minus sign",
            r"without k\b|leaves? (out )?k\b|k left out",
            r"frequenc\w* left out",
        ),
        edits=[
            ("m[two_i, two_i] = np.cos(theta)", "m[two_i, two_i] = np.sin(theta)"),
            ("m[two_i + 1, two_i] = np.sin(theta)", "m[two_i + 1, two_i] = np.cos(theta)"),
            ("m[two_i, two_i + 1] = -np.sin(theta)", "m[two_i, two_i + 1] = -np.cos(theta)"),
            ("m[two_i + 1, two_i + 1] = np.cos(theta)", "m[two_i + 1, two_i + 1] = np.sin(theta)"),
        ],
    ),
    _c(
        "rs-raises-a-string",
        L03,
        "relative_shift",
        "raises the message string itself (raise f'...') for an odd d_model instead of "
        "ValueError(...): Python refuses to raise a str, so the caller gets a TypeError "
        "('exceptions must derive from BaseException').",
        (
            r"raise[sd]? (a |the )?(str|string|message)",
            r"exceptions must derive from BaseException.{0,200}(ValueError\(|raise ValueError)",
            r"(str|string|message) (is not|isn'?t) an exception",
            r"wrap.{0,30}ValueError\(",
        ),
        (
            r"assert",
            r"returns? None",
            r"IndexError",
            r"(never|not) (check|test)s? .{0,20}(odd|parity)",
        ),
        edits=[
            (
                'raise ValueError(f"relative_shift needs an even d_model, got {d_model}")',
                'raise f"relative_shift needs an even d_model, got {d_model}"',
            )
        ],
        source=RAISE_STRING,
    ),
    # ------------------------------------------------------------ 03 PositionalEncoding
    _c(
        "PE-dropout-given-max-len",
        L03,
        "PositionalEncoding",
        "passes max_len instead of dropout to nn.Dropout (nn.Dropout(max_len), the wrong "
        "one of the constructor's arguments): a probability of 5000 is refused with "
        "ValueError when the module is built.",
        (
            r"nn\.Dropout\(max_len\)",
            r"max_len.{0,60}(passed|given|handed) to (nn\.)?Dropout",
            r"Dropout.{0,60}(gets?|receives?|given) max_len",
            r"(probability|rate) of 5000",
        ),
        (r"keep.?prob", r"hard.?coded", r"(signature|order of the) (parameters|arguments)"),
        edits=[("self.dropout = nn.Dropout(dropout)", "self.dropout = nn.Dropout(max_len)")],
    ),
    _c(
        "PE-buffer-requires-grad",
        L03,
        "PositionalEncoding",
        "registers the table with requires_grad_() on (to 'let it learn'), as a buffer: "
        "the optimizer never sees it, but every output now carries a graph into the table "
        "and the fixed encoding is treated as something to differentiate.",
        (
            r"requires_grad",
            r"(buffer|table|pe)\b.{0,60}(tracks?|gets?|needs?|asks? for) (a )?gradients?",
        ),
        (r"nn\.Parameter", r"plain attribute", r"float64", r"persistent"),
        edits=[
            (
                'self.register_buffer("pe", table.unsqueeze(0))',
                'self.register_buffer("pe", table.unsqueeze(0).requires_grad_())',
            )
        ],
    ),
    _c(
        "PE-default-max-len-512",
        L03,
        "PositionalEncoding",
        "changes the default max_len from 5000 to 512 (BERT's length) in the signature: "
        "a module built without max_len refuses any sequence longer than 512 positions.",
        (
            r"default.{0,40}max_len.{0,40}(512|5000)",
            r"max_len.{0,40}default.{0,40}(512|5000)",
            r"max_len\s*=\s*512",
        ),
        (r">=", r"hard.?coded", r"(signature|order of the) (parameters|arguments)"),
        edits=[
            (
                "def __init__(self, d_model: int, max_len: int = 5000, dropout: float = 0.1):",
                "def __init__(self, d_model: int, max_len: int = 512, dropout: float = 0.1):",
            )
        ],
        source=MAX_LENGTH_512,
    ),
    _c(
        "PE-rows-viewed-as-x",
        L03,
        "PositionalEncoding",
        "reshapes the table rows to x's shape with .view(x.shape) before adding them, "
        "as if view could repeat them over the batch: right for a batch of one, a raw "
        "RuntimeError (shape invalid for input of size) for any larger batch.",
        (
            r"\.view\(.{0,40}(cannot|can'?t|does not|doesn'?t|never) (repeat|copy|broadcast|expand)",
            r"view.{0,60}(batch of one|batch size 1)",
            r"(use|needs?|write) (broadcasting|\.expand|expand_as|plain addition).{0,40}(not|instead of) .{0,10}view",
            r"view\(x\.shape\)",
        ),
        (r"squeez", r"x\.size\(0\)|batch axis as (the )?length", r"sequence.first"),
        edits=[
            (
                "return self.dropout(x + self.pe[:, :length])",
                "return self.dropout(x + self.pe[:, :length].view(x.shape))",
            )
        ],
        source=VIEW_BATCH_OF_ONE,
    ),
    # ------------------------------------------------------------ 03 quizzes
    _c(
        "quiz-row-length-with-position-answer",
        L03,
        "quiz_row_length",
        "returns both parts of the question as a tuple, (8.0, False) (the length and "
        "'does not depend on the position'), instead of the number alone.",
        (r"tuple", r"(one|a single|only the) number", r"\(8\.0, False\)"),
        (r"squared", r"sqrt\(128\)", r"unit", r"512"),
        edits=[("    return 8.0\n", "    return 8.0, False  # the length, and: no\n")],
    ),
    _c(
        "quiz-shift-two-letters",
        L03,
        "quiz_shift",
        "answers 'b, c', two letters (hedging between every k > 0 and every k), instead "
        "of the single letter 'c'.",
        (r"(one|a single|only one) letter", r"two (letters|answers)", r"more than one"),
        (r"only k ?= ?1", r"depends on pos", r"backward"),
        edits=[('    return "c"\n', '    return "b, c"\n')],
    ),
    # ------------------------------------------------------------ 04 softmax
    _c(
        "sm-base-two",
        L04,
        "softmax",
        "exponentiates with base 2 (np.exp2) instead of e: the slices still add up to 1, "
        "but every weight is 2^(x - max) / sum, flatter than the softmax.",
        (r"exp2", r"base.{0,10}2\b", r"2 ?\*\* ?", r"\b2\^"),
        (r"keepdims", r"global max", r"in place", r"axis"),
        edits=[("exps = np.exp(x - peak)", "exps = np.exp2(x - peak)")],
    ),
    _c(
        "sm-divided-by-max",
        L04,
        "softmax",
        "divides the exponentials by their maximum instead of their sum: the largest "
        "entry of each slice is 1 and the slices add up to more than 1.",
        (
            r"(divid|normalis|normaliz)\w* by (the |their |each slice'?s )?(max|largest)",
            r"max(imum)? instead of (the |their )?sum",
            r"largest (entry|weight) (is|equals?) 1",
        ),
        (r"keepdims", r"euclidean|norm\b", r"global max", r"in place"),
        edits=[
            (
                "total = np.sum(exps, axis=axis, keepdims=True)",
                "total = np.max(exps, axis=axis, keepdims=True)",
            )
        ],
    ),
    _c(
        "sm-shift-by-largest-magnitude",
        L04,
        "softmax",
        "shifts each slice by its largest absolute value, np.max(np.abs(x)), instead of "
        "its maximum: right wherever the largest magnitude is the maximum, but a slice of "
        "large negative entries is shifted further down and underflows to all zeros "
        "instead of summing to 1.",
        (
            r"abs(olute)?\b.{0,40}(instead of|not) .{0,20}max",
            r"(largest|max\w*) (absolute value|magnitude)",
            r"np\.abs",
            r"magnitude",
        ),
        (r"global max", r"\bmean\b", r"\bmin(imum)?\b", r"max\(0|clamp", r"keepdims"),
        edits=[
            (
                "peak = np.max(x, axis=axis, keepdims=True)",
                "peak = np.max(np.abs(x), axis=axis, keepdims=True)",
            )
        ],
    ),
    # ------------------------------------------------------------ 04 attention_row
    _c(
        "ar-scale-on-output",
        L04,
        "attention_row",
        "divides the output by sqrt(d_k) instead of the scores: the weights are the "
        "softmax of the unscaled scores and the output is the weighted sum shrunk by "
        "sqrt(d_k).",
        (
            r"(output|result).{0,60}(divided|scaled|shrunk).{0,40}sqrt",
            r"scal\w* .{0,30}(the )?output.{0,40}(instead of|not) .{0,20}scores",
            r"scale.{0,40}(after|on) the (output|weighted sum)",
        ),
        (
            r"sqrt\(len_k\)|number of keys",
            r"\bd_v\b",
            r"after the softmax",
            r"scores? from (the )?values",
        ),
        edits=[
            ("scores = keys @ query / math.sqrt(d_k)", "scores = keys @ query"),
            ("output = weights @ values", "output = weights @ values / math.sqrt(d_k)"),
        ],
    ),
    _c(
        "ar-scores-over-their-sum",
        L04,
        "attention_row",
        "normalises the scaled scores by their sum (scores / scores.sum()) instead of "
        "taking their softmax: the weights add up to 1 but can be negative, and a sum near "
        "zero blows them up.",
        (
            r"(no|without( a)?|never|instead of( the)?|not the) softmax",
            r"divid\w* .{0,30}by (their|the) sum .{0,40}(instead|not|without)",
            r"negative weights?",
        ),
        (r"\bd_v\b", r"sqrt\(len_k\)|number of keys", r"cosine", r"argmax"),
        edits=[("weights = softmax(scores)", "weights = scores / scores.sum()")],
    ),
    # ------------------------------------------------------------ 04 scaled_dot_product_attention
    _c(
        "sdpa-scale-integer-half-power",
        L04,
        "scaled_dot_product_attention",
        "writes the scale as d_k ** (1 // 2): 1 // 2 is 0 (floor division), so the "
        "scores are divided by 1, i.e. never scaled.",
        (
            r"1 ?// ?2",
            r"floor division.{0,60}(0|zero|exponent)",
            r"(never|not|no|without) (be )?scal",
            r"divided by 1\b",
        ),
        (r"sqrt\(len_k\)|key length|number of keys", r"\bd_v\b", r"d_model"),
        edits=[
            (
                "scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)",
                "scores = q @ k.transpose(-2, -1) / d_k ** (1 // 2)",
            )
        ],
    ),
    _c(
        "sdpa-output-from-transposed-weights",
        L04,
        "scaled_dot_product_attention",
        "computes the output as weights.transpose(-2, -1) @ v (keys by queries times the "
        "values): a raw matmul error whenever len_q != len_k, and when they are equal each "
        "output row mixes the values with a column of the weights.",
        (
            r"weights?\.transpose\(-2, -1\) @ v",
            r"transpos\w* (the )?weights",
            r"weights?.{0,40}transposed",
            r"columns? of the weights",
        ),
        (
            r"k\.T\b|reverses every",
            r"softmax.{0,30}(dim|over).{0,20}(queries|-2|query)",
            r"mask.{0,20}transpos",
        ),
        edits=[("output = weights @ v", "output = weights.transpose(-2, -1) @ v")],
    ),
    _c(
        "sdpa-mask-viewed-as-scores",
        L04,
        "scaled_dot_product_attention",
        "reshapes the mask to the scores' shape with mask.view(scores.shape) before "
        "filling, instead of letting it broadcast: right for a mask that already has the "
        "full shape, a raw RuntimeError for a padding mask (..., 1, len_k).",
        (
            r"\.view\(.{0,40}(cannot|can'?t|does not|doesn'?t|never) (repeat|copy|broadcast|expand)",
            r"mask\.view",
            r"view.{0,40}(instead of|not) (broadcast|expand)",
            r"(let|leave) the mask broadcast",
        ),
        (r"unsqueez", r"boolean indexing", r"mask.{0,20}transpos", r"polarity|invert"),
        edits=[
            (
                'scores = scores.masked_fill(~mask, float("-inf"))',
                'scores = scores.masked_fill(~mask.view(scores.shape), float("-inf"))',
            )
        ],
        source=VIEW_BATCH_OF_ONE,
    ),
    # ------------------------------------------------------------ 04 quizzes
    _c(
        "quiz-score-scale-option-text",
        L04,
        "quiz_score_scale",
        "returns the option's text, 'd_k', instead of its letter 'c'.",
        (r"letter", r"\"?a\"?, \"?b\"?, \"?c\"? or \"?d\"?"),
        (r"number of (words|heads)", r"d_model"),
        edits=[('    return "c"\n', '    return "d_k"\n')],
    ),
    _c(
        "quiz-fully-masked-number",
        L04,
        "quiz_fully_masked",
        "returns the number 0 (the row's weights are all zero) instead of the letter "
        "naming that option.",
        (r"letter", r"(a str|a string)\b", r"not (a|the) number"),
        (r"NaN", r"first key", r"as if there were no mask"),
        edits=[('    return "b"\n', "    return 0\n")],
    ),
]
