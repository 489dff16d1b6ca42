"""The sandbox and the channel, on a toy lesson defined here: course objects handed to the
learner's code (a train step with a model, an optimizer and a loss function), a module
exercise driven through its proxy (with an extra method from the registry), arguments
changed in place; then what the learner's process can and cannot reach."""

from __future__ import annotations

import json
import os
import socket
import time

import pytest
import torch
from common import bwrap_installed, code_cell, run_in_session, started_session

from transformer_course.build import REPO
from transformer_course.checking import Checker
from transformer_course.checking.modules import build_module
from transformer_course.checking.objects import ParametersOf, course_function, course_object
from transformer_course.grader import sandbox
from transformer_course.grader.lesson import CellSpec, ExerciseSpec, LessonSpec
from transformer_course.grader.results import SubmissionResult
from transformer_course.grader.runner import Task, grade_submission
from transformer_course.grader.session import Session

pytestmark = pytest.mark.pipeline  # starts sandboxes (about a minute)
needs_bwrap = pytest.mark.skipif(not bwrap_installed(), reason="bubblewrap is not installed")


# ------------------------------------------------------------------ the toy lesson
def _toy_data():
    generator = torch.Generator().manual_seed(3)
    x = torch.randn(5, 3, generator=generator)
    y = torch.randn(5, 2, generator=generator)
    return x, y


def toy_loss(prediction, target, weight=1.0):
    """A loss defined outside the sandbox's reach (like a checks module's): sent as source."""
    return weight * torch.nn.functional.mse_loss(prediction, target)


def check_train_step(train_step, *, hidden: bool = False) -> None:
    """train_step(model, batch, optimizer, loss_fn) -> float: one SGD step, in train mode."""
    with Checker("train_step", hidden=hidden) as c:
        model = course_object(torch.nn.Linear, 3, 2)
        with torch.no_grad():
            model.weight.copy_(torch.linspace(-1, 1, 6).reshape(2, 3))
            model.bias.copy_(torch.tensor([0.5, -0.5]))
        model.eval()  # the learner's step must switch it to training mode
        optimizer = course_object(torch.optim.SGD, ParametersOf(model), lr=0.1, momentum=0.9)
        loss_fn = course_function(toy_loss, weight=1.0)
        x, y = _toy_data()
        expected = torch.nn.Linear(3, 2)
        expected.load_state_dict(model.state_dict())
        reference_optimizer = torch.optim.SGD(expected.parameters(), lr=0.1, momentum=0.9)
        for step in range(2 if hidden else 1):
            reference_optimizer.zero_grad()
            reference_loss = torch.nn.functional.mse_loss(expected(x), y)
            reference_loss.backward()
            reference_optimizer.step()
            loss = c.call(
                train_step, model, (x, y), optimizer, loss_fn, call_repr="train_step(...)"
            )
            c.expect_type(loss, float, "train_step(...)", "Return loss.item(), a Python float.")
            c.expect_close(loss, reference_loss.item(), f"the loss of step {step + 1}")
            c.expect_true(model.training, "train_step should put the model in training mode")
            c.expect_true(model.weight.grad is not None, "the gradients should be left in .grad")
            c.expect_close(
                model.weight.detach(),
                expected.weight.detach(),
                "the weights after the step",
                hint="Did you call optimizer.step()?",
            )
        state = optimizer.state_dict()["state"]
        c.expect_true(
            bool(state) and "momentum_buffer" in state[0], "the optimizer kept its momentum"
        )


