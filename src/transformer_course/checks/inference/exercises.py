"""Lesson 12's exercises, as the registry reads them (re-exported by the package)."""

from transformer_course.exercise import Exercise

from .cache import check_KVCache
from .generate import check_generate
from .gqa import check_grouped_query_attention
from .quizzes import check_quiz_cache_memory
from .softmax import check_online_softmax
from .tiled import check_tiled_attention
from .window import check_sliding_window_mask

# ============================================================================== registry
_ATTENTION_APIS = ("torch.nn.functional.scaled_dot_product_attention",)
_SOFTMAX_APIS = ("torch.softmax", "torch.nn.functional.softmax", "torch.special.softmax")

LESSON = "12_inference"
EXERCISES = (
    Exercise("KVCache", check_KVCache, kind="module", points=3, minutes=15, level=2),
    Exercise("generate", check_generate, kind="function", points=4, minutes=20, level=2),
    Exercise(
        "grouped_query_attention",
        check_grouped_query_attention,
        kind="function",
        points=3,
        minutes=15,
        level=2,
        forbidden=_ATTENTION_APIS,
    ),
    Exercise(
        "quiz_cache_memory", check_quiz_cache_memory, kind="quiz", points=1, minutes=3, level=2
    ),
    Exercise(
        "online_softmax",
        check_online_softmax,
        kind="function",
        points=3,
        minutes=15,
        level=2,
        forbidden=_SOFTMAX_APIS,
    ),
    Exercise(
        "tiled_attention",
        check_tiled_attention,
        kind="function",
        points=4,
        minutes=25,
        level=3,
        forbidden=(*_ATTENTION_APIS, *_SOFTMAX_APIS),
    ),
    Exercise(
        "sliding_window_mask",
        check_sliding_window_mask,
        kind="function",
        points=2,
        minutes=10,
        level=1,
    ),
)
