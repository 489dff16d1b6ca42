"""An exception raised on an empty input: the one case a loop-bound diagnosis gets wrong.

When a call whose sequence argument is empty (``[]``, ``()``, an array of size 0) raises an
IndexError, nothing the code could have indexed in that argument exists, so "your loop
read one position too far" is not a cause to state: whatever the loop bound, the code
read an element (``ids[0]``, ``ids[-1]``, ``out[-1]``) before making sure there was one.
The hint says that, and replaces the index-bound hints for that call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["empty_arguments", "empty_input_hint"]

_INDEX_TEXTS = ("index out of range", "is out of bounds for axis 0 with size 0", "out of bounds")


def _is_empty(value: Any) -> bool:
    """An empty list or tuple, or a numpy array of size 0 (tensors are left to the checks
    of the lessons that take them, whose empty blocks have hints of their own)."""
    if isinstance(value, np.ndarray):
        return value.size == 0
    if isinstance(value, (list, tuple)):
        return len(value) == 0
    return False


def empty_arguments(names: Sequence[str], values: Sequence[Any]) -> list[str]:
    """The names of the arguments that are empty sequences or arrays."""
    return [name for name, value in zip(names, values) if _is_empty(value)]


def empty_input_hint(exc: BaseException, names: Sequence[str], values: Sequence[Any]) -> str:
    """The hint for an IndexError raised by a call with an empty sequence argument ("" when
    the error is not an index error or no argument is empty)."""
    if not isinstance(exc, IndexError) or not any(text in str(exc) for text in _INDEX_TEXTS):
        return ""
    empty = empty_arguments(names, values)
    if not empty:
        return ""
    which = " and ".join(empty)
    return (
        f"This call's {which} {'is' if len(empty) == 1 else 'are'} empty, and your code read "
        "an element that does not exist then (such as the first one, x[0], or the last one, "
        "x[-1], or one of a result built from it): an empty input has no element to read, "
        "whatever the loop's bounds. Handle it before reading any element (an empty input "
        "gives an empty result), or build the result so that nothing is read when there is "
        "nothing to read."
    )
