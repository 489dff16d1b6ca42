"""On honest submissions the grader gives exactly nbgrader's scores, exercise by exercise.

In one scratch course directory, for every lesson: the solution, the untouched
student version, a partly solved notebook and one with a syntax error in one answer
cell are graded by the real ``nbgrader autograde`` and by ``course-grader`` (into a
second gradebook), and the two gradebooks are compared cell by cell. ``make grade``
(self-grading) is the same grader and agrees too.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from common import grader, make_course, points, scores, solutions, submission, submit

from transformer_course import registry, selfgrade
from transformer_course.build import tool_env

# one xdist worker builds this module's graded class once (make test uses --dist loadgroup)
pytestmark = [pytest.mark.pipeline, pytest.mark.xdist_group("grader_honest")]

LESSONS = registry.lessons()


def honest_submissions(lesson: str) -> dict[str, bytes]:
    solved = solutions(lesson)
    names = list(points(lesson))
    half = names[: len(names) // 2]
    broken_name = names[len(names) // 2]
    broken = dict(solved, **{broken_name: solved[broken_name] + "\n    )"})  # a syntax error
    return {
        "solved": submission(lesson, solved),
        "untouched": submission(lesson, {}),
        "partial": submission(lesson, {name: solved[name] for name in half}),
        "broken": submission(lesson, broken),
    }


def nbgrader(course, *args):
    result = subprocess.run(
        [sys.executable, "-m", "nbgrader", *args], cwd=course, capture_output=True, text=True,
        env=tool_env(), timeout=1800,
    )  # fmt: skip
    assert result.returncode == 0, f"nbgrader {args}:\n{result.stdout}\n{result.stderr}"


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    course = make_course(tmp_path_factory.mktemp("honest"), LESSONS)
    for lesson in LESSONS:
        for student, data in honest_submissions(lesson).items():
            submit(course, student, lesson, data)
    for lesson in LESSONS:
        nbgrader(course, "generate_assignment", lesson, "--force")
        nbgrader(course, "autograde", lesson, "--force")
    theirs = {
        lesson: scores(f"sqlite:///{course}/autograde/gradebook.db", lesson) for lesson in LESSONS
    }
    ours_db = f"sqlite:///{course}/ours.db"
    run = grader(course, *LESSONS, "--db", ours_db, "--no-export", "--workers", "2")
    assert run.returncode == 0, f"{run.stdout}\n{run.stderr}"
    ours = {lesson: scores(ours_db, lesson) for lesson in LESSONS}
    return course, theirs, ours, run


@pytest.mark.parametrize("lesson", LESSONS)
def test_scores_equal_nbgrader_exercise_by_exercise(both, lesson):
    _, theirs, ours, _ = both
    assert set(ours[lesson]) == {"solved", "untouched", "partial", "broken"}
    assert ours[lesson] == theirs[lesson]
    total = sum(points(lesson).values())
    assert sum(ours[lesson]["solved"].values()) == total
    assert sum(ours[lesson]["untouched"].values()) == 0
    if len(points(lesson)) > 1:  # lesson 00 has one exercise: half of it is none of it
        assert 0 < sum(ours[lesson]["partial"].values()) < total
        assert 0 < sum(ours[lesson]["broken"].values()) < total


def test_honest_submissions_are_not_flagged(both):
    _, _, _, run = both
    assert "Flagged for a human" not in run.stdout, run.stdout


def test_self_grading_is_the_same_grader(both):
    course, theirs, _, _ = both
    lesson = "01_tokenization"
    notebook = course / "autograde" / "submitted" / "partial" / lesson / f"{lesson}.ipynb"
    got = {s.grade_id.removeprefix("test_"): s.score for s in selfgrade.grade(notebook, lesson)}
    assert got == theirs[lesson]["partial"]
