"""What the training loop reads: batch sources, and the two kinds of language-model data.

- :class:`~seqmi.train.data.Batches`: the loop's batch source, one epoch at a time, drawn
  from each member's own generator; whether a run can be checkpointed inside an epoch
  depends on how its batches are drawn (``replayable``, ``fresh``).
- :class:`~seqmi.train.data.Sequences`: independent rows ``(n, L)``, shuffled every
  epoch, each read whole from the start token (no truncated BPTT: the paper's binary
  task, and the Transformer's text windows);
- :class:`~seqmi.train.data.Stream`: one long token stream cut into ``batch_size``
  parallel contiguous tracks, read in windows of ``bptt`` tokens with the recurrent
  state carried across windows and reset to zero (all tracks) with probability
  ``reset_prob`` per batch (the paper's character-level LSTMs: BPTT 100, reset 0.01).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch


@dataclass(frozen=True)
class Sequences:
    """Independent sequences, one per row, each modelled from the start token.

    Attributes
    ----------
    train, valid : ndarray of int, shape (n, L)
    """

    train: np.ndarray
    valid: np.ndarray


@dataclass(frozen=True)
class Stream:
    """One contiguous stream per split, trained with truncated BPTT (recurrent models only).

    Attributes
    ----------
    train, valid : ndarray of int, shape (n_tokens,)
    bptt : int
        Truncation length of backpropagation through time.
    reset_prob : float
        Probability that the carried state is zeroed at the start of a batch.
    """

    train: np.ndarray
    valid: np.ndarray
    bptt: int = 100
    reset_prob: float = 0.01


@dataclass(frozen=True)
class Batches:
    """A batch source: how many steps an epoch has, and the batches of one epoch.

    Attributes
    ----------
    steps_per_epoch : int
        The epoch's length, or a bound on it if it varies (it sets the length of the
        learning-rate schedule: ``steps_per_epoch * max_epochs``).
    epoch : callable
        ``epoch(rng, step) -> iterable of batches`` for one member: ``rng`` is the
        member's own generator (its data order), ``step`` the number of optimizer steps
        it has taken so far. The epoch ends when the iterable does; it should draw from
        ``rng`` lazily, as batches are taken (one per step). Members trained together
        need epochs of equal length.
    replayable : bool
        Whether an epoch's batches depend on the generator and ``step`` only, not on the
        model being trained. Then a run can be checkpointed inside an epoch, and resumed
        by drawing the epoch's batches again from its start up to the step reached
        (:func:`seqmi.train.loop.fit`). ``False`` (rollouts drawn by the policy being
        trained): at epoch ends only.
    fresh : bool
        Whether every batch is drawn as it is taken, from the generator's state then (or
        from its step alone), with nothing drawn at the epoch's start (no shuffle): a
        sampler, not a data set. Then a run checkpointed inside an epoch resumes from the
        generator's saved state and takes the epoch's remaining batches, without drawing
        again those it trained on (for a slow sampler, the replay would cost as much as
        the steps already taken). Implies ``replayable``.
    """

    steps_per_epoch: int
    epoch: Callable[[np.random.Generator, int], Iterable[Any]]
    replayable: bool = True
    fresh: bool = False

    def __post_init__(self) -> None:
        if self.fresh and not self.replayable:
            raise ValueError("fresh batches depend on the generator alone: fresh=True needs replayable=True")


def steps_per_epoch(data: Sequences | Stream, batch_size: int) -> int:
    """Optimizer steps in one epoch of ``data`` read in batches of ``batch_size`` rows or tracks."""
    if isinstance(data, Sequences):
        return math.ceil(len(data.train) / batch_size)
    return max(1, (len(data.train) // batch_size - 1) // data.bptt)


def stream_tracks(stream: np.ndarray, batch_size: int) -> torch.Tensor:
    """``stream`` cut into ``batch_size`` contiguous tracks, shape ``(batch_size, len(stream) // batch_size)``.

    The tokens left over by the division are dropped.
    """
    per = len(stream) // batch_size
    return torch.as_tensor(np.asarray(stream[: per * batch_size], dtype=np.int64)).view(batch_size, per)
