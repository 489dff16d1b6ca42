"""Lesson 05's exercises, as the registry reads them (re-exported by the package)."""

from __future__ import annotations

from transformer_course.exercise import Exercise

from .merge import check_merge_heads
from .mha import check_MultiHeadAttention
from .quizzes import check_quiz_cross_attention_shape, check_quiz_head_width
from .split import check_split_heads

LESSON = "05_multi_head_attention"
EXERCISES = (
    Exercise("quiz_head_width", check_quiz_head_width, kind="quiz", points=1, minutes=3, level=1),
    Exercise("split_heads", check_split_heads, kind="function", points=1, minutes=10, level=2),
    Exercise("merge_heads", check_merge_heads, kind="function", points=1, minutes=10, level=2),
    Exercise(
        "quiz_cross_attention_shape",
        check_quiz_cross_attention_shape,
        kind="quiz",
        points=1,
        minutes=3,
        level=1,
    ),
    Exercise(
        "MultiHeadAttention",
        check_MultiHeadAttention,
        kind="module",
        points=3,
        minutes=30,
        level=3,
        forbidden=(
            "torch.nn.MultiheadAttention",
            "torch.nn.functional.multi_head_attention_forward",
            "torch.nn.functional.scaled_dot_product_attention",
        ),
    ),
)
