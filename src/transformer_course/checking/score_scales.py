"""The attention scores multiplied by another factor than 1 / sqrt(d_head): every power
of each of the layer's sizes (d_head, d_model, num_heads, ...) that a slip gives, as
candidate mistakes ({message: the factor}) for a check to match the learner's output
against with its oracle (blind round 34: scores multiplied by sqrt(d_head) where they are
divided got "differs from the reference"). A factor that two expressions give on one
case is named with both by the matching itself (each is a candidate of its own), and an
expression the check's own table already names is left to it (``skip``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

__all__ = ["score_scale_candidates"]

#: (exponent, how the expression reads, what it is as a slip)
_POWERS = (
    (1.0, "{n}", "the scores multiplied by {n}"),
    (0.5, "sqrt({n})", "the scores multiplied by sqrt({n}) where they are divided"),
    (-0.25, "1 / {n} ** 0.25", "a square root taken twice, the fourth root of {n}"),
    (-0.5, "1 / sqrt({n})", "the scores divided by sqrt({n})"),
    (-1.0, "1 / {n}", "the scores divided by {n} itself, not its square root"),
    (-2.0, "1 / {n} ** 2", "the scores divided by {n} squared"),
)


def score_scale_candidates(
    sizes: Mapping[str, int],
    *,
    right: str = "d_head",
    skip: Iterable[tuple[str, float]] = (),
) -> dict[str, float]:
    """{message: the factor the scores are multiplied by} for each power of each size in
    ``sizes`` ({name: value}) but the right one, 1 / sqrt(``right``), and those in
    ``skip`` ((name, exponent) the caller's table names already)."""
    skipped = set(skip) | {(right, -0.5)}
    correct = float(sizes[right]) ** -0.5 if right in sizes else None
    found: dict[str, float] = {}
    for name, value in sizes.items():
        if value <= 1:
            continue
        for exponent, reads, slip in _POWERS:
            if (name, exponent) in skipped:
                continue
            factor = float(value) ** exponent
            if correct is not None and abs(factor - correct) <= 1e-9 * correct:
                continue  # the right factor by another name on this case: no mistake
            expression = reads.format(n=name)
            found[
                f"Your scores are multiplied by {expression} = {factor:.4g} ({name} = {value}), "
                f"not by 1 / sqrt({right}): {slip.format(n=name)}. Scale them as "
                f"scaled_dot_product_attention does: scores = q @ k.transpose(-2, -1) / "
                f"sqrt({right}), {right} = q.shape[-1]."
            ] = factor
    return found
