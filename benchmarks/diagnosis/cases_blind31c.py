"""Held-out wrong answers, blind round 31 (helper b31c, 2026-11-30, lessons 11-12): mistakes new to
the benchmark, written blind (no check module, no message read) after fix round 36, to measure
how the diagnoses generalise to mistakes nobody here has seen (``held_out_authored`` in
``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L11, L12 = "11_language_model", "12_inference"

_c = held_out_authored("blind31c")

# Where these mistakes are reported (each page was read for this batch).
KNNLM_INT16 = "https://github.com/urvashik/knnlm/issues/6"
YARN_ATTENTION_FACTOR = "https://github.com/ml-explore/mlx-lm/pull/1507"
LOGN_SCALING = "https://github.com/DAMO-NLP-SG/CLEX/issues/1"
CLONES_SAME_INIT = "https://github.com/harvardnlp/annotated-transformer/issues/9"
INT8_KV_CACHE = "https://github.com/sgl-project/sglang/pull/3034"
SDPA_MASK_DROPPED = "https://github.com/huggingface/transformers/pull/30311"
INDEX_ZERO_AS_MAX = "https://github.com/state-spaces/mamba/pull/927"
FINITE_MASK_VALUE = "https://github.com/TransformerLensOrg/TransformerLens/issues/318"

BLIND31C: list[Case] = [
    _c(
        "ntb-stream-stored-as-int16",
        L11,
        "next_token_batches",
        "stores the token stream as torch.int16 before gathering the windows (the ids 'fit in 16 bits', a quarter of int64's memory), as a datastore of token ids in int16 does: inputs and targets come back int16 instead of int64, and every id of 32768 or more wraps round to a negative number.",
        (
            r"int16|16[- ]bit|short ?tensor",
            r"(wrap|overflow)\w*.{0,60}(negative|32767|32768|2 ?\*\* ?15)|(negative|32767|32768).{0,60}(wrap|overflow)\w*",
            r"(cast|convert|stor)\w* (the )?(token )?(stream|ids|tokens) (to|as) (a )?(smaller|narrower|16)",
        ),
        (
            r"int32|32[- ]bit",
            r"float",
            r"global (random|rng)|torch\.manual_seed",
            r"off[- ]by[- ]one|last (valid )?start|start range",
            r"not shifted|targets? (are|equal) (the )?inputs",
        ),
        code="""
def next_token_batches(tokens, block_size, batch_size, generator):
    stream = tokens.to(torch.int16)  # ids fit in 16 bits: a quarter of the memory of int64
    starts = torch.randint(0, len(stream) - block_size, (batch_size,), generator=generator)
    positions = starts[:, None] + torch.arange(block_size)
    return stream[positions], stream[positions + 1]
""",
        source=KNNLM_INT16,
    ),
    _c(
        "ntb-positions-drawn-independently",
        L11,
        "next_token_batches",
        "draws an independent random position for every slot of the batch, torch.randint(0, len(tokens) - 1, (batch_size, block_size)), instead of batch_size window starts: each target is still the token after its input, but the block_size tokens of a row are scattered over the stream instead of consecutive, so no row is a window of text (and the generator gives other draws than the contract's).",
        (
            r"(not|n't|never|no longer) (a )?(contiguous|consecutive)|(contiguous|consecutive) (window|run|slice|tokens)",
            r"independent\w* (random )?(positions?|draws?|tokens?|indices)",
            r"(each|every) (token|position|slot|element) (is )?(drawn|sampled|chosen|picked) (independently|separately|at random)",
            r"one (random )?start (per|for each) (row|window)|(batch_size, ?block_size)\)? (random )?(positions|indices)",
        ),
        (
            r"shuffl\w*",
            r"global (random|rng)|torch\.manual_seed",
            r"off[- ]by[- ]one|last (valid )?start|start range",
            r"not shifted|targets? (are|equal) (the )?inputs",
            r"(time|position)[- ]major|transpos\w*",
            r"randperm|without replacement|sorted",
        ),
        code="""
