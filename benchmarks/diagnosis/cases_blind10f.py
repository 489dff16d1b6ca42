"""Held-out wrong answers for lessons 02-04, blind round 10 (helper b10f, 2026-11-27).

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run. More than half transpose a mistake described in a public issue thread or Q&A page (the
URL read for this benchmark with the search tool) to the course's exercise; the others are
the author's. Kinds favoured: mistakes that only show on some inputs (ids that do not cover
the vocabulary, a batch of one, an odd d_model, an odd k, a d_model that is not a perfect
square, float64 inputs, very negative scores, d_v != d_k, fully blocked rows, a second call
with the same mask), inputs modified in place, wrong shapes and layouts returned, a
learner's own exception, and a symptom two causes share (weights whose columns sum to 1).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L02, L03, L04 = "02_embeddings", "03_positional_encoding", "04_attention"

# The reports these cases transpose (each read with the search tool for this benchmark).
DUMMIES_PRESENT_ONLY = "https://example-a.com/answer/68808802"
ONE_HOT_ROWS_MISSING = "https://newbe.dev/convert-array-of-indices-to-1-hot-encoded-numpy-array"
EMBEDDING_SQUEEZE = "https://github.com/BangLiu/QANet-PyTorch/issues/2"
COSINE_ARCCOS = "https://github.com/davidsandberg/facenet/issues/692"
COSINE_NO_TRANSPOSE = (
    "http://stackoverflow.com/questions/21980644/calculate-cosine-similarity-of-two-matrices-python"
)
FROM_PRETRAINED_FROZEN = "https://github.com/huggingface/optimum-graphcore/pull/304"
TUTORIAL_SEQ_FIRST = "https://github.com/pytorch/tutorials/issues/1037"
MATRIX_POWER = "https://codejagd.com/raise-a-numpy-array-to-a-power"
PE_BATCH_FIRST_ADAPTED = "https://github.com/KasperGroesLudvigsen/influenza_transformer/issues/9"
DATA_DETACHES = "https://github.com/d2l-ai/d2l-en/pull/2121"
SOFTMAX_SHIFT_CLAMPED = "https://github.com/FluxML/NNlib.jl/pull/43"
SQRT_OF_INT = "https://github.com/apache/tvm/pull/18454"
ATTENTION_DIMS_SWAPPED = "https://github.com/facebookresearch/fairseq/issues/195"

_c = held_out_authored("blind10f")


BLIND10F: list[Case] = [
    # ------------------------------------------------------------ 02 embeddings
    _c(
        "onehot-columns-for-present-ids",
        L02,
        "one_hot",
        "builds one column per distinct id present in the batch (np.unique with "
        "return_inverse, as pd.get_dummies does) instead of vocab_size columns, so the width "
        "depends on the data and the ids are renumbered by rank.",
        (
            r"(width|columns|last axis|length).{0,80}vocab_size",
            r"vocab_size.{0,80}(width|columns|argument|not used|ignored)",
            r"(distinct|unique|present) ids",
            r"np\.unique",
            r"(from|on) the (data|ids present)",
        ),
        (r"transpos", r"bool"),
        code="def one_hot(ids, vocab_size):\n"
        "    ids = np.asarray(ids)\n"
        "    present, index = np.unique(ids, return_inverse=True)\n"
        "    return np.eye(len(present))[index.reshape(ids.shape)]\n",
        source=DUMMIES_PRESENT_ONLY,
    ),
    _c(
        "onehot-column-index-only",
        L02,
        "one_hot",
        "sets out[..., ids] = 1, indexing only the vocabulary axis with all the ids and never "
        "pairing each id with its own row, so every row gets a 1 at every id of the batch.",
        (
            r"every (row|vector|position|token)",
            r"(several|more than one|multiple|many) (1|ones|entries)",
            r"(its|their) own (row|position|id)",
            r"(all|every) (the )?ids",
            r"row index|np\.arange",
            r"multi[- ]hot",
        ),
        (r"transpos", r"bool", r"width|vocab_size \+ 1"),
        code="def one_hot(ids, vocab_size):\n"
        "    ids = np.asarray(ids)\n"
        "    out = np.zeros(ids.shape + (vocab_size,))\n"
        "    out[..., ids] = 1.0\n"
        "    return out\n",
        source=ONE_HOT_ROWS_MISSING,
    ),
    _c(
        "embed-squeezed",
        L02,
        "embed",
        "calls .squeeze() on the looked-up rows, so ids of shape (1,) or a batch of one "
        "sentence, (1, len), lose their axes of size 1.",
        (
            r"squeez",
            r"ax[ie]s of size 1|size-1 ax|axis of length 1",
            r"(lost|drops?|dropped|removes?|removed) .{0,40}ax[ie]s",
            r"batch of one",
        ),
        (r"transpos", r"column", r"flatten"),
        (
            (
                "return np.asarray(table)[np.asarray(ids)]",
                "return np.asarray(table)[np.asarray(ids)].squeeze()",
            ),
        ),
        source=EMBEDDING_SQUEEZE,
    ),
    _c(
        "embed-zeroes-pad-row-in-place",
        L02,
        "embed",
        "sets row 0 of the table to zeros before the lookup (a padding row, as padding_idx "
        "would have it), which writes into the caller's table and changes id 0's vector.",
        (
            r"in[- ]place",
            r"modif\w* (the )?(caller'?s )?table",
            r"table .{0,40}(changed|modified|written|overwritten)",
            r"(row|id) 0",
            r"padding",
        ),
        (r"transpos", r"column", r"off[- ]by[- ]one|id ?- ?1"),
        code="def embed(ids, table):\n"
        "    table = np.asarray(table)\n"
        "    table[0] = 0.0  # the padding row\n"
        "    return table[np.asarray(ids)]\n",
    ),
    _c(
        "cos-arccos-angular-distance",
        L02,
        "cosine_similarity",
        "returns the angular distance arccos(cosine) / pi (the face-embedding code's "
        "'distance based on cosine similarity') instead of the cosine itself.",
        (r"arccos", r"angle", r"angular", r"distance"),
        (r"transpos", r"not normali[sz]"),
        (
            (
                "return a_unit @ b_unit.T  # (n, m)",
                "return np.arccos(np.clip(a_unit @ b_unit.T, -1.0, 1.0)) / np.pi",
            ),
        ),
        source=COSINE_ARCCOS,
    ),
    _c(
        "cos-b-not-transposed",
        L02,
        "cosine_similarity",
        "multiplies a_unit @ b_unit without transposing b, which contracts a's features with "
        "b's rows: it raises unless d == m, and then gives the wrong numbers.",
        (
            r"transpose (of )?b\b|b\.T|b_unit\.T|transpos\w* (the )?(second|b\b)",
            r"(rows|row vectors) of b",
            r"b'?s rows",
        ),
        (r"result is (the )?transpos|returned the transpose|\(m, n\) (instead|transpose)",),
        (("return a_unit @ b_unit.T  # (n, m)", "return a_unit @ b_unit"),),
        source=COSINE_NO_TRANSPOSE,
    ),
    _c(
        "tokemb-from-pretrained-frozen",
        L02,
        "TokenEmbedding",
        "builds the table with nn.Embedding.from_pretrained(torch.randn(...)), whose freeze "
        "defaults to True, so the table's weight has requires_grad=False and never trains.",
        (
            r"freez",
            r"requires_grad",
            r"(not|never) (trainable|trained|learn)",
            r"no gradient",
            r"from_pretrained",
            r"frozen",
        ),
        (r"numpy",),
        (
            (
                "self.embedding = nn.Embedding(vocab_size, d_model)",
                "self.embedding = nn.Embedding.from_pretrained(torch.randn(vocab_size, d_model))",
            ),
        ),
        source=FROM_PRETRAINED_FROZEN,
    ),
    _c(
        "tokemb-seq-first-transpose",
        L02,
        "TokenEmbedding",
        "transposes the ids (ids.t()) before the lookup, the PyTorch tutorial's "
        "sequence-first habit, so a (batch, len) batch comes back (len, batch, d_model).",
        (
            r"transpos",
            r"\(len, batch",
            r"seq(uence)?[- ]first",
            r"(batch|len|length|sequence)( axes)? .{0,20}swapped|swapped.{0,40}(batch|len)",
            r"\.t\(\)",
        ),
        (r"scale", r"sqrt", r"flatten"),
        (
            (
                "return self.embedding(ids) * math.sqrt(self.d_model)",
                "return self.embedding(ids.t()) * math.sqrt(self.d_model)",
            ),
        ),
        source=TUTORIAL_SEQ_FIRST,
    ),
    _c(
        "tokemb-integer-sqrt",
        L02,
        "TokenEmbedding",
        "scales by int(math.sqrt(d_model)), the square root rounded down to an integer, which "
        "is right only when d_model is a perfect square (16, 64, 256) and too small otherwise.",
        (r"int\(", r"integer", r"round", r"floor", r"truncat", r"isqrt"),
        (r"sqrt\(vocab", r"divid", r"hard[- ]?coded|sqrt\(512\)"),
        (
            (
                "return self.embedding(ids) * math.sqrt(self.d_model)",
                "return self.embedding(ids) * int(math.sqrt(self.d_model))",
            ),
        ),
    ),
    # ------------------------------------------------------------ 03 positional encoding
    _c(
        "pe-stack-reshape-odd-extra-column",
        L03,
        "positional_encoding",
        "interleaves by stacking the sines and cosines on a new last axis and reshaping, "
        "which for an odd d_model returns d_model + 1 columns (a cosine for the unpaired last "
        "sine too) instead of d_model.",
        (
            r"d_model ?\+ ?1",
            r"one (column|feature) too many|extra (column|feature|cosine)",
            r"odd d_model",
            r"unpaired|without (its|a) (cosine|partner)",
        ),
        (r"sin.{0,30}cos.{0,30}swapped", r"halves", r"transpos"),
        code="def positional_encoding(max_len, d_model):\n"
        "    positions = np.arange(max_len, dtype=np.float64)[:, None]\n"
        "    two_i = np.arange(0, d_model, 2, dtype=np.float64)\n"
        "    angles = positions / np.power(10000.0, two_i / d_model)\n"
        "    pairs = np.stack([np.sin(angles), np.cos(angles)], axis=-1)\n"
        "    return pairs.reshape(max_len, -1)\n",
    ),
    _c(
        "pe-log10-in-exp-form",
        L03,
        "positional_encoding",
        "writes the frequencies in the exp(log) form with np.log10 instead of the natural "
        "log, exp(-2i * log10(10000) / d_model), so the wavelengths grow with base e**4 "
        "(about 54.6) instead of 10000.",
        (
            r"log10",
            r"natural log",
            r"\bbase\b",
            r"54\.6|e\^?4|e\*\*4",
            r"10000.{0,40}(base|wavelength)",
        ),
        (
            r"i instead of 2i|exponent i\b",
            r"multipl\w* .{0,30}instead of divid",
            r"positions? (count|start)\w* (from|at) 1",
            r"\b1000\b",
        ),
        (
            (
                "angles = positions / np.power(10000.0, two_i / d_model)",
                "angles = positions * np.exp(two_i * -(np.log10(10000.0) / d_model))",
            ),
        ),
    ),
    _c(
        "shift-elementwise-power",
        L03,
        "relative_shift",
        "builds the shift by one position and raises it to the power k with ** (elementwise) "
        "instead of a matrix power, so every entry is raised to k (k = 0 gives all ones, a "
        "negative k divides by the zeros).",
        (
            r"matrix[_ ]power",
            r"element[- ]?wise",
            r"\*\* ?k",
            r"(each|every) entry .{0,40}power",
        ),
        (r"transpos", r"sign", r"ignores k|k (is )?ignored"),
        (
            (
                "theta = k / np.power(10000.0, two_i / d_model)",
                "theta = 1 / np.power(10000.0, two_i / d_model)",
            ),
            ("return m", "return m**k"),
        ),
        source=MATRIX_POWER,
    ),
    _c(
        "shift-rejects-odd-k",
        L03,
        "relative_shift",
        "tests k % 2 instead of d_model % 2, so an odd shift raises ValueError while an odd "
        "d_model is not rejected (it fails with an IndexError).",
        (
            r"odd k|k is odd|k=-?\d*[13579]\b.{0,80}(even|ValueError)",
            r"\bk\b.{0,60}(not|instead of) d_model",
            r"k % 2",
        ),
        (r"transpos", r"sign", r"AssertionError"),
        (("if d_model % 2:", "if k % 2:"),),
    ),
    _c(
        "posenc-tutorial-table-sliced-batch-first",
        L03,
        "PositionalEncoding",
        "keeps the tutorial's sequence-first table (max_len, 1, d_model) but slices it like a "
        "batch-first one, pe[:, :len], which cuts its axis of size 1, so the whole max_len "
        "table is added against the batch axis (an error, or a (max_len, len, d_model) "
        "result for a batch of one).",
        (
            r"\(max_len, 1, d_model\)",
            r"seq(uence)?[- ]first",
            r"ax[ie]s of size 1",
            r"(slic\w*|cuts?) .{0,60}(wrong|second|size-1|size 1|batch) ax",
            r"whole (table|max_len)|all max_len|max_len rows",
        ),
        (r"dropout", r"x\.size\(0\)|batch size as (the )?length", r"in[- ]place"),
        code="class PositionalEncoding(nn.Module):\n"
        "    def __init__(self, d_model, max_len=5000, dropout=0.1):\n"
        "        super().__init__()\n"
        "        self.dropout = nn.Dropout(dropout)\n"
        "        table = torch.tensor(positional_encoding(max_len, d_model), dtype=torch.float32)\n"
        "        self.register_buffer('pe', table.unsqueeze(1))  # (max_len, 1, d_model)\n"
        "\n"
        "    def forward(self, x):\n"
        "        return self.dropout(x + self.pe[:, : x.size(1)])\n",
        source=PE_BATCH_FIRST_ADAPTED,
    ),
    _c(
        "posenc-x-data-detached",
        L03,
        "PositionalEncoding",
        "adds the table to x.data instead of x, which cuts the sum from the autograd graph: "
        "no gradient reaches x (or the embeddings before it).",
        (
            r"\.data\b",
            r"detach",
            r"no gradient|gradient.{0,60}(x|input|embedding)",
            r"(autograd|computation) graph",
        ),
        (r"buffer", r"parameter", r"dropout"),
        (
            (
                "return self.dropout(x + self.pe[:, :length])",
                "return self.dropout(x.data + self.pe[:, :length])",
            ),
        ),
        source=DATA_DETACHES,
    ),
    _c(
        "posenc-casts-x-float32",
        L03,
        "PositionalEncoding",
        "adds the table to x.float(), so a float64 batch comes back float32 instead of in x's "
        "dtype.",
        (
            r"\.float\(\)",
            r"(cast|convert)\w* x",
            r"x'?s (own )?dtype",
            r"float64 (input|x|batch).{0,80}float32",
        ),
        (r"table.{0,40}float64|float64 table|buffer.{0,40}float64", r"dropout"),
        (
            (
                "return self.dropout(x + self.pe[:, :length])",
                "return self.dropout(x.float() + self.pe[:, :length])",
            ),
        ),
    ),
    # ------------------------------------------------------------ 04 attention
    _c(
        "softmax-shift-clamped-at-zero",
        L04,
        "softmax",
        "shifts each slice by max(0, its maximum) instead of its maximum (np.maximum(peak, "
        "0)), so a slice whose entries are all very negative underflows to zeros instead of "
        "adding up to 1.",
        (
            r"max\(0|maximum\(.{0,40}\b0|clamp|clip",
            r"(very|large|all) negative",
            r"underflow",
            r"(its|each slice'?s) (own )?max",
        ),
        (r"overflow", r"keepdims", r"\baxis\b.{0,30}(ignored|wrong)", r"in[- ]place"),
        (
            (
                "peak = np.where(np.isfinite(peak), peak, 0.0)",
                "peak = np.maximum(np.where(np.isfinite(peak), peak, 0.0), 0.0)",
            ),
        ),
        source=SOFTMAX_SHIFT_CLAMPED,
    ),
    _c(
        "softmax-axis-1-hardcoded",
        L04,
        "softmax",
        "passes axis=1 to both the max and the sum instead of the axis argument, which is "
        "right only for 2-D inputs normalised along their last axis (a 1-D vector raises).",
        (
            r"axis=1|axis 1\b",
            r"hard[- ]?cod",
            r"(axis|argument) .{0,40}(ignor|not used)|ignor\w* (the )?axis",
        ),
        (r"keepdims", r"global max", r"overflow"),
        (
            (
                "peak = np.max(x, axis=axis, keepdims=True)",
                "peak = np.max(x, axis=1, keepdims=True)",
            ),
            (
                "total = np.sum(exps, axis=axis, keepdims=True)",
                "total = np.sum(exps, axis=1, keepdims=True)",
            ),
        ),
    ),
    _c(
        "softmax-neg-inf-replaced-in-place",
        L04,
        "softmax",
        "replaces the -inf entries of x by -1e30 in place (x[np.isneginf(x)] = -1e30) to "
        "avoid NaN, so the caller's array is changed; the weights themselves are right.",
        (
            r"in[- ]place",
            r"modif\w* (the )?(caller'?s )?(x|input|array)",
            r"(changed|changes|altered|overwr\w*) (the )?(caller'?s )?(x|input|array)",
            r"leave x unchanged|copy",
        ),
        (r"overflow", r"NaN", r"\baxis\b"),
        code="def softmax(x, axis=-1):\n"
        "    x[np.isneginf(x)] = -1e30  # no -inf left, so no NaN\n"
        "    peak = np.max(x, axis=axis, keepdims=True)\n"
        "    exps = np.exp(x - peak)\n"
        "    return exps / np.sum(exps, axis=axis, keepdims=True)\n",
    ),
    _c(
        "row-scale-d-v",
        L04,
        "attention_row",
        "takes the scale from the values' width, values.shape[-1] (d_v), instead of the "
        "query's (d_k): right only when d_v == d_k.",
        (
            r"\bd_v\b",
            r"values?'?s? (width|last axis|shape)",
            r"width of the values",
        ),
        (r"len_k|number of keys", r"keys instead of (the )?values"),
        (("d_k = query.shape[-1]", "d_k = values.shape[-1]"),),
    ),
    _c(
        "row-cosine-scores",
        L04,
        "attention_row",
        "normalises the query and every key to unit length before the dot product (cosine "
        "similarity, lesson 02's measure) instead of using the raw dot products.",
        (
            r"cosine",
            r"normali[sz]",
            r"(length|norm)s? of the (query|keys)",
            r"raw dot product",
            r"unit (length|vectors)",
        ),
        (
            r"divid\w* by d_k\b|sqrt\(len_k\)|not scaled|scale (is )?missing|scaled twice",
            r"keys instead of (the )?values",
        ),
        (
            (
                "scores = keys @ query / math.sqrt(d_k)",
                "unit_keys = keys / np.linalg.norm(keys, axis=-1, keepdims=True)\n"
                "    scores = unit_keys @ (query / np.linalg.norm(query)) / math.sqrt(d_k)",
            ),
        ),
    ),
    _c(
        "sdpa-torch-sqrt-of-int",
        L04,
        "scaled_dot_product_attention",
        "divides by torch.sqrt(d_k) with d_k the Python int q.shape[-1]; torch.sqrt takes a "
        "tensor, so the call raises TypeError.",
        (
            r"math\.sqrt",
            r"torch\.sqrt.{0,80}(int|tensor|number)",
            r"d_k.{0,60}(Python )?(int|number)",
        ),
        (r"mask", r"transpos"),
        (
            (
                "scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)",
                "scores = q @ k.transpose(-2, -1) / torch.sqrt(d_k)",
            ),
        ),
        source=SQRT_OF_INT,
    ),
    _c(
        "sdpa-weights-returned-transposed",
        L04,
        "scaled_dot_product_attention",
        "returns the weights transposed, (..., len_k, len_q) (keys by queries), while the "
        "output is computed from the right weights; the returned weights' columns sum to 1.",
        (
            r"transpos",
            r"len_k, len_q",
            r"(keys?) by (queries|query)",
            r"swapped .{0,40}(query|key|last two) ax",
        ),
        (r"softmax (over|along|across) (the )?quer", r"dim ?= ?-2", r"mask"),
        (("return output, weights", "return output, weights.transpose(-2, -1)"),),
        source=ATTENTION_DIMS_SWAPPED,
    ),
    _c(
        "sdpa-fully-blocked-any-without-keepdim",
        L04,
        "scaled_dot_product_attention",
        "finds the rows with no allowed key with mask.any(dim=-1) without keepdim, so the "
        "(..., len_q) result lines up with the keys axis: it zeroes columns instead of the "
        "fully blocked rows (and raises when len_q != len_k).",
        (
            r"keepdim",
            r"columns? (instead of|not) (the )?rows?",
            r"(lines? up|broadcast\w*) .{0,60}(keys?|last) ax",
        ),
        (r"softmax (over|along|across) (the )?quer", r"polarity|inverted"),
        (
            (
                "nothing_allowed = ~mask.any(dim=-1, keepdim=True)",
                "nothing_allowed = ~mask.any(dim=-1)",
            ),
        ),
    ),
    _c(
        "sdpa-mask-flipped-in-place",
        L04,
        "scaled_dot_product_attention",
        "flips the mask in place with mask.logical_not_() and fills where the flipped mask is "
        "True: the result of this call is right, but the caller's mask is inverted, so a "
        "second call with the same mask blocks the allowed keys.",
        (
            r"in[- ]place",
            r"modif\w* (the )?(caller'?s )?mask",
            r"mask .{0,60}(changed|modified|flipped|overwritten)",
            r"logical_not_",
        ),
        (r"polarity|True (means|=) blocked|fills? .{0,40}allowed", r"softmax"),
        (
            (
                'scores = scores.masked_fill(~mask, float("-inf"))',
                "mask = mask.logical_not_()\n"
                '        scores = scores.masked_fill(mask, float("-inf"))',
            ),
            (
                "nothing_allowed = ~mask.any(dim=-1, keepdim=True)",
                "nothing_allowed = mask.all(dim=-1, keepdim=True)",
            ),
        ),
    ),
]
