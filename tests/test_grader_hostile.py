"""A class of cheating, careless and hostile submissions graded in one batch with honest ones.

Every submission gets the right score (zero for what it cheated, full for what it did
honestly) or is flagged with the reason; none stops the batch; none changes another
student's grade; nothing outside the sandbox's scratch folder changes (the course
directory, the virtual environment, $HOME and the host's /tmp are compared before
and after); feedback never contains a hidden test.
"""

from __future__ import annotations

import json
import os
import sysconfig
import textwrap
import uuid
from pathlib import Path

import pytest
from common import (
    grader,
    home,
    make_course,
    meta,
    notebook,
    points,
    python_environment,
    solutions,
    source,
    submission,
    submit,
    tree_digest,
)

from transformer_course import registry
from transformer_course.build import REPO

# one xdist worker builds this module's graded class once (make test uses --dist loadgroup)
pytestmark = [
    pytest.mark.pipeline,
    pytest.mark.xdist_group("grader_hostile"),
    pytest.mark.slow(130),
]

L4, L1 = "04_attention", "01_tokenization"
P4, P1 = points(L4), points(L1)
T4, T1 = sum(P4.values()), sum(P1.values())
S4, S1 = solutions(L4), solutions(L1)
TOKEN = uuid.uuid4().hex[:8]
HARMLESS_CALLS = {
    "torch.nn.functional.scaled_dot_product_attention": (
        "torch.nn.functional.scaled_dot_product_attention(torch.zeros(1, 1, 2), "
        "torch.zeros(1, 1, 2), torch.zeros(1, 1, 2))"
    ),
    "torch.softmax": "torch.softmax(torch.zeros(2), 0)",
    "torch.nn.functional.softmax": "torch.nn.functional.softmax(torch.zeros(2), 0)",
    "torch.nn.MultiheadAttention": "torch.nn.MultiheadAttention(4, 1)",
}


def wrap(name: str, solution: str, before: str) -> str:
    """The honest solution, with ``before`` run at the start of every call."""
    body = textwrap.indent(textwrap.dedent(before).strip(), "    ")
    return (
        f"{solution}\n\n_honest_{name} = {name}\n\n\ndef {name}(*args, **kwargs):\n{body}\n"
        f"    return _honest_{name}(*args, **kwargs)\n"
    )


def stubs_and(lesson: str, cell: str) -> bytes:
    """The untouched student version with one extra cell after the setup cell."""
    return submission(lesson, {}, after={"setup": cell})


def solved_and(lesson: str, cell: str, answers: dict | None = None) -> bytes:
    base = S4 if lesson == L4 else S1
    return submission(lesson, dict(base, **(answers or {})), after={"setup": cell})


def edit_tests(replacement):
    def edit(nb):
        cells = []
        for cell in nb["cells"]:
            if meta(cell).get("grade"):
                new = replacement(cell)
                if new is not None:
                    cells.append(new)
            else:
                cells.append(cell)
        nb["cells"] = cells

    return edit


def forbidden_target() -> tuple[str, str]:
    for ex in registry.exercises(L4):
        for name in ex.forbidden:
            if name in HARMLESS_CALLS:
                return ex.name, name
    raise AssertionError(
        "lesson 04 declares none of the forbidden APIs this test knows how to call"
    )


FORBIDDEN_EXERCISE, FORBIDDEN_API = forbidden_target()
SOFTMAX = "softmax"
TORCH_EXERCISE = "scaled_dot_product_attention"
TOKENIZE = "tokenize"


