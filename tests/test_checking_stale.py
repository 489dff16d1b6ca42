"""checking.stale.answers_on_repeat: the same call made several times in a row, the
answers that tell state kept between calls (a counter, a growing list) from a function of
its arguments alone."""

from __future__ import annotations

from transformer_course.checking.stale import answers_on_repeat


def test_a_function_of_its_arguments_gives_the_same_answer_every_time():
    assert answers_on_repeat(lambda x, y: x * y, (3, 4)) == [12, 12, 12]


def test_a_counter_kept_on_the_function_changes_the_answers():
    def counted(step):
        counted.calls = getattr(counted, "calls", 0) + 1
        return step + counted.calls

    answers = answers_on_repeat(counted, (10,), times=3)
    assert answers == [11, 12, 13]


def test_a_raising_function_gives_none():
    def raises(_x):
        raise ValueError("no")

    assert answers_on_repeat(raises, (1,)) is None
