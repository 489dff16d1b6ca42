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
    ],
)
def test_the_advice_is_silent_where_its_cause_does_not_show(fn, arg, absent):
    message = _message(fn) if arg is None else _message(fn, arg)
    assert absent not in message, message
