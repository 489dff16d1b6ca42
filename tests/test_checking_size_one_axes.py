"""checking.size_one_axes: the right numbers in the right order under a shape that differs
only by axes of size 1 (lost, added, moved); anything else, values or sizes, is not it."""

from __future__ import annotations

import torch

from transformer_course.checking.size_one_axes import size_one_axes_change, size_one_axes_note


def test_lost_added_and_moved():
    expected = torch.arange(6.0).reshape(1, 2, 1, 3)
    assert size_one_axes_change(expected.squeeze(), expected) == "lost"
    assert size_one_axes_change(expected[None], expected) == "added"
    assert size_one_axes_change(expected.reshape(2, 1, 3, 1), expected) == "moved"
    assert "are gone" in size_one_axes_note(expected.squeeze(0), expected)


def test_not_when_the_numbers_or_the_other_sizes_differ():
    expected = torch.arange(6.0).reshape(1, 2, 3)
    assert size_one_axes_change(expected, expected) == ""  # same shape: nothing to say
    assert size_one_axes_change(expected.reshape(3, 2), expected) == ""  # other sizes
    assert size_one_axes_change(expected.transpose(1, 2).squeeze(0), expected) == ""  # moved
    assert size_one_axes_change(expected.squeeze() + 1, expected) == ""  # other values
    assert size_one_axes_change([[0.0, 1.0]], expected) == ""  # not a tensor


def test_bool_and_tolerance():
    mask = torch.tensor([[[[True, False]]]])
    assert size_one_axes_change(mask.squeeze(), mask) == "lost"
    close = torch.tensor([[1.0, 2.0]]) + 1e-7
    assert size_one_axes_change(close.squeeze(), torch.tensor([[1.0, 2.0]]), atol=1e-6) == "lost"
