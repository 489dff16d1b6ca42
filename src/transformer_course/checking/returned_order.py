"""A function that returns the right things in the wrong order: ``return weights, output``
where ``(output, weights)`` is asked for. Told by the shapes: the elements fit the expected
shapes only in another order, and in exactly one (with two expected shapes equal, nothing
can be told and nothing is said).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import torch

__all__ = ["reordered_return_note", "reordered_values_note"]


def reordered_return_note(
    values: Sequence, shapes: Sequence[tuple[int, ...]], names: Sequence[str]
) -> str:
    """The diagnosis when ``values`` (what the learner returned) have the ``shapes`` of
    ``names`` in another order, and only in that one; else ""."""
    if len(values) != len(shapes) or len(set(map(tuple, shapes))) != len(shapes):
        return ""
    got = [tuple(v.shape) if isinstance(v, torch.Tensor) else None for v in values]
    if got == [tuple(s) for s in shapes]:
        return ""
    fits = [
        order
        for order in itertools.permutations(range(len(shapes)))
        if all(got[i] == tuple(shapes[order[i]]) for i in range(len(shapes)))
    ]
    if len(fits) != 1:
        return ""
    yours = ", ".join(names[j] for j in fits[0])
    asked = ", ".join(names)
    return (
        f"Your function returns ({yours}): the right shapes, in the wrong order. Return "
        f"({asked}), in that order: callers unpack the result by position."
    )


def _equal(a, b) -> bool:
    return (
        isinstance(a, torch.Tensor)
        and isinstance(b, torch.Tensor)
        and a.shape == b.shape
        and bool(torch.equal(a.detach().cpu().to(b.dtype), b.detach().cpu()))
    )


def reordered_values_note(
    values: Sequence, expected: Sequence, names: Sequence[str], consequence: str = ""
) -> str:
    """The diagnosis when ``values`` (what the learner returned) equal ``expected`` exactly,
    entry for entry, in another order and only in that one, where the shapes alone cannot
    tell (``return targets, inputs`` for ``(inputs, targets)`` of one shape: round 34,
    told "your targets are shifted the wrong way" first); else "". ``consequence``, when
    given, says what a caller unpacking by position then gets (said for two values only)."""
    if len(values) != len(expected) or len(values) < 2:
        return ""
    if all(_equal(v, e) for v, e in zip(values, expected, strict=True)):
        return ""
    fits = [
        order
        for order in itertools.permutations(range(len(expected)))
        if list(order) != list(range(len(expected)))
        and all(_equal(values[i], expected[order[i]]) for i in range(len(expected)))
    ]
    if len(fits) != 1:
        return ""
    yours = ", ".join(names[j] for j in fits[0])
    asked = ", ".join(names)
    return (
        f"Your function returns ({yours}): each is exactly right, but they come in the wrong "
        f"order. "
        + (f"{consequence} " if consequence and len(values) == 2 else "")
        + f"Return ({asked}), in that order: callers unpack the result by position."
    )
