"""Float64 oracles of the course's building blocks, written from the formulas, each with
one keyword ("knob") per classic mistake so that a check can name the mistake a wrong
answer matches. One module per concept; a later lesson's oracle reuses an earlier one
(one multi-head attention for lessons 05-12). ``tests/test_oracles.py`` tests them once,
against PyTorch's own modules.

This face only re-exports.
"""

from transformer_course.checking.oracles.attention import (
    merge_heads_f,
    multi_head_attention_f,
    scaled_dot_product_attention_f,
    split_heads_f,
)
from transformer_course.checking.oracles.decoding import greedy_decode_f
from transformer_course.checking.oracles.encoder_decoder import (
    count_parameters_f,
    decoder_f,
    decoder_layer_f,
    encoder_f,
    encoder_layer_f,
    residual_block,
    stack_f,
    transformer_decode_f,
    transformer_embed_f,
    transformer_encode_f,
    uses_final_norm,
)
from transformer_course.checking.oracles.feed_forward import ffn_f, swiglu_f
from transformer_course.checking.oracles.gpt import causal_self_attention_f, decoder_block_f, gpt_f
from transformer_course.checking.oracles.losses import label_smoothing_f
from transformer_course.checking.oracles.norms import layer_norm_f, rms_norm_f
from transformer_course.checking.oracles.positions import (
    relative_shift_f,
    rope_angles_f,
    rotate_f,
    sinusoidal_positions_f,
)
from transformer_course.checking.oracles.sampling import sample_probabilities_f
from transformer_course.checking.oracles.state import as_float64, linear, sub, zero_if
from transformer_course.checking.oracles.tiled import online_softmax_f, tiled_attention_f

__all__ = [
    "as_float64",
    "causal_self_attention_f",
    "count_parameters_f",
    "decoder_block_f",
    "decoder_f",
    "decoder_layer_f",
    "encoder_f",
    "encoder_layer_f",
    "ffn_f",
    "gpt_f",
    "greedy_decode_f",
    "label_smoothing_f",
    "layer_norm_f",
    "linear",
    "merge_heads_f",
    "multi_head_attention_f",
    "online_softmax_f",
    "relative_shift_f",
    "residual_block",
    "rms_norm_f",
    "rope_angles_f",
    "rotate_f",
    "sample_probabilities_f",
    "scaled_dot_product_attention_f",
    "sinusoidal_positions_f",
    "split_heads_f",
    "stack_f",
    "sub",
    "swiglu_f",
    "tiled_attention_f",
    "transformer_decode_f",
    "transformer_embed_f",
    "transformer_encode_f",
    "uses_final_norm",
    "zero_if",
]
