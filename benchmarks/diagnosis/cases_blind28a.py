"""Held-out wrong answers, blind round 28 (helper b28a, 2026-11-29, lessons 01-06): mistakes new to
the benchmark, written blind (no check module, no message read) while fix round 32 changed
the checks, to measure how the diagnoses generalise to mistakes nobody here has seen
(``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L01, L02, L03 = "01_tokenization", "02_embeddings", "03_positional_encoding"
L04, L05, L06 = "04_attention", "05_multi_head_attention", "06_masking"

_c = held_out_authored("blind28a")

# Where these mistakes are reported (each page was read for this batch).
NFKC = "https://djangocas.dev/blog/python-unicode-string-lowercase-casefold-caseless-match/"
TWO_CHAR_WORDS = "https://codewithsundeep.com/discussion/solution/33260505"
ICONCAT = "https://runebook.dev/en/docs/python/library/operator/operator.__iconcat__"
SORT_NONE = "https://pythonbeginnerhelp.pages.dev/reference/python-list-sort-method/"
MAP_SHORTEST = "https://www.actualtests.com/blog/understanding-the-map-function-in-python"
LABELS_FROM_ONE = "https://example-a.com/answer/61740817"
DROPOUT2D = "https://github.com/pytorch/pytorch/issues/69801"
NO_SOFTMAX = "https://github.com/PaddlePaddle/PaddleOCR/pull/4556"
KEY_NO_BIAS = "https://github.com/vllm-project/vllm/pull/12342"
BITWISE_NOT = "https://runebook.dev/en/docs/pytorch/generated/torch.bitwise_not"
LOWER_DISCARDED = (
    "https://runestone.academy/ns/books/published/FOPP-PIE/Sequences/StringsAreImmutable.html"
)
TUTORIAL_SUBSEQUENT_MASK = "https://github.com/dearRongerr/learning_transformer_v1"
SDPA_SCALE_DEFAULT = (
    "https://pytorch.org/docs/stable/generated/torch.nn.functional.scaled_dot_product_attention"
)
NP_RESIZE = "https://rossbar.github.io/numpy/reference/generated/numpy.resize.html"

BLIND28A: list[Case] = [
    # ---- 01 tokenization ------------------------------------------------------------------
    _c(
        "tok-nfkc-normalised",
        L01,
        "tokenize",
        "normalises the text to NFKC (unicodedata.normalize('NFKC', text), the compatibility "
        "folding of caseless-matching recipes and of some subword tokenizers) before "
        "lower-casing: compatibility characters are rewritten, so '…' becomes three '.' "
        "tokens, the ligature 'ﬁ' becomes 'fi', '²' becomes '2' and full-width letters "
        "become ASCII, instead of being kept as written.",
        (
            r"nfkc|unicodedata|normali[sz](e|ed|es|ing|ation) (the )?(text|unicode|input)",
            r"compatibility (characters?|decomposition|mapping|normali[sz]ation)",
            r"(…|ellipsis).{0,40}(three|3|split|becomes?|dots)",
            r"ligatures?",
            r"(kept|left) as (written|is)|rewrites? (the )?characters",
        ),
        (
            r"(not|never|forg[eo]t\w* to|without) lower-?cas",
            r"accents? (are )?(stripped|removed)|strips? (the )?accents",
            r"runs? of (punctuation|marks)",
            r"ascii[- ]only|non-ascii letters? (are )?(dropped|lost)",
        ),
        code="""
import re
import unicodedata


def tokenize(text):
    text = unicodedata.normalize("NFKC", text)
    return re.findall(r"\\w+|[^\\w\\s]", text.lower())
