"""The package's one training loop: :func:`seqmi.train.loop.fit` is the only place where it takes a gradient step.

A training run is a configuration of it:

- a :class:`seqmi.train.loop.Task`: the batch source (:class:`seqmi.train.data.Batches`,
  one epoch at a time, drawn from each member's own generator), the loss function, an
  optional evaluation hook (a validation loss, a held-out accuracy) and the direction in
  which that metric improves;
- a :class:`seqmi.train.config.TrainConfig` per model: optimizer, learning-rate schedule,
  gradient clipping, and the stop rule (``max_epochs``, ``patience`` evaluations without
  improvement, a ``target`` value of the metric, a ``time_budget_s``);
- the models (:class:`seqmi.train.loop.Member`), trained in lockstep, each with its own
  optimizer, schedule and data order; a member that stops is frozen while the others go on.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from seqmi.device import DeviceLike, resolve_device
from seqmi.progress import progress_bar
from seqmi.train.config import TrainConfig, TrainResult, lr_factor, make_optimizer
from seqmi.train.data import Batches
from seqmi.validate import check_choice, check_int

#: The directions in which a :class:`~seqmi.train.loop.Task`'s metric can improve.
MODES = ("min", "max")
_END = object()  # marks the end of an epoch's batches


@dataclass(frozen=True)
class Task:
    """What :func:`seqmi.train.loop.fit` trains for, besides the hyper-parameters.

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
        Keep a copy of the weights at the best evaluation (:func:`seqmi.train.families.train`
        returns them); otherwise each model ends with its last weights.
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
    """One model trained by :func:`seqmi.train.loop.fit`: weights, optimizer, schedule, data order, progress.

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
        self.optimizer = make_optimizer(model, config)
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
        """Restore a :meth:`seqmi.train.loop.Member.state_dict`."""
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
                budget_s = m.config.time_budget_s
                if m.stopped is None and budget_s and time.perf_counter() - start >= budget_s:
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
    """The :class:`~seqmi.train.config.TrainResult` of a single member trained by :func:`~seqmi.train.loop.fit`.

    Its ``model`` is the member's own model, as training left it.
    """
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


