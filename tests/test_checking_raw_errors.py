"""checking.raw_errors, parameters_kept, the quiz's answer forms and number relations: the
general diagnoses added after blind round 16, each on a wrong answer of its class (not a
benchmark case's code) and silent on the answers that only share the error's type."""

from __future__ import annotations

import math
import random
import re

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from transformer_course.checking import Checker, CheckFailure
from transformer_course.checking.quiz import Quiz, quiz_check
from transformer_course.checking.relations import match_relation, number_relation


def picked_log_probs(log_probs, targets):  # one target per position, no last axis
    return np.take_along_axis(log_probs, targets, axis=-1)


def lengths_extended(rows):  # extend with one number: append belongs
    lengths = []
    for row in rows:
        lengths.extend(len(row))
    return lengths


def rows_counted_with_len(ids):  # len() of a single id given as a 0-d tensor
    return torch.zeros(len(ids), 4)


def _message(fn, *args, **kwargs):
    with pytest.raises(CheckFailure) as failure, Checker("demo") as c:
        c.call(fn, *args, **kwargs)
    return failure.value.message


class NoSuperInit(nn.Module):
    def __init__(self, width):
        self.proj = nn.Linear(width, width)


class ScoresWithBmm(nn.Module):
    def forward(self, q, k):
        return torch.bmm(q, k.transpose(-2, -1))  # (batch, heads, len, len) wanted


class DropoutWithTrainMethod(nn.Module):
    def forward(self, x):
        return F.dropout(x, 0.1, training=self.train)


class MaskKeywordOnly(nn.Module):
    def forward(self, x, memory, *, src_mask=None, tgt_mask=None):
        return x


class ReadsUnstoredFlag(nn.Module):
    def __init__(self, width, pre_norm=False):
        super().__init__()
        self.norm = nn.LayerNorm(width)

    def forward(self, x):
        return self.norm(x) if self.pre_norm else x


def raises_message(d_model):
    if d_model % 2:
        raise f"d_model must be even, got {d_model}"
    return d_model


def raises_number(d_model):
    raise 3  # noqa: B016 (the wrong answer under test)


def pe_table_reshaped(x):
    table = torch.zeros(x.shape[1], x.shape[2])  # (len, d_model)
    return x + table.reshape(x.shape)


def where_of_one_argument(ids):
    return torch.where(ids != 0)[:, None, :]


def stacked_projections(x):
    gate, up = nn.Linear(4, 6), nn.Linear(4, 6)
    return up(gate(x))  # up reads the gate's output: 6 features where 4 belong


def head_states_looked_up(ids):
    table = nn.Embedding(10, 4)
    hidden = table(ids) * 0.37  # (batch, len, d_model)
    return table(hidden)


def ids_built_as_floats(ids):
    start = torch.full((ids.shape[0], 1), 1.0)  # float <bos> column
    return nn.Embedding(10, 4)(torch.cat([start, ids.float()], dim=1))


def masks_multiplied_as_matrices(ids):
    real = (ids != 0)[:, None, :]  # (batch, 1, len)
    return torch.matmul(real, torch.ones(ids.shape[1], ids.shape[1], dtype=torch.bool).tril())


def pair_read_by_name(pair):
    source, target = pair["source"], pair["target"]  # pair is a (source, target) tuple
    return source + target


def rarest_of_ranked(words, rank):
    return max(words, key=lambda word: rank.get(word))  # words missing from rank: None


def compares_a_forgotten_result(values):
    def largest(v):
        max(v)  # no return: None

    return [v for v in values if largest(v) > 0]


