"""A static look at the learner's code (in the grader, on the text of the cells).

Two questions, answered from the source because the sandbox's own reports can be
tampered with by the code they describe:

* does an exercise's code mention an API the exercise forbids
  (``Exercise.forbidden``, e.g. ``torch.nn.functional.scaled_dot_product_attention``)?
  Names are resolved through the notebook's imports and aliases (``F.sdpa``,
  ``from torch.nn import functional as F``, ``from ... import x as y``) and by
  identity (``torch.nn.modules.activation.MultiheadAttention`` is
  ``torch.nn.MultiheadAttention``).
* does the learner's code use constructs that could hide what it calls or tamper
  with the grading (``exec``/``eval``/``compile``, ``__import__``/``importlib``,
  ``ctypes``, ``gc``, frame and code-object introspection, ``sys.modules``,
  subprocesses and signals)? Honest course work needs none of them; the grader
  flags them for a human instead of guessing.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from transformer_course import api_families
from transformer_course.grader import proof
from transformer_course.grader.lesson import LessonSpec
from transformer_course.grader.plan import Plan

__all__ = [
    "Finding",
    "expand_forbidden",
    "family_of",
    "private_or_opaque",
    "scan",
]

SUSPICIOUS_CALLS = {
    "exec",
    "eval",
    "compile",
    "__import__",
    "breakpoint",
    "vars",
    "globals",
    "locals",
    "setattr",
    "delattr",
}
SUSPICIOUS_ATTRIBUTES = {
    "__code__",
    "__closure__",
    "__globals__",
    "__wrapped__",
    "__builtins__",
    "__subclasses__",
    "f_back",
    "f_globals",
    "f_locals",
    "f_builtins",
    "tb_frame",
    "_getframe",
    "gi_frame",
    "settrace",
    "setprofile",
    "__kwdefaults__",
    "__defaults__",
    "__dict__",
    "__self__",
    "__func__",
    "__bases__",
    "__mro__",
    "__getattribute__",
    "cell_contents",
    "__loader__",
    "__spec__",
}
SUSPICIOUS_MODULES = {
    "ctypes",
    "gc",
    "importlib",
    "subprocess",
    "signal",
    "socket",
    "multiprocessing",
    "marshal",
    "pickle",
    "builtins",
    "pty",
    "mmap",
    "linecache",
    "threading",
    "_thread",
}
SUSPICIOUS_DOTTED = {
    "sys.modules",
    "os.system",
    "os.fork",
    "os.kill",
    "os.killpg",
    "os._exit",
    "os.execv",
    "os.execve",
    "os.execl",
    "os.popen",
    "os.spawnl",
    "os.setsid",
    "types.FunctionType",
    "types.CodeType",
    "sys._getframe",
    "inspect.currentframe",
    "inspect.stack",
    "inspect.trace",
    "inspect.getouterframes",
    "inspect.getinnerframes",
    "inspect.getmembers",
    "inspect.getattr_static",
    "inspect.getclosurevars",
    "inspect.unwrap",
    "sys.meta_path",
    "sys.path_hooks",
    "operator.attrgetter",
    "operator.methodcaller",
}
RESOLVABLE = api_families.RESOLVABLE
OPAQUE_PREFIXES = api_families.OPAQUE_PREFIXES
family_of = api_families.family_of
expand_forbidden = api_families.expand_forbidden
private_or_opaque = api_families.private_or_opaque
_private = api_families.private
_resolve = api_families.resolve
_matches = api_families.matches


def _methods(patterns: tuple[str, ...]) -> set[str]:
    """Tensor methods among the patterns (``torch.Tensor.softmax`` -> ``softmax``)."""
    return {p.rpartition(".")[2] for p in patterns if p.startswith("torch.Tensor.")}


@dataclass
class Finding:
    cell: int
    exercise: str | None  # the exercise whose answer cell it is in (None: another cell)
    kind: str  # "forbidden", "dynamic", "reference", "checks", "own-reference"
    what: str  # the dotted name or construct
    line: int = 0
    forbidden: str = ""  # for "forbidden": the member of the exercise's forbidden APIs it is
    proven: bool = False  # for "forbidden": a call the grader proves (:mod:`.proof`)

    def where(self) -> str:
        return f"cell {self.cell + 1}" + (f", line {self.line}" if self.line else "")


def _own_object(node: ast.AST | None, aliases: dict[str, str]) -> bool:
    """``self``, ``self.layers``, a local object: a name (and its attributes) that no import
    of the notebook binds."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id not in aliases


def _python(source: str) -> ast.Module | None:
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        source = TransformerManager().transform_cell(source)
    except Exception:
        pass
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


