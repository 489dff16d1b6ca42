"""Module exercises: build the learner's ``nn.Module`` from a state dict, the same way
for every lesson.

A module check touches the learner's class only through :meth:`Checker.call`:
construct it with arguments, read and load its ``state_dict``, switch it to
``train()`` or ``eval()``, and call it. That is the whole channel, and it is all
the sandboxed grader needs to provide.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import re
from collections.abc import Callable, Mapping
from typing import Any

import torch
from torch import nn

from transformer_course.checking.checker import Checker
from transformer_course.checking.fused_keys import fused_layers_note
from transformer_course.checking.randomness import torch_generator

__all__ = ["build_module", "random_state", "state_shapes"]


def random_state(
    shapes: Mapping[str, tuple[int, ...]], seed: int, dtype: torch.dtype = torch.float32
) -> dict[str, torch.Tensor]:
    """Deterministic weights for a state dict, from a private generator.

    Matrices get N(0, 1/fan_in) entries; vectors named ``*.bias`` N(0, 0.1²); other
    vectors (LayerNorm gains) 1 + N(0, 0.1²), so that a forgotten gain or bias shows.
    """
    generator = torch_generator(seed)
    state = {}
    for name, shape in shapes.items():
        values = torch.randn(shape, generator=generator, dtype=torch.float64)
        if len(shape) >= 2:
            values = values * shape[-1] ** -0.5
        elif name.endswith("bias"):
            values = values * 0.1
        else:
            values = 1.0 + values * 0.1
        state[name] = values.to(dtype)
    return state


def state_shapes(module: nn.Module) -> dict[str, tuple[int, ...]]:
    """name -> shape of every entry of a (reference) module's state dict."""
    return {name: tuple(tensor.shape) for name, tensor in module.state_dict().items()}


def _key_list(keys: list[str], limit: int = 10) -> str:
    """A list of state-dict keys for a message: in full when short, else its start and a
    count (a stack of layers has hundreds)."""
    if len(keys) <= limit:
        return str(keys)
    return f"[{', '.join(map(repr, keys[:4]))}, ... ({len(keys)} keys in all)]"


def _signature(name: str, args: tuple, kwargs: Mapping[str, Any]) -> str:
    parts = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]
    return f"{name}({', '.join(parts)})"


def _unregistered(found: Mapping[str, Any], missing: list[str], extra: list[str]) -> str:
    """The message for modules held where PyTorch cannot see them (a plain list or dict):
    every missing key lies under numbered entries of an attribute of which the state dict
    has nothing, and nothing unexpected is there instead. "" otherwise."""
    if not missing or extra:
        return ""
    containers = {key.split(".")[0] for key in missing}
    for name in containers:
        under = [key for key in missing if key.split(".")[0] == name]
        numbered = all(len(key.split(".")) > 2 and key.split(".")[1].isdigit() for key in under)
        if not numbered or any(key.split(".")[0] == name for key in found):
            return ""
    names = ", ".join(f"`{name}`" for name in sorted(containers))
    return (
        f"its state dict has no parameters at all under {names} (missing: "
        f"{_key_list(missing)}), so the modules kept there are not registered: a plain Python "
        "list does not register its modules with PyTorch (nor does a dict), and their weights "
        "are never registered (invisible to state_dict, .parameters(), .to() and the "
        f"optimizer, which would never train them). Hold them in an nn.ModuleList: "
        f"self.{sorted(containers)[0]} = nn.ModuleList([...])."
    )


def _plain_tensors(module: nn.Module, missing: list[str]) -> str:
    """The message for missing keys whose attribute exists but holds a plain tensor (not an
    nn.Parameter nor a registered buffer), which PyTorch does not register; "" otherwise."""
    plain = []
    for key in missing:
        owner: Any = module
        *path, last = key.split(".")
        for part in path:
            owner = getattr(owner, part, None)
        value = getattr(owner, last, None) if isinstance(owner, nn.Module) else None
        if isinstance(value, torch.Tensor) and not isinstance(value, nn.Parameter):
            plain.append(key)
    if not plain:
        return ""
    return (
        f"{_key_list(plain)} {'is an attribute' if len(plain) == 1 else 'are attributes'} "
        "holding a plain tensor, not an nn.Parameter: PyTorch registers only nn.Parameter "
        "(and nn.Module) attributes, so it is missing from the state dict and invisible to "
        ".parameters(), .to() and the optimizer, which would never train it. Wrap it: "
        f"self.{plain[0].split('.')[-1]} = nn.Parameter(<the tensor>)."
    )


