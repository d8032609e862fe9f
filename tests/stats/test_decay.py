"""How a curve decays (seqmi.stats.decay): power law against exponential decay, and the correlation
length of an exponential with an error bound that holds however the lags are correlated."""

import math

import numpy as np
import pytest

from seqmi import stats

TAU = np.arange(1.0, 9.0)
XI = 3.0


def test_decay_form_tells_a_power_law_from_an_exponential_under_a_bias_floor():
    d = np.arange(1, 201)
    wiggle = 1 + 0.03 * np.sin(1.7 * d)
    power = stats.decay_form(0.1 * d**-1.3 * wiggle + 1e-4, 4)
    assert power.ci[0] > 0 and power.alpha == pytest.approx(1.3, abs=0.1) and power.offset > 0
    expo = stats.decay_form(0.1 * np.exp(-d / 25) * wiggle + 1e-4, 4)
    assert expo.ci[1] < 0 and expo.xi == pytest.approx(25, rel=0.1)
    # the fit stops at the first estimate that is not positive
    with pytest.raises(ValueError):
        stats.decay_form(np.concatenate([0.1 * d[:20] ** -1.0, [-1e-5], d[21:] * 0 + 1e-4]), 4)


def test_the_log_slope_of_an_exponential_is_minus_one_over_xi():
    exact = 0.4 * np.exp(-TAU / XI)
    slope, bound = stats.log_decay_slope(TAU, exact, 0.02 * exact)
    weights = (TAU - TAU.mean()) / ((TAU - TAU.mean()) ** 2).sum()
    assert slope == pytest.approx(-1 / XI) and bound == pytest.approx(0.02 * np.abs(weights).sum())
    xi, (lo, hi) = stats.correlation_length_interval(TAU, exact, 0.02 * exact, XI, 19)
    assert xi == pytest.approx(XI) and lo < 0 < hi
    # a curve that does not decay has no length, and an interval that reaches a flat slope no upper bound
    assert stats.correlation_length_interval(TAU, np.ones(8), np.full(8, 0.5), XI, 19)[0] == math.inf
    assert stats.correlation_length_interval(TAU, exact, 0.5 * exact, XI, 19)[1][1] == math.inf


def test_the_length_interval_covers_at_its_level_when_the_bound_is_attained():
    # one error shared by every lag, signed as the least-squares weights: the slope's error is the bound
    rng = np.random.default_rng(0)
    exact = 0.4 * np.exp(-TAU / XI)
    sign = np.sign(TAU - TAU.mean())
    hits = independent = 0
    for _ in range(4000):
        se = 0.01 * exact * math.sqrt(rng.chisquare(19) / 19)  # batch means over 20 batches
        _, (lo, hi) = stats.correlation_length_interval(TAU, exact * np.exp(0.01 * sign * rng.normal()), se, XI, 19,
                                                        level=0.90)
        hits += lo < 0 < hi
        _, (lo, hi) = stats.correlation_length_interval(TAU, exact * np.exp(0.01 * rng.normal(size=8)), se, XI, 19,
                                                        level=0.90)
        independent += lo < 0 < hi
    assert 0.88 < hits / 4000 < 0.92
    assert independent / 4000 > 0.99  # independent errors: the bound is conservative


@pytest.mark.parametrize("lags, estimate", [(TAU[:7], np.ones(8)), (np.ones(8), np.ones(8)), (TAU[:1], np.ones(1))])
def test_the_log_slope_needs_one_length_and_two_distinct_lags(lags, estimate):
    with pytest.raises(ValueError, match="log_decay_slope needs lags, estimate and stderr of one length"):
        stats.log_decay_slope(lags, estimate, estimate)
