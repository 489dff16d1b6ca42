"""One run of ``course-grader`` over a class: from the submissions to ``grades.csv``.

A submission's way through a run, as declared steps (:data:`STEPS`)::

    collect -> register -> resume -> grade -> export

* ``collect``: the submissions of the lessons, from nbgrader's submitted folder or an LMS
  zip (:mod:`.collect`);
* ``register``: each lesson in nbgrader's gradebook, as ``generate_assignment`` does;
* ``resume``: a submission whose :class:`ResumeState` is current (same notebook, same
  checks fingerprint) keeps its result; the rest become :class:`~.runner.Task`\\ s;
* ``grade``: the tasks, in parallel (:mod:`.distribute`, :mod:`.runner`'s ``PIPELINE``);
  each result, as it arrives, goes to every output in :data:`SINKS` (gradebook, autograded
  notebook, resume state, feedback page);
* ``export``: the gradebook's grades to the CSV (``nbgrader export``'s format).

:func:`grade_class` runs the steps and returns a :class:`ClassReport`; ``cli.py`` parses
the command line into a :class:`ClassRun` and prints the report.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from transformer_course.grader import collect as collecting
from transformer_course.grader import distribute, feedback, gradebook, sandbox
from transformer_course.grader.lesson import LessonSpec, build_spec
from transformer_course.grader.results import SubmissionResult
from transformer_course.grader.runner import Task

__all__ = [
    "SINKS",
    "STEPS",
    "ClassReport",
    "ClassRun",
    "ClassRunError",
    "ResumeState",
    "Sink",
    "grade_class",
]

STATE_FILE = "grader.json"


class ClassRunError(Exception):
    """The run cannot go on: ``message`` for the instructor, ``usage`` when the command line
    asked for something that is not there (a missing zip file)."""

    def __init__(self, message: str, *, usage: bool = False):
        super().__init__(message)
        self.message = message
        self.usage = usage


@dataclass
class ClassRun:
    """What to grade, where to write, and the limits: everything a run needs."""

    course_dir: Path
    lessons: list[str]
    submitted: Path
    autograded_dir: Path
    feedback_dir: Path | None  # None: no feedback pages
    db_url: str
    export: Path | None  # None: no grades CSV
    limits: sandbox.Limits
    sandbox_mode: str | None = None
    scheduler: str | None = None
    workers: int | None = None
    force: bool = False
    zip: Path | None = None
    regex: str | None = None
    students: list[str] | None = None
    on_start: Callable[[str], None] = print  # where the run's opening lines go


@dataclass
class ClassReport:
    """What a run did: every result (resumed ones included), how many were graded now and in
    how long, and what could not be matched or saved."""

    results: list[SubmissionResult] = field(default_factory=list)
    graded: int = 0
    seconds: float = 0.0
    unmatched: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    interrupted: bool = False

    @property
    def flagged(self) -> bool:
        return any(r.flagged for r in self.results) or bool(self.unmatched or self.problems)


class ResumeState:
    """The record beside each autograded notebook that lets a later run skip a submission
    that has not changed: the notebook's sha256, the checks fingerprint, the collection
    problem (if any) and the result."""

    def __init__(self, autograded_dir: Path):
        self.autograded_dir = autograded_dir

    def path(self, student: str, lesson: str) -> Path:
        return self.autograded_dir / student / lesson / STATE_FILE

    def load(self, student: str, lesson: str) -> dict | None:
        path = self.path(student, lesson)
        if not path.exists():
            return None
        try:
            return json.loads(path.read_text())
        except ValueError:
            return {}

    @staticmethod
    def is_current(state: dict | None, sha256: str, fingerprint: str, problem) -> bool:
        return bool(state) and (
            state.get("sha256") == sha256
            and state.get("fingerprint") == fingerprint
            and state.get("problem") == problem
        )

    def save(self, task: Task, fingerprint: str, payload: dict) -> None:
        path = self.path(task.student, task.lesson)
        path.parent.mkdir(parents=True, exist_ok=True)
        state = {
            "sha256": task.sha256,
            "fingerprint": fingerprint,
            "problem": task.problem,
            "result": payload,
        }
        temporary = path.with_name(STATE_FILE + ".tmp")
        temporary.write_text(json.dumps(state))
        temporary.replace(path)


@dataclass
class _Run:
    """A run in progress: its options, the lessons' specs, and what the steps found."""

    options: ClassRun
    report: ClassReport
    specs: dict[str, LessonSpec] = field(default_factory=dict)
    found: list = field(default_factory=list)
    tasks: list[Task] = field(default_factory=list)
    writer: gradebook.GradebookWriter | None = None
    state: ResumeState | None = None
    isolation: sandbox.Isolation | None = None  # None: the Dask workers sandbox it


