"""Checks for lesson 09's ``greedy_decode``, against ``greedy_decode_f`` on a reference
``Transformer`` with fixed weights (:func:`greedy_model`), and its mistakes."""

from __future__ import annotations

import contextlib
import io
import operator
import re
from dataclasses import dataclass

import torch
from torch import nn

from transformer_course.checking import Checker, CheckFailure
from transformer_course.checking.formatting import short
from transformer_course.checking.hooks import argument_received
from transformer_course.checking.inputs import vocab_token_ids
from transformer_course.checking.modules import random_state
from transformer_course.checking.objects import course_object
from transformer_course.checking.oracles import (
    greedy_decode_f,
)
from transformer_course.checking.relations import reordered_rows, reordered_rows_sentence
from transformer_course.checking.size_one_axes import size_one_axes, size_one_axes_change
from transformer_course.checking.stale import layer_calls_during
from transformer_course.checking.stop_rules import (
    StopRule,
    finish_steps,
    stop_rule_text,
    stop_rules_explaining,
)
from transformer_course.reference import transformer as ref

from .common import _DECODE_SIZES_HINT, _INDEX_HINT, _POSITIONS

# ================================================================== greedy_decode
_GREEDY_SIZES = {"d_model": 16, "num_heads": 2, "num_layers": 2, "d_ff": 32, "max_len": 32}


def greedy_model(
    vocab: int, pad_id: int, bos_id: int, eos_id: int, seed: int, eos_bias: float, dropout: float
) -> nn.Module:
    """A small reference Transformer with fixed weights, in eval mode, as a course object:
    <pad> and <bos> never win, <eos> is made more (or less) likely by ``eos_bias``."""
    model = course_object(
        ref.Transformer, vocab, vocab, dropout=dropout, pad_id=pad_id, **_GREEDY_SIZES
    )
    state = model.state_dict()
    shapes = {k: tuple(v.shape) for k, v in state.items() if not k.startswith(_POSITIONS)}
    state.update(random_state(shapes, seed))
    bias = state["output.bias"].clone()
    bias[pad_id] = bias[bos_id] = -30.0
    bias[eos_id] += eos_bias
    state["output.bias"] = bias
    model.load_state_dict(state)
    return model.eval()


@dataclass(frozen=True)
class _GreedyCase:
    seed: int
    vocab: int
    pad_id: int
    bos_id: int
    eos_id: int
    eos_bias: float
    src_lengths: tuple[int, ...]
    len_src: int
    max_len: int
    dropout: float = 0.0
    left: bool = False

    def model(self) -> nn.Module:
        return greedy_model(
            self.vocab,
            self.pad_id,
            self.bos_id,
            self.eos_id,
            self.seed,
            self.eos_bias,
            self.dropout,
        )

    def src(self) -> torch.Tensor:
        return vocab_token_ids(
            self.src_lengths, self.len_src, self.vocab, self.pad_id, self.seed + 7, left=self.left
        )


# Chosen so that (tests/test_09_transformer.py checks each property): the rows of a case
# finish at different steps; one visible case never finishes a row (max_len reached) and
# one finishes every row early; every next-token margin is at least 1e-3.
VISIBLE_GREEDY = [
    # rows finish at steps 4 and 2, one never does: max_len reached
    _GreedyCase(753, 10, 0, 1, 2, 1.0, (5, 3, 4), 5, 6),
    # rows finish at steps 2, 3 and 4: an early stop, 4 of max_len 8 columns
    _GreedyCase(5, 10, 0, 1, 2, 0.0, (4, 4, 2), 4, 8),
    # pad_id 3 (not 0), <bos> 0, <eos> 1; one row finishes at step 4; dropout 0.1, eval mode
    _GreedyCase(790, 9, 3, 0, 1, 1.0, (6, 2), 6, 5, dropout=0.1),
]
HIDDEN_GREEDY = [
    _GreedyCase(459, 12, 0, 2, 3, 1.0, (7, 7, 3, 5), 7, 7),  # two rows never finish
    _GreedyCase(623, 11, 5, 1, 4, 0.5, (3, 5, 5), 5, 9, left=True),  # early stop, pad_id 5
    _GreedyCase(503, 10, 2, 0, 1, 0.0, (4,), 4, 1),  # max_len 1, batch 1
    _GreedyCase(743, 13, 1, 0, 2, 0.0, (6, 4), 6, 4, dropout=0.1),  # pad_id 1, dropout 0.1
]


GREEDY_MISTAKES = [
    (
        {"keep_bos": True},
        "Every row starts with <bos>: the result holds the generated tokens only, so drop the "
        "<bos> column (tokens[:, 1:]).",
    ),
    (
        {"fill": "eos"},
        "After <eos>, your rows repeat <eos>; a finished row gets model.pad_id from then on.",
    ),
    (
        {"fill": "zero"},
        "After <eos>, your rows get 0, but this model's pad_id is not 0: use model.pad_id.",
    ),
    (
        {"pad_finished": False},
        "Your rows go on generating after their <eos>: once a row has produced <eos> it is "
        "finished, and every later token of it must be model.pad_id (keep a bool tensor of "
        "finished rows, and masked_fill the new tokens of finished rows).",
    ),
    (
        {"pad_finished": False, "early_stop": False},
        "No row is ever marked finished: your rows go on generating after their <eos> AND "
        "the loop never stops early, as when `finished` never becomes True (updated with & "
        "instead of |, finished & (next_token == eos_id), which stays False; or never "
        "updated). A row is finished once it has produced <eos>, and stays so: finished = "
        "finished | (next_token == eos_id); then masked_fill the new tokens of finished rows "
        "with model.pad_id, and stop when finished.all().",
    ),
    (
        {"early_stop": False},
        "Every row had finished, but your loop went on to max_len, adding columns of padding: "
        "stop as soon as every row has produced <eos> (if finished.all(): break).",
    ),
    (
        {"keep_eos": False},
        "The <eos> tokens are missing, each replaced by a pad id: each row keeps its <eos> "
        "(it says where the sentence ends), followed by pad ids. In the step that produces a "
        "row's <eos>, pad only the rows that had finished before it: mask with the old "
        "`finished`, then update it (finished | (next == eos_id)); updating it first pads "
        "the <eos> itself.",
    ),
    (
        {"position": 0},
        "You took the FIRST position's logits at every step, which only ever sees <bos>, so "
        "every step predicts the same token. The next token is predicted by the LAST position "
        "of the prefix: logits[:, -1].",
    ),
    (
        {"argmax_dim": "positions"},
        "Your argmax ran over the positions (dim=1) instead of the vocabulary: the next token is "
        "the argmax over the last axis of the last position's logits, "
        "logits[:, -1].argmax(dim=-1).",
    ),
    (
        {"feed": "last"},
        "At each step the decoder saw only the last token, not the whole prefix: feed it "
        "everything generated so far, <bos> included (the decoder's self-attention reads the "
        "prefix, and positions count from <bos>).",
    ),
    (
        {"feed": "one_pass"},
        "Your tokens look like ONE decoder pass over a fixed input, the way training runs "
        "(teacher forcing). At inference the next input is only known once the model has "
        "produced it: decode, take the new token, append it, and decode again "
        "(autoregression).",
    ),
]


def off_by_one_mistakes(max_len: int, widest_input: int = 0) -> list[tuple[dict, str]]:
    """The step count off by one. ``widest_input``: the most target positions the
    learner's decoder read in one call (<bos> included), which tells a loop one step short
    (max_len - 1 at most) from a last token cut off afterwards (max_len: the input of
    step max_len, which generates the last token)."""
    short_rows = (
        f"Your rows stop at {max_len - 1} tokens: max_len = {max_len} "
        "new tokens may be generated (range(max_len) steps)."
    )
    if widest_input >= max_len:
        short_rows = (
            f"Your rows stop at {max_len - 1} tokens, but your decoder's last call read "
            f"<bos> and {max_len - 1} tokens, the input of step max_len = {max_len}: the "
            "last generated token (column) was cut off afterwards, by the slice that "
            "returns the result. The "
            f"token tensor has <bos> in front, 1 + max_len = {max_len + 1} columns, so "
            f"tokens[:, 1:max_len] keeps max_len - 1 = {max_len - 1} of them; drop only "
            "<bos>: tokens[:, 1:]."
        )
    return [
        ({"steps": max_len - 1}, short_rows),
        (
            {"steps": max_len + 1},
            f"You generated {max_len + 1} tokens: your loop runs one step too many, "
            f"max_len + 1 = {max_len + 1} steps (range(max_len + 1), or a loop test that "
            f"lets one more step through, <= where < belongs). At most max_len = {max_len} "
            "new tokens, <bos> not counted: range(max_len) steps.",
        ),
    ]


