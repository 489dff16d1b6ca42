"""A module call that changes the module's settings, and dropout that never acts in training.

A forward computes with a module's settings and leaves them as they are: a dropout rate, a
norm's eps, the train/eval flag of each submodule. A forward that switches dropout off for
evaluation by writing ``self.dropout.p = 0.0`` (or that calls ``self.dropout.eval()``)
gives the right output on that call, and a module that no longer drops in training on
every later call: a check that builds a fresh module per case sees nothing wrong
(blind17d-mha-eval-zeroes-dropout-rate passed every check). PyTorch's own layers read the
mode on each call, so no condition is needed at all.

Only the settings of PyTorch's own layers (``torch.nn``'s classes: their plain attributes
such as ``p``, ``eps``, ``inplace``) and every submodule's ``training`` flag are compared:
a learner's own class may keep a counter that a call legitimately advances (a cache's
length).

``NEVER_IN_TRAINING`` names the two ways a dropout that acts in neither mode is written:
an output equal, in train mode with dropout=1.0, to the eval-mode one cannot tell them
apart, because ``nn.Dropout`` does nothing in eval mode, so a dropout called only when
``not self.training`` never acts at all (blind17f-pem-dropout-only-in-eval,
blind17g-ffn-dropout-only-in-eval were told only that it is missing).
"""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "NEVER_IN_TRAINING",
    "changed_settings_message",
    "differing_settings",
    "setting_at",
    "settings_snapshot",
    "wrong_setting_note",
]

NEVER_IN_TRAINING = (
    "Either the dropout is left out, or it is called only when the module is not training "
    "(a condition the wrong way round, `if not self.training:`): nn.Dropout already does "
    "nothing in eval mode, so that dropout never acts. Call it with no condition; it follows "
    "train()/eval() by itself."
)

_PLAIN = (bool, int, float, str, type(None))


def _settings(module: Any) -> dict[str, Any]:
    """``name.attribute -> value`` for every submodule's training flag and the plain
    attributes of PyTorch's own layers among them."""
    settings: dict[str, Any] = {}
    for name, sub in module.named_modules():
        prefix = f"{name}." if name else ""
        settings[f"{prefix}training"] = sub.training
        settings[f"{prefix}__class__"] = type(sub).__name__
        if not type(sub).__module__.startswith("torch.nn."):
            continue
        for attribute, value in vars(sub).items():
            if attribute.startswith("_") or attribute == "training":
                continue
            if isinstance(value, _PLAIN) or (
                isinstance(value, tuple) and all(isinstance(v, _PLAIN) for v in value)
            ):
                settings[f"{prefix}{attribute}"] = value
    return settings


def settings_snapshot(fn: Any) -> dict[str, Any] | None:
    """The settings of ``fn`` when it is an nn.Module; None otherwise."""
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(fn, torch.nn.Module):
        return None
    try:
        return _settings(fn)
    except Exception:  # a module whose submodules cannot be listed: told elsewhere
        return None


def changed_settings_message(fn: Any, before: dict[str, Any], call_repr: str) -> str:
    """The failure for settings that ``fn``'s call changed; "" when none changed."""
    try:
        now = _settings(fn)
    except Exception:
        return ""
    changed = [
        name
        for name, old in before.items()
        if name in now and now[name] is not old and now[name] != old
    ]
    if not changed:
        return ""
    replaced = [name for name in changed if name.endswith("__class__")]
    name = (replaced or changed)[0]
    others = f" (and {len(changed) - 1} more)" if len(changed) > 1 else ""
    said = f"{name} from {before[name]!r} to {now[name]!r}{others}"
    if name.endswith("__class__"):
        where = name.removesuffix(".__class__") or "the module"
        return (
            f"`{call_repr}` replaced its submodule {where} (a {before[name]}) with a "
            f"{now[name]}, for good: every later call uses the replacement, in training too. "
            "forward must leave the module's layers as __init__ built them; nn.Dropout "
            "already does nothing in eval mode."
        )
    if name.endswith("training"):
        return (
            f"`{call_repr}` switched {said}: forward must not change a module's mode. The "
            "caller sets it with model.train() / model.eval(), and every later call runs in "
            "the mode the caller chose; nn.Dropout and the other layers read the mode on each "
            "call, so forward needs no condition on it."
        )
    if name.split(".")[-1] == "p":
        return (
            f"`{call_repr}` changed {said}, for good: after this call the module drops "
            "with that rate in every later call, in training too. Dropout is switched off in "
            "eval mode by the mode alone: nn.Dropout does nothing after model.eval() and "
            "drops again after model.train(), so forward calls self.dropout(...) with no "
            "condition and never writes its rate."
        )
    return (
        f"`{call_repr}` changed the module's setting {said}: forward must compute with its "
        "layers' settings and leave them as they were, or every later call computes "
        "something else."
    )


