"""Reference implementation: lesson 06 · Masking: what attention is not allowed to see

Generated from the lesson master `solutions/06_masking/06_masking.py`
(its answer cells and its cells marked `export=true`) by `make notebooks`.
Edit the master, never this file.
"""

from __future__ import annotations

import torch


def quiz_fully_masked_row() -> str:
    """Your answer to Question 1: "a", "b", "c" or "d"."""
    return "b"


def padding_mask(ids: torch.Tensor, pad_id: int) -> torch.Tensor:
    """Mark which key positions hold real tokens.

    Args:
        ids: int64 tensor (batch, len) of token ids; pads may sit anywhere
            (usually at the end, sometimes at the start).
        pad_id: the id of the <pad> token (not necessarily 0).

    Returns:
        bool tensor (batch, 1, 1, len): True where ids != pad_id (a real token, which
        may be attended to), False at pads. The two 1s are the num_heads and len_q
        axes, so the mask broadcasts over every head and every query; do not expand
        it to (batch, 1, len, len). `ids` must not be modified.
    """
    return (ids != pad_id)[:, None, None, :]  # (batch, 1, 1, len)


def look_ahead_mask(size: int) -> torch.Tensor:
    """The causal mask for one sequence of `size` positions.

    Returns:
        bool tensor (size, size) = (len_q, len_k): entry [i, j] is True when query i
        may attend to key j, that is when j <= i (the lower triangle including the
        diagonal), and False for every key after the query.
    """
    return torch.tril(torch.ones(size, size, dtype=torch.bool))  # (size, size)


def decoder_self_attention_mask(tgt_ids: torch.Tensor, pad_id: int) -> torch.Tensor:
    """The mask of the decoder's (masked) self-attention.

    Args:
        tgt_ids: int64 tensor (batch, len) of target token ids, padded with `pad_id`.
        pad_id: the id of the <pad> token.

    Returns:
        bool tensor (batch, 1, len, len) = (batch, 1, len_q, len_k): entry
        [b, 0, i, j] is True when key j is not after query i (j <= i) AND
        tgt_ids[b, j] is a real token. The padding acts on the keys only; the 1 is
        the num_heads axis. `tgt_ids` must not be modified.
    """
    # (batch, 1, 1, len) & (len, len) -> (batch, 1, len, len)
    return padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[1])


def quiz_which_mask() -> str:
    """Your answer to Question 2: "a", "b", "c" or "d"."""
    return "c"


def cross_attention_mask(src_ids: torch.Tensor, pad_id: int) -> torch.Tensor:
    """src_ids (batch, len_src) -> bool (batch, 1, 1, len_src) for encoder-decoder attention.

    The keys are the encoder's (source) positions, so only the source padding
    matters; the mask broadcasts over the decoder's len_q queries, whatever the
    target length.
    """
    return padding_mask(src_ids, pad_id)


def to_blocked(mask: torch.Tensor) -> torch.Tensor:
    """Flip polarity: True = may attend -> True = blocked (nn.MultiheadAttention's bool masks)."""
    return ~mask


def to_additive(mask: torch.Tensor, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """bool mask (True = may attend) -> float mask: 0.0 where allowed, -inf where blocked.

    This is the form that is added to the scaled scores, and the form
    nn.Transformer.generate_square_subsequent_mask returns.
    """
    return torch.zeros(mask.shape, dtype=dtype).masked_fill(~mask, float("-inf"))
