"""A keyword default that is not the contract's, named for any function exercise
(``checking.defaults.replayed_default``): the answer, called again with the argument its
wrong calls left out passed explicitly, gives the reference's results. Blind round 21's
``top_k=1`` in ``sample`` was told its temperature branch always runs; these are other
members of the family, in other exercises, and mistakes that a passed argument does not
repair, which must not be told about a default."""

from __future__ import annotations

import inspect
import textwrap

import pytest

from transformer_course.checking.failure import CheckFailure
from transformer_course.checks.language_model import check_rotary_embedding, check_sample
from transformer_course.checks.training import check_beam_search, check_label_smoothed_loss
from transformer_course.reference import language_model as lm_ref
from transformer_course.reference import training as training_ref

DEFAULT_NAMED = r"So the default of `{name}` in your signature is not {value}"


def _edited(module, function, old: str, new: str):
    """The reference ``function`` of ``module`` with one piece of its code changed."""
    source = textwrap.dedent(inspect.getsource(getattr(module, function)))
    assert old in source, (function, old)
    namespace = dict(vars(module))
    exec(source.replace(old, new, 1), namespace)
    return namespace[function]


def _message(check, fn, hidden: bool = False) -> str:
    with pytest.raises(CheckFailure) as failure:
        check(fn, hidden=hidden)
    return failure.value.message


@pytest.mark.parametrize(
    ("check", "module", "function", "old", "new", "name", "value"),
    [
        (
            check_rotary_embedding,
            lm_ref,
            "rotary_embedding",
            "base: float = 10000.0",
            "base: float = 1000.0",
            "base",
            "10000.0",
        ),
        (
            check_sample,
            lm_ref,
            "sample",
            "top_p: float | None = None",
            "top_p: float | None = 0.9",
            "top_p",
            "None",
        ),
        (
            check_label_smoothed_loss,
            training_ref,
            "label_smoothed_loss",
            "smoothing: float = 0.1",
            "smoothing: float = 0.0",
            "smoothing",
            "0.1",
        ),
        (
            check_beam_search,
            training_ref,
            "beam_search",
            "length_penalty: float = 0.0",
            "length_penalty: float = 1.0",
            "length_penalty",
            "0.0",
        ),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_a_default_other_than_the_contract_s_is_named(
    check, module, function, old, new, name, value
):
    fn = _edited(module, function, old, new)
    for hidden in (False, True):
        text = _message(check, fn, hidden)
        assert DEFAULT_NAMED.format(name=name, value=value) in text, text


def test_label_smoothing_calls_without_its_defaulted_argument():
    """Before, every call passed smoothing (beam_search's length_penalty is in the table above):
    a default of 0.0 (no smoothing when the training loop leaves it out) passed both runs."""
    fn = _edited(
        training_ref, "label_smoothed_loss", "smoothing: float = 0.1", "smoothing: float = 0.0"
    )
    assert "smoothing left out" in _message(check_label_smoothed_loss, fn)


def test_a_mistake_that_passing_the_argument_does_not_repair_is_not_told_a_default():
    """Always the argmax (the temperature branch run whatever the temperature) is wrong with
    top_k=None passed too: no default is named."""
    fn = _edited(lm_ref, "sample", "if temperature == 0", "if True")
    text = _message(check_sample, fn)
    assert "default" not in text, text
    fn = _edited(
        training_ref, "label_smoothed_loss", "smoothing: float = 0.1", "smoothing: float = 0.2"
    )
    # every call wrong, also those that pass smoothing: only the default call could be
    # told about a default, and a wrong formula is not one
    wrong_formula = _edited(
        training_ref, "label_smoothed_loss", "loss = (1 - smoothing)", "loss = (1 + smoothing)"
    )
    assert "default" not in _message(check_label_smoothed_loss, wrong_formula)
    assert DEFAULT_NAMED.format(name="smoothing", value="0.1") in _message(
        check_label_smoothed_loss, fn
    )


def test_the_contract_s_defaults_written_another_way_are_accepted():
    fn = _edited(
        training_ref, "label_smoothed_loss", "smoothing: float = 0.1", "smoothing: float = 1e-1"
    )
    for hidden in (False, True):
        check_label_smoothed_loss(fn, hidden=hidden)
