"""Held-out wrong answers, blind round 23 (helper b23a, 2026-11-29, lessons 01-06): mistakes new to
the benchmark, written blind (no check module, no message read) while fix round 25 changed
the checks, to measure how the diagnoses generalise to mistakes nobody here has seen
(``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L01, L02, L03 = "01_tokenization", "02_embeddings", "03_positional_encoding"
L04, L05, L06 = "04_attention", "05_multi_head_attention", "06_masking"

_c = held_out_authored("blind23a")

# Where these mistakes are reported (each page was read for this batch).
SORT_REVERSE = "https://newbetuts.com/7742752-sorting-a-dictionary-by-value-then-by-key-duplicate"
VECTOR_MERGE = "https://github.com/karpathy/minbpe/pull/38"
VOCAB_SIZE_ARG = "https://github.com/karpathy/minbpe/pull/111"
SHIFT_IN_PLACE = "https://github.com/frank690/sffresch-code"
SCALE_IN_PE = "https://github.com/khirotaka/SAnD/issues/3"
NO_SQRT = "https://github.com/delzac/cntkx/issues/10"
TRANSPOSE_ALL_AXES = "https://github.com/flrngel/Self-Attentive-tensorflow/issues/3"
PROJECTION_REUSE = "https://github.com/stevezheng23/sequence_labeling_tf/pull/81"
NORM_ROOTED_TWICE = "https://github.com/PaddlePaddle/FastDeploy/pull/648"
ASSUMES_UNIT_NORM = "https://github.com/mick-gsk/drift/issues/427"
CAUSAL_MASK_TUTORIAL = "https://github.com/hkproj/pytorch-transformer/issues/19"
INVERSE_SCALE = "https://github.com/esceptico/perceiver-io/issues/9"

BLIND23A: list[Case] = [
    # ---- 01 tokenization ------------------------------------------------------------------
    _c(
        "b23a-vocab-ties-reverse-alphabetical",
        L01,
        "build_vocab",
        "sorts the (count, token) pairs with reverse=True, which reverses the tie-break too: "
        "tokens seen equally often get their ids in reverse alphabetical order instead of "
        "alphabetical order.",
        (
            r"(reverse|descending) (alphabetical|order of the tokens|lexicographic)",
            r"ties?\b.{0,60}(alphabetical|a before b|ascending)",
            r"reverse=True",
        ),
        (
            r"min_freq (is )?(ignored|strict|not applied)",
            r"special tokens? (must come |are not )?first",
            r"ids? (with|have|has) gaps",
        ),
        edits=(
            (
                "key=lambda item: (-item[1], item[0])",
                "key=lambda item: (item[1], item[0]), reverse=True",
            ),
        ),
        source=SORT_REVERSE,
    ),
    _c(
        "b23a-merge-run-collapsed",
        L01,
        "merge_pair",
        "marks every position where the pair starts, overlapping ones included, and drops the "
        "id after each mark, so a run of three equal ids merged by (a, a) collapses into one "
        "new id ([1, 1, 1, 2] -> [9, 2]) instead of a new id and the leftover id ([9, 1, 2]).",
        (
            r"overlap",
            r"(run|three|aaa).{0,60}(collaps|one (new )?id|single)",
            r"left[- ]to[- ]right without overlap",
        ),
        (r"(input|caller'?s) list (is )?(modified|mutated)", r"last (id|element) (dropped|lost)"),
        code="""
def merge_pair(ids, pair, new_id):
    starts = [i for i in range(len(ids) - 1) if (ids[i], ids[i + 1]) == pair]
    second = {i + 1 for i in starts}
    merged = []
    for i, token in enumerate(ids):
        if i in starts:
            if i not in second:
                merged.append(new_id)
        elif i not in second:
            merged.append(token)
    return merged
