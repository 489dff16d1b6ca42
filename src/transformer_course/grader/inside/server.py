"""The request server in the learner process: run a cell, look up a name, call a function
or a method for the grader's checks, and take in each piece of this lesson's reference
when the grader releases it.

It gives the learner's code the same world as a notebook kernel (an IPython shell,
cells run in order, errors do not stop the notebook); everything it sends back is
decoded by the grader as plain data (:mod:`transformer_course.grader.codec`).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import inspect
import io
import json
import linecache
import os
import re
import socket
import sys
import traceback
import types
import warnings
from typing import Any

from transformer_course.grader import codec
from transformer_course.grader.inside.allowlist import importable
from transformer_course.grader.inside.importing import COURSE_FILE_PREFIX, CourseFinder

__all__ = ["BoundedWriter", "GraderError", "Server"]

TORCH_PRINT_OPTIONS = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")
OUTPUT_LIMIT = 20_000  # characters of a cell's or a call's output sent back
CELL_FILE = re.compile(r"^<ipython-input-(\d+)-[0-9a-f]+>$")


class BoundedWriter(io.TextIOBase):
    """sys.stdout/sys.stderr for learner code: keeps the first N characters."""

    def __init__(self, limit: int = OUTPUT_LIMIT):
        self.parts: list[str] = []
        self.size = 0
        self.dropped = 0
        self.limit = limit

    def write(self, text) -> int:
        text = str(text) if not isinstance(text, str) else text
        room = self.limit - self.size
        if room > 0:
            kept = text[:room]
            self.parts.append(kept)
            self.size += len(kept)
        self.dropped += max(0, len(text) - max(room, 0))
        return len(text)

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    @property
    def encoding(self) -> str:
        return "utf-8"

    def getvalue(self) -> str:
        text = "".join(self.parts)
        if self.dropped:
            text += f"\n[... {self.dropped} more characters of output not kept ...]"
        return text


class _Missing:
    pass


MISSING = _Missing()


class GraderError(Exception):
    """Raised in the sandbox when the grader answered a callback with an error."""


def _is_learner_file(filename: str, scratch: str) -> bool:
    if CELL_FILE.match(filename):
        return True
    if filename.startswith(COURSE_FILE_PREFIX) or filename.startswith("<frozen"):
        return False
    if filename.startswith("<"):
        return filename in ("<string>", "<stdin>") or filename.startswith("<ipython-input")
    return os.path.realpath(filename).startswith(scratch)


def _cell_of(filename: str) -> int | None:
    match = CELL_FILE.match(filename)
    return int(match.group(1)) - 1 if match else None


def _builtin_bases(exc_type: type) -> list[str]:
    import builtins

    names = []
    for cls in getattr(exc_type, "__mro__", ()):
        if getattr(builtins, cls.__name__, None) is cls and cls.__module__ == "builtins":
            names.append(cls.__name__)
    return names or ["Exception"]


class Server:
    """Answers the grader's requests in the learner process."""

    def __init__(self, sock: socket.socket, shell, scratch: str, spawn_cfg: dict):
        self.sock = sock
        self.shell = shell
        self.scratch = os.path.realpath(scratch)
        self.cfg = spawn_cfg
        self.handles: dict[int, Any] = {}
        self.handle_ids: dict[int, int] = {}
        self.next_id = 1
        self.next_request = 1
        self.exercise: str | None = None
        self.trips: list[dict] = []
        self.guarded_name: str | None = None
        self.guarded_module: types.ModuleType | None = None
        self.guarded_spec: dict = {}
        self.released: dict[str, Any] = {}
        self.stubs: dict[str, Any] = {}
        self.cell_index: int | None = None
        self.course_objects: dict[int, Any] = {}
        self.pid = os.getpid()
        self.release_error = ""
        self.watch_reported: set[str] = set()
        numpy = sys.modules.get("numpy")
        # numpy's settings before any learner code ran: what a check's call runs under
        self.numpy_defaults = (
            (numpy.geterr(), numpy.get_printoptions()) if numpy is not None else ({}, {})
        )
        self.recursion_default = sys.getrecursionlimit()

    # ----------------------------------------------------------------- transport
    def send(self, header: dict, buffers=()) -> None:
        if os.getpid() != self.pid:  # a process the learner's code forked: it must not answer
            os._exit(0)
        codec.send_message(self.sock, header, list(buffers))

    def serve(self) -> None:
        while True:
            try:
                header, buffers = codec.recv_message(self.sock)
            except (codec.PeerClosed, codec.CodecError):
                return
            if header.get("op") == "exit":
                return
            self.dispatch(header, buffers)

    def dispatch(self, header: dict, buffers: list[bytes]) -> None:
        op = header.get("op")
        handler = getattr(self, f"op_{op}", None) if isinstance(op, str) else None
        try:
            if handler is None:
                raise codec.CodecError(f"unknown request {op!r}")
            reply, reply_buffers = handler(header, buffers)
        except codec.CodecError as exc:
            reply, reply_buffers = {"fail": str(exc)[:2000]}, []
        reply["re"] = header.get("id")
        try:
            self.send(reply, reply_buffers)
        except codec.CodecError as exc:
            self.send({"re": header.get("id"), "fail": str(exc)[:2000]})

    def callback(self, header: dict, buffers: list[bytes]) -> tuple[dict, list[bytes]]:
        """Ask the grader something (a reference call) and serve its requests meanwhile."""
        request_id = -self.next_request
        self.next_request += 1
        header["id"] = request_id
        self.send(header, buffers)
        while True:
            reply, reply_buffers = codec.recv_message(self.sock)
            if reply.get("re") == request_id:
                return reply, reply_buffers
            if reply.get("op") == "exit":
                os._exit(0)
            self.dispatch(reply, reply_buffers)

    # ------------------------------------------------------------------- setup
    def op_setup(self, header: dict, buffers) -> tuple[dict, list]:
        sources = header.get("modules") or {}
        guarded = header.get("guarded") or {}
        self.guarded_name = guarded.get("module")
        self.guarded_spec = guarded
        for name in list(sys.modules):
            if name.startswith("transformer_course.reference.") or name.startswith(
                "transformer_course.checks"
            ):
                del sys.modules[name]
        sys.meta_path.insert(0, CourseFinder(self, dict(sources), self.guarded_name))
        if "" not in sys.path:
            sys.path.insert(0, "")
        sys.stdin = io.StringIO("")
        self.install_tripwires(header.get("tripwires") or {})
        return {"ok": True, "namespaces": os.getpid() == 1, "uid": os.getuid()}, []

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
            cell = _cell_of(filename)
            if cell is not None:
                return cell
            if _is_learner_file(filename, self.scratch):
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

    # --------------------------------------------------------------- tripwires
    def install_tripwires(self, tripwires: dict[str, list[str]]) -> None:
        import fnmatch

        wanted = sorted({name for names in tripwires.values() for name in names})
        for dotted in wanted:
            module_name, _, pattern = dotted.rpartition(".")
            try:
                module = importlib.import_module(module_name)
            except Exception:
                owner_name, _, attr = module_name.rpartition(".")
                try:
                    module = getattr(importlib.import_module(owner_name), attr)
                except Exception:
                    continue
            names = (
                [n for n in dir(module) if fnmatch.fnmatchcase(n, pattern)]
                if any(ch in pattern for ch in "*?[")
                else [pattern]
            )
            for attr in names:
                original = getattr(module, attr, None)
                if original is None:
                    continue
                label = f"{module_name}.{attr}"
                if isinstance(original, type):
                    self._wire_class(original, label)
                elif callable(original):
                    wrapper = self._wire_function(original, label)
                    for owner in self._owners(original, module):
                        for key, value in list(vars(owner).items()):
                            if value is original:
                                try:
                                    setattr(owner, key, wrapper)
                                except (AttributeError, TypeError):
                                    pass

    @staticmethod
    def _owners(original, module) -> list:
        owners = [module]
        for name in (
            "torch",
            "torch.nn.functional",
            "torch._C",
            "torch._C._nn",
            "torch.special",
            "numpy",
            "scipy.special",
            "torch.nn",
        ):
            candidate = sys.modules.get(name)
            if candidate is not None and candidate not in owners:
                owners.append(candidate)
        return owners

    def _trip(self, label: str) -> None:
        frame = sys._getframe(2)
        cell = None
        learner = False
        while frame is not None:
            filename = frame.f_code.co_filename
            if filename.startswith(COURSE_FILE_PREFIX):
                return  # the course's own reference code called it
            if _is_learner_file(filename, self.scratch):
                learner = True
                cell = _cell_of(filename)
                break
            frame = frame.f_back
        if learner:
            self.trips.append({"api": label, "exercise": self.exercise, "origin": cell})

    def _wire_function(self, original, label: str):
        server = self

        def tripwire(*args, **kwargs):
            server._trip(label)
            return original(*args, **kwargs)

        tripwire.__name__ = getattr(original, "__name__", "function")
        tripwire.__doc__ = getattr(original, "__doc__", None)
        return tripwire

    def _wire_class(self, cls: type, label: str) -> None:
        server = self
        original_init = cls.__init__

        def __init__(self, *args, **kwargs):
            server._trip(label)
            return original_init(self, *args, **kwargs)

        try:
            cls.__init__ = __init__
        except (AttributeError, TypeError):
            pass

    # ------------------------------------------------------------------- cells
    def op_exec(self, header: dict, buffers) -> tuple[dict, list]:
        source = header.get("source")
        index = header.get("cell")
        if not isinstance(source, str) or type(index) is not int:
            raise codec.CodecError("a malformed exec request")
        self.cell_index = index
        self.exercise = None
        out = BoundedWriter()
        saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = out
        error = None
        try:
            self.shell.execution_count = index + 1
            result = self.shell.run_cell(source, store_history=False, silent=False)
            exc = result.error_before_exec or result.error_in_exec
            if exc is not None:
                error = self.describe_exception(exc)
        except BaseException as exc:  # the shell itself failed
            error = self.describe_exception(exc)
        finally:
            sys.stdout, sys.stderr = saved
            self.shell.exit_now = False
            pyplot = sys.modules.get("matplotlib.pyplot")
            if pyplot is not None:
                try:
                    pyplot.close("all")
                except Exception:
                    pass
        reply = {"ok": error is None, "out": out.getvalue()[:OUTPUT_LIMIT]}
        if error is not None:
            reply["error"] = error
        return reply, []

    def describe_exception(self, exc: BaseException) -> dict:
        try:
            message = str(exc)
        except BaseException:
            message = "<the error message could not be shown>"
        frames = []
        try:
            for frame in traceback.extract_tb(exc.__traceback__):
                if _is_learner_file(frame.filename, self.scratch):
                    frames.append(
                        [
                            frame.filename[:200],
                            int(frame.lineno or 0),
                            str(frame.name)[:100],
                            (frame.line or "")[:300],
                        ]
                    )
        except BaseException:
            frames = []
        return {
            "type": codec.safe_name(type(exc).__name__, "Exception"),
            "bases": _builtin_bases(type(exc)),
            "message": message[:4000],
            "frames": frames[-10:],
            "syntax": _syntax_details(exc),
        }

    # ------------------------------------------------------------------ values
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

    @contextlib.contextmanager
    def pinned_state(self):
        """Process-wide settings a learner's cells may change take their pinned values for a
        check's call, and the learner's come back after it: a verdict depends on the
        function, not on what the notebook set. Pinned: torch's grad mode, inference mode,
        default dtype, default device and any other torch function or dispatch mode left
        entered (``torch.set_default_device``, ``with torch.device(...)`` entered by hand),
        threads, anomaly detection, deterministic algorithms, float32 matmul precision,
        CPU autocast, warn-always and print options; numpy's error handling and print
        options; Python's recursion limit. (Warnings filters are reset by the caller.)"""
        torch = sys.modules.get("torch")
        numpy = sys.modules.get("numpy")
        saved: dict[str, Any] = {"recursion": sys.getrecursionlimit()}
        settings = _torch_settings(torch) if torch is not None else []
        # (read, write, the learner's value); a setting is written only where it differs:
        # some setters are costly (use_deterministic_algorithms imports torch._dynamo)
        saved["torch"] = [(read, write, read()) for _, read, write, _ in settings]
        if torch is not None:
            options = torch._tensor_str.PRINT_OPTS
            saved["printing"] = {k: getattr(options, k) for k in TORCH_PRINT_OPTIONS}
        if numpy is not None:
            saved["numpy"] = (numpy.geterr(), numpy.get_printoptions())
        try:
            with contextlib.ExitStack() as stack:
                if torch is not None:
                    stack.enter_context(torch.inference_mode(False))
                    stack.enter_context(_without_torch_modes(torch))
                    for _, read, write, pinned in settings:
                        if read() != pinned:
                            write(pinned)
                    torch.set_printoptions(profile="default", sci_mode=None)
                if numpy is not None:
                    numpy.seterr(**self.numpy_defaults[0])
                    numpy.set_printoptions(**self.numpy_defaults[1])
                sys.setrecursionlimit(self.recursion_default)
                yield
        finally:  # the learner's settings, once the contexts above have closed
            with contextlib.suppress(RecursionError, ValueError):
                sys.setrecursionlimit(saved["recursion"])
            for read, write, value in saved["torch"]:
                if read() != value:
                    write(value)
            if "printing" in saved:
                torch.set_printoptions(**saved["printing"])
            if "numpy" in saved:
                numpy.seterr(**saved["numpy"][0])
                numpy.set_printoptions(**saved["numpy"][1])

    def op_ping(self, header: dict, buffers) -> tuple[dict, list]:
        return {"ok": True}, []

    def op_resolve(self, header: dict, buffers) -> tuple[dict, list]:
        name = header.get("name")
        if not isinstance(name, str):
            raise codec.CodecError("a malformed resolve request")
        value = self.shell.user_ns.get(name, MISSING)
        if value is MISSING:
            return {"found": False}, []
        encoder = codec.Encoder(fallback=self._encode_handle)
        try:
            node = encoder.encode(value)
        except Exception as exc:
            return {"found": True, "fail": f"{type(exc).__name__}: {str(exc)[:300]}"}, []
        return {"found": True, "value": node}, encoder.buffers

    def op_getattr(self, header: dict, buffers) -> tuple[dict, list]:
        target = self.handles.get(header.get("target"))
        attr = header.get("attr")
        if target is None or attr not in ("training",):
            raise codec.CodecError("a malformed getattr request")
        encoder = codec.Encoder(fallback=self._encode_handle)
        return {"value": encoder.encode(bool(getattr(target, attr)))}, encoder.buffers

    def op_call(self, header: dict, buffers) -> tuple[dict, list]:
        """Call a function or method of the learner's for a check: the arguments are decoded,
        the call made and the result encoded under the pinned settings."""
        with self.pinned_state():
            return self._call(header, buffers)

    def _call(self, header: dict, buffers) -> tuple[dict, list]:
        target = self.handles.get(header.get("target"))
        attr = header.get("attr")
        if target is None or not (attr is None or isinstance(attr, str)):
            raise codec.CodecError("a call to a handle that does not exist")
        self.course_objects = {}
        decoder = codec.Decoder(buffers, extension=self._decode_extension)
        args = decoder.decode(header.get("args"))
        kwargs = decoder.decode(header.get("kwargs"))
        if type(args) is not list or type(kwargs) is not dict:
            raise codec.CodecError("a malformed call")
        watched = {
            index: obj
            for index, obj in decoder.memo.items()
            if index not in self.course_objects and _is_mutable_data(obj)
        }
        before = {index: _fingerprint(obj) for index, obj in watched.items()}
        self.exercise = header.get("exercise")
        self.trips = []
        self.watch_reported = set()
        out = BoundedWriter()
        saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = out
        error = None
        result = None
        with warnings.catch_warnings(record=True) as caught:
            warnings.resetwarnings()
            warnings.simplefilter("always")
            try:
                function = getattr(target, attr) if attr else target
                result = function(*args, **kwargs)
                if header.get("listify") is True:
                    result = list(result)
            except BaseException as exc:
                error = self.describe_exception(exc)
        sys.stdout, sys.stderr = saved
        self.exercise = None
        argrefs = {id(obj): index for index, obj in decoder.memo.items()}
        encoder = codec.Encoder(fallback=self._encode_handle, argrefs=argrefs)
        reply: dict[str, Any] = {"out": out.getvalue()[:OUTPUT_LIMIT]}
        if error is None:
            try:
                reply["value"] = encoder.encode(result)
            except codec.CodecError as exc:
                reply["fail"] = str(exc)
            except Exception as exc:  # a value whose own methods fail while it is read
                reply["fail"] = f"{type(exc).__name__} while reading it: {str(exc)[:300]}"
        else:
            reply["error"] = error
        mutated = {}
        for index, obj in watched.items():
            if _fingerprint(obj) != before[index]:
                try:
                    mutated[str(index)] = encoder.encode_top(obj, not_argref=obj)
                except Exception:
                    pass
        reply["mutated"] = mutated
        reply["course"] = {
            str(index): self._course_state(obj, encoder)
            for index, obj in self.course_objects.items()
        }
        reply["warnings"] = [
            [
                codec.safe_name(w.category.__name__, "UserWarning"),
                _builtin_bases(w.category),
                str(w.message)[:1000],
            ]
            for w in caught[:20]
        ]
        reply["trips"] = self.trips[:50]
        return reply, encoder.buffers

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


