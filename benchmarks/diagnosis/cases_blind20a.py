"""Held-out wrong answers, blind round 20 (helper b20a, 2026-11-28, lessons 01-06): mistakes new to
the benchmark, written blind (no check module, no message read) while fix round 22 changed
the checks, to measure how the diagnoses generalise to mistakes nobody here has seen
(``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L01, L02, L03 = "01_tokenization", "02_embeddings", "03_positional_encoding"
L04, L05, L06 = "04_attention", "05_multi_head_attention", "06_masking"

_c = held_out_authored("blind20a")

# Where these mistakes are reported (each page was read for this batch).
BYTE_FALLBACK = "https://github.com/google/sentencepiece/issues/621"
PAD_MULTIPLE = "https://github.com/huggingface/transformers/pull/5054"
PREFIX_SPACE = (
    "https://huggingface.co/transformers/v3.5.1/_modules/transformers/tokenization_gpt2_fast.html"
)
MINBPE_STRICT = "https://github.com/karpathy/minbpe/issues/96"
AVERAGE_EMBEDDINGS = (
    "https://datascience.stackexchange.com/questions/107462/why-does-averaging-word-embedding-"
    "vectors-exctracted-from-the-nn-embedding-laye"
)
COSINE_EUCLIDEAN = "https://skeptric.com/cosine-is-euclidean/index.html"
ANNOTATED_EMBEDDINGS = (
    "https://github.com/pechyonkin/annotated-transformer (annotated/embeddings.py)"
)
TEN_E_FOUR = "https://github.com/HDI-Project/ATM/issues/53"
CONCAT_POSITIONS = (
    "https://datascience.stackexchange.com/questions/55901/in-a-transformer-model-why-does-one-"
    "sum-positional-encoding-to-the-embedding-ra"
)
DIM_KEYWORD = "https://github.com/AlexHex7/Non-local_pytorch/issues/2"
CLIP_OVERFLOW = (
    "https://www.iditect.com/programming/python-example/how-to-fix-runtimewarning-overflow-"
    "encountered-in-exp.html"
)
KEYS_TIMES_QUERIES = "https://github.com/huggingface/pytorch-openai-transformer-lm/issues/2"
JADORE_SUBLAYERS = (
    "https://github.com/jadore801120/attention-is-all-you-need-pytorch (transformer/SubLayers.py)"
)
KEY_PADDING_MASK = "https://docs.pytorch.org/1.8.1/generated/torch.nn.MultiheadAttention.html"
ADDITIVE_SUBSEQUENT = (
    "https://huggingface.co/spaces/OmniSVG/OmniSVG-3B/blob/main/deepsvg/model/layers/utils.py"
)

_PAD_OTHERS = (
    r"pad\w* (on )?the left|left-pad",
    r"float (dtype|array|ids)",
    r"(ignores|never uses|without) pad_id|pad\w* with (0|zeros?) instead",
    r"truncat",
)

BLIND20A: list[Case] = [
    # ---- 01 tokenization ------------------------------------------------------------------
    _c(
        "tok-one-list-per-line",
        L01,
        "tokenize",
        "tokenises the text line by line ([re.findall(..., line.lower()) for line in "
        "text.splitlines()], the habit of reading a corpus one line per sentence) and returns "
        "one list of tokens per line, a list of lists, instead of one flat list of tokens.",
        (
            r"nested",
            r"list of lists",
            r"(per|each|one list (per|for each)) line",
            r"splitlines",
            r"(flat|single) list",
        ),
        (
            r"(not|never|forg[eo]t\w* to|without) lower-?cas",
            r"punctuation (marks? )?(are |is )?(dropped|removed|missing|lost)",
            r"runs? of (punctuation|marks)",
            r"newlines?.{0,30}(kept|as tokens?)",
        ),
        edits=(
            (
                r"""return re.findall(r"\w+|[^\w\s]", text.lower())""",
                r"""return [re.findall(r"\w+|[^\w\s]", line.lower()) for line in text.splitlines()]""",
            ),
        ),
    ),
    _c(
        "vocab-counter-of-unpacked-sentences",
        L01,
        "build_vocab",
        "counts with Counter(*token_lists), unpacking the sentences as separate arguments: one "
        "sentence is counted right, but two or more raise TypeError (Counter.__init__ takes "
        "one iterable, not one per sentence), so no real corpus can be counted.",
        (
            r"\*token_lists",
            r"unpack",
            r"at most (1|one) (positional )?argument",
            r"Counter.{0,60}positional arguments?",
            r"Counter\(\*",
            r"(each|every|all) (the )?(sentences?|lists?) .{0,40}(separate|own) argument",
        ),
        (
            r"ties?\b.{0,40}(alphabet|first-seen|order)",
            r"min_freq",
            r"special tokens?.{0,40}(missing|left out|ids)",
            r"unhashable",
        ),
        edits=(
            (
                "counts = Counter(token for tokens in token_lists for token in tokens)",
                "counts = Counter(*token_lists)",
            ),
        ),
    ),
    _c(
        "encode-unknown-spelled-out",
        L01,
        "encode",
        "borrows byte/character fallback (SentencePiece's byte_fallback): a token missing from "
        "the vocabulary is spelled out as the ids of its characters (each unknown character "
        "<unk>) instead of becoming one <unk> id, so an unknown word gives several ids and the "
        "result is longer than the tokens.",
        (
            r"fallback",
            r"(charact|letter)s?.{0,80}(unknown|missing|out-of-vocab|oov)",
            r"(unknown|missing|out-of-vocab|oov).{0,80}(spelled|split|broken|charact|letters)",
            r"(unknown|missing) (token|word).{0,60}(one|a single) <unk>",
        ),
        (
            r"<bos>|<eos>",
            r"KeyError",
            r"(unknown|missing).{0,40}(skipped|dropped|vanish)",
            r"(hard-coded|instead of the id of <unk>|as <pad>)",
        ),
        edits=(
            (
                "return [vocab.get(token, unk) for token in tokens]",
                "ids = []\n"
                "    for token in tokens:\n"
                "        if token in vocab:\n"
                "            ids.append(vocab[token])\n"
                "        else:\n"
                "            ids.extend(vocab.get(char, unk) for char in token)\n"
                "    return ids",
            ),
        ),
        source=BYTE_FALLBACK,
    ),
    _c(
        "decode-tokens-with-trailing-space",
        L01,
        "decode",
        "appends a space to every decoded token (token + ' ', as when building a sentence "
        "word by word), so each string in the list ends with a space: 'hello ' instead of "
        "'hello'.",
        (
            r"(trailing|extra|added|appended) (white)?spaces?",
            r"spaces? (at the end|after each|appended|added)",
            r"'\w+ '",
            r"end(s)? with a space",
        ),
        (
            r"(one|single) string|joined",
            r"special tokens? (are )?(dropped|skipped|removed)",
            r"(key|insertion) order|position in the vocab",
        ),
        edits=(
            (
                "return [id_to_token[int(index)] for index in ids]",
                'return [id_to_token[int(index)] + " " for index in ids]',
            ),
        ),
    ),
    _c(
        "pad-width-multiple-of-eight",
        L01,
        "pad_batch",
        "rounds the batch's width up to a multiple of 8 (Hugging Face's pad_to_multiple_of=8, "
        "for tensor cores) instead of the longest sequence's length: a batch whose longest "
        "sequence has 5 ids comes back 8 columns wide, with extra columns of pad_id.",
        (
            r"multiple of (8|eight)",
            r"pad_to_multiple_of",
            r"round(ed|s|ing)? up",
            r"longest.{0,60}(width|columns?|max_len|wide)",
            r"(width|columns?|max_len|wide).{0,60}longest",
        ),
        (*_PAD_OTHERS, r"(one|an) extra column|<eos>"),
        edits=(
            (
                "max_len = max((len(seq) for seq in sequences), default=0)",
                "max_len = max((len(seq) for seq in sequences), default=0)\n"
                "    max_len = -(-max_len // 8) * 8",
            ),
        ),
        source=PAD_MULTIPLE,
    ),
    _c(
        "pairs-zip-longest-last-with-none",
        L01,
        "get_pair_counts",
        "pairs the ids with itertools.zip_longest(ids, ids[1:]) instead of zip, so the last id "
        "is also paired with the fill value None: every non-empty list gets an extra pair "
        "(ids[-1], None), which is not a pair of adjacent ids.",
        (
            r"zip_longest",
            r"\(\d+, None\)",
            r"with None",
            r"None.{0,40}(pair|fill)",
            r"(extra|spurious|one more|additional) pair",
        ),
        (
            r"overlapping",
            r"last pair.{0,30}(missing|never counted|missed)",
            r"(ordered|sorted) by (count|value)",
            r"mutable default",
        ),
        code="""
