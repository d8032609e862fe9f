"""Readings of chapter 04's recorded sweeps, shared by the chapter's figures and its rules.

Torch-free: the rules (:mod:`seqmi.claims.ch04_bipartite_mi_l2m`) read recorded results
with the core alone.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray


def collapse_points(l2m_runs: dict[str, dict[str, Any]]) -> tuple[NDArray[np.float64], NDArray[np.float64],
                                                                  NDArray[np.float64]]:
    """Every trained Mamba model's bipartite MI per state dimension, average KL and length.

    Each replicate of a pooled record (see
    :func:`seqmi.experiments.ch04_bipartite_mi_l2m.pool_replicates`) is one point: the
    independently trained models are the units of Fig. 4(b)'s collapse.

    Parameters
    ----------
    l2m_runs : dict
        The chapter's ``l2m_runs``, keyed ``"<backbone>/d=<width>/L=<length>"``.

    Returns
    -------
    (x, kl, lengths)
        Arrays of one entry per trained Mamba model.
    """
    xs, ys, Ls = [], [], []
    for key, run in l2m_runs.items():
        if key.startswith("mamba/"):
            kls = run.get("average_kl_replicates", [run["average_kl"]])
            xs += [run["bipartite_mi"] / run["state_size"]] * len(kls)
            ys += list(kls)
            Ls += [float(key.rsplit("=", 1)[1])] * len(kls)
    return np.array(xs, dtype=float), np.array(ys, dtype=float), np.array(Ls)


def collapse_spearman(l2m_runs: dict[str, dict[str, Any]]) -> tuple[float, int]:
    """Spearman ρ of Mamba's average KL against the bipartite MI per state dimension.

    Every trained Mamba model is one point (:func:`collapse_points`), so that the
    interval counts the runs that were made.

    Parameters
    ----------
    l2m_runs : dict
        The chapter's ``l2m_runs``, keyed ``"<backbone>/d=<width>/L=<length>"``.

    Returns
    -------
    (rho, n_runs)
    """
    from scipy import stats

    x, kl, _ = collapse_points(l2m_runs)
    return float(stats.spearmanr(x, kl).statistic), len(x)


# an exact bound below this (nats) is 0: correlations that vanish come out of the SVD as
# ~1e-16, and enter the excess squared (~1e-31)
ZERO_BOUND = 1e-9


def bound_groups(records: list[dict[str, Any]]) -> dict[tuple[str, int, int], list[dict[str, Any]]]:
    """The per-seed records of the exact-bound sweep grouped by ``(backbone, size, L)``.

    Parameters
    ----------
    records : list of dict
        The chapter's ``bound_runs``: one record of
        :func:`seqmi.experiments.ch04_bipartite_mi_l2m.bound_point` per seed, with its
        ``backbone``, ``size``, ``L`` and ``seed``.

    Returns
    -------
    dict
        Each model's seeds, in the order recorded.
    """
    groups: dict[tuple[str, int, int], list[dict[str, Any]]] = {}
    for rec in records:
        groups.setdefault((rec["backbone"], int(rec["size"]), int(rec["L"])), []).append(rec)
    return groups
