"""Checks for lesson 01: tokenization, vocabularies, padding and byte-pair encoding.

What each check requires is what the concept needs; incidental choices are
accepted in every reasonable form:

* sequences of tokens or ids may come back as a list or a tuple (ids also as a
  1-D integer numpy array or torch tensor); ids may be Python or numpy integers;
* ``build_vocab``, ``get_pair_counts`` and ``train_bpe`` may return any dict
  (``Counter``, ``defaultdict``, ``OrderedDict``, ...);
* ``pad_batch`` may return a numpy array or a torch tensor of any integer dtype
  (an empty batch, with no values at all, of any dtype);
* ``train_bpe`` may also stop as soon as no pair occurs more than once (as
  Sennrich et al.'s subword-nmt does with its default ``min_frequency=2``).

What is taught, and required with its own message: the special tokens and their
ids, the vocabulary's order (most frequent first, ties alphabetical), ``<unk>``
for unknown tokens, right-padding, overlapping pair counts listed in the order of
first occurrence, non-overlapping merges, first-occurrence tie-breaking, new ids
256 + i, merges applied by rank, and decoding the joined bytes once.
"""

from __future__ import annotations

import contextlib
import io
import re
from collections import Counter

import numpy as np

from transformer_course.checking import Checker, CheckFailure, numpy_rng, short
from transformer_course.checking.hints import two_mistakes
from transformer_course.checking.quiz import Quiz, quiz_check
from transformer_course.exercise import Exercise
from transformer_course.reference import tokenization as ref

__all__ = [
    "check_bpe_decode",
    "check_bpe_encode",
    "check_build_vocab",
    "check_decode",
    "check_encode",
    "check_get_pair_counts",
    "check_merge_pair",
    "check_pad_batch",
    "check_quiz_merge_order",
    "check_quiz_unk",
    "check_tokenize",
    "check_train_bpe",
]


# ------------------------------------------------------------------ shared helpers
_WORDS = ["cat", "dog", "milk", "blue", "ball", "the", "a", "drank", "is", "red"]


def _random_token_lists(seed: int, n: int = 6) -> list[list[str]]:
    rng = numpy_rng(seed)
    return [
        [_WORDS[int(i)] for i in rng.integers(0, len(_WORDS), size=int(rng.integers(0, 8)))]
        for _ in range(n)
    ]


def _is_int(value) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


def _tokens(c: Checker, got, what: str, hint: str) -> list[str]:
    """A list or tuple of strings, as a list."""
    c.expect_type(got, (list, tuple), what, hint)
    for token in got:
        c.expect_type(token, str, f"every token of {what}", f"Found {short(token)}.")
    return list(got)


def _ids(c: Checker, got, what: str, hint: str = "Return a list of ids (ints).") -> list[int]:
    """A list or tuple of integers, or a 1-D integer array or tensor, as a list of ints."""
    if hasattr(got, "dtype") and hasattr(got, "tolist") and getattr(got, "ndim", 0) == 1:
        c.expect_integer_dtype(got, what)
        got = got.tolist()
    c.expect_type(got, (list, tuple), what, hint)
    wrong = [item for item in got if not _is_int(item)]
    c.expect_true(
        not wrong,
        f"{what} should hold integer ids, but it contains {short(wrong[0], 60) if wrong else ''} "
        f"({type(wrong[0]).__name__ if wrong else ''}). {hint}",
    )
    return [int(item) for item in got]


# -------------------------------------------------------------------------- tokenize
_VISIBLE_TEXTS = [
    "Hello, I love you!",
    "The ball is blue.",
    "Hi   how are you?",
    "Wait... what?!",
    "Déjà vu:\t2 snake_case\nwords",
    "She didn't.",
    "",
]
_HIDDEN_TEXTS = [
    "The black cat drank the milk... didn't it?!",
    "La bola es azul; ¿verdad?",
    "Ünïcödé wörds, 42 numbers & snake_case",
    "  tabs\tand\nnewlines  ",
    "(nested [brackets]) -- dashes",
]


def check_tokenize(tokenize, *, hidden: bool = False) -> None:
    """Check ``tokenize(text)``: lower-cased words (runs of ``\\w``) and single
    punctuation marks, whitespace dropped; a list or a tuple of str is accepted."""
    with Checker("tokenize", hidden=hidden) as c:
        c.require_callable(tokenize)
        runs = []
        for text in _HIDDEN_TEXTS if hidden else _VISIBLE_TEXTS:
            what = f"tokenize({text!r})"
            got = _tokens(c, c.call(tokenize, text), what, "Return a list of strings.")
            runs.append((text, what, got))
        # A mistake (or a pair) is named first when it agrees with every text run, not just
        # the first wrong one (on a text without capitals, "no lower-casing" is invisible).
        singles = [_tokenize_mistakes(text) for text, _, _ in runs]
        pairs = [_tokenize_pairs(text) for text, _, _ in runs]

        def agreeing(tables):
            return [
                m for m in tables[0] if all(t[m] == got for t, (_, _, got) in zip(tables, runs))
            ]

        every_single, every_pair = agreeing(singles), agreeing(pairs)
        for (text, what, got), single, pair in zip(runs, singles, pairs, strict=True):
            if every_single:
                single, pair = {m: single[m] for m in every_single}, None
            elif len(every_pair) == 1:
                single, pair = {}, {every_pair[0]: pair[every_pair[0]]}
            c.expect_equal(
                got,
                ref.tokenize(text),
                what,
                hint="Words are runs of letters, digits or '_' (re's \\w); every other non-space "
                "character is a token on its own; everything is lower-cased.",
                mistakes=single,
                pairs=pair,
            )


_NO_LOWER = "It looks like you did not lower-case the text first."
#: (diagnosis, (how, pattern)): each splitting mistake, applied to the lower-cased text;
#: how is "findall" (re.findall), "split" (re.split), "split_kept" (re.split, empty
#: strings dropped) or "str" (str.split)
_SPLIT_MISTAKES: dict[str, tuple[str, str]] = {
    "It looks like you split on whitespace only: punctuation must become tokens "
    "of its own ('hello,' should be 'hello' and ',').": ("str", ""),
    "Punctuation disappeared: it must be kept, as tokens of its own.": ("findall", r"\w+"),
    "Runs of punctuation ('...', '?!') must be split into one token per character.": (
        "findall",
        r"\w+|[^\w\s]+",
    ),
    "Empty strings slipped in: splitting on a pattern leaves '' between adjacent "
    "separators; drop them.": ("split", r"\s+|(?=[^\w\s])|(?<=[^\w\s])"),
    "Words are made of letters of any script, digits and underscores ('déjà', "
    "'2', 'snake_case' are one token each): [a-z] matches only the 26 ASCII "
    "letters, while \\w matches them all.": ("findall", r"[a-z]+|[^a-z\s]"),
    "Letters outside ASCII ('é', 'à', 'ü') are letters too: 'déjà' is one word. "
    "[a-z0-9_] misses them, while \\w matches every script.": ("findall", r"[a-z0-9_]+|[^\w\s]"),
    "An apostrophe is punctuation like any other: 'didn't' is 'didn', \"'\", 't' "
    "(crude, and one reason real tokenizers use subwords).": ("findall", r"[\w']+|[^\w\s]"),
    "Tabs and newlines are whitespace too: they separate tokens and never are "
    "tokens (\\s matches every kind of whitespace; ' ' only the space).": (
        "findall",
        r"\w+|[^\w ]",
    ),
    "The spaces came back as tokens (' '): splitting on every non-word character with a "
    "capturing group, re.split(r'(\\W)', ...), keeps each separator, spaces included. "
    "Whitespace separates tokens and is never one: drop it (or use re.findall(r'\\w+|"
    "[^\\w\\s]', ...)).": ("split_kept", r"(\W)"),
    "Spaces (' ') and empty strings ('') came back as tokens: re.split(r'(\\W)', ...) keeps "
    "each separator its capturing group matched, spaces included, and leaves '' between "
    "two adjacent separators and at the ends. Whitespace separates tokens and is never one, "
    "and '' is no token: drop both (or use re.findall(r'\\w+|[^\\w\\s]', ...)).": (
        "split",
        r"(\W)",
    ),
}


