"""Lesson 04's concept questions."""

from __future__ import annotations

from transformer_course.checking.quiz import Quiz, quiz_check

QUIZ_SCORE_SCALE = Quiz(
    name="quiz_score_scale",
    answer="c",
    choices={
        "a": "the number of words in the sentence",
        "b": "d_model, the width of the token vectors between layers",
        "c": "the width of each query and key vector, q.shape[-1] (64 per head in the paper)",
        "d": "the number of attention heads",
    },
    why={
        "a": "A popular explanation says so, but the scale must not change with the sentence: "
        "q · k is a sum over the d_k features of one query and one key, so its spread "
        "grows with d_k, whatever the number of words.",
        "b": "d_model is not the width of the vectors in the dot product: the projections "
        "W^Q and W^K map d_model down to a smaller width per head, d_model / num_heads "
        "(512 -> 64 in the paper). The dot product runs over the features of one query and "
        "one key of one head, not over d_model.",
        "c": "q · k sums d_k products; with unit-variance entries its variance is d_k, so "
        "dividing by √d_k brings the spread of the scores back to 1, whatever the width.",
        "d": "The number of heads decides how d_model is split (d_k = d_model / num_heads), "
        "but the scale is set by the width of the vectors in the dot product, d_k.",
    },
    # the paper's size itself in place of the letter (not 8: both sqrt(d_k) and the heads)
    meant={
        64: ("c", "64, the paper's width of each query and key (d_k)"),
        512: ("b", "512, the paper's d_model"),
    },
)
QUIZ_FULLY_MASKED = Quiz(
    name="quiz_fully_masked",
    answer="b",
    choices={
        "a": "NaN, so that the problem shows",
        "b": "all-zero weights, so the query takes in nothing and its output is zero",
        "c": "the softmax of its scores as if there were no mask",
        "d": "weight 1 on the first key",
    },
    why={
        "a": "NaN does not stay put: it spreads into every later layer, the loss and every "
        "gradient (even NaN times a zero weight is NaN), and training breaks. That is why the "
        "convention gives such a row finite weights.",
        "b": "The row belongs to padding and may attend to nothing, so it takes in nothing. "
        "F.scaled_dot_product_attention (PyTorch 2.5 and later) does the same. The checks "
        "also accept uniform weights (what a finite fill such as -1e9 gives), never NaN.",
        "c": "That lets the query see exactly the keys the mask forbids, pads and future words "
        "included: the mask would be ignored just where every key is forbidden.",
        "d": "Nothing singles out the first key: that would invent information the mask "
        "forbids, and it is not what any of the usual implementations computes.",
    },
    # the weights' value itself in place of the letter
    meant={
        0: ("b", "0, the weight on every key"),
        float("nan"): ("a", "NaN, the weights' value"),
    },
)
QUIZ_CROSS_ATTENTION_ROLES = Quiz(
    name="quiz_cross_attention_roles",
    answer="b",
    choices={
        "a": "queries, keys and values all from the decoder's own words",
        "b": "queries from the decoder, keys and values from the encoder's output",
        "c": "queries and keys from the encoder's output, values from the decoder",
        "d": "queries from the encoder's output, keys and values from the decoder",
    },
    why={
        "a": "That is the decoder's (masked) self-attention: with queries, keys and values all "
        "from the decoder's words, the decoder never reads the source sentence. In "
        "cross-attention only the queries come from the decoder; the keys and values come from "
        "the encoder's output (the memory), the source sentence each target word reads.",
        "b": "Each Spanish word being produced asks a question (its query) and reads the answer "
        "out of the English sentence (its keys and values). The weights are (len_q, len_k) = "
        "(target length, source length): one output row per target word.",
        "c": "A widely read illustrated guide says so, but it cannot work: the output has one "
        "row per query, and the decoder needs one output row per target word; and the values "
        "must be rows of the sequence the keys describe.",
        "d": "Then the output would have one row per *source* word, but the decoder needs one "
        "per target word: the roles are the other way round.",
    },
)
check_quiz_score_scale = quiz_check(QUIZ_SCORE_SCALE)
check_quiz_fully_masked = quiz_check(QUIZ_FULLY_MASKED)
check_quiz_cross_attention_roles = quiz_check(QUIZ_CROSS_ATTENTION_ROLES)
QUIZZES = (QUIZ_SCORE_SCALE, QUIZ_FULLY_MASKED, QUIZ_CROSS_ATTENTION_ROLES)
