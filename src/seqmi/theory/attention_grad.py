"""Gradient propagation in self-attentive RNNs: the decomposition and asymptotics of
Kerg et al. 2020 (supplement, Appendix A), computed exactly.

Three groups of tools:

- :func:`recursion_jacobians`: ``d s_{t+k} / d h_t`` from the E and F blocks of Lemmas 1-4 and
  Corollary 1, summed either by the recursion of Lemma 2 or as the degree-``s`` path sums
  ``xi_{0:k}(s)`` of Proposition 1 (checked against autograd in the tests).
- The combinatorics of A.3.2-A.3.4: the elementary symmetric sums ``w(s)`` of the factors
  ``1/(t+i)`` as polynomials in the power sums (Lemma 9, Proposition 3), brute-force sums
  over increasing index tuples, and the ``theta``/``chi`` bounds of Lemmas 10-12.
- Uniform attention with a linear recurrence (A.3): the exact Jacobians for long horizons,
  the supplement's predicted decay exponent, and the exact exponent derived from the
  one-dimensional recurrence with ``1/t`` coefficients.

Index conventions: in code states are numbered from 0, so step ``m`` has ``m + 1`` states
and uniform weights ``1/(m+1)``; the combinatorial functions use the supplement's 1-based
``t`` (factors ``1/(t+i)``, ``i = 0..k-1``).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from functools import lru_cache

import numpy as np
import sympy as sp
from numpy.typing import ArrayLike, NDArray

from seqmi._optional import require
from seqmi.validate import check_choice, check_int

# ---------------------------------------------------------------------------------------------
# The decomposition (Lemmas 1-4, Corollary 1, Proposition 1)
# ---------------------------------------------------------------------------------------------


def _model_arrays(model: object) -> dict[str, NDArray[np.float64]]:
    out = {}
    for name in ("V", "U_a", "W_a", "v_a"):
        if hasattr(model, name):
            out[name] = getattr(model, name).detach().cpu().numpy().astype(np.float64)
    return out


def blocks(model: object, trace: object, t: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The blocks ``E_k = d^partial s_{t+k} / d h_t`` and ``F_{k,j}`` of Corollary 1.

    ``F_{k,j}`` (``j < k``) multiplies ``C_j = d s_{t+j} / d h_t`` in
    ``C_k = E_k + sum_{j<k} F_{k,j} C_j`` (Lemma 2):
    ``F_{k,j} = d^partial s_{t+k} / d h_{t+j+1} J_{t+j} + 1_{j=k-1} d^partial s_{t+k} / d s_{t+k-1}``,
    with ``J_m = diag(phi'(pre_{m+1})) V``. The partial derivatives of ``s_m = a h_m + b c_m``
    are ``a 1_{j=m} I + b alpha_{j,m} (I + X_{j,m})`` (Lemma 6) and ``b sum_i alpha_{i,m} Y_{i,m}``
    (Lemma 5), with the score derivatives of Remark 5.

    Parameters
    ----------
    model : AttentiveRNN
        Provides ``V``, the score parameters, ``nonlinearity`` and the ``mix`` ``(a, b)``.
    trace : Trace
        From ``model(x, trace=True)``.
    t : int
        The state differentiated against.

    Returns
    -------
    E : ndarray, shape (K, n, n)
    F : ndarray, shape (K, K, n, n)   (zero for ``j >= k``)
    """
    p = _model_arrays(model)
    a, b = model.mix
    V = p["V"]
    h, s, pre = trace.h, trace.s, trace.pre
    T, n = h.shape
    check_int("t", t, 0, T - 1)
    K = T - t
    eye = np.eye(n)
    dphi = 1.0 - np.tanh(pre) ** 2 if model.nonlinearity == "tanh" else np.ones_like(pre)

    def partials(m: int) -> tuple[dict[int, NDArray[np.float64]], NDArray[np.float64]]:
        """``{j: d^partial s_m / d h_j}`` and ``d^partial s_m / d s_{m-1}``."""
        idx, alpha = trace.attended[m], trace.alpha[m]
        dh: dict[int, NDArray[np.float64]] = {m: a * eye}
        ds = np.zeros((n, n))
        if b == 0.0:
            return dh, ds
        if model.scored:
            s_prev = s[m - 1] if m > 0 else np.zeros(n)
            c = alpha @ h[idx]
            z = np.tanh(p["W_a"] @ s_prev + h[idx] @ p["U_a"].T)
            gv = (1.0 - z**2) * p["v_a"]          # rows: v * tanh' for each attended state
            de_dh, de_ds = gv @ p["U_a"], gv @ p["W_a"]
            for r, j in enumerate(idx):
                x_jm = np.outer(h[j] - c, de_dh[r])
                dh[j] = dh.get(j, 0.0) + b * alpha[r] * (eye + x_jm)
                ds += b * alpha[r] * np.outer(h[j] - c, de_ds[r])
        else:
            for r, j in enumerate(idx):
                dh[j] = dh.get(j, 0.0) + b * alpha[r] * eye
        return dh, ds

    E = np.zeros((K, n, n))
    F = np.zeros((K, K, n, n))
    for k in range(K):
        dh, ds = partials(t + k)
        E[k] = dh.get(t, 0.0)
        if k == 0:
            continue
        for j in range(k):
            src = t + j + 1
            if src in dh:
                F[k, j] = dh[src] @ (dphi[src][:, None] * V)
        F[k, k - 1] += ds
    return E, F


