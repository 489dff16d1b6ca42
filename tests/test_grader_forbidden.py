"""Forbidden APIs (issue 14 §2): every forbidden API of the registry has its whole family of
aliases, each alias exists in the installed torch and computes what the family computes
(run here, not assumed), and the grader's own parse proves a call of one in an exercise's
own answer cell (that exercise scores 0) while mentions, helpers in other cells and computed
names stay flagged for a human, and honest code is never touched.

The static tests read the real lessons' notebooks (no sandbox); the end-to-end ones grade
through the real pipeline.
"""

from __future__ import annotations

import fnmatch
import importlib.util
import json
import warnings

import pytest
import torch
from common import solutions, submission

from transformer_course import api_families, registry
from transformer_course.build import REPO
from transformer_course.grader import policies, static
from transformer_course.grader.lesson import build_spec
from transformer_course.grader.plan import build_plan
from transformer_course.grader.results import ExerciseResult, SubmissionResult

_SPECS: dict = {}


def spec_of(lesson: str):
    return _SPECS.get(lesson) or _SPECS.setdefault(lesson, build_spec(lesson, REPO))


def findings(lesson: str, answers: dict[str, str], **cells) -> list[static.Finding]:
    spec = spec_of(lesson)
    data = submission(lesson, dict(solutions(lesson), **answers), **cells)
    return static.scan(build_plan(json.loads(data)["cells"], spec), spec)


def proven(found: list[static.Finding], exercise: str) -> list[str]:
    return [f.what for f in found if f.kind == "forbidden" and f.proven and f.exercise == exercise]


# ------------------------------------------------------------------ the registry's APIs
def test_every_forbidden_api_of_the_registry_has_a_family():
    forbidden = {name for ex in registry.all_exercises() for name in ex.forbidden}
    assert forbidden, "no exercise forbids anything"
    assert {name: static.family_of(name) for name in forbidden if not static.family_of(name)} == {}


def test_the_apis_issue_16_forbids_in_lessons_11_and_12():
    by_name = {ex.name: ex for ex in registry.all_exercises()}
    assert "torch.nn.RMSNorm" in by_name["RMSNorm"].forbidden
    sdpa = "torch.nn.functional.scaled_dot_product_attention"
    for name in ("CausalSelfAttention", "grouped_query_attention", "tiled_attention"):
        assert sdpa in by_name[name].forbidden, name
    # the family covers every spelling, and the library's GQA (enable_gqa) is the same API
    assert "torch.ops.aten.*scaled_dot_product*" in static.expand_forbidden((sdpa,))
    # sampling may use the library's sampler
    assert by_name["sample"].forbidden == ()
    assert static.family_of("torch.multinomial") is None


# ----------------------------------------------- every alias exists and computes the same
def _generator() -> torch.Generator:
    return torch.Generator().manual_seed(14)


def _x() -> torch.Tensor:
    return torch.randn(2, 5, generator=_generator(), dtype=torch.float64)


def _qkv() -> torch.Tensor:
    return torch.randn(1, 2, 4, 8, generator=_generator())


def _norm_input() -> torch.Tensor:
    return torch.randn(2, 3, 8, generator=_generator())


def _ids() -> torch.Tensor:
    return torch.randint(0, 5, (2, 3), generator=_generator())


def _pair() -> tuple[torch.Tensor, torch.Tensor]:
    both = torch.randn(2, 3, 4, generator=_generator())
    return both[0], both[1]


def _logits_target() -> tuple[torch.Tensor, torch.Tensor]:
    return torch.randn(4, 5, generator=_generator()), torch.tensor([0, 3, 1, 4])


def _attention_by_hand(q, k, v):
    weights = torch.exp(q @ k.transpose(-2, -1) / 8**0.5)
    return (weights / weights.sum(-1, keepdim=True)) @ v


def _layer_norm_by_hand(x):
    mean = x.mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(x.var(-1, unbiased=False, keepdim=True) + 1e-5)


def _mha_weights(embed: int = 8):
    g = _generator()
    return torch.randn(3 * embed, embed, generator=g) / 3, torch.randn(embed, embed, generator=g)


def _mha_module(cls):
    in_weight, out_weight = _mha_weights()
    module = cls(8, 2, batch_first=True, bias=False)
    with torch.no_grad():
        module.in_proj_weight.copy_(in_weight)
        module.out_proj.weight.copy_(out_weight)
    return module.eval()


def _mha_input() -> torch.Tensor:
    return torch.randn(1, 4, 8, generator=_generator())