from itertools import zip_longest


def get_pair_counts(ids):
    counts = {}
    for pair in zip_longest(ids, ids[1:]):
        counts[pair] = counts.get(pair, 0) + 1
    return counts
""",
    ),
    _c(
        "merge-written-as-generator",
        L01,
        "merge_pair",
        "writes the scan with yield instead of appending to a list, which makes merge_pair a "
        "generator function: it returns a lazy generator object, not a list (or tuple) of ids.",
        (r"generator", r"\byield", r"lazy"),
        (r"overlap", r"in place|modif\w* the (input|caller)", r"(first|last) id"),
        code="""
def merge_pair(ids, pair, new_id):
    i = 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            yield new_id
            i += 2
        else:
            yield ids[i]
            i += 1
""",
    ),
    _c(
        "train-ids-from-255",
        L01,
        "train_bpe",
        "numbers the new tokens 255 + step instead of 256 + step (taking 255, the last byte, "
        "as the first free id): the first merge's id 255 collides with the byte 255 and every "
        "new id is one too low.",
        (
            r"\b255\b",
            r"(start|begin)\w* (at|from) 256",
            r"256 ?\+ ?(i|step)",
            r"off[- ]by[- ]one",
            r"one (too )?(low|small|less)",
            r"(first|new) (merge'?s? )?id.{0,40}256",
        ),
        (
            r"\b257\b",
            r"ties?\b",
            r"vocab_size|num_merges - 256",
            r"recount|counts? once",
        ),
        edits=(
            ("ids = merge_pair(ids, best, 256 + step)", "ids = merge_pair(ids, best, 255 + step)"),
            ("merges[best] = 256 + step", "merges[best] = 255 + step"),
        ),
    ),
    _c(
        "bpe-encode-prefix-space",
        L01,
        "bpe_encode",
        "prepends a space to the text before taking its bytes (GPT-2's add_prefix_space=True), "
        "so every encoding starts with the space's byte 32 (or a merge containing it) and "
        "bpe_decode no longer gives the text back.",
        (
            r"(leading|extra|prefix|added|prepended) space",
            r"add_prefix_space",
            r"space (in front|at the (start|beginning)|before the text)",
            r"\b32\b.{0,60}(first|front|start|extra|leading)",
        ),
        (
            r"earliest|latest|learned order|most frequent",
            r"code points?|\bord\b",
            r"pretoken|chunks?",
            r"(latin|ascii)",
        ),
        edits=(('ids = list(text.encode("utf-8"))', 'ids = list((" " + text).encode("utf-8"))'),),
        source=PREFIX_SPACE,
    ),
    _c(
        "bpe-decode-strict-utf8",
        L01,
        "bpe_decode",
        "decodes the joined bytes with .decode('utf-8') and no errors='replace', so ids whose "
        "bytes are not valid UTF-8 (a lone continuation byte, a character cut between tokens) "
        "raise UnicodeDecodeError instead of giving the replacement character.",
        (
            r"errors\s*=\s*['\"]?replace",
            r"UnicodeDecodeError",
            r"(invalid|incomplete|partial|cut) (utf-?8|bytes?|byte sequence)",
            r"replacement character|\\ufffd|\ufffd",
            r"\bstrict\b",
        ),
        (
            r"latin-?1",
            r"bytes\(\s*i\s*\)",
            r"table\[a\] ?\+ ?table\[b\]",
            r"returns? (a )?bytes",
            r"spaces? between",
        ),
        edits=(('.decode("utf-8", errors="replace")', '.decode("utf-8")'),),
        source=MINBPE_STRICT,
    ),
    # ---- 02 embeddings --------------------------------------------------------------------
    _c(
        "onehot-ids-in-extra-brackets",
        L02,
        "one_hot",
        "indexes the identity with the ids wrapped in one more pair of brackets, "
        "np.eye(vocab_size)[[ids]]: the list becomes an index array with a leading axis of "
        "size 1, so the result is (1, ..., vocab_size) instead of (..., vocab_size).",
        (
            r"(extra|leading|additional|spurious) (axis|dimension)",
            r"brackets",
            r"shape \(1, ",
            r"axis of (size|length) 1",
        ),
        (
            r"transpos",
            r"width|vocab_size ?\+ ?1|largest id|max\(",
            r"bool",
            r"flatten",
        ),
        edits=(
            (
                "return np.eye(vocab_size, dtype=np.float64)[np.asarray(ids)]",
                "return np.eye(vocab_size, dtype=np.float64)[[np.asarray(ids)]]",
            ),
        ),
    ),
    _c(
        "embed-averaged-over-sentence",
        L02,
        "embed",
        "averages the looked-up vectors over the last axis of the ids (table[ids].mean(axis=-2)), "
        "returning one sentence vector instead of one vector per id: 1-D ids give (d_model,) "
        "and (batch, len) ids give (batch, d_model).",
        (
            r"averag|\bmean\b",
            r"sentence (vector|embedding)",
            r"(collaps|reduc|pool)\w*.{0,30}(tokens|sequence|positions|length|ids)",
            r"one vector per (sentence|row)",
        ),
        (
            r"transpos|columns",
            r"flatten",
            r"sqrt",
            r"one-?hot",
        ),
        edits=(
            (
                "return np.asarray(table)[np.asarray(ids)]",
                "return np.asarray(table)[np.asarray(ids)].mean(axis=-2)",
            ),
        ),
        source=AVERAGE_EMBEDDINGS,
    ),
    _c(
        "cos-from-squared-distance-unnormalised",
        L02,
        "cosine_similarity",
        "uses the unit-vector identity cos = 1 - |a - b|^2 / 2 on the raw rows without first "
        "normalising them to length 1, so the result is right only for unit vectors and wrong "
        "(even far outside [-1, 1]) for rows of any other length.",
        (
            r"euclid",
            r"squared distance",
            r"(not|never|without) (first )?normali[sz]",
            r"unit[- ](length|vectors?|norm)",
            r"1 ?- ?.{0,20}/ ?2",
        ),
        (
            r"1 - (the )?(cosine|similarity)|cosine distance",
            r"zero vectors?|nan",
            r"transpos",
            r"clip|absolute",
        ),
        code="""
