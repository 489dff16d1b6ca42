"""Figures shared by the lessons (matplotlib only, no styles downloaded)."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np

from transformer_course.environment import running_headless


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
            ax.text(
                j,
                i,
                f"{value:.2f}",
                ha="center",
                va="center",
                fontsize=8,
                color="black" if value > middle else "white",
            )
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if colorbar:
        ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    return ax


def _attention_map(
    ax, weights, query_tokens, key_tokens, title, *, xlabel, ylabel, colorbar, annotate
):
    """One attention map (len_q, len_k) on ``ax``, from 0 to 1: the query tokens down the
    side, the key tokens along the top. Returns the Axes."""
    return heatmap(
        weights,
        row_labels=query_tokens,
        col_labels=key_tokens,
        title=title,
        xlabel=xlabel,
        ylabel=ylabel,
        ax=ax,
        vmin=0.0,
        vmax=1.0,
        annotate=annotate,
        colorbar=colorbar,
    )


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
    ax = _attention_map(
        ax,
        weights,
        query_tokens,
        key_tokens,
        title,
        xlabel="key (attended to)",
        ylabel="query (attending)",
        colorbar=True,
        annotate=annotate,
    )
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
        _attention_map(
            ax,
            data[head],
            query_tokens,
            key_tokens,
            name,
            xlabel="key",
            ylabel="query",
            colorbar=False,
            annotate=annotate,
        )
        panels.append(ax)
    fig.colorbar(panels[0].images[0], ax=panels, label="attention weight", shrink=0.9)
    if title:
        fig.suptitle(title)
    return fig


# ------------------------------------------------------------------ interactive figures


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
        _, ax = plt.subplots(figsize=(min(1.5 + 0.55 * ids.shape[1], 12), 1.2 + 0.4 * len(ids)))
    ax.imshow(
        is_token.astype(float),
        cmap=ListedColormap([PAD_COLOUR, TOKEN_COLOUR]),
        vmin=0,
        vmax=1,
        aspect="auto",
    )
    for (row, col), token_id in np.ndenumerate(ids):
        colour = "white" if is_token[row, col] else "black"
        ax.text(col, row, str(token_id), ha="center", va="center", fontsize=10, color=colour)
    ax.set_yticks(range(ids.shape[0]))  # one tick per row, whole numbers
    ax.set_xticks(range(ids.shape[1]))
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
            arrowprops={
                "arrowstyle": "->",
                "color": red if on_path else grey,
                "lw": 2.5 if on_path else 1.2,
            },
        )
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
            arrowprops={
                "arrowstyle": "->",
                "color": red if chosen else grey,
                "lw": 2.5 if chosen else 1.2,
                "connectionstyle": "arc3,rad=-0.45",
            },
        )
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
                    ax.add_patch(
                        Rectangle(
                            (f, top + t),
                            1,
                            1,
                            facecolor=face,
                            edgecolor="0.5",
                            hatch="//" if pad else None,
                            linewidth=0.8,
                        )
                    )
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
        _attention_map(
            ax,
            weights,
            query_tokens,
            key_tokens,
            name,
            xlabel="key (attended to)",
            ylabel="query (attending)",
            colorbar=True,
            annotate=False,
        )
    if title:
        fig.suptitle(title)
    return fig


# ------------------------------------------------------------------ training (lesson 10)
def training_curves(history: dict, *, floor: float | None = None, title: str = ""):
    """The curves of a training run, side by side; returns the Figure.

    ``history`` holds per-step lists ``loss`` and ``lr``, and per epoch
    ``val_exact_match`` and ``epoch_end`` (the step at which each epoch ended).
    ``floor``: a dashed line at the smallest value the loss can take.
    """
    loss = np.asarray(history["loss"], dtype=np.float64)
    steps = np.arange(1, len(loss) + 1)
    fig, axes = plt.subplots(1, 3, figsize=(14, 3.6))
    axes[0].plot(steps, loss, linewidth=0.6, alpha=0.5, label="every step")
    window = min(25, len(loss))
    if window > 1:
        smooth = np.convolve(loss, np.ones(window) / window, mode="valid")
        axes[0].plot(steps[window - 1 :], smooth, label=f"mean of {window} steps")
    if floor is not None:
        axes[0].axhline(
            floor,
            color="black",
            linestyle="--",
            linewidth=1,
            label=f"smallest possible: {floor:.2f}",
        )
    axes[0].set(title="training loss", xlabel="step", ylabel="label-smoothed loss")
    axes[0].set_ylim(0, 1.05 * min(float(loss.max()), 6.0) if len(loss) else 6.0)
    axes[0].legend()
    axes[1].plot(steps, history["lr"])
    axes[1].set(title="learning rate (noam_lr)", xlabel="step", ylabel="learning rate")
    val = history.get("val_exact_match", [])
    ends = history.get("epoch_end", list(range(1, len(val) + 1)))
    axes[2].plot(range(1, len(val) + 1), val, "o-")
    axes[2].set(
        title="validation exact match (greedy)",
        xlabel="epoch",
        ylabel="fraction exactly right",
        ylim=(0, 1.02),
    )
    axes[2].set_xticks(range(1, len(val) + 1))
    for number, end in enumerate(ends[:-1]):
        label = "end of an epoch" if number == 0 else None
        axes[0].axvline(end, color="0.75", linewidth=0.8, zorder=0, label=label)
    if len(ends) > 1:
        axes[0].legend()  # with the epoch lines
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


# -------------------------------------------------------- lesson 09: the whole Transformer
def _box(ax, x, y, width, height, text, *, face="white", edge="0.3", style="-", size=9):
    """A rounded box centred at (x, y) with ``text`` in it."""
    from matplotlib.patches import FancyBboxPatch

    ax.add_patch(
        FancyBboxPatch(
            (x - width / 2, y - height / 2),
            width,
            height,
            boxstyle="round,pad=0.25,rounding_size=0.6",
            facecolor=face,
            edgecolor=edge,
            linestyle=style,
            linewidth=1.2,
        )
    )
    ax.text(x, y, text, ha="center", va="center", fontsize=size)


def _arrow(ax, start, end, text="", *, colour="0.25", style="-", side="right", rad=0.0):
    """An arrow from ``start`` to ``end``; ``text`` (a shape) is written beside its middle."""
    ax.annotate(
        "",
        xy=end,
        xytext=start,
        arrowprops={
            "arrowstyle": "-|>",
            "color": colour,
            "lw": 1.3,
            "linestyle": style,
            "shrinkA": 0,
            "shrinkB": 0,
            "connectionstyle": f"arc3,rad={rad}",
        },
    )
    if text:
        x, y = (start[0] + end[0]) / 2, (start[1] + end[1]) / 2
        offset = 1.2 if side == "right" else -1.2
        ax.text(
            x + offset,
            y,
            text,
            ha="left" if side == "right" else "right",
            va="center",
            fontsize=7.5,
            color="tab:blue",
            family="monospace",
        )


def transformer_data_flow(
    *,
    batch: int = 2,
    len_src: int = 7,
    len_tgt: int = 5,
    d_model: int = 512,
    num_heads: int = 8,
    num_layers: int = 6,
    d_ff: int = 2048,
    src_vocab_size: int = 37000,
    tgt_vocab_size: int = 37000,
):
    """The encoder-decoder Transformer on one page: every module of lesson 09's
    ``Transformer`` as a box, every tensor between them as an arrow labelled with its
    shape (symbols, then the numbers of this call), the masks and the attention each one
    goes to, and the three attentions ((1) encoder self-attention, (2) decoder masked
    self-attention, (3) cross-attention) with the shapes of their weights. Returns the
    Figure."""
    fig, ax = plt.subplots(figsize=(14, 10.5))
    fig.subplots_adjust(left=0.01, right=0.99, top=0.95, bottom=0.01)
    ax.set_xlim(0, 100)
    ax.set_ylim(2, 100)
    ax.axis("off")
    b, h = batch, num_heads
    src, tgt, emb, red = "#e8f0fb", "#fdf0e3", "#eef6e8", "tab:red"
    left, right, middle = 19, 77, 48

    def shape(symbols: str, numbers: tuple) -> str:
        return f"{symbols}\n= {numbers}"

    ax.text(left, 98, "encoder side: the source sentence", ha="center", fontsize=11, weight="bold")
    ax.text(right, 98, "decoder side: the target so far", ha="center", fontsize=11, weight="bold")
    # ids -> embeddings -> positions
    _box(ax, left, 93, 27, 2.6, "src_ids: int64 token ids, <pad> = pad_id", face=src)
    _box(ax, right, 93, 31, 2.6, "tgt_ids: <bos> y1 y2 ..., <pad> = pad_id", face=tgt)
    _box(ax, left, 82, 25, 4, "src_embedding\nlookup, times sqrt(d_model)", face=emb)
    _box(ax, right, 82, 25, 4, "tgt_embedding\nlookup, times sqrt(d_model)", face=emb)
    _arrow(ax, (left, 91.4), (left, 84.4), shape("(batch, len_src)", (b, len_src)))
    _arrow(ax, (right, 91.4), (right, 84.4), shape("(batch, len_tgt)", (b, len_tgt)))
    _box(ax, left, 71, 25, 4, "positional_encoding\nadd the sinusoids, then dropout", face=emb)
    _box(
        ax,
        right,
        71,
        25,
        4,
        "positional_encoding (the same module)\nadd the sinusoids, then dropout",
        face=emb,
    )
    for x, length, name in ((left, len_src, "len_src"), (right, len_tgt, "len_tgt")):
        _arrow(ax, (x, 79.6), (x, 73.4), shape(f"(batch, {name}, d_model)", (b, length, d_model)))
    # the two stacks
    encoder_text = (
        f"encoder: {num_layers} layers (num_layers), each\n"
        "(1) self-attention + add & LayerNorm\n"
        "feed-forward + add & LayerNorm\n"
        f"(d_model -> d_ff = {d_ff} -> d_model)"
    )
    _box(ax, left, 53, 27, 10, encoder_text, face=src, size=9.5)
    _arrow(
        ax, (left, 68.6), (left, 58.6), shape("(batch, len_src, d_model)", (b, len_src, d_model))
    )
    decoder_text = (
        f"decoder: {num_layers} layers (num_layers), each\n"
        "(2) masked self-attention + add & LayerNorm\n"
        "(3) cross-attention + add & LayerNorm\n"
        "      queries from the decoder,\n"
        "      keys and values from memory\n"
        "feed-forward + add & LayerNorm"
    )
    _box(ax, right, 49, 29, 15, decoder_text, face=tgt, size=9.5)
    _arrow(
        ax, (right, 68.6), (right, 57.1), shape("(batch, len_tgt, d_model)", (b, len_tgt, d_model))
    )
    _box(ax, left, 33, 23, 2.6, "memory = encode(src_ids)", face=src)
    _arrow(
        ax, (left, 47.6), (left, 34.6), shape("(batch, len_src, d_model)", (b, len_src, d_model))
    )
    _arrow(ax, (left + 12, 33.6), (right - 15.2, 45.5), colour="tab:purple")
    ax.text(
        middle - 1,
        41.5,
        "memory: the keys and values\nof (3), in every decoder layer",
        fontsize=8.5,
        color="tab:purple",
        ha="center",
        rotation=12,
    )
    # output
    _box(
        ax,
        right,
        27,
        29,
        4,
        f"output = nn.Linear(d_model, tgt_vocab_size)\ntgt_vocab_size = {tgt_vocab_size}",
        face=emb,
    )
    _arrow(
        ax, (right, 40.6), (right, 29.4), shape("(batch, len_tgt, d_model)", (b, len_tgt, d_model))
    )
    _box(
        ax,
        right,
        13,
        29,
        4,
        "softmax over the last axis: not part of forward\n(the loss takes the logits, lesson 10)",
        face="white",
        style="--",
    )
    _arrow(
        ax,
        (right, 24.6),
        (right, 15.4),
        "logits\n" + shape("(batch, len_tgt, tgt_vocab_size)", (b, len_tgt, tgt_vocab_size)),
    )
    _arrow(
        ax, (right, 10.6), (right, 4.5), "probabilities of the next token,\nsame shape", style="--"
    )
    # masks, built from the ids
    ax.text(
        middle,
        90,
        "masks, built from the ids\n(bool, True = may attend)",
        ha="center",
        fontsize=9,
        color=red,
        weight="bold",
    )
    ax.text(
        middle,
        80,
        "decoder_self_attention_mask(\n    tgt_ids, pad_id)  -> (2)\n"
        f"(batch, 1, len_tgt, len_tgt)\n= {(b, 1, len_tgt, len_tgt)}",
        ha="center",
        va="center",
        fontsize=8,
        color=red,
        family="monospace",
    )
    ax.text(
        middle,
        63,
        "padding_mask(src_ids, pad_id)\n-> (1) and (3)\n"
        f"(batch, 1, 1, len_src)\n= {(b, 1, 1, len_src)}",
        ha="center",
        va="center",
        fontsize=8,
        color=red,
        family="monospace",
    )
    _arrow(ax, (middle + 8, 78), (right - 14.8, 53.3), colour=red, style=":", rad=-0.15)
    _arrow(ax, (middle - 8, 61.5), (left + 13.8, 54.6), colour=red, style=":", rad=-0.1)
    _arrow(ax, (middle + 7, 60.5), (right - 14.8, 49.5), colour=red, style=":", rad=0.15)
    # the attention weights
    weights = (
        "the three attentions, weights (batch, num_heads, len_q, len_k):\n"
        f"(1) encoder self-attention  (batch, h, len_src, len_src) = {(b, h, len_src, len_src)}\n"
        f"(2) decoder self-attention  (batch, h, len_tgt, len_tgt) = {(b, h, len_tgt, len_tgt)}\n"
        f"(3) cross-attention         (batch, h, len_tgt, len_src) = {(b, h, len_tgt, len_src)}"
    )
    ax.text(
        1,
        14,
        weights,
        fontsize=8.5,
        family="monospace",
        va="center",
        bbox={"boxstyle": "round", "facecolor": "0.97", "edgecolor": "0.7"},
    )
    fig.suptitle(
        f"Transformer(src_vocab_size={src_vocab_size}, tgt_vocab_size={tgt_vocab_size}, "
        f"d_model={d_model}, num_heads={num_heads}, num_layers={num_layers}, d_ff={d_ff}) "
        f"on a batch of {batch} sentence pairs",
        fontsize=11,
    )
    return fig


def teacher_forcing_vs_autoregression(
    reference: Sequence[str], generated: Sequence[str] | None = None
):
    """What the decoder is fed. Left, training (teacher forcing): one pass over the
    reference target shifted right (<bos> first), every position predicting its next token
    at once. Right, inference (autoregression): one pass per new token, each fed the tokens
    generated so far, right or wrong (``generated``, default the reference), until <eos>.
    Returns the Figure."""
    from matplotlib.patches import FancyBboxPatch

    generated = list(reference if generated is None else generated)
    inputs = ["<bos>", *reference]
    labels = [*reference, "<eos>"]
    produced = [*generated, "<eos>"]
    steps = len(produced)
    fig, (train, infer) = plt.subplots(
        1, 2, figsize=(14, 1.2 + 0.75 * steps), gridspec_kw={"width_ratios": [1, 1.25]}
    )

    def token(ax, x, y, text, face, edge="0.35"):
        ax.add_patch(
            FancyBboxPatch(
                (x - 0.42, y - 0.28),
                0.84,
                0.56,
                boxstyle="round,pad=0.02,rounding_size=0.1",
                facecolor=face,
                edgecolor=edge,
            )
        )
        ax.text(x, y, text, ha="center", va="center", fontsize=9)

    def up(ax, x, y0, y1, colour="0.4"):
        ax.annotate(
            "",
            xy=(x, y1),
            xytext=(x, y0),
            arrowprops={"arrowstyle": "-|>", "color": colour, "lw": 1.1},
        )

    fed, out, new = "#fdf0e3", "#eef6e8", "#d8ecf8"
    # training: one pass
    n = len(inputs)
    mid = steps / 2
    for i, (x_in, y_out) in enumerate(zip(inputs, labels, strict=True)):
        token(train, i, mid - 1.0, x_in, fed)
        up(train, i, mid - 0.7, mid + 0.05)
        token(train, i, mid + 0.35, f"-> {y_out}", out)
    train.add_patch(
        FancyBboxPatch(
            (-0.5, mid - 0.58),
            n,
            0.42,
            boxstyle="round,pad=0.02",
            facecolor="0.93",
            edgecolor="0.6",
            zorder=0,
        )
    )
    train.text(1.5, mid - 0.37, "decoder", ha="center", va="center", fontsize=8, color="0.3")
    train.text(
        (n - 1) / 2,
        mid - 1.75,
        "decoder input: the reference, shifted right\n"
        "(one pass; the look-ahead mask hides later positions)",
        ha="center",
        va="center",
        fontsize=9,
    )
    train.text(
        (n - 1) / 2,
        mid + 1.05,
        "predicted at every position at once,\ncompared with the labels (the reference + <eos>)",
        ha="center",
        va="center",
        fontsize=9,
    )
    train.set_xlim(-0.7, n - 0.3)
    train.set_ylim(-0.6, steps + 0.1)
    train.set_title("training: teacher forcing, one pass for the whole target")
    train.axis("off")
    # inference: one pass per token
    for step in range(steps):
        y = steps - 1 - step
        prefix = ["<bos>", *generated[:step]]
        for i, text in enumerate(prefix):
            token(infer, i, y, text, new if i == len(prefix) - 1 and step else fed)
        token(infer, len(prefix) + 0.6, y, f"-> {produced[step]}", out)
        infer.text(-0.75, y, f"step {step + 1}", ha="right", va="center", fontsize=9)
        if step + 1 < steps:
            infer.annotate(
                "",
                xy=(len(prefix), y - 0.72),
                xytext=(len(prefix) + 0.6, y - 0.3),
                arrowprops={
                    "arrowstyle": "-|>",
                    "color": "tab:blue",
                    "lw": 1.2,
                    "connectionstyle": "arc3,rad=-0.3",
                },
            )
    infer.text(
        steps / 2,
        -0.85,
        "blue: the token generated one step earlier, fed back in; decoding stops at <eos>",
        ha="center",
        va="center",
        fontsize=9,
    )
    infer.set_xlim(-1.9, steps + 1.2)
    infer.set_ylim(-1.2, steps - 0.3)
    infer.set_title("inference: autoregression, one decoder pass per new token")
    infer.axis("off")
    fig.tight_layout()
    return fig
