"""Lesson 11's shared check machinery: the seeded generators its checks draw from, and
the probe of a module's randomness in train mode."""

from __future__ import annotations

import re
from typing import Any

import torch
from torch import nn

from transformer_course.checking.generators import seeded_generator
from transformer_course.checking.parameters_kept import renormalised_rows


def _generator(seed: int) -> torch.Generator:
    return seeded_generator(seed)


def _plain_generator(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


_RANDOM_IN_TRAIN = (
    "{built} in train mode (a freshly built module is in train mode, and training runs it "
    "so) gave two different outputs for the same input: it draws random numbers.{told} This "
    "lesson's {name} has no dropout and nothing random (section 6: no dropout in the GPT): "
    "the same input gives the same output on every call."
)


def _same_in_train_mode(c: Any, cls: Any, args: tuple, x: torch.Tensor, name: str) -> None:
    """A freshly built module in train mode, called twice on one input, gives one output:
    the value checks run in eval mode, where a dropout inside does nothing (blind10b: a
    dropout in SwiGLU, nanoGPT's dropouts in the attention, block and GPT, were accepted)."""
    built = f"{name}{args}"
    module = c.call(cls, *args, call_repr=built)
    if not isinstance(module, nn.Module):
        return
    module.train()
    what = f"{built}({'x' if x.is_floating_point() else 'ids'} {tuple(x.shape)})"
    first = c.call(module, x, call_repr=what)
    second = c.call(module, x, call_repr=what)
    if not (isinstance(first, torch.Tensor) and isinstance(second, torch.Tensor)):
        return
    if first.shape != second.shape or torch.equal(first, second):
        c.ok()
        return
    dropouts = [
        sub_name or "the module itself"
        for sub_name, sub in module.named_modules()
        if isinstance(sub, nn.modules.dropout._DropoutNd) and sub.p > 0
    ]
    told = (
        f" It holds a dropout ({', '.join(dropouts)}): remove it."
        if dropouts
        else " (A dropout through F.dropout, or a random draw?)"
    )
    c.fail(_RANDOM_IN_TRAIN.format(built=built, told=told, name=name))


def _built(name: str, args: tuple) -> str:
    """The constructor call as text, RMSNorm(8) (not RMSNorm(8,))."""
    return f"{name}({', '.join(repr(arg) for arg in args)})"


def _positional_types(exc: BaseException) -> list[str] | None:
    """The types of the positional arguments of a call PyTorch refused ("... received an
    invalid combination of arguments - got (int, int, int, generator=torch._C.Generator),
    but expected one of: ..."), or None for another error."""
    got = _got_types(exc)
    return None if got is None else [part for part in got if "=" not in part]


def _generator_by_position(exc: BaseException) -> bool:
    """Whether a generator went into a torch sampler by position: a positional argument
    of the refused call is a Generator, or a positional parameter got one ("argument
    'replacement' (position 3) must be bool, not torch._C.Generator"). A Generator named
    only in the signatures PyTorch lists as expected is not one."""
    if not isinstance(exc, TypeError):
        return False
    positional = _positional_types(exc)
    if positional is not None:
        return any("Generator" in part for part in positional)
    return bool(re.search(r"\(position \d+\) must be \w+, not \S*Generator", str(exc)))


#: a generator passed by position where torch's samplers take it by keyword only
GENERATOR_BY_KEYWORD = (
    _generator_by_position,
    "The generator went in by position: torch.randint and torch.multinomial take it by "
    "keyword only (torch.multinomial's third positional argument is replacement). Pass "
    "generator=generator: torch.randint(low, high, size, generator=generator), "
    "torch.multinomial(probs, 1, generator=generator).",
)


def _got_types(exc: BaseException) -> list[str] | None:
    """Every argument of a call PyTorch refused, as its error lists them (positional
    types, then name=type), or None for another error."""
    found = re.search(r"invalid combination of arguments - got \(([^)]*)\)", str(exc))
    return None if found is None else [part for part in found.group(1).split(", ") if part]


def _randint_size(exc: BaseException) -> str:
    """For torch.randint refused with a size that is an int, or no size: what it got."""
    if not (isinstance(exc, TypeError) and "randint()" in str(exc)):
        return ""
    got = _got_types(exc) or []
    positional = [part for part in got if "=" not in part]
    if "size=int" in got or positional == ["int", "int", "int"]:
        return "bare"
    if positional == ["int", "int"] and not any(part.startswith("size=") for part in got):
        return "two"
    return ""


_RANDINT_BARE = (
    "torch.randint got its size as a bare int: the size must be a tuple, (batch_size,) "
    "(unlike torch.randperm(n) or torch.zeros(n), torch.randint takes no int for its "
    "size). Draw the starts with torch.randint(low, high, (batch_size,), "
    "generator=generator)."
)
_RANDINT_TWO = (
    "torch.randint got two ints and no tuple: either the size is missing, "
    "torch.randint(low, high), or it went in as a bare int, torch.randint(high, "
    "batch_size). The size must be a tuple, (batch_size,): torch.randint(low, high, "
    "(batch_size,), generator=generator)."
)

#: torch.randint's size given as a bare int (or left out), e.g. randint(low, high, n)
RANDINT_SIZE_INT = (
    lambda exc: bool(_randint_size(exc)),
    lambda exc: _RANDINT_BARE if _randint_size(exc) == "bare" else _RANDINT_TWO,
)


def expect_parameters_not_buffers(c: Any, module: nn.Module, reference: nn.Module, built: str):
    """The reference's parameters are parameters in the learner's module too, not buffers
    of the same names (b14b: register_buffer("weight", torch.ones(d_model)) has the
    state-dict key and the values, and was told "cut off from the module's parameters ...
    or a buffer" among four causes). Read from named_buffers, so it names the buffer."""
    buffers = {name for name, _ in module.named_buffers()}
    wrong = sorted(name for name, _ in reference.named_parameters() if name in buffers)
    c.expect_true(
        not wrong,
        f"{built}: {', '.join(wrong)} is registered as a buffer (register_buffer), not as an "
        "nn.Parameter: the state dict holds it, but it is not among module.parameters(), "
        "gets no gradient and is never trained. Make it a parameter: self.weight = "
        "nn.Parameter(torch.ones(d_model)).",
    )


def persistent_buffers(module: nn.Module, expected: Any, built: str) -> str:
    """For a module whose state dict has keys beyond ``expected`` (and lacks none): when
    every extra key is a buffer, that they are persistent buffers (b14b: RoPE tables
    precomputed with register_buffer's default persistent=True were told "the submodules
    must be called exactly so"); "" otherwise."""
    try:
        found = set(module.state_dict())
    except Exception:  # told by the state-dict check
        return ""
    extra = sorted(found - set(expected))
    buffers = {name for name, _ in module.named_buffers()}
    if not extra or set(expected) - found or not set(extra) <= buffers:
        return ""
    return (
        f"{built}'s state dict has the extra entries {extra}, which are buffers registered "
        "with register_buffer's default persistent=True (precomputed tensors, such as RoPE's "
        "cos and sin tables or a causal mask). They are not weights: they are computed from the "
        "arguments, and a checkpoint with the contract's keys lacks them "
        "(load_state_dict(strict=True) refuses it). Register them with persistent=False, "
        "self.register_buffer('cos', cos, persistent=False), or compute them in forward."
    )


def expect_no_persistent_buffers(c: Any, cls: Any, args: tuple, reference: nn.Module, name: str):
    """Before the state-dict keys are compared: extra keys that are persistent buffers."""
    try:
        module = cls(*args)
    except Exception:  # build() says what went wrong
        return
    if isinstance(module, nn.Module):
        told = persistent_buffers(module, reference.state_dict(), _built(name, args))
        c.expect_true(not told, told)


def expect_weights_kept(
    c: Any, module: nn.Module, state: Any, what: str, looked_up: Any = None
) -> None:
    """After a call: the module still holds the weights loaded into it (b14b:
    nn.init.normal_(self.embedding.weight, ...) at the start of forward got "differs from
    the reference" alone). Read from its state dict; a key it lacks is told elsewhere.
    ``looked_up``: {key of an embedding table: the ids the call looked up}, to name a
    max_norm's renormalisation of the rows read (parameters_kept.renormalised_rows)."""
    try:
        now = module.state_dict()
    except Exception:  # told by the state-dict checks
        return
    changed = [
        key
        for key, tensor in state.items()
        if isinstance(now.get(key), torch.Tensor)
        and now[key].shape == tensor.shape
        and not torch.equal(now[key].detach().cpu().to(tensor.dtype), tensor)
    ]
    for key, ids in (looked_up or {}).items():
        if changed != [key]:
            break
        limit = renormalised_rows(state[key], now[key].detach().cpu(), ids)
        if limit is not None:
            c.fail(
                f"{what} changed the module's weights: after the call, the rows of {key} "
                f"that the ids looked up and whose norm was above {limit:.4g}, and only "
                f"those, are rescaled to norm {limit:.4g}; every other row is as loaded. "
                f"That is nn.Embedding(..., max_norm={limit:.4g}) (or a renormalisation of "
                "the looked-up rows written by hand, in place): every lookup renormalises "
                "the rows it reads, in place, so the weights change on every call, a trained "
                "or loaded model is overwritten, and the tied output layer computes with the "
                "shrunken rows. This model's embedding has no cap: nn.Embedding(vocab_size, "
                "d_model), its rows used as they are."
            )
    c.expect_true(
        not changed,
        f"{what} changed the module's weights: after the call, {', '.join(changed[:4])} "
        f"{'is' if len(changed) == 1 else 'are'} no longer what was loaded into it before. "
        "Your forward re-initialises (or otherwise writes) them on every call (an nn.init "
        "call, or a .data or in-place update, in forward): each call redraws them, so two "
        "calls on the same input differ, and weights that were trained or loaded are "
        "overwritten. Initialise the weights once, in __init__; forward only reads them.",
    )


def expect_layers_in_init(
    c: Any, cls: Any, args: tuple, x: torch.Tensor, reference: nn.Module, name: str
) -> None:
    """Before the state-dict keys are compared: keys a fresh module lacks that appear
    once it has been called, i.e. layers (or weights) built in forward (b14b:
    self.w1 = nn.Linear(...) in forward was told "the submodules must be called exactly
    so", as if misnamed). A probe on a module of its own; errors are told by build()."""
    try:
        module = cls(*args)
        missing = set(reference.state_dict()) - set(module.state_dict())
        if not missing:
            return
        with torch.no_grad():
            module(x.clone())
        appeared = sorted(missing & set(module.state_dict()))
    except Exception:  # build() and the calls say what went wrong
        return
    c.expect_true(
        not appeared,
        f"{_built(name, args)}: a fresh module lacks the state-dict keys {appeared}, which appear "
        "only once it has been called: your forward creates them (self.w1 = nn.Linear(...) "
        "in forward, or on the first call). A fresh module then has nothing to load or "
        "train (an optimiser made from its parameters() never sees them), and layers created "
        "on every call are new random ones each time. Build every layer once, in __init__; "
        "forward only calls them.",
    )
