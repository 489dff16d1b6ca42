"""The real nbgrader pipeline, end to end, on synthetic submissions of lesson 01.

In a scratch copy of the course directory (this repo's nbgrader configuration,
the instructor notebook): generate_assignment, five students' submissions,
autograde, generate_feedback, export; then the exact scores in the CSV. Also the
self-study grader (`make grade`) on the same notebooks.
"""

from __future__ import annotations

import csv
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from transformer_course import registry, selfgrade
from transformer_course.build import REPO, tool_env

# one xdist worker runs this module's nbgrader course once (make test uses --dist loadgroup)
pytestmark = [
    pytest.mark.pipeline,
    pytest.mark.xdist_group("nbgrader_pipeline"),
    pytest.mark.slow(50),
]

LESSON = "01_tokenization"
POINTS = {ex.test_grade_id: ex.points for ex in registry.exercises(LESSON)}
TOTAL = sum(POINTS.values())
PARTIAL = ["tokenize", "build_vocab", "encode", "decode", "pad_batch"]
# What a cheater hard-codes: the visible inputs of check_tokenize and their answers
# (tests/test_01_tokenization.py keeps this in step with the check).
VISIBLE_TOKENIZE = {
    "Hello, I love you!": ["hello", ",", "i", "love", "you", "!"],
    "The ball is blue.": ["the", "ball", "is", "blue", "."],
    "Hi   how are you?": ["hi", "how", "are", "you", "?"],
    "Wait... what?!": ["wait", ".", ".", ".", "what", "?", "!"],
    "Déjà vu:\t2 snake_case\nwords": ["déjà", "vu", ":", "2", "snake_case", "words"],
    "She didn't.": ["she", "didn", "'", "t", "."],
    'A well-known "quote" (really).': 'a well - known " quote " ( really ) .'.split(),
    "": [],
    "Straße: λόγος mp3": ["straße", ":", "λόγος", "mp3"],
    "It costs $3.50, or 1,000 yen.": "it costs $ 3 . 50 , or 1 , 000 yen .".split(),
    "Il dit «oui» — puis… non": "il dit « oui » — puis … non".split(),
    "任务：Tokenize 文本。": ["任务", "：", "tokenize", "文本", "。"],
    "İzmir, İstanbul": ["i", "\u0307", "zmir", ",", "i", "\u0307", "stanbul"],
}


def nbgrader(course: Path, *args: str) -> subprocess.CompletedProcess:
    result = subprocess.run(
        [sys.executable, "-m", "nbgrader", *args],
        cwd=course,
        capture_output=True,
        text=True,
        env=tool_env(),
        timeout=600,
    )
    assert result.returncode == 0, f"nbgrader {args}:\n{result.stdout}\n{result.stderr}"
    return result


def solution_sources() -> dict[str, str]:
    """grade_id -> the instructor's answer, with the solution markers removed."""
    nb = nbformat.read(REPO / "solutions" / LESSON / f"{LESSON}.ipynb", as_version=4)
    sources = {}
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution"):
            lines = [line for line in cell.source.splitlines() if "### " not in line]
            sources[meta["grade_id"]] = "\n".join(lines)
    return sources


def submission(release: Path, answers: dict[str, str], edit_tests: str | None = None):
    """The student version with some answer cells filled in (and test cells tampered with)."""
    nb = nbformat.read(release, as_version=4)
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade_id") in answers:
            cell.source = answers[meta["grade_id"]]
        if edit_tests is not None and meta.get("grade"):
            cell.source = edit_tests
    return nb