# ------------------------------------------------------------------ outputs of each result
@dataclass(frozen=True)
class Sink:
    """One output every graded result is written to. A sink that ``flags`` failing makes the
    result flagged (a grade or a record was not saved); one that does not is reported only
    (a missing feedback page)."""

    what: str
    write: Callable[[_Run, Task, SubmissionResult, dict], None]
    flags: bool = True
    enabled: Callable[[ClassRun], bool] = lambda options: True


def _to_gradebook(run: _Run, task: Task, result: SubmissionResult, payload: dict) -> None:
    run.writer.write(result, run.specs[task.lesson])


def _to_autograded_notebook(run: _Run, task: Task, result: SubmissionResult, payload: dict):
    folder = run.options.autograded_dir / task.student / task.lesson
    folder.mkdir(parents=True, exist_ok=True)
    notebook = feedback.autograded_notebook(task.data, result, run.specs[task.lesson])
    if notebook is not None:
        (folder / f"{task.lesson}.ipynb").write_text(json.dumps(notebook, indent=1))


def _to_resume_state(run: _Run, task: Task, result: SubmissionResult, payload: dict) -> None:
    run.state.save(task, run.specs[task.lesson].fingerprint, payload)


def _to_feedback(run: _Run, task: Task, result: SubmissionResult, payload: dict) -> None:
    notebook = Path(task.path)
    folder = notebook.parent if notebook.suffix == ".ipynb" else None
    feedback.write_feedback(result, run.options.feedback_dir, run.specs[task.lesson], folder)


SINKS: tuple[Sink, ...] = (
    Sink("the gradebook", _to_gradebook),
    Sink("the autograded notebook", _to_autograded_notebook),
    Sink("the record that lets a later run resume", _to_resume_state),
    Sink(
        "feedback page",
        _to_feedback,
        flags=False,
        enabled=lambda options: options.feedback_dir is not None,
    ),
)


def _save(run: _Run, task: Task, payload: dict) -> None:
    """Write one result to every sink; every submission gets its feedback page and its place
    in the report, even where a part of saving it fails (then it is flagged)."""
    result = SubmissionResult.from_dict(payload)
    for sink in SINKS:
        if not sink.enabled(run.options):
            continue
        try:
            sink.write(run, task, result, payload)
        except Exception as exc:  # one result that cannot be saved must not stop the rest
            if sink.flags:
                problem = f"could not be saved ({sink.what}): {type(exc).__name__}: {exc}"
                run.report.problems.append(f"{task.student} / {task.lesson}: {problem}"[:500])
                result.flags.append(f"the grader {problem}"[:500])
                run.writer.gradebook.db.rollback()
            else:
                message = f"{type(exc).__name__}: {exc}"[:300]
                run.report.problems.append(
                    f"{task.student} / {task.lesson}: no {sink.what}: {message}"
                )
    run.report.results.append(result)


