"""checking.stale.answers_on_repeat: the same call made several times in a row, the
answers that tell state kept between calls (a counter, a growing list) from a function of
its arguments alone."""

from __future__ import annotations

import torch
from torch import nn

from transformer_course.checking.stale import (
    answers_on_repeat,
    layer_calls_during,
    module_keeps_state,
)


def test_a_function_of_its_arguments_gives_the_same_answer_every_time():
    assert answers_on_repeat(lambda x, y: x * y, (3, 4)) == [12, 12, 12]


def test_a_counter_kept_on_the_function_changes_the_answers():
    def counted(step):
        counted.calls = getattr(counted, "calls", 0) + 1
        return step + counted.calls

    answers = answers_on_repeat(counted, (10,), times=3)
    assert answers == [11, 12, 13]


def test_a_raising_function_gives_none():
    def raises(_x):
        raise ValueError("no")

    assert answers_on_repeat(raises, (1,)) is None


class _CachedByShape(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(3, 3)
        torch.nn.init.eye_(self.linear.weight)
        torch.nn.init.zeros_(self.linear.bias)

    def forward(self, x):
        if getattr(self, "_out", None) is None or self._out.shape != x.shape:
            self._out = self.linear(x)
        return self._out


def test_a_module_that_caches_by_shape_is_told_from_a_fresh_one():
    first, second = torch.zeros(2, 3), torch.ones(2, 3)

    def same(got, want):
        return torch.allclose(got, want)

    assert module_keeps_state(_CachedByShape, (first,), (second,), second, same)
    # a wrong module that keeps nothing (wrong on its own too) is not this family's
    assert not module_keeps_state(lambda: nn.Identity(), (first,), (second,), 2 * second, same)


def test_a_call_that_runs_no_layer_is_counted_as_such():
    module = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    assert layer_calls_during(module, lambda: module(torch.ones(1, 2))) == 2
    assert layer_calls_during(module, lambda: torch.ones(1, 2)) == 0