@pytest.fixture(scope="module")
def graded_course(tmp_path_factory):
    course = tmp_path_factory.mktemp("course")
    selfgrade.prepare_course(course, LESSON)

    nbgrader(course, "generate_assignment", LESSON, "--force")
    release = course / "notebooks" / LESSON / f"{LESSON}.ipynb"
    assert not (course / "notebooks" / LESSON / f"{LESSON}.py").exists(), "master leaked"
    assert release.read_text() == (REPO / "notebooks" / LESSON / f"{LESSON}.ipynb").read_text()

    solved = solution_sources()
    broken = dict(
        solved, train_bpe=solved["train_bpe"].replace("def train_bpe(", "def train_bpe(:")
    )
    hard_coded = dict(
        solved,
        tokenize=(
            "def tokenize(text):\n"
            f"    known = {VISIBLE_TOKENIZE!r}\n"
            "    return known.get(text, text.lower().split())\n"
        ),
    )
    students = {
        "alice": submission(release, solved),  # everything right
        "bob": submission(release, {}),  # the untouched student version
        "carol": submission(release, {k: solved[k] for k in PARTIAL}),  # first five exercises
        "dave": submission(release, broken),  # one answer cell has a syntax error
        "erin": submission(release, hard_coded),  # passes the visible tokenize checks only
        "frank": submission(release, {}, edit_tests="pass"),  # tampered with every test cell
    }
    for student, nb in students.items():
        folder = course / "autograde" / "submitted" / student / LESSON
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / f"{LESSON}.ipynb")

    nbgrader(course, "autograde", LESSON)
    nbgrader(course, "generate_feedback", LESSON)
    nbgrader(course, "export", "--to", "autograde/grades.csv")
    return course


EXPECTED = {
    "alice": TOTAL,
    "bob": 0,
    "carol": sum(POINTS[f"test_{k}"] for k in PARTIAL),
    "dave": TOTAL - POINTS["test_train_bpe"],
    "erin": TOTAL - POINTS["test_tokenize"],
    "frank": 0,
}


def test_exported_scores_are_exact(graded_course):
    with open(graded_course / "autograde" / "grades.csv") as handle:
        rows = {row["student_id"]: row for row in csv.DictReader(handle)}
    assert set(rows) == set(EXPECTED)
    for student, expected in EXPECTED.items():
        row = rows[student]
        assert row["assignment"] == LESSON
        assert float(row["max_score"]) == TOTAL
        assert float(row["raw_score"]) == expected, (student, row)
        assert float(row["score"]) == expected, (student, row)


def test_feedback_explains_failures(graded_course):
    feedback = graded_course / "autograde" / "feedback"
    for student in EXPECTED:
        assert (feedback / student / LESSON / f"{LESSON}.html").exists(), student
    bob = (feedback / "bob" / LESSON / f"{LESSON}.html").read_text()
    assert "not implemented yet" in bob
    erin = (feedback / "erin" / LESSON / f"{LESSON}.html").read_text()
    assert "tokenize" in erin and "split on whitespace only" in erin
    alice = (feedback / "alice" / LESSON / f"{LESSON}.html").read_text()
    assert "hidden checks passed" in alice


def test_self_grading_agrees_with_the_instructor(graded_course):
    """`make grade` on the same submissions gives the same per-exercise scores."""
    for student in ("alice", "carol", "erin"):
        notebook = graded_course / "autograde" / "submitted" / student / LESSON / f"{LESSON}.ipynb"
        scores = {s.grade_id: s.score for s in selfgrade.grade(notebook, LESSON)}
        assert set(scores) == set(POINTS)
        assert sum(scores.values()) == EXPECTED[student], (student, scores)
    table = selfgrade.format_table(LESSON, selfgrade.grade(notebook, LESSON))
    assert re.search(r"^tokenize +0 / 2 +✗$", table, re.M) and "split on whitespace" in table


def test_make_grade_command_line_on_an_untouched_notebook():
    """What `make grade NB=...` runs, as a learner would: a table and what to fix."""
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "transformer_course.selfgrade",
            "notebooks/00_welcome/00_welcome.ipynb",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=tool_env(),
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert re.search(r"^center_rows +0 / 1 +✗$", result.stdout, re.M), result.stdout
    assert re.search(r"^total +0 / 1", result.stdout, re.M), result.stdout
    assert "not implemented yet" in result.stdout
