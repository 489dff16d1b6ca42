"""The exercise contract, for every registered exercise (transformer_course.registry).

Per exercise: the stub says "not implemented yet"; the reference passes the visible
and the hidden check; the check leaves the global random streams alone and gives
the same verdict twice, whatever the learner's code draws from them; a learner
function that changes its inputs in place is told so; correct values returned in
a non-contiguous (transposed) layout are accepted. Per lesson: the master's graded
cells, test cells and exercise headers agree with the registry.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import random
import re

import jupytext
import numpy as np
import pytest
import torch
from common import assert_accepted, assert_rejected, quiz_answer
from torch import nn

from transformer_course import registry
from transformer_course.build import REPO, lessons
from transformer_course.checking import CheckFailure

EXERCISES = registry.all_exercises()
IDS = [f"{ex.lesson[:2]}-{ex.name}" for ex in EXERCISES]
CODE = [ex for ex in EXERCISES if ex.kind != "quiz"]
CODE_IDS = [f"{ex.lesson[:2]}-{ex.name}" for ex in CODE]
QUIZZES = [ex for ex in EXERCISES if ex.kind == "quiz"]
QUIZ_IDS = [f"{ex.lesson[:2]}-{ex.name}" for ex in QUIZZES]
LETTER_QUIZZES = [ex for ex in QUIZZES if ex.check.quiz.choices]
LETTER_QUIZ_IDS = [f"{ex.lesson[:2]}-{ex.name}" for ex in LETTER_QUIZZES]


# ------------------------------------------------------------------ learner variants
def _function_variant(ex, before=None, after=None):
    """The reference function, with something done before the call and to its result."""
    reference = ex.reference

    def variant(*args, **kwargs):
        if before:
            before(args, kwargs)
        result = reference(*args, **kwargs)
        return after(result, args, kwargs) if after else result

    variant.__name__ = variant.__qualname__ = ex.name
    variant.__signature__ = inspect.signature(reference)
    return variant


def _module_variant(ex, before=None, after=None):
    """A subclass of the reference module whose forward does the same extra steps."""
    reference = ex.reference

    def forward(self, *args, **kwargs):
        if before:
            before(args, kwargs)
        result = reference.forward(self, *args, **kwargs)
        return after(result, args, kwargs) if after else result

    forward.__signature__ = inspect.signature(reference.forward)
    return type(ex.name, (reference,), {"forward": forward})


def variant(ex, before=None, after=None):
    make = _module_variant if ex.kind == "module" else _function_variant
    return make(ex, before, after)


def stub(ex):
    if ex.kind == "module":

        class Stub(nn.Module):
            def __init__(self, *args, **kwargs):
                super().__init__()
                raise NotImplementedError()

        Stub.__name__ = ex.name
        return Stub

    def stub_function(*args, **kwargs):
        raise NotImplementedError()

    stub_function.__name__ = ex.name
    return stub_function


def _draw_from_global_streams(args, kwargs) -> None:
    """What careless learner code does: consume the global random streams."""
    random.random()
    np.random.rand(3)  # noqa: NPY002 (the global stream is the point)
    torch.rand(3)


def _scribble(value) -> bool:
    """Change ``value`` in place, if it can be changed; say whether it was."""
    if isinstance(value, np.ndarray) and value.size and value.flags.writeable:
        if value.dtype == bool:
            np.logical_not(value, out=value)
        else:
            value += 1
        return True
    if isinstance(value, torch.Tensor) and value.numel():
        with torch.no_grad():
            if value.dtype == torch.bool:
                value.logical_not_()
            else:
                value.add_(1)
        return True
    if isinstance(value, list):
        value.append(value[-1] if value else 0)
        return True
    if isinstance(value, dict):
        value["<scribbled>"] = len(value)
        return True
    if isinstance(value, tuple):
        return any([_scribble(item) for item in value])
    return False


def _non_contiguous(value):
    """The same values in a transposed memory layout (a view of a copy)."""
    if isinstance(value, torch.Tensor) and value.dim() >= 2:
        return value.transpose(-1, -2).contiguous().transpose(-1, -2)
    if isinstance(value, np.ndarray) and value.ndim >= 2:
        return np.asfortranarray(value)
    if isinstance(value, tuple):
        return tuple(_non_contiguous(item) for item in value)
    return value


def _global_state():
    return random.getstate(), np.random.get_state()[1].copy(), torch.get_rng_state()  # noqa: NPY002


def _same_state(a, b) -> bool:
    return a[0] == b[0] and np.array_equal(a[1], b[1]) and torch.equal(a[2], b[2])


def _verdict(check, fn, hidden: bool) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            check(fn, hidden=hidden)
        except CheckFailure as failure:
            return f"FAIL {failure}"
    return f"PASS {out.getvalue()}"


# ------------------------------------------------------------------------- the tests
def test_every_lesson_is_registered():
    assert registry.lessons() == lessons()


@pytest.mark.parametrize("ex", EXERCISES, ids=IDS)
def test_stub_says_not_implemented(ex):
    assert_rejected(ex.check, stub(ex), "not implemented yet")


@pytest.mark.parametrize("ex", EXERCISES, ids=IDS)
def test_reference_passes_without_notes(ex):
    """The reference passes both runs, and gets no note: notes are for accepted choices
    that differ from the reference."""
    for hidden in (False, True):
        verdict = _verdict(ex.check, ex.reference, hidden)
        assert verdict.startswith("PASS"), verdict
        notes = [line for line in verdict.splitlines() if line.startswith("note")]
        assert not notes, notes


@pytest.mark.parametrize("ex", QUIZZES, ids=QUIZ_IDS)
def test_every_choice_of_a_concept_question_is_explained(ex):
    """A wrong letter is answered with why it is wrong, and the right one with why it is
    right; a numeric question explains its answer (and may explain common wrong numbers)."""
    quiz = ex.check.quiz
    assert quiz.name == ex.name
    if quiz.choices:
        assert quiz.answer in quiz.choices
        assert set(quiz.why) == set(quiz.choices), "every choice needs its explanation"
        assert len(quiz.choices) >= 3
    else:
        assert quiz.answer in quiz.why
    assert all(text.strip() for text in quiz.why.values())


def _explained(why: str) -> str:
    """A regex for the first words of an explanation (messages may wrap around them)."""
    return r"\s+".join(re.escape(word) for word in why.split()[:8])


@pytest.mark.parametrize("ex", QUIZZES, ids=QUIZ_IDS)
def test_a_concept_question_accepts_its_answer_in_every_usual_form(ex, capsys):
    """The right letter in any usual spelling ("b", "B", "(b)", "b)", " b. "), or the
    right number as int, float, numpy or torch scalar or text, passes both runs, and the
    visible run says why it is right."""
    quiz = ex.check.quiz
    if quiz.choices:
        forms = [quiz.answer, quiz.answer.upper(), f"({quiz.answer})", f"{quiz.answer})"]
        forms += [f" {quiz.answer}. ", f"{quiz.answer}) {quiz.choices[quiz.answer]}"]
    else:
        number = float(quiz.answer)
        forms = [number, np.float64(number), torch.tensor(number), str(quiz.answer)]
        forms += [int(number)] if number.is_integer() else []
    for form in forms:
        assert_accepted(ex.check, quiz_answer(form))
    capsys.readouterr()
    ex.check(quiz_answer(quiz.answer))
    assert re.search(_explained(quiz.why[quiz.answer]), capsys.readouterr().out)


@pytest.mark.parametrize("ex", QUIZZES, ids=QUIZ_IDS)
def test_a_wrong_answer_to_a_concept_question_is_told_why(ex):
    """Every wrong letter (or a wrong number the question explains) fails, visible and
    hidden, with its own explanation; any other wrong number fails too."""
    quiz = ex.check.quiz
    wrong = [value for value in (quiz.choices or quiz.why) if value != quiz.answer]
    for value in wrong:
        shown = f"\\({value}\\)" if quiz.choices else re.escape(f"{float(value):g}")
        message = shown + r".*is not right\.\s+" + _explained(quiz.why[value])
        assert_rejected(ex.check, quiz_answer(value), message)
    if not quiz.choices:
        assert_rejected(ex.check, quiz_answer(float(quiz.answer) * 3 + 7), "is not right")


@pytest.mark.parametrize("ex", QUIZZES, ids=QUIZ_IDS)
def test_an_answer_of_the_wrong_form_is_told_what_to_return(ex):
    quiz = ex.check.quiz
    expected = (
        r"(return one of|return the string itself|Return your letter, one of|answered with a "
        r"letter)"
        if quiz.choices
        else "return a number"
    )
    unused = next(letter for letter in "efghz" if letter not in quiz.choices)
    for value in (unused, "", None, 3 if quiz.choices else "eight", [quiz.answer]):
        assert_rejected(ex.check, quiz_answer(value), expected)


@pytest.mark.parametrize("ex", LETTER_QUIZZES, ids=LETTER_QUIZ_IDS)
def test_an_answer_hedged_between_two_letters_is_refused(ex):
    """ "b or c" (the right letter first) once read as "b": a hedge is no answer."""
    quiz = ex.check.quiz
    other = next(letter for letter in quiz.choices if letter != quiz.answer)
    for form in (
        f"{quiz.answer} or {other}",
        f"({quiz.answer})/({other})",
        f"{quiz.answer}, {other}",
    ):
        assert_rejected(ex.check, quiz_answer(form), r"two letters.*one letter")


@pytest.mark.parametrize("ex", LETTER_QUIZZES, ids=LETTER_QUIZ_IDS)
def test_a_letter_written_without_quotes_is_told_to_use_them(ex):
    """`return b` raises NameError in the learner's function: the quotes are named."""
    quiz = ex.check.quiz
    namespace: dict = {}
    exec(f"def {quiz.name}():\n    return {quiz.answer}\n", namespace)
    assert_rejected(ex.check, namespace[quiz.name], rf"written without quotes.*'{quiz.answer}'")


