"""Held-out wrong answers for lesson 12, blind round 11 (helper r11e, 2026-11-27).

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored  # noqa: F401

BLIND11E: list[Case] = []
