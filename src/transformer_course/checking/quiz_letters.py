"""A letter quiz's answer written without quotes: ``return b`` makes Python look for a
variable named b, and the raw NameError said nothing about the quotes (round 14, blind14d-
q-cross-shape-letter-unquoted). :func:`letter_quiz_check` is :func:`quiz.quiz_check` with
that hint added when the undefined name is one of the quiz's letters.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from transformer_course.checking.failure import CheckFailure
from transformer_course.checking.quiz import Quiz, quiz_check

__all__ = ["letter_quiz_check"]


def letter_quiz_check(quiz: Quiz) -> Callable[..., None]:
    """``quiz_check(quiz)``, whose failure for a NameError on one of the quiz's letters
    says that the letter needs quotes (it names no letter the learner did not write)."""
    check = quiz_check(quiz)

    @functools.wraps(check)
    def checked(answer_function: Callable[[], object], *, hidden: bool = False) -> None:
        try:
            check(answer_function, hidden=hidden)
        except CheckFailure as failure:
            found = re.search(r"raised NameError: name '(\w+)' is not defined", failure.message)
            if not quiz.choices or not found or found.group(1).lower() not in quiz.choices:
                raise
            name = found.group(1)
            letters = ", ".join(f'"{letter}"' for letter in quiz.choices)
            raise CheckFailure(
                failure.exercise,
                f"{failure.message}\nYour answer {name} is written without quotes, so Python "
                f"reads it as a variable named {name}, and there is none. The answer is a "
                f"string, the letter in quotes: return '{name}' (one of {letters}).",
                failure.learner_traceback,
            ) from None

    return checked
