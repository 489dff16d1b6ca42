"""The course's autograder: nbgrader's formats and gradebook, learner code in a sandbox.

``course-grader <lesson>`` (or ``python -m transformer_course.grader``) grades a
class's submissions. The pieces:

* :mod:`.cli`: the command (parses, prints); :mod:`.classrun`: one run over a class, as
  declared steps (collect -> register -> resume -> grade -> export) and the outputs each
  result goes to (gradebook, autograded notebook, resume state, feedback page);
  :mod:`.collect`: submissions from nbgrader's folder layout or an LMS zip; :mod:`.distribute`: local worker processes or a Dask cluster;
  :mod:`.gradebook`: nbgrader's gradebook (written by the coordinating process only);
  :mod:`.feedback`: per-student HTML.
* :mod:`.runner`: grades one submission; :mod:`.plan`: which cells run and where each
  exercise is checked; :mod:`.static`: what the learner's code mentions (each forbidden
  API's family comes from the course's ``api_families``, content the grader reads); :mod:`.proof`: which forbidden calls its own answer cell is
  proven to make; :mod:`.policies`: what the evidence does to scores and flags;
  :mod:`.lesson`: what the grader knows about a lesson, as plain data.
* :mod:`.session`, :mod:`.proxy`: the grader's side of the sandbox, and stand-ins for
  the learner's functions, classes and modules; :mod:`.codec`: the only format that
  crosses the boundary (plain data, never pickle).
* :mod:`.sandbox`: bubblewrap (or a degraded fallback) and the pool of pre-started
  zygotes; :mod:`.inside`: what runs inside the sandbox (the untrusted side: the zygote,
  the import guard, the request server and its jobs: the lesson's reference, tripwires,
  handles and course objects, pinned settings), which imports nothing of this package but
  :mod:`.codec`.
* :mod:`.seccomp_filter`, :mod:`.kernel_limits`: the kernel's limits on a sandbox (a
  seccomp filter, a cgroup); :mod:`.deadline`: the grader's own clock on a check;
  :mod:`.errors`: the grader's exceptions.

This package's ``__init__`` imports nothing: the sandbox imports :mod:`.inside` and
:mod:`.codec` from it.
"""
