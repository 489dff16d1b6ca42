"""Held-out wrong answers, blind round 27 (helper b27a, 2026-11-29, lessons 01-06): mistakes new to
the benchmark, written blind (no check module, no message read) while fix round 30 changed
the checks, to measure how the diagnoses generalise to mistakes nobody here has seen
(``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L01, L02, L03 = "01_tokenization", "02_embeddings", "03_positional_encoding"
L04, L05, L06 = "04_attention", "05_multi_head_attention", "06_masking"

_c = held_out_authored("blind27a")

# Where these mistakes are reported (each page was read for this batch).
STOPWORDS = "https://theneuralbase.com/nltk/learn/beginner/stopwords-nltk-corpus-stopwords/"
NUMBER_PLACEHOLDER = (
    "https://svgoudar.github.io/Learn-ML-and-NLP/machine_learning/NLP/Text_Pre_Processor/"
    "05_part.html"
)
UINT8_WRAP = "https://github.com/numpy/numpy/issues/7966"
BPE_LRU_CACHE = "https://github.com/bigscience-workshop/Megatron-DeepSpeed/pull/37"
FAIRSEQ_PADDING = "https://github.com/facebookresearch/fairseq/issues/38"
UNIT_EMBEDDINGS = "https://github.com/princeton-nlp/SimCSE/wiki/Encode-Sentences"
COSINE_ATTENTION = "https://github.com/microsoft/Swin-Transformer/issues/239"
TUTORIAL_PE_INDEX = "https://github.com/datawhalechina/hello-agents/issues/117"
PROJECT_AFTER_SPLIT = "https://github.com/MarcoMeter/episodic-transformer-memory-ppo/pull/22"
PAD_FLAGS_EQUAL = "https://github.com/Biohub/esm/issues/299"

_TOK_OTHERS = (
    r"(not|never|forg[eo]t\w* to|without) lower-?cas",
    r"runs? of (punctuation|marks)",
    r"punctuation (marks? )?(are |is )?(dropped|removed|missing|lost)",
    r"ascii[- ]only (word|letter)s?|accented letters",
)

_PAD_OTHERS = (
    r"pad\w* (on )?the left|left-pad",
    r"float (dtype|array|ids)",
    r"(ignores|never uses|without) pad_id|pad\w* with (0|zeros?) instead",
    r"\(max_len, batch\)|time[- ]first|transposed",
)

BLIND27A: list[Case] = [
    # ---- 01 tokenization ------------------------------------------------------------------
    _c(
        "tok-stop-words-removed",
        L01,
        "tokenize",
        "filters the tokens through a stop-word list (NLTK-style 'the', 'a', 'i', 'you', "
        "'is', ...), a preprocessing step of text classification, so the most common words of "
        "the text are missing from its tokens.",
        (
            r"stop[- ]?words?",
            r"(common|frequent|function|short) words? (are |is )?(dropped|removed|missing|"
            r"filtered|left out|lost)",
            r"words? (are |is )?(missing|dropped|removed|filtered out|left out|lost)",
            r"(drops?|removes?|filters? out|leaves? out|lost|missing) (some |the |common )?words",
        ),
        _TOK_OTHERS,
        code="""
import re

STOP_WORDS = {
    "a", "an", "the", "and", "or", "but", "if", "of", "to", "in", "on", "at", "for", "with",
    "by", "as", "is", "are", "was", "were", "be", "been", "i", "me", "my", "we", "our", "you",
    "your", "he", "she", "it", "its", "they", "them", "this", "that", "so", "not", "no",
}


def tokenize(text):
    tokens = re.findall(r"\\w+|[^\\w\\s]", text.lower())
    return [token for token in tokens if token not in STOP_WORDS]
""",
        source=STOPWORDS,
    ),
    _c(
        "tok-numbers-to-placeholder",
        L01,
        "tokenize",
        "normalises the text's numbers first, replacing every run of digits by one "
        "placeholder token '<num>' (a preprocessing habit that keeps numbers out of the "
        "vocabulary), so '2024' or '3' never come back as tokens and a word containing "
        "digits ('mp3') is cut around the placeholder.",
        (
            r"(numbers?|digits?)\b.{0,50}\b(replaced|normali[sz]ed|placeholder|collapsed|"
            r"substituted|mapped)",
            r"placeholder",
            r"(numbers?|digits?) (are |is )?(not|never) (kept|returned)|(keep|return) the "
            r"(numbers?|digits?)",
        ),
        _TOK_OTHERS,
        code="""
import re


