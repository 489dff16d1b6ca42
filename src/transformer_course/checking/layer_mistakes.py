"""The mistakes that the encoder's and the decoder's layers and stacks share (lessons 07
and 08): the mistake tables the float64 oracles of :mod:`transformer_course.checking.oracles`
compute (one message per classic mistake, with the knobs that reproduce it), source padding
masks and how a case is described in words.
"""

from __future__ import annotations

from itertools import product
from typing import Any

from transformer_course.checking.inputs import PAD, token_ids
from transformer_course.checking.oracles.encoder_decoder import uses_final_norm
from transformer_course.checking.sublayer_names import sublayer_words
from transformer_course.reference.masking import padding_mask

__all__ = [
    "PADDING_WORDS",
    "add_new",
    "discarded_mistakes",
    "dropout_missing_mistakes",
    "dropout_place_mistakes",
    "layer_mistakes",
    "norm_choice_mistakes",
    "placement_mistakes",
    "post_pre",
    "residual_mistakes",
    "source_mask",
    "stack_description",
    "stack_mistakes",
]


PADDING_WORDS = {
    "none": "",
    "right": "padded at the end",
    "left": "padded at the start",
    "both": "padded at the end and at the start",
}


def source_mask(batch: int, length: int, padding: str, seed: int):
    """(ids (batch, len) or None, mask (batch, 1, 1, len) or None) for a padding kind."""
    if padding == "none":
        return None, None
    lengths = [length - (b % 3) for b in range(batch)]  # 0, 1, 2 pads
    lengths[-1] = min(lengths[-1], length - 1) if batch > 1 else length - 2
    if padding == "both":  # the last sequence padded at the start
        ids = token_ids(lengths, length, seed)
        left = token_ids(lengths[-1:], length, seed + 1, left=True)
        ids[-1] = left[0]
    else:
        ids = token_ids(lengths, length, seed, left=padding == "left")
    return ids, padding_mask(ids, PAD)  # (batch, 1, 1, len), True = may attend


def post_pre(norm_first: bool) -> str:
    return "pre-LN (norm_first=True)" if norm_first else "post-LN (norm_first=False, the paper)"


_LAYER_PRE_FOR_POST = (
    "With norm_first=False (the paper's post-LN) each LayerNorm comes after the residual sum, "
    "x = norm1(x + dropout(self_attn(x, x, x, mask))); yours normalises before the sub-layer "
    "(pre-LN). Did you swap the two branches of `if self.norm_first`?"
)
_LAYER_POST_FOR_PRE = (
    "With norm_first=True (pre-LN) each sub-layer reads a normalised copy and its output is "
    "added to the un-normalised x: x = x + dropout(self_attn(norm1(x), ...)). Yours computes "
    "post-LN: is norm_first stored and used (and passed on)?"
)
_AFTER_NORM = (
    "You add the residual after the norm, x + norm(sublayer(x)). In post-LN the sum comes "
    "first, then the norm: norm1(x + dropout(sublayer(x)))."
)
_NO_RESIDUAL = (
    "There is no residual connection: the input x must be added to each sub-layer's output "
    "(x + dropout(sublayer(...))). Without it, deep stacks lose the input's information and "
    "their gradients."
)
_FROM_NORMED = (
    "In your pre-LN layer the residual adds the normalised x: norm1(x) + sublayer(norm1(x)). "
    "The residual path carries the un-normalised x: x + dropout(sublayer(norm1(x)))."
)
_DROP_MISSING = (
    "In train mode with dropout=1.0 your sub-layer outputs still reach the residual sum: the "
    "dropout must act on each sub-layer's output just before it is added to x (paper, "
    "section 5.4), x + dropout(sublayer(...)). (Dropout on the sub-layer's input, or none at "
    "all on its output, gives what yours gives.)"
)
_DROP_AFTER_NORM = (
    "In train mode with dropout=1.0 your layer drops the normalised result: the dropout belongs "
    "on each sub-layer's output, before the residual sum and the norm, "
    "norm1(x + dropout(sublayer(x)))."
)
_DROP_ON_SUM = (
    "In train mode with dropout=1.0 your layer drops the residual sum x + sublayer(x) (so even "
    "x is lost). The dropout acts on the sub-layer's output only: norm1(x + dropout(sublayer(x)))."
)
_DROP_NEVER = (
    "In train mode with dropout=1.0 your layer gives the same as in eval mode: dropout is never "
    "applied. It is left out, passed on to no sub-layer, or called only when the layer is not "
    "training (`if not self.training:`, where nn.Dropout does nothing anyway). Use nn.Dropout "
    "modules on each sub-layer's output, called with no condition (they follow train()/eval() "
    "by themselves), and pass dropout on to MultiHeadAttention and PositionwiseFeedForward."
)


