"""Held-out wrong answers, blind round 20 (helper b20d, 2026-11-28, lessons 03, 04, 06, 08,
09 and 12, two thirds transposed from public reports): mistakes new to the benchmark,
written blind (no check module, no message read) while fix round 22 changed the checks, to
measure how the diagnoses generalise to mistakes nobody here has seen
(``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

_c = held_out_authored("blind20d")

BLIND20D: list[Case] = []
