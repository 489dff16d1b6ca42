"""What a dropout did to a tensor, read from the tensor before and after it in one
training-mode call with 0 < p < 1: which entries were zeroed, by how much the kept ones
were scaled, and whether the zeros were drawn entry by entry, as nn.Dropout draws them,
or shared along an axis (whole rows, the same mask for every position or every sequence).

The value checks of the layers run in train mode only at rates 0.0 and 1.0, whose results
are fixed; there a channel-wise dropout (nn.Dropout2d on a (batch, len, d) tensor zeroes
whole positions), a mask drawn once and broadcast, or kept values left unscaled give the
same values as the right dropout (blind21b-ffn-dropout2d-drops-positions passed). A draw
cannot be compared with the reference's, but its shape can: for a dropout that zeroes
each entry independently with probability p, the chance that a slice of k entries is
zeroed all together or kept all together is p**k + (1 - p)**k, so a mask that is
constant along an axis on every slice is named only when the product of those chances
over the slices is below one in a million.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import torch
from torch import nn

__all__ = ["P_IS_ONE", "dropout_pattern_problem"]

#: why a dropout acts with p = 1 at another rate: the training flag in p's place
P_IS_ONE = (
    "A rate of 1 reaches it when the training flag lands in p's place, F.dropout(h, "
    "self.training): the second positional argument of F.dropout is p, so in training "
    "p = True = 1 (and in eval p = False = 0, which hides it); or when the rate is written "
    "as 1. Pass the arguments by name, F.dropout(h, p=self.p, training=self.training), or "
    "call the nn.Dropout built from the argument."
)

#: the largest chance that an independent draw looks shared along an axis by luck
_LUCK = 1e-6


def _shared_along(active: torch.Tensor, dropped: torch.Tensor, axes: Sequence[int], p: float):
    """(how many slices were zeroed whole, how many slices) when the drop decision is the
    same for every active entry along ``axes`` in every slice, and an independent draw
    would be that uniform with a chance below ``_LUCK``; None otherwise."""
    dims = tuple(axes)
    any_dropped = (dropped & active).to(torch.int8).amax(dim=dims) > 0
    any_kept = (~dropped & active).to(torch.int8).amax(dim=dims) > 0
    if bool((any_dropped & any_kept).any()):
        return None
    counts = active.sum(dim=dims)  # active entries per slice
    counted = counts[counts >= 2]
    if not bool(any_dropped.any()) or not bool(any_kept.any()) or counted.numel() == 0:
        return None  # all zeroed or none: said elsewhere
    log_luck = sum(math.log(p**k + (1 - p) ** k) for k in counted.tolist())
    if log_luck > math.log(_LUCK):
        return None
    return int(any_dropped.sum()), int((counts > 0).sum())


def _channel_wise_module(holder: Any) -> str:
    """The name of a channel-wise dropout module (nn.Dropout1d/2d/3d) ``holder`` holds."""
    if not isinstance(holder, nn.Module):
        return ""
    kinds = (nn.Dropout1d, nn.Dropout2d, nn.Dropout3d)
    for name, child in holder.named_modules():
        if name and isinstance(child, kinds):
            return f"`self.{name}` is an nn.{type(child).__name__}: "
    return ""


def _kept_scale(before: torch.Tensor, after: torch.Tensor, kept: torch.Tensor) -> float | None:
    """The one factor every kept entry was multiplied by, or None when they differ (not a
    dropout of ``before`` alone)."""
    ratios = after[kept] / before[kept]
    if ratios.numel() == 0:
        return None
    middle = float(ratios.median())
    if not torch.allclose(ratios, torch.full_like(ratios, middle), rtol=1e-3, atol=1e-6):
        return None
    return middle


def dropout_pattern_problem(
    before: Any,
    after: Any,
    p: float,
    axis_names: Sequence[str],
    *,
    unit: str,
    holder: Any = None,
) -> str:
    """What is wrong with the dropout that turned ``before`` into ``after`` (one
    training-mode call at rate ``p``, 0 < p < 1), in words, or "" when it looks like
    nn.Dropout(p) (or when ``after`` is not a dropout of ``before`` at all: other checks
    say that). ``axis_names``: one noun per axis ("sequence", "position", "hidden unit");
    ``unit``: what one entry is ("hidden activation"); ``holder``: the learner's module,
    searched for a channel-wise dropout module to name."""
    if not (0.0 < p < 1.0) or not isinstance(before, torch.Tensor):
        return ""
    if not isinstance(after, torch.Tensor) or after.shape != before.shape:
        return ""
    if len(axis_names) != before.dim():
        return ""
    b, a = before.detach().double(), after.detach().double()
    scale = float(b.abs().max()) if b.numel() else 0.0
    if scale == 0.0:
        return ""
    active = b.abs() > 1e-4 * scale  # entries float32 rounding cannot turn into zeros
    if bool((a[~active].abs() > 1e-3 * scale).any()):
        return ""  # a value where nothing was: not a dropout of ``before``
    dropped = active & (a.abs() <= 1e-6 * scale)
    kept = active & ~dropped
    n, d = int(active.sum()), int(dropped.sum())
    if n < 20:
        return ""
    rate = f"dropout={p:g}"
    if d == n:
        return (
            f"In train mode with {rate} every {unit} is zeroed (all {n} that are not already "
            f"0): the dropout acts as if p were 1. {P_IS_ONE}"
        )
    if d == 0 and (1 - p) ** n < _LUCK:
        return (
            f"In train mode with {rate} none of the {n} {unit}s is zeroed: the dropout on "
            f"them never acts. Apply an nn.Dropout(dropout) to them; it acts in train mode "
            f"and not in eval mode by itself."
        )
    factor = _kept_scale(b, a, kept & (b.abs() > 1e-2 * scale))
    if factor is None:
        return ""
    wanted = 1 / (1 - p)
    if abs(factor - wanted) > 1e-3 * wanted:
        known = {
            1.0: "left as they are: the mask is applied without dividing by (1 - p)",
            1 - p: "multiplied by (1 - p) instead of divided by it",
            1 / p: "divided by p instead of by (1 - p)",
        }
        how = next(
            (text for value, text in known.items() if abs(factor - value) < 1e-3 * value),
            f"multiplied by {factor:.4g}",
        )
        return (
            f"In train mode with {rate} the {unit}s your dropout keeps are {how}: nn.Dropout "
            f"scales each kept value by 1 / (1 - p) = {wanted:.4g}, so that the expected value "
            f"is unchanged and eval mode needs no scaling. Use nn.Dropout(dropout) (or "
            f"F.dropout(h, p, self.training))."
        )
    within = tuple(range(1, before.dim()))  # all but the first (batch) axis
    if len(within) >= 2 and (whole := _shared_along(active, dropped, within, p)):
        # one draw per sequence: stochastic depth (timm's DropPath) in a dropout's place
        # (blind28b-el-drop-path-for-residual-dropout was told about 1 - p alone)
        rows = axis_names[0]
        return (
            f"In train mode with {rate} your dropout zeroes whole {rows}s: one draw per "
            f"{rows}, every {unit} of a {rows} kept or zeroed together ({whole[0]} of "
            f"{whole[1]} {rows}s zeroed whole), which is stochastic depth (DropPath: "
            f"x * keep / (1 - p) with keep of shape (batch, 1, 1)), not dropout. nn.Dropout "
            f"zeroes each {unit} on its own: use nn.Dropout(dropout)."
        )
    channel_axes = tuple(range(2, before.dim()))
    if channel_axes and (whole := _shared_along(active, dropped, channel_axes, p)):
        rows = axis_names[1]
        named = _channel_wise_module(holder)
        cause = (
            f"{named}channel-wise dropout (nn.Dropout2d or nn.Dropout1d, F.dropout2d) "
            f"reads axis 1 of a ({', '.join(axis_names)}) tensor as the channels and zeroes "
            f"whole channels, here whole {rows}s"
        )
        return (
            f"In train mode with {rate} your dropout zeroes whole {rows}s: for each "
            f"{rows}, either every one of its {unit}s is zeroed or none is ({whole[0]} of "
            f"{whole[1]} {rows}s zeroed whole). nn.Dropout zeroes each {unit} on its own. "
            f"{cause[0].upper()}{cause[1:]}. Use nn.Dropout(dropout)."
        )
    for axis in range(before.dim()):
        if axis in channel_axes and len(channel_axes) == 1:
            continue  # said above
        if shared := _shared_along(active, dropped, (axis,), p):
            others = [axis_names[i] for i in range(before.dim()) if i != axis]
            return (
                f"In train mode with {rate} your dropout zeroes the same {unit}s in every "
                f"{axis_names[axis]}: along axis {axis} ({axis_names[axis]}) each "
                f"({', '.join(others)}) entry is zeroed everywhere or nowhere ({shared[0]} of "
                f"{shared[1]} zeroed). A mask drawn with size 1 on that axis and broadcast "
                f"does this; nn.Dropout draws every entry on its own. Use nn.Dropout(dropout)."
            )
    expected = p * n
    spread = math.sqrt(n * p * (1 - p))
    if abs(d - expected) > 6 * spread:
        backwards = (
            " (about 1 - dropout: is the rate read as the probability of keeping a unit?)"
            if abs(d - (1 - p) * n) <= 6 * spread
            else ""
        )
        return (
            f"In train mode with {rate} your dropout zeroes {d} of the {n} {unit}s, "
            f"{d / n:.0%}, where a rate of {p:g} zeroes about {p:.0%}{backwards}. Build it from "
            f"the argument: nn.Dropout(dropout)."
        )
    return ""
