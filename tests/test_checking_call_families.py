"""The shared families of blind round 12 (lessons 03-04), on plain functions: arguments
in another order, state kept between calls, dropout's placement, a flat vector where a
column belongs, an axis dropped only at length 1, rounded values, a reshape for a move."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from transformer_course.checking.arguments import arguments_swapped
from transformer_course.checking.dropout_placement import fitting_placements, sum_placements
from transformer_course.checking.reshape_moves import reshape_along, reshaped_instead
from transformer_course.checking.rounding import rounded_variants
from transformer_course.checking.size_one_axes import dropped_only_at_one, flat_vector_broadcast
from transformer_course.checking.stale import earlier_call, kept_between_calls


def power(base, exponent):
    return base**exponent


def test_arguments_swapped_tells_the_signature_from_the_body():
    def signature(exponent, base):
        return base**exponent

    def body(base, exponent):
        return exponent**base

    right = lambda value: value == 8  # noqa: E731
    names = ("base", "exponent")
    assert "another order" in arguments_swapped(signature, (2, 3), names, right)
    assert "exchanged" in arguments_swapped(body, (2, 3), names, right)
    assert arguments_swapped(power, (2, 3), names, lambda value: value == 7) == ""
    assert arguments_swapped(lambda base, exponent: base * exponent, (2, 3), names, right) == ""


def test_state_kept_between_calls_is_told_from_a_constant():
    cache: dict = {}

    def cached(base, exponent):
        return cache.setdefault(base, base**exponent)

    def constant(base, exponent):
        return base**3

    same = lambda a, b: a == b  # noqa: E731
    assert earlier_call(cached(2, 3) and cached(2, 5), [(2, 3)], (2, 5), power, same) == (2, 3)
    assert kept_between_calls(cached, (7, 1), (7, 2), power, same)
    assert not kept_between_calls(constant, (7, 1), (7, 2), power, same)
    assert not kept_between_calls(power, (7, 1), (7, 2), power, same)


@pytest.mark.parametrize(
    ("place", "expected"),
    [
        (lambda d, x, t: d(x + t), ""),
        (lambda d, x, t: d(d(x) + t), "twice: to x"),
        (lambda d, x, t: d(d(x + t)), "twice to the sum"),
        (lambda d, x, t: d(x) + d(t), "separately"),
        (lambda d, x, t: d(x) + t, "x alone"),
        (lambda d, x, t: x + d(t), "PE alone"),
    ],
)
def test_dropout_placement_is_read_from_one_draw(place, expected):
    gen = torch.Generator().manual_seed(0)
    x, t = torch.randn(3, 5, generator=gen), torch.randn(3, 5, generator=gen) + 3.0
    torch.manual_seed(1)
    out = place(torch.nn.Dropout(0.5).train(), x, t)
    fits = fitting_placements(out, (x, t), sum_placements(0.5, "x", "PE"))
    assert fits and (expected in fits[0] if expected else fits[0] == "")


def test_flat_vectors_and_rows_name_the_missing_column():
    def error(a, b):
        with pytest.raises(ValueError) as info:
            a * b
        return info.value

    names = {6: "positions", 2: "pairs"}
    assert "must be a column" in flat_vector_broadcast(error(np.ones(6), np.ones(2)), names)
    assert "*last* axis" in flat_vector_broadcast(error(np.ones(6), np.ones((6, 4))), {6: "keys"})
    assert flat_vector_broadcast(error(np.ones((2, 3)), np.ones((4, 5))), names) == ""


def test_an_axis_dropped_only_at_length_one_is_a_squeeze():
    assert "squeeze" in dropped_only_at_one((5, 3), (1, 5, 3), lambda axes: True)
    assert dropped_only_at_one((5, 3), (1, 5, 3), lambda axes: False) == ""
    assert dropped_only_at_one((5, 3), (2, 5, 3), lambda axes: True) == ""


def test_rounded_variants_differ_on_negative_values():
    variants = list(rounded_variants(np.array([-1.5, 0.4, 2.6])).values())
    assert not np.array_equal(variants[0], variants[1])  # floor and truncation


def test_a_reshape_is_no_move():
    x = np.arange(6.0).reshape(2, 3)
    (moved,) = reshaped_instead(x, 0, 1).values()
    assert moved.shape == (3, 2) and not np.array_equal(moved, x.T)
    assert reshaped_instead(np.ones((1, 4)), 0, 1) == {}
    rows = reshape_along(lambda a, along: np.cumsum(a, axis=along), x, 0)
    assert rows and all(v.shape == x.shape for v in rows.values())
