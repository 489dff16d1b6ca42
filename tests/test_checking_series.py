"""Linear or geometric growth of a sequence (checking.series)."""

import numpy as np

from transformer_course.checking.series import series_kind


def test_linear_and_geometric_series_are_told_apart():
    assert series_kind(np.linspace(1, 10000, 5)) == ("linear", 2499.75)
    kind, factor = series_kind(10000 ** (np.arange(0, 10, 2) / 10))
    assert kind == "geometric" and np.isclose(factor, 10000**0.2)
    assert series_kind([1.0, 100.0]) is None  # two values are both
    assert series_kind([1.0, 1.0, 1.0]) is None  # constant: neither
    assert series_kind([1.0, 2.0, 5.0]) is None
    assert series_kind([1.0, np.nan, 3.0]) is None
