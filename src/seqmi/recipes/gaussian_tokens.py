"""Training and scoring sequence models of continuous tokens (L2M Fig. 4).

The models (:class:`~seqmi.models.gaussian_lm.GaussianSequenceModel`) predict a Gaussian
for each token of a sub-volume Gaussian sequence; they are trained on the KL to the true
conditionals (:func:`train_gaussian`) and scored by it position by position
(:func:`evaluate_kl`).

Two samplers draw the batches (``sampler``):

* ``"numpy"``: :meth:`~seqmi.data.subvolume.SubvolumeGaussian.sample` on the CPU (the
  layer maps for reading (b), a dense factor for reading (a)), then a float64 triangular
  solve on the model's device for the conditionals. The default: the batches of every
  point recorded before the second sampler existed, which callers whose cache keys do not
  name a sampler (the exact-bound sweep of chapter 04) keep drawing.
* ``"device-cholesky"``: :meth:`~seqmi.data.subvolume.SubvolumeGaussian.sample_with_conditionals`
  on the model's device, one matrix product with the cached Cholesky factor, the
  conditionals without a solve.

On a GPU node the numpy sampler took 12-20 ms per batch of the full profile (16 sequences
of 64 copies) at ``L = 256`` and 60-90 ms at ``L = 1024``, while an H200 trained the
Transformer in 5.3 ms per step and the Mamba in 22 ms at 1024: the GPU waited for its data.
The device sampler is estimated at 0.12 ms per batch on an H200 at ``L = 1024`` (2.3% and
0.6% of those steps); on one CPU core it took 13 and 139 ms per batch against the numpy
sampler's 29 and 295 ms (``benchmarks/bench_gaussian_sampler.py``).

Either way each batch is drawn from the numpy generator's state when it is taken (the
device sampler draws one integer seed from it per batch), so a checkpointed run resumes
without replaying the batches it trained on, bit for bit on one device.
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
from seqmi.validate import check_choice, check_int

SAMPLERS = ("numpy", "device-cholesky")


def _conditional_targets(dist: SubvolumeGaussian, batch: int, rng: np.random.Generator, device: torch.device,
                         sampler: str = "numpy") -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """One batch ``(z, mu_p, sigma_p)``, float32 on ``device``, drawn from ``rng``'s state now."""
    if sampler == "numpy":
        z = torch.as_tensor(dist.sample(batch, rng), device=device)
        mu_p, sigma_p = dist.conditionals(z)
    else:
        # one integer per batch: the batch depends on the generator's state when it is taken
        z, mu_p, sigma_p = dist.sample_with_conditionals(batch, int(rng.integers(2 ** 63)), device)
    return z.float(), mu_p.float(), sigma_p.float()


def train_gaussian(model: GaussianSequenceModel, dist: SubvolumeGaussian, steps: int, batch: int = 4,
                   lr: float = 1e-3, warmup: int = 50, weight_decay: float = 0.01,
                   device: DeviceLike = "cpu", seed: int = 0, progress: bool = True,
                   checkpoint_dir: str | os.PathLike | None = None,
                   budget: Budget | None = None, sampler: str = "numpy") -> NDArray[np.float64]:
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
    sampler : {"numpy", "device-cholesky"}
        How the batches are drawn (module docstring); the default keeps the draws of the
        points recorded before the device sampler existed.

    Returns
    -------
    ndarray, shape (steps,)
        The loss (mean KL, nats) of every step.
    """
    check_int("steps", steps, 1)
    check_int("batch", batch, 1)
    check_int("warmup", warmup, 0)
    check_choice("sampler", sampler, SAMPLERS)
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
            yield _conditional_targets(dist, batch, rng, device, sampler)

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
                device: DeviceLike = "cpu", seed: int = 1, sampler: str = "numpy") -> NDArray[np.float64]:
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
    sampler : {"numpy", "device-cholesky"}
        How they are drawn (module docstring).

    Returns
    -------
    ndarray, shape (L,)
    """
    check_int("n_eval", n_eval, 1)
    check_int("batch", batch, 1)
    check_choice("sampler", sampler, SAMPLERS)
    device = resolve_device(device)
    model.to(device).eval()
    rng = np.random.default_rng(seed)
    total = torch.zeros(dist.length, dtype=torch.float64, device=device)
    done = 0
    while done < n_eval:
        m = min(batch, n_eval - done)
        z, mu_p, sigma_p = _conditional_targets(dist, m, rng, device, sampler)
        mu_q, sigma_q = model(z)
        total += gaussian_kl(mu_p.double(), sigma_p.double(), mu_q.double(), sigma_q.double()).mean(-1).sum(0)
        done += m
    model.train()
    return (total / n_eval).cpu().numpy()
