"""Leading blocks of a sub-volume Gaussian covariance, solved through the layer recursion.

The bipartite MI of reading (b) (``pair_op="mix"``) needs ``ln det`` of two contiguous
blocks of the covariance, and by reversal symmetry both are *leading* blocks
``P(k, n) = S_k[:n, :n]`` of the layer-``k`` covariance ``S_k``. This module computes
``ln det P(k, n)`` and solves ``P(k, n) x = v`` without forming the block, in ``O(L)``
memory, from the construction of the sequence.

Derivation
----------
Let ``n' = ceil(q / 4)`` with ``q = n + 1`` if ``n`` is a multiple of four below ``4**k``
(the last position of the prefix is then the left member of a boundary pair whose
partner lies outside it) and ``q = n`` otherwise. The first ``n`` outputs of layer ``k``
depend only on the first ``n'`` rows, i.e. on ``w``: the first ``n'`` positions of each
copied layer-``k-1`` sequence (``c = 3`` copies for the sub-volume family, one for the
logarithmic family) and the fresh normals of those rows. Their covariance is block
diagonal, ``S_w = diag(P(k-1, n'), ..., P(k-1, n'), I)``. Complete the prefix by the
``h = 4 n' - n`` (at most 4) following outputs of the same rows, with only the boundary
pairs that lie wholly inside the rows: the completed vector is ``G w`` for the square,
invertible map ``G = D (I kron M) Pi`` (``Pi`` puts the copies' blocks into rows, ``M``
mixes each row, ``D`` mixes the boundary pairs), and its first ``n`` entries are the
prefix. With ``F = G S_w G^T`` and ``Omega = F^{-1} = G^{-T} S_w^{-1} G^{-1}``:

* ``ln det P(k, n) = 2 ln|det G| + c ln det P(k-1, n') + ln det Omega_HH``, with
  ``ln|det G| = n' ln|det M| + sum ln|a_i^2 - b_i^2|`` over the pairs inside, since the
  Schur complement of the prefix in ``F`` is ``Omega_HH^{-1}`` (``H``: the ``h`` completing
  outputs);
* ``P(k, n)^{-1} v = u_A - Omega_AH Omega_HH^{-1} u_H`` with ``u = Omega (v, 0)``: the block
  inverse of ``F``.

Applying ``Omega`` costs ``O(n)`` for the maps and one solve with ``P(k-1, n')`` for ``c``
times the right-hand sides, so the recursion visits one prefix per layer. The ``h``
columns ``Omega E_H`` are computed once per prefix and cached. Small prefixes
(``n <= dense_below``) are factorized densely, which ends the recursion. Solves at layer
``k - j`` carry ``c**j`` times the columns on blocks ``4**-j`` as long, so one
right-hand side at the top costs ``O(L)`` work in all.

Reading (a) (``pair_op="overwrite"``) has no such recursion: it sets one covariance
entry per boundary without any linear map on the samples, so a prefix is a layer image
plus a sparse symmetric update of rank about ``n / 2``, and no low-rank correction
reaches it. It keeps the dense path.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import ceil
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray
from scipy.linalg import cho_factor, cho_solve

from seqmi.data.subvolume_mixing import MIXING
from seqmi.validate import check_int

if TYPE_CHECKING:
    from seqmi.data.subvolume import SubvolumeGaussian

_MIXING_INV = np.linalg.inv(MIXING)
_LOGDET_MIXING = float(np.log(abs(np.linalg.det(MIXING))))


class PrefixBlocks:
    """``ln det`` and solves of leading covariance blocks of a reading-(b) family.

    Parameters
    ----------
    gaussian : SubvolumeGaussian
        A family member with ``pair_op="mix"``; its boundary maps and small dense blocks
        are used.
    dense_below : int
        Prefixes of at most this size are factorized densely (the recursion's base).

    Notes
    -----
    Results are cached per ``(layer, n)``; one instance serves every split of its
    family member. Memory stays ``O(L)``: the largest arrays are the few cached columns
    of the top layer and the right-hand sides of one solve.
    """

    def __init__(self, gaussian: SubvolumeGaussian, dense_below: int = 256) -> None:
        if gaussian.pair_op != "mix":
            raise ValueError(f"the prefix recursion needs pair_op='mix', got {gaussian.pair_op!r}: "
                             "reading (a) has no linear map on the samples (dense path only)")
        if dense_below < 4:
            raise ValueError(f"dense_below must be at least 4, got {dense_below}")
        self._gaussian = gaussian
        self._dense_below = int(dense_below)
        self._copies = gaussian._n_prev  # copies of the layer below in each row
        self._dense: dict[tuple[int, int], tuple[NDArray, bool]] = {}
        self._levels: dict[tuple[int, int], _Level] = {}

    # ------------------------------------------------------------------ public
    def logdet(self, k: int, n: int) -> float:
        """``ln det S_k[:n, :n]`` of one copy, ``1 <= k <= layers``, ``1 <= n <= 4**k``."""
        self._check(k, n)
        if self._is_dense(k, n):
            factor, _ = self._dense_factor(k, n)
            return float(2.0 * np.log(np.diag(factor)).sum())
        return self._level(k, n).logdet

    def solve(self, k: int, n: int, rhs: NDArray[np.float64]) -> NDArray[np.float64]:
        """Solve ``S_k[:n, :n] x = rhs`` for a 2-D ``rhs`` of shape ``(n, m)``."""
        self._check(k, n)
        if rhs.ndim != 2 or rhs.shape[0] != n:
            raise ValueError(f"rhs must have shape ({n}, m), got {rhs.shape}")
        if self._is_dense(k, n):
            return cho_solve(self._dense_factor(k, n), rhs, check_finite=False)
        level = self._level(k, n)
        u = self._apply_omega(level, np.vstack([rhs, np.zeros((level.h, rhs.shape[1]))]))
        if not level.h:
            return u
        return u[:n] - level.omega_h[:n] @ cho_solve(level.omega_hh, u[n:], check_finite=False)

    # ------------------------------------------------------------------ recursion
    def _check(self, k: int, n: int) -> None:
        check_int("k", k, 1, self._gaussian.layers)
        check_int("n", n, 1, 4 ** k)

    def _is_dense(self, k: int, n: int) -> bool:
        return k == 1 or n <= self._dense_below

    def _dense_factor(self, k: int, n: int) -> tuple[NDArray, bool]:
        if (k, n) not in self._dense:
            self._dense[k, n] = cho_factor(self._gaussian._block(k, 0, n), lower=True, check_finite=False)
        return self._dense[k, n]

    def _level(self, k: int, n: int) -> "_Level":
        if (k, n) not in self._levels:
            self._levels[k, n] = self._build_level(k, n)
        return self._levels[k, n]

    def _build_level(self, k: int, n: int) -> "_Level":
        q = n + 1 if n % 4 == 0 and n < 4 ** k else n
        rows = ceil(q / 4)
        a, b = self._gaussian._maps[k - 2]
        level = _Level(k=k, n=n, rows=rows, h=4 * rows - n, a=a[:rows - 1], b=b[:rows - 1])
        logdet_g = rows * _LOGDET_MIXING + float(np.log(np.abs(level.a ** 2 - level.b ** 2)).sum())
        logdet = 2.0 * logdet_g + self._copies * self.logdet(k - 1, rows)
        if level.h:
            completing = np.zeros((4 * rows, level.h))
            completing[n + np.arange(level.h), np.arange(level.h)] = 1.0
            level.omega_h = self._apply_omega(level, completing)
            # Omega_HH is the precision of the completing outputs given the prefix
            level.omega_hh = cho_factor(level.omega_h[n:], lower=True, check_finite=False)
            logdet += float(2.0 * np.log(np.diag(level.omega_hh[0])).sum())
        level.logdet = logdet
        return level

    def _apply_omega(self, level: "_Level", x: NDArray[np.float64]) -> NDArray[np.float64]:
        """``G^{-T} S_w^{-1} G^{-1} x`` for ``x`` of shape ``(4 rows, m)``."""
        rows, m = level.rows, x.shape[1]
        # G^{-1}: undo the pair mixing, then M row by row, then rows -> blocks
        y = _unmix_pairs(x, level.a, level.b)
        w = np.einsum("ij,rjm->irm", _MIXING_INV, y.reshape(rows, 4, m))  # (4, rows, m)
        # S_w^{-1}: the copies' blocks through the layer below (all in one solve), fresh as is
        c = self._copies
        copied = w[:c].transpose(1, 0, 2).reshape(rows, c * m)
        w[:c] = self.solve(level.k - 1, rows, copied).reshape(rows, c, m).transpose(1, 0, 2)
        # G^{-T}: blocks -> rows, M^{-T} row by row, undo the pair mixing
        y = np.einsum("ji,jrm->rim", _MIXING_INV, w).reshape(4 * rows, m)
        return _unmix_pairs(y, level.a, level.b)


@dataclass
class _Level:
    """One prefix ``(k, n)`` of the recursion: its shape, maps and cached completion."""

    k: int
    n: int
    rows: int
    h: int
    a: NDArray[np.float64]
    b: NDArray[np.float64]
    omega_h: NDArray[np.float64] = field(default_factory=lambda: np.zeros((0, 0)))
    omega_hh: tuple[NDArray[np.float64], bool] = (np.zeros((0, 0)), True)
    logdet: float = 0.0


def _unmix_pairs(x: NDArray[np.float64], a: NDArray, b: NDArray) -> NDArray[np.float64]:
    """Apply the inverse of the symmetric pair maps ``[[a, b], [b, a]]`` on pairs ``(4i+3, 4i+4)``."""
    out = x.copy()
    u = 4 * np.arange(len(a)) + 3
    det = (a * a - b * b)[:, None]
    left, right = x[u], x[u + 1]
    out[u] = (a[:, None] * left - b[:, None] * right) / det
    out[u + 1] = (a[:, None] * right - b[:, None] * left) / det
    return out
