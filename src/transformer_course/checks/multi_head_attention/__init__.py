"""Checks for lesson 05: ``split_heads``, ``merge_heads``, ``MultiHeadAttention`` and two
concept questions.

Expected values come from :mod:`transformer_course.reference.multi_head_attention`
(tested against ``nn.MultiheadAttention`` in ``tests/test_05_multi_head_attention.py``).
The values that classic mistakes produce are computed by the float64 oracle
:func:`~transformer_course.checking.oracles.multi_head_attention_f`, with one knob per
mistake, so that a wrong answer gets the diagnosis of the mistake it matches. The attention weights are diagnosed by the
course's one shared diagnosis, :func:`~transformer_course.checking.attention_weights.expect_attention_weights`.

One module per exercise (``split``: split_heads, ``merge``: merge_heads, ``mha``:
MultiHeadAttention, whose docstring says what it accepts, with its cases in ``mha_cases``,
its diagnoses in ``mha_diagnoses`` and its dropout placement in ``mha_dropout``; the
questions in ``quizzes``), what split and merge share in ``common``, and the registry's
``LESSON`` and ``EXERCISES`` in ``exercises``. This face only re-exports: the check
functions and the questions.
"""

from .exercises import EXERCISES as EXERCISES
from .exercises import LESSON as LESSON
from .merge import check_merge_heads
from .mha import check_MultiHeadAttention
from .quizzes import QUIZ_CROSS_ATTENTION_SHAPE as QUIZ_CROSS_ATTENTION_SHAPE
from .quizzes import QUIZ_HEAD_WIDTH as QUIZ_HEAD_WIDTH
from .quizzes import check_quiz_cross_attention_shape, check_quiz_head_width
from .split import check_split_heads

__all__ = [
    "check_MultiHeadAttention",
    "check_merge_heads",
    "check_quiz_cross_attention_shape",
    "check_quiz_head_width",
    "check_split_heads",
]
