"""Lesson 04's exercises, as the registry reads them (re-exported by the package)."""

from __future__ import annotations

from transformer_course.exercise import Exercise

from .quizzes import (
    check_quiz_cross_attention_roles,
    check_quiz_fully_masked,
    check_quiz_score_scale,
)
from .row import check_attention_row
from .sdpa import check_scaled_dot_product_attention
from .softmax import check_softmax

LESSON = "04_attention"
EXERCISES = (
    Exercise(
        "softmax",
        check_softmax,
        kind="function",
        points=2,
        minutes=15,
        level=2,
        forbidden=("scipy.special.softmax", "torch.softmax", "torch.nn.functional.softmax"),
    ),
    Exercise(
        "attention_row",
        check_attention_row,
        kind="function",
        points=2,
        minutes=15,
        level=1,
        forbidden=("torch.nn.functional.scaled_dot_product_attention",),
    ),
    Exercise("quiz_score_scale", check_quiz_score_scale, kind="quiz", points=1, minutes=2, level=1),
    Exercise(
        "quiz_fully_masked", check_quiz_fully_masked, kind="quiz", points=1, minutes=2, level=1
    ),
    Exercise(
        "scaled_dot_product_attention",
        check_scaled_dot_product_attention,
        kind="function",
        points=3,
        minutes=30,
        level=3,
        forbidden=(
            "torch.nn.functional.scaled_dot_product_attention",
            "torch.nn.MultiheadAttention",
        ),
    ),
    Exercise(
        "quiz_cross_attention_roles",
        check_quiz_cross_attention_roles,
        kind="quiz",
        points=1,
        minutes=2,
        level=1,
    ),
)
