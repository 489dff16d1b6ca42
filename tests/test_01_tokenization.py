"""Lesson 01: the checks reject classic mistakes with the intended message and accept
correct variants (the ways minbpe, Sennrich et al., Hugging Face and the PyTorch/torchtext
tutorials write the same functions); the reference matches the spec's and the literature's
worked examples; the lesson's text states what its demos really show."""

from __future__ import annotations

import ast
import random
import re
import string
import unicodedata
import zlib
from collections import Counter, OrderedDict, defaultdict

import jupytext
import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
import regex  # installed with sacrebleu, a dependency of the course
import torch
from common import Correct, Mistake, lesson_tests

from transformer_course.build import REPO
from transformer_course.checking import CheckFailure
from transformer_course.checks import tokenization as checks
from transformer_course.data import long_tail_corpus, toy_corpus
from transformer_course.plotting import PAD_COLOUR, padded_batch
from transformer_course.reference import tokenization as ref

matplotlib.use("Agg")
SPECIALS = ["<pad>", "<unk>", "<bos>", "<eos>"]


# =============================================================================== mistakes
# ------------------------------------------------------------------------------ tokenize
def _finds(name: str, pattern: str, lower: bool = True):
    """A tokenizer that is one re.findall, as most learners write it."""

    def tokenize(text):
        return re.findall(pattern, text.lower() if lower else text)

    tokenize.__name__ = tokenize.__qualname__ = name
    return tokenize


def tokenize_runs_kept_once(text):  # a test against the previous token: '...' -> '.'
    tokens = []
    for token in re.findall(r"\w+|[^\w\s]", text.lower()):
        if not tokens or tokens[-1] != token:
            tokens.append(token)
    return tokens


def tokenize_lines_by_newline(text):  # text.split("\n"): one list of tokens per line
    return [re.findall(r"\w+|[^\w\s]", line.lower()) for line in text.split("\n")]


def tokenize_wrapped_in_list(text):  # the findall result put inside another list
    return [re.findall(r"\w+|[^\w\s]", text.lower())]


tokenize_no_lower = _finds("tokenize_no_lower", r"\w+|[^\w\s]", lower=False)
tokenize_drop_punct = _finds("tokenize_drop_punct", r"\w+")
tokenize_punct_runs = _finds("tokenize_punct_runs", r"\w+|[^\w\s]+")
tokenize_ascii_letters = _finds("tokenize_ascii_letters", r"[a-z]+|[^a-z\s]")
tokenize_ascii_word_chars = _finds("tokenize_ascii_word_chars", r"[a-z0-9_]+|[^\w\s]")
tokenize_space_only = _finds("tokenize_space_only", r"\w+|[^\w ]")
tokenize_keeps_apostrophes = _finds("tokenize_keeps_apostrophes", r"[\w']+|[^\w\s]")


def tokenize_upper(text):
    return re.findall(r"\w+|[^\w\s]", text.upper())


tokenize_letter_by_letter = _finds("tokenize_letter_by_letter", r"\w|[^\w\s]")
tokenize_empty_matches = _finds("tokenize_empty_matches", r"\w*|[^\w\s]")


def tokenize_drops_last(text):
    return re.findall(r"\w+|[^\w\s]", text.lower())[:-1]


tokenize_listed_marks = _finds("tokenize_listed_marks", r"\w+|[.,!?;:]")
tokenize_hyphen_in_words = _finds("tokenize_hyphen_in_words", r"[\w-]+|[^\w\s]")
tokenize_mark_glued_to_next_word = _finds("tokenize_mark_glued_to_next_word", r"\w+|\S\w*")


def tokenize_trims_marks_at_the_ends(text):  # a clean-up of the ends before the split
    trimmed = re.sub(r"^\W+|\W+$", "", text.lower())
    return re.findall(r"\w+|[^\w\s]", trimmed)


def tokenize_split_capturing_all_kept(text):
    return re.split(r"([^\w])", text.lower())  # spaces and '' kept


def tokenize_findall_groups(text):  # a compiled pattern with groups: one tuple per match
    pattern = re.compile(r"(\w+)|([^\w\s])")
    return pattern.findall(text.lower())


def tokenize_split(text):
    return text.lower().split()


# two mistakes at once (issue 22, class 4): each is recognised alone, and together too
def tokenize_split_no_lower(text):
    return text.split()


tokenize_drop_punct_no_lower = _finds("tokenize_drop_punct_no_lower", r"\w+", lower=False)
tokenize_ascii_no_lower = _finds("tokenize_ascii_no_lower", r"[A-Za-z]+|[^A-Za-z\s]", lower=False)


def tokenize_lowers_each_match(text):  # split the text as given, lower-case match by match
    tokens = []
    for match in re.finditer(r"\w+|[^\w\s]", text):
        tokens.append(match.group(0).lower())
    return tokens


def tokenize_split_keeps_empty_strings(text):
    return re.split(r"\s+|(?=[^\w\s])|(?<=[^\w\s])", text.lower())


# --------------------------------------------------------------------------- build_vocab
def vocab_shared_between_calls(token_lists, min_freq=1, _vocab={}):  # noqa: B006
    """One dict for every call (a mutable default, never copied): each call keeps the
    tokens of the earlier ones."""
    if not _vocab:
        _vocab.update({t: i for i, t in enumerate(SPECIALS)})
    counts = Counter(t for tokens in token_lists for t in tokens)
    for token, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        if count >= min_freq and token not in _vocab:
            _vocab[token] = len(_vocab)
    return _vocab


def _ranked_vocab(name: str, rank):
    """Specials first, then the frequent tokens in the order `rank(counts, token_lists)`
    gives: the learner's vocabulary loop, with one ordering mistake plugged in."""

    def build_vocab(token_lists, min_freq=1):
        counts = Counter(t for tokens in token_lists for t in tokens)
        vocab = {t: i for i, t in enumerate(SPECIALS)}
        for token in rank(counts, token_lists):
            if counts[token] >= min_freq and token not in vocab:
                vocab[token] = len(vocab)
        return vocab

    build_vocab.__name__ = build_vocab.__qualname__ = name
    return build_vocab


vocab_most_common = _ranked_vocab(
    "vocab_most_common", lambda counts, _: [t for t, _ in counts.most_common()]
)
vocab_ascending = _ranked_vocab(
    "vocab_ascending", lambda counts, _: sorted(counts, key=lambda t: (counts[t], t))
)
vocab_alphabetical = _ranked_vocab("vocab_alphabetical", lambda counts, _: sorted(counts))
# A word-to-index dict filled while reading, as in the classic seq2seq tutorials.
vocab_in_order_seen = _ranked_vocab(
    "vocab_in_order_seen", lambda _, token_lists: [t for tokens in token_lists for t in tokens]
)


def vocab_once_per_sentence(token_lists, min_freq=1):  # document frequency, not counts
    counts = Counter()
    for tokens in token_lists:
        counts.update(set(tokens))
    vocab = {t: i for i, t in enumerate(ref.SPECIAL_TOKENS)}
    for token, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        if n >= min_freq and token not in vocab:
            vocab[token] = len(vocab)
    return vocab


def vocab_strict_and_most_common(token_lists, min_freq=1):  # two mistakes at once
    counts = Counter(t for tokens in token_lists for t in tokens)
    vocab = {token: i for i, token in enumerate(ref.SPECIAL_TOKENS)}
    for token, count in counts.most_common():
        if count > min_freq and token not in vocab:
            vocab[token] = len(vocab)
    return vocab


def vocab_top_min_freq_sliced(token_lists, min_freq=1):  # the top min_freq tokens, not counts
    counts = Counter(t for tokens in token_lists for t in tokens)
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    vocab = {special: i for i, special in enumerate(SPECIALS)}
    for token, _ in ranked[:min_freq]:
        vocab.setdefault(token, len(vocab))
    return vocab


def vocab_id_fixed_after_specials(token_lists, min_freq=1):  # one id for every data token
    counts = Counter(t for tokens in token_lists for t in tokens)
    vocab = {special: i for i, special in enumerate(SPECIALS)}
    for token, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        if count >= min_freq and token not in vocab:
            vocab[token] = len(SPECIALS)
    return vocab


def vocab_specials_zeroed_in_counts(token_lists, min_freq=1):  # counts[s] = 0, never deleted
    counts = Counter(t for tokens in token_lists for t in tokens)
    for special in SPECIALS:
        counts[special] = 0  # "not counted": the key stays, with count 0
    vocab = {special: i for i, special in enumerate(SPECIALS)}
    for token, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        if count >= min_freq:
            vocab[token] = len(vocab)
    return vocab


def vocab_strict(token_lists, min_freq=1):
    return ref.build_vocab(token_lists, min_freq + 1)


def vocab_ignores_min_freq(token_lists, min_freq=1):
    return ref.build_vocab(token_lists, 1)


def vocab_counts_reset_per_list(token_lists, min_freq=1):  # Counter made inside the loop
    counts = Counter()
    for tokens in token_lists:
        counts = Counter(tokens)
    vocab = {t: i for i, t in enumerate(SPECIALS)}
    for token, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        if count >= min_freq and token not in vocab:
            vocab[token] = len(vocab)
    return vocab


def vocab_first_list_only(token_lists, min_freq=1):  # return inside the loop
    for tokens in token_lists:
        return ref.build_vocab([tokens], min_freq)
    return ref.build_vocab([], min_freq)


def vocab_most_common_ignoring_min_freq(token_lists, min_freq=1):  # two mistakes at once
    vocab = {t: i for i, t in enumerate(SPECIALS)}
    for token, _ in Counter(t for tokens in token_lists for t in tokens).most_common():
        vocab.setdefault(token, len(vocab))
    return vocab


def vocab_specials_last(token_lists, min_freq=1):
    counts = Counter(t for tokens in token_lists for t in tokens)
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    vocab = {t: i for i, (t, n) in enumerate(t for t in ranked if t[1] >= min_freq)}
    for special in SPECIALS:
        vocab.setdefault(special, len(vocab))
    return vocab


def vocab_duplicate_special(token_lists, min_freq=1):
    """Skips a data token that equals a special token, but uses up an id for it."""
    vocab = {t: i for i, t in enumerate(SPECIALS)}
    counts = Counter(t for tokens in token_lists for t in tokens)
    next_id = 4
    for token, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        if n >= min_freq:
            if token not in vocab:
                vocab[token] = next_id
            next_id += 1
    return vocab


def vocab_overwrites_special(token_lists, min_freq=1):
    """Gives every frequent data token a new id, "<unk>" included."""
    counts = Counter(t for tokens in token_lists for t in tokens)
    vocab = {t: i for i, t in enumerate(SPECIALS)}
    for token, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        if n >= min_freq:
            vocab[token] = len(vocab)
    return vocab


# -------------------------------------------------------------------------- encode/decode
def encode_skip_unknown(tokens, vocab):
    return [vocab[t] for t in tokens if t in vocab]


def encode_unknown_one_unk_per_letter(tokens, vocab):  # an unknown word as <unk> per letter
    ids = []
    for token in tokens:
        ids.extend([vocab[token]] if token in vocab else [vocab["<unk>"]] * len(token))
    return ids


def encode_unknown_wrapped_in_unk_pair(tokens, vocab):  # <unk> twice for an unknown word
    ids = []
    for token in tokens:
        ids.extend([vocab[token]] if token in vocab else [vocab["<unk>"], vocab["<unk>"]])
    return ids


def encode_unknown_as_pad(tokens, vocab):
    return [vocab.get(t, 0) for t in tokens]


def encode_adds_bos_eos(tokens, vocab):
    return [2, *ref.encode(tokens, vocab), 3]


def encode_unknown_as_new_id(tokens, vocab):
    return [vocab.get(t, len(vocab)) for t in tokens]


def encode_grows_the_vocab(tokens, vocab):
    return [vocab.setdefault(t, len(vocab)) for t in tokens]


def tokenize_letters_only(text):  # digits match neither alternative: dropped
    letters_or_mark = re.compile(r"[^\W\d_]+|[^\w\s]")
    return [match.group() for match in letters_or_mark.finditer(text.lower())]


def encode_get_without_default(tokens, vocab):  # None for every unknown token
    return [vocab.get(token) for token in tokens]


def decode_by_membership(ids, vocab):  # each token once, in the vocabulary's order
    wanted = [int(i) for i in ids]
    return [token for token, index in vocab.items() if index in wanted]


def decode_drops_specials(ids, vocab):
    return [t for t in ref.decode(ids, vocab) if t not in SPECIALS]


def decode_off_by_one(ids, vocab):
    inverse = {i: t for t, i in vocab.items()}
    return [inverse.get(int(i) + 1, "<unk>") for i in ids]


def decode_by_position(ids, vocab):  # range(len(ids)): the positions, not the ids
    inverse = {i: t for t, i in vocab.items()}
    return [inverse[k] for k in range(len(ids))]


def decode_tests_truthiness(ids, vocab):
    if not ids:
        return []
    return ref.decode(ids, vocab)


def decode_by_key_position(ids, vocab):
    """Reads list(vocab) by id: right only while the keys are stored in id order."""
    itos = dict(enumerate(vocab))
    return [itos[int(i)] for i in ids]


# ----------------------------------------------------------------------------- pad_batch
def pad_width_of_first(sequences, pad_id):  # raises once a later sequence is longer
    batch = np.full((len(sequences), len(sequences[0]) if sequences else 0), pad_id)
    for row, seq in enumerate(sequences):
        batch[row, : len(seq)] = seq
    return batch


def pad_width_is_the_longest_row(sequences, pad_id):  # the row itself, not its length
    longest = sorted(sequences, key=len)[-1]
    batch = np.zeros((len(sequences), longest), dtype=np.int64) + pad_id
    for row, seq in enumerate(sequences):
        batch[row, : len(seq)] = seq
    return batch


def pad_uninitialised_ndarray(sequences, pad_id):  # np.ndarray(shape): memory never set
    width = max((len(seq) for seq in sequences), default=0)
    batch = np.ndarray((len(sequences), width), dtype=np.int64)
    for row, seq in enumerate(sequences):
        batch[row, : len(seq)] = seq
    return batch


def pad_truncated_to_first(sequences, pad_id):  # cuts the longer ones to the first's width
    width = len(sequences[0]) if sequences else 0
    batch = np.full((len(sequences), width), pad_id)
    for row, seq in enumerate(sequences):
        batch[row, : min(width, len(seq))] = seq[:width]
    return batch


def pad_time_first(sequences, pad_id):  # one column per sequence, as pad_sequence's default
    width = max((len(seq) for seq in sequences), default=0)
    batch = np.full((width, len(sequences)), pad_id, dtype=np.int64)
    for column, seq in enumerate(sequences):
        batch[: len(seq), column] = seq
    return batch


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


def pad_uint8(sequences, pad_id):  # 8 bits: numpy 2 refuses ids past 255 on the copy
    width = max((len(s) for s in sequences), default=0)
    batch = np.full((len(sequences), width), pad_id, dtype=np.uint8)
    for row, seq in enumerate(sequences):
        batch[row, : len(seq)] = seq
    return batch


def pad_cast_to_uint8(sequences, pad_id):  # astype wraps ids past 255 around, silently
    return ref.pad_batch(sequences, pad_id).astype(np.uint8)


def pad_concatenate_makes_floats(sequences, pad_id):
    """np.concatenate of an empty list and the padding gives floats."""
    width = max(len(s) for s in sequences)
    return np.array([np.concatenate([s, [pad_id] * (width - len(s))]) for s in sequences])


# ----------------------------------------------------------------------------------- BPE
def pairs_wrap_around(ids):  # a rotated copy: the pair (last id, first id) counted too
    counts = {}
    for pair in zip(ids, ids[1:] + ids[:1]):
        counts[pair] = counts.get(pair, 0) + 1
    return counts


def pairs_non_overlapping(ids):
    counts, i = {}, 0
    while i + 1 < len(ids):
        pair = (ids[i], ids[i + 1])
        counts[pair] = counts.get(pair, 0) + 1
        i += 2 if ids[i] == ids[i + 1] else 1
    return counts


def pairs_mutable_default(ids, counts={}):  # noqa: B006 (the mistake: one dict for every call)
    for i in range(len(ids) - 1):
        counts[ids[i], ids[i + 1]] = counts.get((ids[i], ids[i + 1]), 0) + 1
    return counts


def pairs_counted_from_nothing(ids):  # a plain dict read before the pair has an entry
    counts = {}
    for i in range(len(ids) - 1):
        counts[ids[i], ids[i + 1]] = counts[ids[i], ids[i + 1]] + 1
    return counts


def pairs_sorted_by_count(ids):
    return dict(Counter(zip(ids, ids[1:], strict=False)).most_common())


def pairs_in_set_order(ids):
    pairs = list(zip(ids, ids[1:], strict=False))
    return {pair: pairs.count(pair) for pair in set(pairs)}


def pairs_packed_by_shifting(ids):
    keys = Counter((a << 8) + b for a, b in zip(ids, ids[1:], strict=False))
    return {(key >> 8, key & 0xFF): count for key, count in keys.items()}


def pairs_missing_last(ids):
    return dict(ref.get_pair_counts(ids[:-1]))


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


def _scan(ids, new_id, matches, step=2):
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and matches(ids[i], ids[i + 1]):
            out.append(new_id)
            i += step
        else:
            out.append(ids[i])
            i += 1
    return out


def merge_slice_against_tuple(ids, pair, new_id):  # a list never equals a tuple
    return _scan(ids, new_id, lambda a, b: [a, b] == pair)


def bpe_decode_joined_with_spaces(ids, merges):  # b" ".join: a space between tokens
    pieces = {i: bytes([i]) for i in range(256)}
    for pair, new_id in merges.items():
        pieces[new_id] = pieces[pair[0]] + pieces[pair[1]]
    return " ".join(pieces[i].decode("utf-8", errors="replace") for i in ids)


def bpe_decode_first_part_only(ids, merges):  # table[new_id] = table[a]: b left out
    parts = {i: bytes([i]) for i in range(256)}
    for (a, _b), new_id in merges.items():
        parts[new_id] = parts[a]
    return b"".join(parts[i] for i in ids).decode("utf-8", errors="replace")


def bpe_decode_parts_subtracted(ids, merges):  # bytes - bytes: a TypeError
    table = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        table[new_id] = table[a] - table[b]
    return b"".join(table[i] for i in ids).decode("utf-8")


def bpe_decode_range_257(ids, merges):  # one byte too many: bytes([256]) raises
    table = {i: bytes([i]) for i in range(257)}
    for (a, b), new_id in merges.items():
        table[new_id] = table[a] + table[b]
    return b"".join(table[i] for i in ids).decode("utf-8")


def bpe_decode_parts_as_bytes(ids, merges):
    vocab = {new_id: bytes(pair) for pair, new_id in merges.items()}  # wrong for nested merges
    return b"".join(vocab.get(i, bytes([i])) for i in ids).decode("utf-8")


def merge_skips_repeats_of_second_id(ids, pair, new_id):
    """After a merge, also skips every following id equal to the pair's second id: a run
    of three equal ids merged by (a, a) collapses into one new id."""
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == tuple(pair):
            out.append(new_id)
            i += 2
            while i < len(ids) and ids[i] == pair[1] and pair[0] == pair[1]:
                i += 1
        else:
            out.append(ids[i])
            i += 1
    return out


def merge_first_id_only(ids, pair, new_id):  # ids[i] == pair[0], whatever follows
    return _scan(ids, new_id, lambda a, b: a == pair[0])


def merge_stops_at_unpaired_first_id(ids, pair, new_id):  # gives up at the first stray pair[0]
    out, i = [], 0
    while i < len(ids):
        if ids[i] == pair[0]:
            if i + 1 < len(ids) and ids[i + 1] == pair[1]:
                out.append(new_id)
                i += 2
                continue
            out.extend(ids[i:])  # this pair[0] is not followed by pair[1]: give up
            break
        out.append(ids[i])
        i += 1
    return out


def merge_second_id_only(ids, pair, new_id):  # ids[i + 1] == pair[1], whatever precedes
    return _scan(ids, new_id, lambda a, b: b == pair[1])


def merge_either_id(ids, pair, new_id):  # or where and belongs: one matching id is enough
    return _scan(ids, new_id, lambda a, b: a == pair[0] or b == pair[1])


def merge_first_id_twice(ids, pair, new_id):  # (ids[i], ids[i]) == pair: i + 1 lost
    return _scan(ids, new_id, lambda a, b: (a, a) == tuple(pair))


def merge_first_id_only_fails_on_other_pairs(ids, pair, new_id):
    """ids[i] == pair[0], and a crash on any pair of two different ids: the probe that
    tells 'first id only' from 'first id twice' gives no verdict, so both are named."""
    if pair[0] != pair[1]:
        raise RuntimeError("only pairs of equal ids")
    return _scan(ids, new_id, lambda a, b: a == pair[0])


def merge_skip_flag_never_reset(ids, pair, new_id):  # everything after the first merge lost
    merged, skip = [], False
    for i in range(len(ids)):
        if skip:
            continue
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            merged.append(new_id)
            skip = True
        else:
            merged.append(ids[i])
    return merged


def train_records_256_minus_step(text, num_merges):  # merges with 256 + i, records 256 - i
    ids, merges = list(text.encode("utf-8")), {}
    for step in range(num_merges):
        counts = ref.get_pair_counts(ids)
        if not counts:
            break
        best = max(counts, key=counts.get)
        ids = ref.merge_pair(ids, best, 256 + step)
        merges[best] = 256 - step
    return merges


def train_max_over_items(text, num_merges):  # best is a (pair, count) item, not a pair
    ids, merges = list(text.encode("utf-8")), {}
    for step in range(num_merges):
        counts = ref.get_pair_counts(ids)
        if not counts:
            break
        best = max(counts.items(), key=lambda item: item[1])
        ids = ref.merge_pair(ids, best, 256 + step)
        merges[best] = 256 + step
    return merges


def train_merges_inverted(text, num_merges):  # {new_id: pair}, a vocabulary's direction
    return {new_id: pair for pair, new_id in ref.train_bpe(text, num_merges).items()}


def merge_compares_previous_id(ids, pair, new_id):  # (ids[i], ids[i - 1]): i - 1 for i + 1
    merged, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i - 1]) == pair:
            merged.append(new_id)
            i += 2
        else:
            merged.append(ids[i])
            i += 1
    return merged


def merge_guard_one_too_far(ids, pair, new_id):  # i + 1 <= len(ids): reads ids[len(ids)]
    merged, i = [], 0
    while i < len(ids):
        if i + 1 <= len(ids) and (ids[i], ids[i + 1]) == pair:
            merged.append(new_id)
            i += 2
        else:
            merged.append(ids[i])
            i += 1
    return merged


def pairs_two_by_two(ids):  # zip(ids[::2], ids[1::2]): pairs at even positions only
    return dict(Counter(zip(ids[::2], ids[1::2])))


def pairs_while_past_the_end(ids):  # i < len(ids): ids[i + 1] read at the last id
    counts, i = {}, 0
    while i < len(ids):
        pair = (ids[i], ids[i + 1])
        counts[pair] = counts.get(pair, 0) + 1
        i += 1
    return counts


def pairs_as_sorted_tuples(ids):  # tuple(sorted(...)): (b, a) counted as (a, b)
    return dict(Counter(tuple(sorted(pair)) for pair in zip(ids, ids[1:])))


def pairs_of_distinct_ids_only(ids):  # len(set(pair)) == 2: (a, a) never counted
    counts = Counter(zip(ids, ids[1:]))
    return {pair: n for pair, n in counts.items() if len(set(pair)) == 2}


def pairs_backwards(ids):
    return dict(Counter((b, a) for a, b in zip(ids, ids[1:])))


def pairs_two_apart(ids):
    return {pair: n for pair, n in Counter(zip(ids, ids[2:])).items()}


