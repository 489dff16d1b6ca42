"""Single edits of a reference function's source, each with the sentence that names it.

Every edit changes one thing a learner could plausibly write differently: an operator, an
operand left out or put the other way round, a sign, a comparison, a number off by one, an
axis, a keyword left out, a function of the same family (``min`` for ``max``), a call or
a method left out, a variable used in another's place, a statement skipped, a branch run
always, an accumulation that overwrites, a loop bound off by one, results returned in
another order. The sentence says what the edited code does, in words and with the two
fragments side by side, so a learner whose code behaves like the edit knows what to
change.

This is the diagnosis's own list of edits, written apart from the benchmark's mutator
(``benchmarks/diagnosis/mutants.py``), which measures it.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass

__all__ = ["Edit", "edits_of"]

_QUOTE_LENGTH = 72


@dataclass(frozen=True)
class Edit:
    """One edit: the node at ``index`` (in ``ast.walk`` order of the function's tree)
    replaced by ``replacement`` (``None``: a statement removed; a list: statements
    spliced in its place), and the sentence naming it."""

    index: int
    replacement: ast.AST | list[ast.stmt] | None
    sentence: str
    kind: str
    #: a statement removed as well (two steps put in the other order)
    removed: int | None = None

    def apply(self, tree: ast.AST) -> ast.AST:
        """A copy of ``tree`` with this edit made."""
        tree = copy.deepcopy(tree)
        nodes = list(ast.walk(tree))
        target = nodes[self.index]
        if self.removed is not None:
            _remove(tree, nodes[self.removed])
        return _replace(tree, target, self.replacement)


def _remove(tree: ast.AST, target: ast.AST) -> None:
    for parent in ast.walk(tree):
        for _, value in ast.iter_fields(parent):
            if isinstance(value, list) and any(item is target for item in value):
                value[:] = [item for item in value if item is not target]
                return


def _replace(tree: ast.AST, target: ast.AST, replacement) -> ast.AST:
    """``tree`` with ``target`` replaced (``None``: removed; a list: spliced in)."""
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if value is target:
                setattr(parent, field, copy.deepcopy(replacement))
                return ast.fix_missing_locations(tree)
            if isinstance(value, list) and any(item is target for item in value):
                position = next(i for i, item in enumerate(value) if item is target)
                if replacement is None:
                    spliced: list = []
                elif isinstance(replacement, list):
                    spliced = copy.deepcopy(replacement)
                else:
                    spliced = [copy.deepcopy(replacement)]
                value[position : position + 1] = spliced
                if not value and isinstance(target, ast.stmt):
                    value.append(ast.Pass())
                return ast.fix_missing_locations(tree)
    raise LookupError("the edited node is not in the tree")


class _Abbreviate(ast.NodeTransformer):
    """The calls below the quoted fragment's top shown as ``f(…)``: the fragment names
    the place of the change without spelling out the rest of the line."""

    def __init__(self, top: ast.AST):
        self.top = top

    def visit_Call(self, node: ast.Call) -> ast.AST:
        if node is self.top:
            return self.generic_visit(node)
        return ast.Call(func=node.func, args=[ast.Name(id="…", ctx=ast.Load())], keywords=[])


def quote(node: ast.AST | list) -> str:
    """A fragment of code in backquotes, clipped to one short line."""
    if isinstance(node, list):
        text = "; ".join(ast.unparse(item) for item in node)
    else:
        top = copy.deepcopy(node)
        text = ast.unparse(_Abbreviate(top).visit(top))
    text = " ".join(text.split())
    if len(text) > _QUOTE_LENGTH:
        text = text[: _QUOTE_LENGTH - 1] + "…"
    return f"`{text}`"


_BINOP_SYMBOL = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.MatMult: "@",
}
#: (operator written, operator that belongs) -> what the edited code does, in words
_BINOP_SWAPS: dict[tuple[type, type], str] = {
    (ast.Sub, ast.Add): "subtracts where it should add",
    (ast.Add, ast.Sub): "adds where it should subtract",
    (ast.Div, ast.Mult): "divides where it should multiply",
    (ast.Mult, ast.Div): "multiplies where it should divide",
    (
        ast.FloorDiv,
        ast.Div,
    ): "uses floor division `//` where true division `/` belongs (the fractions are lost)",
    (
        ast.Div,
        ast.FloorDiv,
    ): "uses true division `/` where floor division `//` belongs (a fraction where a whole number belongs)",
    (ast.Mod, ast.FloorDiv): "takes the remainder `%` where floor division `//` belongs",
    (ast.Mod, ast.Div): "takes the remainder `%` where division `/` belongs",
    (ast.Mult, ast.MatMult): "uses an elementwise product `*` where the matrix product `@` belongs",
    (ast.Mult, ast.Pow): "multiplies where it should raise to a power",
    (ast.Add, ast.Mult): "adds where it should multiply",
    (ast.Mult, ast.Add): "multiplies where it should add",
}
_LEFT_OUT = {
    ast.Add: "does not add {right}",
    ast.Sub: "does not subtract {right}",
    ast.Mult: "does not multiply by {right}",
    ast.Div: "does not divide by {right}",
    ast.FloorDiv: "does not divide by {right}",
    ast.Pow: "does not raise to the power {right}",
    ast.Mod: "does not take the remainder modulo {right}",
}
_COMPARE_SYMBOL = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Is: "is",
    ast.IsNot: "is not",
}
_COMPARE_SWAPS: dict[type, list[tuple[type, str]]] = {
    ast.Lt: [(ast.LtE, "includes the boundary it should exclude"), (ast.Gt, "compares the wrong way round")],
    ast.LtE: [(ast.Lt, "excludes the boundary it should include"), (ast.GtE, "compares the wrong way round")],
    ast.Gt: [(ast.GtE, "includes the boundary it should exclude"), (ast.Lt, "compares the wrong way round")],
    ast.GtE: [(ast.Gt, "excludes the boundary it should include"), (ast.LtE, "compares the wrong way round")],
    ast.Eq: [(ast.NotEq, "has the condition the wrong way round")],
    ast.NotEq: [(ast.Eq, "has the condition the wrong way round")],
    ast.Is: [(ast.IsNot, "has the condition the wrong way round")],
    ast.IsNot: [(ast.Is, "has the condition the wrong way round")],
}  # fmt: skip
#: functions of one family, each plausibly written for another (the last name of a call)
_FAMILIES: tuple[tuple[str, ...], ...] = (
    ("max", "min", "mean", "sum", "median"),
    ("amax", "amin"),
    ("argmax", "argmin"),
    ("exp", "log"),
    ("sin", "cos"),
    ("triu", "tril"),
    ("any", "all"),
    ("softmax", "log_softmax"),
    ("zeros", "ones", "empty"),
    ("zeros_like", "ones_like", "empty_like"),
    ("floor", "ceil", "round"),
    ("cumsum", "cumprod"),
    ("logical_and", "logical_or"),
    ("maximum", "minimum"),
    ("arange", "range"),
    ("topk", "sort"),
    ("cat", "stack", "concatenate"),
    ("split", "chunk"),
    ("repeat_interleave", "repeat", "tile"),
    ("var", "std"),
    ("log", "log2", "log10"),
    ("sqrt", "rsqrt"),
    ("sum", "norm"),
)
#: another way of writing the same wrong code, for an edit whose result it gives on every
#: input (a name of the edit alone would blame a step the learner may have written right)
_SWAP_TWINS = {  # (the function used, the one that belongs)
    ("triu", "tril"): "the same as the lower triangle transposed, with `.T` or `transpose`",
    ("tril", "triu"): "the same as the upper triangle transposed, with `.T` or `transpose`",
    ("range", "arange"): "`torch.range` includes its end, as an end one step too far does",
}
#: left-out functions whose result a second mistake gives too (sqrt(a) * sqrt(a) = a)
_LEFT_OUT_TWINS = {
    "sqrt": "or applies the root twice, once to each of two factors that multiply: q and k "
    "both scaled by it, say",
    "tril": "or calls it without keeping what it returns, or with a `diagonal` (its second "
    "argument) that cuts nothing",
    "triu": "or calls it without keeping what it returns, or with a `diagonal` (its second "
    "argument) that cuts nothing",
}
#: libraries whose functions return a new tensor and leave their input alone (an in-place
#: twin ends in ``_``): a call of them whose result is never kept changes nothing
_NOT_IN_PLACE_MODULES = ("torch", "F", "np")
#: functions that make a tensor rather than change one (no input to keep unchanged)
_MAKERS = {"arange", "range", "linspace", "logspace", "zeros", "ones", "full", "empty", "eye", "tensor", "as_tensor", "from_numpy", "array", "asarray", "rand", "randn", "randint", "randperm", "zeros_like", "ones_like", "full_like", "empty_like", "rand_like", "randn_like"}  # fmt: skip


#: functions of one value that a learner may apply once too often (``sqrt(sqrt(d_k))``)
_TWICE = {"sqrt", "rsqrt", "exp", "log", "softmax", "log_softmax", "relu", "gelu", "tanh", "sigmoid", "silu", "dropout", "norm"}  # fmt: skip
#: elementwise activations whose result a learner may square (Primer's squared ReLU)
_SQUARED = {"relu", "gelu", "silu", "tanh", "sigmoid", "leaky_relu", "elu", "softplus"}
#: reductions that a learner may take over the whole tensor (the axis left out)
_REDUCTIONS = {"sum", "mean", "var", "std", "max", "min", "amax", "amin", "norm", "logsumexp", "any", "all"}  # fmt: skip
_AXIS_KEYWORDS = ("dim", "axis", "dims", "axes", "dim0", "dim1", "start_dim", "end_dim")
_AXIS_METHODS = ("transpose", "permute", "size", "movedim", "swapaxes", "flatten", "unsqueeze", "squeeze", "split", "chunk", "cat", "stack", "concatenate", "softmax", "sum", "mean", "max", "min", "argmax", "cumsum", "flip", "roll", "expand_dims", "take_along_axis", "gather")  # fmt: skip
_AXES = (-3, -2, -1, 0, 1, 2)
#: calls whose removal (``f(x)`` -> ``x``) only changes a type, never a mistake worth a name
_KEEP_CALLS = {"len", "range", "enumerate", "zip", "list", "tuple", "dict", "set", "sorted", "reversed", "isinstance", "print", "super", "iter", "next", "str", "repr"}  # fmt: skip
#: methods that return their object unchanged in value (``.contiguous()``, a copy)
_NEUTRAL_METHODS = {"contiguous", "clone", "copy", "detach", "cpu", "numpy", "tolist", "item", "to"}  # fmt: skip


def _call_name(node: ast.Call) -> str:
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def _returns_new_tensor(node: ast.Call) -> bool:
    """``torch.f(x)``, ``F.f(x)``, ``np.f(x)``: a call of a library function that returns
    its result and leaves its argument alone."""
    func = node.func
    return (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id in _NOT_IN_PLACE_MODULES
        and not func.attr.endswith("_")
        and func.attr not in _MAKERS
    )


def _unkept(name: str, call: ast.Call | None = None) -> str:
    """The second way to leave out a call that returns a new value: calling it on a line
    of its own and never keeping what it returns ("" for an in-place method). With the
    ``call`` on a plain name (``text.lower()``), the assignment that keeps it."""
    if name.endswith("_"):
        return ""
    receiver = call.func.value if call and isinstance(call.func, ast.Attribute) else None
    keep = (
        f"; keep it: {receiver.id} = {ast.unparse(call)}" if isinstance(receiver, ast.Name) else ""
    )
    return (
        f" (or calls it without keeping what it returns: `{name}` is not in place, it "
        f"returns a new value and leaves its object unchanged{keep})"
    )


def _with_name(func: ast.expr, name: str) -> ast.expr:
    func = copy.deepcopy(func)
    if isinstance(func, ast.Attribute):
        func.attr = name
    elif isinstance(func, ast.Name):
        func.id = name
    return func


def _int_of(node: ast.AST) -> int | None:
    """The integer a constant node holds (``-1`` is a unary minus on ``1``)."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
        and type(node.operand.value) is int
    ):
        return -node.operand.value
    return None


