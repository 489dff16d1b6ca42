"""The check-latency benchmark (benchmarks/check_latency.py): it times an exercise's
visible check on the reference and on the diagnosis benchmark's wrong answers, its record
covers every coding exercise, and the README quotes the record's figures."""

from __future__ import annotations

import json
import sys

from common import REPO

sys.path.insert(0, str(REPO))

from benchmarks import check_latency
from benchmarks.diagnosis.cases import CASES
from transformer_course import registry


def test_one_fast_exercise_is_measured():
    exercise = registry.exercise("04_attention", "softmax")
    row = check_latency.measure(exercise, repeats=1, wrong_repeats=1)
    wrong = [c for c in CASES if (c.lesson, c.exercise) == ("04_attention", "softmax")]
    assert wrong
    assert row["lesson"] == "04_attention" and row["exercise"] == "softmax"
    assert row["wrong_answers"] == len(wrong)
    assert 0 < row["reference"] < 60
    assert 0 < row["wrong_median"] <= row["wrong_max"] < 60
    summary = check_latency.summary([row])
    assert summary["exercises"] == 1
    assert summary["slowest"] == "04_attention/softmax"
    assert summary["over_target"] == len(summary["over"]) == (check_latency.slowest(row) > 1.0)


def test_the_record_covers_every_coding_exercise_and_its_summary():
    record = json.loads(check_latency.RECORD.read_text())
    rows = record["rows"]
    assert [(r["lesson"], r["exercise"]) for r in rows] == [
        (e.lesson, e.name) for e in registry.all_exercises() if e.kind != "quiz"
    ]
    assert record["summary"] == check_latency.summary(rows)


def test_the_readme_quotes_the_recorded_figures():
    text = " ".join((REPO / "README.md").read_text().split())
    for path in (check_latency.BEFORE, check_latency.RECORD):
        record = json.loads(path.read_text())
        assert record["summary"] == check_latency.summary(record["rows"])
        assert check_latency.sentence(record) in text, path.name