""",
        source=NFKC,
    ),
    _c(
        "tok-lower-result-discarded",
        L01,
        "tokenize",
        "calls text.lower() on a line of its own without keeping the result: strings are "
        "immutable, so lower() returns a new string that is thrown away, and the pattern then "
        "splits the original text, capitals included.",
        (
            r"(result|return value) of (text\.|str\.)?lower\(\).{0,40}(discarded|thrown away|"
            r"not (kept|assigned|used|stored)|lost|ignored)",
            r"lower\(\) returns a new string",
            r"(strings are|str is) immutable",
            r"text ?= ?text\.lower\(\)",
            r"(never|not) (re)?assign\w*",
        ),
        (
            r"punctuation (marks? )?(are |is )?(dropped|removed|missing|lost)",
            r"runs? of (punctuation|marks)",
            r"ascii[- ]only|non-ascii",
            r"casefold",
        ),
        code="""
import re


def tokenize(text):
    text.lower()
    return re.findall(r"\\w+|[^\\w\\s]", text)
""",
        source=LOWER_DISCARDED,
    ),
    _c(
        "tok-two-char-words",
        L01,
        "tokenize",
        "borrows scikit-learn CountVectorizer's word rule, two or more word characters "
        "(\\w\\w+), for the word alternative: a one-character word ('i', 'a', a lone digit "
        "'3') matches neither alternative and silently vanishes from the tokens.",
        (
            r"(one|single|1)[- ](char(acter)?|letter|digit)\w* (words?|tokens?)",
            r"\\w\\w\+",
            r"(two|2) or more (word )?char",
            r"at least (two|2) (word )?char",
            r"countvectorizer|token_pattern",
        ),
        (
            r"punctuation (marks? )?(are |is )?(dropped|removed|missing|lost)",
            r"(not|never|forg[eo]t\w* to|without) lower-?cas",
            r"stop[- ]?words?",
            r"ascii[- ]only|non-ascii",
        ),
        code="""
import re


def tokenize(text):
    return re.findall(r"\\w\\w+|[^\\w\\s]", text.lower())
""",
        source=TWO_CHAR_WORDS,
    ),
    _c(
        "vocab-reduce-iconcat-mutates-first-sentence",
        L01,
        "build_vocab",
        "flattens the sentences with functools.reduce(operator.iconcat, token_lists) and no "
        "fresh [] to start from: iconcat is +=, which extends the first sentence's list in "
        "place, so the caller's first token list grows by every other sentence (a second "
        "call then counts those tokens twice) and an empty list of sentences raises TypeError.",
        (
            r"(modif|mutat|chang|extend|alter|grow)\w* (the |your |its )?(caller'?s? |input |first )?"
            r"(token[_ ]lists?|sentences?|input|argument|list)",
            r"in[- ]place",
            r"iconcat|\+=",
            r"side[- ]effect",
            r"token_lists\[0\]",
        ),
        (
            r"ties (are )?(broken|ordered)|tie[- ]break",
            r"min_freq (is )?(ignored|strict|off)",
            r"special tokens? (are )?(missing|overwritten|renumbered)",
            r"count\w* (each |the )?(characters?|sentences?) ",
        ),
        code="""
import functools
import operator
from collections import Counter

SPECIAL_TOKENS = ("<pad>", "<unk>", "<bos>", "<eos>")


def build_vocab(token_lists, min_freq=1):
    all_tokens = functools.reduce(operator.iconcat, token_lists)
    counts = Counter(all_tokens)
    vocab = {token: index for index, token in enumerate(SPECIAL_TOKENS)}
    for token, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        if count >= min_freq and token not in vocab:
            vocab[token] = len(vocab)
    return vocab
