"""checking/stop_rules.py: which rows decided a batched loop's early stop, told apart by
the learner's stops on the same rows reordered, or fewer of them."""

from __future__ import annotations

import pytest
import torch

from transformer_course.checking.stop_rules import (
    StopRule,
    finish_steps,
    stop_rule_text,
    stop_rules_explaining,
)


def _learner(rule: StopRule, finish, max_len):
    """A learner whose loop stops by ``rule``: its stop on the batch of ``rows``."""
    return lambda rows: rule.stop([finish[i] for i in rows], max_len)


@pytest.mark.parametrize(
    ("finish", "max_len", "rule"),
    [
        ([4, 2, None], 6, StopRule("row", 0)),
        ([4, 2, None], 6, StopRule("count", 2)),
        ([2, None, 3], 6, StopRule("row", -1)),
        ([2, 5, None], 6, StopRule("count", 1)),
        ([2, 3, 4], 8, StopRule("before_append")),
        ([2, 3, 4], 8, StopRule("count", 2)),
        ([3, 1, 2, None], 7, StopRule("row", 2)),
    ],
)
def test_the_rule_that_stopped_the_loop_is_the_one_kept(finish, max_len, rule):
    stopped = rule.stop(finish, max_len)
    kept, decided = stop_rules_explaining(finish, max_len, stopped, _learner(rule, finish, max_len))
    assert [r.stop([finish[i] for i in range(len(finish))], max_len) for r in kept] == [stopped]
    assert kept == [rule] or (rule.kind == "row" and len(kept) == 1 and kept[0].kind == "row")
    assert decided is not None


def test_a_learner_no_rule_explains_keeps_every_candidate():
    finish, max_len = [4, 2, None], 6

    def stop_on(rows):
        return 1  # stops after one step whatever the rows: none of the rules

    kept, _ = stop_rules_explaining(finish, max_len, 4, stop_on)
    assert set(kept) == {StopRule("row", 0), StopRule("count", 2)}


def test_a_probe_that_raises_teaches_nothing():
    def stop_on(rows):
        raise ValueError("not the right tokens cut short")

    kept, decided = stop_rules_explaining([4, 2, None], 6, 4, stop_on)
    assert len(kept) == 2 and decided is None


def test_finish_steps_and_the_words():
    tokens = torch.tensor([[5, 2, 0], [5, 5, 5], [2, 0, 0]])  # (batch, steps), <eos> = 2
    assert finish_steps(tokens, 2) == [2, None, 1]
    assert "next_token[0] == eos_id" in stop_rule_text(StopRule("row", 0), 3)
    assert "finished[-1]" in stop_rule_text(StopRule("row", -1), 3)
    assert "finished.sum() >= 2" in stop_rule_text(StopRule("count", 2), 3)
