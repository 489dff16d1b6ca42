"""``MultiHeadAttention``'s dropout, strictly between 0 and 1 in train mode: where it acts,
read back from the output through the check's own w_o and w_v, and the places it was put
instead (the values, the heads before w_o) named when they fit.
"""

from __future__ import annotations

import contextlib
import io
import re

import torch

from transformer_course.checking import Checker
from transformer_course.checking.dropout_sources import KEYS, QUERIES, SCORES, dropout_sources
from transformer_course.checking.inputs import randn
from transformer_course.checking.mode_paths import Mode, module_modes, path_sentence, split_by_mode
from transformer_course.checking.modules import build_module, random_state
from transformer_course.checking.randomness import reseeded_global_generator
from transformer_course.reference import multi_head_attention as ref

from .mha_cases import _Case, _inputs, _keys_hint, _kind, _state_shapes

# Dropout strictly between 0 and 1, in train mode: where it acts. len_k <= d_head (the
# heads' mixing coefficients can be read back through the values) and len_q >= len_k (a
# dropout on the values can be read back through the weights).
_VISIBLE_DROPOUT = _Case(31, 2, 6, 4, 16, 2, "cross", "none", dropout=0.5, train=True)
_HIDDEN_DROPOUT = _Case(131, 1, 7, 5, 20, 2, "general", "none", dropout=0.4, train=True)


def _kept_or_dropped(got: torch.Tensor, full: torch.Tensor, p: float) -> bool:
    """Whether every entry of ``got`` is 0 or ``full / (1 - p)`` (inverted dropout)."""
    kept = full / (1 - p)
    tol = 1e-3 * (1 + kept.abs())
    return bool((torch.minimum(got.abs(), (got - kept).abs()) <= tol).all())


def _read_back_mixing(output, state, query, key, value, mask, num_heads: int):
    """The coefficients that mix each value into each query's head, read back from the
    learner's ``output`` through the check's own w_o and w_v, with the reference weights:
    (mixing, weights) in float64, or None when the read-back is not exact (len_k > d_head)."""
    b, lq, d = output.shape
    lk, h = key.shape[1], num_heads
    dh = d // h
    st = {name: tensor.double() for name, tensor in state.items()}
    reference = ref.MultiHeadAttention(d, h).double().eval()
    reference.load_state_dict(st)
    with torch.no_grad():
        _, weights = reference(query.double(), key.double(), value.double(), mask)
        v = (value.double() @ st["w_v.weight"].T + st["w_v.bias"]).reshape(b, lk, h, dh)
        v = v.transpose(1, 2)  # (b, h, lk, d_head)
        merged = (output.detach().double() - st["w_o.bias"]) @ torch.linalg.inv(st["w_o.weight"]).T
        heads = merged.reshape(b, lq, h, dh).transpose(1, 2)  # (b, h, lq, d_head)
        mixing = heads @ torch.linalg.pinv(v)  # (b, h, lq, lk)
        if not torch.allclose(mixing @ v, heads, atol=1e-3):
            return None
    return mixing, weights


def _fitted_rate(mixing: torch.Tensor, weights: torch.Tensor) -> float | None:
    """The dropout rate q for which every coefficient is 0 or weight / (1 - q), when one
    q fits every entry (and the kept entries are rescaled at all); else None."""
    big = weights > 1e-3
    kept = big & (mixing.abs() > 1e-3 * weights)
    if not bool(kept.any()):
        return None
    ratios = mixing[kept] / weights[kept]
    scale = float(ratios.median())
    if scale <= 1.0 + 1e-6 or not bool(((ratios - scale).abs() < 1e-3 * scale).all()):
        return None
    return 1.0 - 1.0 / scale


def _fitted_output_rate(output, state, inputs, num_heads: int) -> float | None:
    """The one dropout rate that every weight read back from ``output`` fits, or None."""
    if not isinstance(output, torch.Tensor) or output.dim() != 3:
        return None
    query, key, value, mask = inputs
    with contextlib.suppress(RuntimeError):
        found = _read_back_mixing(output, state, query, key, value, mask, num_heads)
        return None if found is None else _fitted_rate(*found)
    return None


