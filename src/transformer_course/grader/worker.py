"""The sandbox side of the grader: a zygote, and the learner processes it forks.

Nothing in this module is trusted by the grader: it runs inside the sandbox, next to
the learner's code, and everything it sends back is decoded by :mod:`.codec` as
plain data. It is written to give the learner's code the same world as a notebook
kernel (an IPython shell, cells run in order, errors do not stop the notebook) and
to keep one submission from reaching another.

Processes (see :mod:`.sandbox` for how the zygote itself is started):

* the **zygote** imports numpy, torch, IPython, matplotlib and the course package
  once, drops its privileges, makes itself non-dumpable, and then only forks. It
  never runs learner code.
* for each submission it forks an **intermediate** process that, where the kernel
  allows, enters fresh user, mount, pid, IPC and network namespaces and forks
* the **learner process**: pid 1 of its own pid namespace (when it ends, the kernel
  kills every process it left behind), with a private tmpfs as ``/tmp`` (its
  scratch folder and $HOME), no capabilities, rlimits on CPU time, address space,
  file size, open files and processes, and no way to signal or trace the zygote.
  It serves the grader's requests on one socket: run a cell, look up a name, call
  a function or method, release the next piece of this lesson's reference.
"""

from __future__ import annotations

import ctypes
import functools
import importlib
import importlib.abc
import importlib.machinery
import inspect
import io
import json
import linecache
import os
import re
import resource
import signal
import socket
import sys
import time
import traceback
import types
import warnings
from typing import Any

# The codec is imported from the staged copy of the package, never from the repository.
from transformer_course.grader import codec

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_NOSUID, MS_NODEV, MS_REC, MS_PRIVATE = 2, 4, 16384, 1 << 18
MS_BIND, MNT_DETACH = 4096, 2

OUTPUT_LIMIT = 20_000  # characters of a cell's or a call's output sent back
CELL_FILE = re.compile(r"^<ipython-input-(\d+)-[0-9a-f]+>$")
COURSE_FILE_PREFIX = "<course:"

_libc = None


def libc():
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    return _libc


