"""Training the seeds of a family together, then sampling each model and measuring its ``I(tau)``."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, replace
from typing import Any

from torch import nn

from seqmi.convergence import converged
from seqmi.device import DeviceLike
from seqmi.experiments.ch03_rnn_transformer_mi._families import join_seeds
from seqmi.fit import decay_fits
from seqmi.info import two_point_mi, two_point_mi_bootstrap
from seqmi.rng import child_seed
from seqmi.sweep import Budget
from seqmi.train import Sequences, Stream, TrainConfig, TrainResult, train_family
from seqmi.validate import check_int, check_int_list

BOOTSTRAP_BLOCKS = 100  # groups of rows the bootstrap resamples (one row per group below that)


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
