"""checking.partitions: the rule behind a batching's piece sizes and the way its items were
dealt, named only when it gives exactly what came back (round 34: batches of [8, 8, 8, 13]
or dealt round-robin were told only their sizes, or 'in another order')."""

from __future__ import annotations

import re

import numpy as np
import pytest

from transformer_course.checking.partitions import order_rule, right_pieces, size_rule


def test_the_contract_s_pieces_are_consecutive_with_the_rest_last():
    assert right_pieces(7, 3) == [[0, 1, 2], [3, 4, 5], [6]]
    assert size_rule([3, 3, 1], 7, 3) == ""
    assert order_rule(right_pieces(7, 3), 7, 3) == ""


@pytest.mark.parametrize(
    ("sizes", "n", "size", "expected"),
    [
        ([8, 8, 8, 13], 37, 8, r"len // size = 4 pieces, the 5 left over merged into the last"),
        ([5, 8, 8, 8, 8], 37, 8, r"the 5 left over put first, then pieces of 8"),
        ([8, 8, 7, 7, 7], 37, 8, r"spread evenly over ceil\(len / size\) = 5 pieces"),
        ([10, 9, 9, 9], 37, 8, r"spread evenly over len // size = 4 pieces"),
    ],
)
def test_each_cut_of_the_family_is_named_from_its_sizes(sizes, n, size, expected):
    assert re.search(expected, size_rule(sizes, n, size))


@pytest.mark.parametrize(
    ("sizes", "n", "size"),
    [
        ([8, 8, 8, 8], 37, 8),  # the last batch dropped: not a cut of this family
        ([8, 8, 8, 8, 4, 1], 37, 8),  # an unknown cut
        ([4, 4], 8, 4),  # the contract's, size dividing n
    ],
)
def test_sizes_no_rule_gives_get_no_claim(sizes, n, size):
    assert size_rule(sizes, n, size) == ""


def test_the_ways_of_dealing_are_named():
    n, size = 7, 3
    robin = [[0, 3, 6], [1, 4], [2, 5]]
    assert "dealt round-robin: piece b holds items b, b + 3" in order_rule(robin, n, size)
    backwards = [[6], [3, 4, 5], [0, 1, 2]]
    assert "the right pieces in reverse order" in order_rule(backwards, n, size)
    reversed_items = [[6, 5, 4], [3, 2, 1], [0]]
    assert "the items in reverse order (items[::-1])" in order_rule(reversed_items, n, size)
    rows_reversed = [[2, 1, 0], [5, 4, 3], [6]]
    assert "each piece's items in reverse order" in order_rule(rows_reversed, n, size)


def test_a_sort_is_named_by_its_key_and_direction():
    lengths = [3, 9, 1, 4, 4, 2]
    order = [int(i) for i in np.argsort([-x for x in lengths], kind="stable")]
    contents = [order[0:2], order[2:4], order[4:6]]
    said = order_rule(contents, 6, 2, keys={"the length": lambda i: lengths[i]})
    assert said == "the items sorted by the length, largest first, before the cut"


def test_a_shuffle_or_a_missing_item_gets_no_claim():
    assert order_rule([[4, 0, 6], [2, 1], [5, 3]], 7, 3) == ""
    assert order_rule([[0, 3, 6], [1, 4]], 7, 3) == ""  # item 2 and 5 missing
