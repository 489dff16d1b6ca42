"""Checks for lesson 09's ``count_parameters``, against ``count_parameters_f`` and its
mistakes."""

from __future__ import annotations

import itertools
import math
from typing import Any

from transformer_course.checking import Checker, short
from transformer_course.checking.oracles import (
    count_parameters_f,
)
from transformer_course.checking.tie_breaking import split_candidates
from transformer_course.reference import transformer as ref

# ================================================================== count_parameters
_COUNT_KEYS = ("embeddings", "encoder", "decoder", "output")
#: (vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm)
VISIBLE_COUNT = [
    (100, 8, 2, 1, 16, False, False),
    (100, 8, 2, 2, 16, True, False),
    (1000, 32, 4, 2, 48, False, True),
    (37000, 512, 8, 6, 2048, True, False),  # the paper's base model
    (37000, 1024, 16, 6, 4096, True, False),  # the paper's big model
]
HIDDEN_COUNT = [
    (5000, 64, 8, 3, 100, False, False),
    (5000, 64, 1, 3, 100, True, True),
    (32000, 512, 8, 6, 2048, True, True),
    (40000, 768, 12, 4, 3072, False, False),
    (7, 4, 4, 1, 3, True, False),
]


COUNT_MISTAKES = [
    (
        {"tied_copies": 3},
        "With tie_embeddings=True the matrix is ONE parameter, shared: count it once, under "
        "'embeddings'; the output layer then adds only its bias (vocab_size). model.parameters() "
        "yields a shared parameter once.",
    ),
    (
        {"tied_copies": 2},
        "With tie_embeddings=True the source and the target embedding are one matrix: "
        "'embeddings' is vocab_size * d_model, not twice that.",
    ),
    (
        {"tied_output_bias": False},
        "Tied, the output layer's weight is the shared matrix, but its bias (vocab_size numbers) "
        "is its own: 'output' is vocab_size.",
    ),
    (
        {"untied_tables": 1},
        "Without tying, source and target each have their own table: 'embeddings' is "
        "2 * vocab_size * d_model.",
    ),
    (
        {"biases": False},
        "You counted the weight matrices but not the biases: every nn.Linear has a bias of "
        "n_out numbers (d_model for w_q, w_k, w_v, w_o and w_2, d_ff for w_1, vocab_size for "
        "the output layer).",
    ),
    (
        {"attention_biases": False},
        "You left out the attention's biases: w_q, w_k, w_v and w_o are each an nn.Linear "
        "with a bias of d_model numbers, so one attention is 4 * (d_model * d_model + d_model).",
    ),
    (
        {"ffn_biases": False},
        "You left out the feed-forward network's biases: w_1 has a bias of d_ff numbers and "
        "w_2 one of d_model, so the feed-forward is (d_model * d_ff + d_ff) + (d_ff * d_model "
        "+ d_model).",
    ),
    (
        {"ffn_omitted": ("w_2.bias",)},
        "You left out w_2's bias (d_model numbers): the feed-forward is (d_model * d_ff + "
        "d_ff) + (d_ff * d_model + d_model), a bias for each of its two nn.Linear layers.",
    ),
    (
        {"ffn_omitted": ("w_1.bias",)},
        "You left out w_1's bias (d_ff numbers): the feed-forward is (d_model * d_ff + d_ff) "
        "+ (d_ff * d_model + d_model), a bias for each of its two nn.Linear layers.",
    ),
    (
        {"ffn_omitted": ("w_2.weight",)},
        "You counted one weight matrix of the feed-forward: it has two, w_1 (d_model x d_ff) "
        "and w_2 (d_ff x d_model), each with its bias: 2 * d_model * d_ff + d_ff + d_model.",
    ),
    (
        {"untied_output_bias": False},
        "Untied, you left out the output layer's bias: nn.Linear(d_model, vocab_size) has a "
        "weight (vocab_size * d_model) and a bias (vocab_size).",
    ),
    (
        {"attention_projections": 3},
        "Each attention has FOUR projections, w_q, w_k, w_v and the output projection w_o "
        "(lesson 05): 4 * (d_model * d_model + d_model); you counted three.",
    ),
    (
        {"decoder_attentions": 1},
        "A decoder layer has TWO attentions, the masked self-attention and the "
        "cross-attention (each 4 * (d_model * d_model + d_model)); you counted one.",
    ),
    (
        {"decoder_norms": 2},
        "A decoder layer has THREE LayerNorms, one per sub-layer (self-attention, "
        "cross-attention, feed-forward); you counted two.",
    ),
    (
        {"final_per_layer": True},
        "You counted the final LayerNorm once per layer (inside num_layers * (...)): each "
        "stack has ONE final LayerNorm, after its last layer, so with final_norm=True a stack "
        "is num_layers * layer + 2 * d_model.",
    ),
    (
        {"final_in": ("encoder",)},
        "With final_norm=True BOTH stacks end with a LayerNorm: the decoder's final norm "
        "(2 * d_model) is missing; you counted only the encoder's.",
    ),
    (
        {"final_in": ("decoder",)},
        "With final_norm=True BOTH stacks end with a LayerNorm: the encoder's final norm "
        "(2 * d_model) is missing; you counted only the decoder's.",
    ),
    (
        {"norms": 0},
        "The LayerNorms are missing: each has a gain and a bias of d_model numbers; an encoder "
        "layer has two, a decoder layer three.",
    ),
    (
        {"norms": 1},
        "Each LayerNorm has TWO vectors of d_model numbers, the gain (weight) and the bias: "
        "2 * d_model, not d_model.",
    ),
    (
        {"heads_multiply": True},
        "You multiplied the attention's matrices by num_heads. The heads SPLIT d_model between "
        "them (each projects to d_model / num_heads), so w_q, w_k, w_v and w_o are d_model x "
        "d_model whatever num_heads is (lesson 05, section 6).",
    ),
    (
        {"qkv_per_head": True},
        "You counted w_q, w_k and w_v as d_model x d_head (one head's share, or num_heads "
        "blocks of d_head x d_head). Each is ONE nn.Linear(d_model, d_model): the heads split "
        "its output between them, they do not shrink it, so each projection is d_model * "
        "d_model + d_model, like w_o (lesson 05).",
    ),
    (
        {"decoder_like_encoder": True},
        "A decoder layer is not an encoder layer: it has a second attention (the "
        "cross-attention) and a third LayerNorm.",
    ),
    (
        {"d_ff_4": True},
        "The feed-forward width is the d_ff argument; 4 * d_model is only the paper's choice "
        "of it.",
    ),
    (
        {"one_layer": True},
        "Each stack has num_layers layers: multiply one layer's count by num_layers.",
    ),
    (
        {"final": "never"},
        "Your counts leave out the final LayerNorms: each stack is 2 * d_model short. With "
        "final_norm=True each stack ends with one more LayerNorm (2 * d_model parameters), "
        "as nn.Transformer's stacks do: add it to the encoder's and to the decoder's count.",
    ),
    (
        {"final": "always"},
        "Your counts add the final LayerNorm (2 * d_model per stack) even with "
        "final_norm=False: the post-LN stacks then have no final LayerNorm. Count it only "
        "when final_norm is True; a test that False also passes, such as `final_norm is not "
        "None` (False is not None), counts it every time.",
    ),
]


