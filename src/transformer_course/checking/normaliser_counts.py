"""How often each term was counted in a normaliser, measured from a normalised output.

A softmax-like result is ``terms / denominator``, with the denominator the sum of the
row's terms. A learner's denominator that sums some terms twice, or leaves some out, or
adds a stray term, still gives rows proportional to the right ones; the constant of each
row is then ``right sum / learner's sum``. Over enough rows (more rows than terms, drawn
at random) the learner's sum is a linear combination of the row's terms whose weights are
the same for every row: :func:`term_counts` solves for them and keeps them only when they
are whole numbers that reproduce every row. The weights are then a fact about the
learner's output (column 0 counted twice, every column counted 3 times, the last column
never), not a guess at the line: each weight is observed on every row the probe drew.

:func:`segment_constants` answers the other half of the family: a result whose rows are
proportional to the right ones only piecewise, one constant per segment of columns (each
block of a blocked computation normalised with its own sum), and gives the sum of each
segment so that the message can show it.
"""

from __future__ import annotations

import torch

__all__ = ["segment_constants", "term_counts"]


def term_counts(
    got: torch.Tensor, terms: torch.Tensor, extra: torch.Tensor | None = None
) -> list[int] | None:
    """The whole-number weight of each column of ``terms`` (and of ``extra``, a last
    column, when given) in the denominator that turns ``terms`` into ``got``.

    ``got`` and ``terms``: (rows, n), ``terms`` positive; ``extra``: (rows,), a candidate
    stray term of each row (for example exp(0 - m), a sum started at 1 against a maximum of
    0). None when the rows of ``got`` are not proportional to those of ``terms``, when
    there are too few rows to tell the weights apart, or when no whole-number weights
    reproduce every row."""
    try:
        got = got.detach().double().reshape(-1, got.shape[-1])  # (rows, n)
        terms = terms.detach().double().reshape(-1, terms.shape[-1])  # (rows, n)
    except (RuntimeError, AttributeError, IndexError):
        return None
    if got.shape != terms.shape or not bool(torch.isfinite(got).all()):
        return None
    if not bool((got > 0).all()) or not bool((terms > 0).all()):
        return None
    ratio = terms / got  # (rows, n): the learner's denominator, once per column
    denominators = ratio[:, 0]  # (rows,)
    if not torch.allclose(ratio, denominators[:, None].expand_as(ratio), rtol=1e-6, atol=0):
        return None
    basis = terms if extra is None else torch.cat([terms, extra.double().reshape(-1, 1)], -1)
    if basis.shape[0] <= basis.shape[1] + 1:
        return None
    weights = torch.linalg.lstsq(basis, denominators[:, None]).solution[:, 0]  # (n [+ 1],)
    rounded = weights.round()
    if not torch.allclose(weights, rounded, atol=1e-3, rtol=0):
        return None
    if not torch.allclose(basis @ rounded, denominators, rtol=1e-6, atol=0):
        return None
    return [int(weight) for weight in rounded]


def segment_constants(
    got: torch.Tensor, right: torch.Tensor, bounds: list[tuple[int, int]]
) -> torch.Tensor | None:
    """When each segment ``[start, stop)`` of columns of every row of ``got`` is that
    row's ``right`` times one constant of its own: the sum of ``got`` over each segment of
    each row, (segments, rows) (a segment normalised alone sums to 1); else None.

    ``got`` and ``right``: (..., n)."""
    try:
        got = got.detach().double()
        right = right.detach().double()
    except AttributeError:
        return None
    if got.shape != right.shape or not bool(torch.isfinite(got).all()):
        return None
    if not bool((got > 0).all()) or not bool((right > 0).all()):
        return None
    sums = []
    for start, stop in bounds:
        ratio = got[..., start:stop] / right[..., start:stop]  # (..., stop - start)
        if not torch.allclose(ratio, ratio[..., :1].expand_as(ratio), rtol=1e-4, atol=0):
            return None
        sums.append(got[..., start:stop].sum(dim=-1).flatten())  # (rows,)
    return torch.stack(sums)  # (segments, rows)
