"""The exercise registry: the one list of exercises that the tests, self-grading and
the grader read.

Each lesson's check module (``transformer_course.checks.<topic>``) declares its
lesson and its exercises in one place, at the bottom of the module (the types come
from :mod:`transformer_course.exercise`, which imports nothing of the course, so the
registry's arrow to the check modules is the only one)::

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
from dataclasses import replace
from types import ModuleType

from transformer_course.exercise import LEVELS, Exercise, Kind, lesson_topic

__all__ = [
    "LEVELS",
    "Exercise",
    "Kind",
    "all_exercises",
    "exercise",
    "exercises",
    "lesson_topic",
    "lessons",
]


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
