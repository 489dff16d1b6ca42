"""Held-out wrong answers for lessons 11, blind round 17 (helper b17b, 2026-11-28):
mistakes new to the benchmark, written against the checks after round 19's fixes, to
measure how the diagnoses generalise to mistakes nobody here has seen (``held_out_authored``
in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case

BLIND17B: list[Case] = []
