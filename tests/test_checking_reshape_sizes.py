"""checking.reshape_sizes: a reshape that asks for another named size in exactly one place
is named (all names of that value listed); two places wrong, a 1, or another error: nothing."""

from __future__ import annotations

from transformer_course.checking.reshape_sizes import wrong_size_note

SIZES = {"batch": 2, "len": 3, "num_heads": 2, "d_head": 4}
LAYOUTS = [("batch", "len", "num_heads", "d_head")]


def _error(shape, size=48):
    return f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {size}"


def test_one_size_from_the_wrong_variable():
    note = wrong_size_note(_error([2, 3, 2, 3]), SIZES, LAYOUTS)
    assert "in place of d_head = 4 it has 3, which is len here" in note
    both = wrong_size_note(_error([2, 3, 2, 2]), SIZES, LAYOUTS)
    assert "which is batch or num_heads here" in both


def test_silent_otherwise():
    assert wrong_size_note(_error([3, 2, 2, 3]), SIZES, LAYOUTS) == ""  # two places
    assert wrong_size_note(_error([1, 3, 2, 4]), SIZES, LAYOUTS) == ""  # a literal 1
    assert wrong_size_note(_error([2, 3, 2, 5]), SIZES, LAYOUTS) == ""  # no name is 5
    assert wrong_size_note(_error([2, 12, 2]), SIZES, LAYOUTS) == ""  # another rank
    assert wrong_size_note("mat1 and mat2 shapes cannot be multiplied", SIZES, LAYOUTS) == ""
