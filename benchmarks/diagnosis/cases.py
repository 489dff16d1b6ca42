"""The benchmark's hand-written wrong answers, one per case.

Each case is a learner's answer written for this benchmark (by editing the course's own
reference, ``edits``, or from scratch, ``code``; nothing is copied from a public
repository), with its ``cause`` in one sentence and the judging criteria, all written
before any check's message was read: ``named_if``, patterns (regular expressions,
case-insensitive) a message must contain to name that cause; ``misnamed_if``, patterns
that would name another cause. ``source`` says where learners report the mistake (an
issue thread or Q&A page read for this benchmark), or "author: ..." where no public report
was found in the time given (the mistake is then the author's own, written as a learner
would).

These cases are kept apart from the mistake tables that tests/test_*.py assert on
(tests/test_diagnosis_benchmark.py checks that no case's code is one of them).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    id: str
    lesson: str
    exercise: str
    cause: str
    source: str
    named_if: tuple[str, ...]
    misnamed_if: tuple[str, ...] = ()
    edits: tuple[tuple[str, str], ...] = ()
    code: str | None = None
    #: True for the cases written in a later round, committed before any fix of that round
    #: was made: the figures over them measure how the diagnoses generalise to mistakes
    #: the checks were not tuned on.
    heldout: bool = False


def held_out(prefix: str):
    """The constructor of one blind batch's cases: ids ``prefix-...``, criteria as tuples,
    every case held out. ``make(id_, lesson, exercise, cause, source, named, misnamed=(),
    edits=(), code=None)``: a wrong answer as edits of the reference, or as its code."""

    def make(id_, lesson, exercise, cause, source, named, misnamed=(), edits=(), code=None) -> Case:
        return Case(
            f"{prefix}-{id_}",
            lesson,
            exercise,
            cause,
            source,
            tuple(named),
            tuple(misnamed),
            edits=tuple(edits),
            code=code,
            heldout=True,
        )

    return make


def held_out_authored(prefix: str):
    """:func:`held_out`'s constructor with the source last and optional:
    ``make(id_, lesson, exercise, cause, named, misnamed=(), edits=(), code=None,
    source=AUTHOR)``, for batches whose cases are mostly reported ones given as ``source=``
    and the rest written for the benchmark."""
    make = held_out(prefix)

    def make_authored(
        id_, lesson, exercise, cause, named, misnamed=(), edits=(), code=None, source=None
    ) -> Case:
        source = AUTHOR if source is None else source
        return make(id_, lesson, exercise, cause, source, named, misnamed, edits, code)

    return make_authored


# Where these mistakes are reported (each URL was read for this benchmark).
ANNOTATED_MASK = "https://github.com/harvardnlp/annotated-transformer/issues/137"
TUTORIAL_MASK = "https://github.com/pytorch/tutorials/issues/2250"
FORMER_MASK = "https://github.com/pbloem/former/issues/10"
MINBPE_OVERLAP = "https://github.com/karpathy/minbpe/pull/72"
MINBPE_ORDER = "https://github.com/karpathy/minbpe/issues/93"
KV_POSITIONS = "https://github.com/ml-explore/mlx-lm/pull/93"
KV_BREAKS = "https://github.com/lucidrains/x-transformers/issues/219"
KV_FIRST_TOKEN = "https://github.com/TrenTorch/TrenTorch/pull/192"
KV_GQA = "https://github.com/facebookresearch/lingua/issues/44"
KV_WINDOW = "https://github.com/rasbt/LLMs-from-scratch/pull/925"
BEAM_EOS = "https://github.com/facebookresearch/ParlAI/issues/2058"
BEAM_STOP = "https://github.com/joeynmt/joeynmt/issues/148"
BEAM_LENGTH = "https://github.com/huggingface/transformers/issues/8722"
BEAM_PENALTY = "https://github.com/jarobyte91/pytorch_beam_search/issues/5"
BEAM_OFF_BY_ONE = "https://github.com/tnq177/witwicky/pull/8"
SMOOTH_PAD_COUNT = "https://github.com/eladhoffer/utils.pytorch/issues/4"
SMOOTH_PAD_HF = "https://github.com/huggingface/transformers/pull/5919"
SMOOTH_PAD_TORCH = "https://github.com/pytorch/pytorch/issues/73205"
SMOOTH_V2 = "https://github.com/OpenNMT/OpenNMT-py/issues/1463"
SOFTMAX_CE = "https://openillumi.com/en/en-pytorch-crossentropy-logits-nllloss-mechanism"
SOFTMAX_DIM = "https://runebook.dev/en/docs/pytorch/generated/torch.tensor.softmax"
SDPA_SCALE = "https://github.com/chenjunyi1999/Translator-Transformer/issues/1"
ROPE_LAYOUT = "https://github.com/huggingface/transformers/issues/25199"
TOP_P = "https://github.com/rasbt/reasoning-from-scratch/issues/164"
TOP_K = "https://github.com/kingoflolz/mesh-transformer-jax/issues/164"
TYING = "https://github.com/karpathy/nanoGPT/pull/21"
RMS_EPS = "https://github.com/allenai/OLMo/issues/281"
RMS_BUG = "https://github.com/mosaicml/llm-foundry/issues/371"
MODULE_LIST = (
    "https://discuss.pytorch.org/t/when-should-i-use-nn-modulelist-and-when-should-i-use-"
    "nn-sequential/5463"
)
#: no public report was found for this one in the time given: the author's own
AUTHOR = "author: written for this benchmark, no public report cited"

L10, L11, L12 = "10_training", "11_language_model", "12_inference"

CASES: list[Case] = [
    # ------------------------------------------------------------------ 12 inference
    Case(
        "kv-length-never-advances",
        L12,
        "KVCache",
        "forward never advances self.length, so every chunk overwrites position 0 and "
        "only the newest positions come back.",
        KV_BREAKS,
        (r"self\.length|never advance|not advance|overwrit",),
        (r"returned only the new positions",),
        edits=(("self.length = stop", "pass"),),
    ),
    Case(
        "kv-returns-whole-buffer",
        L12,
        "KVCache",
        "returns the whole max_len buffers, unfilled zeros included, not the stored positions.",
        KV_FIRST_TOKEN,
        (r"max_len|whole buffer|unfilled|not yet (stored|filled)|zeros",),
        edits=(
            (
                "return self.keys[:, :, :stop], self.values[:, :, :stop]",
                "return self.keys, self.values",
            ),
        ),
    ),
    Case(
        "kv-no-overflow-check",
        L12,
        "KVCache",
        "no check that the chunk fits: storing past max_len fails with a raw shape "
        "RuntimeError instead of the ValueError the contract asks for.",
        KV_WINDOW,
        (r"ValueError",),
        edits=(
            (
                "if stop > self.keys.shape[-2]:",
                "if False:",
            ),
        ),
    ),
    Case(
        "kv-persistent-buffers",
        L12,
        "KVCache",
        "registers the buffers as persistent, so they land in the model's state_dict.",
        KV_FIRST_TOKEN,
        (r"persistent",),
        edits=(
            ("persistent=False)", "persistent=True)"),
            ("persistent=False)", "persistent=True)"),
        ),
    ),
    Case(
        "kv-cat-feature-axis",
        L12,
        "KVCache",
        "a growing cache that concatenates along the feature axis (dim=-1) instead of the "
        "position axis (dim=-2).",
        KV_BREAKS,
        (r"dim=-2|position axis|positions axis|along the wrong|axis -2|axis 2|feature axis",),
        code="""
class KVCache(nn.Module):
    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
        super().__init__()
        self.max_len = max_len
        empty = torch.zeros(batch, num_heads, 0, d_head, dtype=dtype)
        self.register_buffer("keys", empty, persistent=False)
        self.register_buffer("values", empty.clone(), persistent=False)
        self.length = 0

    def forward(self, k_new, v_new):
        if self.length + k_new.shape[-2] > self.max_len:
            raise ValueError("cache full")
        self.keys = torch.cat([self.keys, k_new], dim=-1)
        self.values = torch.cat([self.values, v_new], dim=-1)
        self.length += k_new.shape[-2]
        return self.keys, self.values
""",
    ),
    Case(
        "kv-ignores-dtype",
        L12,
        "KVCache",
        "ignores the dtype argument: the buffers are always float32.",
        KV_FIRST_TOKEN,
        (r"dtype",),
        edits=(
            ("torch.zeros(shape, dtype=dtype)", "torch.zeros(shape)"),
            ("torch.zeros(shape, dtype=dtype)", "torch.zeros(shape)"),
        ),
    ),
    Case(
        "kv-one-sequence",
        L12,
        "KVCache",
        "allocates the buffers for one sequence (batch 1), so a batch cannot be stored.",
        KV_GQA,
        (r"\bbatch\b.*(buffer|alloc|1\b)|one (row|sequence)|batch dimension|batch size",),
        edits=(
            (
                "shape = (batch, num_heads, max_len, d_head)",
                "shape = (1, num_heads, max_len, d_head)",
            ),
        ),
    ),
    Case(
        "kv-length-one-short",
        L12,
        "KVCache",
        "advances length one position too few, so the next chunk overwrites the last "
        "stored position.",
        KV_POSITIONS,
        (r"overwrit|off by one|one (position )?too few|self\.length",),
        edits=(("self.length = stop", "self.length = stop - 1"),),
    ),
    Case(
        "gen-stale-start",
        L12,
        "generate",
        "every new token is run at the same position: start stays at the prompt's "
        "length instead of advancing each step.",
        KV_POSITIONS,
        (
            r"`?start`?.{0,40}(advanc|same|stale|never|each step|length \+ step)"
            r"|same position|position.{0,30}not advanc",
        ),
        edits=(("start=length + step)", "start=length)"),),
    ),
    Case(
        "gen-prompt-without-cache",
        L12,
        "generate",
        "the prompt is run without the caches, so they stay empty and the new tokens "
        "attend to nothing of the prompt.",
        KV_FIRST_TOKEN,
        (r"prompt.{0,60}(without|no|not).{0,20}cache|prefill|caches? (stay|stays|are|is) empty",),
        edits=(("model(prompt, caches=caches, start=0)", "model(prompt)"),),
    ),
    Case(
        "gen-logits-one-step-late",
        L12,
        "generate",
        "the logits are recorded after the next step's forward pass, one step late.",
        KV_BREAKS,
        (r"one step late|late|one step (behind|ahead)|shifted by one|next step's",),
        code="""
@torch.no_grad()
def generate(model, prompt, max_new_tokens):
    batch, length = prompt.shape
    caches = model.new_caches(batch, length + max_new_tokens + 1)
    logits = model(prompt, caches=caches, start=0)[:, -1]
    ids, steps = prompt, []
    for step in range(max_new_tokens):
        next_id = logits.argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
        logits = model(next_id, caches=caches, start=length + step)[:, -1]
        steps.append(logits)
    return ids, torch.stack(steps, dim=1)
""",
    ),
    Case(
        "gen-fresh-caches",
        L12,
        "generate",
        "a fresh, empty set of caches is made at every step, so each new token attends "
        "to itself only.",
        KV_BREAKS,
        (r"fresh|new_caches|new (empty )?caches? (every|each)|empty cache|every step",),
        edits=(
            (
                "model(next_id, caches=caches, start=length + step)",
                "model(next_id, caches=model.new_caches(batch, length + max_new_tokens), "
                "start=length + step)",
            ),
        ),
    ),
    Case(
        "gen-cache-too-small",
        L12,
        "generate",
        "the caches are sized for the prompt only (max_len=len), so they overflow at the "
        "first generated token.",
        KV_WINDOW,
        (r"len \+ max_new_tokens|length \+ max_new_tokens|too small|room for|max_len",),
        edits=(
            (
                "model.new_caches(batch, length + max_new_tokens)",
                "model.new_caches(batch, length)",
            ),
        ),
    ),
    Case(
        "gen-start-one-too-far",
        L12,
        "generate",
        "each new token is rotated one position too far (start = length + step + 1).",
        KV_POSITIONS,
        (r"start.{0,60}(one|off|\+ 1)|off by one|one position (too|later|ahead)",),
        edits=(("start=length + step)", "start=length + step + 1)"),),
    ),
    Case(
        "gen-argmax-batch-axis",
        L12,
        "generate",
        "the argmax is taken over the batch axis instead of the vocabulary.",
        SOFTMAX_DIM,
        (r"argmax|vocabulary axis|over the batch|axis|dim=-1",),
        edits=(("logits.argmax(dim=-1, keepdim=True)", "logits.argmax(dim=0, keepdim=True).T"),),
    ),
    Case(
        "gen-new-tokens-only",
        L12,
        "generate",
        "returns only the generated tokens, without the prompt in front.",
        KV_BREAKS,
        (r"prompt",),
        edits=(("return ids, torch.stack", "return ids[:, length:], torch.stack"),),
    ),
    Case(
        "gqa-tile-not-interleave",
        L12,
        "grouped_query_attention",
        "tiles the key/value heads (repeat: head h uses h % num_kv_heads) instead of "
        "interleaving them (h // group).",
        KV_GQA,
        (r"repeat_interleave|interleav|h // |h % |tile|repeat\(",),
        edits=(
            ("k.repeat_interleave(group, dim=1)", "k.repeat(1, group, 1, 1)"),
            ("v.repeat_interleave(group, dim=1)", "v.repeat(1, group, 1, 1)"),
        ),
    ),
    Case(
        "gqa-group-inverted",
        L12,
        "grouped_query_attention",
        "the group size is computed the wrong way round (num_kv_heads // num_heads).",
        KV_GQA,
        (r"group",),
        edits=(("group = q.shape[1] // k.shape[1]", "group = max(k.shape[1] // q.shape[1], 1)"),),
    ),
    Case(
        "gqa-no-scale",
        L12,
        "grouped_query_attention",
        "the scores are not divided by sqrt(d_head).",
        SDPA_SCALE,
        (r"sqrt|scal",),
        code="""
