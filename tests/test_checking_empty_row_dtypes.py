"""checking.empty_row_dtypes: a float batch traced to an empty row, first or anywhere."""

import numpy as np
import torch

from transformer_course.checking.empty_row_dtypes import empty_row_dtype, no_id_dtype


def _first_rows_dtype(rows):  # torch.tensor([]) is float32; pad_sequence keeps the first's
    tensors = [torch.tensor(r) for r in rows]
    return torch.nn.utils.rnn.pad_sequence(tensors, batch_first=True)


def _promoted(rows):  # np.array([]) is float64; vstack promotes over every row
    width = max(len(r) for r in rows)
    return np.vstack([np.concatenate([np.array(r), np.zeros(width - len(r), int)]) for r in rows])


def test_first_row_dtype_named_with_the_probes():
    message = empty_row_dtype(_first_rows_dtype, torch.float32)
    assert "exactly when its first sequence is empty" in message
    assert "pad_batch([[5, 6], [], [7]], 0)" in message and "torch.tensor([]) is float32" in message


def test_promotion_named_when_any_empty_row_makes_it_float():
    message = empty_row_dtype(_promoted, np.dtype("float64"))
    assert "whenever one of its sequences is empty" in message and "promotes" in message
    assert "np.array([]) is float64" in message


def test_silent_when_float_whatever_the_rows_or_a_probe_fails():
    assert empty_row_dtype(lambda rows: np.zeros((len(rows), 2)), np.dtype("float64")) == ""

    def raises(rows):
        raise ValueError("no")

    assert empty_row_dtype(raises, np.dtype("float64")) == ""


def _inferred(rows):  # np.array of padded lists, no dtype: float64 with no id, 1-D with no row
    width = max(map(len, rows), default=0)
    return np.array([list(r) + [0] * (width - len(r)) for r in rows])


def test_no_id_batch_named_when_its_dtype_is_inferred_from_the_values():
    message = no_id_dtype(_inferred)
    assert "float exactly when it holds no id at all" in message
    assert "pad_batch([], 0) is float64" in message and "1-D, shape (0,)" in message


def test_no_id_silent_when_integer_or_float_whatever_it_holds():
    assert no_id_dtype(lambda rows: np.zeros((len(rows), 2), dtype=np.int64)) == ""
    assert no_id_dtype(lambda rows: np.zeros((len(rows), 2))) == ""