def _mha_functional(f):
    x = _mha_input().transpose(0, 1)  # (len, batch, embed)
    in_weight, out_weight = _mha_weights()
    out, _ = f(x, x, x, 8, 2, in_weight, None, None, None, False, 0.0, out_weight, None)
    return out.transpose(0, 1)


def _mha_native(f):
    x = _mha_input()
    in_weight, out_weight = _mha_weights()
    zeros = torch.zeros(24), torch.zeros(8)
    return f(x, x, x, 8, 2, in_weight, zeros[0], out_weight, zeros[1], None, False)[0]


def _encoder_layer():
    torch.manual_seed(3)
    return torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True).eval()


def _encoder_layer_native(f):
    layer = _encoder_layer()
    attention, norm1, norm2 = layer.self_attn, layer.norm1, layer.norm2
    return f(
        _mha_input(),
        8,
        2,
        attention.in_proj_weight,
        attention.in_proj_bias,
        attention.out_proj.weight,
        attention.out_proj.bias,
        False,
        False,
        1e-5,
        norm1.weight,
        norm1.bias,
        norm2.weight,
        norm2.bias,
        layer.linear1.weight,
        layer.linear1.bias,
        layer.linear2.weight,
        layer.linear2.bias,
    )


def _decoder_layer(cls):
    """A decoder layer with the encoder layer's weights and a cross-attention that adds
    nothing: it computes the encoder layer (its extra LayerNorm of a normalised input is
    the identity to 1e-5)."""
    encoder = _encoder_layer()
    decoder = cls(8, 2, 16, dropout=0.0, batch_first=True)
    state = {k: v for k, v in encoder.state_dict().items() if not k.startswith("norm2")}
    state.update(
        {
            k.replace("norm2", "norm3"): v
            for k, v in encoder.state_dict().items()
            if k.startswith("norm2")
        }
    )
    decoder.load_state_dict(state, strict=False)
    with torch.no_grad():
        decoder.multihead_attn.out_proj.weight.zero_()
        decoder.multihead_attn.out_proj.bias.zero_()
    return decoder.eval()


def _transformer_encoder_without_final_norm(cls):
    model = cls(8, 2, 1, 1, 16, dropout=0.0, batch_first=True)
    model.encoder.layers[0].load_state_dict(_encoder_layer().state_dict())
    with torch.no_grad():  # the encoder's final LayerNorm, undone by its inverse affine
        out = model.eval().encoder(_mha_input())
    layer_out = _encoder_layer()(_mha_input())
    mean = layer_out.mean(-1, keepdim=True)
    std = torch.sqrt(layer_out.var(-1, unbiased=False, keepdim=True) + 1e-5)
    return out * std + mean


def _embedding_bag_input():
    ids = _ids().flatten()
    return torch.eye(5), ids, torch.arange(ids.numel())


def _eye_rows(out: torch.Tensor) -> torch.Tensor:
    return out.reshape(2, 3, 5)


def _cross_entropy_by_hand(logits, target):
    return -torch.log_softmax(logits, -1).gather(-1, target[:, None]).mean()


def _attention_silently(f):
    q = _qkv()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(q, q * 0.5, q + 1)


EXPECTED = {  # what each family computes, written by hand
    "softmax": lambda: torch.exp(_x()) / torch.exp(_x()).sum(-1, keepdim=True),
    "attention": lambda: _attention_by_hand(_qkv(), _qkv() * 0.5, _qkv() + 1),
    "multi_head_attention": lambda: _mha_module(torch.nn.MultiheadAttention)(
        _mha_input(), _mha_input(), _mha_input(), need_weights=False
    )[0],
    "transformer": lambda: _encoder_layer()(_mha_input()),
    "layer_norm": lambda: _layer_norm_by_hand(_norm_input()),
    "group_norm": lambda: _layer_norm_by_hand(_norm_input()).reshape(6, 8),
    "rms_norm": lambda: (
        _norm_input() / torch.sqrt((_norm_input() ** 2).mean(-1, keepdim=True) + 1e-6)
    ),
    "one_hot": lambda: torch.eye(5, dtype=torch.int64)[_ids()],
    "embedding": lambda: torch.eye(5)[_ids()],
    "cosine_similarity": lambda: (
        (_pair()[0] * _pair()[1]).sum(-1) / (_pair()[0].norm(dim=-1) * _pair()[1].norm(dim=-1))
    ),
    "cross_entropy": lambda: _cross_entropy_by_hand(*_logits_target()),
}

