"""checking.sequence_relations: runs of repeats collapsed; tuple keys come back as strings."""

from transformer_course.checking.sequence_relations import (
    collapsed_runs,
    cut_short,
    fitting_reorderings,
    keys_as_strings,
)


def test_collapsed_runs_named_with_the_run():
    message = collapsed_runs(["a", "b", "c"], ["a", "b", "b", "b", "c"])
    assert "run of equal consecutive items kept once ('b', 3 times in a row" in message
    assert "missing" not in message  # a run inside the sequence: no lost end looks the same


def test_collapsed_run_at_the_end_names_the_lost_last_item_too():
    message = collapsed_runs([1, 2, 0], [1, 2, 0, 0])
    assert "kept once" in message and "Or the last item alone is missing" in message


def test_collapsed_runs_silent_otherwise():
    assert collapsed_runs([1, 3], [1, 2, 3]) == ""  # an item dropped, not a run collapsed
    assert collapsed_runs([1, 2, 3], [1, 2, 3, 4]) == ""
    assert collapsed_runs("ab", "abb") == ""  # strings are not sequences of items here


def test_keys_as_strings_names_the_format():
    expected = {(1, 12): 2, (11, 2): 1, (3, 4): 1}
    joined = {f"{a}-{b}": n for (a, b), n in expected.items()}
    assert "written as its items joined by '-'" in keys_as_strings(joined, expected)
    concatenated = {"112": 3, "34": 1}  # (1, 12) and (11, 2) share '112'
    message = keys_as_strings(concatenated, expected)
    assert "concatenated (str(a) + str(b))" in message and "collide" in message


def test_keys_as_strings_without_a_format_says_only_the_type():
    message = keys_as_strings({"x": 1}, {(1, 2): 1})
    assert message.startswith("Your keys are strings") and "written as" not in message
    assert keys_as_strings({(1, 2): 1}, {(1, 2): 2}) == ""


def test_fitting_reorderings_names_the_change_every_row_shows():
    # one row cannot tell reversed from sorted descending; a second row can
    assert fitting_reorderings([[6, 5, 4]], [[4, 5, 6]]) == [
        "in reverse order (seq[::-1], reversed(seq), torch.flip)",
        "sorted in descending order (sorted(seq, reverse=True))",
    ]
    assert fitting_reorderings([[6, 5, 4], [1, 9, 2]], [[4, 5, 6], [2, 9, 1]]) == [
        "in reverse order (seq[::-1], reversed(seq), torch.flip)"
    ]
    # forms built from the reordered items (a marker appended after the change)
    assert fitting_reorderings([[5, 6, 4, 3]], [[4, 5, 6]], lambda s: [s, [*s, 3]]) == [
        "rotated left by one (the first item moved to the end)"
    ]
    assert fitting_reorderings([[4, 5, 6]], [[4, 5, 6]]) == []  # nothing moved
    assert fitting_reorderings([[7, 5, 4]], [[4, 5, 6]]) == []  # other items


def test_cut_short_names_the_early_stop_by_how_many_items_came_back():
    """A list that holds the right first items and nothing after them (round 34,
    blind28a-encode-map-default-as-iterable was told only "look each token up")."""
    one = cut_short([3], [3, 1, 4, 1, 5])  # zip(items, [x]) or a return inside the loop
    assert "none of the 4 after it" in one and "stop at the shortest" in one, one
    assert "return inside the loop" in one, one
    last = cut_short([3, 1, 4, 1], [3, 1, 4, 1, 5])
    assert "Only the last item is missing" in last and "range(len(items) - 1)" in last, last
    middle = cut_short((3, 1), (3, 1, 4, 1, 5))
    assert "the first 2, right, and none of the 3 after them" in middle, middle
    assert cut_short([3, 1, 4, 1, 5], [3, 1, 4, 1, 5]) == ""
    assert cut_short([1, 4], [3, 1, 4]) == ""  # not the first items
    assert cut_short([7], [7, 2, 7]) == ""  # the last item too: no telling which end
    assert cut_short([], [1, 2]) == ""
