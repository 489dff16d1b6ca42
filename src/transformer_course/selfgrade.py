"""Grade your own notebook with the hidden checks, exactly as an instructor would.

    make grade NB=notebooks/01_tokenization/01_tokenization.ipynb
    course-grade notebooks/01_tokenization/01_tokenization.ipynb   (same thing)

This runs the real nbgrader pipeline in a scratch folder: ``generate_assignment``
from the instructor version in ``solutions/`` (which records the test cells, hidden
checks included), then ``autograde`` on a copy of your notebook. nbgrader puts the
instructor's test cells back in place of yours, runs everything, and scores each
test cell. Your notebook is not modified.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import dataclass
from pathlib import Path

import nbformat

from transformer_course import registry
from transformer_course.build import REPO, SOLUTIONS, tool_env

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


def _run(args: list[str], cwd: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "nbgrader", *args], cwd=cwd, capture_output=True, text=True,
        env=tool_env(),
    )  # fmt: skip
    if result.returncode != 0:
        raise SystemExit(f"nbgrader {args[0]} failed:\n{result.stdout}\n{result.stderr}")


def _failure_message(cell) -> str:
    """The learner-facing message of a failed test cell (what nbgrader's feedback shows)."""
    for output in cell.get("outputs", []):
        if output.output_type == "error":
            return output.evalue.strip() or output.ename
        if output.output_type == "stream" and output.name == "stderr":
            return (
                "the cell wrote to stderr, which nbgrader counts as a failure: "
                + output.text.strip()
            )
    return ""


def grade(notebook: Path, lesson: str | None = None) -> list[CellScore]:
    """Autograde one notebook; return the score of every graded cell, in notebook order."""
    notebook = notebook.resolve()
    lesson = lesson or lesson_of(notebook)
    source = REPO / SOLUTIONS / lesson / f"{lesson}.ipynb"
    if not source.exists():
        raise SystemExit(f"No instructor notebook {source}: is {lesson!r} a lesson?")
    with tempfile.TemporaryDirectory() as scratch:
        course = Path(scratch)
        prepare_course(course, lesson)
        submitted = course / "autograde" / "submitted" / STUDENT / lesson
        submitted.mkdir(parents=True)
        shutil.copy2(notebook, submitted / source.name)
        _run(["generate_assignment", lesson, "--force"], course)
        _run(["autograde", lesson, f"--student={STUDENT}", "--force"], course)

        from nbgrader.api import Gradebook

        autograded = nbformat.read(
            course / "autograde" / "autograded" / STUDENT / lesson / source.name, as_version=4
        )
        messages = {
            cell.metadata["nbgrader"]["grade_id"]: _failure_message(cell)
            for cell in autograded.cells
            if cell.metadata.get("nbgrader", {}).get("grade")
        }
        scores = []
        with Gradebook(f"sqlite:///{course}/autograde/gradebook.db") as gradebook:
            for grade_id, message in messages.items():
                cell = gradebook.find_grade(grade_id, source.stem, lesson, STUDENT)
                scores.append(
                    CellScore(grade_id, float(cell.score), float(cell.max_score), message)
                )
        return scores


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
    scores = grade(args.notebook, lesson)
    if args.json:
        print(json.dumps([s.__dict__ for s in scores], indent=1))
    else:
        print(format_table(lesson, scores))
    return 0


if __name__ == "__main__":
    sys.exit(main())
