"""Held-out wrong answers, blind round 21 (helper b21a, 2026-11-28, lessons 01-06): mistakes new to
the benchmark, written blind (no check module, no message read) while fix round 23 changed
the checks, to measure how the diagnoses generalise to mistakes nobody here has seen
(``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L01, L02, L03 = "01_tokenization", "02_embeddings", "03_positional_encoding"
L04, L05, L06 = "04_attention", "05_multi_head_attention", "06_masking"

_c = held_out_authored("blind21a")

# Where these mistakes are reported (each page was read for this batch).
ASCII_PUNCTUATION = (
    "https://artificial-intelligence-wiki.com/natural-language-processing/"
    "text-preprocessing-and-tokenization/removing-punctuation-and-special-characters"
)
KEY_INDEX = "https://www.geeksforgeeks.org/python-key-index-in-dictionary/"
ZIP_SHORTEST = "https://blog.softhints.com/python-3-transpose-list-of-lists-different-size/"
PAD_LENGTHS = "https://pytorch.org/docs/2.1/generated/torch.nn.utils.rnn.pad_packed_sequence.html"
LOOP_VARIABLE = "https://sqlpey.com/python/python-for-loop-variable-modification"
MERGE_COUNT = "https://github.com/rasbt/LLMs-from-scratch/pull/629"
ENCODE_LOOP = "https://github.com/karpathy/minbpe/issues/100"
COSINE_DIM = "https://bcxiaobai.eu.org/post/15798.html"
TIMES_INF = "https://github.com/cerebroai/reformers/issues/3"
PERMUTE_DIMS = "https://github.com/gaopengcuhk/SMCA-DETR/issues/10"
SCORES_TIMES_KEYS = "https://github.com/fchollet/deep-learning-with-python-notebooks/issues/261"
VALUE_DEFAULT = "https://github.com/PaddlePaddle/Paddle/issues/47475"
KEYS_FIRST_MASK = "https://github.com/FluxML/NNlib.jl/issues/572"
CATEGORIES_AUTO = (
    "https://scikit-learn.org/1.2/modules/generated/sklearn.preprocessing.OneHotEncoder.html"
)
PAD_MAX_LENGTH = "https://huggingface.co/docs/transformers/pad_truncation"
TF_PADDING_MASK = "https://github.com/hsuanchunlin/NLP-notes"
TF_CALL_ORDER = "https://stats.stackexchange.com/q/541448"
FIXED_SCALE = "https://github.com/BobMcDear/attorch/issues/14"
SCALED_TWICE = "https://github.com/TensorAuto/OpenTau/pull/179"
RATE_PRECEDENCE = "https://github.com/zju3dv/LoFTR/issues/41"

_PAD_OTHERS = (
    r"pad\w* (on )?the left|left-pad",
    r"float (dtype|array|ids)",
    r"(ignores|never uses|without) pad_id|pad\w* with (0|zeros?) instead",
    r"\(max_len, batch\)|time[- ]first|transposed",
)

_MHA_OTHERS = (
    r"scale|sqrt",
    r"dropout",
    r"merge_heads|split_heads",
    r"mask (is )?(inverted|ignored|dropped)",
    r"w_o|output projection",
)

BLIND21A: list[Case] = [
    # ---- 01 tokenization ------------------------------------------------------------------
    _c(
        "tok-string-punctuation-spaced",
        L01,
        "tokenize",
        "puts spaces around each mark listed in string.punctuation and splits on whitespace, "
        "so only those 32 ASCII marks are separated: any other mark (a curly apostrophe, "
        "an em dash, '«', '¿', '…', '€') stays glued to the word beside it, and the "
        "underscore, which string.punctuation lists, is cut out of words ('snake_case').",
        (
            r"string\.punctuation",
            r"ascii (punctuation|marks?)",
            r"(non-ascii|unicode|other|curly|typographic) (punctuation|marks?|symbols?|apostrophe|dash)",
            r"(glued|attached|stuck|joined) to (the|a|its) (word|letters)",
            r"(list|set) of (punctuation )?marks",
        ),
        (
            r"(not|never|forg[eo]t\w* to|without) lower-?cas",
            r"runs? of (punctuation|marks)",
            r"punctuation (marks? )?(are |is )?(dropped|removed|missing|lost)",
            r"ascii[- ]only (word|letter)s?|accented letters",
        ),
        code="""
