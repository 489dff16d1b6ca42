"""Held-out wrong answers, blind round 25 (helper b25a, 2026-11-29, lessons 01-06): mistakes new to
the benchmark, written blind (no check module, no message read) while fix round 27 changed
the checks, to measure how the diagnoses generalise to mistakes nobody here has seen
(``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L01, L04, L05 = "01_tokenization", "04_attention", "05_multi_head_attention"
L03 = "03_positional_encoding"

_c = held_out_authored("blind25a")

# Where these mistakes are reported (each page was read for this batch).
SPLIT_ONE_SPACE = (
    "https://siteproxy-6gq.pages.dev/default/https/thecodeforge.io/python/python-split/"
)
LIST_VS_TUPLE = "http://ansaurus.com/question/2345092-python-why-is-comparison-between-lists-and-tuples-not-supported"
INT_TRUNCATION = (
    "https://www.fixpython.com/python/numpy/numpy-typecasting-float-to-int-truncation-issues"
)
SET_ORDER = (
    "https://wiki.kunaldawn.com/content/stackoverflow.com_en_all_2023-11/questions/60942487/"
    "non-deterministic-order-of-python-set"
)
STRICT_DECODE = "https://github.com/karpathy/minbpe/issues/96"

BLIND25A: list[Case] = [
    # ---- 01 tokenization ------------------------------------------------------------------
    _c(
        "tok-split-literal-space",
        L01,
        "tokenize",
        "pads each punctuation mark with spaces and then splits on a literal single space "
        "(split(' ') instead of split()), so two spaces in a row give empty-string tokens and "
        "tabs or newlines are never split on: they stay inside the tokens.",
        (
            r"split\(\s*['\"] ['\"]\s*\)",
            r"empty[- ]?(string|token)s?",
            r"''|\"\"",
            r"(single|literal|one) space",
            r"(tab|newline|line break)s?\b.{0,40}(kept|inside|stay|not split|glued)",
            r"(consecutive|double|multiple|repeated) (spaces|whitespace)",
        ),
        (
            r"(not|never|forg[eo]t\w* to|without) lower-?cas",
            r"runs? of (punctuation|marks)",
            r"ascii[- ]only",
        ),
        code="""
import re


def tokenize(text):
    spaced = re.sub(r"([^\\w\\s])", r" \\1 ", text.lower())
    return spaced.strip().split(" ")
""",
        source=SPLIT_ONE_SPACE,
    ),
    _c(
        "pairs-set-order",
        L01,
        "get_pair_counts",
        "builds the dict by iterating over set(pairs) and counting each with list.count: the "
        "counts are right, but the pairs come in the set's arbitrary order instead of the "
        "order of their first occurrence, which train_bpe relies on to break ties.",
        (
            r"\bset\b",
            r"(order|ordered) of (their )?first (occurrence|appearance)",
            r"first[- ](seen|occurrence|appearance)",
            r"insertion order",
        ),
        (
            r"most_common|sorted by (count|frequency)",
            r"overlapping",
            r"last pair",
            r"list of (pair, count )?tuples",
        ),
        code="""
def get_pair_counts(ids):
    pairs = list(zip(ids, ids[1:]))
    return {pair: pairs.count(pair) for pair in set(pairs)}