def _plain_containers(module: nn.Module, missing: list[str], extra: list[str]) -> str:
    """The message for missing keys (none unexpected) when the module keeps layers in a
    plain Python dict, list or tuple attribute, which PyTorch does not register (b16b: three
    projections in a dict were told "the submodules must be called exactly so"); "" when
    no such attribute holds a module."""
    if not missing or extra:
        return ""
    held = []
    for name, value in vars(module).items():
        if name.startswith("_"):
            continue
        items = value.values() if isinstance(value, dict) else value
        if isinstance(value, dict | list | tuple) and any(
            isinstance(item, nn.Module) for item in items
        ):
            held.append((name, type(value).__name__))
    if not held:
        return ""
    name, kind = held[0]
    container = "nn.ModuleDict" if kind == "dict" else "nn.ModuleList"
    return (
        f"its state dict lacks {_key_list(missing)}, and it keeps modules in `self.{name}`, a "
        f"plain Python {kind}, whose modules are not registered: nn.Module registers a submodule assigned to an attribute "
        f"directly (self.w = nn.Linear(...)) or held in nn.ModuleList / nn.ModuleDict, and "
        f"the modules of a plain {kind} are invisible to state_dict, .parameters(), .to() and "
        f"the optimizer, which would never train them. Assign each to its own attribute, "
        f"named as the keys say, or hold them in an {container}."
    )


def _shared_modules(key: str, value: torch.Tensor, state: Mapping[str, torch.Tensor]) -> str:
    """When ``key`` holds what was loaded into another key with the same ending, the two
    submodules are one object: say which two, or "" when no such key is found."""
    for other, tensor in state.items():
        if other == key or tensor.shape != value.shape:
            continue
        if not torch.equal(value.detach().cpu().to(tensor.dtype), tensor):
            continue
        a, b = key.split("."), other.split(".")
        common = 0
        while common < min(len(a), len(b)) and a[-1 - common] == b[-1 - common]:
            common += 1
        if common == 0:
            continue
        first, second = ".".join(a[: len(a) - common]), ".".join(b[: len(b) - common])
        if first.split(".")[-1].isdigit():
            how = (
                "one layer object appended N times to a list, or [Block(...)] * n. Each needs "
                "its own instance, with its own weights: [Block(...) for _ in range(n)]"
            )
        else:
            how = (
                f"`self.{first} = self.{second} = ...`. Each needs its own instance, with its "
                "own weights: create a new one each time"
            )
        return (
            f"{key} holds the weights loaded into {other} (a later key overwrote it): "
            f"`{first}` and `{second}` are one and the same object, the same module with the "
            f"same weights, e.g. {how}."
        )
    return ""


def _bias_follows_argument(cls: Any, args: tuple, kwargs: dict, missing: list[str]) -> str:
    """When the missing ``*.bias`` keys appear once a zero float argument (dropout=0.0) is
    made 0.1, all else equal: that argument reaches nn.Linear's third parameter, bias
    (nn.Linear(d_in, d_out, dropout)), where 0.0 counts as False; "" otherwise. One member
    of "an argument in another parameter's slot", told apart by varying the argument."""
    try:
        names = list(inspect.signature(cls).parameters)
    except (TypeError, ValueError):
        names = []
    tries = [
        (names[i] if i < len(names) else f"argument {i + 1}", i, None)
        for i, a in enumerate(args)
        if type(a) is float and a == 0.0
    ] + [(k, None, k) for k, v in kwargs.items() if type(v) is float and v == 0.0]
    for label, index, key in tries:
        new_args = list(args)
        new_kwargs = dict(kwargs)
        if index is not None:
            new_args[index] = 0.1
        else:
            new_kwargs[key] = 0.1
        try:
            with contextlib.redirect_stdout(io.StringIO()), torch.no_grad():
                keys = set(cls(*new_args, **new_kwargs).state_dict())
        except Exception:
            continue
        if set(missing) <= keys:
            return (
                f"Built with {label}=0.1 instead, it has them: {label} reaches nn.Linear's "
                f"third parameter, bias (nn.Linear(in_features, out_features, {label}) passes "
                f"it positionally), and {label}=0.0 counts as bias=False. Build the layers as "
                f"nn.Linear(in_features, out_features) and give {label} to nn.Dropout."
            )
    return ""


#: where num_heads sits among the positional arguments of the contracts that take it
_NUM_HEADS_POSITION = {
    "MultiHeadAttention": 1,
    "EncoderLayer": 1,
    "DecoderLayer": 1,
    "Encoder": 2,
    "Decoder": 2,
}


def _argument_in_another_place(
    name: str, args: tuple, kwargs: dict
) -> Callable[[BaseException], str]:
    """For an error raised while building that shows a size by its name (``d_model=3``)
    whose value is not the one given under that name but exactly one other argument's
    (num_layers=3): that argument reached the named one's place, an order slip in a
    signature or a call (blind17g-enc-num-layers-d-model-swapped got the course's
    ValueError alone)."""

    def hint(exc: BaseException) -> str:
        given = _contract_arguments(name, args, kwargs)
        if not given:
            return ""
        for shown, value in re.findall(r"\b([a-z_]+)=(\d+)\b", str(exc)):
            if shown not in given or type(given[shown]) is not int or given[shown] == int(value):
                continue
            others = [
                argument
                for argument, size in given.items()
                if argument != shown and type(size) is int and size == int(value)
            ]
            if len(others) == 1:
                return (
                    f"The {shown}={value} in the error is not the {shown} given "
                    f"({shown}={given[shown]}) but {others[0]}'s value: {others[0]} reached "
                    f"the place of {shown} on the way (parameters of __init__ in another order "
                    f"than the contract's {', '.join(given)}, or a call that passes them so). "
                    "Keep the contract's order, or pass sizes by keyword."
                )
        return ""

    return hint


