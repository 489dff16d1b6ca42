"""Grade one submission: the function every worker runs (local process or Dask worker).

The learner's cells run in the sandbox, in order; at each exercise's test cell the
registry's check runs *here*, in the grader's process, against proxies for the
learner's objects (:mod:`.proxy`). Then the exercise's reference is released to the
sandbox and the notebook goes on.
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
from dataclasses import dataclass, field
from typing import Any

from transformer_course.checking import CheckFailure
from transformer_course.grader import sandbox
from transformer_course.grader.lesson import LessonSpec, checks_fingerprint
from transformer_course.grader.plan import Plan, build_plan
from transformer_course.grader.results import CellResult, ExerciseResult, SubmissionResult
from transformer_course.grader.session import (
    MISSING,
    CheckProblem,
    GiveUp,
    SandboxAbort,
    Session,
)
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
    spec_dict = task.spec
    result = SubmissionResult(task.student, task.lesson, task.path, task.sha256)
    result.fingerprint = spec_dict.get("fingerprint", "")
    result.exercises = [
        ExerciseResult(e["name"], float(e["points"]), status="not run")
        for e in spec_dict.get("exercises", [])
    ]
    result.error = (
        f"the grader failed on this submission {len(failures)} times: "
        + failures[-1].splitlines()[0]
    )
    result.flags.append(result.error + "\n" + failures[-1])
    result.seconds = time.monotonic() - started
    return result.to_dict()


def check_functions(spec: LessonSpec) -> dict[str, Any]:
    """The registry's check for every exercise of the lesson (in this process)."""
    from transformer_course import registry

    if spec.extra.get("checks") is not None:  # tests may pass their own exercises
        return spec.extra["checks"]
    local = checks_fingerprint(spec.lesson)
    if local != spec.checks_fingerprint:
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
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        return None, "the file is JSON but not a Jupyter notebook (no list of cells)", []
    flags = []
    if notebook.get("nbformat") != 4:
        flags.append(f"the notebook has format version {notebook.get('nbformat')!r}, not 4")
    return notebook["cells"], None, flags


def grade_submission(task: Task, spec: LessonSpec) -> SubmissionResult:
    started = time.monotonic()
    iso = sandbox.isolation(task.mode)
    result = SubmissionResult(
        task.student, task.lesson, task.path, task.sha256, spec.fingerprint,
        exercises=[ExerciseResult(ex.name, ex.points) for ex in spec.exercises],
        isolation=iso.describe(), degraded=iso.degraded, timestamp=task.timestamp,
    )  # fmt: skip
    if iso.degraded:
        result.flags.append(iso.describe())
    by_name = {e.name: e for e in result.exercises}
    problem = task.problem
    cells = None
    if problem is None:
        cells, problem, flags = parse_notebook(task.data)
        result.flags.extend(flags)
    if problem is not None:
        result.flags.append(f"not graded: {problem}")
        for exercise in result.exercises:
            exercise.status = "invalid"
            exercise.message = f"{exercise.name}: not graded: {problem}"
        result.seconds = time.monotonic() - started
        return result
    plan = build_plan(cells, spec)
    result.flags.extend(plan.flags)
    findings = scan(plan, spec)
    for name, untouched in plan.untouched.items():
        by_name[name].untouched = untouched
    checks = check_functions(spec)
    with _LOCK:
        trips, references = _run(task, spec, plan, checks, result, by_name)
    _apply_policies(spec, plan, findings, trips, references, result, by_name)
    result.seconds = time.monotonic() - started
    return result


def _run(task, spec, plan: Plan, checks, result, by_name) -> tuple[list, list]:
    given = {step.index for step in plan.steps if step.given and step.index >= 0}
    session = Session(spec, task.limits, task.mode, given)
    session.start()
    try:
        for _position, step in enumerate(plan.steps):
            if time.monotonic() >= session.submission_deadline:
                raise GiveUp(session._submission_limit())
            if step.kind == "exec":
                outcome = session.exec_cell(step.index, step.source)
                result.cells.append(CellResult(step.index, step.role, step.exercise,
                                               outcome["status"], outcome["error"][:2000],
                                               outcome["output"][:4000]))  # fmt: skip
            else:
                exercise = spec.exercise(step.exercise)
                _check(session, exercise, checks[exercise.name], by_name[exercise.name], result)
                session.release(exercise.name)
    except GiveUp as give_up:
        for exercise in result.exercises:
            if exercise.status == "not run":
                exercise.message = f"{exercise.name}: {give_up.message}"
        result.flags.append(give_up.message)
    finally:
        session.close()
    return session.trips, session.references


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


