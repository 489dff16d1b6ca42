"""Start and keep sandboxed zygotes; fork a fresh learner process per submission.

Two modes:

``bwrap`` (the default where it works): bubblewrap (Debian's ``bubblewrap``
package) starts the zygote in new pid, network, IPC and UTS namespaces (and a user
namespace when not run as root) with a filesystem built from read-only views: the
Python installation, the system libraries, and a *staged* copy of the course
package that has no ``checks/`` and no ``reference/`` modules (the grader sends the
reference modules a lesson may use as source, see :mod:`.inside`). The repository,
``solutions/``, ``autograde/`` (gradebook, submissions) and $HOME are simply not
there. Run as root, the zygote drops to a uid of its own; each learner process
then gets fresh user, mount, pid, IPC, UTS and network namespaces and a private
tmpfs (:mod:`.inside`).

Why bubblewrap rather than nsjail: both are in Debian; bubblewrap is the smaller
tool (a setuid-free namespace launcher used by Flatpak, maintained, one binary, no
configuration language), works unprivileged through user namespaces where the
kernel allows them, and everything this grader needs beyond it (per-submission
namespaces, rlimits, the fork server) is a few system calls done here. nsjail's
extras (seccomp policies, cgroups) would need root or a cgroup delegation that
instructors' machines and CI runners rarely have.

``process`` (the fallback, or forced with ``--sandbox process`` /
``COURSE_GRADER_SANDBOX=process``): a plain child process with rlimits, a private
scratch folder, a new session, and (when the grader runs as root and the Python
installation is readable to others) an unprivileged uid of its own. It does not
hide the filesystem or the network from the learner's code: the grader reports
"DEGRADED ISOLATION" in the summary and in every report.

Kernel limits, in both modes where the machine allows them (:meth:`Isolation.describe`
says which held; the summary shows it):

* a **seccomp filter** (:mod:`.seccomp_filter`, built with libseccomp): bubblewrap
  loads one for the whole sandbox (``--seccomp``), and each learner process loads a
  stricter one once its namespaces are made (no new namespaces, no mounts);
* a **cgroup** per zygote with a memory and a pids limit (:mod:`.kernel_limits`: v2
  where delegated, else v1 as root, else none);
* the rlimits of each learner process (:mod:`.inside`) in any case.

Nothing of the host's layout is on a sandboxed process's command line or in its
environment beyond the Python installation's own path (which ``sys.prefix`` shows
anyway): the zygote's configuration arrives on its stdin. Each zygote's temporary
folder (``course-grader-*``) holds a lock while its grader process lives; the next
grader removes the folders whose lock is free (a run that was killed).
"""

from __future__ import annotations

import atexit
import base64
import fcntl
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import transformer_course
from transformer_course.grader import kernel_limits, seccomp_filter

__all__ = ["Isolation", "Limits", "Zygote", "acquire", "isolation", "release", "shutdown"]

PACKAGE_DIR = Path(transformer_course.__file__).resolve().parent
STAGED_MOUNT = "/course"
HOLD_DIR = "/.course-hold"  # where a learner process holds /tmp while it makes its own
PREIMPORT = [
    "numpy",
    "torch",
    "torch.nn",
    "torch.nn.functional",
    "matplotlib",
    "matplotlib.pyplot",
    "IPython",
    "IPython.core.interactiveshell",
    "transformer_course",
    "transformer_course.checking",
    "transformer_course.checking.modules",
    "transformer_course.data",
    "transformer_course.glossary",
    "transformer_course.plotting",
    "transformer_course.grader.codec",
    "transformer_course.grader.inside.seccomp",
    "transformer_course.grader.inside.zygote",
    "collections",
    "math",
    "re",
    "itertools",
    "functools",
    "dataclasses",
    "typing",
]
ETC_FILES = [
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/nsswitch.conf",
    "/etc/passwd",
    "/etc/group",
    "/etc/fonts",
    "/etc/alternatives",
]
SYSTEM_DIRS = ["/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin"]
# The configuration comes on stdin (a command line is readable in /proc by every process of
# the sandbox): first the staged package's folder, then JSON for inside.boot.boot().
BOOT = (
    "import sys; sys.path.insert(0, sys.stdin.readline().rstrip('\\n')); "
    "from transformer_course.grader.inside.boot import boot; boot()"
)
TEMP_PREFIX = "course-grader-"
OWNER_LOCK = ".owner.lock"  # locked while the grader process that made the folder lives


