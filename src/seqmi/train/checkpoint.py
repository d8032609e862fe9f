"""What a checkpoint holds, when one is written, and the one path that resumes a run from it.

A checkpoint (``checkpoint.pt`` in a run's folder) holds everything the future of a run
depends on: the state dicts of the members in training (weights, optimizers,
schedulers, data-order generators, progress, the state of an epoch they are inside),
torch's generators (CPU, and CUDA where available), and the run's bookkeeping (the
``extra`` lists of :func:`seqmi.train.checkpoint.fit_checkpointed`, the
:class:`seqmi.train.checkpoint.FamilyState` of
:func:`seqmi.train.families.train_family`). It is written atomically, so that an
interrupted run resumed from it ends with bit-identical weights on the same machine.

:func:`seqmi.train.checkpoint.resume` is the only place where a checkpoint is read. On
disk a checkpoint is the plain dictionary of
:meth:`seqmi.train.checkpoint.Checkpoint.payload`, so that a checkpoint outlives
renames of the classes that describe it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import torch

from seqmi.device import DeviceLike, cuda_rng_state, restore_cuda_rng_state
from seqmi.sweep import Budget, OutOfTime
from seqmi.train.loop import Member, Task, fit
from seqmi.validate import check_float

#: The name of a run's checkpoint file in its folder.
CHECKPOINT_FILE = "checkpoint.pt"
#: Seconds of training between the checkpoints written inside an epoch.
CHECKPOINT_EVERY_S = 60.0


@dataclass
class FinishedRun:
    """What a family run keeps of a member that has finished training.

    Attributes
    ----------
    best : float
        Its best evaluation.
    best_state : dict of Tensor or None
        The weights of that evaluation (CPU), kept for the best restart of each config
        only (``None`` for the others: memory stays one model per config).
    epochs : int
    stopped : str or None
        Why it stopped (``seqmi.train.loop.Member.stopped``); ``None`` where its
        checkpoint predates the field.
    tokens : int
    busy_s : float
    step_losses, eval_steps, eval_metric : list
        As the member's.
    steps_to_target : int or None
    """

    best: float
    best_state: dict[str, torch.Tensor] | None
    epochs: int
    stopped: str | None
    tokens: int
    busy_s: float
    step_losses: list[float]
    eval_steps: list[int]
    eval_metric: list[float]
    steps_to_target: int | None

    @classmethod
    def of(cls, member: Member) -> FinishedRun:
        """The record of ``member``, whose training has ended."""
        return cls(best=member.best, best_state=member.best_state, epochs=member.epoch, stopped=member.stopped,
                   tokens=member.tokens, busy_s=member.busy_s, step_losses=member.step_losses,
                   eval_steps=member.eval_steps, eval_metric=member.eval_metric,
                   steps_to_target=member.steps_to_target)

    @classmethod
    def from_payload(cls, payload: dict[str, Any]) -> FinishedRun:
        """The record of a :meth:`seqmi.train.checkpoint.FinishedRun.payload`."""
        # checkpoints written before stop reasons were recorded hold no "stopped"
        return cls(**{"stopped": None, **payload})

    def payload(self) -> dict[str, Any]:
        """The record as the plain dictionary a checkpoint stores."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass
