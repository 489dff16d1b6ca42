"""checking/call_replay.py: the calls a loop makes of a stateful module (generation with a
KV cache), recorded by hooks and replayed against the protocol: the first call that
departs, and how (no state, a new one, not empty at the start, changed between calls, a
start that is not the state's length); positions fed twice; a counter's advance rule."""

from __future__ import annotations

import pytest
import torch

from transformer_course.checking.call_replay import (
    CallTrace,
    advance_rules,
    first_departure,
    repeated_positions,
)
from transformer_course.reference import inference as ref

PROMPT = torch.tensor([[3, 1, 4, 1], [5, 9, 2, 6]])  # (2, 4)


def _trace(loop) -> list[dict]:
    """The calls ``loop(model)`` makes of a fresh CachedGPT."""
    model = ref.make_cached_gpt(7)
    trace = CallTrace(model)
    try:
        with torch.no_grad():
            loop(model)
    finally:
        trace.remove()
    return trace.calls


def _decode(model, caches, starts, tokens=None):
    """One token per call through ``caches`` at each start of ``starts``."""
    token = PROMPT[:, -1:] if tokens is None else tokens
    for start in starts:
        model(token, caches=caches, start=start)


def _right(model):
    caches = model.new_caches(2, 8)
    model(PROMPT, caches=caches, start=0)
    _decode(model, caches, [4, 5, 6])


def test_the_trace_records_what_each_call_ran_with():
    calls = _trace(_right)
    assert [call["shape"] for call in calls] == [(2, 4), (2, 1), (2, 1), (2, 1)]
    assert [call["start"] for call in calls] == [0, 4, 5, 6]
    assert [call["held"][0] for call in calls] == [0, 4, 5, 6]
    assert [call["after"][0] for call in calls] == [4, 5, 6, 7]
    assert first_departure(calls) is None
    assert repeated_positions(calls) == {}


def test_a_prefill_without_the_state_is_named_with_what_the_first_decode_step_found():
    def loop(model):
        caches = model.new_caches(2, 8)
        model(PROMPT)
        _decode(model, caches, [4, 5])

    departure = first_departure(_trace(loop))
    assert (departure.call, departure.kind) == (0, "stateless")
    assert departure.later == {"call": 1, "held": 0}


def test_a_state_not_empty_at_the_start_is_named_and_said_to_outlive_its_loop():
    model = ref.make_cached_gpt(7)
    kept = model.new_caches(2, 16)
    trace = CallTrace(model)
    with torch.no_grad():
        model(PROMPT, caches=kept, start=0)
        _decode(model, kept, [4, 5])
        first = len(trace.calls)
        model(PROMPT, caches=kept, start=0)  # a second loop, through the same caches
    trace.remove()
    departure = first_departure(trace.calls[first:], earlier=kept)
    assert (departure.call, departure.kind, departure.held) == (0, "not empty", 6)
    assert departure.outlived
    # the same state, given as nothing earlier: not empty, and not said to have outlived
    assert not first_departure(trace.calls[first:]).outlived


def test_a_new_state_and_a_state_changed_between_calls_are_told_apart():
    def fresh(model):
        model(PROMPT, caches=model.new_caches(2, 8), start=0)
        _decode(model, model.new_caches(2, 8), [4])

    def emptied(model):
        caches = model.new_caches(2, 8)
        model(PROMPT, caches=caches, start=0)
        for cache in caches:
            cache.length = 0
        _decode(model, caches, [4])

    def reordered(model):
        caches = model.new_caches(2, 8)
        model(PROMPT, caches=caches, start=0)
        _decode(model, caches[::-1], [4])

    assert first_departure(_trace(fresh)).kind == "new state"
    departure = first_departure(_trace(reordered))
    assert (departure.kind, departure.later) == ("reordered", {"order": [1, 0]})
    departure = first_departure(_trace(emptied))
    assert (departure.call, departure.kind, departure.held, departure.expected) == (
        1,
        "changed",
        0,
        4,
    )


@pytest.mark.parametrize(("starts", "call"), [([4, 6, 9], 2), ([5, 6], 1), ([4, 5, 5], 3)])
def test_a_start_that_is_not_the_state_s_length_departs_at_its_call(starts, call):
    def loop(model):
        caches = model.new_caches(2, 12)
        model(PROMPT, caches=caches, start=0)
        _decode(model, caches, starts)

    departure = first_departure(_trace(loop))
    assert (departure.call, departure.kind, departure.expected) == (call, "position", call + 3)


def test_positions_fed_twice_are_read_with_the_calls_that_fed_them():
    def loop(model):
        model(PROMPT)  # the prompt without the caches, then again with them
        caches = model.new_caches(2, 8)
        model(PROMPT, caches=caches, start=0)
        _decode(model, caches, [4])

    assert repeated_positions(_trace(loop)) == {p: [0, 1] for p in range(4)}


def test_the_advance_rule_is_the_only_quantity_that_gives_every_start():
    held = [5, 6, 7, 8]  # the state's length at each call after the first
    quantities = [{"fed": 1, "sequence": h, "prompt": 5} for h in held[1:]]
    assert advance_rules([5, 11, 18, 26], quantities) == ["sequence"]
    assert advance_rules([5, 6, 7, 8], quantities) == ["fed"]
    assert advance_rules([5, 10, 15, 20], quantities) == ["prompt"]
    assert advance_rules([5, 9, 18, 1], quantities) == []
    assert advance_rules([5], quantities) == []
