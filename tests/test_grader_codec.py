"""The grader's trust boundary, without a sandbox: the codec, the exceptions rebuilt from
the learner's, the plan that lines a submission up with its lesson, the static scan."""

from __future__ import annotations

import collections
import json
import socket
import threading

import numpy as np
import pytest
import torch
from common import meta, notebook, solutions, source

from transformer_course.build import REPO
from transformer_course.checking import Checker, CheckFailure
from transformer_course.grader import codec, proxy
from transformer_course.grader.lesson import build_spec
from transformer_course.grader.plan import build_plan
from transformer_course.grader.static import scan


def roundtrip(value, **kwargs):
    encoder = codec.Encoder(**kwargs)
    node = encoder.encode(value)
    frame = b"".join(codec.pack({"v": node}, encoder.buffers))
    head_size = int.from_bytes(frame[8:12], "big")
    header, buffers = codec.unpack(frame[12 : 12 + head_size], memoryview(frame)[12 + head_size :])
    return codec.Decoder(buffers).decode(header["v"])


def test_plain_values_round_trip_exactly():
    value = {
        "none": None,
        "bools": [True, False],
        "int": -3,
        "big": 2**100,
        "float": -0.0,
        "nan": float("nan"),
        "inf": float("-inf"),
        "str": "héllo\udcff",
        "bytes": b"\x00\xff",
        "tuple": (1, (2, 3)),
        "set": {1, 2},
        "frozen": frozenset({"a"}),
        "complex": 1 + 2j,
        (1, "key"): "tuple keys",
        3: "int keys",
        "slice": slice(1, None, 2),
        "ellipsis": ...,
        "range": range(2, 9, 3),
    }
    back = roundtrip(value)
    assert back.keys() == value.keys()
    for key in value:
        if key == "nan":
            assert np.isnan(back[key])
        elif key == "float":
            assert str(back[key]) == "-0.0"
        else:
            assert back[key] == value[key] and type(back[key]) is type(value[key]), key


def test_container_classes_aliasing_and_cycles_survive():
    shared = [1, 2]
    cycle: list = [0]
    cycle.append(cycle)
    counter = collections.Counter("abca")
    ordered = collections.OrderedDict([("b", 1), ("a", 2)])
    default = collections.defaultdict(list, {"x": [1]})
    point = collections.namedtuple("Point", "x y")(1, 2)
    back = roundtrip([shared, shared, cycle, counter, ordered, default, point])
    assert back[0] is back[1]
    assert back[2][1] is back[2]
    assert type(back[3]) is collections.Counter and back[3] == counter
    assert type(back[4]) is collections.OrderedDict and list(back[4]) == ["b", "a"]
    assert back[5]["missing"] == [] and back[5]["x"] == [1]
    assert back[6] == (1, 2) and back[6].x == 1 and type(back[6]).__name__ == "Point"


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "complex128", "<U5"])
def test_numpy_arrays_keep_dtype_shape_order_and_values(dtype):
    base = np.arange(24).reshape(2, 3, 4)
    array = base.astype(dtype) if dtype != "bool" else base % 2 == 0
    fortran = np.asfortranarray(array)
    for value in (array, fortran, array[:, ::2], np.zeros((0, 3), dtype=array.dtype)):
        back = roundtrip(value)
        assert type(back) is np.ndarray and back.dtype == value.dtype
        assert back.shape == value.shape and np.array_equal(back, value)
        assert back.flags.writeable
    assert roundtrip(fortran).flags.f_contiguous
    scalar = roundtrip(np.float32(1.5))
    assert type(scalar) is np.float32 and scalar == 1.5


def test_tensors_keep_dtype_strides_and_autograd_flags():
    x = torch.randn(2, 3, 4, dtype=torch.float64)
    view = x.transpose(1, 2)  # non-contiguous: a learner's .view() must fail as in the notebook
    back = roundtrip(view)
    assert back.shape == view.shape and back.stride() == view.stride()
    assert not back.is_contiguous() and torch.equal(back, view)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        back.view(2, 12)
    expanded = torch.ones(3, 1).expand(3, 5)
    assert torch.equal(roundtrip(expanded), expanded)
    leaf = torch.randn(3, requires_grad=True)
    result = leaf * 2
    assert roundtrip(leaf).requires_grad and roundtrip(leaf).grad_fn is None
    assert roundtrip(result).requires_grad and roundtrip(result).grad_fn is not None
    assert isinstance(roundtrip(torch.nn.Parameter(torch.ones(2))), torch.nn.Parameter)
    for dtype in (torch.bfloat16, torch.float16, torch.int8, torch.bool, torch.complex64):
        value = torch.arange(6).reshape(2, 3).to(dtype)
        assert torch.equal(roundtrip(value), value) and roundtrip(value).dtype == dtype
    assert roundtrip(torch.float16) is torch.float16 and roundtrip(torch.Size([2, 3])) == (2, 3)


