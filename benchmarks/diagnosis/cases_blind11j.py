"""Held-out wrong answers for lessons 00-02, blind round 11, second batch (helper s11j,
2026-11-27), written after round 11's first fixes of these lessons.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored  # noqa: F401

BLIND11J: list[Case] = []
