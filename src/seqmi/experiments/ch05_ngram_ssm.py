"""Runs of chapter 05: Section 5's trained SSM and RNN language models, over random splits."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from torch import nn

from seqmi.data.ngram import NgramLanguage
from seqmi.device import DeviceLike
from seqmi.models.ngram_lm import completion_accuracy
from seqmi.recipes.ngram_lm import train_language_model
from seqmi.rng import child_seed
from seqmi.validate import check_int


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