def _torch_settings(torch) -> list[tuple[str, Any, Any, Any]]:
    """(what, read, write, pinned value) of each process-wide torch setting a check's call
    runs under (the values torch starts with)."""

    def autocast_cpu():
        return torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu")

    def set_autocast_cpu(value) -> None:
        torch.set_autocast_enabled("cpu", value[0])
        torch.set_autocast_dtype("cpu", value[1])

    def anomaly():
        return torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()

    def deterministic():
        return (
            torch.are_deterministic_algorithms_enabled(),
            torch.is_deterministic_algorithms_warn_only_enabled(),
        )

    return [
        ("grad mode", torch.is_grad_enabled, torch.set_grad_enabled, True),
        ("default dtype", torch.get_default_dtype, torch.set_default_dtype, torch.float32),
        ("threads", torch.get_num_threads, torch.set_num_threads, 1),
        ("anomaly detection", anomaly, lambda v: torch.set_anomaly_enabled(*v), (False, True)),
        (
            "deterministic algorithms",
            deterministic,
            lambda v: torch.use_deterministic_algorithms(v[0], warn_only=v[1]),
            (False, False),
        ),
        (
            "float32 matmul precision",
            torch.get_float32_matmul_precision,
            torch.set_float32_matmul_precision,
            "highest",
        ),
        ("CPU autocast", autocast_cpu, set_autocast_cpu, (False, torch.bfloat16)),
        (
            "autocast cache",
            torch.is_autocast_cache_enabled,
            torch.set_autocast_cache_enabled,
            True,
        ),
        ("warn always", torch.is_warn_always_enabled, torch.set_warn_always, False),
    ]


