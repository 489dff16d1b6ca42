"""Stand-ins, in the grader's process, for the learner's objects in the sandbox.

A check receives these instead of the learner's function or class, and calls them
through ``Checker.call`` exactly as it would call the real thing:

* :class:`FunctionProxy`: calling it sends the (encoded) arguments to the sandbox
  and returns the decoded result, or raises an exception *of the same kind* as the
  learner's code raised (a ``NotImplementedError`` stays one, so the "not
  implemented yet" message appears), with the learner's message and a traceback
  made only of the learner's own frames.
* :class:`ClassProxy`: calling it constructs the object in the sandbox. A module
  comes back as a :class:`ModuleProxy`, a real ``torch.nn.Module`` subclass named
  like the learner's class, whose ``__call__``, ``forward``, ``state_dict``,
  ``load_state_dict``, ``train``, ``eval`` and ``.training`` (and the methods the
  registry lists for the exercise) act on the object in the sandbox.
* anything else the codec cannot carry becomes an inert object whose class is
  named like the learner's type (a check then reports "it is a generator").

Course objects (:mod:`transformer_course.checking.objects`) travel the other way by
recipe, and what the learner's code did to them is copied back afterwards.
"""

from __future__ import annotations

import builtins
import inspect
import linecache
import types
import warnings
from typing import Any

import torch
from torch import nn

from transformer_course.checking.objects import ParametersOf, recipe_of
from transformer_course.grader import codec
from transformer_course.grader.inside.allowlist import importable

__all__ = [
    "ClassProxy",
    "FunctionProxy",
    "ModuleProxy",
    "Remote",
    "apply_course_state",
    "apply_mutation",
    "encode_course_object",
    "rebuild_exception",
]


class Remote:
    """Marks a proxy: it stands for handle ``_handle`` of a session's sandbox."""


def _signature(params: Any) -> inspect.Signature | None:
    if not isinstance(params, list):
        return None
    built = []
    try:
        for name, kind, has_default, text in params:
            default = _Default(str(text)) if has_default else inspect.Parameter.empty
            built.append(
                inspect.Parameter(str(name), inspect._ParameterKind(int(kind)), default=default)
            )
        return inspect.Signature(built)
    except (TypeError, ValueError):
        return None


class _Default:
    """A default value of the learner's signature, shown by its repr only."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


class FunctionProxy(Remote):
    def __init__(self, session, description: dict):
        self._session = session
        self._handle = description["id"]
        self._generation = session.generation
        name = description.get("name") or description.get("type") or "function"
        self.__name__ = self.__qualname__ = codec.safe_name(name, "function")
        self.__signature__ = _signature(description.get("sig"))
        self.__doc__ = None
        self._type = description.get("type", "function")

    def __call__(self, *args, **kwargs):
        return self._session.call(self, None, args, kwargs)

    def gradients_of_call(self, args: tuple, upstream: Any, wrt: str = "arguments"):
        """The call ``self(*args)`` made in the sandbox, and the gradients of
        ``Σ result · upstream`` taken there (:mod:`.inside.gradients`), where autograd's
        graph is: what :func:`transformer_course.checking.graph.call_gradients` takes in the
        notebook's process."""
        return self._session.call(self, None, args, {}, gradients=(wrt, upstream))

    def __repr__(self) -> str:
        return f"<your {self._type} {self.__name__}>"


class ClassProxy(FunctionProxy):
    """The learner's class; calling it constructs an instance in the sandbox."""

    def __init__(self, session, description: dict):
        super().__init__(session, description)
        self._module_class = bool(description.get("modclass"))

    def __repr__(self) -> str:
        return f"<your class {self.__name__}>"


