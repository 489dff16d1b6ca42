"""Held-out wrong answers for lessons 03-04, blind round 11 (helper r11f, 2026-11-27).

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run. Twelve of the 24 transpose a mistake reported in a public issue thread (the URL read
for this benchmark) to the course's exercise; the others are the author's. Kinds favoured
this round: mistakes that show only on some inputs (an odd d_model, k other than 1, 4-D
inputs, axis other than -1, a square matrix, a batch of one), raw exceptions inside the
learner's code, wrong dtypes returned, in-place ops on the caller's input, a non-in-place
masked_fill whose result is dropped, a return tuple in the wrong order, and a sequence-first
table sliced by a batch-first input.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L03, L04 = "03_positional_encoding", "04_attention"

# The reports these cases transpose (each read with the search tool for this benchmark).
PE_INTEGER_DIVISION = "https://github.com/Kyubyong/transformer/pull/81"
PE_EXPONENT_PER_FEATURE = "https://github.com/shenweichen/DeepCTR/issues/379"
PE_ODD_D_MODEL = "https://github.com/gc-os-ai/pyaptamer/issues/607"
PE_CONCATENATED = "https://github.com/allenai/allennlp/issues/2993"
ROTATION_TRANSPOSED = "https://github.com/open-mmlab/OpenPCDet/issues/1654"
PE_PLAIN_ATTRIBUTE = "https://github.com/lyuwenyu/RT-DETR/issues/677"
PE_SEQUENCE_FIRST = "https://github.com/tanjimin/C.Origami/issues/42"
SOFTMAX_GLOBAL_MAX = "https://github.com/keras-team/keras/pull/9606"
MASKED_FILL_NO_OP = "https://github.com/facebookresearch/ParlAI/pull/3068"
TRANSPOSE_HARDCODED = "https://github.com/rasbt/LLMs-from-scratch/pull/521"
MASK_INVERTED = "https://github.com/lucidrains/halonet-pytorch/issues/4"
FULLY_MASKED_NAN = "https://github.com/robertknight/rten/pull/1321"

_c = held_out_authored("blind11f")

BLIND11F: list[Case] = [
    # ------------------------------------------------------------ 03 positional_encoding
    _c(
        "pe-exponent-floor-divided",
        L03,
        "positional_encoding",
        "divides the even indices by d_model with floor division (two_i // d_model), so "
        "every exponent is 0 and every pair gets frequency 1: all pairs repeat pair 0.",
        (
            r"//|floor|integer division",
            r"(every|all) (pairs?|frequenc|wavelength).{0,60}(same|1\b|one|pair 0)",
            r"exponent.{0,40}(0|zero)",
            r"frequenc.{0,40}(all|every).{0,20}1\b",
        ),
        (r"doubl", r"\(2i ?\+ ?1\)", r"interleav|block", r"position.{0,20}(start|from) 1"),
        edits=[("np.power(10000.0, two_i / d_model)", "np.power(10000.0, two_i // d_model)")],
        source=PE_INTEGER_DIVISION,
    ),
    _c(
        "pe-exponent-per-feature",
        L03,
        "positional_encoding",
        "computes one angle per feature with exponent 2j/d_model for feature j (not per "
        "pair), then takes sines of the even columns and cosines of the odd ones: feature "
        "2i uses exponent 4i/d_model and its cosine partner 2(2i+1)/d_model.",
        (
            r"per feature|each feature|every feature|feature index",
            r"2j|2 ?\* ?j|4i",
            r"(exponent|frequenc).{0,60}(doubl|twice)",
            r"(sine|cosine|pair).{0,60}(same|share).{0,30}(angle|exponent|frequenc)",
        ),
        (r"//|floor", r"interleav|block", r"position.{0,20}(start|from) 1"),
        code="""
        def positional_encoding(max_len, d_model):
            table = np.array(
                [[pos / np.power(10000, 2.0 * j / d_model) for j in range(d_model)]
                 for pos in range(max_len)]
            )
            table[:, 0::2] = np.sin(table[:, 0::2])
            table[:, 1::2] = np.cos(table[:, 1::2])
            return table
        """,
        source=PE_EXPONENT_PER_FEATURE,
    ),
    _c(
        "pe-odd-d-model-cosines",
        L03,
        "positional_encoding",
        "assigns the cosines of all ceil(d_model/2) angles to the d_model//2 odd columns: "
        "right for an even d_model, raises a broadcasting ValueError for an odd one.",
        (
            r"odd d_model",
            r"one (cosine|column) (fewer|too many|less)",
            r"d_model ?// ?2",
            r"last (angle|pair|feature).{0,40}(no|without) (a )?cos",
        ),
        (r"doubl", r"interleav|block", r"//.{0,20}exponent"),
        edits=[("np.cos(angles[:, : d_model // 2])", "np.cos(angles)")],
        source=PE_ODD_D_MODEL,
    ),
    _c(
        "pe-sines-then-cosines",
        L03,
        "positional_encoding",
        "concatenates all the sines then all the cosines (tensor2tensor's layout) instead "
        "of interleaving them: feature 2i+1 holds a sine of another pair, not pair i's cosine.",
        (
            r"interleav",
            r"concatenat",
            r"(all|block of) (the )?sines.{0,40}(then|followed|before).{0,30}cosines",
            r"sin.{0,10}block|tensor2tensor|first half",
        ),
        (r"doubl", r"//|floor", r"\(2i ?\+ ?1\)"),
        code="""
        def positional_encoding(max_len, d_model):
            positions = np.arange(max_len, dtype=np.float64)[:, None]
            two_i = np.arange(0, d_model, 2, dtype=np.float64)
            angles = positions / np.power(10000.0, two_i / d_model)
            return np.concatenate([np.sin(angles), np.cos(angles[:, : d_model // 2])], axis=1)
        """,
        source=PE_CONCATENATED,
    ),
    # ------------------------------------------------------------ 03 relative_shift
    _c(
        "rs-column-vector-rotation",
        L03,
        "relative_shift",
        "writes the textbook rotation for column vectors (minus sign on the lower-left sin), "
        "the transpose of the matrix for row vectors PE[pos] @ M: it shifts by -k instead of k.",
        (
            r"transpos",
            r"-k\b|by -?k.{0,20}(backward|opposite)|opposite direction|wrong direction",
            r"(sign|minus).{0,60}(sin|swapped|wrong entry|other)",
            r"column vector|M @ PE|row vector",
        ),
        (r"odd", r"\bk\b.{0,30}(missing|ignored|not used)", r"integer|int dtype"),
        edits=[
            ("m[two_i + 1, two_i] = np.sin(theta)", "m[two_i + 1, two_i] = -np.sin(theta)"),
            ("m[two_i, two_i + 1] = -np.sin(theta)", "m[two_i, two_i + 1] = np.sin(theta)"),
        ],
        source=ROTATION_TRANSPOSED,
    ),
    _c(
        "rs-odd-index-error",
        L03,
        "relative_shift",
        "never checks d_model's parity: for an odd d_model the index two_i + 1 runs past the "
        "matrix and numpy raises IndexError instead of the ValueError the exercise asks for.",
        (
            r"ValueError",
            r"odd d_model.{0,80}(raise|check|error)",
            r"(raise|check).{0,60}odd",
            r"parity|d_model % 2",
        ),
        (r"transpos", r"-k\b", r"integer|int dtype"),
        edits=[
            (
                'raise ValueError(f"relative_shift needs an even d_model, got {d_model}")',
                "pass",
            )
        ],
    ),
    _c(
        "rs-angle-without-k",
        L03,
        "relative_shift",
        "leaves k out of the angle (theta = w_i instead of w_i * k): the matrix always "
        "shifts by one position, right for k = 1 only.",
        (
            r"\bk\b.{0,40}(missing|ignored|not used|left out|never)",
            r"(always|every k).{0,40}(one|1) (position|step)",
            r"(shift|rotat)\w* by (one|1)\b",
            r"w_i ?\* ?k|ω_?i ?\* ?k|times k|multipl\w* by k",
        ),
        (r"transpos", r"odd", r"integer|int dtype"),
        edits=[
            (
                "theta = k / np.power(10000.0, two_i / d_model)",
                "theta = 1 / np.power(10000.0, two_i / d_model)",
            )
        ],
    ),
    _c(
        "rs-integer-matrix",
        L03,
        "relative_shift",
        "allocates the matrix as integers (np.zeros(..., dtype=int)), so every sine and "
        "cosine written into it is truncated towards 0: only k = 0 (the identity) comes out "
        "right.",
        (
            r"integer|int(32|64)?\b.{0,30}(dtype|matrix|array)|dtype=int",
            r"truncat",
            r"(float|dtype).{0,60}(int)",
        ),
        (r"transpos", r"odd", r"\bk\b.{0,30}(missing|ignored)"),
        edits=[("m = np.zeros((d_model, d_model))", "m = np.zeros((d_model, d_model), dtype=int)")],
    ),
    # ------------------------------------------------------------ 03 PositionalEncoding
    _c(
        "PE-plain-attribute",
        L03,
        "PositionalEncoding",
        "keeps the table as a plain attribute (self.pe = table) instead of a registered "
        "buffer: .to(), .half() and state_dict() leave it behind.",
        (r"register_buffer", r"buffer", r"plain attribute", r"state_dict|\.to\("),
        (r"dropout", r"in place", r"float64|dtype of x", r"batch axis|sequence-first"),
        edits=[('self.register_buffer("pe", table.unsqueeze(0))', "self.pe = table.unsqueeze(0)")],
        source=PE_PLAIN_ATTRIBUTE,
    ),
    _c(
        "PE-sequence-first-table",
        L03,
        "PositionalEncoding",
        "stores the table sequence-first, (max_len, 1, d_model), and slices it with "
        "x.size(0), which is the batch size of a batch-first x: sequence b of the batch gets "
        "position b's vector on every token (a batch of one gets PE[0] everywhere).",
        (
            r"x\.size\(0\)|x\.shape\[0\]",
            r"batch (axis|size|index).{0,80}(position|len)",
            r"(max_len, 1, d_model)|sequence-first|\(len, batch",
            r"(same|one) (position|vector|row).{0,40}(every|all) (token|position)",
        ),
        (r"buffer", r"dropout", r"in place", r"float64"),
        code="""
        class PositionalEncoding(nn.Module):
            def __init__(self, d_model, max_len=5000, dropout=0.1):
                super().__init__()
                self.dropout = nn.Dropout(dropout)
                table = torch.tensor(positional_encoding(max_len, d_model), dtype=torch.float32)
                self.register_buffer("pe", table.unsqueeze(1))  # (max_len, 1, d_model)

            def forward(self, x):
                return self.dropout(x + self.pe[: x.size(0)])
        """,
        source=PE_SEQUENCE_FIRST,
    ),
    _c(
        "PE-float64-buffer",
        L03,
        "PositionalEncoding",
        "converts the numpy table without a dtype, so the buffer is float64 and x + pe is "
        "promoted to float64: the output is not in x's dtype (float32 in, float64 out).",
        (r"float64|double", r"dtype.{0,60}(x|input)|x's dtype", r"promot"),
        (r"buffer.{0,30}(not|instead)|plain attribute", r"dropout", r"in place"),
        edits=[
            (
                "torch.tensor(positional_encoding(max_len, d_model), dtype=torch.float32)",
                "torch.tensor(positional_encoding(max_len, d_model))",
            )
        ],
    ),
    _c(
        "PE-adds-in-place",
        L03,
        "PositionalEncoding",
        "adds the table into x in place (x += ...) before the dropout: the output is right "
        "but the caller's embeddings are overwritten.",
        (r"in[- ]place|\+=", r"(modif|overwr|chang)\w*.{0,40}(x|input|embeddings)"),
        (r"buffer", r"dropout.{0,30}(before|wrong)", r"float64"),
        edits=[
            (
                "return self.dropout(x + self.pe[:, :length])",
                "x += self.pe[:, :length]\n        return self.dropout(x)",
            )
        ],
    ),
    # ------------------------------------------------------------ 04 softmax
    _c(
        "sm-global-max",
        L04,
        "softmax",
        "subtracts the maximum of the whole array (np.max(x)) instead of each slice's: a "
        "slice whose entries all lie far below the global maximum underflows to zeros.",
        (
            r"(whole|entire) array|global max|np\.max\(x\)",
            r"(each|per|every) (slice|row)'?s? (max|maximum)",
            r"underflow",
            r"keepdims|axis=axis",
        ),
        (r"in place|modif", r"axis.{0,30}(ignored|-1)", r"NaN.{0,40}-inf"),
        edits=[("peak = np.max(x, axis=axis, keepdims=True)", "peak = np.max(x)")],
        source=SOFTMAX_GLOBAL_MAX,
    ),
    _c(
        "sm-axis-ignored",
        L04,
        "softmax",
        "hard-codes axis=-1 in the max and the sum, ignoring its axis argument: right for "
        "the default, wrong for softmax(x, axis=0).",
        (
            r"axis.{0,60}(ignor|hard-?cod|always -1|not used)",
            r"(ignor|hard-?cod).{0,40}axis",
            r"(last|-1) axis.{0,60}instead of",
        ),
        (r"global max|whole array", r"in place|modif", r"keepdims"),
        edits=[
            (
                "peak = np.max(x, axis=axis, keepdims=True)",
                "peak = np.max(x, axis=-1, keepdims=True)",
            ),
            (
                "total = np.sum(exps, axis=axis, keepdims=True)",
                "total = np.sum(exps, axis=-1, keepdims=True)",
            ),
        ],
    ),
    _c(
        "sm-shifts-input-in-place",
        L04,
        "softmax",
        "subtracts the maxima from x in place (x -= peak): the weights are right but the "
        "caller's array is changed.",
        (r"in[- ]place|-=", r"(modif|overwr|chang)\w*.{0,40}(x|input|array|argument)"),
        (r"global max|whole array", r"axis.{0,30}(ignored|-1)", r"keepdims"),
        edits=[("exps = np.exp(x - peak)", "x -= peak\n    exps = np.exp(x)")],
    ),
    _c(
        "sm-sum-without-keepdims",
        L04,
        "softmax",
        "sums without keepdims: the sums are lined up with the last axis, so "
        "along axis -1 of a square matrix each column is divided by another row's sum "
        "(a non-square one raises), while 1-D inputs and axis=0 come out right.",
        (
            r"keepdims",
            r"(sum|total).{0,60}(wrong axis|line[sd]? up|broadcast)",
            r"(column|entry) j.{0,60}row j|transpos\w* sum",
        ),
        (r"global max|whole array", r"in place|modif", r"axis.{0,30}(ignored|hard)"),
        edits=[
            (
                "total = np.sum(exps, axis=axis, keepdims=True)",
                "total = np.sum(exps, axis=axis)",
            ),
        ],
    ),
    # ------------------------------------------------------------ 04 attention_row
    _c(
        "ar-scaled-by-len-k",
        L04,
        "attention_row",
        "takes d_k as the number of keys (keys.shape[0], 'the number of words') instead of "
        "the query's length: the scores are divided by sqrt(len_k).",
        (
            r"len_k|number of (keys|words)",
            r"keys\.shape\[0\]",
            r"sqrt\(len",
        ),
        (r"swap|order|\(output, weights\)", r"scores.{0,30}(instead|in place) of (the )?weights"),
        edits=[("d_k = query.shape[-1]", "d_k = keys.shape[0]")],
    ),
    _c(
        "ar-returns-output-first",
        L04,
        "attention_row",
        "returns (output, weights) instead of (weights, output): both are right, in the "
        "wrong order.",
        (
            r"(order|swap)",
            r"\(output, weights\)",
            r"weights (first|then)",
        ),
        (r"sqrt|scal", r"softmax.{0,30}(missing|not)"),
        edits=[("return weights, output", "return output, weights")],
    ),
    _c(
        "ar-output-from-scores",
        L04,
        "attention_row",
        "mixes the values with the raw scaled scores (scores @ values) instead of the "
        "softmax weights: the weights returned are right, the output is not.",
        (
            r"scores.{0,60}(instead of|not|rather than).{0,20}weights",
            r"(before|without) (the )?softmax",
            r"raw scores",
            r"unnormali[sz]ed",
        ),
        (r"order|swap", r"sqrt\(len|number of keys"),
        edits=[("output = weights @ values", "output = scores @ values")],
    ),
    # ------------------------------------------------------------ 04 scaled_dot_product_attention
    _c(
        "sdpa-masked-fill-discarded",
        L04,
        "scaled_dot_product_attention",
        "calls scores.masked_fill(~mask, -inf) without assigning the result (it is not "
        "in place), so the mask is ignored: only fully masked rows, zeroed afterwards, "
        "come out right.",
        (
            r"masked_fill_|not in[- ]place|out-of-place",
            r"(result|return value).{0,40}(discard|dropped|not (assign|used|kept))",
            r"mask.{0,40}(ignored|no effect|not applied|never applied)",
            r"scores ?= ?scores\.masked_fill",
        ),
        (r"invert|opposite|True ?= ?blocked", r"transpos", r"softmax.{0,30}(dim|axis)"),
        edits=[
            (
                'scores = scores.masked_fill(~mask, float("-inf"))',
                'scores.masked_fill(~mask, float("-inf"))',
            )
        ],
        source=MASKED_FILL_NO_OP,
    ),
    _c(
        "sdpa-transpose-1-2",
        L04,
        "scaled_dot_product_attention",
        "transposes k with transpose(1, 2): right for a 3-D batch, an IndexError for one "
        "2-D sentence, and the heads and key axes swapped for the 4-D multi-head layout "
        "(a shape error, or heads mixed when the sizes happen to match).",
        (
            r"transpose\(1, ?2\)",
            r"last two (dims|axes|dimensions)",
            r"transpose\(-2, ?-1\)",
            r"(2-D|4-D|number of (batch )?dims)",
        ),
        (r"softmax.{0,30}(dim|axis)", r"mask", r"sqrt"),
        edits=[("k.transpose(-2, -1)", "k.transpose(1, 2)")],
        source=TRANSPOSE_HARDCODED,
    ),
    _c(
        "sdpa-mask-true-blocks",
        L04,
        "scaled_dot_product_attention",
        "reads the mask with the opposite convention, True = blocked (nn.MultiheadAttention's), "
        "consistently: it fills where the mask is True and zeroes the rows whose keys are all True.",
        (
            r"invert|opposite|revers|flipped",
            r"True ?= ?blocked|True.{0,30}(block|forbid)",
            r"~mask|convention",
        ),
        (r"masked_fill_|not in[- ]place", r"transpos", r"softmax.{0,30}(dim|axis)"),
        edits=[
            (
                'scores = scores.masked_fill(~mask, float("-inf"))',
                'scores = scores.masked_fill(mask, float("-inf"))',
            ),
            (
                "nothing_allowed = ~mask.any(dim=-1, keepdim=True)",
                "nothing_allowed = mask.all(dim=-1, keepdim=True)",
            ),
        ],
        source=MASK_INVERTED,
    ),
    _c(
        "sdpa-fully-masked-nan",
        L04,
        "scaled_dot_product_attention",
        "never repairs the rows with no allowed key: their softmax of all -inf stays NaN "
        "(only with a fully masked query, e.g. an all-padding sequence).",
        (
            r"fully masked|no allowed key|nothing to attend|all[- ]padding",
            r"NaN.{0,60}(row|query)",
            r"zero weights",
        ),
        (r"invert|opposite", r"transpos", r"masked_fill_|not in[- ]place"),
        edits=[("weights = weights.masked_fill(nothing_allowed, 0.0)", "pass")],
        source=FULLY_MASKED_NAN,
    ),
    _c(
        "sdpa-softmax-dim-1",
        L04,
        "scaled_dot_product_attention",
        "takes the softmax over dim=1: the keys for one 2-D sentence, but the queries for a "
        "3-D batch and the heads for the 4-D layout.",
        (
            r"dim ?= ?1",
            r"softmax.{0,60}(wrong (dim|axis)|over the (queries|heads))",
            r"dim ?= ?-1",
            r"(queries|heads) (axis|dim)",
        ),
        (r"transpos", r"mask", r"sqrt"),
        edits=[("torch.softmax(scores, dim=-1)", "torch.softmax(scores, dim=1)")],
    ),
]
