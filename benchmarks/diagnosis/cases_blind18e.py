"""Held-out wrong answers for lessons 05-11, blind round 18 (helper b18e, 2026-11-28):
mistakes new to the benchmark, written blind (no check module, no message read) while fix
round 20 changed the checks, to measure how the diagnoses generalise to mistakes nobody
here has seen (``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case

BLIND18E: list[Case] = []
