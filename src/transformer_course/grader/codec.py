"""The only way data crosses the sandbox boundary: a small, explicit codec.

A message is a JSON header plus raw binary buffers. Values are encoded as JSON
primitives (``None``, ``bool``, ``int``, ``float``, ``str``) or as tagged lists
``[tag, ...]``:

=====  =========================================================================
tag    value
=====  =========================================================================
L T    list, tuple (``T`` also for ``torch.Size`` with ``Z``)
D      dict (``OrderedDict``, ``Counter``, ``defaultdict`` keep their class)
S F    set, frozenset
NT     namedtuple (a fresh namedtuple class with the same name and fields)
B      bytes (a buffer)            I   a big int (hex)      C   complex
A      numpy array: whitelisted dtype, shape, order, raw bytes
OA     numpy object array: shape and encoded items
G      numpy scalar: dtype and raw bytes
X      torch tensor: dtype, shape, strides, raw bytes of the storage span,
       requires_grad, whether it had a grad_fn, whether it is a Parameter
TD ND  torch dtype, numpy dtype (by name, whitelisted)
E SL   Ellipsis, slice         RG  range
R      a reference to an object encoded earlier in the same message (aliasing,
       cycles)
AR     a reference to an *argument* of the call being answered (``return x``)
U      a value the codec cannot carry: only its type name and a short repr
H O P  extension tags: a handle to an object living in the sandbox (``H``), a
PO     course object sent by recipe (``O``), a handle sent back (``P``),
       ``ParametersOf(module)`` (``PO``); see :mod:`.proxy` and :mod:`.inside.server`
=====  =========================================================================

Decoding builds only the plain types above (never a subclass the other side
chose, never an object from a class name it sent), checks every dtype against a
whitelist, every shape against the buffer's length, and every reference against
what was decoded before; a message over the size, depth or item limits is refused.
Nothing is ever unpickled. The same codec carries the grader's requests into the
sandbox (where it is trusted by construction) and the learner's answers out of it
(where it is the trust boundary).
"""

from __future__ import annotations

import collections
import json
import math
import re
import select
import socket
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "CodecError",
    "CodecLimits",
    "Decoder",
    "Encoder",
    "MessageTimeout",
    "PeerClosed",
    "Unsupported",
    "pack",
    "recv_message",
    "send_message",
    "unpack",
]

NUMPY_KINDS = set("biufc")
TORCH_DTYPES = (
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "complex128",
)
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,99}$")
_DEFAULT_FACTORIES = {
    "int": int,
    "float": float,
    "list": list,
    "dict": dict,
    "set": set,
    "str": str,
}


class CodecError(ValueError):
    """A message or value that the codec refuses (malformed, too large, unsupported)."""


class PeerClosed(ConnectionError):
    """The other end closed the channel (the sandboxed process died or closed it)."""


class MessageTimeout(TimeoutError):
    """No complete message arrived before the deadline."""


@dataclass(frozen=True)
class CodecLimits:
    """Size limits for one message and for one decoded value (``max_items`` counts the
    value as if every shared reference were a copy: see :class:`Decoder`)."""

    max_message_bytes: int = 256 * 2**20
    max_header_bytes: int = 64 * 2**20
    max_depth: int = 100
    max_items: int = 2_000_000
    max_int_bits: int = 100_000
    max_expanded_bytes: int = 512 * 2**20  # raw data (bytes, arrays, tensors) once expanded


DEFAULT_LIMITS = CodecLimits()


class Unsupported:
    """Stands for a value the codec cannot carry. It has no behaviour; its class is
    named after the original type so that a check's "should be a list, but it is a
    generator" message reads as it does in the notebook."""

    __slots__ = ("text", "type_name")

    def __init__(self, type_name: str, text: str):
        self.type_name = type_name
        self.text = text

    def __repr__(self) -> str:
        return self.text or f"<{self.type_name} object>"


_unsupported_classes: dict[str, type] = {}


def unsupported(type_name: str, text: str) -> Unsupported:
    name = type_name if _IDENTIFIER.match(type_name or "") else "object"
    cls = _unsupported_classes.get(name)
    if cls is None:
        cls = _unsupported_classes[name] = type(name, (Unsupported,), {"__slots__": ()})
    return cls(name, text[:200])


def safe_name(name: Any, default: str = "object") -> str:
    return name if isinstance(name, str) and _IDENTIFIER.match(name) else default


