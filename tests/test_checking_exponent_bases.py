"""checking.exponent_bases: a softmax's numerator and denominator in different bases."""

import math

import torch

from transformer_course.checking.exponent_bases import bases_sentence, mixed_bases


def _mixed(x, a, b):
    m = x.amax(-1, keepdim=True)
    return torch.exp(a * (x - m)) / torch.exp(b * (x - m)).sum(-1, keepdim=True)


def test_mixed_bases_measures_the_numerators_and_the_sums_factor():
    x = torch.randn(3, 4, 9, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    a, b = mixed_bases(_mixed(x, math.log(2), 1.0), x)
    assert math.isclose(a, math.log(2), rel_tol=1e-4) and math.isclose(b, 1.0, rel_tol=1e-4)
    a, b = mixed_bases(_mixed(x, 1.0, 1 / math.log(2)), x)
    assert math.isclose(b, 1 / math.log(2), rel_tol=1e-4)
    said = bases_sentence(math.log(2), 1.0, "final numerator", "running sum")
    assert said.startswith("Your final numerator is 2 ** (x - m) (torch.exp2 of x - m, without")


def test_mixed_bases_leaves_a_softmax_at_any_temperature_and_other_slips_alone():
    x = torch.randn(2, 7, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    assert mixed_bases(torch.softmax(x, -1), x) is None
    assert mixed_bases(torch.softmax(math.log(2) * x, -1), x) is None  # a temperature
    assert mixed_bases(torch.softmax(x, -1) * 2, x) is None  # not a sum of exponentials
    assert mixed_bases(torch.softmax(x, -1).flip(-1), x) is None
