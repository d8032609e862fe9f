"""What a training run is set up with and what it returns: hyper-parameters, schedules, optimizers.

A :class:`~seqmi.train.config.TrainConfig` per model (optimizer, learning-rate schedule,
gradient clipping, stop rule) and the :class:`~seqmi.train.config.TrainResult` every
training function of the package returns; :func:`~seqmi.train.config.lr_factor` is the
schedule and :func:`~seqmi.train.config.make_optimizer` the optimizer a config names.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from seqmi.validate import check_choice, check_float, check_int

#: The optimizers a :class:`~seqmi.train.config.TrainConfig` can name.
OPTIMIZERS = ("rmsprop", "adam", "adamw", "sgd")
#: The learning-rate schedules a :class:`~seqmi.train.config.TrainConfig` can name.
SCHEDULES = ("constant", "cosine", "plateau")


@dataclass(frozen=True)
class TrainConfig:
    """Hyper-parameters and stop rule of one model (defaults: the paper's binary-sequence LSTM).

    Attributes
    ----------
    optimizer : {"rmsprop", "adam", "adamw", "sgd"}
        ``"sgd"``: plain SGD, no momentum (the PyTorch word-language-model example).
    lr : float
        Peak learning rate.
    weight_decay : float
        Decoupled weight decay (AdamW only).
    clip : float or None
        Maximum gradient norm; ``None``: no clipping.
    batch_size : int
    max_epochs : int
    patience : int or None
        Evaluations (epochs, unless ``eval_every``) without improvement before stopping;
        ``None``: never stop early.
    restarts : int
        Independent runs; the best validation model is kept (:func:`seqmi.train.families.train`).
    schedule : {"constant", "cosine", "plateau"}
        ``"plateau"``: constant, divided by ``plateau_factor`` after every evaluation
        that is not a new best (the PyTorch word-language-model example).
    warmup_steps : int
        Linear warmup steps (every schedule).
    min_lr_ratio : float
        Final learning rate of the cosine schedule, relative to ``lr``.
    plateau_factor : float
        Divisor of the learning rate at each cut of the plateau schedule.
    amp : bool or None
        bf16 autocast; ``None``: on CUDA for ``model.amp_safe`` models only.
    seed : int
        Parent of the seeds of restart ``r``: its weights (:func:`seqmi.train.families.init_seed`)
        and its data order (:func:`seqmi.train.families.order_rng`), named children
        (:func:`seqmi.rng.child_seed`).
    eval_every : int
        Evaluate every ``eval_every`` optimizer steps; 0: after every epoch.
    target : float or None
        Stop as soon as an evaluation reaches this value (at or below it for a metric
        that is minimised, at or above it for one that is maximised).
    time_budget_s : float
        Stop after this many seconds of :func:`seqmi.train.loop.fit` (0: no limit). A run
        stopped by it depends on the machine's speed.
    """

    optimizer: str = "rmsprop"
    lr: float = 0.005
    weight_decay: float = 0.0
    clip: float | None = 0.25
    batch_size: int = 50
    max_epochs: int = 200
    patience: int | None = 5
    restarts: int = 5
    schedule: str = "constant"
    warmup_steps: int = 0
    min_lr_ratio: float = 1 / 32
    plateau_factor: float = 4.0
    amp: bool | None = None
    seed: int = 0
    eval_every: int = 0
    target: float | None = None
    time_budget_s: float = 0.0

    def __post_init__(self) -> None:
        check_choice("optimizer", self.optimizer, OPTIMIZERS)
        check_choice("schedule", self.schedule, SCHEDULES)
        check_float("lr", self.lr, 0.0, low_open=True)
        check_float("weight_decay", self.weight_decay, 0.0)
        if self.clip is not None:
            check_float("clip", self.clip, 0.0, low_open=True)
        check_int("batch_size", self.batch_size, 1)
        check_int("max_epochs", self.max_epochs, 1)
        if self.patience is not None:
            check_int("patience", self.patience, 1)
        check_int("restarts", self.restarts, 1)
        check_int("warmup_steps", self.warmup_steps, 0)
        check_float("min_lr_ratio", self.min_lr_ratio, 0.0, 1.0)
        check_float("plateau_factor", self.plateau_factor, 1.0)
        check_int("seed", self.seed, 0)
        check_int("eval_every", self.eval_every, 0)
        if self.target is not None:
            check_float("target", self.target)
        check_float("time_budget_s", self.time_budget_s, 0.0)


@dataclass
class TrainResult:
    """What the training functions of the package return.

    Attributes
    ----------
    model : nn.Module
        The trained model (in eval mode): for :func:`seqmi.train.families.train`, the best
        validation weights over all restarts.
    best_val_loss : float
        Best value of the evaluation metric of the kept run (for
        :func:`seqmi.train.families.train`, its validation loss in nats/token); NaN without
        an evaluation hook.
    best_restart : int
    restart_val_losses : list of float
        Best metric of every restart.
    epochs : list of int
        Epochs run by every restart (the last one may be partial).
    stop_reasons : list of str or None
        Why every restart stopped (``Member.stopped``: ``"epochs"``, ``"patience"``,
        ``"target"``); ``None`` where its checkpoint predates the field.
    tokens_per_s : float
        Training throughput: tokens (or other loss weights) through forward+backward per
        second of training, the time of a step shared by the models trained together in it
        counted in equal parts.
    wall_s : float
        Wall time of this call (a resumed run counts only its own part).
    device : str
    amp : bool
    history : list of dict
        One record per restart and epoch (the lines of the JSONL log).
    step_losses : ndarray
        Training loss of every optimizer step of the kept run.
    seconds_per_step : float
        Training time per step of the kept run (evaluations excluded; a shared step
        counted in equal parts).
    eval_steps : ndarray of int
        Step counts at the evaluations of the kept run.
    eval_metric : ndarray
        The evaluation metric at those steps.
    steps_to_target : int or None
        The step at which the kept run's metric reached ``TrainConfig.target``.
    final_metric : float
        The metric of the returned weights (NaN when unknown).
    busy_s : float
        Training compute of every restart, in seconds, summed over the runs that resumed
        from a checkpoint (a family's shared steps split among its members): unlike
        ``wall_s``, what the training cost even when it is read back finished.
    """

    model: nn.Module
    best_val_loss: float
    best_restart: int
    restart_val_losses: list[float]
    epochs: list[int]
    tokens_per_s: float
    wall_s: float
    device: str
    amp: bool
    stop_reasons: list[str | None] = field(default_factory=list)
    history: list[dict[str, Any]] = field(default_factory=list)
    step_losses: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    seconds_per_step: float = float("nan")
    eval_steps: NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    eval_metric: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    steps_to_target: int | None = None
    final_metric: float = float("nan")
    busy_s: float = float("nan")

    @property
    def epoch_losses(self) -> list[float]:
        """Mean training loss of every epoch of the kept run."""
        return [h["train_loss"] for h in self.history if h.get("restart", 0) == self.best_restart]


def lr_factor(step: int, total_steps: int, config: TrainConfig) -> float:
    """Learning-rate multiplier at optimizer step ``step`` (0-based) of ``total_steps``."""
    if step < config.warmup_steps:
        return (step + 1) / config.warmup_steps
    if config.schedule in ("constant", "plateau"):
        return 1.0
    span = max(1, total_steps - config.warmup_steps)
    progress = min(1.0, (step - config.warmup_steps) / span)
    return config.min_lr_ratio + (1 - config.min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * progress))


def make_optimizer(model: nn.Module, config: TrainConfig) -> torch.optim.Optimizer:
    """The optimizer ``config.optimizer`` names, over ``model``'s parameters, at the peak rate ``config.lr``."""
    params = model.parameters()
    if config.optimizer == "rmsprop":
        # Keras' RMSprop: rho 0.9, epsilon 1e-7 (the paper trains RNNs in Keras)
        return torch.optim.RMSprop(params, lr=config.lr, alpha=0.9, eps=1e-7)
    if config.optimizer == "adam":
        return torch.optim.Adam(params, lr=config.lr, betas=(0.9, 0.999))
    if config.optimizer == "sgd":
        return torch.optim.SGD(params, lr=config.lr)
    return torch.optim.AdamW(params, lr=config.lr, betas=(0.9, 0.999), weight_decay=config.weight_decay)
