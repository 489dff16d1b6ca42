"""Which single edit of the reference reproduces what the learner's code returned.

A check records every call it makes to the learner's answer (:class:`Recorded`: the
arguments, the global random streams as they were, the result). When a value is wrong
and no mistake the check knows explains it, :func:`diagnose` runs every single edit of
the reference (:mod:`.edits`, and the edits of the course functions the reference calls)
on the same arguments, from the same random state, and keeps the edits whose results
equal the learner's on **every** call. One edit left: it is named. Two or three whose
sentences differ: all are named as candidates these inputs cannot tell apart. None, or
more: nothing is said, and the check's own message stands.
"""

from __future__ import annotations

import ast
import collections
import contextlib
import copy
import copyreg
import dataclasses
import functools
import importlib
import inspect
import math
import pkgutil
import re
import sys
import textwrap
import time
import types
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import FunctionType
from typing import Any

import numpy as np

from transformer_course.checking.deviations.edits import Edit, edits_of
from transformer_course.checking.randomness import global_random_state, restore_random_state
from transformer_course.checking.time_limit import time_limit

__all__ = [
    "FROZEN_ITEMS",
    "Raised",
    "Recorded",
    "TooLargeToFreeze",
    "Variant",
    "diagnose",
    "explained",
    "frozen",
    "matching",
    "reference_function",
    "replay",
    "same",
    "search_edits",
    "structure",
    "torch_state_kept",
    "variants_of",
]

#: seconds one edited reference may run on one call (an edited loop bound can loop for
#: ever; a run that is stopped matches nothing), and at most that many times as long as
#: the reference's own run
_PER_CALL_S = 0.25
_SLOWER = 30
#: the most work a search may cost: edits times the function calls one run of the
#: reference makes (a median of 0.4 s on this course's slowest searches that start;
#: beam search, greedy decoding, generation, a training step are left out)
_BUDGET = 700_000
#: more matching edits than this (with different sentences) name nothing
_MAX_CANDIDATES = 3


@dataclass
class Recorded:
    """One call a check made to the learner's answer (for a module: to an instance of
    it, with the arguments it was built with, its weights and its mode)."""

    args: tuple
    kwargs: dict
    random_state: tuple
    result: Any = None
    built: tuple | None = None
    state: dict | None = None
    training: bool = False
    #: the construction of a module itself (``result``: its :func:`structure`), which a
    #: mistake in ``__init__`` shows before any forward call
    constructed: bool = False
    #: what was called (the answer, or the learner's module), to call again on new inputs
    #: (:mod:`.probes`); never compared
    target: Any = field(default=None, repr=False, compare=False)


@dataclass
class Variant:
    """The reference with one edit: its sentence, and the function (compiled on first use)."""

    sentence: str
    kind: str
    build: Callable[[], Callable]
    _function: Callable | None = field(default=None, repr=False)
    #: an edit of a module's ``__init__``: ``build`` gives the edited class, not a forward
    constructor: bool = False

    def function(self) -> Callable:
        if self._function is None:
            self._function = self.build()
        return self._function


#: the most items (list, tuple and dict entries, and leaves) that ``frozen`` copies: an
#: answer returning a list shared 10^5 times (10^8 items to visit) took six minutes to copy
#: for a record that no diagnosis needs
FROZEN_ITEMS = 1_000_000


class TooLargeToFreeze(Exception):
    """A value with more than ``FROZEN_ITEMS`` items: not recorded."""


def frozen(value: Any) -> Any:
    """A copy of ``value`` that later calls cannot change (tensors detached and cloned;
    random generators copied with their state). Raises ``TooLargeToFreeze`` for a value
    of more than ``FROZEN_ITEMS`` items."""
    return _frozen(value, [FROZEN_ITEMS])


def _frozen(value: Any, left: list[int]) -> Any:
    import torch

    left[0] -= 1
    if left[0] < 0:
        raise TooLargeToFreeze
    if isinstance(value, torch.Generator):
        twin = torch.Generator(device=value.device)
        twin.set_state(value.get_state())
        return twin
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, torch.nn.Module):  # a copy without the check's hooks on it
        twin = _module_copy(value, {})
        for module in twin.modules():
            module._forward_hooks.clear()
            module._forward_pre_hooks.clear()
        return twin
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, tuple):
        return tuple(_frozen(item, left) for item in value)
    if isinstance(value, list):
        return [_frozen(item, left) for item in value]
    if isinstance(value, dict):
        return {key: _frozen(item, left) for key, item in value.items()}
    if isinstance(value, str | bytes) and len(value) > FROZEN_ITEMS:
        raise TooLargeToFreeze
    try:
        return copy.deepcopy(value)
    except Exception:  # an object that cannot be copied is passed as it is
        return value


