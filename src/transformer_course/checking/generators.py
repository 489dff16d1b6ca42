"""A seeded ``torch.Generator`` that a check can hand to learner code as a course object.

An exercise with a ``generator`` argument (lesson 11's ``next_token_batches`` and
``sample``) is checked by calling it twice with generators seeded alike: the results
must be equal, which proves that the learner's code draws from the generator it was
given and not from the global stream. A plain ``torch.Generator`` cannot carry the
recipe that lets the sandboxed grader rebuild it (it has no ``__dict__``); this
subclass can, and it lives here, importable in the sandbox, so that the recipe is a
dotted name.
"""

from __future__ import annotations

import torch

__all__ = ["SeededGenerator", "seeded_generator"]


class SeededGenerator(torch.Generator):
    """``torch.Generator("cpu").manual_seed(seed)``, as an object that accepts attributes."""

    def __new__(cls, seed: int):
        generator = super().__new__(cls, "cpu")
        generator.manual_seed(seed)
        return generator

    def __init__(self, seed: int):  # the seed is used in __new__
        pass


def seeded_generator(seed: int) -> SeededGenerator:
    """A course object: a CPU generator seeded with ``seed``."""
    from transformer_course.checking.objects import course_object

    return course_object(SeededGenerator, seed)
