"""The request server in the learner process: run a cell, look up a name, call a function
or a method for the grader's checks, and take in each piece of this lesson's reference
when the grader releases it.

It gives the learner's code the same world as a notebook kernel (an IPython shell,
cells run in order, errors do not stop the notebook); everything it sends back is
decoded by the grader as plain data (:mod:`transformer_course.grader.codec`).
"""

from __future__ import annotations

import io
import os
import socket
import sys
import traceback
import types
import warnings
from typing import Any

from transformer_course.grader import codec
from transformer_course.grader.inside.frames import is_learner_file
from transformer_course.grader.inside.gradients import requested_gradients
from transformer_course.grader.inside.importing import CourseFinder
from transformer_course.grader.inside.pinning import PinnedState
from transformer_course.grader.inside.references import GraderError, References
from transformer_course.grader.inside.tripwires import Tripwires
from transformer_course.grader.inside.values import Values, fingerprint, is_mutable_data

__all__ = ["BoundedWriter", "GraderError", "Server"]

OUTPUT_LIMIT = 20_000  # characters of a cell's or a call's output sent back


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


def _builtin_bases(exc_type: type) -> list[str]:
    import builtins

    names = []
    for cls in getattr(exc_type, "__mro__", ()):
        if getattr(builtins, cls.__name__, None) is cls and cls.__module__ == "builtins":
            names.append(cls.__name__)
    return names or ["Exception"]


class Server(PinnedState, Tripwires, References, Values):
    """Answers the grader's requests in the learner process: the dispatcher and the requests
    themselves are here; its jobs are in named modules (the reference: :mod:`.references`;
    tripwires: :mod:`.tripwires`; handles and course objects: :mod:`.values`; pinned settings:
    :mod:`.pinning`)."""

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
                if is_learner_file(frame.filename, self.scratch):
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
        request = header.get("gradients")
        if isinstance(request, dict):
            request = {"wrt": request.get("wrt"), "upstream": decoder.decode(request.get("up"))}
        watched = {
            index: obj
            for index, obj in decoder.memo.items()
            if index not in self.course_objects and is_mutable_data(obj)
        }
        before = {index: fingerprint(obj) for index, obj in watched.items()}
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
                if isinstance(request, dict):  # the gradients a check asks for with the call
                    result = requested_gradients(target, args, result, request)
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
            if fingerprint(obj) != before[index]:
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


def _syntax_details(exc: BaseException) -> list | None:
    if isinstance(exc, SyntaxError):
        return [str(exc.msg)[:300], int(exc.lineno or 0), (exc.text or "")[:300]]
    return None