def grouped_query_attention(q, k, v, mask=None):
    group = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    scores = q @ k.transpose(-2, -1)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v
""",
    ),
    Case(
        "gqa-mask-ignored",
        L12,
        "grouped_query_attention",
        "the mask argument is never applied.",
        KV_GQA,
        (r"mask.{0,40}(ignored|not applied|never|unused|missing)|ignor.{0,30}mask",),
        edits=(
            (
                "scaled_dot_product_attention(q, k, v, mask)",
                "scaled_dot_product_attention(q, k, v)",
            ),
        ),
    ),
    Case(
        "gqa-softmax-query-axis",
        L12,
        "grouped_query_attention",
        "the softmax runs over the query axis (dim=-2) instead of the keys.",
        SOFTMAX_DIM,
        (r"axis|dim=-2|over the quer|over the keys|columns",),
        code="""
def grouped_query_attention(q, k, v, mask=None):
    group = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores, dim=-2) @ v
""",
    ),
    Case(
        "gqa-repeat-position-axis",
        L12,
        "grouped_query_attention",
        "repeats the key/value heads along the position axis (dim=2) instead of the head "
        "axis (dim=1).",
        KV_GQA,
        (r"head axis|dim=1|axis 1|position axis|along the wrong|positions axis",),
        edits=(
            ("k.repeat_interleave(group, dim=1)", "k.repeat_interleave(group, dim=2)"),
            ("v.repeat_interleave(group, dim=1)", "v.repeat_interleave(group, dim=2)"),
        ),
    ),
    Case(
        "gqa-mask-inverted",
        L12,
        "grouped_query_attention",
        "reads the mask the wrong way round (True taken as blocked).",
        ANNOTATED_MASK,
        (r"invert|True = may attend|True means|~mask|opposite|flip|wrong way",),
        edits=(
            (
                "scaled_dot_product_attention(q, k, v, mask)",
                "scaled_dot_product_attention(q, k, v, None if mask is None else ~mask)",
            ),
        ),
    ),
    Case(
        "online-correction-inverted",
        L12,
        "online_softmax",
        "the running sum is rescaled by exp(new_max - old_max), the inverse of the factor.",
        "https://github.com/pytorch/pytorch/issues/73205",
        (r"rescal|correction|invert|exp\((m_old|old|running_max|running max) ?- ?(m_new|new)",),
        (r"overflow",),
        edits=(
            (
                "total * torch.exp(running_max - new_max)",
                "total * torch.exp(new_max - running_max)",
            ),
        ),
    ),
    Case(
        "online-no-rescale",
        L12,
        "online_softmax",
        "the running sum is not rescaled when the running maximum grows.",
        AUTHOR,
        (r"rescal|not (re)?scaled|correction|when the max(imum)? (grows|changes|increases)",),
        edits=(("total * torch.exp(running_max - new_max)", "total"),),
    ),
    Case(
        "online-max-never-updated",
        L12,
        "online_softmax",
        "running_max is never updated, so only the last block's sum survives.",
        AUTHOR,
        (r"running.?max.{0,40}(never|not) updat|never updat|last block",),
        edits=(("        running_max = new_max\n", "        pass\n"),),
    ),
    Case(
        "online-skips-last-block",
        L12,
        "online_softmax",
        "the loop skips the last, shorter block when n is not a multiple of block_size.",
        AUTHOR,
        (r"last block|shorter|partial|remainder|not a multiple",),
        edits=(
            (
                "range(0, x.shape[-1], block_size)",
                "range(0, x.shape[-1] - block_size + 1, block_size)",
            ),
        ),
    ),
    Case(
        "online-no-max",
        L12,
        "online_softmax",
        "no maximum is subtracted, so exp overflows for large inputs.",
        SOFTMAX_CE,
        (r"overflow|subtract(ed|ing)? the max|large (values|inputs|scores|logits)|inf\b",),
        code="""
def online_softmax(x, block_size):
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    for start in range(0, x.shape[-1], block_size):
        total = total + torch.exp(x[..., start : start + block_size]).sum(dim=-1)
    return torch.exp(x) / total[..., None]
""",
    ),
    Case(
        "online-in-place",
        L12,
        "online_softmax",
        "subtracts the maximum from x in place, changing the caller's tensor.",
        AUTHOR,
        (r"in place|changed its argument",),
        code="""
def online_softmax(x, block_size):
    running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
    for start in range(0, x.shape[-1], block_size):
        running_max = torch.maximum(running_max, x[..., start : start + block_size].amax(dim=-1))
    x -= running_max[..., None]
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    for start in range(0, x.shape[-1], block_size):
        total = total + torch.exp(x[..., start : start + block_size]).sum(dim=-1)
    return torch.exp(x) / total[..., None]
""",
    ),
    Case(
        "tiled-causal-diagonal",
        L12,
        "tiled_attention",
        "the causal mask also hides the diagonal (key j >= query i masked instead of j > i).",
        FORMER_MASK,
        (r"diagonal|itself|own position|j >= i|j > i|j <= i|j < i",),
        edits=(("> query_positions", ">= query_positions"),),
    ),
    Case(
        "tiled-acc-not-rescaled",
        L12,
        "tiled_attention",
        "the accumulated output is not rescaled when the running maximum grows.",
        AUTHOR,
        (r"rescal|acc|correction|output.{0,30}not.{0,20}scaled",),
        edits=(("acc = acc * correction[..., None] +", "acc = acc +"),),
    ),
    Case(
        "tiled-no-scale",
        L12,
        "tiled_attention",
        "the scores are not multiplied by 1/sqrt(d_k).",
        SDPA_SCALE,
        (r"sqrt|scal",),
        edits=(("transpose(-2, -1) * scale", "transpose(-2, -1)"),),
    ),
    Case(
        "tiled-block-local-causal",
        L12,
        "tiled_attention",
        "the causal mask compares block-local key indices (0..block) with the query positions.",
        AUTHOR,
        (r"block-local|local ind|within the block|absolute (key )?(index|position)|offset|start",),
        edits=(("torch.arange(start, stop)[None, :]", "torch.arange(0, stop - start)[None, :]"),),
    ),
    Case(
        "tiled-weights-old-max",
        L12,
        "tiled_attention",
        "the block's weights are exponentiated against the previous maximum, not the new one.",
        AUTHOR,
        (r"new max|previous max|old max|new_max|before (it is )?updat",),
        edits=(
            (
                "torch.exp(scores - new_max[..., None])",
                "torch.exp(scores - running_max[..., None])",
            ),
        ),
    ),
    Case(
        "tiled-total-not-rescaled",
        L12,
        "tiled_attention",
        "the running sum of weights is not rescaled when the running maximum grows.",
        AUTHOR,
        (r"rescal|correction|running sum|total",),
        edits=(("total = total * correction +", "total = total +"),),
    ),
    Case(
        "tiled-bottom-right",
        L12,
        "tiled_attention",
        "the causal mask is aligned to the bottom-right corner (offset len_k - len_q) "
        "instead of j <= i.",
        ANNOTATED_MASK,
        (r"bottom|lower.right|corner|offset|len_k - len_q|top.left",),
        edits=(("> query_positions", "> query_positions + (len_k - len_q)"),),
    ),
    Case(
        "tiled-no-final-divide",
        L12,
        "tiled_attention",
        "the accumulated output is never divided by the running sum of weights.",
        AUTHOR,
        (r"divid|normalis|normaliz|running sum|total|sum of (the )?weights",),
        edits=(("return acc / total[..., None]", "return acc"),),
    ),
    # -------------------------------------------------------------------- 10 training
    Case(
        "batches-labels-with-bos",
        L10,
        "make_batches",
        "the labels start with <bos> (the decoder input) instead of being shifted left "
        "and ending in <eos>.",
        ANNOTATED_MASK,
        (r"shift|labels?.{0,60}(bos|<bos>)|teacher forcing|next token",),
        edits=(
            (
                "[[*target, eos_id] for _, target in chunk]",
                "[[bos_id, *target] for _, target in chunk]",
            ),
        ),
    ),
    Case(
        "batches-input-without-bos",
        L10,
        "make_batches",
        "the decoder input is the target without <bos> in front.",
        ANNOTATED_MASK,
        (r"<bos>|bos_id|start with",),
        edits=(
            ("[[bos_id, *target] for _, target in chunk]", "[list(target) for _, target in chunk]"),
        ),
    ),
    Case(
        "batches-drop-last",
        L10,
        "make_batches",
        "the last, smaller batch is dropped.",
        AUTHOR,
        (r"last batch|drop|rest|remainder|smaller batch|every pair",),
        edits=(
            (
                "range(0, len(order), batch_size)",
                "range(0, len(order) - batch_size + 1, batch_size)",
            ),
        ),
    ),
    Case(
        "batches-global-shuffle",
        L10,
        "make_batches",
        "shuffles with the global random generator, ignoring the seed argument.",
        AUTHOR,
        (r"seed|generator|same order",),
        edits=(("torch.randperm(len(pairs), generator=generator)", "torch.randperm(len(pairs))"),),
    ),
    Case(
        "batches-left-padding",
        L10,
        "make_batches",
        "pads the rows on the left instead of the right.",
        ANNOTATED_MASK,
        (r"left|right",),
        code="""
def make_batches(pairs, batch_size, *, pad_id=PAD_ID, bos_id=BOS_ID, eos_id=EOS_ID,
                 shuffle=False, seed=0):
    def pad(rows):
        width = max(len(r) for r in rows)
        return torch.tensor([[pad_id] * (width - len(r)) + r for r in rows])
    order = list(range(len(pairs)))
    if shuffle:
        order = torch.randperm(len(pairs), generator=torch.Generator().manual_seed(seed)).tolist()
    batches = []
    for start in range(0, len(order), batch_size):
        chunk = [pairs[i] for i in order[start : start + batch_size]]
        batches.append((pad([list(s) for s, _ in chunk]), pad([[bos_id, *t] for _, t in chunk]),
                        pad([[*t, eos_id] for _, t in chunk])))
    return batches
""",
    ),
    Case(
        "batches-mutates-target",
        L10,
        "make_batches",
        "appends <eos> to the caller's target lists in place.",
        AUTHOR,
        (r"in place|changed its argument|modif",),
        edits=(
            (
                "labels = pad_batch([[*target, eos_id] for _, target in chunk], pad_id)",
                "labels = pad_batch([target.append(eos_id) or target for _, target in chunk], pad_id)",
            ),
        ),
    ),
    Case(
        "noam-no-d-model",
        L10,
        "noam_lr",
        "the d_model ** -0.5 factor is missing.",
        AUTHOR,
        (r"d_model",),
        edits=(("return d_model**-0.5 * min(", "return min("),),
    ),
    Case(
        "noam-warmup-sqrt",
        L10,
        "noam_lr",
        "uses warmup ** -0.5 instead of warmup ** -1.5 in the warm-up branch.",
        AUTHOR,
        (r"warmup \*\* -1\.5|warmup\*\*-1\.5|-1\.5",),
        edits=(("step * warmup**-1.5", "step * warmup**-0.5"),),
    ),
    Case(
        "noam-max",
        L10,
        "noam_lr",
        "takes the max of the two branches instead of the min.",
        AUTHOR,
        (r"\bmax\b|\bmin\b",),
        edits=(("min(step**-0.5", "max(step**-0.5"),),
    ),
    Case(
        "noam-step-zero",
        L10,
        "noam_lr",
        "no guard for step 0, where step ** -0.5 divides by zero.",
        AUTHOR,
        (r"step 0|step=0|0 \*\* -0\.5|before the first step|ZeroDivision",),
        edits=(("step = max(step, 1)", "pass"),),
    ),
    Case(
        "noam-zero-indexed",
        L10,
        "noam_lr",
        "counts steps from 0 (uses step + 1), so the peak comes one step early.",
        AUTHOR,
        (r"off by one|from 1|step \+ 1|one step (early|late)|count(s)? from",),
        edits=(("step = max(step, 1)", "step = step + 1"),),
    ),
    Case(
        "noam-tensor",
        L10,
        "noam_lr",
        "returns a tensor instead of a Python float.",
        AUTHOR,
        (r"float|tensor",),
        edits=(("return d_model**-0.5 * min(", "return torch.tensor(d_model**-0.5) * min("),),
    ),
    Case(
        "loss-pad-in-denominator",
        L10,
        "label_smoothed_loss",
        "zeroes the pad positions' losses but divides by every position (pad included).",
        SMOOTH_PAD_COUNT,
        (r"count|denominator|divides by every|number of (non-pad )?positions",),
        (r"not ignored: your mean includes",),
        edits=(("return loss[keep].mean()", "return loss.masked_fill(~keep, 0.0).mean()"),),
    ),
    Case(
        "loss-smoothing-unmasked",
        L10,
        "label_smoothed_loss",
        "masks the padding in the target term only: the smoothing term is averaged over "
        "every position, pad included.",
        SMOOTH_PAD_TORCH,
        (r"smoothing term.{0,80}(pad|mask)|(pad|mask).{0,80}smoothing term",),
        code="""
