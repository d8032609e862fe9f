"""Restarts and configurations of one architecture trained together: :func:`seqmi.train.families.train_family`.

:func:`seqmi.train.families.train` and :func:`seqmi.train.families.train_family` fit
autoregressive models (:mod:`seqmi.models.lm`) by maximum likelihood.
:func:`seqmi.train.families.train_family` takes several configs (seeds, learning rates,
restarts) and trains the runs of one architecture together, as one family
(:mod:`seqmi.family`): each ends with the weights it would have had alone. The recipe is
that of Shen 2019, App. E:

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
  (:mod:`seqmi.train.checkpoint`: weights, optimizers, steps, data-order generators,
  best weights so far, finished runs), written atomically, so that an interrupted run
  resumed from it ends with bit-identical weights on the same machine;
- one JSON line per model and epoch in ``log_path``.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from seqmi.device import DeviceLike, resolve_device
from seqmi.family import family_for, family_key
from seqmi.rng import child_seed
from seqmi.sweep import Budget
from seqmi.train.checkpoint import (CHECKPOINT_EVERY_S, Checkpoint, FamilyState, FinishedRun, checkpoint_path,
                                    resume, step_hook)
from seqmi.train.config import TrainConfig, TrainResult
from seqmi.train.data import Sequences, Stream
from seqmi.train.lm import language_model_task
from seqmi.train.loop import Member, Task, fit
from seqmi.validate import check_float

# the runs trained together: (config, restart) pairs
_Group = list[tuple[int, int]]


def init_seed(config: TrainConfig, restart: int) -> int:
    """The torch seed under which restart ``restart`` of ``config`` is built."""
    return child_seed(config.seed, "restart", restart)


def order_rng(config: TrainConfig, restart: int) -> np.random.Generator:
    """The generator of restart ``restart``'s data order (shuffles, track offsets, resets)."""
    return np.random.default_rng(child_seed(config.seed, "restart", restart, "order"))


def _autocast_and_key(maker: Callable[[], nn.Module], config: TrainConfig, data: Sequences | Stream,
                      device: torch.device) -> tuple[bool, Hashable | None]:
    """Whether ``config``'s models train under autocast, and the key of the family they may join."""
    probe = maker()
    amp = bool(config.amp if config.amp is not None else device.type == "cuda")
    amp = amp and device.type == "cuda" and bool(getattr(probe, "amp_safe", False))
    if isinstance(data, Stream) and not hasattr(probe, "forward_with_state"):
        raise ValueError("Stream data (truncated BPTT) needs a recurrent model with forward_with_state")
    key = family_key(probe, isinstance(data, Sequences), device)
    return amp, None if key is None else (key, config.batch_size, amp)


def _groups(configs: Sequence[TrainConfig], keys: Sequence[Hashable | None]) -> list[_Group]:
    """The runs trained together, in the order they train: one group per key, a run alone without one."""
    groups: list[_Group] = []
    by_key: dict[Hashable, _Group] = {}
    for c, config in enumerate(configs):
        for r in range(config.restarts):
            if keys[c] is None:
                groups.append([(c, r)])
            elif keys[c] in by_key:
                by_key[keys[c]].append((c, r))
            else:
                by_key[keys[c]] = [(c, r)]
                groups.append(by_key[keys[c]])
    return groups


def _log(log_path: Path | None, record: dict[str, Any]) -> None:
    """Append ``record`` to the JSON-lines log, if there is one."""
    if log_path is not None:
        with open(log_path, "a") as f:
            f.write(json.dumps(record) + "\n")


def _with_folder(path: Path | None) -> Path | None:
    """``path``, its folder created."""
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
    return path


