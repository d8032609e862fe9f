"""Theorem 2 of Kerg et al. 2020 on sparse attention patterns that are not built for it.

Theorem 2 (supplement A.4) bounds the gradient of a self-attentive RNN whose steps attend to
at most ``kappa`` states with uniform weights: ``||d s_{t+k} / d h_t|| = Omega(1 / kappa^d)``,
``d`` the dependency depth. Chapter 06 first checks it on
:class:`~seqmi.models.attentive_rnn.SparseAttention`, a pattern made so that ``d`` is fixed.
Here the patterns are generic, and ``d`` is measured per distance:

* :class:`RandomSparsePattern`: every step attends to itself and to ``kappa - 1`` earlier
  states drawn uniformly at random;
* :class:`SlidingWindowPattern`: every step attends to the last ``kappa`` states.

In the linear model of the supplement (``s_m = h_m + mean_{i in A_m} h_i``,
``h_{m+1} = V s_m``) a path from ``h_t`` to ``s_M`` is a sequence of *hops* ``h_i -> s_m``
(``i`` in ``A_m``, weight at least ``1/kappa``) joined by factors ``V``. Along an
eigenvector of ``V`` with eigenvalue ``lambda > 0`` every path adds a positive amount, so the
gradient is at least the contribution of a path with the fewest hops ``d(M)``:
``lambda^(d-1) / kappa^d`` (:func:`log_path_bounds`). :func:`dependency_depths` finds ``d(M)``
by dynamic programming and :func:`pattern_linear_norms` the exact gradient, so the margin of
the bound can be measured at every distance.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from seqmi.validate import check_int

Attended = Callable[[int], Sequence[int]]


@dataclass(frozen=True)
class RandomSparsePattern:
    """Step ``m`` attends to itself and to ``min(kappa - 1, m)`` distinct earlier states, drawn
    uniformly from ``0 .. m-1`` (one fixed draw per step, from ``seed``).

    Parameters
    ----------
    kappa : int
        At most ``kappa >= 2`` attended states per step.
    length : int
        Steps ``0 .. length-1`` are drawn.
    seed : int or tuple of int
        Seed of the draws (a tuple seeds one ``numpy.random.SeedSequence`` from all its entries).
    """

    kappa: int
    length: int
    seed: int | tuple[int, ...] = 0
    _sets: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        check_int("kappa", self.kappa, 2)
        check_int("length", self.length, 1)
        rng = np.random.default_rng(self.seed)
        sets = tuple(tuple(sorted({m, *rng.choice(m, size=min(self.kappa - 1, m), replace=False).tolist()}))
                     for m in range(self.length))
        object.__setattr__(self, "_sets", sets)

    def attended(self, m: int) -> list[int]:
        """Sorted indices of the states attended at step ``m``."""
        check_int("m", m, 0, self.length - 1)
        return list(self._sets[m])


@dataclass(frozen=True)
class SlidingWindowPattern:
    """Step ``m`` attends to the last ``kappa`` states ``max(0, m-kappa+1) .. m``."""

    kappa: int

    def __post_init__(self) -> None:
        check_int("kappa", self.kappa, 2)

    def attended(self, m: int) -> list[int]:
        """Sorted indices of the states attended at step ``m``."""
        return list(range(max(0, m - self.kappa + 1), m + 1))


def pattern_linear_norms(lams: ArrayLike, attended: Attended, t: int, T: int,
                         log: bool = False) -> NDArray[np.float64]:
    """``||d s_m / d h_t||_F`` for ``m = t .. T-1``, exactly, for ``V = diag(lams)``.

    The model is the supplement's linear one with a fixed pattern:
    ``s_m = h_m + mean_{i in A_m} h_i`` and ``h_{m+1} = V s_m``, one eigenvalue at a time.

    Parameters
    ----------
    lams : array_like
        Eigenvalues of the diagonal recurrent matrix ``V``.
    attended : callable
        ``attended(m)``: the indices ``A_m`` attended at step ``m`` (``m`` among them).
    t : int
        The perturbed state ``h_t``.
    T : int
        Number of steps, ``T > t``.
    log : bool
        Return ``ln`` of the norms: the recursion is rescaled whenever it shrinks below
        ``1e-100``, so exponentially decaying norms do not underflow.

    Returns
    -------
    ndarray, shape (T - t,)
    """
    check_int("t", t, 0)
    check_int("T", T, t + 1)
    lam = np.asarray(lams, dtype=np.float64)
    grad = np.zeros((T + 1, lam.size))  # d h_i / d h_t (times exp(-scale)); states before t do not depend on it
    grad[t] = 1.0
    scale = 0.0
    out = np.empty(T - t)
    for i, m in enumerate(range(t, T)):
        idx = attended(m)
        s = grad[m] + grad[idx].sum(axis=0) / len(idx)
        norm = float(np.sqrt(np.sum(s * s)))
        out[i] = np.log(norm) + scale if log else norm
        grad[m + 1] = lam * s
        if log and 0.0 < norm < 1e-100:
            grad[t:m + 2] /= norm
            scale += np.log(norm)
    return out


def dependency_depths(attended: Attended, t: int, T: int) -> NDArray[np.int64]:
    """Fewest hops ``h_i -> s_m`` (``i`` in ``A_m``) on a path from ``h_t`` to ``s_m``, ``m = t .. T-1``.

    ``s_m`` is one hop further than the nearest attended state, and ``h_{m+1} = V s_m`` as far
    as ``s_m``; states before ``t`` are unreachable.

    Returns
    -------
    ndarray of int, shape (T - t,)
    """
    check_int("t", t, 0)
    check_int("T", T, t + 1)
    unreachable = np.iinfo(np.int64).max // 2
    hops_h = np.full(T + 1, unreachable, dtype=np.int64)
    hops_h[t] = 0
    out = np.empty(T - t, dtype=np.int64)
    for i, m in enumerate(range(t, T)):
        out[i] = hops_h[attended(m)].min() + 1
        hops_h[m + 1] = out[i]
    return out


def log_path_bounds(depths: ArrayLike, kappa: int, lam: float) -> NDArray[np.float64]:
    """``ln`` of Theorem 2's bound with the measured depths, ``ln(lam^(d-1) / kappa^d)``, ``lam > 0``."""
    if not lam > 0:
        raise ValueError(f"the path bound needs a positive eigenvalue, got lam={lam}")
    check_int("kappa", kappa, 2)
    d = np.asarray(depths, dtype=np.float64)
    return (d - 1) * np.log(lam) - d * np.log(kappa)


