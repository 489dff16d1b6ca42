"""A tensor passed on with its axes rearranged: the same values as the tensor a module was
given, under another shape, because a size-1 axis was removed (``squeeze(k)``), one was
added (``unsqueeze(k)``, ``[:, None]``), or two axes were exchanged (``transpose(i, j)``,
``permute``, a sequence-first habit). One family, "the argument reshaped on the way", that
several contracts share (masks handed from a stack to its layers or from a layer to its
attentions, the encoder's memory handed to a cross-attention).

:func:`rearrangement` names the change only when the values agree with it element by
element (every candidate is tried; a permutation is stated only when the values, not just
the sizes, say which one); :func:`arrival_hint` is the exception hint that finds such an
argument among the calls a module makes to its submodules.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import permutations
from typing import Any

import torch
from torch import nn

from transformer_course.checking.hooks import inputs_received

__all__ = [
    "arrival_hint",
    "batch_row",
    "copied_along",
    "kept_slice",
    "merged_after_move",
    "one_hot_of",
    "rearrangement",
    "rejoined",
    "slice_order",
]


def _equal(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.shape != b.shape:
        return False
    if a.dtype == torch.bool or b.dtype == torch.bool:
        return torch.equal(a.to(torch.bool), b.to(torch.bool))
    return torch.allclose(a.double(), b.double(), rtol=1e-6, atol=1e-8)


def rearrangement(got: Any, given: Any) -> str:
    """How ``got`` is ``given`` with its axes rearranged and its values untouched, as a
    phrase ("its axis 1, of size 1, removed: a squeeze(1)"); "" when it is not that (or
    when the shapes are equal)."""
    if not isinstance(got, torch.Tensor) or not isinstance(given, torch.Tensor):
        return ""
    g, w = got.detach(), given.detach()
    if g.shape == w.shape or g.numel() != w.numel():
        return ""
    gs, ws = tuple(g.shape), tuple(w.shape)
    if len(gs) == len(ws) - 1:
        axes = [a for a in range(len(ws)) if ws[a] == 1 and ws[:a] + ws[a + 1 :] == gs]
        if axes and _equal(g, w.reshape(gs)):
            calls = " or ".join(f"squeeze({a})" for a in axes)
            return f"its axis {axes[0]}, of size 1, removed ({calls})"
    if len(gs) == len(ws) + 1:
        axes = [a for a in range(len(gs)) if gs[a] == 1 and gs[:a] + gs[a + 1 :] == ws]
        if axes and _equal(g, w.reshape(gs)):
            calls = " or ".join(f"unsqueeze({a})" for a in axes)
            return f"an extra axis of size 1 inserted at position {axes[0]} ({calls})"
    if len(gs) == len(ws) and len(ws) <= 5 and sorted(gs) == sorted(ws):
        found = [
            order
            for order in permutations(range(len(ws)))
            if order != tuple(range(len(ws)))
            and tuple(ws[i] for i in order) == gs
            and _equal(g, w.permute(order))
        ]
        if len(found) == 1:
            order = found[0]
            moved = [i for i in range(len(order)) if order[i] != i]
            if len(moved) == 2:
                i, j = moved
                return f"its axes {i} and {j} exchanged (a transpose({i}, {j}))"
            return f"its axes in the order {order} (a permute{order})"
    return ""


def _axis_name(axis: int, axes: Sequence[str] | None) -> str:
    return (
        f"axis {axis} ({axes[axis]})" if axes is not None and axis < len(axes) else f"axis {axis}"
    )


def rejoined(got: Any, expected: Any, axes: Sequence[str] | None = None) -> str:
    """How ``got`` is ``expected`` cut into pieces along one axis and joined again along
    another (torch.cat(pieces, dim=b) where dim=a belongs: outputs computed piece by piece,
    a group of heads or a chunk of rows at a time, then concatenated on the wrong axis),
    as a sentence in ``axes``' names; "" when it is not that. Only a join the values agree
    with entry by entry is named, and only when exactly one (a, b, pieces) fits."""
    if not isinstance(got, torch.Tensor) or not isinstance(expected, torch.Tensor):
        return ""
    g, w = got.detach(), expected.detach()
    if g.dim() != w.dim() or g.shape == w.shape or g.numel() != w.numel():
        return ""
    found = []
    for a in range(w.dim()):
        for b in range(w.dim()):
            if a == b or g.shape[b] % max(w.shape[b], 1) or w.shape[a] % max(g.shape[a], 1):
                continue
            pieces = g.shape[b] // max(w.shape[b], 1)
            if pieces < 2 or w.shape[a] // max(g.shape[a], 1) != pieces:
                continue
            if any(g.shape[i] != w.shape[i] for i in range(w.dim()) if i not in (a, b)):
                continue
            if _equal(g, torch.cat(w.chunk(pieces, dim=a), dim=b)):
                found.append((a, b, pieces))
    if len(found) != 1:
        return ""
    a, b, pieces = found[0]
    piece = list(w.shape)
    piece[a] //= pieces
    return (
        f"Your output holds the right numbers, joined the wrong way: it is the right output cut "
        f"into {pieces} pieces of shape {tuple(piece)} along {_axis_name(a, axes)} and "
        f"concatenated along {_axis_name(b, axes)}. Pieces computed one at a time (a group of "
        "heads, a chunk of rows) were joined with torch.cat(pieces, "
        f"dim={b}) (or dim={b - w.dim()}) where dim={a} belongs."
    )


def _groupings(n: int, m: int) -> list[tuple[tuple[int, ...], ...]]:
    """Every way to cut the positions 0..n-1 into m runs of consecutive positions."""
    if m == 1:
        return [(tuple(range(n)),)]
    found = []
    for first in range(1, n - m + 2):
        for rest in _groupings(n - first, m - 1):
            found.append((tuple(range(first)), *(tuple(i + first for i in run) for run in rest)))
    return found


def merged_after_move(got: Any, expected: Any, axes: Sequence[str] | None = None) -> str:
    """How ``got`` is ``expected`` with its axes moved (a transpose or permute) and then
    some neighbours merged into one (a reshape, view or flatten): the heads merged back
    into the features, x.transpose(1, 2).reshape(batch, len_q, num_heads * d_v), where the
    contract keeps them apart (blind27c-gqa-output-heads-merged: its shape alone before).
    Named only when the values agree entry by entry and every fitting rearrangement merges
    the same axes; "" otherwise (a merge with no move is said from the shapes alone)."""
    if not isinstance(got, torch.Tensor) or not isinstance(expected, torch.Tensor):
        return ""
    g, w = got.detach(), expected.detach()
    if not 1 <= g.dim() < w.dim() <= 5 or g.numel() != w.numel() or g.numel() < 4:
        return ""
    if w.is_floating_point() and int(torch.unique(w).numel()) * 2 < w.numel():
        return ""  # values too alike to tell one arrangement from another
    found = set()
    for order in permutations(range(w.dim())):
        if order == tuple(range(w.dim())):
            continue  # a merge of neighbours in place: the shapes alone say it
        moved = w.permute(order)
        for runs in _groupings(w.dim(), g.dim()):
            sizes = tuple(int(torch.tensor([moved.shape[i] for i in run]).prod()) for run in runs)
            if sizes != tuple(g.shape) or not any(len(run) > 1 for run in runs):
                continue
            if _equal(g, moved.reshape(sizes)):
                merged = tuple(
                    tuple(order[i] for i in run)
                    for run in runs
                    if len(run) > 1 and all(w.shape[order[i]] > 1 for i in run)
                )
                found.add((order, runs, merged))
    merges = {merged for _order, _runs, merged in found}
    if len(merges) != 1 or not next(iter(merges)):
        return ""
    order, runs, merged = min(found)

    def name(axis: int) -> str:
        return axes[axis] if axes is not None and axis < len(axes) else f"axis {axis}"

    layout = ", ".join(" * ".join(name(order[i]) for i in run) for run in runs)
    joined = "; ".join(
        f"{' and '.join(name(a) for a in group)} merged into one axis of length "
        f"{int(torch.tensor([w.shape[a] for a in group]).prod())}"
        for group in merged
    )
    heads = any("head" in name(a) for group in merged for a in group)
    return (
        f"Your output holds the right numbers, with axes merged: it is ({layout}), the "
        f"expected ({', '.join(name(a) for a in range(w.dim()))}) with its axes moved "
        f"(permute{order}) and then {joined}, as a transpose followed by a reshape, view or "
        "flatten does"
        + (" (the heads merged back into the features, as merge_heads does)" if heads else "")
        + ". Return the tensor before that merge: the expected axes stay separate."
    )


def one_hot_of(got: Any, expected: Any, axes: Sequence[str] | None = None) -> str:
    """How ``got`` is the integer tensor ``expected`` one-hot encoded (F.one_hot, the ids
    turned into vectors of class indicators along a new axis), as a sentence; "" when it is
    not that (blind27c-ntb-targets-one-hot: its shape alone before)."""
    if not isinstance(got, torch.Tensor) or not isinstance(expected, torch.Tensor):
        return ""
    g, w = got.detach(), expected.detach()
    if w.is_floating_point() or w.dtype == torch.bool or g.dim() != w.dim() + 1:
        return ""
    if w.numel() == 0 or int(w.min()) < 0:
        return ""
    for axis in range(g.dim()):
        classes = g.shape[axis]
        if classes <= int(w.max()) or tuple(g.shape[:axis] + g.shape[axis + 1 :]) != tuple(w.shape):
            continue
        encoded = torch.nn.functional.one_hot(w.long(), classes).movedim(-1, axis)
        if _equal(g, encoded):
            where = "a new last axis" if axis == g.dim() - 1 else f"a new axis {axis}"
            return (
                f"Yours is the expected integer ids one-hot encoded: each id became a vector "
                f"of {classes} class indicators along {where} (F.one_hot, {classes} = the "
                "largest id + 1 or the number of classes). Return the ids themselves, an "
                f"integer tensor of shape {tuple(w.shape)}: F.cross_entropy takes class "
                "indices, not one-hot vectors."
            )
    return ""


def one_hot_shaped(got: Any, shape: tuple) -> str:
    """How ``got``, with one axis more than the expected ``shape``, is a one-hot encoding
    along that axis (every vector along it a single 1 among 0s), as a sentence; "" when it
    is not. For a value whose right ids the check cannot know (a random draw): the
    encoding alone is read, not which ids."""
    if not isinstance(got, torch.Tensor) or got.dim() != len(shape) + 1 or got.numel() == 0:
        return ""
    g = got.detach()
    if g.dtype == torch.bool or g.is_complex():
        return ""
    for axis in range(g.dim()):
        if tuple(g.shape[:axis] + g.shape[axis + 1 :]) != tuple(shape) or g.shape[axis] < 2:
            continue
        binary = bool(((g == 0) | (g == 1)).all())
        if binary and bool((g.sum(dim=axis) == 1).all()):
            where = "a new last axis" if axis == g.dim() - 1 else f"a new axis {axis}"
            return (
                f"Yours is one-hot encoded: along {where} each vector of {g.shape[axis]} "
                "entries holds a single 1 (F.one_hot of the ids, or a scatter of ones). "
                f"Return the ids themselves, an integer tensor of shape {tuple(shape)}."
            )
    return ""


def kept_slice(got: Any, expected: Any, axes: Sequence[str] | None = None) -> str:
    """How ``got`` is ``expected`` with only some entries kept along one axis, a slice
    start:stop:step (every group-th head, the first rows), as a sentence; "" when it is
    not that (or more than one slice fits)."""
    if not isinstance(got, torch.Tensor) or not isinstance(expected, torch.Tensor):
        return ""
    g, w = got.detach(), expected.detach()
    if g.dim() != w.dim() or g.shape == w.shape:
        return ""
    differ = [i for i in range(w.dim()) if g.shape[i] != w.shape[i]]
    if len(differ) != 1:
        return ""
    (axis,) = differ
    full, kept = w.shape[axis], g.shape[axis]
    if not 0 < kept < full or full > 64:  # (full² slices tried: short axes only)
        return ""
    found = []
    for step in range(1, full):
        for start in range(full):
            # a plain slice start:start + kept, or a strided one start::step to the end
            index = list(range(start, full, step))
            index = index[:kept] if step == 1 else index
            if len(index) != kept:
                continue
            if _equal(g, w.index_select(axis, torch.tensor(index))):
                found.append((start, step, index))
    if len(found) != 1:
        return ""
    start, step, index = found[0]
    stop = index[-1] + 1
    written = f"{start or ''}::{step}" if step > 1 else f"{start}:{stop}" if start else f":{stop}"
    lead = ", ".join([":"] * axis + [written])
    return (
        f"Your output holds the right values of entries {index} along "
        f"{_axis_name(axis, axes)} only, the right output's [{lead}]: the other "
        f"{full - kept} of {full} were never computed or were dropped."
    )


def copied_along(got: Any, expected: Any) -> tuple[int, int, str] | None:
    """(axis, times, how) when ``got`` is ``expected`` with every entry copied ``times``
    times along one axis: side by side ("repeat_interleave", each entry n times in a row)
    or as whole copies one after another ("repeat", the axis tiled); None when it is not
    that (or both forms fit, as they do on an axis of size 1)."""
    if not isinstance(got, torch.Tensor) or not isinstance(expected, torch.Tensor):
        return None
    g, w = got.detach(), expected.detach()
    if g.dim() != w.dim() or g.shape == w.shape:
        return None
    differ = [i for i in range(w.dim()) if g.shape[i] != w.shape[i]]
    if len(differ) != 1 or w.shape[differ[0]] == 0:
        return None
    (axis,) = differ
    times, rest = divmod(g.shape[axis], w.shape[axis])
    if rest or times < 2:
        return None
    tiled = [1] * w.dim()
    tiled[axis] = times
    found = [
        how
        for how, copy in (
            ("repeat_interleave", w.repeat_interleave(times, dim=axis)),
            ("repeat", w.repeat(*tiled)),
        )
        if _equal(g, copy)
    ]
    return (axis, times, found[0]) if len(found) == 1 else None


def batch_row(got: Any, given: Any) -> int | None:
    """The i for which ``got`` is ``given[i]`` (one row of its first axis, the batch), when
    ``given`` has more than one row and exactly one matches; None otherwise (blind12n-dec-
    memory-indexed-per-layer: memory[i] handed to layer i)."""
    if not isinstance(got, torch.Tensor) or not isinstance(given, torch.Tensor):
        return None
    if given.dim() < 2 or given.shape[0] < 2 or tuple(got.shape) != tuple(given.shape[1:]):
        return None
    rows = [i for i in range(given.shape[0]) if _equal(got.detach(), given[i].detach())]
    return rows[0] if len(rows) == 1 else None


def arrival_hint(
    module: nn.Module,
    call: Callable[[], Any],
    given: Mapping[str, Any],
    children: Sequence[str],
    parameters: Sequence[str] = ("query", "key", "value", "mask"),
) -> list:
    """A hint for an exception a module raised: the first call to a submodule (one whose
    name ends with one of ``children``) that receives one of the ``given`` tensors (name ->
    tensor) with its axes rearranged (:func:`rearrangement`), found with pre-hooks."""

    def hit(_exc: BaseException) -> str:
        seen = [
            (name, list(zip(parameters, args, strict=False)) + list(kwargs.items()))
            for name, _, args, kwargs in inputs_received(module, children, call)
        ]
        for name, named in seen:
            for parameter, value in named:
                if not isinstance(value, torch.Tensor):
                    continue
                if any(
                    isinstance(t, torch.Tensor) and t.shape == value.shape for t in given.values()
                ):
                    continue
                for label, tensor in given.items():
                    if (index := batch_row(value, tensor)) is not None:
                        shown = name if "." in name else f"self.{name}"
                        return (
                            f"`{shown}` gets as its {parameter} {label}[{index}], shape "
                            f"{tuple(value.shape)}: one sentence's {label}, row {index} of the "
                            f"batch axis of {label} {tuple(tensor.shape)} (an index into a "
                            "batch-first tensor picks one sentence). "
                            f"Pass {label} on whole, the same to every layer."
                        )
                    how = rearrangement(value, tensor)
                    if how:
                        shown = name if "." in name else f"self.{name}"
                        return (
                            f"`{shown}` gets as its {parameter} {label} with {how}: shape "
                            f"{tuple(value.shape)}, where {label} came in as "
                            f"{tuple(tensor.shape)}. Pass {label} on as it is: every tensor "
                            "here is batch first, and masks broadcast against the attention "
                            "scores (batch, num_heads, len_q, len_k) by themselves."
                        )
        return ""

    return [(Exception, hit)]


def _matching_slices(got: Any, expected: Any, dim: int) -> list[int] | None:
    """Entry p: the index of the one slice of ``expected`` along ``dim`` equal to got's
    slice p. None when the two are not tensors of one shape (nor 0-d), or some slice of
    ``got`` equals none or several of ``expected``'s."""
    if not isinstance(got, torch.Tensor) or not isinstance(expected, torch.Tensor):
        return None
    if got.shape != expected.shape or got.dim() == 0:
        return None
    try:
        mine = got.detach().movedim(dim, 0)
        right = expected.detach().movedim(dim, 0)
        sources = []
        for piece in mine:
            found = [i for i, other in enumerate(right) if _equal(piece, other)]
            if len(found) != 1:
                return None
            sources.append(found[0])
    except (RuntimeError, IndexError):  # values from a sandbox, an odd layout: say nothing
        return None
    return sources


