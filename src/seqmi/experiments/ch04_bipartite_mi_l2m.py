"""Sweep points of chapter 04: the Gaussian L2M experiment of Chen et al. 2025 (Fig. 4), the
same models and a linear SSM held to the exact linear-state bound (Thm. 5.2), SmolLM2's
samples for Shen 2019's Fig. 3(d), drawn in cached chunks so that a million
characters per temperature can be drawn over several runs, or by several processes, the
two character models of the text sections (a Transformer and a Mamba of equal size, Fig. 5),
checkpointed so that a rerun, or a second process started earlier, need not train them again,
and the fold models that hold every chapter out of one character Transformer (the bipartite
estimates over the whole corpus)."""

from __future__ import annotations

from seqmi._optional import require

require("torch")  # a missing torch fails naming its extra

import hashlib
import itertools
import math
import os
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from functools import lru_cache
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from seqmi.bipartite import Scorer, load_smollm2, pool_terms, sample_documents, split_point, split_terms
from seqmi.data.subvolume import SubvolumeGaussian
from seqmi.data.text import KJV_CHAPTERS, CharVocab, Document, join
from seqmi.device import DeviceLike, check_device
from seqmi.l2m import history_state_size, linear_state_excess
from seqmi.models.gaussian_lm import GaussianSequenceModel
from seqmi.recipes.gaussian_tokens import SAMPLERS, evaluate_kl, train_gaussian, train_gaussian_family
from seqmi.models.lm import TransformerLM
from seqmi.models.mamba import MambaLM
from seqmi.progress import progress_bar
from seqmi.rng import child_seed
from seqmi.sweep import Budget, OutOfTime, current_budget, sweep_key, unkeyed
from seqmi.train import Sequences, TrainConfig, TrainResult, train
from seqmi.validate import (check_choice, check_float, check_float_list, check_increasing, check_int, check_int_list,
                            check_multiples)


@dataclass(frozen=True)
class FamilySettings:
    """What the chapter's exact sections read: the sub-volume families' sizes and the checks' grids.

    Nothing here is trained; the record checks the chapter's parameters before any
    curve is computed (lengths are ``L = 4**layers``).

    Attributes
    ----------
    toy_vocab, toy_length : int
        The toy distribution enumerated exactly, ``toy_vocab**toy_length <= 2**20`` outcomes.
    max_layers, max_layers_overwrite : int
        Longest exact MI curves, reading (b) (layer recursion) and reading (a) (dense log-dets).
    fit_from_layer : int
        Exponents are fitted on the layers from this one on.
    profile_layers : int
        Length of the profiles of the two-point MI at every distance and the bipartite
        MI at every split.
    split_ratios : list of int
        Unequal splits ``L / ell`` of App. A.V, increasing and distinct, in ``[3, 8]``.
    split_max_layers, cca_max_layers, rank_max_layers : int
        Longest unequal-split curves, canonical correlations and cross-covariance ranks.
    state_eps : list of float
        Fractions of ``I_bp`` a linear state may lose.
    state_dims : list of int
        Fixed linear-state sizes whose excess is followed in ``L``.
    """

    toy_vocab: int
    toy_length: int
    max_layers: int
    max_layers_overwrite: int
    fit_from_layer: int
    profile_layers: int
    split_ratios: Sequence[int]
    split_max_layers: int
    cca_max_layers: int
    rank_max_layers: int
    state_eps: Sequence[float]
    state_dims: Sequence[int]

    def __post_init__(self) -> None:
        check_int("toy_vocab", self.toy_vocab, 2, 16)
        check_int("toy_length", self.toy_length, 2, 12)
        if self.toy_vocab ** self.toy_length > 2 ** 20:
            raise ValueError(f"toy_vocab**toy_length must be <= 2**20, got {self.toy_vocab}**{self.toy_length}")
        check_int("max_layers", self.max_layers, 4, 11)
        check_int("max_layers_overwrite", self.max_layers_overwrite, 4, 7)
        check_int("fit_from_layer", self.fit_from_layer, 1, self.max_layers - 2)
        check_int("profile_layers", self.profile_layers, 2, 6)
        check_increasing("split_ratios", self.split_ratios, 3, 8)
        check_int("split_max_layers", self.split_max_layers, self.fit_from_layer + 2, 11)
        check_int("cca_max_layers", self.cca_max_layers, 5, 12)
        check_int("rank_max_layers", self.rank_max_layers, 2, min(6, self.max_layers))
        check_float_list("state_eps", self.state_eps, 0.0, 1.0, low_open=True, high_open=True)
        check_int_list("state_dims", self.state_dims, 1, 4 ** 6)


