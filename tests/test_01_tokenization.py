"""Lesson 01: the checks reject classic mistakes with the intended message, accept
correct variants, and the reference matches the spec's and the literature's worked examples."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pytest

from transformer_course.checking import CheckFailure
from transformer_course.checks import tokenization as checks
from transformer_course.reference import tokenization as ref

SPECIALS = ["<pad>", "<unk>", "<bos>", "<eos>"]


def run_both(check, fn):
    check(fn)
    check(fn, hidden=True)


def rejected_by_both(check, fn, message):
    for hidden in (False, True):
        with pytest.raises(CheckFailure, match=message):
            check(fn, hidden=hidden)


# ---------------------------------------------------------------------------- mistakes
def tokenize_no_lower(text):
    return re.findall(r"\w+|[^\w\s]", text)


def tokenize_split(text):
    return text.lower().split()


def tokenize_drop_punct(text):
    return re.findall(r"\w+", text.lower())


def tokenize_punct_runs(text):
    return re.findall(r"\w+|[^\w\s]+", text.lower())


def tokenize_returns_tuple(text):
    return tuple(ref.tokenize(text))


def vocab_most_common(token_lists, min_freq=1):
    counts = Counter(t for tokens in token_lists for t in tokens)
    vocab = {t: i for i, t in enumerate(SPECIALS)}
    for token, n in counts.most_common():
        if n >= min_freq and token not in vocab:
            vocab[token] = len(vocab)
    return vocab


def vocab_ascending(token_lists, min_freq=1):
    counts = Counter(t for tokens in token_lists for t in tokens)
    vocab = {t: i for i, t in enumerate(SPECIALS)}
    for token, n in sorted(counts.items(), key=lambda kv: (kv[1], kv[0])):
        if n >= min_freq and token not in vocab:
            vocab[token] = len(vocab)
    return vocab


def vocab_strict(token_lists, min_freq=1):
    return ref.build_vocab(token_lists, min_freq + 1)


def vocab_ignores_min_freq(token_lists, min_freq=1):
    return ref.build_vocab(token_lists, 1)


def vocab_specials_last(token_lists, min_freq=1):
    counts = Counter(t for tokens in token_lists for t in tokens)
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    vocab = {t: i for i, (t, n) in enumerate(t for t in ranked if t[1] >= min_freq)}
    for special in SPECIALS:
        vocab.setdefault(special, len(vocab))
    return vocab


def vocab_duplicate_special(token_lists, min_freq=1):
    """Appends a data token that equals a special token again (ids with gaps)."""
    vocab = {t: i for i, t in enumerate(SPECIALS)}
    counts = Counter(t for tokens in token_lists for t in tokens)
    next_id = 4
    for token, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        if n >= min_freq:
            if token not in vocab:
                vocab[token] = next_id
            next_id += 1
    return vocab


def encode_skip_unknown(tokens, vocab):
    return [vocab[t] for t in tokens if t in vocab]


def encode_unknown_as_pad(tokens, vocab):
    return [vocab.get(t, 0) for t in tokens]


def encode_adds_bos_eos(tokens, vocab):
    return [2, *ref.encode(tokens, vocab), 3]


def decode_drops_specials(ids, vocab):
    return [t for t in ref.decode(ids, vocab) if t not in SPECIALS]


def decode_off_by_one(ids, vocab):
    inverse = {i: t for t, i in vocab.items()}
    return [inverse.get(int(i) + 1, "<unk>") for i in ids]


def pad_left(sequences, pad_id):
    width = max((len(s) for s in sequences), default=0)
    return np.array(
        [[pad_id] * (width - len(s)) + list(s) for s in sequences], dtype=np.int64
    ).reshape(len(sequences), width)


def pad_with_zero(sequences, pad_id):
    return ref.pad_batch(sequences, 0)


def pad_returns_list(sequences, pad_id):
    return ref.pad_batch(sequences, pad_id).tolist()


def pad_float(sequences, pad_id):
    return ref.pad_batch(sequences, pad_id).astype(np.float32)


def pad_fixed_width(sequences, pad_id):
    out = np.full((len(sequences), 10), pad_id, dtype=np.int64)
    for row, seq in enumerate(sequences):
        out[row, : len(seq)] = seq
    return out


def pairs_non_overlapping(ids):
    counts, i = {}, 0
    while i + 1 < len(ids):
        pair = (ids[i], ids[i + 1])
        counts[pair] = counts.get(pair, 0) + 1
        i += 2 if ids[i] == ids[i + 1] else 1
    return counts


def pairs_sorted_by_count(ids):
    return dict(Counter(zip(ids, ids[1:])).most_common())


def pairs_missing_last(ids):
    return {p: n for p, n in ref.get_pair_counts(ids[:-1]).items()}


def merge_double(ids, pair, new_id):
    out = []
    for i, token in enumerate(ids):
        if i + 1 < len(ids) and (token, ids[i + 1]) == pair:
            out.append(new_id)
        elif i > 0 and (ids[i - 1], token) == pair:
            continue
        else:
            out.append(token)
    return out


def merge_in_place(ids, pair, new_id):
    merged = ref.merge_pair(ids, pair, new_id)
    ids[:] = merged
    return ids


def train_ties_last(text, num_merges):
    ids, merges = list(text.encode("utf-8")), {}
    for step in range(num_merges):
        counts = ref.get_pair_counts(ids)
        if not counts:
            break
        best = sorted(counts, key=counts.get)[-1]  # sorted is stable: ties keep order, [-1] is last
        ids = ref.merge_pair(ids, best, 256 + step)
        merges[best] = 256 + step
    return merges


def train_ids_from_255(text, num_merges):
    return {pair: new_id - 1 for pair, new_id in ref.train_bpe(text, num_merges).items()}


def train_counts_once(text, num_merges):
    ids = list(text.encode("utf-8"))
    counts = ref.get_pair_counts(ids)
    merges = {}
    for step, pair in enumerate(sorted(counts, key=lambda p: -counts[p])[:num_merges]):
        ids = ref.merge_pair(ids, pair, 256 + step)
        merges[pair] = 256 + step
    return merges


def encode_chars(text, merges):
    ids = [ord(ch) for ch in text]
    for pair, new_id in merges.items():
        ids = ref.merge_pair(ids, pair, new_id)
    return ids


def encode_no_merges(text, merges):
    return list(text.encode("utf-8"))


def decode_per_token(ids, merges):
    table = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        table[new_id] = table[a] + table[b]
    return "".join(table[i].decode("utf-8", errors="replace") for i in ids)


MISTAKES = [
    (checks.check_tokenize, tokenize_no_lower, "did not lower-case"),
    (checks.check_tokenize, tokenize_split, "split on whitespace only"),
    (checks.check_tokenize, tokenize_drop_punct, "Punctuation disappeared"),
    (checks.check_tokenize, tokenize_punct_runs, "one token per character"),
    (checks.check_tokenize, tokenize_returns_tuple, "should be a list"),
    (checks.check_build_vocab, vocab_most_common, "Ties must be broken alphabetically"),
    (checks.check_build_vocab, vocab_ascending, "descending count"),
    (checks.check_build_vocab, vocab_strict, r"count >= min_freq"),
    (checks.check_build_vocab, vocab_ignores_min_freq, "min_freq was ignored"),
    (checks.check_build_vocab, vocab_specials_last, "special tokens"),
    (checks.check_encode, encode_skip_unknown, "not be skipped"),
    (checks.check_encode, encode_unknown_as_pad, "not <pad>"),
    (checks.check_encode, encode_adds_bos_eos, "Don't add <bos>/<eos>"),
    (checks.check_decode, decode_drops_specials, "must be decoded too"),
    (checks.check_decode, decode_off_by_one, "Invert the vocab"),
    (checks.check_pad_batch, pad_left, "Pad on the right"),
    (checks.check_pad_batch, pad_with_zero, "not a hard-coded 0"),
    (checks.check_pad_batch, pad_returns_list, "should be a ndarray"),
    (checks.check_pad_batch, pad_float, "should hold integers"),
    (checks.check_pad_batch, pad_fixed_width, r"shape is \(batch, max_len\)"),
    (checks.check_get_pair_counts, pairs_non_overlapping, "Pairs overlap"),
    (checks.check_get_pair_counts, pairs_sorted_by_count, "order they first occur"),
    (checks.check_get_pair_counts, pairs_missing_last, "last pair is missing"),
    (checks.check_merge_pair, merge_double, "skip \\*both\\* merged ids"),
    (checks.check_merge_pair, merge_in_place, r"changed its argument `ids` in place"),
    (checks.check_train_bpe, train_ties_last, "tie was broken the wrong way"),
    (checks.check_train_bpe, train_ids_from_255, r"gets id 256 \+ i"),
    (checks.check_train_bpe, train_counts_once, "count pairs on the \\*current\\* ids"),
    (checks.check_bpe_encode, encode_chars, "UTF-8 bytes, not characters"),
    (checks.check_bpe_encode, encode_no_merges, "earliest-learned merge"),
    (checks.check_bpe_decode, decode_per_token, "Decode the joined bytes once"),
]


@pytest.mark.parametrize(
    "check, fn, message", MISTAKES, ids=[f"{c.__name__[6:]}-{f.__name__}" for c, f, _ in MISTAKES]
)
def test_classic_mistake_is_caught_with_its_message(check, fn, message):
    rejected_by_both(check, fn, message)


def test_vocab_with_gaps_is_caught():
    with pytest.raises(CheckFailure, match="no gaps or repeats"):
        checks.check_build_vocab(vocab_duplicate_special, hidden=True)


@pytest.mark.parametrize(
    "check",
    [getattr(checks, name) for name in dir(checks) if name.startswith("check_")],
    ids=lambda c: c.__name__,
)
def test_stub_says_not_implemented(check):
    def stub(*args, **kwargs):
        raise NotImplementedError()

    rejected_by_both(check, stub, "not implemented yet")


def test_learner_exception_is_explained_with_their_traceback():
    def buggy(text):
        return text.lower().splitt()

    with pytest.raises(CheckFailure, match="raised AttributeError") as info:
        checks.check_tokenize(buggy)
    assert "splitt" in info.value.learner_traceback
    rendered = "\n".join(info.value._render_traceback_())
    assert "tokenize: not yet right" in rendered and "Where your code raised it" in rendered


# --------------------------------------------------------------------- correct variants
def tokenize_loop(text):
    tokens, word = [], ""
    for ch in text.lower():
        if ch.isalnum() or ch == "_":
            word += ch
            continue
        if word:
            tokens.append(word)
            word = ""
        if not ch.isspace():
            tokens.append(ch)
    if word:
        tokens.append(word)
    return tokens


def tokenize_split_filter(text):
    return [t for t in re.split(r"(\w+|[^\w\s])|\s+", text.lower()) if t]


def vocab_two_stable_sorts(token_lists, min_freq=1):
    counts = Counter(t for tokens in token_lists for t in tokens)
    order = sorted(sorted(counts), key=lambda t: counts[t], reverse=True)
    vocab = {"<pad>": 0, "<unk>": 1, "<bos>": 2, "<eos>": 3}
    for token in order:
        if counts[token] >= min_freq and token not in vocab:
            vocab[token] = len(vocab)
    return vocab


def encode_try_except(tokens, vocab):
    out = []
    for token in tokens:
        try:
            out.append(vocab[token])
        except KeyError:
            out.append(vocab["<unk>"])
    return out


def decode_list_index(ids, vocab):
    tokens = sorted(vocab, key=vocab.get)
    return [tokens[i] for i in ids]


def pad_concat_int32(sequences, pad_id):
    width = max(map(len, sequences), default=0)
    return np.array(
        [list(s) + [pad_id] * (width - len(s)) for s in sequences], dtype=np.int32
    ).reshape(len(sequences), width)


def pairs_counter(ids):
    return Counter(zip(ids, ids[1:]))


def merge_index_loop(ids, pair, new_id):
    out, i = [], 0
    while i < len(ids):
        if ids[i : i + 2] == list(pair):
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def train_explicit_tie(text, num_merges):
    ids, merges = list(text.encode()), {}
    for step in range(num_merges):
        best, best_count = None, 0
        for i in range(len(ids) - 1):
            pair = (ids[i], ids[i + 1])
            count = sum(1 for j in range(len(ids) - 1) if (ids[j], ids[j + 1]) == pair)
            if count > best_count:
                best, best_count = pair, count
        if best is None:
            break
        ids = merge_index_loop(ids, best, 256 + step)
        merges[best] = 256 + step
    return merges


def encode_merges_in_learned_order(text, merges):
    ids = list(text.encode("utf-8"))
    for pair, new_id in merges.items():
        ids = ref.merge_pair(ids, pair, new_id)
    return ids


def decode_recursive(ids, merges):
    children = {new_id: pair for pair, new_id in merges.items()}

    def expand(i):
        if i < 256:
            return bytes([i])
        a, b = children[i]
        return expand(a) + expand(b)

    return b"".join(expand(i) for i in ids).decode("utf-8")


CORRECT = [
    (checks.check_tokenize, tokenize_loop),
    (checks.check_tokenize, tokenize_split_filter),
    (checks.check_build_vocab, vocab_two_stable_sorts),
    (checks.check_encode, encode_try_except),
    (checks.check_decode, decode_list_index),
    (checks.check_pad_batch, pad_concat_int32),
    (checks.check_get_pair_counts, pairs_counter),
    (checks.check_merge_pair, merge_index_loop),
    (checks.check_train_bpe, train_explicit_tie),
    (checks.check_bpe_encode, encode_merges_in_learned_order),
    (checks.check_bpe_decode, decode_recursive),
]


@pytest.mark.parametrize("check, fn", CORRECT, ids=[f.__name__ for _, f in CORRECT])
def test_correct_variant_passes(check, fn):
    run_both(check, fn)


@pytest.mark.parametrize("name", [n[6:] for n in dir(checks) if n.startswith("check_")])
def test_reference_passes_its_own_checks(name):
    run_both(getattr(checks, f"check_{name}"), getattr(ref, name))


# ----------------------------------------------------------------------------- oracles
def test_tokenize_matches_the_spec_example():
    # The example written in the issue and lesson text, not computed by the code.
    assert ref.tokenize("Hello, I love you!") == ["hello", ",", "i", "love", "you", "!"]
    assert ref.tokenize("didn't...") == ["didn", "'", "t", ".", ".", "."]
    assert ref.tokenize("Über_alles 42") == ["über_alles", "42"]


def test_build_vocab_matches_hand_worked_example():
    vocab = ref.build_vocab([["b", "a", "b"], ["a", "c"], ["d", "c", "c"]])
    # counts: c=3, a=2, b=2, d=1 -> c, then a before b (alphabetical tie), then d.
    assert vocab == {"<pad>": 0, "<unk>": 1, "<bos>": 2, "<eos>": 3, "c": 4, "a": 5, "b": 6, "d": 7}
    assert ref.build_vocab([["b", "a", "b"], ["a", "c"]], min_freq=2) == {
        "<pad>": 0, "<unk>": 1, "<bos>": 2, "<eos>": 3, "a": 4, "b": 5,
    }  # fmt: skip


def test_bpe_reproduces_the_published_worked_example():
    # Wikipedia's "Byte pair encoding": aaabdaaabac compresses to XdXac with X = "aaab"
    # after three merges (its tie order differs at step 2; the final tokens agree).
    merges = ref.train_bpe("aaabdaaabac", 3)
    ids = ref.bpe_encode("aaabdaaabac", merges)
    pieces = [ref.bpe_decode([i], merges) for i in ids]
    assert pieces == ["aaab", "d", "aaab", "a", "c"]
    assert list(merges) == [(97, 97), (256, 97), (257, 98)]


def test_overlapping_pairs_aaa():
    assert ref.get_pair_counts([97, 97, 97]) == {(97, 97): 2}
    assert ref.merge_pair([97, 97, 97], (97, 97), 256) == [256, 97]
    assert ref.bpe_encode("aaa", ref.train_bpe("aaa", 1)) == [256, 97]
    assert ref.train_bpe("aaa", 5) == {(97, 97): 256, (256, 97): 257}  # stops: one id left


@pytest.mark.parametrize(
    "text", ["naïve café, déjà vu", "東京タワー 🙂🙃", "ascii only", "", "a", "ééééé"]
)
def test_bpe_round_trips_unicode(text):
    merges = ref.train_bpe("naïve café déjà 東京 東京タワー 🙂🙂 ascii " * 3, 40)
    ids = ref.bpe_encode(text, merges)
    assert ref.bpe_decode(ids, merges) == text
    assert len(ids) <= len(text.encode("utf-8"))
    assert ids == encode_merges_in_learned_order(text, merges)


def test_pad_batch_with_empty_batch_and_empty_rows():
    assert ref.pad_batch([], 0).shape == (0, 0)
    np.testing.assert_array_equal(ref.pad_batch([[], [5]], 9), [[9], [5]])
