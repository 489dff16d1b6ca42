"""Checks for lesson 10's train_step: one optimisation step with teacher forcing.

The model, optimizer and loss function that the learner's code receives are course
objects, read afterwards only through ``state_dict()``, ``.training`` and the
parameters' ``.grad``; the models have dropout 0, so every expected value is computed
exactly, from the same state, by the course's reference; one more model has dropout 1.0,
where training mode is as deterministic (every dropout zeroes) and differs from eval mode,
so that a forward pass run in eval mode shows.
"""

from __future__ import annotations

import ast
import contextlib
import io
import itertools
import math
import re

import torch

from transformer_course.checking import Checker, numpy_rng, short
from transformer_course.checking.clip_norms import (
    NORM_MEASURES,
    implied_total_norm,
    loss_scale_behind,
    matching_norm_measures,
    predicted_factor,
)
from transformer_course.checking.objects import ParametersOf, course_function, course_object
from transformer_course.checking.parameter_scales import (
    described_parameters,
    parameter_scales,
    scale_groups,
)
from transformer_course.reference import training as ref
from transformer_course.reference.transformer import Transformer

from .common import deterministic_state, is_tensor, plain_float
from .smoothing import smoothed_cross_entropy

_STEP_MODEL = {"d_model": 16, "num_heads": 2, "num_layers": 1, "d_ff": 32, "max_len": 16}
STEP_VOCAB = 13  # the vocabulary size of train_step's models and batches


#: a raw AttributeError of a (name, parameter) pair taken for a parameter (round 18,
#: blind15a-ts-clip-named-parameters): model.named_parameters() where
#: model.parameters() belongs, in clip_grad_norm_ or a loop over the gradients
_NAMED_PARAMETERS_HINT = (
    "A (name, parameter) pair was used where a parameter belongs: model.named_parameters() "
    "(like model.state_dict().items()) yields tuples, and a tuple has no .grad. "
    "clip_grad_norm_ and every loop over the gradients take the parameters themselves: "
    "nn.utils.clip_grad_norm_(model.parameters(), clip_norm)."
)


def step_model(vocab: int, pad_id: int, seed: int, config: dict = _STEP_MODEL):
    """A small reference Transformer (a course object) with deterministic weights."""
    model = course_object(Transformer, vocab, vocab, dropout=0.0, pad_id=pad_id, **config)
    model.load_state_dict(deterministic_state(model, seed))
    model.eval()  # the learner's train_step must switch it to training mode
    return model


def copy_model(model, vocab, pad_id, config: dict = _STEP_MODEL):
    """A twin of ``model`` (a reference Transformer built with ``config``): the same
    weights, copied, in a separate module."""
    twin = Transformer(vocab, vocab, dropout=0.0, pad_id=pad_id, **config)
    twin.load_state_dict({k: v.detach().clone() for k, v in model.state_dict().items()})
    return twin


#: clipping by another total norm than the 2-norm: mode -> clip_grad_norm_'s norm_type
_OTHER_NORMS = {"norm_1": 1.0, "norm_inf": float("inf")}


def _sgd_variant(
    start_state,
    vocab,
    pad_id,
    batch,
    lr,
    loss_fn,
    *,
    clip,
    mode="norm",
    steps=1,
    feed_labels=False,
    inputs="right",
    stale_grads=None,
    target="labels",
    unpacked=(0, 1, 2),
    shifted_again=False,
    fresh_optimizer=None,
):
    """The state after a (possibly mistaken) SGD step from ``start_state``;
    ``stale_grads`` (name -> tensor) are gradients left over from an earlier step;
    ``inputs``: what the model is called with, one of ``_MODEL_INPUTS``; ``target``: what
    the loss scores the logits against ("labels", or "decoder_input": no shift);
    ``unpacked``: which field of the batch each of src, decoder_input, labels is taken
    from (the batch unpacked in another order); ``fresh_optimizer``: (optimizer class,
    its lr) built from the model's parameters at the step and stepped instead of SGD."""
    model = Transformer(vocab, vocab, dropout=0.0, pad_id=pad_id, **_STEP_MODEL)
    model.load_state_dict(start_state)
    model.train()
    for name, p in model.named_parameters():
        if stale_grads and name in stale_grads:
            p.grad = stale_grads[name].detach().clone()
    src, decoder_input, labels = (batch[i] for i in unpacked)
    if shifted_again:  # the tutorials' slices for an unshifted target, applied once more
        decoder_input, labels = decoder_input[:, :-1], labels[:, 1:]
    for _ in range(steps):
        if inputs == "swapped":
            logits = model(decoder_input, src)
        elif inputs == "source twice":
            logits = model(src, src)
        else:
            logits = model(src, labels if feed_labels else decoder_input)
        loss = loss_fn(logits, decoder_input if target == "decoder_input" else labels)
        loss.backward()
        if clip is not None and mode == "norm":
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        elif clip is not None and mode in _OTHER_NORMS:  # another norm than the 2-norm
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip, norm_type=_OTHER_NORMS[mode])
        elif clip is not None and mode == "value":
            torch.nn.utils.clip_grad_value_(model.parameters(), clip)
        elif clip is not None and mode == "each":
            for p in model.parameters():
                torch.nn.utils.clip_grad_norm_([p], clip)
        elif clip is not None and mode == "sum_of_norms":  # the norms added, not squared
            grads = [p.grad for p in model.parameters() if p.grad is not None]
            total = float(sum(g.double().norm() for g in grads))
            for g in grads:
                g.mul_(min(1.0, clip / (total + 1e-6)))
        elif clip is not None and mode == "always":  # scaled to clip, also up
            grads = [p.grad for p in model.parameters() if p.grad is not None]
            total = torch.sqrt(sum((g.double() ** 2).sum() for g in grads))
            for g in grads:
                g.mul_(float(clip / total))
        if fresh_optimizer is not None:
            optimizer_class, its_lr = fresh_optimizer
            optimizer = optimizer_class(model.parameters(), lr=its_lr)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            continue
        with torch.no_grad():
            for p in model.parameters():
                if p.grad is not None:
                    p -= lr * p.grad
                    p.grad = None
    return model.state_dict(), loss.item()


def _gradients(start_state, vocab, pad_id, batch, loss_fn) -> list[torch.Tensor]:
    """The gradients of one step from ``start_state``, before any clipping, parameter by
    parameter (model.parameters()'s order)."""
    model = Transformer(vocab, vocab, dropout=0.0, pad_id=pad_id, **_STEP_MODEL)
    model.load_state_dict(start_state)
    model.train()
    src, decoder_input, labels = batch
    loss_fn(model(src, decoder_input), labels).backward()
    return [p.grad.detach().clone() for p in model.parameters() if p.grad is not None]


def _wrong_total_norm(factor, start, batch, pad_id, lr, loss_fn, clip, train_step, model, batches):
    """The wrong measures of the gradients' total norm (clip_norms.NORM_MEASURES) whose
    clipping gives the learner's update, ``factor`` times the reference's, on this call;
    and, when one more call on a twin of the model (the next batch) can run, on that call
    too (a hand-changed learning rate scales every call alike, a wrong norm does not)."""
    grads = _gradients(start, STEP_VOCAB, pad_id, batch, loss_fn)
    found = matching_norm_measures(factor, grads, clip)
    if not found or train_step is None or model is None or len(batches) < 2:
        return found
    try:
        twin = copy_model(model, STEP_VOCAB, pad_id)
        twin_start = {k: v.detach().clone() for k, v in twin.state_dict().items()}
        other = batches[1] if batches[0] is batch else batches[0]
        train_step(twin, other, torch.optim.SGD(twin.parameters(), lr=lr), loss_fn, clip)
        expected = copy_model(twin, STEP_VOCAB, pad_id)
        expected.load_state_dict(twin_start)
        ref.train_step(
            expected, other, torch.optim.SGD(expected.parameters(), lr=lr), loss_fn, clip
        )
        state = twin.state_dict()
        if _same_state(state, expected.state_dict()):
            again = 1.0
        else:
            again = _update_factor(state, twin_start, expected.state_dict())
        if again is None:
            return []
        grads = _gradients(twin_start, STEP_VOCAB, pad_id, other, loss_fn)
        return [
            m for m in found if math.isclose(predicted_factor(m, grads, clip), again, rel_tol=1e-3)
        ]
    except Exception:  # the confirming call is only a tie-break: this call's match stands
        return found