_SDPA_ARGS = lambda f: _attention_silently(f)  # noqa: E731
_EMB = _embedding_bag_input
RUNS = {  # family -> (an alias, or a name a pattern of the family matches, how to run it)
    "softmax": [
        ("torch.softmax", lambda f: f(_x(), -1)),
        ("torch.nn.functional.softmax", lambda f: f(_x(), dim=-1)),
        ("torch.special.softmax", lambda f: f(_x(), -1)),
        ("torch.Tensor.softmax", lambda f: f(_x(), -1)),
        ("torch._softmax", lambda f: f(_x(), -1, False)),
        ("torch._safe_softmax", lambda f: f(_x(), -1)),
        ("torch._masked_softmax", lambda f: f(_x(), torch.zeros(2, 5, dtype=torch.bool), -1)),
        ("torch.ops.aten.softmax", lambda f: f(_x(), -1)),
        ("torch.ops.aten._softmax", lambda f: f(_x(), -1, False)),
        ("torch.nn.Softmax", lambda f: f(dim=-1)(_x())),
        ("torch.nn.modules.activation.Softmax", lambda f: f(dim=-1)(_x())),
        ("torch.nn.Softmax2d", lambda f: f()(_x().T.reshape(5, 2, 1)).reshape(5, 2).T),
        ("torch.log_softmax", lambda f: f(_x(), -1).exp()),
        ("torch.nn.functional.log_softmax", lambda f: f(_x(), dim=-1).exp()),
        ("torch.special.log_softmax", lambda f: f(_x(), -1).exp()),
        ("torch.Tensor.log_softmax", lambda f: f(_x(), -1).exp()),
        ("torch._log_softmax", lambda f: f(_x(), -1, False).exp()),
        ("torch.nn.LogSoftmax", lambda f: f(dim=-1)(_x()).exp()),
        ("torch.nn.functional.softmin", lambda f: f(-_x(), dim=-1)),
        ("torch.nn.Softmin", lambda f: f(dim=-1)(-_x())),
    ],
    "attention": [
        ("torch.nn.functional.scaled_dot_product_attention", _SDPA_ARGS),
        ("torch._C._nn.scaled_dot_product_attention", _SDPA_ARGS),
        ("torch.ops.aten.scaled_dot_product_attention", _SDPA_ARGS),
        ("torch._scaled_dot_product_attention_math", lambda f: _attention_silently(f)[0]),
        (
            "torch._scaled_dot_product_flash_attention_for_cpu",
            lambda f: _attention_silently(f)[0],
        ),
        ("torch.nn.attention.flex_attention.flex_attention", _SDPA_ARGS),
    ],
    "multi_head_attention": [
        (
            "torch.nn.MultiheadAttention",
            lambda f: _mha_module(f)(_mha_input(), _mha_input(), _mha_input())[0],
        ),
        (
            "torch.nn.modules.activation.MultiheadAttention",
            lambda f: _mha_module(f)(_mha_input(), _mha_input(), _mha_input())[0],
        ),
        ("torch.nn.functional.multi_head_attention_forward", _mha_functional),
        ("torch._native_multi_head_attention", _mha_native),
        ("torch.ops.aten._native_multi_head_attention", _mha_native),
    ],
    "transformer": [
        ("torch.nn.TransformerEncoderLayer", lambda f: _encoder_layer()(_mha_input())),
        (
            "torch.nn.TransformerEncoder",
            lambda f: f(_encoder_layer(), 1, enable_nested_tensor=False).eval()(_mha_input()),
        ),
        ("torch._transformer_encoder_layer_fwd", _encoder_layer_native),
        ("torch.ops.aten._transformer_encoder_layer_fwd", _encoder_layer_native),
        (
            "torch.nn.TransformerDecoderLayer",
            lambda f: _decoder_layer(f)(_mha_input(), _mha_input()),
        ),
        (
            "torch.nn.TransformerDecoder",
            lambda f: f(_decoder_layer(torch.nn.TransformerDecoderLayer), 1).eval()(
                _mha_input(), _mha_input()
            ),
        ),
        ("torch.nn.Transformer", _transformer_encoder_without_final_norm),
    ],
    "layer_norm": [
        ("torch.nn.LayerNorm", lambda f: f(8)(_norm_input())),
        ("torch.nn.modules.normalization.LayerNorm", lambda f: f(8)(_norm_input())),
        ("torch.nn.functional.layer_norm", lambda f: f(_norm_input(), (8,))),
        ("torch.layer_norm", lambda f: f(_norm_input(), (8,))),
        ("torch.native_layer_norm", lambda f: f(_norm_input(), (8,), None, None, 1e-5)[0]),
        ("torch.ops.aten.layer_norm", lambda f: f(_norm_input(), (8,))),
        ("torch.ops.aten.native_layer_norm", lambda f: f(_norm_input(), [8], None, None, 1e-5)[0]),
    ],
    "group_norm": [  # one group over (N, C): a LayerNorm over C
        ("torch.nn.GroupNorm", lambda f: f(1, 8)(_norm_input().reshape(6, 8))),
        ("torch.nn.functional.group_norm", lambda f: f(_norm_input().reshape(6, 8), 1)),
        ("torch.group_norm", lambda f: f(_norm_input().reshape(6, 8), 1)),
        (
            "torch.native_group_norm",
            lambda f: f(_norm_input().reshape(6, 8), None, None, 6, 8, 1, 1, 1e-5)[0],
        ),
        (
            "torch.ops.aten.native_group_norm",
            lambda f: f(_norm_input().reshape(6, 8), None, None, 6, 8, 1, 1, 1e-5)[0],
        ),
    ],
    "rms_norm": [
        ("torch.nn.RMSNorm", lambda f: f(8, eps=1e-6)(_norm_input())),
        ("torch.nn.modules.normalization.RMSNorm", lambda f: f(8, eps=1e-6)(_norm_input())),
        ("torch.nn.functional.rms_norm", lambda f: f(_norm_input(), (8,), eps=1e-6)),
        ("torch.rms_norm", lambda f: f(_norm_input(), (8,), None, 1e-6)),
        ("torch._fused_rms_norm", lambda f: f(_norm_input(), [8], None, 1e-6)[0]),
        ("torch.ops.aten.rms_norm", lambda f: f(_norm_input(), [8], None, 1e-6)),
    ],
    "one_hot": [
        ("torch.nn.functional.one_hot", lambda f: f(_ids(), 5)),
        ("torch._C._nn.one_hot", lambda f: f(_ids(), 5)),
        ("torch.ops.aten.one_hot", lambda f: f(_ids(), 5)),
    ],
    "embedding": [
        ("torch.nn.functional.embedding", lambda f: f(_ids(), torch.eye(5))),
        ("torch.embedding", lambda f: f(torch.eye(5), _ids())),
        ("torch.nn.Embedding", lambda f: f.from_pretrained(torch.eye(5))(_ids())),
        ("torch.nn.modules.sparse.Embedding", lambda f: f.from_pretrained(torch.eye(5))(_ids())),
        ("torch.ops.aten.embedding", lambda f: f(torch.eye(5), _ids())),
        (
            "torch.nn.functional.embedding_bag",
            lambda f: _eye_rows(f(_EMB()[1], _EMB()[0], _EMB()[2], mode="sum")),
        ),
        ("torch.embedding_bag", lambda f: _eye_rows(f(*_EMB())[0])),
        ("torch._embedding_bag", lambda f: _eye_rows(f(*_EMB())[0])),
        (
            "torch.nn.EmbeddingBag",
            lambda f: _eye_rows(f.from_pretrained(_EMB()[0], mode="sum")(_EMB()[1], _EMB()[2])),
        ),
        ("torch.ops.aten._embedding_bag", lambda f: _eye_rows(f(*_EMB())[0])),
    ],
    "cosine_similarity": [
        ("torch.nn.functional.cosine_similarity", lambda f: f(*_pair(), dim=-1)),
        ("torch.cosine_similarity", lambda f: f(*_pair(), -1)),
        ("torch.nn.CosineSimilarity", lambda f: f(dim=-1)(*_pair())),
        ("torch.nn.modules.distance.CosineSimilarity", lambda f: f(dim=-1)(*_pair())),
        ("torch.ops.aten.cosine_similarity", lambda f: f(*_pair(), -1)),
    ],
    "cross_entropy": [
        ("torch.nn.functional.cross_entropy", lambda f: f(*_logits_target())),
        ("torch.nn.CrossEntropyLoss", lambda f: f()(*_logits_target())),
        ("torch.nn.modules.loss.CrossEntropyLoss", lambda f: f()(*_logits_target())),
        ("torch._C._nn.cross_entropy_loss", lambda f: f(*_logits_target(), None, 1)),
        ("torch.ops.aten.cross_entropy_loss", lambda f: f(*_logits_target(), None, 1)),
    ],
}
WIDER_RUNS = {  # (narrower, wider) -> the wider API set up to compute the narrower result
    ("softmax", "attention"): (
        "torch.nn.functional.scaled_dot_product_attention",
        lambda f: f(
            _x()[None],
            torch.eye(5, dtype=torch.float64)[None],
            torch.eye(5, dtype=torch.float64)[None],
            scale=1.0,
        )[0],
    ),
    ("attention", "multi_head_attention"): (
        "torch.nn.functional.multi_head_attention_forward",
        lambda f: f(
            *(
                t[0].transpose(0, 1)
                for t in (_qkv()[:, :1], _qkv()[:, :1] * 0.5, _qkv()[:, :1] + 1)
            ),
            8,
            1,
            None,
            None,
            None,
            None,
            False,
            0.0,
            torch.eye(8),
            None,
            use_separate_proj_weight=True,
            q_proj_weight=torch.eye(8),
            k_proj_weight=torch.eye(8),
            v_proj_weight=torch.eye(8),
            need_weights=False,
        )[0].transpose(0, 1)[None],
    ),
    ("multi_head_attention", "transformer"): (
        "torch.nn.TransformerEncoderLayer",
        lambda f: _mha_module(lambda *a, **k: f(8, 2, batch_first=True, bias=False).self_attn)(
            _mha_input(), _mha_input(), _mha_input()
        )[0],
    ),
    ("layer_norm", "group_norm"): (
        "torch.nn.functional.group_norm",
        lambda f: f(_norm_input().reshape(6, 8), 1).reshape(2, 3, 8),
    ),
    ("layer_norm", "transformer"): (
        "torch.nn.TransformerEncoderLayer",
        lambda f: f(8, 2).norm1(_norm_input()),
    ),
    ("one_hot", "embedding"): (
        "torch.nn.functional.embedding",
        lambda f: f(_ids(), torch.eye(5, dtype=torch.float64)).long(),
    ),
}


