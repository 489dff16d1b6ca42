"""Course content the grader enforces: the families of library APIs that compute an
exercise for the learner.

An exercise's ``forbidden`` (in its lesson's registry entry, ``checks/<topic>.py``) names
one API; each stands for its whole family here, and for the families that can be set up
to compute it. A lesson that forbids a new API adds its family here, never in the grader:
the grader (``grader/static.py``, ``grader/policies.py``) reads these tables and decides,
and ``tests/test_grader_forbidden.py`` runs every member against a hand-written result.
"""

from __future__ import annotations

import fnmatch
import importlib
import sys
import warnings

__all__ = [
    "FAMILIES",
    "INSTEAD",
    "WIDER",
    "advice",
    "expand_forbidden",
    "family_of",
    "matches",
    "private_or_opaque",
    "resolve",
]

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

# What to write instead, per family: the notebook's check and the grader say the same.
INSTEAD: dict[str, str] = {
    "softmax": "exponentiate the shifted scores and divide by their sum yourself",
    "attention": "compute the scores, the mask and the weighted sum of the values yourself",
    "multi_head_attention": "split the heads, attend with your own attention and merge them",
    "transformer": "build the layer from your own attention, norm and feed-forward modules",
    "layer_norm": "normalise with the mean and variance over the last axis yourself",
    "group_norm": "normalise with the mean and variance over the last axis yourself",
    "rms_norm": "divide by the root of the mean of the squares over the last axis yourself",
    "one_hot": "build the one-hot rows with comparisons or indexing",
    "embedding": "build the one-hot rows with comparisons or indexing",
    "cosine_similarity": "divide the dot products by the product of the norms yourself",
    "cross_entropy": "take the log-probabilities of the targets and average them yourself",
}

RESOLVABLE = {"torch", "numpy", "scipy", "math"}
# Below these, any name reaches every operator without its public name.
OPAQUE_PREFIXES = ("torch.ops", "torch._C")

_objects: dict[str, object] = {}


def resolve(dotted: str):
    """The object a dotted name stands for (only in well-known libraries), or None."""
    if dotted in _objects:
        return _objects[dotted]
    result = None
    if dotted.split(".")[0] in RESOLVABLE:
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1):
            module_name = ".".join(parts[:cut])
            try:
                obj = sys.modules.get(module_name) or importlib.import_module(module_name)
            except Exception:
                continue
            try:
                with warnings.catch_warnings():  # numpy warns on some old aliases
                    warnings.simplefilter("ignore")
                    for attr in parts[cut:]:
                        obj = getattr(obj, attr)
                result = obj
            except AttributeError:
                result = None
            break
    _objects[dotted] = result
    return result


def matches(dotted: str, forbidden: str) -> bool:
    """``dotted`` is ``forbidden``: the same name, a name its pattern matches, or the same
    object under another name (``torch.nn.modules.activation.Softmax``)."""
    if dotted == forbidden or fnmatch.fnmatchcase(dotted, forbidden):
        return True
    if any(ch in forbidden for ch in "*?["):
        return False
    target = resolve(forbidden)
    return target is not None and resolve(dotted) is target


def family_of(name: str) -> str | None:
    """The family a forbidden API belongs to (None: it has none)."""
    for family, members in FAMILIES.items():
        if any(matches(name, member) for member in members):
            return family
    return None


def _with_wider(families: set[str]) -> set[str]:
    closed, stack = set(), list(families)
    while stack:
        family = stack.pop()
        if family not in closed:
            closed.add(family)
            stack.extend(WIDER.get(family, ()))
    return closed


def expand_forbidden(forbidden: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The forbidden APIs with every member of each family one of them belongs to, and of
    the families that can compute it (:data:`WIDER`)."""
    names = list(forbidden)
    families = {f for f in map(family_of, forbidden) if f is not None}
    for family in FAMILIES:  # in a fixed order
        if family in _with_wider(families):
            names += [member for member in FAMILIES[family] if member not in names]
    return tuple(names)


def private_or_opaque(dotted: str) -> bool:
    """A name below ``torch.ops``/``torch._C``, or a private name of a library: the grader
    does not watch these run (wrapping them breaks torch itself); it proves them from the
    source of the exercise's own answer cell, and flags them elsewhere."""
    opaque = any(dotted == p or dotted.startswith(p + ".") for p in OPAQUE_PREFIXES)
    return opaque or private(dotted)


def private(dotted: str) -> bool:
    """A name below a library that its authors keep private (``torch._softmax``)."""
    parts = dotted.split(".")
    return parts[0] in RESOLVABLE and any(
        part.startswith("_") and not (part.startswith("__") and part.endswith("__"))
        for part in parts[1:]
    )


def short_name(dotted: str) -> str:
    """How lessons write an API: ``F.softmax``, ``nn.RMSNorm``, ``x.softmax``."""
    for prefix, short in (
        ("torch.nn.functional.", "F."),
        ("torch.nn.", "nn."),
        ("torch.Tensor.", "<tensor>."),
    ):
        if dotted.startswith(prefix):
            return short + dotted.removeprefix(prefix)
    return dotted


def advice(api: str, forbidden: tuple[str, ...] | list[str] = ()) -> str:
    """ "`F.one_hot` computes the answer for you; build the one-hot rows with comparisons or
    indexing": what the notebook's check and the grader both say about a call of ``api`` in
    an exercise that forbids ``forbidden`` (the advice is for the exercise's own family)."""
    if api.startswith("<tensor>."):
        api = "torch.Tensor." + api.removeprefix("<tensor>.")
    family = family_of(api)
    for name in forbidden:
        own = family_of(name)
        if own is not None and family in _with_wider({own}):
            family = own
            break
    instead = INSTEAD.get(family or "", "write it with basic tensor operations")
    return f"`{short_name(api)}` computes the answer for you; {instead}"