def _int_node(value: int) -> ast.expr:
    if value < 0:
        return ast.UnaryOp(op=ast.USub(), operand=ast.Constant(-value))
    return ast.Constant(value)


def _plus(node: ast.expr, amount: int) -> ast.expr:
    value = _int_of(node)
    if value is not None:
        return _int_node(value + amount)
    op = ast.Add() if amount > 0 else ast.Sub()
    return ast.BinOp(left=copy.deepcopy(node), op=op, right=ast.Constant(abs(amount)))


def _local_names(function: ast.FunctionDef) -> dict[str, int]:
    """The parameters (line 0) and the names the function assigns, each with the line
    where it is first bound."""
    names: dict[str, int] = {}
    arguments = function.args
    for arg in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]:
        if arg.arg != "self":
            names[arg.arg] = 0
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names[node.id] = min(names.get(node.id, node.lineno), node.lineno)
    return names


def _parents(tree: ast.AST) -> dict[int, ast.AST]:
    parents: dict[int, ast.AST] = {}
    for parent in ast.walk(tree):
        for child in ast.iter_child_nodes(parent):
            parents[id(child)] = parent
    return parents


def _context(node: ast.AST, parents: dict[int, ast.AST]) -> ast.AST:
    """The fragment to quote around a small node: its enclosing expression (a call, an
    operation, a subscript), or the node itself when it stands alone."""
    parent = parents.get(id(node))
    while isinstance(parent, (ast.keyword, ast.Slice, ast.Tuple, ast.UnaryOp)):
        parent = parents.get(id(parent))
    if isinstance(parent, ast.expr):
        return parent
    return node


