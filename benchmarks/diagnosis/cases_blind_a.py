"""Blind round 3, helper blind-a: held-out wrong answers for lessons 07-09, written from the
reference solutions alone (no check module or message read), judging criteria fixed before
any run."""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case

AUTHOR = "author: a plausible learner slip, written from the exercise's docstring"
L07, L08, L09 = "07_encoder", "08_decoder", "09_transformer"

BLIND_A: list[Case] = [
    Case(
        "blind2-ln-unbiased-var",
        L07,
        "LayerNorm",
        "the variance is the unbiased one (divides by d_model - 1) instead of the biased one.",
        AUTHOR,
        (r"unbiased", r"biased variance", r"d_model ?- ?1", r"bessel"),
        (r"eps", r"axis|dim=0"),
        edits=(("keepdim=True, unbiased=False)", "keepdim=True, unbiased=True)"),),
        heldout=True,
    ),
    Case(
        "blind2-ln-std-plus-eps",
        L07,
        "LayerNorm",
        "divides by sqrt(variance) + eps rather than sqrt(variance + eps).",
        AUTHOR,
        (r"eps.{0,60}(inside|under|within).{0,20}(sqrt|square root)", r"sqrt\(var\w* \+ eps\)"),
        (r"unbiased",),
        edits=(("torch.sqrt(variance + self.eps)", "(torch.sqrt(variance) + self.eps)"),),
        heldout=True,
    ),
    Case(
        "blind2-ffn-dropout-after-w2",
        L07,
        "PositionwiseFeedForward",
        "dropout is applied after w_2 instead of on the hidden ReLU activations.",
        AUTHOR,
        (r"dropout.{0,60}(hidden|before w_2|after (the )?relu)",),
        (r"relu.{0,30}missing",),
        edits=(("return self.w_2(self.dropout(hidden))", "return self.dropout(self.w_2(hidden))"),),
        heldout=True,
    ),
    Case(
        "blind2-enc-preln-norm1-ffn",
        L07,
        "EncoderLayer",
        "the pre-LN branch normalises the feed-forward input with norm1 instead of norm2.",
        AUTHOR,
        (r"norm1.{0,80}(feed|ffn)", r"norm2.{0,60}(not used|unused|never)"),
        (r"post-?ln",),
        edits=(("self.feed_forward(self.norm2(x)))", "self.feed_forward(self.norm1(x)))"),),
        heldout=True,
    ),
    Case(
        "blind2-enc-shared-layer",
        L07,
        "Encoder",
        "one EncoderLayer object repeated num_layers times, so every layer shares weights.",
        AUTHOR,
        (r"(same|one|shared?) (layer )?(object|module|weights|instance)", r"independent"),
        (r"final norm",),
        edits=(
            (
                "[EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first) for _ in range(num_layers)]",
                "[EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first)] * num_layers",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind2-dec-cross-normed-memory",
        L08,
        "DecoderLayer",
        "pre-LN cross-attention takes its keys and values from the normalised decoder input "
        "h instead of memory.",
        AUTHOR,
        (r"memory", r"encoder.{0,30}output.{0,40}(keys|values)"),
        (r"look-?ahead",),
        edits=(
            ("self.cross_attn(h, memory, memory, src_mask)", "self.cross_attn(h, h, h, src_mask)"),
        ),
        heldout=True,
    ),
    Case(
        "blind2-tr-tgt-padding-mask-only",
        L09,
        "Transformer",
        "decode builds the decoder self-attention mask from target padding only (no look-ahead) by using padding_mask.",
        AUTHOR,
        (r"look-?ahead|future|causal",),
        (r"tie",),
        edits=(
            (
                "tgt_mask = decoder_self_attention_mask(tgt_ids, self.pad_id)",
                "tgt_mask = padding_mask(tgt_ids, self.pad_id)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind2-count-ffn-no-bias2",
        L09,
        "count_parameters",
        "the feed-forward count forgets w_2's bias (d_model).",
        AUTHOR,
        (r"w_2.{0,30}bias", r"bias.{0,40}(w_2|second linear|feed-forward)"),
        (r"layer ?norm",),
        edits=(("(d_ff * d_model + d_model)", "(d_ff * d_model)"),),
        heldout=True,
    ),
    Case(
        "blind2-greedy-no-break",
        L09,
        "greedy_decode",
        "the loop never stops early once every row has produced <eos>, so it always returns max_len tokens.",
        AUTHOR,
        (r"(stop|break).{0,60}(every|all) rows?.{0,30}(finish|eos)", r"early"),
        (r"bos",),
        edits=(("            if finished.all():\n                break\n", ""),),
        heldout=True,
    ),
]