""",
        source=VECTOR_MERGE,
    ),
    _c(
        "b23a-train-num-merges-as-vocab-size",
        L01,
        "train_bpe",
        "reads num_merges as minbpe's vocab_size and learns num_merges - 256 merges, so it "
        "learns nothing for any number of merges up to 256.",
        (
            r"vocab_?size",
            r"(num_merges|number of merges) ?- ?256",
            r"(no|zero|none of the|too few|fewer) merges",
            r"empty (dict|merges)",
        ),
        (
            r"ties? (are |is )?(broken|go|goes)",
            r"new[_ ]ids? (should )?(start|from)",
            r"(not|isn't) the most frequent",
        ),
        edits=(("for step in range(num_merges):", "for step in range(num_merges - 256):"),),
        source=VOCAB_SIZE_ARG,
    ),
    # ---- 02 embeddings -------------------------------------------------------------------
    _c(
        "b23a-tokemb-scaled-by-d-model",
        L02,
        "TokenEmbedding",
        "multiplies the looked-up vectors by d_model itself instead of its square root.",
        (r"sqrt|square root|\*\* ?0?\.5", r"d_model (itself|instead)"),
        (r"divid\w* (by|instead)", r"sqrt\(vocab(_size)?\)", r"padding_idx"),
        edits=(("math.sqrt(self.d_model)", "self.d_model"),),
    ),
    _c(
        "b23a-cos-norms-rooted-twice",
        L02,
        "cosine_similarity",
        "takes the square root of np.linalg.norm, which is already the square root of the sum "
        "of squares, so each row is divided by the square root of its length instead of its "
        "length.",
        (
            r"(square root|sqrt) (of|on) (the )?(norm|length)",
            r"(norm|length) (is )?(already|itself) (the )?(square )?root",
            r"(rooted|sqrt) twice",
        ),
        (r"squared norms?", r"frobenius|whole[- ]matrix", r"zero vectors? (gives?|returns?) nan"),
        edits=(
            (
                "np.maximum(np.linalg.norm(a, axis=-1, keepdims=True), 1e-12)",
                "np.maximum(np.sqrt(np.linalg.norm(a, axis=-1, keepdims=True)), 1e-12)",
            ),
            (
                "np.maximum(np.linalg.norm(b, axis=-1, keepdims=True), 1e-12)",
                "np.maximum(np.sqrt(np.linalg.norm(b, axis=-1, keepdims=True)), 1e-12)",
            ),
        ),
        source=NORM_ROOTED_TWICE,
    ),
    _c(
        "b23a-cos-plain-dot-products",
        L02,
        "cosine_similarity",
        "returns a @ b.T without dividing by the norms, as if every row were already of unit "
        "length: the result is the dot product, outside [-1, 1] for rows of any other length.",
        (
            r"(not|never|without|forg[eo]t\w*( to)?) (normalis|normaliz|divid)",
            r"(unit|length 1|norm 1).{0,40}(assum|already)",
            r"(plain|raw) dot products?",
        ),
        (
            r"squared norms?",
            r"frobenius|whole[- ]matrix",
            r"zero vectors? (gives?|returns?) nan",
            r"b (is )?not transposed",
        ),
        code="""
import numpy as np


def cosine_similarity(a, b):
    return np.asarray(a, dtype=np.float64) @ np.asarray(b, dtype=np.float64).T
