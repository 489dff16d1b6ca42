"""Checks for lesson 10's label_smoothed_loss: cross-entropy with label smoothing,
ignoring padding (PyTorch's definition).
"""

from __future__ import annotations

import contextlib
import io
import itertools
import math
import numbers
import re

import torch
import torch.nn.functional as F

from transformer_course.checking import Checker, short, tolerance, torch_generator
from transformer_course.checking.aligned_positions import misaligned_pairings
from transformer_course.checking.auxiliary_terms import fitted_terms
from transformer_course.checking.graph import call_gradients
from transformer_course.checking.implied_targets import (
    implied_targets,
    partial_target_differences,
    target_differences,
)
from transformer_course.checking.library_calls import keywords_of_calls
from transformer_course.checking.oracles import label_smoothing_f
from transformer_course.checking.precision import NARROW_DTYPE_CAUSE, narrow_rounding


def smoothed_cross_entropy(logits, labels, pad_id, smoothing=0.1):
    """The course's loss for checks that need one: PyTorch's own, on any leading shape.

    A module-level function, so that a check can hand it to learner code as a course
    object (course_function) that the sandboxed grader can rebuild.
    """
    return F.cross_entropy(
        logits.reshape(-1, logits.shape[-1]),
        labels.reshape(-1),
        ignore_index=pad_id,
        label_smoothing=smoothing,
    )


_SMOOTHING_MESSAGES = {
    "fairseq": "You put 1 - ε on the target and spread ε over the V - 1 other tokens (ε/(V-1) "
    "each; fairseq's definition). The contract is PyTorch's (F.cross_entropy's "
    "label_smoothing): ε is spread over all V tokens, the target included, so the target "
    "gets 1 - ε + ε/V and every other token ε/V.",
    "annotated_kl": "This is the Annotated Transformer's LabelSmoothing: a KL divergence, "
    "with ε/(V-2) on every token except the target and <pad> (whose column is zeroed). The "
    "contract is PyTorch's definition: the cross-entropy, with ε spread over all V tokens "
    "(the target included, <pad> too): q = (1 - ε)·one_hot(y) + ε/V.",
    "annotated_ce": "You spread ε over V - 2 tokens (all but the target and <pad>), as the "
    "Annotated Transformer and OpenNMT do. The contract is PyTorch's: ε spread over all V "
    "tokens, the target (and <pad>) included: q = (1 - ε)·one_hot(y) + ε/V.",
    "kl": "You computed the KL divergence KL(q ‖ p) instead of the cross-entropy "
    "-Σ q log p. They differ by the entropy of q, a constant: same gradients, different "
    "value (the KL can reach 0, the cross-entropy cannot). The contract, like "
    "F.cross_entropy, asks for the cross-entropy.",
    "no_smoothing": "This is the plain cross-entropy: the smoothing is missing. Mix the "
    "target's -log p[y] with the mean of -log p over all V tokens: "
    "(1 - ε)·(-log p[y]) + ε·mean_j(-log p[j]).",
    "others_only": "You spread ε/V over the other tokens only and gave the target 1 - ε: "
    "that target distribution sums to 1 - ε/V, not 1. In PyTorch's definition the target "
    "gets its share too: q[y] = 1 - ε + ε/V.",
    "target_only": "The smoothing term ε·mean_j(-log p[j]) is missing: only the "
    "(1 - ε)·(-log p[y]) part is there. Add ε times the mean over all V tokens of -log p: "
    "it is what pulls the model away from over-confidence.",
    "pad_denominator": "You left the pad positions out of the sum but not out of the "
    "count: the mean divides by every position, pad included (as "
    "loss.masked_fill(pad, 0).mean() does), so the more padding a batch has, the smaller "
    "its loss. Divide by the number of positions whose label is not pad_id.",
    "with_pad": "The padding is not ignored: your mean includes the positions whose label is "
    "pad_id. Average only over the positions where labels != pad_id.",
    "sum": "Your loss is the sum over the non-pad positions instead of their mean: it is N "
    "times too large (N, the number of positions whose label is not pad_id), so it grows "
    "with the number of tokens a batch holds. Divide the sum by N, or take the mean over "
    "the non-pad positions.",
    "per_batch": "You divided the sum by the number of sentences (the batch size); divide by "
    "the number of non-pad tokens instead: the mean over the positions whose label is not "
    "pad_id.",
    "mean_of_means": "You averaged each sentence's tokens, then the sentences (a mean of the "
    "sentence means): short sentences then weigh as much as long ones. Take one mean over "
    "all non-pad positions of the batch.",
    "pad_zero": "You skipped the positions whose label is 0, not those equal to pad_id: use "
    "the pad_id argument (here it is not 0, and 0 is an ordinary token).",
}


_COUNTS = {"keep": "the non-pad positions", "all": "every position, pad included"}


def _loss_grid(logits, labels, pad_id, eps) -> dict[str, torch.Tensor]:
    """Every way of masking and averaging the two terms of the smoothed loss, each with
    what it does: the target term (1 - ε)·(-log p[y]) and the smoothing term
    ε·mean_j(-log p[j]), each summed over the non-pad positions or every position and
    divided by the number of non-pad positions, of all positions, the batch size, or not
    divided at all (a sum: two slips at once, the padding and the mean), the contract's own
    choice left out. With ε = 0 only the target term is there."""
    x = logits.detach().double()
    logp = torch.log_softmax(x, dim=-1)
    keep = labels != pad_id
    nll = -logp.gather(-1, labels[..., None]).squeeze(-1)  # pad labels are valid indices
    uniform = -logp.mean(dim=-1)
    masks = {"keep": keep, "all": torch.ones_like(keep)}
    counts = {
        "the number of non-pad positions": keep.sum(),
        "the number of all positions (pad included)": keep.numel(),
        "the batch size": x.shape[0] if x.dim() > 2 else 1,
    }
    if x.dim() > 2:  # (with one axis of positions, the batch size is 1: that very sum)
        counts["nothing (a sum where the mean belongs)"] = 1
    right = ("keep", "the number of non-pad positions")
    grid = {}
    for (t_mask, t_count), (u_mask, u_count) in itertools.product(
        itertools.product(masks, counts), repeat=2
    ):
        if (t_mask, t_count) == right and (u_mask, u_count) == right:
            continue
        if eps == 0 and (u_mask, u_count) != (t_mask, t_count):
            continue
        value = (1 - eps) * nll[masks[t_mask]].sum() / counts[t_count] + eps * uniform[
            masks[u_mask]
        ].sum() / counts[u_count]

        def over(mask: str, count: str) -> str:
            if count.startswith("nothing"):
                return f"summed over {_COUNTS[mask]} and never divided ({count[9:-1]})"
            return f"summed over {_COUNTS[mask]} and divided by {count}"

        if (t_mask, t_count) == (u_mask, u_count):
            what = f"the loss {over(t_mask, t_count)}"
        else:
            what = (
                f"the target term (1 - ε)·(-log p[y]) {over(t_mask, t_count)}, but the "
                f"smoothing term ε·mean_j(-log p[j]) {over(u_mask, u_count)}"
            )
        grid[what] = value
    pad = ~keep
    if bool(pad.any()):  # the mask inverted: only the positions that should be left out
        grid[
            "the loss averaged over the pad positions only, those whose label equals pad_id: "
            "your mask is inverted (labels == pad_id where labels != pad_id belongs)"
        ] = ((1 - eps) * nll[pad].sum() + eps * uniform[pad].sum()) / pad.sum()
    return grid


def _term_means(logp, labels, keep) -> tuple[torch.Tensor, torch.Tensor]:
    """The two terms' means over the non-pad positions: -log p[y] and mean_j(-log p[j])."""
    nll = -logp.gather(-1, labels[..., None]).squeeze(-1)  # pad labels are valid indices
    return nll[keep].mean(), -logp.mean(dim=-1)[keep].mean()


