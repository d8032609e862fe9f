"""The results record of chapter 02, binary sequences.

Chapter 02 samples Shen 2019's designed binary sequences (App. B, Fig. 5): their MI
against the design ``A τ^−γ`` and the exponents fitted to it, the derivation of eqs. 43–47,
the repetitive 01/10 sequences of eq. 52 (App. C, Fig. 4), and the bias of the plug-in,
ψ and Grassberger estimators (App. D.1, eq. 53). Its rules are
:mod:`seqmi.claims.ch02_binary_sequences`.
"""

from __future__ import annotations

from dataclasses import dataclass

from seqmi.results import ChapterResults, JsonRecord

__all__ = ["EstimatorMeans", "Eq47Check", "Results"]


@dataclass(frozen=True, kw_only=True)
class EstimatorMeans(JsonRecord):
    """One number per estimator of ``seqmi.info.ESTIMATORS``.

    Attributes
    ----------
    plugin : float
        The plug-in estimator's.
    psi : float
        The ψ (digamma) estimator's, eq. 53.
    grassberger : float
        Grassberger's (2003).
    """

    plugin: float
    psi: float
    grassberger: float


@dataclass(frozen=True, kw_only=True)
class Eq47Check(JsonRecord):
    """Eq. 47's prefactor as printed against ours, far along the designed power law (App. B).

    Attributes
    ----------
    d : list of float
        Distances at which the MI of the thresholded Gaussians is compared with the design.
    gamma : float
        The designed exponent γ.
    printed_ratio : list of float
        ``I / (A d^−γ)`` with the printed ``c(d) = √(A/2π) d^(−γ/2)``, at each distance.
    our_ratio : list of float
        The same with ``c(d) = π √(A/2) d^(−γ/2)``.
    """

    d: list[float]
    gamma: float
    printed_ratio: list[float]
    our_ratio: list[float]


@dataclass(frozen=True, kw_only=True)
class Results(ChapterResults):
    """What chapter 02 saves: designed sequences, the derivation of eqs. 43–47, eq. 52, the estimators' bias.

    Attributes
    ----------
    amplitude : float
        The design's amplitude ``A`` of ``I(τ) = A τ^−γ``.
    n_seq : int
        Sequences sampled per design.
    n_batches : int
        Groups of sequences for the batch-means standard errors.
    length : int
        Symbols per sequence.
    max_lag : int
        Largest distance τ estimated.
    mi_floor : float
        Designs and fits are compared where the MI exceeds it (nats).
    gammas : list of float
        The designed exponents γ (Fig. 5).
    gamma_hat : list of float
        The exponent fitted to each design's estimates (Fig. 5b).
    gamma_ci : list of list of float
        The fit's own 95% interval ``[low, high]`` of each exponent (lags treated as independent).
    n_fit_points : list of int
        Lags in each fit.
    max_rel_error : list of float
        Per design, the largest ``|estimate − design| / design`` above ``mi_floor`` (NaN where none).
    max_abs_z : list of float
        Per design, the largest ``|estimate − design| / stderr`` above ``mi_floor`` (NaN where none).
    estimate_tau : dict of str to list of float
        Keyed by the distance τ (``"1"``, ``"2"``, ``"10"``, ``"100"``, those up to
        ``max_lag``): the estimate of every design at that distance (nats; Fig. 5a).
    stderr_tau : dict of str to list of float
        Their batch-means standard errors (nats).
    eq46_residual : str
        Sympy's simplification of eq. 43 with eq. 44 minus eq. 46 (``"0"`` when they agree).
    orthant_max_error : float
        Largest difference between the orthant probability and scipy's bivariate normal CDF.
    expansion_leading : float
        The leading coefficient of the small-correlation expansion ``I(c)`` (App. B; ``2/π²``).
    bias_group : int
        Sequences per small sample in the estimators' comparison on binary data.
    bias_gamma : float
        The designed exponent of those sequences.
    bias_pooled_units_of_1_over_2N : EstimatorMeans
        Each estimator's mean error, averaged over lags, in units of ``1/(2N)`` (``N`` pairs).
    bias_psi_vs_plugin : float
        Largest mean ``|ψ − plug-in|`` over lags, in units of ``1/(2N)``.
    bias_grassberger_vs_psi_max_z : float
        Largest ``|z|`` over lags of the mean Grassberger − ψ difference.
    bias_grassberger_minus_psi_se : float, optional
        The standard error of the lag-pooled Grassberger − ψ difference over the groups of
        sequences, in units of ``1/(2N)``; runs recorded before it was saved lack it.
    alphabets : list of int
        The alphabet sizes ``K`` of the estimators' bias (eq. 53).
    alphabet_bias : dict of str to list of float
        Keyed by estimator (``seqmi.info.ESTIMATORS``): its mean error at each ``K``, in
        units of the plug-in bias ``(K−1)²/(2N)``.
    alphabet_se : dict of str to list of float
        The standard errors of those means over the replicates (same units).
    bias_pairs : int
        Pairs ``N`` per replicate.
    rep_p : list of float
        The values of ``p`` of the repetitive 01/10 sequences (App. C).
    rep_exact_far : list of float
        Eq. 52's MI at the largest lag, per ``p`` (nats).
    rep_estimate_far_mean : list of float
        The estimate averaged over lags ``τ = 2..rep_max_lag``, per ``p`` (nats; Fig. 4).
    rep_max_abs_z : float
        Largest ``|estimate − eq. 52| / stderr`` over every ``p`` and ``τ ≥ 2``.
    rep_max_abs_error : float
        Largest ``|estimate − eq. 52|`` over the same (nats).
    rep_max_lag : int
        Largest lag of the repetitive sequences.
    gamma_check_max : float
        The largest γ whose fit is held to recover it.
    n_visible : int
        Points ``(γ, τ)`` whose designed MI exceeds ``mi_floor``.
    max_rel_error_all : float
        Largest ``|estimate − design| / design`` over them.
    eq47 : Eq47Check
        Eq. 47's prefactor, printed and ours.
    """

    amplitude: float
    n_seq: int
    n_batches: int
    length: int
    max_lag: int
    mi_floor: float
    gammas: list[float]
    gamma_hat: list[float]
    gamma_ci: list[list[float]]
    n_fit_points: list[int]
    max_rel_error: list[float]
    max_abs_z: list[float]
    estimate_tau: dict[str, list[float]]
    stderr_tau: dict[str, list[float]]
    eq46_residual: str
    orthant_max_error: float
    expansion_leading: float
    bias_group: int
    bias_gamma: float
    bias_pooled_units_of_1_over_2N: EstimatorMeans
    bias_psi_vs_plugin: float
    bias_grassberger_vs_psi_max_z: float
    bias_grassberger_minus_psi_se: float | None = None
    alphabets: list[int]
    alphabet_bias: dict[str, list[float]]
    alphabet_se: dict[str, list[float]]
    bias_pairs: int
    rep_p: list[float]
    rep_exact_far: list[float]
    rep_estimate_far_mean: list[float]
    rep_max_abs_z: float
    rep_max_abs_error: float
    rep_max_lag: int
    gamma_check_max: float
    n_visible: int
    max_rel_error_all: float
    eq47: Eq47Check