def check_Scaler(cls, *, hidden: bool = False) -> None:
    """Scaler(d): forward(x) = x * scale (a parameter of shape (d,)); encode(x) = forward(x) + 1."""
    with Checker("Scaler", hidden=hidden) as c:
        scale = torch.tensor([1.0, 2.0, 3.0])
        module, built = build_module(
            c,
            cls,
            3,
            name="Scaler",
            expected_shapes={"scale": (3,)},
            state={"scale": scale},
            mode="eval",
        )
        c.expect_true(not module.training, f"{built}.eval() should leave it in eval mode")
        x = torch.ones(2, 3, requires_grad=True)
        got = c.call(module, x, call_repr=f"{built}(x)")
        c.expect_close(got, x.detach() * scale, f"{built}(x)")
        c.expect_true(got.requires_grad, "the output should stay connected to autograd")
        encoded = c.call(module.encode, x, call_repr=f"{built}.encode(x)")
        c.expect_close(encoded, x.detach() * scale + 1, f"{built}.encode(x)")
        c.call(module.train, call_repr=f"{built}.train()")
        c.expect_true(module.training, f"{built}.train() should switch it to training mode")


def check_center(center, *, hidden: bool = False) -> None:
    """center(values: list[float]) -> list: values minus their mean, without changing values."""
    with Checker("center", hidden=hidden) as c:
        values = [1.0, 2.0, 6.0]
        got = c.call(center, values, call_repr="center([1.0, 2.0, 6.0])")
        c.expect_equal(got, [-2.0, -1.0, 3.0], "center([1.0, 2.0, 6.0])")


SETUP = (
    "import torch\nfrom torch import nn\nfrom transformer_course.checks.toy import check_train_step"
)
CORRECT = {
    "train_step": (
        "def train_step(model, batch, optimizer, loss_fn):\n"
        "    x, y = batch\n    model.train()\n    optimizer.zero_grad()\n"
        "    loss = loss_fn(model(x), y)\n    loss.backward()\n    optimizer.step()\n"
        "    return loss.item()\n"
    ),
    "Scaler": (
        "class Scaler(nn.Module):\n    def __init__(self, d):\n        super().__init__()\n"
        "        self.scale = nn.Parameter(torch.ones(d))\n    def forward(self, x):\n"
        "        return x * self.scale\n    def encode(self, x):\n        return self(x) + 1\n"
    ),
    "center": "def center(values):\n    m = sum(values) / len(values)\n    return [v - m for v in values]\n",
}
EXERCISES = [
    ExerciseSpec("train_step", "function", 2.0),
    ExerciseSpec("Scaler", "module", 3.0, methods=("encode",)),
    ExerciseSpec("center", "function", 1.0),
]
CHECKS = {"train_step": check_train_step, "Scaler": check_Scaler, "center": check_center}


# The lesson's own demo, before the Scaler exercise, uses the course's reference Scaler.
DEMO = "from transformer_course.reference import toy as ref\nprint(ref.Scaler(3)(torch.ones(3)).sum().item())"
REFERENCE = {
    "module": "transformer_course.reference.toy",
    "base": "import torch\nfrom torch import nn\n",
    "blocks": {"Scaler": CORRECT["Scaler"]},
    "names": {"Scaler": "class"},
}
STUB = "def {name}(*args):\n    raise NotImplementedError()"


def toy_spec() -> LessonSpec:
    instructor = [CellSpec("locked", "setup", SETUP)]
    release = [CellSpec("locked", "setup", SETUP)]
    for ex in EXERCISES:
        if ex.name == "Scaler":
            release.append(CellSpec("free", None, DEMO))
        instructor += [
            CellSpec("answer", ex.name, "", ex.name),
            CellSpec("test", f"test_{ex.name}", "", ex.name),
        ]
        release += [
            CellSpec("answer", ex.name, STUB.format(name=ex.name), ex.name),
            CellSpec("test", f"test_{ex.name}", f"check_{ex.name}({ex.name})", ex.name),
        ]
    return LessonSpec(
        "99_toy",
        EXERCISES,
        instructor,
        release,
        modules={},
        guarded=REFERENCE,
        checks_fingerprint="",
        fingerprint="toy",
    )


def toy_notebook(answers: dict[str, str], before_scaler: str | None = None) -> bytes:
    cells = [
        code_cell(SETUP, {"grade_id": "setup", "locked": True, "grade": False, "solution": False})
    ]
    for ex in EXERCISES:
        if ex.name == "Scaler":
            cells.append(code_cell(before_scaler or DEMO))
        cells.append(
            code_cell(
                answers.get(ex.name, STUB.format(name=ex.name)),
                {"grade_id": ex.name, "solution": True, "grade": False, "locked": False},
            )
        )
        cells.append(
            code_cell(
                f"check_{ex.name}({ex.name})",
                {
                    "grade_id": f"test_{ex.name}",
                    "grade": True,
                    "points": ex.points,
                    "solution": False,
                    "locked": True,
                },
            )
        )
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}).encode()


