"""checking.return_types: the (values, indices) pair of torch's reductions with an index,
returned where a tensor belongs, is told with how to take either half."""

from __future__ import annotations

import torch

from transformer_course.checking.return_types import index_pair_note


def test_pairs_are_named_by_their_reduction():
    x = torch.arange(6.0).reshape(2, 3)
    assert "torch's max(..., dim) returns" in index_pair_note(x.max(dim=-1))
    assert "x.argmax(dim=-1)" in index_pair_note(x.max(dim=-1))
    assert "torch's sort(..., dim) returns" in index_pair_note(x.sort(dim=-1))


def test_anything_else_is_not():
    x = torch.arange(6.0).reshape(2, 3)
    assert index_pair_note(x) == ""
    assert index_pair_note((x, x)) == ""
    assert index_pair_note(x.aminmax()) == ""