def vocab_right_key_reversed(token_lists, min_freq=1):
    counts = Counter(t for tokens in token_lists for t in tokens)
    vocab = {t: i for i, t in enumerate(SPECIALS)}
    for token in sorted(counts, key=lambda t: (-counts[t], t), reverse=True):
        if counts[token] >= min_freq and token not in vocab:
            vocab[token] = len(vocab)
    return vocab


def decode_until_pad(ids, vocab):
    inverse = {i: t for t, i in vocab.items()}
    tokens = [inverse[int(i)] for i in ids]
    return tokens[: tokens.index("<pad>")] if "<pad>" in tokens else tokens


def decode_drops_pad(ids, vocab):  # padding filtered out, the other specials kept
    id_to_token = {i: t for t, i in vocab.items()}
    return [id_to_token[int(i)] for i in ids if int(i) != vocab["<pad>"]]


def decode_with_tolist(ids, vocab):
    inverse = {i: t for t, i in vocab.items()}
    return [inverse[i] for i in ids.tolist()]


def train_one_merge_too_many(text, num_merges):
    return ref.train_bpe(text, num_merges + 1) if len(text.encode()) > num_merges + 1 else {}


def train_merges_latest_first(text, num_merges):  # the dict built newest merge first
    return dict(reversed(list(ref.train_bpe(text, num_merges).items())))


def train_one_merge_short(text, num_merges):
    return ref.train_bpe(text, max(num_merges - 1, 0))


def bpe_decode_ascii_table(ids, merges):  # 128 single bytes: no byte of a non-ASCII letter
    table = {i: bytes([i]) for i in range(128)}
    for (a, b), new_id in merges.items():
        table[new_id] = table[a] + table[b]
    return b"".join(table[i] for i in ids).decode("utf-8")


def bpe_decode_table_of_seen_bytes(ids, merges):  # only the bytes the ids hold alone
    table = {}
    for i in ids:
        if i < 256:
            table[i] = bytes([i])
    for (a, b), new_id in merges.items():
        table[new_id] = table[a] + table[b]
    return b"".join(table[i] for i in ids).decode("utf-8")


def bpe_decode_parts_swapped(ids, merges):
    table = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        table[new_id] = table[b] + table[a]
    return b"".join(table[i] for i in ids).decode("utf-8", errors="replace")


def vocab_bound_one_too_low(token_lists, min_freq=1):
    counts = Counter(t for tokens in token_lists for t in tokens)
    vocab = {t: i for i, t in enumerate(SPECIALS)}
    for token, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        if count > min_freq - 2 and token not in vocab:
            vocab[token] = len(vocab)
    return vocab


def pad_batch_to_multiple_of_8(sequences, pad_id):  # pad_to_multiple_of=8, for tensor cores
    longest = max((len(seq) for seq in sequences), default=0)
    batch = np.full((len(sequences), -(-longest // 8) * 8), pad_id, dtype=np.int64)
    for row, seq in enumerate(sequences):
        batch[row, : len(seq)] = seq
    return batch


def pad_batch_to_power_of_two(sequences, pad_id):  # a bucket of the next power of two
    longest = max((len(seq) for seq in sequences), default=0)
    width = 1 << max(longest - 1, 0).bit_length() if longest else 0
    batch = np.full((len(sequences), width), pad_id, dtype=np.int64)
    for row, seq in enumerate(sequences):
        batch[row, : len(seq)] = seq
    return batch


_IDS_BY_TOKENS: dict = {}


def encode_cached_by_tokens(tokens, vocab):  # memoised on the tokens alone, not the vocab
    key = tuple(tokens)
    if key not in _IDS_BY_TOKENS:
        _IDS_BY_TOKENS[key] = ref.encode(tokens, vocab)
    return _IDS_BY_TOKENS[key]


_RUNNING_COUNTS: Counter = Counter()


def vocab_counts_kept_across_calls(token_lists, min_freq=1):  # one Counter for every call
    for tokens in token_lists:
        _RUNNING_COUNTS.update(tokens)
    return ref.build_vocab([list(_RUNNING_COUNTS.elements())], min_freq)


def encode_ids_plus_one(tokens, vocab):
    return [vocab.get(t, vocab["<unk>"]) + 1 for t in tokens]


def encode_unknown_as_eos(tokens, vocab):
    return [vocab[t] if t in vocab else vocab["<eos>"] for t in tokens]


def encode_drops_last(tokens, vocab):
    return [vocab.get(t, vocab["<unk>"]) for t in tokens[:-1]]


def encode_skips_seen_tokens(tokens, vocab):  # each token's id once, first-seen order
    seen, ids = set(), []
    for token in tokens:
        if token not in seen:
            seen.add(token)
            ids.append(vocab.get(token, vocab["<unk>"]))
    return ids


def encode_over_unique_tokens(tokens, vocab):  # np.unique: each token once, sorted
    return [vocab.get(str(token), vocab["<unk>"]) for token in np.unique(tokens)]


def encode_prepends_each_id(tokens, vocab):  # insert(0, ...): the ids come out backwards
    ids = []
    for token in tokens:
        ids.insert(0, vocab.get(token, vocab["<unk>"]))
    return ids


def encode_sorted_ids(tokens, vocab):
    return sorted(vocab.get(token, vocab["<unk>"]) for token in tokens)


def encode_ids_by_enumerated_keys(tokens, vocab):  # the key's position taken as its id
    position = {token: index for index, token in enumerate(vocab)}
    return [position.get(token, vocab["<unk>"]) for token in tokens]


def encode_numbers_words_after_specials(tokens, vocab):  # 4 + rank among the non-special keys
    words = [token for token in vocab if token not in SPECIALS]
    numbered = {**{t: vocab[t] for t in SPECIALS}, **{t: 4 + k for k, t in enumerate(words)}}
    return [numbered.get(token, vocab["<unk>"]) for token in tokens]


def decode_skips_token_equal_to_previous(ids, vocab):  # a repeat in a row kept once
    id_to_token = {index: token for token, index in vocab.items()}
    tokens = []
    for index in ids:
        token = id_to_token[int(index)]
        if not tokens or tokens[-1] != token:
            tokens.append(token)
    return tokens


def pairs_keyed_by_joined_text(ids):  # "97,98" where the tuple (97, 98) belongs
    counts = {}
    for left, right in zip(ids, ids[1:]):
        counts[f"{left},{right}"] = counts.get(f"{left},{right}", 0) + 1
    return counts


def decode_one_id_low(ids, vocab):
    inverse = {i: t for t, i in vocab.items()}
    return [inverse[int(i) - 1] for i in ids]


def decode_unwraps_every_row(ids, vocab):  # assumes <bos> ... <eos> around every row
    id_to_token = {index: token for token, index in vocab.items()}
    tokens = [id_to_token[int(i)] for i in ids]
    return tokens[1 : len(tokens) - 1]


def decode_reversed(ids, vocab):
    inverse = {i: t for t, i in vocab.items()}
    return [inverse[int(i)] for i in reversed(list(ids))]


def pad_with_max_len(sequences, pad_id):  # the padding holds max_len, not pad_id
    width = max((len(s) for s in sequences), default=0)
    return np.array([list(s) + [width] * (width - len(s)) for s in sequences], dtype=np.int64)


def decode_table_in_default_argument(ids, vocab, _id_to_token={}):  # noqa: B006 (the mistake)
    if not _id_to_token:  # filled on the first call only
        _id_to_token.update({index: token for token, index in vocab.items()})
    return [_id_to_token[int(index)] for index in ids]


def tokenize_ascii_marks_by_character(text):  # a mark is any ASCII punctuation but '_'
    marks = set(string.punctuation) - {"_"}
    spaced = "".join(f" {ch} " if ch in marks else ch for ch in text.lower())
    return spaced.split()


def pad_cut_to_shortest(sequences, pad_id):  # every row cut at min() of the lengths
    width = max((len(s) for s in sequences), default=0)
    shortest = min((len(s) for s in sequences), default=0)
    rows = [list(s[:shortest]) + [pad_id] * (width - shortest) for s in sequences]
    return np.array(rows, dtype=np.int64).reshape(len(sequences), width)


def pad_gaps_with_none(sequences, pad_id):  # the gaps hold None, pad_id never used
    width = max((len(s) for s in sequences), default=0)
    rows = [list(s) + [None] * (width - len(s)) for s in sequences]
    return np.array(rows, dtype=np.int64).reshape(len(sequences), width)


def pad_rows_reversed(sequences, pad_id):
    width = max((len(s) for s in sequences), default=0)
    rows = [list(reversed(s)) + [pad_id] * (width - len(s)) for s in sequences]
    return np.array(rows, dtype=np.int64).reshape(len(sequences), width)


def merge_writes_new_id_plus_one(ids, pair, new_id):
    return ref.merge_pair(ids, pair, new_id + 1)


def bpe_decode_drops_last(ids, merges):
    return ref.bpe_decode(list(ids)[:-1], merges)


def bpe_decode_as_ascii(ids, merges):
    pieces = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        pieces[new_id] = pieces[a] + pieces[b]
    return b"".join(pieces[i] for i in ids).decode("ascii", errors="replace")


def train_on_casefolded_text(text, num_merges):  # capitals folded before the bytes
    return ref.train_bpe(text.casefold(), num_merges)


def train_on_stripped_text(text, num_merges):  # the outer spaces' bytes never counted
    return ref.train_bpe(text.strip(), num_merges)


def train_on_latin1(text, num_merges):
    ids, merges = list(text.encode("latin-1", errors="replace")), {}
    for step in range(num_merges):
        counts = ref.get_pair_counts(ids)
        if not counts:
            break
        best = max(counts, key=counts.get)
        ids = ref.merge_pair(ids, best, 256 + step)
        merges[best] = 256 + step
    return merges


def train_new_id_above_the_largest(text, num_merges):
    ids, merges = list(text.encode("utf-8")), {}
    for _ in range(num_merges):
        counts = ref.get_pair_counts(ids)
        if not counts:
            break
        best, new_id = max(counts, key=counts.get), max(ids) + 1
        ids = ref.merge_pair(ids, best, new_id)
        merges[best] = new_id
    return merges


def bpe_decode_repr(ids, merges):
    table = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        table[new_id] = table[a] + table[b]
    return f"{b''.join(table[i] for i in ids)}"


def merge_right_to_left(ids, pair, new_id):  # scanned from the end, the result reversed
    merged, i = [], len(ids) - 1
    while i >= 0:
        if i >= 1 and (ids[i - 1], ids[i]) == pair:
            merged.append(new_id)
            i -= 2
        else:
            merged.append(ids[i])
            i -= 1
    return merged[::-1]


def merge_guard_one_too_short(ids, pair, new_id):  # i + 2 < len(ids): the last pair unseen
    merged, i = [], 0
    while i < len(ids):
        if i + 2 < len(ids) and (ids[i], ids[i + 1]) == pair:
            merged.append(new_id)
            i += 2
        else:
            merged.append(ids[i])
            i += 1
    return merged


def merge_step_one(ids, pair, new_id):  # i += 1 after a merge: overlapping merges
    return _scan(ids, new_id, lambda a, b: (a, b) == tuple(pair), step=1)


def merge_in_place(ids, pair, new_id):
    merged = ref.merge_pair(ids, pair, new_id)
    ids[:] = merged
    return ids


def merge_drops_last(ids, pair, new_id):
    out, i = [], 0
    while i < len(ids) - 1:
        if (ids[i], ids[i + 1]) == pair:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


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


def train_ids_from_257(text, num_merges):
    return {pair: new_id + 1 for pair, new_id in ref.train_bpe(text, num_merges).items()}


def train_same_id_for_every_merge(text, num_merges):
    ids, merges = list(text.encode("utf-8")), {}
    for _ in range(num_merges):
        counts = ref.get_pair_counts(ids)
        if not counts:
            break
        best = max(counts, key=counts.get)
        ids = ref.merge_pair(ids, best, 256)
        merges[best] = 256
    return merges


def _train_merging_with(merged_with):
    def train(text, num_merges):
        """Merges with ``merged_with(i)`` but records 256 + i."""
        ids, merges = list(text.encode("utf-8")), {}
        for i in range(num_merges):
            counts = ref.get_pair_counts(ids)
            if not counts:
                break
            best = max(counts, key=counts.get)
            ids = ref.merge_pair(ids, best, merged_with(i))
            merges[best] = 256 + i
        return merges

    return train


def train_counts_once(text, num_merges):
    ids = list(text.encode("utf-8"))
    counts = ref.get_pair_counts(ids)
    merges = {}
    for step, pair in enumerate(sorted(counts, key=lambda p: -counts[p])[:num_merges]):
        ids = ref.merge_pair(ids, pair, 256 + step)
        merges[pair] = 256 + step
    return merges


def train_ids_never_updated(text, num_merges):
    """merge_pair's result dropped: every step counts the same ids and picks the same pair."""
    ids, merges = list(text.encode("utf-8")), {}
    for step in range(num_merges):
        counts = ref.get_pair_counts(ids)
        if not counts:
            break
        best = max(counts, key=counts.get)
        ref.merge_pair(ids, best, 256 + step)
        merges[best] = 256 + step
    return merges


def train_on_characters(text, num_merges):
    ids, merges = [ord(ch) for ch in text], {}
    for step in range(num_merges):
        counts = ref.get_pair_counts(ids)
        if not counts:
            break
        best = max(counts, key=counts.get)
        ids = ref.merge_pair(ids, best, 256 + step)
        merges[best] = 256 + step
    return merges


def train_never_stops(text, num_merges):
    ids, merges = list(text.encode("utf-8")), {}
    for step in range(num_merges):
        counts = ref.get_pair_counts(ids)
        best = max(counts, key=counts.get)
        ids = ref.merge_pair(ids, best, 256 + step)
        merges[best] = 256 + step
    return merges


def train_merges_newest_first(text, num_merges):
    return dict(reversed(ref.train_bpe(text, num_merges).items()))


def encode_without_a_stop(text, merges):
    """Asks min() for the best of no pairs once the text is a single token."""
    ids = list(text.encode("utf-8"))
    while True:
        stats = ref.get_pair_counts(ids)
        pair = min(stats, key=lambda p: merges.get(p, float("inf")))
        if pair not in merges:
            return ids
        ids = ref.merge_pair(ids, pair, merges[pair])


def encode_stops_at_two_ids(text, merges):
    """Stops while two ids are left (> 2 where >= 2 belongs): their merge is never made."""
    ids = list(text.encode("utf-8"))
    while len(ids) > 2:
        present = [pair for pair in ref.get_pair_counts(ids) if pair in merges]
        if not present:
            break
        pair = min(present, key=merges.get)
        ids = ref.merge_pair(ids, pair, merges[pair])
    return ids


def encode_looks_up_unlearned_pair(text, merges):
    """Looks the lowest-ranked pair up without asking whether it is a merge: KeyError."""
    ids = list(text.encode("utf-8"))
    while len(ids) > 1:
        ranked = sorted(ref.get_pair_counts(ids), key=lambda p: merges.get(p, 10**9))
        ids = ref.merge_pair(ids, ranked[0], merges[ranked[0]])
    return ids


def encode_greedy_left_to_right(text, merges):
    """A stack: merge the last two ids whenever they form a learned pair, as bytes arrive."""
    out = []
    for token in text.encode("utf-8"):
        out.append(token)
        while len(out) >= 2 and (out[-2], out[-1]) in merges:
            right, left = out.pop(), out.pop()
            out.append(merges[(left, right)])
    return out


def train_on_words(text, num_merges):  # words trained apart: the spaces dropped
    words = [list(word.encode("utf-8")) for word in text.split()]
    merges = {}
    for step in range(num_merges):
        counts = Counter()
        for word in words:
            counts.update(ref.get_pair_counts(word))
        if not counts:
            break
        best = max(counts, key=counts.get)
        words = [ref.merge_pair(word, best, 256 + step) for word in words]
        merges[best] = 256 + step
    return merges


def encode_leftmost_pair_first(text, merges):  # present[0]: the leftmost, whatever its rank
    ids = list(text.encode("utf-8"))
    while len(ids) >= 2:
        present = [p for p in ref.get_pair_counts(ids) if p in merges]
        if not present:
            break
        ids = ref.merge_pair(ids, present[0], merges[present[0]])
    return ids


def encode_longest_match(text, merges):  # WordPiece's greedy longest match over the tokens
    pieces = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        pieces[new_id] = pieces[a] + pieces[b]
    table = {piece: token for token, piece in pieces.items()}
    data, ids, start = text.encode("utf-8"), [], 0
    while start < len(data):
        stop = max(k for k in range(start + 1, len(data) + 1) if data[start:k] in table)
        ids.append(table[data[start:stop]])
        start = stop
    return ids


def encode_smallest_pair_first(text, merges):  # min(present) without key=merges.get
    ids = list(text.encode("utf-8"))
    while len(ids) >= 2:
        present = [p for p in ref.get_pair_counts(ids) if p in merges]
        if not present:
            break
        pair = min(present)
        ids = ref.merge_pair(ids, pair, merges[pair])
    return ids


def encode_pairs_looked_up_in_inverted_dict(text, merges):  # {new_id: pair}: no pair a key
    inverted = {new_id: pair for pair, new_id in merges.items()}
    ids = list(text.encode("utf-8"))
    while len(ids) >= 2:
        known = [p for p in zip(ids, ids[1:]) if p in inverted]
        if not known:
            break
        best = min(known, key=lambda p: merges[p])
        ids = ref.merge_pair(ids, best, merges[best])
    return ids


def encode_first_learned_merge_overall(text, merges):  # next(iter(merges)): never the present
    ids = list(text.encode("utf-8"))
    while len(ids) >= 2:
        if not any(p in merges for p in zip(ids, ids[1:])):
            break
        first = next(iter(merges))  # the earliest learned of all, present or not
        ids = ref.merge_pair(ids, first, merges[first])
    return ids


def encode_latest_merge_first(text, merges):
    ids = list(text.encode("utf-8"))
    while len(ids) > 1:
        known = [p for p in zip(ids, ids[1:]) if p in merges]
        if not known:
            break
        newest = max(known, key=lambda p: merges[p])
        ids = ref.merge_pair(ids, newest, merges[newest])
    return ids


def encode_first_merge_only(text, merges):
    """Applies the earliest-learned merge present, then stops."""
    ids = list(text.encode("utf-8"))
    known = [p for p in zip(ids, ids[1:]) if p in merges]
    if known:
        pair = min(known, key=lambda p: merges[p])
        ids = ref.merge_pair(ids, pair, merges[pair])
    return ids


def train_for_a_vocab_size(text, num_merges):
    """Reads num_merges as minbpe's vocab_size: learns num_merges - 256 merges."""
    merges, ids = {}, list(text.encode("utf-8"))
    for new_id in range(256, num_merges):
        counts = ref.get_pair_counts(ids)
        if not counts:
            break
        best = max(counts, key=counts.get)
        ids = ref.merge_pair(ids, best, new_id)
        merges[best] = new_id
    return merges


def merge_by_string_replace(ids, pair, new_id):
    """str.replace on the space-joined ids: right for separate occurrences, but one match
    uses up the space the next needs, so [3, 4, 3, 4] keeps its second (3, 4)."""
    text = " " + " ".join(map(str, ids)) + " "
    text = text.replace(f" {pair[0]} {pair[1]} ", f" {new_id} ")
    return [int(token) for token in text.split()]


def merge_first_occurrence_only(ids, pair, new_id):
    out = list(ids)
    for i in range(len(out) - 1):
        if out[i] == pair[0] and out[i + 1] == pair[1]:
            out[i : i + 2] = [new_id]
            break
    return out


def vocab_ties_reverse_alphabetical(token_lists, min_freq=1):
    counts = Counter(t for tokens in token_lists for t in tokens)
    vocab = {t: i for i, t in enumerate(SPECIALS)}
    for token in sorted(counts, key=lambda t: (counts[t], t))[::-1]:
        if counts[token] >= min_freq and token not in vocab:
            vocab[token] = len(vocab)
    return vocab


def tokenize_keeps_separators(text):
    return list(filter(None, re.split(r"(\W)", text.lower())))


def encode_remembered_in_default(text, merges, _seen={}):  # noqa: B006
    if text not in _seen:
        _seen[text] = ref.bpe_encode(text, merges)
    return _seen[text]


def encode_chars(text, merges):
    ids = [ord(ch) for ch in text]
    for pair, new_id in merges.items():
        ids = ref.merge_pair(ids, pair, new_id)
    return ids


def encode_no_merges(text, merges):
    return list(text.encode("utf-8"))


def encode_most_frequent_pair_first(text, merges):
    ids = list(text.encode("utf-8"))
    while True:
        counts = {p: n for p, n in ref.get_pair_counts(ids).items() if p in merges}
        if not counts:
            return ids
        pair = max(counts, key=counts.get)
        ids = ref.merge_pair(ids, pair, merges[pair])


def encode_pairs_in_text_order(text, merges):
    ids = list(text.encode("utf-8"))
    changed = True
    while changed:
        changed = False
        for pair in ref.get_pair_counts(ids):
            if pair in merges:
                ids = ref.merge_pair(ids, pair, merges[pair])
                changed = True
                break
    return ids


def decode_bytes_of_int(ids, merges):  # bytes(i): i zero bytes, not the byte i
    pieces = {i: bytes(i) for i in range(256)}
    for pair, new_id in merges.items():
        pieces[new_id] = pieces[pair[0]] + pieces[pair[1]]
    return b"".join(pieces[i] for i in ids).decode("utf-8", "replace")


def encode_pairs_looked_up_once(text, merges):  # pairs present on the bytes only
    ids = list(text.encode("utf-8"))
    present = set(zip(ids, ids[1:]))
    for pair in sorted(present & set(merges), key=merges.get):
        ids = ref.merge_pair(ids, pair, merges[pair])
    return ids


def decode_per_token(ids, merges):
    table = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        table[new_id] = table[a] + table[b]
    return "".join(table[i].decode("utf-8", errors="replace") for i in ids)


def decode_per_token_ignoring_errors(ids, merges):
    table = [bytes([i]) for i in range(256)] + [b""] * len(merges)
    for (a, b), new_id in merges.items():
        table[new_id] = table[a] + table[b]
    pieces = [table[i].decode("utf-8", "ignore") for i in ids]
    return "".join(pieces)


def decode_per_token_strict(ids, merges):
    table = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        table[new_id] = table[a] + table[b]
    return "".join(table[i].decode("utf-8") for i in ids)


def decode_with_chr(ids, merges):
    table = {i: chr(i) for i in range(256)}
    for (a, b), new_id in merges.items():
        table[new_id] = table[a] + table[b]
    return "".join(table[i] for i in ids)


def tokenize_short_words_skipped(text):
    return [t for t in ref.tokenize(text) if len(t) > 2 or not t[0].isalnum()]


def tokenize_numbers_as_hash(text):
    return re.findall(r"\w+|[^\w\s]", re.sub(r"[0-9]+", "#", text.lower()))


def merge_starts_after_a_start_skipped(ids, pair, new_id):
    starts = [i for i in range(len(ids) - 1) if (ids[i], ids[i + 1]) == pair]
    kept = [s for s in starts if s - 1 not in starts]  # overlaps any match, kept or not
    out, i = [], 0
    while i < len(ids):
        if i in kept:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def _pad_with_edge(sequences, pad_id):
    """Each row padded with its own last id (np.pad's mode='edge')."""
    width = max((len(seq) for seq in sequences), default=0)
    rows = [
        np.pad(np.asarray(seq, dtype=np.int64), (0, width - len(seq)), mode="edge")
        if seq
        else np.full(width, pad_id, dtype=np.int64)
        for seq in sequences
    ]
    return np.stack(rows) if rows else np.zeros((0, 0), dtype=np.int64)


def bpe_encode_returns_at_a_missing_merge(text, merges):  # a return where a skip belongs
    ids = list(text.encode("utf-8"))
    for (a, b), new_id in sorted(merges.items(), key=lambda kv: kv[1]):
        if (a, b) not in set(zip(ids, ids[1:])):
            return ids
        ids = ref.merge_pair(ids, (a, b), new_id)
    return ids


def bpe_decode_byte_level_strings(ids, merges):  # GPT-2's byte encoder, never decoded back
    bs = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    byte_encoder = dict(zip(bs, map(chr, cs)))
    strings = {i: byte_encoder[i] for i in range(256)}
    for (a, b), new_id in merges.items():
        strings[new_id] = strings[a] + strings[b]
    return "".join(strings[i] for i in ids)


def vocab_specials_subtracted_as_counter(token_lists, min_freq=1):  # Counter - Counter drops them
    counts = Counter(t for tokens in token_lists for t in tokens)
    counts -= Counter({special: counts[special] for special in SPECIALS})
    itos = list(SPECIALS)
    itos += [t for t, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])) if n >= min_freq]
    return {token: index for index, token in enumerate(itos)}


