"""The one bounded formatter for learner values (transformer_course.checking.formatting.short):
the same text as repr for every ordinary value, and a message of bounded size whatever a
learner's code returns or raises (a 50 MiB string gave a 200 MB feedback page before)."""

from __future__ import annotations

import functools
import re

import numpy as np
import pytest
import torch

from transformer_course import registry
from transformer_course.checking import CheckFailure, short
from transformer_course.checks.tokenization import check_encode, check_tokenize
from transformer_course.checks.welcome import check_center_rows

MESSAGE_LIMIT = 5_000  # characters: a few KB, whatever the answer


def _self_holding_list():
    items = [1, "a"]
    items.append(items)
    return items


def _self_holding_dict():
    mapping = {"a": 1}
    mapping["self"] = mapping
    return mapping


ORDINARY = [
    0,
    -1.5,
    float("nan"),
    True,
    None,
    "b",
    "it's",
    "both ' and \"",
    b"bytes\x00",
    [],
    (),
    (1,),
    {},
    set(),
    frozenset(),
    frozenset({3}),
    {1, 2},
    [1, [2, (3, 4)], {"k": [None, 2.5]}],
    {("a", 1): {"b": []}},
    np.float32(1.25),
    np.int64(3),
    torch.tensor(2.0),
    [np.arange(3), torch.ones(2)],
    list(range(200)),  # longer than the limit: cut, as before
    "x" * 500,
    _self_holding_list(),
    _self_holding_dict(),
]


@pytest.mark.parametrize("value", ORDINARY, ids=lambda v: type(v).__name__)
def test_short_is_repr_cut_to_the_limit_for_ordinary_values(value):
    text = repr(value)
    expected = text if len(text) <= 300 else text[:297] + "..."
    assert short(value) == expected
    assert short(value, 20) == (text if len(text) <= 20 else text[:17] + "...")


def test_short_shows_small_arrays_and_the_shape_of_large_ones():
    assert short(np.array([1.0, 2.0])) == "ndarray([1., 2.], dtype=float64)"
    assert short(torch.zeros(40, 2)) == "<Tensor shape=(40, 2) dtype=torch.float32>"


def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


@functools.cache
def _huge(kind: str):
    """Answers no message may print in full."""
    return {
        "string": lambda: "a" * (50 << 20),  # 50 MiB
        "items": lambda: list(range(5_000_000)),
        "nested": lambda: _nested(200_000),
        "tensor": lambda: torch.zeros(20_000_000),
        "integer": lambda: 10**100_000,  # repr refuses it (int max str digits)
        "shared": lambda: [list(range(1000))] * 100_000,  # one list, shared: 10^8 items
    }[kind]()


HUGE = ["string", "items", "nested", "tensor", "integer", "shared"]


def _message(check, answer) -> str:
    with pytest.raises(CheckFailure) as info:
        check(answer)
    error = info.value
    return str(error) + error.learner_traceback


@pytest.mark.parametrize("kind", HUGE)
@pytest.mark.parametrize(
    "quiz", [ex for ex in registry.all_exercises() if ex.kind == "quiz"][:2], ids=lambda ex: ex.name
)
def test_a_huge_quiz_answer_gives_a_bounded_message(quiz, kind):
    value = _huge(kind)
    message = _message(quiz.check, lambda: value)
    assert len(message) < MESSAGE_LIMIT
    assert "returned" in message


@pytest.mark.parametrize("kind", HUGE)
@pytest.mark.parametrize("check", [check_tokenize, check_encode, check_center_rows])
def test_a_huge_function_answer_gives_a_bounded_message(check, kind):
    value = _huge(kind)
    message = _message(check, lambda *args, **kwargs: value)
    assert len(message) < MESSAGE_LIMIT


@pytest.mark.parametrize("kind", ["string", "items"])
def test_a_huge_exception_message_gives_a_bounded_message(kind):
    text = _huge(kind) if kind == "string" else str(_huge(kind)[:1_000_000])

    def tokenize(text_in):
        raise ValueError(text)

    message = _message(check_tokenize, tokenize)
    assert len(message) < MESSAGE_LIMIT
    assert "raised ValueError" in message


