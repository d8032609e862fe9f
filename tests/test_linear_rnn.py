"""Linear Gaussian RNN: exact series = recurrence, poles vs fitted decay, exact vs sampled MI."""

from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from seqmi.info import gaussian_mi
from seqmi.theory.linear_rnn import (
    LinearGaussianRNN,
    fit_cross_covariance_decay,
    fit_decay_rate,
    fit_mi_decay,
    random_rational_covariance,
    random_rational_matrix,
    random_rational_rnn,
    rational_poles,
    taylor_coefficients,
)


def _random_system(m, d, rng, convention="eq11"):
    mats = [random_rational_matrix(r, c, rng) for r, c in ((m, d), (m, m), (d, m))]
    rnn = LinearGaussianRNN(*mats, 1, convention=convention)
    s0 = random_rational_covariance(m + d, rng)
    return rnn, s0[:m, m:], s0[m:, m:]


@pytest.mark.parametrize("convention", ["eq11", "printed"])
@pytest.mark.parametrize("m,d", [(1, 1), (2, 1), (3, 1), (1, 2), (3, 2)])
def test_series_of_generating_function_equals_recurrence_exactly(m, d, convention):
    rng = np.random.default_rng(100 * m + d)
    rnn, shx, sxx = _random_system(m, d, rng, convention)
    rec = rnn.cross_covariances(30, shx, sxx, exact=True)
    z, sig_z = rnn.generating_function(shx, sxx)
    series = taylor_coefficients(sig_z, z, 30)
    assert all(a == b for a, b in zip(rec, series))  # exact rational equality, term by term
    assert all(sp.fraction(sp.cancel(e))[1].is_polynomial(z) for e in sig_z)
    # eq. (35) and the state-space form are the same rational function
    _, transfer = rnn.transfer_generating_function(shx, sxx)
    assert (sig_z - transfer).applyfunc(sp.cancel) == sp.zeros(d, d)


def test_series_matches_sympy_series_expansion():
    rng = np.random.default_rng(7)
    rnn, shx, sxx = _random_system(2, 1, rng)
    z, sig_z = rnn.generating_function(shx, sxx)
    ours = taylor_coefficients(sig_z, z, 8)
    ref = sp.series(sig_z[0, 0], z, 0, 9).removeO()
    assert all(ref.coeff(z, t) == ours[t][0, 0] for t in range(9))


def test_float_recurrence_matches_exact_and_state_space():
    rng = np.random.default_rng(3)
    rnn, shx, sxx = _random_system(2, 2, rng)
    exact = np.array([np.array(s, dtype=float) for s in rnn.cross_covariances(15, shx, sxx, exact=True)])
    shx_f, sxx_f = np.array(shx, dtype=float), np.array(sxx, dtype=float)
    scale = np.abs(exact).max()
    np.testing.assert_allclose(rnn.cross_covariances(15, shx_f, sxx_f), exact, atol=1e-12 * scale)
    np.testing.assert_allclose(rnn.cross_covariances_state_space(15, shx_f, sxx_f), exact, atol=1e-12 * scale)


def test_printed_convention_is_eq11_with_read_out_uo_uh():
    rng = np.random.default_rng(11)
    mats = [random_rational_matrix(r, c, rng) for r, c in ((2, 1), (2, 2), (1, 2))]
    printed = LinearGaussianRNN(*mats, 1, convention="printed")
    shifted = LinearGaussianRNN(mats[0], mats[1], mats[2] * mats[1], 1)
    s0 = random_rational_covariance(3, rng)
    a = printed.cross_covariances(10, s0[:2, 2:], s0[2:, 2:], exact=True)
    b = shifted.cross_covariances(10, s0[:2, 2:], s0[2:, 2:], exact=True)
    assert a == b
    # first terms of the printed eq. (15): Sigma_1 = U_o U_h Sigma_h0x0
    assert a[1] == mats[2] * mats[1] * s0[:2, 2:]


