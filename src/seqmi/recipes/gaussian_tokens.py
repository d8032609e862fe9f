"""Training and scoring sequence models of continuous tokens (L2M Fig. 4).

The models (:class:`~seqmi.models.gaussian_lm.GaussianSequenceModel`) predict a Gaussian
for each token of a sub-volume Gaussian sequence; they are trained on the KL to the true
conditionals (:func:`train_gaussian`) and scored by it position by position
(:func:`evaluate_kl`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from seqmi.data.subvolume import SubvolumeGaussian
from seqmi.device import DeviceLike, resolve_device
from seqmi.models.gaussian_lm import GaussianSequenceModel, gaussian_kl
from seqmi.sweep import Budget
from seqmi.train import Batches, Member, Task, TrainConfig, fit_checkpointed
from seqmi.validate import check_int


def _conditional_targets(dist: SubvolumeGaussian, batch: int, rng: np.random.Generator,
                         device: torch.device) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    z = torch.as_tensor(dist.sample(batch, rng), device=device)
    mu_p, sigma_p = dist.conditionals(z)
    return z.float(), mu_p.float(), sigma_p.float()


def train_gaussian(model: GaussianSequenceModel, dist: SubvolumeGaussian, steps: int, batch: int = 4,
                   lr: float = 1e-3, warmup: int = 50, weight_decay: float = 0.01,
                   device: DeviceLike = "cpu", seed: int = 0, progress: bool = True,
                   checkpoint_dir: str | os.PathLike | None = None,
                   budget: Budget | None = None) -> NDArray[np.float64]:
    """Train on the exact average conditional KL with fresh samples every step.

    AdamW with linear warm-up and cosine decay to zero (the paper's recipe, scaled down),
    gradient norm clipped at 1: a configuration of :func:`seqmi.train.fit` with one epoch
    of ``steps`` fresh batches.

    Parameters
    ----------
    model : GaussianSequenceModel
        Trained in place.
    dist : SubvolumeGaussian
        Its ``copies`` must equal the model's ``token_dim``.
    steps, batch, warmup : int
    lr, weight_decay : float
    device : str or torch.device
        ``"auto" | "cpu" | "cuda" | torch.device``.
    seed : int
        Seeds the samples (and nothing else: initialise the model under your own seed).
    progress : bool
        Show a tqdm bar.
    checkpoint_dir : path, optional
        The run is checkpointed there (:func:`seqmi.train.fit_checkpointed`: every minute,
        and at the end) and resumed from it: an interrupted run ends as one that ran
        through, bit for bit on CPU.
    budget : seqmi.sweep.Budget, optional
        Stops training, checkpoint saved, with :class:`~seqmi.sweep.OutOfTime` once it
        leaves no time for training.

    Returns
    -------
    ndarray, shape (steps,)
        The loss (mean KL, nats) of every step.
    """
    check_int("steps", steps, 1)
    check_int("batch", batch, 1)
    check_int("warmup", warmup, 0)
    if dist.copies != model.token_dim:
        raise ValueError(f"dist.copies={dist.copies} must equal model.token_dim={model.token_dim}")
    device = resolve_device(device)
    model.to(device).train()
    config = TrainConfig(optimizer="adamw", lr=lr, weight_decay=weight_decay, clip=1.0, batch_size=batch,
                         max_epochs=1, patience=None, restarts=1, seed=seed)

    def schedule(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        return 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, steps - warmup)))

    def epoch(rng: np.random.Generator, step: int) -> Iterator[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
        for _ in range(steps):
            yield _conditional_targets(dist, batch, rng, device)

    def loss(model: nn.Module, targets: tuple[torch.Tensor, torch.Tensor, torch.Tensor]) -> tuple[torch.Tensor, int]:
        z, mu_p, sigma_p = targets
        mu_q, sigma_q = model(z)
        return gaussian_kl(mu_p, sigma_p, mu_q, sigma_q).mean(), 1

    # each batch drawn from the generator as it is taken: a checkpoint resumes without replay
    task = Task(Batches(steps, epoch, fresh=True), loss, schedule=schedule)
    member = Member(model, config, np.random.default_rng(seed), task)
    fit_checkpointed([member], task, checkpoint_dir, budget=budget, device=device, progress=progress,
                     desc=f"{model.backbone_name} L={dist.length}")
    return np.asarray(member.step_losses, dtype=np.float64)


@torch.no_grad()
def evaluate_kl(model: GaussianSequenceModel, dist: SubvolumeGaussian, n_eval: int, batch: int = 4,
                device: DeviceLike = "cpu", seed: int = 1) -> NDArray[np.float64]:
    """Position-wise conditional KL ``D_i`` (nats, mean over coordinates) on fresh samples.

    Parameters
    ----------
    model : GaussianSequenceModel
    dist : SubvolumeGaussian
    n_eval, batch : int
        Number of evaluation sequences, and how many at a time.
    device : str or torch.device
        ``"auto" | "cpu" | "cuda" | torch.device``.
    seed : int
        Seeds the evaluation samples.

    Returns
    -------
    ndarray, shape (L,)
    """
    check_int("n_eval", n_eval, 1)
    check_int("batch", batch, 1)
    device = resolve_device(device)
    model.to(device).eval()
    rng = np.random.default_rng(seed)
    total = torch.zeros(dist.length, dtype=torch.float64, device=device)
    done = 0
    while done < n_eval:
        m = min(batch, n_eval - done)
        z, mu_p, sigma_p = _conditional_targets(dist, m, rng, device)
        mu_q, sigma_q = model(z)
        total += gaussian_kl(mu_p.double(), sigma_p.double(), mu_q.double(), sigma_q.double()).mean(-1).sum(0)
        done += m
    model.train()
    return (total / n_eval).cpu().numpy()