def tokenize(text):
    text = re.sub(r"\\d+", "<num>", text.lower())  # every number becomes one placeholder
    return re.findall(r"<num>|\\w+|[^\\w\\s]", text)
""",
        source=NUMBER_PLACEHOLDER,
    ),
    _c(
        "encode-overwrites-tokens-in-place",
        L01,
        "encode",
        "writes each id over its token in the caller's list (tokens[i] = ...) and returns that "
        "same list: the ids are right, but the tokens the caller passed are gone, so encoding "
        "the same list again maps every id (an int, not a token) to <unk>.",
        (
            r"in[- ]place",
            r"(modif|overwr|mutat|chang|replac|edit|destroy)\w* (the |your |its )?(caller'?s? |"
            r"input |argument'?s? |original )?(tokens?|list|input|argument)",
            r"(tokens|input|argument|list) (was|is|were|has been|have been|got) (modified|"
            r"changed|overwritten|mutated|replaced)",
            r"(same|input) list (is |was )?returned|returns? the (caller'?s?|input|same) list",
        ),
        (
            r"unknown tokens? .{0,30}(KeyError|raises?)",
            r"(adds?|wraps?|prepends?) .{0,20}<bos>",
            r"unknown tokens? (map|go|become)s? to (0|<pad>|None)",
        ),
        code="""
def encode(tokens, vocab):
    unk = vocab["<unk>"]
    for i, token in enumerate(tokens):
        tokens[i] = vocab.get(token, unk)
    return tokens
""",
    ),
    _c(
        "pad-uint8-batch",
        L01,
        "pad_batch",
        "creates the batch with dtype=np.uint8 (one byte per id, to save memory), which holds "
        "0-255 only: an id of 256 or more wraps around modulo 256 (or raises OverflowError), "
        "and so does a pad_id outside 0-255.",
        (
            r"uint8.{0,80}(255|256|wrap|overflow|too small|cannot hold|can'?t hold|range)",
            r"(255|256|wrap|overflow).{0,80}uint8",
            r"8-bit|one byte|single byte",
            r"(wrap\w*|overflow\w*) .{0,40}(ids?|values?|256)",
            r"(dtype|type) (is )?too (small|narrow)",
        ),
        _PAD_OTHERS,
        code="""
import numpy as np


def pad_batch(sequences, pad_id):
    max_len = max((len(seq) for seq in sequences), default=0)
    batch = np.full((len(sequences), max_len), pad_id, dtype=np.uint8)  # ids are small
    for row, seq in enumerate(sequences):
        batch[row, : len(seq)] = seq
    return batch
""",
        source=UINT8_WRAP,
    ),
    _c(
        "pairs-packed-into-one-int",
        L01,
        "get_pair_counts",
        "packs each pair into one integer key a * 256 + b (as for two bytes) and unpacks it "
        "with divmod at the end: right while every id is a byte, but once an id is 256 or more "
        "(a merged token) the pair unpacks as another pair ((1, 256) comes back as (2, 0)) and "
        "different pairs collide.",
        (
            r"(ids?|tokens?) (>= ?256|of 256 or (more|above)|above 255|over 255|at least 256|"
            r"larger than 255|bigger than 255)",
            r"merged (ids?|tokens?)",
            r"(pack|combin|fold|encod)\w* .{0,40}(one|single|an?) (int|integer|number|key)",
            r"a ?\* ?256 ?\+ ?b|\* ?256|base[- ]256",
            r"collid|collision",
        ),
        (
            r"non-?overlapping",
            r"last pair (is )?(missed|missing|dropped|never counted)",
            r"(ordered|sorted) by count",
            r"(swapped|reversed) pairs?|\(ids\[i ?\+ ?1\], ids\[i\]\)",
        ),
        code="""
def get_pair_counts(ids):
    packed = {}
    for a, b in zip(ids, ids[1:]):
        key = a * 256 + b  # one int per pair, faster to hash than a tuple
        packed[key] = packed.get(key, 0) + 1
    return {divmod(key, 256): count for key, count in packed.items()}
