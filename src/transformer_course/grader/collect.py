"""Find the submissions to grade: nbgrader's folder layout, or an LMS zip download.

* folder: ``<submitted>/<student>/<lesson>/<lesson>.ipynb`` (what ``nbgrader collect``
  and ``nbgrader zip_collect`` produce), with nbgrader's optional ``timestamp.txt``;
* zip: the file names carry the student id and the notebook's name; a regular
  expression with the named groups ``student_id`` and ``file_id`` (and optionally
  ``timestamp``) recovers them, exactly as ``nbgrader zip_collect``'s
  ``FileNameCollectorPlugin.named_regexp`` does (the same setting is read from the
  nbgrader configuration). The notebooks are also copied into the folder layout, as
  ``zip_collect`` does.

A submission that cannot be graded (no notebook of the expected name, an empty or
unreadable file) is still returned, with the reason, so that it is reported,
flagged and scored 0 instead of stopping the batch.
"""

from __future__ import annotations

import json
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

DEFAULT_REGEX = r".*_(?P<student_id>\w+)_attempt_(?P<timestamp>[0-9\-]+)_(?P<file_id>\w+)"
STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@+-]{0,99}$")


@dataclass
class Submission:
    student: str
    lesson: str
    path: str
    data: bytes
    problem: str | None = None
    timestamp: str | None = None


def _timestamp(folder: Path) -> str | None:
    path = folder / "timestamp.txt"
    if path.is_file():
        text = path.read_text(errors="replace").strip()
        return text[:64] or None
    return None


def from_folder(
    submitted: Path, lessons: list[str], students: list[str] | None = None
) -> tuple[list[Submission], list[str]]:
    """(submissions, why each refused folder was refused). A folder's name is the student
    id, validated as strictly as an id from an LMS zip (:data:`STUDENT_ID`): one that could
    forge a row of the grades, a path or a message is refused, never graded."""
    found: list[Submission] = []
    refused: list[str] = []
    if not submitted.is_dir():
        return found, refused
    for student_dir in sorted(p for p in submitted.iterdir() if p.is_dir()):
        student = student_dir.name
        if not STUDENT_ID.match(student):
            refused.append(
                f"{student_dir.parent}/{student!r}: not a valid student id (letters, digits and "
                "_.@+- only, starting with a letter or digit): not graded"
            )
            continue
        if students and student not in students:
            continue
        for lesson in lessons:
            folder = student_dir / lesson
            if not folder.is_dir():
                continue
            expected = folder / f"{lesson}.ipynb"
            if expected.is_file():
                try:
                    data = expected.read_bytes()
                    problem = None
                except OSError as exc:
                    data, problem = b"", f"the notebook cannot be read ({exc})"
                found.append(
                    Submission(student, lesson, str(expected), data, problem, _timestamp(folder))
                )
                continue
            others = sorted(p.name for p in folder.glob("*.ipynb"))
            problem = f"there is no {lesson}.ipynb in {folder}"
            if others:
                problem += (
                    f" (found {', '.join(others)}: a renamed notebook? Rename it to {lesson}.ipynb "
                    "and grade again)"
                )
            found.append(Submission(student, lesson, str(folder), b"", problem, _timestamp(folder)))
    return found, refused


def _lesson_from_metadata(data: bytes, lessons: list[str]) -> str | None:
    try:
        notebook = json.loads(data.decode("utf-8"))
        generated = notebook["metadata"]["course"]["generated_from"]
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return None
    for lesson in lessons:
        if f"/{lesson}/" in f"/{generated}":
            return lesson
    return None


def from_zip(
    archive: Path,
    lessons: list[str],
    regex: str | None,
    submitted: Path | None,
    students: list[str] | None = None,
) -> tuple[list[Submission], list[str]]:
    """(submissions, names of files that could not be attributed to a student)."""
    pattern = re.compile(regex or DEFAULT_REGEX)
    chosen: dict[tuple[str, str], Submission] = {}
    unmatched: list[str] = []
    duplicates: dict[tuple[str, str], int] = {}
    with zipfile.ZipFile(archive) as bundle:
        for info in bundle.infolist():
            if info.is_dir():
                continue
            name = PurePosixPath(info.filename).name
            if not name.endswith(".ipynb"):
                continue
            match = pattern.match(name)
            groups = match.groupdict() if match else {}
            student = groups.get("student_id") or ""
            if not STUDENT_ID.match(student):
                unmatched.append(info.filename)
                continue
            if students and student not in students:
                continue
            if info.file_size > 64 * 2**20:
                data, problem = b"", "the notebook file is larger than 64 MB"
            else:
                data, problem = bundle.read(info), None
            file_id = (groups.get("file_id") or "").removesuffix(".ipynb")
            lesson = file_id if file_id in lessons else None
            if lesson is None:
                lesson = _lesson_from_metadata(data, lessons) or (
                    lessons[0] if len(lessons) == 1 else None
                )
                if lesson is None:
                    unmatched.append(info.filename)
                    continue
                problem = problem or (
                    f"the notebook is named {file_id or name!r}, not {lesson}: a renamed notebook? "
                    f"Rename it to {lesson}.ipynb and grade again"
                )
            submission = Submission(
                student,
                lesson,
                f"{archive}:{info.filename}",
                data,
                problem,
                groups.get("timestamp"),
            )
            key = (student, lesson)
            if key in chosen:
                duplicates[key] = duplicates.get(key, 1) + 1
                if (submission.timestamp or "") < (chosen[key].timestamp or ""):
                    continue
            chosen[key] = submission
    result = list(chosen.values())
    for submission in result:
        count = duplicates.get((submission.student, submission.lesson))
        if count:
            submission.path += f" (the latest of {count} files)"
        if submitted is not None and submission.problem is None:
            folder = submitted / submission.student / submission.lesson
            folder.mkdir(parents=True, exist_ok=True)
            target = folder / f"{submission.lesson}.ipynb"
            if not target.exists() or target.read_bytes() != submission.data:
                target.write_bytes(submission.data)
            if submission.timestamp:
                (folder / "timestamp.txt").write_text(submission.timestamp)
    return sorted(result, key=lambda s: (s.lesson, s.student)), unmatched