@pytest.mark.parametrize("ex", CODE, ids=CODE_IDS)
def test_check_leaves_the_global_random_streams_alone(ex):
    random.seed(5)
    np.random.seed(5)  # noqa: NPY002
    torch.manual_seed(5)
    before = _global_state()
    greedy = variant(ex, before=_draw_from_global_streams)
    for fn in (ex.reference, greedy):
        assert_accepted(ex.check, fn)
    assert_rejected(ex.check, stub(ex), "not implemented yet")
    assert _same_state(before, _global_state()), "the check moved a global random stream"


@pytest.mark.parametrize("ex", CODE, ids=CODE_IDS)
def test_check_is_deterministic(ex):
    """Same verdict and same words twice, however much of the global streams the
    learner's code consumes in between."""
    greedy = variant(ex, before=_draw_from_global_streams)
    for hidden in (False, True):
        first = _verdict(ex.check, greedy, hidden)
        torch.rand(17)
        np.random.rand(5)  # noqa: NPY002
        assert _verdict(ex.check, greedy, hidden) == first
        assert first.startswith("PASS"), first


@pytest.mark.parametrize("ex", CODE, ids=CODE_IDS)
def test_changing_an_input_in_place_is_reported(ex):
    scribbled = []

    def scribble_inputs(result, args, kwargs):
        scribbled.append(any([_scribble(value) for value in (*args, *kwargs.values())]))
        return result

    mutating = variant(ex, after=scribble_inputs)
    for hidden in (False, True):
        scribbled.clear()
        try:
            ex.check(mutating, hidden=hidden)
        except CheckFailure as failure:
            assert any(scribbled), f"rejected although no input was changed: {failure}"
            assert re.search(r"changed its argument .* in place", str(failure)), str(failure)
        else:
            assert not any(scribbled), "an input was changed in place, and the check passed"