def layer_mistakes(norm_first: bool, drop: bool) -> dict[str, dict[str, Any]]:
    """The layer-level mistakes (shared by the encoder and the decoder layer)."""
    table: dict[str, dict[str, Any]] = {}
    if drop:  # checked after the eval cases: a structural mistake has been reported by then
        table[_DROP_MISSING] = {"dropout_at": "missing"}
        table[_DROP_NEVER] = {"drop": False}
        if not norm_first:
            table[_DROP_AFTER_NORM] = {"dropout_at": "after_norm"}
            table[_DROP_ON_SUM] = {"dropout_at": "on_sum"}
    if norm_first:
        table[_LAYER_POST_FOR_PRE] = {"norm_first": False}
        table[_FROM_NORMED] = {"residual": "from_normed"}
    else:
        table[_LAYER_PRE_FOR_POST] = {"norm_first": True}
        table[_AFTER_NORM] = {"residual": "after_norm"}
    table[_NO_RESIDUAL] = {"residual": "none"}
    return table


def dropout_missing_mistakes(
    parts: dict[str, str], norms: dict[str, str], norm_first: bool
) -> dict[str, dict[str, Any]]:
    """One mistake per sub-layer: its output reaches the residual sum without the dropout
    (the others have theirs; round 10, blind10d-enc-layer-post-ln-ffn-without-dropout was
    told to check the earlier exercises). Only train mode with dropout=1.0 tells them."""
    table = {}
    for part, attr in parts.items():
        norm = norms[part]
        right = (
            f"x + dropout({attr}({norm}(x)))" if norm_first else f"{norm}(x + dropout({attr}(x)))"
        )
        table[
            f"In train mode with dropout=1.0 the output of `self.{attr}` still reaches the "
            f"residual sum: the {sublayer_words(attr)} sub-layer's output is added without its "
            f"dropout (the others have theirs). Write {right}."
        ] = {"no_dropout": (part,)}
    return table


def dropout_place_mistakes(
    parts: dict[str, str], norms: dict[str, str], norm_first: bool
) -> dict[str, dict[str, Any]]:
    """Post-LN: one mistake per sub-layer and per wrong place of its dropout, the others
    right: on the residual sum before the norm, norm(dropout(x + sublayer(x))), or on the
    norm's result, dropout(norm(x + sublayer(x))) (the whole-layer forms are in
    :func:`layer_mistakes`; one sub-layer's line written otherwise got "differs from the
    reference"). Only train mode with dropout=1.0 tells them."""
    if norm_first:
        return {}
    table = {}
    for part, attr in parts.items():
        norm = norms[part]
        right = f"{norm}(x + dropout({attr}(x)))"
        table[
            f"In train mode with dropout=1.0 the {sublayer_words(attr)} sub-layer drops its "
            f"whole residual sum, {norm}(dropout(x + {attr}(x))) (so even x is lost there; the "
            f"other sub-layers have theirs right). The dropout acts on `self.{attr}`'s output "
            f"only: {right}."
        ] = {"dropout_places": ((part, "on_sum"),)}
        table[
            f"In train mode with dropout=1.0 the {sublayer_words(attr)} sub-layer drops the "
            f"normalised result, dropout({norm}(x + {attr}(x))) (the other sub-layers have "
            f"theirs right). The dropout belongs on `self.{attr}`'s output, before the residual "
            f"sum and the norm: {right}."
        ] = {"dropout_places": ((part, "after_norm"),)}
    return table


#: the usual attribute names of a layer's sub-layers, as a learner reads them
def residual_mistakes(
    parts: dict[str, str], norms: dict[str, str], norm_first: bool, *, dropout: bool = True
) -> dict[str, dict[str, Any]]:
    """One mistake per sub-layer: its residual connection alone is missing. ``parts``:
    {oracle part name: the sub-layer's attribute}, ``norms``: {part: its norm}."""
    table = {}
    order = list(parts)
    for position, (part, attr) in enumerate(parts.items()):
        norm = norms[part]
        out = f"dropout({attr}(...))" if dropout else f"{attr}(...)"
        # what the missing residual loses: the stream that reaches the sub-layer
        lost = (
            "the layer's input x"
            if position == 0
            else "the stream that reaches it (holding the result of the "
            + " and the ".join(sublayer_words(parts[p]) for p in order[:position])
            + ")"
        )
        right = (
            f"x + {out.replace('...', f'{norm}(x)')}"
            if norm_first
            else f"{norm}(x + {out.replace('...', 'x')})"
        )
        table[
            f"The output of `self.{attr}` is not added back to its input: there is no residual "
            f"connection around that sub-layer (the others have theirs), so {lost} is lost: "
            f"only the sub-layer's output goes on. Write {right}."
        ] = {"no_residual": (part,)}
    return table