# ===================================================================== encoding
class Encoder:
    """Turn a value into a JSON-able node plus buffers.

    ``extension(obj, encoder)`` is tried for every object that is not a JSON
    primitive; it returns a node or ``NotImplemented``. ``fallback(obj, encoder)``
    is called for objects nothing else can encode (default: a ``U`` node).
    ``argrefs`` maps ``id(obj)`` to an argument index: such objects are sent as
    ``["AR", index]`` (the receiver holds them already).
    """

    def __init__(
        self,
        *,
        extension: Callable[[Any, Encoder], Any] | None = None,
        fallback: Callable[[Any, Encoder], Any] | None = None,
        argrefs: dict[int, int] | None = None,
        limits: CodecLimits = DEFAULT_LIMITS,
    ):
        self.buffers: list[bytes] = []
        self.memo: dict[int, int] = {}
        self.objects: list[Any] = []  # memo index -> object (kept alive)
        self.extension = extension
        self.fallback = fallback
        self.argrefs = argrefs or {}
        self.limits = limits
        self._size = 0
        self._skip_argref: int | None = None

    # ------------------------------------------------------------------ helpers
    def buffer(self, data: bytes) -> int:
        self._size += len(data)
        if self._size > self.limits.max_message_bytes:
            raise CodecError(
                f"the value is larger than the {self.limits.max_message_bytes // 2**20} MiB "
                "the grader accepts"
            )
        self.buffers.append(data)
        return len(self.buffers) - 1

    def remember(self, obj: Any) -> int:
        index = len(self.objects)
        self.memo[id(obj)] = index
        self.objects.append(obj)
        return index

    def encode_top(self, value: Any, *, not_argref: Any = None) -> Any:
        """Encode ``value``; ``not_argref`` is encoded in full even if it is an argument."""
        self._skip_argref = id(not_argref) if not_argref is not None else None
        return self.encode(value)

    def encode(self, value: Any, depth: int = 0) -> Any:
        if depth > self.limits.max_depth:
            raise CodecError(f"the value is nested more than {self.limits.max_depth} levels deep")
        kind = type(value)
        if value is None or kind is bool or kind is str:
            return value
        if kind is int:
            if -(2**63) <= value < 2**63:
                return value
            if value.bit_length() > self.limits.max_int_bits:
                raise CodecError("an integer with more digits than the grader accepts")
            return ["I", hex(value)]
        if kind is float:
            return value
        key = id(value)
        if key in self.memo:
            return ["R", self.memo[key]]
        if key in self.argrefs and key != self._skip_argref:
            return ["AR", self.argrefs[key]]
        if self.extension is not None:
            node = self.extension(value, self)
            if node is not NotImplemented:
                return node
        return self._encode_data(value, depth)

    def _encode_data(self, value: Any, depth: int) -> Any:
        import sys

        torch = sys.modules.get("torch")
        if isinstance(value, np.ndarray):
            return self._ndarray(value, depth)
        if isinstance(value, np.generic):
            return self._npscalar(value)
        if torch is not None:
            if isinstance(value, torch.Tensor):
                return self._tensor(value, torch)
            if isinstance(value, torch.dtype):
                name = str(value).removeprefix("torch.")
                return ["TD", name] if name in TORCH_DTYPES else self._unsupported(value)
            if isinstance(value, torch.Size):
                return ["Z", [self._int(v) for v in tuple.__iter__(value)]]
        if isinstance(value, np.dtype):
            return ["ND", value.str] if _numpy_dtype_ok(value) else self._unsupported(value)
        if isinstance(value, bool):  # a bool subclass cannot exist; numpy bools are generic
            return bool(value)
        if isinstance(value, int):
            return self.encode(int.__add__(value, 0), depth)
        if isinstance(value, float):
            return float.__mul__(value, 1.0)
        if isinstance(value, str):
            return str.__getitem__(value, slice(None))
        if isinstance(value, complex):
            return ["C", complex.__add__(value, 0).real, complex.__add__(value, 0).imag]
        if isinstance(value, bytes | bytearray | memoryview):
            return ["B", self.buffer(bytes(value))]
        if isinstance(value, tuple) and _is_namedtuple(value):
            fields = [f for f in type(value)._fields if isinstance(f, str)]
            items = [self.encode(v, depth + 1) for v in tuple.__iter__(value)]
            return ["NT", safe_name(type(value).__name__, "namedtuple"), fields, items]
        if isinstance(value, tuple):
            return ["T", [self.encode(v, depth + 1) for v in tuple.__iter__(value)]]
        if isinstance(value, list):
            index = self.remember(value)
            return ["L", [self.encode(v, depth + 1) for v in list.__iter__(value)], index]
        if isinstance(value, dict):
            index = self.remember(value)
            kind = "dict"
            extra = None
            if isinstance(value, collections.Counter):
                kind = "Counter"
            elif isinstance(value, collections.OrderedDict):
                kind = "OrderedDict"
            elif isinstance(value, collections.defaultdict):
                kind = "defaultdict"
                factory = value.default_factory
                extra = next((n for n, f in _DEFAULT_FACTORIES.items() if f is factory), None)
            pairs = [
                [self.encode(k, depth + 1), self.encode(v, depth + 1)] for k, v in dict.items(value)
            ]
            return ["D", pairs, index, kind, extra]
        if isinstance(value, set | frozenset):
            tag = "F" if isinstance(value, frozenset) else "S"
            index = self.remember(value)
            return [tag, [self.encode(v, depth + 1) for v in set(value)], index]
        if value is Ellipsis:
            return ["E"]
        if isinstance(value, slice):
            return [
                "SL",
                self.encode(value.start, depth + 1),
                self.encode(value.stop, depth + 1),
                self.encode(value.step, depth + 1),
            ]
        if isinstance(value, range):
            return ["RG", value.start, value.stop, value.step]
        if self.fallback is not None:
            return self.fallback(value, self)
        return self._unsupported(value)

    def _int(self, value: Any) -> int:
        return int.__add__(value, 0) if isinstance(value, int) else int(value)

    def _unsupported(self, value: Any) -> list:
        type_name = type(value).__name__
        try:
            text = object.__repr__(value)
        except Exception:  # pragma: no cover - object.__repr__ does not fail
            text = ""
        return ["U", safe_name(type_name), text[:200]]

    def _ndarray(self, value: np.ndarray, depth: int) -> list:
        array = np.asarray(value).view(np.ndarray)  # strip subclasses
        dtype = array.dtype
        index = self.remember(value)
        if dtype.kind == "O":
            flat = array.reshape(-1, order="C")
            if flat.size > self.limits.max_items:
                raise CodecError("an object array with more items than the grader accepts")
            items = [self.encode(item, depth + 1) for item in flat.tolist()]
            return ["OA", list(array.shape), items, index]
        if not _numpy_dtype_ok(dtype):
            return self._unsupported(value)
        order = "F" if array.flags.f_contiguous and not array.flags.c_contiguous else "C"
        data = array.tobytes(order=order)
        return ["A", dtype.str, list(array.shape), order, self.buffer(data), index]

    def _npscalar(self, value: np.generic) -> list:
        dtype = value.dtype
        if not _numpy_dtype_ok(dtype):
            return self._unsupported(value)
        return ["G", dtype.str, self.buffer(np.asarray(value).tobytes())]

    def _tensor(self, value: Any, torch: Any) -> list:
        # a tensor subclass may override every operation (__torch_function__): read the data
        # with the overrides switched off
        with torch._C.DisableTorchFunctionSubclass():
            return self._plain_tensor(value, torch)

    def _plain_tensor(self, value: Any, torch: Any) -> list:
        name = str(value.dtype).removeprefix("torch.")
        if name not in TORCH_DTYPES or value.layout != torch.strided or value.is_quantized:
            return self._unsupported(value)
        if getattr(value, "is_nested", False) or value.device.type == "meta":
            return self._unsupported(value)
        index = self.remember(value)
        requires_grad = bool(value.requires_grad)
        non_leaf = requires_grad and value.grad_fn is not None
        parameter = isinstance(value, torch.nn.Parameter)
        t = torch.Tensor.detach(value)
        if type(t) is not torch.Tensor:
            t = t.as_subclass(torch.Tensor)
        if t.device.type != "cpu":
            t = t.cpu()
        t = t.resolve_conj().resolve_neg()
        shape = [int(s) for s in t.shape]
        stride = [int(s) for s in t.stride()]
        numel = t.numel()
        if numel == 0:
            span, flat = 0, t.new_empty(0)
        else:
            span = 1 + sum((size - 1) * step for size, step in zip(shape, stride))
            if span > 4 * numel + 1024:  # a sparse view: send the values, not the storage
                t = t.contiguous()
                stride = [int(s) for s in t.stride()]
                span = numel
            flat = t.as_strided((span,), (1,), t.storage_offset()).contiguous()
        if name == "bfloat16":
            data = flat.view(torch.int16).numpy().tobytes()
        else:
            data = flat.numpy().tobytes()
        meta = {"dtype": name, "shape": shape, "stride": stride, "span": span}
        meta.update(rg=requires_grad, nl=non_leaf, param=parameter)
        return ["X", meta, self.buffer(data), index]


