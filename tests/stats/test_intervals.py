"""Intervals over independent units (seqmi.stats.intervals): the values scipy gives for the same
statistic, coverage on simulated data, contrasts and slopes of group means, ratios, the jackknife."""

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from seqmi import stats

A, B = [1.0, 2.0, 4.0, 3.5], [0.5, 0.7, 1.9, 2.0, 0.1]


def test_normal_ci_is_the_mean_plus_minus_z_standard_errors():
    assert stats.Z95 == scipy_stats.norm.ppf(0.975)
    assert stats.normal_ci(1.0, 0.5) == [1.0 - 0.5 * stats.Z95, 1.0 + 0.5 * stats.Z95]
    assert stats.normal_ci(1.0, 0.5, z=1.0) == [0.5, 1.5]


def test_t_quantile_is_students_and_normal_at_infinite_dof():
    assert stats.t_quantile(0.90, 9) == pytest.approx(scipy_stats.t.ppf(0.95, 9), rel=1e-12)
    assert stats.t_quantile(0.95, math.inf) == pytest.approx(stats.Z95, rel=1e-12)
    with pytest.raises(ValueError, match="0 < level < 1"):
        stats.t_quantile(1.5, 9)
    with pytest.raises(ValueError, match="dof > 0"):
        stats.t_quantile(0.95, 0)


def test_mean_and_welch_intervals_are_scipys():
    low, high = scipy_stats.t.interval(0.95, len(A) - 1, loc=np.mean(A), scale=scipy_stats.sem(A))
    assert stats.mean_ci(A) == pytest.approx([low, high], rel=1e-12)
    welch = scipy_stats.ttest_ind(A, B, equal_var=False).confidence_interval(0.90)
    assert stats.mean_diff_ci(A, B, level=0.90) == pytest.approx([welch.low, welch.high], rel=1e-12)
    # one seed has no spread to measure
    assert stats.mean_ci([1.0]) == stats.mean_diff_ci([1.0], B) == [-math.inf, math.inf]


@pytest.mark.parametrize("successes, trials", [(0, 20), (7, 20), (20, 20), (1990, 2000)])
def test_binomial_ci_is_the_wilson_interval_of_scipys_binomtest(successes, trials):
    wilson = scipy_stats.binomtest(successes, trials).proportion_ci(0.95, method="wilson")
    assert stats.binomial_ci(successes, trials) == pytest.approx([wilson.low, wilson.high], abs=1e-12)


def test_bootstrap_ci_is_scipys_percentile_bootstrap_on_a_fixed_seed():
    data = np.random.default_rng(3).normal(size=25)
    res = scipy_stats.bootstrap((data,), np.mean, n_resamples=2000, method="percentile",
                                random_state=np.random.default_rng(7))
    assert stats.bootstrap_ci(data, seed=7) == [res.confidence_interval.low, res.confidence_interval.high]
    assert stats.bootstrap_ci(data, seed=7) == stats.bootstrap_ci(data, seed=7)
    # one sample, or all equal: the point value
    assert stats.bootstrap_ci([2.0]) == stats.bootstrap_ci([2.0, 2.0, 2.0]) == [2.0, 2.0]


def test_bootstrap_ci_covers_the_mean_about_at_its_level():
    rng = np.random.default_rng(4)
    hits = sum(lo < 0.0 < hi for lo, hi in (stats.bootstrap_ci(rng.normal(size=30), n_resamples=500, seed=i)
                                            for i in range(400)))
    assert 0.88 < hits / 400 < 0.98  # the percentile interval undercovers a little at 30 samples


def test_a_contrast_of_one_or_two_groups_is_the_t_or_welch_interval():
    a, b = [1.0, 2.0, 4.0], [0.5, 0.7, 1.9, 2.0]
    assert stats.contrast_ci([a], [1.0]) == pytest.approx(stats.mean_ci(a), rel=1e-12)
    assert stats.contrast_ci([a, b], [1.0, -1.0]) == pytest.approx(stats.mean_diff_ci(a, b), rel=1e-12)
    assert stats.contrast_ci([a, b], [1.0, -1.0], level=0.9)[1] < stats.mean_diff_ci(a, b)[1]
    assert stats.contrast_ci([[1.0], b], [1.0, -1.0]) == [-math.inf, math.inf]
    assert all(math.isnan(v) for v in stats.contrast_ci([[1.0, math.inf], b], [1.0, -1.0]))
    assert stats.contrast_ci([[2.0, 2.0], [1.0, 1.0]], [1.0, -1.0]) == [1.0, 1.0]
    with pytest.raises(ValueError, match="one weight per group"):
        stats.contrast_ci([a, b], [1.0])


