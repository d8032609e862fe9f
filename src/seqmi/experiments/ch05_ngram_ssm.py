"""Settings and runs of chapter 05: the constructions' checks, and Section 5's trained SSM and RNN models over
random splits, with the grouping of their states by the last n - 1 words (Fig. 4)."""

from __future__ import annotations

from seqmi._optional import require

require("torch")  # a missing torch fails naming its extra

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from torch import nn

from seqmi.data.ngram import NgramLanguage
from seqmi.device import DeviceLike, check_device
from seqmi.models.ngram_lm import completion_accuracy, explained_by_groups, hidden_states, shuffled_label_null
from seqmi.recipes.ngram_lm import train_language_model
from seqmi.rng import child_seed
from seqmi.validate import check_float, check_float_list, check_int, check_int_list


@dataclass(frozen=True)
class ConstructionSettings:
    """What the chapter's exact sections read: the constructions' checks, scans and piece counts.

    Attributes
    ----------
    eps_values : list of float
        Equivalence levels ``eps`` at which the construction is checked, in ``(0, 1)``.
    embed_dims, cond_dims, scan_dims : list of int
        Embedding dimensions of the check, of the conditioning scan and of the growing
        random languages (``scan_dims`` includes 1, the paper's extreme case).
    cond_seeds : int
        Constructions (weight draws) per dimension in the conditioning scan.
    random_eps : float
        ``eps`` of the random n-gram languages.
    scan_starts : list of int
        Start sequences of the random 4-gram languages of growing size.
    n_points : int
        Points ``N`` of the alternating set (Prop. A.8), 3 to 200.
    n_random_ssms : int
        Random SSMs per hidden size in the piece count.
    fit_restarts, fit_steps : int
        Random starts and full-batch Adam steps of the SSMs fitted to the alternating set.
    fit_lr : float
        Their Adam learning rate.
    """

    eps_values: Sequence[float]
    embed_dims: Sequence[int]
    cond_dims: Sequence[int]
    cond_seeds: int
    random_eps: float
    scan_starts: Sequence[int]
    scan_dims: Sequence[int]
    n_points: int
    n_random_ssms: int
    fit_restarts: int
    fit_steps: int
    fit_lr: float

    def __post_init__(self) -> None:
        check_float_list("eps_values", self.eps_values, 0.0, 1.0, low_open=True, high_open=True)
        check_int_list("embed_dims", self.embed_dims, 1, 1024)
        check_int_list("cond_dims", self.cond_dims, 1, 1024)
        check_int("cond_seeds", self.cond_seeds, 1)
        check_float("random_eps", self.random_eps, 0.0, 1.0, low_open=True, high_open=True)
        check_int_list("scan_starts", self.scan_starts, 1, 64)
        if 1 not in check_int_list("scan_dims", self.scan_dims, 1, 1024):
            raise ValueError(f"scan_dims must include 1, got {self.scan_dims!r}")
        check_int("n_points", self.n_points, 3, 200)
        check_int("n_random_ssms", self.n_random_ssms, 1)
        check_int("fit_restarts", self.fit_restarts, 1)
        check_int("fit_steps", self.fit_steps, 0)
        check_float("fit_lr", self.fit_lr, 0.0, low_open=True)


@dataclass(frozen=True)
class TrainingSettings:
    """What Section 5's trained models read (the paper's recipe, and ours where it differs).

    Attributes
    ----------
    n_train : int
        Training sentences per split (at most 7000).
    n_seeds : int
        Random splits, one model each.
    epochs : int
    paper_lr, tuned_lr : float
        The paper's SGD learning rate, and ours where the paper's does not converge.
    embed_dim : int
        Embedding dimension of the trained models.
    small_dims : list of int
        Small embedding dimensions of Section 5.1's convergence check.
    small_lrs : list of float
        SGD learning rates tried at each of them.
    small_select_seeds : int
        Splits of a seed of their own that choose the smallest dimension's learning rate.
    hidden_size : int
        Hidden neurons of the trained models.
    prefix_length : int
        Test sentences are cut to this many words, 3 to 13.
    window_tol : float
        Damping that defines the effective context window of a trained ``A``.
    null_permutations : int
        Shuffles of the last-trigram labels per trained model, the null of Fig. 4's
        clustering (:func:`state_clustering`).
    seed : int
        The chapter's seed.
    device : str or torch.device
        Where the models train (the constructions run in numpy).
    """

    n_train: int
    n_seeds: int
    epochs: int
    paper_lr: float
    tuned_lr: float
    embed_dim: int
    small_dims: Sequence[int]
    small_lrs: Sequence[float]
    small_select_seeds: int
    hidden_size: int
    prefix_length: int
    window_tol: float
    null_permutations: int = 100
    seed: int = 0
    device: DeviceLike = "auto"

    def __post_init__(self) -> None:
        check_int("n_train", self.n_train, 1, 7000)
        check_int("n_seeds", self.n_seeds, 1)
        check_int("epochs", self.epochs, 1)
        check_float("paper_lr", self.paper_lr, 0.0, low_open=True)
        check_float("tuned_lr", self.tuned_lr, 0.0, low_open=True)
        check_int("embed_dim", self.embed_dim, 1)
        check_int_list("small_dims", self.small_dims, 1, 1024)
        check_float_list("small_lrs", self.small_lrs, 0.0, 10.0, low_open=True)
        check_int("small_select_seeds", self.small_select_seeds, 2, 100)
        check_int("hidden_size", self.hidden_size, 1)
        check_int("prefix_length", self.prefix_length, 3, 13)
        check_float("window_tol", self.window_tol, 0.0, 1.0, low_open=True, high_open=True)
        check_int("null_permutations", self.null_permutations, 1)
        check_int("seed", self.seed, 0)
        check_device(self.device)