def _expected(family: str) -> torch.Tensor:
    return EXPECTED[family]()


@pytest.mark.parametrize("family", sorted(api_families.FAMILIES))
def test_every_member_of_a_family_exists_and_computes_what_the_family_computes(family):
    runs = dict(RUNS[family])
    for member in api_families.FAMILIES[family]:
        if member.startswith("scipy."):  # not in the course's environment: see below
            continue
        covered = [name for name in runs if name == member or fnmatch.fnmatchcase(name, member)]
        assert covered, f"{member} is never run here"
    expected = _expected(family)
    for name, run in runs.items():
        assert static.family_of(name) == family, name
        target = static._resolve(name)
        assert target is not None, f"{name} does not exist in torch {torch.__version__}"
        got = run(target)
        assert isinstance(got, torch.Tensor), name
        torch.testing.assert_close(
            got.to(expected.dtype),
            expected,
            rtol=1e-4,
            atol=1e-5,
            msg=lambda m, name=name: f"{name}: {m}",
        )


@pytest.mark.parametrize("pair", sorted(WIDER_RUNS), ids="-in-".join)
def test_a_wider_family_computes_the_narrower_one(pair):
    narrow, wide = pair
    assert wide in api_families.WIDER[narrow]
    name, run = WIDER_RUNS[pair]
    assert static.family_of(name) == wide
    got = run(static._resolve(name))
    expected = _expected(narrow)
    if narrow == "attention":  # one head of the attention: multi-head attention with one head
        expected = expected[:, :1]
    torch.testing.assert_close(got.to(expected.dtype), expected, rtol=1e-4, atol=1e-5)
    assert all(
        m in static.expand_forbidden((api_families.FAMILIES[narrow][0],))
        for m in api_families.FAMILIES[wide]
    )