@dataclass(frozen=True)
class Limits:
    """Limits for one submission's learner process (the grader enforces the wall clocks)."""

    cell_timeout: float = 60.0  # seconds for one cell
    check_timeout: float = 60.0  # seconds for one exercise's visible and hidden checks
    submission_timeout: float = 900.0  # seconds for the whole notebook
    reference_timeout: float = 10.0  # seconds for one call the grader runs of the reference
    cpu_s: int = 900  # CPU seconds of the learner process (RLIMIT_CPU)
    memory_mb: int = 2048  # memory (cgroup) and address space on top of the zygote's
    scratch_mb: int = 256  # size of the private tmpfs
    fsize_mb: int = 64  # largest file the learner's code may write
    nofile: int = 256  # open files
    nproc: int = 64  # processes and threads (on top of what the uid already runs)
    pids: int = 256  # tasks in the sandbox's cgroup (on top of the zygote's own)
    max_restarts: int = 6  # sandbox restarts (crashes, timeouts) per submission
    rlimit_as: bool = True  # RLIMIT_AS too (tests switch it off to see the cgroup alone)

    def spawn_config(self, base_processes: int = 0) -> dict:
        return {
            "cpu_s": self.cpu_s,
            "memory_mb": self.memory_mb if self.rlimit_as else 0,
            "scratch_mb": self.scratch_mb,
            "fsize_mb": self.fsize_mb,
            "nofile": self.nofile,
            "nproc": base_processes + self.nproc if self.nproc else 0,
        }


@dataclass
class Isolation:
    """What the sandbox guarantees on this machine."""

    mode: str  # "bwrap" or "process"
    degraded: bool
    reason: str = ""
    details: dict = field(default_factory=dict)

    def describe(self) -> str:
        if not self.degraded:
            text = "bubblewrap sandbox (namespaces, read-only system, private scratch, no network)"
        else:
            text = (
                "DEGRADED ISOLATION: learner code runs as a plain process with rlimits and a "
                "private scratch folder, but can read the filesystem and reach the network "
                f"({self.reason})"
            )
        kernel = self.details.get("kernel")
        return f"{text}; {kernel}" if kernel else text

    @property
    def seccomp(self) -> dict[str, bytes]:
        """The filter programs in force: {"sandbox": ..., "learner": ...} (or empty)."""
        return self.details.get("seccomp_programs", {})


def _kernel_details(mode: str) -> dict:
    """Which kernel mechanisms hold here (see :mod:`.kernel_limits`, :mod:`.seccomp_filter`)."""
    held, missing = [], []
    programs: dict[str, bytes] = {}
    if os.environ.get("COURSE_GRADER_SECCOMP", "auto") == "off":
        missing.append("no seccomp filter (switched off: COURSE_GRADER_SECCOMP)")
    else:
        try:
            programs = {kind: seccomp_filter.build(kind) for kind in ("sandbox", "learner")}
        except (seccomp_filter.SeccompUnavailable, OSError) as exc:
            missing.append(f"no seccomp filter ({exc})")
        else:
            if mode == "bwrap" and not _bwrap_accepts_seccomp(programs["sandbox"]):
                programs.pop("sandbox")
                missing.append("bubblewrap refused the sandbox-wide seccomp filter")
            held.append(
                "seccomp filter"
                + (" (sandbox and learner)" if "sandbox" in programs else " (learner)")
            )
    cgroups, why_not = kernel_limits.detect()
    held += [f"{h.describe()} limit" for h in cgroups.values()]
    missing += [f"no {controller} cgroup ({why})" for controller, why in why_not.items()]
    text = "kernel limits: " + (", ".join(held) if held else "rlimits only")
    if missing:
        text += "; " + "; ".join(missing)
    return {"kernel": text, "seccomp_programs": programs, "cgroups": sorted(cgroups)}


