"""A function's keyword default that is not the contract's: the family of a signature
written with another default (``def softmax(x, axis=0)`` where the exercise gives
``axis=-1``, ``mask=True`` where it gives ``mask=None``, ``top_k=1`` where it gives
``top_k=None``). A call that leaves the argument out is wrong while the same call with the
contract's value passed explicitly is right: only the default can differ between the two.
:func:`replayed_default` establishes it for any function exercise from the calls a check
made (:class:`~transformer_course.checking.deviations.Recorded`), by calling the answer
again with each left-out argument passed. (Modules have their own, by construction:
:func:`transformer_course.checking.modules.expect_contract_defaults`.)
"""

from __future__ import annotations

import contextlib
import inspect
import io
from collections.abc import Callable
from typing import Any

__all__ = ["replayed_default", "wrong_default"]


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
    return _sentence(name, value)


def _sentence(name: str, value: Any) -> str:
    return (
        f"Called without `{name}`, your function gives a wrong result; called with "
        f"{name}={value!r} passed explicitly, it gives the right one. So the default of "
        f"`{name}` in your signature is not {value!r}: write the signature as the exercise "
        f"gives it, with {name}={value!r}."
    )


def _left_out(signature: inspect.Signature, call) -> list[tuple[str, Any]]:
    """The reference's keyword arguments with a default that ``call`` did not pass."""
    try:
        bound = signature.bind_partial(*call.args, **call.kwargs)
    except TypeError:
        return []
    return [
        (name, parameter.default)
        for name, parameter in signature.parameters.items()
        if parameter.default is not inspect.Parameter.empty
        and name not in bound.arguments
        and parameter.kind in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY)
    ]


def replayed_default(answer: Callable, reference: Callable, calls: list) -> str:
    """The diagnosis when the answer's results differ from the reference's on some of the
    recorded ``calls`` and passing one argument the calls left out, with the reference's
    default, makes every call's result the reference's: that default differs in the
    answer's signature (no other mistake is right once the argument is passed). "" when no
    single argument does it, or for a module exercise."""
    from transformer_course.checking.deviations.search import replay, same

    if isinstance(reference, type) or not calls:
        return ""
    try:
        signature = inspect.signature(reference)
    except (TypeError, ValueError):
        return ""
    if not any(_left_out(signature, call) for call in calls):
        return ""  # every call passed every argument: no default was used
    expected = [replay(reference, call) for call in calls]
    wrong = [not same(call.result, want) for call, want in zip(calls, expected, strict=True)]
    if not any(wrong):
        return ""
    # arguments that every wrong call left out, in the signature's order
    candidates = None
    for call, is_wrong in zip(calls, wrong, strict=True):
        if is_wrong:
            left_out = _left_out(signature, call)
            candidates = (
                left_out if candidates is None else [c for c in candidates if c in left_out]
            )
    if candidates:
        # the counterfactual is evidence only when the replay without the argument still
        # gives the answer's wrong results: a function whose result depends on state the
        # replay does not restore (a train_step that updates the model it is given) looks
        # right on a replay whatever the argument
        with contextlib.redirect_stdout(io.StringIO()):
            faithful = all(
                not same(replay(answer, call), want)
                for call, want, is_wrong in zip(calls, expected, wrong, strict=True)
                if is_wrong
            )
        if not faithful:
            return ""
    for name, value in candidates or []:
        with contextlib.redirect_stdout(io.StringIO()):  # the answer's prints, again
            right = all(
                same(replay(answer, call, _passed(signature, call, name, value)), want)
                for call, want in zip(calls, expected, strict=True)
            )
        if right:
            return _sentence(name, value)
    return ""


def _passed(signature: inspect.Signature, call, name: str, value: Any) -> dict:
    """``{name: value}`` when ``call`` left ``name`` out, else nothing to add."""
    return {name: value} if (name, value) in _left_out(signature, call) else {}
