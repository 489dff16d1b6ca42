"""Held-out wrong answers for lesson 10 (training), written for the round of 2026-11-26
before any check of that round was changed (``heldout=True``).

Each case follows the rules of cases.py: the answer is our own edit of the course's
reference (nothing copied from a public repository), its cause is one sentence, and
``named_if`` / ``misnamed_if`` were written before any check's message was read. They are
different from the cases in cases.py and from the mistake tables of tests/test_10_*.py.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case

L10 = "10_training"

# Where these mistakes are reported (each URL was read for this round).
SEQUENCE_FIRST = "https://github.com/pytorch/pytorch/issues/43112"
NOAM_WARMUP_SCALE = "https://github.com/Kyubyong/transformer/issues/89"
SOFTMAX_AXIS = "https://github.com/DonkeyShot21/UNO/issues/4"
SMOOTHING_WEIGHT = "https://github.com/TimDettmers/ConvE/issues/55"
ZERO_GRAD_PLACE = "https://velog.io/@rhss10/기본-optimizer.zerograd는-어디에-넣어주어야-할까"
COUNT_NOT_FRACTION = "https://github.com/huggingface/datasets/pull/4223"
BEAM_REVERSED = "https://github.com/ufal/neuralmonkey/issues/424"
BEAM_UNNORMALISED = "https://github.com/nlpyang/PreSumm/issues/58"
AUTHOR = "author: written for this benchmark, no public report cited"

CASES_LESSON10: list[Case] = [
    # ------------------------------------------------------------------ make_batches
    Case(
        "heldout-batches-sequence-first",
        L10,
        "make_batches",
        "returns every tensor sequence-first, (len, batch), as nn.Transformer's default "
        "batch_first=False layout, instead of (batch, len).",
        SEQUENCE_FIRST,
        (
            r"transpos|sequence.first|time.major|batch_first|\(len\w*, batch\)"
            r"|axes (are )?swapped|swapped (the )?axes",
        ),
        (r"decoder input and labels are swapped", r"padded on the left", r"keep the order"),
        edits=(
            (
                "batches.append(tuple(torch.from_numpy(a) for a in (src, decoder_input, labels)))",
                "batches.append(tuple(torch.from_numpy(a).T for a in (src, decoder_input, labels)))",
            ),
        ),
        heldout=True,
    ),
    # ----------------------------------------------------------------------- noam_lr
    Case(
        "heldout-noam-warmup-scale",
        L10,
        "noam_lr",
        "scales by warmup ** 0.5 (a peak of 1, as in some public ports) instead of "
        "d_model ** -0.5.",
        NOAM_WARMUP_SCALE,
        (r"warmup \*\* 0\.5|warmup\*\*0\.5|sqrt\(warmup\)|√warmup",),
        (r"There is no warm-up", r"step \+ 1", r"the max of the two", r"warmup \*\* -0\.5"),
        edits=(
            (
                "return d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)",
                "return warmup**0.5 * min(step**-0.5, step * warmup**-1.5)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "heldout-noam-precedence",
        L10,
        "noam_lr",
        "writes (step * warmup) ** -1.5 for the warm-up branch: the power binds to the "
        "product, not to warmup alone.",
        AUTHOR,
        (r"\(step \* warmup\)|parenthes|precedence",),
        (
            r"warmup \*\* -0\.5",
            r"There is no warm-up",
            r"step \+ 1",
            r"d_model \*\* -0\.5 is missing",
        ),
        edits=(("step * warmup**-1.5", "(step * warmup) ** -1.5"),),
        heldout=True,
    ),
    # ------------------------------------------------------------ label_smoothed_loss
    Case(
        "heldout-loss-softmax-axis-1",
        L10,
        "label_smoothed_loss",
        "takes log_softmax over axis 1 (the positions of a (batch, len, V) input) instead "
        "of the last axis, the vocabulary.",
        SOFTMAX_AXIS,
        (
            r"(log_)?softmax.{0,80}\b(axis|dim)\b|\b(axis|dim)\b.{0,80}(log_)?softmax"
            r"|over the positions|last axis|vocabulary axis",
        ),
        (
            r"fairseq",
            r"Annotated Transformer",
            r"KL divergence",
            r"padding is not ignored",
            r"smoothing is missing",
        ),
        edits=(("torch.log_softmax(logits, dim=-1)", "torch.log_softmax(logits, dim=1)"),),
        heldout=True,
    ),
    Case(
        "heldout-loss-uniform-weight-one",
        L10,
        "label_smoothed_loss",
        "adds the uniform term with weight 1 instead of smoothing: (1 - ε)·(-log p[y]) + "
        "mean_j(-log p[j]).",
        SMOOTHING_WEIGHT,
        (
            r"(weight|scal|multipl)\w*.{0,60}(uniform|smoothing) term.{0,40}(\b1\b|ε|smoothing)"
            r"|(uniform|smoothing) term.{0,60}(not|without).{0,20}(multipl|scal|weight)"
            r"|1/V instead of ε/V|instead of ε/V|weight 1\b",
        ),
        (r"is missing", r"fairseq", r"V - 1", r"padding", r"KL"),
        edits=(
            (
                "loss = (1 - smoothing) * target + smoothing * uniform",
                "loss = (1 - smoothing) * target + uniform",
            ),
        ),
        heldout=True,
    ),
    Case(
        "heldout-loss-uniform-summed",
        L10,
        "label_smoothed_loss",
        "the smoothing term sums -log p[j] over the V tokens instead of averaging them "
        "(ε on every token, not ε/V).",
        AUTHOR,
        (
            r"sum\w* .{0,40}instead of .{0,20}mean|not (divided|averaged)|times V\b|V times"
            r"|ε instead of ε/V",
        ),
        (
            r"is missing",
            r"fairseq",
            r"V - 1",
            r"padding is not ignored",
            r"KL",
            r"summed over the tokens",
        ),
        edits=(("uniform = -log_probs.mean(dim=-1)", "uniform = -log_probs.sum(dim=-1)"),),
        heldout=True,
    ),
    # --------------------------------------------------------------------- train_step
    Case(
        "heldout-step-zero-grad-before-step",
        L10,
        "train_step",
        "clears the gradients between backward() and optimizer.step(), so the step "
        "applies zero gradients and nothing is learnt.",
        ZERO_GRAD_PLACE,
        (
            r"zero_grad.{0,80}(before|between).{0,60}step"
            r"|clear\w*.{0,60}(before|between).{0,60}(optimizer\.)?step"
            r"|between (loss\.)?backward.{0,40}step",
        ),
        (r"loss\.backward\(\)|never called backward|no backward", r"training mode"),
        edits=(
            (
                "    optimizer.step()\n    optimizer.zero_grad()",
                "    optimizer.zero_grad()\n    optimizer.step()",
            ),
        ),
        heldout=True,
    ),
    Case(
        "heldout-step-forward-without-grad",
        L10,
        "train_step",
        "runs the forward pass inside torch.no_grad() (copied from evaluation code), so "
        "loss.backward() has no graph to go through.",
        AUTHOR,
        (r"no_grad|does not require grad|inference mode|graph",),
        (r"training mode", r"were not clipped", r"were still in the model"),
        edits=(
            (
                "    logits = model(src, decoder_input)",
                "    with torch.no_grad():\n        logits = model(src, decoder_input)",
            ),
        ),
        heldout=True,
    ),
    # ------------------------------------------------------------- translation_scores
    Case(
        "heldout-scores-exact-count",
        L10,
        "translation_scores",
        "returns the number of exact matches, not their fraction.",
        COUNT_NOT_FRACTION,
        (r"fraction|\bcount|number of (exact )?match|divide|0 to 1|between 0 and 1",),
        (r"percentage", r"first reference", r"every reference"),
        edits=(
            (
                "exact = sum(h in refs for h, refs in zip(hypotheses, references)) / len(hypotheses)",
                "exact = sum(h in refs for h, refs in zip(hypotheses, references))",
            ),
        ),
        heldout=True,
    ),
    Case(
        "heldout-scores-string-equals-list",
        L10,
        "translation_scores",
        "compares each hypothesis with its list of references by ==, which is never true, "
        "instead of testing membership.",
        AUTHOR,
        (r"compar\w* .{0,60}(the )?list|list .{0,40}never equal|== refs|h in refs|`in`",),
        (r"first reference", r"every reference", r"percentage"),
        edits=(("sum(h in refs for h, refs", "sum(h == refs for h, refs"),),
        heldout=True,
    ),
    # -------------------------------------------------------------------- beam_search
    Case(
        "heldout-beam-ascending-sort",
        L10,
        "beam_search",
        "sorts the candidates in ascending order (argsort without descending=True), so "
        "the beam keeps the worst ones.",
        BEAM_REVERSED,
        (r"ascending|descending|worst|lowest|reverse",),
        (r"length penalty", r"raw logits", r"probabilities", r"first finished"),
        edits=(
            (
                "scores.flatten().argsort(descending=True, stable=True)",
                "scores.flatten().argsort(stable=True)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "heldout-beam-answer-raw-score",
        L10,
        "beam_search",
        "normalises only in the stopping rule: the answer is picked by raw score, not by "
        "normalised score.",
        BEAM_UNNORMALISED,
        (
            r"normalis\w* score.{0,80}(answer|final|choos|pick|return)"
            r"|(answer|final|choos|pick|return)\w*.{0,80}normalis|raw score"
            r"|length penalty is not applied.{0,80}(answer|final|choos|best|return)",
        ),
        (r"stopp", r"multipl", r"without <eos>", r"L \*\* α", r"raw logits"),
        edits=(
            (
                "results.append(max(finished or beam, key=normalised)[0])",
                "results.append(max(finished or beam, key=lambda h: h[1])[0])",
            ),
        ),
        heldout=True,
    ),
    Case(
        "heldout-beam-first-position",
        L10,
        "beam_search",
        "scores the next token from the logits at the first position (logits[:, 0]) "
        "instead of the last.",
        AUTHOR,
        (r"last position|position -1|\[:, -1\]|first position|logits\[:, 0\]",),
        (r"length penalty", r"raw logits", r"probabilities", r"first finished", r"<bos>"),
        edits=(
            (
                "torch.log_softmax(logits[:, -1], dim=-1)",
                "torch.log_softmax(logits[:, 0], dim=-1)",
            ),
        ),
        heldout=True,
    ),
]
