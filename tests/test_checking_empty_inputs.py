"""checking.empty_inputs: an IndexError raised by a call whose sequence argument is empty is
told as such (nothing to read), not as a loop bound one too far."""

from __future__ import annotations

import numpy as np
import pytest

from transformer_course.checking import Checker, CheckFailure
from transformer_course.checking.empty_inputs import empty_arguments, empty_input_hint


def first_and_rest(ids):
    out = [ids[0]]  # raises on an empty list only
    out += ids[1:]
    return out


def last_row(rows):
    return np.asarray(rows)[-1]


def test_empty_arguments_names_lists_tuples_and_arrays_of_size_0():
    names = ["a", "b", "c", "d", "e"]
    values = [[], (), np.zeros((0, 3)), [1], ""]
    assert empty_arguments(names, values) == ["a", "b", "c"]


def test_the_hint_needs_an_index_error_and_an_empty_argument():
    assert empty_input_hint(ValueError("index out of range"), ["ids"], [[]]) == ""
    assert empty_input_hint(IndexError("list index out of range"), ["ids"], [[1]]) == ""
    assert "ids is empty" in empty_input_hint(IndexError("list index out of range"), ["ids"], [[]])


@pytest.mark.parametrize("fn, arg", [(first_and_rest, []), (last_row, np.zeros((0, 2)))])
def test_a_call_on_an_empty_input_is_told_so_and_not_a_loop_bound(fn, arg):
    with pytest.raises(CheckFailure) as failure, Checker("demo") as c:
        c.call(fn, arg, hints=[(IndexError, "Your loop read past the end")])
    message = failure.value.message
    assert "is empty, and your code read an element that does not exist" in message
    assert "loop read past the end" not in message
    assert "one too far" not in message


def test_a_non_empty_input_keeps_the_exercise_hints():
    with pytest.raises(CheckFailure, match="Your loop read past the end"), Checker("demo") as c:
        c.call(
            lambda ids: ids[len(ids)], [1, 2], hints=[(IndexError, "Your loop read past the end")]
        )
