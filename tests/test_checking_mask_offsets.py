"""checking.mask_offsets: the offsets i - j a square mask keeps, and what they say."""

import torch

from transformer_course.checking.mask_offsets import kept_offsets, offsets_sentence


def _offsets_mask(size, offsets):
    offset = torch.arange(size)[:, None] - torch.arange(size)[None, :]
    return torch.isin(offset, torch.tensor(offsets))


def test_kept_offsets_reads_a_band_and_a_dilated_window():
    assert kept_offsets(_offsets_mask(6, [0, 1, 2])) == [0, 1, 2]
    assert kept_offsets(_offsets_mask(7, [0, 2, 4])) == [0, 2, 4]
    assert kept_offsets(torch.ones(3, 3, dtype=torch.bool)) == [-2, -1, 0, 1, 2]


def test_kept_offsets_refuses_a_mask_not_constant_along_its_diagonals():
    mask = _offsets_mask(5, [0, 1])
    mask[3, 3] = False
    assert kept_offsets(mask) is None
    assert kept_offsets(torch.ones(2, 3, dtype=torch.bool)) is None
    assert kept_offsets([[True]]) is None


def test_offsets_sentence_names_a_dilation_and_nothing_for_the_right_band():
    said = offsets_sentence([0, 2, 4], 0, 2, 6)
    assert "dilated (strided) window" in said and "every 2nd key" in said
    assert "{0, 2, 4}" in said and "offsets 0 .. 2" in said
    assert offsets_sentence([0, 1, 2], 0, 2, 6) == ""
    # a band cut by the mask's size is still the band
    assert offsets_sentence([0, 1], 0, 4, 2) == ""
    # a band of another width is not a dilation: left to the caller's other words
    assert offsets_sentence([0, 1, 2, 3], 0, 2, 6) == ""
