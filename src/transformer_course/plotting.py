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
    """Attention weights (len_q, len_k) with the query words down the side and key words
    along the top, and a colorbar labelled "attention weight" (0 to 1). Returns the Axes."""
    ax = heatmap(weights, row_labels=query_tokens, col_labels=key_tokens, title=title,
                 xlabel="key (attended to)", ylabel="query (attending)", ax=ax,
                 vmin=0.0, vmax=1.0, annotate=annotate)  # fmt: skip
    colorbar = ax.images[-1].colorbar
    if colorbar is not None:
        colorbar.set_label("attention weight")
    return ax


def attention_heads(
    weights,
    query_tokens: Sequence[str],
    key_tokens: Sequence[str],
    *,
    title: str = "",
    max_cols: int = 4,
    head_titles: Sequence[str] | None = None,
    annotate: bool = False,
):
    """One heatmap per head, side by side: weights (num_heads, len_q, len_k). Every panel
    has query (rows) and key (columns) axis labels; one colorbar, "attention weight" from
    0 to 1, serves them all. ``head_titles`` names the panels (default "head 0", ...).
    Returns the Figure."""
    data = _as_array(weights)
    num_heads = data.shape[0]
    cols = min(num_heads, max_cols)
    rows = -(-num_heads // cols)
    fig, axes = plt.subplots(
        rows, cols, figsize=(3.2 * cols + 1.2, 3.1 * rows), squeeze=False, layout="constrained"
    )
    panels = []
    for head, ax in enumerate(axes.flat):
        if head >= num_heads:
            ax.axis("off")
            continue
        name = head_titles[head] if head_titles is not None else f"head {head}"
        heatmap(data[head], row_labels=query_tokens, col_labels=key_tokens, ax=ax, title=name,
                xlabel="key", ylabel="query", vmin=0.0, vmax=1.0, colorbar=False,
                annotate=annotate)  # fmt: skip
        panels.append(ax)
    fig.colorbar(panels[0].images[0], ax=panels, label="attention weight", shrink=0.9)
    if title:
        fig.suptitle(title)
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

    def widget(name, control):
        """A control that starts at the static value, whatever abbreviation was given."""
        start = static.get(name)
        if isinstance(control, tuple) and start is not None:
            low, high, *step = control
            kind = (
                ipywidgets.IntSlider
                if all(isinstance(v, int) for v in (low, high, *step))
                else ipywidgets.FloatSlider
            )
            default_step = 1 if kind is ipywidgets.IntSlider else (high - low) / 100
            return kind(value=start, min=low, max=high, step=step[0] if step else default_step)
        if isinstance(control, list | dict) and start is not None:
            return ipywidgets.Dropdown(options=control, value=start)
        return control

    fixed = {
        name: ipywidgets.fixed(value) for name, value in static.items() if name not in controls
    }
    ipywidgets.interact(show, **fixed, **{name: widget(name, c) for name, c in controls.items()})


# ---------------------------------------------------------------------- padded batches
PAD_COLOUR, TOKEN_COLOUR = "white", "tab:green"


def padded_batch(batch, pad_id: int, *, title: str | None = None, ax=None):
    """A padded batch of ids (batch, len): every id written in its cell, tokens on
    green, padding on white. Returns the Axes; the title says which colour is which."""
    from matplotlib.colors import ListedColormap

    ids = np.asarray(batch)
    is_token = ids != pad_id
    if ax is None:
        _, ax = plt.subplots(figsize=(min(1.5 + 0.45 * ids.shape[1], 12), 0.9 + 0.3 * len(ids)))
    ax.imshow(
        is_token.astype(float),
        cmap=ListedColormap([PAD_COLOUR, TOKEN_COLOUR]),
        vmin=0,
        vmax=1,
        aspect="auto",
    )
    for (row, col), token_id in np.ndenumerate(ids):
        colour = "white" if is_token[row, col] else "black"
        ax.text(col, row, str(token_id), ha="center", va="center", fontsize=7, color=colour)
    ax.set_title(
        title or f"token ids: green cells are tokens, {PAD_COLOUR} cells are <pad> (id {pad_id})"
    )
    ax.set_xlabel("position in the sequence")
    ax.set_ylabel("sequence (row of the batch)")
    return ax


def rnn_vs_attention_paths(tokens: Sequence[str], source: int = 0, target: int | None = None):
    """How many steps a signal takes from token ``source`` to token ``target``.

    Left: a recurrent network hands one state from token to token, so the signal
    crosses every step in between. Middle: in self-attention every token reads
    every other token directly, in one step. Right: the path length against the
    distance between the two tokens. Returns the Figure.
    """
    n = len(tokens)
    target = n - 1 if target is None else target
    red, grey = "tab:red", "0.7"
    fig, axes = plt.subplots(1, 3, figsize=(15, 3.6), gridspec_kw={"width_ratios": [3, 3, 2]})
    for ax in axes[:2]:
        ax.scatter(range(n), np.zeros(n), s=420, c="white", edgecolors="black", zorder=3)
        for i, token in enumerate(tokens):
            ax.text(i, -0.35, token, ha="center", va="top", fontsize=10)
        ax.set_xlim(-0.7, n - 0.3)
        ax.set_ylim(-0.9, 1.7)
        ax.axis("off")
    for i in range(n - 1):
        on_path = source <= i < target
        axes[0].annotate(
            "",
            xy=(i + 0.78, 0),
            xytext=(i + 0.22, 0),
            arrowprops={"arrowstyle": "->", "color": red if on_path else grey,
                        "lw": 2.5 if on_path else 1.2},
        )  # fmt: skip
    axes[0].set_title(
        f"RNN: {tokens[source]!r} reaches {tokens[target]!r} in {abs(target - source)} steps",
        fontsize=11,
    )
    for i in range(n):
        if i == target:
            continue
        chosen = i == source
        axes[1].annotate(
            "",
            xy=(target - 0.08, 0.18),
            xytext=(i + 0.08, 0.18),
            arrowprops={"arrowstyle": "->", "color": red if chosen else grey,
                        "lw": 2.5 if chosen else 1.2, "connectionstyle": "arc3,rad=-0.45"},
        )  # fmt: skip
    axes[1].set_title(
        f"self-attention: {tokens[target]!r} reads every token directly (1 step)", fontsize=11
    )
    distance = np.arange(1, 51)
    axes[2].plot(distance, distance, color=red, label="RNN: |i - j| steps")
    axes[2].plot(distance, np.ones_like(distance), color="tab:blue", label="attention: 1 step")
    axes[2].set(
        title="path length between tokens i and j",
        xlabel="distance |i - j| (tokens)",
        ylabel="steps a signal must take",
    )
    axes[2].legend(fontsize=9)
    fig.tight_layout()
    return fig


# ------------------------------------------------------------------------------- masks
MAY_ATTEND_COLOUR, BLOCKED_COLOUR = "tab:blue", "0.92"


def mask_heatmap(
    mask,
    query_tokens: Sequence[str] | None = None,
    key_tokens: Sequence[str] | None = None,
    *,
    title: str = "",
    ax=None,
    xlabel: str = "key (attended to)",
    ylabel: str = "query (attending)",
):
    """A bool mask (len_q, len_k), True = may attend: blue cells may be attended to, light
    grey cells are blocked, and the colorbar says so. Returns the Axes."""
    from matplotlib.colors import BoundaryNorm, ListedColormap

    data = (_as_array(mask) > 0.5).astype(float)
    if ax is None:
        _, ax = plt.subplots(
            figsize=(min(2.5 + 0.45 * data.shape[1], 10), min(1 + 0.45 * data.shape[0], 8))
        )
    image = ax.imshow(
        data,
        cmap=ListedColormap([BLOCKED_COLOUR, MAY_ATTEND_COLOUR]),
        norm=BoundaryNorm([-0.5, 0.5, 1.5], 2),
        aspect="auto",
    )
    if query_tokens is not None:
        ax.set_yticks(range(len(query_tokens)), labels=list(query_tokens))
    if key_tokens is not None:
        ax.set_xticks(range(len(key_tokens)), labels=list(key_tokens), rotation=45, ha="right")
    rows, cols = data.shape
    ax.set_xticks([j - 0.5 for j in range(1, cols)], minor=True)  # thin lines between cells
    ax.set_yticks([i - 0.5 for i in range(1, rows)], minor=True)
    ax.grid(which="minor", color="white", linewidth=1.0)
    ax.tick_params(which="minor", length=0)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    colorbar = ax.figure.colorbar(image, ax=ax, ticks=[0, 1], fraction=0.046, pad=0.04)
    colorbar.ax.set_yticklabels(["blocked\n(False)", "may attend\n(True)"])
    return ax


# ------------------------------------------------------- lessons 07-08: encoder and decoder
def normalisation_axes(
    lengths: Sequence[int] = (5, 3, 4),
    d_model: int = 6,
    *,
    token: tuple[int, int] = (0, 2),
    feature: int = 1,
):
    """What LayerNorm and BatchNorm average over, in one padded batch (batch, len, d_model).

    Each sentence is a block of rows (its positions, padded to the longest) and columns (the
    d_model features). Left: LayerNorm takes one mean and variance per token, over that
    token's features (one row). Right: BatchNorm takes one per feature, over every sentence
    and position of the batch, <pad> included (one column). Returns the Figure.
    """
    from matplotlib.patches import Patch, Rectangle

    max_len = max(lengths)
    rows = len(lengths) * (max_len + 0.8)
    fig, axes = plt.subplots(1, 2, figsize=(9, 0.3 * rows + 1.9))
    titles = (
        "LayerNorm: one mean and variance per token,\nover its d_model features (one row)",
        "BatchNorm: one mean and variance per feature,\nover the whole batch, <pad> included",
    )
    for ax, kind, title in zip(axes, ("layer", "batch"), titles, strict=True):
        top, ticks, names = 0.0, [], []
        for b, length in enumerate(lengths):
            for t in range(max_len):
                pad = t >= length
                for f in range(d_model):
                    hit = (b, t) == tuple(token) if kind == "layer" else f == feature
                    face = "tab:orange" if hit else ("0.85" if pad else "white")
                    ax.add_patch(Rectangle((f, top + t), 1, 1, facecolor=face, edgecolor="0.5",
                                           hatch="//" if pad else None, linewidth=0.8))  # fmt: skip
            ticks.append(top + max_len / 2)
            names.append(f"sentence {b}\n({length} tokens)")
            top += max_len + 0.8
        ax.set_xlim(0, d_model)
        ax.set_ylim(top - 0.8, 0)
        ax.set_yticks(ticks, labels=names)
        ax.set_xticks([f + 0.5 for f in range(d_model)], labels=range(d_model))
        ax.set_xlabel("feature (the d_model axis)")
        ax.set_ylabel("positions of each sentence (the len axis)")
        ax.set_title(title, fontsize=10)
        ax.set_aspect("equal")
    fig.legend(
        handles=[
            Patch(facecolor="tab:orange", edgecolor="0.5", label="normalised together"),
            Patch(facecolor="0.85", edgecolor="0.5", hatch="//", label="<pad> position"),
        ],
        loc="lower center",
        ncol=2,
    )
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return fig


def attention_panels(panels: Sequence[tuple], *, title: str = ""):
    """Attention maps of different shapes side by side: ``panels`` holds tuples
    (weights (len_q, len_k), query_tokens, key_tokens, panel_title). Every panel has query
    (rows) and key (columns) labels and its own colorbar, attention weight from 0 to 1.
    Returns the Figure."""
    fig, axes = plt.subplots(
        1, len(panels), figsize=(4.6 * len(panels), 4.2), squeeze=False, layout="constrained"
    )
    for ax, (weights, query_tokens, key_tokens, name) in zip(axes[0], panels, strict=True):
        heatmap(weights, row_labels=query_tokens, col_labels=key_tokens, ax=ax, title=name,
                xlabel="key (attended to)", ylabel="query (attending)", vmin=0.0, vmax=1.0,
                colorbar=True)  # fmt: skip
    if title:
        fig.suptitle(title)
    return fig