def survey(kind: str, kappa: int, lams: ArrayLike, horizon: int, n_patterns: int = 1, seed: int = 0,
           t: int = 10) -> dict[str, NDArray[np.float64] | float]:
    """Gradient, dependency depth and the margin of Theorem 2's bound over many patterns.

    Parameters
    ----------
    kind : {"random", "window"}
        :class:`RandomSparsePattern` (``n_patterns`` draws) or :class:`SlidingWindowPattern`
        (one pattern: it has no randomness).
    kappa : int
        Attended states per step.
    lams : array_like
        Eigenvalues of ``V``; the bound uses the largest, which must be positive.
    horizon : int
        Steps ``T``; distances ``k = 0 .. horizon - t - 1``.
    n_patterns : int
        Random patterns drawn (ignored for ``"window"``).
    seed : int
        Seed; pattern ``i`` uses ``(seed, kappa, i)``.
    t : int
        The perturbed state (after ``t`` steps, so that every step can attend ``kappa`` states).

    Returns
    -------
    dict
        ``log_norms`` and ``depths`` (shape ``(patterns, horizon - t)``), ``log_margin``
        (``ln`` norm minus ``ln`` bound, same shape) and ``min_log_margin`` (its minimum: at
        least 0 wherever the theorem holds).
    """
    if kind not in ("random", "window"):
        raise ValueError(f"kind must be 'random' or 'window', got {kind!r}")
    check_int("horizon", horizon, t + 2)
    check_int("n_patterns", n_patterns, 1)
    if kind == "random":
        patterns = [RandomSparsePattern(kappa, horizon, (seed, kappa, i)) for i in range(n_patterns)]
    else:
        patterns = [SlidingWindowPattern(kappa)]
    log_norms = np.array([pattern_linear_norms(lams, p.attended, t, horizon, log=True) for p in patterns])
    depths = np.array([dependency_depths(p.attended, t, horizon) for p in patterns])
    log_margin = log_norms - log_path_bounds(depths, kappa, float(np.max(lams)))
    return {"log_norms": log_norms, "depths": depths, "log_margin": log_margin,
            "min_log_margin": float(log_margin.min())}


def summarize(result: dict, k_from: int = 100) -> dict[str, float]:
    """Headline numbers of a :func:`survey` result, from the median over patterns.

    Parameters
    ----------
    result : dict
        As returned by :func:`survey`.
    k_from : int
        Smallest distance used in the two decay fits.

    Returns
    -------
    dict
        ``min_margin_log``; ``median_depth_far`` (depth at the largest distance);
        ``loglog_slope`` (of ``ln`` norm against ``ln k``: a power law's exponent) and
        ``rate_per_step`` (of ``ln`` norm against ``k``: an exponential's rate), both fitted
        from ``k_from`` on; ``log_norm_far``.
    """
    median = np.median(result["log_norms"], axis=0)
    k = np.arange(1, median.size + 1)
    check_int("k_from", k_from, 1, median.size - 2)
    far = k >= k_from
    return {"patterns": int(result["depths"].shape[0]), "min_margin_log": float(result["min_log_margin"]),
            "median_depth_far": float(np.median(result["depths"][:, -1])),
            "loglog_slope": float(np.polyfit(np.log(k[far]), median[far], 1)[0]),
            "rate_per_step": float(np.polyfit(k[far], median[far], 1)[0]), "log_norm_far": float(median[-1])}