_PROJECTIONS = {1: "one of them", 2: "two of them", 3: "three of them", 4: "all four"}


def _per_head_mistakes() -> list[tuple[dict, str]]:
    """The family 'a projection counted as one head's share': any number of the four
    projections of an attention counted as d_model x d_head (d_head = d_model / num_heads)
    instead of d_model x d_model, with the bias of d_model numbers or of d_head."""
    found = []
    for shrunk in (1, 2, 3, 4):
        for bias in (False, True):
            if shrunk == 3 and not bias:
                continue  # qkv_per_head, listed above
            which = _PROJECTIONS[shrunk]
            found.append(
                (
                    {"per_head_projections": shrunk, "per_head_bias": bias},
                    f"You counted {which} of the attention's projections (w_q, w_k, w_v, w_o) "
                    "as d_model x d_head, one head's share"
                    + (", with a bias of d_head numbers" if bias else "")
                    + ". Each projection is ONE nn.Linear(d_model, d_model) whatever num_heads "
                    "is: the heads split its output between them, they do not shrink it, so "
                    "one attention is 4 * (d_model * d_model + d_model) (lesson 05).",
                )
            )
    return found


def _per_layer_mistakes() -> list[tuple[dict, str]]:
    """The family 'one sub-layer too many or too few': an encoder or a decoder layer
    counted with one attention or one LayerNorm more, or fewer, than it has (the decoder's
    one attention and two LayerNorms are listed above)."""
    has = {
        ("encoder", "attention"): 1,
        ("encoder", "LayerNorm"): 2,
        ("decoder", "attention"): 2,
        ("decoder", "LayerNorm"): 3,
    }
    why = {
        "encoder": "an encoder layer has one attention (self-attention) and two LayerNorms, "
        "one per sub-layer",
        "decoder": "a decoder layer has two attentions (the masked self-attention and the "
        "cross-attention) and three LayerNorms, one per sub-layer",
    }
    found = []
    for (stack, part), right in has.items():
        for counted in (right - 1, right + 1):
            if (stack, part, counted) in (("decoder", "attention", 1), ("decoder", "LayerNorm", 2)):
                continue
            knob = f"{stack}_{'attentions' if part == 'attention' else 'norms'}"
            plural = part if counted == 1 else part + "s"
            found.append(
                (
                    {knob: counted},
                    f"Your {stack} layer counts {counted} {plural}, one "
                    f"{'more' if counted > right else 'fewer'} than it has: {why[stack]}.",
                )
            )
    return found


def _subtracted_mistakes() -> list[tuple[dict, str]]:
    """The family 'a term subtracted where it is added': one bias of a layer counted with
    a minus (a - where + belongs), which takes it away instead of adding it."""
    what = {
        "w_1.bias": ("w_1's bias (d_ff numbers)", "(d_model * d_ff + d_ff)"),
        "w_2.bias": ("w_2's bias (d_model numbers)", "(d_ff * d_model + d_model)"),
        "attention.bias": (
            "the attention's biases (d_model numbers per projection)",
            "4 * (d_model * d_model + d_model)",
        ),
    }
    return [
        (
            {"subtracted": (term,)},
            f"You subtracted {name} where {'they are' if 'biases' in name else 'it is'} added "
            "(a minus instead of a plus): each layer is then twice that bias short. Add it: "
            f"{formula}.",
        )
        for term, (name, formula) in what.items()
    ]


def _bias_width_mistakes() -> list[tuple[dict, str]]:
    """The family 'a bias sized by the wrong width': the feed-forward's biases counted with
    d_ff or d_model numbers where the other belongs. An nn.Linear(n_in, n_out) has a bias
    of n_out numbers: w_1 (d_model -> d_ff) d_ff, w_2 (d_ff -> d_model) d_model."""
    said = {
        "ff": "w_2's bias as d_ff numbers (like w_1's)",
        "dd": "w_1's bias as d_model numbers (like w_2's)",
    }  # both swapped, "df", gives the right total: no mistake in a count
    return [
        (
            {"ffn_bias_widths": widths},
            f"You counted {text}. An nn.Linear(n_in, n_out) has a bias of n_out numbers, one "
            "per output: w_1 = nn.Linear(d_model, d_ff) has d_ff, w_2 = nn.Linear(d_ff, "
            "d_model) has d_model, so the feed-forward is (d_model * d_ff + d_ff) + (d_ff * "
            "d_model + d_model).",
        )
        for widths, text in said.items()
    ]


def _single_layer_mistakes() -> list[tuple[dict, str]]:
    """The family 'one stack not multiplied by num_layers': the encoder's or the decoder's
    entry counted with a single layer (both at once is ``one_layer``, above)."""
    return [
        (
            {"single_layer": (stack,)},
            f"Your {stack!r} count is ONE {stack} layer: it is not multiplied by num_layers "
            f"(the {other!r} count is). Each stack has num_layers layers: "
            f"num_layers * (one {stack} layer), plus its final LayerNorm when final_norm is "
            "True.",
        )
        for stack, other in (("encoder", "decoder"), ("decoder", "encoder"))
    ]