import string


def tokenize(text):
    text = text.lower()
    for mark in string.punctuation:
        text = text.replace(mark, f" {mark} ")
    return text.split()
""",
        source=ASCII_PUNCTUATION,
    ),
    _c(
        "encode-id-from-key-position",
        L01,
        "encode",
        "takes each token's id as its position among the vocabulary's keys "
        "(list(vocab).index(token)) instead of the id the vocabulary maps it to: right only "
        "while the dict's keys happen to be stored in id order, wrong for any vocabulary "
        "built or loaded in another order.",
        (
            r"(key|insertion|dict(ionary)?'?s?) order",
            r"position (of the token )?(in|among) (the )?(vocab|keys|dict)",
            r"\.index\(",
            r"vocab\[token\]|the id (the )?vocab(ulary)? (maps|gives|assigns)",
        ),
        (
            r"<unk>.{0,40}(missing|wrong|instead of|hard-coded)",
            r"KeyError",
            r"<bos>|<eos>",
            r"lower-?cas",
        ),
        edits=(
            (
                "return [vocab.get(token, unk) for token in tokens]",
                "keys = list(vocab)\n"
                "    return [keys.index(token) if token in vocab else unk for token in tokens]",
            ),
        ),
        source=KEY_INDEX,
    ),
    _c(
        "decode-inverse-kept-from-first-call",
        L01,
        "decode",
        "keeps the inverse table id -> token in a module-level dict filled on the first call "
        "only (if the dict is empty): the first vocabulary is right, but a later call with "
        "another vocabulary decodes with the first one's tokens (or raises KeyError).",
        (
            r"(first|earlier|previous) (call|vocab)",
            r"(module|global)[- ]level|global",
            r"cach",
            r"(second|later|another) (call|vocab).{0,80}(first|stale|old|previous)",
            r"state.{0,30}(between|across) calls",
        ),
        (
            r"(key|insertion) order|position in the vocab",
            r"special tokens? (are )?(dropped|skipped|removed)",
            r"(one|single) string|joined",
        ),
        code="""
_ID_TO_TOKEN = {}


def decode(ids, vocab):
    if not _ID_TO_TOKEN:
        _ID_TO_TOKEN.update({index: token for token, index in vocab.items()})
    return [_ID_TO_TOKEN[int(index)] for index in ids]
""",
    ),
    _c(
        "decode-repeats-collapsed",
        L01,
        "decode",
        "collapses each run of the same id into one token (itertools.groupby, the greedy "
        "CTC-decoding habit of merging repeats): a word written twice in a row, or the "
        "<pad> ids at the end of a padded row, come back once, so the list is shorter "
        "than the ids.",
        (
            r"repeat|consecutive|in a row|runs?\b",
            r"collaps|merg\w* (repeated|identical|equal)",
            r"groupby",
            r"(shorter|fewer) (than|tokens)",
            r"(one|a) token per id",
        ),
        (
            r"special tokens? (are )?(dropped|skipped|removed)",
            r"(key|insertion) order|position in the vocab",
            r"(one|single) string|joined",
            r"<eos>.{0,40}(stop|cut)",
        ),
        code="""
from itertools import groupby


def decode(ids, vocab):
    id_to_token = {index: token for token, index in vocab.items()}
    return [id_to_token[int(index)] for index, _ in groupby(ids)]
""",
    ),
    _c(
        "pad-zip-stops-at-shortest",
        L01,
        "pad_batch",
        "builds the columns with zip(*sequences), which stops at the shortest sequence, and "
        "fills the missing columns with pad_id: the shape is right, but every id past the "
        "shortest sequence's length is lost, replaced by pad_id in the longer rows too.",
        (
            r"zip",
            r"shortest",
            r"(truncat|cut|lost|dropped|overwritten|replaced).{0,60}(longer|ids? (after|past|beyond))",
            r"longer (rows?|sequences?).{0,60}(pad|lost|cut|truncat)",
        ),
        _PAD_OTHERS[:3],
        code="""
