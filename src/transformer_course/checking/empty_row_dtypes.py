"""A batch of integer rows that comes back float because one of its rows is empty.

A list of no ids made into an array or a tensor has no integer to infer its dtype from:
``torch.tensor([])`` is float32, ``np.array([])`` float64. A batch built from such rows
then becomes float in one of two ways, told apart by where the empty row sits:

* it takes its dtype from its **first row** (``torch.nn.utils.rnn.pad_sequence`` builds
  its output with ``sequences[0].new_full``): float only when the first row is empty;
* it **promotes** over all its rows (``torch.cat``, ``np.concatenate``, ``np.vstack``, an
  array of row arrays): float when any row is empty.

:func:`empty_row_dtype` calls the learner's code on three small batches (no empty row,
an empty row in the middle, an empty row first) and states the way whose prediction
every probe agrees with; "" when none does (a batch that is float whatever its rows, or
a probe that fails), and the check's plain dtype message stands.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable
from typing import Any

import numpy as np

from .formatting import as_numpy

__all__ = ["EMPTY_ROW_PROBES", "empty_row_dtype"]

#: (batch, where its empty row sits): no empty row, one in the middle, one first
EMPTY_ROW_PROBES = (
    ([[5, 6], [7]], "none"),
    ([[5, 6], [], [7]], "middle"),
    ([[], [5, 6], [7]], "first"),
)


def _dtype(make: Callable[[list[list[int]]], Any], rows: list[list[int]]):
    """The dtype of make(rows) (a copy given), None when the call fails or has no dtype."""
    with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
        return as_numpy(make([list(r) for r in rows])).dtype
    return None


def empty_row_dtype(
    make: Callable[[list[list[int]]], Any],
    dtype: Any,
    shown: Callable[[list[list[int]]], str] = lambda rows: f"pad_batch({rows}, 0)",
) -> str:
    """Why a batch made by ``make(rows)`` came back with the float ``dtype``, when probes
    show it comes from an empty row: float only with an empty first row (the first row's
    dtype taken), or with any empty row (the rows' dtypes promoted); "" otherwise.
    ``shown(rows)`` writes the call a probe made, for the message."""
    found = {}
    for rows, where in EMPTY_ROW_PROBES:
        got = _dtype(make, rows)
        if got is None:
            return ""
        found[where] = np.issubdtype(got, np.integer)
    torch_float = "float32" in str(dtype)
    empty = (
        "torch.tensor([]) is float32 (np.array([]) is float64)"
        if torch_float
        else "np.array([]) is float64 (torch.tensor([]) is float32)"
    )
    fix = (
        "Give every row an integer dtype where you make it, torch.tensor(seq, "
        "dtype=torch.long) (np.asarray(seq, dtype=np.int64)), or start from the padding, "
        "np.full((len(sequences), max_len), pad_id, dtype=np.int64), and copy each "
        "sequence into its row."
    )
    none, middle, first = (shown(rows) for rows, _ in EMPTY_ROW_PROBES)
    probes = f"{none} and {middle} hold integers, {first} does not"
    if found == {"none": True, "middle": True, "first": False}:
        return (
            f"Your batch is {dtype} exactly when its first sequence is empty: {probes}. Its "
            "dtype is its first row's, and a row made from an empty sequence is float, having "
            f"no integer to infer a dtype from: {empty}. torch's pad_sequence takes its "
            "dtype from the first row (it builds the batch with sequences[0].new_full). " + fix
        )
    if found == {"none": True, "middle": False, "first": False}:
        return (
            f"Your batch is {dtype} whenever one of its sequences is empty: with no empty "
            f"sequence ({none}) it holds integers, with one ({middle}) it does not. A row "
            "made from an empty "
            f"sequence is float, having no integer to infer a dtype from ({empty}), and "
            "joining rows of different dtypes promotes them all to float (torch.cat, "
            "np.concatenate, np.vstack, np.array of row arrays). " + fix
        )
    return ""
