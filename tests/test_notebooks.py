"""Every lesson, end to end: the solution notebook passes every visible and hidden
test; the untouched student notebook fails every graded test with a clear
message; nbgrader's own validator agrees; the lesson runs fast.

Each notebook runs once per test run (``common.validated_notebook``): where the run grades
the class of honest submissions (tests/test_grader_honest.py), nbgrader autograde's run of
the solution and of the untouched notebook there, otherwise nbgrader's validator's own run;
the verdict is nbgrader's validator's on the notebook file with that run's outputs, and the
same outputs are what these tests read. The command line, ``nbgrader validate``, is run on
lesson 00 both ways."""

from __future__ import annotations

import subprocess
import sys

import pytest
from common import REPO, validated_notebook

from transformer_course.build import lessons, tool_env

LESSONS = lessons()
MAX_SECONDS = 60  # "well under a minute on a 2-core CPU"


def solution_path(lesson):
    return REPO / "solutions" / lesson / f"{lesson}.ipynb"


def student_path(lesson):
    return REPO / "notebooks" / lesson / f"{lesson}.ipynb"


def test_there_are_lessons():
    assert "01_tokenization" in LESSONS, LESSONS


@pytest.mark.notebook
@pytest.mark.parametrize("lesson", LESSONS)
def test_solution_notebook_passes_everything(lesson):
    run = validated_notebook(solution_path(lesson))
    assert run.verdict == {}, f"nbgrader validate does not say the solution passes: {run.verdict}"
    problems = []
    for cell in run.nb.cells:
        if cell.cell_type != "code":
            continue
        for error in run.errors(cell):
            problems.append(f"cell {cell.id}: {error.ename}: {error.evalue}")
        if run.stderr(cell):
            problems.append(
                f"cell {cell.id} wrote to stderr (nbgrader scores that as a failure): "
                f"{run.stderr(cell)[:300]}"
            )
    graded = run.graded_cells()
    assert graded, f"{lesson} has no graded test cells"
    for cell in graded:
        out = run.stdout(cell)
        if "visible checks passed" not in out or "hidden checks passed" not in out:
            problems.append(
                f"test cell {cell.id} did not report both visible and hidden checks passing: {out!r}"
            )
        if cell.source.rstrip().splitlines()[-1].strip().replace(".", "").isdigit():
            problems.append(
                f"test cell {cell.id} ends with a number (nbgrader reads it as partial credit)"
            )
    assert not problems, "\n".join(problems)
    assert run.seconds < MAX_SECONDS, f"{lesson} took {run.seconds:.1f}s"


@pytest.mark.notebook
@pytest.mark.parametrize("lesson", LESSONS)
def test_untouched_student_notebook_fails_every_graded_cell(lesson):
    path = student_path(lesson)
    text = path.read_text()
    for marker in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "hidden=True"):
        assert marker not in text, f"{path} reveals a solution: it contains {marker!r}"
    run = validated_notebook(path)
    assert run.verdict == {}, f"nbgrader validate --invert finds cells that pass: {run.verdict}"
    graded = run.graded_cells()
    assert graded
    for cell in graded:
        errors = run.errors(cell)
        assert errors, f"graded cell {cell.id} passed on the untouched student notebook"
        error = errors[0]
        assert error.ename == "CheckFailure", (
            f"graded cell {cell.id} failed with a bare {error.ename}: {error.evalue}"
        )
        assert "not implemented yet" in error.evalue, error.evalue


@pytest.mark.notebook
@pytest.mark.parametrize("lesson", LESSONS)
def test_untouched_student_notebooks_demos_run_without_errors(lesson):
    """A demo cell (neither an answer nor a test cell) that calls an unfinished exercise
    says so in a line ("softmax is not written yet: ..."), as lessons 10-12's do, instead of
    a NotImplementedError traceback; and a later demo never depends on a name that only an
    unfinished exercise's demo defines (lessons 03 and 06 ended in NameErrors), so a
    learner stuck on one exercise still sees every later section (the same run as the test
    above)."""
    run = validated_notebook(student_path(lesson))
    bare = []
    for index, cell in enumerate(run.nb.cells):
        nbgrader = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code" or nbgrader.get("grade") or nbgrader.get("solution"):
            continue
        bare += [
            f"cell {index}: {cell.source.splitlines()[0]!r}: {error.ename}: {error.evalue}"
            for error in run.errors(cell)
        ]
    assert not bare, "\n".join(bare)


@pytest.mark.notebook
@pytest.mark.parametrize("lesson", ["00_welcome"])
def test_nbgrader_validate_command(lesson):
    """The command line gives nbgrader's verdicts too: the solution passes, the student
    version fails (--invert). (Every lesson's verdicts: the two tests above.)"""
    for path, extra in ((solution_path(lesson), []), (student_path(lesson), ["--invert"])):
        result = subprocess.run(
            [sys.executable, "-m", "nbgrader", "validate", str(path), *extra],
            capture_output=True,
            text=True,
            cwd=REPO,
            env=tool_env(),
        )
        output = result.stdout + result.stderr
        assert result.returncode == 0, output
        expected = (
            "Success! The notebook does not pass any tests."
            if extra
            else "Success! Your notebook passes all the tests."
        )
        assert expected in output, output