def _small_measures(start, batch, pad_id, loss_fn, clip) -> str:
    """For gradients left unclipped although their total 2-norm is above ``clip``: the
    wrong measures of the total norm (clip_norms.NORM_MEASURES) that are within ``clip``
    here, so that a clipping by hand that tests `total > clip_norm` with one of them
    leaves the gradients as they are too; "" when there is none."""
    try:
        grads = _gradients(start, STEP_VOCAB, pad_id, batch, loss_fn)
        within = [m for m, measure in NORM_MEASURES.items() if measure(grads) <= clip]
        right = next(iter(NORM_MEASURES))
        if right in within or not within:
            return ""
    except Exception:  # the gradients cannot be measured: the message stands as it is
        return ""
    return (
        " A clipping written by hand that measures the total norm another way also leaves "
        f"them unscaled here, when its total is within clip_norm={clip} while the 2-norm "
        f"({NORM_MEASURES[right](grads):.4g}) is not: " + "; or ".join(within) + "."
    )


def _gradient_norm(start_state, vocab, pad_id, batch, loss_fn) -> float:
    """The total 2-norm of the gradients of one step from ``start_state``, before any
    clipping: what clip_grad_norm_ returns."""
    model = Transformer(vocab, vocab, dropout=0.0, pad_id=pad_id, **_STEP_MODEL)
    model.load_state_dict(start_state)
    model.train()
    src, decoder_input, labels = batch
    loss_fn(model(src, decoder_input), labels).backward()
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    return float(torch.sqrt(sum((g.double() ** 2).sum() for g in grads)))


#: the wrong inputs a forward pass can be given, and what each call looks like
_MODEL_INPUTS = {
    "swapped": "model(decoder_input, src), the two inputs swapped",
    "source twice": "model(src, src), the source as the decoder input too",
}
_FIELDS = ("src", "decoder_input", "labels")
#: the family 'the batch unpacked in another order': every order of the three fields but
#: the right one and (decoder_input, src, labels), which is the swapped model call above
_UNPACKINGS = [
    order for order in itertools.permutations(range(3)) if order not in ((0, 1, 2), (1, 0, 2))
]


def _unpacking_message(order: tuple[int, ...]) -> str:
    names = ", ".join(_FIELDS[i] for i in order)
    roles = "; ".join(
        f"{_FIELDS[i]} was used as {_FIELDS[role]}" for role, i in enumerate(order) if i != role
    )
    return (
        f"The update is the one of the batch unpacked as `{names} = batch`: {roles}. The "
        "batch is the tuple (src, decoder_input, labels), in that order (what make_batches "
        "returns): `src, decoder_input, labels = batch`, then model(src, decoder_input) and "
        "loss_fn(logits, labels)."
    )


_FORWARD = (
    "The forward pass is model(src, decoder_input): the encoder reads the source, the "
    "decoder the decoder input (<bos> + target)."
)


def _input_order_hint(start, batch, pad_id, lr, loss_fn, clip):
    """A hint for an exception the learner's step raised: the wrong model inputs whose
    reference step raises the very same exception (type and text), all of them named."""

    def text(exc: BaseException) -> str:
        found = []
        for inputs, call in _MODEL_INPUTS.items():
            try:
                _sgd_variant(
                    start, STEP_VOCAB, pad_id, batch, lr, loss_fn, clip=clip, inputs=inputs
                )
            except Exception as error:
                if type(error) is type(exc) and str(error) == str(exc):
                    found.append(call)
        if not found:
            return ""
        said = found[0] if len(found) == 1 else " or ".join(found)
        return (
            "The logits have the source's length, not the target's: this is the error a "
            f"step raises when the model is called as {said}. {_FORWARD}"
        )

    return text


def _softmax_of_ids(exc: BaseException) -> bool:
    """A softmax or log-softmax refused an integer tensor (token ids, not logits)."""
    return "softmax" in str(exc) and "'Long'" in str(exc)


def _logits_rearranged_hint(batch):
    """A hint for an exception the learner's step raised, from the tensors of its failing
    frame: the model's logits, (batch, len_tgt, V), passed on rearranged. A float tensor
    of shape (len_tgt, V) is one sentence's logits, output[0] (the outputs[0] habit of
    models that return a tuple); one of shape (batch, V, len_tgt) is the logits with the
    vocabulary moved to axis 1 (nn.CrossEntropyLoss's layout), which the course's loss
    functions do not take. Said only when the shapes tell them apart from the batch's
    other tensors (round 19, blind19c-ts-logits-first-element and
    blind19f-ts-logits-transposed-for-cross-entropy got the raw error)."""
    _src, decoder_input, _labels = batch
    rows, length = (int(n) for n in decoder_input.shape)  # (batch, len_tgt)
    vocab = STEP_VOCAB

    def text(exc: BaseException) -> str:
        from transformer_course.checking.failure import (
            innermost_learner_traceback,
            learner_lines,
        )

        found = innermost_learner_traceback(exc)
        frame = found.tb_frame if found is not None else None
        if frame is None or len({rows, length, vocab}) < 3:
            return ""
        for name, value in frame.f_locals.items():
            if not (torch.is_tensor(value) and value.is_floating_point()):
                continue
            shape = tuple(value.shape)
            if shape == (length, vocab):
                return (
                    f"`{name}` has shape {shape} = (len_tgt, V): one sentence's logits, not "
                    f"the batch's (batch, len_tgt, V) = {(rows, length, vocab)}. The model "
                    "returns the logits tensor itself, not a tuple: indexing its output "
                    "(model(...)[0], the outputs[0] habit of models that return a tuple, or "
                    "[-1]) takes a single sentence. Use logits = model(src, decoder_input) "
                    "as it is."
                )
            moved = (
                _moved_on_line(name, learner_lines(exc), value)
                if shape == (rows, length, vocab)
                else ""
            )
            if shape == (rows, vocab, length) or moved:
                name = moved or name
                shape = (rows, vocab, length)
                return (
                    f"`{name}` has shape {shape} = (batch, V, len_tgt): the logits transposed "
                    "so that the vocabulary is on axis 1, nn.CrossEntropyLoss's layout. The "
                    "loss_fn given here takes (..., V) logits, with the vocabulary LAST, and "
                    "(...) labels: pass the model's (batch, len_tgt, V) logits as they are, "
                    "loss_fn(logits, labels), without the transpose."
                )
        return ""

    return text


def _moved_on_line(name: str, line: str, value) -> str:
    """The call on ``line`` that moves ``value``'s last axis to axis 1 (``name``.transpose(1,
    2), .permute(0, 2, 1), .movedim(-1, 1), .mT, ...), as written; "" when there is none."""
    for found in re.finditer(
        rf"\b{re.escape(name)}\s*\.\s*(?:(mT)\b|(transpose|permute|swapaxes|movedim)\s*"
        r"\(([-\d,\s]*)\))",
        line,
    ):
        try:
            if found[1]:
                moved = value.mT
            else:
                numbers = ast.literal_eval(f"({found[3]},)")
                moved = getattr(value, found[2])(*numbers)
        except Exception:  # not the arguments of a move of axes
            continue
        shape = tuple(value.shape)
        if tuple(moved.shape) == (shape[0], shape[2], shape[1]):
            return found[0]
    return ""


