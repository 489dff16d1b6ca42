"""A reshape (``view``) where an axis move belongs (``transpose``, ``moveaxis``,
``swapaxes``): the shape comes out right, but a reshape regroups the entries in memory
order and never moves a number, so each new "row" mixes entries of several of the rows
the move would have made. Right only when the axes it meant to exchange have size 1.

:func:`reshaped_instead` gives, for an array and the two axes a move would exchange, the
arrays the common reshapes give in its place, by description; :func:`reshape_note` is the
sentence a check appends when one of them is the learner's operand.
"""

from __future__ import annotations

import numpy as np

__all__ = ["reshape_along", "reshape_note", "reshaped_instead"]


def reshaped_instead(x, axis: int, other: int = -1) -> dict[str, object]:
    """``x`` (numpy or torch) with ``axis`` and ``other`` exchanged by a reshape instead of
    a transpose: the shape of the transpose, the entries in ``x``'s memory order. {} when
    the reshape and the transpose agree (an exchanged axis of size 1)."""
    ndim = len(x.shape)
    a, b = axis % ndim, other % ndim
    if a == b:
        return {}
    shape = list(x.shape)
    shape[a], shape[b] = shape[b], shape[a]
    if x.shape[a] == 1 or x.shape[b] == 1:
        return {}
    reshaped = x.reshape(tuple(shape))
    return {f"a reshape (view) to the transposed shape {tuple(shape)}": reshaped}


def reshape_along(
    fn, x: np.ndarray, axis: int, what: str = "the function"
) -> dict[str, np.ndarray]:
    """What applying ``fn`` (a function along the last axis of a 2-D array, or along axis
    0 for the second form) gives when ``axis`` is brought into place by a reshape: the
    array regrouped as (-1, n) rows or (n, -1) columns, n = x.shape[axis], then reshaped
    back. {} when ``axis`` is the last one (then the first form is right)."""
    x = np.asarray(x)
    n = x.shape[axis]
    out: dict[str, np.ndarray] = {}
    if axis % x.ndim != x.ndim - 1:
        rows = x.reshape(-1, n)
        out[
            f"x.reshape(-1, {n}) (x.shape[axis] as the last axis), {what} along it, "
            f"then a reshape back"
        ] = np.asarray(fn(rows, -1)).reshape(x.shape)
    if axis % x.ndim != 0:
        columns = x.reshape(n, -1)
        out[
            f"x.reshape({n}, -1) (x.shape[axis] as the first axis), {what} along it, "
            f"then a reshape back"
        ] = np.asarray(fn(columns, 0)).reshape(x.shape)
    return out


def reshape_note(how: str, move: str) -> str:
    """The sentence for a learner's reshape found to stand where ``move`` belongs."""
    return (
        f"Your result is what {how} gives: a reshape keeps the entries in memory order and "
        f"only regroups them, so it does not move an axis; the shape comes out right, the "
        f"numbers do not. Move the axis with {move} (and move it back after, if needed)."
    )
