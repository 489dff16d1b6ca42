"""Figures shared by the lessons (matplotlib only, no styles downloaded)."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np


def _as_array(values) -> np.ndarray:
    if hasattr(values, "detach"):
        values = values.detach().cpu().numpy()
    return np.asarray(values, dtype=np.float64)


def heatmap(
    values,
    *,
    row_labels: Sequence[str] | None = None,
    col_labels: Sequence[str] | None = None,
    title: str = "",
    xlabel: str = "",
    ylabel: str = "",
    ax=None,
    cmap: str = "viridis",
    vmin: float | None = None,
    vmax: float | None = None,
    annotate: bool = False,
    colorbar: bool = True,
):
    """Draw a 2-D array as a heatmap with optional word labels; returns the Axes.

    Rows are the first axis (queries, positions), columns the second (keys, features).
    """
    data = _as_array(values)
    if ax is None:
        _, ax = plt.subplots(
            figsize=(min(1 + 0.5 * data.shape[1], 10), min(1 + 0.45 * data.shape[0], 8))
        )
    image = ax.imshow(data, cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto")
    if row_labels is not None:
        ax.set_yticks(range(len(row_labels)), labels=list(row_labels))
    if col_labels is not None:
        ax.set_xticks(range(len(col_labels)), labels=list(col_labels), rotation=45, ha="right")
    if annotate:
        lo, hi = np.nanmin(data), np.nanmax(data)
        middle = (lo + hi) / 2
        for (i, j), value in np.ndenumerate(data):
            ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=8,
                    color="black" if value > middle else "white")  # fmt: skip
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if colorbar:
        ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    return ax


def attention_heatmap(
    weights,
    query_tokens: Sequence[str],
    key_tokens: Sequence[str],
    *,
    title: str = "attention weights",
    ax=None,
    annotate: bool = True,
):
    """Attention weights (len_q, len_k) with the query words down the side and key words along the top."""
    return heatmap(weights, row_labels=query_tokens, col_labels=key_tokens, title=title,
                   xlabel="key (attended to)", ylabel="query (attending)", ax=ax,
                   vmin=0.0, vmax=1.0, annotate=annotate)  # fmt: skip


def attention_heads(
    weights,
    query_tokens: Sequence[str],
    key_tokens: Sequence[str],
    *,
    title: str = "",
    max_cols: int = 4,
):
    """One heatmap per head, side by side: weights (num_heads, len_q, len_k). Returns the Figure."""
    data = _as_array(weights)
    num_heads = data.shape[0]
    cols = min(num_heads, max_cols)
    rows = -(-num_heads // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 3.0 * rows), squeeze=False)
    for head, ax in enumerate(axes.flat):
        if head >= num_heads:
            ax.axis("off")
            continue
        heatmap(data[head], row_labels=query_tokens, col_labels=key_tokens, ax=ax,
                title=f"head {head}", vmin=0.0, vmax=1.0, colorbar=False)  # fmt: skip
    fig.suptitle(title)
    fig.tight_layout()
    return fig


# ------------------------------------------------------------------ interactive figures
STATIC_ENV = ("NBGRADER_EXECUTION", "COURSE_STATIC_FIGURES")


def running_headless() -> bool:
    """True while nbgrader grades or validates, or tests execute a lesson: no widgets then."""
    import os

    return any(os.environ.get(name) for name in STATIC_ENV)


def interactive_or_static(draw, static: dict, **controls) -> None:
    """Show ``draw(**values)`` with ipywidgets controls in a live notebook, or once, with
    the ``static`` values, when run headless (graded, validated or tested).

    ``controls`` are ipywidgets' ``interact`` abbreviations or widgets, e.g.
    ``d_k=(1, 512, 1)`` or ``head=["head 0", "head 1"]``; ``draw`` makes the figure
    (and may call ``plt.show()``). Headless, a caption says the figure is
    interactive in JupyterLab.
    """
    if running_headless():
        draw(**static)
        plt.show()
        print("(In JupyterLab this figure has controls: " + ", ".join(controls) + ".)")
        return
    import ipywidgets

    def show(**values):
        draw(**values)
        plt.show()

    widgets = {
        name: ipywidgets.fixed(value) if name not in controls else controls[name]
        for name, value in static.items()
    }
    ipywidgets.interact(show, **{**widgets, **controls})