def _first_hint(*hints):
    """One hint from several: the first that has something to say."""

    def text(exc: BaseException) -> str:
        for hint in hints:
            said = hint(exc) if callable(hint) else hint
            if said:
                return said
        return ""

    return text


def step_batches(pad_id: int, bos_id: int, eos_id: int, seed: int, count: int):
    """``count`` deterministic batches (each ``make_batches``'s first batch of four random
    pairs over ``STEP_VOCAB`` token ids) for the train_step checks."""
    rng = numpy_rng(seed)
    ids = {"pad_id": pad_id, "bos_id": bos_id, "eos_id": eos_id}
    ordinary = [t for t in range(STEP_VOCAB) if t not in ids.values()]
    batches = []
    for _ in range(count):
        pairs = [
            (
                [int(t) for t in rng.choice(ordinary, int(rng.integers(2, 7)))],
                [int(t) for t in rng.choice(ordinary, int(rng.integers(1, 6)))],
            )
            for _ in range(4)
        ]
        batches.append(ref.make_batches(pairs, len(pairs), **ids)[0])
    return batches


def _max_difference(a: dict, b: dict) -> tuple[float, str]:
    worst, where = 0.0, ""
    for key, value in a.items():
        diff = float((value.detach().double() - b[key].detach().double()).abs().max())
        if diff > worst:
            worst, where = diff, key
    return worst, where


def _clipped_while_scaled(state, start, expected, clip, batch, pad_id, loss_fn) -> str:
    """When the learner's update points the reference's way but is far smaller, as a
    clipping of gradients still multiplied by a loss scale gives (blind31b-ts-clips-scaled-
    gradients: GradScaler without scaler.unscale_ before clip_grad_norm_, a step 65536
    times too small, told "the weights differ"): the scale, from the clipping's implied
    total norm (checking.clip_norms.loss_scale_behind); "" otherwise. The update is
    measured on float32 weights, where such a step is partly rounding: the fit is loose."""
    if clip is None or clip <= 0:
        return ""
    mine = torch.cat([(state[k].double() - start[k].double()).flatten() for k in start])
    theirs = torch.cat([(expected[k].double() - start[k].double()).flatten() for k in start])
    size = float(theirs @ theirs)
    if size == 0.0:
        return ""
    k = float(mine @ theirs) / size
    if not 0 < k < 0.05:
        return ""
    if float((mine - k * theirs).norm()) > 0.5 * max(float(mine.norm()), 1e-30):
        return ""  # not the reference's direction
    grads = _gradients(start, STEP_VOCAB, pad_id, batch, loss_fn)
    scale = loss_scale_behind(k, grads, clip)
    if scale is None:
        return ""
    power = round(math.log2(scale))
    default = " (GradScaler's initial scale)" if power == 16 else ""
    return (
        f"the weights moved about {k:.3g} times as far as in one reference step from the "
        f"same state, in the same direction: your clipping measured a total norm about "
        f"{scale:.0f} = 2 ** {power}{default} times the gradients' own, so the gradients were "
        "still multiplied by a loss scale when clip_grad_norm_ compared them with clip_norm, "
        "and dividing them by that scale afterwards (scaler.step) left the step that much "
        "too small. With a torch.amp.GradScaler, unscale before clipping: "
        "scaler.scale(loss).backward(); scaler.unscale_(optimizer); "
        "clip_grad_norm_(model.parameters(), clip_norm); scaler.step(optimizer); "
        "scaler.update(). (Without loss scaling, loss.backward() then clip_grad_norm_ is the "
        "lesson's step.)"
    )


def _update_factor(state: dict, start: dict, expected: dict) -> float | None:
    """k when the learner's update (state - start) is k times the reference's (expected -
    start) for every weight, k not 1 (a scaled loss, gradient or learning rate); else None."""
    mine = torch.cat([(state[k].double() - start[k].double()).flatten() for k in start])
    theirs = torch.cat([(expected[k].double() - start[k].double()).flatten() for k in start])
    size = float(theirs @ theirs)
    if size == 0.0:
        return None
    k = float(mine @ theirs) / size
    residual = float((mine - k * theirs).norm()) / max(float(mine.norm()), 1e-12)
    if residual > 1e-3 or abs(k - 1.0) < 1e-3 or k <= 0:
        return None
    return k


def _same_state(a: dict, b: dict, atol: float = 2e-5) -> bool:
    return _max_difference(a, b)[0] <= atol


#: optimizers a learner may build inside train_step instead of stepping the one given;
#: the check hands over plain SGD, which these tell apart from the first step on
#: (class -> its default learning rate)
_OTHER_OPTIMIZERS = {
    torch.optim.Adam: 1e-3,
    torch.optim.AdamW: 1e-3,
    torch.optim.RMSprop: 1e-2,
    torch.optim.Adagrad: 1e-2,
}


#: what each of them keeps from one step to the next (lost when it is rebuilt every call)
_OPTIMIZER_STATE = {
    torch.optim.Adam: "moment estimates (running means of the gradients and of their squares) are",
    torch.optim.AdamW: "moment estimates (running means of the gradients and of their squares) are",
    torch.optim.RMSprop: "running mean of the squared gradients is",
    torch.optim.Adagrad: "running sums of the squared gradients are",
}


def _fresh_optimizer_message(optimizer_class, its_lr, lr) -> str:
    """What a step by a freshly built ``optimizer_class`` (learning rate ``its_lr``)
    in place of the given SGD optimizer (``lr``) means."""
    name = optimizer_class.__name__
    where = (
        f"lr={its_lr} (the given optimizer's rate)" if its_lr == lr else f"its default lr={its_lr}"
    )
    return (
        f"The update is exactly the first step of a new torch.optim.{name} built from "
        f"model.parameters() with {where}, not a step of the optimizer passed in (plain SGD "
        "here, which never stepped): your train_step creates its own optimizer (or steps "
        "another one) instead of calling optimizer.step() on the one it was given. Built "
        f"inside train_step, a new {name} starts from an empty state at every call: its "
        f"{_OPTIMIZER_STATE[optimizer_class]} reset to zero each step, and the caller's choice "
        "of optimizer, learning rate and "
        "schedule is ignored. Use the `optimizer` argument: optimizer.step(), then "
        "optimizer.zero_grad()."
    )


def _flat_loss_message(returned, expected_loss, clip) -> str:
    """Why no weight moved when the call returned clip_norm instead of a larger loss: a
    loss clamped (clamp, torch.minimum, torch.where) at clip_norm is flat there, so
    back-propagating it gives zero gradients; "" when the returned number is not
    clip_norm below the loss."""
    if returned is None or expected_loss is None or not math.isfinite(returned):
        return ""
    if math.isclose(returned, expected_loss, rel_tol=1e-4, abs_tol=1e-5):
        return ""  # the loss itself: nothing tells a clamp from a missing backward()
    if clip is None or not math.isclose(returned, clip, rel_tol=1e-6, abs_tol=1e-6):
        return ""  # another number: a bound is not the only way to return it
    if not returned < expected_loss:
        return ""
    bound = f"clip_norm={clip}"
    return (
        f"Your step returned {returned:.6g}, while the loss of this batch is "
        f"{expected_loss:.6g}: the loss was clamped at {bound} (loss.clamp(max=...), "
        "torch.clamp, torch.minimum) before loss.backward(). A clamped loss is flat above "
        "its bound, so its gradient is zero and optimizer.step() has nothing to apply: no "
        "weight moves. clip_norm bounds the gradients' total norm, not the loss: "
        "back-propagate the loss as it is, then, between loss.backward() and "
        "optimizer.step(), torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm); "
        "return loss.item() of that same loss."
    )


