"""A number that came back wrapped in a one-item container: ``return value,`` (a
trailing comma makes a one-element tuple), ``return [value]``, or a 1-element array.

Used by checks that expect a plain number: the note names the wrapping from the value
alone, so it holds for any exercise that returns a number.
"""

from __future__ import annotations

import numbers

__all__ = ["wrapped_number_note"]


def _is_number(item) -> bool:
    return isinstance(item, numbers.Real) and not isinstance(item, bool)


def wrapped_number_note(value) -> str:
    """A sentence naming how a single number got wrapped, or "" when ``value`` is not a
    one-item tuple or list holding a number."""
    if isinstance(value, tuple) and len(value) == 1 and _is_number(value[0]):
        return (
            f" That is a tuple of one item, ({value[0]!r},): a trailing comma at the end of "
            "the return line (`return x,` or `x = ...,`) packs the number into a "
            "one-element tuple. Remove the comma and return the number itself."
        )
    if isinstance(value, list) and len(value) == 1 and _is_number(value[0]):
        return (
            f" That is a list of one item, [{value[0]!r}]: the number was wrapped in "
            "brackets (or appended to a list). Return the number itself."
        )
    return ""
