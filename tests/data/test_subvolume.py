"""Unit tests of the sub-volume Gaussian families (seqmi.data.subvolume)."""

import numpy as np
import pytest
from scipy import linalg

from seqmi.data.subvolume import SubvolumeGaussian
from seqmi.data.subvolume_mixing import MIXING
from seqmi.info import gaussian_mi

CASES = [(f, op) for f in ("subvolume", "logarithmic") for op in ("mix", "overwrite")]


def test_mixing_matrix_rows_unit_norm_and_correlation_minus_quarter():
    gram = MIXING @ MIXING.T
    np.testing.assert_allclose(np.diag(gram), 1.0, atol=1e-15)
    np.testing.assert_allclose(gram[~np.eye(4, dtype=bool)], -0.25, atol=1e-15)


@pytest.mark.parametrize("family,op", CASES)
def test_covariance_is_a_correlation_matrix_and_positive_definite(family, op):
    cov = SubvolumeGaussian(4, family, pair_op=op).covariance()
    np.testing.assert_allclose(np.diag(cov), 1.0, atol=1e-12)
    np.testing.assert_allclose(cov, cov.T, atol=0)
    assert np.linalg.eigvalsh(cov).min() > 0.1
    # reversal symmetry, which bipartite_mi uses for equal splits
    np.testing.assert_allclose(cov[::-1, ::-1], cov, atol=1e-15)


@pytest.mark.parametrize("family", ["subvolume", "logarithmic"])
def test_reference_values_of_the_notes(family):
    # per-copy bipartite MI at L = 4 ... 1024 with the default reading (b), as measured
    # independently with a dense construction (three decimals)
    expected = {"subvolume": [0.294, 0.932, 2.863, 8.65, 26.01],
                "logarithmic": [0.294, 0.355, 0.406, 0.456, 0.506]}[family]
    got = [SubvolumeGaussian(k, family).bipartite_mi() for k in range(1, 6)]
    np.testing.assert_allclose(got, expected, atol=6e-3)


@pytest.mark.parametrize("family,op", CASES)
def test_blocks_entries_and_logdet_agree_with_the_dense_matrix(family, op):
    sg = SubvolumeGaussian(4, family, pair_op=op)
    cov = sg.covariance()
    for lo, hi in [(0, 128), (128, 256), (1, 255), (3, 5), (100, 101)]:
        np.testing.assert_allclose(sg.covariance_block(lo, hi), cov[lo:hi, lo:hi], atol=1e-14)
    for i, j in [(0, 255), (3, 4), (7, 8), (17, 200), (255, 254)]:
        assert sg.correlation(i, j) == pytest.approx(cov[i, j], abs=1e-14)
    assert sg.logdet() == pytest.approx(np.linalg.slogdet(cov)[1], abs=1e-10)


@pytest.mark.parametrize("family,op", CASES)
def test_bipartite_mi_agrees_with_gaussian_mi(family, op):
    sg = SubvolumeGaussian(4, family, copies=3, pair_op=op)
    cov = sg.covariance()
    for ell in (1, 37, 128, 255):
        dense = gaussian_mi(cov, np.arange(ell), np.arange(ell, 256))
        assert sg.bipartite_mi(ell) == pytest.approx(3 * dense, rel=1e-10, abs=1e-12)


@pytest.mark.parametrize("family,op", CASES)
def test_bipartite_mi_splits_agree_with_gaussian_mi(family, op):
    # unequal splits L/ell = 3, 4 (and others) from one Cholesky factor against the dense formula
    sg = SubvolumeGaussian(4, family, copies=2, pair_op=op)
    cov = sg.covariance()
    ells = [85, 64, 128, 1, 200, 255, 171]
    got = sg.bipartite_mi_splits(ells)
    for ell, value in zip(ells, got):
        dense = gaussian_mi(cov, np.arange(ell), np.arange(ell, 256))
        assert value == pytest.approx(2 * dense, rel=1e-10, abs=1e-12)
    assert got[2] == pytest.approx(sg.bipartite_mi(), rel=1e-12)


