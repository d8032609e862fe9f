"""Theorem 2 on generic sparse patterns (seqmi.theory.sparse_patterns)."""

import numpy as np
import pytest
import torch

from seqmi.theory.sparse_patterns import (RandomSparsePattern, SlidingWindowPattern, dependency_depths,
                                          log_path_bounds, pattern_linear_norms, survey)

LAMS = [0.4, 0.3, -0.4]


def autograd_norms(lams, attended, t, T):
    """The same linear model written as a plain torch loop, differentiated by autograd."""
    V = torch.diag(torch.tensor(lams, dtype=torch.float64))
    out = []
    for m_end in range(t, T):
        def s_end(h_t, m_end=m_end):
            h = {t: h_t}
            for m in range(t, m_end + 1):
                hm = h.get(m, torch.zeros_like(h_t))
                s = hm + sum(h.get(i, torch.zeros_like(h_t)) for i in attended(m)) / len(attended(m))
                h[m + 1] = V @ s
            return s
        jac = torch.autograd.functional.jacobian(s_end, torch.zeros(len(lams), dtype=torch.float64))
        out.append(float(torch.linalg.norm(jac)))
    return np.array(out)


@pytest.mark.parametrize("pattern", [RandomSparsePattern(3, 40, seed=1), SlidingWindowPattern(4)])
def test_exact_norms_against_autograd(pattern):
    np.testing.assert_allclose(pattern_linear_norms(LAMS, pattern.attended, 5, 40),
                               autograd_norms(LAMS, pattern.attended, 5, 40), rtol=1e-12)


def test_random_pattern_draws():
    pat = RandomSparsePattern(4, 50, seed=(0, 4, 1))
    for m in range(50):
        idx = pat.attended(m)
        assert m in idx and len(idx) == min(4, m + 1) and max(idx) == m and len(set(idx)) == len(idx)
    assert pat.attended(30) == RandomSparsePattern(4, 50, seed=(0, 4, 1)).attended(30)
    assert any(pat.attended(m) != RandomSparsePattern(4, 50, seed=(0, 4, 2)).attended(m) for m in range(10, 50))
    with pytest.raises(ValueError, match="m"):
        pat.attended(50)


@pytest.mark.parametrize("kappa", [2, 3, 5])
def test_window_depth_is_one_hop_per_window(kappa):
    window = SlidingWindowPattern(kappa)
    k = np.arange(200)
    np.testing.assert_array_equal(dependency_depths(window.attended, 7, 207), k // kappa + 1)


def test_log_norms_continue_where_plain_norms_underflow():
    window = SlidingWindowPattern(2)
    plain = pattern_linear_norms(LAMS, window.attended, 0, 3000)
    logged = pattern_linear_norms(LAMS, window.attended, 0, 3000, log=True)
    ok = plain > 1e-140  # below about 1e-154 the squares in the plain norm underflow
    np.testing.assert_allclose(logged[ok], np.log(plain[ok]), rtol=1e-10)
    assert not ok.all() and np.all(np.isfinite(logged)) and np.all(np.diff(logged[-100:]) < 0)


@pytest.mark.parametrize("kind", ["random", "window"])
def test_theorem2_bound_holds_with_the_measured_depth(kind):
    result = survey(kind, 3, LAMS, 600, n_patterns=5)
    assert result["min_log_margin"] >= 0.0
    assert result["log_norms"].shape == result["depths"].shape == (5 if kind == "random" else 1, 590)


def test_bound_needs_a_positive_eigenvalue_and_known_kind():
    with pytest.raises(ValueError, match="positive eigenvalue"):
        log_path_bounds([1, 2], 3, -0.4)
    with pytest.raises(ValueError, match="kind"):
        survey("dilated", 3, LAMS, 100)
    with pytest.raises(ValueError, match="kappa"):
        SlidingWindowPattern(1)
