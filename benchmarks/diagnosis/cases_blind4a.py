"""Blind round 4, helper b4a: held-out wrong answers for lessons 01-04, written from the
reference solutions alone (no check module or message read), judging criteria fixed before
any run. At least half transpose a mistake from a report read with the search tool."""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case

AUTHOR = "author: a plausible learner slip, written from the exercise's docstring"
L01, L02, L03, L04 = "01_tokenization", "02_embeddings", "03_positional_encoding", "04_attention"

# Reports read for this round (search tool, corpus issues / pages).
BPE_CHARS_NOT_BYTES = "https://github.com/paiml/aprender/pull/2139"
ONEHOT_WIDTH_FROM_MAX = (
    "https://newbetuts.com/29831489-convert-array-of-indices-to-1-hot-encoded-numpy-array"
)
EMBED_FLOAT_IDS = "https://runebook.dev/ru/docs/pytorch/generated/torch.nn.functional.embedding"
EMBED_INDEX_RANGE = (
    "https://runebook.dev/ru/docs/pytorch/generated/torch.nn.embedding/torch.nn.Embedding"
)
EMBED_DIVIDE = "https://github.com/pytorch/tutorials/issues/2849"
PE_SEQ_FIRST_SLICE = "https://github.com/tanjimin/C.Origami/issues/42"
PE_PLAIN_ATTRIBUTE = "https://openillumi.com/en/en-pytorch-cuda-tensor-not-transfer-fix"
NO_SCORE_SCALE = "https://github.com/Kyubyong/transformer/issues/60"
MASKED_FILL_DISCARDED = "https://github.com/lucidrains/flamingo-pytorch/issues/10"
TENSOR_T_ND = "https://github.com/pytorch/pytorch/pull/64180"