def build_class(course: Path) -> dict[tuple[str, str], dict]:
    """(student, lesson) -> expectation; writes every submission into the course."""
    site = sysconfig.get_paths()["purelib"]
    gradebook = course / "autograde" / "gradebook.db"
    alice = course / "autograde" / "submitted" / "alice" / L4 / f"{L4}.ipynb"
    expectations: dict[tuple[str, str], dict] = {}

    def add(
        student,
        lesson,
        data,
        zero=(),
        flagged=False,
        status=None,
        name=None,
        total=None,
        broken=False,
    ):
        """``zero``: the exercises it cheats in. ``broken``: the cheat also breaks the function
        for later exercises that call it, which may then fail as they would with a stub."""
        submit(course, student, lesson, data, name)
        full = P4 if lesson == L4 else P1
        expected = total if total is not None else sum(full.values()) - sum(full[z] for z in zero)
        expectations[(student, lesson)] = {
            "total": expected,
            "zero": set(zero),
            "flagged": flagged,
            "status": status,
            "broken": broken,
        }
        for undone_name in zero:  # the same notebook with that exercise simply left undone
            if ("baseline_" + undone_name, lesson) not in expectations:
                base = S4 if lesson == L4 else S1
                undone = {k: v for k, v in base.items() if k != undone_name}
                submit(course, "baseline_" + undone_name, lesson, submission(lesson, undone))
                expectations[("baseline_" + undone_name, lesson)] = {
                    "total": None,
                    "zero": {undone_name},
                    "flagged": False,
                    "status": None,
                    "broken": True,
                }

    rebind = "\n".join(f"check_{name} = lambda *a, **k: None" for name in P4)
    patch = (
        "import numpy as np, torch\nimport transformer_course.checking as C\n"
        "import transformer_course.checks.attention as A\n"
        "C.Checker.expect_close = lambda *a, **k: None\nC.Checker.fail = lambda *a, **k: None\n"
        "np.allclose = lambda *a, **k: True\ntorch.allclose = lambda *a, **k: True\n"
        "A.check_softmax = lambda *a, **k: None\n"
    )
    writes = f"""
import os, pathlib
targets = [{str(alice)!r}, {str(gradebook)!r}, {str(REPO / "src" / "transformer_course" / "checking" / "__init__.py")!r},
           {str(REPO / "src" / "transformer_course" / "registry.py")!r}, os.path.join({site!r}, "numpy", "__init__.py"),
           os.path.join({site!r}, "sitecustomize.py"), {str(home() / ".ipython" / "profile_default" / "startup" / "00-pwn.py")!r},
           os.path.expanduser("~/.ipython/profile_default/startup/00-pwn.py"), "/tmp/pwned-{TOKEN}", "/dev/shm/pwned-{TOKEN}"]
for target in targets:
    try:
        pathlib.Path(target).parent.mkdir(parents=True, exist_ok=True)
        with open(target, "w") as handle:
            handle.write("import os; os._exit(0)")
    except Exception:
        pass
"""
    reads = f"""
def softmax(x, axis=-1):
    import glob, inspect
    for path in [{str(REPO / "solutions" / L4 / f"{L4}.ipynb")!r}, {str(gradebook)!r}]:
        try:
            open(path).read()
            return __import__("numpy").zeros(1)  # would mean the file was readable
        except OSError:
            pass
    import transformer_course.checks.attention as checks
    try:
        inspect.getsource(checks)
        return __import__("numpy").zeros(2)
    except (OSError, TypeError):
        pass
    raise NotImplementedError()
"""
    liar_eq = (
        "class Liar:\n    shape = property(lambda self: (2, 3))\n    dtype = property(lambda self: 'float64')\n"
        "    def __eq__(self, other):\n        return True\n    __array_priority__ = 1000\n"
        "def softmax(x, axis=-1):\n    return Liar()\n"
    )
    liar_array = (
        "import numpy as np\nclass Lying(np.ndarray):\n    def __eq__(self, other):\n        return True\n"
        "    def __array_ufunc__(self, *args, **kwargs):\n        return True\n"
        "def softmax(x, axis=-1):\n    return np.zeros_like(x).view(Lying)\n"
    )
    liar_tensor = wrap(
        TORCH_EXERCISE,
        S4[TORCH_EXERCISE],
        """
        import torch
        class Lying(torch.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                return True
        out, weights = _honest_scaled_dot_product_attention(*args, **kwargs)
        return torch.zeros_like(out).as_subclass(Lying), torch.zeros_like(weights).as_subclass(Lying)
    """,
    )
    add("alice", L4, submission(L4, S4))
    add("alice", L1, submission(L1, S1))
    add("rebind", L4, stubs_and(L4, rebind), total=0)
    add("patch_lib", L4, stubs_and(L4, patch), total=0, flagged=True)
    add("liar_eq", L4, submission(L4, dict(S4, softmax=liar_eq)), zero=[SOFTMAX], broken=True)
    add("liar_array", L4, submission(L4, dict(S4, softmax=liar_array)), zero=[SOFTMAX], broken=True)
    add(
        "liar_tensor",
        L4,
        submission(L4, dict(S4, **{TORCH_EXERCISE: liar_tensor})),
        zero=[TORCH_EXERCISE],
        broken=True,
    )
    add(
        "ref_import",
        L4,
        submission(
            L4, dict(S4, softmax="from transformer_course.reference.attention import softmax")
        ),
        zero=[SOFTMAX],
        status="reference",
    )
    add(
        "ref_lazy",
        L4,
        submission(
            L4,
            dict(
                S4,
                softmax=(
                    "def softmax(x, axis=-1):\n    from transformer_course.reference import attention as r\n"
                    "    return r.softmax(x, axis=axis)\n"
                ),
            ),
        ),
        zero=[SOFTMAX],
        status="reference",
    )
    add(
        "edited_tests",
        L4,
        submission(
            L4,
            S4,
            edit=edit_tests(
                lambda c: dict(c, source="pass", metadata={"nbgrader": dict(meta(c), points=1000)})
            ),
        ),
    )
    add(
        "inflated_stub",
        L4,
        submission(
            L4,
            {},
            edit=edit_tests(lambda c: dict(c, metadata={"nbgrader": dict(meta(c), points=1000)})),
        ),
        total=0,
    )
    add(
        "deleted_test",
        L4,
        submission(
            L4,
            S4,
            edit=edit_tests(lambda c: None if meta(c)["grade_id"] == f"test_{SOFTMAX}" else c),
        ),
        flagged=True,
    )
    add(
        "retyped_tests",
        L4,
        submission(
            L4,
            S4,
            edit=edit_tests(
                lambda c: dict(
                    c,
                    metadata={},
                    source=f"check_{meta(c)['grade_id'][5:]}({meta(c)['grade_id'][5:]})",
                )
            ),
        ),
        flagged=True,
    )

    def strip(nb):
        for cell in nb["cells"]:
            cell["metadata"] = {}

    add("stripped", L4, submission(L4, S4, edit=strip), flagged=True)
    add("exit_top", L4, solved_and(L4, "import os\nos._exit(0)"), flagged=True)
    add(
        "exit_in_check",
        L4,
        submission(
            L4,
            dict(
                S4,
                softmax=wrap(
                    SOFTMAX,
                    S4[SOFTMAX],
                    """
        import os
        if getattr(args[0], "ndim", 0) >= 3:
            os._exit(1)
    """,
                ),
            ),
        ),
        zero=[SOFTMAX],
        flagged=True,
        status="crashed",
        broken=True,
    )
    add(
        "exits_ignored",
        L4,
        submission(
            L4,
            dict(
                S4,
                softmax=S4[SOFTMAX] + "\nimport sys\nsys.exit(0)\n",
                **{TORCH_EXERCISE: S4[TORCH_EXERCISE] + "\nquit()\nexit()\n"},
            ),
        ),
    )
    add(
        "segfault",
        L4,
        submission(
            L4,
            dict(
                S4,
                softmax=wrap(
                    SOFTMAX,
                    S4[SOFTMAX],
                    """
        import ctypes
        ctypes.string_at(0)
    """,
                ),
            ),
        ),
        zero=[SOFTMAX],
        flagged=True,
        status="crashed",
        broken=True,
    )
    add(
        "loop",
        L4,
        submission(L4, dict(S4, softmax=wrap(SOFTMAX, S4[SOFTMAX], "while True:\n    pass"))),
        zero=[SOFTMAX],
        status="timeout",
        broken=True,
    )
    add("sleep", L4, solved_and(L4, "import time\ntime.sleep(10**6)"))
    add(
        "memory",
        L4,
        submission(L4, dict(S4, softmax=wrap(SOFTMAX, S4[SOFTMAX], "bytearray(64 * 2**30)"))),
        zero=[SOFTMAX],
        broken=True,
    )
    add(
        "fork_bomb",
        L4,
        solved_and(
            L4,
            (
                "import os\nfor _ in range(100000):\n    try:\n        os.fork()\n    except OSError:\n        break\n"
            ),
        ),
        flagged=True,
    )
    add(
        "output_flood",
        L4,
        solved_and(
            L4,
            "import sys\nfor _ in range(20):\n    print('x' * 5_000_000)\n"
            "    sys.stderr.write('y' * 5_000_000)",
            answers={SOFTMAX: wrap(SOFTMAX, S4[SOFTMAX], "print('z' * 2_000_000)")},
        ),
    )
    add(
        "stderr_debug",
        L4,
        submission(
            L4,
            dict(
                S4,
                softmax=wrap(
                    SOFTMAX,
                    S4[SOFTMAX],
                    """
        import sys, warnings
        print("debug: called", file=sys.stderr)
        warnings.warn("just a debug warning")
    """,
                ),
            ),
        ),
    )
    add("writes", L4, solved_and(L4, writes))
    add("reads", L4, submission(L4, dict(S4, softmax=reads)), zero=[SOFTMAX], broken=True)
    add(
        "forbidden",
        L4,
        submission(
            L4,
            dict(
                S4,
                **{
                    FORBIDDEN_EXERCISE: wrap(
                        FORBIDDEN_EXERCISE,
                        S4[FORBIDDEN_EXERCISE],
                        f"import torch\n{HARMLESS_CALLS[FORBIDDEN_API]}",
                    )
                },
            ),
        ),
        zero=[FORBIDDEN_EXERCISE],
        status="forbidden",
    )
    add(
        "mention",
        L4,
        submission(
            L4,
            dict(
                S4,
                **{
                    FORBIDDEN_EXERCISE: S4[FORBIDDEN_EXERCISE]
                    + (f"\n\nif False:\n    import torch\n    {HARMLESS_CALLS[FORBIDDEN_API]}\n")
                },
            ),
        ),
        flagged=True,
    )
    add(
        "liar_list",
        L1,
        submission(
            L1,
            dict(
                S1,
                tokenize=(
                    "class Everything(list):\n    def __eq__(self, other):\n        return True\n"
                    "def tokenize(text):\n    return Everything(['?'])\n"
                ),
            ),
        ),
        zero=[TOKENIZE],
        broken=True,
    )
    add(
        "rebind",
        L1,
        stubs_and(L1, "\n".join(f"check_{n} = lambda *a, **k: None" for n in P1)),
        total=0,
    )
    add(
        "ref_import",
        L1,
        submission(
            L1,
            dict(S1, tokenize=("from transformer_course.reference.tokenization import tokenize")),
        ),
        zero=[TOKENIZE],
        status="reference",
    )
    add("invalid_json", L1, b'{"cells": [ this is not json', total=0, flagged=True)
    add("empty", L4, b"", total=0, flagged=True)
    add("renamed", L4, submission(L4, S4), name="my_attention.ipynb", total=0, flagged=True)
    return expectations


