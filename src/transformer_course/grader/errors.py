"""The grader's own exceptions: what ends a request, an exercise or a submission.

They are BaseExceptions, so that they pass through ``Checker.call`` (which turns ordinary
exceptions into teaching messages) straight to the grader. Every grader module may import
this one; it imports nothing of the grader.
"""

from __future__ import annotations

__all__ = ["CheckProblem", "GiveUp", "SandboxAbort"]


class SandboxAbort(BaseException):
    """The learner process timed out, died or misbehaved during a request.

    A BaseException, so that it passes through ``Checker.call`` (which turns
    ordinary exceptions into teaching messages) straight to the grader."""

    def __init__(self, kind: str, message: str, recovered: bool = False):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.recovered = recovered  # interrupted, and the process is still usable


class GiveUp(BaseException):
    """The submission used up its time or its sandbox restarts."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class CheckProblem(BaseException):
    """The check asked for something the sandbox channel cannot do (a grader or check bug)."""