def _split(rule: tuple[str, str], text: str) -> list[str]:
    how, pattern = rule
    if how == "str":
        return text.split()
    if how == "split_kept":  # the separators kept, empty strings dropped
        return [piece for piece in re.split(pattern, text) if piece]
    return re.split(pattern, text) if how == "split" else re.findall(pattern, text)


def _tokenize_mistakes(text: str) -> dict[str, list[str]]:
    """Each known tokenising mistake alone: {diagnosis: the tokens it gives for text}."""
    out = {_NO_LOWER: re.findall(r"\w+|[^\w\s]", text)}
    out.update({message: _split(rule, text.lower()) for message, rule in _SPLIT_MISTAKES.items()})
    return out


def _tokenize_pairs(text: str) -> dict[str, list[str]]:
    """Two mistakes at once: no lower-casing and one wrong splitting rule (independent
    knobs). Without lower-casing, an ASCII letter class [a-z] is taken as [A-Za-z], the
    letters a learner who keeps the case writes."""
    return {
        two_mistakes(_NO_LOWER, message): _split((how, pattern.replace("a-z", "A-Za-z")), text)
        for message, (how, pattern) in _SPLIT_MISTAKES.items()
    }


# ------------------------------------------------------------------------ build_vocab
def _vocab_after(ranked, min_freq):
    vocab = {token: index for index, token in enumerate(ref.SPECIAL_TOKENS)}
    for token, count in ranked:
        if count >= min_freq and token not in vocab:
            vocab[token] = len(vocab)
    return vocab


def _vocab_first_seen(token_lists, min_freq=1):
    counts = Counter(t for tokens in token_lists for t in tokens)
    return _vocab_after(counts.most_common(), min_freq)  # ties in order of first appearance


def _vocab_ascending(token_lists, min_freq=1):
    counts = Counter(t for tokens in token_lists for t in tokens)
    return _vocab_after(sorted(counts.items(), key=lambda item: (item[1], item[0])), min_freq)


def _vocab_in_order_seen(token_lists, min_freq=1):
    counts = Counter(t for tokens in token_lists for t in tokens)
    return _vocab_after(counts.items(), min_freq)  # Counter keeps first-appearance order


def _vocab_ties_reversed(token_lists, min_freq=1):
    counts = Counter(t for tokens in token_lists for t in tokens)
    ranked = sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
    return _vocab_after(ranked, min_freq)


def _vocab_alphabetical(token_lists, min_freq=1):
    counts = Counter(t for tokens in token_lists for t in tokens)
    return _vocab_after(sorted(counts.items()), min_freq)


def _vocab_once_per_list(token_lists, min_freq=1):
    """Counts each token once per token list (set(tokens)): None where no list repeats
    a token (it cannot show there)."""
    if all(len(set(tokens)) == len(tokens) for tokens in token_lists):
        return None
    counts = Counter(t for tokens in token_lists for t in set(tokens))
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return _vocab_after(ordered, min_freq)


_VOCAB_ORDER_HINT = (
    "After the specials: tokens seen at least min_freq times, most frequent first, ties in "
    "alphabetical order."
)


_VOCAB_STRICT = (
    "A token seen exactly min_freq times belongs in the vocabulary (count >= min_freq, not >)."
)


def _vocab_mistakes(token_lists, min_freq) -> dict:
    """{diagnosis: the vocabulary that mistake builds (None where it cannot show)}, then
    each ordering or counting mistake together with a strict min_freq (two at once)."""
    single = _vocab_single_mistakes(token_lists, min_freq)
    strict_too = _vocab_single_mistakes(token_lists, min_freq + 1)
    return {
        **single,
        **{
            two_mistakes(_VOCAB_STRICT, message): value
            for message, value in strict_too.items()
            if message != _VOCAB_STRICT and not message.startswith("min_freq was ignored")
        },
    }


def _vocab_single_mistakes(token_lists, min_freq) -> dict:
    return {
        "Ties must be broken alphabetically; yours keep the order of first appearance "
        "(Counter.most_common does that).": _vocab_first_seen(token_lists, min_freq),
        "Your ids follow the order in which the tokens first appear (as a dict filled "
        "while reading the data does): sort them by descending count first, ties "
        "alphabetical.": _vocab_in_order_seen(token_lists, min_freq),
        "Most frequent tokens come first: sort by descending count, and use the alphabet "
        "only to break ties.": _vocab_ascending(token_lists, min_freq),
        "Order by frequency first (descending) and use the alphabet only to break ties.": (
            _vocab_alphabetical(token_lists, min_freq)
        ),
        "Ties come in reverse alphabetical order: sorting by (count, token) with "
        "reverse=True reverses the tie-break too. Sort by (-count, token) without "
        "reverse: key=lambda item: (-item[1], item[0]).": _vocab_ties_reversed(
            token_lists, min_freq
        ),
        _VOCAB_STRICT: ref.build_vocab(token_lists, min_freq + 1),
        "Your counts take each token once per token list (as set(tokens) does): count "
        "every occurrence, so a token repeated within one list counts each time.": (
            _vocab_once_per_list(token_lists, min_freq)
        ),
        "min_freq was ignored: drop tokens seen fewer than min_freq times.": (
            ref.build_vocab(token_lists, 1) if min_freq > 1 else None
        ),
    }


def _expect_no_state_between_calls(c, build_vocab, got, token_lists, min_freq, what) -> None:
    """Tokens that are not in this call's data: kept from an earlier call (a dict that
    outlives the call) if a probe call's token then shows up in a repeat of this call."""
    seen = {t for tokens in token_lists for t in tokens} | set(ref.SPECIAL_TOKENS)
    foreign = [t for t in got if t not in seen]
    if not foreign:
        return
    probe = "<probe-token>"
    c.call(build_vocab, [[probe]], min_freq=1, call_repr=f"build_vocab([[{probe!r}]])")
    again = c.call(build_vocab, [list(t) for t in token_lists], min_freq=min_freq)
    shown = ", ".join(repr(t) for t in foreign[:5]) + (", ..." if len(foreign) > 5 else "")
    if isinstance(again, dict) and probe in again:
        c.fail(
            f"{what} returned tokens that are not in its input ({shown}), and after a call "
            f"build_vocab([[{probe!r}]]) the same call returns {probe!r} too: your vocabulary "
            "keeps the tokens of earlier calls. The dict you add to outlives the call (a "
            "module-level dict of the specials, or a default argument, updated without a "
            "copy). Start every call from a new dict: "
            "{token: i for i, token in enumerate(SPECIAL_TOKENS)}, or dict(...) / .copy()."
        )
    c.fail(
        f"{what} returned tokens that are not in its input: {shown}. The vocabulary holds "
        "the four special tokens and the tokens of token_lists, nothing else."
    )


