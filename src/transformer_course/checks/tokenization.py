"""Checks for lesson 01: tokenization, vocabularies, padding and byte-pair encoding."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np

from transformer_course.checking import Checker, numpy_rng
from transformer_course.reference import tokenization as ref
from transformer_course.registry import Exercise

# ----------------------------------------------------------------------------- inputs
VISIBLE_TEXTS = [
    "Hello, I love you!",
    "The ball is blue.",
    "Hi   how are you?",
    "Wait... what?!",
    "",
]
HIDDEN_TEXTS = [
    "The black cat drank the milk... didn't it?!",
    "La bola es azul; ¿verdad?",
    "Ünïcödé wörds, 42 numbers & snake_case",
    "  tabs\tand\nnewlines  ",
    "(nested [brackets]) -- dashes",
]

_WORDS = ["cat", "dog", "milk", "blue", "ball", "the", "a", "drank", "is", "red"]


def _random_token_lists(seed: int, n: int = 6) -> list[list[str]]:
    rng = numpy_rng(seed)
    return [
        [_WORDS[int(i)] for i in rng.integers(0, len(_WORDS), size=int(rng.integers(0, 8)))]
        for _ in range(n)
    ]


def _split_only(text: str) -> list[str]:
    return text.lower().split()


# -------------------------------------------------------------------------- tokenize
def check_tokenize(tokenize, *, hidden: bool = False) -> None:
    with Checker("tokenize", hidden=hidden) as c:
        c.require_callable(tokenize)
        for text in HIDDEN_TEXTS if hidden else VISIBLE_TEXTS:
            what = f"tokenize({text!r})"
            got = c.call(tokenize, text)
            c.expect_type(got, list, what, "Return a Python list of strings.")
            for token in got:
                c.expect_type(token, str, f"every token of {what}", f"Found {token!r}.")
            expected = ref.tokenize(text)
            c.expect_equal(
                got,
                expected,
                what,
                hint="Words are runs of letters, digits or '_' (re's \\w); every other non-space "
                "character is a token on its own; everything is lower-cased.",
                mistakes={
                    "It looks like you did not lower-case the text first.": re.findall(
                        r"\w+|[^\w\s]", text
                    ),
                    "It looks like you split on whitespace only: punctuation must become tokens "
                    "of its own ('hello,' should be 'hello' and ',').": _split_only(text),
                    "Punctuation disappeared: it must be kept, as tokens of its own.": re.findall(
                        r"\w+", text.lower()
                    ),
                    "Runs of punctuation ('...', '?!') must be split into one token per character.": (
                        re.findall(r"\w+|[^\w\s]+", text.lower())
                    ),
                    "Empty strings slipped in: splitting on a pattern leaves '' between adjacent "
                    "separators; drop them.": re.split(
                        r"\s+|(?=[^\w\s])|(?<=[^\w\s])", text.lower()
                    ),
                },
            )


# ------------------------------------------------------------------------ build_vocab
def _vocab_without_specials(token_lists, min_freq=1):
    counts = Counter(t for tokens in token_lists for t in tokens)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return {t: i for i, (t, n) in enumerate(ranked) if n >= min_freq}


def _vocab_first_seen(token_lists, min_freq=1):
    counts = Counter(t for tokens in token_lists for t in tokens)
    vocab = {t: i for i, t in enumerate(ref.SPECIAL_TOKENS)}
    for token, n in counts.most_common():  # ties in order of first appearance
        if n >= min_freq and token not in vocab:
            vocab[token] = len(vocab)
    return vocab


def _vocab_ascending(token_lists, min_freq=1):
    counts = Counter(t for tokens in token_lists for t in tokens)
    vocab = {t: i for i, t in enumerate(ref.SPECIAL_TOKENS)}
    for token, n in sorted(counts.items(), key=lambda item: (item[1], item[0])):
        if n >= min_freq and token not in vocab:
            vocab[token] = len(vocab)
    return vocab


def _vocab_alphabetical(token_lists, min_freq=1):
    counts = Counter(t for tokens in token_lists for t in tokens)
    vocab = {t: i for i, t in enumerate(ref.SPECIAL_TOKENS)}
    for token in sorted(counts):
        if counts[token] >= min_freq and token not in vocab:
            vocab[token] = len(vocab)
    return vocab


def _vocab_strict_min_freq(token_lists, min_freq=1):
    return ref.build_vocab(token_lists, min_freq=min_freq + 1)


def check_build_vocab(build_vocab, *, hidden: bool = False) -> None:
    with Checker("build_vocab", hidden=hidden) as c:
        c.require_callable(build_vocab)
        if hidden:
            cases = [(_random_token_lists(seed), m) for seed, m in ((11, 1), (12, 2), (13, 3))]
            cases.append(([["<unk>", "cat", "cat"], ["<pad>", "dog"]], 1))
            cases.append(([], 1))
        else:
            cases = [
                ([["the", "cat", "sat"], ["the", "dog", "sat"], ["the", "end"]], 1),
                ([["b", "a", "b"], ["a", "c"], ["d"]], 2),
            ]
        for token_lists, min_freq in cases:
            what = f"build_vocab({token_lists!r}, min_freq={min_freq})"
            got = c.call(build_vocab, [list(t) for t in token_lists], min_freq=min_freq)
            c.expect_type(got, dict, what, "Return a dict mapping each token to its id.")
            expected = ref.build_vocab(token_lists, min_freq)
            specials = {t: got.get(t) for t in ref.SPECIAL_TOKENS}
            c.expect_equal(
                specials,
                {t: i for i, t in enumerate(ref.SPECIAL_TOKENS)},
                f"the special tokens in {what}",
                hint="They come first, in this order: <pad>=0, <unk>=1, <bos>=2, <eos>=3, "
                "whatever the data contains.",
            )
            c.expect_equal(
                sorted(got.values()),
                list(range(len(got))),
                f"the ids of {what}",
                hint="Ids must be 0, 1, 2, ... with no gaps or repeats (use len(vocab) as the next id).",
            )
            c.expect_equal(
                got,
                expected,
                what,
                hint="After the specials: tokens seen at least min_freq times, most frequent first, "
                "ties in alphabetical order.",
                mistakes={
                    "Ties must be broken alphabetically; yours keep the order of first appearance "
                    "(Counter.most_common does that).": _vocab_first_seen(token_lists, min_freq),
                    "Most frequent tokens come first: sort by descending count.": _vocab_ascending(
                        token_lists, min_freq
                    ),
                    "Order by frequency first (descending) and use the alphabet only to break ties.": (
                        _vocab_alphabetical(token_lists, min_freq)
                    ),
                    "A token seen exactly min_freq times belongs in the vocabulary (count >= min_freq, "
                    "not >).": _vocab_strict_min_freq(token_lists, min_freq),
                    "min_freq was ignored: drop tokens seen fewer than min_freq times.": (
                        ref.build_vocab(token_lists, 1) if min_freq > 1 else None
                    ),
                },
            )


# ----------------------------------------------------------------------------- encode
_VOCAB = ref.build_vocab([["the", "cat", "drank", "the", "milk", "."]])


def check_encode(encode, *, hidden: bool = False) -> None:
    with Checker("encode", hidden=hidden) as c:
        c.require_callable(encode)
        if hidden:
            vocab = ref.build_vocab(_random_token_lists(21))
            cases = [[*tokens, "zebra"] for tokens in _random_token_lists(22)] + [[]]
        else:
            vocab = _VOCAB
            cases = [["the", "cat", "drank", "the", "milk", "."], ["the", "dog", "drank", "tea"]]
        for tokens in cases:
            what = f"encode({tokens!r}, vocab)"
            got = c.call(encode, list(tokens), dict(vocab))
            c.expect_type(got, list, what, "Return a list of ints.")
            expected = ref.encode(tokens, vocab)
            c.expect_equal(
                [int(i) for i in got] if all(isinstance(i, int | np.integer) for i in got) else got,
                expected,
                what,
                hint=f"Look each token up in vocab (vocab is {dict(list(vocab.items())[:8])}...).",
                mistakes={
                    "Unknown tokens must become the id of <unk> (1), not be skipped.": [
                        vocab[t] for t in tokens if t in vocab
                    ],
                    "Unknown tokens must become the id of <unk> (1), not <pad> (0).": [
                        vocab.get(t, 0) for t in tokens
                    ],
                    "Don't add <bos>/<eos> here: encode maps exactly one id per token.": [
                        ref.BOS_ID,
                        *expected,
                        ref.EOS_ID,
                    ],
                },
            )


# ----------------------------------------------------------------------------- decode
def check_decode(decode, *, hidden: bool = False) -> None:
    with Checker("decode", hidden=hidden) as c:
        c.require_callable(decode)
        if hidden:
            vocab = ref.build_vocab(_random_token_lists(31))
            rng = numpy_rng(32)
            cases = [list(rng.integers(0, len(vocab), size=n)) for n in (1, 5, 9)]
            cases.append(np.array([2, 5, 3, 0, 0], dtype=np.int64))
            cases.append([])
        else:
            vocab = _VOCAB
            cases = [[4, 5, 6, 4, 7, 8], [2, 4, 1, 3, 0]]
        for ids in cases:
            what = f"decode({[int(i) for i in ids]}, vocab)"
            got = c.call(decode, ids, dict(vocab))
            c.expect_type(got, list, what, "Return a list of token strings.")
            c.expect_equal(
                got,
                ref.decode(ids, vocab),
                what,
                hint="Invert the vocab ({id: token}) and look each id up; keep special tokens.",
                mistakes={
                    "Special tokens (<pad>, <unk>, <bos>, <eos>) must be decoded too, not dropped: "
                    "decode is the exact inverse of encode.": [
                        t for t in ref.decode(ids, vocab) if t not in ref.SPECIAL_TOKENS
                    ],
                },
            )


# --------------------------------------------------------------------------- pad_batch
def check_pad_batch(pad_batch, *, hidden: bool = False) -> None:
    with Checker("pad_batch", hidden=hidden) as c:
        c.require_callable(pad_batch)
        if hidden:
            rng = numpy_rng(41)
            cases = [
                ([list(rng.integers(4, 50, size=n)) for n in (3, 1, 7, 7, 2)], 0),
                ([[5, 6], [], [7]], 0),
                ([[9, 9, 9], [8]], 99),
                ([[9, 9, 9]], 7),
                ([[], []], 0),
            ]
        else:
            cases = [([[5, 6, 7], [8], [9, 10]], 0), ([[4, 5], [6, 7, 8, 9]], 3)]
        for sequences, pad_id in cases:
            seqs = [[int(i) for i in s] for s in sequences]
            what = f"pad_batch({seqs}, pad_id={pad_id})"
            got = c.call(pad_batch, [list(s) for s in seqs], pad_id)
            expected = ref.pad_batch(seqs, pad_id)
            c.expect_type(got, np.ndarray, what, "Return a numpy array (np.full / np.array).")
            c.expect_shape(
                got,
                expected.shape,
                what,
                "The shape is (batch, max_len): one row per sequence, as long as the longest one.",
            )
            c.expect_integer_dtype(got, what)
            left = np.full_like(expected, pad_id)
            for row, seq in enumerate(seqs):
                if seq:
                    left[row, -len(seq) :] = seq
            c.expect_equal(
                np.asarray(got),
                expected,
                what,
                hint=f"Each row holds its sequence, then pad_id={pad_id} up to max_len.",
                mistakes={
                    "Pad on the right: the tokens come first, then the padding.": left,
                    "Fill with the pad_id you were given, not a hard-coded 0.": ref.pad_batch(
                        seqs, 0
                    ),
                },
            )


# ------------------------------------------------------------------------------- BPE
_CLASSIC = "aaabdaaabac"


def _pairs_non_overlapping(ids):
    counts: dict[tuple[int, int], int] = {}
    i = 0
    while i + 1 < len(ids):
        pair = (ids[i], ids[i + 1])
        counts[pair] = counts.get(pair, 0) + 1
        i += 2 if ids[i] == ids[i + 1] else 1
    return counts


def _random_ids(seed: int, n: int, high: int = 4) -> list[int]:
    return [int(i) for i in numpy_rng(seed).integers(0, high, size=n)]


def check_get_pair_counts(get_pair_counts, *, hidden: bool = False) -> None:
    with Checker("get_pair_counts", hidden=hidden) as c:
        c.require_callable(get_pair_counts)
        if hidden:
            cases = [_random_ids(seed, n) for seed, n in ((51, 12), (52, 30), (53, 2))] + [[7], []]
        else:
            cases = [list(_CLASSIC.encode()), [1, 1, 1], [5, 6, 5, 6], [1, 2, 3, 3, 3, 3]]
        for ids in cases:
            what = f"get_pair_counts({ids})"
            got = c.call(get_pair_counts, list(ids))
            c.expect_type(got, dict, what, "Return a dict {(a, b): count}.")
            expected = ref.get_pair_counts(ids)
            c.expect_equal(
                dict(got),
                expected,
                what,
                hint="Count every adjacent pair ids[i], ids[i+1] for i = 0 .. len(ids)-2.",
                mistakes={
                    "Pairs overlap: in [1, 1, 1] the pair (1, 1) occurs twice (positions 0 and 1). "
                    "Don't skip ahead after counting a pair.": _pairs_non_overlapping(ids),
                    "The last pair is missing: loop up to len(ids) - 1, not len(ids) - 2.": (
                        ref.get_pair_counts(ids[:-1]) if len(ids) > 2 else None
                    ),
                },
            )
            c.expect_equal(
                list(got),
                list(expected),
                f"the order of the keys of {what}",
                hint="Keep pairs in the order they first occur (a plain dict does that when you "
                "count left to right): train_bpe breaks ties by first occurrence.",
            )


def check_merge_pair(merge_pair, *, hidden: bool = False) -> None:
    with Checker("merge_pair", hidden=hidden) as c:
        c.require_callable(merge_pair)
        if hidden:
            cases = []
            for seed in (61, 62, 63):
                ids = _random_ids(seed, 20, high=3)
                cases.append((ids, (ids[3], ids[4]), 300 + seed))
            cases += [([1, 1, 1, 1, 1], (1, 1), 9), ([2], (2, 2), 9), ([], (1, 2), 9)]
        else:
            a = list(_CLASSIC.encode())
            cases = [(a, (97, 97), 256), ([1, 1, 1], (1, 1), 4), ([5, 6, 7], (6, 5), 8)]
        for ids, pair, new_id in cases:
            what = f"merge_pair({ids}, {pair}, {new_id})"
            original = list(ids)
            got = c.call(merge_pair, ids, pair, new_id)
            c.expect_equal(ids, original, f"the input list after {what}",
                           hint="Don't modify the list you were given; build a new one.")  # fmt: skip
            c.expect_type(got, list, what, "Return a new list of ids.")
            expected = ref.merge_pair(ids, pair, new_id)
            naive = []
            for i, token in enumerate(ids):
                if i + 1 < len(ids) and (token, ids[i + 1]) == pair:
                    naive.append(new_id)
                elif i > 0 and (ids[i - 1], token) == pair:
                    continue
                else:
                    naive.append(token)
            c.expect_equal(
                got,
                expected,
                what,
                hint="Scan left to right; where ids[i], ids[i+1] equal the pair, emit new_id and "
                "skip two positions, otherwise emit ids[i] and move one.",
                mistakes={
                    "After a merge, skip *both* merged ids: [1, 1, 1] with (1, 1) becomes [X, 1], "
                    "not [X, X] or [X].": naive,
                    "The last id went missing: when no merge happens at the final position, it "
                    "still has to be copied.": expected[:-1] if expected else None,
                },
            )


def check_train_bpe(train_bpe, *, hidden: bool = False) -> None:
    with Checker("train_bpe", hidden=hidden) as c:
        c.require_callable(train_bpe)
        if hidden:
            cases = [
                ("the cat sat on the mat; the cat ate the rat", 10),
                ("abababab cdcdcd", 6),
                ("héllo wörld, héllo wörld", 8),
                ("ab", 5),
                ("", 3),
            ]
        else:
            cases = [(_CLASSIC, 3), ("aaaa", 2)]
        for text, num_merges in cases:
            what = f"train_bpe({text!r}, {num_merges})"
            got = c.call(train_bpe, text, num_merges)
            c.expect_type(got, dict, what, "Return a dict {(a, b): new_id} in the order learned.")
            expected = ref.train_bpe(text, num_merges)
            c.expect_equal(
                list(got.values()),
                list(expected.values()),
                f"the new ids of {what}",
                hint="The i-th merge (counting from 0) gets id 256 + i; stop early when fewer "
                "than two ids remain.",
            )
            ties_last = _train_bpe_ties_last(text, num_merges)
            c.expect_equal(
                list(got.items()),
                list(expected.items()),
                what,
                hint="Each step: count pairs on the *current* ids, merge the most frequent pair "
                "(ties: the pair that occurs first), then repeat.",
                mistakes={
                    "A tie was broken the wrong way: among equally frequent pairs, pick the one "
                    "that occurs first (max() over the ordered dict does that; sorted(...)[-1] "
                    "does not).": list(ties_last.items()),
                },
            )


def _train_bpe_ties_last(text, num_merges):
    ids = list(text.encode("utf-8"))
    merges = {}
    for step in range(num_merges):
        counts = ref.get_pair_counts(ids)
        if not counts:
            break
        top = max(counts.values())
        best = [p for p in counts if counts[p] == top][-1]
        ids = ref.merge_pair(ids, best, 256 + step)
        merges[best] = 256 + step
    return merges


HIDDEN_BPE_TEXTS = [
    "the cat sat on the mat",
    "naïve café, déjà vu — 東京 🙂",
    "aaaaaaa",
    "",
]


def check_bpe_encode(bpe_encode, *, hidden: bool = False) -> None:
    with Checker("bpe_encode", hidden=hidden) as c:
        c.require_callable(bpe_encode)
        if hidden:
            merges = ref.train_bpe("the cat sat on the mat. the cat ate. café déjà", 12)
            cases = [(t, merges) for t in HIDDEN_BPE_TEXTS]
            cases.append(("abcabc", {(98, 99): 256, (97, 98): 257, (97, 256): 258}))
        else:
            merges = ref.train_bpe(_CLASSIC, 3)
            cases = [(_CLASSIC, merges), ("aaab", merges), ("café", merges)]
        for text, m in cases:
            what = f"bpe_encode({text!r}, merges)"
            got = c.call(bpe_encode, text, dict(m))
            c.expect_type(got, list, what, "Return a list of ids.")
            expected = ref.bpe_encode(text, m)
            c.expect_equal(
                [int(i) for i in got],
                expected,
                what,
                hint="Start from the UTF-8 bytes (list(text.encode('utf-8'))), then repeatedly "
                "apply the earliest-learned merge that still occurs.",
                mistakes={
                    "Start from UTF-8 bytes, not characters: ord(ch) differs from the bytes for "
                    "anything outside ASCII.": [ord(ch) for ch in text],
                }
                if any(ord(ch) > 127 for ch in text)
                else {},
            )


def _decode_per_token(ids, merges):
    table = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        table[new_id] = table[a] + table[b]
    return "".join(table[i].decode("utf-8", errors="replace") for i in ids)


def check_bpe_decode(bpe_decode, *, hidden: bool = False) -> None:
    with Checker("bpe_decode", hidden=hidden) as c:
        c.require_callable(bpe_decode)
        if hidden:
            merges = ref.train_bpe("the cat sat on the mat. café déjà 東京 東京", 15)
            texts = [*HIDDEN_BPE_TEXTS, "東京 café"]
        else:
            merges = ref.train_bpe(_CLASSIC, 3)
            texts = [_CLASSIC, "abcd", "héllo"]
        for text in texts:
            ids = ref.bpe_encode(text, merges)
            what = f"bpe_decode({ids}, merges)"
            got = c.call(bpe_decode, list(ids), dict(merges))
            c.expect_type(got, str, what, "Return the decoded text as a str.")
            c.expect_equal(
                got,
                text,
                what,
                hint="Build a table id -> bytes (0..255 are single bytes; each merge (a, b) -> new_id "
                "is table[a] + table[b], in learned order), join the bytes, then .decode('utf-8').",
                mistakes={
                    "Decode the joined bytes once at the end: decoding token by token breaks "
                    "characters whose UTF-8 bytes ended up in different tokens.": _decode_per_token(
                        ids, merges
                    ),
                },
            )


# ---------------------------------------------------------------------------- registry
LESSON = "01_tokenization"
EXERCISES = (
    Exercise("tokenize", check_tokenize, kind="function", points=2, minutes=10, level=1),
    Exercise("build_vocab", check_build_vocab, kind="function", points=2, minutes=15, level=2),
    Exercise("encode", check_encode, kind="function", points=1, minutes=5, level=1),
    Exercise("decode", check_decode, kind="function", points=1, minutes=5, level=1),
    Exercise("pad_batch", check_pad_batch, kind="function", points=1, minutes=10, level=2),
    Exercise(
        "get_pair_counts", check_get_pair_counts, kind="function", points=1, minutes=10, level=1
    ),
    Exercise("merge_pair", check_merge_pair, kind="function", points=1, minutes=15, level=2),
    Exercise("train_bpe", check_train_bpe, kind="function", points=2, minutes=20, level=3),
    Exercise("bpe_encode", check_bpe_encode, kind="function", points=2, minutes=20, level=3),
    Exercise("bpe_decode", check_bpe_decode, kind="function", points=1, minutes=10, level=2),
)
