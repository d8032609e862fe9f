"""Sweep points of chapter 06: the trained task models of Kerg et al. 2020 (Tables 4 and 5, Figs. 3 and 4).

Seven sweeps, each point a model trained (by
:func:`seqmi.recipes.copy_tasks.train_task_model`, or by PPO for the agents) and measured:

- :func:`grid_point`: Table 5's grid, one (task, T, model kind, replicate) per point;
- :func:`transfer_point`: one model kind trained on Copy at a short delay, then tested at
  longer ones (length transfer), RelRNN optionally fine-tuned at a long delay;
- :func:`profile_point`: RelRNN trained on Denoise with one (nu, rho) and replicate, then
  its gradient-norm profile averaged over held-out batches (Fig. 3);
- :func:`denoise_point`: RelRNN alone on Denoise from scratch with the authors' recipe and
  budget (Table 5's Denoise column);
- :func:`minigrid_point`: an LSTM, MemLSTM or RelLSTM agent trained by PPO on a MiniGrid
  memory task, then tested there and on larger ones (Table 4);
- :func:`rl_transfer_point`: an agent trained by PPO on a small DoorKey or RedBlueDoors
  room and tested on the large one (Table 4's other rows);
- :func:`rellstm_point`: RelLSTM trained on Copy at a short delay, then tested at a long
  one (Table 5's RelLSTM column). Fig. 4's Denoise run at a longer delay is a
  :func:`denoise_point` with its own settings.

Every random stream is a :func:`~seqmi.rng.child_seed` of the chapter's seed named after
what it draws. A model's initialisation is its own stream; the training batches (and the
held-out batch that :func:`~seqmi.recipes.copy_tasks.train_task_model` derives from the
same seed) are shared by the models compared at one setting, so that they differ by
their architecture and initialisation, not by their data.
"""

from __future__ import annotations

from seqmi._optional import require

require("torch")  # a missing torch fails naming its extra

import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from seqmi.data.copy_tasks import copy_task, denoise_task
from seqmi.device import DeviceLike, check_device, resolve_device
from seqmi.experiments.ch06_records import FRESH_BATCH, RL_PAIRS
from seqmi.models.attentive_rnn import TaskModel, hidden_gradient_profile, recall_attention_mass, transfer_accuracy
from seqmi.models.agent import Agent
from seqmi.models.memory_lstm import KINDS as MEMORY_KINDS, MemoryLSTM
from seqmi.recipes.copy_tasks import fresh_recall, train_task_model
from seqmi.recipes.ppo import PPOConfig, evaluate_agent, make_env, train_ppo
from seqmi.rng import child_seed
from seqmi.sweep import current_budget, unkeyed
from seqmi.validate import check_choice, check_float, check_int, check_int_list, check_kinds, check_type

#: The task generators, by name.
TASKS: dict[str, Callable[..., tuple[NDArray[np.int64], NDArray[np.int64]]]] = {
    "copy": copy_task, "denoise": denoise_task}
#: RelRNN's short-term buffer per task (the authors' defaults).
TASK_NU = {"copy": 10, "denoise": 15}
#: RelRNN's relevant-set size (the authors' default).
RHO = 15
#: Input tokens (blank, 8 labels, delimiter) and output classes (blank, 8 labels) of both tasks.
N_IN, N_OUT = 10, 9
#: The attentive kinds, whose attention on the symbol states can be read.
ATTENTIVE = ("relrnn", "full")
#: Recall accuracy at which a run on Copy stops (Table 5 reports 100%).
TARGET = 0.99


