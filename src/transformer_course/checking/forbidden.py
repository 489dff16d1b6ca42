"""The library APIs an exercise forbids (``Exercise.forbidden``), refused in the notebook
exactly as the course's grader refuses them.

Every :class:`~transformer_course.checking.checker.Checker` block of an exercise that forbids
something watches, while it runs, every PyTorch call (a ``TorchFunctionMode``): functions
(``F.softmax``, however imported or aliased), tensor methods (``x.softmax``), operators
(``torch.ops.aten._softmax``) and module classes (``nn.RMSNorm``, seen through the code of
their ``forward``). What counts is the same for both: the exercise's ``forbidden`` expanded
to its families (:func:`transformer_course.api_families.expand_forbidden`, which the grader
reads too), and a call costs the exercise whose answer contains it:

* a call written in another exercise's answer cell that forbids it too is that exercise's
  (``CausalSelfAttention``'s SDPA does not cost ``DecoderBlock``, which uses the learner's
  attention); a call in an answer cell that allows it, or in a helper cell, is the checked
  exercise's;
* the grader watches the public names run and scores them 0; a private or opaque name
  (``torch._softmax``, ``torch.ops.aten.softmax``) it proves from the exercise's own answer
  cell (0) and flags for a human elsewhere: the check fails in the first case and prints a
  warning that a human will look at in the second.

The course's own code (checks, references) may call anything: a call counts when its
nearest caller outside PyTorch is the learner's code, or when the learner's callable *is*
the library's (``softmax = torch.softmax``, ``class RMSNorm(nn.RMSNorm)``).
"""

from __future__ import annotations

import ast
import fnmatch
import functools
import linecache
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from transformer_course import api_families

__all__ = ["Watch", "watch_for"]

# as imported and as resolved (a link in the path must not hide a frame's origin)
_COURSE = tuple({str(Path(__file__).parents[1]), str(Path(__file__).resolve().parents[1])})
_TORCH = tuple({str(Path(torch.__file__).parent), str(Path(torch.__file__).resolve().parent)})


@functools.cache
def _exercises() -> dict[str, tuple[Any, tuple[Any, ...]]]:
    """{exercise name: (the exercise, every exercise of its lesson)} (names are unique)."""
    from transformer_course import registry

    index = {}
    for lesson in registry.lessons():
        exercises = registry.exercises(lesson)
        for exercise in exercises:
            index[exercise.name] = (exercise, exercises)
    return index


@dataclass
class _Seen:
    api: str  # the family member (a dotted name or pattern of api_families)
    filename: str  # "" when the learner's callable is the library's own
    line: int
    owner: str | None  # the exercise whose answer cell holds the call (None: another cell)

    def where(self) -> str:
        if not self.filename:
            return "your answer is the library's own (it is, or inherits, the API)"
        if self.filename.startswith("<") or "ipykernel" in self.filename:
            cell = f"the cell of `{self.owner}`" if self.owner else "a cell"
            return f"line {self.line} of {cell}"
        return f"{Path(self.filename).name}, line {self.line}"


@functools.cache
def _definitions(filename: str) -> frozenset[str]:
    """The names a cell (or file) defines at its top level, from its source."""
    try:
        tree = ast.parse("".join(linecache.getlines(filename)))
    except (SyntaxError, ValueError):
        return frozenset()
    names = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return frozenset(names)


def _members(patterns: tuple[str, ...]):
    """{id of a function: its name}, {code of a module class's forward: its name}, and the
    operator patterns (public names first, so an object with two names gets the public)."""
    functions: dict[int, str] = {}
    classes: dict[Any, str] = {}
    operators: list[str] = []
    for pattern in sorted(patterns, key=api_families.private_or_opaque):
        if pattern.startswith("torch.ops."):
            operators.append(pattern)
            continue
        owner_name, _, attr = pattern.rpartition(".")
        if any(ch in attr for ch in "*?["):
            owner = api_families.resolve(owner_name)
            names = [f"{owner_name}.{n}" for n in dir(owner) if fnmatch.fnmatchcase(n, attr)]
        else:
            names = [pattern]
        for name in names:
            obj = api_families.resolve(name)
            if isinstance(obj, type):
                forward = getattr(obj, "forward", None)
                code = getattr(forward, "__code__", None)
                if code is not None and issubclass(obj, torch.nn.Module):
                    classes.setdefault(code, name)
            elif obj is not None:
                functions.setdefault(id(obj), name)
    return functions, classes, operators


