"""The check toolkit behind every test cell.

A check function (``check_tokenize(tokenize)``) opens a :class:`Checker`, calls
the learner's code with plain values, compares what comes back with the
reference, and either prints a one-line success message or raises
:class:`CheckFailure` with a message written like a teaching assistant would:
what was wrong, on which input, and the likely cause.

Rules every check follows (see CONTRIBUTING.md):

* The learner's code is only *called* (functions) or *constructed, loaded with
  a state dict, switched between train and eval, and called* (modules), always
  through :meth:`Checker.call`. Nothing else about it is inspected. This is
  what lets the grader run learner code in a separate, sandboxed process. A
  gradient check (``.backward()`` through a result) follows the result's graph
  only where it leads back to the check's own tensors (:mod:`.graph`): in the
  grader results come back as values, and gradients are checked in the notebook.
* Inputs come from a generator seeded inside the check
  (:func:`numpy_rng`, :func:`torch_generator`), never from the global random
  stream; ``with Checker(...) as c:`` restores the global streams afterwards,
  whatever the learner's code drew from them.
* Type, shape and dtype are checked before values; values are compared with a
  tolerance that fits their dtype (:func:`tolerance`).
* When a value is wrong, known mistakes are tried first ("did you take the
  softmax over the wrong axis?") before a generic "largest difference" message.

This ``__init__`` only re-exports; the logic lives in named modules:

* :mod:`.checker` (:class:`Checker`), :mod:`.failure` (:class:`CheckFailure`, the
  learner's frames of a traceback), :mod:`.formatting` (:func:`short`, the one bounded
  formatter for learner values; dtype names), :mod:`.hints` (advice for known errors),
  :mod:`.layouts` and :mod:`.relations` (a wrong value that is the reference's
  re-arranged, negated, scaled or shifted; the first wrong entry),
  :mod:`.table_columns` (which reference function each column of a table is: the right
  functions in the wrong places, or pieces of a wider table cut the wrong way),
  :mod:`.randomness` (private generators; the global streams saved and restored),
  :mod:`.snapshots` (arguments changed in place), :mod:`.tolerances`;
* for the check modules: :mod:`.inputs` (deterministic tensors and token ids),
  :mod:`.attention_weights` (the shared diagnosis of attention weights),
  :mod:`.modules` (building a learner's ``nn.Module`` from a state dict),
  :mod:`.localise` (the first wrong step inside a composite module), :mod:`.hooks`
  (what a module's submodules receive during one call);
* the mistake families that carry over from one exercise to the next (each names a cause
  only when every input the check ran agrees with it): :mod:`.batch_rows` (a function
  right on every sequence alone, wrong on the batch), :mod:`.size_one_axes` (axes of size
  1 lost or added; axes in another order), :mod:`.rearranged` (a tensor passed on with its
  axes rearranged), :mod:`.reshape_moves` (a reshape where an axis move belongs),
  :mod:`.reshape_sizes` and :mod:`.size_sources` (a size taken from the wrong variable),
  :mod:`.extra_steps` (the right output with a step too many: a residual, a norm),
  :mod:`.unapplied` (a step whose result never reaches the output),
  :mod:`.dropout_placement`, :mod:`.returned_order` (the right things returned in another
  order), :mod:`.arguments` (parameters declared in another order), :mod:`.defaults` (a
  keyword default that is not the contract's), :mod:`.counters` (a counter read as an
  update rule), :mod:`.call_replay` (a stateful loop's calls replayed: the first call
  whose state or position departs), :mod:`.stale` (state kept between calls),
  :mod:`.empty_inputs`,
  :mod:`.unregistered` (dropouts not registered: a plain list, or built in forward),
  :mod:`.keep_probability` (a dropout rate read as a keep probability),
  :mod:`.rounding` (whole numbers where real numbers belong), :mod:`.uninitialised`
  (numpy's ``where=`` without ``out=``), :mod:`.transposes` (which transpose reproduces an
  error), :mod:`.temperature` (a softmax over its scores times one constant),
  :mod:`.tie_breaking` (known mistakes that agree on every input run, told apart by a few
  extra calls where they disagree), :mod:`.mode_paths` (a mistake on one path only: a
  property asked in eval and in train mode, the branch the split points to);
* :mod:`.deviations` (the diagnosis that needs no one to have imagined the mistake: the
  single edits of the reference, each with its sentence, and the one that reproduces every
  result the learner's code gave the check, named when it is the only one);
* :mod:`.oracles` (float64 oracles of the building blocks, by concept, with knobs for
  the classic mistakes), :mod:`.layers` and :mod:`.layer_mistakes` (the layer checks'
  helpers and mistake tables, lessons 07-11), :mod:`.objects` (course objects the grader
  can rebuild),
  :mod:`.quiz` (concept questions).
"""

from transformer_course.checking.checker import Checker
from transformer_course.checking.failure import CheckFailure
from transformer_course.checking.formatting import dtype_name, short
from transformer_course.checking.hints import GENERIC_HINTS
from transformer_course.checking.randomness import numpy_rng, torch_generator
from transformer_course.checking.tolerances import tolerance

__all__ = [
    "GENERIC_HINTS",
    "CheckFailure",
    "Checker",
    "dtype_name",
    "numpy_rng",
    "short",
    "tolerance",
    "torch_generator",
]