import numpy as np


def cosine_similarity(a, b):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    squared_distance = ((a[:, None, :] - b[None, :, :]) ** 2).sum(axis=-1)  # (n, m)
    return 1.0 - squared_distance / 2.0
""",
        source=COSINE_EUCLIDEAN,
    ),
    _c(
        "tokemb-signature-d-model-first",
        L02,
        "TokenEmbedding",
        "declares __init__(self, d_model, vocab_size), the Annotated Transformer's "
        "Embeddings(d_model, vocab) order, so TokenEmbedding(vocab_size, d_model) builds a "
        "(d_model, vocab_size) table and scales by sqrt(vocab_size).",
        (
            r"(argument|parameter)s?.{0,40}(order|swapped|reversed|other way)",
            r"(order|swapped|reversed).{0,40}(argument|parameter|signature)",
            r"__init__\(self, d_model, vocab",
            r"signature",
            r"d_model first",
        ),
        (
            r"scale.{0,40}(missing|forg|divid)",
            r"plain tensor|not a parameter",
            r"padding_idx",
        ),
        edits=(
            (
                "def __init__(self, vocab_size: int, d_model: int):",
                "def __init__(self, d_model: int, vocab_size: int):",
            ),
        ),
        source=ANNOTATED_EMBEDDINGS,
    ),
    # ---- 03 positional encoding -----------------------------------------------------------
    _c(
        "pe-base-written-10e4",
        L03,
        "positional_encoding",
        "writes the base 10000 as 10e4, which is 100000 (10 x 10^4): every pair but the first "
        "gets a lower frequency than the paper's, pos / 100000^(2i/d_model).",
        (
            r"10e4",
            r"100[ ,]?000",
            r"1e5",
            r"base.{0,60}(10 ?000|1e4|wrong|too (large|big)|instead)",
            r"(10 ?000|1e4).{0,40}(instead|not|rather)",
        ),
        (
            r"sin.{0,30}cos.{0,20}swap",
            r"pair index|\b2i\b.{0,30}instead",
            r"positions? (from|start\w* at) (1|one)",
            r"multipl\w* .{0,30}instead of divid",
        ),
        edits=(("np.power(10000.0, two_i / d_model)", "np.power(10e4, two_i / d_model)"),),
        source=TEN_E_FOUR,
    ),
    _c(
        "rs-angles-read-from-row-k-minus-one",
        L03,
        "relative_shift",
        "takes each pair's sin(k w_i) and cos(k w_i) from the last row of "
        "positional_encoding(k, d_model), which is the row of position k - 1, not k: the matrix "
        "shifts by k - 1 (and k <= 0 fails, the table having no such row).",
        (
            r"k ?- ?1",
            r"off[- ]by[- ]one",
            r"one (position|step) (short|too few|less)",
            r"(last row|\[-1\])",
        ),
        (
            r"transpos",
            r"backwards|-k\b",
            r"frequenc",
            r"odd d_model",
        ),
        code="""