@pytest.mark.parametrize("ex", CODE, ids=CODE_IDS)
def test_correct_values_in_a_non_contiguous_layout_pass(ex):
    transposed = variant(ex, after=lambda result, args, kwargs: _non_contiguous(result))
    assert_accepted(ex.check, transposed)


# ------------------------------------------------------------ registry vs the masters
def _master(lesson):
    return jupytext.read(REPO / "solutions" / lesson / f"{lesson}.py", fmt="py:percent")


def _graded_cells(lesson):
    """grade_id -> (kind, points, source) of every answer and test cell of a master."""
    cells = {}
    for cell in _master(lesson).cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade"):
            cells[meta["grade_id"]] = ("test", meta.get("points", 1), cell.source)
        elif meta.get("solution"):
            cells[meta["grade_id"]] = ("answer", None, cell.source)
    return cells


@pytest.mark.parametrize("lesson", lessons())
def test_masters_agree_with_the_registry(lesson):
    cells = _graded_cells(lesson)
    expected = {}
    for ex in registry.exercises(lesson):
        expected[ex.grade_id] = ("answer", None)
        expected[ex.test_grade_id] = ("test", ex.points)
    assert {k: v[:2] for k, v in cells.items()} == expected
    order = [grade_id for grade_id in cells]
    assert order == [
        g for ex in registry.exercises(lesson) for g in (ex.grade_id, ex.test_grade_id)
    ]


