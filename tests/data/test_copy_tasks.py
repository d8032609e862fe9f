import numpy as np
import pytest

from seqmi.data.copy_tasks import copy_task, denoise_task


def test_copy_task_layout():
    tok, tgt = copy_task(5, 30, seed=1)
    assert tok.shape == tgt.shape == (5, 50)
    assert ((tok[:, :10] >= 1) & (tok[:, :10] <= 8)).all()
    assert (tok[:, 39] == 9).all() and (tok[:, 10:39] == 0).all() and (tok[:, 40:] == 0).all()
    np.testing.assert_array_equal(tgt[:, -10:], tok[:, :10])
    assert (tgt[:, :-10] == 0).all()


def test_denoise_task_layout():
    tok, tgt = denoise_task(6, 40, seed=2)
    assert tok.shape == (6, 51)
    assert (tok[:, 40] == 9).all()
    for row, target in zip(tok, tgt):
        data = row[:40]
        assert (data > 0).sum() == 10
        np.testing.assert_array_equal(data[data > 0], target[-10:])
    assert (tgt[:, :-10] == 0).all()


def test_same_seed_same_data_and_validation():
    np.testing.assert_array_equal(denoise_task(3, 20, 5)[0], denoise_task(3, 20, 5)[0])
    with pytest.raises(ValueError):
        denoise_task(3, 5, 0)
    with pytest.raises(ValueError):
        copy_task(0, 5, 0)
