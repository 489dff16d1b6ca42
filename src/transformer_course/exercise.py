"""What an exercise is: the type every lesson's registry entry is made of.

The bottom of the content side: it imports nothing of the course, so the check modules
(``checks/<topic>.py``) that declare their exercises with it and the registry that finds
those modules (:mod:`transformer_course.registry`) both build on it without a circle.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["LEVELS", "SOLUTION_MARKERS", "Exercise", "Kind", "lesson_topic"]

#: nbgrader's markers around the solution inside an answer cell (the student version gets
#: the stub instead; the reference module and the grader read the code between them)
SOLUTION_MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")

Kind = Literal["function", "module", "quiz"]
LEVELS = {1: "warm-up", 2: "core", 3: "challenging"}


def lesson_topic(lesson: str) -> str:
    """The topic of a lesson name, which names its modules: "04_attention" -> "attention"
    (``checks/attention.py``, ``reference/attention.py``)."""
    return lesson.split("_", 1)[1]


@dataclass(frozen=True)
class Exercise:
    """One graded exercise.

    * ``kind``: "function" (called with data), "module" (an ``nn.Module`` class:
      constructed, loaded with a state dict, switched to train/eval, called), or
      "quiz" (a function returning the answer to a concept question).
    * ``points``: what its test cell is worth; ``minutes``: the estimated time for
      a learner; ``level``: 1 warm-up, 2 core, 3 challenging. The exercise header
      in the lesson shows all three.
    * ``forbidden``: dotted names of library APIs the answer must not use (the
      exercise asks to build what they compute); the grader enforces it.
    * ``methods``: for a module, the methods its check calls besides construction,
      ``state_dict``/``load_state_dict``, ``train``/``eval`` and ``forward`` (e.g.
      ``("encode", "decode")``); the grader forwards exactly these.
    """

    name: str
    check: Callable[..., None]
    kind: Kind
    points: int
    minutes: int
    level: int
    forbidden: tuple[str, ...] = ()
    methods: tuple[str, ...] = ()
    lesson: str = field(default="", compare=False)

    @property
    def grade_id(self) -> str:
        """The grade_id (and cell id) of the answer cell."""
        return self.name

    @property
    def test_grade_id(self) -> str:
        """The grade_id (and cell id) of the graded test cell."""
        return f"test_{self.name}"

    @property
    def topic(self) -> str:
        return lesson_topic(self.lesson)

    @property
    def reference(self) -> Any:
        """The course's reference implementation (exported from the lesson master)."""
        module = importlib.import_module(f"transformer_course.reference.{self.topic}")
        return getattr(module, self.name)

    @property
    def header(self) -> str:
        """What every exercise header shows after the exercise's title."""
        unit = "point" if self.points == 1 else "points"
        return f"{self.points} {unit} · about {self.minutes} min · {LEVELS[self.level]}"
