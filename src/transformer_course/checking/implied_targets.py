"""The target distribution a cross-entropy loss trains towards, read off its gradient.

For a loss L = (1/N) Σ_i -Σ_j q_ij log softmax(z_i)_j, the gradient with respect to the
logits of position i is (p_i - q_i) / N (q_i summing to 1), so q_i = p_i - N·grad_i: the
target each position's softmax is pulled to is observable whatever code computed it
(fairseq's ε/(V-1), the Annotated Transformer's zeroed <pad> column, smoothing on the
wrong token ...). :func:`implied_targets` recovers it; :func:`target_differences` says how
it departs from the contract's q, in words. Both answer "" / None when the loss carries no
graph back to the logits (the sandboxed grader) or when no distribution fits (a loss that
is no cross-entropy against a fixed target: log(softmax + eps), say)."""

from __future__ import annotations

import torch

__all__ = ["implied_targets", "partial_target_differences", "target_differences"]


def implied_targets(
    loss: torch.Tensor, logits: torch.Tensor, keep: torch.Tensor
) -> torch.Tensor | None:
    """q (positions, V), float64, for the positions where ``keep`` is True, from the
    gradient of the 0-d ``loss`` with respect to ``logits`` (..., V); None when there is no
    graph, when a dropped position has a gradient (its own family), or when the recovered
    rows are no distributions (negative entries)."""
    if not (isinstance(loss, torch.Tensor) and loss.requires_grad and logits.requires_grad):
        return None
    try:
        (grad,) = torch.autograd.grad(loss, logits, retain_graph=True, allow_unused=True)
    except Exception:  # a graph freed, an in-place change: the gradient check reports it
        return None
    if grad is None or grad.shape != logits.shape:
        return None
    grad = grad.detach().double()  # (..., V)
    if bool((grad[~keep].abs() > 1e-9).any()):
        return None
    count = int(keep.sum())
    if count == 0:
        return None
    p = torch.softmax(logits.detach().double(), dim=-1)[keep]  # (positions, V)
    q = p - count * grad[keep]  # (positions, V)
    if bool((q < -1e-6).any()) or not torch.allclose(q.sum(-1), torch.ones(len(q)).double()):
        return None
    return q


def _share(values: torch.Tensor) -> float | None:
    """The one value every entry of ``values`` holds (within 1e-6), or None."""
    if values.numel() == 0:
        return None
    first = float(values.reshape(-1)[0])
    return first if bool(((values - first).abs() < 1e-6).all()) else None


def target_differences(q: torch.Tensor, labels: torch.Tensor, pad_id: int, eps: float) -> str:
    """How the learner's targets ``q`` (positions, V; ``labels`` (positions,) the kept
    positions' labels) depart from PyTorch's q = (1 - eps)·one_hot(y) + eps / V: a sentence
    naming the label's share, the <pad> column's share and the other tokens' share, each
    where it differs; "" when the shares are not one per kind (no simple rule) or all
    right."""
    positions, vocab = q.shape
    rows = torch.arange(positions)
    on_label = _share(q[rows, labels])
    others = torch.ones_like(q, dtype=torch.bool)
    others[rows, labels] = False
    on_pad = None
    if 0 <= pad_id < vocab:
        pad_column = others[:, pad_id].clone()
        on_pad = _share(q[:, pad_id][pad_column]) if bool(pad_column.any()) else None
        others[:, pad_id] = False
    on_others = _share(q[others])
    if on_label is None or on_others is None:
        return ""
    right_label, right_other = 1 - eps + eps / vocab, eps / vocab
    wrong = []
    if on_pad is not None and abs(on_pad - right_other) > 1e-6 and abs(on_pad) < 1e-6:
        wrong.append(
            "the <pad> column gets no share (0), as the Annotated Transformer's LabelSmoothing "
            "makes it (true_dist[:, padding_idx] = 0), where PyTorch's smoothing gives every "
            f"token, <pad> included, ε/V = {right_other:.4g}"
        )
    elif on_pad is not None and abs(on_pad - right_other) > 1e-6:
        wrong.append(f"the <pad> column gets {on_pad:.4g}, not ε/V = {right_other:.4g}")
    if abs(on_others - right_other) > 1e-6:
        spread = [
            (f"ε/(V - {k})", eps / (vocab - k))
            for k in (1, 2)
            if abs(on_others - eps / (vocab - k)) < 1e-6
        ]
        how = f" ({spread[0][0]}: the smoothing spread over fewer tokens)" if spread else ""
        wrong.append(f"every other token gets {on_others:.4g}{how}, not ε/V = {right_other:.4g}")
    if abs(on_label - right_label) > 1e-6:
        wrong.append(f"the label y gets {on_label:.4g}, not 1 - ε + ε/V = {right_label:.4g}")
    if not wrong:
        return ""
    return (
        "Read off your loss's gradient, the distribution each position is trained towards "
        "is another one: " + "; ".join(wrong) + f" (V = {vocab}, ε = {eps:g}). The contract's "
        "target is PyTorch's: q = (1 - ε)·one_hot(y) + ε/V over all V tokens, so that "
        "the loss is (1 - ε)·(-log p[y]) + ε·mean_j(-log p[j])."
    )


