"""Lesson 00: the check of `center_rows` rejects classic mistakes with the intended
message and accepts correct variants; the reference matches the lesson's worked example
and the centering matrix of statistics; the lesson's example of a `make grade` table is
what the self-grader prints."""

from __future__ import annotations

import re
from collections import Counter

import jupytext
import numpy as np
from common import Correct, Mistake, lesson_tests

from transformer_course import registry
from transformer_course.build import REPO
from transformer_course.checking import CheckFailure
from transformer_course.checks.tokenization import check_build_vocab
from transformer_course.checks.welcome import check_center_rows
from transformer_course.reference import welcome as ref
from transformer_course.selfgrade import CellScore, format_table


# ---------------------------------------------------------------------------- mistakes
def center_columns(x):
    return x - x.mean(axis=0, keepdims=True)


def center_whole_array(x):
    return x - x.mean()


def standardize_rows(x):
    return (x - x.mean(axis=-1, keepdims=True)) / x.std(axis=-1, keepdims=True)


def center_keepdims_in_the_dtype_place(x):  # x.mean(axis, dtype, ...): True is no dtype
    return x - x.mean(-1, True)


def center_without_keepdims(x):
    return x - x.mean(axis=-1)


def center_axis_1(x):
    return x - x.mean(axis=1, keepdims=True)


def center_axis_1_except_in_3d(x):
    """Axis 1 everywhere but on 3-D input: the 1-D input then shows the AxisError hint."""
    return ref.center_rows(x) if x.ndim == 3 else x - x.mean(axis=1, keepdims=True)


def center_without_keepdims_on_square_input(x):
    """Only the square input reaches the broadcasting-without-error diagnosis."""
    if x.ndim == 2 and x.shape[0] == x.shape[1]:
        return x - x.mean(axis=-1)
    return ref.center_rows(x)


def center_in_place(x):
    x -= x.mean(axis=-1, keepdims=True)
    return x


def center_rows_no_return(x):
    x - x.mean(axis=-1, keepdims=True)


def center_rows_as_list(x):
    return (x - x.mean(axis=-1, keepdims=True)).tolist()


def center_rows_rounded(x):
    return np.round(x - x.mean(axis=-1, keepdims=True)).astype(np.int64)


def center_means_put_back_second(x):  # means[:, None]: the size-1 axis second, 2-D only
    means = x.mean(axis=-1)
    return x - (means[:, None] if means.ndim else means)


def center_sum_over_number_of_rows(x):  # the sum divided by len(x), not x.shape[-1]
    sums = np.sum(x, axis=-1, keepdims=True)
    return x - sums / len(x)


def center_each_sample_flattened(x):  # first axis taken for the rows: zeros for 1-D x
    means = x.reshape(len(x), -1).mean(axis=1)
    return x - means.reshape(-1, *([1] * (x.ndim - 1)))


def center_each_sample_over_trailing_axes(x):  # per-sample mean; 1-D x handled apart
    if x.ndim == 1:
        return x - x.mean()
    trailing = tuple(range(1, x.ndim))
    return x - np.mean(x, axis=trailing, keepdims=True)


def center_each_first_axis_slice(x):  # `for row in x`: 2-D slices of a 3-D x
    return np.stack([row - row.mean() for row in x]) if x.ndim > 1 else x - x.mean()


def center_median(x):
    return x - np.median(x, axis=-1, keepdims=True)


def center_unchanged(x):
    return x.copy()


def center_adds_mean(x):
    return x + x.mean(axis=-1, keepdims=True)


def center_axis_1_through_transposes(x):  # (x.T - means).T: 2-D only
    means = np.mean(x, axis=1)
    return np.transpose(np.transpose(x) - means)


def center_means_transposed(x):  # (x.T - means).T: in 3-D row (i, j) gets row (j, i)'s mean
    return np.transpose(np.transpose(x) - np.mean(x, axis=-1))


def center_means_flattened(x):  # one column of means: 2-D only
    return x - np.mean(x, axis=-1).reshape(-1, 1)


def center_float_of_means(x):  # one Python number: a single row only
    return x - float(x.mean(axis=-1))


def center_columns_in_place(x):  # two mistakes at once
    np.subtract(x, np.mean(x, axis=0, keepdims=True), out=x)
    return x


def center_sum_without_keepdims(x):  # the same lost axis, from a sum divided by the length
    return x - x.sum(axis=-1) / x.shape[-1]


