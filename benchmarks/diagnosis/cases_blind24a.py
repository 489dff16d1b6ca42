"""Held-out wrong answers, blind round 24 (helper b24a, 2026-11-29, lessons 01-06): mistakes new to
the benchmark, written blind (no check module, no message read) while fix round 26 changed
the checks, to measure how the diagnoses generalise to mistakes nobody here has seen
(``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L01, L02, L03 = "01_tokenization", "02_embeddings", "03_positional_encoding"
L04, L05, L06 = "04_attention", "05_multi_head_attention", "06_masking"

_c = held_out_authored("blind24a")

# Where these mistakes are reported (each page was read for this batch).
TOP_PAIRS_PER_STEP = "https://github.com/karpathy/minbpe/issues/69"
NEWLINE_DELETED = "https://pythonguides.com/convert-multiline-string-to-single-line-python/"
ADD_WORD_ORDER = (
    "https://github.com/pytorch/tutorials/blob/master/intermediate_source/"
    "seq2seq_translation_tutorial.py"
)
OOV_BUCKETS = "https://tensorflow.org/versions/r2.7/api_docs/python/tf/lookup/StaticVocabularyTable"
TO_CATEGORICAL = "https://github.com/explosion/thinc/issues/339"
ROW_MAX = "https://manongdao.com/q-672019.html"
EINSUM_DIMS = "https://github.com/kyegomez/BitNet/issues/5"
LEARNED_POSITIONS = "https://github.com/minqukanq/transformer-pytorch/issues/2"
SQUARE_MASK = "https://github.com/harvard-edge/cs249r_book/pull/1875"
HEADS_AVERAGED = "https://github.com/pytorch/pytorch/issues/34537"
NUMPY_CAUSAL = "https://www.graduateml.com/problem/00000000-0000-0000-0000-000000000062"
PLUS_ONE_IDS = "https://gist.github.com/edumunozsala/6013e33335f70030e0760fa6457db940"
OUTER_NORMS = "https://kiwix.lema.org/stackoverflow.com_en_all_2023-11/questions/33160949/cosine-distance-between-two-matrices"

BLIND24A: list[Case] = [
    # ---- 01 tokenization ------------------------------------------------------------------
    _c(
        "tok-newlines-deleted",
        L01,
        "tokenize",
        "deletes the newline characters before splitting (text.replace('\\n', ''), a "
        "clean-up step for multi-line text), so the last word of a line and the first word "
        "of the next are glued into one token ('end\\nstart' gives 'endstart').",
        (
            r"(newline|line break|\\n)s?( characters?)? (is |are )?(deleted|removed|dropped|stripped|replaced by nothing)",
            r"(glued|joined|merged|run together|fused|stuck together) (across|over) (a |the )?(line|newline)",
            r"words? (on|from) (two|separate|different|consecutive|adjacent) lines",
            r"(last|final) word of (a|one|each|the) line",
        ),
        (
            r"(tabs?|newlines?) (become|are|come out as) tokens",
            r"(not|never|forg[eo]t\w* to) lower-?cas",
            r"runs? of (punctuation|marks)",
        ),
        edits=[("text.lower())", 'text.replace("\\n", "").lower())')],
        source=NEWLINE_DELETED,
    ),
    _c(
        "vocab-first-appearance",
        L01,
        "build_vocab",
        "numbers the data's tokens in the order they first appear (the seq2seq tutorial's "
        "Lang.addWord habit), never sorting them by descending count, so a frequent token "
        "seen late gets a larger id than a rare token seen early.",
        (
            r"(first|order of) (appearance|occurrence)",
            r"order (in which )?(they|the tokens?) (first )?(appear|occur|are seen|come)",
            r"(not|never|isn't|aren't|without (being )?) sort\w* (by|on) (their )?(count|frequency)",
            r"ignor\w* (the )?(counts?|frequenc)",
            r"by (descending|decreasing) (count|frequency)",
        ),
        (
            r"alphabetical(ly)? only",
            r"(strictly|more than|>) (above )?min_freq",
            r"reverse alphabetical",
            r"special tokens? (are )?(missing|left out)",
        ),
        edits=[
            (
                "sorted(counts.items(), key=lambda item: (-item[1], item[0]))",
                "counts.items()",
            )
        ],
        source=ADD_WORD_ORDER,
    ),
    _c(
        "vocab-next-id-plus-one",
        L01,
        "build_vocab",
        "gives each new token the id len(vocab) + 1 instead of len(vocab), so id 4 is never "
        "used (the Keras 'add 1, indexing starts at 1' habit): the first data token gets 5 "
        "and every data token's id is one too high.",
        (
            r"\bgap",
            r"(skips?|skipped|missing|unused|never used) (the )?id 4",
            r"one too (high|large|big)|off[- ]by[- ]one|plus one",
            r"len\(vocab\) ?\+ ?1",
            r"(not|aren't|must be) (0, 1, 2|contiguous|consecutive)",
        ),
        (
            r"numbers? (the )?ids from 1",
            r"special tokens? (come |are )?(after|last|appended)",
            r"alphabetical(ly)? only",
        ),
        edits=[("vocab[token] = len(vocab)", "vocab[token] = len(vocab) + 1")],
        source=PLUS_ONE_IDS,
    ),
    _c(
        "encode-oov-hash-buckets",
        L01,
        "encode",
        "sends each unknown token to a hashed out-of-vocabulary bucket, len(vocab) + "
        "hash(token) % 100 (TensorFlow's num_oov_buckets), instead of the id of '<unk>': "
        "unknown tokens get ids past the end of the vocabulary.",
        (
            r"\bhash",
            r"\bbuckets?\b",
            r"(ids?|values?) (outside|beyond|past|not in|larger than|out of range of) the vocab",
            r"(unknown|out-of-vocabulary|oov|missing|unseen) tokens?.{0,40}(id of|map\w* to|become|get) ['\"]?<unk>",
        ),
        (
            r"raises? (a )?KeyError|vocab\[token\] without",
            r"hard-?coded 0|id of ['\"]?<pad>",
            r"becomes? None",
            r"wraps? .{0,30}<bos>|adds? (a )?<bos>",
        ),
        code="""
