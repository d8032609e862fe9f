"""Figure panels the chapters share: MI curves, correlation lengths, estimates with errors.

Two-point MI curves (:func:`mi_panel`), correlation lengths with their intervals
(:func:`xi_panel`) and MI estimates with their standard errors (:func:`estimate_bars`).
All draw on a matplotlib ``Axes`` the caller owns (its figure, layout and saving stay in
the chapter). The records :func:`xi_panel` reads are those of
:func:`seqmi.experiments.ch03_rnn_transformer_mi.decay_fits`: ``xi`` and its 95%
interval ``xi_ci``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.ticker import MaxNLocator
from numpy.typing import ArrayLike

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


def xi_panel(ax: Axes, series: Sequence[tuple[str, Sequence[float], Sequence[Mapping[str, Any] | None]]],
             reference: Mapping[str, Any], *, xlabel: str, title: str, log_x: bool = True,
             reference_label: str = "data") -> None:
    """Correlation lengths ``xi`` with their 95% intervals against width or depth.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    series : sequence of (label, xs, fits)
        One line per entry: ``fits[i]`` is the fit at ``xs[i]`` (a record with ``xi`` and
        ``xi_ci``), or ``None`` where the model is missing (a pending sweep point). A fit
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
    for label, xs, fits in series:
        got = [(x, f) for x, f in zip(xs, fits) if f is not None]
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