def pad_np_pad_at_the_end(sequences, pad_id):  # np.pad with a (before, after) width
    max_len = max((len(s) for s in sequences), default=0)
    rows = [
        np.pad(np.asarray(s, dtype=np.int64), (0, max_len - len(s)), constant_values=pad_id)
        for s in sequences
    ]
    return np.stack(rows) if rows else np.zeros((0, 0), dtype=np.int64)


def pad_both_ends_by_hand(sequences, pad_id):  # the gap written before and after each row
    width = max(map(len, sequences), default=0)
    padded = []
    for seq in sequences:
        gap = width - len(seq)
        padded.append([pad_id] * gap + list(seq) + [pad_id] * gap)
    return np.array(padded, dtype=np.int64)


def pad_whole_width_appended(sequences, pad_id):  # max_len pads for every row
    max_len = max((len(s) for s in sequences), default=0)
    rows = [list(s) + [pad_id] * max_len for s in sequences]
    return np.stack([np.asarray(r, dtype=np.int64) for r in rows]) if rows else np.zeros((0, 0))


MISTAKES = [
    Mistake(checks.check_tokenize, tokenize_no_lower, "did not lower-case"),
    Mistake(
        checks.check_tokenize,
        tokenize_lowers_each_match,
        r"split the text first and lower-cased each token afterwards.*'İ'",
    ),
    Mistake(checks.check_tokenize, tokenize_runs_kept_once, r"each run of the same token in a row"),
    Mistake(
        checks.check_tokenize,
        tokenize_short_words_skipped,
        r"Some words are missing from your tokens, wherever they occur.*a filter on length "
        r"that drops words of 2 characters or fewer.*Or the split itself skips them: a word "
        r"pattern that needs at least 3 word characters \(\\w\{3,\}",
    ),
    Mistake(  # Unicode normalisation first (family of blind28a-tok-nfkc-normalised)
        checks.check_tokenize,
        lambda text: re.findall(r"\w+|[^\w\s]", unicodedata.normalize("NFKD", text).lower()),
        r"after Unicode normalisation, unicodedata\.normalize with NFKD \(.*not kept as written",
    ),
    Mistake(  # the word rule needs 3 characters (family of blind28a-tok-two-char-words)
        checks.check_tokenize,
        lambda text: re.findall(r"\w{3,}|[^\w\s]", text.lower()),
        r"drops words of 2 characters or fewer.*a word pattern that needs at least 3 word "
        r"characters \(\\w\{3,\}.*The word pattern is \\w\+",
    ),
    Mistake(
        checks.check_tokenize,
        tokenize_numbers_as_hash,
        r"Your tokens hold '#', which is nowhere in the text.*the numbers are replaced by the "
        r"placeholder '#' \(re\.sub.*'(mp3|b2b)'\) is cut around it",
    ),
    Mistake(
        checks.check_tokenize,
        tokenize_lines_by_newline,
        r"Yours is a nested list.*yours gives 3 lists, one per line.*one flat list of tokens",
    ),
    Mistake(
        checks.check_tokenize,
        tokenize_wrapped_in_list,
        r"Yours is a nested list, a list of 1 list\(s\) of tokens.*one flat list of strings",
    ),
    Mistake(checks.check_tokenize, tokenize_split, "split on whitespace only"),
    Mistake(
        checks.check_tokenize,
        tokenize_findall_groups,
        r"but it is a tuple.*2 capturing groups.*non-capturing, \(\?:\.\.\.\)",
    ),
    Mistake(checks.check_tokenize, tokenize_drop_punct, "Punctuation disappeared"),
    Mistake(
        checks.check_tokenize,
        tokenize_trims_marks_at_the_ends,
        r"^(?!.*last token).*marks at the very start and end of the whole text are missing",
    ),
    Mistake(
        checks.check_tokenize,
        tokenize_split_capturing_all_kept,
        r"Spaces \(' '\) and empty strings",
    ),
    Mistake(checks.check_tokenize, tokenize_punct_runs, "one token per character"),
    Mistake(checks.check_tokenize, tokenize_split_keeps_empty_strings, "Empty strings slipped in"),
    Mistake(checks.check_tokenize, tokenize_ascii_letters, r"\[a-z\] matches only the 26 ASCII"),
    Mistake(checks.check_tokenize, tokenize_ascii_word_chars, "Letters outside ASCII"),
    Mistake(checks.check_tokenize, tokenize_space_only, "Tabs and newlines are whitespace too"),
    Mistake(checks.check_tokenize, tokenize_keeps_apostrophes, "apostrophe"),
    Mistake(checks.check_tokenize, tokenize_upper, "You upper-cased the text"),
    Mistake(checks.check_tokenize, tokenize_letter_by_letter, r"needs a \+, \\w\+"),
    Mistake(checks.check_tokenize, tokenize_empty_matches, r"Empty strings \(''\) came back"),
    # its lost "!" and "." are last tokens: not a hand-written list of marks
    Mistake(checks.check_tokenize, tokenize_drops_last, r"^(?!.*marks disappeared).*last token is"),
    Mistake(
        checks.check_tokenize,
        tokenize_listed_marks,
        r"These marks disappeared: .*while others .* were kept",
    ),
    Mistake(
        checks.check_tokenize,
        tokenize_hyphen_in_words,
        # hidden: "--" alone, which a + on the marks gives too
        r"joins the mark '-' inside a word: your word pattern admits '-'"
        r"|groups several marks into one.*your word pattern admits '-'",
    ),
    Mistake(
        checks.check_tokenize,
        tokenize_mark_glued_to_next_word,
        r"joins the mark .* to the word characters after it",
    ),
    Mistake(
        checks.check_tokenize,
        tokenize_split_no_lower,
        r"Two mistakes at once\. \(1\) .*did not lower-case.* \(2\) .*split on whitespace only",
    ),
    Mistake(
        checks.check_tokenize,
        tokenize_drop_punct_no_lower,
        r"Two mistakes at once\. \(1\) .*did not lower-case.* \(2\) Punctuation disappeared",
    ),
    Mistake(
        checks.check_tokenize,
        tokenize_ascii_no_lower,
        r"Two mistakes at once\. \(1\) .*did not lower-case.* \(2\) .*26 ASCII",
    ),
    Mistake(checks.check_build_vocab, vocab_most_common, "Ties must be broken alphabetically"),
    Mistake(checks.check_build_vocab, vocab_ascending, "descending count"),
    Mistake(
        checks.check_build_vocab,
        vocab_strict_and_most_common,
        r"^(?!.*known mistakes give).*Two mistakes at once\. \(1\) .*count >= min_freq.*"
        r"\(2\) Ties must be broken alphabetically",
    ),
    Mistake(checks.check_build_vocab, vocab_once_per_sentence, r"once per token list"),
    Mistake(checks.check_build_vocab, vocab_alphabetical, "use the alphabet only to break ties"),
    Mistake(checks.check_build_vocab, vocab_in_order_seen, "order in which the tokens first"),
    Mistake(checks.check_build_vocab, vocab_strict, r"count >= min_freq"),
    Mistake(
        checks.check_build_vocab,
        vocab_top_min_freq_sliced,
        r"^(?!.*cut short).*kept only the min_freq most frequent tokens.*count >= min_freq",
    ),
    Mistake(
        checks.check_build_vocab,
        vocab_id_fixed_after_specials,
        r"Every data token got the same id, 4: your next id never advances",
    ),
    Mistake(
        checks.check_build_vocab,
        vocab_shared_between_calls,
        r"not in its input.*keeps the tokens of earlier calls.*new dict",
    ),
    Mistake(checks.check_build_vocab, vocab_ignores_min_freq, "min_freq was ignored"),
    Mistake(checks.check_build_vocab, vocab_specials_last, "special tokens"),
    Mistake(checks.check_build_vocab, vocab_counts_reset_per_list, "Only the last token list was"),
    Mistake(checks.check_build_vocab, vocab_first_list_only, "Only the first token list was"),
    Mistake(
        checks.check_build_vocab,
        vocab_most_common_ignoring_min_freq,
        r"Two mistakes at once\. \(1\) min_freq was ignored.*\(2\) Ties must be broken "
        r"alphabetically",
    ),
    Mistake(checks.check_decode, decode_by_position, r"by its position in ids"),
    Mistake(
        checks.check_build_vocab,
        vocab_specials_zeroed_in_counts,
        r"min_freq=0 your special tokens come back after every data token.*count 0",
    ),
    Mistake(
        checks.check_bpe_encode,
        bpe_encode_returns_at_a_missing_merge,
        r"stopped at the first one whose pair does not occur",
    ),
    Mistake(
        checks.check_bpe_decode,
        bpe_decode_byte_level_strings,
        r"GPT-2's printable stand-ins for the bytes, never mapped back.*'Ġ'",
    ),
    Mistake(
        checks.check_pad_batch, pad_both_ends_by_hand, r"(?s)inhomogeneous.*padded at both ends"
    ),
    Mistake(
        checks.check_pad_batch, pad_whole_width_appended, r"Each row got max_len = \d+ pad ids"
    ),
    Mistake(checks.check_pad_batch, pad_uint8, r"(?s)OverflowError.*does not fit your array"),
    Mistake(checks.check_pad_batch, pad_cast_to_uint8, r"dtype, uint8, is too small"),
    Mistake(checks.check_build_vocab, vocab_duplicate_special, "no gaps or repeats"),
    Mistake(checks.check_build_vocab, vocab_overwrites_special, "keeps its special id"),
    Mistake(checks.check_encode, encode_skip_unknown, "not be skipped"),
    Mistake(
        checks.check_encode,
        encode_unknown_one_unk_per_letter,
        r"became \[1, 1, 1(, 1, 1)?\] \([35] ids\).*one id per character",
    ),
    Mistake(
        checks.check_encode,
        encode_unknown_wrapped_in_unk_pair,
        r"became \[1, 1\] \(2 ids\).*must become exactly one id, the id of <unk>",
    ),
    Mistake(checks.check_tokenize, tokenize_letters_only, r"Digits were dropped"),
    Mistake(
        checks.check_encode,
        encode_get_without_default,
        r"None where an id belongs, exactly for the tokens missing.*vocab\.get\(token, "
        r"vocab\[\"<unk>\"\]\)",
    ),
    Mistake(
        checks.check_decode, decode_by_membership, r"each token once, in the vocabulary's order"
    ),
    Mistake(checks.check_encode, encode_unknown_as_pad, "not <pad>"),
    Mistake(checks.check_encode, encode_adds_bos_eos, "Don't add <bos>/<eos>"),
    Mistake(checks.check_encode, encode_unknown_as_new_id, r"not a new id \(len\(vocab\)\)"),
    Mistake(
        checks.check_encode,
        encode_grows_the_vocab,
        r"changed its argument `vocab` in place[\s\S]*must not grow the vocabulary",
    ),
    Mistake(checks.check_decode, decode_drops_specials, "must be decoded too"),
    Mistake(
        checks.check_decode,
        decode_off_by_one,
        r"one id off: each is the token of its id \+ 1|Invert the vocab",
    ),
    Mistake(checks.check_decode, decode_tests_truthiness, "truth value of an array"),
    Mistake(
        checks.check_decode, decode_by_key_position, r"keys in alphabetical order.*list\(vocab\)"
    ),
    Mistake(checks.check_pad_batch, pad_left, r"You padded on the left.*pad on the right"),
    Mistake(  # rows filled from their own ids (family of blind28a-pad-rows-np-resize)
        checks.check_pad_batch,
        _pad_with_edge,
        r"Each short row goes on past its sequence with its last id repeated \(np\.pad with "
        r"mode='edge'\).*instead of pad_id=\d+",
    ),
    Mistake(checks.check_pad_batch, pad_time_first, r"transposed: \(max_len, batch\)"),
    Mistake(
        checks.check_pad_batch,
        pad_uninitialised_ndarray,
        r"holds left-over memory in the padding places.*np\.empty.*np\.full",
    ),
    Mistake(
        checks.check_pad_batch,
        pad_width_is_the_longest_row,
        r"raised TypeError: 'list' object cannot be interpreted as an integer\n.*returns the "
        r"longest sequence itself, a list, not its length",
    ),
    Mistake(
        checks.check_pad_batch, pad_width_of_first, r"(?s)raised ValueError.*comes from the first"
    ),
    Mistake(
        checks.check_pad_batch, pad_truncated_to_first, r"shape.*comes from the first sequence"
    ),
    Mistake(checks.check_pad_batch, pad_with_zero, "not a hard-coded 0"),
    Mistake(checks.check_pad_batch, pad_returns_list, "should be a ndarray"),
    Mistake(checks.check_pad_batch, pad_float, "should hold integers"),
    Mistake(checks.check_pad_batch, pad_fixed_width, r"shape is \(batch, max_len\)"),
    Mistake(checks.check_pad_batch, pad_concatenate_makes_floats, "should hold integers"),
    Mistake(
        checks.check_get_pair_counts,
        pairs_wrap_around,
        r"never side by side in ids: \(\d+, \d+\).*is \(last id, first id\): your pairs wrap",
    ),
    Mistake(checks.check_get_pair_counts, pairs_non_overlapping, "Pairs overlap"),
    Mistake(checks.check_get_pair_counts, pairs_sorted_by_count, "order they first occur"),
    Mistake(checks.check_get_pair_counts, pairs_in_set_order, "counts are right, but"),
    Mistake(checks.check_get_pair_counts, pairs_missing_last, "last pair is missing"),
    Mistake(
        checks.check_merge_pair,
        merge_starts_after_a_start_skipped,
        r"In the run of 5 equal ids \[1, 1, 1, 1, 1\].*only the first pair was merged: the next "
        r"non-overlapping occurrence was not merged",
    ),
    Mistake(
        checks.check_get_pair_counts,
        pairs_packed_by_shifting,
        r"packed each pair into one integer key, a \* 256 \+ b",
    ),
    Mistake(checks.check_get_pair_counts, pairs_backwards, r"Your pairs are backwards"),
    Mistake(
        checks.check_get_pair_counts,
        pairs_as_sorted_tuples,
        r"pairs are stored smaller id first: \(\d+, \d+\) is counted as",
    ),
    Mistake(
        checks.check_get_pair_counts,
        pairs_while_past_the_end,
        r"raised IndexError[\s\S]*reads the next id, ids\[i \+ 1\], at the last position",
    ),
    Mistake(
        checks.check_get_pair_counts,
        pairs_of_distinct_ids_only,
        r"Every pair of two equal ids is missing",
    ),
    Mistake(checks.check_build_vocab, vocab_bound_one_too_low, r"bound is one too low"),
    Mistake(checks.check_encode, encode_ids_plus_one, r"ids are one too high"),
    Mistake(checks.check_encode, encode_unknown_as_eos, r"not 3 \(the id of <eos>\)"),
    Mistake(checks.check_encode, encode_drops_last, r"last token's id is missing"),
    Mistake(checks.check_pad_batch, pad_batch_to_multiple_of_8, r"rounded up to a multiple of 8"),
    Mistake(
        checks.check_pad_batch, pad_batch_to_power_of_two, r"rounded up to the next power of two"
    ),
    Mistake(
        checks.check_encode,
        encode_cached_by_tokens,
        r"keeps something from one call to the next: the module-level dict `_IDS_BY_TOKENS`",
    ),
    Mistake(
        checks.check_build_vocab,
        vocab_counts_kept_across_calls,
        r"keeps something from one call to the next: the module-level Counter `_RUNNING_COUNTS`"
        r"|keeps the tokens of earlier calls",
    ),
    Mistake(checks.check_encode, encode_skips_seen_tokens, r"A token already seen was dropped"),
    Mistake(
        checks.check_encode,
        encode_over_unique_tokens,
        r"not in the tokens' order either.*set of the tokens|another order than the tokens \(a loop over a set",
    ),
    Mistake(checks.check_encode, encode_prepends_each_id, r"right ones, but in reverse order"),
    Mistake(checks.check_encode, encode_sorted_ids, r"right ones, but sorted by value"),
    Mistake(checks.check_encode, encode_ids_by_enumerated_keys, r"position among the dict's keys"),
    Mistake(
        checks.check_encode,
        encode_numbers_words_after_specials,
        r"your ids depend on that order",
    ),
    Mistake(checks.check_decode, decode_one_id_low, r"one id off: each is the token of its id - 1"),
    Mistake(checks.check_decode, decode_reversed, r"come in reverse order"),
    Mistake(
        checks.check_decode,
        decode_table_in_default_argument,
        r"a vocabulary of an earlier call.*kept between calls",
    ),
    Mistake(
        checks.check_tokenize, tokenize_ascii_marks_by_character, r"Only ASCII marks were split off"
    ),
    Mistake(checks.check_pad_batch, pad_cut_to_shortest, r"length of the shortest sequence"),
    Mistake(checks.check_pad_batch, pad_gaps_with_none, r"filled with None, not with pad_id"),
    Mistake(
        checks.check_decode,
        decode_skips_token_equal_to_previous,
        r"each run of equal consecutive items kept once",
    ),
    Mistake(
        checks.check_get_pair_counts,
        pairs_keyed_by_joined_text,
        r"keys are strings.*written as its items joined by a comma",
    ),
    Mistake(
        checks.check_decode, decode_unwraps_every_row, r"The first and the last token are missing"
    ),
    Mistake(checks.check_pad_batch, pad_with_max_len, r"The padding holds \d+, not pad_id="),
    Mistake(checks.check_pad_batch, pad_rows_reversed, r"reversed in its row"),
    Mistake(
        checks.check_merge_pair,
        merge_writes_new_id_plus_one,
        r"merged pairs became \d+ \(new_id \+ 1\), not new_id=",
    ),
    Mistake(checks.check_bpe_decode, bpe_decode_drops_last, r"last id's bytes are missing"),
    # "héllo" with 'é' split over two tokens: per-token decoding gives the same text
    Mistake(
        checks.check_bpe_decode,
        bpe_decode_as_ascii,
        r"^(?!.*token by token).*decoded the bytes as ASCII",
    ),
    Mistake(checks.check_train_bpe, train_on_latin1, r"or a latin-1 encoding"),
    Mistake(
        checks.check_train_bpe,
        train_merges_latest_first,
        r"Your dict is (either .* or )?latest learned first.*not in learned order",
    ),
    Mistake(
        checks.check_train_bpe,
        train_on_casefolded_text,
        r"learned on the text lower-cased \(text\.lower\(\), or casefold\(\)\)",
    ),
    Mistake(
        checks.check_train_bpe,
        train_on_stripped_text,
        r"learned on the text stripped of the whitespace at its ends",
        hidden_only=True,
    ),
    Mistake(
        checks.check_train_bpe,
        train_max_over_items,
        r"first key, \(\(\d+, \d+\), \d+\), is the pair .* with its count.*counts\.items\(\)",
    ),
    Mistake(checks.check_train_bpe, train_new_id_above_the_largest, r"is max\(ids\) \+ 1"),
    Mistake(checks.check_bpe_decode, bpe_decode_repr, r"with str\(\.\.\.\), which writes"),
    Mistake(checks.check_get_pair_counts, pairs_two_apart, r"two places on"),
    Mistake(checks.check_build_vocab, vocab_right_key_reversed, r"the right one reversed: least"),
    Mistake(
        checks.check_decode,
        decode_until_pad,
        r"^(?!.*<pad> tokens were dropped)(?s:.*)stopped at the first <pad>",
    ),
    Mistake(
        checks.check_decode,
        decode_drops_pad,
        r"^(?!.*stopped at the first <pad>)(?s:.*)<pad> tokens were dropped",
    ),
    Mistake(checks.check_decode, decode_with_tolist, r"(?s)AttributeError.*has no \.tolist\(\)"),
    Mistake(checks.check_bpe_decode, bpe_decode_parts_swapped, r"in the wrong order, table\[b\]"),
    Mistake(
        checks.check_bpe_decode,
        bpe_decode_ascii_table,
        r"^(?!(?s:.*)incremented before)(?s:.*)no entry for the byte \d+: your table holds fewer "
        r"than the 256 single bytes.*range\(128\)",
    ),
    Mistake(
        checks.check_bpe_decode,
        bpe_decode_table_of_seen_bytes,
        r"^(?!(?s:.*)incremented before)(?s:.*)no entry for the byte \d+: your table was started "
        r"from the bytes that occur in ids",
    ),
    Mistake(
        checks.check_get_pair_counts,
        pairs_two_by_two,
        r"only the pairs that start at an even position",
    ),
    Mistake(
        checks.check_get_pair_counts,
        pairs_counted_from_nothing,
        r"raised KeyError: \(\d+, \d+\)\nA plain dict's entry was incremented before it "
        r"exists.*d\.get\(key, 0\) \+ 1",
    ),
    Mistake(
        checks.check_get_pair_counts,
        pairs_mutable_default,
        r"the first time and .* the second time.*keeps its counts from one call to the next",
    ),
    Mistake(
        checks.check_merge_pair,
        merge_double,
        r"(?s)You merged overlapping occurrences.*ids\[\d+:\d+\] = \[(\d+), \1, \1\].*sharing "
        r"the id",
    ),
    Mistake(
        checks.check_merge_pair,
        merge_either_id,
        r"first difference is at input position \d+: ids \d+, \d+ there are not the pair.*"
        r"merged that does not match\. Both ids must equal",
    ),
    # told it moved on by three ids after a merge (the family of blind23a-b23a-merge-run-
    # collapsed): a probe where a merged pair is followed by another id tells them apart
    Mistake(
        checks.check_merge_pair,
        merge_skips_repeats_of_second_id,
        r"swallows a whole run: three equal ids merged by a pair \(a, a\) become one new id",
    ),
    Mistake(
        checks.check_merge_pair, merge_first_id_only, r"wherever the \*first\* id matches pair\[0\]"
    ),
    # on (97, 97) these two merge the same ids; a pair of two different ids tells them apart
    Mistake(
        checks.check_merge_pair,
        merge_first_id_twice,
        r"^(?!.*\*first\* id).*compared one id with both halves of the pair, \(ids\[i\], "
        r"ids\[i\]\) == pair.*returned the ids unchanged|Nothing was merged.*\(ids\[i\], ids\[i\]\)",
    ),
    Mistake(
        checks.check_merge_pair,
        merge_first_id_only_fails_on_other_pairs,
        # (the hidden run's first pair has two different ids: the crash itself is reported)
        r"two mistakes give that: comparing only the first id .*comparing ids\[i\] with both"
        r"|raised RuntimeError: only pairs of equal ids",
    ),
    Mistake(
        checks.check_merge_pair,
        merge_second_id_only,
        r"wherever the \*second\* id matches pair\[1\]|only one id of the pair matches",
    ),
    # on the lesson's text this merges only the first (97, 97); [5, 1, 3, 1, 2] tells it
    # apart from merging the first occurrence only
    Mistake(
        checks.check_merge_pair,
        merge_stops_at_unpaired_first_id,
        r"^(?!.*Only the first occurrence).*stops at the first id equal to pair\[0\] that is "
        r"not followed by pair\[1\].*returned the ids unchanged",
    ),
    Mistake(checks.check_merge_pair, merge_step_one, r"moved on by one id instead of two"),
    Mistake(
        checks.check_merge_pair,
        merge_skip_flag_never_reset,
        r"Nothing after the first merge was kept.*flag that skips the pair's second id is set "
        r"but never reset",
    ),
    Mistake(checks.check_merge_pair, merge_compares_previous_id, r"with the id \*before\* it"),
    # on the lesson's text the two give the same ids; [1, 2, 1, 2, 1] tells them apart
    Mistake(
        checks.check_merge_pair,
        merge_right_to_left,
        r"^(?!.*\*before\* it).*You scanned from the right end",
    ),
    # on [3, 4, 3, 4] a string replacement gives the same ids; [3, 4, 5, 3, 4] tells them apart
    Mistake(
        checks.check_merge_pair,
        merge_guard_one_too_short,
        r"^(?!.*string replacement).*pair at the very end of the list was not merged",
    ),
    Mistake(
        checks.check_merge_pair,
        merge_guard_one_too_far,
        r"raised IndexError.*\n.*no ids\[i \+ 1\].*Guard it with i \+ 1 < len\(ids\)",
    ),
    Mistake(checks.check_merge_pair, merge_in_place, r"changed its argument `ids` in place"),
    Mistake(checks.check_merge_pair, merge_drops_last, "last id went missing"),
    Mistake(checks.check_train_bpe, train_ties_last, "tie was broken the wrong way"),
    Mistake(checks.check_train_bpe, train_records_256_minus_step, r"count down, 256 - i"),
    Mistake(checks.check_train_bpe, train_merges_inverted, r"wrong way round, \{new_id: pair\}"),
    Mistake(checks.check_train_bpe, train_ids_from_255, r"start at 255, 1 too low"),
    Mistake(checks.check_train_bpe, train_ids_from_257, r"start at 257, one too high"),
    Mistake(checks.check_train_bpe, train_same_id_for_every_merge, r"Every merge got the same id"),
    Mistake(checks.check_train_bpe, train_counts_once, "counted once, on the original bytes"),
    Mistake(
        checks.check_train_bpe,
        train_ids_never_updated,
        r"^(?!.*gets id 256 \+ i).*same pair again.*ids = merge_pair",
    ),
    Mistake(
        checks.check_train_bpe,
        _train_merging_with(lambda i: 256),
        # hidden: a pair met again after its id was reused overwrites its entry, so the
        # recorded ids skip a number, which the message says first
        r"merged with the id 256 every time \(\[256, 256, 256.*while it recorded \[256, 257"
        r"|the new ids of train_bpe.*The i-th merge \(counting from 0\) gets id 256 \+ i",
    ),
    Mistake(
        checks.check_train_bpe,
        _train_merging_with(lambda i: 256 - i),
        r"merged with the id 256 - i \(\[256, 255, 254.*while it recorded \[256, 257",
    ),
    Mistake(checks.check_train_bpe, train_on_characters, "UTF-8 bytes of the text"),
    Mistake(checks.check_train_bpe, train_on_words, r"No merge of yours contains a space"),
    Mistake(checks.check_train_bpe, train_one_merge_too_many, r"one more than num_merges"),
    Mistake(checks.check_train_bpe, train_one_merge_short, r"one fewer than the \d+ expected"),
    Mistake(checks.check_train_bpe, train_never_stops, r"empty sequence[\s\S]*stop early"),
    Mistake(checks.check_train_bpe, train_merges_newest_first, "in the order they were learned"),
    Mistake(checks.check_bpe_encode, encode_chars, "UTF-8 bytes, not characters"),
    Mistake(
        checks.check_bpe_encode,
        encode_remembered_in_default,
        r"the ids your earlier call on the same text returned with other merges.*then the "
        r"same ids again.*keyed by the text alone",
    ),
    Mistake(
        checks.check_bpe_encode,
        encode_first_learned_merge_overall,
        r"(?s)did not finish within 5 s.*never ends: you pick the merge among all the learned "
        r"merges",
    ),
    Mistake(
        checks.check_bpe_encode,
        encode_pairs_looked_up_in_inverted_dict,
        r"No merge was ever applied: your ids are the text's raw UTF-8 bytes.*inverted dict",
    ),
    Mistake(checks.check_bpe_encode, encode_latest_merge_first, "latest-learned merge first"),
    # agrees with merging greedily from the left on every input but "cab" (merges (c, a)
    # then (a, b)), which the message must not name
    Mistake(
        checks.check_bpe_encode,
        encode_smallest_pair_first,
        r"^(?!.*greedily from the left).*min\(present\) without key=merges\.get",
    ),
    Mistake(
        checks.check_bpe_encode,
        encode_greedy_left_to_right,
        r"^(?!.*how often).*greedily from the left",
    ),
    # these two agree with the stack on every input but "acacab" and "bbbbc"
    Mistake(
        checks.check_bpe_encode,
        encode_leftmost_pair_first,
        r"^(?!.*greedily from the left as)(?!.*longest).*leftmost pair present",
    ),
    Mistake(
        checks.check_bpe_encode,
        encode_longest_match,
        r"^(?!.*greedily from the left as)(?!.*leftmost).*longest known token",
    ),
    Mistake(
        checks.check_bpe_encode,
        encode_first_merge_only,
        r"Only one merge was applied, and then it stopped",
    ),
    Mistake(checks.check_train_bpe, train_for_a_vocab_size, r"num_merges - 256 merges.*vocab_size"),
    Mistake(checks.check_merge_pair, merge_first_occurrence_only, "Only the first occurrence"),
    Mistake(
        checks.check_merge_pair,
        merge_by_string_replace,
        r"^(?!.*Only the first occurrence).*starts right where a merged one ended.*"
        r"string replacement",
    ),
    Mistake(checks.check_merge_pair, merge_slice_against_tuple, r"Nothing was merged.*tuple"),
    Mistake(checks.check_build_vocab, vocab_ties_reverse_alphabetical, "reverse alphabetical"),
    Mistake(checks.check_tokenize, tokenize_keeps_separators, r"spaces came back as tokens"),
    Mistake(checks.check_bpe_encode, encode_no_merges, "earliest-learned merge"),
    Mistake(checks.check_bpe_encode, encode_stops_at_two_ids, r"two ids are still left"),
    Mistake(checks.check_bpe_encode, encode_without_a_stop, r"empty sequence[\s\S]*fewer than two"),
    Mistake(
        checks.check_bpe_encode,
        encode_looks_up_unlearned_pair,
        r"raised KeyError[\s\S]*never learned[\s\S]*if pair not in merges: break",
    ),
    Mistake(checks.check_bpe_encode, encode_most_frequent_pair_first, "Apply the merges by rank"),
    # the first pair of the text that has a merge: the leftmost pair present
    Mistake(checks.check_bpe_encode, encode_pairs_in_text_order, "leftmost pair present"),
    Mistake(checks.check_bpe_decode, decode_per_token, "Decode the joined bytes once"),
    Mistake(checks.check_bpe_decode, bpe_decode_first_part_only, r"hold only its first part"),
    Mistake(
        checks.check_bpe_decode,
        bpe_decode_parts_subtracted,
        r"(?s)raised TypeError.*Two bytes objects were subtracted.*table\[a\] \+ table\[b\]",
    ),
    Mistake(
        checks.check_bpe_decode,
        bpe_decode_range_257,
        r"(?s)^(?!.*bytes\(\[a, b\]\)).*range goes past 255 \(range\(257\) goes one too far\)",
    ),
    Mistake(
        checks.check_bpe_decode,
        bpe_decode_joined_with_spaces,
        r"A space came out between every two tokens.*b''\.join",
    ),
    Mistake(
        checks.check_bpe_decode,
        decode_per_token_ignoring_errors,
        r"Decode the joined bytes once.*errors='ignore'.*dropped",
    ),
    Mistake(checks.check_bpe_decode, decode_bytes_of_int, r"zero bytes.*bytes\(\[i\]\)"),
    Mistake(
        checks.check_bpe_encode,
        encode_pairs_looked_up_once,
        r"collected the pairs present once, on the original bytes.*Recount",
    ),
    Mistake(
        checks.check_bpe_decode,
        decode_per_token_strict,
        r"UnicodeDecodeError[\s\S]*Decode the joined bytes once",
    ),
    Mistake(checks.check_bpe_decode, decode_with_chr, r"chr\(byte\)"),
    # vocab.get(i, bytes([i])) computes bytes([i]) for every id, merges included
    Mistake(
        checks.check_bpe_decode,
        bpe_decode_parts_as_bytes,
        r"Every merge id was turned into a single byte.*table\.get\(i, bytes\(\[i\]\)\)",
    ),
]


