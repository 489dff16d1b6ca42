"""Advice added to a failure message when the learner's code raises a known error."""

from __future__ import annotations

import functools
import re
import traceback
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from transformer_course.checking.failing_line import missing_trailing_axis
from transformer_course.checking.failure import innermost_learner_traceback
from transformer_course.checking.raw_errors import RAW_ERROR_HINTS, matmul_advice

__all__ = [
    "GENERIC_HINTS",
    "Hint",
    "dropped_axis_hint",
    "matching_hints",
    "shape_mismatch_hint",
]


#: Hints added to the message when the learner's code raises an error whose text
#: contains the key. Every check gets these; an exercise can add its own.
GENERIC_HINTS: dict[str | type[BaseException], str | Callable[[BaseException], str]] = {
    # tril/triu (and other matrix operations) given a vector: one size of a shape left out
    # (round 12, blind12d-lookahead-ones-one-size: torch.tril(torch.ones(size)))
    "input tensor must have at least 2 dimensions": (
        "This operation works on matrices (the last two axes), and the tensor it got is 1-D "
        "(or 0-D): a shape given one size where two belong. torch.ones(n) is a vector of n "
        "numbers; torch.ones(n, n) is an n x n matrix. Give every size of the shape."
    ),
    # a parameter changed in place inside forward (weight.mul_, weight += ...)
    "a leaf Variable that requires grad is being used in an in-place operation": (
        "Your code changed a trainable parameter in place (an operation ending in _, such as "
        "weight.mul_(...), or weight += ...): autograd forbids it, since the parameter's "
        "gradient needs its value. Compute a new tensor from it instead (weight * s), and "
        "leave the parameter itself to the optimiser."
    ),
    # F.one_hot on int32 (or uint8) ids: the ids' dtype, not their values
    "one_hot is only applicable to index tensor of type LongTensor": (
        "torch's F.one_hot takes int64 ids only (a LongTensor), and these ids have another "
        "integer dtype (int32, say): their values are fine. Convert them first, "
        "F.one_hot(torch.as_tensor(ids).long(), num_classes)."
    ),
    # blind9d-decoder-sequential-several-inputs
    "Sequential.forward() takes 2 positional arguments": (
        "nn.Sequential passes one input from module to module, so it cannot hand its layers "
        "the other arguments (memory, masks). Keep the layers in an nn.ModuleList and loop: "
        "for layer in self.layers: x = layer(x, ...), with every argument the layer takes."
    ),
    '"bitwise_': (
        "&, | and ~ work on bool (or integer) tensors, and one operand here is a float "
        "tensor (torch.ones(...) and torch.tril/triu of it are float unless you pass "
        "dtype=torch.bool): build it as bool, or compare it (`== 1`, `.bool()`)."
    ),
    "view size is not compatible": lambda exc: (
        _expanded_view_advice(exc)
        + (
            "`.view` needs a tensor laid out row by row in memory (contiguous), and this one "
            "is not: a transpose (or another reordering of axes), or a slice that skips part of "
            "each row (labels = tgt[:, 1:], as a training batch gives), leaves a tensor whose "
            "strides do not allow `.view` to regroup or flatten its axes. Inputs may come as "
            "such slices: use `.reshape(...)` (or `.flatten()`; they copy only when they must) "
            "or `.contiguous().view(...)`."
        )
    ),
    "Can't call numpy() on Tensor that requires grad": (
        "Stay in torch (no .numpy()): later lessons train through this code, and gradients "
        "only flow through torch operations."
    ),
    "Boolean value of Tensor with more than one value is ambiguous": lambda exc: (
        _given_or_not_advice(exc)
        + "An `if` (or `and`/`or`) on a whole tensor is ambiguous: use element-wise operations "
        "instead, such as torch.where(...), masked_fill(...), & and |. Python's max(a, b) "
        "and min(a, b) compare their arguments the same way: on tensors use "
        "torch.maximum(a, b) and torch.minimum(a, b)."
    ),
    "can be converted to Python scalars": lambda exc: _math_module_advice(exc),
    "object has no attribute 'grad'": lambda exc: _named_parameters_advice(exc),
    # round 34: heads = scaled_dot_product_attention(...) without unpacking the pair
    "'tuple' object has no attribute": lambda exc: _pair_for_tensor_advice(exc),
    "as parameter '": (
        "A module's parameter can only be replaced by an nn.Parameter (or None), and this "
        "is a plain tensor (a transposed view such as .T, or a tensor computed from a "
        "parameter). To tie two layers' weights, assign the other layer's Parameter itself "
        "(self.output.weight = self.embedding.weight): both then hold the same (vocab_size, "
        "d_model) matrix, which nn.Linear already uses transposed."
    ),
    "setting an array element with a sequence": lambda exc: _ragged_array_advice(exc),
    "The truth value of an array with more than one element is ambiguous": (
        "An `if` (or `and`/`or`) on a whole array is ambiguous: use element-wise operations "
        "instead, such as np.where(...), & and |."
    ),
    "expected m1 and m2 to have the same dtype": (
        "A matrix product mixed two dtypes (float32 and float64, say). Keep the dtype of the "
        "inputs: avoid .double()/.float() and tensors created with a fixed dtype."
    ),
    "cannot be converted to Scalar": (
        "`.item()` (or float(), int(), or an `if`) needs a tensor with one value, and this one "
        "holds a whole batch (or a row). Keep working on the tensor, element-wise, without "
        "turning it into a Python number."
    ),
    # blind10f-sdpa-torch-sqrt-of-int: torch.sqrt(q.shape[-1]) on a Python int
    "must be Tensor, not int": (
        "A torch function (torch.sqrt, torch.exp, torch.log, ...) was given a Python number: "
        "they take tensors, and a size such as q.shape[-1] (d_k) is a plain int. Use "
        "math.sqrt(d_k) (or d_k ** 0.5) for a number, or make it a tensor first."
    ),
    "must be Tensor, not float": (
        "A torch function (torch.sqrt, torch.exp, torch.log, ...) was given a Python number: "
        "they take tensors. Use the math module (math.sqrt, math.exp) for a plain number, or "
        "make it a tensor first."
    ),
    "only one element tensors can be converted to Python scalars": lambda exc: (
        _tensor_of_tensors_advice(exc)
        or "`.item()`, float() or int() needs a tensor with one value, and this one holds "
        "several (a batch, a row). Keep the tensor, and work on it element-wise. The math "
        "module's functions (math.exp, math.sqrt, math.log) convert their argument the same "
        "way: on tensors use torch.exp, torch.sqrt, torch.log."
    ),
    # torch.tensor of a list of tensors: (batch,) step tensors (blind12a), integer token
    # windows (r12b) raise this one instead
    "only integer tensors of a single element can be converted to an index": lambda exc: (
        _tensor_of_tensors_advice(exc)
        # blind13b-ntb-slices-with-starts-tensor: tokens[starts : starts + block_size]
        or "A tensor of several values was used where Python needs one whole number: a "
        "slice bound (x[start:stop]), a list index or a range() argument. A slice takes one "
        "start at a time: loop over the values, or index with a tensor of all the positions "
        "at once (a table of windows is starts[:, None] + torch.arange(length))."
    ),
    # blind13c-center-torch-dim-keepdim: x.mean(dim=-1, keepdim=True) on a numpy array
    "got an unexpected keyword argument 'dim'": lambda exc: _numpy_keywords_advice(exc),
    "got an unexpected keyword argument 'keepdim'": lambda exc: _numpy_keywords_advice(exc),
    # blind13c-center-axis-ndim: axis=x.ndim, one past the last
    "is out of bounds for array of dimension": lambda exc: _numpy_axis_advice(exc),
    # blind13e-tiled-block-size-read-as-count: a step computed from the input came out 0
    "range() arg 3 must not be zero": (
        "range(start, stop, step) got a step of 0: a step computed from the input came out 0 "
        "here (an integer division such as n // k with n < k gives 0, for one). Check what "
        "the step stands for: a size in steps of itself, or a count of pieces?"
    ),
    # blind13g-enc-mask-made-additive: the bool mask turned into a float one, then ~mask
    "~ (operator.invert) is only implemented on integer and Boolean-type tensors": (
        "~ negates a bool mask, and this tensor is a float one: a mask turned into numbers "
        "(0 and -inf, the additive form of nn.Transformer; 0.0 and 1.0), or one built with "
        "torch.ones/torch.tril without dtype=torch.bool. The course's masks stay bool (True "
        "= may attend) from where they are built to the masked_fill that uses them."
    ),
    # blind13e-tiled-mask-by-boolean-index: scores[future] = -inf on batched scores
    "The shape of the mask": lambda exc: _boolean_index_advice(exc),
    "mat1 and mat2 shapes cannot be multiplied": lambda exc: (
        matmul_advice(exc) + _dot_t_advice(exc)
    ),
    # blind12i-swiglu-matmul-gate: a batched @ whose operands do not chain (the raw error
    # names bmm's internal "batch2" alone)
    "Expected size for first two dimensions of batch2 tensor": lambda exc: _bmm_advice(exc),
    # blind10g-mha-inline-scores-with-dot-T, in the PyTorch versions where .T on more than
    # two axes raises instead of warning
    "on tensors of dimension other than 2": lambda exc: _dot_t_advice(exc).strip(),
    "must match the size of tensor b": lambda exc: (
        "Two tensors of different sizes met in one operation: an element-wise one (+, *, "
        "masked_fill, ...) or the leading (batch) axes of a matrix product @, which broadcast "
        "the same way: along the axis the error names, one is neither the same size nor 1. "
        "Print both shapes on the line shown below."
        + _dot_t_advice(exc)
        + _spaced(missing_trailing_axis(exc))
    ),
    # blind19c-dec-layers-in-module-dict: for layer in self.layers (an nn.ModuleDict)
    "' object is not callable": lambda exc: _dict_keys_called_advice(exc),
    # blind19e-ln-functional-normalized-shape-all-but-batch: F.layer_norm(x, x.shape[1:], ...)
    "Expected weight to be of same shape as normalized_shape": lambda exc: _normalized_shape_advice(
        exc
    ),
    # blind10g-ffn-relu-class-not-instance: self.relu = nn.ReLU, then self.relu(h)
    "must be Tensor, not ": lambda exc: _module_class_advice(exc),
    # b11b: the module built from the tensor then multiplied, nn.SiLU(h) * value
    "unsupported operand type(s)": lambda exc: _module_class_advice(exc),
    "but got float": (
        "A size in a shape is a float: `/` gives a float in Python 3 even when it divides "
        "evenly (8 / 2 == 4.0), and shapes need ints. Compute sizes with // (or int(...)), "
        "and check that the formula is the one you meant."
    ),
    "slice indices must be integers": (
        "A slice bound is a float: `/` gives a float in Python 3 even when it divides evenly "
        "(8 / 2 == 4.0). Slice bounds and sizes need ints: compute them with // (or "
        "int(...))."
    ),
    "IndexError: list index out of range": (
        "An index ran past the end of a list: a loop bound or an index is one too far "
        "(range(len(x)) already stops at len(x) - 1; reading x[i + 1] needs i < len(x) - 1)."
    ),
    "IndexError: tuple index out of range": (
        "An index ran past the end of a tuple: a shape has as many entries as the tensor has "
        "axes (x.shape[-1] is always the last), and a (key, value) pair from .items() has "
        "only [0] and [1]."
    ),
    "could not broadcast input array from shape": (
        "An assignment into a slice got a value of another shape: the slice on the left and "
        "the value on the right must have the same shape (a[i:j] holds j - i entries; check "
        "both bounds and the step)."
    ),
    "Dimension out of range": (
        "An axis number does not exist for this tensor (dim=2 on a tensor with two axes, "
        "say): count its axes (x.dim(), x.shape) and prefer negative axes for the last ones "
        "(-1 is always the last)."
    ),
    # any index that assumes more entries than an axis has on this input (mutant
    # generate-18, logits[:, -2] of a one-token call, got the raw IndexError alone)
    "is out of bounds for dimension": lambda exc: _out_of_bounds_advice(exc),
    "ZeroDivisionError": (
        "A division by zero: a length, a count, a norm or a penalty that is 0 on this input "
        "was used as a divisor."
    ),
    "torch.return_types.m": (
        "x.max(dim=...) and x.min(dim=...) return a pair (values, indices), not a tensor: "
        "take .values (x.max(dim=-1).values), or use x.amax(dim=-1) / x.amin(dim=-1), which "
        "return the tensor alone."
    ),
    # mutant beam_search-18: src.expand(k, -2)
    "The expanded size of the tensor": lambda exc: _expand_advice(exc),
    # a slice with fewer axes than its value (table[0, 0::2] = a (max_len, d/2) block)
    "the number of sizes provided": lambda exc: _fewer_slice_axes_advice(exc),
    "must have the same dtype": (
        "Two tensors of different dtypes met in one operation. Keep the dtype of the inputs: "
        "avoid .double()/.float() and new tensors created with a fixed dtype (pass "
        "dtype=x.dtype, or use torch.zeros_like(x))."
    ),
    # blind14c-center-keepdims-positional: np.mean(x, 1, True)
    "as a data type": lambda exc: _positional_keepdims_advice(exc),
    # blind14c-pad-width-is-longest-list, blind14c-cos-np-max-as-floor
    "object cannot be interpreted as an integer": lambda exc: _not_an_integer_advice(exc),
    # blind14f-sdpa-d-k-whole-shape: math.sqrt(k.shape)
    "must be real number, not torch.Size": (
        "A shape (torch.Size, one number per axis) was used where one number belongs: take "
        "the entry you mean, x.shape[-1] or x.size(-1) (d_k is k.shape[-1]), e.g. "
        "math.sqrt(k.shape[-1])."
    ),
    # blind14c-pairs-plain-dict-increment: counts[pair] += 1 on a plain dict
    KeyError: lambda exc: _counter_advice(exc),
    # blind14d-padmask-is-not-for-inequality: (ids is not pad_id)[...], .unsqueeze(...)
    "'bool' object": lambda exc: _identity_comparison_advice(exc),
    # x.shape() for x.shape or x.size()
    "'torch.Size' object is not callable": (
        "x.shape is an attribute (a torch.Size), not a method: write x.shape or x.shape[-1] "
        "without parentheses (or call the method x.size())."
    ),
    # blind14d-split-size-without-call: batch, length, d = x.size
    "builtin_function_or_method": (
        "A method was used without being called: x.size is the method, x.size() its result "
        "(x.shape needs no call); the same for x.dim(), x.numel() and x.item()."
    ),
    # blind14d-split-permute-three-axes
    "is not equal to len(dims)": lambda exc: _permute_advice(exc),
}


