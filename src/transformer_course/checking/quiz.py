"""Concept questions: multiple choice, or a number, each wrong answer explained.

A lesson asks a question in markdown and the learner answers in an answer cell::

    def quiz_score_scale() -> str:
        \"\"\"Your answer to the question above: "a", "b", "c" or "d".\"\"\"
        return "b"

The test cell calls ``check_quiz_score_scale(quiz_score_scale)``, made by :func:`quiz_check` from a
:class:`Quiz`. A quiz is an exercise like any other (registered with
``kind="quiz"``): a function answer keeps the untouched notebook's "not
implemented yet" message and lets the grader fetch the answer as plain data.
"""

from __future__ import annotations

import ast
import inspect
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from transformer_course.checking.checker import Checker
from transformer_course.checking.formatting import short
from transformer_course.checking.relations import number_relation

__all__ = ["Quiz", "operator_slip", "power_misreadings", "quiz_check"]


@dataclass(frozen=True)
class Quiz:
    """One question. ``choices`` maps letters to the choice texts (empty for a numeric
    answer); ``answer`` is the right letter or number; ``why`` explains each choice
    (or common wrong numbers), the right one included, shown after an answer."""

    name: str
    answer: str | float
    why: Mapping[str | float, str]
    choices: Mapping[str, str] = field(default_factory=dict)
    rel_tol: float = 1e-6
    #: a numeric answer's worked expression, with its parentheses ("(128 / 2) ** 0.5"):
    #: a wrong number that the expression gives with a pair of them left out is told
    #: that Python's precedence read it another way
    worked: str = ""
    #: answers in another form that stand for a choice: the value a learner may return in
    #: place of the letter (an axis, a count) -> (the letter, what that value is), so an
    #: answer of the wrong type is told which choice it meant ("returned -1, the last
    #: axis: choice (b)'s"), as blind13g-quiz-ln-axis-returns-dim was not
    meant: Mapping[object, tuple[str, str]] = field(default_factory=dict)


def _same_value(candidate: object, key: object) -> bool:
    """Equal as numbers or sequences of numbers (NaN equal to NaN), never a bool."""
    if isinstance(candidate, bool) or isinstance(key, bool):
        return False
    if isinstance(candidate, float) and isinstance(key, int | float):
        return candidate == key or (math.isnan(candidate) and math.isnan(key))
    try:
        return bool(candidate == key)
    except Exception:  # an array's ambiguous truth value: not this one
        return False


def _literal_choices(choices: Mapping[str, str]) -> dict[object, tuple[str, str]]:
    """The choices whose text is a Python literal (a shape, a list of ids, a number): the
    value -> (letter, what it is), so an answer that returns the value itself is read."""
    found = {}
    for letter, text in choices.items():
        try:
            value = ast.literal_eval(text.strip())
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(value, list | tuple):
            value = tuple(value)
        if isinstance(value, tuple | int | float) and not isinstance(value, bool):
            found[value] = (letter, "a choice's text as a Python value")
    return found


def _meant_choice(
    value: object, meant: Mapping[object, tuple[str, str]], choices: Mapping[str, str] | None = None
) -> tuple[str, str]:
    """The (letter, what the value is) that ``value`` stands for in ``meant``, or in the
    choices whose text is the value itself (a tuple for "(2, 8, 5, 7)"), matching numbers
    by value (-1 and -1.0, a tuple, a list and a torch.Size of the same numbers, NaN and
    NaN) but never a bool; ("", "") when none."""
    if isinstance(value, bool) or isinstance(value, str) or value is None:
        return "", ""
    key: object = value
    if isinstance(value, list | tuple) or type(value).__name__ == "Size":
        key = tuple(value)
    elif getattr(value, "ndim", None) == 0 and hasattr(value, "item"):
        key = value.item()  # a numpy or torch scalar
    for candidate, found in (*meant.items(), *_literal_choices(choices or {}).items()):
        if _same_value(candidate, key):
            return found
    return "", ""


