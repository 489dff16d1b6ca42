"""checking.feature_subsets: which of a token's features a statistic was taken over."""

import torch

from transformer_course.checking.feature_subsets import feature_subset


def _rms(f):
    return f.pow(2).mean(-1, keepdim=True).sqrt()


def test_feature_subset_names_the_first_features_a_partial_norm_read():
    x = torch.randn(2, 3, 16, generator=torch.Generator().manual_seed(0))
    said = feature_subset(_rms(x[..., :1]), x, _rms)
    assert said.startswith("the first 1 of the 16 features (x[..., :1], 6.25 % of them)")
    assert "last 3" in feature_subset(_rms(x[..., -3:]), x, _rms)
    assert "odd ones" in feature_subset(_rms(x[..., 1::2]), x, _rms)


def test_feature_subset_says_nothing_for_the_whole_vector_or_another_statistic():
    x = torch.randn(4, 8, generator=torch.Generator().manual_seed(1))
    assert feature_subset(_rms(x), x, _rms) == ""
    assert feature_subset(x.abs().mean(-1, keepdim=True), x, _rms) == ""
