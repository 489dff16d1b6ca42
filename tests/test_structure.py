"""The layering the course relies on (CONTRIBUTING.md, "Layers"): lessons' check modules are
leaves that share only the checking toolkit, lesson tests do not import each other, and a
lesson's grading fingerprint covers every course module its checks depend on."""

from __future__ import annotations

import json
import shutil
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from common import imported_modules

from transformer_course import registry
from transformer_course.grader import lesson as grader_lesson

PACKAGE = Path(registry.__file__).resolve().parent
TESTS = Path(__file__).resolve().parent
#: what a checks/<topic>.py may import from the course (besides the standard library and
#: the third-party libraries below)
CHECKS_MAY_IMPORT = ("transformer_course.checking", "transformer_course.reference")
CHECKS_MAY_IMPORT_EXACTLY = (
    "transformer_course.exercise",
    # the lessons' data: a lesson's checks may use its own generated data, which then
    # regrades only the lessons whose checks import it
    "transformer_course.data",
    "transformer_course.translation",
    "transformer_course.stdlib_corpus",
)
THIRD_PARTY = {"numpy", "torch", "sacrebleu"}


def check_module_violations(source: str, package: str = "transformer_course.checks") -> list[str]:
    """What a checks/<topic>.py, or a module of a check package checks/<topic>/ (given its
    source and its package), imports that a leaf must not. A check package's modules may
    import each other (``package``'s own modules), and nothing else of checks/."""
    problems = []
    own = package + "." if package != "transformer_course.checks" else None
    for line, name in imported_modules(source, package):
        top = name.split(".")[0]
        if own and name.startswith(own):
            continue  # a sibling in the same check package
        if name.startswith("transformer_course.checks."):
            problems.append(f"line {line} imports another check module: {name}")
        elif top == "transformer_course":
            allowed = any(name.startswith(prefix + ".") for prefix in CHECKS_MAY_IMPORT) or any(
                name == module or name.startswith(module + ".")
                for module in CHECKS_MAY_IMPORT_EXACTLY
            )
            if not allowed:
                problems.append(f"line {line} imports {name}")
        elif top not in sys.stdlib_module_names and top not in THIRD_PARTY and top != "__future__":
            problems.append(f"line {line} imports the third-party {name}")
    return problems


def lesson_test_violations(source: str) -> list[str]:
    """The lesson test modules (tests/test_NN_*.py) that a test module imports."""
    problems = []
    for line, name in imported_modules(source):
        top = name.split(".")[0]
        if top.startswith("test_") and top[5:7].isdigit():
            problems.append(f"line {line} imports the lesson test module {top}")
    return problems


CHECKS_DIR = PACKAGE / "checks"
#: the check modules: checks/<topic>.py, and every module of a check package checks/<topic>/
CHECK_MODULES = sorted(p for p in CHECKS_DIR.rglob("*.py") if p != CHECKS_DIR / "__init__.py")
#: the check packages (a large lesson's checks, one module per exercise)
CHECK_PACKAGES = sorted(p.parent for p in CHECKS_DIR.glob("*/__init__.py"))


def _package_of(path: Path) -> str:
    """The package a module of the course lives in (checks/training/beam.py ->
    transformer_course.checks.training; a package's __init__ is its own package)."""
    return ".".join(["transformer_course", *path.parent.relative_to(PACKAGE).parts])


@pytest.mark.parametrize("path", CHECK_MODULES, ids=lambda p: str(p.relative_to(CHECKS_DIR)))
def test_check_modules_are_leaves(path):
    """A checks/<topic>.py imports only checking, reference, the lesson data modules and
    exercise from the course (never another check module), besides the standard library,
    numpy, torch, sacrebleu; a check package's modules also import their siblings."""
    assert check_module_violations(path.read_text(), _package_of(path)) == []


@pytest.mark.parametrize(
    "topic",
    [
        "tokenization",
        "positional_encoding",
        "attention",
        "multi_head_attention",
        "transformer",
        "training",
        "language_model",
        "inference",
    ],
)
def test_a_large_lesson_s_checks_are_a_package(topic):
    """Lessons 01, 03, 04, 05, 09, 10, 11 and 12 hold several independent exercises: their checks
    are packages, one module per exercise or small group, which the leaf and face rules above
    walk."""
    assert CHECKS_DIR / topic in CHECK_PACKAGES
    assert not (CHECKS_DIR / f"{topic}.py").exists()
    assert len([p for p in CHECK_MODULES if p.parent == CHECKS_DIR / topic]) > 2


