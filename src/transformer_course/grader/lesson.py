"""What the grader knows about a lesson, as plain data that can travel to any worker.

Built by the coordinating process from the repository (the registry, the
instructor and student notebooks, the reference modules) and sent with every
grading task, so that a Dask worker on another machine needs only the installed
course package (whose checks must be the same: :attr:`LessonSpec.checks_fingerprint`).

It never holds the hidden tests (test cells' sources are not needed: the registry
says what to check) nor the solutions (only the reference module, split so that the
sandbox receives each exercise's reference only after that exercise's verdict is
recorded in the grader: the setup request carries no exercise's code, and each release
request carries one exercise's). One exception, decided by the grader alone: a reference
*class* that a cell of the lesson's own code names and constructs before its exercise
(a demo) is released for that cell, and from then on tells the grader whenever it runs
during a check.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import nbformat

import transformer_course
from transformer_course import registry
from transformer_course.exercise import SOLUTION_MARKERS

GRADER_VERSION = "1"
PACKAGE_DIR = Path(transformer_course.__file__).resolve().parent


@dataclass
class ExerciseSpec:
    name: str
    kind: str
    points: float
    forbidden: tuple[str, ...] = ()
    methods: tuple[str, ...] = ()

    @property
    def test_grade_id(self) -> str:
        return f"test_{self.name}"


@dataclass
class CellSpec:
    """A cell of the instructor or the student notebook, by role."""

    role: str  # "locked", "answer", "test", "free", "text"
    grade_id: str | None
    source: str
    exercise: str | None = None


@dataclass
class LessonSpec:
    lesson: str
    exercises: list[ExerciseSpec]
    instructor: list[CellSpec]  # locked cells carry the instructor's source; others none
    release: list[CellSpec]  # the student version: stubs, visible tests, given code
    modules: dict[str, str]  # reference modules the sandbox may import (name -> source)
    guarded: dict  # the current lesson's reference, split per exercise
    checks_fingerprint: str
    fingerprint: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def notebook(self) -> str:
        return self.lesson

    @property
    def topic(self) -> str:
        return registry.lesson_topic(self.lesson)

    def exercise(self, name: str) -> ExerciseSpec:
        for ex in self.exercises:
            if ex.name == name:
                return ex
        raise KeyError(name)

    @property
    def max_score(self) -> float:
        return float(sum(ex.points for ex in self.exercises))

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> LessonSpec:
        data = dict(data)
        data["exercises"] = [
            ExerciseSpec(
                **{**e, "forbidden": tuple(e["forbidden"]), "methods": tuple(e["methods"])}
            )
            for e in data["exercises"]
        ]
        data["instructor"] = [CellSpec(**c) for c in data["instructor"]]
        data["release"] = [CellSpec(**c) for c in data["release"]]
        return cls(**data)


# ------------------------------------------------------------------------ building
def cell_source(cell: Any) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def nbgrader_meta(cell: Any) -> dict:
    meta = cell.get("metadata", {}) if isinstance(cell, dict) else {}
    value = meta.get("nbgrader", {}) if isinstance(meta, dict) else {}
    return value if isinstance(value, dict) else {}


def classify(cell: Any, names: set[str]) -> CellSpec:
    """The role of a notebook cell by its nbgrader metadata (instructor or student version)."""
    source = cell_source(cell)
    if cell.get("cell_type") != "code":
        return CellSpec("text", None, source)
    meta = nbgrader_meta(cell)
    grade_id = meta.get("grade_id") if isinstance(meta.get("grade_id"), str) else None
    if grade_id and meta.get("grade") and grade_id.startswith("test_") and grade_id[5:] in names:
        return CellSpec("test", grade_id, source, grade_id[5:])
    if grade_id and meta.get("solution") and grade_id in names:
        return CellSpec("answer", grade_id, source, grade_id)
    if grade_id and meta.get("locked") and not meta.get("solution") and not meta.get("grade"):
        return CellSpec("locked", grade_id, source)
    return CellSpec("free", grade_id, source)


def checks_fingerprint(lesson: str) -> str:
    """A hash of everything in the grading process that decides a grade for ``lesson``: the
    grader, the registry, the lesson's checks and its reference, and every course module
    these import, found by following their imports (the check toolkit, shared helpers,
    earlier lessons' references), so that editing any of them changes the fingerprint."""
    topic = registry.lesson_topic(lesson)
    roots = [
        f"transformer_course.checks.{topic}",
        f"transformer_course.reference.{topic}",
        "transformer_course.registry",
        *(_module_name(path) for path in sorted((PACKAGE_DIR / "grader").rglob("*.py"))),
    ]
    digest = hashlib.sha256(GRADER_VERSION.encode())
    for path in course_dependencies(roots):
        digest.update(path.relative_to(PACKAGE_DIR).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def course_dependencies(modules: list[str]) -> list[Path]:
    """The files of ``modules`` and of every ``transformer_course`` module they import,
    directly or not (their packages' ``__init__`` included), in a stable order."""
    files: dict[str, Path] = {}
    pending = list(modules)
    while pending:
        name = pending.pop()
        path = _module_file(name)
        if name in files or path is None:
            continue
        files[name] = path
        pending += _imports(path, name)
    return sorted(set(files.values()))


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE_DIR).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(("transformer_course", *parts))


def _module_file(name: str) -> Path | None:
    """The source file of a course module (None outside the package, or not a module)."""
    parts = name.split(".")
    if parts[0] != "transformer_course":
        return None
    base = PACKAGE_DIR.joinpath(*parts[1:])
    for path in (base / "__init__.py", base.with_suffix(".py")):
        if len(parts) > 1 or path.name == "__init__.py":
            if path.is_file():
                return path
    return None


def imported_modules(source: str | bytes, package: str = "") -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in a module's source, anywhere in it;
    ``from x import y`` gives x.y (y may be a module or a name). Relative imports are
    resolved within ``package`` (the importing module's package)."""
    return list(_imported_modules(source, package))


@functools.lru_cache(maxsize=512)
def _imported_modules(source: str | bytes, package: str) -> tuple[tuple[int, str], ...]:
    """:func:`imported_modules`, remembered by the source itself (not by a path: an edited
    file is another key). A lesson's fingerprint walks some 70 course modules, most of them
    shared with every other lesson's: each is parsed once per process, not once per lesson."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return tuple(found)


def _imports(path: Path, name: str) -> list[str]:
    """The modules that a module's source imports (anywhere in it), with their parent
    packages (for ``from package import name``, ``package`` and ``package.name``)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = [module for _, module in imported_modules(path.read_bytes(), package)]
    parents = [
        ".".join(item.split(".")[:i]) for item in found for i in range(1, item.count(".") + 1)
    ]
    return found + parents


def _defined_names(source: str) -> set[str]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for sub in ast.walk(target):
                    if isinstance(sub, ast.Name):
                        names.add(sub.id)
    return names


def split_reference(source: str, answers: dict[str, str], exercise_names: list[str]) -> dict:
    """The current lesson's reference module as ``base`` (imports, export cells) plus one
    block per exercise (the statements its answer cell contributed)."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    owner: dict[str, str] = {}
    for name, answer in answers.items():
        for defined in _defined_names(answer):
            owner.setdefault(defined, name)
    future = [n for n in tree.body if isinstance(n, ast.ImportFrom) and n.module == "__future__"]
    prefix = "".join("".join(lines[n.lineno - 1 : n.end_lineno]) for n in future)
    base_parts: list[str] = []
    blocks: dict[str, list[str]] = {name: [] for name in exercise_names}
    for node in tree.body:
        start = node.lineno - 1
        if getattr(node, "decorator_list", None):
            start = min(d.lineno for d in node.decorator_list) - 1
        text = "".join(lines[start : node.end_lineno])
        defined = (
            _defined_names(text) if not isinstance(node, ast.Import | ast.ImportFrom) else set()
        )
        owners = {owner[n] for n in defined if n in owner}
        if owners:
            blocks[sorted(owners)[0]].append(text)
        else:
            base_parts.append(text)
    kinds = {}
    for name in exercise_names:
        kind = None
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and node.name == name:
                kind = "class"
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
                kind = "function"
        if kind:
            kinds[name] = kind
    return {
        "base": "\n".join(base_parts),
        "blocks": {name: prefix + "\n".join(parts) for name, parts in blocks.items() if parts},
        "names": kinds,
    }


def build_spec(lesson: str, course_dir: Path, exercises=None) -> LessonSpec:
    """Read a lesson from the course directory (``solutions/``, ``notebooks/``) and the
    installed package (registry, reference modules)."""
    exercises = list(exercises if exercises is not None else registry.exercises(lesson))
    names = {ex.name for ex in exercises}
    instructor_path = course_dir / "solutions" / lesson / f"{lesson}.ipynb"
    release_path = course_dir / "notebooks" / lesson / f"{lesson}.ipynb"
    instructor_nb = nbformat.read(instructor_path, as_version=4)
    release_nb = nbformat.read(release_path, as_version=4)
    instructor = []
    answers: dict[str, str] = {}
    for cell in instructor_nb.cells:
        spec = classify(cell, names)
        if spec.role == "answer":
            answers[spec.exercise] = "\n".join(
                line for line in spec.source.splitlines() if line.strip() not in SOLUTION_MARKERS
            )
        if spec.role == "locked":
            instructor.append(spec)
        else:
            instructor.append(CellSpec(spec.role, spec.grade_id, "", spec.exercise))
    release = []
    for cell in release_nb.cells:
        spec = classify(cell, names)
        if spec.role == "text":
            spec = CellSpec("text", None, "")
        release.append(spec)
    topic = registry.lesson_topic(lesson)
    reference_dir = PACKAGE_DIR / "reference"
    modules = {}
    for path in sorted(reference_dir.glob("*.py")):
        if path.stem in ("__init__", topic):
            continue
        modules[f"transformer_course.reference.{path.stem}"] = path.read_text()
    guarded: dict[str, Any] = {"module": f"transformer_course.reference.{topic}"}
    current = reference_dir / f"{topic}.py"
    if current.exists():
        guarded.update(split_reference(current.read_text(), answers, [ex.name for ex in exercises]))
    else:
        guarded.update(base="", blocks={}, names={})
    spec = LessonSpec(
        lesson=lesson,
        exercises=[
            ExerciseSpec(
                ex.name,
                ex.kind,
                float(ex.points),
                tuple(ex.forbidden),
                tuple(getattr(ex, "methods", ()) or ()),
            )
            for ex in exercises
        ],
        instructor=instructor,
        release=release,
        modules=modules,
        guarded=guarded,
        checks_fingerprint=checks_fingerprint(lesson),
        extra={"topics": _topics(course_dir)},
    )
    spec.fingerprint = hashlib.sha256(
        json.dumps(spec.to_dict(), sort_keys=True).encode()
    ).hexdigest()
    return spec


def _topics(course_dir: Path) -> dict[str, str]:
    """topic -> lesson, for every lesson the course has (registered or not yet)."""
    lessons = set()
    solutions = course_dir / "solutions"
    if solutions.is_dir():
        lessons.update(p.name for p in solutions.iterdir() if p.is_dir() and "_" in p.name)
    else:  # pragma: no cover - a course directory without masters
        lessons.update(registry.lessons())
    return {registry.lesson_topic(lesson): lesson for lesson in sorted(lessons)}