def _imports(tree: ast.Module, aliases: dict[str, str], stars: list[str]) -> None:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    aliases[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    aliases[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                if alias.name != "*":
                    aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                elif node.module.split(".")[0] in RESOLVABLE and node.module not in stars:
                    stars.append(node.module)


def _dotted(node: ast.AST, aliases: dict[str, str]) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and node.id in aliases:
        return ".".join([aliases[node.id], *reversed(parts)])
    return None


class _CellScan:
    """The findings of one learner cell (``exercise``: whose answer cell it is, or None)."""

    def __init__(self, spec: LessonSpec, cell: int, exercise: str | None, aliases, stars):
        self.spec = spec
        self.cell = cell
        self.exercise = exercise
        self.aliases = aliases
        self.stars = stars
        self.forbidden = sorted(
            {n for ex in spec.exercises for n in expand_forbidden(ex.forbidden)}
        )
        self.methods = _methods(tuple(self.forbidden))
        self.findings: list[Finding] = []

    def add(self, kind: str, what: str, line: int, **extra) -> None:
        exercise = extra.pop("exercise", self.exercise)
        self.findings.append(Finding(self.cell, exercise, kind, what, line, **extra))

    def name(self, dotted: str, line: int, called: bool) -> None:
        """A dotted name the code refers to (resolved through the notebook's imports)."""
        if dotted in SUSPICIOUS_DOTTED:
            self.add("dynamic", dotted, line)
        opaque = next(
            (p for p in OPAQUE_PREFIXES if dotted == p or dotted.startswith(p + ".")), None
        )
        if opaque:
            self.add("dynamic", f"{dotted} (reaches operators without their public name)", line)
        elif _private(dotted):
            self.add("dynamic", f"{dotted} (a private name of the library)", line)
        exercise = self.exercise
        if exercise and dotted == f"transformer_course.reference.{self.spec.topic}.{exercise}":
            self.add("own-reference", dotted, line)
        for pattern in self.forbidden:
            if _matches(dotted, pattern):
                # a mention in an exercise's answer cell is that exercise's, called or kept
                # for later (an exercise that allows it mentions it freely: a later use in
                # another exercise's code is seen there); one in another cell, every exercise's
                scope = exercise
                self.add("forbidden", dotted, line, forbidden=pattern, exercise=scope)
                break

    def tree(self, tree: ast.Module) -> None:
        inner = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
        for node in ast.walk(tree):
            line = getattr(node, "lineno", 0)
            if isinstance(node, ast.Import | ast.ImportFrom):
                self.imports(node, line)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                self.call(node, line)
            if isinstance(node, ast.Attribute) and node.attr in SUSPICIOUS_ATTRIBUTES:
                self.add("dynamic", f".{node.attr}", line)
            if id(node) in inner or not isinstance(node, ast.Attribute | ast.Name):
                continue
            if isinstance(node, ast.Attribute):
                dotted = _dotted(node, self.aliases)
            else:
                dotted = self.aliases.get(node.id) or self.starred(node.id)
            if dotted:
                self.name(dotted, line, id(node) in called)
            elif isinstance(node, ast.Attribute) and node.attr in self.methods:
                self.add(
                    "forbidden",
                    f"<tensor>.{node.attr}",
                    line,
                    forbidden=f"torch.Tensor.{node.attr}",
                )

    def starred(self, name: str) -> str | None:
        """``name`` as brought in by ``from <library> import *``, if one of them has it."""
        for module in self.stars:
            if _resolve(f"{module}.{name}") is not None:
                return f"{module}.{name}"
        return None

    def call(self, node: ast.Call, line: int) -> None:
        function = node.func.id
        target = node.args[0] if node.args else None
        owner = (
            _dotted(target, self.aliases) if isinstance(target, ast.Attribute | ast.Name) else None
        )
        if function in SUSPICIOUS_CALLS and function not in self.aliases:
            if function in ("setattr", "delattr") and _own_object(target, self.aliases):
                pass  # setattr(self, f"layer{i}", ...): the learner's own objects
            elif function in ("setattr", "delattr"):
                self.add(
                    "dynamic",
                    f"{function}({owner or 'an object'}, ...) (look at what it replaces: a "
                    "library's or the course's function would change what the checks see)",
                    line,
                )
            else:
                self.add("dynamic", f"{function}()", line)
        if function != "getattr" or len(node.args) < 2:
            return
        attribute = node.args[1]
        if isinstance(attribute, ast.Constant) and isinstance(attribute.value, str):
            if owner:
                self.name(f"{owner}.{attribute.value}", line, called=False)
            return
        unwatched = self.unwatched_below(owner) if owner else []
        if unwatched or (owner is None and not _own_object(target, self.aliases)):
            reaches = f"; it can reach {unwatched[0]}, which no check sees run" if unwatched else ""
            self.add(
                "dynamic",
                f"getattr({owner or 'an object'}, <computed name>) (look at the name it "
                f"builds{reaches})",
                line,
            )

    def unwatched_below(self, owner: str) -> list[str]:
        """The lesson's forbidden names below ``owner`` that the grader does not watch run
        (private or opaque): a computed name there is what a human must look at.
        ``getattr(nn, name)`` reaches only watched names and is not flagged."""
        return [
            name
            for name in self.forbidden
            if name.startswith(owner + ".") and private_or_opaque(name)
        ]

    def imports(self, node: ast.Import | ast.ImportFrom, line: int) -> None:
        if isinstance(node, ast.Import):
            modules = [a.name for a in node.names]
        elif node.module == "transformer_course.reference":
            modules = [f"{node.module}.{a.name}" for a in node.names]
        else:
            modules = [node.module or ""]
            if node.module and node.level == 0:  # from torch.nn.functional import softmax
                for alias in node.names:
                    if alias.name != "*":
                        self.name(f"{node.module}.{alias.name}", line, called=False)
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            if (node.module or "").split(".")[0] not in RESOLVABLE or node.level:
                self.add("dynamic", f"from {node.module} import * (binds unknown names)", line)
        for module in modules:
            top = module.split(".")[0]
            if top in SUSPICIOUS_MODULES:
                self.add("dynamic", f"import {module}", line)
            if module.startswith(
                (
                    "transformer_course.checks",
                    "transformer_course.checking",
                    "transformer_course.grader",
                )
            ):
                self.add("checks", module, line)
            if module.startswith("transformer_course.reference."):
                topic = module.split(".")[2]
                lesson = (self.spec.extra.get("topics") or {}).get(topic, "")
                if lesson > self.spec.lesson:
                    self.add("reference", module, line)


def _paid_by_its_own(spec: LessonSpec, owner: str | None, exercise, call) -> bool:
    """A call in another exercise's answer cell that forbids it too is that exercise's (its
    own scan finds it), not that of every exercise that uses its code."""
    if owner in (None, exercise.name):
        return False
    other = next((e for e in spec.exercises if e.name == owner), None)
    return other is not None and any(
        _matches(call.dotted, p) for p in expand_forbidden(other.forbidden)
    )


def _proven_findings(
    spec: LessonSpec, trees: dict[int, ast.Module], learner: dict[int, str | None]
) -> list[Finding]:
    """Calls of an exercise's forbidden APIs that the grader proves in its own answer cell
    (they score 0), and those in helpers of other learner cells it uses by name (they are
    flagged: which definition runs depends on the order the cells ran in)."""
    bindings = proof.Bindings(list(trees.values()))
    findings: list[Finding] = []
    for index, exercise_name in learner.items():
        exercise = next((e for e in spec.exercises if e.name == exercise_name), None)
        if exercise is None or not exercise.forbidden or index not in trees:
            continue
        patterns = expand_forbidden(exercise.forbidden)
        _, names, others = proof.reached(trees[index], exercise.name)
        pending = [(index, names, others)]
        visited = {(index, name) for name in names}
        while pending:
            cell, names, others = pending.pop()
            for call in proof.calls_of(trees[cell], names, bindings):
                pattern = next((p for p in patterns if _matches(call.dotted, p)), None)
                if pattern is None or _paid_by_its_own(spec, learner.get(cell), exercise, call):
                    continue
                own = cell == index
                what = call.dotted if own else f"{call.dotted} (in {call.via}, which it uses)"
                findings.append(
                    Finding(cell, exercise.name, "forbidden", what, call.line, pattern, own)
                )
            for other, tree in trees.items():  # helpers defined in other learner cells
                if other == cell or other not in learner:
                    continue
                definitions = proof.definitions(tree)
                for name in sorted(n for n in others if n in definitions):
                    if (other, name) in visited:
                        continue
                    _, reach, beyond = proof.reached(tree, name)
                    visited.update((other, n) for n in reach)
                    pending.append((other, reach, beyond))
    return findings


def scan(plan: Plan, spec: LessonSpec) -> list[Finding]:
    """What the learner's cells mention, in the order the plan runs them."""
    aliases: dict[str, str] = {}
    stars: list[str] = []
    findings: list[Finding] = []
    trees: dict[int, ast.Module] = {}
    learner = {index: exercise for index, _, exercise in plan.learner_cells}
    for position, step in enumerate(plan.steps):
        if step.kind != "exec" or not step.source:
            continue
        tree = _python(step.source)
        if tree is None:
            continue
        trees[step.index if step.index >= 0 else -1 - position] = tree
        _imports(tree, aliases, stars)
        if step.index not in learner:
            continue
        cell = _CellScan(spec, step.index, learner[step.index], aliases, stars)
        cell.tree(tree)
        findings += cell.findings
    findings += _proven_findings(spec, trees, {i: e for i, e in learner.items() if i in trees})
    unique: dict[tuple, Finding] = {}
    for finding in findings:
        key = (finding.cell, finding.kind, finding.what, finding.exercise, finding.proven)
        unique.setdefault(key, finding)
    return list(unique.values())
