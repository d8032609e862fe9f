"""Readings of chapter 04's recorded sweeps, shared by the chapter's figures and its rules.

Torch-free: the rules (:mod:`seqmi.claims.ch04_bipartite_mi_l2m`) read recorded results
with the core alone. Each reading takes the typed records the rules hold
(:mod:`seqmi.results.ch04_bipartite_mi_l2m`), or the JSON the chapter holds before it
saves it, which it first reads into those records.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from seqmi.results import as_json
from seqmi.results.ch04_bipartite_mi_l2m import BoundRun, L2MRun
from seqmi.stats import spearman

Record = TypeVar("Record", L2MRun, BoundRun)


def _typed(kind: type[Record], run: Record | Mapping[str, Any]) -> Record:
    """``run`` as the record ``kind``: read from the chapter's JSON where it is one."""
    return kind.from_json(as_json(run)) if isinstance(run, Mapping) else run


def collapse_points(l2m_runs: Mapping[str, L2MRun | Mapping[str, Any]]) -> tuple[
        NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Every trained Mamba model's bipartite MI per state dimension, average KL and length.

    Each replicate of a pooled record (see
    :func:`seqmi.experiments.ch04_bipartite_mi_l2m.pool_replicates`) is one point: the
    independently trained models are the units of Fig. 4(b)'s collapse.

    Parameters
    ----------
    l2m_runs : dict
        The chapter's ``l2m_runs``, keyed ``"<backbone>/d=<width>/L=<length>"``: typed
        records (:class:`seqmi.results.ch04_bipartite_mi_l2m.L2MRun`) or the chapter's dicts.

    Returns
    -------
    (x, kl, lengths)
        Arrays of one entry per trained Mamba model.
    """
    xs, ys, Ls = [], [], []
    for key, entry in l2m_runs.items():
        if key.startswith("mamba/"):
            run = _typed(L2MRun, entry)
            kls = [run.average_kl] if run.average_kl_replicates is None else run.average_kl_replicates
            xs += [run.bipartite_mi / run.state_size] * len(kls)
            ys += list(kls)
            Ls += [float(key.rsplit("=", 1)[1])] * len(kls)
    return np.array(xs, dtype=float), np.array(ys, dtype=float), np.array(Ls)


def collapse_spearman(l2m_runs: Mapping[str, L2MRun | Mapping[str, Any]]) -> tuple[float, int]:
    """Spearman ρ of Mamba's average KL against the bipartite MI per state dimension.

    Every trained Mamba model is one point (:func:`collapse_points`), so that the
    interval counts the runs that were made. The correlation is the book's one
    (:func:`seqmi.stats.rank.spearman`), the one the Fig. 4(b) rule decides on.

    Parameters
    ----------
    l2m_runs : dict
        The chapter's ``l2m_runs``, keyed ``"<backbone>/d=<width>/L=<length>"``: typed
        records or the chapter's dicts.

    Returns
    -------
    (rho, n_runs)
    """
    x, kl, _ = collapse_points(l2m_runs)
    return spearman(x, kl), len(x)


# an exact bound below this (nats) is 0: correlations that vanish come out of the SVD as
# ~1e-16, and enter the excess squared (~1e-31)
ZERO_BOUND = 1e-9


def bound_groups(records: Sequence[BoundRun | Mapping[str, Any]]) -> dict[tuple[str, int, int], list[BoundRun]]:
    """The per-seed records of the exact-bound sweep grouped by ``(backbone, size, L)``.

    Parameters
    ----------
    records : list of BoundRun or dict
        The chapter's ``bound_runs``: one record of
        :func:`seqmi.experiments.ch04_bipartite_mi_l2m.bound_point` per seed, with its
        ``backbone``, ``size``, ``L`` and ``seed``; typed
        (:class:`seqmi.results.ch04_bipartite_mi_l2m.BoundRun`) or the chapter's dicts.

    Returns
    -------
    dict
        Each model's seeds, as typed records, in the order recorded.
    """
    groups: dict[tuple[str, int, int], list[BoundRun]] = {}
    for rec in (_typed(BoundRun, r) for r in records):
        groups.setdefault((rec.backbone, int(rec.size), int(rec.L)), []).append(rec)
    return groups