def _step_skipped_above_clip_norm(train_step, model, batch, pad_id, lr, loss_fn, clip) -> str:
    """After a call with a clip_norm that left the weights as they were and no gradients:
    the same call on a twin of the model with a clip_norm far above the gradients' total
    norm. When that one moves the weights, the step is taken only when the norm is within
    clip_norm: the clip_norm used as a threshold for skipping, not a scale. "" otherwise
    (a missing backward or step moves nothing, whatever clip_norm is)."""
    if train_step is None or model is None or clip is None:
        return ""
    try:
        twin = copy_model(model, STEP_VOCAB, pad_id)
        optimizer = torch.optim.SGD(twin.parameters(), lr=lr)
        before = {k: v.detach().clone() for k, v in twin.state_dict().items()}
        norm = _gradient_norm(before, STEP_VOCAB, pad_id, batch, loss_fn)
        with contextlib.redirect_stdout(io.StringIO()):
            train_step(twin, batch, optimizer, loss_fn, clip_norm=1e9)
        after = {k: v.detach().clone() for k, v in twin.state_dict().items()}
    except Exception:  # a probe that cannot run names nothing
        return ""
    if _same_state(after, before, atol=0.0) or not norm > clip:
        return ""
    return (
        f"The same call with clip_norm=1e9 (above the gradients' total norm, {norm:.4g}) "
        "does move them: your function skips the optimizer step when the gradients' total "
        f"norm exceeds clip_norm={clip}, clip_norm used as a threshold for skipping a "
        "step. Clipping keeps the step and scales the gradients down to a total norm of "
        "clip_norm: torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm) between "
        "loss.backward() and optimizer.step()."
    )


def _later_calls_that_step(train_step, state, model, batches, pad_id, lr, loss_fn) -> str:
    """After a call that left its gradients and did not move the weights: five more calls
    on a twin of the model (the same weights and gradients, its own SGD), each on the next
    batch; which of them move the weights (and leave no gradients) tells an optimizer step
    taken only every k-th call (gradient accumulation) from a step that runs before
    loss.backward() (every later call moves, one call late). "" when it cannot be told."""
    if train_step is None or model is None or len(batches) < 2:
        return ""
    try:
        twin = copy_model(model, STEP_VOCAB, pad_id)
        for p, q in zip(twin.parameters(), model.parameters()):
            p.grad = None if q.grad is None else q.grad.detach().clone()
        optimizer = torch.optim.SGD(twin.parameters(), lr=lr)
        moved = []  # call by call (the first is the check's): did the weights move?
        before = {k: v.detach().clone() for k, v in twin.state_dict().items()}
        for number in range(1, 6):  # five more calls: a period up to 3 shows twice
            batch = batches[1 + (number - 1) % (len(batches) - 1)]
            train_step(twin, batch, optimizer, loss_fn)
            after = {k: v.detach().clone() for k, v in twin.state_dict().items()}
            moved.append(not _same_state(after, before, atol=0.0))
            before = after
    except Exception:  # a probe that cannot run names nothing
        return ""
    pattern = [False, *moved]
    steps_at = [number + 1 for number, was in enumerate(pattern) if was]
    shown = " and ".join(", ".join(str(n) for n in steps_at).rsplit(", ", 1))
    calls = len(pattern) - 1
    gaps = {b - a for a, b in zip(steps_at, steps_at[1:])}
    if len(steps_at) >= 2 and len(gaps) == 1 and min(gaps) >= 2 and steps_at[0] <= min(gaps):
        every = min(gaps)
        nth = {2: "second", 3: "third", 4: "fourth"}.get(every, f"{every}th")
        return (
            f" {calls} more calls (each on a fresh batch, the same model) moved the weights "
            f"at calls {shown} only: your function takes an optimizer step every {nth} "
            f"call, as gradient accumulation over {every} calls does (a call counter, with "
            f"optimizer.step() and zero_grad() under `if calls % {every} == 0`, and usually "
            f"the loss divided by {every}). The contract's train_step is one whole step per "
            "call: every call back-propagates its own batch's loss, unscaled, and updates "
            "the weights."
        )
    if steps_at == list(range(2, len(pattern) + 1)):
        return (
            f" {calls} more calls (each on a fresh batch) moved the weights at every call "
            "from the second on: each call steps with the gradients the previous call "
            "left, one call late, as optimizer.step() placed before loss.backward() does."
        )
    if steps_at:
        return (
            f" {calls} more calls (each on a fresh batch) moved the weights only at call(s) "
            f"{shown} of {len(pattern)}: your function does not step at every call."
        )
    return f" {calls} more calls (each on a fresh batch) never moved the weights."


def _loss_scaled_by_a_size(ratio: float, labels: torch.Tensor, pad_id: int) -> str:
    """The sizes of the batch that ``ratio`` (the learner's loss over the mean loss) is, or
    is one over, said as a parenthesis; every size that fits when several are equal on
    this batch; "" when none is."""
    sizes = {
        "the batch size, labels.shape[0]": labels.shape[0],
        "the target length, labels.shape[1]": labels.shape[-1],
        "the number of label positions, labels.numel()": labels.numel(),
        "the number of non-pad tokens, (labels != pad_id).sum()": int((labels != pad_id).sum()),
    }
    fits = [
        f"{'times' if times else 'divided by'} {name} = {size}"
        for name, size in sizes.items()
        for times in (True, False)
        if size > 1 and math.isclose(ratio, size if times else 1 / size, rel_tol=1e-4)
    ]
    if not fits:
        return ""
    more = " (these sizes are equal on this batch)" if len(fits) > 1 else ""
    return f" (the mean {' or '.join(fits)}{more})"


