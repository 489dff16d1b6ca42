"""Held-out wrong answers, blind round 19 (helper b19a, 2026-11-28): mistakes new to the
benchmark, written blind (no check module, no message read) while fix round 21 changed the
checks, to measure how the diagnoses generalise to mistakes nobody here has seen
(``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L00, L01, L02, L03 = "00_welcome", "01_tokenization", "02_embeddings", "03_positional_encoding"

# Where these mistakes are reported (each page was read for this batch).
GLOBAL_MEAN = "https://github.com/rougier/numpy-100/issues/75"
SET_COMPREHENSION = (
    "https://pc-python.readthedocs.io/en/latest/python_advanced/set_comprehensions.html"
)
STACK_EMPTY = "https://github.com/vchoutas/expose/issues/4"
NFD_BYTES = "https://github.com/ggml-org/llama.cpp/pull/24371"
ONE_HOT_ROWS = "https://newbe.dev/convert-array-of-indices-to-1-hot-encoded-numpy-array"
ZERO_D_ITERATION = "https://github.com/numpy/numpy/issues/22364"
GENERATOR_TIED = "https://github.com/harvardnlp/annotated-transformer/issues/93"
INT_POWER_OVERFLOW = (
    "https://errorhandle.ai/list-comprehension-of-powers-of-2-in-python-fails-with-numpy-array"
)
PRINT_NOT_RETURN = (
    "https://python-pypi.developreference.com/article/15550303/"
    "Calculating+a+factorial+using+loops+in+Python3"
)
SEQUENCE_FIRST = "https://github.com/pytorch/tutorials/issues/1547"

_c = held_out_authored("blind19a")

BLIND19A: list[Case] = [
    # ------------------------------------------------------------------ 00 welcome
    _c(
        "center-global-mean",
        L00,
        "center_rows",
        "subtracts the mean of the whole array, np.mean(x) with no axis (the global "
        "normalisation idiom, Z - np.mean(Z)), instead of each row's own mean: a 1-D x is "
        "right, but with several rows every row is shifted by the same number and the rows do "
        "not each average 0.",
        (
            r"(whole|entire) array",
            r"global mean",
            r"(no|without( an?)?|missing) axis",
            r"(single|one) (overall |global )?mean (for|of) (the whole|all|every)",
            r"mean of all (the )?(entries|elements|values|numbers)",
            r"(same|one) (number|mean|value) (subtracted )?from every row",
        ),
        (
            r"down the columns",
            r"column means?",
            r"in.place",
            r"standard deviation",
            r"x\.shape\[0\]",
        ),
        code="""
def center_rows(x):
    return x - np.mean(x)
""",
        source=GLOBAL_MEAN,
    ),
    _c(
        "center-atleast-2d-kept",
        L00,
        "center_rows",
        "turns x into a 2-D array first (x = np.atleast_2d(x), to treat a 1-D x as one row) "
        "and returns the centred 2-D array: the values are right and a 2-D or 3-D x is right, "
        "but a 1-D x of length n comes back with shape (1, n) instead of (n,).",
        (
            r"atleast_2d",
            r"1-D (x|input|array).{0,80}\(1, ",
            r"(extra|added|new) (leading )?axis",
            r"(adds|added|inserts?) an axis",
            r"2-D (array|result) for a 1-D",
        ),
        (
            r"flatten",
            r"reshape\w* .{0,20}\(-1",
            r"down the columns",
            r"transpos",
        ),
        code="""
def center_rows(x):
    x = np.atleast_2d(x)
    return x - x.mean(axis=-1, keepdims=True)
""",
    ),
    _c(
        "center-cast-to-int-like-example",
        L00,
        "center_rows",
        "casts the centred rows to int (.astype(int)) so that they look like the integers of "
        "the lesson's example: the result is an integer array and every fraction is truncated "
        "towards zero, right only for rows whose centred entries are whole numbers.",
        (
            r"astype\(int\)",
            r"(integer|int64|int32|int) (array|dtype|result|values)",
            r"truncat",
            r"(fraction|fractional part|decimal)s? (are |is )?(lost|dropped|cut|removed)",
            r"cast\w* (it |the result )?to (an )?int",
            r"not a float(ing-point)? (array|dtype|result)",
        ),
        (
            r"floor division",
            r"//",
            r"means? (is |are )?rounded",
            r"standard deviation",
        ),
        code="""