def recursion_jacobians(model: object, x: ArrayLike, t: int, method: str = "paths",
                        max_degree: int | None = None) -> NDArray[np.float64]:
    """``d s_{t+k} / d h_t``, ``k = 0 .. T-1-t``, from the supplement's decomposition.

    Parameters
    ----------
    model : AttentiveRNN
        The network (its parameters are read in float64).
    x : array, shape (T, input_size)
        One input sequence.
    t : int
        The perturbed state.
    method : {"paths", "direct"}
        ``"direct"``: the recursion ``C_k = E_k + sum_{j<k} F_{k,j} C_j`` (Lemma 2, eq. 19).
        ``"paths"``: Proposition 1, ``C_k = sum_s xi_{0:k}(s)`` with
        ``xi_{0:k}(s) = sum_{0<=i_1<..<i_s<k} F_{k,i_s} ... F_{i_2,i_1} E_{i_1}`` grouped by the
        number ``s`` of F factors (each carrying one ``V``).
    max_degree : int, optional
        Keep only ``s <= max_degree`` in ``"paths"`` (default: all).

    Returns
    -------
    ndarray, shape (T - t, n, n)
    """
    torch = require("torch")

    check_choice("method", method, ("paths", "direct"))
    model_dtype = next(model.parameters()).dtype
    xt = torch.as_tensor(np.asarray(x), dtype=model_dtype, device=next(model.parameters()).device)[None]
    with torch.no_grad():
        _, _, trace = model(xt, trace=True)
    E, F = blocks(model, trace, t)
    if method == "direct":
        C = np.zeros_like(E)
        for k in range(len(E)):
            C[k] = E[k] + np.einsum("jab,jbc->ac", F[k, :k], C[:k])
        return C
    return degree_terms(E, F, max_degree).sum(axis=0)


def degree_terms(E: NDArray[np.float64], F: NDArray[np.float64], max_degree: int | None = None) -> NDArray[np.float64]:
    """``xi_{0:k}(s)`` for ``s = 0 .. max_degree`` (Proposition 1), by dynamic programming over
    the last index: ``xi_{0:k}(0) = E_k``, ``xi_{0:k}(s) = sum_{j<k} F_{k,j} xi_{0:j}(s-1)``.

    Returns
    -------
    ndarray, shape (max_degree + 1, K, n, n)
    """
    K = len(E)
    smax = K - 1 if max_degree is None else min(max_degree, K - 1)
    out = np.zeros((smax + 1, *E.shape))
    out[0] = E
    for s in range(1, smax + 1):
        for k in range(s, K):
            out[s, k] = np.einsum("jab,jbc->ac", F[k, :k], out[s - 1, :k])
    return out