class ModuleProxy(nn.Module, Remote):
    """A learner's ``nn.Module`` instance, driven in the sandbox."""

    _proxy_methods: tuple[str, ...] = ()

    def __init__(self, session, description: dict):
        super().__init__()
        object.__setattr__(self, "_session", session)
        object.__setattr__(self, "_handle", description["id"])
        object.__setattr__(self, "_generation", session.generation)
        signature = _signature(description.get("fsig"))

        def forward(*args, **kwargs):
            return session.call(self, "forward", args, kwargs)

        forward.__name__ = forward.__qualname__ = "forward"
        if signature is not None:
            forward.__signature__ = signature
        object.__setattr__(self, "forward", forward)

    # nn.Module sets self.training in __init__; here it lives in the sandbox
    @property
    def training(self) -> bool:
        if "_session" not in self.__dict__:
            return True
        return bool(self._session.get_attribute(self, "training"))

    @training.setter
    def training(self, value: bool) -> None:
        if "_session" in self.__dict__:
            self._session.call(self, "__setattr__", ("training", bool(value)), {})

    def __call__(self, *args, **kwargs):
        return self._session.call(self, "__call__", args, kwargs)

    def state_dict(self, *args, **kwargs):
        return self._session.call(self, "state_dict", args, kwargs)

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        return self._session.call(
            self,
            "load_state_dict",
            (dict(state_dict),),
            {"strict": strict, "assign": assign} if assign else {"strict": strict},
        )

    def train(self, mode: bool = True):
        self._session.call(self, "train", (mode,), {})
        return self

    def eval(self):
        self._session.call(self, "eval", (), {})
        return self

    def _chain(self, name: str, *args, **kwargs):
        self._session.call(self, name, args, kwargs)
        return self

    def to(self, *args, **kwargs):
        return self._chain("to", *args, **kwargs)

    def double(self):
        return self._chain("double")

    def float(self):
        return self._chain("float")

    def half(self):
        return self._chain("half")

    def cpu(self):
        return self._chain("cpu")

    def requires_grad_(self, requires_grad: bool = True):
        return self._chain("requires_grad_", requires_grad)

    def zero_grad(self, set_to_none: bool = True):
        self._session.call(self, "zero_grad", (), {"set_to_none": set_to_none})

    def gradients_of_call(self, args: tuple, upstream: Any, wrt: str = "arguments"):
        """As :meth:`FunctionProxy.gradients_of_call`, for the module's call (``wrt``:
        ``"arguments"`` or ``"parameters"``, the module's trainable ones by name)."""
        return self._session.call(self, "__call__", args, {}, gradients=(wrt, upstream))

    def _listing(self, name: str, *args, **kwargs):
        return self._session.call(self, name, args, kwargs, listify=True)

    def parameters(self, recurse: bool = True):
        return iter(self._listing("parameters", recurse))

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ):
        return iter(self._listing("named_parameters", prefix, recurse, remove_duplicate))

    def buffers(self, recurse: bool = True):
        return iter(self._listing("buffers", recurse))

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        return iter(self._listing("named_buffers", prefix, recurse, remove_duplicate))

    def children(self):
        return iter(self._listing("children"))

    def named_children(self):
        return iter(self._listing("named_children"))

    def modules(self):
        return iter(self._listing("modules"))

    def named_modules(self, memo=None, prefix: str = "", remove_duplicate: bool = True):
        return iter(self._listing("named_modules"))

    def extra_repr(self) -> str:
        return "(in the sandbox)"


_module_classes: dict[tuple[str, tuple[str, ...]], type] = {}


def module_proxy_class(name: str, methods: tuple[str, ...]) -> type:
    """A ModuleProxy subclass named like the learner's class, with the registry's methods."""
    key = (codec.safe_name(name, "Module"), tuple(methods))
    cls = _module_classes.get(key)
    if cls is None:
        namespace: dict[str, Any] = {"_proxy_methods": tuple(methods), "__module__": "learner"}
        for method in methods:
            if not codec._IDENTIFIER.match(method) or method.startswith("_"):
                continue

            def forwarder(self, *args, _method=method, **kwargs):
                return self._session.call(self, _method, args, kwargs)

            forwarder.__name__ = forwarder.__qualname__ = method
            namespace[method] = forwarder
        cls = type(key[0], (ModuleProxy,), namespace)
        _module_classes[key] = cls
    return cls


# ------------------------------------------------------------------------ exceptions
_exception_classes: dict[tuple[str, str], type] = {}


def _exception_class(name: str, bases: list[str]) -> type:
    base: type = Exception
    for candidate in bases:
        cls = getattr(builtins, candidate, None)
        if isinstance(cls, type) and issubclass(cls, Exception):
            base = cls
            break
    name = codec.safe_name(name, "Exception")
    key = (name, base.__name__)
    cls = _exception_classes.get(key)
    if cls is None:

        def __str__(self) -> str:
            return self.args[0] if self.args and isinstance(self.args[0], str) else ""

        def init(self, message: str = "") -> None:
            Exception.__init__(self, message)

        namespace = {
            "__str__": __str__,
            "__init__": init,
            "__module__": "builtins",
            "__doc__": "An exception raised by the learner's code in the sandbox.",
        }
        try:
            cls = type(name, (base,), namespace)
        except TypeError:
            cls = type(name, (Exception,), namespace)
        _exception_classes[key] = cls
    return cls


