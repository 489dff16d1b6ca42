"""Diagnosing a composite module (a layer, a stack, a whole model) of lessons 07-11.

Two steps, used by the checks of EncoderLayer/Encoder, DecoderLayer/Decoder, the
Transformer and DecoderBlock/GPT:

1. :func:`matching_mistakes`: the learner's output against every structural single-step
   deviation the oracle enumerates ({message: value}); a cause is named only when it is
   the one that matches, and when several match on the inputs the check ran, all of them
   are named.
2. When none matches, :func:`localise_layer` and :func:`localise_stack` run the learner's
   module once more with forward hooks on its submodules (hooks only observe: the
   learner's code is only called) and say which sub-result first departs from what the
   reference computes at the same place: a sub-layer's output not added back to its input,
   a layer fed the stack's input instead of the previous layer's output, a final norm
   missing or extra.
"""

from __future__ import annotations

import inspect
import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import torch
from torch import nn

from transformer_course.checking.formatting import candidates_message
from transformer_course.checking.hooks import inputs_received
from transformer_course.checking.mask_copies import mask_copies
from transformer_course.checking.mask_relations import mask_relation
from transformer_course.checking.position_terms import position_term_note
from transformer_course.checking.rearranged import rearrangement
from transformer_course.checking.relations import recognisable_number
from transformer_course.checking.row_shifts import row_shift_note
from transformer_course.checking.sublayer_names import sublayer_words

__all__ = [
    "agreeing_mistakes",
    "called_submodules",
    "candidates_message",
    "diagnose",
    "localise_layer",
    "localise_stack",
    "mask_arrival_hint",
    "matching_mistakes",
    "record_calls",
]


def _close(a: Any, b: Any, rtol: float = 1e-4, atol: float = 1e-5) -> bool:
    if a is None or b is None:
        return False
    a_np = np.asarray(torch.as_tensor(a).detach().cpu().double())
    b_np = np.asarray(torch.as_tensor(b).detach().cpu().double())
    return a_np.shape == b_np.shape and bool(np.allclose(a_np, b_np, rtol=rtol, atol=atol))


def matching_mistakes(
    got: torch.Tensor, mistakes: Mapping[str, Callable[[], Any] | Any], *, rtol: float, atol: float
) -> list[str]:
    """The messages of every mistake whose value matches ``got`` (callables evaluated; a
    None value means the mistake cannot happen here)."""
    found = []
    for message, wrong in mistakes.items():
        value = wrong() if callable(wrong) else wrong
        if value is not None and _close(got, value, max(rtol, 1e-4), max(atol, 1e-5)):
            found.append(message)
    return list(dict.fromkeys(found))


def diagnose(
    got: torch.Tensor,
    mistakes: Mapping[str, Any],
    *,
    rtol: float,
    atol: float,
    localise: Callable[[], str] | None = None,
) -> str:
    """The diagnosis of a composite's wrong output, or "": the one matching mistake; all
    of them when several give the same values on these inputs; else what the localiser
    finds."""
    found = matching_mistakes(got, mistakes, rtol=rtol, atol=atol)
    if len(found) == 1:
        return found[0]
    if found:
        listed = " ".join(f"({i}) {m}" for i, m in enumerate(found, 1))
        return (
            f"On these inputs {len(found)} different mistakes give exactly what yours gives, "
            f"so it is one of them: {listed}"
        )
    return localise() if localise is not None else ""


def agreeing_mistakes(
    records: Sequence[tuple[Any, Mapping[str, Any], float, float]],
) -> list[str]:
    """The mistakes that agree with the learner on EVERY input a check ran: ``records``
    holds, per input, (the learner's value, {message: what that mistake gives there, or a
    zero-argument callable, or None when it cannot happen}, rtol, atol). A message counts
    only when each input's value matches (where the learner is right, the mistake must
    give the right value too); those are the causes a check may state (one), or name as
    candidates (several)."""
    if not records:
        return []
    messages = list(dict.fromkeys(m for _, mistakes, _, _ in records for m in mistakes))
    found = []
    for message in messages:
        agrees = True
        for got, mistakes, rtol, atol in records:
            wrong = mistakes.get(message)
            value = wrong() if callable(wrong) else wrong
            if value is None or not _close(got, value, max(rtol, 1e-4), max(atol, 1e-5)):
                agrees = False
                break
        if agrees:
            found.append(message)
    return found


# ------------------------------------------------------------------------ recording calls
class _NotReproducible(Exception):
    """The learner's module gives another result on each call (dropout active)."""


def _first_tensor(value: Any) -> torch.Tensor | None:
    if isinstance(value, torch.Tensor):
        return value
    if isinstance(value, (tuple, list)) and value and isinstance(value[0], torch.Tensor):
        return value[0]
    return None


def called_submodules(
    module: nn.Module, children: Sequence[str], call: Callable[[], Any]
) -> set[str] | None:
    """The named submodules that ``call()`` runs (forward hooks), or None when that cannot
    be told (the module raises, or differs from call to call)."""
    try:
        _, records = record_calls(module, children, call)
    except Exception:
        return None
    return {name for name, _, _ in records}


def arguments_received(submodule: nn.Module, call: Callable[[], Any]) -> dict[str, Any] | None:
    """The arguments, by name, that ``submodule``'s forward was given when ``call()`` ran it
    exactly once (a forward pre-hook, removed afterwards); None when ``call()`` raises, runs
    it another number of times, or the arguments do not fit forward's signature."""
    seen: list[tuple[tuple, dict]] = []
    handle = submodule.register_forward_pre_hook(
        lambda _module, args, kwargs: seen.append((args, kwargs)), with_kwargs=True
    )
    try:
        with torch.no_grad():
            call()
    except Exception:
        return None
    finally:
        handle.remove()
    if len(seen) != 1:
        return None
    try:
        return inspect.signature(submodule.forward).bind(*seen[0][0], **seen[0][1]).arguments
    except TypeError:
        return None


def record_calls(
    module: nn.Module, children: Sequence[str], call: Callable[[], Any]
) -> tuple[Any, list[tuple[str, torch.Tensor | None, torch.Tensor | None]]]:
    """Run ``call()`` with forward hooks on the named submodules of ``module`` (dotted
    names such as ``layers.0``); returns (its result, [(name, first input, output)] in the
    order the submodules returned). Hooks are removed afterwards. Raises when two calls
    give different results (dropout still active): nothing can be localised then."""
    records: list[tuple[str, torch.Tensor | None, torch.Tensor | None]] = []
    handles = []
    with torch.no_grad():  # a module that differs from call to call cannot be localised
        first, second = _first_tensor(call()), _first_tensor(call())
    if first is None or second is None or not torch.equal(first, second):
        raise _NotReproducible
    named = dict(module.named_modules())
    for name in children:
        child = named.get(name)
        if child is None:
            continue

        def hook(_mod, args, kwargs, output, name=name):
            first = args[0] if args else next(iter(kwargs.values()), None)
            records.append((name, _first_tensor(first), _first_tensor(output)))

        handles.append(child.register_forward_hook(hook, with_kwargs=True))
    try:
        with torch.no_grad():
            result = call()
    finally:
        for handle in handles:
            handle.remove()
    return result, records


# ------------------------------------------------------------------------------- a layer
def _keys_are_queries(module: nn.Module, names: Sequence[str], call: Callable[[], Any]) -> dict:
    """{attention attribute: whether its keys were its queries (a self-attention)}, for
    each of ``names`` called (its first call) during ``call()``."""
    seen: dict[str, bool] = {}
    handles = []
    for name in names:
        child = getattr(module, name, None)
        if not isinstance(child, nn.Module):
            continue

        def pre(_mod, args, kwargs, name=name):
            values = [*args, *kwargs.values()]
            if name not in seen and len(values) >= 2:
                query, key = values[0], values[1]
                seen[name] = (
                    isinstance(query, torch.Tensor)
                    and isinstance(key, torch.Tensor)
                    and query.shape == key.shape
                    and torch.equal(query, key)
                )

        handles.append(child.register_forward_pre_hook(pre, with_kwargs=True))
    try:
        with torch.no_grad():
            call()
    finally:
        for handle in handles:
            handle.remove()
    return seen


def _attention_modules_swapped(
    module: nn.Module, call: Callable[[], Any], sublayers: Sequence[str]
) -> str:
    """When `self_attn` and `cross_attn` run in each other's place (the module named
    cross_attn attends to its own queries, the one named self_attn to keys from elsewhere,
    the memory): that, which the order the sub-layers run in alone cannot tell from a
    decoder that attends to the memory first (blind14g-dl-attention-modules-swapped);
    "" otherwise."""
    if not {"self_attn", "cross_attn"} <= set(sublayers):
        return ""
    try:
        roles = _keys_are_queries(module, ("self_attn", "cross_attn"), call)
    except Exception:  # a probe: the order is said instead
        return ""
    if roles.get("cross_attn") is not True or roles.get("self_attn") is not False:
        return ""
    return (
        "Your two attention modules are swapped: `self.cross_attn` does the "
        "self-attention (its keys are its own queries) and `self.self_attn` the "
        "cross-attention (its keys come from elsewhere, the memory). A fresh layer computes "
        "the same kind of function either way, but weights loaded by name act in the wrong "
        "sub-layer: call self.self_attn(x, x, x, tgt_mask) first, then self.cross_attn(x, "
        "memory, memory, src_mask)."
    )