def _diagnose_step(
    c,
    what,
    state,
    start,
    expected_model,
    clip,
    batch,
    pad_id,
    lr,
    loss_fn,
    stale=None,
    grads_left=False,
    left_when_not_clipping=False,
    returned=None,
    expected_loss=None,
    train_step=None,
    model=None,
    batches=(),
    clipped_calls_stepped=False,
):
    """Fail with the most likely cause of weights that differ from one reference step;
    ``stale``: the gradients the model held when the call began (None: none);
    ``grads_left``: whether non-zero gradients were left in the model after the call;
    ``left_when_not_clipping``: the previous call passed clip_norm=None and left its
    gradients, while every earlier call with a clip_norm left none; ``returned``: the
    number the call returned, ``expected_loss``: the reference's loss (None: unknown);
    ``clipped_calls_stepped``: this call passed clip_norm=None and every earlier call, some
    of which passed a clip_norm, gave the reference's step."""
    if stale:
        wrong, _ = _sgd_variant(
            start, STEP_VOCAB, pad_id, batch, lr, loss_fn, clip=clip, stale_grads=stale
        )
        if _same_state(state, wrong) and left_when_not_clipping:
            c.fail(
                f"after {what}, the weights are not what one step gives: the gradients of "
                "the previous call, the one with clip_norm=None, were still in the model and "
                "were added to this step's (PyTorch accumulates gradients), while the calls "
                "with a clip_norm left none. Your gradients are cleared only when clipping: "
                "optimizer.zero_grad() inside the `if clip_norm is not None:` branch (an "
                "indentation slip) never runs with clip_norm=None. Clear them once per step "
                "whatever clip_norm is: optimizer.zero_grad() after optimizer.step(), outside "
                "the if (or at the start, before loss.backward())."
            )
        if _same_state(state, wrong):
            c.fail(
                f"after {what}, the weights are not what one step gives: the gradients "
                "of the previous call were still in the model and were added to this "
                "step's (PyTorch accumulates gradients). Clear them once per step with "
                "optimizer.zero_grad(): after optimizer.step() (the contract's order) or "
                "at the start, before loss.backward() (the common PyTorch idiom). A bare "
                "`optimizer.zero_grad`, without its parentheses, names the method and does "
                "not call it."
            )
    if _same_state(state, start, atol=0.0) and grads_left:
        later = _later_calls_that_step(train_step, state, model, batches, pad_id, lr, loss_fn)
        c.fail(
            f"after {what}, the model's weights have not changed, but it holds the step's "
            "gradients: loss.backward() ran and optimizer.step() did not (or ran before "
            "it; a bare `optimizer.step`, without its parentheses, names the method and "
            f"does not call it).{later} Call optimizer.step() after loss.backward() (and "
            "the clipping), then optimizer.zero_grad(), at every call."
        )
    flat = _flat_loss_message(returned, expected_loss, clip)
    if _same_state(state, start, atol=0.0) and flat:
        c.fail(f"after {what}, the model's weights have not changed. {flat}")
    skipped = _step_skipped_above_clip_norm(train_step, model, batch, pad_id, lr, loss_fn, clip)
    if _same_state(state, start, atol=0.0) and skipped:
        c.fail(f"after {what}, the model's weights have not changed. {skipped}")
    if _same_state(state, start, atol=0.0) and clip is None and clipped_calls_stepped:
        # the family 'a step of the six nested under the clip test': what differs between
        # this call and the earlier ones that stepped is only clip_norm=None
        c.fail(
            f"after {what}, the model's weights have not changed, while the earlier calls, "
            "which passed a clip_norm, took the right step: only with clip_norm=None does "
            "no gradient reach optimizer.step(). A step besides the clipping runs only "
            "under your `if clip_norm is not None:`: optimizer.step() or loss.backward() "
            "indented into that branch (or a `return` before them when clip_norm is None). "
            "Only the clipping belongs under the if; loss.backward(), optimizer.step() and "
            "optimizer.zero_grad() run at every call."
        )
    if _same_state(state, start, atol=0.0):
        # what the call left (no gradients, the weights as they were) is the same for
        # these four, so all are named
        c.fail(
            f"after {what}, the model's weights have not changed: no gradient reached "
            "optimizer.step(). Either loss.backward() was not called, or optimizer.step() "
            "was not called (a bare `optimizer.step`, without its parentheses, names the "
            "method and does not call it), or optimizer.step() ran before loss.backward() "
            "(when the "
            "gradients were still cleared), or the gradients were cleared "
            "(optimizer.zero_grad()) between loss.backward() and optimizer.step(). The "
            "order: loss.backward(), the clipping, optimizer.step(), then "
            "optimizer.zero_grad()."
        )
    mistakes = {
        "The gradients were not clipped by their total norm: no clipping, clipping "
        "before loss.backward() (the gradients are still zero then, so it does nothing), "
        "clipping after the optimizer step (too late), clip_grad_value_ (which caps single "
        "entries, and here none was large enough), clip_grad_norm_ with "
        "norm_type=float('inf') (the largest entry as the norm, here within clip_norm), or "
        "clip_grad_norm_ handed an iterator "
        "that was already used up (model.parameters() is a generator: one loop over it, to "
        "log a norm for instance, leaves it empty) all leave them like this. Clip "
        "between loss.backward() and optimizer.step(): "
        "torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm).": dict(clip=None),
        f"The gradients' total norm was already below clip_norm={clip}, and you scaled it "
        "up to clip_norm: clipping only ever scales down, by min(1, clip_norm / total "
        "norm), and leaves gradients whose total norm is within clip_norm as they are "
        "(torch.nn.utils.clip_grad_norm_ does exactly that).": dict(clip=clip, mode="always"),
        "You clipped each gradient entry to [-clip_norm, clip_norm] "
        "(clip_grad_value_); the contract clips the total 2-norm of all gradients "
        "together, which keeps their direction: clip_grad_norm_.": dict(clip=clip, mode="value"),
        "Your clipping measures the gradients' total 1-norm (norm_type=1, the sum of the "
        "absolute values), which is larger than their 2-norm: the gradients are scaled down "
        "more than asked, and also when their 2-norm is within clip_norm. The contract clips "
        "the total 2-norm, clip_grad_norm_'s default: torch.nn.utils.clip_grad_norm_("
        "model.parameters(), clip_norm), no norm_type.": dict(clip=clip, mode="norm_1"),
        "Your clipping measures the gradients' largest entry (norm_type=float('inf'), the "
        "max-norm), which is smaller than their total 2-norm: the gradients are scaled down "
        "less than asked, or not at all while their largest entry is within clip_norm. The "
        "contract clips the total 2-norm, clip_grad_norm_'s default: "
        "torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm), no norm_type.": dict(
            clip=clip, mode="norm_inf"
        ),
        "You clipped each parameter's gradient norm on its own; the contract clips "
        "the norm of all gradients together (one call, clip_grad_norm_("
        "model.parameters(), clip_norm)).": dict(clip=clip, mode="each"),
        "Your clipping takes the sum of the parameters' gradient norms as the total norm "
        "(sum(g.norm() for g in grads)); the total 2-norm of all the gradients together is "
        "the square root of the sum of their squared norms, sqrt(sum(g.norm() ** 2 for g in "
        "grads)). The sum of the norms is larger, so your gradients are scaled down too much, "
        "and also when their total norm is within clip_norm. Use "
        "torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm).": dict(
            clip=clip, mode="sum_of_norms"
        ),
        "You clipped with 1.0 whatever clip_norm was passed: use the argument.": dict(clip=1.0),
        "The optimizer stepped twice (or the step was repeated): one forward, one "
        "backward, one optimizer.step() per call.": dict(clip=clip, steps=2),
        "The update was computed with the labels fed to the decoder: "
        "model(src, decoder_input) is the forward pass.": dict(clip=clip, feed_labels=True),
        "The loss scored the logits against decoder_input instead of labels: each position "
        "was trained to predict the token it reads (<bos> at position 0), not the next one, "
        "so the teacher-forcing shift is lost. loss = loss_fn(logits, labels).": dict(
            clip=clip, target="decoder_input"
        ),
        "Your step shifts the target a second time: the model reads decoder_input[:, :-1] "
        "and the loss scores labels[:, 1:], the slices tutorials apply to an unshifted "
        "target. make_batches has already shifted it (decoder_input = [<bos>] + target, "
        "labels = target + [<eos>]), so each position is trained to predict the token two "
        "places ahead, and the last column is never read. Use the batch as it is: "
        "loss_fn(model(src, decoder_input), labels).": dict(clip=clip, shifted_again=True),
        **{
            f"The update was computed with the model called as {call}. {_FORWARD}": dict(
                clip=clip, inputs=inputs
            )
            for inputs, call in _MODEL_INPUTS.items()
        },
        **{_unpacking_message(order): dict(clip=clip, unpacked=order) for order in _UNPACKINGS},
        **{
            _fresh_optimizer_message(optimizer_class, its_lr, lr): dict(
                clip=clip, fresh_optimizer=(optimizer_class, its_lr)
            )
            for optimizer_class, default_lr in _OTHER_OPTIMIZERS.items()
            for its_lr in dict.fromkeys((lr, default_lr))
        },
    }
    if clip == 0:
        # the family 'a falsy argument taken for a missing one': clip_norm=0.0 read as None
        # (`if clip_norm:`); the earlier calls, with clip_norm > 0, were clipped right
        mistakes = {
            "clip_norm=0.0 was treated like None (no clipping): `if clip_norm:` is False for "
            "0.0 as for None (and a test such as clip_norm > 0 skips it too). 0.0 is a "
            "clip_norm like any other (a total norm of at most 0: "
            "the gradients are scaled to zero, and this step changes nothing); only None "
            "means no clipping. Test `if clip_norm is not None:`.": dict(clip=None),
            "clip_norm=0.0 was replaced by a default of 1.0 (`clip_norm or 1.0`, or a "
            "default taken when `not clip_norm`): 0.0 is falsy, but it is a clip_norm like "
            "any other (the gradients are scaled to zero, and this step changes nothing). "
            "Use clip_norm as it is given; only None means no clipping.": dict(clip=1.0),
            **mistakes,
        }
    if clip is None:
        mistakes = {
            "clip_norm=None should mean no clipping, but the gradients were clipped "
            "(to 1.0?).": dict(clip=1.0),
            **{
                k: v
                for k, v in mistakes.items()
                if v.get("steps")
                or v.get("feed_labels")
                or v.get("inputs")
                or v.get("target")
                or v.get("unpacked")
                or v.get("shifted_again")
                or v.get("fresh_optimizer")
            },
        }
    for message, change in mistakes.items():
        if change.get("clip") == clip and "mode" not in change and len(change) == 1:
            continue  # the same as the expected step
        try:
            wrong, _ = _sgd_variant(start, STEP_VOCAB, pad_id, batch, lr, loss_fn, **change)
        except Exception:  # wrong inputs of other lengths: this step cannot be the learner's
            continue
        if _same_state(state, wrong):
            if change == {"clip": None} and clip:
                message += _small_measures(start, batch, pad_id, loss_fn, clip)
            c.fail(f"after {what}, the weights are not what one step gives. {message}")
    partial = _partly_scaled(state, start, clip, batch, pad_id, lr, loss_fn)
    if partial:
        c.fail(f"after {what}, the weights are not what one step gives. {partial}")
    factor = _update_factor(state, start, expected_model.state_dict())
    measured = (
        _wrong_total_norm(
            factor, start, batch, pad_id, lr, loss_fn, clip, train_step, model, batches
        )
        if factor is not None and clip is not None and clip > 0
        else []
    )
    if measured:
        grads = _gradients(start, STEP_VOCAB, pad_id, batch, loss_fn)
        total = implied_total_norm(factor, grads, clip)
        norm = NORM_MEASURES[next(iter(NORM_MEASURES))](grads)
        said = (
            measured[0]
            if len(measured) == 1
            else "one of these, which agree here: " + "; or ".join(measured)
        )
        c.fail(
            f"after {what}, every weight moved {factor:.4g} times as far as in one reference "
            "step from the same state, in the same direction: your clipping divided the "
            f"gradients by a 'total norm' of {total:.6g}, while their total 2-norm is "
            f"{norm:.6g} (clip_grad_norm_ scales them by min(1, clip_norm / {norm:.6g})). "
            f"Your total norm is {said}. The total norm is the square root of the sum of "
            "the squares of every gradient entry, all parameters together: "
            "torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm) computes it and "
            "scales by min(1, clip_norm / total)."
        )
    scale = _clipped_while_scaled(
        state, start, expected_model.state_dict(), clip, batch, pad_id, loss_fn
    )
    if scale:
        c.fail(f"after {what}, {scale}")
    if factor is not None:
        # plain SGD (no momentum) taking n steps with the same gradients moves the weights
        # exactly n times as far: a repeated optimizer.step() is a candidate then
        repeats = round(factor)
        repeated = ""
        if repeats >= 2 and math.isclose(factor, repeats, rel_tol=1e-3):
            times = {2: "twice", 3: "three times"}.get(repeats, f"{repeats} times")
            repeated = (
                f" Either optimizer.step() is called {times} with the same gradients (plain "
                "SGD then moves the weights exactly that much further: look for a second "
                "optimizer.step(), inside the clipping branch for instance; one per call), or"
            )
        c.fail(
            f"after {what}, every weight moved {factor:.4g} times as far as in one reference "
            "step from the same state, in the same direction: your update is scaled."
            + (repeated or " The")
            + (" the" if repeated else "")
            + " gradients were multiplied by that factor: the loss scaled before backward() "
            "(divided by a count, say: loss_fn's value is already the mean over the tokens), "
            "or the gradients or the learning rate changed by hand"
            + (
                f", or the clipping used another max_norm than clip_norm={clip} (a clipped "
                "update is scaled too)"
                if clip is not None
                else ""
            )
            + ". Back-propagate loss_fn(logits, labels) as it is; the optimizer owns the "
            "learning rate."
        )
    worst, where = _max_difference(state, expected_model.state_dict())
    c.fail(
        f"after {what}, the weights differ from one reference step from the same "
        f"state (largest difference {worst:.3g}, in {where}). The steps, in order: "
        "model.train(); logits = model(src, decoder_input); loss = loss_fn(logits, "
        "labels); loss.backward(); clip_grad_norm_(model.parameters(), clip_norm) "
        "unless clip_norm is None; optimizer.step(); optimizer.zero_grad()."
    )