""",
        source=SET_ORDER,
    ),
    _c(
        "merge-slice-vs-tuple",
        L01,
        "merge_pair",
        "tests each position with ids[i:i + 2] == pair, comparing a list slice with the pair "
        "tuple: a list never equals a tuple in Python, so no pair is ever merged and the ids "
        "come back unchanged.",
        (
            r"list.{0,60}tuple|tuple.{0,60}list",
            r"never (equal|match)",
            r"(no|nothing|none of the) (pairs? )?(is |was |are |were )?(ever )?merged",
            r"never merge",
            r"(ids|input) (come|came|is|are|was|were) (back |returned )?unchanged",
            r"unchanged",
        ),
        (
            r"overlap",
            r"in[- ]place|modif(y|ies|ied) the (input|caller)",
            r"last (id|element|token) (is )?(dropped|lost)",
        ),
        edits=(("(ids[i], ids[i + 1]) == pair", "ids[i : i + 2] == pair"),),
        source=LIST_VS_TUPLE,
    ),
    _c(
        "bpe-decode-strict",
        L01,
        "bpe_decode",
        "decodes the joined bytes with .decode('utf-8') in strict mode (no errors='replace'), "
        "so ids whose bytes end in the middle of a multi-byte character raise "
        "UnicodeDecodeError instead of giving the replacement character.",
        (
            r"errors\s*=|'replace'|\"replace\"|errors='replace'",
            r"UnicodeDecodeError",
            r"replacement character|U\+FFFD|\ufffd",
            r"strict",
            r"(invalid|incomplete|partial|broken|cut|split|truncated) (utf-?8 )?"
            r"(character|sequence|byte)",
        ),
        (
            r"latin-?1",
            r"table\[b\] \+ table\[a\]|(order|swap)\w* (of )?the (two )?parts",
            r"bytes\(\[a, b\]\)",
        ),
        edits=(('.decode("utf-8", errors="replace")', '.decode("utf-8")'),),
        source=STRICT_DECODE,
    ),
    # ---- 03 positional encoding -----------------------------------------------------------
    _c(
        "pe-integer-table",
        L03,
        "positional_encoding",
        "allocates the table with np.zeros((max_len, d_model), dtype=int), so every sine and "
        "cosine written into it is truncated toward zero: the table holds only 0 (and 1 where "
        "the cosine is exactly 1) instead of the sinusoids.",
        (
            r"int(eger)?\w* (dtype|array|table|zeros)",
            r"dtype\s*=\s*int",
            r"truncat",
            r"int64|int32",
            r"(rounded|cast) (toward|to) (0|zero)",
        ),
        (
            r"(sin|cos)\w* (and|on) the (wrong|odd|even)",
            r"positions? (count|start)\w* (from|at) 1",
            r"(multipl|divid)\w* .{0,20}10000",
        ),
        edits=(
            ("pe = np.zeros((max_len, d_model))", "pe = np.zeros((max_len, d_model), dtype=int)"),
        ),
        source=INT_TRUNCATION,
    ),
    # ---- 04 attention ---------------------------------------------------------------------
    _c(
        "sdpa-returns-weights-first",
        L04,
        "scaled_dot_product_attention",
        "computes everything right but returns (weights, output) instead of (output, "
        "weights), the order of attention_row's result carried over.",
        (
            r"(swapp|revers|exchang)\w*",
            r"wrong order|other order|order of the (two )?(results|returned|values|outputs)",
            r"\(weights, output\)",
            r"weights first|output (comes? )?(first|second)",
        ),
        (
            r"softmax over the (query|first)",
            r"(not|never|without) (scal|divid)\w*|forg[eo]t\w* (the )?(scale|sqrt)",
            r"mask (is )?(inverted|ignored)",
        ),
        edits=(("return output, weights", "return weights, output"),),
    ),
    # ---- 05 multi-head attention ----------------------------------------------------------
    _c(
        "mha-keys-values-swapped-in-call",
        L05,
        "MultiHeadAttention",
        "passes the projected tensors to the attention as (q, v, k): the scores are taken "
        "against the value projections and the weights average the key projections, so "
        "w_k and w_v play each other's role.",
        (
            r"(keys?|k) and (the )?(values?|v)\b.{0,40}(swapp|revers|exchang|other way)",
            r"(swapp|exchang)\w* .{0,30}(keys?|k)\b.{0,20}(values?|v)\b",
            r"\(q, v, k\)",
            r"w_k and w_v|w_v and w_k",
            r"scores? (against|with|from) the values",
        ),
        (
            r"w_o|output projection",
            r"(not|never|without) (scal|divid)\w*",
            r"merge_heads|split_heads",
            r"mask (is )?(inverted|ignored|dropped)",
        ),
        edits=(
            (
                "scaled_dot_product_attention(q, k, v, mask)",
                "scaled_dot_product_attention(q, v, k, mask)",
            ),
        ),
    ),
]