@pytest.mark.parametrize(
    "fn, args, expected",
    [
        (masks_multiplied_as_matrices, (torch.tensor([[1, 0]]),), r"Masks combine entry by entry"),
        (NoSuperInit, (4,), r"Call super\(\)\.__init__\(\) as the first line"),
        (ScoresWithBmm(), (torch.ones(2, 3, 4, 5),) * 2, r"Use torch\.matmul or the @"),
        (DropoutWithTrainMethod(), (torch.ones(2, 3),), r"Pass training=self\.training"),
        (
            MaskKeywordOnly(),
            (torch.ones(1), torch.ones(1), None, None),
            r"after a bare \* \(keyword-only",
        ),
        (ReadsUnstoredFlag(4), (torch.ones(2, 4),), r"reads self\.pre_norm, and nothing stored"),
        (raises_message, (5,), r"Your code raises a string"),
        (raises_number, (5,), r"`raise` was given something that is not an exception"),
        (
            pe_table_reshaped,
            (torch.ones(2, 5, 8),),
            r"`table\.reshape\(x\.shape\)` asks a \(5, 8\) tensor for the shape \(2, 5, 8\)"
            r".*cannot repeat entries",
        ),
        (where_of_one_argument, (torch.tensor([[1, 0]]),), r"torch\.where\(condition\) with one"),
        (
            stacked_projections,
            (torch.ones(2, 4),),
            r"6 features where 4 belong, and 6 is also what this product outputs",
        ),
        (
            head_states_looked_up,
            (torch.tensor([[1, 2]]),),
            r"a tensor of vectors of shape \(1, 2, 4\)",
        ),
        (ids_built_as_floats, (torch.tensor([[1, 2]]),), r"token ids that reached an embedding"),
        (
            pair_read_by_name,
            ((torch.ones(2), torch.ones(2)),),
            r"`pair` is a tuple of 2 parts, not a dict: `pair\['source'\]`",
        ),
        (
            rarest_of_ranked,
            (["a", "b"], {"a": 1}),
            r"dict\.get\(key\) returns None for a key the dict does not hold.*float\('-inf'\) "
            r"for max",
        ),
        (
            compares_a_forgotten_result,
            ([[1, 2]],),
            r"a function with no `return`",
        ),
        (
            picked_log_probs,
            (np.zeros((2, 3, 5)), np.zeros((2, 3), dtype=np.int64)),
            r"np\.take_along_axis needs an index array with as many axes as the array: "
            r"`log_probs` is \(2, 3, 5\), and `targets` is \(2, 3\).*targets\[\.\.\., None\]",
        ),
        (
            lengths_extended,
            ([[1, 2], [3]],),
            r"lengths\.extend\(len\(row\)\) was given one int.*lengths\.append\(len\(row\)\)",
        ),
        (
            rows_counted_with_len,
            (torch.tensor(3),),
            r"A 0-d tensor, of shape \(\), holds a single value.*takes its len\(\)",
        ),
    ],
)
def test_a_raw_error_is_told_what_its_text_shows(fn, args, expected):
    message = _message(fn, *args)
    assert re.search(expected, message, re.DOTALL), message


def test_a_library_module_called_with_too_many_arguments_is_not_told_about_its_signature():
    message = _message(nn.Sequential(nn.Linear(2, 2)), torch.ones(1, 2), torch.ones(1, 2))
    assert "keyword-only" not in message, message


def test_a_plain_tensor_s_missing_attribute_is_not_an_unstored_one():
    message = _message(lambda x: x.nonexistent, torch.ones(2))
    assert "nothing stored" not in message, message


def heads_merged_with_a_squared_width(x):
    batch, _, length, d_head = x.shape
    return x.transpose(1, 2).reshape(batch, length, d_head * d_head)


def rows_viewed_from_a_slice(x):
    table = torch.zeros(10, x.shape[2])
    return x + table[: x.shape[1]].view(x.shape)


def largest_values_fed_back(ids):
    table = nn.Embedding(10, 4)
    logits = table(ids) @ torch.ones(4, 10)  # (batch, len, vocab)
    following = logits[:, -1].max(dim=-1, keepdim=True)[0]  # values, not indices
    return table(torch.cat([ids.float(), following], dim=1))


