"""The one helper module of the tests (no tests here).

* **Exercise harness** (every lesson test): a lesson's test file lists ``MISTAKES``
  (classic wrong implementations, each with the message, a regex, its check must fail
  with in the visible *and* the hidden run) and ``CORRECT`` (different but correct
  implementations, including the way well-known tutorials and textbooks write them)
  and turns them into tests with one line::

      test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)

  What every exercise gets anyway (stub, reference, random state, determinism, inputs
  changed in place, concept questions) is in ``tests/test_exercises.py``, driven by the
  registry.
* **Learner-style modules** shared by the layer lessons (07-09): a stack base class on
  the reference layers, random weights, weights copied into PyTorch's modules.
* **Notebooks**: execute a notebook headless and read its graded cells.
* **Grader**: scratch course directories, synthetic submissions built from the real
  lessons (the committed student notebook with answer cells replaced by the
  instructor's solutions, markers removed, or by the code a test wants), running the
  grader's command, reading grades.

The one seam to learner code is the check function: tests hand it a learner-style
function or class (``check(fn)``, ``check(fn, hidden=True)``), or a whole notebook to
the grader; nothing here reaches into a check module's internals.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
import torch
from torch import nn

from transformer_course import registry
from transformer_course.build import REPO, tool_env
from transformer_course.checking import CheckFailure
from transformer_course.exercise import SOLUTION_MARKERS
from transformer_course.grader.lesson import imported_modules
from transformer_course.paths import nbgrader_config
from transformer_course.reference.encoder import LayerNorm

__all__ = [
    "MARKERS",
    "REPO",
    "Correct",
    "ExecutedNotebook",
    "Mistake",
    "assert_accepted",
    "assert_rejected",
    "broken_exercise",
    "bwrap_installed",
    "class_group",
    "class_part",
    "class_parts",
    "code_cell",
    "copy_attention",
    "copy_norm",
    "graded_class",
    "grader",
    "half_solved",
    "home",
    "honest_submissions",
    "imported_modules",
    "lesson_tests",
    "make_course",
    "meta",
    "nbgrader",
    "notebook",
    "points",
    "python_environment",
    "quiz_answer",
    "randomize",
    "run_in_session",
    "scores",
    "solutions",
    "source",
    "stack_base",
    "started_session",
    "submission",
    "submit",
    "tree_digest",
    "validated_folder",
    "validated_notebook",
]

MARKERS = SOLUTION_MARKERS

# Executed headless, a lesson draws its interactive figures once, statically
# (transformer_course.plotting.interactive_or_static); kernels inherit this.
os.environ.setdefault("COURSE_STATIC_FIGURES", "1")


# ============================================================================ exercise harness
@dataclass(frozen=True)
class Mistake:
    """``fn`` is wrong; ``check`` must reject it with a message matching ``message``.

    ``hidden_only`` is for mistakes that only the hidden run can see by design
    (hard-coded answers for the visible inputs); a real mistake is caught visibly too.
    """

    check: Callable
    fn: Callable
    message: str
    hidden_only: bool = False


@dataclass(frozen=True)
class Correct:
    """``fn`` is right; ``check`` must accept it, visible and hidden. ``note``: a regex
    that the visible run's notes must match (an accepted choice the learner is told
    about, such as a float32 result where the reference gives float64)."""

    check: Callable
    fn: Callable
    note: str | None = None


def assert_rejected(check: Callable, fn: Callable, message: str, *, hidden_only: bool = False):
    """Both runs (or only the hidden one) fail with a CheckFailure matching ``message``."""
    runs = (True,) if hidden_only else (False, True)
    for hidden in runs:
        with pytest.raises(CheckFailure, match=message):
            check(fn, hidden=hidden)


def assert_accepted(check: Callable, fn: Callable, note: str | None = None) -> None:
    """Both runs pass; with ``note``, the visible run prints a note matching it."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        check(fn)
    check(fn, hidden=True)
    if note is not None:
        notes = [line for line in out.getvalue().splitlines() if line.startswith("note")]
        assert any(re.search(note, line) for line in notes), (note, notes)


def _name(thing: Callable) -> str:
    return getattr(thing, "__name__", type(thing).__name__)


def _case_id(check: Callable, fn: Callable) -> str:
    return f"{_name(check).removeprefix('check_')}-{_name(fn)}"


def _as_mistake(case) -> Mistake:
    return case if isinstance(case, Mistake) else Mistake(*case)


