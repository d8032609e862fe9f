"""The L2M condition (Chen et al. 2025, Sec. 5): history-state sizes and the Theorem 5.2 bound.

* :func:`history_state_size` counts the history state ``dim(z_ell)`` of a model from its
  actual modules: the key/value cache of every attention layer (grows with ``ell``), the
  recurrent state of RNN/LSTM/GRU layers and Mamba blocks (constant in ``ell``).
* :func:`l2m_bound` and :func:`crossover_length` evaluate Theorem 5.2,
  ``I_bp(L/2; L) <= C dim(z_(L/2)) + ln M``, against a bipartite-MI curve.
* :func:`linear_state_excess` and :func:`state_dimension_needed` make the condition exact
  for Gaussian sequences and linear states: from the canonical correlations of past and
  future (:meth:`seqmi.data.subvolume.SubvolumeGaussian.canonical_correlations`), what a
  state of dimension ``d`` must lose, and the smallest state that loses at most a fraction.

The models of the experiments that test it live in :mod:`seqmi.models.gaussian_lm`
(continuous tokens, Fig. 4) and :mod:`seqmi.models.mamba` (the SSMs).
"""

from __future__ import annotations

import math
from typing import Any

from seqmi._optional import require

require("torch")  # first, so that a missing torch fails naming the extra that installs it

import numpy as np
from numpy.typing import ArrayLike, NDArray
from torch import nn

from seqmi.stats import spearman
from seqmi.validate import check_float, check_int

FLOAT32_NATS = 32 * math.log(2.0)
"""Most information one float32 number can hold, in nats; a hard ceiling on ``C`` in Thm. 5.2."""

