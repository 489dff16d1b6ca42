"""The check toolkit behind every test cell.

A check function (``check_tokenize(tokenize)``) opens a :class:`Checker`, calls
the learner's code with plain values, compares what comes back with the
reference, and either prints a one-line success message or raises
:class:`CheckFailure` with a message written like a teaching assistant would:
what was wrong, on which input, and the likely cause.

Rules every check follows (see CONTRIBUTING.md):

* The learner's code is only *called* (functions) or *constructed, loaded with
  a state dict, switched between train and eval, and called* (modules), always
  through :meth:`Checker.call`. Nothing else about it is inspected. This is
  what lets the grader run learner code in a separate, sandboxed process.
* Inputs come from a generator seeded inside the check
  (:func:`numpy_rng`, :func:`torch_generator`), never from the global random
  stream; ``with Checker(...) as c:`` restores the global streams afterwards,
  whatever the learner's code drew from them.
* Type, shape and dtype are checked before values; values are compared with a
  tolerance that fits their dtype (:func:`tolerance`).
* When a value is wrong, known mistakes are tried first ("did you take the
  softmax over the wrong axis?") before a generic "largest difference" message.

Submodules: :mod:`.attention` (the shared diagnosis of attention weights),
:mod:`.modules` (building a learner's ``nn.Module`` from a state dict),
:mod:`.quiz` (concept questions).
"""

from __future__ import annotations

import contextlib
import inspect
import random
import sysconfig
import textwrap
import traceback
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "GENERIC_HINTS",
    "CheckFailure",
    "Checker",
    "dtype_name",
    "numpy_rng",
    "short",
    "tolerance",
    "torch_generator",
]

_PACKAGE_DIR = str(Path(__file__).resolve().parents[1])


class CheckFailure(AssertionError):
    """A check did not pass. ``str(error)`` is the message for the learner.

    It subclasses ``AssertionError`` so that nbgrader, pytest and plain Python
    all treat it as a failed test. In Jupyter it renders without the check
    library's own stack frames (IPython calls ``_render_traceback_``): the
    learner sees the message, and the traceback of *their* code if it raised.
    """

    def __init__(self, exercise: str, message: str, learner_traceback: str = ""):
        self.exercise = exercise
        self.message = message
        self.learner_traceback = learner_traceback
        super().__init__(f"{exercise}: {message}")

    def _render_traceback_(self) -> list[str]:  # used by IPython / ipykernel
        lines = [f"\x1b[1;31m✗ {self.exercise}: not yet right\x1b[0m", ""]
        for paragraph in self.message.split("\n"):
            lines.extend(textwrap.wrap(paragraph, 78) or [""])
        if self.learner_traceback:
            lines += ["", "Where your code raised it:", self.learner_traceback.rstrip()]
        return lines


# ------------------------------------------------------------------------- randomness
def numpy_rng(seed: int) -> np.random.Generator:
    """A private numpy generator: checks never touch ``np.random``'s global state."""
    return np.random.default_rng(seed)


def torch_generator(seed: int):
    """A private torch generator: checks never touch ``torch``'s global stream."""
    import torch

    return torch.Generator().manual_seed(seed)


def _global_random_state() -> tuple:
    import torch

    return random.getstate(), np.random.get_state(), torch.get_rng_state()  # noqa: NPY002


def _restore_random_state(state: tuple) -> None:
    import torch

    random.setstate(state[0])
    np.random.set_state(state[1])  # noqa: NPY002
    torch.set_rng_state(state[2])


# ----------------------------------------------------------------- learner tracebacks
def _library_dirs() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    dirs = {paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in paths}
    return (_PACKAGE_DIR, *sorted(dirs))


_LIBRARY_DIRS = _library_dirs()


def _is_learner_frame(filename: str) -> bool:
    """A frame of the learner's own code: not this package, not the standard library,
    not an installed package (torch's module.py, numpy's internals), not frozen code."""
    if filename.startswith("<frozen") or filename.startswith("<__array_function__"):
        return False
    return not any(filename.startswith(directory) for directory in _LIBRARY_DIRS)


