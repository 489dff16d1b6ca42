"""Logits moved by one number per row: the right values, each row (along the last axis)
shifted by a constant. A softmax cannot see such a shift, so the probabilities, the
cross-entropy and the samples come out right, but the contract returns the logits
themselves: ``F.log_softmax(logits, -1)`` (log-probabilities), ``logits - logits.max(-1)``
(the shift a stable softmax makes) and ``logits - logits.mean(-1)`` are the usual
sources (blind round 34: a GPT returning log-probabilities was told its final norm was
wrong). Named only when the shift is one of them; otherwise the shift is described.
"""

from __future__ import annotations

from typing import Any

import torch

__all__ = ["row_shift_note"]

#: {what the shift is: the shift it gives, from the expected values (..., n) -> (..., 1)}
_SHIFTS = {
    "log-probabilities, F.log_softmax(logits, dim=-1) (or the log of a softmax): each "
    "row minus its logsumexp": lambda e: -torch.logsumexp(e, -1, keepdim=True),
    "each row minus its largest logit, logits - logits.max(dim=-1, keepdim=True) (the "
    "shift a numerically stable softmax makes before its exponential)": lambda e: (
        -e.amax(-1, keepdim=True)
    ),
    "each row minus its mean, logits - logits.mean(dim=-1, keepdim=True) (centred "
    "logits)": lambda e: -e.mean(-1, keepdim=True),
}


def row_shift_note(got: Any, expected: Any, *, what: str = "logits") -> str:
    """When ``got`` is ``expected`` plus one number per row along the last axis (not all
    zero): which known shift that is, or the shift described, as a clause that starts
    "yours are ..."; "" otherwise (another shape, a difference that varies along a row, or
    no shift at all)."""
    if not isinstance(got, torch.Tensor) or not isinstance(expected, torch.Tensor):
        return ""
    g, e = got.detach().double(), expected.detach().double()
    if g.shape != e.shape or g.dim() < 1 or g.shape[-1] < 2 or not bool(torch.isfinite(g).all()):
        return ""
    difference = g - e  # (..., n)
    shift = difference.mean(-1, keepdim=True)  # (..., 1)
    scale = max(1.0, float(e.abs().max()))
    atol = 1e-4 * scale
    if not torch.allclose(difference, shift.expand_as(difference), rtol=0.0, atol=atol):
        return ""
    if float(shift.abs().max()) <= 10 * atol:
        return ""
    known = [name for name, of in _SHIFTS.items() if torch.allclose(shift, of(e), atol=atol)]
    said = (
        f"yours are the right {what} minus one number per row: {known[0]}"
        if len(known) == 1
        # peaked rows: the shifts agree on these values, so none is named alone
        else f"yours are the right {what} minus one number per row, and on these values "
        f"{len(known)} shifts agree: " + "; or ".join(known)
        if known
        else f"yours are the right {what} plus one number per row (along the last axis; "
        f"{float(shift.reshape(-1)[0]):.4g} for the first row), the same for every entry of "
        "a row"
    )
    return (
        f"{said}. A softmax cannot see such a shift, so probabilities "
        f"and samples from yours would be right, but the contract returns the {what} "
        "themselves: remove the step that shifts them (the cross-entropy and sampling apply "
        "their own softmax)."
    )