def _as_correct(case) -> Correct:
    return case if isinstance(case, Correct) else Correct(*case)


def lesson_tests(mistakes: Sequence, correct: Sequence) -> tuple[Callable, Callable]:
    """Two parametrized tests: every mistake is rejected with its message, every
    correct variant is accepted. Entries may be ``Mistake``/``Correct`` or tuples."""
    mistake_cases = [_as_mistake(case) for case in mistakes]
    correct_cases = [_as_correct(case) for case in correct]

    @pytest.mark.parametrize(
        "case", mistake_cases, ids=[_case_id(m.check, m.fn) for m in mistake_cases]
    )
    def test_classic_mistake(case: Mistake) -> None:
        assert_rejected(case.check, case.fn, case.message, hidden_only=case.hidden_only)

    @pytest.mark.parametrize(
        "case", correct_cases, ids=[_case_id(c.check, c.fn) for c in correct_cases]
    )
    def test_correct_variant(case: Correct) -> None:
        assert_accepted(case.check, case.fn, case.note)

    return test_classic_mistake, test_correct_variant


def quiz_answer(value):
    """A learner's answer function to a concept question, returning ``value``."""

    def quiz():
        return value

    return quiz


# ===================================================================== learner-style modules
def stack_base(layer_class: type) -> type:
    """What a learner's stack __init__ looks like, on the reference ``layer_class``
    (EncoderLayer or DecoderLayer): ``layers``, an optional final ``norm``, ``finish``."""

    class StackBase(nn.Module):
        def __init__(
            self,
            num_layers,
            d_model,
            num_heads,
            d_ff,
            dropout=0.0,
            norm_first=False,
            final_norm=None,
        ):
            super().__init__()
            self.layers = nn.ModuleList(
                [
                    layer_class(d_model, num_heads, d_ff, dropout, norm_first)
                    for _ in range(num_layers)
                ]
            )
            use = norm_first if final_norm is None else final_norm
            self.norm = LayerNorm(d_model) if use else None

        def finish(self, x):
            return x if self.norm is None else self.norm(x)

    return StackBase


def randomize(module, seed):
    """Non-trivial weights everywhere (gains away from 1, biases away from 0)."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for parameter in module.parameters():
            parameter.copy_(torch.randn(parameter.shape, generator=generator) * 0.3)
            if parameter.dim() == 1:
                parameter.add_(1.0)
    return module


def copy_attention(ours, theirs):
    """The course's MultiHeadAttention weights into an nn.MultiheadAttention."""
    theirs.in_proj_weight.copy_(torch.cat([ours.w_q.weight, ours.w_k.weight, ours.w_v.weight]))
    theirs.in_proj_bias.copy_(torch.cat([ours.w_q.bias, ours.w_k.bias, ours.w_v.bias]))
    theirs.out_proj.weight.copy_(ours.w_o.weight)
    theirs.out_proj.bias.copy_(ours.w_o.bias)


def copy_norm(ours, theirs):
    theirs.weight.copy_(ours.weight)
    theirs.bias.copy_(ours.bias)


# =================================================================================== notebooks
# Executed headless, a lesson draws its interactive figures once, statically
# (transformer_course.plotting.interactive_or_static); kernels inherit this.
os.environ.setdefault("COURSE_STATIC_FIGURES", "1")


@dataclass
class ExecutedNotebook:
    nb: nbformat.NotebookNode
    seconds: float

    def graded_cells(self):
        return [c for c in self.nb.cells if c.metadata.get("nbgrader", {}).get("grade")]

    @staticmethod
    def errors(cell):
        return [o for o in cell.get("outputs", []) if o.output_type == "error"]

    @staticmethod
    def stderr(cell):
        return "".join(
            o.text
            for o in cell.get("outputs", [])
            if o.output_type == "stream" and o.name == "stderr"
        )

    @staticmethod
    def stdout(cell):
        return "".join(
            o.text
            for o in cell.get("outputs", [])
            if o.output_type == "stream" and o.name == "stdout"
        )


@dataclass
class ValidatedNotebook(ExecutedNotebook):
    """A notebook run by nbgrader's own validator, and its verdict: what ``nbgrader validate``
    returns (``{}``: success; ``invert``: the student version, where success is "does not
    pass any tests")."""

    verdict: dict
    invert: bool


