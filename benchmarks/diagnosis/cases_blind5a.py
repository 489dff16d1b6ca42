"""Held-out wrong answers for lessons 01-04, blind round 4 (helper b5a, 2026-11-26).

Written blind: without reading the checks of lessons 01-04 or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run. At least half come from a public report read with the search tool (its URL is the
source; the mistake it describes is transposed to this course's exercise, no code copied).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out

AUTHOR = "author: written for this benchmark, no public report cited"
PADDLE_IDX = "https://github.com/PaddlePaddle/PaddleNLP/issues/599"
MINBPE_TIES = "https://github.com/karpathy/minbpe/issues/93"
MINBPE_ENCODE = "https://github.com/karpathy/minbpe/issues/87"
COS_NORM = "https://coderapp.vercel.app/answer/76441728"
EMB_SCALE_SIDE = "https://github.com/jadore801120/attention-is-all-you-need-pytorch/issues/138"
PE_PRECEDENCE = "https://github.com/zju3dv/LoFTR/issues/41"
PE_CONCAT = "https://github.com/bojone/attention/issues/5"
SOFTMAX_AXIS = "https://openillumi.com/en/en-softmax-numerical-stability-python"
SCALE_INVERTED = "https://github.com/esceptico/perceiver-io/issues/9"
MASK_POLARITY = "https://github.com/lucidrains/halonet-pytorch/issues/4"

L01, L02, L03 = "01_tokenization", "02_embeddings", "03_positional_encoding"
L04 = "04_attention"


_c = held_out("blind5a")


BLIND5A: list[Case] = [
    # ------------------------------------------------------------------ 01 tokenization
    _c(
        "tok-tabs-newlines-kept",
        L01,
        "tokenize",
        "treats only the space character as whitespace, so tabs and newlines become tokens.",
        AUTHOR,
        (r"\\n", r"\\t", r"newline", r"tab", r"whitespace (is|must be|should be) dropped"),
        (r"lower-?cas", r"punctuation run"),
        ((r"[^\w\s]", r"[^\w ]"),),
    ),
    _c(
        "vocab-ids-from-sorted-position",
        L01,
        "build_vocab",
        "takes each word's id from its position in the sorted list (starting at 4), so a "
        "skipped token (one equal to a special token) leaves a gap in the ids.",
        AUTHOR,
        (r"gap", r"without gaps", r"skipp", r"special token.*(data|corpus|text|input)"),
        (r"alphabetical", r"min_freq", r"descending"),
        (
            (
                "for token, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):",
                "for index, (token, count) in enumerate(\n"
                "        sorted(counts.items(), key=lambda item: (-item[1], item[0])), start=4\n"
                "    ):",
            ),
            ("vocab[token] = len(vocab)", "vocab[token] = index"),
        ),
    ),
    _c(
        "decode-list-position",
        L01,
        "decode",
        "maps an id to the token at that position in the vocab's key order, assuming the "
        "dict's keys are stored in id order (they need not be).",
        PADDLE_IDX,
        (r"(key|insertion|dict).{0,40}order", r"position in the (dict|vocab)", r"list\(vocab\)"),
        (r"special", r"unk"),
        (
            (
                "id_to_token = {index: token for token, index in vocab.items()}",
                "id_to_token = list(vocab)",
            ),
        ),
    ),
    _c(
        "pad-zeros-not-pad-id",
        L01,
        "pad_batch",
        "fills the batch with 0 instead of pad_id.",
        AUTHOR,
        (r"pad_id", r"\b0\b.{0,40}instead", r"zeros?"),
        (r"left", r"longest", r"dtype(?!=)"),
        (("np.full((len(sequences), max_len), pad_id,", "np.full((len(sequences), max_len), 0,"),),
    ),
    _c(
        "pairs-miss-last",
        L01,
        "get_pair_counts",
        "stops one pair early, so the last adjacent pair is never counted.",
        AUTHOR,
        (r"last pair", r"final pair", r"last (adjacent )?pair", r"off[- ]by[- ]one", r"ids\[-2\]"),
        (r"overlap",),
        (("for pair in zip(ids, ids[1:]):", "for pair in zip(ids[:-1], ids[1:-1]):"),),
    ),
    _c(
        "merge-first-element-only",
        L01,
        "merge_pair",
        "compares only the first id of the pair, so any id equal to pair[0] is merged with "
        "whatever follows it.",
        AUTHOR,
        (r"second (id|element|half)", r"pair\[1\]", r"both (ids|elements)", r"only the first"),
        (r"overlap", r"in place", r"right to left"),
        (("(ids[i], ids[i + 1]) == pair", "ids[i] == pair[0]"),),
    ),
    _c(
        "train-ties-smallest-pair",
        L01,
        "train_bpe",
        "breaks ties between equally frequent pairs by the smallest pair instead of by the "
        "pair that occurs first.",
        MINBPE_TIES,
        (r"tie", r"first occur", r"occurs first", r"equally frequent", r"same count"),
        (r"overlap", r"count(s|ed)? (only )?once", r"256"),
        (("best = max(counts, key=counts.get)", "best = max(sorted(counts), key=counts.get)"),),
    ),
    _c(
        "encode-pairs-counted-once",
        L01,
        "bpe_encode",
        "collects the pairs present once, before any merge, so a merge whose pair only appears "
        "after an earlier merge is never applied.",
        MINBPE_ENCODE,
        (
            r"(recount|re-count|count again|counted once|only once)",
            r"after (an earlier|each|a) merge",
            r"new pairs?",
            r"(created|formed|appear) by (an earlier|a previous|earlier) merge",
        ),
        (r"latest|most recent|reverse", r"overlap"),
        (
            (
                "    while len(ids) >= 2:\n"
                "        present = [pair for pair in get_pair_counts(ids) if pair in merges]\n"
                "        if not present:\n"
                "            break\n"
                "        pair = min(present, key=merges.get)\n"
                "        ids = merge_pair(ids, pair, merges[pair])\n",
                "    present = set(get_pair_counts(ids))\n"
                "    for pair in sorted(present & set(merges), key=merges.get):\n"
                "        ids = merge_pair(ids, pair, merges[pair])\n",
            ),
        ),
    ),
    _c(
        "bpe-decode-bytes-of-int",
        L01,
        "bpe_decode",
        "builds the byte table with bytes(i), which is i zero bytes, instead of bytes([i]), "
        "the single byte i.",
        AUTHOR,
        (r"bytes\(\[i\]\)", r"bytes\(i\)", r"zero bytes", r"null|\\x00", r"single byte"),
        (r"latin", r"order", r"merge"),
        (
            (
                "table = {i: bytes([i]) for i in range(256)}",
                "table = {i: bytes(i) for i in range(256)}",
            ),
        ),
    ),
    # ------------------------------------------------------------------ 02 embeddings
    _c(
        "onehot-size-from-ids",
        L02,
        "one_hot",
        "takes the width from the largest id present (max(ids) + 1) instead of vocab_size.",
        AUTHOR,
        (r"vocab_size", r"max\(ids\)", r"largest id", r"width"),
        (r"bool", r"transpos"),
        (
            (
                "np.eye(vocab_size, dtype=np.float64)",
                "np.eye(int(np.max(ids)) + 1, dtype=np.float64)",
            ),
        ),
    ),
    _c(
        "cos-whole-matrix-norm",
        L02,
        "cosine_similarity",
        "divides by the norm of the whole matrix b instead of the norm of each of its rows.",
        COS_NORM,
        (r"each row", r"per row", r"row-?wise", r"axis=-?1", r"whole (matrix|array)", r"frobenius"),
        (r"zero vector", r"squared"),
        (
            (
                "b / np.maximum(np.linalg.norm(b, axis=-1, keepdims=True), 1e-12)",
                "b / np.maximum(np.linalg.norm(b), 1e-12)",
            ),
        ),
    ),
    _c(
        "tokemb-scale-baked-into-weights",
        L02,
        "TokenEmbedding",
        "multiplies the table's weights by sqrt(d_model) once in __init__ instead of scaling "
        "the output in forward, so a loaded or trained table is not scaled.",
        EMB_SCALE_SIDE,
        (
            r"forward",
            r"(weight|table|init).{0,60}(scal|sqrt)",
            r"(scal|sqrt).{0,60}(weight|table|init)",
        ),
        (r"divid", r"vocab_size"),
        (
            (
                "self.embedding = nn.Embedding(vocab_size, d_model)",
                "self.embedding = nn.Embedding(vocab_size, d_model)\n"
                "        with torch.no_grad():\n"
                "            self.embedding.weight.mul_(math.sqrt(d_model))",
            ),
            (
                "return self.embedding(ids) * math.sqrt(self.d_model)",
                "return self.embedding(ids)",
            ),
        ),
    ),
    # ------------------------------------------------------------------ 03 positions
    _c(
        "pe-floor-division-precedence",
        L03,
        "positional_encoding",
        "writes the exponent with a floor division (2i / d_model // 2), which rounds every "
        "exponent to 0, so every pair gets frequency 1.",
        PE_PRECEDENCE,
        (r"exponent", r"frequenc", r"10000", r"//", r"preceden", r"same (angle|rate)"),
        (r"sin.{0,20}cos.{0,20}swap", r"halves", r"from one"),
        (("two_i / d_model)", "two_i / d_model // 2)"),),
    ),
    _c(
        "pe-cos-then-sin-halves",
        L03,
        "positional_encoding",
        "puts all the cosines in the first half of the features and all the sines in the "
        "second, instead of interleaving sin (even) and cos (odd).",
        PE_CONCAT,
        (r"interleav", r"halves", r"first half", r"even.{0,40}odd", r"concatenat"),
        (r"exponent", r"10000", r"from one"),
        (
            (
                "    pe[:, 0::2] = np.sin(angles)\n"
                "    pe[:, 1::2] = np.cos(angles[:, : d_model // 2])",
                "    pe = np.concatenate([np.cos(angles), np.sin(angles)], axis=1)[:, :d_model]",
            ),
        ),
    ),
    _c(
        "pe-feature-own-frequency",
        L03,
        "positional_encoding",
        "gives each feature its own frequency 10000^(j / d_model) (j the feature index), so "
        "the cosine of a pair does not share the sine's frequency.",
        AUTHOR,
        (r"2i", r"pair", r"share", r"same frequency", r"feature index"),
        (r"sin.{0,20}cos.{0,20}swap", r"halves"),
        (
            (
                "    pe[:, 1::2] = np.cos(angles[:, : d_model // 2])",
                "    odd = np.arange(1, d_model, 2, dtype=np.float64)\n"
                "    pe[:, 1::2] = np.cos(positions / np.power(10000.0, odd / d_model))",
            ),
        ),
    ),
    _c(
        "shift-frequency-i-not-2i",
        L03,
        "relative_shift",
        "uses 10000^(i / d_model) with i the pair index instead of 10000^(2i / d_model).",
        AUTHOR,
        (r"2i", r"exponent", r"frequenc", r"pair index"),
        (r"transpos", r"sign", r"ignores k"),
        (
            (
                "theta = k / np.power(10000.0, two_i / d_model)",
                "theta = k / np.power(10000.0, two_i / 2 / d_model)",
            ),
        ),
    ),
    _c(
        "posenc-in-place-add",
        L03,
        "PositionalEncoding",
        "adds the encoding to x in place (x += ...), modifying the caller's tensor.",
        AUTHOR,
        (r"in[- ]place", r"modif", r"\+=", r"caller"),
        (r"buffer", r"dropout", r"float64"),
        (
            (
                "return self.dropout(x + self.pe[:, :length])",
                "x += self.pe[:, :length]\n        return self.dropout(x)",
            ),
        ),
    ),
    # ------------------------------------------------------------------ 04 attention
    _c(
        "softmax-max-last-axis",
        L04,
        "softmax",
        "subtracts the maximum taken over the last axis while normalising along `axis`, so "
        "for axis != -1 each entry of a slice is shifted by a different amount.",
        SOFTMAX_AXIS,
        (r"max.{0,60}(axis|last)", r"(axis|last).{0,60}max", r"same axis"),
        (r"keepdims", r"in place", r"overflow"),
        (
            (
                "peak = np.max(x, axis=axis, keepdims=True)",
                "peak = np.max(x, axis=-1, keepdims=True)",
            ),
        ),
    ),
    _c(
        "sdpa-scale-inverted",
        L04,
        "scaled_dot_product_attention",
        "divides the scores by d_k ** -0.5, i.e. multiplies them by sqrt(d_k) instead of dividing.",
        SCALE_INVERTED,
        (r"multipl", r"invert", r"d_k \*\* -0\.5", r"instead of divid", r"sqrt\(d_k\)"),
        (r"mask", r"d_v", r"length", r"dim"),
        (("/ math.sqrt(d_k)", "/ d_k**-0.5"),),
    ),
    _c(
        "sdpa-additive-mask-polarity",
        L04,
        "scaled_dot_product_attention",
        "turns the bool mask into an additive one with the polarity inverted: -1e9 is added "
        "where the mask is True (allowed) instead of where it is False.",
        MASK_POLARITY,
        (
            r"invert",
            r"polarity",
            r"True.{0,40}(allowed|attend)",
            r"blocks? the allowed",
            r"~mask",
            r"revers",
        ),
        (r"after (the )?softmax", r"zero instead", r"dim"),
        (
            (
                'scores = scores.masked_fill(~mask, float("-inf"))',
                "scores = scores + mask.float() * -1e9",
            ),
        ),
    ),
    _c(
        "row-keys-as-values",
        L04,
        "attention_row",
        "sums the key rows with the weights instead of the value rows.",
        AUTHOR,
        (
            r"keys? (instead|rather)",
            r"values? (instead|rather)",
            r"weights @ values",
            r"value rows",
        ),
        (r"scale", r"softmax", r"sum"),
        (("output = weights @ values", "output = weights @ keys"),),
    ),
]
