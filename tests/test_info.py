import numpy as np
import pytest

from seqmi.data.markov import binary_symmetric_chain
from seqmi.info import entropy, mi_from_joint, two_point_mi, two_point_mi_with_error
from seqmi.theory.markov import bsc_two_point_mi


def test_plugin_entropy_exact_cases():
    assert entropy(np.array([5, 5, 5, 5])) == pytest.approx(np.log(4))
    assert entropy(np.array([0, 9, 0])) == 0.0


def test_mi_from_joint_exact_cases():
    assert mi_from_joint(np.eye(2) / 2) == pytest.approx(np.log(2))
    assert mi_from_joint(np.full((3, 4), 1 / 12)) == pytest.approx(0.0, abs=1e-15)


def test_pairs_never_cross_rows():
    # each row is constant, rows alternate: within rows x_t = x_{t+1} always
    rows = np.repeat(np.array([[0], [1]] * 50), 20, axis=1)
    assert two_point_mi(rows, 3) == pytest.approx([np.log(2)] * 3)


def test_plugin_two_point_mi_on_markov_chain():
    x = binary_symmetric_chain(2000, 300, 0.1, seed=3)
    est, se = two_point_mi_with_error(x, 10, n_batches=10)
    exact = bsc_two_point_mi(0.1, np.arange(1, 11))
    assert np.all(np.abs(est - exact) < 5 * se + 1e-5)


@pytest.mark.parametrize("seqs, max_lag, match", [
    (np.array([], dtype=int), 1, "non-empty"),
    (np.array([1]), 1, "length >= 2"),
    (np.array([0, 1, 0]), 3, "max_lag must be in"),
    (np.array([0, -1, 0]), 1, "non-negative"),
    (np.array([0.0, 1.0, 0.0]), 1, "integer symbols"),
])
def test_two_point_mi_rejects_bad_input(seqs, max_lag, match):
    with pytest.raises(ValueError, match=match):
        two_point_mi(seqs, max_lag)


def test_entropy_and_joint_reject_bad_input():
    with pytest.raises(ValueError, match="non-negative"):
        entropy(np.array([1, -1]))
    with pytest.raises(ValueError, match="sum to 1"):
        mi_from_joint(np.ones((2, 2)))


def test_gaussian_mi_bivariate_and_large_blocks():
    from seqmi.info import gaussian_mi

    rho = 0.6
    assert gaussian_mi([[1, rho], [rho, 1]], [0], [1]) == pytest.approx(-0.5 * np.log(1 - rho**2))
    # AR(1) with coefficient a: past and future share exactly the boundary, I = -ln(1 - a^2)/2
    a, n = 0.9, 3000
    idx = np.arange(n)
    cov = a ** np.abs(idx[:, None] - idx[None, :])
    assert gaussian_mi(cov, idx[: n // 2], idx[n // 2:]) == pytest.approx(-0.5 * np.log(1 - a**2), rel=1e-8)


def test_gaussian_mi_rejects_bad_input():
    from seqmi.info import gaussian_mi

    with pytest.raises(ValueError, match="overlap"):
        gaussian_mi(np.eye(3), [0, 1], [1, 2])
    with pytest.raises(ValueError, match="not positive definite"):
        gaussian_mi([[1, 2], [2, 1]], [0], [1])
    with pytest.raises(ValueError, match="symmetric"):
        gaussian_mi([[1, 0.5], [0.1, 1]], [0], [1])
    with pytest.raises(ValueError, match=r"idx_y must be a non-empty set of indices in \[0, 1\]"):
        gaussian_mi(np.eye(2), [0], [5])
