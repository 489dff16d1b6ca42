"""Axes of length 1 lost or added (transformer_course.checking.size_one_axes), named by
every check's shape comparison: a .squeeze() that also drops the axes the input happens to
have, an index [0], a reduction without keepdims, or a [None] / unsqueeze too many."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch

from transformer_course.checking import Checker, CheckFailure
from transformer_course.checking.size_one_axes import (
    permuted_axes,
    size_one_axes,
    size_one_axes_change,
    size_one_axes_note,
)
from transformer_course.checks.tokenization import check_pad_batch
from transformer_course.checks.welcome import check_center_rows
from transformer_course.reference import tokenization as ref_tokenization


@pytest.mark.parametrize(
    ("got", "shape", "words"),
    [
        (
            (),
            (1, 1),
            r"every axis of length 1 \(axes 0, 1\) dropped: \.squeeze\(\).* removes every axis of length 1",
        ),
        ((3,), (1, 3, 1), r"every axis of length 1 \(axes 0, 2\) dropped"),
        ((5,), (1, 5), r"its axis 0 of length 1 dropped"),
        ((2, 3), (2, 1, 3), r"its axis 1 of length 1 dropped"),
        ((1, 3), (1, 1, 3), r"its axis 0 of length 1 dropped"),
        ((1, 2, 3), (2, 3), r"extra axis of length 1 at position 0"),
        ((2, 3, 1), (2, 3), r"extra axis of length 1 at position 2"),
    ],
)
def test_size_one_axes_are_named(got, shape, words):
    assert re.search(words, size_one_axes(got, shape))


@pytest.mark.parametrize(
    ("got", "shape"),
    [((2, 3), (2, 3)), ((6,), (2, 3)), ((4,), (1, 1)), ((3, 2), (2, 3)), ((2, 2, 3), (2, 3))],
)
def test_other_shapes_are_not_called_a_size_one_axis(got, shape):
    assert size_one_axes(got, shape) == ""


def center_rows_squeezed(x):  # a batch of one row loses its axis
    return np.squeeze(x - x.mean(axis=-1, keepdims=True))


def center_rows_with_a_new_axis(x):  # the other member: an axis of length 1 added
    return (x - x.mean(axis=-1, keepdims=True))[None]


def pad_batch_squeezed(sequences, pad_id):  # a batch of one sequence loses its axis
    return ref_tokenization.pad_batch(sequences, pad_id).squeeze()


@pytest.mark.parametrize(
    ("check", "fn", "message", "runs"),
    [
        (
            check_center_rows,
            center_rows_squeezed,
            r"(axis 0 of length 1|every axis of length 1 \(axes 0, 1\)) dropped",
            (0, 1),
        ),
        (
            check_center_rows,
            center_rows_with_a_new_axis,
            r"extra axis of length 1 at position 0 \(a \[None\]",
            (0, 1),
        ),
        (check_pad_batch, pad_batch_squeezed, r"its axis 0 of length 1 dropped", (1,)),
    ],
)
def test_checks_name_the_size_one_axis(check, fn, message, runs):
    for hidden in runs:
        with pytest.raises(CheckFailure, match=message):
            check(fn, hidden=bool(hidden))


@pytest.mark.parametrize(
    ("got", "shape", "words"),
    [
        ((3, 2), (2, 3), r"transposed, its two axes swapped"),
        ((4, 2, 3), (2, 3, 4), r"yours holds axes \(2, 0, 1\) of the expected one"),
    ],
)
def test_permuted_axes_are_named(got, shape, words):
    assert re.search(words, permuted_axes(got, shape))


@pytest.mark.parametrize(
    ("got", "shape"), [((2, 3), (2, 3)), ((2, 2), (2, 2)), ((3, 3, 2), (3, 2, 3)), ((6,), (2, 3))]
)
def test_other_shapes_are_not_called_permuted(got, shape):
    # equal sizes make the order unknowable: (3, 3, 2) against (3, 2, 3) is not named
    assert permuted_axes(got, shape) == ""


def test_checks_explain_shapes_unless_switched_off():
    for explain, named in ((False, False), (True, True)):
        with pytest.raises(CheckFailure) as failure, Checker("demo", explain_shapes=explain) as c:
            c.expect_shape(np.zeros((3,)), (1, 3), "demo(x)")
        assert ("axis 0 of length 1 dropped" in str(failure.value)) is named
    with pytest.raises(CheckFailure) as failure, Checker("demo") as c:  # on by default
        c.expect_shape(np.zeros((2, 1, 3, 8)), (2, 3, 8), "demo(x)")
    assert "extra axis of length 1 at position 1" in str(failure.value)


def center_rows_transposed(x):  # a .T on the result
    return (x - x.mean(axis=-1, keepdims=True)).T


def test_center_rows_names_a_transposed_result():
    with pytest.raises(
        CheckFailure, match=r"shape \(3, 2\)\. That is the expected shape transposed"
    ):
        check_center_rows(center_rows_transposed)


def test_lost_added_and_moved():
    expected = torch.arange(6.0).reshape(1, 2, 1, 3)
    assert size_one_axes_change(expected.squeeze(), expected) == "lost"
    assert size_one_axes_change(expected[None], expected) == "added"
    assert size_one_axes_change(expected.reshape(2, 1, 3, 1), expected) == "moved"
    assert "are gone" in size_one_axes_note(expected.squeeze(0), expected)


def test_not_when_the_numbers_or_the_other_sizes_differ():
    expected = torch.arange(6.0).reshape(1, 2, 3)
    assert size_one_axes_change(expected, expected) == ""  # same shape: nothing to say
    assert size_one_axes_change(expected.reshape(3, 2), expected) == ""  # other sizes
    assert size_one_axes_change(expected.transpose(1, 2).squeeze(0), expected) == ""  # moved
    assert size_one_axes_change(expected.squeeze() + 1, expected) == ""  # other values
    assert size_one_axes_change([[0.0, 1.0]], expected) == ""  # not a tensor


def test_bool_and_tolerance():
    mask = torch.tensor([[[[True, False]]]])
    assert size_one_axes_change(mask.squeeze(), mask) == "lost"
    close = torch.tensor([[1.0, 2.0]]) + 1e-7
    assert size_one_axes_change(close.squeeze(), torch.tensor([[1.0, 2.0]]), atol=1e-6) == "lost"


def test_right_numbers_in_permuted_axes_are_told_which_axes_moved():
    from transformer_course.checking.size_one_axes import values_in_permuted_axes

    expected = torch.randn(2, 3, 4)  # (batch, len, d)
    swapped = values_in_permuted_axes(expected.transpose(1, 2), expected)
    assert "axes 1 and 2 swapped: yours is (2, 4, 3) where (2, 3, 4) belongs" in swapped
    rotated = values_in_permuted_axes(expected.permute(2, 0, 1), expected)
    assert "yours holds axes (2, 0, 1) of the expected one" in rotated, rotated
    assert values_in_permuted_axes(expected.transpose(1, 2) + 1, expected) == ""
    assert values_in_permuted_axes(expected.numpy().transpose(0, 2, 1), expected) == ""


def test_several_extra_axes_of_length_one_are_named_with_their_positions():
    from transformer_course.checking.size_one_axes import size_one_axes

    assert "2 extra axes of length 1 (at positions 0, 1" in size_one_axes((1, 1, 6, 4), (6, 4))
    assert "2 extra axes of length 1 (at positions 1, 2" in size_one_axes((6, 1, 1, 4), (6, 4))
    assert size_one_axes((1, 1, 6, 5), (6, 4)) == ""
