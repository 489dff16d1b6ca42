"""checking.elementwise_functions: an activation named from its values, or described."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from transformer_course.checking.elementwise_functions import described_function

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