def next_token_batches(tokens, block_size, batch_size, generator):
    # one random position per slot: every input has its next token as target
    positions = torch.randint(
        0, len(tokens) - 1, (batch_size, block_size), generator=generator
    )
    inputs = tokens[positions]
    targets = tokens[positions + 1]
    return inputs, targets
""",
    ),
    _c(
        "rms-eps-added-to-sum-of-squares",
        L11,
        "RMSNorm",
        "writes the mean square as a sum divided by d_model and puts eps inside the division, sqrt((sum(x**2) + eps) / d_model): eps is divided by d_model as well, so the norm uses eps / d_model instead of eps: the same for tokens of ordinary size, but tokens whose mean square is near eps come out too large.",
        (
            r"eps\w* (is |gets )?(also )?(divided|scaled|shrunk) by d_?model|eps ?/ ?d_?model|eps\w* (is )?(inside|in) the (division|sum)",
            r"(sum|sum of squares) ?\+ ?eps|eps (is )?added to the sum|add\w* eps to the sum",
            r"effective eps\w* (is )?(too small|smaller|d_?model times)",
        ),
        (
            r"(subtract|centr|cent)\w* (the )?mean|layer ?norm",
            r"(outside|after) the (square )?root",
            r"\bl2 norm|x\.norm|sqrt\(d_?model\)",
            r"(wrong|sequence|position|batch) (axis|dim)",
            r"(no|missing|without) (the )?(gain|weight)",
            r"(hard[- ]coded|default) eps|1e-6",
        ),
        code="""
class RMSNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.d_model = d_model
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))

    def forward(self, x):
        sum_of_squares = (x * x).sum(dim=-1, keepdim=True)
        rms = torch.sqrt((sum_of_squares + self.eps) / self.d_model)
        return self.weight * (x / rms)
""",
    ),
    _c(
        "rope-yarn-attention-factor",
        L11,
        "rotary_embedding",
        "copies YaRN's attention factor into the tables: multiplies cos and sin by mscale = 0.1 ln(2) + 1 (about 1.069, for a context extension factor of 2), so cos^2 + sin^2 is no longer 1 and every 'rotation' also stretches each pair by 1.069 (the queries and the keys, so every score by about 1.14).",
        (
            r"mscale|attention[ _]factor|yarn",
            r"(scal|stretch|multipl|larger)\w* (by|with) (a )?(factor|constant)?( of)? ?(about )?1\.0[67]",
            r"cos\^?2 ?\+ ?sin\^?2|(not|no longer) (on the )?unit (length|norm|circle)|(length|norm) (is )?(not|no longer) (preserved|kept)|not a (pure )?rotation",
            r"(too large|larger|scaled) by (a |the same )?(constant|common) (factor|ratio)",
        ),
        (
            r"positions? (start|count|number)\w* (at|from) 1|one position late",
            r"(wrong|another|other) base|base ?\*\* ?\(?\+",
            r"exponent|2i ?/ ?d_?head|frequenc\w* (are |is )?(wrong|too)",
            r"(cos|sin)\w* (and|&) (sin|cos)\w* (are )?swapped",
            r"float64|dtype",
            r"interpolat\w*|ntk",
        ),
        code="""
def rotary_embedding(length, d_head, base=10000.0):
    scale = 2.0  # context extension factor
    mscale = 0.1 * math.log(scale) + 1.0  # YaRN's attention factor
    inv_freq = 1.0 / base ** (torch.arange(0, d_head, 2, dtype=torch.float64) / d_head)
    t = torch.arange(length, dtype=torch.float64)
    freqs = torch.outer(t, inv_freq)  # (length, d_head // 2)
    cos = (freqs.cos() * mscale).to(torch.float32)
    sin = (freqs.sin() * mscale).to(torch.float32)
    return cos, sin