def check_build_vocab(build_vocab, *, hidden: bool = False) -> None:
    """Check ``build_vocab(token_lists, min_freq)``; any dict (a Counter, an OrderedDict)
    is accepted, its key order is not compared."""
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
                # Some corpora already contain "<unk>" (the Penn Treebank's text does).
                ([["the", "<unk>", "cat"], ["the", "<unk>", "sat"]], 1),
                # ties above min_freq + 1, first seen in neither alphabetical order: a strict
                # min_freq and each tie rule tell apart
                ([["c", "b", "a", "e", "b", "c", "a", "e", "b", "d"]], 1),
            ]
        # Every call first (a call that raises ends the list): a known ordering mistake
        # is named only if it agrees with every result collected, not just the wrong one.
        results, pending = [], None
        for token_lists, min_freq in cases:
            try:
                results.append(
                    c.call(build_vocab, [list(t) for t in token_lists], min_freq=min_freq)
                )
            except CheckFailure as failure:
                pending = failure
                break
        agreeing = {
            message
            for message in _vocab_mistakes(*cases[0])
            if all(
                isinstance(got, dict)
                and ((value := _vocab_mistakes(*case)[message]) is None or dict(got) == value)
                for case, got in zip(cases, results)
            )
        }
        for (token_lists, min_freq), got in zip(cases, results):
            what = f"build_vocab({token_lists!r}, min_freq={min_freq})"
            c.expect_type(got, dict, what, "Return a dict mapping each token to its id.")
            expected = ref.build_vocab(token_lists, min_freq)
            in_data = sorted(
                {t for tokens in token_lists for t in tokens} & set(ref.SPECIAL_TOKENS)
            )
            c.expect_equal(
                {t: got.get(t) for t in ref.SPECIAL_TOKENS},
                {t: i for i, t in enumerate(ref.SPECIAL_TOKENS)},
                f"the special tokens in {what}",
                hint="They come first, in this order: <pad>=0, <unk>=1, <bos>=2, <eos>=3, "
                "whatever the data contains."
                + (
                    f" The data contains {', '.join(in_data)}: a data token that is also a "
                    "special token keeps its special id (skip it when you add the data tokens)."
                    if in_data
                    else ""
                ),
            )
            c.expect_equal(
                sorted(got.values()),
                list(range(len(got))),
                f"the ids of {what}",
                hint="Ids must be 0, 1, 2, ... with no gaps or repeats (use len(vocab) as the next "
                "id, and skip a token that is already in the vocabulary without using up an id).",
            )
            _expect_no_state_between_calls(c, build_vocab, got, token_lists, min_freq, what)
            c.expect_equal(
                dict(got),
                expected,
                what,
                hint=_VOCAB_ORDER_HINT,
                mistakes={
                    message: value
                    for message, value in _vocab_mistakes(token_lists, min_freq).items()
                    if message in agreeing
                },
            )
        if pending is not None:
            raise pending


# ----------------------------------------------------------------------------- encode
_VOCAB = ref.build_vocab([["the", "cat", "drank", "the", "milk", "."]])


def check_encode(encode, *, hidden: bool = False) -> None:
    """Check ``encode(tokens, vocab)``: one id per token, <unk>'s id for unknown tokens."""
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
            got = c.call(
                encode,
                list(tokens),
                dict(vocab),
                mutation_hint="encode must not grow the vocabulary: it is fixed (so is the "
                "embedding table), and unknown tokens map to the id of <unk>.",
            )
            got = _ids(c, got, what)
            expected = ref.encode(tokens, vocab)
            c.expect_equal(
                got,
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
                    "Unknown tokens must become the id of <unk> (1), not a new id (len(vocab)): "
                    "the vocabulary is fixed, and that id has no row in the embedding table.": [
                        vocab.get(t, len(vocab)) for t in tokens
                    ],
                    "Don't add <bos>/<eos> here: encode maps exactly one id per token.": [
                        ref.BOS_ID,
                        *expected,
                        ref.EOS_ID,
                    ],
                },
            )


# ----------------------------------------------------------------------------- decode
_KEY_ORDER_HINT = (
    "Your decode reads the tokens by their position among the dict's keys (list(vocab)[id], "
    "or an enumerate over vocab): that holds only while the keys happen to be stored in id "
    "order. Here they are in alphabetical order, a vocab as valid as any other (build_vocab "
    "may return any dict; the order of its keys does not matter). Invert the mapping by its "
    "values: {{index: token for token, index in vocab.items()}}."
)


def check_decode(decode, *, hidden: bool = False) -> None:
    """Check ``decode(ids, vocab)``; ids come as a list or as a 1-D integer array (a row
    of a padded batch); a list or a tuple of str is accepted back. The last case's vocab
    lists its keys alphabetically (not in id order)."""
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
            cases = [[4, 5, 6, 4, 7, 8], [2, 4, 1, 3, 0], np.array([2, 4, 5, 6, 3, 0, 0])]
        runs = [(ids, dict(vocab), "vocab") for ids in cases]
        alphabetical = dict(sorted(vocab.items()))
        runs.append(
            (list(cases[0]) or [4], alphabetical, "vocab with its keys in alphabetical order")
        )
        for ids, vocab, named in runs:
            kind = "array " if isinstance(ids, np.ndarray) else ""
            what = f"decode({kind}{[int(i) for i in ids]}, {named})"
            got = c.call(decode, ids.copy() if kind else list(ids), dict(vocab))
            got = _tokens(c, got, what, "Return a list of token strings.")
            keys = list(vocab)
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
                    _KEY_ORDER_HINT.format(): (
                        [keys[int(i)] for i in ids] if keys != sorted(keys, key=vocab.get) else None
                    ),
                },
            )


# --------------------------------------------------------------------------- pad_batch
def _left_padded(seqs, pad_id, expected):
    left = np.full_like(expected, pad_id)
    for row, seq in enumerate(seqs):
        if seq:
            left[row, -len(seq) :] = seq
    return left


def _width_of_first_hint(pad_batch, seqs: list[list[int]], pad_id: int) -> str:
    """When the longest sequence is not the first: if the learner's pad_batch is right
    with the sequences reordered longest first, its width comes from the first one."""
    longest = max(range(len(seqs)), key=lambda i: len(seqs[i]), default=0)
    if not seqs or longest == 0 or len(seqs[0]) == len(seqs[longest]):
        return ""
    order = [longest, *(i for i in range(len(seqs)) if i != longest)]
    reordered = [list(seqs[i]) for i in order]
    with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
        probe = np.asarray(pad_batch([list(s) for s in reordered], pad_id))
        if probe.shape == (len(seqs), len(seqs[longest])) and np.array_equal(
            probe, ref.pad_batch(reordered, pad_id)
        ):
            return (
                f"With the longest sequence first yours is right, and here the first one is "
                f"shorter ({len(seqs[0])} ids, the longest has {len(seqs[longest])}): the width "
                "comes from the first sequence. max_len is the length of the longest "
                "sequence: max(len(seq) for seq in sequences)."
            )
    return ""


