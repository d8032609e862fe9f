"""The package's one training loop, and the language-model recipe every chapter reuses.

:func:`fit` is the only place where the package takes a gradient step. A training run
is a configuration of it:

- a :class:`Task`: the batch source (:class:`Batches`, one epoch at a time, drawn from
  each member's own generator), the loss function, an optional evaluation hook (a
  validation loss, a held-out accuracy) and the direction in which that metric improves;
- a :class:`TrainConfig` per model: optimizer, learning-rate schedule, gradient
  clipping, and the stop rule (``max_epochs``, ``patience`` evaluations without
  improvement, a ``target`` value of the metric, a ``time_budget_s``);
- the models (:class:`Member`), trained in lockstep, each with its own optimizer,
  schedule and data order; a member that stops is frozen while the others go on.

:func:`train` and :func:`train_family` fit autoregressive models
(:mod:`seqmi.models.lm`) by maximum likelihood. :func:`train_family` takes several
configs (seeds, learning rates, restarts) and trains the runs of one architecture
together, as one family (:mod:`seqmi.family`): each ends with the weights it would have
had alone. The recipe is that of Shen 2019, App. E:

- optimizer RMSprop (RNNs) or Adam/AdamW (Transformers), gradient-norm clipping;
- learning rate: linear warmup then cosine annealing down to ``min_lr_ratio`` times the
  peak (the paper's Transformers anneal to 1/32), or constant (the paper's RNNs);
- early stopping when the validation loss has not improved for ``patience`` epochs
  (paper: 5), and ``restarts`` independent runs (paper: 5) of which the one with the
  lowest validation loss is kept (the restarts train as one family);
- bf16 autocast on CUDA for the training losses of models that declare ``amp_safe``
  (Transformers), float32 otherwise; validation, and so the choice of the best restart
  and the stop rules, always in float32 (IEEE on CUDA too: :mod:`seqmi.device`);
- a checkpoint after every epoch holding everything the loop's future depends on
  (weights, optimizers, steps, data-order generators, best weights so far, finished
  runs), written atomically, so that an interrupted run resumed from it ends with
  bit-identical weights on the same machine;
- one JSON line per model and epoch in ``log_path``.

Two kinds of data:

- :class:`Sequences`: independent rows ``(n, L)``, shuffled every epoch, each read
  whole from the start token (no truncated BPTT: the paper's binary task, and the
  Transformer's text windows);
- :class:`Stream`: one long token stream cut into ``batch_size`` parallel contiguous
  tracks, read in windows of ``bptt`` tokens with the recurrent state carried across
  windows and reset to zero (all tracks) with probability ``reset_prob`` per batch (the paper's
  character-level LSTMs: BPTT 100, reset 0.01).
"""

from __future__ import annotations

import itertools
import json
import math
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from seqmi._optional import require

require("torch")  # first, so that a missing torch fails naming the extra that installs it

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn
from torch.nn import functional as F

from seqmi.device import DeviceLike, cuda_rng_state, resolve_device, restore_cuda_rng_state
from seqmi.family import family_for, family_key
from seqmi.progress import progress_bar
from seqmi.rng import child_seed
from seqmi.sweep import Budget, OutOfTime
from seqmi.validate import check_choice, check_float, check_int

OPTIMIZERS = ("rmsprop", "adam", "adamw", "sgd")
SCHEDULES = ("constant", "cosine", "plateau")
MODES = ("min", "max")
CHECKPOINT_FILE = "checkpoint.pt"
#: Seconds of training between the checkpoints written inside an epoch.
CHECKPOINT_EVERY_S = 60.0
_END = object()  # marks the end of an epoch's batches