def test_a_boolean_mask_shows_its_entries_and_the_first_wrong_one():
    """Issue 22: a (6, 6) mask used to print as <Tensor shape=(6, 6) dtype=torch.bool> on
    both sides of "returned ..., expected ...", so the learner could not see the difference."""
    import torch

    from transformer_course.checking import Checker
    from transformer_course.checking.failure import CheckFailure

    causal = torch.ones(6, 6, dtype=torch.bool).tril()
    assert short(causal) == (
        "Tensor([[100000] [110000] [111000] [111100] [111110] [111111]] as 0/1, dtype=torch.bool)"
    )
    with pytest.raises(CheckFailure) as failure, Checker("look_ahead_mask") as c:
        c.expect_equal(causal.T, causal, "look_ahead_mask(6)")
    message = failure.value.message
    assert "<Tensor shape" not in message
    assert "First wrong entry at (0, 1): yours True, expected False (30 of 36 entries differ)" in (
        message
    )


def test_a_mask_that_holds_one_value_everywhere_is_said_to_be_so():
    """An all-False (or all-True) mask reads as such, before any hint about one entry."""
    from transformer_course.checking import Checker

    causal = torch.ones(4, 4, dtype=torch.bool).tril()
    for got, said in (
        (torch.zeros(4, 4, dtype=torch.bool), "Your mask is False everywhere"),
        (torch.ones(4, 4, dtype=torch.bool), "Your mask is True everywhere"),
    ):
        with pytest.raises(CheckFailure, match=said), Checker("demo") as c:
            c.expect_equal(got, causal, "demo(4)")
    with pytest.raises(CheckFailure) as failure, Checker("demo") as c:
        c.expect_equal(causal.T, causal, "demo(4)")
    assert "everywhere" not in failure.value.message


# ------------------------------------------------------------------ layouts (issue 22, class 6)
def _layout_message(got, expected, axes=None, **kwargs):
    from transformer_course.checking.layouts import match_layout

    layout = match_layout(got, expected, axes, **kwargs)
    return None if layout is None else layout.message


def test_match_layout_names_each_re_arrangement_in_the_callers_axis_names():
    g = torch.Generator().manual_seed(0)
    e = torch.randn(2, 3, 4, 4, generator=g, dtype=torch.float64)
    axes = ("batch", "num_heads", "len_q", "d_k")
    assert "len_q and d_k axes swapped" in _layout_message(e.transpose(2, 3), e, axes)
    assert "len_q axis in reverse order" in _layout_message(e.flip(2), e, axes)
    assert "halves of its last axis (d_k) swapped" in _layout_message(e.roll(2, -1), e, axes)
    assert "k + 1" in _layout_message(torch.cat([e[:, :, 1:], e[:, :, :1] + 7], 2), e, axes)
    # heads split with one view and no transpose: x (2, 4, 12) -> (2, 3, 4, 4)
    x = torch.randn(2, 4, 12, generator=g, dtype=torch.float64)
    split = x.view(2, 4, 3, 4).transpose(1, 2)
    assert "one view/reshape to (batch, num_heads, len_q, d_k) and no transpose" in (
        _layout_message(x.view(2, 3, 4, 4), split, axes, num_heads=3)
    )
    # heads merged with a plain reshape
    merged = split.transpose(1, 2).reshape(2, 4, 12)
    assert "merged with a plain reshape to (batch, len_q, d_model)" in _layout_message(
        split.reshape(2, 4, 12), merged, ("batch", "len_q", "d_model"), num_heads=3
    )
    # interleaved <-> halves on the last axis (with d_k = 4 the two are the same swap, and
    # then neither is named)
    assert _layout_message(torch.stack([e[..., :2], e[..., 2:]], -1).flatten(-2), e, axes) is None
    e8 = torch.randn(2, 3, 4, 8, generator=g, dtype=torch.float64)
    inter = torch.stack([e8[..., :4], e8[..., 4:]], -1).flatten(-2)
    assert "(i, i + d_k/2) written to neighbouring places" in _layout_message(inter, e8, axes)


