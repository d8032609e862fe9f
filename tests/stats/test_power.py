"""Sample sizes and powers (seqmi.stats.power): the power of Wilson intervals of proportions and of
Student-t or Welch intervals over seeds against simulation and known values, and the sizes that
would resolve an effect."""

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


def test_needed_for_interval_scales_the_half_width_as_one_over_root_n():
    # a half-width of 0.5 at 10 seeds falls below an effect of 0.25 at 4 times as many
    assert stats.needed_for_interval(10, 0.5, 0.25) == 40
    assert stats.needed_for_interval(10, 0.1, 0.25) == 11  # already resolved: one more
    assert stats.needed_for_interval(10, float("inf"), 0.25) == 11
    assert stats.needed_for_interval(10, 0.5, 0.0) == 1000  # no effect: no affordable size


def test_needed_samples_resolves_the_effect_at_its_level():
    n = stats.needed_samples(10, 0.2, 0.1)
    assert stats.Z95 * 0.2 * (10 / n) ** 0.5 <= 0.1 < stats.Z95 * 0.2 * (10 / (n - 1)) ** 0.5
    assert stats.needed_samples(10, 0.0, 0.1) == stats.needed_samples(10, 0.2, -0.1) == 11


def test_seeds_to_decide_is_the_fewest_seeds_whose_interval_leaves_the_threshold_out():
    from scipy import stats as scipy_stats

    pilot = np.array([0.3, 1.1, 0.2, 0.9])
    n = stats.seeds_to_decide(pilot)
    half = [scipy_stats.t.ppf(0.975, m - 1) * pilot.std(ddof=1) / m**0.5 for m in (n, n - 1)]
    assert half[0] < pilot.mean() <= half[1]
    assert stats.seeds_to_decide([1.0, 1.0]) == 2 and stats.seeds_to_decide([-1.0, 1.0]) is None
    with pytest.raises(ValueError, match="one or two groups of at least two values"):
        stats.seeds_to_decide([1.0])