# ---------------------------------------------------------------------- history state
def history_state_size(model: nn.Module, ell: int) -> int:
    """Number of real numbers in the history state ``z_ell`` after ``ell`` tokens.

    Counted from the model's modules, so that the number follows its actual widths:

    * attention (``nn.MultiheadAttention``, or any module owning a fused ``qkv`` linear
      map, as :class:`seqmi.models.lm.TransformerBlock` does): keys and values of every past token,
      ``2 * d * ell`` per layer (the KV cache);
    * ``nn.RNN``/``nn.GRU``: ``hidden * layers * directions``; ``nn.LSTM`` adds the cell
      state (``(h + c) * layers * directions``, ``h`` the projection size if any);
      the ``*Cell`` modules likewise for one layer;
    * Mamba blocks (``mambapy``): the SSM state ``d_inner * d_state`` plus the convolution
      buffer ``d_inner * (d_conv - 1)``.
    * any module declaring its state size as an integer attribute ``d_state_total`` (a
      linear recurrence such as :class:`seqmi.models.gaussian_lm.LinearSSMBackbone`):
      that many numbers.

    Parameters
    ----------
    model : torch.nn.Module
    ell : int
        Number of tokens seen, ``>= 0``.

    Returns
    -------
    int
    """
    check_int("ell", ell, 0)
    total = 0
    for module in model.modules():
        if isinstance(module, nn.MultiheadAttention):
            total += (module.kdim + module.vdim) * ell
        elif isinstance(getattr(module, "qkv", None), nn.Linear):
            # fused query/key/value projection: keys and values are two thirds of its output
            total += 2 * (module.qkv.out_features // 3) * ell
        elif isinstance(module, nn.LSTM):
            dirs = 2 if module.bidirectional else 1
            h = module.proj_size or module.hidden_size
            total += (h + module.hidden_size) * module.num_layers * dirs
        elif isinstance(module, (nn.GRU, nn.RNN)):
            total += module.hidden_size * module.num_layers * (2 if module.bidirectional else 1)
        elif isinstance(module, nn.LSTMCell):
            total += 2 * module.hidden_size
        elif isinstance(module, (nn.GRUCell, nn.RNNCell)):
            total += module.hidden_size
        elif type(module).__name__ == "MambaBlock" and hasattr(module, "config"):
            cfg = module.config
            total += cfg.d_inner * (cfg.d_state + cfg.d_conv - 1)
        elif isinstance(getattr(module, "d_state_total", None), int):
            total += module.d_state_total
    return total


def l2m_bound(state_size: float, nats_per_dim: float, log_vocab: float = 0.0) -> float:
    """Right-hand side of Theorem 5.2, ``C dim(z) + ln M`` (nats).

    Parameters
    ----------
    state_size : float
        ``dim(z_(L/2))``.
    nats_per_dim : float
        ``C``, the information one state dimension can carry; at most
        :data:`FLOAT32_NATS` for a float32 state.
    log_vocab : float
        ``ln M`` (0 for the continuous tokens of the Gaussian family, whose current
        token enters every model alike).

    Returns
    -------
    float
    """
    check_float("state_size", state_size, 0.0)
    check_float("nats_per_dim", nats_per_dim, 0.0, low_open=True)
    return float(nats_per_dim * state_size + log_vocab)


def crossover_length(state_size: float, nats_per_dim: float, amplitude: float, exponent: float,
                     log_vocab: float = 0.0) -> float:
    """Length beyond which a fixed-size state cannot hold ``I_bp = amplitude * L**exponent``.

    Solves ``amplitude * L**exponent = C dim(z) + ln M`` for ``L``.

    Parameters
    ----------
    state_size, nats_per_dim, log_vocab : float
        As in :func:`l2m_bound`.
    amplitude, exponent : float
        The power law of the bipartite MI (``exponent > 0``).

    Returns
    -------
    float
    """
    check_float("amplitude", amplitude, 0.0, low_open=True)
    check_float("exponent", exponent, 0.0, low_open=True)
    return float((l2m_bound(state_size, nats_per_dim, log_vocab) / amplitude) ** (1.0 / exponent))




# ---------------------------------------------------------------------- linear states, exact
def _mi_terms(rho: ArrayLike) -> NDArray[np.float64]:
    """``-1/2 ln(1 - rho_i^2)`` in descending order, after checking ``0 <= rho_i < 1``."""
    rho = np.asarray(rho, dtype=np.float64)
    if rho.ndim != 1:
        raise ValueError(f"rho must be one-dimensional, got shape {rho.shape}")
    if rho.size and (rho.min() < 0.0 or rho.max() >= 1.0 or not np.isfinite(rho).all()):
        raise ValueError(f"canonical correlations must lie in [0, 1), got min {rho.min()!r}, max {rho.max()!r}")
    return np.sort(-0.5 * np.log1p(-rho ** 2))[::-1]


def linear_state_excess(rho: ArrayLike, d: int) -> float:
    """What any linear state of dimension ``d`` must lose: ``sum_{i>d} -1/2 ln(1 - rho_i^2)``.

    For jointly Gaussian past ``X`` and future ``Y`` with canonical correlations ``rho``,
    a state ``z = W X`` of dimension ``d`` has ``I(z; Y) <= sum_{i<=d} -1/2 ln(1 - rho_i^2)``,
    with equality for the top ``d`` canonical variates. A model whose predictions of the
    future read the past only through ``z`` has a position-wise KL, summed over the
    future's positions, of at least ``I(X; Y | z) = I(X; Y) - I(z; Y)``: this number.

    Parameters
    ----------
    rho : array_like, shape (n,)
        Canonical correlations, each in ``[0, 1)``, in any order.
    d : int
        State dimension, ``>= 0``.

    Returns
    -------
    float
        Nats; 0 when ``d`` is at least the number of non-zero correlations.

    Examples
    --------
    >>> round(linear_state_excess([0.6, 0.8], 1), 6)  # -1/2 ln(1 - 0.36)
    0.223144
    """
    check_int("d", d, 0)
    return float(_mi_terms(rho)[d:].sum())


def state_dimension_needed(rho: ArrayLike, eps: float) -> int:
    """Smallest ``d`` whose top ``d`` canonical terms hold a fraction ``1 - eps`` of the MI.

    Parameters
    ----------
    rho : array_like, shape (n,)
        Canonical correlations, each in ``[0, 1)``.
    eps : float
        Fraction of the bipartite MI a linear state may lose, ``0 <= eps < 1``.

    Returns
    -------
    int
        ``0`` when the MI is zero.

    Examples
    --------
    >>> state_dimension_needed([0.8, 0.6, 0.1], 0.1)
    2
    """
    check_float("eps", eps, 0.0, 1.0, high_open=True)
    terms = _mi_terms(rho)
    total = terms.sum()
    if total == 0.0:
        return 0
    kept = np.cumsum(terms)
    # a tolerance of a few ulps, so that eps = 0 asks for every non-zero term and no more
    return int(np.searchsorted(kept, (1.0 - eps) * total * (1 - 1e-12)) + 1)


def local_exponent(values: ArrayLike, ratio: float = 4.0) -> NDArray[np.float64]:
    """``log(v[i+1] / v[i]) / log(ratio)``: the power of ``L`` between neighbours ``ratio`` apart.

    Parameters
    ----------
    values : array_like, shape (n,)
        Positive values at lengths in geometric progression.
    ratio : float
        The progression's ratio (4 for the sub-volume layers).

    Returns
    -------
    ndarray, shape (n - 1,)
    """
    v = np.asarray(values, dtype=np.float64)
    if v.ndim != 1 or v.size < 2 or (v <= 0).any():
        raise ValueError(f"values must be a 1-D array of at least two positive numbers, got {v!r}")
    check_float("ratio", ratio, 1.0, low_open=True)
    return np.log(v[1:] / v[:-1]) / math.log(ratio)


def exact_linear_states(family: str, max_layers: int, eps: list[float], dims: list[int],
                        min_layers: int = 2) -> dict[str, list]:
    """The exact L2M condition of one sub-volume family for linear states, layer by layer.

    Parameters
    ----------
    family : {"subvolume", "logarithmic"}
        Reading (b), one copy, equal split ``L/2``.
    max_layers, min_layers : int
        Lengths ``L = 4**k`` for ``min_layers <= k <= max_layers`` (``max_layers <= 12``).
    eps : list of float
        Fractions of the bipartite MI a state may lose (:func:`state_dimension_needed`).
    dims : list of int
        Fixed state dimensions (:func:`linear_state_excess`).

    Returns
    -------
    dict
        ``lengths``, ``bipartite_mi`` (nats, the sum of the canonical terms), ``rank`` (the
        number of non-zero canonical correlations), ``d_needed`` (``{str(eps): [d per L]}``)
        and ``excess`` (``{str(d): [nats per L]}``).
    """
    from seqmi.data.subvolume import SubvolumeGaussian  # data imports nothing from here
    from seqmi.data.subvolume_cca import layer_spectra

    check_int("min_layers", min_layers, 1, 12)
    check_int("max_layers", max_layers, min_layers + 1, 12)
    out: dict[str, Any] = {"lengths": [], "bipartite_mi": [], "rank": [],
                           "d_needed": {str(e): [] for e in eps}, "excess": {str(d): [] for d in dims}}
    # one recursion to the longest length gives every shorter one's spectrum on the way
    spectra = layer_spectra(SubvolumeGaussian(max_layers, family))
    for k in range(min_layers, max_layers + 1):
        rho = spectra[k - 1]
        out["lengths"].append(4 ** k)
        out["bipartite_mi"].append(float(_mi_terms(rho).sum()))
        out["rank"].append(int(rho.size))
        for e in eps:
            out["d_needed"][str(e)].append(state_dimension_needed(rho, e))
        for d in dims:
            out["excess"][str(d)].append(linear_state_excess(rho, d))
    return out


def collapse_measure(mi: ArrayLike, excess_by_dim: dict[int, ArrayLike]) -> dict[str, float]:
    """How tightly the lost fraction ``E / I`` is one function of ``I / d`` (Fig. 4(b) exactly).

    Parameters
    ----------
    mi : array_like, shape (n_L,)
        Bipartite MI at each length.
    excess_by_dim : dict
        ``{d: excess at each length}`` (:func:`linear_state_excess`).

    Returns
    -------
    dict
        ``spearman``: rank correlation of ``E/I`` with ``I/d`` over every point with
        ``E > 0`` (1 when no pair of points is out of order); ``n_points``;
        ``max_spread``: the largest difference in ``E/I`` between two lengths at equal
        ``I/d``, over the range where both lengths have points (piecewise linear in
        ``ln(I/d)``, between the given dimensions).
    """
    mi = np.asarray(mi, dtype=np.float64)
    dims = sorted(excess_by_dim)
    frac = np.array([np.asarray(excess_by_dim[d], dtype=np.float64) for d in dims]) / mi  # (n_d, n_L)
    load = mi[None, :] / np.array(dims, dtype=np.float64)[:, None]
    keep = frac > 0
    spread = 0.0
    for i in range(len(mi)):
        for j in range(i + 1, len(mi)):
            xi, xj = np.log(load[::-1, i]), np.log(load[::-1, j])  # increasing in I/d
            lo, hi = max(xi[0], xj[0]), min(xi[-1], xj[-1])
            if lo < hi:
                grid = np.linspace(lo, hi, 64)
                gap = np.interp(grid, xi, frac[::-1, i]) - np.interp(grid, xj, frac[::-1, j])
                spread = max(spread, float(np.abs(gap).max()))
    return {"spearman": spearman(load[keep], frac[keep]), "n_points": int(keep.sum()),
            "max_spread": spread}
