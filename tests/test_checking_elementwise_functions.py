"""checking.elementwise_functions: an activation named from its values, or described."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from transformer_course.checking.elementwise_functions import (
    described_function,
    factor_in_place,
    row_scaled_function,
)

SILU = "F.silu(z) = z * sigmoid(z)"


def test_a_catalogued_activation_is_named_and_the_right_one_is_not():
    z = torch.linspace(-3, 3, 40, dtype=torch.float64)
    assert described_function(z, torch.relu(z) ** 2, SILU).startswith("f(z) = F.relu(z) ** 2")
    assert described_function(z, F.softplus(z), SILU) == "f(z) = F.softplus(z)"
    assert described_function(z, F.silu(z), SILU) == ""


def test_an_unknown_activation_is_described_by_what_its_values_show():
    z = torch.linspace(-3, 3, 40, dtype=torch.float64)
    said = described_function(z, 0.5 * torch.relu(z) ** 1.5, SILU)
    assert said == "f(z) is exactly 0 for every negative z and 0.5 * z ** 1.5 for positive z"
    assert described_function(z, torch.cos(z), SILU) == ""
    assert described_function(z[:4], torch.relu(z[:4]), SILU) == ""


def test_a_function_times_a_constant_is_named_with_the_factor():
    z = torch.linspace(-3, 3, 40, dtype=torch.float64)
    assert described_function(z, 0.25 * torch.relu(z), "F.relu(z)") == "f(z) = 0.25 * F.relu(z)"
    # zero for negative z alone is true of the ReLU too: nothing said
    assert described_function(z, torch.relu(z).round(), "F.relu(z)").endswith("int())")
    assert described_function(z, torch.relu(z), "F.relu(z)") == ""


def test_a_normalisation_across_the_features_is_read_row_by_row():
    z = torch.randn(6, 10, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    assert row_scaled_function(z, torch.softmax(z, -1)) == (
        "torch.exp(z)",
        "divided by its sum over the features",
    )
    unit = F.normalize(torch.relu(z), dim=-1)
    assert row_scaled_function(z, unit) == ("F.relu(z)", "divided by its L2 norm over the features")
    assert row_scaled_function(z, torch.relu(z)) is None  # one factor for every row


def test_a_leaky_relu_is_named_with_its_slope_and_its_siblings_are_not():
    z = torch.linspace(-3, 3, 40, dtype=torch.float64)
    said = described_function(z, F.leaky_relu(z, 0.2), "F.relu(z)")
    assert said.startswith("f(z) = F.leaky_relu(z, negative_slope=0.2)")
    # PyTorch's default slope is the catalogue's own entry
    assert described_function(z, F.leaky_relu(z), "F.relu(z)") == "f(z) = F.leaky_relu(z)"
    # another factor on the positive side too: not a leaky ReLU (a scaled one, or a PReLU)
    scaled = torch.where(z > 0, 2 * z, 0.1 * z)
    assert "leaky_relu" not in described_function(z, scaled, "F.relu(z)")
    # the identity (slope 1) and the ReLU (slope 0) are not leaks
    assert "leaky" not in described_function(z, z, "F.relu(z)")
    assert described_function(z, torch.relu(z), "F.relu(z)") == ""


def test_the_factor_in_the_place_of_z_is_named_with_both_causes():
    """blind30c: z * z.sigmoid_() gives sigmoid(z) ** 2; the SiLU itself, or the SiLU
    squared, are not that."""
    z = torch.linspace(-4, 4, 41, dtype=torch.float64)
    said = described_function(z, torch.sigmoid(z) ** 2, SILU)
    assert said.startswith("f(z) = sigmoid(z) * sigmoid(z)") and "in-place" in said
    assert "both sides" in said
    assert factor_in_place(z, F.silu(z), SILU) == ""
    assert factor_in_place(z, F.silu(z) ** 2, SILU) == ""
    assert factor_in_place(z, torch.relu(z) ** 2, "F.relu(z)") == ""