def _weightings(logits, labels, pad_id, eps) -> dict[str, torch.Tensor]:
    """The loss with each other weight of its two terms (the masking and the mean right):
    what the target term (1 - ε)·(-log p[y]) and the smoothing term ε·mean_j(-log p[j]) get
    instead, each described (the weightings the known mistakes cover are left out)."""
    x = logits.detach().double()
    keep = labels != pad_id
    target, uniform = _term_means(torch.log_softmax(x, dim=-1), labels, keep)
    vocab = x.shape[-1]
    unscaled = (
        "the factor 1 - ε is missing on the target term: -log p[y] is not multiplied by 1 - ε"
    )
    by_one = "the smoothing term mean_j(-log p[j]) is weighted by 1 instead of ε"
    summed = (
        "the smoothing term sums -log p[j] over the V tokens instead of averaging them "
        "(ε·Σ_j is V times ε·mean_j)"
    )
    combos = [  # (target weight, smoothing weight, what)
        (1 - eps, 1.0, by_one),
        (1 - eps, eps * vocab, summed),
        (1.0, eps, unscaled),
        (1.0, 1.0, f"{unscaled}; and {by_one}"),
        (1.0, eps * vocab, f"{unscaled}; and {summed}"),
        (
            eps,
            1 - eps,
            "the weights are swapped: ε on the target term, 1 - ε on the smoothing term",
        ),
    ]
    grid = {
        "the target term has the wrong sign: you added +log p[y]; the loss adds -log p[y], "
        "which is positive (log p[y] ≤ 0)": -(1 - eps) * target + eps * uniform,
    }
    logp = torch.log_softmax(x, dim=-1)
    nll = -logp.gather(-1, labels.masked_fill(~keep, 0)[..., None]).squeeze(-1)  # (...)
    per_uniform = -logp.mean(dim=-1)  # (...)
    grid[
        "the target term divides where it multiplies: (1 - ε) / (-log p[y]) at each "
        "position instead of (1 - ε)·(-log p[y])"
    ] = ((1 - eps) / nll + eps * per_uniform)[keep].mean()
    if eps <= 0:
        return grid  # no smoothing: the two terms' weights are not told apart
    grid[
        "the smoothing term divides where it multiplies: ε / mean_j(-log p[j]) at each "
        "position instead of ε·mean_j(-log p[j])"
    ] = ((1 - eps) * nll + eps / per_uniform)[keep].mean()
    grid[
        "the smoothing term has the wrong sign: you added ε·mean_j(log p[j]); the loss adds "
        "ε·mean_j(-log p[j]), which is positive"
    ] = (1 - eps) * target - eps * uniform
    for a, b, what in combos:
        if not (math.isclose(a, 1 - eps) and math.isclose(b, eps)):  # not the contract
            grid[what] = a * target + b * uniform
    if vocab > 1:  # the sum over the V tokens divided by V - 1 (fairseq's ε/(V-1) habit)
        grid[
            f"the smoothing term divides the sum of -log p[j] over the V = {vocab} tokens by "
            f"V - 1 = {vocab - 1} instead of by V: take the mean over the last axis, "
            "-log_probs.mean(dim=-1)"
        ] = (1 - eps) * target + eps * vocab / (vocab - 1) * uniform
    # the sum over the vocabulary divided by another axis's size (logits.shape[1] written
    # for V, say): the smoothing weight becomes ε·V/K
    names = {0: "the batch", x.dim() - 2: "the positions"} if x.dim() > 2 else {0: "the positions"}
    for axis in range(x.dim() - 1):
        size = x.shape[axis]
        if size != vocab:
            grid[
                f"the smoothing term divides the sum of -log p[j] over the V = {vocab} tokens "
                f"by {size}, logits.shape[{axis}] ({names.get(axis, f'axis {axis}')}), instead "
                "of by V = logits.shape[-1]: take the mean over the last axis, "
                "-log_probs.mean(dim=-1)"
            ] = (1 - eps) * target + eps * vocab / size * uniform
    return grid


def _smoothing_term_forms(logits, labels, pad_id, eps) -> dict[str, torch.Tensor]:
    """The loss with the target term right, (1 - ε)·(-log p[y]), and the smoothing term
    ε·mean_j(-log p[j]) computed in another form, each averaged over the non-pad positions
    and described: the log taken after the mean (-log mean_j p[j], the constant log V,
    which -mean_j log(1/V), the uniform distribution's own entropy, gives too: one value,
    both named), the model's entropy -Σ_j p[j]·log p[j], the raw logits or the
    probabilities in place of the log-probabilities (blind30b-ls-uniform-term-from-mean-
    probability was given the formula hint). Empty when ε = 0 (no smoothing term)."""
    if eps <= 0:
        return {}
    x = logits.detach().double()
    keep = labels != pad_id
    logp = torch.log_softmax(x, dim=-1)  # (..., V)
    p = logp.exp()  # (..., V)
    nll = -logp.gather(-1, labels.masked_fill(~keep, 0)[..., None]).squeeze(-1)  # (...)
    vocab = x.shape[-1]
    advice = (
        " The smoothing term is the cross-entropy with the uniform distribution: the mean "
        "over the V tokens of -log p[j], -log_probs.mean(dim=-1) at each position."
    )
    forms = {
        f"the smoothing term is the constant log V = log {vocab} = {math.log(vocab):.4g} at "
        "every position, whatever the logits (so it gives no gradient): that is "
        "-log(mean_j p[j]), the log of the mean probability, where the mean of the "
        "log-probabilities belongs (a softmax's mean over the V tokens is always 1/V); or "
        "the uniform distribution's own entropy, -mean_j log(1/V), log(1/V) written where "
        "log p[j] belongs." + advice: torch.full_like(nll, math.log(vocab)),
        "the smoothing term is the entropy of the model's distribution, -Σ_j p[j]·log p[j] "
        "(the probabilities as weights: a confidence penalty), not the cross-entropy with "
        "the uniform distribution, whose weights are all 1/V." + advice: -(p * logp).sum(-1),
        "the smoothing term averages -logits, the raw scores, instead of -log p: the "
        "log_softmax is missing in that term." + advice: -x.mean(dim=-1),
        "the smoothing term averages -p[j], the probabilities, instead of -log p[j] (the "
        "constant -1/V): the log is missing in that term." + advice: -p.mean(dim=-1),
    }
    return {what: ((1 - eps) * nll + eps * term)[keep].mean() for what, term in forms.items()}


def _wrong_axis(logits, labels, pad_id, eps) -> dict[str, torch.Tensor]:
    """The loss with log_softmax taken over another axis than the last (the vocabulary)."""
    x = logits.detach().double()
    keep = labels != pad_id
    found = {}
    for axis in range(x.dim() - 1):
        target, uniform = _term_means(torch.log_softmax(x, dim=axis), labels, keep)
        found[
            f"You took log_softmax over axis {axis} (of size {x.shape[axis]}) of the logits "
            f"{tuple(x.shape)}, not over the last axis, the V = {x.shape[-1]} tokens of the "
            "vocabulary: use dim=-1, so that each position's probabilities sum to 1."
        ] = (1 - eps) * target + eps * uniform
    return found


def _indexed_not_gathered(x, labels, pad_id, eps) -> list[torch.Tensor]:
    """The loss with -log p[y] picked by indexing, -log_probs[..., labels], instead of
    gather: every label's column at every position, broadcast against the smoothing term
    and masked by the non-pad positions (round 18, blind15a-ls-labels-as-index-not-gather);
    the labels as given and with the pads replaced by 0."""
    log_probs = torch.log_softmax(x, dim=-1)  # (..., V)
    keep = labels != pad_id  # (...)
    uniform = -log_probs.mean(dim=-1)  # (...)
    values = []
    for index in (labels, labels.masked_fill(~keep, 0)):
        target = -log_probs[..., index]  # (..., *labels.shape)
        try:
            loss = (1 - eps) * target + eps * uniform  # broadcast over the trailing axes
            values.append(loss[keep].mean())
        except (RuntimeError, IndexError):
            continue
    return values


def _smoothed_predictions(logits, labels, pad_id, eps) -> dict[str, torch.Tensor]:
    """The loss with the smoothing moved from the target onto the model's side: the
    probabilities (or the log-probabilities, or the logits) mixed with the uniform
    distribution, then scored against the one-hot label or the smoothed target, each
    averaged over the non-pad positions and described."""
    if eps <= 0:
        return {}  # nothing is smoothed: every form is the plain cross-entropy
    x = logits.detach().double()
    keep = labels != pad_id  # (...)
    index = labels.masked_fill(~keep, 0)[..., None]  # (..., 1)
    vocab = x.shape[-1]
    probs = torch.softmax(x, dim=-1)  # (..., V)
    mixed = (1 - eps) * probs + eps / vocab  # (..., V), sums to 1
    target = torch.full_like(probs, eps / vocab).scatter(-1, index, 1 - eps + eps / vocab)

    def one_hot(log_q: torch.Tensor) -> torch.Tensor:  # -log q[y], averaged
        return -log_q.gather(-1, index).squeeze(-1)[keep].mean()

    def smoothed(log_q: torch.Tensor) -> torch.Tensor:  # -Σ_j q_j·log p'[j], averaged
        return -(target * log_q).sum(dim=-1)[keep].mean()

    advice = (
        " Label smoothing smooths the target, not the prediction: keep p = "
        "softmax(logits) as it is and score it against the smoothed target (1 - ε + ε/V on "
        "the label, ε/V on every token), which gives (1 - ε)·(-log p[y]) + "
        "ε·mean_j(-log p[j]) with log p = torch.log_softmax(logits, dim=-1)."
    )
    mixed_probs = (
        "you smoothed the model's predicted probabilities instead of the target: p' = "
        "(1 - ε)·softmax(logits) + ε/V"
    )
    return {
        f"{mixed_probs}, then -log p'[y] against the one-hot label.{advice}": one_hot(mixed.log()),
        f"{mixed_probs}, then the cross-entropy of p' with the smoothed target (the "
        f"smoothing is applied on both sides).{advice}": smoothed(mixed.log()),
        "you smoothed the model's log-probabilities instead of the target: (1 - ε)·log p "
        f"+ ε/V, then scored it against the one-hot label.{advice}": one_hot(
            (1 - eps) * torch.log_softmax(x, dim=-1) + eps / vocab
        ),
        "you smoothed the model's logits instead of the target: softmax((1 - ε)·logits + "
        f"ε/V) (a temperature of 1/(1 - ε)), then -log p[y] against the one-hot label.{advice}": one_hot(
            torch.log_softmax((1 - eps) * x + eps / vocab, dim=-1)
        ),
    }