""",
    ),
    _c(
        "merge-vectorised-drops-adjacent-matches",
        L01,
        "merge_pair",
        "finds the occurrences with numpy and removes the overlapping ones by dropping every "
        "match that starts right after another match, instead of right after a kept one: in a "
        "run of four equal ids ([a, a, a, a] with pair (a, a)) only the first pair is merged "
        "([new, a, a] instead of [new, new]).",
        (
            r"run of (four|4|an even number of|several|repeated|equal|identical|the same)",
            r"(four|4) (equal|identical|repeated|same|consecutive)",
            r"(second|later|next|third) (non-?overlapping )?(occurrence|pair|match)\w* "
            r".{0,40}(not|never|left|un)(merged|[ -]merged)?",
            r"(not all|misses?|skips?|leaves?) .{0,30}(non-?overlapping )?occurrences?",
            r"(every|each|all) non-?overlapping occurrences?",
        ),
        (
            r"overlapping (pairs|occurrences) (merge|are merged) twice",
            r"(modif|chang)\w* the (caller'?s? |input )?list",
            r"(last|final) id (is )?(dropped|lost|missing)",
            r"(only )?the first occurrence only|only the first occurrence",
        ),
        code="""
import numpy as np


def merge_pair(ids, pair, new_id):
    a = np.asarray(ids, dtype=np.int64)
    if len(a) < 2:
        return list(ids)
    starts = np.flatnonzero((a[:-1] == pair[0]) & (a[1:] == pair[1]))
    starts = starts[np.diff(starts, prepend=-2) > 1]  # no overlapping matches
    keep = np.ones(len(a), dtype=bool)
    keep[starts + 1] = False
    merged = a.copy()
    merged[starts] = new_id
    return merged[keep].tolist()
""",
    ),
    _c(
        "bpe-encode-cached-by-text",
        L01,
        "bpe_encode",
        "memoises the encodings in a module-level dict keyed by the text alone (a tokenizer's "
        "cache): the first call is right, but a later call with the same text and other merges "
        "returns the ids of the first merges.",
        (
            r"cach|memo",
            r"(first|earlier|previous|an earlier) call",
            r"(second|later|another|next) call .{0,60}(other|different|new|another) merges",
            r"(ignores?|never (uses|reads)) (the )?(new|second|other|different) merges",
            r"keyed (on|by) (the )?text",
        ),
        (
            r"most frequent pair",
            r"(latest|highest|last)[- ]learned (merge )?first",
            r"code points",
            r"(stops?|loop ends?) (too )?early",
        ),
        code="""
_ENCODED = {}


def bpe_encode(text, merges):
    if text in _ENCODED:
        return list(_ENCODED[text])
    ids = list(text.encode("utf-8"))
    while len(ids) >= 2:
        present = [pair for pair in get_pair_counts(ids) if pair in merges]
        if not present:
            break
        pair = min(present, key=merges.get)
        ids = merge_pair(ids, pair, merges[pair])
    _ENCODED[text] = ids
    return list(ids)
""",
        source=BPE_LRU_CACHE,
    ),
    # ---- 02 embeddings ----------------------------------------------------------------------
    _c(
        "embed-rows-l2-normalised",
        L02,
        "embed",
        "divides each looked-up vector by its length (normalize_to_unit, the sentence-embedding "
        "habit), so every result has length 1 instead of being the table's row itself.",
        (
            r"normali[sz]\w*",
            r"unit (length|norm|vectors?)",
            r"(length|norm) (of )?1\b|length one",
            r"divid\w* .{0,40}(by )?(its|their|the (row|vector)'?s?) (length|norm)",
        ),
        (
            r"sqrt\(d_model\)",
            r"flatten\w*",
            r"1-based|id ?- ?1|previous token'?s? (row|vector)",
            r"(modif|overwr)\w* the table",
        ),
        code="""
import numpy as np


def embed(ids, table):
    vectors = np.asarray(table)[np.asarray(ids)]
    return vectors / np.linalg.norm(vectors, axis=-1, keepdims=True)