def _heads_hint(name: str, built: str, args: tuple) -> Callable[[BaseException], str]:
    """For "d_model=... is not divisible by num_heads=N" raised while building: N is one
    of the sizes given to the constructor in another place (an argument order slip)."""

    def hint(exc: BaseException) -> str:
        found = re.search(r"not divisible by num_heads=(\d+)", str(exc))
        if not found:
            return ""
        n = int(found.group(1))
        heads_at = _NUM_HEADS_POSITION.get(name)
        if heads_at is None or (len(args) > heads_at and args[heads_at] == n):
            return ""
        size = re.search(r"d_model=(\d+) is not divisible", str(exc))
        if (
            size
            and len(args) > heads_at
            and int(size.group(1)) == args[heads_at]
            and args[heads_at - 1] == n
            and n != args[heads_at]
        ):
            return (
                f"The attention was built with d_model={size.group(1)} and num_heads={n}: "
                f"{built} received d_model={n} and num_heads={size.group(1)}, so the two sizes "
                "reached the attention exchanged, MultiHeadAttention(num_heads, d_model, ...) "
                "for MultiHeadAttention(d_model, num_heads, ...). Pass them in the order of the "
                "signature, d_model first, or by keyword."
            )
        places = [str(i + 1) for i, a in enumerate(args) if type(a) is int and a == n]
        if not places:
            return ""
        return (
            f"The attention was built with num_heads={n}, and {n} is what {built} received "
            f"as its argument {' and '.join(places)}, which is not its num_heads: a size "
            "reached the wrong parameter on the way down (arguments passed in another order "
            "than the signature's"
            + (
                ", e.g. d_ff where num_heads belongs?"
                if len(args) > heads_at + 1 and args[heads_at + 1] == n
                else ""
            )
            + "). Pass them to each "
            "layer in the order of its signature, or by keyword."
        )

    return hint


#: the normalisation layers a learner may add to a module whose contract has none there
_NORM_TYPES = tuple(
    kind
    for kind in (
        nn.LayerNorm,
        getattr(nn, "RMSNorm", None),
        nn.BatchNorm1d,
        nn.GroupNorm,
        nn.InstanceNorm1d,
    )
    if kind is not None
)


def _extra_norm_layers(module: nn.Module, name: str, extra: list[str]) -> str:
    """For unexpected keys that all belong to normalisation submodules (an nn.LayerNorm
    added inside the module): say which layers they are and where a norm, and the
    residual sum that usually comes with it, belongs; "" otherwise (blind20a-mha-residual-
    and-layernorm-inside was told only its key names)."""
    owners: dict[str, nn.Module] = {}
    for key in extra:
        owner = key.rsplit(".", 1)[0] if "." in key else ""
        try:
            sub = module.get_submodule(owner) if owner else None
        except AttributeError:
            return ""
        if not isinstance(sub, _NORM_TYPES):
            return ""
        owners[owner] = sub
    if not owners:
        return ""
    shown = ", ".join(f"`{owner}` is {sub!r}" for owner, sub in owners.items())
    return (
        f"your module has a normalisation layer its contract does not have: {shown} (the "
        f"unexpected state-dict keys {_key_list(extra)}). {name} must not normalise its "
        "result: remove the norm. If your forward also adds its input back before the norm "
        f"(LayerNorm(x + ...), a residual connection), remove that too: {name} returns its own "
        "result alone, and the residual sum and the norm belong to the layer that uses it."
    )


def _layer_norms(module: nn.Module, extra: list[str]) -> str:
    """For unexpected ``*.bias`` keys that belong to nn.LayerNorm layers: say that those
    norms are LayerNorms (a bias, and the mean subtracted), not weight-only norms."""
    layers = [key[: -len(".bias")] for key in extra]
    try:
        kinds = [module.get_submodule(layer) for layer in layers]
    except AttributeError:
        return ""
    if not all(isinstance(kind, nn.LayerNorm) for kind in kinds):
        return ""
    return (
        f"{', '.join(layers)} {'is an' if len(layers) == 1 else 'are'} nn.LayerNorm "
        f"(the unexpected keys {_key_list(extra)} are {'its' if len(layers) == 1 else 'their'} "
        "biases), where the contract has a norm with a weight only: a LayerNorm also "
        "subtracts each token's mean. Build the norm the contract names (RMSNorm(d_model, "
        "eps): no bias, no mean subtracted)."
    )


