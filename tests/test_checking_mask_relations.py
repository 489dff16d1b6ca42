"""checking.mask_relations: a wrong mask is named by how its values relate to the right one
(inverted, query and key axes swapped, all allowed, all blocked), and only then."""

from __future__ import annotations

import torch

from transformer_course.checking.mask_relations import (
    mask_relation,
    triangle_offset,
    triangle_offset_note,
    unasked_masks,
)
from transformer_course.reference.masking import decoder_self_attention_mask, padding_mask

IDS = torch.tensor([[5, 6, 7, 0], [5, 6, 0, 0]])  # (batch, len): pad_id 0 at the end
RIGHT = padding_mask(IDS, 0)  # (batch, 1, 1, len)


def test_an_inverted_mask_is_named_with_the_candidates_the_caller_allows():
    passed_on = mask_relation(~RIGHT, RIGHT)
    built = mask_relation(IDS[:, None, None, :] == 0, RIGHT, from_ids=True)
    assert "inverted" in passed_on and "pad_id" not in passed_on
    assert "inverted" in built and "ids == pad_id" in built


def test_pads_on_the_query_axis_are_named_by_shape():
    on_queries = (IDS != 0)[:, None, :, None]  # (batch, 1, len, 1)
    assert "pads sit on the query axis" in mask_relation(on_queries, RIGHT)


def test_a_transposed_square_mask_is_named_as_swapped_axes():
    right = decoder_self_attention_mask(IDS, 0)  # (batch, 1, len, len)
    assert "query and key axes swapped" in mask_relation(right.transpose(-1, -2), right)


def test_all_true_and_all_false():
    assert "nothing is masked" in mask_relation(torch.ones_like(RIGHT), RIGHT)
    assert "no query can attend" in mask_relation(torch.zeros_like(RIGHT), RIGHT)


def test_nothing_is_named_for_the_right_mask_an_unrelated_one_or_a_non_bool_value():
    other = RIGHT.clone()
    other[0, 0, 0, 0] = False  # one entry off: no relation explains it
    assert mask_relation(RIGHT.clone(), RIGHT) == ""
    assert mask_relation(other, RIGHT) == ""
    assert mask_relation(RIGHT.float(), RIGHT) == ""
    assert mask_relation(None, RIGHT) == ""
    assert mask_relation(torch.ones(3, 3, dtype=torch.bool), RIGHT) == ""


def test_the_masks_applied_without_one_given_are_told_apart_only_where_the_sizes_differ():
    square = unasked_masks(4, 4)  # the two causal alignments agree on a square
    wide = unasked_masks(3, 5)
    assert len(square) == 2 and any("agree on these sizes" in text for text in square)
    assert len(wide) == 3
    first_key = next(mask for text, mask in wide.items() if "first key" in text)
    assert torch.equal(first_key, torch.ones(3, 5, dtype=torch.bool).tril())
    assert unasked_masks(1, 1) == {}  # a single key: every default allows it


def test_a_triangle_cut_at_another_diagonal_is_named_with_the_padding_kept():
    right = decoder_self_attention_mask(IDS, 0)  # (batch, 1, len, len)
    ones = torch.ones(4, 4, dtype=torch.bool)
    keys = (IDS != 0)[:, None, None, :]
    assert triangle_offset(keys & torch.tril(ones, 1), right) == 1
    assert triangle_offset(keys & torch.tril(ones, -2), right) == -2
    assert "diagonal=1" in triangle_offset_note(keys & torch.tril(ones, 1), right)
    assert triangle_offset(right, right) is None  # the right mask: nothing to name
    # the padding lost as well: no offset alone reproduces it
    assert triangle_offset(torch.tril(ones, 1).expand_as(right), right) is None
    # not a causal mask (a padding mask broadcast): no triangle to offset
    square = RIGHT.expand(2, 1, 4, 4)
    assert triangle_offset(square & torch.tril(ones), square) is None


def test_moved_diagonals_read_each_offset_with_its_sign_in_the_masks_words():
    """The candidates for an attention output say what a mask read off directly says."""
    from transformer_course.checking.mask_relations import moved_diagonals

    found = moved_diagonals((1, -2))
    assert sorted(found.values()) == [-2, 1]
    up, down = sorted(found, key=found.get, reverse=True)
    assert "diagonal=1) (j <= i + 1) where diagonal=0" in up and "sees the next key" in up
    assert "diagonal=-2) (j <= i - 2)" in down and "1 key(s) just before it" in down
    ones = torch.ones(4, 4, dtype=torch.bool)
    right = torch.tril(ones)
    assert triangle_offset_note(torch.tril(ones, 1), right, "causal mask") == up


def test_a_padding_mask_made_square_is_named_as_pads_blocked_as_queries_too():
    square = RIGHT & RIGHT.transpose(-1, -2)  # (batch, 1, len, len)
    said = mask_relation(square, RIGHT)
    assert "blocks the pads as queries as well as keys" in said
    # on a square right mask the same relation is said without the pads' words
    right = decoder_self_attention_mask(IDS, 0)
    assert "combined with its own transpose" in mask_relation(
        right & right.transpose(-1, -2), right
    )
    # the pads on the query axis alone stay a swapped axis, not the square mask
    assert "query axis" in mask_relation(RIGHT.transpose(-1, -2), RIGHT)
    # a mask whose transpose adds nothing (no padding): the relation explains nothing
    full = torch.ones(2, 1, 1, 4, dtype=torch.bool)
    assert mask_relation(full & full.transpose(-1, -2), full) == ""
