"""Deterministic inputs for checks: tensors and token ids drawn from a private generator
seeded inside each check, so no check consumes (or depends on) a global random stream."""

from __future__ import annotations

import torch

from transformer_course.checking.randomness import torch_generator

__all__ = ["PAD", "randn", "token_ids", "vocab_token_ids"]

PAD = 0  # the <pad> id of the checks' token ids


def randn(shape, seed: int, scale: float = 1.0, dtype=torch.float32) -> torch.Tensor:
    """Standard normal values from a private generator (float64 draw, then cast)."""
    values = torch.randn(tuple(shape), generator=torch_generator(seed), dtype=torch.float64)
    return (values * scale).to(dtype)


def token_ids(lengths: list[int], total: int, seed: int, *, left: bool = False) -> torch.Tensor:
    """int64 (batch, total) ids: row b has lengths[b] real tokens (ids >= 1), the rest
    <pad> (id 0), at the end (right padding) or at the start (``left=True``)."""
    generator = torch_generator(seed)
    ids = torch.randint(1, 20, (len(lengths), total), generator=generator)
    positions = torch.arange(total)
    real = (
        positions >= total - torch.tensor(lengths)[:, None]
        if left
        else positions < torch.tensor(lengths)[:, None]
    )
    return ids.masked_fill(~real, PAD)


def vocab_token_ids(
    lengths: tuple[int, ...], total: int, vocab: int, pad_id: int, seed: int, *, left=False
) -> torch.Tensor:
    """int64 (batch, total): row b holds lengths[b] real tokens (any id but pad_id, below
    vocab) and pad_id elsewhere, at the end or (``left=True``) at the start. When pad_id is
    not 0, the first token of row 0 is id 0, a real token that a mask built with a
    hard-coded 0 would hide."""
    generator = torch_generator(seed)
    ids = torch.randint(0, vocab - 1, (len(lengths), total), generator=generator)
    ids = ids + (ids >= pad_id).long()  # skip pad_id
    if pad_id != 0:
        ids[0, total - lengths[0] if left else 0] = 0
    positions = torch.arange(total)
    count = torch.tensor(lengths)[:, None]
    real = positions >= total - count if left else positions < count
    return ids.masked_fill(~real, pad_id)