def prctl(option: int, value: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    return libc().prctl(option, value, 0, 0, 0) == 0


# ============================================================================ zygote
def main() -> None:
    """Entry point of the zygote (``python -c ... main()`` with a JSON config in argv)."""
    cfg = json.loads(sys.argv[1])
    control = socket.socket(fileno=cfg["control_fd"])
    hidden = [os.path.realpath(p) for p in cfg.get("hide_paths", [])]
    prefix = os.path.realpath(sys.prefix)

    def visible(entry: str) -> bool:
        real = os.path.realpath(entry or ".")
        if real == prefix or real.startswith(prefix + os.sep):
            return True  # the Python installation (a virtual environment may live in the repo)
        return not any(real == h or real.startswith(h + os.sep) for h in hidden)

    sys.path[:] = [p for p in sys.path if visible(p)]
    if cfg["staged"] not in sys.path:
        sys.path.insert(0, cfg["staged"])
    if cfg.get("parent_death") and sys.platform.startswith("linux"):
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    shell = _prepare(cfg)
    if cfg.get("uid") is not None:
        os.setgroups([])
        os.setgid(cfg["gid"])
        os.setuid(cfg["uid"])
    prctl(PR_SET_DUMPABLE, 0)
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    status = _read_status()
    _control_send(
        control,
        {
            "op": "ready",
            "pid": os.getpid(),
            "uid": os.getuid(),
            "vm_kb": status.get("VmSize", 0),
            "python": sys.version.split()[0],
        },
    )
    Zygote(control, shell, cfg).serve()


def _read_status() -> dict[str, int]:
    values = {}
    try:
        with open("/proc/self/status") as handle:
            for line in handle:
                key, _, rest = line.partition(":")
                if rest.strip().endswith("kB"):
                    values[key] = int(rest.split()[0])
    except OSError:
        pass
    return values


def _prepare(cfg: dict):
    """Import what every notebook needs, once, and make the IPython shell the children use."""
    for name in cfg.get("preimport", []):
        try:
            importlib.import_module(name)
        except Exception:
            pass
    try:
        import torch

        torch.set_num_threads(1)
        torch.set_num_interop_threads(1)
    except Exception:
        pass
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.enabled = False
    config.HistoryManager.hist_file = ":memory:"
    config.InteractiveShell.colors = "NoColor"
    config.InteractiveShell.cache_size = 0
    config.InteractiveShell.autocall = 0
    shell = InteractiveShell.instance(config=config)
    shell.display_formatter.active_types = ["text/plain"]
    # exit() and quit() end an ipykernel (and with it a whole nbgrader run); here they
    # do nothing, and sys.exit() is reported as an error of its cell, as in IPython.
    shell.ask_exit = lambda: None
    return shell


def _control_send(sock: socket.socket, message: dict, fds=()) -> None:
    data = json.dumps(message).encode()
    if fds:
        socket.send_fds(sock, [data], list(fds))
    else:
        sock.sendall(data)


class Zygote:
    """Forks one learner process at a time and cleans up after it."""

    def __init__(self, control: socket.socket, shell, cfg: dict):
        self.control = control
        self.shell = shell
        self.cfg = cfg
        self.children: dict[int, dict] = {}
        self.counter = 0

    def serve(self) -> None:
        import select

        while True:
            self._reap()
            ready, _, _ = select.select([self.control], [], [], 0.2)
            if not ready:
                continue
            try:
                data, fds, _, _ = socket.recv_fds(self.control, 65536, 4)
            except OSError:
                os._exit(0)
            if not data:
                self._kill_all()
                os._exit(0)
            try:
                message = json.loads(data)
            except ValueError:
                continue
            op = message.get("op")
            if op == "spawn":
                reply = self._spawn(message, fds)
            elif op == "kill":
                reply = self._kill(message.get("pid"))
            elif op == "interrupt":
                reply = self._signal(message.get("pid"), signal.SIGINT)
            elif op == "wait":
                reply = self._wait(message.get("pid"), float(message.get("timeout", 5.0)))
            elif op == "exit":
                self._kill_all()
                os._exit(0)
            else:
                reply = {"ok": False, "error": f"unknown op {op!r}"}
            for fd in fds:
                try:
                    os.close(fd)
                except OSError:
                    pass
            _control_send(self.control, reply)

    def _spawn(self, message: dict, fds: list[int]) -> dict:
        if len(fds) != 1:
            return {"ok": False, "error": "spawn needs exactly one socket"}
        self.counter += 1
        spawn_cfg = dict(message.get("cfg", {}))
        spawn_cfg["serial"] = self.counter
        pid = os.fork()
        if pid == 0:  # the intermediate process
            code = 70
            try:
                self.control.close()
                os.setsid()
                code = _intermediate(fds[0], spawn_cfg, self.shell, self.cfg)
            except BaseException:
                traceback.print_exc()
            os._exit(code)
        self.children[pid] = {"status": None, "scratch": None}
        return {"ok": True, "pid": pid}

    def _kill(self, pid: Any) -> dict:
        if type(pid) is int and pid in self.children:
            for sender in (os.killpg, os.kill):
                try:
                    sender(pid, signal.SIGKILL)
                except OSError:
                    pass
        return {"ok": True}

    def _signal(self, pid: Any, number: int) -> dict:
        if type(pid) is int and pid in self.children:
            try:
                os.killpg(pid, number)
            except OSError:
                pass
        return {"ok": True}

    def _wait(self, pid: Any, timeout: float) -> dict:
        if type(pid) is not int or pid not in self.children:
            return {"ok": False, "error": "no such child"}
        deadline = time.monotonic() + timeout
        while self.children[pid]["status"] is None and time.monotonic() < deadline:
            self._reap()
            if self.children[pid]["status"] is None:
                time.sleep(0.01)
        status = self.children[pid]["status"]
        if status is None:
            return {"ok": False, "error": "still running"}
        del self.children[pid]
        return {"ok": True, **status}

    def _reap(self) -> None:
        while True:
            try:
                pid, raw = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if os.WIFSIGNALED(raw):
                status = {"signal": os.WTERMSIG(raw), "exit": None}
            else:
                code = os.WEXITSTATUS(raw)
                # the intermediate reports the learner's death by a signal as 128 + signal
                if 128 < code < 128 + 65:
                    status = {"signal": code - 128, "exit": None}
                else:
                    status = {"signal": None, "exit": code}
            if pid in self.children:
                self.children[pid]["status"] = status
            self._cleanup()

    def _cleanup(self) -> None:
        """Kill whatever a finished child left behind (processes that escaped its group)."""
        if any(child["status"] is None for child in self.children.values()):
            return
        if self.cfg.get("private_pids"):  # everything in this pid namespace but us is the learner's
            keep = {1, os.getpid()}
            for name in os.listdir("/proc"):
                if name.isdigit() and int(name) not in keep:
                    try:
                        os.kill(int(name), signal.SIGKILL)
                    except OSError:
                        pass
        elif self.cfg.get("uid") is not None:  # a uid of our own: kill its other processes
            try:
                os.kill(-1, signal.SIGKILL)  # every process we may signal except ourselves
            except OSError:
                pass
        scratch_root = self.cfg.get("scratch_root")
        if scratch_root and os.path.isdir(scratch_root):
            import shutil

            for name in os.listdir(scratch_root):
                if name.startswith("submission-"):
                    shutil.rmtree(os.path.join(scratch_root, name), ignore_errors=True)

    def _kill_all(self) -> None:
        for pid in list(self.children):
            self._kill(pid)


# ===================================================================== intermediate
def _write(path: str, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


def _intermediate(fd: int, spawn_cfg: dict, shell, cfg: dict) -> int:
    """Enter fresh namespaces (when asked and allowed) and run the learner process."""
    namespaces = False
    if cfg.get("namespaces") and sys.platform.startswith("linux"):
        uid, gid = os.getuid(), os.getgid()
        prctl(PR_SET_DUMPABLE, 1)  # needed to write our own uid_map
        flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS
        flags |= CLONE_NEWNET
        if libc().unshare(flags) == 0:
            try:
                _write("/proc/self/setgroups", "deny")
                _write("/proc/self/uid_map", f"{uid} {uid} 1")
                _write("/proc/self/gid_map", f"{gid} {gid} 1")
                namespaces = True
            except OSError:
                namespaces = False
        prctl(PR_SET_DUMPABLE, 0)
    if not namespaces:
        _learner_main(fd, spawn_cfg, shell, cfg, private=False)
        return 70
    pid = os.fork()
    if pid == 0:
        try:
            _learner_main(fd, spawn_cfg, shell, cfg, private=True)
        finally:
            os._exit(70)
    os.close(fd)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # interrupts are for the learner process
    while True:
        try:
            _, raw = os.waitpid(pid, 0)
            break
        except InterruptedError:  # pragma: no cover
            continue
    if os.WIFSIGNALED(raw):
        return 128 + os.WTERMSIG(raw)
    return os.WEXITSTATUS(raw)


def _drop_capabilities() -> None:
    for cap in range(64):
        libc().prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
    libc().prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [
            ("effective", ctypes.c_uint32),
            ("permitted", ctypes.c_uint32),
            ("inheritable", ctypes.c_uint32),
        ]

    header = Header(0x20080522, 0)
    data = (Data * 2)()
    libc().capset(ctypes.byref(header), ctypes.byref(data))


def _learner_main(fd: int, spawn_cfg: dict, shell, cfg: dict, *, private: bool) -> None:
    """Become the learner process: scratch folder, limits, no privileges; then serve."""
    if sys.platform.startswith("linux"):
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if private:
        mount = libc().mount
        mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None)
        size = int(spawn_cfg.get("scratch_mb", 256))
        options = f"size={size}m,mode=0700".encode()
        # the Python installation may live below /tmp (a checkout in a temporary folder):
        # hold on to it while the private /tmp goes on top, then bind it back, read-only
        keep, hold = cfg.get("keep_under_tmp") or [], cfg.get("hold_dir", "")
        if keep and mount(b"/tmp", hold.encode(), None, MS_BIND | MS_REC, None) != 0:
            os._exit(72)
        if mount(b"tmpfs", b"/tmp", b"tmpfs", MS_NOSUID | MS_NODEV, options) != 0:
            os._exit(71)
        for path in keep:
            os.makedirs(path, exist_ok=True)
            source = (hold + path[len("/tmp") :]).encode()
            if mount(source, path.encode(), None, MS_BIND | MS_REC, None) != 0:
                os._exit(72)
        if keep:
            libc().umount2(hold.encode(), MNT_DETACH)
        if os.path.isdir("/dev/shm"):
            mount(b"tmpfs", b"/dev/shm", b"tmpfs", MS_NOSUID | MS_NODEV, b"size=16m,mode=0700")
        scratch = "/tmp/work"
        os.mkdir(scratch, 0o700)
    else:
        root = cfg.get("scratch_root") or "/tmp"
        scratch = os.path.join(root, f"submission-{spawn_cfg.get('serial', 0)}-{os.getpid()}")
        os.mkdir(scratch, 0o700)
    os.chdir(scratch)
    for name in ("HOME", "TMPDIR", "TMP", "TEMP"):
        os.environ[name] = scratch
    os.environ["IPYTHONDIR"] = os.path.join(scratch, ".ipython")
    os.environ["MPLCONFIGDIR"] = os.path.join(scratch, ".matplotlib")
    os.environ["XDG_CONFIG_HOME"] = os.path.join(scratch, ".config")
    os.environ["XDG_CACHE_HOME"] = os.path.join(scratch, ".cache")
    import tempfile

    tempfile.tempdir = scratch
    null = os.open(os.devnull, os.O_RDWR)
    for target in (0, 1, 2):
        os.dup2(null, target)
    os.closerange(3, fd)
    os.closerange(fd + 1, 65536)
    if private:
        _drop_capabilities()
    prctl(PR_SET_DUMPABLE, 0)
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    if cfg.get("learner_seccomp"):  # no namespaces or mounts from here on (seccomp_filter.py)
        from transformer_course.grader.seccomp_filter import install_encoded

        install_encoded(cfg["learner_seccomp"])  # if it fails, no learner process starts
    _set_limits(spawn_cfg)
    sock = socket.socket(fileno=fd)
    server = Server(sock, shell, scratch, spawn_cfg)
    server.serve()
    os._exit(0)


def _set_limits(spawn_cfg: dict) -> None:
    def limit(which: int, soft: int, hard: int | None = None) -> None:
        try:
            resource.setrlimit(which, (soft, hard if hard is not None else soft))
        except (ValueError, OSError):
            pass

    limit(resource.RLIMIT_CORE, 0)
    cpu = int(spawn_cfg.get("cpu_s", 600))
    limit(resource.RLIMIT_CPU, cpu, cpu + 5)
    limit(resource.RLIMIT_FSIZE, int(spawn_cfg.get("fsize_mb", 64)) * 2**20)
    limit(resource.RLIMIT_NOFILE, int(spawn_cfg.get("nofile", 256)))
    if spawn_cfg.get("nproc"):
        limit(resource.RLIMIT_NPROC, int(spawn_cfg["nproc"]))
    if spawn_cfg.get("memory_mb"):
        vm_kb = _read_status().get("VmSize", 0)
        limit(resource.RLIMIT_AS, vm_kb * 1024 + int(spawn_cfg["memory_mb"]) * 2**20)


# ============================================================================ output
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


# ========================================================================= importing
class _SourceLoader(importlib.abc.Loader):
    def __init__(self, fullname: str, source: str, package: bool = False):
        self.fullname = fullname
        self.source = source
        self.package = package
        self.filename = f"{COURSE_FILE_PREFIX}{fullname}>"

    def create_module(self, spec):
        return None

    def exec_module(self, module) -> None:
        module.__file__ = self.filename
        if self.package:
            module.__path__ = []
        linecache.cache[self.filename] = (
            len(self.source), None, self.source.splitlines(True), self.filename,
        )  # fmt: skip
        exec(compile(self.source, self.filename, "exec"), module.__dict__)

    def get_source(self, fullname: str) -> str:
        return self.source


class _StandInModule(types.ModuleType):
    """``transformer_course.checks`` inside the sandbox: importing a check gives a no-op."""

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)

        def stand_in(*args, **kwargs):
            return None

        stand_in.__name__ = stand_in.__qualname__ = name
        stand_in.__doc__ = "The checks run in the grader, not in the notebook, while grading."
        return stand_in