def check_greedy_decode(greedy_decode, *, hidden: bool = False) -> None:
    """greedy_decode(model, src_ids, max_len, bos_id, eos_id) on small models with fixed
    weights: the exact tokens, int64, (batch, n) with n <= max_len, <eos> kept, pad after
    it, no <bos>, an early stop, and the model left as it was (weights and eval mode)."""
    with Checker("greedy_decode", hidden=hidden) as c:
        c.require_callable(greedy_decode)
        cases = HIDDEN_GREEDY if hidden else VISIBLE_GREEDY
        # every model the learner's code is given stays alive until the check ends, so no
        # two of them share an id(): an answer that caches by id(model) then meets a stale
        # entry only where the check means it to (the second call below), not by chance
        alive: list[nn.Module] = []
        for case in cases:
            _check_greedy_case(c, greedy_decode, case, cases, alive)
        _expect_nothing_kept_between_calls(c, greedy_decode, cases[0], alive)
        _expect_any_token_decoded(c, greedy_decode, *_BOS_PROBE[hidden], alive)


#: (case, output bias of <bos>): a model whose argmax is <bos> at some steps and not at
#: others (the cases' models never let <pad> or <bos> win)
_BOS_PROBE = {False: (VISIBLE_GREEDY[1], 0.0), True: (HIDDEN_GREEDY[0], 2.0)}


def _expect_any_token_decoded(
    c: Checker, greedy_decode, case: _GreedyCase, bos_bias: float, alive: list
) -> None:
    """Greedy decoding takes the argmax over the whole vocabulary, whatever token wins: on
    a model whose most probable next token is <bos> at some steps, the result holds those
    <bos>. A decoder that changes the logits of special tokens before the argmax (sets
    <pad> and <bos> to -inf, as generation libraries' suppress_tokens do) passes every
    case above, whose models never let <pad> or <bos> win."""
    model = case.model()
    alive.append(model)
    with torch.no_grad():
        model.output.bias[case.bos_id] = bos_bias  # (tgt_vocab,): <bos> can win now
    src = case.src()  # (batch, len_src)
    args = (case.max_len, case.bos_id, case.eos_id)
    expected = ref.greedy_decode(model, src, *args)
    call = (
        f"greedy_decode(model, src_ids {tuple(src.shape)}, max_len={case.max_len}, "
        f"bos_id={case.bos_id}, eos_id={case.eos_id}) [model: a small Transformer with "
        f"fixed weights in eval mode, pad_id={case.pad_id}, its output layer's bias for "
        f"<bos> set to {bos_bias}, so that <bos> is the most probable next token at some "
        "steps]"
    )
    with torch.no_grad():
        got = c.call(greedy_decode, model, src.clone(), *args, call_repr=call)
    if _same_tokens(got, expected):
        return
    if kept := _model_never_run(greedy_decode, model, src, args):
        c.fail(f"`{call}` returned {short(got)}, expected {short(expected)}. {kept}")
    replay = ""
    if isinstance(got, torch.Tensor) and got.dim() == 2 and got.shape[0] == src.shape[0]:
        try:
            replay = _greedy_replay(model, src, got.long(), case)
        except Exception:  # the replay is only an explanation
            replay = ""
    c.expect_equal(got, expected, call, hint=replay)


def _model_never_run(greedy_decode, model, src: torch.Tensor, args: tuple) -> str:
    """When the learner's function, called again with these arguments, returns a result
    while no layer of the model runs: the tokens were kept from an earlier call (a cache
    keyed by the source ids, say); "" otherwise."""
    calls = layer_calls_during(model, lambda: greedy_decode(model, src.clone(), *args))
    if calls != 0:
        return ""
    # control: a source no call has seen must run the model, where the hooks see it (not
    # so when the function runs elsewhere, as in the grader's sandbox: then no evidence)
    unseen = src.flip(0).flip(1).clone()  # (batch, len_src): other rows, other order
    control = layer_calls_during(model, lambda: greedy_decode(model, unseen, *args))
    if not control:
        return ""
    return (
        "Called again with these arguments, your greedy_decode returns without running the "
        "model at all (none of its layers is called): the tokens come from something kept "
        "from an earlier call, a cache keyed by the source ids (or by the arguments) in a "
        "dict on the function, a global or a default argument. The same source gives other "
        "tokens with another model (here its output bias differs): every call must run "
        "model.encode(src_ids) and model.decode on the model it is given."
    )


def _expect_nothing_kept_between_calls(
    c: Checker, greedy_decode, case: _GreedyCase, alive: list
) -> None:
    """Two calls on ONE model with two source batches of the same shape (the rows in the
    other order): the second must decode its own source. Each case above builds a model
    of its own, so a value kept from an earlier call on the same model (the encoder's
    output cached in a mutable default argument, a global or an attribute of the model)
    shows only here (blind14a-gd-memory-cached-in-mutable-default was accepted)."""
    model = case.model()
    alive.append(model)
    first, second = case.src(), case.src().flip(0)  # (batch, len_src) each
    args = (case.max_len, case.bos_id, case.eos_id)
    expected = ref.greedy_decode(model, second, *args)
    call = (
        f"greedy_decode(model, src_ids {tuple(second.shape)}, max_len={case.max_len}, "
        f"bos_id={case.bos_id}, eos_id={case.eos_id})"
    )
    with torch.no_grad():
        c.call(greedy_decode, model, first.clone(), *args, call_repr=call)
        got = c.call(greedy_decode, model, second.clone(), *args, call_repr=call)
    if _same_tokens(got, expected):
        return
    with torch.no_grad():  # the same call on a model no call has seen
        alive.append(case.model())
        fresh = c.call(greedy_decode, alive[-1], second.clone(), *args, call_repr=call)
    if not _same_tokens(fresh, expected):
        c.fail(
            f"`{call}` [a source batch whose rows are case 1's in the other order] returned "
            f"{short(fresh)}, expected {short(expected)}."
        )
    c.fail(
        f"Called twice on the same model, first with one source batch and then with "
        f"another of the same shape (the rows in the other order), your second call "
        f"`{call}` returned {short(got)}, not {short(expected)}, which it does return on a "
        "model no call has seen. Something from the first call was kept and used again: "
        "most likely the encoder's output (memory) cached, in a mutable default argument "
        "(def greedy_decode(..., cache={})), a global or an attribute set on the model. "
        "Every call must encode its own src_ids: memory = model.encode(src_ids), once per "
        "call."
    )


def _same_tokens(got, want: torch.Tensor) -> bool:
    return (
        isinstance(got, torch.Tensor)
        and got.shape == want.shape
        and not got.is_floating_point()
        and torch.equal(got.long(), want.long())
    )


def _told_apart(greedy_decode, got, case, cases, alive: list) -> set[str]:
    """The messages of GREEDY_MISTAKES that give ``got`` on this case and ALSO give the
    learner's output on every other case of the check (the inputs that tell apart mistakes
    that agree here: a loop that never stops and rows never marked finished look alike
    when a row never finishes). When only one matches here and another case contradicts
    it, {_CONTRADICTED}: no candidate at all."""

    def output(knobs, other):
        return greedy_decode_f(
            other.model(), other.src(), other.max_len, other.bos_id, other.eos_id, **knobs
        )

    found = [(knobs, m) for knobs, m in GREEDY_MISTAKES if _same_tokens(got, output(knobs, case))]
    if not found:
        return set()
    # one match here is a cause only if it also gives the learner's tokens on every other
    # case (class 1: a mean of the logits over the positions matched "one decoder pass" on
    # one visible case); a mistake the other cases contradict is named nowhere
    alone = len(found) == 1
    for other in cases:
        if other is case or not found:
            continue
        alive.append(other.model())
        try:
            with torch.no_grad():
                theirs = greedy_decode(
                    alive[-1], other.src(), other.max_len, other.bos_id, other.eos_id
                )
        except Exception:  # another case is only a tie-break
            continue
        kept = [(k, m) for k, m in found if _same_tokens(theirs, output(k, other))]
        if alone and not kept:
            return {_CONTRADICTED}
        found = kept or found
    return {m for _, m in found}


#: what :func:`_told_apart` returns when the one mistake that matched a case is contradicted
#: by another case: no message of GREEDY_MISTAKES is then a candidate
_CONTRADICTED = "(contradicted by another case)"


_SIZES = re.compile(
    r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) at "
    r"non-singleton dimension 0"
)


def _batch_rows_hint(src: torch.Tensor):
    """For a clash on the batch axis between the batch and len_src: the target's rows
    counted from src_ids.shape[1]."""
    batch, length = src.shape

    def text(exc: BaseException) -> str:
        found = _SIZES.search(str(exc))
        if not found or batch == length:
            return ""
        if {int(found.group(1)), int(found.group(2))} != {batch, length}:
            return ""
        return (
            f"A tensor with {length} rows met the batch of {batch} sentences: {length} is "
            "len_src, src_ids.shape[1]. The target starts with one row per sentence: "
            "torch.full((src_ids.shape[0], 1), bos_id)."
        )

    return lambda exc: isinstance(exc, RuntimeError), text