_NIL = object()
#: the types copy.deepcopy returns as they are (its _deepcopy_atomic)
_ATOMIC = frozenset({type(None), bool, int, float, complex, str, bytes})


def _module_copy(module: Any, memo: dict) -> Any:
    """``copy.deepcopy(module, memo)``, the same copy made faster: a module whose class
    copies as ``nn.Module`` does (its ``__getstate__`` and ``__setstate__``, no
    ``__deepcopy__`` or reduce of its own) is rebuilt as deepcopy's reduce protocol
    rebuilds it, and the plain dicts and ``OrderedDict``s of its state (parameters,
    buffers, submodules, a dozen hook tables, mostly empty) are copied here instead of
    through ``__reduce_ex__`` (about 60 reduces per module); every other value (tensors,
    parameters, sets, the learner's objects) goes through ``copy.deepcopy`` with the same
    memo, so shared tensors (tied weights) stay shared."""
    import torch

    cls = type(module)
    if not (
        getattr(cls, "__getstate__", None) is torch.nn.Module.__getstate__
        and getattr(cls, "__setstate__", None) is torch.nn.Module.__setstate__
        and cls.__reduce_ex__ is object.__reduce_ex__
        and cls.__reduce__ is object.__reduce__
        and cls not in copyreg.dispatch_table
        and copy._deepcopy_dispatch.get(cls) is None
        and not hasattr(cls, "__getnewargs_ex__")
        and not hasattr(cls, "__getnewargs__")
        and getattr(module, "__deepcopy__", None) is None
    ):
        return copy.deepcopy(module, memo)
    found = memo.get(id(module), _NIL)
    if found is not _NIL:
        return found
    twin = cls.__new__(cls)
    memo[id(module)] = twin
    state = _state_copy(module.__getstate__(), memo)
    twin.__setstate__(state)
    memo.setdefault(id(memo), []).append(module)  # as copy._keep_alive
    return twin


def _state_copy(value: Any, memo: dict) -> Any:
    """``copy.deepcopy(value, memo)`` for a module's state (see ``_module_copy``)."""
    import torch

    kind = type(value)
    if kind in _ATOMIC:  # as copy._deepcopy_atomic
        return value
    found = memo.get(id(value), _NIL)
    if found is not _NIL:
        return found
    if kind is dict or (kind is collections.OrderedDict and not vars(value)):
        twin = kind()
        memo[id(value)] = twin
        for key, item in value.items():
            key = key if type(key) in _ATOMIC else copy.deepcopy(key, memo)
            twin[key] = _state_copy(item, memo)
        memo.setdefault(id(memo), []).append(value)
        return twin
    if isinstance(value, torch.nn.Module):
        return _module_copy(value, memo)
    return copy.deepcopy(value, memo)


@functools.cache
def reference_function(name: str) -> Callable | None:
    """The reference of the exercise ``name``: a function, or an ``nn.Module`` class
    (``None`` for a quiz or an unknown name)."""
    import transformer_course.reference as package

    if name.startswith("quiz_"):  # an answer, not a computation: its edits would tell it
        return None
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        candidate = module.__dict__.get(name)
        if isinstance(candidate, (FunctionType, type)) and candidate.__module__ == module.__name__:
            return candidate
    return None


def _function_tree(function: Callable) -> ast.FunctionDef:
    source = textwrap.dedent(inspect.getsource(function))
    tree = ast.parse(source)
    node = tree.body[0]
    assert isinstance(node, ast.FunctionDef)
    return node


def _compiled(tree: ast.FunctionDef, name: str, namespace: dict) -> Callable:
    module = ast.Module(body=[tree], type_ignores=[])
    ast.fix_missing_locations(module)
    # named inside the course's package: the course's own code, which the forbidden-API
    # watch ignores and learner tracebacks leave out
    filename = str(Path(namespace["__file__"]).with_name(f"<the reference of {name}, edited>"))
    with warnings.catch_warnings():  # an edit can make a literal that Python warns of
        warnings.simplefilter("ignore")
        code = compile(module, filename, "exec")
    scope = dict(namespace)
    exec(code, scope)  # the course's own reference, edited: trusted code
    return scope[name]