class _StandInLoader(importlib.abc.Loader):
    def create_module(self, spec):
        module = _StandInModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module) -> None:
        module.__file__ = f"{COURSE_FILE_PREFIX}{module.__name__}>"


class _GuardedLoader(importlib.abc.Loader):
    def __init__(self, server: Server):
        self.server = server

    def create_module(self, spec):
        return None

    def exec_module(self, module) -> None:
        self.server.fill_guarded(module)


class CourseFinder(importlib.abc.MetaPathFinder):
    """Serves the course's reference modules from source sent by the grader, the current
    lesson's reference as a guarded module, and stand-ins for the checks."""

    def __init__(self, server: Server, sources: dict[str, str], guarded: str | None):
        self.server = server
        self.sources = sources
        self.guarded = guarded

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "transformer_course.checks" or fullname.startswith(
            "transformer_course.checks."
        ):
            return importlib.machinery.ModuleSpec(fullname, _StandInLoader(), is_package=True)
        if fullname == self.guarded:
            return importlib.machinery.ModuleSpec(fullname, _GuardedLoader(self.server))
        if fullname in self.sources:
            return importlib.machinery.ModuleSpec(
                fullname, _SourceLoader(fullname, self.sources[fullname])
            )
        return None


# ============================================================================ server
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
        if reply.get("release") is True:
            return self._release(name, watch=True)
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
        name = header.get("name")
        if not isinstance(name, str) or name in self.released:
            return {"ok": name in self.released}, []
        if self._release(name):
            return {"ok": True}, []
        return {"ok": False, "error": self.release_error}, []

    def _release(self, name: str, watch: bool = False) -> bool:
        """Run the reference's code for one exercise in the guarded module. ``watch``: it is
        released before its exercise is graded (for the lesson's own demo cells), so its
        methods report when they run, and the grader zeroes the exercise if they run while
        it is checked."""
        self.release_error = ""
        source = (self.guarded_spec.get("blocks") or {}).get(name)
        if source is None:
            return False
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
                server.trips.append({"api": f"reference:{name}", "exercise": server.exercise,
                                     "origin": None})  # fmt: skip
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
        for name in ("torch", "torch.nn.functional", "torch._C", "torch._C._nn", "torch.special",
                     "numpy", "scipy.special", "torch.nn"):  # fmt: skip
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
                        [frame.filename[:200], int(frame.lineno or 0), str(frame.name)[:100],
                         (frame.line or "")[:300]]
                    )  # fmt: skip
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
        out = BoundedWriter()
        saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = out
        error = None
        result = None
        with warnings.catch_warnings(record=True) as caught:
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
            [codec.safe_name(w.category.__name__, "UserWarning"), _builtin_bases(w.category),
             str(w.message)[:1000]]
            for w in caught[:20]
        ]  # fmt: skip
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


ALLOWED_MODULES = (
    "torch", "numpy", "math", "functools", "collections", "itertools", "operator",
    "transformer_course.reference", "transformer_course.checking", "transformer_course.data",
    "transformer_course.glossary",
)  # fmt: skip


def _allowed(module: str) -> str:
    if not any(module == a or module.startswith(a + ".") for a in ALLOWED_MODULES):
        raise codec.CodecError(f"the module {module!r} is not available in the sandbox")
    return module


def _import_allowed(dotted: str) -> Any:
    module_name, _, qualname = dotted.partition(":")
    obj: Any = importlib.import_module(_allowed(module_name))
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


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


if __name__ == "__main__":  # pragma: no cover
    main()