""",
        source=ICONCAT,
    ),
    _c(
        "vocab-list-sort-result-kept",
        L01,
        "build_vocab",
        "sorts the (token, count) pairs with list.sort() and keeps its result "
        "(ranked = list(counts.items()).sort(...)): list.sort sorts in place and returns None, "
        "so the loop over ranked raises TypeError and no vocabulary is ever returned.",
        (
            r"\.sort\(\).{0,60}(in[- ]place|returns? None)",
            r"returns? None",
            r"NoneType",
            r"sorted\(",
            r"list\.sort",
        ),
        (
            r"ties (are )?(broken|ordered)|tie[- ]break",
            r"(descending|ascending) (count|order).{0,30}(wrong|reversed)",
            r"special tokens? (are )?(missing|overwritten|renumbered)",
        ),
        edits=(
            (
                "for token, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):",
                "ranked = list(counts.items()).sort(key=lambda item: (-item[1], item[0]))\n"
                "    for token, count in ranked:",
            ),
        ),
        source=SORT_NONE,
    ),
    _c(
        "encode-map-default-as-iterable",
        L01,
        "encode",
        "passes the <unk> default to map as a second iterable, map(vocab.get, tokens, [unk]): "
        "map walks its iterables in step and stops at the shortest, the one-element [unk], so "
        "only the first token is encoded and every later token is missing from the ids.",
        (
            r"(only|just) (the )?first token",
            r"(1|one|a single) id for \d+ tokens",
            r"map\b.{0,60}(shortest|stops)",
            r"stops? at the shortest",
            r"(missing|drops?|loses?|lost) (every|all) (later|other|remaining|following) tokens?",
        ),
        (
            r"unknown tokens? (are |is )?(skipped|dropped)",
            r"<unk> (id )?(is )?(wrong|hard[- ]?coded)",
            r"(duplicates?|repeated tokens?) (are )?(removed|dropped)",
            r"lower-?cas",
        ),
        code="""
def encode(tokens, vocab):
    unk = vocab["<unk>"]
    return list(map(vocab.get, tokens, [unk]))
""",
        source=MAP_SHORTEST,
    ),
    _c(
        "decode-np-vectorize-array-of-str",
        L01,
        "decode",
        "looks the ids up with np.vectorize(id_to_token.get)(ids): the tokens are right but "
        "come back as a numpy array of str (dtype '<U...'), not a list of str, and an empty "
        "list of ids raises ValueError (np.vectorize cannot guess the output type of size-0 "
        "inputs without otypes).",
        (
            r"np\.vectorize|vectori[sz]e",
            r"(numpy|np\.?nd)?array of (str|strings)|ndarray",
            r"not a list( of str)?",
            r"otypes",
            r"'?<U\d*'?|dtype.{0,10}<U",
        ),
        (
            r"(key|insertion) order|position in the vocab",
            r"special tokens? (are )?(dropped|skipped|removed)",
            r"(one|single|joined) string",
            r"(first|previous|earlier) (call|vocab)",
        ),
        code="""
import numpy as np


def decode(ids, vocab):
    id_to_token = {index: token for token, index in vocab.items()}
    return np.vectorize(id_to_token.get)(np.asarray(ids))
""",
    ),
    _c(
        "pad-rows-np-resize",
        L01,
        "pad_batch",
        "fills each row with np.resize(seq, max_len), taking np.resize for a padding "
        "function: np.resize fills a larger shape with repeated copies of the sequence (and "
        "an empty sequence with zeros), so a short row ends with its own first ids again "
        "instead of pad_id.",
        (
            r"np\.resize|resize",
            r"repeat\w* (copies of )?(the |its )?(sequence|ids|row|values)",
            r"(cycl|wrap\w* (a)?round|tiled?)",
            r"(own|first) ids (again|repeated)",
            r"instead of pad_id|not (filled |padded )?with pad_id",
        ),
        (
            r"pad\w* (on )?the left|left-pad",
            r"float (dtype|array|ids)",
            r"\(max_len, batch\)|time[- ]first|transposed",
            r"(longer|long) (rows?|sequences?) (are )?(cut|truncated)",
        ),
        code="""
import numpy as np