@dataclass(frozen=True)
class TextMeasureSettings:
    """What the chapter's measurements of the KJV and of the language models read (Figs. 1, 5; Shen Fig. 3d).

    Attributes
    ----------
    two_point_chars : int
        Training characters for the two-point MI (0: all).
    two_point_max_lag, two_point_min_lag : int
        Largest distance of the two-point MI, and the first of its power-law fit.
    text_docs : int
        KJV chapters per length of the character models' bipartite estimates.
    char_lengths, compress_lengths, smol_lengths : list of int
        Lengths ``L`` (characters, characters, tokens) of the character-model, lzma and
        SmolLM2 estimates: at least three, increasing and even (split at ``L/2``).
    split_ratios : list of int
        The unequal splits, each leaving a non-empty first part at every length.
    char_folds : int
        Fold Transformers (0, or 2 to ``text_docs / 2``).
    fig5_windows : int
        Windows per held-out chapter in Fig. 5.
    ngram_docs, smol_docs : int
        Training chapters of the 2-gram correction (0: all), chapters scored by SmolLM2
        (0: skip; otherwise at least 2, since vCLUB pairs different samples).
    sample_chars : int
        Characters sampled from SmolLM2 per temperature.
    sample_temperatures : list of float
    """

    two_point_chars: int
    two_point_max_lag: int
    two_point_min_lag: int
    text_docs: int
    char_lengths: Sequence[int]
    compress_lengths: Sequence[int]
    smol_lengths: Sequence[int]
    split_ratios: Sequence[int]
    char_folds: int
    fig5_windows: int
    ngram_docs: int
    smol_docs: int
    sample_chars: int
    sample_temperatures: Sequence[float]

    def __post_init__(self) -> None:
        check_int("two_point_chars", self.two_point_chars, 0)
        check_int("two_point_max_lag", self.two_point_max_lag, 10, 100000)
        check_int("two_point_min_lag", self.two_point_min_lag, 1, self.two_point_max_lag - 3)
        check_int("text_docs", self.text_docs, 8, KJV_CHAPTERS)
        check_increasing("char_lengths", self.char_lengths, 4, 4096, min_len=3, even=True)
        check_increasing("compress_lengths", self.compress_lengths, 16, 100000, min_len=3, even=True)
        check_increasing("smol_lengths", self.smol_lengths, 2, 8192, min_len=3, even=True)
        for length in (*self.char_lengths, *self.smol_lengths):
            for ratio in self.split_ratios:
                split_point(length, ratio)  # raises if the first part is empty
        check_int("char_folds", self.char_folds, 0, 16)
        if self.char_folds == 1 or self.text_docs < 2 * self.char_folds:
            raise ValueError(f"char_folds must be 0 or 2..text_docs/2, got {self.char_folds}")
        check_int("fig5_windows", self.fig5_windows, 1)
        check_int("ngram_docs", self.ngram_docs, 0, KJV_CHAPTERS)
        check_int("smol_docs", self.smol_docs, 0, KJV_CHAPTERS)
        if self.smol_docs == 1:
            raise ValueError("smol_docs must be 0 (skip) or at least 2 (vCLUB pairs different samples)")
        check_int("sample_chars", self.sample_chars, 1000)
        check_float_list("sample_temperatures", self.sample_temperatures, 0.0, 10.0, low_open=True)


