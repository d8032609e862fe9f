import numpy as np
import pytest
import sympy as sp
import torch

from seqmi.models.attentive_rnn import AttentiveRNN, RelevancyAttention, SparseAttention, autograd_jacobians
from seqmi.theory import attention_grad as ag

KINDS = ["none", "uniform", "full", SparseAttention(3, 2, start=2, gap=3), RelevancyAttention(3, 2)]


@pytest.mark.parametrize("attention", KINDS)
@pytest.mark.parametrize("nonlinearity", ["tanh", "linear"])
@pytest.mark.parametrize("combine", ["sum", "mean"])
def test_recursion_equals_autograd(attention, nonlinearity, combine):
    rng = np.random.default_rng(3)
    torch.manual_seed(3)
    model = AttentiveRNN(3, 5, attention, nonlinearity=nonlinearity, combine=combine,
                         recurrent_weight=rng.normal(size=(5, 5)) / 2, dtype=torch.float64)
    x = rng.normal(size=(14, 3))
    auto = autograd_jacobians(model, x, 3)
    scale = np.abs(auto).max()
    for method in ("direct", "paths"):
        rec = ag.recursion_jacobians(model, x, 3, method=method)
        assert np.abs(rec - auto).max() <= 1e-10 * scale


def test_path_sums_match_tuple_enumeration():
    rng = np.random.default_rng(0)
    torch.manual_seed(0)
    model = AttentiveRNN(2, 3, "full", recurrent_weight=rng.normal(size=(3, 3)), dtype=torch.float64)
    with torch.no_grad():
        tr = model(torch.as_tensor(rng.normal(size=(9, 2)))[None], trace=True)[2]
    E, F = ag.blocks(model, tr, 1)
    terms = ag.degree_terms(E, F)
    for k in range(1, 7):
        for s in range(k + 1):
            np.testing.assert_allclose(ag.xi_bruteforce(E, F, k, s), terms[s, k], atol=1e-13)


@pytest.mark.parametrize("s", range(1, 7))
def test_w_identities_symbolic(s):
    w = ag.w_polynomial(s)
    assert sp.expand(w - ag.w_lemma9(s)) == 0
    assert sp.expand(w - ag.w_proposition3(s)) == 0
    for t, k in ((1, 8), (3, 10)):
        assert ag.evaluate_w(w, t, k, s) == sp.Rational(*ag.w_bruteforce(t, k, s).as_integer_ratio())


def test_printed_w4_is_off_and_delta_values():
    S1, S2, S3, S4 = ag.power_sum_symbols(4)
    assert ag.delta0(2) == -S2 / 2 and ag.delta0(3) == S3 / 3
    assert sp.expand(ag.delta0(4) + S4 / 4 + S2**2 / 8) == 0
    assert sp.expand(ag.w4_as_printed() - ag.w_polynomial(4) - (S4 - S2**2) / 8) == 0


def test_lemma10_and_11_bounds():
    for k in (12, 60, 300):
        for s in range(1, 5):
            lo, th, up = ag.lemma10_bounds(2, k, s)
            assert lo <= th * (1 + 1e-12) and th <= up * (1 + 1e-12)
            lo, chi, up = ag.lemma11_bounds(2, k, s)
            assert lo <= chi * (1 + 1e-12) and chi <= up * (1 + 1e-12)


def test_uniform_chi_is_the_polynomial_in_lambda():
    lam = 0.37
    chi = ag.uniform_chi(1, 30, 30)
    # t = 1 (1-based) is state 0 in code
    exact = ag.uniform_scalar_response([lam], 0, 31)[0].real
    np.testing.assert_allclose((chi * lam ** np.arange(31)[:, None]).sum(0), exact, rtol=1e-12)


def test_uniform_recursions_agree_with_autograd():
    lams = np.array([0.6, -0.3, 0.1])
    model = AttentiveRNN(1, 3, "uniform", nonlinearity="linear", recurrent_weight=np.diag(lams), dtype=torch.float64)
    auto = autograd_jacobians(model, np.zeros((40, 1)), 4)
    fast = ag.uniform_scalar_response(lams, 4, 40).real
    np.testing.assert_allclose(np.einsum("kii->ki", auto), fast.T, rtol=1e-12)
    np.testing.assert_allclose(ag.uniform_matrix_norms(np.diag(lams), 4, 40), np.linalg.norm(auto, axis=(1, 2)),
                               rtol=1e-12)


def test_derived_exponent():
    der = ag.derive_uniform_exponent()
    lam = sp.Symbol("lambda")
    assert sp.simplify(der["p"] - lam / (1 - lam)) == 0
    assert sp.simplify(der["jacobian_prefactor"] - 1 / (1 - lam)) == 0


SPECTRA = [[-0.6], [0.0], [0.3], [0.5], [0.7], [0.3, -0.5, 0.1], [0.45, 0.2, -0.8]]


@pytest.mark.parametrize("spectrum", SPECTRA)
def test_fitted_uniform_exponent_matches_derivation(spectrum):
    norms = np.sqrt((np.abs(ag.uniform_scalar_response(spectrum, 0, 4000)) ** 2).sum(0))
    T = np.arange(1, 4001.0)
    fit = ag.fit_decay_exponent(T[400:], norms[400:])
    assert abs(fit - ag.exact_exponent(spectrum)) < 0.05


def test_non_normal_exponent():
    rng = np.random.default_rng(1)
    Q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    V = Q @ np.array([[0.4, 3.0, -2.0], [0, -0.3, 4.0], [0, 0, 0.1]]) @ Q.T
    norms = ag.uniform_matrix_norms(V, 0, 4000)
    T = np.arange(1, 4001.0)
    assert abs(ag.fit_decay_exponent(T[400:], norms[400:]) - ag.exact_exponent(np.linalg.eigvals(V))) < 0.05


def test_supplement_exponent_is_first_order_of_exact():
    for lam in (-0.5, 0.0, 0.2):
        assert ag.supplement_exponent([lam]) == pytest.approx(min(1.0, 1 - lam))
    assert ag.exact_exponent([0.0]) == pytest.approx(1.0)
    assert ag.exact_exponent([0.5]) == pytest.approx(0.0)


@pytest.mark.parametrize("kappa,depth", [(2, 1), (3, 2), (4, 3), (6, 2)])
def test_sparse_norm_stays_above_bound(kappa, depth):
    lams = [0.5, 0.3, -0.4]
    pat = SparseAttention(kappa, depth, gap=8)
    norms = ag.sparse_linear_norms(lams, pat, 2000)
    assert norms.min() >= ag.sparse_path_bound(kappa, depth, 0.5)
    assert norms[-1] == pytest.approx(norms[len(norms) // 2], rel=1e-9)


def test_sparse_recursion_matches_autograd():
    lams = [0.5, 0.3, -0.4]
    pat = SparseAttention(3, 2, gap=4)
    model = AttentiveRNN(1, 3, pat, nonlinearity="linear", recurrent_weight=np.diag(lams), dtype=torch.float64)
    auto = np.linalg.norm(autograd_jacobians(model, np.zeros((30, 1)), pat.first), axis=(1, 2))
    np.testing.assert_allclose(auto, ag.sparse_linear_norms(lams, pat, 30), rtol=1e-12)
