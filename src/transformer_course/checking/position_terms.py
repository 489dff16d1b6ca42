"""A term that depends on the position alone, added to what a stack's first layer should
receive: a positional encoding (lesson 03's sinusoids, in either layout) or a learned
position embedding where the model has none there (a GPT whose positions come from RoPE
inside the attention, or a stack whose input already holds them). Told by the difference
between what the first layer received and what it should have: one vector per position,
the same in every sequence of the batch (the sequences hold other tokens at each
position), possibly after the embeddings were scaled by sqrt(d_model) as the 2017 model
does before adding its encoding (blind round 34: the sinusoids added in a GPT were told
"layers[0] does not receive the embeddings of the ids" alone).
"""

from __future__ import annotations

import math

import torch

__all__ = ["position_term_note"]


def _sinusoids(length: int, width: int, layout: str) -> torch.Tensor:
    """Lesson 03's encoding (length, width), float64: sin and cos of pos / 10000 **
    (2i / width), interleaved (the paper's PE[pos, 2i], PE[pos, 2i + 1]) or as two
    halves (all sines, then all cosines, as tensor2tensor writes it)."""
    position = torch.arange(length, dtype=torch.float64)[:, None]
    rate = 10000.0 ** (-torch.arange(0, width, 2, dtype=torch.float64) / width)
    angles = position * rate  # (length, width / 2)
    if layout == "interleaved":
        return torch.stack([angles.sin(), angles.cos()], -1).flatten(-2)[:, :width]
    return torch.cat([angles.sin(), angles.cos()], -1)[:, :width]


def _position_only(difference: torch.Tensor, atol: float) -> bool:
    """Whether ``difference`` (batch, len, features) is one vector per position, the same
    in every sequence, and not zero."""
    first = difference[:1]  # (1, len, features)
    return bool(
        torch.allclose(difference, first.expand_as(difference), rtol=0.0, atol=atol)
        and float(first.abs().max()) > 10 * atol
    )


def position_term_note(
    received: torch.Tensor, expected: torch.Tensor, container: str, input_name: str
) -> str:
    """The diagnosis when the first layer ``received`` (batch, len, features) ``expected``
    (or ``expected`` times sqrt(features)) plus one vector per position; "" otherwise.
    A term is called positional only where the sequences of the batch differ at every
    position (with one sequence, only lesson 03's sinusoids are named)."""
    r, e = received.detach().double(), expected.detach().double()
    if r.shape != e.shape or r.dim() != 3 or not bool(torch.isfinite(r).all()):
        return ""
    length, width = e.shape[1], e.shape[2]
    atol = 1e-4 * max(1.0, float(e.abs().max()))
    # every position holds another input vector in some sequence than in the first
    rows_differ = e.shape[0] > 1 and bool(((e - e[:1]).abs().amax(-1) > atol).any(0).all())
    for scale, scaled in ((1.0, ""), (math.sqrt(width), " multiplied by sqrt(d_model)")):
        difference = r - scale * e  # (batch, len, features)
        known = [
            layout
            for layout in ("interleaved", "halves")
            if torch.allclose(difference, _sinusoids(length, width, layout).expand_as(r), atol=atol)
        ]
        if known:
            what = "lesson 03's sinusoidal positional encoding" + (
                " (sines and cosines interleaved)"
                if known[0] == "interleaved"
                else " (all sines, then all cosines)"
            )
        elif rows_differ and _position_only(difference, atol):
            what = (
                "one vector per position, the same in every sequence of the batch: a position "
                "encoding or a learned position embedding"
            )
        else:
            continue
        return (
            f"{container}[0] receives {input_name}{scaled} plus {what}. The stack feeds "
            f"{input_name} to its first layer as they are: this model adds no position term "
            "there (the input already holds what it needs, or, in a GPT with RoPE, each "
            "attention rotates its queries and keys by their positions instead). Remove the "
            "added positions" + (" and the scaling." if scaled else ".")
        )
    return ""
