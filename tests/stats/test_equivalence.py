"""Equivalence statistics (seqmi.stats.equivalence): t intervals of relative differences, the scale
and power of a point-by-point TOST, and normal tolerance intervals."""

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from seqmi import stats


def test_relative_difference_interval_scales_the_error_by_the_reference():
    lo, hi = stats.relative_difference_interval([1.1, 0.02], [1.0, 0.02], [0.01, 0.001], math.inf, level=0.90)
    z = scipy_stats.norm.ppf(0.95)
    np.testing.assert_allclose(lo, [0.1 - 0.01 * z, -0.05 * z])
    np.testing.assert_allclose(hi, [0.1 + 0.01 * z, 0.05 * z])
    with pytest.raises(ValueError, match="nonzero reference"):
        stats.relative_difference_interval([1.0], [0.0], [0.1], 9)


def test_relative_difference_interval_covers_at_its_level():
    # batch means: normal estimates, errors with 9 dof; the 90% intervals cover 0 about 90% of the time
    rng = np.random.default_rng(1)
    est = 1.0 + rng.normal(0.0, 0.02, 20000)
    se = 0.02 * np.sqrt(rng.chisquare(9, 20000) / 9)
    lo, hi = stats.relative_difference_interval(est, np.ones(20000), se, 9)
    assert np.mean((lo < 0) & (0 < hi)) == pytest.approx(0.90, abs=0.01)


def test_equivalence_scale_and_power():
    # a half-width of 0.05 with a deviation of 0.073 needs (0.05 / 0.027)^2 = 3.4 times the sample
    assert stats.equivalence_scale([0.0, -0.073], [0.01, 0.05], 0.10) == pytest.approx((0.05 / 0.027) ** 2)
    assert stats.equivalence_scale([0.0], [0.01], 0.10) == 1.0
    assert stats.equivalence_scale([0.1], [0.01], 0.10) is None
    # one point: P(|Z s| < margin - t s) = 2 Φ((margin - t s)/s) - 1
    t = stats.t_quantile(0.90, 19)
    expected = 2 * scipy_stats.norm.cdf((0.1 - t * 0.03) / 0.03) - 1
    assert stats.equivalence_power([0.03], 0.10, 19) == pytest.approx(expected)
    assert stats.equivalence_power([0.03, 0.03], 0.10, 19) == pytest.approx(expected**2)
    factor = stats.equivalence_scale_for_power([0.05, 0.03], 0.10, 19)
    assert stats.equivalence_power(np.array([0.05, 0.03]) / math.sqrt(factor), 0.10, 19) >= 0.80
    assert stats.equivalence_power(np.array([0.05, 0.03]) / math.sqrt(factor / 1.02), 0.10, 19) < 0.80
    assert stats.equivalence_scale_for_power([0.001], 0.10, 19) == 1.0


def test_tolerance_factor_matches_the_tables():
    # two-sided normal tolerance factors for 90% content at 95% confidence (Howe's approximation
    # against the exact values of the standard tables: 8.380, 5.369, 2.856)
    assert stats.tolerance_factor(3) == pytest.approx(8.380, rel=0.002)
    assert stats.tolerance_factor(4) == pytest.approx(5.369, rel=0.002)
    assert stats.tolerance_factor(10) == pytest.approx(2.856, rel=0.01)
    with pytest.raises(ValueError, match="n >= 3"):
        stats.tolerance_factor(2)


def test_tolerance_interval_holds_its_content_at_its_confidence():
    rng = np.random.default_rng(2)
    draws = rng.normal(0.0, 1.0, (4000, 10))
    content = []
    for row in draws:
        lo, hi = stats.tolerance_interval(row)
        content.append(scipy_stats.norm.cdf(hi) - scipy_stats.norm.cdf(lo))
    # at least 90% of the population inside, in about 95% of the samples
    assert np.mean(np.array(content) >= 0.90) == pytest.approx(0.95, abs=0.015)
    with pytest.raises(ValueError, match="at least 3 samples"):
        stats.tolerance_interval([1.0, 2.0])