def center_rows(x):
    return (x - x.mean(axis=-1, keepdims=True)).astype(int)
""",
    ),
    # ------------------------------------------------------------------ 01 tokenization
    _c(
        "tok-repeated-tokens-deduplicated",
        L01,
        "tokenize",
        "removes duplicate tokens, keeping their first-seen order (list(dict.fromkeys(...)), "
        "a de-duplication idiom), as if the result were a vocabulary: a token that occurs "
        "again later in the text ('the', a second ',') is dropped, so any text with a repeated "
        "token comes back too short; texts without repeats are right.",
        (
            r"duplicat",
            r"repeated (token|word|mark)s?",
            r"dict\.fromkeys",
            r"(distinct|unique) tokens",
            r"(second|later|every) occurrences?",
            r"occurs? (more than once|twice|again)",
        ),
        (
            r"(does not|doesn't|never|forgot to|forgets to) lower-?case",
            r"runs? of punctuation|punctuation runs?",
            r"(marks?|punctuation) (are |is )?dropped",
            r"ascii",
            r"last word",
        ),
        code="""
import re


def tokenize(text):
    tokens = re.findall(r"\\w+|[^\\w\\s]", text.lower())
    return list(dict.fromkeys(tokens))
""",
    ),
    _c(
        "vocab-word-tokens-only",
        L01,
        "build_vocab",
        "keeps only word tokens (token.isalnum()), as if punctuation marks did not belong in a "
        "vocabulary: '.', ',' and every other mark (and words with an underscore) are left out, "
        "however often they occur, so they would all be encoded as <unk>.",
        (
            r"punctuation",
            r"isalnum",
            r"(marks?|non-word tokens?|symbols?) (are |is )?(left out|dropped|missing|skipped)",
            r"only (word|alphanumeric|alphabetic) tokens",
            r"'\.'.{0,40}(missing|left out|not in)",
        ),
        (
            r"count (>|strictly above|above) min_freq",
            r"strictly (more|greater)",
            r"ties? .{0,30}(first.seen|not alphabetical|reverse)",
            r"special tokens? (are )?(missing|renumbered|overwritten)",
            r"ascending",
        ),
        code="""
from collections import Counter


def build_vocab(token_lists, min_freq=1):
    counts = Counter(token for tokens in token_lists for token in tokens)
    vocab = {token: index for index, token in enumerate(SPECIAL_TOKENS)}
    for token, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        if count >= min_freq and token not in vocab and token.isalnum():
            vocab[token] = len(vocab)
    return vocab
""",
    ),
    _c(
        "encode-set-comprehension",
        L01,
        "encode",
        "writes the lookup as a set comprehension, {vocab.get(token, unk) for token in "
        "tokens}, braces where a list needs brackets: it returns a set, so a repeated token's "
        "id appears once and the ids lose the sentence's order.",
        (
            r"set comprehension",
            r"(returned|returns|gave|got|is) a set\b",
            r"<class 'set'>",
            r"\btype set\b",
            r"\bbraces\b|curly",
            r"a set,? not a list",
        ),
        (
            r"set\(tokens\)",
            r"(adds|wraps|wrapped).{0,30}<bos>",
            r"unknown tokens? (are )?(skipped|dropped|vanish)",
            r"reversed",
        ),
        code="""
def encode(tokens, vocab):
    unk = vocab["<unk>"]
    return {vocab.get(token, unk) for token in tokens}
