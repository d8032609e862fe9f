"""SSMs trained on Proposition A.8's alternating set: the bound bites, the construction fits."""

import numpy as np
import pytest
import torch

from seqmi.theory.memorisation import _outputs, _pad, min_sign_errors, train_memorising_ssms
from seqmi.theory.ngram_ssm import alternating_task, random_line_ssm


@pytest.fixture(scope="module")
def task():
    return alternating_task(6, 3, 2, seed=0)


def test_min_sign_errors_is_the_piece_count():
    assert [min_sign_errors(12, m) for m in (1, 2, 8, 9, 10, 14)] == [5, 4, 1, 1, 0, 0]
    # random SSMs along the line never beat it
    x, y = alternating_task(9, 3, 2, seed=1)
    rng = np.random.default_rng(0)
    for m in (1, 2, 4):
        for _ in range(100):
            f = random_line_ssm(x, m, rng).outputs(x)[:, -1, 0]
            assert (f * y[:, 0] <= 0).sum() >= min_sign_errors(9, m)


def test_one_neuron_cannot_fit_six_alternating_points(task):
    x, y = task
    (fit,) = train_memorising_ssms(x, y, [1], n_restarts=3, steps=300, seed=0)
    assert (fit.max_error >= 1).all()
    assert (fit.sign_errors >= min_sign_errors(6, 1)).all() and min_sign_errors(6, 1) == 2
    assert all(len(fit.wrong_points(r)) == fit.sign_errors[r] for r in range(3))


def test_the_construction_fits_and_adam_keeps_it(task):
    x, y = task
    fits = train_memorising_ssms(x, y, [6, 8], n_restarts=2, steps=100, seed=0, from_construction=True)
    for fit in fits:
        assert fit.from_construction and fit.models[0].hidden_size == fit.hidden_size
        assert fit.max_error[0] < 1e-6 and fit.sign_errors[0] == 0 and fit.wrong_points(0) == []
    (small,) = train_memorising_ssms(x, y, [5], n_restarts=1, steps=0, seed=0, from_construction=True)
    assert not small.from_construction


def test_deterministic_given_the_seed(task):
    x, y = task
    a, b, c = (train_memorising_ssms(x, y, [3], n_restarts=2, steps=50, seed=s)[0] for s in (7, 7, 8))
    np.testing.assert_array_equal(a.outputs, b.outputs)
    assert not np.allclose(a.outputs, c.outputs)


def test_padding_neurons_stay_zero(task):
    x, y = task
    (alone,) = train_memorising_ssms(x, y, [2], n_restarts=2, steps=100, seed=3)
    together = train_memorising_ssms(x, y, [2, 7], n_restarts=2, steps=100, seed=3)[0]
    np.testing.assert_allclose(together.outputs, alone.outputs, rtol=1e-9, atol=1e-12)


def test_torch_outputs_are_the_ssm_outputs(task):
    x, _ = task
    rng = np.random.default_rng(0)
    models = [random_line_ssm(x, m, rng) for m in (1, 3, 4)]
    f = _outputs(_pad(models, 4), torch.tensor(x)).numpy()
    for k, w in enumerate(models):
        np.testing.assert_allclose(f[k], w.outputs(x)[:, -1, 0], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("change,message", [
    (dict(y=np.ones((5, 1))), "y must have shape"),
    (dict(y=np.zeros((6, 1))), "non-zero"),
    (dict(hidden_sizes=[0]), "hidden_sizes"),
    (dict(n_restarts=0), "n_restarts"),
    (dict(steps=-1), "steps"),
    (dict(lr=0.0), "lr"),
])
def test_rejects_bad_arguments(task, change, message):
    x, y = task
    args = dict(y=y, hidden_sizes=[2], n_restarts=1, steps=1, lr=0.01) | change
    with pytest.raises(ValueError, match=message):
        train_memorising_ssms(x, args.pop("y"), args.pop("hidden_sizes"), seed=0, **args)
