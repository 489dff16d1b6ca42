"""A step whose result never reaches the output: the learner's result is exactly what it
would be without the step (a mask never applied, a rescale never kept).

Two causes give that one prediction, and nothing in the output tells them apart: the step
is not run at all (its argument ignored), or it is run and its result thrown away, the
usual slip with PyTorch's out-of-place operations (``masked_fill``, ``where``, ``clamp``,
``mul``...) that return a new tensor and leave their input as it was. The message names
both, with the idiom that keeps the result.
"""

from __future__ import annotations


def never_applied(step: str, out_of_place: str, kept: str, ignored: str = "") -> str:
    """The diagnosis for an output equal to the one without ``step``.

    ``step``: what never reached the output ("the causal mask"); ``out_of_place``: the
    out-of-place call a learner would write for it ("scores.masked_fill(future,
    float('-inf'))"); ``kept``: the same with its result kept; ``ignored``: the argument
    whose being ignored gives the same output ("causal=True"), or "".
    """
    return (
        f"Your result is exactly the one without {step}: {step} never reached it. Either "
        + (f"{ignored} was ignored (the step never ran), or " if ignored else "it never ran, or ")
        + f"its result was thrown away: {out_of_place} is not in place, it returns a new "
        "tensor and leaves its input as it was. Keep the result: "
        f"{kept} (or the in-place form, whose name ends in _)."
    )
