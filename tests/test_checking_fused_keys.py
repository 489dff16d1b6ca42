"""checking.fused_keys: layers of a contract built as one fused layer, read off the
state dict's shapes, said only when the stacks are the only ones that fit."""

from __future__ import annotations

from transformer_course.checking.fused_keys import fused_layers_note

_ATTENTION = {
    "w_q.weight": (8, 8),
    "w_k.weight": (8, 8),
    "w_v.weight": (8, 8),
    "w_o.weight": (8, 8),
}


def test_queries_keys_values_in_one_layer():
    found = {"c_attn.weight": (24, 8), "w_o.weight": (8, 8)}
    note = fused_layers_note(found, _ATTENTION)
    assert "c_attn.weight has shape (24, 8): the weights of `w_q`, `w_k` and `w_v`" in note


def test_fused_biases_belong_to_the_fused_layer():
    expected = {**_ATTENTION, **{k.replace("weight", "bias"): (8,) for k in _ATTENTION}}
    found = {"qkv.weight": (24, 8), "qkv.bias": (24,), "w_o.weight": (8, 8), "w_o.bias": (8,)}
    assert "the weights of `w_q`, `w_k` and `w_v`" in fused_layers_note(found, expected)


def test_nothing_said_when_several_stacks_fit_or_keys_are_left_over():
    # two of four equal projections: which two, the shapes cannot tell
    assert fused_layers_note({"kv.weight": (16, 8), "w_q.weight": (8, 8)}, _ATTENTION) == ""
    # a fused layer and a key that no stack explains
    found = {"c_attn.weight": (24, 8), "proj.weight": (8, 8)}
    assert fused_layers_note(found, _ATTENTION) == ""
    # rows that add up to no stack
    assert fused_layers_note({"c_attn.weight": (20, 8), "w_o.weight": (8, 8)}, _ATTENTION) == ""
