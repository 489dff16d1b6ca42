"""checking.clip_norms: the 'total norm' a hand-written clipping divided by."""

from __future__ import annotations

import pytest
import torch

from transformer_course.checking.clip_norms import (
    NORM_MEASURES,
    implied_total_norm,
    matching_norm_measures,
    predicted_factor,
)

GRADS = [torch.tensor([[3.0, -4.0], [1.0, 2.0]]), torch.tensor([0.5, -6.0, 2.0])]
RIGHT, SQUARED, ONE_NORM = list(NORM_MEASURES)[:3]


@pytest.mark.parametrize("wrong", [SQUARED, ONE_NORM])
def test_a_wrong_measure_is_named_from_the_update_factor(wrong):
    factor = predicted_factor(wrong, GRADS, 1.0)  # what that clipping's update gives
    assert factor < 1.0
    assert matching_norm_measures(factor, GRADS, 1.0) == [wrong]
    assert implied_total_norm(factor, GRADS, 1.0) == pytest.approx(NORM_MEASURES[wrong](GRADS))


def test_no_measure_for_another_factor_or_no_gradients():
    assert matching_norm_measures(0.5, GRADS, 1.0) == []
    assert matching_norm_measures(0.5, [], 1.0) == []
    assert implied_total_norm(0.5, [], 1.0) is None