import numpy as np


def pad_batch(sequences, pad_id):
    max_len = max((len(seq) for seq in sequences), default=0)
    columns = [list(column) for column in zip(*sequences)]  # one column per position
    columns += [[pad_id] * len(sequences)] * (max_len - len(columns))
    return np.array(columns, dtype=np.int64).T.reshape(len(sequences), max_len)
""",
        source=ZIP_SHORTEST,
    ),
    _c(
        "pad-zip-longest-without-fillvalue",
        L01,
        "pad_batch",
        "transposes with itertools.zip_longest(*sequences) and back, but leaves out "
        "fillvalue=pad_id: the gaps are filled with zip_longest's default None, which an "
        "int64 array cannot hold (TypeError), so every batch of unequal lengths fails.",
        (
            r"fillvalue",
            r"\bNone\b",
            r"zip_longest",
            r"(never|not|without) (uses? )?pad_id|pad_id (is )?(never|not) used",
        ),
        (
            r"pad\w* (on )?the left|left-pad",
            r"float (dtype|array|ids)",
            r"shortest",
            r"\(max_len, batch\)|time[- ]first",
        ),
        code="""
from itertools import zip_longest

import numpy as np


def pad_batch(sequences, pad_id):
    max_len = max((len(seq) for seq in sequences), default=0)
    columns = list(zip_longest(*sequences))  # one tuple per position
    return np.array(columns, dtype=np.int64).T.reshape(len(sequences), max_len)
""",
        source=ZIP_SHORTEST,
    ),
    _c(
        "pad-returns-lengths-too",
        L01,
        "pad_batch",
        "returns a pair (batch, lengths), the padded array and each sequence's length, as "
        "torch's pad_packed_sequence does, instead of the padded array alone.",
        (
            r"tuple|pair",
            r"lengths",
            r"two (values|things|objects|results)",
            r"pad_packed_sequence",
            r"(array|batch) alone|only the (array|batch)",
        ),
        _PAD_OTHERS,
        edits=(
            (
                "return batch",
                "return batch, np.array([len(seq) for seq in sequences])",
            ),
        ),
        source=PAD_LENGTHS,
    ),
    _c(
        "pad-fixed-max-length",
        L01,
        "pad_batch",
        "pads every batch to a fixed width, a max_length=32 default (Hugging Face's "
        "padding='max_length'), instead of the longest sequence of the batch: short batches "
        "come back 32 columns wide, with columns of pad_id past the longest sequence.",
        (
            r"max_length|fixed (width|length)",
            r"\b32\b",
            r"longest.{0,60}(width|columns?|max_len|wide)",
            r"(width|columns?|max_len|wide).{0,60}longest",
            r"too (wide|many columns)|extra columns?",
        ),
        (*_PAD_OTHERS, r"multiple of"),
        edits=(
            (
                "max_len = max((len(seq) for seq in sequences), default=0)",
                "max_len = max(max((len(seq) for seq in sequences), default=0), max_length)",
            ),
            (
                "def pad_batch(sequences: list[list[int]], pad_id: int) -> np.ndarray:",
                "def pad_batch(sequences: list[list[int]], pad_id: int, max_length: int = 32) -> np.ndarray:",
            ),
        ),
        source=PAD_MAX_LENGTH,
    ),
    _c(
        "pairs-string-keys",
        L01,
        "get_pair_counts",
        "keys each pair by the concatenated digits of its two ids (str(a) + str(b), as for a "
        "bigram of letters) instead of the tuple (a, b): the keys are strings, not pairs of "
        "ids, and pairs such as (1, 12) and (11, 2) fall on the same key '112'.",
        (
            r"str(ing)?s?\b.{0,40}(keys?|instead of (a )?tuple)",
            r"keys?.{0,40}(str|string)",
            r"tuples?.{0,30}(of|\(a, b\)|pairs?)",
            r"concatenat",
            r"collid|same key",
        ),
        (
            r"overlap",
            r"last pair",
            r"(first[- ]occurrence|sorted|by count) order",
            r"swapped|reversed",
        ),
        code="""