@pytest.mark.parametrize(
    "line",
    [
        "from transformer_course.checks.encoder import post_pre",
        "from transformer_course.checks import encoder",
        "from ..encoder import post_pre",
        "from .. import encoder",
        "import transformer_course.checks.decoder",
        "from transformer_course.grader import codec",
        "import transformer_course.plotting",
        "import pandas",
    ],
)
def test_the_leaf_rule_catches_a_forbidden_import_inside_a_package(line):
    path = CHECKS_DIR / "training" / "beam.py"
    source = path.read_text()
    assert check_module_violations(source, _package_of(path)) == []
    # a sibling, relative or absolute, is allowed
    siblings = (
        "from .common import is_tensor\nfrom transformer_course.checks.training import step\n"
    )
    assert check_module_violations(source + siblings, _package_of(path)) == []
    assert check_module_violations(source + f"\n\ndef f():\n    {line}\n", _package_of(path))


def face_violations(source: str, package: str) -> list[str]:
    """What a check package's face (checks/<topic>/__init__.py) does besides its docstring,
    imports from its own modules and ``__all__``."""
    import ast

    problems = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue
        if isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == ["__all__"]:
            continue
        if isinstance(node, ast.ImportFrom) and (
            node.level == 1 or (node.module or "").startswith(package + ".")
        ):
            continue
        problems.append(f"line {node.lineno}: {ast.unparse(node).splitlines()[0]}")
    return problems


@pytest.mark.parametrize("path", CHECK_PACKAGES, ids=lambda p: p.name)
def test_a_check_package_s_face_only_re_exports(path):
    """checks/<topic>/__init__.py defines nothing: each exercise's checks live in a named
    module, and the face gives the names that notebooks, tests and the registry import."""
    assert (
        face_violations((path / "__init__.py").read_text(), _package_of(path / "__init__.py")) == []
    )


@pytest.mark.parametrize(
    "line",
    [
        "def check_extra(f):\n    pass",
        "class Case:\n    pass",
        "_VOCAB = {}",
        "LESSON = '01_tokenization'",
        "check_unk = check_tokenize",
        "import numpy as np",
        "from transformer_course.checking import Checker",
        "from transformer_course.checks.training import check_noam_lr",
        "from ..training import check_noam_lr",
    ],
)
def test_the_face_rule_catches_a_definition_or_a_foreign_import(line):
    path = CHECKS_DIR / "tokenization" / "__init__.py"
    package = _package_of(path)
    source = path.read_text()
    assert face_violations(source, package) == []
    own = "from transformer_course.checks.tokenization.words import check_tokenize\n"
    assert face_violations(source + own, package) == []
    assert len(face_violations(source + "\n" + line + "\n", package)) == 1


@pytest.mark.parametrize(
    "line",
    [
        "from transformer_course.checks.encoder import post_pre",
        "import transformer_course.checks.encoder",
        "from transformer_course.checks import encoder",
        "from . import encoder",
        "from .encoder import post_pre",
        "from transformer_course.grader import codec",
        "import transformer_course.plotting",
        "import pandas",
    ],
)
def test_the_leaf_rule_catches_a_forbidden_import(line):
    source = (PACKAGE / "checks" / "decoder.py").read_text()
    assert check_module_violations(source + f"\n\ndef f():\n    {line}\n")


LESSON_TESTS = sorted(TESTS.glob("test_[0-9][0-9]_*.py"))


@pytest.mark.parametrize("path", sorted(TESTS.glob("*.py")), ids=lambda p: p.name)
def test_no_test_module_imports_a_lesson_test_module(path):
    """Shared test helpers live in the test-helper module, not in one lesson's tests."""
    assert lesson_test_violations(path.read_text()) == []


@pytest.mark.parametrize(
    "line",
    [
        "from test_07_encoder import answer",
        "import test_07_encoder",
        "import test_10_training as t",
    ],
)
def test_the_lesson_test_rule_catches_an_import(line):
    # the modules these lines name are lesson tests that exist (the glob finds them)
    assert {"test_07_encoder.py", "test_10_training.py"} <= {p.name for p in LESSON_TESTS}
    source = (TESTS / "test_08_decoder.py").read_text()
    assert lesson_test_violations(source + f"\n{line}\n")