def _bwrap_accepts_seccomp(program: bytes) -> bool:
    binary = shutil.which("bwrap")
    if binary is None:
        return False
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, program)
        os.close(write_end)
        write_end = -1
        command = [
            binary,
            *_bwrap_namespace_args(),
            "--seccomp",
            str(read_end),
            "--ro-bind",
            "/",
            "/",
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            "--",
            "/bin/true",
        ]
        result = subprocess.run(command, capture_output=True, timeout=30, pass_fds=[read_end])
        return result.returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False
    finally:
        os.close(read_end)
        if write_end >= 0:
            os.close(write_end)


# ------------------------------------------------------------------------- detection
_ISOLATION: dict[str, Isolation] = {}
_LOCK = threading.RLock()


def requested_mode(mode: str | None = None) -> str:
    mode = mode or os.environ.get("COURSE_GRADER_SANDBOX", "auto")
    if mode not in {"auto", "bwrap", "process"}:
        raise ValueError(f"sandbox mode must be auto, bwrap or process, not {mode!r}")
    return mode


def isolation(mode: str | None = None) -> Isolation:
    """Decide (once per process) which sandbox to use."""
    mode = requested_mode(mode)
    with _LOCK:
        if mode in _ISOLATION:
            return _ISOLATION[mode]
        if mode == "process":
            result = Isolation("process", True, "the process sandbox was asked for")
        else:
            ok, reason = _probe_bwrap()
            if ok:
                result = Isolation("bwrap", False)
            elif mode == "bwrap":
                raise RuntimeError(f"bubblewrap sandbox unavailable: {reason}")
            else:
                result = Isolation("process", True, reason)
        result.details.update(_kernel_details(result.mode))
        _ISOLATION[mode] = result
        return result


def _probe_bwrap() -> tuple[bool, str]:
    binary = shutil.which("bwrap")
    if binary is None:
        return False, "bwrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    command = [
        binary,
        *_bwrap_namespace_args(),
        "--ro-bind",
        "/",
        "/",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--",
        "/bin/true",
    ]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"bwrap failed to start: {exc}"
    if result.returncode != 0:
        text = (result.stderr or result.stdout).strip().splitlines()
        return (
            False,
            f"bwrap cannot create namespaces here: {text[-1] if text else result.returncode}",
        )
    return True, ""


def _bwrap_namespace_args() -> list[str]:
    args = [
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--die-with-parent",
        "--new-session",
    ]
    if os.geteuid() == 0:
        args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        args.insert(0, "--unshare-user")
    return args


