"""checking.recovered_weights: the attention weights recovered from the values and the
output, and how they depart from the causal softmax, each cause named only when its
weights are the recovered ones."""

from __future__ import annotations

import math

import torch

from transformer_course.checking.recovered_weights import recover_weights, weights_departure

LENGTH, D_V = 5, 8
ALLOWED = torch.ones(LENGTH, LENGTH, dtype=torch.bool).tril()


def _problem(seed: int = 0):
    """Scores (2, 3, len, len) in float64, values (2, 3, len, d_v) in float32."""
    generator = torch.Generator().manual_seed(seed)
    scores = torch.randn(2, 3, LENGTH, LENGTH, generator=generator, dtype=torch.float64) * 2
    values = torch.randn(2, 3, LENGTH, D_V, generator=generator)
    return scores, values


def _softmax(scores):
    return torch.softmax(scores.masked_fill(~ALLOWED, float("-inf")), dim=-1)


def _departure(weights, scores, values):
    """What the module says of a float32 run that used ``weights``."""
    outputs = (weights.float() @ values).float()  # as a float32 module computes it
    recovered = recover_weights(outputs, values)
    assert recovered is not None
    return weights_departure(
        recovered,
        scores,
        ALLOWED,
        scores_are="q k^T / sqrt(d_head)",
        scale=0.25,
        recovered_from="the test's outputs",
    )


def test_the_weights_are_recovered_exactly_from_a_float32_run():
    scores, values = _problem()
    weights = _softmax(scores)
    recovered = recover_weights((weights.float() @ values), values)
    assert recovered is not None and recovered.dtype == torch.float64
    assert torch.allclose(recovered, weights, atol=1e-5)


def test_nothing_is_recovered_when_the_weights_are_not_determined():
    scores, values = _problem()
    weights = _softmax(scores).float()
    # as many keys as features: every output is some weighted sum
    square = torch.randn(2, 3, LENGTH, LENGTH)
    assert recover_weights(weights @ square, square) is None
    # two equal value rows: the weights of those keys cannot be told apart
    twins = values.clone()
    twins[..., 1, :] = twins[..., 0, :]
    assert recover_weights(weights @ twins, twins) is None
    # outputs that are not weighted sums of the values (a head's values rotated, say)
    rolled = (weights @ values).roll(1, dims=-1)
    assert recover_weights(rolled, values) is None


def test_right_weights_say_nothing():
    scores, values = _problem()
    assert _departure(_softmax(scores), scores, values) == ""


def test_weight_on_a_blocked_key_is_located():
    scores, values = _problem()
    found = _departure(torch.softmax(scores, dim=-1), scores, values)  # no mask
    assert "put weight on keys the mask blocks: head 0 of batch row 0, query 0, key 1" in found


def test_a_one_added_to_the_denominator_is_named_and_only_then():
    scores, values = _problem()
    exps = torch.exp(scores).masked_fill(~ALLOWED, 0.0)
    found = _departure(exps / (1 + exps.sum(-1, keepdim=True)), scores, values)
    assert "a 1 is added to the softmax's denominator" in found
    # a 2 added: the right softmax times a factor per row too, but not the +1's
    other = _departure(exps / (2 + exps.sum(-1, keepdim=True)), scores, values)
    assert "times a factor per query" in other and "a 1 is added" not in other
    assert "an extra term in the denominator" in other


def test_rows_that_are_not_normalised_are_located():
    scores, values = _problem()
    weights = _softmax(scores)
    weights = weights + 0.05 * ALLOWED / ALLOWED.sum(-1, keepdim=True)  # not one factor a row
    found = _departure(weights, scores, values)
    assert "do not sum to 1 over the keys: the row of head 0 of batch row 0, query 0" in found


def test_weights_scaled_per_row_after_the_softmax():
    scores, values = _problem()
    weights = _softmax(scores)
    found = _departure(weights / weights.amax(-1, keepdim=True), scores, values)
    assert "the right softmax times a factor per query" in found


def test_another_scale_of_the_scores_is_given_in_the_learners_terms():
    scores, values = _problem()
    found = _departure(_softmax(scores * 1.5), scores, values)
    # the right scores carry 0.25: the learner's carry 0.375
    assert "softmax of the right scores times 1.5: your scores are scaled by 0.375" in found


def test_the_base_2_exponential_is_named_by_its_factor():
    scores, values = _problem()
    found = _departure(_softmax(scores * math.log(2)), scores, values)
    assert "times 0.6931" in found and "the exponential in base 2" in found


def test_a_soft_cap_is_named_with_its_cap():
    scores, values = _problem()
    found = _departure(_softmax(3.0 * torch.tanh(scores / 3.0)), scores, values)
    assert "softmax of capped scores, 3 * tanh(s / 3)" in found


def test_other_scores_are_located_without_a_cause():
    scores, values = _problem()
    distance = (torch.arange(LENGTH)[:, None] - torch.arange(LENGTH)[None, :]).double()
    found = _departure(_softmax(scores - 0.5 * distance), scores, values)  # a linear bias
    assert "a softmax over the allowed keys" in found
    assert "the first wrong weight is at head 0 of batch row 0, query 1, key 0" in found
    for cause in ("a 1 is added", "capped", "times a factor", "scaled by"):
        assert cause not in found


def test_a_cap_is_not_named_for_another_nonlinear_change():
    scores, values = _problem()
    # the scores cubed: monotonic and nonlinear, like a cap, but a cap cannot give it
    found = _departure(_softmax(scores + 0.1 * scores**3), scores, values)
    assert "capped" not in found and "a softmax over the allowed keys" in found


def test_named_only_leaves_the_unnamed_departure_to_the_caller():
    scores, values = _problem()
    distance = (torch.arange(LENGTH)[:, None] - torch.arange(LENGTH)[None, :]).double()
    weights = _softmax(scores - 0.5 * distance)
    recovered = recover_weights(weights.float() @ values, values)
    said = {
        named_only: weights_departure(
            recovered,
            scores,
            ALLOWED,
            scores_are="s",
            scale=0.25,
            recovered_from="o",
            named_only=named_only,
        )
        for named_only in (True, False)
    }
    assert said[True] == "" and "the first wrong weight" in said[False]
    # a named cause is said either way
    capped = _softmax(3.0 * torch.tanh(scores / 3.0))
    recovered = recover_weights(capped.float() @ values, values)
    assert "capped" in weights_departure(
        recovered,
        scores,
        ALLOWED,
        scores_are="s",
        scale=0.25,
        recovered_from="o",
        named_only=True,
    )


def test_score_factor_and_its_dependence_on_the_length():
    """One factor per run is measured; a factor that changes with the length is told by
    its form (log(len) / log(N), len / N), and one for every length says nothing."""
    import math

    from transformer_course.checking.recovered_weights import length_scale_reading, score_factor

    torch.manual_seed(0)
    scores = torch.randn(2, 4, 4, dtype=torch.float64)
    allowed = torch.ones(4, 4, dtype=torch.bool).tril()
    got = torch.softmax((0.7 * scores).masked_fill(~allowed, float("-inf")), -1)
    assert abs(score_factor(got, scores, allowed) - 0.7) < 1e-6
    logn = {n: math.log(n) / math.log(128) for n in range(2, 7)}
    assert "log(len) / log(128)" in length_scale_reading(logn)
    assert "len / 16" in length_scale_reading({n: n / 16 for n in range(2, 7)})
    assert length_scale_reading({n: 0.8 for n in range(2, 7)}) == ""
