"""A function's keyword default that is not the contract's: the family of a signature
written with another default (``def softmax(x, axis=0)`` where the exercise gives
``axis=-1``, ``mask=True`` where it gives ``mask=None``). A call that leaves the argument
out is wrong while the same call with the contract's value passed explicitly is right:
only the default can differ between the two. (Modules have their own, by construction:
:func:`transformer_course.checking.modules.expect_contract_defaults`.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["wrong_default"]


def wrong_default(
    call_explicit: Callable[[], Any], is_right: Callable[[Any], bool], name: str, value: Any
) -> str:
    """The diagnosis when the call without ``name`` was wrong: ``call_explicit()`` makes the
    same call with ``name=value`` passed; if that result ``is_right``, the default differs
    from ``value``. "" otherwise (or when the explicit call raises)."""
    try:
        result = call_explicit()
    except Exception:  # CheckFailure included: the call without it has its own message
        return ""
    if not is_right(result):
        return ""
    return (
        f"Called without `{name}`, your function gives a wrong result; called with "
        f"{name}={value!r} passed explicitly, it gives the right one. So the default of "
        f"`{name}` in your signature is not {value!r}: write the signature as the exercise "
        f"gives it, with {name}={value!r}."
    )