def _cell_of(fn: Any) -> str | None:
    """The file (a notebook cell) the learner's function or class was written in."""
    codes = [getattr(fn, "__code__", None)]
    if isinstance(fn, type):
        codes = [getattr(v, "__code__", None) for v in vars(fn).values()]
    for code in codes:
        if code is not None and not code.co_filename.startswith((*_COURSE, *_TORCH)):
            return code.co_filename
    return None


def _parse(filename: str) -> ast.Module | None:
    return _parse_text("".join(linecache.getlines(filename)))


@functools.lru_cache(maxsize=256)
def _parse_text(text: str) -> ast.Module | None:
    """A cell's tree, parsed once per text: a kernel's cells (and, in the tests, the large
    test modules whose functions play answers) are read again at every check. The trees
    are only read, never changed."""
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def _sibling_cells(filename: str) -> list[str]:
    """The other cells the kernel ran (their sources are in ``linecache``, in the same
    folder or under the same name pattern as this one), for the names they bind."""
    if filename.startswith("<"):
        stem = filename.rstrip(">").rstrip("0123456789-")
        return [f for f in list(linecache.cache) if f != filename and f.startswith(stem)]
    folder = str(Path(filename).parent)
    return [f for f in list(linecache.cache) if f != filename and str(Path(f).parent) == folder]


def _dotted(node: ast.AST, bindings) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    root = bindings.resolve(node.id)
    return ".".join([root, *reversed(parts)]) if root else None


def _operator_name(func) -> str | None:
    schema = getattr(func, "_schema", None)
    if schema is None or not isinstance(func, torch._ops.OpOverload | torch._ops.OpOverloadPacket):
        return None
    namespace, _, name = schema.name.partition("::")
    return f"torch.ops.{namespace}.{name}"


def _checker_call_code():
    from transformer_course.checking.checker import Checker

    return Checker.call.__code__


