"""Checks for lesson 09 (the full Transformer): ``Transformer``, ``count_parameters``,
``greedy_decode`` and two concept questions.

Expected values come from :mod:`transformer_course.reference.transformer`, computed in
float64 (the reference is tested against ``nn.Transformer`` plus embeddings, positions
and output layer in ``tests/test_09_transformer.py``). The values that classic mistakes
give are computed by the float64 oracles
:func:`~transformer_course.checking.oracles.transformer_encode_f` and
:func:`~transformer_course.checking.oracles.transformer_decode_f` (through
:func:`case_oracles`), one knob per mistake, so that a wrong answer gets the diagnosis of
the mistake it matches; ``count_parameters`` and ``greedy_decode``'s mistakes come from
``count_parameters_f`` and ``greedy_decode_f``.

The learner's ``Transformer`` is only constructed, read and loaded through its state
dict, switched between train and eval, and called (``encode``, ``decode``, forward),
always through :meth:`Checker.call`. Training mode is checked without a random stream:
with ``dropout=1.0`` every dropout zeroes its input, which gives one deterministic
output; with ``dropout=0.0`` train mode equals eval mode.

What is accepted beyond the reference's own choices:

* the positional encoding's buffers: any name and layout, or none in the state dict (a
  non-persistent buffer, or a table computed on the fly); the checks leave them as the
  learner's module has them and only the outputs show whether the positions are right;
* masks built in any way that gives the same values (lesson 06's functions, inline
  comparisons, masks expanded to full size);
* any exception type for ``tie_embeddings=True`` with two vocabulary sizes;
* any floating dtype for the outputs (a note when it is not float32);
* any default ``max_len`` at least as long as the inputs (the Annotated Transformer's 5000):
  the defaults are checked by what the model computes (built with its defaults, it must
  compute what the contract's defaults written out compute), not by reading the signature.

``greedy_decode`` gets a reference ``Transformer`` made with
:func:`~transformer_course.checking.objects.course_object` (so that the sandboxed
grader can rebuild it), with fixed weights chosen so that rows finish at different
steps, all rows finish before ``max_len`` (early stop), or some never do; the
next-token margins are large enough that any correct way of decoding (re-encoding at
every step, one row at a time, softmax before the argmax) gives the same tokens
(``tests/test_09_transformer.py`` proves both).

One module per exercise or small group (``Transformer``'s in ``model``, with its cases,
oracles' values and mistakes in ``model_cases`` and the building and loading of the
learner's module in ``model_build``; ``count`` for ``count_parameters``, ``greedy`` for
``greedy_decode``; the questions in ``quizzes``), the machinery they share in ``common``,
and the registry's ``LESSON`` and ``EXERCISES`` in ``exercises``. This face only
re-exports: the check functions, and the cases, models and expected values they run
(public, so that the lesson's tests can prove what the checks rely on).
"""

from .count import (
    COUNT_MISTAKES,
    HIDDEN_COUNT,
    VISIBLE_COUNT,
    check_count_parameters,
    mistaken_counts,
)
from .exercises import EXERCISES as EXERCISES
from .exercises import LESSON as LESSON
from .greedy import (
    GREEDY_MISTAKES,
    HIDDEN_GREEDY,
    VISIBLE_GREEDY,
    check_greedy_decode,
    greedy_model,
    off_by_one_mistakes,
)
from .model import check_Transformer
from .model_cases import (
    HIDDEN_TRANSFORMER,
    VISIBLE_TRANSFORMER,
    case_oracles,
    decode_mistakes,
    encode_mistakes,
    reference_model,
)
from .quizzes import (
    QUIZ_AUTOREGRESSION,
    QUIZ_TIE_EMBEDDINGS,
    check_quiz_autoregression,
    check_quiz_tie_embeddings,
)

__all__ = [
    "COUNT_MISTAKES",
    "GREEDY_MISTAKES",
    "HIDDEN_COUNT",
    "HIDDEN_GREEDY",
    "HIDDEN_TRANSFORMER",
    "QUIZ_AUTOREGRESSION",
    "QUIZ_TIE_EMBEDDINGS",
    "VISIBLE_COUNT",
    "VISIBLE_GREEDY",
    "VISIBLE_TRANSFORMER",
    "case_oracles",
    "check_Transformer",
    "check_count_parameters",
    "check_greedy_decode",
    "check_quiz_autoregression",
    "check_quiz_tie_embeddings",
    "decode_mistakes",
    "encode_mistakes",
    "greedy_model",
    "mistaken_counts",
    "off_by_one_mistakes",
    "reference_model",
]
