"""checking.tie_breaking: known mistakes that agree on the inputs run, told apart by extra
calls of the learner's code."""

from transformer_course.checking.failure import CheckFailure
from transformer_course.checking.tie_breaking import split_candidates

#: two mistakes of a count that agree at n == 2: 2 * n and n + 2
CANDIDATES = ["doubled", "plus two"]
PREDICT = {"doubled": lambda n: 2 * n, "plus two": lambda n: n + 2}


def predict(candidate, n):
    return PREDICT[candidate](n)


def test_a_probe_where_they_disagree_keeps_the_one_the_learner_matches():
    calls = []

    def observe(n):
        calls.append(n)
        return n + 2

    assert split_candidates(CANDIDATES, [2, 3, 5], predict, observe) == ["plus two"]
    assert calls == [3]  # 2 tells nothing (both give 4), 3 tells them apart, then it stops


def test_a_probe_that_raises_or_that_no_candidate_explains_keeps_them_all():
    def raises(n):
        raise CheckFailure("the learner's code raised")

    assert split_candidates(CANDIDATES, [3], predict, raises) == CANDIDATES
    assert split_candidates(CANDIDATES, [3], predict, lambda n: 0) == CANDIDATES


def test_at_most_max_calls_probes_are_run():
    calls = []

    def observe(n):
        calls.append(n)
        raise ValueError

    split_candidates(CANDIDATES, [3, 4, 5, 6, 7], predict, observe, max_calls=2)
    assert calls == [3, 4]