def pad_batch(sequences, pad_id):
    max_len = max((len(seq) for seq in sequences), default=0)
    batch = np.full((len(sequences), max_len), pad_id, dtype=np.int64)
    for row, seq in enumerate(sequences):
        batch[row] = np.resize(np.asarray(seq, dtype=np.int64), max_len)
    return batch
""",
        source=NP_RESIZE,
    ),
    # ---- 02 embeddings --------------------------------------------------------------------
    _c(
        "onehot-ids-shifted-down-one",
        L02,
        "one_hot",
        "subtracts 1 from every id before the lookup (np.eye(vocab_size)[ids - 1], the fix "
        "Keras answers give for labels that start at 1), although the course's ids start at "
        "0: each 1 lands one column to the left of its id and id 0 wraps round to the last "
        "column.",
        (
            r"(one|1)[- ]based",
            r"off[- ]by[- ](one|1)",
            r"ids? ?- ?1\b|minus (one|1)|subtract\w* (one|1)",
            r"(one|1) (column|position|place|index) (to the left|too (low|early)|before)",
            r"shifted (by )?(one|1)",
            r"(id )?0 .{0,40}last (column|position)",
        ),
        (
            r"transposed (one-hot|result|output|array)|(vocab|one-hot) axis (is )?first",
            r"width (from|taken from|set by) (the )?(max|largest)",
            r"vocab_size ?\+ ?1|one column too many",
            r"boolean (array|values|dtype)",
        ),
        code="""
import numpy as np


def one_hot(ids, vocab_size):
    return np.eye(vocab_size, dtype=np.float64)[np.asarray(ids) - 1]
""",
        source=LABELS_FROM_ONE,
    ),
    _c(
        "cos-product-rows-normalised",
        L02,
        "cosine_similarity",
        "computes the dot products a @ b.T first and then divides each row of that (n, m) "
        "matrix by the row's own length, instead of dividing entry (i, j) by |a[i]| |b[j]|: "
        "every row of the result is a unit vector over b's rows, not a row of cosines (a "
        "vector's similarity with itself is not 1, and b's lengths are never used).",
        (
            r"(normalis|normaliz|divid)\w* (each |every |the )?rows? of (the )?"
            r"(dot[- ]products?|products?|result|scores?|similarit\w*|a ?@ ?b)",
            r"(norm|length)s? of (the )?(dot[- ]products?|product matrix|result'?s? rows?)",
            r"\|a\[?i\]?\| ?\*? ?\|b\[?j\]?\|",
            r"(norms?|lengths?) of (the rows of )?(both )?a and (of )?b",
            r"b'?s? (norms?|lengths?) (are |is )?(never|not) used",
        ),
        (
            r"axis ?=? ?0|along (the )?columns",
            r"whole[- ]matrix norm|frobenius",
            r"zero vectors?.{0,40}(nan|not guarded|divide by zero)",
            r"squared norms?",
            r"b (is )?not transposed",
        ),
        code="""
import numpy as np


def cosine_similarity(a, b):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    dots = a @ b.T
    norms = np.linalg.norm(dots, axis=-1, keepdims=True)
    return np.divide(dots, norms, out=np.zeros_like(dots), where=norms > 0)
