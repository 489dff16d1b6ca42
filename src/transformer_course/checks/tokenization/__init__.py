"""Checks for lesson 01: tokenization, vocabularies, padding and byte-pair encoding.

What each check requires is what the concept needs; incidental choices are
accepted in every reasonable form:

* sequences of tokens or ids may come back as a list or a tuple (ids also as a
  1-D integer numpy array or torch tensor); ids may be Python or numpy integers;
* ``build_vocab``, ``get_pair_counts`` and ``train_bpe`` may return any dict
  (``Counter``, ``defaultdict``, ``OrderedDict``, ...);
* ``pad_batch`` may return a numpy array or a torch tensor of any integer dtype
  that holds the ids (an 8-bit one cannot hold an id above 255) (an empty batch,
  with no values at all, of any dtype);
* ``train_bpe`` may also stop as soon as no pair occurs more than once (as
  Sennrich et al.'s subword-nmt does with its default ``min_frequency=2``).

What is taught, and required with its own message: the special tokens and their
ids, the vocabulary's order (most frequent first, ties alphabetical), ``<unk>``
for unknown tokens, right-padding, overlapping pair counts listed in the order of
first occurrence, non-overlapping merges, first-occurrence tie-breaking, new ids
256 + i, merges applied by rank, and decoding the joined bytes once.

One module per exercise or small group (``words``: tokenize; ``vocab``: build_vocab;
``lookup``: encode and decode; ``padding``: pad_batch; ``pairs``: get_pair_counts and
merge_pair; ``bpe_training``: train_bpe; ``bpe_codec``: bpe_encode and bpe_decode; the
questions in ``quizzes``), the helpers they share in ``common``, and the registry's
``LESSON`` and ``EXERCISES`` in ``exercises``. This face only re-exports: the check
functions and the questions.
"""

from .bpe_codec import check_bpe_decode, check_bpe_encode
from .bpe_training import check_train_bpe
from .exercises import EXERCISES as EXERCISES
from .exercises import LESSON as LESSON
from .lookup import check_decode, check_encode
from .padding import check_pad_batch
from .pairs import check_get_pair_counts, check_merge_pair
from .quizzes import QUIZ_MERGE_ORDER as QUIZ_MERGE_ORDER
from .quizzes import QUIZ_UNK as QUIZ_UNK
from .quizzes import check_quiz_merge_order, check_quiz_unk
from .vocab import check_build_vocab
from .words import check_tokenize

__all__ = [
    "check_bpe_decode",
    "check_bpe_encode",
    "check_build_vocab",
    "check_decode",
    "check_encode",
    "check_get_pair_counts",
    "check_merge_pair",
    "check_pad_batch",
    "check_quiz_merge_order",
    "check_quiz_unk",
    "check_tokenize",
    "check_train_bpe",
]
