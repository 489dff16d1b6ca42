"""The concept-question check's readings of an answer in another form (checking.quiz)."""

import pytest

from transformer_course.checking.failure import CheckFailure
from transformer_course.checking.quiz import (
    Quiz,
    operator_slip,
    power_misreadings,
    quiz_check,
)

_AXES = Quiz(
    name="quiz_axes",
    answer="b",
    choices={"a": "the first axis", "b": "the last axis", "c": "no axis"},
    why={"a": "Not that one.", "b": "Right.", "c": "Not that either."},
    meant={-1: ("b", "the axis -1, the last"), 0: ("a", "the axis 0, the first")},
)


def _message(check, value) -> str:
    with pytest.raises(CheckFailure) as failure:
        check(lambda: value)
    return str(failure.value)


def test_an_answer_that_stands_for_a_choice_is_told_which_and_its_letter():
    check = quiz_check(_AXES)
    said = _message(check, -1)
    assert "the axis -1, the last, which is choice (b)" in said and 'return "b"' in said
    assert "an int" in said
    # a value that stands for a wrong choice: told which, and why that choice is wrong
    said = _message(check, 0.0)
    assert "choice (a)" in said and "(a) is not right either. Not that one." in said
    assert 'return "a"' not in said
    # True == 1 is not read as an axis; a number that stands for nothing keeps the old form
    assert "choice" not in _message(check, 7)
    assert "which is choice" not in _message(check, True)
    check(lambda: "b")


def test_a_mistyped_power_is_named():
    assert [value for value, _, _ in power_misreadings(2, 20)] == [22, 40]
    assert "one asterisk is missing" in power_misreadings(2, 20, "divides by")[1][2]
    assert "divides by 40 instead of 1048576" in power_misreadings(2, 20, "divides by")[1][2]
    said = operator_slip(3 / 2 * 10, "3 / 2**10", 1e-9)
    assert "3 / 2*10" in said and "one asterisk is missing" in said
    assert "xor" in operator_slip(3 / (2 ^ 10), "3 / (2**10)", 1e-9)
    assert operator_slip(3 / 2**10, "3 / 2**10", 1e-9) == ""  # the right number
    assert operator_slip(5.0, "3 / 2**10", 1e-9) == ""


def test_a_choice_written_as_a_value_and_nan_are_read():
    shapes = Quiz(
        name="quiz_shapes",
        answer="a",
        choices={"a": "(2, 5, 7)", "b": "(2, 7, 5)", "c": "[1, 2]"},
        why={"a": "Right.", "b": "Transposed.", "c": "A list."},
        meant={float("nan"): ("b", "NaN, a value")},
    )
    check = quiz_check(shapes)
    assert "which is choice (a), (2, 5, 7)" in _message(check, [2, 5, 7])
    assert "(b) is not right either. Transposed." in _message(check, (2, 7, 5))
    assert "which is choice (c)" in _message(check, (1, 2))
    assert "NaN, a value, which is choice (b)" in _message(check, float("nan"))
    assert "which is choice" not in _message(check, (9, 9))


def test_a_number_off_by_a_mistyped_power_is_named_in_any_numeric_quiz():
    from transformer_course.checking.relations import number_relation

    said = number_relation(5 * 2**20 / 40, 5)
    assert "2*20 = 40 where 2**20 = 1048576 belongs (one asterisk missing" in said
    said = number_relation(5 * 2**20 / 60, 5)  # 2*30 or 10*6: both named, another unit too
    assert "2*30 = 60" in said and "10*6 = 60" in said and "another unit" in said
    assert "exclusive or" in number_relation(5 * 22 / 2**20, 5)
    # a whole factor (1024 / (2 ^ 10) = 128) has other readings: not said to be a power
    assert "mistyped" not in number_relation(5 * 128, 5)
