"""A small word-embedding table to explore in lesson 02, computed, not downloaded.

The vectors are *count-based*: count which words appear near which in
:func:`transformer_course.data.toy_corpus`, reweight the counts with positive
pointwise mutual information (PPMI), and keep the strongest directions of that
matrix with a singular value decomposition (SVD). Words used in the same
contexts ("the ___ drank the milk") get similar rows, so similar words end up
close together, the same geometry a Transformer's learned embedding table
develops by gradient descent. Everything is numpy, deterministic and fast
(well under a second).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from transformer_course.data import toy_corpus
from transformer_course.reference.tokenization import build_vocab, tokenize

__all__ = ["cooccurrence_counts", "ppmi", "project_2d", "word_vectors"]


def cooccurrence_counts(
    token_lists: Sequence[Sequence[str]], vocab: dict[str, int], window: int = 2
) -> np.ndarray:
    """counts[i, j] = how often token j occurs within ``window`` positions of token i.

    Returns a symmetric float64 array (vocab_size, vocab_size).
    """
    counts = np.zeros((len(vocab), len(vocab)), dtype=np.float64)
    for tokens in token_lists:
        ids = [vocab[token] for token in tokens]
        for position, centre in enumerate(ids):
            lo, hi = max(0, position - window), min(len(ids), position + window + 1)
            for other in range(lo, hi):
                if other != position:
                    counts[centre, ids[other]] += 1
    return counts


def ppmi(counts: np.ndarray) -> np.ndarray:
    """Positive pointwise mutual information: max(0, log p(i, j) / (p(i) p(j))).

    It down-weights pairs that are frequent only because both words are
    frequent ("the", "."); rows and columns that are all zero stay zero.
    """
    total = counts.sum()
    p_row = counts.sum(axis=1, keepdims=True) / total  # (vocab_size, 1)
    p_col = counts.sum(axis=0, keepdims=True) / total  # (1, vocab_size)
    expected = p_row * p_col * total  # (vocab_size, vocab_size)
    ratio = np.divide(counts, expected, out=np.zeros_like(counts), where=expected > 0)
    return np.log(np.maximum(ratio, 1.0))  # log(1) = 0 wherever the pair is rare or absent


def _fix_signs(vectors: np.ndarray) -> np.ndarray:
    """Make each column's largest-magnitude entry positive (SVD signs are arbitrary)."""
    flip = np.sign(vectors[np.argmax(np.abs(vectors), axis=0), np.arange(vectors.shape[1])])
    return vectors * np.where(flip == 0, 1.0, flip)


def word_vectors(
    num_sentences: int = 1000, d_model: int = 8, window: int = 2, seed: int = 0
) -> tuple[dict[str, int], np.ndarray]:
    """A vocabulary and an embedding table (vocab_size, d_model) from the toy corpus.

    The vocabulary is lesson 01's (:func:`build_vocab`: special tokens first,
    ids 0-3). The special tokens never occur in the corpus, so their rows are
    all zeros: counting has nothing to say about them.
    """
    token_lists = [tokenize(sentence) for sentence in toy_corpus(num_sentences, seed=seed)]
    vocab = build_vocab(token_lists)
    weights = ppmi(cooccurrence_counts(token_lists, vocab, window))  # (vocab_size, vocab_size)
    u, s, _ = np.linalg.svd(weights)
    table = _fix_signs(u[:, :d_model] * s[:d_model])  # (vocab_size, d_model)
    return vocab, table


def project_2d(vectors: np.ndarray) -> np.ndarray:
    """Principal-component projection (n, d) -> (n, 2), for a scatter plot.

    Centre the rows, keep the two directions along which they vary most.
    Distances in the plot only approximate those in d dimensions.
    """
    vectors = np.asarray(vectors, dtype=np.float64)
    centred = vectors - vectors.mean(axis=0, keepdims=True)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    return _fix_signs(centred @ vt[:2].T)
