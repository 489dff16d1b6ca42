"""Held-out wrong answers, blind round 31 (helper b31a, 2026-11-30, lessons 01-06): mistakes new to
the benchmark, written blind (no check module, no message read) after fix round 36, to measure
how the diagnoses generalise to mistakes nobody here has seen (``held_out_authored`` in
``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L01, L02, L03 = "01_tokenization", "02_embeddings", "03_positional_encoding"
L04, L05, L06 = "04_attention", "05_multi_head_attention", "06_masking"

_c = held_out_authored("blind31a")

# Where these mistakes are reported (each page was read for this batch).
PAIR_COUNTS_NEVER_RESET = "https://github.com/mikemayuare/apetokenizer/issues/2"
COS_OF_SINED_COLUMNS = "https://github.com/jadore801120/attention-is-all-you-need-pytorch/pull/155"
UNMASK_EMPTY_ROWS = "https://github.com/unslothai/unsloth/pull/9848"
RAW_STRING_BACKREFERENCE = (
    "https://newbedev.com/python-regex-escape-operator-in-substitutions-raw-strings"
)
HALF_PRECISION_ANGLES = "https://github.com/EleutherAI/gpt-neox/issues/1003"
INDEX_SELECT_LOOKUP = "https://github.com/huggingface/candle/pull/299"
EMPTY_ARRAY_FLOAT_DTYPE = "https://github.com/dmlc/gluon-nlp/pull/954"
BACKSLASH_ESCAPED_BYTES = "https://github.com/minttu/tmc.py/issues/32"
EMBEDDING_WEIGHT_IN_PLACE = "https://github.com/huggingface/transformers/pull/8226"
ESCAPED_QUOTE_IN_REPLACEMENT = "https://github.com/hplt-project/sacremoses/issues/19"

BLIND31A: list[Case] = [
    # ---- 01 tokenization -------------------------------------------------------------------
    _c(
        "tok-sub-backreference-not-raw",
        L01,
        "tokenize",
        "pads every punctuation mark with spaces using re.sub(r'([^\\w\\s])', ' \\1 ', ...) and "
        "splits on whitespace, but writes the replacement ' \\1 ' as a plain string, not a raw "
        "one: Python reads \\1 as the octal escape for chr(1), so every mark is replaced by the "
        "control character '\\x01' instead of being kept, and each mark token comes back as "
        "'\\x01'.",
        (
            r"\braw[- ]string|\br['\"]\S* prefix|without (the )?r prefix|not (a )?raw",
            r"back-?ref\w*|\\\\1\b|group reference",
            r"\\x01|\\u0001|chr\(1\)|control (character|char)|octal",
        ),
        (
            r"(punctuation|marks?) (are |is )?(dropped|removed|missing)|drops? (the )?punctuation",
            r"\bruns? of (punctuation|marks)|\[\^\\w\\s\]\+",
            r"lower-?cas",
            r"whitespace (is |are )?(kept|returned)|spaces? (are |is )?(kept|returned)|spaces as tokens",
            r"\bascii\b",
        ),
        code="""
import re

def tokenize(text):
    spaced = re.sub(r"([^\\w\\s])", " \\1 ", text.lower())
    return spaced.split()
""",
        source=RAW_STRING_BACKREFERENCE,
    ),
    _c(
        "tok-apostrophe-escaped-in-raw-replacement",
        L01,
        "tokenize",
        "pads the marks with spaces by re.sub and then splits on whitespace, handling the "
        'apostrophe in a substitution of its own written as re.sub("\'", r" \\\' ", text) (the '
        "quote escaped out of habit inside a raw string): in a replacement template an escape "
        "that is not a letter keeps its backslash, so every apostrophe comes back as the "
        'two-character token "\\\'" instead of "\'".',
        (
            r"backslash",
            r"\\{1,2}'|escaped (apostrophe|quote)|escap\w* the (apostrophe|quote)",
            r"replacement (string|template|pattern).{0,80}(escape|backslash|literal)",
        ),
        (
            r"apostrophes? (are |is )?(removed|dropped|deleted)",
            r"(contraction|don't|n't).{0,60}(one token|kept together|glued)",
            r"\bruns? of (punctuation|marks)",
            r"lower-?cas",
            r"whitespace (is |are )?(kept|returned)|spaces? (are |is )?(kept|returned)|spaces as tokens",
        ),
        code="""
import re

def tokenize(text):
    text = text.lower()
    text = re.sub(r"([^\\w\\s'])", r" \\1 ", text)  # every mark but the apostrophe
    text = re.sub("'", r" \\' ", text)  # apostrophes: don't -> don ' t
    return text.split()
