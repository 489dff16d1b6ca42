"""checking.failing_line: a raw error's message shows what the names on the learner's
failing line held (shapes and dtypes, lengths, small numbers), and nothing when the line
holds no sized value or the error came from no line of the learner's."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch
from torch import nn

from transformer_course.checking import Checker, CheckFailure
from transformer_course.checking.failing_line import failing_line_values
from transformer_course.reference.attention import scaled_dot_product_attention


def _message(fn, *args):
    with pytest.raises(CheckFailure) as failure, Checker("demo") as c:
        c.call(fn, *args)
    return failure.value.message


def keys_not_transposed(q, k):
    d_k = q.shape[-1]
    return q @ k / d_k**0.5  # (batch, len_q, d_k) @ (batch, len_k, d_k): k.transpose missing


class TableForTheBatch(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("table", torch.zeros(4, 8))  # (max_len, d_model)
        self.scale = 2.0

    def forward(self, x):
        return x * self.scale + self.table[: x.shape[0]]  # rows for the batch, not the length


def pairs_looked_up(pairs):
    first, second = pairs[0]  # a list of ints, not of pairs
    return first + second


def counts_from_a_dict(counts):
    return counts["a"] + 1


@pytest.mark.parametrize(
    "fn, args, expected",
    [
        (
            keys_not_transposed,
            (torch.ones(2, 3, 4), torch.ones(2, 5, 4)),
            r"On your line that raised: q \(2, 3, 4\) float32, k \(2, 5, 4\) float32, "
            r"d_k = 4\.$",
        ),
        (
            TableForTheBatch(),
            (torch.ones(2, 3, 8),),
            r"On your line that raised: x \(2, 3, 8\) float32, self\.scale = 2, "
            r"self\.table \(4, 8\) float32\.$",
        ),
        (
            pairs_looked_up,
            ([1, 2, 3],),
            r"On your line that raised: pairs a list of 3 \(first item 1\)\.$",
        ),
    ],
)
def test_a_raw_error_shows_the_values_on_the_failing_line(fn, args, expected):
    message = _message(fn, *args)
    assert re.search(expected, message, re.MULTILINE), message


def test_a_line_of_numbers_and_unknown_objects_shows_nothing():
    """Only sizes are what a raw error hides: a line whose names hold no tensor, array or
    sequence (a dict, a number) adds nothing."""
    message = _message(counts_from_a_dict, {"b": 1})
    assert "On your line that raised" not in message, message


def test_an_error_raised_outside_the_learner_s_code_shows_nothing():
    try:
        np.zeros(3) @ np.zeros(4)
    except ValueError as error:
        assert failing_line_values(error) == ""


def test_a_learner_s_object_is_never_asked_to_describe_itself():
    class Loud:
        def __repr__(self):
            raise RuntimeError("never called")

    def uses_it(thing, x):
        return thing, x @ torch.ones(3)  # (2,) @ (3,) raises

    message = _message(uses_it, Loud(), torch.ones(2))
    assert "On your line that raised: x (2,) float32." in message, message
    assert "never called" not in message


def attention_with_crossed_arguments(q, k, v):
    output, _ = scaled_dot_product_attention(k, q, v)  # the queries and keys exchanged
    return output


def attention_with_other_names(query, key, value):
    output, _ = scaled_dot_product_attention(key, query, value)  # not the callee's names
    return output


def test_arguments_passed_in_another_order_than_their_parameter_names_are_named():
    """A call whose plain-name arguments are the callee's parameter names in another
    order (blind19d: scaled_dot_product_attention(q, v, k, mask) got the raw error
    alone) names where each went; other names say nothing."""
    q, k, v = torch.ones(2, 3, 4), torch.ones(2, 5, 4), torch.ones(2, 5, 6)
    message = _message(attention_with_crossed_arguments, q, k, v)
    assert re.search(
        r"Your line calls scaled_dot_product_attention\(k, q, v\), whose parameters are "
        r"\(q, k, v, mask\).*`k` goes to the parameter `q` and `q` goes to the parameter `k`",
        message,
    ), message
    message = _message(attention_with_other_names, q, k, v)
    assert "Your line calls" not in message, message


def rows_scaled_after_squeeze(x, weights):
    weights = weights.squeeze()  # (rows, 1) -> (rows,)
    return x * weights  # (rows, columns) * (rows,): the rows meet the columns


def test_an_argument_whose_size_one_axes_were_dropped_is_named():
    """A (rows, 1) argument squeezed to (rows,) before broadcasting (blind19d: a squeezed
    (batch, 1, 1, len_k) mask got the raw error and the heads' advice)."""
    message = _message(rows_scaled_after_squeeze, torch.ones(3, 4), torch.ones(3, 1))
    assert re.search(
        r"Your `weights` is \(3,\): the argument weights \(3, 1\) with its axes of size 1 "
        r"dropped \(a \.squeeze\(\)\)\..*axis -1, the last\)",
        message,
    ), message


class ScaledInPlace(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(3, 4))  # (d_in, d_out)

    def forward(self, x):
        return x @ self.weight.mul_(2)  # the parameter doubled in place


def test_the_in_place_call_that_autograd_refused_is_named_with_its_out_of_place_form():
    text = _message(ScaledInPlace(), torch.ones(2, 3))
    assert "The in-place call on your line that raised: self.weight.mul_(2)" in text
    assert "mul(), without the _, returns a new one" in text


def test_no_in_place_call_is_named_for_another_error():
    assert "The in-place call" not in _message(
        keys_not_transposed, torch.ones(2, 3, 4), torch.ones(2, 5, 4)
    )


def halves_split_without_dim(x, scale):
    first, second = x.split(x.shape[-1] // 2)  # (4, 8) and (1, 8): the rows cut, not features
    return torch.cat([first * scale, second * scale], dim=-1)


def test_pieces_of_an_argument_cut_along_its_first_axis_are_named():
    text = _message(halves_split_without_dim, torch.randn(5, 8), torch.ones(5, 4))
    assert "Your first, second are the argument x (5, 8) cut along axis 0 (sizes 4 + 1 = 5)" in text
    assert "Your first, second" not in _message(
        keys_not_transposed, torch.ones(2, 3, 4), torch.ones(2, 5, 4)
    )


def gated_with_matmul(gate, value):
    return torch.sigmoid(gate) @ value  # (batch, len, d) @ (batch, len, d): * was meant


def test_a_batched_product_that_does_not_chain_names_both_widths_and_the_elementwise_form():
    text = _message(gated_with_matmul, torch.randn(2, 3, 8), torch.randn(2, 3, 8))
    assert "left operand's last axis is 8 and the right operand's second-to-last is 3" in text
    assert "* is the element-wise product, @ the matrix product" in text


def sines_written_to_one_row(max_len, d_model):
    position = torch.arange(max_len).unsqueeze(1)  # (max_len, 1)
    table = torch.zeros(max_len, d_model)  # (max_len, d_model)
    table[0, 0::2] = torch.sin(position * torch.ones(d_model // 2))  # row 0 only
    return table


def sines_written_for_the_length_first_layout(max_len, d_model):
    table = torch.zeros(max_len, d_model, 1)  # (max_len, d_model, 1): size-1 axis last
    table[:, 0, :] = torch.ones(max_len, d_model)  # index written for (max_len, 1, d_model)
    return table


def test_integer_index_on_a_long_axis_is_named():
    message = _message(sines_written_to_one_row, 6, 4)
    assert re.search(
        r"Your line writes table\[0, 0::2\]: the integer 0 on axis 0 of table \(6, 4\) selects "
        r"only position 0 of that axis, which has 6 entries",
        message,
    ), message
    assert "size-1 axis" not in message  # no axis of size 1 for the integer to belong to
    message = _message(sines_written_for_the_length_first_layout, 6, 4)
    assert re.search(
        r"the integer 0 on axis 1 of table \(6, 4, 1\).*layout with the size-1 axis at "
        r"position 1, \(6, 1, 4\); in yours the size-1 axis is axis 2: table\[:, :, 0\]",
        message,
    ), message


def values_that_fit_no_integer_axis(n):
    table = torch.zeros(3, n)
    table[:, 0:2] = torch.ones(3, n)  # a slice too short, no integer index
    return table


def test_integer_index_not_named_without_one():
    message = _message(values_that_fit_no_integer_axis, 5)
    assert "Your line writes" not in message
    assert "Print both shapes" in message
