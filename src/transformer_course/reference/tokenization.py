"""Reference implementation: lesson 01 · Tokenization: from text to integer ids

Generated from the lesson master `solutions/01_tokenization/01_tokenization.py`
(its answer cells and its cells marked `export=true`) by `make notebooks`.
Edit the master, never this file.
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np


def tokenize(text: str) -> list[str]:
    """Lower-case `text` and split it into words and single punctuation marks.

    A word is a maximal run of letters, digits or underscores (any script);
    every other non-space character is a token of its own; whitespace is dropped.
    Returns a list of str (a tuple is accepted too).

    >>> tokenize("Hello, I love you!")
    ['hello', ',', 'i', 'love', 'you', '!']
    """
    return re.findall(r"\w+|[^\w\s]", text.lower())


SPECIAL_TOKENS = ("<pad>", "<unk>", "<bos>", "<eos>")
PAD_ID, UNK_ID, BOS_ID, EOS_ID = range(4)  # their ids


def build_vocab(token_lists: list[list[str]], min_freq: int = 1) -> dict[str, int]:
    """Map each token to an integer id.

    The special tokens come first: <pad>=0, <unk>=1, <bos>=2, <eos>=3. Then every
    token seen at least `min_freq` times in `token_lists`, by descending count,
    ties in alphabetical order. A token that is also a special token keeps its
    special id. Ids are 0, 1, 2, ... without gaps. Any dict is accepted (a
    Counter or an OrderedDict too); the order of its keys does not matter.
    """
    counts = Counter(token for tokens in token_lists for token in tokens)
    vocab = {token: index for index, token in enumerate(SPECIAL_TOKENS)}
    for token, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        if count >= min_freq and token not in vocab:
            vocab[token] = len(vocab)
    return vocab


def encode(tokens: list[str], vocab: dict[str, int]) -> list[int]:
    """Map tokens to ids, one id per token; a token missing from `vocab` becomes the
    id of "<unk>" in `vocab` (vocab["<unk>"], which need not be UNK_ID). Returns a list
    of ints (a tuple or a 1-D integer array is accepted)."""
    unk = vocab["<unk>"]
    return [vocab.get(token, unk) for token in tokens]


def decode(ids: list[int], vocab: dict[str, int]) -> list[str]:
    """Map ids (a list, or a 1-D integer array) back to their tokens, special tokens
    included. Returns a list of str (a tuple is accepted too)."""
    id_to_token = {index: token for token, index in vocab.items()}
    return [id_to_token[int(index)] for index in ids]


def quiz_unk() -> str:
    """Your answer to Question 1: "a", "b", "c" or "d"."""
    return "b"


def pad_batch(sequences: list[list[int]], pad_id: int) -> np.ndarray:
    """Right-pad id sequences with `pad_id` into one integer array of shape
    (batch, max_len), where max_len is the length of the longest sequence
    (0 if every sequence is empty; no sequences at all give shape (0, 0)).

    Any integer dtype is accepted (int64, int32, ...), and a torch tensor as well as
    a numpy array.
    """
    max_len = max((len(seq) for seq in sequences), default=0)
    batch = np.full((len(sequences), max_len), pad_id, dtype=np.int64)
    for row, seq in enumerate(sequences):
        batch[row, : len(seq)] = seq
    return batch


def get_pair_counts(ids: list[int]) -> dict[tuple[int, int], int]:
    """Count each adjacent pair (ids[i], ids[i+1]), overlapping pairs included.

    The returned dict (a Counter is fine) lists pairs in the order of their first
    occurrence: train_bpe breaks ties with it.
    >>> get_pair_counts([1, 1, 1, 2])
    {(1, 1): 2, (1, 2): 1}
    """
    counts: dict[tuple[int, int], int] = {}
    for pair in zip(ids, ids[1:]):
        counts[pair] = counts.get(pair, 0) + 1
    return counts


def merge_pair(ids: list[int], pair: tuple[int, int], new_id: int) -> list[int]:
    """Return a new list where each occurrence of `pair` is replaced by `new_id`,
    scanning left to right without overlap. The input list is not modified.
    (A tuple is accepted as the result too.)

    >>> merge_pair([1, 1, 1, 2], (1, 1), 9)
    [9, 1, 2]
    """
    merged = []
    i = 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            merged.append(new_id)
            i += 2
        else:
            merged.append(ids[i])
            i += 1
    return merged


def train_bpe(text: str, num_merges: int) -> dict[tuple[int, int], int]:
    """Learn up to `num_merges` merges over the UTF-8 bytes of `text`.

    Returns {pair: new_id} in the order the merges were learned; the i-th merge
    gets new_id 256 + i. Training stops early when fewer than two ids remain
    (stopping as soon as no pair occurs twice is accepted too).
    """
    ids = list(text.encode("utf-8"))
    merges = {}
    for step in range(num_merges):
        counts = get_pair_counts(ids)
        if not counts:
            break
        best = max(counts, key=counts.get)
        ids = merge_pair(ids, best, 256 + step)
        merges[best] = 256 + step
    return merges


def quiz_merge_order() -> str:
    """Your answer to Question 2: "a", "b", "c" or "d"."""
    return "b"


def bpe_encode(text: str, merges: dict[tuple[int, int], int]) -> list[int]:
    """Encode `text`: its UTF-8 bytes, then the learned merges, earliest-learned first.
    Returns a list of ints (a tuple or a 1-D integer array is accepted)."""
    ids = list(text.encode("utf-8"))
    while len(ids) >= 2:
        present = [pair for pair in get_pair_counts(ids) if pair in merges]
        if not present:
            break
        pair = min(present, key=merges.get)
        ids = merge_pair(ids, pair, merges[pair])
    return ids


def bpe_decode(ids: list[int], merges: dict[tuple[int, int], int]) -> str:
    """Turn BPE ids back into text (the inverse of bpe_encode)."""
    table = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        table[new_id] = table[a] + table[b]
    return b"".join(table[i] for i in ids).decode("utf-8", errors="replace")


PRETOKENIZE_PATTERN = r" ?\w+| ?[^\w\s]+|\s+(?!\S)|\s+"


def pretokenize(text: str) -> list[str]:
    """Split text into the chunks that merges may not cross: a word, or a run of
    punctuation, each with the space before it, and runs of whitespace.

    A simplified form of GPT-2's pattern; "".join(pretokenize(text)) == text.
    """
    return re.findall(PRETOKENIZE_PATTERN, text)


def train_bpe_pretokenized(text: str, num_merges: int) -> dict[tuple[int, int], int]:
    """train_bpe with merges kept inside the chunks of pretokenize(text).

    Pairs are counted inside each distinct chunk, times the number of times the
    chunk occurs; ties go to the pair that occurs first, new ids are 256 + i.
    """
    chunk_counts = Counter(pretokenize(text))
    chunks = [(list(chunk.encode("utf-8")), count) for chunk, count in chunk_counts.items()]
    merges = {}
    for step in range(num_merges):
        counts: dict[tuple[int, int], int] = {}
        for ids, count in chunks:
            for pair, n in get_pair_counts(ids).items():
                counts[pair] = counts.get(pair, 0) + n * count
        if not counts:
            break
        best = max(counts, key=counts.get)
        chunks = [(merge_pair(ids, best, 256 + step), count) for ids, count in chunks]
        merges[best] = 256 + step
    return merges


def bpe_encode_pretokenized(text: str, merges: dict[tuple[int, int], int]) -> list[int]:
    """bpe_encode applied to each chunk of pretokenize(text) separately."""
    return [token_id for chunk in pretokenize(text) for token_id in bpe_encode(chunk, merges)]
