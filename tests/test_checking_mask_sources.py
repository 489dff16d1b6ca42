"""A key padding mask built from the wrong quantity (checking.mask_sources): each source is
named only when it gives the learner's output on the check's input AND on the probes that
split the family (the vectors zero at the pads, a real id 0)."""

from __future__ import annotations

import torch

from transformer_course.checking.mask_sources import (
    NO_MASK,
    OTHER_IDS,
    PAD_ZERO,
    VECTORS,
    agreeing_sources,
    key_mask_sources,
    probes,
)

PAD = 3
IDS = torch.tensor([[5, 0, 7, PAD, PAD], [6, 8, 9, 4, PAD]])  # (batch, len_k); id 0 is real
OTHER = torch.tensor([[5, 6, PAD, PAD, PAD], [6, 8, 9, 4, 1]])  # another sequence's ids
VALUES = (torch.arange(10, dtype=torch.float64).reshape(2, 5) + 1.0) ** 2  # (batch, len_k)


def _attend(x, mask):
    """A stand-in for an attention read-out: the mean of the values over the allowed keys."""
    weights = mask.double()
    return (x["values"] * weights).sum(-1) / weights.sum(-1)


def _inputs():
    vectors = torch.randn(2, 5, 4, generator=torch.Generator().manual_seed(0)) + 5.0
    return {"ids": IDS, "vectors": vectors, "other": OTHER, "values": VALUES}


def _named(learner_mask):
    """The sources left for a learner whose key mask is ``learner_mask(inputs)``."""
    inputs = _inputs()
    sources = key_mask_sources(ids="ids", pad_id=PAD, vectors="vectors", other_ids="other")
    tried = probes(inputs, ids="ids", pad_id=PAD, vectors="vectors")
    run = lambda x: _attend(x, learner_mask(x))  # noqa: E731
    return agreeing_sources(run, _attend, inputs, run(inputs), sources, tried)


def test_a_mask_from_the_vectors_is_told_from_no_mask_by_zeroing_the_pad_rows():
    # on the inputs alone both allow everything; the probe with zero rows splits them
    assert _named(lambda x: x["vectors"].abs().sum(-1) != 0) == [VECTORS]
    assert _named(lambda x: torch.ones(x["ids"].shape, dtype=torch.bool)) == [NO_MASK]


def test_the_other_ids_and_a_written_in_zero_are_each_named_alone():
    assert _named(lambda x: x["other"] != PAD) == [OTHER_IDS]
    assert _named(lambda x: x["ids"] != 0) == [PAD_ZERO]


def test_the_right_mask_and_an_unlisted_one_name_nothing():
    assert _named(lambda x: x["ids"] != PAD) == []
    assert _named(lambda x: x["ids"] != 7) == []  # some other rule: nothing is claimed


def test_the_probes_change_only_what_splits_the_family():
    inputs = _inputs()
    zeroed, real_zero = probes(inputs, ids="ids", pad_id=PAD, vectors="vectors")
    assert (zeroed["vectors"][IDS == PAD] == 0).all() and torch.equal(zeroed["ids"], IDS)
    assert (zeroed["vectors"][IDS != PAD] != 0).all()
    assert real_zero["ids"][1, 0] == 0 and torch.equal(real_zero["ids"][:, 1:], IDS[:, 1:])
    assert len(probes(inputs, ids="ids", pad_id=0, vectors="vectors")) == 1  # no 0 probe
