"""checking.mask_copies: a mask handed on as copies per sentence and head is named by its
layout (batch and heads merged, or tiled across the batch), and left alone when every head
of every sentence holds its own sentence's mask."""

from __future__ import annotations

import torch

from transformer_course.checking.mask_copies import mask_copies


def _padding_mask(batch: int, length: int) -> torch.Tensor:
    """(batch, 1, 1, length): sentence b has its last b positions padded."""
    real = torch.ones(batch, length, dtype=torch.bool)
    for b in range(batch):
        if b:
            real[b, -b:] = False
    return real[:, None, None, :]


def test_each_sentence_expanded_to_its_own_heads_is_not_a_problem():
    mask = _padding_mask(3, 6)
    assert mask_copies(mask.expand(3, 4, 1, 6), mask) == ""
    assert mask_copies(mask.repeat_interleave(4, dim=1), mask) == ""
    assert mask_copies(mask, mask) == ""


def test_batch_and_heads_merged_into_one_axis_is_named():
    mask = _padding_mask(3, 6)
    merged = mask.expand(3, 4, 6, 6).flatten(0, 1)  # (12, 6, 6)
    said = mask_copies(merged, mask, "mask")
    assert "batch * num_heads = 3 * 4 = 12" in said and "each sentence's copies together" in said
    tiled = torch.cat([mask[:, 0]] * 4).expand(12, 6, 6)  # heads first: sentences tiled
    assert "the sentences tiled" in mask_copies(tiled, mask, "mask")


def test_copies_tiled_across_the_batch_then_viewed_per_head_are_named():
    mask = _padding_mask(3, 6)
    tiled = torch.cat([mask] * 2).view(3, 2, 1, 6)  # heads of a sentence: other sentences
    said = mask_copies(tiled, mask, "src_mask")
    assert "head 1 of sentence 0 gets sentence 1's src_mask" in said
    assert "repeat_interleave(num_heads, dim=0)" in said
    assert "swapped" not in said  # 2 heads, 3 sentences: tiling and a swap differ here


def test_rows_padded_alike_cannot_be_told_apart_and_are_left_alone():
    mask = torch.ones(2, 1, 1, 5, dtype=torch.bool)
    assert mask_copies(mask.repeat(2, 1, 1, 1).view(2, 2, 1, 5), mask) == ""