def _callees(function: Callable, tree: ast.FunctionDef) -> list[Callable]:
    """The course functions of the same module that ``function`` calls by name."""
    module_globals = sys.modules[function.__module__].__dict__
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            callee = module_globals.get(node.func.id)
            callee = inspect.unwrap(callee) if callable(callee) else callee
            if (
                isinstance(callee, FunctionType)
                and callee.__module__ == function.__module__
                and callee is not function
                and callee not in found
            ):
                found.append(callee)
    return found


@functools.cache
def variants_of(function: Callable) -> tuple[Variant, ...]:
    """Every single edit of ``function`` and of the course functions it calls (for a
    module class: of its ``forward``)."""
    if isinstance(function, type):  # only a forward of its own (not nn.Module's stub)
        forward = _variants(function.forward) if "forward" in vars(function) else ()
        return forward + _constructor_variants(function)
    return _variants(function)


def structure(module: Any) -> dict:
    """What a module's construction decides, as a check can compare it: every state-dict
    key with its shape and dtype, and the values of its buffers (a table computed in
    ``__init__``); parameters' values are random, so only their shapes count."""
    buffers = {name for name, _ in module.named_buffers()}
    found: dict[str, Any] = {
        key: (value.detach().clone() if key in buffers else (tuple(value.shape), str(value.dtype)))
        for key, value in module.state_dict().items()
    }
    # and its submodules' names: a norm built without gain and bias has no state-dict key,
    # as a norm never built has none, but it is there
    found[_SUBMODULES] = tuple(sorted(name for name, _ in module.named_modules() if name))
    return found


#: the key of :func:`structure` that lists the submodules (no state-dict key has a space)
_SUBMODULES = " submodules"


