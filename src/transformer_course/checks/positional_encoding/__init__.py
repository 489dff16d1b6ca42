"""Checks for lesson 03: sinusoidal positional encoding.

Three exercises and two concept questions: the table ``positional_encoding(max_len,
d_model)``, the rotation ``relative_shift(k, d_model)`` that moves every position by
k, and the module ``PositionalEncoding(d_model, max_len, dropout)`` that adds the
table to a batch of embeddings.

The tables and matrices that classic mistakes give come from the float64 oracles
``sinusoidal_positions_f`` and ``relative_shift_f`` of
:mod:`transformer_course.checking.oracles`, one knob per mistake.

What the checks accept beyond the reference's own choices:

* ``positional_encoding`` and ``relative_shift``: any float dtype (float64 preferred,
  a note otherwise); values are compared at float32 precision or looser, because
  computing the angles in float32 (PyTorch's default, or the exp/log form of
  10000^(2i/d_model)) is a correct way too.
* ``PositionalEncoding``: the table may come from the learner's own
  ``positional_encoding`` or from any formula; it may be stored in any layout that
  broadcasts correctly ((1, max_len, d_model) as in the Annotated Transformer, or
  (max_len, d_model)), under any name, in any dtype as long as the output keeps x's
  dtype; and it may stay out of the state dict (a plain attribute, as d2l keeps it,
  or a non-persistent buffer), with a note. A table stored as a learnable
  parameter is rejected: it would be trained.

One module per exercise (``table``: positional_encoding, with the wrong tables it shares
with ``module`` in ``table_mistakes``; ``shift``: relative_shift; ``module``:
PositionalEncoding; the questions in ``quizzes``), what the table and shift checks share in
``common``, and the registry's ``LESSON`` and ``EXERCISES`` in ``exercises``. This face only
re-exports: the check functions and the questions.
"""

from .exercises import EXERCISES as EXERCISES
from .exercises import LESSON as LESSON
from .module import check_PositionalEncoding
from .quizzes import QUIZ_ROW_LENGTH as QUIZ_ROW_LENGTH
from .quizzes import QUIZ_SHIFT as QUIZ_SHIFT
from .quizzes import check_quiz_row_length, check_quiz_shift
from .shift import check_relative_shift
from .table import check_positional_encoding

__all__ = [
    "check_PositionalEncoding",
    "check_positional_encoding",
    "check_quiz_row_length",
    "check_quiz_shift",
    "check_relative_shift",
]
