"""checking.extra_steps: the right output with one step too many (an input added, a
LayerNorm, both); inputs of another shape are no candidates."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from transformer_course.checking.extra_steps import extra_output_steps


def test_candidates():
    out = torch.randn(2, 3, 4, generator=torch.Generator().manual_seed(0))
    query = torch.randn(2, 3, 4, generator=torch.Generator().manual_seed(1))
    memory = torch.randn(2, 5, 4, generator=torch.Generator().manual_seed(2))
    found = extra_output_steps(out, {"query": query, "key": memory}, layer="X")
    values = list(found.values())
    assert len(found) == 3  # the norm; query added; both (key has another shape)
    assert any(torch.equal(v, out + query) for v in values)
    assert any(torch.allclose(v, F.layer_norm(out + query, (4,))) for v in values)
    assert all("`key`" not in message for message in found)


def test_an_activation_after_the_last_step_is_a_candidate():
    import torch.nn.functional as F

    from transformer_course.checking.extra_steps import extra_activation_outputs

    right = torch.randn(2, 3, generator=torch.Generator().manual_seed(0))
    found = extra_activation_outputs({"the right output": right}, layer="L", last="self.out")
    silu = [m for m in found if m.startswith("Your result is passed through F.silu")]
    assert len(silu) == 1 and torch.equal(found[silu[0]], F.silu(right))
