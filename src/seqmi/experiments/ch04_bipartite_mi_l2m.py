"""Sweep points of chapter 04: the Gaussian L2M experiment of Chen et al. 2025 (Fig. 4), and
SmolLM2's samples for Shen 2019's Fig. 3(d), drawn in cached chunks so that a million
characters per temperature can be drawn over several runs, or by several processes."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from seqmi.bipartite import load_smollm2, sample_documents
from seqmi.data.subvolume import SubvolumeGaussian
from seqmi.l2m import history_state_size
from seqmi.models.gaussian_lm import GaussianSequenceModel, evaluate_kl, train_gaussian
from seqmi.rng import child_seed
from seqmi.validate import check_int


@dataclass(frozen=True)
class GaussianSettings:
    """What every point of the Fig. 4 sweep shares.

    Attributes
    ----------
    token_dim : int
        Copies of the sub-volume Gaussian stacked into one token.
    layers, heads, max_len, d_state : int
        Model depth, attention heads (Transformer), position table size, SSM state size.
    steps, batch, warmup : int
        Training updates, sequences per update, warm-up updates.
    lr : float
        Peak AdamW learning rate.
    n_eval : int
        Fresh sequences for the position-wise KL.
    seed : int
        The chapter's seed; every stream is a :func:`~seqmi.rng.child_seed` of it.
    device : str
    """

    token_dim: int
    layers: int
    heads: int
    max_len: int
    d_state: int
    steps: int
    batch: int
    warmup: int
    lr: float
    n_eval: int
    seed: int
    device: str = "cpu"


def gaussian_point(point: tuple[str, int, int, int], checkpoint_dir: str | None,
                   settings: GaussianSettings) -> dict[str, Any]:
    """Train one model on the sub-volume Gaussian and measure its position-wise KL.

    Parameters
    ----------
    point : (backbone, width, L, replicate)
        ``backbone`` in ``{"transformer", "mamba"}``; ``L`` a power of 4; ``replicate``
        numbers independent runs (initialisation and data) of the same model.
    checkpoint_dir : str or None
        Unused: a point takes minutes at most and is recomputed if interrupted.
    settings : GaussianSettings

    Returns
    -------
    dict
        ``position_kl`` (list, nats per coordinate), ``average_kl``, ``final_train_loss``
        (mean of the last 10 updates), ``state_size`` (``dim(z_(L/2))``), ``n_params``,
        ``bipartite_mi`` (exact, nats).
    """
    backbone, width, length, rep = point
    dist = SubvolumeGaussian(round(math.log(length, 4)), copies=settings.token_dim)
    torch.manual_seed(child_seed(settings.seed, "l2m-init", backbone, width, length, rep))
    model = GaussianSequenceModel(backbone, settings.token_dim, width, settings.layers, settings.heads,
                                  settings.max_len, settings.d_state)
    losses = train_gaussian(model, dist, settings.steps, settings.batch, settings.lr, settings.warmup,
                            device=settings.device, seed=child_seed(settings.seed, "l2m-train", length, rep),
                            progress=False)
    kl = evaluate_kl(model, dist, settings.n_eval, settings.batch, device=settings.device,
                     seed=child_seed(settings.seed, "l2m-eval", length))
    return {"position_kl": kl.tolist(), "average_kl": float(kl.mean()), "final_train_loss": float(losses[-10:].mean()),
            "state_size": history_state_size(model, length // 2), "n_params": sum(p.numel() for p in model.parameters()),
            "bipartite_mi": dist.bipartite_mi()}


def pool_replicates(records: list[dict[str, Any]]) -> dict[str, Any]:
    """One model's replicates (records of :func:`gaussian_point`) pooled into one record.

    ``position_kl`` and ``average_kl`` become means over the replicates (an array and a
    float), ``average_kl_replicates`` and ``position_kl_replicates`` keep each one; the
    fields every replicate shares (``state_size``, ``n_params``, ``bipartite_mi``) are
    taken from the first.
    """
    if not records:
        raise ValueError("pool_replicates needs at least one record")
    kl = np.array([r["position_kl"] for r in records])
    return {**{k: records[0][k] for k in ("state_size", "n_params", "bipartite_mi")},
            "position_kl": kl.mean(axis=0), "average_kl": float(kl.mean()),
            "final_train_loss": float(np.mean([r["final_train_loss"] for r in records])),
            "average_kl_replicates": [r["average_kl"] for r in records], "position_kl_replicates": kl.tolist()}


# ---------------------------------------------------------------- SmolLM2 samples (Shen Fig. 3d)

SAMPLE_CHUNK = 50_000  # characters of one cached chunk of samples (about 90 s on one CPU thread)


@dataclass(frozen=True)
class SampleSettings:
    """What every chunk of SmolLM2 samples shares.

    Attributes
    ----------
    chunk_chars : int
        Characters drawn per chunk (at least; the last sample is kept whole).
    batch, max_new_tokens : int
        Samples drawn together, and their largest length in tokens
        (:func:`seqmi.bipartite.sample_documents`).
    seed : int
        The chapter's seed; chunk ``c`` at temperature ``T`` samples under
        ``child_seed(seed, "smol-sample", f"T={T:g}", c)``.
    device : str
    """

    chunk_chars: int
    batch: int
    max_new_tokens: int
    seed: int
    device: str = "cpu"


def sample_chunks(total_chars: int, temperatures: list[float]) -> tuple[list[tuple[float, int]], int]:
    """The sweep points ``(temperature, chunk)`` that draw ``total_chars`` per temperature.

    Returns the points and the characters per chunk: ``ceil(total_chars / SAMPLE_CHUNK)``
    chunks of equal size, so that a small request is one chunk of exactly its size.
    """
    check_int("total_chars", total_chars, 1)
    n = math.ceil(total_chars / SAMPLE_CHUNK)
    return [(float(t), c) for t in temperatures for c in range(n)], math.ceil(total_chars / n)


def sample_point(point: tuple[float, int], checkpoint_dir: str | None, settings: SampleSettings) -> dict[str, Any]:
    """One chunk of SmolLM2's ancestral samples at one temperature.

    Parameters
    ----------
    point : (temperature, chunk)
    checkpoint_dir : str or None
        Unused: a chunk is redrawn if interrupted.
    settings : SampleSettings

    Returns
    -------
    dict
        ``docs``: the decoded samples, in the order drawn.
    """
    temperature, chunk = point
    tokenizer, model, bos = load_smollm2(settings.device)
    seed = child_seed(settings.seed, "smol-sample", f"T={temperature:g}", chunk)
    docs = sample_documents(model, tokenizer, bos, settings.chunk_chars, temperature, settings.batch,
                            settings.max_new_tokens, seed, settings.device)
    return {"docs": docs}
