"""Memory and process limits that the kernel holds for a whole sandbox: a cgroup per
zygote, with a memory limit and a pids limit.

``RLIMIT_AS`` (set in each learner process) limits one process's address space, but
not what the kernel holds for it elsewhere (shared memory files, tmpfs pages, kernel
buffers), and ``RLIMIT_NPROC`` counts per uid, not per sandbox. A cgroup counts all
of it for every process of the sandbox, and the kernel's OOM killer ends the largest
one (the learner's) when the memory limit is reached.

Which cgroup, in this order (each controller on its own):

1. **cgroup v2**, where the grader's own cgroup lets it create a child with the
   ``memory`` and ``pids`` controllers (root on a pure v2 host, or a delegated
   subtree: ``systemd-run --user -p Delegate=yes``); ``memory.max``,
   ``memory.swap.max = 0``, ``pids.max``.
2. **cgroup v1**, where the controller's hierarchy is mounted and the grader may
   create a child of its own cgroup there (root on a v1 or hybrid host);
   ``memory.limit_in_bytes`` (and ``memory.memsw.limit_in_bytes`` where swap is
   accounted), ``pids.max``.
3. **none**: the rlimits alone, and :func:`detect` says why (the grader's summary
   shows it).

The zygote is put into its cgroup before it runs anything (``attach`` runs in the
child between ``fork`` and ``exec``). Its limits are set again before each learner
process starts: memory = what the zygote uses + the submission's ``memory_mb``;
pids = the zygote's own tasks + the submission's ``pids``. Cgroups are named
``course-grader-<pid>-<n>``; one whose grader process is gone is removed by the next
grader that starts.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from dataclasses import dataclass

__all__ = ["CONTROLLERS", "Hierarchy", "SandboxCgroup", "detect", "remove_stale"]

CONTROLLERS = ("memory", "pids")
PREFIX = "course-grader-"
_counter = itertools.count(1)
_LOCK = threading.Lock()


@dataclass(frozen=True)
class Hierarchy:
    """Where a controller's child cgroups go."""

    controller: str
    version: int  # 1 or 2
    parent: str  # the grader's own cgroup folder, where children are made

    def describe(self) -> str:
        return f"cgroup v{self.version} {self.controller}"


def _mounts() -> list[tuple[str, str, str]]:
    """(mount point, filesystem type, super options) of every cgroup mount."""
    found = []
    try:
        with open("/proc/self/mountinfo") as handle:
            for line in handle:
                left, _, right = line.partition(" - ")
                fields, tail = left.split(), right.split()
                if len(fields) >= 5 and len(tail) >= 3 and tail[0] in ("cgroup", "cgroup2"):
                    found.append((fields[4].replace("\\040", " "), tail[0], tail[2]))
    except OSError:
        pass
    return found


def _own_paths() -> dict[str, str]:
    """The grader's own cgroup per v1 controller, and under "" its v2 cgroup."""
    paths = {}
    try:
        with open("/proc/self/cgroup") as handle:
            for line in handle:
                number, controllers, path = line.rstrip("\n").split(":", 2)
                if number == "0" and controllers == "":
                    paths[""] = path
                for name in controllers.split(","):
                    paths[name] = path
    except OSError:
        pass
    return paths


def _read(path: str) -> str:
    with open(path) as handle:
        return handle.read()


