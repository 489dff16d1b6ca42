"""Two slips in the flow of an encoder or decoder layer's forward that its one-knob
mistakes do not describe: a pre-LN branch that falls through into the post-LN lines (no
``return`` at its end), and the residual dropout applied to the stream instead of to the
sub-layer's output. Shared by lessons 07 and 08; each check computes the values with its
own oracle."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["FALLS_THROUGH", "RESIDUAL_STREAM_DROPPED", "stream_dropped_entry"]

FALLS_THROUGH = (
    "With norm_first=True your layer computes the whole pre-LN layer and then the whole "
    "post-LN layer on its result (the post-LN layer applied to the pre-LN output gives "
    "exactly yours): the pre-LN branch does not end with a return, so it falls through into "
    "the post-LN lines below it. End the pre-LN branch with `return x + "
    "self.dropout(...)`, or put the post-LN lines under `else:`."
)

RESIDUAL_STREAM_DROPPED = (
    "In train mode with dropout=1.0 your layer returns what its sub-layers compute without "
    "the stream x they are added to, while in eval mode it is right: your dropout acts on "
    "the residual stream, dropout(x) + sublayer(...), instead of on the sub-layer's output, "
    "x + dropout(sublayer(...)). Dropping the stream cuts the residual connection in "
    "training; the dropout belongs on the sub-layer's output."
)

#: the oracle's knobs for a dropout on the stream, in train mode with dropout=1.0: the
#: stream zeroed (no residual) and the sub-layer's output added without its dropout
_STREAM_DROPPED_KNOBS = {"residual": "none", "dropout_at": "missing"}


def stream_dropped_entry(
    table: Mapping[str, Mapping[str, Any]], filtered: Mapping[str, Mapping[str, Any]]
) -> dict[str, dict[str, Any]]:
    """For a train-mode case with dropout=1.0, ``table`` the layer's mistakes and
    ``filtered`` what :func:`~transformer_course.checking.layers.only_dropout_mistakes`
    kept: when it dropped the structural entries (the layer is right in eval mode), the
    entry of a dropout on the residual stream, which then alone gives the stream zeroed and
    the sub-layers' outputs undropped; {} otherwise (a missing residual is still a
    candidate then, and would give the same values)."""
    if len(filtered) >= len(table):
        return {}
    return {RESIDUAL_STREAM_DROPPED: dict(_STREAM_DROPPED_KNOBS)}
