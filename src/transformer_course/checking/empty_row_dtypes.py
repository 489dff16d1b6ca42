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

A third way needs no empty row among others: a batch that holds **no id at all** (no
sequences, or only empty ones), built by a call that infers its dtype from the values
(``np.array(rows)``, ``torch.tensor(rows)`` with no dtype), is float, and with no rows at
all ``np.array([])`` is 1-D, shape (0,), having no row to give a width.
:func:`no_id_dtype` probes a batch with ids, one of empty sequences and one of no
sequences, and states that way when the learner's batch is integer exactly when it holds
an id.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable
from typing import Any

import numpy as np

from .formatting import as_numpy

__all__ = ["EMPTY_ROW_PROBES", "NO_ID_PROBES", "empty_row_dtype", "no_id_dtype"]

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


#: (batch, what it holds): ids, empty sequences only, no sequences
NO_ID_PROBES = (([[5, 6], [7]], "ids"), ([[], []], "empty rows"), ([], "no rows"))


def _dtype_and_shape(make: Callable[[list[list[int]]], Any], rows: list[list[int]]):
    """(dtype, shape) of make(rows) (a copy given), None when the call fails."""
    with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
        got = as_numpy(make([list(r) for r in rows]))
        return got.dtype, tuple(got.shape)
    return None


def no_id_dtype(
    make: Callable[[list[list[int]]], Any],
    shown: Callable[[list[list[int]]], str] = lambda rows: f"pad_batch({rows}, 0)",
) -> str:
    """Why a batch made by ``make(rows)`` is float (and, with no rows, 1-D) when it holds no
    id, when probes show its dtype is inferred from the values: integer with an id, float
    with none; "" otherwise (a batch float whatever it holds, or a probe that fails)."""
    found = {}
    for rows, what in NO_ID_PROBES:
        got = _dtype_and_shape(make, rows)
        if got is None:
            return ""
        found[what] = got
    integer = {what: np.issubdtype(dtype, np.integer) for what, (dtype, _) in found.items()}
    if not integer["ids"] or integer["empty rows"] or integer["no rows"]:
        return ""
    ids, empty, none = (shown(rows) for rows, _ in NO_ID_PROBES)
    dtype, shape = found["no rows"]
    flat = (
        f" With no sequences it is also 1-D, shape {shape}, not (0, 0): a list of no rows "
        "has no row to give the width either."
        if len(shape) != 2
        else ""
    )
    return (
        f"Your batch is float exactly when it holds no id at all: {ids} holds integers, "
        f"{empty} is {found['empty rows'][0]} and {none} is {dtype}. That is what a dtype "
        "inferred from the values gives (np.array(rows) or torch.tensor(rows) without a "
        "dtype): with no value there is no integer to infer it from, np.array([]) is float64, "
        f"torch.tensor([]) float32.{flat} Say the dtype and the shape yourself: "
        "np.full((len(sequences), max_len), pad_id, dtype=np.int64), then copy each "
        "sequence into its row (or np.array(rows, dtype=np.int64).reshape(len(sequences), "
        "max_len))."
    )
