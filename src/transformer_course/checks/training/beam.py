"""Checks for lesson 10's beam_search, on tiny reference Transformers with fixed weights."""

from __future__ import annotations

import contextlib
import io
import re
import warnings

import torch

from transformer_course.checking import Checker, CheckFailure, numpy_rng
from transformer_course.checking.hooks import argument_received
from transformer_course.checking.objects import course_object
from transformer_course.reference.transformer import Transformer, greedy_decode

from .common import deterministic_state

_BEAM_MODEL = {"d_model": 8, "num_heads": 2, "num_layers": 1, "d_ff": 16, "max_len": 24}
BEAM_VOCAB = 8  # the vocabulary size of beam search's tiny models


def beam_model(seed: int, pad_id: int, bos_id: int, eos_id: int, eos_bias: float):
    """A tiny reference Transformer with fixed weights; <pad> and <bos> never win, <eos>
    is made more or less likely with ``eos_bias``."""
    model = course_object(
        Transformer, BEAM_VOCAB, BEAM_VOCAB, dropout=0.0, pad_id=pad_id, **_BEAM_MODEL
    )
    state = deterministic_state(model, seed)
    state["output.bias"] = state["output.bias"].clone()
    state["output.bias"][pad_id] = -30.0
    state["output.bias"][bos_id] = -30.0
    state["output.bias"][eos_id] += eos_bias
    model.load_state_dict(state)
    model.eval()
    return model


#: the length penalty is used in two places, the stopping rule and the choice of the
#: answer; each variant here is how a learner's search scores the finished hypotheses in
#: each place: normalised (the contract, score / lp(L)), raw (score) or multiplied
#: (score * lp(L)), in one place or both
_PENALTY_PLACES = {
    "no_normalisation": ("raw", "raw"),
    "multiplied_penalty": ("multiplied", "multiplied"),
    "raw_stop": ("raw", "normalised"),
    "raw_choice": ("normalised", "raw"),
    "multiplied_stop": ("multiplied", "normalised"),
    "multiplied_choice": ("normalised", "multiplied"),
}


def _search(
    model,
    src_row,
    beam_size,
    max_len,
    bos_id,
    eos_id,
    alpha,
    variant="",
    replays=None,
    emptied=None,
):
    """The reference search for one source row, or a known variant of it. ``replays``: a
    dict kept for one check call, in which the decoder's logits for a beam (model, source
    row, live hypotheses) are computed once and reused by every search that reaches the
    same beam (most variants share the reference's first steps): the same call on the same
    inputs, so the same numbers. ``emptied``: a list to which the step number is appended
    when the new beam comes out empty (no live hypothesis left)."""
    stop_mode, choice_mode = _PENALTY_PLACES.get(variant, ("normalised", "normalised"))

    def penalty(length):
        if variant == "no_eos_in_length":
            length -= 1
        if variant == "bos_in_length":
            length += 1
        if variant == "hf_penalty":
            return length**alpha
        if variant == "length_average":  # score / L, whatever α: a mean log-probability
            return length
        # the family 'the penalty's parentheses left out': ** binds tighter than /
        if variant == "penalty_unparenthesised":  # score / (5 + L) / 6 ** α
            return (5 + length) * 6**alpha
        if variant == "penalty_power_of_six":  # score / ((5 + L) / 6 ** α)
            return (5 + length) / 6**alpha
        return ((5 + length) / 6) ** alpha

    def scored(hypothesis, mode):
        if mode == "raw":
            return hypothesis[1]
        if mode == "multiplied":
            return hypothesis[1] * penalty(len(hypothesis[0]))
        return hypothesis[1] / penalty(len(hypothesis[0]))

    replays = {} if replays is None else replays
    with torch.no_grad():
        src = src_row[None]
        row_key = (id(model), tuple(src_row.tolist()))
        # product: the scores are products of probabilities, starting from 1
        beam, finished = [([], 1.0 if variant == "product" else 0.0)], []
        if variant == "copies":  # beam_size copies of the empty hypothesis
            beam = beam * beam_size
        # the family 'the loop bound off by one': one step more or fewer than max_len
        steps = max_len + {"extra_step": 1, "step_short": -1}.get(variant, 0)
        for _ in range(steps):
            if variant in _EXTENDED_ONLY:  # the family 'not every live hypothesis extended'
                beam = _EXTENDED_ONLY[variant](beam)
            # the family 'the decoder started from another token than <bos>'
            first = {"start_eos": eos_id, "start_pad": getattr(model, "pad_id", 0)}.get(
                variant, bos_id
            )
            prefixes = tuple((first, *t) for t, _ in beam)
            if (row_key, prefixes) not in replays:
                if row_key not in replays:
                    replays[row_key] = model.encode(src)
                memory = replays[row_key]
                tokens = torch.tensor(prefixes)
                k = tokens.shape[0]
                replays[(row_key, prefixes)] = model.decode(
                    tokens, memory.expand(k, -1, -1), src.expand(k, -1)
                )
            logits = replays[(row_key, prefixes)]
            if variant == "raw_logits":
                step = logits[:, -1]
            elif variant == "first_position":
                step = torch.log_softmax(logits[:, 0], -1)
            elif variant in ("probabilities", "product"):
                step = torch.softmax(logits[:, -1], -1)
            elif variant == "softmax_hypotheses":  # over the k axis of (k, vocab)
                step = torch.log_softmax(logits[:, -1], 0)
            else:
                step = torch.log_softmax(logits[:, -1], -1)
            if _ < _EOS_BLOCKED_STEPS.get(variant, 0):  # a minimum length: no <eos> yet
                step = step.clone()
                step[:, eos_id] = -float("inf")
            if variant in _NGRAM_BLOCKED:  # no n-gram twice in a hypothesis
                step = step.clone()
                for h, (tokens, _score) in enumerate(beam):
                    for token in _repeating_tokens(tokens, _NGRAM_BLOCKED[variant]):
                        step[h, token] = -float("inf")
            if variant in _ONE_ROW_FOR_ALL:  # one hypothesis's (vocab,) row broadcast
                step = step[_ONE_ROW_FOR_ALL[variant]].expand_as(step)  # (k, vocab)
            parents = torch.tensor([s for _, s in beam])[:, None]
            if variant == "product":
                scores = parents * step
            elif variant == "last_token_only":  # the parent's score is not added
                scores = step
            else:
                scores = parents + step
            ascending = variant == "ascending"
            order = scores.flatten().argsort(descending=not ascending, stable=True).tolist()
            if variant == "per_parent":  # each parent's best beam_size, parent 0's first
                vocab = scores.shape[1]
                best = scores.argsort(dim=-1, descending=True, stable=True)[:, :beam_size]
                order = (best + torch.arange(scores.shape[0])[:, None] * vocab).flatten().tolist()
            new_beam = []
            if variant == "finished_reset":  # new_beam, finished = [], [] at every step
                finished = []
            if variant in ("shrinking", "finished_in_beam"):
                # shrinking: each finished hypothesis costs the beam one place for good;
                # finished_in_beam: finished candidates take places in this step's beam
                width = beam_size - len(finished) if variant == "shrinking" else beam_size
                for index in order[: max(width, 0)]:
                    parent, token = divmod(index, scores.shape[1])
                    item = (beam[parent][0] + [token], float(scores[parent, token]))
                    (finished if token == eos_id else new_beam).append(item)
            elif variant == "finished_from_top_2k":
                # fairseq's cand_size: the top 2 * beam_size candidates walked whole, every
                # <eos> among them set aside, also those ranked after the beam was full
                for index in order[: 2 * beam_size]:
                    parent, token = divmod(index, scores.shape[1])
                    item = (beam[parent][0] + [token], float(scores[parent, token]))
                    if token == eos_id:
                        finished.append(item)
                    elif len(new_beam) < beam_size:
                        new_beam.append(item)
            else:
                for index in order:
                    parent, token = divmod(index, scores.shape[1])
                    # what the new hypothesis appends: the token, or another number the
                    # walk has at hand (the family 'the hypothesis extended wrongly')
                    appended = _APPENDED.get(variant, lambda i, p, t: [t])(index, parent, token)
                    item = (beam[parent][0] + appended, float(scores[parent, token]))
                    if token == eos_id:
                        if variant == "eos_free":  # the parent's score: <eos> costs nothing
                            item = (item[0], beam[parent][1])
                        if variant == "eos_not_stored":  # the parent's tokens, no <eos>
                            item = (beam[parent][0], item[1])
                        finished.append(item)
                    else:
                        new_beam.append(item)
                        if _walk_ends(variant, len(new_beam), beam_size):
                            break
            beam = new_beam
            if not beam:
                if emptied is not None:
                    emptied.append(_)
                break
            if variant == "first_finished":
                stop = bool(finished)
            elif variant == "count_rule":
                stop = len(finished) >= beam_size
            elif variant == "to_max_len":
                stop = False
            elif variant in _STOP_PICKS:  # the family 'the wrong hypotheses compared'
                pick, live = _STOP_PICKS[variant]
                best = pick((scored(h, stop_mode) for h in finished), default=None)
                stop = best is not None and best >= beam[live][1]
            else:
                best = max((scored(h, stop_mode) for h in finished), default=None)
                live = scored(beam[0], "normalised") if variant == "normalised_live" else beam[0][1]
                stop = best is not None and best >= live
            if stop:
                break
        if variant == "live_joins":
            pool = finished + beam
        elif variant == "live_first":  # a live hypothesis wins whenever one is left
            pool = beam or finished
        else:
            pool = finished or beam
        if variant == "last_collected":
            return pool[-1][0]
        if variant == "worst_live" and not finished:  # beam[-1], the live one of lowest score
            return beam[-1][0]
        if variant == "answer_min":  # min where max belongs: the lowest score wins
            return min(pool, key=lambda h: scored(h, choice_mode))[0]
        return max(pool, key=lambda h: scored(h, choice_mode))[0]