""",
        source=SET_COMPREHENSION,
    ),
    _c(
        "decode-empty-returns-none",
        L01,
        "decode",
        "guards the empty case with a bare return (if len(ids) == 0: return), so decoding no "
        "ids gives None instead of an empty list; every non-empty input is right.",
        (
            r"returned None",
            r"returns None",
            r"(bare|early|empty) return",
            r"empty (list|ids|input|sequence|row).{0,80}(None|\[\])",
            r"None (for|when|instead of) (an )?(empty|\[\])",
        ),
        (
            r"special tokens? (are )?(skipped|dropped|removed)",
            r"key order",
            r"joined",
            r"position (in ids|instead of)",
            r"<eos>.{0,30}(stop|cut)",
        ),
        code="""
def decode(ids, vocab):
    if len(ids) == 0:
        return
    id_to_token = {index: token for token, index in vocab.items()}
    return [id_to_token[int(index)] for index in ids]
""",
    ),
    _c(
        "quiz-unk-is-eos",
        L01,
        "quiz_unk",
        "answers (a), confusing <unk> with <eos>: telling the decoder where a sentence ends is "
        "<eos>'s job; <unk> exists because new text brings words the fixed vocabulary has no "
        "id for (b).",
        (
            r"<eos>",
            r"\beos\b",
            r"end.of.(sentence|sequence)",
            r"where (a|the) sentence ends",
        ),
        (
            r"<pad>'s job",
            r"fill(ing|s)? (up )?short",
            r"rare words? separately",
        ),
        code="""
def quiz_unk():
    return "a"
""",
    ),
    _c(
        "pad-np-stack-no-sequences",
        L01,
        "pad_batch",
        "pads each sequence with np.pad and joins the rows with np.stack: every batch with at "
        "least one sequence is right, but no sequences at all gives np.stack an empty list, "
        "which raises ValueError (need at least one array to stack) instead of returning a "
        "(0, 0) array.",
        (
            r"no sequences( at all)?",
            r"empty (batch|list of sequences)",
            r"\(0, 0\)",
            r"zero sequences",
            r"stack\w* (an )?empty",
        ),
        (
            r"pad_id (is )?ignored",
            r"pads? with (zero|0)\b",
            r"pads? on the left",
            r"float",
            r"max\(\) arg",
        ),
        code="""
def pad_batch(sequences, pad_id):
    max_len = max((len(seq) for seq in sequences), default=0)
    rows = [
        np.pad(np.asarray(seq, dtype=np.int64), (0, max_len - len(seq)), constant_values=pad_id)
        for seq in sequences
    ]
    return np.stack(rows)
""",
        source=STACK_EMPTY,
    ),
    _c(
        "pairs-return-inside-loop",
        L01,
        "get_pair_counts",
        "indents the return inside the loop: the function returns after the first pair, so "
        "only that pair is counted (once), and a list of fewer than two ids returns None "
        "instead of an empty dict.",
        (
            r"return\w* .{0,40}(inside|in) the loop",
            r"indent",
            r"only the first pair",
            r"after (the )?first (pair|iteration|step)",
        ),
        (
            r"last pair",
            r"non-overlapping",
            r"never increment",
            r"(sorted|ordered) by count",
            r"mutable default",
        ),
        code="""
def get_pair_counts(ids):
    counts = {}
    for pair in zip(ids, ids[1:]):
        counts[pair] = counts.get(pair, 0) + 1
        return counts
""",
    ),
    _c(
        "merge-pair-either-order",
        L01,
        "merge_pair",
        "matches the pair in either order, (ids[i], ids[i + 1]) in (pair, pair[::-1]), as if "
        "a pair were unordered: (b, a) is replaced by new_id too when the pair is (a, b).",
        (
            r"(either|both) orders?",
            r"revers\w* (pair|order)",
            r"pair\[::-1\]",
            r"\(b, a\)",
            r"(swapped|other) order",
            r"order of the (two )?ids",
            r"unordered",
        ),
        (
            r"only the (first|second) id",
            r"overlap",
            r"or instead of and",
            r"in.place",
            r"drop\w* the last",
        ),
        code="""
def merge_pair(ids, pair, new_id):
    merged = []
    i = 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) in (pair, pair[::-1]):
            merged.append(new_id)
            i += 2
        else:
            merged.append(ids[i])
            i += 1
    return merged