# ------------------------------------------------- round 10 (b10c): classes its blind cases showed
def encode_lowercases_tokens(tokens, vocab):  # a normalisation that belongs to tokenize
    return [vocab.get(t.lower(), vocab["<unk>"]) for t in tokens]


def pad_width_of_largest(sequences, pad_id):  # max compares lists lexicographically
    width = len(max(sequences)) if sequences else 0
    batch = np.full((len(sequences), width), pad_id, dtype=np.int64)
    for row, seq in enumerate(sequences):
        batch[row, : len(seq)] = seq
    return batch


def pad_truncated_to_largest(sequences, pad_id):  # the same width, longer rows cut
    width = len(max(sequences)) if sequences else 0
    rows = [list(s[:width]) + [pad_id] * (width - len(s[:width])) for s in sequences]
    return np.array(rows, dtype=np.int64).reshape(len(sequences), width)


def encode_pretokenized_chunks(text, merges):  # GPT-2's split first: no merge crosses a chunk
    chunks = re.findall(r" ?\w+| ?[^\w\s]+|\s+(?!\S)|\s+", text)
    return [token for chunk in chunks for token in ref.bpe_encode(chunk, merges)]


def encode_words_spaces_between(text, merges):  # words alone, a space byte between two
    out = []
    for k, word in enumerate(text.split(" ")):
        out += ([32] if k else []) + ref.bpe_encode(word, merges)
    return out


def vocab_unk_first(token_lists, min_freq=1):  # torchtext's old order: <unk>=0, <pad>=1
    vocab = {"<unk>": 0, "<pad>": 1, "<bos>": 2, "<eos>": 3}
    counts = Counter(t for tokens in token_lists for t in tokens)
    for token, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        if count >= min_freq and token not in vocab:
            vocab[token] = len(vocab)
    return vocab


def vocab_counts_characters(token_lists, min_freq=1):  # update(token) counts its letters
    counts = Counter()
    for tokens in token_lists:
        for token in tokens:
            counts.update(token)
    vocab = {t: i for i, t in enumerate(SPECIALS)}
    for token, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        if count >= min_freq and token not in vocab:
            vocab[token] = len(vocab)
    return vocab


def vocab_id_to_token(token_lists, min_freq=1):  # the mapping the other way round
    return {i: t for t, i in ref.build_vocab(token_lists, min_freq).items()}


def tokenize_ascii_flag(text):  # \w of ASCII only: each other letter a mark of its own
    pattern = re.compile(r"(?a)\w+|[^\w\s]")
    return pattern.findall(text.lower())


def _tokenize_by_characters(text, is_word, flush_at_end=True):
    tokens, word = [], ""
    for ch in text.lower():
        if is_word(ch):
            word += ch
            continue
        if word:
            tokens.append(word)
            word = ""
        if not ch.isspace():
            tokens.append(ch)
    if word and flush_at_end:
        tokens.append(word)
    return tokens


def tokenize_isalnum_loop(text):  # str.isalnum() is False for '_'
    return _tokenize_by_characters(text, str.isalnum)


def tokenize_loop_pending_word_lost(text):  # the word being built at the end never emitted
    return _tokenize_by_characters(text, lambda ch: ch.isalnum() or ch == "_", False)


def _decode_until(ids, vocab, stop, keep_stop):
    id_to_token = {i: t for t, i in vocab.items()}
    out = []
    for i in ids:
        token = id_to_token[int(i)]
        if token == stop:
            return [*out, token] if keep_stop else out
        out.append(token)
    return out


def decode_stops_at_eos(ids, vocab):  # as generation code cuts its output
    return _decode_until(ids, vocab, "<eos>", keep_stop=False)


def decode_stops_after_eos(ids, vocab):
    return _decode_until(ids, vocab, "<eos>", keep_stop=True)


def decode_drops_eos_and_pad(ids, vocab):
    id_to_token = {i: t for t, i in vocab.items()}
    return [id_to_token[int(i)] for i in ids if id_to_token[int(i)] not in ("<eos>", "<pad>")]


def pairs_never_incremented(ids):  # every count stays 1
    counts = {}
    for pair in zip(ids, ids[1:], strict=False):
        if pair not in counts:
            counts[pair] = 1
    return counts


def merge_last_id_appended(ids, pair, new_id):  # ids[-1] appended whatever happened
    merged, skip = [], False
    for i in range(len(ids) - 1):
        if skip:
            skip = False
        elif (ids[i], ids[i + 1]) == pair:
            merged.append(new_id)
            skip = True
        else:
            merged.append(ids[i])
    return [*merged, ids[-1]] if ids else merged


def _merge_scan_with(ids, pair, new_id, start=0, step_merge=2, step_else=1, negate=False):
    out, i = [], start
    while i < len(ids):
        if i + 1 < len(ids) and ((ids[i], ids[i + 1]) == pair) != negate:
            out.append(new_id)
            i += step_merge
        else:
            out.append(ids[i])
            i += step_else
    return out


def merge_starts_at_one(ids, pair, new_id):
    return _merge_scan_with(ids, pair, new_id, start=1)


def merge_moves_three_after_merge(ids, pair, new_id):
    return _merge_scan_with(ids, pair, new_id, step_merge=3)


def merge_moves_two_without_merge(ids, pair, new_id):
    return _merge_scan_with(ids, pair, new_id, step_else=2)


def merge_test_inverted(ids, pair, new_id):
    return _merge_scan_with(ids, pair, new_id, negate=True)


def encode_pops_applied_merges(text, merges):  # right once; the caller's merges shrink
    ids = list(text.encode("utf-8"))
    while len(ids) >= 2:
        present = [p for p in ref.get_pair_counts(ids) if p in merges]
        if not present:
            break
        pair = min(present, key=merges.get)
        ids = ref.merge_pair(ids, pair, merges.pop(pair))
    return ids


def train_merges_default_argument(text, num_merges, merges={}):  # noqa: B006 (the mistake)
    ids = list(text.encode("utf-8"))
    for step in range(num_merges):
        counts = ref.get_pair_counts(ids)
        if not counts:
            break
        best = max(counts, key=counts.get)
        ids = ref.merge_pair(ids, best, 256 + step)
        merges[best] = 256 + step
    return merges


_DECODE_TABLE: dict[int, bytes] = {}


def decode_table_built_once(ids, merges):  # the first call's merges, kept in a global
    if not _DECODE_TABLE:
        _DECODE_TABLE.update({i: bytes([i]) for i in range(256)})
        for (a, b), new_id in merges.items():
            _DECODE_TABLE[new_id] = _DECODE_TABLE[a] + _DECODE_TABLE[b]
    return b"".join(_DECODE_TABLE[i] for i in ids).decode("utf-8", errors="replace")


def decode_from_the_second_id(ids, vocab):
    id_to_token = {index: token for token, index in vocab.items()}
    return [id_to_token[int(ids[k])] for k in range(1, len(ids))]


def encode_from_the_second_token(tokens, vocab):
    return [vocab.get(tokens[k], vocab["<unk>"]) for k in range(1, len(tokens))]


def tokenize_lower_after_findall(text):  # a list has no .lower()
    return re.findall(r"\w+|[^\w\s]", text).lower()


def tokenize_lower_not_called(text):  # the method itself, not its result
    return re.findall(r"\w+|[^\w\s]", text.lower)


def vocab_counts_the_lists(token_lists, min_freq=1):  # a list cannot be counted
    counts = Counter(token_lists)
    return {**{t: i for i, t in enumerate(SPECIALS)}, **counts}


def encode_unknown_as_the_string(tokens, vocab):
    return [vocab[t] if t in vocab else "<unk>" for t in tokens]


def pad_one_column_too_many(sequences, pad_id):
    width = max((len(s) for s in sequences), default=0) + 1
    return np.array([list(s) + [pad_id] * (width - len(s)) for s in sequences], dtype=np.int64)


def bpe_encode_lower_cased(text, merges):
    return ref.bpe_encode(text.lower(), merges)


def bpe_encode_stripped(text, merges):
    return ref.bpe_encode(text.strip(), merges)


# A list created once, as a default argument, and appended to by every call: each result
# holds the results of the calls before it.
def tokenize_into_shared_list(text, tokens=[]):  # noqa: B006 (the mistake)
    tokens.extend(re.findall(r"\w+|[^\w\s]", text.lower()))
    return tokens


def encode_into_shared_list(tokens, vocab, ids=[]):  # noqa: B006 (the mistake)
    ids.extend(vocab.get(t, vocab["<unk>"]) for t in tokens)
    return ids


def decode_into_shared_list(ids, vocab, tokens=[]):  # noqa: B006 (the mistake)
    id_to_token = {index: token for token, index in vocab.items()}
    tokens.extend(id_to_token[int(i)] for i in ids)
    return tokens


def merge_into_shared_list(ids, pair, new_id, merged=[]):  # noqa: B006 (the mistake)
    merged.extend(ref.merge_pair(ids, pair, new_id))
    return merged


def bpe_encode_into_shared_list(text, merges, out=[]):  # noqa: B006 (the mistake)
    out.extend(ref.bpe_encode(text, merges))
    return out


_SHARED_LIST = r"after the results of your earlier calls.*The list you append to outlives the call"


def pad_np_array_of_ragged_rows(sequences, pad_id):  # no padding: rows of different lengths
    return np.array(sequences, dtype=np.int64)


def bpe_decode_bytes_of_bytes(ids, merges):  # bytes([...]) of bytes objects
    table = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        table[new_id] = table[a] + table[b]
    return bytes([table[i] for i in ids]).decode("utf-8")


def train_count_taken_for_pair(text, num_merges):  # max(counts.values()): a count
    ids, merges = list(text.encode("utf-8")), {}
    for step in range(num_merges):
        counts = ref.get_pair_counts(ids)
        if not counts:
            break
        best = max(counts.values())
        ids = ref.merge_pair(ids, best, 256 + step)
        merges[best] = 256 + step
    return merges


def bpe_encode_unlearned_pairs_first(text, merges):  # merges.get(p, 0): unlearned rank first
    ids = list(text.encode("utf-8"))
    while len(ids) >= 2:
        pair = min(ref.get_pair_counts(ids), key=lambda p: merges.get(p, 0))
        if pair not in merges:
            break
        ids = ref.merge_pair(ids, pair, merges[pair])
    return ids


def pairs_counts_the_ids(ids):
    return dict(Counter(ids))


def tokenize_split_on_non_word_runs(text):
    return re.split(r"\W+", text.lower())


def encode_get_or_unk(tokens, vocab):  # 0 is falsy: <pad>'s id becomes <unk>'s
    return [vocab.get(t) or vocab["<unk>"] for t in tokens]


def bpe_decode_table_in_sorted_order(ids, merges):  # sorted by pair, not learned order
    table = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in sorted(merges.items()):
        table[new_id] = table[a] + table[b]
    return b"".join(table[i] for i in ids).decode("utf-8", errors="replace")


def tokenize_mark_alternative_admits_spaces(text):  # \W matches whitespace too
    return re.findall(r"\w+|\W", text.lower())


def vocab_each_token_counted_once(token_lists, min_freq=1):  # a set before counting
    counts = Counter({t for tokens in token_lists for t in tokens})
    vocab = {t: i for i, t in enumerate(SPECIALS)}
    for token, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        if count >= min_freq and token not in vocab:
            vocab[token] = len(vocab)
    return vocab


def pad_longest_first(sequences, pad_id):  # sorted by length, as packing wants
    ordered = sorted(sequences, key=len, reverse=True)
    return ref.pad_batch(ordered, pad_id)


def train_ids_from_257_and_ties_last(text, num_merges):  # two mistakes at once
    ids, merges = list(text.encode("utf-8")), {}
    for step in range(1, num_merges + 1):
        counts = ref.get_pair_counts(ids)
        if not counts:
            break
        top = max(counts.values())
        best = [pair for pair, count in counts.items() if count == top][-1]
        ids = ref.merge_pair(ids, best, 256 + step)
        merges[best] = 256 + step
    return merges


