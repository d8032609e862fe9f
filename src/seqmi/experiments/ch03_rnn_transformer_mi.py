"""Sweep points of chapter 03: trained RNNs, LSTMs and Transformers, sampled and measured (Shen 2019).

Shen's method is black-box: train a model, let it generate from its start state, and
measure the two-point mutual information ``I(tau)`` of what it writes, summarised by the
correlation length ``xi`` of an exponential fit (:func:`~seqmi.fit.decay_fits`). A sweep point here
is one seed of a *family* ``(kind, widths, depth)``: the models of one kind and depth at
several widths, trained in one :func:`seqmi.train.train_family` call (each exactly as it
would be alone), then every model sampled and measured (:func:`run_seeds`); seeds of one
family may train together, each seed's record unchanged. Three sweeps use it:

- :func:`binary_points`: binary sequences with a power-law ``I(tau)`` (Sec. 4.2.1);
- :func:`char_point`: character-level models of the KJV (Sec. 4.2.2);
- :func:`word_point`: word-level models of the KJV, measured at character level (Sec. 5.2).

A point rebuilds its data from its settings (:func:`binary_data`, :func:`char_corpus`,
:func:`word_corpus`, cached per process), so that a Dask worker receives only the point
and a small frozen settings record. Every random stream is a
:func:`~seqmi.rng.child_seed` of the chapter's seed named after what it seeds: the data,
and per model ``(kind, width, depth)`` its training (every seed's weights and data
order, :func:`seed_config`) and its sampler. A model's numbers therefore do not depend on the family it is
trained in.
"""

from __future__ import annotations

from seqmi._optional import require

require("torch")  # a missing torch fails naming its extra

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from functools import lru_cache, partial
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from torch import nn

from seqmi.data.binary import binary_power_law
from seqmi.data.text import UNK, CharVocab, Splits, WordVocab, join, kjv_documents, split_contiguous
from seqmi.device import DeviceLike, check_device
from seqmi.fit import decay_fits
from seqmi.info import two_point_mi, two_point_mi_bootstrap
from seqmi.models.lm import RNNLM, TransformerLM
from seqmi.models.wordchar import CharLevelSampler, add_lstm_dropout
from seqmi.rng import child_seed
from seqmi.sweep import Budget, current_budget, describe, unkeyed
from seqmi.convergence import converged
from seqmi.train import Sequences, Stream, TrainConfig, TrainResult, train_family
from seqmi.validate import check_choice, check_float, check_int, check_int_list, check_multiples, check_type

#: A trained model of a sweep, ``(kind, width, depth)``.
Model = tuple[str, int, int]
#: The models of one kind and depth, ``(kind, widths, depth)``.
Family = tuple[str, tuple[int, ...], int]
#: A sweep point, ``(kind, widths, depth, seed)``: one independently trained seed of a
#: family. A point per seed lets a run add seeds to those an earlier run finished (the
#: ledger keeps each one), and a decisive run's fresh seeds never meet its pilot's.
SeedFamily = tuple[str, tuple[int, ...], int, int]

BINARY_KINDS = ("rnn", "lstm", "transformer")
CHAR_KINDS = ("lstm", "transformer")
WORD_KINDS = ("word_lstm", "word_transformer")
BINARY_HEADS = 4  # attention heads of the binary Transformers (App. E.2.1)
TEXT_HEADS = 8  # attention heads of the text Transformers (App. E.2.2)
TEXT_THRESHOLD = 2e-3  # fits of text curves use I(tau) above this (App. E.1.2)
MID_START = 10  # the text's intermediate range starts here: tau >= 10 characters (sentence level)
HEAD_CHARS = 600  # characters of a text model's first sample kept in its record (App. F)
BINARY_BOOTSTRAP = 200  # bootstrap replicates over generated sequences behind every binary interval
BOOTSTRAP_BLOCKS = 100  # groups of rows the bootstrap resamples (one row per group below that)
#: Settings fields that only sampling and measurement read, never training.
MEASUREMENT_FIELDS = frozenset({"n_generate", "threshold", "generate", "row", "max_lag", "sample_sets"})


# ---------------------------------------------------------------- sweeps of families


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


def xi_series(points: Mapping[Model, Mapping[str, Any]], kind: str, widths: Mapping[str, Sequence[int]],
              depth_sweeps: Mapping[str, tuple[int, Sequence[int]]]) -> tuple[list, list]:
    """The character- and word-level series of ``kind`` for :func:`seqmi.plots.xi_panel` (Figs. 8, 10).

    Parameters
    ----------
    points : mapping
        ``{(kind, width, depth): record}`` of the text sweeps (a missing model reads ``None``).
    kind : str
        ``"lstm"`` or ``"transformer"``: its character-level kind and ``"word_" + kind``.
    widths : mapping
        ``{kind: widths}`` of the width sweeps (depth 1).
    depth_sweeps : mapping
        ``{kind: (width, depths)}`` of the depth sweeps.

    Returns
    -------
    (by_width, by_depth)
        Each a list of ``(label, xs, records)``, character level first.
    """
    levels = {kind: "character", f"word_{kind}": "word"}
    by_width = [(level, widths[k], [points.get((k, w, 1)) for w in widths[k]]) for k, level in levels.items()]
    by_depth = [(f"{level} (width {depth_sweeps[k][0]})", depth_sweeps[k][1],
                 [points.get((k, depth_sweeps[k][0], d)) for d in depth_sweeps[k][1]])
                for k, level in levels.items()]
    return by_width, by_depth


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