def _failing_code(exc: BaseException) -> str:
    """The learner's lines on the traceback and their functions, comments left out."""
    from transformer_course.checking.failure import learner_frames, learner_source

    return "\n".join(
        line.split("#")[0] for line in (learner_frames(exc) + learner_source(exc)).splitlines()
    )


def _given_or_not_advice(exc: BaseException) -> str:
    """`if mask:` (or `a if mask else b`, `mask or ...`) where `if mask is not None:` was
    meant (blind12n-enc-if-mask-truthiness, a conditional expression, was not read)."""
    from transformer_course.checking.failure import learner_lines

    found = re.search(r"\bif\s+(not\s+)?(\w+)\s*(?::|\selse\b)|\b(\w+)\s+or\s+", learner_lines(exc))
    if not found:
        return ""
    name = found[2] or found[3]
    colon = "" if found[0].endswith("else") else ":"
    return (
        f"`if {name}{colon}` asks whether the tensor itself is true, not whether it was given: "
        f"to test an optional argument write `if {name} is not None{colon}`. "
    )


def _math_module_advice(exc: BaseException) -> str:
    """A function of Python's math module given an array or a tensor."""
    code = _failing_code(exc)
    found = re.search(r"\bmath\.(\w+)\(", code)
    if not found:
        return ""
    name = found[1]
    return (
        f"math.{name} works on one Python number only, and it was given an array or a tensor "
        f"of several: use np.{name} on numpy arrays, torch.{name} on tensors, which work "
        "element-wise."
    )


