"""Objects that a check hands to the learner's code: models, optimizers, loss functions.

Most checks pass only data (arrays, tensors, numbers, strings, lists, dicts). Some
exercises take objects: ``greedy_decode(model, ...)`` needs a model,
``train_step(model, batch, optimizer, loss_fn)`` a model, an optimizer and a loss
function. A check creates such an object with :func:`course_object`, which also
records *how* it was made (a :class:`Recipe`: what to call, with which data).
In a notebook nothing changes: the object is an ordinary local object. The
sandboxed grader, which runs the learner's code in another process, sends the
recipe (and, for a module, its state dict and train/eval mode) instead of the
object, rebuilds it there, and after the call sends back what the learner's code
did to it (a module's new state dict, its mode, whether gradients are left), so
that the check reads the same local object either way.

Rules for check authors:

* the factory is importable by a dotted path: a class or function of ``torch``
  or of ``transformer_course.reference`` (an *earlier* lesson's, or this lesson's
  export cells), or a function defined at module level in a ``checks`` module;
* its arguments are data, or other course objects, or :class:`ParametersOf`;
* after the learner's call, read the object (``state_dict()``, ``.training``,
  parameters' ``.grad``), never its identity.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ParametersOf", "Recipe", "course_function", "course_object", "recipe_of"]

RECIPE_ATTRIBUTE = "_course_recipe"


@dataclass(frozen=True)
class ParametersOf:
    """Stands for ``module.parameters()`` of another course object (for optimizers)."""

    module: Any


@dataclass(frozen=True)
class Recipe:
    """How a course object was made: ``factory(*args, **kwargs)``, ``factory`` given as
    ``"package.module:qualname"``. ``partial`` marks a function bound with keyword
    arguments (``functools.partial(factory, **kwargs)``) rather than called."""

    factory: str
    args: tuple = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    partial: bool = False


def _dotted(factory: Callable) -> str:
    module = getattr(factory, "__module__", None)
    qualname = getattr(factory, "__qualname__", None)
    if not module or not qualname or "<locals>" in qualname or "<lambda>" in qualname:
        raise ValueError(
            f"{factory!r} cannot be a course object factory: use a class or a module-level "
            "function that can be imported by name"
        )
    return f"{module}:{qualname}"


def _resolve(value: Any) -> Any:
    if isinstance(value, ParametersOf):
        return value.module.parameters()
    return value


def course_object(factory: Callable, *args: Any, **kwargs: Any) -> Any:
    """``factory(*args, **kwargs)``, remembered as a :class:`Recipe` on the result."""
    obj = factory(*(_resolve(a) for a in args), **{k: _resolve(v) for k, v in kwargs.items()})
    object.__setattr__(obj, RECIPE_ATTRIBUTE, Recipe(_dotted(factory), args, dict(kwargs)))
    return obj


def course_function(function: Callable, **kwargs: Any) -> Callable:
    """``functools.partial(function, **kwargs)`` as a course object (a loss function, say)."""
    bound = functools.partial(function, **kwargs)
    bound.__dict__[RECIPE_ATTRIBUTE] = Recipe(_dotted(function), (), dict(kwargs), partial=True)
    return bound


def recipe_of(obj: Any) -> Recipe | None:
    """The recipe of a course object, or None for anything else."""
    return getattr(obj, RECIPE_ATTRIBUTE, None)
