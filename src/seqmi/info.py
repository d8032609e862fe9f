"""Entropy and mutual-information estimators (in nats).

Two notions of mutual information run through the book:

- the two-point MI ``I(tau) = I(x_t; x_{t+tau})`` between two symbols a distance
  ``tau`` apart (estimated here from pair counts);
- the bipartite MI ``I(X_{1:l}; Y_{l+1:L})`` between a prefix and the rest of the
  sequence (computed here exactly from a joint probability table).

Entropy estimators, for counts ``n_i`` summing to ``N``, all of the form
``H = ln N - (1/N) sum_i n_i f(n_i)``:

- ``"plugin"``: ``f(n) = ln n`` (the frequencies put into ``-sum p ln p``);
- ``"psi"``: ``f(n) = psi(n)``, Shen 2019 eq. 53;
- ``"grassberger"``: ``f(n) = G(n) = psi(n) + (-1)^n (psi((n+1)/2) - psi(n/2)) / 2``,
  Grassberger's 2003 estimator as used by Chen et al. 2025 (L2M).

Two-point counts come from one of two exact counting methods (see
:func:`lagged_pair_counts`): a vectorised joint histogram per lag, or, for small
alphabets, every lag at once from FFT cross-correlations of indicator sequences.
"""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import digamma

from seqmi.validate import check_choice, check_int

ESTIMATORS = ("plugin", "psi", "grassberger")
METHODS = ("auto", "bincount", "fft")

# n f(n) is tabulated below this count; larger counts are evaluated directly
_TABLE_SIZE = 1 << 16
# largest K^2 for which the bincount path keeps dense (max_lag, K, K) tables
_DENSE_BINS = 1 << 14
# alphabets up to this size may use the FFT path (its cost grows as K^2)
FFT_MAX_SYMBOLS = 64
# seconds per (pair x lag) of the bincount path, and per (symbol x indicator) transform
# and (symbol x indicator^2) cross-spectrum of the FFT path, measured on 2 shared CPU
# cores; only their ratios matter
_COST_BINCOUNT = 2.5e-9
_COST_FFT_GEMM = 0.1e-9
_COST_FFT_TRANSFORM = 15e-9
# the FFT path allocates about this many bytes per chunk of windows
_FFT_CHUNK_BYTES = 1 << 29
# FFT windows are about this many times max_lag long
_FFT_SIZE_PER_LAG = 4


def grassberger_g(n: ArrayLike) -> NDArray[np.float64]:
    """Grassberger's ``G(n) = psi(n) + (-1)^n (psi((n+1)/2) - psi(n/2)) / 2``.

    Equal to ``psi(n) + (-1)^n int_0^1 t^(n-1) / (1 + t) dt``; ``G(1) = -1.2704``,
    ``G(2) = G(3) = 0.7296``, and ``G(n) -> ln n`` for large ``n``.

    Parameters
    ----------
    n : array_like of int
        Counts ``>= 1``.

    Returns
    -------
    ndarray of float
    """
    n = np.asarray(n, dtype=np.float64)
    if np.any(n < 1):
        raise ValueError(f"grassberger_g needs counts >= 1, got minimum {n.min()}")
    sign = np.where(np.fmod(n, 2.0) == 0.0, 1.0, -1.0)
    return digamma(n) + 0.5 * sign * (digamma((n + 1.0) / 2.0) - digamma(n / 2.0))


def _f(n: NDArray[np.float64], estimator: str) -> NDArray[np.float64]:
    if estimator == "plugin":
        return np.log(n)
    if estimator == "psi":
        return digamma(n)
    return grassberger_g(n)


@functools.lru_cache(maxsize=None)
def _n_f_table(estimator: str) -> NDArray[np.float64]:
    n = np.arange(_TABLE_SIZE, dtype=np.float64)
    table = np.zeros(_TABLE_SIZE)
    table[1:] = n[1:] * _f(n[1:], estimator)
    return table


