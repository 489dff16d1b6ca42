"""Lesson 01's concept questions."""

from __future__ import annotations

from transformer_course.checking.quiz import Quiz, quiz_check

QUIZ_UNK = Quiz(
    name="quiz_unk",
    choices={
        "a": "To mark where a sentence ends, so that the decoder knows when to stop.",
        "b": "Because every id is a row of the embedding table, which is fixed before "
        "training, while new text keeps bringing words the vocabulary has never seen: each "
        "of them still needs some id.",
        "c": "To fill up short sentences, so that a batch is a rectangular array.",
        "d": "So that the model can learn the meaning of each rare word separately.",
    },
    answer="b",
    why={
        "a": "That is the job of <eos>, a different special token.",
        "b": "The vocabulary, and with it the embedding table, is fixed once it is built; any "
        "token outside it must still map to a row, and <unk> is that row. The price: all "
        "unknown words share it, so the model cannot tell them apart.",
        "c": "That is the job of <pad>, which attention will later be told to ignore.",
        "d": "It is the opposite: every unknown word gets the same id, so whatever the model "
        "learns about <unk> is a blur over all of them.",
    },
)
check_quiz_unk = quiz_check(QUIZ_UNK)

QUIZ_MERGE_ORDER = Quiz(
    name="quiz_merge_order",
    choices={
        "a": "[257, 256]",
        "b": "[256, 257]",
        "c": "[256, 256, 97]",
        "d": "[257, 257]",
    },
    answer="b",
    why={
        "a": "That is longest-match-first: take the longest known piece from the left ('aaa', "
        "then 'aa'), which is how WordPiece tokenizes. BPE instead replays its merges in the "
        "order they were learned.",
        "b": "The first merge pairs the a's from the left without overlap: [256, 256, 97]. "
        "Then the only (256, a) is at the end: [256, 257]. 256 is 'aa', 257 is 'aaa', and "
        "2 + 3 = 5 a's.",
        "c": "That applies only the first merge. The pair (256, a) still occurs at the end, "
        "and it has a rank, so it is merged too.",
        "d": "257 stands for three a's, so [257, 257] would be six of them; the text has five.",
    },
)
check_quiz_merge_order = quiz_check(QUIZ_MERGE_ORDER)
