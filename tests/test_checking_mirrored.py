"""A square table filled as if it were symmetric (checking.mirrored)."""

import numpy as np

from transformer_course.checking.mirrored import MIRRORED_FILLS, mirrored_fill


def test_each_mirrored_fill_is_named_and_the_right_table_is_not():
    right = np.random.default_rng(1).normal(size=(4, 4))
    assert mirrored_fill(right + right.T, right) == "added"
    assert mirrored_fill(np.tril(right) + np.tril(right, -1).T, right) == "lower kept"
    assert mirrored_fill(np.triu(right) + np.triu(right, 1).T, right) == "upper kept"
    assert mirrored_fill((right + right.T) / 2, right) == "averaged"
    assert mirrored_fill(right, right) == ""
    assert set(MIRRORED_FILLS) == {"added", "lower kept", "upper kept", "averaged"}


def test_a_symmetric_or_non_square_table_gives_no_reading():
    right = np.random.default_rng(2).normal(size=(3, 3))
    symmetric = right + right.T
    assert mirrored_fill(2 * symmetric, symmetric) == ""  # every reading would fit
    wide = np.random.default_rng(3).normal(size=(2, 3))
    assert mirrored_fill(wide, wide) == ""
    assert mirrored_fill("text", right) == ""