#: attributes a tensor has and a tuple lacks, asked of a pair that should have been unpacked
_TENSOR_ATTRIBUTES = frozenset(
    "shape dtype device T mT dim size numel view reshape transpose permute contiguous "
    "unsqueeze squeeze flatten unflatten masked_fill softmax matmul sum mean max argmax exp "
    "sqrt float double to detach clone chunk split expand repeat".split()
)


def _pair_for_tensor_advice(exc: BaseException) -> str:
    """A tuple asked for a tensor's attribute (.shape, .transpose, .view, ...): a function
    that returns a pair used as if it returned one tensor ("" for .grad, said above)."""
    found = re.search(r"'tuple' object has no attribute '(\w+)'", str(exc))
    if not found or found[1] not in _TENSOR_ATTRIBUTES:
        return ""
    return (
        f"A tuple arrived where a tensor belongs (it was asked for .{found[1]}): a function "
        "that returns a pair or several results was used as if it returned one tensor. The "
        "usual ones: the course's scaled_dot_product_attention (and nn.MultiheadAttention) "
        "return (output, weights); x.max(dim), torch.topk and torch.sort return (values, "
        "indices); split and chunk return the pieces. Unpack it and keep what you need, e.g. "
        "heads, _ = scaled_dot_product_attention(q, k, v, mask)."
    )


