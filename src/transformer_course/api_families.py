"""Course content the grader enforces: the families of library APIs that compute an
exercise for the learner.

An exercise's ``forbidden`` (in its lesson's registry entry, ``checks/<topic>.py``) names
one API; each stands for its whole family here, and for the families that can be set up
to compute it. A lesson that forbids a new API adds its family here, never in the grader:
the grader (``grader/static.py``, ``grader/policies.py``) reads these tables and decides,
and ``tests/test_grader_forbidden.py`` runs every member against a hand-written result.
"""

from __future__ import annotations

__all__ = ["FAMILIES", "WIDER"]

# Each forbidden API stands for every other spelling of the same computation: its family
# (patterns; every member exists in the torch the course pins, and computes what the
# family's first member does: tests/test_grader_forbidden.py runs each one).
FAMILIES: dict[str, tuple[str, ...]] = {
    "softmax": (  # softmax, and what gives it in one step (log_softmax, softmin)
        "torch.softmax",
        "torch.nn.functional.softmax",
        "torch.special.softmax",
        "torch.Tensor.softmax",
        "torch._softmax",
        "torch._safe_softmax",
        "torch._masked_softmax",
        "torch.ops.aten.*softmax*",
        "torch.nn.Softmax",
        "torch.nn.modules.activation.Softmax",
        "torch.nn.Softmax2d",
        "scipy.special.softmax",
        "torch.log_softmax",
        "torch.nn.functional.log_softmax",
        "torch.special.log_softmax",
        "torch.Tensor.log_softmax",
        "torch._log_softmax",
        "torch.nn.LogSoftmax",
        "scipy.special.log_softmax",
        "torch.nn.functional.softmin",
        "torch.nn.Softmin",
    ),
    "attention": (  # scaled dot-product attention computed by the library
        "torch.nn.functional.scaled_dot_product_attention",
        "torch._C._nn.scaled_dot_product_attention",
        "torch.ops.aten.*scaled_dot_product*",
        "torch._scaled_dot_product_*",
        "torch.nn.attention.flex_attention.flex_attention",
    ),
    "multi_head_attention": (
        "torch.nn.MultiheadAttention",
        "torch.nn.modules.activation.MultiheadAttention",
        "torch.nn.functional.multi_head_attention_forward",
        "torch._native_multi_head_attention",
        "torch.ops.aten.*multi_head_attention*",
    ),
    "transformer": (
        "torch.nn.Transformer",
        "torch.nn.TransformerEncoderLayer",
        "torch.nn.TransformerDecoderLayer",
        "torch.nn.TransformerEncoder",
        "torch.nn.TransformerDecoder",
        "torch._transformer_encoder_layer_fwd",
        "torch.ops.aten.*transformer_encoder_layer*",
    ),
    "layer_norm": (
        "torch.nn.LayerNorm",
        "torch.nn.modules.normalization.LayerNorm",
        "torch.nn.functional.layer_norm",
        "torch.layer_norm",
        "torch.native_layer_norm",
        "torch.ops.aten.*layer_norm*",
    ),
    "group_norm": (
        "torch.nn.GroupNorm",
        "torch.nn.functional.group_norm",
        "torch.group_norm",
        "torch.native_group_norm",
        "torch.ops.aten.*group_norm*",
    ),
    "rms_norm": (
        "torch.nn.RMSNorm",
        "torch.nn.modules.normalization.RMSNorm",
        "torch.nn.functional.rms_norm",
        "torch.rms_norm",
        "torch._fused_rms_norm",
        "torch.ops.aten.*rms_norm*",
    ),
    "one_hot": (
        "torch.nn.functional.one_hot",
        "torch._C._nn.one_hot",
        "torch.ops.aten.one_hot*",
    ),
    "embedding": (
        "torch.nn.functional.embedding",
        "torch.embedding",
        "torch.nn.Embedding",
        "torch.nn.modules.sparse.Embedding",
        "torch.ops.aten.embedding*",
        "torch.nn.functional.embedding_bag",
        "torch.embedding_bag",
        "torch._embedding_bag*",
        "torch.nn.EmbeddingBag",
        "torch.ops.aten.*embedding_bag*",
    ),
    "cosine_similarity": (
        "torch.nn.functional.cosine_similarity",
        "torch.cosine_similarity",
        "torch.nn.CosineSimilarity",
        "torch.nn.modules.distance.CosineSimilarity",
        "torch.ops.aten.cosine_similarity*",
    ),
    "cross_entropy": (
        "torch.nn.functional.cross_entropy",
        "torch.nn.CrossEntropyLoss",
        "torch.nn.modules.loss.CrossEntropyLoss",
        "torch._C._nn.cross_entropy_loss",
        "torch.ops.aten.cross_entropy_loss*",
    ),
}
# Families whose APIs can be set up to compute another family's result (attention with
# identity values is a softmax; GroupNorm with one group over (N, C) is a LayerNorm; a
# Transformer layer with zero weights is its LayerNorm; an embedding of the identity
# matrix is one-hot): forbidding a family forbids these too (tests run each such use).
WIDER: dict[str, tuple[str, ...]] = {
    "softmax": ("attention",),
    "attention": ("multi_head_attention",),
    "multi_head_attention": ("transformer",),
    "layer_norm": ("group_norm", "transformer"),
    "one_hot": ("embedding",),
}