SKIP = (
    "autograde/autograded",
    "autograde/feedback",
    "autograde/gradebook.db",
    "autograde/grades.csv",
    "results.json",
)
HOME_SKIP = (
    ".cache",
    ".local",
    ".config",
    ".jupyter",
    ".npm",
    ".pytest_cache",
    ".ipython/profile_default/db",
    ".ipython/profile_default/history.sqlite",
    ".ipython/profile_default/history.sqlite-journal",
    ".pyenv/shims",
    ".python_history",
    ".bash_history",
    ".wget-hsts",
    ".lesshst",
)


def snapshot(course: Path) -> dict:
    return {
        "course": tree_digest(course, SKIP),
        "environment": tree_digest(python_environment(), content=False),
        "home": tree_digest(home(), HOME_SKIP, content=False),
        "package": {
            path: (REPO / "src" / "transformer_course" / path).read_bytes()
            for path in ("checking/__init__.py", "registry.py")
        },
    }


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    course = make_course(tmp_path_factory.mktemp("hostile"), [L1, L4])
    expectations = build_class(course)
    before = snapshot(course)
    run = grader(
        course,
        L1,
        L4,
        "--workers",
        "2",
        "--cell-timeout",
        "15",
        "--check-timeout",
        "15",
        "--submission-timeout",
        "300",
        "--json",
        str(course / "results.json"),
    )
    after = snapshot(course)
    results = {
        (r["student"], r["lesson"]): r for r in json.loads((course / "results.json").read_text())
    }
    return course, expectations, results, run, before, after