def _named_parameters_advice(exc: BaseException) -> str:
    """(name, parameter) pairs where parameters belong."""
    if "'tuple' object has no attribute 'grad'" not in str(exc):
        return ""
    if "named_parameters" not in _failing_code(exc):
        return (
            "A tuple was used where a parameter (a tensor) belongs: something that yields "
            "pairs was read as if it yielded tensors."
        )
    return (
        "named_parameters() yields (name, parameter) pairs, so p here is a tuple: use "
        "model.parameters() where the parameters alone belong, or unpack the pairs, for "
        "name, p in model.named_parameters()."
    )


#: a return line that packs several results into one numpy array
_PACKED_RETURN = re.compile(
    r"^\s*return\s+(?:np|numpy)\.(?:array|asarray|stack)\(\s*[\[(]\s*"
    r"(\w+(?:\s*,\s*\w+)+)\s*,?\s*[\])]"
)


def _packed_return_advice(exc: BaseException) -> str:
    """The raising line is `return np.array([a, b])`: the results meant as a tuple packed
    into one array, which numpy refuses when their shapes differ (round 20, blind19b-ar-
    pair-packed-in-one-array, was told to pad its rows); "" otherwise."""
    import linecache

    from transformer_course.checking.failure import innermost_learner_traceback

    found = innermost_learner_traceback(exc)
    if found is None:
        return ""
    line = linecache.getline(found.tb_frame.f_code.co_filename, found.tb_lineno)
    packed = _PACKED_RETURN.match(line.split("#")[0])
    if not packed:
        return ""
    names = [name.strip() for name in packed[1].split(",")]
    local = found.tb_frame.f_locals
    shapes = [
        f"{name} {tuple(local[name].shape)}"
        for name in names
        if name in local and hasattr(local[name], "shape")
    ]
    shown = f" (here {', '.join(shapes)})" if len(shapes) == len(names) else ""
    return (
        f"Your return line packs the results into one numpy array, {line.strip()[7:]}: numpy "
        f"makes one array only of pieces of one shape, and these differ{shown}; where they "
        "happen to agree, it returns one stacked array instead of the separate results. A "
        "function that returns several results returns them as a tuple, not an array: "
        f"return {', '.join(names)}."
    )


def _ragged_array_advice(exc: BaseException) -> str:
    """An array built from pieces that are not numbers of one shape."""
    if packed := _packed_return_advice(exc):
        return packed
    if "np.vectorize" in _failing_code(exc) or "vectorize(" in _failing_code(exc):
        return (
            "np.vectorize calls the function once per number and expects one number back, "
            "and this function returns a whole row (an array): index the table with the whole "
            "array at once (table[ids]), or np.stack the rows."
        )
    return (
        "numpy was asked to put a sequence where one number belongs: an array built from "
        "rows of different lengths, or from arrays where numbers were expected. Give every "
        "row the same length (pad it), or np.stack rows of one shape."
    )


def _positional_keepdims_advice(exc: BaseException) -> str:
    """True or False given by position to a numpy reduction, where dtype stands."""
    if not re.search(r"Cannot interpret '(True|False)' as a data type", str(exc)):
        return ""
    return (
        "numpy's reductions take (a, axis, dtype, out, keepdims): a True or False given by "
        "position lands in dtype's place. Pass keepdims by keyword: np.mean(x, axis=-1, "
        "keepdims=True), or x.mean(axis=-1, keepdims=True)."
    )


#: a.max(1e-8): a number literal as a reduction method's only argument, its axis
_METHOD_MAX_OF_NUMBER = re.compile(r"\.(max|min|amax|amin)\(\s*-?(\d+\.\d*|\.\d+|\d+e-?\d+)")
_NUMPY_REDUCTION_CALL = re.compile(r"\bnp\.(max|min|amax|amin)\(")


def _numpy_max_of_two(frames: str) -> bool:
    """Whether a line calls np.max (min, amax, amin) with a second positional argument that
    is not an axis number: np.max(a, 1e-12) meant as np.maximum(a, 1e-12)."""
    for found in _NUMPY_REDUCTION_CALL.finditer(frames):
        depth, args, start = 0, [], found.end()
        for i in range(found.end(), len(frames)):
            char = frames[i]
            if char in "([{":
                depth += 1
            elif char in ")]}":
                if depth == 0:
                    args.append(frames[start:i].strip())
                    break
                depth -= 1
            elif char == "," and depth == 0:
                args.append(frames[start:i].strip())
                start = i + 1
        if len(args) >= 2 and "=" not in args[1] and not re.fullmatch(r"-?\d+", args[1]):
            return True
    return False


def _not_an_integer_advice(exc: BaseException) -> str:
    """A list or a float where an integer belongs (a size, a range bound, an axis)."""
    from transformer_course.checking.failure import learner_frames

    kind = re.search(r"'(\w+)' object cannot be interpreted as an integer", str(exc))
    if not kind:
        return ""
    frames = learner_frames(exc)
    if kind[1] == "list":
        from transformer_course.checking.failure import learner_source

        if re.search(r"key\s*=\s*len\b", frames + learner_source(exc)):
            return (
                "max(..., key=len) (or sorted(..., key=len)[-1]) returns the longest sequence "
                "itself, a list, not its length: take len(max(..., key=len)), or max(len(s) "
                "for s in ...), where an integer (a size, a width, a range() bound) belongs."
            )
        return (
            "A list was used where an integer belongs (a size, a count, a range() bound or an "
            "axis): its length, len(...), or a number computed from it (the longest "
            "sequence's length, max(len(s) for s in ...)) is probably what was meant."
        )
    if kind[1] != "float":
        return ""
    causes = []
    if _numpy_max_of_two(frames) or _METHOD_MAX_OF_NUMBER.search(frames):
        causes.append(
            "np.max(a, b) (or np.min, or the method a.max(b)) reads b as the axis, not as a "
            "second value: the element-wise maximum of two values is np.maximum(a, b), or "
            "max(a, b) for two numbers"
        )
    if re.search(r"[^/]/[^/=]", frames):
        causes.append("`/` always gives a float: use `//` for a whole number, or int(...)")
    if not causes:
        causes = [
            "`/` gives a float (use `//`), or np.max(a, b) reads b as an axis (the maximum "
            "of two values is np.maximum(a, b))"
        ]
    return (
        "A float was used where an integer belongs (a size, an axis, a range() bound or an "
        "index): " + "; or ".join(causes) + "."
    )