""",
        source=YARN_ATTENTION_FACTOR,
    ),
    _c(
        "csa-logn-query-scaling",
        L11,
        "CausalSelfAttention",
        "adds the log-n attention scaling of long-context code: multiplies the rotated queries by log(len) / log(128) (the training block size) before the attention, so every score is scaled by a factor that depends on the sequence length (below 1 for sequences shorter than 128, 0 for a single token) and the weights differ from softmax(q k^T / sqrt(d_head)).",
        (
            r"log ?\(? ?(n|len|length|seq\w*)\b|log-?n\b|logn",
            r"(length|sequence[- ]length)[- ]dependent (scal\w*|factor|temperature)|(scal\w*|factor) (that )?(depends|depending|varies) (on|with) (the )?(sequence )?length",
            r"quer\w* (are |is )?(scaled|multiplied|rescaled) by|extra (scal\w*|factor) (on|of) the quer",
        ),
        (
            r"sqrt\(?d_?model|d_model\b.{0,20}scal",
            r"no scal\w*|(forgot|missing|without) (the )?(1 ?/ ?)?sqrt",
            r"values? (are |is )?rotated|rotat\w* the values",
            r"keys? (are |is )?not rotated|only the quer\w* (are |is )?rotated",
            r"(wrong|default|another) base|base (is )?not passed",
            r"mask\w* (is )?(missing|inverted|transposed)|attends? to (the )?future",
        ),
        code="""
class CausalSelfAttention(nn.Module):
    def __init__(self, d_model, num_heads, base=10000.0, train_len=128):
        super().__init__()
        if d_model % num_heads:
            raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
        self.num_heads, self.d_head, self.base = num_heads, d_model // num_heads, base
        self.train_len = train_len  # block_size of the training run
        self.w_q = nn.Linear(d_model, d_model, bias=False)
        self.w_k = nn.Linear(d_model, d_model, bias=False)
        self.w_v = nn.Linear(d_model, d_model, bias=False)
        self.w_o = nn.Linear(d_model, d_model, bias=False)

    def forward(self, x):
        length = x.size(1)
        q = split_heads(self.w_q(x), self.num_heads)
        k = split_heads(self.w_k(x), self.num_heads)
        v = split_heads(self.w_v(x), self.num_heads)
        cos, sin = rotary_embedding(length, self.d_head, self.base)
        q = apply_rotary(q, cos, sin)
        k = apply_rotary(k, cos, sin)
        # log-n attention: keep the attention entropy stable across lengths
        q = q * (math.log(length) / math.log(self.train_len))
        out, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))
        return self.w_o(merge_heads(out))
""",
        source=LOGN_SCALING,
    ),
    _c(
        "gpt-blocks-deep-copied-from-one",
        L11,
        "GPT",
        "builds one DecoderBlock and fills the stack with copy.deepcopy of it (the annotated Transformer's clones, without the re-initialisation that follows it there): the num_layers blocks have parameters of their own, but all start from the same random weights instead of num_layers freshly initialised blocks.",
        (
            r"deep ?copy|\bclones?\b",
            r"(same|identical|equal) (initial|random|starting) (weights|values|parameters)",
            r"(start|initiali[sz]ed?) (from |with |to )?(the )?(same|identical) (weights|values|parameters)",
            r"(not|never) (freshly|independently|separately) (initiali[sz]ed|drawn)|(each|every) (block|layer) (should be |must be )?(freshly|independently) initiali[sz]ed",
        ),
        (
            r"shar\w* (the )?(same )?(weights|parameters|tensors?|block)|(one|the same) block (is )?(repeated|reused|used)",
            r"(plain|python) list|not registered",
            r"list multiplication|\* ?num_layers",
            r"(not|un)tied|separate output",
            r"default (init\w*|std)|std(dev)? (of )?1\b",
            r"(fewer|short|missing) (blocks?|layers?)",
        ),
        code="""
import copy


class GPT(nn.Module):
    def __init__(self, vocab_size, d_model, num_heads, d_ff, num_layers, eps=1e-5):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, d_model)
        nn.init.normal_(self.embedding.weight, mean=0.0, std=0.02)
        block = DecoderBlock(d_model, num_heads, d_ff, eps)
        self.layers = nn.ModuleList([copy.deepcopy(block) for _ in range(num_layers)])
        self.norm = RMSNorm(d_model, eps)

    def forward(self, ids):
        h = self.embedding(ids)
        for block in self.layers:
            h = block(h)
        return F.linear(self.norm(h), self.embedding.weight)
