"""Axes of length 1 lost or added (a bare ``.squeeze()``, an index ``[0]``, a reduction
without keepdims; ``[None]``, ``unsqueeze``, ``keepdims=True``), and axes in another order.

Two levels of the one idea, by what the check has in hand:

* the shape alone (:func:`size_one_axes`, :func:`permuted_axes`, which ``Checker``'s
  ``expect_shape`` uses unless a check switches it off, ``explain_shapes=False``): it
  is given only when the shapes agree with it axis by axis;
* the expected tensor (:func:`size_one_axes_change`, :func:`size_one_axes_note`): the right
  numbers in the right order under a shape that differs only by axes of size 1. On such an
  input many mistakes that move numbers give the same tensor (a permutation of a size-1
  axis, heads folded into a batch of one, a reshape): a reshape never moves a number, so
  "same numbers in the same order" is the one description all of them share, and the
  checks state the size-1 cause first and name another only after an input with no size-1
  axis has told them apart (see checks/multi_head_attention/split.py).
"""

from __future__ import annotations

import re
from itertools import combinations

import torch

__all__ = [
    "dropped_only_at_one",
    "flat_vector_broadcast",
    "grown_size_one",
    "permuted_axes",
    "promoted_vector_note",
    "raised_on_size_one_hint",
    "raised_on_size_one_note",
    "size_one_axes",
    "size_one_axes_change",
    "size_one_axes_note",
    "values_in_permuted_axes",
]


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
                "dropped: .squeeze() (np.squeeze, torch's squeeze) with no axis removes every "
                "axis of length 1, also the ones the input happens to have, as here. Squeeze "
                "only the axis "
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
    extras = _extra_ones(got, shape)
    if extras:  # round 34: tables unsqueezed to broadcast, (1, 1, len, d) for (len, d)
        return (
            f"That is the expected shape with {len(extras)} extra axes of length 1 (at "
            f"positions {', '.join(map(str, extras))}: [None, None], unsqueeze or view put "
            "them there, as when a result is shaped in advance to broadcast against a larger "
            "tensor): drop them, and return the shape asked for. "
        )
    return ""


def _extra_ones(got: tuple, shape: tuple) -> list[int]:
    """The positions of the axes of length 1 that ``got`` has beyond ``shape`` when
    removing such axes gives ``shape``, two or more of them (matched from the left); []
    otherwise."""
    if len(got) < len(shape) + 2 or [d for d in got if d != 1] != [d for d in shape if d != 1]:
        return []
    extras, j = [], 0
    for i, size in enumerate(got):
        if j < len(shape) and size == shape[j] and len(got) - i - 1 >= len(shape) - j - 1:
            j += 1
        else:
            extras.append(i)
    return extras if j == len(shape) and all(got[i] == 1 for i in extras) else []


#: a note of a check's own that names an added or dropped axis of length 1: expect_shape
#: then leaves out its general sentence (which lists causes the note has ruled out)
NAMES_SIZE_ONE_AXIS = re.compile(r"squeeze|leading axis of length 1|singleton axes")


def promoted_vector_note(run_on, x, got) -> str:
    """A 1-D input ``x`` whose result has shape (1, n) where (n,) belongs, while the same
    function keeps the shape of a 2-D input, x[None] (1, n): the code promotes vectors to
    rows (np.atleast_2d, x.reshape(1, -1), x[None] when x.ndim == 1) and never restores
    the input's shape (round 20, blind19b-sm-atleast-2d-never-restored, was told the
    general causes of an extra axis). ``run_on(array)`` calls the learner's function on a
    copy of an input and returns its result, or None when it raises. "" otherwise."""
    shape = tuple(getattr(x, "shape", ()))
    got_shape = tuple(getattr(got, "shape", ()))
    if len(shape) != 1 or got_shape != (1, *shape):
        return ""
    row = x[None]  # (1, n)
    again = run_on(row)
    if tuple(getattr(again, "shape", ())) != row.shape:
        return ""
    n = shape[0]
    return (
        f"Your result for a 1-D input of {n} entries has shape (1, {n}) instead of ({n},): it "
        f"gained a leading axis of length 1, while a 2-D input of shape (1, {n}) keeps its "
        "shape with your code. So your code turns a vector into a row (np.atleast_2d(x), "
        "x.reshape(1, -1), or x[None] when x.ndim == 1) and never gives the result the "
        "input's shape back. Return a result of x's shape (result.reshape(x.shape)), or "
        "drop the promotion: reductions along axis=axis with keepdims=True work for any "
        "number of dims, 1-D included."
    )


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


