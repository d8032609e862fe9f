"""Binary sequences with designed two-point mutual information (Shen 2019, Appendices B, C).

Appendix B: threshold a stationary Gaussian sequence, ``y_t = [x_t > 0]``. Two unit
Gaussians with correlation ``c = cos(theta)`` give two fair bits with

    I(theta) = [pi ln(2/pi) + (pi - theta) ln(pi - theta) + theta ln(theta)] / pi   (eq. 46)

so inverting eq. 46 at each distance gives the Gaussian correlation that produces any
designed ``I(tau)``, exactly, at every ``tau``. Appendix C: repetitive pairs ``01``/``10``
whose two-point MI never decays (eq. 52).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from seqmi.info import mi_from_joint
from seqmi.validate import check_choice, check_float, check_int, check_lags

SAMPLERS = ("auto", "cholesky", "circulant")
# sequences at least this long use circulant embedding under "auto"
CIRCULANT_MIN_LENGTH = 1 << 14
LN2 = float(np.log(2.0))


def sign_mi(c: ArrayLike) -> NDArray[np.float64]:
    """Eq. 46: MI (nats) of the signs of two unit Gaussians with correlation ``c``.

    Parameters
    ----------
    c : array_like of float
        Correlations in ``[-1, 1]`` (the MI is even in ``c``).

    Returns
    -------
    ndarray of float
        ``I(|c|)``, from 0 at ``c = 0`` to ``ln 2`` at ``|c| = 1``.
    """
    c = np.abs(np.asarray(c, dtype=float))
    if np.any(c > 1):
        raise ValueError(f"correlations must lie in [-1, 1], got max |c| = {c.max()}")
    theta = np.arccos(c)
    with np.errstate(divide="ignore", invalid="ignore"):
        t_ln_t = np.where(theta > 0, theta * np.log(theta), 0.0)
    return (np.pi * np.log(2 / np.pi) + (np.pi - theta) * np.log(np.pi - theta) + t_ln_t) / np.pi


def correlation_for_mi(mi: ArrayLike) -> NDArray[np.float64]:
    """Invert eq. 46: the Gaussian correlation ``c >= 0`` whose signs share ``mi`` nats.

    ``I`` decreases monotonically in ``theta`` on ``[0, pi/2]``, so bisection on
    ``theta`` (60 halvings, to machine precision) is exact and vectorised.

    Parameters
    ----------
    mi : array_like of float
        Target MI values in ``[0, ln 2]``.

    Returns
    -------
    ndarray of float
    """
    target = np.asarray(mi, dtype=float)
    if np.any(~np.isfinite(target)) or np.any(target < 0) or np.any(target > LN2):
        raise ValueError(f"mutual information of two bits must lie in [0, ln 2], got range "
                         f"[{target.min()}, {target.max()}]")
    lo = np.zeros_like(target)
    hi = np.full_like(target, np.pi / 2)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        too_much = sign_mi(np.cos(mid)) > target
        lo = np.where(too_much, mid, lo)
        hi = np.where(too_much, hi, mid)
    return np.cos(0.5 * (lo + hi))


def binary_from_mi(
    mi_of_distance: Callable[[NDArray[np.int64]], ArrayLike],
    n_seq: int,
    length: int,
    seed: int,
    method: str = "auto",
) -> NDArray[np.int8]:
    """Binary sequences whose pairs at every distance ``d >= 1`` share ``mi_of_distance(d)`` nats.

    Each row is ``[x_t > 0]`` for a stationary Gaussian sequence with unit variance and
    correlation ``correlation_for_mi(mi_of_distance(d))`` at distance ``d``; the design
    is realisable only if that Toeplitz matrix is positive definite (checked).

    Parameters
    ----------
    mi_of_distance : callable
        Maps an integer array of distances ``d >= 1`` to MI values in ``[0, ln 2)``. For
        circulant embedding it is also evaluated beyond ``length - 1``.
    n_seq, length : int
        Number and length of the sequences.
    seed : int
        Seed of the numpy generator.
    method : {"auto", "cholesky", "circulant"}
        ``"cholesky"``: exact, ``O(L^3)`` once then ``O(L^2)`` per sequence.
        ``"circulant"``: circulant embedding, ``O(L log L)`` per sequence, exact when the
        embedding's eigenvalues are non-negative; otherwise falls back to Cholesky with
        a warning. ``"auto"``: circulant for ``length >= 2**14``.

    Returns
    -------
    ndarray of int8, shape (n_seq, length)
        Zeros and ones.
    """
    check_int("n_seq", n_seq, 1)
    check_int("length", length, 2)
    check_choice("method", method, SAMPLERS)
    rng = np.random.default_rng(seed)
    if method == "auto":
        method = "circulant" if length >= CIRCULANT_MIN_LENGTH else "cholesky"
    if method == "circulant":
        gauss = _circulant_sample(mi_of_distance, n_seq, length, rng)
        if gauss is not None:
            return (gauss > 0).astype(np.int8)
    return (_cholesky_sample(mi_of_distance, n_seq, length, rng) > 0).astype(np.int8)


def binary_power_law(
    n_seq: int, length: int, A: float, gamma: float, seed: int, method: str = "auto"
) -> NDArray[np.int8]:
    """Binary sequences with two-point MI exactly ``A tau^(-gamma)`` at every ``tau >= 1``.

    Parameters
    ----------
    n_seq, length : int
        Number and length of the sequences.
    A : float
        MI at distance 1, ``0 < A < ln 2``.
    gamma : float
        Decay exponent, ``> 0``.
    seed : int
        Seed of the numpy generator.
    method : {"auto", "cholesky", "circulant"}
        Sampler, see :func:`binary_from_mi`.

    Returns
    -------
    ndarray of int8, shape (n_seq, length)
    """
    check_float("A", A, 0.0, LN2, low_open=True, high_open=True)
    check_float("gamma", gamma, 0.0, low_open=True)
    return binary_from_mi(lambda d: A * np.asarray(d, dtype=float) ** (-gamma), n_seq, length, seed, method)


def _correlations(mi_of_distance: Callable, n: int, length: int) -> NDArray[np.float64]:
    """``[1, c(1), ..., c(n - 1)]`` for the design."""
    d = np.arange(1, n)
    mi = np.asarray(mi_of_distance(d), dtype=float)
    if mi.shape != d.shape:
        raise ValueError(f"mi_of_distance must return one value per distance, got shape {mi.shape}")
    if np.any(mi >= LN2) or np.any(mi < 0):
        raise ValueError("designed MI must lie in [0, ln 2) at every distance (ln 2 means identical bits)")
    return np.concatenate([[1.0], correlation_for_mi(mi)])


def _cholesky_sample(mi_of_distance: Callable, n_seq: int, length: int,
                     rng: np.random.Generator) -> NDArray[np.float64]:
    from scipy.linalg import toeplitz

    cov = toeplitz(_correlations(mi_of_distance, length, length))
    try:
        factor = np.linalg.cholesky(cov)
    except np.linalg.LinAlgError as err:
        low = float(np.linalg.eigvalsh(cov)[0])
        raise ValueError(
            f"this MI design is not realisable at length {length}: the Gaussian correlation "
            f"matrix it needs is not positive definite (smallest eigenvalue {low:.3g}); "
            "use a shorter length, a smaller amplitude or a faster decay") from err
    return rng.standard_normal((n_seq, length)) @ factor.T


def _circulant_sample(mi_of_distance: Callable, n_seq: int, length: int,
                      rng: np.random.Generator) -> NDArray[np.float64] | None:
    """Circulant embedding (Dietrich & Newsam 1997); ``None`` if no embedding is non-negative.

    The Toeplitz covariance is the top-left block of a circulant of size ``m`` whose
    eigenvalues ``lam`` are the FFT of its first row; for ``z`` complex standard normal,
    ``fft(sqrt(lam / m) z)`` has real and imaginary parts that are two independent
    samples with exactly that circulant covariance.
    """
    m = 1 << int(np.ceil(np.log2(2 * (length - 1))))
    for _ in range(3):
        half = _correlations(mi_of_distance, m // 2 + 1, length)
        row = np.concatenate([half, half[-2:0:-1]])
        lam = np.fft.rfft(row).real
        if lam.min() >= -1e-10 * lam.max():
            break
        m *= 2
    else:
        warnings.warn(
            f"circulant embedding of length {length} has negative eigenvalues up to size {m // 2} "
            f"(min {lam.min():.3g}); sampling with the exact Cholesky factor instead",
            RuntimeWarning, stacklevel=3)
        return None
    scale = np.sqrt(np.clip(np.concatenate([lam, lam[-2:0:-1]]), 0.0, None) / m)
    out = np.empty((n_seq, length))
    for start in range(0, n_seq, 2):
        z = rng.standard_normal(m) + 1j * rng.standard_normal(m)
        y = np.fft.fft(scale * z)[:length]
        out[start] = y.real
        if start + 1 < n_seq:
            out[start + 1] = y.imag
    return out


def repetitive_pairs(n_seq: int, length: int, p: float, seed: int) -> NDArray[np.int8]:
    """Appendix C: consecutive pairs are ``01`` with probability ``p`` and ``10`` otherwise.

    Parameters
    ----------
    n_seq, length : int
        Number and length of sequences (an odd length cuts the last pair in half).
    p : float
        Probability of ``01``, in ``[0, 1]``.
    seed : int
        Seed of the numpy generator.

    Returns
    -------
    ndarray of int8, shape (n_seq, length)
    """
    check_int("n_seq", n_seq, 1)
    check_int("length", length, 2)
    check_float("p", p, 0.0, 1.0)
    first = (np.random.default_rng(seed).random((n_seq, (length + 1) // 2)) >= p).astype(np.int8)
    return np.stack([first, 1 - first], axis=2).reshape(n_seq, -1)[:, :length]


def repetitive_pairs_mi(p: float, lags: ArrayLike) -> NDArray[np.float64]:
    """Exact two-point MI of :func:`repetitive_pairs`, averaged over even and odd ``t``.

    For ``tau >= 2`` this is eq. 52, ``4p(p-1) artanh((1-2p)^2) + ln(2 + 4p(p-1))``,
    the same for every such ``tau``. At ``tau = 1`` half of the pairs are the two halves
    of one ``01``/``10`` block and half straddle two blocks, which eq. 52 does not cover;
    that value comes from the exact joint table.

    Parameters
    ----------
    p : float
        Probability of ``01``, in ``[0, 1]``.
    lags : array_like of int
        Distances ``tau >= 1``.

    Returns
    -------
    ndarray of float
    """
    check_float("p", p, 0.0, 1.0)
    tau = check_lags(lags)
    r = p * (1 - p)
    if r == 0.0:
        far = LN2  # deterministic 0101... or 1010...: every pair determines the other
    else:
        far = 4 * p * (p - 1) * np.arctanh((1 - 2 * p) ** 2) + np.log(2 + 4 * p * (p - 1))
    # tau = 1: (x_t, x_{t+1}) inside a block (even t) or across two blocks (odd t)
    inside = np.array([[0.0, p], [1 - p, 0.0]])
    across = np.outer([1 - p, p], [p, 1 - p])
    near = mi_from_joint(0.5 * (inside + across))
    return np.where(tau == 1, near, far).astype(float)