def _sampler(task: str, T: int) -> Callable[[int, int], tuple[NDArray[np.int64], NDArray[np.int64]]]:
    """``sample(n, seed)`` of ``task`` at delay ``T``, as :func:`train_task_model` takes it."""
    fn = TASKS[task]

    def sample(n: int, seed: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        return fn(n, T, seed)

    return sample


def _model(kind: str, hidden: int, nu: int, rho: int, init_seed: int) -> TaskModel:
    """A fresh :class:`TaskModel` whose weights are drawn under ``init_seed``."""
    torch.manual_seed(init_seed)
    return TaskModel(kind, N_IN, N_OUT, hidden, nu=nu, rho=rho)


# ---------------------------------------------------------------- Table 5's grid


@dataclass(frozen=True)
class ExactSettings:
    """What the chapter's exact sections read: the decomposition check, the decay curves, the patterns.

    Attributes
    ----------
    hidden_check, length_check, n_check : int
        Width (at most 32) and sequence length (4 to 64) of the random networks of the
        decomposition check, and networks per attention kind and nonlinearity.
    horizon, fit_from : int
        Largest ``T`` of the exact uniform-attention decay curves, and the smallest
        ``T`` of the exponent fits (at most ``horizon / 2``).
    horizon_autograd : int
        ``T`` of the autograd cross-check of the decay curves.
    horizon_sparse : int
        Largest ``T`` of the sparse-attention curves.
    pattern_kappas : list of int
        ``kappa`` of the random and sliding-window patterns (2 to 64).
    n_patterns, pattern_horizon : int
        Random ``kappa``-sparse patterns per ``kappa``, and their steps.
    chi_k_max : int
        Largest ``k`` of the Lemma 10-12 checks.
    seed : int
        The chapter's seed.
    """

    hidden_check: int
    length_check: int
    n_check: int
    horizon: int
    fit_from: int
    horizon_autograd: int
    horizon_sparse: int
    pattern_kappas: Sequence[int]
    n_patterns: int
    pattern_horizon: int
    chi_k_max: int
    seed: int = 0

    def __post_init__(self) -> None:
        check_int("hidden_check", self.hidden_check, 1, 32)
        check_int("length_check", self.length_check, 4, 64)
        check_int("n_check", self.n_check, 1, 100)
        check_int("horizon", self.horizon, 100, 10**7)
        check_int("fit_from", self.fit_from, 10, self.horizon // 2)
        check_int("horizon_autograd", self.horizon_autograd, 20, 2000)
        check_int("horizon_sparse", self.horizon_sparse, 200, 10**6)
        check_int_list("pattern_kappas", self.pattern_kappas, 2, 64)
        check_int("n_patterns", self.n_patterns, 1, 10**4)
        check_int("pattern_horizon", self.pattern_horizon, 200, 10**6)
        check_int("chi_k_max", self.chi_k_max, 100, 10**6)
        check_int("seed", self.seed, 0)


@dataclass(frozen=True)
class GridSettings:
    """What every point of the Table 5 grid shares.

    Attributes
    ----------
    hidden : int
        Width of the models.
    steps, batch : int
        Training updates and sequences per update.
    lr : float
        Adam learning rate.
    seed : int
        The chapter's seed; every stream is a :func:`~seqmi.rng.child_seed` of it.
    device : str or torch.device
        Resolved where a point is computed (``"auto"``: the worker's GPU if it has one);
        not part of the cache keys.
    """

    hidden: int
    steps: int
    batch: int
    lr: float
    seed: int
    device: DeviceLike = unkeyed("cpu")

    def __post_init__(self) -> None:
        check_int("hidden", self.hidden, 2)
        check_int("steps", self.steps, 1)
        check_int("batch", self.batch, 1)
        check_float("lr", self.lr, 0.0, 1.0, low_open=True, high_open=True)
        check_int("seed", self.seed, 0)
        check_device(self.device)


def grid_points(task_lengths: Sequence[int], task_replicates: int) -> list[tuple[str, int, str, int]]:
    """Table 5's grid: ``(task, T, kind, replicate)`` for Copy and Denoise, every length and model kind."""
    check_int_list("task_lengths", task_lengths, 10)
    check_int("task_replicates", task_replicates, 1, 100)
    return list(itertools.product(("copy", "denoise"), task_lengths, TaskModel.KINDS, range(task_replicates)))


def grid_point(point: tuple[str, int, str, int], checkpoint_dir: str | None,
               settings: GridSettings) -> dict[str, Any]:
    """Train one model of Table 5's grid for ``settings.steps`` updates.

    Parameters
    ----------
    point : (task, T, kind, replicate)
        ``task`` in :data:`TASKS`, delay ``T``, ``kind`` in ``TaskModel.KINDS``;
        ``replicate`` numbers independent runs (initialisation and batches) of one model.
        The four kinds of one (task, T, replicate) see the same batches.
    checkpoint_dir : str or None
        Unused: a point takes seconds to minutes and is recomputed if interrupted.
    settings : GridSettings

    Returns
    -------
    dict
        ``accuracy`` (held-out recall accuracy after the last update), ``step_losses``
        (list), ``final_loss`` (mean of the last 5 updates), ``seconds_per_step``, ``device``
        (where it ran).
    """
    task, T, kind, rep = point
    model = _model(kind, settings.hidden, TASK_NU[task], RHO,
                   child_seed(settings.seed, "table5", "init", task, T, kind, rep))
    run = train_task_model(model, _sampler(task, T), settings.steps, settings.batch, settings.lr,
                           child_seed(settings.seed, "table5", "batches", task, T, rep), settings.device,
                           desc=f"{task} T={T} {kind}")
    return {"accuracy": float(run.final_metric), "step_losses": run.step_losses.tolist(),
            "final_loss": float(run.step_losses[-5:].mean()), "seconds_per_step": float(run.seconds_per_step),
            "device": run.device}


def pool_replicates(records: list[dict[str, Any]]) -> dict[str, Any]:
    """One model's replicates (records of :func:`grid_point`) pooled into one record.

    ``accuracy``, ``final_loss`` and ``seconds_per_step`` become means over the
    replicates, ``step_losses`` the mean curve (every replicate makes the same number of
    updates); ``accuracy_replicates`` keeps each accuracy.
    """
    if not records:
        raise ValueError("pool_replicates needs at least one record")
    return {"accuracy": float(np.mean([r["accuracy"] for r in records])),
            "step_losses": np.mean([r["step_losses"] for r in records], axis=0).tolist(),
            "final_loss": float(np.mean([r["final_loss"] for r in records])),
            "seconds_per_step": float(np.mean([r["seconds_per_step"] for r in records])),
            "accuracy_replicates": [r["accuracy"] for r in records]}


# ---------------------------------------------------------------- length transfer


@dataclass(frozen=True)
class TransferSettings:
    """What every point of the length-transfer sweep shares.

    Attributes
    ----------
    hidden : int
        Width of the models.
    copy_length : int
        Delay ``T`` of the Copy task the models are trained on.
    copy_steps, eval_every, batch : int
        Most updates (a run stops once held-out recall reaches :data:`TARGET`), updates
        between held-out evaluations, sequences per update.
    lr : float
        Adam learning rate.
    transfer_lengths : tuple of int
        Delays at which the trained models are tested.
    transfer_batch : int
        Held-out sequences per tested delay.
    long_length, long_steps : int
        RelRNN is fine-tuned for ``long_steps`` updates at delay ``long_length`` after
        the test (0: not at all).
    long_lr : float
        Adam learning rate of that fine-tuning.
    seed : int
        The chapter's seed; every stream is a :func:`~seqmi.rng.child_seed` of it.
    fresh_batch : int
        Sequences of the fresh held-out batch each model is scored on at ``copy_length``
        after its run stops (:func:`~seqmi.recipes.copy_tasks.fresh_recall`): the batch
        the run stopped on chose the reported update, this one did not.
    device : str or torch.device
        Resolved where a point is computed (``"auto"``: the worker's GPU if it has one);
        not part of the cache keys.
    """

    hidden: int
    copy_length: int
    copy_steps: int
    eval_every: int
    batch: int
    lr: float
    transfer_lengths: tuple[int, ...]
    transfer_batch: int
    long_length: int
    long_steps: int
    long_lr: float
    seed: int
    fresh_batch: int = FRESH_BATCH
    device: DeviceLike = unkeyed("cpu")

    def __post_init__(self) -> None:
        check_int("hidden", self.hidden, 2)
        check_int("copy_length", self.copy_length, 1)
        check_int("copy_steps", self.copy_steps, 1)
        check_int("eval_every", self.eval_every, 1, self.copy_steps)
        check_int("batch", self.batch, 1)
        check_float("lr", self.lr, 0.0, 1.0, low_open=True, high_open=True)
        check_type("transfer_lengths", self.transfer_lengths, tuple)
        check_int_list("transfer_lengths", list(self.transfer_lengths), 1)
        check_int("transfer_batch", self.transfer_batch, 1)
        check_choice("long_length", self.long_length, self.transfer_lengths)
        check_int("long_steps", self.long_steps, 0)
        check_float("long_lr", self.long_lr, 0.0, 1.0, low_open=True, high_open=True)
        check_int("seed", self.seed, 0)
        check_int("fresh_batch", self.fresh_batch, 1)
        check_device(self.device)


def transfer_point(kind: str, checkpoint_dir: str | None, settings: TransferSettings) -> dict[str, Any]:
    """Train ``kind`` on Copy at ``copy_length``, then test it, frozen, at every transfer length.

    Every kind is trained on the same batches and tested on the same held-out sequences
    (one seed for every delay); the attention on the symbol states is read on the first
    of them. RelRNN is then fine-tuned at ``long_length`` when ``long_steps > 0``.

    Parameters
    ----------
    kind : str
        In ``TaskModel.KINDS`` (RelRNN with ``nu = 10``, ``rho = 15``).
    checkpoint_dir : str or None
        Unused: a point takes minutes at most and is recomputed if interrupted.
    settings : TransferSettings

    Returns
    -------
    dict
        The Copy run: ``updates``, ``steps_to_99`` (None if :data:`TARGET` was not
        reached), ``accuracy``, ``seconds_per_update``, ``step_losses``, ``eval_steps``,
        ``eval_accuracy`` (on the batch the run stopped on); ``fresh``: ``accuracy`` and
        ``sequences`` of the fresh held-out batch at ``copy_length``, which no stopping rule
        saw; the test: ``transfer`` (``{str(T): accuracy}``),
        ``symbol_attention_mass`` (``{str(T): mass}``, attentive kinds only, else None);
        ``long_run`` (RelRNN with ``long_steps > 0`` only, else None): ``accuracy``,
        ``seconds_per_update``, ``eval_accuracy``; ``device`` (where it ran).
    """
    dev = resolve_device(settings.device)
    model = _model(kind, settings.hidden, TASK_NU["copy"], RHO, child_seed(settings.seed, "transfer", "init", kind))
    batches = child_seed(settings.seed, "transfer", "batches")
    run = train_task_model(model, _sampler("copy", settings.copy_length), settings.copy_steps, settings.batch,
                           settings.lr, batches, dev, eval_every=settings.eval_every, target=TARGET,
                           desc=f"copy T={settings.copy_length} {kind}")
    fresh = {"accuracy": fresh_recall(model, _sampler("copy", settings.copy_length), batches, settings.fresh_batch,
                                      dev), "sequences": settings.fresh_batch}
    held_out = child_seed(settings.seed, "transfer", "held-out")
    lengths = list(settings.transfer_lengths)
    transfer = transfer_accuracy(model, copy_task, lengths, settings.transfer_batch, held_out, dev)
    mass = ({str(T): recall_attention_mass(model, copy_task(1, T, held_out)[0][0]) for T in lengths}
            if kind in ATTENTIVE else None)
    long_run = None
    if kind == "relrnn" and settings.long_steps:
        # a smaller rate than at copy_length: lr 1e-2 at T = 1000 threw the solution away within 60 updates
        long = train_task_model(model, _sampler("copy", settings.long_length), settings.long_steps, settings.batch,
                                settings.long_lr, child_seed(settings.seed, "transfer", "long", "batches"), dev,
                                eval_every=max(1, settings.long_steps // 5),
                                desc=f"copy T={settings.long_length} {kind}")
        long_run = {"accuracy": float(long.final_metric), "seconds_per_update": float(long.seconds_per_step),
                    "eval_accuracy": long.eval_metric.tolist()}
    return {"updates": len(run.step_losses), "steps_to_99": run.steps_to_target, "accuracy": float(run.final_metric),
            "seconds_per_update": float(run.seconds_per_step), "step_losses": run.step_losses.tolist(),
            "eval_steps": run.eval_steps.tolist(), "eval_accuracy": run.eval_metric.tolist(), "fresh": fresh,
            "transfer": {str(T): float(a) for T, a in transfer.items()}, "symbol_attention_mass": mass,
            "long_run": long_run, "device": str(dev)}


# ---------------------------------------------------------------- Denoise at the authors' budget


@dataclass(frozen=True)
class DenoiseSettings:
    """What a long RelRNN run on Denoise shares with its replicates.

    Attributes
    ----------
    hidden : int
        Width of the model (the authors': 128).
    length : int
        Delay ``T`` of the Denoise task.
    steps, eval_every, batch : int
        Most updates (the authors' budget: 200,000; a run stops once held-out recall
        reaches :data:`TARGET`), updates between held-out evaluations, sequences per update.
    lr : float
        Adam learning rate.
    seed : int
        The chapter's seed; every stream is a :func:`~seqmi.rng.child_seed` of it.
    fresh_batch : int
        Sequences of the fresh held-out batch the trained model is scored on
        (:func:`~seqmi.recipes.copy_tasks.fresh_recall`), which the stopping rule never saw.
    device : str or torch.device
        Resolved where a point is computed (``"auto"``: the worker's GPU if it has one);
        not part of the cache keys.
    """

    hidden: int
    length: int
    steps: int
    eval_every: int
    batch: int
    lr: float
    seed: int
    fresh_batch: int = FRESH_BATCH
    device: DeviceLike = unkeyed("cpu")

    def __post_init__(self) -> None:
        check_int("hidden", self.hidden, 2)
        check_int("length", self.length, 10)  # Denoise spreads its 10 symbols over T steps
        check_int("steps", self.steps, 1)
        check_int("eval_every", self.eval_every, 1, self.steps)
        check_int("batch", self.batch, 1)
        check_float("lr", self.lr, 0.0, 1.0, low_open=True, high_open=True)
        check_int("seed", self.seed, 0)
        check_int("fresh_batch", self.fresh_batch, 1)
        check_device(self.device)


def denoise_point(rep: int, checkpoint_dir: str | None, settings: DenoiseSettings) -> dict[str, Any]:
    """Train RelRNN on Denoise from scratch until it recalls :data:`TARGET` or the budget is spent.

    Parameters
    ----------
    rep : int
        Numbers independent runs (initialisation and batches).
    checkpoint_dir : str or None
        The run's checkpoint (every minute, and when the sweep's budget stops it): a
        rerun resumes from it and ends as if it had not stopped.
    settings : DenoiseSettings

    Returns
    -------
    dict
        ``updates``, ``steps_to_99`` (None if :data:`TARGET` was not reached),
        ``accuracy`` (held-out recall after the last update, on the batch the run stops
        on), ``fresh`` (``accuracy`` and ``sequences`` of a fresh held-out batch, which the
        stopping rule never saw), ``seconds_per_update``,
        ``eval_steps``, ``eval_accuracy`` and ``eval_loss`` (the mean training loss of the
        updates since the previous evaluation): the curves at every evaluation, not every
        update, so that a record of 200,000 updates stays small; ``device`` (where it ran).
    """
    model = _model("relrnn", settings.hidden, TASK_NU["denoise"], RHO,
                   child_seed(settings.seed, "denoise-long", "init", rep))
    batches = child_seed(settings.seed, "denoise-long", "batches", rep)
    sample = _sampler("denoise", settings.length)
    run = train_task_model(model, sample, settings.steps, settings.batch, settings.lr, batches, settings.device,
                           eval_every=settings.eval_every, target=TARGET, desc=f"denoise T={settings.length} relrnn",
                           checkpoint_dir=checkpoint_dir, budget=current_budget())
    bounds = [0, *run.eval_steps.tolist()]
    return {**_recall_run(run, model, sample, batches, settings.fresh_batch, settings.device),
            "eval_loss": [float(run.step_losses[a:b].mean()) for a, b in zip(bounds, bounds[1:])],
            "device": run.device}


def _recall_run(run: Any, model: nn.Module, sample: Callable[..., Any], batches: int, fresh_batch: int,
                device: DeviceLike) -> dict[str, Any]:
    """What a Copy or Denoise run stopped at :data:`TARGET` records: its updates and curves, and its
    recall on a fresh batch the stopping rule never saw (:func:`~seqmi.recipes.copy_tasks.fresh_recall`)."""
    return {"updates": len(run.step_losses), "steps_to_99": run.steps_to_target, "accuracy": float(run.final_metric),
            "fresh": {"accuracy": fresh_recall(model, sample, batches, fresh_batch, device),
                      "sequences": fresh_batch},
            "seconds_per_update": float(run.seconds_per_step), "eval_steps": run.eval_steps.tolist(),
            "eval_accuracy": run.eval_metric.tolist()}


# ---------------------------------------------------------------- Fig. 3's gradient profiles


@dataclass(frozen=True)
class ProfileSettings:
    """What every point of the gradient-profile sweep (Fig. 3) shares.

    Attributes
    ----------
    hidden : int
        Width of the models.
    length : int
        Delay ``T`` of the Denoise task.
    steps, batch : int
        Training updates and sequences per update.
    lr : float
        Adam learning rate.
    seed : int
        The chapter's seed; every stream is a :func:`~seqmi.rng.child_seed` of it.
    n_held_out : int
        Sequences per held-out batch (a batch's norms are their mean).
    held_out_batches : int
        Held-out batches a model's profile is averaged over: the symbols sit at other
        steps in every batch, so one batch's profile is noisy.
    device : str or torch.device
        Resolved where a point is computed (``"auto"``: the worker's GPU if it has one);
        not part of the cache keys.
    """

    hidden: int
    length: int
    steps: int
    batch: int
    lr: float
    seed: int
    n_held_out: int = 32
    held_out_batches: int = 32
    device: DeviceLike = unkeyed("cpu")

    def __post_init__(self) -> None:
        check_int("hidden", self.hidden, 2)
        check_int("length", self.length, 10)  # Denoise spreads its 10 symbols over T steps
        check_int("steps", self.steps, 1)
        check_int("batch", self.batch, 1)
        check_float("lr", self.lr, 0.0, 1.0, low_open=True, high_open=True)
        check_int("seed", self.seed, 0)
        check_int("n_held_out", self.n_held_out, 1)
        check_int("held_out_batches", self.held_out_batches, 1)
        check_device(self.device)


def held_out_profile(model: TaskModel, settings: ProfileSettings, device: DeviceLike) -> NDArray[np.float64]:
    """``||grad_{h_t} L||`` at every step, geometric mean over the held-out batches.

    Batch ``b`` holds ``settings.n_held_out`` Denoise sequences drawn under
    ``child_seed(settings.seed, "profile", "held-out", b)``, the same for every model, so
    that the settings are compared on the same sequences. The mean is taken of the
    ``log10`` norms, the scale on which Fig. 3 is read and its decay fitted.

    Parameters
    ----------
    model : TaskModel
        A trained RelRNN.
    settings : ProfileSettings
    device : str or torch.device

    Returns
    -------
    ndarray
        One norm per step, ``settings.length + 11`` of them (input, marker, recall).
    """
    logs = []
    for b in range(settings.held_out_batches):
        tokens, targets = denoise_task(settings.n_held_out, settings.length,
                                       child_seed(settings.seed, "profile", "held-out", b))
        logs.append(np.log10(hidden_gradient_profile(model, tokens, targets, device)))
    return 10 ** np.mean(logs, axis=0)


def profile_point(point: tuple[int, int, int], checkpoint_dir: str | None,
                  settings: ProfileSettings) -> dict[str, Any]:
    """Train RelRNN with ``(nu, rho)`` on Denoise, then measure ``||grad_{h_t} L||`` at every step.

    The settings of one replicate are trained on the same batches; every model is measured
    on the same held-out batches.

    Parameters
    ----------
    point : (nu, rho, replicate)
        Short-term buffer and relevant-set sizes; ``replicate`` numbers independent runs
        (initialisation and batches) of one setting.
    checkpoint_dir : str or None
        The training run's checkpoint (every minute, and when the sweep's budget stops
        it): a rerun resumes from it and ends as if it had not stopped.
    settings : ProfileSettings

    Returns
    -------
    dict
        ``profile`` (list, one norm per step, from :func:`held_out_profile`) and
        ``accuracy`` (held-out recall after the last update: whether the model left the
        Denoise plateau); ``device`` (where it ran).
    """
    nu, rho, rep = point
    dev = resolve_device(settings.device)
    model = _model("relrnn", settings.hidden, nu, rho, child_seed(settings.seed, "profile", "init", nu, rho, rep))
    run = train_task_model(model, _sampler("denoise", settings.length), settings.steps, settings.batch, settings.lr,
                           child_seed(settings.seed, "profile", "batches", rep), dev,
                           desc=f"nu={nu} rho={rho} run {rep}", checkpoint_dir=checkpoint_dir,
                           budget=current_budget())
    return {"profile": held_out_profile(model, settings, dev).tolist(), "accuracy": float(run.final_metric),
            "device": str(dev)}


# ---------------------------------------------------------------- Table 4's MiniGrid agents


@dataclass(frozen=True)
class MiniGridSettings:
    """What every agent of the MiniGrid sweep (Table 4) shares.

    Attributes
    ----------
    train_env : str
        The MiniGrid environment the agents are trained on.
    test_envs : tuple of str
        Larger environments the trained agents are tested on, unchanged.
    hidden : int
        Width of the view embedding and of the core.
    nu, rho : int
        RelLSTM's buffer and relevant-set sizes (the authors': 5, 5).
    ppo : PPOConfig
        The training run.
    eval_episodes : int
        Fresh episodes per tested environment.
    seed : int
        The chapter's seed; every stream is a :func:`~seqmi.rng.child_seed` of it.
    device : str or torch.device
        Resolved where a point is computed (``"auto"``: the worker's GPU if it has one);
        not part of the cache keys.
    """

    train_env: str
    test_envs: tuple[str, ...]
    hidden: int
    nu: int
    rho: int
    ppo: PPOConfig
    eval_episodes: int
    seed: int
    device: DeviceLike = unkeyed("cpu")

    def __post_init__(self) -> None:
        for env_id in (self.train_env, *check_type("test_envs", self.test_envs, tuple)):
            # the agents' views and the claims are those of the Memory tasks
            if not str(env_id).startswith("MiniGrid-MemoryS"):
                raise ValueError(f"the MiniGrid environments must be Memory tasks 'MiniGrid-MemoryS<size>-v0', "
                                 f"got {env_id!r}")
            make_env(env_id).close()
        check_int("hidden", self.hidden, 1)
        check_int("nu", self.nu, 1)
        check_int("rho", self.rho, 1)
        check_type("ppo", self.ppo, PPOConfig)
        check_int("eval_episodes", self.eval_episodes, 1)
        check_int("seed", self.seed, 0)
        check_device(self.device)


def minigrid_points(minigrid_kinds: Sequence[str], seeds: range) -> list[tuple[str, int]]:
    """Table 4's agents, ``(kind, seed)``, seed by seed; the kinds are memory cores, RelLSTM among them."""
    check_kinds("minigrid_kinds", minigrid_kinds, MEMORY_KINDS, "relevancy")
    return [(kind, rep) for rep in seeds for kind in minigrid_kinds]


def minigrid_point(point: tuple[str, int], checkpoint_dir: str | None, settings: MiniGridSettings) -> dict[str, Any]:
    """Train one agent by PPO on ``train_env``, then test it there and on every ``test_envs``.

    The agents of one replicate meet the same episode layouts in training (their actions,
    and so their episodes' lengths, differ), and every agent is tested on the same ones.

    Parameters
    ----------
    point : (kind, replicate)
        ``kind`` in :data:`seqmi.models.memory_lstm.KINDS`; ``replicate`` numbers
        independent runs (initialisation, layouts, action samples).
    checkpoint_dir : str or None
        The PPO run's checkpoint, between rollouts (every minute, and when the sweep's
        budget stops it): a rerun resumes from it and ends as if it had not stopped.
    settings : MiniGridSettings

    Returns
    -------
    dict
        The training curve, one value per rollout: ``success_curve``, ``return_curve``,
        ``env_steps``; ``busy_s`` (training compute); ``evaluation``: ``{env: record}`` of
        :func:`seqmi.recipes.ppo.evaluate_agent` for the training environment and each tested one;
        ``device`` (where it ran).
    """
    kind, rep = point
    torch.manual_seed(child_seed(settings.seed, "minigrid", "init", kind, rep))
    agent = Agent(kind, settings.hidden, settings.nu, settings.rho)
    run = train_ppo(agent, settings.train_env, settings.ppo, child_seed(settings.seed, "minigrid", "train", rep),
                    settings.device, desc=f"{kind} run {rep}", checkpoint_dir=checkpoint_dir,
                    budget=current_budget())
    evaluation = {env: evaluate_agent(agent, env, settings.eval_episodes,
                                      child_seed(settings.seed, "minigrid", "eval", env), settings.device)
                  for env in (settings.train_env, *settings.test_envs)}
    return {"success_curve": run.success, "return_curve": run.returns, "env_steps": run.env_steps,
            "busy_s": float(run.train.busy_s), "evaluation": evaluation, "device": run.train.device}


def compact_run(record: dict[str, Any], points: int = 120) -> dict[str, Any]:
    """A :func:`minigrid_point` record with its per-rollout curves averaged over at most ``points`` blocks.

    Each block's ``success_curve`` and ``return_curve`` are the means over its rollouts,
    its ``env_steps`` the steps taken by its last one; a run of ``points`` rollouts or
    fewer is returned as it is. The record's other fields are kept.
    """
    check_int("points", points, 1)
    n = len(record["env_steps"])
    if n <= points:
        return record
    bounds = np.linspace(0, n, points + 1).round().astype(int)
    blocks = list(zip(bounds[:-1], bounds[1:]))
    curves = {k: [float(np.mean(record[k][a:b])) for a, b in blocks] for k in ("success_curve", "return_curve")}
    return {**record, **curves, "env_steps": [int(record["env_steps"][b - 1]) for _, b in blocks]}


# ---------------------------------------------------------------- Table 4's DoorKey and RedBlueDoors agents


def _interact_env(base: str, **kwargs: Any) -> Any:
    """MiniGrid environment ``base`` whose forward action also picks up a key ahead and opens a closed door ahead.

    The agents choose among the three actions of :data:`seqmi.models.agent.ACTIONS` (turn
    left, turn right, forward); DoorKey and RedBlueDoors need pick up and toggle as well.
    Moving forward into a key or a closed door does nothing in MiniGrid, so forward takes
    their place there: with nothing carried and a key ahead it picks the key up, with a
    closed door ahead it toggles the door (a locked one opens only for the matching key,
    as MiniGrid decides). Every other step is MiniGrid's own, and each counts one step.
    """
    gym = require("gymnasium")
    env = gym.make(base, **kwargs)
    inner = env.unwrapped

    def act(action: int) -> int:
        if action != inner.actions.forward:
            return action
        ahead = inner.grid.get(*inner.front_pos)
        if ahead is not None and ahead.type == "key" and inner.carrying is None:
            return int(inner.actions.pickup)
        if ahead is not None and ahead.type == "door" and not ahead.is_open:
            return int(inner.actions.toggle)
        return action

    return gym.wrappers.TransformAction(env, act, env.action_space)


def interact_env(env_id: str) -> str:
    """The id of ``_interact_env`` of ``env_id``, registered with gymnasium on first use.

    ``"MiniGrid-DoorKey-5x5-v0"`` gives ``"MiniGrid-DoorKey-5x5-Interact-v0"``. Every
    process that makes the environment registers it (a sweep's worker calls this through
    :func:`rl_transfer_point`).

    Raises
    ------
    ValueError
        If ``env_id`` is not a registered MiniGrid environment ``MiniGrid-<name>-v0``.
    """
    make_env(env_id).close()  # checks the id, and imports minigrid
    if not env_id.endswith("-v0"):
        raise ValueError(f"env_id must be a MiniGrid environment 'MiniGrid-<name>-v0', got {env_id!r}")
    gym = require("gymnasium")
    wrapped = env_id[:-len("-v0")] + "-Interact-v0"
    if wrapped not in gym.registry:
        gym.register(wrapped, entry_point=_interact_env, kwargs={"base": env_id})
    return wrapped


@dataclass(frozen=True)
class RLTransferSettings:
    """What every agent of Table 4's transfer sweep (DoorKey, RedBlueDoors) shares.

    Attributes
    ----------
    hidden : int
        Width of the view embedding and of the core.
    nu, rho : int
        RelLSTM's buffer and relevant-set sizes (the authors': 5, 5).
    ppo : PPOConfig
        The training run on the small room.
    eval_episodes : int
        Fresh episodes per tested environment (the small room and the large one).
    seed : int
        The chapter's seed; every stream is a :func:`~seqmi.rng.child_seed` of it.
    full_eval_batch : int
        Episodes MemLSTM plays together in a test (the other kinds: 100). MemLSTM stacks
        its whole memory at every step, and the allocator keeps what the stacks took: 10
        episodes of DoorKey-16x16 (up to 2,560 steps) held 12 GB, 4 held 3 GB (measured).
    device : str or torch.device
        Resolved where a point is computed (``"auto"``: the worker's GPU if it has one);
        not part of the cache keys.
    """

    hidden: int
    nu: int
    rho: int
    ppo: PPOConfig
    eval_episodes: int
    seed: int
    full_eval_batch: int = 4
    device: DeviceLike = unkeyed("cpu")

    def __post_init__(self) -> None:
        check_int("hidden", self.hidden, 1)
        check_int("nu", self.nu, 1)
        check_int("rho", self.rho, 1)
        check_type("ppo", self.ppo, PPOConfig)
        check_int("eval_episodes", self.eval_episodes, 1)
        check_int("seed", self.seed, 0)
        check_int("full_eval_batch", self.full_eval_batch, 1)
        check_device(self.device)


def rl_transfer_points(pairs: Sequence[str], kinds: Sequence[str], seeds: range) -> list[tuple[str, str, int]]:
    """Table 4's transfer agents, ``(pair, kind, seed)``: every pair of :data:`seqmi.experiments.ch06_records.RL_PAIRS` named, seed by seed.

    The kinds are memory cores with RelLSTM (``"relevancy"``) among them.
    """
    if not isinstance(pairs, list) or not pairs:
        raise ValueError(f"rl_pairs must be a non-empty list of {list(RL_PAIRS)}, got {pairs!r}")
    for pair in pairs:
        check_choice("rl_pairs entry", pair, RL_PAIRS)
    check_kinds("rl_kinds", kinds, MEMORY_KINDS, "relevancy")
    return [(pair, kind, rep) for pair in pairs for rep in seeds for kind in kinds]


def rl_transfer_point(point: tuple[str, str, int], checkpoint_dir: str | None,
                      settings: RLTransferSettings) -> dict[str, Any]:
    """Train one agent by PPO on a pair's small room, then test it there and on the large one.

    Both rooms are played through :func:`interact_env` (forward picks up a key and opens a
    door ahead). The agents of one pair and replicate meet the same layouts in training,
    and every agent of a pair is tested on the same ones.

    Parameters
    ----------
    point : (pair, kind, replicate)
        ``pair`` in :data:`~seqmi.experiments.ch06_records.RL_PAIRS`, ``kind`` in
        :data:`seqmi.models.memory_lstm.KINDS`; ``replicate`` numbers independent runs
        (initialisation, layouts, action samples).
    checkpoint_dir : str or None
        The PPO run's checkpoint, between rollouts (every minute, and when the sweep's
        budget stops it): a rerun resumes from it and ends as if it had not stopped.
    settings : RLTransferSettings

    Returns
    -------
    dict
        As :func:`minigrid_point`'s, its curves averaged over at most 120 blocks of
        rollouts (:func:`compact_run`): ``success_curve``, ``return_curve``, ``env_steps``,
        ``busy_s``, ``evaluation`` (``{env: record}`` for the pair's two environments, by
        their MiniGrid ids), ``device``.
    """
    pair, kind, rep = point
    train_env, test_env = RL_PAIRS[check_choice("pair", pair, RL_PAIRS)]
    torch.manual_seed(child_seed(settings.seed, "rl-transfer", "init", pair, kind, rep))
    agent = Agent(kind, settings.hidden, settings.nu, settings.rho)
    run = train_ppo(agent, interact_env(train_env), settings.ppo,
                    child_seed(settings.seed, "rl-transfer", "train", pair, rep), settings.device,
                    desc=f"{pair} {kind} run {rep}", checkpoint_dir=checkpoint_dir, budget=current_budget())
    batch = settings.full_eval_batch if kind == "full" else 100
    evaluation = {env: evaluate_agent(agent, interact_env(env), settings.eval_episodes,
                                      child_seed(settings.seed, "rl-transfer", "eval", env), settings.device,
                                      batch=batch)
                  for env in (train_env, test_env)}
    return compact_run({"success_curve": run.success, "return_curve": run.returns, "env_steps": run.env_steps,
                        "busy_s": float(run.train.busy_s), "evaluation": evaluation, "device": run.train.device})


# ---------------------------------------------------------------- Table 5's RelLSTM column


class RelLSTMCopyModel(nn.Module):
    """RelLSTM as a sequence classifier: one-hot symbols -> relevancy-screening LSTM -> linear readout.

    The core is :class:`~seqmi.models.memory_lstm.MemoryLSTM` of kind ``"relevancy"`` (the
    authors' LSTM variant: the gates read ``[x_t, s_{t-1}]``, ``s_t = (h_t + c_t) / 2``),
    stepped over the sequence; the interface is :class:`~seqmi.models.attentive_rnn.TaskModel`'s, so that the Copy
    recipe trains and scores it alike.

    Parameters
    ----------
    n_in, n_out : int
        Input alphabet and number of output classes.
    hidden : int
        Width of the core.
    nu, rho : int
        Buffer and relevant-set sizes.
    """

    kind = "rellstm"

    def __init__(self, n_in: int, n_out: int, hidden: int, nu: int, rho: int) -> None:
        super().__init__()
        check_int("n_in", n_in, 2)
        check_int("n_out", n_out, 2)
        self.n_in = n_in
        self.core = MemoryLSTM(n_in, hidden, "relevancy", nu, rho)
        self.readout = nn.Linear(hidden, n_out)

    def forward(self, tokens: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """Logits ``(B, T, n_out)`` and the per-step outputs ``s_t`` (T tensors ``(B, hidden)``)."""
        x = nn.functional.one_hot(tokens, self.n_in).to(self.readout.weight.dtype)  # (B, T) -> (B, T, I)
        s, _ = self.core(x)  # (B, T, C)
        return self.readout(s), list(s.unbind(1))  # (B, T, O)


@dataclass(frozen=True)
class RelLSTMSettings:
    """What every RelLSTM of the Table 5 sweep shares: the length-transfer recipe of RelRNN's row.

    Attributes
    ----------
    hidden : int
        Width of the core.
    copy_length : int
        Delay ``T`` of the Copy task it is trained on.
    copy_steps, eval_every, batch : int
        Most updates (a run stops once held-out recall reaches :data:`TARGET`), updates
        between held-out evaluations, sequences per update.
    lr : float
        Adam learning rate.
    test_length : int
        The Table 5 delay it is tested at, frozen.
    test_batch : int
        Held-out sequences at ``test_length``, under the test's own seed.
    seed : int
        The chapter's seed; every stream is a :func:`~seqmi.rng.child_seed` of it.
    fresh_batch : int
        Sequences of the fresh batch it is scored on at ``copy_length`` after its run
        stops (:func:`~seqmi.recipes.copy_tasks.fresh_recall`).
    device : str or torch.device
        Resolved where a point is computed; not part of the cache keys.
    """

    hidden: int
    copy_length: int
    copy_steps: int
    eval_every: int
    batch: int
    lr: float
    test_length: int
    test_batch: int
    seed: int
    fresh_batch: int = FRESH_BATCH
    device: DeviceLike = unkeyed("cpu")

    def __post_init__(self) -> None:
        check_int("hidden", self.hidden, 2)
        check_int("copy_length", self.copy_length, 1)
        check_int("copy_steps", self.copy_steps, 1)
        check_int("eval_every", self.eval_every, 1, self.copy_steps)
        check_int("batch", self.batch, 1)
        check_float("lr", self.lr, 0.0, 1.0, low_open=True, high_open=True)
        check_int("test_length", self.test_length, 1)
        check_int("test_batch", self.test_batch, 1)
        check_int("seed", self.seed, 0)
        check_int("fresh_batch", self.fresh_batch, 1)
        check_device(self.device)


def rellstm_point(rep: int, checkpoint_dir: str | None, settings: RelLSTMSettings) -> dict[str, Any]:
    """Train RelLSTM on Copy at ``copy_length`` until it recalls :data:`TARGET`, then test it at ``test_length``.

    Parameters
    ----------
    rep : int
        Numbers independent runs (initialisation and batches).
    checkpoint_dir : str or None
        The run's checkpoint (every minute, and when the sweep's budget stops it).
    settings : RelLSTMSettings

    Returns
    -------
    dict
        ``updates``, ``steps_to_99`` (None if :data:`TARGET` was not reached),
        ``accuracy`` (on the batch the run stopped on), ``fresh`` (``accuracy`` and
        ``sequences`` at ``copy_length``, a batch no stopping rule saw),
        ``seconds_per_update``, ``eval_steps``, ``eval_accuracy``; ``test``
        (``{"length", "sequences", "accuracy", "seconds"}``: recall on fresh sequences at
        ``test_length``); ``device``.
    """
    dev = resolve_device(settings.device)
    torch.manual_seed(child_seed(settings.seed, "rellstm", "init", rep))
    model = RelLSTMCopyModel(N_IN, N_OUT, settings.hidden, TASK_NU["copy"], RHO)
    batches = child_seed(settings.seed, "rellstm", "batches", rep)
    sample = _sampler("copy", settings.copy_length)
    run = train_task_model(model, sample, settings.copy_steps, settings.batch, settings.lr, batches, dev,
                           eval_every=settings.eval_every, target=TARGET,
                           desc=f"copy T={settings.copy_length} rellstm run {rep}", checkpoint_dir=checkpoint_dir,
                           budget=current_budget())
    record = _recall_run(run, model, sample, batches, settings.fresh_batch, dev)
    start = time.perf_counter()
    tested = transfer_accuracy(model, copy_task, [settings.test_length], settings.test_batch,
                               child_seed(settings.seed, "rellstm", "held-out", rep), dev)
    test = {"length": settings.test_length, "sequences": settings.test_batch,
            "accuracy": float(tested[settings.test_length]), "seconds": time.perf_counter() - start}
    return {**record, "test": test, "device": str(dev)}
