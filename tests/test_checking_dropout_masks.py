"""checking.dropout_masks: a dropout's draw read from the tensors before and after it.
nn.Dropout is never named, whatever the seed; a channel-wise dropout, a mask shared along
an axis, unscaled kept values and a rate of 1 are, each with its own words."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from transformer_course.checking.dropout_masks import dropout_pattern_problem

AXES = ("sequence", "position", "hidden unit")


def _hidden(seed: int) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.relu(torch.randn(2, 16, 10, generator=generator))  # (batch, len, d_ff)


@pytest.mark.parametrize("p", [0.1, 0.3, 0.5, 0.9])
def test_an_independent_draw_is_never_named(p):
    for seed in range(40):
        hidden = _hidden(seed)
        torch.manual_seed(seed)
        dropped = nn.Dropout(p).train()(hidden)
        assert dropout_pattern_problem(hidden, dropped, p, AXES, unit="unit") == ""


def test_whole_positions_zeroed_name_the_channel_wise_module():
    hidden = _hidden(1)
    holder = nn.Module()
    holder.drop = nn.Dropout1d(0.4)
    torch.manual_seed(0)
    problem = dropout_pattern_problem(
        hidden, holder.drop.train()(hidden), 0.4, AXES, unit="unit", holder=holder
    )
    assert "zeroes whole positions" in problem
    assert "`self.drop` is an nn.Dropout1d" in problem


def test_a_mask_shared_by_every_sequence_is_named():
    hidden = _hidden(2)
    torch.manual_seed(0)
    keep = (torch.rand(16, 10) >= 0.5).double()  # (len, d_ff), one mask for the batch
    problem = dropout_pattern_problem(hidden, hidden * keep * 2, 0.5, AXES, unit="unit")
    assert "zeroes the same units in every sequence" in problem


def test_kept_values_left_unscaled_and_a_rate_of_one_are_named():
    hidden = _hidden(3)
    torch.manual_seed(0)
    keep = (torch.rand_like(hidden) >= 0.3).double()
    unscaled = dropout_pattern_problem(hidden, hidden * keep, 0.3, AXES, unit="unit")
    assert "without dividing by (1 - p)" in unscaled
    everything = dropout_pattern_problem(hidden, hidden * 0, 0.3, AXES, unit="unit")
    assert "acts as if p were 1" in everything


def test_something_other_than_a_dropout_is_left_to_the_value_checks():
    hidden = _hidden(4)
    assert dropout_pattern_problem(hidden, hidden + 1, 0.3, AXES, unit="unit") == ""
    assert dropout_pattern_problem(hidden, hidden[:1], 0.3, AXES, unit="unit") == ""


def test_one_draw_per_sequence_is_named_stochastic_depth():
    """Stochastic depth (DropPath) in a dropout's place: every value of a sequence kept or
    zeroed together; named before the channel-wise reading (whole positions), which the
    same mask also fits."""
    generator = torch.Generator().manual_seed(3)
    hidden = torch.randn(8, 5, 6, generator=generator)
    keep = torch.tensor([1.0, 0, 1, 1, 0, 0, 1, 0]).view(8, 1, 1)
    problem = dropout_pattern_problem(hidden, hidden * keep / 0.5, 0.5, AXES, unit="unit")
    assert "zeroes whole sequences: one draw per sequence" in problem
    assert "stochastic depth" in problem