def _check_backbones_and_training(settings: GaussianSettings | BoundSettings) -> None:
    """The checks of the fields the two Gaussian-token settings share: backbones, training, seed, device."""
    check_int("layers", settings.layers, 1, 48)
    check_int("heads", settings.heads, 1)
    check_int("d_state", settings.d_state, 1, 256)
    check_int("steps", settings.steps, 1)
    check_int("batch", settings.batch, 1)
    check_int("warmup", settings.warmup, 0, settings.steps)
    check_float("lr", settings.lr, 0.0, 1.0, low_open=True)
    check_int("n_eval", settings.n_eval, 1)
    check_int("seed", settings.seed, 0)
    check_device(settings.device)


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
    device : str or torch.device
        Resolved where a point is computed (``"auto"``: the worker's GPU if it has one);
        not part of the cache keys.
    sampler : {"device-cholesky", "numpy"}
        How training and evaluation batches are drawn
        (:mod:`seqmi.recipes.gaussian_tokens`): on the model's device (default), or by
        the numpy sampler on the CPU that the points recorded before it used. Part of the
        cache keys: the two draw different samples of the same distribution, so a point
        of one is never read for the other (a ``"numpy"`` point recomputes the values of
        the records made before the field existed, under a key of its own).
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
    device: DeviceLike = unkeyed("cpu")
    sampler: str = "device-cholesky"

    def __post_init__(self) -> None:
        check_int("token_dim", self.token_dim, 1, 256)
        check_int("max_len", self.max_len, 4)
        check_choice("sampler", self.sampler, SAMPLERS)
        _check_backbones_and_training(self)


def l2m_points(l2m_lengths: Sequence[int], model_widths: Sequence[int], heads: int,
               l2m_replicates: int) -> list[tuple[str, int, int, int]]:
    """Fig. 4's points: ``(backbone, width, L, replicate)``, Transformer and Mamba at every width and length.

    Lengths are powers of 4 (the family's hierarchy), at least two; widths multiples of
    the Transformer's ``heads``.
    """
    check_int_list("l2m_lengths", l2m_lengths, 4, min_len=2)
    if any(4 ** round(math.log(x, 4)) != x for x in l2m_lengths):
        raise ValueError(f"l2m_lengths must list powers of 4, got {list(l2m_lengths)!r}")
    check_multiples("model_widths", model_widths, check_int("heads", heads, 1), "heads")
    check_int("l2m_replicates", l2m_replicates, 1, 100)
    return list(itertools.product(("transformer", "mamba"), model_widths, l2m_lengths, range(l2m_replicates)))


def replicate_group(point: tuple[str, int, int, int]) -> tuple[str, int, int]:
    """The model of a Fig. 4 point, ``(backbone, width, L)``: its replicates train together.

    The ``group`` of :func:`seqmi.sweep.run_sweep` for
    :func:`seqmi.experiments.ch04_bipartite_mi_l2m.gaussian_points`.
    """
    return point[:3]


def gaussian_points(points: Sequence[tuple[str, int, int, int]], checkpoint_dir: str | None,
                    settings: GaussianSettings) -> list[dict[str, Any]]:
    """Train replicates of one model on the sub-volume Gaussian together, and measure each one's position-wise KL.

    The models train as one :func:`seqmi.recipes.gaussian_tokens.train_gaussian_family`,
    each with its own initialisation and samples: on the CPU each point's record is bit
    for bit the one it has alone; on CUDA the Transformers' losses are one stacked
    computation and agree with it to float32 rounding.

    Parameters
    ----------
    points : sequence of (backbone, width, L, replicate)
        Replicates of one model (one :func:`seqmi.experiments.ch04_bipartite_mi_l2m.replicate_group`), e.g. the tuples
        :func:`seqmi.sweep.run_sweep` passes with ``group=replicate_group``:
        ``backbone`` in ``{"transformer", "mamba"}``; ``L`` a power of 4; ``replicate``
        numbers independent runs (initialisation and data) of the same model.
    checkpoint_dir : str or None
        The training run's checkpoint (every minute, and when the sweep's budget stops
        it): a rerun resumes from it and ends as if it had not stopped.
    settings : GaussianSettings

    Returns
    -------
    list of dict
        For each point, in order: ``position_kl`` (list, nats per coordinate),
        ``average_kl``, ``final_train_loss`` (mean of the last 10 updates),
        ``state_size`` (``dim(z_(L/2))``), ``n_params``, ``bipartite_mi`` (exact, nats),
        ``device`` (where it ran).

    Raises
    ------
    ValueError
        If ``points`` is empty or holds points of more than one model.
    """
    if not points or len({replicate_group(point) for point in points}) != 1:
        raise ValueError("points trained together must be one or more replicates of one (backbone, width, L), "
                         f"got {list(points)!r}")
    backbone, width, length, _ = points[0]
    dist = SubvolumeGaussian(round(math.log(length, 4)), copies=settings.token_dim)
    models = []
    for *_, rep in points:
        torch.manual_seed(child_seed(settings.seed, "l2m-init", backbone, width, length, rep))
        models.append(GaussianSequenceModel(backbone, settings.token_dim, width, settings.layers, settings.heads,
                                            settings.max_len, settings.d_state))
    losses = train_gaussian_family(models, [child_seed(settings.seed, "l2m-train", length, rep) for *_, rep in points],
                                   dist, settings.steps, settings.batch, settings.lr, settings.warmup,
                                   device=settings.device, progress=False, checkpoint_dir=checkpoint_dir,
                                   budget=current_budget(), sampler=settings.sampler)
    return [_l2m_record(model, dist, loss, settings) for model, loss in zip(models, losses)]


def _l2m_record(model: GaussianSequenceModel, dist: SubvolumeGaussian, losses: NDArray[np.float64],
                settings: GaussianSettings) -> dict[str, Any]:
    """One trained Fig. 4 model's record (:func:`seqmi.experiments.ch04_bipartite_mi_l2m.gaussian_points`)."""
    kl = evaluate_kl(model, dist, settings.n_eval, settings.batch, device=settings.device,
                     seed=child_seed(settings.seed, "l2m-eval", dist.length), sampler=settings.sampler)
    return {"position_kl": kl.tolist(), "average_kl": float(kl.mean()), "final_train_loss": float(losses[-10:].mean()),
            "state_size": history_state_size(model, dist.length // 2),
            "n_params": sum(p.numel() for p in model.parameters()), "bipartite_mi": dist.bipartite_mi(),
            "device": str(next(model.parameters()).device)}


def pool_replicates(records: list[dict[str, Any]]) -> dict[str, Any]:
    """One model's replicates (records of :func:`seqmi.experiments.ch04_bipartite_mi_l2m.gaussian_points`) pooled.

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


# ---------------------------------------------------------------- fold models (every chapter held out once)

def chapter_folds(n_docs: int, k: int, seed: int) -> list[NDArray[np.int64]]:
    """Documents ``0 .. n_docs - 1`` dealt into ``k`` folds at random.

    The folds are disjoint, cover every document, differ in size by at most one, and are
    sorted; they depend on ``seed`` alone (through ``child_seed(seed, "char-folds")``).

    Parameters
    ----------
    n_docs : int
        At least 2.
    k : int
        Folds, ``2 <= k <= n_docs``.
    seed : int

    Returns
    -------
    list of ndarray of int
    """
    check_int("n_docs", n_docs, 2)
    check_int("k", k, 2, n_docs)
    order = np.random.default_rng(child_seed(seed, "char-folds")).permutation(n_docs)
    return [np.sort(part) for part in np.array_split(order, k)]


@dataclass(frozen=True)
class FoldModel:
    """A character model and the documents it never saw.

    Attributes
    ----------
    held : ndarray of int
        Indices of the documents of its fold: neither trained on nor validated on.
    result : TrainResult
    """

    held: NDArray[np.int64]
    result: TrainResult


def train_fold_char_lms(docs: Sequence[Document], vocab: CharVocab, k: int, width: int, settings: CharLMSettings,
                        device: DeviceLike = "cpu", cache_dir: str | None = None,
                        valid_fraction: float = 0.05) -> list[FoldModel]:
    """One character Transformer per fold of :func:`chapter_folds`, trained without its fold.

    Model ``f`` trains (:func:`train_char_lm`) on the documents outside fold ``f``, less a
    random ``valid_fraction`` of them (at least one) whose first windows are its
    validation rows; its windows and initialisation use the seed
    ``child_seed(settings.seed, "char-fold", f)``. Every document is thus held out of
    exactly one model, which can score it as unseen text.

    Parameters
    ----------
    docs : sequence of Document
        The corpus (e.g. :func:`seqmi.data.text.kjv_documents`); training text is the
        documents joined by newlines (:func:`seqmi.data.text.join`).
    vocab : CharVocab
        Must cover every character of ``docs``.
    k : int
        Folds, at least 2.
    width : int
    settings : CharLMSettings
        Shared by the ``k`` models but for the seed.
    device : str or torch.device
    cache_dir : str, optional
        Checkpoints, as for :func:`train_char_lm` (the key differs between folds).
    valid_fraction : float
        Share of a model's remaining documents kept for validation, in ``(0, 0.5]``.

    Returns
    -------
    list of FoldModel
        In fold order.
    """
    check_float("valid_fraction", valid_fraction, 0.0, 0.5, low_open=True)
    window = settings.window
    models = []
    for f, held in enumerate(progress_bar(chapter_folds(len(docs), k, settings.seed), desc="fold models")):
        fold_settings = replace(settings, seed=child_seed(settings.seed, "char-fold", f))
        rest = np.setdiff1d(np.arange(len(docs)), held)
        n_valid = max(1, round(valid_fraction * len(rest)))
        valid = np.random.default_rng(fold_settings.seed).permutation(rest)[:n_valid]
        train_ids = vocab.encode(join([docs[i] for i in np.setdiff1d(rest, valid)]))
        valid_ids = vocab.encode(join([docs[i] for i in np.sort(valid)]))
        if len(valid_ids) < window:
            raise ValueError(f"the validation documents of fold {f} hold {len(valid_ids)} characters, fewer than "
                             f"one window ({window}): raise valid_fraction")
        data = Sequences(char_windows(train_ids, fold_settings),
                         valid_ids[: len(valid_ids) // window * window].reshape(-1, window)[:64])
        models.append(FoldModel(held, train_char_lm("transformer", len(vocab), width, data, fold_settings, device,
                                                    cache_dir)))
    return models


# ---------------------------------------------------------------- trained models against the exact bound

BOUND_BACKBONES = ("linear", "mamba", "transformer")


@dataclass(frozen=True)
class BoundSettings:
    """What every point of the exact-bound sweep shares (the models' sizes vary by point).

    Attributes
    ----------
    copies : int
        Copies of the sub-volume Gaussian stacked into one token (the model's ``token_dim``).
    head_width : int
        Width of the linear SSM's read-out and head (its state size is the point's).
    layers, heads, d_state : int
        Depth of the Mamba and Transformer backbones, attention heads of the Transformer,
        SSM state per channel of the Mamba.
    steps, batch, warmup : int
        Training updates, sequences per update, warm-up updates.
    lr : float
        Peak AdamW learning rate.
    n_eval : int
        Fresh sequences for the position-wise KL.
    seed : int
        The chapter's seed; every stream is a :func:`~seqmi.rng.child_seed` of it.
    device : str or torch.device
        Resolved where a point is computed (``"auto"``: the worker's GPU if it has one);
        not part of the cache keys.
    """

    copies: int
    head_width: int
    layers: int
    heads: int
    d_state: int
    steps: int
    batch: int
    warmup: int
    lr: float
    n_eval: int
    seed: int
    device: DeviceLike = unkeyed("cpu")

    def __post_init__(self) -> None:
        check_int("copies", self.copies, 1, 256)
        check_int("head_width", self.head_width, 1)
        _check_backbones_and_training(self)


@lru_cache(maxsize=None)
def _per_copy_correlations(length: int) -> NDArray[np.float64]:
    """One copy's canonical correlations at the equal split of length ``length`` (cached)."""
    return SubvolumeGaussian(round(math.log(length, 4))).canonical_correlations()


def exact_bound_points(bound_linear_states: Sequence[int], mamba_width: int, transformer_width: int,
                       bound_lengths: Sequence[int], seeds: Sequence[int],
                       mamba_max_length: int) -> list[tuple[str, int, int, int]]:
    """The exact-bound sweep's points, ``(backbone, size, L, seed)``: every linear state size,
    the Mamba (up to ``mamba_max_length``) and the Transformer at every length."""
    check_int_list("bound_lengths", bound_lengths, 16, 4096, min_len=2)
    check_int_list("bound_linear_states", bound_linear_states, 2)
    models = [("linear", d) for d in bound_linear_states]
    models += [("mamba", check_int("bound_mamba_width", mamba_width, 1)),
               ("transformer", check_int("bound_transformer_width", transformer_width, 1))]
    return [(b, size, L, s) for b, size in models for L in bound_lengths for s in seeds
            if b != "mamba" or L <= mamba_max_length]


def bound_point(point: tuple[str, int, int, int], checkpoint_dir: str | None,
                settings: BoundSettings) -> dict[str, Any]:
    """Train one model with the exact conditional-KL loss and hold it to the linear-state bound.

    A model whose predictions of the future read the past only through a linear state of
    ``d`` real numbers (:class:`~seqmi.models.gaussian_lm.LinearSSMBackbone`) has a KL, summed
    over the positions from ``L/2`` on and over the coordinates, of at least the excess
    ``E(d) = sum_(i > d) -1/2 ln(1 - rho_i^2)`` over the canonical correlations of the two
    halves, each copy's repeated ``copies`` times (the state shares its ``d`` numbers
    between the copies). For the Mamba and the Transformer, whose states are not linear in
    the past, ``E`` of the state size :func:`~seqmi.l2m.history_state_size` counts is
    reported for comparison only.

    Parameters
    ----------
    point : (backbone, size, L, seed)
        ``backbone`` in ``{"linear", "mamba", "transformer"}``; ``size`` the linear model's
        state ``d`` (even) or the others' width; ``L`` a power of 4 from 16 to 4096;
        ``seed`` numbers independent runs (initialisation, training and evaluation data).
    checkpoint_dir : str or None
        Where the training checkpoints itself, to resume an interrupted point.
    settings : BoundSettings

    Returns
    -------
    dict
        ``position_kl`` (list, nats per coordinate), ``sum_kl`` (nats, summed over the
        positions from ``L/2`` and the coordinates), ``bound`` (``E`` at ``state_size``),
        ``context_free_sum`` (the marginal prediction's ``sum_kl``), ``bipartite_mi``
        (``E(0)``, all copies), ``state_size``, ``final_train_loss`` (mean of the last 10
        updates), ``steps``, ``n_params``, ``wall_s``, ``device``.
    """
    backbone, size, length, seed = point
    check_choice("backbone", backbone, BOUND_BACKBONES)
    check_int("size", size, 2)
    check_int("seed", seed, 0)
    if not (isinstance(length, int) and 16 <= length <= 4096 and 4 ** round(math.log(length, 4)) == length):
        raise ValueError(f"L must be a power of 4 from 16 to 4096, got {length!r}")
    if backbone == "transformer" and size % settings.heads:
        raise ValueError(f"the Transformer's width must be a multiple of heads={settings.heads}, got {size}")
    start = time.perf_counter()
    ell, copies = length // 2, settings.copies
    dist = SubvolumeGaussian(round(math.log(length, 4)), copies=copies)
    torch.manual_seed(child_seed(settings.seed, "bound-init", backbone, size, length, seed))
    if backbone == "linear":
        model = GaussianSequenceModel("linear", copies, settings.head_width, 1, max_len=length, d_state=size)
    else:
        model = GaussianSequenceModel(backbone, copies, size, settings.layers, settings.heads, length,
                                      settings.d_state)
    losses = train_gaussian(model, dist, settings.steps, settings.batch, settings.lr, settings.warmup,
                            device=settings.device, progress=False,
                            seed=child_seed(settings.seed, "bound-train", backbone, size, length, seed),
                            checkpoint_dir=checkpoint_dir, budget=current_budget())
    kl = evaluate_kl(model, dist, settings.n_eval, settings.batch, device=settings.device,
                     seed=child_seed(settings.seed, "bound-eval", backbone, size, length, seed))
    rho = np.repeat(_per_copy_correlations(length), copies)
    state = history_state_size(model, ell)
    return {"position_kl": kl.tolist(), "sum_kl": float(copies * kl[ell:].sum()),
            "bound": linear_state_excess(rho, state), "bipartite_mi": linear_state_excess(rho, 0),
            "context_free_sum": float(copies * dist.context_free_kl()[ell:].sum()), "state_size": state,
            "final_train_loss": float(losses[-10:].mean()), "steps": len(losses),
            "n_params": sum(p.numel() for p in model.parameters()), "wall_s": time.perf_counter() - start,
            "device": str(next(model.parameters()).device)}


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
    device : str or torch.device
        Resolved where a chunk is drawn; not part of the cache keys.
    """

    chunk_chars: int
    batch: int
    max_new_tokens: int
    seed: int
    device: DeviceLike = unkeyed("cpu")

    def __post_init__(self) -> None:
        check_int("chunk_chars", self.chunk_chars, 1)
        check_int("batch", self.batch, 1, 4096)
        check_int("max_new_tokens", self.max_new_tokens, 16, 8192)
        check_int("seed", self.seed, 0)
        check_device(self.device)


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


# ---------------------------------------------------------------- character models (text sections, Fig. 5)

CHAR_KINDS = ("transformer", "mamba")


@dataclass(frozen=True)
class CharLMSettings:
    """What the chapter's two character models share: data, schedule and everything but the width.

    Attributes
    ----------
    depth : int
        Blocks of either model.
    heads : int
        Attention heads of the Transformer.
    d_state : int
        SSM state per channel of the Mamba.
    window : int
        Characters per training window (the longest context either model sees).
    steps, batch : int
        Updates, and random windows per update: ``steps * batch`` windows make the one epoch.
    lr : float
        Peak Adam learning rate (cosine schedule, a tenth of the steps warming up).
    seed : int
        The chapter's seed: the windows are drawn under ``child_seed(seed, "char-windows")``.
    """

    depth: int
    heads: int
    d_state: int
    window: int
    steps: int
    batch: int
    lr: float
    seed: int

    def __post_init__(self) -> None:
        check_int("depth", self.depth, 1, 48)
        check_int("heads", self.heads, 1)
        check_int("d_state", self.d_state, 1, 256)
        check_int("window", self.window, 4, 4096)
        check_int("steps", self.steps, 1)  # a tenth of them warm up: none below 10
        check_int("batch", self.batch, 1)
        check_float("lr", self.lr, 0.0, 1.0, low_open=True)
        check_int("seed", self.seed, 0)


def char_windows(train_ids: NDArray[np.int64], settings: CharLMSettings) -> NDArray[np.int64]:
    """The ``steps * batch`` training windows, each starting at a uniformly drawn character."""
    if len(train_ids) <= settings.window:
        raise ValueError(f"the training text ({len(train_ids)} characters) must be longer than the window "
                         f"({settings.window})")
    rng = np.random.default_rng(child_seed(settings.seed, "char-windows"))
    starts = rng.integers(0, len(train_ids) - settings.window, settings.steps * settings.batch)
    return train_ids[starts[:, None] + np.arange(settings.window)]


def char_lm(kind: str, vocab_size: int, width: int, settings: CharLMSettings) -> nn.Module:
    """A fresh character model: ``"transformer"`` (:class:`~seqmi.models.lm.TransformerLM`) or
    ``"mamba"`` (:class:`~seqmi.models.mamba.MambaLM`) of ``width`` and ``settings.depth``."""
    check_choice("kind", kind, CHAR_KINDS)
    if kind == "transformer":
        return TransformerLM(vocab_size, width, settings.depth, heads=settings.heads, max_len=settings.window)
    return MambaLM(vocab_size, width, settings.depth, settings.d_state)


def matched_mamba_width(vocab_size: int, n_params: int, settings: CharLMSettings, max_width: int) -> int:
    """The Mamba width, a multiple of 4 up to ``max_width``, whose parameter count is closest to ``n_params``."""
    check_int("max_width", max_width, 4)

    def size(width: int) -> int:
        return sum(p.numel() for p in char_lm("mamba", vocab_size, width, settings).parameters())

    return min(range(4, max_width + 1, 4), key=lambda w: abs(size(w) - n_params))


def train_char_lm(kind: str, vocab_size: int, width: int, data: Sequences, settings: CharLMSettings,
                  device: DeviceLike = "cpu", cache_dir: str | None = None,
                  budget: Budget | None = None) -> TrainResult:
    """Train one character model for one epoch of ``data`` (:func:`seqmi.train.train`).

    Parameters
    ----------
    kind : {"transformer", "mamba"}
    vocab_size, width : int
    data : Sequences
        Training windows (:func:`char_windows`) and validation rows.
    settings : CharLMSettings
    device : str or torch.device
    cache_dir : str, optional
        The model is checkpointed under ``cache_dir/<key>/``, the key naming the kind, the
        width, the settings and a digest of ``data``; a finished checkpoint is read back
        instead of training. ``None`` or ``""``: no checkpoint.
    budget : seqmi.sweep.Budget, optional
        The section's deadline: training stops there, checkpointed, with
        :class:`~seqmi.sweep.OutOfTime` (the next run resumes it from ``cache_dir``).

    Returns
    -------
    TrainResult
    """
    check_choice("kind", kind, CHAR_KINDS)
    config = TrainConfig(optimizer="adam", lr=settings.lr, clip=5.0, batch_size=settings.batch, max_epochs=1,
                         patience=1, restarts=1, schedule="cosine", warmup_steps=settings.steps // 10,
                         seed=settings.seed)
    checkpoint = None
    if cache_dir:
        digest = hashlib.sha1(np.ascontiguousarray(data.train).tobytes() + np.ascontiguousarray(data.valid).tobytes())
        spec = {"settings": asdict(settings), "vocab": vocab_size, "data": digest.hexdigest()[:16]}
        checkpoint = os.path.join(cache_dir, sweep_key("char-lm", (kind, width), spec))
    try:
        return train(lambda: char_lm(kind, vocab_size, width, settings), data, config, device=device,
                     checkpoint_dir=checkpoint, budget=budget)
    except OutOfTime:
        raise OutOfTime(f"character {kind} of width {width}: stopped at the section's deadline, "
                        + (f"checkpointed under {checkpoint}: run again to continue" if checkpoint
                           else "not checkpointed (no cache_dir): it starts again")) from None


def bipartite_curves(parts: Sequence[tuple[Scorer, NDArray[np.int64]]], lengths: Sequence[int],
                     ratios: Sequence[float], ngram_h: float, seed: int) -> dict[tuple[float, str], list[Any]]:
    """Direct (raw and 2-gram corrected) and vCLUB estimates at every length and split ratio.

    Parameters
    ----------
    parts : sequence of (scorer, rows)
        The rows (document prefixes of ``max(lengths)`` tokens) scored by that scorer
        alone, in nested passes (:func:`seqmi.bipartite.split_terms`); the samples of
        all parts are pooled (:func:`seqmi.bipartite.pool_terms`).
    lengths : sequence of int
        The lengths ``L``.
    ratios : sequence of float
        The split ratios ``L / ell`` (:func:`seqmi.bipartite.split_point`).
    ngram_h : float
        The 2-gram entropy that corrects the direct estimate.
    seed : int
        Seeds the vCLUB shuffles.

    Returns
    -------
    dict
        ``{(ratio, estimator): [BipartiteEstimate per length]}`` with the estimators
        ``"direct_raw"``, ``"direct"`` and ``"vclub"``.
    """
    cut = {(L, r): (L, split_point(L, r)) for L in lengths for r in ratios}
    splits = sorted(set(cut.values()))
    pooled = pool_terms([split_terms(scorer, rows, splits, ngram_h=ngram_h, seed=seed) for scorer, rows in parts])
    return {(r, est): [pooled[cut[L, r]][est] for L in lengths]
            for r in ratios for est in ("direct_raw", "direct", "vclub")}
