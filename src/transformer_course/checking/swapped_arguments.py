"""Evidence that a layer hands MultiHeadAttention its num_heads and dropout in swapped
places, MultiHeadAttention(d_model, dropout, num_heads): the layer is only constructed
again, with another dropout rate, and what the constructor raises is read."""

from __future__ import annotations

import contextlib
import io
import re
from typing import Any

import torch

__all__ = ["attention_arguments_swapped", "dropout_refuses"]


def dropout_refuses(cls, case: Any, dropout: float, value: float) -> bool:
    """Whether the layer ``cls``, built with ``case``'s sizes and ``dropout``, fails in an
    nn.Dropout that refuses ``value`` as its rate ("dropout probability has to be between 0
    and 1, but got <value>"): evidence that ``value``, another argument, reached the
    dropout's place. Any other outcome is no evidence either way."""
    try:
        with contextlib.redirect_stdout(io.StringIO()), torch.no_grad():
            cls(
                case.d_model, case.num_heads, case.d_ff, dropout=dropout, norm_first=case.norm_first
            )
    except ValueError as exc:
        return "probability" in str(exc) and bool(re.search(rf"\b{value}\b", str(exc)))
    except Exception:
        return False
    return False


def attention_arguments_swapped(
    cls, case: Any, message: str, where: str = "the self-attention"
) -> str | None:
    """For a build that raised ZeroDivisionError (d_model % num_heads with num_heads=0.0):
    built again with dropout=0.5 (a rate that divides any d_model), the layer's nn.Dropout
    refusing the rate num_heads shows num_heads and the dropout rate exchanged on their way
    to ``where`` (blind15g-el-attention-dropout-and-heads-swapped was told that a division by
    zero happened inside the course's code); None when it does not. ``case`` has d_model,
    num_heads, d_ff and norm_first (an EncoderLayer's or a DecoderLayer's case)."""
    if case.dropout != 0 or case.num_heads in (0, 1):
        return None
    if "ZeroDivisionError" not in message.split("\n")[0]:
        return None
    if not dropout_refuses(cls, case, 0.5, case.num_heads):
        return None
    return (
        "\nThe division by zero comes from the dropout rate, 0.0, used as num_heads: built with "
        f"dropout=0.5 instead, your layer hands nn.Dropout the rate {case.num_heads}, which is "
        f"num_heads. num_heads and dropout reach {where} in swapped places, "
        "MultiHeadAttention(d_model, dropout, num_heads) for MultiHeadAttention(d_model, "
        "num_heads, dropout): pass them in the order of the signature, or by keyword."
    )