#: the family 'not every live hypothesis extended': the hypotheses of the beam that each
#: step grows (the rest are dropped, never extended again)
_EXTENDED_ONLY = {
    "best_only": lambda beam: beam[:1],
    "last_only": lambda beam: beam[-1:],
}


#: the family 'a minimum length': <eos> forbidden (its log-probability -inf) while the
#: step number is below this many
_EOS_BLOCKED_STEPS = {"eos_blocked_1": 1, "eos_blocked_2": 2, "eos_blocked_3": 3}


#: the family 'repetition blocked' (OpenNMT's block_ngram_repeat, Hugging Face's
#: no_repeat_ngram_size): a token that would repeat an n-gram already in the hypothesis
#: gets log-probability -inf; n = 1 forbids any token the hypothesis holds, 0 (no n-gram
#: rule) only the token just before (no immediate repetition)
_NGRAM_BLOCKED = {
    "previous_blocked": 0,
    "ngram_blocked_1": 1,
    "ngram_blocked_2": 2,
    "ngram_blocked_3": 3,
}


def _repeating_tokens(tokens: list[int], n: int) -> set[int]:
    """The tokens that, appended to ``tokens``, would repeat an n-gram they hold (n = 0:
    the last token, an immediate repetition)."""
    if n == 0:
        return set(tokens[-1:])
    if n == 1:
        return set(tokens)
    if len(tokens) < n - 1:
        return set()
    tail = tuple(tokens[len(tokens) - n + 1 :])
    return {
        tokens[i + n - 1]
        for i in range(len(tokens) - n + 1)
        if tuple(tokens[i : i + n - 1]) == tail
    }


def _ngram_blocked_message(n: int) -> str:
    if n == 0:
        return (
            "Your search never lets a token follow itself: at each step the hypothesis's "
            "last token gets log-probability -inf (no immediate repetition). Here the best "
            "hypothesis repeats a token right after itself, so yours differs (with "
            "beam_size=1 it leaves greedy decoding's path where that path repeats). The "
            "contract blocks nothing: every token of the vocabulary is a candidate at every "
            "step; remove the block."
        )
    what = {
        1: "a token the hypothesis already holds",
        2: "a token that would repeat a pair of consecutive tokens (a bigram) the hypothesis "
        "already holds",
        3: "a token that would repeat three consecutive tokens (a trigram) the hypothesis "
        "already holds",
    }[n]
    return (
        f"Your search blocks repetitions: {what} gets log-probability -inf, as OpenNMT's "
        f"block_ngram_repeat={n} or Hugging Face's no_repeat_ngram_size={n} do. Here the "
        "best hypothesis does repeat itself, so yours differs (with beam_size=1 it leaves "
        "greedy decoding's path where that path repeats). The contract has no repetition "
        "blocking: every token of the vocabulary is a candidate at every step; remove the "
        "block."
    )


def _eos_blocked_message(steps: int) -> str:
    when = "at the first step" if steps == 1 else f"during the first {steps} steps"
    return (
        f"Your search never lets <eos> end a hypothesis {when}: it behaves as if "
        f"log_probs[:, eos_id] were set to -inf while step < {steps}, a minimum length of "
        f"{steps} token{'s' if steps > 1 else ''} (so that no translation is empty). Here "
        "the best hypothesis ends sooner, so yours differs. The contract has no minimum "
        "length: <eos> is a candidate at every step, the first included, and a hypothesis "
        "that is <eos> alone (an empty translation) may finish and win."
    )


#: the family 'every hypothesis extended with one hypothesis's next-token distribution':
#: which row of the (k, vocab) log-probabilities is broadcast onto all of them
_ONE_ROW_FOR_ALL = {"first_row_for_all": 0, "last_row_for_all": -1}


#: the family 'the stopping rule compares the wrong hypotheses': which finished score
#: (max: the best, min: the worst) and which live one (0: the best, -1: the worst)
_STOP_PICKS = {
    "stop_worst_live": (max, -1),
    "stop_worst_finished": (min, 0),
    "stop_worst_both": (min, -1),
}


#: the family 'the hypothesis extended wrongly': what a variant appends instead of the
#: token, from (flattened index, parent, token)
_APPENDED = {
    "not_extended": lambda index, parent, token: [],
    "flat_index": lambda index, parent, token: [index],
    "parent_as_token": lambda index, parent, token: [parent],
}


def _walk_ends(variant: str, size: int, beam_size: int) -> bool:
    """Whether the walk down the sorted candidates stops once the new beam holds ``size``
    live hypotheses: the family 'the test that ends the walk is wrong' (its comparison, or
    its bound off by one)."""
    if variant == "walk_not_equal":  # if len(new_beam) != beam_size: break
        return size != beam_size
    if variant == "walk_at_most":  # <= (or <, the same once beam_size > 1)
        return size <= beam_size
    width = beam_size + {"one_more": 1, "one_fewer": -1}.get(variant, 0)
    return size >= max(width, 1)


