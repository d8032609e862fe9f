"""The results record of chapter 01, linear RNNs.

Chapter 01 checks Shen 2019's linear-RNN analysis (Sec. 4.1, eqs. 11–41, App. A): the
generating functions in exact arithmetic, the decay rate set by the pole nearest the
origin, the output convention of eq. 12 and the exact MI of eq. 41 against Monte Carlo
samples, and the Ising chains of App. G by enumeration. Its rules are
:mod:`seqmi.claims.ch01_linear_rnn`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from seqmi.results import ChapterResults, JsonRecord

__all__ = ["BiasCheck", "DecayNetwork", "IsingChecks", "MonteCarlo", "OrderTwoPoleFit", "PoleFit", "Results",
           "SeriesSystem", "SweepNetwork"]


@dataclass(frozen=True, kw_only=True)
class SeriesSystem(JsonRecord):
    """One random system whose generating function is expanded in exact rational arithmetic (eqs. 24–35).

    Attributes
    ----------
    convention : {"eq11", "printed"}
        The output convention: eq. 11's ``o_t = U_o h_(t−1)``, or the one the printed
        eqs. 12–35 follow.
    d : int
        Symbols (outputs).
    m : int
        Hidden units.
    max_abs_diff : float
        Largest ``|series − recurrence|`` over the terms (exact: 0 unless a bug).
    same_function : bool
        Whether Σ(z) of eq. 35 equals the ``(I − Mz)⁻¹`` form.
    rational : bool
        Whether Σ(z) is a rational function.
    denominator_degree : int
        Degree of its denominator.
    """

    convention: Literal["eq11", "printed"]
    d: int
    m: int
    max_abs_diff: float
    same_function: bool
    rational: bool
    denominator_degree: int


@dataclass(frozen=True, kw_only=True)
class DecayNetwork(JsonRecord):
    """One random network whose cross-covariance decay is fitted against its nearest pole (App. A).

    Attributes
    ----------
    d : int
        Symbols (outputs).
    m : int
        Hidden units.
    rho_predicted : float
        ``1/|z₀|``, the pole nearest the origin.
    order : int
        The pole's order ``n`` (the decay goes as ``t^(n−1) |z₀|^(−t)``).
    rho_fitted : float
        Decay rate fitted to ``|Σ_(x_t x_0)|``.
    t_end : int
        Last step of the fit.
    rho_U_h : float
        Spectral radius of the recurrent weights ``U_h``.
    rho_M : float
        Spectral radius of the transition matrix ``M``.
    complex_pole : bool
        Whether the nearest pole is complex.
    """

    d: int
    m: int
    rho_predicted: float
    order: int
    rho_fitted: float
    t_end: int
    rho_U_h: float
    rho_M: float
    complex_pole: bool


@dataclass(frozen=True, kw_only=True)
class PoleFit(JsonRecord):
    """A network built for its pole: the predicted rate against the fitted one (Sec. 4.1, App. A).

    Attributes
    ----------
    rho_predicted : float
        ``1/|z₀|`` of the pole nearest the origin (above 1: the covariance grows).
    order : int
        The pole's order.
    rho_fitted : float
        The rate fitted to ``|Σ_(x_t x_0)|``.
    """

    rho_predicted: float
    order: int
    rho_fitted: float


@dataclass(frozen=True, kw_only=True)
class OrderTwoPoleFit(PoleFit):
    """A network whose nearest pole has order two, fitted with and without the ``t^(n−1)`` prefactor.

    Attributes
    ----------
    rho_fitted_without_prefactor : float
        The rate fitted as a pure exponential, ignoring the prefactor.
    """

    rho_fitted_without_prefactor: float


@dataclass(frozen=True, kw_only=True)
class MonteCarlo(JsonRecord):
    """The sampled network: its cross-covariances against eq. 11 and the printed eq. 15, its MI against eq. 41.

    Attributes
    ----------
    n : int
        Sampled sequences.
    t_max : int
        Largest lag compared.
    batches : int
        Groups of sequences for the batch-means standard errors.
    outputs : int
        Outputs ``d``: ``(t_max + 1)·d²`` cross-covariance entries are compared.
    max_z_eq11 : float
        Largest ``|z|`` of the sampled cross-covariances against eq. 11's recurrence.
    max_z_printed : float
        Largest ``|z|`` against the printed eq. 15.
    rho_predicted : float
        ``1/|z₀|`` of the sampled network.
    mi_exact : list of float
        The network's exact MI ``I(x₀; x_t)`` (log-determinant form) at lags 1..``t_max`` (nats).
    mi_sample : list of float
        The sampled MI at those lags, less its first-order bias ``d²/(2n)`` (nats).
    mi_sample_se : list of float
        Its batch-means standard errors (nats).
    mi_max_z : float
        Largest ``|sample − exact| / se`` over the lags.
    logdet_vs_eigen : float
        Largest difference between the log-determinant form and eq. 41's eigenvalue form (nats).
    """

    n: int
    t_max: int
    batches: int
    outputs: int
    max_z_eq11: float
    max_z_printed: float
    rho_predicted: float
    mi_exact: list[float]
    mi_sample: list[float]
    mi_sample_se: list[float]
    mi_max_z: float
    logdet_vs_eigen: float


@dataclass(frozen=True, kw_only=True)
class SweepNetwork(JsonRecord):
    """One network of the width sweep: ξ from its pole against ξ fitted to eq. 41, exact and trace forms.

    Attributes
    ----------
    r : float
        The spectral radius of its recurrent weights ``U_h``.
    m : int
        Hidden units.
    rho : float
        ``1/|z₀|`` of its nearest pole.
    order : int
        The pole's order.
    rho_fit_exact, rho_fit_trace : float
        The rate fitted to eq. 41's exact and trace forms.
    xi : float
        ``−1/(2 ln ρ)`` (lags; Shen 2019 eq. 9).
    xi_fit_exact, xi_fit_trace : float
        ξ fitted to the exact and trace forms (lags).
    t_fit : int
        Last lag of the fit.
    """

    r: float
    m: int
    rho: float
    order: int
    rho_fit_exact: float
    rho_fit_trace: float
    xi: float
    xi_fit_exact: float
    xi_fit_trace: float
    t_fit: int


@dataclass(frozen=True, kw_only=True)
class BiasCheck(JsonRecord):
    """A biased network against the same network unbiased, driven by the same noise (Sec. 4.1).

    Attributes
    ----------
    path_diff : float
        Largest ``|biased path − its stationary mean − unbiased path|``.
    cov_diff : float
        Largest difference of their sample cross-covariances.
    mi_diff : float
        Largest difference of their exact MI over the lags (nats).
    """

    path_diff: float
    cov_diff: float
    mi_diff: float


@dataclass(frozen=True, kw_only=True)
class IsingChecks(JsonRecord):
    """The Ising chains of Shen 2019 App. G, by enumeration.

    Attributes
    ----------
    n_spins : int
        Spins ``N`` of the enumerated chains.
    beta_J : float
        Nearest-neighbour coupling βJ.
    alpha : float
        Exponent of the long-range coupling ``|i − j|^(−α)``.
    eq62_max_deviation : float
        Largest deviation of the nearest-neighbour conditional from eq. 62.
    eq57_as_printed_deviation : float
        Deviation from eq. 62 of the conditional built from eq. 57 as printed (every
        ordered pair counted).
    mi_tau : list of int
        Lags of the enumerated MI.
    mi_enumerated : list of float
        The nearest-neighbour chain's MI at those lags, by enumeration (nats).
    mi_closed : list of float
        Its closed form (nats).
    mi_max_deviation : float
        Largest ``|enumerated − closed|`` (nats).
    xi : float
        ``−1/(2 ln|tanh βJ|)`` (lags).
    xi_fitted : float
        ξ fitted to the enumerated MI (lags).
    past_dependence_nn : list of float
        Entry ``k − 1``: the largest change of ``p(s_N = +1 | s_<N)`` when only the spin ``k``
        steps back is flipped, ``k = 1..N−1``, nearest-neighbour chain.
    past_dependence_long_range : list of float
        The same with long-range couplings.
    mi_long_range : list of float
        The long-range chain's MI between the centre spin and the spin ``k`` after it (nats;
        the chapter's figure).
    mi_nn_from_centre : list of float
        The same for the nearest-neighbour chain (nats; the chapter's figure).
    """

    n_spins: int
    beta_J: float
    alpha: float
    eq62_max_deviation: float
    eq57_as_printed_deviation: float
    mi_tau: list[int]
    mi_enumerated: list[float]
    mi_closed: list[float]
    mi_max_deviation: float
    xi: float
    xi_fitted: float
    past_dependence_nn: list[float]
    past_dependence_long_range: list[float]
    mi_long_range: list[float]
    mi_nn_from_centre: list[float]


@dataclass(frozen=True, kw_only=True)
class Results(ChapterResults):
    """What chapter 01 saves: exact series, pole decay rates, Monte Carlo checks, the width sweep, Ising chains.

    Attributes
    ----------
    t_exact : int
        Terms of the exact series compared with the recurrence.
    series_max_abs_diff : float
        Largest ``|series − recurrence|`` over every system (eqs. 24–35).
    series_systems : list of SeriesSystem
        Each system expanded in exact arithmetic.
    decay_networks : list of DecayNetwork
        Each network whose decay rate is fitted (App. A).
    decay_max_rel_error : float
        Largest ``|ρ_fit/ρ − 1|`` over them.
    fit_tolerance : float
        The relative tolerance every exact fit must meet.
    memorising : PoleFit
        A network with a pole inside the unit disk (Sec. 4.1: it memorises ``x₀``).
    order_two : OrderTwoPoleFit
        A network whose nearest pole has order two.
    mc : MonteCarlo
        The sampled network (eqs. 11, 12, 15, 41).
    sweep : list of SweepNetwork
        The width sweep of ξ (eq. 41, Sec. 4.1).
    xi_max_rel_error_exact, xi_max_rel_error_trace : float
        Largest ``|ξ_fit/ξ − 1|`` over the sweep, exact and trace forms.
    trace_over_exact_last_lag_min : float
        Smallest ratio, over the sweep, of eq. 41's trace form to its exact form at the last
        lag whose MI exceeds 1e-200 nats.
    bias : BiasCheck
        Biases shift the mean only.
    ising : IsingChecks
        The Ising chains of App. G.
    wall_s_in_notebook : float
        The chapter's wall time (seconds).
    """

    t_exact: int
    series_max_abs_diff: float
    series_systems: list[SeriesSystem]
    decay_networks: list[DecayNetwork]
    decay_max_rel_error: float
    fit_tolerance: float
    memorising: PoleFit
    order_two: OrderTwoPoleFit
    mc: MonteCarlo
    sweep: list[SweepNetwork]
    xi_max_rel_error_exact: float
    xi_max_rel_error_trace: float
    trace_over_exact_last_lag_min: float
    bias: BiasCheck
    ising: IsingChecks
    wall_s_in_notebook: float
