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

__all__ = ["SENTINELS", "WHERE_WITHOUT_OUT", "unwritten_entries"]

#: the warning numpy (2.x) issues for a ufunc given where= without out=
WHERE_WITHOUT_OUT = "'where' used without 'out'"

#: values no softmax, table or product of the checks' inputs gives
SENTINELS = (-7.0e7, 7.25e9)


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