def localise_layer(
    module: nn.Module,
    call: Callable[[], Any],
    x: torch.Tensor,
    *,
    sublayers: Sequence[str],
    norms: Mapping[str, str],
    norm_first: bool,
    arguments: Sequence[tuple[str, Any]] = (),
) -> str:
    """Which residual sub-result of a layer first departs from the reference.

    ``sublayers``: the sub-layers' attribute names in the order they run
    (``self_attn``, ``feed_forward``); ``norms``: {sub-layer: the norm that belongs to
    it}. Pre-LN: each sub-layer reads norm(stream) and stream + its output goes on;
    post-LN: norm(input + output). Each is checked on the learner's own sub-results (a
    wrong sub-layer was reported by its own test cell), in order. ``arguments``: the
    layer's other arguments, (name, value), such as its padding mask.
    """
    try:
        got, records = record_calls(module, [*sublayers, *norms.values()], call)
    except Exception:  # the learner's module raised under hooks: no localisation
        return ""
    if records and (
        zeroed := _input_rows_zeroed(module, call, records[0], x, sublayers, arguments)
    ):
        return zeroed
    ran = [r[0] for r in records if r[0] in sublayers]
    if len(ran) == len(sublayers) and set(ran) == set(sublayers) and ran != list(sublayers):
        if swapped := _attention_modules_swapped(module, call, sublayers):
            return swapped
        return (
            f"Your sub-layers run in the order {', '.join(ran)}; they run in the order "
            f"{', '.join(sublayers)}, each once."
        )
    stream = x.detach().double()
    previous_out = stream
    earlier = [("the layer's input x", stream)]  # post-LN: the streams a residual could add
    normalised_sum = None  # post-LN: the input of the last norm that ran right
    # pre-LN: the stream that reaches each sub-layer by name, x for the first, then h, h2,
    # ..., each defined ("h = x + attn(norm1(x))"), so that a formula never calls the
    # stream after a residual "x" (the layer's input)
    s, where_s = "x", ""
    for position, name in enumerate(sublayers):
        index = next((i for i, r in enumerate(records) if r[0] == name), None)
        if index is None:
            return (
                f"`self.{name}` is never called during forward: every sub-layer runs once, in "
                f"the order {', '.join(sublayers)}."
            )
        _, inp, out = records[index]
        if inp is None or out is None:
            return ""
        inp, out = inp.detach().double(), out.detach().double()
        wanted_norm = norms[name]
        before = [r for r in records[:index] if r[0] in norms.values()]
        after = [r for r in records[index + 1 :] if r[0] in norms.values()]
        if norm_first:
            used = before[-1] if before and _close(before[-1][2], inp) else None
            if used is not None and used[0] != wanted_norm:
                return _wrong_norm(name, used[0], wanted_norm)
            if used is not None and (
                twice := _normalised_twice(name, used, before, stream, wanted_norm, s, where_s)
            ):
                return twice
            if used is None and not _close(inp, stream):
                if misplaced := _pre_ln_input_mix(
                    name, inp, out, stream, x, records[:index], after, got, wanted_norm, s, where_s
                ):
                    return misplaced
                if applied := _norm_applied_otherwise(
                    module, name, inp, stream, wanted_norm, s, where_s
                ):
                    return applied
                return (
                    f"The input of `self.{name}` is not {wanted_norm}({s}) of the stream that "
                    f"reaches it{where_s}: in pre-LN each sub-layer reads a normalised copy, "
                    f"{name}({wanted_norm}({s}))."
                )
            if used is None:
                which = _attention_slots_reading(module, name, call, stream)
                if which:
                    return (
                        f"The {which} of `self.{name}` are {s} "
                        f"itself, un-normalised, not {wanted_norm}({s}){where_s}: in pre-LN "
                        f"each sub-layer reads a normalised copy, "
                        f"{s} + {name}({wanted_norm}({s}), ...)."
                    )
                return (
                    f"`self.{name}` reads {s} itself, not {wanted_norm}({s}){where_s}: in pre-LN "
                    f"each sub-layer reads a normalised copy, {s} + {name}({wanted_norm}({s}))."
                )
            expected = stream + out
            new_s = "h" if position == 0 else f"h{position + 1}"
            new_where = f" (where {new_s} = {s} + {name}({wanted_norm}({s})))"
            following = (
                next((r for r in records[index + 1 :] if r[0] == sublayers[position + 1]), None)
                if position + 1 < len(sublayers)
                else None
            )
            if following is not None and following[1] is not None:
                if _close(following[1].detach().double(), expected):
                    stream = expected  # the next sub-layer reads the sum itself: said there
                    s, where_s = new_s, new_where
                    continue
                if used is not None and _close(following[1].detach().double(), inp):
                    # blind9d-declayer-pre-ln-stale-h-for-cross: h reused, norm2 never run
                    nxt_name = sublayers[position + 1]
                    return (
                        f"`self.{nxt_name}` reads the same normalised copy as `self.{name}`, "
                        f"{wanted_norm}({s}), made before `self.{name}` ran: its result never "
                        f"reaches `self.{nxt_name}`. Normalise the new stream again, "
                        f"{new_s} = {s} + {name}({wanted_norm}({s})), then "
                        f"{nxt_name}(self.{norms[nxt_name]}({new_s}), ...)."
                    )
            later = after[0][1] if after else got
            nxt = f"the input of `self.{after[0][0]}`" if after else "the layer's output"
            if later is None:
                return ""
            later = later.detach().double()
            if _close(later, expected):
                stream = expected
                s, where_s = new_s, new_where
                continue
            if after and _close(later, stream):
                reader = next((sub for sub, norm in norms.items() if norm == after[0][0]), "")
                reads = (
                    f" (so `self.{reader}` works on {after[0][0]}({s}), without "
                    f"`self.{name}`'s result)"
                    if reader and reader != name
                    else ""
                )
                lost = (
                    f" The {sublayer_words(name)}'s result is discarded: the layer's output is "
                    f"{s} + {sublayers[-1]}(...), the stale stream {s} plus the last "
                    f"sub-layer's output, so nothing `self.{name}` computes reaches it (the sum "
                    f"stored under a new name while the lines after it still read the old "
                    f"variable?)."
                    if _stale_stream_reaches_output(records, sublayers, name, got, stream)
                    else ""
                )
                return (
                    f"{nxt[0].upper()}{nxt[1:]} is the stream from before `self.{name}` ({s}, "
                    f"not {s} + {name}(...)){reads}: the sum with `self.{name}`'s output is not "
                    f"carried on.{lost} Each sub-layer reads the stream after the previous "
                    f"residual: {new_s} = {s} + {name}({wanted_norm}({s})), then the next one "
                    f"reads {after[0][0]}({new_s})."
                )
            if _close(later, out):
                if after and _sum_reaches_output(records, sublayers, name, got, expected):
                    # blind21c-block-feed-forward-reads-attention-alone was told the
                    # residual was missing, although the output holds it
                    return (
                        f"{nxt[0].upper()}{nxt[1:]} is the output of `self.{name}` alone, "
                        f"without the residual stream: the sum {new_s} = {s} + {name}(...) "
                        f"is formed (the layer's output carries it), but what is normalised "
                        f"for the next sub-layer is {name}(...) itself, the variable holding "
                        f"the sub-layer's output used where the sum belongs. Normalise the "
                        f"sum: {after[0][0]}({new_s}){new_where}."
                    )
                if (
                    after[0][0] == wanted_norm
                    and torch.is_tensor(after[0][2])
                    and _norm_inside_residual_branch(records, got, stream, after[0][2])
                ):  # blind28c-decoder-sandwich-norm was told the residual was missing
                    return _post_sublayer_norm(name, wanted_norm, s, where_s)
                return _no_residual(name, nxt, f"{s} + {name}({wanted_norm}({s})){where_s}")
            if _close(later, 2 * out):  # blind10d-declayer-pre-ln-self-attention-output-added-
                # to-itself: x = sublayer(...); x = x + dropout(x)
                return (
                    f"{nxt[0].upper()}{nxt[1:]} is twice the output of `self.{name}`: that "
                    f"output was added to itself (the variable holding the stream, {s}, "
                    f"overwritten by the sub-layer's result before the residual sum), so the "
                    f"stream is lost. Keep it: {s} + dropout({name}({wanted_norm}({s})))"
                    f"{where_s}."
                )
            if _close(later, inp + out):
                return (
                    f"The residual around `self.{name}` adds the normalised copy: {nxt} is "
                    f"{wanted_norm}({s}) + {name}(...). The residual path carries the "
                    f"un-normalised stream: {s} + {name}({wanted_norm}({s})){where_s}."
                )
            if _close(later, 2 * stream + out):  # blind10h-block-ffn-residual-twice:
                # h + (h + feed_forward(norm2(h))), a sub-layer's own residual added again
                return (
                    f"The residual around `self.{name}` adds the stream twice: {nxt} is "
                    f"2 * {s} + {name}(...){where_s}, as when a result that already holds the "
                    f"residual, {s} + {name}(...), is added to {s} again. Add it once: "
                    f"{s} + {name}({wanted_norm}({s}))."
                )
            if position > 0 and _close(later, x.detach().double() + out):
                # blind8b-block-ffn-residual-from-input: x + feed_forward(norm2(h))
                return (
                    f"The residual around `self.{name}` adds the layer's input x, not {s}, the "
                    f"stream that reaches `self.{name}`{where_s}: {nxt} is x + {name}(...), so the "
                    f"output of `self.{sublayers[position - 1]}` is lost from the residual "
                    f"stream. Write {s} + {name}({wanted_norm}({s}))."
                )
            if not after and _close(later, stream):
                # blind12i-block-returns-h: out = h + feed_forward(...) computed, h returned
                return (
                    f"The layer's output is {s}{where_s}, the stream from before "
                    f"`self.{name}`: the output of `self.{name}` never reaches the result (it "
                    f"runs, but its sum {s} + {name}(...) is not what is returned: a name "
                    f"returned before the sum, or the sum stored under another name), so "
                    f"`self.{name}` has no effect and its weights get no gradient. Return "
                    f"{s} + {name}({wanted_norm}({s}))."
                )
            if weighted := _weighted_sum(later, stream, out, s, f"{name}(...)"):
                return (
                    f"{nxt[0].upper()}{nxt[1:]} is {weighted}{where_s}: the residual sum around "
                    f"`self.{name}` has a wrong sign or factor. It is the stream plus the "
                    f"sub-layer's output, {s} + {name}({wanted_norm}({s}))."
                )
            basis = {s: stream, f"{name}(...)": out, f"{wanted_norm}({s})": inp}
            if position > 0:
                basis["x"] = x.detach().double()  # the layer's input
            for other, _, other_out in records[:index]:
                if other in sublayers and other_out is not None:
                    basis.setdefault(f"{other}(...)", other_out.detach().double())
            if _first_item_added(later, stream, out):
                # round 34: attn(...)[0], the habit of nn.MultiheadAttention's (output,
                # weights) pair, takes a one-tensor sub-layer's first sequence
                return (
                    f"{nxt[0].upper()}{nxt[1:]} is {s} + {name}(...)[0]{where_s}: the output "
                    f"of `self.{name}` for the batch's first sequence, added to every "
                    f"sequence. `self.{name}` returns one tensor, (batch, len, d_model), not a "
                    "pair (output, weights) as nn.MultiheadAttention does: indexing it with [0] "
                    f"takes its first sequence. Use it whole: {s} + "
                    f"{name}({wanted_norm}({s}))."
                )
            if extra := _extra_terms(later, basis, {s: 1.0, f"{name}(...)": 1.0}):
                # round 30: a term added or left out of the residual sum (an extra x)
                return (
                    f"{nxt[0].upper()}{nxt[1:]} is {extra}{where_s}. It is the stream plus "
                    f"the output of `self.{name}`: {s} + {name}({wanted_norm}({s}))."
                )
            return (
                f"{nxt[0].upper()}{nxt[1:]} is not {s} + {name}({wanted_norm}({s})){where_s} (the "
                f"stream plus the output of `self.{name}`): check the step right after "
                f"`self.{name}`."
            )
        # post-LN: norm(stream + out), the stream being what the sub-layer read
        if position == 0 and not _close(inp, stream):
            return (
                f"`self.{name}` does not read the layer's input x: in post-LN the first "
                f"sub-layer reads x itself, {wanted_norm}(x + {name}(x, ...))."
            )
        if position > 0 and not _close(inp, stream):
            previous, previous_norm = sublayers[position - 1], norms[sublayers[position - 1]]
            if _close(inp, previous_out):
                read = "queries" if "attn" in name or "attention" in name else "input"
                return (
                    f"The {sublayer_words(name)} sub-layer's {read} (`self.{name}`'s first "
                    f"input) is the raw output of `self.{previous}`, the "
                    f"{sublayer_words(previous)}'s output before its residual sum and "
                    f"`self.{previous_norm}`: in post-LN each sub-layer reads "
                    f"the stream after the previous norm, x = {previous_norm}(x + "
                    f"{previous}(...)), then {name}(x, ...)."
                )
            if normalised_sum is not None and _close(inp, normalised_sum):
                residual = _residual_after(after, out, stream, inp)
                if residual == "normalised":
                    # blind24b-enc-layer-post-ln-ffn-reads-raw-sum: s = x + attn(...);
                    # x = norm1(s); norm2(x + feed_forward(s))
                    return (
                        f"`self.{name}` reads the un-normalised residual sum x + "
                        f"{previous}(...), the input of `self.{previous_norm}`, not its "
                        f"output, while the residual around `self.{name}` adds the normalised "
                        f"stream, {previous_norm}(x + {previous}(...)): the sub-layer's input "
                        f"skips `self.{previous_norm}` (the raw sum kept under its own name "
                        f"and passed to `self.{name}`?). Both read the same stream: x = "
                        f"{previous_norm}(x + {previous}(...)), then "
                        f"{wanted_norm}(x + {name}(x, ...))."
                    )
                if residual != "raw":
                    return (
                        f"`self.{name}` reads the un-normalised residual sum x + "
                        f"{previous}(...), the input of `self.{previous_norm}`, not its "
                        f"output: in post-LN each sub-layer reads the stream after the "
                        f"previous norm, x = {previous_norm}(x + {previous}(...)), then "
                        f"{name}(x, ...)."
                    )
                # blind19c-dl-post-ln-norm2-result-discarded: self.norm2(x) as a statement
                return (
                    f"`self.{previous_norm}` runs on x + {previous}(...), but its result is "
                    f"thrown away: `self.{name}` reads that sum itself, not the normalised "
                    f"one (a call like self.{previous_norm}(x) on a line of its own, its "
                    f"result never assigned, changes nothing). Keep it: x = "
                    f"{previous_norm}(x + {previous}(...)), then {name}(x, ...)."
                )
            stale = next((label for label, old in earlier if _close(inp, old)), None)
            if stale is not None:  # blind7b-dec-cross-queries-from-layer-input
                return (
                    f"The {sublayer_words(name)} (`self.{name}`) reads {stale}, not the output of "
                    f"`self.{previous_norm}`: the result of the {sublayer_words(previous)} "
                    f"sub-layer (`self.{previous}`) is discarded (a variable that "
                    f"was not updated?). In post-LN each sub-layer reads the stream after the "
                    f"previous norm, x = {previous_norm}(x + {previous}(...)), then "
                    f"{name}(x, ...)."
                )
            return (
                f"`self.{name}` does not read the output of `self.{previous_norm}`: in post-LN "
                f"each sub-layer reads the stream after the previous norm, x = "
                f"{previous_norm}(x + {previous}(...)), then {name}(x, ...)."
            )
        previous_out = out
        stream = inp
        if not after:
            if _close(got, _plain_layer_norm(stream + out)):
                # a normalisation without the module: F.layer_norm(y, y.shape[-1:]) (or an
                # nn.LayerNorm made in forward) normalises, but with no learned gain and bias
                return (
                    f"Your residual sum after `self.{name}` is normalised without "
                    f"`self.{wanted_norm}`: what the layer returns is that sum normalised with "
                    "no learned gain and bias (F.layer_norm(y, y.shape[-1:]) without weight "
                    "and bias, or a LayerNorm built inside forward), and "
                    f"`self.{wanted_norm}` is never called. Call the module, whose weight "
                    f"and bias are learned (and loaded): {wanted_norm}(x + {name}(...))."
                )
            return (
                f"No LayerNorm runs after `self.{name}`: in post-LN each residual sum is "
                f"normalised, {wanted_norm}(x + {name}(...))."
            )
        norm_name, norm_in, norm_out = after[0]
        if norm_in is None or norm_out is None:
            return ""
        norm_in = norm_in.detach().double()
        if _close(norm_in, stream + out):
            if norm_name != wanted_norm:
                return _wrong_norm(name, norm_name, wanted_norm)
            stream = norm_out.detach().double()
            # a sum the norm changes: one read in its place is the norm's result discarded
            normalised_sum = None if _close(stream, norm_in) else norm_in
            earlier.append((f"the output of `self.{norm_name}`", stream))
            continue
        if _close(norm_in, out):
            if _norm_inside_residual_branch(records, got, stream, norm_out):
                return _norm_inside_residual(name, norm_name, wanted_norm)
            return _no_residual(
                name, f"the input of `self.{norm_name}`", f"{wanted_norm}(x + {name}(x))"
            )
        stale = next(
            (
                label
                for label, old in earlier
                if not _close(old, stream) and _close(norm_in, old + out)
            ),
            None,
        )
        if stale is not None:  # blind7b-enc-layer-ffn-residual-from-input
            return (
                f"The residual around `self.{name}` adds {stale}, not the input of "
                f"`self.{name}`: the input of `self.{norm_name}` is {stale} + {name}(...). In "
                "post-LN each residual adds the sub-layer's own input, the stream after the "
                f"previous norm: x = {wanted_norm}(x + {name}(x)), x being what `self.{name}` "
                "reads."
            )
        if weighted := _weighted_sum(norm_in, stream, out, "x", f"{name}(x)"):
            return (
                f"The input of `self.{norm_name}` is {weighted}: the residual sum around "
                f"`self.{name}` has a wrong sign or factor. It is the sub-layer's input plus its "
                f"output, {wanted_norm}(x + {name}(x))."
            )
        if twice := _sublayer_on_own_output(records, name, out, norm_name, norm_in, stream):
            return twice
        if extra := _post_ln_extra_terms(records, sublayers, name, norm_in, stream, out, x):
            return (
                f"The input of `self.{norm_name}` is {extra}. It is the sub-layer's input plus "
                f"its output, {wanted_norm}(x + {name}(x)), x being what `self.{name}` reads."
            )
        return (
            f"The input of `self.{norm_name}` after `self.{name}` is not x + {name}(x) (the "
            f"sub-layer's input plus its output): check the residual sum around `self.{name}`."
        )
    if "self_attn" in sublayers and (
        wrong := _self_attention_inputs(module, call, x, norm_first, norms["self_attn"])
    ):
        return wrong
    if not norm_first and not _close(got, stream):
        again = next(
            (
                r[0]
                for r in records
                if r[0] in norms.values()
                and r[1] is not None
                and r[2] is not None
                and _close(r[1], stream)
                and _close(r[2], _first_tensor(got))
            ),
            None,
        )
        if again is not None:
            return (
                "Each sub-layer's residual sum and norm are right, but the layer returns the "
                f"last norm's output normalised once more, by `self.{again}`: in post-LN each "
                "sub-layer's norm runs once, and the layer returns the last one's output as it "
                "is."
            )
        return (
            "Each sub-layer's residual sum and norm are right, but the layer does not return "
            "the last norm's output: return x after the last sub-layer."
        )
    final = _first_tensor(got)
    if norm_first and final is not None and not _close(final, stream):
        renormed = next(
            (
                r[0]
                for r in records
                if r[0] in norms.values()
                and r[1] is not None
                and _close(r[1], stream)
                and _close(r[2], final)
            ),
            None,
        )
        if renormed is not None:
            return (
                f"Each sub-layer's residual sum is right, but your pre-LN layer returns "
                f"`self.{renormed}` of the last sum instead of the sum itself (a post-LN step "
                f"added at the end): in pre-LN the layer returns {s}{where_s} un-normalised; the "
                "one final LayerNorm belongs to the stack (Encoder's / Decoder's `norm`)."
            )
        return (
            f"Each sub-layer's residual sum is right, but the layer does not return the stream "
            f"after the last one, {s}{where_s}: return it as it is."
        )
    return ""


