"""Building and loading the learner's ``Transformer`` for a case: its constructor's
errors, its state dict's names and shapes, tied weights, the vocabulary check, and
the hints these steps give."""

from __future__ import annotations

import re
from collections.abc import Mapping

import torch
from torch import nn

from transformer_course.checking import Checker, CheckFailure
from transformer_course.checking.modules import _key_list, build_module, transposed_weight_hint

from .common import _INDEX_HINT, _OUT_WEIGHT, _POSITIONS, _SRC_TABLE, _TGT_TABLE
from .model_cases import _Case, _case_state, _parameter_shapes


# ----------------------------------------------------------- hints
def _length_hint(case: _Case) -> list:
    """A hint for an error that mixes the source's and the target's lengths."""
    ls, lt = case.len_src, case.len_tgt

    def mixes(exc: BaseException) -> bool:
        numbers = {int(n) for n in re.findall(r"\d+", str(exc))}
        return isinstance(exc, RuntimeError) and {ls, lt} <= numbers

    advice = (
        f"Here len_src = {ls} and len_tgt = {lt}, and the error mixes exactly these two "
        "lengths: something built from one sequence met the other. The decoder's "
        "self-attention mask comes from tgt_ids, (batch, 1, len_tgt, len_tgt); the "
        "cross-attention mask from src_ids, (batch, 1, 1, len_src); and the decoder is "
        "called as decoder(target vectors, memory, src_mask, tgt_mask), in that order."
    )
    hints = [(mixes, advice)] if ls != lt else []
    return [*hints, *_batch_for_length_hint(case)]


_SIZES_MET = re.compile(r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)")


def _batch_for_length_hint(case: _Case) -> list:
    """The family 'a size read from the wrong axis': an error that meets the batch size
    and one sequence's length, where the batch size is neither length (a mask or a tensor
    sized by ids.shape[0], the batch, where ids.shape[1], the length, belongs)."""
    batch = len(case.tgt_lengths)
    lengths = {"len_tgt": case.len_tgt, "len_src": case.len_src}
    if batch in lengths.values():
        return []

    def sizes(exc: BaseException) -> set[int]:
        found = _SIZES_MET.search(str(exc))
        return {int(found.group(1)), int(found.group(2))} if found else set()

    def meets(exc: BaseException) -> bool:
        return isinstance(exc, RuntimeError) and any(
            sizes(exc) == {batch, n} for n in lengths.values()
        )

    def text(exc: BaseException) -> str:
        names = [k for k, n in lengths.items() if sizes(exc) == {batch, n}]
        ids = {"len_tgt": "tgt_ids", "len_src": "src_ids"}
        if len(names) == 1:  # one sequence has that length: its ids are named
            name = names[0]
            which = f"{lengths[name]}, {name} ({ids[name]}.shape[1])"
            example = (
                f"a mask built from {ids[name]}.shape[0] "
                + (
                    "(look_ahead_mask(tgt_ids.shape[0]))"
                    if name == "len_tgt"
                    else "(a padding mask of src_ids.shape[0] columns)"
                )
                + f" instead of {ids[name]}.shape[1]"
            )
        else:  # both lengths are that number here: either sequence
            which = f"{case.len_tgt}, the length of both sequences (src_ids.shape[1] and tgt_ids.shape[1])"
            example = (
                "a mask built from ids.shape[0] instead of ids.shape[1] "
                "(look_ahead_mask(tgt_ids.shape[0]), or a padding mask of src_ids.shape[0] "
                "columns)"
            )
        return (
            f"The error meets {batch}, the batch size (ids.shape[0]), and {which}: something "
            f"was sized by the batch axis where the length belongs, such as {example}, or a "
            "tensor transposed, (len, batch) where (batch, len) belongs. The masks come from "
            "the ids as they are: decoder_self_attention_mask(tgt_ids, self.pad_id), (batch, "
            "1, len_tgt, len_tgt), and padding_mask(src_ids, self.pad_id), (batch, 1, 1, "
            "len_src)."
        )

    return [(meets, text)]


_TUPLE_HINT = (
    "The encoder and the decoder (lessons 07 and 08) each return one tensor; lesson 05's "
    "MultiHeadAttention returns a pair, but you do not call it directly here."
)
_CALL_HINTS = [
    ("index out of range", _INDEX_HINT),
    (lambda exc: "tuple" in str(exc) and "Tensor" in str(exc), _TUPLE_HINT),
]


