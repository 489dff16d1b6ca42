"""Rows of a padded batch that begin with the pad id, read against the rows they should be.

A row of a batch holds its tokens first, then the pad id up to the batch's width. Rows whose
FIRST position holds the pad id look like left padding, but several slips give them, and
they need different fixes:

* left padding: the right tokens moved to the end (the pads first), ``[pad, pad, bos, 7, 8]``;
* the first token replaced by the pad id, the row padded on the right, ``[pad, 7, 8, pad]``
  where ``[bos, 7, 8, pad]`` belongs (T5 starts its decoder with its pad id, its
  ``decoder_start_token_id``);
* a pad put in front of the right tokens, then padded on the right, ``[pad, bos, 7, 8, pad]``.

One row can fit two of them (``[pad, bos, 7]`` is ``[bos, 7]`` padded on the left, or with a
pad in front); a batch's rows together tell them apart (left padding puts no pad in front of
the longest row). :func:`leading_pad_readings` gives every reading that fits EVERY row of
the batch; a check names one only when it is the only one.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "BOTH_ENDS",
    "LEFT",
    "PAD_IN_FRONT",
    "START_REPLACED",
    "UNPADDED",
    "WHOLE_WIDTH_ADDED",
    "leading_pad_readings",
    "unequal_row_readings",
]

LEFT = "left"
START_REPLACED = "start replaced"
PAD_IN_FRONT = "pad in front"


def _pads(part: Sequence[int], pad: int) -> bool:
    return all(t == pad for t in part)


def _fits(row: list[int], tokens: list[int], pad: int, reading: str) -> bool:
    n, width = len(tokens), len(row)
    if reading == LEFT:  # the pads first (none on a longest row), then exactly the tokens
        return n <= width and row[width - n :] == tokens and _pads(row[: width - n], pad)
    if not tokens:
        return _pads(row, pad)
    if reading == START_REPLACED:  # the first token replaced by the pad, then the padding
        return n <= width and row[0] == pad and row[1:n] == tokens[1:] and _pads(row[n:], pad)
    # PAD_IN_FRONT: one pad, then the tokens, then the padding
    return n < width and row[0] == pad and row[1 : n + 1] == tokens and _pads(row[n + 1 :], pad)


def leading_pad_readings(
    rows: Sequence[Sequence[int]], tokens: Sequence[Sequence[int]], pad: int
) -> list[str]:
    """The readings (:data:`LEFT`, :data:`START_REPLACED`, :data:`PAD_IN_FRONT`) that give
    every one of ``rows`` (a batch, padded) from the ids each should hold before its padding
    (``tokens``, row by row); [] when a row starts with no pad id at all, when a row's tokens
    start with the pad id themselves, or when none fits."""
    rows = [list(r) for r in rows]
    tokens = [list(t) for t in tokens]
    if len(rows) != len(tokens) or not any(r and r[0] == pad for r in rows):
        return []
    if any(t and t[0] == pad for t in tokens):
        return []
    return [
        reading
        for reading in (LEFT, START_REPLACED, PAD_IN_FRONT)
        if all(_fits(r, t, pad, reading) for r, t in zip(rows, tokens))
    ]


#: every row given (max_len - len) pads at BOTH ends (np.pad(seq, n) with one number n)
BOTH_ENDS = "both ends"
#: every row given max_len pads, not max_len - len (the width added whole)
WHOLE_WIDTH_ADDED = "whole width added"
#: no row padded at all
UNPADDED = "unpadded"


def _row_reading(row: list[int], tokens: list[int], pad: int, gap: int, width: int) -> set[str]:
    readings = set()
    if row == [pad] * gap + tokens + [pad] * gap:
        readings.add(BOTH_ENDS)
    if row in (tokens + [pad] * width, [pad] * width + tokens):
        readings.add(WHOLE_WIDTH_ADDED)
    if row == tokens:
        readings.add(UNPADDED)
    return readings


def unequal_row_readings(
    rows: Sequence[Sequence[int]], tokens: Sequence[Sequence[int]], pad: int
) -> list[str]:
    """The readings (:data:`BOTH_ENDS`, :data:`WHOLE_WIDTH_ADDED`, :data:`UNPADDED`) that
    give every one of ``rows`` (padded one by one, before they were stacked into a batch)
    from its ``tokens``, where the rows came out of unequal lengths: the padding's width
    read from the rows themselves. [] when the rows are all of one length, when their count
    is not the tokens', or when no reading fits every row."""
    rows = [list(r) for r in rows]
    tokens = [list(t) for t in tokens]
    if len(rows) != len(tokens) or len({len(r) for r in rows}) < 2:
        return []
    width = max((len(t) for t in tokens), default=0)
    fits = [_row_reading(r, t, pad, width - len(t), width) for r, t in zip(rows, tokens)]
    return [
        reading
        for reading in (BOTH_ENDS, WHOLE_WIDTH_ADDED, UNPADDED)
        if all(reading in f for f in fits)
    ]