def _is_namedtuple(value: tuple) -> bool:
    fields = getattr(type(value), "_fields", None)
    return isinstance(fields, tuple) and len(fields) == len(tuple(tuple.__iter__(value)))


def _numpy_dtype_ok(dtype: np.dtype) -> bool:
    if dtype.fields is not None or dtype.subdtype is not None or dtype.hasobject:
        return False
    if dtype.kind in NUMPY_KINDS:
        return True
    return dtype.kind in "US" and dtype.itemsize <= 2**20


# ===================================================================== decoding


def _namedtuple_fields_valid(fields: list, items: list) -> bool:
    """Whether ``fields`` can name a namedtuple of ``items``: one public identifier per
    item, none repeated (otherwise the value decodes as a plain tuple)."""
    public = all(
        isinstance(f, str) and _IDENTIFIER.match(f) and not f.startswith("_") for f in fields
    )
    return public and len(fields) == len(items) and len(set(fields)) == len(fields)


class Decoder:
    """Turn a node (and its buffers) back into plain values, checking everything.

    ``extension(tag, node, decoder, depth)`` decodes extension tags (H, O, P, PO);
    without one they are refused. ``argrefs`` resolves ``["AR", i]``.

    Sizes are counted *expanded*: a reference (``R``) to a list, dict, set, array or
    tensor decoded earlier counts as much as a copy of it would, and so does every use
    of a buffer. A value whose parts share references (``a = [0] * 1000;
    b = [a] * 1000; c = [b] * 1000``: 3,000 nodes on the wire, a billion items once
    anything walks or converts it) is refused as soon as the count passes
    ``max_items`` (or ``max_expanded_bytes`` of raw data), before it is built.
    A reference to a container still being built (a cycle) counts as one item.
    """

    def __init__(
        self,
        buffers: list[bytes],
        *,
        extension: Callable[[str, list, Decoder, int], Any] | None = None,
        argrefs: list[Any] | None = None,
        limits: CodecLimits = DEFAULT_LIMITS,
    ):
        self.buffers = buffers
        self.memo: dict[int, Any] = {}
        self.extension = extension
        self.argrefs = argrefs
        self.limits = limits
        self.items = 0
        self.data_bytes = 0
        self.raw: dict[int, bytes] = {}  # memo index -> the buffer an array/tensor came from
        self.expanded: dict[int, tuple[int, int]] = {}  # memo index -> (items, data bytes)

    def _count(self, n: int = 1) -> None:
        self.items += n
        if self.items > self.limits.max_items:
            raise CodecError(
                f"the value has more than {self.limits.max_items:,} items (counting every "
                "shared reference as a copy), more than the grader accepts"
            )

    def _count_bytes(self, n: int) -> None:
        self.data_bytes += n
        if self.data_bytes > self.limits.max_expanded_bytes:
            raise CodecError(
                f"the value holds more than {self.limits.max_expanded_bytes // 2**20} MiB of data "
                "(counting every shared reference as a copy), more than the grader accepts"
            )

    def _buffer(self, index: Any) -> bytes:
        if type(index) is not int or not 0 <= index < len(self.buffers):
            raise CodecError("a reference to a buffer that does not exist")
        data = self.buffers[index]
        self._count_bytes(len(data))
        return data

    def _memo_index(self, index: Any) -> int:
        if type(index) is not int or index < 0 or index in self.memo:
            raise CodecError("a malformed or repeated object index")
        return index

    def decode(self, node: Any, depth: int = 0) -> Any:
        if depth > self.limits.max_depth:
            raise CodecError(f"the value is nested more than {self.limits.max_depth} levels deep")
        self._count()
        kind = type(node)
        if node is None or kind in (bool, int, float, str):
            return node
        if kind is not list or not node or type(node[0]) is not str:
            raise CodecError("a malformed value")
        tag = node[0]
        try:
            method = _DECODERS.get(tag)
            if method is not None:
                position = _MEMO_POSITION.get(tag)
                if position is None:
                    return method(self, node, depth)
                items, data_bytes = self.items - 1, self.data_bytes
                value = method(self, node, depth)
                index = node[position]
                self.expanded[index] = (self.items - items, self.data_bytes - data_bytes)
                return value
            if self.extension is not None and tag in {"H", "O", "P", "PO"}:
                return self.extension(tag, node, self, depth)
        except CodecError:
            raise
        except (TypeError, ValueError, IndexError, KeyError, OverflowError, RuntimeError) as exc:
            raise CodecError(f"a malformed {tag!r} value ({type(exc).__name__}: {exc})") from None
        raise CodecError(f"an unknown value tag {tag!r}")

    # ------------------------------------------------------------ per tag
    def _list(self, node, depth):
        _, items, index = node
        result: list = []
        self.memo[self._memo_index(index)] = result
        result.extend(self.decode(item, depth + 1) for item in _as_list(items))
        return result

    def _tuple(self, node, depth):
        return tuple(self.decode(item, depth + 1) for item in _as_list(node[1]))

    def _size(self, node, depth):
        import torch

        return torch.Size([_check_int(v) for v in _as_list(node[1])])

    def _namedtuple(self, node, depth):
        _, name, fields, items = node
        fields = _as_list(fields)
        items = _as_list(items)
        if not _namedtuple_fields_valid(fields, items):
            return tuple(self.decode(item, depth + 1) for item in items)
        cls = collections.namedtuple(safe_name(name, "namedtuple"), fields)
        return cls(*(self.decode(item, depth + 1) for item in items))

    def _dict(self, node, depth):
        _, pairs, index, kind, extra = node
        if kind == "Counter":
            result: dict = collections.Counter()
        elif kind == "OrderedDict":
            result = collections.OrderedDict()
        elif kind == "defaultdict":
            result = collections.defaultdict(_DEFAULT_FACTORIES.get(extra))
        else:
            result = {}
        self.memo[self._memo_index(index)] = result
        for pair in _as_list(pairs):
            key, value = _as_list(pair)
            key = self.decode(key, depth + 1)
            try:
                hash(key)
            except TypeError:
                raise CodecError("a dict key that is not hashable") from None
            result[key] = self.decode(value, depth + 1)  # result is one of our own stdlib classes
        return result

    def _set(self, node, depth):
        tag, items, index = node
        result: set = set()
        self.memo[self._memo_index(index)] = result
        for item in _as_list(items):
            value = self.decode(item, depth + 1)
            try:
                result.add(value)
            except TypeError:
                raise CodecError("a set item that is not hashable") from None
        if tag == "F":
            result = frozenset(result)
            self.memo[index] = result
        return result

    def _bytes(self, node, depth):
        return bytes(self._buffer(node[1]))

    def _bigint(self, node, depth):
        text = node[1]
        if not isinstance(text, str) or len(text) > self.limits.max_int_bits // 4 + 4:
            raise CodecError("a malformed integer")
        return int(text, 16)

    def _complex(self, node, depth):
        _, real, imag = node
        if type(real) not in (int, float) or type(imag) not in (int, float):
            raise CodecError("a malformed complex number")
        return complex(real, imag)

    def _ndarray(self, node, depth):
        _, dtype_str, shape, order, buffer, index = node
        dtype = _numpy_dtype(dtype_str)
        shape = _shape(shape)
        if order not in ("C", "F"):
            raise CodecError("a malformed array order")
        data = self._buffer(buffer)
        count = math.prod(shape)
        self._count(count)
        if len(data) != count * dtype.itemsize:
            raise CodecError("an array whose data does not match its shape and dtype")
        if dtype.itemsize == 0 or count == 0:
            array = np.zeros(shape, dtype=dtype, order=order)
        else:
            array = np.frombuffer(bytearray(data), dtype=dtype).reshape(shape, order=order)
        self.memo[self._memo_index(index)] = array
        self.raw[index] = data
        return array

    def _object_array(self, node, depth):
        _, shape, items, index = node
        shape = _shape(shape)
        items = _as_list(items)
        if len(items) != math.prod(shape):
            raise CodecError("an object array whose items do not match its shape")
        array = np.empty(shape, dtype=object)
        self.memo[self._memo_index(index)] = array
        flat = array.reshape(-1)
        for i, item in enumerate(items):
            flat[i] = self.decode(item, depth + 1)
        return array

    def _npscalar(self, node, depth):
        _, dtype_str, buffer = node
        dtype = _numpy_dtype(dtype_str)
        data = self._buffer(buffer)
        if len(data) != dtype.itemsize:
            raise CodecError("a numpy scalar whose data does not match its dtype")
        return np.frombuffer(data, dtype=dtype)[0] if dtype.itemsize else dtype.type()

    def _tensor(self, node, depth):
        import torch

        _, meta, buffer, index = node
        if not isinstance(meta, dict):
            raise CodecError("a malformed tensor")
        name = meta.get("dtype")
        if name not in TORCH_DTYPES:
            raise CodecError(f"a tensor dtype the grader does not accept: {name!r}")
        dtype = getattr(torch, name)
        shape = _shape(meta.get("shape"))
        stride = _shape(meta.get("stride"))
        span = _check_int(meta.get("span"))
        if len(stride) != len(shape):
            raise CodecError("a tensor whose strides do not match its shape")
        data = self._buffer(buffer)
        itemsize = torch.empty(0, dtype=dtype).element_size()
        if len(data) != span * itemsize:
            raise CodecError("a tensor whose data does not match its size")
        numel = math.prod(shape)
        self._count(numel)
        if numel == 0:
            tensor = torch.empty(shape, dtype=dtype)
        else:
            reach = 1 + sum((size - 1) * step for size, step in zip(shape, stride))
            if reach > span:
                raise CodecError("a tensor whose strides reach past its data")
            flat = torch.frombuffer(bytearray(data), dtype=dtype)
            tensor = flat.as_strided(shape, stride)
        requires_grad = meta.get("rg") is True and (
            tensor.is_floating_point() or tensor.is_complex()
        )
        if meta.get("param") is True:
            tensor = torch.nn.Parameter(tensor, requires_grad=requires_grad)
        elif requires_grad:
            tensor = tensor.requires_grad_(True)
            if meta.get("nl") is True:
                tensor = tensor[...]  # a view: has a grad_fn, like the learner's result had
        self.memo[self._memo_index(index)] = tensor
        self.raw[index] = data
        return tensor

    def _torch_dtype(self, node, depth):
        import torch

        if node[1] not in TORCH_DTYPES:
            raise CodecError("a torch dtype the grader does not accept")
        return getattr(torch, node[1])

    def _numpy_dtype_node(self, node, depth):
        return _numpy_dtype(node[1])

    def _ref(self, node, depth):
        index = node[1]
        if type(index) is not int or index not in self.memo:
            raise CodecError("a reference to an object that was not sent")
        items, data_bytes = self.expanded.get(index, (1, 0))  # absent: still being built
        self._count(items - 1)  # decode() counted this node once already
        self._count_bytes(data_bytes)
        return self.memo[index]

    def _argref(self, node, depth):
        index = node[1]
        if self.argrefs is None or type(index) is not int or not 0 <= index < len(self.argrefs):
            raise CodecError("a reference to an argument that does not exist")
        return self.argrefs[index]

    def _unsupported(self, node, depth):
        _, type_name, text = node
        return unsupported(type_name if isinstance(type_name, str) else "object", str(text))

    def _ellipsis(self, node, depth):
        return Ellipsis

    def _slice(self, node, depth):
        parts = [self.decode(part, depth + 1) for part in node[1:4]]
        if not all(p is None or type(p) is int for p in parts):
            raise CodecError("a malformed slice")
        return slice(*parts)

    def _range(self, node, depth):
        parts = [_check_int(p) for p in node[1:4]]
        return range(*parts)


