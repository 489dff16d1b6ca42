"""Held-out wrong answers for lessons 09-10, blind round 17 (helper b17a, 2026-11-28):
mistakes new to the benchmark, written against the checks after round 19's fixes, to
measure how the diagnoses generalise to mistakes nobody here has seen. A short batch
(six cases, the author's own) written late, blind: from the reference solutions and the
earlier cases' causes only, criteria written before any run.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L09, L10 = "09_transformer", "10_training"

_c = held_out_authored("blind17a")

BLIND17A: list[Case] = [
    _c(
        "noam-rounded-to-four-places",
        L10,
        "noam_lr",
        "rounds the rate to four decimal places (round(..., 4)) for a tidy print: rates of "
        "the order of 1e-4 lose most of their digits, and small ones become 0.0.",
        (r"round(ed|ing|s)?\b", r"decimal places", r"loses? (its )?(digits|precision)"),
        (
            r"warm-?up (exponent|power)",
            r"d_model \*\* -?0\.5 (factor )?(is )?missing",
            r"max\b.{0,20}instead of (the )?min",
        ),
        edits=(
            (
                "return d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)",
                "return round(d_model**-0.5 * min(step**-0.5, step * warmup**-1.5), 4)",
            ),
        ),
    ),
    _c(
        "ls-keep-labels-above-pad",
        L10,
        "label_smoothed_loss",
        "keeps the positions with labels > pad_id instead of labels != pad_id, assuming the pad "
        "id is the smallest id: right when pad_id is 0, but with another pad id every real "
        "label below it is dropped from the mean.",
        (
            r">\s*pad_id",
            r"(labels?|ids?|tokens?) (below|smaller than|less than|under) (the )?pad",
            r"greater than (the )?pad",
        ),
        (
            r"divid\w* by (every|all) positions",
            r"smoothing (term )?(is )?(summed|over v ?- ?1)",
            r"log\(softmax",
        ),
        edits=(("keep = labels != pad_id", "keep = labels > pad_id"),),
    ),
    _c(
        "ls-float64-log-probs",
        L10,
        "label_smoothed_loss",
        "computes the log-probabilities in double precision (log_softmax(..., dtype=torch.float64)) "
        "for accuracy and returns the loss as float64 instead of the logits' dtype.",
        (
            r"float64\b.{0,80}(instead of|not|rather than|expected).{0,20}float32",
            r"double precision",
            r"dtype=torch\.float64",
            r"(returns?|loss is) (a )?float64",
        ),
        (r"\.item\(\)", r"no ?grad", r"divid\w* by (every|all) positions"),
        edits=(
            (
                "log_probs = torch.log_softmax(logits, dim=-1)",
                "log_probs = torch.log_softmax(logits, dim=-1, dtype=torch.float64)",
            ),
        ),
    ),
    _c(
        "gd-first-position-logits",
        L09,
        "greedy_decode",
        "takes the next token from the first position's logits (logits[:, 0]) instead of the "
        "last one's: every step predicts the token after <bos> again, so each row repeats "
        "its first token.",
        (
            r"first position",
            r"logits\[:, ?0\]",
            r"position 0\b",
            r"instead of the last (position|one)",
            r"repeats? (its|the) first token",
        ),
        (r"last vocab", r"last (row|sentence) of the batch", r"argmax over (axis 1|the positions)"),
        edits=(
            (
                "next_token = logits[:, -1].argmax(dim=-1)",
                "next_token = logits[:, 0].argmax(dim=-1)",
            ),
        ),
    ),
    _c(
        "gd-finished-from-previous-column",
        L09,
        "greedy_decode",
        "updates the finished flags from the column already written (tokens[:, -1] == eos_id) "
        "before appending the new one: a row is marked one step late, so the token after its "
        "<eos> is a real token instead of pad and the loop runs one step more.",
        (
            r"one step late",
            r"(previous|last written|earlier) (column|token)",
            r"after (its|the) <?eos>?.{0,60}(not|instead of) (a )?pad",
            r"tokens\[:, ?-1\]",
        ),
        (r"any\(\)", r"& instead of \|", r"masked_fill.{0,40}(not assigned|dropped|discarded)"),
        edits=(
            (
                "            next_token = next_token.masked_fill(finished, model.pad_id)\n"
                "            tokens = torch.cat([tokens, next_token[:, None]], dim=1)\n"
                "            finished = finished | (next_token == eos_id)\n",
                "            finished = finished | (tokens[:, -1] == eos_id)\n"
                "            next_token = next_token.masked_fill(finished, model.pad_id)\n"
                "            tokens = torch.cat([tokens, next_token[:, None]], dim=1)\n",
            ),
        ),
    ),
    _c(
        "cp-encoder-one-layer",
        L09,
        "count_parameters",
        "counts one encoder layer instead of num_layers of them (the encoder's entry is not "
        "multiplied by num_layers), while the decoder's is.",
        (
            r"encoder.{0,80}(one layer|num_layers|single layer|not multiplied)",
            r"(one|single) encoder layer",
            r"num_layers.{0,60}encoder",
        ),
        (
            r"decoder.{0,40}one layer",
            r"final (layer ?norm|norm).{0,40}(missing|not counted)",
            r"tie_embeddings",
        ),
        edits=(
            (
                '"encoder": num_layers * encoder_layer + final,',
                '"encoder": encoder_layer + final,',
            ),
        ),
    ),
]
