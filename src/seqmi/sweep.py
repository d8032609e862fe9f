"""Sweeps of trained models: train, sample, measure I(tau), fit; cached per point.

A paper-scale sweep (dozens of models, each trained ``restarts`` times) takes longer
than one papermill run may. Each sweep point is therefore cached as JSON under a
``cache_dir`` and its training checkpointed (:func:`seqmi.train.train` resumes
exactly), and a :class:`Budget` stops the run cleanly when its time is spent: running
the same chapter again continues where the last run stopped, and the last run, with
no point pending, has the whole sweep.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from seqmi.fit import fit_correlation_length, fit_power_law
from seqmi.info import two_point_mi
from seqmi.train import Sequences, Stream, TrainConfig, train


class OutOfTime(Exception):
    """Raised by :meth:`Budget.check` once the budget is spent."""


class Budget:
    """A wall-clock budget in seconds; ``seconds <= 0`` means unlimited."""

    def __init__(self, seconds: float) -> None:
        self.seconds = float(seconds)
        self.start = time.perf_counter()

    def spent(self) -> bool:
        """Whether the budget is used up."""
        return self.seconds > 0 and time.perf_counter() - self.start >= self.seconds

    def check(self, *_: Any) -> None:
        """Raise :class:`OutOfTime` if the budget is spent (usable as an epoch callback)."""
        if self.spent():
            raise OutOfTime


def decay_fits(mi: np.ndarray, threshold: float) -> dict[str, Any]:
    """Exponential and power-law fits of ``I(tau)``, ``tau = 1..len(mi)``, above ``threshold``.

    Returns the correlation length ``xi`` and exponent ``gamma`` with 95% intervals, and
    the residual sums of squares of both fits of ``ln I`` on the same points
    (``exp_rss < pow_rss``: the decay looks exponential rather than algebraic). NaN
    everywhere when fewer than 3 points exceed the threshold.
    """
    lags = np.arange(1, len(mi) + 1)
    keep = np.isfinite(mi) & (mi > threshold)
    out: dict[str, Any] = {"n_fit_points": int(keep.sum())}
    if keep.sum() < 3:
        nan = float("nan")
        return {**out, "xi": nan, "xi_ci": [nan, nan], "gamma": nan, "gamma_ci": [nan, nan],
                "exp_rss": nan, "pow_rss": nan}
    xi = fit_correlation_length(lags, mi, threshold)
    pl = fit_power_law(lags, mi, threshold)
    t, y = lags[keep].astype(float), np.log(mi[keep])

    def rss(x: np.ndarray) -> float:
        return float(np.polyfit(x, y, 1, full=True)[1].sum())

    return {**out, "xi": xi.xi, "xi_ci": list(xi.ci), "gamma": pl.exponent, "gamma_ci": list(pl.ci),
            "exp_rss": rss(t), "pow_rss": rss(np.log(t))}


def run_point(make_model: Callable[[], nn.Module], data: Sequences | Stream, config: TrainConfig, *,
              n_samples: int, sample_length: int, max_lag: int, threshold: float, device: torch.device,
              seed: int, checkpoint_dir: str | os.PathLike | None = None, budget: Budget | None = None,
              head_tokens: int = 0, progress: bool = False) -> dict[str, Any]:
    """Train a model, sample from it, estimate and fit the two-point MI of the samples.

    Parameters
    ----------
    make_model, data, config
        Passed to :func:`seqmi.train.train`.
    n_samples, sample_length : int
        Unconditionally generated sequences (rows are independent: pairs never cross rows).
    max_lag : int
        ``I(tau)`` is estimated for ``tau = 1..max_lag`` (Grassberger estimator).
    threshold : float
        Fits use the points with ``I > threshold``.
    device : torch.device
    seed : int
        Seed of the sampler.
    checkpoint_dir : path, optional
        Training checkpoints (resumable).
    budget : Budget, optional
        Checked after every epoch; :class:`OutOfTime` propagates with the checkpoint saved.
    head_tokens : int
        How many tokens of the first sample to keep in the record (text passages).

    Returns
    -------
    dict
        JSON-ready: ``mi``, fits (:func:`decay_fits`), validation loss, epochs, restart
        losses, parameter count, history state size, training throughput, wall times,
        device, and ``head`` (the first ``head_tokens`` sampled tokens).
    """
    t0 = time.perf_counter()
    result = train(make_model, data, config, device=device, checkpoint_dir=checkpoint_dir,
                   progress=progress, on_epoch_end=budget.check if budget is not None else None)
    train_s = time.perf_counter() - t0
    model = result.model
    t1 = time.perf_counter()
    samples = model.sample(n_samples, sample_length, seed=seed)
    sample_s = time.perf_counter() - t1
    mi = two_point_mi(samples, max_lag)
    return {
        "mi": mi.tolist(), **decay_fits(mi, threshold),
        "val_loss": result.best_val_loss, "restart_val_losses": result.restart_val_losses,
        "epochs": result.epochs, "params": sum(p.numel() for p in model.parameters()),
        "state_floats": model.history_state_size(sample_length),
        "tokens_per_s": result.tokens_per_s, "train_s": train_s, "sample_s": sample_s,
        "device": result.device, "amp": result.amp, "head": samples[0, :head_tokens].tolist(),
    }


def point_key(name: str, spec: dict[str, Any]) -> str:
    """Cache key of a sweep point: ``name`` plus a hash of everything that defines it.

    Any change of ``spec`` (data size, training config, sampling settings) gives a new
    key, so a cache never returns a point computed under other settings.
    """
    digest = hashlib.sha1(json.dumps(spec, sort_keys=True, default=str).encode()).hexdigest()[:10]
    return f"{name}_{digest}"


def cached_point(cache_dir: str | os.PathLike | None, key: str,
                 compute: Callable[[str | None], dict[str, Any]]) -> dict[str, Any]:
    """The record of sweep point ``key``: read from ``cache_dir/key.json`` or computed and saved.

    ``compute`` receives the point's checkpoint folder (``None`` without a cache).
    """
    if not cache_dir:
        return compute(None)
    path = Path(cache_dir) / f"{key}.json"
    if path.is_file():
        return json.loads(path.read_text())
    record = compute(str(Path(cache_dir) / key))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record) + "\n")
    return record
