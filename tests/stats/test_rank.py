"""Rank statistics (seqmi.stats.rank): the one Spearman correlation against scipy's, its permutation
test, and Fisher's interval, power and sample size against simulation."""

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from seqmi import stats


def _bivariate(rng: np.random.Generator, rho_s: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` draws of a standard bivariate normal whose Spearman correlation is ``rho_s``."""
    r = 2 * math.sin(math.pi * rho_s / 6)  # Spearman's ρ of a bivariate normal is (6/π) asin(r/2)
    x, e = rng.standard_normal((2, n))
    return x, r * x + math.sqrt(1 - r**2) * e


@pytest.mark.parametrize("ties", [False, True])
def test_spearman_is_scipys_spearmanr(ties):
    rng = np.random.default_rng(0)
    for n in (3, 7, 40):
        x, y = rng.normal(size=(2, n))
        if ties:
            x, y = np.round(2 * x), np.round(2 * y)
        assert stats.spearman(x, y) == pytest.approx(scipy_stats.spearmanr(x, y).statistic, rel=1e-12, abs=1e-15)


def test_spearman_of_a_perfect_ranking_is_exactly_one_and_of_a_constant_nan():
    assert stats.spearman([1, 2, 3, 4], [10, 20, 30, 45]) == 1.0
    assert stats.spearman([1, 2, 3, 4], [4, 3, 2, 1]) == -1.0
    assert math.isnan(stats.spearman([1, 2, 3], [5, 5, 5])) and math.isnan(stats.spearman([1.0], [2.0]))


@pytest.mark.parametrize("x, y", [([1, 2, 3], [1, 2]), ([], []), ([[1, 2], [3, 4]], [[1, 2], [3, 4]])])
def test_spearman_needs_two_sequences_of_one_length(x, y):
    with pytest.raises(ValueError, match="spearman needs two equal-length sequences"):
        stats.spearman(x, y)


def test_the_permutation_test_of_spearman_is_exact_for_few_pairs():
    rho, p_less, p_greater = stats.spearman_permutation_test([1, 2, 3, 4], [4, 3, 2, 1])
    assert rho == -1.0 and p_less == pytest.approx(1 / 24) and p_greater == 1.0
    # ties take average ranks
    rho, _, _ = stats.spearman_permutation_test([1, 2, 2, 3], [1, 2, 3, 4])
    assert rho == pytest.approx(0.9486832980505138)
    assert stats.spearman_permutation_test([1, 2, 3], [2, 2, 2]) == (pytest.approx(math.nan, nan_ok=True), 1.0, 1.0)
    with pytest.raises(ValueError, match=f"at least {stats.MIN_RANK_PAIRS}"):
        stats.spearman_permutation_test([1, 2], [2, 1])


def test_the_permutation_test_reports_the_one_spearman_correlation():
    x, y = _bivariate(np.random.default_rng(2), 0.5, 12)
    assert stats.spearman_permutation_test(x, y)[0] == stats.spearman(x, y)


def test_the_permutation_test_holds_its_level_without_association():
    rng = np.random.default_rng(1)
    rejections = sum(stats.spearman_permutation_test(rng.normal(size=18), rng.normal(size=18), 500)[1] <= 0.05
                     for _ in range(400))
    assert rejections / 400 <= 0.08


def test_fishers_interval_is_the_tanh_of_a_normal_interval_of_atanh():
    lo, hi = stats.spearman_ci(0.4, 23)
    half = scipy_stats.norm.ppf(0.975) * math.sqrt(1.06 / 20)
    assert [lo, hi] == pytest.approx([math.tanh(math.atanh(0.4) - half), math.tanh(math.atanh(0.4) + half)])
    assert stats.spearman_ci(0.4, 23, se_factor=1.2)[0] < lo  # a larger standard error, a wider interval
    assert stats.spearman_ci(0.4, 23, level=0.90)[0] > lo
    # no interval from three pairs or from no correlation; a perfect ranking keeps a finite width
    assert stats.spearman_ci(0.4, 3) == stats.spearman_ci(math.nan, 30) == [-1.0, 1.0]
    assert 0.9 < stats.spearman_ci(1.0, 30)[0] < 1.0


def test_fishers_interval_covers_a_bivariate_normals_spearman_correlation():
    rng = np.random.default_rng(3)
    hits = 0
    for _ in range(2000):
        lo, hi = stats.spearman_ci(stats.spearman(*_bivariate(rng, 0.6, 30)), 30)
        hits += lo < 0.6 < hi
    assert 0.92 < hits / 2000 < 0.97  # about 95%: Fisher's z is an approximation at 30 pairs


def test_spearman_power_is_the_rate_at_which_fishers_test_rejects():
    rng = np.random.default_rng(4)
    n, critical = 20, scipy_stats.norm.ppf(0.95)
    z = [math.atanh(stats.spearman(*_bivariate(rng, -0.5, n))) * math.sqrt((n - 3) / 1.06) for _ in range(2000)]
    assert stats.spearman_power(-0.5, n) == pytest.approx(np.mean(np.array(z) < -critical), abs=0.04)
    assert stats.spearman_power(0.0, n) == pytest.approx(0.05)
    assert stats.spearman_power(-0.5, 3) == 0.0


@pytest.mark.parametrize("rho, threshold, alpha, power", [(0.95, 0.8, 0.025, 0.5), (0.5, 0.0, 0.05, 0.8)])
def test_the_pairs_needed_are_the_fewest_that_reach_the_power(rho, threshold, alpha, power):
    n = stats.spearman_pairs_needed(rho, threshold, alpha, power)

    def chance(pairs):  # that the one-sided Fisher test rejects threshold at the true rho
        shift = (math.atanh(rho) - math.atanh(threshold)) * math.sqrt(pairs - 3) / stats.FISHER_SE_FACTOR
        return scipy_stats.norm.cdf(shift - scipy_stats.norm.ppf(1 - alpha))

    assert chance(n) >= power > chance(n - 1)


@pytest.mark.parametrize("rho, threshold", [(0.8, 0.8), (0.5, 0.9), (1.0, 0.0), (0.5, -1.0)])
def test_the_pairs_needed_need_a_correlation_above_the_threshold(rho, threshold):
    with pytest.raises(ValueError, match="spearman_pairs_needed needs -1 < threshold < rho < 1"):
        stats.spearman_pairs_needed(rho, threshold)