def _input_rows_zeroed(
    module: nn.Module,
    call: Callable[[], Any],
    first: tuple[str, Any, Any],
    x: torch.Tensor,
    sublayers: Sequence[str],
    arguments: Sequence[tuple[str, Any]],
) -> str:
    """When the first submodule to run (``first``: its name, input, output) reads the
    layer's input x with some positions' rows set to 0 (x.masked_fill(pad, 0), x * mask):
    which rows, and whether the attention among ``sublayers`` still gets the mask (a
    zeroed vector taken for one the attention ignores; blind21b-el-pads-zeroed-instead-
    of-masked was told that the self-attention does not read x); "" otherwise."""
    name, inp, _ = first
    if inp is None or x.dim() != 3:
        return ""
    zeroed = _rows_zeroed(inp, x.detach().double(), arguments)
    if not zeroed:
        return ""
    padded = "padded positions" in zeroed
    attention = next((sub for sub in sublayers if "attn" in sub or "attention" in sub), None)
    given = next((value for key, value in arguments if "mask" in key), None)
    received = None
    if attention is not None and isinstance(given, torch.Tensor):
        child = getattr(module, attention, None)
        bound = arguments_received(child, call) if isinstance(child, nn.Module) else None
        if bound is not None:
            values = list(bound.values())
            received = bound.get("mask", values[3] if len(values) > 3 else None)
    unmasked = isinstance(given, torch.Tensor) and attention is not None and received is None
    which = "the padded positions'" if padded else "those positions'"
    text = f"`self.{name}` reads x with {zeroed} set to 0: your layer zeroes {which} vectors first"
    if unmasked:
        return (
            f"{text}, and `self.{attention}` gets no mask. A zero vector is not ignored by "
            "the attention: its key is the key projection's bias, not nothing, so every "
            "query still gives it weight (and the zeroed rows are changed too). Only the "
            f"mask keeps positions out: leave x as it is and pass the mask to the attention, "
            f"self.{attention}(x, x, x, mask)."
        )
    return (
        f"{text}. The layer computes on its input as it is: the mask given to "
        f"`self.{attention or sublayers[0]}` already keeps those positions out of the "
        "attention; leave x unchanged."
    )


def _sublayer_on_own_output(
    records: Sequence, name: str, out, norm_name: str, norm_in, stream
) -> str:
    """When the sub-layer runs a second time on its own output (name(name(x)): a call
    repeated, or a loop over one module), said with the count; "" otherwise."""
    calls = [(inp, result) for other, inp, result in records if other == name]
    if len(calls) < 2 or calls[1][0] is None:
        return ""
    try:
        if calls[1][1] is None or not _close(calls[1][0].detach().double(), out):
            return ""
        if not _close(norm_in, stream + calls[1][1].detach().double()):
            return ""
    except Exception:  # values of another shape: no evidence
        return ""
    return (
        f"`self.{name}` runs {len(calls)} times in one call, the second time on its own "
        f"output, {name}({name}(x)), and the residual sum that reaches `self.{norm_name}` "
        f"holds that: each sub-layer runs once per layer, on the stream, x + {name}(x)."
    )


def _post_ln_extra_terms(
    records: Sequence, sublayers: Sequence[str], name: str, norm_in, stream, out, x
) -> str:
    """A post-LN norm's input written as the stream, this sub-layer's output and as few
    terms more as fit (the layer's input, another sub-layer's output), by
    :func:`_extra_terms`; with a note when another sub-layer's output is in the sum: both
    sub-layers then read one stream and add to one residual (a parallel block, as GPT-J's
    and PaLM's), where the paper chains them (blind misses: norm2(x + self_attn(x) +
    feed_forward(x)) was told only to check the residual sum); "" when nothing fits."""
    basis = {"x": stream, f"{name}(x)": out}
    if not _close(stream, x.detach().double()):
        basis["the layer's input"] = x.detach().double()
    for other, _, other_out in records:
        if other in sublayers and other != name and other_out is not None:
            basis.setdefault(f"{other}(...)", other_out.detach().double())
    extra = _extra_terms(norm_in, basis, {"x": 1.0, f"{name}(x)": 1.0})
    if not extra:
        return ""
    added = [
        other
        for other in sublayers
        if other != name and f"{other}(...) is added, which the sum does not hold" in extra
    ]
    if not added:
        return extra
    if (
        "x is missing" in extra
        and "the layer's input is added, which the sum does not hold" in extra
    ):
        # the sub-layer reads the normalised stream, but its residual is the sum before that
        # norm (the layer's input plus the earlier sub-layer's output): a residual kept from
        # before the norm, not a parallel block, whose sub-layers all read the layer's input
        return (
            f"{extra}. `self.{name}` reads the normalised result of the sub-layer before it, "
            f"but its residual is that sub-layer's sum before the norm, the layer's input + "
            f"{added[0]}(...), a variable kept from before the norm"
        )
    return (
        f"{extra}. The output of `self.{added[0]}` joins the residual sum of `self.{name}`: "
        "the sub-layers are added to one stream side by side (a parallel block, as in GPT-J "
        "or PaLM), where the paper runs them one after the other, each with its own "
        "residual and norm, the second reading the first's normalised result"
    )