def get_pair_counts(ids):
    counts = {}
    for a, b in zip(ids, ids[1:]):
        key = str(a) + str(b)
        counts[key] = counts.get(key, 0) + 1
    return counts
""",
    ),
    _c(
        "merge-for-loop-index-bumped",
        L01,
        "merge_pair",
        "scans with for i in range(len(ids)) and writes i += 1 after a merge to skip the "
        "pair's second id, but a for loop resets i from range on the next step: the second "
        "id is copied after new_id as well (and can start another merge).",
        (
            r"for[- ]loop",
            r"(loop variable|i \+= 1|index).{0,80}(no effect|ignored|reset|overwritten|does not skip)",
            r"second (id|element|item).{0,60}(kept|copied|appended|still|again|not skipped)",
            r"(skip|advance)\w*.{0,40}(two|2|past the pair)",
        ),
        (
            r"in[- ]place|input list",
            r"last id.{0,30}(dropped|lost)",
            r"IndexError",
            r"first (occurrence )?only",
        ),
        code="""
def merge_pair(ids, pair, new_id):
    merged = []
    for i in range(len(ids)):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            merged.append(new_id)
            i += 1  # skip the pair's second id
        else:
            merged.append(ids[i])
    return merged
""",
        source=LOOP_VARIABLE,
    ),
    _c(
        "train-one-merge-too-many",
        L01,
        "train_bpe",
        "loops over range(num_merges + 1), an off-by-one in counting the merges, so it "
        "learns one merge more than asked whenever the text has enough pairs.",
        (
            r"one (merge )?(too many|more|extra)",
            r"num_merges \+ 1",
            r"off[- ]by[- ]one",
            r"\b(\d+) merges?.{0,40}(asked|expected|instead of|want)",
            r"(too many|extra) merges?",
        ),
        (
            r"ties?\b",
            r"256|new id",
            r"recount|never updated",
            r"code points|utf-?8",
        ),
        edits=(("for step in range(num_merges):", "for step in range(num_merges + 1):"),),
        source=MERGE_COUNT,
    ),
    _c(
        "bpe-encode-merges-in-pair-order",
        L01,
        "bpe_encode",
        "replays the merges in one pass over sorted(merges.items()), in the order of the "
        "pairs' ids, instead of the order they were learned: a merge whose pair contains a "
        "merged id (>= 256) comes after every byte-pair merge, so a later-learned byte pair "
        "can be merged first and the text's tokens differ.",
        (
            r"sort",
            r"(learned|learning|training) order",
            r"order of (the )?(pairs?|keys)",
            r"earliest[- ]learned",
            r"(smallest|lowest) (new )?id first",
        ),
        (
            r"code points|latin|ascii",
            r"most frequent",
            r"KeyError",
            r"prefix|space",
        ),
        code="""
def bpe_encode(text, merges):
    ids = list(text.encode("utf-8"))
    for pair, new_id in sorted(merges.items()):
        ids = merge_pair(ids, pair, new_id)
    return ids
""",
        source=ENCODE_LOOP,
    ),
    _c(
        "bpe-decode-table-newest-first",
        L01,
        "bpe_decode",
        "builds the id -> bytes table walking the merges newest first "
        "(reversed(merges.items()), as if undoing them), where each merged token needs its "
        "parts built before it: any merge whose part is an earlier merged id (>= 256) raises "
        "KeyError, so only merges of two raw bytes decode.",
        (
            r"reverse",
            r"newest|latest|last[- ]learned",
            r"(learned|learning|insertion|training) order",
            r"before (it|its parts?|the (part|token)s?) (is|are|was|were) (built|defined|in the table)",
            r"KeyError",
        ),
        (
            r"latin|ascii",
            r"bytes\(\[a, b\]\)|parts? as (raw )?bytes",
            r"strip|space",
            r"errors=",
        ),
        code="""