def values_in_permuted_axes(got, expected, *, rtol: float = 1e-5, atol: float = 1e-6) -> str:
    """A sentence for a result that holds the expected numbers with its axes in another
    order (every size distinct, so the order is known): a transpose or permute applied and
    never undone, the two swapped axes named; "" when the numbers differ too, or for
    anything but two tensors (values from the grader's sandbox included)."""
    if not (isinstance(got, torch.Tensor) and isinstance(expected, torch.Tensor)):
        return ""
    shape, found = tuple(expected.shape), tuple(got.shape)
    if found == shape or sorted(found) != sorted(shape) or len(set(shape)) != len(shape):
        return ""
    order = [found.index(size) for size in shape]  # got.permute(order) has expected's shape
    try:
        same = torch.allclose(
            got.detach().permute(order).double(), expected.detach().double(), rtol=rtol, atol=atol
        )
    except (RuntimeError, TypeError):
        return ""
    if not same:
        return ""
    moved = [axis for axis, source in enumerate(order) if axis != source]
    if len(moved) == 2:
        first, second = moved
        how = (
            f"axes {first} and {second} swapped: yours is {found} where {shape} belongs. A "
            f"transpose (or swapaxes) of axes {first} and {second} was applied and never "
            "transposed back"
        )
    else:
        how = (
            f"its axes in another order: yours holds axes {tuple(order.index(a) for a in range(len(order)))} "
            "of the expected one. A permute (or several transposes) was applied and never "
            "undone"
        )
    return (
        f"Your numbers are the right ones, but with {how}: return the result in the layout "
        "asked for, undoing any rearrangement you made to compute it. "
    )


def _without_ones(shape) -> tuple[int, ...]:
    return tuple(n for n in shape if n != 1)


def size_one_axes_change(got, expected: torch.Tensor, *, rtol=0.0, atol=0.0) -> str:
    """ "lost", "added" (or "moved") when ``got`` holds ``expected``'s numbers in the same
    order and its shape differs from ``expected``'s only by axes of size 1; else ""."""
    if not isinstance(got, torch.Tensor) or got.shape == expected.shape:
        return ""
    if got.numel() != expected.numel() or got.dtype.is_complex:
        return ""
    if _without_ones(got.shape) != _without_ones(expected.shape):
        return ""
    flat, want = got.detach().reshape(-1), expected.detach().reshape(-1)
    try:
        if flat.dtype == torch.bool or want.dtype == torch.bool:
            same = torch.equal(flat.to(torch.bool), want.to(torch.bool))
        else:
            same = torch.allclose(flat.double(), want.double(), rtol=rtol, atol=atol)
    except RuntimeError:
        return ""
    if not same:
        return ""
    if got.ndim < expected.ndim:
        return "lost"
    return "added" if got.ndim > expected.ndim else "moved"


def size_one_axes_note(got, expected: torch.Tensor, *, rtol=0.0, atol=0.0) -> str:
    """The diagnosis of :func:`size_one_axes_change`, or ""."""
    change = size_one_axes_change(got, expected, rtol=rtol, atol=atol)
    if not change:
        return ""
    shape, want = tuple(got.shape), tuple(expected.shape)
    if change == "lost":
        return (
            f"Your numbers are right and in the right order, but axes of size 1 of {want} are "
            f"gone (yours is {shape}): a bare .squeeze() removes every axis of size 1 (the batch "
            "axis of a batch of one included), and so do squeeze(0) or an index [0]. Drop the "
            "squeeze (or squeeze only an axis you name, where one must go): the shape must not "
            "depend on which sizes happen to be 1."
        )
    if change == "added":
        extra = len(shape) - len(want)
        count = (
            f"one axis of size 1 too many, {len(shape)}-D where {len(want)}-D belongs"
            if extra == 1
            else f"{extra} axes of size 1 too many"
            if extra > 1
            else "extra axes of size 1"
        )
        return (
            f"Your numbers are right and in the right order, but yours has {count} (yours is "
            f"{shape}, expected {want}): an unsqueeze, a None index or a [None] too many, or an "
            "axis that was never squeezed back. Return exactly the expected shape."
        )
    return (
        f"Your numbers are right and in the right order, but an axis of size 1 sits in the "
        f"wrong place (yours is {shape}, expected {want}): an unsqueeze or None index at the "
        "wrong position."
    )


def grown_size_one(x: torch.Tensor) -> torch.Tensor:
    """``x`` with every axis of size 1 repeated to size 2 (the same data, no size-1 axis)."""
    return x.repeat(*(2 if n == 1 else 1 for n in x.shape))