def _weight_owner(module: nn.Module, key: str) -> tuple[str, nn.Module | None]:
    """The name of the submodule that holds the weight ``key`` (``"w_1"`` for
    ``"w_1.weight"``) and the submodule itself, or None when ``key`` is no submodule's
    weight."""
    if not key.endswith(".weight"):
        return "", None
    layer = key[: -len(".weight")]
    try:
        return layer, module.get_submodule(layer)
    except AttributeError:
        return layer, None


def transposed_weight_hint(
    module: nn.Module, key: str, found: tuple[int, ...], shape: tuple[int, ...]
) -> str:
    """For a 2-D weight whose shape ``found`` is the transpose of ``shape``: which sizes of
    the nn.Linear or nn.Embedding that holds it were swapped, and how to build it; "" for
    any other mismatch or module."""
    shape = tuple(shape)
    if len(shape) != 2 or tuple(found) != shape[::-1]:
        return ""
    layer, sub = _weight_owner(module, key)
    if isinstance(sub, nn.Linear):
        return (
            f"Its two sizes are swapped: nn.Linear(in_features, out_features) stores its "
            f"weight as (out_features, in_features), so {layer} must be "
            f"nn.Linear({shape[1]}, {shape[0]}); yours is nn.Linear({shape[0]}, {shape[1]})."
        )
    if isinstance(sub, nn.Embedding):  # b12b: nn.Embedding(d_model, vocab_size)
        return (
            f"Its two arguments are swapped: nn.Embedding(num_embeddings, embedding_dim) "
            f"stores one row per token id, (num_embeddings, embedding_dim), so {layer} must be "
            f"nn.Embedding({shape[0]}, {shape[1]}) (the vocabulary size first); yours is "
            f"nn.Embedding({shape[1]}, {shape[0]})."
        )
    return ""


def convolution_weight_hint(
    module: nn.Module, key: str, found: tuple[int, ...], shape: tuple[int, ...]
) -> str:
    """For a 2-D (out, in) weight held by a convolution (its weight (out, in, *kernel)):
    that the layer is a convolution over the positions, with its kernel size, and what a
    kernel wider than 1 does to a position-wise layer; "" for any other module."""
    if len(tuple(shape)) != 2:
        return ""
    layer, sub = _weight_owner(module, key)
    if not isinstance(sub, nn.modules.conv._ConvNd):
        return ""
    kernel = tuple(sub.kernel_size)
    built = f"nn.{type(sub).__name__}({sub.in_channels}, {sub.out_channels}, kernel_size={kernel})"
    mixes = (
        f"with a kernel of {'x'.join(map(str, kernel))}, each output vector mixes a position "
        "with its neighbouring positions, so the layer is no longer applied to each position "
        "separately"
        if any(size > 1 for size in kernel)
        else "even a kernel of 1, which computes the same map, stores its weight with an "
        "extra kernel axis, so the weights are not loaded by these names and shapes"
    )
    return (
        f"{layer} is a convolution, {built}, not an nn.Linear: its weight has the extra "
        f"kernel axis (out_channels, in_channels, *kernel_size) = {tuple(found)}, and "
        f"{mixes}. Build it as nn.Linear({shape[1]}, {shape[0]}), applied to the last axis "
        "of x (no transposes needed)."
    )


def _swapped_sizes(
    module: nn.Module,
    found: Mapping[str, tuple[int, ...]],
    expected: Mapping[str, tuple[int, ...]],
) -> str:
    """For a composite submodule (not itself an nn.Linear) all of whose 2-D weights (two
    or more) are the transposes of the expected: it was built with its two sizes in the
    other order, or each of its layers was; "" when there is none."""
    groups: dict[str, list[str]] = {}  # composite -> its 2-D weights' keys
    for key, shape in expected.items():
        parts = key.split(".")
        if len(parts) >= 3 and len(shape) == 2:
            groups.setdefault(".".join(parts[:-2]), []).append(key)
    for composite, keys in groups.items():
        if len(keys) < 2 or not all(found.get(key) == expected[key][::-1] for key in keys):
            continue
        if any(found.get(key) == expected[key] for key in keys):
            continue  # square weights: nothing to tell
        try:
            sub = module.get_submodule(composite)
        except AttributeError:
            continue
        if isinstance(sub, nn.Linear):
            continue
        kind = type(sub).__name__
        shapes = ", ".join(f"{key} {found[key]} (expected {tuple(expected[key])})" for key in keys)
        return (
            f"every weight of {composite} has its two sizes swapped: {shapes}. The likely "
            f"cause: {composite} was built with its two sizes in the other order, {kind}(b, a) "
            f"for {kind}(a, b) (pass them in the order of its signature, or by keyword); or "
            f"each layer inside {kind} was."
        )
    return ""


def _contract_arguments(name: str, args: tuple, kwargs: dict) -> dict[str, Any]:
    """The constructor's arguments by the contract's names (the reference class's
    signature: the check passes them in the contract's order); {} when unknown."""
    from transformer_course.checking.deviations import reference_function

    reference = reference_function(name)
    if not isinstance(reference, type):
        return {}
    try:
        bound = inspect.signature(reference).bind_partial(*args, **kwargs)
    except (TypeError, ValueError):
        return {}
    return dict(bound.arguments)


