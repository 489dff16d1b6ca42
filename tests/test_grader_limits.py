"""Limits that hold in the kernel (issue 14 §4, §6): a seccomp filter, a cgroup memory and
pids limit per sandbox, no host path on a sandboxed command line, no temporary folders
left by a killed run. Hostile cells, each with honest controls that must still work."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from common import bwrap_installed, run_in_session, started_session

from transformer_course.grader import cli, kernel_limits, sandbox, seccomp_filter
from transformer_course.grader.lesson import LessonSpec
from transformer_course.grader.session import Session

pytestmark = pytest.mark.pipeline  # starts sandboxes
needs_bwrap = pytest.mark.skipif(not bwrap_installed(), reason="bubblewrap is not installed")
MODES = ["process", pytest.param("bwrap", marks=needs_bwrap)]
LIMITS = sandbox.Limits(cell_timeout=60, check_timeout=15, submission_timeout=300)


def _spec() -> LessonSpec:
    return LessonSpec(
        "99_limits",
        [],
        [],
        [],
        modules={},
        guarded={},
        checks_fingerprint="",
        fingerprint="limits",
        extra={"checks": {}},
    )


def _session(mode: str, limits: sandbox.Limits = LIMITS) -> Session:
    return started_session(_spec(), limits, mode)


def _run(session: Session, code: str) -> dict:
    """The JSON the cell printed last."""
    return json.loads(run_in_session(session, code).splitlines()[-1])


ATTEMPT = """
import ctypes, json, os, subprocess, threading
libc = ctypes.CDLL(None, use_errno=True)
def attempt(f):
    try:
        result = f()
    except BaseException as e:
        return type(e).__name__
    return f"failed {ctypes.get_errno()}" if type(result) is int and result < 0 else "ok"
def syscall(number, *args):
    return lambda: libc.syscall(number, *args)
"""


def _kernel_mechanisms_held() -> tuple[bool, bool]:
    seccomp = bool(sandbox.isolation("process").seccomp.get("learner"))
    cgroups, _ = kernel_limits.detect()
    return seccomp, "memory" in cgroups and "pids" in cgroups


# ---------------------------------------------------------------------------- seccomp
@pytest.mark.parametrize("mode", MODES)
def test_seccomp_denies_memfd_namespaces_mounts_and_tracing(mode):
    seccomp, _ = _kernel_mechanisms_held()
    iso = sandbox.isolation(mode)
    if not seccomp:  # the fallback is said, in the summary line and every report
        assert "no seccomp filter" in iso.describe()
        return
    assert "seccomp filter" in iso.describe()
    session = _session(mode)
    try:
        seen = _run(
            session,
            ATTEMPT
            + """