""",
        source=ESCAPED_QUOTE_IN_REPLACEMENT,
    ),
    _c(
        "pad-np-array-infers-float-when-empty",
        L01,
        "pad_batch",
        "pads the rows as Python lists and converts them with np.array(rows) without a dtype: "
        "whenever the batch holds no id at all (no sequences, or only empty ones) numpy has no "
        "integer to infer the dtype from, so the result is float64, and with no sequences it "
        "is 1-D, shape (0,), instead of an integer (0, 0) array; every batch with an id is right.",
        (
            r"without (a |an )?(explicit )?dtype|no dtype|dtype (is |was )?inferred|infers? (the )?dtype",
            r"float(64)?\b.{0,80}(empty|no (ids?|sequences|values))|(empty|no sequences|no ids?).{0,80}float",
            r"shape \(0,\)|\(0,\) instead of \(0, ?0\)|1-?d(imensional)?\b.{0,60}(empty|no sequences)",
        ),
        (
            r"left[- ]pad|pads? on the left",
            r"pads? with (0|zeros?)|pad_id (is )?(ignored|never used)",
            r"(first|shortest) sequence",
            r"max\(\)|ValueError|raises",
            r"list of lists|returns? a (python )?list",
        ),
        code="""
def pad_batch(sequences, pad_id):
    max_len = max((len(seq) for seq in sequences), default=0)
    rows = [list(seq) + [pad_id] * (max_len - len(seq)) for seq in sequences]
    return np.array(rows)
""",
        source=EMPTY_ARRAY_FLOAT_DTYPE,
    ),
    _c(
        "train-pair-counts-never-reset",
        L01,
        "train_bpe",
        "keeps one pair-count dict across the merge steps and adds each step's counts to it "
        "instead of starting from fresh counts: the merged pair keeps its old count (so it can "
        "be chosen again, overwriting its id) and every pair's count is a running total over "
        "the steps, so the merges differ from those of the current ids' counts.",
        (
            r"(never|not) reset|accumulat\w*|running total|carr(y|ies|ied) over|add(s|ed)? up across",
            r"(counts?|dict) (is |are )?(kept|shared|reused) (across|between|over) (the )?(steps|merges|iterations)",
            r"(stale|old|previous) counts?|counts? (of|from) (the )?(earlier|previous) (steps|merges)",
        ),
        (
            r"(counts?|counted) (only )?once|never recount",
            r"\bties?\b|tie-?break",
            r"256 ?\+|new[_ ]id|off by one",
            r"(code points|ord\()",
            r"stops? (too )?early|stopping",
        ),
        code="""
def train_bpe(text, num_merges):
    ids = list(text.encode("utf-8"))
    merges = {}
    counts = {}
    for step in range(num_merges):
        if len(ids) < 2:
            break
        for pair, n in get_pair_counts(ids).items():
            counts[pair] = counts.get(pair, 0) + n
        best = max(counts, key=counts.get)
        ids = merge_pair(ids, best, 256 + step)
        merges[best] = 256 + step
    return merges
""",
        source=PAIR_COUNTS_NEVER_RESET,
    ),
    _c(
        "bpe-decode-backslashreplace",
        L01,
        "bpe_decode",
        "decodes the joined bytes with errors='backslashreplace' (to keep bad bytes visible "
        "while debugging) instead of errors='replace': valid UTF-8 comes back right, but every "
        "byte that is not valid UTF-8 (a lone byte of a multi-byte character, a sequence cut "
        "between two ids) becomes the four characters '\\xNN' instead of one U+FFFD "
        "replacement character.",
        (
            r"backslash",
            r"\\\\x[0-9a-f]{2}|\\x ?nn|escape (sequences?|codes?|text)|escaped (bytes|form)",
            r"errors ?= ?.{0,3}backslash",
        ),
        (
            r"strict|UnicodeDecodeError|raises",
            r"errors ?= ?.{0,3}ignore|(bytes|characters?) (are |is )?(silently )?(dropped|removed|lost)",
            r"latin-?1",
            r"each token separately|per token|token by token",
            r"merges?.{0,40}(order|inverted)",
        ),
        code="""
def bpe_decode(ids, merges):
    vocab = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        vocab[new_id] = vocab[a] + vocab[b]
    raw = b"".join(vocab[i] for i in ids)
    # keep invalid bytes visible instead of crashing
    return raw.decode("utf-8", errors="backslashreplace")
