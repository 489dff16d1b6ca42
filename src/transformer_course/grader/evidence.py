"""What the grader saw while a submission ran, as typed records the policies read.

Each record is made on the grader's side. Where a field comes from the sandbox (a
tripwire's report), it can only add evidence against the learner's code, never clear
any: the learner's own process could have written it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Death", "ReferenceUse", "Trip"]


@dataclass(frozen=True)
class Trip:
    """An API an exercise forbids ran while that exercise was checked (reported from the
    sandbox: it can only add evidence)."""

    api: str  # dotted name of the API
    exercise: str | None  # the exercise being checked when it ran (the grader's record)
    origin: int | None  # the notebook cell whose code called it, as the sandbox reported


@dataclass
class ReferenceUse:
    """The learner's code reached the current lesson's reference ``name`` (all fields are
    the grader's own record)."""

    name: str
    cell: int | None  # the notebook cell that was running (None: a check was running)
    during: str | None  # the exercise being checked at the time (None: a cell was running)
    graded: bool  # ``name`` had already been graded
    refused: bool = False  # an early use of a reference class that the grader refused
    watched: bool = False  # the code of a reference class released early ran (in a check)
    stopped: str = ""  # why the grader refused or stopped running it (too large, too slow)


@dataclass(frozen=True)
class Death:
    """The sandbox died (or was killed) while an exercise's checks ran."""

    exercise: str
    message: str