# ---------------------------------------------------------------- the measurement


def curve_gap(mi: ArrayLike, ref: ArrayLike, keep: ArrayLike) -> float:
    """How far a model's ``I(tau)`` is from the text's: mean ``|ln I - ln I_ref|`` over ``keep``.

    Only lags where both curves are positive count (the bias-corrected estimator can dip
    below 0 at the floor); NaN when none does.
    """
    mi, ref, keep = np.asarray(mi, dtype=float), np.asarray(ref, dtype=float), np.asarray(keep, dtype=bool)
    if mi.ndim != 1 or mi.shape != ref.shape or mi.shape != keep.shape:
        raise ValueError(f"mi, ref and keep must be curves over the same lags, got shapes {mi.shape}, {ref.shape} "
                         f"and {keep.shape}")
    use = keep & (mi > 0) & (ref > 0)
    return float(np.abs(np.log(mi[use]) - np.log(ref[use])).mean()) if use.any() else float("nan")


def reference_curves(rows: ArrayLike, n_rows: int, max_lag: int, seed: int) -> list[np.ndarray]:
    """The text's ``I(tau)``, ``tau = 1..max_lag``, on disjoint random samples of ``n_rows`` of its ``rows``.

    As many samples as the rows hold (one of all rows when there are fewer than
    ``n_rows``): the references of :func:`set_gaps`, each of the size of one sample set.
    """
    rows = np.asarray(rows)
    check_int("n_rows", n_rows, 1)
    n = min(n_rows, len(rows))
    order = np.random.default_rng(seed).permutation(len(rows))
    return [two_point_mi(rows[np.sort(order[i * n:(i + 1) * n])], max_lag) for i in range(len(rows) // n)]


def set_gaps(mi_sets: Sequence[ArrayLike], refs: Sequence[ArrayLike], keep: ArrayLike) -> list[float]:
    """:func:`curve_gap` of every sample set of a model, set ``k`` against ``refs[k % len(refs)]``.

    ``refs`` are the text's curves on disjoint samples of the size of one set: the
    reference shares each set's estimator floor, and comparisons of two models pair their
    sets by index, so that both meet the same text sample and its noise cancels from the
    difference. The values over sets are the replicates of a Student-t interval.
    """
    if not refs:
        raise ValueError("set_gaps needs at least one reference curve")
    return [curve_gap(m, refs[k % len(refs)], keep) for k, m in enumerate(mi_sets)]


def subsample_control(train_rows: np.ndarray, valid_mi: np.ndarray, train_mi: np.ndarray, n_rows: int,
                      start: int, rng: np.random.Generator, draws: int = 10) -> dict[str, float]:
    """Is a held-out split's long-range MI the estimator's floor at its size? (App. D.2's control)

    The mean ``I(tau >= start)`` of the validation split and of the whole training split,
    each as a z-score against ``draws`` random subsamples of the training split with the
    validation split's ``n_rows`` rows: a validation curve within the subsamples' spread,
    and a whole training split far below it, is a sample-size effect, not the split's.

    Parameters
    ----------
    train_rows : ndarray, shape (rows, row_length)
        The training split's symbol rows.
    valid_mi, train_mi : ndarray, shape (max_lag,)
        ``I(tau)`` of the validation split and of the whole training split, ``tau = 1..max_lag``.
    n_rows : int
        Rows per subsample (the validation split's).
    start : int
        First lag of the long range.
    rng : numpy.random.Generator
        Draws the subsamples (``draws`` calls, in order).
    draws : int
        Subsamples.

    Returns
    -------
    dict
        ``valid``, ``train`` (the two means), ``null_mean`` and ``null_sd`` (over the
        subsamples), ``z_valid`` and ``z_train``.
    """
    max_lag = len(valid_mi)
    check_int("n_rows", n_rows, 2, len(train_rows))
    check_int("start", start, 1, max_lag)
    check_int("draws", draws, 2)
    far = slice(start - 1, max_lag)
    picks = [np.sort(rng.choice(len(train_rows), n_rows, replace=False)) for _ in range(draws)]
    null = np.array([two_point_mi(train_rows[d], max_lag)[far].mean() for d in picks])
    v, t = valid_mi[far].mean(), train_mi[far].mean()
    mean, sd = null.mean(), null.std(ddof=1)
    return {"valid": float(v), "train": float(t), "null_mean": float(mean), "null_sd": float(sd),
            "z_valid": float((v - mean) / sd), "z_train": float((t - mean) / sd)}


def long_range_shape(split: tuple[np.ndarray, np.ndarray], train: tuple[np.ndarray, np.ndarray],
                     start: int) -> dict[str, float]:
    """Shen's App. D.2 reading of a held-out split against its training split, at ``tau >= start``.

    Shen reports WikiText-2's validation MI "much larger" than the training set's at long
    range and without the algebraic decay. Both are linear statistics of the curves, so
    their standard errors come from batch means (:func:`seqmi.info.two_point_mi_batches`).

    Parameters
    ----------
    split, train : (estimate, batches)
        :func:`seqmi.info.two_point_mi_batches` of the held-out split and of the training
        split, over the same lags ``tau = 1..max_lag``.
    start : int
        First lag of the long range; its first and last thirds measure the decay.

    Returns
    -------
    dict
        ``excess`` (mean ``I`` of the split minus the training split's over the long range)
        and ``excess_se``; ``decay`` (the split's mean ``I`` over the first third of the
        range minus over the last third, positive where it decays) and ``decay_se``; the
        same ``train_decay`` and ``train_decay_se`` of the training split.
    """
    (est, batches), (train_est, train_batches) = split, train
    if est.shape != train_est.shape or batches.shape[1:] != est.shape or train_batches.shape[1:] != est.shape:
        raise ValueError(f"the split's and the training split's curves must share their lags, got shapes "
                         f"{est.shape}, {batches.shape}, {train_est.shape} and {train_batches.shape}")
    check_int("start", start, 1, len(est) - 2)
    far = np.arange(start - 1, len(est))
    third = len(far) // 3
    early, late = far[:third], far[-third:]

    def stat(curve: np.ndarray, other: np.ndarray | None = None) -> np.ndarray:
        # along the last axis: a curve gives a number, a stack of batch curves one per batch
        return curve[..., far].mean(-1) - (other[..., far].mean(-1) if other is not None else 0.0)

    def se(values: np.ndarray) -> float:
        return float(values.std(ddof=1) / np.sqrt(len(values)))

    def decay(curve: np.ndarray) -> np.ndarray:
        return curve[..., early].mean(-1) - curve[..., late].mean(-1)

    return {"excess": float(stat(est, train_est)), "excess_se": float(np.hypot(se(stat(batches)),
                                                                               se(stat(train_batches)))),
            "decay": float(decay(est)), "decay_se": se(decay(batches)),
            "train_decay": float(decay(train_est)), "train_decay_se": se(decay(train_batches))}


def run_seeds(make_model: Callable[[], nn.Module] | Sequence[Callable[[], nn.Module]],
               data: Sequences | Stream, configs: Sequence[TrainConfig], *, sample_seeds: Sequence[int],
               n_samples: int, sample_length: int, max_lag: int, threshold: float, seeds: Sequence[int] = (0,),
               device: DeviceLike = "cpu", checkpoint_dir: str | None = None, budget: Budget | None = None,
               head_tokens: int = 0, n_boot: int = 0, sample_sets: int = 1,
               progress: bool = False) -> list[dict[str, Any]]:
    """Train the ``seeds`` of every config as one family; one record per seed, as if it had trained alone.

    All runs (every config at every seed index) train in one
    :func:`seqmi.train.train_family` call, each exactly as alone (members of one width
    share a batched step where :mod:`seqmi.family` allows it), then each model is
    sampled and measured under its own seeds: a seed's record is the same whichever
    seeds trained beside it, but for its times (the family's wall time is split equally
    among the seeds).

    Parameters
    ----------
    make_model, data, configs
        As for :func:`seqmi.train.train_family`, one builder and one recipe per model;
        each config is trained once per seed index, every run a config of its own with one
        restart and the seed :func:`seed_config` gives it, all in one family.
    sample_seeds : sequence of int
        The sampler's seed of each config's model (run ``s`` samples under
        ``child_seed(seed, "seed", s)``).
    n_samples, sample_length : int
        Unconditionally generated sequences per trained model (rows are independent: pairs
        never cross rows).
    max_lag : int
        ``I(tau)`` is estimated for ``tau = 1..max_lag`` (Grassberger estimator).
    threshold : float
        Fits use the points with ``I > threshold``.
    seeds : sequence of int
        Training seed indices (:func:`seed_config`): the independently trained models of
        every config (their own weights and data order), the replicates of every claim
        about an architecture.
    device : str or torch.device
    checkpoint_dir : str, optional
        Training checkpoints (resumable).
    budget : seqmi.sweep.Budget, optional
        Inside a sweep, ``current_budget()``: training stops, checkpoint saved, once it
        leaves no more than its ``reserve_s`` (:func:`~seqmi.train.train_family`), and a
        family trained by then is not measured (:class:`~seqmi.sweep.OutOfTime`: the
        next run measures it from its checkpoint), so that the measurement fits the budget.
    head_tokens : int
        How many tokens of every model's first sample to keep (text passages).
    n_boot : int
        Bootstrap replicates over the sampled rows for the fits' intervals
        (:func:`~seqmi.fit.decay_fits`); 0: the regression intervals.
    sample_sets : int
        Independent sets of ``n_samples`` rows drawn from each trained model; the first is
        the one measured and fitted, and with more than one, ``mi_sets`` holds every set's
        curve: the spread of a statistic over the sets is its sampling error
        (:func:`set_gaps`).
    progress : bool
        Show the training progress bars.

    Returns
    -------
    list of dict
        One JSON-ready record per seed index, in order, as :func:`run_family` writes it
        for that seed alone (one entry in every model's ``seeds``; :func:`join_seeds`
        joins them).
    """
    if len(sample_seeds) != len(configs):
        raise ValueError(f"got {len(sample_seeds)} sample seeds for {len(configs)} configs")
    check_int_list("seeds", list(seeds), 0)
    check_int("sample_sets", sample_sets, 1)
    makers = [make_model] * len(configs) if callable(make_model) else list(make_model)
    runs = [(c, s) for c in range(len(configs)) for s in seeds]
    start = time.perf_counter()
    results = train_family([makers[c] for c, _ in runs], data, [seed_config(configs[c], s) for c, s in runs],
                           device=device, checkpoint_dir=checkpoint_dir, progress=progress, budget=budget)
    train_s = time.perf_counter() - start
    if budget is not None:
        budget.check_training()
    records = []
    for s in seeds:
        mine = [(c, results[i]) for i, (c, s2) in enumerate(runs) if s2 == s]
        models = [_seed_model(result, s, _measure(result, child_seed(sample_seeds[c], "seed", s), n_samples,
                                                  sample_length, max_lag, threshold, n_boot, sample_sets,
                                                  head_tokens), sample_length)
                  for c, result in mine]
        records.append({"train_s": train_s / len(seeds), "train_busy_s": sum(r.busy_s for _, r in mine),
                        "models": models})
    return records


def _seed_model(result: TrainResult, seed: int, measured: dict[str, Any], sample_length: int) -> dict[str, Any]:
    """A model's record in the record of its seed alone: the family fields of one seed."""
    return {**measured, "best_seed": 0, "seed_val_losses": [measured["val_loss"]], "seed_indices": [seed],
            "seeds": [measured], "params": sum(p.numel() for p in result.model.parameters()),
            "state_floats": result.model.history_state_size(sample_length),
            "device": result.device, "amp": result.amp, "tokens_per_s": float(result.tokens_per_s)}


def run_family(make_model: Callable[[], nn.Module] | Sequence[Callable[[], nn.Module]],
               data: Sequences | Stream, configs: Sequence[TrainConfig], *, seeds: Sequence[int] = (0,),
               **measure: Any) -> dict[str, Any]:
    """Train the ``seeds`` of every config, sample from each model, estimate and fit the two-point MI of the samples.

    The records of :func:`run_seeds` joined by :func:`join_seeds`: ``models``, one record per
    config, with ``seeds`` (one record per trained model: ``mi``, fits, ``mi_sets`` with
    ``sample_sets > 1``, validation loss and its history, epochs, why it stopped,
    ``converged`` by :func:`seqmi.convergence.converged`, sampling time, ``head``) and, for
    the paper's reading (the best of its restarts on validation), the fields of the seed
    with the lowest validation loss, its position ``best_seed``, every seed's validation
    loss (``seed_val_losses``), the ``seed_indices``, parameter count, history state size,
    training throughput, device and bf16 autocast; ``train_s``, the family's training wall
    time in this call (near 0 when its checkpoint holds the finished training), and
    ``train_busy_s``, its training compute over every run that trained it.

    Parameters
    ----------
    make_model, data, configs, seeds
        As for :func:`run_seeds`.
    **measure
        The other keyword arguments of :func:`run_seeds` (``sample_seeds``, ``n_samples``,
        ``sample_length``, ``max_lag``, ``threshold``, ...).
    """
    return join_seeds(list(zip(seeds, run_seeds(make_model, data, configs, seeds=seeds, **measure))))


def seed_config(config: TrainConfig, seed: int) -> TrainConfig:
    """Independent model ``seed`` of a recipe: one restart under ``child_seed(config.seed, "seed", seed)``."""
    check_int("seed", seed, 0)
    return replace(config, seed=child_seed(config.seed, "seed", seed), restarts=1)


def _measure(result: TrainResult, sample_seed: int, n_samples: int, sample_length: int, max_lag: int,
             threshold: float, n_boot: int, sample_sets: int, head_tokens: int) -> dict[str, Any]:
    """One trained model's record (see :func:`run_family`), the first ``head_tokens`` of its first sample included."""
    model = result.model
    start = time.perf_counter()
    samples = model.sample(n_samples, sample_length, seed=sample_seed)
    sample_s = time.perf_counter() - start
    if n_boot:
        mi, replicates = two_point_mi_bootstrap(samples, max_lag, n_boot, min(BOOTSTRAP_BLOCKS, n_samples),
                                                seed=child_seed(sample_seed, "bootstrap"))
    else:
        mi, replicates = two_point_mi(samples, max_lag), None
    # the first set keeps the sampler's seed, so its numbers do not depend on sample_sets
    more = [two_point_mi(model.sample(n_samples, sample_length, seed=child_seed(sample_seed, "set", k)), max_lag)
            for k in range(1, sample_sets)]
    history = [float(v) for v in result.eval_metric]
    record = {
        "mi": mi.tolist(), **asdict(decay_fits(mi, threshold, replicates)),
        **({"mi_sets": [mi.tolist()] + [m.tolist() for m in more]} if sample_sets > 1 else {}),
        "val_loss": result.best_val_loss, "val_history": history, "epochs": result.epochs[0],
        "stopped": result.stop_reasons[0], "converged": converged(history, result.stop_reasons[0]),
        "sample_s": sample_s, "head": samples[0, :head_tokens].tolist(),
    }
    return record


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


def _warmup(rows: int, batch: int, epochs: int) -> int:
    # a short linear warmup (a tenth of the run, at most 100 steps) steadies Adam's first steps
    return min(100, rows // batch * epochs // 10)


def _windows(ids: np.ndarray, window: int) -> np.ndarray:
    """``ids`` cut into rows of ``window`` tokens (the remainder dropped)."""
    return ids[: len(ids) // window * window].reshape(-1, window)


def _stream_valid(split: Any) -> Any:
    # a quarter of the validation split (at least 4,000 tokens) keeps the streams'
    # validation pass short
    return split[: max(len(split) // 4, 4000)]


# ---------------------------------------------------------------- binary sequences


@dataclass(frozen=True)
class BinarySettings:
    """What every point of the binary sweep shares (Shen 2019 Sec. 4.2.1, App. E).

    Attributes
    ----------
    n_train, n_valid : int
        Training and validation sequences.
    length : int
        Symbols per sequence; the MI is measured for ``tau = 1..length - 1``.
    mi_amplitude, mi_exponent : float
        The data's ``I(tau) = A tau^-gamma`` (:func:`seqmi.data.binary.binary_power_law`).
    n_generate : int
        Sequences generated per trained model.
    threshold : float
        Fits use the points with ``I(tau)`` above this.
    max_epochs, patience : int
        Stop rule of every model (:class:`~seqmi.train.TrainConfig`).
    transformer_epochs : int
        Epoch limit of the Transformers, in place of ``max_epochs``: the length of their
        cosine schedule, which runs to its end unless patience stops it first.
    rnn_lr, lstm_lr, transformer_lr : float
        Peak learning rates: RMSprop for the recurrent models, Adam with cosine
        annealing for the Transformers.
    seed : int
        The chapter's seed.
    device : str or torch.device
        Resolved where a point is computed (``"auto"``: the worker's GPU if it has one);
        not part of the cache keys (each model's record says where it ran).
    """

    n_train: int
    n_valid: int
    length: int
    mi_amplitude: float
    mi_exponent: float
    n_generate: int
    threshold: float
    max_epochs: int
    patience: int
    transformer_epochs: int
    rnn_lr: float
    lstm_lr: float
    transformer_lr: float
    seed: int
    device: DeviceLike = unkeyed("cpu")

    def __post_init__(self) -> None:
        check_int("n_train", self.n_train, 10)
        check_int("n_valid", self.n_valid, 10)
        check_int("length", self.length, 16)
        # a binary symbol carries at most ln 2 nats
        check_float("mi_amplitude", self.mi_amplitude, 0.0, float(np.log(2)), low_open=True, high_open=True)
        check_float("mi_exponent", self.mi_exponent, 0.0, low_open=True)
        check_int("n_generate", self.n_generate, 2)
        check_float("threshold", self.threshold, 0.0, low_open=True)
        check_int("max_epochs", self.max_epochs, 1)
        check_int("patience", self.patience, 1)
        check_int("transformer_epochs", self.transformer_epochs, 1)
        for name in ("rnn_lr", "lstm_lr", "transformer_lr"):
            check_float(name, getattr(self, name), 0.0, 1.0, low_open=True)
        check_int("seed", self.seed, 0)
        check_device(self.device)


@lru_cache(maxsize=2)
def _binary_rows(n: int, length: int, amplitude: float, exponent: float, seed: int) -> np.ndarray:
    return binary_power_law(n, length, amplitude, exponent, seed).astype(np.int64)


def binary_data(settings: BinarySettings) -> Sequences:
    """The training and validation sequences of the binary sweep (cached per process)."""
    rows = _binary_rows(settings.n_train + settings.n_valid, settings.length, settings.mi_amplitude,
                        settings.mi_exponent, child_seed(settings.seed, "binary-data"))
    return Sequences(rows[: settings.n_train], rows[settings.n_train:])


def binary_model(kind: str, width: int, depth: int, settings: BinarySettings) -> nn.Module:
    """A fresh binary model: an RNN or LSTM over a 2-dimensional embedding, or a Transformer."""
    if kind == "transformer":
        return TransformerLM(2, width, depth, heads=BINARY_HEADS, max_len=settings.length + 1)
    return RNNLM(2, width, depth, cell=kind, embed_dim=2)


def binary_config(kind: str, width: int, depth: int, settings: BinarySettings) -> TrainConfig:
    """The paper's recipe for a binary model (App. E), seeded per model."""
    seed = child_seed(settings.seed, "binary-train", kind, width, depth)
    stop = {"batch_size": 50, "max_epochs": settings.max_epochs, "patience": settings.patience,
            "restarts": 1, "seed": seed}
    if kind == "transformer":
        return TrainConfig(optimizer="adam", lr=settings.transformer_lr, clip=5.0, schedule="cosine",
                           min_lr_ratio=1 / 32, **{**stop, "max_epochs": settings.transformer_epochs})
    return TrainConfig(optimizer="rmsprop", lr=settings.rnn_lr if kind == "rnn" else settings.lstm_lr, clip=0.25,
                       **stop)


def family_of(point: SeedFamily) -> Family:
    """The family of a seed point, ``(kind, widths, depth)``: the seeds that can train together."""
    return point[:3]


def binary_points(points: Sequence[SeedFamily], checkpoint_dir: str | None,
                  settings: BinarySettings) -> list[dict[str, Any]]:
    """Train, sample and measure seeds of one family of the binary sweep, as one family.

    Parameters
    ----------
    points : sequence of (kind, widths, depth, seed)
        Seed points of one family (``kind`` in ``BINARY_KINDS``; ``seed`` the training seed
        index, :func:`seed_config`), e.g. the tuples :func:`seqmi.sweep.run_sweep` passes
        with ``group=family_of``. Their models train in one
        :func:`seqmi.train.train_family` call: on the CPU the vanilla RNNs of one width
        share one batched step (:class:`seqmi.family.RecurrentFamily`), several times
        cheaper per model, and every seed's record is bit for bit the one it has alone.
    checkpoint_dir : str or None
        The family's training checkpoints; a family stopped by the sweep's budget resumes
        from them.
    settings : BinarySettings

    Returns
    -------
    list of dict
        :func:`run_seeds`'s record of each point, in order: one model per width,
        ``n_generate`` sequences each (:func:`merge_seeds` joins a family's seeds).
    """
    for point in points:
        _check_family(point, BINARY_KINDS)
    if len({family_of(point) for point in points}) != 1:
        raise ValueError(f"points trained together must be seeds of one family, got {list(points)!r}")
    kind, widths, depth, _ = points[0]
    return run_seeds(
        [partial(binary_model, kind, w, depth, settings) for w in widths], binary_data(settings),
        [binary_config(kind, w, depth, settings) for w in widths],
        sample_seeds=[child_seed(settings.seed, "binary-sample", kind, w, depth) for w in widths],
        n_samples=settings.n_generate, sample_length=settings.length, max_lag=settings.length - 1,
        threshold=settings.threshold, seeds=[point[3] for point in points], device=settings.device,
        checkpoint_dir=checkpoint_dir, budget=current_budget(), n_boot=BINARY_BOOTSTRAP)


# ---------------------------------------------------------------- text


@dataclass(frozen=True)
class TextSettings:
    """What the character and word sweeps share: the training text and the measurement.

    Attributes
    ----------
    train_chars : int
        Characters of the training split used for training (0: all).
    generate : int
        Characters generated per model, in independent rows of ``row`` characters.
    sample_sets : int
        Independent sets of ``generate`` characters per model, the sampling replicates of
        every text comparison (:func:`set_gaps`).
    row : int
    max_lag : int
        Largest ``tau`` of the character-level MI.
    patience : int
        Early-stopping patience in epochs.
    seed : int
        The chapter's seed.
    device : str or torch.device
        Resolved where a point is computed (``"auto"``: the worker's GPU if it has one);
        not part of the cache keys (each model's record says where it ran).
    """

    train_chars: int
    generate: int
    sample_sets: int
    row: int
    max_lag: int
    patience: int
    seed: int
    device: DeviceLike = unkeyed("cpu")

    def __post_init__(self) -> None:
        check_int("train_chars", self.train_chars, 0)
        check_int("row", self.row, 32)
        check_int("max_lag", self.max_lag, 1, self.row - 1)
        check_int("generate", self.generate, self.row)
        check_int("sample_sets", self.sample_sets, 2)
        check_int("patience", self.patience, 1)
        check_int("seed", self.seed, 0)
        check_device(self.device)


@dataclass(frozen=True)
class CharSettings:
    """What every point of the character-level sweep shares (App. E.1.2, E.2.2).

    Attributes
    ----------
    text : TextSettings
    window : int
        Context of the Transformers, in characters.
    epochs : int
        Epoch limit.
    lstm_batch, transformer_batch : int
        Tracks of the LSTMs' truncated BPTT, windows per batch of the Transformers.
    transformer_lr : float
        Adam peak learning rate of the Transformers (the LSTMs use RMSprop at 5e-3).
    """

    text: TextSettings
    window: int
    epochs: int
    lstm_batch: int
    transformer_batch: int
    transformer_lr: float

    def __post_init__(self) -> None:
        check_type("text", self.text, TextSettings)
        check_int("window", self.window, 16)
        check_int("epochs", self.epochs, 1)
        check_int("lstm_batch", self.lstm_batch, 1)
        check_int("transformer_batch", self.transformer_batch, 1)
        check_float("transformer_lr", self.transformer_lr, 0.0, 1.0, low_open=True)


@dataclass(frozen=True)
class WordSettings:
    """What every point of the word-level sweep shares (Sec. 5.2, App. E.1.2, E.2.2).

    Attributes
    ----------
    text : TextSettings
    min_count : int
        Training tokens seen fewer times become ``<unk>``.
    window : int
        Context of the Transformers, in tokens.
    epochs : int
        Epoch limit.
    lstm_batch : int
        Tracks of the LSTMs' truncated BPTT (50 tokens).
    lstm_lr : float
        SGD learning rate of the LSTMs, divided by 4 on each validation plateau.
    dropout : float
        LSTM dropout after the embedding and between layers.
    transformer_batch : int
        Windows per batch of the Transformers.
    transformer_lr : float
        Adam peak learning rate of the Transformers.
    """

    text: TextSettings
    min_count: int
    window: int
    epochs: int
    lstm_batch: int
    lstm_lr: float
    dropout: float
    transformer_batch: int
    transformer_lr: float

    def __post_init__(self) -> None:
        check_type("text", self.text, TextSettings)
        check_int("min_count", self.min_count, 1)
        check_int("window", self.window, 16)
        check_int("epochs", self.epochs, 1)
        check_int("lstm_batch", self.lstm_batch, 1)
        check_float("lstm_lr", self.lstm_lr, 0.0, 100.0, low_open=True)
        check_float("dropout", self.dropout, 0.0, 1.0, high_open=True)
        check_int("transformer_batch", self.transformer_batch, 1)
        check_float("transformer_lr", self.transformer_lr, 0.0, 1.0, low_open=True)


@dataclass(frozen=True)
class CharCorpus:
    """The KJV at character level, split contiguously (training: Genesis to Acts).

    Attributes
    ----------
    vocab : CharVocab
        Every character of the whole corpus.
    split : Splits
        :func:`~seqmi.data.text.split_contiguous` of the chapters.
    train_text : str
        The training characters used (the first ``train_chars``, or all).
    train, valid : ndarray of int64
        ``train_text`` and the whole validation split, encoded.
    """

    vocab: CharVocab
    split: Splits
    train_text: str
    train: np.ndarray
    valid: np.ndarray


@lru_cache(maxsize=2)
def char_corpus(train_chars: int) -> CharCorpus:
    """The character-level corpus of the text sweeps (cached per process).

    Parameters
    ----------
    train_chars : int
        Characters of the training split to keep (0: all).
    """
    docs = kjv_documents()
    vocab = CharVocab(join(docs))
    split = split_contiguous(docs)
    train_text = split.train[:train_chars] if train_chars else split.train
    return CharCorpus(vocab, split, train_text, vocab.encode(train_text), vocab.encode(split.valid))


@dataclass(frozen=True)
class WordCorpus:
    """The training text of :func:`char_corpus` as the word models see it.

    Attributes
    ----------
    words : WordVocab
        Tokens of the training text seen at least ``min_count`` times, and ``<unk>``.
    chars : CharVocab
        The alphabet of the samples: the corpus's characters and those of ``<unk>``.
    train, valid : ndarray of int64
        Token ids of the training text and of the first quarter of the validation split.
    """

    words: WordVocab
    chars: CharVocab
    train: np.ndarray
    valid: np.ndarray


@lru_cache(maxsize=2)
def word_corpus(train_chars: int, min_count: int) -> WordCorpus:
    """The word-level corpus of the word sweep (cached per process)."""
    corpus = char_corpus(train_chars)
    words = WordVocab(corpus.train_text, min_count)
    chars = CharVocab("".join(corpus.vocab.chars) + UNK)
    return WordCorpus(words, chars, words.encode(corpus.train_text),
                      words.encode(_stream_valid(corpus.split.valid)))


def char_data(kind: str, settings: CharSettings) -> Sequences | Stream:
    """LSTMs: the training text as one stream (BPTT 100, reset 0.01); Transformers: its windows."""
    corpus = char_corpus(settings.text.train_chars)
    if kind == "lstm":
        return Stream(corpus.train, _stream_valid(corpus.valid), bptt=100, reset_prob=0.01)
    return Sequences(_windows(corpus.train, settings.window), _windows(corpus.valid, settings.window)[:200])


def char_model(kind: str, width: int, depth: int, settings: CharSettings) -> nn.Module:
    """A fresh character model: an LSTM (embedding of size ``min(200, width)``) or a Transformer."""
    vocab_size = len(char_corpus(settings.text.train_chars).vocab)
    if kind == "lstm":
        return RNNLM(vocab_size, width, depth, cell="lstm", embed_dim=min(200, width))
    return TransformerLM(vocab_size, width, depth, heads=TEXT_HEADS, max_len=settings.window)


def char_config(kind: str, width: int, depth: int, settings: CharSettings) -> TrainConfig:
    """The recipe of a character model (App. E.1.2, E.2.2), seeded per model."""
    text = settings.text
    seed = child_seed(text.seed, "char-train", kind, width, depth)
    stop = {"max_epochs": settings.epochs, "patience": text.patience, "restarts": 1, "seed": seed}
    if kind == "lstm":
        return TrainConfig(optimizer="rmsprop", lr=5e-3, clip=0.25, batch_size=settings.lstm_batch, **stop)
    rows = len(char_corpus(text.train_chars).train) // settings.window
    return TrainConfig(optimizer="adam", lr=settings.transformer_lr, clip=5.0, batch_size=settings.transformer_batch,
                       schedule="cosine", warmup_steps=_warmup(rows, settings.transformer_batch, settings.epochs),
                       **stop)


def word_data(kind: str, settings: WordSettings) -> Sequences | Stream:
    """LSTMs: the token stream (BPTT 50, reset 0.01); Transformers: windows of ``window`` tokens."""
    corpus = word_corpus(settings.text.train_chars, settings.min_count)
    if kind == "word_lstm":
        return Stream(corpus.train, corpus.valid, bptt=50, reset_prob=0.01)
    return Sequences(_windows(corpus.train, settings.window), _windows(corpus.valid, settings.window)[:200])


def word_model(kind: str, width: int, depth: int, settings: WordSettings) -> nn.Module:
    """A fresh word model with tied weights, sampling characters (:class:`~seqmi.models.wordchar.CharLevelSampler`)."""
    corpus = word_corpus(settings.text.train_chars, settings.min_count)
    if kind == "word_lstm":
        inner = add_lstm_dropout(RNNLM(len(corpus.words), width, depth, cell="lstm", embed_dim=width,
                                       tie_weights=True), settings.dropout)
    else:
        inner = TransformerLM(len(corpus.words), width, depth, heads=TEXT_HEADS, max_len=settings.window,
                              tie_weights=True)
    return CharLevelSampler(inner, corpus.words, corpus.chars)


def word_config(kind: str, width: int, depth: int, settings: WordSettings) -> TrainConfig:
    """The recipe of a word model (App. E.1.2: the PyTorch example's SGD; E.2.2), seeded per model."""
    text = settings.text
    seed = child_seed(text.seed, "word-train", kind, width, depth)
    stop = {"max_epochs": settings.epochs, "patience": text.patience, "restarts": 1, "seed": seed}
    if kind == "word_lstm":
        return TrainConfig(optimizer="sgd", lr=settings.lstm_lr, clip=0.25, batch_size=settings.lstm_batch,
                           schedule="plateau", plateau_factor=4.0, **stop)
    rows = len(word_corpus(text.train_chars, settings.min_count).train) // settings.window
    return TrainConfig(optimizer="adam", lr=settings.transformer_lr, clip=5.0, batch_size=settings.transformer_batch,
                       schedule="cosine", warmup_steps=_warmup(rows, settings.transformer_batch, settings.epochs),
                       **stop)


def _text_family(point: SeedFamily, level: str, make: Callable[..., nn.Module], data: Sequences | Stream,
                 configure: Callable[..., TrainConfig], settings: CharSettings | WordSettings,
                 checkpoint_dir: str | None) -> dict[str, Any]:
    kind, widths, depth, seed = point
    text = settings.text
    return run_family(
        [partial(make, kind, w, depth, settings) for w in widths], data,
        [configure(kind, w, depth, settings) for w in widths],
        sample_seeds=[child_seed(text.seed, f"{level}-sample", kind, w, depth) for w in widths],
        n_samples=text.generate // text.row, sample_length=text.row, max_lag=text.max_lag,
        threshold=TEXT_THRESHOLD, seeds=(seed,), device=text.device, checkpoint_dir=checkpoint_dir,
        budget=current_budget(), head_tokens=HEAD_CHARS, sample_sets=text.sample_sets)


def char_point(point: SeedFamily, checkpoint_dir: str | None, settings: CharSettings) -> dict[str, Any]:
    """Train, sample and measure one seed of one family of the character-level sweep.

    Parameters
    ----------
    point : (kind, widths, depth, seed)
        ``kind`` in ``CHAR_KINDS``; ``seed`` the training seed index.
    checkpoint_dir : str or None
        The family's training checkpoints.
    settings : CharSettings

    Returns
    -------
    dict
        :func:`run_family`'s record: per width, the character-level ``I(tau)`` of
        ``generate`` characters and the first ``HEAD_CHARS`` of them.
    """
    _check_family(point, CHAR_KINDS)
    return _text_family(point, "char", char_model, char_data(point[0], settings), char_config, settings,
                        checkpoint_dir)


def word_point(point: SeedFamily, checkpoint_dir: str | None, settings: WordSettings) -> dict[str, Any]:
    """Train, sample and measure one seed of one family of the word-level sweep, at character level.

    Parameters
    ----------
    point : (kind, widths, depth, seed)
        ``kind`` in ``WORD_KINDS``; ``seed`` the training seed index.
    checkpoint_dir : str or None
        The family's training checkpoints.
    settings : WordSettings

    Returns
    -------
    dict
        As :func:`char_point`; ``val_loss`` is per word.
    """
    _check_family(point, WORD_KINDS)
    return _text_family(point, "word", word_model, word_data(point[0], settings), word_config, settings,
                        checkpoint_dir)
