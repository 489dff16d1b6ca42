"""checking.table_columns: which reference function each column of a table is, and the
wider table a learner's tables were cut from, named only where the columns tell it."""

from __future__ import annotations

import numpy as np

from transformer_course.checking.table_columns import (
    column_sources,
    cut_code,
    cut_for,
    cut_from,
    describe_columns,
    describe_cut,
    sinusoid_columns,
    sinusoid_tables,
)


def _setup(length: int = 6, pairs: int = 4):
    theta = 10000.0 ** (-2 * np.arange(pairs) / (2 * pairs))
    columns = sinusoid_columns(np.arange(length), theta)
    return columns, sinusoid_tables(columns, pairs)


def test_each_column_is_named_by_every_function_it_equals():
    columns, _ = _setup()
    table = np.stack([columns["sin(m·theta_1)"], columns["cos(m·theta_0)"]], axis=1)
    assert column_sources(table, columns) == [("sin(m·theta_1)",), ("cos(m·theta_0)",)]
    assert column_sources(np.ones((6, 1)) * 0.3, columns) == [()]
    # one row (position 0) cannot tell the cosines apart: every one fits
    one_row = sinusoid_columns(np.arange(1), 10000.0 ** (-np.arange(3) / 3))
    assert len(column_sources(np.ones((1, 1)), one_row)[0]) == 3
    said = describe_columns("your cos table", column_sources(table, columns))
    assert said == "your cos table's column 0 is sin(m·theta_1), column 1 is cos(m·theta_0)"


def test_halves_of_an_interleaved_table_are_found_in_the_order_returned():
    columns, wholes = _setup()
    interleaved = np.stack(
        [columns[f"{f}(m·theta_{i})"] for i in range(4) for f in ("sin", "cos")], axis=1
    )
    first, second = interleaved[:, :4], interleaved[:, 4:]
    cuts = cut_from([second, first], wholes)
    assert len(cuts) == 1
    cut = cuts[0]
    assert cut.how == "halves" and cut.order == (1, 0) and "interleaved" in cut.whole
    said = describe_cut(cut, ("your cos table", "your sin table"))
    assert "cut in two" in said
    assert "your cos table is its second half (sin(m·theta_2), cos(m·theta_2)" in said
    assert "your sin table is its first half (sin(m·theta_0), cos(m·theta_0)" in said
    # and the cut that gives the right tables from the same wide table
    wanted = [[f"cos(m·theta_{i})" for i in range(4)], [f"sin(m·theta_{i})" for i in range(4)]]
    right = cut_for(wholes[cut.whole][1], wanted, cut.whole)
    assert cut_code(right, ("cos", "sin")) == "cos, sin = table[:, 1::2], table[:, 0::2]"


def test_even_and_odd_columns_of_a_halves_table_and_the_right_cut():
    columns, wholes = _setup()
    cos = np.stack([columns[f"cos(m·theta_{i})"] for i in range(4)], axis=1)
    sin = np.stack([columns[f"sin(m·theta_{i})"] for i in range(4)], axis=1)
    halves = np.concatenate([cos, sin], axis=1)
    cuts = cut_from([halves[:, 0::2], halves[:, 1::2]], wholes)
    assert [(c.how, c.order) for c in cuts] == [("even_odd", (0, 1))]
    assert "all the cosines, then all the sines" in cuts[0].whole
    # the right tables are a cut too (of the halves and of the interleaved tables): a caller
    # names a cut only when it is not the right one
    assert {c.how for c in cut_from([cos, sin], wholes)} == {"halves", "even_odd"}
    wanted = [[f"cos(m·theta_{i})" for i in range(4)], [f"sin(m·theta_{i})" for i in range(4)]]
    right = cut_for(wholes[cuts[0].whole][1], wanted)
    assert cut_code(right, ("cos", "sin")) == "cos, sin = table.chunk(2, dim=-1)"


def test_tables_of_other_functions_are_no_cut():
    _, wholes = _setup()
    rng = np.random.default_rng(0)
    assert cut_from([rng.normal(size=(6, 4)), rng.normal(size=(6, 4))], wholes) == []
    assert cut_from([np.zeros((6, 3)), np.zeros((6, 3))], wholes) == []