# ---------------------------------------------------------------------------- staging
def stage_package(destination: Path) -> Path:
    """A copy of the course package without the checks and the reference modules."""
    root = destination / "transformer_course"

    def ignore(directory: str, names: list[str]) -> set[str]:
        skipped = {n for n in names if n == "__pycache__" or n.endswith((".pyc", ".pyo"))}
        here = Path(directory).resolve()
        if here == PACKAGE_DIR:
            skipped |= {"checks"}
        if here == PACKAGE_DIR / "reference":
            skipped |= {n for n in names if n != "__init__.py"}
        return skipped

    shutil.copytree(PACKAGE_DIR, root, ignore=ignore)
    for path in [destination, *destination.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return destination


def _python_paths(repo_hidden: list[str]) -> list[str]:
    """Folders of the Python installation that the sandbox needs (read-only): its prefixes,
    and package folders (``site-packages``, ``dist-packages``) outside them. Other entries of
    ``sys.path`` are not: ``python -m`` puts the current folder there (a home folder, say)."""
    candidates = {
        sys.prefix,
        sys.exec_prefix,
        sys.base_prefix,
        sys.base_exec_prefix,
        str(Path(os.path.realpath(sys.executable)).parent.parent),
    }
    for entry in sys.path:
        if entry and os.path.isdir(entry):
            if Path(entry).name in ("site-packages", "dist-packages"):
                candidates.add(entry)
    paths = set()
    for candidate in candidates:
        for path in {os.path.abspath(candidate), os.path.realpath(candidate)}:
            if any(path == h or path.startswith(h + os.sep) for h in repo_hidden):
                # inside the repository: only the virtual environment may be shown
                if not (path == sys.prefix or path.startswith(sys.prefix + os.sep)):
                    continue
            if os.path.isdir(path):
                paths.add(path)
    ordered = sorted(paths, key=len)
    result: list[str] = []
    for path in ordered:
        if not any(path == p or path.startswith(p + os.sep) for p in result):
            result.append(path)
    return result


def _hidden_roots() -> list[str]:
    """What must never be visible: the source tree of the course package (and with it the
    repository: solutions/, autograde/, the gradebook, submissions)."""
    src = PACKAGE_DIR.parent
    roots = [str(src)]
    repo = src.parent
    if (repo / "pyproject.toml").exists() or (repo / "solutions").is_dir():
        roots.append(str(repo))
    return [os.path.realpath(r) for r in roots]


def _clean_env(home: str, extra_path: str) -> dict[str, str]:
    env = {
        "PATH": os.pathsep.join([extra_path, "/usr/local/bin", "/usr/bin", "/bin"]),
        "HOME": home,
        "TMPDIR": home,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "NUMEXPR_NUM_THREADS": "1",
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": os.path.join(home, ".matplotlib"),
        "IPYTHONDIR": os.path.join(home, ".ipython"),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONNOUSERSITE": "1",
        "NBGRADER_EXECUTION": "autograde",
        "COURSE_STATIC_FIGURES": "1",
    }
    return env


_uid_counter = 0


def _private_uid() -> int:
    global _uid_counter
    with _LOCK:
        _uid_counter += 1
        return 10_000_000 + (os.getpid() % 1_000_000) * 8 + (_uid_counter % 8)


# ----------------------------------------------------------------------------- zygote
class ZygoteError(RuntimeError):
    pass


class Zygote:
    """One sandbox with a pre-imported Python that forks a learner process on request."""

    def __init__(self, iso: Isolation):
        self.isolation = iso
        self.process: subprocess.Popen | None = None
        self.control: socket.socket | None = None
        self.scratch: tempfile.TemporaryDirectory | None = None
        self.info: dict = {}
        self.uid: int | None = None
        self.cgroup: kernel_limits.SandboxCgroup | None = None
        self.owner_lock: int | None = None
        # one request and its reply at a time: a timer thread that kills or interrupts the
        # learner process must not take the reply to another thread's "wait"
        self.requests = threading.Lock()

    # ------------------------------------------------------------------ start/stop
    def start(self, timeout: float = 180.0) -> None:
        remove_stale_folders()
        self.scratch = tempfile.TemporaryDirectory(prefix=TEMP_PREFIX)
        base = Path(self.scratch.name)
        base.chmod(0o755)
        self.owner_lock = _lock_owner(base)
        staged = stage_package(base / "staged")
        home = base / "home"
        home.mkdir(mode=0o755)
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        hidden = _hidden_roots()
        python = sys.executable
        config = {
            "control_fd": child.fileno(),
            "preimport": PREIMPORT,
            "hide_paths": hidden,
        }
        programs = self.isolation.seccomp
        if "learner" in programs:  # loaded by each learner process (worker._learner_main)
            config["learner_seccomp"] = base64.b64encode(programs["learner"]).decode()
        pass_fds = [child.fileno()]
        seccomp_fd = args_fd = None
        if self.isolation.mode == "bwrap":
            config.update(staged=STAGED_MOUNT, namespaces=True, private_pids=True)
            under_tmp = [p for p in _python_paths(hidden) if p.startswith("/tmp/")]
            if under_tmp:  # each learner's private /tmp must not hide them (worker.py)
                config.update(keep_under_tmp=under_tmp, hold_dir=HOLD_DIR)
            if os.geteuid() == 0:
                self.uid = _private_uid()
                config.update(uid=self.uid, gid=self.uid)
            env = _clean_env("/tmp", str(Path(python).parent))
            options = [
                *_bwrap_namespace_args(),
                *self._mounts(str(staged), hidden),
                "--chdir",
                "/tmp",
            ]
            if "sandbox" in programs:
                seccomp_fd = _fd_with(programs["sandbox"])
                pass_fds.append(seccomp_fd)
                options += ["--seccomp", str(seccomp_fd)]
            # bubblewrap's options (host paths) on an fd: its own process is pid 1 inside
            args_fd = _fd_with(b"".join(arg.encode() + b"\0" for arg in options))
            pass_fds.append(args_fd)
            command = [
                shutil.which("bwrap") or "bwrap",
                "--args",
                str(args_fd),
                "--",
                python,
                "-c",
                BOOT,
            ]
        else:
            scratch_root = base / "scratch"
            scratch_root.mkdir(mode=0o700)
            config.update(
                staged=str(staged),
                namespaces=False,
                private_pids=False,
                parent_death=True,
                scratch_root=str(scratch_root),
            )
            if os.geteuid() == 0 and self._others_can_run_python():
                self.uid = _private_uid()
                config.update(uid=self.uid, gid=self.uid)
                os.chown(scratch_root, self.uid, self.uid)
                os.chown(home, self.uid, self.uid)
            env = _clean_env(str(home), str(Path(python).parent))
            command = [python, "-c", BOOT]
        self.cgroup = kernel_limits.SandboxCgroup.create()
        try:
            self.process = subprocess.Popen(
                command,
                env=env,
                pass_fds=pass_fds,
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                start_new_session=True,
                cwd=str(home),
                preexec_fn=self.cgroup.attach if self.cgroup else None,
            )
        finally:
            child.close()
            for fd in (seccomp_fd, args_fd):
                if fd is not None:
                    os.close(fd)
        self.control = parent
        try:
            staged_line = config["staged"] + "\n"
            self.process.stdin.write((staged_line + json.dumps(config)).encode())
            self.process.stdin.close()
        except OSError:
            pass  # it died at once: _receive says so, with its stderr
        try:
            self.info = self._receive(timeout)
        except ZygoteError as exc:
            detail = self._stderr_tail()
            self.stop()
            raise ZygoteError(f"the sandbox did not start: {exc}\n{detail}") from None
        if self.info.get("op") != "ready":
            self.stop()
            raise ZygoteError(f"the sandbox did not start: {self.info}")
        if self.cgroup is not None:
            self.cgroup.measure_base()
        threading.Thread(target=self._drain_stderr, daemon=True).start()

    def _drain_stderr(self) -> None:
        process = self.process
        if process is None or process.stderr is None:
            return
        try:
            while process.stderr.read(65536):
                pass
        except (OSError, ValueError):
            pass

    def _stderr_tail(self) -> str:
        process = self.process
        if process is None or process.stderr is None:
            return ""
        try:
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                return ""
            return process.stderr.read().decode(errors="replace")[-3000:]
        except (OSError, ValueError):
            return ""

    def _others_can_run_python(self) -> bool:
        """Can an unprivileged uid read the Python installation (for the process mode)?"""
        for path in [*_python_paths(_hidden_roots()), os.path.realpath(sys.executable)]:
            current = Path(path)
            for part in [current, *current.parents]:
                try:
                    mode = part.stat().st_mode
                except OSError:
                    return False
                if not mode & 0o001:
                    return False
        return True

    def _mounts(self, staged: str, hidden: list[str]) -> list[str]:
        args: list[str] = []
        for directory in SYSTEM_DIRS:
            if os.path.islink(directory):
                args += ["--symlink", os.readlink(directory), directory]
            elif os.path.isdir(directory):
                args += ["--ro-bind", directory, directory]
        args += ["--perms", "0755", "--dir", "/etc"]
        for path in ETC_FILES:
            if os.path.exists(path):
                args += ["--ro-bind", path, path]
        python_paths = _python_paths(hidden)
        made: set[str] = set()
        if any(path.startswith("/tmp/") for path in python_paths):
            # a Python installation below /tmp: the private /tmp first, its binds on top
            args += ["--tmpfs", "/tmp", "--perms", "0755", "--dir", HOLD_DIR]
            made.add("/tmp")
        for path in python_paths:
            if not any(path == d or path.startswith(d + os.sep) for d in SYSTEM_DIRS):
                # bwrap would create the parent folders with mode 0700, unreadable to the
                # unprivileged uid: create them first, world-traversable
                parents = list(Path(path).parents)[::-1][1:]
                for parent in map(str, parents):
                    if parent not in made and parent not in SYSTEM_DIRS:
                        made.add(parent)
                        args += ["--perms", "0755", "--dir", parent]
                args += ["--ro-bind", path, path]
        for entry in sys.path:  # an installed (non-editable) copy of the package: hide it
            copy = os.path.join(entry or ".", "transformer_course")
            real = os.path.realpath(copy)
            if os.path.isdir(copy) and any(real.startswith(p + os.sep) for p in python_paths):
                args += ["--tmpfs", real]
        args += ["--ro-bind", staged, STAGED_MOUNT, "--proc", "/proc", "--dev", "/dev"]
        if "/tmp" not in made:
            args += ["--tmpfs", "/tmp"]
        return args

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self) -> None:
        if self.control is not None:
            try:
                self.control.sendall(json.dumps({"op": "exit"}).encode())
            except OSError:
                pass
            self.control.close()
            self.control = None
        if self.process is not None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except OSError:
                pass
            try:
                self.process.kill()
            except OSError:
                pass
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:  # pragma: no cover
                pass
            self.process = None
        if self.uid is not None and self.isolation.mode == "process":
            _kill_uid(self.uid)
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None
        if self.scratch is not None:
            _remove_tree(Path(self.scratch.name))
            self.scratch = None
        if self.owner_lock is not None:
            os.close(self.owner_lock)
            self.owner_lock = None

    # --------------------------------------------------------------------- control
    def _send(self, message: dict, fds=()) -> None:
        data = json.dumps(message).encode()
        try:
            if fds:
                socket.send_fds(self.control, [data], list(fds))
            else:
                self.control.sendall(data)
        except OSError as exc:
            raise ZygoteError(f"lost contact with the sandbox: {exc}") from None

    def _receive(self, timeout: float) -> dict:
        import select

        if self.control is None:
            raise ZygoteError("the sandbox is not running")
        ready, _, _ = select.select([self.control], [], [], timeout)
        if not ready:
            raise ZygoteError("the sandbox did not answer")
        try:
            data = self.control.recv(65536)
        except OSError as exc:
            raise ZygoteError(f"lost contact with the sandbox: {exc}") from None
        if not data:
            raise ZygoteError("the sandbox closed its control channel")
        try:
            return json.loads(data)
        except ValueError:
            raise ZygoteError("the sandbox sent a malformed reply") from None

    def spawn(self, limits: Limits) -> LearnerProcess:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        base = 0 if self.uid is not None else _processes_of(os.getuid())
        if self.cgroup is not None:  # the previous learner process is gone: set them afresh
            try:
                self.cgroup.set_limits(limits.memory_mb * 2**20, limits.pids)
            except OSError as exc:
                raise ZygoteError(f"the sandbox's cgroup limits could not be set: {exc}") from None
        try:
            reply = self._request(
                {"op": "spawn", "cfg": limits.spawn_config(base)}, 30.0, fds=[theirs.fileno()]
            )
        finally:
            theirs.close()
        if not reply.get("ok") or type(reply.get("pid")) is not int:
            ours.close()
            raise ZygoteError(f"the sandbox could not start a learner process: {reply}")
        oom_kills = self.cgroup.oom_kills() if self.cgroup and self.cgroup.limits_memory else None
        return LearnerProcess(self, ours, reply["pid"], oom_kills)

    def _request(self, message: dict, timeout: float, fds=()) -> dict:
        with self.requests:
            self._send(message, fds)
            return self._receive(timeout)

    def kill(self, pid: int) -> None:
        self._request({"op": "kill", "pid": pid}, 30.0)

    def interrupt(self, pid: int) -> None:
        self._request({"op": "interrupt", "pid": pid}, 30.0)

    def wait(self, pid: int, timeout: float = 10.0) -> dict:
        return self._request({"op": "wait", "pid": pid, "timeout": timeout}, timeout + 30.0)