MISTAKES = [
    Mistake(
        check_center_rows,
        center_without_keepdims,
        r"(?s)raised ValueError.*row means lost their axis.*without keepdims=True",
    ),
    Mistake(
        check_center_rows,
        center_sum_without_keepdims,
        r"(?s)raised ValueError.*row means lost their axis.*without keepdims=True",
    ),
    Mistake(check_center_rows, center_columns, r"mean over axis 0 \(down each column\)"),
    Mistake(check_center_rows, center_whole_array, "mean of the whole array"),
    Mistake(
        check_center_rows,
        center_keepdims_in_the_dtype_place,
        r"raised TypeError: Cannot interpret 'True' as a data type\nnumpy's reductions take "
        r"\(a, axis, dtype, out, keepdims\).*keepdims=True",
    ),
    Mistake(check_center_rows, standardize_rows, "also divided by the standard deviation"),
    Mistake(
        check_center_rows, center_without_keepdims, r"could not be broadcast[\s\S]*size-1 axis"
    ),
    Mistake(check_center_rows, center_axis_1, "means were taken over axis 1"),
    Mistake(
        check_center_rows, center_axis_1_except_in_3d, r"raised AxisError[\s\S]*axis=-1 is the"
    ),
    Mistake(
        check_center_rows,
        center_without_keepdims_on_square_input,
        r"subtracted down the columns[\s\S]*size-1 axis",
    ),
    Mistake(check_center_rows, center_in_place, "changed its argument `x` in place"),
    Mistake(
        check_center_rows,
        center_means_put_back_second,
        r"(?s)^(?!.*numpy lines them up).*size-1 axis was put back at position 1",
    ),
    Mistake(
        check_center_rows,
        center_sum_over_number_of_rows,
        r"sum divided by \d+ \(x\.shape\[0\], len\(x\)\), not by the length of a row",
    ),
    Mistake(
        check_center_rows,
        center_axis_1_through_transposes,
        r"(?s)^(?!.*numpy lines them up).*x\.T \(every axis of x reversed\).*taken over "
        r"(axis 0 or )?axis 1.*only in 2-D",
    ),
    Mistake(
        check_center_rows,
        center_float_of_means,
        r"raised TypeError[\s\S]*into one Python number[\s\S]*several rows",
    ),
    Mistake(
        check_center_rows,
        center_means_transposed,
        r"Row \(i, j\) of yours had the mean of row \(j, i\) subtracted|x\.T reverses \*every\*",
    ),
    Mistake(
        check_center_rows,
        center_means_flattened,
        r"row means flattened into one column.*lost x's leading axes",
    ),
    Mistake(check_center_rows, center_unchanged, "returned x unchanged"),
    Mistake(
        check_center_rows,
        center_each_first_axis_slice,
        r"^(?!.*whole array).*mean of all of x\[i\]: either x\.mean\(axis=tuple\(range\(1, "
        r"x\.ndim\)\).*or a loop over the first axis",
    ),
    Mistake(
        check_center_rows,
        center_each_sample_over_trailing_axes,
        r"mean of all of x\[i\]: either x\.mean\(axis=tuple\(range\(1, x\.ndim\)\).*per-sample "
        r"mean.*Subtract each row's own mean",
    ),
    Mistake(
        check_center_rows,
        center_each_sample_flattened,
        r"mean of all of x\[i\], and center_rows\(\[2\.0, 4\.0, 9\.0\]\) gives zeros.*"
        r"x\.reshape\(len\(x\), -1\)",
    ),
    Mistake(check_center_rows, center_median, "each row's median instead of its mean"),
    Mistake(check_center_rows, center_adds_mean, "added each row's mean"),
    Mistake(
        check_center_rows,
        center_columns_in_place,
        r"(?s)in place.*Its result is wrong too\. .*mean over axis 0",
    ),
    Mistake(check_center_rows, center_rows_no_return, "forget the `return`"),
    Mistake(check_center_rows, center_rows_as_list, "should be a ndarray"),
    Mistake(check_center_rows, center_rows_rounded, "should hold floating-point numbers"),
]


# --------------------------------------------------------------------- correct variants
def center_with_none_axis(x):
    return x - x.mean(axis=-1)[..., None]


def center_expand_dims(x):
    return x - np.expand_dims(np.mean(x, axis=-1), -1)


def center_sum_over_length(x):
    return x - x.sum(axis=-1, keepdims=True) / x.shape[-1]


def center_through_transpose(x):
    """The last axis becomes the first: broadcasting then lines up on its own."""
    return (x.T - x.T.mean(axis=0)).T


def center_apply_along_axis(x):
    return np.apply_along_axis(lambda row: row - row.mean(), -1, x)


def center_with_centering_matrix(x):
    """Statistics' centering matrix H = I - 11ᵀ/n: x @ H removes each row's mean."""
    n = x.shape[-1]
    return x @ (np.eye(n, dtype=x.dtype) - np.full((n, n), 1 / n, dtype=x.dtype))


def center_in_float64(x):
    """Works in float64 whatever the input (the check notes it, and accepts it)."""
    x64 = np.asarray(x, dtype=np.float64)
    return x64 - x64.mean(axis=-1, keepdims=True)


def center_loop(x):
    out = np.empty_like(x)
    for index in np.ndindex(x.shape[:-1]):
        row = x[index]
        out[index] = row - sum(row) / len(row)
    return out


# ---- blind round 12 (r12c): the row mean made a whole number, told apart from min and
# first entry by a probe (blind12c-center-floor-division-mean; the others are new)


def center_floor_divided_mean(x):
    means = np.sum(x, axis=-1, keepdims=True) // x.shape[-1]
    return x - means


def center_rounded_mean(x):
    return x - np.round(x.mean(axis=-1, keepdims=True))