def test_match_layout_names_nothing_when_it_is_not_a_layout_or_two_candidates_match():
    g = torch.Generator().manual_seed(1)
    e = torch.randn(3, 4, generator=g, dtype=torch.float64)
    assert _layout_message(e + 0.5, e) is None
    assert _layout_message(e, e) is None  # nothing to explain
    # rows (a, a, b, b): reversed and halves swapped give the same numbers, so neither is named
    rows = torch.tensor([[1.0, 1.0, 2.0, 2.0], [3.0, 3.0, 5.0, 5.0]])
    assert _layout_message(rows.flip(1), rows) is None
    assert "reverse order" in _layout_message(rows.flip(0), rows)


def test_match_layout_re_arranges_the_references_inputs():
    from transformer_course.reference import language_model as lm

    x = torch.randn(5, 8, generator=torch.Generator().manual_seed(2))
    cos, sin = lm.rotary_embedding(5, 8)
    a, b = x[..., 0::2], x[..., 1::2]
    got = torch.cat([a * cos - b * sin, a * sin + b * cos], -1)  # neighbours, written as halves
    message = _layout_message(
        got,
        lm.apply_rotary(x, cos, sin),
        ("len", "d_head"),
        reference=lambda x_: lm.apply_rotary(x_, cos, sin),
        inputs=[("x", x, ("len", "d_head"))],
    )
    assert "for x re-arranged: x with its last axis (d_head) in halves" in message


def test_expect_close_names_a_layout_after_the_known_mistakes():
    from transformer_course.checking import Checker

    e = np.arange(12.0).reshape(3, 4) ** 1.5
    with pytest.raises(CheckFailure, match=r"position axis in reverse order"):
        with Checker("demo") as c:
            c.expect_close(e[::-1], e, "demo()", axes=("position", "d_model"))
    one_wrong = e.copy()
    one_wrong[1, 2] += 1
    with pytest.raises(CheckFailure, match=r"largest difference"):
        with Checker("demo") as c:
            c.expect_close(one_wrong, e, "demo()")


def test_expect_close_and_expect_equal_name_a_pair_only_when_exactly_one_matches():
    from transformer_course.checking import Checker

    e = np.zeros(3)
    pairs = {"A and B": np.ones(3), "A and C": np.full(3, 2.0)}
    with pytest.raises(CheckFailure, match=r"A and C"):
        with Checker("demo") as c:
            c.expect_close(np.full(3, 2.0), e, "demo()", pairs=pairs)
    with pytest.raises(CheckFailure, match=r"largest difference"):
        with Checker("demo") as c:
            c.expect_close(np.ones(3), e, "demo()", pairs={**pairs, "B and C": np.ones(3)})
    with pytest.raises(CheckFailure, match=r"A and B$"):
        with Checker("demo") as c:
            c.expect_equal([1], [0], "demo()", pairs={"A and B": [1], "A and C": [2]})


def test_candidates_are_each_said_once():
    """Tables pad a repeated message with spaces to keep it a distinct key; when two such
    entries match, the learner reads the message once (LayerNorm's unbiased-std candidate
    was listed twice)."""
    from transformer_course.checking.formatting import candidates_message

    assert candidates_message(["A.", "B.", "B. "]) == (
        "2 known mistakes give exactly this result on these inputs, which cannot tell them "
        "apart: (1) A. (2) B."
    )
    assert candidates_message(["A.", "A.  "]) == "A."


@pytest.mark.parametrize(
    ("transform", "message"),
    [
        (lambda e: -e, r"the reference's with the opposite sign at every entry"),
        (lambda e: e / np.sqrt(8), r"times one constant, 0\.353553 \(= 1/sqrt\(8\)\), at every"),
        (lambda e: 4 * e, r"times one constant, 4 \(= 4\), at every"),
        (lambda e: e * 1.2345, r"times one constant, 1\.2345, at every"),
        (lambda e: e + 0.25, r"plus one constant, 0\.25, at every entry"),
        (lambda e: 0 * e, r"Your values are all 0 where the reference's are not"),
    ],
)
def test_expect_close_names_a_sign_a_constant_factor_or_a_constant_term(transform, message):
    """A wrong value that is the reference's negated, scaled or shifted by one constant is
    said to be so (the old message gave only the largest difference)."""
    from transformer_course.checking import Checker

    e = np.sin(np.arange(1.0, 13.0)).reshape(3, 4)
    with pytest.raises(CheckFailure, match=message):
        with Checker("demo") as c:
            c.expect_close(transform(e), e, "demo()")