def _write(path: str, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


def _v2_hierarchy(controller: str, mounts, own) -> tuple[Hierarchy | None, str]:
    v2 = [m for m in mounts if m[1] == "cgroup2"]
    if not v2 or "" not in own:
        return None, "no cgroup v2 hierarchy"
    parent = os.path.join(v2[0][0], own[""].lstrip("/"))
    try:
        enabled = _read(os.path.join(parent, "cgroup.subtree_control")).split()
        if controller not in enabled:
            if controller not in _read(os.path.join(parent, "cgroup.controllers")).split():
                return None, f"cgroup v2 has no {controller} controller here"
            _write(os.path.join(parent, "cgroup.subtree_control"), f"+{controller}")
    except OSError as exc:
        return None, f"cgroup v2 {controller} cannot be delegated ({exc.strerror})"
    if not os.access(parent, os.W_OK):
        return None, f"cgroup v2 {parent} is not writable"
    return Hierarchy(controller, 2, parent), ""


def _v1_hierarchy(controller: str, mounts, own) -> tuple[Hierarchy | None, str]:
    v1 = [m for m in mounts if m[1] == "cgroup" and controller in m[2].split(",")]
    if not v1 or controller not in own:
        return None, f"no cgroup v1 {controller} hierarchy"
    parent = os.path.join(v1[0][0], own[controller].lstrip("/"))
    if not os.path.isdir(parent) or not os.access(parent, os.W_OK):
        return None, f"cgroup v1 {controller} is not writable (run the grader as root)"
    return Hierarchy(controller, 1, parent), ""


_DETECTED: tuple[dict[str, Hierarchy], dict[str, str]] | None = None


def detect() -> tuple[dict[str, Hierarchy], dict[str, str]]:
    """({controller: hierarchy}, {controller: why not}) for this machine (once)."""
    global _DETECTED
    with _LOCK:
        if _DETECTED is None:
            if os.environ.get("COURSE_GRADER_CGROUPS", "auto") == "off":
                _DETECTED = {}, dict.fromkeys(CONTROLLERS, "switched off (COURSE_GRADER_CGROUPS)")
                return _DETECTED
            mounts, own = _mounts(), _own_paths()
            found, missing = {}, {}
            for controller in CONTROLLERS:
                reasons = []
                for probe in (_v2_hierarchy, _v1_hierarchy):
                    hierarchy, reason = probe(controller, mounts, own)
                    if hierarchy is not None and _can_create(hierarchy):
                        found[controller] = hierarchy
                        break
                    reasons.append(reason or f"cannot create a cgroup in {hierarchy.parent}")
                else:
                    missing[controller] = "; ".join(reasons)
            _DETECTED = found, missing
            for hierarchy in found.values():
                remove_stale(hierarchy)
        return _DETECTED


def _can_create(hierarchy: Hierarchy) -> bool:
    probe = os.path.join(hierarchy.parent, f"{PREFIX}probe-{os.getpid()}")
    try:
        os.mkdir(probe)
    except FileExistsError:
        pass
    except OSError:
        return False
    try:
        names = os.listdir(probe)
        wanted = "memory.max" if hierarchy.version == 2 else "memory.limit_in_bytes"
        if hierarchy.controller == "pids":
            wanted = "pids.max"
        return wanted in names
    finally:
        try:
            os.rmdir(probe)
        except OSError:
            pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale(hierarchy: Hierarchy) -> list[str]:
    """Remove the cgroups that a grader process which is gone left behind."""
    removed = []
    try:
        names = os.listdir(hierarchy.parent)
    except OSError:
        return removed
    for name in names:
        if not name.startswith(PREFIX):
            continue
        owner = name[len(PREFIX) :].split("-")[0]  # course-grader-<pid>-<n>
        if owner.isdigit() and not _alive(int(owner)):
            path = os.path.join(hierarchy.parent, name)
            _kill_members(path)
            if _rmdir(path):
                removed.append(path)
    return removed


def _kill_members(path: str) -> None:
    import signal

    try:
        members = _read(os.path.join(path, "cgroup.procs")).split()
    except OSError:
        return
    for pid in members:
        try:
            os.kill(int(pid), signal.SIGKILL)
        except (OSError, ValueError):
            pass


def _rmdir(path: str, attempts: int = 20) -> bool:
    for _ in range(attempts):
        try:
            os.rmdir(path)
            return True
        except FileNotFoundError:
            return True
        except OSError:
            time.sleep(0.05)
    return False


class SandboxCgroup:
    """One zygote's cgroups (one per controller; the same folder name in each)."""

    def __init__(self, hierarchies: dict[str, Hierarchy]):
        self.name = f"{PREFIX}{os.getpid()}-{next(_counter)}"
        self.paths: dict[str, str] = {}
        self.hierarchies = hierarchies
        self.base_memory = 0
        self.base_pids = 0
        for controller, hierarchy in hierarchies.items():
            path = os.path.join(hierarchy.parent, self.name)
            os.makedirs(path, exist_ok=True)
            self.paths[controller] = path
        # the procs files, opened now: attach() runs between fork and exec, where only
        # plain system calls are safe
        self._procs = sorted({os.path.join(p, "cgroup.procs") for p in self.paths.values()})

    @classmethod
    def create(cls) -> SandboxCgroup | None:
        found, _ = detect()
        if not found:
            return None
        try:
            return cls(found)
        except OSError:
            return None

    def describe(self) -> str:
        return ", ".join(h.describe() for h in self.hierarchies.values())

    def attach(self) -> None:
        """Move the calling process into the cgroups (``preexec_fn`` of the zygote)."""
        pid = str(os.getpid()).encode()
        for path in self._procs:
            fd = os.open(path, os.O_WRONLY)
            try:
                os.write(fd, pid)
            finally:
                os.close(fd)

    def _file(self, controller: str, v1: str, v2: str) -> str:
        version = self.hierarchies[controller].version
        return os.path.join(self.paths[controller], v2 if version == 2 else v1)

    def memory_usage(self) -> int:
        if "memory" not in self.paths:
            return 0
        return int(_read(self._file("memory", "memory.usage_in_bytes", "memory.current")))

    def tasks(self) -> int:
        if "pids" not in self.paths:
            return 0
        return int(_read(os.path.join(self.paths["pids"], "pids.current")))

    def measure_base(self) -> None:
        """What the zygote itself uses (once it is ready): the limits go on top."""
        self.base_memory = self.memory_usage()
        self.base_pids = self.tasks()

    def set_limits(self, memory_bytes: int | None, pids: int | None) -> None:
        """``memory_bytes`` and ``pids`` on top of the zygote's own (None: no limit)."""
        if "memory" in self.paths:
            total = str(self.base_memory + memory_bytes) if memory_bytes else None
            if self.hierarchies["memory"].version == 2:
                _write(os.path.join(self.paths["memory"], "memory.max"), total or "max")
                swap = os.path.join(self.paths["memory"], "memory.swap.max")
                if os.path.exists(swap):
                    _write(swap, "0")
            else:
                limit = os.path.join(self.paths["memory"], "memory.limit_in_bytes")
                memsw = os.path.join(self.paths["memory"], "memory.memsw.limit_in_bytes")
                value = total or "-1"
                if os.path.exists(memsw):  # memsw >= limit at every step
                    if total is None:
                        _write(memsw, "-1")
                        _write(limit, "-1")
                    else:
                        try:
                            _write(limit, value)  # refused while memsw is lower: raise it first
                        except OSError:
                            pass
                        _write(memsw, value)
                        _write(limit, value)
                else:
                    _write(limit, value)
        if "pids" in self.paths:
            value = str(self.base_pids + pids) if pids else "max"
            _write(os.path.join(self.paths["pids"], "pids.max"), value)

    @property
    def limits_memory(self) -> bool:
        """A memory controller of this cgroup is in force (its oom-kill count means something)."""
        return "memory" in self.paths

    def oom_kills(self) -> int:
        """How many processes the kernel killed for the memory limit so far."""
        if "memory" not in self.paths:
            return 0
        name = self._file("memory", "memory.oom_control", "memory.events")
        try:
            for line in _read(name).splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        except (OSError, ValueError):
            pass
        return 0

    def remove(self) -> None:
        for path in self.paths.values():
            _kill_members(path)
            _rmdir(path)
        self.paths = {}
