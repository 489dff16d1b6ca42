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


def test_loss_scale_behind_reads_the_scale_a_clipping_saw():
    """Gradients clipped while multiplied by S (a loss scale not undone), divided by S
    after: the update's factor gives S back, a power of 2; a plain factor gives None."""
    import torch

    from transformer_course.checking.clip_norms import loss_scale_behind

    grads = [torch.tensor([3.0, 4.0]), torch.tensor([12.0])]  # total 2-norm 13
    # clipped to clip_norm either way, then divided by S: 1 / S of the reference's step
    for scale in (2.0**10, 2.0**16):
        assert loss_scale_behind(1.03 / scale, grads, 1.0) == scale
    assert loss_scale_behind(0.5, grads, 1.0) is None
    assert loss_scale_behind(1 / 100, grads, 1.0) is None