def test_the_batch_finishes_and_reports_flags(graded):
    _course, expectations, results, run, _, _ = graded
    assert run.returncode == 3, (
        f"exit status {run.returncode}: expected 3 (flags)\n{run.stdout}\n{run.stderr}"
    )
    assert set(results) == set(expectations), "every submission is graded or reported"
    assert "Flagged for a human" in run.stdout


def test_every_submission_gets_the_right_score(graded):
    _, expectations, results, _, _, _ = graded
    wrong = []
    for key, expected in sorted(expectations.items()):
        result = results[key]
        full = P4 if key[1] == L4 else P1
        got = {e["name"]: e["score"] for e in result["exercises"]}
        statuses = {e["name"]: (e["status"], e["message"][:160]) for e in result["exercises"]}
        if sum(e["points"] for e in result["exercises"]) != sum(full.values()):
            wrong.append((key, "the maximum score changed"))
        if expected["total"] is not None and not expected["zero"]:
            if sum(got.values()) != expected["total"]:
                wrong.append((key, sum(got.values()), expected["total"], statuses))
            continue
        undone = results[("baseline_" + min(expected["zero"]), key[1])]
        baseline = {e["name"]: e["score"] for e in undone["exercises"]}
        for name, score in got.items():
            if name in expected["zero"]:
                ok = score == 0
            elif expected["broken"] and baseline[name] == 0:
                ok = score in (
                    0,
                    full[name],
                )  # it calls the broken function: may fail, as with a stub
            else:
                ok = score == full[name]  # honest work is fully credited
            if not ok:
                wrong.append((key, name, score, statuses[name]))
        for name in expected["zero"]:
            if expected["status"] and statuses[name][0] != expected["status"]:
                wrong.append((key, name, statuses[name], "expected status", expected["status"]))
    assert not wrong, "\n".join(map(str, wrong))