def _size_from_argument(
    name: str, args: tuple, kwargs: dict, got: tuple[int, ...], expected: tuple[int, ...]
) -> str:
    """For a parameter of the wrong shape: the constructor argument its wrong size is,
    where another argument's size belongs (LayerNorm(d_ff) for LayerNorm(d_model):
    blind17g-dec-final-norm-width-d-ff was told the shapes alone); "" when no axis's sizes
    are two arguments' values, or when a value is several arguments' (then the inputs
    cannot tell which)."""
    if len(got) != len(expected):
        return ""
    by_value: dict[int, list[str]] = {}
    for argument, value in _contract_arguments(name, args, kwargs).items():
        if type(value) is int:
            by_value.setdefault(value, []).append(argument)
    for wrong, right in zip(got, expected, strict=True):
        if wrong == right:
            continue
        given, belongs = by_value.get(wrong, []), by_value.get(right, [])
        if len(given) == 1 and len(belongs) == 1:
            rounded = _size_rounded_up(by_value, got, expected)
            return (
                f"Its size {wrong} is {given[0]}, where {belongs[0]} ({right}) belongs: that "
                f"layer was built with {given[0]} in the place of {belongs[0]}."
                + (f" Or, as the sizes fit both: {rounded}" if rounded else "")
            )
    return _size_per_part(by_value, got, expected) or _size_rounded_up(by_value, got, expected)


