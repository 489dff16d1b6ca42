"""The one test harness of the lesson tests.

A lesson's test file (``tests/test_NN_topic.py``) lists

* ``MISTAKES``: classic wrong implementations, each with the message (a regex) its
  check must fail with, in the visible *and* the hidden run;
* ``CORRECT``: different but correct implementations (other formulations, the way
  well-known tutorials and textbooks write it) that both runs must accept;

and turns them into tests with one line::

    test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)

What every exercise gets anyway (stub, reference, random state, determinism,
inputs changed in place) is in ``tests/test_exercises.py``, driven by the registry.
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pytest

from transformer_course.checking import CheckFailure


@dataclass(frozen=True)
class Mistake:
    """``fn`` is wrong; ``check`` must reject it with a message matching ``message``.

    ``hidden_only`` is for mistakes that only the hidden run can see by design
    (hard-coded answers for the visible inputs); a real mistake is caught visibly too.
    """

    check: Callable
    fn: Callable
    message: str
    hidden_only: bool = False


@dataclass(frozen=True)
class Correct:
    """``fn`` is right; ``check`` must accept it, visible and hidden. ``note``: a regex
    that the visible run's notes must match (an accepted choice the learner is told
    about, such as a float32 result where the reference gives float64)."""

    check: Callable
    fn: Callable
    note: str | None = None


def assert_rejected(check: Callable, fn: Callable, message: str, *, hidden_only: bool = False):
    """Both runs (or only the hidden one) fail with a CheckFailure matching ``message``."""
    runs = (True,) if hidden_only else (False, True)
    for hidden in runs:
        with pytest.raises(CheckFailure, match=message):
            check(fn, hidden=hidden)


def assert_accepted(check: Callable, fn: Callable, note: str | None = None) -> None:
    """Both runs pass; with ``note``, the visible run prints a note matching it."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        check(fn)
    check(fn, hidden=True)
    if note is not None:
        notes = [line for line in out.getvalue().splitlines() if line.startswith("note")]
        assert any(re.search(note, line) for line in notes), (note, notes)


def _name(thing: Callable) -> str:
    return getattr(thing, "__name__", type(thing).__name__)


def _case_id(check: Callable, fn: Callable) -> str:
    return f"{_name(check).removeprefix('check_')}-{_name(fn)}"


def _as_mistake(case) -> Mistake:
    return case if isinstance(case, Mistake) else Mistake(*case)


def _as_correct(case) -> Correct:
    return case if isinstance(case, Correct) else Correct(*case)


def lesson_tests(mistakes: Sequence, correct: Sequence) -> tuple[Callable, Callable]:
    """Two parametrized tests: every mistake is rejected with its message, every
    correct variant is accepted. Entries may be ``Mistake``/``Correct`` or tuples."""
    mistake_cases = [_as_mistake(case) for case in mistakes]
    correct_cases = [_as_correct(case) for case in correct]

    @pytest.mark.parametrize(
        "case", mistake_cases, ids=[_case_id(m.check, m.fn) for m in mistake_cases]
    )
    def test_classic_mistake(case: Mistake) -> None:
        assert_rejected(case.check, case.fn, case.message, hidden_only=case.hidden_only)

    @pytest.mark.parametrize(
        "case", correct_cases, ids=[_case_id(c.check, c.fn) for c in correct_cases]
    )
    def test_correct_variant(case: Correct) -> None:
        assert_accepted(case.check, case.fn, case.note)

    return test_classic_mistake, test_correct_variant
