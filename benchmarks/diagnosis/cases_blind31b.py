"""Held-out wrong answers, blind round 31 (helper b31b, 2026-11-30, lessons 07-10): mistakes new to
the benchmark, written blind (no check module, no message read) after fix round 36, to measure
how the diagnoses generalise to mistakes nobody here has seen (``held_out_authored`` in
``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L07, L08, L09, L10 = "07_encoder", "08_decoder", "09_transformer", "10_training"

_c = held_out_authored("blind31b")

# Where these mistakes are reported (each page was read for this batch).

BLIND31B: list[Case] = []
