"""Held-out wrong answers for lessons 00-02, blind round 11, second batch (helper s11j,
2026-11-27), written after round 11's first fixes of these lessons.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run. Eleven of the 24 transpose a mistake reported in a public issue thread or page (the URL
read for this benchmark) to the course's exercise; the others are the author's. Kinds
favoured: mistakes that show only on some inputs (a non-square 2-D array, a pad_id that is
not 0, no sequences at all, a last id equal to the pair's first, an id above 255 in a merge,
counts that tie, a batch that holds no largest id, zero rows), inputs modified in place,
raw exceptions in the learner's code, results of the wrong type or shape, a stateful loop
that forgets its state, and a layer rebuilt at every call.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L00, L01, L02 = "00_welcome", "01_tokenization", "02_embeddings"

# The reports these cases transpose (each read with the search tool for this benchmark).
ROW_MEANS_NOT_KEPT = "https://textbook.nipraxis.org/subtract_means.html"
PUNCTUATION_GROUPED = "https://github.com/adbar/simplemma/issues/35"
BOS_EOS_EXPECTED_IN_ENCODE = "https://github.com/huggingface/tokenizers/issues/1643"
DECODE_DROPS_SPECIALS = "https://github.com/huggingface/transformers/issues/8109"
MAX_OF_EMPTY_BATCH = "https://github.com/yanwii/ChineseNER/issues/11"
PAD_ID_ASSUMED_ZERO = "https://github.com/meta-pytorch/torchtune/pull/1211"
MERGES_APPLIED_OUT_OF_ORDER = "https://github.com/huggingface/course/issues/608"
PER_TOKEN_DECODE = "https://github.com/antonellof/ferrox/issues/124"
CLASSES_FROM_MAX_LABEL = "https://github.com/jwcalder/GraphLearning/issues/12"
COSINE_ZERO_NAN = "https://github.com/HKUDS/LightRAG/pull/3421"
EMBEDDING_DIVIDED = "https://github.com/pytorch/tutorials/issues/2849"


_c = held_out_authored("blind11j")

BLIND11J: list[Case] = [
    # ------------------------------------------------------------------ 00 center_rows
    # blind11j-center-rows-mean-not-kept left out after the run: its code is one of the tests' own
    # mistakes (tests/test_00_welcome.py center_without_keepdims), which the benchmark keeps
    # apart; generalisation.py lists it with the reason.
    # _c(
    #     "center-rows-mean-not-kept",
    #     L00,
    #     "center_rows",
    #     "subtracts x.mean(axis=-1) without keepdims=True: the row means, shape (rows,), line "
    #     "up with the last axis instead of the rows, so a 1-D row is right, a non-square 2-D "
    #     "array raises a broadcasting error and a square one subtracts row i's mean from "
    #     "column i.",
    #     (
    #         r"keepdims",
    #         r"keep(s|ing)? the reduced axis",
    #         r"(row )?means?.{0,60}(do not|don't|does not|doesn't|not) line up",
    #         r"\[\.\.\., None\]|\[:, None\]|np\.newaxis",
    #         r"axis of (size|length) 1.{0,40}(dropped|missing|lost)",
    #     ),
    #     (r"axis=0|mean(s)? (of|down) the columns", r"in place|modif(y|ied)", r"global mean"),
    #     code="def center_rows(x):\n    return x - x.mean(axis=-1)\n",
    #     source=ROW_MEANS_NOT_KEPT,
    # ),
    # ------------------------------------------------------------------ 01 tokenize
    _c(
        "tokenize-punctuation-runs",
        L01,
        "tokenize",
        "matches runs of punctuation ([^\\w\\s]+) instead of single marks, so '...?!' is one "
        "token instead of four and 'you!\"' glues '!' and '\"' together.",
        (
            r"(run|sequence|group)s? of punctuation",
            r"punctuation.{0,50}(together|glued|grouped|one token|single token)",
            r"(single|one|each) (punctuation )?(mark|character).{0,40}(own|separate|token)",
            r"\[\^\\w\\s\]\+",
            r"four tokens",
        ),
        (r"lower-?case", r"whitespace", r"unicode|ascii|accent|any script"),
        code="def tokenize(text):\n    return re.findall(r'\\w+|[^\\w\\s]+', text.lower())\n",
        source=PUNCTUATION_GROUPED,
    ),
    _c(
        "tokenize-ascii-letters",
        L01,
        "tokenize",
        "writes the word class as [a-z0-9_]+ instead of \\w+: letters outside ASCII ('é', "
        "'à', 'ü') match neither alternative and vanish, so 'déjà' becomes 'd', 'j'.",
        (
            r"\\w\b|word characters?",
            r"any script|non-ascii|accent|unicode|letters? outside",
            r"\[a-z",
            r"(é|à|ü|ß).{0,60}(dropped|lost|missing|vanish)",
        ),
        (r"lower-?case", r"punctuation.{0,40}(run|together|grouped)", r"whitespace"),
        code="def tokenize(text):\n    return re.findall(r'[a-z0-9_]+|[^\\w\\s]', text.lower())\n",
    ),
    # ------------------------------------------------------------------ 01 build_vocab
    _c(
        "vocab-min-freq-strict",
        L01,
        "build_vocab",
        "keeps tokens seen more than min_freq times (count > min_freq) instead of at least "
        "min_freq times: tokens whose count equals min_freq are left out (with min_freq=1, "
        "every token seen once).",
        (
            r">=|≥|at least",
            r"min_freq.{0,60}(exactly|equal|strict|excluded|dropped|left out|missing)",
            r"count(s)? equal to min_freq",
            r"more than min_freq|> ?min_freq",
        ),
        (r"\btie|alphabetical", r"special", r"descending|most frequent first"),
        edits=[
            (
                "if count >= min_freq and token not in vocab:",
                "if count > min_freq and token not in vocab:",
            )
        ],
    ),
    _c(
        "vocab-special-in-data-renumbered",
        L01,
        "build_vocab",
        "forgets the 'token not in vocab' test: a special token that occurs in the data (the "
        "Penn Treebank's '<unk>') is given a new id, overwriting its special id 1, and since "
        "the dict does not grow the next token gets the same id (a gap at 1, an id used "
        "twice).",
        (
            r"special (token|id).{0,80}(keep|kept|its own|reassigned|new id|moved|changed|"
            r"overwr)",
            r"<unk>.{0,80}(id 1|reassigned|new id|keeps?|overwr)",
            r"not in vocab|already in (the )?(vocab|dict)",
            r"(same|duplicate) id|used twice|gap",
        ),
        (r"\btie|alphabetical", r"min_freq", r"descending"),
        edits=[("if count >= min_freq and token not in vocab:", "if count >= min_freq:")],
    ),
    # ------------------------------------------------------------------ 01 encode
    _c(
        "encode-adds-bos-eos",
        L01,
        "encode",
        "wraps the ids in <bos> ... <eos>, as a model tokenizer with add_special_tokens "
        "would: two ids too many, where the lesson's encode is one id per token.",
        (
            r"<bos>|<eos>|\bbos\b|\beos\b",
            r"(two|2) (ids )?(too many|more|extra)|(extra|additional) ids?",
            r"one id per token",
        ),
        (r"<unk>.{0,40}(wrong|missing|instead)", r"order|reversed"),
        code="def encode(tokens, vocab):\n"
        "    unk = vocab['<unk>']\n"
        "    return [vocab['<bos>']] + [vocab.get(t, unk) for t in tokens] + [vocab['<eos>']]\n",
        source=BOS_EOS_EXPECTED_IN_ENCODE,
    ),
    # ------------------------------------------------------------------ 01 decode
    _c(
        "decode-skips-special-tokens",
        L01,
        "decode",
        "drops the special tokens while decoding (as skip_special_tokens=True would), so a "
        "padded row loses its '<pad>' and '<bos>'/'<eos>' disappear, where the docstring "
        "asks for them.",
        (
            r"special tokens?.{0,80}(dropped|removed|skipped|left out|missing|kept|"
            r"included|decoded)",
            r"<pad>|<bos>|<eos>",
            r"\bskip",
        ),
        (r"inverse|id → token.{0,20}(wrong|reversed)", r"int\(", r"KeyError"),
        code="def decode(ids, vocab):\n"
        "    id_to_token = {index: token for token, index in vocab.items()}\n"
        "    tokens = [id_to_token[int(i)] for i in ids]\n"
        "    return [t for t in tokens if t not in SPECIAL_TOKENS]\n",
        source=DECODE_DROPS_SPECIALS,
    ),
    # ------------------------------------------------------------------ 01 pad_batch
    _c(
        "pad-batch-max-of-nothing",
        L01,
        "pad_batch",
        "computes max_len with max() and no default, which raises ValueError ('max() arg is "
        "an empty sequence') when there are no sequences at all, instead of returning a (0, "
        "0) array.",
        (
            r"\bempty\b|no sequences",
            r"default(=0)?",
            r"max\(\) arg",
            r"\(0, 0\)",
        ),
        (r"pad_id.{0,30}(ignored|0 instead)", r"dtype|float", r"left"),
        code="def pad_batch(sequences, pad_id):\n"
        "    max_len = max(len(seq) for seq in sequences)\n"
        "    batch = np.full((len(sequences), max_len), pad_id, dtype=np.int64)\n"
        "    for row, seq in enumerate(sequences):\n"
        "        batch[row, : len(seq)] = seq\n"
        "    return batch\n",
        source=MAX_OF_EMPTY_BATCH,
    ),
    _c(
        "pad-batch-pads-with-zero",
        L01,
        "pad_batch",
        "starts from np.zeros and never uses pad_id: right whenever pad_id is 0 (the course's "
        "<pad>), wrong for any other pad_id.",
        (
            r"pad_id",
            r"(zeros?|0).{0,40}instead of.{0,30}pad",
            r"np\.zeros",
        ),
        (r"\bempty\b|no sequences", r"dtype|float", r"left[- ]pad"),
        code="def pad_batch(sequences, pad_id):\n"
        "    max_len = max((len(seq) for seq in sequences), default=0)\n"
        "    batch = np.zeros((len(sequences), max_len), dtype=np.int64)\n"
        "    for row, seq in enumerate(sequences):\n"
        "        batch[row, : len(seq)] = seq\n"
        "    return batch\n",
        source=PAD_ID_ASSUMED_ZERO,
    ),
    # ------------------------------------------------------------------ 01 get_pair_counts
    _c(
        "pair-counts-sorted-by-count",
        L01,
        "get_pair_counts",
        "returns dict(Counter(...).most_common()): the counts are right but the pairs are "
        "ordered by count, not by first occurrence, so train_bpe's tie rule breaks (visible "
        "only in the order of the keys).",
        (
            r"first occurrence|order.{0,40}(first (seen|appear|occur))",
            r"most_common",
            r"(sorted|ordered) by (their )?counts?",
            r"order of (the )?(keys|pairs)",
        ),
        (r"overlap", r"counts? (are |is )?(wrong|off)", r"tuple"),
        code="def get_pair_counts(ids):\n    return dict(Counter(zip(ids, ids[1:])).most_common())\n",
    ),
    # ------------------------------------------------------------------ 01 merge_pair
    _c(
        "merge-pair-edits-input",
        L01,
        "merge_pair",
        "merges inside the caller's list (ids[i] = new_id; del ids[i + 1]) and returns it: "
        "the result is right but the input list is modified.",
        (
            r"in[- ]place",
            r"modif(y|ies|ied)|mutat",
            r"(input|caller's|the) list (itself )?(was|is|has been) changed",
            r"\bdel\b",
            r"new list|copy",
        ),
        (r"overlap", r"left to right", r"IndexError|out of range"),
        code="def merge_pair(ids, pair, new_id):\n"
        "    i = 0\n"
        "    while i < len(ids) - 1:\n"
        "        if (ids[i], ids[i + 1]) == pair:\n"
        "            ids[i] = new_id\n"
        "            del ids[i + 1]\n"
        "        i += 1\n"
        "    return ids\n",
    ),
    _c(
        "merge-pair-no-bounds-check",
        L01,
        "merge_pair",
        "tests ids[i] == pair[0] and ids[i + 1] == pair[1] without checking that a next id "
        "exists: when the last id equals the pair's first, ids[i + 1] raises IndexError.",
        (
            r"IndexError|out of range",
            r"last (id|element|position|item)",
            r"i \+ 1 < len|bounds?|(there is|exists) a next",
        ),
        (r"in[- ]place|modif", r"overlap"),
        code="def merge_pair(ids, pair, new_id):\n"
        "    merged = []\n"
        "    i = 0\n"
        "    while i < len(ids):\n"
        "        if ids[i] == pair[0] and ids[i + 1] == pair[1]:\n"
        "            merged.append(new_id)\n"
        "            i += 2\n"
        "        else:\n"
        "            merged.append(ids[i])\n"
        "            i += 1\n"
        "    return merged\n",
    ),
    # ------------------------------------------------------------------ 01 train_bpe
    _c(
        "train-bpe-ids-not-updated",
        L01,
        "train_bpe",
        "calls merge_pair without keeping its result (ids never changes): every step picks "
        "the same pair again, so the dict holds a single merge, with the last step's id.",
        (
            r"(ids|result of merge_pair|merged list).{0,60}(never|not) (updated|reassigned|"
            r"assigned|kept|stored)",
            r"same pair.{0,60}(every|each|again)",
            r"ids = merge_pair",
            r"discard",
            r"(only )?(one|a single) merge",
        ),
        (r"\btie", r"256 ?\+.{0,30}(wrong|off)", r"stop|empty"),
        edits=[("ids = merge_pair(ids, best, 256 + step)", "merge_pair(ids, best, 256 + step)")],
    ),
    # ------------------------------------------------------------------ 01 bpe_encode
    _c(
        "bpe-encode-most-frequent-pair",
        L01,
        "bpe_encode",
        "picks, among the pairs that have a merge, the one most frequent in the text being "
        "encoded instead of the one learned earliest (smallest new id): the counts of the new "
        "text decide the order of merges.",
        (
            r"(earliest|first)[- ]learned",
            r"smallest (new )?id|lowest (rank|id)",
            r"(order|rank) (of|in which) (the )?merges? (were )?(was )?learned",
            r"frequen(t|cy).{0,60}(new text|this text|the text|input|instead)",
            r"counts? (in|of) the (new )?text",
        ),
        (r"utf-?8|bytes", r"single pass|once", r"stop"),
        code="def bpe_encode(text, merges):\n"
        "    ids = list(text.encode('utf-8'))\n"
        "    while len(ids) >= 2:\n"
        "        counts = get_pair_counts(ids)\n"
        "        present = [pair for pair in counts if pair in merges]\n"
        "        if not present:\n"
        "            break\n"
        "        pair = max(present, key=counts.get)\n"
        "        ids = merge_pair(ids, pair, merges[pair])\n"
        "    return ids\n",
        source=MERGES_APPLIED_OUT_OF_ORDER,
    ),
    # ------------------------------------------------------------------ 01 bpe_decode
    # blind11j-bpe-decode-per-token left out after the run: its code is one of the tests' own
    # mistakes (tests/test_01_tokenization.py decode_per_token), which the benchmark keeps apart;
    # generalisation.py lists it with the reason.
    # _c(
    #     "bpe-decode-per-token",
    #     L01,
    #     "bpe_decode",
    #     "decodes each token's bytes as UTF-8 separately and joins the strings: a character "
    #     "whose bytes sit in two tokens ('é', an emoji) becomes replacement characters.",
    #     (
    #         r"(each|every) token (separately|on its own|alone)|per[- ]token",
    #         r"once,? at the end",
    #         r"join.{0,40}bytes.{0,40}(first|before)",
    #         r"(split|spread) (across|over) (two )?tokens",
    #         r"multi-?byte|two bytes",
    #     ),
    #     (r"merges? (in|out of) order", r"\btable\b.{0,30}(wrong|missing)"),
    #     code="def bpe_decode(ids, merges):\n"
    #     "    table = {i: bytes([i]) for i in range(256)}\n"
    #     "    for (a, b), new_id in merges.items():\n"
    #     "        table[new_id] = table[a] + table[b]\n"
    #     "    return ''.join(table[i].decode('utf-8', errors='replace') for i in ids)\n",
    #     source=PER_TOKEN_DECODE,
    # ),
    _c(
        "bpe-decode-pair-as-two-bytes",
        L01,
        "bpe_decode",
        "stores bytes([a, b]) for each merge instead of table[a] + table[b]: right while both "
        "parts are raw bytes, but a merge whose part is itself a merged id (>= 256) raises "
        "ValueError ('bytes must be in range(0, 256)').",
        (
            r"bytes\(\[a, b\]\)",
            r"table\[a\] ?\+ ?table\[b\]",
            r"bytes of (its|the) (two )?parts|parts'? bytes",
            r"(nested|merged) (ids?|parts?)|ids? (above|over|≥|>=) ?25[56]",
            r"range\(0, 256\)",
        ),
        (r"once,? at the end", r"per[- ]token"),
        code="def bpe_decode(ids, merges):\n"
        "    table = {i: bytes([i]) for i in range(256)}\n"
        "    for (a, b), new_id in merges.items():\n"
        "        table[new_id] = bytes([a, b])\n"
        "    return b''.join(table[i] for i in ids).decode('utf-8', errors='replace')\n",
    ),
    # ------------------------------------------------------------------ 02 one_hot
    _c(
        "one-hot-width-from-max-id",
        L02,
        "one_hot",
        "takes the width from the largest id in the batch (np.eye(ids.max() + 1)) instead of "
        "vocab_size: right only when the batch happens to contain the id vocab_size - 1.",
        (
            r"(largest|max(imum)?|highest) id",
            r"ids\.max|max\(ids\)|np\.max",
            r"width.{0,40}vocab_size|vocab_size.{0,40}(argument|width|not)",
        ),
        (r"\bbool", r"axis.{0,20}first|transpos", r"dtype"),
        code="def one_hot(ids, vocab_size):\n"
        "    ids = np.asarray(ids)\n"
        "    return np.eye(ids.max() + 1)[ids]\n",
        source=CLASSES_FROM_MAX_LABEL,
    ),
    _c(
        "one-hot-flat-ids",
        L02,
        "one_hot",
        "fills a (len(ids), vocab_size) matrix with out[np.arange(len(ids)), ids] = 1, which "
        "only works for 1-D ids: a (batch, len) array of ids raises (the index arrays do not "
        "broadcast) instead of giving (batch, len, vocab_size).",
        (
            r"any shape|\(batch, len\)|1-?d|2-?d|more than one (axis|dimension)",
            r"np\.arange\(len\(ids\)\)|len\(ids\)",
            r"\(\.\.\., vocab_size\)",
        ),
        (r"\bbool", r"largest id|ids\.max", r"dtype"),
        code="def one_hot(ids, vocab_size):\n"
        "    ids = np.asarray(ids)\n"
        "    out = np.zeros((len(ids), vocab_size))\n"
        "    out[np.arange(len(ids)), ids] = 1.0\n"
        "    return out\n",
    ),
    # ------------------------------------------------------------------ 02 embed
    _c(
        "embed-ids-flattened",
        L02,
        "embed",
        "looks up ids.reshape(-1), so the rows are right but the ids' shape is lost: (batch, "
        "len) ids give (batch * len, d_model) instead of (batch, len, d_model).",
        (
            r"flatten|reshape|ravel",
            r"ids'? shape|shape of (the )?ids",
            r"\(batch, len, d_model\)|\(\.\.\., d_model\)",
            r"batch \* len",
        ),
        (r"columns?", r"dtype", r"modif"),
        code="def embed(ids, table):\n    return np.asarray(table)[np.asarray(ids).reshape(-1)]\n",
    ),
    _c(
        "embed-returns-tensor",
        L02,
        "embed",
        "does the lookup with torch.nn.functional.embedding and returns the torch tensor: the "
        "values and shape are right but the result is not a numpy array.",
        (r"torch|tensor", r"numpy array|np\.ndarray|\.numpy\(\)"),
        (r"columns?", r"shape", r"dtype"),
        code="def embed(ids, table):\n"
        "    return torch.nn.functional.embedding(torch.as_tensor(ids), torch.as_tensor(table))\n",
    ),
    # ------------------------------------------------------------------ 02 cosine_similarity
    _c(
        "cosine-no-zero-guard",
        L02,
        "cosine_similarity",
        "divides each row by its length with no guard: a zero row gives 0/0, so its "
        "similarities are NaN instead of 0.",
        (
            r"\bnan\b",
            r"zero (vector|row|length)",
            r"\beps\b|1e-12|np\.maximum|divi(de|ding|sion) by (zero|0)",
        ),
        (r"transpos", r"clamp.{0,30}\b1\b|at least 1", r"axis"),
        code="def cosine_similarity(a, b):\n"
        "    a = np.asarray(a, dtype=np.float64)\n"
        "    b = np.asarray(b, dtype=np.float64)\n"
        "    a_unit = a / np.linalg.norm(a, axis=-1, keepdims=True)\n"
        "    b_unit = b / np.linalg.norm(b, axis=-1, keepdims=True)\n"
        "    return a_unit @ b_unit.T\n",
        source=COSINE_ZERO_NAN,
    ),
    _c(
        "cosine-row-by-row",
        L02,
        "cosine_similarity",
        "multiplies the normalised rows elementwise and sums (a_unit * b_unit).sum(-1): the "
        "cosine of row i with row i only, shape (n,) when n == m and a broadcasting error "
        "otherwise, instead of the pairwise (n, m) matrix.",
        (
            r"pairwise|every (row|pair)|all pairs",
            r"\(n, m\)",
            r"@|matrix product|b_unit\.T|\.T\b",
            r"(row i|matching rows|same index).{0,40}only",
        ),
        (r"\bnan\b|zero vector", r"\beps\b"),
        code="def cosine_similarity(a, b):\n"
        "    a = np.asarray(a, dtype=np.float64)\n"
        "    b = np.asarray(b, dtype=np.float64)\n"
        "    a_unit = a / np.maximum(np.linalg.norm(a, axis=-1, keepdims=True), 1e-12)\n"
        "    b_unit = b / np.maximum(np.linalg.norm(b, axis=-1, keepdims=True), 1e-12)\n"
        "    return (a_unit * b_unit).sum(axis=-1)\n",
    ),
    # ------------------------------------------------------------------ 02 TokenEmbedding
    _c(
        "token-embedding-divided",
        L02,
        "TokenEmbedding",
        "divides the lookup by sqrt(d_model) instead of multiplying (attention's 1/sqrt(d_k) "
        "carried over): the vectors are d_model times too small.",
        (
            r"divid",
            r"multipl(y|ied).{0,30}(instead|not divid)",
            r"1 ?/ ?(√|sqrt)",
            r"d_model (times|×) (too )?small",
        ),
        (
            r"d_model\b.{0,20}instead of.{0,20}(sqrt|square root)",
            r"length of the sentence|\blen\b.{0,20}instead",
            r"detach|no_grad",
        ),
        edits=[
            (
                "return self.embedding(ids) * math.sqrt(self.d_model)",
                "return self.embedding(ids) / math.sqrt(self.d_model)",
            )
        ],
        source=EMBEDDING_DIVIDED,
    ),
    _c(
        "token-embedding-table-made-in-forward",
        L02,
        "TokenEmbedding",
        "creates the nn.Embedding inside forward instead of __init__: the module has no "
        "parameter, and every call draws a new random table (two calls on the same ids "
        "differ), so nothing can be trained or loaded.",
        (
            r"(in|inside) forward",
            r"(each|every) call|two calls|second call",
            r"__init__",
            r"no (learnable |trainable )?param|state[_ ]dict|self\.embedding",
        ),
        (r"sqrt|scale", r"detach|no_grad"),
        code="class TokenEmbedding(nn.Module):\n"
        "    def __init__(self, vocab_size, d_model):\n"
        "        super().__init__()\n"
        "        self.vocab_size = vocab_size\n"
        "        self.d_model = d_model\n"
        "\n"
        "    def forward(self, ids):\n"
        "        embedding = nn.Embedding(self.vocab_size, self.d_model)\n"
        "        return embedding(ids) * math.sqrt(self.d_model)\n",
    ),
]
