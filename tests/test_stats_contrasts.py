"""Contrasts of independent group means, slopes over per-group means, and a permutation test of
Spearman's ρ (seqmi.stats)."""

import math

import numpy as np
import pytest

from seqmi import stats


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


def test_the_permutation_test_of_spearman_is_exact_for_few_pairs():
    rho, p_less, p_greater = stats.spearman_permutation_test([1, 2, 3, 4], [4, 3, 2, 1])
    assert rho == -1.0 and p_less == pytest.approx(1 / 24) and p_greater == 1.0
    # ties take average ranks
    rho, _, _ = stats.spearman_permutation_test([1, 2, 2, 3], [1, 2, 3, 4])
    assert rho == pytest.approx(0.9486832980505138)
    with pytest.raises(ValueError, match="at least 3"):
        stats.spearman_permutation_test([1, 2], [2, 1])


def test_the_permutation_test_holds_its_level_without_association():
    rng = np.random.default_rng(1)
    rejections = sum(stats.spearman_permutation_test(rng.normal(size=18), rng.normal(size=18), 500)[1] <= 0.05
                     for _ in range(400))
    assert rejections / 400 <= 0.08