# ============================================================================ fingerprints
@pytest.fixture(scope="module")
def package_copy(tmp_path_factory):
    """A copy of the package's sources (the checkpoints' code included, which lesson 12's
    checks import; not their weights), which the fingerprint is pointed at."""
    copy = tmp_path_factory.mktemp("package") / "transformer_course"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "*.pt"))
    return copy


def _fingerprints(monkeypatch, root: Path) -> dict[str, str]:
    monkeypatch.setattr(grader_lesson, "PACKAGE_DIR", root)
    return {lesson: grader_lesson.checks_fingerprint(lesson) for lesson in registry.lessons()}


#: shared modules of the lessons' side: a lesson depends on one when importing its checks and
#: reference loads it (07-08 share the layer mistakes; 07-12 build on the encoder's
#: reference; every check uses the formatter)
LESSON_SIDE = (
    "transformer_course.checking.layer_mistakes",
    "transformer_course.reference.encoder",
    "transformer_course.checking.formatting",
    # the float64 oracles: lessons 04-11 take their mistakes' values from the attention
    "transformer_course.checking.oracles.attention",
    # lesson 10's corpus: only the lessons whose checks use it (not every lesson that uses
    # the check toolkit)
    "transformer_course.translation",
    # the shared machinery of a check package: its own lesson only
    "transformer_course.checks.tokenization.common",
    "transformer_course.checks.positional_encoding.common",
    "transformer_course.checks.attention.common",
    "transformer_course.checks.multi_head_attention.common",
    "transformer_course.checks.transformer.common",
    "transformer_course.checks.training.common",
    "transformer_course.checks.language_model.common",
    "transformer_course.checks.inference.common",
)
#: the grader's side: hashed whole (its code inside the sandbox) or imported by it (the
#: forbidden-API families it enforces), so in every lesson's fingerprint
GRADER_SIDE = ("transformer_course.grader.inside.server", "transformer_course.api_families")

_LOADED_BY_LESSON = """
import importlib, json, sys
import numpy, torch
from transformer_course import registry
loaded = {}
for lesson in registry.lessons():
    for name in [m for m in sys.modules if m.startswith("transformer_course")]:
        del sys.modules[name]
    topic = lesson.split("_", 1)[1]
    importlib.import_module(f"transformer_course.checks.{topic}")
    importlib.import_module(f"transformer_course.reference.{topic}")
    loaded[lesson] = sorted(m for m in sys.modules if m.startswith("transformer_course"))
print(json.dumps(loaded))
"""


@pytest.fixture(scope="module")
def loaded_by_lesson() -> dict[str, list[str]]:
    """Each lesson's course modules as Python loads them, in a fresh interpreter: an oracle
    for the fingerprint's own walk of the imports, and no list to keep by hand."""
    import subprocess

    run = subprocess.run(
        [sys.executable, "-c", _LOADED_BY_LESSON], capture_output=True, text=True, check=True
    )
    return json.loads(run.stdout)


@pytest.mark.parametrize("module", LESSON_SIDE + GRADER_SIDE)
def test_editing_a_shared_module_changes_exactly_its_dependents_fingerprints(
    monkeypatch, package_copy, loaded_by_lesson, module
):
    if module in GRADER_SIDE:
        dependents = set(registry.lessons())
    else:
        dependents = {lesson for lesson, loaded in loaded_by_lesson.items() if module in loaded}
    assert dependents, f"no lesson loads {module}"
    before = _fingerprints(monkeypatch, package_copy)
    path = package_copy.joinpath(*module.split(".")[1:]).with_suffix(".py")
    original = path.read_bytes()
    try:
        path.write_bytes(original + b"\n# an edit that changes how a check behaves\n")
        after = _fingerprints(monkeypatch, package_copy)
    finally:
        path.write_bytes(original)
    assert {lesson for lesson in before if before[lesson] != after[lesson]} == dependents


def test_a_lesson_s_fingerprint_is_that_of_the_installed_package(monkeypatch, package_copy):
    assert _fingerprints(monkeypatch, package_copy) == _fingerprints(monkeypatch, PACKAGE)


def repeated_quiz_names(exercises) -> dict[str, list[str]]:
    """Each quiz name defined by more than one lesson, with those lessons."""
    lessons_of: dict[str, list[str]] = {}
    for ex in exercises:
        if ex.kind == "quiz":
            lessons_of.setdefault(ex.name, []).append(ex.lesson)
    return {name: where for name, where in lessons_of.items() if len(where) > 1}