def label_smoothed_loss(logits, labels, pad_id, smoothing=0.1):
    log_probs = torch.log_softmax(logits, dim=-1)
    keep = labels != pad_id
    safe = labels.masked_fill(~keep, 0)
    target = -log_probs.gather(-1, safe[..., None]).squeeze(-1)
    uniform = -log_probs.mean(dim=-1)
    return (1 - smoothing) * target[keep].mean() + smoothing * uniform.mean()
""",
    ),
    Case(
        "loss-softmax-before-ce",
        L10,
        "label_smoothed_loss",
        "applies softmax to the logits and then F.cross_entropy, which applies log_softmax again.",
        SOFTMAX_CE,
        (r"softmax.{0,60}(twice|before|again)|probabilities.{0,40}cross_entropy|logits, not",),
        code="""
import torch.nn.functional as F


def label_smoothed_loss(logits, labels, pad_id, smoothing=0.1):
    probs = torch.softmax(logits, dim=-1)
    return F.cross_entropy(probs.reshape(-1, probs.shape[-1]), labels.reshape(-1),
                           ignore_index=pad_id, label_smoothing=smoothing)
""",
    ),
    Case(
        "loss-log-of-softmax",
        L10,
        "label_smoothed_loss",
        "takes torch.log(torch.softmax(...)), which gives -inf (and NaN) for large logits.",
        SOFTMAX_CE,
        (r"log_softmax|log\(softmax|stable|-inf|large logits",),
        edits=(("torch.log_softmax(logits, dim=-1)", "torch.log(torch.softmax(logits, dim=-1))"),),
    ),
    Case(
        "loss-eps-over-v-minus-1",
        L10,
        "label_smoothed_loss",
        "spreads the smoothing over the V - 1 other tokens (fairseq's form) instead of all V.",
        SMOOTH_V2,
        (r"V - 1|V-1|other tokens",),
        code="""
def label_smoothed_loss(logits, labels, pad_id, smoothing=0.1):
    log_probs = torch.log_softmax(logits, dim=-1)
    keep = labels != pad_id
    safe = labels.masked_fill(~keep, 0)
    target = -log_probs.gather(-1, safe[..., None]).squeeze(-1)
    others = -log_probs.sum(dim=-1) - target
    v = logits.shape[-1]
    loss = (1 - smoothing) * target + smoothing / (v - 1) * others
    return loss[keep].mean()
""",
    ),
    Case(
        "loss-sum-over-batch",
        L10,
        "label_smoothed_loss",
        "divides the sum over the non-pad tokens by the batch size.",
        SMOOTH_PAD_HF,
        (r"batch size|number of sentences",),
        edits=(("return loss[keep].mean()", "return loss[keep].sum() / labels.shape[0]"),),
    ),
    Case(
        "loss-dropped-smoothing",
        L10,
        "label_smoothed_loss",
        "the smoothing term is missing: plain cross-entropy scaled by 1 - smoothing.",
        SMOOTH_V2,
        (
            r"smoothing.{0,40}missing|missing.{0,60}(smoothing|mean_j|ε·mean)|ε·mean_j.{0,40}missing",
        ),
        edits=(
            (
                "loss = (1 - smoothing) * target + smoothing * uniform",
                "loss = (1 - smoothing) * target",
            ),
        ),
    ),
    Case(
        "loss-item",
        L10,
        "label_smoothed_loss",
        "returns loss.item(), a float that backward cannot go through.",
        SOFTMAX_CE,
        (r"\.item\(\)|Python number|float",),
        edits=(("return loss[keep].mean()", "return loss[keep].mean().item()"),),
    ),
    Case(
        "step-no-zero-grad",
        L10,
        "train_step",
        "never clears the gradients, so each step adds the previous steps' gradients.",
        AUTHOR,
        (r"zero_grad|accumulat|clear",),
        edits=(("    optimizer.zero_grad()\n", ""),),
    ),
    Case(
        "step-clip-after-step",
        L10,
        "train_step",
        "clips the gradients after optimizer.step(), when they no longer matter.",
        AUTHOR,
        (r"after.{0,40}step|before.{0,40}step|clip.{0,60}(order|too late)",),
        code="""
def train_step(model, batch, optimizer, loss_fn, clip_norm=1.0):
    model.train()
    src, decoder_input, labels = batch
    loss = loss_fn(model(src, decoder_input), labels)
    loss.backward()
    optimizer.step()
    if clip_norm is not None:
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)
    optimizer.zero_grad()
    return loss.item()
