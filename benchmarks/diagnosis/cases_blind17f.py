"""Held-out wrong answers for lessons 03-04, blind round 17 (helper b17f, 2026-11-28):
mistakes new to the benchmark, written against the checks after round 19's fixes, to
measure how the diagnoses generalise to mistakes nobody here has seen (``held_out_authored``
in ``cases.py`` makes each case). Written blind, from the reference solutions alone; all
the author's (no public report was read in the time given).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L03, L04 = "03_positional_encoding", "04_attention"

_c = held_out_authored("blind17f")

_PE_ANGLES = "angles = positions / np.power(10000.0, two_i / d_model)"
_PE_COS = "pe[:, 1::2] = np.cos(angles[:, : d_model // 2])"
_RS_THETA = "theta = k / np.power(10000.0, two_i / d_model)"
_SM_PEAK = "peak = np.max(x, axis=axis, keepdims=True)"
_AR_SCORES = "scores = keys @ query / math.sqrt(d_k)"
_SD_SCORES = "scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)"

BLIND17F: list[Case] = [
    # ------------------------------------------------------------ 03 positional_encoding
    _c(
        "pe-positions-start-at-one",
        L03,
        "positional_encoding",
        "numbers the positions 1..max_len (np.arange(1, max_len + 1)) instead of 0..max_len-1, "
        "so every row is the paper's next row and row 0 is not sin 0 / cos 0.",
        (
            r"(start|begin)s? at (1|one)",
            r"off by one",
            r"shifted (down )?by one (row|position)",
            r"row 0.{0,60}(pos(ition)? 1|should be|sin\(0\)|\[0, 1)",
            r"arange\(1",
        ),
        (r"sin and cos (are )?swapped", r"exponent", r"10000"),
        edits=(
            (
                "positions = np.arange(max_len, dtype=np.float64)[:, None]",
                "positions = np.arange(1, max_len + 1, dtype=np.float64)[:, None]",
            ),
        ),
    ),
    _c(
        "pe-exponent-uses-pair-index",
        L03,
        "positional_encoding",
        "divides by 10000^(i / d_model) with i the pair index (0, 1, 2, ...) instead of "
        "10000^(2i / d_model): the frequencies fall half as fast as the paper's.",
        (
            r"2i",
            r"pair index.{0,60}(instead of|not|rather than)",
            r"(half|twice).{0,40}(fast|slow|frequenc|wavelength)",
        ),
        (r"(start|begin)s? at (1|one)", r"sin and cos (are )?swapped", r"interleav"),
        edits=((_PE_ANGLES, "angles = positions / np.power(10000.0, (two_i / 2) / d_model)"),),
    ),
    _c(
        "pe-odd-dmodel-cos-overflows",
        L03,
        "positional_encoding",
        "fills the cosines with every angle (np.cos(angles)) without dropping the last one, "
        "which raises a broadcast ValueError when d_model is odd (one cosine column fewer).",
        (
            r"odd d_model",
            r"d_model.{0,20}odd",
            r"(one|1) cosine (column )?fewer",
        ),
        (r"2i", r"(start|begin)s? at (1|one)", r"sin and cos (are )?swapped"),
        edits=((_PE_COS, "pe[:, 1::2] = np.cos(angles)"),),
    ),
    _c(
        "pe-concatenated-halves",
        L03,
        "positional_encoding",
        "puts all the sines in the first half of the features and all the cosines in the "
        "second half (np.concatenate) instead of interleaving them at even and odd features.",
        (
            r"interleav",
            r"(first|second) half",
            r"concatenat",
            r"even (and|/) odd (features|columns|indices)",
        ),
        (r"2i\b.{0,30}instead", r"(start|begin)s? at (1|one)"),
        edits=(
            (
                "pe[:, 0::2] = np.sin(angles)",
                "half = angles.shape[1]\n    pe[:, :half] = np.sin(angles)",
            ),
            (_PE_COS, "pe[:, half:] = np.cos(angles[:, : d_model // 2])"),
        ),
    ),
    _c(
        "pe-returns-torch-tensor",
        L03,
        "positional_encoding",
        "returns a torch tensor (torch.from_numpy(pe).float()) where a numpy array is asked for.",
        (
            r"torch\.?Tensor.{0,80}(numpy|np\.ndarray)",
            r"(numpy|np\.ndarray).{0,60}(not|instead of).{0,20}(torch|Tensor)",
        ),
        (r"2i", r"(start|begin)s? at (1|one)", r"interleav"),
        edits=(("    return pe\n", "    return torch.from_numpy(pe).float()\n"),),
    ),
    _c(
        "rs-negative-k-abs",
        L03,
        "relative_shift",
        "takes abs(k) for the angle, so a negative k shifts forwards instead of backwards.",
        (
            r"negative k",
            r"k\s*(=|<)\s*-",
            r"abs(olute)?\(?k",
            r"(sign|direction) of k",
        ),
        (r"transpos", r"odd d_model", r"2i"),
        edits=((_RS_THETA, "theta = abs(k) / np.power(10000.0, two_i / d_model)"),),
    ),
    _c(
        "rs-odd-dmodel-not-raised",
        L03,
        "relative_shift",
        "never raises for an odd d_model: it builds a matrix anyway (the last row and column "
        "index past the pairs and raise IndexError, or an incomplete block) instead of the "
        "asked ValueError.",
        (
            r"odd d_model.{0,80}ValueError",
            r"ValueError.{0,80}odd",
            r"(should|must) raise.{0,40}odd",
        ),
        (r"transpos", r"negative k"),
        edits=(
            (
                '        raise ValueError(f"relative_shift needs an even d_model, got {d_model}")\n',
                "        pass\n",
            ),
        ),
    ),
    _c(
        "rs-degrees",
        L03,
        "relative_shift",
        "converts the angle to degrees (np.degrees(theta)) before taking cos and sin, so "
        "every block rotates by the wrong angle.",
        (r"degree", r"radian"),
        (r"transpos", r"negative k", r"sin.{0,20}(sign|swapped)"),
        edits=((_RS_THETA, f"theta = np.degrees({_RS_THETA.split(' = ')[1]})"),),
    ),
    _c(
        "pem-forward-adds-full-table",
        L03,
        "PositionalEncoding",
        "adds self.pe[:, : x.shape[0]] (slices by the batch size instead of the length), which "
        "is right only when batch size equals length and breaks on a batch of one.",
        (
            r"(batch|x\.shape\[0\]).{0,60}(instead of|not).{0,30}(length|len|shape\[1\])",
            r"slic\w+ (by|with) the batch",
            r"shape\[0\]",
        ),
        (r"register_buffer", r"dropout.{0,30}(before|not applied|missing)", r"float32 buffer"),
        edits=(("length = x.shape[1]", "length = x.shape[0]"),),
    ),
    _c(
        "pem-scales-by-sqrt-dmodel",
        L03,
        "PositionalEncoding",
        "multiplies x by sqrt(d_model) inside forward before adding the table (the "
        "embedding's scaling, which belongs to the Embedding layer, not here).",
        (r"sqrt\(d_model\)", r"scal\w+ (x|the input|the embeddings?)", r"multipl\w+ x"),
        (r"register_buffer", r"slic", r"dropout.{0,30}(before|missing|not applied)"),
        edits=(
            (
                "return self.dropout(x + self.pe[:, :length])",
                "return self.dropout(x * x.shape[-1] ** 0.5 + self.pe[:, :length])",
            ),
        ),
    ),
    _c(
        "pem-buffer-float64",
        L03,
        "PositionalEncoding",
        "keeps the table in float64 (torch.from_numpy without dtype), so a float32 input "
        "comes back float64 instead of in x's dtype.",
        (
            r"float64.{0,80}(buffer|table|pe|result|output)",
            r"(x's|input's|the input) dtype",
            r"dtype.{0,40}(float64|double)",
        ),
        (r"register_buffer.{0,30}(missing|not)", r"slic", r"dropout.{0,30}(before|missing)"),
        edits=(
            (
                "table = torch.tensor(positional_encoding(max_len, d_model), dtype=torch.float32)",
                "table = torch.from_numpy(positional_encoding(max_len, d_model))",
            ),
        ),
    ),
    # ------------------------------------------------------------------ 04 attention
    _c(
        "sm-max-over-whole-array",
        L04,
        "softmax",
        "subtracts the maximum of the whole array (np.max(x)) instead of each slice's, so a "
        "slice far below the global peak underflows to zeros (and all -inf input gives NaN).",
        (
            r"(whole|entire) array",
            r"(each|per) slice",
            r"axis.{0,40}(max|peak)",
            r"(max|peak).{0,40}axis",
        ),
        (r"-inf.{0,30}(weight|zero)", r"sum.{0,20}(wrong )?axis"),
        edits=((_SM_PEAK, "peak = np.max(x)"),),
    ),
    _c(
        "sm-modifies-input-inplace",
        L04,
        "softmax",
        "subtracts the peak in place (x -= peak), which modifies the caller's array.",
        (
            r"modif\w+.{0,40}(input|x|array)",
            r"in[- ]place",
            r"(input|x).{0,40}(changed|modified|overwritten)",
        ),
        (r"(whole|entire) array", r"NaN"),
        edits=(("exps = np.exp(x - peak)", "x -= peak\n    exps = np.exp(x)"),),
    ),
    _c(
        "sm-sum-keepdims-false",
        L04,
        "softmax",
        "sums without keepdims=True, so dividing by the total broadcasts wrongly for axis=0 on "
        "a 2-D input (or any axis other than the last).",
        (
            r"keepdims",
            r"axis\s*=\s*0.{0,60}(wrong|broadcast|differ)",
            r"non-default axis",
            r"other (than the last )?axis",
        ),
        (r"-inf", r"NaN", r"in[- ]place"),
        edits=(
            (
                "total = np.sum(exps, axis=axis, keepdims=True)",
                "total = np.expand_dims(np.sum(exps, axis=axis), -1)",
            ),
        ),
    ),
    _c(
        "ar-scales-by-len-k",
        L04,
        "attention_row",
        "divides the scores by sqrt(len_k) (keys.shape[0]) instead of sqrt(d_k); right only "
        "when the sentence length equals d_k.",
        (
            r"len_k",
            r"keys\.shape\[0\]",
            r"(number of|count of) keys",
            r"sqrt\(d_k\).{0,40}(not|instead)",
        ),
        (r"transpos", r"values.{0,30}(instead|wrong)"),
        edits=(("d_k = query.shape[-1]", "d_k = keys.shape[0]"),),
    ),
    _c(
        "ar-output-sums-weights-times-keys",
        L04,
        "attention_row",
        "takes the weighted sum of the keys (weights @ keys) instead of the values: the "
        "output has d_k features and ignores the values.",
        (
            r"keys.{0,40}instead of.{0,20}values",
            r"weights @ keys",
            r"sum of the keys",
            r"values.{0,40}(ignored|never used|not used)",
        ),
        (r"sqrt", r"softmax.{0,30}(axis|missing)"),
        edits=(("output = weights @ values", "output = weights @ keys"),),
    ),
    _c(
        "ar-returns-swapped",
        L04,
        "attention_row",
        "returns (output, weights) instead of (weights, output).",
        (r"swapped", r"(order|other way round)", r"\(weights, output\)"),
        (r"sqrt", r"keys.{0,30}instead of.{0,20}values"),
        edits=(("    return weights, output\n", "    return output, weights\n"),),
    ),
    _c(
        "sdpa-mask-not-negated",
        L04,
        "scaled_dot_product_attention",
        "fills -inf where the mask is True (masked_fill(mask, ...)) instead of where it is "
        "False: the allowed keys are blocked and the blocked ones kept.",
        (
            r"(invert|inverted|negat|opposite|reversed|the other way)",
            r"True.{0,40}(block|fill)",
            r"~mask",
        ),
        (r"sqrt\(d_k\)", r"dim\s*=\s*-2", r"transpos\w* (of k )?(missing|wrong)"),
        edits=(
            (
                'scores = scores.masked_fill(~mask, float("-inf"))',
                'scores = scores.masked_fill(mask, float("-inf"))',
            ),
        ),
    ),
    _c(
        "sdpa-view-instead-of-transpose",
        L04,
        "scaled_dot_product_attention",
        "reshapes k with k.view(..., d_k, len_k) instead of transposing it, which scrambles "
        "the keys' features whenever len_k > 1 and d_k > 1.",
        (r"\bview\b", r"reshape", r"transpos\w*.{0,40}(not|instead)", r"scrambl"),
        (r"sqrt\(d_k\)", r"(invert|negat)\w* (the )?mask", r"softmax.{0,30}dim"),
        edits=(
            (
                _SD_SCORES,
                "scores = q @ k.reshape(*k.shape[:-2], k.shape[-1], k.shape[-2]) / math.sqrt(d_k)",
            ),
        ),
    ),
    _c(
        "sdpa-d-k-from-len-q",
        L04,
        "scaled_dot_product_attention",
        "takes d_k as q.shape[-2] (len_q) instead of q.shape[-1]: right only when len_q == d_k.",
        (r"len_q", r"shape\[-2\]", r"sqrt\(d_k\).{0,40}(not|instead)", r"wrong scal"),
        (r"(invert|negat)\w* (the )?mask", r"transpos"),
        edits=(("d_k = q.shape[-1]", "d_k = q.shape[-2]"),),
    ),
    _c(
        "sdpa-fully-masked-nan-plus-squeeze",
        L04,
        "scaled_dot_product_attention",
        "drops the zeroing of rows with no allowed key (so an all-padding sequence yields NaN "
        "weights and output) and also squeezes the output (output.squeeze()), losing a batch "
        "of one's leading dim.",
        (r"NaN", r"(no allowed key|fully masked|all[- ]padding|every key (is )?blocked)"),
        (r"sqrt\(d_k\)", r"transpos", r"(invert|negat)\w* (the )?mask"),
        edits=(
            ("if nothing_allowed.any():", "if False:"),
            ("output = weights @ v", "output = (weights @ v).squeeze()"),
        ),
    ),
]
