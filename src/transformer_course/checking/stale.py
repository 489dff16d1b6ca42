"""State kept between calls: a function that returns the result of an *earlier* call
(a cache keyed on part of the arguments, ``_cache[d_model]`` where the result depends
on k too; a module-level array built on the first call; a default argument that
remembers). Its wrong answer is the right answer to another call the check made before,
which a mistake inside one call (a constant where an argument belongs) can also give on
one input; two fresh calls in a row tell them apart: on arguments never used before the
first is right and the second comes back with the first one's result.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Sequence
from typing import Any

__all__ = [
    "MODULE_KEPT_STATE",
    "answers_on_repeat",
    "earlier_call",
    "kept_between_calls",
    "layer_calls_during",
    "module_keeps_state",
]


def earlier_call(
    got: Any,
    earlier: Sequence[tuple[Any, ...]],
    current: tuple[Any, ...],
    expected: Callable[..., Any],
    same: Callable[[Any, Any], bool],
) -> tuple[Any, ...] | None:
    """The arguments of the latest call in ``earlier`` (other than ``current``) whose
    expected result ``got`` is, or None."""
    for args in reversed(list(earlier)):
        if tuple(args) == tuple(current):
            continue
        try:
            if same(got, expected(*args)):
                return tuple(args)
        except Exception:  # a comparison that cannot be made is no match
            continue
    return None


def kept_between_calls(
    fn: Callable,
    first: tuple[Any, ...],
    second: tuple[Any, ...],
    expected: Callable[..., Any],
    same: Callable[[Any, Any], bool],
) -> bool:
    """True when ``fn(*first)`` is right and ``fn(*second)``, called just after it, returns
    ``first``'s expected result instead of its own (``first`` and ``second`` must be
    arguments the function has not seen, with different expected results)."""
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            a = fn(*first)
            if not same(a, expected(*first)):
                return False
            b = fn(*second)
        return same(b, expected(*first)) and not same(b, expected(*second))
    except Exception:  # a raising function is not this family's
        return False


def answers_on_repeat(fn: Callable, args: tuple[Any, ...], times: int = 3) -> list[Any] | None:
    """``fn(*args)`` called ``times`` times in a row with the very same arguments: the
    answers, or None when a call raised. A function of its arguments alone gives the same
    answer every time; answers that change come from state kept between calls (a counter
    on the function or in a global, a list that grows, a mask cached on a module), which
    no mistake inside one call can give."""
    answers = []
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            for _ in range(times):
                answers.append(fn(*args))
    except Exception:  # a raising function is not this family's
        return None
    return answers


def layer_calls_during(module: Any, call: Callable[[], Any]) -> int | None:
    """How many times any submodule of ``module`` ran its forward during ``call()`` (run
    once, without gradients, its printing swallowed); None when the call raised or no hook
    could be set. A function handed a model that returns a result while none of the
    model's layers ran took that result from somewhere else: state kept from an earlier
    call (a cache keyed by the input, a global, a default argument), which no mistake
    inside one call's computation can give."""
    import torch  # the toolkit's tensor library, only here

    count = [0]
    handles = []
    try:
        for name, child in module.named_modules():
            if name:
                handles.append(
                    child.register_forward_pre_hook(lambda *_: count.__setitem__(0, count[0] + 1))
                )
        if not handles:
            return None
        with torch.no_grad(), contextlib.redirect_stdout(io.StringIO()):
            call()
    except Exception:  # a raising call says nothing about kept state
        return None
    finally:
        for handle in handles:
            handle.remove()
    return count[0]


#: what a module that keeps state between calls is told (the second of two calls on
#: inputs of the same shape wrong, a fresh module right on it)
MODULE_KEPT_STATE = (
    "Called a second time, on another input of the same shape, your module returns "
    "another result than a freshly built one with the same weights, which gets it right: "
    "it keeps something from its first call (a hidden layer, an output, a mask or a "
    "statistic stored on self or in a dict and reused while the shape stays the same). "
    "forward must compute everything from the input of each call."
)


def module_keeps_state(
    build: Callable[[], Any],
    first: tuple[Any, ...],
    second: tuple[Any, ...],
    expected_second: Any,
    same: Callable[[Any, Any], bool],
) -> bool:
    """True when a module from ``build()`` called on ``first`` and then on ``second``
    (same shapes, other values) gives a wrong result on ``second`` while a fresh module
    from ``build()`` called on ``second`` alone gives ``expected_second``: state kept from
    the first call (a cache keyed by the shape). Only a probe: anything raised, or a
    fresh module that is wrong too (a mistake of another family), gives False."""
    import torch  # the toolkit's tensor library, only here

    try:
        with torch.no_grad(), contextlib.redirect_stdout(io.StringIO()):
            used = build()
            used(*first)
            again = used(*second)
            if same(again, expected_second):
                return False
            return bool(same(build()(*second), expected_second))
    except Exception:  # a module that cannot be rebuilt or called here: no evidence
        return False