def _extra_terms(
    target: torch.Tensor, basis: Mapping[str, torch.Tensor], wanted: Mapping[str, float]
) -> str:
    """``target`` written as a sum of the named tensors of ``basis`` with coefficients
    that are multiples of 1/2 in [-2, 2]: the ``wanted`` terms (the right sum) and as few
    others as reproduce it (none, one, then two), each set independent, fitted by least
    squares and kept only when exact and not the right sum. The sum in words, then the
    terms added, missing or with another factor than in the right sum ("h +
    feed_forward(...) + x: x is added, which the sum does not hold"); "" otherwise."""
    try:
        target = torch.as_tensor(target).detach().double()
    except (RuntimeError, TypeError, ValueError):
        return ""
    shaped = {n: t for n, t in basis.items() if tuple(t.shape) == tuple(target.shape)}
    if any(n not in shaped for n in wanted):
        return ""
    others = [n for n in shaped if n not in wanted]
    for count in range(3):
        fits = [
            found
            for extra in itertools.combinations(others, count)
            if (found := _fitted_sum(target, shaped, [*wanted, *extra], wanted))
        ]
        if fits:  # the fewest terms changed; two readings as simple: say neither
            fewest = min(changed for _, changed in fits)
            simplest = [text for text, changed in fits if changed == fewest]
            return simplest[0] if len(simplest) == 1 else ""
    return ""


def _fitted_sum(
    target: torch.Tensor,
    basis: Mapping[str, torch.Tensor],
    names: Sequence[str],
    wanted: Mapping[str, float],
) -> tuple[str, int] | None:
    """:func:`_extra_terms` for one set of terms: the text and the number of terms that
    differ from the right sum, or None."""
    try:
        terms = torch.stack([basis[n].flatten() for n in names], dim=1)  # (entries, terms)
        if int(torch.linalg.matrix_rank(terms)) < len(names):
            return None
        fitted = torch.linalg.lstsq(terms, target.flatten().unsqueeze(1)).solution.flatten()
    except RuntimeError:
        return None
    coefficients = [round(float(value) * 2) / 2 for value in fitted]
    if max(abs(c) for c in coefficients) > 2:
        return None
    if all(c == wanted.get(n, 0.0) for n, c in zip(names, coefficients, strict=True)):
        return None
    rebuilt = sum(c * basis[n] for n, c in zip(names, coefficients, strict=True) if c)
    if not isinstance(rebuilt, torch.Tensor) or not _close(target, rebuilt):
        return None
    pieces: list[str] = []
    differences = []
    for name, c in zip(names, coefficients, strict=True):
        right = wanted.get(name, 0.0)
        if c:
            text = name if abs(c) == 1 else f"{abs(c):g} * {name}"
            pieces.append(
                (f"-{text}" if c < 0 else text) if not pieces else f"{'-' if c < 0 else '+'} {text}"
            )
        if c == right:
            continue
        if right == 0:
            differences.append(f"{name} is added, which the sum does not hold")
        elif c == 0:
            differences.append(f"{name} is missing")
        else:
            differences.append(f"{name} has the factor {c:g}, not {right:g}")
    return " ".join(pieces) + ": " + "; ".join(differences), len(differences)


