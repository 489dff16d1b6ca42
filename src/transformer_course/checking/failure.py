"""How a check fails: :class:`CheckFailure`, and the part of a traceback that is the
learner's own code (the check library's frames, the standard library's and installed
packages' are left out)."""

from __future__ import annotations

import inspect
import sysconfig
import textwrap
import traceback
from pathlib import Path
from types import TracebackType

from transformer_course.checking.formatting import clip

__all__ = [
    "CheckFailure",
    "course_origin",
    "innermost_learner_traceback",
    "learner_frames",
    "learner_source",
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

    def with_cause(self, cause: str) -> CheckFailure:
        """The same failure, its first line (what went wrong) kept and the generic
        rest replaced by ``cause``, found by a further call that told the candidates apart."""
        return CheckFailure(
            self.exercise, self.message.split("\n")[0] + cause, self.learner_traceback
        )

    def _render_traceback_(self) -> list[str]:  # used by IPython / ipykernel
        lines = [f"\x1b[1;31m✗ {self.exercise}: not yet right\x1b[0m", ""]
        for paragraph in self.message.split("\n"):
            lines.extend(textwrap.wrap(paragraph, 78) or [""])
        if self.learner_traceback:
            lines += ["", "Where your code raised it:", self.learner_traceback.rstrip()]
        return lines


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


def innermost_learner_traceback(exc: BaseException) -> TracebackType | None:
    """The traceback entry of the learner's innermost frame (the last of theirs the error
    passed through); None when the learner's code is not on the traceback."""
    found = None
    tb = exc.__traceback__
    while tb is not None:
        if _is_learner_frame(tb.tb_frame.f_code.co_filename):
            found = tb
        tb = tb.tb_next
    return found


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
    return clip(text + "".join(traceback.format_exception_only(type(exc), exc)), 2000)


def learner_lines(exc: BaseException) -> str:
    """The learner's lines on the traceback (``learner_frames``), comments left out: what
    a hint may read for the code that raised."""
    return "\n".join(part.split("#")[0] for part in learner_frames(exc).splitlines())


def learner_source(exc: BaseException) -> str:
    """The whole source of every function of the learner's that the traceback passes
    through (not only the failing lines): where a value that fails later was made."""
    texts: list[str] = []
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if _is_learner_frame(code.co_filename):
            try:
                text = "".join(inspect.getsourcelines(code)[0])
            except (OSError, TypeError, IndexError):
                text = ""
            if text and text not in texts:
                texts.append(text)
        tb = tb.tb_next
    return "\n".join(texts)


def course_origin(exc: BaseException) -> str:
    """``module.function`` of the course code (not the checks) that raised ``exc`` after
    the learner's code called it (the reference KVCache refusing a chunk, say); "" when
    the error comes from the learner's code, a library, or no learner code is involved."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames or not any(_is_learner_frame(frame.filename) for frame in frames):
        return ""
    last = frames[-1]
    if not last.filename.startswith(_PACKAGE_DIR) or "/checking/" in last.filename:
        return ""
    module = Path(last.filename).stem
    return f"{module}.{last.name}"


def code_after_placeholder(exc: BaseException) -> str:
    """For the NotImplementedError of the notebook's placeholder line (``raise
    NotImplementedError()``) raised in the learner's function: the first line of code that
    follows it in the same function, which the raise makes unreachable (round 20,
    blind19b-q-score-scale-raise-left-above-answer: the answer written under the
    placeholder was told "not implemented yet"); "" when nothing follows it (the
    placeholder alone), or the source cannot be read (code that crossed a sandbox)."""
    import inspect

    found = innermost_learner_traceback(exc)
    if found is None:
        return ""
    try:
        lines, first = inspect.getsourcelines(found.tb_frame.f_code)
    except Exception:  # no source (code that crossed a sandbox): the general message stays
        return ""
    at = found.tb_lineno - first  # the raising line's index in ``lines``
    if not (0 <= at < len(lines)) or "NotImplementedError" not in lines[at]:
        return ""
    indent = len(lines[at]) - len(lines[at].lstrip())
    for line in lines[at + 1 :]:
        code = line.split("#")[0].strip()
        if not code:
            continue
        if len(line) - len(line.lstrip()) < indent:
            return ""  # the block the raise sits in ended: the rest is reachable
        return code
    return ""


def course_call_on_a_row(exc: BaseException) -> str:
    """For an error raised inside the course's code called by the learner's: when the
    tensor that code received is one row of a tensor of one more axis in the learner's
    frames (a loop or comprehension over a batch, calling a function that takes the whole
    batch), the sentence that says so (round 20, blind12k-decmask-padding-mask-per-row:
    padding_mask called on each 1-D row of tgt_ids, told only that the course's code was
    handed something outside its contract); "" otherwise."""
    import torch

    if not course_origin(exc):
        return ""
    learner, tb, called = [], exc.__traceback__, None
    while tb is not None:
        if _is_learner_frame(tb.tb_frame.f_code.co_filename):
            learner.append(tb.tb_frame)
        elif learner and called is None:
            called = tb.tb_frame  # the first course frame the learner's code entered
        tb = tb.tb_next
    if called is None or not learner:
        return ""
    code = called.f_code
    arguments = [(name, called.f_locals.get(name)) for name in code.co_varnames[: code.co_argcount]]
    for name, value in arguments:
        if not isinstance(value, torch.Tensor) or value.dim() == 0:
            continue
        for frame in reversed(learner):
            for whole_name, whole in frame.f_locals.items():
                if (
                    isinstance(whole, torch.Tensor)
                    and whole.dim() == value.dim() + 1
                    and tuple(whole.shape[1:]) == tuple(value.shape)
                    and any(torch.equal(row, value) for row in whole)
                ):
                    return (
                        f"Your code calls {code.co_name} on one row of {whole_name} "
                        f"{tuple(whole.shape)} at a time (a loop over the batch): its "
                        f"argument {name} is a {value.dim()}-D {tuple(value.shape)} tensor, "
                        f"where {code.co_name} takes the whole batch, {whole.dim()}-D, and "
                        f"handles every row itself. Call it once, on {whole_name} as it is."
                    )
    return ""
