"""Lesson 01's shared check machinery: random token lists, the readers of tokens and
ids that every check accepts in the same forms, and the classic BPE example. Its names keep
their underscore: they are private to the package (its modules import them; tests do not).
"""

from __future__ import annotations

import numpy as np

from transformer_course.checking import Checker, numpy_rng, short

_WORDS = ["cat", "dog", "milk", "blue", "ball", "the", "a", "drank", "is", "red"]


def _random_token_lists(seed: int, n: int = 6) -> list[list[str]]:
    rng = numpy_rng(seed)
    return [
        [_WORDS[int(i)] for i in rng.integers(0, len(_WORDS), size=int(rng.integers(0, 8)))]
        for _ in range(n)
    ]


def _is_int(value) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


def _nested_tokens_hint(got, nested_why=None) -> str:
    """For a list of lists of strings where one flat list belongs: say so, and why when
    ``nested_why()`` (a probe of the learner's function) can tell; "" otherwise."""
    if not got or not all(
        isinstance(part, list | tuple) and all(isinstance(t, str) for t in part) for part in got
    ):
        return ""
    why = ""
    if nested_why is not None:
        try:
            why = nested_why()
        except Exception:  # the probe failed: say what the output shows, no more
            why = ""
    flat = [t for part in got for t in part]
    return (
        f" Yours is a nested list, a list of {len(got)} list(s) of tokens "
        f"({short([list(part) for part in got])}), where one flat list of strings belongs"
        f"{why}. Return one flat list of tokens for the whole text ({short(flat)} here): "
        "if you build one list per piece, join them (tokens.extend(...), or a single "
        "re.findall over the whole text)."
    )


def _tokens(c: Checker, got, what: str, hint: str, nested_why=None) -> list[str]:
    """A list or tuple of strings, as a list. ``nested_why()``: why a list of lists came
    back, from a probe of the learner's function (or "")."""
    c.expect_type(got, (list, tuple), what, hint)
    nested = _nested_tokens_hint(got, nested_why)
    for token in got:
        groups = nested
        if (  # tokenize's re.findall with capturing groups
            what.startswith("tokenize(")
            and isinstance(token, tuple)
            and token
            and all(isinstance(t, str) for t in token)
        ):
            groups = (
                f" A tuple of {len(token)} strings per match is what re.findall returns when "
                f"the pattern has {len(token)} capturing groups, (...): one string per group, "
                "'' for a group that did not take part in the match. Make the groups "
                "non-capturing, (?:...), or drop the parentheses, so that findall returns the "
                "whole match as one string."
            )
        c.expect_type(token, str, f"every token of {what}", f"Found {short(token)}.{groups}")
    return list(got)


def _ids(c: Checker, got, what: str, hint: str = "Return a list of ids (ints).") -> list[int]:
    """A list or tuple of integers, or a 1-D integer array or tensor, as a list of ints."""
    if hasattr(got, "dtype") and hasattr(got, "tolist") and getattr(got, "ndim", 0) == 1:
        c.expect_integer_dtype(got, what)
        got = got.tolist()
    if isinstance(got, bytes | bytearray):
        hint = (
            "Yours is a bytes object, what str.encode returns: its items are the right kind of "
            "ids, but it is not a list. Turn it into one where you start, "
            "list(text.encode('utf-8')): a step that builds a new list (merge_pair) hides the "
            "slip whenever it runs, so the bytes come back exactly when no step changes them "
            "(no merge applies, or the text is empty)."
        )
    c.expect_type(got, (list, tuple), what, hint)
    wrong = [item for item in got if not _is_int(item)]
    c.expect_true(
        not wrong,
        f"{what} should hold integer ids, but it contains {short(wrong[0], 60) if wrong else ''} "
        f"({type(wrong[0]).__name__ if wrong else ''}). {hint}",
    )
    return [int(item) for item in got]


_CLASSIC = "aaabdaaabac"


def _expect_not_accumulated(c: Checker, what: str, repeat, got, expected) -> None:
    """Fail when ``got`` is longer than ``expected``, ends with it, and a repeat of the call
    (``repeat()``) returns a list that starts with ``got`` and ends with ``expected`` again:
    the list the learner appends to outlives the call and keeps every earlier result."""
    if not isinstance(got, list | tuple) or len(got) <= len(expected):
        return
    got = list(got)
    if got[len(got) - len(expected) :] != list(expected):
        return
    try:
        again = repeat()
    except Exception:  # no verdict from the repeat
        return
    if not isinstance(again, list | tuple) or len(again) <= len(got):
        return
    again = list(again)
    if again[: len(got)] == got and again[len(again) - len(expected) :] == list(expected):
        c.fail(
            f"{what} returned {short(got, 160)}: the right result, {short(list(expected), 80)}, "
            "after the results of your earlier calls, and the same call again returned a "
            "longer list still. The list you append to outlives the call: a default argument "
            "(def f(..., out=[])) or a list at module level is created once and shared by "
            "every call. Create the list inside the function at each call (out = [] in the "
            "body)."
        )