def _processes_of(uid: int) -> int:
    """How many processes (threads included) a uid runs now: RLIMIT_NPROC counts them all."""
    count = 0
    try:
        names = os.listdir("/proc")
    except OSError:
        return 0
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/status") as handle:
                fields = dict(line.split(":", 1) for line in handle if ":" in line)
        except OSError:
            continue
        if int(fields.get("Uid", "-1").split()[0]) == uid:
            count += int(fields.get("Threads", "1").strip() or 1)
    return count


def _kill_uid(uid: int) -> None:
    """Kill every process of a private uid (process mode, run as root)."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/status") as handle:
                for line in handle:
                    if line.startswith("Uid:"):
                        if int(line.split()[1]) == uid:
                            os.kill(int(name), signal.SIGKILL)
                        break
        except (OSError, ValueError):
            continue


def _fd_with(data: bytes) -> int:
    """A file descriptor to read ``data`` from (an unlinked temporary file, at offset 0)."""
    with tempfile.TemporaryFile() as handle:
        handle.write(data)
        handle.flush()
        fd = os.dup(handle.fileno())
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _lock_owner(folder: Path) -> int:
    """Lock ``folder``'s owner file for as long as this process lives (the lock goes with it)."""
    fd = os.open(folder / OWNER_LOCK, os.O_CREAT | os.O_RDWR, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    os.write(fd, str(os.getpid()).encode())
    return fd


_STALE_CHECKED = False
UNLOCKED_GRACE_S = 24 * 3600  # a folder without an owner file (an older grader's) is kept a day


def remove_stale_folders(force: bool = False) -> list[Path]:
    """Remove the ``course-grader-*`` folders of grader processes that are gone (killed
    runs): those whose owner lock nobody holds. Once per process unless ``force``."""
    global _STALE_CHECKED
    with _LOCK:
        if _STALE_CHECKED and not force:
            return []
        _STALE_CHECKED = True
    removed = []
    root = Path(tempfile.gettempdir())
    try:
        candidates = [p for p in root.iterdir() if p.name.startswith(TEMP_PREFIX)]
    except OSError:
        return removed
    for folder in candidates:
        if folder.is_symlink() or not folder.is_dir():
            continue
        try:
            if folder.stat().st_uid != os.geteuid():
                continue  # another user's grader: not ours to judge
            fd = os.open(folder / OWNER_LOCK, os.O_RDWR | os.O_NOFOLLOW)
        except FileNotFoundError:
            try:
                if time.time() - folder.stat().st_mtime > UNLOCKED_GRACE_S:
                    _remove_tree(folder)
                    removed.append(folder)
            except OSError:
                pass
            continue
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)  # locked: its grader is running
            continue
        try:
            _remove_tree(folder)
            removed.append(folder)
        finally:
            os.close(fd)
    return removed