def bpe_decode(ids, merges):
    table = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in reversed(merges.items()):
        table[new_id] = table[a] + table[b]
    return b"".join(table[i] for i in ids).decode("utf-8", errors="replace")
""",
    ),
    # ---- 02 embeddings --------------------------------------------------------------------
    _c(
        "onehot-columns-of-ids-present",
        L02,
        "one_hot",
        "makes one column per distinct id present in ids (np.unique, the categories='auto' "
        "of scikit-learn's OneHotEncoder) instead of one per vocabulary id: the vectors are "
        "as wide as the number of distinct ids, and column j stands for the j-th smallest id "
        "present, not for id j.",
        (
            r"unique|distinct",
            r"(ids|values|categories) (present|seen|in the (batch|input|data))",
            r"categories",
            r"vocab_size.{0,40}(ignored|not used|columns|width)",
            r"(width|columns?).{0,60}vocab_size",
        ),
        (
            r"max(imum)?\b.{0,20}\+ ?1|largest id",
            r"bool",
            r"transpos|\(len, batch",
            r"flatten",
        ),
        code="""
import numpy as np


def one_hot(ids, vocab_size):
    ids = np.asarray(ids)
    categories = np.unique(ids)  # the ids that occur, sorted
    return (ids[..., None] == categories).astype(np.float64)
""",
        source=CATEGORIES_AUTO,
    ),
    _c(
        "cos-torch-cosine-default-dim",
        L02,
        "cosine_similarity",
        "broadcasts the rows with torch's F.cosine_similarity(a[:, None, :], b[None, :, :]) "
        "but leaves dim at its default 1, so the cosine is taken along b's row axis, not "
        "the features: the result is (n, d) instead of the (n, m) matrix of pairs.",
        (
            r"dim(=| ?=)? ?(-1|2)",
            r"default dim",
            r"dim=1",
            r"(along|over) the (wrong axis|rows? of b|m axis)",
            r"\(n, d\)",
            r"features? (axis|dimension)",
        ),
        (
            r"transpos",
            r"zero vectors?|nan",
            r"distance",
            r"row[- ]by[- ]row|matching rows",
        ),
        code="""
import numpy as np
import torch
import torch.nn.functional as F


def cosine_similarity(a, b):
    a = torch.as_tensor(np.asarray(a, dtype=np.float64))
    b = torch.as_tensor(np.asarray(b, dtype=np.float64))
    return F.cosine_similarity(a[:, None, :], b[None, :, :]).numpy()
""",
        source=COSINE_DIM,
    ),
    _c(
        "tokemb-scaled-twice",
        L02,
        "TokenEmbedding",
        "applies the sqrt(d_model) scale twice, once through a stored self.scale and again "
        "in the return line, so the vectors are the lookup times d_model instead of times "
        "sqrt(d_model).",
        (
            r"twice|two times|double",
            r"(times|by) d_model (instead|rather|,? not)",
            r"d_model times (too|larger)|\bsqrt\(d_model\) times too",
            r"sqrt\(d_model\).{0,60}(again|already|second)",
            r"(too large|larger).{0,40}sqrt\(d_model\)",
        ),
        (
            r"divid",
            r"vocab_size",
            r"parameter|state[_ ]dict|buffer",
            r"(no|missing|without|forg[eo]t\w*) (the )?scal",
        ),
        code="""
import math

import torch
from torch import nn