def _counter_advice(exc: BaseException) -> str:
    """A plain dict's entry incremented before it exists (d[key] += 1)."""
    from transformer_course.checking.failure import learner_frames

    line = learner_frames(exc)
    read_then_written = re.search(r"(\w+)\[(.*)\]\s*=\s*\1\[\2\]\s*\+", line)  # same key
    if not re.search(r"\]\s*\+=", line) and not read_then_written:
        return ""
    return (
        "A plain dict's entry was incremented before it exists: d[key] += 1 (or d[key] = "
        "d[key] + 1) reads d[key] first, and raises KeyError the first time a key is seen. Start it at 0: d[key] = "
        "d.get(key, 0) + 1, or count with collections.Counter (or defaultdict(int))."
    )


def _identity_comparison_advice(exc: BaseException) -> str:
    """`is` / `is not` where an element-wise comparison belongs."""
    from transformer_course.checking.failure import learner_frames

    if not re.search(r"'bool' object (is not subscriptable|has no attribute)", str(exc)):
        return ""
    from transformer_course.checking.failure import learner_source

    code = "\n".join(
        line.split("#")[0] for line in (learner_frames(exc) + learner_source(exc)).splitlines()
    )
    if not re.search(r"[\w)\]]\s+is(\s+not)?\s+[\w(]", code):
        return (
            "A single True or False was used as a tensor: a comparison of arrays or tensors (==, !=, "
            "<) gives one entry per element, but `is`, `in`, `and`, `or` and `not` give one "
            "Python bool."
        )
    return (
        "`is` and `is not` ask whether two things are the same object and give one Python "
        "bool, not one answer per entry: compare element-wise with == or != (ids != pad_id)."
    )


def _permute_advice(exc: BaseException) -> str:
    found = re.search(r"input\.dim\(\) = (\d+) is not equal to len\(dims\) = (\d+)", str(exc))
    if not found:
        return ""
    return (
        f"permute takes one position for every axis of its input, in the new order: the input "
        f"has {found[1]} axes and {found[2]} were given. List them all (x.permute(0, 2, 1, 3) "
        "swaps axes 1 and 2 of a 4-D x), or swap two axes with x.transpose(1, 2)."
    )


def _numpy_keywords_advice(exc: BaseException) -> str:
    """dim=/keepdim= (PyTorch's spelling) given to a numpy reduction."""
    keyword = "dim" if "'dim'" in str(exc) else "keepdim"
    return (
        f"`{keyword}=` is PyTorch's spelling, and numpy does not know it: numpy's functions "
        "and array methods (np.mean, x.sum, x.max, ...) take axis= and keepdims= (with an s), "
        "x.mean(axis=-1, keepdims=True). Use the spelling of the library whose array it is."
    )


_NUMPY_AXIS = re.compile(r"axis (-?\d+) is out of bounds for array of dimension (\d+)")


def _numpy_axis_advice(exc: BaseException) -> str:
    """An axis number an array does not have (numpy's AxisError)."""
    found = _NUMPY_AXIS.search(str(exc))
    if not found:
        return ""
    axis, ndim = int(found[1]), int(found[2])
    text = (
        f"An array with {ndim} ax{'is' if ndim == 1 else 'es'} has axes 0 .. {ndim - 1} "
        f"(or -1 .. -{ndim} from the end), and axis {axis} is not one of them."
    )
    if axis == ndim:
        text += (
            " It is one past the last: axes count from 0, so the last is x.ndim - 1, "
            "which axis=-1 names whatever the number of dimensions."
        )
    return text


_MASK_INDEX = re.compile(r"shape of the mask \[([\d, ]*)\] at index \d+ does not match")


_BMM_SIZES = re.compile(r"to be: \[(\d+), (\d+)\] but got: \[(\d+), (\d+)\]")


def _bmm_advice(exc: BaseException) -> str:
    """A batched matrix product (@, torch.matmul, torch.bmm on 3-D tensors) whose operands
    do not chain: the two widths that had to agree, read off the raw error, and the
    element-wise product as the likely intent when the operands share a shape."""
    found = _BMM_SIZES.search(str(exc))
    sizes = ""
    if found:
        _, needed, _, got = (int(group) for group in found.groups())
        sizes = (
            f" Here the left operand's last axis is {needed} and the right operand's "
            f"second-to-last is {got}."
        )
    return (
        "A batched matrix product (@, torch.matmul, torch.bmm) got operands that do not "
        "chain: for (..., n, k) @ (..., k, m) the left's last axis must equal the right's "
        f"second-to-last.{sizes} If the two operands have the same shape (..., n, d), a "
        "product entry by entry was likely meant: * is the element-wise product, @ the matrix "
        "product. Otherwise check which operand needs a transpose."
    )


def _boolean_index_advice(exc: BaseException) -> str:
    """A bool mask used as an index, x[mask], whose shape fits x's last axes, not its
    first (PyTorch lines an index mask up with the leading axes)."""
    found = _MASK_INDEX.search(str(exc))
    if not found:
        return ""
    return (
        f"A bool mask used as an index, x[mask], lines up with the *first* axes of x, so a "
        f"[{found[1]}] mask meant for the last axes of a batched tensor does not fit. "
        "x.masked_fill(mask, value) and torch.where(mask, a, b) broadcast the mask against "
        "the last axes, as meant; or index the last axes explicitly, x[..., mask]."
    )