def discarded_mistakes(
    parts: dict[str, str], norms: dict[str, str], norm_first: bool, called: set[str] | None
) -> dict[str, dict[str, Any]]:
    """One mistake per sub-layer that ``called`` says ran: its output computed but never
    used, the residual sum adding the sub-layer's input to itself (x + dropout(x)), as
    after a variable mix-up. (A sub-layer never called gives nearly the same result; the
    localisation says that one exactly, so it is left to it.)"""
    table = {}
    for part, attr in parts.items():
        if called is None or attr not in called:
            continue
        norm = norms[part]
        if norm_first:
            wrong, right = f"x + dropout({norm}(x))", f"x + dropout({attr}({norm}(x)))"
        else:
            wrong, right = f"{norm}(x + dropout(x))", f"{norm}(x + dropout({attr}(x)))"
        table[
            f"The output of `self.{attr}` never reaches the result: yours gives what {wrong} "
            "gives, the sub-layer's input where its output belongs (a variable mix-up, say "
            f"`y = self.{attr}(...)` followed by `dropout(x)`). Write {right}."
        ] = {"discarded": (part,)}
    return table


def norm_choice_mistakes(parts: dict[str, str], norms: dict[str, str]) -> dict[str, dict[str, Any]]:
    """One mistake per (sub-layer, other norm): the sub-layer uses another sub-layer's norm
    (so one norm runs twice and its own never). Knobs ``norms``, in the parts' order."""
    order = list(parts)
    right = tuple(norms[p] for p in order)
    table = {}
    for i, part in enumerate(order):
        for other in right:
            if other == right[i]:
                continue
            chosen = tuple(other if j == i else n for j, n in enumerate(right))
            table[
                f"The `self.{parts[part]}` sub-layer uses `self.{other}` instead of its own "
                f"`self.{right[i]}` (so {other} runs twice and {right[i]} never): each sub-layer "
                "has its own norm, with its own weights, loaded by these names."
            ] = {"norms": chosen}
    return table


_PLACED = {
    "post": ("{n}(x + {s}(x))", "post-LN"),
    "pre": ("x + {s}({n}(x))", "pre-LN"),
    "both": ("{n}(x + {s}({n}(x)))", "a LayerNorm before and after the sub-layer"),
    "norm_residual": ("{n}(x) + {s}(x)", "the norm on the residual branch alone, not on the sum"),
    "sandwich": (
        "x + {n}({s}({n}(x)))",
        "a LayerNorm on both sides of the sub-layer: its output normalised again before the "
        "residual sum",
    ),
}


def placement_mistakes(
    parts: dict[str, str], norms: dict[str, str], norm_first: bool
) -> dict[str, dict[str, Any]]:
    """One mistake per combination of norm placements, each sub-layer on its own (knob
    ``placements``, in the parts' order; the oracle's PLACEMENTS): the two layouts mixed
    (one sub-layer pre-LN, the other post-LN), a norm before and after, a norm on the
    residual branch alone... The two uniform layouts are left to the table's own
    "ignores norm_first" entries. Each message writes what the learner's layer computes,
    sub-layer by sub-layer, next to what it should."""
    order = list(parts)
    right = "pre" if norm_first else "post"
    table: dict[str, dict[str, Any]] = {}
    for combo in product(_PLACED, repeat=len(order)):
        if len(set(combo)) == 1 and combo[0] in ("pre", "post"):
            continue
        if norm_first and combo[:-1] == ("pre",) * (len(combo) - 1) and combo[-1] == "both":
            continue  # = the pre-LN output normalised once more, diagnosed as that elsewhere
        said, wanted = [], []
        for part, placement in zip(order, combo, strict=True):
            formula, name = _PLACED[placement]
            text = formula.format(n=norms[part], s=parts[part])
            said.append(f"the `self.{parts[part]}` sub-layer as {text} ({name})")
            wanted.append(_PLACED[right][0].format(n=norms[part], s=parts[part]))
        mixed = set(combo) == {"pre", "post"}
        table[
            f"Your layer computes {' and '.join(said)}"
            + (": the two layouts mixed" if mixed else "")
            + f". With norm_first={norm_first} ({_PLACED[right][1]}) every sub-layer is "
            + f"{_PLACED[right][1]}: "
            + "; then ".join(wanted)
            + ", with dropout on each sub-layer's output."
        ] = {"placements": combo}
    return table


