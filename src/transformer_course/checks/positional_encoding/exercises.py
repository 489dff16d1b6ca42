"""Lesson 03's exercises, as the registry reads them (re-exported by the package)."""

from __future__ import annotations

from transformer_course.exercise import Exercise

from .module import check_PositionalEncoding
from .quizzes import check_quiz_row_length, check_quiz_shift
from .shift import check_relative_shift
from .table import check_positional_encoding

# ---------------------------------------------------------------------------- registry
LESSON = "03_positional_encoding"
EXERCISES = (
    Exercise(
        "positional_encoding",
        check_positional_encoding,
        kind="function",
        points=3,
        minutes=20,
        level=2,
    ),
    Exercise(
        "relative_shift", check_relative_shift, kind="function", points=2, minutes=25, level=3
    ),
    Exercise("quiz_shift", check_quiz_shift, kind="quiz", points=1, minutes=3, level=2),
    Exercise("quiz_row_length", check_quiz_row_length, kind="quiz", points=1, minutes=3, level=2),
    Exercise(
        "PositionalEncoding", check_PositionalEncoding, kind="module", points=2, minutes=20, level=2
    ),
)
