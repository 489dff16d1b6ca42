"""checking.auxiliary_terms: an extra term is named only when one coefficient fits the
difference on every input, and every candidate that fits as well is named with it."""

from __future__ import annotations

import pytest

from transformer_course.checking.auxiliary_terms import fitted_terms


def test_one_coefficient_on_every_input_names_the_term():
    candidates = [{"square": 4.0, "plain": 2.0}, {"square": 9.0, "plain": 3.0}]
    differences = [1e-4 * 4.0, 1e-4 * 9.0]
    (name, coefficient), *rest = fitted_terms(differences, candidates)
    assert name == "square" and coefficient == pytest.approx(1e-4) and not rest


def test_candidates_the_inputs_cannot_tell_apart_are_named_together():
    candidates = [{"a": 1.0, "b": 2.0}, {"a": 3.0, "b": 6.0}]  # b = 2a on both inputs
    found = fitted_terms([0.5, 1.5], candidates)
    assert [name for name, _ in found] == ["a", "b"]


def test_nothing_for_rounding_one_input_or_no_fit():
    candidates = [{"a": 1.0}, {"a": 2.0}]
    assert fitted_terms([1e-9, 2e-9], candidates) == []  # below the floor: rounding
    assert fitted_terms([0.5], candidates[:1]) == []  # one input fits anything
    assert fitted_terms([0.5, 0.7], candidates) == []  # no single coefficient
    assert fitted_terms([0.5, 1.0], [{"a": 0.0}, {"a": 2.0}]) == []  # a zero candidate
