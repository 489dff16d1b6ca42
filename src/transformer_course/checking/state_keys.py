"""What a module's state-dict keys say about how it was built, beyond "these keys are
missing": read off a module the check constructs itself with the case's arguments (the
same construction the check makes), never off the learner's source."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Iterable

import torch
from torch import nn

__all__ = ["built_keys", "counters_kept_as_tensors", "norms_without_affine"]


def built_keys(build: Callable[[], nn.Module]) -> set[str] | None:
    """The state-dict keys of the module ``build()`` constructs (its prints silenced), or
    None when construction fails or gives no module."""
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            module = build()
            keys = set(module.state_dict())
    except Exception:  # said by the check itself
        return None
    return keys


def norms_without_affine(found: Iterable[str], expected: Iterable[str]) -> str:
    """When the only wrong keys are LayerNorms' ``weight`` and ``bias``, both missing, for
    some norms (no unexpected key): which norms, and the two ways a LayerNorm is built
    without its learned gain and bias; "" otherwise."""
    found, expected = set(found), set(expected)
    missing, unexpected = expected - found, found - expected
    if unexpected or not missing:
        return ""
    norms = sorted({key.rsplit(".", 1)[0] for key in missing})
    for norm in norms:
        if {f"{norm}.weight", f"{norm}.bias"} - missing or f"{norm}.weight" not in expected:
            return ""
        if "norm" not in norm.rsplit(".", 1)[-1]:
            return ""
    if missing != {f"{norm}.{name}" for norm in norms for name in ("weight", "bias")}:
        return ""
    said = [f"`{norm}`" for norm in norms]
    named = said[0] if len(said) == 1 else f"{', '.join(said[:-1])} and {said[-1]}"
    return (
        f" {named} {'has' if len(norms) == 1 else 'have'} no learned gain and bias (no weight "
        "and no bias in the state dict): a LayerNorm built without them, "
        "nn.LayerNorm(d_model, elementwise_affine=False), or one that keeps them as plain "
        "tensors instead of nn.Parameter. Build the norms as LayerNorm(d_model): their gain "
        "and bias are learned, and loaded by these names."
    )


#: the stack's constructor arguments, and two more sets of them in which num_layers,
#: num_heads and d_ff all differ, to tell which one a wrong layer count came from
STACK_ARGUMENTS = ("num_layers", "d_model", "num_heads", "d_ff")
OTHER_STACK_SIZES = ((2, 16, 4, 8), (4, 12, 3, 20))


def layer_count_note(build: Callable[[tuple], nn.Module], own: tuple, container: str) -> str:
    """For a stack with the wrong number of layers: the size among its constructor's
    arguments (``own``, in STACK_ARGUMENTS' order) that the learner's layer count equals on
    every argument set built (checking.size_sources), such as num_heads where num_layers
    belongs (blind14g-dec-layer-count-from-num-heads was told the two counts alone); ""
    when none or several agree, or a build fails."""
    from transformer_course.checking.size_sources import size_source_note

    observed, sizes = [], []
    for numbers in (own, *OTHER_STACK_SIZES):
        keys = built_keys(lambda numbers=numbers: build(numbers))
        if keys is None:
            return ""
        prefix = f"{container}."
        count = len({key.split(".")[1] for key in keys if key.startswith(prefix)})
        observed.append(count)
        sizes.append(dict(zip(STACK_ARGUMENTS, numbers)))
    if observed[0] == own[0]:
        return ""
    return size_source_note(
        observed,
        sizes,
        f"Its layer count, {observed[0]}",
        "num_layers",
        "",
        exclude=("num_layers",),
    )


def counters_kept_as_tensors(module: nn.Module, names: Iterable[str]) -> str:
    """For a module whose contract keeps ``names`` as plain Python ints (a count of
    positions, steps, calls): each one kept as a tensor instead, registered as a buffer
    (in the state dict when persistent, the default) or assigned as a tensor; "" when all
    are ints or absent. Read off the module's attributes and state dict only."""
    if not isinstance(module, nn.Module):
        return ""
    try:
        state = module.state_dict()
        buffers = dict(module.named_buffers())
    except Exception:  # a module that cannot list its state: said elsewhere
        return ""
    told = []
    for name in names:
        value = getattr(module, name, None)
        if not isinstance(value, torch.Tensor):
            continue
        if name in state:
            how = (
                f"self.{name} is a registered buffer, persistent by default, so the state "
                f"dict holds a key '{name}' (state_dict keys: {sorted(state)})"
            )
        elif name in buffers:
            how = f"self.{name} is a registered buffer (persistent=False)"
        else:
            how = f"self.{name} was assigned a tensor"
        told.append(
            f"{how}: self.{name} is a tensor ({short_tensor(value)}), where the contract "
            "keeps a plain int"
        )
    if not told:
        return ""
    return (
        "; and ".join(told)
        + ". A count is bookkeeping, not a weight: a buffer would be saved with (and loaded "
        "into) the model's weights and moved with .to(device), and a tensor count makes "
        "every slice and comparison that uses it a tensor operation. Keep a plain int: "
        + ", ".join(f"self.{name} = 0" for name in names)
        + " in __init__, advanced with a plain assignment."
    )


def short_tensor(value: torch.Tensor) -> str:
    """A tensor shown briefly: its value when it holds one, else its shape, and its dtype."""
    dtype = str(value.dtype).replace("torch.", "")
    if value.numel() == 1:
        return f"tensor({value.item():g}), {dtype}"
    return f"shape {tuple(value.shape)}, {dtype}"
