"""A pairwise table filled as if it were symmetric.

A table of pairs (entry (i, j) compares row i of one input with row j of another) is
symmetric only when both inputs are the same (a self-similarity, a distance matrix of one
set of points). Code written for that case writes each value twice, at (i, j) and at its
mirror (j, i): with two different inputs the mirror holds the wrong pair, and with n != m
rows the mirror falls outside the (n, m) table (an IndexError). On a square probe the
learner's table tells how the mirror was written:

* ``added``: ``out[i, j] += v; out[j, i] += v`` over every pair: E + E.T (the diagonal
  twice its value);
* ``upper kept`` / ``lower kept``: ``out[i, j] = out[j, i] = v`` over every pair (the later
  write wins: the lower triangle's values mirrored over the upper one, or over a loop
  j <= i, the other way round), or over the pairs i <= j only;
* ``averaged``: (E + E.T) / 2, a table symmetrised.

Each is named only when the square probe's right table is far from symmetric, so the
readings cannot coincide with the right answer.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .formatting import as_numpy

__all__ = ["MIRRORED_FILLS", "mirrored_fill"]

#: what each fill did, in words (the value of the table at (i, j) for i != j)
MIRRORED_FILLS = {
    "added": "each pair's value added at (i, j) and at its mirror (j, i), so entry (i, j) is "
    "the value of (i, j) plus the value of (j, i), and the diagonal twice its value",
    "lower kept": "each pair's value written at (i, j) and at its mirror (j, i), the later "
    "write winning: the values below the diagonal copied over the ones above it",
    "upper kept": "each pair's value written at (i, j) and at its mirror (j, i), the later "
    "write winning: the values above the diagonal copied over the ones below it",
    "averaged": "the table symmetrised, (T + T.T) / 2: entry (i, j) the mean of the values of "
    "(i, j) and (j, i)",
}


def _models(right: np.ndarray) -> dict[str, np.ndarray]:
    return {
        "added": right + right.T,
        "lower kept": np.tril(right) + np.tril(right, -1).T,
        "upper kept": np.triu(right) + np.triu(right, 1).T,
        "averaged": (right + right.T) / 2,
    }


def mirrored_fill(got: Any, expected: Any, *, rtol: float = 1e-5, atol: float = 1e-6) -> str:
    """The key of :data:`MIRRORED_FILLS` whose fill turns the square table ``expected``
    into ``got``; "" when none does, when the table is not square (2 x 2 or more), or when
    ``expected`` is nearly symmetric (every reading would look right)."""
    try:
        values = as_numpy(got).astype(np.float64)
        right = as_numpy(expected).astype(np.float64)
    except Exception:  # not numbers
        return ""
    if right.ndim != 2 or right.shape[0] != right.shape[1] or right.shape[0] < 2:
        return ""
    if values.shape != right.shape or np.allclose(right, right.T, rtol=1e-3, atol=1e-3):
        return ""
    for name, model in _models(right).items():
        if np.allclose(values, model, rtol=rtol, atol=atol):
            return name
    return ""