_BEAM_MESSAGES = {
    "copies": "Your search starts from beam_size copies of the empty hypothesis instead of "
    "one: every candidate then comes beam_size times, the beam fills with copies of the "
    "best one, and the search is greedy decoding. Start from one live hypothesis, "
    "[([], 0.0)]: the beam grows to beam_size from the first step's candidates.",
    "softmax_hypotheses": "Your log-probabilities are taken over the wrong axis: a "
    "log_softmax over the live hypotheses (dim=0 or dim=-2 of the last position's (k, vocab) "
    "logits), not over the vocabulary. With one live hypothesis every token then gets "
    "log 1 = 0, all candidates tie, and the sort keeps the lowest id. Use "
    "torch.log_softmax(logits[:, -1], dim=-1).",
    "raw_logits": "Your scores add up raw logits. A hypothesis's score is the sum of the "
    "log-probabilities of its tokens: take torch.log_softmax of the last position's logits "
    "first (logits of different steps are not on the same scale).",
    "probabilities": "Your scores add up probabilities (softmax), not log-probabilities: a "
    "sum of probabilities favours long hypotheses and is not the hypothesis's probability. "
    "Add torch.log_softmax of the last position's logits.",
    "product": "Your scores multiply probabilities (softmax), starting from 1. The product "
    "ranks hypotheses as the sum of log-probabilities does, but the length penalty divides a "
    "log-probability: dividing a probability by lp(L) > 1 penalises long hypotheses instead "
    "of favouring them. Start from 0 and add torch.log_softmax of the last position's logits.",
    "last_token_only": "Each candidate's score is only its last token's log-probability: add "
    "the parent hypothesis's score (a hypothesis's score is the sum of the log-probabilities "
    "of all its tokens, scores[parent] + log_probs).",
    "multiplied_penalty": "You multiplied the score by the length penalty; divide it: "
    "score / ((5 + L) / 6) ** α (the scores are negative, so multiplying favours short "
    "hypotheses instead of long ones).",
    "penalty_unparenthesised": "Your length penalty divides by (5 + L) * 6 ** α: "
    "score / (5 + L) / 6 ** α without the parentheses of ((5 + L) / 6) ** α (** binds "
    "tighter than /, so it applies to 6 alone, and each / divides once more). Even with "
    "α = 0 every finished score is then divided by 5 + L instead of 1, which favours long "
    "hypotheses. Write score / ((5 + L) / 6) ** α.",
    "penalty_power_of_six": "Your length penalty is (5 + L) / 6 ** α: the parentheses of "
    "((5 + L) / 6) ** α are left out, and ** binds tighter than /, so the power applies "
    "to 6 alone. Even with α = 0 every finished score is then divided by 5 + L instead of "
    "1. Write ((5 + L) / 6) ** α.",
    "answer_min": "You picked the answer with min instead of max: the finished hypothesis "
    "with the LOWEST normalised score, the least probable one. The scores are "
    "log-probabilities (negative, higher is better), not losses: pick max(finished, "
    "key=normalised score).",
    "last_collected": "You returned the last hypothesis collected (finished[-1]) rather "
    "than the best one: pick max(finished, key=normalised score).",
    "worst_live": "When no hypothesis had finished, you returned the last live one "
    "(beam[-1]), the one with the LOWEST score: the beam is sorted best first, so the answer "
    "is the best live hypothesis, beam[0] (max(beam, key=score)).",
    "no_normalisation": "The length penalty is not applied: with length_penalty = α, the "
    "finished hypotheses are compared by score / ((5 + L) / 6) ** α, L counting <eos>.",
    "no_eos_in_length": "Your length penalty counts the tokens without <eos>; in this "
    "contract L counts <eos> too (it is a generated token): lp(L) = ((5 + L) / 6) ** α.",
    "bos_in_length": "Your length penalty counts <bos> in L, one more than the tokens "
    "generated: in this contract L counts the generated tokens, <eos> included and <bos> "
    "not (len(tokens) of a hypothesis that leaves <bos> out): lp(L) = ((5 + L) / 6) ** α.",
    "hf_penalty": "You divided by L ** α (Hugging Face's length_penalty); this contract uses "
    "GNMT's lp(L) = ((5 + L) / 6) ** α.",
    "finished_in_beam": "Finished hypotheses take up places in your beam, so fewer live "
    "hypotheses go on. Set a finished hypothesis aside and keep walking down the sorted "
    "candidates until the new beam again holds beam_size live ones (a fixed beam width).",
    "shrinking": "Your beam shrinks by one every time a hypothesis finishes. In this contract "
    "the width stays beam_size: finished hypotheses are set aside and the beam is refilled "
    "from the next-best candidates.",
    "finished_reset": "Your search forgets the hypotheses that finished at earlier steps: "
    "the list of finished hypotheses is emptied at every step (new_beam, finished = [], [] "
    "inside the loop, say), so the stopping rule and the answer see only those that ended "
    "with <eos> at the last step (or fall back on the best live one when none did). Create "
    "finished once per sentence, before the loop over the steps, and only append to it.",
    "first_finished": "You stopped at the first finished hypothesis, although a live "
    "hypothesis still scored better. Stop only once the best finished hypothesis's normalised "
    "score is at least the best live hypothesis's score (or after max_len steps).",
    "stop_worst_live": "Your stopping rule compares the best finished hypothesis with the "
    "WORST live one (beam[-1], the lowest score of the sorted beam), so the search stops "
    "while a better live hypothesis is still growing. Compare with the best live score, "
    "beam[0] (the beam is sorted best first): stop once the best finished normalised score "
    "is at least beam[0]'s score.",
    "stop_worst_finished": "Your stopping rule compares the WORST finished hypothesis "
    "(min of the normalised scores) with the best live one, so the search goes on after no "
    "live hypothesis can win any more. Stop once the BEST finished normalised score "
    "(max(map(normalised, finished))) is at least the best live score, beam[0]'s.",
    "stop_worst_both": "Your stopping rule compares the WORST finished hypothesis (min of "
    "the normalised scores) with the WORST live one (beam[-1]): stop once the BEST finished "
    "normalised score (max) is at least the BEST live score, beam[0]'s (the beam is sorted "
    "best first).",
    "count_rule": "You stopped as soon as the number of finished hypotheses reached "
    "beam_size. A confident model "
    "finishes several unlikely hypotheses early (each ends with an unlikely <eos>) while the "
    "likely one is still live: the count is reached before the best answer finishes. Stop "
    "when the best finished hypothesis's normalised score is at least the best live score.",
    "to_max_len": "You kept searching after no live hypothesis could win any more. Stop "
    "after the step at which the best finished hypothesis's normalised score is at least the "
    "best live hypothesis's score (not normalised), or after max_len steps.",
    "normalised_live": "Your stopping rule normalises the best live hypothesis's score "
    "too (normalised(beam[0])). The contract compares the best finished normalised score "
    "with the best live score as it is, beam[0][1], not normalised: a live hypothesis can "
    "only lose log-probability as it grows. Divided by the length penalty, the live score "
    "looks better than it is (with length_penalty > 0), so your search runs on past the "
    "step where the contract stops.",
    "eos_free": "Your finished hypotheses keep their parent's score: the log-probability "
    "of the <eos> they end with is left out. <eos> is a generated token like any other; "
    "without its log-probability finishing costs nothing, so finished hypotheses score too "
    "well (the search stops early and prefers them). A finished candidate's score is "
    "scores[parent, eos_id], the parent's score plus log p(<eos>), like any other "
    "candidate's.",
    "raw_stop": "Your search stops on the wrong test: it compares the raw score (the sum "
    "of log-probabilities) of the best finished hypothesis with the best live score, where "
    "the contract compares its *normalised* score, score / ((5 + L) / 6) ** α. With "
    "length_penalty > 0 the two differ, so your search stops at another step than the "
    "contract's and can return another hypothesis.",
    "live_joins": "You let unfinished hypotheses compete with finished ones at the end. A "
    "live hypothesis is chosen only when none has finished at all.",
    "live_first": "You took the answer from the live hypotheses whenever any was left "
    "(max(beam or finished, ...)), so a finished translation is returned only when the beam "
    "is empty. The finished hypotheses come first: a live hypothesis (no <eos> yet) is "
    "chosen only when none has finished at all, max(finished or beam, key=normalised).",
    "raw_choice": "You picked the answer by its raw score: your stopping rule divides by the "
    "length penalty, but the choice of the answer does not. Return the finished hypothesis "
    "with the best score / ((5 + L) / 6) ** α.",
    "multiplied_stop": "Your stopping rule multiplies the best finished score by the length "
    "penalty; divide it, as your choice of the answer does: stop once the best "
    "score / ((5 + L) / 6) ** α of the finished hypotheses is at least the best live score.",
    "multiplied_choice": "You picked the answer by score × ((5 + L) / 6) ** α; divide, as "
    "your stopping rule does: the answer is the finished hypothesis with the best "
    "score / ((5 + L) / 6) ** α.",
    "first_position": "Your scores come from the logits at the first position "
    "(logits[:, 0], the one that reads <bos>); the next token's are at the last position: "
    "torch.log_softmax(logits[:, -1], dim=-1).",
    "extra_step": "Your search runs one step more than max_len allows (range(max_len + 1), "
    "or a loop that tests the length before appending): a hypothesis that never writes "
    "<eos> comes out with max_len + 1 tokens. Run at most max_len steps, "
    "for _ in range(max_len), so that no answer is longer than max_len tokens.",
    "step_short": "Your search runs one step fewer than max_len (range(max_len - 1), or a "
    "loop that stops when the length reaches max_len - 1): a hypothesis that never writes "
    "<eos> comes out with max_len - 1 tokens. Run max_len steps, for _ in range(max_len).",
    "first_row_for_all": "Every hypothesis is extended with the next-token distribution of "
    "the first live hypothesis only: the log-probabilities of logits[0, -1] (a (vocab,) row) "
    "broadcast onto every parent's score, instead of each hypothesis's own row. Keep the "
    "hypothesis axis: log_probs = torch.log_softmax(logits[:, -1], dim=-1), (k, vocab), then "
    "scores = parent_scores[:, None] + log_probs.",
    "last_row_for_all": "Every hypothesis is extended with the next-token distribution of "
    "the last live hypothesis only: the log-probabilities of logits[-1, -1] (a (vocab,) row) "
    "broadcast onto every parent's score, instead of each hypothesis's own row. Keep the "
    "hypothesis axis: log_probs = torch.log_softmax(logits[:, -1], dim=-1), (k, vocab), then "
    "scores = parent_scores[:, None] + log_probs.",
    "per_parent": "Your new beam is not chosen from all the candidates sorted together: "
    "you took each parent hypothesis's own best beam_size tokens and walked them parent by "
    "parent (the first parent's candidates first), so the beam fills from the first "
    "hypothesis whatever the others score. Sort all k × vocab candidates together, "
    "scores.flatten().argsort(descending=True), and walk that one order.",
    "one_more": "Your beam keeps beam_size + 1 live hypotheses (an off-by-one in the test "
    "that ends the walk down the sorted candidates: `> beam_size` after the append, say); "
    "stop the walk as soon as the new beam holds beam_size, `if len(new_beam) == beam_size: "
    "break` right after appending.",
    "one_fewer": "Your beam keeps beam_size - 1 live hypotheses (an off-by-one in the test "
    "that ends the walk down the sorted candidates); stop the walk as soon as the new beam "
    "holds beam_size, `if len(new_beam) == beam_size: break` right after appending.",
    "walk_not_equal": "The test that ends your walk down the sorted candidates does not "
    "stop when the new beam's size equals beam_size: `if len(new_beam) != beam_size: break` "
    "stops after the first live candidate when beam_size > 1 (a beam of one: greedy "
    "decoding), and after two when beam_size is 1. Stop the walk as soon as the new beam "
    "holds beam_size, `if len(new_beam) == beam_size: break` right after appending.",
    "walk_at_most": "The test that ends your walk down the sorted candidates stops after "
    "the first live candidate (`if len(new_beam) <= beam_size: break`, or `<`), so the beam "
    "holds one hypothesis and the search is greedy decoding. Stop the walk when the new "
    "beam's size equals beam_size, `if len(new_beam) == beam_size: break` right after "
    "appending.",
    "best_only": "Only the best live hypothesis (beam[0], beam[:1]) is extended at each "
    "step: the other beam_size - 1 hypotheses kept in the beam are never grown, so the "
    "search follows one prefix, like greedy decoding with a wider choice of the last token. "
    "Extend every live hypothesis by every token: the decoder input holds all of the beam's "
    "prefixes, and scores = parent_scores[:, None] + log_probs is a (k, vocab) table, k = "
    "len(beam).",
    "last_only": "Only the last (worst) live hypothesis of the beam (beam[-1]) is extended "
    "at each step: the others kept in the beam are never grown (a loop over the beam that "
    "keeps only its last iteration's scores does this). Extend every live hypothesis by "
    "every token: scores = parent_scores[:, None] + log_probs, a (k, vocab) table, k = "
    "len(beam).",
    "not_extended": "Your hypotheses never grow: each candidate keeps its parent's token "
    "list (beam[parent][0]) without the new token, so the search scores sequences it never "
    "writes down and the answers come out empty or short. Extend the parent by its token, a "
    "new list: beam[parent][0] + [token].",
    "flat_index": "Your hypotheses are extended by the flattened index into the (k, vocab) "
    "table of scores, not by the token: divmod(index, vocab_size) gives (parent, token), "
    "and the hypothesis appends token, beam[parent][0] + [token].",
    "parent_as_token": "Your hypotheses are extended by the parent's number (which live "
    "hypothesis the candidate extends), not by the token: divmod(index, vocab_size) gives "
    "(parent, token), and the hypothesis appends token, beam[parent][0] + [token].",
    "ascending": "Your search keeps the worst candidates: sort them by score from best to "
    "worst (argsort(descending=True), or topk, whose largest=True is the default) before "
    "walking down the list.",
    "start_eos": "Your hypotheses are fed to the decoder after <eos> (eos_id) instead of "
    "<bos>: [eos_id, *tokens]. The model was trained to start from <bos> (make_batches puts "
    "it in front of every decoder input), as greedy_decode does: "
    "torch.tensor([[bos_id, *tokens] for tokens, _ in beam]).",
    "finished_from_top_2k": "Your search sets aside as finished every <eos> candidate among "
    "the top 2 * beam_size of each step (fairseq's cand_size), also those ranked after the "
    "point where the new beam was already full: weaker finished hypotheses that the walk "
    "should never have reached join the finished list, and one of them can become the "
    "answer. Walk the candidates best first and stop as soon as the new beam holds "
    "beam_size live hypotheses: only the <eos> candidates met before that point are set "
    "aside.",
    "start_pad": "Your hypotheses are fed to the decoder after <pad> (model.pad_id) instead "
    "of <bos>: the first position reads padding, which the model never learned to read "
    "(its key is even masked out). Put <bos> in front, as greedy_decode does: "
    "torch.tensor([[bos_id, *tokens] for tokens, _ in beam]).",
    "eos_not_stored": "Your finished hypotheses are stored without their <eos>: the parent's "
    "tokens go to the finished list, so the answer lacks its final <eos> and its length L "
    "counts one token less in the length penalty. A finished hypothesis is the parent's "
    "tokens plus <eos>, tokens + [eos_id], with its score (L counts <eos>); return it with "
    "its <eos>, then model.pad_id, as greedy_decode does.",
    "length_average": "Your answer is chosen by the mean log-probability, score / L, "
    "whatever length_penalty is (and length_penalty=0 must compare plain sums): a length "
    "normalisation of its own, not GNMT's. The normalised score is score / ((5 + L) / 6) ** "
    "length_penalty, which is the plain score when length_penalty is 0.",
}