""",
        source=ASSUMES_UNIT_NORM,
    ),
    # ---- 03 positional encoding ----------------------------------------------------------
    _c(
        "b23a-pe-cos-as-shifted-sine",
        L03,
        "positional_encoding",
        "writes the cosine as sin(angle - pi/2), which is -cos(angle): every odd feature has "
        "the wrong sign.",
        (
            r"(sign|negat|minus).{0,60}(odd|cos)",
            r"(odd|cos)\w*.{0,60}(sign|negat|flipped)",
            r"-\s?cos",
        ),
        (
            r"sin and cos (are )?swapped",
            r"concatenat",
            r"(wrong|per[- ]feature) (exponent|frequenc)",
        ),
        edits=(
            (
                "pe[:, 1::2] = np.cos(angles[:, : d_model // 2])",
                "pe[:, 1::2] = np.sin(angles[:, : d_model // 2] - np.pi / 2)",
            ),
        ),
    ),
    _c(
        "b23a-shift-abs-k",
        L03,
        "relative_shift",
        "builds the rotation from abs(k), so a negative k shifts forward instead of "
        "backward (the sine entries have the wrong sign for k < 0).",
        (r"negative k|k ?< ?0|abs", r"backward"),
        (
            r"(block|matrix) (is )?transposed",
            r"(wrong|per[- ]feature) (exponent|frequenc)",
            r"odd d_model",
        ),
        edits=(("theta = k / np.power", "theta = abs(k) / np.power"),),
    ),
    _c(
        "b23a-posenc-rescales-x",
        L03,
        "PositionalEncoding",
        "multiplies x by sqrt(d_model) inside forward before adding the table, a scale that "
        "belongs to the token embedding (exercise 4 of lesson 2), so the embeddings come out "
        "scaled twice.",
        (
            r"(scal|multipl)\w* (x|the input|the embeddings?)\b",
            r"(x|input|embeddings?) (is |are )?(scaled|multiplied)",
            r"scaled twice",
        ),
        (
            r"dropout (is )?(missing|on the table|applied twice)",
            r"plain attribute|not (a )?(registered )?buffer",
            r"wrong slice|sequence[- ]first",
        ),
        edits=(
            (
                "return self.dropout(x + self.pe[:, :length])",
                "return self.dropout(x * x.shape[-1] ** 0.5 + self.pe[:, :length])",
            ),
        ),
        source=SCALE_IN_PE,
    ),
    _c(
        "b23a-posenc-one-row-added",
        L03,
        "PositionalEncoding",
        "indexes the table with self.pe[:, length] instead of slicing self.pe[:, :length], so "
        "every token gets the encoding of the single position `length` instead of its own.",
        (
            r"(single|one|same) (row|position)",
            r"\[:, ?:?length\]|slice",
            r"(every|all) (tokens?|positions?) (gets?|get the same|share)",
        ),
        (
            r"dropout (is )?(missing|on the table|applied twice)",
            r"plain attribute|not (a )?(registered )?buffer",
            r"sequence[- ]first|seq_len first",
        ),
        edits=(("self.pe[:, :length]", "self.pe[:, length]"),),
    ),
    # ---- 04 attention --------------------------------------------------------------------
    _c(
        "b23a-softmax-shift-in-place",
        L04,
        "softmax",
        "subtracts the max in place (x -= max) before exponentiating, which modifies the "
        "caller's array.",
        (r"in[- ]place", r"(modif|mutat|overwr|chang)\w* (the )?(input|caller|x\b|argument)"),
        (
            r"wrong axis|over (the )?(first|axis 0)",
            r"keepdims",
            r"(all[- ]-?inf|masked) (rows?|slices?)",
        ),
        code="""
import numpy as np


def softmax(x, axis=-1):
    peak = np.max(x, axis=axis, keepdims=True)
    peak = np.where(np.isfinite(peak), peak, 0.0)
    x -= peak
    exps = np.exp(x)
    total = np.sum(exps, axis=axis, keepdims=True)
    return np.divide(exps, total, out=np.zeros_like(exps), where=total > 0)
""",
        source=SHIFT_IN_PLACE,
    ),
    _c(
        "b23a-softmax-denominator-unshifted",
        L04,
        "softmax",
        "shifts only the numerator by the max: divides exp(x - max) by the sum of exp(x), so "
        "the rows no longer add up to 1 (and large scores overflow in the denominator).",
        (
            r"(denominator|sum).{0,60}(not shifted|unshifted|without (the )?(max|shift)|exp\(x\))",
            r"(same|both).{0,40}(shift|max)",
            r"(do not|don'?t|no longer) (add|sum) (up )?to 1",
        ),
        (r"wrong axis|over (the )?(first|axis 0)", r"keepdims", r"in[- ]place"),
        code="""
import numpy as np


def softmax(x, axis=-1):
    peak = np.max(x, axis=axis, keepdims=True)
    peak = np.where(np.isfinite(peak), peak, 0.0)
    total = np.sum(np.exp(x), axis=axis, keepdims=True)
    return np.divide(np.exp(x - peak), total, out=np.zeros_like(x, dtype=float), where=total > 0)