def sequence_loss(model: nn.Module, seqs: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy (nats/token) of whole sequences read from the start token.

    Parameters
    ----------
    model : RNNLM or TransformerLM
    seqs : LongTensor, shape (batch, length)
        Token ids in ``[0, vocab_size)``.

    Returns
    -------
    Tensor
        Scalar loss.
    """
    bos = torch.full((seqs.shape[0], 1), model.bos, dtype=seqs.dtype, device=seqs.device)
    logits = model(torch.cat([bos, seqs[:, :-1]], dim=1))
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), seqs.reshape(-1))



@dataclass(frozen=True)
class Sequences:
    """Independent sequences, one per row, each modelled from the start token.

    Attributes
    ----------
    train, valid : ndarray of int, shape (n, L)
    """

    train: np.ndarray
    valid: np.ndarray


@dataclass(frozen=True)
class Stream:
    """One contiguous stream per split, trained with truncated BPTT (recurrent models only).

    Attributes
    ----------
    train, valid : ndarray of int, shape (n_tokens,)
    bptt : int
        Truncation length of backpropagation through time.
    reset_prob : float
        Probability that the carried state is zeroed at the start of a batch.
    """

    train: np.ndarray
    valid: np.ndarray
    bptt: int = 100
    reset_prob: float = 0.01


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
        Independent runs; the best validation model is kept (:func:`train`).
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
        Parent of the seeds of restart ``r``: its weights (:func:`init_seed`) and its data
        order (:func:`order_rng`), named children (:func:`seqmi.rng.child_seed`).
    eval_every : int
        Evaluate every ``eval_every`` optimizer steps; 0: after every epoch.
    target : float or None
        Stop as soon as an evaluation reaches this value (at or below it for a metric
        that is minimised, at or above it for one that is maximised).
    time_budget_s : float
        Stop after this many seconds of :func:`fit` (0: no limit). A run stopped by it
        depends on the machine's speed.
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
        The trained model (in eval mode): for :func:`train`, the best validation weights
        over all restarts.
    best_val_loss : float
        Best value of the evaluation metric of the kept run (for :func:`train`, its
        validation loss in nats/token); NaN without an evaluation hook.
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


def _make_optimizer(model: nn.Module, config: TrainConfig) -> torch.optim.Optimizer:
    params = model.parameters()
    if config.optimizer == "rmsprop":
        # Keras' RMSprop: rho 0.9, epsilon 1e-7 (the paper trains RNNs in Keras)
        return torch.optim.RMSprop(params, lr=config.lr, alpha=0.9, eps=1e-7)
    if config.optimizer == "adam":
        return torch.optim.Adam(params, lr=config.lr, betas=(0.9, 0.999))
    if config.optimizer == "sgd":
        return torch.optim.SGD(params, lr=config.lr)
    return torch.optim.AdamW(params, lr=config.lr, betas=(0.9, 0.999), weight_decay=config.weight_decay)


# ---------------------------------------------------------------------- the loop
@dataclass(frozen=True)
class Batches:
    """A batch source: how many steps an epoch has, and the batches of one epoch.

    Attributes
    ----------
    steps_per_epoch : int
        The epoch's length, or a bound on it if it varies (it sets the length of the
        learning-rate schedule: ``steps_per_epoch * max_epochs``).
    epoch : callable
        ``epoch(rng, step) -> iterable of batches`` for one member: ``rng`` is the
        member's own generator (its data order), ``step`` the number of optimizer steps
        it has taken so far. The epoch ends when the iterable does; it should draw from
        ``rng`` lazily, as batches are taken (one per step). Members trained together
        need epochs of equal length.
    replayable : bool
        Whether an epoch's batches depend on the generator and ``step`` only, not on the
        model being trained. Then a run can be checkpointed inside an epoch, and resumed
        by drawing the epoch's batches again from its start up to the step reached
        (:func:`fit`). ``False`` (rollouts drawn by the policy being trained): at epoch
        ends only.
    fresh : bool
        Whether every batch is drawn as it is taken, from the generator's state then (or
        from its step alone), with nothing drawn at the epoch's start (no shuffle): a
        sampler, not a data set. Then a run checkpointed inside an epoch resumes from the
        generator's saved state and takes the epoch's remaining batches, without drawing
        again those it trained on (for a slow sampler, the replay would cost as much as
        the steps already taken). Implies ``replayable``.
    """

    steps_per_epoch: int
    epoch: Callable[[np.random.Generator, int], Iterable[Any]]
    replayable: bool = True
    fresh: bool = False

    def __post_init__(self) -> None:
        if self.fresh and not self.replayable:
            raise ValueError("fresh batches depend on the generator alone: fresh=True needs replayable=True")


@dataclass(frozen=True)
class Task:
    """What :func:`fit` trains for, besides the hyper-parameters.

    Attributes
    ----------
    batches : Batches
    loss : callable
        ``loss(model, batch) -> (scalar loss, weight)``; the weight (tokens, words) weighs
        the loss in the epoch's mean training loss.
    evaluate : callable, optional
        ``evaluate(model) -> float``, the metric of the stop rule and of the choice of
        the best weights.
    metric : str
        The metric's name in the epoch records.
    mode : {"min", "max"}
        Whether the metric improves downwards (a loss) or upwards (an accuracy).
    keep_best : bool
        Keep a copy of the weights at the best evaluation (:func:`train` returns them);
        otherwise each model ends with its last weights.
    schedule : callable, optional
        ``schedule(step) -> learning-rate multiplier``, replacing the config's schedule
        (a recipe with its own arithmetic). Plateau cuts still divide it.
    family : object, optional
        Batched computation for several members at once: ``losses(models, batches)``
        and ``evaluate(models)`` with the meaning of ``loss`` and ``evaluate``, each
        member's numbers the same whichever other members share the call.
    """

    batches: Batches
    loss: Callable[[nn.Module, Any], tuple[torch.Tensor, int]]
    evaluate: Callable[[nn.Module], float] | None = None
    metric: str = "val_loss"
    mode: str = "min"
    keep_best: bool = True
    schedule: Callable[[int], float] | None = None
    family: Any = None

    def __post_init__(self) -> None:
        check_choice("mode", self.mode, MODES)
        check_int("steps_per_epoch", self.batches.steps_per_epoch, 1)

    def losses(self, models: Sequence[nn.Module], batches: Sequence[Any]) -> list[tuple[torch.Tensor, int]]:
        """The loss and weight of every model on its own batch."""
        if self.family is not None:
            return self.family.losses(models, batches)
        return [self.loss(m, b) for m, b in zip(models, batches)]

    def evaluations(self, models: Sequence[nn.Module]) -> list[float]:
        """The metric of every model."""
        if self.family is not None:
            return self.family.evaluate(models)
        return [self.evaluate(m) for m in models]


class Member:
    """One model trained by :func:`fit`: weights, optimizer, schedule, data order, progress.

    Parameters
    ----------
    model : nn.Module
        Already on its device.
    config : TrainConfig
    rng : numpy.random.Generator
        The member's data order (passed to ``Batches.epoch``).
    task : Task
        Supplies the epoch length and any schedule override.

    Attributes
    ----------
    epoch, step : int
        Epochs and optimizer steps done.
    best : float
        Best evaluation so far; ``best_state`` its weights (CPU) when the task keeps them.
    stopped : str or None
        Why the member stopped: ``"epochs"``, ``"patience"``, ``"target"`` or ``"time"``.
    step_losses, eval_steps, eval_metric : list
        Loss of every step; step and value of every evaluation.
    tokens : int
        Sum of the loss weights of every step.
    busy_s : float
        Training time, a shared step counted in equal parts.
    epoch_start : dict or None
        Inside an epoch: the generator's state and the step count at its start, and the
        epoch's sums of loss times weight and of weights so far (``"rng"``, ``"step"``,
        ``"sums"``); ``None`` between epochs.
    """

    def __init__(self, model: nn.Module, config: TrainConfig, rng: np.random.Generator, task: Task) -> None:
        self.model, self.config, self.rng = model, config, rng
        self.optimizer = _make_optimizer(model, config)
        total_steps = task.batches.steps_per_epoch * config.max_epochs
        base = task.schedule if task.schedule is not None else (lambda s: lr_factor(s, total_steps, config))
        # cuts[0]: plateau cuts so far, read by the schedule at every step
        self._cuts = [0]
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, lambda s: base(s) / config.plateau_factor ** self._cuts[0])
        self.epoch = self.step = self.bad = self.tokens = 0
        self.best = math.inf if task.mode == "min" else -math.inf
        self.best_state: dict[str, torch.Tensor] | None = None
        self.stopped: str | None = None
        self.steps_to_target: int | None = None
        self.step_losses: list[float] = []
        self.eval_steps: list[int] = []
        self.eval_metric: list[float] = []
        self.busy_s = 0.0
        self.epoch_start: dict[str, Any] | None = None

    _PROGRESS = ("epoch", "step", "bad", "tokens", "best", "best_state", "stopped", "steps_to_target",
                 "step_losses", "eval_steps", "eval_metric", "busy_s", "epoch_start")

    def state_dict(self) -> dict[str, Any]:
        """Everything the member's future depends on (for a checkpoint)."""
        return {"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                "scheduler": self.scheduler.state_dict(), "rng": self.rng.bit_generator.state,
                "cuts": self._cuts[0], **{k: getattr(self, k) for k in self._PROGRESS}}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore a :meth:`state_dict`."""
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])
        self.rng.bit_generator.state = state["rng"]
        self._cuts[0] = state["cuts"]
        for k in self._PROGRESS:
            # checkpoints written before mid-epoch saves existed hold no epoch_start
            setattr(self, k, state.get(k) if k == "epoch_start" else state[k])

    def cut(self) -> None:
        """Divide the learning rate by ``plateau_factor`` now (not at the next step)."""
        self._cuts[0] += 1
        sched = self.scheduler
        for group, base in zip(self.optimizer.param_groups, sched.base_lrs):
            group["lr"] = base * sched.lr_lambdas[0](sched.last_epoch)

    def observe(self, value: float, task: Task) -> None:
        """Record an evaluation: best weights, patience, plateau cut, target."""
        self.eval_steps.append(self.step)
        self.eval_metric.append(value)
        if (value < self.best) if task.mode == "min" else (value > self.best):
            self.best, self.bad = value, 0
            if task.keep_best:
                self.best_state = {k: v.detach().cpu().clone() for k, v in self.model.state_dict().items()}
        else:
            self.bad += 1
            if self.config.schedule == "plateau":
                self.cut()
        if self.stopped is not None:
            return
        target = self.config.target
        if target is not None and ((value <= target) if task.mode == "min" else (value >= target)):
            self.stopped, self.steps_to_target = "target", self.step
        elif self.config.patience is not None and self.bad >= self.config.patience:
            self.stopped = "patience"


def _epoch_feed(member: Member, task: Task) -> Iterator[Any]:
    """The batches of ``member``'s current epoch still to come, its epoch's start recorded.

    A member checkpointed inside an epoch (``epoch_start`` set) continues from its
    generator's saved state when the task's batches are ``fresh``; otherwise it draws the
    epoch again from its start and skips the batches it has trained on: for a replayable
    task this leaves its generator as it was when the checkpoint was written (checked).
    """
    if member.epoch_start is None:
        member.epoch_start = {"rng": member.rng.bit_generator.state, "step": member.step, "sums": [0.0, 0]}
        return iter(task.batches.epoch(member.rng, member.step))
    if task.batches.fresh:
        left = task.batches.steps_per_epoch - (member.step - member.epoch_start["step"])
        return itertools.islice(task.batches.epoch(member.rng, member.step), max(left, 0))
    reached = member.rng.bit_generator.state
    member.rng.bit_generator.state = member.epoch_start["rng"]
    feed = iter(task.batches.epoch(member.rng, member.epoch_start["step"]))
    for _ in range(member.step - member.epoch_start["step"]):
        if next(feed, _END) is _END:
            raise RuntimeError("the epoch replayed to resume a checkpoint ended early")
    if member.rng.bit_generator.state != reached:
        raise RuntimeError("an epoch replayed to resume a checkpoint drew other batches: its task's "
                           "Batches must not be replayable (replayable=False)")
    return feed


def fit(members: Sequence[Member], task: Task, *, device: DeviceLike = "cpu", amp: bool = False,
        progress: bool = True, desc: str = "",
        on_epoch_end: Callable[[list[tuple[Member, dict[str, Any]]]], None] | None = None,
        on_step: Callable[[], None] | None = None) -> None:
    """Train ``members`` in lockstep until each one's stop rule ends it: the one training loop.

    Every step takes one batch per running member (from its own generator), computes all
    losses (batched when ``task.family`` is set), backpropagates their sum once (each
    member's gradient is that of its own loss alone), then clips and steps each member
    separately. A member whose stop rule fires is frozen: its weights, optimizer state and
    generator stop changing while the others go on. Members restored from a checkpoint
    written inside an epoch (by ``on_step``) resume there: the epoch's batches are drawn
    again from its start, and the first ones skipped.

    Parameters
    ----------
    members : sequence of Member
        Models of one task, sharing ``task.batches`` (members already stopped are skipped).
    task : Task
    device : str or torch.device
        Where the batches go (``"auto" | "cpu" | "cuda" | torch.device``).
    amp : bool
        bf16 autocast of the losses (``device`` of type CUDA).
    progress : bool
        Show a tqdm bar of steps.
    desc : str
        The bar's label.
    on_epoch_end : callable, optional
        Called after every epoch with ``(member, record)`` for each member that trained in
        it; a record holds ``epoch``, ``step``, ``train_loss``, the metric (when evaluated
        at the end of the epoch), ``lr``, ``tokens`` (of the epoch) and ``epoch_s``.
    on_step : callable, optional
        Called after every step inside an epoch, when the members' state dicts describe
        the run exactly (a checkpoint of them written there resumes bit for bit, if
        ``task.batches.replayable``); an exception raised there interrupts the run.
    """
    device = resolve_device(device)
    start = time.perf_counter()
    steps = task.batches.steps_per_epoch
    # a member stopped inside an epoch still closes it (evaluation, record)
    active = [m for m in members if m.stopped is None or m.epoch_start is not None]
    bar = progress_bar(total=max([m.config.max_epochs * steps for m in members], default=0),
               initial=max([m.step for m in members], default=0), desc=desc, disable=not progress, leave=False)
    while active:
        t_epoch = time.perf_counter()
        running = [m for m in active if m.stopped is None]
        feeds = {id(m): _epoch_feed(m, task) for m in running}
        for m in active:
            m.model.train()
        while running:
            t0 = time.perf_counter()
            batches = [next(feeds[id(m)], _END) for m in running]
            if any(b is _END for b in batches):
                if not all(b is _END for b in batches):
                    raise RuntimeError("members trained together need epochs of equal length")
                break
            with torch.autocast(device.type, dtype=torch.bfloat16, enabled=amp):
                losses = task.losses([m.model for m in running], batches)
            for m in running:
                m.optimizer.zero_grad(set_to_none=True)
            total = losses[0][0] if len(losses) == 1 else torch.stack([loss for loss, _ in losses]).sum()
            total.backward()
            for m, (loss, weight) in zip(running, losses):
                if m.config.clip is not None:
                    nn.utils.clip_grad_norm_(m.model.parameters(), m.config.clip)
                m.optimizer.step()
                m.scheduler.step()
                value = float(loss.detach())
                m.step += 1
                m.step_losses.append(value)
                m.epoch_start["sums"][0] += value * weight
                m.epoch_start["sums"][1] += weight
            share = (time.perf_counter() - t0) / len(running)
            for m in running:
                m.busy_s += share
            bar.update(1)
            due = [m for m in running if m.config.eval_every and m.step % m.config.eval_every == 0]
            if due and task.evaluate is not None:
                for m, value in zip(due, task.evaluations([m.model for m in due])):
                    m.observe(value, task)
            for m in running:
                if m.stopped is None and m.config.time_budget_s and time.perf_counter() - start >= m.config.time_budget_s:
                    m.stopped = "time"
            running = [m for m in running if m.stopped is None]
            if on_step is not None and running:
                on_step()
        # a run stopped by its time budget is still evaluated: the epoch's steps count
        due = [m for m in active if not m.config.eval_every and m.stopped in (None, "time")] \
            if task.evaluate is not None else []
        values = dict(zip(map(id, due), task.evaluations([m.model for m in due]))) if due else {}
        records = []
        for m in active:
            m.epoch += 1
            loss_sum, weight = m.epoch_start["sums"] if m.epoch_start is not None else (0.0, 0)
            m.epoch_start = None
            record: dict[str, Any] = {"epoch": m.epoch, "step": m.step, "train_loss": loss_sum / max(weight, 1)}
            if id(m) in values:
                m.observe(values[id(m)], task)
                record[task.metric] = values[id(m)]
                bar.set_postfix({task.metric: f"{values[id(m)]:.4f}"})
            if m.stopped is None and m.epoch >= m.config.max_epochs:
                m.stopped = "epochs"
            m.tokens += weight
            record.update(lr=m.optimizer.param_groups[0]["lr"], tokens=weight, epoch_s=time.perf_counter() - t_epoch)
            records.append((m, record))
        if on_epoch_end is not None:
            on_epoch_end(records)
        active = [m for m in active if m.stopped is None]
    bar.close()


def member_result(member: Member, *, device: DeviceLike, amp: bool = False, wall_s: float = float("nan"),
                  final_metric: float = float("nan"), history: list[dict[str, Any]] | None = None) -> TrainResult:
    """The :class:`TrainResult` of a single member trained by :func:`fit` (its own weights)."""
    busy = member.busy_s
    return TrainResult(
        model=member.model, best_val_loss=float(member.best) if member.eval_metric else float("nan"),
        best_restart=0, restart_val_losses=[float(member.best) if member.eval_metric else float("nan")],
        epochs=[member.epoch], tokens_per_s=member.tokens / busy if busy > 0 else float("nan"),
        wall_s=wall_s, stop_reasons=[member.stopped], device=str(resolve_device(device)), amp=amp,
        history=history or [],
        step_losses=np.asarray(member.step_losses, dtype=np.float64),
        seconds_per_step=busy / member.step if member.step else float("nan"),
        eval_steps=np.asarray(member.eval_steps, dtype=np.int64),
        eval_metric=np.asarray(member.eval_metric, dtype=np.float64),
        steps_to_target=member.steps_to_target, final_metric=final_metric, busy_s=busy)


# ---------------------------------------------------------------------- language models
def _steps_per_epoch(data: Sequences | Stream, batch_size: int) -> int:
    if isinstance(data, Sequences):
        return math.ceil(len(data.train) / batch_size)
    return max(1, (len(data.train) // batch_size - 1) // data.bptt)


def _tracks(stream: np.ndarray, batch_size: int) -> torch.Tensor:
    per = len(stream) // batch_size
    return torch.as_tensor(np.asarray(stream[: per * batch_size], dtype=np.int64)).view(batch_size, per)


def _detach(state: Any) -> Any:
    if state is None:
        return None
    if isinstance(state, tuple):
        return tuple(s.detach() for s in state)
    return state.detach()


@torch.no_grad()
def evaluate(model: nn.Module, data: Sequences | Stream, device: DeviceLike = "cpu", batch_size: int = 256,
             amp: bool = False) -> float:
    """Mean validation cross-entropy in nats per token.

    ``Sequences``: every row read from the start token. ``Stream``: the validation
    stream read in ``batch_size`` contiguous tracks with the state carried throughout.
    """
    device = resolve_device(device)
    model.eval()
    total, count = 0.0, 0
    with torch.autocast(device.type, dtype=torch.bfloat16, enabled=amp):
        if isinstance(data, Sequences):
            valid = torch.as_tensor(np.asarray(data.valid, dtype=np.int64))
            for start in range(0, len(valid), batch_size):
                x = valid[start: start + batch_size].to(device)
                total += float(sequence_loss(model, x)) * x.numel()
                count += x.numel()
        else:
            tracks = _tracks(data.valid, min(batch_size, max(1, len(data.valid) // (data.bptt + 1))))
            state = None
            for start in range(0, tracks.shape[1] - 1, data.bptt):
                chunk = tracks[:, start: start + data.bptt + 1].to(device)
                logits, state = model.forward_with_state(chunk[:, :-1], state)
                target = chunk[:, 1:]
                total += float(F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(),
                                               target.reshape(-1), reduction="sum"))
                count += target.numel()
    model.train()
    return total / count


class _StreamLoss:
    """Cross-entropy of a BPTT window, the recurrent state carried over from the member's last window."""

    def __init__(self) -> None:
        self.carried: dict[int, Any] = {}

    def __call__(self, model: nn.Module, batch: tuple[torch.Tensor, bool]) -> tuple[torch.Tensor, int]:
        chunk, reset = batch
        logits, state = model.forward_with_state(chunk[:, :-1], None if reset else self.carried.get(id(model)))
        self.carried[id(model)] = _detach(state)
        target = chunk[:, 1:]
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), target.reshape(-1)), target.numel()


