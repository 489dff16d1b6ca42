"""Scores into nbgrader's gradebook, written by the coordinating process only.

The gradebook stays nbgrader's own (``nbgrader.api.Gradebook``, any SQLAlchemy URL:
the default sqlite file or PostgreSQL), so ``nbgrader export``, the formgrader and
``nbgrader db`` keep working. A lesson is registered exactly as ``nbgrader
generate_assignment`` registers it (nbgrader itself runs, into a throw-away release
folder), and each submission's grades are stored as nbgrader's ``SaveAutoGrades``
stores them: ``auto_score`` per test cell, manual scores left alone, "No response."
on untouched answer cells, and the submission ``flagged`` when a human should look.
"""

from __future__ import annotations

import csv
import subprocess
import sys
import tempfile
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry

from transformer_course.grader.lesson import LessonSpec
from transformer_course.grader.results import SubmissionResult

EXPORT_COLUMNS = (
    "assignment",
    "duedate",
    "timestamp",
    "student_id",
    "last_name",
    "first_name",
    "email",
    "raw_score",
    "late_submission_penalty",
    "score",
    "max_score",
)


def absolute_db_url(db_url: str, course_dir: Path) -> str:
    """nbgrader resolves a relative sqlite path against the folder it runs in."""
    prefix = "sqlite:///"
    if db_url.startswith(prefix) and not db_url.startswith(prefix + "/"):
        return prefix + str((course_dir / db_url[len(prefix) :]).resolve())
    return db_url


def _registered(gradebook: Gradebook, spec: LessonSpec) -> bool:
    try:
        notebook = gradebook.find_notebook(spec.notebook, spec.lesson)
    except MissingEntry:
        return False
    cells = {cell.name: float(cell.max_score) for cell in notebook.grade_cells}
    wanted = {ex.test_grade_id: float(ex.points) for ex in spec.exercises}
    return cells == wanted


def ensure_assignment(db_url: str, spec: LessonSpec, course_dir: Path) -> None:
    """Register the lesson (its notebook and test cells, hidden tests included) in the
    gradebook, with nbgrader's own ``generate_assignment``, unless it is there already."""
    with Gradebook(db_url) as gradebook:
        if _registered(gradebook, spec):
            return
    from transformer_course.paths import tool_env

    with tempfile.TemporaryDirectory() as release:
        command = [
            sys.executable,
            "-m",
            "nbgrader",
            "generate_assignment",
            spec.lesson,
            "--force",
            f"--CourseDirectory.root={course_dir}",
            f"--CourseDirectory.release_directory={release}",
            f"--CourseDirectory.db_url={db_url}",
        ]
        result = subprocess.run(
            command, cwd=course_dir, capture_output=True, text=True, env=tool_env(), timeout=600
        )
    if result.returncode != 0:
        raise RuntimeError(
            f"nbgrader generate_assignment {spec.lesson} failed:\n{result.stdout}\n{result.stderr}"
        )


class GradebookWriter:
    """One connection for a whole run; every submission is committed as it arrives."""

    def __init__(self, db_url: str):
        self.db_url = db_url
        self.gradebook = Gradebook(db_url)

    def close(self) -> None:
        self.gradebook.close()

    def __enter__(self) -> GradebookWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def has(self, lesson: str, student: str) -> bool:
        try:
            self.gradebook.find_submission(lesson, student)
        except MissingEntry:
            return False
        return True

    def write(self, result: SubmissionResult, spec: LessonSpec) -> None:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # nbgrader's add_submission trips SQLAlchemy warnings
            self._write(result, spec)

    def _write(self, result: SubmissionResult, spec: LessonSpec) -> None:
        gb = self.gradebook
        gb.update_or_create_student(result.student)
        timestamp = _timestamp(result.timestamp)
        try:
            submission = gb.find_submission(result.lesson, result.student)
        except MissingEntry:
            kwargs = {"timestamp": timestamp} if timestamp else {}
            submission = gb.add_submission(result.lesson, result.student, **kwargs)
        else:
            if timestamp:
                submission.timestamp = timestamp
        for exercise in result.exercises:
            try:
                grade = gb.find_grade(
                    f"test_{exercise.name}", spec.notebook, result.lesson, result.student
                )
            except MissingEntry:
                continue
            grade.auto_score = float(exercise.score)
            grade.needs_manual_grade = grade.manual_score is not None
            try:
                comment = gb.find_comment(
                    exercise.name, spec.notebook, result.lesson, result.student
                )
                comment.auto_comment = "No response." if exercise.untouched else None
            except MissingEntry:
                pass
        notebook = gb.find_submission_notebook(spec.notebook, result.lesson, result.student)
        notebook.flagged = result.flagged
        gb.db.commit()
        del submission

    def export_csv(self, path: Path) -> None:
        """The grades in ``nbgrader export``'s columns and order, written by the csv module
        (nbgrader's exporter joins the fields with commas unquoted, so that an id holding a
        comma or a newline would forge another student's row)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", newline="", encoding="utf-8") as handle:
            out = csv.writer(handle, lineterminator="\n")
            out.writerow(EXPORT_COLUMNS)
            for row in self.grade_rows():
                out.writerow(["" if row[key] is None else str(row[key]) for key in EXPORT_COLUMNS])

    def grade_rows(self) -> list[dict]:
        """One row per assignment and student, as nbgrader's CSV exporter computes them."""
        gb = self.gradebook
        rows = []
        for assignment in gb.assignments:
            for student in gb.students:
                row = {
                    "assignment": assignment.name,
                    "duedate": assignment.duedate,
                    "student_id": student.id,
                    "last_name": student.last_name,
                    "first_name": student.first_name,
                    "email": student.email,
                    "max_score": assignment.max_score,
                }
                try:
                    submission = gb.find_submission(assignment.name, student.id)
                except MissingEntry:
                    row.update(timestamp="", raw_score=0.0, late_submission_penalty=0.0, score=0.0)
                else:
                    penalty = submission.late_submission_penalty
                    row.update(
                        timestamp=submission.timestamp,
                        raw_score=submission.score,
                        late_submission_penalty=penalty,
                        score=max(0.0, submission.score - penalty),
                    )
                rows.append(row)
        return rows


def _timestamp(text: str | None):
    """nbgrader's reading of a submission timestamp, or None when it cannot be read."""
    if not text:
        return None
    from nbgrader.utils import parse_utc

    try:
        return parse_utc(text)
    except (ValueError, OverflowError, TypeError):
        return None


def describe(db_url: str) -> str:
    """The URL without a password, for messages."""
    if "@" in db_url and "://" in db_url:
        scheme, rest = db_url.split("://", 1)
        credentials, host = rest.rsplit("@", 1)
        user = credentials.split(":", 1)[0]
        return f"{scheme}://{user}@{host}"
    return db_url
