"""checking.scale_placement: the scale folded into a projection's input, its bias unscaled."""

import torch

from transformer_course.checking.scale_placement import scaled_before_projection


def _state(bias: bool = True):
    gen = torch.Generator().manual_seed(0)
    state = {}
    for name in ("w_q", "w_k", "w_v", "w_o"):
        state[f"{name}.weight"] = torch.randn(4, 4, generator=gen, dtype=torch.float64)
        if bias:
            state[f"{name}.bias"] = torch.randn(4, generator=gen, dtype=torch.float64)
    return state


def test_query_input_scaled_is_the_weight_scaled_and_the_bias_kept():
    state, x = _state(), torch.randn(3, 4, dtype=torch.float64)
    found = scaled_before_projection(state, 0.5)
    single = next(st for message, st in found.items() if "raw `query` before w_q" in message)
    got = x @ single["w_q.weight"].T + single["w_q.bias"]
    want = (x * 0.5) @ state["w_q.weight"].T + state["w_q.bias"]
    assert torch.allclose(got, want)
    assert torch.equal(single["w_k.weight"], state["w_k.weight"])


def test_split_over_both_inputs_scales_each_weight_by_the_root():
    state = _state()
    split = next(st for m, st in scaled_before_projection(state, 0.25).items() if "split" in m)
    assert torch.allclose(split["w_q.weight"], state["w_q.weight"] * 0.5)
    assert torch.allclose(split["w_k.weight"], state["w_k.weight"] * 0.5)
    assert torch.equal(split["w_q.bias"], state["w_q.bias"])


def test_keys_alone_are_no_candidate_and_no_bias_gives_none():
    assert not any("raw `key`" in m for m in scaled_before_projection(_state(), 0.5))
    assert scaled_before_projection(_state(bias=False), 0.5) == {}
