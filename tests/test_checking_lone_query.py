"""checking.lone_query: a step skipped when there is a single query, told by the same call
with that query given twice."""

import torch

from transformer_course.checking.lone_query import (
    doubled_query,
    lone_query_text,
    skipped_for_lone_query,
)
from transformer_course.reference.attention import scaled_dot_product_attention


def _attention(q, k, v, mask):
    return scaled_dot_product_attention(q, k, v, mask)[0]


def _inputs():
    generator = torch.Generator().manual_seed(0)
    q = torch.randn(2, 1, 4, generator=generator)  # (batch, 1, d)
    k = torch.randn(2, 5, 4, generator=generator)
    v = torch.randn(2, 5, 3, generator=generator)
    mask = torch.tensor([[True, True, True, False, False]] * 2)[:, None]  # (2, 1, 5)
    return q, k, v, mask


def test_doubled_query_repeats_the_query_and_a_mask_row_of_one():
    q, _, _, mask = _inputs()
    q2, mask2 = doubled_query(q, mask)
    assert q2.shape == (2, 2, 4) and torch.equal(q2[:, 0], q2[:, 1])
    assert mask2.shape == (2, 2, 5) and torch.equal(mask2[:, 0], mask[:, 0])
    assert doubled_query(q)[1] is None


def test_a_mask_skipped_for_one_query_only_is_told_from_one_never_applied():
    q, k, v, mask = _inputs()

    def shortcut(q, mask):  # the mask dropped when len_q == 1
        return _attention(q, k, v, mask if q.shape[-2] > 1 else None)

    def never(q, mask):
        return _attention(q, k, v, None)

    def expected(q, mask):
        return _attention(q, k, v, mask)

    # both give the same output on the lone query
    assert torch.equal(shortcut(q, mask), never(q, mask))
    assert skipped_for_lone_query(shortcut, expected, q, mask)
    assert not skipped_for_lone_query(never, expected, q, mask)


def test_nothing_is_said_of_several_queries_or_a_call_that_raises():
    q, k, v, mask = _inputs()

    def expected(q, mask):
        return _attention(q, k, v, mask)

    def raises(q, mask):
        raise RuntimeError("no")

    q3 = torch.cat([q, q, q], dim=-2)
    assert not skipped_for_lone_query(expected, expected, q3, mask)
    assert not skipped_for_lone_query(raises, expected, q, mask)


def test_the_text_names_the_step_and_the_two_query_call():
    text = lone_query_text("your mask", "applies it", "Why.", "Do this.")
    assert "single query (len_q == 1) your mask is not applied" in text
    assert "given twice (len_q = 2) applies it" in text
    assert text.endswith("Why. Do this.")
