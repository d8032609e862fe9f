"""The power of the book's interval rules: Wilson intervals of proportions and Student-t or
Welch intervals over seeds, against simulation and known values."""

import numpy as np
import pytest

from seqmi import stats


@pytest.mark.parametrize("trials", [200, 2000, 5000])
def test_wilson_power_at_the_threshold_is_the_size_of_a_one_sided_test(trials):
    assert stats.wilson_power(0.99, trials, 0.99) <= 0.025 + 1e-12


def test_wilson_power_is_the_rate_at_which_the_interval_clears_the_threshold():
    rng = np.random.default_rng(0)
    counts = rng.binomial(2000, 0.995, 20_000)
    simulated = np.mean([stats.binomial_ci(k, 2000)[0] > 0.99 for k in counts])
    assert stats.wilson_power(0.995, 2000, 0.99) == pytest.approx(simulated, abs=0.01)


def test_wilson_power_below_a_threshold_by_symmetry():
    # the interval wholly below 0.2 when the true rate is 1/8: the mirror image of the errors' interval above 0.8
    rng = np.random.default_rng(1)
    counts = rng.binomial(500, 0.125, 20_000)
    simulated = np.mean([stats.binomial_ci(k, 500)[1] < 0.2 for k in counts])
    assert stats.wilson_power(1 - 0.125, 500, 1 - 0.2) == pytest.approx(simulated, abs=0.01)


def test_wilson_power_grows_with_the_effect_and_the_trials():
    assert stats.wilson_power(0.999, 2000, 0.99) > stats.wilson_power(0.995, 2000, 0.99)
    assert stats.wilson_power(0.995, 5000, 0.99) > stats.wilson_power(0.995, 2000, 0.99)
    # no count clears a threshold of 1
    assert stats.wilson_power(1.0, 100, 1.0) == 0.0


@pytest.mark.parametrize("p, trials", [(1.5, 10), (0.5, 0)])
def test_wilson_power_rejects_a_bad_rate_or_count(p, trials):
    with pytest.raises(ValueError, match="wilson_power needs"):
        stats.wilson_power(p, trials, 0.5)


@pytest.mark.parametrize("sds, n", [([1.0], 5), ([0.2, 0.05], 7)])
def test_t_power_is_the_rate_at_which_the_interval_clears_zero(sds, n):
    rng = np.random.default_rng(2)
    effect = 0.8 * sds[0]
    hits = 0
    for _ in range(4000):
        groups = [rng.normal(effect if i == 0 else 0.0, sd, n) for i, sd in enumerate(sds)]
        ci = stats.mean_ci(groups[0]) if len(groups) == 1 else stats.mean_diff_ci(*groups)
        hits += ci[0] > 0
    assert stats.t_power(effect, sds, n) == pytest.approx(hits / 4000, abs=0.03)


def test_t_power_at_no_effect_is_the_size():
    assert stats.t_power(0.0, [1.0], 8) == pytest.approx(0.025)
    assert stats.t_power(0.0, [1.0, 2.0], 8) == pytest.approx(0.025)


@pytest.mark.parametrize("sds, n", [([], 5), ([1.0, 1.0, 1.0], 5), ([0.0], 5), ([1.0], 1)])
def test_t_power_rejects_what_is_not_one_or_two_groups_of_seeds(sds, n):
    with pytest.raises(ValueError, match="t_power needs"):
        stats.t_power(1.0, sds, n)