def _size_rounded_up(
    by_value: dict[int, list[str]], got: tuple[int, ...], expected: tuple[int, ...]
) -> str:
    """For a parameter whose one wrong size is the right one rounded up to a multiple of a
    power of two (a vocabulary padded for speed, nanoGPT's 50304 for 50257:
    blind27c-gpt-vocab-padded-to-64 was told the shapes alone), every multiple that gives it
    named; "" when the size is not that, or is also a whole multiple of the right one (then
    the values cannot tell a rounding from a doubling)."""
    wrong_axes = [
        (axis, w, r) for axis, (w, r) in enumerate(zip(got, expected, strict=True)) if w != r
    ]
    if len(wrong_axes) != 1:
        return ""
    axis, wrong, right = wrong_axes[0]
    if not 0 < right < wrong or wrong % right == 0:
        return ""
    multiples = [m for m in (8, 16, 32, 64, 128, 256) if -(-right // m) * m == wrong]
    if not multiples:
        return ""
    given = by_value.get(right, [])
    size = f"{given[0]} = {right}" if len(given) == 1 else f"{right}"
    return (
        f"Its axis {axis} has {wrong} entries: {size} rounded up to a multiple of "
        f"{' or '.join(str(m) for m in multiples)}, so it has {wrong - right} extra entries (a "
        "size padded for speed, as nanoGPT pads its vocabulary to 50304). Anything read off "
        f"this axis (the logits of a tied output, say) then has {wrong} entries instead of "
        f"{right}. Use the size as given: {right}."
    )


def _size_per_part(
    by_value: dict[int, list[str]], got: tuple[int, ...], expected: tuple[int, ...]
) -> str:
    """For a parameter whose wrong sizes are all one quotient of two constructor
    arguments (d_model // num_heads: one head's width) where one argument belongs (b23c:
    projections built nn.Linear(d_head, d_head) and applied after the heads are split
    were told the shapes alone); "" when no single quotient, or several, fit."""
    names = {value: found[0] for value, found in by_value.items() if len(found) == 1}
    quotients: dict[int, list[str]] = {}
    for whole, whole_name in names.items():
        for part, part_name in names.items():
            if part > 1 and whole > part and whole % part == 0:
                label = (
                    "d_head = d_model // num_heads, one head's width"
                    if (whole_name, part_name) == ("d_model", "num_heads")
                    else f"{whole_name} // {part_name}, one part's width"
                )
                quotients.setdefault(whole // part, []).append(label)
    wrong_axes = [(w, r) for w, r in zip(got, expected, strict=True) if w != r]
    wrong_sizes = {w for w, _ in wrong_axes}
    right_sizes = {r for _, r in wrong_axes}
    if len(wrong_sizes) != 1 or len(right_sizes) != 1:
        return ""
    (wrong,), (right,) = wrong_sizes, right_sizes
    if len(quotients.get(wrong, [])) != 1 or right not in names or wrong in names:
        return ""
    quotient, belongs = quotients[wrong][0], names[right]
    short = quotient.split(" = ")[0].split(",")[0]
    part = "head" if quotient.startswith("d_head") else "part"
    told = (
        f"Its size {wrong} is {quotient}, where {belongs} ({right}) belongs: that layer "
        f"was built for the features of one {part}, not for all {belongs} of them."
    )
    if len(got) == 2 and all(w == wrong for w in got):
        told += (
            f" A layer nn.Linear({short}, {short}) can only be applied to the {part}s "
            f"one by one (after a split), so one weight is shared by every {part} and "
            f"each {part} sees only its own {wrong} features; build it "
            f"nn.Linear({belongs}, {belongs}) and apply it to all {belongs} features "
            "(before the split, or after the merge)."
        )
    return told


def build_module(
    c: Checker,
    cls: Any,
    *args: Any,
    name: str,
    expected_shapes: Mapping[str, tuple[int, ...]] | None = None,
    keys_hint: Callable[[dict[str, tuple[int, ...]]], str] | None = None,
    state: Mapping[str, torch.Tensor] | None = None,
    mode: str = "eval",
    allow_extra_keys: bool = False,
    forward_args: tuple | None = None,
    **kwargs: Any,
) -> tuple[nn.Module, str]:
    """Construct ``cls(*args, **kwargs)``, check its state-dict keys and shapes, load
    ``state``, read it back, and switch to ``mode`` ("eval" or "train").

    ``allow_extra_keys``: keys beyond ``expected_shapes`` (extra buffers, a table under
    another name) are fine; ``state`` is then loaded with ``strict=False``.
    Returns the module and its constructor call as text (for messages).
    ``keys_hint(found)`` explains a wrong set of keys (e.g. a fused q/k/v matrix).
    ``forward_args``: inputs a forward call may be probed with when keys are missing, to
    see layers that forward runs without registering them.
    Reading the state back catches one submodule object used in several places (a
    layer reused N times, ``w_q = w_k = w_v``): the later key overwrites the earlier.
    """
    built = _signature(name, args, kwargs)
    module = c.call(
        cls,
        *args,
        call_repr=built,
        hints=[
            (ValueError, _heads_hint(name, built, args)),
            (Exception, _argument_in_another_place(name, args, kwargs)),
        ],
        **kwargs,
    )
    c.expect_type(
        module,
        nn.Module,
        built,
        f"Make {name} a subclass of nn.Module, and call super().__init__() first in __init__.",
    )
    if expected_shapes is not None:
        found = {
            key: tuple(tensor.shape)
            for key, tensor in c.call(module.state_dict, call_repr=f"{built}.state_dict()").items()
        }
        mismatch = (
            not set(expected_shapes) <= set(found)
            if allow_extra_keys
            else set(found) != set(expected_shapes)
        )
        if mismatch:
            missing = sorted(set(expected_shapes) - set(found))
            extra = sorted(set(found) - set(expected_shapes))
            unregistered = (
                _unregistered(found, missing, extra)
                or _plain_tensors(module, missing)
                or _plain_containers(module, missing, extra)
            )
            if unregistered:
                c.fail(f"{built}: {unregistered}")
            if missing and forward_args is not None:
                from transformer_course.checking.unregistered import unregistered_layers

                if layers := unregistered_layers(
                    module, lambda: module(*(a.clone() for a in forward_args))
                ):
                    c.fail(f"{built} lacks the state-dict keys {_key_list(missing)}. {layers}")
            hint = keys_hint(found) if keys_hint else ""
            if not missing and all(
                key.endswith(".bias") and key[: -len("bias")] + "weight" in expected_shapes
                for key in extra
            ):
                norms = _layer_norms(module, extra)
                if norms:
                    c.fail(f"{built}: {norms} {hint}".strip())
                c.fail(
                    f"{built} has biases its contract leaves out: unexpected state-dict keys "
                    f"{_key_list(extra)}. Build those layers without one, nn.Linear(..., "
                    f"bias=False). {hint}".strip()
                )
            if (
                not extra
                and not hint
                and all(
                    key.endswith(".bias") and key[: -len("bias")] + "weight" in found
                    for key in missing
                )
            ):  # blind10d-ffn-linears-without-bias: told to name its submodules "exactly so"
                layers = ", ".join(key[: -len(".bias")] for key in missing)
                if slot := _bias_follows_argument(cls, args, kwargs, missing):
                    c.fail(
                        f"{built} lacks the biases of {layers}: missing state-dict keys "
                        f"{_key_list(missing)}. {slot}"
                    )
                c.fail(
                    f"{built} lacks the biases of {layers}: missing state-dict keys "
                    f"{_key_list(missing)}. Those layers were built without one (nn.Linear(..., "
                    f"bias=False), as in T5 or LLaMA); the contract's layers have biases: "
                    "nn.Linear(in_features, out_features), bias=True by default."
                )
            if not missing and (norms := _extra_norm_layers(module, name, extra)):
                c.fail(f"{built}: {norms} {hint}".strip())
            if not missing and not hint:
                from transformer_course.checking.extra_parameters import extra_tensors_note

                as_built = c.call(
                    module.state_dict, keep_vars=True, call_repr=f"{built}.state_dict()"
                )
                if added := extra_tensors_note(built, name, extra, as_built):
                    c.fail(added)
            if not hint and (fused := fused_layers_note(found, expected_shapes)):
                c.fail(f"{built}: {fused}")
            c.fail(
                f"{built} should have the state-dict keys {_key_list(sorted(expected_shapes))}; "
                f"missing: {_key_list(missing) if missing else 'none'}, unexpected: "
                f"{_key_list(extra) if extra else 'none'}. The checks (and "
                "the later lessons) load weights by these names, so the submodules must be "
                f"called exactly so. {hint}".strip()
            )
        swapped = _swapped_sizes(module, found, expected_shapes)
        if swapped:
            c.fail(f"{built}: {swapped}")
        for key, shape in expected_shapes.items():
            if found[key] != tuple(shape):
                hint = keys_hint(found) if keys_hint else ""
                hint = " ".join(
                    part
                    for part in (
                        convolution_weight_hint(module, key, found[key], shape),
                        transposed_weight_hint(module, key, found[key], shape),
                        _size_from_argument(name, args, kwargs, found[key], tuple(shape)),
                        hint,
                    )
                    if part
                )
                c.fail(
                    f"{built}: {key} has shape {found[key]}, expected {tuple(shape)}. {hint}".strip()
                )
        c.ok()
    if state is not None:
        c.call(
            module.load_state_dict,
            dict(state),
            strict=not allow_extra_keys,
            call_repr=f"{built}.load_state_dict(...)",
        )
        loaded = c.call(module.state_dict, call_repr=f"{built}.state_dict()")
        for key, tensor in state.items():
            if not torch.equal(loaded[key].detach().cpu().to(tensor.dtype), tensor):
                shared = _shared_modules(key, loaded[key], state)
                if shared:
                    c.fail(f"after {built}.load_state_dict(...), {shared}")
                c.fail(
                    f"after {built}.load_state_dict(...), {key} does not hold the weights loaded "
                    "into it: a later key overwrote it. Are two of its submodules one and the "
                    "same object (e.g. one layer object appended N times to a list, or "
                    "`self.w_q = self.w_k = nn.Linear(...)`)? Each needs its own instance, "
                    "with its own weights: create a new one each time."
                )
        c.ok()
    if mode not in {"eval", "train"}:
        raise ValueError(f"mode must be 'eval' or 'train', not {mode!r}")
    c.call(getattr(module, mode), call_repr=f"{built}.{mode}()")
    return module, built


def expect_no_state_between_calls(
    c: Checker,
    build: Callable[[], nn.Module],
    first_args: tuple,
    args: tuple,
    what: str,
    first_what: str,
    *,
    rtol: float = 1e-5,
    atol: float = 1e-6,
) -> None:
    """A module called on ``first_args`` and then on ``args`` must give on ``args`` what a
    fresh one (``build()``: the same constructor, the same weights, never called) gives:
    otherwise it keeps something from one call to the next (keys and values stored on the
    first call and reused, blind8d-mha-keys-values-cached-first-call, which every check
    that builds one module per call accepted). The first tensor of a tuple result is
    compared; a call that raises is said elsewhere."""
    try:
        with contextlib.redirect_stdout(io.StringIO()), torch.no_grad():
            expected = build()(*args)
            used = build()
            used(*first_args)
    except Exception:  # a failure of its own, said by the checks that call it once
        return
    try:
        with contextlib.redirect_stdout(io.StringIO()), torch.no_grad():
            got = used(*args)
    except Exception as error:  # a fresh module runs on these very inputs
        outcome = f"raises {type(error).__name__} ({str(error).splitlines()[0][:200]})"
    else:
        expected, got = (r[0] if isinstance(r, tuple) else r for r in (expected, got))
        if not isinstance(got, torch.Tensor) or not isinstance(expected, torch.Tensor):
            return
        if got.shape == expected.shape and torch.allclose(
            got.double(), expected.double(), rtol=rtol, atol=atol, equal_nan=True
        ):
            return
        outcome = "gives another result"
    c.fail(
        f"{what} {outcome} when the same module was called once before, on "
        f"{first_what}, unlike a fresh one with the same weights on the same inputs: your "
        "module keeps something from one call to the next (keys or values, a mask or a "
        "length stored on self during the first call and reused). forward must compute "
        "everything from the arguments of each call; nothing it computes may be kept on self."
    )


def expect_follows_new_weights(c: Checker, module: nn.Module, args: tuple, what: str) -> None:
    """After its parameters change in place (what an optimizer step does to them), a module
    called again on the same inputs must give another result: the very output of before
    means it was kept from the earlier call (an output cached on self, keyed on the inputs:
    right on the first call of every module, so a check that calls each module once with
    each input never sees it). The weights are put back as they were; silent on anything
    odd (a module without parameters, a call that raises, a result that is no tensor)."""
    try:
        saved = {name: value.detach().clone() for name, value in module.state_dict().items()}
        trained = {name for name, parameter in module.named_parameters() if parameter.numel()}
        if not trained:
            return
        # (an update no weight survives unchanged), copied into the module's own tensors by
        # load_state_dict, as an optimizer's in-place step: what the sandboxed grader's
        # stand-in for the module can do too
        updated = {
            name: value * 1.5 + 0.25 if name in trained and value.is_floating_point() else value
            for name, value in saved.items()
        }
        with contextlib.redirect_stdout(io.StringIO()), torch.no_grad():
            before = module(*args)
            before = before[0] if isinstance(before, tuple) else before
            before = before.detach().clone()
            module.load_state_dict(updated)
            after = module(*args)
            after = after[0] if isinstance(after, tuple) else after
        kept = isinstance(after, torch.Tensor) and torch.equal(after.detach(), before)
    except Exception:
        return
    finally:
        with contextlib.suppress(Exception), torch.no_grad():
            module.load_state_dict(saved)
    if kept:
        c.fail(
            f"{what}: after the module's weights changed in place (as an optimizer step "
            "changes them), the same module on the same inputs returned exactly its earlier "
            "output: your module keeps its results from one call to the next (an output "
            "stored on self, keyed on the inputs, say), so training would never change what "
            "it gives. forward must compute from the current weights on every call; keep "
            "nothing computed on self."
        )


def expect_contract_defaults(
    c: Checker,
    cls: Any,
    args: tuple,
    defaults: Mapping[str, Any],
    inputs: tuple,
    name: str,
    *,
    seed: int = 0,
) -> None:
    """``cls(*args)``, every keyword left to its default, must compute what
    ``cls(*args, **defaults)`` computes (eval mode, the same random weights): the checks
    pass every keyword explicitly, so a default that is not the contract's (norm_first=True
    where the contract says False: mutant-EncoderLayer-8, mutant-DecoderLayer-9) was
    accepted, and later lessons that rely on the default would get another model. The
    default at fault is named when flipping that one keyword alone reproduces what the
    defaults give. Constructors that need more arguments, or raise, are left alone."""

    def run(**kwargs: Any) -> torch.Tensor:
        with contextlib.redirect_stdout(io.StringIO()), torch.no_grad():
            module = cls(*args, **kwargs)
            # the same random parameters; buffers (a positional table) stay the module's
            # own, and a default that changes a weight's shape (d_ff, mutant-Transformer-5)
            # keeps that weight's own initialisation, so the result differs, instead of
            # raising
            own = dict(module.named_parameters(remove_duplicate=False))
            fits = {k: v for k, v in state.items() if k in own and own[k].shape == v.shape}
            module.load_state_dict(fits, strict=False)
            module.eval()
            out = module(*inputs)
        out = out[0] if isinstance(out, tuple) else out
        if not isinstance(out, torch.Tensor):
            raise TypeError(type(out).__name__)
        return out.detach().double()

    def same(a: torch.Tensor, b: torch.Tensor) -> bool:
        return a.shape == b.shape and torch.allclose(a, b, rtol=1e-5, atol=1e-6)

    try:
        with contextlib.redirect_stdout(io.StringIO()):
            state = random_state(state_shapes(cls(*args, **defaults)), seed)
        explicit, implicit = run(**defaults), run()
    except Exception:  # said by the checks that build it with every keyword
        return
    if same(explicit, implicit):
        return
    culprits = []
    for key, value in defaults.items():
        if isinstance(value, bool):
            try:
                if same(run(**{**defaults, key: not value}), implicit):
                    culprits.append((key, not value, value))
            except Exception:
                continue
    given = ", ".join(map(repr, args))
    contract = ", ".join(f"{key}={value!r}" for key, value in defaults.items())
    # a default of any type: left out alone (every other keyword written out), it changes
    # the result (mutant-Transformer-8 and -9: pad_id and num_layers)
    left_out = []
    for key in defaults:
        try:
            if not same(run(**{k: v for k, v in defaults.items() if k != key}), explicit):
                left_out.append(key)
        except Exception:  # a build that raises says nothing about this default
            continue
    if len(culprits) == 1:
        blame = (
            f"Your default is {culprits[0][0]}={culprits[0][1]!r}: {name}({given}) computes "
            f"what {name}({given}, {culprits[0][0]}={culprits[0][1]!r}) computes; the "
            f"contract's default is {culprits[0][0]}={culprits[0][2]!r}."
        )
    elif left_out:
        blame = (
            "Left to your default alone (every other keyword written out), "
            + " and ".join(left_out)
            + " already change"
            + ("s" if len(left_out) == 1 else "")
            + " the result: your default for "
            + " and ".join(f"{key} is not {defaults[key]!r}" for key in left_out)
            + "."
        )
    else:
        blame = "One of its keyword defaults is not the contract's."
    c.fail(
        f"{name}({given}), built with its defaults, gives another result (eval mode, the same "
        f"weights) than {name}({given}, {contract}), the contract's defaults written out. "
        f"{blame} The later lessons build it without these keywords and rely on the defaults "
        f"of the signature: {contract}."
    )
