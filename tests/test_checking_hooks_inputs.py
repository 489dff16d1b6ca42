"""checking.hooks.last_input_hint: the layer that raised, given the module's own input
where the reference gives it another tensor, is named; a layer that rightly reads the
input is not."""

from __future__ import annotations

import torch
from torch import nn

from transformer_course.checking.hooks import last_input_hint


def test_last_input_hint_names_a_layer_given_the_input_only_where_wrong():
    class _TwoLayers(nn.Module):
        def __init__(self, skip: bool, first_width: int = 4):
            super().__init__()
            self.first = nn.Linear(first_width, 6)
            self.second = nn.Linear(6, 4)
            self.skip = skip

        def forward(self, x):  # (batch, 4) -> (batch, 4)
            hidden = self.first(x)
            return self.second(x if self.skip else hidden)

    x = torch.randn(3, 4)
    reference = _TwoLayers(skip=False)
    for module, named in ((_TwoLayers(skip=True), True), (_TwoLayers(False, 5), False)):
        when, text = last_input_hint(
            module, lambda m=module: m(x), {"x": x}, reference, lambda: reference(x)
        )
        error = RuntimeError("mat1 and mat2 shapes cannot be multiplied")
        # the first layer rightly reads x even when it raises: no claim then
        assert when(error) and (("`self.second` receives x itself" in text(error)) is named)
        assert named or text(error) == ""