""",
    ),
    _c(
        "train-new-id-max-plus-one",
        L01,
        "train_bpe",
        "takes each new id as the next free number after the ids in use, max(ids) + 1, "
        "instead of 256 + step: for ASCII text the first merge gets an id below 256 (such as "
        "123, the byte of '{'), so merged tokens share ids with real bytes.",
        (
            r"max\(ids\)",
            r"largest id( in use)?( \+ 1| plus one)",
            r"(should|must) (start at|be|begin at) 256",
            r"below 256",
            r"(collid|clash)\w* with (a )?(real )?bytes?",
            r"ids? (that|which) (are|is) (also )?(a )?bytes?",
        ),
        (
            r"ties? .{0,30}last",
            r"least frequent",
            r"(ids|result) (is |are )?never (updated|reassigned|kept)",
            r"code points",
            r"from 257",
            r"lower-?cas",
        ),
        code="""
def train_bpe(text, num_merges):
    ids = list(text.encode("utf-8"))
    merges = {}
    for _ in range(num_merges):
        counts = get_pair_counts(ids)
        if not counts:
            break
        best = max(counts, key=counts.get)
        new_id = max(ids) + 1
        ids = merge_pair(ids, best, new_id)
        merges[best] = new_id
    return merges
""",
    ),
    _c(
        "quiz-merge-order-six-as",
        L01,
        "quiz_merge_order",
        "answers (d) [257, 257], two 'aaa' tokens, which stand for six a's where the text has "
        "five: (a, a) everywhere gives [256, 256, 97], then (256, a) gives [256, 257] (b).",
        (
            r"\bsix\b",
            r"\b6 (a|a's|letters|bytes|characters)",
            r"(more|too many) (a's|letters|bytes|characters)",
            r"five (a's|letters|bytes|characters)",
            r"(only|has) 5 (a's|letters|bytes|characters)",
        ),
        (
            r"longest",
            r"greed",
            r"stop\w* after the first",
            r"first merge only",
        ),
        code="""
def quiz_merge_order():
    return "d"
""",
    ),
    _c(
        "bpe-encode-nfd-normalised",
        L01,
        "bpe_encode",
        "normalises the text to NFD (unicodedata.normalize('NFD', text), the decomposition "
        "step of accent-stripping tokenizers) before taking its bytes: an accented letter such "
        "as 'é' becomes 'e' plus a combining accent, other bytes than the text's own, so "
        "accented text gets other ids; plain ASCII is right.",
        (
            r"\bNFD\b",
            r"normali[sz]",
            r"decompos",
            r"combining (accent|mark|character)",
            r"unicodedata",
        ),
        (
            r"\bascii\b",
            r"latin",
            r"code points?",
            r"lower-?cas",
            r"leftmost",
        ),
        code="""
import unicodedata


def bpe_encode(text, merges):
    ids = list(unicodedata.normalize("NFD", text).encode("utf-8"))
    while len(ids) >= 2:
        present = [pair for pair in get_pair_counts(ids) if pair in merges]
        if not present:
            break
        pair = min(present, key=merges.get)
        ids = merge_pair(ids, pair, merges[pair])
    return ids
""",
        source=NFD_BYTES,
    ),
    _c(
        "bpe-decode-unmerges-in-learned-order",
        L01,
        "bpe_decode",
        "decodes by undoing the merges, replacing each new_id by its pair, but walks the "
        "merges in the order they were learned instead of the reverse: expanding 256 first "
        "leaves unexpanded the 256s that expanding 257 = (256, a) puts back, so any ids holding "
        "a merge built on another merge end with ids >= 256 and bytes(...) raises ValueError "
        "(bytes must be in range(0, 256)); merges of two raw bytes decode right.",
        (
            r"revers\w* (the )?(learned )?order",
            r"(latest|newest|last).learned (merges? )?first",
            r"(learned|forward) order.{0,60}instead of (the )?revers",
            r"(unexpanded|left over|never expanded)",
            r"undo\w* .{0,40}(wrong )?order",
            r"merges? built on (another|earlier) merges?",
        ),
        (
            r"bytes\(\[a, b\]\)",
            r"first part twice",
            r"latin",
            r"(each token|tokens?) separately",
            r"cached",
        ),
        code="""
