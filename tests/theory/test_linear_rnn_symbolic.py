"""Linear Gaussian RNN, exactly: series = recurrence, poles vs fitted decay, conventions."""

from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from seqmi.theory.linear_rnn import LinearGaussianRNN, fit_cross_covariance_decay, fit_decay_rate
from seqmi.theory.linear_rnn_symbolic import (
    SymbolicLinearRNN,
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
    sym = SymbolicLinearRNN(rnn)
    rec = sym.cross_covariances(30, shx, sxx)
    z, sig_z = sym.generating_function(shx, sxx)
    series = taylor_coefficients(sig_z, z, 30)
    assert all(a == b for a, b in zip(rec, series))  # exact rational equality, term by term
    assert all(sp.fraction(sp.cancel(e))[1].is_polynomial(z) for e in sig_z)
    # eq. (35) and the state-space form are the same rational function
    _, transfer = sym.transfer_generating_function(shx, sxx)
    assert (sig_z - transfer).applyfunc(sp.cancel) == sp.zeros(d, d)


def test_series_matches_sympy_series_expansion():
    rng = np.random.default_rng(7)
    rnn, shx, sxx = _random_system(2, 1, rng)
    z, sig_z = SymbolicLinearRNN(rnn).generating_function(shx, sxx)
    ours = taylor_coefficients(sig_z, z, 8)
    ref = sp.series(sig_z[0, 0], z, 0, 9).removeO()
    assert all(ref.coeff(z, t) == ours[t][0, 0] for t in range(9))


def test_float_recurrence_matches_exact_and_state_space():
    rng = np.random.default_rng(3)
    rnn, shx, sxx = _random_system(2, 2, rng)
    exact = np.array([np.array(s, dtype=float) for s in SymbolicLinearRNN(rnn).cross_covariances(15, shx, sxx)])
    shx_f, sxx_f = np.array(shx, dtype=float), np.array(sxx, dtype=float)
    scale = np.abs(exact).max()
    np.testing.assert_allclose(rnn.cross_covariances(15, shx_f, sxx_f), exact, atol=1e-12 * scale)
    np.testing.assert_allclose(rnn.cross_covariances_state_space(15, shx_f, sxx_f), exact, atol=1e-12 * scale)


def test_printed_convention_is_eq11_with_read_out_uo_uh():
    rng = np.random.default_rng(11)
    mats = [random_rational_matrix(r, c, rng) for r, c in ((2, 1), (2, 2), (1, 2))]
    printed = SymbolicLinearRNN(LinearGaussianRNN(*mats, 1, convention="printed"))
    shifted = SymbolicLinearRNN(LinearGaussianRNN(mats[0], mats[1], mats[2] * mats[1], 1))
    assert printed.C == shifted.C == mats[2] * mats[1]
    s0 = random_rational_covariance(3, rng)
    a = printed.cross_covariances(10, s0[:2, 2:], s0[2:, 2:])
    b = shifted.cross_covariances(10, s0[:2, 2:], s0[2:, 2:])
    assert a == b
    # first terms of the printed eq. (15): Sigma_1 = U_o U_h Sigma_h0x0
    assert a[1] == mats[2] * mats[1] * s0[:2, 2:]


def test_eq11_first_terms_by_hand():
    # o_1 = U_o h_0 and o_2 = U_o (W_h x_0 + U_h h_0)
    w, u, uo = sp.Rational(1, 2), sp.Rational(1, 3), sp.Rational(2, 5)
    sym = SymbolicLinearRNN(LinearGaussianRNN([[w]], [[u]], [[uo]], 1))
    shx, sxx = sp.Rational(1, 7), sp.Integer(2)
    s = sym.cross_covariances(2, [[shx]], [[sxx]])
    assert s[1][0, 0] == uo * shx
    assert s[2][0, 0] == uo * (w * sxx + u * shx)


def test_exact_inputs_accept_fractions_and_ints():
    sym = SymbolicLinearRNN(LinearGaussianRNN([[Fraction(1, 2)]], [[0]], [[1]], 1))
    s = sym.cross_covariances(3, [[0]], [[1]])
    # x_t = x_{t-2}/2 + noise: Sigma_t = 2^(-t/2) for even t, 0 for odd t
    assert [e[0, 0] for e in s] == [1, 0, sp.Rational(1, 2), 0]


def test_float_weights_are_their_exact_binary_values():
    sym = SymbolicLinearRNN(LinearGaussianRNN([[0.1]], [[0.5]], [[1]], 1))
    assert sym.W_h[0, 0] == sp.Rational(3602879701896397, 36028797018963968)
    assert sym.U_h[0, 0] == sp.Rational(1, 2)


def test_poles_of_a_jordan_block_have_order_two():
    # U_h a Jordan block and W_h = 0: Sigma_t = U_o U_h^(t-1) Sigma_h0x0 ~ t a^t
    a = sp.Rational(1, 2)
    rnn = LinearGaussianRNN([[0], [0]], [[a, 1], [0, a]], [[1, 0]], 1)
    sym = SymbolicLinearRNN(rnn)
    info = sym.poles([[0], [1]], [[1]])
    assert info.order == 2
    assert info.z0 == pytest.approx(2.0)
    assert sym.decay_rate() == (pytest.approx(0.5), 2)
    # the eigenvalues of M see the double eigenvalue too (split by rounding, within 1e-6)
    assert rnn.decay_rate() == (pytest.approx(0.5, rel=1e-6), 2)
    t = np.arange(40, 200)
    values = t * 0.5**t
    assert fit_decay_rate(values, t, order=2) == pytest.approx(0.5, rel=1e-10)


def test_initial_condition_can_remove_a_pole():
    # two decoupled hidden modes; Sigma_h0x0 with no weight on the slow mode removes its pole
    sym = SymbolicLinearRNN(LinearGaussianRNN([[0], [0]], [[sp.Rational(9, 10), 0], [0, sp.Rational(1, 2)]],
                                              [[1, 1]], 1))
    assert sym.poles().rho == pytest.approx(0.9)
    assert sym.poles([[0], [1]], [[1]]).rho == pytest.approx(0.5)


def test_rational_poles_handles_pole_free_matrices():
    z = sp.Symbol("z")
    info = rational_poles(sp.Matrix([[1 + z]]), z)
    assert info.poles.size == 0 and info.rho == 0.0


@pytest.mark.parametrize("m,d", [(1, 1), (2, 1), (3, 1), (1, 2), (2, 2), (3, 2)])
def test_predicted_decay_rate_matches_fit_within_two_percent(m, d):
    rng = np.random.default_rng(10 * m + d)
    for _ in range(3):
        rnn = random_rational_rnn(m, d, rng)
        rho, _ = SymbolicLinearRNN(rnn).decay_rate()
        rho_num, _ = rnn.decay_rate()
        assert rho_num == pytest.approx(rho, rel=1e-9)
        fitted, _ = fit_cross_covariance_decay(rnn)
        assert fitted == pytest.approx(rho, rel=0.02)


def test_memorising_network_has_a_pole_inside_the_unit_disk():
    sym = SymbolicLinearRNN(LinearGaussianRNN([[0]], [[sp.Rational(11, 10)]], [[1]], 1))
    rho, order = sym.decay_rate()
    assert rho == pytest.approx(1.1) and order == 1
    assert sym.cross_covariances(50, [[1]], [[1]])[50][0, 0] == sp.Rational(11, 10) ** 49


def test_invalid_arguments_raise():
    sym = SymbolicLinearRNN(LinearGaussianRNN([[1]], [[0]], [[1]], 1))
    with pytest.raises(ValueError, match="both"):
        sym.poles([[0]], None)
    with pytest.raises(ValueError, match="Sigma_h0x0"):
        sym.generating_function([[1, 2]], [[1]])
    with pytest.raises(ValueError, match="t_max"):
        sym.cross_covariances(-1, [[0]], [[1]])
    with pytest.raises(ValueError, match="Sigma_x0x0"):
        sym.cross_covariances(2, [[0]], [[float("inf")]])
    with pytest.raises(TypeError, match="LinearGaussianRNN"):
        SymbolicLinearRNN([[1]])
