"""Lesson 12's shared check machinery: the tensor-type check, and the messages and
diagnoses that several exercises' checks give."""

import re

import numpy as np
import torch

from transformer_course.checking import Checker
from transformer_course.checking.layouts import match_layout
from transformer_course.checking.relations import divided_by_zero, match_relation


def _expect_tensor(c: Checker, got, what: str, join: str = "") -> None:
    """A tensor; a Python list or tuple of tensors of one shape is named as such, with
    ``join`` (how to make the one tensor) when given (blind12e-gen-logits-returned-as-list:
    the per-step logits returned as collected)."""
    hint = "Return a torch.Tensor."
    if (
        isinstance(got, list | tuple)
        and got
        and all(isinstance(t, torch.Tensor) for t in got)
        and len({tuple(t.shape) for t in got}) == 1
    ):
        kind = "list" if isinstance(got, list) else "tuple"
        hint = (
            f"It is a Python {kind} of {len(got)} tensors, each {tuple(got[0].shape)}, not "
            f"one tensor: join them, {join or 'torch.stack(them, dim=...) (a new axis) or torch.cat (an existing one)'}."
        )
    c.expect_type(got, torch.Tensor, what, hint)


_BROADCAST = re.compile(
    r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) at "
    r"non-singleton dimension (\d+)"
)


_EMPTY_REDUCTION = re.compile(r"Expected reduction dim -?\d+ to have non-zero size")


def _empty_block_hint(block_slice: str, one_block=None, not_multiple=None):
    """An amax (or max) over an empty tensor: a block with no columns, whose slice stop is
    not start + block_size (mutant online_softmax-15, x[..., start:start];
    blind10e-online-block-slice-stop, x[..., start:block_size]; mutant online_softmax-17,
    x[..., start:start - block_size]) or whose start runs past the end; these got the raw
    IndexError. ``one_block``, when given, runs the learner's code on an input of exactly
    one block and says whether it raised the same error: the stops that empty the first
    block (start alone, start - block_size) are then told apart from the one that empties
    only the later blocks (block_size alone). ``not_multiple``, when given, runs it on n =
    5 with blocks of 2 (n no multiple of block_size) and says whether it ran: the starts
    then reach n only where block_size divides n, range(0, n + 1, block_size)
    (blind14e-tiled-blocks-past-last-key, told of three candidates alike)."""

    def hint(exc: BaseException) -> str:
        if not _EMPTY_REDUCTION.search(str(exc)):
            return ""
        first = ""
        if one_block is not None:
            try:
                empty_at_once = one_block()
            except Exception:  # the probe failed otherwise: no evidence
                empty_at_once = None
            ran_otherwise = False
            if empty_at_once is True and not_multiple is not None:
                try:
                    ran_otherwise = not_multiple() is True
                except Exception:  # the probe failed otherwise: no evidence
                    ran_otherwise = False
            if ran_otherwise:
                first = (
                    " Yours raises it on an input of exactly one block (n = block_size) but "
                    "runs on n = 5 with blocks of 2, where block_size does not divide n: your "
                    "starts run one block past the end, to n itself, whenever block_size "
                    "divides n, as range(0, n + 1, block_size) does (the stop of a range is "
                    "left out already: n + 1 adds a start at n, whose block is empty)."
                )
            elif empty_at_once is True:
                first = (
                    " On an input of exactly one block (n = block_size) yours raises the same "
                    "error, so either already the block at start 0 is empty, its stop being "
                    "start alone (+ block_size left out) or start - block_size (a minus where + "
                    "belongs), both [0:0] there; or the starts run past the end (a range "
                    "beyond n, whose last block starts at n). Nothing in the error tells these "
                    "three apart."
                )
            elif empty_at_once is False:
                # the input's own name reused for the block gives the same errors
                # (blind13e-os-block-rebinds-x was told the stop alone)
                name = block_slice.split("[", 1)[0]
                first = (
                    " On an input of exactly one block (n = block_size) yours runs, so the "
                    "block at start 0 is fine and a later one is empty: either a stop of "
                    f"block_size alone (start + left out) does that, or {name} itself "
                    f"reassigned to the block ({name} = {name}[..., start : start + "
                    f"block_size]): the next block is then sliced from the previous block, "
                    f"whose block_size columns end before its start, not from the input. "
                    f"Nothing in the error tells the two apart; keep the input's name for the "
                    f"input and give the block its own (block = {name}[...])."
                )
        return (
            "A maximum was taken over an empty block: one of your blocks has no columns, "
            f"its slice start:stop having stop <= start.{first} A block is "
            f"{block_slice}: its stop is start + block_size (a stop of block_size alone, "
            "start + left out, empties every block after the first; a stop of start alone, "
            "+ block_size left out, empties them all), and the starts run over "
            "range(0, n, block_size), each below n."
        )

    return (lambda exc: isinstance(exc, (IndexError, RuntimeError)), hint)