def _check_greedy_case(
    c: Checker, greedy_decode, case: _GreedyCase, cases=(), alive: list | None = None
) -> None:
    alive = [] if alive is None else alive
    model = case.model()
    alive.append(model)
    src = case.src()
    weights = {k: v.clone() for k, v in model.state_dict().items()}
    expected = ref.greedy_decode(model, src, case.max_len, case.bos_id, case.eos_id)
    ids = f"bos_id={case.bos_id}, eos_id={case.eos_id}"
    call = (
        f"greedy_decode(model, src_ids {tuple(src.shape)}, max_len={case.max_len}, {ids}) "
        f"[model: a small Transformer with fixed weights in eval mode, pad_id={case.pad_id}]"
    )
    # the target ids of every decode call, to say which ids were floats when the
    # embedding refuses them: the <bos> column, or the tokens appended to it (the model is
    # this case's own: a hook left on it after a failure harms nothing)
    embedded: list[torch.Tensor] = []
    recorder = model.tgt_embedding.register_forward_pre_hook(
        lambda _module, args: embedded.append(args[0].detach().clone())
    )

    def float_ids(_exc: BaseException) -> str:
        if not embedded or not embedded[-1].is_floating_point():
            return ""
        if embedded[0].is_floating_point():
            return (
                f"Your first decode call already got float ids {tuple(embedded[0].shape)}: "
                "the <bos> column itself is float; build it with dtype=torch.long, "
                "torch.full((batch, 1), bos_id, dtype=torch.long)."
            )
        ids = embedded[-1]
        if ids.dim() != 2 or ids.shape[1] < 2 or embedded[0].shape[1] != 1:
            return ""
        with torch.no_grad():
            step_1 = model.decode(embedded[0], model.encode(src), src)[:, -1]  # (batch, vocab)
        values = step_1.max(dim=-1).values.to(ids.dtype)
        if ids.shape[0] == values.shape[0] and torch.allclose(ids[:, 1], values):
            return (
                "Your first decode call got int64 ids, <bos> alone; the next one got floats: "
                "the token you appended at step 1 is the LARGEST LOGIT itself "
                f"({ids[0, 1].item():.4g} in row 0), not its index. torch.max(x, dim=-1) "
                "returns (values, indices): the token is the index, "
                "logits[:, -1].argmax(dim=-1) (an int64 tensor)."
            )
        return (
            "Your first decode call got int64 ids, <bos> alone; a later one got floats: the "
            "tokens you appended are floats (torch.cat then makes the whole prefix float). "
            "Each new token is an index, logits[:, -1].argmax(dim=-1), an int64 tensor."
        )

    def id_beyond_vocab(_exc: BaseException) -> str:
        """The generated tokens that were fed back hold an id past the vocabulary: the
        learner's own argmax made it (the source ids are the check's). An id that is the
        flattened argmax of that step's logits is named as such."""
        if not embedded or embedded[-1].is_floating_point() or embedded[-1].dim() != 2:
            return ""
        ids = embedded[-1]
        recorder.remove()  # the decode call below must not add to what was recorded
        if ids.shape[1] < 2 or int(ids[:, 1:].max()) < case.vocab:
            return ""
        step = int((ids[:, 1:] >= case.vocab).any(dim=0).nonzero()[0]) + 1
        token = int(ids[:, step].max())
        said = (
            f"The token you appended at step {step} is {token}, beyond the vocabulary "
            f"(vocab_size = {case.vocab}, ids 0 to {case.vocab - 1}), so the embedding has "
            "no row for it."
        )
        with torch.no_grad():
            logits = model.decode(ids[:, :step], model.encode(src), src)[:, -1]
        if bool((ids[:, step] == int(logits.argmax())).all()):
            return (
                f"{said} It is the argmax of the whole (batch, vocab) logits, flattened "
                f"(row {token // case.vocab}, token {token % case.vocab}), the same number "
                "for every row: argmax() was called without dim. The next token of every "
                "row is logits[:, -1].argmax(dim=-1), shape (batch,)."
            )
        return (
            f"{said} The argmax ran over more than the vocabulary axis (without dim it "
            "indexes the flattened (batch, vocab) logits), or something was added to the "
            "ids: the next token of every row is logits[:, -1].argmax(dim=-1), shape (batch,)."
        )

    def vocab_met_batch(exc: BaseException) -> bool:
        """A clash between the batch and the vocabulary (one entry per vocabulary token
        where one per row belongs), not one inside model.decode."""
        found = _SIZES.search(str(exc))
        sizes = {int(found.group(1)), int(found.group(2))} if found else set()
        return src.shape[0] != case.vocab and sizes == {src.shape[0], case.vocab}

    # a decoding that draws at random (a mistake) draws the same tokens on every run of
    # the check; the two probe calls of _random_decoding start from seeds 1 and 2
    torch.manual_seed(0)
    got = c.call(
        greedy_decode,
        model,
        src,
        case.max_len,
        case.bos_id,
        case.eos_id,
        call_repr=call,
        hints=[
            (Exception, _decode_arguments_hint),
            (Exception, _one_sentence_logits_hint),
            ("'indices' to have one of the following scalar types", float_ids),
            _batch_rows_hint(src),
            ("index out of range", id_beyond_vocab),
            (
                lambda exc: "index out of range" in str(exc) and not id_beyond_vocab(exc),
                _INDEX_HINT,
            ),
            (
                vocab_met_batch,
                f"A tensor of vocab_size = {case.vocab} entries met the batch of "
                f"{src.shape[0]} rows: your next token holds one number per vocabulary "
                "entry, not one per row. Either the argmax ran over the batch axis of "
                "logits[:, -1] (dim=0 or dim=-2 of its (batch, vocab)), or one row's scores "
                "were taken for the whole batch; the next token is "
                "logits[:, -1].argmax(dim=-1), shape (batch,).",
            ),
            (
                lambda exc: "must match the size" in str(exc) and not vocab_met_batch(exc),
                _DECODE_SIZES_HINT,
            ),
            (
                f"Expected size {src.shape[0]} but got size 1 for tensor number 1",
                f"torch.cat along dim 1 met your (batch={src.shape[0]}, steps) tokens and a "
                "tensor with ONE row: the new tokens were appended as a row, next_token[None] "
                "or next_token.unsqueeze(0) (shape (1, batch)), or as a single (1, 1) token "
                "(the Annotated Transformer's batch-of-one torch.zeros(1, 1).fill_(next_word)). "
                "Append one column, one token per row: torch.cat([tokens, next_token[:, None]], "
                "dim=1), next_token[:, None] being (batch, 1).",
            ),
            (
                "is out of bounds for dimension 1 with size 1",
                "At the first step the decoder sees <bos> alone (one position): the next "
                "token is predicted by the last position, logits[:, -1] (another negative "
                "index runs off the front).",
            ),
        ],
    )
    recorder.remove()
    c.expect_true(
        not model.training,
        f"{call} left the model in training mode: use the model as it is given (eval mode); "
        "in training mode dropout makes every run different.",
    )
    after = model.state_dict()
    c.expect_true(
        all(torch.equal(after[k], v) for k, v in weights.items()),
        f"{call} changed the model's weights: decoding only reads the model.",
    )
    if isinstance(got, list | tuple):
        c.fail(
            f"{call} returned a {type(got).__name__}; return one int64 tensor (batch, n), e.g. "
            "the token tensor you built step by step with torch.cat, or torch.tensor(rows) "
            "after padding the rows to one length."
        )
    c.expect_type(got, torch.Tensor, call)
    if got.is_floating_point() or got.dtype == torch.bool:
        c.fail(f"{call} returned {got.dtype} values: token ids are integers, int64.")
    if got.dtype != torch.int64:
        c.fail(
            f"{call} returned {got.dtype}; token ids are int64 in PyTorch (torch.long): "
            "F.cross_entropy wants int64 labels and lesson 10 feeds these ids back into the "
            "model. Create the token tensor with dtype=torch.long."
        )
    c.ok()
    batch = src.shape[0]
    if got.dim() == 2 and got.shape[0] != batch and torch.equal(got.T, expected):
        c.fail(
            f"{call} returned shape {tuple(got.shape)}; expected (batch, n) = ({batch}, n). "
            "Your result is the expected one transposed: (steps, batch), as torch.stack(...) "
            "of the per-step (batch,) tokens gives with its default dim=0. Stack along dim=1 "
            "(or build the tokens by torch.cat along dim 1), so that each row is a sentence."
        )
    with_bos = torch.cat([torch.full((batch, 1), case.bos_id), expected], dim=1)
    if got.dim() == 2 and batch > 1 and torch.equal(got, with_bos[1:]):
        c.fail(
            f"{call} returned shape {tuple(got.shape)}; expected (batch, n) = ({batch}, n). "
            "Your result is every row but the first, each still starting with <bos>: "
            "tokens[1:] drops the first ROW (sentence 0), not the <bos> column. Drop the "
            "column: tokens[:, 1:]."
        )
    if got.dim() != 2 or got.shape[0] != batch:
        squeezed = (
            size_one_axes(tuple(got.shape), tuple(expected.shape))
            if size_one_axes_change(got, expected) == "lost"
            else ""
        )
        hint = (
            f" Your tokens are the expected ones. {squeezed.strip()} A batch of one sentence, "
            "or one that stops after one step, has an axis of length 1 that the result "
            "keeps: return tokens[:, 1:] as it is."
            if squeezed
            else " One row per sentence: did you decode a single sentence (the Annotated "
            "Transformer's greedy_decode does), or squeeze the batch away?"
            if got.dim() == 1
            else ""
        )
        c.fail(
            f"{call} returned shape {tuple(got.shape)}; expected (batch, n) = ({batch}, n).{hint}"
        )
    # (batch, steps) targets read in one call: the widest tells how many steps ran
    widest = max((e.shape[-1] for e in embedded if e.dim() == 2), default=0)
    mistakes = {
        message: (
            lambda knobs=knobs: greedy_decode_f(
                model, src, case.max_len, case.bos_id, case.eos_id, **knobs
            )
        )
        for knobs, message in [*GREEDY_MISTAKES, *off_by_one_mistakes(case.max_len, widest)]
    }
    apart = (
        set()
        if _same_tokens(got, expected)
        else _told_apart(greedy_decode, got, case, cases, alive)
    )
    mistakes = {
        m: f
        for m, f in mistakes.items()
        if m not in {message for _, message in GREEDY_MISTAKES} or not apart or m in apart
    }
    # the right tokens cut short: decided by the stop test's rows, told apart from a loop
    # one step short (which agrees where the last row to finish does so at max_len - 1)
    cut_short = (
        ""
        if _same_tokens(got, expected)
        else _stop_rule_hint(greedy_decode, model, src, case, got, expected)
    )
    if cut_short:
        short = off_by_one_mistakes(case.max_len, widest)[0][1]
        mistakes = {m: f for m, f in mistakes.items() if m != short}

    def hint() -> str:
        random = _random_decoding(greedy_decode, model, src, case, got)
        if random:
            return random
        overwritten = _overwritten_rows(embedded, got, case)
        if overwritten:
            return overwritten
        if cut_short:
            return cut_short
        first_step = _stops_after_first_step(greedy_decode, model, src, case, got, expected)
        if first_step:
            return first_step
        text = _greedy_hint(got, expected, case, model, src)
        # located, no cause; a finished row that goes on is not rows interfering (alone,
        # each sentence's loop simply stops at its own <eos>)
        located = text.startswith(("Replaying your steps: row", "Row "))
        named_by_replay = "At every decision where yours departs" in text
        if located and "had produced <eos> before step" not in text:
            interfere = _rows_interfere(c, greedy_decode, model, src, case, got, expected)
            if interfere.startswith("Your rows are the right ones in another order"):
                return interfere  # (a replay would compare each row with another sentence)
            if interfere:
                return interfere + text
        if located and not named_by_replay:  # nothing explains the tokens: the arguments
            source = _decode_source_argument(greedy_decode, case)
            if source:
                return source
        return text

    if not _same_tokens(got, expected):
        _expect_bos_start(c, embedded, case, call, src)
    c.expect_equal(got, expected, call, mistakes=mistakes, hint=hint)