_RAISE = compile("def f():\n    raise __exc__\n", "<learner>", "exec").co_consts[0]
_CALL = compile("def f():\n    __inner__()\n", "<learner>", "exec").co_consts[0]


def _register_line(filename: str, lineno: int, line: str) -> None:
    _size, _mtime, lines, _fullname = linecache.cache.get(filename, (0, None, [], filename))
    lines = list(lines)
    while len(lines) < lineno:
        lines.append("\n")
    if lineno >= 1:
        lines[lineno - 1] = line.rstrip("\n") + "\n"
    linecache.cache[filename] = (len("".join(lines)), None, lines, filename)


def rebuild_exception(description: Any) -> Exception:
    """An exception in the grader that reads like the learner's: same kind, same message,
    and a traceback of the learner's own frames only."""
    if not isinstance(description, dict):
        description = {}
    message = description.get("message")
    message = message if isinstance(message, str) else ""
    bases = description.get("bases") if isinstance(description.get("bases"), list) else []
    cls = _exception_class(str(description.get("type", "Exception")), [str(b) for b in bases])
    exc = cls(message)
    frames = description.get("frames")
    if not isinstance(frames, list) or not frames:
        return exc
    inner = None
    try:
        for frame in reversed(frames[-10:]):
            filename, lineno, name, line = frame
            filename = str(filename)[:200]
            lineno = max(int(lineno), 1)
            template = _RAISE if inner is None else _CALL
            label = str(name)[:100] or "<module>"
            code = template.replace(
                co_filename=filename, co_name=label, co_qualname=label, co_firstlineno=lineno - 1
            )
            _register_line(filename, lineno, str(line))
            inner = types.FunctionType(
                code, {"__exc__": exc, "__inner__": inner, "__builtins__": {}}
            )
        inner()
    except cls as raised:
        return raised
    except Exception:  # pragma: no cover - a malformed frame list: no traceback then
        return exc
    return exc  # pragma: no cover


def reissue_warnings(caught: Any) -> None:
    """Re-issue the learner's warnings here, so ``Checker.call`` shows them as notes."""
    if not isinstance(caught, list):
        return
    for item in caught[:20]:
        try:
            name, bases, message = item
        except (TypeError, ValueError):
            continue
        base: type = UserWarning
        for candidate in bases if isinstance(bases, list) else []:
            cls = getattr(builtins, str(candidate), None)
            if isinstance(cls, type) and issubclass(cls, Warning):
                base = cls
                break
        category = _warning_class(codec.safe_name(str(name), "UserWarning"), base)
        warnings.warn_explicit(str(message), category, "<your code>", 0)


_warning_classes: dict[tuple[str, type], type] = {}


def _warning_class(name: str, base: type) -> type:
    key = (name, base)
    if key not in _warning_classes:
        _warning_classes[key] = base if base.__name__ == name else type(name, (base,), {})
    return _warning_classes[key]


# --------------------------------------------------------------------- course objects
def encode_course_object(obj: Any, encoder: codec.Encoder) -> Any:
    """Encoder extension (grader side): course objects by recipe, ParametersOf."""
    if isinstance(obj, ParametersOf):
        return ["PO", encoder.encode(obj.module)]
    recipe = recipe_of(obj)
    if recipe is None:
        if isinstance(obj, nn.Module | torch.optim.Optimizer):
            raise codec.CodecError(
                f"the check passed a {type(obj).__name__} that is not a course object: make it "
                "with transformer_course.checking.objects.course_object so that the sandboxed "
                "grader can rebuild it"
            )
        return NotImplemented
    index = encoder.remember(obj)
    meta: dict[str, Any] = {
        "factory": recipe.factory,
        "shipped": None
        if importable(recipe.factory.partition(":")[0])
        else ship(_resolve_factory(recipe.factory), encoder),
        "args": encoder.encode(list(recipe.args)),
        "kwargs": encoder.encode(dict(recipe.kwargs)),
        "partial": recipe.partial,
        "state": None,
        "modes": None,
    }
    if not recipe.partial and hasattr(obj, "state_dict") and hasattr(obj, "load_state_dict"):
        meta["state"] = encoder.encode(dict(obj.state_dict()))
    if isinstance(obj, nn.Module):
        meta["modes"] = encoder.encode([[name, m.training] for name, m in obj.named_modules()])
    return ["O", meta, index]


