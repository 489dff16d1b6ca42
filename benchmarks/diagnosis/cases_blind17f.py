"""Held-out wrong answers for lessons 03-04, blind round 17 (helper b17f, 2026-11-28):
mistakes new to the benchmark, written against the checks after round 19's fixes, to
measure how the diagnoses generalise to mistakes nobody here has seen (``held_out_authored``
in ``cases.py`` makes each case). Written blind, from the reference solutions alone; all
the author's (no public report was read in the time given). A first commit held 21 cases written before the novelty pass; 16 of them repeated earlier cases and were replaced here, still before any run.
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
    _c(
        "pe-exponent-over-d-model-minus-one",
        L03,
        "positional_encoding",
        "divides the even indices by d_model - 1 in the exponent (10000^(2i / (d_model - 1))), "
        "as if normalising by the last feature index: every frequency but the first is slightly off.",
        (
            r"d_model\s*-\s*1",
            r"d_model minus one",
            r"last (feature )?index.{0,40}(instead of|not) d_model",
        ),
        (r"(start|begin)s? at (1|one)", r"sin and cos (are )?swapped", r"interleav", r"max_len"),
        edits=((_PE_ANGLES, "angles = positions / np.power(10000.0, two_i / (d_model - 1))"),),
    ),
    _c(
        "pe-one-row-short",
        L03,
        "positional_encoding",
        "builds the table for max_len - 1 positions (np.arange(max_len - 1)), one row short: "
        "the returned shape is (max_len - 1, d_model) (a raw broadcast error in the zeros' "
        "assignment is avoided by sizing the zeros the same way).",
        (
            r"max_len\s*-\s*1",
            r"one (row|position) (short|fewer|missing)",
            r"last (row|position) (is )?missing",
            r"rows?.{0,40}(expected|should be).{0,20}max_len",
        ),
        (r"transpos", r"d_model.{0,20}(odd|swapped)", r"interleav"),
        edits=(
            (
                "positions = np.arange(max_len, dtype=np.float64)[:, None]",
                "positions = np.arange(max_len - 1, dtype=np.float64)[:, None]",
            ),
            ("pe = np.zeros((max_len, d_model))", "pe = np.zeros((max_len - 1, d_model))"),
        ),
    ),
    _c(
        "pe-odd-cosines-drop-first-angle",
        L03,
        "positional_encoding",
        "for the cosines keeps the last d_model // 2 angles (angles[:, -(d_model // 2):]) "
        "instead of the first: the same for an even d_model, but for an odd d_model every "
        "cosine takes the next pair's angle.",
        (
            r"odd d_model.{0,120}(cos|angle|pair)",
            r"(cos|cosine)\w*.{0,80}(next pair|wrong angle|first angle|shifted)",
            r"drops? the first angle",
        ),
        (r"(start|begin)s? at (1|one)", r"sin and cos (are )?swapped", r"2i\b.{0,20}instead"),
        edits=((_PE_COS, "pe[:, 1::2] = np.cos(angles[:, -(d_model // 2) :])"),),
    ),
    _c(
        "rs-loop-over-half-the-pairs",
        L03,
        "relative_shift",
        "takes the pair starts as 2 * np.arange(0, d_model // 2, 2), stepping by 2 over the "
        "pair count and doubling again: only every other pair gets its block (the rest stays zero).",
        (
            r"(pairs?|blocks?).{0,60}(missing|zero|not (written|filled|set)|left (at )?(0|zero))",
            r"(zero|empty) (2x2 )?blocks?",
            r"every other pair",
        ),
        (r"transpos", r"negative k", r"odd d_model", r"sin.{0,20}swapped"),
        edits=(
            (
                "    two_i = np.arange(0, d_model, 2)  # (d_model / 2,)\n",
                "    two_i = 2 * np.arange(0, d_model // 2, 2)\n",
            ),
        ),
    ),
    _c(
        "rs-parity-test-inverted",
        L03,
        "relative_shift",
        "inverts the parity test (if d_model % 2 == 0: raise): every even d_model raises "
        "ValueError and an odd one is not rejected.",
        (
            r"even d_model.{0,60}(rais|reject|ValueError)",
            r"(parity|condition|test).{0,40}(inverted|reversed|the other way)",
            r"rejects? (an |every )?even",
        ),
        (r"transpos", r"negative k", r"sin.{0,20}swapped"),
        edits=(("if d_model % 2:", "if d_model % 2 == 0:"),),
    ),
    _c(
        "rs-lower-cosine-is-sine",
        L03,
        "relative_shift",
        "writes the sine in the block's lower-right entry (m[2i+1, 2i+1] = np.sin(theta), a "
        "copy-paste of the line above) instead of the cosine.",
        (
            r"(lower[- ]right|second diagonal|\[2i\s*\+\s*1, 2i\s*\+\s*1\]).{0,60}(sin|cos)",
            r"(cos|cosine).{0,40}(replaced by|instead).{0,20}sin",
            r"sin\w*.{0,40}(instead of|in place of).{0,20}cos",
        ),
        (r"transpos", r"negative k", r"odd d_model", r"minus sign"),
        edits=(
            (
                "m[two_i + 1, two_i + 1] = np.cos(theta)",
                "m[two_i + 1, two_i + 1] = np.sin(theta)",
            ),
        ),
    ),
    _c(
        "pem-dropout-only-in-eval",
        L03,
        "PositionalEncoding",
        "applies dropout under `if not self.training:` (the condition inverted): dropout acts "
        "in eval mode and never in training mode.",
        (
            r"(eval|evaluation)( mode)?.{0,60}(dropout|random|differ|not deterministic)",
            r"dropout.{0,60}(in|during) eval",
            r"(condition|training).{0,40}(inverted|reversed|the other way)",
        ),
        (r"register_buffer", r"slic", r"sqrt\(d_model\)", r"float64"),
        edits=(
            (
                "return self.dropout(x + self.pe[:, :length])",
                "out = x + self.pe[:, :length]\n        if not self.training:\n"
                "            out = self.dropout(out)\n        return out",
            ),
        ),
    ),
    _c(
        "pem-length-check-removed",
        L03,
        "PositionalEncoding",
        "drops the length check, so a sequence longer than max_len fails with a raw shape "
        "error in the addition instead of the asked ValueError.",
        (
            r"longer than max_len",
            r"(exceed|past|beyond|more than) max_len",
            r"max_len.{0,60}ValueError",
            r"ValueError.{0,80}max_len",
        ),
        (r"register_buffer", r"sqrt\(d_model\)", r"dropout.{0,30}(before|missing|twice)"),
        edits=(
            (
                "        if length > self.pe.shape[1]:\n"
                '            raise ValueError(f"sequence length {length} exceeds max_len={self.pe.shape[1]}")\n',
                "",
            ),
        ),
    ),
    _c(
        "pem-slices-the-batch-axis",
        L03,
        "PositionalEncoding",
        "slices the (1, max_len, d_model) buffer on its first axis (self.pe[:length]) instead "
        "of the positions axis, so the whole max_len table is added (a shape error unless "
        "length == max_len).",
        (
            r"(first|batch|leading) axis",
            r"pe\[:\s*length\]",
            r"whole (max_len )?table",
            r"(all|every) max_len (rows|positions)",
        ),
        (r"register_buffer", r"sqrt\(d_model\)", r"dropout.{0,30}(before|missing|twice)"),
        edits=(("self.pe[:, :length])", "self.pe[:length])"),),
    ),
    _c(
        "sm-weights-rounded",
        L04,
        "softmax",
        "rounds the weights to three decimals (np.round(..., 3)) to print them tidily: the "
        "slices no longer add up to 1 exactly and small weights become 0.",
        (r"round", r"decimals?"),
        (r"keepdims", r"in[- ]place", r"(whole|entire) array", r"NaN"),
        edits=(
            (
                "return np.divide(exps, total, out=np.zeros_like(exps), where=total > 0)",
                "return np.round(np.divide(exps, total, out=np.zeros_like(exps), where=total > 0), 3)",
            ),
        ),
    ),
    _c(
        "sm-result-squeezed",
        L04,
        "softmax",
        "squeezes its result (.squeeze()) to tidy it: right for most inputs, but every axis "
        "of size 1 (a batch of one row, or a slice of one entry) is dropped from the shape.",
        (
            r"squeez",
            r"(size[- ]1|length[- ]1|singleton) (axis|axes|dim)",
            r"shape.{0,40}(dropped|lost|removed) (an )?axis",
        ),
        (r"keepdims", r"in[- ]place", r"(whole|entire) array", r"NaN"),
        edits=(
            (
                "return np.divide(exps, total, out=np.zeros_like(exps), where=total > 0)",
                "return np.divide(exps, total, out=np.zeros_like(exps), where=total > 0).squeeze()",
            ),
        ),
    ),
    _c(
        "ar-query-added-to-output",
        L04,
        "attention_row",
        "adds the query to the output (weights @ values + query, a residual connection "
        "brought in too early): right in shape only when d_v == d_k, and never right in value.",
        (r"(adds?|added|plus).{0,30}query", r"query.{0,30}(added|residual)", r"residual"),
        (r"sqrt", r"keys.{0,30}instead of.{0,20}values", r"swapped"),
        edits=(("output = weights @ values", "output = weights @ values + query"),),
    ),
    _c(
        "ar-integer-accumulator",
        L04,
        "attention_row",
        "accumulates the output in np.zeros(d_v, dtype=int) with += weights[j] * values[j]: "
        "numpy refuses to cast the float products into the int array (a raw UFuncTypeError).",
        (
            r"(int|integer)\w*.{0,40}(array|accumulator|dtype|zeros)",
            r"dtype\s*=\s*int",
            r"(float|floats?).{0,40}(into|to) (an )?int",
        ),
        (r"sqrt", r"keys.{0,30}instead of.{0,20}values", r"swapped", r"squeez"),
        edits=(
            (
                "output = weights @ values",
                "output = np.zeros(values.shape[1], dtype=int)\n"
                "    for j in range(len(weights)):\n"
                "        output += weights[j] * values[j]",
            ),
        ),
    ),
    _c(
        "ar-returns-scores-as-weights",
        L04,
        "attention_row",
        "returns the scaled scores as the weights (return scores, output) while the output is "
        "computed from the softmax: the returned weights do not add up to 1.",
        (
            r"(scores|logits|unnormali[sz]ed).{0,60}(instead of|not|rather than).{0,20}(weights|softmax)",
            r"before (the )?softmax",
            r"softmax.{0,30}(not applied|missing|never)",
        ),
        (r"sqrt\(d_k\).{0,30}(missing|instead)", r"keys.{0,30}instead of.{0,20}values", r"swapped"),
        edits=(("    return weights, output\n", "    return scores, output\n"),),
    ),
    _c(
        "sdpa-q-and-k-both-scaled",
        L04,
        "scaled_dot_product_attention",
        "divides both q and k by sqrt(d_k) before the product, so the scores are divided by "
        "d_k instead of sqrt(d_k).",
        (
            r"d_k\b.{0,30}(instead of|not|rather than).{0,10}sqrt",
            r"(both|q and k).{0,40}(scal|divid)",
            r"(scaled|divided) twice",
            r"1\s*/\s*d_k\b",
        ),
        (r"(invert|negat)\w* (the )?mask", r"transpos", r"NaN", r"fourth root"),
        edits=(
            (
                _SD_SCORES,
                "scale = math.sqrt(d_k)\n    scores = (q / scale) @ (k / scale).transpose(-2, -1)",
            ),
        ),
    ),
    _c(
        "sdpa-output-written-into-q",
        L04,
        "scaled_dot_product_attention",
        "computes the output with torch.matmul(weights, v, out=q) to save memory: the "
        "caller's q is overwritten (and resized when d_v or the shapes differ).",
        (
            r"(overwrit|modif|chang|resiz)\w*.{0,40}\bq\b",
            r"\bq\b.{0,40}(overwritten|modified|changed|resized)",
            r"out\s*=\s*q",
            r"in[- ]place",
        ),
        (r"sqrt\(d_k\)", r"(invert|negat)\w* (the )?mask", r"NaN", r"transpos"),
        edits=(("output = weights @ v", "output = torch.matmul(weights, v, out=q)"),),
    ),
]