# ---------------------------------------------------------------------- policies
def _api_matches(api: str, forbidden: str) -> bool:
    import fnmatch

    return api == forbidden or fnmatch.fnmatchcase(api, forbidden)


def _given(plan: Plan, origin: int | None) -> bool:
    step = plan.roles.get(origin) if origin is not None else None
    return bool(step is not None and step.given)


def _apply_policies(spec, plan: Plan, findings: list[Finding], trips: list, references: list,
                    result, by_name) -> None:  # fmt: skip
    topic = spec.topic
    for exercise in spec.exercises:
        outcome = by_name[exercise.name]
        used = sorted({t["api"] for t in trips if not t["api"].startswith("reference:")
                       if t["exercise"] == exercise.name and not _given(plan, t["origin"])
                       and any(_api_matches(t["api"], f) for f in exercise.forbidden)})  # fmt: skip
        if used:
            outcome.score = 0.0
            outcome.status = "forbidden"
            outcome.message = (
                f"{exercise.name}: your code calls {', '.join(used)}, which this exercise asks you "
                "to build yourself, so it scores 0 (even where the checks passed). Write it with "
                "basic array or tensor operations instead."
            )
        own = [
            r for r in references
            if r["name"] == exercise.name and (
                r["during"] == exercise.name
                or (r["during"] is None and not r["graded"] and not _given(plan, r["origin"])
                    and not r["refused"])
            )
        ]  # fmt: skip
        if any(r["name"] == exercise.name and r["refused"] and r["during"] != exercise.name
               for r in references):  # fmt: skip
            result.flags.append(
                f"{exercise.name}: the learner's code tried to construct the course's reference "
                f"{exercise.name} before it was graded (refused): check by hand"
            )
        watched = [t for t in trips
                   if t["api"] == f"reference:{exercise.name}" and t["exercise"] == exercise.name]  # fmt: skip
        if own or watched:
            outcome.score = 0.0
            outcome.status = "reference"
            outcome.message = (
                f"{exercise.name}: your notebook uses the course's reference implementation "
                f"(transformer_course.reference.{topic}.{exercise.name}) in place of your own "
                "code, so it scores 0. Write it yourself; the reference becomes available once "
                "the exercise is graded."
            )
        later = sorted({r["name"] for r in references
                        if r["during"] == exercise.name and r["name"] != exercise.name
                        and not r["graded"]})  # fmt: skip
        if later:
            result.flags.append(
                f"{exercise.name}: while it was checked, the learner's code called the course's "
                f"reference of {', '.join(later)} (not graded yet): check by hand"
            )
        mentioned = sorted({f.what for f in findings
                            if f.kind == "forbidden" and f.what in exercise.forbidden
                            and f.exercise in (exercise.name, None)})  # fmt: skip
        if mentioned and outcome.status != "forbidden":
            result.flags.append(
                f"{exercise.name}: the code mentions {', '.join(mentioned)} (off-limits in this "
                "exercise) but the grader did not see it called: check by hand"
            )
    dynamic = [f for f in findings if f.kind == "dynamic"]
    if dynamic:
        listed = "; ".join(f"{f.what} ({f.where()})" for f in dynamic[:8])
        result.flags.append(
            "the code uses constructs that can hide what it calls or tamper with grading: "
            f"{listed}. The grader cannot prove what they did: check by hand"
        )
    for finding in findings:
        if finding.kind == "own-reference" and by_name[finding.exercise].status != "reference":
            result.flags.append(
                f"{finding.exercise}: its answer cell refers to {finding.what}, the course's "
                "reference of this very exercise: check by hand"
            )
        if finding.kind == "checks":
            result.flags.append(
                f"{finding.where()}: imports {finding.what} (the checks run in the grader, so this "
                "has no effect on grading, but it may be an attempt to tamper with them)"
            )
        if finding.kind == "reference":
            result.flags.append(
                f"{finding.where()}: imports {finding.what}, the reference of a later lesson: "
                "check by hand that it does not stand in for an exercise"
            )