def test_expect_close_gives_the_first_wrong_entry_when_only_some_differ():
    """A computation that goes wrong from one step on is located where it starts."""
    from transformer_course.checking import Checker

    e = np.sin(np.arange(1.0, 13.0)).reshape(3, 4)
    late = e.copy()
    late[1, 1:] += np.array([0.1, 0.2, 0.3])
    late[2] += 5.0
    with pytest.raises(
        CheckFailure,
        match=r"largest difference 5 at index \(2, 0\).*"
        + re.escape(
            f"7 of 12 entries differ, the first at index (1, 1) (yours {late[1, 1]:.6g}, "
            f"expected {e[1, 1]:.6g})"
        ),
    ):
        with Checker("demo") as c:
            c.expect_close(late, e, "demo()")
    with pytest.raises(CheckFailure) as everywhere:
        with Checker("demo") as c:
            c.expect_close(e**3 + 1, e, "demo()")
    assert "entries differ" not in str(everywhere.value)


def test_no_relation_is_named_against_an_all_zero_reference():
    from transformer_course.checking.relations import match_relation

    zeros = np.zeros((2, 3))
    assert match_relation(np.ones((2, 3)), zeros, rtol=1e-5, atol=1e-6) is None
    assert match_relation(zeros + 1e-9, zeros, rtol=1e-5, atol=1e-6) is None


