"""Training and scoring sequence models of continuous tokens (L2M Fig. 4).

The models (:class:`~seqmi.models.gaussian_lm.GaussianSequenceModel`) predict a Gaussian
for each token of a sub-volume Gaussian sequence; they are trained on the KL to the true
conditionals (:func:`seqmi.recipes.gaussian_tokens.train_gaussian`, or several at once by
:func:`seqmi.recipes.gaussian_tokens.train_gaussian_family`) and scored by it position by
position (:func:`seqmi.recipes.gaussian_tokens.evaluate_kl`).

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

Several models (replicates of one model, each with its own initialisation and data seed)
train together in lockstep, as members of one :func:`seqmi.train.fit`
(:func:`seqmi.recipes.gaussian_tokens.train_gaussian_family`):

* On the CPU each computes its own forward pass, and ends bit for bit as if trained alone
  (tested): a step there is arithmetic, and stacking the members made it no faster (Fig.
  4's largest Transformer, width 128 at ``L = 1024``, one thread: 1.06, 0.89 and 0.70
  times the replicates per minute for 1, 3 and 8 members; ``benchmarks/bench_stacked.py``).
* On CUDA, two or more Transformers of one architecture compute their losses as one
  stacked computation (:class:`seqmi.family.StackedFamily` with
  :func:`seqmi.recipes.gaussian_tokens.kl_loss`). There a step waits on launching
  kernels, even at width 128 and ``L = 1024`` (5.3 ms on an H200, about what its
  operations cost to launch), and a stacked step launches the forward and backward pass
  once for all members: ``benchmarks/README.md`` estimates 1.1-1.3 times the replicates
  per GPU-hour for 3 members and 1.7-2.1 for 8 (not measured on a GPU). They agree with
  the models trained alone to float32 rounding, not bit for bit.
* Mambas keep their own forward pass on CUDA too: ``torch.func.vmap`` cannot batch
  ``mambapy``'s parallel scan, an ``autograd.Function`` without a ``setup_context``
  method (vmap raises, measured with torch 2.13; see :mod:`seqmi.family`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Sequence

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from seqmi.data.subvolume import SubvolumeGaussian
from seqmi.device import DeviceLike, resolve_device
from seqmi.family import StackedFamily, architecture
from seqmi.models.gaussian_lm import GaussianSequenceModel, gaussian_kl
from seqmi.sweep import Budget
from seqmi.train import Batches, Member, Task, TrainConfig, fit_checkpointed
from seqmi.validate import check_choice, check_int

SAMPLERS = ("numpy", "device-cholesky")
#: Backbones whose members train as one stacked computation on CUDA (module docstring).
STACKED_BACKBONES = ("transformer",)


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


def kl_loss(model: nn.Module, targets: tuple[torch.Tensor, torch.Tensor, torch.Tensor]) -> tuple[torch.Tensor, int]:
    """The training loss on one batch ``(z, mu_p, sigma_p)``: the mean conditional KL (nats), and the weight 1.

    A ``seqmi.train.Task.loss``, and the loss of the stacked family that trains several
    Transformers on CUDA (:class:`seqmi.family.StackedFamily`).
    """
    z, mu_p, sigma_p = targets
    mu_q, sigma_q = model(z)
    return gaussian_kl(mu_p, sigma_p, mu_q, sigma_q).mean(), 1


def _stacked(models: Sequence[GaussianSequenceModel], device: torch.device) -> bool:
    """Whether ``models`` compute their losses as one stacked computation: on CUDA, two or more
    models of one architecture with a backbone of ``STACKED_BACKBONES``."""
    return (device.type == "cuda" and len(models) >= 2
            and all(m.backbone_name in STACKED_BACKBONES for m in models)
            and len({architecture(m) for m in models}) == 1)


def train_gaussian_family(models: Sequence[GaussianSequenceModel], seeds: Sequence[int], dist: SubvolumeGaussian,
                          steps: int, batch: int = 4, lr: float = 1e-3, warmup: int = 50,
                          weight_decay: float = 0.01, device: DeviceLike = "cpu", progress: bool = True,
                          checkpoint_dir: str | os.PathLike | None = None, budget: Budget | None = None,
                          sampler: str = "numpy") -> list[NDArray[np.float64]]:
    """Train several models at once on the exact average conditional KL, each with its own fresh samples.

    Each model trains as :func:`seqmi.recipes.gaussian_tokens.train_gaussian` trains it
    alone (AdamW with linear warm-up and cosine decay to zero, the paper's recipe scaled
    down, gradient norm clipped at 1), with its own optimizer and its own samples: the
    models are members of one :func:`seqmi.train.fit`, in lockstep, checkpointed
    together. On the CPU each computes its own forward pass, and its numbers are bit for
    bit those it has alone; on CUDA two or more Transformers of one architecture compute
    their losses as one stacked computation, equal to float32 rounding (module docstring).

    Parameters
    ----------
    models : sequence of GaussianSequenceModel
        Trained in place; built and initialised by the caller (each under its own seed).
    seeds : sequence of int
        One per model: seeds its samples (and nothing else).
    dist : SubvolumeGaussian
        Its ``copies`` must equal every model's ``token_dim``.
    steps, batch, warmup : int
    lr, weight_decay : float
    device : str or torch.device
        ``"auto" | "cpu" | "cuda" | torch.device``.
    progress : bool
        Show a tqdm bar.
    checkpoint_dir : path, optional
        The models are checkpointed there together (:func:`seqmi.train.fit_checkpointed`:
        every minute, and at the end) and resumed from it: an interrupted run ends as one
        that ran through, bit for bit on CPU. A checkpoint of other seeds or another
        number of models is refused.
    budget : seqmi.sweep.Budget, optional
        Stops training, checkpoint saved, with :class:`~seqmi.sweep.OutOfTime` once it
        leaves no time for training.
    sampler : {"numpy", "device-cholesky"}
        How the batches are drawn (module docstring).

    Returns
    -------
    list of ndarray, shape (steps,)
        Each model's loss (mean KL, nats) at every step, in the order of ``models``.
    """
    check_int("steps", steps, 1)
    check_int("batch", batch, 1)
    check_int("warmup", warmup, 0)
    check_choice("sampler", sampler, SAMPLERS)
    if not models or len(seeds) != len(models):
        raise ValueError(f"train_gaussian_family needs one or more models and one seed per model, got "
                         f"{len(models)} models and {len(seeds)} seeds")
    for k, model in enumerate(models):
        if dist.copies != model.token_dim:
            raise ValueError(f"dist.copies={dist.copies} must equal model.token_dim={model.token_dim} (model {k})")
    device = resolve_device(device)
    for model in models:
        model.to(device).train()

    def schedule(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        return 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, steps - warmup)))

    def epoch(rng: np.random.Generator, step: int) -> Iterator[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
        for _ in range(steps):
            yield _conditional_targets(dist, batch, rng, device, sampler)

    family = StackedFamily(device=device, loss=kl_loss) if _stacked(models, device) else None
    # each batch drawn from the generator as it is taken: a checkpoint resumes without replay
    task = Task(Batches(steps, epoch, fresh=True), kl_loss, schedule=schedule, family=family)
    members = []
    for model, seed in zip(models, seeds):
        config = TrainConfig(optimizer="adamw", lr=lr, weight_decay=weight_decay, clip=1.0, batch_size=batch,
                             max_epochs=1, patience=None, restarts=1, seed=seed)
        members.append(Member(model, config, np.random.default_rng(seed), task))
    together = f" x{len(models)}" if len(models) > 1 else ""
    fit_checkpointed(members, task, checkpoint_dir, budget=budget, device=device, progress=progress,
                     desc=f"{models[0].backbone_name} L={dist.length}{together}")
    return [np.asarray(member.step_losses, dtype=np.float64) for member in members]


def train_gaussian(model: GaussianSequenceModel, dist: SubvolumeGaussian, steps: int, batch: int = 4,
                   lr: float = 1e-3, warmup: int = 50, weight_decay: float = 0.01,
                   device: DeviceLike = "cpu", seed: int = 0, progress: bool = True,
                   checkpoint_dir: str | os.PathLike | None = None,
                   budget: Budget | None = None, sampler: str = "numpy") -> NDArray[np.float64]:
    """Train on the exact average conditional KL with fresh samples every step.

    AdamW with linear warm-up and cosine decay to zero (the paper's recipe, scaled down),
    gradient norm clipped at 1: a configuration of :func:`seqmi.train.fit` with one epoch
    of ``steps`` fresh batches (:func:`seqmi.recipes.gaussian_tokens.train_gaussian_family` with one model).

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
    return train_gaussian_family([model], [seed], dist, steps, batch, lr, warmup, weight_decay, device, progress,
                                 checkpoint_dir, budget, sampler)[0]


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