def center_int_mean(x):
    return x - x.mean(axis=-1, keepdims=True).astype(int)


# ---- fix round 18 (blind15c-center-sum-over-n-minus-one): the sample-variance n - 1 on a
# (2, 3) input equals x.shape[0]; a probe tells the two apart


def center_mean_with_bessel_correction(x):  # the sum over len(row) - 1
    length = np.size(x, -1)
    row_sums = np.add.reduce(x, axis=-1, keepdims=True)
    return x - row_sums / (length - 1)


MISTAKES += [
    Mistake(
        check_center_rows,
        center_mean_with_bessel_correction,
        r"^(?!.*x\.shape\[0\]).*sum divided by \d+ \(x\.shape\[-1\] - 1, one less than",
    ),
    Mistake(check_center_rows, center_floor_divided_mean, r"mean rounded down to a whole number"),
    Mistake(check_center_rows, center_rounded_mean, r"mean rounded to the nearest whole number"),
    Mistake(check_center_rows, center_int_mean, r"mean cut to a whole number"),
]


def center_rows_into_int_array(x):  # the result written into an array of the input's int dtype
    out = np.zeros(x.shape, dtype=np.int32)
    out[...] = x - x.mean(axis=-1, keepdims=True)
    return out


MISTAKES += [
    Mistake(
        check_center_rows,
        center_rows_into_int_array,
        r"but its dtype is int32\. Your values are (right here only because every one of "
        r"them is a whole number|the right ones truncated toward zero)",
    ),
]

CORRECT = [
    Correct(check_center_rows, center_with_none_axis),
    Correct(check_center_rows, center_expand_dims),
    Correct(check_center_rows, center_sum_over_length),
    Correct(check_center_rows, center_through_transpose),
    Correct(check_center_rows, center_apply_along_axis),
    Correct(check_center_rows, center_with_centering_matrix),
    Correct(check_center_rows, center_in_float64),
    Correct(check_center_rows, center_loop),
]

test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


def test_a_float64_result_for_float32_input_gets_a_note(capsys):
    check_center_rows(center_in_float64, hidden=True)
    assert "note (center_rows)" in capsys.readouterr().out


# ----------------------------------------------------------------------------- oracles
def test_center_rows_matches_the_lessons_worked_example():
    # Worked by hand in the lesson: row means 2 and 30.
    got = ref.center_rows(np.array([[1.0, 2.0, 3.0], [10.0, 20.0, 60.0]]))
    np.testing.assert_array_equal(got, [[-1.0, 0.0, 1.0], [-20.0, -10.0, 30.0]])


def test_center_rows_agrees_with_the_centering_matrix():
    """x H with H = I - (1/n) 11ᵀ (the centering matrix of statistics), row by row."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, 4, 5)) * 3 + 1
    h = np.eye(5) - np.ones((5, 5)) / 5
    np.testing.assert_allclose(ref.center_rows(x), x @ h, atol=1e-12)
    np.testing.assert_allclose(ref.center_rows(x).mean(axis=-1), 0.0, atol=1e-12)


# ------------------------------------------------------------------------ the lesson text
def _master_markdown() -> str:
    nb = jupytext.read(REPO / "solutions" / "00_welcome" / "00_welcome.py", fmt="py:percent")
    return "\n\n".join(cell.source for cell in nb.cells if cell.cell_type == "markdown")


def _build_vocab_ties_by_first_appearance(token_lists, min_freq=1):
    counts = Counter(t for tokens in token_lists for t in tokens)
    vocab = {t: i for i, t in enumerate(["<pad>", "<unk>", "<bos>", "<eos>"])}
    for token, n in counts.most_common():
        if n >= min_freq and token not in vocab:
            vocab[token] = len(vocab)
    return vocab


def test_the_example_grade_table_is_what_make_grade_prints():
    """The lesson shows `make grade` on lesson 01 with one slip in build_vocab: the table
    must be the self-grader's own output for that notebook (rows, points, message)."""
    try:
        check_build_vocab(_build_vocab_ties_by_first_appearance)
    except CheckFailure as failure:
        message = str(failure)  # what nbgrader records as the failed cell's error
    else:
        raise AssertionError("the slip in the example passed its check")
    scores = [
        CellScore(
            ex.test_grade_id,
            0.0 if ex.name == "build_vocab" else float(ex.points),
            float(ex.points),
            message if ex.name == "build_vocab" else "",
        )
        for ex in registry.exercises("01_tokenization")
    ]
    expected = "\n".join(
        line.rstrip() for line in format_table("01_tokenization", scores).split("\n")
    )
    blocks = re.findall(r"```\n(Lesson 01_tokenization\n.*?)\n```", _master_markdown(), re.S)
    assert blocks, "lesson 00 no longer shows an example of the grade table"
    assert blocks[0] == expected


def test_points_are_explained_where_learners_can_see_them():
    text = _master_markdown()
    assert "metadata" not in text and "score table below" not in text
    assert f"*{registry.exercise('00_welcome', 'center_rows').header}*" in text