def _raises_empty(run) -> bool:
    """Whether ``run()`` raises the error of a reduction over an empty block."""
    try:
        run()
    except Exception as exc:  # the learner's code on a probe
        return bool(_EMPTY_REDUCTION.search(str(exc)))
    return False


def _runs(run) -> bool:
    """Whether ``run()`` returns without raising."""
    try:
        run()
    except Exception:  # the learner's code on a probe
        return False
    return True


_DTYPE_CLASH = re.compile(r"same dtype|expected scalar type|found (Float|Double)")


def _lower_precision_hint(dtype: torch.dtype, first: str):
    """A dtype clash raised on float64 inputs: a float32 step in the learner's code
    (blind10e-gqa-softmax-upcast-not-cast-back got the raw RuntimeError)."""

    def hint(exc: BaseException) -> str:
        if dtype != torch.float64 or not _DTYPE_CLASH.search(str(exc)):
            return ""
        return (
            "The inputs are float64 here, and a float32 tensor of yours met them: a step "
            "computes in float32 and never casts back, such as .float(), a softmax taken as "
            "torch.softmax(scores.float(), ...), or a tensor made without a dtype "
            "(torch.zeros, torch.full and torch.tensor of floats make float32). Keep the "
            f"inputs' dtype throughout: dtype={first}.dtype for new tensors, or "
            f".to({first}.dtype) after a float32 step."
        )

    return (lambda exc: isinstance(exc, RuntimeError), hint)


_LOWER_PRECISION = (
    "{what} returned {got} for float64 inputs: your {name} computes in a lower precision "
    "(a .float(), or running tensors made without dtype={first}.dtype: torch.zeros and "
    "torch.full make float32, and in-place updates such as acc.mul_(...) keep it) and "
    "never casts back. Return the inputs' dtype: make new tensors with dtype={first}.dtype, "
    "or cast the result back with .to({first}.dtype)."
)


_MASK_FILLED_ZERO = (
    "Your blocked scores are set to 0 instead of -inf: a score of 0 still gets weight "
    "exp(0) / sum after the softmax, so masked keys are attended to. Fill them with "
    "float('-inf') (scores.masked_fill(blocked, float('-inf')))."
)


def _informative(value: torch.Tensor) -> torch.Tensor | None:
    """A mistake's value, or None when it is NaN or inf everywhere: every such mistake
    gives the same value, so matching it would tell them apart no better than chance."""
    return value if bool(torch.isfinite(value).any()) else None