_OUT_OF_BOUNDS = re.compile(r"index (-?\d+) is out of bounds for dimension (\d+) with size (\d+)")


def _out_of_bounds_advice(exc: BaseException) -> str:
    """An index past the end of a tensor's axis: which axis, how many entries it has, and,
    when it has one, the inputs on which that happens (one row, one position, one
    sequence), where an index that assumes more (x[:, -2], x[1]) fails."""
    found = _OUT_OF_BOUNDS.search(str(exc))
    if not found:
        return ""
    index, axis, size = (int(group) for group in found.groups())
    text = (
        f"An index ran past the end of a tensor: axis {axis} has {size} "
        f"entr{'y' if size == 1 else 'ies'} here (indices {-size} .. {size - 1}), and yours "
        f"asked for entry {index}."
    )
    if size == 1:
        text += (
            f" On this input that axis holds a single entry (one row, one position, one "
            f"sequence): an index that assumes more, such as [{index}] on axis {axis}, "
            "works only where there are more. Take the entry that always exists ([-1] for "
            "the last, [0] for the first), or a slice."
        )
    return text


_EXPANDED = re.compile(
    r"expanded size of the tensor \((-?\d+)\) must match the existing size \((\d+)\) "
    r"at non-singleton dimension (\d+)"
)


def _expand_advice(exc: BaseException) -> str:
    """The family 'expand given a size it cannot take': a negative size other than -1, or
    a new size for an axis that is not of size 1."""
    found = _EXPANDED.search(str(exc))
    if not found:
        return ""
    asked, size, dim = int(found[1]), int(found[2]), int(found[3])
    code = _failing_code(exc)
    if not re.search(r"\.expand(_as)?\(", code) and re.search(r"\]\s*=[^=]", code):
        # no expand written: a slice assignment, whose value PyTorch expands to the slice
        from transformer_course.checking.failing_line import integer_index_on_a_long_axis

        told = integer_index_on_a_long_axis(exc, size)
        return (
            f"A slice assignment (x[...] = value) got a value with {size} entries along one "
            f"axis, where the slice holds {asked}: the slice and the value must have the same "
            "sizes (or the value a size of 1 there). "
            + (
                told
                or "Print both shapes: a slice that is too short or too long (a width taken "
                "from another row, say) is the usual cause."
            )
        )
    rule = (
        "expand keeps an axis with -1 and repeats only an axis of size 1 (to any size); it "
        "never changes an axis of another size"
    )
    if asked < 0:
        return (
            f"expand(...) got {asked} for dimension {dim}, which has {size} entries: {asked} "
            f"is not a size, and only -1 means 'keep this axis as it is' ({rule}). Give -1 "
            "there."
        )
    return (
        f"expand(...) asked dimension {dim}, which has {size} entries, to become {asked}: "
        f"{rule}. Give -1 for an axis you keep; to repeat a whole tensor, expand its size-1 "
        "axis (x[None].expand(k, ...)) or use .repeat(...)."
    )


_FEWER_SIZES = re.compile(
    r"expand\(\S*\{\[([\d, ]+)\]\}, size=\[([\d, ]*)\]\): the number of sizes provided"
)


def _fewer_slice_axes_advice(exc: BaseException) -> str:
    """A slice assignment whose value has more axes than the slice: when a literal integer
    index took away an axis of the size of the value's first extra axis, that index
    (see :func:`failing_line.integer_index_on_a_long_axis`); "" otherwise."""
    found = _FEWER_SIZES.search(str(exc))
    if not found or not re.search(r"\]\s*=[^=]", _failing_code(exc)):
        return ""
    from transformer_course.checking.failing_line import integer_index_on_a_long_axis

    value = [int(n) for n in found[1].split(",") if n.strip()]
    slice_sizes = [int(n) for n in found[2].split(",") if n.strip()]
    if len(value) <= len(slice_sizes):
        return ""
    told = integer_index_on_a_long_axis(exc, value[0])
    if not told:
        return ""
    return (
        f"A slice assignment (x[...] = value) got a value of shape {tuple(value)} for a slice "
        f"of shape {tuple(slice_sizes)}: the value has more axes than the slice. " + told
    )


_DOT_T = re.compile(r"[\w)\]]\.T\b")


def _expanded_view_advice(exc: BaseException) -> str:
    """A view of an ``.expand``-ed tensor on the learner's failing line (round 34: the
    key/value heads repeated as k[:, :, None].expand(...).view(...)): the expand is what
    makes the view impossible, named before the general reasons."""
    from transformer_course.checking.failure import learner_lines

    lines = learner_lines(exc)
    if ".expand(" not in lines or ".view(" not in lines:
        return ""
    return (
        "Your line views a tensor made by .expand, which repeats its entries without copying "
        "them (a stride of 0 along the repeated axis): no view can merge that axis with "
        "another. Use .reshape(...) there, which copies when it must (Llama's repeat_kv "
        "writes expand(...).reshape(...)). "
    )


def uses_dot_t(exc: BaseException) -> bool:
    """Whether the learner's failing lines use `.T` (which reverses every axis of a tensor
    of more than two): a check's own reading of a shape error (a transpose over the wrong
    pair of axes) must then give way to it."""
    from transformer_course.checking.failure import learner_frames

    return _DOT_T.search(learner_frames(exc)) is not None


def _dot_t_advice(exc: BaseException) -> str:
    """Where the learner's failing lines use `.T` (blind10g-mha-inline-scores-with-dot-T:
    q @ k.T on 4-D tensors), what `.T` does to more than two axes; "" otherwise."""
    from transformer_course.checking.failure import learner_frames

    if not _DOT_T.search(learner_frames(exc)):
        return ""
    return (
        " Your line uses `.T`, which reverses *all* the axes of a tensor with more than two (a "
        "(batch, num_heads, len, d_head) k becomes (d_head, len, num_heads, batch)), not only "
        "the last two: for a batch of matrices use k.transpose(-2, -1) (or k.mT)."
    )