def _named_gradients(start_state, pad_id, batch, loss_fn) -> dict[str, torch.Tensor]:
    """name -> the gradient of one step from ``start_state``, before any clipping."""
    model = Transformer(STEP_VOCAB, STEP_VOCAB, dropout=0.0, pad_id=pad_id, **_STEP_MODEL)
    model.load_state_dict(start_state)
    model.train()
    src, decoder_input, labels = batch
    loss_fn(model(src, decoder_input), labels).backward()
    return {
        name: p.grad.detach().clone() for name, p in model.named_parameters() if p.grad is not None
    }


def _partly_scaled(state, start, clip, batch, pad_id, lr, loss_fn) -> str:
    """A step whose update scales some parameters' gradients and not the others (an edit
    applied to only part of the parameters), read off each parameter's own scale; '' when
    the update is one scale for every parameter, or not a scaled gradient at all."""
    try:
        grads = _named_gradients(start, pad_id, batch, loss_fn)
        scales = parameter_scales(start, state, lr, grads)
    except Exception:  # values that cannot be read: the other messages say it
        return ""
    if not scales:
        return ""
    groups = scale_groups(scales)
    if len(groups) < 2:
        return ""
    every = list(scales)  # the parameters whose gradient is not (near) zero

    def norm(names) -> float:
        return math.sqrt(sum(float(grads[n].double().norm()) ** 2 for n in names))

    shapes = {name: grads[name].shape for name in every}
    total = norm(grads)
    right = 1.0 if clip is None else min(1.0, clip / max(total, 1e-12))
    if len(groups) == 2 and clip is not None:
        (scale_a, names_a), (scale_b, names_b) = groups
        for (scaled, part), (unscaled, rest) in (
            ((scale_a, names_a), (scale_b, names_b)),
            ((scale_b, names_b), (scale_a, names_a)),
        ):
            if not math.isclose(unscaled, 1.0, rel_tol=1e-3) or scaled >= 1.0:
                continue
            part_norm = norm(part)
            where = described_parameters(part, every, shapes)
            others = described_parameters(rest, every, shapes)
            if math.isclose(scaled, clip / max(part_norm, 1e-12), rel_tol=1e-3):
                return (
                    "Your clipping reached only part of the parameters: "
                    f"{where} were clipped by their own norm ({part_norm:.4g}, scaled by "
                    f"{scaled:.4g}), while {others} kept their gradients unclipped. "
                    "clip_grad_norm_ was handed "
                    "only some of the parameters (one submodule's .parameters(), or a list "
                    "that leaves some out). The total norm is over all parameters together "
                    f"({total:.4g} here, so every gradient is scaled by {right:.4g}): "
                    "torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)."
                )
            if math.isclose(scaled, right, rel_tol=1e-3):
                return (
                    f"Your clipping scaled only part of the gradients: {where} were scaled "
                    f"by min(1, clip_norm / total norm) = {scaled:.4g} (the right factor), while "
                    f"{others} kept their gradients unscaled (a loop over the gradients that "
                    "skips some parameters, or stops early). Every parameter's gradient is "
                    "scaled by the same factor: torch.nn.utils.clip_grad_norm_("
                    "model.parameters(), clip_norm)."
                )
    if len(groups) > 3:
        return ""
    said = "; ".join(
        f"{described_parameters(names, every, shapes)} by {scale:.4g} times their gradient"
        for scale, names in groups
    )
    return (
        "Parameter by parameter, your update is a multiple of the gradient, but not the "
        f"same multiple for every parameter: {said} (expected {right:.4g} for every "
        "parameter: one step moves each parameter by -lr times its gradient"
        + (
            ", all gradients scaled by the one factor min(1, clip_norm / total norm)"
            if clip is not None
            else ""
        )
        + "). Something in your step treats some parameters differently from the others "
        "(a clipping, a scaling or a zero_grad reaching only part of the model)."
    )