def test_quiz_names_are_unique_in_the_course():
    """A quiz is named by what it asks, once in the course: a grade_id that two lessons share
    reads as one question in a gradebook export, in feedback and in a learner's search."""
    assert repeated_quiz_names(registry.all_exercises()) == {}


def test_the_quiz_name_rule_catches_a_repeat():
    exercises = registry.exercises("04_attention") + registry.exercises("05_multi_head_attention")
    quiz = next(ex for ex in exercises if ex.kind == "quiz")
    repeat = replace(quiz, lesson="05_multi_head_attention")
    assert repeated_quiz_names((*exercises, repeat)) == {
        quiz.name: ["04_attention", "05_multi_head_attention"]
    }


# ------------------------------------------------------------ the grader: trusted, generic
GRADER = PACKAGE / "grader"


def grader_sources(root: Path = GRADER) -> dict[str, str]:
    """{module name: source} of every module of the grader (packages' ``__init__`` left out:
    Python runs a package before its modules, so an import of the package is no edge)."""
    return {
        "transformer_course.grader." + ".".join(path.relative_to(root).with_suffix("").parts): (
            path.read_text()
        )
        for path in sorted(root.rglob("*.py"))
        if path.name != "__init__.py"
    }


def import_cycle(sources: dict[str, str]) -> tuple[str, ...] | None:
    """A circle of imports among the given modules (imports anywhere in a module count:
    a function-level import is a circle tied at run time), or None."""
    import graphlib

    graph: dict[str, set[str]] = {}
    for module, source in sources.items():
        package = module.rpartition(".")[0]
        targets = set()
        for _, name in imported_modules(source, package):
            while name and name not in sources:
                name = name.rpartition(".")[0]
            if name and name != module:
                targets.add(name)
        graph[module] = targets
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as error:
        return tuple(error.args[1])
    return None


def grader_content_violations(sources: dict[str, str]) -> list[str]:
    """What in the grader is course content: an import of the notebook builder, a lesson's
    name, or a member of a family of forbidden APIs (those live in ``api_families``)."""
    import ast
    import re

    from transformer_course.api_families import FAMILIES

    members = {member for family in FAMILIES.values() for member in family}
    problems = []
    for module, source in sources.items():
        for line, name in imported_modules(source, module.rpartition(".")[0]):
            if name == "transformer_course.build" or name.startswith("transformer_course.build."):
                problems.append(f"{module} line {line} imports the notebook builder ({name})")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if node.value in members:
                    problems.append(f"{module} line {node.lineno} names the API {node.value!r}")
                elif re.fullmatch(r"\d\d_[a-z_]+", node.value):
                    problems.append(f"{module} line {node.lineno} names the lesson {node.value!r}")
    return problems


def test_the_grader_has_no_import_circle():
    assert import_cycle(grader_sources()) is None


def test_the_circle_rule_catches_a_circle():
    sources = grader_sources()
    errors = "transformer_course.grader.errors"
    sources[errors] += (
        "\n\ndef _late():\n    from transformer_course.grader.session import Session\n"
    )
    cycle = import_cycle(sources)
    assert cycle is not None and errors in cycle


def test_the_grader_holds_no_course_content():
    """A new lesson, or a new forbidden API, is added without editing the trusted grader."""
    assert grader_content_violations(grader_sources()) == []


@pytest.mark.parametrize(
    "line",
    [
        "from transformer_course.build import REPO",
        'FORBIDDEN = ("torch.nn.functional.softmax",)',
        'LESSON = "04_attention"',
    ],
)
def test_the_grader_content_rule_catches_a_violation(line):
    sources = grader_sources()
    sources["transformer_course.grader.cli"] += "\n" + line + "\n"
    assert len(grader_content_violations(sources)) == 1


# ------------------------------------ the bottom layers: no figures, no lesson data in them
#: what reference/ and checking/ must not import: editing a figure or a lesson's data would
#: otherwise regrade every lesson that builds on them
NOT_IN_THE_BOTTOM_LAYERS = (
    "transformer_course.plotting",
    "transformer_course.data",
    "transformer_course.translation",
    "transformer_course.stdlib_corpus",
    "transformer_course.wordvectors",
    # nor a check module: checking/ (its oracles included) is below the lessons' checks
    "transformer_course.checks",
)
BOTTOM_LAYERS = sorted(
    path
    for folder in ("reference", "checking")
    for path in (PACKAGE / folder).rglob("*.py")
    if path.name != "__init__.py"
)


