import numpy as np
import pytest

from seqmi.data.markov import binary_symmetric_chain
from seqmi.info import entropy, mi_from_joint, two_point_mi, two_point_mi_with_error
from seqmi.theory.markov import bsc_two_point_mi


def test_plugin_entropy_exact_cases():
    assert entropy(np.array([5, 5, 5, 5]), "plugin") == pytest.approx(np.log(4))
    assert entropy(np.array([0, 9, 0]), "plugin") == 0.0


def test_mi_from_joint_exact_cases():
    assert mi_from_joint(np.eye(2) / 2) == pytest.approx(np.log(2))
    assert mi_from_joint(np.full((3, 4), 1 / 12)) == pytest.approx(0.0, abs=1e-15)


def test_pairs_never_cross_rows():
    # each row is constant, rows alternate: within rows x_t = x_{t+1} always
    rows = np.repeat(np.array([[0], [1]] * 50), 20, axis=1)
    for method in ("bincount", "loop", "fft"):
        assert two_point_mi(rows, 3, "plugin", method=method) == pytest.approx([np.log(2)] * 3)


def test_plugin_two_point_mi_on_markov_chain():
    x = binary_symmetric_chain(2000, 300, 0.1, seed=3)
    est, se = two_point_mi_with_error(x, 10, n_batches=10, estimator="plugin")
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


# ---- bias-corrected estimators and fast counting -------------------------------------

from scipy.special import digamma  # noqa: E402

from seqmi.info import grassberger_g, mi_from_counts  # noqa: E402
from seqmi.pair_counts import choose_method, lagged_pair_counts  # noqa: E402


def _naive_two_point_mi(x, max_lag, estimator):
    """Reference: per lag, count pairs with a dict and apply the textbook formulas."""
    x = np.atleast_2d(x)

    def h(counts):
        n = np.array(list(counts.values()), dtype=float)
        f = {"plugin": np.log, "psi": digamma, "grassberger": grassberger_g}[estimator](n)
        return np.log(n.sum()) - (n * f).sum() / n.sum()

    out = []
    for lag in range(1, max_lag + 1):
        pa, pb, pj = {}, {}, {}
        for row in x:
            for s, t in zip(row[:-lag].tolist(), row[lag:].tolist()):
                pa[s] = pa.get(s, 0) + 1
                pb[t] = pb.get(t, 0) + 1
                pj[s, t] = pj.get((s, t), 0) + 1
        out.append(h(pa) + h(pb) - h(pj))
    return np.array(out)


def test_grassberger_g_known_values():
    # values quoted with the 2003 form in the estimator notes
    np.testing.assert_allclose(grassberger_g([1, 2, 3, 10]), [-1.2704, 0.7296, 0.7296, 2.3042], atol=1e-4)
    # G(n) = psi(n) + (-1)^n int_0^1 t^(n-1)/(1+t) dt
    from scipy.integrate import quad
    for n in (1, 2, 5, 8):
        integral = quad(lambda t: t ** (n - 1) / (1 + t), 0, 1)[0]
        assert grassberger_g(n) == pytest.approx(digamma(n) + (-1) ** n * integral, rel=1e-10)
    # G(n) -> ln n: the estimator becomes the plug-in for large counts
    assert grassberger_g(10**6) == pytest.approx(np.log(10**6), abs=1e-6)
    with pytest.raises(ValueError, match=">= 1"):
        grassberger_g([0, 1])


def test_entropy_estimators_closed_forms():
    counts = np.array([3, 1, 0])
    assert entropy(counts, "plugin") == pytest.approx(-(0.75 * np.log(0.75) + 0.25 * np.log(0.25)))
    assert entropy(counts, "psi") == pytest.approx(np.log(4) - (3 * digamma(3) + digamma(1)) / 4)
    assert entropy(counts, "grassberger") == pytest.approx(
        np.log(4) - (3 * grassberger_g(3)[()] + grassberger_g(1)[()]) / 4)
    # the default is Grassberger; counts beyond the lookup table use the direct formula
    big = np.array([70_000, 123_456, 5])
    direct = np.log(big.sum()) - (big * grassberger_g(big)).sum() / big.sum()
    assert entropy(big) == pytest.approx(direct, rel=1e-13)
    # uniform and deterministic distributions at large N: all estimators agree with the truth
    for est in ("plugin", "psi", "grassberger"):
        assert entropy(np.full(4, 10**6), est) == pytest.approx(np.log(4), abs=1e-6)
        assert entropy(np.array([0, 10**7, 0]), est) == pytest.approx(0.0, abs=1e-6)