def _layer_count_source(count: int, case: _Case) -> str:
    """Which other argument of the call the stacks' number of layers is (an argument
    passed in num_layers' place, such as num_heads when Encoder and Decoder get the
    model's arguments in another order), when it is one; "." otherwise."""
    sizes = {"num_heads": case.num_heads, "d_model": case.d_model, "d_ff": case.d_ff}
    which = [name for name, value in sizes.items() if value == count]
    if not which or count == case.num_layers:
        return "."
    names = " or ".join(which)
    return (
        f"; yours have {count}, which is {names} in this call: {names} went where num_layers "
        f"belongs, as when num_layers and {which[0]} are swapped in the arguments handed to "
        "Encoder and Decoder. "
        "They take (num_layers, d_model, num_heads, d_ff, dropout, norm_first, final_norm): "
        "pass them in that order, or by keyword."
    )


def _keys_hint(found: Mapping[str, tuple], expected: Mapping[str, tuple], case: _Case) -> str:
    hints = []
    if "src_embedding.weight" in found or "tgt_embedding.weight" in found:
        hints.append(
            "`src_embedding.weight` is the key of a plain nn.Embedding: use lesson 02's "
            "TokenEmbedding (imported in the setup cell), which keeps its table as "
            "`.embedding` and multiplies the lookup by sqrt(d_model)."
        )
    for key in (_TGT_TABLE, _OUT_WEIGHT):
        if key in found and key in expected and found[key] != expected[key]:
            if found[key] == expected[_SRC_TABLE]:
                hints.append(
                    f"{key} has the source vocabulary's shape {found[key]}: the target side "
                    f"(tgt_embedding and output) has tgt_vocab_size = {case.tgt_vocab} rows. "
                    "Either it was built with src_vocab_size (write tgt_vocab_size there), "
                    "or it is the source's module itself, shared."
                )
    missing = set(expected) - set(found)
    extra = set(found) - set(expected)
    if {"encoder.norm.weight", "decoder.norm.weight"} & missing:
        hints.append(
            "Your stacks lack their final LayerNorm `norm`: pass norm_first and final_norm on "
            "to Encoder and Decoder (with final_norm=True, or norm_first=True and "
            "final_norm=None, they add one)." + _STACK_ORDER
        )
    if {"encoder.norm.weight", "decoder.norm.weight"} & extra:
        hints.append(
            "Your stacks have a final LayerNorm this configuration must not have: pass "
            "norm_first and final_norm on to Encoder and Decoder unchanged (final_norm=None "
            "adds one only for pre-LN)." + _STACK_ORDER
        )
    positional = [key for key in extra if "positional" in key and not key.startswith(_POSITIONS)]
    if positional:
        hints.append(
            f"You built a second positional encoding ({', '.join(positional)}): the contract has "
            "ONE, positional_encoding, used for both sides (the sinusoids do not depend on the "
            "language; only the positions matter)."
        )
    cross = {key for key in missing if key.startswith("decoder.layers.") and ".cross_attn." in key}
    if cross and not any(".cross_attn." in key for key in found):
        hints.append(
            "Your decoder's layers have no cross-attention (no cross_attn, no norm3): they are "
            "encoder layers. The decoder stack is built from the encoder's classes (Encoder, or "
            "EncoderLayer inside it) where lesson 08's Decoder belongs: self.decoder = "
            "Decoder(num_layers, d_model, num_heads, d_ff, ...), whose layers read memory."
        )
    if "output.bias" in missing and _OUT_WEIGHT in found:
        hints.append("The output layer is nn.Linear(d_model, tgt_vocab_size), with its bias.")
    if not any(key.startswith("output.") for key in found):
        hints.append(
            "There is no `output` layer: the decoder's vectors go through "
            "self.output = nn.Linear(d_model, tgt_vocab_size) (the Annotated Transformer "
            "calls it generator.proj; this course calls it output)."
        )
    layers = {
        key.split(".")[2] for key in found if key.startswith(("encoder.layers.", "decoder.layers."))
    }
    wanted = {key.split(".")[2] for key in expected if key.startswith("encoder.layers.")}
    if layers and layers != wanted:
        hints.append(
            f"Each stack has num_layers = {case.num_layers} layers"
            + _layer_count_source(len(layers), case)
        )
    return " ".join(dict.fromkeys(hints))


