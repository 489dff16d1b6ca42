"""Lesson 12's concept question."""

from transformer_course.checking.quiz import Quiz, quiz_check

# ======================================================================== concept question
QUIZ_CACHE_MEMORY = Quiz(
    name="quiz_cache_memory",
    answer=192,
    why={
        192: "2 (keys and values) x 48 layers x 8 key/value heads x 128 x 1024 tokens x 2 "
        "bytes = 201,326,592 bytes = 192 MiB. With 32 key/value heads (plain multi-head "
        "attention) it would be four times as much.",
        768: "That counts 32 key/value heads: with grouped-query attention only the 8 shared "
        "key/value heads are cached; the 32 query heads are never stored.",
        96: "That counts keys or values, not both: the cache holds two tensors per layer.",
        384: "That counts 4 bytes per number (float32); bfloat16 takes 2.",
        24: "That counts 1024 positions as 1024 bytes, or divides once too often: recount the "
        "units, bytes / 2**20 = MiB.",
    },
)
check_quiz_cache_memory = quiz_check(QUIZ_CACHE_MEMORY)