# where a tag that is remembered (and may be referenced with ``R``) keeps its memo index
_MEMO_POSITION = {"L": 2, "D": 2, "S": 2, "F": 2, "A": 5, "OA": 3, "X": 3}

_DECODERS: dict[str, Callable[[Decoder, list, int], Any]] = {
    "L": Decoder._list,
    "T": Decoder._tuple,
    "Z": Decoder._size,
    "NT": Decoder._namedtuple,
    "D": Decoder._dict,
    "S": Decoder._set,
    "F": Decoder._set,
    "B": Decoder._bytes,
    "I": Decoder._bigint,
    "C": Decoder._complex,
    "A": Decoder._ndarray,
    "OA": Decoder._object_array,
    "G": Decoder._npscalar,
    "X": Decoder._tensor,
    "TD": Decoder._torch_dtype,
    "ND": Decoder._numpy_dtype_node,
    "R": Decoder._ref,
    "AR": Decoder._argref,
    "U": Decoder._unsupported,
    "E": Decoder._ellipsis,
    "SL": Decoder._slice,
    "RG": Decoder._range,
}


def _as_list(value: Any) -> list:
    if type(value) is not list:
        raise CodecError("a malformed value (expected a list)")
    return value


def _check_int(value: Any) -> int:
    if type(value) is not int or value < 0 or value > 2**62:
        raise CodecError("a malformed size")
    return value


