"""Canonical correlations between the two halves of a sub-volume Gaussian sequence.

Split a zero-mean Gaussian sequence at ``ell`` into past ``X = z_{<ell}`` and future
``Y = z_{>=ell}``. Its canonical correlations ``rho_1 >= rho_2 >= ...`` are the singular
values of ``S_XX^{-1/2} S_XY S_YY^{-1/2}``; the bipartite MI is
``sum_i -1/2 ln(1 - rho_i^2)``, and a *linear* state ``W X`` of dimension ``d`` keeps at
most the ``d`` largest terms (Akaike's canonical analysis of past and future; see
:func:`seqmi.l2m.linear_state_excess`).

Two ways to compute them:

* :func:`dense_canonical_correlations`: Cholesky factors of the two parts and one SVD of
  the whitened cross-covariance, for any split and either boundary reading
  (``O(L^3)``; up to ``L = 4**6`` in seconds).
* :func:`recursive_canonical_correlations`: the equal split of reading (b), from a
  recursion over layers that never forms an ``L``-sized matrix (below).

The recursion
-------------
Let ``A_c, B_c`` be the halves of the ``c`` independent copies of layer ``k`` that layer
``k+1`` is built from (``c = 3`` for the sub-volume family, 1 for the logarithmic one).
Before the boundary map at the cut, each half of layer ``k+1`` is an invertible linear image
of its copies' halves and its fresh normals, so the cut only couples them through the two
rows next to it: the last row of the first half reads the copies' last elements
``x^(j) = A_j[-1]`` and the first row of the second half their first elements
``y^(j) = B_j[0]``. Three facts reduce the problem to a few vectors:

1. ``span(X_{k+1}) = (span(A, fresh) ⊖ r_x) ⊕ span(x_{k+1})``, where ``x_{k+1}`` is the last
   element after the cut map and ``r_x`` is the one direction of the last row's
   innovations (the copies' innovations ``delta^(j)`` of ``x^(j)`` given the rest of their
   halves, and the row's fresh normals) that the row's three other outputs miss; likewise
   for the second half with ``y_{k+1}``, ``r_y``, ``epsilon^(j)``.
2. The last row reads the copies through ``M[3, :3] ∝ (1, -1, -1)`` and the first row of the
   second half through ``M[0, :3] ∝ (1, 1, 1)``, and ``r_x``, ``r_y`` lie in the same copy
   directions. Rotating the three i.i.d. copies into ``u ∝ (1, -1, -1)``, ``u2`` (the rest
   of ``span{u, (1, 1, 1)}``) and ``w ∝ (0, 1, -1)`` leaves three i.i.d. copies, and the
   ``w`` copy never meets the cut: layer ``k``'s whole spectrum reappears at layer ``k+1``.
3. Inside each copy, the canonical pairs that the boundary vectors ``x, delta, y,
   epsilon`` do not touch stay untouched at every later layer. Only the *active* pairs
   (``4, 9, 19, ...``: ``n_{k+1} = 2 n_k + 1`` for the sub-volume family) enter a small
   problem: the canonical correlations of two subspaces, each a rank-one modification of
   the active pairs of the ``u`` and ``u2`` copies, solved by one SVD of size
   ``2 n_k + 5``.

So each layer carries the active correlations ``rho`` and the coordinates of the boundary
vectors on the active canonical variates (with the Gram matrix of their remainders); the
full spectrum of layer ``K`` is the active one of every layer ``j <= K`` with multiplicity
``1`` (``j = K, K-1``) or ``3^(K-j-1)`` (``j <= K-2``) for the sub-volume family, and the
active one alone for the logarithmic family. The largest SVD at ``L = 4**12`` has size
5,123. The test suite checks every step against the dense computation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray
from scipy.linalg import cholesky, null_space, solve_triangular

from seqmi.data.subvolume_mixing import MIXING

if TYPE_CHECKING:
    from seqmi.data.subvolume import SubvolumeGaussian

_ACTIVE_TOL = 1e-13  # singular values below this are the exact zeros of the rank


def dense_canonical_correlations(cov: NDArray[np.float64], ell: int) -> NDArray[np.float64]:
    """Canonical correlations of ``z_{<ell}`` and ``z_{>=ell}`` from a dense covariance.

    Parameters
    ----------
    cov : ndarray, shape (L, L)
        Positive-definite covariance.
    ell : int
        Size of the first part, ``1 <= ell < L``.

    Returns
    -------
    ndarray, shape (min(ell, L - ell),)
        Descending, in ``[0, 1)``.
    """
    cx = cholesky(cov[:ell, :ell], lower=True)
    cy = cholesky(cov[ell:, ell:], lower=True)
    whitened = solve_triangular(cx, cov[:ell, ell:], lower=True)
    whitened = solve_triangular(cy, whitened.T, lower=True).T
    return np.linalg.svd(whitened, compute_uv=False)


@dataclass
class HalfPair:
    """The active canonical structure of one copy's halves at one layer.

    Attributes
    ----------
    rho : ndarray, shape (n,)
        Active canonical correlations (those the boundary vectors touch).
    px, py : ndarray, shape (n, 2)
        Coordinates of ``(x, delta)`` on the first half's canonical variates and of
        ``(y, epsilon)`` on the second half's (``x``: last element of the first half,
        ``delta``: its normalised innovation given the rest of the first half; ``y``,
        ``epsilon``: the same for the first element of the second half).
    gx, gy : ndarray, shape (2, 2)
        Gram matrices of the parts of those vectors orthogonal to the canonical variates.
    """

    rho: NDArray[np.float64]
    px: NDArray[np.float64]
    py: NDArray[np.float64]
    gx: NDArray[np.float64]
    gy: NDArray[np.float64]


def base_half_pair(cov: NDArray[np.float64]) -> HalfPair:
    """The :class:`HalfPair` of an equal split, from its dense covariance (the recursion's base).

    The second half is read backwards, so that both boundary elements are the last of
    their Cholesky order: ``x = C_X[-1] omega`` and ``delta = omega[-1]``.
    """
    n = cov.shape[0] // 2
    rev = np.arange(cov.shape[0] - 1, n - 1, -1)
    cx = cholesky(cov[:n, :n], lower=True)
    cy = cholesky(cov[np.ix_(rev, rev)], lower=True)
    whitened = solve_triangular(cy, solve_triangular(cx, cov[:n][:, rev], lower=True).T, lower=True).T
    u, rho, vt = np.linalg.svd(whitened)
    active = rho > _ACTIVE_TOL
    vecs_x = np.column_stack([cx[-1], np.eye(n)[-1]])  # (x, delta) in omega coordinates
    vecs_y = np.column_stack([cy[-1], np.eye(n)[-1]])
    px, py = u[:, active].T @ vecs_x, vt[active] @ vecs_y
    return HalfPair(rho[active], px, py, vecs_x.T @ vecs_x - px.T @ px, vecs_y.T @ vecs_y - py.T @ py)


def _root(gram: NDArray[np.float64]) -> NDArray[np.float64]:
    """A 2 x 2 matrix whose columns have Gram matrix ``gram`` (symmetric square root)."""
    vals, vecs = np.linalg.eigh((gram + gram.T) / 2)
    return vecs @ np.diag(np.sqrt(np.clip(vals, 0.0, None))) @ vecs.T


def _cut_direction(rows: tuple[int, ...], s: float, copied: int) -> NDArray[np.float64]:
    """Unit vector of a cut row's innovation space that the row's other outputs miss.

    The row's four inputs have innovations ``s * (unit)`` in the copied slots and unit
    fresh normals in the others; ``rows`` are the outputs of ``M`` that stay inside the
    half.
    """
    scale = np.r_[np.full(copied, s), np.ones(4 - copied)]
    return null_space(MIXING[list(rows)] * scale)[:, 0]


def _copy_basis(copied: int) -> NDArray[np.float64]:
    """Orthonormal copy combinations that meet the cut: ``(u, u2)`` for three copies, ``(1,)`` for one."""
    if copied == 1:
        return np.ones((1, 1))
    u = MIXING[3, :3] / np.linalg.norm(MIXING[3, :3])
    v = MIXING[0, :3] / np.linalg.norm(MIXING[0, :3])
    u2 = v - (v @ u) * u
    return np.column_stack([u, u2 / np.linalg.norm(u2)])


def next_half_pair(pair: HalfPair, copied: int, a: float, b: float, vectors: bool = True) -> HalfPair:
    """The active structure of layer ``k+1`` from that of layer ``k``.

    Parameters
    ----------
    pair : HalfPair
        Layer ``k``.
    copied : int
        Copies of layer ``k`` per row (3: sub-volume family, 1: logarithmic).
    a, b : float
        The boundary map ``[[a, b], [b, a]]`` of the pair that straddles the cut at layer
        ``k+1``.
    vectors : bool
        Also carry the boundary vectors to layer ``k+1`` (``False`` at the top layer, where
        only the spectrum is needed: the SVD then skips its singular vectors).

    Returns
    -------
    HalfPair
    """
    rho, n = pair.rho, len(pair.rho)
    basis = _copy_basis(copied)  # (copied, m)
    m, fresh = basis.shape[1], 4 - copied
    sigma = np.sqrt(1.0 - rho ** 2)
    # coordinates: per combination [e (n) | e' (n) | rest-x (2) | rest-y (2)], then fresh A, fresh B
    block = 2 * n + 4
    dim = m * block + 2 * fresh
    fa, fb = m * block, m * block + fresh

    def combo(b_: int) -> tuple[NDArray, NDArray, NDArray, NDArray]:
        """Coordinates of x, delta, y, epsilon of combination ``b_`` (each shape (dim,))."""
        off = b_ * block
        rx, ry = _root(pair.gx), _root(pair.gy)
        out = np.zeros((4, dim))
        out[:2, off:off + n] = pair.px.T
        out[:2, off + 2 * n:off + 2 * n + 2] = rx.T
        out[2:, off:off + n] = pair.py.T * rho
        out[2:, off + n:off + 2 * n] = pair.py.T * sigma
        out[2:, off + 2 * n + 2:off + 2 * n + 4] = ry.T
        return out[0], out[1], out[2], out[3]

    vecs = [combo(b_) for b_ in range(m)]
    s_x = float(pair.px[:, 0] @ pair.px[:, 1] + pair.gx[0, 1])
    s_y = float(pair.py[:, 0] @ pair.py[:, 1] + pair.gy[0, 1])

    def through(row: int, idx: int, fresh_at: int) -> NDArray:
        """Output ``row`` of ``M`` applied to the copies' vector ``idx`` and the fresh normals."""
        coef = MIXING[row, :copied] @ basis  # (m,)
        out = sum(coef[b_] * vecs[b_][idx] for b_ in range(m))
        out = out.copy()
        out[fresh_at:fresh_at + fresh] += MIXING[row, copied:]
        return out

    def cut_vector(rows: tuple[int, ...], s: float, idx: int, fresh_at: int) -> NDArray:
        n_dir = _cut_direction(rows, s, copied)
        coef = n_dir[:copied] @ basis
        out = sum(coef[b_] * vecs[b_][idx] for b_ in range(m)).copy()
        out[fresh_at:fresh_at + fresh] += n_dir[copied:]
        return out

    x_pre = through(3, 0, fa)
    y_pre = through(0, 2, fb)
    r_x = cut_vector((0, 1, 2), s_x, 1, fa)
    r_y = cut_vector((1, 2, 3), s_y, 3, fb)
    x_new, y_new = a * x_pre + b * y_pre, b * x_pre + a * y_pre

    # orthonormal bases of the two halves' spans (active part)
    axes_a = np.zeros((dim, m * (n + 2) + fresh))
    axes_b = np.zeros((dim, m * (n + 2) + fresh))
    col = 0
    for b_ in range(m):
        off = b_ * block
        axes_a[off + np.arange(n), col + np.arange(n)] = 1.0
        axes_b[off + np.arange(n), col + np.arange(n)] = rho
        axes_b[off + n + np.arange(n), col + np.arange(n)] = sigma
        axes_a[off + 2 * n + np.arange(2), col + n + np.arange(2)] = 1.0
        axes_b[off + 2 * n + 2 + np.arange(2), col + n + np.arange(2)] = 1.0
        col += n + 2
    axes_a[fa + np.arange(fresh), col + np.arange(fresh)] = 1.0
    axes_b[fb + np.arange(fresh), col + np.arange(fresh)] = 1.0
    q_x, delta_new = _replace(axes_a, r_x, x_new)
    q_y, eps_new = _replace(axes_b, r_y, y_new)
    if not vectors:
        rho_new = np.linalg.svd(q_x.T @ q_y, compute_uv=False)
        empty = np.zeros((0, 2))
        return HalfPair(rho_new[rho_new > _ACTIVE_TOL], empty, empty, np.zeros((2, 2)), np.zeros((2, 2)))
    u, rho_new, vt = np.linalg.svd(q_x.T @ q_y)
    active = rho_new > _ACTIVE_TOL
    alpha, beta = q_x @ u[:, active], q_y @ vt[active].T
    sx, sy = np.column_stack([x_new, delta_new]), np.column_stack([y_new, eps_new])
    px, py = alpha.T @ sx, beta.T @ sy
    return HalfPair(rho_new[active], px, py, sx.T @ sx - px.T @ px, sy.T @ sy - py.T @ py)


def _replace(axes: NDArray[np.float64], removed: NDArray[np.float64],
             added: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Orthonormal basis of ``span(axes) ⊖ removed ⊕ added``, and ``added``'s normalised new part.

    ``axes`` has orthonormal columns and ``removed`` lies in their span.
    """
    coords = axes.T @ removed
    coords /= np.linalg.norm(coords)
    # Householder reflection taking coords to the first axis: its other columns span coords-perp
    w = coords.copy()
    w[0] += np.copysign(1.0, coords[0])
    w /= np.linalg.norm(w)
    kept = axes - 2.0 * np.outer(axes @ w, w)
    kept = kept[:, 1:]
    part = added - kept @ (kept.T @ added)
    part /= np.linalg.norm(part)
    return np.column_stack([kept, part]), part


def recursive_canonical_correlations(gaussian: SubvolumeGaussian) -> NDArray[np.float64]:
    """Canonical correlations of the equal split of one copy, by the layer recursion.

    Parameters
    ----------
    gaussian : SubvolumeGaussian
        Reading (b) (``pair_op="mix"``).

    Returns
    -------
    ndarray
        Every non-zero canonical correlation, descending, with multiplicity.
    """
    return layer_spectra(gaussian)[-1]


def layer_spectra(gaussian: SubvolumeGaussian) -> list[NDArray[np.float64]]:
    """The canonical correlations of the equal split at every layer ``1 .. layers``, one pass.

    The recursion visits every layer on its way to the top, and the boundary maps of layer
    ``k`` do not depend on how many layers follow, so the spectra of all the shorter members
    of the family come with the longest one's.

    Parameters
    ----------
    gaussian : SubvolumeGaussian
        Reading (b) (``pair_op="mix"``), one copy's spectra.

    Returns
    -------
    list of ndarray
        Entry ``k - 1``: every non-zero correlation of layer ``k``, descending, with
        multiplicity.
    """
    if gaussian.pair_op != "mix":
        raise ValueError(f"the recursion needs pair_op='mix', got {gaussian.pair_op!r}: reading (a) has no "
                         "linear map on the samples (use method='dense')")
    copied = gaussian._n_prev
    pair = base_half_pair(type(gaussian)(1, gaussian.family).covariance())  # its one-layer member
    actives = [pair.rho]
    for k in range(2, gaussian.layers + 1):
        a, b = gaussian._maps[k - 2]
        cut = 4 ** (k - 1) // 2 - 1  # the boundary pair whose left member ends the first half
        pair = next_half_pair(pair, copied, float(a[cut]), float(b[cut]), vectors=k < gaussian.layers)
        actives.append(pair.rho)
    return [np.sort(np.concatenate(_with_multiplicity(actives[:k], copied)))[::-1]
            for k in range(1, len(actives) + 1)]


def _with_multiplicity(actives: list[NDArray[np.float64]], copied: int) -> list[NDArray[np.float64]]:
    """The full spectrum of the top layer from the active spectra of every layer.

    Sub-volume family: ``S_K = P_K ∪ S_{K-1} ∪ 2 (S_{K-1} \\ P_{K-1})`` (the ``w`` copy keeps
    all of layer ``K-1``, the other two its untouched part), so ``P_j`` appears once for
    ``j >= K-1`` and ``3^(K-j-1)`` times below. Logarithmic family: no copy escapes the
    cut, ``S_K = P_K``.
    """
    top = len(actives)
    if copied == 1:
        return [actives[-1]]
    return [np.tile(p, 1 if j >= top - 2 else 3 ** (top - j - 2)) for j, p in enumerate(actives)]