MISTAKES += [
    Mistake(
        checks.check_train_bpe,
        train_ids_from_257_and_ties_last,
        r"start at 257.*Your pairs are wrong as well, once renumbered from 256: a tie was broken",
    ),
    Mistake(
        checks.check_build_vocab, vocab_each_token_counted_once, r"Every token was counted once"
    ),
    Mistake(checks.check_pad_batch, pad_longest_first, r"Your rows come longest first"),
    Mistake(
        checks.check_tokenize,
        tokenize_mark_alternative_admits_spaces,
        r"spaces came back as tokens.*re\.findall\(r'\\w\+\|\\W'",
    ),
    Mistake(
        checks.check_bpe_encode,
        bpe_encode_unlearned_pairs_first,
        r"The pairs that were never learned came first",
    ),
    Mistake(checks.check_get_pair_counts, pairs_counts_the_ids, r"counted the ids one by one"),
    Mistake(checks.check_tokenize, tokenize_split_on_non_word_runs, r"split on runs of non-word"),
    Mistake(checks.check_encode, encode_get_or_unk, r"has the id 0.*0 is falsy"),
    Mistake(
        checks.check_bpe_decode,
        bpe_decode_table_in_sorted_order,
        r"or it was built in an order where a merge's part was not in it yet",
    ),
    Mistake(
        checks.check_pad_batch,
        pad_np_array_of_ragged_rows,
        r"inhomogeneous shape[\s\S]*pad every row to max_len first",
    ),
    Mistake(checks.check_bpe_decode, bpe_decode_bytes_of_bytes, r"so bytes are joined"),
    Mistake(
        checks.check_train_bpe,
        train_count_taken_for_pair,
        r"is the largest pair count of the text, not a pair",
    ),
    Mistake(checks.check_tokenize, tokenize_into_shared_list, _SHARED_LIST),
    Mistake(checks.check_encode, encode_into_shared_list, _SHARED_LIST),
    Mistake(checks.check_decode, decode_into_shared_list, _SHARED_LIST),
    Mistake(checks.check_merge_pair, merge_into_shared_list, _SHARED_LIST),
    Mistake(checks.check_bpe_encode, bpe_encode_into_shared_list, _SHARED_LIST),
    Mistake(
        checks.check_tokenize, tokenize_lower_after_findall, r"lower-case the text before you split"
    ),
    Mistake(checks.check_tokenize, tokenize_lower_not_called, r"Call it: text\.lower\(\)"),
    Mistake(checks.check_build_vocab, vocab_counts_the_lists, r"Count the tokens inside them"),
    Mistake(
        checks.check_encode, encode_unknown_as_the_string, r"the string '<unk>' where an id belongs"
    ),
    Mistake(checks.check_pad_batch, pad_one_column_too_many, r"one column too many"),
    Mistake(checks.check_bpe_encode, bpe_encode_lower_cased, r"You lower-cased the text"),
    Mistake(checks.check_bpe_encode, bpe_encode_stripped, r"You stripped the whitespace"),
    Mistake(checks.check_decode, decode_from_the_second_id, r"The first token is missing"),
    Mistake(checks.check_encode, encode_from_the_second_token, r"The first token's id is missing"),
    Mistake(
        checks.check_train_bpe,
        train_merges_default_argument,
        r"your merges are kept from one call to the next",
    ),
    Mistake(
        checks.check_bpe_decode,
        decode_table_built_once,
        r"the table was built once and kept between calls|Your table has no entry for \d+, "
        r"although this call's merges define it",
    ),
    Mistake(
        checks.check_bpe_encode,
        encode_pops_applied_merges,
        r"changed its argument `merges` in place.*merges\.pop\(pair\)",
    ),
    Mistake(checks.check_get_pair_counts, pairs_never_incremented, r"Every count is 1"),
    Mistake(
        checks.check_merge_pair,
        merge_last_id_appended,
        r"^(?!.*known mistakes give).*The last id came back after the merge at the very end",
    ),
    Mistake(checks.check_merge_pair, merge_starts_at_one, r"Your scan starts at index 1"),
    Mistake(checks.check_merge_pair, merge_moves_three_after_merge, r"moved on by three ids"),
    Mistake(
        checks.check_merge_pair, merge_moves_two_without_merge, r"Where no merge happens you moved"
    ),
    Mistake(checks.check_merge_pair, merge_test_inverted, r"Your pair test is inverted"),
    Mistake(
        checks.check_decode,
        decode_stops_at_eos,
        r"^(?!.*known mistakes give).*You stopped at the first <eos>",
    ),
    Mistake(
        checks.check_decode,
        decode_stops_after_eos,
        r"^(?!.*known mistakes give).*You stopped right after the first <eos>",
    ),
    Mistake(checks.check_decode, decode_drops_eos_and_pad, r"dropped the <eos> and <pad> tokens"),
    Mistake(checks.check_tokenize, tokenize_ascii_flag, r"your word class is ASCII-only"),
    Mistake(checks.check_tokenize, tokenize_isalnum_loop, r"'_' is a word character.*isalnum"),
    Mistake(
        checks.check_tokenize,
        tokenize_loop_pending_word_lost,
        r"^(?!.*known mistakes give).*The last word is missing where the text ends with a word.*"
        r"After the loop",
    ),
    Mistake(checks.check_build_vocab, vocab_unk_first, r"<pad> and <unk> are swapped"),
    Mistake(
        checks.check_build_vocab,
        vocab_counts_characters,
        r"single characters of the tokens.*split each token into its characters",
    ),
    Mistake(
        checks.check_build_vocab,
        vocab_id_to_token,
        r"a dict from ids to tokens.*the other way round",
    ),
    Mistake(
        checks.check_bpe_encode,
        encode_pretokenized_chunks,
        r"^(?!.*known mistakes give).*each pre-tokenised chunk on its own",
    ),
    Mistake(
        checks.check_bpe_encode,
        encode_words_spaces_between,
        r"^(?!.*known mistakes give).*each word on its own \(the text split at its spaces",
    ),
    Mistake(
        checks.check_pad_batch,
        pad_width_of_largest,
        r"(?s)raised ValueError.*length of max\(sequences\).*lexicographically",
    ),
    Mistake(
        checks.check_pad_batch,
        pad_truncated_to_largest,
        r"(?s)should have shape.*length of max\(sequences\).*lexicographically",
    ),
    Mistake(
        checks.check_encode,
        encode_lowercases_tokens,
        r"with its capital letter.*you lower-cased \(or case-folded\) each token",
    ),
]


# ======================================================================= correct variants
# ------------------------------------------------------------------------------ tokenize
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


def tokenize_returns_tuple(text):
    return tuple(ref.tokenize(text))


def tokenize_space_out_punctuation(text):
    """Put spaces around every punctuation mark, then split on whitespace (the way many
    preprocessing scripts and the torchtext 'basic_english' normaliser work)."""
    spaced = "".join(
        ch if ch.isalnum() or ch == "_" or ch.isspace() else f" {ch} " for ch in text.lower()
    )
    return spaced.split()


def tokenize_finditer(text):
    return [match.group() for match in re.finditer(r"[^\W]+|[^\w\s]", text.lower())]


# --------------------------------------------------------------------------- build_vocab
def vocab_two_stable_sorts(token_lists, min_freq=1):
    counts = Counter(t for tokens in token_lists for t in tokens)
    order = sorted(sorted(counts), key=lambda t: counts[t], reverse=True)
    vocab = {"<pad>": 0, "<unk>": 1, "<bos>": 2, "<eos>": 3}
    for token in order:
        if counts[token] >= min_freq and token not in vocab:
            vocab[token] = len(vocab)
    return vocab


def vocab_like_torchtext(token_lists, min_freq=1):
    """torchtext's build_vocab_from_iterator(iterator, min_freq, specials, special_first=True):
    an OrderedDict of tokens sorted by (-count, token), specials removed and put first."""
    counter = Counter()
    for tokens in token_lists:
        counter.update(tokens)
    ordered = OrderedDict(sorted(counter.items(), key=lambda item: (-item[1], item[0])))
    for special in SPECIALS:
        ordered.pop(special, None)
    itos = SPECIALS + [token for token, count in ordered.items() if count >= min_freq]
    return OrderedDict((token, index) for index, token in enumerate(itos))


def vocab_counter_then_sorted_list(token_lists, min_freq=1):
    """Counter + sorted, then an index list and its inverse (the PyTorch text tutorials' way)."""
    counts = Counter(token for tokens in token_lists for token in tokens)
    kept = [t for t, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])) if c >= min_freq]
    index_to_token = SPECIALS + [t for t in kept if t not in SPECIALS]
    return {token: index for index, token in enumerate(index_to_token)}


def vocab_heap_free_groupby(token_lists, min_freq=1):
    """Group tokens by count, biggest count first, each group sorted."""
    counts = Counter(token for tokens in token_lists for token in tokens)
    by_count = defaultdict(list)
    for token, count in counts.items():
        by_count[count].append(token)
    vocab = dict(zip(SPECIALS, range(4), strict=True))
    for count in sorted(by_count, reverse=True):
        if count < min_freq:
            break
        for token in sorted(by_count[count]):
            vocab.setdefault(token, len(vocab))
    return vocab


# -------------------------------------------------------------------------- encode/decode
def encode_try_except(tokens, vocab):
    out = []
    for token in tokens:
        try:
            out.append(vocab[token])
        except KeyError:
            out.append(vocab["<unk>"])
    return out


def encode_returns_tuple(tokens, vocab):  # <unk>'s id looked up: a vocab may number it otherwise
    return tuple(vocab.get(token, vocab["<unk>"]) for token in tokens)


def encode_returns_array(tokens, vocab):
    return np.array([vocab.get(token, vocab["<unk>"]) for token in tokens], dtype=np.int64)


def encode_returns_tensor(tokens, vocab):
    return torch.tensor([vocab.get(token, vocab["<unk>"]) for token in tokens], dtype=torch.long)


def decode_list_index(ids, vocab):
    tokens = sorted(vocab, key=vocab.get)
    return [tokens[i] for i in ids]


def decode_returns_tuple(ids, vocab):
    inverse = {index: token for token, index in vocab.items()}
    return tuple(inverse[int(i)] for i in ids)


def decode_via_numpy_take(ids, vocab):
    itos = np.array(sorted(vocab, key=vocab.get), dtype=object)
    return list(itos[np.asarray(ids, dtype=np.int64)])


# ----------------------------------------------------------------------------- pad_batch
def pad_concat_int32(sequences, pad_id):
    width = max(map(len, sequences), default=0)
    return np.array(
        [list(s) + [pad_id] * (width - len(s)) for s in sequences], dtype=np.int32
    ).reshape(len(sequences), width)


def pad_with_np_pad(sequences, pad_id):
    width = max((len(s) for s in sequences), default=0)
    rows = [
        np.pad(np.asarray(s, dtype=np.int64), (0, width - len(s)), constant_values=pad_id)
        for s in sequences
    ]
    return np.stack(rows) if rows else np.zeros((0, 0), dtype=np.int64)


def pad_with_torch_pad_sequence(sequences, pad_id):
    """PyTorch's own utility: a (batch, max_len) LongTensor (it refuses an empty list, so a
    batch of no sequences is built apart)."""
    if not sequences:
        return torch.zeros((0, 0), dtype=torch.long)
    tensors = [torch.tensor(s, dtype=torch.long) for s in sequences]
    return torch.nn.utils.rnn.pad_sequence(tensors, batch_first=True, padding_value=pad_id)


def pad_default_dtype(sequences, pad_id):
    """np.array without a dtype: int64 with values, float64 for a batch of empty rows (a
    mistake since fix round 38: the contract's batch is integer, (0, 0) with no rows)."""
    width = max((len(s) for s in sequences), default=0)
    return np.array([list(s) + [pad_id] * (width - len(s)) for s in sequences])


def pad_uint16(sequences, pad_id):
    return ref.pad_batch(sequences, pad_id).astype(np.uint16)


# ----------------------------------------------------------------------------------- BPE
def pairs_counter(ids):
    return Counter(zip(ids, ids[1:], strict=False))


def pairs_like_minbpe(ids, counts=None):
    """minbpe's get_stats: an optional dict to update, counts.get(pair, 0) + 1."""
    counts = {} if counts is None else counts
    for pair in zip(ids, ids[1:], strict=False):
        counts[pair] = counts.get(pair, 0) + 1
    return counts


def pairs_defaultdict(ids):
    counts = defaultdict(int)
    for i in range(len(ids) - 1):
        counts[ids[i], ids[i + 1]] += 1
    return counts


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


def merge_like_minbpe(ids, pair, idx):
    newids, i = [], 0
    while i < len(ids):
        if ids[i] == pair[0] and i < len(ids) - 1 and ids[i + 1] == pair[1]:
            newids.append(idx)
            i += 2
        else:
            newids.append(ids[i])
            i += 1
    return newids


def merge_with_iterator(ids, pair, new_id):
    """One pass with an iterator and a held-back id."""
    out, held = [], None
    for token in ids:
        if held is not None and (held, token) == pair:
            out.append(new_id)
            held = None
            continue
        if held is not None:
            out.append(held)
        held = token
    if held is not None:
        out.append(held)
    return tuple(out)


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


def train_like_minbpe(text, num_merges):
    """minbpe's BasicTokenizer.train: get_stats, max by count, merge, record, and a vocab of
    bytes kept alongside (here with the early stop the course's contract adds)."""
    ids = list(text.encode("utf-8"))
    merges, vocab = {}, {idx: bytes([idx]) for idx in range(256)}
    for i in range(num_merges):
        stats = pairs_like_minbpe(ids)
        if not stats:
            break
        pair = max(stats, key=stats.get)
        idx = 256 + i
        ids = merge_like_minbpe(ids, pair, idx)
        merges[pair] = idx
        vocab[idx] = vocab[pair[0]] + vocab[pair[1]]
    return merges


def train_like_sennrich(text, num_merges, min_frequency=2):
    """Sennrich et al.'s learn-BPE loop on a {symbols: frequency} vocabulary (here the whole
    text is one 'word'), stopping when the best pair occurs fewer than min_frequency times,
    as subword-nmt does by default."""
    vocab = {tuple(text.encode("utf-8")): 1}
    merges = {}
    for i in range(num_merges):
        stats = defaultdict(int)
        for word, freq in vocab.items():
            for pair in zip(word, word[1:], strict=False):
                stats[pair] += freq
        if not stats:
            break
        best = max(stats, key=stats.get)
        if stats[best] < min_frequency:
            break
        merged = {}
        for word, freq in vocab.items():
            merged[tuple(merge_like_minbpe(list(word), best, 256 + i))] = freq
        vocab = merged
        merges[best] = 256 + i
    return merges


def train_returns_ordered_dict(text, num_merges):
    return OrderedDict(ref.train_bpe(text, num_merges))


def encode_merges_in_learned_order(text, merges):
    ids = list(text.encode("utf-8"))
    for pair, new_id in merges.items():
        ids = ref.merge_pair(ids, pair, new_id)
    return ids


def encode_like_minbpe(text, merges):
    """minbpe's encode: the pair with the lowest merge index, until none is mergeable."""
    ids = list(text.encode("utf-8"))
    while len(ids) >= 2:
        stats = pairs_like_minbpe(ids)
        pair = min(stats, key=lambda p: merges.get(p, float("inf")))
        if pair not in merges:
            break
        ids = merge_like_minbpe(ids, pair, merges[pair])
    return ids


def encode_one_occurrence_at_a_time(text, merges):
    """Like Hugging Face's BPE model: merge the best-ranked adjacent pair, leftmost
    occurrence first, one occurrence at a time."""
    ids = list(text.encode("utf-8"))
    while True:
        ranked = [
            (merges[(a, b)], i)
            for i, (a, b) in enumerate(zip(ids, ids[1:], strict=False))
            if (a, b) in merges
        ]
        if not ranked:
            return np.array(ids, dtype=np.int64)
        rank, i = min(ranked)
        ids = [*ids[:i], rank, *ids[i + 2 :]]


def decode_recursive(ids, merges):
    children = {new_id: pair for pair, new_id in merges.items()}

    def expand(i):
        if i < 256:
            return bytes([i])
        a, b = children[i]
        return expand(a) + expand(b)

    return b"".join(expand(i) for i in ids).decode("utf-8", errors="replace")


def decode_like_minbpe(ids, merges):
    vocab = {idx: bytes([idx]) for idx in range(256)}
    for (p0, p1), idx in merges.items():
        vocab[idx] = vocab[p0] + vocab[p1]
    tokens = b"".join(vocab[idx] for idx in ids)
    return tokens.decode("utf-8", errors="replace")


def decode_bytearray(ids, merges):
    table = [bytes([i]) for i in range(256)]
    for pair, new_id in sorted(merges.items(), key=lambda item: item[1]):
        assert new_id == len(table)
        table.append(table[pair[0]] + table[pair[1]])
    out = bytearray()
    for i in ids:
        out += table[i]
    return out.decode(errors="replace")


# ------------------------------------------------ round 11 (r11c): families that carry over
def pad_max_of_lengths(sequences, pad_id):  # max() of an empty list of lengths raises
    lengths = [len(seq) for seq in sequences]
    batch = np.full((len(sequences), max(lengths)), pad_id, dtype=np.int64)
    for row, (seq, length) in enumerate(zip(sequences, lengths)):
        batch[row, :length] = seq
    return batch


def pad_with_bare_pad_sequence(sequences, pad_id):  # same family: pad_sequence([]) raises
    tensors = [torch.tensor(s, dtype=torch.long) for s in sequences]
    return torch.nn.utils.rnn.pad_sequence(tensors, batch_first=True, padding_value=pad_id)


def pad_stacked_rows(sequences, pad_id):  # same family: np.stack of no rows raises
    width = max((len(s) for s in sequences), default=0)
    return np.stack([np.array(list(s) + [pad_id] * (width - len(s))) for s in sequences])


def pad_at_least_one_row(sequences, pad_id):  # same family: a (1, 1) batch for no sequences
    width = max((len(s) for s in sequences), default=1)
    batch = np.full((max(len(sequences), 1), width), pad_id, dtype=np.int64)
    for row, seq in enumerate(sequences):
        batch[row, : len(seq)] = seq
    return batch


def merge_overlapping_starts(ids, pair, new_id):  # every start of the pair replaced
    starts = {i for i in range(len(ids) - 1) if (ids[i], ids[i + 1]) == tuple(pair)}
    return [
        new_id if i in starts else t
        for i, t in enumerate(ids)
        if i - 1 not in starts or i in starts
    ]


def pad_default_one(sequences, pad_id):  # same family: max(..., default=1)
    width = max((len(s) for s in sequences), default=1)
    batch = np.full((len(sequences), width), pad_id, dtype=np.int64)
    for row, seq in enumerate(sequences):
        batch[row, : len(seq)] = seq
    return batch


def tokenize_drops_digits(text):  # letters and '_' kept, digits in neither alternative
    return re.findall(r"[^\W\d]+|[^\w\s]", text.lower())


def tokenize_drops_underscores(text):  # '_' in neither alternative
    return re.findall(r"[^\W_]+|[^\w\s_]", text.lower())


def tokenize_split_at_word_boundaries(text):  # the whitespace stays on the marks
    return [piece for piece in re.split(r"\b", text.lower()) if piece.strip()]


def tokenize_trailing_spaces_kept(text):  # \s* after each token
    return [t for t in re.findall(r"\w+\s*|[^\w\s]\s*", text.lower())]


def tokenize_peels_chunk_ends(text):  # marks inside a chunk ("well-known") stay glued
    def is_mark(ch):
        return not (ch.isalnum() or ch == "_")

    tokens = []
    for chunk in text.lower().split():
        head, tail = [], []
        while chunk and is_mark(chunk[0]):
            head.append(chunk[0])
            chunk = chunk[1:]
        while chunk and is_mark(chunk[-1]):
            tail.insert(0, chunk[-1])
            chunk = chunk[:-1]
        tokens += head + ([chunk] if chunk else []) + tail
    return tokens


def tokenize_words_keep_leading_space(text):  # the space before each word kept with it
    word_or_mark = re.compile(r"\s?\w+|[^\w\s]")
    return [match.group() for match in word_or_mark.finditer(text.lower())]


def tokenize_sorted_set(text):
    return sorted(set(re.findall(r"\w+|[^\w\s]", text.lower())))


def tokenize_repeats_removed(text):  # order kept, repeats gone
    return list(dict.fromkeys(re.findall(r"\w+|[^\w\s]", text.lower())))


def encode_plain_lookup(tokens, vocab):  # vocab[token] on an unknown token
    return [vocab[token] for token in tokens]


def encode_unk_spelled_upper(tokens, vocab):  # the unknown token's key spelled <UNK>
    return [vocab[token] if token in vocab else vocab["<UNK>"] for token in tokens]


def encode_unk_without_brackets(tokens, vocab):  # ... or unk
    return [vocab.get(token) or vocab["unk"] for token in tokens]


def train_stops_below_three(text, num_merges):  # a count threshold: stops at count 2
    ids, merges = list(text.encode("utf-8")), {}
    for step in range(num_merges):
        counts = ref.get_pair_counts(ids)
        if not counts:
            break
        best = max(counts, key=counts.get)
        if counts[best] < 3:
            break
        ids = ref.merge_pair(ids, best, 256 + step)
        merges[best] = 256 + step
    return merges


def train_stops_when_few_ids_left(text, num_merges):  # a test on the number of ids
    ids, merges = list(text.encode("utf-8")), {}
    for step in range(num_merges):
        if len(ids) < 10:
            break
        counts = ref.get_pair_counts(ids)
        best = max(counts, key=counts.get)
        ids = ref.merge_pair(ids, best, 256 + step)
        merges[best] = 256 + step
    return merges


def decode_bytes_only_table(ids, merges):  # no entry for a merge: .get(i, b"")
    table = {i: bytes([i]) for i in range(256)}
    return b"".join(table.get(i, b"") for i in ids).decode("utf-8", errors="replace")


def decode_skips_merged_ids(ids, merges):  # the same family: `if i < 256`
    return bytes(i for i in ids if i < 256).decode("utf-8", errors="replace")


def bpe_encode_one_step(text, merges):  # an if where the while belongs
    ids = list(text.encode("utf-8"))
    present = [pair for pair in ref.get_pair_counts(ids) if pair in merges]
    if present:
        pair = min(present, key=merges.get)
        ids = ref.merge_pair(ids, pair, merges[pair])
    return ids


def bpe_encode_pairs_in_a_generator(text, merges):  # each `in` consumes the generator
    ids = list(text.encode("utf-8"))
    while len(ids) >= 2:
        pairs = ((ids[i], ids[i + 1]) for i in range(len(ids) - 1))
        learned = [pair for pair in merges if pair in pairs]
        if not learned:
            break
        ids = ref.merge_pair(ids, learned[0], merges[learned[0]])
    return ids


def bpe_encode_returns_in_loop(text, merges):  # the same family: a return inside the loop
    ids = list(text.encode("utf-8"))
    while len(ids) >= 2:
        present = [pair for pair in ref.get_pair_counts(ids) if pair in merges]
        if not present:
            break
        pair = min(present, key=merges.get)
        return ref.merge_pair(ids, pair, merges[pair])
    return ids


def bpe_encode_reversed_pass(text, merges):
    ids = list(text.encode("utf-8"))
    for pair, new_id in reversed(list(merges.items())):
        ids = ref.merge_pair(ids, pair, new_id)
    return ids


def bpe_encode_pass_by_id_descending(text, merges):  # the same: sorted by new id, reversed
    ids = list(text.encode("utf-8"))
    for pair, new_id in sorted(merges.items(), key=lambda item: -item[1]):
        ids = ref.merge_pair(ids, pair, new_id)
    return ids


def merge_on_joined_text(ids, pair, new_id):  # '1 2' found inside '11 2'
    text = " ".join(map(str, ids)).replace(f"{pair[0]} {pair[1]}", str(new_id))
    return [int(t) for t in text.split()]


def merge_on_list_repr(ids, pair, new_id):  # the same family on str(ids)
    text = str(list(ids))[1:-1].replace(f"{pair[0]}, {pair[1]}", str(new_id))
    return [int(t) for t in text.split(", ")] if text else []


def encode_eos_appended(tokens, vocab):
    return [vocab.get(t, vocab["<unk>"]) for t in tokens] + [vocab["<eos>"]]


def encode_bos_prepended(tokens, vocab):
    return [vocab["<bos>"]] + [vocab.get(t, vocab["<unk>"]) for t in tokens]


def decode_drops_bos_and_eos(ids, vocab):
    inv = {i: t for t, i in vocab.items()}
    return [inv[int(i)] for i in ids if inv[int(i)] not in ("<bos>", "<eos>")]


def decode_drops_padding(ids, vocab):  # the other member: <pad> alone, wherever it is
    inv = {i: t for t, i in vocab.items()}
    return [inv[int(i)] for i in ids if int(i) != vocab["<pad>"]]


def train_ids_from_258(text, num_merges):
    return {pair: new_id + 2 for pair, new_id in ref.train_bpe(text, num_merges).items()}


def bpe_encode_ascii_ignored(text, merges):
    return ref.bpe_encode(text.encode("ascii", errors="ignore").decode(), merges)


def bpe_encode_non_ascii_filtered(text, merges):
    return ref.bpe_encode("".join(ch for ch in text if ord(ch) < 128), merges)


def vocab_lower_cased(token_lists, min_freq=1):
    return ref.build_vocab([[t.lower() for t in ts] for ts in token_lists], min_freq)


def vocab_case_folded(token_lists, min_freq=1):
    return ref.build_vocab([[t.casefold() for t in ts] for ts in token_lists], min_freq)


def vocab_default_two(token_lists, min_freq=2):
    return ref.build_vocab(token_lists, min_freq)


def vocab_default_three(token_lists, min_freq=3):
    return ref.build_vocab(token_lists, min_freq)