def _shape(value: Any) -> list[int]:
    shape = [_check_int(v) for v in _as_list(value)]
    if len(shape) > 64:
        raise CodecError("an array with too many dimensions")
    return shape


def _numpy_dtype(text: Any) -> np.dtype:
    if not isinstance(text, str) or len(text) > 16 or not re.fullmatch(r"[<>|=][a-zA-Z]\d+", text):
        raise CodecError(f"a numpy dtype the grader does not accept: {text!r}")
    dtype = np.dtype(text)
    if not _numpy_dtype_ok(dtype):
        raise CodecError(f"a numpy dtype the grader does not accept: {text!r}")
    return dtype


# ===================================================================== messages
_FRAME = struct.Struct("!QI")


def pack(header: dict, buffers: list[bytes], limits: CodecLimits = DEFAULT_LIMITS) -> list[bytes]:
    """The frame for one message, as a list of byte strings to send in order."""
    head = json.dumps(
        {"h": header, "b": [len(b) for b in buffers]},
        ensure_ascii=False,
        allow_nan=True,
        separators=(",", ":"),
    ).encode("utf-8", "surrogatepass")
    total = len(head) + sum(len(b) for b in buffers)
    if len(head) > limits.max_header_bytes or total > limits.max_message_bytes:
        raise CodecError(
            f"the message is larger than the {limits.max_message_bytes // 2**20} MiB the grader "
            "accepts"
        )
    return [_FRAME.pack(total, len(head)), head, *buffers]