def test_a_refused_reshape_is_read_from_the_tensor_s_own_shape():
    """Only a tensor that is the shape's tail is told that a view cannot repeat it; one of
    another shape (a size mistyped) gets the counts; an expression names both readings."""
    message = _message(heads_merged_with_a_squared_width, torch.ones(2, 2, 3, 4))
    assert "needs 96" in message and "cannot repeat" not in message, message
    message = _message(rows_viewed_from_a_slice, torch.ones(2, 5, 8))
    assert re.search(r"If it is a \(5, 8\) tensor .* Otherwise a size", message, re.DOTALL)


def test_values_of_a_maximum_given_to_a_lookup_are_not_called_vectors():
    message = _message(largest_values_fed_back, torch.tensor([[1, 2], [3, 4]]))
    assert "a maximum's value" in message and "tensor of vectors" not in message, message


def test_a_view_with_another_shape_of_entries_is_told_only_the_counts():
    message = _message(lambda x: x.view(3, 5), torch.ones(2, 4))
    assert "needs 15" in message and "cannot repeat" not in message, message


def test_an_exercise_s_own_reading_of_a_refused_reshape_replaces_the_general_one():
    own = "Your reshape asks for the size of batch where len belongs."
    with pytest.raises(CheckFailure) as failure, Checker("demo") as c:
        c.call(pe_table_reshaped, torch.ones(2, 5, 8), hints=[(RuntimeError, own)])
    assert own in failure.value.message
    assert "cannot repeat entries" not in failure.value.message