@contextlib.contextmanager
def _without_torch_modes(torch):
    """No torch function mode (the default device of ``torch.set_default_device``, a
    ``torch.device`` entered by hand, any ``TorchFunctionMode``) and no dispatch mode in
    force; the learner's come back, in their order, afterwards."""
    try:
        from torch.utils._python_dispatch import _disable_current_modes as no_dispatch_modes
    except ImportError:  # another torch: function modes only
        no_dispatch_modes = contextlib.nullcontext
    functions = []
    while torch._C._len_torch_function_stack() > 0:
        functions.append(torch._C._pop_torch_function_stack())
    try:
        with no_dispatch_modes():
            yield
    finally:
        for mode in reversed(functions):
            torch._C._push_on_torch_function_stack(mode)


def _syntax_details(exc: BaseException) -> list | None:
    if isinstance(exc, SyntaxError):
        return [str(exc.msg)[:300], int(exc.lineno or 0), (exc.text or "")[:300]]
    return None


def _is_mutable_data(obj: Any) -> bool:
    import numpy as np

    torch = sys.modules.get("torch")
    if isinstance(obj, list | dict | set | np.ndarray):
        return True
    return torch is not None and isinstance(obj, torch.Tensor)


def _fingerprint(obj: Any) -> bytes:
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
