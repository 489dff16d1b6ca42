"""An output that is two known tensors joined along an axis (torch.cat / np.concatenate
where a sum, or one of them alone, belongs): say which tensors, in which order, along
which axis. A check gives the candidates (the inputs, the right output, a table's rows)
by name; the output's shape tells the axis, and its values confirm the order."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import permutations

import torch

__all__ = ["concatenation_of"]


def concatenation_of(
    got, parts: Mapping[str, torch.Tensor], *, rtol: float = 1e-5, atol: float = 1e-6
) -> tuple[str, str, int] | None:
    """(first name, second name, axis) when ``got`` equals torch.cat([parts[first],
    parts[second]], dim=axis), each part broadcast to the other's sizes on every other
    axis (a table with a batch axis of 1 expanded over the batch); None otherwise, and for
    anything that is not a tensor (a grader's plain values included)."""
    if not isinstance(got, torch.Tensor):
        return None
    got = got.detach()
    for (first, a), (second, b) in permutations(parts.items(), 2):
        if not isinstance(a, torch.Tensor) or not isinstance(b, torch.Tensor):
            continue
        if a.dim() != got.dim() or b.dim() != got.dim():
            continue
        for axis in range(got.dim()):
            if a.shape[axis] + b.shape[axis] != got.shape[axis]:
                continue
            others = [size for i, size in enumerate(got.shape) if i != axis]
            try:
                left = a.detach().expand(
                    *[a.shape[i] if i == axis else got.shape[i] for i in range(got.dim())]
                )
                right = b.detach().expand(
                    *[b.shape[i] if i == axis else got.shape[i] for i in range(got.dim())]
                )
            except RuntimeError:  # a size that does not broadcast: not this pair
                continue
            if not others or left.shape[axis] + right.shape[axis] != got.shape[axis]:
                continue
            joined = torch.cat([left.to(got.dtype), right.to(got.dtype)], dim=axis)
            if torch.allclose(got.double(), joined.double(), rtol=rtol, atol=atol):
                return first, second, axis
    return None