def _two_sub_layer_mistakes() -> list[tuple[dict, str]]:
    """The family 'one sub-layer too many or too few', two at once: an encoder or a
    decoder layer counted with a wrong number of attentions AND of LayerNorms (such as an
    encoder layer counted like a decoder layer, a copy-paste slip)."""
    right = {"encoder": (1, 2), "decoder": (2, 3)}
    layer = {
        "encoder": "an encoder layer has one attention (self-attention) and two LayerNorms",
        "decoder": "a decoder layer has two attentions (the masked self-attention and the "
        "cross-attention) and three LayerNorms",
    }
    found = []
    for stack, (attentions, norms) in right.items():
        other = "decoder" if stack == "encoder" else "encoder"
        for a in (attentions - 1, attentions + 1):
            for n in (norms - 1, norms + 1):
                if a < 0 or n < 0 or (stack, a, n) == ("decoder", 1, 2):
                    continue  # decoder_like_encoder, listed above
                like = (
                    f", as a{'n' if other == 'encoder' else ''} {other} layer has"
                    if ((a, n) == right[other])
                    else ""
                )
                found.append(
                    (
                        {f"{stack}_attentions": a, f"{stack}_norms": n},
                        f"Your {stack} layer counts {a} attention{'s' if a != 1 else ''} and "
                        f"{n} LayerNorm{'s' if n != 1 else ''}{like}: {layer[stack]}, one "
                        "LayerNorm per sub-layer.",
                    )
                )
    return found


def _short_attention_mistakes() -> list[tuple[dict, str]]:
    """The family 'one attention of the decoder layer short of projections': 1 to 3 of
    the four projections (each with its bias) left out of one of its two attentions, the
    encoder's attention counted right. Both attentions have the same size, so the counts
    cannot tell which one; the cross-attention counted with w_q and w_o only (its keys and
    values taken as ready-made memory) was told "you counted three" (blind13a)."""
    why = {
        1: "(one projection left out, such as w_o, or one projection shared by the keys "
        "and the values)",
        2: "(such as the cross-attention counted with w_q and w_o only, as if its keys and "
        "values came ready-made from memory: they come from memory through the "
        "cross-attention's own w_k and w_v)",
        3: "(such as one projection counted where there are four)",
    }
    return [
        (
            {"decoder_attention_short": short},
            f"Your decoder layer counts one of its two attentions with {4 - short} of its "
            f"four projections {why[short]}: each decoder layer is {short} * (d_model * "
            "d_model + d_model) short, while the encoder's attention is counted right. The "
            "masked self-attention and the cross-attention are both full attentions, four "
            "projections w_q, w_k, w_v and w_o of d_model * d_model + d_model each: 4 * "
            "(d_model * d_model + d_model).",
        )
        for short in (1, 2, 3)
    ]


COUNT_MISTAKES += _per_head_mistakes() + _per_layer_mistakes() + _subtracted_mistakes()
COUNT_MISTAKES += _bias_width_mistakes() + _single_layer_mistakes() + _two_sub_layer_mistakes()
COUNT_MISTAKES += _short_attention_mistakes()
COUNT_MISTAKES += [
    (
        {"attention_bias_terms": terms},
        f"You counted {words} of d_model numbers per attention instead of four (one per "
        f"projection, w_q, w_k, w_v and w_o): each attention is {4 - terms} * d_model short"
        + (
            ", as when the parentheses of 4 * (d_model * d_model + d_model) are left out "
            "(4 * d_model * d_model + d_model, where * binds before +)"
            if terms == 1
            else ""
        )
        + (
            ", as when one projection is counted as its weight alone, most often the output "
            "projection w_o (d_model * d_model without its bias of d_model numbers, while "
            "w_q, w_k and w_v get theirs); the counts cannot tell which projection it is. "
            "w_o is an nn.Linear(d_model, d_model) with a bias like the other three"
            if terms == 3
            else ""
        )
        + ". Each attention is 4 * (d_model * d_model + d_model).",
    )
    for terms, words in ((1, "one bias"), (2, "two biases"), (3, "three biases"))
]
COUNT_MISTAKES.append(
    (
        {"tie_inverted": True},
        "Your counts are right for the other value of tie_embeddings: a tied model gets the "
        "untied counts (two tables, the output layer's weight counted) and an untied model "
        "the tied ones. The tie_embeddings test is inverted (`if not tie_embeddings` where "
        "`if tie_embeddings` belongs, or the two branches exchanged).",
    )
)

# the family 'a bias sized by the wrong width', beyond the feed-forward (module knobs, see
# mistaken_counts): an nn.Linear(n_in, n_out) has a bias of n_out numbers
COUNT_MISTAKES += [
    (
        {"attention_bias": "d_head"},
        "You counted each attention projection's bias as d_head numbers (one head's share, "
        "d_model / num_heads) while its weight is d_model x d_model: each of w_q, w_k, w_v "
        "and w_o is ONE nn.Linear(d_model, d_model), whose bias has d_model numbers "
        "whatever num_heads is (the heads split its output, they do not shrink it). One "
        "attention is 4 * (d_model * d_model + d_model).",
    ),
    (
        {"layers_offset": -1},
        "Each stack counts num_layers - 1 layers, one layer short (a one-layer model gets "
        "none), as a loop over range(1, num_layers) does: it runs num_layers - 1 times. "
        "Each stack has num_layers layers: num_layers * (one layer), plus its final "
        "LayerNorm when final_norm is True.",
    ),
    (
        {"layers_offset": 1},
        "Each stack counts num_layers + 1 layers, one layer too many, as a loop over "
        "range(num_layers + 1) (or range(0, num_layers + 1)) does. Each stack has "
        "num_layers layers: num_layers * (one layer), plus its final LayerNorm when "
        "final_norm is True.",
    ),
    (
        {"final_copies": 2},
        "With final_norm=True you added the final LayerNorms of both stacks (2 * 2 * "
        "d_model) to each stack's count: each stack comes out 2 * d_model too large, "
        "whatever num_layers (or you counted one stack's final LayerNorm twice). Each "
        "stack has ONE final LayerNorm, after its last layer: the encoder's count adds its "
        "own 2 * d_model, and the decoder's count its own 2 * d_model.",
    ),
    (
        {"table_rows": 1, "table_rows_in_output": True},
        "You counted every vocabulary matrix with vocab_size + 1 rows, one extra row (as "
        "Keras's Embedding(input_dim=vocab_size + 1) reserves one for index 0): each "
        "embedding table, and the output layer's own weight when it has one, is d_model too "
        "large. nn.Embedding(vocab_size, d_model) has exactly vocab_size rows, the padding "
        "token being one of them: a table is vocab_size * d_model.",
    ),
    (
        {"table_rows": 1},
        "You counted each embedding table with vocab_size + 1 rows, one extra row (as "
        "Keras's Embedding(input_dim=vocab_size + 1) reserves one for index 0): 'embeddings' "
        "is d_model too large per table. nn.Embedding(vocab_size, d_model) has exactly "
        "vocab_size rows, the padding token being one of them: a table is vocab_size * "
        "d_model.",
    ),
    (
        {"table_rows": -1, "table_rows_in_output": True},
        "You counted every vocabulary matrix with vocab_size - 1 rows, one row short (as if "
        "the padding token or the largest id needed no row): each embedding table, and the "
        "output layer's own weight when it has one, is d_model too small. "
        "nn.Embedding(vocab_size, d_model) has one row per id 0 .. vocab_size - 1: a table "
        "is vocab_size * d_model.",
    ),
    (
        {"table_rows": -1},
        "You counted each embedding table with vocab_size - 1 rows, one row short (as if the "
        "padding token or the largest id needed no row): 'embeddings' is d_model too small "
        "per table. nn.Embedding(vocab_size, d_model) has one row per id 0 .. vocab_size - "
        "1: a table is vocab_size * d_model.",
    ),
    (
        {"embedding_bias": "vocab_size"},
        "You gave each embedding table a bias of vocab_size numbers, as if nn.Embedding "
        "were an nn.Linear: 'embeddings' is vocab_size too large per table. nn.Embedding is "
        "a lookup table with a weight alone (vocab_size x d_model, no bias): 'embeddings' "
        "is vocab_size * d_model per table, one table when shared.",
    ),
    (
        {"embedding_bias": "d_model"},
        "You gave each embedding table a bias of d_model numbers, as if nn.Embedding were "
        "an nn.Linear(vocab_size, d_model): 'embeddings' is d_model too large per table. "
        "nn.Embedding is a lookup table with a weight alone (vocab_size x d_model, no "
        "bias): 'embeddings' is vocab_size * d_model per table, one table when shared.",
    ),
    (
        {"output_bias": "d_model"},
        "You sized the output layer's bias as d_model numbers: nn.Linear(d_model, "
        "vocab_size) has a bias of out_features = vocab_size numbers, one per token's "
        "logit. 'output' is vocab_size * d_model + vocab_size untied, vocab_size tied.",
    ),
]


