"""Values between the grader and the learner process: handles to the learner's objects
(described, never sent), course objects built from a recipe (models, optimizers, factories
shipped as source), and their state sent back after a call."""

from __future__ import annotations

import functools
import importlib
import inspect
import json
import linecache
import sys
from typing import Any

from transformer_course.grader import codec
from transformer_course.grader.inside.allowlist import importable
from transformer_course.grader.inside.importing import COURSE_FILE_PREFIX

__all__ = ["Values", "fingerprint", "is_mutable_data"]


class Values:
    """The server's handles and course objects."""

    handles: dict[int, Any]
    handle_ids: dict[int, int]
    next_id: int
    course_objects: dict[int, Any]

    def _encode_handle(self, obj: Any, encoder: codec.Encoder) -> list:
        key = id(obj)
        handle = self.handle_ids.get(key)
        if handle is None or self.handles.get(handle) is not obj:
            handle = self.next_id
            self.next_id += 1
            self.handles[handle] = obj
            self.handle_ids[key] = handle
        return ["H", self.describe(handle, obj)]

    def describe(self, handle: int, obj: Any) -> dict:
        def attempt(fn, default):
            try:
                return fn()
            except BaseException:
                return default

        torch = sys.modules.get("torch")
        is_class = isinstance(obj, type)
        module_class = bool(
            is_class
            and torch is not None
            and attempt(lambda: issubclass(obj, torch.nn.Module), False)
        )
        is_module = bool(
            torch is not None and attempt(lambda: isinstance(obj, torch.nn.Module), False)
        )
        name = attempt(lambda: obj.__name__, None)
        description = {
            "id": handle,
            "type": codec.safe_name(attempt(lambda: type(obj).__name__, "object")),
            "callable": bool(attempt(lambda: callable(obj), False)),
            "isclass": is_class,
            "modclass": module_class,
            "module": is_module,
            "name": name if isinstance(name, str) else None,
            "sig": attempt(lambda: _signature(obj), None),
        }
        if is_module:
            description["fsig"] = attempt(lambda: _signature(obj.forward), None)
            description["training"] = bool(attempt(lambda: obj.training, True))
        return description

    def _decode_extension(self, tag: str, node: list, decoder: codec.Decoder, depth: int):
        if tag == "P":
            handle = node[1]
            if type(handle) is not int or handle not in self.handles:
                raise codec.CodecError("a handle that does not exist")
            return self.handles[handle]
        if tag == "PO":
            module = decoder.decode(node[1], depth + 1)
            return module.parameters()
        if tag == "O":
            return self._build_course_object(node, decoder, depth)
        raise codec.CodecError(f"unexpected tag {tag!r}")

    def _build_course_object(self, node: list, decoder: codec.Decoder, depth: int):
        _, meta, index = node
        if meta.get("shipped") is not None:
            factory = self._load_shipped(meta["shipped"], decoder, depth)
        else:
            factory = _import_allowed(str(meta.get("factory")))
        args = decoder.decode(meta.get("args"), depth + 1)
        kwargs = decoder.decode(meta.get("kwargs"), depth + 1)
        if meta.get("partial"):
            obj = functools.partial(factory, *args, **kwargs)
        else:
            obj = factory(*args, **kwargs)
        decoder.memo[decoder._memo_index(index)] = obj
        state = meta.get("state")
        if state is not None:
            obj.load_state_dict(decoder.decode(state, depth + 1))
        modes = meta.get("modes")
        if modes is not None:
            flags = dict(decoder.decode(modes, depth + 1))
            for name, module in obj.named_modules():
                if name in flags:
                    module.training = bool(flags[name])
        self.course_objects[index] = obj
        return obj

    def _load_shipped(self, shipped: dict, decoder: codec.Decoder, depth: int) -> Any:
        """A factory the grader sent as source (it lives in a checks module, not here)."""
        import builtins

        if depth > 20 or not isinstance(shipped, dict):
            raise codec.CodecError("a malformed course-object factory")
        namespace: dict[str, Any] = {"__builtins__": builtins, "__name__": "course_objects"}
        for name, (kind, payload) in (shipped.get("globals") or {}).items():
            if kind == "module":
                namespace[name] = importlib.import_module(_allowed(str(payload)))
            elif kind == "value":
                namespace[name] = decoder.decode(payload, depth + 1)
            elif kind == "import":
                namespace[name] = _import_allowed(str(payload))
            elif kind == "source":
                namespace[name] = self._load_shipped(payload, decoder, depth + 1)
        name = str(shipped.get("name"))
        filename = f"{COURSE_FILE_PREFIX}{name}>"
        source = str(shipped.get("source"))
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        exec(compile(source, filename, "exec"), namespace)
        return namespace[name]

    def _course_state(self, obj: Any, encoder: codec.Encoder) -> dict:
        torch = sys.modules.get("torch")
        state: dict[str, Any] = {}
        try:
            if torch is not None and isinstance(obj, torch.nn.Module):
                state["state"] = encoder.encode_top(dict(obj.state_dict()))
                state["modes"] = encoder.encode_top(
                    [[name, bool(m.training)] for name, m in obj.named_modules()]
                )
                state["grads"] = encoder.encode_top(
                    [[name, p.grad] for name, p in obj.named_parameters()]
                )
            elif hasattr(obj, "state_dict") and hasattr(obj, "load_state_dict"):
                state["state"] = encoder.encode_top(obj.state_dict())
        except (codec.CodecError, Exception) as exc:
            state = {"fail": str(exc)[:500]}
        return state


def _signature(obj: Any) -> list | None:
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    params = []
    for param in signature.parameters.values():
        default = param.default
        has_default = default is not inspect.Parameter.empty
        text = ""
        if has_default:
            try:
                text = repr(default)[:60]
            except Exception:
                text = "..."
        params.append([param.name, int(param.kind), has_default, text])
    return params


def _allowed(module: str) -> str:
    if not importable(module):
        raise codec.CodecError(f"the module {module!r} is not available in the sandbox")
    return module


def _import_allowed(dotted: str) -> Any:
    module_name, _, qualname = dotted.partition(":")
    obj: Any = importlib.import_module(_allowed(module_name))
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def is_mutable_data(obj: Any) -> bool:
    import numpy as np

    torch = sys.modules.get("torch")
    if isinstance(obj, list | dict | set | np.ndarray):
        return True
    return torch is not None and isinstance(obj, torch.Tensor)


def fingerprint(obj: Any) -> bytes:
    import hashlib

    try:
        encoder = codec.Encoder()
        node = encoder.encode(obj)
        digest = hashlib.sha1(json.dumps(node, allow_nan=True).encode("utf-8", "surrogatepass"))
        for buffer in encoder.buffers:
            digest.update(buffer)
        return digest.digest()
    except Exception:
        return b""
