"""One submission's sandbox, seen from the grader: run cells, resolve names, call the
learner's code for the checks, and survive whatever that code does.

Every request has a deadline (the cell's, the exercise's, or the submission's,
whichever comes first). When the learner process stops answering, crashes or
breaks the protocol, it is killed, a fresh one is forked, the cells that ran
before are replayed (without the one that killed it), and grading goes on.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import re
import signal
import sys
import time
from typing import Any

import numpy as np

from transformer_course.grader import codec, proxy, sandbox, static
from transformer_course.grader.errors import CheckProblem, GiveUp, SandboxAbort
from transformer_course.grader.evidence import ReferenceUse, Trip
from transformer_course.grader.lesson import ExerciseSpec, LessonSpec

MISSING = object()


REFERENCE_MAX_ELEMENTS = (
    1_000_000  # array/tensor elements in a reference call's arguments or result
)
REFERENCE_MAX_PAIRWISE = 100_000_000  # the two largest arguments' elements, multiplied


class ReferenceOverrun(BaseException):
    """Raised (by the grader's clock) in a call of the reference that overran its budget."""


class ReferenceRefused(Exception):
    """A call of the reference that the grader refused or stopped (the message says why)."""


def _array_sizes(value: Any) -> list[int]:
    """The element count of every array and tensor in ``value`` (a decoded value: its size
    is already bounded by the codec), once per occurrence."""
    torch = sys.modules.get("torch")
    sizes: list[int] = []
    stack, seen = [value], set()
    while stack:
        item = stack.pop()
        if isinstance(item, np.ndarray):
            sizes.append(int(item.size))
        elif torch is not None and isinstance(item, torch.Tensor):
            sizes.append(int(item.numel()))
        elif isinstance(item, (list, tuple, set, frozenset, dict)):
            if id(item) in seen:
                continue
            seen.add(id(item))
            stack.extend(item.items() if isinstance(item, dict) else item)
    return sizes


def _beyond_budget(sizes: list[int], what: str) -> str:
    """Why arrays and tensors of ``sizes`` are too much work for the grader ('' if not)."""
    largest = sorted(sizes, reverse=True)[:2]
    if sum(sizes) > REFERENCE_MAX_ELEMENTS:
        return (
            f"the course's reference was refused: its {what} hold {sum(sizes):,} array or "
            f"tensor elements, more than the {REFERENCE_MAX_ELEMENTS:,} the grader computes "
            "for your code"
        )
    if (
        what == "arguments"
        and len(largest) == 2
        and largest[0] * largest[1] > REFERENCE_MAX_PAIRWISE
    ):
        return (
            f"the course's reference was refused: two of its arguments hold {largest[0]:,} and "
            f"{largest[1]:,} elements, which could ask for {largest[0] * largest[1]:,} "
            f"(more than the {REFERENCE_MAX_PAIRWISE:,} the grader computes for your code)"
        )
    return ""


SIGNALS = {
    signal.SIGSEGV: "crashed with a segmentation fault (a bad memory access in a library call?)",
    signal.SIGABRT: "aborted (a library found an internal error)",
    signal.SIGBUS: "crashed with a bus error",
    signal.SIGFPE: "crashed with a floating-point exception",
    signal.SIGILL: "crashed with an illegal instruction",
    signal.SIGXCPU: "used up its CPU time",
    signal.SIGXFSZ: "wrote a file larger than the grader allows",
}


def describe_death(status: dict, limits: sandbox.Limits) -> str:
    """How the learner process ended, in plain words. ``status["oom"]``: whether the kernel's
    count of out-of-memory kills in the sandbox's memory cgroup went up while it ran (None:
    no memory cgroup is in force, so the grader cannot tell); "killed for memory" is said
    only when the kernel counted it."""
    sig = status.get("signal")
    code = status.get("exit")
    if sig == signal.SIGKILL:
        oom = status.get("oom")
        if oom:
            return (
                "your code's process was killed by the kernel for using more than the "
                f"{limits.memory_mb} MB of memory allowed"
            )
        if oom is None:
            return (
                "your code's process was killed (SIGKILL): by the system for using too much "
                f"memory, or for more than {limits.cpu_s} s of CPU time (this machine cannot "
                "tell the grader which)"
            )
        return (
            "your code's process was killed (SIGKILL), not for memory (the kernel counted no "
            f"out-of-memory kill): more than {limits.cpu_s} s of CPU time, or a kill signal "
            "your code sent itself"
        )
    if sig in SIGNALS:
        return f"your code's process {SIGNALS[sig]}"
    if sig:
        return f"your code's process was ended by signal {sig}"
    if code is not None:
        return (
            f"your code ended the Python process (exit status {code}): os._exit(), or a crash "
            "inside a library"
        )
    return "your code's process ended unexpectedly"


class Session:
    def __init__(
        self,
        spec: LessonSpec,
        limits: sandbox.Limits,
        mode: str | None = None,
        given: set[int] | None = None,
    ):
        self.spec = spec
        self.given = given or set()  # cells that are the lesson's own, unchanged code
        self.limits = limits
        self.mode = mode
        self.zygote: sandbox.Zygote | None = None
        self.process: sandbox.LearnerProcess | None = None
        self.generation = 0
        self.history: list[tuple] = []
        self.restarts = 0
        self.exercise: str | None = None
        self.methods: tuple[str, ...] = ()
        self.exercise_deadline: float | None = None
        self.submission_deadline = time.monotonic() + limits.submission_timeout
        self.trips: list[Trip] = []
        self.references: list[ReferenceUse] = []
        self.graded: set[str] = set()
        self.outputs: list[str] = []
        self.request_id = 0
        self.namespaces = False
        self.cell: tuple[int, str] | None = None  # (index, source) of the cell running now

    # ----------------------------------------------------------------- lifecycle
    def start(self) -> None:
        self.zygote = sandbox.acquire(self.mode)
        self._spawn()

    def _spawn(self) -> None:
        for attempt in range(3):
            try:
                self.process = self.zygote.spawn(self.limits)
                break
            except sandbox.ZygoteError:
                sandbox.discard(self.zygote)
                if attempt == 2:
                    raise
                self.zygote = sandbox.acquire(self.mode)
        self.generation += 1
        # the families' public spellings only: wrapping operators (torch.ops) or private
        # names breaks torch itself (its flop counter registers them); those the static
        # scan flags instead
        tripwires = {
            ex.name: [
                name
                for name in static.expand_forbidden(ex.forbidden)
                if name in ex.forbidden or not static.private_or_opaque(name)
            ]
            for ex in self.spec.exercises
            if ex.forbidden
        }
        header = {
            "op": "setup",
            "modules": self.spec.modules,
            # the current lesson's reference without its exercises' code: each exercise's
            # block goes in only after its verdict is recorded here (:meth:`release`)
            "guarded": {k: v for k, v in self.spec.guarded.items() if k != "blocks"},
            "tripwires": tripwires,
        }
        reply, _ = self.request(header, [], time.monotonic() + 120, "setup")
        self.namespaces = bool(reply.get("namespaces"))

    def close(self) -> None:
        if self.process is not None:
            try:
                codec.send_message(self.process.sock, {"op": "exit"})
            except (OSError, codec.CodecError):
                pass
            self.process.close()
            self.process = None
        if self.zygote is not None:
            sandbox.release(self.zygote)
            self.zygote = None

    def _kill(self, dead: bool = False) -> dict:
        """Stop the learner process (``dead``: it closed its end; let it finish dying)."""
        if self.process is None:
            return {}
        process = self.process
        if not dead:
            process.kill()
        status = dict(process.status(timeout=3.0 if dead else 5.0))
        status["oom"] = process.oom_killed()
        try:
            process.sock.close()
        except OSError:
            pass
        self.process = None
        return status

    def restart(self) -> None:
        """A fresh learner process with the notebook replayed up to where we are."""
        self._kill()
        while True:
            self.restarts += 1
            if self.restarts > self.limits.max_restarts:
                raise GiveUp(
                    f"your notebook stopped the grader's sandbox {self.limits.max_restarts} times; "
                    "the remaining exercises were not graded"
                )
            if time.monotonic() >= self.submission_deadline:
                raise GiveUp(self._submission_limit())
            self._spawn()
            try:
                for item in list(self.history):
                    current = item
                    if item[0] == "exec":
                        # a cell that was interrupted the first time gets a second only
                        seconds = 1.0 if len(item) > 3 else self.limits.cell_timeout
                        try:
                            self._exec_request(item[1], item[2], self._deadline(seconds))
                        except SandboxAbort as abort:
                            if not abort.recovered:
                                raise
                    else:
                        self._release_request(item[1])
                return
            except SandboxAbort:
                self.history.remove(current)  # this cell killed it the second time: skip it
                self._kill()
                continue

    def check_submission_time(self) -> None:
        """Raise :class:`GiveUp` once the whole submission has used up its time."""
        if time.monotonic() >= self.submission_deadline:
            raise GiveUp(self._submission_limit())

    def _submission_limit(self) -> str:
        return (
            f"your notebook ran longer than the {self.limits.submission_timeout:g} s the grader "
            "allows for a whole submission; the remaining exercises were not graded"
        )

    # ------------------------------------------------------------------ transport
    def _deadline(self, seconds: float) -> float:
        deadline = min(time.monotonic() + seconds, self.submission_deadline)
        if self.exercise_deadline is not None:
            deadline = min(deadline, self.exercise_deadline)
        return deadline

    def _timeout_message(self, label: str, deadline: float) -> str:
        if deadline >= self.submission_deadline - 0.01:
            return self._submission_limit()
        if label == "check":
            return (
                f"your code ran longer than {self.limits.check_timeout:g} s while the checks ran "
                "(an infinite loop, a long sleep, or very slow code?), so it was stopped"
            )
        if label == "cell":
            return (
                f"this cell ran longer than {self.limits.cell_timeout:g} s (an infinite loop, a "
                "long sleep, or very slow code?), so it was stopped and skipped"
            )
        return "the sandbox did not answer in time"

    def request(self, header: dict, buffers: list, deadline: float, label: str):
        if self.process is None:
            raise SandboxAbort("crashed", "the sandbox is not running")
        self.request_id += 1
        request_id = self.request_id
        header["id"] = request_id
        sock = self.process.sock
        try:
            codec.send_message(sock, header, buffers)
        except OSError:
            status = self._kill()
            raise SandboxAbort("crashed", describe_death(status, self.limits)) from None
        while True:
            try:
                reply, reply_buffers = codec.recv_message(sock, deadline)
            except codec.MessageTimeout:
                message = self._timeout_message(label, deadline)
                if label != "setup" and self._interrupt(request_id):
                    raise SandboxAbort("timeout", message, recovered=True) from None
                self._kill()
                raise SandboxAbort("timeout", message) from None
            except codec.PeerClosed:
                status = self._kill(dead=True)
                raise SandboxAbort("crashed", describe_death(status, self.limits)) from None
            except codec.CodecError as exc:
                self._kill()
                raise SandboxAbort(
                    "crashed", f"your code sent the grader something it cannot read ({exc})"
                ) from None
            if reply.get("re") == request_id:
                return reply, reply_buffers
            if reply.get("op") == "ref" and type(reply.get("id")) is int and reply["id"] < 0:
                self._reference_callback(reply, reply_buffers, deadline)
                continue
            self._kill()
            raise SandboxAbort("crashed", "your code interfered with the grader's channel")

    def _interrupt(self, request_id: int) -> bool:
        """Interrupt the learner's code (KeyboardInterrupt, as Jupyter's stop button does) and
        wait briefly for the request to end; False when it does not (then it is killed)."""
        if self.process is None or not self.process.interrupt():
            return False
        deadline = time.monotonic() + 3.0
        try:
            while True:
                reply, reply_buffers = codec.recv_message(self.process.sock, deadline)
                if reply.get("re") == request_id:
                    return True
                if reply.get("op") == "ref" and type(reply.get("id")) is int and reply["id"] < 0:
                    self._reference_callback(reply, reply_buffers, deadline)
                    continue
                return False
        except (codec.MessageTimeout, codec.PeerClosed, codec.CodecError, OSError):
            return False

    # ------------------------------------------------------------------- steps
    def exec_cell(self, index: int, source: str) -> dict:
        """Run one cell; returns {"status", "error", "output"}."""
        try:
            reply = self._exec_request(index, source, self._deadline(self.limits.cell_timeout))
        except SandboxAbort as abort:
            if abort.recovered:  # interrupted: what the cell did before it stays, as in Jupyter
                self.history.append(("exec", index, source, "interrupted"))
            else:
                self.restart()
            return {"status": abort.kind, "error": abort.message, "output": ""}
        self.history.append(("exec", index, source))
        output = reply.get("out") if isinstance(reply.get("out"), str) else ""
        if reply.get("ok"):
            return {"status": "ok", "error": "", "output": output}
        error = reply.get("error") if isinstance(reply.get("error"), dict) else {}
        text = (
            f"{codec.safe_name(error.get('type'), 'Error')}: {str(error.get('message', ''))[:2000]}"
        )
        return {"status": "error", "error": text, "output": output}

    def _exec_request(self, index: int, source: str, deadline: float) -> dict:
        self.cell = (index, source)
        try:
            reply, _ = self.request(
                {"op": "exec", "cell": index, "source": source}, [], deadline, "cell"
            )
        finally:
            self.cell = None
        return reply

    def _release_request(self, name: str) -> None:
        source = (self.spec.guarded.get("blocks") or {})[name]
        self.request(
            {"op": "release", "name": name, "source": source}, [], self._deadline(30.0), "setup"
        )

    def release(self, name: str) -> None:
        """The exercise ``name`` is graded (its verdict recorded): its reference goes in."""
        self.graded.add(name)
        if name not in (self.spec.guarded.get("blocks") or {}):
            return
        try:
            self._release_request(name)
            self.history.append(("release", name))
        except SandboxAbort:
            self.history.append(("release", name))
            self.restart()

    @contextlib.contextmanager
    def checking(self, exercise: ExerciseSpec):
        self.exercise = exercise.name
        self.methods = tuple(exercise.methods)
        self.exercise_deadline = min(
            time.monotonic() + self.limits.check_timeout, self.submission_deadline
        )
        from transformer_course.grader import deadline  # the grader's own clock (issue 14 §3)

        overrun = deadline.check_overrun(self.limits.check_timeout)
        try:
            with deadline.enforced(self.exercise_deadline + deadline.GRACE_S, overrun):
                yield
        finally:
            self.exercise = None
            self.methods = ()
            self.exercise_deadline = None

    # ------------------------------------------------------------------ values
    def _decode_handle(self, tag: str, node: list, decoder: codec.Decoder, depth: int):
        if tag != "H" or len(node) != 2 or not isinstance(node[1], dict):
            raise codec.CodecError(f"unexpected tag {tag!r} from the sandbox")
        description = node[1]
        if type(description.get("id")) is not int:
            raise codec.CodecError("a malformed handle")
        kind = codec.safe_name(description.get("type"), "object")
        if description.get("module") is True:
            cls = proxy.module_proxy_class(kind, self.methods)
            return cls(self, description)
        if description.get("isclass") is True:
            return proxy.ClassProxy(self, description)
        if description.get("callable") is True:
            return proxy.FunctionProxy(self, description)
        return codec.unsupported(kind, f"<{kind} object>")

    def _encode_extension(self, obj: Any, encoder: codec.Encoder):
        if isinstance(obj, proxy.Remote):
            if (
                getattr(obj, "_generation", None) != self.generation
                or getattr(obj, "_session", None) is not self
            ):
                raise codec.CodecError("an object from an earlier run of the notebook")
            return ["P", obj._handle]
        return proxy.encode_course_object(obj, encoder)

    def resolve(self, name: str) -> Any:
        reply, buffers = self.request(
            {"op": "resolve", "name": name}, [], self._deadline(self.limits.check_timeout), "check"
        )
        if not reply.get("found"):
            return MISSING
        if "fail" in reply:
            return codec.unsupported("object", f"<a value the grader cannot read: {reply['fail']}>")
        try:
            return codec.Decoder(buffers, extension=self._decode_handle).decode(reply.get("value"))
        except codec.CodecError as exc:
            return codec.unsupported("object", f"<a value the grader cannot read: {exc}>")

    def ping(self) -> None:
        """Is the learner process still alive (after a check: a death counts against it)?"""
        self.request({"op": "ping"}, [], self._deadline(self.limits.check_timeout), "check")

    def get_attribute(self, target: proxy.Remote, attr: str) -> Any:
        self._check_generation(target)
        reply, buffers = self.request(
            {"op": "getattr", "target": target._handle, "attr": attr},
            [],
            self._deadline(self.limits.check_timeout),
            "check",
        )
        try:
            return codec.Decoder(buffers).decode(reply.get("value"))
        except codec.CodecError:
            return True

    def _check_generation(self, target: Any) -> None:
        if getattr(target, "_generation", None) != self.generation:
            raise SandboxAbort(
                "crashed", "the sandbox was restarted, so this object of your code is gone"
            )

    def call(
        self,
        target: proxy.Remote,
        attr: str | None,
        args: tuple,
        kwargs: dict,
        listify: bool = False,
        gradients: tuple[str, Any] | None = None,
    ):
        self._check_generation(target)
        encoder = codec.Encoder(extension=self._encode_extension)
        try:
            args_node = encoder.encode(list(args))
            kwargs_node = encoder.encode(dict(kwargs))
            request = (
                None
                if gradients is None
                else {"wrt": gradients[0], "up": encoder.encode(gradients[1])}
            )
        except codec.CodecError as exc:
            raise CheckProblem(
                f"the check's arguments cannot be sent to the sandbox: {exc}"
            ) from None
        header = {
            "op": "call",
            "target": target._handle,
            "attr": attr,
            "args": args_node,
            "kwargs": kwargs_node,
            "exercise": self.exercise,
            "listify": listify,
            "gradients": request,
        }
        reply, buffers = self.request(
            header, encoder.buffers, self._deadline(self.limits.check_timeout), "check"
        )
        if isinstance(reply.get("out"), str) and reply["out"]:
            self.outputs.append(reply["out"])
        for trip in reply.get("trips") or []:
            if isinstance(trip, dict) and isinstance(trip.get("api"), str):
                origin = trip.get("origin")
                self.trips.append(
                    Trip(trip["api"][:200], self.exercise, origin if type(origin) is int else None)
                )
        decoder = codec.Decoder(buffers, extension=self._decode_handle, argrefs=encoder.objects)
        try:
            value = decoder.decode(reply["value"]) if "value" in reply else None
            mutated = {
                int(index): decoder.decode(node)
                for index, node in (reply.get("mutated") or {}).items()
                if str(index).isdigit() and int(index) < len(encoder.objects)
            }
            course = reply.get("course") or {}
            for index, state in course.items():
                if str(index).isdigit() and int(index) < len(encoder.objects):
                    proxy.apply_course_state(encoder.objects[int(index)], state, decoder)
        except codec.CodecError as exc:
            raise proxy.rebuild_exception(
                {
                    "type": "ValueError",
                    "bases": ["ValueError"],
                    "message": f"your code returned something the grader cannot read: {exc}",
                }
            ) from None
        except proxy.CopyBackError as exc:
            raise proxy.rebuild_exception(
                {"type": "RuntimeError", "bases": ["RuntimeError"], "message": str(exc)}
            ) from None
        for index, new in mutated.items():
            proxy.apply_mutation(encoder.objects[index], new)
        proxy.reissue_warnings(reply.get("warnings"))
        if "error" in reply:
            raise proxy.rebuild_exception(reply["error"])
        if "fail" in reply:
            message = f"your code returned something the grader cannot accept: {reply['fail']}"
            raise proxy.rebuild_exception(
                {"type": "ValueError", "bases": ["ValueError"], "message": message}
            )
        return value

    # -------------------------------------------------------------- the reference
    def _may_release_early(self, name: str, origin: Any) -> bool:
        """A reference class wanted before its exercise is graded: only a cell of the lesson's
        own (unchanged) code that names the class gets it, while no check runs. Decided from
        the grader's record of which cell runs; the sandbox's report of the calling cell
        (``origin``) can only refuse more."""
        if self.exercise is not None or self.cell is None or name in self.graded:
            return False
        index, source = self.cell
        if index not in self.given or type(origin) is not int or origin not in self.given:
            return False
        if (self.spec.guarded.get("names") or {}).get(name) != "class":
            return False
        if name not in (self.spec.guarded.get("blocks") or {}):
            return False
        return re.search(rf"\b{re.escape(name)}\b", source) is not None

    def _reference_callback(self, header: dict, buffers: list, deadline: float) -> None:
        """The learner's code called the current lesson's reference before it was released:
        the grader runs it on the learner's arguments (and records the use), within budgets:
        arguments and result of at most REFERENCE_MAX_ELEMENTS array/tensor elements, two
        arguments whose sizes multiplied imply no more than REFERENCE_MAX_PAIRWISE elements
        (an attention's scores), and ``limits.reference_timeout`` seconds (never past the
        request's ``deadline``), held by the grader's own clock."""
        name = header.get("name")
        origin = header.get("origin")
        request_id = header["id"]
        names = self.spec.guarded.get("names") or {}
        if not isinstance(name, str) or name not in names:
            codec.send_message(self.process.sock, {"re": request_id, "error": "no such reference"})
            return
        # which cell runs, and which exercise is checked, are the grader's own record
        cell = self.cell[0] if self.cell is not None else None
        record = ReferenceUse(name, cell, self.exercise, name in self.graded)
        self.references.append(record)
        if header.get("watched"):  # an early-released reference class ran during a check
            record.watched = True
            codec.send_message(self.process.sock, {"re": request_id, "ok": True})
            return
        if header.get("probe"):
            early = self._may_release_early(name, origin)
            record.refused = not early
            reply = {"re": request_id, "ok": True, "release": early}
            if early:
                reply["source"] = self.spec.guarded["blocks"][name]
            codec.send_message(self.process.sock, reply)
            return
        try:
            decoder = codec.Decoder(buffers, extension=self._decode_handle)
            args = decoder.decode(header.get("args"))
            kwargs = decoder.decode(header.get("kwargs"))
            if type(args) is not list or type(kwargs) is not dict:
                raise codec.CodecError("malformed arguments")
            function = getattr(importlib.import_module(self.spec.guarded["module"]), name)
            too_large = _beyond_budget(_array_sizes([args, kwargs]), "arguments")
            if too_large:
                record.stopped = too_large
                raise ReferenceRefused(too_large)
            from transformer_course.grader import deadline as clock  # imports this module

            budget = min(time.monotonic() + self.limits.reference_timeout, deadline)
            try:
                with clock.enforced(budget, ReferenceOverrun):
                    with contextlib.redirect_stdout(io.StringIO()):
                        result = function(*args, **kwargs)
            except ReferenceOverrun:
                record.stopped = (
                    f"the course's {name} ran longer than {self.limits.reference_timeout:g} s "
                    "on the arguments your code gave it, so the grader stopped it"
                )
                raise ReferenceRefused(record.stopped) from None
            too_large = _beyond_budget(_array_sizes(result), "result")
            if too_large:
                record.stopped = too_large
                raise ReferenceRefused(too_large)
            encoder = codec.Encoder(extension=self._encode_extension)
            reply, reply_buffers = (
                {"re": request_id, "value": encoder.encode(result)},
                encoder.buffers,
            )
        except (SandboxAbort, GiveUp, CheckProblem):
            raise
        except ReferenceRefused as exc:
            reply, reply_buffers = {"re": request_id, "error": str(exc)}, []
        except Exception as exc:  # the learner called the reference with bad arguments
            reply, reply_buffers = (
                {"re": request_id, "error": f"{type(exc).__name__}: {exc}"[:2000]},
                [],
            )
        codec.send_message(self.process.sock, reply, reply_buffers)
