"""Lesson 03's concept questions."""

from __future__ import annotations

import math

from transformer_course.checking.quiz import Quiz, quiz_check

# ------------------------------------------------------------------ concept questions
QUIZ_SHIFT = Quiz(
    name="quiz_shift",
    answer="c",
    choices={
        "a": "Only k = 1: one step is a rotation, but a longer shift needs a non-linear map.",
        "b": "Every k > 0, but not k < 0: moving backwards cannot be a rotation.",
        "c": "Every integer k (positive, negative or zero), with one matrix per k that works "
        "at every position.",
        "d": "Every k, but the matrix depends on pos as well, so each position needs its own.",
    },
    why={
        "a": "A shift by k is k shifts by 1, and a product of rotations is a rotation: "
        "M(k) = M(1)^k is one fixed matrix, linear like M(1).",
        "b": "Rotating pair i backwards by the angle w_i·k is a rotation too; its matrix is "
        "the transpose, M(-k) = M(k)^T.",
        "c": "The angle-addition formulas give coefficients cos(w_i·k) and ±sin(w_i·k) that "
        "depend on k only, so one matrix M(k) maps PE[pos] to PE[pos + k] for every pos, "
        "backwards for negative k, and M(0) is the identity.",
        "d": "That is the point of the sin/cos pairs: the coefficients cos(w_i·k) and "
        "sin(w_i·k) contain k but not pos: the matrix does not depend on pos, so one "
        "matrix per k works at every position.",
    },
)
check_quiz_shift = quiz_check(QUIZ_SHIFT)

QUIZ_ROW_LENGTH = Quiz(
    name="quiz_row_length",
    answer=8,
    rel_tol=1e-3,
    worked="(128 / 2) ** 0.5",  # the square root of the number of pairs
    why={
        8: "Each pair contributes sin² + cos² = 1 to the squared length, and d_model = 128 "
        "has 64 pairs: squared length 64, length √64 = 8, the same for every position. "
        "(In general √(d_model/2): 16 for the paper's 512.)",
        64: "64 is the squared length (one 1 per pair, 64 pairs); the length is its square root.",
        math.sqrt(128): "√128 would be the length if each of the 128 entries were ±1. Only "
        "the pairs are bounded that way: sin² + cos² = 1 per pair, not per entry.",
        math.sqrt(128) / 2: "That is the square root of 128, then halved: it halves the "
        "square root, where the halving belongs inside it. The squared length is what is "
        "halved: 128 entries make 64 sine-cosine pairs, each adding sin² + cos² = 1.",
        128: "Each entry lies in [-1, 1], and each *pair* contributes exactly 1 to the "
        "squared length, not each entry.",
        16: "16 is the length for d_model = 512 (lesson 02 printed it); here d_model is 128.",
        1: "The rows are not normalised: each pair is a point on the unit circle, and there "
        "are 64 pairs.",
    },
)
check_quiz_row_length = quiz_check(QUIZ_ROW_LENGTH)