def _step_twin(start: dict, pad_id, batch, lr, loss_fn, *, forward_in_eval=False) -> dict:
    """The state after one reference SGD step (clip_norm 1.0) from ``start`` of a model with
    dropout 1.0: right, or with the forward pass run in eval mode."""
    twin = Transformer(STEP_VOCAB, STEP_VOCAB, dropout=1.0, pad_id=pad_id, **_STEP_MODEL)
    twin.load_state_dict(start)
    optimizer = torch.optim.SGD(twin.parameters(), lr=lr)
    if not forward_in_eval:
        ref.train_step(twin, batch, optimizer, loss_fn, 1.0)
        return twin.state_dict()
    src, decoder_input, labels = batch
    twin.eval()
    loss = loss_fn(twin(src, decoder_input), labels)
    twin.train()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(twin.parameters(), 1.0)
    optimizer.step()
    optimizer.zero_grad()
    return twin.state_dict()


def _submodules_left_in_eval(model) -> str:
    """When the model says training but some of its submodules are in eval mode: a few of
    their names, and how many; "" otherwise (or when the model cannot be walked, as in
    the sandboxed grader)."""
    try:
        if not model.training:
            return ""
        names = [name for name, module in model.named_modules() if name and not module.training]
    except Exception:  # a model that is not a plain nn.Module here
        return ""
    if not names:
        return ""
    shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
    return f"{len(names)} of them: {shown}"


def _expect_training_mode_forward(c: Checker, train_step, pad_id, batch, seed, lr) -> None:
    """One call on a model with dropout 1.0, handed over in eval mode: in training mode
    every dropout zeroes (as deterministic as dropout 0), so the step's weights tell a
    forward pass run in training mode from one run before model.train()."""
    model = course_object(
        Transformer, STEP_VOCAB, STEP_VOCAB, dropout=1.0, pad_id=pad_id, **_STEP_MODEL
    )
    model.load_state_dict(deterministic_state(model, seed))
    model.eval()
    loss_fn = course_function(smoothed_cross_entropy, pad_id=pad_id, smoothing=0.1)
    optimizer = course_object(torch.optim.SGD, ParametersOf(model), lr=lr)
    start = {k: v.detach().clone() for k, v in model.state_dict().items()}
    what = (
        f"train_step(model, batch, optimizer, loss_fn) (SGD, lr={lr}; a model with "
        "dropout=1.0, handed over in eval mode)"
    )
    c.call(train_step, model, batch, optimizer, loss_fn, call_repr=what)
    state = model.state_dict()
    if _same_state(state, _step_twin(start, pad_id, batch, lr, loss_fn)):
        c.ok()
        return
    if _same_state(state, _step_twin(start, pad_id, batch, lr, loss_fn, forward_in_eval=True)):
        left_in_eval = _submodules_left_in_eval(model)
        if left_in_eval:
            c.fail(
                f"after {what}, the weights are those of a step whose forward pass ran in "
                "eval mode, and the model's own flag says training (model.training is True) "
                f"while its submodules are still in eval mode ({left_in_eval}): the flag was "
                "set on the top module only, such as model.training = True. Setting the "
                "attribute changes that one module; model.train() sets it on every "
                "submodule too (the dropout layers among them). Call model.train() before "
                "the forward pass."
            )
        c.fail(
            f"after {what}, the weights are those of a step whose forward pass ran in eval "
            "mode: with dropout 1.0, training mode zeroes every dropout, eval mode none, and "
            "your logits had no dropout. model.train() comes FIRST, before the forward pass "
            "(calling it after model(src, decoder_input) leaves the model in training mode, "
            "but too late for this step's dropout)."
        )
    worst, where = _max_difference(state, _step_twin(start, pad_id, batch, lr, loss_fn))
    c.fail(
        f"after {what}, the weights differ from one reference step (largest difference "
        f"{worst:.3g}, in {where}), though the same steps gave the right weights with "
        "dropout 0: what differs is dropout. In training mode (model.train(), before the "
        "forward pass) every dropout of this model zeroes; leave the model's own dropout "
        "modules as they are."
    )


def _fail_if_across_calls(c, what, value: float, losses: list[float]) -> None:
    """Fail when the number a later call returned is built from the losses of the
    earlier calls too (``losses``: the expected loss of every call so far, this one last):
    their sum, their mean, or the previous call's loss."""
    if len(losses) < 2:
        return
    shown = ", ".join(f"{loss:.6g}" for loss in losses)
    candidates = {
        "the sum of the losses of all the calls so far": sum(losses),
        "the mean of the losses of all the calls so far": sum(losses) / len(losses),
        "the loss of the previous call": losses[-2],
    }
    for meaning, candidate in candidates.items():
        if math.isclose(value, candidate, rel_tol=1e-4, abs_tol=1e-5):
            c.fail(
                f"{what} returned {value:.6g}, {meaning} (the losses of calls 1 to "
                f"{len(losses)}: {shown}), not this step's loss ({losses[-1]:.6g}). Your "
                "train_step keeps a value across calls (a running total or average on the "
                "function, a global, a default argument, or a variable read before it is "
                "updated): each call returns only its own step's loss, loss.item(), and "
                "keeps nothing between calls (the training loop sums or averages them)."
            )