class RescalesItsWeight(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        with torch.no_grad():
            self.proj.weight.mul_(0.5)  # rescaled on every call
        return self.proj(x)


class FillsItsCache(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.register_buffer("cache", torch.zeros(4))

    def forward(self, x):
        self.cache += 1  # a buffer may change (a KV cache, running statistics)
        return self.proj(x)


def _failed_after_a_call(module, message):
    with pytest.raises(CheckFailure) as failure, Checker("demo") as c:
        c.call(module, torch.ones(2, 4))
        c.fail(message)
    return failure.value.message


def test_a_forward_that_changes_its_parameters_is_told_which_and_by_what_factor():
    """Said first with the check's next failure (two calls that differ, say), which it
    explains; a failure that already names changed weights is left as it is."""
    message = _failed_after_a_call(RescalesItsWeight(), "Two calls in eval mode differ.")
    assert re.search(
        r"^`.*` changed the module's own parameter proj\.weight \(multiplied by 0\.5\)",
        message,
        re.DOTALL,
    ), message
    own = "forward changed the table `proj.weight` itself."
    assert _failed_after_a_call(RescalesItsWeight(), own).startswith(own)


def test_a_forward_that_changes_a_buffer_is_not_told_so():
    message = _failed_after_a_call(FillsItsCache(), "Something else is wrong.")
    assert message.startswith("Something else is wrong."), message


_QUIZ = Quiz(
    "quiz_demo",
    answer="b",
    why={"b": "Right."},
    choices={
        "a": "the number of words",
        "b": "the width of each key vector",
        "c": "d_model",
        "d": "NaN, from 0 / 0",
    },
)
_NUMBER = Quiz("quiz_floor", answer=0.5004, why={}, rel_tol=0.01)


@pytest.mark.parametrize(
    "answer, expected",
    [
        (lambda: ["b"], r"a list, \['b'\], with the letter inside: return the string itself"),
        (lambda: ["(b)", "keys are d_k wide"], r"a list of 2 items.*Return the letter alone"),
        (lambda: ("c", 1.0), r"a tuple of 2 items.*Return the letter alone, the string \"c\""),
        (lambda: '"b"', r"the quote marks are characters of your string \(3 characters\)"),
        (lambda: "d_model", r"the text of choice \(c\).*letter, not its text: return \"c\""),
        # blind19d: the letter was asked for, but not said to be what replaces the words
        (
            lambda: "width of each key",
            r"words from choice \(b\).*letter, not its words: return \"b\"",
        ),
        (lambda: "sqrt", r"words rather than a letter"),
        (lambda: 2, r"returned the number 2, an int: this question is answered with a letter"),
        # round 20: a choice's value for its letter, a one-hot list, a letter of no choice
        (
            lambda: float("nan"),
            r"returned the number nan, a float, not a letter: it is the value choice \(d\) "
            r"describes.*\"d\"",
        ),
        (
            lambda: (0, 1, 0, 0),
            r"a tuple of 4 booleans, \(0, 1, 0, 0\), one per choice, with choice \(b\) ticked",
        ),
        (lambda: "x", r"returned 'x', which is not one of the letters \"a\", \"b\", \"c\", \"d\""),
        (lambda: None, r"returned None: the function has no return statement"),
        ((lambda: (yield "b")), r"returned a generator"),
        ("b", r"`quiz_demo` is 'b', a value, where the function belongs"),
    ],
)
def test_a_quiz_answer_in_another_form_is_told_its_form(answer, expected):
    with pytest.raises(CheckFailure) as failure:
        quiz_check(_QUIZ)(answer)
    assert re.search(expected, failure.value.message, re.DOTALL), failure.value.message


@pytest.mark.parametrize(
    "given, expected",
    [
        (0.722, r"times 1/ln 2 = log2\(e\): a logarithm in base 2 \(bits\)"),
        (0.5004 * math.log(2), r"times ln 2: the natural log where a logarithm in base 2"),
        (2.0016, r"4 times the right one"),
        (1.9984, r"reciprocal"),
    ],
)
def test_a_wrong_number_is_related_to_the_right_one(given, expected):
    with pytest.raises(CheckFailure) as failure:
        quiz_check(_NUMBER)(lambda: given)
    assert re.search(expected, failure.value.message), failure.value.message


def test_a_thousand_where_two_to_the_ten_belongs_is_named_either_way():
    """Sizes in MB for MiB, or per 1000 tokens for per 1024 (blind18d's quiz answer
    187.5 for 192 got "not right" alone), once or squared; 1000/1024 is not 1, 2, ... or
    their reciprocal, so no other relation hides it."""
    assert "(1000/1024): 1000 where 1024 belongs" in number_relation(187.5, 192.0)
    assert "(1024/1000)^2: 1024 where 1000 belongs, 2 times over" in number_relation(
        192.0 * 1.024**2, 192.0
    )
    assert number_relation(190.0, 192.0) == ""


def test_numbers_with_no_simple_relation_get_none():
    assert number_relation(0.61, 0.5) == ""
    assert number_relation(7.0, 0.0) == ""
    assert "one away" in number_relation(13.0, 12.0)


def test_values_in_bits_where_nats_belong_name_the_logarithm():
    nats = torch.tensor([0.3, 1.2, 2.5]).numpy()
    relation = match_relation(nats / math.log(2), nats, rtol=1e-6, atol=1e-8)
    assert relation is not None and "base 2 (bits)" in relation.message


@pytest.mark.parametrize(
    "round_them, expected",
    [
        (lambda v: np.round(v, 4), r"rounded to 4 decimal places"),
        (lambda v: np.round(v, 1), r"rounded to 1 decimal place "),
        (lambda v: np.array([float(f"{x:.2g}") for x in v]), r"rounded to 2 significant digits"),
    ],
)
def test_values_rounded_for_a_print_are_named(round_them, expected):
    values = np.array([4.41942e-4, 6.98771e-5, 0.123456, 1.98765])
    relation = match_relation(round_them(values), values, rtol=1e-5, atol=1e-8)
    assert relation is not None and relation.kind == "rounded", relation
    assert re.search(expected, relation.message), relation.message


def test_a_small_error_is_not_called_a_rounding():
    values = np.array([4.41942e-4, 6.98771e-5, 0.123456, 1.98765])
    relation = match_relation(values * (1 + 3e-6), values, rtol=1e-7, atol=1e-12)
    assert relation is None or relation.kind != "rounded"


def test_an_answer_printed_instead_of_returned_is_told_so():
    def printed_letter():
        print("b")

    with pytest.raises(CheckFailure) as failure:
        quiz_check(_QUIZ)(printed_letter)
    assert "printed 'b' and returned None" in failure.value.message

    def silent():
        return None

    with pytest.raises(CheckFailure) as failure:
        quiz_check(_QUIZ)(silent)
    assert "printed" not in failure.value.message


def test_an_order_comparison_without_none_gets_no_advice_about_none():
    def mixed(values):
        return sorted(values)

    message = _message(mixed, [1, "a"])
    assert "met None" not in message, message


def optimizer_given_the_model(model):
    optimizer = torch.optim.SGD(model, lr=0.1)  # the module where its parameters belong
    return optimizer


def parameters_summed_from_the_model(net):
    return sum(p.numel() for p in net)  # iterating the module itself


def test_a_module_where_its_parameters_belong_is_named_with_its_variable():
    """blind19c-ts-clip-given-the-model (clip_grad_norm_(model, ...)) got the raw
    "'Transformer' object is not iterable"; an optimizer or a loop given the module is the
    same slip."""
    text = _message(optimizer_given_the_model, nn.Linear(3, 3))
    assert "`model` is the module itself (Linear)" in text, text
    assert "an optimizer, on the line that raised" in text and "model.parameters()" in text
    text = _message(parameters_summed_from_the_model, nn.Linear(3, 3))
    assert "`net` is the module itself (Linear)" in text and "net.parameters()" in text, text
    # an integer is not iterable either, but it is no module: nothing is said
    assert "module itself" not in _message(lambda n: list(n), 3)


def scores_appended_with_stack(history, new_scores):
    return torch.stack((history, new_scores), dim=-1)  # (rows, steps) and (rows,)


def test_stack_of_tensors_one_axis_apart_is_told_to_use_cat():
    """blind19c-gd-appends-with-stack (torch.stack to append a column) got the raw error."""
    text = _message(scores_appended_with_stack, torch.zeros(4, 2), torch.ones(4))
    assert "one axis apart" in text and "use torch.cat" in text, text
    text = _message(scores_appended_with_stack, torch.zeros(4, 2), torch.ones(3, 5))
    assert "the SAME shape" in text and "one axis apart" not in text, text


def _answer_under_the_placeholder():
    # YOUR CODE HERE
    raise NotImplementedError()
    return "b"  # the learner's answer, written under the placeholder


def _placeholder_alone():
    # YOUR CODE HERE
    raise NotImplementedError()


def test_an_answer_left_under_the_placeholder_is_told_it_is_never_reached():
    """Round 20 (blind19b-q-score-scale-raise-left-above-answer, told "not implemented
    yet"): code after the placeholder's raise, in the same block, is named unreachable;
    the placeholder alone keeps its message (checking.failure.code_after_placeholder)."""
    with pytest.raises(CheckFailure) as failure:
        quiz_check(_QUIZ)(_answer_under_the_placeholder)
    message = failure.value.message
    assert re.search(
        r"placeholder line `raise NotImplementedError\(\)` is still in your code, above your "
        r"answer, so it runs first and `return \"b\"` below it is never reached",
        message,
    ), message
    with pytest.raises(CheckFailure) as failure:
        quiz_check(_QUIZ)(_placeholder_alone)
    assert "not implemented yet" in failure.value.message, failure.value.message


def test_a_pair_of_numbers_for_a_number_quiz_is_told_it_is_a_shape():
    """Round 20 (blind15d-q-head-width-query-matrix-shape: a (len, d_k) shape for d_k
    alone was told "return a number")."""
    with pytest.raises(CheckFailure) as failure:
        quiz_check(_NUMBER)(lambda: [0.5, 1.0])
    assert re.search(
        r"returned a list of 2 numbers, \[0\.5, 1\.0\], a shape or a list, not one number",
        failure.value.message,
    ), failure.value.message


def _first_none_message(fn, inputs):
    with pytest.raises(CheckFailure) as failure, Checker("demo") as c:
        c.require_callable(fn)
        for value in inputs:
            c.expect_type(c.call(fn, value), list, f"demo({value!r})", "Return a list.")
    return failure.value.message


def doubled_unless_empty(values):  # the early exit for no values returns nothing
    if not values:
        return
    return [2 * v for v in values]


def doubled_when_even(values):  # the odd-length branch has no return
    if len(values) % 2 == 0:
        return [2 * v for v in values]


def never_returns(values):
    [2 * v for v in values]


def test_none_for_one_input_only_is_told_which_path_returned_nothing():
    message = _first_none_message(doubled_unless_empty, [[1, 2], ()])
    assert re.search(r"but it is None\. Your code returned None for this empty input", message)
    assert "forget the `return`" not in message, message
    message = _first_none_message(doubled_when_even, [[1, 2], [1, 2, 3]])
    assert re.search(r"returned None for this input, where it returned a value", message)
    assert "empty" not in message, message
    message = _first_none_message(never_returns, [[1, 2], []])
    assert re.search(
        r"is None\. The function returned nothing.*Did you forget the `return`", message
    )


_MEAN_QUIZ = Quiz(name="quiz_mean", answer=4, why={4: "Right."}, worked="(10 + 6) / 4")


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (10 + 6 / 4, r"Your number is what 10 \+ 6 / 4 gives: \(10 \+ 6\) / 4 without its "),
        (np.full(3, 4.0), r"returned an array of 3 numbers, shape \(3,\), each 4, where the "),
        (np.array([4, 5]), r"returned an array of 2 numbers, shape \(2,\), where the question"),
        ([4, 5], r"returned a list of 2 numbers, \[4, 5\], a shape or a list, not one number"),
    ],
)
def test_a_numeric_quiz_tells_a_precedence_slip_and_several_numbers(answer, expected):
    with pytest.raises(CheckFailure) as failure:
        quiz_check(_MEAN_QUIZ)(lambda: answer)
    assert re.search(expected, failure.value.message), failure.value.message