def beam_cases(hidden: bool):
    """(model, src_ids, [(beam_size, max_len, alpha)], ids) cases; the seeds were chosen
    (tests/test_10_training.py proves it) so that greedy and beam search disagree, the
    length penalty changes the answer, and every variant above is caught."""
    if hidden:
        settings = [(1, 8, 0.0), (1, 6, 1.5), (3, 8, 0.0), (4, 8, 1.0), (2, 6, 2.0), (5, 8, 0.6)]
        specs = [
            (7202, 5, 6, 1, 1.0, settings),
            (7263, 3, 0, 7, 1.0, settings),
            # no row finishes: the best live one; (2, 8, 0.0) gives each hypothesis its own
            # next-token distribution (hypothesis 0's broadcast to all changes the answer)
            (7402, 6, 1, 0, -4.0, [(4, 6, 0.5), (2, 8, 0.0)]),
        ]
    else:
        settings = [(1, 7, 0.0), (1, 7, 1.0), (3, 7, 0.0), (3, 7, 1.0), (2, 6, 2.0), (4, 8, 0.6)]
        # the third model tells apart where the length penalty is applied (the stopping
        # rule, the choice of the answer; divided, multiplied or left out), which the first
        # two cannot
        specs = [
            (7100, 0, 2, 3, 3.0, settings),
            (7160, 4, 5, 6, 2.0, settings),
            (7313, 1, 6, 4, 1.0, [(4, 8, 2.0)]),
            # <eos> made unlikely: no row finishes within max_len, so the answer is the best
            # LIVE hypothesis, which only this model asks for with beam_size > 1
            # (2, 4, 0.0): the hypotheses' next-token distributions differ enough that one
            # hypothesis's broadcast to all changes the answer
            (7400, 2, 3, 5, -4.0, [(3, 5, 0.0), (2, 4, 0.0)]),
        ]
    cases = []
    for seed, pad_id, bos_id, eos_id, eos_bias, case_settings in specs:
        model = beam_model(seed, pad_id, bos_id, eos_id, eos_bias)
        rng = numpy_rng(seed)
        ordinary = [t for t in range(BEAM_VOCAB) if t not in (pad_id, bos_id, eos_id)]
        rows = [[int(t) for t in rng.choice(ordinary, n)] for n in (4, 2, 5)]
        width = max(map(len, rows))
        src = torch.tensor([r + [pad_id] * (width - len(r)) for r in rows])
        cases.append((model, src, case_settings, {"bos_id": bos_id, "eos_id": eos_id}, pad_id))
    return cases


def _beam_rows(
    c: Checker, got, batch: int, max_len: int, pad_id: int, eos_id: int, bos_id: int, what: str
) -> list[list[int]]:
    """The learner's output as one token list per row (up to and including <eos>)."""
    if isinstance(got, list) and got and isinstance(got[0], list | torch.Tensor):
        c.fail(
            f"{what} returned a list; return an int64 tensor (batch, n) padded with "
            "model.pad_id, as greedy_decode does (torch.full(..., model.pad_id) and fill "
            "each row)."
        )
    c.expect_type(got, torch.Tensor, what)
    if got.dtype != torch.int64:
        c.fail(f"{what} has dtype {got.dtype}; token ids are int64 (dtype=torch.long).")
    if got.dim() == 2 and got.shape[1] == batch != got.shape[0]:
        c.fail(
            f"{what} has shape {tuple(got.shape)}: (n, batch={batch}), the transpose of "
            f"greedy_decode's (batch, n), one column per source sentence instead of one row. "
            "torch.nn.utils.rnn.pad_sequence stacks sequence-first unless told otherwise: "
            "pad_sequence(rows, batch_first=True, padding_value=model.pad_id) (or leave "
            "out a transpose, .T, of the padded rows)."
        )
    if got.dim() != 2 or got.shape[0] != batch:
        c.fail(
            f"{what} has shape {tuple(got.shape)}; expected (batch={batch}, n): one row per "
            "source sentence."
        )
    if got.shape[1] > max_len + 1:
        c.fail(f"{what} has {got.shape[1]} columns, more than max_len={max_len} tokens.")
    rows = []
    for i, row in enumerate(got.tolist()):
        if eos_id in row:
            end = row.index(eos_id) + 1
            tail = row[end:]
            if any(t != pad_id for t in tail):
                hint = (
                    " You padded with 0: use model.pad_id."
                    if all(t == 0 for t in tail) and pad_id != 0
                    else _after_eos_hint(_stripped(row, pad_id), max_len)
                )
                c.fail(f"row {i} of {what} is {row}.{hint}")
            rows.append(row[:end])
        else:
            rows.append(row)
    c.ok()
    return rows


def _filled_after_answers(got, model, src, setting, pad_id, bos_id, eos_id, replays):
    """(row index, row, fill, fill's name, model writes it) when every row is its
    expected answer followed by one same id, not model.pad_id, up to the width (in at
    least one row): the output buffer was filled with that id. Ids the model wrote after
    <eos> (a finished hypothesis extended) look the same only where the model picks that
    id after the answer: asked of the model (the last item)."""
    if not (
        isinstance(got, torch.Tensor)
        and got.dtype == torch.int64
        and got.dim() == 2
        and got.shape[0] == src.shape[0]
    ):
        return None
    answers = [_search(model, src[i], *setting, replays=replays) for i in range(src.shape[0])]
    rows = got.tolist()
    if any(row[: len(answer)] != answer for row, answer in zip(rows, answers, strict=True)):
        return None
    tails = {i: row[len(answers[i]) :] for i, row in enumerate(rows) if len(row) > len(answers[i])}
    fills = {t for tail in tails.values() for t in tail}
    if len(fills) != 1 or pad_id in fills:
        return None
    (fill,) = fills
    written = True  # the model picks the fill right after every answer followed by it
    with torch.no_grad():
        for i in tails:
            source = src[i : i + 1]  # (1, len_src)
            prefix = torch.tensor([[bos_id, *answers[i]]])  # (1, 1 + L)
            logits = model.decode(prefix, model.encode(source), source)  # (1, 1 + L, vocab)
            written = written and int(logits[0, -1].argmax()) == fill
    name = {eos_id: "eos_id", bos_id: "bos_id"}.get(fill, str(fill))
    first = min(tails)
    return first, rows[first], fill, name, written and fill == eos_id


