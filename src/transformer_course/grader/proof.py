"""What the grader can prove, from the source alone, that an exercise's own code calls.

The static scan (:mod:`.static`) flags every mention of a forbidden API; this module
decides which of them are *proven calls*: a call written in the exercise's own answer
cell, inside the function or class that the exercise defines (or a function or class of
the same cell that it refers to by name), whose callee the grader resolves to a member of
a forbidden family without running anything:

* through imports (``import torch.nn.functional as F``; ``from torch import softmax``)
  and plain aliases (``_sm = torch.special.softmax``), only where *every* binding of the
  name anywhere in the notebook agrees (a name bound once by an import and once by
  anything else proves nothing), and where no enclosing function binds the name locally;
* through ``getattr(x, "name")``, ``vars(x)["name"]`` and ``x.__dict__["name"]`` with a
  constant name (when ``getattr``/``vars`` are the builtins);
* a class that subclasses a forbidden class counts as a call of it.

What it cannot resolve (a computed name, ``importlib``, a helper defined in another cell,
a method of a value whose type is unknown) is not proven; :mod:`.static` flags it for a
human. Calls at a cell's top level (a learner comparing their result with the library's)
are not part of the answer and are not proven either.
"""

from __future__ import annotations

import ast
import builtins
import sys
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["Bindings", "Call", "calls_of", "definitions", "reached"]

_FUNCTION = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
_SCOPE = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef
_UNKNOWN = None  # a binding whose value the grader does not know


@dataclass(frozen=True)
class Call:
    dotted: str  # what the callee resolves to
    line: int
    via: str  # the top-level definition of the cell it is in (the exercise or a helper)


def _chain(node: ast.AST) -> tuple[str, list[str]] | None:
    """``a.b.c`` as ("a", ["b", "c"]) (None for anything but names and attributes)."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return node.id, parts[::-1]
    return None


def _import_bindings(node: ast.Import | ast.ImportFrom) -> Iterator[tuple[str, str | None]]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.asname:
                yield alias.asname, alias.name
            else:
                top = alias.name.split(".")[0]
                yield top, top
    else:
        for alias in node.names:
            if alias.name == "*":
                continue
            if node.level or not node.module:
                yield alias.asname or alias.name, _UNKNOWN
            else:
                yield alias.asname or alias.name, f"{node.module}.{alias.name}"


class Bindings:
    """Every binding of every name in the notebook's cells (all scopes: a local ``F = ...``
    anywhere makes ``F`` unprovable, which only ever proves less)."""

    def __init__(self, trees: list[ast.Module]):
        self.values: dict[str, list[object]] = {}
        self.stars: list[str] = []
        for tree in trees:
            aliases: dict[int, ast.AST] = {}  # top-level ``x = a.b.c``: a plain alias
            for statement in tree.body:
                if (
                    isinstance(statement, ast.Assign)
                    and len(statement.targets) == 1
                    and isinstance(statement.targets[0], ast.Name)
                    and _chain(statement.value) is not None
                ):
                    aliases[id(statement.targets[0])] = statement.value
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
                    self.stars.append(node.module or "")
                if isinstance(node, ast.Name):
                    if not isinstance(node.ctx, ast.Load):
                        value = aliases.get(id(node), _UNKNOWN)
                        self.values.setdefault(node.id, []).append(value)
                    continue
                for name, value in _bindings_in_node(node):
                    self.values.setdefault(name, []).append(value)

    def resolve(self, name: str, depth: int = 0) -> str | None:
        """The dotted name every binding of ``name`` gives it (None: unknown or disputed)."""
        if depth > 8 or any(_may_bind(module, name) for module in self.stars):
            return None
        values = self.values.get(name)
        if not values:
            return None
        resolved = set()
        for value in values:
            if value is _UNKNOWN:
                return None
            if isinstance(value, str):
                resolved.add(value)
                continue
            chain = _chain(value)
            root = self.resolve(chain[0], depth + 1) if chain else None
            if root is None:
                return None
            resolved.add(".".join([root, *chain[1]]))
        return resolved.pop() if len(resolved) == 1 else None

    def builtin(self, name: str) -> bool:
        """``name`` is Python's builtin of that name (the notebook never binds it)."""
        return hasattr(builtins, name) and name not in self.values


def _may_bind(module: str, name: str) -> bool:
    """Could ``from <module> import *`` bind ``name``? Only a library module the grader has
    already imported is looked at (importing a learner-named module in the grader would run
    its code); any other may bind anything."""
    namespace = sys.modules.get(module)
    if module.split(".")[0] not in ("torch", "numpy", "math") or namespace is None:
        return True
    public = getattr(namespace, "__all__", None)
    if public is None:
        public = [n for n in vars(namespace) if not n.startswith("_")]
    return name in public


def _bindings_in_node(node: ast.AST) -> Iterator[tuple[str, object]]:
    """The bindings one node makes (not those of the nodes below it)."""
    if isinstance(node, ast.Import | ast.ImportFrom):
        yield from _import_bindings(node)
    elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        yield node.name, _UNKNOWN
    elif isinstance(node, ast.arg):
        yield node.arg, _UNKNOWN
    elif isinstance(node, ast.ExceptHandler) and node.name:
        yield node.name, _UNKNOWN
    elif isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
        yield node.name, _UNKNOWN
    elif isinstance(node, ast.MatchMapping) and node.rest:
        yield node.rest, _UNKNOWN
    elif isinstance(node, ast.Global | ast.Nonlocal):
        for name in node.names:
            yield name, _UNKNOWN