def test_every_wider_relation_is_demonstrated():
    assert {(n, w) for n, ws in api_families.WIDER.items() for w in ws} == set(WIDER_RUNS)


def test_scipy_members_name_what_scipy_documents():
    """SciPy is not part of the course's environment (so no learner code can import it in
    the sandbox); its softmax stays in the family for an environment that adds it, and the
    static proof knows it by name alone."""
    assert importlib.util.find_spec("scipy") is None
    members = [m for m in api_families.FAMILIES["softmax"] if m.startswith("scipy.")]
    assert members == ["scipy.special.softmax", "scipy.special.log_softmax"]
    found = findings(
        "04_attention",
        {
            "softmax": "from scipy.special import softmax as sm\ndef softmax(x, axis=-1):\n    return sm(x, axis=axis)"
        },
    )
    assert proven(found, "softmax") == ["scipy.special.softmax"]


# ------------------------------------------------ what the grader's own parse proves
def judge(lesson: str, answers: dict[str, str], **cells) -> tuple[dict, list[str]]:
    """Scores and flags from the static evidence alone, as if every check had passed."""
    spec = spec_of(lesson)
    data = submission(lesson, dict(solutions(lesson), **answers), **cells)
    plan = build_plan(json.loads(data)["cells"], spec)
    result = SubmissionResult("s", lesson)
    result.exercises = [
        ExerciseResult(e.name, e.points, e.points, "passed") for e in spec.exercises
    ]
    evidence = policies.Evidence(spec, plan, static.scan(plan, spec), [], [])
    policies.apply_policies(evidence, result)
    return {e.name: e for e in result.exercises}, result.flags


