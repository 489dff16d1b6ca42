"""Mistakes generated mechanically from the references: a small AST mutator.

Why not mutmut or cosmic-ray: both mutate files on disk and judge a mutant by running a
test command (a subprocess per mutant) and reading its exit status, whereas this benchmark
needs the mutated *function object* inside the process, handed to a check, and the check's
message. Their operator sets are small and well documented, so the mutator below applies
the same ones to the reference's source (one mutation per mutant):

* ``binop``: ``+`` <-> ``-``, ``*`` <-> ``/``, ``//`` -> ``/``, ``**`` -> ``*``
  (mutmut's operator mutation, cosmic-ray's ReplaceBinaryOperator);
* ``compare``: ``<`` <-> ``<=``, ``>`` <-> ``>=``, ``==`` <-> ``!=``
  (ReplaceComparisonOperator);
* ``number``: an integer literal n -> n + 1 (mutmut's number mutation; an off-by-one);
* ``bool``: ``True`` <-> ``False`` (ReplaceTrueWithFalse / ReplaceFalseWithTrue);
* ``unary``: ``-x`` -> ``x`` (mutmut's unary-minus removal);
* ``axis``: ``dim=``/``axis=`` ``-1`` -> ``-2``, ``-2`` -> ``-1``, ``0`` <-> ``1``
  (the axis change the issue asks for; not in either tool);
* ``drop``: ``a + b`` / ``a - b`` -> ``a`` (a dropped term);
* ``slice``: ``x[a:b]`` -> ``x[a:b + 1]`` (an off-by-one on a slice's end).

Each mutant's cause is the mutation itself; a message names it when it names the
operation (:data:`OPERATION_WORDS`).
"""

from __future__ import annotations

import ast
import random
import textwrap
from dataclasses import dataclass

_BINOP_SWAP = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Div,
    ast.Pow: ast.Mult,
}
_COMPARE_SWAP = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
}
_AXIS_SWAP = {-1: -2, -2: -1, 0: 1, 1: 0}

#: what a message must say to name each kind of mutation (judged case-insensitively)
OPERATION_WORDS = {
    "binop": r"sign|minus|subtract|added|adds|plus|multipl|divid|reciprocal|inverse|invert"
    r"|instead of|square|power",
    "compare": r"off by one|off-by-one|strict|<=|>=|diagonal|inclusive|boundary|equal",
    "number": r"off by one|off-by-one|one too|one more|one fewer|one less|shift|\+ ?1\b|- ?1\b",
    "bool": r"keepdim|descending|stable|persistent|bias|True|False",
    "unary": r"sign|negative|minus|negat",
    "axis": r"axis|\bdim\b|dimension|transpos|over the wrong|rows? |columns?",
    "drop": r"missing|forgot|left out|without|dropped|omit",
    "slice": r"off by one|off-by-one|one too|one more|extra|slice",
}


@dataclass(frozen=True)
class Mutation:
    kind: str
    line: int  # 1-based, in the dedented source
    describe: str


def _targets(tree: ast.AST) -> list[tuple[ast.AST, str, str]]:
    """(node, kind, description) for every place a mutation applies, in source order."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOP_SWAP:
            new = _BINOP_SWAP[type(node.op)].__name__
            found.append((node, "binop", f"{type(node.op).__name__} -> {new}"))
            if isinstance(node.op, ast.Add | ast.Sub):
                found.append((node, "drop", "a ± b -> a"))
        elif isinstance(node, ast.Compare) and type(node.ops[0]) in _COMPARE_SWAP:
            new = _COMPARE_SWAP[type(node.ops[0])].__name__
            found.append((node, "compare", f"{type(node.ops[0]).__name__} -> {new}"))
        elif isinstance(node, ast.Constant) and id(node) not in docstrings:
            if isinstance(node.value, bool):
                found.append((node, "bool", f"{node.value} -> {not node.value}"))
            elif isinstance(node.value, int) and not isinstance(node.value, bool):
                found.append((node, "number", f"{node.value} -> {node.value + 1}"))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            if not isinstance(node.operand, ast.Constant):
                found.append((node, "unary", "-x -> x"))
        elif isinstance(node, ast.keyword) and node.arg in ("dim", "axis"):
            value = _int_value(node.value)
            if value in _AXIS_SWAP:
                found.append((node, "axis", f"{node.arg}={value} -> {_AXIS_SWAP[value]}"))
        elif isinstance(node, ast.Slice) and node.upper is not None:
            found.append((node, "slice", "a:b -> a:b + 1"))
    found.sort(key=lambda item: (getattr(item[0], "lineno", 0), getattr(item[0], "col_offset", 0)))
    return found


def _int_value(node: ast.AST) -> int | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
    ):
        return -node.operand.value
    return None


class _Apply(ast.NodeTransformer):
    def __init__(self, target: ast.AST, kind: str):
        self.target, self.kind = target, kind

    def visit(self, node):
        if node is not self.target:
            return super().visit(node)
        kind = self.kind
        if kind == "binop":
            node.op = _BINOP_SWAP[type(node.op)]()
        elif kind == "drop":
            return node.left
        elif kind == "compare":
            node.ops = [_COMPARE_SWAP[type(node.ops[0])](), *node.ops[1:]]
        elif kind == "bool":
            node.value = not node.value
        elif kind == "number":
            node.value = node.value + 1
        elif kind == "unary":
            return node.operand
        elif kind == "axis":
            node.value = ast.Constant(_AXIS_SWAP[_int_value(node.value)])
        elif kind == "slice":
            node.upper = ast.BinOp(node.upper, ast.Add(), ast.Constant(1))
        return node


def mutants(source: str, count: int, seed: int) -> list[tuple[str, Mutation]]:
    """Up to ``count`` mutated versions of ``source`` (one function or class), drawn
    without replacement with ``seed`` from every applicable mutation, each with what it
    changed; every mutant compiles."""
    source = textwrap.dedent(source)
    positions = list(range(len(_targets(ast.parse(source)))))
    random.Random(seed).shuffle(positions)
    out = []
    for position in positions:
        if len(out) == count:
            break
        tree = ast.parse(source)
        node, kind, describe = _targets(tree)[position]
        line = getattr(node, "lineno", 0)
        mutated = ast.fix_missing_locations(_Apply(node, kind).visit(tree))
        text = ast.unparse(mutated)
        if text == ast.unparse(ast.parse(source)):
            continue
        try:
            compile(text, "<mutant>", "exec")
        except SyntaxError:
            continue
        out.append((text, Mutation(kind, line, f"line {line}: {describe}")))
    return out