@pytest.mark.parametrize(
    ("raise_it", "hint"),
    [
        (lambda: torch.zeros(2, 3).reshape(2, 3 / 1), r"A size in a shape is a float"),
        (lambda: [1, 2][2], r"An index ran past the end of a list"),
        (
            lambda: np.zeros((2, 3)).__setitem__((slice(None), slice(0, 2)), np.ones((2, 3))),
            r"the slice on the left and the value on the right must have the same shape",
        ),
        (lambda: torch.zeros(2, 3).sum(dim=2), r"An axis number does not exist"),
        (lambda: 1 / 0, r"A division by zero"),
        (lambda: torch.zeros(2, 3).shape[2], r"An index ran past the end of a tuple"),
        (
            lambda: torch.nn.Embedding(3, 2)(torch.zeros(2)),
            r"token ids that reached an embedding are floats",
        ),
        (lambda: np.ones((2, 3)).mean(dim=-1), r"`dim=` is PyTorch's spelling.*axis="),
        (lambda: np.ones((2, 3)).sum(axis=-1, keepdim=True), r"`keepdim=` is PyTorch's"),
        (lambda: np.ones((2, 3)).max(axis=2), r"axis 2 is not one of them. It is one past"),
        (lambda: np.ones((2, 3)).max(axis=-3), r"has axes 0 \.\. 1 \(or -1 \.\. -2"),
        (lambda: range(0, 4, 4 // 8), r"got a step of 0"),
        (lambda: ~torch.zeros(2, 2).tril(), r"this tensor is a float one"),
        (
            lambda: torch.zeros(1, 2, 3, 2).masked_fill_(torch.ones(3, 2, dtype=torch.bool), 1)[
                torch.ones(3, 2, dtype=torch.bool)
            ],
            r"a \[3, 2\] mask meant for the last axes.*x\[\.\.\., mask\]",
        ),
        (
            lambda: torch.arange(10)[torch.arange(2) : torch.arange(2) + 3],
            r"where Python needs one whole number: a slice bound",
        ),
    ],
)
def test_common_errors_raised_by_a_learners_code_come_with_advice(raise_it, hint):
    """Raw Python, numpy and torch errors get a course hint (they passed through bare)."""
    from transformer_course.checking import Checker

    with pytest.raises(CheckFailure, match=r"(?s)raised \w+Error: .*" + hint):
        with Checker("demo") as c:
            c.call(lambda: raise_it(), call_repr="demo()")


def test_a_slice_bound_that_is_a_float_gets_advice():
    from transformer_course.checking import Checker

    with pytest.raises(CheckFailure, match=r"(?s)slice indices.*A slice bound is a float"):
        with Checker("demo") as c:
            c.call(lambda: [1, 2, 3][: 4 / 2], call_repr="demo()")


def test_expect_equal_names_the_relation_of_two_dicts_of_counts():
    from transformer_course.checking import Checker

    expected = {"a": 3, "b": 1, "c": 2}
    for got, said in (
        ({"a": 0, "b": 0, "c": 0}, r"all 0 where the reference's are not"),
        ({"a": -3, "b": -1, "c": -2}, r"opposite sign at every entry"),
        ({"a": 6, "b": 2, "c": 4}, r"times one constant, 2 \(= 2\)"),
    ):
        with pytest.raises(CheckFailure, match=said), Checker("demo") as c:
            c.expect_equal(got, expected, "demo()")
    with pytest.raises(CheckFailure) as failure, Checker("demo") as c:
        c.expect_equal({"a": 3, "b": 1, "c": 5}, expected, "demo()")
    assert "Your values" not in failure.value.message


def test_a_huge_answer_is_not_copied_into_the_checks_records():
    """The records of a check's calls (for the one-edit diagnosis) copy each result: a
    list shared 10^5 times (10^8 items) took minutes to copy, and a grader's time. Beyond
    FROZEN_ITEMS items a result is not recorded."""
    from transformer_course.checking.deviations import FROZEN_ITEMS, TooLargeToFreeze, frozen

    shared = [list(range(1000))] * (FROZEN_ITEMS // 1000 + 1)
    with pytest.raises(TooLargeToFreeze):
        frozen(shared)
    with pytest.raises(TooLargeToFreeze):
        frozen("a" * (FROZEN_ITEMS + 1))
    small = {"ids": [[1, 2], [3]], "x": torch.ones(2)}
    copy = frozen(small)
    assert copy["ids"] == small["ids"] and copy["ids"][0] is not small["ids"][0]
    assert torch.equal(copy["x"], small["x"]) and copy["x"] is not small["x"]


def test_values_rounded_to_whole_numbers_are_named_with_every_rounding_that_gives_them():
    """blind19f-ls-mean-by-floor-division: a loss taken with // (one number) got the
    fallback; floor and a cast to int agree on positive values, so both are named."""
    from transformer_course.checking.relations import match_relation

    loss = np.array(2.95077)
    floored = match_relation(np.array(2.0), loss, rtol=1e-5, atol=1e-6)
    assert floored is not None and "floor division //" in floored.message
    assert "cast to int" in floored.message
    scores = np.array([-1.5, 0.25, 2.75, -3.125])  # a cast to int truncates toward zero
    truncated = match_relation(np.trunc(scores), scores, rtol=1e-5, atol=1e-6)
    assert truncated is not None and "truncated toward zero" in truncated.message
    assert "floor division" not in truncated.message
    assert match_relation(np.array(2.5), loss, rtol=1e-5, atol=1e-6) is None


def test_match_relation_names_the_features_whose_sign_is_flipped():
    from transformer_course.checking.relations import match_relation

    values = np.arange(1.0, 25.0).reshape(4, 6)  # (rows, features)
    second_half = values * np.array([1, 1, 1, -1, -1, -1])
    found = match_relation(second_half, values, rtol=1e-5, atol=1e-6)
    assert found is not None and "second half of the features (3 .. 5)" in found.message
    some = values * np.array([1, -1, 1, 1, -1, 1])
    found = match_relation(some, values, rtol=1e-5, atol=1e-6)
    assert found is not None and "the features 1, 4 of the last axis" in found.message
    assert "every entry" in match_relation(-values, values, rtol=1e-5, atol=1e-6).message
