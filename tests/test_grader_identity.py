"""Identities and exports (issue 14 §6): student ids from the submitted folder layout are
validated as strictly as ids from an LMS zip, grades.csv is written with CSV quoting, and
a submission that cannot be saved still gets a feedback page and a place in --json."""

from __future__ import annotations

import csv
import json
import os
import sys
from pathlib import Path

import pytest
from common import grader, make_course, solutions, submission, submit

from transformer_course.grader import collect
from transformer_course.grader.gradebook import GradebookWriter

HOSTILE_IDS = ["mallory,\nbob,L,F,e,100,0,100,100", 'quo"te', "tab\there", "-dash", ""]


def test_folder_ids_are_validated_as_strictly_as_zip_ids(tmp_path):
    lesson = "00_welcome"
    for student in ["alice", "bob.smith@uni", *[s for s in HOSTILE_IDS if s]]:
        folder = tmp_path / student / lesson
        folder.mkdir(parents=True)
        (folder / f"{lesson}.ipynb").write_bytes(b"{}")
    found, refused = collect.from_folder(tmp_path, [lesson])
    assert sorted(s.student for s in found) == ["alice", "bob.smith@uni"]
    assert len(refused) == len([s for s in HOSTILE_IDS if s])
    assert all("not a valid student id" in r for r in refused)


def test_grades_csv_is_quoted_so_no_id_can_forge_a_row(tmp_path, monkeypatch):
    """Even an id that slipped into the gradebook another way stays one field of one row."""
    scripts = str(Path(sys.executable).parent)  # nbgrader's gradebook runs alembic
    monkeypatch.setenv("PATH", os.pathsep.join([scripts, os.environ.get("PATH", "")]))
    db_url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    ids = ["alice", "mallory,\nbob,,,,100,0,100,100", 'quo"te']
    with GradebookWriter(db_url) as writer:
        writer.gradebook.update_or_create_assignment("00_welcome")
        for student in ids:
            writer.gradebook.update_or_create_student(student)
        writer.export_csv(tmp_path / "grades.csv")
    with open(tmp_path / "grades.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert sorted(row["student_id"] for row in rows) == sorted(ids)
    assert all(row["assignment"] == "00_welcome" for row in rows)
    plain = (tmp_path / "grades.csv").read_text().splitlines()
    assert plain[0].split(",")[3] == "student_id"  # nbgrader export's columns


@pytest.mark.pipeline
def test_every_submission_gets_feedback_and_json_and_hostile_ids_are_refused(tmp_path):
    lesson = "00_welcome"
    course = make_course(tmp_path / "course", [lesson])
    submit(course, "alice", lesson, submission(lesson, solutions(lesson)))
    deep = b'{"cells": [], "metadata": {"x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}}"
    submit(course, "deep", lesson, deep)
    nested = json.loads(submission(lesson, solutions(lesson)))
    submit(course, "deep_meta", lesson, b"")
    (course / "autograde" / "submitted" / "deep_meta" / lesson / f"{lesson}.ipynb").write_text(
        json.dumps(nested)[:-1] + ', "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    )
    submit(course, HOSTILE_IDS[0], lesson, submission(lesson, solutions(lesson)))
    run = grader(course, lesson, "--json", str(tmp_path / "results.json"), "--workers", "1")
    assert run.returncode == 3, run.stdout + run.stderr  # some submissions are flagged
    results = {r["student"]: r for r in json.loads((tmp_path / "results.json").read_text())}
    assert set(results) == {"alice", "deep", "deep_meta"}, run.stdout
    for student in ("deep", "deep_meta"):
        assert results[student]["flags"], results[student]
        page = course / "autograde" / "feedback" / student / lesson / f"{lesson}.html"
        assert page.is_file(), run.stdout
    assert "not a valid student id" in run.stdout
    with open(course / "autograde" / "grades.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert sorted(row["student_id"] for row in rows) == ["alice", "deep", "deep_meta"]
