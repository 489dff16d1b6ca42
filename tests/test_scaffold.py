"""A new lesson in one command: in a throwaway copy of the course, `python -m
transformer_course.scaffold` writes a lesson's three files from the template and builds it;
nothing outside the lesson's own files changes except the generated course maps; the copy's
notebooks are current; the lesson's own tests and the generic ones pass; and `course-grader`
grades a solved and an untouched notebook of it, full marks and none."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from common import REPO, tool_env

pytestmark = [pytest.mark.pipeline, pytest.mark.xdist_group("scaffold"), pytest.mark.slow(55)]

LESSON = "13_mixture_of_experts"
TOPIC = "mixture_of_experts"
#: what `make notebooks` regenerates from every lesson: the course maps
COURSE_MAPS = {
    "README.md",
    "solutions/00_welcome/00_welcome.py",
    "solutions/00_welcome/00_welcome.ipynb",
    "notebooks/00_welcome/00_welcome.ipynb",
}
LESSON_OWN = {
    f"solutions/{LESSON}/{LESSON}.py",
    f"solutions/{LESSON}/{LESSON}.ipynb",
    f"notebooks/{LESSON}/{LESSON}.ipynb",
    f"src/transformer_course/checks/{TOPIC}.py",
    f"src/transformer_course/reference/{TOPIC}.py",
    f"tests/test_{LESSON}.py",
}
COPIED = (
    "src",
    "solutions",
    "notebooks",
    "tests",
    "autograde",
    "README.md",
    "pyproject.toml",
    "nbgrader_config.py",
)
IGNORED = shutil.ignore_patterns(
    "__pycache__",
    "*.egg-info",
    ".ipynb_checkpoints",
    "*.pt",
    "submitted",
    "autograded",
    "feedback",
    "gradebook.db",
)


def _digests(root: Path) -> dict[str, str]:
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in root.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }


def _run(course: Path, *command: str, check: bool = True) -> subprocess.CompletedProcess:
    env = tool_env()
    env["PYTHONPATH"] = str(course / "src")  # the copy's package, not the installed one
    result = subprocess.run(
        [sys.executable, *command], cwd=course, env=env, capture_output=True, text=True
    )
    if check:
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    course = tmp_path_factory.mktemp("scaffold") / "course"
    course.mkdir()
    for name in COPIED:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, course / name, ignore=IGNORED)
        else:
            shutil.copy2(source, course / name)
    return course


@pytest.fixture(scope="module")
def scaffolded(course) -> dict[str, set[str]]:
    before = _digests(course)
    run = _run(course, "-m", "transformer_course.scaffold", LESSON, "Mixture of experts")
    assert f"built {LESSON}" in run.stdout
    after = _digests(course)
    return {
        "new": set(after) - set(before),
        "changed": {name for name in before if name in after and before[name] != after[name]},
        "removed": set(before) - set(after),
    }


def test_the_scaffold_writes_only_the_lesson_s_files_and_the_course_maps(scaffolded):
    assert scaffolded["new"] == LESSON_OWN
    assert scaffolded["changed"] <= COURSE_MAPS and "README.md" in scaffolded["changed"]
    assert not scaffolded["removed"]


def test_the_new_lesson_is_in_the_course_maps(course, scaffolded):
    row = f"| 13 | [Mixture of experts](notebooks/{LESSON}/{LESSON}.ipynb) | `row_sums` |"
    assert row in (course / "README.md").read_text().splitlines()
    welcome = (course / "solutions/00_welcome/00_welcome.py").read_text()
    assert "# | 13 · Mixture of experts | `row_sums` |" in welcome.splitlines()


def test_the_scaffolded_course_is_current_and_its_tests_pass(course, scaffolded):
    check = _run(course, "-m", "transformer_course.build", "--check", LESSON, "00_welcome")
    assert json.loads(check.stdout.strip().splitlines()[-1])["stale"] == 0
    tests = _run(
        course,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        f"tests/test_{LESSON}.py",
        "tests/test_exercises.py",
        "tests/test_structure.py",
        "-k",
        f"{LESSON} or {TOPIC} or quiz_names",
    )
    assert " passed" in tests.stdout and "failed" not in tests.stdout, tests.stdout[-2000:]


def test_course_grader_grades_the_new_lesson(course, scaffolded, tmp_path):
    submitted = course / "autograde" / "submitted"
    for student, folder in (("solved", "solutions"), ("untouched", "notebooks")):
        target = submitted / student / LESSON
        target.mkdir(parents=True)
        shutil.copy2(course / folder / LESSON / f"{LESSON}.ipynb", target / f"{LESSON}.ipynb")
    report = tmp_path / "results.json"
    run = _run(
        course,
        "-m",
        "transformer_course.grader",
        LESSON,
        "--course-dir",
        str(course),
        "--workers",
        "1",
        "--json",
        str(report),
        check=False,
    )
    assert run.returncode in (0, 3), run.stdout[-3000:] + run.stderr[-3000:]
    scores = {
        r["student"]: {e["name"]: e["score"] for e in r["exercises"]}
        for r in json.loads(report.read_text())
    }
    assert scores == {
        "solved": {"row_sums": 1.0, f"quiz_{TOPIC}_shape": 1.0},
        "untouched": {"row_sums": 0.0, f"quiz_{TOPIC}_shape": 0.0},
    }
    assert (course / "autograde" / "grades.csv").exists()
    assert os.path.exists(course / "autograde" / "feedback" / "solved" / LESSON / f"{LESSON}.html")
