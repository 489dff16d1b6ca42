"""checking/parameter_scales.py: each parameter's own scale after one SGD step."""

from __future__ import annotations

import torch

from transformer_course.checking.parameter_scales import (
    covering_paths,
    described_parameters,
    parameter_scales,
    scale_groups,
)

NAMES = ["encoder.w.weight", "encoder.w.bias", "decoder.w.weight", "decoder.w.bias", "out.weight"]


def _grads():
    gen = torch.Generator().manual_seed(0)
    shapes = {"weight": (3, 2), "bias": (3,)}
    return {name: torch.randn(shapes[name.rsplit(".", 1)[1]], generator=gen) for name in NAMES}


def test_a_part_scaled_gives_two_groups_named_by_their_module():
    grads = _grads()
    start = {name: torch.zeros_like(g) for name, g in grads.items()}
    scale = {name: 0.25 if name.startswith("encoder.") else 1.0 for name in NAMES}
    state = {name: start[name] - 0.5 * scale[name] * grads[name] for name in NAMES}
    scales = parameter_scales(start, state, 0.5, grads)
    groups = scale_groups(scales)
    assert [round(s, 6) for s, _ in groups] == [1.0, 0.25]
    assert covering_paths(groups[1][1], NAMES) == ["encoder"]
    shapes = {name: g.shape for name, g in grads.items()}
    assert described_parameters(groups[1][1], NAMES, shapes) == "the parameters of model.encoder"
    biases = [n for n in NAMES if n.endswith(".bias")]
    assert described_parameters(biases, NAMES, shapes).startswith("every vector parameter")


def test_an_update_in_another_direction_has_no_scales():
    grads = _grads()
    start = {name: torch.zeros_like(g) for name, g in grads.items()}
    state = {name: start[name] - 0.5 * grads[name].flip(0) for name in NAMES}
    assert parameter_scales(start, state, 0.5, grads) is None
    assert parameter_scales(start, {}, 0.5, grads) is None  # a value that cannot be read


def test_a_near_zero_gradient_says_nothing_about_the_scale():
    grads = _grads()
    grads["out.weight"] = grads["out.weight"] * 1e-9  # rounding noise, such as a key bias
    start = {name: torch.zeros_like(g) for name, g in grads.items()}
    state = {name: start[name] - 0.5 * 0.3 * grads[name] for name in NAMES}
    state["out.weight"] = state["out.weight"] + 1e-12
    scales = parameter_scales(start, state, 0.5, grads)
    assert "out.weight" not in scales
    assert len(scale_groups(scales)) == 1
