"""A step skipped when there is a single query (len_q == 1): the family of decoding
shortcuts taken where they do not hold. Generation code feeds one new token at a time, and
for that token under a mask aligned to the bottom right (the cache mask) every key is
visible, so many implementations drop the mask when len_q == 1 (Hugging Face's SDPA path
does, for its causal mask). Under any other mask, a padding mask, a sliding window, or a
causal mask aligned to the top left (where a lone query is position 0 and sees key 0
only), that shortcut lets masked keys in.

On the lone-query call itself, "the mask skipped for one query" gives the same output as
"the mask never applied" and, for a causal mask, as "the mask aligned to the bottom right":
the one input cannot tell them apart. The same call with the query given twice (len_q = 2,
both rows the same query, the mask's query axis broadcast or repeated) can: a mask
never applied, or aligned to the bottom right, is wrong there too, while the shortcut
applies the mask as soon as there are two queries. :func:`skipped_for_lone_query` makes
that call (only after a failure) and says whether the learner's code is right on it.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

__all__ = ["doubled_query", "lone_query_text", "skipped_for_lone_query"]


def doubled_query(q: torch.Tensor, mask: torch.Tensor | None = None):
    """``q`` (..., 1, d) with its one query given twice, (..., 2, d), and ``mask`` with its
    query axis (dim -2) repeated when it has one entry that is not broadcast from a 2-D
    (len_q, len_k) mask's single row (it is then (..., 2, len_k) or broadcastable)."""
    q2 = torch.cat([q, q], dim=-2)
    if mask is None or mask.dim() < 2 or mask.shape[-2] != 1:
        return q2, mask
    return q2, torch.cat([mask, mask], dim=-2)


def skipped_for_lone_query(
    run: Callable[[torch.Tensor, torch.Tensor | None], object],
    expected: Callable[[torch.Tensor, torch.Tensor | None], torch.Tensor],
    q: torch.Tensor,
    mask: torch.Tensor | None = None,
    *,
    atol: float = 1e-4,
) -> bool:
    """Whether the learner's code, wrong on a call with a single query ``q`` (..., 1, d),
    is right on the same call with that query given twice: ``run(q2, mask2)`` calls the
    learner's code (clones are its own business), ``expected(q2, mask2)`` is the
    reference's output. False when the call raises or returns something else."""
    if q.shape[-2] != 1:
        return False
    q2, mask2 = doubled_query(q, mask)
    try:
        got = run(q2.clone(), None if mask2 is None else mask2.clone())
        want = expected(q2, mask2)
    except Exception:  # a probe of the learner's code: nothing learnt
        return False
    if not isinstance(got, torch.Tensor) or got.shape != want.shape:
        return False
    return bool(torch.allclose(got.detach().double(), want.double(), atol=atol, rtol=1e-4))


def lone_query_text(step: str, kept_by_two: str, why_wrong: str, instead: str) -> str:
    """The diagnosis: ``step`` ("your mask") is skipped when len_q == 1, told by the
    doubled-query call (``kept_by_two``: what the same call with two queries did);
    ``why_wrong``: why the shortcut does not hold for this mask; ``instead``: what to write."""
    return (
        f"With a single query (len_q == 1) {step} is not applied: your output is exactly "
        f"the one without it, while the same call with that query given twice (len_q = 2) "
        f"{kept_by_two}. So the code skips it when there is one query (an `if len_q == 1` "
        f"shortcut, as decoding code takes for one new token). {why_wrong} {instead}"
    )