""",
    ),
    Case(
        "step-returns-tensor",
        L10,
        "train_step",
        "returns the loss tensor instead of a Python float.",
        AUTHOR,
        (r"float|\.item\(\)",),
        edits=(("return loss.item()", "return loss"),),
    ),
    Case(
        "step-no-train-mode",
        L10,
        "train_step",
        "never puts the model in training mode (dropout stays off).",
        AUTHOR,
        (r"train\(\)|training mode|dropout",),
        edits=(("    model.train()\n", ""),),
    ),
    Case(
        "step-clip-value",
        L10,
        "train_step",
        "clips each gradient entry (clip_grad_value_) instead of the total norm.",
        AUTHOR,
        (r"clip_grad_value|each (gradient )?(entry|value|element)|total (2-)?norm|clip_grad_norm",),
        edits=(
            (
                "torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)",
                "torch.nn.utils.clip_grad_value_(model.parameters(), clip_norm)",
            ),
        ),
    ),
    Case(
        "step-loss-after-step",
        L10,
        "train_step",
        "returns the loss recomputed after the optimizer step instead of the one before it.",
        AUTHOR,
        (r"before the step|after the step|recomput",),
        edits=(
            (
                "    return loss.item()",
                "    model.eval()\n    with torch.no_grad():\n        after = loss_fn(model(src, decoder_input), labels)\n    model.train()\n    return after.item()",
            ),
        ),
    ),
    Case(
        "step-clip-per-parameter",
        L10,
        "train_step",
        "clips every parameter's gradient norm on its own instead of the total norm.",
        AUTHOR,
        (r"each parameter|per.parameter|on its own|separately|all parameters together|total",),
        edits=(
            (
                "torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)",
                "[torch.nn.utils.clip_grad_norm_([p], clip_norm) for p in model.parameters()]",
            ),
        ),
    ),
    Case(
        "beam-never-finishes",
        L10,
        "beam_search",
        "a candidate ending in <eos> is kept in the beam like any other, so nothing "
        "finishes and the search runs to max_len.",
        BEAM_EOS,
        (
            r"<eos>.{0,80}(set aside|finished|never)|never finish|finished hypothes.{0,40}(never|none)",
        ),
        (r"unfinished hypotheses compete",),
        edits=(("if token == eos_id:", "if False:"),),
    ),
    Case(
        "beam-returns-last-finished",
        L10,
        "beam_search",
        "returns the last finished hypothesis collected instead of the best one.",
        BEAM_STOP,
        (
            r"last (one|finished|hypothesis) (collected|found|added)|not the best|best (normalised )?score|highest",
        ),
        (r"length penalty is not applied|length penalty",),
        edits=(
            (
                "results.append(max(finished or beam, key=normalised)[0])",
                "results.append((finished or beam)[-1][0])",
            ),
        ),
    ),
    Case(
        "beam-multiplied-penalty",
        L10,
        "beam_search",
        "multiplies the score by the length penalty instead of dividing by it.",
        BEAM_PENALTY,
        (r"multipl|divid",),
        (r"not applied",),
        edits=(
            (
                "return score / ((5 + len(tokens)) / 6) ** length_penalty",
                "return score * ((5 + len(tokens)) / 6) ** length_penalty",
            ),
        ),
    ),
    Case(
        "beam-summed-probabilities",
        L10,
        "beam_search",
        "adds up probabilities (softmax) instead of log-probabilities.",
        SOFTMAX_CE,
        (r"probabilit(y|ies)(?! of its)|softmax",),
        (r"raw logits\.",),
        edits=(
            ("torch.log_softmax(logits[:, -1], dim=-1)", "torch.softmax(logits[:, -1], dim=-1)"),
        ),
    ),
    Case(
        "beam-stop-first-finished",
        L10,
        "beam_search",
        "stops as soon as any hypothesis finishes, even when a live one still scores better.",
        BEAM_STOP,
        (r"first finished|as soon as|stopped (at|when)|stop only",),
        edits=(("if finished and max(map(normalised, finished)) >= beam[0][1]:", "if finished:"),),
    ),
    Case(
        "beam-length-without-eos",
        L10,
        "beam_search",
        "the length penalty's L leaves out the <eos> token.",
        BEAM_LENGTH,
        (r"without <eos>|counts? <eos>|L count|<eos> too",),
        edits=(("((5 + len(tokens)) / 6)", "((5 + len(tokens) - 1) / 6)"),),
    ),
    Case(
        "beam-never-stops-early",
        L10,
        "beam_search",
        "no stopping rule: the search always runs max_len steps (finished ones still set aside).",
        BEAM_STOP,
        (r"kept searching|stop after|stopping|never stop|max_len steps",),
        edits=(("if finished and max(map(normalised, finished)) >= beam[0][1]:", "if False:"),),
    ),
    Case(
        "beam-penalty-on-live",
        L10,
        "beam_search",
        "compares the best finished hypothesis's raw score (not normalised) with the live one.",
        BEAM_OFF_BY_ONE,
        (r"normalis|normaliz",),
        edits=(
            (
                "if finished and max(map(normalised, finished)) >= beam[0][1]:",
                "if finished and max(s for _, s in finished) >= beam[0][1]:",
            ),
        ),
    ),
    # -------------------------------------------------------------- 11 language model
    Case(
        "ntb-labels-not-shifted",
        L11,
        "next_token_batches",
        "the labels are the inputs themselves, not shifted by one position.",
        AUTHOR,
        (r"shift|next token|one position|positions \+ 1|\+ 1",),
        edits=(("tokens[positions + 1]", "tokens[positions]"),),
    ),
    Case(
        "ntb-global-rng",
        L11,
        "next_token_batches",
        "draws the start positions from the global generator, ignoring `generator`.",
        AUTHOR,
        (r"generator",),
        edits=(("(batch_size,), generator=generator)", "(batch_size,))"),),
    ),
    Case(
        "ntb-start-off-by-one",
        L11,
        "next_token_batches",
        "draws starts up to len - block_size inclusive, so the last label runs past the end.",
        AUTHOR,
        (
            r"past the end|out of (range|bounds)|len\(tokens\) - block_size|last (label|start)|off by one|IndexError",
        ),
        edits=(
            (
                "torch.randint(0, len(tokens) - block_size,",
                "torch.randint(0, len(tokens) - block_size + 1,",
            ),
        ),
    ),
    Case(
        "rms-subtracts-mean",
        L11,
        "RMSNorm",
        "subtracts the mean first (a LayerNorm), which RMSNorm does not do.",
        RMS_EPS,
        (r"mean.{0,40}(subtract|centr)|LayerNorm|centr",),
        edits=(
            (
                "return x * torch.rsqrt(",
                "x = x - x.mean(dim=-1, keepdim=True)\n        return x * torch.rsqrt(",
            ),
        ),
    ),
    Case(
        "rms-eps-outside",
        L11,
        "RMSNorm",
        "adds eps after the square root instead of inside it.",
        RMS_EPS,
        (r"eps.{0,60}(inside|outside|under|after)|sqrt\(mean|rsqrt",),
        edits=(
            ("x * torch.rsqrt(mean_square + self.eps)", "x / (torch.sqrt(mean_square) + self.eps)"),
        ),
    ),
    Case(
        "rms-no-weight",
        L11,
        "RMSNorm",
        "forgets to multiply by the learned gain (weight).",
        RMS_BUG,
        (r"weight|gain|scale parameter",),
        edits=(
            (
                "torch.rsqrt(mean_square + self.eps) * self.weight",
                "torch.rsqrt(mean_square + self.eps)",
            ),
        ),
    ),
    Case(
        "rms-wrong-axis",
        L11,
        "RMSNorm",
        "takes the mean square over the sequence axis instead of the features.",
        SOFTMAX_DIM,
        (r"axis|dim|over the (features|last)|per token|across",),
        edits=(("x.pow(2).mean(dim=-1, keepdim=True)", "x.pow(2).mean(dim=-2, keepdim=True)"),),
    ),
    Case(
        "rope-theta-no-two",
        L11,
        "rotary_embedding",
        "the frequencies use i/d instead of 2i/d (arange(d/2) / d).",
        AUTHOR,
        (r"2i|2 ?\* ?i|arange\(0, d_head, 2\)|even|frequenc|theta",),
        edits=(
            (
                "torch.arange(0, d_head, 2, dtype=torch.float64) / d_head",
                "torch.arange(0, d_head // 2, dtype=torch.float64) / d_head",
            ),
        ),
    ),
    Case(
        "rope-positions-from-one",
        L11,
        "rotary_embedding",
        "counts positions from 1 instead of 0.",
        KV_POSITIONS,
        (r"position 0|from 0|from 1|off by one|row 0",),
        edits=(
            (
                "torch.arange(length, dtype=torch.float64)[:, None]",
                "torch.arange(1, length + 1, dtype=torch.float64)[:, None]",
            ),
        ),
    ),
    Case(
        "rope-cos-sin-swapped",
        L11,
        "rotary_embedding",
        "returns (sin, cos) instead of (cos, sin).",
        AUTHOR,
        (r"swap|order|\(cos, sin\)|sin.{0,20}cos",),
        edits=(
            (
                "return angles.cos().float(), angles.sin().float()",
                "return angles.sin().float(), angles.cos().float()",
            ),
        ),
    ),
    Case(
        "rope-base-d-model",
        L11,
        "rotary_embedding",
        "ignores the base argument and always uses 10000.",
        AUTHOR,
        (r"\bbase\b",),
        edits=(("theta = base ** (", "theta = 10000.0 ** ("),),
    ),
    Case(
        "rotary-sign-swap",
        L11,
        "apply_rotary",
        "rotates the wrong way: the minus sign sits on the second half.",
        ROPE_LAYOUT,
        (r"sign|direction|clockwise|wrong way|-sin|negative",),
        edits=(
            (
                "torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)",
                "torch.cat([a * cos + b * sin, b * cos - a * sin], dim=-1)",
            ),
        ),
    ),
    Case(
        "rotary-halves-swapped",
        L11,
        "apply_rotary",
        "writes the two rotated halves back in the wrong order.",
        ROPE_LAYOUT,
        (r"order|swap|halves",),
        edits=(
            (
                "torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)",
                "torch.cat([a * sin + b * cos, a * cos - b * sin], dim=-1)",
            ),
        ),
    ),
    Case(
        "swiglu-gate-value-swapped",
        L11,
        "SwiGLU",
        "applies silu to w3 (the value) instead of w1 (the gate).",
        AUTHOR,
        (r"w1.{0,40}w3|w3.{0,40}w1|gate|swapped",),
        edits=(("F.silu(self.w1(x)) * self.w3(x)", "self.w1(x) * F.silu(self.w3(x))"),),
    ),
    Case(
        "swiglu-relu",
        L11,
        "SwiGLU",
        "uses relu instead of silu.",
        AUTHOR,
        (r"silu|relu|swish",),
        edits=(("F.silu(self.w1(x))", "F.relu(self.w1(x))"),),
    ),
    Case(
        "swiglu-with-bias",
        L11,
        "SwiGLU",
        "keeps the biases of the three linear layers.",
        AUTHOR,
        (r"bias",),
        edits=(("nn.Linear(d_model, d_ff, bias=False)", "nn.Linear(d_model, d_ff)"),),
    ),
    Case(
        "swiglu-sigmoid",
        L11,
        "SwiGLU",
        "uses sigmoid (a GLU) instead of silu for the gate.",
        AUTHOR,
        (r"silu|sigmoid|swish",),
        edits=(("F.silu(self.w1(x))", "torch.sigmoid(self.w1(x))"),),
    ),
    Case(
        "csa-no-mask",
        L11,
        "CausalSelfAttention",
        "passes no mask, so each position sees the future.",
        TUTORIAL_MASK,
        (r"future|causal|look.ahead|mask",),
        edits=(
            (
                "scaled_dot_product_attention(q, k, v, look_ahead_mask(length))",
                "scaled_dot_product_attention(q, k, v)",
            ),
        ),
    ),
    Case(
        "csa-rotates-values",
        L11,
        "CausalSelfAttention",
        "rotates the values too.",
        ROPE_LAYOUT,
        (r"values?.{0,40}(rotat|not)|rotat.{0,40}values",),
        edits=(
            (
                "q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)",
                "q, k, v = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin), apply_rotary(v, cos, sin)",
            ),
        ),
    ),
    Case(
        "csa-keys-not-rotated",
        L11,
        "CausalSelfAttention",
        "rotates the queries but not the keys.",
        ROPE_LAYOUT,
        (r"keys?.{0,40}(rotat|not)|rotat.{0,40}keys",),
        edits=(
            (
                "q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)",
                "q = apply_rotary(q, cos, sin)",
            ),
        ),
    ),
    Case(
        "csa-no-output-projection",
        L11,
        "CausalSelfAttention",
        "returns the merged heads without the output projection w_o.",
        AUTHOR,
        (r"w_o|output projection",),
        edits=(("return self.w_o(merge_heads(heads))", "return merge_heads(heads)"),),
    ),
    Case(
        "block-post-norm",
        L11,
        "DecoderBlock",
        "normalises after each residual addition (post-norm) instead of before the sublayer.",
        AUTHOR,
        (r"post.norm|pre.norm|before the sublayer|after the (residual|addition)",),
        edits=(
            ("h = x + self.attn(self.norm1(x))", "h = self.norm1(x + self.attn(x))"),
            (
                "return h + self.feed_forward(self.norm2(h))",
                "return self.norm2(h + self.feed_forward(h))",
            ),
        ),
    ),
    Case(
        "block-no-attn-residual",
        L11,
        "DecoderBlock",
        "the attention sublayer has no residual connection.",
        AUTHOR,
        (r"residual|skip connection|x \+",),
        edits=(("h = x + self.attn(self.norm1(x))", "h = self.attn(self.norm1(x))"),),
    ),
    Case(
        "block-shared-norm",
        L11,
        "DecoderBlock",
        "uses norm1 for both sublayers (norm2 never used).",
        AUTHOR,
        (r"norm2|norm1.{0,40}(both|twice)|same norm",),
        edits=(("self.feed_forward(self.norm2(h))", "self.feed_forward(self.norm1(h))"),),
    ),
    Case(
        "gpt-no-final-norm",
        L11,
        "GPT",
        "skips the final RMSNorm before the output layer.",
        AUTHOR,
        (r"final norm|self\.norm|norm before the output|last norm",),
        edits=(
            ("return self.norm(x) @ self.embedding.weight.T", "return x @ self.embedding.weight.T"),
        ),
    ),
    Case(
        "gpt-plain-list",
        L11,
        "GPT",
        "keeps the blocks in a plain Python list, so their parameters are never registered.",
        MODULE_LIST,
        (r"ModuleList|plain (Python )?list|not registered|never registered",),
        (r"must be called exactly so",),
        edits=(("self.layers = nn.ModuleList(\n", "self.layers = list(\n"),),
    ),
    Case(
        "gpt-untied-output",
        L11,
        "GPT",
        "adds a separate output nn.Linear instead of tying it to the embedding.",
        TYING,
        (r"tied|tie|embedding\.weight|same tensor",),
        edits=(
            (
                "        self.norm = RMSNorm(d_model, eps)",
                "        self.norm = RMSNorm(d_model, eps)\n        self.output = nn.Linear(d_model, vocab_size, bias=False)",
            ),
            ("return self.norm(x) @ self.embedding.weight.T", "return self.output(self.norm(x))"),
        ),
    ),
    Case(
        "gpt-shared-block",
        L11,
        "GPT",
        "repeats one DecoderBlock num_layers times (the same weights in every layer).",
        AUTHOR,
        (r"same (block|layer|module|weights)|shared|one block|distinct",),
        edits=(
            (
                "[DecoderBlock(d_model, num_heads, d_ff, eps) for _ in range(num_layers)]",
                "[DecoderBlock(d_model, num_heads, d_ff, eps)] * num_layers",
            ),
        ),
    ),
    Case(
        "sample-multiply-temperature",
        L11,
        "sample",
        "multiplies the logits by the temperature instead of dividing.",
        AUTHOR,
        (r"multipl|divid",),
        edits=(("logits = logits / temperature", "logits = logits * temperature"),),
    ),
    Case(
        "sample-top-k-plus-one",
        L11,
        "sample",
        "keeps top_k + 1 tokens (the k-th threshold taken one too far).",
        TOP_K,
        (r"top_k.{0,60}(one|\+ 1|more)|k \+ 1|one too many|off by one",),
        edits=(("min(top_k, logits.shape[-1])", "min(top_k + 1, logits.shape[-1])"),),
    ),
    Case(
        "sample-top-p-drops-crossing",
        L11,
        "sample",
        "drops the token that crosses top_p (keeps only those strictly below it).",
        TOP_P,
        (r"cross(es|ing)? top_p|crosses|the token that|at least top_p",),
        edits=(
            (
                "before = sorted_probs.cumsum(dim=-1) - sorted_probs",
                "before = sorted_probs.cumsum(dim=-1)",
            ),
        ),
    ),
    Case(
        "sample-global-rng",
        L11,
        "sample",
        "draws with the global generator instead of `generator`.",
        AUTHOR,
        (r"generator",),
        edits=(
            ("torch.multinomial(probs, 1, generator=generator)", "torch.multinomial(probs, 1)"),
        ),
    ),
    Case(
        "sample-argmax-always",
        L11,
        "sample",
        "always returns the argmax, whatever the temperature.",
        AUTHOR,
        (r"argmax|greedy|always the (most|same)|never sampl|random",),
        edits=(("if temperature == 0:", "if True:"),),
    ),
    Case(
        "sample-top-p-unsorted",
        L11,
        "sample",
        "accumulates top_p in vocabulary order instead of sorted by probability.",
        TOP_P,
        (r"sort|most probable|vocabulary order",),
        code="""
def sample(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return logits.argmax(dim=-1)
    logits = logits / temperature
    if top_k is not None:
        kth = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1).values[..., -1:]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    if top_p is not None:
        probs = torch.softmax(logits, dim=-1)
        before = probs.cumsum(dim=-1) - probs
        remove = before >= top_p
        remove[..., 0] = False
        logits = logits.masked_fill(remove, float("-inf"))
    probs = torch.softmax(logits, dim=-1)
    return torch.multinomial(probs, 1, generator=generator)[:, 0]
