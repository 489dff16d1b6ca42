"""Lesson 06 reference: padding and look-ahead masks (bool, True = may attend).

Every mask in this course is a ``torch.bool`` tensor in which ``True`` means
"this query may attend to this key", the convention of
``F.scaled_dot_product_attention``. ``nn.MultiheadAttention`` and
``nn.Transformer`` use the opposite polarity (``True`` = blocked) or additive
float masks (0 and ``-inf``); :func:`to_blocked` and :func:`to_additive` convert.
"""

from __future__ import annotations

import torch


def padding_mask(ids: torch.Tensor, pad_id: int) -> torch.Tensor:
    """ids (batch, len) int64 -> bool (batch, 1, 1, len): True where the key is a real token.

    The two singleton axes line up with num_heads and len_q, so one row of key
    flags broadcasts over every head and every query of scores shaped
    (batch, num_heads, len_q, len_k).
    """
    return (ids != pad_id)[:, None, None, :]


def look_ahead_mask(size: int) -> torch.Tensor:
    """bool (size, size): position i may attend to positions 0..i (lower triangle with diagonal)."""
    return torch.tril(torch.ones(size, size, dtype=torch.bool))


def decoder_self_attention_mask(tgt_ids: torch.Tensor, pad_id: int) -> torch.Tensor:
    """tgt_ids (batch, len) -> bool (batch, 1, len, len): no future keys and no pad keys."""
    # (batch, 1, 1, len) & (len, len) -> (batch, 1, len, len)
    return padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[-1])


def cross_attention_mask(src_ids: torch.Tensor, pad_id: int) -> torch.Tensor:
    """src_ids (batch, len_src) -> bool (batch, 1, 1, len_src) for encoder-decoder attention.

    The keys are the encoder's (source) positions, so only the source padding
    matters; the mask broadcasts over the decoder's len_q queries, whatever
    the target length.
    """
    return padding_mask(src_ids, pad_id)


def to_blocked(mask: torch.Tensor) -> torch.Tensor:
    """Flip polarity: True = may attend -> True = blocked (nn.MultiheadAttention's bool masks)."""
    return ~mask


def to_additive(mask: torch.Tensor, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """bool mask (True = may attend) -> float mask: 0.0 where allowed, -inf where blocked.

    This is the form that is added to the scaled scores, and the form
    ``nn.Transformer.generate_square_subsequent_mask`` returns.
    """
    return torch.zeros(mask.shape, dtype=dtype).masked_fill(~mask, float("-inf"))