def check_pad_batch(pad_batch, *, hidden: bool = False) -> None:
    """Check ``pad_batch(sequences, pad_id)``: a (batch, max_len) numpy array or torch
    tensor of any integer dtype, right-padded with pad_id."""
    import torch

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
            cases = [([[5, 6, 7], [8], [9, 10]], 0), ([[4, 5], [], [6, 7, 8, 9]], 3)]
        for sequences, pad_id in cases:
            seqs = [[int(i) for i in s] for s in sequences]
            what = f"pad_batch({seqs}, pad_id={pad_id})"
            try:
                got = c.call(pad_batch, [list(s) for s in seqs], pad_id)
            except CheckFailure as failure:
                hint = _width_of_first_hint(pad_batch, seqs, pad_id)
                if hint:
                    raise CheckFailure(
                        failure.exercise, f"{failure.message}\n{hint}", failure.learner_traceback
                    ) from None
                raise
            expected = ref.pad_batch(seqs, pad_id)
            c.expect_type(
                got,
                (np.ndarray, torch.Tensor),
                what,
                "A batch is one rectangular array, not a list of rows: return a numpy array "
                "(np.full / np.array).",
            )
            shape_hint = (
                "The shape is (batch, max_len): one row per sequence, as long as the longest one."
            )
            transposed = (
                "Yours is transposed: (max_len, batch), one column per sequence (time first), "
                "as torch's pad_sequence gives without batch_first=True. Return one row per "
                "sequence, (batch, max_len): pad_sequence(..., batch_first=True), or transpose."
            )
            if tuple(got.shape) != expected.shape:
                shape_hint = _width_of_first_hint(pad_batch, seqs, pad_id) or (
                    shape_hint + " " + transposed
                    if tuple(got.shape) == expected.shape[::-1]
                    else shape_hint
                )
            c.expect_shape(got, expected.shape, what, shape_hint)
            array = got.numpy() if isinstance(got, torch.Tensor) else np.asarray(got)
            if array.size:
                c.expect_integer_dtype(got, what)
            elif not np.issubdtype(array.dtype, np.integer):
                c.note(
                    f"{what} has no values, so its dtype ({got.dtype}) does not matter here; "
                    "with values, ids need an integer dtype."
                )
            c.expect_equal(
                array,
                expected,
                what,
                hint=f"Each row holds its sequence, then pad_id={pad_id} up to max_len.",
                mistakes={
                    "Pad on the right: the tokens come first, then the padding.": _left_padded(
                        seqs, pad_id, expected
                    ),
                    "Fill with the pad_id you were given, not a hard-coded 0.": ref.pad_batch(
                        seqs, 0
                    ),
                    transposed: expected.T,
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
    """Check ``get_pair_counts(ids)``: overlapping counts, pairs in the order of their
    first occurrence (train_bpe's tie rule relies on it); any dict (a Counter) is accepted."""
    with Checker("get_pair_counts", hidden=hidden) as c:
        c.require_callable(get_pair_counts)
        if hidden:
            cases = [_random_ids(seed, n) for seed, n in ((51, 12), (52, 30), (53, 2))] + [[7], []]
        else:
            cases = [list(_CLASSIC.encode()), [1, 1, 1], [5, 6, 5, 6], [1, 2, 3, 3, 3, 3], [7]]
        for ids in cases:
            what = f"get_pair_counts({ids})"
            got = c.call(get_pair_counts, list(ids))
            c.expect_type(got, dict, what, "Return a dict {(a, b): count}.")
            first = dict(got)  # a copy: a dict kept between calls changes under the next one
            again = c.call(get_pair_counts, list(ids))
            c.expect_true(
                not isinstance(again, dict) or dict(again) == first,
                f"{what} returned {first} the first time and {dict(again)} the second time, "
                "on the same ids: your function keeps its counts from one call to the next. A "
                "dict created once, as a default argument (def get_pair_counts(ids, counts={})) "
                "or outside the function, is shared by every call. Create a new dict inside the "
                "function at each call (counts = {} in the body, or counts=None with `if counts "
                "is None: counts = {}`).",
            )
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
                hint="The counts are right, but list the pairs in the order they first occur (a "
                "plain dict or a Counter does that when you count left to right; a set or a sort "
                "does not): train_bpe breaks ties by first occurrence.",
            )


def _merge_double(ids, pair, new_id):
    """What forgetting to skip the second id of a merged pair gives."""
    out = []
    for i, token in enumerate(ids):
        if i + 1 < len(ids) and (token, ids[i + 1]) == pair:
            out.append(new_id)
        elif i > 0 and (ids[i - 1], token) == pair:
            continue
        else:
            out.append(token)
    return out


def _merge_first_only(ids, pair, new_id):
    for i in range(len(ids) - 1):
        if (ids[i], ids[i + 1]) == pair:
            return [*ids[:i], new_id, *ids[i + 2 :]]
    return list(ids)


def _merge_back_to_back_missed(ids, pair, new_id):
    """Merges every occurrence except one that starts right where a merged one ended (what
    a string replacement on the space-joined ids does: one match uses up the separator
    the next one needs)."""
    out, i, just_merged = [], 0, False
    while i < len(ids):
        if not just_merged and i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            out.append(new_id)
            i += 2
            just_merged = True
        else:
            out.append(ids[i])
            i += 1
            just_merged = False
    return out


def _merge_scan(ids, new_id, matches, step_after_merge=2):
    """The left-to-right scan with another test for 'the pair is here' (``matches(a, b)``)
    or another step after a merge: the merge_pair that a mistake in either gives."""
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and matches(ids[i], ids[i + 1]):
            out.append(new_id)
            i += step_after_merge
        else:
            out.append(ids[i])
            i += 1
    return out


def _merge_scan_mistakes(ids, pair, new_id) -> dict[str, list]:
    """Each half of the pair test alone, and a step of one after a merge. Where the two
    halves give the same list on this input, one message names both."""
    first = _merge_scan(ids, new_id, lambda a, b: a == pair[0])
    second = _merge_scan(ids, new_id, lambda a, b: b == pair[1])
    if first == second:
        return {
            "You merged where only one id of the pair matches (ids[i] == pair[0], or "
            "ids[i + 1] == pair[1]: on this input both give your result): compare both "
            "ids, (ids[i], ids[i + 1]) == pair.": first,
            "After a merge you moved on by one id instead of two, so the second id of a "
            "merged pair starts another pair (overlapping merges): [1, 1, 1] with (1, 1) "
            "becomes [X, 1], not [X, X]. Skip both merged ids (i += 2).": _merge_scan(
                ids, new_id, lambda a, b: (a, b) == tuple(pair), step_after_merge=1
            ),
        }
    return {
        f"You merged wherever the *first* id matches pair[0] = {pair[0]}, whatever follows "
        f"it: compare both ids, (ids[i], ids[i + 1]) == pair, not ids[i] == pair[0].": _merge_scan(
            ids, new_id, lambda a, b: a == pair[0]
        ),
        f"You merged wherever the *second* id matches pair[1] = {pair[1]}, whatever comes "
        f"before it: compare both ids, (ids[i], ids[i + 1]) == pair.": _merge_scan(
            ids, new_id, lambda a, b: b == pair[1]
        ),
        "After a merge you moved on by one id instead of two, so the second id of a merged "
        "pair starts another pair (overlapping merges): [1, 1, 1] with (1, 1) becomes [X, 1], "
        "not [X, X]. Skip both merged ids (i += 2).": _merge_scan(
            ids, new_id, lambda a, b: (a, b) == tuple(pair), step_after_merge=1
        ),
    }


def check_merge_pair(merge_pair, *, hidden: bool = False) -> None:
    """Check ``merge_pair(ids, pair, new_id)``: a new list (or tuple), non-overlapping
    merges from the left, the input left alone."""
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
            cases = [
                (a, (97, 97), 256),
                ([1, 1, 1], (1, 1), 4),
                ([5, 6, 7], (6, 5), 8),
                ([3, 4, 3, 4], (3, 4), 9),
                ([], (1, 2), 9),
            ]
        first_only_ruled_out = False  # an earlier input merged a later occurrence too
        for ids, pair, new_id in cases:
            what = f"merge_pair({ids}, {pair}, {new_id})"
            got = c.call(
                merge_pair,
                list(ids),
                pair,
                new_id,
                mutation_hint="Build the result in a new list; `ids[i:i + 2] = [new_id]`, "
                "`ids.pop(...)` or `ids[:] = ...` change the caller's list.",
            )
            got = _ids(c, got, what, "Return a new list of ids.")
            expected = ref.merge_pair(ids, pair, new_id)
            first_only = _merge_first_only(ids, pair, new_id)
            back_to_back = _merge_back_to_back_missed(ids, pair, new_id)
            later_missed = {}
            if first_only == back_to_back and not first_only_ruled_out:
                later_missed[
                    "Only the first occurrence of the pair was replaced, or an occurrence that "
                    "starts right where a merged one ended was skipped (on this input the two "
                    "look alike): after a merge, keep scanning from the id after the pair and "
                    "replace every later, non-overlapping occurrence, including one that "
                    "follows directly."
                ] = first_only
            else:
                if not first_only_ruled_out:
                    later_missed[
                        "Only the first occurrence of the pair was replaced: after a merge, "
                        "keep scanning (from the id after the pair) and replace every later, "
                        "non-overlapping occurrence too."
                    ] = first_only
                later_missed[
                    "An occurrence that starts right where a merged one ended was not merged "
                    "(separate occurrences were). Merging by string replacement on the joined "
                    "ids does that: one match uses up the separator that the next one needs. "
                    "Scan the list with an index instead: after a merge at i, look for the "
                    "pair again at i + 2."
                ] = back_to_back
            c.expect_equal(
                got,
                expected,
                what,
                hint="Scan left to right; where ids[i], ids[i+1] equal the pair, emit new_id and "
                "skip two positions, otherwise emit ids[i] and move one.",
                mistakes={
                    "After a merge, skip *both* merged ids: [1, 1, 1] with (1, 1) becomes [X, 1], "
                    "not [X, X] or [X].": _merge_double(ids, pair, new_id),
                    "The last id went missing: when no merge happens at the final position, it "
                    "still has to be copied.": expected[:-1] if expected else None,
                    **later_missed,
                    "Nothing was merged: you returned the ids unchanged although the pair "
                    "occurs in them, so your test for the pair is never true. A list slice "
                    "never equals the tuple pair (ids[i:i + 2] == pair compares [a, b] with "
                    "(a, b), always False): compare (ids[i], ids[i + 1]) == pair, or "
                    "tuple(ids[i:i + 2]) == pair. (Or the input list was returned instead of "
                    "the new one.)": list(ids),
                    **_merge_scan_mistakes(ids, pair, new_id),
                },
            )
            # this input passed: if only the first occurrence had been merged, it would not have
            first_only_ruled_out = first_only_ruled_out or first_only != expected


def _train(ids, num_merges, choose, min_count=1):
    """BPE training over `ids` with a rule `choose(counts)` for the pair to merge."""
    merges = {}
    for step in range(num_merges):
        counts = ref.get_pair_counts(ids)
        if not counts:
            break
        best = choose(counts)
        if counts[best] < min_count:
            break
        ids = ref.merge_pair(ids, best, 256 + step)
        merges[best] = 256 + step
    return merges


def _first_of_max(counts):
    return max(counts, key=counts.get)


def _last_of_max(counts):
    return sorted(counts, key=counts.get)[-1]


def _merges(c: Checker, got, what: str) -> dict[tuple[int, int], int]:
    """A dict {(a, b): new_id} of ints, in the learner's order."""
    c.expect_type(got, dict, what, "Return a dict {(a, b): new_id} in the order learned.")
    c.expect_true(
        all(
            isinstance(pair, tuple) and len(pair) == 2 and all(map(_is_int, pair)) and _is_int(v)
            for pair, v in got.items()
        ),
        f"{what} should map pairs of ids (tuples of two ints) to new ids (ints), but it holds "
        f"{short(dict(list(got.items())[:3]), 120)}...",
    )
    return {(int(a), int(b)): int(v) for (a, b), v in got.items()}


_EARLY_STOP_HINT = (
    "When fewer than two ids remain there is no pair left to merge: stop early (train_bpe learns "
    "*up to* num_merges merges) instead of asking max() for the best of no pairs."
)
# max() of nothing says so in different words across Python versions.
_EARLY_STOP_HINTS = [
    ("arg is an empty sequence", _EARLY_STOP_HINT),
    ("iterable argument is empty", _EARLY_STOP_HINT),
]


def _counted_once(ids: list[int], num_merges: int) -> dict[tuple[int, int], int]:
    """The merges when the pairs are counted once, before the loop (never recounted)."""
    counts = dict(ref.get_pair_counts(ids))
    merges = {}
    for step in range(num_merges):
        if not counts:
            break
        best = max(counts, key=counts.get)
        del counts[best]
        merges[best] = 256 + step
    return merges


#: ids a loop may merge with instead of the ids it records, 256 + i (i counts merges)
_MERGED_WITH = {
    "256 every time": lambda i: 256,
    "256 - i": lambda i: 256 - i,
    "255 + i": lambda i: 255 + i,
    "257 + i": lambda i: 257 + i,
}


def _ids_merged_with(text: str, merges: dict[tuple[int, int], int]) -> str:
    """When the learner's pairs follow the rule exactly if the ids were merged with another
    id than the one recorded (merge_pair(ids, pair, 256) but merges[pair] = 256 + i, say):
    that, said only when exactly one such id scheme explains every pair; "" otherwise."""
    ordered = sorted(merges.items(), key=lambda item: item[1])
    recorded = [new_id for _, new_id in ordered]
    found = []
    for name, merged_with in _MERGED_WITH.items():
        used = [merged_with(i) for i in range(len(ordered))]
        if used == recorded:
            continue
        ids = list(text.encode("utf-8"))
        for i, (pair, _) in enumerate(ordered):
            counts = ref.get_pair_counts(ids)
            if not counts or pair != max(counts, key=counts.get):
                break
            ids = ref.merge_pair(ids, pair, used[i])
        else:
            found.append((name, used))
    if len(found) != 1:
        return ""
    name, used = found[0]
    return (
        f"Your pairs are exactly the rule's if your loop merged with the id {name} "
        f"({used}) while it recorded {recorded}: merge_pair and the dict must use the same "
        "new id, 256 + i."
    )


def _replay_merges(text: str, merges: dict[tuple[int, int], int]) -> str:
    """Replay the learner's merges (in the order of their new ids) on the text's bytes and
    name the first decision that differs from the rule (the most frequent pair of the
    current ids, ties to the first occurrence); "" when none does."""
    ids = list(text.encode("utf-8"))
    original = ref.get_pair_counts(ids)
    taken: list[tuple[int, int]] = []
    merges_made: list[int] = []
    for step, (pair, new_id) in enumerate(sorted(merges.items(), key=lambda item: item[1])):
        counts = ref.get_pair_counts(ids)
        if not counts:
            return (
                f"Merge {step} (id {new_id}) should not exist: after {step} merges fewer than "
                "two ids remain, so training stops there."
            )
        best = max(counts, key=counts.get)
        if pair != best or new_id != 256 + step:
            mine = counts.get(pair, 0)
            said = (
                f"Merge {step} (id {new_id}) is the first that departs from the rule: you "
                f"merged {pair}, which occurs {mine} times in the ids at that point, but the "
                f"most frequent pair there is {best} ({counts[best]} times)."
            )
            remaining = {p: n for p, n in original.items() if p not in taken}
            if pair == best:
                return f"Merge {step} merged {pair} but gave it id {new_id}, not {256 + step}."
            causes = []
            if mine == counts[best]:
                causes.append(
                    "a tie broken the wrong way (both occur "
                    f"{mine} times here; ties go to the pair that occurs first in the ids)"
                )
            if remaining and pair == max(remaining, key=remaining.get):
                causes.append(
                    "pairs counted once, on the original bytes, before the loop (your choice "
                    "is the most frequent pair there): count them again on the current ids "
                    "after every merge"
                )
            if len(causes) == 1:
                return f"{said} The cause: {causes[0]}."
            if causes:
                return (
                    f"{said} This step agrees with two causes, which it cannot tell apart: "
                    + "; or ".join(causes)
                    + "."
                )
            if mine == 0:
                used = _ids_merged_with(text, merges)
                if used:
                    return f"{said} {used}"
                unknown = sorted({t for t in pair if t >= 256 and t not in merges_made})
                if unknown:
                    return (
                        f"{said} Your pair does not occur in the current ids: it holds id "
                        f"{unknown[0]}, which no earlier merge created (so far: "
                        f"{sorted(merges_made) or 'none'}). The ids you merged with and the "
                        "ids you recorded in the dict must be the same, 256 + i."
                    )
                return f"{said} Your pair does not occur in the current ids at all."
            return said
        ids = ref.merge_pair(ids, pair, new_id)
        taken.append(pair)
        merges_made.append(new_id)
    return ""


def _vocab_size_hint(train_bpe, learned: int, num_merges: int, expected: int) -> str:
    """Too few merges: if they are num_merges - 256, and a call with num_merges = 258
    (where the two readings differ) learns 2, num_merges was read as a vocabulary size."""
    if learned != max(0, min(expected, num_merges - 256)):
        return ""
    probe = None
    with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
        probe = train_bpe(_CLASSIC, 258)
    if not isinstance(probe, dict) or len(probe) != 2:
        return ""
    return (
        f" You learned num_merges - 256 merges ({learned} here, and 2 for "
        f"train_bpe({_CLASSIC!r}, 258)): num_merges is the number of merges itself, not the "
        "size of the vocabulary (minbpe's train takes vocab_size and learns vocab_size - 256 "
        "merges). Loop for step in range(num_merges)."
    )


def check_train_bpe(train_bpe, *, hidden: bool = False) -> None:
    """Check ``train_bpe(text, num_merges)``: merges over UTF-8 bytes, the most frequent
    pair first (ties: first occurrence), new ids 256 + i, in the order learned. Stopping
    when no pair occurs more than once is accepted too (with a note)."""
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
            cases = [(_CLASSIC, 3), ("aaaa", 4), ("héllo héllo", 3)]
        for text, num_merges in cases:
            what = f"train_bpe({text!r}, {num_merges})"
            got = _merges(
                c,
                c.call(train_bpe, text, num_merges, hints=_EARLY_STOP_HINTS),
                what,
            )
            byte_ids = list(text.encode("utf-8"))
            expected = ref.train_bpe(text, num_merges)
            stopped = _train(byte_ids, num_merges, _first_of_max, min_count=2)
            if got == stopped and got != expected:
                c.note(
                    "you stop as soon as no pair occurs more than once (as subword-nmt does by "
                    "default). That is accepted; the reference goes on merging pairs that occur "
                    "once, up to num_merges, and the rest of the lesson uses its merges."
                )
                expected = stopped
            count_hint = ""
            if len(got) < len(expected):
                count_hint = _vocab_size_hint(train_bpe, len(got), num_merges, len(expected))
            learned = len(expected)
            first_counts = ref.get_pair_counts(byte_ids)
            # ids never updated (merge_pair's result dropped): every step finds the same
            # pair, and the dict keeps it once, with the last step's id
            stuck = (
                {max(first_counts, key=first_counts.get): 256 + num_merges - 1}
                if first_counts and num_merges > 1
                else None
            )
            c.expect_equal(
                sorted(got.values()),
                list(expected.values()),
                f"the new ids of {what}",
                hint=count_hint.strip()
                or "The i-th merge (counting from 0) gets id 256 + i; stop early when fewer "
                "than two ids remain.",
                mistakes={
                    "Every merge got the same id, 256: the step is not added. The i-th merge "
                    "(counting from 0) gets 256 + i, a new id each time.": (
                        [256] * len(got) if len(got) > 1 and set(got.values()) == {256} else None
                    ),
                    f"One merge came back, the first step's pair with the last step's id "
                    f"{256 + num_merges - 1}: every step found the same pair again, so the ids "
                    "were never updated. merge_pair returns a new list and leaves its input "
                    "alone: assign its result (ids = merge_pair(ids, pair, new_id)) before the "
                    "next step counts the pairs.": (
                        list(stuck.values()) if stuck and got == stuck else None
                    ),
                    "Your ids start at 257, one too high: the first merge (i = 0) gets 256 "
                    "and the i-th 256 + i (did you count the steps from 1?).": [
                        257 + i for i in range(learned)
                    ],
                },
            )
            by_id = dict(sorted(got.items(), key=lambda item: item[1]))
            c.expect_equal(
                list(by_id.items()),
                list(expected.items()),
                what,
                hint=lambda got=got, text=text: (
                    _replay_merges(text, got)
                    or "Each step: count pairs on the *current* ids, merge the most frequent "
                    "pair (ties: the pair that occurs first), then repeat."
                ),
                mistakes={
                    "The pairs were counted once, on the original bytes, before the loop: "
                    "each merge creates new pairs (with the new id) and removes others, so "
                    "count them again on the current ids after every merge.": list(
                        _counted_once(byte_ids, num_merges).items()
                    ),
                    "A tie was broken the wrong way: among equally frequent pairs, pick the one "
                    "that occurs first (max() over the ordered dict does that; sorted(...)[-1] "
                    "does not).": list(_train(byte_ids, num_merges, _last_of_max).items()),
                    "Start from the UTF-8 bytes of the text (text.encode('utf-8')), not from "
                    "characters: ord(ch) is not a byte for anything outside ASCII ('é' is two "
                    "bytes).": list(
                        _train([ord(ch) for ch in text], num_merges, _first_of_max).items()
                    )
                    if any(ord(ch) > 127 for ch in text)
                    else None,
                },
            )
            c.expect_equal(
                list(got.items()),
                list(by_id.items()),
                f"the order of the merges in {what}",
                hint="The merges are right, but the dict must list them in the order they were "
                "learned (new ids 256, 257, ...): decoding builds its table by walking the dict, "
                "and a merge may use an id that an earlier one created.",
            )


_HIDDEN_BPE_TEXTS = [
    "the cat sat on the mat",
    "naïve café, déjà vu — 東京 🙂",
    "aaaaaaa",
    "",
]
# Merges learned elsewhere, applied to a text where the later merge's pair is the more
# frequent one: bpe_encode must follow the merges' rank, not the counts in this text.
_RANKED_MERGES = {(98, 99): 256, (97, 98): 257}
# Two merges whose pairs overlap ("abc"), the earlier one the more frequent in "ababc":
# applying the latest-learned merge first differs from the rank order, counting does not.
_OVERLAPPING_MERGES = {(97, 98): 256, (98, 99): 257}


def _encode_by_count(text, merges):
    """What merging the most frequent known pair of *this* text first gives."""
    ids = list(text.encode("utf-8"))
    while True:
        counts = {p: n for p, n in ref.get_pair_counts(ids).items() if p in merges}
        if not counts:
            return ids
        pair = max(counts, key=counts.get)
        ids = ref.merge_pair(ids, pair, merges[pair])


def _encode_left_to_right(text, merges):
    """What merging greedily as the bytes come gives: whenever the last two ids on a
    stack form a learned pair, they are merged (rank order ignored)."""
    out: list[int] = []
    for token in text.encode("utf-8"):
        out.append(token)
        while len(out) >= 2 and (out[-2], out[-1]) in merges:
            right, left = out.pop(), out.pop()
            out.append(merges[(left, right)])
    return out


def _encode_latest_first(text, merges):
    """What applying the latest-learned merge present (the highest new id) first gives."""
    ids = list(text.encode("utf-8"))
    while True:
        present = [p for p in ref.get_pair_counts(ids) if p in merges]
        if not present:
            return ids
        pair = max(present, key=merges.get)
        ids = ref.merge_pair(ids, pair, merges[pair])


def _encode_stopping_at_two(text, merges):
    """What a loop that stops while two ids are left (``len(ids) > 2``) gives."""
    ids = list(text.encode("utf-8"))
    while len(ids) > 2:
        present = [p for p in ref.get_pair_counts(ids) if p in merges]
        if not present:
            break
        pair = min(present, key=merges.get)
        ids = ref.merge_pair(ids, pair, merges[pair])
    return ids


def _byte_spans(ids, merges) -> list[tuple[int, int, int]] | None:
    """(start, stop, id) of each id over the text's bytes; None for an unknown id."""
    width = {i: 1 for i in range(256)}
    for (a, b), new_id in merges.items():
        if a in width and b in width:
            width[new_id] = width[a] + width[b]
    spans, at = [], 0
    for token in ids:
        if token not in width:
            return None
        spans.append((at, at + width[token], token))
        at += width[token]
    return spans


def _encode_pairs_found_once(text, merges):
    """The merges applied by rank, but only those whose pair occurs in the original bytes
    (the pairs present looked up once, before the first merge)."""
    ids = list(text.encode("utf-8"))
    present = set(zip(ids, ids[1:]))
    for pair in sorted((p for p in present if p in merges), key=merges.get):
        ids = ref.merge_pair(ids, pair, merges[pair])
    return ids


def _replay_encoding(text: str, merges: dict, got: list[int]) -> str:
    """Replay the reference's merges on the text's bytes, one decision at a time, and name
    the first one the learner's result contradicts (a boundary of theirs inside a token the
    reference forms); "" when the result cannot be laid over the bytes."""
    data = text.encode("utf-8")
    mine = _byte_spans(got, merges)
    if mine is None or (mine[-1][1] if mine else 0) != len(data):
        return ""
    cuts = {start for start, _, _ in mine[1:]}
    current = [(k, k + 1, byte) for k, byte in enumerate(data)]
    for step in range(len(merges) * max(len(data), 1) + 1):
        present = [p for p in ref.get_pair_counts([t for _, _, t in current]) if p in merges]
        if not present:
            break
        pair = min(present, key=merges.get)
        merged, i = [], 0
        while i < len(current):
            if i + 1 < len(current) and (current[i][2], current[i + 1][2]) == pair:
                start, stop = current[i][0], current[i + 1][1]
                if any(start < cut < stop for cut in cuts):
                    yours = [(t, a, b - 1) for a, b, t in mine if a < stop and b > start]
                    shown = ", ".join(f"{t} (bytes {a}-{b})" for t, a, b in yours)
                    return (
                        f"Replaying the merges: decision {step + 1} merges {pair} -> "
                        f"{merges[pair]} over bytes {start}-{stop - 1} ({data[start:stop]!r}), "
                        "the earliest-learned merge that occurs at that point; your result "
                        f"covers those bytes with {shown}, so that is where your encoding "
                        "first departs. Each step: among the pairs present, take the one "
                        "with the smallest new id, merge it everywhere, repeat."
                    )
                merged.append((start, stop, merges[pair]))
                i += 2
            else:
                merged.append(current[i])
                i += 1
        current = merged
    return ""


_ENCODE_STOP_HINT = (
    "Stop as soon as no adjacent pair has a merge, which includes the case where fewer than "
    "two ids remain ('aa' becomes the single token 256): min() or max() of no pairs fails."
)
_ENCODE_STOP_HINTS = [
    ("arg is an empty sequence", _ENCODE_STOP_HINT),
    ("iterable argument is empty", _ENCODE_STOP_HINT),
]


def _encode_hints(merges: dict) -> list:
    """_ENCODE_STOP_HINTS, and a KeyError on a pair that is not a learned merge."""

    def unlearned_pair(exc: BaseException) -> bool:
        key = exc.args[0] if isinstance(exc, KeyError) and exc.args else None
        return isinstance(key, tuple) and len(key) == 2 and key not in merges

    def text(exc: BaseException) -> str:
        return (
            f"Your code looked up merges[{exc.args[0]}], a pair that was never learned. "
            "Check `pair in merges` before looking it up: when even the earliest-learned "
            "pair present (min with merges.get(p, inf)) is not in merges, no merge applies "
            "any more and the loop must stop (if pair not in merges: break)."
        )

    return [*_ENCODE_STOP_HINTS, (unlearned_pair, text)]


def check_bpe_encode(bpe_encode, *, hidden: bool = False) -> None:
    """Check ``bpe_encode(text, merges)``: UTF-8 bytes, then the merges by rank
    (earliest learned first); a list, tuple or 1-D integer array is accepted."""
    with Checker("bpe_encode", hidden=hidden) as c:
        c.require_callable(bpe_encode)
        if hidden:
            merges = ref.train_bpe("the cat sat on the mat. the cat ate. café déjà", 12)
            cases = [(t, merges) for t in _HIDDEN_BPE_TEXTS]
            cases.append(("abcabc", {(98, 99): 256, (97, 98): 257, (97, 256): 258}))
            cases.append(("xababcx", _OVERLAPPING_MERGES))
            cases.append(("xy", {(120, 121): 256}))  # two ids left: the last merge still applies
            cases.append(("abcbc", _RANKED_MERGES))
        else:
            merges = ref.train_bpe(_CLASSIC, 3)
            cases = [(_CLASSIC, merges), ("aaab", merges), ("café", merges), ("aa", merges)]
            cases.append(("ababc", _OVERLAPPING_MERGES))
            cases.append(("ababcab", _RANKED_MERGES))
            # "bc" is the earlier merge and the more frequent pair, but "ab" comes first:
            # counting gets it right, merging greedily from the left does not
            cases.append(("abcbc", _RANKED_MERGES))
        # Every call first (a call that raises ends the list), then the first wrong result
        # is diagnosed with the known mistakes that agree with *every* result collected:
        # one of them alone on one input proves nothing.
        runs, pending = [], None
        for text, m in cases:
            what = f"bpe_encode({text!r}, merges={m if len(m) <= 3 else '...'})"
            try:
                got = _ids(c, c.call(bpe_encode, text, dict(m), hints=_encode_hints(m)), what)
            except CheckFailure as failure:
                pending = failure
                break
            runs.append((text, m, what, got))
        models = {
            "Start from UTF-8 bytes, not characters: ord(ch) differs from the bytes for "
            "anything outside ASCII.": lambda text, m: (
                [ord(ch) for ch in text] if any(ord(ch) > 127 for ch in text) else None
            ),
            "Apply the merges by rank, the earliest learned first (smallest new id), not by "
            "how often or where a pair occurs in the text being encoded: the merges were "
            "learned on other text, in that order.": _encode_by_count,
            "You merged greedily from the left as the bytes come (whenever the last two ids "
            "form a learned pair, they are merged at once): a pair is merged where it appears "
            "first, not in the order the merges were learned. Apply the merges by rank: among "
            "the pairs present, take the one with the smallest new id, merge it everywhere, "
            "repeat.": _encode_left_to_right,
            "You applied the latest-learned merge first (the highest new id, max() where "
            "min() belongs): a later merge is built on the earlier ones, so apply them by "
            "rank, the smallest new id first (min(present, key=merges.get)).": (
                _encode_latest_first
            ),
            "You collected the pairs present once, on the original bytes, before merging: a "
            "pair that contains a new id (such as (256, 97)) only appears after an earlier "
            "merge made that id, so it was never merged. Recount the pairs on the current "
            "ids after every merge (get_pair_counts(ids) inside the loop).": (
                _encode_pairs_found_once
            ),
            "Your loop stops while two ids are still left (len(ids) > 2 where len(ids) >= 2 "
            "belongs): the merge of the last two ids is never made. Keep going while at "
            "least two ids remain.": _encode_stopping_at_two,
        }
        agreeing = {
            message: model
            for message, model in models.items()
            if all((value := model(text, m)) is None or value == got for text, m, _, got in runs)
        }
        for text, m, what, got in runs:
            c.expect_equal(
                got,
                ref.bpe_encode(text, m),
                what,
                hint=lambda got=got, text=text, m=m: (
                    _replay_encoding(text, m, got)
                    or "Start from the UTF-8 bytes (list(text.encode('utf-8'))), then "
                    "repeatedly apply the earliest-learned merge that still occurs."
                ),
                mistakes={message: model(text, m) for message, model in agreeing.items()},
            )
        if pending is not None:
            raise pending


def _decode_per_token(ids, merges, errors="replace"):
    """What decoding each token's bytes on its own, then joining the strings, gives."""
    table = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        table[new_id] = table[a] + table[b]
    return "".join(table[i].decode("utf-8", errors=errors) for i in ids)


def _decode_zero_bytes(ids, merges):
    """What building the table with bytes(i) gives: i zero bytes for the byte i."""
    table = {i: bytes(i) for i in range(256)}
    for (a, b), new_id in merges.items():
        table[new_id] = table[a] + table[b]
    return b"".join(table[i] for i in ids).decode("utf-8", errors="replace")


def _decode_bytes_as_chars(ids, merges):
    """What building the table from chr(byte) gives: one character per byte (Latin-1)."""
    table = {i: chr(i) for i in range(256)}
    for (a, b), new_id in merges.items():
        table[new_id] = table[a] + table[b]
    return "".join(table[i] for i in ids)


_DECODE_ONCE_HINT = (
    "Decode the joined bytes once at the end: decoding token by token breaks characters whose "
    "UTF-8 bytes ended up in different tokens."
)


_DECODE_ID_AS_BYTE_HINT = (
    "An id of 256 or more was turned into a single byte: ids from 256 up are merges, each "
    "standing for several bytes. Either a merge's table entry was built from its two ids "
    "(bytes([a, b])), although a and b may themselves be merges, or the ids were read as "
    "bytes directly (bytes(ids)). Expand through the table: table[new_id] = table[a] + "
    "table[b], in learned order, then join table[i] for every id."
)


def check_bpe_decode(bpe_decode, *, hidden: bool = False) -> None:
    """Check ``bpe_decode(ids, merges)`` on ids that ``bpe_encode`` produced (valid UTF-8,
    so strict decoding and errors="replace" both pass)."""
    with Checker("bpe_decode", hidden=hidden) as c:
        c.require_callable(bpe_decode)
        if hidden:
            merges = ref.train_bpe("the cat sat on the mat. café déjà 東京 東京", 15)
            texts = [*_HIDDEN_BPE_TEXTS, "東京 café"]
        else:
            merges = ref.train_bpe(_CLASSIC, 3)
            texts = [_CLASSIC, "abcd", "héllo"]
        for text in texts:
            ids = ref.bpe_encode(text, merges)
            what = f"bpe_decode({ids}, merges)"
            got = c.call(
                bpe_decode,
                list(ids),
                dict(merges),
                hints={
                    "can't decode byte": _DECODE_ONCE_HINT,
                    "bytes must be in range(0, 256)": _DECODE_ID_AS_BYTE_HINT,
                },
            )
            c.expect_type(got, str, what, "Return the decoded text as a str.")
            c.expect_equal(
                got,
                text,
                what,
                hint="Build a table id -> bytes (0..255 are single bytes; each merge (a, b) -> new_id "
                "is table[a] + table[b], in learned order), join the bytes, then .decode('utf-8').",
                mistakes={
                    _DECODE_ONCE_HINT: _decode_per_token(ids, merges),
                    **{
                        f"{_DECODE_ONCE_HINT} (With errors='{errors}' the bytes of such a "
                        f"character are {effect} instead.)": _decode_per_token(ids, merges, errors)
                        for errors, effect in (
                            ("ignore", "dropped silently"),
                            ("backslashreplace", "written as escapes such as \\xc3"),
                        )
                    },
                    "Your text is made of zero bytes ('\\x00'): bytes(i) with an int makes i "
                    "zero bytes (bytes(3) == b'\\x00\\x00\\x00'). The single byte with "
                    "value i is bytes([i]).": _decode_zero_bytes(ids, merges),
                    "Each id stands for *bytes*, not characters: chr(byte) turns 'é' (two bytes) "
                    "into 'Ã©'. Keep bytes in the table (bytes([i])), join them, and decode the "
                    "result as UTF-8 once.": _decode_bytes_as_chars(ids, merges),
                },
            )


# --------------------------------------------------------------------- concept questions
QUIZ_UNK = Quiz(
    name="quiz_unk",
    choices={
        "a": "To mark where a sentence ends, so that the decoder knows when to stop.",
        "b": "Because every id is a row of the embedding table, which is fixed before "
        "training, while new text keeps bringing words the vocabulary has never seen: each "
        "of them still needs some id.",
        "c": "To fill up short sentences, so that a batch is a rectangular array.",
        "d": "So that the model can learn the meaning of each rare word separately.",
    },
    answer="b",
    why={
        "a": "That is the job of <eos>, a different special token.",
        "b": "The vocabulary, and with it the embedding table, is fixed once it is built; any "
        "token outside it must still map to a row, and <unk> is that row. The price: all "
        "unknown words share it, so the model cannot tell them apart.",
        "c": "That is the job of <pad>, which attention will later be told to ignore.",
        "d": "It is the opposite: every unknown word gets the same id, so whatever the model "
        "learns about <unk> is a blur over all of them.",
    },
)
check_quiz_unk = quiz_check(QUIZ_UNK)

QUIZ_MERGE_ORDER = Quiz(
    name="quiz_merge_order",
    choices={
        "a": "[257, 256]",
        "b": "[256, 257]",
        "c": "[256, 256, 97]",
        "d": "[257, 257]",
    },
    answer="b",
    why={
        "a": "That is longest-match-first: take the longest known piece from the left ('aaa', "
        "then 'aa'), which is how WordPiece tokenizes. BPE instead replays its merges in the "
        "order they were learned.",
        "b": "The first merge pairs the a's from the left without overlap: [256, 256, 97]. "
        "Then the only (256, a) is at the end: [256, 257]. 256 is 'aa', 257 is 'aaa', and "
        "2 + 3 = 5 a's.",
        "c": "That applies only the first merge. The pair (256, a) still occurs at the end, "
        "and it has a rank, so it is merged too.",
        "d": "257 stands for three a's, so [257, 257] would be six of them; the text has five.",
    },
)
check_quiz_merge_order = quiz_check(QUIZ_MERGE_ORDER)


# ---------------------------------------------------------------------------- registry
LESSON = "01_tokenization"
EXERCISES = (
    Exercise("tokenize", check_tokenize, kind="function", points=2, minutes=10, level=1),
    Exercise("build_vocab", check_build_vocab, kind="function", points=2, minutes=15, level=2),
    Exercise("encode", check_encode, kind="function", points=1, minutes=5, level=1),
    Exercise("decode", check_decode, kind="function", points=1, minutes=5, level=1),
    Exercise("quiz_unk", check_quiz_unk, kind="quiz", points=1, minutes=3, level=1),
    Exercise("pad_batch", check_pad_batch, kind="function", points=1, minutes=10, level=2),
    Exercise(
        "get_pair_counts", check_get_pair_counts, kind="function", points=1, minutes=10, level=1
    ),
    Exercise("merge_pair", check_merge_pair, kind="function", points=1, minutes=15, level=2),
    Exercise("train_bpe", check_train_bpe, kind="function", points=2, minutes=20, level=3),
    Exercise("quiz_merge_order", check_quiz_merge_order, kind="quiz", points=1, minutes=5, level=2),
    Exercise("bpe_encode", check_bpe_encode, kind="function", points=2, minutes=20, level=3),
    Exercise("bpe_decode", check_bpe_decode, kind="function", points=1, minutes=10, level=2),
)
