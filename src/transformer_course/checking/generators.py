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

__all__ = ["SeededGenerator", "generator_ignored", "seeded_generator"]


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


def generator_ignored(call: str, what: str, first, second, seeds: tuple[int, int]) -> str:
    """The message for a learner's draws that did not change when the generator given was
    seeded otherwise (``first`` and ``second``, tensors or tuples of tensors, are equal),
    "" when they differ. Two ways to ignore the generator draw alike, so both are named: a
    generator of the learner's own with a fixed seed, and the given one re-seeded inside
    the function (the global stream is the other way, told apart by calls seeded alike
    that differ). The very tensors returned twice (one memory) are a result kept between
    calls, named as such."""
    import torch

    def same(a, b) -> bool:
        if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
            return a.shape == b.shape and bool(torch.equal(a, b))
        if isinstance(a, tuple | list) and isinstance(b, tuple | list) and len(a) == len(b):
            return all(same(x, y) for x, y in zip(a, b, strict=True))
        return False

    def shared(a, b) -> bool:
        if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
            return (
                a.numel() > 0 and a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
            )
        if isinstance(a, tuple | list) and isinstance(b, tuple | list) and len(a) == len(b):
            return len(a) > 0 and all(shared(x, y) for x, y in zip(a, b, strict=True))
        return False

    if not same(first, second):
        return ""
    try:
        kept = shared(first, second)
    except Exception:  # a value that crossed the grader's boundary: no storage to compare
        kept = False
    if kept:
        return (
            f"{call} gave the same {what} with generators seeded {seeds[0]} and {seeds[1]}, "
            "and the second call returned the very tensors of the first (the same memory): "
            "your function keeps its result from one call to the next (a cache or a memo "
            "in a global, a default argument or an attribute, keyed on the sizes) and "
            "returns it again instead of drawing. Draw anew at every call, from the "
            "generator given (..., generator=generator)."
        )
    return (
        f"{call} gave the same {what} with generators seeded {seeds[0]} and {seeds[1]}: your "
        "draws do not depend on the generator you are given. Either they come from a "
        "generator of your own with a fixed seed (torch.Generator().manual_seed(0)), or the "
        "given one is re-seeded inside the function (generator.manual_seed(...)): the two "
        "draw alike. Draw from the generator given, as it is (..., generator=generator)."
    )