def test_eq11_first_terms_by_hand():
    # o_1 = U_o h_0 and o_2 = U_o (W_h x_0 + U_h h_0)
    w, u, uo = sp.Rational(1, 2), sp.Rational(1, 3), sp.Rational(2, 5)
    rnn = LinearGaussianRNN([[w]], [[u]], [[uo]], 1)
    shx, sxx = sp.Rational(1, 7), sp.Integer(2)
    s = rnn.cross_covariances(2, [[shx]], [[sxx]], exact=True)
    assert s[1][0, 0] == uo * shx
    assert s[2][0, 0] == uo * (w * sxx + u * shx)


def test_exact_inputs_accept_fractions_and_ints():
    rnn = LinearGaussianRNN([[Fraction(1, 2)]], [[0]], [[1]], 1)
    s = rnn.cross_covariances(3, [[0]], [[1]], exact=True)
    # x_t = x_{t-2}/2 + noise: Sigma_t = 2^(-t/2) for even t, 0 for odd t
    assert [e[0, 0] for e in s] == [1, 0, sp.Rational(1, 2), 0]


def test_poles_of_a_jordan_block_have_order_two():
    # U_h a Jordan block and W_h = 0: Sigma_t = U_o U_h^(t-1) Sigma_h0x0 ~ t a^t
    a = sp.Rational(1, 2)
    rnn = LinearGaussianRNN([[0], [0]], [[a, 1], [0, a]], [[1, 0]], 1)
    info = rnn.poles([[0], [1]], [[1]])
    assert info.order == 2
    assert info.z0 == pytest.approx(2.0)
    assert rnn.decay_rate() == (pytest.approx(0.5), 2)
    t = np.arange(40, 200)
    values = t * 0.5**t
    assert fit_decay_rate(values, t, order=2) == pytest.approx(0.5, rel=1e-10)


def test_initial_condition_can_remove_a_pole():
    # two decoupled hidden modes; Sigma_h0x0 with no weight on the slow mode removes its pole
    rnn = LinearGaussianRNN([[0], [0]], [[sp.Rational(9, 10), 0], [0, sp.Rational(1, 2)]], [[1, 1]], 1)
    assert rnn.poles().rho == pytest.approx(0.9)
    assert rnn.poles([[0], [1]], [[1]]).rho == pytest.approx(0.5)


def test_rational_poles_handles_pole_free_matrices():
    z = sp.Symbol("z")
    info = rational_poles(sp.Matrix([[1 + z]]), z)
    assert info.poles.size == 0 and info.rho == 0.0


@pytest.mark.parametrize("m,d", [(1, 1), (2, 1), (3, 1), (1, 2), (2, 2), (3, 2)])
def test_predicted_decay_rate_matches_fit_within_two_percent(m, d):
    rng = np.random.default_rng(10 * m + d)
    for _ in range(3):
        rnn = random_rational_rnn(m, d, rng)
        rho, _ = rnn.decay_rate()
        rho_num, _ = rnn.decay_rate("numeric")
        assert rho_num == pytest.approx(rho, rel=1e-9)
        fitted, _ = fit_cross_covariance_decay(rnn)
        assert fitted == pytest.approx(rho, rel=0.02)


def test_exact_mi_forms_agree_and_decay():
    rng = np.random.default_rng(5)
    rnn = random_rational_rnn(3, 2, rng)
    res = rnn.mutual_information(40)
    big = res.exact > 1e-8  # below this the log-det difference loses relative accuracy
    np.testing.assert_allclose(res.eq41[big], res.exact[big], rtol=1e-6)
    # -ln(1 - mu) >= mu: the trace form is a lower bound, tight when the MI is small
    assert np.all(res.trace <= res.eq41 * (1 + 1e-9))
    late = res.eq41 < 1e-4
    np.testing.assert_allclose(res.trace[late], res.eq41[late], rtol=1e-3)