def _resolve_factory(dotted: str) -> Any:
    import importlib

    module, _, qualname = dotted.partition(":")
    obj: Any = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def ship(obj: Any, encoder: codec.Encoder, depth: int = 0) -> dict:
    """A course-object factory the sandbox cannot import (a function or class of a checks
    module) as its own source, with the globals that source uses: modules by name,
    constants as data, and other such functions shipped the same way. Only this code
    travels, never the rest of its module (the hidden tests' inputs stay here)."""
    import ast
    import sys
    import textwrap

    if depth > 5:
        raise codec.CodecError("course-object factories nest too deeply to be sent")
    try:
        source = textwrap.dedent(inspect.getsource(obj))
    except (OSError, TypeError) as exc:
        raise codec.CodecError(f"the source of {obj!r} is not available: {exc}") from None
    module = sys.modules.get(getattr(obj, "__module__", ""), None)
    names = {node.id for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Name)}
    shipped: dict[str, list] = {}
    for name in sorted(names):
        if name == obj.__name__ or module is None or not hasattr(module, name):
            continue  # a local name, or a builtin
        value = getattr(module, name)
        if isinstance(value, types.ModuleType):
            if not importable(value.__name__):
                raise codec.CodecError(f"{obj.__qualname__} uses the module {value.__name__}")
            shipped[name] = ["module", value.__name__]
        elif callable(value) and importable(getattr(value, "__module__", "") or ""):
            shipped[name] = ["import", f"{value.__module__}:{value.__qualname__}"]
        elif callable(value):
            shipped[name] = ["source", ship(value, encoder, depth + 1)]
        else:  # a constant: sent as data
            shipped[name] = ["value", encoder.encode(value)]
    return {"name": obj.__name__, "source": source, "globals": shipped}


class CopyBackError(RuntimeError):
    """What the learner's code left in a course object could not be read back."""


def apply_course_state(obj: Any, state: dict, decoder: codec.Decoder) -> None:
    """Copy what the learner's code did to a course object into the local one."""
    if not isinstance(state, dict):
        raise CopyBackError("the sandbox sent no state for a course object")
    if "fail" in state:
        raise CopyBackError(
            f"after your code ran, the grader could not read back the {type(obj).__name__} it "
            f"was given: {state['fail']}"
        )
    if isinstance(obj, nn.Module):
        values = decoder.decode(state.get("state"))
        modes = dict(decoder.decode(state.get("modes")) or [])
        grads = dict(decoder.decode(state.get("grads")) or [])
        try:
            with torch.no_grad():
                obj.load_state_dict(values, strict=True)
        except (RuntimeError, TypeError, KeyError, ValueError) as exc:
            raise CopyBackError(
                f"after your code ran, the {type(obj).__name__}'s weights could not be read back: "
                f"{str(exc)[:300]}"
            ) from None
        for name, module in obj.named_modules():
            if name in modes:
                module.training = bool(modes[name])
        for name, param in obj.named_parameters():
            grad = grads.get(name)
            if grad is None:
                param.grad = None
            elif isinstance(grad, torch.Tensor) and grad.shape == param.shape:
                param.grad = grad.detach().to(param.dtype).clone()
            else:
                raise CopyBackError(f"the gradient of {name} came back with the wrong shape")
    elif state.get("state") is not None and hasattr(obj, "load_state_dict"):
        try:
            obj.load_state_dict(decoder.decode(state["state"]))
        except (RuntimeError, TypeError, KeyError, ValueError) as exc:
            raise CopyBackError(
                f"after your code ran, the {type(obj).__name__}'s state could not be read back: "
                f"{str(exc)[:300]}"
            ) from None


def apply_mutation(original: Any, new: Any) -> None:
    """The learner's code changed an argument in place: do the same to the local one, so
    that ``Checker.call`` notices, as it would in the notebook."""
    import numpy as np

    try:
        if isinstance(original, np.ndarray) and isinstance(new, np.ndarray):
            if original.shape == new.shape:
                original[...] = new.astype(original.dtype, copy=False)
            elif original.size == new.size:
                original.shape = new.shape
                original[...] = new
            else:
                original.resize(new.shape, refcheck=False)
                original[...] = new
        elif isinstance(original, torch.Tensor) and isinstance(new, torch.Tensor):
            with torch.no_grad():
                if original.shape == new.shape and original.dtype == new.dtype:
                    original.copy_(new)
                else:
                    original.data = new.detach().clone()
        elif isinstance(original, list) and isinstance(new, list):
            original[:] = new
        elif isinstance(original, dict) and isinstance(new, dict):
            original.clear()
            original.update(new)
        elif isinstance(original, set) and isinstance(new, set | frozenset):
            original.clear()
            original.update(new)
    except (ValueError, TypeError, RuntimeError):
        pass  # cannot be mirrored; the value the check compares is still the learner's result
