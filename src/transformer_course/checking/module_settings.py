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

import sys
from typing import Any

__all__ = ["NEVER_IN_TRAINING", "changed_settings_message", "settings_snapshot"]

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
