"""checking.uninitialised for torch results: entries of a torch.empty buffer never written
are found (a freed sentinel, or values that change between calls); a result fully written is
never reported."""

from __future__ import annotations

import torch

from transformer_course.checking.uninitialised import (
    unwritten_tensor_entries,
    unwritten_tensor_note,
)

X = torch.randn(2, 3, 7, 16)  # (batch, heads, len, d): large enough for the allocator to reuse


def _half_written(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    out[..., :8] = x[..., :8] * 2
    return out


def test_entries_never_written_are_found_and_only_those():
    found = unwritten_tensor_entries(lambda: _half_written(X), tuple(X.shape), X.dtype)
    assert found is not None
    mask, _ = found
    assert not bool(mask[..., :8].any()) and bool(mask[..., 8:].any())


def test_a_result_written_everywhere_is_never_reported():
    assert unwritten_tensor_entries(lambda: X * 2, tuple(X.shape), X.dtype) is None
    assert unwritten_tensor_note(lambda: X.clone(), tuple(X.shape), X.dtype) == ""
    # a call that raises or returns another shape tells nothing
    assert unwritten_tensor_entries(lambda: X[0], tuple(X.shape), X.dtype) is None