def encode(tokens, vocab):
    return [vocab[token] if token in vocab else len(vocab) + hash(token) % 100 for token in tokens]
""",
        source=OOV_BUCKETS,
    ),
    _c(
        "pad-centred",
        L01,
        "pad_batch",
        "splits each row's padding between its two ends (np.pad with (extra // 2, extra - "
        "extra // 2), 'same' padding as for images) instead of putting all of it on the "
        "right, so shorter sequences no longer start at column 0.",
        (
            r"both (ends|sides)",
            r"\bcent(er|re)",
            r"half (of )?(the )?padding|padding .{0,20}split",
            r"(start|begin)s? at (column|position|index) 0",
            r"pad\w* (also )?(on|at) the (left|start|beginning)",
        ),
        (
            r"fill\w* with (0|zeros?) instead",
            r"float (array|dtype|ids)",
            r"time[- ]first|\(max_len, batch\)",
            r"(first|shortest) sequence",
        ),
        code="""
import numpy as np


def pad_batch(sequences, pad_id):
    max_len = max((len(seq) for seq in sequences), default=0)
    rows = []
    for seq in sequences:
        extra = max_len - len(seq)
        row = np.pad(np.asarray(seq, dtype=np.int64), (extra // 2, extra - extra // 2),
                     constant_values=pad_id)
        rows.append(row)
    return np.array(rows, dtype=np.int64).reshape(len(sequences), max_len)
""",
    ),
    _c(
        "merge-pair-else-dropped",
        L01,
        "merge_pair",
        "leaves out the else: after a merge the loop also appends the next id without "
        "testing it, so a pair that starts right after a merged one is never merged "
        "([a, b, a, b] gives [new, a, b]) and a pair at the end raises IndexError.",
        (
            r"\belse\b",
            r"IndexError|out of range|past the end",
            r"(next|following) id.{0,40}(appended|copied|added|unchecked|without (being )?(checked|tested))",
            r"(back-to-back|consecutive|adjacent|right after|immediately after).{0,40}(occurrences?|pairs?|merge)",
        ),
        (
            r"overlap",
            r"in place|modif\w* the (input|caller)",
            r"only the first occurrence",
            r"(right|last) end|from the right",
        ),
        edits=[
            (
                "            i += 2\n        else:\n            merged.append(ids[i])\n            i += 1",
                "            i += 2\n        merged.append(ids[i])\n        i += 1",
            )
        ],
    ),
    _c(
        "train-bpe-two-merges-per-count",
        L01,
        "train_bpe",
        "merges the two most frequent pairs of each count before counting again (a speed-up "
        "proposed for minbpe), so every second merge is chosen from counts taken before the "
        "previous merge: it can learn a pair that the first merge has made rarer and miss "
        "the pair that merge created.",
        (
            r"(two|2|several|multiple|top[- ]?\w*) (most frequent )?pairs? (per|each|in one|at once|for every|from one) (step|round|iteration|count)",
            r"(stale|outdated|old|previous) (pair )?counts?",
            r"(recount|re-count|count again|recompute\w*|refresh\w*) (the )?(pairs? |counts? )?(after|before) (each|every) merge",
            r"counts? (taken |made )?before the (first|previous|last) merge",
        ),
        (
            r"least frequent",
            r"code points|ord\(",
            r"ids? (start|begin)s? at 257|steps? from 1",
            r"as (the |minbpe.?s )?vocab(ulary)?[_ ]size",
        ),
        code="""
def train_bpe(text, num_merges):
    ids = list(text.encode("utf-8"))
    merges = {}
    while len(merges) < num_merges:
        counts = get_pair_counts(ids)
        if not counts:
            break
        for pair in sorted(counts, key=counts.get, reverse=True)[:2]:
            if len(merges) == num_merges:
                break
            new_id = 256 + len(merges)
            ids = merge_pair(ids, pair, new_id)
            merges[pair] = new_id
    return merges
""",
        source=TOP_PAIRS_PER_STEP,
    ),
    _c(
        "bpe-encode-rank-default-zero",
        L01,
        "bpe_encode",
        "ranks the pairs with merges.get(pair, 0), a default of 0 where minbpe uses "
        "infinity, so a pair that is not a merge ranks before every learned one and "
        "encoding stops as soon as one such pair is present (often at once, returning bytes).",
        (
            r"(default|fallback)( rank| value)? (of )?(0|zero)",
            r"float\(['\"]inf|infinit|\binf\b",
            r"stops? (too early|early|too soon|at once|immediately|before)",
            r"(non-?merge|unmerge\w*|unknown|unlearned|not (a )?learned) pairs? (rank|come|win|sort|are chosen)",
        ),
        (
            r"latest-learned|highest (new )?id",
            r"(most frequent|highest count)",
            r"single pass|once each",
            r"smallest pair",
        ),
        edits=[
            (
                "present = [pair for pair in get_pair_counts(ids) if pair in merges]\n"
                "        if not present:\n"
                "            break\n"
                "        pair = min(present, key=merges.get)",
                "pair = min(get_pair_counts(ids), key=lambda p: merges.get(p, 0))\n"
                "        if pair not in merges:\n"
                "            break",
            )
        ],
    ),
    _c(
        "bpe-decode-expands-first-part-only",
        L01,
        "bpe_decode",
        "expands a merged id recursively through the inverted merges but recurses into its "
        "first part only, keeping the second part as it is: whenever that second part is "
        "itself a merged id (256 or more), bytes() gets a value outside 0..255 and raises.",
        (
            r"(first|left) (part|half|id) only",
            r"(second|right) (part|half|id).{0,60}(not|never) (expanded|recursed|decoded|resolved)",
            r"(recurs\w*|expan\w*).{0,60}(both|each|every) (parts?|halves|ids)",
            r"(bytes must be|outside|not in) (in )?(range\(256\)|0 ?\.\. ?255|0 to 255)",
        ),
        (
            r"latin-?1",
            r"bytes\(\[a, ?b\]\)",
            r"each token('s bytes)? separately",
            r"without errors=.?replace|errors=.?(strict|ignore)",
        ),
        code="""
def bpe_decode(ids, merges):
    parts = {new_id: pair for pair, new_id in merges.items()}

    def expand(token_id):
        if token_id < 256:
            return [token_id]
        first, second = parts[token_id]
        return expand(first) + [second]

    raw = [byte for token_id in ids for byte in expand(token_id)]
    return bytes(raw).decode("utf-8", errors="replace")
""",
    ),
    # ---- 02 embeddings --------------------------------------------------------------------
    _c(
        "one-hot-trailing-axis-squeezed",
        L02,
        "one_hot",
        "drops a last axis of size 1 before encoding (keras.utils.to_categorical's rule), so "
        "ids of shape (batch, 1) give (batch, vocab_size) instead of (batch, 1, vocab_size).",
        (
            r"(trailing|last|final) (axis|dim\w*) of (size|length) 1",
            r"(drops?|dropped|squeez\w*|remov\w*|los[est]+) (the |an? |its )?(last |trailing )?(axis|dim\w*)",
            r"to_categorical",
            r"\(batch, ?1, ?vocab_size\)",
        ),
        (
            r"flatten|ravel",
            r"max\(ids\)|largest id",
            r"bool(ean)? (array|dtype|values)",
            r"vocab_size \+ 1",
        ),
        code="""
import numpy as np


def one_hot(ids, vocab_size):
    ids = np.asarray(ids)
    if ids.ndim > 1 and ids.shape[-1] == 1:
        ids = ids[..., 0]
    return np.eye(vocab_size)[ids]
""",
        source=TO_CATEGORICAL,
    ),
    _c(
        "cosine-outer-norms-swapped",
        L02,
        "cosine_similarity",
        "divides a @ b.T by np.outer(norms of b, norms of a), the outer product in the wrong "
        "order: (m, n) against (n, m), which raises unless n == m and then divides entry "
        "(i, j) by |b[i]| |a[j]| instead of |a[i]| |b[j]|.",
        (
            r"\bouter\b.{0,60}(order|swapped|transposed|wrong way|other way)",
            r"(swapped|transposed|wrong order).{0,60}norms?",
            r"\|b\[?_?i\]?\| ?\|a\[?_?j\]?\|",
        ),
        (
            r"whole matri(x|ces)|without axis",
            r"squared norms?",
            r"NaN for (a )?zero vectors?|zero vectors? (gives?|yields?) NaN",
            r"axis 0|columns",
        ),
        code="""
import numpy as np


def cosine_similarity(a, b):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    a_norm = np.maximum(np.linalg.norm(a, axis=-1), 1e-12)
    b_norm = np.maximum(np.linalg.norm(b, axis=-1), 1e-12)
    return (a @ b.T) / np.outer(b_norm, a_norm)
""",
        source=OUTER_NORMS,
    ),
    # ---- 03 positional encoding ----------------------------------------------------------
    _c(
        "pe-positions-normalised",
        L03,
        "positional_encoding",
        "divides every position by max_len before taking the angles (normalised positions "
        "in [0, 1), as coordinate encodings do), so row pos holds the paper's encoding of "
        "pos / max_len and the whole table changes with max_len.",
        (
            r"(normali[sz]\w*|divid\w*|scal\w*|rescal\w*) (the |each |every )?positions?",
            r"/ ?max_len|by max_len",
            r"(depends|changes) (on|with) max_len",
            r"positions? (in|within|between) \[?0, ?1",
        ),
        (
            r"(multipl\w*|times) .{0,30}10000",
            r"10000\^\(i ?/|pair index",
            r"positions? (start|count\w*|number\w*) (at|from) 1",
            r"cos(ines?)? on the even|sin and cos swapped",
        ),
        edits=[
            (
                "positions = np.arange(max_len, dtype=np.float64)[:, None]",
                "positions = (np.arange(max_len, dtype=np.float64) / max_len)[:, None]",
            )
        ],
    ),
    _c(
        "pe-learned-position-embedding",
        L03,
        "PositionalEncoding",
        "adds a learned position embedding, nn.Embedding(max_len, d_model) looked up at "
        "0 .. len-1 (BERT's and GPT-2's position embeddings), instead of the fixed "
        "sinusoidal table of exercise 1: the added rows are random trainable parameters.",
        (
            r"learn(ed|able|t)",
            r"trainable|nn\.Embedding|(extra|unexpected|new) parameters?",
            r"not the (fixed |sinusoidal |sin/cos )+(table|encoding|rows)",
            r"(instead of|rather than|not) (the )?(fixed )?(sinusoid\w*|sin(e|/| and )cos\w*)",
        ),
        (
            r"dropout (before|to x|on the encoding)",
            r"plain attribute",
            r"(stores?|keeps?|registers?) the table (as )?float64|float64 (buffer|table)",
            r"x\.size\(0\)|batch size",
        ),
        code="""
import torch
from torch import nn


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.position_embedding = nn.Embedding(max_len, d_model)

    def forward(self, x):
        positions = torch.arange(x.shape[1], device=x.device)
        return self.dropout(x + self.position_embedding(positions))
""",
        source=LEARNED_POSITIONS,
    ),
    # ---- 04 attention ---------------------------------------------------------------------
    _c(
        "softmax-max-along-axis-0",
        L04,
        "softmax",
        "takes the stabilising max along axis 0 whatever the axis argument, so for the "
        "default axis=-1 each column's max is subtracted: the shift varies inside a slice "
        "and the result is no longer the softmax of that slice.",
        (
            r"max\w* (is |was )?(taken |computed )?(along|over|across) (axis 0|the (first|wrong|other) axis|the columns|a different axis)",
            r"(shift|subtract\w*|offset)\w* .{0,40}(differ|vary|varies|not constant|per column)",
            r"(same|requested|given) axis (as|for) the (max|sum)",
        ),
        (
            r"(sum|normali[sz]\w*) (along|over) the (last|wrong) axis",
            r"overflow|without subtracting",
            r"global max|max of the whole",
        ),
        edits=[
            (
                "peak = np.max(x, axis=axis, keepdims=True)",
                "peak = np.max(x, axis=0, keepdims=True)",
            )
        ],
        source=ROW_MAX,
    ),
    _c(
        "sdpa-einsum-four-dims",
        L04,
        "scaled_dot_product_attention",
        "writes both products with 4-D einsum subscripts ('bhqd,bhkd->bhqk'), so only "
        "(batch, heads, len, d) inputs work: a 3-D batch or a single 2-D sentence raises, "
        "where the contract allows any number of leading dims.",
        (
            r"einsum",
            r"\b(exactly |only )?(four|4)[- ]?d(im\w*)?\b",
            r"(leading|batch) dim\w*.{0,40}(any|other|fewer|3-?d|2-?d)",
            r"\.\.\.|ellipsis",
        ),
        (
            r"\bbmm\b",
            r"k\.T\b|reverses every (axis|dim)",
            r"(softmax|normali[sz]\w*) over the (query|first|wrong) axis",
        ),
        code="""
import math

import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    weights = torch.nan_to_num(weights, nan=0.0)
    output = torch.einsum("bhqk,bhkd->bhqd", weights, v)
    return output, weights
""",
        source=EINSUM_DIMS,
    ),
    # ---- 05 multi-head attention ----------------------------------------------------------
    _c(
        "mha-weights-averaged-over-heads",
        L05,
        "MultiHeadAttention",
        "returns the attention weights averaged over the heads (weights.mean(dim=1), "
        "nn.MultiheadAttention's default) instead of per head: (batch, len_q, len_k) "
        "where (batch, num_heads, len_q, len_k) is asked.",
        (
            r"averag|mean (over|across) (the )?heads",
            r"weights (per|for each|of each|of every) head|per-head weights",
            r"heads? (axis|dim\w*) (is )?(missing|dropped|lost|removed)",
            r"\(batch, ?len_q, ?len_k\)",
        ),
        (
            r"dropout (on|applied)",
            r"(scale|sqrt)\w* (is )?(missing|wrong|forgotten)",
            r"w_o|output projection",
            r"mask (is )?(inverted|ignored)",
        ),
        edits=[
            (
                "return self.w_o(merge_heads(heads)), weights",
                "return self.w_o(merge_heads(heads)), weights.mean(dim=1)",
            )
        ],
        source=HEADS_AVERAGED,
    ),
    _c(
        "mha-mask-expanded-square",
        L05,
        "MultiHeadAttention",
        "expands the mask to a square (batch, 1, len_q, len_q) built from the query's "
        "length before the attention, so it only fits self-attention: in cross-attention, "
        "where len_k differs from len_q, the expand raises.",
        (
            r"square (mask|matrix|shape)",
            r"len_q, ?len_q",
            r"(cross-attention|len_k (!=|differs from|is not) len_q|different (key|source) length)",
            r"(query'?s?|len_q) (length )?(for|on|as) (both|the key)",
        ),
        (
            r"projects? the keys from .?query",
            r"(scale|sqrt)\w* (is )?(missing|wrong|forgotten)",
            r"mask (is )?(inverted|ignored)",
            r"averag",
        ),
        edits=[
            (
                "heads, weights = scaled_dot_product_attention(q, k, v, mask)",
                "if mask is not None:\n"
                "            mask = mask.expand(query.shape[0], 1, query.shape[1], query.shape[1])\n"
                "        heads, weights = scaled_dot_product_attention(q, k, v, mask)",
            )
        ],
        source=SQUARE_MASK,
    ),
    # ---- 06 masking -----------------------------------------------------------------------
    _c(
        "look-ahead-numpy-float",
        L06,
        "look_ahead_mask",
        "builds the triangle in NumPy, np.tril(np.ones((size, size))), and returns that "
        "float64 array of 1.0/0.0 instead of a bool torch tensor.",
        (
            r"numpy|ndarray|np\.tril",
            r"(not|instead of) a (bool(ean)? )?(torch )?tensor",
        ),
        (
            r"diagonal (is )?(missing|excluded|blocked)",
            r"upper triangle|triu|transposed",
            r"polarity|inverted",
        ),
        code="""
import numpy as np


def look_ahead_mask(size):
    return np.tril(np.ones((size, size)))
""",
        source=NUMPY_CAUSAL,
    ),
    _c(
        "decoder-mask-triangle-from-batch",
        L06,
        "decoder_self_attention_mask",
        "sizes the causal triangle with tgt_ids.shape[0], the batch size, instead of "
        "tgt_ids.shape[1], the length: it fails to broadcast unless the two are equal, "
        "and is the wrong triangle's size otherwise.",
        (
            r"shape\[0\]|size\(0\)",
            r"batch size",
            r"(triangle|look-?ahead|causal).{0,60}(batch|number of (sequences|rows))",
        ),
        (
            r"(OR|\|) instead of (AND|&)",
            r"query axis|on the queries",
            r"head axis (is )?missing",
        ),
        edits=[("look_ahead_mask(tgt_ids.shape[1])", "look_ahead_mask(tgt_ids.shape[0])")],
    ),
]