def xi_bruteforce(E: NDArray[np.float64], F: NDArray[np.float64], k: int, s: int) -> NDArray[np.float64]:
    """``xi_{0:k}(s)`` by enumerating every tuple ``0 <= i_1 < .. < i_s < k`` (eq. 42)."""
    total = np.zeros_like(E[0])
    for tup in itertools.combinations(range(k), s):
        prod = E[tup[0]] if s else E[k]
        path = (*tup, k)
        for lo, hi in zip(path[:-1], path[1:]):
            prod = F[hi, lo] @ prod
        total += prod
    return total


# ---------------------------------------------------------------------------------------------
# Combinatorics of A.3.2-A.3.4
# ---------------------------------------------------------------------------------------------

def power_sum_symbols(s: int) -> list[sp.Symbol]:
    """``S_1 .. S_s``: the power sums ``S_l = sum_{i<k} 1/(t+i)^l`` (eq. 138)."""
    return list(sp.symbols(f"S1:{s + 1}"))


@lru_cache(maxsize=None)
def w_polynomial(s: int) -> sp.Expr:
    """``w(s) = sum_{i_1<..<i_s} prod 1/(t+i_j)`` as a polynomial in the power sums.

    The generating function ``prod_i (1 + z/(t+i)) = exp(sum_l (-1)^(l-1) S_l z^l / l)`` gives
    it exactly (Newton's identities); Lemma 9 and Proposition 3 are statements about this
    polynomial.
    """
    check_int("s", s, 0)
    z = sp.Symbol("z")
    S = power_sum_symbols(max(s, 1))
    gen = sp.exp(sum((-1) ** (l - 1) * S[l - 1] * z**l / l for l in range(1, s + 1)))
    return sp.expand(sp.series(gen, z, 0, s + 1).removeO().coeff(z, s)) if s else sp.Integer(1)


@lru_cache(maxsize=None)
def psi(l: int) -> sp.Expr:
    """``psi_l``: the part of ``w(l)`` free of ``S_1`` (Proposition 3; ``psi_0 = 1, psi_1 = 0``)."""
    check_int("l", l, 0)
    if l == 0:
        return sp.Integer(1)
    return sp.expand(w_polynomial(l).subs(power_sum_symbols(l)[0], 0))


@lru_cache(maxsize=None)
def delta0(l: int) -> sp.Expr:
    """``delta_{l,0}``: the coefficients of Lemma 9's recursion, ``[z^l] (1 - 1/Psi(z))`` with
    ``Psi(z) = sum_l psi_l z^l`` (so that ``psi_l = sum_j delta_{j,0} psi_{l-j}``, eq. 172)."""
    check_int("l", l, 1)
    z = sp.Symbol("z")
    Psi = sum(psi(j) * z**j for j in range(l + 1))
    return sp.expand(sp.series(1 - 1 / Psi, z, 0, l + 1).removeO().coeff(z, l))


def w_lemma9(s: int) -> sp.Expr:
    """Lemma 9: ``w(s) = S_1^s/s! + sum_{l=1}^{s} delta_{l,0} w(s-l)`` (with ``w(0) = 1``)."""
    S1 = power_sum_symbols(max(s, 1))[0]
    return sp.expand(S1**s / sp.factorial(s) + sum(delta0(l) * w_polynomial(s - l) for l in range(1, s + 1)))