def test_a_cheated_exercise_scores_as_if_left_undone(graded):
    _, expectations, results, _, _, _ = graded
    baselines = [key for key in expectations if key[0].startswith("baseline_")]
    assert baselines
    for student, lesson in baselines:
        name = student.removeprefix("baseline_")
        scores = {e["name"]: e["score"] for e in results[(student, lesson)]["exercises"]}
        full = P4 if lesson == L4 else P1
        assert scores[name] == 0 and sum(scores.values()) <= sum(full.values()) - full[name]


def test_flags_name_the_reason(graded):
    _, expectations, results, _, _, _ = graded
    missing = [
        key
        for key, expected in expectations.items()
        if expected["flagged"] and not results[key]["flags"]
    ]
    assert not missing, f"not flagged: {missing}"
    clean = [
        "alice",
        "edited_tests",
        "liar_eq",
        "ref_import",
        "loop",
        "sleep",
        "output_flood",
        "stderr_debug",
    ]
    noisy = {
        key: results[key]["flags"] for key in results if key[0] in clean and results[key]["flags"]
    }
    assert not noisy, noisy
    reasons = {key: " ".join(results[key]["flags"]) for key in results}
    assert "not valid JSON" in reasons[("invalid_json", L1)]
    assert "empty" in reasons[("empty", L4)]
    assert (
        "my_attention.ipynb" in reasons[("renamed", L4)] and "renamed" in reasons[("renamed", L4)]
    )
    assert "test cell of softmax is missing" in reasons[("deleted_test", L4)]
    assert "metadata" in reasons[("stripped", L4)] and "metadata" in reasons[("retyped_tests", L4)]
    assert FORBIDDEN_API in reasons[("mention", L4)]
    assert "transformer_course.checking" in reasons[("patch_lib", L4)]


