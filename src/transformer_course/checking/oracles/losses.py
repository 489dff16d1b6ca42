"""Losses in float64 (lesson 10): the label-smoothed cross-entropy by every common
definition and slip."""

from __future__ import annotations

import math

import torch

__all__ = ["label_smoothing_f"]


def label_smoothing_f(
    logits: torch.Tensor, labels: torch.Tensor, pad_id: int, eps: float
) -> dict[str, torch.Tensor | None]:
    """Lesson 10's label-smoothed cross-entropy in float64, by every common definition
    and slip: {name: loss}, "pytorch" the right one (F.cross_entropy's label_smoothing,
    <pad> ignored, the mean over the real tokens); the others "fairseq", "annotated_kl",
    "annotated_ce", "kl", "no_smoothing", "others_only", "target_only", "with_pad", "sum",
    "per_batch", "mean_of_means", "pad_zero", "pad_denominator" (None where a slip cannot
    be told apart on these inputs). logits (..., vocab_size), labels (...)."""
    x = logits.detach().double()
    vocab = x.shape[-1]
    logp = torch.log_softmax(x, dim=-1)
    keep = labels != pad_id
    y = labels.masked_fill(~keep, 0)
    nll = -logp.gather(-1, y[..., None]).squeeze(-1)  # (...)
    total = -logp.sum(-1)  # (...): sum over all V of -log p
    others = total - nll  # sum over the V - 1 other tokens

    def mean(per_token, mask=keep):
        return per_token[mask].mean()

    pytorch_q_entropy = -(
        (1 - eps + eps / vocab) * math.log(1 - eps + eps / vocab)
        + (vocab - 1) * (eps / vocab) * math.log(eps / vocab)
        if eps > 0
        else 0.0
    )
    pytorch = (1 - eps) * nll + eps * total / vocab
    # The Annotated Transformer: eps/(V-2) on every token but the target and <pad>.
    not_pad_column = others - (-logp[..., pad_id]) * (y != pad_id)
    annotated_ce = (1 - eps) * nll + eps / (vocab - 2) * not_pad_column
    conf = 1 - eps
    annotated_entropy = -(
        conf * math.log(conf) + eps * math.log(eps / (vocab - 2)) if eps > 0 else 0.0
    )
    variants = {
        "pytorch": mean(pytorch),
        "fairseq": mean((1 - eps) * nll + eps / (vocab - 1) * others),
        "annotated_kl": mean(annotated_ce) - annotated_entropy,
        "annotated_ce": mean(annotated_ce),
        "kl": mean(pytorch) - pytorch_q_entropy,
        "no_smoothing": mean(nll),
        "others_only": mean((1 - eps) * nll + eps / vocab * others),
        "target_only": mean((1 - eps) * nll),
        "with_pad": pytorch.mean(),
        "sum": pytorch[keep].sum(),
        "per_batch": pytorch[keep].sum() / (x.shape[0] if x.dim() > 2 else 1),
        "mean_of_means": (
            torch.stack(
                [pytorch[b][keep[b]].mean() for b in range(x.shape[0]) if keep[b].any()]
            ).mean()
            if x.dim() > 2
            else None
        ),
        "pad_zero": None,
    }
    if pad_id != 0:
        keep0 = labels != 0
        y0 = labels.masked_fill(~keep0, 0)
        nll0 = -logp.gather(-1, y0[..., None]).squeeze(-1)
        variants["pad_zero"] = ((1 - eps) * nll0 + eps * total / vocab)[keep0].mean()
    # the pad positions' losses zeroed, but counted in the mean (loss.masked_fill(pad,
    # 0).mean()): named only where no other candidate, nor the right answer, gives it
    pad_denominator = pytorch[keep].sum() / keep.numel()
    others = [v for v in (variants["pytorch"], *variants.values()) if v is not None]
    distinct = all(not torch.allclose(pad_denominator, v, rtol=1e-3, atol=1e-4) for v in others)
    variants["pad_denominator"] = pad_denominator if distinct else None
    return variants
