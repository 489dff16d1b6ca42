"""An extra term added to a result: the learner's value minus the contract's, fitted against
candidate auxiliary terms (each known up to one coefficient), on several inputs at once.

A loss that is right but for an added regulariser (T5X's z-loss, 1e-4 * logsumexp(logits)
** 2; an L2 penalty on the logits; a confidence penalty on the entropy) differs from the
contract's by c * term(input), with one c for every input. One input fits any candidate
(one equation, one unknown); a candidate is named only when the same coefficient fits the
difference on every input tried, so inputs of different magnitudes tell the candidates
apart (blind29b-ls-z-loss-added: a loss 0.0011 too large was told it rounded in a lower
precision). Candidates that fit equally well are named together, never one of them alone.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

__all__ = ["fitted_terms"]


def fitted_terms(
    differences: Sequence[float],
    candidates: Sequence[Mapping[str, float]],
    *,
    rel_tol: float = 2e-2,
    floor: float = 1e-7,
) -> list[tuple[str, float]]:
    """The candidates (name, coefficient) whose single coefficient c explains every
    difference: ``differences[i]`` = c * ``candidates[i][name]``, within ``rel_tol`` of the
    difference, on at least two inputs. A difference below ``floor`` (in magnitude) says
    nothing (rounding), and [] is returned; so is a candidate whose value is 0 on an input
    where the difference is not."""
    if len(differences) < 2 or len(candidates) != len(differences):
        return []
    if any(not math.isfinite(d) or abs(d) <= floor for d in differences):
        return []
    names = set(candidates[0])
    for values in candidates[1:]:
        names &= set(values)
    found = []
    for name in sorted(names, key=list(candidates[0]).index):
        values = [float(c[name]) for c in candidates]
        if any(not math.isfinite(v) or v == 0 for v in values):
            continue
        coefficient = differences[0] / values[0]
        if all(
            math.isclose(coefficient * v, d, rel_tol=rel_tol, abs_tol=floor)
            for v, d in zip(values[1:], differences[1:])
        ):
            found.append((name, coefficient))
    return found