def add_new(table: dict[str, dict[str, Any]], more: dict[str, dict[str, Any]]) -> dict:
    """``table`` with the entries of ``more`` whose knobs it does not already hold (one
    message per computation, so that a match is never reported twice)."""
    known = list(table.values())
    for message, knobs in more.items():
        if knobs not in known:
            table[message] = knobs
            known.append(knobs)
    return table


_STACK_UNCHAINED = (
    "Your stack feeds every layer the stack's input x instead of the previous layer's output "
    "(the layers are not chained), so only the last layer's work reaches the output: write "
    "x = layer(x, ...) in the loop, reassigning x."
)
_STACK_IGNORES_NORM_FIRST = (
    "Your stack builds post-LN layers although norm_first=True was asked for: norm_first is "
    "not passed on to the layers (built as Layer(d_model, num_heads, d_ff, dropout), each "
    "keeps its default, norm_first=False), or another argument (final_norm?) lands in its "
    "place. Pass norm_first on to every layer it builds."
)
_STACK_FOLLOWS_FINAL_NORM = (
    "Your stack builds pre-LN layers although norm_first=False was asked for, with "
    "final_norm=True: is final_norm reaching the layers' norm_first parameter (Layer(d_model, "
    "num_heads, d_ff, dropout, final_norm))? Pass norm_first to every layer it builds; "
    "final_norm only decides the stack's own final LayerNorm."
)
_STACK_REVERSED = (
    "Your stack applies the layers in reverse order: layers[0] first, then layers[1], ..."
)
_STACK_FIRST_ONLY = (
    "Your stack applies layers[0] num_layers times, and the other layers never: loop over "
    "self.layers and call each layer once, in order."
)
_STACK_FIRST_ONCE = (
    "Your stack returns after the first layer (is the `return` inside the loop?): every layer "
    "must run, in order, before the result is returned."
)
_STACK_STOPS_EARLY = (
    "Your loop stops one layer early: the last layer, layers[num_layers - 1], never runs "
    "(range(len(self.layers) - 1), or self.layers[:-1]?): every layer must run, in order."
)
_STACK_NORM_EACH = (
    "Your stack applies the final LayerNorm after every layer: it is applied once, to the "
    "output of the last layer."
)
_STACK_STREAM_DROPPED = (
    "In train mode with dropout=1.0 your stack's output is what a dropout of the stream "
    "itself gives: a dropout on every layer's output, x = dropout(layer(x, ...)) in the loop "
    "(between the layers), or on the last one's alone (the two look alike here). The only "
    "dropouts are inside the layers, on each sublayer's output before its residual "
    "addition; the stack only chains the layers: x = layer(x, ...)."
)
_STACK_NO_FINAL = (
    "Your stack has the final LayerNorm `norm`, but its output is the last layer's output "
    "without it: self.norm is never applied (or its result is not what forward returns). With "
    "{why} the stack ends with return self.norm(x), after the loop."
)


def stack_mistakes(
    norm_first: bool, final_norm: bool | None, *, drop: bool = False
) -> dict[str, dict[str, Any]]:
    """The stack-level mistakes (shared by the encoder and the decoder stack); ``drop``: the
    case runs in train mode with dropout=1.0, where a dropout of the stream shows."""
    final = uses_final_norm(norm_first, final_norm)
    table: dict[str, dict[str, Any]] = {
        _STACK_REVERSED: {"order": "reversed"},
        _STACK_FIRST_ONLY: {"order": "first_only"},
        _STACK_FIRST_ONCE: {"order": "first_once"},
        _STACK_STOPS_EARLY: {"order": "all_but_last"},
        _STACK_UNCHAINED: {"order": "unchained"},
    }
    if norm_first:
        table[_STACK_IGNORES_NORM_FIRST] = {"layer_norm_first": False}
    elif final_norm:  # pre-LN layers in a post-LN stack built with final_norm=True
        table[_STACK_FOLLOWS_FINAL_NORM] = {"layer_norm_first": True}
    if final:
        why = "final_norm=True" if final_norm else "norm_first=True and final_norm=None"
        table[_STACK_NO_FINAL.format(why=why)] = {"final": False}
        table[_STACK_NORM_EACH] = {"norm_each": True}
    if drop:
        table[_STACK_STREAM_DROPPED] = {"stream_dropped": True}
    return table


def stack_description(case: Any, built: str) -> str:
    """What a stack case builds, in words (any case with num_layers, norm_first, final_norm, mode)."""
    final = uses_final_norm(case.norm_first, case.final_norm)
    return (
        f"{built}: {case.num_layers} {post_pre(case.norm_first)} layers"
        f"{', then a final LayerNorm' if final else ', no final LayerNorm'}; {case.mode} mode, "
        "holding the check's weights"
    )