""",
        source=UNIT_EMBEDDINGS,
    ),
    _c(
        "tokemb-fairseq-padding-idx-one",
        L02,
        "TokenEmbedding",
        "builds the table with padding_idx=1, fairseq's <pad> index, where the course's <pad> "
        "is 0: row 1, the <unk> token's, starts at zero and never receives a gradient, while "
        "<pad>'s row 0 is trained like any other.",
        (
            r"padding_idx ?(=|of|is) ?1\b",
            r"row 1\b.{0,80}(zero|no gradient|never (trained|updated|learn)|frozen)",
            r"(<unk>|\bunk\b|id 1\b|token 1\b).{0,80}(zero|no gradient|never (trained|updated|"
            r"learn)|frozen)",
            r"(zero|no gradient|frozen).{0,80}(<unk>|id 1\b|row 1\b|token 1\b)",
            r"fairseq",
        ),
        (
            r"sqrt\(d_model\) (scale )?(is )?(missing|forgotten|left out)",
            r"divid\w* by sqrt",
            r"(swapped|transposed) (arguments|sizes)|nn\.Embedding\(d_model, vocab_size\)",
            r"(plain tensor|not a (registered )?parameter)",
        ),
        edits=(
            (
                "nn.Embedding(vocab_size, d_model)",
                "nn.Embedding(vocab_size, d_model, padding_idx=1)",
            ),
        ),
        source=FAIRSEQ_PADDING,
    ),
    # ---- 03 positional encoding ---------------------------------------------------------------
    _c(
        "posenc-tutorial-index-on-batch-first-table",
        L03,
        "PositionalEncoding",
        "switches the PyTorch tutorial's table to the batch-first layout (1, max_len, d_model) "
        "but keeps the tutorial's writes pe[:, 0, 0::2] = sin(...) and pe[:, 0, 1::2] = "
        "cos(...), which index position 0 of the new layout instead of every position: the "
        "(max_len, d_model / 2) sines do not fit one row, so building the module raises a "
        "shape error for any max_len > 1.",
        (
            r"pe\[:, ?0, ?[01]::2\]|\[:, ?0, ?[01]::2\]",
            r"\(max_len, 1, d_model\)",
            r"(row|position) 0 only|only (the )?(row|position) 0|only (the )?first (row|position)",
            r"(index|slice|writ)\w* .{0,50}(wrong|middle|second|length|position) (axis|dim)",
            r"(tutorial'?s?|sequence-first) (index|indexing|layout)",
        ),
        (
            r"x\.size\(0\)|batch size instead of (the )?(sequence )?length",
            r"(dropout|table) (is )?(applied )?(before|to the table)",
            r"(sines?|cosines?) (and cosines? )?(are |is )?(not )?interleav|halves",
            r"(plain attribute|not a (registered )?buffer)",
        ),
        code="""
import math

import torch
from torch import nn


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(1, max_len, d_model)  # batch first
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x):
        return self.dropout(x + self.pe[:, : x.size(1)])
""",
        source=TUTORIAL_PE_INDEX,
    ),
    # ---- 04 attention -------------------------------------------------------------------------
    _c(
        "attention-row-cosine-scores",
        L04,
        "attention_row",
        "scores each key by its cosine similarity with the query (both normalised to unit "
        "length, Swin V2's cosine attention) instead of the scaled dot product keys @ query / "
        "sqrt(d_k): the lengths of the query and keys no longer count, so the weights differ.",
        (
            r"cosine",
            r"normali[sz]\w* (the )?(query|keys|vectors)",
            r"unit (length|vectors?)",
            r"(length|norm|magnitude)s? of (the )?(query|keys)",
            r"(plain|raw|scaled) dot products?.{0,40}(not|instead)",
        ),
        (
            r"sqrt\(d_k\) (scale )?(is )?(missing|forgotten|left out)|(forgot|without|no) "
            r"(the )?(1 ?/ ?)?sqrt",
            r"(len_k|number of keys)",
            r"values @ weights|(weights|output) (is )?transposed",
            r"softmax over the (wrong|first) axis",
        ),
        code="""
import math

import numpy as np


def attention_row(query, keys, values):
    q = query / max(np.linalg.norm(query), 1e-12)
    k = keys / np.maximum(np.linalg.norm(keys, axis=-1, keepdims=True), 1e-12)
    scores = k @ q  # cosine of the query with each key
    weights = softmax(scores)
    output = weights @ values
    return weights, output
""",
        source=COSINE_ATTENTION,
    ),
    # ---- 05 multi-head attention --------------------------------------------------------------
    _c(
        "mha-head-width-true-division",
        L05,
        "MultiHeadAttention",
        "computes the head width with true division, self.d_head = d_model / num_heads, which "
        "is a float (16 / 4 = 4.0): the .view that splits the heads refuses a float size, so "
        "every forward raises TypeError.",
        (
            r"d_model ?/ ?num_heads|true division|float (division|d_head|head width|size)",
            r"//|floor division|integer division",
            r"d_head (is|was) (a )?float|head width (is|was) (a )?float",
            r"int\(d_model ?/ ?num_heads\)",
        ),
        (
            r"(num_heads|d_model) (is )?not divisible",
            r"transpose\w* (is )?(missing|forgotten)",
            r"w_o|output projection",
            r"sqrt\(d_(k|head|model)\)",
        ),
        code="""
import math