#: where a stack's options go: two passed in each other's place are lost
_STACK_ORDER = (
    " If you pass them, check their places: Encoder and Decoder take (num_layers, d_model, "
    "num_heads, d_ff, dropout, norm_first, final_norm); the two swapped give the other's "
    "value to each (norm_first=True, final_norm=False then builds post-LN stacks with final "
    "norms); pass both by keyword."
)


# ----------------------------------------------------------- building and loading
def _refused_valid(cls, case: _Case, error: ValueError) -> str:
    """Why a ValueError from constructing ``case`` (a valid combination) is the learner's
    own refusal misfiring, with the slips that agree with this call (when the error is
    about tying or the vocabularies); a call with tie_embeddings=False passed explicitly
    tells a default of True from a test that ignores tie_embeddings."""
    rate = re.search(r"dropout probability has to be between 0 and 1, but got (\S+)", str(error))
    if rate:  # nn.Dropout's own refusal: an argument in dropout's place
        return _dropout_refused(case, float(rate.group(1)))
    misplaced = _argument_in_anothers_place(case, str(error))
    if misplaced:
        return misplaced
    same = case.src_vocab == case.tgt_vocab
    about = bool(re.search(r"tie|vocab", str(error), re.IGNORECASE))
    slip = ""
    if case.tie:
        passed = "tie_embeddings=True with one shared vocabulary"
        if same and about:
            slip = (
                "your test refuses equal vocabulary sizes: its comparison is inverted (== "
                "where != belongs), or it refuses every tie_embeddings=True"
            )
    else:
        passed = "tie_embeddings not passed: its default, False, ties nothing"
        if not same and about:
            try:
                cls(case.src_vocab, case.tgt_vocab, **case.kwargs, tie_embeddings=False)
            except Exception:
                slip = (
                    "your test raises even with tie_embeddings=False: it refuses two "
                    "vocabulary sizes without looking at tie_embeddings; raise only when "
                    "tie_embeddings is True"
                )
            else:
                slip = (
                    "with tie_embeddings=False passed it builds, so the default of "
                    "tie_embeddings in your __init__ is True, not False"
                )
    return (
        f"\nYour Transformer raised ValueError on a valid call ({passed}). Refuse only "
        "tie_embeddings=True with two different vocabulary sizes"
        + (f"; here {slip}." if slip else ".")
    )


def _argument_in_anothers_place(case: _Case, text: str) -> str:
    """An error raised below the model (the attention's own test, d_model % num_heads)
    that names a size, such as "num_heads=16", whose value is not this call's but another
    argument's: that argument was passed in its place (round 12, blind12h-tr-heads-and-
    d-ff-swapped got "Refuse only tie_embeddings=True ..."); "" otherwise."""
    sizes = {
        "num_heads": case.num_heads,
        "num_layers": case.num_layers,
        "d_model": case.d_model,
        "d_ff": case.d_ff,
    }
    for name, value in re.findall(r"\b(num_heads|num_layers|d_model|d_ff)\s*=\s*(\d+)", text):
        got = int(value)
        if got == sizes[name]:
            continue
        which = [other for other, size in sizes.items() if other != name and size == got]
        if not which:
            continue
        names = " or ".join(which)
        return (
            f"\nThe error is not a refusal of yours: a layer was built with {name} = {got}, "
            f"not this call's {name} = {sizes[name]}. {got} is {names} here: {names} went "
            f"where {name} belongs, as when {name} and {which[0]} are swapped in the "
            "arguments handed to Encoder and Decoder, which take (num_layers, d_model, "
            "num_heads, d_ff, dropout, norm_first, final_norm): pass them in that order, or "
            "by keyword."
        )
    return ""