LIMITS = sandbox.Limits(cell_timeout=15, check_timeout=15, submission_timeout=120)


def grade_toy(
    answers: dict[str, str], mode: str | None = None, before_scaler=None
) -> SubmissionResult:
    task = Task("toy", "99_toy", "toy", toy_notebook(answers, before_scaler), {}, LIMITS, mode)
    return grade_submission(task, toy_spec(), CHECKS)


def by_name(result: SubmissionResult) -> dict:
    return {e.name: e for e in result.exercises}


MODES = ["process", pytest.param("bwrap", marks=needs_bwrap)]


@pytest.mark.parametrize("mode", MODES)
def test_course_objects_modules_and_copy_back(mode):
    result = grade_toy(CORRECT, mode)
    got = by_name(result)
    assert {name: e.score for name, e in got.items()} == {
        "train_step": 2,
        "Scaler": 3,
        "center": 1,
    }, [(e.name, e.message) for e in result.exercises]
    assert "hidden checks passed" in got["Scaler"].output
    assert result.degraded is (mode == "process")
    demo = next(c for c in result.cells if c.role == "free")
    assert demo.status == "ok" and demo.output.strip() == "3.0", (
        "the lesson's demo may use the reference"
    )
    assert [f for f in result.flags if "DEGRADED" not in f] == []
    assert any("DEGRADED ISOLATION" in flag for flag in result.flags) is (mode == "process")


@needs_bwrap
def test_copy_back_tells_what_the_learner_did_wrong():
    answers = dict(
        CORRECT,
        train_step=CORRECT["train_step"].replace("    model.train()\n", ""),
        Scaler=CORRECT["Scaler"].replace("return self(x) + 1", "return self(x) + 2"),
        center="def center(values):\n    m = sum(values) / len(values)\n"
        "    for i, v in enumerate(values):\n        values[i] = v - m\n    return values\n",
    )
    got = by_name(grade_toy(answers))
    assert got["train_step"].score == 0 and "training mode" in got["train_step"].message
    assert got["Scaler"].score == 0 and "encode" in got["Scaler"].message
    assert got["center"].score == 0 and "changed its argument" in got["center"].message
    no_step = dict(CORRECT, train_step=CORRECT["train_step"].replace("    optimizer.step()\n", ""))
    message = by_name(grade_toy(no_step))["train_step"].message
    assert "optimizer.step()" in message, message
    stub = by_name(grade_toy({}))
    assert all("not implemented yet" in e.message for e in stub.values())


# -------------------------------------------------------------------- isolation
def _session(mode="bwrap") -> Session:
    return started_session(toy_spec(), LIMITS, mode)


_run = run_in_session


