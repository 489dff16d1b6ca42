"""checking.module_settings: a forward that writes its layers' settings (a dropout rate, a
mode flag, a replaced layer) fails with what it changed, even where every output a check
compares is right; and a dropout that acts in neither mode is told both ways of writing it.
"""

from __future__ import annotations

import pytest
import torch
from torch import nn

from transformer_course.checking import Checker
from transformer_course.checking.failure import CheckFailure
from transformer_course.checking.module_settings import (
    changed_settings_message,
    settings_snapshot,
)
from transformer_course.checks.decoder import check_Decoder
from transformer_course.checks.encoder import check_PositionwiseFeedForward
from transformer_course.checks.multi_head_attention import check_MultiHeadAttention
from transformer_course.checks.positional_encoding import check_PositionalEncoding
from transformer_course.reference import decoder as ref_decoder
from transformer_course.reference import encoder as ref_encoder
from transformer_course.reference import multi_head_attention as ref_mha
from transformer_course.reference import positional_encoding as ref_pe


class MHARateZeroedAfterEval(ref_mha.MultiHeadAttention):
    """Keeps the rate in a variable of its own and writes 0 into the layer when evaluating."""

    def forward(self, query, key, value, mask=None):
        if not self.training:
            self.dropout.p = 0.0
        return super().forward(query, key, value, mask)


class MHADropoutForcedOn(ref_mha.MultiHeadAttention):
    """Switches its dropout layer to train mode inside forward, to be sure that it drops."""

    def forward(self, query, key, value, mask=None):
        self.dropout.train()
        heads, weights = super().forward(query, key, value, mask)
        return heads, self.dropout(weights)


class FFNDropoutReplaced(ref_encoder.PositionwiseFeedForward):
    """Swaps its dropout for an identity the first time it runs in eval mode."""

    def forward(self, x):
        if not self.training and isinstance(self.dropout, nn.Dropout):
            self.dropout = nn.Identity()
        return super().forward(x)


class FFNDropoutInEvalOnly(ref_encoder.PositionwiseFeedForward):
    def forward(self, x):
        hidden = torch.relu(self.w_1(x))
        if self.training is False:
            hidden = self.dropout(hidden)
        return self.w_2(hidden)


class PEDropoutInEvalOnly(ref_pe.PositionalEncoding):
    def forward(self, x):
        out = x + self.pe[:, : x.shape[1]]
        return out if self.training else self.dropout(out)


class FFNCountingCalls(ref_encoder.PositionwiseFeedForward):
    """Correct: a counter of its own (a learner's class) that every call advances."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        return super().forward(x)


class FFNFunctionalDropout(ref_encoder.PositionwiseFeedForward):
    """Correct: F.dropout with the module's own mode and rate, read on each call."""

    def forward(self, x):
        hidden = torch.relu(self.w_1(x))
        hidden = nn.functional.dropout(hidden, self.dropout.p, training=self.training)
        return self.w_2(hidden)


@pytest.mark.parametrize(
    ("check", "answer", "said"),
    [
        (
            check_MultiHeadAttention,
            MHARateZeroedAfterEval,
            r"changed dropout\.p from 0\.\d+ to 0\.0",
        ),
        (check_MultiHeadAttention, MHADropoutForcedOn, r"switched dropout\.training from False"),
        (check_PositionwiseFeedForward, FFNDropoutReplaced, r"replaced its submodule dropout"),
        (check_PositionwiseFeedForward, FFNDropoutInEvalOnly, r"`if not self\.training:`"),
        (check_PositionalEncoding, PEDropoutInEvalOnly, r"`if not self\.training:`"),
    ],
)
def test_a_forward_that_writes_its_settings_or_drops_only_in_eval_is_told(check, answer, said):
    with pytest.raises(CheckFailure, match=said):
        check(answer)


@pytest.mark.parametrize("answer", [FFNCountingCalls, FFNFunctionalDropout])
def test_own_counters_and_functional_dropout_pass(answer):
    check_PositionwiseFeedForward(answer)


def test_the_snapshot_compares_torch_layers_settings_and_every_mode_flag():
    torch.manual_seed(0)
    module = FFNCountingCalls(8, 12, dropout=0.25)
    before = settings_snapshot(module)
    assert before is not None and before["dropout.p"] == 0.25 and before["training"] is True
    assert "calls" not in before  # a learner's own class: its attributes may change
    module(torch.zeros(1, 2, 8))
    assert changed_settings_message(module, before, "ffn(x)") == ""
    module.dropout.p = 0.5
    assert "changed dropout.p from 0.25 to 0.5" in changed_settings_message(
        module, before, "ffn(x)"
    )
    assert settings_snapshot(lambda x: x) is None


def test_a_changed_setting_is_said_at_the_end_of_a_check_that_otherwise_passes():
    module = MHARateZeroedAfterEval(8, 2, dropout=0.5).eval()
    with pytest.raises(CheckFailure, match="for good") as failure, Checker("demo") as c:
        c.call(module, torch.zeros(1, 3, 8), torch.zeros(1, 3, 8), torch.zeros(1, 3, 8))
    assert "changed dropout.p from 0.5 to 0.0" in failure.value.message


class FFNOutputSizedDFF(ref_encoder.PositionwiseFeedForward):
    """w_2 built d_ff -> d_ff: its output size is d_ff where d_model belongs."""

    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__(d_model, d_ff, dropout)
        self.w_2 = nn.Linear(d_ff, d_ff)


def test_a_parameter_sized_by_another_argument_names_the_argument():
    with pytest.raises(CheckFailure, match=r"Its size \d+ is d_ff, where d_model \(\d+\) belongs"):
        check_PositionwiseFeedForward(FFNOutputSizedDFF)


class DecoderWidthFirst(ref_decoder.Decoder):
    """__init__(d_model, num_layers, ...): the contract's first two parameters swapped."""

    def __init__(self, d_model, num_layers, num_heads, d_ff, *args, **kwargs):
        super().__init__(num_layers, d_model, num_heads, d_ff, *args, **kwargs)


def test_a_size_shown_in_an_error_under_another_argument_s_name_names_both():
    with pytest.raises(
        CheckFailure, match=r"not the d_model given \(d_model=\d+\) but num_layers's"
    ):
        check_Decoder(DecoderWidthFirst)


def test_a_term_through_one_dropout_mask_shared_over_the_batch_is_found():
    from transformer_course.checking.dropout_placement import dropped_term_mask

    x = torch.randn(3, 4, 5)  # (batch, len, d)
    table = torch.randn(1, 4, 5) + 3.0  # no entry near 0
    keep = torch.rand(1, 4, 5) > 0.5
    mask = dropped_term_mask(x + table * keep * 2.0, x, table, 0.5)
    assert mask is not None and torch.equal(mask, keep)
    per_entry = torch.rand(3, 4, 5) > 0.5  # dropout of the sum's term drawn per entry
    assert dropped_term_mask(x + table * per_entry * 2.0, x, table, 0.5) is None
    assert dropped_term_mask(x + table, x, table, 0.5) is None  # nothing dropped
    assert dropped_term_mask((x + table).numpy(), x, table, 0.5) is None  # not a tensor
