"""Exact counts of lagged symbol pairs: the input of every two-point MI estimate.

Three exact counting methods (see :func:`lagged_pair_counts`): a vectorised joint
histogram per lag (``"bincount"``), the same pass compiled with the lags spread over
the cores (``"loop"``, compiled by numba), or, for small alphabets, every lag at once
from FFT cross-correlations of indicator sequences (``"fft"``, on the CPU or a GPU).
:func:`choose_method` picks the cheapest for an input shape. The estimators that turn
counts into entropies and MI live in :mod:`seqmi.info`.
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

from seqmi._optional import require
from seqmi.device import DeviceLike, cpu_threads, resolve_device
from seqmi.validate import check_choice, check_int

if TYPE_CHECKING:
    import torch

METHODS = ("auto", "bincount", "loop", "fft")

# largest K^2 for which the bincount path keeps dense (max_lag, K, K) tables
DENSE_BINS = 1 << 14
# alphabets up to this size may use the FFT path (its cost grows as K^2)
FFT_MAX_SYMBOLS = 64
# seconds per (pair x lag) of the bincount path, and per (symbol x indicator) transform
# and (symbol x indicator^2) cross-spectrum of the FFT path, measured on 2 shared CPU
# cores; only their ratios matter
_COST_BINCOUNT = 2.5e-9
_COST_LOOP = 0.6e-9
_COST_FFT_GEMM = 0.1e-9
_COST_FFT_TRANSFORM = 15e-9
# the FFT path allocates about this many bytes per chunk of windows
_FFT_CHUNK_BYTES = 1 << 29
# FFT windows are about this many times max_lag long
_FFT_SIZE_PER_LAG = 4


def choose_method(n_rows: int, length: int, n_symbols: int, max_lag: int) -> str:
    """The cheapest exact counting method for this input shape.

    The loop path (compiled, ``"loop"``) costs one pass over all pairs per lag,
    ``O(N max_lag)``, for a dense ``K x K`` table; the FFT path costs ``O(N K)``
    transforms plus ``O(N K^2)`` cross-spectra for all lags at once, so it wins for
    small alphabets and many lags. Alphabets too large for dense tables use
    ``"bincount"`` over the pairs that occur.

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
    if n_symbols * n_symbols > DENSE_BINS:
        return "bincount"
    loop = n_rows * (length - (max_lag + 1) / 2) * max_lag * _COST_LOOP
    if n_symbols < 2 or n_symbols > FFT_MAX_SYMBOLS:
        return "loop"
    window, block = _fft_window(length, max_lag)
    n = n_rows * length * window / block
    kp = n_symbols - 1
    fft = n * (kp * _COST_FFT_TRANSFORM + kp * kp * _COST_FFT_GEMM)
    return "fft" if fft < loop else "loop"


def lagged_pair_counts(
    seqs: ArrayLike, max_lag: int, *, method: str = "auto", device: DeviceLike = "cpu"
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Exact counts of symbol pairs ``(x_t, x_{t+tau})`` for ``tau = 1..max_lag``.

    ``"bincount"``: for each lag, one :func:`numpy.bincount` over the compact pair codes
    ``a K + b`` of every row at once. ``"loop"``: the same pass, compiled, with the
    lags spread over the CPU cores. ``"fft"``: every lag at once. With indicator
    sequences ``u_a(t) = [x_t = a]``, the count ``n_tau(a, b)`` is the
    cross-correlation ``sum_t u_a(t) u_b(t + tau)``; the rows (or, for long rows,
    overlapping windows of them) are Fourier transformed, the cross-spectra summed over
    windows, and one inverse transform gives every lag. Only ``K - 1`` indicators are
    needed: the counts involving the most frequent symbol follow from the marginals.
    Float64 transforms keep the counts exact after rounding (checked).

    Parameters
    ----------
    seqs : array_like of int
        As in :func:`seqmi.info.two_point_mi`.
    max_lag : int
        Largest distance.
    method : {"auto", "bincount", "loop", "fft"}
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
    x, k, symbols = compact_rows(seqs, return_symbols=True)
    check_int("max_lag", max_lag, 1, x.shape[1] - 1)
    check_choice("method", method, METHODS)
    if method == "auto":
        method = choose_method(x.shape[0], x.shape[1], k, max_lag)
    return pair_counts(x, k, max_lag, method, device), symbols


def pair_counts(x: NDArray[np.int64], k: int, max_lag: int, method: str,
                device: DeviceLike = "cpu") -> NDArray[np.int64]:
    """Counts ``(max_lag, k, k)`` of rows already in compact codes (:func:`compact_rows`).

    The unchecked core of :func:`lagged_pair_counts`, for callers that have compacted
    and validated the rows themselves; ``method`` is a concrete method, not ``"auto"``.
    """
    if method == "fft" and k >= 2:
        counts = _fft_pair_counts(x, k, max_lag, device)
        if counts is not None:
            return counts
    if method == "loop":
        from seqmi._jit import count_lagged_pairs

        if k * k > DENSE_BINS:
            raise ValueError(f"method='loop' keeps dense K x K tables: K = {k} symbols is too many "
                             f"(K^2 must be <= {DENSE_BINS}); use method='bincount'")

        return count_lagged_pairs(x, k, max_lag).reshape(max_lag, k, k)
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
    torch = require("torch")

    if ind.device.type == "cpu" and not _TORCH_FFT_ON_CPU:
        from scipy.fft import rfft

        return torch.from_numpy(rfft(ind.numpy(), axis=0, workers=cpu_threads()))
    return torch.fft.rfft(ind, dim=0)


# the CPU normally transforms with scipy (faster there); tests flip this to exercise the
# torch transform that a GPU uses, on CPU tensors
_TORCH_FFT_ON_CPU = False


def _fft_pair_counts(x: NDArray[np.int64], k: int, max_lag: int, device: DeviceLike) -> NDArray[np.int64] | None:
    torch = require("torch")

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


def compact_rows(seqs: ArrayLike, return_symbols: bool = False):
    """Validated rows (:func:`symbol_rows`) recoded as compact codes ``0..K-1``.

    Returns ``(codes, K)``, or ``(codes, K, symbols)`` with ``return_symbols``: the codes
    follow the sorted order of the distinct ``symbols``.
    """
    x = symbol_rows(seqs)
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


def symbol_rows(seqs: ArrayLike) -> NDArray[np.int64]:
    """``seqs`` as a 2-D int64 array of independent rows, checked: non-negative integer
    symbols, at least two per row (a 1-D sequence becomes one row)."""
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
