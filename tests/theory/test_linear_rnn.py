"""Linear Gaussian RNN, numerically: exact vs sampled MI, biases, stability, decay fits."""

import subprocess
import sys

import numpy as np
import pytest
import sympy as sp

from seqmi.info import gaussian_mi
from seqmi.theory.linear_rnn import LinearGaussianRNN, fit_mi_decay, random_rnn

# stable rational networks whose exact poles are known: the same test networks as the
# exact checks (tests/theory/test_linear_rnn_symbolic.py)
from seqmi.theory.linear_rnn_symbolic import SymbolicLinearRNN, random_rational_rnn


def test_importing_the_numeric_model_does_not_import_sympy():
    code = "import sys, seqmi.theory.linear_rnn; sys.exit('sympy' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


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


def test_random_rnn_is_stable_with_the_given_radius_of_u_h():
    rnn = random_rnn(4, 2, 0.9, 0.3, np.random.default_rng(1))
    assert np.abs(np.linalg.eigvals(rnn.U_h)).max() == pytest.approx(0.9)
    assert rnn.spectral_radius() < 1.0


def test_invalid_arguments_raise():
    with pytest.raises(ValueError, match="shapes"):
        LinearGaussianRNN([[1, 2]], [[1]], [[1]], 1)
    with pytest.raises(ValueError, match="sigma"):
        LinearGaussianRNN([[1]], [[0]], [[1]], 0.0)
    with pytest.raises(ValueError, match="convention"):
        LinearGaussianRNN([[1]], [[0]], [[1]], 1, convention="eq12")
    with pytest.raises(ValueError, match="finite"):
        LinearGaussianRNN([[np.inf]], [[0]], [[1]], 1)
    rnn = LinearGaussianRNN([[1]], [[0]], [[1]], 1)
    with pytest.raises(ValueError, match="Sigma_h0x0"):
        rnn.cross_covariances(3, [[1, 2]], [[1]])
    with pytest.raises(ValueError, match="t_max"):
        rnn.cross_covariances(-1, [[0]], [[1]])


def test_fit_mi_decay_recovers_the_pole_rate():
    rng = np.random.default_rng(12)
    rnn = random_rational_rnn(2, 1, rng, min_radius=0.8)
    rho, _ = SymbolicLinearRNN(rnn).decay_rate()
    rho_eq41, rho_trace, res = fit_mi_decay(rnn, t_min=50)
    assert res.lags[-1] >= 50
    assert rho_eq41 == pytest.approx(rho, rel=1e-3)
    assert rho_trace == pytest.approx(rho, rel=1e-3)
