"""checking.input_gradients: a right output whose graph does not reach one of its inputs
(memory.detach() in a decoder), or whose parameters get no gradient."""

from __future__ import annotations

import torch
from torch import nn

from transformer_course.checking.input_gradients import (
    cut_off_text,
    inputs_without_gradient,
    parameters_without_gradient,
    submodules_named,
)


def _call(fn, *args, call_repr=""):
    return fn(*args)


class _Mix(nn.Module):
    """x + linear(memory), with switches for the ways of cutting an input off."""

    def __init__(self, cut: str = ""):
        super().__init__()
        self.linear = nn.Linear(4, 4)
        self.cut = cut

    def forward(self, x, memory):
        if self.cut == "memory":
            memory = memory.detach()
        if self.cut == "x":
            x = x.data
        if self.cut == "all":
            with torch.no_grad():
                return x + self.linear(memory)
        return x + self.linear(memory)


def _inputs():
    gen = torch.Generator().manual_seed(0)
    return torch.randn(2, 4, generator=gen), torch.randn(2, 4, generator=gen)


def _cut(module):
    x, memory = _inputs()
    right = x + module.linear(memory)
    upstream = torch.ones(2, 4)
    return inputs_without_gradient(
        _call, module, (x, memory), {0: "x", 1: "memory"}, right, upstream, "mix(x, memory)"
    )


def test_every_input_reached_gives_an_empty_dict():
    assert _cut(_Mix()) == {}


def test_a_detached_input_is_named_with_its_gradient_none():
    assert _cut(_Mix("memory")) == {"memory": "None"}
    assert _cut(_Mix("x")) == {"x": "None"}


def test_another_output_is_left_to_the_checks_of_the_values():
    module = _Mix()
    x, memory = _inputs()
    found = inputs_without_gradient(
        _call, module, (x, memory), {0: "x"}, x * 2, torch.ones(2, 4), "mix(x, memory)"
    )
    assert found is None


def test_the_callers_tensors_are_left_as_they_are():
    x, memory = _inputs()
    module = _Mix()
    inputs_without_gradient(
        _call, module, (x, memory), {0: "x", 1: "memory"}, x + module.linear(memory),
        torch.ones(2, 4), "mix",
    )  # fmt: skip
    assert not x.requires_grad and not memory.requires_grad and x.grad is None


def test_parameters_under_no_grad_get_none_and_are_grouped_by_submodule():
    x, memory = _inputs()
    frozen = parameters_without_gradient(
        _call, _Mix("all"), (x.requires_grad_(), memory), torch.ones(2, 4), "mix"
    )
    assert frozen == ["linear.weight", "linear.bias"]
    assert submodules_named(["layers.0.a.weight", "layers.0.b.bias", "layers.1.a.weight"]) == [
        "layers.0",
        "layers.1",
    ]


def test_the_text_names_the_input_and_where_it_enters():
    text = cut_off_text("decoder(x, memory)", "memory", "None", "the layers")
    assert "no gradient flows back from it into `memory` (its gradient is None)" in text
    assert "memory enters the layers cut off from the graph" in text