def bag_of_ids_from_largest_id(ids, table):  # ids (n, len) int64, table (vocab, d)
    counts = torch.zeros(ids.shape[0], int(ids.max()) + 1)  # (n, largest id + 1)
    counts.scatter_add_(1, ids, torch.ones(ids.shape))
    return counts @ table  # (n, d)


def product_of_other_widths(ids, table):  # a width mismatch unrelated to the ids
    return torch.ones(ids.shape[0], 5) @ table


def test_a_product_as_wide_as_the_largest_id_plus_one_is_told_it_was_sized_from_the_ids():
    """Round 28's class (blind28c-gpt-one-hot-lookup-width): a one-hot or count table whose
    width comes from the batch's largest id, not the vocabulary, fails a product with the
    (vocab, d) table; the message names the width's source, and only when an id fits."""
    ids = torch.tensor([[0, 3, 2], [1, 3, 0]])  # (2, 3), largest id 3
    table = torch.randn(9, 4)  # (vocab 9, d 4)
    message = _message(bag_of_ids_from_largest_id, ids, table)
    assert re.search(r"4 is the largest id in ids \(3\) plus one.*num_classes=9", message)
    assert "largest id" not in _message(product_of_other_widths, ids, table)


def rows_centred_without_keepdim(x):  # x (2, 3, 5): one mean per row, (2, 3)
    means = x.mean(dim=-1)
    return x - means


