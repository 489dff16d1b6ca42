"""Concept questions: multiple choice, or a number, each wrong answer explained.

A lesson asks a question in markdown and the learner answers in an answer cell::

    def quiz_score_scale() -> str:
        \"\"\"Your answer to the question above: "a", "b", "c" or "d".\"\"\"
        return "b"

The test cell calls ``check_quiz_score_scale(quiz_score_scale)``, made by :func:`quiz_check` from a
:class:`Quiz`. A quiz is an exercise like any other (registered with
``kind="quiz"``): a function answer keeps the untouched notebook's "not
implemented yet" message and lets the grader fetch the answer as plain data.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from transformer_course.checking.checker import Checker
from transformer_course.checking.formatting import short

__all__ = ["Quiz", "quiz_check"]


@dataclass(frozen=True)
class Quiz:
    """One question. ``choices`` maps letters to the choice texts (empty for a numeric
    answer); ``answer`` is the right letter or number; ``why`` explains each choice
    (or common wrong numbers), the right one included, shown after an answer."""

    name: str
    answer: str | float
    why: Mapping[str | float, str]
    choices: Mapping[str, str] = field(default_factory=dict)
    rel_tol: float = 1e-6


def _letter(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    text = value.strip().lower().strip("().[] ")
    return text[:1] if len(text) == 1 or text[1:2] in {")", ".", " ", ""} else None


_HEDGE = re.compile(r"^\W*([a-z])\W*(?:\s(?:or|and)\s|/|,|&|\|)\W*([a-z])\W*$")


def _hedged(value: object, choices: Mapping[str, str]) -> str:
    """For an answer that names two choices ("b or c", "b/c", "b, c"): which; else ""."""
    if not isinstance(value, str):
        return ""
    found = _HEDGE.match(value.strip().lower())
    if not found or not {found[1], found[2]} <= set(choices) or found[1] == found[2]:
        return ""
    return f"two letters, ({found[1]}) and ({found[2]})"


def _unquoted_letter(exc: BaseException, quiz: Quiz) -> str:
    """For a NameError on one of the quiz's letters (``return b``, round 14's
    blind14d-q-cross-shape-letter-unquoted): the letter needs quotes; "" otherwise."""
    found = re.search(r"name '(\w+)' is not defined", str(exc))
    if not quiz.choices or not found or found[1].lower() not in quiz.choices:
        return ""
    name = found[1]
    letters = ", ".join(f'"{letter}"' for letter in quiz.choices)
    return (
        f"Your answer {name} is written without quotes, so Python reads it as a variable "
        f"named {name}, and there is none. The answer is a string, the letter in quotes: "
        f"return '{name}' (one of {letters})."
    )


def quiz_check(quiz: Quiz) -> Callable[..., None]:
    """The check function of a quiz: ``check_<name>(answer_function, *, hidden=False)``."""

    def check(answer_function: Callable[[], object], *, hidden: bool = False) -> None:
        with Checker(quiz.name, hidden=hidden) as c:
            c.require_callable(answer_function, quiz.name)
            given = c.call(
                answer_function,
                call_repr=f"{quiz.name}()",
                hints=[(NameError, lambda exc: _unquoted_letter(exc, quiz))],
            )
            if quiz.choices:
                letters = ", ".join(f'"{letter}"' for letter in quiz.choices)
                hedged = _hedged(given, quiz.choices)
                if hedged:
                    c.fail(
                        f"{quiz.name}() returned {short(given)}, {hedged}: a concept question "
                        f"has one answer. Return one letter, the one you choose: one of {letters}."
                    )
                letter = _letter(given)
                if letter not in quiz.choices:
                    c.fail(f"{quiz.name}() returned {short(given)}: return one of {letters}.")
                if letter != quiz.answer:
                    c.fail(
                        f"({letter}) {quiz.choices[letter]} is not right. "
                        f"{quiz.why.get(letter, '')} Think again, and try another letter."
                    )
            else:
                number = _number(given)
                if number is None:
                    c.fail(f"{quiz.name}() returned {short(given)}: return a number.")
                if not math.isclose(number, float(quiz.answer), rel_tol=quiz.rel_tol):
                    known = next(
                        (
                            text
                            for value, text in quiz.why.items()
                            if not isinstance(value, str)
                            and math.isclose(number, float(value), rel_tol=quiz.rel_tol)
                        ),
                        "",
                    )
                    c.fail(f"{number:g} is not right. {known} Think again.".replace("  ", " "))
            c.ok()
            if not hidden:
                print(f"Right. {quiz.why.get(quiz.answer, '')}".strip())

    check.__name__ = check.__qualname__ = f"check_{quiz.name}"
    check.__doc__ = f"Check the answer to the concept question {quiz.name}."
    check.quiz = quiz  # what the generic tests read
    return check


def _number(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        number = float(value)  # int, float, numpy or torch scalar, "64"
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None