def _fill_message(what, i, row, fill, name, written) -> str:
    """The message for rows filled with ``fill`` after right answers (see above)."""
    shown = (
        f"row {i} of {what} is {row}. Each row is the expected answer followed by {name} "
        f"({fill}) up to the width"
    )
    padded = (
        f"the rows are padded with {name} instead of model.pad_id (a buffer such as "
        f"torch.full((batch, width), {name}) where torch.full((batch, width), model.pad_id) "
        "belongs)"
    )
    if not written:
        return (
            f"{shown}, in every row: the answers are right, but {padded}; after some of "
            f"these answers the model does not pick {fill}, so no search wrote them. After "
            "<eos> a row holds only model.pad_id."
        )
    return (
        f"{shown}. The model picks <eos> again after these answers, so two mistakes give "
        f"that here: (1) {padded}, or (2) a finished hypothesis that stayed in the beam "
        "and was extended (it is finished: set it aside, never extended). After <eos> a "
        "row holds only model.pad_id."
    )


def _stripped(row: list[int], pad_id: int) -> list[int]:
    end = len(row)
    while end and row[end - 1] == pad_id:
        end -= 1
    return row[:end]


_SHARED_LISTS = (
    "hypotheses share one token list: extending a hypothesis in place (tokens.append(token) "
    "or +=) changes its parent's list, which the finished hypothesis and the parent's other "
    "children still hold; build a new list for every candidate, parent_tokens + [token]"
)


def _after_eos_hint(tokens: list[int], max_len: int) -> str:
    """Tokens after <eos> in an answer: a hypothesis extended after <eos> runs to max_len
    (nothing ever finishes), so a shorter one was changed after it finished."""
    if len(tokens) < max_len:
        return (
            f" Tokens follow its <eos>, and the answer holds {len(tokens)} tokens, fewer than "
            f"max_len={max_len}: a hypothesis that kept growing after <eos> would have run to "
            "max_len, so this one's token list was changed after it finished: "
            f"{_SHARED_LISTS}. After <eos> a row holds only model.pad_id."
        )
    return (
        " Tokens follow its <eos>. Two mistakes give that: (1) a candidate that ends in <eos> "
        "stayed in the beam and was extended (it is finished: set it aside, it takes no place "
        f"in the beam and is never extended), or (2) {_SHARED_LISTS}. After <eos> a row holds "
        "only model.pad_id."
    )


def _zero_division_hint(alpha: float) -> str:
    """What a division by zero in beam search can be, given the call's length penalty."""
    if alpha == 0:
        return (
            "With length_penalty=0.0 the length penalty ((5 + L) / 6) ** 0 is 1 for every L, "
            "never 0: a divisor of 0 here is length_penalty used as a factor, "
            "((5 + L) / 6) * length_penalty (a * where ** belongs), or a score divided by "
            "the length L of the empty hypothesis (L = 0)."
        )
    return (
        "In beam search the divisor is the length penalty lp(L) = ((5 + L) / 6) ** "
        "length_penalty, never 0 for L >= 0: one of yours reached 0, as (5 - L) / 6 does at "
        "L = 5 (a minus where the + belongs), or a score divided by the length L of the empty "
        "hypothesis (L = 0)."
    )


#: a list indexed past its end in beam search: the candidates
_INDEX_HINT = (
    "In beam search the lists indexed are the beam and the hypotheses: either the new beam "
    "came out empty or shorter than an index you read (beam[0], beam[parent]): the walk "
    "down the sorted candidates must go on until the new beam holds beam_size live "
    "hypotheses, those ending in <eos> being set aside (looking only at the first "
    "beam_size candidates leaves it short, or empty when they all end in <eos>); or an "
    "index was computed on the wrong axis (divmod(index, vocab) gives (hypothesis, token); "
    "k = tokens.shape[0] is the number of live hypotheses)."
)


#: a hypothesis's score used where its token list belongs (the family 'the pair's two
#: fields swapped': h[1] for h[0], an unpacking in the wrong order)
_SCORE_FOR_TOKENS_HINT = (
    "A float went where a list of tokens belongs. A hypothesis is the pair (tokens, "
    "score): index [0] is its token list and [1] its score, so a [1] where [0] belongs (the "
    "answer taken as max(...)[1], a length as len(h[1])), or a pair unpacked in the wrong "
    "order (score, tokens = h), hands on the score instead of the tokens. The answer of "
    "each sentence is the token list of the best hypothesis: max(finished or beam, "
    "key=normalised)[0]."
)


def _same_row(row: list[int], expected: list[int], pad_id: int) -> bool:
    return row[: len(expected)] == expected and all(t == pad_id for t in row[len(expected) :])


