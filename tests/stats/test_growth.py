"""How a curve grows (seqmi.stats.growth): power law against logarithmic growth, its power, log-log
slopes, and the late/early ratio of a KL profile."""

import numpy as np
import pytest

from seqmi import stats

L = np.array([16.0, 32, 64, 128, 256])


def test_growth_profile_finds_the_exponent_of_an_offset_power_law():
    prof = stats.growth_profile(L, 2.0 * L**0.4 - 3.0, np.full(5, 0.05))
    assert prof.beta == pytest.approx(0.4) and prof.ci[0] < 0.4 < prof.ci[1] and prof.slope > 0
    assert prof.chi2 < 1e-9 and prof.chi2_log > 100 and prof.scale == 1.0


def test_growth_profile_puts_logarithmic_growth_at_zero_and_saturation_below():
    assert stats.growth_profile(L, 0.05 * np.log(L) + 0.3, np.full(5, 1e-3)).beta == 0.0
    sat = stats.growth_profile(L, 5 - 40 / L, np.full(5, 0.01))
    assert sat.ci[1] < 0


def test_growth_profile_widens_where_the_curve_scatters_more_than_its_errors():
    wiggle = np.array([0.3, -0.3, 0.3, -0.3, 0.3])
    tight = stats.growth_profile(L, 2 * L**0.5, np.full(5, 0.1))
    loose = stats.growth_profile(L, 2 * L**0.5 + wiggle, np.full(5, 0.1))
    assert loose.scale > 1 and loose.ci[1] - loose.ci[0] > tight.ci[1] - tight.ci[0]


def test_growth_profile_rejects_bad_input():
    with pytest.raises(ValueError):
        stats.growth_profile(L[:3], L[:3], np.ones(3))
    with pytest.raises(ValueError):
        stats.growth_profile(L, L, np.zeros(5))


def test_growth_power_rises_with_the_exponent_and_falls_with_the_errors():
    small, large = (stats.growth_power(L, np.full(5, 1.0), 3.0, b) for b in (0.1, 0.5))
    assert 0.05 < small < large
    assert stats.growth_power(L, np.full(5, 10.0), 3.0, 0.5) < large
    # a logarithmic truth is the test's boundary: the chance of rejecting it is the level
    assert stats.growth_power(L, np.full(5, 1.0), 1.0, 1e-9) == pytest.approx(0.05, abs=1e-3)


def test_log_slope_scales_its_error_by_birge_ratio_only_upward():
    b, se = stats.log_slope(L, 3 * L**0.7, 0.03 * L**0.7)
    assert b == pytest.approx(0.7)
    scatter = np.exp(0.1 * np.array([1, -1, 1, -1, 1]))
    b2, se2 = stats.log_slope(L, 3 * L**0.7 * scatter, 0.03 * L**0.7)
    assert se2 > se
    with pytest.raises(ValueError):
        stats.log_slope(L, -L, np.ones(5))


def test_late_early_ratio_compares_the_last_quarter_with_the_second():
    curve = np.concatenate([np.full(4, 9.0), np.full(4, 1.0), np.full(4, 5.0), np.full(4, 2.0)])
    assert stats.late_early_ratio(curve) == 2.0  # the first quarter, the prior's, is left out
    np.testing.assert_array_equal(stats.late_early_ratio(np.stack([curve, 2 * curve])), [2.0, 2.0])
    with pytest.raises(ValueError, match="at least 4 positions"):
        stats.late_early_ratio(np.ones(3))