def rows_added_to_other_columns(x, y):  # x (2, 3, 5), y (4,): unrelated shapes
    return x + y


def test_a_per_row_value_without_its_trailing_axis_is_told_to_keep_it():
    """Round 28's class (blind28c-tiled-max-without-trailing-axis): a reduction over the
    last axis without keepdim met its own tensor's columns; named from the failing line's
    shapes, and only when one is the other without its last axis."""
    message = _message(rows_centred_without_keepdim, torch.randn(2, 3, 5))
    assert re.search(
        r"means \(2, 3\) is x \(2, 3, 5\) without its last axis.*means\[\.\.\., None\]", message
    ), message
    message = _message(rows_added_to_other_columns, torch.randn(2, 3, 5), torch.randn(4))
    assert "without its last axis" not in message, message


def mean_of_item_losses(losses):  # round 34: each loss turned into a number, then .mean()
    total = sum(loss.item() for loss in losses)
    return total.mean()


def backward_on_an_item(x):
    loss = (x**2).sum().item()
    loss.backward()
    return loss


def test_a_tensor_method_on_a_python_number_is_told_the_number_came_too_soon():
    """The family 'a tensor turned into a number too early' (.item() before .backward()):
    'float' object has no attribute 'backward' reached the learner with no hint."""
    message = _message(backward_on_an_item, torch.ones(3, requires_grad=True))
    assert "`loss` is a Python float here, not a tensor: .backward()" in message, message
    assert ".item()" in message, message
    message = _message(mean_of_item_losses, [torch.tensor(1.0), torch.tensor(2.0)])
    assert "`total` is a Python float here, not a tensor: .mean()" in message, message


