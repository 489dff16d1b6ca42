"""What grading a submission produces: plain data, JSON-serialisable, the same from a
local worker process or from a Dask worker on another machine."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

STATUS_WORDS = {
    "passed": "passed",
    "failed": "failed a check",
    "error": "raised an error",
    "timeout": "ran out of time",
    "crashed": "crashed",
    "forbidden": "used a forbidden API",
    "reference": "used the course's reference",
    "not run": "not graded",
    "invalid": "submission unreadable",
}


@dataclass
class ExerciseResult:
    name: str
    points: float
    score: float = 0.0
    status: str = "not run"
    message: str = ""
    output: str = ""  # what the checks printed (success lines, notes)
    learner_traceback: str = ""
    part: str = ""  # "visible" or "hidden": which checks were running when it stopped
    seconds: float = 0.0
    untouched: bool = False  # the answer cell is the unchanged stub ("No response.")


@dataclass
class CellResult:
    index: int
    role: str
    exercise: str | None
    status: str  # "ok", "error", "timeout", "crashed", "skipped"
    error: str = ""
    output: str = ""


@dataclass
class SubmissionResult:
    student: str
    lesson: str
    path: str = ""
    sha256: str = ""
    fingerprint: str = ""
    exercises: list[ExerciseResult] = field(default_factory=list)
    cells: list[CellResult] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    isolation: str = ""
    degraded: bool = False
    seconds: float = 0.0
    error: str = ""  # the grader itself failed on this submission
    timestamp: str | None = None

    @property
    def score(self) -> float:
        return float(sum(e.score for e in self.exercises))

    @property
    def max_score(self) -> float:
        return float(sum(e.points for e in self.exercises))

    @property
    def flagged(self) -> bool:
        return bool(self.flags or self.error)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def not_graded(
        cls,
        task,
        error: str,
        *,
        detail: str = "",
        message: str = "",
    ) -> SubmissionResult:
        """A submission the grader could not grade (``task``: a ``runner.Task``): every
        exercise of its lesson "not run" (with ``message``), and flagged with ``error`` (and
        ``detail``, for the instructor) for a human."""
        result = cls(task.student, task.lesson, task.path, task.sha256)
        result.fingerprint = task.spec.get("fingerprint", "")
        result.exercises = [
            ExerciseResult(e["name"], float(e["points"]), status="not run", message=message)
            for e in task.spec.get("exercises", [])
        ]
        result.error = error
        result.flags.append(error + detail)
        return result

    @classmethod
    def from_dict(cls, data: dict) -> SubmissionResult:
        data = dict(data)
        data["exercises"] = [ExerciseResult(**e) for e in data.get("exercises", [])]
        data["cells"] = [CellResult(**c) for c in data.get("cells", [])]
        return cls(**data)
