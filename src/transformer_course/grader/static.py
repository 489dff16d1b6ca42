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
import fnmatch
import importlib
import sys
from dataclasses import dataclass

from transformer_course.grader.lesson import LessonSpec
from transformer_course.grader.plan import Plan

SUSPICIOUS_CALLS = {"exec", "eval", "compile", "__import__", "breakpoint"}
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
}
RESOLVABLE = {"torch", "numpy", "scipy", "math"}


@dataclass
class Finding:
    cell: int
    exercise: str | None  # the exercise whose answer cell it is in (None: another cell)
    kind: str  # "forbidden", "dynamic", "reference", "checks"
    what: str  # the dotted name or construct
    line: int = 0

    def where(self) -> str:
        return f"cell {self.cell + 1}" + (f", line {self.line}" if self.line else "")


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


def _imports(tree: ast.Module, aliases: dict[str, str]) -> None:
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


def _dotted(node: ast.AST, aliases: dict[str, str]) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and node.id in aliases:
        return ".".join([aliases[node.id], *reversed(parts)])
    return None


_objects: dict[str, object] = {}


def _resolve(dotted: str):
    """The object a dotted name stands for (only in well-known libraries), or None."""
    if dotted in _objects:
        return _objects[dotted]
    result = None
    if dotted.split(".")[0] in RESOLVABLE:
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1):
            module_name = ".".join(parts[:cut])
            try:
                obj = sys.modules.get(module_name) or importlib.import_module(module_name)
            except Exception:
                continue
            try:
                for attr in parts[cut:]:
                    obj = getattr(obj, attr)
                result = obj
            except AttributeError:
                result = None
            break
    _objects[dotted] = result
    return result


def _matches(dotted: str, forbidden: str) -> bool:
    if dotted == forbidden or fnmatch.fnmatchcase(dotted, forbidden):
        return True
    if any(ch in forbidden for ch in "*?["):
        return False
    target = _resolve(forbidden)
    return target is not None and _resolve(dotted) is target


def scan(plan: Plan, spec: LessonSpec) -> list[Finding]:
    forbidden = {ex.name: ex.forbidden for ex in spec.exercises if ex.forbidden}
    all_forbidden = sorted({name for names in forbidden.values() for name in names})
    current = spec.lesson
    aliases: dict[str, str] = {}
    findings: list[Finding] = []
    learner = {index: exercise for index, _, exercise in plan.learner_cells}
    for step in plan.steps:
        if step.kind != "exec" or not step.source:
            continue
        tree = _python(step.source)
        if tree is None:
            continue
        _imports(tree, aliases)
        if step.index not in learner:
            continue
        exercise = learner[step.index]
        for node in ast.walk(tree):
            line = getattr(node, "lineno", 0)
            if isinstance(node, ast.Import | ast.ImportFrom):
                if isinstance(node, ast.Import):
                    modules = [a.name for a in node.names]
                elif node.module == "transformer_course.reference":
                    modules = [f"{node.module}.{a.name}" for a in node.names]
                else:
                    modules = [node.module or ""]
                for module in modules:
                    top = module.split(".")[0]
                    if top in SUSPICIOUS_MODULES:
                        findings.append(
                            Finding(step.index, exercise, "dynamic", f"import {module}", line)
                        )
                    if (
                        module.startswith("transformer_course.checks")
                        or module.startswith("transformer_course.checking")
                        or module.startswith("transformer_course.grader")
                    ):
                        findings.append(Finding(step.index, exercise, "checks", module, line))
                    if module.startswith("transformer_course.reference."):
                        topic = module.split(".")[2]
                        lesson = (spec.extra.get("topics") or {}).get(topic, "")
                        if lesson > current:
                            findings.append(
                                Finding(step.index, exercise, "reference", module, line)
                            )
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                if node.func.id in SUSPICIOUS_CALLS:
                    findings.append(
                        Finding(step.index, exercise, "dynamic", f"{node.func.id}()", line)
                    )
                if (
                    node.func.id == "getattr"
                    and len(node.args) >= 2
                    and not isinstance(node.args[1], ast.Constant)
                ):
                    target = _dotted(node.args[0], aliases)
                    if target and target.split(".")[0] in RESOLVABLE:
                        findings.append(
                            Finding(
                                step.index,
                                exercise,
                                "dynamic",
                                f"getattr({target}, <computed name>)",
                                line,
                            )
                        )
            if isinstance(node, ast.Attribute) and node.attr in SUSPICIOUS_ATTRIBUTES:
                findings.append(Finding(step.index, exercise, "dynamic", f".{node.attr}", line))
            if isinstance(node, ast.Attribute | ast.Name):
                dotted = (
                    _dotted(node, aliases)
                    if isinstance(node, ast.Attribute)
                    else aliases.get(node.id)
                )
                if not dotted:
                    continue
                if dotted in SUSPICIOUS_DOTTED:
                    findings.append(Finding(step.index, exercise, "dynamic", dotted, line))
                if exercise and dotted == f"transformer_course.reference.{spec.topic}.{exercise}":
                    findings.append(Finding(step.index, exercise, "own-reference", dotted, line))
                for name in all_forbidden:
                    if _matches(dotted, name):
                        findings.append(Finding(step.index, exercise, "forbidden", name, line))
    unique: dict[tuple, Finding] = {}
    for finding in findings:
        unique.setdefault((finding.cell, finding.kind, finding.what), finding)
    return list(unique.values())