def _sum_n_f(counts: NDArray[np.int64], estimator: str) -> NDArray[np.float64]:
    """``sum_i n_i f(n_i)`` along the last axis (``0 f(0) = 0``)."""
    big = counts >= _TABLE_SIZE
    terms = _n_f_table(estimator)[np.where(big, 0, counts)]
    if big.any():
        n = counts[big].astype(np.float64)
        terms[big] = n * _f(n, estimator)
    return terms.sum(axis=-1)


def _entropies(counts: NDArray[np.int64], estimator: str) -> NDArray[np.float64]:
    """Entropy estimates along the last axis of a non-negative integer count array."""
    total = counts.sum(axis=-1)
    return np.log(total) - _sum_n_f(counts, estimator) / total


def entropy(counts: ArrayLike, estimator: str = "grassberger") -> float:
    """Entropy (nats) of a distribution estimated from symbol counts.

    All estimators have the form ``ln N - (1/N) sum_i n_i f(n_i)`` (module docstring).

    Parameters
    ----------
    counts : array_like of int
        Non-negative counts of each symbol; zeros are allowed.
    estimator : {"grassberger", "psi", "plugin"}
        ``"plugin"``: ``-sum p ln p`` with ``p = n / N`` (biased low by about
        ``(K - 1) / (2N)``); ``"psi"``: Shen 2019 eq. 53; ``"grassberger"``:
        Grassberger 2003, the least biased of the three.

    Returns
    -------
    float
    """
    check_choice("estimator", estimator, ESTIMATORS)
    n = np.asarray(counts)
    if n.ndim != 1 or n.size == 0 or not np.issubdtype(n.dtype, np.integer):
        raise ValueError(
            f"counts must be a non-empty 1-D integer array, got dtype {n.dtype} shape {n.shape}")
    if np.any(n < 0):
        raise ValueError("counts must be non-negative")
    if n.sum() == 0:
        raise ValueError("counts must not all be zero")
    return float(_entropies(n.astype(np.int64), estimator))


def mi_from_counts(joint: ArrayLike, estimator: str = "grassberger") -> NDArray[np.float64] | float:
    """Mutual information ``H(X) + H(Y) - H(X, Y)`` estimated from joint counts.

    The marginal counts are the row and column sums of the joint table, so that the
    three entropies are estimated on the same pairs.

    Parameters
    ----------
    joint : array_like of int, shape (..., n_x, n_y)
        Non-negative pair counts; leading axes are independent tables (e.g. lags).
    estimator : {"grassberger", "psi", "plugin"}
        Entropy estimator, see :func:`entropy`.

    Returns
    -------
    float or ndarray of float
        One value per table.
    """
    check_choice("estimator", estimator, ESTIMATORS)
    j = np.asarray(joint)
    if j.ndim < 2 or j.size == 0 or not np.issubdtype(j.dtype, np.integer):
        raise ValueError(f"joint must be an integer array with >= 2 axes, got dtype {j.dtype} shape {j.shape}")
    if np.any(j < 0):
        raise ValueError("joint counts must be non-negative")
    j = j.astype(np.int64, copy=False)
    if np.any(j.sum(axis=(-2, -1)) == 0):
        raise ValueError("every joint table needs at least one pair")
    mi = (_entropies(j.sum(axis=-1), estimator) + _entropies(j.sum(axis=-2), estimator)
          - _entropies(j.reshape(*j.shape[:-2], -1), estimator))
    return float(mi) if np.ndim(mi) == 0 else mi