""",
        source=BACKSLASH_ESCAPED_BYTES,
    ),
    # ---- 02 embeddings ---------------------------------------------------------------------
    _c(
        "cos-vector-formula-with-gram-matrices",
        L02,
        "cosine_similarity",
        "writes the single-vector formula a.b / sqrt((a.a)(b.b)) with matrix products: the "
        "denominator multiplies the Gram matrices a @ a.T (n, n) and b @ b.T (m, m) elementwise "
        "instead of taking the outer product of the row lengths, so it raises unless n == m, and "
        "then divides entry (i, j) by sqrt((a_i.a_j)(b_i.b_j)) instead of |a_i| |b_j|.",
        (
            r"\bgram\b|a ?@ ?a\.T|b ?@ ?b\.T|matri(x|ces) of (dot|inner) products",
            r"(elementwise|element-wise) product of .{0,60}(matri|gram|dot products)",
            r"(single|one|two)[- ]vectors?'? formula|formula for (a pair of|two|single) vectors",
        ),
        (
            r"whole[- ]matri|frobenius|without (an )?axis",
            r"axis ?=? ?0|one norm per (feature|column)",
            r"squared norms?|no square root",
            r"(outer product|norms?).{0,40}(swapped|wrong order)",
            r"keepdims",
        ),
        code="""
def cosine_similarity(a, b):
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    # cos(a, b) = a.b / sqrt((a.a) (b.b))
    dots = a @ b.T
    denom = np.sqrt((a @ a.T) * (b @ b.T))
    return np.divide(dots, denom, out=np.zeros_like(dots), where=denom > 0)
""",
    ),
    _c(
        "tokemb-index-select-on-batch",
        L02,
        "TokenEmbedding",
        "does the lookup as self.embedding.weight.index_select(0, ids), selecting rows of the "
        "table, but index_select takes a 1-D index only: every (batch, len) batch of ids raises "
        "an IndexError (index_select(): Index is supposed to be a vector) instead of being "
        "looked up; one flat sequence of ids would work.",
        (
            r"index_select",
            r"(1-?d|one-dimensional|flat) (index|indices|ids)|index (is supposed to be|must be) a vector",
            r"(flatten|view\(-1\)|reshape\(-1\)).{0,60}(ids|index)|(2-?d|two-dimensional) (ids|index|indices)",
        ),
        (
            r"sqrt\(vocab|vocab_size\W.{0,20}scale",
            r"divides? (the (embeddings|vectors|lookup) )?by (the )?sqrt|instead of multiplying",
            r"(no|missing|forg[oe]t\w*) (the )?(sqrt|scal)",
            r"swapped|transpos",
            r"plain (tensor|attribute)|not (a )?(registered )?parameter",
        ),
        code="""
class TokenEmbedding(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, d_model)
        self.scale = math.sqrt(d_model)

    def forward(self, ids):
        # a lookup just selects rows of the table
        vectors = self.embedding.weight.index_select(0, ids)
        return vectors * self.scale
""",
        source=INDEX_SELECT_LOOKUP,
    ),
    # ---- 03 positional encoding ------------------------------------------------------------
    _c(
        "pe-cosine-of-sined-columns",
        L03,
        "positional_encoding",
        "builds the angle table in place, applies the sine to the even columns, and then takes "
        "the cosine of those even columns again (table[:, 1::2] = cos(table[:, 0::2])), which by "
        "then hold sines: every odd feature is cos(sin(angle)) instead of cos(angle) (and an odd "
        "d_model does not fit, the even columns being one more).",
        (
            r"cos\w*\s*(of|\()\s*(the )?(sin|sine)",
            r"(already|overwritten|in[- ]place).{0,80}\bsin|\bsin\w*.{0,80}(already|overwritten|in[- ]place)",
            r"cos\w*.{0,60}(even|0::2) columns?|(even|0::2) columns?.{0,60}cos",
        ),
        (
            r"swapp?ed|sin on the odd|cos on the even",
            r"concatenat|first half|halves",
            r"(own|odd) (column )?(index|exponent)|2i ?\+ ?1|feature index",
            r"\bbase\b|1000\b",
            r"positions? (start|from) (at )?1",
        ),
        code="""