def test_a_number_s_missing_attribute_that_no_tensor_has_gets_no_tensor_advice():
    message = _message(lambda x: float(x.sum()).nonexistent, torch.ones(2))
    assert "not a tensor" not in message, message


def picked_without_a_last_axis(log_probs, targets):  # round 34: gather needs (..., 1)
    return log_probs.gather(-1, targets)


def test_a_gather_index_with_an_axis_too_few_is_told_to_add_it():
    message = _message(picked_without_a_last_axis, torch.zeros(2, 3, 5), torch.zeros(2, 3).long())
    assert "labels[..., None] (or labels.unsqueeze(-1)), shape (..., 1)" in message, message


def order_shuffled_as_a_range(n, seed):  # round 34: random.shuffle of a range
    order = range(n)
    random.Random(seed).shuffle(order)
    return list(order)


def pairs_picked_with_an_array(pairs, order):  # a list indexed by an array of indices
    return pairs[order[:2]]


def eos_added_without_brackets(target, eos_id):  # list + int
    return target + eos_id


@pytest.mark.parametrize(
    ("fn", "args", "expected"),
    [
        (
            order_shuffled_as_a_range,
            (5, 0),
            r"A range cannot be changed in place, and "
            r"random\.shuffle .* order = list\(range\(n\)\)",
        ),
        (
            pairs_picked_with_an_array,
            ([(1, 2), (3, 4), (5, 6)], np.arange(3)),
            r"A Python list was indexed with an array .* \[items\[i\] for i in order\[a:b\]\]",
        ),
        (
            pairs_picked_with_an_array,
            ([(1, 2), (3, 4), (5, 6)], torch.arange(3)),
            r"A Python list was indexed with an array \(or a tensor\)",
        ),
        (
            eos_added_without_brackets,
            ([4, 5], 3),
            r"A single number was added to a list.*tokens \+ \[eos_id\].*np\.asarray",
        ),
    ],
)
def test_a_python_container_used_like_an_array_is_told_so(fn, args, expected):
    message = _message(fn, *args)
    assert re.search(expected, message, re.DOTALL), message


def test_a_python_bool_s_missing_tensor_method_is_not_blamed_on_item():
    """A bool comes from a comparison (`is not`, == on lists), not from .item(): the advice
    for a number turned out of a tensor too soon stays silent."""
    message = _message(lambda ids, pad_id: (ids is not pad_id).unsqueeze(1), torch.ones(2), 0)
    assert "too soon" not in message, message


def test_an_attribute_a_course_object_lacks_is_told_what_it_has():
    """Round 34: model.block_size (or .device, .config) asked of the course's model handed
    to the learner's code reached the learner raw; a plain torch module's missing attribute
    gets no such advice (it is not the course's object)."""
    from transformer_course.reference import inference as ref

    model = ref.make_cached_gpt(1)

    def sized_by_block(model):
        return model.block_size

    message = _message(sized_by_block, model)
    assert re.search(
        r"asked the CachedGPT it was given for \.block_size, which it does not have.*"
        r"submodules embedding, layers, norm.*new_caches\(\.\.\.\)",
        message,
    ), message
    assert "asked the Linear" not in _message(sized_by_block, nn.Linear(2, 2))


