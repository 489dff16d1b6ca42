"""The other form a mask can take: the *additive* float mask (0.0 where a query may
attend, -inf where it may not) that nn.Transformer and Mistral's code build, added to the
scores, where the course's masks are bool with True = may attend. Read off the returned
tensor's values only, so that every mask exercise names it alike."""

from __future__ import annotations

from typing import Any

import torch

__all__ = ["ADDITIVE_MASK", "additive_mask_note", "read_as_bool"]

ADDITIVE_MASK = (
    "returned a float mask with -inf in it (dtype {dtype}): that is the *additive* form (0 "
    "where allowed, -inf where blocked), the one nn.Transformer.generate_square_subsequent_mask "
    "returns. In this course masks are bool, True = may attend; the attention function turns "
    "them into -inf itself (scores.masked_fill(~mask, float('-inf')))."
)


def additive_mask_note(got: Any, expected: torch.Tensor | None = None) -> str:
    """For a float mask holding -inf: the additive-form message (its dtype filled in), and
    with ``expected`` (the right bool mask, same shape) whether its -inf entries are exactly
    the blocked ones, so that only the form is wrong; "" for any other value."""
    if not isinstance(got, torch.Tensor) or not got.dtype.is_floating_point:
        return ""
    if not bool(torch.isinf(got).any()):
        return ""
    text = ADDITIVE_MASK.format(dtype=got.dtype)
    if expected is None or tuple(got.shape) != tuple(expected.shape):
        return text
    blocked = torch.isinf(got) & (got < 0)
    allowed_zero = bool((got[~blocked] == 0).all())
    if allowed_zero and bool((blocked == ~expected).all()):
        return (
            f"{text} Its entries are the right mask in that form (-inf exactly where "
            "attention is blocked, 0 elsewhere, as torch.log of the 0/1 band gives): return "
            "the bool band itself, without turning it into floats."
        )
    return text


def read_as_bool(got: Any) -> torch.Tensor | None:
    """A mask returned in another dtype, read as the bool mask it stands for, so that a
    check can say whether its entries are wrong too (two mistakes at once, each named):
    an additive float mask (0 and -inf only) is True where 0; a numeric mask of 0s and 1s
    (float or int) is True where 1. None for a bool mask, or values of neither form."""
    if not isinstance(got, torch.Tensor) or got.dtype == torch.bool or got.is_complex():
        return None
    if got.dtype.is_floating_point and bool(torch.isinf(got).any()):
        blocked = torch.isinf(got) & (got < 0)
        return ~blocked if bool((got[~blocked] == 0).all()) else None
    if bool(((got == 0) | (got == 1)).all()):
        return got != 0
    return None
