"""checking.extra_parameters: a module's own tensors that its contract does not have
(a gate, a scale on a branch) named with their shapes and values at construction; a
buffer, a bias or a submodule's key is left to the other key messages."""

from __future__ import annotations

import torch
from torch import nn

from transformer_course.checking.extra_parameters import extra_tensors_note


class _Gated(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Linear(4, 4)
        self.gate = nn.Parameter(torch.zeros(()))
        self.scale = nn.Parameter(torch.full((4,), 0.5))
        self.register_buffer("table", torch.ones(3))


def _state(module: nn.Module) -> dict:
    return module.state_dict(keep_vars=True)


def test_extra_parameters_are_named_with_shape_and_value():
    note = extra_tensors_note("Gated()", "Gated", ["gate", "scale"], _state(_Gated()))
    assert "has 2 extra learned tensors" in note
    assert "`gate` (one number, 0 at construction)" in note
    assert "`scale` (4 numbers, shape (4,), all 0.5 at construction)" in note
    assert "At construction `gate` is 0" in note


def test_buffers_biases_and_submodule_keys_are_left_alone():
    state = _state(_Gated())
    assert extra_tensors_note("Gated()", "Gated", ["table"], state) == ""
    assert extra_tensors_note("Gated()", "Gated", ["inner.weight"], state) == ""
    module = _Gated()
    module.bias = nn.Parameter(torch.zeros(4))
    assert extra_tensors_note("Gated()", "Gated", ["bias"], _state(module)) == ""
    assert extra_tensors_note("Gated()", "Gated", [], state) == ""