@needs_bwrap
def test_the_learner_process_cannot_reach_the_network_or_the_course_files(tmp_path):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    secret = tmp_path / "secret.txt"
    secret.write_text("hidden tests")
    session = _session()
    try:
        probe = f"""
import os, socket, json
def attempt(f):
    try:
        f(); return "ok"
    except Exception as e:
        return type(e).__name__
site = os.path.dirname(os.__file__)
print(json.dumps({{
  "connect": attempt(lambda: socket.create_connection(("127.0.0.1", {port}), timeout=3)),
  "dns": attempt(lambda: socket.getaddrinfo("pypi.org", 443)),
  "repo": sorted(os.listdir({str(REPO)!r})) if os.path.isdir({str(REPO)!r}) else [],
  "solutions": attempt(lambda: open({str(REPO / "solutions")!r} + "/x").read()),
  "secret": attempt(lambda: open({str(secret)!r}).read()),
  "write_site": attempt(lambda: open(os.path.join(site, "evil.py"), "w").write("x")),
  "write_tmp": attempt(lambda: open("/tmp/evil", "w").write("x")),
  "uid": os.getuid(), "pid": os.getpid(), "home": os.environ["HOME"], "cwd": os.getcwd(),
}}))
"""
        seen = json.loads(_run(session, probe).splitlines()[-1])
    finally:
        session.close()
        server.close()
    assert seen["connect"] != "ok" and seen["dns"] != "ok", seen
    # nothing of the repository but (where the virtual environment lives in it) .venv
    assert set(seen["repo"]) <= {".venv"} and seen["solutions"] != "ok" and seen["secret"] != "ok"
    assert seen["write_site"] in ("OSError", "PermissionError"), seen
    assert seen["write_tmp"] == "ok" and not os.path.exists("/tmp/evil")
    assert seen["home"] == seen["cwd"] and seen["home"].startswith("/tmp")
    if os.geteuid() == 0:
        assert seen["uid"] != 0
    assert seen["pid"] == 1, "each submission runs as pid 1 of its own pid namespace"


@needs_bwrap
def test_limits_and_no_leftovers_between_submissions():
    session = _session()
    zygote = session.zygote
    try:
        limits = json.loads(
            _run(
                session,
                (
                    "import resource, json, ctypes\n"
                    "print(json.dumps([resource.getrlimit(getattr(resource, n))[0] for n in "
                    "('RLIMIT_CPU', 'RLIMIT_AS', 'RLIMIT_FSIZE', 'RLIMIT_NPROC', 'RLIMIT_NOFILE')] + "
                    "[ctypes.CDLL(None).prctl(3, 0, 0, 0, 0)]))"
                ),
            )
        )
        _run(
            session,
            (
                "import os, time\nopen('/tmp/secret-of-alice', 'w').write('42')\n"
                "if os.fork() == 0:\n    os.setsid()\n    time.sleep(600)\n    os._exit(0)\n"
            ),
        )
    finally:
        session.close()
    cpu, address_space, file_size, processes, files, dumpable = limits
    assert 0 < cpu <= LIMITS.cpu_s and 0 < address_space < 2**46
    assert file_size == LIMITS.fsize_mb * 2**20 and files == LIMITS.nofile
    assert 0 < processes < 10**6 and dumpable == 0
    second = Session(toy_spec(), LIMITS, "bwrap")
    second.zygote = sandbox.acquire("bwrap")
    assert second.zygote is zygote, "the next submission reuses the pre-started zygote"
    second._spawn()
    try:
        assert _run(second, "import os; print(os.path.exists('/tmp/secret-of-alice'))") == "False"
        if zygote.uid is not None:  # a uid of its own: count its processes from outside
            time.sleep(0.5)
            owners = [p for p in os.listdir("/proc") if p.isdigit() and _uid(p) == zygote.uid]
            assert len(owners) <= 4, "the sleeping child of the previous submission is gone"
    finally:
        second.close()


