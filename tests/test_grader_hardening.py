"""Hostile submissions against the grader's own mechanisms (issue 14), graded in this process
through the real pipeline with each lesson's real spec, each class with several variants
and an honest control:

* the current lesson's reference is not in the sandbox before its exercise is graded:
  not through the in-sandbox server reached via ``sys.meta_path``, not in a stub's
  closure or ``__globals__``, not anywhere ``gc`` can find, not in ``linecache``;
"""

from __future__ import annotations

import json
import textwrap

import pytest
import torch
from common import bwrap_installed, solutions, submission

from transformer_course.build import REPO
from transformer_course.grader import sandbox
from transformer_course.grader.lesson import build_spec
from transformer_course.grader.results import SubmissionResult
from transformer_course.grader.runner import Task, grade_submission

pytestmark = [pytest.mark.pipeline, pytest.mark.xdist_group("grader_hardening")]

L4 = "04_attention"
S4 = solutions(L4)
FUNCTIONS4 = ("softmax", "attention_row", "scaled_dot_product_attention")
MODE = "bwrap" if bwrap_installed() else "process"
LIMITS = sandbox.Limits(cell_timeout=30, check_timeout=30, submission_timeout=300)
_SPECS: dict = {}


def grade(lesson: str, data: bytes) -> SubmissionResult:
    spec = _SPECS.get(lesson) or _SPECS.setdefault(lesson, build_spec(lesson, REPO))
    return grade_submission(Task("hostile", lesson, "hostile", data, {}, LIMITS, MODE), spec)


def scores(result: SubmissionResult) -> dict[str, float]:
    return {e.name: e.score for e in result.exercises}


def explain(result: SubmissionResult) -> list:
    return [(e.name, e.score, e.status, e.message[:200]) for e in result.exercises] + result.flags


# ------------------------------------------------------- 1. the reference before grading
STEAL = '''
def _steal(name, roots):
    """Look through everything reachable from ``roots`` for the source of ``name`` and
    run it; None when it is nowhere."""
    import sys, types
    seen, stack, found = set(), list(roots), []
    while stack and len(seen) < 300_000:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, types.ModuleType):
            continue
        seen.add(id(obj))
        if isinstance(obj, str):
            if f"def {name}(" in obj and "_steal" not in obj:
                found.append(obj)
        elif isinstance(obj, (dict, types.MappingProxyType)):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            stack.extend(obj)
        elif isinstance(obj, types.FunctionType):
            stack.extend([obj.__closure__ or (), obj.__globals__, obj.__defaults__ or ()])
        elif isinstance(obj, types.CellType):
            try:
                stack.append(obj.cell_contents)
            except ValueError:
                pass
        elif isinstance(obj, types.MethodType):
            stack.append(obj.__self__)
        elif hasattr(obj, "__dict__"):
            try:
                stack.append(vars(obj))
            except TypeError:
                pass
    for text in found:
        namespace = {}
        try:
            exec("import math\\nimport numpy as np\\nimport torch\\n", namespace)
            exec(text, namespace)
        except Exception:
            continue
        if callable(namespace.get(name)):
            return namespace[name]
    return None
'''

# each: how the answer cell reaches for the reference of exercise {name}
ROOTS = {
    "meta_path": """
import sys
for finder in list(sys.meta_path):
    server = getattr(finder, "server", None)
    for attempt in ("op_release", "record_reference", "_release", "release"):
        method = getattr(server, attempt, None)
        for args in (({"op": "release", "name": "{name}"}, []), ("{name}",), ("{name}", True)):
            try:
                method(*args)
            except Exception:
                pass
    released = getattr(server, "released", {}) or {}
    if "{name}" in released:
        {name} = released["{name}"]
roots = list(sys.meta_path)
""",
    "closure": "roots = [ref.{name}.__closure__]",
    "globals": "roots = [ref.{name}.__globals__]",
    "gc": "roots = vars(__builtins__)['__import__']('gc').get_objects()",
    "linecache": "import linecache\nroots = [linecache.cache]",
}