def _stops_after_first_step(greedy_decode, model, src, case: _GreedyCase, got, expected) -> str:
    """The right first column alone, though no row produced <eos> at the first step: the
    loop's stop test holds at once. Two families give it: a test that holds whatever the
    rows (``if finished.all:`` without the call's parentheses, a bound method being always
    true; a break outside the if), and a finished test inverted (finished once the token
    is NOT eos_id). The same call with eos_id set to one row's first token (that row ends
    at once, a row with another first token goes on) tells them apart: an inverted test
    does not stop at the first step there (the ended rows stay open), a test that always
    holds does. "" when not decided."""
    if not (
        isinstance(got, torch.Tensor)
        and got.dim() == 2
        and got.shape[0] == expected.shape[0]
        and got.shape[1] == 1 < expected.shape[1]
        and torch.equal(got.long(), expected[:, :1])
        and not bool((expected[:, 0] == case.eos_id).any())
    ):
        return ""
    observed = (
        f"Your result holds the first token of each row only: it stops after the first step "
        f"of max_len = {case.max_len}, although no row had produced <eos> (eos_id="
        f"{case.eos_id}), and that first token is right."
    )
    always = (
        "Your loop's stop test holds whatever the rows: a condition that is always true, "
        "such as `if finished.all:` without the call's parentheses (a bound method is an "
        "object, always true; finished.all() is the call), or a break not inside the if. "
        "Write if finished.all(): break."
    )
    inverted = (
        "Your finished test is inverted: a row counts as finished once its new token is "
        "NOT eos_id. It is finished when the token equals eos_id: finished = finished | "
        "(next_token == eos_id)."
    )
    # the same sources with eos_id set to one row's first token: that row ends at once,
    # a row whose first token differs goes on
    firsts = expected[:, 0].tolist()
    ending = next(
        (t for t in firsts if t not in (case.pad_id, case.bos_id) and any(o != t for o in firsts)),
        None,
    )
    if ending is None:
        return f"{observed} Two mistakes give this: (1) {always} (2) {inverted}"
    try:
        with torch.no_grad(), contextlib.redirect_stdout(io.StringIO()):
            want = ref.greedy_decode(model, src, case.max_len, case.bos_id, ending)
            tokens = greedy_decode(model, src.clone(), case.max_len, case.bos_id, ending)
    except Exception:  # the learner's code raised on the probe, say: both stay named
        return f"{observed} Two mistakes give this: (1) {always} (2) {inverted}"
    if not isinstance(tokens, torch.Tensor) or tokens.dim() != 2 or want.shape[1] < 2:
        return f"{observed} Two mistakes give this: (1) {always} (2) {inverted}"
    ended = (
        f"the same call with eos_id={ending}, so that the rows whose first token is "
        f"{ending} end at once and the others go on"
    )
    if tokens.shape[1] == 1 and torch.equal(tokens.long(), want[:, :1]):
        return (
            f"{observed} On {ended}, yours stops after the first step too, although "
            f"some rows are still open. {always}"
        )
    if tokens.shape[1] > 1:
        return (
            f"{observed} On {ended}, yours goes on past the first step: the rows that "
            f"produced <eos> kept the loop open. {inverted}"
        )
    return f"{observed} Two mistakes give this: (1) {always} (2) {inverted}"


def _stop_rule_hint(greedy_decode, model, src, case: _GreedyCase, got, expected) -> str:
    """The right tokens cut short, before every row had finished: which rows decided the
    stop (one row's <eos>, or a count of finished rows), told apart by decoding the same
    sentences in another order (checking/stop_rules.py). Empty when not decided."""
    batch = src.shape[0]
    if not (
        isinstance(got, torch.Tensor)
        and got.dim() == 2
        and got.shape[0] == batch > 1
        and 0 < got.shape[1] < expected.shape[1]
        and torch.equal(got, expected[:, : got.shape[1]])
    ):
        return ""
    finish = finish_steps(expected, case.eos_id)  # one step (1-based) or None per row
    stopped = got.shape[1]
    seen: dict[tuple[int, ...], int] = {}

    def stop_on(rows: tuple[int, ...]) -> int:
        chosen = src[list(rows)]  # (len(rows), len_src): new row j is old row rows[j]
        with contextlib.redirect_stdout(io.StringIO()):
            tokens = greedy_decode(model, chosen, case.max_len, case.bos_id, case.eos_id)
        # the reference decodes each row apart: its tokens for these rows, up to the step
        # at which they have all finished
        ends = [finish[i] or case.max_len for i in rows]
        want = expected[list(rows), : max(ends)]  # (len(rows), n)
        if not (
            isinstance(tokens, torch.Tensor)
            and tokens.dim() == 2
            and tokens.shape[0] == len(rows)
            and tokens.shape[1] <= want.shape[1]
            and torch.equal(tokens.to(want.dtype), want[:, : tokens.shape[1]])
        ):
            raise ValueError("not the right tokens cut short")
        seen[rows] = tokens.shape[1]
        return tokens.shape[1]

    try:
        rules, rows = stop_rules_explaining(finish, case.max_len, stopped, stop_on)
    except Exception:  # the learner's code raised on another batch, say
        return ""
    if rows is None or not rules or rules == [StopRule("one_step_short")]:
        return ""
    open_rows = [r for r in range(batch) if finish[r] is None or finish[r] > stopped]
    at_stop = [r for r in range(batch) if finish[r] == stopped]
    finished_then = (
        f" (row(s) {', '.join(map(str, at_stop))} did at step {stopped})" if at_stop else ""
    )
    observed = (
        f"Your result stops after {stopped} steps, although row {open_rows[0]} had not "
        f"produced <eos>{finished_then}; every token so far is right. Decoding the sentences "
        f"of src_ids rows {list(rows)}, in that order, as a batch of their own, yours stopped "
        f"after {seen[rows]} steps"
    )
    fix = (
        " The loop must go on until EVERY row has finished (if finished.all(): break, after "
        "the step's column is appended), or max_len steps."
    )
    if len(rules) == 1:
        return (
            f"{observed}. Of the stop tests that cut the rows short, one gives both stops: "
            f"{stop_rule_text(rules[0], batch)}.{fix}"
        )
    listed = " ".join(f"({i}) {stop_rule_text(rule, batch)}." for i, rule in enumerate(rules, 1))
    return f"{observed}. Each of these stop tests gives both stops: {listed}{fix}"