def _probe_case(logits, labels, pad_id):
    """A second input for the loss, of the same rank as the check's, whose sizes differ from
    the check's and from one another: every axis one longer, V three larger, and a count of
    non-pad positions N that equals no axis size, V, V - 1 nor the number of positions. A
    cause read off the check's input alone can rest on a coincidence of its sizes (V - 1 =
    logits.shape[1], N = V); one that holds here too does not. None when none is found."""
    shape = (*(size + 1 for size in logits.shape[:-1]), logits.shape[-1] + 3)
    vocab, total = shape[-1], math.prod(shape[:-1])
    taken = {*shape, vocab - 1, vocab + 1, total}
    for seed in range(8):
        gen = torch_generator(9300 + seed)
        x = (torch.randn(shape, generator=gen) * 2).to(logits.dtype)
        y = torch.randint(0, vocab, shape[:-1], generator=gen)
        y = y.masked_fill(y == pad_id, (pad_id + 1) % vocab)  # pads only where drawn below
        y = y.masked_fill(torch.rand(shape[:-1], generator=gen) < 0.3, pad_id)
        count = int((y != pad_id).sum())
        if 2 < count < total and count not in taken:
            return x, y
    return None


def _confirmed(found: list[str], grid, fn, logits, labels, pad_id, eps, rtol, atol) -> list[str]:
    """The causes of ``found`` (read off the check's input by ``grid``) that also give the
    learner's value on the probe input (:func:`_probe_case`), matched by their wording with
    the numbers left out; ``found`` itself when the probe cannot be run (no learner function,
    an error, no probe)."""
    probe = _probe_case(logits, labels, pad_id) if fn is not None and found else None
    if probe is None:
        return found
    x, y = probe
    try:
        with torch.no_grad(), contextlib.redirect_stdout(io.StringIO()):
            value = float(torch.as_tensor(fn(x.clone(), y.clone(), pad_id, eps)).double())
        there = grid(x, y, pad_id, eps)
    except Exception:  # a probe: the check's own input decides alone
        return found
    if not math.isfinite(value):
        return found

    def key(what: str) -> str:
        return re.sub(r"\d+(\.\d+)?", "#", what)

    agreeing = {
        key(what)
        for what, wrong in there.items()
        if math.isclose(value, float(wrong), rel_tol=max(rtol, 1e-4), abs_tol=max(atol, 1e-5))
    }
    return [what for what in found if key(what) in agreeing]


def _explain_loss(got, logits, labels, pad_id, eps, rtol, atol, fn=None) -> str:
    """Which masks and denominators give the learner's value (all of them, when several
    do); or softmax applied before F.cross_entropy, log_softmax over another axis, other
    weights of the two terms; "" when none does. With the learner's function ``fn``, a
    cause that fits the check's input must fit a probe input of other sizes too (class 1:
    V - 1 and logits.shape[1] coincide on the first visible input)."""
    value = float(got.detach().double())
    x = logits.detach().double()

    def close(wrong) -> bool:
        return math.isclose(value, float(wrong), rel_tol=max(rtol, 1e-4), abs_tol=max(atol, 1e-5))

    def confirmed(found, grid):
        return _confirmed(found, grid, fn, logits, labels, pad_id, eps, rtol, atol)

    axes = [
        what for what, wrong in _wrong_axis(logits, labels, pad_id, eps).items() if close(wrong)
    ]
    if axes:
        return " Or: ".join(axes)
    weights = [
        what for what, wrong in _weightings(logits, labels, pad_id, eps).items() if close(wrong)
    ]
    weights = confirmed(weights, _weightings)
    if weights:
        head = "Your value is the loss with other weights on its two terms: "
        if len(weights) > 1:
            head = "Your value is what each of these weightings gives (this input cannot tell them apart): "
        return (
            head + "; or ".join(weights) + ". The contract: (1 - ε)·(-log p[y]) + "
            "ε·mean_j(-log p[j]), averaged over the non-pad positions."
        )
    forms = [
        what
        for what, wrong in _smoothing_term_forms(logits, labels, pad_id, eps).items()
        if close(wrong)
    ]
    forms = confirmed(forms, _smoothing_term_forms)
    if forms:
        return (
            "Your value is the loss with the right target term, (1 - ε)·(-log p[y]), and "
            "another smoothing term: " + " Or: ".join(forms)
        )
    moved = [
        what
        for what, wrong in _smoothed_predictions(logits, labels, pad_id, eps).items()
        if close(wrong)
    ]
    if moved:
        return "Your value is what this gives: " + " Or: ".join(moved)
    indexed = _indexed_not_gathered(x, labels, pad_id, eps)
    if any(close(wrong) for wrong in indexed):
        return (
            "Your value is what indexing gives instead of gather: log_probs[..., labels] "
            f"(advanced indexing) takes the column of EVERY label at every position, shape "
            f"{tuple(x.shape[:-1]) + tuple(labels.shape)} here, not each position's own "
            "label, so the target term averages -log p of all the batch's labels. Pick each "
            "position's own with log_probs.gather(-1, labels[..., None]).squeeze(-1), shape "
            f"{tuple(labels.shape)}."
        )
    twice = F.cross_entropy(
        torch.softmax(x, -1).reshape(-1, x.shape[-1]),
        labels.reshape(-1),
        ignore_index=pad_id,
        label_smoothing=eps,
    )
    if math.isclose(value, float(twice), rel_tol=max(rtol, 1e-4), abs_tol=max(atol, 1e-5)):
        return (
            "Your value is F.cross_entropy applied to probabilities: softmax was taken "
            "before F.cross_entropy, which applies log_softmax itself. Give it the logits, "
            "not the probabilities (or compute log_softmax once, yourself)."
        )
    if not math.isfinite(value):
        logp = torch.log(torch.softmax(logits.detach(), -1))
        if not bool(torch.isfinite(logp).all()):
            return (
                "log(softmax(x)) gives log 0 = -inf for large logits (a probability that "
                "underflows to 0): use torch.log_softmax, which computes it stably."
            )
        return ""
    found = [
        parts
        for parts, wrong in _loss_grid(logits, labels, pad_id, eps).items()
        if math.isclose(value, float(wrong), rel_tol=max(rtol, 1e-4), abs_tol=max(atol, 1e-5))
    ]
    found = confirmed(found, _loss_grid)
    if not found:
        return ""
    head = (
        "Your value is what this masking gives"
        if len(found) == 1
        else ("Your value is what each of these maskings gives (this input cannot tell them apart)")
    )
    return (
        f"{head}: " + "; or ".join(found) + ". The contract: both terms over the non-pad "
        "positions only, divided by the number of non-pad positions (the mean over the "
        "positions whose label is not pad_id)."
    )


def _misaligned_note(got, logits, labels, pad_id, eps) -> str:
    """The learner's value when it is the right loss of logits and labels misaligned by a
    position or two (checking.aligned_positions); "" when no misalignment gives it."""
    found = misaligned_pairings(
        lambda x, y: smoothed_cross_entropy(x.detach().double(), y, pad_id, eps),
        logits,
        labels,
        float(got.detach().double()),
        names=("logits", "labels"),
    )
    if not found:
        return ""
    said = found[0] if len(found) == 1 else "one of these, which agree here: " + "; or ".join(found)
    return (
        f"Your value is the right loss with the logits and the labels misaligned along the "
        f"positions: {said}. The "
        "batch is already aligned (make_batches shifted it: decoder_input = <bos> + target, "
        "labels = target + <eos>), so the logits at position t belong with labels[..., t]: "
        "score logits and labels as they come, without shifting or slicing either."
    )


def _target_read_off(got, logits, labels, pad_id, eps) -> str:
    """The distribution the learner's loss trains towards, read off its gradient, where it
    departs from the contract's (a <pad> column left out of the smoothing, the smoothing
    spread over V - 1 or V - 2 tokens); "" without a graph (the sandboxed grader) or a
    simple rule."""
    try:
        keep = labels != pad_id  # (...)
        q = implied_targets(got, logits, keep)
        if q is None:
            return ""
        return target_differences(q, labels[keep], pad_id, eps)
    except Exception:  # a probe: the check's own message stands
        return ""


def _partial_target_read_off(got, logits, labels, pad_id, eps) -> str:
    """The positions where the learner's target, read off its gradient, departs from the
    contract's while it is right at the others (smoothing applied to part of the batch);
    read before the value-only models: one number can meet one of their many masks by
    chance (a hidden case did), a target at every position cannot."""
    try:
        keep = labels != pad_id  # (...)
        q = implied_targets(got, logits, keep)
        if q is None:
            return ""
        return partial_target_differences(q, labels[keep], eps, keep.nonzero().tolist())
    except Exception:  # a probe: the check's own message stands
        return ""