import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, dropout=0.0):
        super().__init__()
        if d_model % num_heads:
            raise ValueError("d_model must be divisible by num_heads")
        self.d_model, self.num_heads = d_model, num_heads
        self.d_head = d_model / num_heads
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)

    def _split(self, x):
        batch = x.size(0)
        return x.view(batch, -1, self.num_heads, self.d_head).transpose(1, 2)

    def forward(self, query, key, value, mask=None):
        q = self._split(self.w_q(query))
        k = self._split(self.w_k(key))
        v = self._split(self.w_v(value))
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1).nan_to_num(0.0)
        heads = self.dropout(weights) @ v
        merged = heads.transpose(1, 2).reshape(query.size(0), -1, self.d_model)
        return self.w_o(merged), weights
""",
    ),
    _c(
        "mha-shared-head-projection-after-split",
        L05,
        "MultiHeadAttention",
        "splits the raw inputs into heads first and projects each head with one shared "
        "nn.Linear(d_head, d_head) (w_q, w_k, w_v), instead of projecting the whole d_model "
        "features with nn.Linear(d_model, d_model) and then splitting: every head sees only its "
        "own slice of the features, with the same small weights for every head.",
        (
            r"(project|linear|w_q)\w* .{0,40}(after|once per head|per head|to each head|on each "
            r"head)",
            r"(before|then) (splitting|split_heads|the split)|split\w* (the inputs? )?(first|"
            r"before)",
            r"nn\.Linear\(d_head|\(d_head, d_head\)|d_head x d_head|head width (in|by) head "
            r"width",
            r"(shared|same) (weights|projection|linear) (for|across|in) (every|all|each) heads?",
            r"(w_q|w_k|w_v)(\.weight)? .{0,40}(shape|size) .{0,40}(d_model, d_model|\(\d+, \d+\))",
        ),
        (
            r"(w_v\(key\)|values? (are )?projected from (the )?key)",
            r"transpose\w* (is )?(missing|forgotten)",
            r"w_o (is )?(missing|never applied|left out)|without (the )?output projection",
            r"weights? (are )?averaged over (the )?heads",
        ),
        code="""
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, dropout=0.0):
        super().__init__()
        if d_model % num_heads:
            raise ValueError("d_model must be divisible by num_heads")
        self.d_model, self.num_heads = d_model, num_heads
        d_head = d_model // num_heads
        self.w_q = nn.Linear(d_head, d_head)  # applied to each head
        self.w_k = nn.Linear(d_head, d_head)
        self.w_v = nn.Linear(d_head, d_head)
        self.w_o = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key, value, mask=None):
        q = self.w_q(split_heads(query, self.num_heads))
        k = self.w_k(split_heads(key, self.num_heads))
        v = self.w_v(split_heads(value, self.num_heads))
        heads, weights = scaled_dot_product_attention(q, k, v, mask)
        if self.training and self.dropout.p > 0:
            heads = self.dropout(weights) @ v
        return self.w_o(merge_heads(heads)), weights
""",
        source=PROJECT_AFTER_SPLIT,
    ),
    # ---- 06 masking ---------------------------------------------------------------------------
    _c(
        "decmask-padding-flags-compared-equal",
        L06,
        "decoder_self_attention_mask",
        "builds the padding part by comparing the real-token flags of query and key for "
        "equality (real[:, :, None] == real[:, None, :], ESM's same-sequence mask) instead of "
        "taking the keys' flags alone: real queries are right, but a pad query may attend to the "
        "pads before it and to none of the real tokens.",
        (
            r"pads? .{0,40}attend\w* (to )?(each other|one another|(the |other |earlier )?pads?)",
            r"pad (queries|rows|positions) .{0,80}(pads?|no real (keys|tokens)|not (the )?real "
            r"(keys|tokens))",
            r"equality|compar\w* (the )?(query and key|two|real[- ]token) flags|(flags?|real) "
            r".{0,20}(==|equal)",
            r"(key|keys') (flags?|padding) (alone|only)|only the keys",
        ),
        (
            r"(pad id|pad_id) .{0,20}(hard-?coded|0 instead)",
            r"batch size|shape\[0\]|len\(tgt_ids\)",
            r"or instead of and|(union|either) of the (two )?masks",
            r"diagonal (is )?(excluded|missing|blocked)",
            r"(no|missing) (heads?|num_heads) axis",
        ),
        code="""
def decoder_self_attention_mask(tgt_ids, pad_id):
    real = tgt_ids != pad_id  # (batch, len)
    same_kind = real[:, :, None] == real[:, None, :]  # (batch, len, len)
    return same_kind[:, None] & look_ahead_mask(tgt_ids.shape[1])
""",
        source=PAD_FLAGS_EQUAL,
    ),
]
