"""Held-out wrong answers for lessons 00-02, blind round 16 (helper b16c, 2026-11-28):
mistakes new to the benchmark, written against the checks after round 18's fixes, to
measure how the diagnoses generalise to mistakes nobody here has seen. 22 cases over the
nineteen exercises and questions of these lessons, all the author's (no public report
was read in the time given).

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run, and each case was compared with the causes of the benchmark's earlier cases for these
lessons (ids and causes only) and replaced where it repeated one.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L00, L01, L02 = "00_welcome", "01_tokenization", "02_embeddings"

_c = held_out_authored("blind16c")

BLIND16C: list[Case] = [
    # ------------------------------------------------------------------ 00 welcome
    _c(
        "center-per-sample-axes",
        L00,
        "center_rows",
        "averages over every axis but the first, x.mean(axis=tuple(range(1, x.ndim)) or -1, "
        "keepdims=True), the per-sample mean of image normalisation: right for a 1-D or 2-D "
        "x, but a 3-D (batch, len, d_model) x is centred by each sample's mean over all its "
        "rows, not by each row's own mean.",
        (
            r"(each|every) (row|vector)'?s? own mean",
            r"(several|more than one|all the|both last|last two) ax[ie]s",
            r"(whole|entire) (sample|matrix|batch element)",
            r"axis=\(1, 2\)|axis=-1 only|only the last axis",
        ),
        (r"columns?\b.{0,30}(instead|axis=0)", r"in place", r"standard deviation", r"n - 1"),
        edits=[
            (
                "return x - x.mean(axis=-1, keepdims=True)",
                "return x - x.mean(axis=tuple(range(1, x.ndim)) or -1, keepdims=True)",
            )
        ],
    ),
    _c(
        "center-returns-tuple",
        L00,
        "center_rows",
        "returns a tuple (centred, means), the centred rows together with the means it "
        "subtracted, instead of the centred array alone.",
        (r"\btuple\b", r"two (values|things|arrays)", r"(only|just) the (centred|centered)"),
        (r"columns?\b.{0,30}(instead|axis=0)", r"in place", r"keepdims"),
        edits=[
            (
                "return x - x.mean(axis=-1, keepdims=True)",
                "means = x.mean(axis=-1, keepdims=True)\n    return x - means, means",
            )
        ],
    ),
    # ------------------------------------------------------------------ 01 tokenization
    _c(
        "tok-apostrophes-removed",
        L01,
        "tokenize",
        'removes the apostrophes before splitting (text.lower().replace("\'", ""), a '
        "cleaning step from text preprocessing): \"don't\" becomes the one token 'dont' "
        "instead of 'don', \"'\", 't', and every apostrophe vanishes from the tokens.",
        (
            r"apostrophe",
            r"replace\(",
            r"(removes?|drops?|deletes?).{0,40}(punctuation|marks?|')",
        ),
        (r"capturing group", r"ascii", r"punctuation runs?", r"\\w\*", r"not lower"),
        edits=[
            (
                'return re.findall(r"\\w+|[^\\w\\s]", text.lower())',
                'return re.findall(r"\\w+|[^\\w\\s]", text.lower().replace("\'", ""))',
            )
        ],
    ),
    _c(
        "vocab-specials-as-set",
        L01,
        "build_vocab",
        "numbers the special tokens by enumerating a set literal {'<pad>', '<unk>', "
        "'<bos>', '<eos>'} instead of the ordered list: a set's order follows the strings' "
        "hashes, so the four special ids come out shuffled (<pad> is not 0, <unk> not 1) "
        "and change from one Python run to the next.",
        (r"\bset\b", r"order of the special", r"special tokens?.{0,60}(order|shuffl|wrong ids?)"),
        (r"ties?\b", r"min_freq", r"descending count", r"torchtext", r"specials_first"),
        edits=[
            (
                "enumerate(SPECIAL_TOKENS)",
                "enumerate({'<pad>', '<unk>', '<bos>', '<eos>'})",
            )
        ],
    ),
    _c(
        "encode-all-unk-on-keyerror",
        L01,
        "encode",
        "looks every token up with vocab[token] inside one try and, on KeyError, returns "
        "the <unk> id for the whole sequence: a sentence with one unknown token comes back "
        "as all <unk>, where only that token should be.",
        (
            r"(every|all|each|whole).{0,40}(<unk>|unk id)",
            r"known tokens?.{0,40}(<unk>|unk)",
            r"only the unknown",
        ),
        (r"setdefault", r"None", r"skip", r"lower", r"<bos>|bos/eos|add_special"),
        edits=[
            (
                'unk = vocab["<unk>"]\n    return [vocab.get(token, unk) for token in tokens]',
                "try:\n        return [vocab[token] for token in tokens]\n"
                '    except KeyError:\n        return [vocab["<unk>"]] * len(tokens)',
            )
        ],
    ),
    _c(
        "decode-specials-become-unk",
        L01,
        "decode",
        "builds the inverse table without the special tokens (if token not in "
        "SPECIAL_TOKENS) and looks ids up with .get(id, '<unk>'): every <pad>, <bos> and "
        "<eos> id comes back as '<unk>' instead of its own token.",
        (
            r"(<pad>|<bos>|<eos>|special).{0,60}(<unk>|'<unk>')",
            r"special tokens?.{0,40}(left out|missing|dropped).{0,40}(table|inverse|dict)",
        ),
        (r"(dropp|skip|remov)\w* the special", r"skip_special", r"key order", r"position"),
        edits=[
            (
                "id_to_token = {index: token for token, index in vocab.items()}\n"
                "    return [id_to_token[int(index)] for index in ids]",
                "id_to_token = {\n        index: token for token, index in vocab.items() "
                "if token not in SPECIAL_TOKENS\n    }\n"
                '    return [id_to_token.get(int(index), "<unk>") for index in ids]',
            )
        ],
    ),
    _c(
        "quiz-unk-rare-words",
        L01,
        "quiz_unk",
        "answers (d), that <unk> lets the model learn each rare word separately, where it "
        "does the opposite: every word outside the fixed vocabulary shares the one <unk> id "
        "(b).",
        (r"\(?b\)?.{0,80}(fixed|never seen|new (text|words))", r"(share|same|one) .{0,20}id"),
        (r"padding|<pad>", r"ends?\b.{0,20}sentence|<eos>"),
        edits=[('return "b"', 'return "d"')],
    ),
    _c(
        "pad-np-pad-zero",
        L01,
        "pad_batch",
        "pads each row with np.pad(seq, (0, max_len - len(seq))) without "
        "constant_values=pad_id: np.pad fills with 0 by default, so the batch is padded "
        "with 0 whatever pad_id is (right only when pad_id is 0).",
        (
            r"constant_values",
            r"(padded|pads?|filled) with 0\b.{0,60}(instead|not|rather than).{0,20}pad_id",
            r"pad_id.{0,40}(ignored|not used|never used)",
        ),
        (r"\bleft\b", r"float", r"uint8|8-bit", r"longest", r"np\.empty"),
        edits=[
            (
                "batch = np.full((len(sequences), max_len), pad_id, dtype=np.int64)\n"
                "    for row, seq in enumerate(sequences):\n"
                "        batch[row, : len(seq)] = seq\n    return batch",
                "rows = [np.pad(np.asarray(seq, dtype=np.int64), (0, max_len - len(seq))) "
                "for seq in sequences]\n"
                "    return np.array(rows, dtype=np.int64).reshape(len(sequences), max_len)",
            )
        ],
    ),
    _c(
        "pad-zip-longest-not-transposed",
        L01,
        "pad_batch",
        "pads with itertools.zip_longest(*sequences, fillvalue=pad_id), which yields one "
        "tuple per position (the columns), and returns that array without transposing it: "
        "the batch comes back (max_len, batch) instead of (batch, max_len).",
        (
            r"transpos",
            r"\(max_len, batch\)",
            r"(rows and columns|axes) (are )?swapped",
            r"zip_longest",
        ),
        (r"\bleft\b", r"float", r"longest (sequence|row) (itself|list)", r"first sequence"),
        edits=[
            (
                "max_len = max((len(seq) for seq in sequences), default=0)\n"
                "    batch = np.full((len(sequences), max_len), pad_id, dtype=np.int64)\n"
                "    for row, seq in enumerate(sequences):\n"
                "        batch[row, : len(seq)] = seq\n    return batch",
                "import itertools\n\n"
                "    columns = itertools.zip_longest(*sequences, fillvalue=pad_id)\n"
                "    return np.array(list(columns), dtype=np.int64)",
            )
        ],
    ),
    _c(
        "pairs-get-default-one",
        L01,
        "get_pair_counts",
        "counts with counts.get(pair, 1) + 1, a default of 1 instead of 0: every count is "
        "one too many (a pair seen once gets 2).",
        (
            r"one too (many|high)",
            r"(off by one|\+ ?1).{0,40}count",
            r"get\(pair, 1\)|default (of )?1\b",
            r"counts? .{0,30}(1|one) (more|higher)",
        ),
        (r"overlap", r"first occurrence|order", r"last pair", r"swapped|reverse"),
        edits=[("counts.get(pair, 0) + 1", "counts.get(pair, 1) + 1")],
    ),
    _c(
        "merge-only-second-matched",
        L01,
        "merge_pair",
        "tests only the pair's second id, ids[i + 1] == pair[1], leaving out ids[i] == "
        "pair[0]: any id followed by pair[1] is merged, so (c, b) is replaced by new_id too "
        "when the pair is (a, b).",
        (
            r"(first|both) (id|element|half|part)s?.{0,40}(not|never|isn't) (checked|tested|compared)",
            r"pair\[0\]",
            r"(other|wrong|different) pairs?.{0,40}merged",
            r"only (the )?second",
        ),
        (r"overlap", r"in place", r"first occurrence only", r"drops? the last"),
        edits=[("(ids[i], ids[i + 1]) == pair", "ids[i + 1] == pair[1]")],
    ),
    _c(
        "train-ids-reset-each-step",
        L01,
        "train_bpe",
        "re-reads the text's bytes inside the loop (ids = list(text.encode('utf-8')) at the "
        "top of each step), so every step counts the raw bytes again: merges never build on "
        "earlier ones, the same most frequent byte pair is picked at every step, and only "
        "one merge is learned (the dict keeps its last id).",
        (
            r"(reset|re-?read|re-?start|start(s|ed)? (again|over)).{0,60}(bytes|ids|each step|every step)",
            r"(ids|merged list).{0,40}(not|never) (updated|carried|kept)",
            r"merges? never build",
            r"(same|one) pair.{0,40}(every|each) step",
        ),
        (r"ties?\b", r"lower", r"257", r"vocab(ulary)? size", r"inverted|\{new_id"),
        edits=[
            (
                "    for step in range(num_merges):\n        counts = get_pair_counts(ids)",
                '    for step in range(num_merges):\n        ids = list(text.encode("utf-8"))\n'
                "        counts = get_pair_counts(ids)",
            )
        ],
    ),
    _c(
        "quiz-merge-order-first-merge-only",
        L01,
        "quiz_merge_order",
        "answers (c) [256, 256, 97], applying the earliest merge (a, a) and stopping there, "
        "where encoding goes on as long as some learned pair is present: (256, a) then "
        "gives [256, 257] (b).",
        (
            r"(goes|keep|continu|repeat)\w*.{0,60}(pair|merge).{0,30}present",
            r"\(256, ?97\)|\(256, a\)|257",
            r"(stop|after) (after )?(the )?first merge",
        ),
        (r"longest", r"greedy", r"most frequent"),
        edits=[('return "b"', 'return "c"')],
    ),
    _c(
        "bpe-encode-ascii-ignore",
        L01,
        "bpe_encode",
        "takes the text's bytes with text.encode('ascii', errors='ignore') (the usual fix "
        "for a UnicodeEncodeError) instead of UTF-8: every non-ASCII character is silently "
        "dropped, so 'café' encodes as 'caf'.",
        (r"ascii", r"non-ascii.{0,40}(dropped|missing|lost|vanish)", r"utf-?8"),
        (r"code points?|ord\b", r"lower", r"earliest|learned order", r"leftmost"),
        edits=[
            (
                'ids = list(text.encode("utf-8"))\n    while',
                'ids = list(text.encode("ascii", errors="ignore"))\n    while',
            )
        ],
    ),
    _c(
        "bpe-decode-replacement-chars-removed",
        L01,
        "bpe_decode",
        "removes the replacement character from the decoded text (.replace('\\ufffd', ''), "
        "to tidy it): ids whose bytes are not valid UTF-8, such as a lone byte of a "
        "multi-byte character, silently vanish instead of showing as U+FFFD.",
        (
            r"replacement char",
            r"u\+?fffd|\\ufffd|\ufffd",
            r"(invalid|incomplete|lone).{0,40}(bytes?|utf-?8).{0,60}(vanish|dropped|missing|removed|silently)",
        ),
        (r"latin", r"raw bytes|bytes\(\[a, b\]\)", r"strip", r"spaces? between"),
        edits=[
            (
                '.decode("utf-8", errors="replace")',
                '.decode("utf-8", errors="replace").replace("\\ufffd", "")',
            )
        ],
    ),
    # ------------------------------------------------------------------ 02 embeddings
    _c(
        "onehot-label-smoothed",
        L02,
        "one_hot",
        "returns label-smoothed targets, 0.9 at the id and 0.1 / (vocab_size - 1) "
        "everywhere else, instead of exact zeros and ones.",
        (
            r"smooth",
            r"(not|instead of) (exact(ly)? )?(zeros? and ones?|0 and 1|0s and 1s)",
            r"0\.9",
        ),
        (r"bool", r"width|vocab_size \+ 1", r"transpos", r"flatten"),
        edits=[
            (
                "return np.eye(vocab_size, dtype=np.float64)[np.asarray(ids)]",
                "eye = np.full((vocab_size, vocab_size), 0.1 / (vocab_size - 1))\n"
                "    np.fill_diagonal(eye, 0.9)\n    return eye[np.asarray(ids)]",
            )
        ],
    ),
    _c(
        "onehot-np-put-flat",
        L02,
        "one_hot",
        "creates zeros of shape ids.shape + (vocab_size,) and sets them with np.put(out, "
        "ids, 1), which indexes the flattened array: the 1s land at flat positions 0..vocab "
        "of the first row(s), not at (row i, column ids[i]).",
        (r"np\.put", r"flat(tened)? (index|position)", r"(first|one) row"),
        (r"width", r"transpos", r"bool", r"squeeze"),
        edits=[
            (
                "return np.eye(vocab_size, dtype=np.float64)[np.asarray(ids)]",
                "ids = np.asarray(ids)\n    out = np.zeros(ids.shape + (vocab_size,))\n"
                "    np.put(out, ids, 1)\n    return out",
            )
        ],
    ),
    _c(
        "embed-ids-new-axis",
        L02,
        "embed",
        "indexes the table with ids[..., None] (an extra axis added to broadcast), so the "
        "result has an axis of size 1 too many: (..., 1, d_model) instead of (..., d_model).",
        (
            r"(extra|additional|spare) axis",
            r"\(\.\.\., 1, d_model\)|axis of (size|length) 1",
            r"None\]|newaxis",
        ),
        (r"transpos", r"flatten", r"squeeze", r"columns?"),
        edits=[
            (
                "return np.asarray(table)[np.asarray(ids)]",
                "return np.asarray(table)[np.asarray(ids)[..., None]]",
            )
        ],
    ),
    _c(
        "quiz-linear-layer-out-in-swapped",
        L02,
        "quiz_linear_layer",
        "answers (c), nn.Linear(d_model, vocab_size) with weight E, reading nn.Linear's "
        "arguments as (out, in): the layer maps one-hot vectors of length vocab_size, so "
        "in_features is vocab_size and the weight (out, in) is E.T (a).",
        (
            r"in_features.{0,40}vocab_size",
            r"(input|one-hot).{0,40}(length|size|width) vocab_size",
            r"\(out_features, in_features\)",
        ),
        (r"\bbias\b.{0,30}(added|extra|shifts)",),
        edits=[('return "a"', 'return "c"')],
    ),
    _c(
        "quiz-gradient-rows-all",
        L02,
        "quiz_gradient_rows",
        "answers 10, the vocabulary size, as if every row of the table received a gradient: "
        "only the rows of ids that occur in the batch (3, 0, 5, 1, 2) do, five of them.",
        (
            r"(only|just) the rows.{0,40}(occur|appear|present|in the batch)",
            r"(ids|tokens) (that )?(occur|appear)",
            r"not every row",
        ),
        (r"positions", r"six|\b6\b"),
        edits=[("return 5", "return 10")],
    ),
    _c(
        "cos-rescaled-to-unit-interval",
        L02,
        "cosine_similarity",
        "rescales the similarities to [0, 1] with (cos + 1) / 2 (a 'similarity score' "
        "habit): orthogonal vectors get 0.5 and opposite ones 0, not 0 and -1.",
        (
            r"\(\s*cos\w*\s*\+\s*1\s*\)\s*/\s*2",
            r"rescal",
            r"\[0, 1\]",
            r"orthogonal.{0,40}0\.5",
            r"shifted and halved|\+ 1\) / 2",
        ),
        (r"\babs(olute)?\b", r"clip", r"distance", r"arccos|angular"),
        edits=[("return a_unit @ b_unit.T", "return (a_unit @ b_unit.T + 1) / 2")],
    ),
    _c(
        "tokemb-scale-only-in-training",
        L02,
        "TokenEmbedding",
        "multiplies by sqrt(d_model) only while self.training (as if the scale were a "
        "training-time trick like dropout): in eval mode the module returns the unscaled "
        "lookup.",
        (
            r"(eval|evaluation|inference)( mode)?.{0,60}(unscaled|not scaled|no scale|without (the )?scale|sqrt)",
            r"self\.training",
            r"training mode",
        ),
        (r"dropout (inside|in the module|applied)", r"sqrt\(vocab", r"divid", r"parameter"),
        edits=[
            (
                "return self.embedding(ids) * math.sqrt(self.d_model)",
                "scale = math.sqrt(self.d_model) if self.training else 1.0\n"
                "        return self.embedding(ids) * scale",
            )
        ],
    ),
]
