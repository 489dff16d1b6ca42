"""Layout and permutation mistakes: is the learner's output the reference's numbers in
another arrangement?

Many mistakes keep every number and move it: two axes transposed, heads split with one
``view`` and no transpose, heads merged with a plain reshape, RoPE's pairs written back
interleaved instead of as halves, a result reversed or shifted by one position. A value
comparison only reports "largest difference at index ..."; :func:`match_layout` tests a
handful of known re-arrangements of the reference's output (and, given the reference and
its inputs, of those inputs) and names the one the learner's output equals, in the axis
names the caller gives (the glossary's symbols: ``("batch", "num_heads", "len_q", "d_k")``).

A layout is named only when exactly one candidate matches on the inputs the check ran, and
never when the candidate equals the reference itself (a re-arrangement that changes nothing
cannot explain a difference).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from transformer_course.checking.formatting import as_numpy

__all__ = ["Layout", "layout_candidates", "match_layout"]

#: every kind of re-arrangement, in the order candidates are tried
KINDS = (
    "transpose",
    "heads_view",
    "heads_merge",
    "interleave",
    "deinterleave",
    "halves_swapped",
    "reversed",
    "shift",
)


def _axis(name: str) -> str:
    """An axis in a sentence: "len_q axis", or "axis 2" for an axis with no symbol."""
    return name if name.startswith("axis ") else f"{name} axis"


@dataclass(frozen=True)
class Layout:
    """One re-arrangement: ``kind`` (one of :data:`KINDS`), the axes it concerns, and where
    it applies (``"output"`` or the name of the reference's input it re-arranges)."""

    kind: str
    axes: tuple[str, ...]
    where: str = "output"
    detail: str = ""

    @property
    def description(self) -> str:
        """What the arrangement is, in the caller's axis names."""
        a, kind = self.axes, self.kind
        if kind == "transpose":
            text = f"its {a[0]} and {a[1]} axes swapped (a transpose)"
        elif kind == "heads_view":
            text = (
                f"the heads split with one view/reshape to ({', '.join(a)}) and no transpose, "
                f"so each head holds a block of consecutive numbers mixing several {a[-2]} "
                f"positions (view as (..., {a[-2]}, {a[-3]}, {a[-1]}) first, then swap "
                f"{a[-3]} and {a[-2]} with a transpose)"
            )
        elif kind == "heads_merge":
            text = (
                f"the heads merged with a plain reshape to ({', '.join(a)}) without first "
                f"moving num_heads back behind {a[-2]} (transpose, then reshape), so each "
                f"{a[-2]} position is cut out of one head's block of numbers"
            )
        elif kind == "interleave":
            text = (
                f"its last axis ({a[0]}) interleaved: the pair (i, i + {a[0]}/2) written to "
                f"neighbouring places (2i, 2i + 1)"
            )
        elif kind == "deinterleave":
            text = (
                f"its last axis ({a[0]}) in halves: the neighbouring pair (2i, 2i + 1) "
                f"written to (i, i + {a[0]}/2)"
            )
        elif kind == "halves_swapped":
            text = f"the two halves of its last axis ({a[0]}) swapped: the second half first"
        elif kind == "reversed":
            text = f"its {_axis(a[0])} in reverse order"
        else:  # shift
            text = (
                f"its {_axis(a[0])} shifted by one: entry k holds what belongs at "
                f"k {self.detail} 1 (an off-by-one in where {a[0]} starts)"
            )
        if self.where == "output":
            return f"the reference's result with {text}"
        return f"the reference's result for {self.where} re-arranged: {self.where} with {text}"

    @property
    def message(self) -> str:
        return (
            "Your result holds the right numbers in the wrong arrangement: it equals "
            f"{self.description}."
        )


def _swap(a: np.ndarray, i: int, j: int) -> np.ndarray:
    return np.swapaxes(a, i, j)


def _halves_to_interleaved(a: np.ndarray) -> np.ndarray:
    half = a.shape[-1] // 2
    return np.stack([a[..., :half], a[..., half:]], axis=-1).reshape(a.shape)


def _interleaved_to_halves(a: np.ndarray) -> np.ndarray:
    return np.concatenate([a[..., 0::2], a[..., 1::2]], axis=-1)


def layout_candidates(
    shape: Sequence[int], axes: Sequence[str], num_heads: int | None = None
) -> Iterator[tuple[Layout, Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]]]:
    """(layout, function) for every re-arrangement that keeps ``shape``; the function takes
    the reference's array and returns (re-arranged array, mask of the entries it defines)."""
    shape = tuple(shape)
    axes = tuple(axes)
    ndim = len(shape)
    full = np.ones(shape, dtype=bool)

    def whole(fn):
        return lambda a: (fn(a), full)

    for i in range(ndim):
        for j in range(i + 1, ndim):
            if shape[i] == shape[j] > 1:
                yield (
                    Layout("transpose", (axes[i], axes[j])),
                    whole(lambda a, i=i, j=j: _swap(a, i, j)),
                )
    if num_heads and "num_heads" in axes:
        h = axes.index("num_heads")
        if h + 2 < ndim and shape[h] == num_heads > 1 and shape[h + 1] > 1:
            merged = (*shape[:h], shape[h + 1], shape[h] * shape[h + 2])

            def view(a, h=h):
                return np.swapaxes(a, h, h + 1).reshape(merged).reshape(shape)

            yield Layout("heads_view", axes[: h + 3]), whole(view)
    if num_heads and num_heads > 1 and ndim >= 2 and shape[-1] % num_heads == 0 and shape[-2] > 1:
        d = shape[-1] // num_heads

        def merge(a):
            split = a.reshape(*shape[:-1], num_heads, d)  # (..., len, heads, d)
            return np.swapaxes(split, -3, -2).reshape(
                shape
            )  # a plain reshape of (..., heads, len, d)

        yield Layout("heads_merge", axes), whole(merge)
    if ndim and shape[-1] % 2 == 0 and shape[-1] >= 4:
        yield Layout("interleave", (axes[-1],)), whole(_halves_to_interleaved)
        yield Layout("deinterleave", (axes[-1],)), whole(_interleaved_to_halves)
    if ndim and shape[-1] % 2 == 0 and shape[-1] >= 2:
        yield (
            Layout("halves_swapped", (axes[-1],)),
            whole(lambda a: np.roll(a, shape[-1] // 2, axis=-1)),
        )
    for i in range(ndim):
        if shape[i] > 1:
            yield Layout("reversed", (axes[i],)), whole(lambda a, i=i: np.flip(a, axis=i))
    for i in range(ndim):
        if shape[i] > 2:
            for step, sign in ((1, "+"), (-1, "-")):

                def shifted(a, i=i, step=step):
                    out = np.roll(a, -step, axis=i)  # out[k] = a[k + step]
                    mask = np.ones(shape, dtype=bool)
                    edge = [slice(None)] * ndim
                    edge[i] = slice(-1, None) if step == 1 else slice(0, 1)
                    mask[tuple(edge)] = False
                    return out, mask

                yield Layout("shift", (axes[i],), detail=sign), shifted


def _close(a: np.ndarray, b: np.ndarray, mask: np.ndarray, rtol: float, atol: float) -> bool:
    return bool(np.allclose(a[mask], b[mask], rtol=rtol, atol=atol, equal_nan=False))


def match_layout(
    got: Any,
    expected: Any,
    axes: Sequence[str] | None = None,
    *,
    rtol: float = 1e-5,
    atol: float = 1e-6,
    num_heads: int | None = None,
    reference: Callable[..., Any] | None = None,
    inputs: Sequence[tuple[str, Any, Sequence[str]]] = (),
    input_kinds: Sequence[str] = ("transpose", "interleave", "deinterleave", "halves_swapped"),
) -> Layout | None:
    """The one re-arrangement whose result ``got`` equals, or None (none, or several).

    ``axes`` names ``expected``'s axes (default ``axis 0``, ``axis 1``, ...). With
    ``reference`` and ``inputs`` ((name, value, axes) for each positional argument of
    ``reference``), the reference is also run on each input re-arranged by the layouts of
    ``input_kinds`` (a mistake in how the code reads its input, e.g. RoPE's neighbouring
    pairs written back as halves)."""
    got_np = as_numpy(got).astype(np.float64)
    exp_np = as_numpy(expected).astype(np.float64)
    if got_np.shape != exp_np.shape or not np.isfinite(got_np).all() or got_np.ndim == 0:
        return None
    axes = tuple(axes) if axes is not None else tuple(f"axis {i}" for i in range(exp_np.ndim))
    if len(axes) != exp_np.ndim:
        raise ValueError(f"axes {axes} do not name the {exp_np.ndim} axes of the result")
    found: list[Layout] = []
    for layout, fn in layout_candidates(exp_np.shape, axes, num_heads):
        value, mask = fn(exp_np)
        if mask.sum() * 2 < mask.size or _close(value, exp_np, mask, rtol, atol):
            continue  # too little to tell, or no change at all
        if _close(got_np, value, mask, rtol, atol):
            found.append(layout)
    if reference is not None:
        for index, (name, value, input_axes) in enumerate(inputs):
            arr = as_numpy(value)
            for layout, fn in layout_candidates(arr.shape, input_axes, num_heads):
                if layout.kind not in input_kinds:
                    continue
                moved, mask = fn(arr)
                if not mask.all() or np.array_equal(moved, arr):
                    continue
                args = [v for _, v, _ in inputs]
                args[index] = _like(value, moved)
                try:
                    result = as_numpy(reference(*args)).astype(np.float64)
                except Exception:  # the re-arranged input does not fit the reference
                    continue
                if result.shape != got_np.shape or _close(
                    result, exp_np, np.ones(result.shape, bool), rtol, atol
                ):
                    continue
                if _close(got_np, result, np.ones(result.shape, bool), rtol, atol):
                    found.append(Layout(layout.kind, layout.axes, where=name))
    return found[0] if len(found) == 1 else None


def _like(template: Any, array: np.ndarray) -> Any:
    """``array`` as the same kind of object as ``template`` (torch tensor or numpy)."""
    if hasattr(template, "detach"):
        import torch

        return torch.as_tensor(np.ascontiguousarray(array)).to(template.dtype)
    return np.ascontiguousarray(array)