def _dropout_refused(case: _Case, got: float) -> str:
    """nn.Dropout refused ``got`` as a probability: which argument it is, when it is one."""
    sizes = {
        "max_len": case.max_len,
        "d_model": case.d_model,
        "d_ff": case.d_ff,
        "num_heads": case.num_heads,
        "num_layers": case.num_layers,
    }
    which = [name for name, value in sizes.items() if value == got]
    orders = (
        "PositionalEncoding(d_model, max_len, dropout) (the PyTorch tutorial's "
        "PositionalEncoding takes (d_model, dropout, max_len)), and Encoder and Decoder "
        "(num_layers, d_model, num_heads, d_ff, dropout, norm_first, final_norm)"
    )
    if not which:
        return (
            f"\nnn.Dropout was given {got:g} as its probability, not the model's dropout "
            f"({case.dropout}): an argument went into dropout's place. The orders are {orders}; "
            "pass them in that order, or by keyword."
        )
    return (
        f"\nnn.Dropout was given {got:g} as its probability: that is {' or '.join(which)}, "
        "passed where the dropout rate belongs (the ValueError is nn.Dropout's, not a "
        f"refusal of yours). The orders are {orders}; pass them in that order, or by keyword."
    )


def _check_table_length(c: Checker, own: Mapping, built: str, case: _Case) -> None:
    """The positional table holds max_len positions: the contract builds
    PositionalEncoding(d_model, max_len, dropout). Left out, max_len takes
    PositionalEncoding's default (5000): the logits are the same, but the saved table has
    another length and longer inputs than max_len are accepted (round 18,
    blind15a-tr-positional-max-len-not-passed). Any layout is accepted, (1, max_len,
    d_model), (max_len, d_model) or (max_len, 1, d_model); a table computed in forward
    (no buffer) is not looked at."""
    tables = {
        key: tuple(value.shape)
        for key, value in own.items()
        if key.startswith(_POSITIONS) and value.dim() >= 2 and value.shape[-1] == case.d_model
    }
    if not tables or any(case.max_len in shape[:-1] for shape in tables.values()):
        return
    key, shape = next(iter(tables.items()))
    rows = max(shape[:-1])
    cause = (
        "5000 is PositionalEncoding's default max_len: max_len was not passed on"
        if rows == 5000
        else "max_len was not passed on as it was given"
    )
    c.fail(
        f"{built}: the positional table {key} has shape {shape}, {rows} positions, but the "
        f"model was given max_len={case.max_len}: {cause}. Build "
        "self.positional_encoding = PositionalEncoding(d_model, max_len, dropout) with the "
        "model's max_len (by position in that order, or by keyword), so that the saved "
        "table has max_len rows and a sentence longer than max_len is refused."
    )


def _plain_tensor_tied(error: TypeError) -> str:
    """nn.Module refused a plain tensor as a weight (tie_embeddings=True): a tensor made
    from the shared Parameter instead of the Parameter itself. The value torch's
    __setattr__ was given (read from the error's own traceback, when it has one) tells a
    transpose (a view of a Parameter, its shape reversed) from the other candidates
    (round 18, blind15a-tr-tied-output-weight-transposed)."""
    value, trace = None, error.__traceback__
    while trace is not None:
        frame = trace.tb_frame
        if frame.f_code.co_name == "__setattr__" and isinstance(
            frame.f_locals.get("value"), torch.Tensor
        ):
            value = frame.f_locals["value"]
        trace = trace.tb_next
    base = getattr(value, "_base", None)
    tie = (
        "Tie by assigning the Parameter itself, self.output.weight = "
        "self.tgt_embedding.embedding.weight (whatever the attribute is called in your "
        "embedding), so that both modules hold one Parameter."
    )
    if (
        isinstance(base, nn.Parameter)
        and value.dim() == 2
        and tuple(value.shape) == tuple(base.shape)[::-1]
    ):
        return (
            f"\nWith tie_embeddings=True the output layer was given the TRANSPOSE of the "
            f"shared {tuple(base.shape)} Parameter, a plain tensor of shape "
            f"{tuple(value.shape)}, which nn.Module refuses as a weight. No transpose is "
            "needed: nn.Linear(d_model, vocab_size) stores its weight as (out_features, "
            "in_features) = (vocab_size, d_model), the embedding's own shape, and computes "
            f"x @ weight.T itself. {tie}"
        )
    return (
        "\nWith tie_embeddings=True the output layer was given a plain tensor where a "
        "Parameter belongs: a tensor computed from the shared one (a transpose .T or .t(), "
        ".clone(), .detach(), a product) is a new tensor, not the Parameter, and nn.Module "
        "refuses it as a weight. nn.Linear(d_model, vocab_size) already stores its weight "
        f"as (vocab_size, d_model), the embedding's own shape. {tie}"
    )