def cell(*lines: str) -> str:
    return "\n".join(lines)


T = "torch.as_tensor(x)"
PROVEN = {  # (lesson, exercise, answer cell): each calls a family member the grader resolves
    "softmax-direct": (
        "04_attention",
        "softmax",
        cell(
            "import torch",
            "def softmax(x, axis=-1):",
            f"    return torch.softmax({T}, axis).numpy()",
        ),
    ),
    "softmax-functional-alias": (
        "04_attention",
        "softmax",
        cell(
            "import torch",
            "import torch.nn.functional as F",
            "def softmax(x, axis=-1):",
            f"    return F.softmax({T}, dim=axis).numpy()",
        ),
    ),
    "softmax-assigned-alias": (
        "04_attention",
        "softmax",
        cell(
            "import torch",
            "_sm = torch.special.softmax",
            "def softmax(x, axis=-1):",
            f"    return _sm({T}, axis).numpy()",
        ),
    ),
    "softmax-lambda": (
        "04_attention",
        "softmax",
        cell(
            "import torch",
            f"softmax = lambda x, axis=-1: torch.log_softmax({T}, axis).exp().numpy()",
        ),
    ),
    "softmax-helper-same-cell": (
        "04_attention",
        "softmax",
        cell(
            "import torch",
            "def _h(x, a):",
            f"    return torch.nn.Softmax(a)({T}).numpy()",
            "def softmax(x, axis=-1):",
            "    return _h(x, axis)",
        ),
    ),
    "softmax-getattr-constant": (
        "04_attention",
        "softmax",
        cell(
            "import torch",
            "def softmax(x, axis=-1):",
            f"    return getattr(torch, 'softmax')({T}, axis).numpy()",
        ),
    ),
    "softmax-vars-constant": (
        "04_attention",
        "softmax",
        cell(
            "import torch",
            "import torch.nn.functional as F",
            "def softmax(x, axis=-1):",
            f"    return vars(F)['softmax']({T}, axis).numpy()",
        ),
    ),
    "softmax-local-import-aten": (
        "04_attention",
        "softmax",
        cell(
            "def softmax(x, axis=-1):",
            "    import torch",
            f"    return torch.ops.aten._softmax({T}, axis, False).numpy()",
        ),
    ),
    "softmax-through-attention": (
        "04_attention",
        "softmax",
        cell(
            "import torch",
            "from torch.nn.functional import scaled_dot_product_attention as attend",
            "def softmax(x, axis=-1):",
            f"    eye = torch.eye({T}.shape[-1], dtype=torch.float64)",
            f"    return attend({T}[None], eye[None], eye[None], scale=1.0)[0].numpy()",
        ),
    ),
    "softmax-subclass": (
        "04_attention",
        "softmax",
        cell("import torch", "class softmax(torch.nn.Softmax):", "    pass"),
    ),
    "sdpa-C": (
        "04_attention",
        "scaled_dot_product_attention",
        cell(
            "import torch",
            "def scaled_dot_product_attention(q, k, v, mask=None):",
            "    return torch._C._nn.scaled_dot_product_attention(q, k, v, mask), None",
        ),
    ),
    "one_hot-C": (
        "02_embeddings",
        "one_hot",
        cell(
            "import torch",
            "def one_hot(ids, vocab_size):",
            "    return torch._C._nn.one_hot(torch.as_tensor(ids), vocab_size).numpy()",
        ),
    ),
    "one_hot-embedding": (
        "02_embeddings",
        "one_hot",
        cell(
            "import numpy as np",
            "import torch",
            "import torch.nn.functional as F",
            "def one_hot(ids, vocab_size):",
            "    return F.embedding(torch.as_tensor(ids), torch.eye(vocab_size)).numpy()",
        ),
    ),
    "cosine-torch": (
        "02_embeddings",
        "cosine_similarity",
        cell(
            "import torch",
            "def cosine_similarity(a, b):",
            "    a, b = torch.as_tensor(a), torch.as_tensor(b)",
            "    return torch.cosine_similarity(a[:, None], b[None], -1).numpy()",
        ),
    ),
    "layer_norm-native": (
        "07_encoder",
        "LayerNorm",
        cell(
            "import torch",
            "from torch import nn",
            "class LayerNorm(nn.Module):",
            "    def __init__(self, d_model, eps=1e-6):",
            "        super().__init__()",
            "        self.gamma = nn.Parameter(torch.ones(d_model))",
            "        self.beta = nn.Parameter(torch.zeros(d_model))",
            "        self.eps = eps",
            "    def forward(self, x):",
            "        return torch.native_layer_norm(x, x.shape[-1:], self.gamma, self.beta, self.eps)[0]",
        ),
    ),
    "layer_norm-subclass": (
        "07_encoder",
        "LayerNorm",
        cell("from torch import nn", "class LayerNorm(nn.LayerNorm):", "    pass"),
    ),
    "layer_norm-group_norm": (
        "07_encoder",
        "LayerNorm",
        cell(
            "import torch",
            "import torch.nn.functional as F",
            "class LayerNorm(torch.nn.Module):",
            "    def forward(self, x):",
            "        return F.group_norm(x.reshape(-1, x.shape[-1]), 1).reshape(x.shape)",
        ),
    ),
    "rms_norm-torch": (
        "11_language_model",
        "RMSNorm",
        cell(
            "import torch",
            "class RMSNorm(torch.nn.Module):",
            "    def forward(self, x):",
            "        return torch.rms_norm(x, x.shape[-1:], None, 1e-6)",
        ),
    ),
    "a-star-import-of-a-known-library-elsewhere": (
        "04_attention",
        "softmax",
        cell(
            "from numpy import *",
            "import torch",
            "def softmax(x, axis=-1):",
            f"    return torch.softmax({T}, axis).numpy()",
        ),
    ),
    "gqa-enable_gqa": (
        "12_inference",
        "grouped_query_attention",
        cell(
            "import torch.nn.functional as F",
            "def grouped_query_attention(q, k, v, mask=None):",
            "    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)",
        ),
    ),
}
NOT_PROVEN = {  # (lesson, exercise, answer cell, what the flag names)
    "parameter-shadows-the-module": (
        "04_attention",
        "softmax",
        cell(
            "import torch",
            "def softmax(x, axis=-1, torch=torch):",
            f"    return torch.softmax({T}, axis).numpy()",
        ),
        "torch.softmax",
    ),
    "computed-name": (
        "04_attention",
        "softmax",
        cell(
            "import torch",
            "def softmax(x, axis=-1):",
            f"    return getattr(torch, 'soft' + 'max')({T}, axis).numpy()",
        ),
        "<computed name>",
    ),
    "importlib": (
        "04_attention",
        "softmax",
        cell(
            "import importlib",
            "def softmax(x, axis=-1):",
            "    torch = importlib.import_module('torch')",
            f"    return torch.softmax({T}, axis).numpy()",
        ),
        "importlib",
    ),
    "a-tensor-method": (
        "04_attention",
        "softmax",
        cell("import torch", "def softmax(x, axis=-1):", f"    return {T}.softmax(axis).numpy()"),
        "<tensor>.softmax",
    ),
    "a-star-import-that-may-bind-anything": (
        "04_attention",
        "softmax",
        cell(
            "from os import *",
            "import torch",
            "def softmax(x, axis=-1):",
            f"    return torch.softmax({T}, axis).numpy()",
        ),
        "from os import *",
    ),
    "a-module-rebound-in-another-cell": (
        "04_attention",
        "softmax",
        cell(
            "import torch",
            "def softmax(x, axis=-1):",
            f"    return torch.softmax({T}, axis).numpy()",
            "def _later():",
            "    global torch",
            "    torch = None",
        ),
        "torch.softmax",
    ),
}