def _row_kind(row: torch.Tensor, label: int, eps: float) -> str:
    """What one position's target q (V,) is, in words: the contract's, the one-hot target
    (no smoothing), the contract's form with another ε, or '' (none of these)."""
    vocab = row.shape[0]
    right = torch.full_like(row, eps / vocab)
    right[label] += 1 - eps
    if torch.allclose(row, right, atol=1e-6):
        return "right"
    others = torch.cat([row[:label], row[label + 1 :]])  # (V - 1,)
    share = _share(others)
    if share is None:
        return ""
    if abs(share) < 1e-6:
        return "the one-hot target (1 on the label, 0 elsewhere, no smoothing)"
    other_eps = share * vocab
    if abs(float(row[label]) - (1 - other_eps + share)) < 1e-6:
        return f"smoothed with ε = {other_eps:.4g} instead of {eps:g}"
    return ""


def _described_positions(chosen: list, positions: list, labels: list) -> str:
    """The positions ``chosen`` (index tuples, a part of ``positions``) in words: what they
    share where that is all of them (a row, the first or last counted position of each
    row, one label), else the list."""
    chosen_set = set(chosen)
    rows = sorted({p[:-1] for p in positions})
    by_row = {r: [p for p in positions if p[:-1] == r] for r in rows}
    multi_d = len(positions[0]) > 1
    shapes = {}
    if multi_d:
        for column in sorted({p[-1] for p in positions}):
            shapes[f"position {column} of every row (where it is counted)"] = {
                p for p in positions if p[-1] == column
            }
        shapes["the first position of each row"] = {by_row[r][0] for r in rows}
        shapes["the last counted (non-pad) position of each row"] = {by_row[r][-1] for r in rows}
        shapes["every counted position but the first of each row"] = {
            p for r in rows for p in by_row[r][1:]
        }
        shapes["every counted position but the last of each row"] = {
            p for r in rows for p in by_row[r][:-1]
        }
        whole_rows = [r for r in rows if set(by_row[r]) <= chosen_set]
        if whole_rows and {p for r in whole_rows for p in by_row[r]} == chosen_set:
            named = [", ".join(map(str, r)) for r in whole_rows]
            plural = "s" if len(named) > 1 else ""
            shapes[f"every position of row{plural} {', '.join(named)}"] = chosen_set
    for token in sorted(set(labels)):
        shapes[f"the positions whose label is {token}"] = {
            p for p, y in zip(positions, labels, strict=True) if y == token
        }
    for words, members in shapes.items():
        if members == chosen_set:
            return words
    said = ", ".join(str(tuple(p)) if multi_d else str(p[0]) for p in chosen[:6])
    more = f" and {len(chosen) - 6} more" if len(chosen) > 6 else ""
    return f"the positions {said}{more}"


def partial_target_differences(
    q: torch.Tensor, labels: torch.Tensor, eps: float, positions: list
) -> str:
    """Where the learner's targets ``q`` (positions, V) are right at some positions and
    another single kind (no smoothing, another ε) at the others (an edit applied to only
    part of the batch): a sentence naming those positions (``positions``: each kept
    position's index tuple, in q's order); "" otherwise."""
    kinds = [_row_kind(q[i], int(labels[i]), eps) for i in range(q.shape[0])]
    wrong_kinds = {kind for kind in kinds if kind != "right"}
    if len(wrong_kinds) != 1 or "" in wrong_kinds or "right" not in kinds:
        return ""
    (kind,) = wrong_kinds
    chosen = [tuple(p) for p, k in zip(positions, kinds, strict=True) if k != "right"]
    where = _described_positions(chosen, [tuple(p) for p in positions], labels.tolist())
    count = len(kinds)
    return (
        "Read off your loss's gradient, the distribution each position is trained towards "
        f"is right at {count - len(chosen)} of the {count} counted positions, but at "
        f"{where} ({len(chosen)} of them) it is {kind}: your smoothing reaches only part of "
        "the positions. Every position whose label is not pad_id gets the same target, "
        "q = (1 - ε)·one_hot(y) + ε/V, whatever its place in the batch."
    )