def _validate(path: Path, invert: bool) -> ValidatedNotebook:
    from nbgrader.validator import Validator

    class Recording(Validator):
        executed = None

        def _preprocess(self, nb):
            self.executed = super()._preprocess(nb)
            return self.executed

    validator = Recording(config=nbgrader_config(REPO), invert=invert)
    start = time.perf_counter()
    verdict = validator.validate(str(path))
    seconds = time.perf_counter() - start
    assert validator.executed is not None, f"nbgrader did not run {path}: {verdict}"
    return ValidatedNotebook(validator.executed, seconds, verdict, invert)


def validated_folder() -> Path:
    """Where this test run keeps its notebooks' runs (tests/conftest.py names the run, and
    removes the folder when the run ends)."""
    run_id = os.environ.get("COURSE_TEST_RUN") or f"pid{os.getpid()}"
    return Path(tempfile.gettempdir()) / f"course-validated-{run_id}"


def validated_notebook(path: Path) -> ValidatedNotebook:
    """A lesson's notebook run once per test run, and nbgrader's validator's verdict on it
    (``nbgrader validate``, the Validate button: the course's configuration, headless; a
    student version (``notebooks/``) with ``--invert``). Every test that needs the run (the
    solution passes, the student version fails every graded cell, a lesson's own look at its
    untouched notebook) reads the same one, across pytest-xdist's workers (a file lock, and a
    folder per test run), instead of running the notebook again.

    Where this test run grades the class of honest submissions (tests/test_grader_honest.py)
    the notebook is already run there: ``nbgrader autograde`` runs the solution (the
    "solved" submission: the student version with the instructor's answers) and the
    untouched student version. The validator then judges the notebook file itself, with the
    outputs of that run put in its cells (matched by cell id) instead of running it a third
    time. Otherwise (a run of some test files alone) the validator runs it."""
    path = Path(path).resolve()
    top, lesson = path.relative_to(REPO).parts[:2]
    invert = top == "notebooks"
    if class_part(lesson) in CLASS_PARTS_IN_RUN and path == REPO / top / lesson / f"{lesson}.ipynb":
        graded = graded_class(class_part(lesson))
        return _replayed(
            path, graded.nbgrader_autograded("untouched" if invert else "solved", lesson)
        )
    from filelock import FileLock

    cache = validated_folder()
    cache.mkdir(exist_ok=True)
    key = hashlib.sha256(f"{path}:{invert}".encode() + path.read_bytes()).hexdigest()[:24]
    record = cache / f"{key}.json"
    with FileLock(str(record) + ".lock"):
        if not record.exists():
            run = _validate(path, invert)
            payload = {"nb": run.nb, "seconds": run.seconds, "verdict": run.verdict}
            temporary = record.with_suffix(".tmp")
            temporary.write_text(json.dumps(payload))
            temporary.replace(record)
        payload = json.loads(record.read_text())
    nb = nbformat.from_dict(payload["nb"])
    return ValidatedNotebook(nb, payload["seconds"], payload["verdict"], invert)


def _execution_seconds(nb: nbformat.NotebookNode) -> float:
    """From the first cell's start to the last cell's end, by the kernel's own timestamps
    (nbclient records them in each cell's metadata); the kernel's start is not included."""
    from datetime import datetime

    stamps = [
        datetime.fromisoformat(cell.metadata["execution"][key].replace("Z", "+00:00"))
        for cell in nb.cells
        if cell.cell_type == "code" and "execution" in cell.metadata
        for key in ("iopub.status.busy", "iopub.status.idle")
        if key in cell.metadata["execution"]
    ]
    assert stamps, "the run recorded no execution times (nbclient's record_timing)"
    return (max(stamps) - min(stamps)).total_seconds()


def _replayed(path: Path, executed: nbformat.NotebookNode) -> ValidatedNotebook:
    """nbgrader's validator on the notebook at ``path``, its code cells given the outputs of
    ``executed`` (a run of the same notebook) instead of being run again."""
    from nbgrader.validator import Validator

    invert = path.relative_to(REPO).parts[0] == "notebooks"
    ran = {cell.get("id"): cell for cell in executed.cells if cell.cell_type == "code"}

    class Replaying(Validator):
        executed = None

        def _preprocess(self, nb):
            missing = [
                cell.id for cell in nb.cells if cell.cell_type == "code" and cell.id not in ran
            ]
            assert not missing, f"code cells of {path} that the run did not have: {missing}"
            for cell in nb.cells:
                if cell.cell_type == "code":
                    cell.outputs = ran[cell.id].outputs
                    cell.execution_count = ran[cell.id].execution_count
                    cell.metadata["execution"] = ran[cell.id].metadata.get("execution", {})
            self.executed = nb
            return nb

    validator = Replaying(config=nbgrader_config(REPO), invert=invert)
    verdict = validator.validate(str(path))
    assert validator.executed is not None, f"nbgrader did not judge {path}: {verdict}"
    nb = validator.executed
    return ValidatedNotebook(nb, _execution_seconds(nb), verdict, invert)