def bpe_decode(ids, merges):
    ids = list(ids)
    for (a, b), new_id in merges.items():  # undo each merge
        expanded = []
        for i in ids:
            expanded.extend((a, b) if i == new_id else (i,))
        ids = expanded
    return bytes(ids).decode("utf-8", errors="replace")
""",
    ),
    # ------------------------------------------------------------------ 02 embeddings
    _c(
        "onehot-last-axis-indexed-without-rows",
        L02,
        "one_hot",
        "sets out[..., ids] = 1 on zeros of shape ids.shape + (vocab_size,), indexing the "
        "last axis with the whole array of ids and no row index: every vector gets a 1 at every "
        "id of the batch (a multi-hot row), right only when all the ids are equal.",
        (
            r"1 at every id",
            r"ones? at (the positions of )?(all|every) (the )?ids",
            r"multi-?hot",
            r"row (index|indices) (is |are )?missing",
            r"without (the |a )?row ind",
            r"out\[\.\.\., ids\]",
            r"(all|every) ids? of the (batch|input)",
        ),
        (
            r"\bbool",
            r"largest id|ids\.max",
            r"transpos",
            r"flatten",
            r"label.smooth",
        ),
        code="""
def one_hot(ids, vocab_size):
    ids = np.asarray(ids)
    out = np.zeros(ids.shape + (vocab_size,))
    out[..., ids] = 1
    return out
""",
        source=ONE_HOT_ROWS,
    ),
    _c(
        "embed-stack-loop-fails-on-scalar-id",
        L02,
        "embed",
        "loops over the ids and stacks the rows, np.stack([table[i] for i in ids]): 1-D and "
        "2-D ids come out right (each i is an id or a row of ids), but a single id given as a "
        "0-d array, shape (), cannot be iterated and raises TypeError, where indexing the "
        "table with the whole array works for any shape.",
        (
            r"ids of shape \(\)",
            r"\bscalar (id|array|index)",
            r"single id (given )?as an? (0-d|zero-dimensional)",
            r"loop(s|ing)? over (the )?ids",
            r"(python|for) loop",
            r"index(ing)? the table (directly )?with the (whole )?(array|ids)",
        ),
        (
            r"columns?\b",
            r"flatten",
            r"squeez",
            r"transpos",
            r"one.based",
        ),
        code="""
def embed(ids, table):
    table = np.asarray(table)
    return np.stack([table[i] for i in np.asarray(ids)])
""",
        source=ZERO_D_ITERATION,
    ),
    _c(
        "quiz-linear-layer-with-bias",
        L02,
        "quiz_linear_layer",
        "answers (d), nn.Linear(vocab_size, d_model) with its bias and weight E.T, instead of "
        "(a), the same layer without bias: the bias adds one learned vector to every output, "
        "so the vectors are no longer the rows of E.",
        (r"\bbias",),
        (
            r"\(out_features, in_features\)",
            r"weight (is |must be )?(E\.T|transposed)",
            r"in_features (is|must be) vocab_size",
        ),
        code="""
def quiz_linear_layer():
    return "d"
""",
    ),
    _c(
        "cos-transposes-a-not-b",
        L02,
        "cosine_similarity",
        "transposes the wrong operand, a_unit.T @ b_unit instead of a_unit @ b_unit.T: the "
        "product contracts over the rows and gives a (d, d) matrix of feature against feature; "
        "it raises unless n == m, and is never the (n, m) matrix of cosines.",
        (
            r"a(_unit)?\.T\b",
            r"transpos\w* (a|the first|the wrong)",
            r"wrong (operand|matrix|argument|one)",
            r"features? (by|against|x) features?",
            r"\(d, d\)",
            r"contract\w* over (the )?rows",
        ),
        (
            r"without transposing b",
            r"b (is )?not transposed",
            r"\(m, n\)",
            r"row.?wise|row by row",
            r"whole.matrix norm|frobenius",
        ),
        code="""