def check_beam_search(beam_search, *, hidden: bool = False) -> None:
    """beam_search(model, src_ids, beam_size, max_len, bos_id, eos_id, length_penalty)."""
    with Checker("beam_search", hidden=hidden) as c:
        c.require_callable(beam_search)
        observations = []  # (model, source row, setting, ids, pad_id, row, expected, what, i)
        replays = {}  # the reference's decoder calls, shared by its searches (see _search)
        batches = {}  # observation index -> the src_ids of its call
        pending_fill = ""  # rows filled after their answers, on inputs that cannot tell why
        # a beam (k > 1) without a length penalty leaves the argument out: the signature's
        # default, 0.0, must be no penalty (a greedy search, k = 1, passes it)
        for model, src, settings, ids, pad_id in beam_cases(hidden):
            bos_id, eos_id = ids["bos_id"], ids["eos_id"]
            for beam_size, max_len, alpha in settings:
                leave_out = alpha == 0.0 and beam_size > 1
                penalty = "length_penalty left out" if leave_out else f"length_penalty={alpha}"
                what = (
                    f"beam_search(model, src_ids {src.tolist()}, beam_size={beam_size}, "
                    f"max_len={max_len}, bos_id={bos_id}, eos_id={eos_id}, "
                    f"{penalty}) (model.pad_id={pad_id})"
                )
                setting = (beam_size, max_len, bos_id, eos_id, alpha)
                try:
                    got = c.call(
                        beam_search,
                        model,
                        src,
                        beam_size,
                        max_len,
                        bos_id,
                        eos_id,
                        *(() if leave_out else (alpha,)),
                        call_repr=what,
                        hints={
                            "must match the size": beam_size_mismatch_hint(beam_size),
                            "unsupported operand type(s) for -: 'list' and 'list'": "Lists "
                            "cannot be subtracted: a hypothesis is extended by concatenation, "
                            "tokens + [token] (a new list); its score by addition, score + "
                            "log-probability.",
                            "ZeroDivisionError": _zero_division_hint(alpha),
                            "object of type 'float' has no len()": _SCORE_FOR_TOKENS_HINT,
                            "'float' object is not iterable": _SCORE_FOR_TOKENS_HINT,
                            "'float' object is not subscriptable": _SCORE_FOR_TOKENS_HINT,
                            "list index out of range": _index_hint,
                            "too many indices for tensor of dimension 1": "A 1-D tensor of "
                            "ids reached the model: model.encode and model.decode take "
                            "(batch, len) ids. src_ids[row] drops the batch axis (keep it: "
                            "src_ids[row : row + 1], shape (1, len_src)); the live "
                            "hypotheses go in as one (k, steps) tensor, <bos> first.",
                            "is out of bounds for dimension 1 with size 1": "At the first "
                            "step the decoder sees <bos> alone (one position): the next "
                            "token's scores are those of the last position, logits[:, -1] "
                            "(another negative index runs off the front).",
                        },
                    )
                except CheckFailure as failure:
                    empty = _empty_decoder_input(beam_search, model, src, setting)
                    if empty:
                        raised = failure.message.split("\n", 1)[0]
                        c.fail(
                            f"{raised}\nYour search fed the decoder target ids of shape "
                            f"{empty}, no token at all: the hypotheses went in without <bos> "
                            "in front. At the first step the only live hypothesis is the "
                            "empty one (torch.tensor of empty lists is also float32, hence "
                            "a dtype error where the ids are not converted). The decoder "
                            "reads <bos> followed by the tokens so far: "
                            "torch.tensor([[bos_id, *tokens] for tokens, _ in beam]), "
                            "(k, steps so far).",
                            failure.learner_traceback,
                        )
                    if _right_alone(c, beam_search, model, src, setting, pad_id, replays):
                        answers = [
                            _search(model, src[i], *setting, replays=replays)
                            for i in range(src.shape[0])
                        ]
                        encoded = _encoded_batches(beam_search, model, src, setting)
                        width = _width_from_one_row(failure.message, answers)
                        if width and all(n == 1 for n in encoded) and len(encoded) >= len(answers):
                            raised = failure.message.split("\n", 1)[0]
                            c.fail(f"{raised}\n{width}", failure.learner_traceback)
                        text = _batch_dependent(src.shape[0], "raises", encoded)
                        c.fail(f"{failure.message}\n{text}", failure.learner_traceback)
                    emptying = _emptying_variants(model, src, setting, observations, replays)
                    if emptying and _empty_beam_at_raise(failure):
                        c.fail(
                            f"{failure.message}\nOn this input the reference's beam never runs empty, "
                            "but "
                            + (
                                "this mistake empties it"
                                if len(emptying) == 1
                                else "each of these mistakes empties it"
                            )
                            + " (no live hypothesis left, so a later beam[0] or beam[parent] "
                            "runs past its end), and gives your answers on every earlier "
                            "call: " + " / ".join(_BEAM_MESSAGES[v] for v in emptying),
                            failure.learner_traceback,
                        )
                    raise
                filled = _filled_after_answers(
                    got, model, src, setting, pad_id, bos_id, eos_id, replays
                )
                if filled and not filled[-1]:  # the model would not write these ids itself
                    c.fail(_fill_message(what, *filled))
                if filled:  # the model would: a later call may tell the two causes apart
                    pending_fill = pending_fill or _fill_message(what, *filled)
                    continue
                try:
                    rows = _beam_rows(c, got, src.shape[0], max_len, pad_id, eos_id, bos_id, what)
                except CheckFailure as failure:
                    # a malformed batch whose sentences are each right alone: they interfere
                    # (blind20b-bs-beam-not-reset-per-sentence was told the columns alone)
                    # one row per sentence (a batch-wide slip, such as only the first row
                    # returned, is right on a batch of one too, and is not this family)
                    one_per_sentence = getattr(got, "shape", (None,))[:1] == src.shape[:1]
                    alone = (
                        src.shape[0] > 1
                        and one_per_sentence
                        and _right_alone(c, beam_search, model, src, setting, pad_id, replays)
                    )
                    if not alone:
                        raise
                    encoded = _encoded_batches(beam_search, model, src, setting)
                    text = _batch_dependent(src.shape[0], "differs", encoded, src)
                    c.fail(f"{failure.message}\n{text}")
                for i, row in enumerate(rows):
                    expected = _search(model, src[i], *setting, replays=replays)
                    observations.append((model, src[i], setting, pad_id, row, expected, what, i))
                    batches[len(observations) - 1] = src
        if pending_fill:
            c.fail(pending_fill)
        wrong = [o for o in observations if not _same_row(o[4], o[5], o[3])]
        if not wrong:
            c.ok()
            return
        model, source, setting, pad_id, row, expected, what, i = wrong[0]
        src = batches[next(n for n, o in enumerate(observations) if o is wrong[0])]
        if [t for t in row if t != pad_id] == expected:
            c.fail(
                f"for source row {i}, {what} gave {row}: the right tokens, {expected}, but "
                "with padding among or before them. Each row starts at column 0 with its first "
                "token and is padded on the right with model.pad_id up to the longest row."
            )
        if src.shape[0] > 1 and _right_alone(c, beam_search, model, src, setting, pad_id, replays):
            encoded = _encoded_batches(beam_search, model, src, setting)
            c.fail(
                f"for source row {i}, {what} chose {row}, expected {expected}. "
                + _batch_dependent(src.shape[0], "differs", encoded, src)
            )
        # <bos> in front is named only when the rest of every wrong row is the answer
        if all(o[4][:1] == [o[2][2]] and _same_row(o[4][1:], o[5], o[3]) for o in wrong):
            c.fail(
                f"row {i} of {what} is {row}: it starts with <bos> ({setting[2]}), and the rest "
                f"is the expected {expected}. Return the generated tokens only, without <bos>, "
                "as greedy_decode does."
            )
        # the final <eos> left out of every wrong answer (the rest of each is the answer)
        if all(o[5] and o[5][-1] == o[2][3] and _same_row(o[4], o[5][:-1], o[3]) for o in wrong):
            c.fail(
                f"for source row {i}, {what} chose {row}, expected {expected}: every wrong "
                "answer is the expected one without its <eos> (its final token). Return "
                "the finished hypothesis with its <eos> (then model.pad_id), as greedy_decode "
                "does."
            )
        shown = f"for source row {i}, {what} chose {row}, expected {expected}"

        # what the decoder was fed, seen directly: no replay needed to name it
        if doubled := _decoder_input_note(beam_search, model, source[None], setting):
            c.fail(f"{shown}. {doubled}")

        # A cause is stated only when its predictions agree with every answer (every row of
        # every call, the right ones included); when several do, all of them are named.
        def agrees(variant: str) -> bool:
            try:
                return all(
                    _same_row(
                        o_row,
                        _search(o_model, o_source, *o_setting, variant, replays=replays),
                        o_pad,
                    )
                    for o_model, o_source, o_setting, o_pad, o_row, *_ in observations
                )
            except (IndexError, RuntimeError):  # the variant feeds an id the model lacks
                return False

        messages = {
            **_BEAM_MESSAGES,
            **{v: _eos_blocked_message(n) for v, n in _EOS_BLOCKED_STEPS.items()},
            **{v: _ngram_blocked_message(n) for v, n in _NGRAM_BLOCKED.items()},
        }
        agree = [variant for variant in messages if agrees(variant)]
        if len(agree) == 1:
            c.fail(f"{shown}. {messages[agree[0]]}")
        if agree:
            c.fail(
                f"{shown}. Your answers agree, on every input here, with each of these "
                "mistakes (they cannot be told apart on these inputs): "
                + " / ".join(messages[v] for v in agree)
            )
        # token 0 repeated in every wrong answer, where 0 is not padding for some of them
        if all(o[4] and set(o[4]) == {0} for o in wrong) and any(o[3] != 0 for o in wrong):
            c.fail(
                f"{shown}. Every wrong answer is token 0 repeated, the lowest id (an ordinary "
                "token of some of these models): what a stable sort keeps when all candidates have the same "
                "score. Your candidates' scores do not depend on the token: each is its "
                "parent's score PLUS the token's log-probability, scores = parent_scores[:, "
                "None] + torch.log_softmax(logits[:, -1], dim=-1), a (k, vocab) table (a "
                "log-probability left out, or taken over an axis of size 1, gives this)."
            )
        if source_wrong := _decode_source_argument(beam_search, model, src, setting):
            c.fail(f"{shown}. {source_wrong}")
        if setting[0] == 1:
            greedy = greedy_decode(model, source[None], setting[1], setting[2], setting[3])
            c.fail(
                f"{shown}. With beam_size=1 beam search must give greedy_decode's answer "
                f"({greedy[0].tolist()}) whatever the length_penalty: one live hypothesis, "
                "extended by its best token at each step."
            )
        c.fail(
            f"{shown}. {_compare_hypotheses(model, source, setting, row, expected)} None of "
            "the known mistakes explains all your answers. Walk through the contract step by "
            "step on this row: the candidates' scores are sums of log-probabilities; finished "
            "ones are set aside and the beam refilled to beam_size live ones; stop once the "
            "best finished normalised score is at least the best live score (or after "
            "max_len steps); return the finished hypothesis with the best score / ((5 + L) / "
            "6) ** length_penalty."
        )


def _right_alone(c: Checker, beam_search, model, src, setting, pad_id, replays=None) -> bool:
    """Whether the learner's search gives the expected answer for every sentence of
    ``src`` searched on its own (a batch of one, src[i : i + 1])."""
    for i in range(src.shape[0]):
        try:
            got = c.call(beam_search, model, src[i : i + 1], *setting[:4], setting[4])
        except CheckFailure:
            return False
        if not isinstance(got, torch.Tensor) or got.dim() != 2 or got.shape[0] != 1:
            return False
        if not _same_row(
            got[0].tolist(), _search(model, src[i], *setting, replays=replays), pad_id
        ):
            return False
    return True


def _decode_source_argument(beam_search, model, src, setting) -> str:
    """What the learner's search hands model.decode as its source ids (its third
    argument), recorded on the search run again: each row must be one of the source rows
    (its padding kept, or stripped off the end), from which decode builds the
    cross-attention's padding mask. Named when a row is none of them (a mask of ones, the
    target tokens, a bool mask); "" otherwise, or when nothing was recorded."""
    pad_id = model.pad_id
    received = argument_received(
        model, "decode", 2, lambda: beam_search(model, src.clone(), *setting), "src_ids"
    )
    if received is None:
        return ""
    sources = [[int(t) for t in row] for row in src]

    def a_source_row(row: list[int]) -> bool:
        return any(
            whole[: len(row)] == row and all(t == pad_id for t in whole[len(row) :])
            for whole in sources
        )

    for given in received:
        if not (isinstance(given, torch.Tensor) and given.dim() == 2):
            continue
        rows = [[int(t) for t in row] for row in given.long()]
        if all(a_source_row(row) for row in rows):
            continue
        what = (
            "a bool mask"
            if given.dtype == torch.bool
            else f"rows that are none of the source rows (such as {rows[0]})"
        )
        return (
            f"Your search hands model.decode {what} as its third argument, shape "
            f"{tuple(given.shape)}, where decode takes the sentence's source ids: "
            "decode(tgt_ids, memory, src_ids) builds the cross-attention's source padding mask "
            f"from them, comparing them with model.pad_id={pad_id}, so the source's <pad> "
            "positions are no longer masked (or real ones are). Pass the sentence's own source "
            "row, one copy per hypothesis: src.expand(k, -1)."
        )
    return ""


