"""checking.rearranged's rejoined and kept_slice, and relations.divided_by_zero: the right
numbers joined along another axis, a slice of them, the right numerator divided by 0."""

from __future__ import annotations

import numpy as np
import torch

from transformer_course.checking.rearranged import (
    copied_along,
    kept_slice,
    merged_after_move,
    one_hot_of,
    rejoined,
    slice_order,
)
from transformer_course.checking.relations import divided_by_zero

AXES = ("batch", "num_heads", "len_q", "d_v")


def test_pieces_joined_along_another_axis_are_named_with_both_axes():
    right = torch.randn(2, 4, 3, 6)
    on_positions = torch.cat(right.chunk(2, dim=1), dim=2)  # (2, 2, 6, 6)
    said = rejoined(on_positions, right, AXES)
    assert "along axis 1 (num_heads)" in said and "along axis 2 (len_q)" in said
    assert "torch.cat(pieces, dim=2)" in said and "where dim=1 belongs" in said
    on_batch = torch.cat(right.chunk(3, dim=3), dim=0)  # (6, 4, 3, 2)
    assert "dim=0" in rejoined(on_batch, right)


def test_rejoined_says_nothing_for_other_rearrangements():
    right = torch.randn(2, 4, 3, 6)
    assert rejoined(right.transpose(1, 2), right) == ""
    assert rejoined(right.reshape(2, 2, 6, 6), right) == ""  # a reshape is not a join
    assert rejoined(torch.randn(2, 2, 6, 6), right) == ""
    assert rejoined(right, right) == ""


def test_a_slice_of_the_right_output_is_named_with_its_entries():
    right = torch.randn(2, 4, 3, 6)
    assert "entries [1, 3] along axis 1 (num_heads)" in kept_slice(right[:, 1::2], right, AXES)
    assert "[:, :, :2]" in kept_slice(right[:, :, :2], right)
    assert kept_slice(right[:, ::2] + 1, right) == ""
    assert kept_slice(right, right) == ""


def test_divided_by_zero_needs_the_right_signs_everywhere():
    right = np.array([[0.5, -1.0], [2.0, -0.1]])
    assert divided_by_zero(np.sign(right) * np.inf, right)
    assert divided_by_zero(torch.tensor(np.sign(right) * np.inf), torch.tensor(right))
    assert not divided_by_zero(np.full((2, 2), np.inf), right)  # signs lost
    assert not divided_by_zero(np.full((2, 2), np.nan), right)  # inf - inf, 0 · inf
    assert not divided_by_zero(right, right)


def test_entries_copied_along_one_axis_say_how():
    right = torch.randn(1, 4, 3, 6)
    assert copied_along(right.repeat_interleave(2, dim=3), right) == (3, 2, "repeat_interleave")
    assert copied_along(right.repeat(1, 1, 1, 3), right) == (3, 3, "repeat")
    assert copied_along(right.repeat(2, 1, 1, 1), right) is None  # size 1: both forms fit
    assert copied_along(torch.randn(1, 4, 3, 12), right) is None


def test_slices_in_another_order_are_listed_and_only_a_true_permutation_is():
    right = torch.arange(24.0).reshape(1, 2, 4, 3)  # (batch, heads, positions, d)
    newest_first = torch.cat([right[:, :, 3:], right[:, :, :3]], dim=2)
    assert slice_order(newest_first, right, -2) == [3, 0, 1, 2]
    assert slice_order(right.flip(-2), right, -2) == [3, 2, 1, 0]
    assert slice_order(right, right, -2) is None  # already right: no relation
    repeated = torch.cat([right[:, :, :1], right[:, :, :3]], dim=2)
    assert slice_order(repeated, right, -2) is None  # position 0 twice, 3 missing


def test_axes_merged_after_a_move_are_named_and_nothing_else_is():
    right = torch.randn(2, 4, 3, 6)
    merged = right.transpose(1, 2).reshape(2, 3, 24)  # merge_heads
    said = merged_after_move(merged, right, AXES)
    assert "(batch, len_q, num_heads * d_v)" in said and "heads merged" in said
    batch_first = right.permute(2, 0, 1, 3).reshape(3, 48)  # positions first, rest flat
    assert "len_q, batch * num_heads * d_v" in merged_after_move(batch_first, right, AXES)
    assert merged_after_move(right.reshape(2, 12, 6), right, AXES) == ""  # no move: shapes say it
    assert merged_after_move(torch.randn(2, 3, 24), right, AXES) == ""
    assert merged_after_move(torch.zeros(2, 3, 24), torch.zeros(2, 4, 3, 6), AXES) == ""


def test_one_hot_encoded_ids_are_named_on_any_axis_and_nothing_else_is():
    ids = torch.randint(0, 9, (5, 4))
    assert "along a new last axis" in one_hot_of(torch.nn.functional.one_hot(ids, 11), ids)
    on_axis_1 = torch.nn.functional.one_hot(ids, 9).float().movedim(-1, 1)  # (5, 9, 4)
    assert "along a new axis 1" in one_hot_of(on_axis_1, ids)
    assert one_hot_of(torch.rand(5, 4, 11), ids) == ""
    assert one_hot_of(torch.nn.functional.one_hot(ids, 11), ids.float()) == ""