""",
        source=CLONES_SAME_INIT,
    ),
    _c(
        "sample-top-p-guard-on-token-zero",
        L11,
        "sample",
        "writes the keep-the-most-probable-token guard after scattering the removal mask back to vocabulary order, drop[..., 0] = False, so it protects the token whose id is 0 instead of the first sorted (most probable) token, as min-p code that reads logits[..., 0] as the maximum does: top-p never removes token 0 (it can be drawn from outside the nucleus), and with top_p = 0 the only token left in every row is token 0, not its most probable one.",
        (
            r"(token|id|index) 0\b.{0,80}(kept|protected|never removed|survives|always)|(keeps?|protects?|spares?) (the )?(token|id|vocabulary index|index) 0\b",
            r"guard.{0,80}(vocabulary|original|unsorted) order|guard.{0,80}(after|once) (the mask is |it is )?(scattered|mapped|unsorted) back",
            r"guard.{0,60}(token|id|index) 0\b|(token|id|index) 0\b.{0,60}guard",
        ),
        (
            r"row 0|first row|remove_sorted\[0\]",
            r"least probable|\[\.\.\., ?-1\]",
            r"(drops?|removes?) the crossing token|inclusive",
            r"(no|missing|without) (the )?guard",
            r"\bgather\b",
            r"temperature (is )?(applied )?after|top-p before top-k",
        ),
        code="""
