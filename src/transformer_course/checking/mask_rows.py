"""One sequence's padding mask used for every sequence of the batch.

The family: a padding mask (batch, 1, 1, len) indexed or reduced over its batch axis,
``mask[0]``, ``mask[-1]``, ``mask[:1]``, ``mask.any(0)``, ``mask.all(0)``, and broadcast
back over the batch, so that every sequence is masked like one of them (or like their
union or intersection). The checks' own masks cannot show it: their first sequence is
unpadded, so ``mask[0]`` is all True and reads as "no mask at all".

:func:`one_mask_for_all` runs the learner's module again on a probe mask whose sequences
are padded differently (the first one too, on alternate sides, so that no row equals the
union or the intersection of the rows), and compares the output with the reference given
each candidate mask broadcast over the batch. It names a candidate only when exactly one
matches and the right mask, no mask at all, and every other candidate do not.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable

import torch

__all__ = ["one_mask_for_all", "probe_padding_mask"]


def probe_padding_mask(batch: int, length: int) -> torch.Tensor | None:
    """bool (batch, 1, 1, length), True = real token: every sequence padded, by 1 to
    length - 1 positions, even rows at the end and odd rows at the start, each row different
    from the others, from their union and from their intersection; None when ``batch`` or
    ``length`` is too small for that."""
    if batch < 2 or length < 3:
        return None
    rows = []
    for b in range(batch):
        real = length - 1 - (b // 2) % (length - 2)  # 1 .. length - 2 pads
        row = torch.zeros(length, dtype=torch.bool)
        if b % 2 == 0:
            row[:real] = True  # padded at the end
        else:
            row[length - real :] = True  # padded at the start
        rows.append(row)
    mask = torch.stack(rows)  # (batch, length)
    candidates = [*mask, mask.any(0), mask.all(0)]
    for i, one in enumerate(candidates):
        if any(torch.equal(one, other) for other in candidates[i + 1 :]):
            return None
    return mask[:, None, None, :]  # (batch, 1, 1, length)


def _close(got, expected: torch.Tensor) -> bool:
    return (
        isinstance(got, torch.Tensor)
        and got.shape == expected.shape
        and bool(torch.allclose(got.detach().to(expected.dtype), expected, rtol=1e-4, atol=1e-5))
    )


def one_mask_for_all(
    run: Callable[[torch.Tensor], torch.Tensor],
    oracle: Callable[[torch.Tensor | None], torch.Tensor],
    batch: int,
    length: int,
    *,
    name: str,
    noun: str = "sentence",
    attention: str = "the attention",
) -> str:
    """A sentence naming the one row's mask that every sequence receives, or "".

    ``run(mask)`` calls the learner's module with ``mask`` (bool (batch, 1, 1, length))
    in place of ``name`` (everything else as in the failed call); ``oracle(mask)`` gives
    the reference's output for that mask (None: no mask). Exceptions count as no match."""
    mask = probe_padding_mask(batch, length)
    if mask is None:
        return ""
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            got = run(mask)
        if not isinstance(got, torch.Tensor) or _close(got, oracle(mask)):
            return ""
        if _close(got, oracle(None)):
            return ""
        expanded = lambda row: row.expand_as(mask)  # noqa: E731
        candidates = [
            (f"{noun} {b}'s", f"{name}[{b}]", expanded(mask[b : b + 1])) for b in range(batch)
        ]
        candidates += [
            (
                "the union of all the rows'",
                f"{name}.any(0)",
                expanded(mask.any(0, keepdim=True)),
            ),
            (
                "the intersection of all the rows'",
                f"{name}.all(0)",
                expanded(mask.all(0, keepdim=True)),
            ),
        ]
        matched = [(whose, code) for whose, code, m in candidates if _close(got, oracle(m))]
    except Exception:
        return ""
    if len(matched) != 1:
        return ""
    whose, code = matched[0]
    if code == f"{name}[0]":
        whose = f"the first {noun}'s"
    elif code == f"{name}[{batch - 1}]":
        whose, code = f"the last {noun}'s", f"{name}[-1]"
    rows = ", ".join(str(int(r.sum())) for r in mask[:, 0, 0, :])
    return (
        f"Every {noun} of the batch is masked with {whose} padding mask: the batch axis of "
        f"`{name}` is indexed or reduced away ({code}, or a line like it) and the one row "
        f"is broadcast to every {noun}. On a probe batch whose {noun}s are padded differently "
        f"(real tokens per {noun}: {rows}), your output equals the reference's given that "
        f"one row for every {noun}, so {attention} of the other {noun}s attends to their "
        f"<pad> positions or skips real tokens. Keep the batch axis: pass `{name}` "
        f"(batch, 1, 1, len) on as it is."
    )
