"""The chapters' sweep points: deterministic records, replicates pooled correctly."""

from __future__ import annotations

import numpy as np
import pytest

from seqmi.experiments.ch04_bipartite_mi_l2m import GaussianSettings, gaussian_point, pool_replicates

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