def cosine_similarity(a, b):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    a_unit = a / np.maximum(np.linalg.norm(a, axis=-1, keepdims=True), 1e-12)
    b_unit = b / np.maximum(np.linalg.norm(b, axis=-1, keepdims=True), 1e-12)
    return a_unit.T @ b_unit
""",
    ),
    _c(
        "quiz-gradient-rows-pad-row-left-out",
        L02,
        "quiz_gradient_rows",
        "answers 4, leaving out row 0 as if the <pad> id never received a gradient "
        "(padding_idx's behaviour): a plain nn.Embedding gives row 0 a gradient like any "
        "other row, so the rows of ids 3, 0, 5, 1, 2 learn: five.",
        (
            r"row 0",
            r"\bid 0\b",
            r"padding_idx",
            r"<pad>",
        ),
        (
            r"(six|6) positions",
            r"vocab(ulary)? size",
            r"every row",
        ),
        code="""
def quiz_gradient_rows():
    return 4
""",
    ),
    _c(
        "tokemb-generator-inside",
        L02,
        "TokenEmbedding",
        "also creates the output projection in the module, self.generator = nn.Linear(d_model, "
        "vocab_size), to tie it to the table later (the annotated Transformer's Generator): the "
        "lookups are right, but the module has a second layer, two extra parameters and "
        "state-dict entries besides the table.",
        (
            r"generator",
            r"(extra|second|another|additional|unexpected) (parameters?|layers?|modules?|weights?)",
            r"only parameter",
            r"more parameters than",
            r"output projection",
        ),
        (
            r"(not|never) scaled",
            r"divid",
            r"padding_idx",
            r"frozen|requires_grad",
            r"vocab_size \+ 1",
            r"scale .{0,20}parameter",
            r"instead of nn\.Embedding",
        ),
        code="""
import math


