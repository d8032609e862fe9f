"""Exact enumeration of Ising chains: eq. (62), exponential MI, long-range memory."""

import numpy as np
import pytest

from seqmi.theory.ising import (
    boltzmann,
    conditionals,
    configurations,
    energies,
    eq62_conditional,
    eq62_deviation,
    nearest_neighbour_couplings,
    nn_correlation_length,
    nn_two_point_mi,
    pair_mi,
    past_dependence,
    power_law_couplings,
)
from seqmi.theory.markov import bsc_two_point_mi


def test_configurations_order_and_energy_of_a_small_chain():
    s = configurations(3)
    assert s.shape == (8, 3)
    assert s[0].tolist() == [1, 1, 1] and s[1].tolist() == [1, 1, -1] and s[4].tolist() == [-1, 1, 1]
    # H = J1 (s1 s2 + s2 s3) + J2 s1 s3, each pair once (eq. 56)
    h = energies([2.0, 5.0])
    expected = 2.0 * (s[:, 0] * s[:, 1] + s[:, 1] * s[:, 2]) + 5.0 * s[:, 0] * s[:, 2]
    np.testing.assert_allclose(h, expected)


@pytest.mark.parametrize("beta,J", [(0.3, -1.0), (1.2, -1.0), (0.7, 1.0), (2.0, 0.5)])
def test_boltzmann_conditional_equals_eq62(beta, J):
    assert eq62_deviation(beta, J, 14) < 1e-12


def test_eq62_values():
    # p(s_t = s_{t-1}) = e^{-beta J} / (2 cosh beta J)
    assert eq62_conditional(0.5, -1.0, [1.0])[0] == pytest.approx(np.exp(0.5) / (2 * np.cosh(0.5)))
    assert eq62_conditional(0.5, -1.0, [-1.0])[0] == pytest.approx(np.exp(-0.5) / (2 * np.cosh(0.5)))


def test_conditionals_are_probabilities_consistent_with_the_joint():
    p = boltzmann(power_law_couplings(8, -1.0, 1.5), 0.4)
    conds = conditionals(p)
    assert [c.size for c in conds] == [2**t for t in range(8)]
    # chain rule (eq. 55): the product of conditionals rebuilds the joint
    s = configurations(8)
    rebuilt = np.ones(p.size)
    for t in range(8):
        prefix = np.arange(p.size) >> (8 - t)
        up = conds[t][prefix]
        rebuilt *= np.where(s[:, t] == 1, up, 1 - up)
    np.testing.assert_allclose(rebuilt, p, rtol=1e-12)


@pytest.mark.parametrize("beta_J", [-0.5, -1.0, 0.8])
def test_nearest_neighbour_mi_matches_closed_form(beta_J):
    p = boltzmann(nearest_neighbour_couplings(14, -1.0 if beta_J < 0 else 1.0), abs(beta_J))
    lags = np.arange(1, 11)
    enumerated = np.array([pair_mi(p, 2, 2 + k) for k in lags])
    np.testing.assert_allclose(enumerated, nn_two_point_mi(beta_J, lags), atol=1e-12)
    np.testing.assert_allclose(nn_two_point_mi(beta_J, lags), bsc_two_point_mi((1 + np.tanh(beta_J)) / 2, lags),
                               atol=1e-14)
    # I(tau) ~ (1/2) tanh^(2 tau) = exp(-tau / xi) (Shen eq. 9): xi = -1/(2 ln|tanh beta J|)
    xi = nn_correlation_length(beta_J)
    assert xi == pytest.approx(-0.5 / np.log(abs(np.tanh(beta_J))), rel=1e-15)
    ratio = nn_two_point_mi(beta_J, [40])[0] / nn_two_point_mi(beta_J, [39])[0]
    assert ratio == pytest.approx(np.exp(-1 / xi), rel=1e-6)


def test_pair_mi_is_symmetric():
    p = boltzmann(power_law_couplings(6, -1.0, 1.2), 0.6)
    assert pair_mi(p, 2, 5) == pytest.approx(pair_mi(p, 5, 2), abs=1e-15)


def test_long_range_conditional_depends_on_whole_past_and_nn_does_not():
    n = 12
    nn = past_dependence(boltzmann(nearest_neighbour_couplings(n, -1.0), 0.5), n)
    lr = past_dependence(boltzmann(power_law_couplings(n, -1.0, 1.5), 0.5), n)
    assert nn[0] > 0.1 and nn[1:].max() < 1e-12
    assert lr.min() > 1e-3  # every past spin matters
    assert np.all(np.diff(lr) < 0)  # and matters less the further back it is


def test_invalid_arguments():
    with pytest.raises(ValueError, match="n_spins"):
        configurations(30)
    with pytest.raises(ValueError, match="alpha"):
        power_law_couplings(5, 1.0, 0.0)
    with pytest.raises(ValueError, match="i and j"):
        pair_mi(boltzmann([1.0, 0.0], 1.0), 2, 2)
