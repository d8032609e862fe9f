"""Copy and Denoise with RelRNN and its kin: Table 5's grid, Denoise at the authors' budget, Fig. 3's profiles."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from seqmi.data.copy_tasks import copy_task, denoise_task
from seqmi.device import DeviceLike, resolve_device
from seqmi.experiments.ch06_attention_gradients._settings import DenoiseSettings, GridSettings, ProfileSettings
from seqmi.models.attentive_rnn import TaskModel, hidden_gradient_profile
from seqmi.recipes.copy_tasks import fresh_recall, train_task_model
from seqmi.rng import child_seed
from seqmi.sweep import current_budget
from seqmi.validate import check_int, check_int_list

# The constants below are documented where the package binds them (seqmi.experiments.ch06_attention_gradients),
# which is where the API reference reads their comments.
TASKS: dict[str, Callable[..., tuple[NDArray[np.int64], NDArray[np.int64]]]] = {
    "copy": copy_task, "denoise": denoise_task}
TASK_NU = {"copy": 10, "denoise": 15}
RHO = 15
N_IN, N_OUT = 10, 9
ATTENTIVE = ("relrnn", "full")
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


# ---------------------------------------------------------------- Denoise at the authors' budget


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