def smoothing_cases(hidden: bool):
    """The label-smoothed loss's (logits, labels, pad_id, eps) cases, visible or hidden."""
    gen = torch_generator(4002 if hidden else 4001)
    cases = []

    def logits(*shape, scale=2.0):
        return (torch.randn(*shape, generator=gen) * scale).requires_grad_(True)

    if not hidden:
        cases.append((logits(2, 4, 5), torch.tensor([[1, 3, 2, 0], [4, 4, 0, 0]]), 0, 0.1))
        # <pad> is 2 here, and 0 an ordinary token
        cases.append(
            (
                logits(3, 3, 6),
                torch.tensor([[0, 4, 2], [5, 2, 2], [1, 0, 3]]),
                2,
                0.3,
            )
        )
        cases.append((logits(6, 4), torch.tensor([3, 0, 1, 1, 2, 0]), 0, 0.2))  # (N, V)
        cases.append(
            (logits(2, 3, 7, scale=60.0), torch.tensor([[6, 1, 0], [2, 5, 4]]), 0, 0.1)
        )  # large logits
        cases.append((logits(2, 3, 5), torch.tensor([[1, 2, 0], [3, 4, 4]]), 0, 0.0))
        # targets of one position: an axis of size 1 that a bare squeeze() drops
        cases.append((logits(3, 1, 6), torch.tensor([[2], [5], [0]]), 0, 0.1))
        # no label is token V - 1 = 7: a one-hot as wide as the largest label is too narrow
        cases.append((logits(2, 3, 8), torch.tensor([[1, 5, 0], [2, 6, 3]]), 0, 0.1))
        # labels sliced from a wider target, tgt[:, 1:]: not contiguous, so .view(-1) fails
        target = torch.tensor([[2, 4, 1, 3, 0], [2, 3, 3, 0, 0]])  # (2, 5)
        cases.append((logits(2, 4, 5), target[:, 1:], 0, 0.1))
    else:
        for shape, pad_id, eps, scale in (
            ((4, 9, 11), 0, 0.1, 3.0),
            ((3, 5, 8), 3, 0.25, 2.0),
            ((17, 6), 1, 0.15, 1.0),
            ((2, 6, 40), 0, 0.1, 80.0),
            ((5, 2, 4, 7), 2, 0.4, 2.0),
            ((4, 1, 9), 0, 0.2, 2.0),  # an axis of size 1
        ):
            x = logits(*shape, scale=scale)
            labels = torch.randint(0, shape[-1], shape[:-1], generator=gen)
            labels = labels.masked_fill(torch.rand(shape[:-1], generator=gen) < 0.3, pad_id)
            labels.view(-1)[0] = (pad_id + 1) % shape[-1]  # at least one real position
            cases.append((x, labels, pad_id, eps))
        # labels sliced from a wider target, tgt[:, 1:]: not contiguous, so .view(-1) fails
        target = torch.tensor([[4, 1, 5, 6, 0, 0], [4, 6, 2, 2, 1, 0], [4, 3, 0, 0, 0, 0]])
        cases.append((logits(3, 5, 7), target[:, 1:], 0, 0.15))  # labels (3, 5)
    return cases


def _weight_names(eps: float, vocab: int, count: int = 0, total: int = 0) -> dict[str, float]:
    """The weights a slip can give a term, by name: functions of ε and V, and (with the
    count N of non-pad positions and the number T of all positions) the same times N (the
    loss summed over the positions, not averaged) or N / T (divided by every position)."""
    names = {
        "1 - ε": 1 - eps,
        "ε": eps,
        "1": 1.0,
        "0": 0.0,
        "2 - ε": 2 - eps,
        "1 + ε": 1 + eps,
        "1 - 2ε": 1 - 2 * eps,
        "ε / V": eps / vocab,
        "ε·V": eps * vocab,
        "1 - ε + ε / V": 1 - eps + eps / vocab,
    }
    scales = {}
    if count:
        scales["N"] = count
    if count and total and total != count:
        scales["N / T"] = count / total
    for scale, size in scales.items():
        for base in ("1 - ε", "ε", "1"):
            said = {"1": scale, "ε": f"{scale}·ε"}.get(base, f"{scale}·({base})")
            names[said] = names[base] * size
    return names


def _weights_at(label_smoothed_loss, shape, dtype, labels, pad_id, eps, seed: int):
    """(a, b, t, u): the learner's loss fitted as a·t + b·u, t and u the two terms' means
    over the non-pad positions, on two random logits of ``shape`` with ``labels``; None
    when it cannot be fitted (an error, a value that is not finite, two equal points)."""
    keep = labels != pad_id
    points = []
    for k in (1, 2):
        x = torch.randn(shape, generator=torch_generator(seed + k)) * (1 + k)
        x = x.to(dtype)
        try:
            with torch.no_grad(), contextlib.redirect_stdout(io.StringIO()):
                got = label_smoothed_loss(x, labels.clone(), pad_id, eps)
            got = float(torch.as_tensor(got).detach().double())
        except Exception:
            return None
        t, u = _term_means(torch.log_softmax(x.double(), -1), labels, keep)
        points.append((float(t), float(u), got))
    (t1, u1, v1), (t2, u2, v2) = points
    det = t1 * u2 - t2 * u1
    if not math.isfinite(v1 + v2) or abs(det) < 1e-9:
        return None
    return (v1 * u2 - v2 * u1) / det, (t1 * v2 - t2 * v1) / det


def _fitted_weights(label_smoothed_loss, logits, labels, pad_id, eps, value) -> str:
    """When the learner's loss is a·mean(-log p[y]) + b·mean(mean_j -log p[j]) over the
    non-pad positions with other weights than (1 - ε, ε): a and b, fitted on two more
    logits of the same shape and confirmed on the check's own; "" otherwise. A weight is
    named (ε·V, N·ε, ...) only when the name fits it on the probe input of other sizes
    too (:func:`_probe_case`), where V and N differ from the check's: on the first visible
    input N = V, so N·ε and ε·V are the same number."""
    keep = labels != pad_id
    if eps <= 0 or not bool(keep.any()):
        return ""
    fitted = _weights_at(label_smoothed_loss, logits.shape, logits.dtype, labels, pad_id, eps, 9100)
    if fitted is None:
        return ""
    a, b = fitted
    t0, u0 = _term_means(torch.log_softmax(logits.detach().double(), -1), labels, keep)
    if not math.isclose(a * float(t0) + b * float(u0), value, rel_tol=1e-4, abs_tol=1e-6):
        return ""
    if math.isclose(a, 1 - eps, abs_tol=1e-4) and math.isclose(b, eps, abs_tol=1e-4):
        return ""
    probe = _probe_case(logits, labels, pad_id)
    there = None
    if probe is not None:
        x, y = probe
        there = _weights_at(label_smoothed_loss, x.shape, x.dtype, y, pad_id, eps, 9400)
    near = math.isclose(a, 1 - eps, rel_tol=1e-2) and math.isclose(b, eps, rel_tol=1e-2)
    if (
        near
        and there is not None
        and not (
            math.isclose(there[0], a, abs_tol=1e-4) and math.isclose(there[1], b, abs_tol=1e-4)
        )
    ):
        # weights a hair off, and another hair on other logits: no formula, a rounding
        right = float(smoothed_cross_entropy(logits.detach().double(), labels, pad_id, eps))
        return _lower_precision(
            value, right, " The weights that fit it differ from one shape of logits to another."
        )
    vocab = logits.shape[-1]
    factor = a / (1 - eps) if eps < 1 else 0.0
    if eps < 1 and factor > 0 and math.isclose(b, eps * factor, rel_tol=1e-3, abs_tol=1e-6):
        wider = _factor_on_wider_vocab(label_smoothed_loss, logits, labels, pad_id, eps)
        counts = [(int(keep.sum()), factor)]
        counts += _factor_with_one_less(label_smoothed_loss, logits, labels, pad_id, eps)
        return _scaled_loss(factor, vocab, eps, wider, counts=counts)
    names = _weight_names(eps, vocab, int(keep.sum()), keep.numel())
    if probe is not None and there is not None:
        kept = probe[1] != pad_id
        there = (there, _weight_names(eps, probe[0].shape[-1], int(kept.sum()), kept.numel()))

    def named(weight: float, index: int) -> str:
        found = [
            n
            for n, w in names.items()
            if math.isclose(weight, w, abs_tol=1e-4)
            and (there is None or math.isclose(there[0][index], there[1][n], abs_tol=1e-4))
        ]
        return f"{weight:.4g}" + (f" = {found[0]}" if found else "")

    wrong = [
        f"the target term -log p[y] is weighted by {named(a, 0)}, not 1 - ε = {1 - eps:g}"
        if not math.isclose(a, 1 - eps, abs_tol=1e-4)
        else "",
        f"the smoothing term mean_j(-log p[j]) is weighted by {named(b, 1)}, not ε = {eps:g}"
        if not math.isclose(b, eps, abs_tol=1e-4)
        else "",
    ]
    said = " ".join(wrong)
    scale = ""
    if "= N" in said:
        scale = (
            f" (N = {int(keep.sum())}, the number of non-pad positions"
            + (f"; T = {keep.numel()}, the number of all positions" if "N / T" in said else "")
            + ": "
            + (
                "the terms are divided by every position, pad included, not by N"
                if "N / T" in said
                else "the terms are summed over the positions, not averaged"
            )
            + ")"
        )
    other = ""
    twice = _smoothed_twice(label_smoothed_loss, logits, labels, pad_id, eps, a, b)
    if twice:
        other = twice
    elif math.isclose(a + b, 1.0, abs_tol=1e-4) and not (
        math.isclose(a, eps, abs_tol=1e-4) and math.isclose(b, 1 - eps, abs_tol=1e-4)
    ):
        other = (
            f" These are the weights of smoothing = {b:.4g}, not of the smoothing={eps:g} "
            "passed: the argument is not used (a value written in, or another variable's), "
            "so use `smoothing` in both weights."
        )
    return (
        "Your loss is a weighted sum of the two terms (the same weights fit it on three "
        "inputs), with other weights: "
        + "; and ".join(w for w in wrong if w)
        + scale
        + "."
        + other
        + " The contract: (1 - ε)·(-log p[y]) + ε·mean_j(-log p[j]), averaged over "
        "the non-pad positions."
    )