MISTAKES += [
    Mistake(checks.check_encode, encode_eos_appended, r"You added <eos> \(3\) after the tokens"),
    Mistake(checks.check_encode, encode_bos_prepended, r"You added <bos> \(2\) in front of"),
    Mistake(
        checks.check_decode,
        decode_drops_bos_and_eos,
        r"You dropped <bos>, <eos> and kept <pad>|Special tokens \(<pad>, <unk>, <bos>, <eos>\) "
        r"must be decoded",
    ),
    Mistake(checks.check_decode, decode_drops_padding, r"You dropped <pad> and kept"),
    Mistake(checks.check_train_bpe, train_ids_from_258, r"start at 258, 2 too high"),
    Mistake(
        checks.check_bpe_encode,
        bpe_encode_ascii_ignored,
        r"The bytes of the characters outside ASCII are missing",
    ),
    Mistake(
        checks.check_bpe_encode,
        bpe_encode_non_ascii_filtered,
        r"The bytes of the characters outside ASCII are missing",
    ),
    Mistake(checks.check_build_vocab, vocab_lower_cased, r"You lower-cased the tokens"),
    Mistake(checks.check_build_vocab, vocab_case_folded, r"You lower-cased the tokens"),
    Mistake(
        checks.check_build_vocab,
        vocab_default_two,
        r"Your default for min_freq is not 1.*=2, one more than 1\)",
    ),
    Mistake(
        checks.check_build_vocab, vocab_default_three, r"Your default for min_freq is not 1.*=3\)"
    ),
    Mistake(
        checks.check_merge_pair,
        merge_on_joined_text,
        r"You merged on the ids written as text .*'(1 2|2 3)' is found inside '1",
    ),
    Mistake(
        checks.check_merge_pair,
        merge_on_list_repr,
        r"You merged on the ids written as text",
    ),
    Mistake(
        checks.check_bpe_encode,
        bpe_encode_one_step,
        r"Only one merge was applied, and then it stopped",
    ),
    # on texts that hold the earliest-learned merge it looks like one round of the replay;
    # a text without it tells the two apart
    Mistake(
        checks.check_bpe_encode,
        bpe_encode_pairs_in_a_generator,
        r"^(?!.*Only one merge).*Only the earliest-learned merge was ever applied.*nothing was "
        r"merged at all.*a merge that is not found exhausts it",
    ),
    Mistake(
        checks.check_bpe_encode,
        bpe_encode_returns_in_loop,
        r"Only one merge was applied, and then it stopped",
    ),
    Mistake(
        checks.check_bpe_encode,
        bpe_encode_reversed_pass,
        r"You applied each merge once, latest learned first",
    ),
    Mistake(
        checks.check_bpe_encode,
        bpe_encode_pass_by_id_descending,
        r"You applied each merge once, latest learned first",
    ),
    Mistake(
        checks.check_train_bpe,
        train_stops_below_three,
        r"Your \d+ merge\(s\) are right, then you stopped.*occurred 2 times, still more than once",
    ),
    Mistake(
        checks.check_train_bpe,
        train_stops_when_few_ids_left,
        r"merge\(s\) are right, then you stopped: after merge \d+ .*Your stop test fires too early",
    ),
    Mistake(
        checks.check_bpe_decode,
        decode_bytes_only_table,
        r"The merged tokens \(ids 256 and up\) came out as nothing",
    ),
    Mistake(
        checks.check_bpe_decode,
        decode_skips_merged_ids,
        r"The merged tokens \(ids 256 and up\) came out as nothing",
    ),
    Mistake(
        checks.check_encode,
        encode_plain_lookup,
        r"(?s)raised KeyError.*vocab\[token\] raised KeyError for '\w+', a token that is not in",
    ),
    Mistake(
        checks.check_encode,
        encode_unk_spelled_upper,
        r"The vocabulary has no key '<UNK>': its unknown token is spelled \"<unk>\"",
    ),
    Mistake(
        checks.check_encode,
        encode_unk_without_brackets,
        r"The vocabulary has no key 'unk': its unknown token is spelled \"<unk>\"",
    ),
    Mistake(
        checks.check_tokenize,
        tokenize_drops_digits,
        r"Whole classes of characters disappeared.*digits \('\d'",
    ),
    Mistake(
        checks.check_tokenize,
        tokenize_drops_underscores,
        r"Whole classes of characters disappeared.*the underscore '_' \('_'\)",
    ),
    Mistake(
        checks.check_tokenize,
        tokenize_split_at_word_boundaries,
        r"Your token '[^']*' (holds whitespace|ends with the spaces after it).*word boundaries",
    ),
    Mistake(
        checks.check_tokenize,
        tokenize_trailing_spaces_kept,
        r"Your token '[^']*' ends with the spaces after it",
    ),
    Mistake(
        checks.check_tokenize,
        tokenize_peels_chunk_ends,
        r"A mark inside a word stays glued in it",
    ),
    Mistake(
        checks.check_tokenize,
        tokenize_words_keep_leading_space,
        r"Your token ' \w+' starts with the space before it.*r' \?\\w\+'",
    ),
    Mistake(
        checks.check_tokenize,
        tokenize_sorted_set,
        r"right ones, but .*sorted: a sentence is a sequence",
    ),
    Mistake(
        checks.check_tokenize,
        tokenize_repeats_removed,
        r"each token kept once, at its first place.*\(a set, or dict\.fromkeys",
    ),
    Mistake(
        checks.check_pad_batch,
        pad_default_one,
        r"no sequences at all: yours has no row, right, but 1 column\(s\).*default=1 for max",
    ),
    Mistake(
        checks.check_pad_batch,
        pad_max_of_lengths,
        r"(?s)no sequences at all.*max\(len\(seq\) for seq in sequences\) without default=0",
    ),
    Mistake(
        checks.check_pad_batch,
        pad_with_bare_pad_sequence,
        r"(?s)no sequences at all.*pad_sequence refuses an empty list",
    ),
    Mistake(
        checks.check_pad_batch,
        pad_stacked_rows,
        r"(?s)no sequences at all.*np\.stack \(or np\.vstack\) needs at least one row",
    ),
    Mistake(
        checks.check_pad_batch,
        pad_at_least_one_row,
        r"no sequences at all, and yours has shape \(1, 1\)",
    ),
    Mistake(
        checks.check_merge_pair,
        merge_overlapping_starts,
        r"(?s)You merged overlapping occurrences.*turned both into \d+",
    ),
]


# ---- blind round 12 (r12c): families, each with a member no benchmark case contains


def train_stops_at_one_distinct_pair(text, num_merges):
    ids, merges = list(text.encode("utf-8")), {}
    for step in range(num_merges):
        counts = ref.get_pair_counts(ids)
        if len(counts) < 2:
            break
        best = max(counts, key=counts.get)
        ids = ref.merge_pair(ids, best, 256 + step)
        merges[best] = 256 + step
    return merges


def train_stops_below_count_three(text, num_merges):
    ids, merges = list(text.encode("utf-8")), {}
    for step in range(num_merges):
        counts = ref.get_pair_counts(ids)
        if not counts or max(counts.values()) < 3:
            break
        best = max(counts, key=counts.get)
        ids = ref.merge_pair(ids, best, 256 + step)
        merges[best] = 256 + step
    return merges


def merge_pair_seeded_with_first_id(ids, pair, new_id):
    out = [ids[0]]
    for token in ids[1:]:
        if (out[-1], token) == tuple(pair):
            out[-1] = new_id
        else:
            out.append(token)
    return out


def merge_pair_do_while(ids, pair, new_id):
    out, i = [], 0
    while True:  # the body runs once before the test: an empty list reads ids[0]
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == tuple(pair):
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
        if i >= len(ids):
            return out


MISTAKES += [
    Mistake(
        checks.check_train_bpe,
        train_stops_at_one_distinct_pair,
        r"stop test is a test on the number of distinct pairs",
    ),
    Mistake(
        checks.check_train_bpe,
        train_stops_below_count_three,
        r"stop test is a threshold on the count that is too high",
    ),
    Mistake(
        checks.check_merge_pair,
        merge_pair_seeded_with_first_id,
        r"This call's ids is empty, and your code read an element that does not exist",
    ),
    Mistake(
        checks.check_merge_pair,
        merge_pair_do_while,
        r"This call's ids is empty, and your code read an element that does not exist",
    ),
]


def decode_with_vocab_itself(ids, vocab):
    return [vocab[int(i)] for i in ids]


def decode_with_copy_not_inverted(ids, vocab):
    table = dict(vocab.items())
    return [table[int(i)] for i in ids]


def tokenize_accents_stripped(text):
    import unicodedata

    text = unicodedata.normalize("NFD", text.lower())
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Mn")
    return re.findall(r"\w+|[^\w\s]", text)


def tokenize_ascii_folded(text):
    import unicodedata

    text = unicodedata.normalize("NFKD", text.lower()).encode("ascii", "ignore").decode()
    return re.findall(r"\w+|[^\w\s]", text)


def tokenize_casefolded(text):
    return re.findall(r"\w+|[^\w\s]", text.casefold())


MISTAKES += [
    Mistake(checks.check_decode, decode_with_vocab_itself, r"a dict whose keys are tokens"),
    Mistake(checks.check_decode, decode_with_copy_not_inverted, r"a dict whose keys are tokens"),
    Mistake(checks.check_tokenize, tokenize_accents_stripped, r"You removed the accents"),
    Mistake(checks.check_tokenize, tokenize_ascii_folded, r"You turned the text into ASCII"),
    Mistake(checks.check_tokenize, tokenize_casefolded, r"You case-folded the text"),
]


def vocab_min_freq_per_list_summed(token_lists, min_freq=1):
    kept = Counter()
    for tokens in token_lists:
        for token, count in Counter(tokens).items():
            if count >= min_freq:
                kept[token] += count
    vocab = {token: index for index, token in enumerate(SPECIALS)}
    for token, _ in sorted(kept.items(), key=lambda item: (-item[1], item[0])):
        vocab.setdefault(token, len(vocab))
    return vocab


def vocab_min_freq_per_list_filter(token_lists, min_freq=1):
    total = Counter(t for tokens in token_lists for t in tokens)
    frequent = {t for tokens in token_lists for t, n in Counter(tokens).items() if n >= min_freq}
    vocab = {token: index for index, token in enumerate(SPECIALS)}
    for token, _ in sorted(total.items(), key=lambda item: (-item[1], item[0])):
        if token in frequent:
            vocab.setdefault(token, len(vocab))
    return vocab


MISTAKES += [
    Mistake(
        checks.check_build_vocab,
        vocab_min_freq_per_list_summed,
        r"You applied min_freq to each token list's own counts",
    ),
    Mistake(
        checks.check_build_vocab,
        vocab_min_freq_per_list_filter,
        r"You applied min_freq to each token list's own counts"
        r"|You kept only the tokens that some token list holds min_freq times on its own",
    ),
]


def bpe_encode_keeps_bytes(text, merges):
    ids = text.encode("utf-8")
    while len(ids) >= 2:
        present = [pair for pair in ref.get_pair_counts(ids) if pair in merges]
        if not present:
            break
        pair = min(present, key=merges.get)
        ids = ref.merge_pair(ids, pair, merges[pair])
    return ids


def bpe_encode_bytearray(text, merges):
    ids = bytearray(text, "utf-8")
    for pair, new_id in merges.items():
        if pair in ref.get_pair_counts(list(ids)):
            ids = ref.merge_pair(list(ids), pair, new_id)
    return ids


MISTAKES += [
    Mistake(checks.check_bpe_encode, bpe_encode_keeps_bytes, r"Yours is a bytes object"),
    Mistake(checks.check_bpe_encode, bpe_encode_bytearray, r"Yours is a bytes object"),
]


def tokenize_letters_digits_underscore_apart(text):
    text = text.lower()
    return re.findall(r"[^\W\d_]+|[0-9]+|_|[^\w\s]", text)


def tokenize_letters_apart_from_digits(text):
    return re.findall(r"[^\W\d]+|\d+|[^\w\s]", text.lower())


def tokenize_gpt2_classes(text):
    return regex.findall(r"\p{L}+|\p{N}+|[^\s\p{L}\p{N}]", text.lower())


MISTAKES += [
    Mistake(
        checks.check_tokenize,
        tokenize_letters_digits_underscore_apart,
        r"Your words stop where letters meet digits .*, and '_' came out",
    ),
    Mistake(
        checks.check_tokenize,
        tokenize_letters_apart_from_digits,
        r"Your words stop where letters meet digits \('mp3' becomes 'mp', '3'\): runs",
    ),
    Mistake(
        checks.check_tokenize,
        tokenize_gpt2_classes,
        r"Your words stop where letters meet digits .*, and '_' came out",
    ),
]


# ---------------------------------- round 14 (r14a): classes round 13's blind cases showed
# A pattern in a plain string: "\b" is Python's backspace escape ("\\w" below is what an
# unescaped "\w" stays, as Python keeps an unknown escape).
_WORD_THEN_BOUNDARY = re.compile("\\w+\b|[^\\w\\s]")


def tokenize_boundary_after_word_plain_string(text):  # "\w+\b": a backspace after each word
    return _WORD_THEN_BOUNDARY.findall(text.lower())


def tokenize_bounded_words_plain_string(text):  # words between backspaces, marks forgotten too
    return re.findall("\b[\\w]+\b", text.lower())


def tokenize_marks_only(text):  # no word alternative at all: not a backspace
    return re.findall(r"[^\w\s]", text.lower())


def tokenize_raw_word_boundaries(text):  # the same boundaries in a raw string: right
    return re.findall(r"\b\w+\b|[^\w\s]", text.lower())


MISTAKES += [
    Mistake(
        checks.check_tokenize,
        tokenize_boundary_after_word_plain_string,
        r"Every word disappeared.*returned \['\\x08', 'ok\\x08', '!'\].*backspace.*raw string",
    ),
    Mistake(
        checks.check_tokenize,
        tokenize_bounded_words_plain_string,
        r"returned \[\], expected.*Every word disappeared.*\['\\x08ok\\x08'\].*raw string",
    ),
    Mistake(
        checks.check_tokenize,
        tokenize_marks_only,
        r"^(?!.*(backspace|raw string)).*Whole classes of characters disappeared",
    ),
]


def vocab_special_ends_the_loop(token_lists, min_freq=1):  # break meant as continue
    counts = Counter(t for tokens in token_lists for t in tokens)
    vocab = {special: i for i, special in enumerate(SPECIALS)}
    for token in sorted(counts, key=lambda t: (-counts[t], t)):
        if token in SPECIALS:
            break
        if counts[token] >= min_freq:
            vocab[token] = len(vocab)
    return vocab


def vocab_return_inside_the_loop(token_lists, min_freq=1):  # returns after one token
    counts = Counter(t for tokens in token_lists for t in tokens)
    vocab = dict(zip(SPECIALS, range(4), strict=True))
    for token, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        if count >= min_freq and token not in vocab:
            vocab[token] = len(vocab)
        return vocab
    return vocab


def vocab_break_below_min_freq(token_lists, min_freq=1):  # right: the counts only go down
    counts = Counter(t for tokens in token_lists for t in tokens)
    vocab = {special: i for i, special in enumerate(SPECIALS)}
    for token, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        if count < min_freq:
            break
        if token in vocab:
            continue
        vocab[token] = len(vocab)
    return vocab


MISTAKES += [
    Mistake(
        checks.check_build_vocab,
        vocab_special_ends_the_loop,
        r"'<unk>'.*\]\], min_freq=1\) returned .*stops at the first data token that is also "
        r"a special token.*a break where continue was meant",
    ),
    Mistake(
        checks.check_build_vocab,
        vocab_return_inside_the_loop,
        r"^(?!.*special token).*cut short: it stops after 'the' \(id 4\)\. '\w+', seen \d "
        r"time\(s\) with min_freq=1, is missing, and so are the \d token\(s\).*a return "
        r"inside the loop",
    ),
]


def bpe_decode_stack_below_257(ids, merges):  # i < 257: the first merge id, 256, as a byte
    parts = {new_id: pair for pair, new_id in merges.items()}
    out, stack = bytearray(), list(reversed(ids))
    while stack:
        i = stack.pop()
        if i < 257:
            out.append(i)
        else:
            stack.extend(reversed(parts[i]))
    return out.decode("utf-8")


def bpe_decode_byte_table_to_256(ids, merges):  # the single bytes' table one too long
    table = {}
    for i in range(0, 256 + 1):
        table[i] = bytes([i])
    for (a, b), new_id in merges.items():
        table[new_id] = table[a] + table[b]
    return b"".join(table[i] for i in ids).decode("utf-8")


def bpe_decode_merge_from_its_ids(ids, merges):  # right only while both parts are bytes
    table = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        table[new_id] = bytes([a, b])
    return b"".join(table[i] for i in ids).decode("utf-8")


def bpe_decode_ids_read_as_bytes(ids, merges):  # no table: every merge id taken for a byte
    return bytes(list(ids)).decode("utf-8", errors="replace")


MISTAKES += [
    Mistake(
        checks.check_bpe_decode,
        bpe_decode_stack_below_257,
        r"(?s)raised ValueError.*Id 256 was turned into a single byte.*off by one.*256 is the "
        r"first merge id",
    ),
    Mistake(
        checks.check_bpe_decode,
        bpe_decode_byte_table_to_256,
        r"(?s)raised ValueError.*with no merge at all, raises the same error: your table of "
        r"single bytes goes past 255",
    ),
    Mistake(
        checks.check_bpe_decode,
        bpe_decode_merge_from_its_ids,
        r"(?s)raised ValueError.*only where a merge's parts are merges themselves.*bytes\(\[a, "
        r"b\]\)",
    ),
    Mistake(
        checks.check_bpe_decode,
        bpe_decode_ids_read_as_bytes,
        r"(?s)raised ValueError.*Every merge id was turned into a single byte.*bytes\(ids\)",
    ),
]


def encode_stores_missing_tokens(tokens, vocab):  # a missing token written in as <unk>
    out = []
    for token in tokens:
        if token not in vocab:
            vocab[token] = vocab["<unk>"]
        out.append(vocab[token])
    return out


def decode_breaks_after_one(ids, vocab):  # a break left in the loop: one token back
    id_to_token = {index: token for token, index in vocab.items()}
    tokens = []
    for index in ids:
        tokens.append(id_to_token[int(index)])
        break
    return tokens


def decode_truth_test_on_ids(ids, vocab):  # `if ids` on a numpy row: ambiguous
    id_to_token = {index: token for token, index in vocab.items()}
    return [id_to_token[int(index)] for index in ids] if ids else []


def pad_fills_whole_rows(sequences, pad_id):  # each sequence written over its whole row
    width = max((len(seq) for seq in sequences), default=0)
    batch = np.full((len(sequences), width), pad_id, dtype=np.int64)  # (batch, width)
    for row, seq in enumerate(sequences):
        if seq:
            batch[row, :] = seq
    return batch


def merge_pops_while_iterating(ids, pair, new_id):  # the list shrinks under a fixed range
    out = ids[:]
    for i in range(len(ids) - 1):
        if out[i] == pair[0] and out[i + 1] == pair[1]:
            out[i] = new_id
            out.pop(i + 1)
    return out


def merge_appends_the_slice(ids, pair, new_id):  # the two ids themselves, not new_id
    out, i = [], 0
    while i < len(ids):
        if tuple(ids[i : i + 2]) == tuple(pair):
            out.append(ids[i : i + 2])
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


MISTAKES += [
    # blind round 15: the cause named where the inputs tell it apart
    Mistake(
        checks.check_encode,
        encode_stores_missing_tokens,
        r"added the unknown tokens .* to the caller's vocabulary, each with <unk>'s id",
    ),
    Mistake(checks.check_decode, decode_breaks_after_one, r"Only the first token came back"),
    Mistake(checks.check_decode, decode_truth_test_on_ids, r"truth test on the ids"),
    Mistake(checks.check_pad_batch, pad_fills_whole_rows, r"into its whole row"),
    Mistake(
        checks.check_merge_pair,
        merge_pops_while_iterating,
        r"Your list gets shorter while the loop runs",
    ),
    Mistake(
        checks.check_merge_pair,
        merge_appends_the_slice,
        r"appended the pair instead of new_id, and new_id never appears",
    ),
]

# ---- fix round 18 (blind15c): the classes of mistake the blind round's cases showed


def tokenize_loop_mark_first(text):  # at a mark, the mark is kept before the word
    tokens, letters = [], []
    for ch in text:
        if ch.isalnum() or ch == "_":
            letters.append(ch.lower())
            continue
        if not ch.isspace():
            tokens.append(ch)
        if letters:
            tokens.append("".join(letters))
            letters = []
    return tokens + (["".join(letters)] if letters else [])


def decode_extends_with_each_token(ids, vocab):  # .extend(str): its characters added
    by_id = dict(zip(vocab.values(), vocab.keys(), strict=True))
    out = []
    for i in ids:
        out.extend(by_id[int(i)])
    return out


def pairs_sorted_by_pair(ids):  # sorted(...) of the counted items: ids' order, ascending
    counts = defaultdict(int)
    for pair in zip(ids[:-1], ids[1:], strict=True):
        counts[pair] += 1
    return dict(sorted(counts.items()))


def pairs_most_common_first(ids):  # most_common(): the most frequent first
    return dict(Counter(zip(ids, ids[1:], strict=False)).most_common())


def train_sorted_by_count_ascending(text, num_merges):  # the least frequent pair taken
    ids = list(text.encode("utf-8"))
    merges = {}
    for i in range(num_merges):
        ranked = sorted(ref.get_pair_counts(ids).items(), key=lambda item: item[1])
        if not ranked:
            break
        pair = ranked[0][0]
        ids = ref.merge_pair(ids, pair, 256 + i)
        merges[pair] = 256 + i
    return merges


def merge_first_half_twice(ids, pair, new_id):  # pair[0] tested twice: only (a, a) merges
    first, _second = pair
    out, skip = [], False
    for here, after in zip(ids, [*ids[1:], None], strict=True):
        if skip:
            skip = False
        elif here == first and after == first:
            out.append(new_id)
            skip = True
        else:
            out.append(here)
    return out


def merge_first_half_twice_short_bound(ids, pair, new_id):  # and the last place skipped
    out, k = [], 0
    while k < len(ids):
        if k < len(ids) - 2 and ids[k] == pair[0] and ids[k + 1] == pair[0]:
            out, k = [*out, new_id], k + 2
        else:
            out, k = [*out, ids[k]], k + 1
    return out


def pad_masked_fill_of_zeros(sequences, pad_id):  # every 0 made pad_id, real ids 0 too
    if not sequences:
        return torch.zeros((0, 0), dtype=torch.long)
    rows = [torch.tensor(s, dtype=torch.long) for s in sequences]
    batch = torch.nn.utils.rnn.pad_sequence(rows, batch_first=True)
    return batch.masked_fill(batch == 0, pad_id)


def bpe_decode_bytes_stripped(ids, merges):  # bytes.strip(): the ends' whitespace lost
    table = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        table[new_id] = table[a] + table[b]
    return b"".join(table[i] for i in ids).strip().decode("utf-8")


def bpe_decode_trailing_whitespace_cut(ids, merges):  # .rstrip(): only the end's
    table = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        table[new_id] = table[a] + table[b]
    text = b"".join(table[i] for i in ids).decode("utf-8")
    return text.rstrip()


MISTAKES += [
    Mistake(
        checks.check_merge_pair,
        merge_first_half_twice,
        r"^(?!.*last two places).*compares the second id with pair\[0\] again",
    ),
    Mistake(
        checks.check_merge_pair,
        merge_first_half_twice_short_bound,
        r"compares the second id with pair\[0\] again.*never merges a pair in the last two",
    ),
    Mistake(
        checks.check_train_bpe,
        train_sorted_by_count_ascending,
        r"Every one of your merges is the least frequent pair",
    ),
    Mistake(
        checks.check_get_pair_counts,
        pairs_sorted_by_pair,
        r"your pairs come sorted by their ids, in ascending order",
    ),
    Mistake(
        checks.check_get_pair_counts,
        pairs_most_common_first,
        r"your pairs come sorted by count, the most frequent first",
    ),
    Mistake(
        checks.check_decode,
        decode_extends_with_each_token,
        r"Every token came back split into its characters \('\S+' as '\S', ",
    ),
    Mistake(
        checks.check_tokenize,
        tokenize_loop_mark_first,
        r"a mark that follows a word comes out before that word: \S+ before '\w+'",
    ),
    Mistake(
        checks.check_bpe_decode,
        bpe_decode_bytes_stripped,
        r"whitespace at both its ends .* is missing: your text was tidied with \.strip\(\)",
    ),
    Mistake(
        checks.check_bpe_decode,
        bpe_decode_trailing_whitespace_cut,
        r"^(?!.*last id).*whitespace at its end \(the trailing whitespace\) is missing",
    ),
    Mistake(
        checks.check_pad_batch,
        pad_masked_fill_of_zeros,
        r"real ids 0 inside the sequences became pad_id=\d+ too",
    ),
]

