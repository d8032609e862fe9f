"""The training loop every chapter reuses.

:func:`train` fits an autoregressive model (:mod:`seqmi.models.lm`) by maximum
likelihood with the recipe of Shen 2019, App. E:

- optimizer RMSprop (RNNs) or Adam/AdamW (Transformers), gradient-norm clipping;
- learning rate: linear warmup then cosine annealing down to ``min_lr_ratio`` times the
  peak (the paper's Transformers anneal to 1/32), or constant (the paper's RNNs);
- early stopping when the validation loss has not improved for ``patience`` epochs
  (paper: 5), and ``restarts`` independent runs (paper: 5) of which the one with the
  lowest validation loss is kept;
- bf16 autocast on CUDA for models that declare ``amp_safe`` (Transformers), float32
  otherwise;
- a checkpoint after every epoch holding everything the loop's future depends on
  (weights, optimizer, step, data-order generator, best weights so far, finished
  restarts), written atomically, so that an interrupted run resumed from it ends with
  bit-identical weights on the same machine;
- one JSON line per epoch in ``log_path``.

Two kinds of data:

- :class:`Sequences`: independent rows ``(n, L)``, shuffled every epoch, each read
  whole from the start token (no truncated BPTT: the paper's binary task, and the
  Transformer's text windows);
- :class:`Stream`: one long token stream cut into ``batch_size`` parallel contiguous
  tracks, read in windows of ``bptt`` tokens with the recurrent state carried across
  windows and reset to zero (all tracks) with probability ``reset_prob`` per batch (the paper's
  character-level LSTMs: BPTT 100, reset 0.01).
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from seqmi.models.lm import sequence_loss
from seqmi.validate import check_choice, check_float, check_int

OPTIMIZERS = ("rmsprop", "adam", "adamw", "sgd")
SCHEDULES = ("constant", "cosine", "plateau")
CHECKPOINT_FILE = "checkpoint.pt"


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
class TrainConfig:
    """Hyper-parameters of :func:`train` (defaults: the paper's binary-sequence LSTM).

    Attributes
    ----------
    optimizer : {"rmsprop", "adam", "adamw", "sgd"}
        ``"sgd"``: plain SGD, no momentum (the PyTorch word-language-model example).
    lr : float
        Peak learning rate.
    weight_decay : float
        Decoupled weight decay (AdamW only).
    clip : float
        Maximum gradient norm.
    batch_size : int
    max_epochs : int
    patience : int
        Epochs without validation improvement before stopping.
    restarts : int
        Independent runs; the best validation model is kept.
    schedule : {"constant", "cosine", "plateau"}
        ``"plateau"``: constant, divided by ``plateau_factor`` after every epoch whose
        validation loss is not a new best (the PyTorch word-language-model example).
    warmup_steps : int
        Linear warmup steps (both schedules).
    min_lr_ratio : float
        Final learning rate of the cosine schedule, relative to ``lr``.
    plateau_factor : float
        Divisor of the learning rate at each cut of the plateau schedule.
    amp : bool or None
        bf16 autocast; ``None``: on CUDA for ``model.amp_safe`` models only.
    seed : int
        Seeds the weights of restart ``r`` (``seed * 1000 + r``) and the data order.
    """

    optimizer: str = "rmsprop"
    lr: float = 0.005
    weight_decay: float = 0.0
    clip: float = 0.25
    batch_size: int = 50
    max_epochs: int = 200
    patience: int = 5
    restarts: int = 5
    schedule: str = "constant"
    warmup_steps: int = 0
    min_lr_ratio: float = 1 / 32
    plateau_factor: float = 4.0
    amp: bool | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        check_choice("optimizer", self.optimizer, OPTIMIZERS)
        check_choice("schedule", self.schedule, SCHEDULES)
        check_float("lr", self.lr, 0.0, low_open=True)
        check_float("weight_decay", self.weight_decay, 0.0)
        check_float("clip", self.clip, 0.0, low_open=True)
        check_int("batch_size", self.batch_size, 1)
        check_int("max_epochs", self.max_epochs, 1)
        check_int("patience", self.patience, 1)
        check_int("restarts", self.restarts, 1)
        check_int("warmup_steps", self.warmup_steps, 0)
        check_float("min_lr_ratio", self.min_lr_ratio, 0.0, 1.0)
        check_float("plateau_factor", self.plateau_factor, 1.0)
        check_int("seed", self.seed, 0)


@dataclass
class TrainResult:
    """What :func:`train` returns.

    Attributes
    ----------
    model : nn.Module
        The model holding the best validation weights over all restarts (in eval mode).
    best_val_loss : float
        Its validation loss (nats/token).
    best_restart : int
    restart_val_losses : list of float
        Best validation loss of every restart.
    epochs : list of int
        Epochs run by every restart.
    tokens_per_s : float
        Training throughput (tokens through forward+backward per second of training).
    wall_s : float
        Wall time of this call (a resumed run counts only its own part).
    device : str
    amp : bool
    """

    model: nn.Module
    best_val_loss: float
    best_restart: int
    restart_val_losses: list[float]
    epochs: list[int]
    tokens_per_s: float
    wall_s: float
    device: str
    amp: bool
    history: list[dict[str, Any]] = field(default_factory=list)


def lr_factor(step: int, total_steps: int, config: TrainConfig) -> float:
    """Learning-rate multiplier at optimizer step ``step`` (0-based) of ``total_steps``."""
    if step < config.warmup_steps:
        return (step + 1) / config.warmup_steps
    if config.schedule in ("constant", "plateau"):
        return 1.0
    span = max(1, total_steps - config.warmup_steps)
    progress = min(1.0, (step - config.warmup_steps) / span)
    return config.min_lr_ratio + (1 - config.min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * progress))


def _make_optimizer(model: nn.Module, config: TrainConfig) -> torch.optim.Optimizer:
    params = model.parameters()
    if config.optimizer == "rmsprop":
        # Keras' RMSprop: rho 0.9, epsilon 1e-7 (the paper trains RNNs in Keras)
        return torch.optim.RMSprop(params, lr=config.lr, alpha=0.9, eps=1e-7)
    if config.optimizer == "adam":
        return torch.optim.Adam(params, lr=config.lr, betas=(0.9, 0.999))
    if config.optimizer == "sgd":
        return torch.optim.SGD(params, lr=config.lr)
    return torch.optim.AdamW(params, lr=config.lr, betas=(0.9, 0.999), weight_decay=config.weight_decay)


def _steps_per_epoch(data: Sequences | Stream, batch_size: int) -> int:
    if isinstance(data, Sequences):
        return math.ceil(len(data.train) / batch_size)
    return max(1, (len(data.train) // batch_size - 1) // data.bptt)


def _tracks(stream: np.ndarray, batch_size: int) -> torch.Tensor:
    per = len(stream) // batch_size
    return torch.as_tensor(np.asarray(stream[: per * batch_size], dtype=np.int64)).view(batch_size, per)


def _detach(state: Any) -> Any:
    if state is None:
        return None
    if isinstance(state, tuple):
        return tuple(s.detach() for s in state)
    return state.detach()


@torch.no_grad()
def evaluate(model: nn.Module, data: Sequences | Stream, device: torch.device, batch_size: int = 256,
             amp: bool = False) -> float:
    """Mean validation cross-entropy in nats per token.

    ``Sequences``: every row read from the start token. ``Stream``: the validation
    stream read in ``batch_size`` contiguous tracks with the state carried throughout.
    """
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
            tracks = _tracks(data.valid, min(batch_size, max(1, len(data.valid) // (data.bptt + 1))))
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


def _save_atomic(payload: dict[str, Any], path: Path) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save(payload, tmp)
    os.replace(tmp, path)


def _log(log_path: Path | None, record: dict[str, Any]) -> None:
    if log_path is not None:
        with open(log_path, "a") as f:
            f.write(json.dumps(record) + "\n")


def train(make_model: Callable[[], nn.Module], data: Sequences | Stream, config: TrainConfig,
          device: torch.device | str = "cpu", checkpoint_dir: str | os.PathLike | None = None,
          log_path: str | os.PathLike | None = None, progress: bool = True,
          on_epoch_end: Callable[[dict[str, Any]], None] | None = None) -> TrainResult:
    """Train ``config.restarts`` models and return the one with the best validation loss.

    Parameters
    ----------
    make_model : callable
        Builds a fresh model (called after seeding torch, once per restart and once more
        for the returned model).
    data : Sequences or Stream
    config : TrainConfig
    device : torch.device or str
    checkpoint_dir : path, optional
        Folder of ``checkpoint.pt``: if it exists the run resumes from it; it is
        rewritten after every epoch.
    log_path : path, optional
        JSON-lines file receiving one record per epoch (appended).
    progress : bool
        Show a tqdm bar per restart.
    on_epoch_end : callable, optional
        Called with each epoch's log record after the checkpoint is written (an
        exception raised there interrupts the run with a valid checkpoint on disk).

    Returns
    -------
    TrainResult
    """
    from tqdm.auto import tqdm

    device = torch.device(device)
    amp = bool(config.amp if config.amp is not None else device.type == "cuda")
    probe = make_model()
    amp = amp and device.type == "cuda" and bool(getattr(probe, "amp_safe", False))
    if isinstance(data, Stream) and not hasattr(probe, "forward_with_state"):
        raise ValueError("Stream data (truncated BPTT) needs a recurrent model with forward_with_state")
    del probe
    ckpt_path = Path(checkpoint_dir) / CHECKPOINT_FILE if checkpoint_dir is not None else None
    if ckpt_path is not None:
        ckpt_path.parent.mkdir(parents=True, exist_ok=True)
    log_file = Path(log_path) if log_path is not None else None
    if log_file is not None:
        log_file.parent.mkdir(parents=True, exist_ok=True)
    steps_per_epoch = _steps_per_epoch(data, config.batch_size)
    total_steps = steps_per_epoch * config.max_epochs
    start_time = time.perf_counter()
    train_time, train_tokens = 0.0, 0

    state: dict[str, Any] | None = None
    if ckpt_path is not None and ckpt_path.is_file():
        state = torch.load(ckpt_path, map_location="cpu", weights_only=False)
        if state["config"] != asdict(config):
            raise ValueError(f"checkpoint {ckpt_path} was written with a different config")
    finished: list[dict[str, Any]] = state["finished"] if state else []
    history: list[dict[str, Any]] = state["history"] if state else []

    for restart in range(len(finished), config.restarts):
        torch.manual_seed(config.seed * 1000 + restart)
        model = make_model().to(device)
        opt = _make_optimizer(model, config)
        # cuts[0]: plateau cuts so far, read by the schedule at every step
        cuts = [0]
        sched = torch.optim.lr_scheduler.LambdaLR(
            opt, lambda s: lr_factor(s, total_steps, config) / config.plateau_factor ** cuts[0])
        rng = np.random.default_rng([config.seed, restart])
        epoch, best, best_state, bad = 0, math.inf, None, 0
        if state is not None and state.get("restart") == restart:
            model.load_state_dict(state["model"])
            opt.load_state_dict(state["optimizer"])
            sched.load_state_dict(state["scheduler"])
            rng.bit_generator.state = state["rng"]
            epoch, best, best_state, bad = state["epoch"], state["best"], state["best_state"], state["bad"]
            cuts[0] = state["cuts"]
            torch.set_rng_state(state["torch_rng"])
        state = None
        bar = tqdm(total=config.max_epochs, initial=epoch, desc=f"run {restart + 1}/{config.restarts}",
                   disable=not progress, leave=False)
        while epoch < config.max_epochs and bad < config.patience:
            t0 = time.perf_counter()
            loss_sum, tokens = _train_epoch(model, opt, sched, data, config, device, rng, amp)
            train_time += time.perf_counter() - t0
            train_tokens += tokens
            val = evaluate(model, data, device, amp=amp)
            epoch += 1
            if val < best:
                best, bad = val, 0
                best_state = {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}
            else:
                bad += 1
                if config.schedule == "plateau":
                    cuts[0] += 1
                    # applied now, not at the next scheduler step: the next epoch starts at the cut rate
                    for group, base in zip(opt.param_groups, sched.base_lrs):
                        group["lr"] = base * sched.lr_lambdas[0](sched.last_epoch)
            record = {"restart": restart, "epoch": epoch, "train_loss": loss_sum / max(tokens, 1),
                      "val_loss": val, "lr": opt.param_groups[0]["lr"], "tokens": tokens,
                      "epoch_s": time.perf_counter() - t0}
            history.append(record)
            _log(log_file, record)
            bar.update(1)
            bar.set_postfix(val=f"{val:.4f}")
            if ckpt_path is not None:
                _save_atomic({
                    "config": asdict(config), "finished": finished, "history": history,
                    "restart": restart, "epoch": epoch, "best": best, "best_state": best_state, "bad": bad,
                    "cuts": cuts[0], "model": model.state_dict(), "optimizer": opt.state_dict(),
                    "scheduler": sched.state_dict(),
                    "rng": rng.bit_generator.state, "torch_rng": torch.get_rng_state(),
                }, ckpt_path)
            if on_epoch_end is not None:
                on_epoch_end(record)
        bar.close()
        # only the best restart's weights are kept: memory stays one model whatever `restarts`
        if all(best < f["best"] for f in finished):
            for f in finished:
                f["best_state"] = None
        else:
            best_state = None
        finished.append({"best": best, "best_state": best_state, "epochs": epoch})

    best_restart = int(np.argmin([f["best"] for f in finished]))
    if finished[best_restart]["best_state"] is None:
        raise RuntimeError("no restart reached a finite validation loss (diverged?)")
    model = make_model().to(device)
    model.load_state_dict(finished[best_restart]["best_state"])
    model.eval()
    if ckpt_path is not None:  # the final state: a rerun returns at once
        _save_atomic({"config": asdict(config), "finished": finished, "history": history,
                      "restart": config.restarts}, ckpt_path)
    return TrainResult(
        model=model, best_val_loss=float(finished[best_restart]["best"]), best_restart=best_restart,
        restart_val_losses=[float(f["best"]) for f in finished], epochs=[int(f["epochs"]) for f in finished],
        tokens_per_s=train_tokens / train_time if train_time > 0 else float("nan"),
        wall_s=time.perf_counter() - start_time, device=str(device), amp=amp, history=history,
    )


def _train_epoch(model: nn.Module, opt: torch.optim.Optimizer, sched: Any, data: Sequences | Stream,
                 config: TrainConfig, device: torch.device, rng: np.random.Generator,
                 amp: bool) -> tuple[float, int]:
    model.train()
    loss_sum, tokens = 0.0, 0

    def step(loss: torch.Tensor) -> None:
        opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), config.clip)
        opt.step()
        sched.step()

    if isinstance(data, Sequences):
        train_rows = torch.as_tensor(np.asarray(data.train, dtype=np.int64))
        order = torch.as_tensor(rng.permutation(len(train_rows)))
        for start in range(0, len(order), config.batch_size):
            x = train_rows[order[start: start + config.batch_size]].to(device, non_blocking=True)
            with torch.autocast(device.type, dtype=torch.bfloat16, enabled=amp):
                loss = sequence_loss(model, x)
            step(loss)
            loss_sum += float(loss.detach()) * x.numel()
            tokens += x.numel()
        return loss_sum, tokens

    tracks = _tracks(data.train, config.batch_size)
    carried = None
    # the paper does not shuffle text: only the track offset varies between epochs
    offset = int(rng.integers(data.bptt))
    for start in range(offset, tracks.shape[1] - data.bptt - 1, data.bptt):
        chunk = tracks[:, start: start + data.bptt + 1].to(device, non_blocking=True)
        if rng.random() < data.reset_prob:  # teaches the model to start from the zero state
            carried = None
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=amp):
            logits, carried = model.forward_with_state(chunk[:, :-1], carried)
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), chunk[:, 1:].reshape(-1))
        step(loss)
        carried = _detach(carried)
        loss_sum += float(loss.detach()) * chunk[:, 1:].numel()
        tokens += chunk[:, 1:].numel()
    return loss_sum, tokens
