"""State kept outside the object that should own it, and sizes rounded up.

:func:`held_outside` finds where a tensor of an instance also lives outside it: a class
attribute, or a global of the module that defines the class or function (a buffer made
once and handed to every instance, a result memoised at module level). Every instance
then shares it, so a second one starts with the first one's contents and sizes. The test
is identity of memory (the same storage), which no correct answer can pass by chance.

:func:`rounded_up` names an axis whose size is the asked one rounded up to a multiple of a
round number (16 to 256) or to the next power of two: a size padded "for speed", as
nanoGPT's vocabulary of 50304, where the contract asks for the exact size.
"""

from __future__ import annotations

import inspect
from typing import Any

import torch

__all__ = ["held_outside", "rounded_up"]


def _tensors_in(value: Any, depth: int = 0):
    """The tensors in ``value`` and, two levels down, in its tuples, lists and dicts."""
    if isinstance(value, torch.Tensor):
        yield value
    elif depth < 2 and isinstance(value, tuple | list):
        for item in value[:16]:
            yield from _tensors_in(item, depth + 1)
    elif depth < 2 and isinstance(value, dict):
        for item in list(value.values())[:16]:
            yield from _tensors_in(item, depth + 1)


def _shares(a: torch.Tensor, b: torch.Tensor) -> bool:
    return (
        a.numel() > 0
        and b.numel() > 0
        and a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
    )


def held_outside(tensor: Any, owner: Any) -> str:
    """Where ``tensor`` (an instance's buffer or result) also lives outside the instance:
    "the class attribute Name.attr" or "the global name", from ``owner`` (the class, or
    the function) and its module's globals; "" when nowhere, or on anything unexpected."""
    try:
        if not isinstance(tensor, torch.Tensor):
            return ""
        places: list[tuple[str, Any]] = []
        if isinstance(owner, type):
            for klass in owner.__mro__[:-1]:
                if klass.__module__.startswith("torch"):
                    break
                places += [
                    (f"the class attribute {klass.__name__}.{k}", v) for k, v in vars(klass).items()
                ]
            function = vars(owner).get("__init__") or vars(owner).get("forward")
        else:
            function = owner
        namespace = getattr(inspect.unwrap(function), "__globals__", {}) if function else {}
        places += [(f"the global {k}", v) for k, v in namespace.items() if not k.startswith("__")]
        for place, value in places:
            if isinstance(value, type | torch.nn.Module) or inspect.ismodule(value):
                continue
            if any(_shares(tensor, other) for other in _tensors_in(value)):
                return place
    except Exception:  # a probe of the learner's objects: never in the way
        return ""
    return ""


def rounded_up(got: int, asked: int) -> str:
    """How ``got`` is ``asked`` rounded up ("a multiple of 64", "the next power of two"),
    the largest round step that fits; "" when it is not, when ``got`` is a multiple of
    ``asked`` (twice the size is more often two things in one axis than a rounding), and
    when it exceeds ``asked`` by fewer than 4 (an off-by-one or two is likelier)."""
    if not (isinstance(got, int) and isinstance(asked, int)) or got <= asked or asked < 1:
        return ""
    if got % asked == 0 or got - asked < 4:  # a few more: an off-by-one's family, not this
        return ""
    for step in (256, 128, 64, 32, 16):
        if got == -(-asked // step) * step:
            return f"a multiple of {step}"
    if got == 1 << (asked - 1).bit_length():
        return "the next power of two"
    return ""
