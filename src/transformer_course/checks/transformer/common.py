"""Lesson 09's shared check machinery: the state-dict names the checks read, the
comparison of two results, and the hints that both ``Transformer``'s and
``greedy_decode``'s checks give."""

from __future__ import annotations

from collections.abc import Mapping

import torch

_SRC_TABLE = "src_embedding.embedding.weight"
_TGT_TABLE = "tgt_embedding.embedding.weight"
_OUT_WEIGHT = "output.weight"
_POSITIONS = "positional_encoding."  # buffers only: any layout is accepted


# ================================================================== shared helpers
def _close(got: torch.Tensor, expected: torch.Tensor, tol: Mapping[str, float]) -> bool:
    if tuple(got.shape) != tuple(expected.shape):
        return False
    return torch.allclose(got.detach().double(), expected.double(), **tol, equal_nan=True)


_INDEX_HINT = (
    "An id was larger than a table: source ids go through src_embedding (src_vocab_size "
    "rows), target ids through tgt_embedding (tgt_vocab_size rows). The encoder reads the "
    "source, encode(src_ids); the decoder reads the target."
)
_DECODE_SIZES_HINT = (
    "In greedy decoding the sizes that must agree are those of model.decode(tokens, memory, "
    "src_ids): tokens are the target so far (batch, steps), memory comes from "
    "model.encode(src_ids) (batch, len_src, d_model), and the third argument must be the "
    "source ids themselves, from which the cross-attention's padding mask is built (len_src "
    "long; the generated tokens do not fit there). Pass the same src_ids to encode and to "
    "every decode call, with one row per sentence."
)
