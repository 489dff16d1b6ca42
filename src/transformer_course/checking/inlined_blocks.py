"""A stack that runs its blocks' sub-layers itself, not the blocks: where it departs.

A model whose loop writes ``x = x + block.attn(block.norm1(x)) + ...`` instead of
``x = block(x)`` never runs the blocks' own forward, so a localiser that hooks the blocks
(``layers.0``, ``layers.1``) sees nothing, and the check said only that the logits differ
(blind30c-gpt-parallel-residual: GPT-J's parallel residual written in the GPT's loop). The
sub-layers still run as modules: :func:`inlined_departure` hooks them (forward hooks only
observe) and replays a pre-norm residual block on what they returned: each branch's norm
must receive the stream, its sub-layer the norm's output, and the stream grows by the
sub-layer's output; the next block (or the final norm) must receive the last stream. The
first input that departs is said, and, where the values show one, its structural cause:
the branches side by side (a parallel block: every norm reads the block's input, and the
block adds every branch to it once), a residual not added, the stream before a branch.
Each cause is stated only when the values the learner's own sub-layers returned give it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import nn

from transformer_course.checking.localise import record_calls

__all__ = ["inlined_departure"]


def _close(a: Any, b: Any) -> bool:
    if not isinstance(a, torch.Tensor) or not isinstance(b, torch.Tensor):
        return False
    a, b = a.detach().double(), b.detach().double()
    return a.shape == b.shape and bool(torch.allclose(a, b, rtol=1e-4, atol=1e-5))


def inlined_departure(
    module: nn.Module,
    call: Callable[[], Any],
    x: torch.Tensor,
    num_layers: int,
    *,
    branches: Sequence[tuple[str, str]],
    container: str = "layers",
    final: str | None = None,
    input_name: str = "the stack's input",
) -> str:
    """Where a stack whose blocks' own forward never runs, while their sub-layers do,
    first departs from a pre-norm residual block (``branches``: (norm, sub-layer) per
    residual branch, in order, e.g. (("norm1", "attn"), ("norm2", "feed_forward"))); the
    stack's input ``x`` feeds block 0, block i's output block i + 1, the last block's the
    module ``final`` (the final norm), when given. "" when the blocks' forward runs, a
    sub-layer is not called exactly once per block, or nothing departs."""
    blocks = [f"{container}.{i}" for i in range(num_layers)]
    steps = [f"{block}.{name}" for block in blocks for pair in branches for name in pair]
    try:
        _, records = record_calls(module, [*blocks, *steps, *([final] if final else [])], call)
    except Exception:  # the learner's module raised, or differs from call to call
        return ""
    names = [name for name, _, _ in records]
    if any(block in names for block in blocks) or len(names) != len(set(names)):
        return ""  # the blocks run as modules (the stack's localiser), or a step twice
    seen = {name: (inp, out) for name, inp, out in records}
    if any(step not in seen for step in steps):
        return ""
    inlined = (
        f" (your loop calls the blocks' sub-layers itself, so {container}[i]'s own forward "
        "never runs)"
    )
    stream = x.detach().double()  # what the block should receive
    for i, block in enumerate(blocks):
        start = stream
        received = seen[f"{block}.{branches[0][0]}"][0]
        if not _close(received, start):
            source = input_name if i == 0 else f"{container}[{i - 1}]'s output"
            return (
                f"{block}.{branches[0][0]} does not receive {source}{inlined}. Run each block "
                f"on the previous one's output: for block in self.{container}: x = block(x)."
            )
        outputs = []
        for number, (norm, sublayer) in enumerate(branches):
            norm_in, norm_out = seen[f"{block}.{norm}"]
            sub_in, sub_out = seen[f"{block}.{sublayer}"]
            if norm_out is None or sub_out is None:
                return ""
            if number and not _close(norm_in, stream):
                return _branch_input(
                    block,
                    branches,
                    number,
                    norm_in,
                    start,
                    stream,
                    outputs,
                    sub_out,
                    seen,
                    blocks,
                    i,
                    final,
                    inlined,
                    container,
                )
            if not _close(sub_in, norm_out):
                return (
                    f"{block}.{sublayer} does not receive {block}.{norm}'s output{inlined}: "
                    f"each sub-layer reads its own norm's output, {sublayer}({norm}(x))."
                )
            outputs.append(sub_out.detach().double())
            stream = stream + outputs[-1]
    if final is not None and final in seen and not _close(seen[final][0], stream):
        return (
            f"The final norm, {final}, does not receive {container}[{num_layers - 1}]'s "
            f"output, the stream after every residual branch{inlined}."
        )
    return ""


def _next_input(seen, blocks, i: int, first_norm: str, final: str | None):
    """What the step after block i received: block i + 1's first norm, or the final norm."""
    if i + 1 < len(blocks):
        return seen[f"{blocks[i + 1]}.{first_norm}"][0]
    return seen[final][0] if final is not None and final in seen else None


def _branch_input(
    block,
    branches,
    number,
    norm_in,
    start,
    stream,
    outputs,
    sub_out,
    seen,
    blocks,
    i,
    final,
    inlined,
    container,
) -> str:
    """Branch ``number``'s norm received something other than the stream so far: the
    block's input (a parallel block, confirmed when the block's output is its input plus
    every branch), or the stream without an earlier branch's residual."""
    norm, sublayer = branches[number]
    wanted = (
        f"x + {branches[0][1]}({branches[0][0]}(x))"
        if number == 1
        else f"the stream after the {number} earlier residual branches"
    )
    if _close(norm_in, start):
        every = start + sum(outputs) + sub_out.detach().double()
        for later in branches[number + 1 :]:
            later_in = seen[f"{block}.{later[0]}"][0]
            if not _close(later_in, start):
                every = None
                break
            every = every + seen[f"{block}.{later[1]}"][1].detach().double()
        after = _next_input(seen, blocks, i, branches[0][0], final)
        if every is not None and _close(after, every):
            written = " + ".join(["x", *(f"{s}({n}(x))" for n, s in branches)])
            return (
                f"{block}.{norm} receives the block's input x, not {wanted}{inlined}: your "
                f"blocks run their sub-layers side by side and add them to x once, {written}: "
                "the parallel residual of GPT-J and GPT-NeoX, or a stale name (x where the "
                f"new stream h belongs, in {norm}(x)). This block is sequential: "
                f"h = x + {branches[0][1]}({branches[0][0]}(x)), then h + {sublayer}({norm}(h)), "
                f"{sublayer} reading the stream after {branches[0][1]}'s residual. Call the block "
                f"itself, x = block(x), whose forward does that."
            )
        dropped = start + sub_out.detach().double()
        if number == 1 and after is not None and _close(after, dropped):
            return (
                f"{block}.{norm} receives the block's input x, not {wanted}{inlined}, and the "
                f"block's output is x + {sublayer}({norm}(x)): {branches[0][1]}'s output never "
                f"reaches the stream (computed, then dropped). Call the block itself, x = "
                f"block(x): h = x + {branches[0][1]}({branches[0][0]}(x)), then h + "
                f"{sublayer}({norm}(h))."
            )
        return (
            f"{block}.{norm} receives the block's input x, not {wanted}{inlined}: {sublayer} "
            "reads the stream before the earlier branch's residual is added. Call the block "
            "itself, x = block(x)."
        )
    return (
        f"{block}.{norm} does not receive {wanted}, the stream after the earlier residual "
        f"branch{inlined}. Call the block itself, x = block(x): h = x + "
        f"{branches[0][1]}({branches[0][0]}(x)), then h + {sublayer}({norm}(h))."
    )