def _constructor_variants(cls: type) -> tuple[Variant, ...]:
    """Every single edit of a module class's own ``__init__``, each building the class
    with that ``__init__`` (its other methods unchanged)."""
    if "__init__" not in vars(cls):
        return ()
    init = inspect.unwrap(vars(cls)["__init__"])
    tree = _function_tree(init)
    namespace = sys.modules[cls.__module__].__dict__

    def edited_class(edit: Edit) -> type:
        # compiled inside a class body, so that super() inside it finds its class
        holder = ast.ClassDef(
            name=cls.__name__,
            bases=[ast.Name(id="__edited_base__", ctx=ast.Load())],
            keywords=[],
            body=[edit.apply(tree)],
            decorator_list=[],
            type_params=[],
        )
        module = ast.Module(body=[holder], type_ignores=[])
        ast.fix_missing_locations(module)
        filename = str(
            Path(namespace["__file__"]).with_name(f"<the reference of {cls.__name__}, edited>")
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            code = compile(module, filename, "exec")
        scope = {**namespace, "__edited_base__": cls.__bases__[0]}
        exec(code, scope)  # the course's own reference, edited: trusted code
        edited = scope[cls.__name__]
        methods = {
            key: value
            for key, value in vars(cls).items()
            if key not in ("__init__", "__dict__", "__weakref__")
        }
        return type(cls.__name__, (edited, *cls.__bases__[1:]), methods)

    return tuple(
        Variant(
            f"{edit.sentence} (in `__init__`)",
            edit.kind,
            lambda edit=edit: edited_class(edit),
            constructor=True,
        )
        for edit in _unique(edits_of(tree, constructor=True), tree)
    )


def _variants(function: Callable) -> tuple[Variant, ...]:
    function = inspect.unwrap(function)  # @torch.no_grad() keeps the original here
    tree = _function_tree(function)
    name = function.__name__
    namespace = sys.modules[function.__module__].__dict__
    variants: list[Variant] = []

    def own(edit: Edit) -> Variant:
        return Variant(
            edit.sentence,
            edit.kind,
            lambda: _compiled(edit.apply(tree), name, namespace),
        )

    variants.extend(own(edit) for edit in _unique(edits_of(tree), tree))
    for callee in _callees(function, tree):
        callee_tree = _function_tree(callee)

        def inside(edit: Edit, callee=callee, callee_tree=callee_tree) -> Variant:
            def build() -> Callable:
                edited = _compiled(edit.apply(callee_tree), callee.__name__, namespace)
                return _compiled(tree, name, {**namespace, callee.__name__: edited})

            return Variant(
                f"{edit.sentence} (in the step that `{callee.__name__}` does)", edit.kind, build
            )

        variants.extend(inside(edit) for edit in _unique(edits_of(callee_tree), callee_tree))
    return tuple(variants)


def _unique(edits: Iterator[Edit], tree: ast.FunctionDef) -> Iterator[Edit]:
    """The edits, each sentence once (two edits with one sentence make the same code)."""
    seen: set[str] = set()
    for edit in edits:
        if edit.sentence not in seen:
            seen.add(edit.sentence)
            yield edit


class _Timeout(BaseException):
    """An edited run stopped at its time limit: a BaseException, so that an ``except
    Exception`` on the way (in the edited code, in :func:`frozen`'s copies) cannot swallow
    it and let the run loop on unbounded."""


def _time_limit(seconds: float):
    """Stop the edited reference after ``seconds`` (an edited loop bound can loop for
    ever); an outer limit (the benchmark's deadline) is kept. Only in the main thread,
    where Python delivers signals."""
    return time_limit(seconds, error=_Timeout)


@contextlib.contextmanager
def _bounded_and_quiet(seconds: float):
    """One call of code that may be wrong: stopped after ``seconds``, its warnings and
    numpy's floating-point complaints silenced (an edit's overflow is not the learner's)."""
    with _time_limit(seconds), warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


_FAILED = object()


@dataclass(frozen=True)
class Raised:
    """An exception a call raised, as its type's name and its text (numbers that are
    memory addresses left out): two calls that raise the same error agree."""

    kind: str
    text: str

    @classmethod
    def of(cls, error: BaseException) -> Raised:
        return cls(type(error).__name__, re.sub(r"0x[0-9a-f]+", "0x…", str(error)))


def _built_module(cls: type, call: Recorded, limit: float) -> Any:
    """``cls`` built as the learner's module was (its structure for a construction
    record), or with the learner's weights, mode and call run (a call record)."""
    args, kwargs = call.built or ((), {})
    restore_random_state(call.random_state)
    try:
        # the copies are made before the clock starts: on a loaded machine they can take
        # longer than the limit itself
        built_args, built_kwargs = frozen(args), frozen(kwargs)
        call_args, call_kwargs = frozen(call.args), frozen(call.kwargs)
        with _bounded_and_quiet(limit):
            module = cls(*built_args, **built_kwargs)
            if call.constructed:
                return structure(module)
            module.load_state_dict(call.state)
            module.train(call.training)
            return module(*call_args, **call_kwargs)
    except _Timeout:
        return _FAILED
    except Exception as error:
        if call.constructed:
            return Raised.of(error)
        return _FAILED  # weights the edited module cannot take: not this edit


def _instance(reference: type, call: Recorded) -> Any:
    """The reference module built like the learner's, with its weights and mode."""
    args, kwargs = call.built or ((), {})
    module = reference(*frozen(args), **frozen(kwargs))
    module.load_state_dict(call.state)
    module.train(call.training)
    return module


def _run(
    function: Callable, call: Recorded, instance: Any = None, limit: float = _PER_CALL_S
) -> Any:
    if instance is not None:  # a module: its forward replaced by the edited one
        instance.forward = types.MethodType(function, instance)
        function = instance
    restore_random_state(call.random_state)
    try:
        args, kwargs = frozen(call.args), frozen(call.kwargs)  # before the clock starts
        with _bounded_and_quiet(limit):
            return function(*args, **kwargs)
    except _Timeout:
        return _FAILED
    except Exception as error:
        return Raised.of(error)


def replay(function: Callable, call: Recorded, extra: dict | None = None) -> Any:
    """``function`` called again as ``call`` was (its arguments, from its random state),
    with the keyword arguments ``extra`` added: its result, a :class:`Raised`, or a marker
    that :func:`same` never matches when it ran past the per-call limit."""
    if extra:
        call = dataclasses.replace(call, kwargs={**call.kwargs, **extra})
    return _run(function, call)


def _array(value: Any) -> np.ndarray | None:
    if isinstance(value, np.ndarray):
        return value
    if hasattr(value, "detach") and hasattr(value, "numpy"):
        value = value.detach().cpu()
        if value.is_complex():
            value = value.to(dtype=value.real.double().dtype.to_complex())
        elif value.is_floating_point():  # bfloat16 has no numpy dtype
            value = value.double()
        return value.numpy()
    return None


def same(got: Any, want: Any) -> bool:
    """The learner's result and an edited reference's agree (floats within a tolerance
    that also absorbs float32 against float64); values that cannot be compared do not."""
    try:
        return _same(got, want)
    except Exception:
        return False


def _same(got: Any, want: Any) -> bool:
    if want is _FAILED or got is _FAILED:
        return False
    if isinstance(want, Raised) or isinstance(got, Raised):
        # the same error with the same sizes in its text: an error without a number
        # ("'float' object has no attribute 'backward'") has too many causes to tell one
        return (
            isinstance(want, Raised)
            and isinstance(got, Raised)
            and want == got
            and any(ch.isdigit() for ch in want.text)
        )
    want_array, got_array = _array(want), _array(got)
    if want_array is not None or got_array is not None:
        if want_array is None or got_array is None or want_array.shape != got_array.shape:
            return False
        if want_array.dtype.kind in "biu" or got_array.dtype.kind in "biu":
            return (
                want_array.dtype.kind in "biu"
                and got_array.dtype.kind in "biu"
                and bool(np.array_equal(want_array, got_array))
            )
        want64, got64 = want_array.astype(np.float64), got_array.astype(np.float64)
        finite = np.abs(want64[np.isfinite(want64)])
        scale = float(finite.max()) if finite.size else 1.0
        return bool(
            np.allclose(
                got64, want64, rtol=1e-4, atol=1e-6 + 1e-5 * min(scale, 1.0), equal_nan=True
            )
        )
    if isinstance(want, (tuple, list)):
        return (
            isinstance(got, (tuple, list))
            and type(got) is type(want)
            and len(got) == len(want)
            and all(_same(g, w) for g, w in zip(got, want, strict=True))
        )
    if isinstance(want, dict):
        return (
            isinstance(got, dict)
            and got.keys() == want.keys()
            and all(_same(got[key], want[key]) for key in want)
        )
    if isinstance(want, float) or isinstance(got, float):
        if not isinstance(got, (int, float)) or not isinstance(want, (int, float)):
            return False
        if math.isnan(want) or math.isnan(got):
            return math.isnan(want) and math.isnan(got)
        return math.isclose(got, want, rel_tol=1e-4, abs_tol=1e-6)
    try:
        return type(got) is type(want) and bool(got == want)
    except Exception:
        return False


def _work(run: Callable[[], Any]) -> tuple[Any, int]:
    """The result of one run, and its work: the number of Python and C function calls it
    made (counted, not timed, so that the same answer always gets the same message)."""
    count = 0

    def profile(frame, event, arg):
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        result = run()
    finally:
        sys.setprofile(previous)
    return result, count


@dataclass
class Search:
    """The edits that reproduce every recorded result, and on how many of the calls the
    learner's result differs from the reference's (the evidence they rest on)."""

    variants: list[Variant]
    wrong: int = 0
    #: the calls whose result is wrong (the most recent first)
    wrong_calls: list[Recorded] = field(default_factory=list)


def matching(function: Callable, calls: list[Recorded], budget: int = _BUDGET) -> list[Variant]:
    """The edits of ``function`` that give the learner's result on every recorded call
    (the calls where the learner's result is wrong tried first, the last one first)."""
    return search_edits(function, calls, budget).variants


def search_edits(
    function: Callable, calls: list[Recorded], budget: int = _BUDGET, later: bool = False
) -> Search:
    """:func:`matching`, with the number of calls whose result is wrong. Silent: a test
    cell that writes to stderr counts as failed in nbgrader. ``later``: the
    :data:`_SECOND_TIER` edits alone, which a check tries only where its message would
    otherwise be a fallback."""
    with torch_state_kept(), warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return _search(function, calls, budget, later)


def _function_modes() -> list:
    import torch

    return [torch._C._get_function_stack_at(i) for i in range(torch._C._len_torch_function_stack())]


@contextlib.contextmanager
def torch_state_kept():
    """PyTorch's global state (grad mode, the stack of function modes the forbidden-API
    watch is on) as it was, whatever happens inside: a run stopped by its time limit can
    stop anywhere, between a no_grad's switch and its restore, or while a mode handling a
    call is off its stack, and the rest of the check (and the next) would run without
    gradients, or without the watch."""
    import torch

    grad = torch.is_grad_enabled()
    modes = _function_modes()
    try:
        yield
    finally:
        torch.set_grad_enabled(grad)
        now = _function_modes()
        if len(now) != len(modes) or any(a is not b for a, b in zip(now, modes, strict=True)):
            while torch._C._len_torch_function_stack():
                torch._C._pop_torch_function_stack()
            for mode in modes:
                torch._C._push_on_torch_function_stack(mode)


def _search(function: Callable, calls: list[Recorded], budget: int, later: bool = False) -> Search:
    if not calls:
        return Search([])
    order = [calls[-1], *calls[:-1]]
    saved = global_random_state()
    try:
        if isinstance(function, type):
            return _search_module(function, order, budget, later)
        # an answer the reference itself reproduces has nothing to diagnose (an edit that
        # changes nothing would "match" it)
        started = time.perf_counter()
        first, work = _work(lambda: _run(function, order[0]))
        limit = min(_PER_CALL_S, max(0.01, _SLOWER * (time.perf_counter() - started)))
        shows = [not same(order[0].result, first)] + [
            not same(call.result, _run(function, call)) for call in order[1:]
        ]
        wrong = sum(shows)
        if not wrong:
            return Search([])
        # the calls whose result is wrong first: an edit that cannot reproduce the
        # mistake is dropped on its first run (on a right result most edits agree)
        order = [call for call, _ in sorted(zip(order, shows, strict=True), key=lambda p: not p[1])]
        wrong_calls = order[:wrong]
        # most edits are told apart on the first call, so the search costs about one run
        # per edit: one that would cost more than the budget is not started (beam search,
        # whole decoding loops), and every one that starts tries every edit
        first, second = _tiers(variants_of(function))
        tier = second if later else first
        if work * len(tier) > budget:
            return Search([], wrong, wrong_calls)
        found: list[Variant] = []
        for variant in tier:
            try:
                edited = variant.function()
            except Exception:
                continue
            if all(same(call.result, _run(edited, call, None, limit)) for call in order):
                found.append(variant)
                if len({v.sentence for v in found}) > _MAX_CANDIDATES:
                    return Search([], wrong, wrong_calls)  # too many explain it: none is named
    finally:
        restore_random_state(saved)
    return Search(found, wrong, wrong_calls)


#: the kinds of edit tried only where a check's message would otherwise be a fallback
#: (``search_edits(..., later=True)``): an operation added to an argument (edits.py) fits
#: few mistakes, and must neither crowd out a search nor a check's own reading
_SECOND_TIER = frozenset({"operation added"})


def _tiers(variants) -> tuple[list[Variant], list[Variant]]:
    """``variants`` split into the edits tried first and the :data:`_SECOND_TIER` ones."""
    first = [v for v in variants if v.kind not in _SECOND_TIER]
    return first, [v for v in variants if v.kind in _SECOND_TIER]


def _search_module(cls: type, order: list[Recorded], budget: int, later: bool = False) -> Search:
    """:func:`_search` for a module class: the edits of its ``forward`` run on reference
    modules holding the learner's weights; the edits of its ``__init__`` build the module
    again (a construction record compares what was built, a call record its output)."""
    instances: list[Any] = []
    loadable = True  # the learner's weights fit the reference: forward edits can match
    for call in order:
        if call.constructed:
            instances.append(None)
            continue
        try:
            instances.append(_instance(cls, call))
        except Exception:
            instances.append(None)
            loadable = False
    original = inspect.unwrap(cls.forward) if "forward" in vars(cls) else None

    def timed(run: Callable[[], Any]) -> tuple[Any, int, float]:
        started = time.perf_counter()
        result, work = _work(run)
        return result, work, min(_PER_CALL_S, max(0.01, _SLOWER * (time.perf_counter() - started)))

    # the work and time limit of one run of each kind: a forward on loaded weights, and
    # a construction (with the load and the forward when the record is a call's)
    first = next((i for i, call in enumerate(order) if instances[i] is not None), None)
    forward_work, limit = 0, _PER_CALL_S
    if first is not None and original is not None:
        _, forward_work, limit = timed(lambda: _run(original, order[first], instances[first]))
    _, build_work, build_limit = timed(lambda: _built_module(cls, order[0], _PER_CALL_S * _SLOWER))
    built = {
        id(call): _built_module(cls, call, build_limit * _SLOWER)
        for call in order
        if call.constructed
    }

    def forward_result(function: Callable, call: Recorded, instance: Any) -> Any:
        if call.constructed:  # an edit of forward is judged on the calls alone (a module
            return call.result  # built with other harmless submodules still loads)
        if instance is None or function is None:
            return _FAILED
        return _run(function, call, instance, limit)

    shows = [
        not same(call.result, built[id(call)])
        if call.constructed
        else not same(call.result, forward_result(original, call, instance))
        for call, instance in zip(order, instances, strict=True)
    ]
    wrong = sum(shows)
    if not wrong:
        return Search([])
    paired = sorted(zip(order, instances, shows, strict=True), key=lambda p: not p[2])
    order, instances = [p[0] for p in paired], [p[1] for p in paired]
    shows = [p[2] for p in paired]
    wrong_calls = [call for call, show in zip(order, shows, strict=True) if show]
    first, second = _tiers(variants_of(cls))
    # the second tier: forward's edits of that kind alone
    variants = [v for v in second if not v.constructor] if later else first
    # each kind of edit is tried only when all of that kind fit the budget
    forwards = sum(not v.constructor for v in variants)
    # an edit of forward can only explain a wrong call (not a wrong construction)
    calls_wrong = any(show for call, show in zip(order, shows, strict=True) if not call.constructed)
    try_forward = (
        calls_wrong and loadable and original is not None and forward_work * forwards <= budget
    )
    try_constructor = build_work * (len(variants) - forwards) <= budget
    if not (try_forward or try_constructor):
        return Search([], wrong, wrong_calls)
    found: list[Variant] = []
    for variant in variants:
        if not (try_constructor if variant.constructor else try_forward):
            continue
        try:
            edited = variant.function()
        except Exception:
            continue
        if variant.constructor:
            agrees = all(
                same(call.result, _built_module(edited, call, build_limit)) for call in order
            )
        else:
            agrees = all(
                same(call.result, forward_result(edited, call, instance))
                for call, instance in zip(order, instances, strict=True)
            )
        if agrees:
            found.append(variant)
            if len({v.sentence for v in found}) > _MAX_CANDIDATES:
                return Search([], wrong, wrong_calls)
    return Search(found, wrong, wrong_calls)


def explained(
    sentences: list[str], count: int, candidates: bool = True, wrong: int | None = None
) -> str:
    """The message for the sentences of the edits that reproduce the learner's results
    on ``count`` calls, ``wrong`` of them wrong: the one edit (said with care when one
    wrong result is all it rests on); with ``candidates``, the two or three; else ""."""
    inputs = "the input this check ran" if count == 1 else f"all {count} inputs this check ran"
    wrong = count if wrong is None else wrong
    if len(sentences) == 1 and wrong >= 2:
        return (
            f"Your code gives what the correct code gives with one change (on {inputs}, "
            f"{wrong} of which show the mistake): it {sentences[0]}."
        )
    if len(sentences) == 1:
        where = "The one result of yours that is wrong" if count > 1 else "Your result"
        return (
            f"{where} is what the correct code gives with one change: it {sentences[0]}. "
            "One wrong result can fit other mistakes too: look there first."
        )
    if candidates and 1 < len(sentences) <= _MAX_CANDIDATES:
        listed = "; or ".join(f"it {sentence}" for sentence in sentences)
        return (
            f"Your code gives what the correct code gives with one change (on {inputs}), "
            f"but these inputs cannot tell which of these it is: {listed}."
        )
    return ""


def diagnose(function: Callable, calls: list[Recorded], candidates: bool = True) -> str:
    """:func:`explained` for the edits of ``function`` matching ``calls``."""
    found = search_edits(function, calls)
    sentences = list(dict.fromkeys(variant.sentence for variant in found.variants))
    return explained(sentences, len(calls), candidates, found.wrong)
