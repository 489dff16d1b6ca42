"""Several layers of a contract built as one: an unexpected weight whose rows are exactly
the rows of some missing weights stacked (nanoGPT's ``c_attn``, one nn.Linear(d_model,
3 * d_model) for the queries, keys and values; Llama's fused ``w13`` for SwiGLU's gate
and value). Read off the shapes of the state dict alone: named only when every
unexpected key and every missing key is explained by such stacks, and each stack is the
only set of missing weights whose rows add up to it.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

__all__ = ["fused_layers_note"]


def _module(key: str) -> str:
    return key.rsplit(".", 1)[0]


def _stacks(shape: tuple[int, ...], weights: Mapping[str, tuple[int, ...]]) -> list[tuple]:
    """Every set of two or more of ``weights`` (missing key -> shape) of the same input
    width whose output widths add up to ``shape``'s first entry."""
    if len(shape) != 2:
        return []
    same_input = [key for key, s in weights.items() if len(s) == 2 and s[1] == shape[1]]
    return [
        subset
        for size in range(2, len(same_input) + 1)
        for subset in itertools.combinations(same_input, size)
        if sum(weights[key][0] for key in subset) == shape[0]
    ]


def fused_layers_note(
    found: Mapping[str, tuple[int, ...]],
    expected: Mapping[str, tuple[int, ...]],
) -> str:
    """The diagnosis when the unexpected weights of ``found`` (key -> shape) are missing
    weights of ``expected`` stacked into one layer each; "" otherwise."""
    missing = [key for key in expected if key not in found]  # in the contract's order
    extra = sorted(set(found) - set(expected))
    extra_weights = [key for key in extra if key.endswith(".weight")]
    if not missing or not extra_weights:
        return ""
    missing_weights = {key: tuple(expected[key]) for key in missing if key.endswith(".weight")}
    told, covered = [], set()
    for key in extra_weights:
        stacks = _stacks(tuple(found[key]), missing_weights)
        if len(stacks) != 1 or covered & set(stacks[0]):
            return ""
        covered |= set(stacks[0])
        told.append((key, stacks[0]))
    fused_modules = {_module(key) for key, _ in told}
    covered_modules = {_module(key) for key in covered}
    # every other wrong key must belong to those layers (their biases), else say nothing
    for key in missing:
        if key not in covered and _module(key) not in covered_modules:
            return ""
    for key in extra:
        if key not in extra_weights and _module(key) not in fused_modules:
            return ""
    parts = []
    for key, stack in told:
        names = [f"`{_module(part)}`" for part in stack]
        listed = f"{', '.join(names[:-1])} and {names[-1]}"
        widths = " + ".join(str(missing_weights[part][0]) for part in stack)
        parts.append(
            f"{key} has shape {tuple(found[key])}: the weights of {listed} stacked into one "
            f"layer ({widths} = {found[key][0]} outputs), a fused projection (as nanoGPT's "
            "c_attn holds the queries', keys' and values' weights)"
        )
    layers = [_module(key) for key in missing if key in covered]
    return (
        f"{'; '.join(parts)}. One fused layer can compute the same, but the contract keeps one layer "
        f"per projection, named {', '.join(layers)}, and the checks (and the later lessons) "
        "load the weights by those names: build each as its own nn.Linear and apply each to "
        "its input, instead of splitting one layer's output."
    )