import numpy as np


def relative_shift(k, d_model):
    if d_model % 2:
        raise ValueError(f"relative_shift needs an even d_model, got {d_model}")
    row = positional_encoding(k, d_model)[-1]  # the table's row for position k
    sin, cos = row[0::2], row[1::2]
    two_i = np.arange(0, d_model, 2)
    m = np.zeros((d_model, d_model))
    m[two_i, two_i] = cos
    m[two_i + 1, two_i] = sin
    m[two_i, two_i + 1] = -sin
    m[two_i + 1, two_i + 1] = cos
    return m
""",
    ),
    _c(
        "posenc-concatenated",
        L03,
        "PositionalEncoding",
        "concatenates the position rows to the embeddings along the features "
        "(torch.cat([x, pe], dim=-1)) instead of adding them, so the output is "
        "(batch, len, 2 * d_model).",
        (
            r"concat",
            r"torch\.cat",
            r"(2|two|twice|double)\w*.{0,20}(d_model|width|features)",
            r"(add|sum)\w*.{0,30}(not|instead of|rather than) (concat|append|stack)",
        ),
        (
            r"plain attribute|not a (registered )?buffer|nn\.Parameter|trainable",
            r"dropout.{0,40}(missing|never|before|twice|eval)",
            r"(first|whole) .{0,20}rows|max_len rows",
            r"sqrt",
        ),
        edits=(
            (
                "return self.dropout(x + self.pe[:, :length])",
                "return self.dropout(\n"
                "            torch.cat([x, self.pe[:, :length].expand(x.shape[0], -1, -1)], dim=-1)\n"
                "        )",
            ),
        ),
        source=CONCAT_POSITIONS,
    ),
    # ---- 04 attention ---------------------------------------------------------------------
    _c(
        "softmax-parameter-named-dim",
        L04,
        "softmax",
        "names the axis parameter dim, PyTorch's name, instead of axis: every call "
        "softmax(x, axis=...) raises TypeError (unexpected keyword argument 'axis'); only "
        "positional calls work.",
        (
            r"\bdim\b",
            r"unexpected keyword",
            r"(parameter|argument) (is )?(named|called)",
            r"keyword argument 'axis'",
        ),
        (
            r"keepdims",
            r"(global|whole[- ]array) max",
            r"in place",
            r"\bnan\b",
        ),
        edits=(
            ("axis: int = -1", "dim: int = -1"),
            ("np.max(x, axis=axis, keepdims=True)", "np.max(x, axis=dim, keepdims=True)"),
            ("np.sum(exps, axis=axis, keepdims=True)", "np.sum(exps, axis=dim, keepdims=True)"),
        ),
        source=DIM_KEYWORD,
    ),
    _c(
        "softmax-clipped-not-shifted",
        L04,
        "softmax",
        "guards against overflow by clipping the inputs to [-500, 500] (np.clip before np.exp) "
        "instead of subtracting each slice's maximum: entries above 500 are all cut to 500, so "
        "a slice such as [1000, 1001] comes back uniform instead of favouring its largest entry.",
        (
            r"clip",
            r"(subtract|shift)\w*.{0,40}(max|largest)",
            r"(large|big) (inputs?|scores|values|entries).{0,80}"
            r"(equal|same|uniform|flatten|cut|capped|saturat)",
        ),
        (
            r"keepdims",
            r"\baxis\b.{0,30}(ignored|wrong|last)",
            r"in place",
            r"(global|whole[- ]array) max",
        ),
        edits=(("exps = np.exp(x - peak)", "exps = np.exp(np.clip(x, -500.0, 500.0))"),),
        source=CLIP_OVERFLOW,
    ),
    _c(
        "row-scores-multiplied-by-sqrt",
        L04,
        "attention_row",
        "multiplies the scores by sqrt(d_k) instead of dividing by it, so the softmax is "
        "d_k times sharper than scaled dot-product attention's.",
        (
            r"multipl\w* (them |the scores )?(by|with) (the )?(square root|sqrt)",
            r"\* ?(math\.)?sqrt",
            r"(instead of|not|rather than) divid",
            r"divid\w* by (the )?(square root|sqrt)",
            r"(scale|factor).{0,40}(invert|upside|reciprocal|wrong way)",
        ),
        (
            r"len_k|number of keys",
            r"\bd_v\b",
            r"(no|without|forg[eo]t\w*) (the )?scal",
            r"by d_k instead of",
        ),
        edits=(
            ("scores = keys @ query / math.sqrt(d_k)", "scores = keys @ query * math.sqrt(d_k)"),
        ),
    ),
    _c(
        "sdpa-queries-transposed-not-keys",
        L04,
        "scaled_dot_product_attention",
        "transposes the queries instead of the keys (q.transpose(-2, -1) @ k), which contracts "
        "over the positions and gives (..., d_k, d_k) feature-by-feature scores instead of "
        "(..., len_q, len_k); the mask and the values then no longer fit (or, when the sizes "
        "happen to match, the result is wrong).",
        (
            r"q\.transpose|transpos\w* (the )?(quer|q\b)",
            r"(quer\w*|q\b).{0,40}instead of (the )?(keys?|k\b)",
            r"\(\.\.\., ?d_k, ?d_k\)|d_k by d_k|feature[- ]by[- ]feature",
            r"q @ k\.transpose|q ?@ ?k\^?T|Q ?K\^?T",
        ),
        (
            r"k\.T\b|reverses every",
            r"(scale|sqrt).{0,40}(wrong|missing|instead)",
            r"softmax (over|along) (the )?(quer|dim=-2)",
            r"mask.{0,40}(inverted|polarity)",
        ),
        edits=(
            (
                "scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)",
                "scores = q.transpose(-2, -1) @ k / math.sqrt(d_k)",
            ),
        ),
        source=KEYS_TIMES_QUERIES,
    ),
    # ---- 05 multi-head attention ----------------------------------------------------------
    _c(
        "split-stacked-on-default-dim",
        L05,
        "split_heads",
        "cuts the features into heads with x.split(d_head, dim=-1) and stacks them with "
        "torch.stack without dim, whose default 0 puts the heads first: "
        "(num_heads, batch, len, d_head) instead of (batch, num_heads, len, d_head).",
        (
            r"stack\w*.{0,60}(dim|axis)",
            r"(heads?|head axis).{0,40}(first|in front|before the batch|dim(ension)? 0|axis 0)",
            r"\(num_heads, batch",
            r"dim ?= ?1",
        ),
        (
            r"interleav|strided",
            r"sequence-first|\(len, batch",
            r"no transpose|without (a )?transpose",
            r"d_head.{0,20}float",
        ),
        code="""
