"""Decoding: lesson 09's greedy decoding of an encoder-decoder model, with one knob per
classic mistake. Shapes: src (batch, len_src), tokens (batch, <= max_len)."""

from __future__ import annotations

import torch
from torch import nn

__all__ = ["greedy_decode_f"]


def greedy_decode_f(
    model: nn.Module,
    src: torch.Tensor,
    max_len: int,
    bos_id: int,
    eos_id: int,
    *,
    keep_bos: bool = False,
    pad_finished: bool = True,
    fill: str = "pad",  # what finished rows get: "pad", "eos", "zero"
    early_stop: bool = True,
    position: int = -1,
    argmax_dim: str = "vocab",  # or "positions"
    feed: str = "prefix",  # "prefix", "last", "one_pass"
    steps: int | None = None,
    keep_eos: bool = True,
) -> torch.Tensor:
    """Lesson 09's greedy decoding of ``model`` (its ``encode``, ``decode`` and ``pad_id``):
    src (batch, len_src) -> tokens (batch, <= max_len), <bos> dropped, finished rows
    padded, with one knob per classic mistake: ``keep_bos``, ``pad_finished`` False,
    ``fill`` ("pad", "eos", "zero": what finished rows get), ``early_stop`` False,
    ``position`` (the decoder position read), ``argmax_dim`` ("vocab" or "positions"),
    ``feed`` ("prefix" right, "last": only the last token fed, "one_pass": all steps in
    one call on <bos> only), ``steps`` (other than max_len), ``keep_eos`` False."""
    pad = model.pad_id
    steps = max_len if steps is None else steps
    with torch.no_grad():
        memory = model.encode(src)
        batch = src.shape[0]
        if feed == "one_pass":
            inputs = torch.full((batch, steps), bos_id, dtype=torch.long)
            logits = model.decode(inputs, memory, src)  # (batch, steps, vocab)
            tokens = logits.argmax(-1)
            finished = torch.zeros(batch, dtype=torch.bool)
            out = []
            for t in range(steps):
                token = tokens[:, t].masked_fill(finished, pad)
                out.append(token)
                finished = finished | (token == eos_id)
            return torch.stack(out, dim=1)
        tokens = torch.full((batch, 1), bos_id, dtype=torch.long)
        finished = torch.zeros(batch, dtype=torch.bool)
        for _ in range(steps):
            inputs = tokens[:, -1:] if feed == "last" else tokens
            logits = model.decode(inputs, memory, src)
            if argmax_dim == "positions":
                token = logits.argmax(dim=1)[:, -1]
            else:
                token = logits[:, position].argmax(dim=-1)
            if pad_finished:
                value = {"pad": pad, "eos": eos_id, "zero": 0}[fill]
                token = token.masked_fill(finished, value)
            tokens = torch.cat([tokens, token[:, None]], dim=1)
            finished = finished | (token == eos_id)
            if early_stop and finished.all():
                break
    out = tokens if keep_bos else tokens[:, 1:]
    if not keep_eos:
        out = out.masked_fill(out == eos_id, pad)
    return out