CORRECT = [
    Correct(checks.check_build_vocab, vocab_specials_subtracted_as_counter),
    Correct(checks.check_pad_batch, pad_np_pad_at_the_end),
    Correct(checks.check_tokenize, tokenize_loop),
    Correct(checks.check_tokenize, tokenize_split_filter),
    Correct(checks.check_tokenize, tokenize_returns_tuple),
    Correct(checks.check_tokenize, tokenize_space_out_punctuation),
    Correct(checks.check_tokenize, tokenize_finditer),
    Correct(checks.check_tokenize, tokenize_raw_word_boundaries),
    Correct(checks.check_build_vocab, vocab_two_stable_sorts),
    Correct(checks.check_build_vocab, vocab_like_torchtext),
    Correct(checks.check_build_vocab, vocab_counter_then_sorted_list),
    Correct(checks.check_build_vocab, vocab_heap_free_groupby),
    Correct(checks.check_build_vocab, vocab_break_below_min_freq),
    Correct(checks.check_encode, encode_try_except),
    Correct(checks.check_encode, encode_returns_tuple),
    Correct(checks.check_encode, encode_returns_array),
    Correct(checks.check_encode, encode_returns_tensor),
    Correct(checks.check_decode, decode_list_index),
    Correct(checks.check_decode, decode_returns_tuple),
    Correct(checks.check_decode, decode_via_numpy_take),
    Correct(checks.check_pad_batch, pad_concat_int32),
    Correct(checks.check_pad_batch, pad_with_np_pad),
    Correct(checks.check_pad_batch, pad_with_torch_pad_sequence),
    Correct(checks.check_pad_batch, pad_uint16),
    Correct(checks.check_get_pair_counts, pairs_counter),
    Correct(checks.check_get_pair_counts, pairs_like_minbpe),
    Correct(checks.check_get_pair_counts, pairs_defaultdict),
    Correct(checks.check_merge_pair, merge_index_loop),
    Correct(checks.check_merge_pair, merge_like_minbpe),
    Correct(checks.check_merge_pair, merge_with_iterator),
    Correct(checks.check_train_bpe, train_explicit_tie),
    Correct(checks.check_train_bpe, train_like_minbpe),
    Correct(checks.check_train_bpe, train_like_sennrich),
    Correct(checks.check_train_bpe, train_returns_ordered_dict),
    Correct(checks.check_bpe_encode, encode_merges_in_learned_order),
    Correct(checks.check_bpe_encode, encode_like_minbpe),
    Correct(checks.check_bpe_encode, encode_one_occurrence_at_a_time),
    Correct(checks.check_bpe_decode, decode_recursive),
    Correct(checks.check_bpe_decode, decode_like_minbpe),
    Correct(checks.check_bpe_decode, decode_bytearray),
]


# ------------------------------------------ round 19 (fix19c): mistakes of blind round 16
def bpe_decode_errors_ignored(ids, merges):  # a broken character dropped without a trace
    table = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        table[new_id] = table[a] + table[b]
    return b"".join(table[i] for i in ids).decode("utf-8", errors="ignore")


def bpe_decode_empty_on_error(ids, merges):  # gives up on the whole text
    table = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        table[new_id] = table[a] + table[b]
    try:
        return b"".join(table[i] for i in ids).decode("utf-8")
    except UnicodeDecodeError:
        return ""


def bpe_decode_str_of_bytes_strict(ids, merges):  # str(bytes, "utf-8") decodes strictly
    table = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        table[new_id] = table[a] + table[b]
    return str(b"".join(table[i] for i in ids), "utf-8")


def bpe_decode_pairs_from_values(ids, merges):  # the values are ids, not pairs
    table = {i: bytes([i]) for i in range(256)}
    for new_id, (a, b) in enumerate(merges.values(), start=256):
        table[new_id] = table[a] + table[b]
    return b"".join(table[i] for i in ids).decode("utf-8", errors="replace")


def decode_backslash_escapes(ids, merges):  # \xc3 for a broken character: not U+FFFD
    table = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        table[new_id] = table[a] + table[b]
    return b"".join(table[i] for i in ids).decode("utf-8", errors="backslashreplace")


def vocab_specials_sorted(token_lists, min_freq=1):  # sorted(): alphabetical ids
    vocab = {token: i for i, token in enumerate(sorted(SPECIALS))}
    counts = Counter(t for tokens in token_lists for t in tokens)
    for token, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        if count >= min_freq and token not in vocab:
            vocab[token] = len(vocab)
    return vocab


def vocab_unk_listed_last(token_lists, min_freq=1):  # <unk> written at the end of the list
    vocab = {}
    for token in ["<pad>", "<bos>", "<eos>", "<unk>"]:
        vocab[token] = len(vocab)
    counts = Counter(t for tokens in token_lists for t in tokens)
    for token, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        if count >= min_freq and token not in vocab:
            vocab[token] = len(vocab)
    return vocab


def tokenize_apostrophes_filtered_out(text):  # a clean-up that joins "don't" into 'dont'
    cleaned = "".join(ch for ch in text.lower() if ch != "'")
    return re.findall(r"\w+|[^\w\s]", cleaned)


def tokenize_punctuation_translated_away(text):  # every ASCII mark deleted before the split
    cleaned = text.lower().translate(str.maketrans("", "", string.punctuation))
    return re.findall(r"\w+|[^\w\s]", cleaned)


def encode_unk_unless_all_known(tokens, vocab):  # one unknown token: all of them <unk>
    if all(t in vocab for t in tokens):
        return [vocab[t] for t in tokens]
    return [vocab["<unk>"]] * len(tokens)


def encode_membership_in_values(tokens, vocab):  # `in vocab.values()`: no token is found
    unk = vocab["<unk>"]
    return [vocab[t] if t in vocab.values() else unk for t in tokens]


MISTAKES += [
    Mistake(
        checks.check_tokenize,
        tokenize_apostrophes_filtered_out,
        r"You removed the apostrophes \(\'\) from the text before splitting it: \"didn't\" "
        r"\(in tokenize\(.*\)\) became \['didnt'\]",
    ),
    Mistake(
        checks.check_tokenize,
        tokenize_punctuation_translated_away,
        r"You removed the characters .*'-'.* from the text before splitting it: .* became "
        r"\['\w+'\], the words on both sides of a removed character joined.*str\.translate",
    ),
    Mistake(
        checks.check_encode,
        encode_unk_unless_all_known,
        r"every token became <unk> \(1\), the known ones too.*gives the right ids\. One "
        r"unknown token turned the whole sequence into <unk>",
    ),
    Mistake(
        checks.check_encode,
        encode_membership_in_values,
        r"every token became <unk> \(1\), the known ones too.*with known tokens only, does "
        r"not give their ids either.*Your lookup finds no token in vocab",
    ),
    Mistake(
        checks.check_bpe_decode,
        bpe_decode_errors_ignored,
        r"returned 'hi', expected 'hi\ufffd'.*lost it without a trace.*errors='ignore'",
    ),
    Mistake(
        checks.check_build_vocab,
        vocab_specials_sorted,
        r"ids 0-3 in alphabetical order \(<bos>=0, <eos>=1, <pad>=2, <unk>=3\): they went "
        r"through sorted\(\)",
    ),
    Mistake(
        checks.check_build_vocab,
        vocab_unk_listed_last,
        r"in another order \(<pad>=0, <bos>=1, <eos>=2, <unk>=3\)\. Either you listed them "
        r"in this order, or you numbered them from a set",
    ),
    Mistake(
        checks.check_bpe_decode,
        bpe_decode_empty_on_error,
        r"returned '', expected 'hi\ufffd': the whole text vanished.*returns '' on a "
        r"UnicodeDecodeError",
    ),
    Mistake(
        checks.check_bpe_decode,
        bpe_decode_pairs_from_values,
        r"(?s)cannot unpack non-iterable int object.*`for a, b in merges\.values\(\)` \(the "
        r"values are the ids",
    ),
    Mistake(
        checks.check_bpe_decode,
        bpe_decode_str_of_bytes_strict,
        r"raised UnicodeDecodeError.*not valid UTF-8.*errors='replace'",
    ),
]


# ------------------------------------------------ f22 (g1): classes the round-19 cases showed
def bpe_decode_unmerged_by_new_id(ids, merges):  # undoes 256, 257, ...: oldest merge first
    ids = list(ids)
    for new_id, pair in sorted((new, pair) for pair, new in merges.items()):
        ids = [part for i in ids for part in (pair if i == new_id else [i])]
    return bytearray(ids).decode("utf-8", errors="replace")


def vocab_marks_skipped(token_lists, min_freq=1):  # a token of marks only is not a word
    kept = [[t for t in tokens if t.strip(string.punctuation)] for tokens in token_lists]
    return ref.build_vocab(kept, min_freq)


def vocab_letters_only(token_lists, min_freq=1):  # str.isalpha: numbers left out too
    return ref.build_vocab([[t for t in tokens if t.isalpha()] for tokens in token_lists], min_freq)


def tokenize_decimals_kept(text):  # a decimal point stays inside its number: '3.50'
    return re.findall(r"\d+(?:\.\d+)?|\w+|[^\w\s]", text.lower())


def tokenize_nt_split_off(text):  # "didn't" -> 'did', "n't", as the Treebank splits it
    return re.findall(r"\w+(?=n't\b)|n't|\w+|[^\w\s]", text.lower())


def merge_pair_two_at_a_time(ids, pair, new_id):  # one iterator read two ids per step
    it, out = iter(ids), []
    for a in it:
        b = next(it, None)
        if (a, b) == tuple(pair):
            out.append(new_id)
        else:
            out += [a] if b is None else [a, b]
    return out


def merge_pair_as_sets(ids, pair, new_id):  # {a, b} == {b, a}: the order of the pair lost
    return _scan(ids, new_id, lambda a, b: {a, b} == set(pair))


def pad_rows_one_shared_array(sequences, pad_id):  # one array object in every row
    max_len = max((len(seq) for seq in sequences), default=0)
    rows = [np.full(max_len, pad_id, dtype=np.int64)] * len(sequences)
    for row, seq in zip(rows, sequences):
        row[: len(seq)] = seq
    return np.array(rows, dtype=np.int64).reshape(len(sequences), max_len)


def pad_width_floor_of_one(sequences, pad_id):  # never narrower than one pad
    max_len = max([1] + [len(seq) for seq in sequences])
    batch = np.full((len(sequences), max_len), pad_id, dtype=np.int64)
    for row, seq in enumerate(sequences):
        batch[row, : len(seq)] = seq
    return batch


def pairs_break_after_first(ids):  # a break left in the loop: one pair, counted once
    counts = {}
    for i in range(len(ids) - 1):
        pair = (ids[i], ids[i + 1])
        counts[pair] = counts.get(pair, 0) + 1
        break
    return counts


def bpe_encode_compatibility_decomposed(text, merges):  # NFKD first: 'é' -> 'e' + U+0301
    return ref.bpe_encode(unicodedata.normalize("NFKD", text), merges)


def train_returns_merged_tokens(text, num_merges):  # {new_id: bytes}, the merged tokens only
    table = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in ref.train_bpe(text, num_merges).items():
        table[new_id] = table[a] + table[b]
    return {new_id: table[new_id] for new_id in range(256, 256 + num_merges) if new_id in table}


def bpe_decode_second_part_twice(ids, merges):  # table[b] + table[b]: a never used
    table = {i: bytes([i]) for i in range(256)}
    for (_, b), new_id in merges.items():
        table[new_id] = table[b] * 2
    return b"".join(table[i] for i in ids).decode("utf-8", errors="replace")


MISTAKES += [
    Mistake(
        checks.check_bpe_decode,
        bpe_decode_second_part_twice,
        r"Each merge's bytes are its second part twice, table\[b\] \+ table\[b\]: its first "
        r"part, a, is never used",
    ),
    Mistake(
        checks.check_train_bpe,
        train_returns_merged_tokens,
        r"That is a vocabulary, \{id: bytes\}, holding the bytes of \d+ merged ids: the table "
        r"built next to the merges.*You returned it instead of the merges",
    ),
    Mistake(
        checks.check_bpe_encode,
        bpe_encode_compatibility_decomposed,
        r"You normalised the text to NFKD \(unicodedata\.normalize\('NFKD', text\)\) before "
        r"taking its bytes",
    ),
    Mistake(
        checks.check_get_pair_counts,
        pairs_break_after_first,
        r"Only the first pair was counted, once: your loop ends after its first step",
    ),
    Mistake(
        checks.check_pad_batch,
        pad_rows_one_shared_array,
        r"Every row of yours is the same: each sequence was written into every row.*one list "
        r"repeated.*a colon where the row index belongs",
    ),
    Mistake(
        checks.check_pad_batch,
        pad_width_floor_of_one,
        r"^(?![\s\S]*default=1|[\s\S]*max_len \+ 1)[\s\S]*your width is at least one, max\(longest length, 1\)",
    ),
    Mistake(
        checks.check_merge_pair,
        merge_pair_two_at_a_time,
        r"You walked the list in fixed steps of two \(range\(0, len\(ids\), 2\)\), testing "
        r"only the pairs that start at an even position",
    ),
    Mistake(
        checks.check_merge_pair,
        merge_pair_as_sets,
        r"^(?![\s\S]*inverted)[\s\S]*You merged the pair in either order: the pair read "
        r"backwards",
    ),
    Mistake(
        checks.check_tokenize,
        tokenize_decimals_kept,
        r"^(?![\s\S]*admits)[\s\S]*Your token '3\.\d+' keeps a number whole, its decimal point",
    ),
    Mistake(
        checks.check_tokenize,
        tokenize_nt_split_off,
        r"^(?![\s\S]*admits)[\s\S]*split \"didn't\" as the Penn Treebank's contraction rules",
    ),
    Mistake(
        checks.check_build_vocab,
        vocab_marks_skipped,
        r"^(?![\s\S]*letters only)[\s\S]*leaves out every token that is not made of letters "
        r"and digits: the punctuation marks",
    ),
    Mistake(
        checks.check_build_vocab,
        vocab_letters_only,
        r"^(?![\s\S]*letters and digits)[\s\S]*leaves out every token that is not made of "
        r"letters only: the numbers and the punctuation marks are missing",
    ),
    Mistake(
        checks.check_bpe_decode,
        bpe_decode_unmerged_by_new_id,
        r"^(?![\s\S]*bytes\(\[a, b\]\))[\s\S]*left unexpanded: you undo the merges one by one"
        r"[\s\S]*walk them in the order they were learned[\s\S]*reverse learned order",
    ),
]

# ------------------------------------------------- round 27 (f27g1): classes of blind round 24


def bpe_decode_second_part_expanded_only(ids, merges):
    """Recurses into a merge's second part only: its first part is kept as an id."""
    parts = {new_id: pair for pair, new_id in merges.items()}

    def spell(token_id):
        if token_id not in parts:
            return [token_id]
        head, tail = parts[token_id]
        return [head, *spell(tail)]

    return bytes(b for i in ids for b in spell(i)).decode("utf-8", errors="replace")


def bpe_decode_table_with_byte_of_second(ids, merges):
    """table[a] joined with bytes([b]): b is taken for a byte even when it is a merge."""
    table = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        table[new_id] = table[a] + bytes([b])
    return b"".join(table[i] for i in ids).decode("utf-8", errors="replace")


def encode_unknown_to_crc_bucket(tokens, vocab):
    """Each unknown token to its own bucket past the vocabulary: len(vocab) + crc32 % 50."""
    return [vocab.get(t, len(vocab) + zlib.crc32(t.encode()) % 50) for t in tokens]


def encode_unknown_to_random_id(tokens, vocab):
    """Each unknown token to a random id past the vocabulary."""
    draw = random.Random()
    return [vocab[t] if t in vocab else len(vocab) + draw.randrange(10**6) for t in tokens]


def tokenize_lines_joined(text):
    """The lines joined with nothing ("".join(text.splitlines())): a line's last word and
    the next line's first become one token."""
    return re.findall(r"\w+|[^\w\s]", "".join(text.splitlines()).lower())