def _build(c: Checker, cls, case: _Case) -> tuple[nn.Module, str]:
    """Construct, check the state-dict keys and shapes, check the tying, load the case's
    weights (leaving the learner's positional-encoding buffers as they are), set the mode."""
    try:
        module, built = build_module(
            c,
            cls,
            case.src_vocab,
            case.tgt_vocab,
            name="Transformer",
            mode=case.mode,
            **case.kwargs,
        )
    except CheckFailure as failure:
        if isinstance(failure.__cause__, TypeError) and "as parameter 'weight'" in str(
            failure.__cause__
        ):
            raise failure.with_cause(_plain_tensor_tied(failure.__cause__)) from failure.__cause__
        if isinstance(failure.__cause__, ValueError):
            raise failure.with_cause(
                _refused_valid(cls, case, failure.__cause__)
            ) from failure.__cause__
        raise
    expected = _parameter_shapes(case)
    own = c.call(module.state_dict, call_repr=f"{built}.state_dict()")
    found = {key: tuple(value.shape) for key, value in own.items()}
    keys = {key for key in found if not key.startswith(_POSITIONS)}
    if keys != set(expected):
        missing = sorted(set(expected) - keys)
        extra = sorted(keys - set(expected))
        c.fail(
            f"{built} should have the state-dict keys of the contract (besides the positional "
            f"encoding's table); missing: {_key_list(missing) if missing else 'none'}, "
            f"unexpected: {_key_list(extra) if extra else 'none'}. "
            "The checks (and lesson 10) load weights by these names, so the submodules must be "
            "called src_embedding, tgt_embedding, positional_encoding, encoder, decoder and "
            f"output. {_keys_hint(found, expected, case)}".strip()
        )
    for key, shape in expected.items():
        if found[key] != shape:
            c.fail(
                f"{built}: {key} has shape {found[key]}, expected {shape}. "
                f"{transposed_weight_hint(module, key, found[key], shape)} "
                f"{_keys_hint(found, expected, case)}".strip()
            )
    c.ok()
    _check_table_length(c, own, built, case)
    buffers = {
        key: value.detach().clone() for key, value in own.items() if key.startswith(_POSITIONS)
    }
    _check_sharing(c, module, built, case, buffers)
    c.call(
        module.load_state_dict,
        {**_case_state(case), **buffers},
        call_repr=f"{built}.load_state_dict(...)",
    )
    return module, built


def _check_sharing(c: Checker, module, built: str, case: _Case, buffers: dict) -> None:
    """Load three different matrices into the two tables and the output weight and read
    them back: a tied model keeps one (all three equal), an untied one keeps three."""
    # as built: matrices that start with equal values but are not shared were copied
    initial = c.call(module.state_dict, call_repr=f"{built}.state_dict()")
    initial = {key: initial[key].detach().clone() for key in (_SRC_TABLE, _TGT_TABLE, _OUT_WEIGHT)}
    copied = (
        "they start with the same values, so they were copied (clone(), copy_(), "
        "nn.Parameter(weight.clone()), load_state_dict) rather than shared: copies drift "
        "apart at the first optimizer step."
    )
    distinct = _case_state(case, distinct=True)
    c.call(
        module.load_state_dict, {**distinct, **buffers}, call_repr=f"{built}.load_state_dict(...)"
    )
    back = c.call(module.state_dict, call_repr=f"{built}.state_dict()")
    same = {
        (a, b): torch.equal(back[a], back[b])
        for a, b in ((_SRC_TABLE, _TGT_TABLE), (_TGT_TABLE, _OUT_WEIGHT), (_SRC_TABLE, _OUT_WEIGHT))
        if back[a].shape == back[b].shape
    }
    started_equal = {
        pair: initial[pair[0]].shape == initial[pair[1]].shape
        and torch.equal(initial[pair[0]], initial[pair[1]])
        for pair in same
    }
    if case.tie:
        if not any(same.values()):
            how = (
                copied
                if all(started_equal.values())
                else "tie_embeddings is ignored (they do not even start equal)."
            )
            c.fail(
                f"{built}: tie_embeddings=True, but src_embedding, tgt_embedding and output "
                "keep three separate matrices (loading three different ones, each kept its "
                f"own): {how} Make the three share ONE nn.Parameter: "
                "assign self.src_embedding.embedding.weight to "
                "self.tgt_embedding.embedding.weight and to self.output.weight (section 4)."
            )
        if not all(same.values()):
            # equality is transitive: with one pair shared, the third matrix is the one apart
            shared = {name for pair, s in same.items() if s for name in pair}
            apart = sorted(
                {name.split(".")[0] for pair in same for name in pair}
                - {name.split(".")[0] for name in shared}
            )
            apart_copied = all(started_equal.values())
            c.fail(
                f"{built}: tie_embeddings=True, but only some of the three matrices are shared "
                f"({', '.join(apart)} is not shared: it keeps its own matrix)."
                f"{' T' + copied[1:] if apart_copied else ''} The paper "
                "(section 3.4) shares one matrix between both embeddings AND the output layer: "
                "assign self.src_embedding.embedding.weight to "
                "self.tgt_embedding.embedding.weight and to self.output.weight."
            )
        _expect_one_parameter(c, module, built)
    else:
        if same.get((_SRC_TABLE, _TGT_TABLE)):
            c.fail(
                f"{built}: tie_embeddings=False, but src_embedding and tgt_embedding share one "
                "table (a value loaded into one appeared in the other). Without tying, each "
                "side has its own TokenEmbedding: create two."
            )
        if same.get((_TGT_TABLE, _OUT_WEIGHT)) or same.get((_SRC_TABLE, _OUT_WEIGHT)):
            c.fail(
                f"{built}: tie_embeddings=False, but the output layer shares its weight with an "
                "embedding table. Share only when tie_embeddings is True."
            )
    for key, tensor in distinct.items():
        if key in (_SRC_TABLE, _TGT_TABLE, _OUT_WEIGHT):
            continue
        if not torch.equal(back[key].detach().to(tensor.dtype), tensor):
            c.fail(
                f"after {built}.load_state_dict(...), {key} does not hold the weights loaded "
                "into it: a later key overwrote it. Are two of its submodules one and the same "
                "object? Each needs its own instance."
            )
    c.ok()