_TENSOR_CONSTRUCTOR = re.compile(
    r"torch\.(tensor|as_tensor|Tensor|LongTensor|FloatTensor|IntTensor)\(|np\.array\("
)


def _tensor_of_tensors_advice(exc: BaseException) -> str:
    """The family 'a tensor built from a list of tensors' (torch.tensor, torch.LongTensor,
    np.array on a list whose elements are tensors of several values): said when the line
    of the learner's code that raised calls such a constructor; "" otherwise."""
    from transformer_course.checking.failure import _is_learner_frame

    frames = [
        frame
        for frame in traceback.extract_tb(exc.__traceback__)
        if _is_learner_frame(frame.filename)
    ]
    if not frames or not _TENSOR_CONSTRUCTOR.search(frames[-1].line or ""):
        return ""
    return (
        f"Your line `{frames[-1].line.strip()}` builds a tensor from a list whose elements "
        "are tensors of several values (a list of tensors): torch.tensor (like "
        "torch.LongTensor or np.array) turns each element into one Python number, which a "
        "tensor of a whole batch or row cannot be. Join tensors with torch.stack(the_list, "
        "dim=...) (a new axis: dim=1 makes each step a column) or torch.cat (along an "
        "existing axis); torch.tensor is for Python numbers and lists of them."
    )


_NOT_TENSOR = re.compile(
    r"must be Tensor, not (\w+)"
    r"|unsupported operand type\(s\) for [^:]+: '(\w+)' and 'Tensor'"
    r"|unsupported operand type\(s\) for [^:]+: 'Tensor' and '(\w+)'"
)


def _module_class_advice(exc: BaseException) -> str:
    """Where a torch.nn module reached an operation in a tensor's place (nn.ReLU stored
    without parentheses: calling the class builds a module from the tensor instead of
    applying it), what happened; "" for any other type."""
    import torch.nn

    found = _NOT_TENSOR.search(str(exc))
    name = next((group for group in found.groups() if group), "") if found else ""
    if not name or not isinstance(getattr(torch.nn, name, None), type):
        return ""
    import torch.nn.functional as F

    # the function that applies this module's operation, when torch has one of that name
    # (nn.SiLU -> F.silu): the advice names the learner's own activation, not another
    function = name.lower()
    if callable(getattr(F, function, None)):
        instead = f"use the function, F.{function}(h)"
    elif callable(getattr(torch, function, None)):
        instead = f"use the function, torch.{function}(h)"
    else:
        instead = "apply an instance, not the class"
    return (
        f"An nn.{name} module arrived where a tensor goes: nn.{name} without parentheses is the "
        f"class, and calling the class, nn.{name}(h), builds a new module (h taken as its "
        f"first argument) instead of applying one to h. Create the module in __init__, "
        f"self.act = nn.{name}(), and call that instance on the tensor (or {instead})."
    )


_NOT_CALLABLE = re.compile(r"'(\w+)' object is not callable")


def _dict_keys_called_advice(exc: BaseException) -> str:
    """For a key of a dict called as if it were its value (a loop over an nn.ModuleDict,
    or a plain dict, of layers: iterating a dict yields its keys): the local holding the
    key, the dict it belongs to and the fix, read from the learner's innermost frame; ""
    when no local of the called type is a key of a dict there."""
    found = _NOT_CALLABLE.search(str(exc))
    innermost = innermost_learner_traceback(exc)
    if not found or innermost is None:
        return ""
    local_values = innermost.tb_frame.f_locals
    containers = {name: value for name, value in local_values.items() if name != "self"}
    owner = local_values.get("self")
    if owner is not None:
        containers |= {f"self.{name}": value for name, value in _attributes(owner).items()}
    dicts = {
        name: value
        for name, value in containers.items()
        if callable(getattr(value, "keys", None))
        and callable(getattr(value, "values", None))
        and not isinstance(value, type)
    }
    for name, value in local_values.items():
        if type(value).__name__ != found.group(1):
            continue
        for where, mapping in dicts.items():
            try:
                is_key = value in mapping.keys()
            except TypeError:  # an unhashable local: no key of any dict
                is_key = False
            if not is_key:
                continue
            module_name = type(mapping).__module__
            kind = f"nn.{type(mapping).__name__}" if module_name.startswith("torch.nn") else "dict"
            return (
                f"`{name}` is {value!r}, a key of {where} ({'an' if kind.startswith('nn') else 'a'} "
                f"{kind}), not one of its values: "
                f"iterating a dict, an nn.ModuleDict included, yields its keys (names), not the "
                f"modules. Loop over {where}.values(), or keep the layers in an nn.ModuleList "
                "(the same state-dict keys, layers.0, layers.1, ...), which yields the modules."
            )
    return ""


def _attributes(owner: object) -> dict[str, object]:
    """An object's attributes, an nn.Module's submodules included; {} when unreadable."""
    try:
        found = dict(vars(owner))
    except TypeError:
        return {}
    found |= found.pop("_modules", None) or {}
    return found


_NORMALIZED_SHAPE = re.compile(
    r"weight of shape \[([\d, ]+)\] and normalized_shape = \[([\d, ]+)\]"
)


def _normalized_shape_advice(exc: BaseException) -> str:
    """F.layer_norm given a normalized_shape of more axes than the weight's: what those
    axes are and what belongs there; "" for another text."""
    found = _NORMALIZED_SHAPE.search(str(exc))
    if not found:
        return ""
    weight = [int(n) for n in found.group(1).split(",")]
    asked = [int(n) for n in found.group(2).split(",")]
    if len(asked) <= len(weight):
        return ""
    return (
        f"F.layer_norm's normalized_shape names the trailing axes that are normalised "
        f"together, and {asked} asks for the last {len(asked)} axes of x at once (positions "
        f"and features together, one mean per sequence; x.shape[1:], every axis but the "
        f"batch, is the features alone only for a 2-D x). LayerNorm normalises each token over its features alone: "
        f"normalized_shape should be (d_model,), x.shape[-1:], the shape of the weight, "
        f"{weight}."
    )


