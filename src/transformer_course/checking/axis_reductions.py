"""A result that lacks one axis of the expected shape, explained from its values: when it
equals the right result reduced over that axis (its mean, sum, maximum or minimum) or
taken at one end of it (the first or the last entry), the learner pooled or indexed the
axis away (blind20b-enc-mean-pooled-output: an encoder that returns x.mean(dim=1), one
vector per sentence, where every position's vector belongs). Decided from the values only:
every reading that gives the learner's numbers is named, none that does not."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch

__all__ = ["dropped_axis_note"]

#: what each reading computes from the right result along one axis, and how it is written
_READINGS: tuple[tuple[str, str, Callable[[torch.Tensor, int], torch.Tensor]], ...] = (
    ("averaged over", "mean(dim={axis})", lambda t, axis: t.mean(dim=axis)),
    ("summed over", "sum(dim={axis})", lambda t, axis: t.sum(dim=axis)),
    ("the maximum over", "amax(dim={axis})", lambda t, axis: t.amax(dim=axis)),
    ("the minimum over", "amin(dim={axis})", lambda t, axis: t.amin(dim=axis)),
    ("only the first entry along", "select({axis}, 0)", lambda t, axis: t.select(axis, 0)),
    ("only the last entry along", "select({axis}, -1)", lambda t, axis: t.select(axis, -1)),
)


def dropped_axis_note(
    got: object, want: torch.Tensor, axis_names: Sequence[str] | None = None
) -> str:
    """When ``got`` has the shape of ``want`` with one axis left out and equals ``want``
    reduced over that axis by one or more of the readings above: a sentence naming the
    axis (``axis_names``: one name per axis of ``want``), every reading that fits, and what
    to return instead; "" otherwise (another shape, no reading fits, or values that are not
    a plain tensor)."""
    if not isinstance(got, torch.Tensor) or not isinstance(want, torch.Tensor):
        return ""
    got_shape, want_shape = tuple(got.shape), tuple(want.shape)
    if len(got_shape) != len(want_shape) - 1:
        return ""
    values = got.detach().double()
    for axis in range(len(want_shape)):
        if want_shape[:axis] + want_shape[axis + 1 :] != got_shape or want_shape[axis] < 2:
            continue
        right = want.detach().double()
        fitting = []
        for words, code, reduce in _READINGS:
            candidate = reduce(right, axis)  # want's shape without this axis
            if torch.allclose(values, candidate, rtol=1e-4, atol=1e-5):
                fitting.append((words, code.format(axis=axis)))
        if not fitting:
            continue
        name = axis_names[axis] if axis_names and len(axis_names) == len(want_shape) else ""
        called = (
            f"axis {axis} ({name}, size {want_shape[axis]})"
            if name
            else (f"axis {axis} (size {want_shape[axis]})")
        )
        said = " or ".join(_reading(words, code, called, name, axis) for words, code in fitting)
        which = "one of these readings gives" if len(fitting) > 1 else "that gives"
        return (
            f"Your result is the right result {said} ({which} your numbers exactly): that "
            f"axis is reduced away at the end. Keep it: return the whole {want_shape} result, "
            f"one entry per {name or 'index'} along that axis."
        )
    return ""


def _reading(words: str, code: str, called: str, name: str, axis: int) -> str:
    """One reading in words: an end taken along a named axis reads as that entry itself
    ("only the first position, [:, 0] along axis 1 ..."), the others as a reduction."""
    end = {
        "only the first entry along": ("first", "0"),
        "only the last entry along": ("last", "-1"),
    }
    if name and words in end:
        which, index = end[words]
        indexed = "[" + ", ".join([":"] * axis + [index]) + "]"
        return f"at its {which} {name} only, {indexed} ({called}, .{code})"
    return f"{words} {called}, .{code}"