def _expect_one_parameter(c: Checker, module, built: str) -> None:
    """Tied matrices that hold the same values must be ONE nn.Parameter: three Parameter
    objects over one storage (tied through ``.data``) are listed three times by
    parameters(), each with its own gradient."""
    params = dict(module.named_parameters(remove_duplicate=False))
    if not all(key in params for key in (_SRC_TABLE, _TGT_TABLE, _OUT_WEIGHT)):
        return
    tied = [params[key] for key in (_SRC_TABLE, _TGT_TABLE, _OUT_WEIGHT)]
    objects = len({id(p) for p in tied})
    if objects == 1:
        return
    storage = len({p.data_ptr() for p in tied})
    how = (
        "they are different Parameter objects over one storage, as assigning `.data` "
        "(weight.data = other.weight.data) or wrapping the matrix in a new Parameter "
        "(nn.Parameter(other.weight)) makes them"
        if storage == 1
        else "they are different Parameter objects"
    )
    c.fail(
        f"{built}: tie_embeddings=True, and the three matrices always hold the same values, "
        f"but {how}: model.parameters() then lists the matrix {objects} times, each copy gets "
        "its own gradient, and an optimizer applies each of them to the same numbers. Tying "
        "shares the nn.Parameter itself: self.tgt_embedding.embedding.weight = "
        "self.src_embedding.embedding.weight, and self.output.weight = "
        "self.src_embedding.embedding.weight (no .data, no new nn.Parameter)."
    )


def _expect_vocab_check(c: Checker, cls, case: _Case) -> None:
    """tie_embeddings=True with two vocabulary sizes must be refused (any exception)."""
    src_vocab, tgt_vocab = case.src_vocab, case.src_vocab + 3
    built = f"Transformer({src_vocab}, {tgt_vocab}, ..., tie_embeddings=True)"
    try:
        c.call(
            cls, src_vocab, tgt_vocab, **{**case.kwargs, "tie_embeddings": True}, call_repr=built
        )
    except CheckFailure as failure:  # the learner's code raised: the model was refused, good
        if "not implemented yet" in str(failure):
            raise
        c.ok()
        return
    c.fail(
        f"{built} was built without complaint. Tying shares one (vocab_size, d_model) matrix "
        "between both embeddings and the output layer, so it needs one shared vocabulary: "
        "raise a ValueError when src_vocab_size != tgt_vocab_size."
    )