def test_lying_objects_arrive_as_plain_data_or_inert_stand_ins():
    class LyingArray(np.ndarray):
        def __eq__(self, other):
            return True

    class LyingTensor(torch.Tensor):
        def __eq__(self, other):
            return True

    class Liar:
        def __eq__(self, other):
            return True

    class LyingInt(int):
        def __eq__(self, other):
            return True

    array = roundtrip(np.zeros(3).view(LyingArray))
    assert type(array) is np.ndarray
    tensor = roundtrip(torch.zeros(3).as_subclass(LyingTensor))
    assert type(tensor) is torch.Tensor and not torch.equal(tensor, torch.ones(3))
    number = roundtrip(LyingInt(3))
    assert type(number) is int and number != 4
    liar = roundtrip(Liar())
    assert type(liar).__name__ == "Liar" and isinstance(liar, codec.Unsupported)
    assert liar != 1 and not (liar == liar.__class__)
    with (
        Checker("demo") as c,
        pytest.raises(CheckFailure, match="should be a ndarray, but it is a Liar"),
    ):
        c.expect_type(liar, np.ndarray, "demo(x)")


@pytest.mark.parametrize(
    "node, buffers, why",
    [
        (["A", "<f8", [3], "C", 0, 0], [b"\x00" * 8], "does not match its shape"),
        (["A", "|O8", [1], "C", 0, 0], [b"\x00" * 8], "dtype the grader does not accept"),
        (["A", "<f8", [-1], "C", 0, 0], [b""], "malformed size"),
        (
            ["X", {"dtype": "float32", "shape": [4], "stride": [2], "span": 4}, 0, 0],
            [b"\x00" * 16],
            "reach past",
        ),
        (
            ["X", {"dtype": "qint8", "shape": [1], "stride": [1], "span": 1}, 0, 0],
            [b"\x00"],
            "dtype",
        ),
        (["R", 5], [], "not sent"),
        (["D", [[["L", [], 0], 1]], 1, "dict", None], [], "not hashable"),
        (["H", {"id": 1}], [], "unknown value tag"),
        (["Q"], [], "unknown value tag"),
        ({"not": "a node"}, [], "malformed"),
        (["B", 3], [], "buffer that does not exist"),
    ],
)
def test_malformed_values_are_refused(node, buffers, why):
    with pytest.raises(codec.CodecError, match=why):
        codec.Decoder(buffers).decode(node)


def test_limits_on_size_depth_and_items():
    deep: list = []
    for _ in range(200):
        deep = [deep]
    with pytest.raises(codec.CodecError, match="nested"):
        codec.Encoder().encode(deep)
    nested = 0
    for _ in range(150):
        nested = ["L", [nested], 0]
    with pytest.raises(codec.CodecError, match=r"nested|repeated"):
        codec.Decoder([]).decode(nested)
    small = codec.CodecLimits(max_message_bytes=1000)
    with pytest.raises(codec.CodecError, match="larger than"):
        codec.Encoder(limits=small).encode(np.zeros(1000))
    with pytest.raises(codec.CodecError, match="larger than"):
        codec.pack({"v": "x" * 2000}, [], small)


def _shared_lists():
    a = [0] * 1000
    b = [a] * 1000
    return [b] * 1000  # 3,000 nodes on the wire, a billion items expanded


def _shared_dicts():
    a = {i: i for i in range(1000)}
    b = {i: a for i in range(1000)}
    return {i: b for i in range(1000)}


def _shared_tuples_of_lists():
    a = list(range(1000))
    b = (a,) * 1000  # tuples are sent in full, the list they share by reference
    return [b, b, b, b]


def _shared_tensor():
    t = torch.zeros(100_000)
    return [t] * 1000  # 100 million elements once stacked


def _shared_array_in_dict_keys_and_values():
    a = np.zeros(50_000)
    row = [a] * 100
    return {f"k{i}": row for i in range(100)}


def _shared_set_in_lists():
    s = set(range(10_000))
    inner = [s] * 300
    return [inner] * 300


@pytest.mark.parametrize(
    "make",
    [
        _shared_lists,
        _shared_dicts,
        _shared_tuples_of_lists,
        _shared_tensor,
        _shared_array_in_dict_keys_and_values,
        _shared_set_in_lists,
    ],
)
def test_values_that_share_references_are_counted_expanded_and_refused_fast(make):
    import time

    encoder = codec.Encoder()
    node = encoder.encode(make())
    started = time.monotonic()
    with pytest.raises(codec.CodecError, match="counting every shared reference as a copy"):
        codec.Decoder(encoder.buffers).decode(node)
    assert time.monotonic() - started < 2.0