def learner_frames(exc: BaseException) -> str:
    """The part of a traceback that is the learner's own code, and the error line."""
    frames = [
        frame
        for frame in traceback.extract_tb(exc.__traceback__)
        if _is_learner_frame(frame.filename)
    ]
    if not frames:
        return ""
    text = "".join(traceback.format_list(frames[-3:]))
    return text + "".join(traceback.format_exception_only(type(exc), exc))


# ---------------------------------------------------------------------- formatting
def short(value: Any, limit: int = 300) -> str:
    """A compact repr for messages: small arrays show their values, large ones their shape."""
    if hasattr(value, "shape") and hasattr(value, "dtype") and getattr(value, "ndim", 0) >= 1:
        array = _as_numpy(value)
        if array.size <= 30 and array.dtype != object:
            body = np.array2string(array, precision=4, separator=", ", suppress_small=True)
            text = f"{type(value).__name__}({body}, dtype={value.dtype})"
        else:
            text = f"<{type(value).__name__} shape={tuple(value.shape)} dtype={value.dtype}>"
    else:
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


_short = short  # the name the check modules have used


def _as_numpy(value: Any) -> np.ndarray:
    if hasattr(value, "detach"):
        value = value.detach().cpu()
        if str(value.dtype) == "torch.bfloat16":
            value = value.float()
        value = value.numpy()
    return np.asarray(value)


def dtype_name(dtype: Any) -> str:
    """ "float32" for np.float32, np.dtype("float32"), "float32" and torch.float32 alike."""
    if isinstance(dtype, str):
        return dtype.replace("torch.", "")
    if type(dtype).__module__.startswith("torch"):
        return str(dtype).replace("torch.", "")
    try:
        return np.dtype(dtype).name
    except TypeError:
        return str(dtype)


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


# ---------------------------------------------------------------------- tolerances
_TOLERANCES = {  # dtype name -> (rtol, atol)
    "float64": (1e-6, 1e-9),
    "float32": (1e-4, 1e-5),
    "float16": (1e-2, 1e-3),
    "bfloat16": (2e-2, 1e-2),
}


def tolerance(*dtypes: Any) -> dict[str, float]:
    """``{"rtol": ..., "atol": ...}`` fitting the least precise of ``dtypes``.

    Pass the dtype of the learner's result (and of the inputs): a float32 answer
    is compared with float32 tolerances even where the reference works in float64.
    """
    worst = (1e-6, 1e-9)
    for dtype in dtypes:
        name = str(dtype).replace("torch.", "")
        worst = max(worst, _TOLERANCES.get(name, (1e-6, 1e-9)))
    return {"rtol": worst[0], "atol": worst[1]}


# ------------------------------------------------------------------- input snapshots
_OPAQUE = object()  # a value whose contents are not compared (a module, an optimizer, ...)
_PLAIN = (int, float, complex, str, bytes, bool, type(None))


def _is_tensor(value: Any) -> bool:
    return hasattr(value, "detach") and hasattr(value, "clone") and hasattr(value, "dtype")


def _snapshot(value: Any) -> Any:
    """A deep copy of the data in ``value`` (arrays, tensors, and containers of them)."""
    if isinstance(value, np.ndarray):
        return value.copy()
    if _is_tensor(value):
        return value.detach().clone()
    if isinstance(value, list | tuple):
        return (
            type(value)(_snapshot(item) for item in value)
            if isinstance(value, list)
            else tuple(_snapshot(item) for item in value)
        )
    if isinstance(value, dict):
        return {key: _snapshot(item) for key, item in value.items()}
    if isinstance(value, set | frozenset):
        return set(value)
    if isinstance(value, (*_PLAIN, np.generic)):
        return value
    return _OPAQUE