def _smoothed_twice(label_smoothed_loss, logits, labels, pad_id, eps, a, b) -> str:
    """When the fitted weights are those of smoothing applied twice, 1 - ε' = (1 - ε)²,
    and so they are again for another smoothing (0.3 on the same logits): the sentence
    that names it; "" otherwise (a constant written in would not follow the argument)."""
    twice = 1 - (1 - eps) ** 2
    if not (math.isclose(a, 1 - twice, abs_tol=1e-4) and math.isclose(b, twice, abs_tol=1e-4)):
        return ""
    other_eps = 0.3 if not math.isclose(eps, 0.3) else 0.2
    keep = labels != pad_id
    try:
        with torch.no_grad():
            got = label_smoothed_loss(logits.detach().clone(), labels.clone(), pad_id, other_eps)
        got = float(torch.as_tensor(got).detach().double())
    except Exception:
        return ""
    t, u = _term_means(torch.log_softmax(logits.detach().double(), -1), labels, keep)
    other_twice = 1 - (1 - other_eps) ** 2
    expected = (1 - other_twice) * float(t) + other_twice * float(u)
    if not math.isclose(got, expected, rel_tol=1e-4, abs_tol=1e-6):
        return ""
    return (
        f" These are the weights of the smoothing applied twice: 1 - {b:.4g} = (1 - ε)², and"
        f" with smoothing={other_eps:g} your loss has the weights (1 - {other_eps:g})² and"
        f" {other_twice:.4g} as well. A target that is already smoothed (ε / V spread over"
        " the vocabulary) handed to F.cross_entropy together with label_smoothing=smoothing"
        " is smoothed again: smooth once, either the target you build or label_smoothing,"
        " not both."
    )


def _factor_on_wider_vocab(label_smoothed_loss, logits, labels, pad_id, eps):
    """(V, the learner's loss over the contract's) on logits with 3 more tokens, the same
    labels: the input that tells a factor of 1 / V from another constant that equals it
    on the check's shape (such as the number of non-pad positions); None if it fails."""
    vocab = logits.shape[-1] + 3
    x = torch.randn((*logits.shape[:-1], vocab), generator=torch_generator(9200))
    x = x.to(logits.dtype)  # (..., V + 3)
    try:
        with torch.no_grad():
            got = float(torch.as_tensor(label_smoothed_loss(x, labels.clone(), pad_id, eps)))
        keep = labels != pad_id
        t, u = _term_means(torch.log_softmax(x.double(), -1), labels, keep)
        right = (1 - eps) * float(t) + eps * float(u)
    except Exception:  # only a tie-break
        return None
    return (vocab, got / right) if right and math.isfinite(got) else None


#: the family 'a formula with one operation changed' in the mean's denominator: the sum of
#: the N counted positions' losses divided by another function of N -> what it is
_COUNT_DENOMINATORS = {
    "sqrt(N)": ("the square root of the count (sum / keep.sum().sqrt())", math.sqrt),
    "(N - 1)": ("N - 1, one less than the count", lambda n: n - 1),
    "(N + 1)": ("N + 1, one more than the count", lambda n: n + 1),
}


def _factor_with_one_less(label_smoothed_loss, logits, labels, pad_id, eps) -> list:
    """[(N', factor')]: the learner's loss over the contract's on the same logits with the
    last counted position's label turned into pad_id (N' = N - 1 counted positions), so
    that a factor that depends on the count shows; [] where it cannot be measured."""
    keep = labels != pad_id
    if int(keep.sum()) < 4:
        return []
    fewer = labels.clone()
    last = keep.nonzero()[-1].tolist()
    fewer[tuple(last)] = pad_id
    try:
        with torch.no_grad():
            got = label_smoothed_loss(logits.detach().clone(), fewer, pad_id, eps)
        got = float(torch.as_tensor(got).detach().double())
        right = float(smoothed_cross_entropy(logits.detach().double(), fewer, pad_id, eps))
    except Exception:  # a probe: without it the count is not confirmed
        return []
    if not math.isfinite(got) or right == 0.0:
        return []
    return [(int((fewer != pad_id).sum()), got / right)]


def _scaled_loss(factor: float, vocab: int, eps: float, wider=None, counts=()) -> str:
    """The family 'the right loss times a constant': both terms weighted by the contract's
    weights times one factor (fitted on three inputs), named when it is 1 / V on the
    check's logits and on logits with more tokens (the cross-entropy averaged over the
    vocabulary instead of summed)."""
    head = (
        f"Your loss is the contract's loss times {factor:.4g} on three inputs (both terms "
        f"scaled alike: the target term weighted by {factor * (1 - eps):.4g} instead of 1 - "
        f"ε = {1 - eps:g}, the smoothing term by {factor * eps:.4g} instead of ε = {eps:g})"
    )
    over_vocab = wider is not None and math.isclose(wider[1], 1 / wider[0], rel_tol=1e-3)
    if math.isclose(factor, 1 / vocab, rel_tol=1e-3) and over_vocab:
        return (
            f"{head}: the factor is 1 / V, V = {vocab} the vocabulary size (and 1 / "
            f"{wider[0]} on logits of {wider[0]} tokens). The cross-entropy "
            "of each position is divided by V: you reduced q·(-log p) over the vocabulary "
            "with .mean(dim=-1) where the cross-entropy sums it, .sum(dim=-1). Sum over the "
            "vocabulary, then average over the non-pad positions."
        )
    # named only where the factor follows the count over two counts (N and N - 1): a
    # constant factor, such as one the vocabulary's size gives (V = N can happen), stays
    denominators = [
        (short, what)
        for short, (what, of) in _COUNT_DENOMINATORS.items()
        if len(counts) == 2
        and all(n > 2 and math.isclose(measured, n / of(n), rel_tol=1e-4) for n, measured in counts)
    ]
    count = counts[0][0] if counts else 0
    if len(denominators) == 1:
        ((short, what),) = denominators
        return (
            f"{head}: the factor is N / {short}, with N = {count} the number of counted "
            "(non-pad) positions: your mean divides the sum of their losses by "
            f"{what}, instead of N. Divide by the number of positions whose label is not "
            "pad_id (loss[keep].mean())."
        )
    return (
        f"{head}. Look for a constant that multiplies or divides the whole loss (a mean "
        "where a sum belongs, or a sum where a mean belongs): the contract is (1 - "
        "ε)·(-log p[y]) + ε·mean_j(-log p[j]), averaged over the non-pad positions."
    )


def _shift_dependence(label_smoothed_loss, logits, labels, pad_id, eps, value: float) -> str:
    """A loss that changes when one constant is added to every logit reads the raw logits
    somewhere (log_softmax removes any such constant): said, with the term when one of
    the two terms on raw logits gives the learner's value; "" otherwise."""
    shift = 3.0
    try:
        with torch.no_grad():
            shifted = label_smoothed_loss(logits.detach() + shift, labels.clone(), pad_id, eps)
        shifted = float(torch.as_tensor(shifted).detach().double())
    except Exception:
        return ""
    if not math.isfinite(shifted) or math.isclose(shifted, value, rel_tol=1e-4, abs_tol=1e-5):
        return ""
    x = logits.detach().double()
    keep = labels != pad_id
    right = float(smoothed_cross_entropy(x, labels, pad_id, eps))
    if narrow_rounding(value, right, shifted - value):
        # a raw logit read moves the loss by about shift·(1 - ε) or shift·ε; a rounding by
        # a hair, and another hair at each magnitude of the logits
        return _lower_precision(
            value,
            right,
            f" Adding {shift} to every logit moves it by "
            f"{abs(shifted - value):.2g} (a softmax cannot see that constant: what moves is "
            "the rounding, at another magnitude of the logits).",
        )
    nll, uniform = _term_means(torch.log_softmax(x, dim=-1), labels, keep)
    raw_nll, raw_uniform = _term_means(x, labels, keep)
    terms = {
        "the smoothing term is the mean of -logits over the V tokens where the mean of "
        "-log_probs belongs (-log_probs.mean(dim=-1))": (1 - eps) * nll + eps * raw_uniform,
        "the target term reads -logits[y] where it reads -log_probs[y]": (1 - eps) * raw_nll
        + eps * uniform,
    }
    named = [
        text
        for text, wrong in terms.items()
        if math.isclose(value, float(wrong), rel_tol=1e-4, abs_tol=1e-5)
    ]
    try:
        candidates = _per_token_losses(x, labels, keep, eps)
    except Exception:  # labels outside the vocabulary: no per-token loss to replay
        candidates = {}
    per_token = [
        text
        for text, wrong in candidates.items()
        if math.isclose(value, float(wrong), rel_tol=1e-4, abs_tol=1e-5)
    ]
    if per_token:
        return (
            f"Adding {shift} to every logit changed your loss ({value:.6g} -> "
            f"{shifted:.6g}); a softmax, and the loss, cannot see such a constant: your "
            "loss scores each vocabulary entry on its own instead of normalising the "
            "logits against each other. Your value is exactly "
            f"{' or '.join(per_token)}, averaged over the non-pad positions: a sigmoid per "
            "token (binary cross-entropy, the multi-label loss) where a softmax over the "
            "vocabulary belongs. The contract is cross-entropy against softmax(logits): "
            "(1 - ε)·(-log p[y]) + ε·mean_j(-log p[j]) with log p = log_softmax(logits, "
            "dim=-1)."
        )
    said = (
        f" Here {named[0]}."
        if len(named) == 1
        else " Look for a term computed from `logits` instead of from log_softmax(logits)."
    )
    return (
        f"Adding {shift} to every logit changed your loss ({value:.6g} -> {shifted:.6g}); "
        "a softmax, and the loss, cannot see such a constant: your loss reads the raw "
        f"logits where log-probabilities belong.{said}"
    )