def _replaced_in(context: ast.AST, node: ast.AST, replacement: ast.AST) -> ast.AST:
    """``context`` with ``node`` (one of its descendants) replaced, for quoting."""
    if context is node:
        return replacement
    position = next(i for i, n in enumerate(ast.walk(context)) if n is node)
    tree = copy.deepcopy(context)
    return _replace(tree, list(ast.walk(tree))[position], replacement)


def _self_attributes(function: ast.FunctionDef) -> list[str]:
    """The attributes of ``self`` the function reads (a module's submodules and sizes)."""
    found = [
        node.attr
        for node in ast.walk(function)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
        and isinstance(node.ctx, ast.Load)
    ]
    return list(dict.fromkeys(found))


def edits_of(function: ast.FunctionDef, constructor: bool = False) -> Iterator[Edit]:
    """Every single edit of ``function``'s body (its docstring and signature left alone);
    for a module's ``__init__`` (``constructor``), also each of its parameters passed as
    one more argument to a submodule it builds (``LayerNorm(d_model, dropout)``)."""
    nodes = list(ast.walk(function))
    parents = _parents(function)
    index_of = {id(node): i for i, node in enumerate(nodes)}
    names = _local_names(function)
    attributes = _self_attributes(function)
    docstring = (
        function.body[0]
        if function.body
        and isinstance(function.body[0], ast.Expr)
        and isinstance(function.body[0].value, ast.Constant)
        and isinstance(function.body[0].value.value, str)
        else None
    )
    skipped = set()
    if docstring is not None:
        skipped = {id(node) for node in ast.walk(docstring)}
    for argument in ast.walk(function.args):
        skipped.add(id(argument))
    for decorator in function.decorator_list:
        skipped |= {id(node) for node in ast.walk(decorator)}
    if function.returns is not None:
        skipped |= {id(node) for node in ast.walk(function.returns)}
    for node in nodes:
        if id(node) in skipped or node is function:
            continue
        if isinstance(node, ast.AnnAssign):  # its annotation is never run
            skipped |= {id(n) for n in ast.walk(node.annotation)}
        index = index_of[id(node)]

        def edit(
            replacement, sentence: str, kind: str, at: int = index, removed: int | None = None
        ) -> Edit:
            return Edit(at, replacement, sentence, kind, removed)

        yield from _expression_edits(node, parents, names, edit)
        yield from _attribute_edits(node, parents, attributes, edit)
        yield from _statement_edits(node, parents, edit, index_of)
        if constructor:
            yield from _extra_argument_edits(node, names, edit)