def language_model_task(data: Sequences | Stream, batch_size: int, device: DeviceLike = "cpu",
                        family: Any = None) -> Task:
    """The :class:`Task` of :func:`train`: next-token cross-entropy, validation loss after every epoch.

    Parameters
    ----------
    data : Sequences or Stream
        ``Sequences``: rows shuffled every epoch by the member's generator, each read whole
        from the start token. ``Stream``: ``batch_size`` contiguous tracks read in windows
        of ``bptt`` tokens from an offset drawn every epoch; the carried state is zeroed at
        the start of an epoch and, with probability ``reset_prob``, of any window.
    batch_size : int
    device : str or torch.device
    family : object, optional
        Batched losses of several members (:class:`seqmi.family.RecurrentFamily`,
        :class:`seqmi.family.StackedFamily`; :func:`seqmi.family.family_for` picks one).

    Returns
    -------
    Task
        Its validation pass runs in float32 whatever autocast the training losses use:
        the validation loss picks the best restart and stops training at differences of
        about 1e-3 nats, while a bf16 forward pass rounds every logit to 8 significant
        bits (a relative error up to 2e-3).
    """
    device = resolve_device(device)
    if isinstance(data, Sequences):
        rows = torch.as_tensor(np.asarray(data.train, dtype=np.int64))

        def sequence_epoch(rng: np.random.Generator, step: int) -> Iterable[torch.Tensor]:
            order = torch.as_tensor(rng.permutation(len(rows)))
            for start in range(0, len(order), batch_size):
                yield rows[order[start: start + batch_size]].to(device, non_blocking=True)

        def loss(model: nn.Module, x: torch.Tensor) -> tuple[torch.Tensor, int]:
            return sequence_loss(model, x), x.numel()

        batches = Batches(_steps_per_epoch(data, batch_size), sequence_epoch)
    else:
        tracks = _tracks(data.train, batch_size)

        def stream_epoch(rng: np.random.Generator, step: int) -> Iterable[tuple[torch.Tensor, bool]]:
            # the paper does not shuffle text: only the track offset varies between epochs
            offset = int(rng.integers(data.bptt))
            first = True
            for start in range(offset, tracks.shape[1] - data.bptt - 1, data.bptt):
                chunk = tracks[:, start: start + data.bptt + 1].to(device, non_blocking=True)
                # a reset teaches the model to start from the zero state
                reset = bool(rng.random() < data.reset_prob)
                yield chunk, first or reset
                first = False

        loss = _StreamLoss()
        # the state carried between windows is not in a checkpoint: one is written at epoch ends only
        batches = Batches(_steps_per_epoch(data, batch_size), stream_epoch, replayable=False)
    return Task(batches, loss, evaluate=lambda model: evaluate(model, data, device), family=family)


