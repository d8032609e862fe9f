"""Length transfer: models trained on Copy at a short delay, then tested, frozen, at longer ones.

The kinds of Table 5 (``transfer_point``) and RelLSTM's column (``rellstm_point``).
"""

from __future__ import annotations

import time
from typing import Any

import torch
from torch import nn

from seqmi.data.copy_tasks import copy_task
from seqmi.device import resolve_device
from seqmi.experiments.ch06_attention_gradients._copy_tasks import (ATTENTIVE, N_IN, N_OUT, RHO, TARGET, TASK_NU,
                                                                    _model, _recall_run, _sampler)
from seqmi.experiments.ch06_attention_gradients._settings import RelLSTMSettings, TransferSettings
from seqmi.models.attentive_rnn import recall_attention_mass, transfer_accuracy
from seqmi.models.memory_lstm import MemoryLSTM
from seqmi.recipes.copy_tasks import fresh_recall, train_task_model
from seqmi.rng import child_seed
from seqmi.sweep import current_budget
from seqmi.validate import check_int


def transfer_point(kind: str, checkpoint_dir: str | None, settings: TransferSettings) -> dict[str, Any]:
    """Train ``kind`` on Copy at ``copy_length``, then test it, frozen, at every transfer length.

    Every kind is trained on the same batches and tested on the same held-out sequences
    (one seed for every delay); the attention on the symbol states is read on the first
    of them. RelRNN is then fine-tuned at ``long_length`` when ``long_steps > 0``.

    Parameters
    ----------
    kind : str
        In ``TaskModel.KINDS`` (RelRNN with ``nu = 10``, ``rho = 15``).
    checkpoint_dir : str or None
        Unused: a point takes minutes at most and is recomputed if interrupted.
    settings : TransferSettings

    Returns
    -------
    dict
        The Copy run: ``updates``, ``steps_to_99`` (None if :data:`TARGET` was not
        reached), ``accuracy``, ``seconds_per_update``, ``step_losses``, ``eval_steps``,
        ``eval_accuracy`` (on the batch the run stopped on); ``fresh``: ``accuracy`` and
        ``sequences`` of the fresh held-out batch at ``copy_length``, which no stopping rule
        saw; the test: ``transfer`` (``{str(T): accuracy}``),
        ``symbol_attention_mass`` (``{str(T): mass}``, attentive kinds only, else None);
        ``long_run`` (RelRNN with ``long_steps > 0`` only, else None): ``accuracy``,
        ``seconds_per_update``, ``eval_accuracy``; ``device`` (where it ran).
    """
    dev = resolve_device(settings.device)
    model = _model(kind, settings.hidden, TASK_NU["copy"], RHO, child_seed(settings.seed, "transfer", "init", kind))
    batches = child_seed(settings.seed, "transfer", "batches")
    run = train_task_model(model, _sampler("copy", settings.copy_length), settings.copy_steps, settings.batch,
                           settings.lr, batches, dev, eval_every=settings.eval_every, target=TARGET,
                           desc=f"copy T={settings.copy_length} {kind}")
    fresh = {"accuracy": fresh_recall(model, _sampler("copy", settings.copy_length), batches, settings.fresh_batch,
                                      dev), "sequences": settings.fresh_batch}
    held_out = child_seed(settings.seed, "transfer", "held-out")
    lengths = list(settings.transfer_lengths)
    transfer = transfer_accuracy(model, copy_task, lengths, settings.transfer_batch, held_out, dev)
    mass = ({str(T): recall_attention_mass(model, copy_task(1, T, held_out)[0][0]) for T in lengths}
            if kind in ATTENTIVE else None)
    long_run = None
    if kind == "relrnn" and settings.long_steps:
        # a smaller rate than at copy_length: lr 1e-2 at T = 1000 threw the solution away within 60 updates
        long = train_task_model(model, _sampler("copy", settings.long_length), settings.long_steps, settings.batch,
                                settings.long_lr, child_seed(settings.seed, "transfer", "long", "batches"), dev,
                                eval_every=max(1, settings.long_steps // 5),
                                desc=f"copy T={settings.long_length} {kind}")
        long_run = {"accuracy": float(long.final_metric), "seconds_per_update": float(long.seconds_per_step),
                    "eval_accuracy": long.eval_metric.tolist()}
    return {"updates": len(run.step_losses), "steps_to_99": run.steps_to_target, "accuracy": float(run.final_metric),
            "seconds_per_update": float(run.seconds_per_step), "step_losses": run.step_losses.tolist(),
            "eval_steps": run.eval_steps.tolist(), "eval_accuracy": run.eval_metric.tolist(), "fresh": fresh,
            "transfer": {str(T): float(a) for T, a in transfer.items()}, "symbol_attention_mass": mass,
            "long_run": long_run, "device": str(dev)}


class RelLSTMCopyModel(nn.Module):
    """RelLSTM as a sequence classifier: one-hot symbols -> relevancy-screening LSTM -> linear readout.

    The core is :class:`~seqmi.models.memory_lstm.MemoryLSTM` of kind ``"relevancy"`` (the
    authors' LSTM variant: the gates read ``[x_t, s_{t-1}]``, ``s_t = (h_t + c_t) / 2``),
    stepped over the sequence; the interface is :class:`~seqmi.models.attentive_rnn.TaskModel`'s, so that the Copy
    recipe trains and scores it alike.

    Parameters
    ----------
    n_in, n_out : int
        Input alphabet and number of output classes.
    hidden : int
        Width of the core.
    nu, rho : int
        Buffer and relevant-set sizes.
    """

    kind = "rellstm"

    def __init__(self, n_in: int, n_out: int, hidden: int, nu: int, rho: int) -> None:
        super().__init__()
        check_int("n_in", n_in, 2)
        check_int("n_out", n_out, 2)
        self.n_in = n_in
        self.core = MemoryLSTM(n_in, hidden, "relevancy", nu, rho)
        self.readout = nn.Linear(hidden, n_out)

    def forward(self, tokens: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """Logits ``(B, T, n_out)`` and the per-step outputs ``s_t`` (T tensors ``(B, hidden)``)."""
        x = nn.functional.one_hot(tokens, self.n_in).to(self.readout.weight.dtype)  # (B, T) -> (B, T, I)
        s, _ = self.core(x)  # (B, T, C)
        return self.readout(s), list(s.unbind(1))  # (B, T, O)


def rellstm_point(rep: int, checkpoint_dir: str | None, settings: RelLSTMSettings) -> dict[str, Any]:
    """Train RelLSTM on Copy at ``copy_length`` until it recalls :data:`TARGET`, then test it at ``test_length``.

    Parameters
    ----------
    rep : int
        Numbers independent runs (initialisation and batches).
    checkpoint_dir : str or None
        The run's checkpoint (every minute, and when the sweep's budget stops it).
    settings : RelLSTMSettings

    Returns
    -------
    dict
        ``updates``, ``steps_to_99`` (None if :data:`TARGET` was not reached),
        ``accuracy`` (on the batch the run stopped on), ``fresh`` (``accuracy`` and
        ``sequences`` at ``copy_length``, a batch no stopping rule saw),
        ``seconds_per_update``, ``eval_steps``, ``eval_accuracy``; ``test``
        (``{"length", "sequences", "accuracy", "seconds"}``: recall on fresh sequences at
        ``test_length``); ``device``.
    """
    dev = resolve_device(settings.device)
    torch.manual_seed(child_seed(settings.seed, "rellstm", "init", rep))
    model = RelLSTMCopyModel(N_IN, N_OUT, settings.hidden, TASK_NU["copy"], RHO)
    batches = child_seed(settings.seed, "rellstm", "batches", rep)
    sample = _sampler("copy", settings.copy_length)
    run = train_task_model(model, sample, settings.copy_steps, settings.batch, settings.lr, batches, dev,
                           eval_every=settings.eval_every, target=TARGET,
                           desc=f"copy T={settings.copy_length} rellstm run {rep}", checkpoint_dir=checkpoint_dir,
                           budget=current_budget())
    record = _recall_run(run, model, sample, batches, settings.fresh_batch, dev)
    start = time.perf_counter()
    tested = transfer_accuracy(model, copy_task, [settings.test_length], settings.test_batch,
                               child_seed(settings.seed, "rellstm", "held-out", rep), dev)
    test = {"length": settings.test_length, "sequences": settings.test_batch,
            "accuracy": float(tested[settings.test_length]), "seconds": time.perf_counter() - start}
    return {**record, "test": test, "device": str(dev)}
