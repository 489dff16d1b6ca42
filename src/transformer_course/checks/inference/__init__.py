"""Checks for lesson 12: the KV cache, generation with it, grouped-query attention, the
online softmax, tiled (flash-style) attention and the sliding-window mask.

Oracles: generation with a cache is compared with the reference generation *without*
one (the definition of a correct cache: the same tokens, the same logits to float
tolerance), on lesson 11's architecture: a ``CachedGPT`` (lesson 11's GPT with a
cache-aware forward, whose uncached forward is GPT.forward itself) with small random
weights, whose counter of processed positions shows whether the loop feeds one token
per step. Grouped-query attention is compared with lesson 04's
attention on heads repeated group-wise (tests/test_12_inference.py compares it with
``F.scaled_dot_product_attention(..., enable_gqa=True)``); the online softmax with
``torch.softmax``; tiled attention with lesson 04's attention (and, in the tests, with
PyTorch's); the sliding-window mask with its definition (j <= i and i - j < window).

Decided per case: any float dtype for results (a note when it differs), any way of
computing (a growing cache made with torch.cat passes as well as preallocated buffers;
a prefill token by token passes; feeding the last generated token too passes), and any
exception type when a cache overflows. The mask is bool, True = may attend (lesson 06).

One module per exercise (``cache``, ``generate``, ``gqa``, ``softmax``, ``tiled``,
``window``; the question in ``quizzes``), the machinery they share in ``common``, and the
registry's ``LESSON`` and ``EXERCISES`` in ``exercises``. This face only re-exports: the
check functions, and the cases, models and expected values they run (public, so that the
lesson's tests can prove what the checks rely on).
"""

from .cache import check_KVCache
from .exercises import EXERCISES as EXERCISES
from .exercises import LESSON as LESSON
from .generate import cached_generation, check_generate
from .gqa import check_grouped_query_attention, gqa_expected
from .quizzes import check_quiz_cache_memory
from .softmax import check_online_softmax
from .tiled import check_tiled_attention
from .window import check_sliding_window_mask

__all__ = [
    "cached_generation",
    "check_KVCache",
    "check_generate",
    "check_grouped_query_attention",
    "check_online_softmax",
    "check_quiz_cache_memory",
    "check_sliding_window_mask",
    "check_tiled_attention",
    "gqa_expected",
]