@pytest.mark.parametrize("lesson", lessons())
def test_test_cells_call_their_check(lesson):
    cells = _graded_cells(lesson)
    for ex in registry.exercises(lesson):
        source = cells[ex.test_grade_id][2].strip()
        assert source == (
            f"check_{ex.name}({ex.name})\n### BEGIN HIDDEN TESTS\n"
            f"check_{ex.name}({ex.name}, hidden=True)\n### END HIDDEN TESTS"
        ), f"{lesson}: test cell {ex.test_grade_id} must call check_{ex.name} only"
        assert ex.check.__name__ == f"check_{ex.name}"


@pytest.mark.parametrize("lesson", lessons())
def test_exercise_headers_show_points_time_and_level(lesson):
    """Every exercise is introduced by a header with its name, then the registry's points,
    time and level, in the same form in every lesson."""
    cells = _master(lesson).cells
    for ex in registry.exercises(lesson):
        index = next(
            i
            for i, cell in enumerate(cells)
            if cell.metadata.get("nbgrader", {}).get("grade_id") == ex.grade_id
        )
        header = next(
            (
                cell.source
                for cell in reversed(cells[:index])
                if cell.cell_type == "markdown" and "### " in cell.source and "`" in cell.source
            ),
            "",
        )
        heading = re.search(r"^### (Exercise \d+|Question \d+)\b.*$", header, re.M)
        assert (heading and f"`{ex.name}`" in heading.group(0)) or (
            ex.kind == "quiz" and heading
        ), f"{lesson}: no '### Exercise N: `{ex.name}`' header before its answer cell"
        assert f"*{ex.header}*" in header, (
            f"{lesson}: the header of {ex.name} should show *{ex.header}*"
        )


_NUMBER_WORDS = "zero one two three four five six seven eight nine ten eleven twelve".split()
_FRACTIONS = {"": 0, "¼": 15, "½": 30, "¾": 45}


@pytest.mark.parametrize("lesson", lessons())
def test_lesson_time_states_the_registrys_minutes(lesson):
    """The lesson's opening time estimate gives the minutes its exercises add up to in
    the registry (the exercise headers' own minutes, summed), in one form in every
    lesson, "N minutes for the K exercises and Q questions", and the whole lesson is
    estimated at no less than that."""
    exercises = registry.exercises(lesson)
    questions = sum(ex.kind == "quiz" for ex in exercises)
    code = len(exercises) - questions

    def count(n, noun):
        return f"{_NUMBER_WORDS[n]} {noun}{'' if n == 1 else 's'}"

    minutes = sum(ex.minutes for ex in exercises)
    phrase = f"{minutes} minutes for the {count(code, 'exercise')}" + (
        f" and {count(questions, 'question')}" if questions else ""
    )
    intro = next(cell.source for cell in _master(lesson).cells if cell.cell_type == "markdown")
    intro = " ".join(intro.split())  # line breaks folded
    assert phrase in intro, f"{lesson}: the opening time estimate should say '{phrase}'"
    total = re.search(
        r"about (\d+)([¼½¾]?) hours?(?: (\d+) minutes)?|about (\d+) minutes", intro, re.I
    )
    assert total, f"{lesson}: the opening cell gives no 'about ... hours/minutes' for the lesson"
    hours, fraction, extra, only_minutes = total.groups()
    stated = (
        int(only_minutes)
        if only_minutes
        else 60 * int(hours) + _FRACTIONS[fraction] + int(extra or 0)
    )
    assert stated >= minutes, (
        f"{lesson}: the lesson is estimated at {stated} minutes, less than its exercises' {minutes}"
    )


MAINTAINER_NOTES = ("fmt: skip", "fmt: off", "noqa", "type: ignore", "pragma: no cover")


@pytest.mark.parametrize("lesson", lessons())
def test_no_maintainer_notes_in_the_student_notebook(lesson):
    """Notes for the tools that keep the repository tidy are noise in a learner's notebook."""
    student = REPO / "notebooks" / lesson / f"{lesson}.ipynb"
    for cell in jupytext.read(student).cells:
        for note in MAINTAINER_NOTES:
            assert note not in cell.source, f"{lesson}: {note!r} in\n{cell.source}"