class FamilyState:
    """The bookkeeping of a :func:`seqmi.train.families.train_family` run, beside its members.

    Attributes
    ----------
    group : int
        The group of members in training: groups train one after another, in order, so
        those before it have finished and those after it have not started (the number of
        groups once all have finished).
    finished : dict
        ``{(config, restart): FinishedRun}`` for every run that has finished.
    history : list of dict
        Every epoch record so far, keys ``config`` and ``restart`` added.
    """

    group: int = 0
    finished: dict[tuple[int, int], FinishedRun] = field(default_factory=dict)
    history: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Checkpoint:
    """What a checkpoint holds (:meth:`seqmi.train.checkpoint.Checkpoint.payload` is what is written).

    Attributes
    ----------
    configs : list of dict
        ``dataclasses.asdict`` of every config of the run: a checkpoint resumes the run
        it was written by only.
    members : list of dict or None
        State dicts (:meth:`seqmi.train.loop.Member.state_dict`) of the members in
        training when it was written; ``None`` once a family run has finished.
    torch_rng : Tensor or None
        torch's CPU generator, saved with the members.
    cuda_rng : list of Tensor or None
        The CUDA generators, one per GPU, where CUDA was available.
    extra : dict of lists or None
        The bookkeeping of :func:`seqmi.train.checkpoint.fit_checkpointed`.
    family : FamilyState or None
        The bookkeeping of :func:`seqmi.train.families.train_family`. A checkpoint holds
        ``extra`` or ``family``, never both.
    """

    configs: list[dict[str, Any]]
    members: list[dict[str, Any]] | None = None
    torch_rng: torch.Tensor | None = None
    cuda_rng: list[torch.Tensor] | None = None
    extra: dict[str, list[Any]] | None = None
    family: FamilyState | None = None

    @classmethod
    def of(cls, configs: list[dict[str, Any]], members: Sequence[Member] | None, *,
           extra: dict[str, list[Any]] | None = None, family: FamilyState | None = None) -> Checkpoint:
        """The checkpoint of a run now: ``members`` and torch's generators (none without members)."""
        extra = None if extra is None else {k: list(v) for k, v in extra.items()}
        if members is None:
            return cls(configs, extra=extra, family=family)
        return cls(configs, members=[m.state_dict() for m in members], torch_rng=torch.get_rng_state(),
                   cuda_rng=cuda_rng_state().get("cuda_rng"), extra=extra, family=family)

    def payload(self) -> dict[str, Any]:
        """The dictionary written on disk: only the keys of what the checkpoint holds."""
        payload: dict[str, Any] = {"configs": self.configs}
        if self.family is not None:
            payload.update(finished={k: run.payload() for k, run in self.family.finished.items()},
                           history=self.family.history, group=self.family.group)
        optional = {"members": self.members, "extra": self.extra, "torch_rng": self.torch_rng,
                    "cuda_rng": self.cuda_rng}
        payload.update({k: v for k, v in optional.items() if v is not None})
        return payload

    @classmethod
    def from_payload(cls, payload: dict[str, Any], path: Path) -> Checkpoint:
        """The checkpoint that ``payload``, read from ``path``, describes."""
        try:
            family = extra = None
            if "group" in payload:  # a family run's
                family = FamilyState(payload["group"],
                                        {k: FinishedRun.from_payload(v) for k, v in payload["finished"].items()},
                                        payload["history"])
            else:
                extra = payload["extra"]
            return cls(payload["configs"], members=payload.get("members"), torch_rng=payload.get("torch_rng"),
                       cuda_rng=payload.get("cuda_rng"), extra=extra, family=family)
        except (KeyError, TypeError, AttributeError) as error:
            raise ValueError(f"{path} is not a training checkpoint this version of seqmi can read "
                             f"({type(error).__name__}: {error}); delete it to train again") from error

    def save(self, path: Path) -> None:
        """Write the checkpoint to ``path`` atomically: a reader finds the old file or the new one, whole."""
        tmp = path.with_suffix(".tmp")
        torch.save(self.payload(), tmp)
        os.replace(tmp, path)


def checkpoint_path(checkpoint_dir: str | os.PathLike | None) -> Path | None:
    """The checkpoint file of a run checkpointed in ``checkpoint_dir`` (``None``: not checkpointed)."""
    return Path(checkpoint_dir) / CHECKPOINT_FILE if checkpoint_dir is not None else None


