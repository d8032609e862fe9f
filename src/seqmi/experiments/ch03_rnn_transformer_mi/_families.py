"""Families of models and their seed points: the points of chapter 03's sweeps and their records.

A family ``(kind, widths, depth)`` is the models of one kind and depth at several widths;
a sweep point is one training seed of a family. The functions here build the points from
the chapter's grids and join the records of a family's seeds into one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from seqmi.sweep import describe
from seqmi.validate import check_choice, check_int, check_int_list, check_multiples

if TYPE_CHECKING:
    from seqmi.experiments.ch03_rnn_transformer_mi._binary import BinarySettings
    from seqmi.experiments.ch03_rnn_transformer_mi._text import CharSettings, WordSettings

# The constants below are documented where the package binds them (seqmi.experiments.ch03_rnn_transformer_mi),
# which is where the API reference reads their comments.
Model = tuple[str, int, int]
Family = tuple[str, tuple[int, ...], int]
SeedFamily = tuple[str, tuple[int, ...], int, int]
MEASUREMENT_FIELDS = frozenset({"n_generate", "threshold", "generate", "row", "max_lag", "sample_sets"})


def model_grid(widths: Mapping[str, Sequence[int]],
               depth_sweeps: Mapping[str, tuple[Sequence[int], Sequence[int]]],
               heads: Mapping[str, int] | None = None) -> list[Model]:
    """The models of width sweeps at depth 1 and of depth sweeps, each once, in order.

    Parameters
    ----------
    widths : mapping
        ``{kind: widths}``: one model per width, at depth 1.
    depth_sweeps : mapping
        ``{kind: (widths, depths)}``: one model per width and depth.
    heads : mapping, optional
        ``{kind: attention heads}``: every width of these kinds must be a multiple of
        its heads.

    Returns
    -------
    list of (kind, width, depth)

    Raises
    ------
    ValueError
        If a width is not a positive integer (or not a multiple of its kind's heads), or
        a depth not in ``[1, 48]``: before any model is built.
    """
    heads = heads or {}
    for kind, ws in widths.items():
        check_multiples(f"{kind} widths", ws, heads.get(kind, 1), "heads")
    for kind, (ws, ds) in depth_sweeps.items():
        check_multiples(f"{kind} depth-sweep widths", ws, heads.get(kind, 1), "heads")
        check_int_list(f"{kind} depths", ds, 1, 48)
    models = [(kind, w, 1) for kind, ws in widths.items() for w in ws]
    models += [(kind, w, d) for kind, (ws, ds) in depth_sweeps.items() for w in ws for d in ds]
    return list(dict.fromkeys(models))


def families(models: Iterable[Model]) -> list[Family]:
    """Models grouped into one family per ``(kind, depth)``, widths in order of first appearance."""
    grouped: dict[tuple[str, int], list[int]] = {}
    for kind, width, depth in models:
        widths = grouped.setdefault((kind, depth), [])
        if width not in widths:
            widths.append(width)
    return [(kind, tuple(widths), depth) for (kind, depth), widths in grouped.items()]


def seed_families(points: Iterable[Family], seeds: Mapping[str, Sequence[int]]) -> list[SeedFamily]:
    """One sweep point per family and training seed index, families first.

    Parameters
    ----------
    points : iterable of (kind, widths, depth)
    seeds : mapping
        ``{kind: training seed indices}`` (:func:`seed_config`), e.g. ``range(3, 15)`` for
        a decisive run whose pilot trained seeds 0-2; every kind of ``points`` needs one.
    """
    points = list(points)
    for kind in dict.fromkeys(point[0] for point in points):
        if kind not in seeds:
            raise ValueError(f"no seeds given for kind {kind!r}; seeds are given for {sorted(seeds)}")
        check_int_list(f"{kind} seeds", list(seeds[kind]), 0)
        if len(set(seeds[kind])) != len(seeds[kind]):
            raise ValueError(f"{kind} seeds must be distinct, got {list(seeds[kind])}")
    return [(kind, widths, depth, s) for kind, widths, depth in points for s in seeds[kind]]


def merge_seeds(done: Mapping[SeedFamily, dict[str, Any]],
                seeds: Mapping[str, Sequence[int]]) -> dict[Family, dict[str, Any]]:
    """The records of seed points joined into one record per family, as :func:`run_family` writes it.

    Only families whose every seed of ``seeds[kind]`` is done are joined (a family with seeds
    pending is pending: a claim over its seeds waits for all of them); seed points of
    other seeds are ignored. Each model's ``seeds`` are its seed points' records in seed order, and its top-level
    fields the best seed's on validation (the paper's reading: the best of its restarts),
    with ``best_seed``, ``seed_val_losses`` and ``seed_indices``. A family's ``train_s``
    and ``train_busy_s`` add up its seeds'.
    """
    grouped: dict[Family, list[tuple[int, dict[str, Any]]]] = {}
    for (kind, widths, depth, seed), record in done.items():
        if seed in seeds.get(kind, ()):
            grouped.setdefault((kind, widths, depth), []).append((seed, record))
    merged = {}
    for family, runs in grouped.items():
        runs.sort(key=lambda run: run[0])
        if [seed for seed, _ in runs] == sorted(seeds[family[0]]):
            merged[family] = join_seeds(runs)
    return merged


def join_seeds(runs: Sequence[tuple[int, dict[str, Any]]]) -> dict[str, Any]:
    """One family record from the records of its seeds (:func:`run_seeds`), seeds in the order given.

    Each model's ``seeds`` are its seeds' records, and its top-level fields the best seed's
    on validation (the paper's reading: the best of its restarts), with its position
    ``best_seed``, every seed's ``seed_val_losses``, the ``seed_indices``, the mean
    ``tokens_per_s``; the family's ``train_s`` and ``train_busy_s`` add up its seeds'.
    """
    first = runs[0][1]
    models = []
    for c in range(len(first["models"])):
        records = [record["models"][c]["seeds"][0] for _, record in runs]
        best = int(np.argmin([r["val_loss"] for r in records]))
        chosen = runs[best][1]["models"][c]
        models.append({**records[best], "best_seed": best, "seed_val_losses": [r["val_loss"] for r in records],
                       "seed_indices": [seed for seed, _ in runs], "seeds": records,
                       **{k: chosen[k] for k in ("params", "state_floats", "device", "amp")},
                       "tokens_per_s": float(np.nanmean([r["models"][c]["tokens_per_s"] for _, r in runs]))})
    return {"train_s": sum(r["train_s"] for _, r in runs),
            "train_busy_s": sum(r["train_busy_s"] for _, r in runs), "models": models}


def members(points: Iterable[Family | SeedFamily]) -> list[Model]:
    """The models of family (or seed) points, each once, in order."""
    return list(dict.fromkeys((point[0], w, point[2]) for point in points for w in point[1]))


def by_model(done: Mapping[Family, dict[str, Any]]) -> dict[Model, dict[str, Any]]:
    """One record per model from the records of family points (:func:`run_family`, :func:`merge_seeds`)."""
    return {model: record for point, family in done.items()
            for model, record in zip(members([point]), family["models"])}


def training_spec(settings: BinarySettings | CharSettings | WordSettings) -> dict[str, Any]:
    """What training reads of a sweep's settings: its :func:`seqmi.sweep.run_sweep` ``checkpoint_spec``.

    ``settings`` as a dict, nested settings included, without ``MEASUREMENT_FIELDS`` and
    the device (:func:`seqmi.sweep.describe`): a
    rerun that generates more sequences (or characters) from the trained models, or fits
    above another threshold, measures them again from the sweep's checkpoints instead of
    training them again.
    """
    def strip(fields: dict[str, Any]) -> dict[str, Any]:
        return {k: strip(v) if isinstance(v, dict) else v for k, v in fields.items() if k not in MEASUREMENT_FIELDS}

    return strip(describe(settings))


def family_of(point: SeedFamily) -> Family:
    """The family of a seed point, ``(kind, widths, depth)``: the seeds that can train together."""
    return point[:3]


def _check_family(point: SeedFamily, kinds: Sequence[str]) -> None:
    if not (isinstance(point, tuple) and len(point) == 4):
        raise ValueError(f"a sweep point is (kind, widths, depth, seed), got {point!r}")
    kind, widths, depth, seed = point
    check_int("seed", seed, 0)
    check_choice("kind", kind, kinds)
    if not widths:
        raise ValueError(f"a family needs at least one width, got {point!r}")
    for w in widths:
        check_int("width", w, 1)
    check_int("depth", depth, 1)
