"""checking.leading_axes: a subscript counted from the front (x[:, a:b]) on an input whose
number of leading axes differs from the one it was written for, named with the axis it
cuts; silent where the slice lands on the exercise's axis or counts from the end."""

from __future__ import annotations

import pytest
import torch

from transformer_course.checking import Checker, CheckFailure
from transformer_course.checking.leading_axes import yielding_to_front_counted


def columns_from_the_front(x):
    block = x[:, 0:2]
    return block.sum(dim=-1) + x.sum(dim=-1)


def columns_from_the_end(x):
    block = x[..., 0:2]
    return block.sum(dim=-1) + x.sum(dim=(0, 1))  # raises on a 3-D x, for another reason


def _message(fn, x):
    hints = yielding_to_front_counted([(RuntimeError, "another reading")], -1, "the columns", (x,))
    with pytest.raises(CheckFailure) as failure, Checker("demo") as c:
        c.call(fn, x, hints=hints)
    return failure.value.message


def test_a_front_counted_slice_is_named_and_silences_the_other_readings():
    message = _message(columns_from_the_front, torch.zeros(2, 3, 5))
    assert "Your `x[:, 0:2]` cuts axis 1 of x, counted from the front" in message, message
    assert "x[..., 0:2]" in message
    assert "another reading" not in message
    message = _message(columns_from_the_front, torch.zeros(5))
    assert "asks for 2 axes of a tensor that has 1 here" in message, message


def test_a_slice_counted_from_the_end_leaves_the_other_readings():
    message = _message(columns_from_the_end, torch.zeros(2, 3, 5))
    assert "counted from the front" not in message
    assert "another reading" in message


def mask_of_its_own(x):
    mask = torch.ones(x.shape[-1], x.shape[-1], dtype=torch.bool)
    kept = mask[:, 0:2]  # the keys of a (len_q, len_k) mask: its last axis, rightly
    return x[..., 0:2] + kept.sum(dim=0)[:1, None, None].float().expand(3, 3, 3)


def test_a_tensor_of_the_learner_s_own_is_not_read():
    message = _message(mask_of_its_own, torch.zeros(2, 3, 5))
    assert "counted from the front" not in message
