"""A dropout rate read backwards, as the probability of *keeping* a unit (TensorFlow's
``keep_prob``): ``nn.Dropout(1 - dropout)``. In train mode such a module drops everything
when built with dropout=0.0 and nothing when built with dropout=1.0, which the
train-mode cases of the layer checks (rates 0.0 and 1.0, whose results are fixed) see
from one side only, and read as a dropout missing or misplaced
(blind13g-ffn-dropout-as-keep-probability: "dropout is never applied"). The module built
with the other rate, the same weights and inputs, shows the other side.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

__all__ = ["KEEP_PROBABILITY", "rate_read_backwards"]

KEEP_PROBABILITY = (
    "In train mode yours drops every sub-layer's output when built with dropout=0.0, and not "
    "when built with dropout=1.0: a dropout rate works backwards, as if the argument were the "
    "probability of keeping a unit (TensorFlow's keep_prob), a rate of 1 - dropout as in "
    "nn.Dropout(1 - dropout). PyTorch's dropout rate is the probability of zeroing each "
    "value: build every dropout as nn.Dropout(dropout)."
)


def _close(got: Any, expected: torch.Tensor) -> bool:
    got = got[0] if isinstance(got, tuple) and got else got
    return (
        isinstance(got, torch.Tensor)
        and got.shape == expected.shape
        and torch.allclose(got.detach().double(), expected.double(), rtol=1e-4, atol=1e-5)
    )


def rate_read_backwards(
    got: Any,
    case_dropout: float,
    dropped: torch.Tensor,
    output_with_rate: Callable[[float], Any],
) -> bool:
    """Whether a train-mode module reads its dropout rate backwards: built with
    dropout=0.0 it gives ``dropped`` (what every dropout zeroing its input gives), built
    with dropout=1.0 it does not. ``got``: its output in the case (rate ``case_dropout``,
    0.0 or 1.0); ``output_with_rate(rate)``: its output built with the other rate, the same
    weights, in train mode, on the same inputs (called only when ``got`` is the one side)."""
    if case_dropout == 0.0:
        return _close(got, dropped) and not _close(output_with_rate(1.0), dropped)
    if case_dropout == 1.0:
        return not _close(got, dropped) and _close(output_with_rate(0.0), dropped)
    return False
