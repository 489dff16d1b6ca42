"""Cases that both checks pass because the course accepts them: each id with one sentence
that says what the contract says and where.

A case listed here is judged "accepted" (counted apart, as the mutants that both checks
pass are) only while it passes both checks: one that a check fails keeps its normal
verdict, so this table cannot hide a caught case (``run._judge``). The generalisation
figures leave these ids out of every batch, with the sentence as the reason
(``generalisation.run_batch``).
"""

from __future__ import annotations

ACCEPTED_BY_CONTRACT: dict[str, str] = {
    "blind12h-tr-vocab-check-assert": (
        "Transformer's docstring (lesson 09) asks for an error when tied vocabularies differ, "
        "a ValueError preferably and an assert accepted; tests/test_09's TAnnotatedStyle, "
        "which asserts, is a correct variant"
    ),
    "blind12m-PE-buffer-not-persistent": (
        "PositionalEncoding's docstring (lesson 03) accepts register_buffer(..., "
        "persistent=False), since __init__ rebuilds the table from the formula; tests/test_03's "
        "PEFloat32Formula registers its table that way and is a correct variant"
    ),
    "blind17a-ls-float64-log-probs": (
        "label_smoothed_loss's docstring (lesson 10) asks for a 0-d tensor that gradients "
        "flow through and states no dtype, so a loss computed and returned in float64 meets it"
    ),
    "blind17b-sample-top-p-strict-greater": (
        "sample's docstring (lesson 11) accepts keeping one more token when the tokens before "
        "it sum to exactly top_p (a strict before > top_p, Hugging Face's recipe); "
        "tests/test_11's _sample_nanogpt_hf is a correct variant"
    ),
    "blind17f-pem-length-check-removed": (
        "PositionalEncoding's docstring (lesson 03) states len <= max_len as the caller's "
        "promise and asks for no error past it, nor does the lesson's text"
    ),
    "blind18b-mha-divisibility-floor-division": (
        "MultiHeadAttention's docstring (lesson 05) says d_model must be divisible by "
        "num_heads, a promise of the caller: neither it nor the lesson's text asks for the "
        "ValueError that the case's test fails to raise"
    ),
    "blind18c-tokemb-padding-idx-zero": (
        "TokenEmbedding's docstring (lesson 02) accepts nn.Embedding(..., padding_idx=0): row 0 "
        "starts at zero and gets no gradient, every other row is unchanged; tests/test_02's "
        "TEPaddingIdx is a correct variant"
    ),
    "blind18c-softmax-cast-float32": (
        "softmax's docstring (lesson 04) accepts any float dtype for the weights, float32 "
        "for a float64 input included"
    ),
    "blind20b-mb-padded-to-dataset-max": (
        "make_batches' docstring (lesson 10) accepts extra columns of pad_id, such as one "
        "fixed width for every batch, as every mask and the loss ignore them; tests/test_10's "
        "padded_to_the_longest_pair_overall is a correct variant"
    ),
    "blind21b-mb-source-and-target-one-width": (
        "make_batches' docstring (lesson 10) accepts extra columns of pad_id, such as one "
        "width for src and the target fields, as every mask and the loss ignore them"
    ),
    "blind28a-q-head-width-as-string": (
        "the course's numeric quizzes accept the right number in every usual form, text "
        "included (tests/test_exercises.py's test_a_concept_question_accepts_its_answer_in_"
        "every_usual_form); the check passes '64' and notes that the number itself is asked for"
    ),
    "blind31c-tiled-future-filled-with-minus-1e5": (
        "lesson 04's contract for blocked scores accepts any value that blocks a key (-inf, "
        "-1e9, torch.finfo(dtype).min: 'a large finite negative number does the same for "
        "every row that allows at least one key'), and lesson 12 states no other rule for "
        "tiled_attention, where every causal row allows a key: -1e5 blocks the future keys "
        "on every input whose own scores are not themselves near -1e5"
    ),
}