def _same(value: Any, snapshot: Any) -> bool:
    """Does ``value`` still hold what ``snapshot`` recorded?"""
    if snapshot is _OPAQUE:
        return True
    if isinstance(snapshot, np.ndarray):
        if not isinstance(value, np.ndarray) or value.shape != snapshot.shape:
            return False
        if value.dtype.kind in "fc":
            return bool(np.array_equal(value, snapshot, equal_nan=True))
        return bool(np.array_equal(value, snapshot))
    if _is_tensor(snapshot):
        import torch

        now = value.detach()
        if now.shape != snapshot.shape or now.dtype != snapshot.dtype:
            return False
        if now.is_floating_point():
            return bool(torch.equal(now.isnan(), snapshot.isnan())) and bool(
                torch.equal(now.nan_to_num(0.0), snapshot.nan_to_num(0.0))
            )
        return bool(torch.equal(now, snapshot))
    if isinstance(snapshot, list | tuple):
        return (
            isinstance(value, list | tuple)
            and len(value) == len(snapshot)
            and all(_same(item, copy) for item, copy in zip(value, snapshot, strict=True))
        )
    if isinstance(snapshot, dict):
        return (
            isinstance(value, dict)
            and list(value) == list(snapshot)
            and all(_same(value[key], copy) for key, copy in snapshot.items())
        )
    if isinstance(snapshot, set):
        return value == snapshot
    if isinstance(snapshot, float) and snapshot != snapshot:  # NaN
        return isinstance(value, float) and value != value
    return type(value) is type(snapshot) and bool(value == snapshot)


# ------------------------------------------------------------------------- hints
#: Hints added to the message when the learner's code raises an error whose text
#: contains the key. Every check gets these; an exercise can add its own.
GENERIC_HINTS: dict[str, str] = {
    "view size is not compatible": (
        "After a transpose (or another reordering of axes) a tensor is no longer laid out "
        "row by row in memory, so `.view` cannot regroup its axes. Use `.reshape(...)` (it "
        "copies only when it must) or `.contiguous().view(...)`."
    ),
    "Can't call numpy() on Tensor that requires grad": (
        "Stay in torch (no .numpy()): later lessons train through this code, and gradients "
        "only flow through torch operations."
    ),
    "Boolean value of Tensor with more than one value is ambiguous": (
        "An `if` (or `and`/`or`) on a whole tensor is ambiguous: use element-wise operations "
        "instead, such as torch.where(...), masked_fill(...), & and |."
    ),
    "The truth value of an array with more than one element is ambiguous": (
        "An `if` (or `and`/`or`) on a whole array is ambiguous: use element-wise operations "
        "instead, such as np.where(...), & and |."
    ),
    "expected m1 and m2 to have the same dtype": (
        "A matrix product mixed two dtypes (float32 and float64, say). Keep the dtype of the "
        "inputs: avoid .double()/.float() and tensors created with a fixed dtype."
    ),
    "must have the same dtype": (
        "Two tensors of different dtypes met in one operation. Keep the dtype of the inputs: "
        "avoid .double()/.float() and new tensors created with a fixed dtype (pass "
        "dtype=x.dtype, or use torch.zeros_like(x))."
    ),
}

Hint = tuple[str | type | Callable[[BaseException], bool], str]


def _matching_hints(exc: BaseException, hints: Iterable[Hint]) -> list[str]:
    text = f"{type(exc).__name__}: {exc}"
    found = []
    for when, hint in hints:
        if isinstance(when, str):
            hit = when in text
        elif isinstance(when, type):
            hit = isinstance(exc, when)
        else:
            try:
                hit = bool(when(exc))
            except Exception:
                hit = False
        if hit and hint not in found:
            found.append(hint)
    return found


