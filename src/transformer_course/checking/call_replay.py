"""The calls a learner's loop makes of a stateful module, replayed against the protocol
they should follow, to name the first call that departs from it and how.

A loop that drives a module through a state carried from call to call (generation with a
KV cache: the prompt through fresh caches at ``start=0``, then one token per call through
the same caches at ``start`` = the positions they hold) goes wrong as one family, and
every member shows first in one call and one field of what that call ran with: the state
not passed (the prompt run without the caches), a new state where the old one belongs
(fresh caches every step), a state that was not empty when the loop began (caches that
outlive the call that made them), a state changed between two calls (emptied, rewound),
a position argument that is not the state's length (a counter advanced by the wrong
quantity), positions fed a second time (the prompt run twice). The logits only say that
step k is wrong; the trace says which operation made it so.

:class:`CallTrace` records every forward call of a module with a forward pre-hook and a
forward hook (the learner's code runs exactly as it would without them): the named
arguments' shapes and values, the state objects by identity, and how many positions each
held before and after the call. :func:`first_departure` walks the recorded calls against
the protocol and returns the first :class:`Departure`; :func:`repeated_positions` reads
which positions were fed more than once, and by which calls; :func:`advance_rules` fits
the update rule of a position counter (:mod:`.counters`) to the starts the calls got.
The words are the check's: this module says where and what, in numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from .counters import matching_updates


def _length(state: Any) -> int | None:
    """The positions a state object holds (its ``length``), or None when it has none."""
    value = getattr(state, "length", None)
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        value = int(value)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class CallTrace:
    """Records every forward call of ``module`` while it is attached: per call a dict with

    * ``shape``: the fed tensor's shape (``ids``, the first argument), ``ids``: a copy;
    * ``start``: the position argument as passed (0 when not passed);
    * ``caches``: the list of state objects passed (the objects themselves, kept alive
      while the trace is: an ``id()`` of a dropped one may be reused), or None;
    * ``held`` / ``after``: how many positions each state object held before and after
      the call (None where it cannot be read);
    * ``misplaced``: ``describe_arguments(state, start)`` when given (a note on arguments
      of the wrong kind), else "".

    ``outputs`` holds what each call returned (detached), in order. Remove the hooks with
    :meth:`remove`."""

    def __init__(
        self,
        module,
        names: tuple[str, str, str] = ("ids", "caches", "start"),
        describe_arguments: Callable[[Any, Any], str] | None = None,
        length: Callable[[Any], int | None] = _length,
    ):
        self.calls: list[dict] = []
        self.outputs: list = []
        self._names = names
        self._describe = describe_arguments
        self._length = length
        self._handle = module.register_forward_pre_hook(self._record, with_kwargs=True)
        self._output_handle = module.register_forward_hook(self._returned)

    def _lengths(self, states) -> list | None:
        if not isinstance(states, list | tuple):
            return None
        return [self._length(state) for state in states]

    def _returned(self, _module, _args, output):
        self.outputs.append(output.detach() if isinstance(output, torch.Tensor) else None)
        if self.calls:
            self.calls[-1]["after"] = self._lengths(self.calls[-1]["caches"])

    def _record(self, _module, args, kwargs):
        fed_name, state_name, start_name = self._names
        bound = dict(zip(self._names, args, strict=False)) | {
            k: v for k, v in kwargs.items() if k in self._names
        }
        states, fed = bound.get(state_name), bound.get(fed_name)
        start = bound.get(start_name, 0)
        self.calls.append(
            {
                "shape": tuple(fed.shape) if isinstance(fed, torch.Tensor) else None,
                "ids": fed.detach().clone() if isinstance(fed, torch.Tensor) else None,
                "start": start,
                # whatever was passed may be anything (a start in the state's place): the
                # hook records it and never raises
                "caches": list(states) if isinstance(states, list | tuple) else None,
                "held": self._lengths(states),
                "after": None,  # filled in when the call returns
                "misplaced": self._describe(states, start) if self._describe else "",
            }
        )

    def remove(self) -> None:
        self._handle.remove()
        self._output_handle.remove()


@dataclass(frozen=True)
class Departure:
    """The first call (0-based ``call``) that departs from the protocol, and how:

    * ``"stateless"``: it ran without the state (the state argument None);
    * ``"not empty"``: the loop's first call found its state holding ``held`` positions
      (``outlived``: the same objects an earlier loop's calls used, ``earlier`` what they
      held then);
    * ``"new state"``: a later call ran with objects none of the earlier calls used;
    * ``"reordered"``: a later call got the call before's state objects in another order
      (``later["order"]``: for each place, the place its object had);
    * ``"changed"``: a later call's state held ``held`` positions where the call before
      left ``expected`` (emptied when ``held`` is 0; changed outside the module);
    * ``"position"``: its position argument is ``start`` where the state held ``expected``.

    ``later``: for a stateless first call, what the first call with a state found in it
    (the prompt never stored: 0 at the first decode step)."""

    call: int
    kind: str
    start: Any = None
    held: int | None = None
    expected: int | None = None
    outlived: bool = False
    later: dict = field(default_factory=dict)


def _first_held(call: dict) -> int | None:
    held = call.get("held")
    return held[0] if held else None


def first_departure(calls: Sequence[dict], earlier: Sequence[Any] = ()) -> Departure | None:
    """The first recorded call (:class:`CallTrace`'s dicts) that departs from the protocol
    of a loop through one state: the first call with an empty state and start 0, every
    later call with the same state objects, holding what the call before left, and start =
    what they hold. ``earlier``: state objects of earlier loops (a state that outlives its
    loop is named as such). None when every call follows it, or the calls cannot be read."""
    seen: list = []
    for number, call in enumerate(calls):
        states = call.get("caches")
        if states is None:
            later = next(
                (
                    {"call": k, "held": _first_held(other)}
                    for k, other in enumerate(calls[number + 1 :], number + 1)
                    if other.get("caches") is not None
                ),
                {},
            )
            return Departure(number, "stateless", start=call.get("start"), later=later)
        held = _first_held(call)
        if number == 0 or not seen:
            if isinstance(held, int) and held > 0:
                outlived = any(state is old for state in states for old in earlier)
                return Departure(number, "not empty", held=held, expected=0, outlived=outlived)
        elif not any(state is old for state in states for old in seen):
            return Departure(number, "new state", held=held)
        else:
            before = calls[number - 1].get("caches") or []
            if (
                len(before) == len(states) > 1
                and all(any(state is old for old in before) for state in states)
                and any(state is not old for state, old in zip(states, before, strict=True))
            ):
                order = [
                    next(i for i, old in enumerate(before) if old is state) for state in states
                ]
                return Departure(number, "reordered", held=held, later={"order": order})
            left = calls[number - 1].get("after")
            left = left[0] if left else None
            same = calls[number - 1].get("caches") or []
            if (
                isinstance(left, int)
                and isinstance(held, int)
                and held != left
                and any(state is old for state in states for old in same)
            ):
                return Departure(number, "changed", held=held, expected=left)
        start = call.get("start")
        if isinstance(held, int) and (
            not isinstance(start, int) or isinstance(start, bool) or start != held
        ):
            return Departure(number, "position", start=start, held=held, expected=held)
        seen.extend(states)
    return None


def repeated_positions(calls: Sequence[dict]) -> dict[int, list[int]] | None:
    """position -> the calls (0-based) that fed it, for every position fed more than once:
    a call with a state feeds start .. start + its length, one without feeds 0 .. its
    length (as the module numbers them). None when a call's fed shape cannot be read."""
    counts: dict[int, list[int]] = {}
    for number, call in enumerate(calls):
        shape = call.get("shape")
        if not shape or len(shape) != 2:
            return None
        start = call.get("start")
        first = start if call.get("caches") is not None and isinstance(start, int) else 0
        for position in range(first, first + shape[1]):
            counts.setdefault(position, []).append(number)
    return {p: fed_by for p, fed_by in sorted(counts.items()) if len(fed_by) > 1}


def advance_rules(starts: Sequence[int], quantities: Sequence[Mapping[str, int]]) -> list[str]:
    """The quantities by which a position counter advanced from call to call: ``starts``
    the position each call got, ``quantities[i]`` name -> value of what might have been
    added between call i and call i + 1. The names of every quantity that, added at every
    call, gives every start (:func:`.counters.matching_updates`)."""
    if len(starts) < 2:
        return []
    rules = matching_updates(list(starts[1:]), list(quantities), initial=starts[0])
    return [name for kind, name in rules if kind == "add"]