def _extra_argument_edits(
    node: ast.AST, names: dict[str, int], edit: Callable[..., Edit]
) -> Iterator[Edit]:
    """A submodule built with one more positional argument, one of the constructor's own
    parameters: ``nn.LayerNorm(d_model, dropout)`` (the rate lands in ``eps``)."""
    if not isinstance(node, ast.Call) or any(isinstance(a, ast.Starred) for a in node.args):
        return
    name = _call_name(node)
    if not name[:1].isupper() or len(node.args) > 3:  # a class: a submodule built
        return
    passed = {n.id for a in node.args for n in ast.walk(a) if isinstance(n, ast.Name)}
    passed |= {k.arg for k in node.keywords}
    for parameter, bound in names.items():
        if bound or parameter in passed:  # the parameters only, those not passed yet
            continue
        new = ast.Call(
            func=node.func,
            args=[*node.args, ast.Name(id=parameter, ctx=ast.Load())],
            keywords=node.keywords,
        )
        yield edit(
            new,
            f"passes `{parameter}` as one more argument: {quote(new)} where {quote(node)} belongs",
            "argument",
        )


def _expression_edits(
    node: ast.AST, parents: dict[int, ast.AST], names: dict[str, int], edit: Callable[..., Edit]
) -> Iterator[Edit]:
    if isinstance(node, ast.BinOp):
        old = quote(node)
        for (written, belongs), words in _BINOP_SWAPS.items():
            if isinstance(node.op, belongs):
                new = ast.BinOp(left=node.left, op=written(), right=node.right)
                yield edit(new, f"{words}: {quote(new)} where {old} belongs", "operator")
        template = _LEFT_OUT.get(type(node.op))
        if template:
            sentence = template.format(right=quote(node.right))
            yield edit(node.left, f"{sentence}: {quote(node.left)} where {old} belongs", "left out")
        if isinstance(node.op, (ast.Add, ast.Mult)):
            verb = "add" if isinstance(node.op, ast.Add) else "multiply by"
            yield edit(
                node.right,
                f"does not {verb} {quote(node.left)}: {quote(node.right)} where {old} belongs",
                "left out",
            )
        if isinstance(node.op, (ast.Sub, ast.Div, ast.FloorDiv, ast.MatMult, ast.Pow, ast.Mod)):
            new = ast.BinOp(left=node.right, op=node.op, right=node.left)
            yield edit(
                new,
                f"puts the two sides the wrong way round: {quote(new)} where {old} belongs",
                "order",
            )
    elif isinstance(node, ast.UnaryOp) and _int_of(node) is None:
        if isinstance(node.op, ast.USub):
            yield edit(
                node.operand,
                f"leaves out the minus sign: {quote(node.operand)} where {quote(node)} belongs",
                "sign",
            )
        elif isinstance(node.op, (ast.Invert, ast.Not)):
            yield edit(
                node.operand,
                f"leaves out the negation, so the condition is the wrong way round: {quote(node.operand)} "
                f"where {quote(node)} belongs",
                "negation",
            )
    elif isinstance(node, ast.Compare) and len(node.ops) == 1:
        for written, words in _COMPARE_SWAPS.get(type(node.ops[0]), []):
            new = ast.Compare(left=node.left, ops=[written()], comparators=node.comparators)
            yield edit(new, f"{words}: {quote(new)} where {quote(node)} belongs", "comparison")
    elif isinstance(node, ast.Call):
        yield from _call_edits(node, edit)
    elif isinstance(node, ast.Subscript):
        yield from _subscript_edits(node, edit)
    elif isinstance(node, ast.IfExp):
        for branch, which in ((node.body, "first"), (node.orelse, "second")):
            yield edit(
                branch,
                f"always takes the {which} branch: {quote(branch)} where {quote(node)} belongs",
                "branch",
            )
    value = _int_of(node)
    parent = parents.get(id(node))
    if value is not None and not (
        isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.USub)
    ):
        yield from _number_edits(node, value, parents, edit)
    elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
        context = _context(node, parents)
        while context is node or not isinstance(context, (ast.expr, ast.stmt)):
            # a flag standing alone (x[0] = False): the statement shows where it is
            context = parents.get(id(context), node)
            if context is node:
                break
        new = ast.Constant(not node.value)
        yield edit(
            new,
            f"passes `{not node.value}` where `{node.value}` belongs: "
            f"{quote(_replaced_in(context, node, new))} where {quote(context)} belongs",
            "flag",
        )
    elif (
        isinstance(node, ast.Constant) and type(node.value) is float and 0 < abs(node.value) < 1e-3
    ):
        context = _context(node, parents)
        new = ast.Constant(0.0)
        yield edit(
            new,
            f"leaves out the small constant {quote(node)} (0 in its place): "
            f"{quote(_replaced_in(context, node, new))} where {quote(context)} belongs",
            "constant",
        )
    elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in names:
        yield from _operation_on_argument_edits(node, parents, edit)
        context = _context(node, parents)
        nearby = _nearby_names(node, parents)
        for other, bound in names.items():
            # only names bound by then, and only the plausible ones: the parameters, the
            # names of the same statement and those the two statements before it bind
            if other == node.id or bound >= node.lineno or (bound and other not in nearby):
                continue
            new = ast.Name(id=other, ctx=ast.Load())
            yield edit(
                new,
                f"uses `{other}` where `{node.id}` belongs: "
                f"{quote(_replaced_in(context, node, new))} where {quote(context)} belongs",
                "variable",
            )


#: one operation put on a value passed to a call: {method: what it does to the value}
_ARGUMENT_OPERATIONS = {
    "abs": "takes the absolute value of",
    "square": "squares",
    "sqrt": "takes the square root of",
}


