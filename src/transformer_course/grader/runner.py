"""Grade one submission: the function every worker runs (local process or Dask worker).

A submission goes through :data:`PIPELINE`, one named step after another, as
nbgrader's autograde converter lists its preprocessors:

1. ``parse``: the file's bytes as notebook cells (or why it cannot be graded);
2. ``plan``: which cells run, in which order, and where each exercise is checked;
3. ``scan_source``: what the learner's code mentions, read from the source by the grader;
4. ``run``: the learner's cells run in the sandbox, in order; at each exercise's test
   cell the registry's check runs *here*, in the grader's process, against proxies for
   the learner's objects (:mod:`.proxy`); then the exercise's reference is released to
   the sandbox and the notebook goes on;
5. ``apply_policies``: :data:`.policies.POLICIES` turn the evidence into scores and flags;
6. ``record``: the time it took.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import threading
import time
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

from transformer_course.checking import CheckFailure
from transformer_course.grader import policies, sandbox
from transformer_course.grader.errors import CheckProblem, GiveUp, SandboxAbort
from transformer_course.grader.evidence import ReferenceUse, Trip
from transformer_course.grader.lesson import LessonSpec, checks_fingerprint
from transformer_course.grader.plan import Plan, build_plan
from transformer_course.grader.policies import Evidence
from transformer_course.grader.results import CellResult, ExerciseResult, SubmissionResult
from transformer_course.grader.session import MISSING, Session
from transformer_course.grader.static import Finding, scan

_LOCK = threading.Lock()  # checks use process-global state (random streams): one at a time


@dataclass
class Task:
    """One submission to grade, as plain data (what travels to a worker)."""

    student: str
    lesson: str
    path: str
    data: bytes
    spec: dict
    limits: sandbox.Limits = field(default_factory=sandbox.Limits)
    mode: str | None = None
    problem: str | None = None  # found while collecting (renamed, unreadable): grade as 0
    timestamp: str | None = None

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


_SPECS: dict[str, LessonSpec] = {}
GRADER_ATTEMPTS = 2  # tries per submission when the grader itself fails


def run_task(task: Task) -> dict:
    """The worker entry point: grade, and never raise (a grader failure is a flag).

    A failure of the grader itself (not of the learner's code, which is caught inside) is
    usually passing (a sandbox that could not start on a loaded machine): the submission is
    graded once more from the start before it is reported."""
    started = time.monotonic()
    failures: list[str] = []
    for _attempt in range(GRADER_ATTEMPTS):
        try:
            spec = _SPECS.get(task.spec["fingerprint"])
            if spec is None:
                spec = _SPECS[task.spec["fingerprint"]] = LessonSpec.from_dict(task.spec)
            return grade_submission(task, spec).to_dict()
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            failures.append(
                f"{type(exc).__name__}: {exc}\n" + traceback.format_exc(limit=5)[-1500:]
            )
    result = SubmissionResult.not_graded(
        task,
        f"the grader failed on this submission {len(failures)} times: "
        + failures[-1].splitlines()[0],
        detail="\n" + failures[-1],
    )
    result.seconds = time.monotonic() - started
    return result.to_dict()


# lesson -> the checks fingerprint this process computed from its own package, once: walking
# the imports of a lesson's checks parses dozens of files (a quarter of a second), and a
# worker grades many submissions of one lesson with the package it started with
_LOCAL_FINGERPRINTS: dict[str, str] = {}


def registry_checks(spec: LessonSpec) -> dict[str, Callable]:
    """The registry's check for every exercise of the lesson (in this process)."""
    from transformer_course import registry

    if spec.lesson not in _LOCAL_FINGERPRINTS:
        _LOCAL_FINGERPRINTS[spec.lesson] = checks_fingerprint(spec.lesson)
    if _LOCAL_FINGERPRINTS[spec.lesson] != spec.checks_fingerprint:
        raise RuntimeError(
            "this worker's course package differs from the coordinator's (checks, reference or "
            "grader changed): install the same version everywhere"
        )
    return {ex.name: ex.check for ex in registry.exercises(spec.lesson)}


def parse_notebook(data: bytes) -> tuple[list | None, str | None, list[str]]:
    """(cells, problem, flags): problem is why the file cannot be graded at all."""
    if not data.strip():
        return None, "the notebook file is empty", []
    try:
        notebook = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        return None, "the notebook file is not text (UTF-8)", []
    except ValueError as exc:
        return None, f"the notebook file is not valid JSON ({str(exc)[:100]})", []
    except RecursionError:
        return None, "the notebook file nests too deeply to be read", []
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        return None, "the file is JSON but not a Jupyter notebook (no list of cells)", []
    flags = []
    if notebook.get("nbformat") != 4:
        flags.append(f"the notebook has format version {notebook.get('nbformat')!r}, not 4")
    return notebook["cells"], None, flags


# ---------------------------------------------------------------------- the pipeline
@dataclass
class Grading:
    """One submission on its way through :data:`PIPELINE` (each step fills in its part)."""

    task: Task
    spec: LessonSpec
    checks: dict[str, Callable]
    result: SubmissionResult
    started: float
    cells: list | None = None
    plan: Plan | None = None
    findings: list[Finding] = field(default_factory=list)
    trips: list[Trip] = field(default_factory=list)
    references: list[ReferenceUse] = field(default_factory=list)
    done: bool = False  # a step decided the submission cannot be graded further

    @property
    def by_name(self) -> dict[str, ExerciseResult]:
        return {e.name: e for e in self.result.exercises}


def parse(grading: Grading) -> None:
    """The submission's bytes as notebook cells (or why it cannot be graded at all)."""
    problem = grading.task.problem
    if problem is None:
        grading.cells, problem, flags = parse_notebook(grading.task.data)
        grading.result.flags.extend(flags)
    if problem is not None:
        grading.result.flags.append(f"not graded: {problem}")
        for exercise in grading.result.exercises:
            exercise.status = "invalid"
            exercise.message = f"{exercise.name}: not graded: {problem}"
        grading.done = True


def plan(grading: Grading) -> None:
    """Which cells run, in which order, and where each exercise is checked."""
    grading.plan = build_plan(grading.cells, grading.spec)
    grading.result.flags.extend(grading.plan.flags)
    for name, untouched in grading.plan.untouched.items():
        grading.by_name[name].untouched = untouched


def scan_source(grading: Grading) -> None:
    """What the learner's code mentions (read by the grader from the source it parsed)."""
    grading.findings = scan(grading.plan, grading.spec)


def run(grading: Grading) -> None:
    """Run the cells in the sandbox and each exercise's checks here, in order."""
    with _LOCK:
        _run(grading)


def apply_policies(grading: Grading) -> None:
    evidence = Evidence(
        grading.spec, grading.plan, grading.findings, grading.trips, grading.references
    )
    policies.apply_policies(evidence, grading.result)


def record(grading: Grading) -> None:
    grading.result.seconds = time.monotonic() - grading.started


Step = Callable[[Grading], None]
PIPELINE: tuple[Step, ...] = (parse, plan, scan_source, run, apply_policies, record)


def grade_submission(
    task: Task, spec: LessonSpec, checks: dict[str, Callable] | None = None
) -> SubmissionResult:
    """Grade one submission through :data:`PIPELINE`. ``checks`` (exercise name -> check
    function) defaults to the registry's."""
    started = time.monotonic()
    iso = sandbox.isolation(task.mode)
    result = SubmissionResult(
        task.student,
        task.lesson,
        task.path,
        task.sha256,
        spec.fingerprint,
        exercises=[ExerciseResult(ex.name, ex.points) for ex in spec.exercises],
        isolation=iso.describe(),
        degraded=iso.degraded,
        timestamp=task.timestamp,
    )
    if iso.degraded:
        result.flags.append(iso.describe())
    checks = checks if checks is not None else registry_checks(spec)
    grading = Grading(task, spec, checks, result, started)
    for step in PIPELINE:
        if not grading.done or step is record:
            step(grading)
    return result


def _run(grading: Grading) -> None:
    task, spec, result = grading.task, grading.spec, grading.result
    by_name = grading.by_name
    given = {step.index for step in grading.plan.steps if step.given and step.index >= 0}
    session = Session(spec, task.limits, task.mode, given)
    session.start()
    try:
        for step in grading.plan.steps:
            session.check_submission_time()
            if step.kind == "exec":
                outcome = session.exec_cell(step.index, step.source)
                result.cells.append(
                    CellResult(
                        step.index,
                        step.role,
                        step.exercise,
                        outcome["status"],
                        outcome["error"][:2000],
                        outcome["output"][:4000],
                    )
                )
            else:
                exercise = spec.exercise(step.exercise)
                check = grading.checks[exercise.name]
                _check(session, exercise, check, by_name[exercise.name], result)
                session.release(exercise.name)
    except GiveUp as give_up:
        for exercise in result.exercises:
            if exercise.status == "not run":
                exercise.message = f"{exercise.name}: {give_up.message}"
        result.flags.append(give_up.message)
    finally:
        session.close()
    grading.trips, grading.references = session.trips, session.references


def _check(session: Session, exercise, check, outcome: ExerciseResult, result) -> None:
    started = time.monotonic()
    printed = io.StringIO()
    outcome.part = "visible"
    try:
        with (
            session.checking(exercise),
            contextlib.redirect_stdout(printed),
            warnings.catch_warnings(),
        ):
            warnings.simplefilter("ignore")
            value = session.resolve(exercise.name)
            if value is MISSING:
                raise NameError(
                    f"name '{exercise.name}' is not defined: run (or restore) the answer cell that "
                    "defines it"
                )
            check(value)
            outcome.part = "hidden"
            check(value, hidden=True)
            session.ping()  # a sandbox that died while the checks ran earns nothing
        outcome.status = "passed"
        outcome.score = outcome.points
        outcome.part = ""
    except CheckFailure as failure:
        outcome.status = "failed"
        outcome.message = str(failure)
        outcome.learner_traceback = failure.learner_traceback or ""
    except SandboxAbort as abort:
        outcome.status = "timeout" if abort.kind == "timeout" else "crashed"
        outcome.message = f"{exercise.name}: {abort.message}"
        if abort.kind != "timeout":
            outcome.message += (
                ". The sandbox stopped while its checks ran, so this exercise earns no points "
                "(whatever the checks had seen before)"
            )
        if "interfered" in abort.message or "cannot read" in abort.message:
            result.flags.append(f"{exercise.name}: {abort.message}")
        if not abort.recovered:
            session.restart()
    except CheckProblem as problem:
        outcome.status = "error"
        outcome.message = f"{exercise.name}: the grader could not run this check ({problem})"
        result.flags.append(outcome.message)
    except GiveUp:
        raise
    except Exception as exc:  # NameError, or a check that could not cope with the value
        outcome.status = "error"
        outcome.message = f"{exercise.name}: {type(exc).__name__}: {exc}"[:4000]
    finally:
        outcome.output = (printed.getvalue() + "".join(session.outputs))[:8000]
        session.outputs.clear()
        outcome.seconds = round(time.monotonic() - started, 3)