@pytest.mark.parametrize("ell", [1, 5, 21])
def test_bipartite_mi_splits_at_every_small_length(ell):
    for k in range(2, 4):
        sg = SubvolumeGaussian(k, "logarithmic")
        if ell < sg.length:
            dense = gaussian_mi(sg.covariance(), np.arange(ell), np.arange(ell, sg.length))
            assert sg.bipartite_mi_splits([ell])[0] == pytest.approx(dense, rel=1e-10)


@pytest.mark.parametrize("ratio", [3, 4])
def test_unequal_splits_also_triple_per_layer(ratio):
    # a cut at a fixed fraction of layer k cuts the three copies of layer k-1 at the same
    # fraction (up to one row): I_k = 3 I_(k-1) + O(1), so the ratio tends to 3
    mi = np.array([SubvolumeGaussian(k).bipartite_mi_splits([(4 ** k + ratio // 2) // ratio])[0]
                   for k in range(3, 7)])
    dev = np.abs(mi[1:] / mi[:-1] - 3.0)
    assert dev[-1] < 0.03 and np.all(np.diff(dev) < 0)


def test_logarithmic_family_slope_per_layer_same_for_halves_and_quarters():
    # both cuts fall on row boundaries at every level: the per-layer increments converge
    # to the same constant
    halves = np.array([SubvolumeGaussian(k, "logarithmic").bipartite_mi_splits([4 ** k // 2])[0] for k in (5, 6)])
    quarters = np.array([SubvolumeGaussian(k, "logarithmic").bipartite_mi_splits([4 ** k // 4])[0] for k in (5, 6)])
    assert np.diff(quarters)[0] == pytest.approx(np.diff(halves)[0], rel=0.01)


def test_bipartite_mi_ratio_tends_to_three():
    # each layer triples the bipartite MI of equal halves while L quadruples:
    # beta = log_4 3; within 1 % at the largest L of the test (4^6)
    mi = [SubvolumeGaussian(k).bipartite_mi() for k in range(4, 7)]
    ratios = np.array(mi[1:]) / np.array(mi[:-1])
    assert abs(ratios[-1] - 3.0) < 0.03
    assert abs(ratios[-1] - 3.0) < abs(ratios[0] - 3.0)


def test_logarithmic_family_grows_by_a_constant_per_layer():
    mi = np.array([SubvolumeGaussian(k, "logarithmic").bipartite_mi() for k in range(3, 7)])
    steps = np.diff(mi)
    np.testing.assert_allclose(steps, steps.mean(), rtol=0.02)


@pytest.mark.parametrize("family,sign", [("subvolume", -1.0), ("logarithmic", 1.0)])
def test_first_last_correlation_scales_by_five_sixteenths(family, sign):
    rho = [SubvolumeGaussian(k, family).correlation(0, 4 ** k - 1) for k in range(1, 9)]
    np.testing.assert_allclose(np.array(rho[1:]) / np.array(rho[:-1]), sign * 5 / 16, rtol=1e-12)
    assert rho[0] == pytest.approx(-0.25)


def test_two_point_mi_formula_and_copies():
    sg = SubvolumeGaussian(3, copies=5)
    rho = sg.correlation(2, 40)
    assert sg.two_point_mi(2, 40) == pytest.approx(-2.5 * np.log(1 - rho**2), rel=1e-13)
    with pytest.raises(ValueError):
        sg.two_point_mi(4, 4)


@pytest.mark.parametrize("family,op", CASES)
def test_sampler_covariance_matches(family, op):
    sg = SubvolumeGaussian(3, family, copies=2, pair_op=op)
    n = 100_000
    z = sg.sample(n // 2, seed=1)
    assert z.shape == (n // 2, 64, 2)
    flat = z.transpose(0, 2, 1).reshape(n, 64)  # copies are independent draws
    cov = sg.covariance()
    emp = flat.T @ flat / n
    # the sample covariance of Gaussians has standard error sqrt((1 + rho^2) / n);
    # 5.5 standard errors over 2,080 distinct entries
    se = np.sqrt((1 + cov**2) / n)
    assert np.abs((emp - cov) / se).max() < 5.5
    # copies are independent of each other
    cross = (z[:, :, 0].T @ z[:, :, 1]) / (n // 2)
    assert np.abs(cross).max() < 5.5 / np.sqrt(n // 2)


def test_sampling_is_deterministic_and_linear_in_length():
    sg = SubvolumeGaussian(5, copies=4)
    np.testing.assert_array_equal(sg.sample(3, seed=7), sg.sample(3, seed=7))
    # the layer maps consume exactly L normals per sequence and copy
    rng = np.random.default_rng(0)
    sg.sample(3, rng)
    assert rng.bit_generator.state == _advanced(3 * 4 * 4 ** 5)


def _advanced(count):
    rng = np.random.default_rng(0)
    rng.standard_normal(count)
    return rng.bit_generator.state


@pytest.mark.parametrize("op", ["mix", "overwrite"])
def test_conditionals_agree_with_dense_gaussian_conditioning(op):
    sg = SubvolumeGaussian(3, copies=2, pair_op=op)
    cov = sg.covariance()
    z = sg.sample(5, seed=3)
    mu, sigma = sg.conditionals(z)
    assert mu.shape == z.shape and sigma.shape == z.shape
    for i in (1, 5, 31, 63):
        gain = linalg.solve(cov[:i, :i], cov[:i, i])
        np.testing.assert_allclose(mu[:, i, :], np.einsum("j,njc->nc", gain, z[:, :i, :]), atol=1e-10)
        var = cov[i, i] - cov[:i, i] @ gain
        np.testing.assert_allclose(sigma[:, i, :], np.sqrt(var), rtol=1e-10)
    np.testing.assert_allclose(mu[:, 0], 0.0, atol=0)
    np.testing.assert_allclose(sigma[:, 0], 1.0, rtol=1e-12)


def test_conditionals_torch_matches_numpy():
    torch = pytest.importorskip("torch")
    sg = SubvolumeGaussian(3, copies=3)
    z = sg.sample(4, seed=0)
    mu, sigma = sg.conditionals(z)
    mu_t, sigma_t = sg.conditionals(torch.tensor(z))
    np.testing.assert_allclose(mu_t.numpy(), mu, atol=1e-12)
    np.testing.assert_allclose(sigma_t.numpy(), sigma, atol=1e-12)


def test_conditional_entropy_sums_to_joint_entropy():
    sg = SubvolumeGaussian(3, copies=2)
    joint = 2 * (0.5 * 64 * np.log(2 * np.pi * np.e) + 0.5 * sg.logdet())
    assert sg.conditional_entropy().sum() == pytest.approx(joint, rel=1e-12)


def test_invalid_arguments():
    with pytest.raises(ValueError, match="family"):
        SubvolumeGaussian(2, family="tree")
    with pytest.raises(ValueError, match="pair_op"):
        SubvolumeGaussian(2, pair_op="add")
    with pytest.raises(ValueError, match="layers"):
        SubvolumeGaussian(0)
    sg = SubvolumeGaussian(2)
    with pytest.raises(ValueError, match="ell"):
        sg.bipartite_mi(16)
    with pytest.raises(ValueError, match="ells"):
        sg.bipartite_mi_splits([3, 16])
    with pytest.raises(ValueError, match="ells"):
        sg.bipartite_mi_splits([])
    with pytest.raises(ValueError, match="shape"):
        sg.conditionals(np.zeros((2, 15, 1)))


def test_context_free_kl_is_the_information_from_the_past():
    # the marginal prediction's expected KL is I(z_i; z_<i) = H(z_i) - H(z_i | z_<i)
    dist = SubvolumeGaussian(3, copies=2)
    marginal_entropy = 0.5 * np.log(2 * np.pi * np.e * np.diag(dist.covariance()))
    expected = marginal_entropy - dist.conditional_entropy() / dist.copies
    np.testing.assert_allclose(dist.context_free_kl(), expected, rtol=1e-12, atol=1e-14)
    assert dist.context_free_kl()[0] == pytest.approx(0.0, abs=1e-12)
