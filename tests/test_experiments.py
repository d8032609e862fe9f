"""The chapters' sweep points: deterministic records, replicates pooled correctly."""

from __future__ import annotations

import json

import numpy as np
import pytest

from seqmi.experiments import ch06_attention_gradients as ch06
from seqmi.experiments.ch04_bipartite_mi_l2m import GaussianSettings, gaussian_point, pool_replicates
from seqmi.experiments.ch06_attention_gradients import (GridSettings, ProfileSettings, TransferSettings, grid_point,
                                                        profile_point, transfer_point)
from seqmi.models.attentive_rnn import TaskModel

TINY = GaussianSettings(token_dim=2, layers=1, heads=2, max_len=16, d_state=2, steps=3, batch=2, warmup=1,
                        lr=1e-3, n_eval=2, seed=0)


@pytest.mark.parametrize("backbone", ["transformer", "mamba"])
def test_gaussian_point_is_deterministic_and_complete(backbone):
    a = gaussian_point((backbone, 4, 16, 0), None, TINY)
    b = gaussian_point((backbone, 4, 16, 0), None, TINY)
    assert a == b
    assert len(a["position_kl"]) == 16 and np.isfinite(a["average_kl"]) and a["average_kl"] > 0
    assert a["bipartite_mi"] > 0 and a["n_params"] > 0


def test_replicates_differ_and_pool_to_their_mean():
    recs = [gaussian_point(("transformer", 4, 16, r), None, TINY) for r in range(2)]
    assert recs[0]["position_kl"] != recs[1]["position_kl"]
    pooled = pool_replicates(recs)
    np.testing.assert_allclose(pooled["position_kl"], np.mean([r["position_kl"] for r in recs], axis=0))
    assert pooled["average_kl_replicates"] == [r["average_kl"] for r in recs]
    with pytest.raises(ValueError, match="at least one record"):
        pool_replicates([])


def test_late_early_ratio():
    from seqmi.experiments.ch04_bipartite_mi_l2m import late_early_ratio

    assert late_early_ratio(np.ones(16)) == 1.0
    assert late_early_ratio(np.r_[np.ones(4), np.ones(4), np.ones(4), 3 * np.ones(4)]) == 3.0
    with pytest.raises(ValueError, match="at least 4 positions"):
        late_early_ratio([1.0, 2.0])


# ---------------------------------------------------------------- chapter 06

GRID = GridSettings(hidden=4, steps=2, batch=2, lr=0.01, seed=0)
TRANSFER = TransferSettings(hidden=4, copy_length=2, copy_steps=3, eval_every=1, batch=2, lr=0.01,
                            transfer_lengths=(3, 5), transfer_batch=2, long_length=5, long_steps=2, long_lr=1e-3,
                            seed=0)
PROFILE = ProfileSettings(hidden=4, length=20, steps=2, batch=2, lr=0.01, seed=0, n_held_out=2)


def _untimed(record):
    """``record`` without its wall times, the one part that differs between identical runs."""
    if not isinstance(record, dict):
        return record
    return {k: _untimed(v) for k, v in record.items() if not k.startswith("seconds")}


@pytest.mark.parametrize("kind", TaskModel.KINDS)
def test_grid_point_is_deterministic_and_json_ready(kind):
    a = grid_point(("denoise", 10, kind, 0), None, GRID)
    assert _untimed(a) == _untimed(grid_point(("denoise", 10, kind, 0), None, GRID))
    assert json.loads(json.dumps(a)) == a
    assert len(a["step_losses"]) == 2 and 0 <= a["accuracy"] <= 1 and a["seconds_per_step"] > 0


def test_grid_replicates_differ_and_pool_to_their_mean():
    recs = [grid_point(("copy", 10, "rnn", r), None, GRID) for r in range(2)]
    assert recs[0]["step_losses"] != recs[1]["step_losses"]
    pooled = ch06.pool_replicates(recs)
    np.testing.assert_allclose(pooled["step_losses"], np.mean([r["step_losses"] for r in recs], axis=0))
    assert pooled["accuracy_replicates"] == [r["accuracy"] for r in recs]
    assert pooled["accuracy"] == pytest.approx(np.mean(pooled["accuracy_replicates"]))
    with pytest.raises(ValueError, match="at least one record"):
        ch06.pool_replicates([])


def test_transfer_point_is_deterministic_and_fine_tunes_relrnn_only():
    rel = transfer_point("relrnn", None, TRANSFER)
    assert _untimed(rel) == _untimed(transfer_point("relrnn", None, TRANSFER))
    assert json.loads(json.dumps(rel)) == rel
    assert rel["updates"] == len(rel["step_losses"]) == 3 and rel["eval_steps"] == [1, 2, 3]
    assert list(rel["transfer"]) == list(rel["symbol_attention_mass"]) == ["3", "5"]
    assert len(rel["long_run"]["eval_accuracy"]) == 2
    lstm = transfer_point("lstm", None, TRANSFER)
    assert lstm["symbol_attention_mass"] is None and lstm["long_run"] is None


def test_profile_point_is_deterministic():
    a = profile_point((3, 2), None, PROFILE)
    assert a == profile_point((3, 2), None, PROFILE)
    assert np.all(np.isfinite(a["profile"])) and a["spread"] > 0
    assert a != profile_point((3, 4), None, PROFILE)