def _expect_bos_start(
    c: Checker, embedded: list[torch.Tensor], case: _GreedyCase, call: str, src: torch.Tensor
):
    """The first target the decoder read (recorded at model.tgt_embedding) starts with
    <bos> in every row; a start column holding another id (eos_id, pad_id, torch.zeros'
    0) is named with what it held."""
    if not embedded or embedded[0].dim() != 2 or embedded[0].is_floating_point():
        return
    start = embedded[0][:, 0]  # (batch,)
    if bool((start == case.bos_id).all()):
        return
    held = sorted(set(start.tolist()))
    names = {0: "0 (torch.zeros)", case.pad_id: "model.pad_id", case.eos_id: "eos_id"}
    if len(held) == 1:
        what = names.get(held[0], f"id {held[0]}")
        ids = f"its first column holds {held[0]} in every row"
    else:
        what = f"ids {held}"
        ids = "its first column holds them"
    masked = " (a <pad> first token is masked out as padding, too)" if case.pad_id in held else ""
    if len(held) > 1 and start.shape == src[:, 0].shape and torch.equal(start, src[:, 0]):
        masked += (
            ": they are the source's first column, src_ids[:, :1], as if every source began "
            "with <bos> (these do not; and the target's start token is bos_id, whatever the "
            "source holds)"
        )
    c.fail(
        f"{call}: your decoder input starts with {what}, not <bos>: {ids} where bos_id = "
        f"{case.bos_id} belongs{masked}. Every target starts with <bos>, so the first "
        "prediction is conditioned on the wrong start token: torch.full((batch, 1), "
        "bos_id, dtype=torch.long)."
    )


def _overwritten_rows(embedded: list[torch.Tensor], got, case: _GreedyCase) -> str:
    """A message when the learner's own loop fed the decoder tokens (up to and including a
    row's first <eos>) that the returned tensor holds as pad_id: generated, then erased
    (a whole finished row padded, for example); "" otherwise. ``embedded``: the target ids
    of every decode call, in order."""
    for feed in embedded:
        if feed.dim() != 2 or feed.shape[0] != got.shape[0] or feed.shape[1] < 2:
            continue
        if not bool((feed[:, 0] == case.bos_id).all()):
            continue
        for r in range(feed.shape[0]):
            fed = feed[r, 1:].tolist()
            if case.eos_id in fed:
                fed = fed[: fed.index(case.eos_id) + 1]
            mine = got[r, : len(fed)].tolist()
            if len(mine) < len(fed) or fed == mine or case.pad_id in fed:
                continue
            erased = [j for j, (a, b) in enumerate(zip(fed, mine)) if a != b]
            if all(mine[j] == case.pad_id for j in erased):
                return (
                    f"Row {r}: your loop fed the decoder {fed} after <bos> (what it had "
                    f"generated by then), but the row you return holds pad_id "
                    f"({case.pad_id}) at position(s) {erased}: tokens were overwritten after "
                    "they were generated, as padding a finished row as a whole does "
                    "(tokens[finished] = pad_id). Pad only the new token of a finished "
                    "row: next_token.masked_fill(finished, pad_id), before appending it."
                )
    return ""


def _random_decoding(greedy_decode, model, src, case: _GreedyCase, got) -> str:
    """A message when two more calls on the same inputs, from other random states, give
    other tokens: the decoding draws at random (the model is in eval mode, as checked
    before, so not through dropout); "" otherwise."""
    for seed in (1, 2):
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            try:
                with torch.no_grad():
                    again = greedy_decode(
                        model, src.clone(), case.max_len, case.bos_id, case.eos_id
                    )
            except Exception:
                return ""
        if not isinstance(again, torch.Tensor):
            return ""
        if again.shape != got.shape or not torch.equal(again, got):
            return (
                "Two more calls on the same inputs gave other tokens: your decoding draws at "
                "random, and the model is in eval mode (no dropout), so the draw is yours: "
                "sampling the next token (torch.multinomial on the softmax, "
                "torch.distributions.Categorical) instead of taking the most probable one. "
                "Greedy decoding is deterministic: logits[:, -1].argmax(dim=-1)."
            )
    return ""


def _stripped(row: list[int], pad_id: int) -> list[int]:
    end = len(row)
    while end and row[end - 1] == pad_id:
        end -= 1
    return row[:end]


def _rows_interfere(c: Checker, greedy_decode, model, src, case: _GreedyCase, got, expected):
    """When every sentence decoded on its own (src[i : i + 1]) gets its right tokens while
    the batch's rows hold other tokens (not only other padding): the rows interfere."""
    batch = src.shape[0]
    pad = case.pad_id
    mine = [_stripped(row, pad) for row in got.tolist()]
    right = [_stripped(row, pad) for row in expected.tolist()]
    if batch < 2 or mine == right:
        return ""
    order = reordered_rows(mine, right, operator.eq)
    if order is not None:  # each row another sentence's translation: the batch reordered
        return reordered_rows_sentence(order)
    for i in range(batch):
        try:
            alone = c.call(
                greedy_decode, model, src[i : i + 1], case.max_len, case.bos_id, case.eos_id
            )
        except CheckFailure:
            return ""
        if not isinstance(alone, torch.Tensor) or alone.dim() != 2 or alone.shape[0] != 1:
            return ""
        if _stripped(alone[0].tolist(), pad) != right[i]:
            return ""
    return (
        f"Decoded one at a time (src_ids[i : i + 1]), each of these {batch} sentences gets its "
        f"right tokens from your greedy_decode; in the batch of {batch} they do not, so the "
        "rows interfere: a decision or a state meant for one row is shared by the batch (one "
        "row's argmax used for all, a single finished flag, a break when any row ends). Each "
        "row needs its own next token, logits[:, -1].argmax(dim=-1), and its own finished "
        "flag; stop when finished.all(). "
    )


_REPLAY_RULES = {
    "start": (
        "Your decoder input starts with model.pad_id, not <bos>: every target starts with "
        "bos_id (torch.full((batch, 1), bos_id)); a <pad> first token is masked out as "
        "padding."
    ),
    "softmax_positions": (
        "Your softmax runs over the positions (dim=1) before the argmax: the probabilities of "
        "the next token are a softmax over the vocabulary (dim=-1) of the last position's "
        "logits, logits[:, -1] (and the argmax of the logits alone gives the same token)."
    ),
    "softmax_batch": (
        "Your softmax runs over the batch (dim=0 of the last position's (batch, vocab) "
        "logits) before the argmax: each token's scores are normalised across the sentences "
        "instead of each sentence's across the vocabulary, so the chosen tokens depend on "
        "the other rows (with one sentence every probability is 1 and the argmax is token "
        "0). The next token is logits[:, -1].argmax(dim=-1) (a softmax, if any, over dim=-1)."
    ),
    "positions": (
        "Your argmax ran over the positions (dim=1) instead of the vocabulary: the next token "
        "is logits[:, -1].argmax(dim=-1)."
    ),
    "first": (
        "You took the FIRST position's logits at every step: the next token is predicted by "
        "the LAST position of the prefix, logits[:, -1]."
    ),
    "row_0": (
        "Every row gets row 0's next token: either one decision, row 0's argmax (next_token[0] "
        "or .item(), as in the Annotated Transformer's greedy_decode, which decodes one "
        "sentence), was used for the whole batch, or every row was decoded from the first "
        "sentence (its memory or its src_ids given to all rows); both give these tokens. Each "
        "row has its own source and its own next token: model.decode(tokens, memory, src_ids) "
        "with the whole batch's memory and src_ids, then logits[:, -1].argmax(dim=-1), a "
        "(batch,) tensor."
    ),
    "pooled": (
        "Your next token is the argmax of the logits pooled over the positions (their mean or "
        "sum over dim=1, logits.mean(1)): every position of the prefix votes, where only the "
        "LAST position predicts the next token: logits[:, -1].argmax(dim=-1)."
    ),
    "pooled_max": (
        "Your next token is the argmax of the logits' maximum over the positions "
        "(logits.max(dim=1).values): the best score any position of the prefix gives, where "
        "only the LAST position predicts the next token: logits[:, -1].argmax(dim=-1)."
    ),
    "buffer_last": (
        "Your decoder runs on a whole preallocated buffer of max_len + 1 columns (<bos>, "
        "the tokens so far, then pad ids) and you take logits[:, -1], the buffer's LAST "
        "slot, a padded position, at every step: the next token is predicted at the "
        "position of the newest token, logits[:, step] for a buffer (or run the decoder on "
        "the tokens so far alone, tokens[:, : step + 1], and take logits[:, -1])."
    ),
    "squeezed": (
        "Your logits lost a size-1 axis before the argmax: squeeze() drops EVERY axis of size "
        "1, and at the first step the prefix is <bos> alone (len 1), so "
        "model.decode(...).squeeze() is (batch, vocab) there (and for a batch of one the "
        "batch axis goes too at every step), after which logits[:, -1] picks the last "
        "vocabulary entry of every row instead of the last position. Keep the logits "
        "(batch, len, vocab), no squeeze: the next token is logits[:, -1].argmax(dim=-1)."
    ),
}
#: rules that share another rule's message (the same mistake written another way)
_REPLAY_ALIASES = {"squeezed_1": "squeezed", "squeezed_0": "squeezed"}


