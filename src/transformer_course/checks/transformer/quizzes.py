"""Lesson 09's two concept questions."""

from __future__ import annotations

from transformer_course.checking.quiz import Quiz, quiz_check

# ================================================================== concept questions
QUIZ_TIE_EMBEDDINGS = Quiz(
    name="quiz_tie_embeddings",
    answer="a",
    choices={
        "a": "English -> German with one shared byte-pair vocabulary of 37,000 tokens",
        "b": "English -> Japanese with two separate vocabularies of 32,000 tokens each",
        "c": "English -> German with separate vocabularies of 30,000 and 40,000 tokens",
        "d": "any of them: tying only needs the same d_model on both sides",
    },
    why={
        "a": "One vocabulary for both languages means id i is the same token on both sides, "
        "so one row can serve as its source embedding, its target embedding and its output "
        "weight. This is the paper's setting (section 3.4, with the shared 37,000-token "
        "vocabulary of section 5.1).",
        "b": "The shapes would fit, (32000, d_model) three times, but row i would be one "
        "English token in the source table and an unrelated Japanese token in the target "
        "table: sharing the row would force two unrelated words to have the same vector. "
        "Equal sizes are not enough; the ids must mean the same tokens.",
        "c": "The matrices do not even have the same shape, (30000, d_model) and (40000, "
        "d_model), so they cannot be one matrix; and the ids mean different tokens anyway. "
        "(Tying only the target embedding with the output layer would still work here.)",
        "d": "Every table has d_model columns, but sharing needs the rows to match too: the "
        "same number of tokens AND the same token behind every id, i.e. one shared vocabulary.",
    },
)
check_quiz_tie_embeddings = quiz_check(QUIZ_TIE_EMBEDDINGS)

QUIZ_AUTOREGRESSION = Quiz(
    name="quiz_autoregression",
    answer="b",
    choices={
        "a": "the look-ahead mask is switched off at inference",
        "b": "there is no reference: the input of step t + 1 is the output of step t",
        "c": "one pass over the whole target would be slower",
        "d": "the encoder has to run again for every new token",
    },
    why={
        "a": "The look-ahead mask is the same at inference; and even with it, one pass cannot "
        "work, because the tokens it would have to read have not been produced yet.",
        "b": "In training the whole target is known, so every position can be fed the right "
        "previous token at once (teacher forcing). At inference token t only exists once the "
        "model has chosen it, so each step needs the previous step's output: autoregression.",
        "c": "One pass would be faster, not slower; it is impossible, not slow, because the "
        "decoder's input is not known in advance.",
        "d": "The source does not change while the target grows: memory is computed once and "
        "reused at every step. Only the decoder runs again.",
    },
)
check_quiz_autoregression = quiz_check(QUIZ_AUTOREGRESSION)