#: the family 'the decoder's input built wrongly', seen through the ids the decoder is fed
#: (a hook on the model's target embedding, :func:`_decoder_inputs`), not replayed
_BOS_TWICE = (
    "Your decoder reads <bos> twice: every input it is given starts [<bos>, "
    "<bos>, tokens...], because <bos> is put in front of hypotheses that already start with "
    "it (the beam started from [bos_id], and bos_id added again when the decoder's input is "
    "built). Every log-probability is then conditioned on a prefix the model never saw, so "
    "the scores, and the hypotheses chosen, differ. Put <bos> in front once: start from the "
    "empty hypothesis, [([], 0.0)], and feed torch.tensor([[bos_id, *tokens] for tokens, _ "
    "in beam]) (or keep <bos> in the hypotheses and add nothing in front)."
)


def _decoder_inputs(beam_search, model, src, setting) -> list[torch.Tensor]:
    """The target ids (k, steps) that reached the model's target embedding, call by call,
    in the learner's search on ``src`` (run again with a hook; whatever it raises is
    ignored)."""
    seen: list[torch.Tensor] = []

    def record(_module, args):
        if isinstance(args[0], torch.Tensor) and args[0].dim() == 2:
            seen.append(args[0].detach().clone())

    hook = model.tgt_embedding.register_forward_pre_hook(record)
    try:
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            beam_search(model, src, *setting)
    except Exception:
        pass
    finally:
        hook.remove()
    return seen


def _decoder_input_note(beam_search, model, src, setting) -> str:
    """A cause read off the decoder's inputs themselves: every one of them, the first step's
    included, starts [<bos>, <bos>] (blind28b-bs-bos-fed-twice: the beam started from
    [bos_id] and <bos> put in front again was told only that a better hypothesis exists).
    "" otherwise."""
    bos = setting[2]
    seen = _decoder_inputs(beam_search, model, src, setting)
    if seen and all(ids.shape[1] >= 2 and bool((ids[:, :2] == bos).all()) for ids in seen):
        return _BOS_TWICE
    return ""


def _empty_decoder_input(beam_search, model, src, setting) -> tuple[int, ...] | None:
    """The shape of the first target ids without a column that reached the model's target
    embedding in the learner's search on ``src`` (run again with a hook; whatever it raises
    is ignored), or None when every decoder input held a token."""
    shapes: list[tuple[int, ...]] = []

    def record(_module, args):
        if isinstance(args[0], torch.Tensor):
            shapes.append(tuple(args[0].shape))

    hook = model.tgt_embedding.register_forward_pre_hook(record)
    try:
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the empty input's own warnings
            beam_search(model, src, *setting)
    except Exception:  # the failure itself: the decoder inputs before it are what counts
        pass
    finally:
        hook.remove()
    return next((shape for shape in shapes if len(shape) == 2 and shape[1] == 0), None)


#: the names a learner gives the live beam (the list read as beam[0], beam[parent])
_LIVE_BEAM_NAMES = {"beam", "live", "alive", "hypotheses", "live_beam", "beams", "hyps"}


def _empty_beam_at_raise(failure: CheckFailure) -> bool:
    """Whether the learner's code raised IndexError on a line whose frame holds an empty
    list named as the live beam (beam, live, hypotheses; not new_beam, which is empty
    while it is being built): the beam ran empty there."""
    from transformer_course.checking.failure import innermost_learner_traceback

    exc = failure.__cause__
    if not isinstance(exc, IndexError):
        return False
    found = innermost_learner_traceback(exc)
    local = found.tb_frame.f_locals if found is not None else {}
    return any(
        isinstance(value, list) and not value and name in _LIVE_BEAM_NAMES
        for name, value in local.items()
    )


def _emptying_variants(model, src, setting, observations, replays) -> list[str]:
    """The known mistakes whose search leaves the new beam empty on some row of ``src``
    (the reference's never does: it walks every candidate) and that agree with every
    answer observed so far (``observations``, as check_beam_search collects them)."""
    found = []
    for variant in _BEAM_MESSAGES:
        try:
            emptied = []
            for i in range(src.shape[0]):
                _search(model, src[i], *setting, variant, replays=replays, emptied=emptied)
            if not emptied:
                continue
            if all(
                _same_row(
                    o_row, _search(o_model, o_source, *o_setting, variant, replays=replays), o_pad
                )
                for o_model, o_source, o_setting, o_pad, o_row, *_ in observations
            ):
                found.append(variant)
        except (IndexError, RuntimeError):  # the variant feeds an id the model lacks
            continue
    return found


def _index_hint(exc: BaseException) -> str:
    """For an index past the end of the beam: when the raising frame holds ``parent``
    (beyond the beam but a token id of the vocabulary) and ``token`` (a valid index of the
    beam), the two results of the flat index's split are exchanged: divmod(index, vocab)
    unpacked as (token, parent), or divided by the beam size, which gives the same values
    with one live hypothesis; both are named. _INDEX_HINT otherwise."""
    from transformer_course.checking.failure import innermost_learner_traceback

    found = innermost_learner_traceback(exc)
    local = found.tb_frame.f_locals if found is not None else {}
    parent, token, beam = local.get("parent"), local.get("token"), local.get("beam")
    scores = local.get("scores")
    vocab = scores.shape[-1] if hasattr(scores, "shape") and len(scores.shape) else None
    numbers = all(isinstance(v, int) or hasattr(v, "__index__") for v in (parent, token))
    if not (numbers and isinstance(beam, list | tuple) and vocab):
        return _INDEX_HINT
    parent, token = int(parent), int(token)
    if not (len(beam) <= parent < vocab and 0 <= token < len(beam)):
        return _INDEX_HINT
    where = (
        f"On the raising line parent = {parent} is beyond the beam ({len(beam)} live "
        f"hypothesis(es)) but a token id of the vocabulary ({vocab} tokens), and token = "
        f"{token} is a valid index of the beam"
    )
    swapped = (
        "the two results of splitting the flat index are exchanged, divmod(index, vocab) "
        "unpacked as token, parent"
    )
    rule = (
        "divmod gives (quotient, remainder) = (the hypothesis, the token): parent, token = "
        "divmod(index, scores.shape[1])."
    )
    if len(beam) == 1:  # divmod(index, 1) gives (index, 0): the same values
        return (
            f"{where}. With one live hypothesis two mistakes give exactly these values: (1) "
            f"{swapped}; or (2) divmod(index, beam_size), the beam's size where the "
            f"vocabulary's belongs (it gives parent = index, token = 0). {rule}"
        )
    return f"{where}: {swapped}. {rule}"


def beam_size_mismatch_hint(beam_size: int):
    """A size mismatch in beam search: the sizes tell the scores of the live hypotheses
    broadcast along the vocabulary (a (k,) tensor added to the (k, vocab) log-probabilities:
    k against the vocabulary size at dimension 1) from rows of the memory or the source."""

    def hint(exc: BaseException) -> str:
        found = _SIZES.search(str(exc))
        sizes = {int(found.group(1)), int(found.group(2))} if found else set()
        hypotheses = next((n for n in sizes if 1 < n <= beam_size), None)
        if found and int(found.group(3)) == 1 and hypotheses and BEAM_VOCAB in sizes:
            return (
                f"The sizes are {hypotheses}, live hypotheses (beam_size={beam_size}), and "
                f"{BEAM_VOCAB}, the vocabulary: the hypotheses' scores, a (k,) tensor, were "
                "added to the (k, vocab) log-probabilities without an axis for the "
                "vocabulary, so broadcasting lined them up with the vocabulary axis (the "
                "last one). That works at the first step, with one hypothesis, and fails as "
                "soon as the beam holds more. Make the scores a column, (k, 1): "
                "torch.tensor([score for _, score in beam])[:, None] + log_probs, a (k, "
                "vocab) table."
            )
        return (
            "The memory and the source ids must have one row per hypothesis: expand them to "
            "the number of live hypotheses (memory.expand(k, -1, -1), src.expand(k, -1))."
        )

    return hint


_SIZES = re.compile(
    r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) at "
    r"non-singleton dimension (-?\d+)"
)


class EncodedRows(list):
    """The number of rows of each model.encode call (a list of ints), with ``inputs``: what
    each call received (a copy of its input tensor)."""

    inputs: list


