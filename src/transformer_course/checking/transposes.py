"""Which transpose of an operand reproduces the learner's error, exactly.

A learner's shape error ("The size of tensor a (3) must match the size of tensor b (4) at
non-singleton dimension 1") is often the right expression with one ``transpose`` over the
wrong pair of axes. :func:`pairs_reproducing` runs the expression with each pair of axes
in place of the right one, on tensors of the learner's shapes (zeros, cheap), and returns
the pairs whose error text is the learner's, word for word: a check names a pair only when
it is the only one, and says "or" between them when several fit.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations


def pairs_reproducing(
    error: str, run: Callable[[tuple[int, int]], object], ndim: int, right: tuple[int, int]
) -> list[tuple[int, int]]:
    """The pairs of axes (negative, the first the smaller) of an ``ndim``-axis operand
    that, given to ``run`` in place of ``right``, raise an error whose text is ``error``;
    ``right`` itself is never returned (it does not raise)."""
    found = []
    normal = tuple(sorted(axis - ndim if axis >= 0 else axis for axis in right))
    for pair in combinations(range(-ndim, 0), 2):
        if pair == normal:
            continue
        try:
            run(pair)
        except Exception as exc:  # the error a transpose over this pair raises
            if str(exc) == error:
                found.append(pair)
    return found
