import numpy as np
import pytest

from seqmi.fit import fit_correlation_length, fit_power_law, fit_power_law_with_offset, two_point_offset_fit


def test_power_law_exact_and_threshold():
    tau = np.arange(1, 200)
    mi = 0.1 * tau**-0.7
    fit = fit_power_law(tau, mi)
    assert fit.exponent == pytest.approx(0.7, abs=1e-12)
    assert fit.amplitude == pytest.approx(0.1, rel=1e-12)
    assert fit.ci[0] <= fit.exponent <= fit.ci[1] and fit.ci[1] - fit.ci[0] < 1e-9
    # only points with mi > 1e-3 count: 0.1 tau^-0.7 > 1e-3 for tau < 100^(1/0.7) = 719
    assert fit.n_points == 199
    assert fit_power_law(tau, mi, threshold=0.01).n_points == int((mi > 0.01).sum())


def test_power_law_confidence_interval_coverage():
    # with Gaussian noise on ln I the interval must cover the truth ~95% of the time;
    # over 400 trials the count is binomial with s.d. ~4.4
    rng = np.random.default_rng(0)
    tau = np.arange(1, 40)
    hits = 0
    for _ in range(400):
        mi = 0.1 * tau**-0.5 * np.exp(0.1 * rng.standard_normal(tau.size))
        lo, hi = fit_power_law(tau, mi).ci
        hits += lo <= 0.5 <= hi
    assert 360 <= hits <= 395


def test_correlation_length_exact():
    tau = np.arange(1, 100)
    fit = fit_correlation_length(tau, 0.5 * np.exp(-tau / 7.0))
    assert fit.xi == pytest.approx(7.0, rel=1e-10)
    assert fit.i0 == pytest.approx(0.5, rel=1e-10)
    assert fit.n_points == int((0.5 * np.exp(-tau / 7.0) > 1e-3).sum())
    assert fit.ci[0] <= 7.0 <= fit.ci[1]
    flat = fit_correlation_length(tau[:10], np.full(10, 0.1) * (1 + 1e-3 * np.sin(tau[:10])))
    assert flat.ci[1] == float("inf")


def test_offset_fit_recovers_bias():
    d = np.arange(1, 300)
    fit = fit_power_law_with_offset(d, 0.2 * d**-0.6 + 3e-3)
    assert fit.exponent == pytest.approx(0.6, abs=1e-5)
    assert fit.offset == pytest.approx(3e-3, rel=1e-4)
    assert fit.amplitude == pytest.approx(0.2, rel=1e-4)
    assert 0 <= fit.offset < (0.2 * d**-0.6 + 3e-3).min()
    # without a constant the best offset is (near) zero
    assert fit_power_law_with_offset(d, 0.2 * d**-0.6).offset < 1e-6


def test_fit_errors():
    with pytest.raises(ValueError, match="at least 3 points"):
        fit_power_law([1, 2, 3], [0.1, 1e-4, 1e-5])
    with pytest.raises(ValueError, match="equal length"):
        fit_power_law([1, 2, 3], [0.1, 0.2])
    with pytest.raises(ValueError, match="positive"):
        fit_power_law_with_offset([1, 2, 3, 4], [0.1, 0.05, -0.01, 0.02])


def test_two_point_offset_fit_recovers_a_power_law_over_a_bias():
    d = np.arange(1, 401)
    fit = two_point_offset_fit(0.05 * d ** -0.8 + 2e-3, min_lag=4)
    assert fit.alpha == pytest.approx(0.8, rel=1e-6)
    assert fit.offset == pytest.approx(2e-3, rel=1e-6)
    assert fit.alpha_ci[0] <= fit.alpha <= fit.alpha_ci[1] and fit.r2 > 0.999
    with pytest.raises(ValueError, match="min_lag"):
        two_point_offset_fit(np.ones(5), min_lag=4)


def test_two_point_offset_fit_jackknife_intervals_cover_alpha_and_c():
    # delete-one-block curves of 20 blocks: the whole-text curve, each perturbed as a 5% smaller
    # sample would perturb it (a level per replicate, a little noise per distance)
    d = np.arange(1, 201)
    rng = np.random.default_rng(1)
    true = 0.05 * d ** -0.8 + 2e-3
    jack = true * rng.normal(1, 0.02 / 19, size=(20, 1)) * rng.normal(1, 0.002 / 19, size=(20, d.size))
    fit = two_point_offset_fit(true, min_lag=4, jackknife=jack)
    lo, hi = fit.alpha_jack_ci
    assert lo < 0.8 < hi and hi - lo < 0.2
    assert fit.offset_jack_ci[0] < 2e-3 < fit.offset_jack_ci[1]
    assert fit.n_jackknife == 20
    # identical replicates: no spread, a zero-width interval at the estimate
    same = two_point_offset_fit(true, min_lag=4, jackknife=np.tile(true, (5, 1)))
    assert same.alpha_jack_ci == pytest.approx([fit.alpha] * 2)
    with pytest.raises(ValueError, match="distances"):
        two_point_offset_fit(true, min_lag=4, jackknife=jack[:, :50])


def test_an_offset_fit_records_its_jackknife_only_when_it_ran():
    d = np.arange(1, 201)
    plain = two_point_offset_fit(0.05 * d ** -0.8 + 2e-3, min_lag=4).record()
    assert set(plain) == {"alpha", "alpha_ci", "offset", "amplitude", "r2", "min_lag"}
    jack = two_point_offset_fit(0.05 * d ** -0.8 + 2e-3, min_lag=4, jackknife=np.tile(0.05 * d ** -0.8 + 2e-3, (3, 1)))
    assert {"alpha_jack_ci", "offset_jack_ci", "n_jackknife"} <= set(jack.record())
