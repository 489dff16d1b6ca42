"""Lesson 01 reference: word-level tokenization, vocabularies and byte-pair encoding."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np

PAD, UNK, BOS, EOS = "<pad>", "<unk>", "<bos>", "<eos>"
SPECIAL_TOKENS = (PAD, UNK, BOS, EOS)  # ids 0, 1, 2, 3
PAD_ID, UNK_ID, BOS_ID, EOS_ID = range(4)

_TOKEN_PATTERN = re.compile(r"\w+|[^\w\s]")


def tokenize(text: str) -> list[str]:
    """Lower-case ``text`` and split it into words and single punctuation marks.

    A word is a maximal run of letters, digits or underscores (any script);
    every other non-space character is a token of its own.

    >>> tokenize("Hello, I love you!")
    ['hello', ',', 'i', 'love', 'you', '!']
    """
    return _TOKEN_PATTERN.findall(text.lower())


def build_vocab(token_lists: Iterable[Sequence[str]], min_freq: int = 1) -> dict[str, int]:
    """Map tokens to ids: the four special tokens first, then tokens seen at
    least ``min_freq`` times, most frequent first, ties in alphabetical order."""
    counts = Counter(token for tokens in token_lists for token in tokens)
    vocab = {token: index for index, token in enumerate(SPECIAL_TOKENS)}
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    for token, count in ranked:
        if count >= min_freq and token not in vocab:
            vocab[token] = len(vocab)
    return vocab


def encode(tokens: Sequence[str], vocab: dict[str, int]) -> list[int]:
    """Token strings to ids; a token missing from ``vocab`` becomes ``<unk>``."""
    unk = vocab[UNK]
    return [vocab.get(token, unk) for token in tokens]


def decode(ids: Iterable[int], vocab: dict[str, int]) -> list[str]:
    """Ids back to token strings (the inverse lookup of ``vocab``)."""
    id_to_token = {index: token for token, index in vocab.items()}
    return [id_to_token[int(index)] for index in ids]


def pad_batch(sequences: Sequence[Sequence[int]], pad_id: int) -> np.ndarray:
    """Right-pad id sequences with ``pad_id`` into one int64 array (batch, max_len)."""
    max_len = max((len(seq) for seq in sequences), default=0)
    batch = np.full((len(sequences), max_len), pad_id, dtype=np.int64)
    for row, seq in enumerate(sequences):
        batch[row, : len(seq)] = seq
    return batch


# ----------------------------------------------------------------- byte-pair encoding
def get_pair_counts(ids: Sequence[int]) -> dict[tuple[int, int], int]:
    """Count every adjacent pair (overlapping: ``[a, a, a]`` has the pair (a, a) twice).

    The dict is ordered by each pair's first occurrence.
    """
    counts: dict[tuple[int, int], int] = {}
    for pair in zip(ids, ids[1:], strict=False):
        counts[pair] = counts.get(pair, 0) + 1
    return counts


def merge_pair(ids: Sequence[int], pair: tuple[int, int], new_id: int) -> list[int]:
    """Replace each occurrence of ``pair``, scanning left to right without overlap."""
    merged: list[int] = []
    i = 0
    while i < len(ids):
        if i + 1 < len(ids) and ids[i] == pair[0] and ids[i + 1] == pair[1]:
            merged.append(new_id)
            i += 2
        else:
            merged.append(ids[i])
            i += 1
    return merged


def train_bpe(text: str, num_merges: int) -> dict[tuple[int, int], int]:
    """Learn up to ``num_merges`` merges over the UTF-8 bytes of ``text``.

    Each step merges the most frequent pair (ties: the pair that occurs first)
    into the next id, 256, 257, ... Stops early when no pair is left.
    Returns ``{pair: new_id}`` in the order the merges were learned.
    """
    ids = list(text.encode("utf-8"))
    merges: dict[tuple[int, int], int] = {}
    for step in range(num_merges):
        counts = get_pair_counts(ids)
        if not counts:
            break
        best = max(counts, key=counts.__getitem__)  # max keeps the first of equals
        new_id = 256 + step
        ids = merge_pair(ids, best, new_id)
        merges[best] = new_id
    return merges


def bpe_encode(text: str, merges: dict[tuple[int, int], int]) -> list[int]:
    """Encode ``text`` by applying the learned merges, earliest-learned first."""
    ids = list(text.encode("utf-8"))
    while len(ids) >= 2:
        candidates = [pair for pair in get_pair_counts(ids) if pair in merges]
        if not candidates:
            break
        pair = min(candidates, key=merges.__getitem__)
        ids = merge_pair(ids, pair, merges[pair])
    return ids


def bpe_decode(ids: Iterable[int], merges: dict[tuple[int, int], int]) -> str:
    """Expand merged ids back to bytes and decode them as UTF-8."""
    vocab = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():  # merges are in learned order
        vocab[new_id] = vocab[a] + vocab[b]
    return b"".join(vocab[int(i)] for i in ids).decode("utf-8", errors="replace")
