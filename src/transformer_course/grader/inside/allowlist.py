"""The modules the sandbox imports by name for a course object's recipe (one list, used on
both sides of the sandbox: the grader ships by source whatever is not on it)."""

from __future__ import annotations

__all__ = ["IMPORTABLE", "importable"]

IMPORTABLE = (
    "torch",
    "numpy",
    "math",
    "functools",
    "collections",
    "itertools",
    "operator",
    "transformer_course.reference",
    "transformer_course.checking",
    "transformer_course.data",
    "transformer_course.glossary",
)


def importable(module: str) -> bool:
    """Can the sandbox import this module by name? (Not the checks: they are not there.)"""
    return any(module == name or module.startswith(name + ".") for name in IMPORTABLE)
