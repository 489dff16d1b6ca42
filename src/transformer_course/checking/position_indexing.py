"""Which position's vector each token received: the rows of a positional table that were
added to a (batch, len, features) input, read token by token, and the indexing they
follow.

A positional encoding added along the wrong axis or with the wrong index still adds rows
of the right table, only not row t to the token at position t: code that transposes the
embeddings to PyTorch's (len, batch, d_model) layout before a module that reads axis 1 as
the positions adds pe[b] to every token of sentence b (blind31b-tr-positions-added-along-
batch-axis, told only "other source vectors"); positions counted from 1 add pe[t + 1];
one row for the whole sequence adds pe[0]; the sequence flattened adds pe[b * len + t].
:func:`rows_added` finds, for each token, the table row that the difference between what
it received and its right embedding equals; :func:`indexing_reading` says which of the
usual index rules the rows follow, with what pe[...] each token got and where it belongs.
"""

from __future__ import annotations

import torch

__all__ = ["indexing_reading", "rows_added"]


def rows_added(term: torch.Tensor, table: torch.Tensor, atol: float = 1e-4) -> torch.Tensor | None:
    """For ``term`` (batch, len, features) and ``table`` (rows, features): the (batch, len)
    indices r with term[b, t] == table[r] (to ``atol``, the nearest row); None when a token
    got no row of the table (another term, or a sum of rows) or the table has rows that
    coincide."""
    term, table = term.detach().double(), table.detach().double()
    if term.dim() != 3 or table.dim() != 2 or term.shape[-1] != table.shape[-1]:
        return None
    if (
        table.shape[0] > 1
        and float(torch.cdist(table, table).fill_diagonal_(1.0).min()) < 10 * atol
    ):
        return None
    distance = torch.cdist(term.reshape(-1, term.shape[-1]), table)  # (batch * len, rows)
    best, index = distance.min(dim=-1)
    if not bool(torch.isfinite(best).all()) or float(best.max()) > atol * term.shape[-1] ** 0.5:
        return None
    return index.reshape(term.shape[:2])


def indexing_reading(rows: torch.Tensor) -> str:
    """Which index rule the (batch, len) ``rows`` follow, in words ("" when it is the right
    one, pe[t], or none of the usual): each token at position t of sentence b received
    pe[rows[b, t]]."""
    batch, length = rows.shape
    b = torch.arange(batch)[:, None].expand(batch, length)
    t = torch.arange(length)[None, :].expand(batch, length)
    if torch.equal(rows, t):
        return ""
    rules = [
        (
            b,
            batch > 1,
            "pe[b], one vector per sentence indexed by its place in the batch, added to "
            "every token of sentence b, instead of pe[t] to the token at position t: the "
            "positions were read along the batch axis (the input handed over in the "
            "(len, batch, d_model) layout of PyTorch's tutorial, x.transpose(0, 1), while "
            "the course's PositionalEncoding reads axis 1 of (batch, len, d_model) as the "
            "positions)",
        ),
        (
            t + 1,
            True,
            "pe[t + 1] at position t: the positions are counted from 1, not from 0",
        ),
        (
            torch.zeros_like(t),
            length > 1,
            "pe[0], the first position's vector, at every position: one position for the "
            "whole sequence",
        ),
        (
            length - 1 - t,
            length > 1,
            "pe[len - 1 - t] at position t: the positions run backwards",
        ),
        (
            b * length + t,
            batch > 1,
            "pe[b * len + t]: the positions counted through the whole batch flattened into "
            "one sequence, not restarting at 0 in each sentence",
        ),
    ]
    for expected, telling, words in rules:
        if telling and torch.equal(rows, expected):
            return words
    return ""