class TokenEmbedding(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.d_model = d_model
        self.embedding = nn.Embedding(vocab_size, d_model)
        self.scale = math.sqrt(d_model)

    def forward(self, ids):
        x = self.embedding(ids) * self.scale
        return x * math.sqrt(self.d_model)
""",
        source=SCALED_TWICE,
    ),
    # ---- 03 positional encoding -----------------------------------------------------------
    _c(
        "pe-rate-floor-divided-by-half-width",
        L03,
        "positional_encoding",
        "writes the rate as i * (-log(10000) / d_model // 2), meaning to divide by "
        "(d_model // 2) with the pair index i, but // binds to the whole quotient: "
        "-log(10000) / d_model is floored to -1 (or -2 for a small d_model), so pair i gets "
        "the frequency e^-i instead of 10000^(-2i / d_model); pair 0 alone is right.",
        (
            r"precedence|parenthes",
            r"d_model ?// ?2",
            r"floor(ed)? (division|to -?[12])",
            r"e\^-?i|exp\(-i\)",
            r"10000\^\(-?2i ?/ ?d_model\)",
        ),
        (
            r"sin.{0,20}cos.{0,20}swapped",
            r"positions? (start|from) (at )?1",
            r"halves|concatenat",
            r"odd d_model",
        ),
        code="""
import math

import numpy as np


def positional_encoding(max_len, d_model):
    positions = np.arange(max_len)[:, None]  # (max_len, 1)
    i = np.arange((d_model + 1) // 2)  # pair index
    div_term = np.exp(i * (-math.log(10000.0) / d_model // 2))  # 10000^(-i / (d_model / 2))
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2] = np.sin(positions * div_term)
    pe[:, 1::2] = np.cos(positions * div_term[: d_model // 2])
    return pe
""",
        source=RATE_PRECEDENCE,
    ),
    _c(
        "posenc-two-separate-dropouts",
        L03,
        "PositionalEncoding",
        "applies dropout to x and to the table rows separately and adds the two, "
        "dropout(x) + dropout(pe), instead of one dropout on the sum: eval mode is right, "
        "but in training the two terms are dropped at different entries.",
        (
            r"(separate|two|each) (dropouts?|terms?|parts?)",
            r"dropout\(x\) \+ dropout",
            r"dropout (on|to) the sum",
            r"(after|once) (the )?(addition|adding|sum)",
        ),
        (
            r"buffer|state_dict|parameter",
            r"slice|first len|max_len",
            r"float64|dtype",
            r"in[- ]place",
        ),
        edits=(
            (
                "return self.dropout(x + self.pe[:, :length])",
                "return self.dropout(x) + self.dropout(self.pe[:, :length])",
            ),
        ),
    ),
    # ---- 04 attention ---------------------------------------------------------------------
    _c(
        "row-scale-fixed-eight",
        L04,
        "attention_row",
        "divides the scores by a fixed 8, the square root of the paper's d_k = 64, instead of "
        "sqrt(d_k) of the query it is given: right only when d_k is 64, the scores too small "
        "(weights too flat) for smaller d_k.",
        (
            r"\b8\b|eight",
            r"\b64\b",
            r"(fixed|hard-?coded|constant) (scale|divisor|number)",
            r"sqrt\(d_k\)|square root of d_k",
            r"(its|the query'?s?|actual) d_k",
        ),
        (
            r"len_k|number of keys",
            r"d_v",
            r"(no|without|missing|forg[eo]t\w*) (the )?scal",
            r"softmax.{0,30}(axis|max)",
        ),
        edits=(("scores = keys @ query / math.sqrt(d_k)", "scores = keys @ query / 8"),),
        source=FIXED_SCALE,
    ),
    _c(
        "sdpa-additive-mask-times-inf",
        L04,
        "scaled_dot_product_attention",
        "turns the bool mask into an additive one by multiplying the flipped mask by -inf, "
        "scores + (~mask) * float('-inf'): a blocked key gets -inf, but an allowed one gets "
        "0 * -inf, which is NaN, so every masked call returns NaN weights and output.",
        (
            r"0 ?\* ?-?inf|zero times (minus )?inf",
            r"multipl\w*.{0,60}inf",
            r"inf.{0,60}multipl",
            r"nan.{0,80}(allowed|every|all)",
            r"masked_fill|torch\.where",
        ),
        (
            r"(mask|polarity) (is )?(inverted|flipped)",
            r"scale|sqrt",
            r"softmax.{0,30}(dim|axis)",
            r"(no allowed key|fully (masked|blocked)) rows?",
        ),
        edits=(
            (
                'scores = scores.masked_fill(~mask, float("-inf"))',
                'scores = scores + (~mask) * float("-inf")',
            ),
        ),
        source=TIMES_INF,
    ),
    _c(
        "sdpa-permute-four-dims-only",
        L04,
        "scaled_dot_product_attention",
        "transposes the keys with k.permute(0, 1, 3, 2), written for the 4-D multi-head "
        "layout, instead of k.transpose(-2, -1): 4-D inputs are right, but 2-D or 3-D "
        "q, k, v raise RuntimeError (number of dims don't match in permute).",
        (
            r"permute",
            r"(4|four)[- ]d(im)?",
            r"(2|3|two|three)[- ]d(im)?.{0,60}(fail|rais|error)",
            r"any number of (leading )?(batch )?dim",
            r"transpose\(-2, ?-1\)",
        ),
        (
            r"scale|sqrt",
            r"softmax.{0,30}(dim|axis)",
            r"mask (is )?(inverted|flipped)",
            r"nan",
        ),
        edits=(
            (
                "scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)",
                "scores = q @ k.permute(0, 1, 3, 2) / math.sqrt(d_k)",
            ),
        ),
        source=PERMUTE_DIMS,
    ),
    _c(
        "sdpa-output-from-keys",
        L04,
        "scaled_dot_product_attention",
        "multiplies the weights by the keys instead of the values, output = weights @ k: "
        "the weights are right, but the output mixes the keys' rows (and has d_k features "
        "where v has d_v).",
        (
            r"keys? instead of (the )?values?",
            r"weights @ k\b",
            r"(mix|sum|average)\w* (of )?(the )?keys",
            r"values? (are )?(never|not) used",
            r"uses? (the )?keys?.{0,40}(output|weighted sum)",
        ),
        (
            r"scale|sqrt",
            r"softmax.{0,30}(dim|axis)",
            r"mask",
            r"transpos",
        ),
        edits=(("output = weights @ v", "output = weights @ k"),),
        source=SCORES_TIMES_KEYS,
    ),
    # ---- 05 multi-head attention ----------------------------------------------------------
    _c(
        "mha-query-key-projections-swapped",
        L05,
        "MultiHeadAttention",
        "projects the queries with w_k and the keys with w_q (a copy-paste swap): the layer "
        "has the right parameters, but w_q.weight acts on the keys and w_k.weight on the "
        "queries, so with the reference's weights every score differs.",
        (
            r"w_q.{0,60}keys?|keys?.{0,60}w_q",
            r"w_k.{0,60}quer|quer.{0,60}w_k",
            r"(projections?|linears?|layers?) (are |were )?swapped",
            r"swapped.{0,40}(w_q|w_k|projection)",
        ),
        _MHA_OTHERS,
        edits=(
            (
                "split_heads(self.w_q(query), self.num_heads)",
                "split_heads(self.w_k(query), self.num_heads)",
            ),
            (
                "split_heads(self.w_k(key), self.num_heads)",
                "split_heads(self.w_q(key), self.num_heads)",
            ),
        ),
    ),
    _c(
        "mha-values-from-query",
        L05,
        "MultiHeadAttention",
        "projects the values from the query input, w_v(query), instead of the value input "
        "(the fallback of library layers when no value is given): self-attention is right, "
        "but in cross-attention the output mixes the decoder's own vectors, and a query "
        "length other than the keys' raises a shape error.",
        (
            r"w_v\(query\)",
            r"values? (come |are taken |projected )?from (the )?query",
            r"quer(y|ies) (input )?(instead of|in place of|as) (the )?values?",
            r"value (input|argument) (is )?(never|not) used",
            r"cross[- ]attention.{0,80}values?",
        ),
        _MHA_OTHERS,
        edits=(
            (
                "split_heads(self.w_v(value), self.num_heads)",
                "split_heads(self.w_v(query), self.num_heads)",
            ),
        ),
        source=VALUE_DEFAULT,
    ),
    _c(
        "mha-heads-transposed-before-merge",
        L05,
        "MultiHeadAttention",
        "transposes the heads to (batch, len_q, num_heads, d_head) before calling "
        "merge_heads, which does that transpose itself: merge_heads then reads len_q as the "
        "number of heads, so the output has the wrong layout (a shape error unless len_q "
        "equals num_heads).",
        (
            r"transpos\w*.{0,60}(twice|again|before merge_heads|two times)",
            r"merge_heads (already|itself) transpos",
            r"double transpos",
            r"transpos\w*.{0,60}(before|ahead of) (calling )?merge_heads",
            r"len_q as (the )?(number of )?heads",
            r"(heads|input) (to|of) merge_heads.{0,60}(layout|shape|\(batch, len)",
        ),
        (r"scale|sqrt", r"dropout", r"mask (is )?(inverted|ignored|dropped)", r"split_heads"),
        edits=(
            (
                "return self.w_o(merge_heads(heads)), weights",
                "return self.w_o(merge_heads(heads.transpose(1, 2))), weights",
            ),
        ),
    ),
    _c(
        "mha-forward-value-key-query-order",
        L05,
        "MultiHeadAttention",
        "declares forward(self, value, key, query, mask=None), the argument order of the "
        "TensorFlow tutorial's call(v, k, q, mask), so a call forward(query, key, value) "
        "takes the queries from the value input and the values from the query input: "
        "self-attention is right, cross-attention is not.",
        (
            r"(argument|parameter)s?.{0,40}order",
            r"forward\(self, value, key, query",
            r"(v, k, q)|value, key, query",
            r"quer(y|ies).{0,40}(and|with) (the )?values? (are )?swapped",
            r"values? (come |taken )?from (the )?query",
        ),
        _MHA_OTHERS,
        edits=(
            (
                "def forward(self, query, key, value, mask=None):",
                "def forward(self, value, key, query, mask=None):",
            ),
        ),
        source=TF_CALL_ORDER,
    ),
    # ---- 06 masking -----------------------------------------------------------------------
    _c(
        "padmask-tf-float-pads-marked",
        L06,
        "padding_mask",
        "two mistakes at once, the TensorFlow tutorial's create_padding_mask carried over: "
        "it marks the pads instead of the real tokens ((ids == pad_id), 1 = blocked) and "
        "returns float32 ones and zeros instead of a bool mask.",
        (
            r"(inverted|flipped|reversed|opposite) (polarity|mask|meaning)",
            r"(true|1) (at|for|marks?) (the )?pads?",
            r"pads? (are )?(marked|true|1)",
            r"== ?pad_id",
            r"float",
            r"bool",
        ),
        (
            r"query axis|\(batch, 1, len, 1\)",
            r"pad_id.{0,30}(ignored|hard-?coded|0 instead)",
            r"expand",
            r"in[- ]place",
        ),
        edits=(
            (
                "return (ids != pad_id)[:, None, None, :]",
                "return (ids == pad_id).float()[:, None, None, :]",
            ),
        ),
        source=TF_PADDING_MASK,
    ),
    _c(
        "decmask-keys-first-layout",
        L06,
        "decoder_self_attention_mask",
        "returns the combined mask transposed, (batch, 1, len_k, len_q), the keys-first "
        "layout of other libraries' masks: the triangle becomes the upper one (each query "
        "sees the keys after it) and the padding lands on the query rows instead of the "
        "key columns.",
        (
            r"transpos",
            r"keys?[- ]first|\(batch, 1, len_k, len_q\)",
            r"upper triangle|future (keys|positions|tokens)",
            r"(padding|pads?).{0,60}(rows|quer)",
            r"\[b, ?0, ?j, ?i\]|\[i, ?j\].{0,30}\[j, ?i\]",
        ),
        (
            r"logical or|\| instead of &|either (mask|one)",
            r"heads? axis",
            r"float|additive",
            r"pad_id",
        ),
        edits=(
            (
                "return padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[1])",
                "return (padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[1]))"
                ".transpose(-2, -1)",
            ),
        ),
        source=KEYS_FIRST_MASK,
    ),
]