@dataclass
class _FamilyRun:
    """One :func:`seqmi.train.families.train_family` call: what it trains, how, and how far it has got.

    ``amps`` and ``keys`` hold each config's autocast and family key, ``groups`` the runs
    trained together, in order; ``state`` is what a checkpoint keeps of the run besides
    its members. The other fields are train_family's arguments.
    """

    makers: list[Callable[[], nn.Module]]
    configs: list[TrainConfig]
    amps: list[bool]
    keys: list[Hashable | None]
    groups: list[_Group]
    data: Sequences | Stream
    device: torch.device
    path: Path | None
    log_file: Path | None
    show_progress: bool
    on_epoch_end: Callable[[dict[str, Any]], None] | None
    budget: Budget | None
    every_s: float
    state: FamilyState = field(default_factory=FamilyState)
    config_dicts: list[dict[str, Any]] = field(init=False)

    def __post_init__(self) -> None:
        self.config_dicts = [asdict(c) for c in self.configs]

    def build(self, g: int) -> tuple[Task, list[Member]]:
        """The task and freshly built members of group ``g``, each model under its own seed."""
        group, c0 = self.groups[g], self.groups[g][0][0]
        member_key = None if self.keys[c0] is None else self.keys[c0][0]
        task = language_model_task(self.data, self.configs[c0].batch_size, self.device,
                                   family=family_for(member_key, self.data.valid, self.device, len(group)))
        members = []
        for c, r in group:
            torch.manual_seed(init_seed(self.configs[c], r))
            members.append(Member(self.makers[c]().to(self.device), self.configs[c], order_rng(self.configs[c], r),
                                  task))
        return task, members

    def save(self, members: list[Member] | None) -> None:
        """Write the checkpoint: ``members`` in training, or ``None`` once every group has finished."""
        Checkpoint.of(self.config_dicts, members, family=self.state).save(self.path)

    def train(self) -> None:
        """Train every group not finished yet, resuming the one the checkpoint was written in."""
        resumed: dict[int, tuple[Task, list[Member]]] = {}

        def members_of(g: int) -> list[Member]:
            resumed[g] = self.build(g)
            return resumed[g][1]

        checkpoint = resume(self.path, self.config_dicts, members_of)
        if checkpoint is not None:
            self.state = checkpoint.family
        for g in range(self.state.group, len(self.groups)):
            self.state.group = g
            task, members = resumed.pop(g) if g in resumed else self.build(g)
            self.fit_group(self.groups[g], task, members)
            self.finish(self.groups[g], members)
        self.state.group = len(self.groups)

    def fit_group(self, group: _Group, task: Task, members: list[Member]) -> None:
        """Train the group's members together, checkpointed inside epochs where the batches allow it."""
        on_step = None
        if task.batches.replayable and (self.path is not None or self.budget is not None):
            save = partial(self.save, members) if self.path is not None else None
            on_step = step_hook(save, self.budget, self.every_s)
        c0 = group[0][0]
        desc = f"run {group[0][1] + 1}/{self.configs[c0].restarts}" if len(group) == 1 else f"{len(group)} runs"
        fit(members, task, device=self.device, amp=self.amps[c0], progress=self.show_progress,
            on_epoch_end=partial(self.epoch_end, group, members), on_step=on_step, desc=desc)

    def epoch_end(self, group: _Group, members: list[Member], records: list[tuple[Member, dict[str, Any]]]) -> None:
        """Log the epoch, checkpoint, call the caller's hook, then stop if the budget is spent."""
        keyed = []
        for m, record in records:
            c, r = group[members.index(m)]
            keyed.append({"config": c, "restart": r, **record})
        for record in keyed:
            self.state.history.append(record)
            _log(self.log_file, record)
        if self.path is not None:
            self.save(members)
        if self.on_epoch_end is not None:
            for record in keyed:
                self.on_epoch_end(record)
        if self.budget is not None and any(m.stopped is None for m in members):
            self.budget.check_training()

    def finish(self, group: _Group, members: list[Member]) -> None:
        """Record the group's runs, keeping the weights of each config's best restart only."""
        finished = self.state.finished
        for (c, r), m in zip(group, members):
            run = FinishedRun.of(m)
            others = [f for (c2, _), f in finished.items() if c2 == c]
            if all(m.best < f.best for f in others):
                for f in others:
                    f.best_state = None
            else:
                run.best_state = None
            finished[(c, r)] = run

    def result(self, c: int, start: float) -> TrainResult:
        """Config ``c``'s result: the model of its best restart, every restart's numbers."""
        runs = [self.state.finished[(c, r)] for r in range(self.configs[c].restarts)]
        best_restart = int(np.argmin([f.best for f in runs]))
        kept = runs[best_restart]
        if kept.best_state is None:
            raise RuntimeError("no restart reached a finite validation loss (diverged?)")
        model = self.makers[c]().to(self.device)
        model.load_state_dict(kept.best_state)
        model.eval()
        busy = sum(f.busy_s for f in runs)
        return TrainResult(
            model=model, best_val_loss=float(kept.best), best_restart=best_restart,
            restart_val_losses=[float(f.best) for f in runs], epochs=[int(f.epochs) for f in runs],
            tokens_per_s=sum(f.tokens for f in runs) / busy if busy > 0 else float("nan"),
            wall_s=time.perf_counter() - start, device=str(self.device), amp=self.amps[c],
            stop_reasons=[f.stopped for f in runs],
            history=[h for h in self.state.history if h["config"] == c],
            step_losses=np.asarray(kept.step_losses, dtype=np.float64),
            seconds_per_step=kept.busy_s / len(kept.step_losses) if kept.step_losses else float("nan"),
            eval_steps=np.asarray(kept.eval_steps, dtype=np.int64),
            eval_metric=np.asarray(kept.eval_metric, dtype=np.float64),
            steps_to_target=kept.steps_to_target, final_metric=float(kept.best), busy_s=busy)


