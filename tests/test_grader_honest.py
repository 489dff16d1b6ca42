"""On honest submissions the grader gives exactly nbgrader's scores, exercise by exercise.

In scratch course directories, for every lesson: the solution, the untouched student
version and a partly solved notebook with a syntax error in one of its answers are graded
by the real ``nbgrader autograde`` and by ``course-grader`` (into a second gradebook), and
the two gradebooks are compared cell by cell. ``make grade`` (self-grading) is the same
grader and agrees too.

The class is graded in two parts (``common.graded_class``), each by one pytest-xdist worker
(an xdist_group each); nbgrader's runs of the solution and of the untouched notebook are
also the runs that tests/test_notebooks.py and the lessons' own tests read
(``common.validated_notebook``).
"""

from __future__ import annotations

import pytest
from common import (
    broken_exercise,
    class_group,
    class_part,
    class_parts,
    graded_class,
    half_solved,
    points,
)

from transformer_course import selfgrade

pytestmark = pytest.mark.pipeline

#: about how long a part takes on CI's two cores, for the order in which they start
SECONDS = {"trained": 250, "others": 250}


def in_part(value, part: str):
    """A parameter of a test that reads that part of the class: the part's xdist_group (one
    worker grades it) and its weight (it starts first)."""
    return pytest.param(
        value, marks=[pytest.mark.xdist_group(class_group(part)), pytest.mark.slow(SECONDS[part])]
    )


PARTS = class_parts()
LESSONS = [in_part(lesson, part) for part, lessons in PARTS.items() for lesson in lessons]


@pytest.mark.parametrize("lesson", LESSONS)
def test_scores_equal_nbgrader_exercise_by_exercise(lesson):
    graded = graded_class(class_part(lesson))
    theirs, ours = graded.theirs, graded.ours
    assert graded.returncode == 0, f"{graded.stdout}\n{graded.stderr}"
    assert set(ours[lesson]) == {"solved", "untouched", "partial"}
    assert ours[lesson] == theirs[lesson]
    total = sum(points(lesson).values())
    assert sum(ours[lesson]["solved"].values()) == total
    assert sum(ours[lesson]["untouched"].values()) == 0
    partial, broken, half = ours[lesson]["partial"], broken_exercise(lesson), half_solved(lesson)
    assert partial[broken] == 0, (broken, partial)
    assert all(partial[name] == 0 for name in points(lesson) if name not in half), partial
    if len(half) > 1:  # lesson 00 has one exercise: half of it is none of it
        # the answers after the syntax error still run and earn their points
        after = half[half.index(broken) + 1 :] or [n for n in half if n != broken]
        assert sum(partial[name] for name in after) > 0, (broken, partial)


@pytest.mark.parametrize("part", [in_part(part, part) for part in PARTS])
def test_honest_submissions_are_not_flagged(part):
    graded = graded_class(part)
    assert graded.returncode == 0, f"{graded.stdout}\n{graded.stderr}"
    assert "Flagged for a human" not in graded.stdout, graded.stdout


SELF_GRADED = "01_tokenization"


@pytest.mark.parametrize("lesson", [in_part(SELF_GRADED, class_part(SELF_GRADED))])
def test_self_grading_is_the_same_grader(lesson):
    graded = graded_class(class_part(lesson))
    notebook = graded.course / "autograde" / "submitted" / "partial" / lesson / f"{lesson}.ipynb"
    got = {s.grade_id.removeprefix("test_"): s.score for s in selfgrade.grade(notebook, lesson)}
    assert got == graded.theirs[lesson]["partial"]
