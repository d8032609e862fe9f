"""The results record of chapter 00, the primer on mutual information.

Chapter 00 samples the binary symmetric chain, estimates its two-point MI at every lag
and compares it with the closed form ``I(τ) = ln 2 − H_b(p_τ)``, fits the correlation
length ξ of Shen 2019 eq. 9, and enumerates a short chain to check that its bipartite MI
equals ``I(1)``. Its rules are :mod:`seqmi.claims.ch00_mutual_information`.
"""

from __future__ import annotations

from dataclasses import dataclass

from seqmi.results import ChapterResults

__all__ = ["Results"]


@dataclass(frozen=True, kw_only=True)
class Results(ChapterResults):
    """What chapter 00 saves: the sampled chain, its estimates against the closed form, the exact bipartite check.

    Attributes
    ----------
    q : float
        Flip probability of the chain.
    n_seq : int
        Independent chains sampled.
    n_batches : int
        Groups of chains for the batch-means standard errors.
    length : int
        Symbols per chain.
    mi_floor : float
        Lags whose exact MI exceeds it (nats) are compared with the closed form.
    fit_ceiling : float
        The ξ fit uses the lags with exact MI between ``mi_floor`` and it (nats), where
        the decay is asymptotic.
    lags : list of int
        The lags τ estimated, 1 to the largest.
    estimate : list of float
        Plug-in estimate of I(τ) at each lag (nats), pooled over all chains.
    stderr : list of float
        Its batch-means standard error at each lag (nats).
    exact : list of float
        The closed form ``ln 2 − H_b(p_τ)`` at each lag (nats).
    n_visible : int
        Lags whose exact MI exceeds ``mi_floor``.
    max_abs_error_visible : float
        Largest ``|estimate − exact|`` over those lags (nats).
    max_abs_z_visible : float
        Largest ``|estimate − exact| / stderr`` over those lags.
    xi_predicted : float
        The correlation length ``−1/(2 ln|1−2q|)`` (lags; Shen 2019 eq. 9, Sec. 3).
    xi_fitted : float
        ξ fitted to the estimates, least squares of ``ln Î(τ)`` on τ over the fit window (lags).
    bipartite_splits : list of int
        Split points ℓ of the exactly enumerated chain.
    bipartite_mi : list of float
        Its bipartite MI at each split (nats).
    bipartite_max_deviation : float
        Largest ``|I_bp(ℓ) − I(1)|`` over the splits (nats; Chen et al. 2025 Sec. 4).
    """

    q: float
    n_seq: int
    n_batches: int
    length: int
    mi_floor: float
    fit_ceiling: float
    lags: list[int]
    estimate: list[float]
    stderr: list[float]
    exact: list[float]
    n_visible: int
    max_abs_error_visible: float
    max_abs_z_visible: float
    xi_predicted: float
    xi_fitted: float
    bipartite_splits: list[int]
    bipartite_mi: list[float]
    bipartite_max_deviation: float
