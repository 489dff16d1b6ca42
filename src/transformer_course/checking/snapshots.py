"""Snapshots of a call's arguments, so that a check can tell the learner their code
changed its input in place."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["same_as_snapshot", "snapshot"]


_OPAQUE = object()  # a value whose contents are not compared (a module, an optimizer, ...)
_PLAIN = (int, float, complex, str, bytes, bool, type(None))


def _is_tensor(value: Any) -> bool:
    return hasattr(value, "detach") and hasattr(value, "clone") and hasattr(value, "dtype")


def snapshot(value: Any) -> Any:
    """A deep copy of the data in ``value`` (arrays, tensors, and containers of them)."""
    if isinstance(value, np.ndarray):
        return value.copy()
    if _is_tensor(value):
        return value.detach().clone()
    if isinstance(value, list | tuple):
        return (
            type(value)(snapshot(item) for item in value)
            if isinstance(value, list)
            else tuple(snapshot(item) for item in value)
        )
    if isinstance(value, dict):
        return {key: snapshot(item) for key, item in value.items()}
    if isinstance(value, set | frozenset):
        return set(value)
    if isinstance(value, (*_PLAIN, np.generic)):
        return value
    return _OPAQUE


def same_as_snapshot(value: Any, snapshot: Any) -> bool:
    """Does ``value`` still hold what ``snapshot`` recorded?"""
    if snapshot is _OPAQUE:
        return True
    if isinstance(snapshot, np.ndarray):
        if not isinstance(value, np.ndarray) or value.shape != snapshot.shape:
            return False
        if value.dtype.kind in "fc":
            return bool(np.array_equal(value, snapshot, equal_nan=True))
        return bool(np.array_equal(value, snapshot))
    if _is_tensor(snapshot):
        import torch

        now = value.detach()
        if now.shape != snapshot.shape or now.dtype != snapshot.dtype:
            return False
        if now.is_floating_point():
            return bool(torch.equal(now.isnan(), snapshot.isnan())) and bool(
                torch.equal(now.nan_to_num(0.0), snapshot.nan_to_num(0.0))
            )
        return bool(torch.equal(now, snapshot))
    if isinstance(snapshot, list | tuple):
        return (
            isinstance(value, list | tuple)
            and len(value) == len(snapshot)
            and all(
                same_as_snapshot(item, copy) for item, copy in zip(value, snapshot, strict=True)
            )
        )
    if isinstance(snapshot, dict):
        return (
            isinstance(value, dict)
            and list(value) == list(snapshot)
            and all(same_as_snapshot(value[key], copy) for key, copy in snapshot.items())
        )
    if isinstance(snapshot, set):
        return value == snapshot
    if isinstance(snapshot, float) and snapshot != snapshot:  # NaN
        return isinstance(value, float) and value != value
    return type(value) is type(snapshot) and bool(value == snapshot)