def mistaken_counts(args: tuple, knobs: dict) -> dict[str, int]:
    """``count_parameters_f(*args, **knobs)``, with this module's own knobs
    ``decoder_attention_short`` (how many projections, each with its bias, one attention
    of every decoder layer leaves out), ``attention_bias`` (the width of the attention
    projections' biases: "d_model" or "d_head"), ``output_bias`` (the width of the
    output layer's bias: "vocab_size" or "d_model") and ``final_copies`` (how many final
    LayerNorms each stack counts when final_norm is True: 2 for both stacks' norms added
    to each), ``attention_bias_terms`` (how many d_model biases one attention counts, 4
    when right) and ``layers_offset`` (layers counted per stack beyond num_layers: -1 for
    a loop over range(1, num_layers)), ``table_rows`` (rows counted per vocabulary matrix
    beyond vocab_size: 1 for Keras's input_dim = vocab_size + 1) with
    ``table_rows_in_output`` (the untied output layer's weight counted with them) and
    ``embedding_bias`` (a bias given to each embedding table: "vocab_size" or "d_model")."""
    knobs = dict(knobs)
    short = knobs.pop("decoder_attention_short", 0)
    attention_bias = knobs.pop("attention_bias", "d_model")
    output_bias = knobs.pop("output_bias", "vocab_size")
    final_copies = knobs.pop("final_copies", 1)
    attention_bias_terms = knobs.pop("attention_bias_terms", 4)
    layers_offset = knobs.pop("layers_offset", 0)
    table_rows = knobs.pop("table_rows", 0)
    table_rows_in_output = knobs.pop("table_rows_in_output", False)
    embedding_bias = knobs.pop("embedding_bias", None)
    if layers_offset:  # every stack counts num_layers + layers_offset layers
        args = (*args[:3], max(args[3] + layers_offset, 0), *args[4:])
    if knobs.pop("tie_inverted", False):  # every tie_embeddings test reads the other value
        args = (*args[:5], not args[5], *args[6:])
    counts = count_parameters_f(*args, **knobs)
    v, d, h, layers, _f, _tie, _final = args
    counts["decoder"] -= layers * short * (d * d + d)
    if attention_bias == "d_head":  # four biases of d_head numbers where d_model belongs
        counts["encoder"] -= layers * 4 * (d - d // h)
        counts["decoder"] -= layers * 2 * 4 * (d - d // h)
    if output_bias == "d_model":
        counts["output"] += d - v
    # attention biases counted attention_bias_terms times instead of four (d_model each)
    counts["encoder"] -= layers * (4 - attention_bias_terms) * d
    counts["decoder"] -= layers * 2 * (4 - attention_bias_terms) * d
    tables = 1 if _tie else 2  # embedding tables counted under 'embeddings'
    # each vocabulary matrix counted with table_rows rows beyond vocab_size (d_model each)
    counts["embeddings"] += tables * table_rows * d
    if table_rows_in_output and not _tie:  # the untied output layer's weight too
        counts["output"] += table_rows * d
    if embedding_bias:  # a bias given to each embedding table, as if it were an nn.Linear
        counts["embeddings"] += tables * {"vocab_size": v, "d_model": d}[embedding_bias]
    if _final:  # the extra copies of each stack's final LayerNorm (2 * d_model each)
        counts["encoder"] += (final_copies - 1) * 2 * d
        counts["decoder"] += (final_copies - 1) * 2 * d
    return counts


def _count_call(args: tuple) -> str:
    v, d, h, n, f, tie, final = args
    return (
        f"count_parameters(vocab_size={v}, d_model={d}, num_heads={h}, num_layers={n}, "
        f"d_ff={f}, tie_embeddings={tie}, final_norm={final})"
    )


def _call_count(c: Checker, count_parameters, args: tuple) -> Any:
    """The learner's count_parameters called on one configuration (vocab_size, d_model,
    num_heads, num_layers, d_ff, tie_embeddings, final_norm), by keyword."""
    v, d, h, n, f, tie, final = args
    return c.call(
        count_parameters,
        vocab_size=v,
        d_model=d,
        num_heads=h,
        num_layers=n,
        d_ff=f,
        tie_embeddings=tie,
        final_norm=final,
        call_repr=_count_call(args),
    )


def _as_count(c: Checker, value: Any, what: str) -> int:
    if isinstance(value, bool) or not hasattr(value, "__int__"):
        c.fail(f"{what} is {short(value)}: each entry is a number of parameters, an int.")
    if hasattr(value, "numel") and value.numel() != 1:
        c.fail(f"{what} is a tensor of {value.numel()} numbers; each entry is one int.")
    number = float(value)
    if math.isfinite(number) and number != int(number):
        c.fail(
            f"{what} is {value!r}: a number of parameters is a whole number. A count only "
            "multiplies and adds whole sizes, so a fraction comes from a division (or a "
            "fractional power): a / where * belongs (n / size where n * size is meant), or "
            "a division by a size that does not divide it. Every term is a product of sizes."
        )
    if not math.isfinite(number):
        c.fail(f"{what} is {value!r}: a number of parameters is a whole number.")
    return int(number)


def _is_float(value: Any) -> bool:
    """A float of any kind: Python's, numpy's (np.float32 is not a float subclass), or a
    floating-point tensor or array of one number."""
    if isinstance(value, float):
        return True
    dtype = getattr(value, "dtype", None)
    if dtype is None:
        return False
    is_floating = getattr(dtype, "is_floating_point", None)  # torch
    if is_floating is not None:
        return bool(is_floating)
    return getattr(dtype, "kind", "") == "f"  # numpy


def _reject_float_counts(c: Checker, call: str, got: dict) -> None:
    """Fails when an entry is a float, even a whole one such as 3072.0 (blind21b-cp-head-
    size-true-division): the contract returns ints. Called after _as_count has rejected
    fractions, so every float here is whole, which only a true division / of sizes (or a
    float() somewhere) gives: the cause is named."""
    floats = [key for key in _COUNT_KEYS if _is_float(got[key])]
    if not floats:
        return

    def number(value: Any) -> str:
        kind = type(value)
        text = repr(float(value))
        return text if kind is float else f"{text} (a {kind.__module__}.{kind.__name__})"

    shown = ", ".join(f"{key!r}: {number(got[key])}" for key in floats)
    ints = [key for key in _COUNT_KEYS if key not in floats]
    rest = f" ({', '.join(repr(k) for k in ints)} are ints)" if ints else ""
    if set(floats) == {"encoder", "decoder"}:
        where = (
            "These are exactly the two counts built from the attention's sizes, so most "
            "likely the head size, d_head = d_model / num_heads"
        )
    else:
        where = (
            "Such as the head size, d_head = d_model / num_heads (or a float(...) around a count)"
        )
    c.fail(
        f"{call} returned floats: {shown}{rest}. A number of parameters is an int, as the "
        "docstring says, not a float, even a whole one. Whole-number floats come from a true "
        "division / somewhere in the count: in Python 3, / always gives a float, and every "
        f"product and sum it enters stays a float. {where}: use integer division, "
        "d_model // num_heads (num_heads divides d_model, so nothing is lost), and every "
        "count stays an int."
    )


def check_count_parameters(count_parameters, *, hidden: bool = False) -> None:
    """count_parameters(...) -> {"embeddings", "encoder", "decoder", "output": ints} for the
    paper's and other configurations (reference: ref.count_parameters, itself tested against
    the parameters of real models in tests/test_09_transformer.py)."""
    with Checker("count_parameters", hidden=hidden) as c:
        c.require_callable(count_parameters)
        results = []  # (args, call, counts, expected), every configuration
        for args in HIDDEN_COUNT if hidden else VISIBLE_COUNT:
            call = _count_call(args)
            got = _call_count(c, count_parameters, args)
            if not isinstance(got, dict):
                extra = (
                    " (a single number: the total?) Return the count of each component; "
                    "their sum is the total."
                    if hasattr(got, "__int__")
                    else ""
                )
                c.fail(
                    f"{call} returned a {type(got).__name__}; it should return a dict with "
                    f"the keys {list(_COUNT_KEYS)}.{extra}"
                )
            if set(got) != set(_COUNT_KEYS):
                c.fail(
                    f"{call} returned the keys {sorted(got)}; expected exactly {list(_COUNT_KEYS)}."
                )
            c.ok()
            counts = {key: _as_count(c, got[key], f"{call}[{key!r}]") for key in _COUNT_KEYS}
            _reject_float_counts(c, call, got)
            results.append((args, call, counts, ref.count_parameters(*args)))
        wrong_results = [r for r in results if r[2] != r[3]]
        if not wrong_results:
            return
        args, call, counts, expected = wrong_results[0]
        wrong = [key for key in _COUNT_KEYS if counts[key] != expected[key]]
        shown = ", ".join(f"{key!r}: {counts[key]:,} (expected {expected[key]:,})" for key in wrong)
        # a cause is stated only when it gives the learner's counts on every configuration
        # the check ran; when several do, all are named
        found = [
            (knobs, message)
            for knobs, message in COUNT_MISTAKES
            if all(got == mistaken_counts(a, knobs) for a, _, got, _ in results)
        ]
        # mistakes that agree on every configuration run are told apart by a few more
        found = [message for _, message in _split_by_probes(c, count_parameters, found, results)]
        if len(found) == 1:
            c.fail(f"{call} gave {shown}. {found[0]}")
        if found:
            listed = " ".join(f"({i}) {m}" for i, m in enumerate(found, 1))
            c.fail(
                f"{call} gave {shown}. On these configurations {len(found)} different mistakes "
                f"give exactly your counts, so it is one of them: {listed}"
            )
        per_key = _per_key_mistakes(results)
        if per_key:
            c.fail(f"{call} gave {shown}. {per_key}")
        moved = _moved_between_keys(results)
        if moved:
            part = _moved_part(c, count_parameters, results)
            c.fail(f"{call} gave {shown}. {moved}{part}")
        together = _two_mistakes_together(c, count_parameters, results)
        if together:
            c.fail(f"{call} gave {shown}. {together}")
        key = wrong[0]
        c.expect_equal(
            counts[key],
            expected[key],
            f"{call}[{key!r}]",
            hint=_count_hint(key, args, counts, results),
        )


def _probe_configurations(results) -> list[tuple]:
    """Configurations near those the check ran, each with one size or flag changed (the
    number of layers, final_norm, tie_embeddings, d_ff, the number of heads): the inputs
    that tell apart two count mistakes that agree on the configurations run."""
    probes = []
    for (v, d, h, n, f, tie, final), *_ in results:
        for changed in (
            (v, d, h, n + 1, f, tie, final),
            (v, d, h, n + 2, f, tie, final),
            (v, d, h, n, f, tie, not final),
            (v, d, h, n, f, not tie, final),
            (v, d, h, n, f + 8, tie, final),
            (v, d, 1, n, f, tie, final),
        ):
            if changed not in probes:
                probes.append(changed)
    return probes


def _split_by_probes(c: Checker, count_parameters, found: list, results) -> list:
    """``found`` ((knobs, message) pairs that all give the learner's counts on every
    configuration run), narrowed by calling the learner's count_parameters on nearby
    configurations where they disagree (:func:`split_candidates`)."""
    if len(found) < 2:
        return found

    def observe(args: tuple) -> tuple:
        got = _call_count(c, count_parameters, args)
        return tuple(int(got[key]) for key in _COUNT_KEYS)

    def predict(candidate: tuple, args: tuple) -> tuple:
        counts = mistaken_counts(args, candidate[0])
        return tuple(counts[key] for key in _COUNT_KEYS)

    return split_candidates(found, _probe_configurations(results), predict, observe)


def _per_key_mistakes(results) -> str:
    """Each wrong entry explained on its own: a learner's count is four independent sums,
    so two mistakes in two entries (or a mistake whose knob would also change an entry the
    learner got right) are told apart key by key. Said only when EVERY wrong entry is given,
    on every configuration, by the known mistakes, one message per entry (or the few that
    all agree, listed); "" otherwise."""
    wrong_keys = [k for k in _COUNT_KEYS if any(got[k] != want[k] for _, _, got, want in results)]
    parts = []
    for key in wrong_keys:
        fitting = [
            (knobs, message)
            for knobs, message in COUNT_MISTAKES
            if all(got[key] == mistaken_counts(a, knobs)[key] for a, _, got, _ in results)
        ]

        def consistent(knobs) -> bool:
            """The mistake moves no entry that the learner has right."""
            return all(
                mine == want[k] or got[k] == mine
                for a, _, got, want in results
                for k, mine in mistaken_counts(a, knobs).items()
            )

        # a mistake that also moves an entry the learner has right is kept only when no
        # mistake that leaves the other entries alone fits
        fitting = [f for f in fitting if consistent(f[0])] or fitting
        messages = list(dict.fromkeys(message for _, message in fitting))
        if not messages:
            return ""
        if len(messages) == 1:
            parts.append(f"In {key!r}: {messages[0]}")
        else:
            listed = " ".join(f"({i}) {m}" for i, m in enumerate(messages, 1))
            parts.append(
                f"In {key!r}, {len(messages)} mistakes give exactly your counts on every "
                f"configuration checked, so it is one of them: {listed}"
            )
    return " ".join(parts)


#: pairs of mistakes whose sum is a convention of its own, named as such
_NAMED_PAIRS = {
    frozenset({"biases", "norms"}): (
        "You counted the weight matrices only (the convention of the 12 · num_layers · "
        "d_model² rule of thumb): the biases and the LayerNorms are both left out. "
    ),
}


def _two_mistakes_together(c: Checker, count_parameters, results) -> str:
    """Two known mistakes made together (their knobs merged): the pairs that give the
    learner's counts, every entry, on every configuration the check ran, narrowed by
    nearby configurations where they disagree; both messages of each pair that is left
    are named (all pairs, listed, when two or three are left); "" when none, or more,
    fit."""
    fitting = []
    seen = set()  # the predicted counts of a pair already kept (the same pair, twice)
    for (knobs_a, message_a), (knobs_b, message_b) in itertools.combinations(COUNT_MISTAKES, 2):
        if set(knobs_a) & set(knobs_b) or message_a == message_b:
            continue  # two values of one knob cannot be merged
        knobs = {**knobs_a, **knobs_b}
        try:
            predicted = [mistaken_counts(a, knobs) for a, *_ in results]
        except Exception:  # a pair of knobs the oracle cannot merge
            continue
        if all(p == got for p, (_, _, got, _) in zip(predicted, results)):
            # a pair that one of its two knobs alone reproduces is not two mistakes
            alone = any(
                all(mistaken_counts(a, k) == got for a, _, got, _ in results)
                for k in (knobs_a, knobs_b)
            )
            signature = tuple(tuple(sorted(p.items())) for p in predicted)
            if not alone and signature not in seen:
                seen.add(signature)
                pair_names = frozenset(knobs)
                lead = _NAMED_PAIRS.get(pair_names, "")
                fitting.append((knobs, f"{lead}(a) {message_a} (b) {message_b}"))
    if not fitting or len(fitting) > 6:
        return ""
    fitting = _split_by_probes(c, count_parameters, fitting, results)
    if len(fitting) == 1:
        message = fitting[0][1]
        if message.startswith("(a)"):
            return (
                "Two mistakes made together give exactly your counts on every "
                f"configuration checked: {message}"
            )
        return message
    if len(fitting) > 3:
        return ""
    listed = " ".join(f"({i}) {m}" for i, (_, m) in enumerate(fitting, 1))
    return (
        f"On every configuration checked {len(fitting)} pairs of mistakes, each made "
        f"together, give exactly your counts, so it is one of them: {listed}"
    )


def _moved_between_keys(results) -> str:
    """When the total is right on every configuration but the entries are not: which
    count went under which key (named when it is the output layer's weight, vocab_size x
    d_model, on every wrong configuration); "" when a total is off."""
    if any(sum(got.values()) != sum(want.values()) for _, _, got, want in results):
        return ""
    wrong = [(a, got, want) for a, _, got, want in results if got != want]
    _, got, want = wrong[0]
    more = [k for k in _COUNT_KEYS if got[k] > want[k]]
    less = [k for k in _COUNT_KEYS if got[k] < want[k]]
    text = (
        "Your total is right on every configuration checked, but some parameters are counted "
        f"under the wrong key: {', '.join(repr(k) for k in more)} has too many, "
        f"{', '.join(repr(k) for k in less)} too few."
    )
    weight = all(
        got["embeddings"] - want["embeddings"] == a[0] * a[1] == want["output"] - got["output"]
        for a, got, want in wrong
    )
    if weight:
        text += (
            " The difference is vocab_size x d_model, the output layer's weight: untied, it "
            "belongs to 'output' (weight and bias), and 'embeddings' holds the two embedding "
            "tables only; tied, 'output' is its bias alone."
        )
    table_under_output = all(
        want["embeddings"] - got["embeddings"] == a[0] * a[1] == got["output"] - want["output"]
        for a, got, want in wrong
    )
    if table_under_output and all(a[5] for a, _got, _want in wrong):
        # blind14a-cp-tied-matrix-under-output: was told the keys alone
        text += (
            " The difference is vocab_size x d_model, on tied configurations only: the shared "
            "matrix is counted under 'output' (as the output layer's weight) instead of under "
            "'embeddings'. Tied, the contract counts the shared matrix once, under "
            "'embeddings', and 'output' holds only its bias, vocab_size."
        )
    elif table_under_output:
        text += (
            " The difference is vocab_size x d_model: one table counted under 'output' "
            "that belongs to 'embeddings'. 'embeddings' holds the embedding tables (two "
            "untied, one shared when tied); 'output' holds the output layer's weight and "
            "bias untied, only its bias tied."
        )
    return text


#: parts of the model a count may file under a wrong key: (words, the key it belongs to,
#: its size for args = (vocab_size, d_model, num_heads, num_layers, d_ff, tie, final))
_MOVABLE_PARTS = (
    (
        "the {key}'s final LayerNorm (2 * d_model, only with final_norm=True)",
        ("encoder", "decoder"),
        lambda v, d, h, n, f, tie, final: 2 * d if final else 0,
    ),
    (
        "the LayerNorms of the {key}'s layers (num_layers x {norms} x 2 * d_model)",
        ("encoder", "decoder"),
        None,  # 2 LayerNorms per encoder layer, 3 per decoder layer: sized per key below
    ),
    (
        "the attentions of the {key}'s layers (num_layers x {attentions} x 4 x (d_model² + "
        "d_model))",
        ("encoder", "decoder"),
        None,
    ),
    (
        "the feed-forwards of the {key}'s layers (num_layers x (2 x d_model x d_ff + d_ff + "
        "d_model))",
        ("encoder", "decoder"),
        lambda v, d, h, n, f, tie, final: n * (2 * d * f + f + d),
    ),
    (
        "the output layer's bias (vocab_size)",
        ("output",),
        lambda v, d, h, n, f, tie, final: v,
    ),
)


def _part_size(words: str, key: str, args: tuple) -> int:
    """The size of one of :data:`_MOVABLE_PARTS` (words as listed there) in ``key``."""
    d, n = args[1], args[3]  # d_model, num_layers
    if not words:
        return 0  # the stand-in for no part at all
    for part_words, _keys, size in _MOVABLE_PARTS:
        if part_words == words and size is not None:
            return size(*args)
    per_layer = {"encoder": 1, "decoder": 2}[key]  # attentions; LayerNorms are one more
    if "LayerNorms" in words:
        return n * (per_layer + 1) * 2 * d
    return n * per_layer * 4 * (d * d + d)


def _moved_part(c: Checker, count_parameters, results) -> str:
    """When the total is right but one key holds too many and one too few: the part of the
    model whose size is the amount moved on every configuration run (and on nearby ones
    where two parts differ), named with the key it belongs to; "" when no part, or more
    than two, fit."""
    wrong = [(a, got, want) for a, _, got, want in results if got != want]
    _, got, want = wrong[0]
    more = [k for k in _COUNT_KEYS if got[k] > want[k]]
    less = [k for k in _COUNT_KEYS if got[k] < want[k]]
    if len(more) == 1 and len(less) > 1:
        return _parts_moved_from_several(results, more[0])
    if len(more) != 1 or len(less) != 1:
        return ""
    (gained,), (lost,) = more, less

    def moved(args: tuple, amount: int) -> tuple:
        counts = dict(ref.count_parameters(*args))
        counts[gained] += amount
        counts[lost] -= amount
        return tuple(counts[key] for key in _COUNT_KEYS)

    candidates = []
    for words, keys, _size in _MOVABLE_PARTS:
        if lost not in keys:
            continue
        filled = words.format(
            key=lost,
            norms={"encoder": 2, "decoder": 3}[lost] if lost != "output" else "",
            attentions={"encoder": 1, "decoder": 2}[lost] if lost != "output" else "",
        )
        if all(
            moved(a, _part_size(words, lost, a)) == tuple(got_[k] for k in _COUNT_KEYS)
            for a, _, got_, _ in results
        ):
            candidates.append((words, filled))
    if not candidates:
        return ""

    def observe(args: tuple) -> tuple:
        counts = _call_count(c, count_parameters, args)
        return tuple(int(counts[key]) for key in _COUNT_KEYS)

    def predict(candidate: tuple, args: tuple) -> tuple:
        return moved(args, _part_size(candidate[0], lost, args))

    # a stand-in for "no part moved" makes the probes confirm a lone candidate too: on a
    # configuration where the part is not empty, the learner's counts must move it
    nothing = ("", "")
    candidates = split_candidates(
        [*candidates, nothing], _probe_configurations(results), predict, observe
    )
    if nothing in candidates or len(candidates) > 2:
        return ""
    named = " or ".join(filled for _words, filled in candidates)
    return (
        f" The amount moved is, on every configuration checked, exactly {named}: it is "
        f"counted under {gained!r} but belongs to {lost!r}, which holds "
        f"{_count_rule(lost)[0].lower()}{_count_rule(lost)[1:]}"
    )


def _parts_moved_from_several(results, gained: str) -> str:
    """When one key holds too many and several too few (the two stacks' final LayerNorms
    filed under 'output', say): for each key short, the one part of :data:`_MOVABLE_PARTS`
    whose size is that key's shortfall on EVERY configuration checked (0 where the part
    is empty), and the sum of them what ``gained`` holds too many; said when every key short
    has exactly one such part; "" otherwise."""
    named = []
    for lost in _COUNT_KEYS:
        if lost == gained:
            continue
        shortfalls = [want[lost] - got[lost] for _, _, got, want in results]
        if not any(shortfalls):
            continue
        fits = []
        for words, keys, _size in _MOVABLE_PARTS:
            if lost not in keys:
                continue
            sizes = [_part_size(words, lost, a) for a, _, _, _ in results]
            if sizes == shortfalls:
                fits.append(
                    words.format(
                        key=lost,
                        norms={"encoder": 2, "decoder": 3}.get(lost, ""),
                        attentions={"encoder": 1, "decoder": 2}.get(lost, ""),
                    )
                )
        if len(fits) != 1:
            return ""
        named.append((lost, fits[0]))
    if len(named) < 2 or not all(
        got[gained] - want[gained] == sum(want[lost] - got[lost] for lost, _ in named)
        for _, _, got, want in results
    ):
        return ""
    parts = "; ".join(f"{words}, from {lost!r}" for lost, words in named)
    return (
        f" The amounts moved are, on every configuration checked, exactly these parts, all "
        f"counted under {gained!r}: {parts}. Each belongs to the key it comes from."
    )


def _count_hint(key: str, args: tuple, counts: dict[str, int], results=()) -> str:
    """The rule for ``key``, and for a stack the learner's count taken apart against the
    components of one layer (so that the part that is off can be found): the parts whose
    size is the difference per layer on every configuration of ``results`` (args, call,
    counts, expected) are named."""
    rule = _count_rule(key)
    if key == "embeddings" and results:
        # (difference, d_model, vocab_size) on every configuration: the same number of
        # extra rows of d_model whatever the vocabulary is a table that is not a parameter
        offs = [(got[key] - want[key], a[1], a[0]) for a, _, got, want in results]
        rows = {off // d for off, d, _v in offs}
        if len(rows) == 1 and all(off > 0 and off % d == 0 and off // d != v for off, d, v in offs):
            extra = rows.pop()
            return (
                f"{rule} Yours is {extra:,} x d_model more than the reference on every "
                f"configuration checked: a table of {extra:,} rows that does not grow with "
                "vocab_size. If it is a positional table (max_len x d_model): the sinusoidal "
                "positional encoding is computed, not learned (a buffer, not a parameter), so "
                "it adds nothing to the count."
            )
    if key not in ("encoder", "decoder"):
        return rule
    per_stack = _per_stack_offset(key, results)
    if per_stack:
        return f"{rule} {per_stack}"
    _v, d, _h, n, f, _tie, final = args
    attention, ffn, norm = 4 * (d * d + d), 2 * d * f + f + d, 2 * d
    extra = norm if final else 0
    parts = f"one attention {attention:,}, the feed-forward {ffn:,}, one LayerNorm {norm:,}" + (
        f"; the final LayerNorm {norm:,}" if final else ""
    )
    layer = attention + ffn + 2 * norm if key == "encoder" else 2 * attention + ffn + 3 * norm
    off = counts[key] - (n * layer + extra)
    if off % n == 0:
        where = f"Yours is {abs(off):,} {'more' if off > 0 else 'fewer'} than the reference" + (
            f", {abs(off) // n:,} per layer over {n} layers" if n > 1 else " in the layer"
        )
        found = _component_multiples(abs(off) // n, d, f)
        for (_v, d2, _h, n2, f2, _t, _final), _, theirs, expected in results:
            off2 = theirs[key] - expected[key]
            if off2 * off < 0 or off2 % n2:
                found = set()
            else:
                found &= _component_multiples(abs(off2) // n2, d2, f2)
        if found:
            where += (
                f". On every configuration checked the difference is exactly "
                f"{_component_words(found)} per layer"
            )
    else:
        where = (
            f"Yours is {abs(off):,} {'more' if off > 0 else 'fewer'} than the reference, not "
            f"a multiple of num_layers={n}: look at what is counted once per stack"
        )
    return f"{rule} {where}; here {parts}."


def _per_stack_offset(key: str, results) -> str:
    """When, for one value of final_norm, the stack's count is off by the same number on
    every configuration, whatever num_layers and d_model (two values of num_layers at
    least): the difference is added once per stack, not per layer."""
    for final in (False, True):
        offs = {(got[key] - want[key], a[3], a[1]) for a, _, got, want in results if a[6] is final}
        values = {off for off, _n, _d in offs}
        if len(values) != 1 or 0 in values or len({n for _o, n, _d in offs}) < 2:
            continue
        off = values.pop()
        layers = sorted({n for _o, n, _d in offs})
        widths = " and d_model" if len({d for _o, _n, d in offs}) > 1 else ""
        final_term = (
            "with final_norm=False that term is 0: no final LayerNorm"
            if not final
            else "with final_norm=True it is one LayerNorm, 2 * d_model"
        )
        return (
            f"With final_norm={final}, yours is {abs(off):,} {'more' if off > 0 else 'fewer'} "
            f"than the reference on every configuration checked, whatever num_layers "
            f"({', '.join(map(str, layers))}){widths}: the difference is counted once per "
            f"stack, not per layer. Look at what your count adds once per stack, the final "
            f"LayerNorm's term: {final_term}."
        )
    return ""


def _component_multiples(count: int, d: int, f: int) -> set[tuple[str, int]]:
    """The parts of a layer that hold exactly ``count`` parameters when counted once to
    three times (d = d_model, f = d_ff), as (part, times)."""
    parts = (  # (part, size); parts with the same size are all candidates
        ("attention", 4 * (d * d + d)),
        ("feed-forward", 2 * d * f + f + d),
        ("LayerNorm", 2 * d),
        ("projection with its bias", d * d + d),
        ("projection weight (d_model x d_model)", d * d),
        ("feed-forward weight matrix (d_model x d_ff)", d * f),
        ("bias of d_model numbers (w_q, w_k, w_v, w_o or w_2) or LayerNorm vector", d),
        ("bias of w_1 (d_ff numbers)", f),
    )
    return {
        (part, times)
        for part, size in parts
        for times in ((1,) if size == d else (1, 2, 3))  # two d-vectors: a LayerNorm
        if size * times == count
    }


def _component_words(found: set[tuple[str, int]]) -> str:
    plural = {
        "attention": "attentions",
        "feed-forward": "feed-forwards",
        "LayerNorm": "LayerNorms",
        "projection with its bias": "projections with their biases",
        "projection weight (d_model x d_model)": "projection weights (d_model x d_model)",
        "feed-forward weight matrix (d_model x d_ff)": "weight matrices (d_model x d_ff)",
        "bias of w_1 (d_ff numbers)": "biases of d_ff numbers",
    }
    words = {1: "one", 2: "two", 3: "three"}
    return " or ".join(
        f"{words[times]} {part if times == 1 else plural[part]}"
        for part, times in sorted(found, key=lambda pair: (pair[1], pair[0]))
    )


def _count_rule(key: str) -> str:
    return {
        "embeddings": "One table of vocab_size x d_model per side, or one shared table when tied.",
        "encoder": "num_layers x (attention + feed-forward + 2 LayerNorms), plus a final "
        "LayerNorm when final_norm is True.",
        "decoder": "num_layers x (2 attentions + feed-forward + 3 LayerNorms), plus a final "
        "LayerNorm when final_norm is True.",
        "output": "nn.Linear(d_model, vocab_size): weight and bias, or only the bias when tied.",
    }[key]
