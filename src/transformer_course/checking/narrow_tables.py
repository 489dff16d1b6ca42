"""A fixed table (a positional encoding, RoPE's sines and cosines) built in a narrow dtype.

A table computed once and stored as a buffer invites half precision "to halve its memory":
positions, frequencies and angles in float16 (or bfloat16), or the right table cast down
at the end. The result is a hair from the right table, by no formula, so a check that
compares outputs sees only "largest difference 0.0003". The learner's own stored table
(read from the state dict, never written) tells more:

- its dtype, when it is stored narrow (float16, bfloat16);
- its values, when it is stored wide but came through a narrow dtype (every entry a number
  of that dtype, where the right table's are not);
- how its error grows along the positions: rounding the *values* costs at most half a unit
  in the last place of each, the same at every position; rounding the *angles* pos * w_i
  costs a share of the angle itself, so the error grows with the position (float16 keeps
  11 significant bits: hundredths of a radian at position 50, whole radians past 2000).

:func:`narrow_table_note` states what the evidence shows, and is silent unless the stored
table is narrow (by dtype or by grid) and within that dtype's rounding of the right table
(so that no formula slip is explained away as rounding).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import torch

__all__ = ["narrow_table_note"]

_NARROW = {torch.float16: "float16", torch.bfloat16: "bfloat16"}
_BITS = {torch.float16: 11, torch.bfloat16: 8}


def _grid_of(tensor: torch.Tensor, right: np.ndarray) -> torch.dtype | None:
    """The narrow dtype (bfloat16 first: its numbers are float16's too) whose numbers every
    entry of a wide ``tensor`` is, where at least two of ``right``'s are not; else None.
    (The error bound is the caller's: near zero, an angle's rounding is not relative.)"""
    if tensor.dtype not in (torch.float32, torch.float64):
        return None
    wide = torch.tensor(right, dtype=tensor.dtype)
    for narrow in (torch.bfloat16, torch.float16):
        if (
            torch.equal(tensor.to(narrow).to(tensor.dtype), tensor)
            and int((wide.to(narrow).to(wide.dtype) != wide).sum()) >= 2
        ):
            return narrow
    return None


def narrow_table_note(
    stored: Mapping[str, torch.Tensor],
    right: np.ndarray,
    angles: np.ndarray,
    *,
    what: str = "table",
) -> str:
    """Why a stored table (any of ``stored``, {state-dict key: tensor reshaped to
    ``right``'s (positions, features) shape}) differs from ``right`` (float64) by rounding
    alone: its narrow dtype (or the narrow grid its values lie on), and whether the error
    grows with the position (``angles``, the angle behind each entry, tells how much an
    angle's rounding may cost). "" when no stored table fits."""
    for key, tensor in stored.items():
        if tuple(tensor.shape) != right.shape or not tensor.is_floating_point():
            continue
        narrow = tensor.dtype if tensor.dtype in _NARROW else None
        on_grid = False
        if narrow is None:
            narrow = _grid_of(tensor.detach(), right)
            on_grid = narrow is not None
        if narrow is None:
            continue
        eps = torch.finfo(narrow).eps
        values = tensor.detach().double().numpy()
        error = np.abs(values - right)  # (positions, features)
        if not np.all(error <= 2 * eps * (1.0 + np.abs(angles))) or not error.any():
            continue  # more than rounding: a formula's slip, not this
        per_row = error.max(axis=-1)  # (positions,)
        early = float(per_row[: max(2, len(per_row) // 8)].max())
        late_row = int(per_row.argmax())
        late = float(per_row[late_row])
        stored_as = (
            f"is stored as {_NARROW[narrow]}"
            if not on_grid
            else f"is {tensor.dtype} but every value is a {_NARROW[narrow]} number: it was "
            f"computed in {_NARROW[narrow]} and cast up afterwards"
        )
        grows = late > eps  # more than rounding a value of size <= 1 can cost (eps / 2)
        growth = (
            f" Its error grows with the position, {early:.2g} in the first rows and {late:.2g} "
            f"at position {late_row}: the angles pos * w_i themselves were rounded "
            f"({_NARROW[narrow]} keeps {_BITS[narrow]} significant bits, so the larger the "
            "angle, the larger the share lost), not only the values."
            if grows
            else f" It differs from the paper's {what} by up to {late:.2g}, rounding of "
            f"{_NARROW[narrow]}'s {_BITS[narrow]} significant bits."
        )
        return (
            f"Your {what} (`{key}` in the state dict) {stored_as}.{growth} Build it in "
            "float32 (or float64) and store it as float32, like x: torch.arange(max_len, "
            "dtype=torch.float32) for the positions and the frequencies, no .half() or "
            "dtype=torch.float16; the model casts the whole module with .to(dtype) when it "
            "wants half precision."
        )
    return ""