""",
    ),
    # ---- 03 positional encoding -----------------------------------------------------------
    _c(
        "PE-channel-dropout",
        L03,
        "PositionalEncoding",
        "builds the dropout with nn.Dropout2d (channel dropout, made for convolutional "
        "feature maps) instead of nn.Dropout: on a (batch, len, d_model) input it zeroes "
        "whole slices at once (every feature of a position, or a whole sequence) instead of "
        "single entries independently; eval mode and p = 0 are unaffected.",
        (
            r"dropout2d|dropout1d|channel[- ]?(wise )?dropout|spatial dropout",
            r"(whole|entire|all) (the )?(tokens?|positions?|rows?|vectors?|sequences?|"
            r"slices?|channels?)\b.{0,30}(zeroed|dropped)",
            r"drops? (whole|entire) (tokens?|positions?|rows?|vectors?|sequences?|channels?)",
            r"(element[- ]?wise|independent\w*|single entries|each entry)\b.{0,40}dropout",
            r"plain nn\.Dropout|nn\.Dropout\b.{0,20}instead",
        ),
        (
            r"dropout (is )?(never|not) applied|no dropout",
            r"dropout (applied )?before (the )?(addition|sum|adding)",
            r"dropout .{0,20}in eval",
            r"dropout (on|applied to) the (table|encoding|buffer)",
        ),
        edits=(("self.dropout = nn.Dropout(dropout)", "self.dropout = nn.Dropout2d(dropout)"),),
        source=DROPOUT2D,
    ),
    # ---- 04 attention ---------------------------------------------------------------------
    _c(
        "sdpa-scaled-only-without-mask",
        L04,
        "scaled_dot_product_attention",
        "divides the scores by sqrt(d_k) in the else branch of 'if mask is not None' (the "
        "scaling indented under the no-mask path): without a mask the weights are right, but "
        "whenever a mask is given the scores are never scaled and the weights come out too "
        "sharp.",
        (
            r"(scal\w*|sqrt\(d_k\)|divid\w*).{0,60}(only )?(when|if) (there is )?no mask",
            r"(with|when|given|passing) a mask.{0,60}(not|never|un)[- ]?scal",
            r"(mask(ed)?|else) (case|path|branch).{0,40}(scal|sqrt)",
            r"else branch",
            r"(not|never|un)[- ]?scaled .{0,40}mask",
        ),
        (
            r"mask (is )?(inverted|ignored|applied after)",
            r"softmax over (the )?(quer|first|wrong)",
            r"(fully[- ]masked|blocked|no allowed key) rows?.{0,30}nan",
            r"sqrt\(d_v\)|sqrt\(len_k\)|scaled? by (the )?(length|number of keys)",
        ),
        edits=(
            (
                "scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)",
                "scores = q @ k.transpose(-2, -1)",
            ),
            (
                'scores = scores.masked_fill(~mask, float("-inf"))',
                'scores = scores.masked_fill(~mask, float("-inf"))\n'
                "    else:\n"
                "        scores = scores / math.sqrt(d_k)",
            ),
        ),
    ),
    _c(
        "sdpa-scale-keyword-defaults-to-one",
        L04,
        "scaled_dot_product_attention",
        "copies the optional scale keyword of torch's F.scaled_dot_product_attention but gives "
        "it the default 1.0 instead of None-meaning-1/sqrt(d_k): called without a scale, as the "
        "course calls it, the scores are multiplied by 1 and never divided by sqrt(d_k), so the "
        "weights come out too sharp.",
        (
            r"(no|never|without|missing|forg[eo]t\w*|skip\w*) (the )?(scal|sqrt\(d_k\))",
            r"not (divided|scaled) by sqrt\(d_k\)|(never|not) (divided|scaled)",
            r"scale\w* (defaults? to|of|=|is) ?1(\.0)?\b",
            r"default\w* (scale|value).{0,40}(1(\.0)?\b|sqrt)",
            r"unscaled",
        ),
        (
            r"sqrt\(d_v\)|sqrt\(len_k\)|number of keys",
            r"softmax over (the )?(quer|first|wrong)",
            r"mask (is )?(inverted|ignored|applied after)",
            r"d_k instead of sqrt|scaled twice",
        ),
        edits=(
            (
                "scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)",
                "scores = q @ k.transpose(-2, -1) * scale",
            ),
            ("mask: torch.Tensor | None = None", "mask: torch.Tensor | None = None, scale=1.0"),
        ),
        source=SDPA_SCALE_DEFAULT,
    ),
    _c(
        "ar-output-from-unscaled-softmax",
        L04,
        "attention_row",
        "computes the weights from the scaled scores but the output in one more line from "
        "the softmax of the unscaled scores (softmax(keys @ query) @ values): the returned "
        "weights are right, the output is the average under sharper, unscaled weights, so "
        "it is not weights @ values.",
        (
            r"output.{0,60}(unscaled|without (the )?scal|not scaled|raw scores)",
            r"output.{0,60}(not|isn'?t|is not) (the )?(weighted sum|weights ?@ ?values)",
            r"(different|other|second|separate) (set of )?weights.{0,40}output",
            r"output (does not|doesn'?t) (match|use) (the |your )?(returned )?weights",
        ),
        (
            r"scal\w* by (sqrt\()?(len_k|d_v|the number of keys)",
            r"weights (are )?(wrong|not normali[sz]ed)|(do not|don'?t) (sum|add) (up )?to (1|one)",
            r"(returns?|swapped) .{0,20}(output first|in the wrong order)",
            r"mean (over|of) (the )?keys|(plain|unweighted) (mean|average)",
        ),
        edits=(
            (
                "output = weights @ values",
                "output = softmax(keys @ query) @ values",
            ),
        ),
    ),
    # ---- 05 multi-head attention ----------------------------------------------------------
    _c(
        "q-head-width-as-string",
        L05,
        "quiz_head_width",
        "returns the right width as a string, '64' (the habit of the other quizzes, which "
        "return a letter in quotes), instead of the number 64 the question asks for: the value "
        "is right, its type is not.",
        (
            r"\bstr(ing)?\b.{0,40}(instead of|not|rather than) (a |an )?(number|int)",
            r"(number|int\w*).{0,30}(not|instead of|rather than) (a )?(str(ing)?|text)",
            r"(in |inside |without )?(the )?quot(es|ation marks|ed)",
            r"(type|isinstance).{0,30}(str|string)",
        ),
        (
            r"number of heads|\bh\b ?= ?12|sentence length|number of tokens",
            r"d_model (itself|= ?768)|whole width",
            r"square root of d_k|sqrt\(d_k\) (itself|instead)",
            r"feed[- ]forward|intermediate",
        ),
        edits=(("return 64", 'return "64"'),),
    ),
    _c(
        "mha-inline-softmax-forgotten",
        L05,
        "MultiHeadAttention",
        "writes the attention inline and forgets the softmax: the scaled (and masked) scores "
        "are used directly as the weights, so they are not a distribution (negative, not "
        "adding up to 1, -inf at blocked keys) and the output is the scores times the values.",
        (
            r"(no|missing|without|forg[eo]t\w*|skip\w*|never appl\w*|lacks?) (the |a )?softmax",
            r"softmax (is )?(missing|never applied|not applied|left out|skipped)",
            r"(raw|unnormali[sz]ed|scaled) scores (are )?(used |returned )?(directly )?"
            r"(as|for|in place of) (the )?weights",
            r"weights (are|were) (never|not) normali[sz]ed",
        ),
        (
            r"softmax over (the )?(heads|quer|first|wrong)",
            r"sqrt\(d_model\)",
            r"mask (is )?(inverted|ignored)",
            r"w_o.{0,30}(missing|skipped)|output projection (is )?(missing|skipped)",
            r"dropout (on|applied to) (the )?output",
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
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key, value, mask=None):
        batch = query.shape[0]
        d_head = self.d_model // self.num_heads
        q = self.w_q(query).view(batch, -1, self.num_heads, d_head).transpose(1, 2)
        k = self.w_k(key).view(batch, -1, self.num_heads, d_head).transpose(1, 2)
        v = self.w_v(value).view(batch, -1, self.num_heads, d_head).transpose(1, 2)
        scores = q @ k.transpose(-2, -1) / math.sqrt(d_head)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = scores
        heads = self.dropout(weights) @ v
        out = heads.transpose(1, 2).reshape(batch, -1, self.d_model)
        return self.w_o(out), weights
""",
        source=NO_SOFTMAX,
    ),
    _c(
        "mha-key-projection-without-bias",
        L05,
        "MultiHeadAttention",
        "builds w_k with bias=False (Whisper's key projection, which has no bias) while w_q, "
        "w_v and w_o keep theirs: the layer has no w_k.bias, so its state dict lacks that key "
        "and a state dict with the four biases cannot be loaded into it.",
        (
            r"w_k\.bias",
            r"w_k\b.{0,40}(no|without|missing|lacks?) (a |its )?bias",
            r"bias=False.{0,40}w_k|w_k.{0,40}bias=False",
            r"key projection.{0,40}(no|without|missing|lacks?) (a |its )?bias",
        ),
        (
            r"(all|every|the four) (linear|projection)s?.{0,30}(no|without) bias",
            r"w_o.{0,30}(missing|absent)",
            r"fused (q/?k/?v|qkv) (projection|linear|layer)",
            r"w_v.{0,30}(missing|absent)",
        ),
        edits=(
            (
                "self.w_k = nn.Linear(d_model, d_model)",
                "self.w_k = nn.Linear(d_model, d_model, bias=False)",
            ),
        ),
        source=KEY_NO_BIAS,
    ),
    # ---- 06 masking -----------------------------------------------------------------------
    _c(
        "padmask-bitwise-not-of-long",
        L06,
        "padding_mask",
        "marks the pads as a 0/1 long tensor ((ids == pad_id).long()) and flips it with ~: on "
        "an integer tensor ~ is the bitwise complement, -(x + 1), so real tokens become -1 and "
        "pads -2, both non-zero, instead of a bool mask that is False at the pads.",
        (
            r"bitwise",
            r"~ (on|of) (an |a )?(integer|int|long)",
            r"-1\b.{0,40}-2\b|-2\b.{0,40}-1\b",
            r"two'?s[- ]complement",
            r"-\(x ?\+ ?1\)",
        ),
        (
            r"pad_id (is )?(hard[- ]?coded|ignored)",
            r"query axis|\(batch, 1, len, 1\)",
            r"(polarity|inverted).{0,40}(true|false) (at|for) (the )?pads",
            r"expanded to \(batch, 1, len, len\)",
        ),
        code="""
def padding_mask(ids, pad_id):
    is_pad = (ids == pad_id).long()
    return (~is_pad)[:, None, None, :]
""",
        source=BITWISE_NOT,
    ),
    _c(
        "lookahead-tutorial-uint8-with-batch-axis",
        L06,
        "look_ahead_mask",
        "two mistakes at once, both kept from the tutorials' subsequent_mask: the mask is "
        "built as 1 - np.triu(np.ones((1, size, size)), k=1).astype('uint8') and returned "
        "with torch.from_numpy, so it has their leading axis, shape (1, size, size), and "
        "their uint8 dtype, instead of a bool (size, size) mask (the values themselves, the "
        "lower triangle with the diagonal, are right).",
        (
            r"uint8|unsigned|byte tensor|integer (dtype|tensor|mask)|not (a )?bool",
            r"\(1, ?size, ?size\)|\(1, \d+, \d+\)",
            r"(leading|extra|batch) (axis|dimension)|3-?d\b|three (axes|dimensions)",
        ),
        (
            r"upper triangle|future (keys|positions|tokens) (are )?(allowed|visible)",
            r"diagonal (is )?(blocked|excluded|masked|missing)",
            r"(polarity|inverted)|true (means|=|marks) (blocked|masked)",
            r"additive (float )?mask|-inf (where|for|at) (blocked|future)",
        ),
        code="""
import numpy as np
import torch


def look_ahead_mask(size):
    attn_shape = (1, size, size)
    future = np.triu(np.ones(attn_shape), k=1).astype("uint8")
    return torch.from_numpy(1 - future)
""",
        source=TUTORIAL_SUBSEQUENT_MASK,
    ),
]
