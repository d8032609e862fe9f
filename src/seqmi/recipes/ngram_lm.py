"""Training the SSM and RNN language models of n-gram languages (Nandakumar et al., Section 5).

The networks, and the completions, probes and state analyses made on them, are in
:mod:`seqmi.models.ngram_lm`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import torch
from torch import nn

from seqmi.data.ngram import NgramLanguage
from seqmi.device import DeviceLike, resolve_device
from seqmi.models.ngram_lm import MODELS, PAD_TARGET, batch_tensors
from seqmi.train import Batches, Member, Task, TrainConfig, TrainResult, fit, member_result
from seqmi.validate import check_choice, check_float, check_int


def train_language_model(kind: str, language: NgramLanguage, train: Sequence[Sequence[str]], *,
                         embed_dim: int, hidden_size: int, epochs: int, lr: float,
                         optimizer: str = "sgd", batch_size: int = 1, seed: int = 0,
                         device: DeviceLike = "cpu", progress: bool = True) -> TrainResult:
    """Train an SSM or RNN language model on ``train`` with the cross-entropy of every next word.

    A configuration of :func:`seqmi.train.fit`: the sentences reshuffled every epoch,
    batches cut to their longest sentence, no gradient clipping, a constant learning rate.

    Parameters
    ----------
    kind : {"ssm", "rnn"}
    language : NgramLanguage
        Supplies the vocabulary.
    train : sequence of sentences
    embed_dim, hidden_size : int
    epochs : int
        Passes over ``train``, reshuffled every epoch.
    lr : float
        Learning rate.
    optimizer : {"sgd", "adam"}
        Plain SGD (the paper's) or Adam.
    batch_size : int
        Sentences per step (1: one sentence per SGD step).
    seed : int
        Seeds the initialisation (torch) and the shuffling (numpy).
    device : str or torch.device
        ``"auto" | "cpu" | "cuda" | torch.device``.
    progress : bool
        Show a progress bar.

    Returns
    -------
    TrainResult
        The trained model (eval mode); ``epoch_losses``: the mean training cross-entropy
        (nats per word) of each epoch.
    """
    check_choice("kind", kind, MODELS)
    check_choice("optimizer", optimizer, ("sgd", "adam"))
    check_int("epochs", epochs, 1)
    check_int("batch_size", batch_size, 1)
    check_float("lr", lr, 0.0, low_open=True)
    device = resolve_device(device)
    torch.manual_seed(seed)
    model = MODELS[kind](len(language.vocab), embed_dim, hidden_size).to(device)
    config = TrainConfig(optimizer=optimizer, lr=lr, clip=None, batch_size=batch_size, max_epochs=epochs,
                         patience=None, restarts=1, seed=seed)
    ids, targets = batch_tensors(language, train, device)

    def epoch(rng: np.random.Generator, step: int) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
        order = torch.as_tensor(rng.permutation(len(train)), device=device)
        for start in range(0, len(train), batch_size):
            rows = order[start: start + batch_size]
            x, y = ids[rows], targets[rows]
            T = int((y != PAD_TARGET).sum(dim=1).max())
            yield x[:, :T], y[:, :T]

    loss_fn = nn.CrossEntropyLoss(ignore_index=PAD_TARGET)

    def loss(model: nn.Module, batch: tuple[torch.Tensor, torch.Tensor]) -> tuple[torch.Tensor, int]:
        x, y = batch
        logits = model(x)
        return loss_fn(logits.reshape(-1, logits.shape[-1]), y.reshape(-1)), int((y != PAD_TARGET).sum())

    task = Task(Batches(math.ceil(len(train) / batch_size), epoch), loss)
    member = Member(model, config, np.random.default_rng(seed), task)
    history: list[dict[str, Any]] = []
    start = time.perf_counter()
    fit([member], task, device=device, progress=progress, desc=f"{kind} ({optimizer}, lr {lr:g})",
        on_epoch_end=lambda records: history.extend(r for _, r in records))
    model.eval()
    return member_result(member, device=device, wall_s=time.perf_counter() - start, history=history)
