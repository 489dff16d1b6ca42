"""checking/normaliser_counts: whole-number counts of each term in a normaliser, and the
sums of segments normalised apart, measured from outputs; no claim otherwise."""

import torch

from transformer_course.checking.normaliser_counts import segment_constants, term_counts


def _terms(rows: int = 20, n: int = 5) -> torch.Tensor:
    scores = torch.randn(rows, n, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    return torch.exp(scores - scores.amax(dim=-1, keepdim=True))  # (rows, n)


def test_a_column_counted_twice_and_one_never_are_measured():
    terms = _terms()
    weights = torch.tensor([1.0, 2.0, 1.0, 0.0, 1.0], dtype=torch.float64)
    got = terms / (terms @ weights)[:, None]
    assert term_counts(got, terms) == [1, 2, 1, 0, 1]


def test_a_stray_term_is_measured_as_the_extra_column():
    terms = _terms()
    extra = torch.rand(
        terms.shape[0], generator=torch.Generator().manual_seed(1), dtype=torch.float64
    )
    got = terms / (terms.sum(dim=-1) + 2 * extra)[:, None]
    assert term_counts(got, terms, extra) == [1, 1, 1, 1, 1, 2]


def test_no_counts_for_a_sum_rescaled_by_a_non_integer_or_too_few_rows():
    terms = _terms()
    got = terms / (terms.sum(dim=-1) * 1.37 + terms[:, 0] ** 2)[:, None]
    assert term_counts(got, terms) is None
    few = _terms(rows=4)
    assert term_counts(few / few.sum(dim=-1, keepdim=True), few) is None
    assert term_counts(torch.full_like(terms, float("nan")), terms) is None


def test_blocks_normalised_apart_give_their_sums_and_rows_that_are_not_give_none():
    terms = _terms()
    right = terms / terms.sum(dim=-1, keepdim=True)
    bounds = [(0, 2), (2, 5)]
    apart = torch.cat(
        [piece / piece.sum(dim=-1, keepdim=True) for piece in terms.split([2, 3], -1)], -1
    )
    sums = segment_constants(apart, right, bounds)
    assert sums is not None and torch.allclose(sums, torch.ones_like(sums))
    noisy = right * torch.linspace(1, 2, 5, dtype=torch.float64)
    assert segment_constants(noisy, right, bounds) is None