def check_train_step(train_step, *, hidden: bool = False) -> None:
    """train_step(model, batch, optimizer, loss_fn, clip_norm=1.0) -> float."""
    with Checker("train_step", hidden=hidden) as c:
        c.require_callable(train_step)
        if hidden:
            pad_id, bos_id, eos_id, seed, lr = 1, 4, 2, 5102, 0.3
            clips = [
                ("default", 1.0),
                (0.4, 0.4),
                (None, None),
                (2.5, 2.5),
                (20.0, 20.0),
                (0.0, 0.0),
            ]
        else:
            pad_id, bos_id, eos_id, seed, lr = 0, 2, 3, 5101, 0.5
            # the last call's gradients (total norm about 8) are below clip_norm: clipping
            # must leave them as they are
            # clip_norm=0.0 last: a clip_norm like any other (zero gradients), which
            # `if clip_norm:` takes for None
            clips = [("default", 1.0), (0.3, 0.3), (None, None), (50.0, 50.0), (0.0, 0.0)]
        batches = step_batches(pad_id, bos_id, eos_id, seed, len(clips))
        model = step_model(STEP_VOCAB, pad_id, seed)
        optimizer = course_object(torch.optim.SGD, ParametersOf(model), lr=lr)
        loss_fn = course_function(smoothed_cross_entropy, pad_id=pad_id, smoothing=0.1)
        expected_model = copy_model(model, STEP_VOCAB, pad_id)
        expected_optimizer = torch.optim.SGD(expected_model.parameters(), lr=lr)
        left = []  # (the clip_norm a call passed, whether it left gradients), call by call
        losses = []  # the expected loss of each call so far
        for number, ((given, clip), batch) in enumerate(zip(clips, batches)):
            start = {k: v.detach().clone() for k, v in model.state_dict().items()}
            stale = {  # gradients left by the previous call (the idiom that clears first)
                name: p.grad.detach().clone()
                for name, p in model.named_parameters()
                if p.grad is not None and bool(p.grad.detach().abs().max() > 0)
            }
            if number:
                left.append((clips[number - 1][1], bool(stale)))
            what = (
                f"train_step(model, batch, optimizer, loss_fn"
                f"{'' if given == 'default' else f', clip_norm={given}'})"
                f" (call {number + 1}: SGD, lr={lr})"
            )
            got = c.call(
                train_step,
                model,
                batch,
                optimizer,
                loss_fn,
                **({} if given == "default" else {"clip_norm": given}),
                call_repr=what,
                hints={
                    "'NoneType' and 'float'": "clip_norm=None means: do not clip at all. "
                    "Test `if clip_norm is not None:` before clipping.",
                    "unsupported operand type(s) for": "clip_norm=None means: do not clip at "
                    "all. Test `if clip_norm is not None:` before clipping.",
                    **(
                        {
                            "a real number, not 'NoneType'": "This call passed clip_norm=None, "
                            "which means: do not clip at all; clip_grad_norm_ cannot take None "
                            "as its max_norm. Test `if clip_norm is not None:` before clipping."
                        }
                        if given is None
                        else {}
                    ),
                    Exception: _first_hint(
                        _input_order_hint(start, batch, pad_id, lr, loss_fn, clip),
                        _logits_rearranged_hint(batch),
                    ),
                    "element 0 of tensors does not require grad": "The loss has no graph to "
                    "back-propagate through: call loss_fn on the model's logits directly "
                    "(no torch.no_grad(), no .detach()).",
                    "Trying to backward through the graph a second time": "backward() was "
                    "called twice on the same loss: call it once per step.",
                    "'tuple' object has no attribute 'grad'": _NAMED_PARAMETERS_HINT,
                    _softmax_of_ids: "The loss function took the (log-)softmax of int64 "
                    "token ids: the labels went where the logits belong. Its order is "
                    "loss_fn(logits, labels): the model's logits first, then the labels.",
                },
                mutation_hint="The batch must stay as it is: it is reused by the training loop.",
            )
            expected_loss = ref.train_step(expected_model, batch, expected_optimizer, loss_fn, clip)
            losses.append(expected_loss)
            if is_tensor(got) and got.numel() == 1:
                c.fail(
                    f"{what} returned a tensor ({short(got)}); return a Python float, "
                    "loss.item(). A tensor that is still attached to the graph keeps every "
                    "intermediate result of the step in memory, for every step you store."
                )
            value = plain_float(c, got, what, "Return loss.item(), a Python float.")
            c.ok()
            if not model.training:
                c.fail(
                    f"after {what}, the model is in eval mode (model.training is False). "
                    "train_step must put it in training mode (model.train()) before the "
                    "forward pass, so that dropout is active while it learns, and leave it "
                    "so: the model here arrived in eval mode. Either model.train() was never "
                    "called (a bare `model.train`, without its parentheses, names the method "
                    "and does not call it), or the model was switched back (model.eval()) "
                    "before returning."
                )
            c.ok()
            state = model.state_dict()
            if not _same_state(state, expected_model.state_dict()):
                grads_left = any(
                    p.grad is not None and bool(p.grad.detach().abs().max() > 0)
                    for p in model.parameters()
                )
                _diagnose_step(
                    c,
                    what,
                    state,
                    start,
                    expected_model,
                    clip,
                    batch,
                    pad_id,
                    lr,
                    loss_fn,
                    stale,
                    grads_left,
                    returned=value,
                    expected_loss=expected_loss,
                    train_step=train_step,
                    model=model,
                    batches=batches,
                    clipped_calls_stepped=given is None
                    and any(norm is not None for norm, _ in clips[:number]),
                    left_when_not_clipping=bool(left)
                    and left[-1] == (None, True)
                    and any(norm is not None for norm, _ in left)
                    and not any(norm is not None and was for norm, was in left),
                )
            c.ok()
            if not math.isclose(value, expected_loss, rel_tol=1e-4, abs_tol=1e-5):
                _, after_loss = _sgd_variant(
                    expected_model.state_dict(), STEP_VOCAB, pad_id, batch, 0.0, loss_fn, clip=None
                )
                _, fed_labels = _sgd_variant(
                    start, STEP_VOCAB, pad_id, batch, 0.0, loss_fn, clip=None, feed_labels=True
                )
                if math.isclose(value, after_loss, rel_tol=1e-4, abs_tol=1e-5):
                    c.fail(
                        f"{what} returned {value:.6g}, the loss *after* the update; return "
                        f"the loss computed before the step ({expected_loss:.6g}): the one "
                        "whose gradients made the update."
                    )
                if math.isclose(value, fed_labels, rel_tol=1e-4, abs_tol=1e-5):
                    c.fail(
                        f"{what} returned {value:.6g}: the decoder was fed the labels. The "
                        "decoder reads decoder_input (<bos> + target) and is scored against "
                        "the labels (target + <eos>): model(src, decoder_input)."
                    )
                _fail_if_across_calls(c, what, value, losses)
                norm = _gradient_norm(start, STEP_VOCAB, pad_id, batch, loss_fn)
                if math.isclose(value, norm, rel_tol=1e-4, abs_tol=1e-5):
                    c.fail(
                        f"{what} returned {value:.6g}, the gradients' total norm before "
                        "clipping (what clip_grad_norm_ returns), not the loss "
                        f"({expected_loss:.6g}). Keep the loss in its own variable: "
                        "assigning clip_grad_norm_'s result to `loss` replaces it."
                    )
                ratio = value / expected_loss if expected_loss else 0.0
                if ratio > 0 and not math.isclose(ratio, 1.0, rel_tol=1e-3):
                    simple = any(
                        math.isclose(ratio, factor, rel_tol=1e-4)
                        for k in range(2, 65)
                        for factor in (k, 1 / k)
                    )
                    which = _loss_scaled_by_a_size(ratio, batch[2], pad_id)
                    if simple:
                        c.fail(
                            f"{what} returned the loss {value:.6g}, exactly {ratio:.4g} times "
                            f"loss_fn(model(src, decoder_input), labels) = {expected_loss:.6g} "
                            f"before the step{which}: the loss was scaled. loss_fn already "
                            "returns the mean over the non-pad tokens: return it as it is, "
                            "loss.item() (and back-propagate that same loss: scaling it "
                            "scales the update)."
                        )
                    c.fail(
                        f"{what} returned {value:.6g}, {ratio:.4g} times "
                        f"loss_fn(model(src, decoder_input), labels) = {expected_loss:.6g} "
                        "before the step (not a simple factor). Either the loss was scaled, "
                        "or the number returned is not the loss (a variable reused for "
                        "something else, or another quantity of the step): return "
                        "loss.item() of the loss you back-propagated, unchanged."
                    )
                c.fail(
                    f"{what} returned the loss {value:.6g}; expected {expected_loss:.6g}, "
                    "loss_fn(model(src, decoder_input), labels) before the step."
                )
            c.ok()
        _expect_training_mode_forward(c, train_step, pad_id, batches[0], seed + 1, lr)
