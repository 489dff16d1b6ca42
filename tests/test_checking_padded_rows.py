"""Rows of a padded batch that start with the pad id, read against the tokens they should
hold (checking.padded_rows): left padding, the first token replaced by the pad id, a pad put
in front; a reading is given only when it fits every row."""

from __future__ import annotations

from transformer_course.checking.padded_rows import (
    LEFT,
    PAD_IN_FRONT,
    START_REPLACED,
    leading_pad_readings,
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
