"""Held-out wrong answers for lessons 00-02, blind round 12, second batch (helper s12j,
2026-11-27): mistakes new to the benchmark, written after round 12's first fixes of these
lessons.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run, and each case was compared with the causes of the benchmark's earlier cases for these
lessons (ids and causes only) and replaced where it repeated one. Nine of the 21 transpose a
mistake reported in public (the URL read for this benchmark); the others are the author's.
Kinds favoured: mistakes that show only on some inputs (arrays of more than one or two
dimensions, repeated tokens, pairs at odd positions, texts with capitals), Python idioms
misused (a repeated list, dict.fromkeys, set, a dict's values for its keys, items()
unpacked the other way round), raw exceptions in the learner's code, wrong types in the
result, and a module that adds what the contract leaves out.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L00, L01, L02 = "00_welcome", "01_tokenization", "02_embeddings"

# The reports these cases transpose (each read with the search tool for this benchmark).
WHOLE_ARRAY_MEAN = "https://e-learn.cn/qa/answer/1151023/2235198.html"
EDGE_PUNCTUATION = "https://github.com/Kapiche/caterpillar/issues/36"
UNK_DEFAULT = "https://github.com/pytorch/text/issues/1108"
REPEATED_LIST = (
    "https://wiki.gubat.org/content/stackoverflow.com_en_all_2023-11/questions/48000528/"
    "changing-value-in-list-of-list-python-why-does-it-change-whole-row"
)
BPE_LOWERCASE = "https://github.com/huggingface/tokenizers/issues/158"
MIN_WITHOUT_DEFAULT = "https://github.com/karpathy/minbpe/issues/87"
ABSOLUTE_COSINE = "https://github.com/deepinsight/insightface/issues/917"
NO_SUPER_INIT = "https://github.com/pytorch/pytorch/issues/422"
EMBEDDING_LAYERNORM = "https://github.com/google-research/albert/issues/3"

_c = held_out_authored("blind12j")

BLIND12J: list[Case] = [
    # ------------------------------------------------------------------ 00 center_rows
    # blind12j-center-whole-array-mean left out after the run: its code is one of the tests' own
    # mistakes (test_00 center_whole_array), which the benchmark keeps apart; generalisation.py
    # lists it with the reason.
    # _c(
    #     "center-whole-array-mean",
    #     L00,
    #     "center_rows",
    #     "subtracts the mean of the whole array (x.mean() with no axis) from every entry: "
    #     "right for a 1-D x, but a 2-D or 3-D x has every row shifted by the same overall "
    #     "number, so the rows do not end up with mean 0.",
    #     (
    #         r"(whole|entire) array",
    #         r"(global|overall|single) mean",
    #         r"mean of (all|every) (the )?(entries|values|elements|numbers)",
    #         r"without (an |any )?axis|no axis|axis=None",
    #         r"x\.mean\(\)",
    #     ),
    #     (
    #         r"keepdims",
    #         r"axis ?= ?0|down the columns",
    #         r"in place",
    #         r"standard deviation",
    #         r"median",
    #     ),
    #     code="def center_rows(x):\n    return x - x.mean()\n",
    #     source=WHOLE_ARRAY_MEAN,
    # ),
    _c(
        "center-2d-only-else-unchanged",
        L00,
        "center_rows",
        "handles a 1-D and a 2-D x case by case and returns any other x as it is: a 3-D "
        "(batch, len, d_model) array comes back uncentred.",
        (
            r"return(s|ed)? (x |it |its input |the input )?unchanged|comes? back unchanged",
            r"(3-?d|three-dimensional|ndim ?== ?3).{0,100}(unchanged|not centred|uncentred|"
            r"as it (is|was))",
            r"(more than|over) (two|2) (dimensions|axes)",
            r"x\.ndim|ndim ?== ?2",
        ),
        (r"keepdims", r"axis ?= ?0|down the columns", r"in place", r"median", r"sign"),
        code="def center_rows(x):\n"
        "    if x.ndim == 1:\n"
        "        return x - x.mean()\n"
        "    if x.ndim == 2:\n"
        "        return x - x.mean(axis=1, keepdims=True)\n"
        "    return x\n",
    ),
    # ------------------------------------------------------------------ 01 tokenize
    _c(
        "tok-whitespace-split-edge-marks",
        L01,
        "tokenize",
        "splits the lower-cased text on whitespace and peels punctuation marks off the two "
        "ends of each chunk only, so a mark inside a chunk ('don't', 'state-of-the-art', "
        "'3.14', 'hi,there') stays glued inside one token.",
        (
            r"(inside|within|in the middle of) (a |the |one )?(word|chunk|token)",
            r"\.split\(\)|split(s|ting)? (it )?on (whitespace|spaces)|whitespace split",
            r"(ends|edges) of (each|a|the) (word|chunk)",
        ),
        (r"lower-?cas", r"runs? of (punctuation|marks)", r"ascii|accent"),
        code="def tokenize(text):\n"
        "    tokens = []\n"
        "    for chunk in text.lower().split():\n"
        "        lead, trail = [], []\n"
        "        while chunk and not (chunk[0].isalnum() or chunk[0] == '_'):\n"
        "            lead.append(chunk[0])\n"
        "            chunk = chunk[1:]\n"
        "        while chunk and not (chunk[-1].isalnum() or chunk[-1] == '_'):\n"
        "            trail.insert(0, chunk[-1])\n"
        "            chunk = chunk[:-1]\n"
        "        tokens += lead + ([chunk] if chunk else []) + trail\n"
        "    return tokens\n",
        source=EDGE_PUNCTUATION,
    ),
    # ------------------------------------------------------------------ 01 build_vocab
    _c(
        "vocab-fromkeys-specials-none",
        L01,
        "build_vocab",
        "starts the vocabulary with dict.fromkeys(SPECIAL_TOKENS), whose values are all "
        "None: the four special tokens have no ids (None instead of 0-3), while the data's "
        "tokens still get 4, 5, ...",
        (
            r"\bNone\b",
            r"fromkeys",
            r"(special|<pad>|<unk>).{0,60}(not an? int|no(t an)? ids?\b)",
        ),
        (r"(descending|ascending) count", r"alphabetical", r"min_freq", r"\bgaps?\b"),
        edits=[
            (
                "vocab = {token: index for index, token in enumerate(SPECIAL_TOKENS)}",
                "vocab = dict.fromkeys(SPECIAL_TOKENS)",
            )
        ],
    ),
    # ------------------------------------------------------------------ 01 encode
    _c(
        "encode-unk-string-default",
        L01,
        "encode",
        "passes the string '<unk>' as get's default instead of its id, so each unknown "
        "token comes back as the str '<unk>' in the list of ids.",
        (
            r"\bstr(ing)?\b.{0,80}<unk>|<unk>.{0,80}\bstr(ing)?\b",
            r"(token|string) itself.{0,60}(instead of|not) (its|the) id",
            r"(id|index) of .?<unk>.?,? not the (token|string|str)",
        ),
        (r"KeyError", r"\bNone\b", r"lower-?cas", r"<bos>|<eos>"),
        edits=[("vocab.get(token, unk)", 'vocab.get(token, "<unk>")')],
        source=UNK_DEFAULT,
    ),
    _c(
        "encode-over-set-of-tokens",
        L01,
        "encode",
        "iterates over set(tokens): a repeated token is encoded once and the ids come in "
        "the set's order, not the sentence's, so the result is too short whenever a token "
        "repeats and is usually out of order.",
        (
            r"\bset\(|\ba set\b|\bset of (the )?tokens",
            r"(repeated|duplicate)d? tokens?.{0,60}(once|dropped|lost|missing)",
            r"(order of the tokens|(token|sentence)'?s? order|out of order|reorder)",
        ),
        (r"unknown tokens?.{0,40}(<pad>|None|KeyError)", r"<bos>|<eos>", r"lower-?cas"),
        code="def encode(tokens, vocab):\n"
        '    unk = vocab["<unk>"]\n'
        "    return [vocab.get(token, unk) for token in set(tokens)]\n",
    ),
    # ------------------------------------------------------------------ 01 decode
    _c(
        "decode-cuts-first-and-last",
        L01,
        "decode",
        "slices off the first and last token ([1:-1]), assuming every row is wrapped in "
        "<bos> ... <eos>: every decoded list is two tokens short, losing real tokens when "
        "the ids are not wrapped.",
        (
            r"first (and|&) (the )?last",
            r"\[1:-1\]",
            r"(two|2) tokens? (short|too few|fewer|missing)",
            r"(drops?|cuts?|loses?|leaves? out|slices? off) the (first|last)",
        ),
        (
            r"skip_special_tokens|special tokens? (are )?(dropped|skipped|removed)",
            r"<pad>.{0,40}(dropped|removed|filtered)",
            r"KeyError",
            r"key order|keys? (are )?(stored )?in id order",
        ),
        code="def decode(ids, vocab):\n"
        "    id_to_token = {index: token for token, index in vocab.items()}\n"
        "    return [id_to_token[int(index)] for index in ids][1:-1]\n",
    ),
    # ------------------------------------------------------------------ 01 pad_batch
    _c(
        "pad-rows-one-repeated-list",
        L01,
        "pad_batch",
        "builds the rows as [[pad_id] * max_len] * batch, one list repeated rather than "
        "copies, so writing a sequence into one row writes it into all: every row comes "
        "back the same (each sequence overwriting the start of the ones before).",
        (
            r"same (list|row|object)",
            r"\bshar(e|ed|es|ing)\b",
            r"alias",
            r"list multiplication|repeated list|\]\s*\*\s*len\(",
            r"(every|all) (the )?rows? (are |is |come back |came back )?(the same|identical)",
        ),
        (
            r"pads? on the left|left-pad",
            r"pad_id.{0,40}(ignored|zeros?\b)",
            r"longest|first sequence|mean length",
            r"float",
        ),
        code="def pad_batch(sequences, pad_id):\n"
        "    max_len = max((len(seq) for seq in sequences), default=0)\n"
        "    rows = [[pad_id] * max_len] * len(sequences)\n"
        "    for row, seq in zip(rows, sequences):\n"
        "        row[: len(seq)] = seq\n"
        "    return np.array(rows, dtype=np.int64).reshape(len(sequences), max_len)\n",
        source=REPEATED_LIST,
    ),
    # ------------------------------------------------------------------ 01 get_pair_counts
    _c(
        "pairs-sorted-within-pair",
        L01,
        "get_pair_counts",
        "stores each pair as (min, max), so (b, a) and (a, b) are counted as one pair and "
        "any pair whose first id is the larger comes back reversed.",
        (
            r"(sort|sorted|order)(s|ed)? (the ids )?(within|inside) (each|the|a) pair",
            r"unordered",
            r"\(a, b\).{0,40}\(b, a\)|\(b, a\).{0,40}\(a, b\)",
            r"revers",
            r"(smaller|smallest) (id )?first|min\(.{0,10}max\(",
        ),
        (
            r"last (adjacent )?pair",
            r"non-?overlapping",
            r"mutable default",
            r"most_common|ordered by count",
        ),
        code="def get_pair_counts(ids):\n"
        "    counts = {}\n"
        "    for a, b in zip(ids, ids[1:]):\n"
        "        pair = (min(a, b), max(a, b))\n"
        "        counts[pair] = counts.get(pair, 0) + 1\n"
        "    return counts\n",
    ),
    # ------------------------------------------------------------------ 01 merge_pair
    _c(
        "merge-fixed-steps-of-two",
        L01,
        "merge_pair",
        "walks the list in fixed steps of two (range(0, len(ids), 2)) and only tests the "
        "pairs that start at an even position: an occurrence at an odd position ([5, 1, 2] "
        "with pair (1, 2)) is never merged.",
        (
            r"even (position|index|indices|offset)",
            r"odd (position|index|indices|offset)",
            r"steps? of (two|2)|two at a time|in pairs of (two|2)",
            r"range\(0, ?len\(ids\), ?2\)",
        ),
        (
            r"overlap",
            r"in place|modif(y|ies|ied) (the )?(input|caller)",
            r"last id (is )?dropped",
            r"only the first occurrence",
        ),
        code="def merge_pair(ids, pair, new_id):\n"
        "    merged = []\n"
        "    for i in range(0, len(ids), 2):\n"
        "        if tuple(ids[i : i + 2]) == tuple(pair):\n"
        "            merged.append(new_id)\n"
        "        else:\n"
        "            merged.extend(ids[i : i + 2])\n"
        "    return merged\n",
    ),
    # ------------------------------------------------------------------ 01 train_bpe
    _c(
        "train-lowercases-text",
        L01,
        "train_bpe",
        "lower-cases the text before taking its bytes (as some BPE trainers do by "
        "default): the merges are learned on the lower-cased bytes, so any text with "
        "capital letters gets other pairs and ids than its own bytes give.",
        (r"lower-?cas", r"\.lower\(\)", r"capital|upper-?case"),
        (r"code points?|\bord\b", r"\bties?\b", r"recount", r"words separately"),
        edits=[('ids = list(text.encode("utf-8"))', 'ids = list(text.lower().encode("utf-8"))')],
        source=BPE_LOWERCASE,
    ),
    # ------------------------------------------------------------------ 01 bpe_encode
    _c(
        "bpe-encode-min-key-without-default",
        L01,
        "bpe_encode",
        "takes min over all the adjacent pairs with key=merges.get and no default for the "
        "pairs that have no merge (minbpe's float('inf')): as soon as the text has a pair "
        "without a merge beside another pair, comparing None with an id raises TypeError.",
        (
            r"\bNone\b",
            r"float\(.?inf|infinity",
            r"default.{0,60}(pairs?|merges\.get)|merges\.get.{0,60}default",
            r"pairs? (that|which|with) (have|has) no merge|(pairs?|keys?) not in merges",
        ),
        (r"most frequent", r"leftmost", r"latest|highest new id", r"KeyError"),
        code="def bpe_encode(text, merges):\n"
        '    ids = list(text.encode("utf-8"))\n'
        "    while len(ids) >= 2:\n"
        "        pair = min(get_pair_counts(ids), key=merges.get)\n"
        "        if pair not in merges:\n"
        "            break\n"
        "        ids = merge_pair(ids, pair, merges[pair])\n"
        "    return ids\n",
        source=MIN_WITHOUT_DEFAULT,
    ),
    _c(
        "bpe-encode-pairs-tested-against-values",
        L01,
        "bpe_encode",
        "tests each pair against merges.values() (the new ids) instead of the dict's keys: "
        "a pair is never one of the ids, so no merge is ever applied and every text comes "
        "back as its raw UTF-8 bytes.",
        (
            r"values\(\)",
            r"\bkeys?\b.{0,60}(not|instead of|rather than).{0,20}values|values.{0,60}keys",
            r"no merges? (is |was |were |are )?(ever )?applied|never appl(y|ies|ied) (any|a) "
            r"merge|nothing (is |was )?(ever )?merged",
        ),
        (r"leftmost", r"most frequent", r"latest|highest new id", r"one pass"),
        edits=[("if pair in merges]", "if pair in merges.values()]")],
    ),
    # ------------------------------------------------------------------ 01 bpe_decode
    # blind12j-bpe-decode-parts-swapped left out after the run: its code is one of the tests' own
    # mistakes (test_01 bpe_decode_parts_swapped), which the benchmark keeps apart;
    # generalisation.py lists it with the reason.
    # _c(
    #     "bpe-decode-parts-swapped",
    #     L01,
    #     "bpe_decode",
    #     "concatenates each merge's parts in the wrong order (table[b] + table[a]), so every "
    #     "merged token's bytes come out swapped ('th' decodes as 'ht').",
    #     (
    #         r"(reverse|reversed|wrong|swapped) order",
    #         r"table\[b\] ?\+ ?table\[a\]",
    #         r"(second|b)('s)? (part|bytes)?.{0,30}before.{0,30}(first|a)",
    #         r"swapped|the other way round",
    #     ),
    #     (
    #         r"latin|per token|each token (on its own|separately)",
    #         r"bytes\(\[a, b\]\)|raw bytes",
    #         r"strict",
    #         r"spaces?",
    #     ),
    #     edits=[("table[new_id] = table[a] + table[b]", "table[new_id] = table[b] + table[a]")],
    # ),
    _c(
        "bpe-decode-items-unpacked-inverted",
        L01,
        "bpe_decode",
        "unpacks merges.items() as (new_id, (a, b)), the {new_id: pair} direction, while "
        "merges maps pair -> new_id: any non-empty merges raises TypeError (cannot unpack "
        "non-iterable int object).",
        (
            r"\{pair: new_id\}|\{new_id: pair\}",
            r"new_id, \(a, b\)",
            r"(keys?|items\(\)).{0,60}pairs?.{0,60}values?.{0,40}(new )?ids?",
            r"other way round|inverted",
        ),
        (
            r"latin",
            r"per token|each token (on its own|separately)",
            r"bytes\(\[a, b\]\)",
            r"strict",
        ),
        code="def bpe_decode(ids, merges):\n"
        "    table = {i: bytes([i]) for i in range(256)}\n"
        "    for new_id, (a, b) in merges.items():\n"
        "        table[new_id] = table[a] + table[b]\n"
        '    return b"".join(table[i] for i in ids).decode("utf-8", errors="replace")\n',
    ),
    # ------------------------------------------------------------------ 02 one_hot
    _c(
        "onehot-arange-compare-no-new-axis",
        L02,
        "one_hot",
        "compares np.arange(vocab_size) with ids without giving ids a last axis "
        "(ids[..., None]), so the comparison is elementwise instead of one row per id: "
        "it fails to broadcast unless the ids' last axis is vocab_size long, and then "
        "gives one flag per id instead of a (..., vocab_size) vector.",
        (
            r"\[\.\.\., ?None\]|\[:, ?None\]|newaxis|expand_dims",
            r"(new|last|trailing|extra) axis",
            r"outer (comparison|product)",
        ),
        (
            r"width.{0,40}(max|largest)|max\(\) ?\+ ?1",
            r"bool",
            r"transpos",
            r"flatten|ravel",
        ),
        code="def one_hot(ids, vocab_size):\n"
        "    ids = np.asarray(ids)\n"
        "    return (np.arange(vocab_size) == ids).astype(np.float64)\n",
    ),
    # ------------------------------------------------------------------ 02 embed
    _c(
        "embed-onehot-width-from-max-id",
        L02,
        "embed",
        "computes the lookup as a one-hot product whose width is the largest id + 1 "
        "(np.eye(ids.max() + 1)) instead of the table's vocab_size: the matrix product "
        "fails (shape mismatch) unless the ids happen to contain vocab_size - 1.",
        (
            r"(largest|max(imum)?|highest) id",
            r"ids\.max\(\)",
            r"width.{0,60}(vocab|table\.shape\[0\]|number of rows)",
        ),
        (r"table\[:, ?ids\]|columns of the table", r"flatten", r"one-?based|id ?- ?1", r"squeeze"),
        code="def embed(ids, table):\n"
        "    ids = np.asarray(ids)\n"
        "    return np.eye(ids.max() + 1)[ids] @ np.asarray(table)\n",
    ),
    # ------------------------------------------------------------------ 02 cosine_similarity
    _c(
        "cos-absolute-value",
        L02,
        "cosine_similarity",
        "takes the absolute value of the similarities (np.abs), so opposite vectors get +1 "
        "instead of -1 and every negative cosine comes back positive.",
        (
            r"\babs\b|np\.abs",
            r"absolute",
            r"negative (cosines?|similarit\w+|values?).{0,60}(positive|flipped|sign)",
            r"\bsigns?\b",
        ),
        (
            r"clip",
            r"distance|1 - (the )?(similarity|cos)",
            r"pearson|centred",
            r"arccos|angular",
        ),
        edits=[("return a_unit @ b_unit.T", "return np.abs(a_unit @ b_unit.T)")],
        source=ABSOLUTE_COSINE,
    ),
    _c(
        "cos-rounded-two-decimals",
        L02,
        "cosine_similarity",
        "rounds the similarities to two decimals (np.round(..., 2)), a display habit, so "
        "each value is off by up to 0.005.",
        (r"round", r"decimals?", r"0\.005"),
        (
            r"norms? (over|along) axis|wrong norm|\bl1\b",
            r"clip",
            r"zero (vector|row).{0,40}(nan|guard)",
        ),
        edits=[("return a_unit @ b_unit.T", "return np.round(a_unit @ b_unit.T, 2)")],
    ),
    # ------------------------------------------------------------------ 02 TokenEmbedding
    _c(
        "tokemb-no-super-init",
        L02,
        "TokenEmbedding",
        "leaves out super().__init__(), so assigning the nn.Embedding raises AttributeError "
        "('cannot assign module before Module.__init__() call') as soon as the module is "
        "built.",
        (r"super\(\)\.__init__|super\(\)", r"Module\.__init__\(\)"),
        (
            r"scal(e|ed|ing) (by|with) sqrt|not scaled|divid",
            r"swapped",
            r"plain tensor|not (a )?registered",
        ),
        code="class TokenEmbedding(nn.Module):\n"
        "    def __init__(self, vocab_size, d_model):\n"
        "        self.d_model = d_model\n"
        "        self.embedding = nn.Embedding(vocab_size, d_model)\n"
        "\n"
        "    def forward(self, ids):\n"
        "        return self.embedding(ids) * math.sqrt(self.d_model)\n",
        source=NO_SUPER_INIT,
    ),
    _c(
        "tokemb-layernorm-after-lookup",
        L02,
        "TokenEmbedding",
        "adds a LayerNorm after the scaled lookup (BERT's embedding layer): each vector is "
        "normalised to mean 0 and variance 1, which undoes the sqrt(d_model) scale, and the "
        "module has two extra parameters (norm.weight, norm.bias).",
        (
            r"layer ?norm",
            r"norm\.(weight|bias)",
            r"normali[sz]ed? (each|every|the) (vector|row|output)",
        ),
        (r"divid", r"not scaled|forg[eo]ts? the scale", r"max_norm", r"sqrt\(vocab", r"Linear"),
        code="class TokenEmbedding(nn.Module):\n"
        "    def __init__(self, vocab_size, d_model):\n"
        "        super().__init__()\n"
        "        self.d_model = d_model\n"
        "        self.embedding = nn.Embedding(vocab_size, d_model)\n"
        "        self.norm = nn.LayerNorm(d_model)\n"
        "\n"
        "    def forward(self, ids):\n"
        "        return self.norm(self.embedding(ids) * math.sqrt(self.d_model))\n",
        source=EMBEDDING_LAYERNORM,
    ),
]