def _buffer_last_rule(model, prefix, memory, src, case) -> torch.Tensor | None:
    """The argmax at the last slot of a (batch, max_len + 1) buffer holding the prefix
    (batch, len) and pad ids after it (the family 'the logits read at the wrong
    position'); None when the prefix fills the buffer (then the last slot is right)."""
    batch, length = prefix.shape
    if length >= case.max_len + 1:
        return None
    buffer = torch.full((batch, case.max_len + 1), case.pad_id, dtype=torch.long)
    buffer[:, :length] = prefix  # (batch, max_len + 1)
    return model.decode(buffer, memory, src)[:, -1].argmax(-1)


def _squeezed_rule(logits: torch.Tensor, batch: int, dim: int | None) -> torch.Tensor | None:
    """The reference's decision taken on ``logits.squeeze()`` (or ``squeeze(dim)``): the
    next token of every row, or None where that view admits no decision of shape (batch,)."""
    view = logits.squeeze() if dim is None else logits.squeeze(dim)
    try:
        decided = view[:, -1].argmax(-1)
        return decided.expand(batch) if decided.dim() == 0 else decided.reshape(batch)
    except (IndexError, RuntimeError):
        return None


def _forced_at_limit(departures: list, open_at: dict, case: _GreedyCase) -> str:
    """A token the model never chose, written at the length limit: every decision that
    departs from the argmax (replayed from the learner's own prefix) falls on the last step
    max_len allows, every row still open there departs, and all write <eos> (Hugging Face's
    forced_eos_token_id: blind29b-gd-forced-eos-at-max-len was told only "the argmax is 4,
    yours is 2"). A single <eos> elsewhere says nothing of the kind (logits changed by a
    wrong mask give one too): "" then."""
    last = case.max_len - 1
    if not departures or {step for step, *_ in departures} != {last}:
        return ""
    if {yours for _, _, yours, _ in departures} != {case.eos_id}:
        return ""
    rows = sorted(row for _, row, *_ in departures)
    if set(rows) != open_at.get(last, set()):
        return ""
    _, row, _, right = departures[0]
    shown = ", ".join(map(str, rows))
    return (
        f"Replaying your steps: every decision of yours is the model's argmax except at the "
        f"last step max_len={case.max_len} allows (step {case.max_len}): there every row still "
        f"open (row(s) {shown}) gets <eos> ({case.eos_id}); row {row}'s argmax, from the tokens "
        f"your function had produced so far (<bos> first), is {right}. Yours forces <eos> when "
        "the length limit is reached (as Hugging Face's forced_eos_token_id does), an <eos> "
        "the model never chose. The contract appends the argmax at every step: a translation "
        "cut by max_len simply ends without <eos>, its last token the model's own."
    )


def _greedy_replay(model, src: torch.Tensor, got: torch.Tensor, case: _GreedyCase) -> str:
    """Replay the learner's decisions: at each step, the prefix the learner's function had
    built (<bos> + its own tokens so far) through the reference's rule. A known wrong rule
    is named when it reproduces EVERY decision of every row; otherwise the first decision
    that departs, and what the reference decides from the same prefix."""
    pad, bos, eos = case.pad_id, case.bos_id, case.eos_id
    batch, steps = got.shape
    with torch.no_grad():
        memory = model.encode(src)
        prefix = torch.full((batch, 1), bos, dtype=torch.long)
        finished = torch.zeros(batch, dtype=torch.bool)
        names = [*_REPLAY_RULES, *_REPLAY_ALIASES]
        agrees = dict.fromkeys(names, True)
        # a rule explains nothing where it decides as the reference does at every step
        # replayed (one step from <bos> alone: the first position IS the last)
        departs = dict.fromkeys(names, False)
        first = None  # (step, row, yours, reference's)
        first_finish = None  # the step at which a row first produced <eos>
        departures = []  # (step, row, yours, reference's) of every open row's departing decision
        open_at = {}  # step -> the rows still open at that step
        passed_over = []  # (tokens ranked above yours, tokens the row had generated)
        penalised_agrees = True  # every decision is the argmax after CTRL's penalty
        ranks = []  # for each decision of an open row: how many tokens score above yours
        for step in range(steps):
            logits = model.decode(prefix, memory, src)  # (batch, len, vocab)
            last = logits[:, -1]  # (batch, vocab)
            penalised = _repetition_penalised(last, prefix[:, 1:])  # (batch, vocab)
            for row in range(batch):
                if bool(finished[row]) or not 0 <= int(got[row, step]) < last.shape[-1]:
                    continue
                yours = int(got[row, step])
                penalised_agrees &= int(penalised[row].argmax()) == yours
                above = {int(t) for t in (last[row] > last[row, yours]).nonzero()[:, 0]}
                ranks.append((len(above), yours))
                if above:
                    passed_over.append((above, {int(t) for t in prefix[row, 1:]}))
            padded = torch.cat([torch.full((batch, 1), pad, dtype=torch.long), prefix[:, 1:]], 1)
            rules = {
                "right": logits[:, -1].argmax(-1),
                "start": model.decode(padded, memory, src)[:, -1].argmax(-1),
                "softmax_positions": torch.softmax(logits, dim=1)[:, -1].argmax(-1),
                "softmax_batch": torch.softmax(logits[:, -1], dim=0).argmax(-1),
                "positions": logits.argmax(dim=1)[:, -1],
                "first": logits[:, 0].argmax(-1),
                "pooled": logits.mean(dim=1).argmax(-1),
                "pooled_max": logits.amax(dim=1).argmax(-1),
                "row_0": logits[0, -1].argmax(-1).expand(batch),
                "squeezed": _squeezed_rule(logits, batch, None),
                "buffer_last": _buffer_last_rule(model, prefix, memory, src, case),
                "squeezed_1": _squeezed_rule(logits, batch, 1),
                "squeezed_0": _squeezed_rule(logits, batch, 0),
            }
            mine = got[:, step]
            right = rules["right"].masked_fill(finished, pad)
            for name in names:
                if rules[name] is None:
                    agrees[name] = False
                    continue
                decided = rules[name].masked_fill(finished, pad)
                if not torch.equal(decided, mine):
                    agrees[name] = False
                if not torch.equal(decided, right):
                    departs[name] = True
            if first is None and not torch.equal(right, mine):
                row = int((right != mine).nonzero()[0])
                first = (step, row, int(mine[row]), int(right[row]), bool(finished[row]))
            for row in (right != mine).nonzero()[:, 0].tolist():
                if not bool(finished[row]):
                    departures.append((step, row, int(mine[row]), int(right[row])))
            open_at[step] = {r for r in range(batch) if not bool(finished[r])}
            prefix = torch.cat([prefix, mine[:, None]], dim=1)
            finished = finished | (mine == eos)
            if first_finish is None and bool(finished.any()):
                first_finish = step + 1
        # what the reference decides next from your whole prefix: <eos> for every open row
        # means your loop broke at the step that finished the batch, before its column
        final = model.decode(prefix, memory, src)[:, -1]  # (batch, vocab)
        closes = bool((final.argmax(-1) == eos)[~finished].all())
        vocab = final.shape[-1]
    found = list(
        dict.fromkeys(
            _REPLAY_RULES[_REPLAY_ALIASES.get(name, name)]
            for name, ok in agrees.items()
            if ok and departs[name]
        )
    )
    if len(found) == 1:
        return found[0]
    if found:
        return "Replaying your steps, each of these gives every one of your tokens: " + " ".join(
            f"({i}) {m}" for i, m in enumerate(found, 1)
        )
    if unchosen := _forced_at_limit(departures, open_at, case):
        return unchosen
    ranked = _one_rank(ranks, vocab)
    if first is not None and ranked:
        return ranked
    passed = _passed_over(passed_over, penalised_agrees, case)
    if first is not None and passed:
        step, row, mine_, right_, _done = first
        return (
            f"Replaying your steps: row {row}'s decision at step {step + 1} is the first that "
            f"departs: from the tokens your function had produced so far (<bos> first), the "
            f"argmax of logits[:, -1] is {right_}, yours is {mine_}. {passed}"
        )
    if first is not None:
        step, row, mine_, right_, done = first
        if done:
            return (
                f"Row {row} had produced <eos> before step {step + 1}, but yours then gives "
                f"{mine_}: its finished flag was lost (False again) after its <eos>. A "
                f"finished row gets model.pad_id ({pad}) from then on, at every "
                "later step. Keep one finished flag per row that stays True once set "
                "(finished = finished | (next_token == eos_id)): a flag computed afresh at "
                "each step, from the new token or the last one, forgets the rows that "
                "finished earlier."
            )
        if mine_ == pad:
            inverted = (
                " Yours pads every row from the first step on, though none has produced "
                "<eos>: unfinished rows get pad_id. Either the padding's condition is "
                "inverted (the two branches of torch.where(finished, pad_id, next_token) "
                "swapped, or masked_fill(~finished, pad_id)), or the finished flags start "
                "True (torch.ones where torch.zeros belongs); either way no row ever "
                "produces <eos>."
                if step == 0 and bool((prefix[:, 1:] == pad).all()) and pad != eos
                else ""
            )
            return (
                f"Row {row} has not produced <eos>, but at step {step + 1} yours gives it "
                f"pad_id ({pad}); from the same prefix the reference decides {right_}. Only a "
                f"row that has produced <eos> is padded.{inverted}"
            )
        return (
            f"Replaying your steps: row {row}'s decision at step {step + 1} is the first that "
            f"departs: from the tokens your function had produced so far (<bos> first), the "
            f"argmax of logits[:, -1] is {right_}, yours is {mine_}."
        )
    open_rows = [r for r in range(batch) if not bool(finished[r])]
    if steps < case.max_len and open_rows and closes and first_finish == steps:
        return (
            f"Your result stops after {steps} steps, although row {open_rows[0]} had not "
            f"produced <eos>; every token so far is right. On these inputs two mistakes give "
            f"exactly this: (1) the loop stops when ANY row has finished (the first one did "
            f"at step {steps}), or (2) it breaks before appending the step that finishes the "
            f"batch (at step {steps + 1} the open rows write <eos>). Append the new column "
            "first, then update finished, then break only if finished.all()."
        )
    if steps < case.max_len and open_rows and closes:
        rows = ", ".join(map(str, open_rows))
        return (
            f"Your result is one column short: every token so far is right, and at the next "
            f"step, {steps + 1}, row(s) {rows} write their <eos>, which finishes the batch, but "
            "that step's column is missing. Your loop broke before appending the step's "
            "tokens: append the new column first (torch.cat), then update finished, then "
            "break if finished.all()."
        )
    if steps < case.max_len and open_rows and first_finish == steps:
        return (
            f"Your result stops after {steps} steps, when some rows had produced <eos>, "
            f"although row {open_rows[0]} had not: stop only when every row has finished "
            "(if finished.all(): break), or after max_len steps."
        )
    if steps < case.max_len and open_rows and bool(finished.any()):
        return (
            f"Your result stops after {steps} steps, although row {open_rows[0]} had not "
            f"produced <eos> (the earliest row to finish did so at step {first_finish}, so "
            "the stop did not come with the first <eos> either): every token so far is "
            "right; the loop must go on until every row has finished (if finished.all(): "
            "break), or max_len steps."
        )
    if steps < case.max_len and open_rows:
        return (
            f"Your result stops after {steps} step(s) of max_len = {case.max_len}, although "
            f"no row had produced <eos> (eos_id={eos}): every token so far is right, so the "
            "loop took its rows for finished without their <eos>. Either the finished test "
            "is inverted (a row is finished once its new token equals eos_id: finished = "
            "finished | (next_token == eos_id), not !=), or the break condition is (break "
            "only when finished.all())."
        )
    return ""


