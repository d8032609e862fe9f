"""Training the self-attentive RNNs on the Copy and Denoise tasks (Kerg et al. 2020).

The networks, and the recall, attention and gradient measurements made on them, are in
:mod:`seqmi.models.attentive_rnn`; the tasks' data in :mod:`seqmi.data.copy_tasks`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from seqmi.device import DeviceLike, resolve_device
from seqmi.models.attentive_rnn import TaskModel, recall_accuracy
from seqmi.rng import child_seed
from seqmi.sweep import Budget
from seqmi.train import Batches, Member, Task, TrainConfig, TrainResult, fit_checkpointed, member_result
from seqmi.validate import check_int

# held-out sequences every run is scored on (its recall is what a chapter reports)
EVAL_BATCH = 200


def train_task_model(model: TaskModel, sample: Callable[[int, int], tuple[NDArray[Any], NDArray[Any]]],
                     steps: int, batch: int, lr: float, seed: int, device: DeviceLike,
                     clip: float = 1.0, n_recall: int = 10, eval_batch: int = EVAL_BATCH,
                     eval_every: int | None = None, target: float | None = None,
                     desc: str = "", checkpoint_dir: str | os.PathLike | None = None,
                     budget: Budget | None = None) -> TrainResult:
    """Train ``model`` with Adam on fresh batches ``sample(batch, seed_i)``, cross-entropy on
    every step, gradient-norm clipping ``clip``; report recall accuracy on a held-out batch.

    A configuration of :func:`seqmi.train.fit`: one epoch of ``steps`` fresh batches, the
    recall accuracy as the evaluation metric (maximised), the last weights kept.

    Parameters
    ----------
    model : TaskModel
        Trained in place.
    sample : callable
        ``sample(n, seed) -> (tokens, targets)``, integer arrays of shape ``(n, L)``.
    steps, batch : int
        Largest number of updates and their batch size.
    lr : float
        Adam learning rate.
    seed : int
        Seeds torch and the batch stream: batch ``i`` is drawn with
        ``child_seed(seed, "batch", i)``, the held-out batch with ``child_seed(seed, "eval")``
        (:func:`seqmi.rng.child_seed`).
    device : str or torch.device
        ``"auto" | "cpu" | "cuda" | torch.device``.
    eval_every : int, optional
        Evaluate the held-out recall accuracy every ``eval_every`` updates.
    target : float, optional
        With ``eval_every``: stop as soon as an evaluation reaches this accuracy.
    desc : str
        The progress bar's label.
    checkpoint_dir : path, optional
        The run is checkpointed there (:func:`seqmi.train.fit_checkpointed`: every minute,
        and at the end) and resumed from it: an interrupted run ends as one that ran
        through, bit for bit on CPU.
    budget : seqmi.sweep.Budget, optional
        Stops training, checkpoint saved, with :class:`~seqmi.sweep.OutOfTime` once it
        leaves no time for training.

    Returns
    -------
    TrainResult
        ``step_losses``: the loss of every update made; ``final_metric``: the recall
        accuracy after the last update; ``seconds_per_step``: wall time per update
        (evaluations excluded); ``eval_steps``, ``eval_metric``: the periodic
        evaluations; ``steps_to_target``: the first evaluated update count at which the
        accuracy reached ``target``.
    """
    check_int("steps", steps, 1)
    if eval_every is not None:
        check_int("eval_every", eval_every, 1)
    device = resolve_device(device)
    torch.manual_seed(seed)
    model.to(device)
    config = TrainConfig(optimizer="adam", lr=lr, clip=clip, batch_size=batch, max_epochs=1, patience=None,
                         restarts=1, seed=seed, eval_every=eval_every or 0,
                         target=target if eval_every is not None else None)
    ev_tok, ev_tgt = (torch.as_tensor(a, device=device) for a in sample(eval_batch, child_seed(seed, "eval")))

    def epoch(rng: np.random.Generator, step: int) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
        for i in range(step, steps):
            yield tuple(torch.as_tensor(a, device=device) for a in sample(batch, child_seed(seed, "batch", i)))

    lossf = nn.CrossEntropyLoss()

    def loss(model: nn.Module, batch: tuple[torch.Tensor, torch.Tensor]) -> tuple[torch.Tensor, int]:
        tok, tgt = batch
        logits, _ = model(tok)
        return lossf(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1)), tgt.numel()

    # without eval_every the accuracy is measured once, after the last update
    evaluate = (lambda m: recall_accuracy(m, ev_tok, ev_tgt, n_recall)) if eval_every is not None else None
    # each batch drawn from its step alone: a checkpoint resumes without replay
    task = Task(Batches(steps, epoch, fresh=True), loss, evaluate, metric="accuracy", mode="max", keep_best=False)
    member = Member(model, config, np.random.default_rng(seed), task)
    start = time.perf_counter()
    fit_checkpointed([member], task, checkpoint_dir, budget=budget, device=device, desc=desc)
    final = (member.eval_metric[-1] if member.eval_steps and member.eval_steps[-1] == member.step
             else recall_accuracy(model, ev_tok, ev_tgt, n_recall))
    return member_result(member, device=device, wall_s=time.perf_counter() - start, final_metric=final)


def fresh_recall(model: TaskModel, sample: Callable[[int, int], tuple[NDArray[Any], NDArray[Any]]], seed: int,
                 n: int, device: DeviceLike, n_recall: int = 10) -> float:
    """Recall accuracy of a trained model on a held-out batch that no stopping rule has seen.

    :func:`train_task_model` stops a run on the batch it draws under
    ``child_seed(seed, "eval")``, so the accuracy it reports is the first to cross its
    target on that batch. This batch is drawn under ``child_seed(seed, "fresh")``, a stream
    of its own: its accuracy is an unbiased estimate of the trained model's recall.

    Parameters
    ----------
    model : TaskModel
        The trained model (not changed).
    sample : callable
        ``sample(n, seed) -> (tokens, targets)``, as :func:`train_task_model` takes it.
    seed : int
        The ``seed`` the model was trained with.
    n : int
        Sequences in the batch.
    device : str or torch.device
    n_recall : int
        Recalled symbols per sequence.

    Returns
    -------
    float
        The fraction of the ``n * n_recall`` recalled symbols predicted exactly.
    """
    check_int("n", n, 1)
    device = resolve_device(device)
    tokens, targets = (torch.as_tensor(a, device=device) for a in sample(n, child_seed(seed, "fresh")))
    return recall_accuracy(model, tokens, targets, n_recall)