def _save_atomic(payload: dict[str, Any], path: Path) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save(payload, tmp)
    os.replace(tmp, path)


def _log(log_path: Path | None, record: dict[str, Any]) -> None:
    if log_path is not None:
        with open(log_path, "a") as f:
            f.write(json.dumps(record) + "\n")


def _step_hook(save: Callable[[], None] | None, budget: Budget | None,
               every_s: float) -> Callable[..., None]:
    """When to checkpoint: ``hook(done=False)`` saves every ``every_s`` seconds and before a budget stop.

    ``hook()`` raises :class:`~seqmi.sweep.OutOfTime` once ``budget`` leaves no time for
    training (:meth:`~seqmi.sweep.Budget.training_spent`), the checkpoint written first;
    ``hook(done=True)`` (the run has ended) saves and never raises.
    """
    last = [time.perf_counter()]

    def hook(done: bool = False) -> None:
        stop = not done and budget is not None and budget.training_spent()
        if save is not None and (done or stop or time.perf_counter() - last[0] >= every_s):
            save()
            last[0] = time.perf_counter()
        if stop:
            raise OutOfTime

    return hook


def fit_checkpointed(members: Sequence[Member], task: Task, checkpoint_dir: str | os.PathLike | None, *,
                     extra: dict[str, list[Any]] | None = None, budget: Budget | None = None,
                     every_s: float = CHECKPOINT_EVERY_S, device: DeviceLike = "cpu", amp: bool = False,
                     progress: bool = True, desc: str = "") -> None:
    """:func:`fit`, checkpointed in ``checkpoint_dir`` and resumed from it.

    The members' state dicts, torch's generator and ``extra`` are written atomically to
    ``checkpoint_dir/checkpoint.pt`` every ``every_s`` seconds (after a step if
    ``task.batches.replayable``, else after an epoch), before a stop for ``budget`` and at
    the end; if the file exists, the members and ``extra`` are restored from it first. A run
    interrupted and resumed ends with the weights of one that ran through, bit for bit on
    CPU; a rerun of a finished one returns at once.

    Parameters
    ----------
    members : sequence of Member
        Freshly built (their checkpointed state replaces theirs).
    task : Task
    checkpoint_dir : path or None
        ``None``: :func:`fit` alone (still stopped by ``budget``).
    extra : dict of lists, optional
        What the task records beside the members (a PPO run's per-rollout numbers):
        saved with them, and each list's contents restored in place.
    budget : seqmi.sweep.Budget, optional
        Training stops with :class:`~seqmi.sweep.OutOfTime`, checkpoint saved, once it
        leaves no time for training (``current_budget()`` inside a sweep point).
    every_s : float
        Seconds between the checkpoints inside an epoch.
    device, amp, progress, desc
        As :func:`fit`.
    """
    check_float("every_s", every_s, 0.0)
    extra = {} if extra is None else extra
    path = Path(checkpoint_dir) / CHECKPOINT_FILE if checkpoint_dir is not None else None
    configs = [asdict(m.config) for m in members]
    if path is not None and path.is_file():
        state = torch.load(path, map_location="cpu", weights_only=False)
        if state["configs"] != configs or set(state["extra"]) != set(extra):
            raise ValueError(f"checkpoint {path} was written with a different config")
        for m, saved in zip(members, state["members"]):
            m.load_state_dict(saved)
        for k, values in state["extra"].items():
            extra[k][:] = values
        torch.set_rng_state(state["torch_rng"])
        restore_cuda_rng_state(state)
    save = None
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)

        def save() -> None:
            _save_atomic({"configs": configs, "members": [m.state_dict() for m in members],
                          "extra": {k: list(v) for k, v in extra.items()}, "torch_rng": torch.get_rng_state(),
                          **cuda_rng_state()},
                         path)

    hook = _step_hook(save, budget, every_s)

    def epoch_end(records: list[tuple[Member, dict[str, Any]]]) -> None:
        hook(done=all(m.stopped is not None for m in members))

    fit(members, task, device=device, amp=amp, progress=progress, desc=desc, on_epoch_end=epoch_end,
        on_step=hook if task.batches.replayable else None)