def stealing_answer(name: str, how: str) -> str:
    reach = textwrap.dedent(ROOTS[how]).replace("{name}", name)
    return (
        f"{STEAL}\n{reach}\n"
        f"_stolen = _steal({name!r}, roots)\n"
        f"{name} = _stolen if _stolen is not None else (lambda *args, **kwargs: None)\n"
    )


@pytest.mark.parametrize(
    "variants",
    [
        {"softmax": "meta_path", "attention_row": "closure", "scaled_dot_product_attention": "gc"},
        {"softmax": "gc", "attention_row": "linecache", "scaled_dot_product_attention": "globals"},
    ],
    ids=["meta_path-closure-gc", "gc-linecache-globals"],
)
def test_the_reference_is_not_in_the_sandbox_before_its_exercise_is_graded(variants):
    answers = dict(S4, **{n: stealing_answer(n, how) for n, how in variants.items()})
    result = grade(L4, submission(L4, answers))
    got = scores(result)
    assert all(got[name] == 0 for name in variants), explain(result)
    # the quizzes, answered honestly, keep their points
    assert all(got[name] > 0 for name in got if name.startswith("quiz_")), explain(result)


def test_honest_control_full_marks_unflagged():
    result = grade(L4, submission(L4, S4))
    assert all(e.score == e.points for e in result.exercises), explain(result)
    assert [f for f in result.flags if "DEGRADED" not in f] == []


def test_the_reference_is_there_once_its_exercise_is_graded():
    """Honest control: a cell after softmax's test cell may use the course's softmax."""
    after_test = "import numpy as np\nprint(float(ref.softmax(np.zeros(4))[0]))"
    data = submission(L4, S4, after={"test_softmax": after_test})
    result = grade(L4, data)
    assert all(e.score == e.points for e in result.exercises), explain(result)
    cell = next(c for c in result.cells if "0.25" in c.output)
    assert cell.status == "ok"


# ------------------------------------------------- 5. global state, and death in a check
SDPA = "scaled_dot_product_attention"


def wrap_after(name: str, after: str) -> str:
    """The honest solution of ``name``, with ``after`` run after every call (it leaks)."""
    body = textwrap.indent(textwrap.dedent(after).strip(), "    ")
    return (
        f"{S4[name]}\n\n_honest_{name} = {name}\n\n\ndef {name}(*args, **kwargs):\n"
        f"    result = _honest_{name}(*args, **kwargs)\n{body}\n    return result\n"
    )


STATE_IN_CELLS = {
    "softmax": S4["softmax"]
    + "\nimport warnings\nimport numpy as np\nnp.seterr(all='raise')\n"
    + "np.set_printoptions(precision=1, suppress=True)\nwarnings.simplefilter('error')\n",
    "attention_row": S4["attention_row"]
    + "\nimport torch\ntorch.set_default_dtype(torch.float64)\ntorch.set_printoptions(precision=1)\n",
    SDPA: S4[SDPA] + "\nimport torch\ntorch.set_grad_enabled(False)\ntorch.set_num_threads(2)\n",
}
STATE_AFTER_CALLS = {
    "softmax": wrap_after("softmax", "import numpy as np\nnp.seterr(all='raise')"),
    "attention_row": wrap_after(
        "attention_row", "import torch\ntorch.set_default_dtype(torch.float64)"
    ),
    SDPA: wrap_after(SDPA, "import torch\ntorch.set_grad_enabled(False)"),
}


TORCH_STATE = (
    "\nimport sys\nimport torch\ntorch.set_default_device('meta')\ntorch.set_anomaly_enabled(True)\n"
    "torch.use_deterministic_algorithms(True)\ntorch.set_float32_matmul_precision('medium')\n"
    "torch.set_autocast_enabled('cpu', True)\ntorch.set_warn_always(True)\n"
    "_limit = 60\nwhile True:  # as low as the cell's own depth allows\n    try:\n"
    "        sys.setrecursionlimit(_limit)\n        break\n    except RecursionError:\n"
    "        _limit += 10\n"
)
STATE_OF_TORCH = {  # each cell leaves every other process-wide torch setting changed
    "softmax": S4["softmax"] + TORCH_STATE,
    "attention_row": S4["attention_row"] + TORCH_STATE + "_mode = torch.inference_mode()\n"
    "_mode.__enter__()\n",
    SDPA: S4[SDPA] + TORCH_STATE + "torch.device('meta').__enter__()\n",
}