def test_bias_corrections_on_uniform_samples():
    # 20 draws from 8 equiprobable symbols, averaged over 4000 repetitions: the standard
    # error of each mean is ~0.004 nats. The plug-in misses by about -(K-1)/(2N) = -0.175;
    # both corrections remove most of it (on uniform data psi and Grassberger are close,
    # so no order between those two is asserted)
    rng = np.random.default_rng(0)
    counts = np.stack([np.bincount(rng.integers(0, 8, 20), minlength=8) for _ in range(4000)])
    bias = {est: np.mean([entropy(c, est) for c in counts]) - np.log(8) for est in ESTIMATORS}
    assert bias["plugin"] == pytest.approx(-0.175, abs=0.03)
    assert abs(bias["psi"]) < abs(bias["plugin"]) / 4
    assert abs(bias["grassberger"]) < abs(bias["plugin"]) / 4


from seqmi.info import ESTIMATORS  # noqa: E402


@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_two_point_mi_matches_naive_reference(estimator):
    rng = np.random.default_rng(5)
    x = rng.integers(0, 4, (6, 60)) * 7 + 3  # sparse symbol values, several rows
    expected = _naive_two_point_mi(x, 12, estimator)
    for method in ("bincount", "loop", "fft"):
        np.testing.assert_allclose(two_point_mi(x, 12, estimator, method=method), expected, rtol=1e-10, atol=1e-12)
    one = rng.integers(0, 3, 200)
    np.testing.assert_allclose(two_point_mi(one, 30, estimator), _naive_two_point_mi(one, 30, estimator),
                               rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("shape, k, max_lag", [
    ((7, 300), 2, 299),     # whole rows, one window each
    ((1, 20_000), 3, 700),  # one long row split into overlapping windows
    ((3, 9_000), 9, 1000),  # several long rows: windows never cross rows
    ((40, 64), 5, 1),
])
def test_fft_counts_equal_bincount_counts(shape, k, max_lag):
    rng = np.random.default_rng(k)
    # skewed symbol frequencies, so that the dropped reference symbol is not symbol 0
    x = rng.choice(np.arange(k) * 2, size=shape, p=np.arange(1, k + 1) / (k * (k + 1) / 2))
    a, sa = lagged_pair_counts(x, max_lag, method="bincount")
    b, sb = lagged_pair_counts(x, max_lag, method="fft", device="cpu")
    c, _ = lagged_pair_counts(x, max_lag, method="loop")
    np.testing.assert_array_equal(sa, np.arange(k) * 2)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)
    assert a.shape == (max_lag, k, k)
    assert np.all(a.sum(axis=(1, 2)) == shape[0] * (shape[1] - np.arange(1, max_lag + 1)))


def test_large_alphabet_uses_sparse_counts():
    rng = np.random.default_rng(2)
    x = rng.integers(0, 300, 3000) * 1000  # 300 symbols: K^2 too large for dense tables
    assert choose_method(1, 3000, 300, 5) == "bincount"
    np.testing.assert_allclose(two_point_mi(x, 5, "plugin"), _naive_two_point_mi(x, 5, "plugin"), rtol=1e-10)


def test_choose_method():
    assert choose_method(10_000, 1000, 2, 500) == "fft"  # binary, many lags
    assert choose_method(1, 2_000_000, 60, 1000) == "loop"  # 60^2 cross-spectra cost more than a pass per lag
    assert choose_method(1, 2_000_000, 60, 3) == "loop"  # few lags: per-lag counting is cheaper
    assert choose_method(1, 10_000, 1, 10) == "loop"
    assert choose_method(1, 10_000, 200, 10) == "bincount"  # K^2 too large for dense tables