def init_seed(config: TrainConfig, restart: int) -> int:
    """The torch seed under which restart ``restart`` of ``config`` is built."""
    return child_seed(config.seed, "restart", restart)


def order_rng(config: TrainConfig, restart: int) -> np.random.Generator:
    """The generator of restart ``restart``'s data order (shuffles, track offsets, resets)."""
    return np.random.default_rng(child_seed(config.seed, "restart", restart, "order"))


def train_family(make_model: Callable[[], nn.Module] | Sequence[Callable[[], nn.Module]],
                 data: Sequences | Stream, configs: Sequence[TrainConfig], *, device: DeviceLike = "cpu",
                 checkpoint_dir: str | os.PathLike | None = None, log_path: str | os.PathLike | None = None,
                 progress: bool = True, on_epoch_end: Callable[[dict[str, Any]], None] | None = None,
                 budget: Budget | None = None, every_s: float = CHECKPOINT_EVERY_S) -> list[TrainResult]:
    """Train every restart of every config, and return each config's best model.

    Restart ``r`` of config ``c`` is built under its own seed (:func:`init_seed`),
    shuffles the data with its own generator (:func:`order_rng`) and follows its own stop
    rule. Runs whose models share an architecture (equal
    :func:`seqmi.family.family_key`), a batch size and autocast train together as one
    family in lockstep (:func:`fit`); a member that stops is frozen while the others go
    on. Each run ends with the weights it would have had alone: bit for bit on CPU (see
    :mod:`seqmi.family`). Other runs (streams, models with dropout or of other classes)
    train one after another.

    Parameters
    ----------
    make_model : callable or sequence of callables
        Builds a fresh model (called after seeding torch, once per restart and once more
        for each returned model); one for all configs, or one per config.
    data : Sequences or Stream
    configs : sequence of TrainConfig
    device : str or torch.device
        ``"auto" | "cpu" | "cuda" | torch.device``.
    checkpoint_dir : path, optional
        Folder of ``checkpoint.pt``: if it exists the run resumes from it; it is
        rewritten after every epoch and, for ``Sequences``, every ``every_s`` seconds
        inside one (a ``Stream``'s carried state is not saved: epoch ends only).
    log_path : path, optional
        JSON-lines file receiving one record per model and epoch (appended).
    progress : bool
        Show a tqdm bar per family (or lone run).
    on_epoch_end : callable, optional
        Called with each epoch's log record (keys ``config`` and ``restart`` added) after
        the checkpoint is written (an exception raised there interrupts the run with a
        valid checkpoint on disk).
    budget : seqmi.sweep.Budget, optional
        Checked after every step (``Stream``: every epoch): once it leaves no time for training
        (:meth:`~seqmi.sweep.Budget.training_spent`), the checkpoint is written and
        :class:`~seqmi.sweep.OutOfTime` raised (``current_budget()`` inside a sweep point).
    every_s : float
        Seconds between the checkpoints written inside an epoch.

    Returns
    -------
    list of TrainResult
        One per config, in order.
    """
    configs = list(configs)
    if not configs:
        raise ValueError("train_family needs at least one config")
    check_float("every_s", every_s, 0.0)
    makers = [make_model] * len(configs) if callable(make_model) else list(make_model)
    if len(makers) != len(configs):
        raise ValueError(f"got {len(makers)} model builders for {len(configs)} configs")
    device = resolve_device(device)
    amps, keys = [], []
    for maker, config in zip(makers, configs):
        probe = maker()
        amp = bool(config.amp if config.amp is not None else device.type == "cuda")
        amps.append(amp and device.type == "cuda" and bool(getattr(probe, "amp_safe", False)))
        if isinstance(data, Stream) and not hasattr(probe, "forward_with_state"):
            raise ValueError("Stream data (truncated BPTT) needs a recurrent model with forward_with_state")
        key = family_key(probe, isinstance(data, Sequences), device)
        keys.append(None if key is None else (key, config.batch_size, amps[-1]))
        del probe
    ckpt_path = Path(checkpoint_dir) / CHECKPOINT_FILE if checkpoint_dir is not None else None
    if ckpt_path is not None:
        ckpt_path.parent.mkdir(parents=True, exist_ok=True)
    log_file = Path(log_path) if log_path is not None else None
    if log_file is not None:
        log_file.parent.mkdir(parents=True, exist_ok=True)
    start_time = time.perf_counter()
    groups: list[list[tuple[int, int]]] = []
    by_key: dict[Any, list[tuple[int, int]]] = {}
    for c, config in enumerate(configs):
        for r in range(config.restarts):
            if keys[c] is None:
                groups.append([(c, r)])
            elif keys[c] in by_key:
                by_key[keys[c]].append((c, r))
            else:
                by_key[keys[c]] = [(c, r)]
                groups.append(by_key[keys[c]])

    state: dict[str, Any] | None = None
    config_dicts = [asdict(c) for c in configs]
    if ckpt_path is not None and ckpt_path.is_file():
        state = torch.load(ckpt_path, map_location="cpu", weights_only=False)
        if state["configs"] != config_dicts:
            raise ValueError(f"checkpoint {ckpt_path} was written with a different config")
    finished: dict[tuple[int, int], dict[str, Any]] = state["finished"] if state else {}
    history: list[dict[str, Any]] = state["history"] if state else []

    for g, group in enumerate(groups):
        if all(key in finished for key in group):
            continue
        c0 = group[0][0]
        member_key = None if keys[c0] is None else keys[c0][0]
        task = language_model_task(data, configs[c0].batch_size, device,
                                   family=family_for(member_key, data.valid, device, len(group)))
        members = []
        for c, r in group:
            torch.manual_seed(init_seed(configs[c], r))
            members.append(Member(makers[c]().to(device), configs[c], order_rng(configs[c], r), task))
        if state is not None and state.get("group") == g:
            for m, saved in zip(members, state["members"]):
                m.load_state_dict(saved)
            torch.set_rng_state(state["torch_rng"])
            restore_cuda_rng_state(state)
        state = None

        def save(members: list[Member] = members, g: int = g) -> None:
            _save_atomic({"configs": config_dicts, "finished": finished, "history": history, "group": g,
                          "members": [m.state_dict() for m in members], "torch_rng": torch.get_rng_state(),
                          **cuda_rng_state()},
                         ckpt_path)

        def checkpoint(records: list[tuple[Member, dict[str, Any]]], group: list[tuple[int, int]] = group,
                       members: list[Member] = members) -> None:
            keyed = []
            for m, record in records:
                c, r = group[members.index(m)]
                keyed.append({"config": c, "restart": r, **record})
            for record in keyed:
                history.append(record)
                _log(log_file, record)
            if ckpt_path is not None:
                save()
            if on_epoch_end is not None:
                for record in keyed:
                    on_epoch_end(record)
            if budget is not None and any(m.stopped is None for m in members):
                budget.check_training()

        fit(members, task, device=device, amp=amps[c0], progress=progress, on_epoch_end=checkpoint,
            on_step=_step_hook(save if ckpt_path is not None else None, budget, every_s)
            if task.batches.replayable and (ckpt_path is not None or budget is not None) else None,
            desc=f"run {group[0][1] + 1}/{configs[c0].restarts}" if len(group) == 1 else f"{len(group)} runs")
        for (c, r), m in zip(group, members):
            summary = {"best": m.best, "best_state": m.best_state, "epochs": m.epoch, "stopped": m.stopped,
                       "tokens": m.tokens,
                       "busy_s": m.busy_s, "step_losses": m.step_losses, "eval_steps": m.eval_steps,
                       "eval_metric": m.eval_metric, "steps_to_target": m.steps_to_target}
            # only the best restart's weights are kept: memory stays one model per config
            others = [f for (c2, _), f in finished.items() if c2 == c]
            if all(m.best < f["best"] for f in others):
                for f in others:
                    f["best_state"] = None
            else:
                summary["best_state"] = None
            finished[(c, r)] = summary

    results = []
    for c, config in enumerate(configs):
        runs = [finished[(c, r)] for r in range(config.restarts)]
        best_restart = int(np.argmin([f["best"] for f in runs]))
        kept = runs[best_restart]
        if kept["best_state"] is None:
            raise RuntimeError("no restart reached a finite validation loss (diverged?)")
        model = makers[c]().to(device)
        model.load_state_dict(kept["best_state"])
        model.eval()
        busy = sum(f["busy_s"] for f in runs)
        results.append(TrainResult(
            model=model, best_val_loss=float(kept["best"]), best_restart=best_restart,
            restart_val_losses=[float(f["best"]) for f in runs], epochs=[int(f["epochs"]) for f in runs],
            tokens_per_s=sum(f["tokens"] for f in runs) / busy if busy > 0 else float("nan"),
            wall_s=time.perf_counter() - start_time, device=str(device), amp=amps[c],
            stop_reasons=[f.get("stopped") for f in runs],
            history=[h for h in history if h["config"] == c],
            step_losses=np.asarray(kept["step_losses"], dtype=np.float64),
            seconds_per_step=kept["busy_s"] / len(kept["step_losses"]) if kept["step_losses"] else float("nan"),
            eval_steps=np.asarray(kept["eval_steps"], dtype=np.int64),
            eval_metric=np.asarray(kept["eval_metric"], dtype=np.float64),
            steps_to_target=kept["steps_to_target"], final_metric=float(kept["best"]), busy_s=busy))
    if ckpt_path is not None:  # the final state: a rerun returns at once
        _save_atomic({"configs": config_dicts, "finished": finished, "history": history, "group": len(groups)},
                     ckpt_path)
    return results


def train(make_model: Callable[[], nn.Module], data: Sequences | Stream, config: TrainConfig,
          device: DeviceLike = "cpu", checkpoint_dir: str | os.PathLike | None = None,
          log_path: str | os.PathLike | None = None, progress: bool = True,
          on_epoch_end: Callable[[dict[str, Any]], None] | None = None, budget: Budget | None = None,
          every_s: float = CHECKPOINT_EVERY_S) -> TrainResult:
    """Train ``config.restarts`` models and return the one with the best validation loss.

    :func:`train_family` with one config; see there for the parameters.

    Returns
    -------
    TrainResult
    """
    return train_family(make_model, data, [config], device=device, checkpoint_dir=checkpoint_dir,
                        log_path=log_path, progress=progress, on_epoch_end=on_epoch_end, budget=budget,
                        every_s=every_s)[0]