class TokenEmbedding(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.d_model = d_model
        self.embedding = nn.Embedding(vocab_size, d_model)
        self.generator = nn.Linear(d_model, vocab_size)  # the output layer, to tie later

    def forward(self, ids):
        return self.embedding(ids) * math.sqrt(self.d_model)
""",
        source=GENERATOR_TIED,
    ),
    # ------------------------------------------------------------------ 03 positional encoding
    _c(
        "pe-integer-power-overflow",
        L03,
        "positional_encoding",
        "writes the denominator as the d_model-th root of 10000^(2i), np.power(np.power(10000, "
        "two_i), 1 / d_model), with an integer base and integer exponents: 10000^(2i) "
        "overflows int64 from 2i = 6 on and wraps round, so with d_model >= 8 the later pairs "
        "get garbage or NaN frequencies; small d_model is right.",
        (
            r"overflow",
            r"integer (power|exponent|arithmetic|base)",
            r"int64 (overflow|wrap)",
            r"wraps? (a)?round",
            r"(base|10000) (as|is) an int",
            r"(use|make) (the base )?(a )?float",
            r"10000\.0 instead of 10000",
        ),
        (
            r"exponent .{0,30}\bi\b.{0,10}instead of 2i",
            r"multipl\w* (the position|by 10000)",
            r"base 1000\b",
            r"positions? (start|from) (at )?1",
            r"sin.{0,20}cos.{0,20}swap",
        ),
        code="""
def positional_encoding(max_len, d_model):
    positions = np.arange(max_len)[:, None]  # (max_len, 1)
    two_i = np.arange(0, d_model, 2)  # the even feature indices
    angles = positions / np.power(np.power(10000, two_i), 1 / d_model)
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return pe
""",
        source=INT_POWER_OVERFLOW,
    ),
    _c(
        "rs-odd-last-feature-kept",
        L03,
        "relative_shift",
        "handles an odd d_model instead of refusing it: it builds the blocks of the complete "
        "pairs and puts 1 on the last diagonal entry (the unpaired sine left as it is, as "
        "positional_encoding leaves it unpaired), so an odd d_model returns a matrix instead "
        "of raising the ValueError the exercise asks for; every even d_model is right.",
        (
            r"ValueError",
            r"odd d_model.{0,80}(raise|reject|refus)",
            r"(raise|reject|refus)\w*.{0,60}odd",
            r"(unpaired|last) (sine|feature).{0,60}(cannot|can't|no matrix)",
        ),
        (
            r"IndexError",
            r"assert",
            r"returns? None",
            r"(raises|raised) a (str|string)",
            r"parity (test )?inverted",
        ),
        code="""
def relative_shift(k, d_model):
    m = np.zeros((d_model, d_model))
    two_i = np.arange(0, d_model - 1, 2)  # the complete pairs
    theta = k / np.power(10000.0, two_i / d_model)
    m[two_i, two_i] = np.cos(theta)
    m[two_i + 1, two_i] = np.sin(theta)
    m[two_i, two_i + 1] = -np.sin(theta)
    m[two_i + 1, two_i + 1] = np.cos(theta)
    if d_model % 2:
        m[-1, -1] = 1.0  # the unpaired sine stays as it is
    return m
""",
    ),
    _c(
        "quiz-shift-printed-not-returned",
        L03,
        "quiz_shift",
        "prints the right letter, print('c'), instead of returning it: the function returns None.",
        (
            r"\bprint",
            r"returns None",
            r"returned None",
            r"no return",
            r"(never|not|doesn't|does not) return",
        ),
        (
            r"only k = 1",
            r"depends on (pos|the position)",
            r"backwards?",
            r"two letters",
        ),
        code="""
def quiz_shift():
    print("c")
""",
        source=PRINT_NOT_RETURN,
    ),
    _c(
        "quiz-row-length-array-of-rows",
        L03,
        "quiz_row_length",
        "returns the lengths of ten rows, np.linalg.norm(positional_encoding(10, 128), "
        "axis=1), an array of ten 8.0s (computed to show it does not depend on the position), "
        "instead of the one number 8.0.",
        (
            r"array of (10|ten|several|many)",
            r"(one|a single) number",
            r"several (lengths|rows|numbers|values)",
            r"shape \(10,\)",
            r"(not|instead of) a (single )?(number|float|scalar)",
        ),
        (
            r"squared",
            r"sqrt\(128\)|11\.3",
            r"d_model = 512",
            r"tuple",
            r"returns? None",
        ),
        code="""
def quiz_row_length():
    return np.linalg.norm(positional_encoding(10, 128), axis=1)
""",
    ),
    _c(
        "posenc-sequence-first-not-transposed-back",
        L03,
        "PositionalEncoding",
        "follows the sequence-first PyTorch tutorial: keeps the table as (max_len, 1, "
        "d_model), transposes x to (len, batch, d_model) to add it, and returns that without "
        "transposing back: the values are right, but the output is (len, batch, d_model) "
        "instead of (batch, len, d_model) (a batch of one comes back (len, 1, d_model)).",
        (
            r"transpos\w* back",
            r"\(len, batch, d_model\)",
            r"(output|result|returned?)\w*.{0,60}(len, batch|sequence.first|time.first)",
            r"(batch and length|length and batch|batch and position) axes (are )?(swapped|exchanged)",
            r"axes 0 and 1",
        ),
        (
            r"x\.size\(0\)",
            r"batch size (is )?used as (the )?length",
            r"in.place",
            r"dropout (before|on x)",
            r"plain attribute",
        ),
        code="""
class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        table = torch.tensor(positional_encoding(max_len, d_model), dtype=torch.float32)
        self.register_buffer("pe", table.unsqueeze(1))  # (max_len, 1, d_model)

    def forward(self, x):
        x = x.transpose(0, 1)  # (len, batch, d_model), the tutorial's layout
        length = x.size(0)
        if length > self.pe.size(0):
            raise ValueError(f"sequence length {length} exceeds max_len={self.pe.size(0)}")
        return self.dropout(x + self.pe[:length])
""",
        source=SEQUENCE_FIRST,
    ),
]
