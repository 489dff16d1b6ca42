"""A softmax taken against another reference point than each row's largest value.

softmax(x) = exp(x - m) / sum(exp(x - m)) for any m: in exact arithmetic the reference
point cancels, so every choice of m is "right on paper". In floating point only the row's
own maximum keeps every exponent at most 0 and the largest one exactly 0; a reference far
*above* the row's maximum makes every exp(x - m) underflow to 0, and the row comes out
0 / 0 (NaN). The members of the family differ only in which rows that happens to:

* ``zero``: the running maximum started at 0 (or taken with 0): m = max(0, max x), NaN on
  a row whose values are all far below 0;
* ``abs``: the largest magnitude, m = max |x| (block.abs().amax(-1)), NaN on a row whose
  largest value lies far below its largest magnitude (a large negative value);
* ``shared``: one maximum for the whole tensor (block.max() with no dim), NaN on a row far
  below another row;
* ``shared_abs``: one largest magnitude for the whole tensor.

On one input several members often give the same NaN rows (a row [-1000, 0, 3] next to a
row of values near 1000 is NaN under ``abs`` and ``shared`` alike), so a check must not
name one from that input alone. :data:`PROBE` is an input whose rows tell every member
apart (each member predicts its own set of NaN rows, every other row exact):
:func:`reference_kind` runs the learner's code on it and says which member it is.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

__all__ = ["KINDS", "PROBE", "PROBE_BLOCK", "online_with_reference", "reference_kind"]

KINDS = ("zero", "abs", "shared", "shared_abs")

# rows: [0] largest value 5, largest magnitude 130; [1] every value far below 0;
# [2] ordinary values; [3] values near 300 (far above the other rows)
PROBE = torch.tensor(
    [
        [-130.0, -110.0, 5.0, 3.0, 4.0, 2.0],
        [-500.0, -490.0, -495.0, -505.0, -498.0, -493.0],
        [1.0, 0.5, -1.0, 2.0, 0.0, -0.5],
        [300.0, 299.0, 301.0, 298.0, 300.0, 302.0],
    ]
)
PROBE_BLOCK = 2


def online_with_reference(x: torch.Tensor, block_size: int, kind: str = "") -> torch.Tensor:
    """The online softmax of ``x`` over its last axis, in x's dtype, with the running
    reference point of ``kind`` (one of :data:`KINDS`; "" for the right one, the running
    maximum started at -inf), each block's sum rescaled by exp(m_old - m_new)."""
    shared = kind.startswith("shared")
    shape = () if shared else x.shape[:-1]
    start = 0.0 if kind in ("zero", "abs", "shared_abs") else float("-inf")
    m = torch.full(shape, start, dtype=x.dtype)
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    for first in range(0, x.shape[-1], block_size):
        block = x[..., first : first + block_size]
        values = block.abs() if kind.endswith("abs") else block
        block_max = values.max() if shared else values.amax(dim=-1)
        new = torch.maximum(m, block_max)
        point = new if shared else new[..., None]
        total = total * torch.exp(m - new) + torch.exp(block - point).sum(dim=-1)
        m = new
    return torch.exp(x - (m if shared else m[..., None])) / total[..., None]


def _nan_rows(value: torch.Tensor) -> tuple[bool, ...] | None:
    """Per row of the probe: whether it is not finite; None when a row is finite and not
    the softmax (neither NaN nor right: not a member of this family)."""
    right = torch.softmax(PROBE.double(), dim=-1)
    rows = []
    for got, want in zip(value.double(), right):
        if not bool(torch.isfinite(got).all()):
            rows.append(True)
        elif torch.allclose(got, want, atol=1e-5, rtol=1e-4):
            rows.append(False)
        else:
            return None
    return tuple(rows)


def reference_kind(run: Callable[[torch.Tensor, int], object]) -> str | None:
    """Which member of the family the learner's online softmax is, from ``run(x,
    block_size)`` on :data:`PROBE`: a kind of :data:`KINDS`; "" when its result is none of
    them (nor right); None when the call raised or returned no tensor of the probe's
    shape (nothing learnt: the check keeps what it had)."""
    try:
        got = run(PROBE.clone(), PROBE_BLOCK)
    except Exception:  # a probe of the learner's code: nothing learnt
        return None
    if not isinstance(got, torch.Tensor) or got.shape != PROBE.shape:
        return None
    seen = _nan_rows(got.detach())
    if seen is None:
        return ""
    found = [k for k in KINDS if _nan_rows(online_with_reference(PROBE, PROBE_BLOCK, k)) == seen]
    return found[0] if len(found) == 1 else ""