def psi_compositions(l: int) -> sp.Expr:
    """``psi_l`` as eq. 163 builds it: a sum over compositions of ``l`` into parts ``>= 2`` of
    products of ``delta_{j,0}`` (the proof of Proposition 3 sums over ordered parts)."""
    if l == 0:
        return sp.Integer(1)
    total = sp.Integer(0)
    for k in range(1, l // 2 + 1):
        for parts in itertools.product(range(2, l + 1), repeat=k):
            if sum(parts) == l:
                total += sp.Mul(*[delta0(j) for j in parts])
    return sp.expand(total)


def w_proposition3(s: int) -> sp.Expr:
    """Proposition 3: ``w(s) = sum_r psi_{s-r} S_1^r / r!`` with ``psi`` from compositions."""
    S1 = power_sum_symbols(max(s, 1))[0]
    return sp.expand(sum(psi_compositions(s - r) * S1**r / sp.factorial(r) for r in range(s + 1)))


def w4_as_printed() -> sp.Expr:
    """``w(4)`` as eqs. 144-149 expand it: the term ``(2,2)`` (two distinct doubled factors) is
    written ``S_2^2 - S_4`` (ordered pairs) but given the count ``4!/(2!2!) = 6`` of unordered
    ones, which leaves the constant ``-(S_4 + 2 S_2^2)/8``."""
    S1, S2, S3, S4 = power_sum_symbols(4)
    return sp.expand(S1**4 / 24 - S2 / 2 * w_polynomial(2) + S3 / 3 * w_polynomial(1) - (S4 + 2 * S2**2) / 8)


def w_bruteforce(t: int, k: int, s: int, lo: int = 0) -> Fraction:
    """``w_{lo:k}(s) = sum_{lo<=i_1<..<i_s<k} prod_j 1/(t+i_j)`` exactly (eq. 126)."""
    total = Fraction(0)
    for tup in itertools.combinations(range(lo, k), s):
        total += Fraction(1, math.prod(t + i for i in tup))
    return total


def power_sums(t: int, k: int, L: int) -> list[Fraction]:
    """``[S_1, .., S_L]`` with ``S_l = sum_{i=0}^{k-1} (t+i)^(-l)``, exactly."""
    return [sum((Fraction(1, (t + i) ** l) for i in range(k)), Fraction(0)) for l in range(1, L + 1)]


def evaluate_w(expr: sp.Expr, t: int, k: int, s: int) -> sp.Rational:
    """Evaluate a polynomial in ``S_1 .. S_s`` at the exact power sums of ``1/(t+i)``, ``i<k``."""
    vals = power_sums(t, k, max(s, 1))
    return sp.nsimplify(expr.subs({S: sp.Rational(v.numerator, v.denominator)
                                   for S, v in zip(power_sum_symbols(max(s, 1)), vals)}))


def elementary_symmetric(values: NDArray[np.float64], smax: int) -> NDArray[np.float64]:
    """``e_0 .. e_smax`` of ``values`` (float64, by the standard product recursion)."""
    e = np.zeros(smax + 1)
    e[0] = 1.0
    for v in values:
        e[1:] = e[1:] + v * e[:-1]
    return e


def w_range(t: int, lo: int, k: int, smax: int) -> NDArray[np.float64]:
    """``w_{lo:k}(r)`` for ``r = 0 .. smax`` (floats; ``w_{lo:k}(0) = 1``, empty range: 0 for r>0)."""
    return elementary_symmetric(1.0 / (t + np.arange(lo, max(lo, k), dtype=np.float64)), smax)


def theta_table(t: int, K: int, smax: int) -> NDArray[np.float64]:
    """``theta_{0:k}(s)`` for ``k = 0 .. K``, ``s = 0 .. smax`` by the recursion eq. 188,
    ``theta_{0:k}(s+1) = theta_{0:k-1}(s) + sum_{j=s}^{k-1} theta_{0:j}(s)/(t+j)``,
    ``theta(0) = 1``, and ``theta_{0:k}(s) = 0`` for ``k < s``."""
    th = np.zeros((smax + 1, K + 1))
    th[0] = 1.0
    for s in range(smax):
        cum = np.concatenate([[0.0], np.cumsum(th[s] / (t + np.arange(K + 1)))])
        for k in range(s + 1, K + 1):
            th[s + 1, k] = th[s, k - 1] + (cum[k] - cum[s])
    return th


def lemma10_bounds(t: int, k: int, s: int) -> tuple[float, float, float]:
    """``(lower, theta_{0:k}(s), upper)`` of Lemma 10:
    ``sum_r C(s,r) w_{s-r:k}(r) <= theta_{0:k}(s) <= sum_r C(s,r) w_{0:k-(s-r)}(r)``."""
    theta = theta_table(t, k, s)[s, k]
    lower = sum(math.comb(s, r) * w_range(t, s - r, k, s)[r] for r in range(s + 1))
    upper = sum(math.comb(s, r) * w_range(t, 0, k - (s - r), s)[r] for r in range(s + 1))
    return float(lower), float(theta), float(upper)


def uniform_chi(t: int, K: int, smax: int) -> NDArray[np.float64]:
    """``chi_{0:k}(s)``: the coefficient of ``V^s`` in ``d s_{t+k} / d h_t`` under uniform
    attention and a linear recurrence (eqs. 121-123), for ``k = 0 .. K``, ``s <= smax``.

    Computed from the blocks ``E_k = (1/(t+k) + 1_{k=0}) I``,
    ``F_{k,j} = (1/(t+k) + 1_{j=k-1}) V`` with ``t`` 1-based (the supplement's ``1/t``).
    """
    chi = np.zeros((smax + 1, K + 1))
    chi[0] = 1.0 / (t + np.arange(K + 1))
    chi[0, 0] += 1.0
    for s in range(1, smax + 1):
        cum = np.cumsum(chi[s - 1])
        for k in range(1, K + 1):
            chi[s, k] = cum[k - 1] / (t + k) + chi[s - 1, k - 1]
    return chi


def lemma11_bounds(t: int, k: int, s: int) -> tuple[float, float, float]:
    """``(lower, chi_{0:k}(s), upper)`` of Lemma 11 (``k > s``):
    ``1/(t+k) sum_r C(s+1,r+1) w_{s-r:k}(r) <= chi <= 1/(t+k-s) sum_r C(s+1,r+1) w_{0:k-(s-r)}(r)``."""
    chi = uniform_chi(t, k, s)[s, k]
    lower = sum(math.comb(s + 1, r + 1) * w_range(t, s - r, k, s)[r] for r in range(s + 1)) / (t + k)
    upper = sum(math.comb(s + 1, r + 1) * w_range(t, 0, k - (s - r), s)[r] for r in range(s + 1)) / (t + k - s)
    return float(lower), float(chi), float(upper)


# ---------------------------------------------------------------------------------------------
# Uniform attention, linear recurrence: exact Jacobians and exponents
# ---------------------------------------------------------------------------------------------

def uniform_scalar_response(lams: ArrayLike, t: int, T: int) -> NDArray[np.complex128]:
    """``d s_m / d h_t`` for ``m = t .. T-1`` when ``V`` is the scalar ``lambda`` (vectorised over
    ``lams``; complex allowed): with ``g_m = d h_m / d h_t`` and ``S_m = sum_{i=t}^{m} g_i``,
    ``s_m = g_m + S_m/(m+1)`` and ``g_{m+1} = lambda s_m`` (0-based ``m``, weights ``1/(m+1)``).

    For a normal ``V = P diag(lambda) P^*`` the Jacobian is ``P diag(response) P^*``.

    Returns
    -------
    ndarray, shape (len(lams), T - t)
    """
    lam = np.atleast_1d(np.asarray(lams, dtype=np.complex128))
    check_int("t", t, 0, T - 1)
    out = np.empty((lam.size, T - t), dtype=np.complex128)
    g = np.ones_like(lam)
    S = np.ones_like(lam)
    for i, m in enumerate(range(t, T)):
        out[:, i] = g + S / (m + 1)
        g = lam * out[:, i]
        S = S + g
    return out


def uniform_matrix_norms(V: NDArray[np.float64], t: int, T: int) -> NDArray[np.float64]:
    """``||d s_m / d h_t||_F``, ``m = t .. T-1``, for any (possibly non-normal) ``V``."""
    n = V.shape[0]
    g = np.eye(n)
    S = np.eye(n)
    out = np.empty(T - t)
    for i, m in enumerate(range(t, T)):
        C = g + S / (m + 1)
        out[i] = np.linalg.norm(C)
        g = V @ C
        S = S + g
    return out


def supplement_exponent(lams: ArrayLike) -> float:
    """Theorem 1's decay exponent ``eta = min_i min(1, 1 - Re lambda_i)``."""
    lam = np.asarray(lams, dtype=np.complex128)
    return float(np.min(np.minimum(1.0, 1.0 - lam.real)))


def exact_exponent(lams: ArrayLike) -> float:
    """The exact decay exponent ``eta = min_i [1 - Re(lambda_i/(1-lambda_i))]``: the norm behaves
    as ``T^(-eta)`` (negative ``eta``: growth) — see :func:`derive_uniform_exponent`."""
    lam = np.asarray(lams, dtype=np.complex128)
    return float(np.min(1.0 - (lam / (1.0 - lam)).real))


def derive_uniform_exponent() -> dict[str, sp.Expr]:
    """Derive the power-law solution of the scalar recurrence with sympy.

    Eliminating ``g`` gives the second-order recurrence, with ``N = m+1`` states,
    ``N S_{N+1} - ((1+lambda) N + lambda) S_N + lambda N S_{N-1} = 0``. Substituting the ansatz
    ``S_N = N^p (1 + a_1/N + a_2/N^2)`` and expanding in ``1/N`` fixes ``p`` and ``a_1``; the
    Jacobian ``g_N + S_N/N = S_N - S_{N-1} + S_N/N`` then behaves as ``N^(p-1)`` times
    ``1/(1-lambda)``.

    Returns
    -------
    dict
        ``recurrence`` (the residual as a sympy expression), ``p``, ``a1``, ``jacobian_exponent``
        (``p - 1``), ``jacobian_prefactor`` (the leading coefficient relative to ``N^(p-1)``),
        and ``series`` (the expanded residual's leading orders, before solving).
    """
    lam, p, a1, a2, eps = sp.symbols("lambda p a1 a2 epsilon")
    N = 1 / eps

    def S(shift: int) -> sp.Expr:
        # S_{N+shift} / N^p under the ansatz, written in eps = 1/N
        return (1 + shift * eps) ** p * (1 + a1 * eps / (1 + shift * eps) + a2 * eps**2 / (1 + shift * eps) ** 2)

    residual = N * S(1) - ((1 + lam) * N + lam) * S(0) + lam * N * S(-1)
    ser = sp.expand(sp.series(residual, eps, 0, 2).removeO())
    p_val = sp.solve(ser.coeff(eps, 0), p)[0]
    a1_val = sp.solve(ser.coeff(eps, 1).subs(p, p_val), a1)[0]
    # the Jacobian g_N + S_N / N = (S_N - S_{N-1}) + S_N / N, divided by N^(p-1)
    jac = sp.series((N * (S(0) - S(-1)) + S(0)).subs(p, p_val), eps, 0, 1).removeO()
    return {"recurrence": residual, "series": ser, "p": sp.simplify(p_val), "a1": sp.factor(a1_val),
            "jacobian_exponent": sp.simplify(p_val - 1), "jacobian_prefactor": sp.simplify(jac)}


def fit_decay_exponent(T: NDArray[np.float64], norms: NDArray[np.float64], correction: bool = True) -> float:
    """Least-squares ``eta`` in ``log ||J|| = c - eta log T (+ d/T)`` over the given points.

    The ``d/T`` term is the next order of the exact expansion (the ``a_1/N`` of
    :func:`derive_uniform_exponent`), so fitting it removes the slow drift of the local slope
    when ``|p|`` is large.
    """
    T = np.asarray(T, dtype=np.float64)
    cols = [np.ones_like(T), -np.log(T)] + ([1.0 / T] if correction else [])
    coef, *_ = np.linalg.lstsq(np.stack(cols, 1), np.log(norms), rcond=None)
    return float(coef[1])


# ---------------------------------------------------------------------------------------------
# kappa-sparse attention (A.4)
# ---------------------------------------------------------------------------------------------

def sparse_path_bound(kappa: int, depth: int, lam: float) -> float:
    """The contribution of the shortest attention chain, ``lambda^(depth-1) / kappa^depth``:
    ``depth`` attention hops of weight ``>= 1/kappa`` joined by ``depth - 1`` factors ``V``.
    For ``V`` with a positive eigenvalue ``lambda`` every other path adds a non-negative
    amount along that eigenvector, so this is a lower bound for all distances (Theorem 2)."""
    return lam ** (depth - 1) / kappa**depth


def sparse_linear_norms(lams: ArrayLike, pattern: object, T: int) -> NDArray[np.float64]:
    """``||d s_m / d h_{g_1}||_F`` for ``m = g_1 .. T-1``, diagonal linear ``V = diag(lams)``,
    ``f(h, c) = h + c`` and the fixed pattern ``pattern`` (a ``SparseAttention``), exactly
    (:func:`seqmi.theory.sparse_patterns.pattern_linear_norms` from the chain's first state).
    """
    from seqmi.theory.sparse_patterns import pattern_linear_norms

    return pattern_linear_norms(lams, pattern.attended, pattern.first, T)
