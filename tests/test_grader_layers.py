"""The sandbox boundary in the grader's layout: code that runs inside the sandbox
(``grader/inside/``) imports nothing of the grader's trusted side but the codec."""

from __future__ import annotations

from pathlib import Path

from common import imported_modules

import transformer_course.grader as grader_package

INSIDE = Path(grader_package.__file__).resolve().parent / "inside"
ALLOWED_FROM_OUTSIDE = {"transformer_course.grader.codec"}


def boundary_violations(source: str, module: str) -> list[str]:
    """Imports of the course package from inside the sandbox other than the inside itself
    and the codec."""
    bad = []
    for line, name in imported_modules(source, module.rpartition(".")[0]):
        if not name.startswith("transformer_course"):
            continue
        if name.startswith("transformer_course.grader.inside."):
            continue
        if any(name == ok or name.startswith(ok + ".") for ok in ALLOWED_FROM_OUTSIDE):
            continue
        bad.append(f"{module}:{line} imports {name}")
    return bad


def test_inside_imports_only_the_codec_from_the_trusted_side():
    files = sorted(INSIDE.glob("*.py"))
    assert {p.stem for p in files} >= {"zygote", "importing", "server", "allowlist"}
    problems = []
    for path in files:
        module = f"transformer_course.grader.inside.{path.stem}"
        problems += boundary_violations(path.read_text(), module)
    assert problems == []


def test_the_boundary_test_sees_violations():
    """Each spelling of a forbidden import is caught (absolute, from-import, relative,
    inside a function), and the codec is not."""
    module = "transformer_course.grader.inside.server"
    cases = {
        "from transformer_course.grader import session": 1,
        "from transformer_course.grader.lesson import LessonSpec": 1,
        "import transformer_course.checks.attention": 1,
        "from .. import proxy": 1,
        "from ..runner import Task": 1,
        "def f():\n    from transformer_course import registry": 1,
        "from transformer_course.grader import codec": 0,
        "from transformer_course.grader.codec import Encoder": 0,
        "from . import importing": 0,
        "from transformer_course.grader.inside.allowlist import importable": 0,
        "import torch": 0,
    }
    for source, expected in cases.items():
        assert len(boundary_violations(source, module)) == expected, source


def test_one_import_allowlist_for_both_sides():
    from transformer_course.grader import proxy
    from transformer_course.grader.inside import allowlist, values

    assert proxy.importable is allowlist.importable
    assert values.importable is allowlist.importable  # the server's course objects
    assert not hasattr(proxy, "SANDBOX_IMPORTABLE")
