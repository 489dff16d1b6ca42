"""Held-out wrong answers for lessons 00-04, blind round 10, second batch (helper b10i,
2026-11-27), written after round 10's first fixes of these lessons (b10c and b10f).

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored  # noqa: F401

BLIND10I: list[Case] = []