def _letter(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    text = value.strip().lower().strip("().[] ")
    return text[:1] if len(text) == 1 or text[1:2] in {")", ".", " ", ""} else None


_HEDGE = re.compile(r"^\W*([a-z])\W*(?:\s(?:or|and)\s|/|,|&|\|)\W*([a-z])\W*$")


def _hedged(value: object, choices: Mapping[str, str]) -> str:
    """For an answer that names two choices ("b or c", "b/c", "b, c"): which; else ""."""
    if not isinstance(value, str):
        return ""
    found = _HEDGE.match(value.strip().lower())
    if not found or not {found[1], found[2]} <= set(choices) or found[1] == found[2]:
        return ""
    return f"two letters, ({found[1]}) and ({found[2]})"


def _form_note(value: object, choices: Mapping[str, str]) -> str:
    """For an answer that is not one of the letters: what form it has, and the letter it
    seems to mean where one does ("" when it means none)."""
    letters = ", ".join(f'"{letter}"' for letter in choices)
    if value is None:
        return (
            "returned None: the function has no return statement (or a bare return). "
            f"Return your letter, one of {letters}."
        )
    if isinstance(value, list | tuple | set) and len(value) == 1:
        (inner,) = tuple(value)
        letter = _letter(inner)
        if letter in choices:
            return (
                f"returned a {type(value).__name__}, {short(value)}, with the letter inside: "
                f'return the string itself, "{letter}".'
            )
    ticked = _ticked_choice(value, choices)
    if ticked:
        return (
            f"returned a {type(value).__name__} of {len(value)} booleans, {short(value)}, one "
            f"per choice, with choice ({ticked}) ticked (a one-hot answer): the function "
            f'returns the letter itself, as a string, "{ticked}".'
        )
    if isinstance(value, list | tuple) and len(value) > 1:
        letters_inside = [_letter(item) for item in value if _letter(item) in choices]
        if len(letters_inside) == 1:
            return (
                f"returned a {type(value).__name__} of {len(value)} items, {short(value)}: "
                f"the letter comes with other values (a reason?). Return the letter alone, "
                f'the string "{letters_inside[0]}".'
            )
    if isinstance(value, str):
        unquoted = value.strip().strip("\"'`")
        if unquoted != value.strip() and _letter(unquoted) in choices:
            return (
                f"returned {short(value)}: the quote marks are characters of your string "
                f'({len(value)} characters). One pair of quotes makes the string: return "'
                f'{_letter(unquoted)}".'
            )
    if inspect.isgenerator(value):
        return (
            "returned a generator: a function with `yield` in it returns a generator instead "
            f"of a value. Use return: return one of {letters}."
        )
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        return ""
    if isinstance(value, str):
        text = value.strip().lower().strip(".\"'")
    else:  # a number in its shortest form (a huge int has no bounded one)
        text = f"{value:g}" if isinstance(value, float) or abs(value) < 10**15 else ""
    for letter, choice in choices.items():
        if text and text == choice.strip().lower().strip(".\"'`"):
            return (
                f"returned {short(value)}, the text of choice ({letter}): a concept question "
                f'is answered with the choice\'s letter, not its text: return "{letter}".'
            )
    if isinstance(value, str) and len(text) > 1:
        holding = [letter for letter, choice in choices.items() if text in choice.lower()]
        if len(holding) == 1:
            return (
                f"returned {short(value)}, words from choice ({holding[0]}): a concept "
                "question is answered with the choice's letter, not its words: return "
                f'"{holding[0]}".'
            )
        return (
            f"returned {short(value)}, words rather than a letter: a concept question is "
            f"answered with the letter of the choice you pick, one of {letters}. Which "
            "choice says what you mean?"
        )
    if isinstance(value, int | float) and not isinstance(value, bool):
        kind = "an int" if isinstance(value, int) else "a float"
        described = _choices_naming(text, choices)
        if len(described) == 1:
            return (
                f"returned the number {short(value)}, {kind}, not a letter: it is the value "
                f"choice ({described[0]}) describes. The answer is the choice's letter, a "
                f'string, "{described[0]}".'
            )
        return (
            f"returned the number {short(value)}, {kind}: this question is answered with a "
            f"letter, a string: one of {letters}."
        )
    return ""


def _ticked_choice(value: object, choices: Mapping[str, str]) -> str:
    """For a list or tuple of one boolean (or 0/1) per choice with exactly one set, the
    letter of that choice; "" otherwise."""
    if not (isinstance(value, list | tuple) and len(value) == len(choices)):
        return ""
    if not all(isinstance(item, bool) or item in (0, 1) for item in value):
        return ""
    ticked = [letter for letter, item in zip(choices, value) if item]
    return ticked[0] if len(ticked) == 1 else ""


def _choices_naming(text: str, choices: Mapping[str, str]) -> list[str]:
    """The letters of the choices whose text holds the number ``text`` ("nan", "0.5") as
    a word of its own."""
    if not text:
        return []
    word = re.compile(rf"(?<![\w.]){re.escape(text)}(?![\w.])", re.IGNORECASE)
    return [letter for letter, choice in choices.items() if word.search(choice)]


def _unquoted_letter(exc: BaseException, quiz: Quiz) -> str:
    """For a NameError on one of the quiz's letters (``return b``, round 14's
    blind14d-q-cross-shape-letter-unquoted): the letter needs quotes; "" otherwise."""
    found = re.search(r"name '(\w+)' is not defined", str(exc))
    if not quiz.choices or not found or found[1].lower() not in quiz.choices:
        return ""
    name = found[1]
    letters = ", ".join(f'"{letter}"' for letter in quiz.choices)
    return (
        f"Your answer {name} is written without quotes, so Python reads it as a variable "
        f"named {name}, and there is none. The answer is a string, the letter in quotes: "
        f"return '{name}' (one of {letters})."
    )


def quiz_check(quiz: Quiz) -> Callable[..., None]:
    """The check function of a quiz: ``check_<name>(answer_function, *, hidden=False)``."""

    def check(answer_function: Callable[[], object], *, hidden: bool = False) -> None:
        with Checker(quiz.name, hidden=hidden) as c:
            if isinstance(answer_function, str | int | float) and not callable(answer_function):
                c.fail(
                    f"`{quiz.name}` is {short(answer_function)}, a value, where the function "
                    "belongs: the answer goes inside the function, as its return value, "
                    f"def {quiz.name}(): return {short(answer_function)}. (A later cell that "
                    f"assigns {quiz.name} = ... replaces the function too.)"
                )
            c.require_callable(answer_function, quiz.name)
            given = c.call(
                answer_function,
                call_repr=f"{quiz.name}()",
                hints=[(NameError, lambda exc: _unquoted_letter(exc, quiz))],
            )
            if quiz.choices:
                letters = ", ".join(f'"{letter}"' for letter in quiz.choices)
                hedged = _hedged(given, quiz.choices)
                if hedged:
                    c.fail(
                        f"{quiz.name}() returned {short(given)}, {hedged}: a concept question "
                        f"has one answer. Return one letter, the one you choose: one of {letters}."
                    )
                letter = _letter(given)
                stands_for, what = _meant_choice(given, quiz.meant, quiz.choices)
                if letter not in quiz.choices and stands_for in quiz.choices:
                    right = stands_for == quiz.answer
                    c.fail(
                        f"{quiz.name}() returned {short(given)}, "
                        f"{'an' if type(given).__name__[0] in 'aeiou' else 'a'} "
                        f"{type(given).__name__}, not a letter: {what}, which is choice ({stands_for}), "
                        f"{quiz.choices[stands_for]}. A concept question is answered with the "
                        "choice's letter, a string"
                        + (
                            f': return "{stands_for}".'
                            if right
                            else f", and ({stands_for}) is not right either. "
                            f"{quiz.why.get(stands_for, '')} Think again, and return the letter "
                            f"of another choice, one of {letters}."
                        )
                    )
                if letter not in quiz.choices:
                    form = _form_note(given, quiz.choices)
                    c.fail(
                        f"{quiz.name}() {form}"
                        if form
                        else f"{quiz.name}() returned {short(given)}, which is not one of the "
                        f"letters {letters}: return one of them."
                    )
                if letter != quiz.answer:
                    c.fail(
                        f"({letter}) {quiz.choices[letter]} is not right. "
                        f"{quiz.why.get(letter, '')} Think again, and try another letter."
                    )
            else:
                number = _number(given)
                if number is None and _several_numbers(given):
                    c.fail(
                        f"{quiz.name}() returned a {type(given).__name__} of {len(given)} "
                        f"numbers, {short(given)}, a shape or a list, not one number: the "
                        "question asks for a single value. Return that one number (an int or a "
                        "float), not a tuple."
                    )
                if number is None:
                    several = _array_of_numbers(given, float(quiz.answer), quiz.rel_tol)
                    if several:
                        c.fail(f"{quiz.name}() returned {several}")
                    c.fail(f"{quiz.name}() returned {short(given)}: return a number.")
                if not math.isclose(number, float(quiz.answer), rel_tol=quiz.rel_tol):
                    known = next(
                        (
                            text
                            for value, text in quiz.why.items()
                            if not isinstance(value, str)
                            and math.isclose(number, float(value), rel_tol=quiz.rel_tol)
                        ),
                        "",
                    ) or (
                        precedence_slip(number, quiz.worked, quiz.rel_tol)
                        or operator_slip(number, quiz.worked, quiz.rel_tol)
                        or number_relation(number, float(quiz.answer), quiz.rel_tol)
                    )
                    c.fail(f"{number:g} is not right. {known} Think again.".replace("  ", " "))
                if isinstance(given, str):  # the right number as text: accepted, said once
                    c.note(
                        f"{quiz.name}() returned {short(given)}, a string that holds the right "
                        "number: accepted. The question asks for a number, so the usual form "
                        f"is the number itself, without quotes: return {given.strip()}."
                    )
            c.ok()
            if not hidden:
                print(f"Right. {quiz.why.get(quiz.answer, '')}".strip())

    check.__name__ = check.__qualname__ = f"check_{quiz.name}"
    check.__doc__ = f"Check the answer to the concept question {quiz.name}."
    check.quiz = quiz  # what the generic tests read
    return check


_ARITHMETIC = (
    ast.Expression,
    ast.BinOp,
    ast.UnaryOp,
    ast.Constant,
    ast.Add,
    ast.Sub,
    ast.Mult,
    ast.Div,
    ast.FloorDiv,
    ast.Pow,
    ast.USub,
    ast.UAdd,
)


def _arithmetic(expression: str) -> float | None:
    """The value of a plain arithmetic expression (numbers, + - * / // **), or None."""
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError:
        return None
    if not all(isinstance(node, _ARITHMETIC) for node in ast.walk(tree)):
        return None
    try:
        value = eval(compile(tree, "<worked>", "eval"), {"__builtins__": {}})
    except (ArithmeticError, ValueError, TypeError):
        return None
    return float(value) if isinstance(value, int | float) else None


def _without_parentheses(worked: str) -> list[str]:
    """``worked`` with each one pair of its parentheses left out."""
    opened, pairs = [], []
    for at, ch in enumerate(worked):
        if ch == "(":
            opened.append(at)
        elif ch == ")" and opened:
            pairs.append((opened.pop(), at))
    return [worked[:a] + worked[a + 1 : b] + worked[b + 1 :] for a, b in pairs]


def precedence_slip(number: float, worked: str, rel_tol: float) -> str:
    """When ``number`` is what ``worked`` gives with one pair of parentheses left out:
    the sentence that says so (Python's precedence: ** before * and /, those before + and
    -); "" otherwise."""
    right = _arithmetic(worked)
    for written in _without_parentheses(worked):
        value = _arithmetic(written)
        if value is None or right is None or math.isclose(value, right, rel_tol=rel_tol):
            continue
        if math.isclose(number, value, rel_tol=rel_tol):
            return (
                f"Your number is what {written} gives: {worked} without its parentheses. "
                "Python's operator precedence reads it another way (** binds tighter than * "
                "and /, which bind tighter than + and -), so the operation meant to come "
                f"first came last. Put the parentheses back: {worked}."
            )
    return ""


def power_misreadings(base: int, exponent: int, effect: str = "uses") -> list[tuple[int, str, str]]:
    """The numbers a power ``base**exponent`` becomes when it is mistyped, each as (value,
    short name, what happened, ``effect`` saying what the quiz's sum does with the value,
    "divides by"): ``base ^ exponent``, Python's bitwise exclusive or, and ``base *
    exponent``, one asterisk missing (blind29c-quiz-cache-memory-two-times-twenty divided
    by 2*20 = 40). A numeric quiz whose answer holds the power lists them among its
    slips."""
    power = f"{base}**{exponent}"
    xor, product = base ^ exponent, base * exponent
    return [
        (
            xor,
            f"{base} ^ {exponent} = {xor}",
            f"{base} ^ {exponent} as the power {power}: in Python ^ is the bitwise exclusive or "
            f"(xor), so {base} ^ {exponent} = {xor} and this {effect} {xor}; a power is "
            f"written {power}",
        ),
        (
            product,
            f"{base}*{exponent} = {product}",
            f"{base}*{exponent} where the power {power} belongs: one asterisk is missing, so it "
            f"multiplies instead of raising to a power, and this {effect} {product} instead of "
            f"{base**exponent}; a power is written with two asterisks, {power}",
        ),
    ]


def operator_slip(number: float, worked: str, rel_tol: float) -> str:
    """When ``number`` is what ``worked`` gives with one power ``**`` mistyped as ``*``
    (one asterisk missing) or ``^`` (xor): the sentence that says so; "" otherwise."""
    right = _arithmetic(worked)
    for at in (m.start() for m in re.finditer(r"\*\*", worked)):
        for typed, what in (("*", "one asterisk is missing: a product"), ("^", "^ is xor")):
            written = worked[:at] + typed + worked[at + 2 :]
            value = _arithmetic(written) if typed == "*" else _xor_value(written)
            if value is None or right is None or math.isclose(value, right, rel_tol=rel_tol):
                continue
            if math.isclose(number, value, rel_tol=rel_tol):
                return (
                    f"Your number is what {written} gives: {worked} with its power ** "
                    f"written {typed} ({what}, not a power). A power is written **: "
                    f"{worked}."
                )
    return ""


def _xor_value(expression: str) -> float | None:
    """The value of ``expression`` with ^ read as Python reads it, for integer operands."""
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError:
        return None
    allowed = (*_ARITHMETIC, ast.BitXor)
    if not all(isinstance(node, allowed) for node in ast.walk(tree)):
        return None
    try:
        value = eval(compile(tree, "<worked>", "eval"), {"__builtins__": {}})
    except (ArithmeticError, ValueError, TypeError):
        return None
    return float(value) if isinstance(value, int | float) else None


def _array_of_numbers(given: object, answer: float, rel_tol: float) -> str:
    """For an array (or list) of several numbers where one belongs: how many, and whether
    they are all the answer; "" for anything else."""
    try:
        values = [float(v) for v in np.asarray(given, dtype=float).reshape(-1)]
    except (TypeError, ValueError):
        return ""
    if len(values) < 2 or np.ndim(given) == 0:
        return ""
    shape = tuple(np.shape(given))
    if all(math.isclose(v, answer, rel_tol=rel_tol) for v in values):
        return (
            f"an array of {len(values)} numbers, shape {shape}, each {values[0]:g}, where "
            "the question asks for one number: you computed the value for several cases "
            "at once (one per row), and it is the same for each. Return a single number, "
            "one of them: float(x[0])."
        )
    return (
        f"an array of {len(values)} numbers, shape {shape}, where the question asks for a "
        "single number: return that one number."
    )


def _number(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        number = float(value)  # int, float, numpy or torch scalar, "64"
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _several_numbers(value: object) -> bool:
    """A tuple, list or torch.Size of two or more numbers (a shape, a pair of sizes)."""
    return (
        isinstance(value, list | tuple)
        and len(value) > 1
        and all(_number(item) is not None for item in value)
    )
