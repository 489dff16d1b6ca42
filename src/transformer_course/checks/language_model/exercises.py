"""Lesson 11's exercises, as the registry reads them (re-exported by the package)."""

from __future__ import annotations

from transformer_course.exercise import Exercise

from .attention import check_CausalSelfAttention
from .batches import check_next_token_batches
from .block import check_DecoderBlock
from .gpt import check_GPT
from .norm import check_RMSNorm
from .quizzes import check_quiz_rope_values, check_quiz_temperature
from .rotary import check_apply_rotary, check_rotary_embedding
from .sample import check_sample
from .swiglu import check_SwiGLU

LESSON = "11_language_model"
_SDPA = ("torch.nn.functional.scaled_dot_product_attention", "torch.nn.MultiheadAttention")
_RMS_NORM_APIS = ("torch.nn.RMSNorm", "torch.nn.functional.rms_norm", "torch.rms_norm")
EXERCISES = (
    Exercise(
        "next_token_batches",
        check_next_token_batches,
        kind="function",
        points=2,
        minutes=15,
        level=1,
    ),
    Exercise(
        "RMSNorm",
        check_RMSNorm,
        kind="module",
        points=2,
        minutes=15,
        level=2,
        forbidden=_RMS_NORM_APIS,
    ),
    Exercise(
        "rotary_embedding", check_rotary_embedding, kind="function", points=2, minutes=15, level=2
    ),
    Exercise("apply_rotary", check_apply_rotary, kind="function", points=3, minutes=25, level=2),
    Exercise("quiz_rope_values", check_quiz_rope_values, kind="quiz", points=1, minutes=3, level=2),
    Exercise("SwiGLU", check_SwiGLU, kind="module", points=2, minutes=15, level=2),
    Exercise(
        "CausalSelfAttention",
        check_CausalSelfAttention,
        kind="module",
        points=3,
        minutes=20,
        level=2,
        forbidden=_SDPA,
    ),
    Exercise(
        "DecoderBlock",
        check_DecoderBlock,
        kind="module",
        points=2,
        minutes=10,
        level=2,
        forbidden=_SDPA,
    ),
    Exercise("GPT", check_GPT, kind="module", points=3, minutes=20, level=2, forbidden=_SDPA),
    Exercise("sample", check_sample, kind="function", points=4, minutes=30, level=3),
    Exercise("quiz_temperature", check_quiz_temperature, kind="quiz", points=1, minutes=3, level=2),
)
