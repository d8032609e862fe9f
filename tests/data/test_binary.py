import numpy as np
import pytest

from seqmi.data.binary import (
    _circulant_sample,
    binary_from_mi,
    binary_power_law,
    correlation_for_mi,
    repetitive_pairs,
    repetitive_pairs_mi,
    sign_mi,
)
from seqmi.info import mi_from_joint, two_point_mi_with_error


def test_eq46_matches_orthant_probabilities():
    # P(X1 > 0, X2 > 0) = 1/4 + arcsin(c) / (2 pi) for unit Gaussians with correlation c
    for c in (0.0, 0.1, 0.5, 0.9, 0.999):
        both = 0.25 + np.arcsin(c) / (2 * np.pi)
        joint = np.array([[both, 0.5 - both], [0.5 - both, both]])
        assert sign_mi(c) == pytest.approx(mi_from_joint(joint), abs=1e-14)
    assert sign_mi(1.0) == pytest.approx(np.log(2))
    assert sign_mi(-0.3) == sign_mi(0.3)
    # small-correlation expansion I(c) = 2 c^2 / pi^2 + o(c^2)
    assert sign_mi(1e-4) == pytest.approx(2e-8 / np.pi**2, rel=1e-6)


def test_correlation_for_mi_inverts_eq46():
    c = np.array([0.0, 1e-3, 0.2, 0.7, 0.99])
    # eq. 46 is a difference of O(1) terms: I is resolved to ~1e-16, i.e. c = pi sqrt(I/2)
    # to ~1e-8 near c = 0, and to ~1e-12 elsewhere
    np.testing.assert_allclose(correlation_for_mi(sign_mi(c)), c, rtol=1e-10, atol=3e-8)
    with pytest.raises(ValueError, match=r"\[0, ln 2\]"):
        correlation_for_mi([0.1, 0.7])


def test_power_law_design_is_reproduced_at_several_distances():
    A, gamma = 0.1, 0.5
    x = binary_power_law(6000, 160, A, gamma, seed=1, method="cholesky")
    assert x.dtype == np.int8 and set(np.unique(x)) == {0, 1}
    lags = np.array([1, 2, 10, 100])
    est, se = two_point_mi_with_error(x, 100, n_batches=20)
    # rows are independent, so batch means give honest standard errors; the Grassberger
    # bias for two symbols and ~4e5 pairs is far below them
    z = (est[lags - 1] - A * lags ** (-gamma)) / se[lags - 1]
    assert np.all(np.abs(z) < 5), z


def test_samplers_agree():
    design = lambda d: 0.2 * np.asarray(d, float) ** -0.4  # noqa: E731
    n, length = 20000, 48
    rng = np.random.default_rng(0)
    gauss = _circulant_sample(design, n, length, rng)
    # the circulant samples have the designed Gaussian covariance: entries of an empirical
    # covariance of n samples scatter with s.d. <= sqrt(2 / n) = 0.01
    from scipy.linalg import toeplitz
    target = toeplitz(np.concatenate([[1.0], correlation_for_mi(design(np.arange(1, length)))]))
    assert np.abs(np.cov(gauss, rowvar=False) - target).max() < 0.05
    # and the two samplers give the same pair statistics within sampling error
    a = binary_from_mi(design, n, length, seed=1, method="cholesky")
    b = binary_from_mi(design, n, length, seed=2, method="circulant")
    ea, sa = two_point_mi_with_error(a, 40)
    eb, sb = two_point_mi_with_error(b, 40)
    assert np.all(np.abs(ea - eb) < 5 * np.hypot(sa, sb))
    assert abs(a.mean() - 0.5) < 0.01 and abs(b.mean() - 0.5) < 0.01


def test_long_sequences_use_circulant_embedding():
    x = binary_power_law(4, 1 << 14, 0.1, 0.8, seed=0)  # "auto" -> circulant
    assert x.shape == (4, 1 << 14)
    assert abs(x.mean() - 0.5) < 0.05


def test_unrealisable_design_fails_clearly():
    # c(1) = 0.9, c(d >= 2) = 0: the 3x3 correlation matrix has eigenvalue 1 - 0.9 sqrt(2) < 0
    design = lambda d: np.where(np.asarray(d) == 1, sign_mi(0.9), 0.0)  # noqa: E731
    with pytest.raises(ValueError, match="not realisable"):
        binary_from_mi(design, 2, 10, seed=0, method="cholesky")
    with pytest.warns(RuntimeWarning, match="Cholesky"), pytest.raises(ValueError, match="not realisable"):
        binary_from_mi(design, 2, 10, seed=0, method="circulant")


def test_bad_parameters():
    with pytest.raises(ValueError, match="A must be in"):
        binary_power_law(2, 10, 0.8, 0.5, seed=0)
    with pytest.raises(ValueError, match="gamma must be in"):
        binary_power_law(2, 10, 0.1, 0.0, seed=0)
    with pytest.raises(ValueError, match="method must be one of"):
        binary_power_law(2, 10, 0.1, 0.5, seed=0, method="svd")
    with pytest.raises(ValueError, match="p must be in"):
        repetitive_pairs(2, 10, 1.5, seed=0)


def test_repetitive_pairs_structure_and_exact_mi():
    x = repetitive_pairs(3, 11, 0.3, seed=0)
    assert x.shape == (3, 11)
    assert np.all(x[:, 0:10:2] + x[:, 1:10:2] == 1)
    for p in (0.1, 0.3, 0.5, 0.8):
        s, r = (p**2 + (1 - p) ** 2) / 2, p * (1 - p)
        # eq. 52 against the joint table (49)-(51) it was derived from
        assert repetitive_pairs_mi(p, [2, 7])[0] == pytest.approx(mi_from_joint([[s, r], [r, s]]), abs=1e-14)
        assert repetitive_pairs_mi(p, [2, 7])[1] == pytest.approx(mi_from_joint([[r, s], [s, r]]), abs=1e-14)
    assert repetitive_pairs_mi(0.0, [1, 5]) == pytest.approx([np.log(2), np.log(2)])


def test_repetitive_pairs_estimate_matches_exact():
    p = 0.3
    x = repetitive_pairs(4000, 200, p, seed=3)
    est, se = two_point_mi_with_error(x, 50)
    exact = repetitive_pairs_mi(p, np.arange(1, 51))
    # odd lags see slightly more even than odd starting points (a 1/(L - tau) effect,
    # below 1e-4 nats here); the rest is sampling noise
    assert np.all(np.abs(est - exact) < 5 * se + 1e-4)