def differing_settings(module: Any, reference: Any) -> list[tuple[str, Any, Any]]:
    """``(name.attribute, learner's value, reference's value)`` for every plain setting
    (an int, float or bool attribute, such as ``num_heads``, ``d_k``, ``p``, ``eps``) that
    a submodule of ``module`` and the reference's submodule of the same name both hold,
    and that differs: a module built with another argument than the one it was given
    (blind19c-enc-head-size-in-num-heads-slot: EncoderLayer(d_model, d_model //
    num_heads, ...) was told to check its masks). [] when the modules cannot be listed."""
    try:
        twins = dict(reference.named_modules())
        mine = list(module.named_modules())
    except Exception:  # not an nn.Module, or one whose submodules cannot be listed
        return []
    found = []
    for name, sub in mine:
        twin = twins.get(name)
        if twin is None:
            continue
        held = vars(sub)
        for attribute, want in vars(twin).items():
            if attribute.startswith("_") or attribute == "training":
                continue
            if type(want) not in (int, float, bool) or type(held.get(attribute)) is not type(want):
                continue
            if held[attribute] != want:
                found.append((f"{name}.{attribute}" if name else attribute, held[attribute], want))
    return found


def setting_at(module: Any, path: str) -> Any:
    """The value of ``name.attribute`` on ``module``; None when it is not there."""
    name, _, attribute = path.rpartition(".")
    try:
        return vars(module.get_submodule(name) if name else module).get(attribute)
    except Exception:  # a module without that submodule
        return None


def wrong_setting_note(
    module: Any,
    reference: Any,
    construct: Any,
    sizes: Sequence[Mapping[str, int]],
    signature: str,
) -> str:
    """The first setting of ``module`` that differs from the same-named one of
    ``reference`` (built with the same arguments), said with the argument it came from
    when the learner's class, built again by ``construct(sizes[i])`` for the other
    argument sets, holds a value that one expression of the arguments gives every time
    (checking.size_sources); "" when no setting differs. ``signature``: how the submodule
    is built, for the fix."""
    from transformer_course.checking.size_sources import size_source_note

    differing = differing_settings(module, reference)
    if not differing:
        return ""
    path, got, want = differing[0]
    everywhere = [p for p, g, w in differing if p.split(".")[-1] == path.split(".")[-1]]
    where = f"`{path}`" + (
        f" (and {len(everywhere) - 1} more alike)" if len(everywhere) > 1 else ""
    )
    said = (
        f"{where} is {got} where the reference built with the same arguments has {want}: "
        "a submodule is built with another value than the one the arguments give."
    )
    observed = [got]
    for other in sizes[1:]:
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                observed.append(setting_at(construct(other), path))
        except Exception:  # the learner's constructor on other arguments: no note
            break
    attribute = path.split(".")[-1]
    named = ""
    if len(observed) == len(sizes) and all(isinstance(v, int) for v in observed):
        named = size_source_note(
            observed,
            sizes,
            f" Its value {got}",
            attribute,
            "",
            exclude=(attribute,),
        )
    return " ".join(part for part in (said, named, f"Build it as {signature}.") if part)
