"""Output memory never written: numpy's ufuncs given ``where=`` without ``out=``
(``np.divide(a, b, where=b > 0)``, ``np.exp(x, where=...)``, ``np.log(..., where=...)``)
allocate their result uninitialised and fill only the entries where the condition holds;
the others keep whatever the memory held (often a freed temporary: zeros, NaN, an earlier
result), so they change from call to call. The same holds for ``np.empty``.

No single result tells this from a deterministic mistake that gives the same numbers, so
numpy's own warning, when the call issued it, is the first witness; otherwise
the learner's function is called again just after a temporary of the result's size,
filled with a sentinel value, has been freed: numpy's allocator usually hands that block
to the next allocation of the same size, and entries that come back holding the sentinel
were never written.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

__all__ = [
    "SENTINELS",
    "WHERE_WITHOUT_OUT",
    "unwritten_entries",
    "unwritten_tensor_entries",
    "unwritten_tensor_note",
]

#: the warning numpy (2.x) issues for a ufunc given where= without out=
WHERE_WITHOUT_OUT = "'where' used without 'out'"

#: values no softmax, table or product of the checks' inputs gives
SENTINELS = (-7.0e7, 7.25e9)

#: how many sentinel blocks are freed before each try, in turn
BLOCKS = (8, 1, 16, 2)


def unwritten_entries(
    call: Callable[[], Any], shape: tuple, dtype, tries: int = 4
) -> np.ndarray | None:
    """The mask of the entries of ``call()``'s array result that held a sentinel on some
    try (left-over memory, never written); None when none did (or the call raised)."""
    found = np.zeros(shape, dtype=bool)
    for attempt in range(tries):
        sentinel = SENTINELS[attempt % len(SENTINELS)]
        try:
            block = np.full(shape, sentinel, dtype=dtype)
            del block
            with contextlib.redirect_stdout(io.StringIO()):
                result = np.asarray(call())
        except Exception:  # not this family's to explain
            return None
        if result.shape != tuple(shape):
            return None
        found |= result == np.asarray(sentinel, dtype=result.dtype)
    return found if found.any() else None


def unwritten_tensor_entries(
    call: Callable[[], Any], shape: tuple, dtype: torch.dtype, tries: int = 8
) -> tuple[torch.Tensor, str] | None:
    """The same for a torch result (``torch.empty``, ``empty_like``, a buffer whose views
    were rebound instead of written): before each try, blocks of the result's size filled
    with a sentinel are freed (one, several or many: the allocator hands them back by other
    paths), so it likely hands one back to the result. Returns (mask of the entries never
    written, the witness: "sentinel" when some held a sentinel, "varying" when some changed
    between tries on the same inputs), or None when neither was seen (or the call raised or
    returned another shape). For a bool result the blocks hold False, then True: no value
    of a bool can be a sentinel, so only "varying" is a witness. A deterministic function
    is assumed: call only for one that draws no random numbers."""
    found = torch.zeros(shape, dtype=torch.bool)
    results = []
    flags = dtype == torch.bool
    for attempt in range(tries):
        sentinel = bool(attempt % 2) if flags else SENTINELS[attempt % len(SENTINELS)]
        try:
            blocks = [torch.full(shape, sentinel, dtype=dtype) for _ in range(BLOCKS[attempt % 4])]
            del blocks
            with contextlib.redirect_stdout(io.StringIO()):
                result = call()
        except Exception:  # not this family's to explain
            return None
        if not isinstance(result, torch.Tensor) or tuple(result.shape) != tuple(shape):
            return None
        result = result.detach().clone()
        if not flags:
            found |= result == torch.tensor(sentinel, dtype=result.dtype)
        results.append(result)
    if bool(found.any()):
        return found, "sentinel"
    varying = torch.zeros(shape, dtype=torch.bool)
    for other in results[1:]:
        same = (other == results[0]) | (other.isnan() & results[0].isnan())
        varying |= ~same
    return (varying, "varying") if bool(varying.any()) else None


def unwritten_tensor_note(
    call: Callable[[], Any], shape: tuple, dtype: torch.dtype, example: str = ""
) -> str:
    """A sentence for a result whose entries were never written (see
    :func:`unwritten_tensor_entries`): how many, the witness, and the classic causes; ""
    when none was seen. ``example``: the exercise's own way to fill it, appended."""
    found = unwritten_tensor_entries(call, shape, dtype)
    if found is None:
        return ""
    mask, witness = found
    count, total = int(mask.sum()), mask.numel()
    seen = (
        "they came back holding a value we had left in freed memory just before the call"
        if witness == "sentinel"
        else "they change from call to call on the same inputs"
    )
    return (
        f"{'All' if count == total else f'{count} of the'} {total} entries of your result "
        f"were never written: {seen}, so they hold whatever the memory held. torch.empty / "
        "torch.empty_like allocate without initialising: a result built in such a buffer "
        "must be written into (out[...] = value, or view.copy_(value) for a view of it); "
        "assigning to the view's name (view = value) only rebinds the name and leaves the "
        "buffer unfilled." + (f" {example}" if example else "")
    )