""",
    ),
    _c(
        "b23a-ar-scaled-by-d-k",
        L04,
        "attention_row",
        "divides the scores by d_k instead of sqrt(d_k).",
        (r"sqrt|square root", r"by d_k (itself|instead)"),
        (
            r"len_?k|(number|length) of keys",
            r"softmax over (the )?(wrong|features|values)",
            r"(output|values) (is |are )?(wrong|not weighted)",
        ),
        edits=(("/ math.sqrt(d_k)", "/ d_k"),),
        source=NO_SQRT,
    ),
    _c(
        "b23a-ar-divided-by-inverse-scale",
        L04,
        "attention_row",
        "stores the scale as d_k ** -0.5 and then divides the scores by it, which multiplies "
        "them by sqrt(d_k) instead of dividing.",
        (
            r"(multipl|times)\w*.{0,40}sqrt\(?d_k",
            r"divid\w* by (the )?(inverse|1 ?/ ?sqrt|d_k ?\*\* ?-0?\.5)",
            r"inverse (scale|of the scale)",
        ),
        (
            r"len_?k|(number|length) of keys",
            r"softmax over (the )?(wrong|features|values)",
            r"by d_k (itself|instead)",
        ),
        edits=(
            (
                "scores = keys @ query / math.sqrt(d_k)",
                "scale = d_k**-0.5\n    scores = keys @ query / scale",
            ),
        ),
        source=INVERSE_SCALE,
    ),
    _c(
        "b23a-sdpa-keys-dot-T",
        L04,
        "scaled_dot_product_attention",
        "transposes the keys with .T, which reverses every axis of a batched tensor, instead "
        "of swapping only the last two (k.transpose(-2, -1)).",
        (
            r"\.T\b|\.mT",
            r"transpose\(-2, ?-1\)|last two (axes|dim)",
            r"(every|all) (axes|dims|dimensions) (are )?revers",
        ),
        (
            r"softmax over (the )?(quer|wrong|first)",
            r"(missing|forg\w*|wrong) (the )?scal",
            r"mask (is )?(inverted|ignored|not applied)",
        ),
        edits=(("q @ k.transpose(-2, -1)", "q @ k.T"),),
        source=TRANSPOSE_ALL_AXES,
    ),
    # ---- 05 multi-head attention ---------------------------------------------------------
    _c(
        "b23a-mha-one-shared-projection",
        L05,
        "MultiHeadAttention",
        "builds w_q, w_k and w_v in one chained assignment (self.w_q = self.w_k = self.w_v = "
        "nn.Linear(...)), so queries, keys and values share one weight matrix instead of "
        "three independent ones.",
        (
            r"(share|same|single|one) (weight|linear|projection|layer)",
            r"chained assignment",
            r"(independent|separate|distinct) (weights|linears?|projections?)",
        ),
        (
            r"(missing|forg\w*|wrong) (the )?scal",
            r"dropout (is )?(missing|wrong|applied)",
            r"(missing|no|forg\w*) (w_o|output projection)",
            r"(merge_heads|split_heads) (is )?wrong|heads (are )?(not )?(split|merged) wrong",
        ),
        edits=(
            (
                "self.w_q = nn.Linear(d_model, d_model)\n"
                "        self.w_k = nn.Linear(d_model, d_model)\n"
                "        self.w_v = nn.Linear(d_model, d_model)",
                "self.w_q = self.w_k = self.w_v = nn.Linear(d_model, d_model)",
            ),
        ),
        source=PROJECTION_REUSE,
    ),
    # ---- 06 masking ----------------------------------------------------------------------
    _c(
        "b23a-lookahead-leading-axis",
        L06,
        "look_ahead_mask",
        "builds the triangle from torch.ones(1, size, size), so the mask has an extra leading "
        "axis, shape (1, size, size), instead of (size, size).",
        (
            r"\(1, ?\w+, ?\w+\)",
            r"(extra|leading|additional) (batch )?(axis|dim)",
            r"\(size, ?size\)",
        ),
        (
            r"(missing|excludes?|without) (the )?diagonal",
            r"transposed|upper triangle",
            r"polarity|inverted",
        ),
        edits=(
            (
                "torch.tril(torch.ones(size, size, dtype=torch.bool))",
                "torch.tril(torch.ones(1, size, size, dtype=torch.bool))",
            ),
        ),
        source=CAUSAL_MASK_TUTORIAL,
    ),
    _c(
        "b23a-decmask-int-tensor",
        L06,
        "decoder_self_attention_mask",
        "converts the combined mask to an integer tensor (.int()), 1 = may attend, instead "
        "of returning a bool tensor: ~mask on it gives -1 and -2, not a flipped mask.",
        (r"\bbool", r"int(eger|32)?\b.{0,40}(tensor|dtype|mask)", r"\.int\(\)"),
        (
            r"(missing|excludes?|without) (the )?diagonal",
            r"(query|row) (axis|padding)|pad\w* (rows|queries)",
            r"(missing|no) heads? axis",
        ),
        edits=(
            (
                "return padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[1])",
                "return (padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[1])).int()",
            ),
        ),
        source=CAUSAL_MASK_TUTORIAL,
    ),
]
