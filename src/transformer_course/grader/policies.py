"""The grading policies: what the evidence of a run does to each exercise's score and flags.

Each policy reads typed records (:mod:`.evidence`, :class:`.static.Finding`) and the
plan, and changes the result; :data:`POLICIES` lists them in the order they apply.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from dataclasses import dataclass

from transformer_course import api_families
from transformer_course.grader.evidence import ReferenceUse, Trip
from transformer_course.grader.lesson import LessonSpec
from transformer_course.grader.plan import Plan
from transformer_course.grader.results import ExerciseResult, SubmissionResult
from transformer_course.grader.static import Finding, expand_forbidden

__all__ = ["POLICIES", "Evidence", "apply_policies"]


@dataclass
class Evidence:
    """Everything the policies read about one submission."""

    spec: LessonSpec
    plan: Plan
    findings: list[Finding]
    trips: list[Trip]
    references: list[ReferenceUse]


def _api_matches(api: str, forbidden: str) -> bool:
    return api == forbidden or fnmatch.fnmatchcase(api, forbidden)


def _given(plan: Plan, cell: int | None) -> bool:
    step = plan.roles.get(cell) if cell is not None else None
    return bool(step is not None and step.given)


def _outcomes(result: SubmissionResult) -> dict[str, ExerciseResult]:
    return {e.name: e for e in result.exercises}


def _paid_elsewhere(evidence: Evidence, exercise: str, trip: Trip) -> bool:
    """The trip's call is written in another exercise's answer cell that forbids it too:
    that exercise pays for it (``CausalSelfAttention``'s SDPA does not cost ``DecoderBlock``,
    whose checks use the learner's attention), as the notebook's check decides."""
    owner = next((e for i, _, e in evidence.plan.learner_cells if i == trip.origin), None)
    if owner in (None, exercise):
        return False
    other = next((e for e in evidence.spec.exercises if e.name == owner), None)
    return other is not None and any(
        _api_matches(trip.api, f) for f in expand_forbidden(other.forbidden)
    )


def forbidden_calls(evidence: Evidence, result: SubmissionResult) -> None:
    """An exercise whose own code is proven to call a forbidden API (the grader's parse of
    its answer cell, :mod:`.proof`), or whose checks saw one run from the learner's code
    (not from another exercise's answer that forbids it too), scores 0, with the reason."""
    outcomes = _outcomes(result)
    for exercise in evidence.spec.exercises:
        forbidden = expand_forbidden(exercise.forbidden)
        proven = sorted(
            {
                f"{finding.what} ({finding.where()})"
                for finding in evidence.findings
                if finding.kind == "forbidden"
                and finding.proven
                and finding.exercise == exercise.name
                and finding.forbidden in forbidden
            }
        )
        seen = sorted(
            {
                trip.api
                for trip in evidence.trips
                if trip.exercise == exercise.name
                and not _given(evidence.plan, trip.origin)
                and any(_api_matches(trip.api, f) for f in forbidden)
                and not _paid_elsewhere(evidence, exercise.name, trip)
            }
        )
        used = proven + [f"{api} (seen running in the checks)" for api in seen]
        if used:
            first = used[0].split(" ")[0]  # the name as the learner's code spells it
            outcome = outcomes[exercise.name]
            outcome.score = 0.0
            outcome.status = "forbidden"
            outcome.message = (
                f"{exercise.name}: your code calls {', '.join(used)}, which this exercise asks "
                "you to build yourself, so it scores 0 (even where the checks passed). "
                f"{api_families.advice(first, exercise.forbidden)}."
            )


def reference_use(evidence: Evidence, result: SubmissionResult) -> None:
    """An exercise answered by the course's own reference scores 0; a reference reached
    before its exercise was graded is flagged, and so is a call of it that the grader refused
    or stopped (too large or too slow: see :meth:`.session.Session._reference_callback`)."""
    outcomes = _outcomes(result)
    topic = evidence.spec.topic
    for exercise in evidence.spec.exercises:
        name = exercise.name
        uses = [r for r in evidence.references if r.name == name]
        own = [
            r
            for r in uses
            if r.during == name
            or (
                r.during is None
                and not r.graded
                and not r.refused
                and not _given(evidence.plan, r.cell)
            )
        ]
        stopped = next((r.stopped for r in uses if r.stopped), "")
        if stopped:
            result.flags.append(f"{name}: {stopped} (the call failed in the learner's code)")
        if any(r.refused and r.during != name for r in uses):
            result.flags.append(
                f"{name}: the learner's code tried to construct the course's reference "
                f"{name} before it was graded (refused): check by hand"
            )
        if own:
            outcome = outcomes[name]
            outcome.score = 0.0
            outcome.status = "reference"
            outcome.message = (
                f"{name}: your notebook uses the course's reference implementation "
                f"(transformer_course.reference.{topic}.{name}) in place of your own "
                "code, so it scores 0. Write it yourself; the reference becomes available once "
                "the exercise is graded."
            )
        later = sorted(
            {
                r.name
                for r in evidence.references
                if r.during == name and r.name != name and not r.graded and not r.watched
            }
        )
        if later:
            result.flags.append(
                f"{name}: while it was checked, the learner's code called the course's "
                f"reference of {', '.join(later)} (not graded yet): check by hand"
            )


def forbidden_mentions(evidence: Evidence, result: SubmissionResult) -> None:
    """A forbidden API the code names (in any spelling of its family) before the exercise
    is checked, but the checks did not see run: a human decides."""
    outcomes = _outcomes(result)
    steps = evidence.plan.steps
    runs_at = {s.index: i for i, s in enumerate(steps) if s.kind == "exec"}
    for exercise in evidence.spec.exercises:
        checked_at = next(
            (i for i, s in enumerate(steps) if s.kind == "check" and s.exercise == exercise.name),
            len(steps),
        )
        mentioned = sorted(
            {
                f.what
                for f in evidence.findings
                if f.kind == "forbidden"
                and f.forbidden in expand_forbidden(exercise.forbidden)
                and f.exercise in (exercise.name, None)
                and runs_at.get(f.cell, -1) < checked_at
            }
        )
        if mentioned and outcomes[exercise.name].status != "forbidden":
            result.flags.append(
                f"{exercise.name}: the code mentions {', '.join(mentioned)} (off-limits in this "
                "exercise) but the grader did not see it called: check by hand"
            )


def static_findings(evidence: Evidence, result: SubmissionResult) -> None:
    """What the static scan found that the grader cannot judge: flagged with the reason."""
    outcomes = _outcomes(result)
    dynamic = [f for f in evidence.findings if f.kind == "dynamic"]
    if dynamic:
        listed = "; ".join(f"{f.what} ({f.where()})" for f in dynamic[:8])
        result.flags.append(
            "the code uses constructs that can hide what it calls or tamper with grading: "
            f"{listed}. The grader cannot prove what they did: check by hand"
        )
    for finding in evidence.findings:
        if finding.kind == "own-reference" and outcomes[finding.exercise].status != "reference":
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


Policy = Callable[[Evidence, SubmissionResult], None]
POLICIES: tuple[Policy, ...] = (forbidden_calls, reference_use, forbidden_mentions, static_findings)


def apply_policies(evidence: Evidence, result: SubmissionResult) -> None:
    for policy in POLICIES:
        policy(evidence, result)
