"""checking.term_factors: a sum whose terms carry the wrong weights is named term by term,
and nothing is said where the weights cannot be told apart or no weighting fits."""

from __future__ import annotations

import torch

from transformer_course.checking.term_factors import term_factors, term_factors_message


def _terms(seed: int = 0) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return {"x": torch.randn(2, 5, 8, generator=g), "PE[:len]": torch.randn(5, 8, generator=g)}


def test_each_wrong_weight_is_named():
    t = _terms()
    assert term_factors(t["x"] + 0.5 * t["PE[:len]"], t) == {"x": 1, "PE[:len]": 0.5}
    message = term_factors_message(t["x"] + 0.5 * t["PE[:len]"], t)
    assert "`PE[:len]` is multiplied by 0.5 = 1/2" in message
    assert "`x` is" not in message
    assert "is added twice" in term_factors_message(t["x"] + 2 * t["PE[:len]"], t)
    assert "is subtracted" in term_factors_message(t["x"] - t["PE[:len]"], t)
    assert "`x` is missing" in term_factors_message(t["PE[:len]"].expand(2, 5, 8), t)
    assert "1/sqrt(8)" in term_factors_message(t["x"] + t["PE[:len]"] / 8**0.5, t)


def test_the_right_sum_and_unrelated_values_say_nothing():
    t = _terms()
    assert term_factors(t["x"] + t["PE[:len]"], t) is None
    assert term_factors_message(t["x"] + t["PE[:len]"].roll(1, 0), t) == ""
    assert term_factors_message(torch.tanh(t["x"]) + t["PE[:len]"], t) == ""


def test_collinear_terms_name_nothing():
    """Two terms that are multiples of each other fit many weightings: no claim."""
    x = _terms()["x"]
    assert term_factors(3 * x, {"a": x, "b": 2 * x}) is None