@pytest.mark.parametrize(
    "answers",
    [STATE_IN_CELLS, STATE_AFTER_CALLS, STATE_OF_TORCH],
    ids=["in-cells", "after-calls", "torch-modes"],
)
def test_global_state_a_learner_sets_does_not_cost_points(answers):
    result = grade(L4, submission(L4, dict(S4, **answers)))
    assert all(e.score == e.points for e in result.exercises), explain(result)


REPORT = """
import json, sys, numpy as np, torch
def report(x):
    return {
        "grad": torch.is_grad_enabled(), "inference": torch.is_inference_mode_enabled(),
        "dtype": str(torch.get_default_dtype()), "device": str(torch.empty(0).device),
        "function modes": torch._C._len_torch_function_stack(),
        "threads": torch.get_num_threads(), "anomaly": torch.is_anomaly_enabled(),
        "deterministic": torch.are_deterministic_algorithms_enabled(),
        "matmul precision": torch.get_float32_matmul_precision(),
        "autocast": torch.is_autocast_enabled("cpu"),
        "matmul dtype": str((x @ x).dtype), "warn always": torch.is_warn_always_enabled(),
        "recursion": sys.getrecursionlimit(), "numpy errors": np.geterr()["divide"],
    }
"""
CHANGE_EVERYTHING = """
torch.set_grad_enabled(False)
torch.set_default_dtype(torch.float64)
torch.set_default_device("meta")
torch.set_num_threads(2)
torch.set_anomaly_enabled(True)
torch.use_deterministic_algorithms(True)
torch.set_float32_matmul_precision("medium")
torch.set_autocast_enabled("cpu", True)
torch.set_warn_always(True)
np.seterr(all="raise")
class Doubling(torch.overrides.TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))
Doubling().__enter__()
_inference = torch.inference_mode()
_inference.__enter__()
sys.setrecursionlimit(900)
print(json.dumps(report(torch.ones(2, 2, device="cpu", dtype=torch.float32))))
"""


@pytest.mark.parametrize("mode", ["process", "bwrap"] if MODE == "bwrap" else ["process"])
def test_every_process_wide_setting_is_pinned_for_a_call_and_the_learners_come_back(mode):
    """A cell changes every process-wide setting torch, numpy and Python have that a check's
    call could see; the call sees the pinned value of each, and the cell after it the
    learner's own again."""
    from transformer_course.grader.lesson import LessonSpec
    from transformer_course.grader.session import Session

    spec = LessonSpec(
        "99_state",
        [],
        [],
        [],
        modules={},
        guarded={},
        checks_fingerprint="",
        fingerprint="state",
        extra={"checks": {}},
    )
    session = Session(spec, LIMITS, mode)
    session.start()
    try:
        assert session.exec_cell(0, REPORT)["status"] == "ok"
        pinned_by_default = session.resolve("report")(torch.ones(2, 2))
        changed = session.exec_cell(1, CHANGE_EVERYTHING)
        assert changed["status"] == "ok", changed
        learners = json.loads(changed["output"].strip().splitlines()[-1])
        during_a_call = session.resolve("report")(torch.ones(2, 2))
        after = session.exec_cell(
            2, "print(json.dumps(report(torch.ones(2, 2, device='cpu', dtype=torch.float32))))"
        )
        restored = json.loads(after["output"].strip().splitlines()[-1])
    finally:
        session.close()
    assert during_a_call == pinned_by_default, (during_a_call, pinned_by_default)
    differs = {k for k in learners if learners[k] != pinned_by_default[k]}
    assert differs == set(pinned_by_default), set(pinned_by_default) - differs  # all changed
    assert restored == learners


DEATHS = {
    "exit0-later": "os._exit(0) if _calls() > 6 else None",
    "exit0-first": "os._exit(0)",
    "abort": "os.abort() if _calls() > 3 else None",
    "thread": "threading.Thread(target=lambda: os._exit(0)).start() if _calls() == 1 else None",
    "exit3": "os._exit(3) if _calls() > 10 else None",
}


