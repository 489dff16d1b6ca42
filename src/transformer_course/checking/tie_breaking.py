"""Known mistakes that agree on every input the check ran, told apart by extra calls.

A check names a cause only when it alone reproduces what the learner's code gave. When
two candidates give the same result on every input the check ran (the final LayerNorm
counted once per layer, or both stacks' final LayerNorms counted in each stack, agree
whenever num_layers is 2), the check would have to name both. The inputs that tell them
apart are known (each candidate predicts its own result on any input): this module picks
the extra inputs on which the candidates disagree, calls the learner's code on them, and
keeps the candidates that still agree with it. It runs only after the answer has failed,
and an extra call that raises or returns something unexpected leaves the candidates as
they were (the check then names all of them, as before).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar

Candidate = TypeVar("Candidate")


def split_candidates(
    candidates: Sequence[Candidate],
    probes: Sequence[Any],
    predict: Callable[[Candidate, Any], Hashable],
    observe: Callable[[Any], Hashable],
    *,
    max_calls: int = 4,
) -> list[Candidate]:
    """The candidates that agree with the learner on the probes that tell them apart.

    ``predict(candidate, probe)`` is what the candidate mistake gives on ``probe``;
    ``observe(probe)`` calls the learner's code (when it raises, a ``CheckFailure`` or
    any other exception, nothing is learnt from that probe). Probes on which the remaining
    candidates all predict the same are skipped; at most ``max_calls`` probes are run. A
    probe no candidate explains (the learner's result is none of the predictions) means
    the learner's mistake is none of them on that input: the candidates are then kept as
    they were, so that a cause is never narrowed down by an input it does not explain."""
    remaining = list(candidates)
    calls = 0
    for probe in probes:
        if len(remaining) < 2 or calls >= max_calls:
            break
        try:
            predictions = [predict(candidate, probe) for candidate in remaining]
        except Exception:  # a candidate that cannot run on this probe: try another
            continue
        if len(set(predictions)) < 2:
            continue
        calls += 1
        try:
            seen = observe(probe)
        except Exception:  # CheckFailure included: the learner's code raised
            continue
        kept = [c for c, p in zip(remaining, predictions) if p == seen]
        if not kept:
            return list(candidates)
        remaining = kept
    return remaining
