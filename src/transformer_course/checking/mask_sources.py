"""A key padding mask built from the wrong quantity, told by probes.

The padding mask of an attention's keys comes from the ids: ``ids != pad_id``, True at the
real tokens. Learners build it from other things, and each is a mistake of this family:

* nothing at all (no mask passed, or one that allows every position);
* the vectors at the key positions: the rows that are not all zero,
  ``memory.abs().sum(-1) != 0`` ("a pad is a zero vector"; Kyubyong/transformer's
  issue 3). The encoder's outputs at the pads are not zero (positions are added, every
  layer mixes the positions), so on real inputs this mask allows every position;
* the other sequence's ids (the target's padding for the source's keys), which fits only
  when the two lengths agree;
* a pad id written in (``ids != 0``) where the model's pad id is another one.

On one input several of these give the same mask (a memory with no zero row gives the
"allow everything" of no mask at all; ids holding no real 0 give it too with a
hard-coded 0), so a cause read off one call may be the wrong one. :func:`probes` makes
inputs that split them (the vectors set to exactly zero at the pads, where a mask from the
vectors becomes the right one; a real token with id 0), and :func:`agreeing_sources` keeps
the sources whose mask gives the learner's output on EVERY probe. A check names a source
only when it is the one left; when several are left, it names them all.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch

__all__ = [
    "NO_MASK",
    "OTHER_IDS",
    "PAD_ZERO",
    "VECTORS",
    "Source",
    "agreeing_sources",
    "key_mask_sources",
    "probes",
]

NO_MASK = "no mask"
VECTORS = "vectors"
OTHER_IDS = "other ids"
PAD_ZERO = "pad 0"

Inputs = Mapping[str, torch.Tensor]


@dataclass(frozen=True)
class Source:
    """One thing a key mask may be built from: ``mask(inputs)`` is the mask it gives on a
    probe's inputs, bool (batch, len_k), True = may attend; None when it cannot be built
    there (the other sequence's length differs)."""

    name: str
    mask: Callable[[Inputs], torch.Tensor | None]


def key_mask_sources(
    *, ids: str, pad_id: int, vectors: str | None = None, other_ids: str | None = None
) -> list[Source]:
    """The family for keys whose ids are ``inputs[ids]`` (batch, len_k): no mask, the rows
    of ``inputs[vectors]`` (batch, len_k, d) that are not all zero, the padding of
    ``inputs[other_ids]``, and a hard-coded pad id 0 (only when ``pad_id`` is not 0)."""

    def everything(x: Inputs) -> torch.Tensor:
        return torch.ones(x[ids].shape, dtype=torch.bool)

    found = [Source(NO_MASK, everything)]
    if vectors is not None:
        found.append(Source(VECTORS, lambda x: x[vectors].detach().abs().sum(-1) != 0))
    if other_ids is not None:
        found.append(
            Source(
                OTHER_IDS,
                lambda x: x[other_ids] != pad_id if x[other_ids].shape == x[ids].shape else None,
            )
        )
    if pad_id != 0:
        found.append(Source(PAD_ZERO, lambda x: x[ids] != 0))
    return found


def probes(
    inputs: Inputs, *, ids: str, pad_id: int, vectors: str | None = None
) -> list[dict[str, torch.Tensor]]:
    """Inputs that split the family, each a copy of ``inputs`` with one change: the rows of
    ``inputs[vectors]`` at the pad positions set to exactly zero (a mask built from the
    vectors is then the right one), and, when ``pad_id`` is not 0, the first real token of
    every row set to id 0 (a mask with a hard-coded 0 then blocks it). A probe that would
    change nothing is left out."""
    pads = inputs[ids] == pad_id  # (batch, len_k)
    made = []
    if vectors is not None and bool(pads.any()):
        zeroed = inputs[vectors].clone()
        zeroed[pads] = 0.0
        made.append({**inputs, vectors: zeroed})
    if pad_id != 0:
        real = ~pads
        first = real.int().argmax(dim=1)  # (batch,) the first real position of each row
        rows = torch.arange(pads.shape[0])[real.any(dim=1)]
        if len(rows):
            changed = inputs[ids].clone()
            changed[rows, first[rows]] = 0
            made.append({**inputs, ids: changed})
    return made


def _close(got: Any, want: torch.Tensor | None) -> bool:
    return (
        want is not None
        and isinstance(got, torch.Tensor)
        and got.shape == want.shape
        and bool(torch.isfinite(got).all() == torch.isfinite(want).all())
        and bool(
            torch.allclose(
                got.detach().double().nan_to_num(), want.double().nan_to_num(), 1e-4, 1e-5
            )
        )
    )


def agreeing_sources(
    run: Callable[[Inputs], Any],
    predict: Callable[[Inputs, torch.Tensor], torch.Tensor],
    inputs: Inputs,
    given: Any,
    sources: Sequence[Source],
    tried: Sequence[Inputs],
) -> list[str]:
    """The names of the sources whose mask gives the learner's output on the check's own
    ``inputs`` (where the learner returned ``given``) AND on every probe in ``tried``:
    ``run(x)`` calls the learner's code on inputs x, ``predict(x, mask)`` gives the
    reference's output there with that key mask (bool (batch, len_k)). A learner's call that
    raises on a probe (or prints: silenced) leaves no source standing."""

    def fits(x: Inputs, got: Any, source: Source) -> bool:
        mask = source.mask(x)
        return mask is not None and _close(got, predict(x, mask))

    left = [s for s in sources if fits(inputs, given, s)]
    for x in tried:
        if not left:
            break
        try:
            with torch.no_grad(), contextlib.redirect_stdout(io.StringIO()):
                got = run(x)
        except Exception:  # a probe only: nothing can be told from it
            return []
        left = [s for s in left if fits(x, got, s)]
    return [s.name for s in left]
