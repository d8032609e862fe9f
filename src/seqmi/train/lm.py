"""The language models' recipe: next-token cross-entropy, validation loss, and their :class:`~seqmi.train.loop.Task`.

Autoregressive models (:mod:`seqmi.models.lm`) read :class:`seqmi.train.data.Sequences`
whole from the start token (:func:`seqmi.train.lm.sequence_loss`), or a
:class:`seqmi.train.data.Stream` in windows of truncated BPTT with the recurrent state
carried over. :func:`seqmi.train.lm.language_model_task` is the task
:func:`seqmi.train.families.train_family` trains them for.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from seqmi.device import DeviceLike, resolve_device
from seqmi.train.data import Batches, Sequences, Stream, steps_per_epoch, stream_tracks
from seqmi.train.loop import Task


def sequence_loss(model: nn.Module, seqs: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy (nats/token) of whole sequences read from the start token.

    Parameters
    ----------
    model : RNNLM or TransformerLM
    seqs : LongTensor, shape (batch, length)
        Token ids in ``[0, vocab_size)``.

    Returns
    -------
    Tensor
        Scalar loss.
    """
    bos = torch.full((seqs.shape[0], 1), model.bos, dtype=seqs.dtype, device=seqs.device)
    logits = model(torch.cat([bos, seqs[:, :-1]], dim=1))
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), seqs.reshape(-1))



def _detach(state: Any) -> Any:
    if state is None:
        return None
    if isinstance(state, tuple):
        return tuple(s.detach() for s in state)
    return state.detach()


@torch.no_grad()
def evaluate(model: nn.Module, data: Sequences | Stream, device: DeviceLike = "cpu", batch_size: int = 256,
             amp: bool = False) -> float:
    """Mean validation cross-entropy in nats per token.

    ``Sequences``: every row read from the start token. ``Stream``: the validation
    stream read in ``batch_size`` contiguous tracks with the state carried throughout.
    """
    device = resolve_device(device)
    model.eval()
    total, count = 0.0, 0
    with torch.autocast(device.type, dtype=torch.bfloat16, enabled=amp):
        if isinstance(data, Sequences):
            valid = torch.as_tensor(np.asarray(data.valid, dtype=np.int64))
            for start in range(0, len(valid), batch_size):
                x = valid[start: start + batch_size].to(device)
                total += float(sequence_loss(model, x)) * x.numel()
                count += x.numel()
        else:
            tracks = stream_tracks(data.valid, min(batch_size, max(1, len(data.valid) // (data.bptt + 1))))
            state = None
            for start in range(0, tracks.shape[1] - 1, data.bptt):
                chunk = tracks[:, start: start + data.bptt + 1].to(device)
                logits, state = model.forward_with_state(chunk[:, :-1], state)
                target = chunk[:, 1:]
                total += float(F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(),
                                               target.reshape(-1), reduction="sum"))
                count += target.numel()
    model.train()
    return total / count


class _StreamLoss:
    """Cross-entropy of a BPTT window, the recurrent state carried over from the member's last window."""

    def __init__(self) -> None:
        self.carried: dict[int, Any] = {}

    def __call__(self, model: nn.Module, batch: tuple[torch.Tensor, bool]) -> tuple[torch.Tensor, int]:
        chunk, reset = batch
        logits, state = model.forward_with_state(chunk[:, :-1], None if reset else self.carried.get(id(model)))
        self.carried[id(model)] = _detach(state)
        target = chunk[:, 1:]
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), target.reshape(-1)), target.numel()


def language_model_task(data: Sequences | Stream, batch_size: int, device: DeviceLike = "cpu",
                        family: Any = None) -> Task:
    """The :class:`~seqmi.train.loop.Task` of :func:`seqmi.train.families.train`, for language models.

    Next-token cross-entropy, and the validation loss after every epoch.

    Parameters
    ----------
    data : Sequences or Stream
        ``Sequences``: rows shuffled every epoch by the member's generator, each read whole
        from the start token. ``Stream``: ``batch_size`` contiguous tracks read in windows
        of ``bptt`` tokens from an offset drawn every epoch; the carried state is zeroed at
        the start of an epoch and, with probability ``reset_prob``, of any window.
    batch_size : int
    device : str or torch.device
    family : object, optional
        Batched losses of several members (:class:`seqmi.family.RecurrentFamily`,
        :class:`seqmi.family.StackedFamily`; :func:`seqmi.family.family_for` picks one).

    Returns
    -------
    Task
        Its validation pass runs in float32 whatever autocast the training losses use:
        the validation loss picks the best restart and stops training at differences of
        about 1e-3 nats, while a bf16 forward pass rounds every logit to 8 significant
        bits (a relative error up to 2e-3).
    """
    device = resolve_device(device)
    if isinstance(data, Sequences):
        rows = torch.as_tensor(np.asarray(data.train, dtype=np.int64))

        def sequence_epoch(rng: np.random.Generator, step: int) -> Iterable[torch.Tensor]:
            order = torch.as_tensor(rng.permutation(len(rows)))
            for start in range(0, len(order), batch_size):
                yield rows[order[start: start + batch_size]].to(device, non_blocking=True)

        def loss(model: nn.Module, x: torch.Tensor) -> tuple[torch.Tensor, int]:
            return sequence_loss(model, x), x.numel()

        batches = Batches(steps_per_epoch(data, batch_size), sequence_epoch)
    else:
        tracks = stream_tracks(data.train, batch_size)

        def stream_epoch(rng: np.random.Generator, step: int) -> Iterable[tuple[torch.Tensor, bool]]:
            # the paper does not shuffle text: only the track offset varies between epochs
            offset = int(rng.integers(data.bptt))
            first = True
            for start in range(offset, tracks.shape[1] - data.bptt - 1, data.bptt):
                chunk = tracks[:, start: start + data.bptt + 1].to(device, non_blocking=True)
                # a reset teaches the model to start from the zero state
                reset = bool(rng.random() < data.reset_prob)
                yield chunk, first or reset
                first = False

        loss = _StreamLoss()
        # the state carried between windows is not in a checkpoint: one is written at epoch ends only
        batches = Batches(steps_per_epoch(data, batch_size), stream_epoch, replayable=False)
    return Task(batches, loss, evaluate=lambda model: evaluate(model, data, device), family=family)