class ForwardWithExtraStart(nn.Module):
    def forward(self, k_new, v_new, start):  # the contract passes (k_new, v_new)
        return k_new, v_new


def calls_a_method_without_its_size(model):
    return model.new_caches(2)  # (batch, max_len): max_len left out


def test_a_required_argument_left_out_is_told_whose_call_left_it_out():
    """Round 34: a TypeError "missing 1 required positional argument" reached the learner
    raw. Made by the check (the learner's signature asks for more than the contract
    passes) or by the learner's own call (a course method called without an argument)."""
    from transformer_course.reference import inference as ref

    module = ForwardWithExtraStart()
    message = _message(module, torch.zeros(1), torch.zeros(1))
    assert re.search(
        r"The check calls your ForwardWithExtraStart\.forward as the exercise's contract "
        r"allows, and yours requires 'start' in a call that does not pass it",
        message,
    ), message
    message = _message(calls_a_method_without_its_size, ref.make_cached_gpt(1))
    assert re.search(
        r"Your code calls CachedGPT\.new_caches without 'max_len': that call must pass it too",
        message,
    ), message


def keys_repeated_by_a_view_of_an_expand(k):
    batch, heads, length, d_head = k.shape
    return (
        k[:, :, None].expand(batch, heads, 2, length, d_head).view(batch, 2 * heads, length, d_head)
    )


def test_a_view_of_an_expanded_tensor_names_the_expand():
    message = _message(keys_repeated_by_a_view_of_an_expand, torch.zeros(1, 2, 3, 4))
    assert "Your line views a tensor made by .expand" in message, message
    assert "Your line views a tensor made by .expand" not in _message(
        lambda x: x.transpose(0, 1).view(-1), torch.zeros(2, 3)
    )


def weights_zeroed_in_place(weights, mask):  # masked_fill_ cannot grow weights
    weights.masked_fill_(mask, 0.0)
    return weights


def weights_added_mismatched(weights, other):  # a RuntimeError of another text
    return weights + other


def test_an_in_place_operation_that_would_grow_its_tensor_is_named():
    """blind29a-sdpa-docs-bias-two-dimensional's class: the tensor written into, the
    in-place operation and the operand that grows it, read from the failing line."""
    said = _message(
        weights_zeroed_in_place, torch.zeros(3, 4), torch.zeros(2, 1, 1, 4, dtype=torch.bool)
    )
    assert "`weights` has shape (3, 4), and its in-place .masked_fill_(...)" in said
    assert "broadcasts with `mask` of shape (2, 1, 1, 4) to (2, 1, 3, 4)" in said
    assert "weights = weights.masked_fill(...) (no trailing underscore)" in said
    said = _message(weights_added_mismatched, torch.zeros(3, 4), torch.zeros(3, 5))
    assert "in-place" not in said


class _ForwardMisspelt(nn.Module):
    """Round 37: the module's work written in a method named foward."""

    def foward(self, x):
        return x


class _NoMethodAtAll(nn.Module):
    pass


def test_a_module_without_forward_names_the_method_it_defines_instead():
    message = _message(_ForwardMisspelt(), torch.zeros(1))
    assert re.search(
        r"Your _ForwardMisspelt has no forward method\..*Yours defines foward\(x\) instead: "
        r"rename it forward \(def forward\(self, x\):\)",
        message,
    ), message
    message = _message(_NoMethodAtAll(), torch.zeros(1))
    assert "Your _NoMethodAtAll has no forward method" in message, message
    assert "Yours defines" not in message
    # nn.ModuleList called as a module: the containers' own words, not this advice
    assert "has no forward method" not in _message(nn.ModuleList([nn.Identity()]), torch.zeros(1))
