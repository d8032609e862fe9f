"""Seeds per minute: K Transformers stacked into one computation against the same K one at a time.

Chapter 03's binary Transformer (4 heads, depth 1, sequences of 128 binary symbols with
power-law MI, A = 0.1, gamma = 0.4, batch 50, Adam with a cosine schedule) at widths 8
and 16; the members differ by seed (weights and data order). Two ways to train K members:

- ``stacked``: one :func:`seqmi.train.fit` call with a
  :class:`seqmi.family.StackedFamily` (one ``vmap`` over the stacked parameters, attention
  in one call), as :func:`seqmi.train.train_family` trains two or more Transformers on CUDA;
- ``one at a time``: one :func:`fit` call per member through its own forward pass, as on
  the CPU.

Each case times ``--steps`` training steps (evaluation off, the models built beforehand)
and one validation pass of the 200 validation sequences, best of ``--repeats``; seeds per
minute are extrapolated to chapter 03's quick profile, 160 steps (800 sequences, 10
epochs) and 10 validation passes per seed: ``60 K / (160 t_step + 10 t_eval)`` (whatever
the model: a ratio of two rows is what carries over to other profiles). The last
column is the largest relative difference between a member's step losses stacked and
one at a time. On CUDA the steps run under bf16 autocast, as the chapter trains them.

Usage: ``python benchmarks/bench_stacked.py [--widths 8 16] [--depth 1] [--length 128]
[--members 1 2 4 8] [--steps 4] [--repeats 2] [--threads 1] [--device cpu]``; on a GPU,
chapter 03's full-profile model: ``--device cuda --widths 64 --depth 3 --length 512
--members 1 8 32 --steps 20``.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import time
from collections.abc import Callable

import numpy as np
import torch

from seqmi.data.binary import binary_power_law
from seqmi.device import resolve_device
from seqmi.family import StackedFamily
from seqmi.models.lm import TransformerLM
from seqmi.train import Member, Sequences, Task, TrainConfig, fit, init_seed, language_model_task, order_rng

N_VALID, BATCH, HEADS = 200, 50, 4
STEPS_PER_SEED, EVALS_PER_SEED = 160, 10  # chapter 03's quick profile: 800 sequences, batch 50, 10 epochs
RECIPE = dict(optimizer="adam", lr=0.003, clip=5.0, batch_size=BATCH, patience=None, restarts=1, schedule="cosine",
              min_lr_ratio=1 / 32, max_epochs=1)


@dataclasses.dataclass(frozen=True)
class Setup:
    """The model and where it trains."""

    width: int
    depth: int
    length: int
    device: torch.device

    def members(self, seeds: range, task: Task) -> list[Member]:
        out = []
        for seed in seeds:
            config = TrainConfig(seed=seed, **RECIPE)
            torch.manual_seed(init_seed(config, 0))
            model = TransformerLM(2, self.width, self.depth, heads=HEADS, max_len=self.length + 1).to(self.device)
            out.append(Member(model, config, order_rng(config, 0), task))
        return out


def timed(fn: Callable[[], object], device: torch.device) -> float:
    start = time.perf_counter()
    fn()
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    return time.perf_counter() - start


def case(setup: Setup, k: int, data: Sequences, stacked: bool, repeats: int) -> tuple[float, float, list[list[float]]]:
    """Seconds per lockstep step of ``k`` members, seconds per validation pass of all ``k``, step losses."""
    family = StackedFamily(data.valid, setup.device) if stacked else None
    task = language_model_task(data, BATCH, setup.device, family=family)
    steps_only = dataclasses.replace(task, evaluate=None)  # fit evaluates nothing: steps alone are timed
    groups = [range(k)] if stacked else [range(s, s + 1) for s in range(k)]
    amp = setup.device.type == "cuda"
    t_train = t_eval = float("inf")
    trained: list[Member] = []
    for _ in range(repeats):
        built = [setup.members(seeds, steps_only) for seeds in groups]
        t_train = min(t_train, timed(lambda: [fit(g, steps_only, device=setup.device, amp=amp, progress=False)
                                              for g in built], setup.device))
        trained = [m for g in built for m in g]
        models = [m.model for m in trained]
        t_eval = min(t_eval, timed(lambda: task.evaluations(models) if stacked else [task.evaluate(m) for m in models],
                                   setup.device))
    return t_train / task.batches.steps_per_epoch, t_eval, [m.step_losses for m in trained]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--widths", type=int, nargs="+", default=[8, 16])
    parser.add_argument("--depth", type=int, default=1)
    parser.add_argument("--length", type=int, default=128, help="symbols per sequence (full profile: 512)")
    parser.add_argument("--members", type=int, nargs="+", default=[1, 2, 4, 8], help="values of K")
    parser.add_argument("--steps", type=int, default=4, help="timed training steps per case")
    parser.add_argument("--repeats", type=int, default=2, help="timed runs of each case (best is kept)")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    device = resolve_device(args.device)
    n_train = args.steps * BATCH
    raw = binary_power_law(n_train + N_VALID, args.length, 0.1, 0.4, 0).astype(np.int64)
    data = Sequences(raw[:n_train], raw[n_train:])
    setups = [Setup(w, args.depth, args.length, device) for w in args.widths]
    for stacked in (False, True):  # the first calls in a process pay one-off set-up: not timed
        case(setups[0], 1, data, stacked, 1)
    print(f"{args.steps} steps per case, depth {args.depth}, length {args.length}, {device}, "
          f"{args.threads} thread(s), best of {args.repeats}, load average {os.getloadavg()[0]:.1f}")
    print(f"{'width':>5} {'K':>3} {'way':<14} {'ms/step':>9} {'ms/eval':>9} {'seeds/min':>10} {'loss rel diff':>14}")
    for setup in setups:
        for k in args.members:
            losses = {}
            for way, stacked in (("one at a time", False), ("stacked", True)):
                t_step, t_eval, losses[way] = case(setup, k, data, stacked, args.repeats)
                rate = 60 * k / (STEPS_PER_SEED * t_step + EVALS_PER_SEED * t_eval)
                diff = np.max(np.abs(np.asarray(losses[way]) / np.asarray(losses["one at a time"]) - 1))
                print(f"{setup.width:>5} {k:>3} {way:<14} {1e3 * t_step:>9.1f} {1e3 * t_eval:>9.1f} {rate:>10.2f} "
                      f"{diff:>14.1e}", flush=True)


if __name__ == "__main__":
    main()