def test_one_buffer_used_many_times_is_counted_each_time():
    big = b"x" * (8 * 2**20)
    node = ["L", [["B", 0]] * 100, 0]  # a hand-made message: 100 uses of one 8 MiB buffer
    with pytest.raises(codec.CodecError, match="MiB of data"):
        codec.Decoder([big]).decode(node)
    assert len(codec.Decoder([big]).decode(["L", [["B", 0]] * 10, 0])) == 10


def test_large_but_legal_values_still_decode():
    shared = torch.arange(10_000.0)
    honest = {
        "tensor": torch.zeros(1_000, 1_000),  # a million elements
        "distinct": [[i, float(i)] for i in range(100_000)],
        "shared": [shared] * 20,  # the same tensor 20 times: 200,000 elements expanded
        "cycle": None,
    }
    cycle: list = [1]
    cycle.append(cycle)
    honest["cycle"] = cycle
    back = roundtrip(honest)
    assert back["tensor"].shape == (1_000, 1_000)
    assert back["distinct"][-1] == [99_999, 99_999.0]
    assert all(t is back["shared"][0] for t in back["shared"])
    assert torch.equal(back["shared"][0], shared)
    assert back["cycle"][1] is back["cycle"]


def test_messages_over_a_socket_with_a_deadline():
    ours, theirs = socket.socketpair()
    with ours, theirs:
        codec.send_message(theirs, {"op": "x"}, [b"abc"])
        assert codec.recv_message(ours, deadline=None) == ({"op": "x"}, [b"abc"])
        import time

        with pytest.raises(codec.MessageTimeout):
            codec.recv_message(ours, deadline=time.monotonic() + 0.2)
        theirs.sendall((10**12).to_bytes(8, "big") + (5).to_bytes(4, "big"))
        with pytest.raises(codec.CodecError, match="MiB"):
            codec.recv_message(ours, deadline=time.monotonic() + 1)

        def slow_loris():  # half a frame, then silence
            theirs.sendall((100).to_bytes(8, "big"))

        threading.Thread(target=slow_loris).start()
        with pytest.raises(codec.MessageTimeout):
            codec.recv_message(ours, deadline=time.monotonic() + 0.5)


def test_no_pickle_anywhere_in_the_codec():
    import inspect

    text = inspect.getsource(codec)
    assert "pickle" not in text.replace("Nothing is ever unpickled", "")
    assert "loads(" in text and "json.loads" in text  # JSON is the only parser


# ------------------------------------------------------------------------- exceptions
def test_learner_exceptions_become_the_same_kind_with_learner_frames_only():
    frames = [["<ipython-input-12-abc>", 3, "softmax", "return np.exp(x) / s"]]
    stub = proxy.rebuild_exception(
        {
            "type": "NotImplementedError",
            "bases": ["NotImplementedError", "RuntimeError"],
            "message": "",
            "frames": frames,
        }
    )
    assert isinstance(stub, NotImplementedError)
    with pytest.raises(CheckFailure, match="not implemented yet"), Checker("softmax") as c:
        c.call(_raiser(stub), 1)
    error = proxy.rebuild_exception(
        {
            "type": "ValueError",
            "bases": ["ValueError", "Exception"],
            "message": "bad axis",
            "frames": frames,
        }
    )
    with (
        pytest.raises(CheckFailure, match="raised ValueError: bad axis") as caught,
        Checker("s") as c,
    ):
        c.call(_raiser(error), 1)
    assert "<ipython-input-12-abc>" in caught.value.learner_traceback
    assert "return np.exp(x) / s" in caught.value.learner_traceback
    assert "transformer_course/grader" not in caught.value.learner_traceback  # not the grader's
    assert "ValueError: bad axis" in caught.value.learner_traceback.splitlines()[-1]
    key = proxy.rebuild_exception(
        {"type": "KeyError", "bases": ["KeyError", "LookupError"], "message": "'cat'"}
    )
    assert isinstance(key, KeyError) and str(key) == "'cat'"
    custom = proxy.rebuild_exception(
        {"type": "SystemExit", "bases": ["SystemExit"], "message": "3"}
    )
    assert isinstance(custom, Exception) and type(custom).__name__ == "SystemExit"
    garbage = proxy.rebuild_exception({"type": "a b", "bases": 3, "message": None, "frames": "x"})
    assert isinstance(garbage, Exception)


# ------------------------------------------------------------------------------ plans
LESSON = "04_attention"


@pytest.fixture(scope="module")
def spec():
    return build_spec(LESSON, REPO)


