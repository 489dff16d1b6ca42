"""Held-out wrong answers, blind round 31 (helper b31a, 2026-11-30, lessons 01-06): mistakes new to
the benchmark, written blind (no check module, no message read) after fix round 36, to measure
how the diagnoses generalise to mistakes nobody here has seen (``held_out_authored`` in
``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L01, L02, L03 = "01_tokenization", "02_embeddings", "03_positional_encoding"
L04, L05, L06 = "04_attention", "05_multi_head_attention", "06_masking"

_c = held_out_authored("blind31a")

# Where these mistakes are reported (each page was read for this batch).

BLIND31A: list[Case] = []
