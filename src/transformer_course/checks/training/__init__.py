"""Checks for lesson 10: batches for teacher forcing, the learning-rate schedule, label
smoothing, one training step, beam search, translation scores, and two questions.

One module per exercise (``batches``, ``schedule``, ``smoothing``, ``step``, ``beam``,
``scores``; the questions in ``quizzes``), the machinery they share in ``common``, and the
registry's ``LESSON`` and ``EXERCISES`` in ``exercises``. This face only re-exports: the
check functions, and the cases, models and expected values they run (public, so that the
lesson's tests can prove what the checks rely on).
"""

from .batches import check_make_batches
from .beam import (
    BEAM_VOCAB,
    beam_cases,
    beam_model,
    check_beam_search,
)
from .exercises import EXERCISES as EXERCISES
from .exercises import LESSON as LESSON
from .quizzes import (
    check_quiz_loss_floor,
    check_quiz_teacher_forcing,
)
from .schedule import check_noam_lr
from .scores import check_translation_scores
from .smoothing import (
    check_label_smoothed_loss,
    smoothed_cross_entropy,
    smoothing_cases,
)
from .step import (
    STEP_VOCAB,
    check_train_step,
    copy_model,
    step_batches,
    step_model,
)

__all__ = [
    "BEAM_VOCAB",
    "STEP_VOCAB",
    "beam_cases",
    "beam_model",
    "check_beam_search",
    "check_label_smoothed_loss",
    "check_make_batches",
    "check_noam_lr",
    "check_quiz_loss_floor",
    "check_quiz_teacher_forcing",
    "check_train_step",
    "check_translation_scores",
    "copy_model",
    "smoothed_cross_entropy",
    "smoothing_cases",
    "step_batches",
    "step_model",
]