def _zero_denominator(got, expected, numerator: str, denominator: str, addend: str) -> str:
    """When the learner's value is the right numerator divided by 0 (inf with the right
    value's sign everywhere): the denominator that stayed 0 (blind20d-tiled-block-
    weights-never-summed was offered only causes that give NaN); "" otherwise."""
    if not isinstance(got, torch.Tensor) or not divided_by_zero(got, expected):
        return ""
    return (
        "Your result is inf everywhere, each entry with the sign of the right value (+inf "
        "where the right value is positive, -inf where it is negative): that is the right "
        f"numerator, {numerator}, divided by 0. Your {denominator} is still 0 when you "
        f"divide by it: the block's terms, {addend}, are never added to it (a line such as "
        "total = total * correction, which only rescales the old sum, or total *= ... "
        "where total = total * correction + ... belongs), or the division uses a sum that "
        "is never updated. Each block must add its terms to the rescaled running sum."
    )


def _all_nan_candidates(got: torch.Tensor, candidates: dict[str, torch.Tensor | None]) -> str:
    """When the learner's value is NaN or inf everywhere: the causes that give exactly that
    on this input, all of them (one such input cannot tell them apart), without claiming
    the list is complete (blind10e-online-block-summed-against-old-max, a slip outside it,
    was told "one of them is yours"); "" otherwise."""
    if bool(torch.isfinite(got).any()):
        return ""
    agree = [
        cause
        for cause, value in candidates.items()
        if value is not None and not bool(torch.isfinite(value).any())
    ]
    if not agree:
        return ""
    return (
        "Your result is NaN or inf everywhere. On this input each of these mistakes gives "
        "exactly that, so it cannot tell them apart: " + "; ".join(agree) + ". Other slips "
        "can give it too: any exp taken against the initial -inf (exp(s - (-inf)) = inf, and "
        "inf · 0 or inf / inf is NaN), or a division by a sum that is still 0. Look for the "
        "first exp or division evaluated before the running maximum is finite."
    )


def _arranged_or_related(got, expected) -> bool:
    """Whether the checker's own later reports (a known re-arrangement of the reference's
    numbers, or a simple relation to them) would name the learner's value: then a
    localisation must not pre-empt them."""
    if not isinstance(got, torch.Tensor) or got.shape != expected.shape:
        return True
    got_np = got.detach().double().numpy()
    exp_np = expected.detach().double().numpy()
    tol = {"rtol": 1e-4, "atol": 1e-5}
    return (
        match_layout(got_np, exp_np, **tol) is not None
        or match_relation(got_np, exp_np, **tol) is not None
    )


def _situations(run, probes) -> list[tuple[str, str]]:
    """Each probe (situation, args, expected) run through the learner's function:
    (situation, "right" / "wrong" / "raises ...")."""
    out = []
    for situation, args, expected in probes:
        try:
            got = run(*args)
        except Exception as error:  # the learner's code on another input
            out.append((situation, f"raises {type(error).__name__}"))
            continue
        right = (
            isinstance(got, torch.Tensor)
            and got.shape == expected.shape
            and bool(
                np.allclose(
                    got.detach().double().numpy(),
                    expected.double().numpy(),
                    rtol=1e-4,
                    atol=1e-5,
                )
            )
        )
        out.append((situation, "right" if right else "wrong"))
    return out


def _localise_blocks(run, probes, conclusions: dict[tuple[bool, ...], str], fallback: str) -> str:
    """When no known mistake matches: the learner's function on inputs that isolate one
    part of the blocked algorithm each (a single block; several blocks whose first holds
    the maximum, so nothing needs rescaling; several blocks each raising the maximum), and
    the part its first wrong situation points to (class 2: locate the first wrong step
    instead of "differs from the reference")."""
    found = _situations(run, probes)
    key = tuple(result == "right" for _, result in found)
    first = next((i for i, ok in enumerate(key) if not ok), None)
    conclusion = conclusions.get(key)
    if conclusion is None:
        conclusion = (
            fallback
            if first is None
            else conclusions.get(tuple(i < first for i in range(len(key))), fallback)
        )
    listing = "; ".join(
        f"{situation}: {result}" + (" (the first wrong one)" if i == first else "")
        for i, (situation, result) in enumerate(found)
    )
    return f"{len(found)} more runs locate it: {listing}. {conclusion}"
