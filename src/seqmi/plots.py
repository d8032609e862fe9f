"""Figure panels of the chapters: MI curves, correlation lengths, estimates with errors.

Two-point MI curves (:func:`mi_panel`), correlation lengths with their intervals
(:func:`xi_panel`), MI estimates with their standard errors (:func:`estimate_bars`), a
linear RNN's exact MI three ways (:func:`linear_mi_panel`), the bipartite MI at every
split point (:func:`split_profile_panel`) and position-wise KL curves
(:func:`position_kl_panel`).
All draw on a matplotlib ``Axes`` the caller owns (its figure, layout and saving stay in
the chapter). The records :func:`xi_panel` reads are those of
:func:`seqmi.fit.decay_fits`: ``xi`` and its 95%
interval ``xi_ci``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.ticker import MaxNLocator
from numpy.typing import ArrayLike

from seqmi.fit import DecayFits

#: The upper end of a plotted interval (an unbounded fit's would stretch the axis to nothing).
XI_CEILING = 1e6


def mi_panel(ax: Axes, lags: ArrayLike, curves: Sequence[tuple[str, ArrayLike, Mapping[str, Any]]], *,
             threshold: float, title: str, xlabel: str = r"distance $\tau$", floor: float = 1e-6,
             ylabel: bool = True, legend: Mapping[str, Any] | None = None) -> None:
    """Two-point MI curves ``I(tau)`` on log-log axes, with the fits' threshold.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    lags : array_like
        The distances ``tau`` of every curve.
    curves : sequence of (label, mi, style)
        ``style``: keyword arguments of ``ax.plot`` (line width 1 unless given).
    threshold : float
        Drawn as a dashed grey line: the fits use the points above it.
    title, xlabel : str
    floor : float
        Curves are clipped from below at ``floor``: an estimate at or below zero has no
        place on a log axis.
    ylabel : bool
        Label the y axis (off for the right panels of a shared axis).
    legend : mapping, optional
        Keyword arguments of ``ax.legend`` (font size 7 unless given).
    """
    for label, mi, style in curves:
        ax.plot(lags, np.clip(np.asarray(mi, dtype=float), floor, None), label=label, **{"lw": 1, **style})
    ax.axhline(threshold, color="grey", ls="--", lw=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    if ylabel:
        ax.set_ylabel(r"$I(\tau)$ [nats]")
    ax.set_title(title)
    ax.legend(**{"fontsize": 7, **(legend or {})})


def _as_record(fit: Mapping[str, Any] | DecayFits) -> Mapping[str, Any]:
    """A fit as its record (a fit read back from a recording is one already)."""
    return asdict(fit) if isinstance(fit, DecayFits) else fit


def xi_panel(ax: Axes, series: Sequence[tuple[str, Sequence[float], Sequence[Mapping[str, Any] | DecayFits | None]]],
             reference: Mapping[str, Any] | DecayFits, *, xlabel: str, title: str, log_x: bool = True,
             reference_label: str = "data") -> None:
    """Correlation lengths ``xi`` with their 95% intervals against width or depth.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    series : sequence of (label, xs, fits)
        One line per entry: ``fits[i]`` is the fit at ``xs[i]`` (a :class:`~seqmi.fit.DecayFits`, or
        its record read back, with ``xi`` and ``xi_ci``), or ``None`` where the model is
        missing (a pending sweep point). A fit
        whose ``xi`` is infinite (no decay) has no point: the label lists where.
    reference : mapping
        The data's fit, drawn as a dashed line (``xi``) and a grey band (``xi_ci``).
    xlabel, title : str
    log_x : bool
        Widths on a base-2 log axis; otherwise integer ticks (depths).
    reference_label : str
        Legend entry of the band.
    """
    plotted = False
    reference = _as_record(reference)
    for label, xs, fits in series:
        got = [(x, _as_record(f)) for x, f in zip(xs, fits) if f is not None]
        if not got:
            continue
        flat = [x for x, f in got if not np.isfinite(f["xi"])]
        got = [(x, f) for x, f in got if np.isfinite(f["xi"])]
        label += f" (ξ = ∞ at {flat})" if flat else ""
        if not got:
            ax.plot([], [], "o", label=label)
            continue
        x = np.array([g[0] for g in got], dtype=float)
        xi = np.array([f["xi"] for _, f in got])
        lo = np.array([f["xi_ci"][0] for _, f in got])
        hi = np.array([min(f["xi_ci"][1], XI_CEILING) for _, f in got])
        # a percentile bootstrap interval need not contain the whole sample's estimate: the bar
        # then spans the interval and the estimate
        ax.errorbar(x, xi, yerr=[np.clip(xi - lo, 0, None), np.clip(hi - xi, 0, None)], fmt="o-", capsize=3,
                    label=label)
        plotted = True
    ax.axhline(reference["xi"], color="grey", ls="--", lw=1)
    ax.axhspan(*reference["xi_ci"], color="grey", alpha=0.2, label=reference_label)
    if log_x and plotted:
        ax.set_xscale("log", base=2)
    elif not log_x:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(r"correlation length $\xi$")
    ax.set_title(title)
    ax.legend(fontsize=7)


def estimate_bars(ax: Axes, lengths: ArrayLike, estimates: Sequence[Any], **style: Any) -> None:
    """MI estimates against sequence length with their standard errors, the positive ones only.

    A bias-corrected estimate of a small MI can fall at or below zero, where a log axis has
    no place for it: it is left out, not clipped.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    lengths : array_like
        The length of every estimate.
    estimates : sequence
        One record per length with ``mi`` and ``stderr``, e.g.
        :class:`seqmi.bipartite.BipartiteEstimate`.
    **style
        Keyword arguments of ``ax.errorbar``.
    """
    mi = np.array([e.mi for e in estimates])
    se = np.array([e.stderr for e in estimates])
    keep = mi > 0
    ax.errorbar(np.asarray(lengths)[keep], mi[keep], yerr=se[keep], **style)


def linear_mi_panel(ax: Axes, networks: Sequence[tuple[str, Any]], max_lag: int, *, title: str) -> None:
    """A linear RNN's ``I(x_0; x_t)`` three ways: eq. (41), its trace approximation, the log-det MI.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    networks : sequence of (label, result)
        One colour per network; ``result`` a :class:`seqmi.theory.linear_rnn.MIResult`
        (``lags``, ``eq41``, ``trace``, ``exact``).
    max_lag : int
        Lags drawn.
    title : str
    """
    for label, res in networks:
        lags, eq41, trace, exact = (np.asarray(v)[:max_lag] for v in (res.lags, res.eq41, res.trace, res.exact))
        (line,) = ax.plot(lags, eq41, lw=1.2, label=label)
        ax.plot(lags, trace, ls=":", color=line.get_color(), lw=1.5)
        ok = exact > 1e-13  # below this the log-det difference is rounding noise
        ax.plot(lags[ok][::6], exact[ok][::6], "x", color=line.get_color(), ms=4)
    ax.plot([], [], "k-", label="eq. (41), exact")
    ax.plot([], [], "k:", label="trace approximation")
    ax.plot([], [], "kx", label="gaussian_mi (log-det)")
    ax.set(yscale="log", ylim=(1e-60, 10), xlabel="lag $t$", ylabel=r"$I(x_0; x_t)$ [nats]", title=title)
    ax.legend(fontsize=7)


def split_profile_panel(ax: Axes, profiles: Mapping[str, ArrayLike], length: int, marks: Sequence[float], *,
                        title: str) -> None:
    """The bipartite MI at every split point of one length, relative to the equal split.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    profiles : mapping
        ``{label: I(ell; L) for ell = 1..L-1}``, one line each.
    length : int
        ``L`` (even).
    marks : sequence of float
        Split points ``ell / L`` marked by dotted lines.
    title : str
    """
    frac = np.arange(1, length) / length
    for label, profile in profiles.items():
        values = np.asarray(profile, dtype=float)
        ax.plot(frac, values / values[length // 2 - 1], lw=0.8, label=label)
    for x in marks:
        ax.axvline(x, color="0.6", lw=0.6, ls=":")
    ax.set(yscale="log", xlabel=r"split point $\ell / L$", ylabel=r"$I(\ell; L) / I(L/2; L)$", title=title)
    ax.legend(fontsize=7)


def position_kl_panel(ax: Axes, curves: Sequence[tuple[str, str, Any, ArrayLike, ArrayLike | None]],
                      context_free: ArrayLike, *, title: str) -> None:
    """Models' conditional KL at every position of a sequence, with the context-free model's.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    curves : sequence of (label, linestyle, color, kl, replicates)
        ``kl[i - 1]`` the KL at position ``i``; ``replicates`` (shape ``(runs, L)``) draws a
        band from the lowest to the highest run at each position, or ``None``.
    context_free : array_like
        The KL of the model that ignores the context, dotted.
    title : str
    """
    for label, style, color, kl, replicates in curves:
        positions = np.arange(1, len(kl) + 1)
        ax.plot(positions, kl, style, color=color, lw=1, label=label)
        if replicates is not None:
            reps = np.asarray(replicates, dtype=float)
            ax.fill_between(positions, reps.min(0), reps.max(0), color=color, alpha=0.2, lw=0)
    context_free = np.asarray(context_free, dtype=float)
    ax.plot(np.arange(1, len(context_free) + 1), context_free, ":", color="k", lw=1, label="context-free")
    ax.set(xscale="log", xlabel="position $i$", ylabel="conditional KL $D_i$ [nats]", title=title)
