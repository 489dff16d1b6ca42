"""Grade your own notebook with the hidden checks, exactly as an instructor would.

    make grade NB=notebooks/01_tokenization/01_tokenization.ipynb
    course-selfgrade notebooks/01_tokenization/01_tokenization.ipynb   (same thing)

This is the instructor's grader (``course-grader``, :mod:`transformer_course.grader`)
on one notebook: your cells run in order in a sandbox, and at each test cell the
course's visible and hidden checks run against your code, scored as nbgrader
scores them. Your notebook is not modified.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import nbformat

from transformer_course import registry
from transformer_course.build import REPO, SOLUTIONS

STUDENT = "me"


@dataclass
class CellScore:
    grade_id: str
    score: float
    max_score: float
    message: str


def lesson_of(notebook: Path) -> str:
    """The lesson a notebook belongs to: its folder name, or its generated-from metadata."""
    if (REPO / SOLUTIONS / notebook.parent.name / f"{notebook.parent.name}.ipynb").exists():
        return notebook.parent.name
    nb = nbformat.read(notebook, as_version=4)
    generated_from = nb.metadata.get("course", {}).get("generated_from", "")
    parts = Path(generated_from).parts
    if len(parts) >= 2 and (REPO / SOLUTIONS / parts[1]).is_dir():
        return parts[1]
    raise SystemExit(
        f"Can't tell which lesson {notebook} belongs to: keep it in its lesson folder "
        "(notebooks/<lesson>/<lesson>.ipynb) or pass --lesson."
    )


def prepare_course(course: Path, lesson: str) -> None:
    """Make ``course`` an nbgrader course directory with this repo's configuration
    and one lesson's instructor folder (the lesson master is ignored by the config)."""
    shutil.copy2(REPO / "nbgrader_config.py", course / "nbgrader_config.py")
    (course / "autograde").mkdir(exist_ok=True)
    shutil.copy2(REPO / "autograde" / "nbgrader_config.py", course / "autograde")
    shutil.copytree(REPO / SOLUTIONS / lesson, course / SOLUTIONS / lesson)


def grade_result(notebook: Path, lesson: str | None = None, *, sandbox: str | None = None):
    """Grade one notebook with the course's grader; the full result (scores, messages, flags)."""
    from transformer_course.grader.lesson import build_spec
    from transformer_course.grader.results import SubmissionResult
    from transformer_course.grader.runner import Task, run_task

    notebook = notebook.resolve()
    lesson = lesson or lesson_of(notebook)
    source = REPO / SOLUTIONS / lesson / f"{lesson}.ipynb"
    if not source.exists():
        raise SystemExit(f"No instructor notebook {source}: is {lesson!r} a lesson?")
    spec = build_spec(lesson, REPO)
    task = Task(STUDENT, lesson, str(notebook), notebook.read_bytes(), spec.to_dict(), mode=sandbox)
    return SubmissionResult.from_dict(run_task(task))


def scores_of(result) -> list[CellScore]:
    return [
        CellScore(f"test_{e.name}", float(e.score), float(e.points), e.message)
        for e in result.exercises
    ]


def grade(
    notebook: Path, lesson: str | None = None, *, sandbox: str | None = None
) -> list[CellScore]:
    """Grade one notebook; return the score of every exercise's test cell, in lesson order."""
    return scores_of(grade_result(notebook, lesson, sandbox=sandbox))


def format_table(lesson: str, scores: list[CellScore]) -> str:
    """The score table: one row per registered exercise, in lesson order, then what to fix."""
    by_test_cell = {s.grade_id: s for s in scores}
    rows = [
        (ex.name, by_test_cell[ex.test_grade_id])
        for ex in registry.exercises(lesson)
        if ex.test_grade_id in by_test_cell
    ]
    width = max([len("exercise"), *(len(name) for name, _ in rows)])
    lines = [f"Lesson {lesson}", "", f"{'exercise':<{width}}  points"]
    for name, s in rows:
        mark = "✓" if s.score == s.max_score else "✗"
        lines.append(f"{name:<{width}}  {s.score:>2g} / {s.max_score:<2g}  {mark}")
    total, possible = sum(s.score for _, s in rows), sum(s.max_score for _, s in rows)
    lines += [f"{'total':<{width}}  {total:>2g} / {possible:<2g}"]
    failed = [(name, s) for name, s in rows if s.score < s.max_score]
    if failed:
        lines += ["", "What to fix:"]
        for name, s in failed:
            lines.append("")
            message = s.message.removeprefix(f"{name}: ")
            lines += textwrap.wrap(f"✗ {name}: {message}", 100, subsequent_indent="    ")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebook", type=Path, help="your notebook (.ipynb)")
    parser.add_argument("--lesson", help="lesson folder name, if the notebook was moved")
    parser.add_argument("--json", action="store_true", help="print the scores as JSON")
    args = parser.parse_args(argv)
    if not args.notebook.exists():
        parser.error(f"{args.notebook} does not exist")
    lesson = args.lesson or lesson_of(args.notebook.resolve())
    result = grade_result(args.notebook, lesson)
    scores = scores_of(result)
    if args.json:
        print(json.dumps([s.__dict__ for s in scores], indent=1))
        return 0
    print(format_table(lesson, scores))
    notes = [flag.splitlines()[0] for flag in result.flags]
    if notes:
        print("\nNotes from the grader:")
        for note in notes:
            print(textwrap.fill(note, 100, initial_indent="  - ", subsequent_indent="    "))
    return 0


if __name__ == "__main__":
    sys.exit(main())