@pytest.mark.parametrize("death", sorted(DEATHS))
def test_a_sandbox_that_dies_in_a_check_earns_nothing_for_it(death):
    counter = "import os, threading, time\n_count = [0]\ndef _calls():\n    _count[0] += 1\n    return _count[0]\n"
    body = textwrap.indent(DEATHS[death], "    ")
    answer = (
        f"{S4[SDPA]}\n{counter}\n_honest = {SDPA}\n\n\ndef {SDPA}(*args, **kwargs):\n"
        f"{body}\n    return _honest(*args, **kwargs)\n"
    )
    result = grade(L4, submission(L4, dict(S4, **{SDPA: answer})))
    got = {e.name: e for e in result.exercises}
    assert got[SDPA].score == 0 and got[SDPA].status == "crashed", explain(result)
    assert "stopped while its checks ran" in got[SDPA].message, got[SDPA].message
    assert all(e.score == e.points for e in result.exercises if e.name != SDPA), explain(result)


# -------------------------------------------- 2. forbidden APIs, decided on the grader's side
def calls_then_honest(name: str, call: str, setup: str = "") -> str:
    """The honest solution of ``name`` that also calls a forbidden API (``call``, over the
    arguments ``args``) and throws its result away: it earns full marks unless the grader
    sees the call."""
    return (
        f"{S4[name]}\n{setup}\n_honest_{name} = {name}\n\n\n"
        f"def {name}(*args, **kwargs):\n    {call}\n    return _honest_{name}(*args, **kwargs)\n"
    )


T = "torch.as_tensor(args[0])"
Q = "torch.as_tensor(args[0]).double()"
QKV = f"{Q}, {Q}, {Q}"
FORBIDDEN_SPELLINGS = {
    "softmax": [
        calls_then_honest("softmax", f"torch.special.softmax({T}, dim=-1)", "import torch"),
        calls_then_honest("softmax", f"{T}.softmax(-1)", "import torch"),
        calls_then_honest("softmax", f"torch.ops.aten._softmax({T}, -1, False)", "import torch"),
        calls_then_honest(
            "softmax", f"getattr(F, 'soft' + 'max')({T}, dim=-1)", "import torch.nn.functional as F"
        ),
        calls_then_honest(
            "softmax", f"vars(F)['softmax']({T}, dim=-1)", "import torch.nn.functional as F"
        ),
        calls_then_honest("softmax", f"torch.log_softmax({T}, -1)", "import torch"),
        calls_then_honest(
            "softmax", f"_alias({T}, dim=-1)", "import torch\n_alias = torch.special.softmax"
        ),
    ],
    SDPA: [
        calls_then_honest(
            SDPA, f"torch.ops.aten.scaled_dot_product_attention({QKV})", "import torch"
        ),
        calls_then_honest(
            SDPA, f"torch._C._nn.scaled_dot_product_attention({QKV})", "import torch"
        ),
        calls_then_honest(
            SDPA,
            f"vars(F)['scaled_dot_product_attention']({QKV})",
            "import torch\nimport torch.nn.functional as F",
        ),
        calls_then_honest(
            SDPA,
            f"F.__dict__['scaled_dot_product_attention']({QKV})",
            "import torch\nimport torch.nn.functional as F",
        ),
        calls_then_honest(
            SDPA,
            f"importlib.import_module('torch.nn.functional').scaled_dot_product_attention({QKV})",
            "import torch\nimport importlib",
        ),
        calls_then_honest(
            SDPA,
            f"_sdpa({QKV})",
            "import torch\nfrom torch.nn.functional import scaled_dot_product_attention as _sdpa",
        ),
        calls_then_honest(SDPA, "torch.nn.MultiheadAttention(4, 1)", "import torch"),
    ],
}
VARIANTS = max(len(v) for v in FORBIDDEN_SPELLINGS.values())