def raised_on_size_one_note(right_when_grown, x: torch.Tensor, names) -> str:
    """Code that raised on ``x``, some of whose axes have size 1, and that is right on the
    same data with those axes grown to 2 (``right_when_grown()``): something removes every
    axis of size 1 (a bare ``.squeeze()``; round 12, blind12d-padmask-squeeze-batch-of-one).
    ``names``: the axes' names. "" when no axis has size 1 or the grown input fails too."""
    ones = [name for name, n in zip(names, x.shape) if n == 1]
    if not ones:
        return ""
    try:
        if not right_when_grown():
            return ""
    except Exception:
        return ""
    which = " and ".join(ones)
    return (
        f"This input has {which} of size 1, and yours is right on the same data with "
        "those axes 2 long: your code drops the axes of size 1. A bare .squeeze() (without a "
        "dim) removes every axis of size 1, the batch axis of a batch of one included: "
        "squeeze only the axis you mean, .squeeze(dim), or none."
    )


def raised_on_size_one_hint(right_when_grown, x: torch.Tensor, names):
    """:func:`raised_on_size_one_note` as a hint for ``Checker.call``."""

    def hit(_exc: BaseException) -> str:
        return raised_on_size_one_note(right_when_grown, x, names)

    return [(Exception, hit)]


_BROADCAST_SHAPES = re.compile(
    r"operands could not be broadcast together with shapes \(([\d,]*)\) \(([\d,]*)\)"
)


def _shape_of(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(",") if part)


def flat_vector_broadcast(exc: BaseException, names: dict[int, str]) -> str:
    """numpy's "operands could not be broadcast together with shapes (a,) (b,)" or
    "(a,) (a, b)" from the learner's code, read as the size-1 axis a 1-D vector lacks:
    ``names`` maps the call's sizes to what they count ({6: "max_len", 2: "pairs"}).
    Two flat vectors of named sizes were meant to make a table (one must be a column,
    ``v[:, None]``); a (a,) vector against an (a, b) array lines up with the last axis b,
    not with the rows it was meant to scale. "" when the error is not one of those."""
    found = _BROADCAST_SHAPES.search(str(exc))
    if not found:
        return ""
    first, second = _shape_of(found.group(1)), _shape_of(found.group(2))
    if len(first) == 1 and len(second) == 1:
        a, b = first[0], second[0]
        if a == b or a not in names or b not in names:
            return ""
        return (
            f"Two flat vectors met element-wise: one of {a} ({names[a]}) and one of {b} "
            f"({names[b]}). To get one value for every ({names[a]}, {names[b]}) pair, the "
            f"first must be a column, shape ({a}, 1) (v[:, None]), so that broadcasting "
            f"makes a ({a}, {b}) table: a 1-D vector lines up with the last axis, so the "
            "column's axis of size 1 is what is missing."
        )
    if len(second) == 1 and len(first) == 2:
        first, second = second, first
    if len(first) == 1 and len(second) == 2:
        a, (rows, cols) = first[0], second
        if a != rows or a == cols:
            return ""
        what = names.get(a, f"{a} entries")
        return (
            f"A 1-D vector of {a} ({what}) met a ({rows}, {cols}) array element-wise: "
            f"broadcasting lines a 1-D vector up with the *last* axis ({cols}), not with the "
            f"rows it was meant to scale. Give it the missing axis of size 1, v[:, None] "
            f"(shape ({a}, 1)), so that entry j multiplies row j."
        )
    return ""


def dropped_only_at_one(got: tuple, shape: tuple, run_grown) -> str:
    """``got`` is ``shape`` less some of its size-1 axes. ``run_grown(axes)`` makes the same
    call on an input whose those axes have length 2 and returns whether its result has
    the right shape. When it has, the axes are removed only because their length is 1,
    which is what a bare ``.squeeze()`` (or squeeze on that axis) does, and not an index
    [0] or a reduction (those remove the axis at any length). "" otherwise."""
    got, shape = tuple(got), tuple(shape)
    dropped = _dropped(got, shape)
    if dropped is None:
        return ""
    try:
        right = bool(run_grown(dropped))
    except Exception:  # the grown call has its own message when the check reaches it
        return ""
    if not right:
        return ""
    which = ("axes " if len(dropped) > 1 else "axis ") + ", ".join(map(str, dropped))
    return (
        f"Your result lacks {which} of length 1; on the same call with that length 2 its "
        "shape is right. An axis removed only when its length is 1 is what .squeeze() does "
        "(with no dim it removes every axis of length 1, here the batch of one): remove the "
        ".squeeze(), or squeeze only the axis you mean."
    )
