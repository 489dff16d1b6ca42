"""State a learner's *function* keeps between calls, found from the function itself: a
module-level dict, list or set it fills (a cache keyed on part of the arguments, a counter
kept across calls, a result built on the first call), a mutable default argument, an
attribute set on the function, or a functools cache. Its wrong answer is usually the right
answer to an earlier call, but a mistake inside one call can give that too; what decides is
a replay: the failing call made again with that state emptied. When the replay is right,
the state is the cause, whatever it holds; the state is put back as it was afterwards.

Only containers that *changed* while the check called the function are candidates (a
constant table such as a stop-word set is read, never written, and emptying it would
change the answer for another reason). Only the learner's own code is looked into: a
function defined in this package (the grader's stand-in) is left alone.
"""

from __future__ import annotations

import collections
import contextlib
import dis
import inspect
import io
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["StateWatch", "kept_state_sentence"]

#: the containers a function can keep between calls and that can be emptied and refilled
_CONTAINERS = (dict, list, set, collections.deque, bytearray)
#: a container larger than this is not copied (a big table is data, not a cache)
_MOST_ITEMS = 100_000
_PACKAGE = Path(__file__).resolve().parents[1]


def _learners(fn: Any) -> types.FunctionType | None:
    """The plain function behind ``fn`` when it is the learner's own code, else None."""
    target = inspect.unwrap(fn) if callable(fn) else None
    if not isinstance(target, types.FunctionType):
        return None
    filename = target.__code__.co_filename
    with contextlib.suppress(Exception):
        if Path(filename).resolve().is_relative_to(_PACKAGE):
            return None
    return target


def _global_names(code: types.CodeType) -> set[str]:
    """The global names ``code`` and the functions nested in it read or write."""
    names = set(code.co_names)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= _global_names(constant)
    return names


#: the methods that write to a dict, list, set or deque
_WRITERS = frozenset(
    {"append", "extend", "insert", "update", "setdefault", "add", "appendleft", "__setitem__"}
)


def _written_names(code: types.CodeType) -> set[str]:
    """The global names whose container ``code`` (or a function nested in it) writes to:
    ``NAME[key] = ...``, ``NAME.append(...)``, ``NAME.update(...)``, ..."""
    written: set[str] = set()
    instructions = list(dis.get_instructions(code))
    for index, instruction in enumerate(instructions):
        if instruction.opname != "LOAD_GLOBAL":
            continue
        after = instructions[index + 1 : index + 4]
        if after and after[0].opname in {"LOAD_ATTR", "LOAD_METHOD"}:
            if after[0].argval in _WRITERS:
                written.add(str(instruction.argval))
        elif any(later.opname == "STORE_SUBSCR" for later in after):
            written.add(str(instruction.argval))
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            written |= _written_names(constant)
    return written


def _rebound_names(code: types.CodeType) -> set[str]:
    """The global names ``code`` (or a function nested in it) assigns (``global x``)."""
    names = {
        str(instruction.argval)
        for instruction in dis.get_instructions(code)
        if instruction.opname == "STORE_GLOBAL"
    }
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= _rebound_names(constant)
    return names


class _Rebound:
    """A module-level name the function assigns: emptied by setting it to None."""

    def __init__(self, namespace: dict, name: str):
        self.namespace, self.name = namespace, name


def _holders(fn: Any) -> list[tuple[str, Any]]:
    """(description, container) for each mutable container ``fn`` can keep between calls."""
    target = _learners(fn)
    if target is None:
        return []
    holders: list[tuple[str, Any]] = []
    for name in sorted(_global_names(target.__code__)):
        value = target.__globals__.get(name)
        if isinstance(value, _CONTAINERS):
            holders.append((f"the module-level {type(value).__name__} `{name}`", value))
    with contextlib.suppress(Exception):
        for parameter in inspect.signature(target).parameters.values():
            if isinstance(parameter.default, _CONTAINERS):
                kind = type(parameter.default).__name__
                holders.append(
                    (
                        f"the default argument `{parameter.name}` (a {kind} made once)",
                        parameter.default,
                    )
                )
    for name, value in vars(target).items():
        if isinstance(value, _CONTAINERS) and not name.startswith("__"):
            holders.append((f"the attribute `{target.__name__}.{name}`", value))
    return [(what, value) for what, value in holders if len(value) <= _MOST_ITEMS]


def _contents(value: Any) -> Any:
    """A shallow copy of a container's contents (enough to tell a change and refill it)."""
    return dict(value) if isinstance(value, dict) else list(value)


def _refill(value: Any, contents: Any) -> None:
    value.clear()
    if isinstance(value, dict):
        value.update(contents)
    elif isinstance(value, set):
        value.update(contents)
    else:
        value.extend(contents)


def _changed(before: Any, now: Any) -> bool:
    try:
        if isinstance(before, dict):
            return before.keys() != now.keys() or any(before[k] is not now[k] for k in before)
        return len(before) != len(now) or any(a is not b for a, b in zip(before, now, strict=True))
    except Exception:
        return True