def pad_centred_more_on_the_left(sequences, pad_id):
    """Each row's padding split between both ends, the odd one before the sequence."""
    width = max((len(seq) for seq in sequences), default=0)
    rows = []
    for seq in sequences:
        extra = width - len(seq)
        rows.append([pad_id] * (extra - extra // 2) + list(seq) + [pad_id] * (extra // 2))
    return np.array(rows, dtype=np.int64).reshape(len(sequences), width)


def merge_pair_single_step_after_merge(ids, pair, new_id):
    """No else: after a merge the next id is appended untested (IndexError at the end)."""
    out, i = [], 0
    while i < len(ids):
        if ids[i : i + 2] == list(pair):
            out.append(new_id)
            i += 2
        out.append(ids[i])
        i += 1
    return out


def merge_pair_single_step_after_merge_guarded(ids, pair, new_id):
    """No else, but the untested step guarded by the end: exactly str.replace's result."""
    out, i = [], 0
    while i < len(ids):
        if ids[i : i + 2] == list(pair):
            out.append(new_id)
            i += 2
        if i < len(ids):
            out.append(ids[i])
            i += 1
    return out


def _train_most_common_per_count(text, num_merges, per_count):
    """Merges the per_count most common pairs of one count (Counter.most_common) before
    counting again."""
    ids, merges = list(text.encode("utf-8")), {}
    while len(merges) < num_merges:
        counts = Counter(zip(ids, ids[1:]))
        if not counts:
            break
        for pair, _ in counts.most_common(per_count)[: num_merges - len(merges)]:
            merges[pair] = 256 + len(merges)
            ids = ref.merge_pair(ids, pair, merges[pair])
    return merges


def train_bpe_two_most_common_per_count(text, num_merges):
    return _train_most_common_per_count(text, num_merges, 2)


def train_bpe_three_most_common_per_count(text, num_merges):
    return _train_most_common_per_count(text, num_merges, 3)


def train_bpe_counter_bumped_before_merge(text, num_merges):
    """The next id is bumped between recording a merge and merging with it."""
    ids, merges, next_id = list(text.encode("utf-8")), {}, 256
    for _ in range(num_merges):
        counts = ref.get_pair_counts(ids)
        if not counts:
            break
        pair = max(counts, key=counts.get)
        merges[pair] = next_id
        next_id += 1
        ids = ref.merge_pair(ids, pair, next_id)
    return merges


MISTAKES += [
    Mistake(
        checks.check_bpe_decode,
        bpe_decode_second_part_expanded_only,
        r"^(?![\s\S]*bytes\(\[a, b\]\))[\s\S]*A merge's first part was never expanded"
        r"[\s\S]*Only the second part was expanded",
    ),
    Mistake(
        checks.check_bpe_decode,
        bpe_decode_table_with_byte_of_second,
        r"^(?![\s\S]*bytes\(\[a, b\]\))[\s\S]*A merge's second part was never expanded",
    ),
    Mistake(
        checks.check_tokenize,
        tokenize_lines_joined,
        r"with every newline \('\\n'\) deleted[\s\S]*the last word before a newline, "
        r"'(snake_case|and)', and the first word after it, '(words|newlines)', were glued "
        r"across the newline",
    ),
    Mistake(
        checks.check_pad_batch,
        pad_centred_more_on_the_left,
        r"not from column 0[\s\S]*split between both ends, half before the sequence and half "
        r"after it \(the odd one on the left\)",
    ),
    Mistake(
        checks.check_merge_pair,
        merge_pair_single_step_after_merge,
        r"(After a merge, the next id was appended without being tested|reads the id after a "
        r"merge even where the merged pair ends the list)[\s\S]*else:",
    ),
    Mistake(
        checks.check_merge_pair,
        merge_pair_single_step_after_merge_guarded,
        r"str\.replace[\s\S]*after a merge, appends the next id without testing it",
    ),
    Mistake(
        checks.check_train_bpe,
        train_bpe_two_most_common_per_count,
        r"^(?![\s\S]*A tie was broken)[\s\S]*merges the 2 most frequent pairs of one count "
        r"before counting again",
    ),
    Mistake(
        checks.check_train_bpe,
        train_bpe_three_most_common_per_count,
        r"^(?![\s\S]*A tie was broken)[\s\S]*merges the 3 most frequent pairs of one count "
        r"before counting again",
    ),
    Mistake(
        checks.check_train_bpe,
        train_bpe_counter_bumped_before_merge,
        r"merged with the id 257 \+ i[\s\S]*The ids merged into the text are one higher than "
        r"the ids recorded",
    ),
    Mistake(
        checks.check_encode,
        encode_unknown_to_crc_bucket,
        r"(?i)unknown tokens[\s\S]*(lie outside the vocabulary|an id outside the vocabulary)",
    ),
    Mistake(
        checks.check_encode,
        encode_unknown_to_random_id,
        r"^(?![\s\S]*hash)[\s\S]*(lie outside the vocabulary[\s\S]*drawn at random|an id "
        r"outside the vocabulary)",
    ),
]


# ------------------------------------------------------------------- round 34 (f34g0106)
def pad_batch_rows_extended_in_place(sequences, pad_id):  # right values, the caller's rows padded
    max_len = max((len(seq) for seq in sequences), default=0)
    for seq in sequences:
        seq += [pad_id] * (max_len - len(seq))
    return np.array(sequences, dtype=np.int64).reshape(len(sequences), max_len)


def _train_bpe_stopping(text, num_merges, stop):
    ids = list(text.encode("utf-8"))
    merges = {}
    for step in range(num_merges):
        counts = ref.get_pair_counts(ids)
        if not counts or stop(ids, counts):
            break
        best = max(counts, key=counts.get)
        ids = ref.merge_pair(ids, best, 256 + step)
        merges[best] = 256 + step
    return merges


def train_bpe_stops_below_three(text, num_merges):  # a pair seen twice is not merged
    return _train_bpe_stopping(text, num_merges, lambda ids, counts: max(counts.values()) < 3)


def train_bpe_stops_on_one_kind_of_pair(text, num_merges):  # len(counts) < 2
    return _train_bpe_stopping(text, num_merges, lambda ids, counts: len(counts) < 2)


def bpe_decode_pairs_looked_up_once(ids, merges):  # one level: a merged part stays one byte
    parts = {new_id: pair for pair, new_id in merges.items()}
    flat = []
    for token in ids:
        flat.extend(parts.get(token, (token,)))
    return bytes(b % 256 for b in flat).decode("utf-8", errors="replace")


def bpe_decode_table_in_sorted_order(ids, merges):  # a part's entry not built yet: '?'
    table = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in sorted(merges.items()):
        if a in table and b in table:
            table[new_id] = table[a] + table[b]
    return b"".join(table.get(i, b"?") for i in ids).decode("utf-8", errors="replace")


MISTAKES += [
    # a failure that is no width mistake gets no hint about the width (the output is right)
    Mistake(
        checks.check_pad_batch,
        pad_batch_rows_extended_in_place,
        r"^(?![\s\S]*Your width is)(?![\s\S]*With the longest sequence first)[\s\S]*changed "
        r"its argument `sequences` in place",
    ),
    # a stop test confirmed on every probe is said first, before "a list cut short"'s causes
    Mistake(
        checks.check_train_bpe,
        train_bpe_stops_below_three,
        r"^(?![\s\S]*a return inside the loop)(?![\s\S]*map or zip)[\s\S]*whose stop test is "
        r"a threshold on the count that is too high",
    ),
    Mistake(
        checks.check_train_bpe,
        train_bpe_stops_on_one_kind_of_pair,
        r"^(?![\s\S]*a return inside the loop)(?![\s\S]*map or zip)[\s\S]*whose stop test is "
        r"a test on the number of distinct pairs",
    ),
    # the table replayed entry by entry: the first merged id wrong alone, its parts right
    Mistake(
        checks.check_bpe_decode,
        bpe_decode_pairs_looked_up_once,
        r"first merged id that decodes wrong on its own is 25[78][\s\S]*is itself a merged id"
        r"[\s\S]*looked up one level only",
    ),
    Mistake(
        checks.check_bpe_decode,
        bpe_decode_table_in_sorted_order,
        r"first merged id that decodes wrong on its own is 257[\s\S]*is itself a merged id"
        r"[\s\S]*built in another order than the merges were learned",
    ),
]


def build_vocab_counted_per_list_first_seen(token_lists, min_freq=1):  # set() and most_common
    counts = Counter(token for tokens in token_lists for token in set(tokens))
    vocab = {token: index for index, token in enumerate(ref.SPECIAL_TOKENS)}
    for token, count in counts.most_common():
        if count >= min_freq and token not in vocab:
            vocab[token] = len(vocab)
    return vocab


MISTAKES += [
    # a token missing where the loop would end on one input, reordered on another: no
    # loop that ends early explains both, so none is claimed
    Mistake(
        checks.check_build_vocab,
        build_vocab_counted_per_list_first_seen,
        r"^(?![\s\S]*The loop over the ranked tokens ended early)[\s\S]*build_vocab\(",
    ),
]


def train_bpe_merges_into_original_bytes(text, num_merges):  # merge_pair(original, ...)
    original = list(text.encode("utf-8"))
    ids, merges = original, {}
    for step in range(num_merges):
        counts = ref.get_pair_counts(ids)
        if not counts:
            break
        best = max(counts, key=counts.get)
        merges[best] = 256 + step
        ids = ref.merge_pair(original, best, 256 + step)
    return merges


MISTAKES += [
    Mistake(
        checks.check_train_bpe,
        train_bpe_merges_into_original_bytes,
        r"Each of your steps merged into the original bytes, not into the ids of the step "
        r"before",
    ),
]


def tokenize_loop_isalnum_unflushed(text):  # '_' a mark, and the last word never emitted
    tokens, word = [], ""
    for ch in text.lower():
        if ch.isalnum():
            word += ch
        else:
            if word:
                tokens.append(word)
                word = ""
            if not ch.isspace():
                tokens.append(ch)
    return tokens


MISTAKES += [
    # a split rule and the missing flush at once, composed as a pair
    Mistake(
        checks.check_tokenize,
        tokenize_loop_isalnum_unflushed,
        r"Two mistakes at once\. \(1\) '_' is a word character[\s\S]*\(2\) The last word is "
        r"missing where the text ends with a word",
    ),
]


# ------------------------------------------------------------- round 35: scripts, ids, dtypes
def tokenize_one_ideograph_per_token(text):  # a CJK range tried before \w+: one per token
    return re.findall(r"[\u3400-\u4dbf\u4e00-\u9fff]|\w+|[^\w\s]", text.lower())


def tokenize_by_unicode_categories(text):  # letters and numbers by category, any script: right
    tokens, word = [], ""
    for ch in text.lower():
        if unicodedata.category(ch)[0] in "LN" or ch == "_":
            word += ch
            continue
        tokens += [word] if word else []
        word = ""
        tokens += [] if ch.isspace() else [ch]
    return tokens + ([word] if word else [])


def pad_dtype_of_first_row(sequences, pad_id):  # np.asarray([]) is float64: so is the batch
    width = max((len(s) for s in sequences), default=0)
    first = np.asarray(sequences[0]) if sequences else np.zeros(0, dtype=np.int64)
    batch = np.full((len(sequences), width), pad_id, dtype=first.dtype)
    for row, seq in enumerate(sequences):
        batch[row, : len(seq)] = seq
    return batch


def pad_torch_cat_rows(sequences, pad_id):  # an empty row is float32: cat and stack promote
    width = max((len(s) for s in sequences), default=0)
    rows = [torch.cat([torch.tensor(s), torch.full((width - len(s),), pad_id)]) for s in sequences]
    return torch.stack(rows) if rows else torch.zeros((0, 0), dtype=torch.long)


def pad_torch_zeros_float(sequences, pad_id):  # float whatever the rows: not an empty row's
    width = max((len(s) for s in sequences), default=0)
    batch = torch.zeros((len(sequences), width)) + pad_id
    for row, seq in enumerate(sequences):
        batch[row, : len(seq)] = torch.tensor(seq)
    return batch


def pad_sequence_of_long_tensors(sequences, pad_id):  # torch.LongTensor([]) is int64: right
    if not sequences:
        return torch.zeros((0, 0), dtype=torch.long)
    rows = [torch.LongTensor(s) for s in sequences]
    return torch.nn.utils.rnn.pad_sequence(rows, batch_first=True, padding_value=pad_id)


def encode_unk_from_special_tokens(tokens, vocab):  # <unk>'s place in the course's specials
    unk = ref.SPECIAL_TOKENS.index("<unk>")
    return [vocab[t] if t in vocab else unk for t in tokens]


def encode_unk_second_value(tokens, vocab):  # the second id stored: <unk>'s only in id order
    unk = list(vocab.values())[1]
    return [vocab.get(t, unk) for t in tokens]


MISTAKES += [
    Mistake(
        checks.check_tokenize,
        tokenize_one_ideograph_per_token,
        # visible: named; hidden: '2024年' kept whole (the range is tried only where a
        # match starts), no rule fits every cut, so only the cut word is shown
        r"^(?!.*ASCII).*'(任务|世界)' came back as '.', '.': (every CJK ideograph \(.*\) "
        r"became a token of its own.*stay whole \('déjà'\)|your tokens cut this word)",
    ),
]
MISTAKES += [
    Mistake(
        checks.check_pad_batch,
        pad_dtype_of_first_row,
        r"pad_batch\(\[\[\], \[(11, 12|3)\], .*dtype is float64\. Your batch is float64 "
        r"exactly when its first sequence is empty.*np\.array\(\[\]\) is float64",
    ),
    # siblings: float from any empty row (promotion), and float whatever the rows
    Mistake(
        checks.check_pad_batch,
        pad_torch_cat_rows,
        r"dtype is torch\.float32\. Your batch is torch\.float32 whenever one of its "
        r"sequences is empty.*promotes",
    ),
    Mistake(
        checks.check_pad_batch,
        pad_torch_zeros_float,
        r"^(?!.*(sequence|sequences) is empty).*should hold integers.*dtype=torch\.long",
    ),
]
MISTAKES += [
    Mistake(
        checks.check_encode,
        encode_unk_from_special_tokens,
        r"special tokens numbered [^)]*<unk>=[03]\b.*Unknown tokens must become the id of <unk> in the "
        r"vocabulary given, here [03]; yours became 1, the id <unk> has in the vocabularies "
        r"build_vocab makes.*fixed id",
    ),
    # sibling: an id read off a position among the keys is not called a fixed id
    Mistake(
        checks.check_encode,
        encode_unk_second_value,
        r"^(?!.*fixed id).*not [23] \(the id of <(eos|pad)>\)",
    ),
]
CORRECT += [
    Correct(checks.check_tokenize, tokenize_by_unicode_categories),
    Correct(checks.check_pad_batch, pad_sequence_of_long_tensors),
]


# --------------------------- f38a: bytes that are not UTF-8 handled otherwise than 'replace'
def decode_surrogateescape(ids, merges):  # '\udcc3': the bytes round-trip, not the text
    table = {i: bytes([i]) for i in range(256)}
    for pair, new_id in merges.items():
        table[new_id] = table[pair[0]] + table[pair[1]]
    return bytes(b"".join(map(table.__getitem__, ids))).decode("utf-8", "surrogateescape")


def decode_latin1_fallback(ids, merges):  # strict, then Latin-1 on a UnicodeDecodeError
    table = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        table[new_id] = table[a] + table[b]
    data = b"".join(table[i] for i in ids)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


MISTAKES += [
    Mistake(
        checks.check_bpe_decode,
        decode_backslash_escapes,
        r"returned 'hi\\\\xc3'.*errors='backslashreplace'.*errors='replace'",
    ),
    Mistake(checks.check_bpe_decode, decode_surrogateescape, r"errors='surrogateescape'"),
    Mistake(
        checks.check_bpe_decode,
        decode_latin1_fallback,
        r"(?s)as Latin-1 or cp1252 \(a fallback codec(?!.*backslash)",
    ),
]


# ------------------------------------ f38a: pair counts kept across the steps (running totals)
def train_counter_updated_every_step(text, num_merges):  # Counter.update: never reset
    ids, merges, totals = list(text.encode("utf-8")), {}, Counter()
    for i in range(num_merges):
        if len(ids) < 2:
            break
        totals.update(ref.get_pair_counts(ids))
        pair = max(totals, key=totals.get)
        merges[pair] = 256 + i
        ids = ref.merge_pair(ids, pair, 256 + i)
    return merges


def train_running_totals_merged_dropped(text, num_merges):  # the merged pair deleted only
    ids, merges, totals = list(text.encode("utf-8")), {}, {}
    for i in range(num_merges):
        if len(ids) < 2:
            break
        for pair, n in ref.get_pair_counts(ids).items():
            totals[pair] = totals.get(pair, 0) + n
        pair = max(totals, key=totals.get)
        del totals[pair]
        merges[pair] = 256 + i
        ids = ref.merge_pair(ids, pair, 256 + i)
    return merges


MISTAKES += [
    Mistake(
        checks.check_train_bpe,
        train_counter_updated_every_step,
        r"pair counts kept across the steps.*never reset.*merged before, so it is chosen again",
    ),
    Mistake(
        checks.check_train_bpe,
        train_running_totals_merged_dropped,
        r"(?s)pair counts kept across the steps.*running total(?!.*chosen again)",
    ),
    # sibling: counted once before the loop keeps its own message
    Mistake(
        checks.check_train_bpe,
        train_counts_once,
        r"(?s)counted once, on the original bytes(?!.*kept across the steps)",
    ),
]


# ------------------------------------- f38a: a batch of no id, a dtype inferred from values
def pad_tensor_of_padded_lists(sequences, pad_id):  # torch.tensor([]) is float32, 1-D
    longest = max(map(len, sequences), default=0)
    return torch.tensor([s + [pad_id] * (longest - len(s)) for s in map(list, sequences)])


def pad_full_then_int_cast_of_empty(sequences, pad_id):  # sibling: float whatever it holds
    longest = max(map(len, sequences), default=0)
    out = np.full((len(sequences), longest), float(pad_id))
    for i, s in enumerate(sequences):
        out[i, : len(s)] = s
    return out


def pad_list_of_arrays_int_dtype(sequences, pad_id):  # correct: np.array(..., dtype) + reshape
    longest = max(map(len, sequences), default=0)
    rows = [list(s) + [pad_id] * (longest - len(s)) for s in sequences]
    return np.array(rows, dtype=np.int64).reshape(len(sequences), longest)


MISTAKES += [
    Mistake(
        checks.check_pad_batch,
        pad_default_dtype,
        r"float exactly when it holds no id at all.*inferred from the values.*1-D, shape \(0,\)",
    ),
    Mistake(
        checks.check_pad_batch,
        pad_tensor_of_padded_lists,
        r"float exactly when it holds no id at all.*torch\.tensor\(rows\) without a dtype",
    ),
    Mistake(checks.check_pad_batch, pad_full_then_int_cast_of_empty, r"(?s)^(?!.*no id at all)"),
]
CORRECT += [
    Correct(checks.check_pad_batch, pad_list_of_arrays_int_dtype),
]


test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


def test_several_agreeing_mistakes_are_all_named_never_one_of_them():
    """A wrong value that two known mistakes both give is reported with both, not with
    whichever the table lists first."""
    from transformer_course.checking import Checker

    with pytest.raises(CheckFailure) as failure, Checker("demo") as c:
        c.expect_equal([2], [1], "demo()", mistakes={"Cause A.": [2], "Cause B.": [2], "C.": [3]})
    message = failure.value.message
    assert "2 known mistakes" in message and "Cause A." in message and "Cause B." in message
    assert "C." not in message.replace("Cause", "")


def test_bpe_encode_names_a_mistake_only_if_it_agrees_with_every_input():
    """On the ranked case counting and latest-first give the same ids; the overlapping
    case before it tells them apart, so counting is not named for a latest-first encoder."""
    with pytest.raises(CheckFailure) as failure:
        checks.check_bpe_encode(encode_latest_merge_first)
    assert "latest-learned" in failure.value.message
    assert "how often" not in failure.value.message


def test_notes_for_accepted_alternatives(capsys):
    checks.check_train_bpe(train_like_sennrich)
    assert "subword-nmt" in capsys.readouterr().out
    # a batch of no id that is float (pad_default_dtype) is a mistake since fix round 38:
    # the contract's batch is an integer array, (0, 0) with no sequences (see MISTAKES)


def test_learner_exception_is_explained_with_their_traceback():
    def buggy(text):
        return text.lower().splitt()

    with pytest.raises(CheckFailure, match="raised AttributeError") as info:
        checks.check_tokenize(buggy)
    assert "splitt" in info.value.learner_traceback
    rendered = "\n".join(info.value._render_traceback_())
    assert "tokenize: not yet right" in rendered and "Where your code raised it" in rendered


def test_the_hard_coded_tokenizer_of_the_pipeline_test_passes_visibly_only():
    """tests/test_pipeline.py's "erin" hard-codes the answers for the visible inputs: the
    visible check passes, the hidden one catches it (keep the two in step)."""
    from test_pipeline import VISIBLE_TOKENIZE

    asked = []

    def tokenize(text):
        asked.append(text)
        return VISIBLE_TOKENIZE.get(text, text.lower().split())

    checks.check_tokenize(tokenize)
    assert list(dict.fromkeys(asked)) == list(VISIBLE_TOKENIZE)  # the visible texts, in order
    with pytest.raises(CheckFailure, match="split on whitespace only"):
        checks.check_tokenize(tokenize, hidden=True)


# ================================================================================ oracles
def test_tokenize_matches_the_spec_examples():
    # The examples written in the lesson text, not computed by the code.
    assert ref.tokenize("Hello, I love you!") == ["hello", ",", "i", "love", "you", "!"]
    assert ref.tokenize("didn't...") == ["didn", "'", "t", ".", ".", "."]
    assert ref.tokenize("Über_alles 42") == ["über_alles", "42"]
    assert ref.tokenize("Déjà vu:\t2 snake_case\nwords") == [
        "déjà",
        "vu",
        ":",
        "2",
        "snake_case",
        "words",
    ]


def test_build_vocab_matches_hand_worked_example():
    vocab = ref.build_vocab([["b", "a", "b"], ["a", "c"], ["d", "c", "c"]])
    # counts: c=3, a=2, b=2, d=1 -> c, then a before b (alphabetical tie), then d.
    expected = dict(zip([*SPECIALS, "c", "a", "b", "d"], range(8), strict=True))
    assert vocab == expected
    expected = dict(zip([*SPECIALS, "a", "b"], range(6), strict=True))
    assert ref.build_vocab([["b", "a", "b"], ["a", "c"]], min_freq=2) == expected
    # The Penn Treebank's text contains "<unk>": it keeps id 1.
    vocab = ref.build_vocab([["the", "<unk>", "cat"], ["the", "<unk>"]])
    assert vocab == dict(zip([*SPECIALS, "the", "cat"], range(6), strict=True))


def test_bpe_reproduces_the_published_worked_example():
    # Wikipedia's "Byte pair encoding": aaabdaaabac compresses to XdXac with X = "aaab"
    # after three merges (its tie order differs at step 2; the final tokens agree).
    merges = ref.train_bpe("aaabdaaabac", 3)
    ids = ref.bpe_encode("aaabdaaabac", merges)
    pieces = [ref.bpe_decode([i], merges) for i in ids]
    assert pieces == ["aaab", "d", "aaab", "a", "c"]
    assert list(merges) == [(97, 97), (256, 97), (257, 98)]
    # minbpe's test_wikipedia_example expects exactly these ids after 3 merges.
    assert ids == [258, 100, 258, 97, 99]


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


def test_pad_batch_agrees_with_torch_pad_sequence():
    sequences = [[5, 6, 7], [8], [9, 10], [11, 12, 13, 14]]
    expected = torch.nn.utils.rnn.pad_sequence(
        [torch.tensor(s) for s in sequences], batch_first=True, padding_value=3
    )
    np.testing.assert_array_equal(ref.pad_batch(sequences, 3), expected.numpy())


def test_the_merge_order_question_is_worked_correctly():
    """Question 2's right answer is what bpe_encode really returns."""
    merges = {(97, 97): 256, (256, 97): 257}
    answer = checks.QUIZ_MERGE_ORDER.answer
    assert ref.quiz_merge_order() == answer
    assert str(ref.bpe_encode("aaaaa", merges)) == checks.QUIZ_MERGE_ORDER.choices[answer]
    assert ref.bpe_decode([256], merges) == "aa" and ref.bpe_decode([257], merges) == "aaa"
    for letter, choice in checks.QUIZ_MERGE_ORDER.choices.items():
        assert letter == answer or choice != str(ref.bpe_encode("aaaaa", merges))
    assert ref.quiz_unk() == checks.QUIZ_UNK.answer


GPT2_SPLIT = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


@pytest.mark.parametrize(
    "text",
    [
        "Hello world, how are you?  Fine.\n\nThe end!!",
        "  leading spaces and trailing ones   ",
        "Déjà vu — encore?! Tabs\tand\nnewlines",
        " ".join(toy_corpus(20, seed=3)),
    ],
)
def test_pretokenize_agrees_with_gpt2_on_letters_spaces_and_punctuation(text):
    """Our simplified pattern is GPT-2's on text without digits, '_' and contractions."""
    assert ref.pretokenize(text) == regex.findall(GPT2_SPLIT, text)


@pytest.mark.parametrize("text", ["don't stop_here 42...", "a  b\t\tc\n", "", "   ", "x"])
def test_pretokenize_loses_nothing(text):
    assert "".join(ref.pretokenize(text)) == text


def test_pretokenized_training_is_train_bpe_inside_each_chunk():
    """Training on one chunk is plain train_bpe; merges never cross chunks."""
    assert ref.train_bpe_pretokenized("aaabdaaabac", 3) == ref.train_bpe("aaabdaaabac", 3)
    merges = ref.train_bpe_pretokenized(" ".join(toy_corpus(200, seed=0)), 80)
    for new_id in merges.values():
        assert " " not in ref.bpe_decode([new_id], merges)[1:]
    text = "the cat drank the milk . the dog drank the water ."
    ids = ref.bpe_encode_pretokenized(text, merges)
    assert ref.bpe_decode(ids, merges) == text


# ====================================================================== the lesson's text
def _master_cells():
    path = REPO / "solutions" / "01_tokenization" / "01_tokenization.py"
    return jupytext.read(path, fmt="py:percent").cells


def _markdown_with(phrase: str) -> str:
    found = [c.source for c in _master_cells() if c.cell_type == "markdown" and phrase in c.source]
    assert found, f"no markdown cell of the master contains {phrase!r}"
    return found[0]


def test_padding_figure_and_its_text_agree_on_the_colour_of_pad():
    batch = ref.pad_batch([[5, 6, 7], [8], [9, 10]], ref.PAD_ID)
    ax = padded_batch(batch, ref.PAD_ID)
    image = ax.images[0]
    rgba = image.cmap(image.norm(image.get_array()))
    pad_cell, token_cell = rgba[1, 2, :3], rgba[0, 0, :3]
    assert np.allclose(pad_cell, 1.0), "the <pad> cells are not white"
    assert not np.allclose(token_cell, 1.0), "the token cells are white too"
    assert PAD_COLOUR == "white" and "white cells are <pad>" in ax.get_title()
    assert ax.get_xlabel() and ax.get_ylabel()
    text = _markdown_with("Here is a padded batch")
    assert "Every white cell is `<pad>`" in text and "dark cell" not in text
    plt.close("all")


def test_demos_after_the_reference_import_use_the_reference():
    """The lesson promises that demos use `ref.*`: no demo cell after that promise calls
    the learner's own version of an exercise function."""
    exercise_names = {ex.name for ex in checks.EXERCISES}
    promised = False
    for cell in _master_cells():
        if cell.cell_type != "code":
            continue
        if "from transformer_course.reference import tokenization as ref" in cell.source:
            promised = True
            continue
        if not promised or "nbgrader" in cell.metadata:
            continue
        calls = {
            node.func.id
            for node in ast.walk(ast.parse(cell.source))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        }
        assert not calls & exercise_names, f"a demo calls the learner's {calls & exercise_names}"
    assert promised


def test_the_unk_numbers_in_the_text_are_what_the_demo_measures():
    tokens = [ref.tokenize(s) for s in long_tail_corpus(600, seed=0)]
    train, held_out = tokens[:400], tokens[400:]
    total = sum(map(len, held_out))
    measured = {}
    for min_freq in (1, 10):
        vocab = ref.build_vocab(train, min_freq=min_freq)
        encoded = [ref.encode(t, vocab) for t in held_out]
        unknown = sum(i == ref.UNK_ID for ids in encoded for i in ids)
        measured[min_freq] = (
            len(vocab),
            unknown / total,
            sum(ref.UNK_ID in ids for ids in encoded),
        )
    text = _markdown_with("Even keeping every word of the training split")
    size, rate, sentences = measured[1]
    assert f"`min_freq=1`, {size} entries), {100 * rate:.1f} %" in text
    assert f"{sentences} of the 200 held-out sentences" in text
    size, rate, sentences = measured[10]
    assert f"(to {size} entries), and then {100 * rate:.1f} %" in text
    assert f"in {sentences} of the 200 sentences" in text
    assert measured[1][1] > 0, "the demo must show a real cost even with min_freq=1"


def test_the_pretokenization_numbers_in_the_text_are_what_the_demo_measures():
    training_text = " ".join(toy_corpus(400, seed=0))
    new_text = " ".join(toy_corpus(100, seed=1))
    plain = ref.train_bpe(training_text, 120)
    presplit = ref.train_bpe_pretokenized(training_text, 120)

    def crossing(merges):
        return sum(" " in ref.bpe_decode([i], merges)[1:] for i in merges.values())

    plain_rate = len(ref.bpe_encode(new_text, plain)) / len(new_text.encode())
    presplit_rate = len(ref.bpe_encode_pretokenized(new_text, presplit)) / len(new_text.encode())
    text = _markdown_with("Learned on the whole text")
    assert f"{crossing(plain)} of the 120 tokens cross a word boundary" in text
    assert crossing(presplit) == 0 and "no token crosses one" in text
    assert f"({plain_rate:.3f} against {presplit_rate:.3f} tokens per byte)" in text


def test_the_compression_stated_in_the_text_is_what_the_demo_measures():
    corpus = toy_corpus(400, seed=0)
    merges = ref.train_bpe(" ".join(corpus), 120)
    sample = " ".join(corpus[:50])
    rate = len(ref.bpe_encode(sample, merges)) / len(sample.encode())
    assert "about 0.2 tokens per byte" in _markdown_with("After 120 merges")
    assert 0.18 < rate < 0.22, rate


def test_zipf_is_plotted_on_log_log_axes():
    zipf = next(c.source for c in _master_cells() if "count ∝ 1 / rank" in c.source)
    assert "loglog" in zipf and "set_yscale" not in zipf
    assert "**log–log axes**" in _markdown_with("roughly proportional to 1/r")


@pytest.mark.parametrize("lesson", ["00_welcome", "01_tokenization"])
def test_no_maintainer_notes_in_the_learners_code(lesson):
    master = (REPO / "solutions" / lesson / f"{lesson}.py").read_text()
    assert "fmt: skip" not in master and "noqa" not in master
