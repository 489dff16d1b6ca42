"""Axes of length 1 lost or added: is the learner's shape the expected one with some
size-1 axes dropped (``.squeeze()``, an index ``[0]``, a reduction without keepdims) or
with one inserted (``[None]``, ``unsqueeze``, ``keepdims=True``, a reshape)?

A shape explains itself only in these exact forms, so the explanation is given only when
the shapes agree with it axis by axis (the numbers are not looked at: the same entries in
the same order, which a size-1 axis cannot change).
"""

from __future__ import annotations

from itertools import combinations

__all__ = ["permuted_axes", "size_one_axes"]


def _dropped(got: tuple, shape: tuple) -> list[int] | None:
    """The positions of ``shape``'s size-1 axes whose removal gives ``got`` (the first
    such choice), or None."""
    extra = len(shape) - len(got)
    ones = [axis for axis, size in enumerate(shape) if size == 1]
    if extra <= 0 or extra > len(ones):
        return None
    for chosen in combinations(ones, extra):
        if tuple(size for axis, size in enumerate(shape) if axis not in chosen) == got:
            return list(chosen)
    return None


def size_one_axes(got: tuple, shape: tuple) -> str:
    """A sentence naming the size-1 axes that ``got`` lacks or has in excess against
    ``shape`` ("" when it is not that)."""
    got, shape = tuple(got), tuple(shape)
    dropped = _dropped(got, shape)
    if dropped is not None:
        ones = [axis for axis, size in enumerate(shape) if size == 1]
        which = ("axes " if len(dropped) > 1 else "axis ") + ", ".join(map(str, dropped))
        if dropped == ones and (len(ones) > 1 or not got):
            return (
                f"That is the expected shape with every axis of length 1 ({which}) "
                "dropped: .squeeze() (np.squeeze, torch's squeeze) with no axis removes them "
                "all, also the ones the input happens to have, as here. Squeeze only the axis "
                "you mean (squeeze(-1)), or keep the shape as it is. "
            )
        return (
            f"That is the expected shape with its {which} of length 1 dropped (a "
            ".squeeze(), an index [0] or a reduction without keepdims removes it). Keep it: "
            "this axis is part of the result even when its length is 1. "
        )
    added = [
        axis
        for axis in range(len(got))
        if len(got) == len(shape) + 1 and got[axis] == 1 and got[:axis] + got[axis + 1 :] == shape
    ]
    if added:
        return (
            f"That is the expected shape with an extra axis of length 1 at position "
            f"{added[0]} (a [None], unsqueeze, keepdims=True or reshape put it there): drop "
            "it. "
        )
    return ""


def permuted_axes(got: tuple, shape: tuple) -> str:
    """A sentence naming the order of ``got``'s axes when it is ``shape`` with its axes
    rearranged (every size distinct, so the rearrangement is known); "" otherwise."""
    got, shape = tuple(got), tuple(shape)
    if got == shape or sorted(got) != sorted(shape) or len(set(shape)) != len(shape):
        return ""
    order = [shape.index(size) for size in got]
    if len(shape) == 2:
        return (
            "That is the expected shape transposed, its two axes swapped (a .T, transpose "
            "or swapaxes, or a product taken the other way round). "
        )
    return (
        f"That is the expected shape with its axes in another order: yours holds axes "
        f"{tuple(order)} of the expected one (a transpose, permute, swapaxes or moveaxis "
        "rearranged them, or one was missing). "
    )
