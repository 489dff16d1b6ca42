"""Arguments in another order: the family of a function whose parameters are declared
in another order than the exercise's (``def relative_shift(d_model, k)`` where it gives
``relative_shift(k, d_model)``), or whose body uses each argument where the other one
belongs. Both give a wrong result (or an error) on a positional call; two more calls tell
them apart from every other mistake:

* the same call with keywords (``f(k=3, d_model=4)``) is right only when the *signature*
  lists the parameters in another order (the body is right for the names it declares);
* the call with two positional arguments exchanged (``f(4, 3)``) is right both then and
  when the body uses each where the other belongs.

A cause is stated only when one of those calls gives the right result.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Any

__all__ = ["arguments_swapped"]


def _right(call: Callable[[], Any], is_right: Callable[[Any], bool]) -> bool:
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            return bool(is_right(call()))
    except Exception:  # a raising variant is not the right one
        return False


def _same(a: Any, b: Any) -> bool:
    """Whether two arguments are equal, for any kinds (a tensor and an int included)."""
    if a is b:
        return True
    if type(a) is not type(b) or not isinstance(a, int | float | str | bool):
        return False
    return a == b


def arguments_swapped(
    fn: Callable,
    args: Sequence[Any],
    names: Sequence[str],
    is_right: Callable[[Any], bool],
    name: str | None = None,
) -> str:
    """The diagnosis when ``fn(*args)`` was wrong (or raised) and the contract's
    parameters are ``names``: "" unless the keyword call, or the positional call with two
    arguments exchanged, ``is_right`` (and "" when the positional call itself
    ``is_right``: what failed is something ``is_right`` does not see)."""
    if _right(lambda: fn(*args), is_right):  # the failure was elsewhere: no evidence here
        return ""
    name = name or getattr(fn, "__name__", "your function")
    signature = f"{name}({', '.join(names)})"
    shown = ", ".join(f"{n}={a!r}" for n, a in zip(names, args))
    if _right(lambda: fn(**dict(zip(names, args))), is_right):
        return (
            f"Called with keywords, {name}({shown}), your function gives the right result; "
            f"called positionally, {name}({', '.join(map(repr, args))}), it does not. So "
            "your signature lists its parameters in another order than the exercise's: "
            f"write it as {signature}, in that order (callers pass them by position)."
        )
    for i, j in combinations(range(len(args)), 2):
        if _same(args[i], args[j]):
            continue
        swapped = list(args)
        swapped[i], swapped[j] = swapped[j], swapped[i]
        if _right(lambda swapped=swapped: fn(*swapped), is_right):
            return (
                f"With {names[i]} and {names[j]} exchanged, {name}"
                f"({', '.join(map(repr, swapped))}), your function gives the right result "
                f"for {shown}: it uses {names[i]} where {names[j]} belongs and {names[j]} "
                f"where {names[i]} belongs (the parameters' order in your signature, or the "
                f"names in its body). The exercise's order is {signature}."
            )
    return ""