def _dropout_rate_note(output, state, inputs, num_heads: int, p: float, cls=None) -> str:
    """Dropout at the right place but at another rate than the ``p`` the layer was built
    with: the dropout argument ignored (a fixed nn.Dropout(0.1), the paper's rate), or
    the weights dropped twice (rate 1 - (1 - p)^2), told apart by a probe of ``cls``
    built with another rate when ``cls`` is given."""
    q = _fitted_output_rate(output, state, inputs, num_heads)
    if q is None or abs(q - p) < 1e-3:
        return ""
    measured = (
        f"Read back through w_o and the values, your layer drops attention weights at the "
        f"rate {q:.3g} (each kept weight is scaled by 1/(1 - {q:.3g})), although it was "
        f"built with dropout={p}"
    )
    if abs(q - (1 - (1 - p) ** 2)) < 1e-3:
        other = 0.2  # a second rate: twice gives 0.36 there, a fixed rate stays where it is
        again = _probed_rate(cls, other) if cls is not None else None
        twice = (
            "each weight goes through the dropout twice, e.g. weights = self.dropout(weights) "
            "and then self.dropout(weights) @ v (a weight is kept with probability (1 - p)^2 "
            "and scaled by 1/(1 - p)^2). Apply the dropout once, to the weights just before "
            "they multiply the values."
        )
        if again is not None and abs(again - (1 - (1 - other) ** 2)) < 1e-3:
            return (
                f"{measured}, and at {again:.3g} when built with dropout={other}: the rate "
                f"1 - (1 - p)^2 of dropout applied twice. So {twice}"
            )
        if again is None:
            return (
                f"{measured}: {q:.3g} = 1 - (1 - {p})^2. Either {twice} Or the rate {q:.3g} "
                "is fixed in your code: build the dropout from the argument, self.dropout = "
                "nn.Dropout(dropout)."
            )
    return (
        f"{measured}: your layer ignores the dropout argument, and its rate {q:.3g} is fixed "
        "in your code. Build the dropout from the argument: self.dropout = nn.Dropout(dropout)."
    )


def _probe_output(cls, p: float):
    """A fresh module of ``cls`` built with dropout=p, the check's weights, train mode,
    called on a probe whose mixing coefficients can be read back (len_k <= d_head):
    (output, state, inputs, num_heads), or None when the call fails."""
    d, h = 16, 2
    state = random_state(_state_shapes(d), seed=977)
    with contextlib.suppress(Exception):
        module = cls(d, h, dropout=p)
        module.load_state_dict(state)
        module.train()
        query, key = randn((2, 6, d), 978), randn((2, 4, d), 979)
        torch.manual_seed(980)
        with contextlib.redirect_stdout(io.StringIO()):
            result = module(query, key, key)
        if isinstance(result, tuple | list) and len(result) == 2:
            return result[0], state, (query, key, key, None), h
    return None


_AFTER_THE_SOFTMAX = (
    "Dropout acts on the weights after the softmax, where the values are mixed: "
    "heads = self.dropout(weights) @ v."
)
_ZEROED_SCORES = {
    SCORES: (
        "you applied dropout to the scores before the softmax (zeroed scores give equal "
        "weights): built with dropout=0.5, each of your unnormalised scores (the log of a "
        "weight, up to one constant per row) is either 0 or the score / (1 - p)."
    ),
    QUERIES: (
        "you applied dropout to the projected queries (self.dropout(self.w_q(query))), not "
        "to the weights: at p = 1 every query is 0, so every score is 0. Built with "
        "dropout=0.5, your weights are the softmax of scores whose queries lost features: "
        "read back through the keys, each coefficient of a query is either 0 or its value "
        "/ (1 - p). The queries go through w_q alone."
    ),
    KEYS: (
        "you applied dropout to the projected keys (self.dropout(self.w_k(key))), not to "
        "the weights: at p = 1 every key is 0, so every score is 0. Built with dropout=0.5, "
        "your weights are the softmax of scores whose keys lost features: read back through "
        "the queries, each feature of a key is either 0 or its value / (1 - p). The keys go "
        "through w_k alone."
    ),
}


