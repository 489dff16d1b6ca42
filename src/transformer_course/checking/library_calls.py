"""Which library functions the learner's code calls, and with which keyword arguments.

Several mistakes give one value (the pad positions averaged in: no mask at all, a mask
built from the wrong id, F.cross_entropy without ignore_index), and the fix a learner
needs depends on the line they wrote. When the value says WHAT is wrong, the call says
WHERE: calling the learner's code again with a library function wrapped (its module
attribute replaced for the duration of the call, e.g. ``torch.nn.functional.
cross_entropy``, which ``nn.CrossEntropyLoss`` calls too) records every call's keyword
arguments, and the message can then name the argument that is missing or wrong.

A name imported before the call (``from torch.nn.functional import cross_entropy``) is
not seen: nothing is recorded, and the check keeps its message that says only what is
wrong.
"""

from __future__ import annotations

import contextlib
import functools
import io
from collections.abc import Callable
from types import ModuleType
from typing import Any

__all__ = ["keywords_of_calls"]


def keywords_of_calls(
    module: ModuleType, name: str, call: Callable[[], Any]
) -> list[dict[str, Any]] | None:
    """The keyword arguments of each call to ``module.name`` made during ``call()`` (the
    positional ones after the first two under ``"args"``), or None where ``call()``
    raised (what it did is then not the code that gave the value)."""
    original = getattr(module, name)
    seen: list[dict[str, Any]] = []
    depth = [0]

    @functools.wraps(original)
    def recording(*args, **kwargs):
        # only the learner's call: under a __torch_function__ mode (the checker's watch)
        # torch calls the function again through the module's name, every keyword filled
        if depth[0] == 0:
            seen.append({**kwargs, "args": args[2:]})
        depth[0] += 1
        try:
            return original(*args, **kwargs)
        finally:
            depth[0] -= 1

    setattr(module, name, recording)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            call()
    except Exception:  # the learner's code: the recorded calls say nothing then
        return None
    finally:
        setattr(module, name, original)
    return seen
