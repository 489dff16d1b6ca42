"""Reading a pairwise table's stray factor as powers of per-row and per-column quantities
(checking.pair_factors)."""

import numpy as np

from transformer_course.checking.pair_factors import pair_factors


def _inputs(n=4, m=4, d=5, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(n, d)) * rng.uniform(0.5, 3.0, size=(n, 1))
    b = rng.normal(size=(m, d)) * rng.uniform(0.5, 3.0, size=(m, 1))
    return a, b, np.linalg.norm(a, axis=-1), np.linalg.norm(b, axis=-1)


def test_a_length_copied_squared_or_read_at_the_other_index_is_read():
    a, b, la, lb = _inputs()
    right = a @ b.T / np.outer(la, lb)
    rows, cols = {"a_i": la, "b_i": lb}, {"b_j": lb, "a_j": la}
    # a's length twice: got / right = |b_j| / |a_i|
    assert pair_factors(a @ b.T / (la[:, None] ** 2), right, rows, cols) == {
        "a_i": -1.0,
        "b_j": 1.0,
    }
    # b divided by a's lengths: got / right = |b_j| / |a_j|
    got = a @ b.T / np.outer(la, la)
    assert pair_factors(got, right, rows, cols) == {"b_j": 1.0, "a_j": -1.0}
    # the right table, a constant factor, and an unrelated table: no reading
    assert pair_factors(right, right, rows, cols) is None
    assert pair_factors(2 * right, right, rows, cols) is None
    assert pair_factors(np.ones_like(right), right, rows, cols) is None


def test_quantities_that_cannot_be_told_apart_give_no_reading():
    a, b, la, lb = _inputs(3, 2)
    right = a @ b.T / np.outer(la, lb)
    # the same quantity twice: collinear, so no reading
    assert pair_factors(right * la[:, None], right, {"x": la, "y": 2 * la}, {}) is None
    # a quantity of the wrong length
    assert pair_factors(right, right, {"x": lb}, {}) is None