#: auxiliary terms a loss may have added to it, per position (x: float64 logits, V last);
#: not logsumexp(logits) alone: a term read from raw logits where log-probabilities belong
#: differs from the contract's by exactly that (said by _shift_dependence)
_AUXILIARY_TERMS = {
    "z-loss": (
        lambda x: torch.logsumexp(x, dim=-1) ** 2,
        "logsumexp(logits) ** 2, the z-loss (T5X, PaLM: the auxiliary term that keeps the "
        "softmax's normaliser log Z near 0)",
    ),
    "logit-l2": (
        lambda x: (x**2).mean(dim=-1),
        "the mean square of the logits, an L2 penalty on them",
    ),
    "entropy": (
        lambda x: -(torch.softmax(x, -1) * torch.log_softmax(x, -1)).sum(-1),
        "the entropy of softmax(logits), a confidence penalty",
    ),
}


def _auxiliary_term(label_smoothed_loss, logits, labels, pad_id, eps, value: float) -> str:
    """The learner's loss minus the contract's, fitted as c * one auxiliary term averaged
    over the non-pad positions (or over every position), with one coefficient on three
    inputs of different magnitudes (checking.auxiliary_terms): the term added is named,
    with its coefficient. "" when none fits."""
    inputs = [(logits.detach(), labels)]
    inputs.append((logits.detach() * 2.5, labels))
    probe = _probe_case(logits, labels, pad_id)
    if probe is not None:
        inputs.append(probe)
    differences, candidates = [], []
    for i, (x, y) in enumerate(inputs):
        try:
            if i == 0:
                mine = value
            else:
                with torch.no_grad():
                    out = label_smoothed_loss(x.clone(), y.clone(), pad_id, eps)
                mine = float(torch.as_tensor(out).detach().double())
        except Exception:
            return ""
        xd = x.double()
        keep = y != pad_id
        differences.append(mine - float(smoothed_cross_entropy(xd, y, pad_id, eps)))
        values = {}
        for name, (term, _) in _AUXILIARY_TERMS.items():
            per_position = term(xd)
            values[(name, "kept")] = float(per_position[keep].mean())
            values[(name, "all")] = float(per_position.mean())
        candidates.append(values)
    floor = 50 * torch.finfo(logits.dtype).eps * max(abs(value), 1.0)
    found = fitted_terms(differences, candidates, floor=floor)
    if not found:
        return ""
    said = []
    for (name, over), coefficient in found:
        where = "the non-pad positions" if over == "kept" else "every position, pads included"
        said.append(f"{coefficient:.3g} * {_AUXILIARY_TERMS[name][1]}, averaged over {where}")
    what = said[0] if len(said) == 1 else " or ".join(f"({i}) {t}" for i, t in enumerate(said, 1))
    both = "" if len(said) == 1 else " (these inputs cannot tell them apart)"
    return (
        f"Your loss is {value:.6g} where the contract's is {value - differences[0]:.6g}: "
        f"the contract's loss plus an extra term, {what}{both}. That one term, with the same "
        f"coefficient, gives the difference on all {len(differences)} inputs tried (the "
        "check's logits, the same scaled by 2.5, and other sizes). label_smoothed_loss is "
        "the smoothed cross-entropy alone, (1 - ε)·(-log p[y]) + ε·mean_j(-log p[j]) "
        "averaged over the non-pad positions: leave the auxiliary term out (a regulariser, "
        "if wanted, is added to the loss in the training loop, not inside this function)."
    )


def _lower_precision(value: float, right: float, evidence: str = "") -> str:
    """The family 'a step in a lower precision': a loss within a hair of the contract's,
    by no formula (``evidence``: what tells it from one)."""
    return (
        f"Your loss is {value:.6g} where the contract's is {right:.6g}: within "
        f"{abs(value - right) / abs(right):.2g} of it (relative), not within float32's "
        f"rounding, and no formula of the two terms gives the difference.{evidence} "
        f"{NARROW_DTYPE_CAUSE}"
    )


def _per_token_losses(x, labels, keep, eps) -> dict[str, torch.Tensor]:
    """Losses that score each of the V tokens as its own yes/no question (sigmoid, not
    softmax) against the smoothed target q = (1 - ε)·one_hot(y) + ε/V, per position:
    what each gives, averaged over the kept positions. x: (..., V) float64 logits."""
    vocab = x.shape[-1]
    safe = labels.long().masked_fill(~keep, 0)
    if x.shape[:-1] != labels.shape or not keep.any() or int(safe.max()) >= vocab:
        return {}
    q = F.one_hot(safe, vocab).to(x.dtype) * (1 - eps) + eps / vocab  # (..., V)
    bce = F.binary_cross_entropy_with_logits(x, q, reduction="none")  # (..., V)
    positive = -q * F.logsigmoid(x)  # (..., V): the yes-part alone, -q log sigmoid(x)
    return {
        "the binary cross-entropy of sigmoid(logits) against the smoothed target, summed "
        "over the V tokens (BCEWithLogitsLoss)": bce.sum(-1)[keep].mean(),
        "the binary cross-entropy of sigmoid(logits) against the smoothed target, averaged "
        "over the V tokens (BCEWithLogitsLoss)": bce.mean(-1)[keep].mean(),
        "-Σ_j q[j] · log sigmoid(logits[j]), the smoothed target against a sigmoid of "
        "each logit, summed over the V tokens": positive.sum(-1)[keep].mean(),
    }


def _size_one_axis_note(label_smoothed_loss, logits, labels, pad_id, eps) -> str:
    """The family 'an axis of size 1 lost on the way' (a bare squeeze(), an index [0]):
    said when the labels have an axis of size 1 and the learner's loss is right on the same
    positions without it (flattened to (N, V) logits and (N,) labels), the input that tells
    a size-1 axis apart from every other cause; "" otherwise."""
    if 1 not in labels.shape or labels.numel() < 2:
        return ""
    flat_logits = logits.detach().reshape(-1, logits.shape[-1]).clone().requires_grad_(True)
    flat_labels = labels.reshape(-1)
    try:
        flat = label_smoothed_loss(flat_logits, flat_labels.clone(), pad_id, eps)
        expected = smoothed_cross_entropy(flat_logits.detach().double(), flat_labels, pad_id, eps)
        if not torch.allclose(
            torch.as_tensor(flat).detach().double(), expected, rtol=1e-4, atol=1e-5
        ):
            return ""
    except Exception:
        return ""
    return (
        f"Here the labels {tuple(labels.shape)} have an axis of size 1, and on the same "
        f"positions without it (logits {tuple(flat_logits.shape)}, labels "
        f"{tuple(flat_labels.shape)}) your loss is right: an axis of size 1 is lost on the "
        "way. A bare .squeeze() drops EVERY axis of size 1, not only the one that gather's "
        "index added (and then the terms broadcast against each other, or the mask no "
        "longer fits): squeeze only that axis, .squeeze(-1)."
    )


def _gather_axis_hint(logits: torch.Tensor, labels: torch.Tensor, pad_id: int):
    """For an index error: the axes along which gathering the labels' log-probabilities
    raises the very same error (the labels index the vocabulary, the last axis)."""

    def text(exc: BaseException) -> str:
        log_probs = torch.log_softmax(logits.detach(), dim=-1)
        index = labels.masked_fill(labels == pad_id, 0)[..., None]
        found = []
        for dim in range(logits.dim() - 1):  # every axis but the last
            try:
                log_probs.gather(dim, index)
            except Exception as error:
                if type(error) is type(exc) and str(error) == str(exc):
                    found.append(dim)
        if not found:
            return ""
        axes = " or ".join(
            f"dim={d} (or {d - logits.dim()}, {'the positions' if d == logits.dim() - 2 else 'a batch axis'})"
            for d in found
        )
        return (
            f"This is the error torch.gather raises when the labels' log-probabilities are "
            f"gathered along {axes}: the labels are indices into the vocabulary, the LAST "
            f"axis of the (..., V) log-probabilities: log_probs.gather(-1, labels[..., None])."
        )

    return text


