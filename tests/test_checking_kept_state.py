"""checking.kept_state and the Checker's use of it: state a learner's function keeps
between calls (a module-level container it fills, a global it assigns, a functools cache)
is named when the wrong call, made again with that state emptied, is right; answers that
cache correctly (keyed on every argument) or keep nothing still pass."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from transformer_course.checking import CheckFailure
from transformer_course.checking.kept_state import StateWatch
from transformer_course.checks import attention, positional_encoding
from transformer_course.reference import attention as attention_ref
from transformer_course.reference import positional_encoding as pe_ref

_TABLES: dict = {}


def table_cached_on_d_model(max_len, d_model):  # a cache keyed on one argument of two
    if d_model not in _TABLES:
        _TABLES[d_model] = pe_ref.positional_encoding(max_len, d_model)
    return _TABLES[d_model]


@functools.cache
def _table(max_len, d_model):
    return pe_ref.positional_encoding(max_len, d_model)


def table_cached_on_both(max_len, d_model):  # a right cache: keyed on every argument
    return _table(max_len, d_model).copy()


_peak = None


def softmax_with_first_peak(x, axis=-1):  # the first call's maximum, kept in a global
    global _peak
    if _peak is None:
        _peak = np.max(x)
    exps = np.exp(x - _peak)
    return exps / exps.sum(axis=axis, keepdims=True)


_CALLS: list = []


def softmax_logging_its_calls(x, axis=-1):  # writes a global, but never reads it back
    _CALLS.append(np.shape(x))
    return attention_ref.softmax(x, axis)


def test_the_watch_reads_what_the_code_can_keep():
    assert StateWatch(table_cached_on_d_model).kept_anywhere()
    assert StateWatch(softmax_with_first_peak).kept_anywhere()
    assert not StateWatch(pe_ref.positional_encoding).kept_anywhere()  # the course's own


def test_a_cache_keyed_on_one_argument_is_named_from_a_mixed_call():
    _TABLES.clear()
    with pytest.raises(CheckFailure, match=r"module-level dict `_TABLES`.*Called just after"):
        positional_encoding.check_positional_encoding(table_cached_on_d_model)


def test_a_global_assigned_on_the_first_call_is_named():
    global _peak
    _peak = None
    with pytest.raises(CheckFailure, match=r"module-level name `_peak`.*set back to None"):
        attention.check_softmax(softmax_with_first_peak)


def test_state_that_never_changes_a_result_passes():
    positional_encoding.check_positional_encoding(table_cached_on_both)
    attention.check_softmax(softmax_logging_its_calls)
