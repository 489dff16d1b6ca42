"""Build a Transformer: the course package.

* ``transformer_course.reference``: the trusted reference implementation of
  every exercise (later lessons import these, never the learner's own code).
* ``transformer_course.checks``: the check functions the notebook test cells
  call (``check_tokenize(tokenize)``), shared by the notebooks, pytest and the
  grader.
* ``transformer_course.checking``: the framework the checks are written with.
* ``transformer_course.plotting``, ``transformer_course.data``: figures and the
  small data sets the lessons use (generated or shipped, never downloaded).
* ``transformer_course.selfgrade``: grade your own notebook with the hidden
  tests (``course-selfgrade notebooks/01_tokenization/01_tokenization.ipynb``).
"""

__version__ = "0.1.0"
