"""Sweep points: decay fits, budget, cache, one tiny end-to-end point."""

import numpy as np
import pytest
import torch

from seqmi.models.lm import RNNLM
from seqmi.sweep import Budget, OutOfTime, cached_point, decay_fits, point_key, run_point
from seqmi.train import Sequences, TrainConfig


def test_decay_fits_tell_exponential_from_power_law():
    tau = np.arange(1, 201)
    expo = decay_fits(0.1 * np.exp(-tau / 30.0), 1e-3)
    assert expo["xi"] == pytest.approx(30.0, rel=1e-9)
    assert expo["exp_rss"] < expo["pow_rss"]
    power = decay_fits(0.1 * tau ** -0.4, 1e-3)
    assert power["gamma"] == pytest.approx(0.4, rel=1e-9)
    assert power["pow_rss"] < power["exp_rss"]


def test_decay_fits_without_enough_points_are_nan():
    out = decay_fits(np.full(10, 1e-5), 1e-3)
    assert out["n_fit_points"] == 0 and np.isnan(out["xi"]) and np.isnan(out["gamma"])


def test_budget():
    assert not Budget(0).spent()
    spent = Budget(1e-9)
    assert spent.spent()
    with pytest.raises(OutOfTime):
        spent.check({})


def test_cached_point_computes_once(tmp_path):
    calls = []

    def compute(ckpt):
        calls.append(ckpt)
        return {"x": 1.5}

    assert cached_point(tmp_path, "a", compute) == {"x": 1.5}
    assert cached_point(tmp_path, "a", compute) == {"x": 1.5}
    assert calls == [str(tmp_path / "a")]
    assert cached_point("", "a", compute) == {"x": 1.5} and calls[-1] is None


def test_run_point_end_to_end():
    rng = np.random.default_rng(0)
    x = (np.cumsum(rng.random((80, 32)) < 0.1, axis=1) % 2).astype(np.int64)
    rec = run_point(lambda: RNNLM(2, 4, 1, "lstm", embed_dim=2), Sequences(x[:60], x[60:]),
                    TrainConfig(lr=0.02, batch_size=20, max_epochs=3, restarts=1), n_samples=50,
                    sample_length=32, max_lag=20, threshold=1e-3, device=torch.device("cpu"), seed=0,
                    head_tokens=5)
    assert len(rec["mi"]) == 20 and len(rec["head"]) == 5
    assert rec["state_floats"] == 8 and rec["epochs"] == [3]
    assert {"xi", "xi_ci", "gamma", "val_loss", "tokens_per_s", "train_s", "sample_s"} <= set(rec)


def test_point_key_changes_with_the_spec():
    a = point_key("lstm_w8", {"lr": 0.005, "n": 100})
    assert a.startswith("lstm_w8_")
    assert a == point_key("lstm_w8", {"n": 100, "lr": 0.005})
    assert a != point_key("lstm_w8", {"lr": 0.001, "n": 100})
