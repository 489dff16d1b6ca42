"""Axes of size 1 lost or added: the right numbers, in the right order, under a shape that is
the expected one with some of its size-1 axes removed (a bare .squeeze(), squeeze(0), an
index [0]) or with extra size-1 axes (an unsqueeze or a None index too many).

On such an input many mistakes that move numbers give the same tensor (a permutation of a
size-1 axis, heads folded into a batch of one, a reshape): a reshape never moves a number,
so "same numbers in the same order" is the one description all of them share, and the
checks state the size-1 cause first and name another only after an input with no size-1
axis has told them apart (see checks/multi_head_attention/split.py).
"""

from __future__ import annotations

import torch

__all__ = ["size_one_axes_change", "size_one_axes_note"]


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
        return (
            f"Your numbers are right and in the right order, but yours has extra axes of size "
            f"1 (yours is {shape}, expected {want}): an unsqueeze, a None index or a [None] too "
            "many, or an axis that was never squeezed back. Return exactly the expected shape."
        )
    return (
        f"Your numbers are right and in the right order, but an axis of size 1 sits in the "
        f"wrong place (yours is {shape}, expected {want}): an unsqueeze or None index at the "
        "wrong position."
    )
