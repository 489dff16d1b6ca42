"""Diagnosis by single edits of the reference: when a learner's result is wrong and no
mistake the check knows explains it, the edit of the reference that reproduces the
learner's results on every input the check ran is named (:mod:`.edits`: the edits and
their sentences; :mod:`.search`: recording the calls, running the edits, matching;
:mod:`.probes`: new inputs that put an edit found on one wrong result to the test)."""

from transformer_course.checking.deviations.edits import Edit, edits_of
from transformer_course.checking.deviations.search import (
    FROZEN_ITEMS,
    Raised,
    Recorded,
    TooLargeToFreeze,
    Variant,
    diagnose,
    explained,
    frozen,
    matching,
    reference_function,
    same,
    search_edits,
    structure,
    torch_state_kept,
    variants_of,
)

__all__ = [
    "FROZEN_ITEMS",
    "Edit",
    "Raised",
    "Recorded",
    "TooLargeToFreeze",
    "Variant",
    "diagnose",
    "edits_of",
    "explained",
    "frozen",
    "matching",
    "reference_function",
    "same",
    "search_edits",
    "structure",
    "torch_state_kept",
    "variants_of",
]