@pytest.mark.parametrize("case", sorted(PROVEN))
def test_a_proven_call_in_the_exercises_own_cell_scores_0_with_the_reason(case):
    lesson, exercise, answer = PROVEN[case]
    outcomes, flags = judge(lesson, {exercise: answer})
    outcome = outcomes[exercise]
    assert outcome.score == 0 and outcome.status == "forbidden", (outcome, flags)
    assert "which this exercise asks you to build yourself" in outcome.message
    assert "cell " in outcome.message and "line " in outcome.message, outcome.message
    others = [e for e in outcomes.values() if e.name != exercise]
    assert all(e.score == e.points for e in others), [(e.name, e.message) for e in others]


@pytest.mark.parametrize("case", sorted(NOT_PROVEN))
def test_what_cannot_be_proven_is_flagged_for_a_human_never_scored(case):
    lesson, exercise, answer, named = NOT_PROVEN[case]
    outcomes, flags = judge(lesson, {exercise: answer})
    assert all(e.score == e.points for e in outcomes.values()), outcomes[exercise].message
    assert any(named in flag for flag in flags), flags


def test_a_helper_in_another_cell_is_flagged_not_scored():
    helper = cell(
        "import torch", "def _normalise(x, axis):", f"    return torch.softmax({T}, axis)"
    )
    answer = cell("def softmax(x, axis=-1):", "    return _normalise(x, axis).numpy()")
    outcomes, flags = judge("04_attention", {"softmax": answer}, before={"softmax": helper})
    assert outcomes["softmax"].score == outcomes["softmax"].points
    assert any(
        f.startswith("softmax:") and "torch.softmax (in _normalise, which it uses)" in f
        for f in flags
    ), flags