def cells(nb_edit=None, answers=None):
    nb = notebook(LESSON)
    for cell in nb["cells"]:
        if answers and meta(cell).get("grade_id") in answers:
            cell["source"] = answers[meta(cell)["grade_id"]]
    if nb_edit:
        nb_edit(nb)
    return nb["cells"]


def checks_of(plan):
    return [step.exercise for step in plan.steps if step.kind == "check"]


def test_plan_checks_every_exercise_where_its_test_cell_is(spec):
    plan = build_plan(cells(), spec)
    assert checks_of(plan) == [ex.name for ex in spec.exercises]
    assert plan.flags == []
    assert all(plan.untouched.values())
    executed = [step.source for step in plan.steps if step.kind == "exec"]
    tests = [source(c) for c in notebook(LESSON)["cells"] if meta(c).get("grade")]
    assert not any(test in executed for test in tests), "a test cell's content must never run"


def test_plan_ignores_test_cell_content_and_points(spec):
    def tamper(nb):
        for cell in nb["cells"]:
            if meta(cell).get("grade"):
                cell["source"] = "import os; os._exit(0)"
                cell["metadata"]["nbgrader"]["points"] = 1000

    plan = build_plan(cells(tamper), spec)
    assert checks_of(plan) == [ex.name for ex in spec.exercises]
    assert not any("os._exit" in step.source for step in plan.steps)


def test_plan_restores_deleted_cells_and_flags_stripped_metadata(spec):
    first = spec.exercises[0].name

    def delete(nb):
        nb["cells"] = [
            c for c in nb["cells"] if meta(c).get("grade_id") not in (f"test_{first}", "setup")
        ]

    plan = build_plan(cells(delete), spec)
    assert sorted(checks_of(plan)) == sorted(ex.name for ex in spec.exercises)
    assert any("test cell of" in flag for flag in plan.flags)
    assert any("'setup'" in flag for flag in plan.flags)
    restored = next(i for i, step in enumerate(plan.steps) if step.role == "locked")
    first_answer = next(i for i, step in enumerate(plan.steps) if step.role == "answer")
    assert plan.steps[restored].index == -1 and restored < first_answer

    def strip(nb):
        for cell in nb["cells"]:
            cell["metadata"] = {}

    plan = build_plan(cells(strip, solutions(LESSON)), spec)
    assert checks_of(plan) == [ex.name for ex in spec.exercises]
    assert any("lost their nbgrader metadata" in flag for flag in plan.flags)
    assert {step.exercise for step in plan.steps if step.role == "answer"} >= {
        ex.name for ex in spec.exercises if ex.kind != "quiz"
    }


def test_plan_runs_the_instructors_locked_cells(spec):
    def rewrite_setup(nb):
        for cell in nb["cells"]:
            if meta(cell).get("grade_id") == "setup":
                cell["source"] = "check_softmax = lambda *a, **k: None"

    plan = build_plan(cells(rewrite_setup), spec)
    setup = next(step for step in plan.steps if step.role == "locked")
    assert "lambda" not in setup.source and "import" in setup.source


def test_static_scan_resolves_aliases_and_flags_dynamic_code(spec):
    forbidden = next(ex for ex in spec.exercises if ex.forbidden)
    dotted = forbidden.forbidden[0]
    module, _, name = dotted.rpartition(".")
    answer = (
        f"import {module} as M\nfrom {module} import {name} as hidden\n"
        f"def {forbidden.name}(*args, **kwargs):\n    return M.{name}, hidden\n"
        "exec('1')\nimport ctypes\n"
    )
    plan = build_plan(cells(answers={forbidden.name: answer}), spec)
    findings = scan(plan, spec)
    kinds = {(f.kind, f.what) for f in findings}
    assert ("forbidden", dotted) in kinds
    assert ("dynamic", "exec()") in kinds and ("dynamic", "import ctypes") in kinds
    honest = scan(build_plan(cells(answers=solutions(LESSON)), spec), spec)
    assert [f for f in honest if f.kind in ("dynamic", "checks")] == []


def test_lesson_spec_holds_no_hidden_tests_nor_solutions(spec):
    text = json.dumps(spec.to_dict())
    assert "BEGIN HIDDEN TESTS" not in text and "hidden=True" not in text
    assert "### BEGIN SOLUTION" not in text
    assert spec.guarded["module"] == f"transformer_course.reference.{spec.topic}"
    assert f"transformer_course.reference.{spec.topic}" not in spec.modules
    blocks = spec.guarded["blocks"]
    assert set(blocks) <= {ex.name for ex in spec.exercises}
    for name, block in blocks.items():
        assert f"def {name}" in block or f"class {name}" in block
        assert f"def {name}(" not in spec.guarded["base"]


def _raiser(exc):
    def learner_function(x):
        raise exc

    return learner_function