# ====================================================================================== grader
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
    return {
        "cell_type": "code",
        "execution_count": None,
        "metadata": metadata,
        "outputs": [],
        "source": text,
    }


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
        cwd=course,
        capture_output=True,
        text=True,
        env=environment,
        timeout=timeout,
    )


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
    """path -> hash of the content (or size and mtime) of every file under root: regular
    files, not symbolic links, nothing in ``__pycache__``, nothing at or under a path in
    ``skip`` (a skipped folder is not walked at all: $HOME's caches hold many files)."""
    digest: dict[str, str] = {}

    def skipped(relative: str) -> bool:
        return any(relative == s or relative.startswith(s + "/") for s in skip)

    def walk(folder: str, prefix: str) -> None:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            return
        for entry in entries:
            relative = prefix + entry.name
            if entry.name == "__pycache__" or skipped(relative):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    walk(entry.path, relative + "/")
                elif not entry.is_file(follow_symlinks=False):
                    continue  # a symbolic link, a socket, ...
                elif content:
                    digest[relative] = hashlib.sha256(Path(entry.path).read_bytes()).hexdigest()
                else:
                    stat = entry.stat(follow_symlinks=False)
                    digest[relative] = f"{stat.st_size}:{stat.st_mtime_ns}"
            except OSError:
                continue

    if root.exists():
        walk(str(root), "")
    return digest


def bwrap_installed() -> bool:
    return shutil.which("bwrap") is not None


def python_environment() -> Path:
    return Path(sys.prefix)


def home() -> Path:
    return Path(os.path.expanduser("~"))


def started_session(spec, limits, mode: str = "bwrap"):
    """A grader :class:`~transformer_course.grader.session.Session` for ``spec``, started
    (the caller closes it)."""
    from transformer_course.grader.session import Session

    session = Session(spec, limits, mode)
    session.start()
    return session


def run_in_session(session, code: str) -> str:
    """Run ``code`` as one cell in a started session; it must go through. What it printed."""
    outcome = session.exec_cell(0, code)
    assert outcome["status"] == "ok", outcome
    return outcome["output"].strip()


# ========================================================== the class of honest submissions
#: tests/test_grader_honest.py grades a class of honest submissions of every lesson with
#: ``nbgrader autograde`` and with ``course-grader``, in two parts (each a pytest-xdist
#: group, so the two workers grade one each): the lessons that load or train a model, whose
#: notebooks take longest, and the rest. A lesson named here that no longer exists is
#: ignored; a new lesson joins the second part.
TRAINED_LESSONS = ("10_training", "11_language_model", "12_inference")
NBGRADER_AUTOGRADED = "nbgrader-autograded"  # beside course-grader's autograded/
#: the parts whose class this test run grades (set by tests/conftest.py from the selection)
CLASS_PARTS_IN_RUN: set[str] = set()


def class_parts() -> dict[str, tuple[str, ...]]:
    lessons = registry.lessons()
    trained = tuple(lesson for lesson in lessons if lesson in TRAINED_LESSONS)
    return {
        "trained": trained,
        "others": tuple(lesson for lesson in lessons if lesson not in trained),
    }


def class_part(lesson: str) -> str:
    return next((part for part, lessons in class_parts().items() if lesson in lessons), "")


def class_group(part: str) -> str:
    """The xdist_group of the tests that read a part of the class."""
    return f"graded_class_{part}"


def honest_submissions(lesson: str) -> dict[str, bytes]:
    """The solution, the untouched student version, and a partly solved one: the first half
    of the exercises solved, one of them with a syntax error (:func:`broken_exercise`), the
    rest untouched. One partial notebook holds the three kinds of answer cell, so that
    nbgrader runs each lesson three times, not four."""
    solved = solutions(lesson)
    half = half_solved(lesson)
    partial = {name: solved[name] for name in half}
    broken = broken_exercise(lesson)
    partial[broken] += "\n    )"  # a syntax error
    return {
        "solved": submission(lesson, solved),
        "untouched": submission(lesson, {}),
        "partial": submission(lesson, partial),
    }


