"""Held-out wrong answers, blind round 29 (helper b29a, 2026-11-29, lessons 01-06): mistakes new to
the benchmark, written blind (no check module, no message read) while fix round 34 changed
the checks, to measure how the diagnoses generalise to mistakes nobody here has seen
(``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L01, L02, L03 = "01_tokenization", "02_embeddings", "03_positional_encoding"
L04, L05, L06 = "04_attention", "05_multi_head_attention", "06_masking"

_c = held_out_authored("blind29a")

# Where these mistakes are reported (each page was read for this batch).
CASEFOLD = "https://github.com/goodmami/wn/issues/233"
CJK_CHARACTERS_SPLIT = "https://github.com/huggingface/transformers/issues/7362"
SLIDING_WINDOW = "https://github.com/numpy/numpy/pull/25942"
INCREMENTAL_COUNTS = "https://github.com/google/sentencepiece/issues/318"
HARDCODED_SPECIAL_ID = "https://github.com/wzhouad/RE_improved_baseline/issues/3"
COSINE_SAME_NORM = "https://github.com/incanter/incanter/issues/73"
COSINE_SYMMETRIC_FILL = "https://github.com/talboger/fastdist/issues/6"
CLASSES_AS_CHANNELS = "https://github.com/milesial/Pytorch-UNet/issues/322"
LINEAR_FREQUENCIES = "https://github.com/aharley/pips/issues/30"
HARDCODED_CUDA = "https://github.com/intro-llm/intro-llm.github.io/issues/34"
DOCS_MASK_FILLED = "https://github.com/pytorch/pytorch/issues/111023"
MASK_DROPPED_WITH_DROPOUT = "https://github.com/keras-team/keras/issues/23038"
PAIRWISE_PAD_MASK = "https://github.com/Biohub/esm/issues/299"

BLIND29A: list[Case] = [
    # ---- 01 tokenization ------------------------------------------------------------------
    # Left out after the run (coordinator, 2026-11-29): its answer is, body for body, a wrong
    # answer of the tests' own table (tests/test_01_tokenization.py, since 1ea5671), which its
    # blind author could not see; it measures nothing new (tests/test_diagnosis_benchmark.py).
    # _c(
    #     "tok-casefold",
    #     L01,
    #     "tokenize",
    #     "lower-cases with str.casefold() (the Unicode caseless-matching fold, recommended over "
    #     "lower() for comparisons) instead of str.lower(): casefold also rewrites letters that "
    #     "are already lower case, so 'ß' becomes 'ss' ('straße' -> 'strasse'), ligatures such as "
    #     "'ﬁ' become 'fi' and the final sigma 'ς' becomes 'σ'; ASCII text is unchanged.",
    #     (
    #         r"casefold",
    #         r"ß|sharp s|eszett|stra(ss|ß)e",
    #         r"case[- ]?fold\w*|full (unicode )?case (mapping|folding)",
    #         r"ligature|final sigma|ς",
    #     ),
    #     (
    #         r"\bascii\b|\[a-z",
    #         r"nfkc|nfd\b|nfkd|unicodedata|normali[sz]\w* (the text|unicode)",
    #         r"accents? (are )?(stripped|removed|dropped)|strip\w* (the )?accents",
    #         r"not lower-?cased|without lower-?casing|capital letters (are )?kept",
    #         r"punctuation",
    #     ),
    #     code="""
    # import re
    # def tokenize(text):
    # # casefold() is the "aggressive" lower(): the right way to ignore case in Unicode
    # return re.findall(r"\\w+|[^\\w\\s]", text.casefold())
    # """,
    #     source=CASEFOLD,
    # ),
    _c(
        "tok-cjk-characters-split",
        L01,
        "tokenize",
        "adds BERT's tokenize_chinese_chars step (spaces around every character of the CJK "
        "ideograph blocks) before splitting: every Chinese character becomes a token of its "
        "own, so '任务' comes back as '任', '务' where the lesson's word rule (a maximal run of "
        "letters, any script) keeps it one word; text in other scripts is unchanged.",
        (
            r"chinese|\bcjk\b|ideograph|kanji|\bhan\b",
            r"(each|every|single) (chinese |cjk )?(character|ideograph)s?.{0,40}(own|separate|token)",
            r"tokenize_chinese_chars|\bbert\b",
        ),
        (
            r"\bascii\b|\[a-z",
            r"accents?|diacritic",
            r"punctuation runs?|run of (punctuation|marks)",
            r"not lower-?cased|capital",
            r"casefold|nfkc|normali[sz]",
            r"apostroph\w*|hyphen",
        ),
        code="""
import re


def _is_cjk(char):
    code = ord(char)
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3400 <= code <= 0x4DBF
        or 0xF900 <= code <= 0xFAFF
        or 0x20000 <= code <= 0x2A6DF
    )


def tokenize(text):
    # as BERT's BasicTokenizer does: a space around every Chinese character
    spaced = "".join(f" {char} " if _is_cjk(char) else char for char in text.lower())
    return re.findall(r"\\w+|[^\\w\\s]", spaced)
""",
        source=CJK_CHARACTERS_SPLIT,
    ),
    _c(
        "pairs-sliding-window-view",
        L01,
        "get_pair_counts",
        "takes the adjacent pairs from numpy's sliding_window_view(ids, 2), which refuses a "
        "window longer than the array: a list with a single id (or none) raises ValueError "
        "('window shape cannot be larger than input array shape') instead of returning an "
        "empty dict; every list of two ids or more is counted right.",
        (
            r"sliding[_ ]window",
            r"window (shape )?(is )?(cannot be )?(longer|larger)",
            r"(single|one|lone|only one) id|fewer than (two|2)|less than (two|2)|"
            r"length[- ]?(0|1|one)\b|(empty|short) (list|input|sequence)",
        ),
        (
            r"last pair",
            r"overlap\w*",
            r"(first[- ]occurrence|insertion) order|sorted",
            r"IndexError|past the end|range\(len",
            r"zip_longest|None",
            r"wrap\w*|roll",
        ),
        code="""
import numpy as np


def get_pair_counts(ids):
    windows = np.lib.stride_tricks.sliding_window_view(np.asarray(ids), 2)
    counts = {}
    for first, second in windows.tolist():
        counts[(first, second)] = counts.get((first, second), 0) + 1
    return counts
""",
        source=SLIDING_WINDOW,
    ),
    _c(
        "train-incremental-counts-stale",
        L01,
        "train_bpe",
        "counts the pairs once and then updates the counts after each merge instead of "
        "recounting: it deletes the merged pair and adds the new pairs (left, new) and "
        "(new, right), but never subtracts the neighbour pairs the merge destroyed "
        "((left, a) and (b, right)), so stale counts survive and a later step can pick a pair "
        "that is no longer (or less often) in the ids; new pairs also go to the end of the "
        "dict, which changes the tie-break.",
        (
            r"incremental\w*|updat\w* the (pair )?counts|kept up to date",
            r"stale|out[- ]of[- ]date|(not|never) recount\w*|without recounting|counted once",
            r"neighbou?r\w* pairs?|pairs? (around|next to|beside) the merge",
            r"(subtract|decrement)\w*",
        ),
        (
            r"ties?\b|tie-?break",
            r"(ids|list) (is )?never (updated|reassigned)|result (is )?(thrown away|discarded)",
            r"\b25[57]\b|new ids? (start|from)",
            r"raw bytes again|reset\w*",
            r"least frequent",
            r"one merge (short|too many)",
        ),
        code="""
def train_bpe(text, num_merges):
    ids = list(text.encode("utf-8"))
    counts = {}
    for pair in zip(ids, ids[1:]):
        counts[pair] = counts.get(pair, 0) + 1
    merges = {}
    for step in range(num_merges):
        if len(ids) < 2 or not counts:
            break
        best = max(counts, key=counts.get)
        new_id = 256 + step
        merges[best] = new_id
        # keep the counts up to date instead of recounting the whole list:
        # the merged pair is gone, and each merge creates (left, new) and (new, right)
        del counts[best]
        merged = []
        i = 0
        while i < len(ids):
            if i + 1 < len(ids) and (ids[i], ids[i + 1]) == best:
                if merged:
                    left = (merged[-1], new_id)
                    counts[left] = counts.get(left, 0) + 1
                if i + 2 < len(ids):
                    right = (new_id, ids[i + 2])
                    counts[right] = counts.get(right, 0) + 1
                merged.append(new_id)
                i += 2
            else:
                merged.append(ids[i])
                i += 1
        ids = merged
    return merges
""",
        source=INCREMENTAL_COUNTS,
    ),
    _c(
        "pad-torch-empty-row-float",
        L01,
        "pad_batch",
        "pads with torch's pad_sequence over torch.tensor(seq) rows: torch.tensor([]) of an "
        "empty sequence is float32, and pad_sequence takes its dtype from the first row, so "
        "a batch whose first sequence is empty (or whose sequences are all empty) comes back "
        "as a float32 tensor instead of integers; other batches are right.",
        (
            r"torch\.tensor\(\[\]\)|empty (sequence|row|list)s?.{0,60}float",
            r"float\w*.{0,80}(empty|first (sequence|row))",
            r"pad_sequence.{0,80}(dtype|float|first)",
        ),
        (
            r"np\.zeros|zeros \(float64\)",
            r"time[- ]first|batch_first|transpos\w*",
            r"(left|right)[- ]pad\w*|pads? on the left",
            r"pad_id (is )?(ignored|never used)|with 0 instead",
            r"max_len|longest|width",
        ),
        code="""
import torch
from torch.nn.utils.rnn import pad_sequence


def pad_batch(sequences, pad_id):
    if len(sequences) == 0:
        return np.zeros((0, 0), dtype=np.int64)
    rows = [torch.tensor(seq) for seq in sequences]
    return pad_sequence(rows, batch_first=True, padding_value=pad_id)
""",
    ),
    _c(
        "encode-unk-id-constant",
        L01,
        "encode",
        "maps an unknown token to the constant UNK_ID = 1 (the id build_vocab gives <unk>) "
        "instead of looking '<unk>' up in the vocabulary it is given: right for every "
        "vocabulary build_vocab makes, wrong for one where '<unk>' has another id (a "
        "vocabulary from elsewhere), where unknown tokens get id 1, another token's id.",
        (
            r"UNK_ID|(hard[- ]?coded|constant|fixed) (id )?(1\b|<unk>|unk)",
            r"(look|looks|looking) up (the id of )?.?<unk>|vocab\[.<unk>.\]|vocab\.get\(.<unk>",
            r"\b1\b.{0,60}(instead of|rather than|not) .{0,30}<unk>",
        ),
        (
            r"KeyError",
            r"<pad>|\b0\b.{0,40}(pad|instead)",
            r"len\(vocab\)|past the end|new id",
            r"<bos>|<eos>|add_special_tokens",
            r"lower-?cas\w*",
            r"None",
        ),
        code="""
UNK_ID = 1  # <pad>=0, <unk>=1, <bos>=2, <eos>=3


def encode(tokens, vocab):
    return [vocab.get(token, UNK_ID) for token in tokens]
""",
        source=HARDCODED_SPECIAL_ID,
    ),
    # ---- 02 embeddings --------------------------------------------------------------------
    _c(
        "cos-a-norm-twice",
        L02,
        "cosine_similarity",
        "a copy-paste slip in the denominator: it divides a[i]·b[j] by |a[i]| * |a[i]| (a's "
        "norm twice) instead of |a[i]| * |b[j]|, so b's lengths are never used: each entry is "
        "the dot product over a[i]'s squared length, right only where b[j] happens to be as "
        "long as a[i].",
        (
            r"(norm|length)\w* of a\b.{0,40}(twice|two times|squared|both)",
            r"\|a(\[i\])?\|\s*\*\s*\|a(\[i\])?\||\|a\|\^?2|a[' ]s (norm|length) (twice|squared)",
            r"b'?s? (norms?|lengths?) (is |are )?(never|not) used|"
            r"(never|not) (divid\w*|us\w*) .{0,30}(norms?|lengths?) of b",
        ),
        (
            r"squared norms|no square root|sum of squares",
            r"axis ?0|one norm per feature",
            r"whole matri\w*|frobenius",
            r"outer product",
            r"zero vectors?|nan",
            r"pearson|mean",
        ),
        code="""
def cosine_similarity(a, b):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    out = np.zeros((len(a), len(b)))
    for i in range(len(a)):
        for j in range(len(b)):
            norm_a = np.linalg.norm(a[i])
            norm_b = np.linalg.norm(a[i])
            if norm_a > 0 and norm_b > 0:
                out[i, j] = a[i] @ b[j] / (norm_a * norm_b)
    return out
""",
        source=COSINE_SAME_NORM,
    ),
    _c(
        "cos-symmetric-fill",
        L02,
        "cosine_similarity",
        "fills the matrix as if it were symmetric (a self-similarity matrix): for every pair "
        "(i, j) it adds the cosine to entry (i, j) and to its mirror (j, i), so with as many "
        "rows in a as in b each entry is cos(a_i, b_j) + cos(a_j, b_i) (the diagonal twice "
        "its cosine, 2 for a == b), and with n != m it raises IndexError.",
        (
            r"symmetr\w*",
            r"mirror\w*|\(j, ?i\)|\[j, ?i\]",
            r"(added|counted|written) twice|doubl\w*|diagonal .{0,30}(\b2\b|twice)",
            r"self[- ]similarity|(same|one) set of rows",
        ),
        (
            r"squared norms|no square root",
            r"whole matri\w*|frobenius",
            r"axis ?0|one norm per feature",
            r"b'?s? (rows )?(is |are )?not normali[sz]ed|normalis\w* a but not b",
            r"zero vectors?|nan",
        ),
        code="""
def cosine_similarity(a, b):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    a_unit = a / np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-12)
    b_unit = b / np.maximum(np.linalg.norm(b, axis=1, keepdims=True), 1e-12)
    sims = np.zeros((len(a), len(b)))
    for i in range(len(a)):
        for j in range(len(b)):
            value = a_unit[i] @ b_unit[j]
            sims[i, j] += value
            sims[j, i] += value  # similarity is symmetric
    return sims
""",
        source=COSINE_SYMMETRIC_FILL,
    ),
    _c(
        "onehot-classes-as-channels",
        L02,
        "one_hot",
        "moves the vocabulary axis right after the batch axis (np.moveaxis(..., -1, 1), the "
        "channels-first (N, C, L) layout that F.one_hot(...).permute(0, 3, 1, 2) gives "
        "segmentation masks and cross_entropy expects) for ids with more than one axis: 1-D "
        "ids are right, but (batch, len) ids give (batch, vocab_size, len) instead of "
        "(batch, len, vocab_size).",
        (
            r"channels?[- ]first|\(n, ?c, ?l\)|cross[_ ]entropy",
            r"(vocab\w*|class\w*|one-hot) (axis|dim\w*) .{0,50}"
            r"(second|axis 1|dim(ension)? 1|position 1|after the batch|before the (len|length|sequence))",
            r"moveaxis|moved? .{0,30}axis|permut\w*",
            r"\(batch, ?vocab_size, ?len\)",
        ),
        (
            r"first axis|axis 0|vocab\w* (axis )?(comes )?first\b|eye\[:, ?ids\]|columns of the identity",
            r"flatten\w*|ravel",
            r"squeez\w*",
            r"vocab_size ?\+ ?1|too wide|max\(?ids|largest id",
            r"bag[- ]of[- ]words|summed",
        ),
        code="""
def one_hot(ids, vocab_size):
    ids = np.asarray(ids)
    encoded = np.eye(vocab_size)[ids]  # (..., vocab_size)
    if encoded.ndim > 2:
        # classes as channels, right after the batch axis: (batch, vocab_size, len)
        encoded = np.moveaxis(encoded, -1, 1)
    return encoded
""",
        source=CLASSES_AS_CHANNELS,
    ),
    # ---- 03 positional encoding -----------------------------------------------------------
    _c(
        "pe-wavelengths-linear",
        L03,
        "positional_encoding",
        "spaces the wavelengths linearly (np.linspace(1, 10000, number of pairs) as the "
        "divisors, reading 'from 2*pi to 10000 * 2*pi' as evenly spaced) instead of "
        "geometrically (10000^(2i/d_model)): the first pair (divisor 1) is right, every later "
        "pair turns far slower than the paper's (the last one with divisor 10000 instead of "
        "10000^((d_model - 2)/d_model)).",
        (
            r"linear\w*|evenly spaced|linspace|arithmetic",
            r"geometric\w*|exponential\w*",
            r"10000 ?\^ ?\(?2i|power of 10000",
        ),
        (
            r"\bi instead of 2i|pair index i\b|exponent i ?/",
            r"base 1000\b|10e4|100000",
            r"(sin\w*|cos\w*) .{0,30}swapped",
            r"positions? (start|from) (at )?1|normali[sz]ed positions|divid\w* by max_len",
            r"multipl\w* .{0,40}instead of divid\w*",
            r"halves|concatenat\w*",
        ),
        code="""
def positional_encoding(max_len, d_model):
    num_pairs = (d_model + 1) // 2
    # the wavelengths run from 2*pi up to 10000 * 2*pi (paper, section 3.5)
    divisors = np.linspace(1.0, 10000.0, num_pairs)
    angles = np.arange(max_len)[:, None] / divisors  # (max_len, num_pairs)
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return pe
""",
        source=LINEAR_FREQUENCIES,
    ),
    _c(
        "posenc-table-moved-to-cuda",
        L03,
        "PositionalEncoding",
        "moves the table rows to the GPU in forward (self.pe[:, :len].cuda(), as the "
        "tutorial it follows does) instead of leaving the buffer where .to() puts it: on a "
        "machine without CUDA every call raises, and on a GPU machine a CPU batch meets a "
        "CUDA table (a device mismatch); the output is never on x's device unless x is on "
        "the GPU.",
        (
            r"\.cuda\(\)|\bcuda\b",
            r"(hard[- ]?coded|fixed) (gpu|device)|\bgpu\b",
            r"x'?s device|same device as x|device mismatch|\.to\(x",
        ),
        (
            r"plain attribute|not a (registered )?buffer",
            r"float64|double",
            r"first len rows|whole (max_len )?table|slic\w*",
            r"dropout",
            r"requires_grad|detach\w*|\.data\b",
            r"max_len",
        ),
        code="""
import math


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        position = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, d_model)
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term[: d_model // 2])
        self.register_buffer("pe", pe.unsqueeze(0))

    def forward(self, x):
        seq_len = x.size(1)
        if seq_len > self.pe.size(1):
            raise ValueError(f"sequence of {seq_len} positions is longer than max_len")
        return self.dropout(x + self.pe[:, :seq_len].cuda())
""",
        source=HARDCODED_CUDA,
    ),
    _c(
        "rs-kron-one-rotation",
        L03,
        "relative_shift",
        "builds the matrix as np.kron(np.eye(d_model // 2), R) with one 2x2 rotation R by the "
        "angle k (the first pair's frequency, w_0 = 1), so every pair is rotated by k instead "
        "of by k * w_i: pair 0 is right, the other pairs are rotated far too much.",
        (
            r"kron\w*",
            r"(same|one|single) (angle|rotation|frequency|block)",
            r"(every|all|each) pairs? .{0,40}(same|k\b|first pair)",
            r"w_i|frequenc\w* of (each|the) pair|pair'?s (own )?frequenc",
        ),
        (
            r"transpos\w*|column[- ]vector|-k\b|backwards",
            r"ignores k|without k|k (is )?(left out|missing)",
            r"\bi instead of 2i|4i",
            r"odd d_model|ValueError",
            r"sin\w* and cos\w* swapped|minus sign",
            r"abs\(k\)|absolute",
        ),
        code="""
def relative_shift(k, d_model):
    if d_model % 2:
        raise ValueError(f"relative_shift needs an even d_model, got {d_model}")
    rotation = np.array([[np.cos(k), -np.sin(k)], [np.sin(k), np.cos(k)]])
    return np.kron(np.eye(d_model // 2), rotation)
""",
    ),
    # ---- 04 attention ---------------------------------------------------------------------
    _c(
        "sdpa-docs-mask-filled-instead-of-bias",
        L04,
        "scaled_dot_product_attention",
        "follows the 'equivalent implementation' of PyTorch's documentation with its typo: "
        "it builds a zero bias but calls mask.masked_fill_(mask.logical_not(), -inf) on the "
        "bool mask itself, which sets every blocked entry of the caller's mask to True and "
        "leaves the bias at zero, so no key is ever blocked (and the caller's mask is "
        "overwritten to all True).",
        (
            r"(fill\w*|writ\w*|masked_fill_?) .{0,40}(the )?mask itself|into the mask",
            r"bias .{0,50}(never|not) (filled|used|updated|changed)|attn_bias|zero bias",
            r"(caller'?s|input|given) mask .{0,50}(modified|changed|overwritten|mutated|all true)",
            r"in[- ]place .{0,40}mask|mask .{0,40}in[- ]place",
        ),
        (
            r"polarity|inverted|true (means|=) blocked",
            r"(not|never) assigned|result (is )?(discarded|thrown away)",
            r"fully[- ]masked|\bnan\b",
            r"sqrt|scal\w*",
            r"dim ?= ?-?2|over the queries",
            r"transpos\w* (the )?mask",
        ),
        code="""
def scaled_dot_product_attention(q, k, v, mask=None):
    scale_factor = 1 / math.sqrt(q.size(-1))
    attn_bias = torch.zeros(q.size(-2), k.size(-2), dtype=q.dtype)
    if mask is not None:
        if mask.dtype == torch.bool:
            mask.masked_fill_(mask.logical_not(), float("-inf"))
        else:
            attn_bias = attn_bias + mask
    attn_weight = q @ k.transpose(-2, -1) * scale_factor
    attn_weight = attn_weight + attn_bias
    attn_weight = torch.softmax(attn_weight, dim=-1)
    return attn_weight @ v, attn_weight
""",
        source=DOCS_MASK_FILLED,
    ),
    _c(
        "sdpa-docs-bias-two-dimensional",
        L04,
        "scaled_dot_product_attention",
        "copies the 'equivalent implementation' of PyTorch's documentation: the mask is turned "
        "into a bias built as torch.zeros(len_q, len_k) and filled in place with "
        "attn_bias.masked_fill_(mask.logical_not(), -inf); an in-place fill cannot grow the "
        "(len_q, len_k) bias, so it works for a 2-D mask but every batched mask, such as a "
        "(batch, 1, 1, len_k) padding mask, raises RuntimeError (the output shape does not "
        "match the broadcast shape).",
        (
            r"(bias|attn_bias).{0,60}(2-?d|two[- ]dimensional|\(len_q, ?len_k\)|zeros\(l, ?s\))",
            r"in[- ]place.{0,60}(broadcast|grow|shape)|masked_fill_",
            r"batched (mask|padding)|leading (batch )?dim\w*.{0,30}mask",
        ),
        (
            r"polarity|inverted|true (means|=) blocked",
            r"(not|never) assigned|result (is )?(discarded|thrown away)",
            r"\.T\b|transpose\(2, ?3\)|bmm|einsum",
            r"fully[- ]masked|\bnan\b",
            r"sqrt|scal\w*",
            r"view\(|reshap\w*",
        ),
        code="""
def scaled_dot_product_attention(q, k, v, mask=None):
    L, S = q.size(-2), k.size(-2)
    scale_factor = 1 / math.sqrt(q.size(-1))
    attn_bias = torch.zeros(L, S, dtype=q.dtype)
    if mask is not None:
        attn_bias.masked_fill_(mask.logical_not(), float("-inf"))
    attn_weight = q @ k.transpose(-2, -1) * scale_factor + attn_bias
    attn_weight = torch.softmax(attn_weight, dim=-1)
    if mask is not None:
        attn_weight = attn_weight.nan_to_num(0.0)
    return attn_weight @ v, attn_weight
""",
        source=DOCS_MASK_FILLED,
    ),
    _c(
        "row-np-average-without-axis",
        L04,
        "attention_row",
        "computes the output with np.average(values, weights=weights) and no axis: np.average "
        "then averages over the whole (len_k, d_v) array and refuses (len_k,) weights that do "
        "not match its shape, so every call with d_v > 1 raises TypeError ('Axis must be "
        "specified when shapes of a and weights differ') instead of averaging the value rows "
        "(axis=0).",
        (
            r"np\.average|average\(",
            r"axis ?= ?0|no axis|without (an )?axis|axis must be specified",
            r"(shapes?|weights) (of a and weights )?differ",
        ),
        (
            r"sqrt|scal\w*",
            r"keys? instead of (the )?values|sum of the keys",
            r"mean over|averag\w* .{0,30}instead of sum",
            r"axis ?= ?1|over the features",
            r"argmax|one-hot",
            r"cosine",
        ),
        code="""
def attention_row(query, keys, values):
    d_k = query.shape[-1]
    scores = keys @ query / np.sqrt(d_k)
    exps = np.exp(scores - scores.max())
    weights = exps / exps.sum()
    output = np.average(values, weights=weights)  # weighted average of the value rows
    return weights, output
""",
    ),
    # ---- 05 multi-head attention ----------------------------------------------------------
    _c(
        "mha-mask-dropped-in-dropout-path",
        L05,
        "MultiHeadAttention",
        "writes the attention out by hand in the training branch (so that dropout can act on "
        "the weights) and forgets the mask there: eval mode, and training with dropout 0, go "
        "through the masked path and are right, but in training with dropout > 0 every query "
        "attends to every key, padding and future positions included.",
        (
            r"(training|dropout) (branch|path|mode).{0,80}mask|mask.{0,80}(training|dropout) "
            r"(branch|path|mode)",
            r"mask (is )?(ignored|dropped|skipped|not applied|never applied) (in|during|when) "
            r"(training|dropout)",
            r"only (in|when) (training|dropout)",
        ),
        (
            r"dropout (is )?(never|not) applied|built (but )?never applied",
            r"functional dropout|F\.dropout|training ?= ?True",
            r"dropout (on|applied to) (the )?(output|values|scores)",
            r"mask (is )?(never )?(passed|forwarded)|mask (is )?dropped\b(?! in)",
            r"unsqueeze|extra (head )?axis",
            r"sqrt|scal\w*",
        ),
        code="""
import math


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, dropout=0.0):
        super().__init__()
        if d_model % num_heads:
            raise ValueError("d_model must be divisible by num_heads")
        self.num_heads = num_heads
        self.d_head = d_model // num_heads
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)

    def _heads(self, x):
        batch, length, _ = x.shape
        return x.view(batch, length, self.num_heads, self.d_head).transpose(1, 2)

    def forward(self, query, key, value, mask=None):
        q = self._heads(self.w_q(query))
        k = self._heads(self.w_k(key))
        v = self._heads(self.w_v(value))
        if self.training and self.dropout.p > 0:
            # written out here so that dropout can act on the weights
            scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
            weights = torch.softmax(scores, dim=-1)
            heads = self.dropout(weights) @ v
        else:
            scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
            if mask is not None:
                scores = scores.masked_fill(~mask, float("-inf"))
            weights = torch.softmax(scores, dim=-1).nan_to_num(0.0)
            heads = weights @ v
        batch, _, length, _ = heads.shape
        merged = heads.transpose(1, 2).reshape(batch, length, self.num_heads * self.d_head)
        return self.w_o(merged), weights
""",
        source=MASK_DROPPED_WITH_DROPOUT,
    ),
    _c(
        "merge-reshape-to-input-leading-sizes",
        L05,
        "merge_heads",
        "transposes the heads back and reshapes to (*x.shape[:2], -1), reading the input's "
        "first two sizes as (batch, len) while they are (batch, num_heads): the result is "
        "(batch, num_heads, len * d_head) instead of (batch, len, num_heads * d_head): right "
        "only when len == num_heads, a wrongly shaped result for every other length.",
        (
            r"x\.shape\[:2\]|first two (sizes|dims|dimensions|axes)",
            r"num_heads.{0,40}(where|instead of|in place of).{0,20}(len|length)",
            r"\(batch, ?num_heads, ?len ?\* ?d_head\)",
            r"len(gth)? ?== ?num_heads",
        ),
        (
            r"(without|no|forgot\w*) (a |the )?transpos\w*",
            r"\.view\b|contiguous",
            r"flatten\w*",
            r"interleav\w*",
            r"summed|sum\(",
            r"batch of one",
        ),
        code="""
def merge_heads(x):
    return x.transpose(1, 2).reshape(*x.shape[:2], -1)
""",
    ),
    # ---- 06 masking -----------------------------------------------------------------------
    _c(
        "padmask-pairwise-equal-flags",
        L06,
        "padding_mask",
        "builds the mask pairwise from the real-token flags, keep[:, :, None] == "
        "keep[:, None, :] (ESM's mask), as (batch, 1, len, len): a real query may attend to "
        "the real keys, but a pad query attends only to the pads, and the mask is expanded "
        "over the queries instead of (batch, 1, 1, len).",
        (
            r"pairwise|==.{0,40}(flags|keep|real)|(equal|same) (flags|status)",
            r"pads? (queries|rows?) .{0,60}(attend|see|allowed).{0,30}pads?",
            r"\(batch, ?1, ?len, ?len\)|expanded|len_q axis",
        ),
        (
            r"inverted|true (at|marks) the pads|==\s*pad_id",
            r"query axis|\(batch, ?1, ?len, ?1\)",
            r"pad_id (is )?(ignored|hard-?coded)|compares? with 0",
            r"look[- ]ahead|triangle|causal",
            r"long|int64|uint8|float",
        ),
        code="""
def padding_mask(ids, pad_id):
    keep = ids != pad_id  # (batch, len)
    # position i may look at position j when both are real tokens or both are pads
    return (keep[:, :, None] == keep[:, None, :]).unsqueeze(1)  # (batch, 1, len, len)
""",
        source=PAIRWISE_PAD_MASK,
    ),
]
