"""fitted_form: a tensor written as the fewest terms of known forms, or None."""

import torch

from transformer_course.checking.elementwise_forms import fitted_form, form_text


def _operands():
    generator = torch.Generator().manual_seed(0)
    a = torch.randn(3, 5, generator=generator)  # (3, 5)
    b = torch.randn(3, 5, generator=generator)
    return a, b


def test_a_product_plus_an_extra_term_is_found_with_its_coefficient():
    a, b = _operands()
    terms = {"a * b": a * b, "a": a, "b": b}
    form = fitted_form(a * b - 2 * b, terms)
    assert form is not None
    assert form_text(form) == "a * b - 2 · b"


def test_two_sets_that_fit_alike_give_no_answer():
    a, b = _operands()
    # the same column under two names: the values cannot tell them apart
    assert fitted_form(a * b + a, {"a * b": a * b, "a": a, "a again": a.clone()}) is None


def test_nothing_fits_a_tensor_outside_the_terms():
    a, b = _operands()
    assert fitted_form(torch.sin(a) * b, {"a * b": a * b, "a": a, "b": b}) is None