class Watch(TorchFunctionMode):
    """What the learner's code called of one exercise's forbidden APIs, while it is checked."""

    def __init__(self, exercise, lesson_exercises):
        super().__init__()
        self.exercise = exercise
        self.patterns = api_families.expand_forbidden(exercise.forbidden)
        self.functions, self.classes, self.operators = _members(self.patterns)
        self.others = {
            e.name: api_families.expand_forbidden(e.forbidden)
            for e in lesson_exercises
            if e.name != exercise.name
        }
        self.seen: list[_Seen] = []
        self.mentioned: list[_Seen] = []  # in the answer cell, not proven to be called
        self._call = _checker_call_code()

    # ------------------------------------------------------------------ the watch
    def __torch_function__(self, func, types, args=(), kwargs=None):
        api = self.functions.get(id(func))
        if api is None and self.operators:
            name = _operator_name(func)
            if name is not None:
                api = next((p for p in self.operators if fnmatch.fnmatchcase(name, p)), None)
        if api is not None or self.classes:
            self._look(api, sys._getframe(1))
        return func(*args, **(kwargs or {}))

    def _look(self, api: str | None, frame) -> None:
        learner_class = False
        while frame is not None and frame.f_code.co_filename.startswith(_TORCH):
            label = self.classes.get(frame.f_code)
            if label is not None:
                api = label  # the outermost forbidden module class is what was used
                owner = type(frame.f_locals.get("self"))
                learner_class = not owner.__module__.startswith(("torch", "transformer_course"))
            frame = frame.f_back
        if api is None or frame is None:
            return
        if frame.f_code is self._call or (
            learner_class and frame.f_code.co_filename.startswith(_COURSE)
        ):
            self.seen.append(_Seen(api, "", 0, self.exercise.name))
            return
        if frame.f_code.co_filename.startswith(_COURSE):
            return  # the course's own code (a check, a reference)
        filename = frame.f_code.co_filename
        defined = _definitions(filename)
        if self.exercise.name in defined:
            owner = self.exercise.name
        else:
            owner = next((name for name in self.others if name in defined), None)
        self.seen.append(_Seen(api, filename, frame.f_lineno, owner))

    # ------------------------------------------------- what the answer cell says
    def answer(self, fn: Any) -> None:
        """The learner's answer (``Checker.require_callable``): read its cell as the grader
        reads it, so that a call it proves there (even on a branch no check takes) fails
        here too, and a mention it cannot prove is flagged here as it is there."""
        filename = _cell_of(fn)
        if filename is None:
            return
        tree = _parse(filename)
        if tree is None:
            return
        from transformer_course.grader import proof

        if self.exercise.name not in proof.definitions(tree):
            return  # not the exercise's answer cell (a file, a cell that renamed it)

        trees = [t for t in map(_parse, _sibling_cells(filename)) if t is not None]
        _, names, _ = proof.reached(tree, self.exercise.name)
        for call in proof.calls_of(tree, names, proof.Bindings([*trees, tree])):
            api = next((p for p in self.patterns if api_families.matches(call.dotted, p)), None)
            if api is not None:
                self.seen.append(_Seen(api, filename, call.line, self.exercise.name))
                return
        bindings = proof.Bindings([*trees, tree])
        methods = {p.rpartition(".")[2] for p in self.patterns if p.startswith("torch.Tensor.")}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute | ast.Name):
                continue
            dotted = _dotted(node, bindings)
            if dotted is None and isinstance(node, ast.Attribute) and node.attr in methods:
                dotted = f"torch.Tensor.{node.attr}"
            if dotted is None:
                continue
            api = next((p for p in self.patterns if api_families.matches(dotted, p)), None)
            if api is not None:
                self.mentioned.append(_Seen(api, filename, node.lineno, self.exercise.name))

    # ----------------------------------------------------------------- the verdict
    def verdict(self) -> tuple[_Seen | None, list[_Seen]]:
        """The call that scores the exercise 0 (or None), and those a human will check."""
        name = self.exercise.name
        failing, flagged = [], []
        for seen in self.seen:
            if seen.owner not in (None, name) and any(
                api_families.matches(seen.api, p) for p in self.others[seen.owner]
            ):
                continue  # the other exercise's answer holds it, and that one pays for it
            watched = seen.api in self.exercise.forbidden or not api_families.private_or_opaque(
                seen.api
            )
            if watched or seen.owner == name:
                failing.append(seen)
            else:
                flagged.append(seen)
        return (failing[0] if failing else None), flagged

    def close(self, checker, ok: bool) -> None:
        """After the block: stop watching, fail if a forbidden call counts (unless the block
        failed already), and say which calls a human will look at."""
        self.__exit__(None, None, None)
        failing, flagged = self.verdict()
        name = self.exercise.name
        forbidden = self.exercise.forbidden
        if failing is None and not flagged and self.mentioned:
            seen = self.mentioned[0]
            print(
                f"⚠ {name}: your answer mentions {seen.api} ({seen.where()}), which this "
                f"exercise asks you to build yourself. {api_families.advice(seen.api, forbidden)}."
                " No check saw it run, so the grader flags your notebook for a human, who will "
                "look at that line."
            )
        for seen in {s.api: s for s in flagged}.values():
            print(
                f"⚠ {name}: your code calls {seen.api} ({seen.where()}), which this exercise "
                f"asks you to build yourself. {api_families.advice(seen.api, forbidden)}. "
                "The grader cannot see this name run, so it flags your notebook for a human, "
                "who will look at that line and may score the exercise 0."
            )
        if ok and failing is not None:
            checker.fail(
                f"Your code calls {failing.api} ({failing.where()}): "
                f"{api_families.advice(failing.api, forbidden)}. This exercise asks you to "
                "build it yourself: the course's grader scores it 0, even where the results "
                "are right."
            )


def watch_for(exercise_name: str) -> Watch | None:
    """A started watch for an exercise that forbids something (None: nothing to watch)."""
    found = _exercises().get(exercise_name)
    if found is None or not found[0].forbidden:
        return None
    watch = Watch(*found)
    watch.__enter__()
    return watch
