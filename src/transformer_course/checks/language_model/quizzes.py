"""Lesson 11's two concept questions."""

from __future__ import annotations

from transformer_course.checking.quiz import Quiz, quiz_check

QUIZ_ROPE_VALUES = Quiz(
    name="quiz_rope_values",
    answer="c",
    choices={
        "a": "the token embeddings, before the first layer, as lesson 03's encoding is added",
        "b": "queries, keys and values, so that the output carries the position too",
        "c": "queries and keys only, after the heads are split, in every layer",
        "d": "the attention weights, after the softmax",
    },
    why={
        "a": "That is lesson 03's absolute encoding. RoPE acts inside every attention, on the "
        "vectors whose dot product is the score.",
        "b": "Rotating the values would mix position into the content the attention moves; the "
        "relative-position property concerns the score q·k only.",
        "c": "Each head's queries and keys are rotated by their position's angles, so that their "
        "dot product depends on the offset; the values and the residual stream are untouched.",
        "d": "The weights are probabilities over keys; rotating them means nothing. The rotation "
        "acts on q and k before their dot product.",
    },
)
check_quiz_rope_values = quiz_check(QUIZ_ROPE_VALUES)

QUIZ_TEMPERATURE = Quiz(
    name="quiz_temperature",
    answer="b",
    choices={
        "a": "it sharpens the distribution, as intended",
        "b": "nothing: multinomial renormalises, so every temperature samples from softmax(logits)",
        "c": "it flattens the distribution",
        "d": "it raises an error, because the probabilities sum to 2",
    },
    why={
        "a": "Dividing every probability by the same number T leaves their ratios unchanged, "
        "and torch.multinomial renormalises the weights it is given (divides them by their "
        "sum), so the draw is from softmax(logits) whatever T: nothing changes. To sharpen, "
        "divide the logits by T < 1, before the softmax.",
        "b": "torch.multinomial takes non-negative weights and renormalises them: dividing all "
        "by 0.5 changes nothing. Temperature must divide the logits, before the softmax.",
        "c": "Dividing every probability by 0.5 doubles each one: no ratio changes, and "
        "torch.multinomial renormalises the weights it is given, so nothing changes. "
        "Flattening needs T > 1 applied to the logits, before the softmax.",
        "d": "torch.multinomial does not raise here: it takes any non-negative weights, which "
        "need not sum to 1, and renormalises them (divides them by their sum). Weights that "
        "sum to 2 are the same distribution as the probabilities: nothing changes.",
    },
)
check_quiz_temperature = quiz_check(QUIZ_TEMPERATURE)
