"""checking.output_functions: one elementwise step applied after the last one."""

import torch

from transformer_course.checking.output_functions import output_function


def _logits():
    return 8 * torch.randn(2, 5, 11, generator=torch.Generator().manual_seed(4))


def test_each_step_is_named_with_its_parameter():
    e = _logits()
    said = output_function(20 * torch.tanh(e / 20), e, "logits")
    assert said.startswith("Your logits are the right ones soft-capped: 20 * tanh(logits / 20)")
    assert "multiplied by 0.5" in output_function(e / 2, e)
    assert "with 3 added" in output_function(e + 3, e)
    assert "clamped at ±10" in output_function(e.clamp(-10, 10), e)


def test_nothing_is_said_for_the_right_values_or_another_change():
    e = _logits()
    assert output_function(e, e) == ""
    assert output_function(e.flip(-1), e) == ""
    assert output_function(torch.softmax(e, -1), e) == ""
