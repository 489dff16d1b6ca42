"""Run the diagnosis benchmark: every case through its exercise's visible and hidden check,
in-process, as the test cells call them (``check_<name>(<name>)`` and
``check_<name>(<name>, hidden=True)``), and classify the first message a learner reads.

    .venv/bin/python -m benchmarks.diagnosis            # table; writes records.json
    .venv/bin/python -m benchmarks.diagnosis --lesson 12_inference --show

Classes, decided by the criteria written with each case (cases.py) before any run:
* caught (visible / hidden): the check fails (a check that crashes counts as caught, and
  its text is the message);
* named: the message matches one of the case's ``named_if`` patterns (it names the cause
  the case's author stated, so the learner knows what to change), and is not one of the
  checks' fallback forms (:data:`FALLBACK`: "differs from the reference: largest
  difference ...", "contains NaN or inf ...", whose fixed hint restates the rule for every
  unmatched answer and so names nothing, even when its words match);
* misnamed: not named, and what it says (:func:`diagnostic_text`: the message without the
  call, values and exception text it echoes) matches one of ``misnamed_if`` (it names
  another cause);
* pointed: neither, and it locates the symptom precisely (:data:`POINTED`: a row, step,
  position, index, (i, j) entry or merge; "largest difference at index" does not count);
* generic: the rest.
Mutants that both checks accept are counted apart ("accepted": most are equivalent), and
so are the cases that the course accepts by its contract (accepted.py: ACCEPTED_BY_CONTRACT,
each with where the contract says so) while both checks pass them; a check that fails such a
case gives it its normal verdict.
Mutant messages read by hand where the word rule is wrong are judged by
:data:`HAND_VERDICTS` (each with the reason, and a pattern the message must still match).
Held-out cases (``Case.heldout``: written before the fixes of their round) are counted in
a table of their own, so that their figures show how the diagnoses generalise.

Every run judges the answers under one seed of Python's string hashes (:data:`HASH_SEED`):
an answer that iterates over a set of strings (the special tokens as a set literal, say)
gives another order, and so perhaps another verdict, under another seed.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import functools
import hashlib
import importlib
import inspect
import io
import json
import linecache
import os
import re
import signal
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path

from benchmarks.diagnosis.accepted import ACCEPTED_BY_CONTRACT
from benchmarks.diagnosis.cases import CASES, Case
from benchmarks.diagnosis.mutants import OPERATION_WORDS, mutants
from transformer_course import registry
from transformer_course.checking.failure import CheckFailure

HERE = Path(__file__).resolve().parent
RECORDS = HERE / "records.json"
MUTANTS_PER_EXERCISE = 3
MUTANT_SEED = 2026
CHECK_SECONDS = 30

#: a precise location of the symptom
POINTED = re.compile(
    r"first (differs|wrong|diverg|departs)|\bat (step|position|row|merge)\b|\brow \d|\bstep \d"
    r"|\bposition \d|\(\d+, \d+\)|\bentry\b|\bmerge (number )?\d|\bcolumn \d|\bquery \d"
    r"|\btoken \d",
    re.IGNORECASE,
)
#: what a mutant's message says when it asserts a cause
ASSERTS_CAUSE = re.compile(
    r"\bYou |\bYour \w+ (is|are|uses|takes|adds|puts|returns|divides|multiplies|stops)"
    r"|Did you|most likely|likely cause|This is the|looks like",
)


#: Mutants whose first message was read by hand, where the crude word rule above is wrong
#: (it calls any message that asserts a cause without the operation's words "misnamed"):
#: (exercise, mutation without its line number) -> (verdict, a pattern the message must
#: still match, why). When the reference or the message changes, the pattern or the key
#: no longer matches and the rule judges again.
HAND_VERDICTS: dict[tuple[str, str], tuple[str, str, str]] = {
    **{
        ("Transformer", f"number: {default} -> {default + 1}"): (
            "named",
            rf"your default for {keyword} is not {default}\b",
            f"a changed default of {keyword} in the signature: the message names that default "
            "and the contract's value",
        )
        for keyword, default in (("pad_id", 0), ("num_layers", 6), ("d_ff", 2048))
    },
    ("positional_encoding", "number: 2 -> 3"): (
        "named",
        r"pair i turns at pos / 10000\^\(3i/d_model\)"
        r"|sines are right, but feature \d+ holds the cosine of pair \d+'s angle",
        "np.arange(0, d_model, 3): the exponent 3i/d_model, which the message measures; or "
        "the cosines sliced with d_model // 3 angles, whose message ('Your sines are right', "
        "a statement of fact, not a cause) names the feature and the pair whose angle it holds",
    ),
    ("center_rows", "drop: a ± b -> a"): (
        "named",
        r"You returned x unchanged: nothing was subtracted",
        "return x (the mean dropped): the message says x came back unchanged",
    ),
    ("get_pair_counts", "number: 1 -> 2"): (
        "named",
        r"You paired each id with the one two places on, \(ids\[i\], ids\[i \+ 2\]\)",
        "zip(ids, ids[2:]): the message names the pairs two places apart",
    ),
    ("merge_pair", "drop: a ± b -> a"): (
        "named",
        r"Guard it with i \+ 1 < len\(ids\).*\bi < len\(ids\)",
        "the guard i + 1 < len(ids) with its + 1 dropped reads ids[len(ids)]; the message "
        "names that bound",
    ),
    ("merge_pair", "binop: Add -> Sub"): (
        "named",
        r"Guard it with i \+ 1 < len\(ids\).*i - 1 < len\(ids\)",
        "the guard i - 1 < len(ids) reads ids[len(ids)]; the message names that bound",
    ),
    ("merge_pair", "number: 0 -> 1"): (
        "named",
        r"Your scan starts at index 1: ids\[0\] is never looked at",
        "i = 1 to start: the message names the start index and the id it loses",
    ),
    ("merge_pair", "number: 2 -> 3"): (
        "named",
        r"After a merge you moved on by three ids",
        "i += 3 after a merge: the message names the step and the id it loses",
    ),
    ("merge_pair", "number: 1 -> 2"): (
        "named",
        r"Where no merge happens you moved on by two ids",
        "i += 2 where no merge happens: the message names that step (the same key's other "
        "mutants, whose messages differ, are judged by the rule)",
    ),
    ("merge_pair", "compare: Eq -> NotEq"): (
        "named",
        r"Your pair test is inverted: you merged every adjacent pair except the one given",
        "!= in the pair test: the message names the inverted comparison",
    ),
    ("bpe_encode", "number: 2 -> 3"): (
        "named",
        r"Your loop stops while two ids are still left",
        "while len(ids) >= 3 stops with two ids left, which the message names",
    ),
    ("build_vocab", "number: 0 -> 1"): (
        "named",
        r"yours keep the order of first appearance",
        "key (-count, count) leaves ties in first-appearance order (a stable sort); the "
        "message says so",
    ),
    ("train_bpe", "drop: a ± b -> a"): (
        "named",
        r"Every merge got the same id, 256: the step is not added"
        r"|merged with the id 256 every time .* while it recorded",
        "records every merge as 256, or merges with 256 while recording 256 + i (the + i "
        "dropped in one place); the message says which",
    ),
    ("train_bpe", "number: 256 -> 257"): (
        "named",
        r"ids you merged with and the ids you recorded in the dict must be the same"
        r"|merged with the id 257 \+ i .* while it recorded \[256, 257",
        "merges with id 257 + i but records 256 + i; the message says exactly that",
    ),
    ("train_bpe", "binop: Add -> Sub"): (
        "named",
        r"merged with the id 256 - i .* while it recorded \[256, 257",
        "merges with id 256 - i but records 256 + i; the message says exactly that",
    ),
    ("get_pair_counts", "drop: a ± b -> a"): (
        "named",
        r"Your values are all 0 where the reference's are not: nothing is ever added",
        "counts[pair] = counts.get(pair, 0) without the + 1; the message says nothing is "
        "ever added",
    ),
    ("PositionalEncoding", "drop: a ± b -> a"): (
        "named",
        r"You returned x unchanged",
        "returns dropout(x), x unchanged in eval mode; the message says so",
    ),
    ("relative_shift", "drop: a ± b -> a"): (
        "named",
        r"In every 2×2 block, M\[2i, 2i\] holds [+-]sin\(w_i·k\) where cos\(w_i·k\) belongs"
        r"|M\[2i\+1, 2i\+1\] holds 0 where cos\(w_i·k\) belongs\. Its values were written to "
        r"M\[2i, 2i\+1\] instead: the row index of that assignment is off",
        "one line writes its sine to M[2i, 2i] (row or column 2i + 1 dropped to 2i); the "
        "message names that place and what it holds. Or the cosine of M[2i+1, 2i+1] written "
        "to M[2i, 2i+1] (its row 2i + 1 dropped to 2i): the message says where its values "
        "went and that the row index of that assignment is off",
    ),
    ("split_heads", "number: 1 -> 2"): (
        "named",
        r"left the heads axis after len\. Add `\.transpose\(1, 2\)`",
        "transpose(2, 2) transposes nothing; the message says the transpose is missing",
    ),
    ("split_heads", "number: 2 -> 3"): (
        "named",
        r"Your axes come out in the order \(batch, d_head, num_heads, len\): that is "
        r"x\.reshape\(batch, len, num_heads, d_head\)\.permute\(0, 3, 2, 1\)",
        "transpose(1, 3) instead of (1, 2); the message gives the order it produced, the permute "
        "that makes it and the transpose that belongs",
    ),
    ("merge_heads", "number: 2 -> 3"): (
        "named",
        r"Yours is x\.permute\(0, 3, 2, 1\) = x\.transpose\(1, 3\) reshaped",
        "transpose(1, 3) instead of (1, 2); the message says so and which axes belong swapped",
    ),
    ("merge_heads", "number: 1 -> 2"): (
        "named",
        r"straight to \(batch, len, d_model\) without a transpose",
        "transpose(2, 2) transposes nothing; the message says the transpose is missing",
    ),
    ("padding_mask", "compare: NotEq -> Eq"): (
        "named",
        r"the polarity is inverted",
        "ids == pad_id marks the pads; the message says the polarity is inverted",
    ),
    ("softmax", "drop: a ± b -> a"): (
        "named",
        r"the maximum is not subtracted",
        "np.exp(x) instead of np.exp(x - peak); the message says the maximum is not subtracted",
    ),
    ("MultiHeadAttention", "number: 0 -> 1"): (
        "named",
        r"dropout is not applied in training",
        "`self.dropout.p > 1` never applies dropout; the message says it is not applied",
    ),
    ("center_rows", "bool: True -> False"): (
        "named",
        r"Keep the reduced axis as a size-1 axis",
        "keepdims=False drops the reduced axis; the message says to keep it (keepdims)",
    ),
    ("build_vocab", "unary: -x -> x"): (
        "named",
        r"sort by descending count",
        "key (count, token) sorts by ascending count; both candidates say: descending count",
    ),
    ("EncoderLayer", "number: 0 -> 1"): (
        "named",
        r"the residual adds \[0\], not \[1\]",
        "self_attn(...)[1] adds the attention weights to the stream; the message says so",
    ),
    ("DecoderLayer", "number: 0 -> 1"): (
        "named",
        r"the residual adds \[0\], not \[1\]",
        "self_attn(...)[1] / cross_attn(...)[1] adds the weights; the message says so",
    ),
    ("EncoderLayer", "drop: a ± b -> a"): (
        "named",
        r"`self\.(self_attn|feed_forward)` is never called during forward",
        "a residual branch `x + dropout(sublayer(...))` became `x`: that sub-layer is never "
        "called, as the message says",
    ),
    ("LayerNorm", "drop: a ± b -> a"): (
        "named",
        r"Your result lacks the bias: after multiplying by self\.weight, add self\.bias"
        r"|^(?![\s\S]*ignores its eps argument)[\s\S]*You divide by sqrt\(var\) with no eps"
        r"|you divide x itself, not x - mean",
        "`+ self.bias` dropped: the message says the bias is missing; `var + self.eps` became "
        "`var`: the message says there is no eps in the division (not that the eps argument "
        "is ignored, which a variance-0 token rules out); `x - mean` became `x` in the "
        "numerator: the message says x itself is divided, not x - mean",
    ),
    ("DecoderBlock", "drop: a ± b -> a"): (
        "named",
        r"`self\.(attn|feed_forward)` is never called during forward",
        "`h = x + attn(norm1(x))` became `h = x` (or the feed-forward's line likewise): that "
        "sub-layer is never called, as the message says",
    ),
    ("count_parameters", "number: 2 -> 3"): (
        "named",
        r"difference is exactly one attention per layer",
        "3 * attention per decoder layer; the message says one attention too many per layer",
    ),
    ("count_parameters", "number: 0 -> 1"): (
        "named",
        r"With final_norm=False, yours is 1 more than the reference on every configuration "
        r"checked, whatever num_layers .* counted once per stack",
        "final = layer_norm if final_norm else 1: the message says the stacks are 1 more with "
        "final_norm=False, once per stack, in the final LayerNorm's term (it says '1 more', "
        "not the rule's 'one more', and 'your count adds' reads as a stated cause to it)",
    ),
    ("count_parameters", "drop: a ± b -> a"): (
        "named",
        r"difference is exactly one feed-forward per layer",
        "the decoder layer lost its feed-forward term; the message says one feed-forward fewer",
    ),
    ("make_batches", "number: 0 -> 1"): (
        "named",
        r"the first pair is missing\. The first batch starts at pair 0",
        "range(1, ...) skips pair 0; the message says the batches must start at pair 0",
    ),
    ("noam_lr", "binop: Pow -> Mult"): (
        "named",
        r"your scale factor is -0\.5 \* d_model \*\* 1; the paper's is d_model \*\* -0\.5"
        r"|yours go like step \*\* 1; the paper's decay like step \*\* -0\.5",
        "d_model * -0.5 instead of d_model ** -0.5, or step * -0.5 instead of step ** -0.5; "
        "the message shows the learner's power and the paper's",
    ),
    ("noam_lr", "binop: Mult -> Div"): (
        "named",
        r"There is no warm-up.*should grow linearly, step \* warmup \*\* -1\.5",
        "step / warmup ** -1.5 makes the warm-up term never the minimum; the message names "
        "that term and its formula",
    ),
    ("beam_search", "drop: a ± b -> a"): (
        "named",
        r"The length penalty is not applied",
        "((5 + L) / 6) ** α became (5 / 6) ** α, a constant: the penalty no longer depends on "
        "the length, i.e. is not applied; the first candidate says so (the second, also "
        "consistent with these inputs, is listed as such)",
    ),
    ("label_smoothed_loss", "binop: Sub -> Add"): (
        "named",
        r"the target term -log p\[y\] is weighted by [\d.]+ = 1 \+ ε, not 1 - ε",
        "(1 - smoothing) became (1 + smoothing): the message says the target term is weighted "
        "by 1 + ε, not 1 - ε, which is that very change (the word rule wants 'plus' or 'sign')",
    ),
    ("next_token_batches", "drop: a ± b -> a"): (
        "named",
        r"every start s < num_tokens - block_size|Your targets are the inputs themselves",
        "starts drawn up to len(tokens) (the message gives the bound on the start), or the "
        "targets' + 1 dropped (the message says the targets are the inputs)",
    ),
    ("next_token_batches", "binop: Sub -> Add"): (
        "named",
        r"every start s < num_tokens - block_size",
        "starts drawn up to len(tokens) + block_size; the message gives the bound on the start",
    ),
    ("DecoderLayer", "drop: a ± b -> a"): (
        "named",
        r"`self\.(self_attn|cross_attn|feed_forward)` is never called during forward",
        "a residual branch `x + dropout(sublayer(...))` became `x`: that sub-layer is never "
        "called, as the message says",
    ),
    ("next_token_batches", "binop: Add -> Sub"): (
        "named",
        r"Your targets are shifted the wrong way \(the token before, not after\)",
        "tokens[positions - 1] as targets; the message says the targets are the previous token",
    ),
    ("rotary_embedding", "unary: -x -> x"): (
        "named",
        r"Your frequencies grow with i \(base \*\* \(\+2i / d_head\)\)",
        "base ** (2i / d) instead of base ** (-2i / d); the message names the sign",
    ),
    ("relative_shift", "unary: -x -> x"): (
        "named",
        r"holds \+sin\(w_i·k\) where -sin\(w_i·k\) belongs",
        "the minus of one sine dropped; the message names the entry and its sign",
    ),
    ("generate", "drop: a ± b -> a"): (
        "named",
        r"start never advances",
        "start=length instead of length + step; the message says start never advances",
    ),
    ("generate", "number: 1 -> 2"): (
        "named",
        r"the model was not run on the token chosen at step \d+ before step \d+ recorded",
        "step + 2 < max_new_tokens skips the last model call; the message says which call is "
        "missing",
    ),
    ("sliding_window_mask", "drop: a ± b -> a"): (
        "named",
        r"Your mask is False everywhere.*d must be 1 - window .*keeps nothing, as yours does",
        "triu(diagonal=1) & the causal mask is empty; the message says the mask is False "
        "everywhere and that triu's diagonal must be 1 - window, a diagonal of 1 or more "
        "keeping nothing",
    ),
    ("sliding_window_mask", "binop: Sub -> Add"): (
        "named",
        r"Your mask is False everywhere.*d must be 1 - window .*keeps nothing, as yours does",
        "triu(diagonal=1 + window) & the causal mask is empty; the message says the mask is False "
        "everywhere and that triu's diagonal must be 1 - window, a diagonal of 1 or more "
        "keeping nothing",
    ),
    ("apply_rotary", "number: 2 -> 3"): (
        "named",
        r"halves of x has \d+ features .* split point must be x\.shape\[-1\] // 2",
        "half = x.shape[-1] // 3 splits x off the middle; the message says the split point "
        "must be the last axis halved",
    ),
    ("apply_rotary", "slice: a:b -> a:b + 1"): (
        "named",
        r"halves of x has \d+ features .* split point must be x\.shape\[-1\] // 2",
        "x[..., :half + 1] takes one feature too many; the message says so and that the split "
        "point must be the last axis halved",
    ),
    ("sample", "drop: a ± b -> a"): (
        "named",
        r"Your top-p keeps one token too few: .*remove a token when the total \*before\* it",
        "cumsum without - sorted_probs removes the crossing token; the message says top-p "
        "keeps one too few and that a token is removed when the total before it reaches top_p",
    ),
    ("sample", "compare: Eq -> NotEq"): (
        "named",
        r"With temperature 0, sample must return the argmax of each row",
        "if temperature != 0: return the argmax (the greedy branch taken for every other "
        "temperature, and temperature 0 divided by): the message says temperature 0 must "
        "return the argmax without dividing by zero, the branch the learner inverted",
    ),
    ("sample", "number: 0 -> 1"): (
        "named",
        r"torch\.multinomial\(probs, 1, \.\.\.\) returns \(batch, 1\), whose only column is "
        r"\[:, 0\]|always keeps the 2nd most probable token, whatever top_p: the guard .*"
        r"remove_sorted\[\.\.\., 1\] = False",
        "torch.multinomial(...)[:, 1]: the message says its result has one column, [:, 0]; "
        "remove_sorted[..., 1] = False (the other 'number: 0 -> 1' mutant): the message says "
        "the guard keeps sorted column 1, remove_sorted[..., 1] = False, instead of column 0",
    ),
    ("apply_rotary", "number: 1 -> 2"): (
        "named",
        r"halves of x has \d+ features .* split point must be x\.shape\[-1\] // 2"
        r"|two rotated halves .* joined along axis -2 \(len\)",
        "half = x.shape[-2] // 2 (the split point from len; the message says it must be the "
        "last axis halved), or torch.cat(..., dim=-2) (the message says the halves are joined "
        "along axis -2 instead of the last)",
    ),
    ("generate", "binop: Add -> Sub"): (
        "named",
        r"The caches were made with a negative size: .*len \+ max_new_tokens",
        "new_caches(batch, length - max_new_tokens) is negative here; the message says so and "
        "gives the size, len + max_new_tokens",
    ),
    ("KVCache", "number: 2 -> 3"): (
        "named",
        r"holds \d+ positions, but k_new brings n = \d+: .*n read from the wrong axis of k_new"
        r"|The buffers' axes smaller than \d+ are .*: does your test read max_len from one of "
        r"them instead of self\.keys\.shape\[2\]",
        "stop = length + k_new.shape[-3] reads n from the heads axis; the message says the "
        "slice's length is that axis's size (n read from the wrong axis), with the other "
        "candidate these inputs leave open; or the capacity test reads self.keys.shape[-3] "
        "(num_heads) for max_len: the message names the axes that would refuse this call",
    ),
    ("grouped_query_attention", "number: 1 -> 2"): (
        "named",
        r"num_kv_heads = \d+ heads, not num_heads = \d+: .*another axis than dim=1, or the "
        r"group size came out 1|each of the \d+ key/value heads was repeated \d+ times, not",
        "repeat_interleave(group, dim=2), or group = q.shape[2] // k.shape[1] (1 here) or "
        "q.shape[1] // k.shape[2] (0 here): the message names the repeat's axis and the group "
        "size read from other axes among the candidates these inputs leave",
    ),
    ("online_softmax", "slice: a:b -> a:b + 1"): (
        "named",
        r"Your blocks are one column too long: each reads x\[\.\.\., start : start \+ "
        r"block_size \+ 1\]",
        "x[..., start : start + block_size + 1]; the message names that slice (the word rule "
        'misses "one column too long")',
    ),
    ("online_softmax", "drop: a ± b -> a"): (
        "named",
        r"Your final numerator is exp\(x\), with no maximum subtracted|Either the running sum "
        r"was rescaled wrongly along the way \(the factor is exp\(m_old - m_new\)",
        "exp(x - m) -> exp(x) at the end (the message says the final numerator has no maximum "
        "subtracted), or exp(running_max - new_max) -> exp(running_max) (the message says the "
        "running sum was rescaled wrongly and gives the factor): the word rule misses both",
    ),
    ("tiled_attention", "drop: a ± b -> a"): (
        "named",
        r"Your block weights are exp\(s\), with no maximum subtracted",
        "exp(scores - new_max) -> exp(scores); the message says no maximum is subtracted from "
        "the block's weights (the word rule misses it)",
    ),
    ("tiled_attention", "number: 2 -> 3"): (
        "named",
        r"the causal mask built for another number of queries than len_q = q\.shape\[-2\]",
        "len_q = q.shape[-3] makes the causal mask's query positions arange(num_heads); the "
        "message says the mask was built for another number of queries than q.shape[-2]",
    ),
    ("tiled_attention", "number: 1 -> 2"): (
        "named",
        r"the block's weights summed over the queries \(dim=-2\) instead of over the keys"
        r"|output's last axis must be d_v = v\.shape\[-1\] = \d+, but a tensor of yours",
        "weights.sum(dim=-2) (the message says the weights are summed over the queries, "
        "dim=-2), or acc made with v.shape[-2] (the message says its last axis must be "
        "v.shape[-1])",
    ),
    ("make_batches", "binop: Add -> Sub"): (
        "named",
        r"each is pairs\[start : start - batch_size\]",
        "order[start : start - batch_size]; the message names that slice end",
    ),
    ("make_batches", "slice: a:b -> a:b + 1"): (
        "named",
        r"each is pairs\[start : start \+ batch_size \+ 1\]",
        "order[start : start + batch_size + 1]; the message names that slice end and the "
        "overlap it makes",
    ),
    ("translation_scores", "compare: Lt -> LtE"): (
        "named",
        r"reference stream j holds references\[i\]\[j\] only where j < len\(references\[i\]\)",
        "refs[j] if j <= len(refs) runs past the list; the message gives the bound, "
        "j < len(references[i]), and says an index is one too far",
    ),
    ("noam_lr", "number: 1 -> 2"): (
        "named",
        r"is your step clamped to at least 2 \(max\(step, 2\)\)",
        "max(step, 2) gives step 1 the rate of step 2; the message says so and names the clamp",
    ),
    ("label_smoothed_loss", "number: 1 -> 2"): (
        "named",
        r"target term -log p\[y\] is weighted by [\d.]+ = 2 - ε, not 1 - ε",
        "(2 - smoothing) * target; the message gives the fitted weight, 2 - ε, and the right one",
    ),
    ("CausalSelfAttention", "number: 1 -> 2"): (
        "named",
        r"so the length given to rotary_embedding \(or to look_ahead_mask\) was read from "
        r"another axis of x",
        "length = x.shape[2] (d_model); the message says the length was read from another "
        "axis than x.shape[1]",
    ),
    ("greedy_decode", "number: 0 -> 1"): (
        "named",
        r"is len_src, src_ids\.shape\[1\]\. The target starts with one row per sentence",
        "batch = src_ids.shape[1]; the message says the rows came from src_ids.shape[1] and "
        "the target needs src_ids.shape[0]",
    ),
    ("grouped_query_attention", "binop: FloorDiv -> Div"): (
        "named",
        r"num_heads // num_kv_heads \(floor division, //\), not num_heads / num_kv_heads",
        "q.shape[1] / k.shape[1] is a float; the message names the floor division",
    ),
    ("KVCache", "number: 0 -> 1"): (
        "named",
        r"has self\.length = 1 before its first call, not 0: a new cache starts empty",
        "self.length = 1 in __init__: the message names the count a new cache starts with "
        "and the 0 it must be",
    ),
}


class _Timeout(BaseException):
    """The case's deadline: a BaseException, so that no ``except Exception`` in a check or in
    the answer can swallow it."""


@contextlib.contextmanager
def _deadline(seconds: int):
    def raise_timeout(*_):
        raise _Timeout()

    previous = signal.signal(signal.SIGALRM, raise_timeout)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _reference_source(exercise) -> str:
    return textwrap.dedent(inspect.getsource(exercise.reference))


def _without_docstrings(source: str) -> str:
    """``source`` with its docstrings' lines removed (comments kept), so that an edit
    never lands in a docstring."""
    drop: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", None)
        if (
            isinstance(node, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            drop.update(range(body[0].lineno, body[0].end_lineno + 1))
            if len(body) == 1:  # keep the body valid
                drop.discard(body[0].lineno)
    lines = source.splitlines(keepends=True)
    return "".join(line for number, line in enumerate(lines, 1) if number not in drop)


@functools.cache
def _master_imports(lesson: str) -> tuple[str, ...]:
    """The top-level import statements of the lesson's master (its setup cell's, chiefly):
    the names a learner's answer cell can use besides the lesson's own."""
    master = Path(__file__).resolve().parents[2] / "solutions" / lesson / f"{lesson}.py"
    if not lesson or not master.exists():
        return ()
    tree = ast.parse(master.read_text())
    return tuple(
        ast.unparse(node) for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)
    )


def _learner_object(exercise, source: str, label: str):
    """What the learner's answer cell defines: ``source`` run in the namespace the
    lesson's earlier cells made: the reference module's names (the lesson's own
    functions and classes) and what the master imports (the setup cell's names: earlier
    lessons' building blocks, ``tok``, ``F``...)."""
    module = importlib.import_module(f"transformer_course.reference.{exercise.topic}")
    namespace = dict(vars(module))
    for statement in _master_imports(exercise.lesson):
        with contextlib.suppress(Exception):
            exec(statement, namespace)
    filename = f"<answer {label}>"
    # as in a notebook, whose kernel keeps each cell's source in linecache: tracebacks
    # then show the learner's lines, which some hints read
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)
    return namespace[exercise.name]