def _locals(scope: ast.AST) -> dict[str, set]:
    """The names a function or class binds in its own body (and, conservatively, in the
    scopes nested in it), each with the values it binds them to."""
    names: dict[str, set] = {}
    for node in ast.walk(scope):
        if node is scope:
            if isinstance(scope, _FUNCTION):
                for arg in ast.walk(scope.args):
                    if isinstance(arg, ast.arg):
                        names.setdefault(arg.arg, set()).add(_UNKNOWN)
            continue
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.setdefault(node.id, set()).add(_UNKNOWN)
        else:
            for name, value in _bindings_in_node(node):
                names.setdefault(name, set()).add(value)
    return names


class _Resolver:
    def __init__(self, bindings: Bindings):
        self.bindings = bindings

    def name(self, name: str, scopes: list[dict[str, set]]) -> str | None:
        for scope in reversed(scopes):
            if name in scope:
                values = scope[name]
                if len(values) == 1 and isinstance(next(iter(values)), str):
                    return next(iter(values))  # a local import
                return None
        return self.bindings.resolve(name)

    def expression(self, node: ast.AST, scopes: list[dict[str, set]]) -> str | None:
        """The dotted name an expression surely stands for (None: not provable)."""
        chain = _chain(node)
        if chain is not None:
            root = self.name(chain[0], scopes)
            return ".".join([root, *chain[1]]) if root else None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            # getattr(x, "name") with the builtin getattr
            if (
                node.func.id == "getattr"
                and len(node.args) == 2
                and not node.keywords
                and self._builtin("getattr", scopes)
                and isinstance(node.args[1], ast.Constant)
                and isinstance(node.args[1].value, str)
            ):
                owner = self.expression(node.args[0], scopes)
                return f"{owner}.{node.args[1].value}" if owner else None
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            key = node.slice.value
            if not isinstance(key, str):
                return None
            holder = node.value
            if (  # vars(x)["name"]
                isinstance(holder, ast.Call)
                and isinstance(holder.func, ast.Name)
                and holder.func.id == "vars"
                and len(holder.args) == 1
                and self._builtin("vars", scopes)
            ):
                owner = self.expression(holder.args[0], scopes)
                return f"{owner}.{key}" if owner else None
            if isinstance(holder, ast.Attribute) and holder.attr == "__dict__":  # x.__dict__[...]
                owner = self.expression(holder.value, scopes)
                return f"{owner}.{key}" if owner else None
        return None

    def _builtin(self, name: str, scopes: list[dict[str, set]]) -> bool:
        return all(name not in scope for scope in scopes) and self.bindings.builtin(name)


def definitions(tree: ast.Module) -> dict[str, ast.AST]:
    """The cell's top-level functions, classes and ``name = lambda ...`` (the last wins)."""
    found: dict[str, ast.AST] = {}
    for statement in tree.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found[statement.name] = statement
        elif (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and isinstance(statement.value, ast.Lambda)
        ):
            found[statement.targets[0].id] = statement.value
    return found


def reached(tree: ast.Module, name: str) -> tuple[dict[str, ast.AST], set[str], set[str]]:
    """(the cell's definitions, those ``name`` reaches by name, the other names it loads)."""
    defined = definitions(tree)
    seen: set[str] = set()
    others: set[str] = set()
    queue = [name] if name in defined else []
    while queue:
        current = queue.pop()
        if current in seen:
            continue
        seen.add(current)
        for node in ast.walk(defined[current]):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                if node.id in defined:
                    queue.append(node.id)
                else:
                    others.add(node.id)
    return defined, seen, others


def calls_of(tree: ast.Module, names: set[str], bindings: Bindings) -> list[Call]:
    """The calls (and base classes) in the definitions ``names`` of the cell ``tree``, with
    the dotted name each callee is proven to be (unprovable ones are left out)."""
    defined = definitions(tree)
    resolver = _Resolver(bindings)
    calls: list[Call] = []

    def visit(node: ast.AST, scopes: list[dict[str, set]], via: str) -> None:
        if isinstance(node, ast.ClassDef):
            for base in node.bases:
                dotted = resolver.expression(base, scopes)
                if dotted:
                    calls.append(Call(dotted, node.lineno, via))
        if isinstance(node, ast.Call):
            dotted = resolver.expression(node.func, scopes)
            if dotted:
                calls.append(Call(dotted, node.lineno, via))
        inner = [*scopes, _locals(node)] if isinstance(node, _SCOPE) else scopes
        for child in ast.iter_child_nodes(node):
            # a function's defaults and a class's bases are evaluated outside it
            visit(child, scopes if _outside(node, child) else inner, via)

    for name in sorted(names):
        if name in defined:
            visit(defined[name], [], name)
    return calls


def _outside(scope: ast.AST, child: ast.AST) -> bool:
    """``child`` of ``scope`` is evaluated in the enclosing scope (decorators, a class's
    bases, a function's defaults and annotations)."""
    if isinstance(scope, ast.ClassDef):
        return child in scope.bases or child in scope.decorator_list or child in scope.keywords
    if isinstance(scope, _FUNCTION):
        decorators = getattr(scope, "decorator_list", [])
        return (
            child is scope.args or child in decorators or child is getattr(scope, "returns", None)
        )
    return False
