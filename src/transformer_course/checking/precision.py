"""A formula right on paper that loses its precision in float32.

Some formulas equal the right one in exact arithmetic and differ in floating point: the
variance as E[x²] - E[x]² (the mean of the squares minus the squared mean) cancels
catastrophically when a token's mean is large next to its spread, a softmax without its
maximum subtracted overflows, a log of a product underflows. Ordinary inputs and float64
hide them (blind12n-ln-variance-from-second-moment passed every check). A check that
gives an input built to expose such a loss, and sees a wrong float32 result, runs the
learner's module once more in float64 (a deep copy, the same weights): when that result
is right, the code computes the right function and its arithmetic is what fails, which
:func:`right_in_float64` tells.

A module that cannot be copied or cast (the grader's proxies) gives None: no claim.

The other way round, a step computed in a narrower dtype than the inputs' (``.half()``,
``.to(torch.bfloat16)``, an autocast block: mixed-precision habits) gives a result a hair
from the right one, by no formula: :func:`narrow_rounding` tells it from a formula's slip
by the evidence a check has (a change of the input that the right function ignores moves
the result by a hair; weights fitted on two shapes differ by a hair), and
:data:`NARROW_DTYPE_CAUSE` says it (round 34: a loss computed in bfloat16 was told that it
read the raw logits, and its float16 gradient that a term was detached).

Where the check knows the right function, the rounding can be reproduced instead of
inferred: :func:`narrow_variants` recomputes it with some of its inputs rounded to
bfloat16 or float16 (each group of inputs, each dtype, and the whole computation in that
dtype), so a check can state WHICH inputs were rounded, and to which dtype, when exactly
one variant gives the learner's values on every input (blind30c-rot-tables-rounded-to-
bfloat16: RoPE's tables cast to bfloat16 before rotating a float32 x was told "largest
difference"). The two dtypes round differently (8 and 11 significant bits), and rounding
x differs from rounding the tables, so on float32 inputs the variants tell one another
apart.
"""

from __future__ import annotations

import contextlib
import copy
import io
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch

__all__ = [
    "NARROW_DTYPES",
    "NARROW_DTYPE_CAUSE",
    "narrow_dtype_grid",
    "narrow_rounding",
    "narrow_variants",
    "right_in_float64",
]

#: the dtypes that mixed-precision code rounds to, by name
NARROW_DTYPES = {"bfloat16": torch.bfloat16, "float16": torch.float16}

#: the cause, for a check's message, of a result a hair from the right one by no formula
NARROW_DTYPE_CAUSE = (
    "That is the rounding of a lower precision: a step on the way runs in float16 or "
    "bfloat16 (.half(), .bfloat16(), .to(torch.bfloat16), an autocast block) or on rounded "
    "values. Compute in the inputs' own dtype."
)


def narrow_rounding(value: float, right: float, *moved: float, rel: float = 1e-2) -> bool:
    """Whether ``value`` is within ``rel`` of ``right`` (relative) and every one of
    ``moved`` (the changes of the result under changes of the input that the right
    function ignores, or the differences of weights fitted on two inputs) is within ``rel``
    of ``value``'s size: a hair off and never the same hair, as a narrow dtype's rounding
    is, where a formula's slip moves the result by its own amount."""
    size = max(abs(value), abs(right))
    if size == 0 or abs(value - right) > rel * size:
        return False
    return all(abs(m) <= rel * size for m in moved)


def narrow_dtype_grid(got: torch.Tensor, expected: torch.Tensor) -> torch.dtype | None:
    """The narrow dtype (bfloat16, then float16) that a wider ``got`` came through: every
    finite entry of ``got`` is a number of that dtype (it survives a cast there and back
    unchanged), at least two entries of ``expected`` are not, and ``got`` is within that
    dtype's rounding of ``expected`` (a few of its epsilons, relative, or of the largest
    entry). A result cast back from float16 shows it by its values alone: a wide-dtype
    formula lands on that grid by no chance. None otherwise."""
    if got.dtype not in (torch.float32, torch.float64) or got.shape != expected.shape:
        return None
    g = got.detach()
    e = expected.detach().to(g.dtype)
    finite = torch.isfinite(g) & torch.isfinite(e)
    if not finite.any():
        return None
    g, e = g[finite], e[finite]
    # bfloat16 first: its numbers (8 bits of mantissa) are float16 numbers too, in range
    for narrow in (torch.bfloat16, torch.float16):
        if not torch.equal(g.to(narrow).to(g.dtype), g):
            continue
        if int((e.to(narrow).to(e.dtype) != e).sum()) < 2:
            continue
        eps = torch.finfo(narrow).eps
        bound = 4 * eps * e.abs() + eps * float(e.abs().max()) * 1e-2
        if bool(((g - e).abs() <= bound).all()) and not torch.equal(g, e):
            return narrow
    return None


def right_in_float64(
    module: Any, args: tuple, expected: torch.Tensor, *, rtol: float = 1e-6, atol: float = 1e-8
) -> bool | None:
    """Whether a float64 copy of ``module`` called on ``args`` cast to float64 gives
    ``expected`` (float64); None when the copy cannot be made or called, or gives no
    tensor."""
    try:
        double = copy.deepcopy(module).double()
        cast = tuple(
            a.double() if isinstance(a, torch.Tensor) and a.is_floating_point() else a for a in args
        )
        with contextlib.redirect_stdout(io.StringIO()), torch.no_grad():
            out = double(*cast)
    except Exception:  # the learner's code, or a module that cannot be copied: no claim
        return None
    if not isinstance(out, torch.Tensor) or out.shape != expected.shape:
        return None
    return bool(torch.allclose(out.double(), expected, rtol=rtol, atol=atol))


def narrow_variants(
    compute: Callable[..., torch.Tensor],
    inputs: Mapping[str, torch.Tensor],
    groups: Mapping[str, Sequence[str]],
) -> dict[tuple[str, str], torch.Tensor | None]:
    """The right function recomputed with inputs rounded to a narrower dtype: {(group,
    dtype name): the result in float64} for each group of ``groups`` ({its name: the
    names of the inputs it rounds}) and each dtype of :data:`NARROW_DTYPES`, plus
    ("everything", dtype name): ``compute`` run on every floating input cast to that dtype
    (its arithmetic in that dtype too). ``compute(**inputs)`` computes in the dtype of
    what it is given. A variant that cannot be computed is None (no claim)."""
    found: dict[tuple[str, str], torch.Tensor | None] = {}
    for dtype_name, dtype in NARROW_DTYPES.items():
        plans = {
            **{group: (set(names), torch.float64) for group, names in groups.items()},
            "everything": (set(inputs), dtype),
        }
        for group, (rounded, working) in plans.items():
            try:
                given = {
                    name: (
                        (value.to(dtype) if name in rounded else value).to(working)
                        if isinstance(value, torch.Tensor) and value.is_floating_point()
                        else value
                    )
                    for name, value in inputs.items()
                }
                with torch.no_grad():
                    found[(group, dtype_name)] = compute(**given).double()
            except Exception:  # a variant that cannot be computed here makes no claim
                found[(group, dtype_name)] = None
    return found
