"""The sub-volume Gaussian families of Chen et al. 2025 (L2M), Appendix B.

A hierarchical construction of Gaussian sequences of length ``L = 4**layers``:

* layer 1: ``y = M x`` for four i.i.d. standard normals ``x``, with the mixing matrix
  ``M`` (:data:`seqmi.data.subvolume_mixing.MIXING`) whose rows have unit norm and pairwise inner product ``-1/4``;
* layer ``k >= 2``: a ``4**(k-1) x 4`` array whose row ``i`` is
  ``(copy1_i, copy2_i, copy3_i, fresh_i)`` (family ``"subvolume"``: three independent
  copies of layer ``k-1``) or ``(copy_i, fresh, fresh, fresh)`` (family ``"logarithmic"``),
  ``M`` applied to every row, flattened row-major;
* then a pairwise operation on every row boundary ``(4i+3, 4i+4)`` that gives the
  sequence its linear order (without it the dependence is a tree).

The paper's extracted text leaves that boundary operation ambiguous (see the book's
notes); two readings keep the covariance positive definite:

* ``pair_op="mix"`` (reading (b), the default): the pair is mixed by the symmetric
  2x2 map ``[[a, b], [b, a]]`` that keeps unit variances and moves the pair's correlation
  to ``(rho_left + rho_right) / 5 + 2/5``, where ``rho_left``/``rho_right`` are the
  within-row correlations next to the boundary;
* ``pair_op="overwrite"`` (reading (a)): the covariance entry of the pair is overwritten
  with ``2 (rho_left + rho_right) / 5 + 1/5``; every other entry is left alone.

Reading (b) is a linear map on the samples, so sampling costs O(L) per sequence through
the layer maps. Reading (a) changes a covariance entry without any such map; it is
sampled from a Cholesky factor of the dense covariance (O(L^2) per sequence).

``copies`` independent copies are stacked: position ``i`` carries the ``copies``-vector of
the copies' ``i``-th variables (the token of the L2M experiments). Mutual informations
of the stacked sequence are ``copies`` times those of one copy.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from seqmi._optional import require
from seqmi.data.subvolume_cca import dense_canonical_correlations, recursive_canonical_correlations
from seqmi.data.subvolume_mixing import MIXING
from seqmi.data.subvolume_prefix import PrefixBlocks
from seqmi.device import DeviceLike, resolve_device
from seqmi.validate import check_choice, check_int

if TYPE_CHECKING:
    import torch

FAMILIES = ("subvolume", "logarithmic")
PAIR_OPS = ("mix", "overwrite")
METHODS = ("auto", "dense", "structured")
# "auto" keeps one dense factor when it is small and serves many split points at once
# (the whole split profile): below this size a dense Cholesky takes about a second
_DENSE_AUTO_MAX = 4096
_DENSE_AUTO_MIN_SPLITS = 16
_MMT = MIXING @ MIXING.T


class SubvolumeGaussian:
    """One member (fixed ``layers``) of a sub-volume Gaussian family.

    Parameters
    ----------
    layers : int
        Number of layers, ``1 <= layers <= 12``; the length is ``L = 4**layers``.
    family : {"subvolume", "logarithmic"}
        Three copies plus one fresh variable per row (bipartite MI grows as ``L**log_4(3)``)
        or one copy plus three fresh variables (bipartite MI grows logarithmically).
    copies : int
        Independent copies stacked into one ``copies``-dimensional token per position.
    pair_op : {"mix", "overwrite"}
        The boundary operation: reading (b) (default) or (a) of the module docstring.

    Notes
    -----
    Exact quantities never form a dense ``L x L`` matrix unless asked to
    (:meth:`covariance`): a contiguous block of the covariance is built from the block of
    the layer below that it depends on (a quarter of its size plus a row), and for
    ``pair_op="mix"`` the log-determinant of the whole covariance follows the recursion
    ``ln det S_k = c ln det S_(k-1) + 2 * 4**(k-1) ln|det M| + 2 sum ln(a^2 - b^2)``
    (``c = 3`` or ``1`` copies of the layer below, ``a, b`` the boundary maps), because
    layer ``k`` is a linear image of independent blocks. The covariance is invariant under
    reversal of the sequence, so both parts of a split are leading blocks.

    For reading (b) the leading blocks follow the same recursion
    (:class:`seqmi.data.subvolume_prefix.PrefixBlocks`): ``O(L)`` memory, under a second at
    ``L = 4**9`` on two CPU cores. Reading (a) has no linear map on the samples and keeps
    the dense path: one Cholesky factor of the larger part (size 8,192 at ``L = 4**7``,
    about 20 s on two CPU cores; 32,768 at ``4**8``, float64, 8.6 GB: a GPU via
    ``device``). Unequal splits use one dense factor too (:meth:`bipartite_mi_splits`):
    the factor of a leading block holds those of all smaller leading blocks.
    """

    def __init__(self, layers: int, family: str = "subvolume", copies: int = 1, pair_op: str = "mix") -> None:
        self.layers = check_int("layers", layers, 1, 12)
        self.family = check_choice("family", family, FAMILIES)
        self.copies = check_int("copies", copies, 1)
        self.pair_op = check_choice("pair_op", pair_op, PAIR_OPS)
        self.length = 4 ** self.layers
        self._n_prev = 3 if self.family == "subvolume" else 1
        # covariance between outputs of neighbouring rows, per unit covariance of the
        # layer-below variables feeding them: M restricted to the copied columns
        cols = MIXING[:, :3] if self.family == "subvolume" else MIXING[:, :1]
        self._cross = cols @ cols.T
        self._within_fresh = _MMT - self._cross
        rho_left, rho_right = _MMT[2, 3], _MMT[0, 1]
        if self.pair_op == "mix":
            self.pair_target = (rho_left + rho_right) / 5.0 + 2.0 / 5.0
        else:
            self.pair_target = 2.0 * (rho_left + rho_right) / 5.0 + 1.0 / 5.0
        self._maps = self._layer_maps() if self.pair_op == "mix" else None
        self._entry = lru_cache(maxsize=None)(self._entry_uncached)
        self._chol: dict[Any, Any] = {}
        self._prefix: PrefixBlocks | None = None

    # ------------------------------------------------------------------ structure
    def _layer_maps(self) -> list[tuple[NDArray[np.float64], NDArray[np.float64]]]:
        """Boundary maps ``(a, b)`` of layers 2..layers, from the superdiagonal recursion."""
        maps = []
        sup = np.full(3, _MMT[0, 1])  # layer 1: every pair has correlation -1/4
        for k in range(2, self.layers + 1):
            n = 4 ** (k - 1)
            rho0 = self._cross[3, 0] * sup  # pre-operation correlation of each boundary pair
            rho1 = self.pair_target
            plus = np.sqrt((1.0 + rho1) / (1.0 + rho0))
            minus = np.sqrt((1.0 - rho1) / (1.0 - rho0))
            a, b = (plus + minus) / 2.0, (plus - minus) / 2.0
            maps.append((a, b))
            sup = self._next_superdiagonal(sup, a, b, 4 * n)
        return maps

    def _next_superdiagonal(self, sup_prev: NDArray, a: NDArray, b: NDArray, length: int) -> NDArray:
        """``S_k[j, j+1]`` for all ``j`` after the boundary maps of layer ``k``."""
        j = np.arange(length)
        self_coef, part_coef, partner = np.ones(length), np.zeros(length), j.copy()
        u = 4 * np.arange(len(a)) + 3
        self_coef[u], part_coef[u], partner[u] = a, b, u + 1
        self_coef[u + 1], part_coef[u + 1], partner[u + 1] = a, b, u

        def w(p: NDArray, q: NDArray) -> NDArray:
            lo, hi = np.minimum(p, q), np.maximum(p, q)
            rp, rq = lo // 4, hi // 4
            same = rp == rq
            out = np.where(same, _MMT[lo % 4, hi % 4], 0.0)
            nb = rq == rp + 1
            out[nb] = sup_prev[rp[nb]] * self._cross[lo[nb] % 4, hi[nb] % 4]
            return out

        p, q = j[:-1], j[1:]
        total = np.zeros(length - 1)
        for cp, ip in ((self_coef[p], p), (part_coef[p], partner[p])):
            for cq, iq in ((self_coef[q], q), (part_coef[q], partner[q])):
                total += cp * cq * w(ip, iq)
        return total

    def _pairs(self, k: int) -> NDArray[np.int64]:
        """Left members ``4i+3`` of the boundary pairs of layer ``k``."""
        return 4 * np.arange(4 ** (k - 1) - 1) + 3

    def _block(self, k: int, lo: int, hi: int) -> NDArray[np.float64]:
        """Dense covariance block ``S_k[lo:hi, lo:hi]`` of one copy at layer ``k``."""
        if k == 1:
            return _MMT[lo:hi, lo:hi].copy()
        size = 4 ** k
        ext_lo, ext_hi = max(lo - 1, 0), min(hi + 1, size)
        r0, r1 = ext_lo // 4, (ext_hi - 1) // 4 + 1
        prev = self._block(k - 1, r0, r1)
        n_rows = r1 - r0
        cov = np.kron(prev, self._cross)
        rows = np.arange(n_rows)
        # the fresh inputs correlate outputs within a row only: add to the diagonal 4x4 blocks
        cov.reshape(n_rows, 4, n_rows, 4)[rows, :, rows, :] += self._within_fresh
        u = self._pairs(k)
        u = u[(u >= 4 * r0) & (u + 1 < 4 * r1)]
        ul, vl = u - 4 * r0, u + 1 - 4 * r0
        if self.pair_op == "mix":
            a, b = self._maps[k - 2]
            a, b = a[u // 4][:, None], b[u // 4][:, None]
            top, bot = cov[ul].copy(), cov[vl].copy()
            cov[ul], cov[vl] = a * top + b * bot, b * top + a * bot
            left, right = cov[:, ul].copy(), cov[:, vl].copy()
            cov[:, ul], cov[:, vl] = left * a.T + right * b.T, left * b.T + right * a.T
        else:
            cov[ul, vl] = cov[vl, ul] = self.pair_target
        off = lo - 4 * r0
        return cov[off:off + hi - lo, off:off + hi - lo]

    def _entry_uncached(self, k: int, p: int, q: int) -> float:
        if p > q:
            p, q = q, p
        if k == 1:
            return float(_MMT[p, q])
        if p == q:
            return 1.0
        if self.pair_op == "overwrite" and q == p + 1 and p % 4 == 3:
            return float(self.pair_target)
        terms = [(1.0, p, 1.0, q)]
        if self.pair_op == "mix":
            terms = [(cp, ip, cq, iq) for cp, ip in self._support(k, p) for cq, iq in self._support(k, q)]
        total = 0.0
        for cp, ip, cq, iq in terms:
            ri, rj = ip // 4, iq // 4
            if ri == rj:
                w = _MMT[ip % 4, iq % 4]
            else:
                w = self._entry(k - 1, ri, rj) * self._cross[ip % 4, iq % 4]
            total += cp * cq * w
        return float(total)

    def _support(self, k: int, p: int) -> list[tuple[float, int]]:
        """The pre-operation variables that output ``p`` of layer ``k`` is a combination of."""
        a, b = self._maps[k - 2]
        n_last = 4 ** k - 1
        if p % 4 == 3 and p < n_last:
            return [(float(a[p // 4]), p), (float(b[p // 4]), p + 1)]
        if p % 4 == 0 and p > 0:
            return [(float(a[p // 4 - 1]), p), (float(b[p // 4 - 1]), p - 1)]
        return [(1.0, p)]

    # ------------------------------------------------------------------ public API
    def covariance(self) -> NDArray[np.float64]:
        """Exact covariance of one copy, shape ``(L, L)``, float64 (dense: ``8 L^2`` bytes)."""
        return self._block(self.layers, 0, self.length)

    def covariance_block(self, lo: int, hi: int) -> NDArray[np.float64]:
        """Exact block ``S[lo:hi, lo:hi]`` of one copy, built without the full matrix.

        Parameters
        ----------
        lo, hi : int
            ``0 <= lo < hi <= L``.

        Returns
        -------
        ndarray, shape (hi - lo, hi - lo)
        """
        check_int("lo", lo, 0, self.length - 1)
        check_int("hi", hi, lo + 1, self.length)
        return self._block(self.layers, lo, hi)

    def correlation(self, i: int, j: int) -> float:
        """Exact correlation of positions ``i`` and ``j`` of one copy (O(layers) recursion)."""
        check_int("i", i, 0, self.length - 1)
        check_int("j", j, 0, self.length - 1)
        return self._entry(self.layers, int(i), int(j))

    def two_point_mi(self, i: int, j: int) -> float:
        """Exact ``I(z_i; z_j)`` in nats of the stacked token, ``-copies/2 ln(1 - rho^2)``.

        Parameters
        ----------
        i, j : int
            Two distinct positions in ``[0, L)``.

        Returns
        -------
        float
        """
        if i == j:
            raise ValueError(f"i and j must differ, got {i} and {j}")
        rho = self.correlation(i, j)
        return float(-0.5 * self.copies * np.log1p(-rho * rho))

    def logdet(self, device: DeviceLike = "cpu") -> float:
        """``ln det S`` of one copy: the layer recursion for ``"mix"``, a dense Cholesky otherwise."""
        if self.pair_op == "overwrite":
            return _logdet(self.covariance(), device)
        value = 2.0 * np.log(abs(np.linalg.det(MIXING)))
        for k in range(2, self.layers + 1):
            a, b = self._maps[k - 2]
            value = (self._n_prev * value + 2.0 * 4 ** (k - 1) * np.log(abs(np.linalg.det(MIXING)))
                     + 2.0 * np.log(a * a - b * b).sum())
        return float(value)

    def bipartite_mi(self, ell: int | None = None, device: DeviceLike = "cpu", method: str = "auto") -> float:
        """Exact ``I(z_{<ell}; z_{>=ell})`` in nats of the stacked sequence.

        Parameters
        ----------
        ell : int, optional
            Size of the first part, ``1 <= ell < L``; default ``L // 2``.
        device : {"cpu", "auto", "cuda"} or torch.device
            Where the dense Cholesky factors of the two sides are computed: numpy
            (LAPACK) on the CPU, torch on a GPU. The structured path runs on the CPU.
        method : {"auto", "dense", "structured"}
            ``"structured"``: the layer recursion of
            :class:`~seqmi.data.subvolume_prefix.PrefixBlocks` (reading (b) only);
            ``"dense"``: Cholesky factors of the two parts; ``"auto"``: structured for
            reading (b), dense for reading (a).

        Returns
        -------
        float
        """
        ell = self.length // 2 if ell is None else check_int("ell", ell, 1, self.length - 1)
        return float(self.bipartite_mi_splits([ell], device=device, method=method)[0])

    def bipartite_mi_splits(self, ells: Sequence[int], device: DeviceLike = "cpu",
                            method: str = "auto") -> NDArray[np.float64]:
        """Exact ``I(z_{<ell}; z_{>=ell})`` in nats of the stacked sequence at many split points.

        Reversal invariance of the covariance makes the second part's log-determinant that
        of the leading block of the same size, and the log-det of the whole matrix comes
        from the layer recursion (:meth:`logdet`), so every split needs log-determinants of
        leading blocks only. The structured path computes each through the layer recursion
        (``O(L)`` work and memory per split). The dense path uses one Cholesky factor for
        every split: the factor of a leading block ``S[:n, :n]`` is the leading block of the
        factor of any larger leading block, so the log-determinants of all leading blocks up
        to ``n`` are the cumulative sums of ``2 ln C_ii``. Its cost is one factor of size
        ``max(max(ell, L - ell))``: ``3L/4`` for the splits ``L/ell = 2, 3, 4`` together,
        ``L - 1`` for the whole profile ``ell = 1 .. L-1``.

        Parameters
        ----------
        ells : sequence of int
            Sizes of the first part, each in ``[1, L - 1]``.
        device : {"cpu", "auto", "cuda"} or torch.device
            Where the dense Cholesky factor is computed: numpy on the CPU, torch on a GPU.
        method : {"auto", "dense", "structured"}
            As in :meth:`bipartite_mi`; ``"auto"`` also keeps the dense factor for reading
            (b) when it is at most 4,096 wide and serves more than 16 split points.

        Returns
        -------
        ndarray, shape (len(ells),)
        """
        ells = [check_int(f"ells[{i}]", e, 1, self.length - 1) for i, e in enumerate(ells)]
        if not ells:
            raise ValueError("ells must hold at least one split point")
        device = resolve_device(device)
        n = max(max(e, self.length - e) for e in ells)
        total = self.logdet(device)
        if self._split_method(method, n, len(ells)) == "structured":
            blocks = self.prefix_blocks()
            prefix = {e: blocks.logdet(self.layers, e) for e in {*ells, *(self.length - e for e in ells)}}
        else:
            diag = _cholesky_diagonal(self._block(self.layers, 0, n), device)
            prefix = np.concatenate([[0.0], np.cumsum(2.0 * np.log(diag))])
        return np.array([0.5 * self.copies * (prefix[e] + prefix[self.length - e] - total) for e in ells])

    def _split_method(self, method: str, n: int, count: int) -> str:
        check_choice("method", method, METHODS)
        if method == "structured" and self.pair_op != "mix":
            raise ValueError("method='structured' needs pair_op='mix': reading (a) overwrites covariance "
                             "entries without a linear map on the samples, so only method='dense' applies")
        if method != "auto":
            return method
        if self.pair_op != "mix" or (n <= _DENSE_AUTO_MAX and count > _DENSE_AUTO_MIN_SPLITS):
            return "dense"
        return "structured"

    def prefix_blocks(self) -> PrefixBlocks:
        """The layer recursion for leading covariance blocks (reading (b); cached)."""
        if self._prefix is None:
            self._prefix = PrefixBlocks(self)
        return self._prefix

    def canonical_correlations(self, ell: int | None = None, method: str = "auto") -> NDArray[np.float64]:
        """Canonical correlations between ``z_{<ell}`` and ``z_{>=ell}`` of the stacked sequence.

        ``I(z_{<ell}; z_{>=ell}) = sum_i -1/2 ln(1 - rho_i^2)`` (equal to
        :meth:`bipartite_mi`), and a linear state of dimension ``d`` keeps at most the
        ``d`` largest terms (:func:`seqmi.l2m.linear_state_excess`). The ``copies`` stacked
        copies are independent, so every correlation of one copy appears ``copies`` times.

        Parameters
        ----------
        ell : int, optional
            Size of the first part, ``1 <= ell < L``; default ``L // 2``.
        method : {"auto", "dense", "structured"}
            ``"structured"``: the layer recursion of :mod:`seqmi.data.subvolume_cca`
            (equal split of reading (b) only; ``L = 4**12`` in about two minutes on two
            CPU cores); ``"dense"``: Cholesky factors and one SVD (``layers <= 6``);
            ``"auto"``: structured where it applies, dense otherwise.

        Returns
        -------
        ndarray
            The non-zero correlations (above 1e-13), descending.

        Examples
        --------
        >>> rho = SubvolumeGaussian(3).canonical_correlations()
        >>> len(rho), round(float(-0.5 * np.log1p(-rho ** 2).sum()), 6)
        (16, 2.863014)
        """
        ell = self.length // 2 if ell is None else check_int("ell", ell, 1, self.length - 1)
        check_choice("method", method, METHODS)
        recursive = self.pair_op == "mix" and 2 * ell == self.length
        if method == "structured" and not recursive:
            raise ValueError(f"method='structured' needs pair_op='mix' and the equal split ell={self.length // 2}, "
                             f"got pair_op={self.pair_op!r}, ell={ell}: use method='dense'")
        if method == "structured" or (method == "auto" and recursive):
            rho = recursive_canonical_correlations(self)
        else:
            if self.layers > 6:
                raise ValueError(f"method='dense' forms the L x L covariance: layers must be at most 6, "
                                 f"got {self.layers}")
            rho = dense_canonical_correlations(self.covariance(), ell)
            rho = rho[rho > 1e-13]
        return np.repeat(rho, self.copies)

    def cross_rank(self, ell: int | None = None, rtol: float = 1e-10) -> int:
        """Rank of the cross-covariance ``Cov(z_{<ell}, z_{>=ell})`` of one copy (dense, ``layers <= 6``).

        The rank is the number of non-zero canonical correlations ``rho_i`` between the two
        parts, and ``I = -1/2 sum_i ln(1 - rho_i^2)`` per copy: it counts the modes that carry
        the bipartite MI. For an equal split of reading (b) the halves of layer ``k`` before
        the boundary maps are invertible images of the halves of the ``c`` copies and of
        fresh normals, so the rank is ``c`` times that of layer ``k-1``; the one boundary
        pair that straddles the cut adds at most 2.

        Parameters
        ----------
        ell : int, optional
            Size of the first part; default ``L // 2``.
        rtol : float
            Singular values below ``rtol`` times the largest count as zero.

        Returns
        -------
        int
        """
        if self.layers > 6:
            raise ValueError(f"cross_rank forms the dense cross-covariance: layers must be at most 6, "
                             f"got {self.layers}")
        ell = self.length // 2 if ell is None else check_int("ell", ell, 1, self.length - 1)
        values = np.linalg.svd(self.covariance()[:ell, ell:], compute_uv=False)
        return int((values > rtol * values[0]).sum())

    def sample(self, n: int, seed: int | np.random.Generator) -> NDArray[np.float64]:
        """Draw ``n`` independent stacked sequences.

        With ``pair_op="mix"`` the sequences are built through the layer maps, O(L) work
        per sequence and copy: layer ``k`` consumes ``c`` sampled sequences of layer
        ``k-1`` (``c = 3`` or 1) plus fresh normals, so the cost is ``sum_k c^(layers-k) 4^k
        = O(4^layers)``. With ``"overwrite"`` a Cholesky factor of the dense covariance
        is used.

        Parameters
        ----------
        n : int
            Number of sequences.
        seed : int or numpy.random.Generator
            Seed (or generator) of the normals.

        Returns
        -------
        ndarray, shape (n, L, copies)
        """
        check_int("n", n, 1)
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        m = n * self.copies
        if self.pair_op == "overwrite":
            factor = self._cholesky_np()
            z = rng.standard_normal((m, self.length)) @ factor.T
        else:
            count = m * self._n_prev ** (self.layers - 1)
            z = rng.standard_normal((count, 4)) @ MIXING.T
            for k in range(2, self.layers + 1):
                width = z.shape[1]
                z = z.reshape(-1, self._n_prev, width).transpose(0, 2, 1)
                fresh = rng.standard_normal((z.shape[0], width, 4 - self._n_prev))
                rows = np.concatenate([z, fresh], axis=2)
                z = (rows @ MIXING.T).reshape(z.shape[0], 4 * width)
                a, b = self._maps[k - 2]
                u = self._pairs(k)
                left, right = z[:, u].copy(), z[:, u + 1].copy()
                z[:, u], z[:, u + 1] = a * left + b * right, b * left + a * right
        return np.ascontiguousarray(z.reshape(n, self.copies, self.length).transpose(0, 2, 1))

    def _cholesky_np(self) -> NDArray[np.float64]:
        if "np" not in self._chol:
            self._chol["np"] = np.linalg.cholesky(self.covariance())
        return self._chol["np"]

    def cholesky(self, device: DeviceLike = "cpu") -> "torch.Tensor":
        """Lower Cholesky factor of one copy's covariance as a float64 torch tensor (cached)."""
        torch = require("torch")

        device = resolve_device(device)
        key = str(device)
        if key not in self._chol:
            self._chol[key] = torch.linalg.cholesky(torch.as_tensor(self.covariance(), dtype=torch.float64,
                                                                    device=device))
        return self._chol[key]

    def sample_with_conditionals(self, n: int, seed: int,
                                 device: DeviceLike = "cpu") -> tuple["torch.Tensor", "torch.Tensor", "torch.Tensor"]:
        """Draw ``n`` stacked sequences on ``device`` together with their exact conditionals.

        With the lower Cholesky factor ``C`` of one copy's covariance (:meth:`cholesky`,
        cached per device, float64) and ``e ~ N(0, I)`` drawn there from ``seed`` (by a
        :class:`torch.Generator` on a GPU, by numpy's on the CPU), ``z = C e`` is one matrix product
        for all ``n * copies`` columns, and ``z_i = sum_{j<i} C_ij e_j + C_ii e_i`` gives
        the conditionals of :meth:`conditionals` without its triangular solve:
        ``mu_i = z_i - C_ii e_i``, ``sigma_i = C_ii``. The cost is ``2 L^2`` flops per
        sequence and copy (the product runs over the factor's zero upper triangle too) and
        ``8 L^2`` bytes for the factor (8 MB at ``L = 1024``, 2 GB at ``4**7``). Both
        readings are sampled alike.

        The draws depend on ``seed`` and the device's generator only: equal on one device,
        other draws (of the same distribution) on another kind of device and from
        :meth:`sample`.

        Measured numerical error (``benchmarks/bench_gaussian_sampler.py``, CPU, 16
        sequences of 64 copies): the returned ``mu`` and :meth:`conditionals` applied to
        the same ``z`` differ by at most 1.0e-14 ``sigma_i`` at ``L = 256`` and 2.4e-14
        at ``L = 1024`` (float64 rounding: the factor is well conditioned, ``C_ii >=
        0.65``; ``sigma`` is equal bit for bit). The empirical covariance of 114,688
        sequences of one copy is within 4.0 standard errors ``sqrt((S_ii S_jj + S_ij^2) /
        n)`` of the exact one in each of the 32,896 distinct entries at ``L = 256``, 4.7 in
        each of the 524,800 at ``L = 1024``, their mean squares 1.004 and 1.001 (1 for an
        exact sampler). ``tests/data/test_subvolume_sampler.py`` holds both to 1e-10 ``sigma_i``
        and 5.5 standard errors.

        Parameters
        ----------
        n : int
            Number of sequences.
        seed : int
            Seed of the normals, ``0 <= seed < 2**64`` (a training loop draws one per batch
            from its numpy generator).
        device : {"cpu", "auto", "cuda"} or torch.device
            Where the normals are drawn and every product is computed.

        Returns
        -------
        z, mu, sigma : torch.Tensor, shape (n, L, copies), float64, on ``device``
            The sequences and the mean and standard deviation of each ``z_i`` given ``z_<i``
            (``sigma`` broadcast over the batch and the copies).
        """
        torch = require("torch")

        check_int("n", n, 1)
        seed = check_int("seed", seed, 0, 2 ** 64 - 1)
        device = resolve_device(device)
        # float64 throughout. float32 would be accurate enough on a GPU (measured on the
        # CPU: mu off by at most 1.9e-6 sigma_i at L = 1024, a KL error below 1e-11 nats,
        # if products are IEEE float32, as seqmi.device makes them on CUDA, not TF32) but
        # buys nothing on the GPUs the full profiles use: an H100 or H200 multiplies
        # float64 matrices on its tensor cores at about its float32 rate (60-67 TFLOP/s),
        # and the product takes tens of microseconds (2 GFLOP at L = 1024) either way.
        factor = self.cholesky(device)
        m = n * self.copies
        if device.type == "cuda":
            # Philox, keyed by all 64 bits of the seed
            generator = torch.Generator(device=device)
            generator.manual_seed(seed)
            eps = torch.randn(self.length, m, generator=generator, dtype=torch.float64, device=device)  # (L, n*copies)
        else:
            # torch's CPU generator (mt19937) keeps only the low 32 bits of a seed, so a long
            # run's batches would repeat (half a million batches: about 29 pairs); numpy's
            # PCG64 takes the whole seed, and draws faster (19 against 40 ms on one core for
            # the full profile's batch at L = 1024)
            eps = torch.from_numpy(np.random.default_rng(seed).standard_normal((self.length, m)))  # (L, n*copies)
        z = factor @ eps  # one product for every sequence and copy, (L, n*copies)
        diag = torch.diagonal(factor)[:, None]  # (L, 1)
        mu = z - diag * eps

        def batch_first(x: torch.Tensor) -> torch.Tensor:
            return x.view(self.length, n, self.copies).permute(1, 0, 2).contiguous()  # (n, L, copies)

        return batch_first(z), batch_first(mu), diag.expand(self.length, self.copies).expand(n, -1, -1)

    def conditionals(self, z: Any) -> tuple[Any, Any]:
        """Mean and standard deviation of every ``z_i`` given ``z_<i``, from one Cholesky factor.

        With ``S = C C^T`` and ``e = C^{-1} z`` (one triangular solve per sequence),
        ``z_i = sum_{j<i} C_ij e_j + C_ii e_i``, so ``mu_i = z_i - C_ii e_i`` and
        ``sigma_i = C_ii``.

        Parameters
        ----------
        z : ndarray or torch.Tensor, shape (..., L, copies)
            Sequences as returned by :meth:`sample`; a torch tensor is handled on its own
            device (the factor is computed there once, in float64).

        Returns
        -------
        mu, sigma : same type and shape as ``z`` (``sigma`` broadcast over the batch)
        """
        if z.shape[-2:] != (self.length, self.copies):
            raise ValueError(f"z must end in shape ({self.length}, {self.copies}), got {tuple(z.shape)}")
        if isinstance(z, np.ndarray):
            from scipy.linalg import solve_triangular

            factor = self._cholesky_np()
            flat = np.moveaxis(z, -2, 0).reshape(self.length, -1)
            eps = solve_triangular(factor, flat, lower=True)
            diag = np.diag(factor)
            mu = np.moveaxis((flat - diag[:, None] * eps).reshape((self.length,) + z.shape[:-2] + (self.copies,)),
                             0, -2)
            sigma = np.broadcast_to(diag[:, None], z.shape)
            return mu, sigma
        torch = require("torch")

        factor = self.cholesky(z.device)
        flat = z.to(torch.float64).movedim(-2, 0).reshape(self.length, -1)
        eps = torch.linalg.solve_triangular(factor, flat, upper=False)
        diag = torch.diagonal(factor)
        mu = (flat - diag[:, None] * eps).reshape((self.length,) + tuple(z.shape[:-2]) + (self.copies,))
        return mu.movedim(0, -2).to(z.dtype), diag[:, None].expand(z.shape).to(z.dtype)

    def context_free_kl(self) -> NDArray[np.float64]:
        """Position-wise KL (nats per coordinate) of the best predictor that ignores the context.

        The prediction of ``z_i`` that minimises the expected KL from the true conditional
        ``N(mu_i, C_ii^2)`` without reading ``z_<i`` is the marginal ``N(0, S_ii)``; it
        costs ``0.5 ln(S_ii / C_ii^2) = I(z_i; z_<i)`` on average. A trained model whose
        KL does not fall clearly below this curve has not used the context.
        """
        return 0.5 * np.log(np.diag(self.covariance()) / np.diag(self._cholesky_np()) ** 2)

    def conditional_entropy(self) -> NDArray[np.float64]:
        """``H(z_i | z_<i)`` in nats per position for the stacked token (``copies`` times one copy)."""
        diag = np.diag(self._cholesky_np())
        return self.copies * (0.5 * np.log(2 * np.pi * np.e) + np.log(diag))


def _logdet(matrix: NDArray[np.float64], device: DeviceLike) -> float:
    """``ln det`` of a positive-definite matrix from its Cholesky factor (numpy or torch)."""
    return float(2.0 * np.log(_cholesky_diagonal(matrix, device)).sum())


def _cholesky_diagonal(matrix: NDArray[np.float64], device: DeviceLike) -> NDArray[np.float64]:
    """Diagonal of the lower Cholesky factor of a positive-definite matrix (numpy or torch)."""
    device = resolve_device(device)
    if device.type == "cpu":
        try:
            factor = np.linalg.cholesky(matrix)
        except np.linalg.LinAlgError as err:
            raise ValueError(f"covariance block of size {matrix.shape[0]} is not positive definite") from err
        return np.diag(factor).copy()
    torch = require("torch")

    factor, info = torch.linalg.cholesky_ex(torch.as_tensor(matrix, dtype=torch.float64, device=device))
    if int(info) != 0:
        raise ValueError(f"covariance block of size {matrix.shape[0]} is not positive definite")
    return torch.diagonal(factor).cpu().numpy().copy()
