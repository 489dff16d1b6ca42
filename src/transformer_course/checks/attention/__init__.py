"""Checks for lesson 04: a numerically stable softmax, one row of attention by hand,
scaled dot-product attention, and three concept questions.

The inputs are chosen so that the classic mistakes cannot hide: len_q != len_k (so
swapping q and k breaks the shapes), d_k, d_v, len_q, len_k and the batch size all
different (so scaling by the wrong number gives a recognisably different answer,
and returning the pair in the wrong order shows in the shapes), masks that are not
symmetric and have a fully masked query row, large logits in float32 (so a softmax
without the max trick overflows), batched inputs (so ``k.T`` and ``transpose(1, 2)``
show). Every mistake the hidden run can find, the visible run finds too; the
hidden run adds other seeds and shapes against hard-coded answers.

What is accepted, because the concept does not fix it: any floating dtype for the
results (a note when it is not the input's); any value to block masked keys (-inf,
-1e9, -1e4, ``torch.finfo(dtype).min``, ``masked_fill``, ``torch.where`` or an
additive float mask); for a query with no key it may attend to, all-zero weights
(the reference), uniform weights or another finite distribution (a note), but
never NaN; for a softmax slice that is all -inf, zeros (the reference) or uniform
weights (a note), but never NaN.

One module per exercise (``softmax``, ``row``: attention_row, ``sdpa``:
scaled_dot_product_attention; the questions in ``quizzes``), what they share in ``common``,
and the registry's ``LESSON`` and ``EXERCISES`` in ``exercises``. This face only re-exports:
the check functions and the questions.
"""

from .exercises import EXERCISES as EXERCISES
from .exercises import LESSON as LESSON
from .quizzes import QUIZ_CROSS_ATTENTION_ROLES as QUIZ_CROSS_ATTENTION_ROLES
from .quizzes import QUIZ_FULLY_MASKED as QUIZ_FULLY_MASKED
from .quizzes import QUIZ_SCORE_SCALE as QUIZ_SCORE_SCALE
from .quizzes import QUIZZES as QUIZZES
from .quizzes import (
    check_quiz_cross_attention_roles,
    check_quiz_fully_masked,
    check_quiz_score_scale,
)
from .row import check_attention_row
from .sdpa import check_scaled_dot_product_attention
from .softmax import check_softmax

__all__ = [
    "check_attention_row",
    "check_quiz_cross_attention_roles",
    "check_quiz_fully_masked",
    "check_quiz_score_scale",
    "check_scaled_dot_product_attention",
    "check_softmax",
]