GB = 2**30
def memfd_then_write(create):
    fd = create()
    if fd < 0:
        raise OSError(ctypes.get_errno(), "memfd_create")
    for _ in range(3 * GB // 2**26):
        os.write(fd, bytes(2**26))
print(json.dumps({
  "memfd (os)": attempt(lambda: memfd_then_write(lambda: os.memfd_create("x"))),
  "memfd (libc)": attempt(lambda: memfd_then_write(lambda: libc.memfd_create(b"x", 0))),
  "memfd (syscall)": attempt(lambda: memfd_then_write(lambda: libc.syscall(319, b"x", 0))),
  "userfaultfd": attempt(syscall(323, 0)),
  "unshare user (libc)": attempt(lambda: libc.unshare(0x10000000)),
  "unshare user+mount (syscall)": attempt(syscall(272, 0x10000000 | 0x00020000)),
  "clone new user": attempt(syscall(56, 0x10000000 | 17, 0, 0, 0, 0)),
  "clone new net": attempt(syscall(56, 0x40000000 | 17, 0, 0, 0, 0)),
  "unshare -U (util-linux)": attempt(lambda: subprocess.run(["unshare", "-U", "true"], check=True, capture_output=True)),
  "unshare -r -m (util-linux)": attempt(lambda: subprocess.run(["unshare", "-rm", "true"], check=True, capture_output=True)),
  "setns": attempt(syscall(308, 0, 0)),
  "mount tmpfs": attempt(lambda: libc.mount(b"none", b"/tmp", b"tmpfs", 0, None)),
  "ptrace traceme": attempt(lambda: libc.ptrace(0, 0, None, None)),
  "process_vm_readv": attempt(syscall(310, 1, 0, 0, 0, 0, 0)),
  "bpf": attempt(syscall(321, 0, 0, 0)),
  "keyctl": attempt(syscall(250, 0, 0, 0, 0, 0)),
  "perf_event_open": attempt(syscall(298, 0, 0, -1, -1, 0)),
  "io_uring_setup": attempt(syscall(425, 1, 0)),
  # honest controls: what a notebook does
  "thread": attempt(lambda: (lambda t: (t.start(), t.join()))(threading.Thread(target=lambda: None)) and None),
  "subprocess": attempt(lambda: subprocess.run(["true"], check=True)),
  "fork": attempt(lambda: (lambda pid: os._exit(0) if pid == 0 else os.waitpid(pid, 0) and None)(os.fork())),
  "file": attempt(lambda: open("notes.txt", "w").write("x") and None),
  "torch": attempt(lambda: float(__import__("torch").ones(64, 64).matmul(__import__("torch").ones(64, 64)).sum())),
}))
""",
        )
    finally:
        session.close()
    controls = {"thread", "subprocess", "fork", "file", "torch"}
    assert {k: v for k, v in seen.items() if k in controls} == dict.fromkeys(controls, "ok"), seen
    denied = {k: v for k, v in seen.items() if k not in controls}
    assert all(v != "ok" for v in denied.values()), denied
    assert len(denied) == 18


# ----------------------------------------------------------------------------- memory
def test_memory_is_limited_by_the_cgroup_beyond_the_address_space_limit():
    """RLIMIT_AS off: only the cgroup stands between the learner and the machine's memory."""
    _, cgroups = _kernel_mechanisms_held()
    iso = sandbox.isolation("process")
    if not cgroups:
        assert "no memory cgroup" in iso.describe() or "no pids cgroup" in iso.describe()
        return
    limits = sandbox.Limits(
        cell_timeout=60, check_timeout=15, submission_timeout=300, memory_mb=300, rlimit_as=False
    )
    session = _session("bwrap" if bwrap_installed() else "process", limits)
    try:
        honest = _run(
            session,
            "import json\nkeep = bytearray(100 * 2**20)\n"
            "keep[::4096] = b'x' * len(keep[::4096])\n"
            "print(json.dumps(len(keep) >> 20))",
        )
        assert honest == 100
        cgroup = session.zygote.cgroup
        assert cgroup is not None and cgroup.oom_kills() == 0
        outcome = session.exec_cell(
            1,
            (
                "chunks = []\nfor _ in range(30):\n    chunk = bytearray(100 * 2**20)\n"
                "    chunk[::4096] = b'x' * len(chunk[::4096])\n    chunks.append(chunk)\n"
                "print('allocated 3 GB')"
            ),
        )
        assert outcome["status"] == "crashed", outcome
        assert "allocated" not in outcome["output"]
        assert "killed by the kernel for using more than the 300 MB of memory" in outcome["error"]
        assert session.zygote.cgroup.oom_kills() >= 1
    finally:
        session.close()


@pytest.mark.parametrize("mode", MODES)
def test_a_kill_that_is_not_for_memory_is_not_called_one(mode):
    """A process killed by SIGKILL while the memory cgroup counted no out-of-memory kill is
    not said to have used too much memory; where no memory cgroup is in force, the message
    says the grader cannot tell."""
    _, cgroups = _kernel_mechanisms_held()
    session = _session(mode)
    try:
        process = session.process  # killed from outside (a learner process may be a pid 1)
        killer = threading.Timer(2.0, lambda: process.zygote.kill(process.pid))
        killer.start()
        outcome = session.exec_cell(0, "import time\ntime.sleep(30)")
        killer.join()
        honest = session.exec_cell(1, "print('still graded')")
    finally:
        session.close()
    assert outcome["status"] == "crashed", outcome
    assert "for using more than" not in outcome["error"], outcome["error"]
    if cgroups:
        assert "not for memory (the kernel counted no out-of-memory kill)" in outcome["error"]
    else:
        assert "cannot tell the grader which" in outcome["error"], outcome["error"]
    assert honest["status"] == "ok" and "still graded" in honest["output"]


@pytest.mark.parametrize(
    ("oom", "said"),
    [
        (True, "killed by the kernel for using more than the 2048 MB of memory allowed"),
        (False, "not for memory"),
        (None, "this machine cannot tell the grader which"),
    ],
)
def test_killed_for_memory_is_said_only_when_the_kernel_counted_it(oom, said):
    from transformer_course.grader.session import describe_death

    message = describe_death({"signal": signal.SIGKILL, "exit": None, "oom": oom}, LIMITS)
    assert said in message
    assert ("for using more than" in message) is bool(oom)


@pytest.mark.parametrize("mode", MODES)
def test_three_gigabytes_find_no_way_around_the_limits(mode):
    """Files, shared memory and anonymous mappings: each is stopped well before 3 GB."""
    session = _session(mode)
    try:
        seen = _run(
            session,
            ATTEMPT
            + """
import mmap
def fill(path):
    written = 0
    try:
        with open(path, "wb") as handle:
            for _ in range(3 * 2**30 // 2**24):
                handle.write(bytes(2**24)); handle.flush()
                written += 2**24
    except BaseException as e:
        return [type(e).__name__, written >> 20]
    finally:
        if os.path.exists(path):
            os.remove(path)
    return ["ok", written >> 20]
def shared_map():
    area = mmap.mmap(-1, 3 * 2**30, flags=mmap.MAP_SHARED)
    area[::4096] = b"x" * len(area[::4096])
print(json.dumps({
  "tmp": fill("/tmp/big" if os.path.isdir("/tmp/work") else "big"),
  "dev_shm": fill("/dev/shm/big") if os.access("/dev/shm", os.W_OK) else ["absent", 0],
  "shared map": attempt(shared_map),
  "honest 64 MB": attempt(lambda: bytearray(64 * 2**20) and None),
}))
""",
        )
    finally:
        session.close()
    assert seen["tmp"][0] != "ok" and seen["tmp"][1] <= 300, seen
    assert seen["dev_shm"][0] != "ok" and seen["dev_shm"][1] <= 300, seen
    assert seen["shared map"] != "ok" and seen["honest 64 MB"] == "ok", seen


# ------------------------------------------------------------------------------- pids
def test_a_fork_bomb_is_bounded_by_the_pids_cgroup():
    """RLIMIT_NPROC off: the cgroup alone bounds the number of tasks in the sandbox."""
    _, cgroups = _kernel_mechanisms_held()
    if not cgroups:
        assert "cgroup" in sandbox.isolation("process").describe()
        return
    limits = sandbox.Limits(
        cell_timeout=60, check_timeout=15, submission_timeout=300, nproc=0, pids=24
    )
    session = _session("bwrap" if bwrap_installed() else "process", limits)
    try:
        honest = _run(
            session,
            ATTEMPT
            + """
pids = [os.fork() for _ in range(4)]
if 0 in pids:
    os._exit(0)
for pid in pids:
    os.waitpid(pid, 0)
print(json.dumps(len(pids)))
""",
        )
        assert honest == 4
        seen = _run(
            session,
            ATTEMPT
            + """
import time
children, error = [], None
for _ in range(2000):
    try:
        pid = os.fork()
    except OSError as e:
        error = type(e).__name__
        break
    if pid == 0:
        time.sleep(30)
        os._exit(0)
    children.append(pid)
for pid in children:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
print(json.dumps([len(children), error]))
""",
        )
        assert session.zygote.cgroup.tasks() <= session.zygote.cgroup.base_pids + 24
    finally:
        session.close()
    forked, error = seen
    assert error == "BlockingIOError" and 4 <= forked <= 24, seen


# -------------------------------------------------------------------------- host paths
@needs_bwrap
def test_no_host_path_on_a_command_line_in_the_environment_or_in_the_configuration():
    """Every command line and environment in /proc, sys.argv, os.environ and every string the
    learner's process holds in a list or a dict: no hidden host path (the repository, the
    course's source), no grader temporary folder. The Python installation's own path is
    visible (``sys.prefix`` says it anyway) and is taken out of the texts first."""
    session = _session("bwrap")
    # sent as hex, decoded after the scan: the cell's own text must not hold them
    needles = [n.encode().hex() for n in [*sandbox._hidden_roots(), "/" + sandbox.TEMP_PREFIX]]
    try:
        seen = _run(
            session,
            f"""
import gc, json, os, sys
texts = {{"argv": " ".join(sys.argv),
          "environ": " ".join(f"{{k}}={{v}}" for k, v in os.environ.items())}}
for pid in [p for p in os.listdir("/proc") if p.isdigit()] + ["self"]:
    for name in ("cmdline", "environ"):
        try:
            with open(f"/proc/{{pid}}/{{name}}", "rb") as handle:
                texts[f"{{pid}}/{{name}}"] = handle.read().replace(b"\\0", b" ").decode(errors="replace")
        except OSError:
            pass
strings = []
for obj in gc.get_objects():
    if isinstance(obj, dict):
        strings += [v for v in obj.values() if isinstance(v, str) and "/" in v]
    elif isinstance(obj, list):
        strings += [v for v in obj if isinstance(v, str) and "/" in v]
texts["memory"] = "\\n".join(strings)
found = []
for where, text in texts.items():
    text = text.replace(sys.prefix, "<python>")
    for needle in [bytes.fromhex(n).decode() for n in {needles!r}]:
        at = text.find(needle)
        if at >= 0:
            found.append([where, needle, text[max(0, at - 150) : at + 150]])
bwrap = [t for t in texts.values() if "--args" in t]
print(json.dumps({{"found": found[:20], "bwrap": len(bwrap), "read": len(texts)}}))
""",
        )
    finally:
        session.close()
    assert seen["bwrap"] >= 1 and seen["read"] >= 6, seen
    assert seen["found"] == [], seen["found"]


# ----------------------------------------------------------------------- temp folders
MOUNTS = """
import json, os, sys
mounts = []
for line in open("/proc/self/mountinfo"):
    fields = line.split()
    mounts.append([fields[3], fields[4], fields[fields.index("-") + 1]])
print(json.dumps({"mounts": mounts, "prefixes": [sys.prefix, sys.base_prefix],
                  "outside": os.path.exists(OUTSIDE), "home": os.path.exists(HOME)}))
"""
VIRTUAL = {"tmpfs", "proc", "devtmpfs", "devpts", "mqueue", "sysfs"}


@needs_bwrap
def test_the_host_paths_a_sandbox_shows_are_the_python_installation_and_the_staged_package(
    tmp_path, monkeypatch
):
    """What README says stays visible, and nothing else: /proc/self/mountinfo names as host
    sources only the system folders, a few /etc files, the Python installation's folders
    (which sys.prefix shows anyway) and the staged package in a ``course-grader-*`` folder;
    a folder on the grader's sys.path that is not part of the installation (``python -m``
    run from a home folder puts it there) is not mounted, nor is anything else of the
    repository or of $HOME."""
    outside = tmp_path / "a-home-folder"
    outside.mkdir()
    (outside / "private.txt").write_text("not for learners")
    monkeypatch.syspath_prepend(str(outside))
    sandbox.shutdown()  # a zygote started with that sys.path
    session = _session("bwrap")
    try:
        cell = MOUNTS.replace("OUTSIDE", repr(str(outside / "private.txt")))
        seen = _run(session, cell.replace("HOME", repr(os.path.expanduser("~/.bashrc"))))
    finally:
        session.close()
        sandbox.shutdown()
    python = sandbox._python_paths(sandbox._hidden_roots())
    allowed = {*sandbox.SYSTEM_DIRS, *python, *map(os.path.realpath, sandbox.ETC_FILES)}
    staged = os.path.join(tempfile.gettempdir(), f"{sandbox.TEMP_PREFIX}*", "staged")
    host = [(source, point) for source, point, kind in seen["mounts"] if kind not in VIRTUAL]
    unexpected = [
        (source, point)
        for source, point in host
        if source not in allowed
        and not (point == sandbox.STAGED_MOUNT and Path(source).match(staged))
    ]
    assert unexpected == [], host
    assert [p for _, p in host if p == sandbox.STAGED_MOUNT] == [sandbox.STAGED_MOUNT]
    assert str(outside) not in python and not seen["outside"], seen
    assert not seen["home"]
    repo = str(Path(sandbox.PACKAGE_DIR).parents[1])
    assert all(not s.startswith(repo) or s.startswith(sys.prefix) for s, _ in host), host
    assert seen["prefixes"] == [sys.prefix, sys.base_prefix]  # visible, as README says


def _lock_in_child(folder: Path) -> subprocess.Popen:
    code = (
        "import fcntl, os, sys, time\n"
        f"fd = os.open({str(folder / sandbox.OWNER_LOCK)!r}, os.O_CREAT | os.O_RDWR)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\nprint('locked', flush=True)\ntime.sleep(120)\n"
    )
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "locked"
    return child


def test_a_killed_run_leaves_folders_that_the_next_run_removes():
    root = Path(tempfile.gettempdir())
    dead = Path(tempfile.mkdtemp(prefix=sandbox.TEMP_PREFIX, dir=root))
    alive = Path(tempfile.mkdtemp(prefix=sandbox.TEMP_PREFIX, dir=root))
    (dead / "home").mkdir()
    (dead / "home" / "secret.txt").write_text("42")
    killed, running = _lock_in_child(dead), _lock_in_child(alive)
    try:
        killed.send_signal(signal.SIGKILL)
        killed.wait(10)
        removed = sandbox.remove_stale_folders(force=True)
        assert dead in removed and not dead.exists()
        assert alive.exists() and alive not in removed, "a running grader's folder stays"
    finally:
        running.kill()
        running.wait(10)
        killed.stdout.close()
        running.stdout.close()
    assert alive in sandbox.remove_stale_folders(force=True) and not alive.exists()


def test_a_killed_grader_leaves_nothing_behind_after_the_next_start():
    """The real thing: a grader process with a zygote is killed with SIGKILL."""
    code = (
        "import time\nfrom transformer_course.grader import sandbox\n"
        "zygote = sandbox.acquire('process')\n"
        "print(zygote.scratch.name, ','.join(zygote.cgroup.paths.values()) if zygote.cgroup "
        "else '', flush=True)\ntime.sleep(120)\n"
    )
    grader = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        folder, _, cgroups = grader.stdout.readline().strip().partition(" ")
    finally:
        grader.kill()
        grader.wait(10)
        grader.stdout.close()
    assert folder and Path(folder).exists(), "the killed run's folder is still there"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not sandbox.remove_stale_folders(force=True):
        time.sleep(0.2)  # its zygote dies with it (parent-death signal)
    assert not Path(folder).exists()
    for path in filter(None, cgroups.split(",")):
        hierarchy = next(h for h in kernel_limits.detect()[0].values() if path.startswith(h.parent))
        kernel_limits.remove_stale(hierarchy)
        assert not os.path.exists(path), "the killed run's cgroup is removed too"


def test_the_seccomp_programs_are_what_libseccomp_builds():
    """No stub: the learner filter is longer than the sandbox one, and a process that loads it
    cannot create a memory file while one without it can."""
    try:
        sandbox_program = seccomp_filter.build("sandbox")
        learner_program = seccomp_filter.build("learner")
    except seccomp_filter.SeccompUnavailable as exc:
        assert "no seccomp filter" in sandbox.isolation("process").describe(), exc
        return
    assert len(learner_program) > len(sandbox_program) > 0
    probe = (
        "import os, sys\nfrom transformer_course.grader import seccomp_filter\n"
        "if sys.argv[1] == 'filtered':\n"
        "    seccomp_filter.install(seccomp_filter.build('learner'))\n"
        "try:\n    os.close(os.memfd_create('x'))\n    print('ok')\n"
        "except OSError as e:\n    print(e.errno)\n"
    )
    results = [
        subprocess.run(
            [sys.executable, "-c", probe, how], capture_output=True, text=True, check=True
        ).stdout.strip()
        for how in ("plain", "filtered")
    ]
    assert results == ["ok", "1"], results


# ------------------------------------------------------------- the grader's own clock
def check_scaled(scaled, *, hidden: bool = False) -> None:
    """scaled(n) -> list of n floats; compared item by item in Python, as a slow reference
    comparison would be (each item through a few float operations)."""
    from transformer_course.checking import Checker

    with Checker("scaled", hidden=hidden) as c:
        n = 3 if not hidden else 5
        got = c.call(scaled, n, call_repr=f"scaled({n})")
        total = 0.0
        for value in got:  # the grader's own work on the learner's value
            for k in range(40):
                total += (value * k) ** 0.5
        c.expect_equal(list(got)[:n], [float(i) for i in range(n)], f"scaled({n})[:{n}]")


def check_double(double, *, hidden: bool = False) -> None:
    from transformer_course.checking import Checker

    with Checker("double", hidden=hidden) as c:
        c.expect_equal(c.call(double, 21, call_repr="double(21)"), 42, "double(21)")


def _grade(answers: dict[str, str], limits: sandbox.Limits):
    from common import code_cell

    from transformer_course.grader.lesson import CellSpec, ExerciseSpec
    from transformer_course.grader.runner import Task, grade_submission

    exercises = [ExerciseSpec("scaled", "function", 1.0), ExerciseSpec("double", "function", 1.0)]
    setup = "from transformer_course.checks.toy import check_scaled, check_double"
    instructor, release = [CellSpec("locked", "setup", setup)], [CellSpec("locked", "setup", setup)]
    cells = [
        code_cell(setup, {"grade_id": "setup", "locked": True, "grade": False, "solution": False})
    ]
    for ex in exercises:
        instructor += [
            CellSpec("answer", ex.name, "", ex.name),
            CellSpec("test", f"test_{ex.name}", "", ex.name),
        ]
        release += [
            CellSpec("answer", ex.name, "", ex.name),
            CellSpec("test", f"test_{ex.name}", f"check_{ex.name}({ex.name})", ex.name),
        ]
        cells.append(
            code_cell(
                answers[ex.name],
                {"grade_id": ex.name, "solution": True, "grade": False, "locked": False},
            )
        )
        cells.append(
            code_cell(
                f"check_{ex.name}({ex.name})",
                {
                    "grade_id": f"test_{ex.name}",
                    "grade": True,
                    "points": 1.0,
                    "solution": False,
                    "locked": True,
                },
            )
        )
    spec = LessonSpec(
        "99_clock",
        exercises,
        instructor,
        release,
        modules={},
        guarded={},
        checks_fingerprint="",
        fingerprint="clock",
        extra={"checks": {"scaled": check_scaled, "double": check_double}},
    )
    notebook = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    task = Task("clock", "99_clock", "clock", notebook.encode(), {}, limits, "process")
    checks = {"scaled": check_scaled, "double": check_double}
    return {e.name: e for e in grade_submission(task, spec, checks).exercises}


def test_the_check_timeout_holds_on_the_graders_side():
    """A legal but huge result (1.5 million floats) makes the grader's own comparison take
    far longer than the check timeout: the check is stopped at the timeout, the exercise
    says so, and the next exercise is graded as usual."""
    limits = sandbox.Limits(cell_timeout=30, check_timeout=3, submission_timeout=300)
    honest = _grade(
        {
            "scaled": "def scaled(n):\n    return [float(i) for i in range(n)]\n",
            "double": "def double(x):\n    return 2 * x\n",
        },
        limits,
    )
    assert [e.score for e in honest.values()] == [1.0, 1.0], [e.message for e in honest.values()]
    started = time.monotonic()
    huge = _grade(
        {
            "scaled": "def scaled(n):\n    return [float(i) for i in range(1_500_000)]\n",
            "double": "def double(x):\n    return 2 * x\n",
        },
        limits,
    )
    took = time.monotonic() - started
    scaled = huge["scaled"]
    assert scaled.status == "timeout" and scaled.score == 0, (scaled.status, scaled.message)
    # Which of the grader's two timers stops it depends on the load: its deadline on the
    # checks' own work, or its deadline on the sandbox's answer (encoding 1.5 million
    # floats in the sandbox takes seconds on a busy machine). Both hold at 3 s.
    assert re.search(r"(the checks|your code) ran longer than 3 s", scaled.message), scaled.message
    assert scaled.seconds < 3 + 2 + 3, scaled.seconds  # the loop alone takes about 20 s
    assert huge["double"].score == 1.0 and took < 60, (huge["double"].message, took)


# ------------------------------------------- the reference the grader runs for the learner
def _reference_session(module: str, names: tuple[str, ...]) -> Session:
    """A session whose guarded module is ``module`` with ``names`` not released: a call of one
    of them from the sandbox is run by the grader on the learner's arguments."""
    options = [
        "99_reference",
        "--cell-timeout",
        "60",
        "--check-timeout",
        "15",
        "--submission-timeout",
        "300",
        "--reference-timeout",
        "3",
    ]
    limits = cli.limits_from(cli.parser().parse_args(options))  # as course-grader sets them
    guarded = {
        "module": f"transformer_course.reference.{module}",
        "base": "",
        "blocks": {},
        "names": dict.fromkeys(names, "function"),
    }
    spec = LessonSpec(
        "99_reference",
        [],
        [],
        [],
        modules={},
        guarded=guarded,
        checks_fingerprint="",
        fingerprint="reference",
        extra={"checks": {}},
    )
    session = Session(spec, limits, MODES_HERE)
    session.start()
    return session


MODES_HERE = "bwrap" if bwrap_installed() else "process"
TIMED_CALL = """
import json, time
from transformer_course.reference import {module} as ref
{prepare}
started = time.monotonic()
try:
    result = {call}
    outcome = "ok"
except Exception as e:
    result, outcome = None, str(e)
print(json.dumps({{"outcome": outcome, "took": time.monotonic() - started,
                  "result": repr(result)[:200]}}))
"""


def _timed_call(session: Session, module: str, prepare: str, call: str) -> dict:
    return _run(session, TIMED_CALL.format(module=module, prepare=prepare, call=call))


def test_a_slow_call_of_the_reference_is_stopped_at_its_budget():
    """train_bpe on 20,000 distinct-ish characters with no bound on merges would run for
    minutes in the grader: it is stopped at the reference budget (3 s here), the learner's
    call fails with the reason, the use is recorded as stopped, and the session goes on."""
    session = _reference_session("tokenization", ("train_bpe",))
    try:
        honest = _timed_call(session, "tokenization", "", "ref.train_bpe('abab abab', 3)")
        assert honest["outcome"] == "ok" and "(97, 98)" in honest["result"], honest
        prepare = "import random\nrandom.seed(0)\n" + (
            "text = ''.join(chr(random.randrange(32, 2000)) for _ in range(20_000))"
        )
        slow = _timed_call(session, "tokenization", prepare, "ref.train_bpe(text, 10**6)")
        assert "ran longer than 3 s" in slow["outcome"], slow
        assert slow["took"] < 3 + 2, slow
        assert [bool(r.stopped) for r in session.references] == [False, True]
        again = _timed_call(session, "tokenization", "", "ref.train_bpe('abab abab', 3)")
        assert again["outcome"] == "ok", again
    finally:
        session.close()


def test_the_reference_timeout_is_an_option_of_the_command(capsys):
    """``--reference-timeout`` sits beside ``--check-timeout`` in --help, reaches the limits
    (the test above runs under 3 s from it), defaults to the limits' own default and must be
    positive."""
    with pytest.raises(SystemExit):
        cli.parser().parse_args(["--help"])
    assert "--reference-timeout" in capsys.readouterr().out
    default = cli.limits_from(cli.parser().parse_args(["04_attention"]))
    assert default.reference_timeout == sandbox.Limits().reference_timeout == 10.0
    set_here = cli.parser().parse_args(["04_attention", "--reference-timeout", "2.5"])
    assert cli.limits_from(set_here).reference_timeout == 2.5
    with pytest.raises(SystemExit, match="--reference-timeout must be positive"):
        cli.limits_from(cli.parser().parse_args(["04_attention", "--reference-timeout", "0"]))


def test_a_call_of_the_reference_that_implies_a_huge_result_is_refused():
    """Attention over 30,000 one-dimensional queries and keys would build a 30,000 x 30,000
    score matrix (3.6 GB) in the grader: refused before the call from the arguments' sizes;
    arguments over the element budget are refused too; an honest call is answered."""
    session = _reference_session("attention", ("scaled_dot_product_attention",))
    try:
        honest = _timed_call(
            session,
            "attention",
            "import torch\nx = torch.ones(2, 4, 8)",
            "tuple(t.shape for t in ref.scaled_dot_product_attention(x, x, x))",
        )
        assert honest["outcome"] == "ok" and "[2, 4, 4]" in honest["result"], honest
        wide = _timed_call(
            session,
            "attention",
            "import torch\nx = torch.ones(1, 30_000, 1)",
            "ref.scaled_dot_product_attention(x, x, x)",
        )
        assert "was refused" in wide["outcome"] and wide["took"] < 2, wide
        big = _timed_call(
            session,
            "attention",
            "import torch\nx = torch.ones(1_500_000)",
            "ref.scaled_dot_product_attention(x, x[:1], x[:1])",
        )
        assert "1,500,002 array or tensor elements" in big["outcome"], big
        assert [bool(r.stopped) for r in session.references] == [False, True, True]
    finally:
        session.close()