def sample(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return torch.argmax(logits, dim=-1)
    scaled = logits / temperature
    if top_k is not None and top_k < scaled.size(-1):
        threshold = scaled.topk(top_k, dim=-1).values[:, -1:]
        scaled = torch.where(scaled < threshold, torch.full_like(scaled, float("-inf")), scaled)
    if top_p is not None:
        probs = F.softmax(scaled, dim=-1)
        sorted_probs, sorted_idx = torch.sort(probs, dim=-1, descending=True)
        mass_before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
        drop_sorted = mass_before >= top_p
        drop = torch.zeros_like(drop_sorted).scatter(-1, sorted_idx, drop_sorted)
        drop[..., 0] = False  # always keep the most probable token
        scaled = scaled.masked_fill(drop, float("-inf"))
    probs = F.softmax(scaled, dim=-1)
    return torch.multinomial(probs, num_samples=1, generator=generator).squeeze(-1)
""",
        source=INDEX_ZERO_AS_MAX,
    ),
    _c(
        "kv-int8-quantised-storage",
        L12,
        "KVCache",
        "stores the keys and values quantised to int8 (one absmax / 127 scale per position and head, as int8 KV caches do) and dequantises them on return: the keys and values buffers are int8 instead of the dtype asked for, and every returned key and value is off by up to half a quantisation step (about 0.4% of the largest entry of its row).",
        (
            r"int8|8[- ]bit",
            r"quanti[sz]\w*",
            r"(rounding|precision|quantisation|quantization) (error|loss)|lossy|(rounded|approximat\w*) (keys|values|copies)",
        ),
        (
            r"always float32|float32 whatever",
            r"persistent|state[_ ]dict",
            r"whole buffer|all max_len|(zeros|empty slots) (at|after) the end",
            r"length (is )?not (advanced|updated)|writes? at (position )?0|overwrit\w*",
            r"float16|half precision|bfloat16",
        ),
        code="""
class KVCache(nn.Module):
    def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
        super().__init__()
        shape = (batch, num_heads, max_len, d_head)
        # int8 storage with one scale per position and head: a quarter of float32's memory
        self.register_buffer("keys", torch.zeros(shape, dtype=torch.int8), persistent=False)
        self.register_buffer("values", torch.zeros(shape, dtype=torch.int8), persistent=False)
        scale_shape = (batch, num_heads, max_len, 1)
        self.register_buffer("key_scale", torch.ones(scale_shape, dtype=dtype), persistent=False)
        self.register_buffer("value_scale", torch.ones(scale_shape, dtype=dtype), persistent=False)
        self.dtype = dtype
        self.length = 0

    @staticmethod
    def _quantise(t):
        scale = t.abs().amax(dim=-1, keepdim=True).clamp(min=1e-8) / 127
        return torch.round(t / scale).to(torch.int8), scale

    def forward(self, k_new, v_new):
        n = k_new.shape[2]
        if self.length + n > self.keys.shape[2]:
            raise ValueError("KV cache is full")
        end = self.length + n
        self.keys[:, :, self.length : end], self.key_scale[:, :, self.length : end] = self._quantise(k_new)
        self.values[:, :, self.length : end], self.value_scale[:, :, self.length : end] = self._quantise(v_new)
        self.length = end
        keys = self.keys[:, :, :end].to(self.dtype) * self.key_scale[:, :, :end]
        values = self.values[:, :, :end].to(self.dtype) * self.value_scale[:, :, :end]
        return keys, values
""",
        source=INT8_KV_CACHE,
    ),
    _c(
        "gqa-mask-dropped-for-one-query",
        L12,
        "grouped_query_attention",
        "drops the mask whenever there is a single query (len_q == 1), reasoning that one new token may attend to every key (the shortcut Hugging Face's SDPA path takes for single-token decoding): right for a causal mask, but any other mask given with one query (padding, a sliding window) is ignored, so its masked keys get weight.",
        (
            r"mask.{0,100}(len_q ?(==|=|is|of) ?1\b|\b(single|lone|only one) (new )?(query|token)\b(?! heads?)|\bone (new )?(query|token) (only|alone)\b)",
            r"(len_q ?(==|=|is|of) ?1\b|\b(single|lone|only one) (new )?(query|token)\b(?! heads?)|\bone (new )?(query|token) (only|alone)\b).{0,100}mask",
            r"(decod\w*|generation) step.{0,60}mask|mask.{0,60}(decod\w*|generation) step",
        ),
        (
            r"\brepeat\b|\btile[sd]?\b|\[k0, ?k1|pairing|h ?% ?|modulo",
            r"mask (is )?(inverted|negated)|True (means|=) (blocked|masked)",
            r"no scal\w*|(forgot|missing|without) (the )?(1 ?/ ?)?sqrt",
            r"softmax over (the )?quer|dim ?= ?-2",
            r"values? (are |is )?not repeated",
            r"mask (is )?(never|always) (ignored|dropped|applied|passed|used)|(ignores|drops) the mask (entirely|always|for every)",
        ),
        code="""
def grouped_query_attention(q, k, v, mask=None):
    batch, num_heads, len_q, _ = q.shape
    num_kv_heads = k.shape[1]
    group = num_heads // num_kv_heads
    if len_q == 1:
        mask = None  # a single new token may see every key: no mask needed
    k = k[:, :, None].expand(-1, -1, group, -1, -1).reshape(batch, num_heads, *k.shape[2:])
    v = v[:, :, None].expand(-1, -1, group, -1, -1).reshape(batch, num_heads, *v.shape[2:])
    out, _ = scaled_dot_product_attention(q, k, v, mask)
    return out
""",
        source=SDPA_MASK_DROPPED,
    ),
    _c(
        "online-softmax-absmax-reference",
        L12,
        "online_softmax",
        "keeps the running maximum of |x| instead of x (starting at 0 and updating with block.abs().amax(-1)), reasoning that x - max|x| is never positive: a row whose largest value lies far below its largest magnitude (e.g. [-120, -100, 5]) has every exp underflow to 0, and the result is 0 / 0 (nan).",
        (
            r"\.abs\(\)|abs\(|absolute (value|maximum|max)|max(imum)? (of )?(the )?(absolute|\|x\|)|\|x\||(largest|maximum|max) magnitude",
            r"(reference|running max\w*).{0,60}(above|larger than|greater than|exceeds?) (the )?(row'?s? )?(true |actual |real )?max",
        ),
        (
            r"starts? (at|from) (0|zero)\b|initiali[sz]ed? (to|at|with) (0|zero)\b",
            r"(whole|entire) tensor|shared (by|across) (all |every )?rows|no dim",
            r"(not|never) rescal\w*|correction (is )?(missing|inverted)",
            r"block'?s? own max",
            r"last (partial )?block|drops? (the )?(last|partial)",
            r"in[- ]place|modif\w* (the )?input",
        ),
        code="""
def online_softmax(x, block_size):
    # reference point: the largest |x| seen so far, so that every x - m is <= 0
    m = torch.zeros(x.shape[:-1], dtype=x.dtype)
    s = torch.zeros(x.shape[:-1], dtype=x.dtype)
    for i in range(0, x.shape[-1], block_size):
        chunk = x[..., i : i + block_size]
        m_new = torch.maximum(m, chunk.abs().amax(dim=-1))
        s = s * torch.exp(m - m_new) + torch.exp(chunk - m_new.unsqueeze(-1)).sum(dim=-1)
        m = m_new
    return torch.exp(x - m.unsqueeze(-1)) / s.unsqueeze(-1)
""",
    ),
    _c(
        "tiled-future-filled-with-minus-1e5",
        L12,
        "tiled_attention",
        "fills the future keys' scores with -1e5 (a large finite negative, to keep -inf and nan out) instead of -inf: right while every visible score is far above -1e5, but for large queries and keys whose visible scores fall near or below -1e5 the masked future keys get weight (all of it when the visible scores are lower still).",
        (
            r"-1e5|-100000|-100,000|-10\^?5|1e5",
            r"finite (fill|value|number|constant)|large negative (number|value|constant)",
        ),
        (
            r"fill\w* (with |the future scores with )?(0|zero)\b",
            r"bottom[- ]right|len_k ?- ?len_q|offset",
            r"diagonal|excludes? (itself|its own)",
            r"block[- ]local|local (key )?(positions|index)",
            r"(not|never) rescal\w*|correction",
            r"sqrt|scal(e|ing) (is )?(wrong|missing)",
        ),
        code="""
def tiled_attention(q, k, v, block_size, causal=False):
    MASK_VALUE = -1e5  # a large negative number: no -inf, so no nan
    len_q, len_k = q.shape[-2], k.shape[-2]
    scale = q.shape[-1] ** -0.5
    m = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
    l = torch.zeros(q.shape[:-1], dtype=q.dtype)
    o = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
    rows = torch.arange(len_q).unsqueeze(1)
    for j in range(0, len_k, block_size):
        kb, vb = k[..., j : j + block_size, :], v[..., j : j + block_size, :]
        s = torch.matmul(q, kb.transpose(-1, -2)) * scale
        if causal:
            cols = torch.arange(j, j + kb.shape[-2]).unsqueeze(0)
            s = s.masked_fill(cols > rows, MASK_VALUE)
        m_new = torch.maximum(m, s.amax(-1))
        alpha = torch.exp(m - m_new)
        p = torch.exp(s - m_new.unsqueeze(-1))
        l = alpha * l + p.sum(-1)
        o = alpha.unsqueeze(-1) * o + p @ vb
        m = m_new
    return o / l.unsqueeze(-1)
""",
        source=FINITE_MASK_VALUE,
    ),
    _c(
        "tiled-max-over-future-keys",
        L12,
        "tiled_attention",
        "takes each block's maximum over all its scores, the future keys included, and zeroes the future keys' weights only after the exp: exact in exact arithmetic, but when a future key's score exceeds every visible one by more than about 100 the visible weights underflow to 0 and the row comes out 0 / 0 (nan) or wrong.",
        (
            r"max\w* (includes?|over|taken over|computed over|counts?|of) (all |the )?(the )?(future|masked)",
            r"(future|masked) (keys?'?|scores?).{0,60}(max|maximum)\b",
            r"(mask\w*|zero\w*) (is |are )?(applied )?after (the )?(exp|exponential)|after exponentiat",
        ),
        (
            r"fill\w* (with )?(0|zero)\b",
            r"bottom[- ]right|len_k ?- ?len_q",
            r"diagonal|excludes? (itself|its own)",
            r"(not|never) rescal\w*|correction (is )?(missing|inverted)",
            r"starts? (at|from) (0|zero)\b|initiali[sz]ed? (to|at) (0|zero)\b",
            r"block'?s? own max|(not|never) (the )?running max",
        ),
        code="""
def tiled_attention(q, k, v, block_size, causal=False):
    scale = 1.0 / math.sqrt(q.shape[-1])
    len_q, len_k = q.shape[-2], k.shape[-2]
    running_max = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
    running_sum = torch.zeros(q.shape[:-1], dtype=q.dtype)
    out = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)
    for start in range(0, len_k, block_size):
        stop = min(start + block_size, len_k)
        scores = q @ k[..., start:stop, :].transpose(-2, -1) * scale
        block_max = torch.maximum(running_max, scores.amax(dim=-1))
        p = torch.exp(scores - block_max[..., None])
        if causal:
            # zero the weights of future keys
            visible = torch.arange(start, stop)[None, :] <= torch.arange(len_q)[:, None]
            p = p * visible
        correction = torch.exp(running_max - block_max)
        running_sum = running_sum * correction + p.sum(dim=-1)
        out = out * correction[..., None] + p @ v[..., start:stop, :]
        running_max = block_max
    return out / running_sum[..., None]
