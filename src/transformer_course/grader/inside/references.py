"""The current lesson's reference in the learner process: a stand-in for each exercise's
reference until the grader releases it (after that exercise's verdict), a call of a stand-in
sent to the grader to run on its side, and the release of each piece."""

from __future__ import annotations

import importlib
import linecache
import sys
import types
from typing import Any

from transformer_course.grader import codec
from transformer_course.grader.inside.frames import cell_of, is_learner_file
from transformer_course.grader.inside.importing import COURSE_FILE_PREFIX

__all__ = ["GraderError", "References"]


class GraderError(Exception):
    """Raised in the sandbox when the grader answered a callback with an error."""


class References:
    """The server's handling of the lesson's reference (its ``callback`` asks the grader)."""

    scratch: str
    exercise: str | None
    guarded_name: str | None
    guarded_module: types.ModuleType | None
    guarded_spec: dict
    released: dict[str, Any]
    stubs: dict[str, Any]
    release_error: str
    watch_reported: set[str]

    def fill_guarded(self, module: types.ModuleType) -> None:
        """The current lesson's reference module: export cells, and a stand-in for each
        exercise until the grader releases it (after that exercise has been graded)."""
        self.guarded_module = module
        spec = self.guarded_spec
        module.__file__ = f"{COURSE_FILE_PREFIX}{module.__name__}>"
        for name, kind in (spec.get("names") or {}).items():
            stub = self._make_stub(name, kind)
            self.stubs[name] = stub
            module.__dict__[name] = stub
        base = spec.get("base") or ""
        filename = f"{COURSE_FILE_PREFIX}{module.__name__}>"
        linecache.cache[filename] = (len(base), None, base.splitlines(True), filename)
        import ast

        try:
            tree = ast.parse(base)
        except SyntaxError:
            return
        for node in tree.body:
            piece = ast.Module(body=[node], type_ignores=[])
            try:
                exec(compile(piece, filename, "exec"), module.__dict__)
            except Exception:
                pass

    def _make_stub(self, name: str, kind: str):
        server = self

        if kind == "class":

            class Unavailable:
                def __new__(cls, *args, **kwargs):
                    real = server.released.get(name)
                    if real is None and server.record_reference(name):
                        real = server.released.get(name)  # a given cell may use it early
                    if real is not None:
                        return real(*args, **kwargs)
                    raise RuntimeError(
                        f"The course's reference {name} is not available while {name} is "
                        "graded: use your own code."
                    )

            Unavailable.__name__ = Unavailable.__qualname__ = name
            return Unavailable

        def reference(*args, **kwargs):
            real = server.released.get(name)
            if real is not None:
                return real(*args, **kwargs)
            return server.call_reference(name, args, kwargs)

        reference.__name__ = reference.__qualname__ = name
        return reference

    def origin(self) -> int | None:
        """The notebook cell whose code made the current call (None: not a cell)."""
        frame = sys._getframe(2)
        while frame is not None:
            filename = frame.f_code.co_filename
            cell = cell_of(filename)
            if cell is not None:
                return cell
            if is_learner_file(filename, self.scratch):
                return None
            frame = frame.f_back
        return None

    def record_reference(self, name: str) -> bool:
        """Tell the grader the reference class ``name`` is wanted before it was released;
        True when the grader released it (for a given cell of the lesson, outside checks)."""
        header = {"op": "ref", "name": name, "origin": self.origin(), "probe": True}
        reply, _ = self.callback(header, [])
        source = reply.get("source")
        if reply.get("release") is True and isinstance(source, str):
            return self._release(name, source, watch=True)
        return False

    def call_reference(self, name: str, args: tuple, kwargs: dict):
        encoder = codec.Encoder(fallback=self._encode_handle)
        header = {
            "op": "ref",
            "name": name,
            "origin": self.origin(),
            "args": encoder.encode(list(args)),
            "kwargs": encoder.encode(dict(kwargs)),
        }
        reply, buffers = self.callback(header, encoder.buffers)
        if "error" in reply:
            raise GraderError(str(reply["error"])[:2000])
        decoder = codec.Decoder(buffers, extension=self._decode_extension)
        return decoder.decode(reply.get("value"))

    def op_release(self, header: dict, buffers) -> tuple[dict, list]:
        name, source = header.get("name"), header.get("source")
        if not isinstance(name, str) or name in self.released:
            return {"ok": name in self.released}, []
        if not isinstance(source, str):
            raise codec.CodecError("a malformed release request")
        if self._release(name, source):
            return {"ok": True}, []
        return {"ok": False, "error": self.release_error}, []

    def _release(self, name: str, source: str, watch: bool = False) -> bool:
        """Run the reference's code for one exercise (``source``, sent by the grader) in the
        guarded module. ``watch``: it is released before its exercise is graded (for the
        lesson's own demo cells), so its methods tell the grader when they run during a
        check, and the grader zeroes the exercise if they run while it is checked."""
        self.release_error = ""
        module = self.guarded_module
        if module is None:
            module = importlib.import_module(self.guarded_name)
        filename = f"{COURSE_FILE_PREFIX}{self.guarded_name}:{name}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        namespace = module.__dict__
        stub = namespace.get(name)
        try:
            exec(compile(source, filename, "exec"), namespace)
        except Exception as exc:
            self.release_error = f"{type(exc).__name__}: {exc}"[:500]
            return False
        real = namespace.get(name)
        if real is None or real is stub:
            return False
        if watch and isinstance(real, type):
            self._watch_class(real, name)
        self.released[name] = real
        return True

    def _watch_class(self, cls: type, name: str) -> None:
        server = self

        for attr in ("__init__", "forward", "__call__"):
            original = cls.__dict__.get(attr)
            if not callable(original):
                continue

            def watched(*args, _original=original, **kwargs):
                if server.exercise is not None and name not in server.watch_reported:
                    server.watch_reported.add(name)  # once per call the grader asked for
                    server.callback({"op": "ref", "name": name, "watched": True}, [])
                return _original(*args, **kwargs)

            watched.__name__ = attr
            setattr(cls, attr, watched)