def _uid(pid: str) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("Uid:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


@pytest.mark.parametrize("mode", MODES)
def test_timeouts_crashes_and_floods_cost_one_exercise(mode):
    answers = dict(
        CORRECT,
        center="def center(values):\n    while True:\n        pass\n",
        Scaler=CORRECT["Scaler"] + "\nimport os\nos._exit(1)\n",  # kills the process at top level
        train_step=CORRECT["train_step"] + "\nprint('x' * 10_000_000)\n",
    )
    started = time.monotonic()
    got = by_name(grade_toy(answers, mode))
    assert got["center"].score == 0 and "longer than" in got["center"].message
    assert got["Scaler"].score == 0  # its cell never finished: Scaler is not defined
    assert got["train_step"].score == 2, got["train_step"].message
    assert time.monotonic() - started < 3 * LIMITS.check_timeout + 60


@needs_bwrap
def test_the_reference_of_an_exercise_is_not_the_learners_answer():
    copied = by_name(grade_toy(dict(CORRECT, Scaler="Scaler = ref.Scaler")))
    assert copied["Scaler"].score == 0 and copied["Scaler"].status == "reference"
    assert "reference implementation" in copied["Scaler"].message
    subclass = by_name(grade_toy(dict(CORRECT, Scaler="class Scaler(ref.Scaler):\n    pass")))
    assert subclass["Scaler"].score == 0 and subclass["Scaler"].status == "reference"
    early = grade_toy(
        CORRECT, before_scaler=DEMO + "\nmine = ref.Scaler(3)  # the learner's own cell"
    )
    assert by_name(early)["Scaler"].score == 3  # refused, so no use was made of it
    assert any("tried to construct the course's reference Scaler" in f for f in early.flags)


def test_a_passing_failure_of_the_grader_is_retried_and_a_lasting_one_is_flagged(monkeypatch):
    from transformer_course.grader import runner

    spec = toy_spec()
    runner._SPECS[spec.fingerprint] = spec
    task = Task("toy", "99_toy", "toy", toy_notebook(CORRECT), spec.to_dict(), LIMITS, "process")
    calls = []

    def flaky(task, spec):
        calls.append(task.student)
        if len(calls) == 1:
            raise RuntimeError("the sandbox did not start in time")
        return grade_submission(task, spec, CHECKS)

    monkeypatch.setattr(runner, "grade_submission", flaky)
    result = SubmissionResult.from_dict(runner.run_task(task))
    assert len(calls) == 2 and not result.error
    assert {e.name: e.score for e in result.exercises} == {
        "train_step": 2,
        "Scaler": 3,
        "center": 1,
    }

    def broken(task, spec):
        raise RuntimeError("the sandbox did not start in time")

    monkeypatch.setattr(runner, "grade_submission", broken)
    result = SubmissionResult.from_dict(runner.run_task(task))
    assert "grader failed on this submission 2 times" in result.error
    assert "did not start in time" in result.error and result.flags
    assert all(e.status == "not run" and e.score == 0 for e in result.exercises)


FORGED_PROBE = """
import sys
server = next(f.server for f in sys.meta_path if hasattr(f, "server"))
for origin in (0, 3):  # the setup cell and the demo are the lesson's own cells
    try:
        reply, _ = server.callback(
            {"op": "ref", "name": "Scaler", "probe": True, "origin": origin}, []
        )
        if isinstance(reply.get("source"), str):
            exec(reply["source"], globals())
        elif reply.get("release"):
            server._release("Scaler")
    except Exception:
        pass
if "Scaler" in server.released:
    Scaler = server.released["Scaler"]
elif "Scaler" not in globals():
    class Scaler(nn.Module):
        def __init__(self, d):
            super().__init__()
"""
# learner code that runs inside the lesson's own demo cell (it calls print), keeps the
# reference class released for the demo, and answers with it
HIJACKED_DEMO = """
import builtins
_print = builtins.print
def _spy(*args, **kwargs):
    import sys
    released = next(f.server for f in sys.meta_path if hasattr(f, "server")).released
    if "Scaler" in released:
        builtins._kept = released["Scaler"]
    return _print(*args, **kwargs)
builtins.print = _spy
"""


@needs_bwrap
def test_the_reference_released_early_for_a_demo_cannot_be_requested_or_kept():
    """The grader decides from its own record of which cell runs: a probe forged from an
    answer cell is refused (and flagged), and a reference class the lesson's demo needed
    early still tells the grader when it runs during the check."""
    forged = grade_toy(dict(CORRECT, Scaler=FORGED_PROBE))
    assert by_name(forged)["Scaler"].score == 0, [(e.name, e.message) for e in forged.exercises]
    assert any("tried to construct the course's reference Scaler" in f for f in forged.flags)
    kept = grade_toy(
        dict(
            CORRECT,
            train_step=CORRECT["train_step"] + HIJACKED_DEMO,
            Scaler="import builtins\nScaler = builtins._kept",
        )
    )
    got = by_name(kept)
    assert got["Scaler"].score == 0 and got["Scaler"].status == "reference", got["Scaler"]
    assert got["train_step"].score == 2 and got["center"].score == 1  # honest parts
