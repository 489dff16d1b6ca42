"""Process control inside the sandbox: the zygote, and the learner processes it forks.

Processes (see :mod:`transformer_course.grader.sandbox` for how the zygote is started):

* the **zygote** imports numpy, torch, IPython, matplotlib and the course package
  once, drops its privileges, makes itself non-dumpable, and then only forks. It
  never runs learner code.
* for each submission it forks an **intermediate** process that, where the kernel
  allows, enters fresh user, mount, pid, IPC and network namespaces and forks
* the **learner process**: pid 1 of its own pid namespace (when it ends, the kernel
  kills every process it left behind), with a private tmpfs as ``/tmp`` (its
  scratch folder and $HOME), no capabilities, rlimits on CPU time, address space,
  file size, open files and processes, and no way to signal or trace the zygote.
  It serves the grader's requests (:mod:`.server`).
"""

from __future__ import annotations

import ctypes
import importlib
import json
import os
import resource
import signal
import socket
import sys
import time
import traceback
from typing import Any

from transformer_course.grader.inside.server import Server

__all__ = ["ZygoteServer", "main"]

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
    ZygoteServer(control, shell, cfg).serve()


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


class ZygoteServer:
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
        from transformer_course.grader.inside.seccomp import install_encoded

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


if __name__ == "__main__":  # pragma: no cover
    main()
