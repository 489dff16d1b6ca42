"""checking.graph: a gradient check follows a result's graph only where it leads back to
the check's own tensors; results that come back as values (the sandboxed grader's) are
not followed (tests/test_grader_honest.py grades every solution through the grader)."""

from __future__ import annotations

import torch

from transformer_course.checking.graph import graph_reaches


def test_a_result_computed_from_the_tensors_reaches_them():
    x = torch.randn(3, requires_grad=True)
    weight = torch.nn.Parameter(torch.ones(3))
    assert graph_reaches((x * weight).sum(), [x, weight])
    assert graph_reaches(x * 2, [x])
    assert graph_reaches(x, [x])


def test_a_result_cut_from_one_tensor_still_reaches_the_other():
    x = torch.randn(3, requires_grad=True)
    weight = torch.nn.Parameter(torch.ones(3))
    out = x.detach() * weight
    assert not graph_reaches(out, [x])
    assert graph_reaches(out, [x, weight])


def test_values_that_came_back_without_their_graph_reach_nothing():
    """The grader's codec rebuilds a learner's result as a fresh leaf (a view of it when
    the result had a grad_fn): it requires grad, and leads back to none of the check's
    tensors."""
    x = torch.randn(3, requires_grad=True)
    weight = torch.nn.Parameter(torch.ones(3))
    came_back = (x * weight).detach().clone().requires_grad_(True)[...]
    assert came_back.requires_grad and came_back.grad_fn is not None
    assert not graph_reaches(came_back, [x, weight])