def _remove_tree(path: Path) -> None:
    def onerror(function, failed, info):
        try:
            os.chmod(failed, 0o700)
            function(failed)
        except OSError:
            pass

    shutil.rmtree(path, onerror=onerror)


class LearnerProcess:
    """One learner process: its socket, and how to stop it."""

    def __init__(self, zygote: Zygote, sock: socket.socket, pid: int, oom_kills: int | None = None):
        self.zygote = zygote
        self.sock = sock
        self.pid = pid
        self.oom_kills = oom_kills  # the memory cgroup's count when it started (None: none)
        self.killed = False
        self._status: dict | None = None

    def kill(self) -> None:
        if not self.killed:
            self.killed = True
            try:
                self.zygote.kill(self.pid)
            except ZygoteError:
                self.zygote.stop()

    def oom_killed(self) -> bool | None:
        """Did the kernel kill a process of the sandbox for memory since this one started?
        (None: no memory cgroup is in force, so only the kernel's log could say.)"""
        cgroup = self.zygote.cgroup
        if self.oom_kills is None or cgroup is None:
            return None
        return cgroup.oom_kills() > self.oom_kills

    def interrupt(self) -> bool:
        try:
            self.zygote.interrupt(self.pid)
            return True
        except ZygoteError:
            return False

    def status(self, timeout: float = 5.0) -> dict:
        """How it ended: {"exit": code or None, "signal": number or None} (waits a little)."""
        if self._status is None:
            try:
                reply = self.zygote.wait(self.pid, timeout)
            except ZygoteError:
                reply = {"ok": False}
            if not reply.get("ok"):
                self.kill()
                try:
                    reply = self.zygote.wait(self.pid, 10.0)
                except ZygoteError:
                    reply = {"ok": False}
            self._status = reply if reply.get("ok") else {"exit": None, "signal": None}
        return self._status

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass
        self.kill()
        self.status()


