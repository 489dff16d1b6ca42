"""Lesson 09's exercises, as the registry reads them (re-exported by the package)."""

from __future__ import annotations

from transformer_course.exercise import Exercise

from .count import check_count_parameters
from .greedy import check_greedy_decode
from .model import check_Transformer
from .quizzes import check_quiz_autoregression, check_quiz_tie_embeddings

# ================================================================== registry
LESSON = "09_transformer"
EXERCISES = (
    Exercise(
        "quiz_tie_embeddings", check_quiz_tie_embeddings, kind="quiz", points=1, minutes=3, level=1
    ),
    Exercise(
        "Transformer",
        check_Transformer,
        kind="module",
        points=4,
        minutes=40,
        level=3,
        forbidden=(
            "torch.nn.Transformer",
            "torch.nn.TransformerEncoder",
            "torch.nn.TransformerDecoder",
            "torch.nn.TransformerEncoderLayer",
            "torch.nn.TransformerDecoderLayer",
        ),
        methods=("encode", "decode"),
    ),
    Exercise(
        "count_parameters", check_count_parameters, kind="function", points=2, minutes=20, level=2
    ),
    Exercise(
        "quiz_autoregression",
        check_quiz_autoregression,
        kind="quiz",
        points=1,
        minutes=3,
        level=1,
    ),
    Exercise("greedy_decode", check_greedy_decode, kind="function", points=3, minutes=30, level=3),
)
