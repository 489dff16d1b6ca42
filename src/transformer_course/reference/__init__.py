"""Reference implementations, one module per lesson.

These are the trusted answers the checks compare against, and the building
blocks later lessons import, so that a bug in a learner's lesson-04 attention
cannot poison lesson 05. Each is verified against an independent oracle
(PyTorch's own modules, the paper's formulas, published worked examples) in
``tests/``.
"""