def test_slope_over_group_means_covers_the_true_slope_at_its_level():
    rng = np.random.default_rng(0)
    x = np.log([2.0, 8.0, 32.0])
    hits = 0
    for _ in range(2000):
        groups = [3.0 * xi + rng.normal(0.0, 1.0 + xi, 3) for xi in x]  # unequal spreads, three seeds each
        slope, (lo, hi) = stats.slope_ci(x, groups)
        hits += lo < 3.0 < hi
    assert 0.93 < hits / 2000 < 0.99  # Welch-Satterthwaite on three units per group: about 95%
    slope, _ = stats.slope_ci(x, [[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
    assert slope == pytest.approx(2.0 / (x[2] - x[0]))
    with pytest.raises(ValueError, match="at least two distinct"):
        stats.slope_ci([1.0, 1.0], [[1.0, 2.0], [2.0, 3.0]])


def test_log_ratio_ci_never_pairs_groups_and_widens_with_few_seeds():
    est, ci = stats.log_ratio_ci([2.0, 2.2, 1.8], [1.0, 1.1, 0.9])
    assert est == pytest.approx(math.log(2)) and 0 < ci[0] < est < ci[1]
    # the same values in another order give the same interval: the seeds are not paired
    assert stats.log_ratio_ci([1.8, 2.0, 2.2], [1.1, 0.9, 1.0])[1] == pytest.approx(ci)
    d_est, d_ci = stats.log_ratio_ci([2.0, 2.2, 1.8], [1.0, 1.1, 0.9], [1.0, 1.1, 0.9], [1.0, 1.1, 0.9])
    assert d_est == pytest.approx(math.log(2)) and d_ci[1] - d_ci[0] > ci[1] - ci[0]
    assert stats.log_ratio_ci([2.0], [1.0])[1] == [-math.inf, math.inf]
    with pytest.raises(ValueError):
        stats.log_ratio_ci([2.0, -1.0], [1.0, 1.0])


def test_log_ratio_ci_covers_the_log_ratio_of_the_means():
    rng = np.random.default_rng(5)
    hits = sum(lo < math.log(2.0) < hi for _, (lo, hi) in (
        stats.log_ratio_ci(rng.normal(2.0, 0.2, 6), rng.normal(1.0, 0.2, 4)) for _ in range(2000)))
    assert 0.93 < hits / 2000 < 0.97


def test_the_geometric_ratio_is_welchs_interval_of_the_logs_exponentiated():
    est, (lo, hi) = stats.geometric_ratio_ci(A, B, level=0.90)
    welch = scipy_stats.ttest_ind(np.log(A), np.log(B), equal_var=False).confidence_interval(0.90)
    assert [lo, hi] == pytest.approx([math.expm1(welch.low), math.expm1(welch.high)], rel=1e-12)
    assert est == pytest.approx(scipy_stats.gmean(A) / scipy_stats.gmean(B) - 1, rel=1e-12)
    # a value that is not positive has no logarithm
    est, ci = stats.geometric_ratio_ci([1.0, 0.0], B)
    assert math.isnan(est) and all(math.isnan(v) for v in ci)


def test_a_ratio_to_an_exact_reference_is_the_t_interval_of_the_log_mean():
    x = np.array(A)
    est, (lo, hi) = stats.ratio_to_reference_ci(x, 2.0, 0.0)
    half = scipy_stats.t.ppf(0.975, x.size - 1) * x.std(ddof=1) / (math.sqrt(x.size) * x.mean())
    assert est == pytest.approx(x.mean() / 2.0 - 1, rel=1e-12)
    assert [lo, hi] == pytest.approx([math.expm1(math.log(x.mean() / 2.0) + s * half) for s in (-1, 1)], rel=1e-12)
    assert all(math.isnan(v) for v in stats.ratio_to_reference_ci([1.0], 2.0, 0.1)[1])


def test_a_ratio_to_a_measured_reference_covers_at_its_level():
    rng = np.random.default_rng(6)
    hits = 0
    for _ in range(2000):
        reference = 1.0 + rng.normal(0.0, 0.03)  # measured, with its standard error
        _, (lo, hi) = stats.ratio_to_reference_ci(rng.normal(1.2, 0.06, 8), reference, 0.03, level=0.90)
        hits += lo < 0.2 < hi
    assert 0.87 < hits / 2000 < 0.93


def test_the_jackknife_of_a_mean_is_the_t_interval_of_the_mean():
    x = np.array(A + B)
    leave_one_out = (x.sum() - x) / (x.size - 1)
    assert stats.jackknife_ci(x.mean(), leave_one_out) == pytest.approx(stats.mean_ci(x), rel=1e-12)
    assert stats.jackknife_ci(1.0, [2.0, 2.0, 2.0]) == [1.0, 1.0]  # centred on the estimate
    with pytest.raises(ValueError, match="at least 2 replicates"):
        stats.jackknife_ci(1.0, [1.0])
    with pytest.raises(ValueError, match="at least 2 replicates"):
        stats.jackknife_ci(1.0, np.ones((3, 2)))
