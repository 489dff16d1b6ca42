"""Rows of a lookup table that an output reads but that get no gradient from it.

A layer can give the right values and still keep some rows of its table out of training:
``nn.Embedding(..., padding_idx=k)`` makes row k's gradient zero (and starts it at zero),
and so does a row taken from a detached copy. Told apart from the output alone: a call
that reads every row once, then the gradient of the output's sum with respect to the
table; a row that was read but got an all-zero gradient is frozen. The gradient is asked
for with the call (:func:`~.graph.call_gradients`), so the sandboxed grader takes it where
the learner's module lives and reaches the notebook's verdict.
"""

from __future__ import annotations

import torch

from .graph import call_gradients

__all__ = ["frozen_rows_message", "frozen_rows_of", "padding_idx_signature"]


def frozen_rows_of(module, ids: torch.Tensor, key: str) -> list[int] | None:
    """The rows of ``module``'s parameter ``key`` (a table, (rows, width)) whose gradient
    from ``module(ids).sum()`` is all zero, where ``ids`` read every row; None when no
    gradient can be taken. Taken by :func:`~.graph.call_gradients`: where the grader stands
    in for the module, in its sandbox."""
    gradients = call_gradients(module, (ids,), None, "parameters")
    gradient = gradients.get(key) if isinstance(gradients, dict) else None
    if not isinstance(gradient, torch.Tensor) or gradient.dim() != 2:
        return None
    return _all_zero_rows(gradient)


def _all_zero_rows(gradient: torch.Tensor) -> list[int]:
    rows = gradient.detach().reshape(gradient.shape[0], -1)  # (rows, width)
    return [int(i) for i in torch.nonzero((rows == 0).all(dim=1)).reshape(-1)]


def padding_idx_signature(rows: list[int], initial_table: torch.Tensor | None) -> bool:
    """Whether one frozen row that also started as zeros in the freshly built table (the
    rest not all zero): what nn.Embedding(..., padding_idx=row) makes, and nothing else."""
    return (
        len(rows) == 1
        and initial_table is not None
        and bool((initial_table[rows[0]] == 0).all())
        and not bool((initial_table == 0).all())
    )


def frozen_rows_message(rows: list[int], initial_table: torch.Tensor | None, what: str) -> str:
    """What a learner reads about ``rows`` of an embedding table that got no gradient
    (``initial_table``: the table as the learner's constructor made it, (rows, width), to
    tell nn.Embedding's padding_idx, which also starts its row at zero)."""
    shown = ", ".join(str(i) for i in rows[:4]) + (", ..." if len(rows) > 4 else "")
    start_zero = padding_idx_signature(rows, initial_table)
    plural = "s" if len(rows) > 1 else ""
    found = (
        f"{what}: the output's values are right, but row{plural} {shown} of the table got no "
        f"gradient (all zeros) although the call read every row: training would never update "
        f"{'them' if plural else 'it'}."
    )
    if start_zero:
        cause = (
            f" Row {rows[0]} also started as zeros in your freshly built module: that is "
            f"nn.Embedding(vocab_size, d_model, padding_idx={rows[0]}), which keeps the row of "
            f"id {rows[0]} (<pad>, say) at zero and out of training. This layer is a plain "
            "learnable table: every row, padding included, is looked up and trained "
            "(masking the padding is attention's job), nn.Embedding(vocab_size, d_model)."
        )
    else:
        cause = (
            " A row is kept out of training by nn.Embedding's padding_idx (one row), or by "
            "taking its vectors from a detached copy (.detach(), .data, torch.no_grad()). "
            "Every row the ids read must get its gradient: nn.Embedding(vocab_size, d_model), "
            "self.embedding(ids) * sqrt(d_model)."
        )
    return found + cause
