"""The binary sweep (Sec. 4.2.1): sequences with a power-law ``I(tau)``, the models and recipes trained on them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any

import numpy as np
from torch import nn

from seqmi.data.binary import binary_power_law
from seqmi.device import DeviceLike, check_device
from seqmi.experiments.ch03_rnn_transformer_mi._families import SeedFamily, _check_family, family_of
from seqmi.experiments.ch03_rnn_transformer_mi._seeds import run_seeds
from seqmi.models.lm import RNNLM, TransformerLM
from seqmi.rng import child_seed
from seqmi.sweep import current_budget, unkeyed
from seqmi.train import Sequences, TrainConfig
from seqmi.validate import check_float, check_int

BINARY_KINDS = ("rnn", "lstm", "transformer")
BINARY_HEADS = 4  # attention heads of the binary Transformers (App. E.2.1)
BINARY_BOOTSTRAP = 200  # bootstrap replicates over generated sequences behind every binary interval


@dataclass(frozen=True)
class BinarySettings:
    """What every point of the binary sweep shares (Shen 2019 Sec. 4.2.1, App. E).

    Attributes
    ----------
    n_train, n_valid : int
        Training and validation sequences.
    length : int
        Symbols per sequence; the MI is measured for ``tau = 1..length - 1``.
    mi_amplitude, mi_exponent : float
        The data's ``I(tau) = A tau^-gamma`` (:func:`seqmi.data.binary.binary_power_law`).
    n_generate : int
        Sequences generated per trained model.
    threshold : float
        Fits use the points with ``I(tau)`` above this.
    max_epochs, patience : int
        Stop rule of every model (:class:`~seqmi.train.TrainConfig`).
    transformer_epochs : int
        Epoch limit of the Transformers, in place of ``max_epochs``: the length of their
        cosine schedule, which runs to its end unless patience stops it first.
    rnn_lr, lstm_lr, transformer_lr : float
        Peak learning rates: RMSprop for the recurrent models, Adam with cosine
        annealing for the Transformers.
    seed : int
        The chapter's seed.
    device : str or torch.device
        Resolved where a point is computed (``"auto"``: the worker's GPU if it has one);
        not part of the cache keys (each model's record says where it ran).
    """

    n_train: int
    n_valid: int
    length: int
    mi_amplitude: float
    mi_exponent: float
    n_generate: int
    threshold: float
    max_epochs: int
    patience: int
    transformer_epochs: int
    rnn_lr: float
    lstm_lr: float
    transformer_lr: float
    seed: int
    device: DeviceLike = unkeyed("cpu")

    def __post_init__(self) -> None:
        check_int("n_train", self.n_train, 10)
        check_int("n_valid", self.n_valid, 10)
        check_int("length", self.length, 16)
        # a binary symbol carries at most ln 2 nats
        check_float("mi_amplitude", self.mi_amplitude, 0.0, float(np.log(2)), low_open=True, high_open=True)
        check_float("mi_exponent", self.mi_exponent, 0.0, low_open=True)
        check_int("n_generate", self.n_generate, 2)
        check_float("threshold", self.threshold, 0.0, low_open=True)
        check_int("max_epochs", self.max_epochs, 1)
        check_int("patience", self.patience, 1)
        check_int("transformer_epochs", self.transformer_epochs, 1)
        for name in ("rnn_lr", "lstm_lr", "transformer_lr"):
            check_float(name, getattr(self, name), 0.0, 1.0, low_open=True)
        check_int("seed", self.seed, 0)
        check_device(self.device)


@lru_cache(maxsize=2)
def _binary_rows(n: int, length: int, amplitude: float, exponent: float, seed: int) -> np.ndarray:
    return binary_power_law(n, length, amplitude, exponent, seed).astype(np.int64)


def binary_data(settings: BinarySettings) -> Sequences:
    """The training and validation sequences of the binary sweep (cached per process)."""
    rows = _binary_rows(settings.n_train + settings.n_valid, settings.length, settings.mi_amplitude,
                        settings.mi_exponent, child_seed(settings.seed, "binary-data"))
    return Sequences(rows[: settings.n_train], rows[settings.n_train:])


def binary_model(kind: str, width: int, depth: int, settings: BinarySettings) -> nn.Module:
    """A fresh binary model: an RNN or LSTM over a 2-dimensional embedding, or a Transformer."""
    if kind == "transformer":
        return TransformerLM(2, width, depth, heads=BINARY_HEADS, max_len=settings.length + 1)
    return RNNLM(2, width, depth, cell=kind, embed_dim=2)


def binary_config(kind: str, width: int, depth: int, settings: BinarySettings) -> TrainConfig:
    """The paper's recipe for a binary model (App. E), seeded per model."""
    seed = child_seed(settings.seed, "binary-train", kind, width, depth)
    stop = {"batch_size": 50, "max_epochs": settings.max_epochs, "patience": settings.patience,
            "restarts": 1, "seed": seed}
    if kind == "transformer":
        return TrainConfig(optimizer="adam", lr=settings.transformer_lr, clip=5.0, schedule="cosine",
                           min_lr_ratio=1 / 32, **{**stop, "max_epochs": settings.transformer_epochs})
    return TrainConfig(optimizer="rmsprop", lr=settings.rnn_lr if kind == "rnn" else settings.lstm_lr, clip=0.25,
                       **stop)


def binary_points(points: Sequence[SeedFamily], checkpoint_dir: str | None,
                  settings: BinarySettings) -> list[dict[str, Any]]:
    """Train, sample and measure seeds of one family of the binary sweep, as one family.

    Parameters
    ----------
    points : sequence of (kind, widths, depth, seed)
        Seed points of one family (``kind`` in ``BINARY_KINDS``; ``seed`` the training seed
        index, :func:`seed_config`), e.g. the tuples :func:`seqmi.sweep.run_sweep` passes
        with ``group=family_of``. Their models train in one
        :func:`seqmi.train.train_family` call: on the CPU the vanilla RNNs of one width
        share one batched step (:class:`seqmi.family.RecurrentFamily`), several times
        cheaper per model, and every seed's record is bit for bit the one it has alone.
    checkpoint_dir : str or None
        The family's training checkpoints; a family stopped by the sweep's budget resumes
        from them.
    settings : BinarySettings

    Returns
    -------
    list of dict
        :func:`run_seeds`'s record of each point, in order: one model per width,
        ``n_generate`` sequences each (:func:`merge_seeds` joins a family's seeds).
    """
    for point in points:
        _check_family(point, BINARY_KINDS)
    if len({family_of(point) for point in points}) != 1:
        raise ValueError(f"points trained together must be seeds of one family, got {list(points)!r}")
    kind, widths, depth, _ = points[0]
    return run_seeds(
        [partial(binary_model, kind, w, depth, settings) for w in widths], binary_data(settings),
        [binary_config(kind, w, depth, settings) for w in widths],
        sample_seeds=[child_seed(settings.seed, "binary-sample", kind, w, depth) for w in widths],
        n_samples=settings.n_generate, sample_length=settings.length, max_lag=settings.length - 1,
        threshold=settings.threshold, seeds=[point[3] for point in points], device=settings.device,
        checkpoint_dir=checkpoint_dir, budget=current_budget(), n_boot=BINARY_BOOTSTRAP)
