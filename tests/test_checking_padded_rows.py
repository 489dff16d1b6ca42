"""Rows of a padded batch that start with the pad id, read against the tokens they should
hold (checking.padded_rows): left padding, the first token replaced by the pad id, a pad put
in front; a reading is given only when it fits every row."""

from __future__ import annotations

from transformer_course.checking.padded_rows import (
    BOTH_ENDS,
    LEFT,
    PAD_IN_FRONT,
    START_REPLACED,
    UNPADDED,
    WHOLE_WIDTH_ADDED,
    leading_pad_readings,
    unequal_row_readings,
)

PAD, BOS = 0, 2
TOKENS = [[BOS, 7, 8], [BOS, 5, 6, 9]]  # what the two rows should hold before padding


def test_left_padding_is_read_only_from_the_right_tokens_moved_to_the_end():
    assert leading_pad_readings([[0, 2, 7, 8], [2, 5, 6, 9]], TOKENS, PAD) == [LEFT]


def test_the_first_token_replaced_by_the_pad_is_not_left_padding():
    rows = [[0, 7, 8, 0], [0, 5, 6, 9]]  # T5's start: [pad] + target, padded on the right
    assert leading_pad_readings(rows, TOKENS, PAD) == [START_REPLACED]


def test_a_pad_in_front_is_told_from_left_padding_by_the_longest_row():
    rows = [[0, 2, 7, 8, 0], [0, 2, 5, 6, 9]]
    assert leading_pad_readings(rows, TOKENS, PAD) == [PAD_IN_FRONT]
    # rows of one length cannot tell the two apart: both are given
    same = [[BOS, 7], [BOS, 8]]
    assert leading_pad_readings([[0, 2, 7], [0, 2, 8]], same, PAD) == [LEFT, PAD_IN_FRONT]


def test_nothing_is_read_from_rows_no_reading_explains():
    assert leading_pad_readings([[2, 7, 8, 0], [2, 5, 6, 9]], TOKENS, PAD) == []  # right
    assert leading_pad_readings([[0, 9, 8, 0], [0, 5, 6, 9]], TOKENS, PAD) == []  # other ids
    assert leading_pad_readings([[0, 7, 8, 3], [0, 5, 6, 9]], TOKENS, PAD) == []  # shifted labels


def test_rows_of_unequal_lengths_are_read_for_the_width_of_their_padding():
    seqs = [[5, 6, 7], [8], [9, 10]]
    assert unequal_row_readings([[5, 6, 7], [0, 0, 8, 0, 0], [0, 9, 10, 0]], seqs, 0) == [BOTH_ENDS]
    rows = [[5, 6, 7, 0, 0, 0], [8, 0, 0, 0], [9, 10, 0, 0, 0]]
    assert unequal_row_readings(rows, seqs, 0) == [WHOLE_WIDTH_ADDED]
    assert unequal_row_readings(seqs, seqs, 0) == [UNPADDED]
    # rows of one length (stackable), a row read by no rule, another count: nothing
    assert unequal_row_readings([[5, 6, 7], [8, 0, 0], [9, 10, 0]], seqs, 0) == []
    assert unequal_row_readings([[5, 6, 7], [0, 0, 8, 0, 0], [9, 10, 0, 0]], seqs, 0) == []
    assert unequal_row_readings([[5, 6, 7], [8]], seqs, 0) == []
