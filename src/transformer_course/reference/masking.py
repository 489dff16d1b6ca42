"""Lesson 06 reference: padding and look-ahead masks (bool, True = may attend)."""

from __future__ import annotations

import torch


def padding_mask(ids: torch.Tensor, pad_id: int) -> torch.Tensor:
    """ids (batch, len) -> bool (batch, 1, 1, len): True where the key is a real token."""
    return (ids != pad_id)[:, None, None, :]


def look_ahead_mask(size: int) -> torch.Tensor:
    """bool (size, size): position i may attend to positions 0..i (lower triangle with diagonal)."""
    return torch.tril(torch.ones(size, size, dtype=torch.bool))


def decoder_self_attention_mask(tgt_ids: torch.Tensor, pad_id: int) -> torch.Tensor:
    """tgt_ids (batch, len) -> bool (batch, 1, len, len): no future keys and no pad keys."""
    return padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[-1])
