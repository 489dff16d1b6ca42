"""The notebook's test cell and course-grader say the same thing about forbidden APIs
(issue 22): the same submission, graded both ways, gets the same verdict and the same points
on every exercise of every lesson that forbids something.

For each such lesson, three submissions built from the solution:

* ``runs``: every exercise that forbids something calls a member of its family in its own
  answer (each exercise of a family, across the lessons, another spelling: the dotted
  name, an import alias, a tensor method, a module class): 0 both ways;
* ``unseen``: the same on a branch no check takes: 0 both ways where a reading of the cell
  proves the call, a flag for a human both ways where it cannot (a tensor method);
* ``mixed``: one exercise calls its forbidden API while later exercises use its code
  (``CausalSelfAttention``'s SDPA, with ``DecoderBlock`` and ``GPT`` using it): only the
  exercise whose answer holds the call loses its points; and each family's API is imported
  under an alias and called in the answer of an exercise that allows it (``torch.softmax``
  in grouped-query attention): nothing else is lost, and nothing is flagged.

And one more family, where a check needs autograd's graph, which stays in the sandbox (the
grader takes the gradient there, :mod:`transformer_course.grader.inside.gradients`):

* ``frozen_row``: ``TokenEmbedding`` built with ``padding_idx=1`` (fairseq's <pad>, a real
  token in this course): the right values, but row 1 never trains: 0 both ways;
* ``pad_row``: the same with ``padding_idx=0``, the course's <pad>: accepted both ways;
* ``in_place``: ``scaled_dot_product_attention`` zeroing the weights' rows that allow no
  key in place (``masked_fill_`` on softmax's output): the right values, and a backward
  pass that raises: 0 both ways;
* ``cut_memory``: ``DecoderLayer``'s cross-attention reading ``memory.detach()``: the right
  output, and no gradient into the encoder: 0 both ways, for ``DecoderLayer`` and for the
  ``Decoder`` that stacks it;
* ``cut_term``: ``label_smoothed_loss`` with its smoothing term computed from detached
  log-probabilities: the right value, a wrong gradient: 0 both ways;
* ``cut_statistic``: ``RMSNorm``'s mean square taken from ``x.detach()``: the right
  values, the gradient of a constant root mean square: 0 both ways.

The notebook's verdict comes from calling each exercise's check (visible and hidden, as
the autograded test cell does) on the answers executed as notebook cells; the grader's from
one course-grader run over every lesson's submissions.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import io
import json
import linecache
import shutil
import time

import pytest
from common import grader, make_course, nbgrader, solutions, submission, submit

from transformer_course import api_families, registry
from transformer_course.checking.failure import CheckFailure

pytestmark = [
    pytest.mark.pipeline,
    pytest.mark.xdist_group("forbidden_agreement"),
    pytest.mark.slow(180),
]

LESSONS = [
    lesson for lesson in registry.lessons() if any(e.forbidden for e in registry.exercises(lesson))
]

_X = "torch.zeros(1, 2, 4)"
SPELLINGS: dict[str, list[tuple[str, str]]] = {  # family -> [(cell preamble, call)]
    "softmax": [
        ("import torch", "torch.softmax(torch.zeros(2), 0)"),
        ("import torch", "torch.zeros(2).softmax(0)"),
        ("import torch\nfrom torch import nn as _nn", "_nn.Softmax(dim=0)(torch.zeros(2))"),
        (
            "import torch\nfrom torch.nn.functional import softmax as _normalise",
            "_normalise(torch.zeros(2), dim=0)",
        ),
    ],
    "attention": [
        ("import torch", f"torch.nn.functional.scaled_dot_product_attention({_X}, {_X}, {_X})"),
        (
            "import torch\nfrom torch.nn.functional import scaled_dot_product_attention as _attend",
            f"_attend({_X}, {_X}, {_X})",
        ),
        (
            "import torch\nimport torch.nn.functional as _F",
            f"_F.scaled_dot_product_attention({_X}, {_X}, {_X}, is_causal=True)",
        ),
    ],
    "multi_head_attention": [
        ("import torch", f"torch.nn.MultiheadAttention(4, 1, batch_first=True)({_X}, {_X}, {_X})"),
        (
            "import torch\nfrom torch.nn import MultiheadAttention as _Heads",
            f"_Heads(4, 2, batch_first=True)({_X}, {_X}, {_X})",
        ),
    ],
    "transformer": [
        ("import torch", f"torch.nn.TransformerEncoderLayer(4, 1, 8, batch_first=True)({_X})"),
        (
            "import torch\nfrom torch import nn as _nn",
            f"_nn.TransformerDecoderLayer(4, 1, 8, batch_first=True)({_X}, {_X})",
        ),
    ],
    "layer_norm": [
        ("import torch", "torch.nn.functional.layer_norm(torch.ones(1, 2), (2,))"),
        ("import torch\nfrom torch import nn as _nn", "_nn.LayerNorm(2)(torch.ones(1, 2))"),
        ("import torch", "torch.layer_norm(torch.ones(1, 2), (2,))"),
    ],
    "rms_norm": [
        ("import torch", "torch.nn.functional.rms_norm(torch.ones(1, 2), (2,))"),
        ("import torch\nfrom torch import nn as _nn", "_nn.RMSNorm(2)(torch.ones(1, 2))"),
        ("import torch\nfrom torch import rms_norm as _rms", "_rms(torch.ones(1, 2), (2,))"),
    ],
    "one_hot": [
        ("import torch", "torch.nn.functional.one_hot(torch.tensor([0, 1]), 2)"),
        (
            "import torch\nfrom torch.nn.functional import one_hot as _rows",
            "_rows(torch.tensor([0, 1]), 2)",
        ),
        ("import torch\nimport torch.nn.functional as _F", "_F.one_hot(torch.tensor([1]))"),
    ],
    "cosine_similarity": [
        (
            "import torch",
            "torch.nn.functional.cosine_similarity(torch.ones(1, 2), torch.ones(1, 2))",
        ),
        (
            "import torch\nfrom torch import cosine_similarity as _cos",
            "_cos(torch.ones(1, 2), torch.ones(1, 2))",
        ),
        (
            "import torch\nfrom torch import nn as _nn",
            "_nn.CosineSimilarity()(torch.ones(1, 2), torch.ones(1, 2))",
        ),
    ],
    "cross_entropy": [
        ("import torch", "torch.nn.functional.cross_entropy(torch.zeros(1, 2), torch.tensor([0]))"),
        (
            "import torch\nfrom torch.nn.functional import cross_entropy as _xent",
            "_xent(torch.zeros(1, 2), torch.tensor([0]))",
        ),
        (
            "import torch\nfrom torch import nn as _nn",
            "_nn.CrossEntropyLoss()(torch.zeros(1, 2), torch.tensor([0]))",
        ),
    ],
}


def family(exercise) -> str:
    found = api_families.family_of(exercise.forbidden[0])
    assert found in SPELLINGS, f"{exercise.name}: no spelling of its family {found}"
    return found


def inject(answer: str, name: str, preamble: str, call: str, unseen: bool = False) -> str:
    """The answer with ``call`` made at the start of what its checks run (the function, or
    the module's ``forward``), and ``preamble`` at the top of the cell; ``unseen``: on a
    branch no check takes (only a reading of the cell can find it)."""
    tree = ast.parse(answer)
    target = next(
        n for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef) and n.name == name
    )
    if isinstance(target, ast.ClassDef):
        methods = {n.name: n for n in target.body if isinstance(n, ast.FunctionDef)}
        target = methods.get("forward") or methods["__init__"]
    body = target.body
    first = body[1] if len(body) > 1 and isinstance(body[0], ast.Expr) else body[0]
    lines = answer.splitlines()
    indent = " " * first.col_offset
    statement = f"_unused = {call}"
    if unseen:
        statement = f"if __debug__ is None:  # never\n{indent}    {statement}"
    lines.insert(first.lineno - 1, f"{indent}{statement}")
    return f"{preamble}\n" + "\n".join(lines)


def spelling(lesson: str, exercise, unseen: bool) -> tuple[str, str]:
    """Each exercise of a family, across the lessons, gets the family's next spelling (on
    the branch no check takes, the one after), so that the spellings are spread out."""
    fam = family(exercise)
    uses = [
        (other_lesson, e.name)
        for other_lesson in LESSONS
        for e in registry.exercises(other_lesson)
        if e.forbidden and family(e) == fam
    ]
    spellings = SPELLINGS[fam]
    k = uses.index((lesson, exercise.name)) + unseen
    return spellings[k % len(spellings)]


def _forbids(exercise, fam: str) -> bool:
    members = api_families.FAMILIES[fam]
    expanded = api_families.expand_forbidden(exercise.forbidden)
    return any(api_families.matches(m, p) for m in members for p in expanded)


def _method(call: str) -> bool:
    """A tensor method: the grader cannot tell from the source what it is called on."""
    return call.startswith("torch.zeros(2).")


def submissions(lesson: str) -> dict[str, tuple[dict[str, str], dict[str, str]]]:
    """student -> (answers, the verdict expected on each exercise: "ok", "zero" or "flag")."""
    solved = solutions(lesson)
    exercises = registry.exercises(lesson)
    forbidding = [e for e in exercises if e.forbidden]
    ok = {e.name: "ok" for e in exercises}
    found = {}
    for student, unseen in (("runs", False), ("unseen", True)):
        answers, expected = dict(solved), dict(ok)
        for e in forbidding:
            preamble, call = spelling(lesson, e, unseen)
            answers[e.name] = inject(solved[e.name], e.name, preamble, call, unseen)
            expected[e.name] = "flag" if unseen and _method(call) else "zero"
        found[student] = (answers, expected)
    # "mixed": one exercise calls its forbidden API, and exercises that use its code (by
    # name) keep their points; an allowed API imported and called where it is allowed
    used = [  # preferably by an exercise that forbids the same family
        e
        for co in (True, False)
        for e in forbidding
        if any(
            e.name in solved[o.name] and (_forbids(o, family(e)) or not co)
            for o in exercises
            if o.name != e.name
        )
    ]
    holder = (used or forbidding)[0]
    preamble, call = SPELLINGS[family(holder)][0]
    answers = dict(
        solved, **{holder.name: inject(solved[holder.name], holder.name, preamble, call)}
    )
    for fam in sorted({family(e) for e in forbidding}):
        users = " ".join(solved[e.name] for e in forbidding if _forbids(e, fam))
        hosts = [  # preferably one that forbids another family (softmax in GQA's cell)
            e
            for e in sorted(exercises, key=lambda e: not e.forbidden)
            if e.kind != "quiz" and not _forbids(e, fam) and e.name not in users
        ]
        if hosts:
            # an import alias: a name kept in that cell, for every exercise to see
            preamble, call = next(sp for sp in SPELLINGS[fam] if " as " in sp[0])
            answers[hosts[0].name] = inject(answers[hosts[0].name], hosts[0].name, preamble, call)
    found["mixed"] = (answers, {**ok, holder.name: "zero"})
    for student, (name, old, new, verdicts) in GRADIENT_CASES.get(lesson, {}).items():
        assert old in solved[name], (lesson, name, old)
        changed = dict(solved, **{name: solved[name].replace(old, new)})
        found[student] = (changed, {**ok, **verdicts})
    return found


#: lesson -> student -> (exercise, text of the solution, replaced by, the verdicts expected
#: where they are not "ok"): the submissions whose check needs a gradient through the
#: learner's code (a later exercise of the lesson that builds on the changed one loses its
#: points too: it runs the learner's own class)
_TABLE = "nn.Embedding(vocab_size, d_model)"
GRADIENT_CASES = {
    "02_embeddings": {
        "frozen_row": (
            "TokenEmbedding",
            _TABLE,
            "nn.Embedding(vocab_size, d_model, padding_idx=1)",
            {"TokenEmbedding": "zero"},
        ),
        "pad_row": (
            "TokenEmbedding",
            _TABLE,
            "nn.Embedding(vocab_size, d_model, padding_idx=0)",
            {},
        ),
    },
    "04_attention": {
        "in_place": (
            "scaled_dot_product_attention",
            "weights = weights.masked_fill(nothing_allowed, 0.0)",
            "weights.masked_fill_(nothing_allowed, 0.0)",
            {"scaled_dot_product_attention": "zero"},
        ),
    },
    "08_decoder": {
        "cut_memory": (
            "DecoderLayer",
            "self.cross_attn(x, memory, memory, src_mask)[0]))",
            "self.cross_attn(x, memory.detach(), memory.detach(), src_mask)[0]))",
            # the Decoder stacks the learner's DecoderLayer: its check asks the stack's
            # output for memory's gradient too (round 36), so the cut costs both, as the
            # RMSNorm cut below costs the block and the GPT built on it
            {"DecoderLayer": "zero", "Decoder": "zero"},
        ),
    },
    "11_language_model": {
        "cut_statistic": (
            "RMSNorm",
            "mean_square = x.pow(2).mean(dim=-1, keepdim=True)",
            "mean_square = x.detach().pow(2).mean(dim=-1, keepdim=True)",
            {"RMSNorm": "zero", "DecoderBlock": "zero", "GPT": "zero"},
        ),
    },
    "10_training": {
        "cut_term": (
            "label_smoothed_loss",
            "uniform = -log_probs.mean(dim=-1)",
            "uniform = -log_probs.detach().mean(dim=-1)",
            {"label_smoothed_loss": "zero"},
        ),
    },
}


# ------------------------------------------------------------------ the notebook's side
_cells = iter(range(10**6))


def run_cell(source: str, namespace: dict, run: str) -> None:
    """Run a cell as the kernel does: its source kept in ``linecache`` under a name of its
    own (``run``: one notebook's cells share a prefix, as a kernel's share a folder)."""
    filename = f"<{run}-cell-{next(_cells)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)


def notebook_verdicts(lesson: str, answers: dict[str, str]) -> dict[str, str]:
    """exercise -> "ok", "zero" or "flag" (passed, with a warning for a human), from the
    checks run as the autograded test cells run them, on the answers run as cells."""
    module = importlib.import_module(
        f"transformer_course.reference.{registry.lesson_topic(lesson)}"
    )
    namespace = dict(vars(module), __name__="__main__")
    verdicts = {}
    run = f"notebook{next(_cells)}"
    for exercise in registry.exercises(lesson):
        run_cell(answers[exercise.name], namespace, run)
        printed = io.StringIO()
        try:
            with contextlib.redirect_stdout(printed):
                exercise.check(namespace[exercise.name])
                exercise.check(namespace[exercise.name], hidden=True)
        except CheckFailure:
            verdicts[exercise.name] = "zero"
            continue
        warned = f"⚠ {exercise.name}:" in printed.getvalue()
        verdicts[exercise.name] = "flag" if warned else "ok"
    return verdicts


def grader_verdicts(result: dict) -> dict[str, str]:
    verdicts = {}
    for e in result["exercises"]:
        flagged = any(f.startswith(f"{e['name']}:") for f in result["flags"])
        verdicts[e["name"]] = "zero" if e["score"] == 0 else "flag" if flagged else "ok"
        assert e["score"] in (0, e["points"]), (e["name"], e["status"], e["message"])
    return verdicts


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    course = make_course(tmp_path_factory.mktemp("agreement"), LESSONS)
    cases = {lesson: submissions(lesson) for lesson in LESSONS}
    for lesson, by_student in cases.items():
        for student, (answers, _) in by_student.items():
            submit(course, student, lesson, submission(lesson, answers))
    # The lessons registered as an instructor's gradebook has them after generate_assignment:
    # one nbgrader process for all of them, where course-grader on a fresh gradebook starts
    # one per lesson (about 3 CPU s each); that path is tested by test_grader_infra, _hostile
    # and test_scaffold, and what this test compares is the verdicts.
    nbgrader(course, "generate_assignment", "*", "--force")
    shutil.copy2(course / "autograde" / "gradebook.db", course / "ours.db")
    start = time.monotonic()
    run = grader(
        course,
        *LESSONS,
        "--workers",
        "1",
        "--no-export",
        "--no-feedback",
        "--db",
        f"sqlite:///{course}/ours.db",
        "--json",
        str(course / "results.json"),
    )
    seconds = time.monotonic() - start
    results = {
        (r["student"], r["lesson"]): r for r in json.loads((course / "results.json").read_text())
    }
    size = sum(len(registry.exercises(lesson)) * len(cases[lesson]) for lesson in LESSONS)
    print(f"course-grader: {len(results)} submissions, {size} exercise verdicts, {seconds:.0f} s")
    return cases, results, run


@pytest.mark.parametrize("lesson", LESSONS)
def test_the_notebook_and_the_grader_agree_on_every_exercise(graded, lesson):
    cases, results, _ = graded
    disagree, unexpected = [], []
    for student, (answers, expected) in cases[lesson].items():
        result = results[(student, lesson)]
        ours = notebook_verdicts(lesson, answers)
        theirs = grader_verdicts(result)
        for name in expected:
            if ours[name] != theirs[name]:
                message = next(e["message"] for e in result["exercises"] if e["name"] == name)
                disagree.append((student, name, ours[name], theirs[name], message[:200]))
            elif ours[name] != expected[name]:
                unexpected.append((student, name, ours[name], expected[name]))
        if student == "mixed":
            assert result["flags"] == [], (student, result["flags"])
    assert disagree == [], disagree
    assert unexpected == [], unexpected


def test_a_forbidden_call_is_named_with_what_to_write_instead(graded):
    cases, results, _ = graded
    zeroed = next(
        e for e in results[("runs", "02_embeddings")]["exercises"] if e["name"] == "one_hot"
    )
    assert "`F.one_hot` computes the answer for you; build the one-hot rows" in zeroed["message"]
    answers, _ = cases["02_embeddings"]["runs"]
    module = importlib.import_module("transformer_course.reference.embeddings")
    namespace = dict(vars(module), __name__="__main__")
    run_cell(answers["one_hot"], namespace, f"notebook{next(_cells)}")
    with pytest.raises(
        CheckFailure, match=r"`F\.one_hot` computes the answer for you; build the one-hot rows"
    ):
        registry.exercise("02_embeddings", "one_hot").check(namespace["one_hot"])