def _one_rank(ranks: list[tuple[int, int]], vocab: int) -> str:
    """When every decision of the replay (at least two, of at least two different tokens)
    picked the token of one same rank other than the first, in the
    order of the logits from the learner's own prefix (the second best at every step:
    topk(2).indices[:, 1], a sort in the wrong direction, argmin): that rank, said; ""
    otherwise. ``ranks``: (how many tokens score above yours, yours) per decision. The family
    'the decision taken on the wrong end of the ordering', read off the decisions, whatever
    code made them; one token written everywhere (pad ids in open rows) has causes of its
    own and is left to them."""
    places = {rank for rank, _ in ranks}
    tokens = {token for _, token in ranks}
    if len(ranks) < 2 or len(places) != 1 or len(tokens) < 2:
        return ""
    rank = places.pop()
    if rank == 0:
        return ""
    if rank == vocab - 1:
        which = (
            "the LEAST probable token (the lowest logit): an argmin, a sort in ascending "
            "order read from its first entry, or the argmax of the negated logits"
        )
    else:
        which = (
            f"the token ranked {rank + 1} of {vocab} by its logit ({rank} token(s) score "
            "higher): an index into topk or a descending sort other than [0] (topk(2).indices"
            "[:, 1] gives the second best), or the sort's order read from the wrong end"
        )
    return (
        "Replaying your steps from your own prefix (<bos> and your tokens so far), at every "
        f"decision yours is {which}. Greedy decoding takes the MOST probable token: "
        "logits[:, -1].argmax(dim=-1)."
    )


def _repetition_penalised(last: torch.Tensor, generated: torch.Tensor) -> torch.Tensor:
    """CTRL's repetition penalty (1.2) applied to the logits ``last`` (batch, vocab) of the
    tokens each row has ``generated`` (batch, steps): a positive logit divided by 1.2, a
    negative one multiplied."""
    if generated.shape[1] == 0:
        return last
    seen = last.gather(1, generated)  # (batch, steps)
    seen = torch.where(seen > 0, seen / 1.2, seen * 1.2)
    return last.scatter(1, generated, seen)


def _passed_over(passed_over: list, penalised_agrees: bool, case) -> str:
    """The family 'the logits changed before the argmax', told from the tokens ranked above
    each of the learner's departing decisions: when every such token is <pad> or <bos>, or
    every one is a token the row had already generated, the logits of those tokens were
    lowered (suppressed, or a repetition penalty); "" when neither holds for every
    departing decision."""
    if not passed_over:
        return ""
    special = {case.pad_id, case.bos_id}
    if all(above <= special for above, _ in passed_over):
        return (
            "At every decision where yours departs, the only tokens ranked above yours are "
            f"<pad> ({case.pad_id}) or <bos> ({case.bos_id}): your argmax leaves them out "
            "(their logits set to -inf, or suppressed like generation libraries' "
            "suppress_tokens), so the row gets its second-best token. Greedy decoding takes "
            "the argmax over the whole vocabulary, logits[:, -1].argmax(dim=-1), whatever "
            "token wins: do not change the logits."
        )
    # one departure can pass over a repeated token by chance: two, or CTRL's exact rule
    repeated = penalised_agrees or len(passed_over) >= 2
    if repeated and all(above <= generated for above, generated in passed_over):
        how = (
            "your decisions are exactly the argmax after CTRL's repetition penalty of 1.2 "
            "(the logit of every token already generated divided by 1.2 when positive, "
            "multiplied when negative)"
            if penalised_agrees
            else "a repetition penalty, or a ban on repeated tokens"
        )
        return (
            "At every decision where yours departs, the only tokens ranked above yours are "
            f"tokens the row had already generated: the logits of previously generated "
            f"tokens are lowered before your argmax ({how}). Greedy decoding takes the "
            "argmax of the model's logits as they are, logits[:, -1].argmax(dim=-1): no "
            "penalty."
        )
    return ""


