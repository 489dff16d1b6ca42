"""Lesson 05's concept questions."""

from __future__ import annotations

from transformer_course.checking.quiz import Quiz, quiz_check

_BY_TOKENS = (
    "{value}: it divides by the sentence's 20 tokens, as if the tokens shared out the "
    "width. They do not: every token has all d_model features, and d_k does not depend on "
    "the sentence length (the number of tokens). The heads share d_model between them."
)

QUIZ_HEAD_WIDTH = Quiz(
    name="quiz_head_width",
    answer=64,
    why={
        64: "d_k = d_model / h = 768 / 12 = 64: each head's queries and keys are 64 numbers "
        "wide, whatever the length of the sentence. (BERT-base has exactly these sizes.)",
        768: "768 is d_model, the width of a whole token vector. Each head projects it down to "
        "a slice of d_model / h features.",
        9216: "768 * 12 would make every head as wide as the whole model, twelve times over: "
        "the heads share d_model between them instead.",
        12: "12 is h, the number of heads, not the width of one head.",
        8: "8 = sqrt(64) is what the scores are divided by, sqrt(d_k), not d_k itself.",
        256: "256 is 768 / 3, as if d_model were shared out between the queries, the keys "
        "and the values. Each of the three is d_model wide (one projection computes them for "
        "every head at once); it is the heads that split that width between them.",
        96: "96 is 768 / 8: 8 is the paper's number of heads (h = 8 in the original "
        "Transformer), not BERT-base's. Divide d_model by the h of the model the question "
        "describes.",
        # the sentence's 20 tokens brought into the width (round 19, blind16d-q-head-width-
        # divided-by-tokens: 768 // 20 was told only "38 is not right")
        38: _BY_TOKENS.format(value="38 is 768 // 20"),
        38.4: _BY_TOKENS.format(value="38.4 is 768 / 20"),
        20: "20 is the number of tokens in the sentence, not a width: d_k does not depend on "
        "the sentence length. Each token has d_model features, and the heads share those.",
        # the other width of a Transformer layer (round 20, blind19b-q-head-width-
        # intermediate-size: told only "48 times the right one")
        3072: "3072 = 4 × 768 is BERT-base's feed-forward (intermediate) width, d_ff: the "
        "inner size of the position-wise network that follows attention, not a width inside "
        "attention. One head's queries and keys are a slice of d_model shared by the h heads.",
        2048: "2048 is the original Transformer's feed-forward width, d_ff = 4 × 512: the "
        "inner size of the network that follows attention, and of another model. One head's "
        "queries and keys are a slice of d_model shared by the h heads.",
    },
)
check_quiz_head_width = quiz_check(QUIZ_HEAD_WIDTH)

QUIZ_CROSS_ATTENTION_SHAPE = Quiz(
    name="quiz_cross_attention_shape",
    answer="b",
    choices={
        "a": "(2, 8, 7, 5)",
        "b": "(2, 8, 5, 7)",
        "c": "(2, 8, 5, 5)",
        "d": "(2, 5, 7)",
    },
    why={
        "a": "That has one row per *source* token: queries from the encoder output. A widely "
        "read illustrated guide puts it that way, and it cannot work: the output has one row "
        "per query, and the decoder needs one output row for each target word it writes.",
        "b": "One row per query, the 5 target positions the decoder is writing (queries come "
        "from the decoder), and one column per key, the 7 source positions (keys and values "
        "come from the encoder output): (batch, num_heads, len_q, len_k). The two lengths "
        "need not agree.",
        "c": "(len_tgt, len_tgt) is the shape of the decoder's *self*-attention, where the "
        "target attends to itself. In cross-attention the keys are the source positions.",
        "d": "That is the weights averaged over the heads, what nn.MultiheadAttention returns "
        "by default. This course's layer returns every head's weights.",
    },
)
check_quiz_cross_attention_shape = quiz_check(QUIZ_CROSS_ATTENTION_SHAPE)