def _unsqueezed_target_term(logits, labels, pad_id, exc: BaseException) -> str:
    """The gathered -log p[y] kept as (..., 1), without .squeeze(-1), and combined with
    the (...,) smoothing term: named when that very combination raises the very same
    error on these inputs (round 18, blind15a-ls-gathered-not-squeezed); "" otherwise."""
    log_probs = torch.log_softmax(logits.detach(), dim=-1)  # (..., V)
    index = labels.masked_fill(labels == pad_id, 0)[..., None]  # (..., 1)
    gathered = -log_probs.gather(-1, index)  # (..., 1): the axis gather's index added
    uniform = -log_probs.mean(dim=-1)  # (...)
    raised = set()
    for first, second in ((gathered, uniform), (uniform, gathered)):  # either order
        try:
            first + second
        except RuntimeError as error:
            raised.add(str(error))
    if str(exc) not in raised:
        return ""
    return (
        f"This is the error of -log p[y] gathered as log_probs.gather(-1, labels[..., None]), "
        f"shape {tuple(gathered.shape)}, still with the trailing axis of size 1 that the "
        f"index added, combined with the smoothing term mean_j(-log p[j]), shape "
        f"{tuple(uniform.shape)}: broadcasting lines the size-1 axis up with the positions. "
        "Drop that axis first, .squeeze(-1) (only that one: a bare .squeeze() drops every "
        "axis of size 1), so that both terms are (...,), one value per position."
    )


_SIZES = re.compile(r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)")


def _size_mismatch_hint(logits: torch.Tensor, labels: torch.Tensor, pad_id: int):
    """For a size mismatch: the sizes the error names, told apart where the inputs allow.
    A one-hot target sized by the largest label (F.one_hot without num_classes) is
    labels.max() + 1 wide instead of V; a (...,) normaliser broadcast against the last
    axis meets V with the positions' length."""
    vocab = logits.shape[-1]
    # F.one_hot(labels) is labels.max() + 1 wide: with the pads as they are, or set to 0
    widths = {
        int(labels.max()) + 1,
        int(labels.masked_fill(labels == pad_id, 0).max()) + 1,
    }
    terms = (
        "Two tensors of different shapes were combined. Each term has one value per "
        "position, the shape of labels: -log p[y] gathered along the last axis, and "
        "mean_j(-log p[j]) taken over the last axis (dim=-1, the V tokens); check the axis "
        "of each mean, sum and gather."
    )

    def text(exc: BaseException) -> str:
        kept = _unsqueezed_target_term(logits, labels, pad_id, exc)
        if kept:
            return kept
        found = _SIZES.search(str(exc))
        if not found:
            return terms
        sizes = {int(found.group(1)), int(found.group(2))}
        other = sizes - {vocab}
        if vocab in sizes and len(other) == 1:
            (width,) = other
            if width in widths and width not in logits.shape[:-1]:
                return (
                    f"The error pairs V={vocab} with {width}, the largest label here plus "
                    "one: a one-hot target built with F.one_hot(labels) without "
                    "num_classes is only labels.max() + 1 wide, not V (it fits only when a "
                    "batch happens to hold token V - 1). Pass num_classes=V, "
                    f"F.one_hot(labels, num_classes={vocab}), or gather -log p[y] with "
                    "log_probs.gather(-1, labels[..., None])."
                )
            if logits.dim() >= 2 and width == logits.shape[-2]:
                return (
                    f"The error pairs V={vocab} with {width}, the number of positions: a "
                    "(...,) value, one per position, met the (..., V) last axis. Either a "
                    "reduction over the last axis lost its axis (logits.logsumexp(dim=-1), "
                    ".max(dim=-1) or .sum(dim=-1) without keepdim=True, then combined with "
                    "the logits: keep it with keepdim=True, or use torch.log_softmax), or "
                    "one term was reduced over another axis than the last. " + terms
                )
        return terms

    return text


def _expect_gradient(c: Checker, loss_fn, logits, labels, pad_id, eps, what: str) -> None:
    """The loss's gradient with respect to the logits, once its value is right: training
    calls loss.backward(). An in-place change of a tensor autograd saved (log_probs.neg_()
    on log_softmax's output, a -= or a slice assignment) leaves the value right and makes
    backward raise; a part cut from the graph (.detach(), .data) leaves it right and the
    gradient wrong (round 18, blind15a-ls-log-probs-negated-in-place). The call is made
    again with the gradient asked for (:func:`call_gradients`: in the sandboxed grader, the
    gradient is taken there)."""
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            grads = call_gradients(loss_fn, (logits, labels, pad_id, eps))
    except RuntimeError as exc:
        text = str(exc).split(" Hint:")[0]  # without torch's advice on anomaly detection
        raised = (
            f"The value of {what} is right, but loss.backward() raised RuntimeError: {text[:300]}"
        )
        if "modified by an inplace operation" not in text:
            c.fail(
                f"{raised}\nTraining calls loss.backward(): build the loss from the logits "
                "with torch operations that autograd can follow."
            )
        saved = (
            " Here it is log_softmax's output, which log_softmax's backward needs: "
            "log_probs was changed in place after torch.log_softmax (log_probs.neg_(), "
            "mul_(...), log_probs *= -1, or an assignment into a slice of it)."
            if re.search(r"output \d+ of LogSoftmax", text)
            else ""
        )
        c.fail(
            f"{raised}\nAn operation changed in place a tensor that autograd saved for the "
            f"backward pass (a method ending in _, such as neg_() or mul_(), an x -= ..., or "
            f"an assignment into a slice).{saved} Use the out-of-place form, which returns a "
            "new tensor: nll = -log_probs.gather(...), or neg_log_probs = -log_probs."
        )
    except Exception:  # a second call that differs from the first: said by the value checks
        return
    if len(grads) != 1:
        return
    grad = grads[0]  # (..., V), d loss / d logits
    expected_logits = logits.detach().double().requires_grad_(True)
    (expected,) = torch.autograd.grad(
        smoothed_cross_entropy(expected_logits, labels, pad_id, eps), expected_logits
    )
    if grad is None or not torch.allclose(grad.double(), expected, **tolerance(grad.dtype)):
        head = (
            f"The value of {what} is right, but its gradient with respect to the logits is "
            "not (the one loss.backward() gives training)"
        )
        c.fail(f"{head}: {_gradient_cause(grad, expected, expected_logits, labels, pad_id, eps)}")
    c.ok()


def _gradient_cause(grad, expected, logits, labels, pad_id, eps) -> str:
    """Why a loss whose value is right has another gradient, read off the gradient: one of
    the two terms cut from the graph (its gradient that of the other term alone), or the
    right gradient up to the rounding of a lower precision (a step in float16 or bfloat16
    on the way, whose values round within the value's tolerance); else the causes that
    leave a value right and cut its gradient, all of them."""
    cut = (
        "part of the loss is cut from the graph or replaced by a constant (a .detach(), "
        ".data, .item() or torch.tensor(...) on one of the terms, or a torch.no_grad() "
        "block). Compute both terms from `logits` with torch operations only."
    )
    if grad is None:
        return cut
    keep = labels != pad_id
    logp = torch.log_softmax(logits, dim=-1)
    target, uniform = _term_means(logp, labels, keep)
    parts = {
        "the smoothing term ε·mean_j(-log p[j]) is cut from the graph (a .detach(), .data, "
        ".item() or torch.tensor(...) on it, or computed under torch.no_grad()): your "
        "gradient is that of the target term alone. Compute it from `logits` too.": (
            (1 - eps) * target
        ),
        "the target term (1 - ε)·(-log p[y]) is cut from the graph (a .detach(), .data, "
        ".item() or torch.tensor(...) on it, or computed under torch.no_grad()): your "
        "gradient is that of the smoothing term alone. Compute it from `logits` too.": (
            eps * uniform
        ),
    }
    got = grad.detach().double()
    for said, part in parts.items():
        if not part.requires_grad:
            continue
        (alone,) = torch.autograd.grad(part, logits, retain_graph=True)
        if torch.allclose(got, alone, **tolerance(grad.dtype)):
            return said
    scale = float(expected.abs().max())
    largest = float((got - expected).abs().max())
    if bool(torch.isfinite(got).all()) and narrow_rounding(scale + largest, scale, rel=2e-2):
        return (
            f"it is close to the right one, within {largest / scale:.2g} of its largest "
            "entry (relative), but not within float32's rounding, and neither term's "
            f"gradient alone. {NARROW_DTYPE_CAUSE}"
        )
    return cut


def _pad_side_mistakes(logits, labels, pad_id, eps) -> dict:
    """The loss averaged over the labels on one side of pad_id only (labels > pad_id or
    labels < pad_id instead of labels != pad_id): only where the labels lie on both sides,
    so that the variant differs from the reference."""
    real = labels[labels != pad_id]
    if not ((real < pad_id).any() and (real > pad_id).any()):
        return {}
    logits64 = logits.detach().double()
    variants = {}
    for kept, dropped, below in ((">", "below", labels < pad_id), ("<", "above", labels > pad_id)):
        # labels (...) with the dropped side turned into pad_id: the reference then skips them
        one_side = labels.masked_fill(below, pad_id)
        message = (
            f"Your loss is the mean over the positions with labels {kept} pad_id only: every "
            f"real label {dropped} the pad id (pad_id={pad_id} here) is dropped too. That "
            "works only when the pad id is the smallest (or largest) id; keep the positions "
            "with labels != pad_id."
        )
        variants[message] = smoothed_cross_entropy(logits64, one_side, pad_id, eps)
    return variants


