"""checking.temperature.confirmed_temperature: a softmax of its scores times one factor,
measured on one input and confirmed on a second, named only when the factor is known."""

import math

import pytest
import torch

from transformer_course.checking.temperature import confirmed_temperature, temperature_sentence

_SCORES = torch.tensor([[0.3, -1.2, 2.0, 0.5], [1.0, 0.0, -0.5, 0.25]])  # (2, 4)
_PROBE = torch.tensor([[2.0, -1.0, 0.5], [0.0, 1.5, -2.5]])  # (2, 3)


@pytest.mark.parametrize("factor", [math.log(2.0), 0.25, 3.0])
def test_a_constant_factor_is_measured_and_confirmed(factor):
    def learner(scores):
        return torch.softmax(scores * factor, dim=-1)

    got = learner(_SCORES)
    assert confirmed_temperature(got, _SCORES, learner, _PROBE) == pytest.approx(factor, rel=1e-4)


def test_a_factor_the_second_input_does_not_share_is_not_named():
    def learner(scores):  # a data-dependent scale: the largest score divided out
        return torch.softmax(scores / scores.abs().max(), dim=-1)

    assert confirmed_temperature(learner(_SCORES), _SCORES, learner, _PROBE) is None


def test_right_softmin_and_failing_reruns_give_none():
    right = torch.softmax(_SCORES, dim=-1)
    assert confirmed_temperature(right, _SCORES, lambda s: torch.softmax(s, -1), _PROBE) is None
    softmin = torch.softmax(-_SCORES, dim=-1)
    assert confirmed_temperature(softmin, _SCORES, lambda s: softmin, _PROBE) is None

    def raises(scores):
        raise RuntimeError("learner code")

    halved = torch.softmax(_SCORES / 2, dim=-1)
    assert confirmed_temperature(halved, _SCORES, raises, _PROBE) is None


def test_the_sentence_names_only_known_factors():
    assert "base 2" in temperature_sentence(math.log(2.0))
    assert "flatter" in temperature_sentence(math.log(2.0))
    unknown = temperature_sentence(0.37)
    assert "times 0.37" in unknown and "belongs, so" in unknown