HONEST = {  # must neither zero nor flag anything
    "comments-and-strings": (
        "04_attention",
        "softmax",
        lambda s: (
            "# not torch.softmax(x): that would be the library's\n"
            + s
            + "\n_NOTE = 'torch.nn.functional.softmax(x) is what PyTorch calls it'\n"
        ),
    ),
    "allowed-api-in-its-own-exercise": (
        "04_attention",
        "scaled_dot_product_attention",
        lambda s: s,  # the solution calls torch.softmax, which attention allows
    ),
    "the-same-name-defined-by-the-learner": (
        "04_attention",
        "softmax",
        lambda s: "import torch\n" + s + "\n\n\ndef _use():\n    return softmax(torch.zeros(2))\n",
    ),
}


HONEST.update(
    {  # constructs adapter code uses honestly (issue 22): no flag
        "getattr-computed-on-torch-nn": (
            "04_attention",
            "softmax",
            lambda s: (
                s
                + cell(
                    "",
                    "from torch import nn",
                    "_ACTIVATION = 'ReLU'",
                    "def _activation():",
                    "    return getattr(nn, _ACTIVATION)()",
                )
            ),
        ),
        "setattr-and-getattr-on-its-own-objects": (
            "04_attention",
            "softmax",
            lambda s: (
                s
                + cell(
                    "",
                    "class _Holder:",
                    "    def __init__(self, names):",
                    "        for n in names:",
                    "            setattr(self, n, len(n))",
                    "    def get(self, n):",
                    "        return getattr(self, n)",
                )
            ),
        ),
        "import-inspect-for-a-signature": (
            "04_attention",
            "softmax",
            lambda s: (
                s
                + cell(
                    "",
                    "import inspect",
                    "_PARAMETERS = list(inspect.signature(softmax).parameters)",
                )
            ),
        ),
    }
)
FLAGGED_WITH_WHAT_TO_LOOK_AT = {  # (answer addition, what the flag tells a human to look at)
    "setattr-on-the-library": (
        cell("", "import torch.nn.functional as F", "setattr(F, 'gelu', lambda x: x)"),
        "setattr(torch.nn.functional, ...) (look at what it replaces",
    ),
    "getattr-computed-on-torch": (
        cell("", "import torch", "_op = getattr(torch, '_soft' + 'max')"),
        "getattr(torch, <computed name>) (look at the name it builds; it can reach torch.",
    ),
    "the-caller-s-frame": (
        cell("", "import inspect", "_frame = inspect.currentframe()"),
        "inspect.currentframe",
    ),
}


@pytest.mark.parametrize("case", sorted(FLAGGED_WITH_WHAT_TO_LOOK_AT))
def test_a_construct_that_can_hide_a_call_is_flagged_with_what_to_look_at(case):
    addition, named = FLAGGED_WITH_WHAT_TO_LOOK_AT[case]
    outcomes, flags = judge(
        "04_attention", {"softmax": solutions("04_attention")["softmax"] + addition}
    )
    assert all(e.score == e.points for e in outcomes.values())
    assert any(named in flag for flag in flags), flags


@pytest.mark.parametrize("case", sorted(HONEST))
def test_honest_code_is_neither_zeroed_nor_flagged(case):
    lesson, exercise, change = HONEST[case]
    outcomes, flags = judge(lesson, {exercise: change(solutions(lesson)[exercise])})
    assert all(e.score == e.points for e in outcomes.values()), flags
    assert flags == []


def test_a_forbidden_api_called_where_another_exercise_allows_it_costs_nothing():
    """A cell after softmax's test cell uses torch.softmax at its top level and in a helper
    that the attention exercise calls: softmax is already graded, attention allows it."""
    later = cell(
        "import torch",
        "def _weights(s):",
        "    return torch.softmax(s, -1)",
        "print(torch.softmax(torch.zeros(3), 0))",
    )
    outcomes, flags = judge("04_attention", {}, after={"test_softmax": later})
    assert all(e.score == e.points for e in outcomes.values())
    assert flags == []


def test_every_lessons_solution_proves_nothing_against_itself():
    for lesson in registry.lessons():
        found = findings(lesson, {})
        assert [f for f in found if f.proven] == [], lesson