def two_point_mi(
    seqs: ArrayLike,
    max_lag: int,
    estimator: str = "grassberger",
    *,
    method: str = "auto",
    device: str = "cpu",
) -> NDArray[np.float64]:
    """Two-point mutual information ``I(tau)`` for ``tau = 1..max_lag``.

    Parameters
    ----------
    seqs : array_like of int
        One 1-D sequence, or a 2-D array ``(n_sequences, length)`` whose rows are
        independent samples: symbol pairs are never formed across rows. Symbols are
        any non-negative integers.
    max_lag : int
        Largest distance, ``1 <= max_lag < length``.
    estimator : {"grassberger", "psi", "plugin"}
        Entropy estimator applied to the marginal and joint counts.
    method : {"auto", "bincount", "fft"}
        How pairs are counted (both exact, see :func:`lagged_pair_counts`); ``"auto"``
        picks the cheaper one for this input.
    device : {"cpu", "cuda", "auto"}
        Where the FFT path runs (torch); the counts are identical on every device.

    Returns
    -------
    ndarray of float, shape (max_lag,)
        ``I(tau) = H(x_t) + H(x_{t+tau}) - H(x_t, x_{t+tau})``, with the marginals
        counted on the same pairs as the joint.
    """
    check_choice("estimator", estimator, ESTIMATORS)
    x, k = _compact_rows(seqs)
    check_int("max_lag", max_lag, 1, x.shape[1] - 1)
    check_choice("method", method, METHODS)
    if method == "auto":
        method = choose_method(x.shape[0], x.shape[1], k, max_lag)
    if method == "fft" or k * k <= _DENSE_BINS:
        return mi_from_counts(_pair_counts(x, k, max_lag, method, device), estimator)
    # alphabets too large for a dense K^2 table: count the pairs that occur, lag by lag
    out = np.empty(max_lag)
    for lag in range(1, max_lag + 1):
        a, b = x[:, :-lag].ravel(), x[:, lag:].ravel()
        joint = np.unique(a * k + b, return_counts=True)[1]
        out[lag - 1] = (_entropies(np.bincount(a), estimator) + _entropies(np.bincount(b), estimator)
                        - _entropies(joint, estimator))
    return out


def choose_method(n_rows: int, length: int, n_symbols: int, max_lag: int) -> str:
    """The cheaper exact counting method for this input shape: ``"bincount"`` or ``"fft"``.

    The bincount path costs one pass over all pairs per lag, ``O(N max_lag)``; the FFT
    path costs ``O(N K)`` transforms plus ``O(N K^2)`` cross-spectra for all lags at
    once, so it wins for small alphabets and many lags.

    Parameters
    ----------
    n_rows, length : int
        Shape of the (2-D) input.
    n_symbols : int
        Number of distinct symbols ``K``.
    max_lag : int
        Largest distance.

    Returns
    -------
    str
    """
    if n_symbols < 2 or n_symbols > FFT_MAX_SYMBOLS:
        return "bincount"
    window, block = _fft_window(length, max_lag)
    n = n_rows * length * window / block
    kp = n_symbols - 1
    fft = n * (kp * _COST_FFT_TRANSFORM + kp * kp * _COST_FFT_GEMM)
    bincount = n_rows * (length - (max_lag + 1) / 2) * max_lag * _COST_BINCOUNT
    return "fft" if fft < bincount else "bincount"


