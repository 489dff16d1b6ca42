"""The exercise registry: the one list of exercises that the tests, self-grading and
the grader read.

Each lesson's check module (``transformer_course.checks.<topic>``) declares its
lesson and its exercises in one place, at the bottom of the module::

    LESSON = "04_attention"
    EXERCISES = (
        Exercise("softmax", check_softmax, kind="function", points=2, minutes=15, level=2),
        Exercise("scaled_dot_product_attention", check_scaled_dot_product_attention,
                 kind="function", points=3, minutes=25, level=3,
                 forbidden=("torch.nn.functional.scaled_dot_product_attention",)),
    )

Everything else follows from the exercise's ``name``, which is what the learner
defines (a function or a class): the answer cell's grade_id is ``name``, the
test cell's is ``test_<name>``, the test cell calls ``check_<name>(<name>)``,
and the reference is ``transformer_course.reference.<topic>.<name>``. A test
(``tests/test_exercises.py``) proves that every master agrees with the registry,
exercise for exercise and point for point.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from types import ModuleType
from typing import Any, Literal

__all__ = ["Exercise", "all_exercises", "exercise", "exercises", "lesson_topic", "lessons"]

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


def _check_modules() -> list[ModuleType]:
    import transformer_course.checks as package

    modules = []
    for info in pkgutil.iter_modules(package.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        if hasattr(module, "EXERCISES"):
            modules.append(module)
    return modules


def lessons() -> list[str]:
    """Every lesson with registered exercises, in course order."""
    return sorted(module.LESSON for module in _check_modules())


def exercises(lesson: str) -> tuple[Exercise, ...]:
    """The exercises of one lesson, in the order they appear in it."""
    topic = lesson_topic(lesson)
    module = importlib.import_module(f"transformer_course.checks.{topic}")
    if getattr(module, "LESSON", None) != lesson:
        raise LookupError(f"transformer_course.checks.{topic} does not declare LESSON = {lesson!r}")
    return tuple(replace(ex, lesson=lesson) for ex in module.EXERCISES)


def exercise(lesson: str, name: str) -> Exercise:
    for ex in exercises(lesson):
        if ex.name == name:
            return ex
    raise LookupError(f"lesson {lesson} has no exercise {name!r}")


def all_exercises() -> list[Exercise]:
    return [ex for lesson in lessons() for ex in exercises(lesson)]