def resume(path: Path | None, configs: list[dict[str, Any]], members: Callable[[int | None], Sequence[Member]],
           extra: dict[str, list[Any]] | None = None) -> Checkpoint | None:
    """Resume a run from its checkpoint, if it has one: the only place where a checkpoint is read.

    Reads ``path``, checks that it was written by a run of the same kind with the same
    configs, restores the members it holds (weights, optimizers, schedulers, data-order
    generators, progress, the state of an epoch they are inside), torch's generators and
    ``extra``, and returns it: the caller takes the rest of its bookkeeping from it.

    Parameters
    ----------
    path : Path or None
        The checkpoint file (:func:`seqmi.train.checkpoint.checkpoint_path`); ``None`` or
        a missing file: a fresh run.
    configs : list of dict
        ``dataclasses.asdict`` of every config of the run.
    members : callable
        ``members(group)``: the freshly built members that the checkpoint's states
        replace, those of ``FamilyState.group`` for a family run (``group`` is
        ``None`` for a run of one group). Called only if the checkpoint holds members,
        before torch's generators are restored.
    extra : dict of lists, optional
        The bookkeeping of :func:`seqmi.train.checkpoint.fit_checkpointed`: each list's
        contents restored in place. ``None``: the run is a family run
        (:func:`seqmi.train.families.train_family`).

    Returns
    -------
    Checkpoint or None
        ``None`` when there is no checkpoint to resume from.

    Raises
    ------
    ValueError
        If the checkpoint was written with other configs or ``extra`` keys, by the other
        kind of run, or cannot be read; the message names the file.
    """
    if path is None or not path.is_file():
        return None
    checkpoint = Checkpoint.from_payload(torch.load(path, map_location="cpu", weights_only=False), path)
    if checkpoint.configs != configs:
        raise ValueError(f"checkpoint {path} was written with a different config")
    if (checkpoint.family is None) != (extra is not None):
        wrote = "train_family" if checkpoint.family is not None else "fit_checkpointed"
        raise ValueError(f"checkpoint {path} was written by {wrote}, another kind of run")
    if extra is not None and set(checkpoint.extra) != set(extra):
        raise ValueError(f"checkpoint {path} was written with a different config (extra {sorted(checkpoint.extra)})")
    if checkpoint.members is not None:
        group = checkpoint.family.group if checkpoint.family is not None else None
        for member, saved in zip(members(group), checkpoint.members):
            member.load_state_dict(saved)
        torch.set_rng_state(checkpoint.torch_rng)
        restore_cuda_rng_state({} if checkpoint.cuda_rng is None else {"cuda_rng": checkpoint.cuda_rng})
    for k, values in (checkpoint.extra or {}).items():
        extra[k][:] = values
    return checkpoint


def step_hook(save: Callable[[], None] | None, budget: Budget | None, every_s: float) -> Callable[..., None]:
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
    """The loop :func:`seqmi.train.loop.fit`, checkpointed in ``checkpoint_dir`` and resumed from it.

    The members' state dicts, torch's generator and ``extra`` are written atomically to
    ``checkpoint_dir/checkpoint.pt`` every ``every_s`` seconds (after a step if
    ``task.batches.replayable``, else after an epoch), before a stop for ``budget`` and at
    the end; if the file exists, the members and ``extra`` are restored from it first
    (:func:`seqmi.train.checkpoint.resume`). A run interrupted and resumed ends with the
    weights of one that ran through, bit for bit on CPU; a rerun of a finished one returns
    at once.

    Parameters
    ----------
    members : sequence of Member
        Freshly built (their checkpointed state replaces theirs).
    task : Task
    checkpoint_dir : path or None
        ``None``: :func:`seqmi.train.loop.fit` alone (still stopped by ``budget``).
    extra : dict of lists, optional
        What the task records beside the members (a PPO run's per-rollout numbers):
        saved with them, and each list's contents restored in place.
    budget : seqmi.sweep.Budget, optional
        Training stops with :class:`~seqmi.sweep.OutOfTime`, checkpoint saved, once it
        leaves no time for training (``current_budget()`` inside a sweep point).
    every_s : float
        Seconds between the checkpoints inside an epoch.
    device, amp, progress, desc
        As :func:`seqmi.train.loop.fit`.
    """
    check_float("every_s", every_s, 0.0)
    extra = {} if extra is None else extra
    path = checkpoint_path(checkpoint_dir)
    configs = [asdict(m.config) for m in members]
    resume(path, configs, lambda group: members, extra=extra)
    save = None
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)

        def save() -> None:
            Checkpoint.of(configs, members, extra=extra).save(path)

    hook = step_hook(save, budget, every_s)

    def epoch_end(records: list[tuple[Member, dict[str, Any]]]) -> None:
        hook(done=all(m.stopped is not None for m in members))

    fit(members, task, device=device, amp=amp, progress=progress, desc=desc, on_epoch_end=epoch_end,
        on_step=hook if task.batches.replayable else None)