BLIND4A: list[Case] = [
    # ---------------------------------------------------------------- lesson 01
    Case(
        "blind4a-tok-split-capturing-group",
        L01,
        "tokenize",
        "splits with re.split on a capturing group of non-word characters, so the spaces and "
        "the empty strings between separators are kept as tokens.",
        AUTHOR,
        (r"(empty|'') ?(string|token)", r"(space|whitespace).{0,40}(kept|token|dropped|must)"),
        (r"lower",),
        edits=(
            (
                'return re.findall(r"\\w+|[^\\w\\s]", text.lower())',
                'return re.split(r"(\\W)", text.lower())',
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4a-vocab-rank-gaps",
        L01,
        "build_vocab",
        "gives each token the id 4 + its rank among all counted tokens, so tokens dropped by "
        "min_freq or already special leave gaps in the ids.",
        AUTHOR,
        (r"gap", r"without gaps", r"contiguous", r"consecutive", r"len\(vocab\)"),
        (r"tie", r"alphabet"),
        edits=(
            (
                "    for token, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):\n"
                "        if count >= min_freq and token not in vocab:\n"
                "            vocab[token] = len(vocab)",
                "    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))\n"
                "    for rank, (token, count) in enumerate(ranked):\n"
                "        if count >= min_freq and token not in vocab:\n"
                "            vocab[token] = len(SPECIAL_TOKENS) + rank",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4a-decode-joined-string",
        L01,
        "decode",
        "joins the decoded tokens into one space-separated string instead of returning a list "
        "of tokens.",
        AUTHOR,
        (r"(a|one) (single )?str(ing)?\b.{0,60}list", r"list of (str|tokens)", r"join"),
        (r"special",),
        edits=(
            (
                "return [id_to_token[int(index)] for index in ids]",
                'return " ".join(id_to_token[int(index)] for index in ids)',
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4a-pad-float-array",
        L01,
        "pad_batch",
        "builds the batch with np.zeros (float64) and adds pad_id, so the ids come back as "
        "floats, which an embedding lookup rejects.",
        EMBED_FLOAT_IDS,
        (r"float", r"integer dtype", r"int64|dtype"),
        (r"left", r"max_len"),
        edits=(
            (
                "batch = np.full((len(sequences), max_len), pad_id, dtype=np.int64)",
                "batch = np.zeros((len(sequences), max_len)) + pad_id",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4a-pairs-last-pair-missed",
        L01,
        "get_pair_counts",
        "loops i over range(len(ids) - 2), an off-by-one that never counts the last pair.",
        AUTHOR,
        (r"last pair", r"final pair", r"off.by.one", r"len\(ids\) ?- ?1"),
        (r"overlap",),
        edits=(
            (
                "    for pair in zip(ids, ids[1:]):\n",
                "    for pair in [(ids[i], ids[i + 1]) for i in range(len(ids) - 2)]:\n",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4a-merge-list-vs-tuple",
        L01,
        "merge_pair",
        "compares the slice ids[i:i + 2] (a list) with the pair (a tuple), which is never "
        "equal in Python, so nothing is ever merged.",
        AUTHOR,
        (r"never merge", r"nothing (was |is )?merged", r"unchanged", r"list.{0,30}tuple"),
        (r"overlap", r"in place"),
        edits=(
            (
                "if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:",
                "if ids[i : i + 2] == pair:",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4a-train-max-without-key",
        L01,
        "train_bpe",
        "takes max(counts) without key=counts.get, so it merges the largest pair of ids "
        "(compared as tuples) instead of the most frequent one.",
        AUTHOR,
        (
            r"most frequent",
            r"key=",
            r"(largest|highest) (pair|id)",
            r"count(s)? .{0,30}(not|instead)",
        ),
        (r"tie", r"256"),
        edits=(("best = max(counts, key=counts.get)", "best = max(counts)"),),
        heldout=True,
    ),
    Case(
        "blind4a-bpe-encode-code-points",
        L01,
        "bpe_encode",
        "starts from the characters' code points (ord) instead of the UTF-8 bytes, so a "
        "non-ASCII character is one id (possibly above 255) rather than its bytes.",
        BPE_CHARS_NOT_BYTES,
        (r"utf-?8", r"bytes", r"code point", r"ord\("),
        (r"earliest", r"learned first"),
        edits=(
            (
                '    ids = list(text.encode("utf-8"))\n    while len(ids) >= 2:',
                "    ids = [ord(character) for character in text]\n    while len(ids) >= 2:",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4a-bpe-decode-parts-as-bytes",
        L01,
        "bpe_decode",
        "stores bytes([a, b]) for each merge, treating its two parts as raw bytes, so a merge "
        "whose part is itself a merged id (>= 256) fails or decodes wrongly.",
        AUTHOR,
        (
            r"(nested|earlier|previous) merge",
            r"table\[a\] ?\+ ?table\[b\]",
            r"bytes of (its|the) (two )?parts",
            r">= ?256|above 255",
        ),
        (r"utf-?8 once", r"errors"),
        edits=(("table[new_id] = table[a] + table[b]", "table[new_id] = bytes([a, b])"),),
        heldout=True,
    ),
    # ---------------------------------------------------------------- lesson 02
    Case(
        "blind4a-onehot-width-from-max",
        L02,
        "one_hot",
        "takes the width from ids.max() + 1 instead of vocab_size, so the vectors are too "
        "short when the largest id is below vocab_size - 1.",
        ONEHOT_WIDTH_FROM_MAX,
        (r"vocab_size", r"max\(\)|largest id|\.max"),
        (r"transpos", r"dtype"),
        edits=(
            (
                "return np.eye(vocab_size, dtype=np.float64)[np.asarray(ids)]",
                "return np.eye(np.asarray(ids).max() + 1, dtype=np.float64)[np.asarray(ids)]",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4a-cos-frobenius-norm",
        L02,
        "cosine_similarity",
        "divides by the norm of the whole matrices (np.linalg.norm without axis) instead of "
        "each row's norm.",
        AUTHOR,
        (r"axis", r"each row|per row|row.?wise|every row", r"whole (matrix|array)"),
        (r"zero vector", r"nan", r"transpos"),
        edits=(
            (
                "a_unit = a / np.maximum(np.linalg.norm(a, axis=-1, keepdims=True), 1e-12)",
                "a_unit = a / np.maximum(np.linalg.norm(a), 1e-12)",
            ),
            (
                "b_unit = b / np.maximum(np.linalg.norm(b, axis=-1, keepdims=True), 1e-12)",
                "b_unit = b / np.maximum(np.linalg.norm(b), 1e-12)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4a-emb-divide-sqrt",
        L02,
        "TokenEmbedding",
        "divides the embeddings by sqrt(d_model) instead of multiplying by it.",
        EMBED_DIVIDE,
        (r"divid", r"multipl.{0,40}sqrt", r"1 ?/ ?sqrt", r"inverse"),
        (r"vocab_size", r"attribute"),
        edits=(
            (
                "return self.embedding(ids) * math.sqrt(self.d_model)",
                "return self.embedding(ids) / math.sqrt(self.d_model)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4a-emb-args-swapped",
        L02,
        "TokenEmbedding",
        "builds nn.Embedding(d_model, vocab_size) with the two sizes swapped, so the table is "
        "(d_model, vocab_size).",
        EMBED_INDEX_RANGE,
        (r"swap", r"nn\.Embedding\(vocab_size, d_model\)", r"\(d_model, vocab_size\)", r"order of"),
        (r"sqrt", r"scale"),
        edits=(
            (
                "self.embedding = nn.Embedding(vocab_size, d_model)",
                "self.embedding = nn.Embedding(d_model, vocab_size)",
            ),
        ),
        heldout=True,
    ),
    # ---------------------------------------------------------------- lesson 03
    Case(
        "blind4a-pe-rows-not-features",
        L03,
        "positional_encoding",
        "puts the sines on even positions (rows) and the cosines on odd positions instead of "
        "on even and odd features (columns), built from the transposed angle table.",
        AUTHOR,
        (r"(row|position)s?.{0,40}(column|feature)s?", r"(axis|dim)", r"transpos"),
        (r"sin.{0,20}cos.{0,20}swap", r"exponent"),
        code="""
def positional_encoding(max_len, d_model):
    features = np.arange(d_model, dtype=np.float64)[None, :]
    two_i = 2 * (features // 2)
    angles = np.arange(max_len, dtype=np.float64)[:, None] / np.power(10000.0, two_i / d_model)
    pe = np.zeros((max_len, d_model))
    pe[0::2, :] = np.sin(angles[0::2, :])
    pe[1::2, :] = np.cos(angles[1::2, :])
    return pe
""",
        heldout=True,
    ),
    Case(
        "blind4a-shift-angle-multiplied",
        L03,
        "relative_shift",
        "multiplies k by 10000^(2i/d_model) instead of dividing, so every pair but the first "
        "rotates by the wrong angle.",
        AUTHOR,
        (r"divid", r"frequenc", r"w_i", r"10000"),
        (r"transpos", r"sign", r"odd"),
        edits=(
            (
                "theta = k / np.power(10000.0, two_i / d_model)",
                "theta = k * np.power(10000.0, two_i / d_model)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4a-pe-slice-seq-first",
        L03,
        "PositionalEncoding",
        "slices the table with x.size(0) (the batch size, as in seq-first code) instead of "
        "x.size(1), the sequence length.",
        PE_SEQ_FIRST_SLICE,
        (
            r"size\(0\)|shape\[0\]",
            r"batch (size|dim|axis)",
            r"sequence length|len(gth)? axis|dim(ension)? 1",
        ),
        (r"dropout", r"buffer"),
        edits=(("length = x.shape[1]\n", "length = x.shape[0]\n"),),
        heldout=True,
    ),
    Case(
        "blind4a-pe-plain-attribute",
        L03,
        "PositionalEncoding",
        "stores the table as a plain tensor attribute (self.pe = table) instead of a "
        "registered buffer, so .to() and state_dict leave it behind.",
        PE_PLAIN_ATTRIBUTE,
        (r"register_buffer", r"buffer"),
        (r"parameter.{0,30}train", r"dropout"),
        edits=(
            (
                'self.register_buffer("pe", table.unsqueeze(0))',
                "self.pe = table.unsqueeze(0)",
            ),
        ),
        heldout=True,
    ),
    # ---------------------------------------------------------------- lesson 04
    Case(
        "blind4a-softmax-axis-ignored",
        L04,
        "softmax",
        "ignores the axis argument and always normalises along the last axis.",
        AUTHOR,
        (
            r"axis( argument| parameter)?.{0,40}(ignor|not used|always|last)",
            r"axis=0",
            r"given axis",
        ),
        (r"max", r"overflow", r"inf"),
        edits=(
            (
                "peak = np.max(x, axis=axis, keepdims=True)",
                "peak = np.max(x, axis=-1, keepdims=True)",
            ),
            (
                "total = np.sum(exps, axis=axis, keepdims=True)",
                "total = np.sum(exps, axis=-1, keepdims=True)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4a-row-no-scale",
        L04,
        "attention_row",
        "forgets the 1/sqrt(d_k) scaling of the scores.",
        NO_SCORE_SCALE,
        (r"sqrt\(d_k\)|√d_k|sqrt d_k", r"scal"),
        (r"len_k", r"values"),
        edits=(("scores = keys @ query / math.sqrt(d_k)", "scores = keys @ query"),),
        heldout=True,
    ),
    Case(
        "blind4a-row-weights-keys",
        L04,
        "attention_row",
        "returns the weighted sum of the keys instead of the values.",
        AUTHOR,
        (
            r"keys? instead of (the )?values",
            r"values?.{0,40}not (the )?keys",
            r"weighted sum of (the )?values",
        ),
        (r"scal", r"softmax"),
        edits=(("output = weights @ values", "output = weights @ keys"),),
        heldout=True,
    ),
    Case(
        "blind4a-sdpa-masked-fill-discarded",
        L04,
        "scaled_dot_product_attention",
        "calls scores.masked_fill(...) without assigning the result (masked_fill is not in "
        "place), so the mask has no effect.",
        MASKED_FILL_DISCARDED,
        (
            r"masked_fill_?\b.{0,60}(assign|in.place|returns)",
            r"mask.{0,40}(no effect|ignored|not applied)",
        ),
        (r"invert", r"after (the )?softmax", r"zero"),
        edits=(
            (
                'scores = scores.masked_fill(~mask, float("-inf"))',
                'scores.masked_fill(~mask, float("-inf"))',
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4a-sdpa-tensor-T",
        L04,
        "scaled_dot_product_attention",
        "transposes k with k.T, which reverses every dimension of a batched tensor instead of "
        "swapping the last two.",
        TENSOR_T_ND,
        (r"\.T\b", r"transpose\(-2, ?-1\)|last two", r"mT"),
        (r"softmax", r"mask"),
        edits=(
            (
                "scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)",
                "scores = q @ k.T / math.sqrt(d_k)",
            ),
        ),
        heldout=True,
    ),
]