""",
    ),
    _c(
        "tiled-causal-dropped-for-one-query",
        L12,
        "tiled_attention",
        "turns the causal mask off whenever there is a single query (len_q == 1), reasoning as decoding code does that one new token may see every key: but this mask is aligned to the top left, so a lone query is position 0 and may attend to key 0 only; with causal=True and len_q == 1 it attends to every key instead.",
        (
            r"(len_q ?(==|=|is|of) ?1\b|\b(single|lone|only one) (new )?(query|token)\b(?! heads?)|\bone (new )?(query|token) (only|alone)\b).{0,100}(causal|mask)",
            r"(causal|mask).{0,100}(len_q ?(==|=|is|of) ?1\b|\b(single|lone|only one) (new )?(query|token)\b(?! heads?)|\bone (new )?(query|token) (only|alone)\b)",
        ),
        (
            r"bottom[- ]right|lower[- ]right|len_k ?- ?len_q",
            r"diagonal|excludes? (itself|its own)",
            r"block[- ]local|local (key )?(positions|index)",
            r"fill\w* (with )?(0|zero)\b",
            r"(not|never) rescal\w*|correction",
            r"causal (flag )?(is )?(ignored|never applied|not applied) (for|in) (every|all|any)",
        ),
        code="""
def tiled_attention(q, k, v, block_size, causal=False):
    len_q, len_k = q.shape[-2], k.shape[-2]
    if len_q == 1:
        causal = False  # a single query is the newest token: it may see every key
    scale = 1 / math.sqrt(q.shape[-1])
    m = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
    denom = torch.zeros(q.shape[:-1], dtype=q.dtype)
    acc = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)
    q_pos = torch.arange(len_q)[:, None]
    for start in range(0, len_k, block_size):
        k_blk = k[..., start : start + block_size, :]
        v_blk = v[..., start : start + block_size, :]
        s = torch.einsum("...qd,...kd->...qk", q, k_blk) * scale
        if causal:
            k_pos = torch.arange(start, start + k_blk.shape[-2])[None, :]
            s = s.masked_fill(k_pos > q_pos, float("-inf"))
        m_new = torch.maximum(m, s.amax(dim=-1))
        w = torch.exp(s - m_new[..., None])
        c = torch.exp(m - m_new)
        denom = denom * c + w.sum(dim=-1)
        acc = acc * c[..., None] + torch.einsum("...qk,...kd->...qd", w, v_blk)
        m = m_new
    return acc / denom[..., None]
""",
        source=SDPA_MASK_DROPPED,
    ),
]
