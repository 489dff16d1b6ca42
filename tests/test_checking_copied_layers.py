"""checking.copied_layers: stacked layers that start from the same weights."""

import copy

from torch import nn

from transformer_course.checking.copied_layers import copied_layers_note


def _stack(layers):
    model = nn.Module()
    model.layers = nn.ModuleList(layers)
    return model.state_dict()


def test_fresh_layers_say_nothing():
    assert copied_layers_note(_stack([nn.Linear(4, 4) for _ in range(3)]), "layers", "M") == ""


def test_deep_copies_are_told_as_copies():
    one = nn.Linear(4, 4)
    note = copied_layers_note(_stack([copy.deepcopy(one) for _ in range(3)]), "layers", "M()")
    assert "all start from the same random weights" in note and "copy.deepcopy" in note


def test_one_layer_registered_several_times_is_told_as_shared():
    one = nn.Linear(4, 4)
    note = copied_layers_note(_stack([one] * 2), "layers", "M()")
    assert "share their parameters" in note


def test_one_layer_says_nothing():
    assert copied_layers_note(_stack([nn.Linear(4, 4)]), "layers", "M") == ""