def test_loop_counts_large_alphabets_and_rejects_huge_ones():
    rng = np.random.default_rng(5)
    x = rng.integers(0, 120, (4, 3000))
    np.testing.assert_array_equal(lagged_pair_counts(x, 30, method="loop")[0],
                                  lagged_pair_counts(x, 30, method="bincount")[0])
    with pytest.raises(ValueError, match="method='loop' keeps dense K x K tables: K = 300"):
        lagged_pair_counts(rng.integers(0, 300, 3000), 5, method="loop")


def test_deterministic_sequences():
    const = np.zeros((5, 50), dtype=np.int64)
    periodic = np.tile([0, 1], (400, 25))
    for est in ESTIMATORS:
        # all three count vectors are [N]: I = H([N]) - which is 0 for the plug-in and
        # ln N - f(N) ~ 1/(2N) for the corrected estimators
        n_pairs = 5 * (50 - np.arange(1, 11))
        expected = [entropy(np.array([n]), est) for n in n_pairs]
        np.testing.assert_allclose(two_point_mi(const, 10, est), expected, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(two_point_mi(const, 10, "plugin"), 0.0)
    # x_{t+tau} is a one-to-one function of x_t: the joint counts are the marginal counts,
    # so I = H(first members) exactly, and -> ln 2 for large N
    for est in ESTIMATORS:
        expected = [entropy(np.bincount(periodic[:, :-lag].ravel()), est) for lag in range(1, 6)]
        got = two_point_mi(periodic, 5, est)
        np.testing.assert_allclose(got, expected, rtol=1e-12)
        np.testing.assert_allclose(got, np.log(2), atol=5e-4)


def test_iid_uniform_grassberger_is_nearly_unbiased():
    # 4 symbols, 10^5 pairs per lag: the plug-in bias is (K-1)^2/(2N) = 4.5e-5 nats;
    # Grassberger removes it to within the sampling noise (~1e-5 per lag, averaged over 20)
    x = np.random.default_rng(4).integers(0, 4, (100, 1020))
    plug = two_point_mi(x, 20, "plugin").mean()
    grass = two_point_mi(x, 20).mean()
    assert plug == pytest.approx(9 / (2 * 100_000), rel=0.3)
    assert abs(grass) < 1.5e-5


@pytest.mark.parametrize("estimator", ["psi", "grassberger"])
def test_bias_corrected_two_point_mi_on_markov_chain(estimator):
    x = binary_symmetric_chain(2000, 300, 0.1, seed=3)
    est, se = two_point_mi_with_error(x, 10, n_batches=10, estimator=estimator)
    exact = bsc_two_point_mi(0.1, np.arange(1, 11))
    # residual bias of both corrected estimators is O(1/N^2) for K = 2, N ~ 6e5 pairs
    assert np.all(np.abs(est - exact) < 5 * se)


def test_mi_from_counts_and_errors():
    joint = np.array([[[5, 0], [0, 5]], [[3, 2], [2, 3]]])
    out = mi_from_counts(joint, "plugin")
    assert out[0] == pytest.approx(np.log(2))
    assert mi_from_counts(joint[0], "plugin") == pytest.approx(np.log(2))
    with pytest.raises(ValueError, match="at least one pair"):
        mi_from_counts(np.zeros((2, 2), dtype=int))
    with pytest.raises(ValueError, match="estimator must be one of"):
        two_point_mi([0, 1, 0, 1], 1, "miller")
    with pytest.raises(ValueError, match="method must be one of"):
        two_point_mi([0, 1, 0, 1], 1, method="gpu")
    with pytest.raises(ValueError, match="non-empty 1-D"):
        entropy(np.ones((2, 2), dtype=int))


def test_dit_oracle_for_grassberger():
    dit_est = pytest.importorskip("dit.inference.estimators")
    rng = np.random.default_rng(9)
    # many small counts, where G(n) differs most from ln n
    data = rng.choice(12, size=60, p=np.arange(1, 13) / 78)
    counts = np.bincount(data)
    counts = counts[counts > 0]
    n = counts.sum()
    # dit's entropy_2 (bits) is psi(N) - (1/N) sum n G(n): the same G(n), with psi(N) for ln N
    dit_nats = dit_est.entropy_2(data.tolist()) * np.log(2)
    assert entropy(counts) == pytest.approx(dit_nats + np.log(n) - digamma(n), abs=1e-10)


def test_torch_transform_path_on_cpu_tensors(monkeypatch):
    # a GPU runs the FFT path with torch.fft; the same code on CPU tensors must count alike
    import seqmi.pair_counts as counting

    rng = np.random.default_rng(11)
    for shape, k, max_lag in (((4, 500), 2, 200), ((1, 6000), 5, 300)):
        x = rng.integers(0, k, shape)
        expected = lagged_pair_counts(x, max_lag, method="bincount")[0]
        monkeypatch.setattr(counting, "_TORCH_FFT_ON_CPU", True)
        np.testing.assert_array_equal(lagged_pair_counts(x, max_lag, method="fft", device="cpu")[0], expected)
        monkeypatch.setattr(counting, "_TORCH_FFT_ON_CPU", False)


# ---------------------------------------------------------------- bootstrap over rows

from seqmi.info import two_point_mi_bootstrap  # noqa: E402


def test_bootstrap_replicates_spread_like_independent_samples():
    x = binary_symmetric_chain(2000, 300, 0.1, seed=3)
    est, reps = two_point_mi_bootstrap(x, 10, n_boot=300, n_blocks=100, seed=1)
    assert np.array_equal(est, two_point_mi(x, 10)) and reps.shape == (300, 10)
    # the spread of estimates over fresh chains of the same size, which the bootstrap must match
    fresh = np.stack([two_point_mi(binary_symmetric_chain(2000, 300, 0.1, seed=s), 10) for s in range(10, 40)])
    ratio = reps.std(axis=0) / fresh.std(axis=0)
    # 30 fresh samples estimate a standard deviation to about +-13%, so a ratio outside 0.6-1.6 is a fault
    assert np.all((0.6 < ratio) & (ratio < 1.6)), ratio
    exact = bsc_two_point_mi(0.1, np.arange(1, 11))
    lo, hi = np.percentile(reps, [0.5, 99.5], axis=0)
    assert np.all((lo < exact) & (exact < hi))


def test_bootstrap_is_seeded_and_checks_its_input():
    x = binary_symmetric_chain(50, 40, 0.2, seed=0)
    a, b = two_point_mi_bootstrap(x, 5, 20, 10, seed=7)[1], two_point_mi_bootstrap(x, 5, 20, 10, seed=7)[1]
    assert np.array_equal(a, b) and not np.array_equal(a, two_point_mi_bootstrap(x, 5, 20, 10, seed=8)[1])
    with pytest.raises(ValueError, match="n_blocks must be in"):
        two_point_mi_bootstrap(x, 5, 20, 51)
    with pytest.raises(ValueError, match="n_boot"):
        two_point_mi_bootstrap(x, 5, 0, 10)
    wide = np.random.default_rng(0).integers(0, 2000, (4, 600))
    with pytest.raises(ValueError, match="keep .* counts"):
        two_point_mi_bootstrap(wide, 500, 200, 4)


def test_two_point_jackknife_replicates_leave_one_block_out():
    from seqmi.info import two_point_mi_jackknife

    rows = np.random.default_rng(3).integers(0, 3, size=(12, 400))
    estimate, jack = two_point_mi_jackknife(rows, 5, n_blocks=4)
    assert np.allclose(estimate, two_point_mi(rows, 5))
    assert jack.shape == (4, 5)
    for j, drop in enumerate(np.array_split(np.arange(12), 4)):
        assert np.allclose(jack[j], two_point_mi(np.delete(rows, drop, axis=0), 5))
    with pytest.raises(ValueError, match="n_blocks"):
        two_point_mi_jackknife(rows, 5, n_blocks=13)
