"""The symbols used everywhere in the course (shown in lesson 00 and in every docstring).

Shapes follow one convention: sequences are (batch, len, d_model); attention
weights are (batch, num_heads, len_q, len_k).
"""

GLOSSARY: dict[str, str] = {
    "batch": "number of sequences processed together",
    "len": "number of tokens in a (padded) sequence",
    "len_q": "number of queries: the length of the sequence that is asking (the decoder's, in cross-attention)",
    "len_k": "number of keys (= number of values): the length of the sequence being looked at",
    "vocab_size": "number of distinct token ids",
    "d_model": "width of every token vector between layers (512 in the paper)",
    "num_heads": "number of attention heads, h (8 in the paper)",
    "d_k": "width of each query and key vector in one head: d_model / num_heads (64 in the paper), not a sentence length",
    "d_v": "width of each value vector in one head (= d_k in the paper)",
    "d_head": "the per-head width, d_model / num_heads (= d_k = d_v)",
    "d_ff": "inner width of the position-wise feed-forward network (2048 = 4 * d_model in the paper)",
    "pad_id": "the id of the <pad> token (0 in this course)",
    "len_src": "length of the (padded) source sequence: the encoder's input and output, and the keys of cross-attention",
    "len_tgt": "length of the (padded) target sequence: the decoder's input, and the queries of cross-attention",
    "memory": "the encoder's output (batch, len_src, d_model): the keys and values of every decoder layer's cross-attention",
    "num_layers": "number of identical (but independently weighted) layers in the encoder and in the decoder, N (6 in the paper)",
    "eps": "the small number LayerNorm (RMSNorm) adds to the variance (the mean of the squares) inside the square root (1e-5, as in nn.LayerNorm)",
    "src_vocab_size": "number of distinct token ids of the source language (the rows of src_embedding)",
    "tgt_vocab_size": "number of distinct token ids of the target language (the rows of tgt_embedding, the outputs of the output layer)",
    "logits": "the output layer's unnormalised scores (batch, len_tgt, tgt_vocab_size); a softmax over the last axis gives next-token probabilities",
    "block_size": "lesson 11: the context length, the number of tokens in one training window; lesson 12: the number of keys in one tile of online softmax and tiled attention",
    "num_kv_heads": "number of key/value heads in grouped-query attention; num_heads is a multiple of it (1: multi-query attention)",
    "max_len": "the number of positions a KV cache holds",
    "window": "how many keys (the query's own position included) a query may see in sliding-window attention",
    "base": "the base of RoPE's frequencies, theta_i = base ** (-2i / d_head) (10000)",
    "temperature": "the number sampling divides the logits by before the softmax (0: greedy, the argmax)",
    "top_k": "sampling keeps only the top_k most probable tokens",
    "top_p": "sampling keeps the fewest most probable tokens whose probabilities sum to at least top_p (nucleus sampling)",
}


def show() -> None:
    """Print the glossary as an aligned table."""
    width = max(map(len, GLOSSARY))
    for symbol, meaning in GLOSSARY.items():
        print(f"{symbol:<{width}}  {meaning}")