def case_source(case: Case, exercise) -> str:
    if case.code is not None:
        return textwrap.dedent(case.code)
    raw = _without_docstrings(_reference_source(exercise))
    # edits are written against the reference's code (docstrings left out), or against
    # its ast.unparse form (comments gone, quotes normalised)
    for source in (raw, ast.unparse(ast.parse(raw))):
        if all(old in source for old, _ in case.edits):
            for old, new in case.edits:
                source = source.replace(old, new, 1)
            return source
    missing = [old for old, _ in case.edits if old not in raw]
    raise ValueError(f"case {case.id}: {missing!r} not in the reference {exercise.name}")


def _run_check(check, answer, hidden: bool) -> str | None:
    """The check's message, or None when it passes."""
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            with _deadline(CHECK_SECONDS):
                check(answer, hidden=hidden)
        except CheckFailure as failure:
            return failure.message
        except _Timeout:
            return f"(the check ran for more than {CHECK_SECONDS} s)"
        except Exception as error:  # a check that crashes still rejects the answer
            return f"(the check itself raised {type(error).__name__}: {error})"
    return None


#: the checks' fallback forms: a restated rule after them names nothing
FALLBACK = re.compile(r"differs from the reference: largest difference|contains NaN or inf \(first")


#: what a message only echoes, not claims (:func:`diagnostic_text`): a printed tensor, a
#: shape with its dtype, a dtype
_ECHOED_VALUES = re.compile(
    r"<Tensor [^>]*>"
    r"|\(\d+(?:, \d+)*,?\)\s+(?:torch\.)?(?:float|bfloat|int|uint|bool|complex)\d*\b"
    r"|\b(?:bool|float\d*|int\d*)\s+\(\d+(?:, \d+)*,?\)"
    r"|dtype=torch\.\w+"
)
#: the text of an exception the learner's own code raised, after its class name
_RAISED_TEXT = re.compile(r"(\braised \w+)(?::[^\n]*)?")
#: a printed array or tensor's opening (``Tensor([[0.8, ...``), echoed whole or clipped
_PRINTED_VALUE = re.compile(r"(?<![\w.])(?:Tensor|tensor|ndarray|array)\(\[")
#: the name of a call that echoes how the check called the learner's code: its first
#: argument is a name with its shape, ``layer(x (2, 4, 8), ...)``, ``mha(query (2, 4, 8)``
_ECHOED_CALL = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\((?=\w+ \(\d)")


def _closing(text: str, start: int, opening: str, closing: str) -> int:
    """The index just past the bracket that closes the one at ``start``, or -1."""
    depth = 0
    for index in range(start, len(text)):
        if text[index] == opening:
            depth += 1
        elif text[index] == closing:
            depth -= 1
            if depth == 0:
                return index + 1
    return -1


def _without_printed_values(text: str) -> str:
    """``text`` with every printed array or tensor cut to ``Tensor(…)``, also one that the
    message clipped with "..." before its brackets closed (the call around it then still
    closes where the message closes it)."""
    pieces, position = [], 0
    for match in _PRINTED_VALUE.finditer(text):
        if match.start() < position:
            continue
        end = _closing(text, match.end() - 2, "(", ")")
        clipped = text.find("...", match.end())
        if clipped >= 0 and (end < 0 or clipped < end):
            end = clipped + 3
        if end < 0:
            break
        pieces.append(text[position : match.start()] + "Tensor(…)")
        position = end
    return "".join(pieces) + text[position:]


def _without_calls(text: str, name: str) -> str:
    """``text`` with every call of ``name`` (its arguments, chained calls such as
    ``RMSNorm(8)(x (2, 3, 8))`` and a ``[...]`` note on the setup right after) cut out."""
    pattern = re.compile(rf"(?<![\w.]){re.escape(name)}\(")
    pieces, position = [], 0
    for match in pattern.finditer(text):
        if match.start() < position:
            continue
        end = match.end() - 1
        while end < len(text) and text[end] == "(":
            end = _closing(text, end, "(", ")")
            if end < 0:
                return "".join(pieces) + text[position:]
        blank = end
        while blank < len(text) and text[blank] == " ":
            blank += 1
        if blank < len(text) and text[blank] == "[":
            end = max(end, _closing(text, blank, "[", "]"))
        pieces.append(text[position : match.start()] + name + "(…)")
        position = end
    return "".join(pieces) + text[position:]


def diagnostic_text(message: str, exercise: str = "") -> str:
    """What a message says about the learner's answer, without what it only echoes: the
    call as written (``calling `...```, every call of the exercise with its arguments and
    setup note, and every call whose first argument is echoed with its shape, such as
    ``layer(x (2, 4, 8), tgt_mask=... (look-ahead and target padding))``), printed tensors, shapes with dtypes, and the text of an
    exception the learner's own code raised (its class stays). The criteria are matched
    against this, so that a pattern for another cause (``top.?p``, ``float32``) does not
    match the call's ``top_p=0.4`` or a printed ``(5, 8) float32``."""
    text = re.sub(r"calling `[^`]*`", "calling `…`", message)
    text = _without_printed_values(text)
    echoed = {match.group(1) for match in _ECHOED_CALL.finditer(text)}
    for name in sorted({exercise, exercise.lower(), *echoed} - {""}):
        text = _without_calls(text, name)
    text = _ECHOED_VALUES.sub("…", text)
    return _RAISED_TEXT.sub(r"\1", text)


def classify(message: str, named_if, misnamed_if, exercise: str = "") -> str:
    """The verdict on ``message`` (see the module's docstring). ``misnamed_if`` is matched
    against :func:`diagnostic_text` alone: a message names another cause only in what it
    says, not in the call, values or exception text it echoes."""
    if not FALLBACK.search(message) and any(
        re.search(pattern, message, re.IGNORECASE) for pattern in named_if
    ):
        return "named"
    said = diagnostic_text(message, exercise)
    if any(re.search(pattern, said, re.IGNORECASE) for pattern in misnamed_if):
        return "misnamed"
    located = re.sub(r"largest difference .*?expected [^)]*\)", "", message, flags=re.DOTALL)
    return "pointed" if POINTED.search(located) else "generic"


def _judge(
    label, lesson, exercise, answer, named_if, misnamed_if, origin, cause, source, heldout=False
):
    started = time.perf_counter()
    visible = _run_check(exercise.check, answer, hidden=False)
    hidden = _run_check(exercise.check, answer, hidden=True)
    first = visible if visible is not None else hidden
    if first is None:
        # a mutant both checks pass is most likely equivalent; a case the contract accepts
        # (accepted.py) is accepted only while both checks pass it
        accepted = origin.startswith("mutant") or label in ACCEPTED_BY_CONTRACT
        verdict = "accepted" if accepted else "uncaught"
    else:
        verdict = classify(first, named_if, misnamed_if, exercise.name)
    return {
        "id": label,
        "lesson": lesson,
        "exercise": exercise.name,
        "origin": origin,
        "heldout": heldout,
        "cause": cause,
        "source": source,
        "visible": visible is not None,
        "hidden": hidden is not None,
        "verdict": verdict,
        "message": first,
        "seconds": round(time.perf_counter() - started, 2),
    }


def case_answer(case: Case):
    """The object the case's answer cell defines, and its exercise."""
    exercise = registry.exercise(case.lesson, case.exercise)
    return _learner_object(exercise, case_source(case, exercise), case.id), exercise


def run_case(case: Case) -> dict:
    answer, exercise = case_answer(case)
    return judge_answer(case, answer, exercise)


def judge_answer(case: Case, answer, exercise) -> dict:
    """``answer`` judged by ``case``'s criteria, as the records judge the case's own."""
    return _judge(
        case.id,
        case.lesson,
        exercise,
        answer,
        case.named_if,
        case.misnamed_if,
        "reported",
        case.cause,
        case.source,
        case.heldout,
    )


#: the next three mutants of every exercise, held out: first read after commit fcd53ed,
#: whose checks give their before-figure (generalisation.py's mechanical batch)
HELD_OUT_MUTANTS = (MUTANTS_PER_EXERCISE + 1, 2 * MUTANTS_PER_EXERCISE)
HELD_OUT_MUTANT_ORIGIN = "mutant, held out (numbers 4-6 of each exercise)"
#: the three after those, held out from round 6's fixes: judged at f093ee2 before them
#: (generalisation.py), never read while the checks were fixed
LATER_HELD_OUT_MUTANTS = (2 * MUTANTS_PER_EXERCISE + 1, 3 * MUTANTS_PER_EXERCISE)
LATER_HELD_OUT_MUTANT_ORIGIN = "mutant, held out (numbers 7-9 of each exercise)"
#: the three after those, held out from round 8's fixes (which read numbers 7-9): judged
#: before them (generalisation.py), never read while the checks were fixed
LAST_HELD_OUT_MUTANTS = (3 * MUTANTS_PER_EXERCISE + 1, 4 * MUTANTS_PER_EXERCISE)
LAST_HELD_OUT_MUTANT_ORIGIN = "mutant, held out (numbers 10-12 of each exercise)"
#: the three after those, held out from round 9's fixes (which read numbers 10-12): judged
#: before them (generalisation.py), never read while the checks were fixed
FIFTH_HELD_OUT_MUTANTS = (4 * MUTANTS_PER_EXERCISE + 1, 5 * MUTANTS_PER_EXERCISE)
FIFTH_HELD_OUT_MUTANT_ORIGIN = "mutant, held out (numbers 13-15 of each exercise)"
#: the three after those, held out from round 10's fixes (which read numbers 13-15): judged
#: before them (generalisation.py), never read while the checks were fixed
SIXTH_HELD_OUT_MUTANTS = (5 * MUTANTS_PER_EXERCISE + 1, 6 * MUTANTS_PER_EXERCISE)
SIXTH_HELD_OUT_MUTANT_ORIGIN = "mutant, held out (numbers 16-18 of each exercise)"
#: the three after those, held out from round 11's fixes (which read numbers 16-18): judged
#: before them (generalisation.py), never read while the checks were fixed
SEVENTH_HELD_OUT_MUTANTS = (6 * MUTANTS_PER_EXERCISE + 1, 7 * MUTANTS_PER_EXERCISE)
SEVENTH_HELD_OUT_MUTANT_ORIGIN = "mutant, held out (numbers 19-21 of each exercise)"
#: every mutant table: the numbers drawn, and the table's name
MUTANT_TABLES = (
    ((1, MUTANTS_PER_EXERCISE), "mutant"),
    (HELD_OUT_MUTANTS, HELD_OUT_MUTANT_ORIGIN),
    (LATER_HELD_OUT_MUTANTS, LATER_HELD_OUT_MUTANT_ORIGIN),
    (LAST_HELD_OUT_MUTANTS, LAST_HELD_OUT_MUTANT_ORIGIN),
    (FIFTH_HELD_OUT_MUTANTS, FIFTH_HELD_OUT_MUTANT_ORIGIN),
    (SIXTH_HELD_OUT_MUTANTS, SIXTH_HELD_OUT_MUTANT_ORIGIN),
    (SEVENTH_HELD_OUT_MUTANTS, SEVENTH_HELD_OUT_MUTANT_ORIGIN),
)


def mutant_results(
    lessons: set[str] | None = None,
    numbers: tuple[int, int] = (1, MUTANTS_PER_EXERCISE),
    origin: str = "mutant",
) -> list[dict]:
    """The mutants numbered ``numbers`` (first, last) of every exercise, in the seeded
    order :func:`~benchmarks.diagnosis.mutants.mutants` draws them (without replacement:
    numbers 4-6 are never one of 1-3), each judged."""
    first, last = numbers
    results = []
    for exercise in registry.all_exercises():
        if exercise.kind == "quiz" or (lessons and exercise.lesson not in lessons):
            continue
        source = _reference_source(exercise)
        seed = MUTANT_SEED + sum(map(ord, exercise.name))
        for number, (text, mutation) in enumerate(mutants(source, last, seed), start=1):
            if number < first:
                continue
            label = f"mutant-{exercise.name}-{number}"
            try:
                answer = _learner_object(exercise, text, label)
            except Exception:  # the mutant does not even define the object
                continue
            result = _judge(
                label,
                exercise.lesson,
                exercise,
                answer,
                [OPERATION_WORDS[mutation.kind]],
                [ASSERTS_CAUSE.pattern],
                origin,
                f"{mutation.kind}: {mutation.describe}",
                "mechanical",
            )
            hand = HAND_VERDICTS.get((exercise.name, re.sub(r"line \d+: ", "", result["cause"])))
            if hand and result["message"] and re.search(hand[1], result["message"]):
                result["verdict"] = hand[0]
                result["judged"] = f"by hand: {hand[2]}"
            results.append(result)
    return results


#: the table of the cases written before their round's fixes
HELD_OUT = "reported, held out (written before the fixes of their round)"

COLUMNS = ("cases", "visible", "hidden", "named", "pointed", "generic", "misnamed", "uncaught")


def table(results: list[dict]) -> dict[str, dict[str, dict[str, int]]]:
    """{origin: {lesson: {column: count}}}, the held-out cases under their own origin
    (:data:`HELD_OUT`); mutants both checks accept are left out of "cases" and counted
    under "accepted"."""
    out: dict[str, dict[str, dict[str, int]]] = {}
    for result in results:
        origin = HELD_OUT if result.get("heldout") else result["origin"]
        row = out.setdefault(origin, {}).setdefault(
            result["lesson"], dict.fromkeys((*COLUMNS, "accepted"), 0)
        )
        if result["verdict"] == "accepted":
            row["accepted"] += 1
            continue
        row["cases"] += 1
        row["visible"] += result["visible"]
        row["hidden"] += result["hidden"]
        row[result["verdict"]] += 1
    for rows in out.values():
        total = Counter()
        for row in rows.values():
            total.update(row)
        rows["all"] = {key: total[key] for key in (*COLUMNS, "accepted")}
    return {origin: dict(sorted(rows.items())) for origin, rows in sorted(out.items())}


def markdown(figures: dict) -> str:
    lines = []
    for origin, rows in figures.items():
        lines.append(f"{origin}:")
        lines.append("")
        lines.append("| lesson | " + " | ".join(COLUMNS) + " | named % | accepted |")
        lines.append("|" + "---|" * (len(COLUMNS) + 3))
        for lesson, row in rows.items():
            share = f"{100 * row['named'] / row['cases']:.0f}" if row["cases"] else "-"
            cells = " | ".join(str(row[key]) for key in COLUMNS)
            lines.append(f"| {lesson} | {cells} | {share} | {row['accepted']} |")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def sources_digest() -> str:
    """A hash of everything that decides the records: every lesson's checks and reference with
    the course modules they import (as the grader's fingerprint follows them), and the
    benchmark's runner, mutator and cases. The records store it, so that a test can prove
    them current for every lesson without re-running them."""
    from transformer_course.grader.lesson import PACKAGE_DIR, course_dependencies

    roots = ["transformer_course.registry"]
    for lesson in registry.lessons():
        topic = registry.lesson_topic(lesson)
        roots += [f"transformer_course.checks.{topic}", f"transformer_course.reference.{topic}"]
    benchmark = [
        HERE / "run.py",
        HERE / "mutants.py",
        HERE / "accepted.py",
        *sorted(HERE.glob("cases*.py")),
    ]
    digest = hashlib.sha256()
    for path in course_dependencies(roots):
        digest.update(path.relative_to(PACKAGE_DIR).as_posix().encode())
        digest.update(path.read_bytes())
    for path in benchmark:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _lessons_in_order() -> list[str]:
    """Every lesson, in the order of the registry (the cases' and the mutants' order)."""
    return list(dict.fromkeys(exercise.lesson for exercise in registry.all_exercises()))


def _lesson_results(lesson: str, tables) -> tuple[list[dict], list[list[dict]]]:
    """One lesson's cases judged, and its mutants of each table (``tables``: entries of
    :data:`MUTANT_TABLES`)."""
    import torch

    torch.set_num_threads(1)
    cases = [run_case(case) for case in CASES if case.lesson == lesson]
    return cases, [mutant_results({lesson}, numbers, origin) for numbers, origin in tables]


HASH_SEED = "0"
"""PYTHONHASHSEED of every process that judges answers (``python -m benchmarks.diagnosis``
re-starts itself under it; generalisation's and controls' runs set it)."""


def with_hash_seed(env: dict[str, str]) -> dict[str, str]:
    """``env`` with :data:`HASH_SEED` set, for a subprocess that judges answers."""
    return {**env, "PYTHONHASHSEED": HASH_SEED}


def run_under_hash_seed(argv: list[str]) -> None:
    """Re-start ``python -m benchmarks.diagnosis`` under :data:`HASH_SEED` unless it already
    runs under it (a set's order is fixed when the interpreter starts)."""
    if os.environ.get("PYTHONHASHSEED") != HASH_SEED:
        command = [sys.executable, "-m", "benchmarks.diagnosis", *argv]
        os.execve(sys.executable, command, with_hash_seed(dict(os.environ)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lesson", action="append", help="only these lessons (no records)")
    parser.add_argument("--show", action="store_true", help="print every case's message")
    parser.add_argument("--no-mutants", action="store_true")
    parser.add_argument(
        "--mutants-up-to",
        type=int,
        metavar="N",
        help="only the mutant tables numbered N and below (no records): a round that fixes "
        "the checks reads these and leaves the later, held-out tables unread",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="run the answers in N processes, a lesson at a time each (the results and their "
        "order are those of one process)",
    )
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    lessons = set(args.lesson) if args.lesson else None
    tables = [
        table_
        for table_ in MUTANT_TABLES
        if not args.no_mutants
        and (args.mutants_up_to is None or table_[0][1] <= args.mutants_up_to)
    ]
    started = time.perf_counter()
    chosen = [lesson for lesson in _lessons_in_order() if not lessons or lesson in lessons]
    if args.jobs > 1:
        import concurrent.futures
        import multiprocessing

        with concurrent.futures.ProcessPoolExecutor(
            args.jobs, mp_context=multiprocessing.get_context("fork")
        ) as pool:
            parts = list(pool.map(_lesson_results, chosen, [tables] * len(chosen)))
    else:
        parts = [_lesson_results(lesson, tables) for lesson in chosen]
    # the order of one process: every case as CASES lists them, then each mutant table,
    # lesson by lesson
    position = {case.id: index for index, case in enumerate(CASES)}
    results = sorted((r for cases, _ in parts for r in cases), key=lambda r: position[r["id"]])
    for index in range(len(tables)):
        results += [result for _, mutant_tables in parts for result in mutant_tables[index]]
    figures = table(results)
    if args.show:
        for result in results:
            print(f"--- {result['id']} [{result['verdict']}] cause: {result['cause']}")
            print(textwrap.indent(str(result["message"]), "    "))
    print(markdown(figures))
    seconds = time.perf_counter() - started
    load = Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"
    print(f"{len(results)} answers in {seconds:.0f} s (load average {load})")
    if not lessons and not args.no_mutants and args.mutants_up_to is None:
        RECORDS.write_text(
            json.dumps(
                {"sources": sources_digest(), "figures": figures, "results": results},
                indent=1,
                ensure_ascii=False,
            )
            + "\n"
        )
        print(
            f"wrote {RECORDS.relative_to(Path.cwd()) if RECORDS.is_relative_to(Path.cwd()) else RECORDS}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