def test_messages_say_what_happened_in_plain_words(graded):
    _, _, results, _, _, _ = graded

    def message(student, lesson, name):
        return next(
            e["message"] for e in results[(student, lesson)]["exercises"] if e["name"] == name
        )

    assert "longer than 15 s" in message("loop", L4, SOFTMAX)
    assert "os._exit" in message("exit_in_check", L4, SOFTMAX)
    assert "segmentation fault" in message("segfault", L4, SOFTMAX)
    assert "MemoryError" in message("memory", L4, SOFTMAX)
    assert FORBIDDEN_API in message("forbidden", L4, FORBIDDEN_EXERCISE)
    assert "reference implementation" in message("ref_import", L4, SOFTMAX)
    assert "not implemented yet" in message("reads", L4, SOFTMAX)
    assert "should be a ndarray, but it is a Liar" in message("liar_eq", L4, SOFTMAX)
    assert "not valid JSON" in message("invalid_json", L1, TOKENIZE)


def test_nothing_outside_the_scratch_folder_changed(graded):
    _course, _, _, _, before, after = graded
    assert before["course"] == after["course"], "the course directory (submissions) changed"
    assert before["package"] == after["package"], "the course package changed"
    changed = {
        k
        for k in before["environment"].keys() | after["environment"].keys()
        if before["environment"].get(k) != after["environment"].get(k)
    }
    assert not changed, f"the Python environment changed: {sorted(changed)[:5]}"
    changed = {
        k
        for k in before["home"].keys() | after["home"].keys()
        if before["home"].get(k) != after["home"].get(k)
    }
    assert not changed, f"$HOME changed: {sorted(changed)[:5]}"
    assert not os.path.exists(f"/tmp/pwned-{TOKEN}") and not os.path.exists(
        f"/dev/shm/pwned-{TOKEN}"
    )


def test_no_student_changes_another_students_grade(graded):
    _, _, results, _, _, _ = graded
    for lesson, total in ((L4, T4), (L1, T1)):
        alice = results[("alice", lesson)]
        assert sum(e["score"] for e in alice["exercises"]) == total
        assert all(e["status"] == "passed" for e in alice["exercises"])


def test_feedback_never_shows_a_hidden_test(graded):
    course, expectations, results, _, _, _ = graded
    hidden = []
    for lesson in (L1, L4):
        for cell in notebook(lesson, "solutions")["cells"]:
            text = source(cell)
            if "BEGIN HIDDEN TESTS" in text:
                hidden.append(
                    text.split("### BEGIN HIDDEN TESTS")[1].split("### END HIDDEN TESTS")[0].strip()
                )
    assert hidden
    written = list((course / "autograde" / "feedback").rglob("*.html"))
    written += list((course / "autograde" / "autograded").rglob("*.ipynb"))
    assert len(written) >= len(expectations)
    for path in written:
        text = path.read_text()
        assert "BEGIN HIDDEN TESTS" not in text and "hidden=True" not in text, path
        assert not any(test in text for test in hidden), path
    alice = (course / "autograde" / "feedback" / "alice" / L4 / f"{L4}.html").read_text()
    assert "All visible and hidden checks passed" in alice, results[("alice", L4)]["flags"]