def _plain_layer_norm(y: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    """y normalised over its last axis with no gain and bias (float64)."""
    y = y.detach().double()
    return torch.nn.functional.layer_norm(y, y.shape[-1:], eps=eps)


def _weighted_sum(
    target: torch.Tensor, stream: torch.Tensor, out: torch.Tensor, stream_name: str, out_name: str
) -> str:
    """``target`` as a * stream + b * out with other coefficients than (1, 1), written out
    ("x - self_attn(x)", "0.5 * x + 0.5 * self_attn(x)"): a residual sum with a sign, a
    factor or a term wrong. The coefficients are fitted (least squares) and kept only when
    they are multiples of 1/2 in [-2, 2], or recognisable numbers (sqrt(d_model), 1/sqrt(2):
    a term scaled by a size), that reproduce ``target`` exactly; "" otherwise."""
    target = torch.as_tensor(target).detach().double()
    if target.shape != stream.shape or stream.shape != out.shape:
        return ""
    terms = torch.stack([stream.flatten(), out.flatten()], dim=1)
    try:
        fitted = torch.linalg.lstsq(terms, target.flatten().unsqueeze(1)).solution.flatten()
    except RuntimeError:
        return ""
    common = float(fitted.mean())
    if (
        abs(float(fitted[0] - fitted[1])) <= 1e-3 * abs(common)
        and abs(common - 1) > 1e-3
        and (named := recognisable_number(common))
        and _close(target, common * (stream + out))
    ):
        # the whole sum times one recognisable constant (blind19e-dl-residual-scaled-by-
        # sqrt-half: (x + sublayer) * 0.5 ** 0.5, the residual of convolutional seq2seq)
        return f"({stream_name} + {out_name}) * {named} (= {common:.4g}), the sum scaled"
    a, b = (round(float(value) * 2) / 2 for value in fitted)
    sizes = [f"{abs(a):g}", f"{abs(b):g}"]
    if not _close(target, a * stream + b * out) or max(abs(a), abs(b)) > 2:
        # a term scaled by a size's root or its reciprocal (x + sqrt(d_model) * sublayer,
        # x + sublayer / sqrt(2)): each fitted coefficient a multiple of 1/2 or a
        # recognisable number, kept only when together they reproduce ``target`` exactly
        coefficients = []
        for i, value in enumerate(float(v) for v in fitted):
            half = round(value * 2) / 2
            if abs(value - half) <= 1e-4 * max(1.0, abs(value)) and abs(half) <= 2:
                coefficients.append(half)
                sizes[i] = f"{abs(half):g}"
            elif said := recognisable_number(abs(value)):
                coefficients.append(value)
                sizes[i] = f"{abs(value):.4g} ({said})"
            elif abs(value) >= 1e-3:
                # any other constant, kept only when the two fitted coefficients reproduce
                # every entry (blind29b-el-deepnorm-residual-up-scaled: DeepNet's alpha =
                # (2N) ** 0.25 on the stream, 1.861 * x + sublayer(x), got the fallback)
                coefficients.append(value)
                sizes[i] = f"{abs(value):.4g}"
            else:
                return ""
        a, b = coefficients
        if not _close(target, a * stream + b * out):
            return ""
    if (a, b) == (1.0, 1.0) or (a, b) == (0.0, 0.0):
        return ""

    pieces: list[str] = []
    for coefficient, name, size in ((a, stream_name, sizes[0]), (b, out_name, sizes[1])):
        if coefficient == 0:
            continue
        text = name if abs(coefficient) == 1 else f"{size} * {name}"
        if not pieces:
            pieces.append(f"-{text}" if coefficient < 0 else text)
        else:
            pieces.append(f"{'-' if coefficient < 0 else '+'} {text}")
    return " ".join(pieces)


def _attention_slots_reading(
    module: nn.Module, name: str, call: Callable[[], Any], stream: torch.Tensor
) -> str:
    """For an attention sub-layer (forward(query, key, value, ...)): which of its query, key
    and value slots received ``stream`` itself ("queries", "queries, keys and values", ...);
    "" when ``name`` is not such a sub-layer or its call cannot be observed."""
    child = dict(module.named_modules()).get(name)
    if child is None:
        return ""
    given = arguments_received(child, call)
    if given is None or not all(k in given for k in ("query", "key", "value")):
        return ""
    plural = {"query": "queries", "key": "keys", "value": "values"}
    slots = [
        plural[k]
        for k in ("query", "key", "value")
        if torch.is_tensor(given[k]) and _close(given[k].detach().double(), stream)
    ]
    if not slots:
        return ""
    return slots[0] if len(slots) == 1 else f"{', '.join(slots[:-1])} and {slots[-1]}"


def _pre_ln_input_mix(
    name: str,
    inp: torch.Tensor,
    out: torch.Tensor,
    stream: torch.Tensor,
    x: torch.Tensor,
    before: Sequence[tuple[str, torch.Tensor | None, torch.Tensor | None]],
    after: Sequence[tuple[str, torch.Tensor | None, torch.Tensor | None]],
    got: Any,
    wanted_norm: str,
    s: str,
    where_s: str,
) -> str:
    """A pre-LN sub-layer whose input is a sum of two tensors available where it runs (the
    stream, its normalised copy, the layer's input): the residual added before the sub-layer
    (``sublayer(norm(x) + x)``) or another stream mixed in. Returns the diagnosis, or ""
    when the input is none of these sums."""
    normed = next(
        (
            r[2].detach().double()
            for r in reversed(before)
            if r[0] == wanted_norm
            and r[1] is not None
            and r[2] is not None
            and _close(r[1].detach().double(), stream)
        ),
        None,
    )
    if normed is None:
        return ""
    layer_input = x.detach().double()
    candidates = [(f"{wanted_norm}({s}) + {s}", normed + stream, True)]
    if not _close(layer_input, stream):
        candidates.append(
            (f"{wanted_norm}({s}) + x (the layer's input)", normed + layer_input, False)
        )
    label, inside = next(
        ((lab, res) for lab, t, res in candidates if _close(inp, t)), (None, False)
    )
    if label is None:
        return ""
    later = after[0][1] if after else _first_tensor(got)
    alone = later is not None and _close(later.detach().double(), out)
    right = f"{s} + {name}({wanted_norm}({s})){where_s}"
    if inside and alone:
        return (
            f"The residual around `self.{name}` is added to its input instead of its output: "
            f"`self.{name}` reads {label}, and what follows it is {name}(...) alone, with no "
            f"residual after it. In pre-LN the sub-layer reads the normalised copy alone and "
            f"the stream is added to its output: {right}."
        )
    if inside:
        return (
            f"`self.{name}` reads {label}: the stream is added to the normalised copy before "
            f"the sub-layer as well as after it. In pre-LN it reads {wanted_norm}({s}) alone: "
            f"{right}."
        )
    return (
        f"`self.{name}` reads {label}, not {wanted_norm}({s}) alone: in pre-LN each sub-layer "
        f"reads the normalised copy of the stream that reaches it, {right}."
    )


def _self_attention_inputs(
    module: nn.Module, call: Callable[[], Any], x: torch.Tensor, norm_first: bool, norm: str
) -> str:
    """The keys and values `self.self_attn` receives are its queries (self-attention); ""
    when they are, or when the call cannot be observed."""
    seen: list[tuple[tuple, dict]] = []
    child = dict(module.named_modules()).get("self_attn")
    if child is None:
        return ""
    handle = child.register_forward_hook(
        lambda _m, args, kwargs, _out: seen.append((args, kwargs)), with_kwargs=True
    )
    try:
        with torch.no_grad():
            call()
    except Exception:
        return ""
    finally:
        handle.remove()
    if not seen:
        return ""
    args, kwargs = seen[0]
    given = list(args[:3]) + [kwargs.get(k) for k in ("query", "key", "value")[len(args) :]]
    if len(given) < 3 or any(not torch.is_tensor(t) for t in given):
        return ""
    query, key, value = (t.detach().double() for t in given)
    off = [name for name, t in (("keys", key), ("values", value)) if not _close(t, query)]
    if not off:
        return ""
    which = " and ".join(off)
    wanted = f"{norm}(x)" if norm_first else "x"
    raw = norm_first and all(_close(t, x.detach().double()) for t in (key, value)[: len(off)])
    if raw and len(off) == 2:
        return (
            f"`self.self_attn` gets {norm}(x) as its queries but the layer's raw input x as "
            f"its keys and values: only the queries are normalised. In pre-LN all three are "
            f"the same normalised copy: h = self.{norm}(x), then self.self_attn(h, h, h, mask)."
        )
    return (
        f"The {which} that `self.self_attn` receives are not its queries: in self-attention "
        f"query, key and value are one and the same tensor, {wanted} "
        f"(self.self_attn({wanted}, {wanted}, {wanted}, mask))."
    )


def _same(a: Any, b: Any) -> bool:
    return (a is None and b is None) or _close(a, b)


def _argument_problem(
    module: nn.Module,
    child: str,
    call: Callable[[], Any],
    arguments: Sequence[tuple[str, Any]],
    norm: Callable[[torch.Tensor], torch.Tensor] | None,
) -> str:
    """Which of the stack's other ``arguments`` the submodule ``child`` does not receive
    unchanged in its first call (""  when all of them arrive as given)."""
    if not arguments:
        return ""
    seen: list[tuple[tuple, dict]] = []
    handle = dict(module.named_modules())[child].register_forward_hook(
        lambda _m, args, kwargs, _out: seen.append((args, kwargs)), with_kwargs=True
    )
    try:
        with torch.no_grad():
            call()
    except Exception:
        return ""
    finally:
        handle.remove()
    if not seen:
        return ""
    args, kwargs = seen[0]
    received = dict(zip([name for name, _ in arguments], args[1:], strict=False))
    received.update({k: v for k, v in kwargs.items() if k in dict(arguments)})
    for name, value in arguments:
        got = received.get(name)
        if _same(got, value):
            continue
        if got is None:
            return f"is called without {name}: pass the stack's {name} on to every layer."
        if value is not None and torch.is_tensor(value) and value.is_floating_point():
            if norm is not None and _close(got, norm(value.detach().double())):
                return (
                    f"receives the final norm of the stack's {name}, not {name} as it was "
                    f"given: pass {name} on to every layer unchanged (the final norm applies "
                    "once, to x after the loop)."
                )
        for other, other_value in arguments:
            if other != name and _same(got, other_value):
                return (
                    f"receives the stack's {other} where its {name} belongs: pass the "
                    "arguments in the layer's order, layer(x, "
                    + ", ".join(n for n, _ in arguments)
                    + ")."
                )
        if how := rearrangement(got, value):
            return (
                f"receives the stack's {name} with {how}: shape {tuple(got.shape)}, where the "
                f"stack was given {tuple(value.shape)}. Pass it on unchanged"
                + (
                    ": it broadcasts against the attention scores (batch, num_heads, len_q, "
                    "len_k) by itself."
                    if "mask" in name
                    else "."
                )
            )
        if "mask" in name and torch.is_tensor(value) and (how := mask_relation(got, value)):
            return f"receives a {name} other than the stack's {name}: {how} Pass it on unchanged."
        return f"receives a {name} other than the stack's {name}: pass it on unchanged."
    return ""


def _sum_reaches_output(records, sublayers, name: str, got, expected: torch.Tensor) -> bool:
    """Whether the layer's output is ``expected`` (the residual sum after ``name``) plus
    the last sub-layer's output: the sum was formed and carried to the output, whatever
    the sub-layers in between read (False when anything is missing or is no tensor)."""
    if name == sublayers[-1] or not torch.is_tensor(got):
        return False
    last = next((r for r in reversed(records) if r[0] == sublayers[-1]), None)
    if last is None or not torch.is_tensor(last[2]) or last[2].shape != got.shape:
        return False
    return _close(got.detach().double() - last[2].detach().double(), expected)


def _stale_stream_reaches_output(records, sublayers, name: str, got, stream) -> bool:
    """Whether the layer's output is ``stream`` (the stream from before ``name``) plus the
    last sub-layer's output: the sum around ``name`` never reaches the output."""
    return _sum_reaches_output(records, sublayers, name, got, stream)


def _residual_after(after, out, normalised, raw) -> str:
    """What the residual sum right after a sub-layer adds to its output ``out``, read off
    the input of the norm that runs next (post-LN): "normalised" (the previous norm's
    output), "raw" (the un-normalised sum that norm read) or "" (neither, or unknown)."""
    if not after or after[0][1] is None or not torch.is_tensor(after[0][1]):
        return ""
    summed = after[0][1].detach().double()  # the next norm's input: stream + out
    if summed.shape != out.shape:
        return ""
    if _close(summed, normalised + out):
        return "normalised"
    if _close(summed, raw + out):
        return "raw"
    return ""


def _norm_inside_residual_branch(records, got, stream: torch.Tensor, norm_out) -> bool:
    """Post-LN: whether the stream goes on as ``stream + norm(out)`` (the residual added
    after the norm, around a normalised branch: x + norm1(self_attn(x))), read off the
    layer's output or a later sub-layer's input. False when nothing matches or the values
    are no tensors."""
    if not torch.is_tensor(norm_out) or norm_out.shape != stream.shape:
        return False
    carried = stream + norm_out.detach().double()  # (batch, len, d_model)
    if torch.is_tensor(got) and got.shape == carried.shape and _close(got, carried):
        return True
    return any(
        torch.is_tensor(r[1]) and r[1].shape == carried.shape and _close(r[1], carried)
        for r in records
    )


def _norm_inside_residual(name: str, norm_name: str, wanted_norm: str) -> str:
    return (
        f"The residual sum around `self.{name}` is taken after `self.{norm_name}`: the norm "
        f"reads {name}(...) alone and the stream goes on as x + {norm_name}({name}(x)) (the "
        f"norm inside the residual branch, then the sum left un-normalised). In post-LN the "
        f"norm applies to the sum: x = {wanted_norm}(x + {name}(x))."
    )


def _post_sublayer_norm(name: str, norm: str, s: str, where_s: str) -> str:
    return (
        f"`self.{norm}` runs twice around `self.{name}`: on its input, as it should, and "
        f"again on its output, so the stream goes on as {s} + {norm}({name}({norm}({s}))): "
        "the sub-layer's output is normalised before the residual sum (a sandwich norm, the "
        "post-sub-layer norms of Gemma 2), which this block does not have. Add the "
        f"sub-layer's output as it is: {s} + {name}({norm}({s})){where_s}."
    )


def _no_residual(name: str, where: str, right: str) -> str:
    return (
        f"The output of `self.{name}` is not added back to its input (no residual connection "
        f"around this sub-layer): {where} is {name}(...) alone. Write {right}."
    )


def _normalised_twice(
    name: str,
    used: tuple[str, torch.Tensor | None, torch.Tensor | None],
    before: Sequence[tuple[str, torch.Tensor | None, torch.Tensor | None]],
    stream: torch.Tensor,
    norm: str,
    s: str,
    where_s: str,
) -> str:
    """Pre-LN: the norm whose output the sub-layer reads ran on its own output of the
    stream, norm(norm(stream)) (blind20c-block-attention-input-normalised-twice got
    "differs from the reference"): right while the gain is ones, so its weight applies
    twice. "" when the norm read the stream, or anything else."""
    if used[1] is None or _close(used[1].detach().double(), stream):
        return ""
    first = next(
        (
            r
            for r in before
            if r[0] == norm
            and r is not used
            and r[1] is not None
            and r[2] is not None
            and _close(r[1].detach().double(), stream)
            and _close(r[2].detach().double(), used[1].detach().double())
        ),
        None,
    )
    if first is None:
        return ""
    return (
        f"`self.{name}` reads {norm}({norm}({s})){where_s}: the stream is normalised twice "
        f"(self.{norm} applied again to its own output), so its gain is applied twice too "
        f"(right only while the gain is ones). In pre-LN each sub-layer reads one "
        f"normalised copy: {s} + {name}(self.{norm}({s}))."
    )


def _norm_applied_otherwise(
    module: nn.Module,
    name: str,
    inp: torch.Tensor,
    stream: torch.Tensor,
    norm: str,
    s: str,
    where_s: str,
) -> str:
    """Pre-LN, the norm module never called before the sub-layer: whether the sub-layer
    reads the stream normalised some other way, told from the learner's own norm module
    run here on the stream: without its gain (a functional norm such as F.rms_norm(x,
    shape, eps=...) that leaves out the weight: blind20c-block-functional-rms-norm-without-
    gains was told only "not norm1(x)"), with its gain twice, or normalised twice. Every
    reading that fits is named; "" when none does (or the norm cannot be run here)."""
    child = dict(module.named_modules()).get(norm)
    weight = getattr(child, "weight", None)
    if child is None or not torch.is_tensor(weight) or weight.dim() != 1:
        return ""
    try:
        with torch.no_grad():
            normed = child(stream.to(weight.dtype)).double()  # (..., d_model)
            again = child(normed.to(weight.dtype)).double()
    except Exception:  # the learner's norm cannot run here: no reading
        return ""
    gain = weight.detach().double()
    if bool((gain.abs() < 1e-6).any()) or _close(gain, torch.ones_like(gain)):
        return ""  # a gain of ones (or a zero) cannot tell these readings apart
    readings = {
        f"{norm}({s}) without its gain: the normalisation is there, but the weight of "
        f"self.{norm} is never multiplied in (a functional norm such as F.rms_norm(x, "
        f"(d_model,), eps=eps) without weight=self.{norm}.weight, or a hand-written one "
        "that leaves it out; right only while the gain is ones)": normed / gain,
        f"{norm}({s}) with its gain applied twice (the weight multiplied again after "
        f"self.{norm}, which already applies it)": normed * gain,
        f"{norm}({norm}({s})): the stream normalised twice, its gain applied twice too": again,
    }
    fits = [text for text, value in readings.items() if _close(inp, value)]
    if not fits:
        return ""
    return (
        f"`self.{name}` reads {' or '.join(fits)}{where_s}. In pre-LN each sub-layer reads "
        f"the norm module's output itself: {s} + {name}(self.{norm}({s}))."
    )


def _wrong_norm(name: str, used: str, wanted: str) -> str:
    return (
        f"The sub-layer `self.{name}` goes with `self.{used}`, but its own LayerNorm is "
        f"`self.{wanted}` (each sub-layer has its own norm, with its own weights, loaded by "
        "these names)."
    )


# ------------------------------------------------------------------------------- a stack
#: a layer's input (or the stack's output) that is the previous layer's input plus its
#: output: a residual written around each whole layer, x = x + layer(x)
_EXTRA_RESIDUAL = (
    "{0} {1}'s input plus its output: an extra residual connection around each whole "
    "layer (x = x + layer(x, ...)). Each layer already adds its own residuals inside; "
    "the stack only chains them: x = layer(x, ...)."
)


def _first_item_added(later: Any, stream: Any, out: Any) -> bool:
    """Whether ``later`` is ``stream`` plus the first sequence of the sub-layer's output
    ``out`` (batch, len, features) broadcast to every sequence, where the batch holds
    more than one (with one, the two are the same)."""
    if not all(torch.is_tensor(t) for t in (later, stream, out)):
        return False
    if out.dim() < 3 or out.shape[0] < 2 or tuple(out.shape) != tuple(stream.shape):
        return False
    first = out.detach().double()[:1]  # (1, len, features)
    return _close(later, stream.detach().double() + first) and not _close(later, stream + out)


def localise_stack(
    module: nn.Module,
    call: Callable[[], Any],
    x: torch.Tensor,
    num_layers: int,
    *,
    final: Callable[[torch.Tensor], torch.Tensor] | None,
    layer_oracle: Callable[[torch.Tensor, int], torch.Tensor] | None = None,
    container: str = "layers",
    unnormed: Callable[[torch.Tensor], torch.Tensor] | None = None,
    input_name: str = "the stack's input x",
    norm: Callable[[torch.Tensor], torch.Tensor] | None = None,
    arguments: Sequence[tuple[str, Any]] = (),
    output_rows: tuple[str, torch.Tensor] | None = None,
) -> str:
    """Which step of a stack first departs: layers[0] fed the stack's input x, layers[i]
    fed layers[i - 1]'s output, each layer's output what the reference layer computes from
    that input (``layer_oracle(input, i)``), and the stack's output the last layer's output
    through ``final`` (the final norm, or None when there is none; ``unnormed``: what
    the output would be without that norm, the identity by default; ``norm``: the final
    norm alone, ``final`` by default, to recognise it applied between the layers;
    ``arguments``: the stack's other arguments, (name, value) in the layers' positional
    order after x, that every layer should receive unchanged; ``output_rows``: (its name,
    the matrix (out_features, features)) whose rows ``final`` multiplies by, to name a
    rescaling of those rows, :func:`column_factors`)."""
    names = [f"{container}.{i}" for i in range(num_layers)]
    try:
        got, records = record_calls(module, names, call)
    except Exception:  # the learner's module raised under hooks: no localisation
        return ""
    if not records:
        return ""
    order = [r[0] for r in records]
    if order != names:
        missing = [name for name in names if name not in order]
        never = ""
        if missing:  # blind10d-decoder-skips-first-layer: self.layers[1:]
            which = (
                f"the first layer, {missing[0]}, never runs"
                if missing == names[:1]
                else f"{', '.join(missing)} never run{'s' if len(missing) == 1 else ''}"
            )
            never = f" ({which})"
        repeats, leftover = divmod(len(order), num_layers)
        if repeats > 1 and not leftover and order == names * repeats:
            # the whole stack run again: for _ in range(n): for layer in self.layers: ...
            return (
                f"The layers ran in the order {', '.join(order)}: the whole stack runs "
                f"{repeats} times over ({len(order)} layer calls instead of {num_layers}). "
                "A second, outer loop around "
                "the loop over the layers (or calling the stack again) does that; run "
                "each layer once, in order: for layer in self.layers: x = layer(x, ...)."
            )
        if order == names[::-1] and num_layers > 1:  # blind21c-gpt-blocks-in-reverse
            never = (
                f": in reverse, the last layer first ({names[-1]} reads the stack's input "
                f"and {names[0]} feeds what follows: reversed(self.{container}), or a loop "
                "counting down)"
            )
        return (
            f"The layers ran in the order {', '.join(order)}{never}; each of the {num_layers} "
            "layers runs once, in order: for layer in self.layers: x = layer(x, ...)."
        )
    x64 = x.detach().double()
    previous = None
    for i, (_name, inp, out) in enumerate(records):
        if inp is None or out is None:
            return ""
        inp = inp.detach().double()
        if i == 0 and not _close(inp, x64):
            between = norm if norm is not None else final
            if between is not None and _close(inp, between(x64)):
                return _final_norm_before_loop(got, records, container, input_name, final)
            if scaled := constant_factor(inp, x64, int(x64.shape[-1])):
                # blind15g-dec-input-scaled-by-sqrt-d-model: x * sqrt(d_model) before the loop
                return (
                    f"{container}[0] receives {scaled} {input_name}: the stream is scaled "
                    f"before the first layer. The stack "
                    f"feeds its input to the first layer as it is (a scaling such as the "
                    f"embeddings' sqrt(d_model) belongs to the embedding, outside the stack)."
                )
            permuted = _axes_permuted(inp, x64)
            if permuted:  # blind19d-gpt-ids-made-sequence-first: embedding(ids.T)
                first_two = list(permuted) == [1, 0, *range(2, len(permuted))]
                how = (
                    "its first two axes exchanged: a sequence-first (time-major) layout, as "
                    "ids.T or a transpose(0, 1) gives"
                    if first_two
                    else f"its axes permuted as .permute{permuted}"
                )
                return (
                    f"{container}[0] receives {input_name} with {how}, {tuple(inp.shape)} "
                    f"where {tuple(x64.shape)} belongs. Each layer reads its input's axes by "
                    "position, (batch, len, features): in this order it takes the batch axis "
                    "for the positions and attends across the sequences of the batch. Keep "
                    "the batch-first layout throughout."
                )
            if regrouped := _reshaped_input(inp, x64, container, input_name):
                return regrouped
            if added := position_term_note(inp, x64, container, input_name):
                return added
            return f"{container}[0] does not receive {input_name}."
        if i > 0 and not _close(inp, previous):
            if _close(inp, x64):
                return (
                    f"{container}[{i}] receives {input_name}, not {container}[{i - 1}]'s "
                    "output: the layers are not chained. Feed each layer the previous one's "
                    "result, x = layer(x, ...), reassigning x in the loop."
                )
            between = norm if norm is not None else final
            if between is not None and _close(inp, between(previous)):
                return (
                    f"{container}[{i}] receives the final norm of {container}[{i - 1}]'s "
                    "output: the final norm runs once, after the loop "
                    "(for layer in self.layers: x = layer(x, ...); then x = self.norm(x)), "
                    "not after every layer."
                )
            if added := _stream_added_between(
                records, i, x64, container, input_name, got=got, final=final
            ):
                return added
            return f"{container}[{i}] does not receive {container}[{i - 1}]'s output."
        if layer_oracle is not None and not _close(out, layer_oracle(inp, i)):
            if wrong := _argument_problem(module, names[i], call, arguments, norm or final):
                return f"{container}[{i}] {wrong}"
            return (
                f"{container}[{i}], given the input it received, returns something other than "
                "the reference layer with the stack's arguments: are the masks passed on to "
                "every layer, in the right order (layer(x, ...) with the stack's arguments)?"
            )
        previous = out.detach().double()
    last = previous
    streams = _earlier_streams(records, x64, container, input_name)
    if final is None:
        if added := _stream_added_after(got, last, streams, container):
            return added
        if not _close(got, last) and (zeroed := _rows_zeroed(got, last, arguments)):
            return (
                f"The stack's output is {container}[{num_layers - 1}]'s output with {zeroed} set "
                "to 0: the stack returns the last layer's output at every position, padded ones "
                "included (what a later step does with the padded positions is its own choice; "
                "the masks already keep them out of every attention): return x after the loop."
            )
        if combined := _layer_outputs_combined(got, records, container, None):
            return combined
        if not _close(got, last):
            return (
                f"The stack's output is not {container}[{num_layers - 1}]'s output, although in "
                "this configuration nothing follows the last layer (no final norm): return x "
                "after the loop."
            )
        return ""
    expected = final(last)
    if _close(got, expected):
        return ""
    if combined := _layer_outputs_combined(got, records, container, final):
        return combined
    if added := _stream_added_after(got, last, streams, container, final=final):
        return added
    if added := _stream_added_after(got, expected, streams, container, after_final=True):
        return added
    if _close(got, last if unnormed is None else unnormed(last)):
        return (
            "The stack returns the last layer's output without the final norm: in this "
            "configuration the stack ends with x = self.norm(x)."
        )
    between = norm if norm is not None else final
    if _close(got, final(between(last))):
        return (
            f"The stack's output is the final norm applied twice to {container}"
            f"[{num_layers - 1}]'s output: the final norm runs once, after the loop."
        )
    if scaled := constant_factor(got, expected, int(last.shape[-1])):
        # b12b: the tied logits times d_model ** -0.5 were reported as a final norm
        # missing: a scale on the whole output keeps every step but the last right
        return (
            f"The stack's output is {scaled} what the last step gives from "
            f"{container}[{num_layers - 1}]'s output (which is right): a scale on the output "
            "that this model does not have. Remove it."
        )
    # only past an output matrix, whose results are logits: one number added to each row
    # (log-probabilities, a row's maximum or mean subtracted), which a softmax ignores
    if output_rows is not None and (shifted := row_shift_note(got, expected)):
        return f"The stack's output is not the logits themselves: {shifted}"
    # only past an output matrix: a factor per feature of a norm's output is its gain
    if output_rows is not None and (factors := column_factors(got, expected)) is not None:
        # blind25c-gpt-tied-output-unit-rows: the embedding rows normalised, told "apply
        # self.norm once": a factor per output column rescales the output matrix's rows
        return _rows_rescaled(factors, output_rows, container, num_layers)
    return (
        f"The stack's output is not the final norm of {container}[{num_layers - 1}]'s output: "
        "apply self.norm once, after the loop."
    )


def _layer_outputs_combined(
    got: Any,
    records: Sequence[tuple[str, torch.Tensor | None, torch.Tensor | None]],
    container: str,
    final: Callable[[torch.Tensor], torch.Tensor] | None,
) -> str:
    """The stack's output as the mean or the sum of every layer's output (through
    ``final`` when there is one): the layers' outputs aggregated, as layer-averaging and
    deep-supervision code does, where the stack returns the last layer's output alone.
    "" when neither fits (or the records are no tensors of one shape)."""
    outs = [r[2] for r in records]
    if len(outs) < 2 or not torch.is_tensor(got):
        return ""
    if not all(torch.is_tensor(o) and o.shape == got.shape for o in outs):
        return ""
    stacked = torch.stack([o.detach().double() for o in outs])  # (num_layers, *got.shape)
    through = final if final is not None else (lambda t: t)
    for how, combined in (("mean", stacked.mean(0)), ("sum", stacked.sum(0))):
        value = _value_or_none(lambda combined=combined: through(combined))
        if value is not None and _close(got, value):
            then = " then the final norm of that," if final is not None else ""
            return (
                f"The stack's output is the {how} of every layer's output ({container}[0] .. "
                f"{container}[{len(outs) - 1}]),{then} not the last layer's output: the layers "
                f"are chained, each refining the previous one's result, and only the last "
                f"one's is returned"
                + (" (then the final norm)" if final is not None else "")
                + ": for layer in self.layers: x = layer(x, ...); no list of the outputs to "
                f"{'average' if how == 'mean' else 'add up'}."
            )
    return ""


def _value_or_none(compute: Callable[[], Any]) -> Any:
    """``compute()``, or None when it raises (a probe only)."""
    try:
        return compute()
    except Exception:
        return None


def _final_norm_before_loop(
    got: Any,
    records: Sequence[tuple[str, Any, Any]],
    container: str,
    input_name: str,
    final: Callable[[torch.Tensor], torch.Tensor] | None,
) -> str:
    """layers[0] reads the final norm of the stack's input: that, and what becomes of the
    last layer's output (returned un-normalised: the norm moved before the loop; through
    the norm as well: applied twice)."""
    last_out = records[-1][2]
    text = (
        f"{container}[0] receives {input_name} normalised by the final norm: self.norm is "
        "applied before the first layer"
    )
    if last_out is not None and _close(got, last_out):
        text += (
            ", and the stack returns the last layer's output without it (the output is never "
            "normalised)"
        )
    elif last_out is not None and final is not None and _close(got, final(last_out.double())):
        text += ", and again after the last layer (it runs twice)"
    what = "the final norm runs once" if final is not None else "this stack has no final norm"
    where = (
        ", after the loop (for layer in self.layers: x = layer(x, ...); then x = self.norm(x))"
        if final is not None
        else ""
    )
    return f"{text}. {what[0].upper()}{what[1:]}{where}; the first layer reads x as it is."


#: a stream added back by the stack itself after the loop: the stack's input (a skip
#: connection from the bottom) or an earlier layer's output
_SKIP_AFTER_LOOP = (
    "{0} plus {1}: an extra skip connection added by the stack itself{2} (a line such as "
    "x = x + {3} after the loop). Each layer already adds its own residuals inside; the "
    "stack only chains them, for layer in self.layers: x = layer(x, ...), and returns {4}."
)
_SKIP_EVERY_LAYER = (
    "{0}[{1}] receives {0}[{2}]'s output plus {3}: the stack adds its input back after "
    "every layer (x = layer(x, ...) + input in the loop, a skip connection from the bottom "
    "of the stack). Each layer already adds its own residuals inside; the stack only chains "
    "them: x = layer(x, ...)."
)


def _earlier_streams(
    records: Sequence[tuple[str, Any, Any]], x64: torch.Tensor, container: str, input_name: str
) -> list[tuple[str, str, torch.Tensor]]:
    """(what it is, what code would call it, the value) of every stream a stack could add
    back to its last layer's output: the stack's input, then each later layer's input
    (the previous layer's output); the last layer's input comes last."""
    streams = [(input_name, "input", x64)]
    for i, (_name, inp, _out) in enumerate(records[1:], 1):
        if inp is not None:
            what = f"{container}[{i}]'s input ({container}[{i - 1}]'s output)"
            streams.append((what, "h", inp.detach().double()))
    return streams


def _stream_added_after(
    got: Any,
    base: torch.Tensor,
    streams: Sequence[tuple[str, str, torch.Tensor]],
    container: str,
    *,
    final: Callable[[torch.Tensor], torch.Tensor] | None = None,
    after_final: bool = False,
) -> str:
    """When ``got`` is the last layer's output ``base`` plus one of the recorded
    ``streams`` (the last stream being the last layer's own input): which one, and where
    it is added. ``final``: the sum goes through the final norm; ``after_final``:
    ``base`` is the final norm's output already, the stream added after it. With one
    layer the stack's input is the last layer's input too: both readings are named."""
    last = f"{container}[{len(streams) - 1}]"
    fits = [
        (what, code)
        for what, code, stream in streams
        if stream.shape == base.shape  # a final step may change the width (GPT's logits)
        and _close(got, base + stream if final is None else final(base + stream))
    ]
    if not fits:
        return ""
    what, code = fits[0]
    own_input = len(streams) == 1 or (code != "input" and what == streams[-1][0])
    if own_input and not after_final:
        start = "The stack's output is" if final is None else "The final norm receives"
        text = _EXTRA_RESIDUAL.format(start, last)
        if len(streams) == 1:  # one layer: its input is the stack's input
            text += f" (With one layer this is also {what} added back around the whole stack.)"
        return text
    if final is not None:
        start = f"The final norm receives {last}'s output"
    elif after_final:
        start = f"The stack's output is the final norm of {last}'s output"
    else:
        start = f"The stack's output is {last}'s output"
    returns = (
        "the last layer's output as it is"
        if final is None and not after_final
        else "the final norm of the last layer's output, self.norm(x)"
    )
    where = " around the whole stack" if code == "input" else ""
    return _SKIP_AFTER_LOOP.format(start, what, where, code, returns)


def _stream_added_between(
    records: Sequence[tuple[str, Any, Any]],
    i: int,
    x64: torch.Tensor,
    container: str,
    input_name: str,
    *,
    got: Any = None,
    final: Callable[[torch.Tensor], torch.Tensor] | None = None,
) -> str:
    """When layer ``i``'s input (``records[i]``) is the previous layer's output plus a
    stream: the previous layer's input (a residual around each whole layer) or the
    stack's input (added back after every layer). The two are the same tensor for
    layers[1]; the layers after it tell them apart, and so does the stack's output
    ``got`` (through ``final``, what follows the loop) after the last layer, where the
    two sums differ (blind13b-gpt-extra-residual-around-blocks, two layers, got both
    named); both are named when nothing does."""
    readings = {
        "around": lambda k: (
            records[k - 1][1].detach().double() + records[k - 1][2].detach().double()
        ),
        "bottom": lambda k: x64 + records[k - 1][2].detach().double(),
    }
    fits = []
    for reading, value in readings.items():
        if all(
            records[k][1] is not None
            and records[k - 1][1] is not None
            and records[k - 1][2] is not None
            and _close(records[k][1], value(k))
            for k in range(i, len(records))
        ):
            fits.append(reading)
    if len(fits) == 2 and final is not None and torch.is_tensor(got):
        last_in, last_out = records[-1][1], records[-1][2]
        if torch.is_tensor(last_in) and torch.is_tensor(last_out):
            ends = {
                "around": last_in.detach().double() + last_out.detach().double(),
                "bottom": x64 + last_out.detach().double(),
            }
            try:
                told = [r for r in fits if _close(got, final(ends[r]))]
            except Exception:  # a final step that refuses the sum: no tie-break
                told = fits
            fits = told or fits
    around = _EXTRA_RESIDUAL.format(f"{container}[{i}] receives", f"{container}[{i - 1}]")
    bottom = _SKIP_EVERY_LAYER.format(container, i, i - 1, input_name, "input")
    if fits == ["around"]:
        return around
    if fits == ["bottom"]:
        return bottom
    if fits:
        return (
            f"On these inputs two mistakes give what yours gives, so it is one of them: (1) "
            f"{around} (2) {bottom}"
        )
    return ""


def column_factors(got: Any, expected: Any) -> torch.Tensor | None:
    """When ``got`` is ``expected`` with each column (index of the last axis) multiplied by
    its own factor, not all alike: the factors (columns,), float64; None otherwise (shapes
    differ, a column is too small to read its factor, or no such factors fit)."""
    try:
        g = torch.as_tensor(got).detach().double()
        e = torch.as_tensor(expected).detach().double()
    except (TypeError, RuntimeError, ValueError):
        return None
    if g.shape != e.shape or g.dim() < 2 or g.shape[-1] < 2:
        return None
    g, e = g.reshape(-1, g.shape[-1]), e.reshape(-1, e.shape[-1])  # (rows, columns)
    if g.shape[0] < 2:
        return None  # one entry per column: any factors fit
    scale = (e * e).sum(0)  # (columns,)
    if bool((scale <= 1e-12 * float(scale.max())).any()):
        return None
    factors = (g * e).sum(0) / scale  # (columns,): least squares per column
    if not _close(g, e * factors) or _close(factors, factors.mean().expand_as(factors)):
        return None
    return factors


def _rows_rescaled(
    factors: torch.Tensor,
    output_rows: tuple[str, torch.Tensor] | None,
    container: str,
    num_layers: int,
) -> str:
    """The message for an output whose columns each carry their own factor: the output
    matrix's rows rescaled, with the rescaling named when the rows' lengths explain it."""
    shown = ", ".join(f"{float(f):.3g}" for f in factors[:4]) + (
        ", ..." if len(factors) > 4 else ""
    )
    told = (
        f"The stack's output is the right output (from {container}[{num_layers - 1}]'s output "
        f"and the final norm, both right) with each output column multiplied by its own "
        f"factor ({shown}): the rows of the output matrix are rescaled, each by its own "
        "number."
    )
    if output_rows is None:
        return told + " Multiply by the output matrix itself, unchanged."
    name, rows = output_rows  # rows: (out_features, features)
    lengths = torch.as_tensor(rows).detach().double().norm(dim=-1)  # (out_features,)
    if lengths.shape != factors.shape:
        return told + f" Multiply by {name} itself, unchanged."
    # {what the factors are: what the output matrix then is}
    causes = {
        "1 / the length of each row": f"{name}'s rows normalised to unit length "
        f"(F.normalize({name}, dim=-1): cosine logits)",
        "the length of each row": f"{name}'s rows each multiplied by its own length",
        "1 / the squared length of each row": f"{name}'s rows each divided by its squared length",
    }
    for (factor, made), expected in zip(
        causes.items(), (1 / lengths, lengths, 1 / lengths**2), strict=True
    ):
        ratio = factors / expected
        if _close(ratio, ratio.mean().expand_as(ratio), rtol=1e-3, atol=0):
            common = float(ratio.mean())
            also = f", times {common:.4g}" if abs(common - 1) > 1e-3 else ""
            return (
                f"{told} The factors are {factor} of {name}{also}: your output multiplies by "
                f"{made}{also and ', then scaled'}, where {name} itself belongs, unchanged."
            )
    return told + f" Multiply by {name} itself, unchanged."


def constant_factor(got: Any, expected: Any, width: int) -> str:
    """When ``got`` is ``expected`` times one number (not 1), that number in words, with
    the constant of the model's width ``width`` (d_model) it equals, if any ("0.25 times,
    1 / sqrt(d_model) = d_model ** -0.5 with d_model = 16,"); "" otherwise (shapes differ,
    no single factor fits, or the factor is 1)."""
    try:
        g = torch.as_tensor(got).detach().double().flatten()
        e = torch.as_tensor(expected).detach().double().flatten()
    except (TypeError, RuntimeError, ValueError):
        return ""
    if g.shape != e.shape or float(e.norm()) == 0.0:
        return ""
    factor = float(g @ e / (e @ e))
    if abs(factor - 1) < 1e-3 or not _close(g, factor * e):
        return ""
    root = width**0.5
    known = {
        root: "sqrt(d_model)",
        1 / root: "1 / sqrt(d_model) = d_model ** -0.5",
        float(width): "d_model",
        1 / width: "1 / d_model",
        -1.0: "minus one",
    }
    named = next(
        (name for value, name in known.items() if abs(factor - value) < 1e-3 * abs(value)), ""
    )
    with_width = f", {named} with d_model = {width}," if named and "d_model" in named else ""
    if named == "minus one":
        return "minus (-1 times)"
    return f"{factor:.4g} times{with_width}"


def _rows_zeroed(got: Any, last: torch.Tensor, arguments: Sequence[tuple[str, Any]]) -> str:
    """When ``got`` (batch, len, d) is ``last`` with some positions' rows all zeros and every
    other row equal: which positions, named as the padded ones of a (batch, 1, 1, len)
    mask among ``arguments`` when its False entries are exactly those positions
    (blind15g-enc-pad-outputs-zeroed); "" otherwise."""
    if not isinstance(got, torch.Tensor) or got.shape != last.shape or got.dim() != 3:
        return ""
    g = got.detach().double()
    zero = (g == 0).all(dim=-1)  # (batch, len)
    kept = ~zero
    if not zero.any() or not torch.allclose(g[kept], last[kept], rtol=1e-4, atol=1e-5):
        return ""
    if bool((last[zero] == 0).all()):
        return ""
    for name, value in arguments:
        if (
            isinstance(value, torch.Tensor)
            and value.dtype == torch.bool
            and value.dim() == 4
            and tuple(value.shape[1:3]) == (1, 1)
            and value.shape[-1] == g.shape[1]
            and torch.equal(~value[:, 0, 0, :].expand(zero.shape), zero)
        ):
            return f"the rows at the padded positions (where {name} is False)"
    where = [
        f"sentence {b}: {', '.join(str(int(t)) for t in zero[b].nonzero().flatten())}"
        for b in range(zero.shape[0])
        if zero[b].any()
    ]
    return f"the rows at some positions ({'; '.join(where)})"


def _same_shape_equal(a: torch.Tensor, b: Any) -> bool:
    return isinstance(b, torch.Tensor) and tuple(a.shape) == tuple(b.shape) and torch.equal(a, b)


def _layers_without_mask(with_mask: list[str], without: list[str], label: str) -> str:
    """The layers' side of :func:`mask_reaches_part` when the attentions are named
    ``layers.<i>.…`` and the masked ones come first: "Only the first layer gets it: the
    later layers ... attend without it"; "" when the names carry no layer index or the sides interleave."""
    found = [
        [re.match(r"(?:.*\.)?layers\.(\d+)\.", n) for n in side] for side in (with_mask, without)
    ]
    if not all(all(side) for side in found):
        return ""
    masked, unmasked = ([int(m.group(1)) for m in side] for side in found)
    if max(masked) >= min(unmasked):
        return ""
    first = "the first layer gets" if masked == [0] else f"layers {', '.join(map(str, masked))} get"
    later = ", ".join(f"layers.{i}" for i in unmasked)
    return (
        f" Only {first} it: the later layers ({later}) attend without it, to every "
        f"position {label} forbids. A later layer does not inherit the mask: each attention "
        "sees all its keys unless its own call masks them."
    )


def mask_reaches_part(
    module: nn.Module, call: Callable[[], Any], given: Mapping[str, tuple[str, Any]]
) -> str:
    """When some attentions of a role (``self_attn`` in every layer of a stack, say) get the
    mask the module was given, ``given[role] = (its name, the mask)``, and others of the
    same role get no mask at all (None): the mask applied to part of the stack, named with
    the attentions on each side (blind misses: tgt_mask set to None after the first layer
    was told only that the self-attention must get tgt_mask); "" otherwise."""
    try:
        seen = [
            (name, role, kwargs.get("mask", args[3] if len(args) > 3 else None))
            for name, role, args, kwargs in inputs_received(module, given, call)
        ]
    except Exception:  # a probe only: nothing to say
        return ""
    for role, (label, wanted) in given.items():
        if not isinstance(wanted, torch.Tensor):
            continue
        calls = [(name, mask) for name, r, mask in seen if r == role]
        with_mask = [
            name
            for name, mask in calls
            if isinstance(mask, torch.Tensor) and _same_shape_equal(mask, wanted)
        ]
        without = [name for name, mask in calls if mask is None]
        if not with_mask or not without or len(with_mask) + len(without) != len(calls):
            continue
        missing, kept = ", ".join(f"`{n}`" for n in without), ", ".join(f"`{n}`" for n in with_mask)
        return (
            f"{missing} {'get' if len(without) > 1 else 'gets'} no mask (None), while {kept} "
            f"{'get' if len(with_mask) > 1 else 'gets'} {label}: the mask reaches only part "
            "of the attentions (a variable set to None after the first layer, a keyword left "
            "out of some calls, a condition on the layer's index)."
            f"{_layers_without_mask(with_mask, without, label)} Every layer needs {label} "
            f"(every `{role}`): pass it to every layer, unchanged."
        )
    return ""


def mask_arrival_hint(
    module: nn.Module, call: Callable[[], Any], given: Mapping[str, tuple[str, Any]]
) -> list:
    """A hint for an exception a layer or stack raised: the first attention (a submodule
    named as a key of ``given``, such as ``self_attn``, in the layer or in any layer of a
    stack) whose mask argument does not have the shape of the mask the module was given,
    ``given[role] = (its name, the mask)``: the mask reshaped on the way (a squeeze(), an
    unsqueeze, a view), found with pre-hooks."""

    def hit(_exc: BaseException) -> str:
        seen = [
            (name, role, kwargs.get("mask", args[3] if len(args) > 3 else None))
            for name, role, args, kwargs in inputs_received(module, given, call)
        ]
        for name, role, mask in seen:
            label, wanted = given[role]
            if not isinstance(wanted, torch.Tensor) or not isinstance(mask, torch.Tensor):
                continue
            shown = name if "." in name else f"self.{name}"
            if tuple(mask.shape) == tuple(wanted.shape):
                if (
                    wanted.dim() >= 2
                    and not torch.equal(mask, wanted)
                    and torch.equal(mask, wanted.transpose(-2, -1))
                ):  # blind12n-dl-tgt-mask-transposed: read as (key, query)
                    return (
                        f"`{shown}` gets {label} transposed, its last two axes (queries, keys) "
                        f"swapped, as if it were laid out (key, query): each query then reads "
                        "the keys of another query's row (a look-ahead mask flipped: every "
                        "position sees itself and the later positions instead of the earlier "
                        f"ones). Pass {label} on as it is: (..., len_q, len_k), the layout of the "
                        "attention scores."
                    )
                if (
                    mask.dtype == torch.bool
                    and wanted.dtype == torch.bool
                    and not bool(wanted.all())
                    and torch.equal(mask, ~wanted)
                ):  # blind21b-dl-cross-mask-inverted: ~src_mask, True read as "blocked"
                    return (
                        f"`{shown}` gets {label} inverted (~{label}): every True turned False "
                        "and every False True, so each query may attend only to the positions "
                        f"{label} blocks and never to the ones it allows. In this course True "
                        "marks a position that may be attended (the opposite of the bool "
                        "masks of PyTorch's nn.MultiheadAttention, key_padding_mask and "
                        f"attn_mask, where True blocks): pass {label} on as it is."
                    )
                continue
            other = next(
                (
                    other_label
                    for other_role, (other_label, other_mask) in given.items()
                    if other_role != role
                    and isinstance(other_mask, torch.Tensor)
                    and tuple(other_mask.shape) == tuple(mask.shape)
                    and torch.equal(other_mask, mask)
                ),
                None,
            )
            if other is not None:
                # the other mask's own attention: gets that mask too (one mask in both
                # slots, blind18e-dec-src-mask-in-both-slots) or this one (exchanged)
                own_role = next(r for r, (lab, _) in given.items() if lab == other)
                also = [
                    n
                    for n, r, m in seen
                    if r == own_role
                    and isinstance(m, torch.Tensor)
                    and _same_shape_equal(m, given[own_role][1])
                ]
                if also:
                    also_shown = also[0] if "." in also[0] else f"self.{also[0]}"
                    return (
                        f"`{shown}` gets {other}, where {label} belongs, and `{also_shown}` "
                        f"gets {other} as well: {other} is passed in both mask slots and "
                        f"{label} in none (a call with {other} twice)."
                    )
                return (
                    f"`{shown}` gets {other}, where {label} belongs: the masks are exchanged "
                    "on the way (the order of forward's parameters, or of a call's arguments)."
                )
            if copies := mask_copies(mask, wanted, label):
                # blind26b-enc-mask-flattened-to-batch-times-heads, -dec-src-mask-tiled-per-head
                return f"`{shown}` {copies}"
            if how := rearrangement(mask, wanted):
                return (
                    f"`{shown}` gets {label} with {how}: shape {tuple(mask.shape)}, where the "
                    f"module was given {label} of shape {tuple(wanted.shape)}. Pass it on as it "
                    "is: it broadcasts against the attention scores (batch, num_heads, len_q, "
                    "len_k) by itself."
                )
            if mask.numel() == wanted.numel() and torch.equal(
                mask.reshape(-1).to(wanted.dtype), wanted.reshape(-1)
            ):
                return (
                    f"`{shown}` gets a mask of shape {tuple(mask.shape)}, where the module was "
                    f"given {label} of shape {tuple(wanted.shape)}: the same values, reshaped on "
                    "the way (a squeeze(), an unsqueeze() or a view()?). Pass it on as it is: it "
                    "broadcasts against the attention scores (batch, num_heads, len_q, len_k) "
                    "by itself."
                )
        return ""

    return [(Exception, hit)]


def stack_input_hint(
    module: nn.Module, call: Callable[[], Any], x: torch.Tensor, num_layers: int
) -> list:
    """A hint for an exception a stack raised (class 5, round 10: each layer's output
    indexed with [0], as if it were a tuple): the first layer whose input is not
    (batch, len, d_model) like the stack's input, found with pre-hooks, and what its
    shape says (the batch axis gone, one axis too many)."""

    def hit(_exc: BaseException) -> str:
        named = dict(module.named_modules())
        if any(f"layers.{i}" not in named for i in range(num_layers)):
            return ""
        seen = [
            (int(role), args[0] if args else next(iter(kwargs.values()), None))
            for name, role, args, kwargs in inputs_received(
                module, {str(i) for i in range(num_layers)}, call
            )
            if name == f"layers.{role}"
        ]
        for i, inp in seen:
            shape = tuple(inp.shape) if isinstance(inp, torch.Tensor) else None
            if shape == tuple(x.shape):
                continue
            where = (
                "the stack's input x"
                if i == 0
                else f"what layers[{i - 1}] returned, passed on by your loop"
            )
            what = f"a {type(inp).__name__}" if shape is None else f"shape {shape}"
            lost = ""
            if shape == tuple(x.shape[1:]):
                lost = (
                    " The batch axis is gone: a layer returns the tensor itself, (batch, len, "
                    "d_model), not a tuple, so indexing its result ([0]) keeps only the first "
                    "sequence. Use it as it is: x = layer(x, ...)."
                )
            return (
                f"layers[{i}] received {what}, where it should get {where}, shaped like x "
                f"{tuple(x.shape)}.{lost}"
            )
        return ""

    return [(Exception, hit)]


def _axes_permuted(got: torch.Tensor, x: torch.Tensor) -> tuple[int, ...] | None:
    """The permutation of ``x``'s axes (not the identity) that gives ``got``, if one does."""
    from itertools import permutations

    if got.dim() != x.dim() or got.dim() > 5 or (got.shape == x.shape and torch.equal(got, x)):
        return None
    for order in permutations(range(x.dim())):
        if list(order) == list(range(x.dim())):
            continue
        moved = x.permute(order)
        if moved.shape == got.shape and _close(got, moved):
            return tuple(order)
    return None


def _reshaped_input(inp: torch.Tensor, x64: torch.Tensor, container: str, input_name: str) -> str:
    """The first layer's input holding the right values in another shape, in the same
    order (blind26c-gpt-batch-packed-into-one-row: embedding(ids.reshape(1, batch * len)),
    the sequences of the batch joined into one row); "" otherwise."""
    if inp.shape == x64.shape or inp.numel() != x64.numel() or x64.dim() < 3:
        return ""
    if not _close(inp.reshape(x64.shape), x64):
        return ""
    batch = x64.shape[0]
    shape = tuple(inp.shape)
    if inp.dim() == x64.dim() and shape[0] < batch and shape[-1] == x64.shape[-1]:
        joined = batch // shape[0]
        how = (
            f"the {batch} sequences of the batch joined end to end into one long sequence of "
            f"{shape[1]} positions"
            if shape[0] == 1
            else f"every {joined} sequences of the batch joined end to end into one row"
        )
        return (
            f"{container}[0] receives {input_name} reshaped to {shape} where {tuple(x64.shape)} "
            f"belongs: {how}. Each layer treats a row as one sequence, so the rows of "
            "the batch attend to each other (a sequence's positions see the earlier sequences "
            "of the batch, and its positions are counted on after theirs): a row's result "
            "depends on the other rows. Keep the batch axis, (batch, len, d_model), through "
            "the layers; each sequence is processed independently."
        )
    return (
        f"{container}[0] receives {input_name} reshaped to {shape} where {tuple(x64.shape)} "
        f"belongs (the same values, regrouped): the layers read their input's axes as "
        f"(batch, len, features). Keep the {tuple(x64.shape)} layout through the layers."
    )