# --------------------------------------------------------------------------- Checker
class Checker:
    """Collects the checks for one exercise and reports on them.

    Use it as a context manager::

        with Checker("softmax", hidden=hidden) as c:
            got = c.call(softmax, x, axis=-1)
            c.expect_close(got, expected, "softmax(x)")

    On leaving the block the global random streams (``random``, ``np.random``,
    ``torch``) are put back as they were, and, if nothing failed, the success line
    is printed. ``hidden=True`` marks the hidden run (fresh inputs, more shapes);
    it only changes the success line.
    """

    def __init__(self, exercise: str, *, hidden: bool = False):
        self.exercise = exercise
        self.hidden = hidden
        self.count = 0
        self._notes: list[str] = []
        self._random_state: tuple | None = None
        self._threads = 1

    def __enter__(self) -> Checker:
        import torch

        self._random_state = _global_random_state()
        # Checks compute on tiny tensors, where several threads only cost (10x under load).
        self._threads = torch.get_num_threads()
        torch.set_num_threads(1)
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        import torch

        torch.set_num_threads(self._threads)
        if self._random_state is not None:
            _restore_random_state(self._random_state)
        if exc_type is None:
            self.done()
        return False

    # ------------------------------------------------------------------ basics
    def fail(self, message: str, learner_traceback: str = "") -> None:
        raise CheckFailure(self.exercise, message, learner_traceback)

    def ok(self) -> None:
        self.count += 1

    def note(self, message: str) -> None:
        """Tell the learner something worth knowing that is *not* a mistake (once)."""
        if message not in self._notes:
            self._notes.append(message)
            print(f"note ({self.exercise}): {message}")

    def done(self) -> None:
        kind = "hidden" if self.hidden else "visible"
        print(f"✓ {self.exercise}: all {self.count} {kind} checks passed.")

    def require_callable(self, fn: Any, name: str | None = None) -> None:
        name = name or self.exercise
        if not callable(fn):
            self.fail(
                f"expected `{name}` to be a function (or class), got {type(fn).__name__}. "
                "Did you overwrite it with a value in a later cell?"
            )

    # -------------------------------------------------------------------- calls
    def call(
        self,
        fn: Callable,
        *args: Any,
        call_repr: str | None = None,
        hints: Mapping[str, str] | Sequence[Hint] = (),
        unchanged: bool = True,
        mutation_hint: str = "",
        **kwargs: Any,
    ) -> Any:
        """Call the learner's code and turn any exception into a teaching message.

        * ``hints``: extra advice for errors whose text contains a key (or matching
          an exception type or predicate); :data:`GENERIC_HINTS` always apply.
        * ``unchanged``: fail if the call changed an argument in place (arrays,
          tensors, lists, dicts), with ``mutation_hint`` as advice.
        * Warnings the learner's code issues are shown on stdout instead of
          stderr: nbgrader scores any stderr output in a test cell as a failure.
        """
        call_repr = call_repr or self._call_repr(fn, args, kwargs)
        hint_list = list(hints.items()) if isinstance(hints, Mapping) else list(hints)
        snapshots = (
            [(name, value, _snapshot(value)) for name, value in self._named_args(fn, args, kwargs)]
            if unchanged
            else []
        )
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = fn(*args, **kwargs)
            except NotImplementedError as exc:
                raise CheckFailure(
                    self.exercise,
                    f"`{call_repr}` raised NotImplementedError: this exercise is not "
                    "implemented yet. Replace the line `raise NotImplementedError()` "
                    "with your code, run that cell, then run this test cell again.",
                ) from exc
            except CheckFailure:
                raise
            except Exception as exc:
                advice = _matching_hints(exc, [*hint_list, *GENERIC_HINTS.items()])
                raise CheckFailure(
                    self.exercise,
                    f"calling `{call_repr}` raised {type(exc).__name__}: {exc}"
                    + "".join(f"\n{text}" for text in advice),
                    learner_frames(exc),
                ) from exc
        for warning in caught:
            print(f"note: `{call_repr}` issued a {warning.category.__name__}: {warning.message}")
        for name, value, snapshot in snapshots:
            if not _same(value, snapshot):
                self.fail(
                    f"`{call_repr}` changed its argument {name} in place. The caller's data "
                    "must stay as it was: compute into a new array or tensor (e.g. "
                    "`x = x - m` rather than `x -= m`, no `x[...] = ...`, no `.append` on "
                    f"a list you were given). {mutation_hint}".strip()
                )
        return result

    @staticmethod
    def _named_args(fn: Callable, args: tuple, kwargs: Mapping) -> list[tuple[str, Any]]:
        """(description, value) for every argument, named after the parameter if possible."""
        positional = [(f"(the {_ordinal(i + 1)} one)", value) for i, value in enumerate(args)]
        fallback = positional + [(f"`{key}`", value) for key, value in kwargs.items()]
        target = getattr(fn, "forward", fn) if hasattr(fn, "parameters") else fn  # a module
        try:
            signature = inspect.signature(target)
            bound = signature.bind(*args, **kwargs)
        except (TypeError, ValueError):
            return fallback
        named = []
        for name, value in bound.arguments.items():
            kind = signature.parameters[name].kind
            if kind is inspect.Parameter.VAR_POSITIONAL:
                return fallback
            if kind is inspect.Parameter.VAR_KEYWORD:
                named += [(f"`{key}`", item) for key, item in value.items()]
            else:
                named.append((f"`{name}`", value))
        return named

    @staticmethod
    def _call_repr(fn: Callable, args: tuple, kwargs: Mapping) -> str:
        name = getattr(fn, "__name__", type(fn).__name__)
        parts = [short(a, 60) for a in args] + [f"{k}={short(v, 60)}" for k, v in kwargs.items()]
        return f"{name}({', '.join(parts)})"

    # ------------------------------------------------------------ structure
    def expect_type(
        self, value: Any, types: type | tuple[type, ...], what: str, hint: str = ""
    ) -> None:
        if not isinstance(value, types):
            names = (
                " or ".join(t.__name__ for t in types)
                if isinstance(types, tuple)
                else types.__name__
            )
            if value is None:
                hint = f"Did you forget the `return` statement? {hint}"
            self.fail(
                f"{what} should be a {names}, but it is a {type(value).__name__}. {hint}".strip()
            )
        self.ok()

    def expect_shape(self, value: Any, shape: Iterable[int], what: str, hint: str = "") -> None:
        shape = tuple(shape)
        got = tuple(getattr(value, "shape", np.shape(value)))
        if got != shape:
            self.fail(f"{what} should have shape {shape}, but it has shape {got}. {hint}".strip())
        self.ok()

    def expect_dtype(self, value: Any, dtype: Any, what: str, hint: str = "") -> None:
        got = value.dtype
        ok = got == dtype
        if not ok and isinstance(dtype, type | np.dtype | str):
            with contextlib.suppress(TypeError):
                ok = np.dtype(got) == np.dtype(dtype)
        if not ok:
            self.fail(f"{what} should have dtype {dtype}, but it has dtype {got}. {hint}".strip())
        self.ok()

    def expect_floating(self, value: Any, what: str, preferred: Any = None) -> None:
        """Any floating-point dtype is accepted (the concept does not fix one). When it
        differs from ``preferred``, the learner gets a note (once per dtype), not a failure."""
        name = dtype_name(value.dtype)
        floating = getattr(value.dtype, "is_floating_point", None)
        if floating is None:
            floating = np.issubdtype(np.dtype(value.dtype), np.floating)
        if not floating:
            self.fail(
                f"{what} should hold floating-point numbers, but its dtype is {name}. "
                "Integer (or bool) results lose the fractions: create the result as a float "
                "array or tensor."
            )
        if preferred is not None and name != dtype_name(preferred):
            self.note(
                f"your result is {name}; the reference gives {dtype_name(preferred)}. That is "
                "fine here: values are compared with a tolerance that fits your dtype."
            )
        self.ok()

    def expect_integer_dtype(self, value: Any, what: str) -> None:
        if not np.issubdtype(_as_numpy(value).dtype, np.integer):
            self.fail(
                f"{what} should hold integers (token ids), but its dtype is {value.dtype}. "
                "Pass `dtype=np.int64` (or another integer type) when you create the array."
            )
        self.ok()

    # ---------------------------------------------------------------- values
    def expect_equal(
        self,
        got: Any,
        expected: Any,
        what: str,
        hint: str | Callable[[], str] = "",
        mistakes: Mapping[str, Any] | None = None,
    ) -> None:
        """Exact equality (lists, dicts, ints, integer and bool arrays or tensors).

        ``mistakes`` maps a diagnosis to the value that mistake gives (or a
        zero-argument callable computing it); the first one ``got`` equals is reported.
        ``hint`` may be a callable, evaluated only when nothing else explains the value.
        """
        if self._equal(got, expected):
            self.ok()
            return
        for message, wrong in (mistakes or {}).items():
            wrong_value = wrong() if callable(wrong) else wrong
            if wrong_value is not None and self._equal(got, wrong_value):
                self.fail(f"{what} returned {short(got)}, expected {short(expected)}. {message}")
        hint = hint() if callable(hint) else hint
        self.fail(f"{what} returned {short(got)}, expected {short(expected)}. {hint}".strip())

    @staticmethod
    def _equal(got: Any, expected: Any) -> bool:
        if isinstance(expected, np.ndarray) or hasattr(expected, "detach"):
            if not (isinstance(got, np.ndarray) or hasattr(got, "detach")):
                return False
            got_np, exp_np = _as_numpy(got), _as_numpy(expected)
            return got_np.shape == exp_np.shape and bool(np.array_equal(got_np, exp_np))
        try:
            return bool(got == expected)
        except (ValueError, TypeError, RuntimeError):
            return False

    def expect_close(
        self,
        got: Any,
        expected: Any,
        what: str,
        *,
        rtol: float = 1e-5,
        atol: float = 1e-6,
        hint: str | Callable[[], str] = "",
        mistakes: Mapping[str, Any] | None = None,
    ) -> None:
        """Numerical closeness; shapes must already have been checked.

        ``mistakes`` maps a diagnosis ("did you scale by d_model instead of
        d_k?") to the value that mistake would produce (or a zero-argument
        callable computing it, or None when it cannot happen here). The first
        one the learner's value matches is reported. ``hint`` may be a callable,
        evaluated only when no mistake matches.
        """
        got_np = _as_numpy(got).astype(np.float64)
        exp_np = _as_numpy(expected).astype(np.float64)
        if got_np.shape != exp_np.shape:
            self.fail(f"{what} should have shape {exp_np.shape}, but it has shape {got_np.shape}.")
        if np.allclose(got_np, exp_np, rtol=rtol, atol=atol, equal_nan=True):
            self.ok()
            return
        for message, wrong in (mistakes or {}).items():
            wrong_value = wrong() if callable(wrong) else wrong
            if wrong_value is None:
                continue
            wrong_np = _as_numpy(wrong_value).astype(np.float64)
            if wrong_np.shape == got_np.shape and np.allclose(
                got_np, wrong_np, rtol=max(rtol, 1e-4), atol=max(atol, 1e-5), equal_nan=True
            ):
                self.fail(f"{what} is not what the reference gives. {message}")
        hint = hint() if callable(hint) else hint
        if not np.isfinite(got_np).all() and np.isfinite(exp_np).all():
            bad = np.argwhere(~np.isfinite(got_np))[0]
            self.fail(
                f"{what} contains NaN or inf (first at index {tuple(int(i) for i in bad)}) "
                f"where the expected values are all finite. {hint}".strip()
            )
        diff = np.abs(np.nan_to_num(got_np - exp_np, nan=np.inf))
        worst = np.unravel_index(int(np.argmax(diff)), diff.shape) if diff.ndim else ()
        where = f" at index {tuple(int(i) for i in worst)}" if diff.ndim else ""
        self.fail(
            f"{what} differs from the reference: largest difference {float(diff.max()):.3g}{where} "
            f"(yours {float(got_np[worst]):.6g}, expected {float(exp_np[worst]):.6g}). {hint}".strip()
        )

    def expect_true(self, condition: bool, message: str) -> None:
        if not condition:
            self.fail(message)
        self.ok()
