"""Held-out wrong answers, blind round 6 (helper b6c, 2026-11-26): filled by the round's helper."""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case

BLIND6C: list[Case] = []