def bottom_layer_violations(source: str, package: str) -> list[str]:
    return [
        f"line {line} imports {name}"
        for line, name in imported_modules(source, package)
        if any(
            name == banned or name.startswith(banned + ".") for banned in NOT_IN_THE_BOTTOM_LAYERS
        )
    ]


@pytest.mark.parametrize("path", BOTTOM_LAYERS, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_the_bottom_layers_import_no_figures_and_no_lesson_data(path):
    package = ".".join(["transformer_course", *path.parent.relative_to(PACKAGE).parts])
    assert bottom_layer_violations(path.read_text(), package) == []


@pytest.mark.parametrize(
    "line",
    [
        "from transformer_course.plotting import running_headless",
        "from transformer_course import translation",
        "    from transformer_course.data import BLACK_CAT",
        "from transformer_course.checks.decoder import check_Decoder",
    ],
)
def test_the_bottom_layer_rule_catches_an_import(line):
    source = (PACKAGE / "checking" / "inputs.py").read_text()
    body = f"def late():\n{line}\n" if line.startswith(" ") else line + "\n"
    assert len(bottom_layer_violations(source + "\n" + body, "transformer_course.checking")) == 1


# ------------------------------------------- oracles by concept, check modules' private names
CHECKS = "transformer_course.checks"


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _dotted(node) -> str | None:
    """``a.b.c`` of an attribute chain that starts at a name, else None."""
    import ast

    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def check_module_uses(source: str) -> list[tuple[int, str]]:
    """(line, ``transformer_course.checks.<topic>.<name>``) of every name a source takes
    from a check module: imported by name (``from ...checks.topic import name``), or reached
    through the module (``topic.name``, ``getattr(topic, "name")``,
    ``monkeypatch.setattr(topic, "name", ...)``) wherever it is bound by an import."""
    import ast

    tree = ast.parse(source)
    modules: dict[str, str] = {}  # a name bound to a check module -> that module
    uses = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            if node.module == CHECKS:
                modules |= {a.asname or a.name: f"{CHECKS}.{a.name}" for a in node.names}
            elif node.module.startswith(CHECKS + "."):
                uses += [(node.lineno, f"{node.module}.{a.name}") for a in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(CHECKS + "."):
                    modules[alias.asname or "transformer_course"] = (
                        alias.name if alias.asname else "transformer_course"
                    )

    def resolve(dotted: str | None) -> str | None:
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        if head not in modules:
            return None
        full = modules[head] + ("." + rest if rest else "")
        return full if full.startswith(CHECKS + ".") else None

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            base = resolve(_dotted(node.value))
            # transformer_course.checks.topic, or a module of a check package
            if base is not None and base.count(".") >= 2:
                uses.append((node.lineno, f"{base}.{node.attr}"))
        elif isinstance(node, ast.Call) and len(node.args) >= 2:
            base, name = resolve(_dotted(node.args[0])), node.args[1]
            if base is not None and isinstance(name, ast.Constant) and isinstance(name.value, str):
                uses.append((node.lineno, f"{base}.{name.value}"))
    return uses


def private_reaches(source: str) -> list[str]:
    """What a test takes from a check module that is private (a leading underscore)."""
    return [
        f"line {line} uses {name}"
        for line, name in check_module_uses(source)
        if _private(name.rpartition(".")[2])
    ]


def cross_lesson_uses(source: str, own_topic: str) -> list[str]:
    """What a lesson's test takes from another lesson's check module besides its check
    functions (``check_<name>``, the face every notebook imports): an oracle or helper that
    two lessons need lives in ``checking/`` (``checking/oracles`` for the float64 oracles),
    never in one lesson's checks for another to import."""
    problems = []
    for line, name in check_module_uses(source):
        topic, _, attribute = name.removeprefix(CHECKS + ".").partition(".")
        if topic != own_topic and attribute and not attribute.startswith("check_"):
            problems.append(f"line {line} uses {name} from another lesson's check module")
    return problems


def oracles_outside_their_home(source: str) -> list[str]:
    """The functional oracles (functions named ``*_f``) a module defines: they live in
    ``checking/oracles``, one module per concept, so that no lesson's checks hold one."""
    import ast

    return [
        f"line {node.lineno} defines the oracle {node.name}"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.endswith("_f")
    ]


def _lesson_topic(test_file: Path) -> str:
    """The check module of a lesson test's lesson (tests/test_10_corpus.py -> training)."""
    number = test_file.name[5:7]
    (lesson,) = [lesson for lesson in registry.lessons() if lesson[:2] == number]
    return lesson.split("_", 1)[1]


@pytest.mark.parametrize("path", LESSON_TESTS, ids=lambda p: p.name)
def test_no_lesson_test_uses_a_private_name_of_a_check_module(path):
    """A lesson test goes through a check module's public face: its check functions, and
    the public, documented helpers and cases it exports; an oracle is public in
    ``checking/oracles``."""
    found = {
        name.split()[-1].removeprefix(CHECKS + ".") for name in private_reaches(path.read_text())
    }
    assert not found, sorted(found)


@pytest.mark.parametrize(
    "line",
    [
        "from transformer_course.checks.encoder import _STACK_NO_MASK",
        "from transformer_course.checks import encoder as checks\nchecks._build",
        "import transformer_course.checks.encoder as enc\nenc._STACK_NO_MASK",
        "from transformer_course.checks import encoder\ngetattr(encoder, '_build')",
        "from transformer_course.checks import encoder\nmonkeypatch.setattr(encoder, '_X', 1)",
        # into a check package's modules
        "from transformer_course.checks.training.beam import _search",
        "from transformer_course.checks import training\ntraining.beam._search",
        "import transformer_course.checks.training.step as step\nstep._STEP_MODEL",
    ],
)
def test_the_private_name_rule_catches_a_reach(line):
    source = (TESTS / "test_07_encoder.py").read_text()
    assert private_reaches(source) == []
    assert len(private_reaches(source + "\n" + line + "\n")) == 1


@pytest.mark.parametrize("path", LESSON_TESTS, ids=lambda p: p.name)
def test_no_lesson_test_takes_an_oracle_or_helper_from_another_lesson_s_checks(path):
    assert cross_lesson_uses(path.read_text(), _lesson_topic(path)) == []


@pytest.mark.parametrize(
    "line",
    [
        "from transformer_course.checks.encoder import LAYER_HINTS",
        "from transformer_course.checks import decoder as other\nother.decoder_layer_f",
    ],
)
def test_the_cross_lesson_rule_catches_a_use(line):
    source = (TESTS / "test_09_transformer.py").read_text()
    assert _lesson_topic(TESTS / "test_09_transformer.py") == "transformer"
    assert cross_lesson_uses(source + "\n" + line + "\n", "transformer")
    # the same use in the lesson's own tests, or another lesson's check function: fine
    encoder_tests = (TESTS / "test_07_encoder.py").read_text()
    own = "from transformer_course.checks.encoder import LAYER_HINTS"
    other_check = "from transformer_course.checks.decoder import check_Decoder"
    assert cross_lesson_uses(f"{encoder_tests}\n{own}\n{other_check}\n", "encoder") == []


ORACLES = PACKAGE / "checking" / "oracles"
PACKAGE_MODULES = sorted(
    path for path in PACKAGE.rglob("*.py") if ORACLES not in path.parents and path.parent != ORACLES
)


def test_functional_oracles_are_defined_only_in_checking_oracles():
    """No check module (or any other module) holds a float64 oracle: a later lesson reuses
    an earlier one from its one home."""
    problems = {
        str(path.relative_to(PACKAGE)): found
        for path in PACKAGE_MODULES
        if (found := oracles_outside_their_home(path.read_text()))
    }
    assert problems == {}
    assert sorted(p.name for p in ORACLES.glob("*.py")) and oracles_outside_their_home(
        (ORACLES / "attention.py").read_text()
    )


def test_the_oracle_rule_catches_an_oracle_in_a_check_module():
    source = (PACKAGE / "checks" / "decoder.py").read_text()
    assert oracles_outside_their_home(source) == []
    violation = "\n\ndef decoder_layer_f(x, memory, p):\n    return x\n"
    assert len(oracles_outside_their_home(source + violation)) == 1


def test_the_oracles_face_only_re_exports():
    """``checking/oracles/__init__.py`` defines nothing: the logic lives in named modules."""
    import ast

    tree = ast.parse((ORACLES / "__init__.py").read_text())
    kinds = {type(node).__name__ for node in tree.body} - {"Expr", "ImportFrom", "Assign"}
    assert kinds == set()
    assigned = [t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets]
    assert assigned == ["__all__"]
