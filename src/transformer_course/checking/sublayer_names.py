"""A transformer layer's sub-layers named in words, from their usual attribute names, for
messages about layers (the layer-mistake tables and the localisation by hooks both use it;
it imports nothing, so neither pulls in the other's dependencies)."""

from __future__ import annotations

__all__ = ["sublayer_words"]

_SUBLAYER_WORDS = {
    "self_attn": "self-attention",
    "cross_attn": "cross-attention",
    "attn": "attention",
    "attention": "attention",
    "feed_forward": "feed-forward",
    "ffn": "feed-forward",
    "mlp": "MLP",
}


def sublayer_words(attr: str) -> str:
    """A sub-layer's attribute in words ("cross_attn" -> "cross-attention"), or the
    attribute quoted when its name is not a usual one."""
    return _SUBLAYER_WORDS.get(attr, f"`{attr}`")