def _operation_on_argument_edits(
    node: ast.Name | ast.Attribute, parents: dict[int, ast.AST], edit: Callable[..., Edit]
) -> Iterator[Edit]:
    """A value with one elementwise operation on it (``k.abs()``, ``k.square()``,
    ``k.sqrt()`` where ``k`` belongs): a formula with one operation added, in the family
    of the squared or rooted terms no other edit writes. Only a local variable or a
    ``self.`` attribute passed to a call or taken by an arithmetic operator, so that the
    edits stay few (and they are tried last: search.py's second tier)."""
    parent = parents.get(id(node))
    if isinstance(parent, ast.Call):
        if not any(arg is node for arg in parent.args):
            return
        how = "before passing it on"
    elif isinstance(parent, ast.BinOp) and (parent.left is node or parent.right is node):
        how = "in the formula"
    else:
        return
    written = ast.unparse(node)
    context = _context(node, parents)
    for method, words in _ARGUMENT_OPERATIONS.items():
        new = ast.Call(
            func=ast.Attribute(value=copy.deepcopy(node), attr=method, ctx=ast.Load()),
            args=[],
            keywords=[],
        )
        yield edit(
            new,
            f"{words} `{written}` {how}: "
            f"{quote(_replaced_in(context, node, new))} where {quote(context)} belongs",
            "operation added",
        )


def _attribute_edits(
    node: ast.AST, parents: dict[int, ast.AST], attributes: list[str], edit: Callable[..., Edit]
) -> Iterator[Edit]:
    """``self.b`` where ``self.a`` belongs: a module's other submodule or size."""
    if not (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
        and isinstance(node.ctx, ast.Load)
    ):
        return
    yield from _operation_on_argument_edits(node, parents, edit)
    context = _context(node, parents)
    for other in attributes:
        # a dropout put in another submodule's place is the call left out (in eval mode,
        # and a learner does not write it): that edit says it
        if other == node.attr or ("drop" in other and "drop" not in node.attr):
            continue
        new = ast.Attribute(value=node.value, attr=other, ctx=ast.Load())
        yield edit(
            new,
            f"uses `self.{other}` where `self.{node.attr}` belongs: "
            f"{quote(_replaced_in(context, node, new))} where {quote(context)} belongs",
            "attribute",
        )


def _header_names(statement: ast.stmt) -> set[str]:
    """The names a statement reads or binds, its nested statements left out."""
    found: set[str] = set()
    stack: list[ast.AST] = [statement]
    while stack:
        current = stack.pop()
        for child in ast.iter_child_nodes(current):
            if isinstance(child, ast.stmt):
                continue
            if isinstance(child, ast.Name):
                found.add(child.id)
            stack.append(child)
    return found


def _nearby_names(node: ast.AST, parents: dict[int, ast.AST]) -> set[str]:
    """The names of the statement holding ``node`` and those bound by the two statements
    before it in the same block."""
    statement = node
    while statement is not None and not isinstance(statement, ast.stmt):
        statement = parents.get(id(statement))
    if statement is None:
        return set()
    found = _header_names(statement)
    block = _block_of(statement, parents)
    if block is not None:
        position = next(i for i, item in enumerate(block) if item is statement)
        for earlier in block[max(0, position - 2) : position]:
            for target in ast.walk(earlier):
                if isinstance(target, ast.Name) and isinstance(target.ctx, ast.Store):
                    found.add(target.id)
    return found