""",
    ),
    # ------------------------------------------------------ 01-09 (edits on ast.unparse form)
    Case(
        "tok-no-lower",
        "01_tokenization",
        "tokenize",
        "does not lower-case the text.",
        AUTHOR,
        (r"lower",),
        edits=(("text.lower()", "text"),),
    ),
    Case(
        "tok-drop-punct",
        "01_tokenization",
        "tokenize",
        "drops punctuation marks entirely.",
        AUTHOR,
        (r"punctuation",),
        edits=(("'\\\\w+|[^\\\\w\\\\s]'", "'\\\\w+'"),),
    ),
    Case(
        "vocab-ties-unsorted",
        "01_tokenization",
        "build_vocab",
        "sorts by count only, so tokens with the same count keep first-seen order instead "
        "of alphabetical.",
        AUTHOR,
        (r"tie|alphabetical|same count",),
        edits=(("key=lambda item: (-item[1], item[0])", "key=lambda item: -item[1]"),),
    ),
    Case(
        "vocab-min-freq-strict",
        "01_tokenization",
        "build_vocab",
        "keeps tokens whose count is strictly above min_freq instead of at least min_freq.",
        AUTHOR,
        (r"min_freq|at least|>=",),
        edits=(("count >= min_freq", "count > min_freq"),),
    ),
    Case(
        "vocab-no-specials",
        "01_tokenization",
        "build_vocab",
        "leaves out the special tokens (<pad>, <unk>, ...).",
        AUTHOR,
        (r"special|<pad>|<unk>",),
        edits=(
            ("vocab = {token: index for index, token in enumerate(SPECIAL_TOKENS)}", "vocab = {}"),
        ),
    ),
    Case(
        "encode-keyerror",
        "01_tokenization",
        "encode",
        "looks tokens up with vocab[token], so an unknown token raises KeyError instead "
        "of mapping to <unk>.",
        AUTHOR,
        (r"<unk>|unknown",),
        edits=(
            ("[vocab.get(token, unk) for token in tokens]", "[vocab[token] for token in tokens]"),
        ),
    ),
    Case(
        "pad-left",
        "01_tokenization",
        "pad_batch",
        "pads on the left instead of the right.",
        ANNOTATED_MASK,
        (r"left|right",),
        edits=(("batch[row, :len(seq)] = seq", "batch[row, max_len - len(seq):] = seq"),),
    ),
    Case(
        "pairs-non-overlapping",
        "01_tokenization",
        "get_pair_counts",
        "counts only non-overlapping occurrences (skips after a match), so 'aaa' gives "
        "one (a, a) instead of two.",
        MINBPE_OVERLAP,
        (r"overlap",),
        code="def get_pair_counts(ids):\n    counts = {}\n    i = 0\n    while i + 1 < len(ids):\n"
        "        pair = (ids[i], ids[i + 1])\n        counts[pair] = counts.get(pair, 0) + 1\n"
        "        i += 2 if ids[i] == ids[i + 1] else 1\n    return counts\n",
    ),
    Case(
        "merge-overlapping",
        "01_tokenization",
        "merge_pair",
        "does not skip past a merged pair (i += 1), so overlapping pairs merge twice.",
        MINBPE_OVERLAP,
        (r"overlap|skip|twice|both|i \+= 2",),
        edits=(("i += 2", "i += 1"),),
    ),
    Case(
        "train-ids-from-zero",
        "01_tokenization",
        "train_bpe",
        "numbers the new tokens from 0 instead of 256.",
        MINBPE_ORDER,
        (r"256",),
        edits=(
            ("merge_pair(ids, best, 256 + step)", "merge_pair(ids, best, step)"),
            ("merges[best] = 256 + step", "merges[best] = step"),
        ),
    ),
    Case(
        "train-ties-last",
        "01_tokenization",
        "train_bpe",
        "breaks ties between equally frequent pairs by taking the last one seen instead "
        "of the first.",
        MINBPE_ORDER,
        (r"tie|first (pair|one|seen)|earliest|equal count",),
        edits=(
            (
                "best = max(counts, key=counts.get)",
                "best = max(reversed(list(counts)), key=counts.get)",
            ),
        ),
    ),
    Case(
        "train-counts-once",
        "01_tokenization",
        "train_bpe",
        "counts the pairs once before the loop and never recounts after a merge.",
        "https://github.com/karpathy/minbpe/pull/88",
        (r"once|recount|recomput|after each merge|fresh count",),
        code="def train_bpe(text, num_merges):\n    ids = list(text.encode('utf-8'))\n"
        "    counts = get_pair_counts(ids)\n    merges = {}\n"
        "    for step in range(num_merges):\n        if not counts:\n            break\n"
        "        best = max(counts, key=counts.get)\n        del counts[best]\n"
        "        ids = merge_pair(ids, best, 256 + step)\n        merges[best] = 256 + step\n"
        "    return merges\n",
    ),
    Case(
        "encode-by-count",
        "01_tokenization",
        "bpe_encode",
        "applies the most frequent present pair first instead of the earliest-learned merge.",
        MINBPE_ORDER,
        (r"earliest|learn(ed|t) first|lowest (new )?id|rank|order (they were|of) (learn|merg)",),
        edits=(
            (
                "pair = min(present, key=merges.get)",
                "pair = max(present, key=get_pair_counts(ids).get)",
            ),
        ),
    ),
    Case(
        "encode-one-pass",
        "01_tokenization",
        "bpe_encode",
        "applies each merge once, in dictionary order, in a single pass.",
        MINBPE_ORDER,
        (r"once|single pass|again|repeat|until no",),
        code="def bpe_encode(text, merges):\n    ids = list(text.encode('utf-8'))\n"
        "    for pair, new_id in merges.items():\n        ids = merge_pair(ids, pair, new_id)\n"
        "        break\n    return ids\n",
    ),
    Case(
        "onehot-transposed",
        "02_embeddings",
        "one_hot",
        "returns the (vocab_size, n) transpose.",
        AUTHOR,
        (r"transpos|shape",),
        edits=(("[np.asarray(ids)]", "[:, np.asarray(ids)]"),),
    ),
    Case(
        "cos-b-unnormalised",
        "02_embeddings",
        "cosine_similarity",
        "normalises a but not b.",
        SOFTMAX_DIM,
        (r"normali|norm of b|both|unit",),
        edits=(
            (
                "b_unit = b / np.maximum(np.linalg.norm(b, axis=-1, keepdims=True), 1e-12)",
                "b_unit = b",
            ),
        ),
    ),
    Case(
        "cos-zero-vector",
        "02_embeddings",
        "cosine_similarity",
        "divides by the norm without a floor, so a zero vector gives NaN.",
        SOFTMAX_DIM,
        (r"zero vector|zero norm|all-zero|nan",),
        edits=(
            (
                "a_unit = a / np.maximum(np.linalg.norm(a, axis=-1, keepdims=True), 1e-12)",
                "a_unit = a / np.linalg.norm(a, axis=-1, keepdims=True)",
            ),
        ),
    ),
    Case(
        "cos-axis",
        "02_embeddings",
        "cosine_similarity",
        "takes the norms over axis 0 instead of each vector's own axis.",
        SOFTMAX_DIM,
        (r"axis",),
        edits=(
            (
                "np.linalg.norm(a, axis=-1, keepdims=True)",
                "np.linalg.norm(a, axis=0, keepdims=True)",
            ),
        ),
    ),
    Case(
        "emb-no-scale",
        "02_embeddings",
        "TokenEmbedding",
        "forgets the sqrt(d_model) scale.",
        AUTHOR,
        (r"sqrt|scale",),
        edits=(("self.embedding(ids) * math.sqrt(self.d_model)", "self.embedding(ids)"),),
    ),
    Case(
        "emb-divide",
        "02_embeddings",
        "TokenEmbedding",
        "divides by sqrt(d_model) instead of multiplying.",
        AUTHOR,
        (r"divid|multipl",),
        edits=(
            (
                "self.embedding(ids) * math.sqrt(self.d_model)",
                "self.embedding(ids) / math.sqrt(self.d_model)",
            ),
        ),
    ),
    Case(
        "embed-transposed-lookup",
        "02_embeddings",
        "embed",
        "looks ids up as columns of the table (table[:, ids]) instead of rows.",
        AUTHOR,
        (r"row|column|transpos",),
        edits=(("np.asarray(table)[np.asarray(ids)]", "np.asarray(table)[:, np.asarray(ids)].T"),),
    ),
    Case(
        "pe-sin-cos-swapped",
        "03_positional_encoding",
        "positional_encoding",
        "puts cos on the even columns and sin on the odd ones.",
        AUTHOR,
        (r"swap|sin.{0,40}even|cos.{0,40}odd|even columns",),
        edits=(
            ("pe[:, 0::2] = np.sin(angles)", "pe[:, 0::2] = np.cos(angles)"),
            (
                "pe[:, 1::2] = np.cos(angles[:, :d_model // 2])",
                "pe[:, 1::2] = np.sin(angles[:, :d_model // 2])",
            ),
        ),
    ),
    Case(
        "pe-exponent-i",
        "03_positional_encoding",
        "positional_encoding",
        "uses i/d_model instead of 2i/d_model in the exponent.",
        AUTHOR,
        (r"2i|2 ?\* ?i|exponent|frequenc",),
        edits=(("two_i / d_model", "two_i / 2 / d_model"),),
    ),
    Case(
        "pe-positions-from-one",
        "03_positional_encoding",
        "positional_encoding",
        "counts positions from 1.",
        KV_POSITIONS,
        (r"position 0|from 0|from 1|row 0|first row",),
        edits=(
            ("np.arange(max_len, dtype=np.float64)", "np.arange(1, max_len + 1, dtype=np.float64)"),
        ),
    ),
    Case(
        "pe-halves",
        "03_positional_encoding",
        "positional_encoding",
        "puts all sines in the first half of the columns and all cosines in the second.",
        ROPE_LAYOUT,
        (r"interleav|halves|half|concaten|even and odd",),
        edits=(
            ("pe[:, 0::2] = np.sin(angles)", "pe[:, :d_model // 2] = np.sin(angles)"),
            (
                "pe[:, 1::2] = np.cos(angles[:, :d_model // 2])",
                "pe[:, d_model // 2:] = np.cos(angles[:, :d_model // 2])",
            ),
        ),
    ),
    Case(
        "shift-transposed",
        "03_positional_encoding",
        "relative_shift",
        "puts -sin below the diagonal and sin above it (the transpose).",
        AUTHOR,
        (r"transpos|sign|inverse|direction|-k",),
        edits=(
            ("m[two_i + 1, two_i] = np.sin(theta)", "m[two_i + 1, two_i] = -np.sin(theta)"),
            ("m[two_i, two_i + 1] = -np.sin(theta)", "m[two_i, two_i + 1] = np.sin(theta)"),
        ),
    ),
    Case(
        "posenc-attribute",
        "03_positional_encoding",
        "PositionalEncoding",
        "stores the table as a plain attribute instead of a registered buffer.",
        AUTHOR,
        (r"buffer|register",),
        edits=(("self.register_buffer('pe', table.unsqueeze(0))", "self.pe = table.unsqueeze(0)"),),
    ),
    Case(
        "posenc-no-dropout",
        "03_positional_encoding",
        "PositionalEncoding",
        "never applies dropout.",
        AUTHOR,
        (r"dropout",),
        edits=(("return self.dropout(x + self.pe[:, :length])", "return x + self.pe[:, :length]"),),
    ),
    Case(
        "posenc-no-slice",
        "03_positional_encoding",
        "PositionalEncoding",
        "adds the whole max_len table instead of its first len rows.",
        AUTHOR,
        (r"first len|slice|max_len|length",),
        edits=(
            ("return self.dropout(x + self.pe[:, :length])", "return self.dropout(x + self.pe)"),
        ),
    ),
    Case(
        "softmax-no-max",
        "04_attention",
        "softmax",
        "does not subtract the maximum, so large inputs overflow.",
        SOFTMAX_CE,
        (r"overflow|subtract|large",),
        edits=(("exps = np.exp(x - peak)", "exps = np.exp(x)"),),
    ),
    Case(
        "softmax-sum-all",
        "04_attention",
        "softmax",
        "sums over the whole array instead of along axis.",
        SOFTMAX_DIM,
        (r"axis|whole array|all entries|every entry",),
        edits=(("total = np.sum(exps, axis=axis, keepdims=True)", "total = np.sum(exps)"),),
    ),
    Case(
        "softmax-no-keepdims",
        "04_attention",
        "softmax",
        "sums without keepdims, so the division broadcasts along the wrong axis.",
        SOFTMAX_DIM,
        (r"keepdims|broadcast",),
        edits=(
            ("total = np.sum(exps, axis=axis, keepdims=True)", "total = np.sum(exps, axis=axis)"),
        ),
    ),
    Case(
        "row-scale-dk",
        "04_attention",
        "attention_row",
        "divides the scores by d_k instead of sqrt(d_k).",
        SDPA_SCALE,
        (r"sqrt",),
        edits=(("scores = keys @ query / math.sqrt(d_k)", "scores = keys @ query / d_k"),),
    ),
    Case(
        "row-swapped-return",
        "04_attention",
        "attention_row",
        "returns (output, weights) instead of (weights, output).",
        SDPA_SCALE,
        (r"order|swap|\(weights, output\)",),
        edits=(("return (weights, output)", "return (output, weights)"),),
    ),
    Case(
        "sdpa-mask-not-inverted",
        "04_attention",
        "scaled_dot_product_attention",
        "fills the positions where the mask is True (the allowed ones) with -inf.",
        ANNOTATED_MASK,
        (r"True = may attend|True means|invert|~mask|opposite|wrong way",),
        edits=(
            ("scores.masked_fill(~mask, float('-inf'))", "scores.masked_fill(mask, float('-inf'))"),
        ),
    ),
    Case(
        "sdpa-softmax-dim",
        "04_attention",
        "scaled_dot_product_attention",
        "takes the softmax over the query axis (dim=-2).",
        SOFTMAX_DIM,
        (r"axis|dim=-2|over the quer|over the keys|columns",),
        edits=(("torch.softmax(scores, dim=-1)", "torch.softmax(scores, dim=-2)"),),
    ),
    Case(
        "sdpa-mask-zero",
        "04_attention",
        "scaled_dot_product_attention",
        "fills masked scores with 0 instead of -inf.",
        ANNOTATED_MASK,
        (r"-inf|zero (score|before)|0 before the softmax",),
        edits=(("scores.masked_fill(~mask, float('-inf'))", "scores.masked_fill(~mask, 0.0)"),),
    ),
    Case(
        "sdpa-scale-length",
        "04_attention",
        "scaled_dot_product_attention",
        "scales by sqrt of the key length instead of d_k.",
        SDPA_SCALE,
        (r"d_k|sqrt",),
        edits=(("d_k = q.shape[-1]", "d_k = k.shape[-2]"),),
    ),
    Case(
        "split-no-transpose",
        "05_multi_head_attention",
        "split_heads",
        "reshapes to (batch, len, heads, d_head) and forgets the transpose.",
        AUTHOR,
        (r"transpos",),
        edits=((".transpose(1, 2)", ""),),
    ),
    Case(
        "split-direct-reshape",
        "05_multi_head_attention",
        "split_heads",
        "reshapes straight to (batch, heads, len, d_head), mixing positions and features.",
        AUTHOR,
        (r"transpos|reshape|view",),
        edits=(
            (
                "x.reshape(batch, length, num_heads, d_model // num_heads).transpose(1, 2)",
                "x.reshape(batch, num_heads, length, d_model // num_heads)",
            ),
        ),
    ),
    Case(
        "merge-no-transpose",
        "05_multi_head_attention",
        "merge_heads",
        "reshapes without transposing the heads back first.",
        AUTHOR,
        (r"transpos",),
        edits=(("x.transpose(1, 2).reshape", "x.reshape"),),
    ),
    Case(
        "mha-no-wo",
        "05_multi_head_attention",
        "MultiHeadAttention",
        "returns the merged heads without the output projection w_o.",
        AUTHOR,
        (r"w_o|output projection",),
        edits=(
            (
                "return (self.w_o(merge_heads(heads)), weights)",
                "return (merge_heads(heads), weights)",
            ),
        ),
    ),
    Case(
        "mha-wk-for-values",
        "05_multi_head_attention",
        "MultiHeadAttention",
        "projects the values with w_k instead of w_v.",
        AUTHOR,
        (r"w_v|w_k",),
        edits=(
            (
                "split_heads(self.w_v(value), self.num_heads)",
                "split_heads(self.w_k(value), self.num_heads)",
            ),
        ),
    ),
    Case(
        "mha-output-only",
        "05_multi_head_attention",
        "MultiHeadAttention",
        "returns only the output, not (output, weights).",
        AUTHOR,
        (r"tuple|weights|two values|pair",),
        edits=(
            (
                "return (self.w_o(merge_heads(heads)), weights)",
                "return self.w_o(merge_heads(heads))",
            ),
        ),
    ),
    Case(
        "mha-scale-d-model",
        "05_multi_head_attention",
        "MultiHeadAttention",
        "splits the heads as if d_head were d_model // 1 (no split: one head).",
        AUTHOR,
        (r"num_heads|one head|split",),
        edits=(
            (
                "q = split_heads(self.w_q(query), self.num_heads)",
                "q = split_heads(self.w_q(query), 1).expand(-1, self.num_heads, -1, -1)[..., : self.d_model // self.num_heads]",
            ),
        ),
    ),
    Case(
        "padmask-3d",
        "06_masking",
        "padding_mask",
        "returns shape (batch, 1, len), without the head axis.",
        ANNOTATED_MASK,
        (r"\(batch, 1, 1, len|head axis|4-d|four",),
        edits=(("[:, None, None, :]", "[:, None, :]"),),
    ),
    Case(
        "padmask-inverted",
        "06_masking",
        "padding_mask",
        "marks the pad positions True instead of the real tokens.",
        ANNOTATED_MASK,
        (r"invert|True = may attend|True means|opposite|pad positions",),
        edits=(("ids != pad_id", "ids == pad_id"),),
    ),
    Case(
        "padmask-query-axis",
        "06_masking",
        "padding_mask",
        "puts the padding along the query axis (batch, 1, len, 1) instead of the keys.",
        ANNOTATED_MASK,
        (r"key|query|column|last axis",),
        edits=(("[:, None, None, :]", "[:, None, :, None]"),),
    ),
    Case(
        "lookahead-triu",
        "06_masking",
        "look_ahead_mask",
        "uses triu: the upper triangle, so each position sees the future.",
        TUTORIAL_MASK,
        (r"triu|tril|upper|lower|future|transpos",),
        edits=(("torch.tril(", "torch.triu("),),
    ),
    Case(
        "lookahead-no-diagonal",
        "06_masking",
        "look_ahead_mask",
        "excludes the diagonal, so a position cannot attend to itself.",
        FORMER_MASK,
        (r"diagonal|itself",),
        edits=(
            (
                "torch.tril(torch.ones(size, size, dtype=torch.bool))",
                "torch.tril(torch.ones(size, size, dtype=torch.bool), diagonal=-1)",
            ),
        ),
    ),
    Case(
        "lookahead-float",
        "06_masking",
        "look_ahead_mask",
        "returns a float tensor instead of bool.",
        TUTORIAL_MASK,
        (r"bool|dtype",),
        edits=(("torch.ones(size, size, dtype=torch.bool)", "torch.ones(size, size)"),),
    ),
    Case(
        "decmask-or",
        "06_masking",
        "decoder_self_attention_mask",
        "combines the two masks with | instead of &.",
        ANNOTATED_MASK,
        (r"\band\b|&|\bor\b|\||both",),
        edits=(("pad_id) & look_ahead", "pad_id) | look_ahead"),),
    ),
    Case(
        "decmask-no-padding",
        "06_masking",
        "decoder_self_attention_mask",
        "uses the look-ahead mask only, forgetting the padding.",
        ANNOTATED_MASK,
        (r"pad",),
        edits=(("padding_mask(tgt_ids, pad_id) & ", ""),),
    ),
    Case(
        "ln-unbiased",
        "07_encoder",
        "LayerNorm",
        "uses the unbiased variance (divides by n - 1).",
        AUTHOR,
        (r"unbiased|biased|n - 1|n-1|bessel|correction",),
        edits=(("unbiased=False", "unbiased=True"),),
    ),
    Case(
        "ln-eps-outside",
        "07_encoder",
        "LayerNorm",
        "adds eps to the standard deviation instead of the variance.",
        AUTHOR,
        (r"eps.{0,60}(inside|outside|under|variance)",),
        edits=(("torch.sqrt(variance + self.eps)", "(torch.sqrt(variance) + self.eps)"),),
    ),
    Case(
        "ln-axis",
        "07_encoder",
        "LayerNorm",
        "normalises over the batch axis instead of the features.",
        SOFTMAX_DIM,
        (r"axis|dim|feature",),
        edits=(
            ("mean = x.mean(dim=-1, keepdim=True)", "mean = x.mean(dim=0, keepdim=True)"),
            (
                "variance = x.var(dim=-1, keepdim=True, unbiased=False)",
                "variance = x.var(dim=0, keepdim=True, unbiased=False)",
            ),
        ),
    ),
    Case(
        "ffn-no-relu",
        "07_encoder",
        "PositionwiseFeedForward",
        "forgets the ReLU between the two linear layers.",
        AUTHOR,
        (r"relu|activation|nonlinear",),
        edits=(("hidden = torch.relu(self.w_1(x))", "hidden = self.w_1(x)"),),
    ),
    Case(
        "ffn-relu-after",
        "07_encoder",
        "PositionwiseFeedForward",
        "applies the ReLU after w_2 instead of between the layers.",
        AUTHOR,
        (r"relu|activation",),
        edits=(
            ("hidden = torch.relu(self.w_1(x))", "hidden = self.w_1(x)"),
            (
                "return self.w_2(self.dropout(hidden))",
                "return torch.relu(self.w_2(self.dropout(hidden)))",
            ),
        ),
    ),
    Case(
        "enc-no-attn-residual",
        "07_encoder",
        "EncoderLayer",
        "the attention sublayer has no residual connection (post-norm path).",
        AUTHOR,
        (r"residual|skip connection|x \+",),
        edits=(
            (
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))",
                "x = self.norm1(self.dropout(self.self_attn(x, x, x, mask)[0]))",
            ),
        ),
    ),
    Case(
        "enc-ignores-norm-first",
        "07_encoder",
        "EncoderLayer",
        "ignores norm_first: always post-norm.",
        AUTHOR,
        (r"norm_first|pre.norm|pre-LN",),
        edits=(("if self.norm_first:", "if False:"),),
    ),
    Case(
        "enc-not-chained",
        "07_encoder",
        "Encoder",
        "feeds every layer the stack's input instead of the previous layer's output.",
        AUTHOR,
        (r"chain|previous layer|stack's input|each layer.{0,40}input|receives",),
        edits=(
            (
                "for layer in self.layers:\n            x = layer(x, mask)\n        return x if self.norm is None else self.norm(x)",
                "out = x\n        for layer in self.layers:\n            out = layer(x, mask)\n        return out if self.norm is None else self.norm(out)",
            ),
        ),
    ),
    Case(
        "enc-final-norm-always",
        "07_encoder",
        "Encoder",
        "always adds a final norm, also for the post-LN stack.",
        AUTHOR,
        (r"final (layer)?norm",),
        edits=(
            (
                "use_final_norm = norm_first if final_norm is None else final_norm",
                "use_final_norm = True",
            ),
        ),
    ),
    Case(
        "dec-cross-swapped",
        "08_decoder",
        "DecoderLayer",
        "passes memory as the query and the decoder state as keys/values in cross-attention.",
        ANNOTATED_MASK,
        (r"quer(y|ies).{0,60}(decoder|memory)|memory.{0,40}(key|quer)",),
        edits=(
            (
                "x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))",
                "x = self.norm2(x + self.dropout(self.cross_attn(memory, x, x, src_mask)[0]))",
            ),
        ),
    ),
    Case(
        "dec-src-mask-self",
        "08_decoder",
        "DecoderLayer",
        "uses the source mask in the self-attention instead of the target mask.",
        ANNOTATED_MASK,
        (r"tgt_mask|look.ahead|target mask",),
        edits=(
            (
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))",
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x, src_mask)[0]))",
            ),
        ),
    ),
    Case(
        "dec-no-cross-residual",
        "08_decoder",
        "DecoderLayer",
        "the cross-attention sublayer has no residual connection.",
        ANNOTATED_MASK,
        (r"residual|skip connection",),
        edits=(
            (
                "x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))",
                "x = self.norm2(self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))",
            ),
        ),
    ),
    Case(
        "dec-norm2-twice",
        "08_decoder",
        "DecoderLayer",
        "uses norm2 after the feed-forward instead of norm3.",
        ANNOTATED_MASK,
        (r"norm3",),
        edits=(
            (
                "return self.norm3(x + self.dropout(self.feed_forward(x)))",
                "return self.norm2(x + self.dropout(self.feed_forward(x)))",
            ),
        ),
    ),
    Case(
        "dec-not-chained",
        "08_decoder",
        "Decoder",
        "feeds every layer the stack's input instead of the previous layer's output.",
        ANNOTATED_MASK,
        (r"chain|previous layer|stack's input|each layer.{0,40}input|receives",),
        edits=(
            (
                "for layer in self.layers:\n            x = layer(x, memory, src_mask, tgt_mask)\n        return x if self.norm is None else self.norm(x)",
                "out = x\n        for layer in self.layers:\n            out = layer(x, memory, src_mask, tgt_mask)\n        return out if self.norm is None else self.norm(out)",
            ),
        ),
    ),
    Case(
        "dec-masks-swapped",
        "08_decoder",
        "Decoder",
        "passes the masks to the layers in the wrong order (tgt_mask as src_mask).",
        ANNOTATED_MASK,
        (r"src_mask|tgt_mask|swap|order",),
        edits=(
            (
                "x = layer(x, memory, src_mask, tgt_mask)",
                "x = layer(x, memory, tgt_mask, src_mask)",
            ),
        ),
    ),
    Case(
        "tr-no-positions-decoder",
        "09_transformer",
        "Transformer",
        "adds no positional encoding on the decoder side.",
        ANNOTATED_MASK,
        (r"positional|position",),
        edits=(
            (
                "y = self.positional_encoding(self.tgt_embedding(tgt_ids))",
                "y = self.tgt_embedding(tgt_ids)",
            ),
        ),
    ),
    Case(
        "tr-src-embedding-for-tgt",
        "09_transformer",
        "Transformer",
        "embeds the target with the source embedding.",
        ANNOTATED_MASK,
        (r"tgt_embedding|src_embedding|target embedding",),
        edits=(
            (
                "y = self.positional_encoding(self.tgt_embedding(tgt_ids))",
                "y = self.positional_encoding(self.src_embedding(tgt_ids))",
            ),
        ),
    ),
    Case(
        "tr-no-lookahead",
        "09_transformer",
        "Transformer",
        "uses the target padding mask only in the decoder, no look-ahead.",
        TUTORIAL_MASK,
        (r"look.ahead|future|causal",),
        edits=(
            (
                "tgt_mask = decoder_self_attention_mask(tgt_ids, self.pad_id)",
                "tgt_mask = padding_mask(tgt_ids, self.pad_id)",
            ),
        ),
    ),
    Case(
        "tr-tie-output-only",
        "09_transformer",
        "Transformer",
        "ties only the output layer to the source embedding, not the target embedding.",
        TYING,
        (r"tgt_embedding|three|target embedding",),
        edits=(
            ("self.tgt_embedding.embedding.weight = self.src_embedding.embedding.weight", "pass"),
        ),
    ),
    Case(
        "tr-softmax-output",
        "09_transformer",
        "Transformer",
        "returns probabilities (softmax of the output) instead of logits.",
        SOFTMAX_CE,
        (r"softmax|logits|probabilit",),
        edits=(("return self.output(y)", "return torch.softmax(self.output(y), dim=-1)"),),
    ),
    Case(
        "count-no-bias",
        "09_transformer",
        "count_parameters",
        "forgets the biases of the attention projections.",
        AUTHOR,
        (r"bias",),
        edits=(
            (
                "attention = 4 * (d_model * num_heads * d_head + d_model)",
                "attention = 4 * (d_model * num_heads * d_head)",
            ),
        ),
    ),
    Case(
        "count-decoder-one-attention",
        "09_transformer",
        "count_parameters",
        "counts one attention block per decoder layer instead of two.",
        AUTHOR,
        (r"cross.attention|two attention|2 \*",),
        edits=(
            (
                "decoder_layer = 2 * attention + feed_forward + 3 * layer_norm",
                "decoder_layer = attention + feed_forward + 3 * layer_norm",
            ),
        ),
    ),
    Case(
        "count-tied-output-weight",
        "09_transformer",
        "count_parameters",
        "counts the output weight again when the embeddings are tied.",
        AUTHOR,
        (r"tied|shared|tie",),
        edits=(
            (
                "'output': vocab_size if tie_embeddings else table + vocab_size",
                "'output': table + vocab_size",
            ),
        ),
    ),
    Case(
        "count-ln-one-param",
        "09_transformer",
        "count_parameters",
        "counts a LayerNorm as d_model parameters (forgets the bias).",
        AUTHOR,
        (r"LayerNorm|layer norm|gain and bias|2 \* d_model",),
        edits=(("layer_norm = 2 * d_model", "layer_norm = d_model"),),
    ),
    Case(
        "greedy-no-pad-after-eos",
        "09_transformer",
        "greedy_decode",
        "keeps generating after a row's <eos> instead of padding it.",
        BEAM_EOS,
        (r"after <eos>|pad_id|padding after",),
        edits=(("next_token = next_token.masked_fill(finished, model.pad_id)", "pass"),),
    ),
    Case(
        "greedy-stop-first-row",
        "09_transformer",
        "greedy_decode",
        "stops the whole batch as soon as one row produces <eos>.",
        BEAM_STOP,
        (r"every row|all rows|one row|whole batch|finished\.all|any\(",),
        edits=(("if finished.all():", "if finished.any():"),),
    ),
    Case(
        "greedy-keeps-bos",
        "09_transformer",
        "greedy_decode",
        "returns the tokens with <bos> in front.",
        BEAM_EOS,
        (r"<bos>|bos",),
        edits=(("return tokens[:, 1:]", "return tokens"),),
    ),
    Case(
        "greedy-first-position",
        "09_transformer",
        "greedy_decode",
        "takes the argmax of the first position's logits instead of the last.",
        BEAM_OFF_BY_ONE,
        (r"last position|first position|logits\[:, -1\]|-1\]",),
        edits=(
            (
                "next_token = logits[:, -1].argmax(dim=-1)",
                "next_token = logits[:, 0].argmax(dim=-1)",
            ),
        ),
    ),
    Case(
        "greedy-softmax-positions",
        "09_transformer",
        "greedy_decode",
        "takes the argmax over the positions axis instead of the vocabulary.",
        SOFTMAX_DIM,
        (r"vocabulary|axis|dim",),
        edits=(
            (
                "next_token = logits[:, -1].argmax(dim=-1)",
                "next_token = logits.argmax(dim=1)[:, -1]",
            ),
        ),
    ),
    Case(
        "greedy-start-pad",
        "09_transformer",
        "greedy_decode",
        "starts every target with pad_id instead of <bos>.",
        BEAM_EOS,
        (r"<bos>|bos_id|start",),
        edits=(
            (
                "tokens = torch.full((batch, 1), bos_id, dtype=torch.long)",
                "tokens = torch.full((batch, 1), model.pad_id, dtype=torch.long)",
            ),
        ),
    ),
]

# Held-out cases, written before the fixes of their round (heldout=True).
from benchmarks.diagnosis.cases_early import HELD_OUT as _EARLY  # noqa: E402
from benchmarks.diagnosis.cases_late import CASES as _LATE  # noqa: E402
from benchmarks.diagnosis.cases_lesson10 import CASES_LESSON10  # noqa: E402

CASES += _EARLY
CASES += _LATE
CASES += CASES_LESSON10

from benchmarks.diagnosis.cases_blind import BLIND as _BLIND  # noqa: E402

CASES += _BLIND

from benchmarks.diagnosis.cases_blind_c import BLIND_C as _BLIND_C  # noqa: E402

CASES += _BLIND_C

from benchmarks.diagnosis.cases_blind_b import BLIND_B as _BLIND_B  # noqa: E402

CASES += _BLIND_B

from benchmarks.diagnosis.cases_blind_a import BLIND_A as _BLIND_A  # noqa: E402

CASES += _BLIND_A

from benchmarks.diagnosis.cases_blind4a import BLIND4A as _BLIND4A  # noqa: E402

CASES += _BLIND4A

from benchmarks.diagnosis.cases_blind4b import BLIND4B as _BLIND4B  # noqa: E402

CASES += _BLIND4B

from benchmarks.diagnosis.cases_blind5a import BLIND5A as _BLIND5A  # noqa: E402

CASES += _BLIND5A

from benchmarks.diagnosis.cases_blind4d import BLIND4D as _BLIND4D  # noqa: E402

CASES += _BLIND4D

from benchmarks.diagnosis.cases_blind5b import BLIND5B as _BLIND5B  # noqa: E402

CASES += _BLIND5B

from benchmarks.diagnosis.cases_blind5c import BLIND5C as _BLIND5C  # noqa: E402

CASES += _BLIND5C

from benchmarks.diagnosis.cases_blind4c import BLIND4C as _BLIND4C  # noqa: E402

CASES += _BLIND4C

from benchmarks.diagnosis.cases_blind6a import BLIND6A as _BLIND6A  # noqa: E402

CASES += _BLIND6A

from benchmarks.diagnosis.cases_blind6b import BLIND6B as _BLIND6B  # noqa: E402

CASES += _BLIND6B

from benchmarks.diagnosis.cases_blind6c import BLIND6C as _BLIND6C  # noqa: E402

CASES += _BLIND6C

from benchmarks.diagnosis.cases_blind6d import BLIND6D as _BLIND6D  # noqa: E402

CASES += _BLIND6D

from benchmarks.diagnosis.cases_blind7a import BLIND7A as _BLIND7A  # noqa: E402

CASES += _BLIND7A

from benchmarks.diagnosis.cases_blind7b import BLIND7B as _BLIND7B  # noqa: E402

CASES += _BLIND7B

from benchmarks.diagnosis.cases_blind8a import BLIND8A as _BLIND8A  # noqa: E402

CASES += _BLIND8A

from benchmarks.diagnosis.cases_blind8b import BLIND8B as _BLIND8B  # noqa: E402

CASES += _BLIND8B

from benchmarks.diagnosis.cases_blind8c import BLIND8C as _BLIND8C  # noqa: E402

CASES += _BLIND8C

from benchmarks.diagnosis.cases_blind8d import BLIND8D as _BLIND8D  # noqa: E402

CASES += _BLIND8D

from benchmarks.diagnosis.cases_blind9a import BLIND9A as _BLIND9A  # noqa: E402

CASES += _BLIND9A

from benchmarks.diagnosis.cases_blind9b import BLIND9B as _BLIND9B  # noqa: E402

CASES += _BLIND9B

from benchmarks.diagnosis.cases_blind9c import BLIND9C as _BLIND9C  # noqa: E402

CASES += _BLIND9C

from benchmarks.diagnosis.cases_blind9d import BLIND9D as _BLIND9D  # noqa: E402

CASES += _BLIND9D

from benchmarks.diagnosis.cases_blind9e import BLIND9E as _BLIND9E  # noqa: E402

CASES += _BLIND9E

from benchmarks.diagnosis.cases_blind9f import BLIND9F as _BLIND9F  # noqa: E402

CASES += _BLIND9F

from benchmarks.diagnosis.cases_blind10a import BLIND10A as _BLIND10A  # noqa: E402

CASES += _BLIND10A

from benchmarks.diagnosis.cases_blind10b import BLIND10B as _BLIND10B  # noqa: E402

CASES += _BLIND10B

from benchmarks.diagnosis.cases_blind10c import BLIND10C as _BLIND10C  # noqa: E402

CASES += _BLIND10C

from benchmarks.diagnosis.cases_blind10d import BLIND10D as _BLIND10D  # noqa: E402

CASES += _BLIND10D

from benchmarks.diagnosis.cases_blind10e import BLIND10E as _BLIND10E  # noqa: E402

CASES += _BLIND10E

from benchmarks.diagnosis.cases_blind10f import BLIND10F as _BLIND10F  # noqa: E402

CASES += _BLIND10F

from benchmarks.diagnosis.cases_blind10g import BLIND10G as _BLIND10G  # noqa: E402

CASES += _BLIND10G

from benchmarks.diagnosis.cases_blind10i import BLIND10I as _BLIND10I  # noqa: E402

CASES += _BLIND10I

from benchmarks.diagnosis.cases_blind10h import BLIND10H as _BLIND10H  # noqa: E402

CASES += _BLIND10H

from benchmarks.diagnosis.cases_blind10j import BLIND10J as _BLIND10J  # noqa: E402

CASES += _BLIND10J

from benchmarks.diagnosis.cases_blind10k import BLIND10K as _BLIND10K  # noqa: E402

CASES += _BLIND10K

from benchmarks.diagnosis.cases_blind11a import BLIND11A as _BLIND11A  # noqa: E402

CASES += _BLIND11A

from benchmarks.diagnosis.cases_blind11b import BLIND11B as _BLIND11B  # noqa: E402

CASES += _BLIND11B

from benchmarks.diagnosis.cases_blind11c import BLIND11C as _BLIND11C  # noqa: E402

CASES += _BLIND11C

from benchmarks.diagnosis.cases_blind11d import BLIND11D as _BLIND11D  # noqa: E402

CASES += _BLIND11D

from benchmarks.diagnosis.cases_blind11e import BLIND11E as _BLIND11E  # noqa: E402

CASES += _BLIND11E

from benchmarks.diagnosis.cases_blind11f import BLIND11F as _BLIND11F  # noqa: E402

CASES += _BLIND11F

from benchmarks.diagnosis.cases_blind11g import BLIND11G as _BLIND11G  # noqa: E402

CASES += _BLIND11G

from benchmarks.diagnosis.cases_blind11h import BLIND11H as _BLIND11H  # noqa: E402

CASES += _BLIND11H

from benchmarks.diagnosis.cases_blind11i import BLIND11I as _BLIND11I  # noqa: E402

CASES += _BLIND11I

from benchmarks.diagnosis.cases_blind11j import BLIND11J as _BLIND11J  # noqa: E402

CASES += _BLIND11J

from benchmarks.diagnosis.cases_blind11k import BLIND11K as _BLIND11K  # noqa: E402

CASES += _BLIND11K

from benchmarks.diagnosis.cases_blind11l import BLIND11L as _BLIND11L  # noqa: E402

CASES += _BLIND11L

from benchmarks.diagnosis.cases_blind11m import BLIND11M as _BLIND11M  # noqa: E402

CASES += _BLIND11M

from benchmarks.diagnosis.cases_blind11n import BLIND11N as _BLIND11N  # noqa: E402

CASES += _BLIND11N

from benchmarks.diagnosis.cases_blind12a import BLIND12A as _BLIND12A  # noqa: E402

CASES += _BLIND12A

from benchmarks.diagnosis.cases_blind12b import BLIND12B as _BLIND12B  # noqa: E402

CASES += _BLIND12B

from benchmarks.diagnosis.cases_blind12c import BLIND12C as _BLIND12C  # noqa: E402

CASES += _BLIND12C

from benchmarks.diagnosis.cases_blind12d import BLIND12D as _BLIND12D  # noqa: E402

CASES += _BLIND12D

from benchmarks.diagnosis.cases_blind12e import BLIND12E as _BLIND12E  # noqa: E402

CASES += _BLIND12E

from benchmarks.diagnosis.cases_blind12f import BLIND12F as _BLIND12F  # noqa: E402

CASES += _BLIND12F

from benchmarks.diagnosis.cases_blind12g import BLIND12G as _BLIND12G  # noqa: E402

CASES += _BLIND12G

from benchmarks.diagnosis.cases_blind12h import BLIND12H as _BLIND12H  # noqa: E402

CASES += _BLIND12H

from benchmarks.diagnosis.cases_blind12i import BLIND12I as _BLIND12I  # noqa: E402

CASES += _BLIND12I

from benchmarks.diagnosis.cases_blind12j import BLIND12J as _BLIND12J  # noqa: E402

CASES += _BLIND12J

from benchmarks.diagnosis.cases_blind12k import BLIND12K as _BLIND12K  # noqa: E402

CASES += _BLIND12K

from benchmarks.diagnosis.cases_blind12l import BLIND12L as _BLIND12L  # noqa: E402

CASES += _BLIND12L

from benchmarks.diagnosis.cases_blind12m import BLIND12M as _BLIND12M  # noqa: E402

CASES += _BLIND12M

from benchmarks.diagnosis.cases_blind12n import BLIND12N as _BLIND12N  # noqa: E402

CASES += _BLIND12N

from benchmarks.diagnosis.cases_blind13a import BLIND13A as _BLIND13A  # noqa: E402

CASES += _BLIND13A

from benchmarks.diagnosis.cases_blind13b import BLIND13B as _BLIND13B  # noqa: E402

CASES += _BLIND13B

from benchmarks.diagnosis.cases_blind13c import BLIND13C as _BLIND13C  # noqa: E402

CASES += _BLIND13C

from benchmarks.diagnosis.cases_blind13d import BLIND13D as _BLIND13D  # noqa: E402

CASES += _BLIND13D

from benchmarks.diagnosis.cases_blind13e import BLIND13E as _BLIND13E  # noqa: E402

CASES += _BLIND13E

from benchmarks.diagnosis.cases_blind13f import BLIND13F as _BLIND13F  # noqa: E402

CASES += _BLIND13F

from benchmarks.diagnosis.cases_blind13g import BLIND13G as _BLIND13G  # noqa: E402

CASES += _BLIND13G

from benchmarks.diagnosis.cases_blind14a import BLIND14A as _BLIND14A  # noqa: E402

CASES += _BLIND14A

from benchmarks.diagnosis.cases_blind14b import BLIND14B as _BLIND14B  # noqa: E402

CASES += _BLIND14B

from benchmarks.diagnosis.cases_blind14c import BLIND14C as _BLIND14C  # noqa: E402

CASES += _BLIND14C

from benchmarks.diagnosis.cases_blind14d import BLIND14D as _BLIND14D  # noqa: E402

CASES += _BLIND14D

from benchmarks.diagnosis.cases_blind14e import BLIND14E as _BLIND14E  # noqa: E402

CASES += _BLIND14E

from benchmarks.diagnosis.cases_blind14f import BLIND14F as _BLIND14F  # noqa: E402

CASES += _BLIND14F

from benchmarks.diagnosis.cases_blind14g import BLIND14G as _BLIND14G  # noqa: E402

CASES += _BLIND14G

from benchmarks.diagnosis.cases_blind15a import BLIND15A as _BLIND15A  # noqa: E402

CASES += _BLIND15A

from benchmarks.diagnosis.cases_blind15b import BLIND15B as _BLIND15B  # noqa: E402

CASES += _BLIND15B

from benchmarks.diagnosis.cases_blind15c import BLIND15C as _BLIND15C  # noqa: E402

CASES += _BLIND15C

from benchmarks.diagnosis.cases_blind15d import BLIND15D as _BLIND15D  # noqa: E402

CASES += _BLIND15D

from benchmarks.diagnosis.cases_blind15e import BLIND15E as _BLIND15E  # noqa: E402

CASES += _BLIND15E

from benchmarks.diagnosis.cases_blind15f import BLIND15F as _BLIND15F  # noqa: E402

CASES += _BLIND15F

from benchmarks.diagnosis.cases_blind15g import BLIND15G as _BLIND15G  # noqa: E402

CASES += _BLIND15G

from benchmarks.diagnosis.cases_blind16a import BLIND16A as _BLIND16A  # noqa: E402

CASES += _BLIND16A

from benchmarks.diagnosis.cases_blind16b import BLIND16B as _BLIND16B  # noqa: E402

CASES += _BLIND16B

from benchmarks.diagnosis.cases_blind16c import BLIND16C as _BLIND16C  # noqa: E402

CASES += _BLIND16C

from benchmarks.diagnosis.cases_blind16d import BLIND16D as _BLIND16D  # noqa: E402

CASES += _BLIND16D

from benchmarks.diagnosis.cases_blind16e import BLIND16E as _BLIND16E  # noqa: E402

CASES += _BLIND16E

from benchmarks.diagnosis.cases_blind16f import BLIND16F as _BLIND16F  # noqa: E402

CASES += _BLIND16F

from benchmarks.diagnosis.cases_blind16g import BLIND16G as _BLIND16G  # noqa: E402

CASES += _BLIND16G

from benchmarks.diagnosis.cases_blind17a import BLIND17A as _BLIND17A  # noqa: E402

CASES += _BLIND17A

from benchmarks.diagnosis.cases_blind17b import BLIND17B as _BLIND17B  # noqa: E402

CASES += _BLIND17B

from benchmarks.diagnosis.cases_blind17c import BLIND17C as _BLIND17C  # noqa: E402

CASES += _BLIND17C

from benchmarks.diagnosis.cases_blind17d import BLIND17D as _BLIND17D  # noqa: E402

CASES += _BLIND17D

from benchmarks.diagnosis.cases_blind17e import BLIND17E as _BLIND17E  # noqa: E402

CASES += _BLIND17E

from benchmarks.diagnosis.cases_blind17f import BLIND17F as _BLIND17F  # noqa: E402

CASES += _BLIND17F

from benchmarks.diagnosis.cases_blind17g import BLIND17G as _BLIND17G  # noqa: E402

CASES += _BLIND17G

from benchmarks.diagnosis.cases_blind18a import BLIND18A as _BLIND18A  # noqa: E402

CASES += _BLIND18A

from benchmarks.diagnosis.cases_blind18b import BLIND18B as _BLIND18B  # noqa: E402

CASES += _BLIND18B

from benchmarks.diagnosis.cases_blind18c import BLIND18C as _BLIND18C  # noqa: E402

CASES += _BLIND18C

from benchmarks.diagnosis.cases_blind18d import BLIND18D as _BLIND18D  # noqa: E402

CASES += _BLIND18D

from benchmarks.diagnosis.cases_blind18e import BLIND18E as _BLIND18E  # noqa: E402

CASES += _BLIND18E

from benchmarks.diagnosis.cases_blind19a import BLIND19A as _BLIND19A  # noqa: E402

CASES += _BLIND19A

from benchmarks.diagnosis.cases_blind19b import BLIND19B as _BLIND19B  # noqa: E402

CASES += _BLIND19B

from benchmarks.diagnosis.cases_blind19c import BLIND19C as _BLIND19C  # noqa: E402

CASES += _BLIND19C

from benchmarks.diagnosis.cases_blind19d import BLIND19D as _BLIND19D  # noqa: E402

CASES += _BLIND19D

from benchmarks.diagnosis.cases_blind19e import BLIND19E as _BLIND19E  # noqa: E402

CASES += _BLIND19E

from benchmarks.diagnosis.cases_blind19f import BLIND19F as _BLIND19F  # noqa: E402

CASES += _BLIND19F

from benchmarks.diagnosis.cases_blind20a import BLIND20A as _BLIND20A  # noqa: E402

CASES += _BLIND20A

from benchmarks.diagnosis.cases_blind20b import BLIND20B as _BLIND20B  # noqa: E402

CASES += _BLIND20B

from benchmarks.diagnosis.cases_blind20c import BLIND20C as _BLIND20C  # noqa: E402

CASES += _BLIND20C

from benchmarks.diagnosis.cases_blind20d import BLIND20D as _BLIND20D  # noqa: E402

CASES += _BLIND20D

from benchmarks.diagnosis.cases_blind21a import BLIND21A as _BLIND21A  # noqa: E402

CASES += _BLIND21A

from benchmarks.diagnosis.cases_blind21b import BLIND21B as _BLIND21B  # noqa: E402

CASES += _BLIND21B

from benchmarks.diagnosis.cases_blind21c import BLIND21C as _BLIND21C  # noqa: E402

CASES += _BLIND21C

from benchmarks.diagnosis.cases_blind22b import BLIND22B as _BLIND22B  # noqa: E402

CASES += _BLIND22B

from benchmarks.diagnosis.cases_blind23a import BLIND23A as _BLIND23A  # noqa: E402

CASES += _BLIND23A

from benchmarks.diagnosis.cases_blind23c import BLIND23C as _BLIND23C  # noqa: E402

CASES += _BLIND23C

from benchmarks.diagnosis.cases_blind24a import BLIND24A as _BLIND24A  # noqa: E402

CASES += _BLIND24A

from benchmarks.diagnosis.cases_blind24b import BLIND24B as _BLIND24B  # noqa: E402

CASES += _BLIND24B

from benchmarks.diagnosis.cases_blind24c import BLIND24C as _BLIND24C  # noqa: E402

CASES += _BLIND24C

from benchmarks.diagnosis.cases_blind25a import BLIND25A as _BLIND25A  # noqa: E402

CASES += _BLIND25A

from benchmarks.diagnosis.cases_blind25b import BLIND25B as _BLIND25B  # noqa: E402

CASES += _BLIND25B

from benchmarks.diagnosis.cases_blind25c import BLIND25C as _BLIND25C  # noqa: E402

CASES += _BLIND25C

from benchmarks.diagnosis.cases_blind26b import BLIND26B as _BLIND26B  # noqa: E402

CASES += _BLIND26B

from benchmarks.diagnosis.cases_blind26c import BLIND26C as _BLIND26C  # noqa: E402

CASES += _BLIND26C

from benchmarks.diagnosis.cases_blind27a import BLIND27A as _BLIND27A  # noqa: E402

CASES += _BLIND27A

from benchmarks.diagnosis.cases_blind27b import BLIND27B as _BLIND27B  # noqa: E402

CASES += _BLIND27B

from benchmarks.diagnosis.cases_blind27c import BLIND27C as _BLIND27C  # noqa: E402

CASES += _BLIND27C

from benchmarks.diagnosis.cases_blind28a import BLIND28A as _BLIND28A  # noqa: E402

CASES += _BLIND28A

from benchmarks.diagnosis.cases_blind28b import BLIND28B as _BLIND28B  # noqa: E402

CASES += _BLIND28B

from benchmarks.diagnosis.cases_blind28c import BLIND28C as _BLIND28C  # noqa: E402

CASES += _BLIND28C

from benchmarks.diagnosis.cases_blind29a import BLIND29A as _BLIND29A  # noqa: E402

CASES += _BLIND29A

from benchmarks.diagnosis.cases_blind29b import BLIND29B as _BLIND29B  # noqa: E402

CASES += _BLIND29B

from benchmarks.diagnosis.cases_blind29c import BLIND29C as _BLIND29C  # noqa: E402

CASES += _BLIND29C

from benchmarks.diagnosis.cases_blind30a import BLIND30A as _BLIND30A  # noqa: E402

CASES += _BLIND30A

from benchmarks.diagnosis.cases_blind30b import BLIND30B as _BLIND30B  # noqa: E402

CASES += _BLIND30B

from benchmarks.diagnosis.cases_blind30c import BLIND30C as _BLIND30C  # noqa: E402

CASES += _BLIND30C

from benchmarks.diagnosis.cases_blind31a import BLIND31A as _BLIND31A  # noqa: E402

CASES += _BLIND31A

from benchmarks.diagnosis.cases_blind31b import BLIND31B as _BLIND31B  # noqa: E402

CASES += _BLIND31B

from benchmarks.diagnosis.cases_blind31c import BLIND31C as _BLIND31C  # noqa: E402

CASES += _BLIND31C
