"""Held-out wrong answers for lesson 12, blind round 17 (helper b17e, 2026-11-28):
mistakes new to the benchmark, written against the checks after round 19's fixes, to
measure how the diagnoses generalise to mistakes nobody here has seen. Written blind, from
the reference solutions alone, all the author's (no public report was read in the time
given); cause and criteria were written before any run.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L12 = "12_inference"

_c = held_out_authored("blind17e")

BLIND17E: list[Case] = [
    _c(
        "kvcache-length-advances-by-one",
        L12,
        "KVCache",
        "forward advances self.length by 1 instead of by the number of new positions "
        "(k_new.shape[-2]): after a multi-token prefill the next step overwrites the "
        "prompt's later keys and the returned cache is too short.",
        (
            r"length.{0,80}(by 1|by one|one per call|instead of.{0,30}(new|k_new|positions))",
            r"(advance|grow|increase).{0,60}(number of new|new positions|k_new\.shape)",
            r"(overwrit|overwrote).{0,60}(prompt|earlier|previous)",
        ),
        (r"(clone|copy).{0,40}(missing|not)", r"(dim|axis).{0,30}(wrong|instead)"),
        edits=(("self.length = stop", "self.length = start + 1"),),
    ),
    _c(
        "generate-decode-start-off-by-one",
        L12,
        "generate",
        "each decode step passes start=length + step + 1 instead of length + step: the new "
        "token is placed one position too far (rotary angle and cache slot).",
        (
            r"start.{0,80}(one|1) (too|position|past|ahead|off)",
            r"off[- ]by[- ]one.{0,60}(start|position)",
            r"start=.{0,40}(length|len) \+ step\b(?! \+)",
        ),
        (r"prefill.{0,40}(missing|not)", r"argmax.{0,40}(dim|axis)"),
        edits=(("start=length + step)[:, -1]", "start=length + step + 1)[:, -1]"),),
    ),
    _c(
        "gqa-repeat-interleave-on-length-axis",
        L12,
        "grouped_query_attention",
        "the keys and values are repeated along the length axis (dim=2) instead of the "
        "head axis (dim=1), so each query head attends to len_k * group duplicated keys of "
        "one kv head.",
        (
            r"(dim|axis)[ =]*2\b.{0,80}(head|dim[ =]*1)",
            r"(length|len_k|sequence) (axis|dim).{0,60}(instead|not).{0,30}head",
            r"repeat(ed|_interleave)?.{0,60}(length|sequence) (axis|dim)",
        ),
        (r"\brepeat\(\).{0,30}(tile|instead of repeat_interleave)", r"h // group.{0,20}wrong"),
        edits=(
            (
                "k = k.repeat_interleave(group, dim=1)",
                "k = k.repeat_interleave(group, dim=2)",
            ),
            (
                "v = v.repeat_interleave(group, dim=1)",
                "v = v.repeat_interleave(group, dim=2)",
            ),
        ),
    ),
    _c(
        "online-softmax-correction-sign",
        L12,
        "online_softmax",
        "the running sum is rescaled by exp(new_max - running_max) instead of "
        "exp(running_max - new_max): whenever a later block raises the maximum, the old "
        "sum is multiplied up instead of down.",
        (
            r"exp\((new_max|new max) - (running_max|old)",
            r"(rescal|correct).{0,80}(sign|invert|inverse|upside|the wrong way|reciprocal)",
            r"exp\(old.{0,10}- new.{0,40}(not|instead)",
        ),
        (r"block_size.{0,40}(last|shorter)", r"(initial|start).{0,30}-inf"),
        edits=(
            (
                "total = total * torch.exp(running_max - new_max) + torch.exp(",
                "total = total * torch.exp(new_max - running_max) + torch.exp(",
            ),
        ),
    ),
    _c(
        "tiled-causal-masks-diagonal",
        L12,
        "tiled_attention",
        "with causal=True the future test uses >= instead of >, so each query is also "
        "barred from its own key (query 0 sees no key at all and its row is NaN).",
        (
            r"(own|its own|same|diagonal).{0,60}(key|position).{0,60}(mask|hidden|barred|excluded)",
            r"(mask|hid|bar|exclud).{0,60}(diagonal|its own key|itself)",
            r">=.{0,40}instead of >",
        ),
        (r"scale.{0,40}sqrt", r"correction.{0,40}(missing|not)"),
        edits=(
            (
                "future = torch.arange(start, stop)[None, :] > query_positions",
                "future = torch.arange(start, stop)[None, :] >= query_positions",
            ),
        ),
    ),
    _c(
        "tiled-causal-bottom-right-aligned",
        L12,
        "tiled_attention",
        "with causal=True the query positions are offset by len_k - len_q (the causal "
        "mask aligned to the bottom right, as for a KV cache) instead of starting at 0 as "
        "is_causal=True does; wrong only when len_q < len_k.",
        (
            r"len_k - len_q",
            r"(bottom[- ]right|top[- ]left)",
            r"(offset|shift).{0,60}(query|queries)",
        ),
        (r"scale.{0,40}sqrt", r"correction.{0,40}(missing|not)", r"diagonal"),
        edits=(
            (
                "query_positions = torch.arange(len_q)[:, None]",
                "query_positions = torch.arange(len_k - len_q, len_k)[:, None]",
            ),
        ),
    ),
    _c(
        "sliding-window-one-too-wide",
        L12,
        "sliding_window_mask",
        "the band uses diagonal=-window instead of 1 - window, so each query sees window + 1 "
        "keys (itself and window before it).",
        (
            r"window \+ 1",
            r"one (key|position) too (many|far|wide)",
            r"(1 - window|-window).{0,60}(diagonal|instead)",
        ),
        (r"look.?ahead.{0,40}(missing|not)", r"future"),
        edits=(("diagonal=1 - window)", "diagonal=-window)"),),
    ),
    _c(
        "quiz-cache-memory-keys-only",
        L12,
        "quiz_cache_memory",
        "the cache size counts only the keys (or only the values): the factor 2 for K and "
        "V is missing, giving half the answer.",
        (
            r"(keys? and values?|K and V|both).{0,60}(twice|2|factor|count)",
            r"half",
        ),
        (r"bytes?.{0,30}(fp16|float16|2 bytes)", r"2\*\*20|MiB.{0,20}MB"),
        edits=(
            (
                "return 2 * 48 * 8 * 128 * 1024 * 2 / 2**20",
                "return 48 * 8 * 128 * 1024 * 2 / 2**20",
            ),
        ),
    ),
]