def _is_axis_position(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    parent = parents.get(id(node))
    if isinstance(parent, ast.keyword):
        return parent.arg in _AXIS_KEYWORDS
    if isinstance(parent, ast.Call):
        return _call_name(parent) in _AXIS_METHODS and node in parent.args[:3]
    if isinstance(parent, ast.Subscript):  # x.shape[-1]
        value = parent.value
        return isinstance(value, ast.Attribute) and value.attr == "shape"
    return False


def _number_edits(
    node: ast.AST, value: int, parents: dict[int, ast.AST], edit: Callable[..., Edit]
) -> Iterator[Edit]:
    context = _context(node, parents)
    if _is_axis_position(node, parents):
        for axis in _AXES:
            if axis != value:
                new = _int_node(axis)
                yield edit(
                    new,
                    f"uses axis {axis} where axis {value} belongs: "
                    f"{quote(_replaced_in(context, node, new))} where {quote(context)} belongs",
                    "axis",
                )
        return
    for amount in (1, -1):
        new = _int_node(value + amount)
        words = "one more" if amount > 0 else "one less"
        yield edit(
            new,
            f"is off by one ({words}): {quote(_replaced_in(context, node, new))} "
            f"where {quote(context)} belongs",
            "off by one",
        )
    if value not in (0, 1):
        for new_value in (0, 1):
            new = _int_node(new_value)
            yield edit(
                new,
                f"uses {new_value} where {value} belongs: "
                f"{quote(_replaced_in(context, node, new))} where {quote(context)} belongs",
                "number",
            )


def _call_edits(node: ast.Call, edit: Callable[..., Edit]) -> Iterator[Edit]:
    name = _call_name(node)
    old = quote(node)
    for family in _FAMILIES:
        if name in family:
            for other in family:
                if other != name:
                    new = ast.Call(
                        func=_with_name(node.func, other), args=node.args, keywords=node.keywords
                    )
                    twin = _SWAP_TWINS.get((other, name))
                    also = f" ({twin})" if twin else ""
                    yield edit(
                        new,
                        f"calls `{other}` where `{name}` belongs{also}: {quote(new)} where "
                        f"{old} belongs",
                        "function",
                    )
    if name == "range" and node.args:
        for position, argument in enumerate(node.args[:2]):
            for amount in (1, -1):
                args = list(node.args)
                args[position] = _plus(argument, amount)
                new = ast.Call(func=node.func, args=args, keywords=node.keywords)
                words = (
                    "one iteration more"
                    if (amount > 0) == (position == len(node.args) - 1 or len(node.args) == 1)
                    else "one iteration fewer"
                )
                if len(node.args) >= 2 and position == 0:
                    words = "starts one later" if amount > 0 else "starts one earlier"
                yield edit(
                    new,
                    f"has a loop bound off by one ({words}): {quote(new)} where {old} belongs",
                    "loop",
                )
        if len(node.args) == 1:
            new = ast.Call(
                func=node.func, args=[ast.Constant(1), node.args[0]], keywords=node.keywords
            )
            yield edit(
                new, f"starts the loop at 1 instead of 0: {quote(new)} where {old} belongs", "loop"
            )
    yield from _twice_edits(node, name, old, edit)
    yield from _squared_edits(node, name, old, edit)
    yield from _whole_tensor_edits(node, name, old, edit)
    # the call left out: f(x) -> x, x.method(...) -> x
    if isinstance(node.func, ast.Attribute) and name not in _NEUTRAL_METHODS:
        receiver = node.func.value
        if not (
            isinstance(receiver, ast.Name)
            and receiver.id in ("np", "torch", "math", "F", "nn", "self", "random")
        ):
            yield edit(
                receiver,
                f"leaves out `.{name}(…)`{_unkept(name, node)}: {quote(receiver)} where {old} "
                "belongs",
                "left out",
            )
    if name not in _KEEP_CALLS and len(node.args) >= 1 and not node.keywords:
        for argument in node.args[:2]:
            if isinstance(argument, ast.Starred):
                continue
            twin = _LEFT_OUT_TWINS.get(name)
            if twin is None and argument is node.args[0] and _returns_new_tensor(node):
                twin = _unkept(name).strip(" ()")
            also = f" ({twin})" if twin else ""
            yield edit(
                argument,
                f"leaves out `{name}`{also}: {quote(argument)} where {old} belongs",
                "left out",
            )
    for position, keyword in enumerate(node.keywords):
        if keyword.arg is None:
            continue
        keywords = node.keywords[:position] + node.keywords[position + 1 :]
        new = ast.Call(func=node.func, args=node.args, keywords=keywords)
        yield edit(
            new,
            f"leaves out `{keyword.arg}={ast.unparse(keyword.value)}`: {quote(new)} where {old} belongs",
            "keyword",
        )
    positional = [a for a in node.args if not isinstance(a, ast.Starred)]
    if len(positional) == len(node.args) and len(node.args) >= 2:
        for i, argument in enumerate(node.args):
            args = node.args[:i] + node.args[i + 1 :]
            new = ast.Call(func=node.func, args=args, keywords=node.keywords)
            yield edit(
                new,
                f"leaves out the argument {quote(argument)}: {quote(new)} where {old} belongs",
                "argument",
            )
        for i in range(len(node.args) - 1):
            args = list(node.args)
            args[i], args[i + 1] = args[i + 1], args[i]
            new = ast.Call(func=node.func, args=args, keywords=node.keywords)
            if ast.unparse(new) != ast.unparse(node):
                yield edit(
                    new,
                    f"passes the arguments in the wrong order: {quote(new)} where {old} belongs",
                    "order",
                )


def _twice_edits(node: ast.Call, name: str, old: str, edit: Callable[..., Edit]) -> Iterator[Edit]:
    """``f(f(x))`` where ``f(x)`` belongs: a function of one value applied once too often
    (the square root taken twice: a fourth root)."""
    if name not in _TWICE:
        return
    if isinstance(node.func, ast.Attribute) and node.func.value is not None:
        receiver = node.func.value
        is_module = isinstance(receiver, ast.Name) and receiver.id in (
            "np",
            "torch",
            "math",
            "F",
            "self",
        )
        if is_module and node.args:  # math.sqrt(x) -> math.sqrt(math.sqrt(x))
            new = ast.Call(
                func=node.func, args=[copy.deepcopy(node), *node.args[1:]], keywords=node.keywords
            )
        elif not is_module:  # x.softmax(-1) -> x.softmax(-1).softmax(-1)
            new = ast.Call(
                func=ast.Attribute(value=copy.deepcopy(node), attr=name, ctx=ast.Load()),
                args=node.args,
                keywords=node.keywords,
            )
        else:
            return
    elif isinstance(node.func, ast.Name) and node.args:
        new = ast.Call(
            func=node.func, args=[copy.deepcopy(node), *node.args[1:]], keywords=node.keywords
        )
    else:
        return
    written = " ".join(ast.unparse(new).split())  # whole: the inner call is the point
    written = f"`{written}`" if len(written) <= _QUOTE_LENGTH else quote(new)
    yield edit(new, f"applies `{name}` twice: {written} where {old} belongs", "twice")


def _squared_edits(
    node: ast.Call, name: str, old: str, edit: Callable[..., Edit]
) -> Iterator[Edit]:
    """``f(x) ** 2`` where ``f(x)`` belongs: an elementwise activation's result squared
    (the squared ReLU of Primer, relu(h) ** 2, where the plain ReLU belongs)."""
    if name not in _SQUARED:
        return
    new = ast.BinOp(left=copy.deepcopy(node), op=ast.Pow(), right=ast.Constant(2))
    written = " ".join(ast.unparse(new).split())  # whole: the call squared is the point
    written = f"`{written}`" if len(written) <= _QUOTE_LENGTH else quote(new)
    yield edit(
        new,
        f"squares the result of `{name}`: {written} where {old} belongs (each value "
        f"{name}(h) becomes {name}(h) ** 2)",
        "squared",
    )


def _whole_tensor_edits(
    node: ast.Call, name: str, old: str, edit: Callable[..., Edit]
) -> Iterator[Edit]:
    """A reduction over every entry of the tensor where one axis belongs: ``x.mean()``
    for ``x.mean(-1, keepdim=True)`` (its axis and ``keepdim`` left out)."""
    if name not in _REDUCTIONS or not isinstance(node.func, ast.Attribute):
        return
    receiver = node.func.value
    library = isinstance(receiver, ast.Name) and receiver.id in ("np", "torch", "math", "F")
    axis_keywords = [k for k in node.keywords if k.arg in _AXIS_KEYWORDS]
    others = [k for k in node.keywords if k.arg not in (*_AXIS_KEYWORDS, "keepdim", "keepdims")]
    positional = node.args[1:] if library else node.args
    if not (axis_keywords or positional) or len(positional) > 1:
        return
    args = node.args[:1] if library else []
    new = ast.Call(func=node.func, args=args, keywords=others)
    axis = axis_keywords[0].value if axis_keywords else positional[0]
    what = _REDUCTION_WORDS.get(name, f"`{name}`")
    yield edit(
        new,
        f"takes {what} over the whole tensor (one single value shared by every "
        f"{'row' if name in _REDUCTION_WORDS else 'entry'}) instead of along "
        f"{_axis_words(axis)}: {quote(new)} where {old} belongs",
        "whole tensor",
    )


#: the quantity a reduction computes, in words, for a learner's sentence
_REDUCTION_WORDS = {
    "sum": "the sum (`sum`)",
    "mean": "the mean (`mean`)",
    "var": "the variance (`var`)",
    "std": "the standard deviation (`std`)",
    "max": "the maximum (`max`)",
    "min": "the minimum (`min`)",
    "amax": "the maximum (`amax`)",
    "amin": "the minimum (`amin`)",
    "norm": "the norm (`norm`)",
    "logsumexp": "the log-sum-exp (`logsumexp`)",
}


def _axis_words(axis: ast.expr) -> str:
    """``dim=-1`` in words: "the last axis (dim=-1)", "axis 0", or the expression quoted."""
    written = ast.unparse(axis)
    if written == "-1":
        return "the last axis (dim=-1)"
    if written == "-2":
        return "the second-to-last axis (dim=-2)"
    if written.lstrip("-").isdigit():
        return f"axis {written}"
    return f"the axis `{written}`"


def _is_none(part: ast.expr) -> bool:
    return isinstance(part, ast.Constant) and part.value is None


def _is_everything(part: ast.expr) -> bool:
    """``...`` or a bare ``:``: a part that keeps the axes it stands for."""
    if isinstance(part, ast.Constant) and part.value is Ellipsis:
        return True
    return isinstance(part, ast.Slice) and part.lower is part.upper is part.step is None


def _new_axis_edits(node: ast.Subscript, edit: Callable[..., Edit]) -> Iterator[Edit]:
    """A new axis (``None`` in the index, as ``unsqueeze`` makes) inserted at another
    position: ``x[..., None]`` (the last axis, unsqueeze(-1)) written as ``x[:, None]``
    (axis 1, unsqueeze(1)) or ``x[None]`` (axis 0), and the other way round."""
    index = node.slice
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    if sum(map(_is_none, parts)) != 1 or not all(_is_none(p) or _is_everything(p) for p in parts):
        return
    everything = ast.Slice(lower=None, upper=None, step=None)
    ellipsis = ast.Constant(value=Ellipsis)
    none = ast.Constant(value=None)
    variants = (
        ([none], "axis 0 (unsqueeze(0))"),
        ([everything, none], "axis 1 (unsqueeze(1))"),
        ([ellipsis, none], "the last axis (unsqueeze(-1))"),
        ([ellipsis, none, everything], "the second-to-last axis (unsqueeze(-2))"),
    )
    old = quote(node)
    written = ast.unparse(index)
    for new_parts, where in variants:
        new_index = (
            new_parts[0] if len(new_parts) == 1 else ast.Tuple(elts=new_parts, ctx=ast.Load())
        )
        if ast.unparse(new_index) == written:
            continue
        new = ast.Subscript(value=node.value, slice=new_index, ctx=node.ctx)
        yield edit(
            new,
            f"inserts its new axis at {where}: {quote(new)} where {old} belongs",
            "new axis",
        )


def _subscript_edits(node: ast.Subscript, edit: Callable[..., Edit]) -> Iterator[Edit]:
    old = quote(node)
    index = node.slice
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    yield from _new_axis_edits(node, edit)
    for position, part in enumerate(parts):
        variants: list[tuple[ast.expr, str]] = []
        if isinstance(part, ast.Slice):
            for bound in ("lower", "upper"):
                value = getattr(part, bound)
                if value is None:
                    continue
                for amount in (1, -1):
                    variants.append(
                        (
                            ast.Slice(**{**_slice_fields(part), bound: _plus(value, amount)}),
                            "off by one",
                        )
                    )
                variants.append((ast.Slice(**{**_slice_fields(part), bound: None}), "bound"))
        elif isinstance(part, ast.Name) or (
            isinstance(part, ast.BinOp) and isinstance(part.op, (ast.Add, ast.Sub))
        ):
            for amount in (1, -1):
                variants.append((_plus(part, amount), "off by one"))
        for new_part, kind in variants:
            new_parts = list(parts)
            new_parts[position] = new_part
            new_index = (
                ast.Tuple(elts=new_parts, ctx=ast.Load())
                if isinstance(index, ast.Tuple)
                else new_part
            )
            new = ast.Subscript(value=node.value, slice=new_index, ctx=node.ctx)
            words = (
                "has an index off by one" if kind == "off by one" else "leaves out a slice bound"
            )
            yield edit(new, f"{words}: {quote(new)} where {old} belongs", kind)


def _block_of(node: ast.stmt, parents: dict[int, ast.AST]) -> list | None:
    """The list of statements ``node`` is one of."""
    owner = parents.get(id(node))
    for _, value in ast.iter_fields(owner) if owner is not None else ():
        if isinstance(value, list) and any(item is node for item in value):
            return value
    return None


def _slice_fields(part: ast.Slice) -> dict:
    return {"lower": part.lower, "upper": part.upper, "step": part.step}


def _statement_edits(
    node: ast.AST, parents: dict[int, ast.AST], edit: Callable[..., Edit], index_of: dict
) -> Iterator[Edit]:
    if not isinstance(node, ast.stmt):
        return
    simple = (ast.Assign, ast.AugAssign, ast.Expr)
    if isinstance(node, ast.AugAssign) or (
        isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and any(
            isinstance(n, ast.Name) and n.id == node.targets[0].id for n in ast.walk(node.value)
        )
    ):  # a step that updates a value: done twice
        yield edit([node, node], f"does the step {quote(node)} twice", "twice")
    block = _block_of(node, parents)
    if block is not None and isinstance(node, simple):
        position = next(i for i, item in enumerate(block) if item is node)
        if position + 1 < len(block) and isinstance(block[position + 1], simple):
            following = block[position + 1]
            yield edit(
                [following, node],
                f"does the two steps {quote(node)} and {quote(following)} in the other order",
                "order",
                removed=index_of[id(following)],
            )
    if isinstance(node, (ast.For, ast.While)):
        yield from _loop_edge_edits(node, block, edit, index_of)
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.Expr, ast.If, ast.For, ast.While)):
        first_line = quote(node).split("\n")[0]
        if isinstance(node, ast.If):
            first_line = f"`if {ast.unparse(node.test)}: …`"
        elif isinstance(node, (ast.For, ast.While)):
            first_line = f"`{ast.unparse(node).splitlines()[0]} …`"
        yield edit(None, f"skips the step {first_line}", "step")
    if isinstance(node, ast.If):
        yield edit(
            list(node.body),
            f"runs the branch of `if {ast.unparse(node.test)}:` whatever the condition",
            "branch",
        )
        if node.orelse:
            yield edit(
                list(node.orelse),
                f"always takes the `else` of `if {ast.unparse(node.test)}:`",
                "branch",
            )
    if isinstance(node, ast.AugAssign):
        new = ast.Assign(targets=[node.target], value=node.value, lineno=node.lineno)
        symbol = _BINOP_SYMBOL.get(type(node.op), "?")
        yield edit(
            new,
            f"overwrites instead of accumulating: {quote(new)} where "
            f"`{ast.unparse(node.target)} {symbol}= {ast.unparse(node.value)}` belongs",
            "accumulate",
        )
        for (written, belongs), words in _BINOP_SWAPS.items():
            if isinstance(node.op, belongs):
                new = ast.AugAssign(target=node.target, op=written(), value=node.value)
                yield edit(new, f"{words}: {quote(new)} where {quote(node)} belongs", "operator")
    if (
        isinstance(node, ast.Return)
        and isinstance(node.value, ast.Tuple)
        and len(node.value.elts) >= 2
    ):
        elts = node.value.elts
        for i in range(len(elts) - 1):
            swapped = list(elts)
            swapped[i], swapped[i + 1] = swapped[i + 1], swapped[i]
            new = ast.Return(value=ast.Tuple(elts=swapped, ctx=ast.Load()))
            yield edit(
                new,
                f"returns its results in another order: {quote(new)} where {quote(node)} belongs",
                "order",
            )


