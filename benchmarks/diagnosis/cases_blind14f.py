"""Held-out wrong answers for lessons 03-04, blind round 14 (helper b14f, 2026-11-27):
mistakes new to the benchmark, written against the checks after round 15's fixes, to
measure how the diagnoses generalise to mistakes nobody here has seen. 23 cases over the
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
PE_INDEXED_NOT_SLICED = "https://github.com/DiffPoseTalk/DiffPoseTalk/issues/20"
PE_TABLE_SCALED = "https://github.com/Kyubyong/transformer/issues/60"
TILE_VS_REPEAT = "https://github.com/helmholtz-analytics/heat/issues/179"
ANSWER_AS_STRING = "https://github.com/source-academy/backend/issues/162"
SQRT_THEN_HALVE = "https://github.com/IIsi50MHz/chromey-calculator/issues/192"
CROSS_KV_FROM_DECODER = "https://github.com/bentrevett/pytorch-seq2seq/issues/143"
FULLY_MASKED_NOT_ZERO = "https://github.com/ml-explore/mlx/issues/2395"
SQRT_TWICE = "https://github.com/openai/guided-diffusion/issues/38"
NAN_TIMES_ZERO = "https://github.com/pytorch/pytorch/issues/41508"
SLICE_IS_A_VIEW = (
    "https://kiwix.lema.org/stackoverflow.com_en_all_2023-11/questions/50213967/"
    "numpy-slicing-and-indexing-different-results"
)

_c = held_out_authored("blind14f")

BLIND14F: list[Case] = [
    # ------------------------------------------------------------ 03 positional_encoding
    _c(
        "pe-angles-tiled-not-repeated",
        L03,
        "positional_encoding",
        "spreads the pair angles over the features with np.tile(angles, 2) (torch's .repeat "
        "semantics) instead of np.repeat(angles, 2, axis=1): feature j gets the angle of "
        "pair j mod ceil(d_model/2) instead of pair j // 2, so past pair 0 each sine and "
        "cosine uses another pair's frequency (and a pair's sine and cosine differ).",
        (
            r"np\.tile|\btile\b",
            r"np\.repeat|repeat\(angles|repeat_interleave",
            r"(angle|frequenc\w+) of (another|the wrong|a different) pair",
            r"(feature|column)s? .{0,40}(another|the wrong|a different) pair'?s? "
            r"(angle|frequenc)",
            r"j ?% ?\(?(ceil|d_model ?// ?2|pairs)|j mod ",
        ),
        (
            r"halves|first half|concatenat\w+ (all )?the sines|tensor2tensor",
            r"(its own|own) (feature )?index|2j ?/ ?d_model|exponent per feature",
            r"base (1000|e)\b",
            r"floor.?divi",
        ),
        code="""
        def positional_encoding(max_len, d_model):
            positions = np.arange(max_len, dtype=np.float64)[:, None]  # (max_len, 1)
            two_i = np.arange(0, d_model, 2, dtype=np.float64)
            angles = positions / np.power(10000.0, two_i / d_model)  # (max_len, pairs)
            # one angle per feature: each pair's angle for its sine and its cosine
            per_feature = np.tile(angles, 2)[:, :d_model]
            pe = np.zeros((max_len, d_model))
            pe[:, 0::2] = np.sin(per_feature[:, 0::2])
            pe[:, 1::2] = np.cos(per_feature[:, 1::2])
            return pe
        """,
        source=TILE_VS_REPEAT,
    ),
    _c(
        "pe-power-divided-by-d-model",
        L03,
        "positional_encoding",
        "misplaces a parenthesis in the denominator, np.power(10000.0, two_i) / d_model "
        "instead of np.power(10000.0, two_i / d_model): the exponent is 2i, not "
        "2i / d_model, and the power is divided by d_model, so pair 0 turns d_model "
        "radians per position and the other pairs almost not at all (10000^2i overflows "
        "to inf from pair 39 on, angle 0).",
        (
            r"10000 ?(\*\*|\^) ?\(?2i\)? ?/ ?d_model",
            r"(power|10000\^?\(?2i\)?) .{0,30}divided by d_model",
            r"exponent .{0,40}(is|was|uses) 2i\b(?! ?/)",
            r"(d_model|/ ?d_model) .{0,40}(outside|out of) the exponent",
        ),
        (
            r"multipl\w+ (the )?positions? by",
            r"base (1000|e)\b|log10",
            r"floor.?divi",
            r"(exponent|uses) i ?/ ?d_model",
        ),
        edits=(
            (
                "angles = positions / np.power(10000.0, two_i / d_model)",
                "angles = positions / (np.power(10000.0, two_i) / d_model)",
            ),
        ),
    ),
    # ------------------------------------------------------------ 03 relative_shift
    _c(
        "rs-parity-test-floor-division",
        L03,
        "relative_shift",
        "tests the parity with d_model // 2 instead of d_model % 2 (a slip of the "
        "operator): every even d_model >= 2 raises the odd-d_model ValueError, and an odd "
        "one such as 3 is not rejected either (only d_model = 1 passes the test).",
        (
            r"d_model ?// ?2",
            r"//.{0,40}instead of %|floor.?division .{0,40}(instead|parity|%)",
            r"(raises?|rejects?|ValueError) .{0,60}(even|valid) d_model",
            r"even d_model .{0,60}(raised|rejected|ValueError)",
        ),
        (
            r"k ?% ?2|odd k\b|parity of k",
            r"negative k",
            r"AssertionError|assert\b",
        ),
        edits=(("if d_model % 2:", "if d_model // 2:"),),
    ),
    _c(
        "rs-one-step-times-k",
        L03,
        "relative_shift",
        "builds the matrix for a shift by one position and multiplies it by the number k "
        "(k * step) instead of rotating each pair by k times its angle (the k-th matrix "
        "power): right for k = 1 only; k = 0 gives the zero matrix instead of the identity.",
        (
            r"multipl\w+ .{0,40}by (the number )?k\b",
            r"\bk ?(\*|times|×) ?(the )?(one|single|1)[- ]?(step|position)",
            r"scal\w+ .{0,40}(matrix|M)\b.{0,20}by k\b",
            r"zero matrix .{0,40}k ?= ?0|k ?= ?0.{0,60}(zero matrix|all zeros)",
        ),
        (
            r"element.?wise|\*\* ?k|each entry raised",
            r"(leaves|left) k out|without k\b|ignores k|always (shifts )?by one",
            r"negative k",
            r"transpos",
        ),
        code="""
        def relative_shift(k, d_model):
            if d_model % 2:
                raise ValueError(f"relative_shift needs an even d_model, got {d_model}")
            two_i = np.arange(0, d_model, 2)
            theta = 1.0 / np.power(10000.0, two_i / d_model)  # one position
            step = np.zeros((d_model, d_model))
            step[two_i, two_i] = np.cos(theta)
            step[two_i + 1, two_i] = np.sin(theta)
            step[two_i, two_i + 1] = -np.sin(theta)
            step[two_i + 1, two_i + 1] = np.cos(theta)
            return k * step  # k positions: k times one position
        """,
    ),
    _c(
        "rs-diagonals-couple-pairs",
        L03,
        "relative_shift",
        "builds the matrix from three diagonals (np.diag) whose off-diagonals hold every "
        "pair's sine twice, with no zero between the blocks: the entries [2i+1, 2i+2] and "
        "[2i+2, 2i+1] that should be 0 get -sin and +sin, so each pair's cosine leaks into "
        "the next pair (right for k = 0 and for d_model = 2).",
        (
            r"outside (the |its )?(2x2 |2×2 |diagonal )?blocks?",
            r"between (neighbouring |adjacent |two )?pairs",
            r"(next|neighbouring|adjacent) pair",
            r"\[2i ?\+ ?1, ?2i ?\+ ?2\]|\[2i ?\+ ?2, ?2i ?\+ ?1\]",
            r"(should|must) be (zero|0).{0,60}(block|pair)",
        ),
        (
            r"transpos",
            r"minus sign|sign (of|on) the",
            r"negative k",
            r"(frequenc\w+|angle) .{0,30}(wrong|left out)",
        ),
        code="""
        def relative_shift(k, d_model):
            if d_model % 2:
                raise ValueError(f"relative_shift needs an even d_model, got {d_model}")
            theta = k / np.power(10000.0, np.arange(0, d_model, 2) / d_model)
            cosines = np.repeat(np.cos(theta), 2)  # (d_model,)
            sines = np.repeat(np.sin(theta), 2)[:-1]  # (d_model - 1,): the off-diagonals
            return np.diag(cosines) + np.diag(-sines, 1) + np.diag(sines, -1)
        """,
    ),
    # ------------------------------------------------------------ 03 quizzes
    _c(
        "quiz-shift-matrix-per-position",
        L03,
        "quiz_shift",
        "answers (d), the matrix depends on pos as well, instead of (c): the rotation of "
        "pair i is by w_i * k, which depends on the offset k only, so one matrix per k "
        "works at every position.",
        (
            r"(does not|doesn't|never) depend on (the )?pos(ition)?",
            r"depends? (only )?on (the offset )?k (only|alone)|only on (the offset )?k\b",
            r"(same|one|single) (matrix|M) .{0,40}(every|all|each|any) positions?",
            r"independent of (the )?pos",
        ),
        (
            r"only k ?= ?1|longer shifts? .{0,30}non.?linear",
            r"negative k|backwards",
        ),
        edits=(('return "c"', 'return "d"'),),
    ),
    # blind14f-quiz-row-length-string left out after the run: the numeric quizzes accept a
    # number written as text on purpose; generalisation.py lists it with the reason.
    # _c(
    #     "quiz-row-length-string",
    #     L03,
    #     "quiz_row_length",
    #     'returns the right length as a string, "8" (the way the lesson\'s letter quizzes '
    #     "return their answers), instead of the number 8.0.",
    #     (
    #         r"\bstr(ing)?\b",
    #         r"(a |not a )number",
    #         r"'8'|\"8\"",
    #         r"\bfloat\b.{0,40}(not|instead|expected)",
    #         r"\btype\b|TypeError",
    #     ),
    #     (
    #         r"squared length|square root|sqrt\(128\)",
    #         r"unit (vector|length)",
    #     ),
    #     edits=(("return 8.0", 'return "8"'),),
    #     source=ANSWER_AS_STRING,
    # ),
    _c(
        "quiz-row-length-sqrt-then-halved",
        L03,
        "quiz_row_length",
        "answers math.sqrt(128) / 2 (about 5.66), halving the square root, instead of "
        "math.sqrt(128 / 2) = 8: the squared length is d_model / 2 = 64, one for each "
        "sine-cosine pair.",
        (
            r"(sqrt\(128\)|√128|sqrt\(d_model\)) ?/ ?2",
            r"(halv\w+|divid\w+) (the )?(square root|sqrt|length)",
            r"square root of 128,? (then )?(halved|divided)",
            r"parenthes|precedence",
        ),
        (
            r"squared length|forg\w+ the square root",
            r"unit (vector|length)|length 1\b",
            r"(as if|assum\w+) every entry (had|has) size 1|sqrt\(128\) ?= ?11",
        ),
        code="""
        import math


        def quiz_row_length():
            return math.sqrt(128) / 2
        """,
        source=SQRT_THEN_HALVE,
    ),
    # ------------------------------------------------------------ 03 PositionalEncoding
    _c(
        "PE-table-indexed-at-length",
        L03,
        "PositionalEncoding",
        "indexes the table at the length, self.pe[:, length], instead of slicing its first "
        "length rows, self.pe[:, :length]: one row, position len's vector, is added to "
        "every token, and a sequence of exactly max_len raises IndexError.",
        (
            r"pe\[:, ?len(gth)?\]",
            r"index\w* .{0,40}instead of (a )?slic",
            r"(one|a single|the same) (position'?s? )?(vector|row|encoding) .{0,60}"
            r"(every|all|each) (token|position)",
            r"position len(gth)?'?s? (vector|row|encoding)",
            r"missing (the )?colon|:len(gth)?\b.{0,30}(not|instead of) len",
        ),
        (
            r"last (len|length|rows)",
            r"x\.size\(0\)|length (from|of) the batch axis",
            r"positions? (start|count\w*) (at|from) 1|next position",
            r"sequence.?first|\(max_len, 1, d_model\)",
        ),
        edits=(
            (
                "return self.dropout(x + self.pe[:, :length])",
                "return self.dropout(x + self.pe[:, length])",
            ),
        ),
        source=PE_INDEXED_NOT_SLICED,
    ),
    _c(
        "PE-positions-only-in-training",
        L03,
        "PositionalEncoding",
        "puts the whole forward under `if self.training:` (dropout is for training only) "
        "and returns x unchanged otherwise: in eval mode the positions are never added.",
        (
            r"eval(uation)? mode.{0,80}(no|without|not|never|missing).{0,30}"
            r"(encoding|table|positions?|PE)",
            r"(encoding|table|positions?|PE).{0,60}(not|never) added.{0,60}eval",
            r"(only|just) in train(ing)? mode",
            r"if self\.training",
            r"returns? x unchanged",
        ),
        (
            r"dropout (is )?(still )?(on|active|applied) in eval",
            r"functional dropout|F\.dropout",
            r"(no|never applies|without) dropout",
            r"in.?place",
        ),
        code="""
        class PositionalEncoding(nn.Module):
            def __init__(self, d_model, max_len=5000, dropout=0.1):
                super().__init__()
                self.dropout = nn.Dropout(dropout)
                table = torch.tensor(positional_encoding(max_len, d_model), dtype=torch.float32)
                self.register_buffer("pe", table.unsqueeze(0))

            def forward(self, x):
                length = x.shape[1]
                if length > self.pe.shape[1]:
                    raise ValueError(f"sequence length {length} exceeds max_len")
                if self.training:  # dropout is only for training
                    return self.dropout(x + self.pe[:, :length])
                return x
        """,
    ),
    _c(
        "PE-table-scaled-by-sqrt-d-model",
        L03,
        "PositionalEncoding",
        "multiplies the stored table by sqrt(d_model) (the embedding's scale applied to "
        "the positions): every position vector is sqrt(d_model) times too long.",
        (
            r"(table|encoding|PE\b|pe\b|positions?|rows).{0,50}"
            r"(scaled|multiplied|times) (by )?(sqrt|√)\(?d_model",
            r"(sqrt|√)\(?d_model\)?.{0,60}(table|encoding|PE\b|positions?)",
            r"(sqrt|√)\(?d_model\)? times (too )?(large|long)",
        ),
        (
            r"(multipl\w+|scal\w+) (the )?(x|embeddings?|input)\b",
            r"x ?\* ?(math\.)?sqrt",
        ),
        edits=(
            (
                'self.register_buffer("pe", table.unsqueeze(0))',
                'self.register_buffer("pe", table.unsqueeze(0) * d_model**0.5)',
            ),
        ),
        source=PE_TABLE_SCALED,
    ),
    # ------------------------------------------------------------ 04 softmax
    _c(
        "sm-denominator-not-shifted",
        L04,
        "softmax",
        "subtracts the maximum in the numerator only, exp(x - max) / sum(exp(x)): the "
        "shift no longer cancels, so each slice sums to exp(-max) instead of 1, and large "
        "entries overflow the sum to inf (weights 0).",
        (
            r"denominator.{0,60}(not shifted|unshifted|without (the )?(shift|max)|raw exp)",
            r"sum of (the )?(unshifted|raw|original) exp",
            r"(shift\w*|subtract\w*) .{0,40}(in )?the numerator (only|but not)",
            r"exp\(-\s?max\)|e\^\(?-max",
            r"sum\w* .{0,20}exp\(x\)(?! ?-)",
        ),
        (
            r"log.?sum.?exp",
            r"global max",
            r"keepdims",
            r"(no|without|never) (subtract\w* )?(the )?max",
        ),
        edits=(
            (
                "total = np.sum(exps, axis=axis, keepdims=True)",
                "total = np.sum(np.exp(x), axis=axis, keepdims=True)",
            ),
        ),
    ),
    _c(
        "sm-shift-by-mean",
        L04,
        "softmax",
        "shifts each slice by its mean instead of its maximum: the result is unchanged "
        "where nothing overflows, but a slice whose entries span more than about 1400 "
        "overflows (inf / inf, NaN), and a slice holding a -inf entry has a -inf mean, "
        "so (the guard replacing it by 0) its finite entries are not shifted at all.",
        (r"\bmean\b|\baverage\b",),
        (
            r"\bmin(imum)?\b",
            r"global max",
            r"max\(0|clamp",
            r"keepdims",
        ),
        edits=(
            (
                "peak = np.max(x, axis=axis, keepdims=True)",
                "peak = np.mean(x, axis=axis, keepdims=True)",
            ),
        ),
    ),
    _c(
        "sm-divided-by-euclidean-norm",
        L04,
        "softmax",
        "normalises the exponentials by their Euclidean norm (np.linalg.norm) instead of "
        "their sum: each slice has length 1, not sum 1 (a one-hot slice comes out right).",
        (
            r"\bnorm\b|linalg",
            r"euclidean|l2\b",
            r"(length|norm) (of )?1\b.{0,40}(not|instead).{0,20}sum",
            r"squares? .{0,30}(sum|add up) to 1",
        ),
        (
            r"keepdims",
            r"global max",
            r"(no|without) (subtract\w* )?(the )?max",
            r"sum\w* over (the )?whole array",
        ),
        edits=(
            (
                "total = np.sum(exps, axis=axis, keepdims=True)",
                "total = np.linalg.norm(exps, axis=axis, keepdims=True)",
            ),
        ),
    ),
    # ------------------------------------------------------------ 04 attention_row
    _c(
        "ar-output-accumulated-in-values-row",
        L04,
        "attention_row",
        "accumulates the output in values[0] (output = values[0]; output *= weights[0]; "
        "then += the other rows): a slice of a numpy array is a view, so the caller's "
        "values array has its first row overwritten; the weights and output are right.",
        (
            r"values.{0,80}(changed|modified|overwrit\w+|in.?place|mutat\w+)",
            r"(changed|modified|overwr\w+|mutat\w+).{0,80}values",
            r"\bview\b",
        ),
        (
            r"query.{0,60}(changed|modified|in.?place)",
            r"keys.{0,60}(changed|modified|in.?place)",
        ),
        code="""
        def attention_row(query, keys, values):
            d_k = query.shape[-1]
            scores = keys @ query / math.sqrt(d_k)
            weights = softmax(scores)
            output = values[0]
            output *= weights[0]
            for j in range(1, len(weights)):
                output += weights[j] * values[j]
            return weights, output
        """,
        source=SLICE_IS_A_VIEW,
    ),
    _c(
        "ar-products-summed-over-keys",
        L04,
        "attention_row",
        "computes the scores as (keys * query).sum(axis=0), summing the elementwise "
        "products over the keys instead of over the features (axis=-1): one number per "
        "feature, shape (d_k,), instead of one per key, so the weights have d_k entries "
        "(and weights @ values fails unless d_k == len_k).",
        (
            r"scores?.{0,60}(sum\w*|summed) (over|along) (the )?(keys|wrong axis|first axis)",
            r"one score per feature|scores? .{0,40}(one|each) (per )?feature",
            r"scores?.{0,60}shape \(d_k,?\)|\(d_k,\).{0,40}instead of \(len_k,\)",
            r"(keys \* query|element.?wise products?).{0,60}(axis|sum\w*)",
        ),
        (
            r"query @ keys|contract\w* .{0,40}len_k",
            r"values @ weights",
            r"sqrt\(len_k\)|number of keys",
            r"output .{0,40}(sum\w*|summed) (over|along)",
        ),
        edits=(
            (
                "scores = keys @ query / math.sqrt(d_k)",
                "scores = (keys * query).sum(axis=0) / math.sqrt(d_k)",
            ),
        ),
    ),
    # ------------------------------------------------------------ 04 quizzes
    _c(
        "quiz-score-scale-number-of-words",
        L04,
        "quiz_score_scale",
        "answers (a), the number of words in the sentence (the popular explanation the "
        "lesson warns about), instead of (c): d_k is the width of each query and key "
        "vector, q.shape[-1], and does not change with the sentence's length.",
        (
            r"not the (number|count) of (words|tokens|keys)",
            r"(sentence|sequence) length",
            r"number of words",
            r"(does not|doesn't) (change|grow|depend) .{0,30}(length|words)",
        ),
        (
            r"d_model|width of the token vectors",
            r"(number of )?heads\b",
        ),
        edits=(('return "c"', 'return "a"'),),
    ),
    _c(
        "quiz-fully-masked-mask-ignored",
        L04,
        "quiz_fully_masked",
        "answers (c), the softmax of the row's scores as if there were no mask, instead "
        "of (b): the lesson gives a query with no allowed key all-zero weights, so it "
        "takes in nothing from keys it may not see.",
        (
            r"as if there were no mask",
            r"(mask|blocked keys?).{0,60}(ignored|not applied|still (get|attended))",
            r"(keys? it may not see|blocked keys?|padding).{0,60}(weight|attend)",
        ),
        (
            r"you (answered|chose) NaN|NaN,? so that",
            r"first key",
        ),
        edits=(('return "b"', 'return "c"'),),
        source=FULLY_MASKED_NOT_ZERO,
    ),
    _c(
        "quiz-cross-all-from-decoder",
        L04,
        "quiz_cross_attention_roles",
        "answers (a), queries, keys and values all from the decoder's own words (that is "
        "the decoder's self-attention), instead of (b): in cross-attention the keys and "
        "values come from the encoder's output.",
        (
            r"keys? and values? .{0,40}encoder",
            r"not (all )?from the decoder",
            r"(that is|that's|would be) (the decoder's )?self.?attention",
        ),
        (
            r"roles? (are )?(reversed|swapped)",
            r"queries (come )?from the encoder",
            r"values? from the decoder",
        ),
        edits=(('return "b"', 'return "a"'),),
        source=CROSS_KV_FROM_DECODER,
    ),
    # ------------------------------------------------------------ 04 scaled_dot_product_attention
    _c(
        "sdpa-scale-fourth-root",
        L04,
        "scaled_dot_product_attention",
        "takes the scale as 1 / sqrt(sqrt(d_k)), the factor split between q and k in "
        "implementations that scale both, but applies it once to the scores: they are "
        "divided by d_k ** 0.25 instead of sqrt(d_k) (right only for d_k = 1).",
        (
            r"sqrt\(sqrt|square root twice|twice .{0,20}square root",
            r"fourth root",
            r"d_k ?(\*\*|\^) ?\(?(0?\.25|1 ?/ ?4)",
            r"sqrt\(d_k\) ?(\*\*|\^) ?0?\.5",
        ),
        (
            r"d_v\b|value width",
            r"len_k|number of keys",
            r"multipl\w+ by sqrt",
            r"(not|never) (scaled|divided)|no scal\w+|without (the )?scal",
        ),
        code="""
        def scaled_dot_product_attention(q, k, v, mask=None):
            d_k = q.shape[-1]
            scale = 1.0 / math.sqrt(math.sqrt(d_k))
            scores = (q @ k.transpose(-2, -1)) * scale
            if mask is not None:
                scores = scores.masked_fill(~mask, float("-inf"))
            weights = torch.softmax(scores, dim=-1)
            if mask is not None:
                nothing_allowed = ~mask.any(dim=-1, keepdim=True)
                weights = weights.masked_fill(nothing_allowed, 0.0)
            return weights @ v, weights
        """,
        source=SQRT_TWICE,
    ),
    _c(
        "sdpa-d-k-whole-shape",
        L04,
        "scaled_dot_product_attention",
        "takes d_k = q.shape without the index [-1]: math.sqrt of a torch.Size raises "
        "TypeError, so every call fails.",
        (
            r"q\.shape\[-1\]|shape\[-1\]|size\(-1\)",
            r"torch\.Size.{0,60}(d_k|index|\[-1\])|d_k.{0,60}torch\.Size",
            r"(whole|entire) shape",
        ),
        (
            r"torch\.sqrt",
            r"sqrt\(len|len_k",
            r"d_v\b",
        ),
        edits=(("d_k = q.shape[-1]", "d_k = q.shape"),),
    ),
    _c(
        "sdpa-nan-rows-multiplied-by-zero",
        L04,
        "scaled_dot_product_attention",
        "zeroes the rows with no allowed key by multiplying the weights by "
        "mask.any(dim=-1, keepdim=True): NaN * 0 is NaN, so a fully masked query row "
        "keeps NaN weights (and a NaN output) instead of zeros.",
        (
            r"NaN ?(\*|×|times) ?(0|zero)|(0|zero) ?(\*|×|times) ?NaN",
            r"multipl\w+ .{0,60}(NaN|by (0|zero|the mask|a bool))",
            r"(masked_fill|torch\.where|nan_to_num).{0,60}(instead of|not|rather than) "
            r"multipl",
        ),
        (
            r"output (is )?computed (from the weights )?before",
            r"any\(\) without (dim|keepdim)",
            r"over the queries|dim ?= ?-2",
            r"-float\('-inf'\)|\+inf",
        ),
        code="""
        def scaled_dot_product_attention(q, k, v, mask=None):
            d_k = q.shape[-1]
            scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
            if mask is not None:
                scores = scores.masked_fill(~mask, float("-inf"))
            weights = torch.softmax(scores, dim=-1)
            if mask is not None:
                # rows with no allowed key: multiply their weights by 0
                weights = weights * mask.any(dim=-1, keepdim=True)
            return weights @ v, weights
        """,
        source=NAN_TIMES_ZERO,
    ),
    _c(
        "sdpa-mask-skipped-when-all-false",
        L04,
        "scaled_dot_product_attention",
        "guards the masking with `if mask is not None and mask.any():` (reading any() as "
        "'is anything masked'): a mask that blocks every key (all False, e.g. one all-"
        "padding sentence alone) is skipped, so those rows get the unmasked softmax "
        "instead of zeros; every mask with an allowed key somewhere is right.",
        (
            r"mask\.any\(\)",
            r"(all|every)[- ]?False mask.{0,80}(ignored|skipped|not applied|unmasked)",
            r"(skip\w*|ignor\w*) (the )?mask .{0,60}(when|if) (no key|nothing|every key|"
            r"all keys?) (is )?(allowed|blocked)",
            r"mask .{0,40}(blocks|blocking) every key.{0,80}(ignored|skipped|not applied|"
            r"as if)",
        ),
        (
            r"mask (is )?inverted|True ?= ?blocked|opposite convention",
            r"masked_fill.{0,40}(not assigned|discarded|result)",
            r"(fill\w*|set\w*) .{0,20}(blocked|masked) scores? (with|to) 0",
            r"never (repair|zero)\w*",
        ),
        code="""
        def scaled_dot_product_attention(q, k, v, mask=None):
            d_k = q.shape[-1]
            scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
            if mask is not None and mask.any():  # is anything masked?
                scores = scores.masked_fill(~mask, float("-inf"))
                weights = torch.softmax(scores, dim=-1)
                nothing_allowed = ~mask.any(dim=-1, keepdim=True)
                weights = weights.masked_fill(nothing_allowed, 0.0)
            else:
                weights = torch.softmax(scores, dim=-1)
            return weights @ v, weights
        """,
    ),
]
