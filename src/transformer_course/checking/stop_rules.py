"""A loop over a batch that stops at the wrong step: which rows decided the stop.

A batched generation loop (greedy decoding, sampling, beam search over several sources)
must run until EVERY row has finished (produced <eos>), or until max_len steps. The family
of mistakes here is a stop decided by the wrong rows: by one row's token (``if
next_token[0] == eos_id: break``, the batch-of-one test; ``finished[-1]``), or by a count
of finished rows (``finished.any()``, ``finished.sum() >= 2``, more than half the batch).
Every such rule leaves the tokens right and only cuts the result short, and on one batch
several rules stop at the same step: row 0 finishing at step 4 and "two rows have
finished" agree when row 0 is the second to finish.

What tells them apart is the ORDER of the rows: a rule that reads one row's index stops
at another step once the sentences are reordered, a count does not. This module lists the
rules that explain the observed stop, picks reorderings of the batch on which they
disagree, and keeps the rules that still agree with the learner's stop there
(:func:`~.tie_breaking.split_candidates`); the leaf makes the call on the reordered batch.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from .tie_breaking import split_candidates

__all__ = ["StopRule", "finish_steps", "stop_rule_text", "stop_rules_explaining"]

#: a step no finish reaches: a row that never produces <eos>
_NEVER = 10**9


@dataclass(frozen=True)
class StopRule:
    """``kind`` "row": the loop stops once row ``value`` has finished (-1: the last row);
    "count": once ``value`` rows have finished (1 is ``finished.any()``); "before_append":
    the right test, run before the step's column is appended, so that the column of the
    step that finishes the batch is lost; "one_step_short": the right test in a loop of
    max_len - 1 steps."""

    kind: str
    value: int = 0

    def stop(self, finish: Sequence[int | None], max_len: int) -> int:
        """The step this rule stops at, given each row's finishing step (None: never),
        stopping anyway once every row has finished, or after max_len steps. Raises
        IndexError where the rule means nothing on this batch (row 3 of two rows)."""
        steps = sorted(_NEVER if f is None else f for f in finish)
        every = steps[-1]
        if self.kind == "row":
            own = finish[self.value]  # IndexError past the batch
            return min(_NEVER if own is None else own, every, max_len)
        if self.kind == "count":
            if self.value > len(finish):
                raise IndexError("more rows counted than the batch holds")
            return min(steps[self.value - 1], max_len)
        if self.kind == "one_step_short":
            return min(every, max_len - 1)
        return every - 1 if every <= max_len else max_len


def finish_steps(tokens: torch.Tensor, eos_id: int) -> list[int | None]:
    """The step (1-based) at which each row of ``tokens`` (batch, steps) produced <eos>,
    or None where it never does."""
    finish: list[int | None] = []
    for row in tokens.tolist():
        finish.append(row.index(eos_id) + 1 if eos_id in row else None)
    return finish


def _selections(batch: int) -> list[tuple[int, ...]]:
    """The batches to try, as the old rows they hold in order: every reordering of a
    small batch (the identity left out), then every ordered choice of fewer rows (at least
    two); the rotations of a larger batch."""
    if batch > 4:
        return [tuple((i + shift) % batch for i in range(batch)) for shift in range(1, batch)]
    chosen = []
    for size in range(batch, 1, -1):
        chosen += [p for p in itertools.permutations(range(batch), size)]
    return [p for p in chosen if p != tuple(range(batch))]


def stop_rules_explaining(
    finish: Sequence[int | None],
    max_len: int,
    stopped: int,
    stop_on: Callable[[tuple[int, ...]], int],
) -> tuple[list[StopRule], tuple[int, ...] | None]:
    """The wrong stop rules that give the learner's ``stopped`` step on the batch whose
    rows finish at ``finish``, narrowed by the learner's stops on other batches of the
    same sentences (reordered, or some of them).

    ``stop_on(rows)`` calls the learner's code on the batch of the old rows ``rows``, in
    that order (new row j is old row ``rows[j]``), and returns the step it stopped at,
    raising when its tokens are not the right ones cut short (nothing is learnt then).
    Returns the rules kept and the last batch that decided (None when none was run)."""
    batch = len(finish)
    rules = [StopRule("row", i) for i in range(batch - 1)] + [StopRule("row", -1)]
    rules += [StopRule("count", k) for k in range(1, batch)]
    rules += [StopRule("before_append"), StopRule("one_step_short")]
    right = StopRule("count", batch).stop(finish, max_len)
    rules = [r for r in rules if r.stop(finish, max_len) == stopped != right]
    if len(rules) < 2:
        return rules, None

    def chosen(rows: tuple[int, ...]) -> list[int | None]:
        return [finish[i] for i in rows]

    def spread(rows: tuple[int, ...]) -> int:
        predictions = set()
        for rule in rules:
            try:
                predictions.add(rule.stop(chosen(rows), max_len))
            except IndexError:
                return 0  # a rule that means nothing there: a probe for later
        return len(predictions)

    # the batches on which the rules disagree most come first, whole batches before parts
    probes = sorted(_selections(batch), key=lambda rows: (-spread(rows), -len(rows)))
    decided: list[tuple[int, ...]] = []

    def observe(rows: tuple[int, ...]) -> int:
        seen = stop_on(rows)
        decided.append(rows)
        return seen

    kept = split_candidates(
        rules, probes, lambda r, rows: r.stop(chosen(rows), max_len), observe, max_calls=3
    )
    return kept, (decided[-1] if decided and len(kept) < len(rules) else None)


def stop_rule_text(rule: StopRule, batch: int) -> str:
    """What the rule does, in the words of the code that gives it (``batch``: the rows of
    the batch the check ran first)."""
    if rule.kind == "row":
        row = batch - 1 if rule.value == -1 else rule.value
        index = "-1" if rule.value == -1 else str(rule.value)
        which = " (the last row)" if rule.value == -1 else " (the first row)" if row == 0 else ""
        return (
            f"your loop stops as soon as row {row}{which} has produced <eos>, whatever the "
            "other rows do: a test on that one row, "
            f"like `if next_token[{index}] == eos_id: break` or `finished[{index}]`, the "
            "test of a batch of ONE sentence"
        )
    if rule.kind == "one_step_short":
        return (
            "your loop runs one step short, max_len - 1 steps (range(max_len - 1), or a "
            "loop test that stops one step early, < where <= belongs): it may run "
            "range(max_len) steps"
        )
    if rule.kind == "before_append":
        return (
            "your loop broke before appending the step's tokens: the right test "
            "(finished.all()), but run before torch.cat, so the column of the step at "
            "which the last rows write <eos> is lost; append the new column first, then "
            "update finished, then break"
        )
    if rule.value == 1:
        return (
            "your loop stops as soon as one row has produced <eos> (finished.any(), or a "
            "test on the new tokens like (next_token == eos_id).any())"
        )
    return (
        f"your loop stops as soon as {rule.value} rows have produced <eos> (a count like "
        f"finished.sum() >= {rule.value}, or a fraction of the batch), not all of them"
    )