def slice_sources(got: Any, expected: Any, dim: int) -> list[int] | None:
    """Which of ``expected``'s slices along ``dim`` each slice of ``got`` holds: entry p is
    the index of the one slice of ``expected`` equal to got's slice p, repeats and gaps
    allowed (a slice copied twice, another never: what :func:`slice_order` leaves out, as
    it needs every slice once). None when the two differ in shape, are already equal, some
    slice of ``got`` is none of ``expected``'s, or two of ``expected``'s slices are equal
    (the sources would be ambiguous)."""
    sources = _matching_slices(got, expected, dim)
    if sources is None:
        return None
    try:
        right = expected.detach().movedim(dim, 0)
        for i, piece in enumerate(right):  # the sources must be unambiguous
            if any(_equal(piece, other) for other in right[i + 1 :]):
                return None
    except (RuntimeError, IndexError):  # values from a sandbox, an odd layout: say nothing
        return None
    if sources == list(range(len(sources))):
        return None
    return sources


def slice_order(got: Any, expected: Any, dim: int) -> list[int] | None:
    """The order in which ``got`` holds ``expected``'s slices along ``dim``: entry p is the
    index of the slice of ``expected`` found at p. None when the two differ in shape, are
    already equal, or some slice of ``got`` is not exactly one slice of ``expected`` (a
    position stored newest first, reversed, rotated: the values say which, not the sizes;
    when two slices of ``expected`` are equal the order is ambiguous and None too)."""
    order = _matching_slices(got, expected, dim)
    if order is None:
        return None
    if sorted(order) != list(range(len(order))) or order == list(range(len(order))):
        return None
    return order