def train_family(make_model: Callable[[], nn.Module] | Sequence[Callable[[], nn.Module]],
                 data: Sequences | Stream, configs: Sequence[TrainConfig], *, device: DeviceLike = "cpu",
                 checkpoint_dir: str | os.PathLike | None = None, log_path: str | os.PathLike | None = None,
                 progress: bool = True, on_epoch_end: Callable[[dict[str, Any]], None] | None = None,
                 budget: Budget | None = None, every_s: float = CHECKPOINT_EVERY_S) -> list[TrainResult]:
    """Train every restart of every config, and return each config's best model.

    Restart ``r`` of config ``c`` is built under its own seed
    (:func:`seqmi.train.families.init_seed`), shuffles the data with its own generator
    (:func:`seqmi.train.families.order_rng`) and follows its own stop rule. Runs whose
    models share an architecture (equal :func:`seqmi.family.family_key`), a batch size and
    autocast train together as one family in lockstep (:func:`seqmi.train.loop.fit`); a
    member that stops is frozen while the others go on. Each run ends with the weights it
    would have had alone: bit for bit on CPU (see :mod:`seqmi.family`). Other runs
    (streams, models with dropout or of other classes) train one after another.

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
        Folder of ``checkpoint.pt``: if it exists the run resumes from it
        (:func:`seqmi.train.checkpoint.resume`); it is rewritten after every epoch and,
        for ``Sequences``, every ``every_s`` seconds inside one (a ``Stream``'s carried
        state is not saved: epoch ends only).
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
        amp, key = _autocast_and_key(maker, config, data, device)
        amps.append(amp)
        keys.append(key)
    run = _FamilyRun(makers, configs, amps, keys, _groups(configs, keys), data, device,
                     path=_with_folder(checkpoint_path(checkpoint_dir)),
                     log_file=_with_folder(Path(log_path) if log_path is not None else None),
                     show_progress=progress, on_epoch_end=on_epoch_end, budget=budget, every_s=every_s)
    start = time.perf_counter()
    run.train()
    results = [run.result(c, start) for c in range(len(configs))]
    if run.path is not None:  # the final state: a rerun returns at once
        run.save(None)
    return results


def train(make_model: Callable[[], nn.Module], data: Sequences | Stream, config: TrainConfig,
          device: DeviceLike = "cpu", checkpoint_dir: str | os.PathLike | None = None,
          log_path: str | os.PathLike | None = None, progress: bool = True,
          on_epoch_end: Callable[[dict[str, Any]], None] | None = None, budget: Budget | None = None,
          every_s: float = CHECKPOINT_EVERY_S) -> TrainResult:
    """Train ``config.restarts`` models and return the one with the best validation loss.

    :func:`seqmi.train.families.train_family` with one config; see there for the parameters.

    Returns
    -------
    TrainResult
    """
    return train_family(make_model, data, [config], device=device, checkpoint_dir=checkpoint_dir,
                        log_path=log_path, progress=progress, on_epoch_end=on_epoch_end, budget=budget,
                        every_s=every_s)[0]
