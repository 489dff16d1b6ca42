"""Helpers for the grader's tests (no tests here): scratch course directories, synthetic
submissions built from the real lessons, running the grader's command, reading grades.

Submissions are made from the committed student notebook with answer cells replaced
by the instructor's solutions (markers removed) or by the code a test wants, so they
follow whatever the lessons contain today.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from transformer_course import registry
from transformer_course.build import REPO, tool_env

MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")


def notebook(lesson: str, which: str = "notebooks", root: Path = REPO) -> dict:
    return json.loads((root / which / lesson / f"{lesson}.ipynb").read_text())


def meta(cell: dict) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def source(cell: dict) -> str:
    text = cell.get("source", "")
    return "".join(text) if isinstance(text, list) else text


def solutions(lesson: str, root: Path = REPO) -> dict[str, str]:
    """grade_id -> the instructor's answer, markers removed."""
    found = {}
    for cell in notebook(lesson, "solutions", root)["cells"]:
        if meta(cell).get("solution"):
            lines = [line for line in source(cell).splitlines() if line.strip() not in MARKERS]
            found[meta(cell)["grade_id"]] = "\n".join(lines)
    return found


def code_cell(text: str, nbgrader: dict | None = None) -> dict:
    metadata = {"nbgrader": nbgrader} if nbgrader else {}
    return {"cell_type": "code", "execution_count": None, "metadata": metadata, "outputs": [],
            "source": text}  # fmt: skip


def submission(
    lesson: str,
    answers: dict[str, str],
    *,
    after: dict[str, str] | None = None,
    before: dict[str, str] | None = None,
    edit=None,
    root: Path = REPO,
) -> bytes:
    """The student version with answer cells replaced; ``after``/``before`` add a cell next to
    the cell with that grade_id; ``edit(nb)`` may change anything else."""
    nb = copy.deepcopy(notebook(lesson, "notebooks", root))
    cells = []
    for cell in nb["cells"]:
        grade_id = meta(cell).get("grade_id")
        if before and grade_id in before:
            cells.append(code_cell(before[grade_id]))
        if grade_id in answers:
            cell["source"] = answers[grade_id]
        cells.append(cell)
        if after and grade_id in after:
            cells.append(code_cell(after[grade_id]))
    nb["cells"] = cells
    if edit is not None:
        edit(nb)
    return json.dumps(nb, indent=1).encode()


def points(lesson: str) -> dict[str, float]:
    return {ex.name: float(ex.points) for ex in registry.exercises(lesson)}


def make_course(course: Path, lessons: list[str], root: Path = REPO) -> Path:
    """A scratch nbgrader course directory with this repository's configuration."""
    course.mkdir(parents=True, exist_ok=True)
    shutil.copy2(root / "nbgrader_config.py", course / "nbgrader_config.py")
    (course / "autograde").mkdir(exist_ok=True)
    shutil.copy2(root / "autograde" / "nbgrader_config.py", course / "autograde")
    for lesson in lessons:
        for which in ("solutions", "notebooks"):
            folder = course / which / lesson
            folder.mkdir(parents=True, exist_ok=True)
            shutil.copy2(root / which / lesson / f"{lesson}.ipynb", folder / f"{lesson}.ipynb")
    return course


def submit(course: Path, student: str, lesson: str, data: bytes, name: str | None = None) -> Path:
    folder = course / "autograde" / "submitted" / student / lesson
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (name or f"{lesson}.ipynb")
    path.write_bytes(data)
    return path


def grader(course: Path, *args: str, timeout: float = 1200, env: dict | None = None):
    """Run ``python -m transformer_course.grader`` in a course directory."""
    environment = tool_env()
    environment.pop("COURSE_GRADER_SANDBOX", None)
    environment.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "transformer_course.grader", *args, "--course-dir", str(course)],
        cwd=course, capture_output=True, text=True, env=environment, timeout=timeout,
    )  # fmt: skip


def scores(db_url: str, lesson: str) -> dict[str, dict[str, float]]:
    """student -> exercise -> score, from an nbgrader gradebook."""
    from nbgrader.api import Gradebook

    found: dict[str, dict[str, float]] = {}
    names = [ex.name for ex in registry.exercises(lesson)]
    with Gradebook(db_url) as gradebook:
        for submission_ in gradebook.assignment_submissions(lesson):
            student = submission_.student.id
            found[student] = {}
            for name in names:
                grade = gradebook.find_grade(f"test_{name}", lesson, lesson, student)
                found[student][name] = float(grade.score)
    return found


def tree_digest(root: Path, skip: tuple[str, ...] = (), content: bool = True) -> dict[str, str]:
    """path -> hash of the content (or size and mtime) of every file under root."""
    digest = {}
    if not root.exists():
        return digest
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        if any(relative == s or relative.startswith(s + "/") for s in skip):
            continue
        if "__pycache__" in path.parts or not path.is_file() or path.is_symlink():
            continue
        try:
            if content:
                digest[relative] = hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                stat = path.stat()
                digest[relative] = f"{stat.st_size}:{stat.st_mtime_ns}"
        except OSError:
            continue
    return digest


def bwrap_installed() -> bool:
    return shutil.which("bwrap") is not None


def python_environment() -> Path:
    return Path(sys.prefix)


def home() -> Path:
    return Path(os.path.expanduser("~"))
