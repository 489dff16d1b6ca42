"""Checks for lesson 11: ``next_token_batches``, ``RMSNorm``, ``rotary_embedding``,
``apply_rotary``, ``SwiGLU``, ``CausalSelfAttention``, ``DecoderBlock``, ``GPT``,
``sample`` and the lesson's two concept questions.

One module per exercise or small group (``batches``, ``norm``, ``rotary`` for both RoPE
exercises, ``swiglu``, ``attention``, ``block``, ``gpt``, ``sample``; the questions in
``quizzes``), the machinery they share in ``common`` (the layer machinery of the
attention, block and GPT checks in ``attention``), and the registry's ``LESSON`` and
``EXERCISES`` in ``exercises``. This face only re-exports: the check functions and the
two questions.

Expected values come from the float64 oracles of
:mod:`transformer_course.checking.oracles` (``rms_norm_f``, ``rope_angles_f``,
``rotate_f``, ``swiglu_f``, ``causal_self_attention_f``, ``decoder_block_f``, ``gpt_f``),
written from the papers' formulas with explicit rotations, independent of the reference;
``tests/test_oracles.py`` proves that they and PyTorch's ``nn.RMSNorm`` / ``F.silu`` /
``F.scaled_dot_product_attention`` agree. Each has one keyword ("knob") per classic
mistake.

RoPE's two pairings (adjacent pairs, as in RoFormer and Meta's Llama code; "rotate
half", as in GPT-NeoX and Hugging Face's Llama) are both accepted, consistently applied:
the checks compute both and follow the one the learner's result matches, with a note
for the adjacent one (the reference uses rotate-half). The defining property (q·k after rotation depends only
on the offset m − n) and the causal property (a later token never changes an earlier
position's result) are checked by experiment on the learner's code.

``sample`` is checked by its distribution: thousands of copies of a row of logits in
one call, the empirical frequencies against the exact probabilities (a tolerance of
about six standard deviations), the set of tokens that may appear exactly, and the
``generator`` argument (two generators with the same seed give the same draws).
"""

from .attention import check_CausalSelfAttention
from .batches import check_next_token_batches
from .block import check_DecoderBlock
from .exercises import EXERCISES as EXERCISES
from .exercises import LESSON as LESSON
from .gpt import check_GPT
from .norm import check_RMSNorm
from .quizzes import (
    QUIZ_ROPE_VALUES,
    QUIZ_TEMPERATURE,
    check_quiz_rope_values,
    check_quiz_temperature,
)
from .rotary import check_apply_rotary, check_rotary_embedding
from .sample import check_sample
from .swiglu import check_SwiGLU

__all__ = [
    "QUIZ_ROPE_VALUES",
    "QUIZ_TEMPERATURE",
    "check_CausalSelfAttention",
    "check_DecoderBlock",
    "check_GPT",
    "check_RMSNorm",
    "check_SwiGLU",
    "check_apply_rotary",
    "check_next_token_batches",
    "check_quiz_rope_values",
    "check_quiz_temperature",
    "check_rotary_embedding",
    "check_sample",
]
