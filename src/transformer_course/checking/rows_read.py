"""Which row of a table a lookup read for each id: a result (..., d) whose every vector is
one row of the table (..., an embedding table; the identity for one-hot vectors) is read as
the row numbers it holds, and those are compared with the ids. The rule that maps every id
to the row read names the mistake: the ids sorted (or reversed) before the lookup, ids
clipped to a bound, taken modulo a size, shifted by one, one row for every id. A mapping no
rule gives is only shown, never explained.
"""

from __future__ import annotations

import numpy as np

__all__ = ["rows_read", "rows_read_sentence"]


def rows_read(got: np.ndarray, table: np.ndarray) -> np.ndarray | None:
    """The row of ``table`` (vocab, d) each vector of ``got`` (..., d) equals, as an int
    array (...); None when a vector equals no row, or several (duplicate rows)."""
    try:
        got = np.asarray(got, dtype=np.float64)
        table = np.asarray(table, dtype=np.float64)
        if got.ndim < 1 or table.ndim != 2 or got.shape[-1] != table.shape[1]:
            return None
        flat = got.reshape(-1, table.shape[1])  # (n, d)
        scale = max(float(np.abs(table).max()), 1.0) if table.size else 1.0
        close = np.all(np.abs(flat[:, None, :] - table[None, :, :]) <= 1e-6 * scale, axis=-1)
        if not bool(np.all(close.sum(axis=1) == 1)):
            return None
        return close.argmax(axis=1).reshape(got.shape[:-1])
    except Exception:
        return None


def _rule(ids: np.ndarray, rows: np.ndarray, vocab: int) -> str:
    """The rule that gives ``rows`` from ``ids`` (same shape, some differing), or ""."""
    flat_ids, flat_rows = ids.reshape(-1), rows.reshape(-1)
    if flat_ids.size > 1 and np.array_equal(flat_rows, np.sort(flat_ids)):
        return (
            "the vectors are the right ones for the ids sorted (np.sort, sorted, np.unique): the "
            "ids were reordered before the lookup, so position i no longer gets the vector of "
            "ids[i]. Look the ids up in their own order, table[ids]"
        )
    if flat_ids.size > 1 and np.array_equal(flat_rows, flat_ids[::-1]):
        return (
            "the vectors are the right ones in reverse order (the ids reversed, or the rows "
            "prepended one by one). Look the ids up in their own order, table[ids]"
        )
    if rows.ndim == ids.ndim and ids.ndim >= 1:
        for axis in range(ids.ndim):
            if np.array_equal(rows, np.sort(ids, axis=axis)) and not np.array_equal(rows, ids):
                return (
                    f"the vectors are the right ones for the ids sorted along axis {axis}: the "
                    "ids were reordered before the lookup. Look them up in their own order"
                )
    if len(set(flat_rows.tolist())) == 1 and len(set(flat_ids.tolist())) > 1:
        return (
            f"every position holds row {int(flat_rows[0])}, whatever its id: one row for every "
            "id (an index written in, or a loop variable left over). Index with the ids "
            "themselves, table[ids]"
        )
    for offset in (-1, 1):
        if np.array_equal(rows, ids + offset):
            return (
                f"each position holds row ids[i] {'-' if offset < 0 else '+'} 1: the ids were "
                "shifted by one. Ids count from 0 and id i reads row i"
            )
    wrong = rows != ids
    for bound in range(vocab):
        if np.array_equal(rows, np.minimum(ids, bound)) and (ids[wrong] > bound).all():
            return (
                f"every id above {bound} read row {bound} (the ids clipped, np.clip or min, to "
                f"{bound}), though there are {vocab} rows: {sorted(set(ids[wrong].tolist()))} "
                "are ids of the table too. Look every id up as it is, table[ids], with no bound"
            )
    for size in range(1, vocab):
        if np.array_equal(rows, ids % size):
            return (
                f"each id read row id % {size} (the ids wrapped at {size}), though the table "
                f"has {vocab} rows. Look every id up as it is, table[ids]"
            )
    return ""


def rows_read_sentence(
    got, ids, table, lead: str = "Each vector of yours is a row of the table"
) -> str:
    """The sentence naming how the lookup in ``got`` chose its rows, when each vector of
    ``got`` is one row of ``table`` and a rule maps the ids to them; the rows read, shown
    without a cause, when no rule does; "" when ``got`` is not made of table rows."""
    try:
        ids = np.asarray(ids)
        rows = rows_read(got, table)
        if rows is None or rows.shape != ids.shape or np.array_equal(rows, ids):
            return ""
        vocab = int(np.asarray(table).shape[0])
        rule = _rule(ids.astype(np.int64), rows.astype(np.int64), vocab)
        if rule:
            return f"{lead}, but {rule}."
        wrong = np.argwhere(rows != ids)[:3]
        pairs = ", ".join(
            f"id {int(ids[tuple(i)])} at {tuple(int(x) for x in i)} got row {int(rows[tuple(i)])}"
            for i in wrong
        )
        return f"{lead}, but not the one of its id: {pairs}."
    except Exception:
        return ""