import torch


def split_heads(x, num_heads):
    d_head = x.shape[-1] // num_heads
    return torch.stack(x.split(d_head, dim=-1))
""",
    ),
    _c(
        "merge-flattens-length-and-width",
        L05,
        "merge_heads",
        "flattens the last two axes (x.flatten(2)) without first moving the heads next to the "
        "features: it merges each head's length and width into (batch, num_heads, len * d_head) "
        "instead of (batch, len, num_heads * d_head).",
        (
            r"flatten",
            r"(len|length) (axis )?(and|with|into) (the )?(d_head|features|width)",
            r"transpose.{0,60}(first|before|back|missing|never)",
            r"(without|no|forg[eo]t\w*) (the |a )?transpose",
            r"heads? (axis )?(kept|left|still) (at|in|on) (dim|axis|position) 1",
        ),
        (
            r"\.view|contiguous",
            r"interleav",
            r"summ?ed|\bsum\b",
            r"batch (and|with) (the )?(length|len)",
        ),
        code="""
def merge_heads(x):
    return x.flatten(2)
""",
    ),
    _c(
        "mha-residual-and-layernorm-inside",
        L05,
        "MultiHeadAttention",
        "also adds the query back and normalises inside the module, "
        "LayerNorm(query + w_o(...)) (the post-norm residual of an encoder layer, as "
        "jadore801120's MultiHeadAttention does): the output is not w_o of the merged heads, and "
        "the module has an extra LayerNorm's parameters.",
        (
            r"layer ?norm",
            r"normali[sz]",
            r"residual",
            r"adds? (the )?(query|input) (back|to)",
            r"extra (parameters?|keys?).{0,60}(norm|ln)",
        ),
        (
            r"w_o.{0,30}(missing|never|not applied)",
            r"dropout.{0,40}(on the output|missing|never|eval)",
            r"mask.{0,30}(ignored|dropped|not passed|inverted)",
            r"scal\w* by (sqrt|d_model)",
        ),
        edits=(
            (
                "self.dropout = nn.Dropout(dropout)",
                "self.dropout = nn.Dropout(dropout)\n        self.layer_norm = nn.LayerNorm(d_model)",
            ),
            (
                "return self.w_o(merge_heads(heads)), weights",
                "return self.layer_norm(query + self.w_o(merge_heads(heads))), weights",
            ),
        ),
        source=JADORE_SUBLAYERS,
    ),
    _c(
        "mha-values-not-projected",
        L05,
        "MultiHeadAttention",
        "splits the raw value input into heads without projecting it through w_v "
        "(split_heads(value, ...)): the values skip their projection and w_v is never used "
        "(its weights get no gradient).",
        (
            r"w_v.{0,60}(never|not|unused|skip|bypass)",
            r"values?.{0,40}(not|never|un)[- ]?project",
            r"raw value",
            r"(project|pass)\w* .{0,30}through w_v",
        ),
        (
            r"w_k\b",
            r"\bkey\b.{0,30}instead",
            r"w_o.{0,30}(missing|never|instead)",
            r"mask.{0,30}(ignored|dropped|not passed|inverted)",
            r"dropout.{0,40}(on the output|missing|never|eval)",
        ),
        edits=(
            (
                "v = split_heads(self.w_v(value), self.num_heads)",
                "v = split_heads(value, self.num_heads)",
            ),
        ),
    ),
    # ---- 06 masking -----------------------------------------------------------------------
    _c(
        "padmask-key-padding-mask-convention",
        L06,
        "padding_mask",
        "returns PyTorch's key_padding_mask, ids == pad_id: two mistakes at once, True marks "
        "the pads (blocked) instead of the real tokens, and the shape is (batch, len) without "
        "the two axes of size 1 for the heads and the queries.",
        (
            r"key_padding_mask",
            r"(?s)(?=.*(invert|polarity|opposite|flipped|True (at|for|on) (the )?pad))"
            r"(?=.*(axes|\(batch, 1, 1, len\)|shape|dimension))",
        ),
        (
            r"query axis|\(batch, 1, len, 1\)",
            r"pad_id.{0,30}(ignored|hard-coded)|compar\w* with 0",
            r"int64|uint8|long",
        ),
        edits=(("return (ids != pad_id)[:, None, None, :]", "return ids == pad_id"),),
        source=KEY_PADDING_MASK,
    ),
    _c(
        "lookahead-blocked-triangle-transposed",
        L06,
        "look_ahead_mask",
        "builds nn.Transformer's blocked triangle, triu(ones, diagonal=1), and turns it into an "
        "allowed mask with .T instead of ~: the transpose is the strictly lower triangle, so "
        "no query may attend to its own position (and the first query to nothing).",
        (
            r"diagonal",
            r"(itself|own position|its own)",
            r"\.T\b.{0,60}(instead of|not) ~|~.{0,60}instead of .{0,10}\.T",
            r"strict(ly)? lower",
            r"transpos\w*.{0,60}(invert|negat|~|polarity)",
        ),
        (
            r"(attend\w*|sees?) (to )?(the )?future",
            r"float|dtype",
            r"\(1, size, size\)|leading axis",
            r"upper triangle",
        ),
        code="""
import torch


def look_ahead_mask(size):
    blocked = torch.triu(torch.ones(size, size, dtype=torch.bool), diagonal=1)
    return blocked.T
""",
    ),
    _c(
        "decmask-returned-additive-float",
        L06,
        "decoder_self_attention_mask",
        "combines the two masks correctly but returns them in the additive float form "
        "(0.0 where allowed, -inf where blocked, as generate_square_subsequent_mask does) "
        "instead of the bool mask, True = may attend.",
        (
            r"additive",
            r"-inf",
            r"float\w*.{0,40}(instead of|not|rather than) (a )?bool",
            r"bool\w*.{0,40}(expected|instead|not (a )?float)",
            r"dtype.{0,40}(float|bool)",
        ),
        (
            r"(combin\w*|join\w*) .{0,30}(with )?(\bor\b|`\|`)",
            r"pad\w* (on|along) (the )?quer",
            r"batch size|shape\[0\]",
            r"head(s)? axis",
        ),
        edits=(
            (
                "return padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[1])",
                "mask = padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[1])\n"
                '    return torch.zeros(mask.shape).masked_fill(~mask, float("-inf"))',
            ),
        ),
        source=ADDITIVE_SUBSEQUENT,
    ),
]
