"""checking.backward_pass: a right forward whose backward pass raises because a saved
tensor was overwritten in place names the in-place submodule, and says nothing on values
without a graph (the grader's) or on a backward that runs."""

from __future__ import annotations

import torch
from torch import nn

from transformer_course.checking.backward_pass import backward_problem, in_place_submodules


class _Block(nn.Module):
    def __init__(self, inplace_dropout: bool):
        super().__init__()
        self.linear = nn.Linear(4, 6)
        self.dropout = nn.Dropout(0.5, inplace=inplace_dropout)

    def forward(self, x):  # (batch, 4) -> (batch, 6)
        return self.dropout(torch.sigmoid(self.linear(x)))


def test_in_place_dropout_after_sigmoid_is_named():
    block = _Block(inplace_dropout=True).train()
    x = torch.randn(3, 4)
    said = backward_problem(block, (x,), "block(x)")
    assert "the output of Sigmoid" in said
    assert "`self.dropout` is nn.Dropout(0.5, inplace=True)" in said


def test_out_of_place_block_and_detached_values_say_nothing():
    block = _Block(inplace_dropout=False).train()
    x = torch.randn(3, 4)
    assert backward_problem(block, (x,), "block(x)") == ""
    in_place = _Block(inplace_dropout=True).train()
    # values handed back without their graph (the grader): no backward to run
    assert backward_problem(in_place, lambda: in_place(x).detach(), "block(x)") == ""
    assert in_place_submodules(nn.Sequential(nn.ReLU(inplace=True), nn.Dropout())) == [
        "`self.0` is nn.ReLU(inplace=True)"
    ]