def zeroed_scores_cause(cls) -> str:
    """Why a layer's weights are uniform over the allowed keys with dropout=1.0 in train
    mode (every score 0): dropout on the scores, the projected queries or the projected
    keys, told apart on a probe built with dropout=0.5 (checking.dropout_sources); each
    fitting one is said, and all three when the probe shows none."""
    d, h, p = 8, 2, 0.5  # d_head 4 < len_q = len_k = 8: queries and keys can be read back
    state = random_state(_state_shapes(d), seed=983)
    found: list[str] = []
    with contextlib.suppress(Exception):
        module = cls(d, h, dropout=p)
        module.load_state_dict(state)
        module.train()
        query, key = randn((2, 8, d), 984), randn((2, 8, d), 985)
        torch.manual_seed(986)
        with contextlib.redirect_stdout(io.StringIO()):
            result = module(query, key, key)
        if isinstance(result, tuple | list) and len(result) == 2:
            st = {name: tensor.double() for name, tensor in state.items()}

            def heads(x, name):  # (b, len, d) -> (b, h, len, d_head)
                y = x.double() @ st[f"{name}.weight"].T + st[f"{name}.bias"]
                return y.reshape(x.shape[0], x.shape[1], h, d // h).transpose(1, 2)

            found = dropout_sources(result[1], heads(query, "w_q"), heads(key, "w_k"), p)
    head = "With dropout=1.0 in train mode your weights are uniform over the allowed keys: "
    if len(found) == 1:
        return f"{head}{_ZEROED_SCORES[found[0]]} {_AFTER_THE_SOFTMAX}"
    return (
        f"{head}every score was 0, which dropout before the softmax gives: on the scores, "
        "or on what they are made of (the projected queries or keys), each zeroed at p = 1. "
        f"{_AFTER_THE_SOFTMAX}"
    )


def _renormalised_dropout_note(cls, nan: bool = False) -> str:
    """Dropout whose kept weights are divided by their row's sum, so that each row adds
    up to 1 again (round 20, blind19b-mha-dropped-weights-renormalised: with dropout=1.0
    every row is 0 / 0, and only NaN was said): on a probe built with dropout=0.5, read
    back through w_o and the values, every row of mixing coefficients adds up to 1, some
    weights are dropped, and each kept one is its weight times one factor per row (not
    the 1/(1 - p) of dropout). "" otherwise, or when the probe fails."""
    probe = _probe_output(cls, 0.5)
    if probe is None:
        return ""
    output, state, (query, key, value, mask), h = probe
    renormalised = False
    with contextlib.suppress(Exception), torch.no_grad():  # a probe: no evidence
        found = _read_back_mixing(output, state, query, key, value, mask, h)
        if found is not None and bool(torch.isfinite(found[0]).all()):
            mixing, weights = found  # (batch, heads, len_q, len_k) each
            kept = mixing.abs() > 1e-4  # the read-back of a float32 output is exact to ~1e-6
            dropped_some = bool((~kept & (weights > 1e-3)).any())
            sums_to_one = torch.allclose(mixing.sum(dim=-1), torch.ones(()).double(), atol=1e-3)
            ratios = torch.where(kept, mixing / weights.clamp_min(1e-12), torch.nan)
            per_row = ratios.nanmean(dim=-1, keepdim=True)  # one factor per row
            one_factor = bool(
                ((ratios - per_row).abs()[kept] < 1e-3 * per_row.expand_as(ratios)[kept]).all()
            )
            renormalised = dropped_some and sums_to_one and one_factor
    if not renormalised:
        return ""
    return (
        "Built with dropout=0.5 and read back through w_o and the values, your dropped-out "
        "weights add up to 1 in every row again: each kept weight is its attention weight "
        "divided by the sum of the kept ones, not by (1 - p). You renormalised the "
        "dropped-out weights (dividing by their row sums), which undoes dropout's 1/(1 - p) "
        "scaling and changes the mixture"
        + (
            "; a row whose weights are all dropped (every row, with dropout=1.0) is then "
            "0 / 0 = NaN"
            if nan
            else ""
        )
        + ". Use the dropout's output as it is: `heads = self.dropout(weights) @ v`."
    )


def _probed_rate(cls, p: float) -> float | None:
    """The dropout rate read back from a probe of ``cls`` built with dropout=p."""
    probe = _probe_output(cls, p)
    return None if probe is None else _fitted_output_rate(*probe)


def _probed_rate_note(cls, p: float) -> str:
    """:func:`_dropout_rate_note` on a probe whose mixing coefficients can be read back
    (len_k <= d_head), for cases where the check's own input cannot."""
    probe = _probe_output(cls, p)
    return "" if probe is None else _dropout_rate_note(*probe, p, cls=cls)


def _expect_backward_in_training(c: Checker, module, args: tuple, output, call: str, p: float):
    """Backward through the train-mode output must run. An in-place dropout (nn.Dropout(p,
    inplace=True)) overwrites the softmax's output, which softmax's backward needs, and
    backward raises "modified by an inplace operation"; the forward values are right, so
    nothing else shows it (round 13, blind13d-mha-dropout-inplace). The same module's
    backward in eval mode tells a train-only step from any other in-place operation."""
    if not output.requires_grad:
        return  # the eval-mode cases already say the output is cut from the parameters
    upstream = randn(output.shape, 982, dtype=output.dtype)  # (batch, len_q, d_model)
    try:
        (output * upstream).sum().backward()
        return
    except RuntimeError as exc:
        text = str(exc).split(" Hint:")[0]  # without torch's advice on anomaly detection
    in_place = "modified by an inplace operation" in text
    eval_runs = False
    with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
        module.eval()
        result = module(*args)
        (result[0] * upstream).sum().backward()
        eval_runs = True
    module.train()
    raised = f"backward through {call}'s output raised RuntimeError: {text[:400]}"
    if in_place and eval_runs:
        softmax = (
            " Here the tensor is the softmax's output, the attention weights: dropout "
            "overwrote them (and weights returned from that tensor are the dropped ones)."
            if re.search(r"output \d+ of Softmax", text)
            else ""
        )
        c.fail(
            f"With dropout={p} in train mode, {raised}\nIn eval mode the same module's "
            "backward runs, so a step that acts only in training changed in place a tensor "
            "that autograd saved for the backward pass: the dropout, built in place "
            "(nn.Dropout(p, inplace=True), F.dropout(..., inplace=True), or a dropout_ "
            f"call).{softmax} The forward values are right; training would stop at the first "
            "loss.backward(). Use the out-of-place dropout, self.dropout = "
            "nn.Dropout(dropout): it returns a new tensor and leaves the weights as they were."
        )
    if in_place:
        c.fail(
            f"{raised}\nAn operation changed in place a tensor that autograd saved for the "
            "backward pass (an operation ending in _, such as masked_fill_ or mul_, an "
            "x += ..., an assignment into a slice, or inplace=True), in eval mode too. Use "
            "the out-of-place forms (masked_fill, x = x + ...), which return new tensors."
        )
    c.fail(
        f"{raised}\nTraining runs backward through this layer: build the output from the "
        "inputs and the parameters with torch operations that autograd can follow."
    )


def _check_dropout_placement(c: Checker, cls, case: _Case) -> None:
    """In train mode with 0 < dropout < 1, the heads must be (dropped-out weights) @ v:
    each coefficient that mixes value k into query q's head is 0 or w_qk / (1 - p). The
    coefficients are read back from the output through the check's own w_o and w_v;
    when they do not fit, the other places dropout could act are tried (the values, the
    heads before w_o), each against every entry, and named only when it fits."""
    b, h, lq, lk, d = case.batch, case.num_heads, case.len_q, case.len_k, case.d_model
    dh, p = d // h, case.dropout
    state = random_state(_state_shapes(d), seed=case.seed)
    module, built = build_module(
        c,
        cls,
        d,
        h,
        dropout=p,
        name="MultiHeadAttention",
        expected_shapes=_state_shapes(d),
        keys_hint=_keys_hint(d, h),
        state=state,
        mode="train",
    )
    query, key, value, _ = _inputs(case)
    call = (
        f"mha(query {tuple(query.shape)}, key {tuple(key.shape)}, value {tuple(value.shape)}) "
        f"[{_kind(case)}; mha = {built} holding the check's weights, in train mode]"
    )
    torch.manual_seed(case.seed)
    result = c.call(module, query, key, value, call_repr=call)
    if not (isinstance(result, tuple | list) and len(result) == 2):
        return  # the cases above already say what forward must return
    output = result[0]
    if not isinstance(output, torch.Tensor) or output.shape != (b, lq, d):
        return
    st = {name: tensor.double() for name, tensor in state.items()}
    reference = ref.MultiHeadAttention(d, h).double().eval()
    reference.load_state_dict(st)
    with torch.no_grad():
        _, weights = reference(query.double(), key.double(), value.double())
        v = (value.double() @ st["w_v.weight"].T + st["w_v.bias"]).reshape(b, lk, h, dh)
        v = v.transpose(1, 2)  # (b, h, lk, d_head)
        merged = (output.detach().double() - st["w_o.bias"]) @ torch.linalg.inv(st["w_o.weight"]).T
        heads = merged.reshape(b, lq, h, dh).transpose(1, 2)  # (b, h, lq, d_head)
        mixing = heads @ torch.linalg.pinv(v)  # (b, h, lq, lk)
        placed = _kept_or_dropped(mixing, weights, p) and torch.allclose(
            mixing @ v, heads, atol=1e-3
        )
    if placed:
        reseeded = reseeded_global_generator(
            lambda: module(query.clone(), key.clone(), value.clone()), f"mha in train mode ({call})"
        )
        if reseeded:
            c.fail(reseeded)
        _expect_backward_in_training(c, module, (query, key, value), output, call, p)
        return
    with torch.no_grad():
        if note := _dropout_rate_note(output, state, (query, key, value, None), h, p, cls):
            c.fail(f"the output of {call}: {note}")
        values = torch.linalg.lstsq(weights, heads).solution  # (b, h, lk, d_head)
        on_values = _kept_or_dropped(values, v, p) and torch.allclose(
            weights @ values, heads, atol=1e-3
        )
        on_heads = _kept_or_dropped(heads, weights @ v, p)
    what = f"the output of {call}"
    with torch.no_grad():
        mixed = _other_matrix_mixed(st, (key, value), heads, weights, p, h)
    if mixed:
        c.fail(
            f"{what}, with dropout={p} in train mode, is (dropped-out attention weights) @ "
            f"{mixed} instead of @ v, the projected values: read back through w_o, your "
            f"heads mix {mixed} with coefficients that are each 0 or weight / (1 - p). The "
            "cases above without dropout pass, so the line that applies the dropout "
            "multiplies the wrong tensor. Use the projected values: "
            "`self.dropout(weights) @ v`."
        )
    rule = (
        "In multi-head attention, dropout acts on the attention weights, before they "
        "multiply the values: `self.dropout(weights) @ v` (each weight is either dropped or "
        "scaled by 1/(1 - p))."
    )
    if on_values:
        c.fail(
            f"{what} is what dropout on the values gives: read back through w_o, each "
            f"entry of your v is either 0 or v / (1 - p) (p = {p}), while the attention "
            f"weights are used whole. You applied dropout to the values v instead of to "
            f"the attention weights. {rule}"
        )
    if on_heads:
        c.fail(
            f"{what} is what dropout on the heads gives: each entry of weights @ v (before "
            f"merge_heads and w_o) is either 0 or scaled by 1/(1 - p) (p = {p}). You applied "
            f"dropout to the attention's result instead of to the attention weights. {rule}"
        )
    if renormalised := _renormalised_dropout_note(cls):
        c.fail(f"{what}, with dropout={p} in train mode: {renormalised}")
    c.fail(
        f"{what}, with dropout={p} in train mode, is not (dropped-out attention weights) @ "
        "values: read back through w_o and the values, the coefficient that mixes value k "
        "into query q's head should be either 0 or weight / (1 - p), and yours are not. "
        "Dropout sits somewhere else (on the queries, the keys, the values, the scores or "
        f"the output?), or it does not rescale the kept weights by 1/(1 - p). {rule}"
    )


def _other_matrix_mixed(st, inputs, heads, weights, p: float, h: int) -> str:
    """What the dropped-out weights multiply instead of the projected values, when one
    candidate fits every coefficient read back from ``heads``: the projected keys (w_k of
    the key input) or the value input without w_v. "" when none fits (or when a candidate
    coincides with the projected values, so that they cannot be told apart)."""
    key, value = inputs
    b, lk, d = key.shape
    dh = d // h

    def split(x):  # (b, lk, d) -> (b, h, lk, d_head)
        return x.reshape(b, lk, h, dh).transpose(1, 2)

    v = split(value.double() @ st["w_v.weight"].T + st["w_v.bias"])
    candidates = {
        "k, the projected keys (w_k of the key input),": split(
            key.double() @ st["w_k.weight"].T + st["w_k.bias"]
        ),
        "the value input itself, without w_v,": split(value.double()),
    }
    for name, other in candidates.items():
        if torch.allclose(other, v, atol=1e-6):
            continue
        mixing = heads @ torch.linalg.pinv(other)  # (b, h, lq, lk)
        if _kept_or_dropped(mixing, weights, p) and torch.allclose(
            mixing @ other, heads, atol=1e-3
        ):
            return name
    return ""


def _expect_no_dropout_by_default(c: Checker, cls) -> None:
    """``cls(d_model, num_heads)``, the dropout argument left out, must not drop anything
    in train mode: the contract's default is dropout=0.0, and every other case passes
    dropout explicitly, so a default of 0.1 (the paper's rate) went unseen (round 14,
    blind14d-mha-dropout-default-point-one). Compared with the same layer built with
    dropout=0.0 passed explicitly (the same weights and inputs, train mode), only the
    default can differ between the two; the rate is read back when it can be."""
    d, h = 16, 2
    state = random_state(_state_shapes(d), seed=983)
    query, key = randn((2, 6, d), 984), randn((2, 4, d), 985)  # len_k <= d_head: read back

    def run(**kwargs):
        with contextlib.redirect_stdout(io.StringIO()):
            module = cls(d, h, **kwargs)
            module.load_state_dict(state)
            module.train()
            torch.manual_seed(986)
            with torch.no_grad():
                result = module(query, key, key)
        output = result[0] if isinstance(result, tuple | list) else result
        if not isinstance(output, torch.Tensor):
            raise TypeError(type(output).__name__)
        return output.double()

    try:
        explicit, implicit = run(dropout=0.0), run()
    except Exception:  # the cases above say what is wrong with building or calling it
        return
    if implicit.shape == explicit.shape and torch.allclose(implicit, explicit, atol=1e-5):
        return
    rate = ""
    with contextlib.suppress(RuntimeError):
        found = _read_back_mixing(implicit.float(), state, query, key, key, None, h)
        q = _fitted_rate(*found) if found is not None else None
        if q is not None:
            rate = (
                f" Read back through w_o and the values, it drops attention weights at the "
                f"rate {q:.3g}, so your default is dropout={q:.3g}."
            )
    c.fail(
        f"MultiHeadAttention({d}, {h}), built without the dropout argument, gives in train "
        f"mode another output than MultiHeadAttention({d}, {h}, dropout=0.0) with the same "
        f"weights and inputs: the default of dropout in your signature is not 0.0.{rate} "
        "The contract's default is no dropout (a layer drops only when asked, as the later "
        "lessons build it): write the signature as `def __init__(self, d_model, num_heads, "
        "dropout=0.0)`."
    )


#: the masked attention asked of the layer in each mode (checking.mode_paths): cross-
#: attention, the second sequence padded by two keys, the first by one; len_k <= d_head,
#: so that the heads' mixing coefficients can be read back through the values
_MODE_PROBE = _Case(41, 2, 3, 5, 16, 2, "cross", "padding")


def _mask_by_mode_note(cls, case: _Case = _MODE_PROBE) -> str:
    """When the layer gives weight to keys the mask blocks in some modes and not in others
    (checking.mode_paths), the modes named and the branch they point to; "" when the split
    does not show (the mask ignored in every mode, or in none). One call per mode, read
    back through the check's own w_o and w_v: the coefficient that mixes a blocked key's
    value into a query's head must be 0 whatever dropout drew (no random stream is
    relied on: the grader's calls draw their own)."""
    d, h = case.d_model, case.num_heads
    state = random_state(_state_shapes(d), seed=case.seed)
    query, key, value, mask = _inputs(case)
    blocked = ~mask.expand(case.batch, h, case.len_q, case.len_k)
    unmasked: dict[Mode, bool] = {}  # a wrong mode's coefficients: the mask ignored?

    def respected(mode: Mode) -> bool | None:
        with contextlib.redirect_stdout(io.StringIO()), torch.no_grad():
            module = cls(d, h, dropout=mode.dropout)
            module.load_state_dict(state)
            module.train(mode.train)
            result = module(query, key, value, mask)
        output = result[0] if isinstance(result, tuple | list) and result else result
        if not isinstance(output, torch.Tensor) or output.shape != query.shape:
            return None
        if not bool(torch.isfinite(output).all()):
            return None
        found = _read_back_mixing(output, state, query, key, value, mask, h)
        without = _read_back_mixing(output, state, query, key, value, None, h)
        if found is None or without is None:
            return None
        mixing, no_mask = found[0], without[1]  # no_mask: the weights with no mask
        rate = mode.dropout if mode.train else 0.0
        unmasked[mode] = _kept_or_dropped(mixing, no_mask, rate)
        return bool((mixing[blocked].abs() < 1e-4).all())

    wrong, right = split_by_mode(respected, module_modes(0.5))
    # the cause only when every wrong mode gives the unmasked weights (dropped or kept):
    # dropout that undoes a mask applied before it leaks too, and is no mask ignored
    ignored = all(unmasked.get(mode) for mode in wrong)
    found = path_sentence(
        wrong,
        right,
        "your heads mix in the values of keys the mask blocks (read back through w_o and "
        "w_v)"
        + (": they are the weights without any mask, the mask is ignored there" if ignored else ""),
        "they do not, the mask is applied",
    )
    if not found:
        return ""
    return (
        f"Run again in three modes (MultiHeadAttention({d}, {h}), the same weights, "
        f"cross-attention with a padding mask, bool {tuple(mask.shape)}). {found} Apply "
        "the mask on every path, to the scaled scores before the softmax, and then drop out "
        "the weights: `scores = scores.masked_fill(~mask, float('-inf'))`, "
        "`weights = torch.softmax(scores, dim=-1)`, `heads = self.dropout(weights) @ v`."
    )


def _expect_mask_on_every_path(c: Checker, cls) -> None:
    """The mask must hold in every mode. The train-mode cases run at dropout 0.0 and 1.0
    (fixed results) and the dropout placement unmasked, so a training branch that forgets
    the mask and returns the weights after dropout (all zero at 1.0, where the output is
    w_o's bias whatever the mask) passed; asked in each mode, it shows."""
    if note := _mask_by_mode_note(cls):
        c.fail(note)
