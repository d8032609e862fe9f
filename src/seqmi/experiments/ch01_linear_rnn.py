"""Settings of chapter 01: linear RNNs' exact and sampled MI, and the Ising chains (Shen 2019 Sec. 3, App. B)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from seqmi.device import DeviceLike, check_device
from seqmi.validate import check_float, check_float_list, check_int, check_int_list


@dataclass(frozen=True)
class LinearRNNSettings:
    """What chapter 01 reads: the exact checks, the Monte Carlo check, the MI sweep and the chains.

    Attributes
    ----------
    t_exact : int
        Lags compared in exact rational arithmetic (series against recurrence), at most 200.
    n_systems, n_stable : int
        Random rational systems per ``(d, m)`` in the exact check, stable ones in the
        decay-rate check.
    n_mc, t_mc : int
        Monte Carlo sequences (at least 10 per batch) and the lags compared with them.
    n_batches : int
        Groups of Monte Carlo sequences for batch-means standard errors.
    hidden_sizes : list of int
        Widths ``m`` of the MI sweep, at most 512.
    radii : list of float
        Spectral radii of ``U_h`` in the MI sweep, in ``(0, 1)``.
    coupling : float
        Scale of ``W_h`` and ``U_o`` (feedback through the outputs), ``>= 0``.
    mi_lags : int
        Lags of the exact MI curves, 20 to 5000.
    fit_tolerance : float
        Relative tolerance of predicted against fitted decay rates.
    n_spins : int
        Ising chain length for exact enumeration (``2**n_spins`` configurations, 4 to 20).
    beta_J : float
        ``beta J`` of the chains, non-zero (a free chain has no correlations).
    alpha : float
        Exponent of the long-range coupling ``J d**-alpha``, positive.
    seed : int
        The chapter's seed.
    device : str or torch.device
        Where it computes (``"auto"``: a GPU if there is one).
    """

    t_exact: int
    n_systems: int
    n_stable: int
    n_mc: int
    t_mc: int
    n_batches: int
    hidden_sizes: Sequence[int]
    radii: Sequence[float]
    coupling: float
    mi_lags: int
    fit_tolerance: float
    n_spins: int
    beta_J: float
    alpha: float
    seed: int = 0
    device: DeviceLike = "auto"

    def __post_init__(self) -> None:
        check_int("seed", self.seed, 0)
        check_device(self.device)
        check_int("t_exact", self.t_exact, 1, 200)
        check_int("n_systems", self.n_systems, 1)
        check_int("n_stable", self.n_stable, 1)
        check_int("n_batches", self.n_batches, 2)
        check_int("n_mc", self.n_mc, 10 * self.n_batches)
        check_int("t_mc", self.t_mc, 1, 1000)
        check_int_list("hidden_sizes", self.hidden_sizes, 1, 512)
        check_float_list("radii", self.radii, 0.0, 1.0, low_open=True, high_open=True)
        check_float("coupling", self.coupling, 0.0)
        check_int("mi_lags", self.mi_lags, 20, 5000)
        check_float("fit_tolerance", self.fit_tolerance, 0.0, low_open=True)
        check_int("n_spins", self.n_spins, 4, 20)
        if check_float("beta_J", self.beta_J) == 0:
            raise ValueError("beta_J must be non-zero (a free chain has no correlations), got 0")
        check_float("alpha", self.alpha, 0.0, low_open=True)