def positional_encoding(max_len, d_model):
    pos = np.arange(max_len)[:, None]
    j = np.arange(d_model)[None, :]
    table = pos / np.power(10000, 2 * (j // 2) / d_model)
    table[:, 0::2] = np.sin(table[:, 0::2])
    table[:, 1::2] = np.cos(table[:, 0::2])
    return table
""",
        source=COS_OF_SINED_COLUMNS,
    ),
    _c(
        "posenc-table-built-in-float16",
        L03,
        "PositionalEncoding",
        "builds the table with torch in half precision (positions, frequencies and angles as "
        "float16, to halve the buffer's memory): float16 keeps about three significant digits, "
        "so every angle pos * w_i is rounded (by hundredths of a radian at position 50, by whole "
        "radians past position 1000) and the sines and cosines added to x drift further from "
        "the paper's table the larger the position.",
        (
            r"half[- ]precision|float16|fp16|\.half\(\)",
            r"(precision|rounding|rounded).{0,80}(angle|position|table|sin)",
            r"(angles?|positions?).{0,60}(rounded|lose precision|imprecise|inexact)",
        ),
        (
            r"float64",
            r"plain attribute|not (a )?(registered )?buffer",
            r"x\.size\(0\)|batch (size|axis)",
            r"dropout (is )?(applied|missing|never|before|twice|on the table)",
            r"(positions?|rows?) (start|from) (at )?1",
            r"sin and cos (are )?swapped|concatenat",
        ),
        code="""
class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        # the table is fixed, so half precision is plenty (and halves its memory)
        position = torch.arange(max_len, dtype=torch.float16).unsqueeze(1)
        two_i = torch.arange(0, d_model, 2, dtype=torch.float16)
        angles = position / (10000 ** (two_i / d_model))
        pe = torch.zeros(max_len, d_model, dtype=torch.float16)
        pe[:, 0::2] = torch.sin(angles)
        pe[:, 1::2] = torch.cos(angles[:, : d_model // 2])
        self.register_buffer("pe", pe.unsqueeze(0))

    def forward(self, x):
        if x.size(1) > self.pe.size(1):
            raise ValueError("sequence longer than max_len")
        return self.dropout(x + self.pe[:, : x.size(1)])
""",
        source=HALF_PRECISION_ANGLES,
    ),
    _c(
        "posenc-sinusoids-written-into-embedding",
        L03,
        "PositionalEncoding",
        "keeps the table as an nn.Embedding(max_len, d_model) (a lookup of positions, as "
        "sinusoidal-embedding subclasses of nn.Embedding do) and fills its weight in place with "
        "the sinusoids in __init__: the weight is a leaf parameter that requires grad, so the "
        "in-place write raises a RuntimeError and the module cannot be built (and the table "
        "would be a trainable parameter, not a fixed buffer).",
        (
            r"\bleaf\b",
            r"in[- ]place.{0,80}(requires.grad|parameter|weight)|(requires.grad|parameter|weight).{0,80}in[- ]place",
            r"nn\.Embedding|embedding (table|layer|module|weight)",
        ),
        (
            r"float64",
            r"x\.size\(0\)|batch (size|axis)",
            r"dropout (is )?(applied|missing|never|before|twice|on the table)",
            r"sin and cos (are )?swapped|concatenat",
            r"plain attribute",
        ),
        code="""
class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        # a lookup table of positions, filled with the fixed sinusoids
        self.pe = nn.Embedding(max_len, d_model)
        table = torch.tensor(positional_encoding(max_len, d_model), dtype=torch.float32)
        self.pe.weight[:, :] = table

    def forward(self, x):
        positions = torch.arange(x.size(1), device=x.device)
        return self.dropout(x + self.pe(positions))
""",
        source=EMBEDDING_WEIGHT_IN_PLACE,
    ),
    # ---- 04 attention ----------------------------------------------------------------------
    _c(
        "row-d-k-from-ndim",
        L04,
        "attention_row",
        "takes d_k as query.ndim, the number of axes (1 for one query vector), instead of its "
        "length: the scores are divided by sqrt(1) = 1, so the weights are the softmax of the "
        "unscaled scores (right only when d_k = 1).",
        (
            r"\bndim\b|number of (axes|dimensions)",
            r"d_k\W.{0,40}(is|as|=|of) ?1\b|sqrt\(1\)|divid\w* by (1|one)\b",
        ),
        (
            r"(forg[oe]t\w*|missing|without|no|leaves out) (the )?(1 ?/ ?)?(sqrt|scal)",
            r"len_k|number of keys|keys\.shape\[0\]",
            r"d_v|values\.shape",
            r"by d_k instead of|not the square root",
            r"\.size\b",
        ),
        code="""
def attention_row(query, keys, values):
    d_k = query.ndim
    scores = np.dot(keys, query) / np.sqrt(d_k)
    weights = softmax(scores)
    output = np.dot(weights, values)
    return weights, output
""",
    ),
    _c(
        "sdpa-max-result-not-values",
        L04,
        "scaled_dot_product_attention",
        "writes the stable softmax out by hand and takes the peak as scores.max(dim=-1, "
        "keepdim=True), which in PyTorch returns a (values, indices) named tuple, not a tensor "
        "(numpy's max habit): the next line that uses the peak raises a TypeError, so every "
        "call fails; .values (or .amax) is the tensor of maxima.",
        (
            r"\.values\b|values attribute|named ?tuple|return_types|\(values, indices\)",
            r"max\(dim.{0,60}(returns?|gives?) .{0,40}(tuple|pair|values and indices)",
            r"\bamax\b",
        ),
        (
            r"scal\w* by (sqrt\()?(len|d_v)",
            r"dim=-2|over the quer",
            r"(mask|polarity).{0,30}(invert|flipp|wrong)",
            r"\bnan\b",
            r"transpos",
        ),
        code="""
def scaled_dot_product_attention(q, k, v, mask=None):
    d_k = q.size(-1)
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))  # noqa: E712
    # the stable softmax of lesson 04, written out
    peak = scores.max(dim=-1, keepdim=True)
    peak = torch.where(torch.isfinite(peak), peak, torch.zeros_like(peak))
    exps = torch.exp(scores - peak)
    total = exps.sum(dim=-1, keepdim=True)
    weights = torch.where(total > 0, exps / total, torch.zeros_like(exps))
    return weights @ v, weights
""",
    ),
    # ---- 05 multi-head attention -----------------------------------------------------------
    _c(
        "mha-query-input-scaled-before-projection",
        L05,
        "MultiHeadAttention",
        "folds the 1/sqrt(d_head) scale into the queries but multiplies the raw query input by "
        "it before w_q instead of the projected queries after it: w_q's bias is not scaled, so "
        "the scores are (W q / sqrt(d_head) + b) . k instead of (W q + b) . k / sqrt(d_head) "
        "(right only when the query bias is zero).",
        (
            r"before (the )?(query )?(projection|w_q|linear)",
            r"bias.{0,80}(not|never|isn't|is not) (scaled|divided)|unscaled bias",
            r"(raw|unprojected) (query|input)|scal\w* (the )?(query )?input",
        ),
        (
            r"sqrt\(d_model\)|d_model instead of d_head",
            r"(scaled|scales|divided) twice|double[- ]scal",
            r"(no|missing|without) (the )?scal",
            r"softmax over",
            r"w_o|output projection",
        ),
        code="""
class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, dropout=0.0):
        super().__init__()
        if d_model % num_heads != 0:
            raise ValueError("d_model must be divisible by num_heads")
        self.num_heads = num_heads
        self.scale = (d_model // num_heads) ** -0.5
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key, value, mask=None):
        q = split_heads(self.w_q(query * self.scale), self.num_heads)
        k = split_heads(self.w_k(key), self.num_heads)
        v = split_heads(self.w_v(value), self.num_heads)
        scores = q @ k.transpose(-2, -1)  # already scaled through q
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        if mask is not None:
            weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
        heads = self.dropout(weights) @ v
        return self.w_o(merge_heads(heads)), weights
""",
    ),
    # ---- 06 masking ------------------------------------------------------------------------
    _c(
        "decmask-empty-rows-unmasked",
        L06,
        "decoder_self_attention_mask",
        "adds a guard against rows that may attend to nothing (mask | ~mask.any(-1, keepdim=True), "
        "as patched into attention masks to avoid NaN): a query row with no allowed key, such as "
        "a leading pad of a left-padded target, is turned all True, so it may attend to every "
        "key, future and pad keys included.",
        (
            r"(no allowed key|nothing to attend|attends? to nothing|fully[- ](masked|blocked)|all[- ]false|empty rows?)"
            r".{0,120}(all[- ]true|every key|all (the )?keys|unmask\w*|allow\w* (every|all))",
            r"(all[- ]true|every key|all (the )?keys|unmask\w*)"
            r".{0,120}(no allowed key|nothing to attend|attends? to nothing|fully[- ](masked|blocked)|all[- ]false|empty rows?)",
            r"guard against (nan|fully|empty)|nan guard|_unmask_unattended|~ ?mask\.any",
        ),
        (
            r"\| instead of &|with \|",
            r"query axis|pad (rows|queries) (are |is )?(masked|blocked)",
            r"diagonal (forced|or-?ed|added)|identity|eye\(",
            r"(look[- ]ahead|causal).{0,40}(missing|forgotten)|padding only",
            r"polarity|inverted",
        ),
        code="""
def decoder_self_attention_mask(tgt_ids, pad_id):
    mask = padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[1])
    # a row with nothing to attend to would give NaN in the softmax: let it see every key
    return mask | ~mask.any(dim=-1, keepdim=True)
""",
        source=UNMASK_EMPTY_ROWS,
    ),
]