# ------------------------------------------------------------------------------- pool
_FREE: dict[str, list[Zygote]] = {}
_ALL: list[Zygote] = []


_STARTING: dict[str, threading.Event] = {}


def prestart(mode: str | None = None) -> None:
    """Start a zygote in the background (a worker process does this while it imports the
    checks), so that the first submission does not wait for the interpreter and torch."""
    iso = isolation(mode)
    with _LOCK:
        if _FREE.get(iso.mode) or iso.mode in _STARTING:
            return
        done = _STARTING[iso.mode] = threading.Event()

    def start() -> None:
        try:
            zygote = Zygote(iso)
            zygote.start()
            with _LOCK:
                _ALL.append(zygote)
            release(zygote)
        except Exception:  # the first submission will start one and report the problem
            pass
        finally:
            with _LOCK:
                _STARTING.pop(iso.mode, None)
            done.set()

    threading.Thread(target=start, daemon=True, name="zygote-prestart").start()


def acquire(mode: str | None = None) -> Zygote:
    """A running zygote for the calling thread (started on first use, then reused)."""
    iso = isolation(mode)
    starting = _STARTING.get(iso.mode)
    if starting is not None:
        starting.wait(300)
    with _LOCK:
        free = _FREE.setdefault(iso.mode, [])
        while free:
            zygote = free.pop()
            if zygote.alive():
                return zygote
            zygote.stop()
    zygote = Zygote(iso)
    zygote.start()
    with _LOCK:
        _ALL.append(zygote)
    return zygote


def release(zygote: Zygote) -> None:
    with _LOCK:
        if zygote.alive():
            _FREE.setdefault(zygote.isolation.mode, []).append(zygote)
        else:
            zygote.stop()


def discard(zygote: Zygote) -> None:
    zygote.stop()


def shutdown() -> None:
    with _LOCK:
        for zygote in _ALL:
            zygote.stop()
        _ALL.clear()
        _FREE.clear()


atexit.register(shutdown)