def _pads_kept_mistakes(mistakes: dict, variants: dict, logits, labels, pad_id, eps) -> dict:
    """The pad positions averaged in, told apart by the label they are scored with where
    pad_id is not 0: token 0 (the pad labels replaced by 0 first, and the padding test
    made on the replaced labels, which no longer hold pad_id, or never made), or pad_id
    itself (no padding test at all). With pad_id = 0 the two are one mistake, said as
    before. Replaces the "with_pad" entry of ``mistakes`` in place; returns the other."""
    if pad_id == 0 or not bool((labels == pad_id).any()):
        return {}
    mistakes.pop(_SMOOTHING_MESSAGES["with_pad"], None)
    mistakes[
        "Your mean includes the positions whose label is pad_id, each scored as if its "
        f"label were token 0 (pad_id={pad_id} here): the pad labels were replaced by 0 "
        "(a valid index for gather) before the padding test, so that keep = labels != "
        "pad_id, computed from the replaced labels, keeps every position (or the mean was "
        "taken with no padding test at all). Compute keep from the original labels first, "
        "then replace the pads, and average over keep."
    ] = variants["with_pad"]
    own_label = smoothed_cross_entropy(logits.detach().double(), labels, -1, eps)
    return {
        "The padding is not ignored: your mean includes the positions whose label is pad_id "
        f"(pad_id={pad_id} here), scored with pad_id as their target. Average only over the "
        "positions where labels != pad_id.": own_label
    }


def _with_ignore_index_named(
    c: Checker, label_smoothed_loss, got, mistakes: dict, logits, labels, pad_id, eps
) -> dict:
    """``mistakes``, the pads-kept one said as the line that gives it where the learner's
    loss is F.cross_entropy (or nn.CrossEntropyLoss) called without an ignore_index equal
    to pad_id: its default, -100, matches no label, so the pad positions are scored and
    counted. Observed by calling the answer again with F.cross_entropy recorded, with
    smoothing 0 (an input on which a mask built from another argument than pad_id, say
    `labels != smoothing`, no longer agrees with a loss that has no mask)."""
    kept = [
        m
        for m, value in mistakes.items()
        if m.startswith("The padding is not ignored")
        and torch.is_tensor(value)
        and math.isclose(float(got.detach().double()), float(value), rel_tol=1e-4, abs_tol=1e-6)
    ]
    if not kept:
        return mistakes
    calls = keywords_of_calls(
        F, "cross_entropy", lambda: c.probe(label_smoothed_loss, logits, labels, pad_id, 0.0)
    )
    if not calls or any(call.get("ignore_index") == pad_id for call in calls):
        return mistakes
    # nn.CrossEntropyLoss passes its own ignore_index on, the default -100 included
    given = {call.get("ignore_index", -100) for call in calls}
    if any(bool((labels == index).any()) for index in given):
        return mistakes  # another id ignored: a mistake of its own, not "nothing ignored"
    said = (
        "leaves ignore_index at its default, -100, an id no label equals"
        if given == {-100}
        else f"has ignore_index={sorted(given)[0]}, an id no label equals here"
    )
    note = (
        "The padding is not ignored: your F.cross_entropy call (nn.CrossEntropyLoss makes "
        f"one too) {said}, so the positions "
        f"whose label is pad_id ({pad_id}) are scored like real tokens (trained to predict "
        "<pad>) and counted in the mean. Pass ignore_index=pad_id: F.cross_entropy("
        "logits.reshape(-1, V), labels.reshape(-1), ignore_index=pad_id, "
        "label_smoothing=smoothing) averages over the positions where labels != pad_id only."
    )
    return {note if m in kept else m: value for m, value in mistakes.items()}


#: the contract's default: a caller that leaves ``smoothing`` out gets the paper's ε_ls
DEFAULT_SMOOTHING = 0.1


def _expect_default_smoothing(c: Checker, label_smoothed_loss, case) -> None:
    """Called without ``smoothing``, the loss is the one with the signature's default."""
    logits, labels, pad_id, _ = case
    what = (
        f"label_smoothed_loss(logits {tuple(logits.shape)}, labels {tuple(labels.shape)}, "
        f"pad_id={pad_id}), smoothing left out"
    )
    got = c.call(label_smoothed_loss, logits, labels, pad_id, call_repr=what)
    c.expect_type(got, torch.Tensor, what)
    expected = smoothed_cross_entropy(logits.detach().double(), labels, pad_id, DEFAULT_SMOOTHING)
    c.expect_close(
        got.detach(),
        expected,
        what,
        **tolerance(got.dtype),
        hint=f"Called without smoothing, the loss must use the signature's default, "
        f"smoothing={DEFAULT_SMOOTHING} (the paper's ε_ls = 0.1): def "
        f"label_smoothed_loss(logits, labels, pad_id, smoothing={DEFAULT_SMOOTHING}).",
    )


def check_label_smoothed_loss(label_smoothed_loss, *, hidden: bool = False) -> None:
    """label_smoothed_loss(logits, labels, pad_id, smoothing) -> 0-d tensor (PyTorch's)."""
    with Checker("label_smoothed_loss", hidden=hidden) as c:
        c.require_callable(label_smoothed_loss)
        for logits, labels, pad_id, eps in smoothing_cases(hidden):
            what = (
                f"label_smoothed_loss(logits {tuple(logits.shape)}, labels "
                f"{labels.tolist() if labels.numel() <= 12 else tuple(labels.shape)}, "
                f"pad_id={pad_id}, smoothing={eps})"
            )
            got = c.call(
                label_smoothed_loss,
                logits,
                labels,
                pad_id,
                eps,
                call_repr=what,
                hints={
                    Exception: lambda exc, x=logits, y=labels, p=pad_id, e=eps: _size_one_axis_note(
                        label_smoothed_loss, x, y, p, e
                    ),
                    "Expected target size": "F.cross_entropy (and F.nll_loss) read axis 1 as "
                    "the classes: logits (batch, len_tgt, V) are taken as (N, C=len_tgt, "
                    "d1=V), so the labels do not fit. Flatten both first, logits.reshape(-1, "
                    "V) and labels.reshape(-1), or put the vocabulary on axis 1 with "
                    "logits.transpose(1, 2); the loss must work for logits of any shape (..., "
                    "V).",
                    "out of bounds for dimension": _gather_axis_hint(logits, labels, pad_id),
                    "one_hot": "F.one_hot needs int64 labels in [0, V); pad labels are in range "
                    "here, so check the shape you pass.",
                    "must match the size of tensor": _size_mismatch_hint(logits, labels, pad_id),
                },
            )
            if isinstance(got, numbers.Real) and not isinstance(got, bool):
                c.fail(
                    f"{what} returned a Python number ({short(got)}); return the 0-d tensor itself. "
                    "The training step calls loss.backward() on it, which a float (.item()) "
                    "cannot do."
                )
            c.expect_type(got, torch.Tensor, what)
            if got.dim() != 0:
                c.fail(
                    f"{what} returned shape {tuple(got.shape)}; the loss is one number, a 0-d "
                    "tensor: take the mean over the non-pad positions (no keepdim, no [None])."
                )
            c.ok()
            c.expect_floating(got, what, preferred=logits.dtype)
            if not got.requires_grad:
                c.fail(
                    f"{what} returned a tensor that gradients cannot flow through "
                    "(requires_grad is False): compute it from `logits` with torch operations "
                    "only, without .item(), .detach(), .numpy() or torch.tensor(...) on the way."
                )
            c.ok()
            variants = label_smoothing_f(logits, labels, pad_id, eps)
            tol = tolerance(got.dtype)
            expected = smoothed_cross_entropy(logits.detach().double(), labels, pad_id, eps)
            mistakes = {
                _SMOOTHING_MESSAGES[name]: variants[name]
                for name in _SMOOTHING_MESSAGES
                if eps > 0
                or name
                in {
                    "with_pad",
                    "pad_denominator",
                    "sum",
                    "per_batch",
                    "mean_of_means",
                    "pad_zero",
                }
            }
            mistakes.update(_pad_side_mistakes(logits, labels, pad_id, eps))
            mistakes.update(_pads_kept_mistakes(mistakes, variants, logits, labels, pad_id, eps))
            mistakes = _with_ignore_index_named(
                c, label_smoothed_loss, got, mistakes, logits, labels, pad_id, eps
            )
            c.expect_close(
                got.detach(),
                expected,
                what,
                **tolerance(got.dtype),
                mistakes=mistakes,
                explain=lambda got=got, x=logits, y=labels, p=pad_id, e=eps, t=tol: (
                    _partial_target_read_off(got, x, y, p, e)
                    or _explain_loss(got, x, y, p, e, t["rtol"], t["atol"], fn=label_smoothed_loss)
                    or _misaligned_note(got, x, y, p, e)
                    or _auxiliary_term(
                        label_smoothed_loss, x, y, p, e, float(got.detach().double())
                    )
                    or _shift_dependence(
                        label_smoothed_loss, x, y, p, e, float(got.detach().double())
                    )
                    or _size_one_axis_note(label_smoothed_loss, x, y, p, e)
                    or _fitted_weights(
                        label_smoothed_loss, x, y, p, e, float(got.detach().double())
                    )
                    or _target_read_off(got, x, y, p, e)
                ),
                hint="Compute log-probabilities with torch.log_softmax (stable for large "
                "logits: log(softmax(x)) gives log 0 = -inf), then (1 - ε)·(-log p[y]) + "
                "ε·mean over all V tokens of -log p, averaged over the non-pad positions.",
            )
            _expect_gradient(c, label_smoothed_loss, logits, labels, pad_id, eps, what)
        _expect_default_smoothing(c, label_smoothed_loss, smoothing_cases(hidden)[0])
