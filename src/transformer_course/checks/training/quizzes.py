"""Lesson 10's concept questions."""

from __future__ import annotations

import math

from transformer_course.checking.quiz import Quiz, quiz_check

QUIZ_TEACHER_FORCING = Quiz(
    name="quiz_teacher_forcing",
    answer="a",
    choices={
        "a": "(i) <bos> el gato negro   (ii) <bos> el gato blanco",
        "b": "(i) <bos> el gato blanco   (ii) <bos> el gato blanco",
        "c": "(i) <bos> el gato negro   (ii) <bos> el gato negro",
        "d": "(i) el gato negro bebe   (ii) <bos> el gato blanco",
    },
    why={
        "a": "With teacher forcing the decoder always reads the reference (shifted right by "
        "one), whatever it would have predicted: its mistake costs loss at that position, "
        "but does not change what later positions read. When it translates, it can only "
        "read what it produced itself, mistakes included. That gap (exposure bias) is why "
        "a model can do better in training than when it decodes.",
        "b": "That describes decoding in both cases. In training, teacher forcing feeds the "
        "reference tokens, not the model's own predictions: all positions are computed in "
        "one parallel pass, which needs the inputs known in advance.",
        "c": "At translation time (greedy_decode) there is no reference to read: the "
        "decoder reads its own predictions, so its mistake ('blanco') is what it reads "
        "next. Only training, with teacher forcing, feeds the reference.",
        "d": "That decoder input has been shifted the wrong way: it is the labels. Position t "
        "must not read the token it is asked to predict; the input starts with <bos>.",
    },
)
check_quiz_teacher_forcing = quiz_check(QUIZ_TEACHER_FORCING)

_Q = 0.9 + 0.1 / 10  # the target's share with eps = 0.1, V = 10
_FLOOR = -(_Q * math.log(_Q) + 9 * 0.01 * math.log(0.01))  # in nats (natural logarithms)
QUIZ_LOSS_FLOOR = Quiz(
    name="quiz_loss_floor",
    answer=_FLOOR,
    rel_tol=0.01,
    why={
        # the right entropy in another unit: the logarithm's base is the mistake
        _FLOOR / math.log(2): "≈ 0.722 is the floor in bits: the entropy of the smoothed "
        "target with base-2 logarithms (log2). The loss is in nats: PyTorch's "
        "cross-entropy and log_softmax use the natural logarithm, ln, so the floor is "
        "-(0.91 ln 0.91 + 9 × 0.01 ln 0.01) (bits × ln 2).",
        _FLOOR / math.log(10): "≈ 0.217 is the floor with base-10 logarithms (log10). The "
        "loss is in nats: PyTorch's cross-entropy and log_softmax use the natural "
        "logarithm, ln, so the floor is -(0.91 ln 0.91 + 9 × 0.01 ln 0.01).",
        _FLOOR: "The cross-entropy -Σ q log p is "
        "smallest when p = q, and then it equals the entropy of q: -(0.91 ln 0.91 + 9 × "
        "0.01 ln 0.01) ≈ 0.500. A model that is right every time still has a loss of about "
        "0.5 per token, which is why a label-smoothed loss curve levels off well above 0.",
        0: "A perfect one-hot prediction (p[y] = 1) is not the minimum: the ε/V part of the "
        "loss contains -log p[j] for every other token j, which is infinite when p[j] = 0. "
        "The loss is smallest when p equals the smoothed target q, and there it is the "
        "entropy of q, which is not 0: with ε > 0 the smoothed loss cannot reach 0 (0 is "
        "the floor of the plain, one-hot cross-entropy).",
        -math.log(_Q): "-ln 0.91 ≈ 0.094 is what the target's share alone costs when "
        "p = q; the other nine tokens add 9 × 0.01 × (-ln 0.01) ≈ 0.414.",
        -math.log(0.9): "-ln 0.9 ≈ 0.105 leaves out the other tokens' part, and the target "
        "gets 0.91 (1 - ε + ε/V) in PyTorch's definition, not 0.9.",
        # the loss of another prediction: the uniform one a model starts from
        math.log(10): "ln 10 ≈ 2.303 is the loss of a model that predicts the uniform "
        "distribution, p = 1/V on each of the V = 10 tokens (-ln(1/V)): the loss to expect "
        "at initialisation, where training starts, not the smallest it can reach. The "
        "loss keeps falling while p moves towards the smoothed target q, and is smallest "
        "at p = q, where it equals the entropy of q.",
        math.log2(10): "log2 10 ≈ 3.32 is the loss of the uniform prediction, p = 1/V on "
        "each of the V = 10 tokens, in bits: the loss at initialisation, where training "
        "starts, not the smallest it can reach, and in the wrong unit (the loss is in "
        "nats, natural logarithms). It is smallest at p = q, the smoothed target.",
        # the target's own ε/V forgotten: q_y = 1 - ε, the others ε/V, and q sums to 0.99
        -(0.9 * math.log(0.9) + 9 * 0.01 * math.log(0.01)): "≈ 0.509 gives the target "
        "1 - ε = 0.9 and forgets its own share ε/V = 0.01: that q sums to 0.99, not 1. In "
        "PyTorch's definition every token, the target included, gets ε/V, so the target's "
        "probability is q_y = 1 - ε + ε/V = 0.91, and the floor is -(0.91 ln 0.91 + 9 × "
        "0.01 ln 0.01).",
        -(0.9 * math.log(0.9) + 0.1 * math.log(0.1 / 9)): "≈ 0.545 is the floor for the "
        "ε/(V-1) definition (0.9 on the target, 0.1/9 on each other token); this question "
        "uses PyTorch's, ε/V on every token, the target included.",
    },
)
check_quiz_loss_floor = quiz_check(QUIZ_LOSS_FLOOR)
