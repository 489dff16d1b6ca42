"""An angle recovered from its cosine and sine by an inverse function that covers only half
a turn.

Code that is given a table of cosines and sines and wants the angles back (to build
``torch.polar(ones, angle)``, or to scale them) often writes ``torch.atan(sin / cos)``,
``torch.asin(sin)`` or ``torch.acos(cos)``. Each returns angles in a range of length pi
only, so the angle it gives is the right one only in half of the circle; elsewhere it is
the right angle reflected or moved by pi, and the rotation built from it is wrong there
alone (position 0, and every small angle, come out right):

* ``atan(sin / cos)`` lies in (-pi/2, pi/2): where cos < 0 it is off by pi, so the cosine
  and the sine both change sign (the pair comes out negated);
* ``asin(sin)`` lies in [-pi/2, pi/2]: where cos < 0 it is pi - angle, the cosine's sign
  flipped and the sine kept;
* ``acos(cos)`` lies in [0, pi]: where sin < 0 it is -angle, the sine's sign flipped (the
  pair turned the other way) and the cosine kept.

:func:`half_turn_slips` gives, for each, the (cos, sin) tables the learner's code really
used; a check computes its result with each and names the slip whose values the
learner's give on every input (blind30c-rot-angles-recovered-with-atan was told
"largest difference"). ``torch.atan2(sin, cos)`` recovers the whole circle.
"""

from __future__ import annotations

import torch

__all__ = ["HALF_TURN_SLIPS", "half_turn_slips"]

#: {how the angle was recovered: (what it gets wrong, where)}
HALF_TURN_SLIPS = {
    "torch.atan(sin / cos)": (
        "which returns angles in (-pi/2, pi/2) only: every angle whose cosine is negative "
        "comes back off by pi, so cos and sin both change sign there and those pairs come "
        "out negated (position 0, and every angle up to pi/2, come out right)"
    ),
    "torch.asin(sin)": (
        "which returns angles in [-pi/2, pi/2] only: every angle whose cosine is negative "
        "comes back as pi minus itself, so the cosine changes sign there (position 0, "
        "and every angle up to pi/2, come out right)"
    ),
    "torch.acos(cos)": (
        "which returns angles in [0, pi] only: every angle whose sine is negative comes "
        "back negated, so the sine changes sign there and those pairs turn the other way "
        "(every angle up to pi comes out right)"
    ),
}


def half_turn_slips(cos: torch.Tensor, sin: torch.Tensor) -> dict[str, tuple[torch.Tensor, ...]]:
    """{a key of :data:`HALF_TURN_SLIPS`: (the cos table, the sin table) of the angles it
    recovers from ``cos`` and ``sin``}, in float64 (on tables with no cosine, or no sine,
    below 0, a slip gives the right tables: a check asks it of every input)."""
    cos, sin = cos.double(), sin.double()
    negative_cos = torch.where(cos < 0, -1.0, 1.0).double()
    negative_sin = torch.where(sin < 0, -1.0, 1.0).double()
    return {
        "torch.atan(sin / cos)": (cos * negative_cos, sin * negative_cos),
        "torch.asin(sin)": (cos * negative_cos, sin),
        "torch.acos(cos)": (cos, sin * negative_sin),
    }
