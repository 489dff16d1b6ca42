"""Held-out wrong answers, blind round 7 (helper b7b, 2026-11-27): filled by the round's helper."""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case

BLIND7B: list[Case] = []