@pytest.mark.parametrize("index", range(VARIANTS))
def test_every_spelling_of_a_forbidden_api_is_flagged_or_zeroed(index):
    """Each exercise is answered with another spelling of what it forbids; none earns its
    points without a flag that names it (or its cell)."""
    answers = {n: spellings[index] for n, spellings in FORBIDDEN_SPELLINGS.items()}
    result = grade(L4, submission(L4, dict(S4, **answers)))
    got = {e.name: e for e in result.exercises}
    for name in answers:
        cell = next(c.index for c in result.cells if c.role == "answer" and c.exercise == name)
        where = f"cell {cell + 1},"
        flagged = [f for f in result.flags if f.startswith(f"{name}:") or where in f]
        assert got[name].score == 0 or flagged, (name, answers[name], explain(result))


def never_taken(name: str, call: str, setup: str) -> str:
    """The honest solution of ``name`` with a forbidden call on a branch no check takes (so
    nothing sees it run, and a tripwire inside the sandbox never fires)."""
    return (
        f"{S4[name]}\n{setup}\n_honest_{name} = {name}\n\n\n"
        f"def {name}(*args, **kwargs):\n    if len(args) > 99:\n        return {call}\n"
        f"    return _honest_{name}(*args, **kwargs)\n"
    )


PROVEN_UNSEEN = [
    {
        "softmax": never_taken(
            "softmax",
            "F.softmax(torch.as_tensor(args[0]), -1)",
            "import torch\nimport torch.nn.functional as F",
        ),
        SDPA: never_taken(SDPA, "torch.nn.MultiheadAttention(4, 1)", "import torch"),
    },
    {
        "softmax": never_taken(
            "softmax",
            "attend(*args)",
            "from torch.nn.functional import scaled_dot_product_attention as attend",
        ),
        "attention_row": never_taken(
            "attention_row",
            "vars(F)['scaled_dot_product_attention'](*args)",
            "import torch.nn.functional as F",
        ),
    },
]


@pytest.mark.parametrize("answers", PROVEN_UNSEEN, ids=["functional-module", "alias-vars"])
def test_a_proven_call_scores_0_even_where_no_check_saw_it_run(answers):
    """The grader's parse proves the call in the exercise's own cell: 0 with the reason, not
    a flag (a tripwire in the sandbox cannot see a branch the checks never take)."""
    result = grade(L4, submission(L4, dict(S4, **answers)))
    got = {e.name: e for e in result.exercises}
    for name in answers:
        assert got[name].score == 0 and got[name].status == "forbidden", explain(result)
        assert "which this exercise asks you to build yourself" in got[name].message
    assert all(e.score == e.points for e in result.exercises if e.name not in answers)


def test_honest_idioms_are_not_flagged():
    """Honest controls: the library's softmax in a cell after softmax is graded, and in the
    attention functions (which forbid only the library's attention) raise no flag."""
    later = "import torch\nprint(torch.softmax(torch.zeros(2), 0))"
    assert "torch.softmax(" in S4[SDPA]  # the solution's attention uses the library's softmax
    data = submission(L4, S4, after={"test_softmax": later})
    result = grade(L4, data)
    assert all(e.score == e.points for e in result.exercises), explain(result)
    assert [f for f in result.flags if "DEGRADED" not in f] == [], result.flags


# ------------------------------------------- the reference the grader runs for the learner
def test_a_call_of_the_reference_too_large_for_the_grader_is_refused_and_flagged():
    """A cell before scaled_dot_product_attention is graded calls the course's version with
    30,000 queries and keys (a 30,000 x 30,000 score matrix in the grader): the grader
    refuses it from the arguments' sizes, the cell's call fails, the use is flagged and the
    exercise scores 0 (the reference used before its grading); the others keep their points."""
    huge = (
        "import torch\nx = torch.ones(1, 30_000, 1)\n"
        "try:\n    ref.scaled_dot_product_attention(x, x, x)\nexcept Exception as e:\n"
        "    print('refused:', e)\n"
    )
    result = grade(L4, submission(L4, S4, after={"test_softmax": huge}))
    got = scores(result)
    assert got[SDPA] == 0 and got["softmax"] > 0 and got["attention_row"] > 0, explain(result)
    assert any(f.startswith(f"{SDPA}: the course's reference was refused") for f in result.flags)
    assert any("refused: the course's reference was refused" in c.output for c in result.cells)