# ------------------------------------------------------------------------------- the steps
def collect(run: _Run) -> None:
    """The submissions of the run's lessons, from the zip or the submitted folder."""
    options = run.options
    run.specs = {lesson: build_spec(lesson, options.course_dir) for lesson in options.lessons}
    if options.zip:
        if not options.zip.is_file():
            raise ClassRunError(f"no such zip file {options.zip}", usage=True)
        run.found, run.report.unmatched = collecting.from_zip(
            options.zip, options.lessons, options.regex, options.submitted, options.students
        )
    else:
        run.found, run.report.unmatched = collecting.from_folder(
            options.submitted, options.lessons, options.students
        )
    where = options.zip or options.submitted
    options.on_start(
        f"course-grader: {len(run.found)} submission(s) of {', '.join(options.lessons)} in {where}"
    )
    sandboxed = run.isolation.describe() if run.isolation else "on the Dask workers"
    if options.scheduler:
        sandboxed += f" ({options.scheduler})"
    options.on_start(f"  sandbox: {sandboxed}")
    options.on_start(f"  gradebook: {gradebook.describe(options.db_url)}")


def register(run: _Run) -> None:
    """Each lesson that has submissions, in the gradebook (as generate_assignment does);
    then the gradebook is opened for the results."""
    for lesson in sorted({s.lesson for s in run.found}):
        try:
            gradebook.ensure_assignment(
                run.options.db_url, run.specs[lesson], run.options.course_dir
            )
        except Exception as exc:
            raise ClassRunError(f"cannot register {lesson} in the gradebook: {exc}") from exc
    run.writer = gradebook.GradebookWriter(run.options.db_url)


def resume(run: _Run) -> None:
    """Keep the result of every unchanged submission; make a task of each other one."""
    options = run.options
    spec_dicts = {lesson: spec.to_dict() for lesson, spec in run.specs.items()}
    for submission in run.found:
        spec = run.specs[submission.lesson]
        digest = hashlib.sha256(submission.data).hexdigest()
        if not options.force and run.writer.has(submission.lesson, submission.student):
            state = run.state.load(submission.student, submission.lesson)
            if ResumeState.is_current(state, digest, spec.fingerprint, submission.problem):
                run.report.results.append(SubmissionResult.from_dict(state["result"]))
                continue
        run.tasks.append(
            Task(
                submission.student,
                submission.lesson,
                submission.path,
                submission.data,
                spec_dicts[submission.lesson],
                options.limits,
                options.sandbox_mode,
                submission.problem,
                submission.timestamp,
            )
        )
    if run.report.results:
        options.on_start(
            f"  {len(run.report.results)} already graded and unchanged (use --force to regrade)"
        )


def grade(run: _Run) -> None:
    """Grade the tasks in parallel; each result goes to the sinks as it arrives."""
    progress = distribute.Progress(len(run.tasks))

    def on_result(task: Task, payload: dict) -> None:
        _save(run, task, payload)
        progress.update(f"{task.student}/{task.lesson}")

    started = time.monotonic()
    try:
        distribute.run(
            run.tasks, on_result, workers=run.options.workers, scheduler=run.options.scheduler
        )
    except KeyboardInterrupt:
        run.report.interrupted = True
    finally:
        progress.close()
    run.report.graded = len(run.tasks)
    run.report.seconds = time.monotonic() - started


def export(run: _Run) -> None:
    """The gradebook's grades, to the CSV."""
    if run.options.export is not None and not run.report.interrupted:
        run.writer.export_csv(run.options.export)


STEPS: tuple[Callable[[_Run], None], ...] = (collect, register, resume, grade, export)


def grade_class(options: ClassRun) -> ClassReport:
    """Run :data:`STEPS` for a class. Raises :class:`ClassRunError` when the run cannot go on
    (nothing is graded then); an interrupted run keeps what was saved and says so
    (``ClassReport.interrupted``)."""
    try:
        iso = sandbox.isolation(options.sandbox_mode) if not options.scheduler else None
    except RuntimeError as exc:
        raise ClassRunError(str(exc)) from exc
    run = _Run(options, ClassReport(), state=ResumeState(options.autograded_dir), isolation=iso)
    try:
        for step in STEPS:
            step(run)
            if run.report.interrupted:
                break
    finally:
        if run.writer is not None:
            run.writer.close()
    return run.report
