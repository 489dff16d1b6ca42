"""checking.combinations: a wrong tensor taken apart as a weighted sum of known parts."""

import torch

from transformer_course.checking.combinations import describe_weights, fit_weights


def test_fit_weights_finds_the_weights_that_reproduce_the_value():
    gen = torch.Generator().manual_seed(0)
    rows, positions = torch.randn(2, 3, 4, generator=gen), torch.randn(2, 3, 4, generator=gen)
    found = fit_weights(2.0 * rows + 2.0 * positions, {"E": rows, "P": positions})
    assert found is not None
    assert abs(found["E"] - 2.0) < 1e-6 and abs(found["P"] - 2.0) < 1e-6
    assert describe_weights(found, {"E": 2.0, "P": 1.0}) == (
        "yours is 2·E + 2·P; the right value is 2·E + 1·P"
    )


def test_fit_weights_says_nothing_when_no_weights_fit():
    gen = torch.Generator().manual_seed(1)
    rows, positions = torch.randn(2, 3, 4, generator=gen), torch.randn(2, 3, 4, generator=gen)
    assert fit_weights(rows * positions, {"E": rows, "P": positions}) is None  # not a sum
    assert fit_weights(rows, {"E": rows, "F": 2 * rows}) is None  # parts alike
    assert fit_weights(rows[0], {"E": rows, "P": positions}) is None  # other shapes