def _encoded_batches(beam_search, model, src, setting) -> EncodedRows:
    """The number of rows of every model.encode call of the learner's search on ``src``
    (run again with a hook on the encoder; whatever it raises is ignored), and the inputs
    those calls received."""
    rows = EncodedRows()
    rows.inputs = []

    encode = model.encode

    def encode_recorded(src_ids, *args, **kwargs):  # the ids each model.encode call gets
        if isinstance(src_ids, torch.Tensor):
            rows.inputs.append(src_ids.detach().clone())
        return encode(src_ids, *args, **kwargs)

    try:
        model.encode = encode_recorded  # an attribute of this instance, removed below
    except Exception:  # an object that takes no attribute: the counts alone are recorded
        pass
    hook = model.encoder.register_forward_pre_hook(lambda _m, args: rows.append(args[0].shape[0]))
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            beam_search(model, src, *setting)
    except Exception:  # the failure itself: the calls before it are what counts
        pass
    finally:
        hook.remove()
        getattr(model, "__dict__", {}).pop("encode", None)
    return rows


#: the two sizes of a copy that does not fit: a row slice given a longer row of tokens
_COPY_SIZES = (
    re.compile(
        r"expanded size of the tensor \((\d+)\) must match the existing size \((\d+)\) at "
        r"non-singleton dimension 0\.\s+Target sizes: \[\d+\]\.\s+Tensor sizes: \[\d+\]"
    ),
    re.compile(r"indexing result of shape \[(\d+)\]"),
)


def _width_from_one_row(message: str, answers: list[list[int]]) -> str:
    """When every sentence alone is right and the batch raises copying a row of tokens
    into a slice as long as ONE row's answer (out[row, : len(tokens)] of an output sized
    by results[0], say): which row's length the output took, and the row that does not
    fit (round 18, blind15a-bs-output-width-from-first-row); "" when the sizes the error
    names are not those answers' lengths or not a copy of one row (1-D sizes)."""
    lengths = [len(tokens) for tokens in answers]
    longest = max(lengths)
    slot = tokens = None
    found = _COPY_SIZES[0].search(message)
    if found:
        slot, tokens = int(found.group(1)), int(found.group(2))
    else:
        shape = _COPY_SIZES[1].search(message)
        given = re.search(r"value tensor of shape \[(\d+)\]", message)
        if shape and given:
            slot, tokens = int(shape.group(1)), int(given.group(1))
    if slot is None or slot >= longest or slot not in lengths or tokens not in lengths:
        return ""
    sized_by = lengths.index(slot)
    row = lengths.index(tokens)
    which = "the first row's" if sized_by == 0 else f"row {sized_by}'s"
    return (
        f"Searched one at a time (src_ids[i : i + 1]), each sentence gets the right answer "
        f"from your beam_search; their lengths are {lengths}. The batch raises where the "
        f"answers are put together: your output is {slot} wide, the length of {which} "
        f"answer, and row {row}'s answer ({tokens} tokens) does not fit its row. The width "
        f"is the LONGEST answer's, {longest} here: width = max(len(tokens) for tokens in "
        "answers); out = torch.full((batch, width), model.pad_id), then out[row, "
        ": len(tokens)] = torch.tensor(tokens)."
    )


def _other_rows_encoded(encoded, src) -> str:
    """Where each model.encode call received one row, but not the rows of ``src`` (batch,
    len_src) in their order: which rows it received (the family 'state of another element':
    a fixed index, src_ids[:1], where the loop's row belongs); "" otherwise, or when the
    inputs were not recorded."""
    inputs = getattr(encoded, "inputs", None)
    if src is None or not inputs or len(inputs) != src.shape[0]:
        return ""
    received = []
    for given in inputs:
        if given.dim() != 2 or given.shape[0] != 1:
            return ""
        body = given[0]
        same = [
            r
            for r in range(src.shape[0])
            if src.shape[1] == body.shape[0] and bool((src[r] == body).all())
        ]
        received.append(same[0] if same else None)
    if received == list(range(src.shape[0])) or None in received:
        return ""
    return (
        f"Searched one at a time (src_ids[i : i + 1]), each of these {src.shape[0]} sentences "
        f"gets the right answer from your beam_search; in the batch, your code encoded one "
        f"row per sentence, but the rows {received} of src_ids, in that order, where "
        f"{list(range(src.shape[0]))} belong: a sentence is searched with another sentence's "
        "memory (a fixed index such as src_ids[:1] or src_ids[0], or a row variable that is "
        "not the loop's). Encode the row being searched: src = src_ids[row : row + 1]; memory "
        "= model.encode(src), and pass that same src to model.decode."
    )


def _batch_dependent(batch: int, outcome: str, encoded: list[int] | None = None, src=None) -> str:
    """The sentences of a batch interfere: each alone is right, together they are not.
    ``encoded``: the rows of each model.encode call of the batch's run, where it raised:
    every sentence encoded alone puts the failure after the searches; an encode of several
    rows names the memory."""
    if outcome == "differs" and encoded and len(encoded) >= batch and all(n == 1 for n in encoded):
        other = _other_rows_encoded(encoded, src)
        if other:
            return other
        return (
            f"Searched one at a time (src_ids[i : i + 1]), each of these {batch} sentences "
            f"gets the right answer from your beam_search; the batch of {batch} differs, "
            f"although your code encoded each of the {batch} sentences on its own, as it "
            "should. So something else is carried from one sentence's search to the next: a "
            "list or a value created once, before the loop over the rows (the finished "
            "hypotheses, the beam, a best score), and never reset. Create the search's state "
            "inside that loop, once per sentence: beam, finished = [([], 0.0)], []."
        )
    if outcome == "raises" and encoded:
        if len(encoded) >= batch and all(n == 1 for n in encoded):
            return (
                f"Searched one at a time (src_ids[i : i + 1]), each of these {batch} "
                "sentences gets the right answer from your beam_search, and in the batch "
                f"your code encoded each of the {batch} sentences on its own, as it should; "
                "the error comes after that: where the answers, of different lengths, are "
                "put together (torch.stack or torch.tensor of rows of different lengths, or "
                "a row slice that does not fit its tokens), or in something carried from one "
                "sentence's search to the next. Pad each row to the longest with "
                "model.pad_id: out = torch.full((batch, width), model.pad_id), then "
                "out[row, : len(tokens)] = torch.tensor(tokens)."
            )
        several = [n for n in encoded if n > 1]
        if several:
            how = (
                "the whole batch, as memory = model.encode(src_ids) before the loop over the "
                "rows does"
                if several[0] == batch
                else "a slice of more than one row (src_ids[row : row + 1] holds one)"
            )
            return (
                f"Searched one at a time (src_ids[i : i + 1]), each of these {batch} "
                "sentences gets the right answer from your beam_search; in the batch they "
                f"raise, so the sentences interfere: your code called model.encode on "
                f"{several[0]} sentences at once ({how}). Each sentence is searched with the "
                "memory of that sentence alone: src = src_ids[row : row + 1]; memory = "
                "model.encode(src) inside the loop over the rows."
            )
    text = (
        f"Searched one at a time (src_ids[i : i + 1]), each of these {batch} sentences gets "
        f"the right answer from your beam_search; the batch of {batch} {outcome}. So the "
        "sentences interfere: something computed once for the whole batch is used in each "
        "sentence's search, such as memory = model.encode(src_ids) before the loop over the "
        "rows (its batch axis then holds every sentence, not the searched one). Inside the "
        "loop, encode the row alone: src = src_ids[row : row + 1]; memory = model.encode(src)."
    )
    if outcome == "raises":  # a result assembled from rows of different lengths fails too
        text += (
            " Or the answers of different lengths are put together in a way that fails: "
            "pad each row to the longest with model.pad_id (torch.full, then fill each row)."
        )
    return text


def _log_probability(model, source: torch.Tensor, tokens: list[int], bos_id: int) -> float:
    """The sum of the log-probabilities the model gives ``tokens`` after <bos>."""
    if not tokens:
        return 0.0
    with torch.no_grad():
        src = source[None]
        inputs = torch.tensor([[bos_id, *tokens[:-1]]])
        logits = model.decode(inputs, model.encode(src), src)
        logp = torch.log_softmax(logits[0].double(), dim=-1)
        return float(logp[torch.arange(len(tokens)), torch.tensor(tokens)].sum())


def _compare_hypotheses(model, source, setting, row, expected) -> str:
    """What the learner's answer and the expected one score: the symptom, precisely."""
    _, _, bos_id, eos_id, alpha = setting
    if any(t >= BEAM_VOCAB or t < 0 for t in row):
        return ""

    def described(tokens):
        score = _log_probability(model, source, tokens, bos_id)
        norm = score / ((5 + len(tokens)) / 6) ** alpha
        state = "finished" if tokens and tokens[-1] == eos_id else "not finished"
        return score, norm, f"log-probability {score:.4f}, normalised {norm:.4f}, {state}"

    _, mine, mine_text = described(row)
    _, theirs, theirs_text = described(expected)
    if mine < theirs - 1e-9:
        verdict = (
            "The contract's search finds a hypothesis that scores better than yours: yours "
            "lost it on the way (which candidates were kept, or when the search stopped) or "
            "did not pick the best at the end."
        )
    elif mine > theirs + 1e-9:
        verdict = (
            "Yours scores better than the contract's answer: your search went on (or kept "
            "candidates) past where the contract's rules stop; the answer is the one those "
            "rules give, not the best possible."
        )
    else:
        verdict = "Both score the same: break ties as the contract's order does."
    return f"Yours: {mine_text}; expected: {theirs_text}. {verdict}"