def test_exact_mi_matches_monte_carlo_within_sampling_error():
    rng = np.random.default_rng(8)
    rnn = random_rational_rnn(2, 2, rng, min_radius=0.6)
    n, t_max, n_batches = 40000, 6, 10
    x = rnn.sample(n, t_max, seed=1)
    exact = rnn.mutual_information(t_max).exact
    d = rnn.d
    for t in range(1, t_max + 1):
        pair = x[:, [0, t]].reshape(n, 2 * d)

        def mi(rows):
            return gaussian_mi(np.cov(rows, rowvar=False), np.arange(d), np.arange(d, 2 * d))

        est = mi(pair)
        batches = np.array([mi(part) for part in np.array_split(pair, n_batches)])
        se = batches.std(ddof=1) / np.sqrt(n_batches)
        # the Gaussian MI estimate is biased up by about d_x d_y / (2 n)
        z = (est - d * d / (2 * n) - exact[t - 1]) / se
        assert abs(z) < 5, (t, est, exact[t - 1], se)


def test_sampled_covariance_matches_state_space_and_biases_only_shift_the_mean():
    rng = np.random.default_rng(9)
    base = random_rational_rnn(2, 1, rng)
    biased = LinearGaussianRNN(base.W_h, base.U_h, base.U_o, base.sigma, b_h=[1.0, -2.0], b_o=[3.0])
    s00, st0, stt = base.covariance_blocks(4)
    n = 50000
    x0 = base.sample(n, 4, seed=2)
    x1 = biased.sample(n, 4, seed=2)
    # same seed, same noise: the biased path is the unbiased one plus the stationary mean
    np.testing.assert_allclose(x1 - x1.mean(axis=0), x0 - x0.mean(axis=0), atol=1e-9)
    mean_x = biased.stationary_mean()[2:]
    assert np.abs(mean_x).min() > 0.1  # the biases do move the mean
    # the mean of n correlated draws per step is within a few sqrt(Sigma_00 / n) of the truth
    assert np.abs(x1.mean(axis=0) - mean_x).max() < 5 * np.sqrt(s00[0, 0] / n)
    cov = np.cov(x0[:, :, 0], rowvar=False)
    # entries of a sample covariance have standard error about Sigma_00 sqrt(2 / n)
    np.testing.assert_allclose(cov[0], np.concatenate([[s00[0, 0]], st0[1:, 0, 0]]), atol=5 * s00[0, 0] * np.sqrt(2 / n))
    np.testing.assert_allclose(np.diag(cov), stt[:, 0, 0], atol=5 * s00[0, 0] * np.sqrt(2 / n))
    assert biased.mutual_information(5).exact == pytest.approx(base.mutual_information(5).exact, rel=1e-12)


def test_memorising_network_grows_and_has_no_stationary_state():
    rnn = LinearGaussianRNN([[0]], [[sp.Rational(11, 10)]], [[1]], 1)
    rho, order = rnn.decay_rate()
    assert rho == pytest.approx(1.1) and order == 1
    sig = rnn.cross_covariances(50, [[1]], [[1]])
    assert sig[50, 0, 0] == pytest.approx(1.1**49)
    with pytest.raises(ValueError, match="spectral radius"):
        rnn.stationary_covariance()


def test_invalid_arguments_raise():
    with pytest.raises(ValueError, match="shapes"):
        LinearGaussianRNN([[1, 2]], [[1]], [[1]], 1)
    with pytest.raises(ValueError, match="sigma"):
        LinearGaussianRNN([[1]], [[0]], [[1]], 0.0)
    with pytest.raises(ValueError, match="convention"):
        LinearGaussianRNN([[1]], [[0]], [[1]], 1, convention="eq12")
    rnn = LinearGaussianRNN([[1]], [[0]], [[1]], 1)
    with pytest.raises(ValueError, match="Sigma_h0x0"):
        rnn.cross_covariances(3, [[1, 2]], [[1]])
    with pytest.raises(ValueError, match="t_max"):
        rnn.cross_covariances(-1, [[0]], [[1]])
    with pytest.raises(ValueError, match="both"):
        rnn.poles([[0]], None)


def test_fit_mi_decay_recovers_the_pole_rate():
    rng = np.random.default_rng(12)
    rnn = random_rational_rnn(2, 1, rng, min_radius=0.8)
    rho, _ = rnn.decay_rate()
    rho_eq41, rho_trace, res = fit_mi_decay(rnn, t_min=50)
    assert res.lags[-1] >= 50
    assert rho_eq41 == pytest.approx(rho, rel=1e-3)
    assert rho_trace == pytest.approx(rho, rel=1e-3)