def lagged_pair_counts(
    seqs: ArrayLike, max_lag: int, *, method: str = "auto", device: str = "cpu"
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Exact counts of symbol pairs ``(x_t, x_{t+tau})`` for ``tau = 1..max_lag``.

    ``"bincount"``: for each lag, one :func:`numpy.bincount` over the compact pair codes
    ``a K + b`` of every row at once. ``"fft"``: every lag at once. With indicator
    sequences ``u_a(t) = [x_t = a]``, the count ``n_tau(a, b)`` is the
    cross-correlation ``sum_t u_a(t) u_b(t + tau)``; the rows (or, for long rows,
    overlapping windows of them) are Fourier transformed, the cross-spectra summed over
    windows, and one inverse transform gives every lag. Only ``K - 1`` indicators are
    needed: the counts involving the most frequent symbol follow from the marginals.
    Float64 transforms keep the counts exact after rounding (checked).

    Parameters
    ----------
    seqs : array_like of int
        As in :func:`two_point_mi`.
    max_lag : int
        Largest distance.
    method : {"auto", "bincount", "fft"}
        Counting method; see :func:`choose_method`.
    device : {"cpu", "cuda", "auto"}
        Torch device of the FFT path.

    Returns
    -------
    counts : ndarray of int64, shape (max_lag, K, K)
        ``counts[tau - 1, i, j]`` pairs with first symbol ``symbols[i]``, second
        ``symbols[j]``.
    symbols : ndarray of int64, shape (K,)
        The distinct symbols, sorted.
    """
    x, k, symbols = _compact_rows(seqs, return_symbols=True)
    check_int("max_lag", max_lag, 1, x.shape[1] - 1)
    check_choice("method", method, METHODS)
    if method == "auto":
        method = choose_method(x.shape[0], x.shape[1], k, max_lag)
    return _pair_counts(x, k, max_lag, method, device), symbols


def _pair_counts(x: NDArray[np.int64], k: int, max_lag: int, method: str, device: str) -> NDArray[np.int64]:
    if method == "fft" and k >= 2:
        counts = _fft_pair_counts(x, k, max_lag, device)
        if counts is not None:
            return counts
    out = np.empty((max_lag, k * k), dtype=np.int64)
    xk = x * k
    for lag in range(1, max_lag + 1):
        out[lag - 1] = np.bincount((xk[:, :-lag] + x[:, lag:]).ravel(), minlength=k * k)
    return out.reshape(max_lag, k, k)


def _fft_window(length: int, max_lag: int) -> tuple[int, int]:
    """FFT size and block stride: one window per row if it fits, else blocks of a row.

    Windows of ``block + max_lag`` symbols overlap by ``max_lag``, so the waste is
    ``max_lag / block``; ``size ~ 4 max_lag`` balances it against the cost of the
    per-frequency cross-spectra, which grows with the size.
    """
    from scipy.fft import next_fast_len

    size = 1 << math.ceil(math.log2(max(_FFT_SIZE_PER_LAG * max_lag, 1024)))
    if length + max_lag <= size:
        return next_fast_len(length + max_lag, real=True), length
    return size, size - max_lag


def _rfft_time(ind: "torch.Tensor") -> "torch.Tensor":
    """Real FFT along axis 0 (time); scipy's pocketfft on the CPU, torch on a GPU."""
    import torch

    if ind.device.type == "cpu" and not _TORCH_FFT_ON_CPU:
        from scipy.fft import rfft

        return torch.from_numpy(rfft(ind.numpy(), axis=0, workers=-1))
    return torch.fft.rfft(ind, dim=0)


# the CPU normally transforms with scipy (faster there); tests flip this to exercise the
# torch transform that a GPU uses, on CPU tensors
_TORCH_FFT_ON_CPU = False


def _fft_pair_counts(x: NDArray[np.int64], k: int, max_lag: int, device: str) -> NDArray[np.int64] | None:
    import torch

    from seqmi.device import resolve_device

    dev = resolve_device(device)
    rows, length = x.shape
    size, block = _fft_window(length, max_lag)
    whole_rows = block == length
    n_blocks = -(-length // block)
    ref = int(np.argmax(np.bincount(x.ravel(), minlength=k)))
    kp = k - 1
    # indicator slot of each symbol: the reference symbol and the padding share slot kp,
    # which is transformed along with the others (to keep arrays contiguous) but dropped
    slot = np.arange(k + 1)
    slot[ref:k] -= 1
    slot[ref] = kp
    slot[k] = kp
    padded = np.full((rows, n_blocks * block + max_lag), kp, dtype=np.uint8 if kp < 256 else np.int64)
    padded[:, :length] = slot[x]
    # windows as columns: (time, window)
    windows = torch.from_numpy(padded).unfold(1, block + max_lag, block).reshape(-1, block + max_lag).T
    n_win = windows.shape[1]
    n_freq = size // 2 + 1
    width = 1 if kp == 1 else kp + 1
    chunk = max(1, min(n_win, _FFT_CHUNK_BYTES // (40 * width * size)))
    # sums over windows of conj(U_a) V_b as a real (n_freq, 2 width, 2 width) matrix whose
    # rows/columns alternate Re and Im of each slot
    stacked = torch.zeros((n_freq, 2 * width, 2 * width), dtype=torch.float64, device=dev)
    buffer = torch.empty((size, chunk, width), dtype=torch.float64, device=dev)
    for start in range(0, n_win, chunk):
        w = windows[:, start:start + chunk].to(dev)
        ind = buffer[:, :w.shape[1]]
        ind.zero_()
        if kp == 1:
            ind[:block + max_lag, :, 0] = (w == 0).to(torch.float64)
        else:
            ind[:block + max_lag].scatter_(2, w[:, :, None].long(), 1.0)
        v = torch.view_as_real(_rfft_time(ind)).reshape(n_freq, -1, 2 * width)
        if whole_rows:
            u = v
        else:
            ind[block:] = 0.0
            u = torch.view_as_real(_rfft_time(ind)).reshape(n_freq, -1, 2 * width)
        stacked.baddbmm_(u.transpose(1, 2), v)
    # conj(U) V = (Ur Vr + Ui Vi) + i (Ur Vi - Ui Vr)
    re, im = slice(0, 2 * kp, 2), slice(1, 2 * kp, 2)
    cross = torch.complex(stacked[:, re, re] + stacked[:, im, im], stacked[:, re, im] - stacked[:, im, re])
    corr = torch.fft.irfft(cross, n=size, dim=0)[1:max_lag + 1].cpu().numpy()
    joint_kp = np.rint(corr)
    if np.abs(corr - joint_kp).max() > 0.25:
        warnings.warn("FFT pair counts lost integer precision; counting with bincount instead",
                      RuntimeWarning, stacklevel=3)
        return None
    first, second = _lagged_marginals(x, k, max_lag)
    others = np.delete(np.arange(k), ref)
    joint = np.zeros((max_lag, k, k), dtype=np.int64)
    joint[np.ix_(np.arange(max_lag), others, others)] = joint_kp.astype(np.int64)
    joint[:, others, ref] = first[:, others] - joint_kp.sum(axis=2).astype(np.int64)
    joint[:, ref, :] = second - joint[:, others, :].sum(axis=1)
    return joint


def _lagged_marginals(x: NDArray[np.int64], k: int, max_lag: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Symbol counts of the first and of the second members of the pairs at each lag.

    The first members at lag ``tau`` are all symbols but the last ``tau`` of each row,
    the second members all but the first ``tau``.
    """
    total = np.bincount(x.ravel(), minlength=k)
    cols = np.arange(max_lag)
    head = np.bincount((cols * k + x[:, :max_lag]).ravel(), minlength=max_lag * k).reshape(max_lag, k)
    tail = np.bincount((cols[::-1] * k + x[:, -max_lag:]).ravel(), minlength=max_lag * k).reshape(max_lag, k)
    return total - np.cumsum(tail, axis=0), total - np.cumsum(head, axis=0)


def _compact_rows(seqs: ArrayLike, return_symbols: bool = False):
    """Rows of compact codes ``0..K-1`` (sorted symbol order) and ``K``."""
    x = _as_symbol_rows(seqs)
    top = int(x.max())
    if top < 4 * x.size + 1024:
        present = np.bincount(x.ravel(), minlength=top + 1) > 0
        symbols = np.flatnonzero(present)
        if symbols.size == top + 1:
            codes = x
        else:
            lookup = np.cumsum(present) - 1
            codes = lookup[x]
    else:
        symbols, inverse = np.unique(x, return_inverse=True)
        codes = inverse.reshape(x.shape)
    k = int(symbols.size)
    return (codes, k, symbols) if return_symbols else (codes, k)


def mi_from_joint(joint: ArrayLike) -> float:
    """Exact mutual information (nats) of a two-variable joint probability table.

    Parameters
    ----------
    joint : array_like, shape (n_x, n_y)
        Non-negative probabilities summing to one.

    Returns
    -------
    float
    """
    p = np.asarray(joint, dtype=float)
    if p.ndim != 2:
        raise ValueError(f"joint must be a 2-D table, got shape {p.shape}")
    if np.any(p < 0) or not np.isclose(p.sum(), 1.0, atol=1e-9):
        raise ValueError(f"joint must be non-negative and sum to 1, got sum {p.sum()!r}")
    px = p.sum(axis=1, keepdims=True)
    py = p.sum(axis=0, keepdims=True)
    mask = p > 0
    return float((p[mask] * np.log(p[mask] / (px @ py)[mask])).sum())


def _as_symbol_rows(seqs: ArrayLike) -> NDArray[np.int64]:
    x = np.asarray(seqs)
    if x.ndim == 1:
        x = x[None, :]
    if x.ndim != 2 or x.size == 0:
        raise ValueError(f"seqs must be a non-empty 1-D or 2-D array, got shape {x.shape}")
    if not np.issubdtype(x.dtype, np.integer):
        raise ValueError(f"seqs must hold integer symbols, got dtype {x.dtype}")
    if x.min() < 0:
        raise ValueError(f"symbols must be non-negative integers, got minimum {x.min()}")
    if x.shape[1] < 2:
        raise ValueError(f"sequences must have length >= 2, got {x.shape[1]}")
    return x.astype(np.int64, copy=False)


def two_point_mi_with_error(
    seqs: ArrayLike, max_lag: int, n_batches: int = 10, estimator: str = "grassberger"
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Two-point MI of all rows and its standard error from batch means.

    The rows are split into ``n_batches`` groups; since rows are independent, the
    spread of the per-group estimates gives the standard error of the full estimate,
    ``std(batch estimates) / sqrt(n_batches)``, without assuming anything about the
    correlations between pairs inside one row.

    Parameters
    ----------
    seqs : array_like of int, shape (n_sequences, length)
        Independent rows; at least ``n_batches`` of them.
    max_lag : int
        Largest distance.
    n_batches : int
        Number of groups, ``>= 2``.
    estimator : str
        Passed to :func:`two_point_mi`.

    Returns
    -------
    estimate, stderr : ndarray of float, shape (max_lag,)
    """
    x = _as_symbol_rows(seqs)
    check_int("n_batches", n_batches, 2, x.shape[0])
    estimate = two_point_mi(x, max_lag, estimator)
    batches = np.stack([two_point_mi(part, max_lag, estimator) for part in np.array_split(x, n_batches)])
    return estimate, batches.std(axis=0, ddof=1) / np.sqrt(n_batches)


def gaussian_mi(cov: ArrayLike, idx_x: ArrayLike, idx_y: ArrayLike) -> float:
    """Exact mutual information (nats) between two blocks of a multivariate Gaussian.

    ``I(X; Y) = (ln det S_xx + ln det S_yy - ln det S_(x,y)) / 2``, each log-determinant
    taken from a Cholesky factor (twice the sum of the log-diagonal), which stays finite
    and accurate for blocks of thousands of variables where ``det`` over- or underflows.

    Parameters
    ----------
    cov : array_like, shape (n, n)
        Symmetric positive-definite covariance matrix.
    idx_x, idx_y : array_like of int
        Disjoint, non-empty index sets of the two blocks.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``cov`` is not square and symmetric, the blocks overlap, are empty or out of
        range, or a block's covariance is not positive definite.
    """
    s = np.asarray(cov, dtype=float)
    if s.ndim != 2 or s.shape[0] != s.shape[1]:
        raise ValueError(f"cov must be a square matrix, got shape {s.shape}")
    if not np.allclose(s, s.T, rtol=1e-10, atol=1e-12 * max(1.0, np.abs(s).max())):
        raise ValueError("cov must be symmetric")
    ix, iy = (np.unique(np.asarray(i, dtype=np.int64).ravel()) for i in (idx_x, idx_y))
    n = s.shape[0]
    for name, idx in (("idx_x", ix), ("idx_y", iy)):
        if idx.size == 0 or idx.min() < 0 or idx.max() >= n:
            raise ValueError(f"{name} must be a non-empty set of indices in [0, {n - 1}]")
    common = np.intersect1d(ix, iy)
    if common.size:
        raise ValueError(f"idx_x and idx_y overlap at indices {common[:10].tolist()}")
    both = np.concatenate([ix, iy])
    return 0.5 * (_logdet_pd(s[np.ix_(ix, ix)]) + _logdet_pd(s[np.ix_(iy, iy)])
                  - _logdet_pd(s[np.ix_(both, both)]))


def _logdet_pd(matrix: NDArray[np.float64]) -> float:
    try:
        factor = np.linalg.cholesky(matrix)
    except np.linalg.LinAlgError as err:
        raise ValueError(f"covariance block of size {matrix.shape[0]} is not positive definite") from err
    return float(2.0 * np.log(np.diag(factor)).sum())