Hint = tuple[str | type | Callable[[BaseException], bool], str | Callable[[BaseException], str]]

_AXIS = re.compile(r"(?:non-singleton dimension|except in dimension|at dimension) (-?\d+)")


def shape_mismatch_hint(axes: Sequence[str], layout: str) -> Hint:
    """A hint for PyTorch's shape-mismatch RuntimeErrors ("... must match ... at
    non-singleton dimension 1", "Sizes of tensors must match except in dimension 3"):
    it names the axis the error is about, from ``axes`` (the names of the axes of the
    tensors involved, in order), and restates the expected ``layout``."""

    def text(exc: BaseException) -> str:
        found = _AXIS.search(str(exc))
        if not found:
            return ""
        number = int(found.group(1))
        if not -len(axes) <= number < len(axes):
            return ""
        name = axes[number]
        if "except in dimension" in str(exc):
            return (
                f"torch.cat joined the tensors along axis {number % len(axes)} ({name}), so "
                f"every other axis had to agree and did not. {layout}"
            )
        return (
            f"Two tensors disagree along axis {number % len(axes)} ({name}): one of yours has "
            f"the wrong size there. {layout}"
        )

    def when(exc: BaseException) -> bool:
        return isinstance(exc, RuntimeError) and bool(_AXIS.search(str(exc)))

    return when, text


_SIZES = re.compile(
    r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) at "
    r"non-singleton dimension (\d+)"
)


def dropped_axis_hint(shape: Sequence[int]) -> Hint:
    """A hint for a statistic taken over the last axis without ``keepdim=True``, met in a
    tensor of ``shape``: the reduced (..., len) lines its len up with the features axis, so
    PyTorch reports the feature size against len at the last dimension. Said only when
    the error's sizes and dimension are exactly those."""
    features, rows, last = shape[-1], shape[-2], len(shape) - 1

    def when(exc: BaseException) -> bool:
        found = _SIZES.search(str(exc))
        return (
            bool(found)
            and {int(found.group(1)), int(found.group(2))} == {features, rows}
            and int(found.group(3)) == last
            and features != rows
        )

    text = (
        f"A statistic taken over the last axis without keepdim=True has one axis fewer: its "
        f"(..., {rows}) lines up with the {features} features, not with the tokens. Keep the "
        "reduced axis, .mean(-1, keepdim=True), so that each token is scaled by its own "
        "statistic."
    )
    return when, text


def outer_axis_hint(first: tuple[str, int], second: tuple[str, int], fix: str) -> Hint:
    """A hint for an outer sum or product of two 1-D tensors written without the new axis
    (starts + torch.arange(block_size), positions * theta): one per ``first`` and one per
    ``second`` (name, size), they line up on their only axis, and PyTorch reports the two
    sizes at dimension 0. Said only when the error's sizes are exactly those two (and they
    differ); ``fix`` is the right expression."""
    (name_a, size_a), (name_b, size_b) = first, second

    def when(exc: BaseException) -> bool:
        found = _SIZES.search(str(exc))
        return (
            bool(found)
            and size_a != size_b
            and {int(found.group(1)), int(found.group(2))} == {size_a, size_b}
            and int(found.group(3)) == 0
        )

    text = (
        f"The sizes {size_a} and {size_b} are {name_a} and {name_b}: a vector of one and a "
        "vector of the other were combined element by element, so they lined up on their "
        "only axis. An outer sum or product (every pair of them, a table) needs one of the "
        f"two as a column, with an axis of size 1 added ([:, None] or .unsqueeze(1)): {fix}."
    )
    return when, text


def matching_hints(exc: BaseException, hints: Iterable[Hint]) -> list[str]:
    text = f"{type(exc).__name__}: {exc}"
    found = []
    for when, hint in hints:
        if callable(hint):
            try:
                hint = hint(exc) if _hits(when, exc, text) else ""
            except Exception:
                hint = ""
            if hint and hint not in found:
                found.append(hint)
            continue
        if isinstance(when, str):
            hit = when in text
        elif isinstance(when, type):
            hit = isinstance(exc, when)
        else:
            try:
                hit = bool(when(exc))
            except Exception:
                hit = False
        if hit and hint not in found:
            found.append(hint)
    return found


def _hits(when, exc: BaseException, text: str) -> bool:
    if isinstance(when, str):
        return when in text
    if isinstance(when, type):
        return isinstance(exc, when)
    try:
        return bool(when(exc))
    except Exception:
        return False


def two_mistakes(first: str, second: str) -> str:
    """The message for two known mistakes made at once: both named."""
    return f"Two mistakes at once. (1) {first} (2) {second}"


def mistake_pairs(
    families: dict[str, list[tuple[str, dict]]], value: Callable[[dict], Any]
) -> dict[str, Callable[[], Any]]:
    """Every two known mistakes of two different families made at once, for a check to match
    its oracle against: {the message naming both: a thunk giving ``value`` of their knobs
    joined}. ``families`` maps a family's name to its mistakes, (message, the oracle's knobs
    that make it); two of one family (two scales, say) are not a pair."""
    names = list(families)
    pairs = {}
    for a, first_family in enumerate(names):
        for second_family in names[a + 1 :]:
            for first, one in families[first_family]:
                for second, other in families[second_family]:
                    pairs[two_mistakes(first, second)] = functools.partial(value, {**one, **other})
    return pairs


GENERIC_HINTS.update(RAW_ERROR_HINTS)


def _spaced(advice: str) -> str:
    """Advice to append after a sentence: a leading space, or "" when there is none."""
    return f" {advice}" if advice else ""
