"""checking.hints: the course's advice for raw errors a learner's code raises, each told
from the error's text and the learner's own lines, and silent where they do not show it."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import torch

from transformer_course.checking import Checker, CheckFailure


def keepdims_by_position(x):
    return x - np.mean(x, -1, True)


def keepdims_by_keyword(x):
    return x - np.mean(x, -1, dtype="float128x")


def width_of_longest(rows):
    width = max(rows, key=len)
    return np.full((len(rows), width), 0)


def width_from_rows(rows):
    return np.full((len(rows), rows), 0)


def norm_floored_with_max(a):
    return a / np.max(np.linalg.norm(a, axis=-1, keepdims=True), 1e-12)


def half_as_size(n):
    return list(range(n / 2))


def scaled_by_shape(q):
    return q / math.sqrt(q.shape)


def counted_in_plain_dict(ids):
    counts = {}
    for pair in zip(ids, ids[1:]):
        counts[pair] += 1
    return counts


def missing_key(table):
    return table["absent"]


def mask_by_identity(ids, pad_id=0):
    return (ids is not pad_id)[:, None]


def size_uncalled(x):
    batch, length = x.size
    return batch * length


def permute_three(x):
    return x.permute(0, 2, 1)


def sines_with_math(angles):
    return math.sin(angles)


def clipped_by_hand(model):
    total = sum(p.grad.norm() ** 2 for p in model.named_parameters())
    return total


def tied_transposed(vocab_size):
    output, embedding = torch.nn.Linear(4, vocab_size), torch.nn.Embedding(vocab_size, 4)
    output.weight = embedding.weight.T
    return output


def rows_vectorized(ids):
    table = np.arange(12.0).reshape(4, 3)
    return np.vectorize(lambda i: table[i])(ids)


def masked_if_given(scores, mask=None):
    if mask:
        scores = scores.masked_fill(~mask, float("-inf"))
    return scores


def copied_into_short_slice(rows):
    out = torch.zeros(len(rows), 2)
    for i, row in enumerate(rows):
        out[i, : len(rows[0])] = row
    return out


def exp_with_math(x):
    return math.exp(x)


def float_of_tensor(x):
    return float(x)


def ragged_rows(rows):
    return np.array(rows, dtype=float)


def positive_and_self(x):
    return (x > 0) and x


def _message(fn, *args):
    with pytest.raises(CheckFailure) as failure, Checker("demo") as c:
        c.call(fn, *args)
    return failure.value.message


@pytest.mark.parametrize(
    "fn, arg, expected",
    [
        (keepdims_by_position, np.ones((2, 3)), r"Pass keepdims by keyword"),
        (width_of_longest, [[1, 2], [3]], r"returns the longest sequence itself"),
        (width_from_rows, [[1, 2], [3]], r"A list was used where an integer belongs"),
        (norm_floored_with_max, np.ones((2, 3)), r"np\.max\(a, b\) .* np\.maximum\(a, b\)"),
        (half_as_size, 6, r"`/` always gives a float: use `//`"),
        (scaled_by_shape, torch.ones(2, 4), r"x\.shape\[-1\]"),
        (counted_in_plain_dict, [1, 2, 3], r"d\.get\(key, 0\) \+ 1"),
        (mask_by_identity, torch.tensor([1, 0]), r"compare element-wise with == or !="),
        (size_uncalled, torch.ones(2, 3), r"x\.size is the method, x\.size\(\) its result"),
        (permute_three, torch.ones(1, 2, 3, 4), r"the input has 4 axes and 3 were given"),
        (sines_with_math, np.ones(3), r"math\.sin works on one Python number only.*np\.sin"),
        (
            clipped_by_hand,
            torch.nn.Linear(2, 2),
            r"named_parameters\(\) yields \(name, parameter\)",
        ),
        (tied_transposed, 5, r"assign the other layer's Parameter itself"),
        (rows_vectorized, np.array([0, 2]), r"np\.vectorize calls the function once per number"),
        (
            copied_into_short_slice,
            [torch.ones(2), torch.ones(3)],
            r"A slice assignment \(x\[\.\.\.\] = value\) got a value with 3 entries",
        ),
        (
            lambda scores: masked_if_given(scores, torch.tensor([True, False])),
            torch.zeros(2),
            r"write `if mask is not None:`",
        ),
    ],
)
def test_a_raw_error_gets_the_advice_its_text_and_lines_show(fn, arg, expected):
    message = _message(fn) if arg is None else _message(fn, arg)
    assert re.search(expected, message), message


@pytest.mark.parametrize(
    "fn, arg, absent",
    [
        (keepdims_by_keyword, np.ones((2, 3)), "keepdims by keyword"),
        (width_from_rows, [[1, 2], [3]], "longest sequence itself"),
        (half_as_size, 6, "np.maximum"),
        (missing_key, {"present": 1}, "incremented before it exists"),
        (exp_with_math, np.ones(2), "math.sin"),
        (float_of_tensor, torch.ones(2), "works on one Python number only"),
        (ragged_rows, [[1, 2], [3]], "np.vectorize"),
        (positive_and_self, torch.ones(2), "is not None"),
    ],
)
def test_the_advice_is_silent_where_its_cause_does_not_show(fn, arg, absent):
    message = _message(fn) if arg is None else _message(fn, arg)
    assert absent not in message, message


def test_the_general_advice_gives_way_to_an_exercise_s_own_on_the_same_api():
    """An exercise's hint that names the API (math.sin) replaces the general one that names
    it too; a hint about something else leaves the general advice in place."""
    own = "math.sin takes one number: use np.sin on the whole table."
    for hint, general in ((own, False), ("Check the table's shape.", True)):
        with pytest.raises(CheckFailure) as failure, Checker("demo") as c:
            c.call(sines_with_math, np.ones(3), hints=[(TypeError, hint)])
        message = failure.value.message
        assert hint in message
        assert ("math.sin works on one Python number only" in message) is general


def test_mistake_pairs_join_one_mistake_of_each_of_two_families():
    from transformer_course.checking.hints import mistake_pairs, two_mistakes

    families = {
        "scale": [("No scale.", {"scale": 1}), ("Scale twice.", {"scale": 4})],
        "sign": [("Sign flipped.", {"sign": -1})],
        "none": [],
    }
    pairs = mistake_pairs(families, lambda knobs: knobs["scale"] * knobs["sign"])
    assert set(pairs) == {
        two_mistakes("No scale.", "Sign flipped."),
        two_mistakes("Scale twice.", "Sign flipped."),
    }  # two of one family are not a pair
    assert pairs[two_mistakes("Scale twice.", "Sign flipped.")]() == -4