class StateWatch:
    """The containers of one learner function, as they were when the check began."""

    def __init__(self, fn: Any):
        self.fn = fn
        self.cached = callable(getattr(fn, "cache_clear", None)) and callable(
            getattr(fn, "cache_info", None)
        )
        self.before: list[tuple[str, Any, Any]] = []
        #: the module-level containers the function's code writes to (filled, perhaps,
        #: by calls made before the check)
        self.written: set[str] = set()
        #: the module-level names the function assigns (``global x; x = ...``)
        self.rebound: list[tuple[str, _Rebound]] = []
        #: the learner's own functions with a functools cache that this one calls
        self.cached_callees: list[tuple[str, Any]] = []
        #: the module-level random generators the function reads ("the module-level
        #: torch.Generator `_GENERATOR`"): their stream goes on from call to call
        self.generators: list[str] = []
        with contextlib.suppress(Exception):
            self.before = [(what, value, _contents(value)) for what, value in _holders(fn)]
            target = _learners(fn)
            if target is not None:
                self.written = {
                    f"the module-level {type(target.__globals__[name]).__name__} `{name}`"
                    for name in _written_names(target.__code__)
                    if name in target.__globals__
                }
                self.cached_callees = [
                    (name, value)
                    for name in sorted(_global_names(target.__code__))
                    if callable(getattr(value := target.__globals__.get(name), "cache_clear", None))
                    and callable(getattr(value, "cache_info", None))
                    and _learners(value) is not None
                ]
                self.generators = [
                    f"the module-level {_generator_kind(value)} `{name}`"
                    for name in sorted(_global_names(target.__code__))
                    if _generator_kind(value := target.__globals__.get(name))
                ]
                self.rebound = [
                    (
                        f"the module-level name `{name}` (assigned after `global {name}`)",
                        _Rebound(target.__globals__, name),
                    )
                    for name in sorted(_rebound_names(target.__code__))
                ]

    def kept_anywhere(self) -> bool:
        """Whether the function can keep anything between calls at all (read from its
        code: a container it writes to, a global it assigns, a functools cache)."""
        return bool(self.written or self.rebound or self.cached or self.cached_callees)

    def changed(self) -> list[tuple[str, Any]]:
        """The containers the calls so far wrote to (and a functools cache in use)."""
        found = [
            (what, value)
            for what, value, before in self.before
            if (what in self.written and len(value)) or _changed(before, _contents(value))
        ]
        found += [
            (what, rebound)
            for what, rebound in self.rebound
            if rebound.namespace.get(rebound.name) is not None
        ]
        if self.cached:
            with contextlib.suppress(Exception):
                if self.fn.cache_info().currsize:
                    found.append(("a functools cache (@lru_cache or @cache) on the function", None))
        for name, callee in self.cached_callees:
            with contextlib.suppress(Exception):
                if callee.cache_info().currsize:
                    found.append((f"the functools cache of `{name}` (@lru_cache or @cache)", None))
        return found

    def replayed_without(self, run: Callable[[], Any]) -> tuple[bool, Any]:
        """``run()`` with every changed container emptied (and the functools cache
        cleared), the containers refilled afterwards: (ran, result)."""
        changed = self.changed()
        if not changed:
            return False, None
        rebound = [value for _, value in changed if isinstance(value, _Rebound)]
        saved = [
            (value, _contents(value))
            for _, value in changed
            if value is not None and not isinstance(value, _Rebound)
        ]
        bound = [(name, name.namespace.get(name.name)) for name in rebound]
        try:
            for value, _ in saved:
                value.clear()
            for name in rebound:
                name.namespace[name.name] = None  # (the `x = None` such code starts from)
            if self.cached:
                self.fn.cache_clear()
            for _, callee in self.cached_callees:
                callee.cache_clear()
            with contextlib.redirect_stdout(io.StringIO()):
                return True, run()
        except Exception:
            return False, None
        finally:
            for value, contents in saved:
                with contextlib.suppress(Exception):
                    _refill(value, contents)
            for name, value in bound:
                name.namespace[name.name] = value


def _generator_kind(value: Any) -> str:
    """The kind of random generator ``value`` is ("torch.Generator", "random.Random",
    "numpy Generator"), "" when it is none."""
    import random

    import numpy as np
    import torch

    if isinstance(value, torch.Generator):
        return "torch.Generator"
    if isinstance(value, random.Random):
        return "random.Random"
    if isinstance(value, np.random.Generator | np.random.RandomState):
        return f"numpy {type(value).__name__}"
    return ""


def kept_generator_sentence(generators: list[str]) -> str:
    """The sentence on random generators kept at module level (``generators``, from
    :attr:`StateWatch.generators`), for a function whose wrong call a replay with its kept
    state emptied set right; "" when it reads none."""
    if not generators:
        return ""
    them = "it is" if len(generators) == 1 else "they are"
    return (
        f" Your function draws from {' and '.join(generators)}: a generator's stream goes on "
        "from one call to the next, so a later call with the same seed gives another result "
        f"unless {them} seeded again with `seed` on every call. Create the generator inside the function on every call, "
        "torch.Generator().manual_seed(seed) or random.Random(seed)."
    )


def kept_state_sentence(
    places: list[str],
    wrong_call: str,
    earlier: str = "",
    order: str = "",
    generators: list[str] | None = None,
) -> str:
    """The sentence naming state kept between calls as the cause of ``wrong_call``'s wrong
    result (``places``: where it is kept; ``earlier``: the call whose right result came
    back, when one did; ``order``: how the calls were made, when not as the check first
    made them)."""
    wrong_call, earlier = " ".join(wrong_call.split()), " ".join(earlier.split())
    returned = f" (it gave the right result of the earlier call {earlier})" if earlier else ""
    them = "that" if len(places) == 1 else "them"
    names = any("`global " in place for place in places)
    return (
        f"Your function keeps something from one call to the next: {' and '.join(places)}, "
        f"which its earlier calls {'set' if names else 'filled'}. {order}{wrong_call} went "
        f"wrong{returned}; made again with {them} "
        f"{'set back to None' if names else 'emptied'}, the same call gives the right "
        "result. Compute the result from the arguments of each call: create the dict or list "
        "inside the function, and if you cache, key the cache on every argument the result "
        f"depends on.{kept_generator_sentence(generators or [])}"
    )