def half_solved(lesson: str) -> list[str]:
    """The exercises the partial submission answers: the first half (lesson 00's one)."""
    names = list(points(lesson))
    return names[: len(names) // 2] or names


def broken_exercise(lesson: str) -> str:
    """The answer of the partial submission with a syntax error: the first of the solved
    half that no other solved answer calls, so that the answers after it still earn their
    points (a syntax error costs its own exercise only)."""
    solved, half = solutions(lesson), half_solved(lesson)
    return next(
        (name for name in half if not any(name in solved[o] for o in half if o != name)),
        half[0],
    )


@dataclass
class GradedClass:
    """A part of the class, graded: ``theirs`` (nbgrader autograde) and ``ours``
    (course-grader), lesson -> student -> exercise -> score; course-grader's command."""

    course: Path
    lessons: list[str]
    theirs: dict
    ours: dict
    returncode: int
    stdout: str
    stderr: str

    def nbgrader_autograded(self, student: str, lesson: str) -> nbformat.NotebookNode:
        """The notebook as ``nbgrader autograde`` ran it, outputs included."""
        path = (
            self.course / "autograde" / NBGRADER_AUTOGRADED / student / lesson / f"{lesson}.ipynb"
        )
        return nbformat.read(path, as_version=4)


def nbgrader(course: Path, *args: str, timeout: float = 1800) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "nbgrader", *args],
        cwd=course,
        capture_output=True,
        text=True,
        env=tool_env(),
        timeout=timeout,
    )
    assert result.returncode == 0, f"nbgrader {args}:\n{result.stdout}\n{result.stderr}"


def _grade_class(course: Path, lessons: list[str]) -> dict:
    make_course(course, lessons)
    for lesson in lessons:
        for student, data in honest_submissions(lesson).items():
            submit(course, student, lesson, data)
    nbgrader(course, "generate_assignment", "*", "--force")  # every lesson of the course
    # course-grader's gradebook starts with the lessons as nbgrader registered them, as an
    # instructor's does after generate_assignment (it checks each lesson's test cells and
    # points against the registry, and registers the lesson again if they differ); a fresh
    # gradebook, where it registers each lesson itself: test_grader_infra, _hostile, _scaffold
    shutil.copy2(course / "autograde" / "gradebook.db", course / "ours.db")
    nbgrader(course, "autograde", "*", "--force")
    theirs = {
        lesson: scores(f"sqlite:///{course}/autograde/gradebook.db", lesson) for lesson in lessons
    }
    # course-grader writes its own autograded notebooks where nbgrader wrote its
    (course / "autograde" / "autograded").rename(course / "autograde" / NBGRADER_AUTOGRADED)
    ours_db = f"sqlite:///{course}/ours.db"
    run = grader(course, *lessons, "--db", ours_db, "--no-export", "--workers", "2")
    ours = {lesson: scores(ours_db, lesson) for lesson in lessons} if run.returncode == 0 else {}
    return {
        "theirs": theirs,
        "ours": ours,
        "returncode": run.returncode,
        "stdout": run.stdout,
        "stderr": run.stderr,
    }


def graded_class(part: str) -> GradedClass:
    """The part of the class graded once per test run, read by every test that needs it
    (across pytest-xdist's workers: a file lock, and the run's folder). A failure is kept
    too, so that every reader reports it instead of grading again."""
    from filelock import FileLock

    lessons = list(class_parts()[part])
    folder = validated_folder() / f"class-{part}"
    record = folder / "result.json"
    validated_folder().mkdir(exist_ok=True)
    with FileLock(str(folder) + ".lock"):
        if not record.exists():
            shutil.rmtree(folder, ignore_errors=True)
            try:
                payload = _grade_class(folder / "course", lessons)
            except Exception as error:  # kept for the other readers
                payload = {"error": f"{type(error).__name__}: {error}"}
            folder.mkdir(parents=True, exist_ok=True)
            record.write_text(json.dumps(payload))
        payload = json.loads(record.read_text())
    assert "error" not in payload, f"grading the class ({part}) failed: {payload.get('error')}"
    return GradedClass(folder / "course", lessons, **payload)
