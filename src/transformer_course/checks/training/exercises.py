"""Lesson 10's exercises, as the registry reads them (re-exported by the package)."""

from __future__ import annotations

from transformer_course.exercise import Exercise

from .batches import check_make_batches
from .beam import check_beam_search
from .quizzes import check_quiz_loss_floor, check_quiz_teacher_forcing
from .schedule import check_noam_lr
from .scores import check_translation_scores
from .smoothing import check_label_smoothed_loss
from .step import check_train_step

LESSON = "10_training"
EXERCISES = (
    Exercise("make_batches", check_make_batches, kind="function", points=3, minutes=25, level=2),
    Exercise(
        "quiz_teacher_forcing",
        check_quiz_teacher_forcing,
        kind="quiz",
        points=1,
        minutes=3,
        level=1,
    ),
    Exercise("noam_lr", check_noam_lr, kind="function", points=2, minutes=10, level=1),
    Exercise(
        "label_smoothed_loss",
        check_label_smoothed_loss,
        kind="function",
        points=3,
        minutes=25,
        level=2,
        forbidden=("torch.nn.functional.cross_entropy", "torch.nn.CrossEntropyLoss"),
    ),
    Exercise("quiz_loss_floor", check_quiz_loss_floor, kind="quiz", points=1, minutes=5, level=2),
    Exercise("train_step", check_train_step, kind="function", points=3, minutes=15, level=2),
    Exercise(
        "translation_scores",
        check_translation_scores,
        kind="function",
        points=2,
        minutes=15,
        level=1,
    ),
    Exercise("beam_search", check_beam_search, kind="function", points=4, minutes=75, level=3),
)