def _decode_source_argument(greedy_decode, case: _GreedyCase) -> str:
    """What the learner's greedy_decode hands model.decode as its third argument, on a fresh
    model of the case (its decode wrapped to record it): decode takes the source ids, from
    which it builds the cross-attention's padding mask itself. Named when it is not
    src_ids: a bool mask (src_ids != pad_id), which decode compares with pad_id again and
    which is right only when pad_id is 0, or the generated tokens; "" otherwise."""
    model = case.model()
    src = case.src()  # (batch, len_src)
    received = argument_received(
        model,
        "decode",
        2,
        lambda: greedy_decode(model, src.clone(), case.max_len, case.bos_id, case.eos_id),
        "src_ids",
    )
    if received is None:
        return ""
    given = next((a for a in received if isinstance(a, torch.Tensor)), None)
    if given is None or (given.shape == src.shape and torch.equal(given.long(), src)):
        return ""
    if given.dtype == torch.bool and given.shape == src.shape:
        mask = "src_ids != pad_id" if torch.equal(given, src != case.pad_id) else "a bool mask"
        return (
            f"Your function hands model.decode a bool mask ({mask}, {tuple(given.shape)}) "
            "where decode takes the source ids: decode(tgt_ids, memory, src_ids) builds the "
            "cross-attention's padding mask itself, comparing src_ids with model.pad_id, so "
            f"your mask is compared with pad_id={case.pad_id} again (right only by chance "
            "when pad_id is 0). Pass src_ids as it is: model.decode(tokens, memory, src_ids)."
        )
    return (
        f"Your function hands model.decode a third argument of shape {tuple(given.shape)} "
        f"and dtype {given.dtype} that is not src_ids {tuple(src.shape)}: decode(tgt_ids, "
        "memory, src_ids) takes the source ids, from which it builds the cross-attention's "
        "padding mask. Pass src_ids as it is."
    )


def _bos_then_right(got: torch.Tensor, expected: torch.Tensor) -> bool:
    """Whether the tokens after a first column agree with the reference's as far as both
    go: only then is a first column equal to <bos> the <bos> kept (a wrong first decision
    can equal bos_id by chance)."""
    rest = got[:, 1:]
    width = min(rest.shape[1], expected.shape[1])
    return rest.shape[0] == expected.shape[0] and torch.equal(rest[:, :width], expected[:, :width])


def _greedy_hint(
    got: torch.Tensor, expected: torch.Tensor, case: _GreedyCase, model=None, src=None
) -> str:
    """Explain a wrong result that no known mistake gives."""
    if got.shape[1] > case.max_len:
        width = f"The result has {got.shape[1]} columns: at most max_len = {case.max_len}."
        rows = got.shape[0]
        steps = got.shape[1] // rows if rows > 1 else 0
        if steps and got.shape[1] == steps * rows and steps <= case.max_len:
            blocks = got.reshape(rows, steps, rows)  # (batch, step, batch): one block a step
            # each block row: the row's token, and pad_id where a finished flag masked it
            token = blocks.masked_fill(blocks == case.pad_id, -1).amax(dim=-1, keepdim=True)
            if bool(((blocks == token) | (blocks == case.pad_id)).all()):
                return (
                    f"{width} It is {steps} steps of {rows} columns each, the batch size, "
                    "every block one row's token repeated (or pad_id): each step appended a (batch, "
                    "batch) tensor. That is what a next token kept as (batch, 1) (argmax "
                    "with keepdim=True) gives once it meets a (batch,) tensor, the finished "
                    "flags in masked_fill or torch.where, say: they broadcast to (batch, "
                    "batch). Take argmax(dim=-1) without keepdim, next_token (batch,), and "
                    "append next_token[:, None]."
                )
        if got.shape[1] == case.max_len + 1 and bool((got[:, 0] == case.bos_id).all()):
            rest = got[:, 1:]
            if rest.shape[1] >= expected.shape[1] and torch.equal(
                rest[:, : expected.shape[1]], expected
            ):
                return f"{width} Your rows start with <bos>: leave it out (tokens[:, 1:])."
            return (
                f"{width} Your rows start with <bos>, and the tokens after it differ too: "
                "does your target start with one more <bos> than needed (torch.full((batch, "
                "2), bos_id))? It starts with one <bos> column, torch.full((batch, 1), "
                "bos_id), and the result leaves it out."
            )
        return width
    if (got[:, 0] == case.bos_id).all() and _bos_then_right(got, expected):
        return "Your rows start with <bos>: leave it out of the result."
    if model is not None:
        try:
            replay = _greedy_replay(model, src, got, case)
        except Exception:  # ids out of the vocabulary, say: no replay
            replay = ""
        if replay:
            return replay
    for row, (mine, right) in enumerate(zip(got.tolist(), expected.tolist(), strict=True)):
        if case.eos_id in mine:
            after = mine[mine.index(case.eos_id) + 1 :]
            if any(token != case.pad_id for token in after):
                return (
                    f"Row {row} goes on after its <eos> with {after}: every token after <eos> "
                    f"must be model.pad_id ({case.pad_id})."
                )
        for step, (a, b) in enumerate(zip(mine, right, strict=False)):
            if a != b:
                return (
                    f"Row {row} first differs at step {step + 1}: {a} instead of {b}. Each step "
                    "feeds every token so far (<bos> first) to model.decode(tokens, memory, "
                    "src_ids) and appends the argmax of logits[:, -1] over the vocabulary."
                )
    late = ""
    if (
        got.dim() == 2
        and got.shape[1] == expected.shape[1] + 1
        and bool((got[:, -1] == case.pad_id).all())
        and expected.shape[1] < case.max_len
    ):
        late = (
            " Your extra column is all pad_id: every row had produced <eos> a step before, "
            "so the stop test saw it one step late. The finished flags are updated from the "
            "column already written (tokens[:, -1] == eos_id, before the new token is "
            "appended), or the all-finished test runs before the update: update finished "
            "from the new token (finished = finished | (next_token == eos_id)), then stop "
            "if finished.all()."
        )
    return (
        f"The rows agree as far as they go, but the result has {got.shape[1]} columns and the "
        f"reference {expected.shape[1]}: stop after max_len steps, or as soon as every row has "
        f"produced <eos>.{late}"
    )


_DECODE_CALL = re.compile(r"\.decode\(\s*([A-Za-z_]\w*)\s*,\s*([A-Za-z_]\w*)\s*[,)]")


def _decode_arguments_hint(exc: BaseException) -> str:
    """model.decode(tokens, memory, src_ids) called with its first two arguments in each
    other's places, told from the failing line's call and the tensors its names hold in the
    learner's frame: a float (batch, len, d_model) tensor first and int64 ids second
    (blind19f-gd-decode-memory-and-tokens-swapped got the sizes hint alone); "" otherwise
    (or where the frame cannot be read, as in the sandboxed grader)."""
    from transformer_course.checking.failure import innermost_learner_traceback, learner_lines

    found = _DECODE_CALL.search(learner_lines(exc))
    innermost = innermost_learner_traceback(exc)
    if found is None or innermost is None:
        return ""
    first, second = (innermost.tb_frame.f_locals.get(name) for name in found.groups())
    if not (torch.is_tensor(first) and torch.is_tensor(second)):
        return ""
    if first.is_floating_point() and first.dim() == 3 and not second.is_floating_point():
        return (
            f"Your call model.decode({found[1]}, {found[2]}, ...) hands decode `{found[1]}`, "
            f"a float tensor of shape {tuple(first.shape)} (the encoder's output, memory), "
            f"as its first argument and `{found[2]}`, int64 ids of shape "
            f"{tuple(second.shape)}, as its second: memory and the tokens are swapped. "
            "decode takes the target ids first: model.decode(tokens, memory, src_ids)."
        )
    return ""


def _one_sentence_logits_hint(exc: BaseException) -> str:
    """A next token with one entry per position instead of one per row: the argmax of one
    sentence's (steps, vocab) logits, logits[-1] (the batch's last sentence) or
    logits[0], where logits[:, -1] (every sentence's last position) belongs. Told from the
    failing frame: a float (batch, steps, vocab) tensor and an int64 (steps,) one, with
    steps != batch (blind12h-gd-logits-last-row-of-batch got the sizes hint alone)."""
    from transformer_course.checking.failure import innermost_learner_traceback

    innermost = innermost_learner_traceback(exc)
    if innermost is None:
        return ""
    tensors = {k: v for k, v in innermost.tb_frame.f_locals.items() if torch.is_tensor(v)}
    scores = [(k, v) for k, v in tensors.items() if v.is_floating_point() and v.dim() == 3]
    for name, logits in scores:
        batch, steps, _vocab = (int(n) for n in logits.shape)
        if batch == steps:
            continue
        for token_name, tokens in tensors.items():
            if tokens.dim() == 1 and not tokens.is_floating_point() and len(tokens) == steps:
                return (
                    f"`{token_name}` has {steps} entries, one per position of the {steps} so "
                    f"far, where one per row (batch = {batch}) belongs: it is the argmax of "
                    f"one sentence's (steps, vocab) logits, such as {name}[-1] (the LAST "
                    f"SENTENCE of the batch, not the last position) or {name}[0]. The next "
                    f"token of every row is {name}[:, -1].argmax(dim=-1): the last position "
                    "of each sentence, shape (batch,)."
                )
    return ""
