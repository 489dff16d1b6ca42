"""Held-out wrong answers, blind round 31 (helper b31c, 2026-11-30, lessons 11-12): mistakes new to
the benchmark, written blind (no check module, no message read) after fix round 36, to measure
how the diagnoses generalise to mistakes nobody here has seen (``held_out_authored`` in
``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L11, L12 = "11_language_model", "12_inference"

_c = held_out_authored("blind31c")

# Where these mistakes are reported (each page was read for this batch).

BLIND31C: list[Case] = []