def _loop_edge_edits(
    loop: ast.For | ast.While, block: list | None, edit: Callable[..., Edit], index_of: dict
) -> Iterator[Edit]:
    """A line on the loop's edge indented one level off: the body's last step dedented
    out of the loop (run once, after it), and the step after the loop indented into its
    body (run at every pass; a ``return`` there ends the function at the first pass)."""
    header = f"`{ast.unparse(loop).splitlines()[0]} …`"
    simple = (ast.Assign, ast.AugAssign, ast.Expr)
    last = loop.body[-1]
    if len(loop.body) >= 2 and isinstance(last, simple):
        shortened = copy.deepcopy(loop)
        shortened.body = shortened.body[:-1]
        yield edit(
            [shortened, last],
            f"runs the step {quote(last)} once, after the loop {header}, where it belongs "
            "inside it, at every pass (the line dedented out of the loop's body)",
            "loop",
        )
    if block is None or loop.orelse:
        return
    position = next(i for i, item in enumerate(block) if item is loop)
    following = block[position + 1] if position + 1 < len(block) else None
    if isinstance(following, (*simple, ast.Return)):
        lengthened = copy.deepcopy(loop)
        lengthened.body = [*lengthened.body, copy.deepcopy(following)]
        ends = " (a return there ends the function at the first pass)" * isinstance(
            following, ast.Return
        )
        yield edit(
            lengthened,
            f"runs {quote(following)} inside the loop {header}, at every pass{ends}, where it "
            "belongs after the loop (the line indented into the loop's body)",
            "loop",
            removed=index_of[id(following)],
        )