@dataclass
class SplitRun:
    """One model trained on one random split of the language.

    Attributes
    ----------
    model : nn.Module
        The trained model (eval mode).
    loss : list of float
        Training cross-entropy after each epoch (nats/word).
    accuracy : float
        Completion accuracy on the held-out sentences.
    test : list of tuple of str
        The held-out sentences.
    """

    model: nn.Module
    loss: list[float]
    accuracy: float
    test: list[tuple[str, ...]]

    @property
    def diverged(self) -> bool:
        """Whether the final training loss is not finite."""
        return not np.isfinite(self.loss[-1])


def split_runs(kind: str, language: NgramLanguage, *, n_train: int, n_splits: int, prefix_length: int,
               seed: int, device: DeviceLike = "cpu", **train_args: Any) -> list[SplitRun]:
    """Train ``kind`` once on each of ``n_splits`` random splits, and test its completions.

    Split ``s`` draws its ``n_train`` training sentences with the seed
    ``child_seed(seed, "split", s)``, the same for every model and setting, so that models
    and learning rates are compared on the same data; the model's initialisation and
    shuffling use ``child_seed(seed, "init", s)``.

    Parameters
    ----------
    kind : {"ssm", "rnn"}
    language : NgramLanguage
    n_train : int
        Training sentences per split; the other sentences are the test set.
    n_splits : int
        Independent splits (the paper's seeds).
    prefix_length : int
        Test sentences are truncated to this many words and completed greedily.
    seed : int
        The chapter's seed.
    device : str or torch.device
    **train_args
        Passed to :func:`seqmi.recipes.ngram_lm.train_language_model` (``embed_dim``,
        ``hidden_size``, ``epochs``, ``lr``, ``optimizer``, ...).

    Returns
    -------
    list of SplitRun
        One per split, in order.
    """
    check_int("n_splits", n_splits, 1)
    runs = []
    for s in range(n_splits):
        train, test = language.split(n_train, child_seed(seed, "split", s))
        res = train_language_model(kind, language, train, seed=child_seed(seed, "init", s), device=device,
                                   **train_args)
        runs.append(SplitRun(res.model, list(res.epoch_losses),
                             completion_accuracy(res.model, language, test, prefix_length, device), test))
    return runs


def state_clustering(runs: Sequence[SplitRun], language: NgramLanguage, prefixes: Sequence[Sequence[str]], *,
                     permutations: int, seed: int, device: DeviceLike = "cpu") -> dict[str, list[float]]:
    """How far each run's states group by the prefix's last ``n - 1`` words, against shuffled labels (Fig. 4).

    For run ``s``: the fraction of the variance of its states after ``prefixes`` that the
    last ``n - 1`` words explain (:func:`seqmi.models.ngram_lm.explained_by_groups`), the
    same fraction with those labels shuffled across the states, ``permutations`` times
    (:func:`seqmi.models.ngram_lm.shuffled_label_null`, seeded ``child_seed(seed,
    "shuffle", s)``), and the permutation p-value of the observed fraction.

    Parameters
    ----------
    runs : sequence of SplitRun
        One trained model per seed.
    language : NgramLanguage
    prefixes : sequence of sentences
        Where the states are read (the chapter: every valid starting sequence).
    permutations : int
        Shuffles per run, at least 1.
    seed : int
    device : str or torch.device

    Returns
    -------
    dict of str to list of float
        ``"explained"``, ``"null_mean"`` (the mean over the shuffles) and ``"p_value"``
        (``(1 + shuffles at least as large) / (1 + permutations)``), one entry per run.
    """
    check_int("permutations", permutations, 1)
    labels = [tuple(p[-(language.n - 1):]) for p in prefixes]
    out: dict[str, list[float]] = {"explained": [], "null_mean": [], "p_value": []}
    for s, run in enumerate(runs):
        states = hidden_states(run.model, language, prefixes, device)
        explained = explained_by_groups(states, labels)
        null = shuffled_label_null(states, labels, permutations, child_seed(seed, "shuffle", s))
        out["explained"].append(explained)
        out["null_mean"].append(float(null.mean()))
        out["p_value"].append(float((1 + (null >= explained).sum()) / (1 + permutations)))
    return out
