"""Sweep points of chapter 04: the Gaussian L2M experiment of Chen et al. 2025 (Fig. 4), the
same models and a linear SSM held to the exact linear-state bound (Thm. 5.2), SmolLM2's
samples for Shen 2019's Fig. 3(d), drawn in cached chunks so that a million
characters per temperature can be drawn over several runs, or by several processes, the
two character models of the text sections (a Transformer and a Mamba of equal size, Fig. 5),
checkpointed so that a rerun, or a second process started earlier, need not train them again,
and the fold models that hold every chapter out of one character Transformer (the bipartite
estimates over the whole corpus)."""

from __future__ import annotations

import hashlib
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
from seqmi.data.text import CharVocab, Document, join
from seqmi.l2m import history_state_size, linear_state_excess
from seqmi.models.gaussian_lm import GaussianSequenceModel
from seqmi.recipes.gaussian_tokens import evaluate_kl, train_gaussian
from seqmi.models.lm import TransformerLM
from seqmi.models.mamba import MambaLM
from seqmi.progress import progress_bar
from seqmi.rng import child_seed
from seqmi.sweep import current_budget, sweep_key, unkeyed
from seqmi.train import Sequences, TrainConfig, TrainResult, train
from seqmi.validate import check_choice, check_float, check_int


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
        Resolved where a point is computed (``"auto"``: the worker's GPU if it has one);
        not part of the cache keys.
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
    device: str = unkeyed("cpu")


def gaussian_point(point: tuple[str, int, int, int], checkpoint_dir: str | None,
                   settings: GaussianSettings) -> dict[str, Any]:
    """Train one model on the sub-volume Gaussian and measure its position-wise KL.

    Parameters
    ----------
    point : (backbone, width, L, replicate)
        ``backbone`` in ``{"transformer", "mamba"}``; ``L`` a power of 4; ``replicate``
        numbers independent runs (initialisation and data) of the same model.
    checkpoint_dir : str or None
        The training run's checkpoint (every minute, and when the sweep's budget stops
        it): a rerun resumes from it and ends as if it had not stopped.
    settings : GaussianSettings

    Returns
    -------
    dict
        ``position_kl`` (list, nats per coordinate), ``average_kl``, ``final_train_loss``
        (mean of the last 10 updates), ``state_size`` (``dim(z_(L/2))``), ``n_params``,
        ``bipartite_mi`` (exact, nats), ``device`` (where it ran).
    """
    backbone, width, length, rep = point
    dist = SubvolumeGaussian(round(math.log(length, 4)), copies=settings.token_dim)
    torch.manual_seed(child_seed(settings.seed, "l2m-init", backbone, width, length, rep))
    model = GaussianSequenceModel(backbone, settings.token_dim, width, settings.layers, settings.heads,
                                  settings.max_len, settings.d_state)
    losses = train_gaussian(model, dist, settings.steps, settings.batch, settings.lr, settings.warmup,
                            device=settings.device, seed=child_seed(settings.seed, "l2m-train", length, rep),
                            progress=False, checkpoint_dir=checkpoint_dir, budget=current_budget())
    kl = evaluate_kl(model, dist, settings.n_eval, settings.batch, device=settings.device,
                     seed=child_seed(settings.seed, "l2m-eval", length))
    return {"position_kl": kl.tolist(), "average_kl": float(kl.mean()), "final_train_loss": float(losses[-10:].mean()),
            "state_size": history_state_size(model, length // 2), "n_params": sum(p.numel() for p in model.parameters()),
            "bipartite_mi": dist.bipartite_mi(),
            "device": str(next(model.parameters()).device)}


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
                        device: str | torch.device = "cpu", cache_dir: str | None = None,
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
    device : str
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
    device: str = unkeyed("cpu")

    def __post_init__(self) -> None:
        check_int("copies", self.copies, 1, 256)
        check_int("head_width", self.head_width, 1)
        check_int("layers", self.layers, 1, 48)
        check_int("heads", self.heads, 1)
        check_int("d_state", self.d_state, 1, 256)
        check_int("steps", self.steps, 1)
        check_int("batch", self.batch, 1)
        check_int("warmup", self.warmup, 0, self.steps)
        check_float("lr", self.lr, 0.0, 1.0, low_open=True)
        check_int("n_eval", self.n_eval, 1)
        check_int("seed", self.seed, 0)


@lru_cache(maxsize=None)
def _per_copy_correlations(length: int) -> NDArray[np.float64]:
    """One copy's canonical correlations at the equal split of length ``length`` (cached)."""
    return SubvolumeGaussian(round(math.log(length, 4))).canonical_correlations()


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
    device : str
        Resolved where a chunk is drawn; not part of the cache keys.
    """

    chunk_chars: int
    batch: int
    max_new_tokens: int
    seed: int
    device: str = unkeyed("cpu")


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
                  device: str | torch.device = "cpu", cache_dir: str | None = None) -> TrainResult:
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
    return train(lambda: char_lm(kind, vocab_size, width, settings), data, config, device=device,
                 checkpoint_dir=checkpoint)


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
