"""The check framework behind every test cell.

A check function (``check_tokenize(tokenize)``) builds a :class:`Checker`, calls
the learner's code with plain values, compares what comes back with the
reference, and either prints a one-line success message or raises
:class:`CheckFailure` with a message written like a teaching assistant would:
what was wrong, on which input, and the likely cause.

Rules every check follows (see CONTRIBUTING.md):

* The learner's code is only *called* (functions) or *constructed, loaded with
  a state dict and called* (modules). Nothing else about it is inspected.
* Inputs come from a generator seeded inside the check
  (:func:`numpy_rng`, :func:`torch_generator`), never from the global random
  stream, so the expected values cannot depend on how the learner's code
  consumes random numbers.
* Type, shape and dtype are checked before values; values are compared with
  explicit tolerances.
* When a value is wrong, known mistakes are tried first ("did you take the
  softmax over the wrong axis?") before a generic "max error" message.
"""

from __future__ import annotations

import contextlib
import textwrap
import traceback
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

__all__ = [
    "CheckFailure",
    "Checker",
    "numpy_rng",
    "torch_generator",
]

_PACKAGE_DIR = __file__.rsplit("/", 1)[0]


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


def numpy_rng(seed: int) -> np.random.Generator:
    """A private numpy generator: checks never touch ``np.random``'s global state."""
    return np.random.default_rng(seed)


def torch_generator(seed: int):
    """A private torch generator: checks never touch ``torch``'s global stream."""
    import torch

    return torch.Generator().manual_seed(seed)


def _learner_frames(exc: BaseException) -> str:
    """Format the part of a traceback that lies outside this package."""
    frames = [
        frame
        for frame in traceback.extract_tb(exc.__traceback__)
        if not frame.filename.startswith(_PACKAGE_DIR)
    ]
    if not frames:
        return ""
    text = "".join(traceback.format_list(frames[-3:]))
    return text + "".join(traceback.format_exception_only(type(exc), exc))


def _short(value: Any, limit: int = 300) -> str:
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


def _as_numpy(value: Any) -> np.ndarray:
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    return np.asarray(value)


class Checker:
    """Collects the checks for one exercise and reports on them.

    ``hidden=True`` marks the hidden run (fresh inputs, more shapes); it only
    changes the success line.
    """

    def __init__(self, exercise: str, *, hidden: bool = False):
        self.exercise = exercise
        self.hidden = hidden
        self.count = 0

    # ------------------------------------------------------------------ basics
    def fail(self, message: str, learner_traceback: str = "") -> None:
        raise CheckFailure(self.exercise, message, learner_traceback)

    def ok(self) -> None:
        self.count += 1

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

    def call(self, fn: Callable, *args: Any, call_repr: str | None = None, **kwargs: Any) -> Any:
        """Call the learner's code and turn any exception into a teaching message.

        Warnings the learner's code issues are shown on stdout instead of
        stderr: nbgrader scores any stderr output in a test cell as a failure.
        """
        call_repr = call_repr or self._call_repr(fn, args, kwargs)
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
            except Exception as exc:
                raise CheckFailure(
                    self.exercise,
                    f"calling `{call_repr}` raised {type(exc).__name__}: {exc}",
                    _learner_frames(exc),
                ) from exc
        for warning in caught:
            print(f"note: `{call_repr}` issued a {warning.category.__name__}: {warning.message}")
        return result

    @staticmethod
    def _call_repr(fn: Callable, args: tuple, kwargs: Mapping) -> str:
        name = getattr(fn, "__name__", type(fn).__name__)
        parts = [_short(a, 60) for a in args] + [f"{k}={_short(v, 60)}" for k, v in kwargs.items()]
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
        hint: str = "",
        mistakes: Mapping[str, Any] | None = None,
    ) -> None:
        """Exact equality (lists, dicts, ints, integer arrays)."""
        if self._equal(got, expected):
            self.ok()
            return
        for message, wrong in (mistakes or {}).items():
            if self._equal(got, wrong):
                self.fail(f"{what} returned {_short(got)}, expected {_short(expected)}. {message}")
        self.fail(f"{what} returned {_short(got)}, expected {_short(expected)}. {hint}".strip())

    @staticmethod
    def _equal(got: Any, expected: Any) -> bool:
        if isinstance(expected, np.ndarray) or hasattr(expected, "detach"):
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
        hint: str = "",
        mistakes: Mapping[str, Any] | None = None,
    ) -> None:
        """Numerical closeness; shapes must already have been checked.

        ``mistakes`` maps a diagnosis ("did you scale by d_model instead of
        d_k?") to the value that mistake would produce (or a zero-argument
        callable computing it). The first one the learner's value matches is
        reported.
        """
        got_np = _as_numpy(got).astype(np.float64)
        exp_np = _as_numpy(expected).astype(np.float64)
        if got_np.shape != exp_np.shape:
            self.fail(f"{what} should have shape {exp_np.shape}, but it has shape {got_np.shape}.")
        if not np.isfinite(got_np).all() and np.isfinite(exp_np).all():
            bad = np.argwhere(~np.isfinite(got_np))[0]
            self.fail(
                f"{what} contains NaN or inf (first at index {tuple(int(i) for i in bad)}) "
                f"where the expected values are all finite. {hint}".strip()
            )
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
