"""checking.graph: a check asks for the gradients with the call (``call_gradients``), in
the notebook's process or, through the grader's stand-in, in the sandbox where the
learner's code ran (tests/test_forbidden_agreement.py grades such answers both ways)."""

from __future__ import annotations

import pytest
import torch
import torch.utils.checkpoint
from torch import nn

from transformer_course.checking.graph import call_gradients, graph_needs_input_grad


def _leaf(*shape: int, seed: int) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed)).requires_grad_()


def test_the_gradients_of_the_tensor_arguments_that_require_one():
    x, w = _leaf(3, seed=0), _leaf(3, seed=1)
    upstream = torch.tensor([1.0, 2.0, 3.0])
    grad_x, grad_w = call_gradients(lambda a, b, scale: a * b * scale, (x, w, 2.0), upstream)
    assert torch.allclose(grad_x, 2.0 * w.detach() * upstream)
    assert torch.allclose(grad_w, 2.0 * x.detach() * upstream)
    assert x.grad is None and w.grad is None  # nothing accumulated on the caller's tensors


def test_an_argument_cut_from_the_graph_gets_none():
    x, w = _leaf(3, seed=2), _leaf(3, seed=3)
    grad_x, grad_w = call_gradients(lambda a, b: a.detach() * b, (x, w))
    assert grad_x is None and torch.equal(grad_w, x.detach())


def test_a_tuple_result_with_one_upstream_per_part():
    q = _leaf(2, 4, seed=4)
    (grad,) = call_gradients(lambda a: (a * 3, a.sum(-1)), (q,), (None, torch.ones(2)))
    assert torch.allclose(grad, torch.ones(2, 4))  # the first part left out
    with pytest.raises(ValueError, match="upstream gradient of shape"):
        call_gradients(lambda a: (a * 3, a.sum(-1)), (q,), (None, torch.ones(3)))


def test_parameters_by_every_name_of_a_shared_one():
    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(5, 3)
            self.output = nn.Linear(3, 5, bias=False)
            self.output.weight = self.embedding.weight

        def forward(self, ids):
            return self.output(self.embedding(ids))

    torch.manual_seed(0)
    model = Tied()
    ids = torch.tensor([[1, 2]])
    found = call_gradients(model, (ids,), None, "parameters")
    assert set(found) == {"embedding.weight", "output.weight"}
    assert found["embedding.weight"] is found["output.weight"]
    expected = torch.autograd.grad(model(ids).sum(), model.embedding.weight)[0]
    assert torch.allclose(found["embedding.weight"], expected)


def test_an_in_place_change_of_a_saved_tensor_raises_as_backward_does():
    x = _leaf(4, seed=5)

    def softmax_then_zeroed_in_place(a):
        weights = torch.softmax(a, dim=-1)
        weights[0] = 0.0  # softmax's backward needs its output
        return weights

    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        call_gradients(softmax_then_zeroed_in_place, (x,))


def test_the_grader_stand_in_is_asked_instead():
    class StandIn:
        asked = None

        def gradients_of_call(self, args, upstream, wrt):
            StandIn.asked = (args, upstream, wrt)
            return ["from the sandbox"]

    x = _leaf(2, seed=6)
    assert call_gradients(StandIn(), [x], None, "all") == ["from the sandbox"]
    assert StandIn.asked[0] == (x,) and StandIn.asked[2] == "all"


class _Reentrant(nn.Module):
    """A layer under reentrant activation checkpointing: a graph only for grad inputs."""

    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(3, 3)

    def forward(self, x):
        return torch.utils.checkpoint.checkpoint(self.linear, x, use_reentrant=True)


def test_parameters_reached_by_a_reentrant_checkpoint_get_their_gradient():
    torch.manual_seed(0)
    module = _Reentrant()
    x = _leaf(2, 3, seed=5)
    found = call_gradients(module, (x,), None, "parameters")
    assert torch.allclose(found["linear.bias"], torch.full((3,), 2.0))
    assert module.linear.weight.grad is None and x.grad is None  # put back as they were


def test_a_graph_built_only_for_inputs_that_require_grad():
    torch.manual_seed(0)
    x = torch.randn(2, 3)
    assert not _Reentrant()(x).requires_grad
    assert graph_needs_input_grad(_Reentrant(), (x,))

    class UnderNoGrad(_Reentrant):
        def forward(self, x):
            with torch.no_grad():
                return self.linear(x)

    class DataWeights(_Reentrant):
        def forward(self, x):
            return x @ self.linear.weight.data.T + self.linear.bias.data

    assert not graph_needs_input_grad(UnderNoGrad(), (x,))
    assert not graph_needs_input_grad(DataWeights(), (x,))
    assert not x.requires_grad  # the caller's input as it was
