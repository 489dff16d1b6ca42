"""A new lesson in one command: the master, the check module and the test file, from the
course's template (CONTRIBUTING.md, "A new lesson in one page"), built and ready to edit.

    python -m transformer_course.scaffold 13_mixture_of_experts "Mixture of experts"

writes ``solutions/13_mixture_of_experts/13_mixture_of_experts.py`` (the master: one
function exercise, ``row_sums``, and one concept question, to be replaced by the lesson's
own), ``src/transformer_course/checks/mixture_of_experts.py`` (their checks and the
registry entry) and ``tests/test_13_mixture_of_experts.py`` (a mistake, correct variants,
an oracle), then builds the lesson (``make notebooks``: instructor and student notebooks,
the reference module, and the course maps of README and lesson 00). Nothing else needs
touching: the generic tests, the grader and the course maps read the registry.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from transformer_course.exercise import lesson_topic
from transformer_course.paths import REPO

__all__ = ["lesson_files", "scaffold"]

_NAME = re.compile(r"\d\d_[a-z][a-z0-9_]*")

MASTER = '''# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # {number} · {title}
#
# **Time:** about 15 minutes: 7 minutes for the one exercise and one question, the rest
# for reading. After this lesson you will be able to
#
# * say what the lesson teaches, in one line per skill (replace this list).
#
# The template's exercise, `row_sums`, stands in for the lesson's own: replace it, its
# check in `src/transformer_course/checks/{topic}.py` and its tests in
# `tests/test_{lesson}.py`, then run `make notebooks` and `make test`.

# %% nbgrader={{"locked": true, "grade_id": "setup"}}
import numpy as np

from transformer_course.checks.{topic} import check_quiz_{topic}_shape, check_row_sums

# %% [markdown]
# ### Exercise 1: `row_sums`
# *1 point · about 5 min · warm-up*
#
# Add up each row of `x`: the entries along its last axis.
#
# <details><summary>Hint 1</summary>numpy's reductions take an <code>axis</code>.</details>


# %% nbgrader={{"solution": true, "grade_id": "row_sums"}}
def row_sums(x: np.ndarray) -> np.ndarray:
    """The sum of each row of ``x`` (its last axis), in a floating-point dtype.

    x: (..., n) -> (...)
    """
    ### BEGIN SOLUTION
    return x.sum(axis=-1)
    ### END SOLUTION


# %% nbgrader={{"grade": true, "grade_id": "test_row_sums", "points": 1}}
check_row_sums(row_sums)
### BEGIN HIDDEN TESTS
check_row_sums(row_sums, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ### Question 1: the shape of the sums
# *1 point · about 2 min · warm-up*
#
# `x` has shape `(2, 3)`. What shape does `row_sums(x)` have? Make
# `quiz_{topic}_shape` return the letter.
#
# * (a) `(2, 3)`
# * (b) `(2,)`
# * (c) `(3,)`
# * (d) `()`


# %% nbgrader={{"solution": true, "grade_id": "quiz_{topic}_shape"}}
def quiz_{topic}_shape() -> str:
    """Your answer to Question 1: "a", "b", "c" or "d"."""
    ### BEGIN SOLUTION
    return "b"
    ### END SOLUTION


# %% nbgrader={{"grade": true, "grade_id": "test_quiz_{topic}_shape", "points": 1}}
check_quiz_{topic}_shape(quiz_{topic}_shape)
### BEGIN HIDDEN TESTS
check_quiz_{topic}_shape(quiz_{topic}_shape, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ## Further reading
#
# * The lesson's paper, section by section, and the best public explanation of it.
'''

CHECKS = '''"""Checks for lesson {number}: `row_sums` and the lesson's concept question (the
scaffold's template: replace them with the lesson's exercises)."""

from __future__ import annotations

import numpy as np

from transformer_course.checking import Checker, numpy_rng, tolerance
from transformer_course.checking.quiz import Quiz, quiz_check
from transformer_course.exercise import Exercise
from transformer_course.reference import {topic} as ref

__all__ = ["check_quiz_{topic}_shape", "check_row_sums"]

# small inputs, worked out by hand; the 3-D one tells the last axis from axis 1
_VISIBLE = (
    np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
    np.arange(12.0).reshape(2, 2, 3),
)

_ROW_MEANS = "It looks like you took each row's mean: row_sums adds the entries up."


def _hidden_inputs() -> list[np.ndarray]:
    rng = numpy_rng({seed})
    return [rng.normal(size=shape) * 3 + 1 for shape in [(4, 5), (2, 3, 6), (1, 7)]]


def check_row_sums(row_sums, *, hidden: bool = False) -> None:
    """Check ``row_sums(x)``: the sum of each row of x (its last axis)."""
    with Checker("row_sums", hidden=hidden) as c:
        c.require_callable(row_sums)
        for x in _hidden_inputs() if hidden else _VISIBLE:
            what = f"row_sums(x) for x of shape {{x.shape}}"
            got = c.call(row_sums, x.copy())
            c.expect_type(got, np.ndarray, what)
            c.expect_shape(got, x.shape[:-1], what, "One sum per row: the last axis goes away.")
            c.expect_floating(got, what, preferred=x.dtype)
            c.expect_close(
                got,
                ref.row_sums(x),
                what,
                **tolerance(got.dtype, x.dtype),
                mistakes={{_ROW_MEANS: x.mean(axis=-1)}},
            )


QUIZ_{upper}_SHAPE = Quiz(
    name="quiz_{topic}_shape",
    answer="b",
    choices={{"a": "(2, 3)", "b": "(2,)", "c": "(3,)", "d": "()"}},
    why={{
        "a": "That is x's own shape: a sum over the last axis removes that axis.",
        "b": "One sum per row: the 2 rows stay, the 3 entries of each are added up.",
        "c": "That is one sum per column, a sum over the first axis.",
        "d": "That is the sum of every entry, over all axes at once.",
    }},
)
check_quiz_{topic}_shape = quiz_check(QUIZ_{upper}_SHAPE)


# ---------------------------------------------------------------------------- registry
LESSON = "{lesson}"
EXERCISES = (
    Exercise("row_sums", check_row_sums, kind="function", points=1, minutes=5, level=1),
    Exercise(
        "quiz_{topic}_shape",
        check_quiz_{topic}_shape,
        kind="quiz",
        points=1,
        minutes=2,
        level=1,
    ),
)
'''

TESTS = '''"""Lesson {number}: the check of `row_sums` rejects a classic mistake with its message and
accepts correct variants; the reference agrees with an independent oracle (the scaffold's
template: replace them with the lesson's own)."""

from __future__ import annotations

import numpy as np
from common import Correct, Mistake, lesson_tests

from transformer_course.checks.{topic} import check_row_sums
from transformer_course.reference import {topic} as ref


# ---------------------------------------------------------------------------- mistakes
def row_means(x):
    return x.mean(axis=-1)


def row_sums_as_list(x):
    return x.sum(axis=-1).tolist()


MISTAKES = [
    Mistake(check_row_sums, row_means, "each row's mean"),
    Mistake(check_row_sums, row_sums_as_list, "should be a ndarray"),
]


# --------------------------------------------------------------------- correct variants
def row_sums_with_einsum(x):
    return np.einsum("...i->...", x)


def row_sums_with_a_vector_of_ones(x):
    return x @ np.ones(x.shape[-1])


CORRECT = [
    Correct(check_row_sums, row_sums_with_einsum),
    Correct(check_row_sums, row_sums_with_a_vector_of_ones),
]

test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


# ----------------------------------------------------------------------------- oracles
def test_the_reference_adds_up_each_row():
    x = np.arange(6.0).reshape(2, 3)
    assert ref.row_sums(x).tolist() == [0.0 + 1.0 + 2.0, 3.0 + 4.0 + 5.0]
'''


def lesson_files(lesson: str, repo: Path = REPO) -> dict[Path, str]:
    """{path: text} of the three files a new lesson starts from."""
    topic = lesson_topic(lesson)
    title = lesson_title_default(lesson)
    fields = {
        "lesson": lesson,
        "topic": topic,
        "number": lesson[:2],
        "title": title,
        "upper": topic.upper(),
        "seed": 1000 + 100 * int(lesson[:2]) + 1,
    }
    return {
        repo / "solutions" / lesson / f"{lesson}.py": MASTER.format(**fields),
        repo / "src" / "transformer_course" / "checks" / f"{topic}.py": CHECKS.format(**fields),
        repo / "tests" / f"test_{lesson}.py": TESTS.format(**fields),
    }


def lesson_title_default(lesson: str) -> str:
    return lesson_topic(lesson).replace("_", " ").capitalize()


def scaffold(lesson: str, title: str | None = None, repo: Path = REPO) -> list[Path]:
    """Write the lesson's three files and build it; the files written (generated ones
    included). Refuses a malformed name, a topic or number in use, or a file that exists."""
    if not _NAME.fullmatch(lesson):
        raise ValueError(f"{lesson!r}: a lesson is named NN_topic (two digits, lower case)")
    topic = lesson_topic(lesson)
    for existing in sorted((repo / "solutions").glob("*/*.py")):
        other = existing.parent.name
        if existing.stem == other and (other[:2] == lesson[:2] or lesson_topic(other) == topic):
            raise ValueError(f"{lesson}: lesson {other} has that number or topic already")
    files = lesson_files(lesson, repo)
    if title is not None:
        master = next(iter(files))
        files[master] = files[master].replace(
            f"# # {lesson[:2]} · {lesson_title_default(lesson)}", f"# # {lesson[:2]} · {title}", 1
        )
    for path in files:
        if path.exists():
            raise ValueError(f"{path} exists already")
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    import importlib

    from transformer_course import build, course_map

    build.build_lesson(lesson, repo, repo)  # the reference module, which the checks import
    importlib.invalidate_caches()
    written = [*files, build.reference_path(lesson, repo)]
    maps = course_map.update_tables(repo)
    if any(path.name == "00_welcome.py" for path in maps):
        build.build_lesson("00_welcome", repo, repo)
    return written + maps


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("lesson", help="NN_topic, e.g. 13_mixture_of_experts")
    parser.add_argument("title", nargs="?", help="the lesson's title (default: from the topic)")
    args = parser.parse_args(argv)
    try:
        written = scaffold(args.lesson, args.title)
    except ValueError as error:
        print(f"scaffold: {error}", file=sys.stderr)
        return 2
    for path in written:
        print(f"wrote {path.relative_to(REPO)}")
    print(f"built {args.lesson}: edit the three files above, then `make notebooks` and `make test`")
    return 0


if __name__ == "__main__":
    sys.exit(main())
