"""checking.returned_order: results returned in another order, told by their shapes or,
where the shapes agree, by their values."""

from __future__ import annotations

import torch

from transformer_course.checking.returned_order import (
    reordered_return_note,
    reordered_values_note,
)


def test_shapes_tell_the_order():
    a, b = torch.zeros(2, 3), torch.zeros(3)
    note = reordered_return_note((b, a), ((2, 3), (3,)), ("output", "weights"))
    assert note.startswith("Your function returns (weights, output)")


def test_values_tell_the_order_where_shapes_cannot():
    a, b = torch.arange(6).reshape(2, 3), torch.arange(6).reshape(2, 3) + 1
    assert reordered_return_note((b, a), ((2, 3), (2, 3)), ("inputs", "targets")) == ""
    note = reordered_values_note((b, a), (a, b), ("inputs", "targets"))
    assert note.startswith("Your function returns (targets, inputs): each is exactly right")


def test_values_in_order_or_wrong_say_nothing():
    a, b = torch.arange(6).reshape(2, 3), torch.arange(6).reshape(2, 3) + 1
    assert reordered_values_note((a, b), (a, b), ("inputs", "targets")) == ""
    assert reordered_values_note((b, b), (a, b), ("inputs", "targets")) == ""
    assert reordered_values_note((a, a), (a, a), ("inputs", "targets")) == ""