def unpack(head: bytes, body: memoryview | bytes, limits: CodecLimits = DEFAULT_LIMITS):
    try:
        outer = json.loads(bytes(head).decode("utf-8", "surrogatepass"))
    except (ValueError, RecursionError) as exc:
        raise CodecError(f"a malformed message header ({type(exc).__name__})") from None
    if not isinstance(outer, dict) or not isinstance(outer.get("h"), dict):
        raise CodecError("a malformed message header")
    sizes = outer.get("b")
    if type(sizes) is not list or not all(type(s) is int and s >= 0 for s in sizes):
        raise CodecError("a malformed message header")
    if sum(sizes) != len(body):
        raise CodecError("a message whose buffers do not match its header")
    buffers, offset = [], 0
    for size in sizes:
        buffers.append(bytes(body[offset : offset + size]))
        offset += size
    return outer["h"], buffers


def send_message(
    sock: socket.socket, header: dict, buffers: list[bytes] = (), limits=DEFAULT_LIMITS
):
    for part in pack(header, list(buffers), limits):
        sock.sendall(part)


def _recv_exact(sock: socket.socket, size: int, deadline: float | None) -> memoryview:
    data = bytearray(size)
    view = memoryview(data)
    got = 0
    while got < size:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise MessageTimeout()
            ready, _, _ = select.select([sock], [], [], left)
            if not ready:
                raise MessageTimeout()
        try:
            n = sock.recv_into(view[got:], size - got)
        except InterruptedError:  # pragma: no cover
            continue
        except OSError as exc:
            raise PeerClosed(str(exc)) from None
        if n == 0:
            raise PeerClosed("the other end closed the channel")
        got += n
    return view


def recv_message(
    sock: socket.socket, deadline: float | None = None, limits: CodecLimits = DEFAULT_LIMITS
) -> tuple[dict, list[bytes]]:
    """Receive one message; ``deadline`` is a ``time.monotonic()`` value or None."""
    frame = _recv_exact(sock, _FRAME.size, deadline)
    total, head_size = _FRAME.unpack(frame)
    if total > limits.max_message_bytes or head_size > min(total, limits.max_header_bytes):
        raise CodecError(
            f"a message of {total / 2**20:.0f} MiB, more than the "
            f"{limits.max_message_bytes // 2**20} MiB the grader accepts"
        )
    data = _recv_exact(sock, total, deadline)
    return unpack(data[:head_size], data[head_size:], limits)
