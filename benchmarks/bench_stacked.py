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

``--task gaussian``: chapter 04's Fig. 4 Transformer of Gaussian tokens instead, at the
full profile's size (64 copies per token, 2 layers, 4 heads, batch 16, AdamW clipped at 1,
the KL loss of :func:`seqmi.recipes.gaussian_tokens.kl_loss`; width and ``L`` from
``--widths`` and ``--length``, by default the largest, 128 and 1024). The members are the
replicates of one model, each with its own initialisation and batches; ``stacked`` is the
:class:`seqmi.family.StackedFamily` with the KL loss that
:func:`seqmi.recipes.gaussian_tokens.train_gaussian_family` uses on CUDA. The batches are
drawn before the clock starts (the sampler costs the same either way), nothing is
evaluated, and replicates per minute are extrapolated to the full profile's 1,000 steps:
``60 K / (1000 t_step)``.

Usage: ``python benchmarks/bench_stacked.py [--widths 8 16] [--depth 1] [--length 128]
[--members 1 2 4 8] [--steps 4] [--repeats 2] [--threads 1] [--device cpu]``; on a GPU,
chapter 03's full-profile model: ``--device cuda --widths 64 --depth 3 --length 512
--members 1 8 32 --steps 20``. Fig. 4: ``--task gaussian --members 1 3 8 --steps 3``
(on a GPU: ``--device cuda --steps 50``).

``--ops`` counts instead of timing: the aten operations one step after the first
dispatches (on the CPU, with the foreach optimizer and clipping CUDA uses, under bf16
autocast for the binary task as chapter 03 trains on CUDA), all of them and those that
launch a GPU kernel (views and reads of CPU scalars left out), a measure of what a
launch-bound GPU step costs.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from seqmi.data.binary import binary_power_law
from seqmi.data.subvolume import SubvolumeGaussian
from seqmi.device import resolve_device
from seqmi.family import StackedFamily
from seqmi.models.gaussian_lm import GaussianSequenceModel
from seqmi.models.lm import TransformerLM
from seqmi.recipes.gaussian_tokens import _conditional_targets, kl_loss
from seqmi.train import (Batches, Member, Sequences, Task, TrainConfig, fit, init_seed, language_model_task,
                         order_rng)

N_VALID, BATCH, HEADS = 200, 50, 4
STEPS_PER_SEED, EVALS_PER_SEED = 160, 10  # chapter 03's quick profile: 800 sequences, batch 50, 10 epochs
RECIPE = dict(optimizer="adam", lr=0.003, clip=5.0, batch_size=BATCH, patience=None, restarts=1, schedule="cosine",
              min_lr_ratio=1 / 32, max_epochs=1)
# chapter 04's full profile (notebooks/profiles.yml): Fig. 4's models and training
FIG4 = dict(token_dim=64, layers=2, heads=4, batch=16, steps=1000, lr=0.01)


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


def groups_of(k: int, stacked: bool) -> list[range]:
    """The seeds of each :func:`fit` call: all ``k`` in one stacked call, or one call each."""
    return [range(k)] if stacked else [range(s, s + 1) for s in range(k)]


def case(setup: Setup, k: int, data: Sequences, stacked: bool, repeats: int) -> tuple[float, float, list[list[float]]]:
    """Seconds per lockstep step of ``k`` members, seconds per validation pass of all ``k``, step losses."""
    family = StackedFamily(data.valid, setup.device) if stacked else None
    task = language_model_task(data, BATCH, setup.device, family=family)
    steps_only = dataclasses.replace(task, evaluate=None)  # fit evaluates nothing: steps alone are timed
    groups = groups_of(k, stacked)
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


def gaussian_task(length: int, k: int, steps: int, device: torch.device, stacked: bool) -> Task:
    """Fig. 4's training task on ``steps`` batches per member, drawn beforehand."""
    dist = SubvolumeGaussian(round(np.log(length) / np.log(4)), copies=FIG4["token_dim"])
    rng = np.random.default_rng(0)
    drawn = [[_conditional_targets(dist, FIG4["batch"], rng, device, "device-cholesky") for _ in range(steps)]
             for _ in range(k)]

    def epoch(member_rng: np.random.Generator, step: int) -> list:
        return drawn[int(member_rng.integers(k))]  # drawn by the member's generator: equal both ways

    return Task(Batches(steps, epoch), kl_loss, family=StackedFamily(device=device, loss=kl_loss) if stacked else None)


def gaussian_members(width: int, length: int, seeds: range, task: Task, device: torch.device) -> list[Member]:
    """Fig. 4 Transformers, each initialised under its seed, trained as the recipe trains them."""
    members = []
    for seed in seeds:
        torch.manual_seed(seed)
        model = GaussianSequenceModel("transformer", FIG4["token_dim"], width, FIG4["layers"], FIG4["heads"],
                                      length).to(device)
        config = TrainConfig(optimizer="adamw", lr=FIG4["lr"], weight_decay=0.01, clip=1.0, batch_size=FIG4["batch"],
                             max_epochs=1, patience=None, restarts=1, seed=seed)
        members.append(Member(model, config, np.random.default_rng(seed), task))
    return members


def gaussian_case(width: int, length: int, k: int, steps: int, device: torch.device, stacked: bool,
                  repeats: int) -> tuple[float, list[list[float]]]:
    """Seconds per lockstep step of ``k`` Fig. 4 Transformers, and their step losses."""
    task = gaussian_task(length, k, steps, device, stacked)
    t_train, trained = float("inf"), []
    for _ in range(repeats):
        built = [gaussian_members(width, length, seeds, task, device) for seeds in groups_of(k, stacked)]
        t_train = min(t_train, timed(lambda: [fit(g, task, device=device, progress=False) for g in built], device))
        trained = [m for g in built for m in g]
    return t_train / steps, [m.step_losses for m in trained]


class OpCount(TorchDispatchMode):
    """Counts the aten operations dispatched while it is on, and those that launch no kernel on a
    GPU: views, and reads of scalars (the optimizers' step counters, the losses)."""

    def __init__(self) -> None:
        super().__init__()
        self.total = self.free = 0

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        self.total += 1
        self.free += func.is_view or func.overloadpacket.__name__ in ("_local_scalar_dense", "lift_fresh", "detach")
        return func(*args, **(kwargs or {}))


def ops_per_step(groups: list[list[Member]], task: Task, amp: bool) -> tuple[int, int]:
    """Operations of the second step of each group's :func:`fit` (the first sets up the optimizers'
    state), summed over the groups: those that launch a GPU kernel, and all."""
    launching = total = 0
    for members in groups:
        for m in members:
            for group in m.optimizer.param_groups:
                group["foreach"] = True  # as on CUDA by default (on the CPU, one loop per tensor)
        count = OpCount()

        def hook(members: list[Member] = members, count: OpCount = count) -> None:
            if members[0].step == 1:
                count.__enter__()
            elif members[0].step == 2:
                count.__exit__(None, None, None)

        fit(members, task, amp=amp, progress=False, on_step=hook)
        launching, total = launching + count.total - count.free, total + count.total
    return launching, total


def ops_main(args: argparse.Namespace) -> None:
    """Operations per lockstep step, on the CPU, as the task trains on CUDA (the binary one under bf16 autocast)."""
    width = (args.widths or [128 if args.task == "gaussian" else 64])[0]
    print(f"{args.task} Transformer, width {width}: aten operations per step after the first "
          "(launching a GPU kernel / all)")
    for k in args.members:
        row = []
        for way, stacked in (("one at a time", False), ("stacked", True)):
            if args.task == "gaussian":
                task = gaussian_task(16, k, 3, torch.device("cpu"), stacked)
                groups = [gaussian_members(width, 16, seeds, task, torch.device("cpu"))
                          for seeds in groups_of(k, stacked)]
                amp = False  # Fig. 4 trains in float32
            else:
                raw = binary_power_law(3 * BATCH + N_VALID, 32, 0.1, 0.4, 0).astype(np.int64)
                data = Sequences(raw[:3 * BATCH], raw[3 * BATCH:])
                family = StackedFamily(data.valid) if stacked else None
                task = dataclasses.replace(language_model_task(data, BATCH, family=family), evaluate=None)
                setup = Setup(width, args.depth, 32, torch.device("cpu"))
                groups = [setup.members(seeds, task) for seeds in groups_of(k, stacked)]
                amp = True  # chapter 03 trains its Transformers under bf16 autocast on CUDA
            launching, total = ops_per_step(groups, task, amp)
            row.append(f"{way}: {launching} / {total}")
        print(f"K = {k:>2}: " + ", ".join(row), flush=True)


def gaussian_main(args: argparse.Namespace, device: torch.device) -> None:
    """The Fig. 4 table: replicates per minute, one at a time and stacked."""
    width, length = (args.widths or [128])[0], args.length or 1024
    gaussian_case(width, 16, 1, 1, device, True, 1)  # one-off set-up, not timed
    print(f"Fig. 4 Transformer, width {width}, L {length}, {args.steps} steps per case, {device}, "
          f"{args.threads} thread(s), best of {args.repeats}, load average {os.getloadavg()[0]:.1f}")
    print(f"{'K':>3} {'way':<14} {'ms/step':>9} {'replicates/min':>15} {'loss rel diff':>14}")
    for k in args.members:
        losses = {}
        for way, stacked in (("one at a time", False), ("stacked", True)):
            t_step, losses[way] = gaussian_case(width, length, k, args.steps, device, stacked, args.repeats)
            diff = np.max(np.abs(np.asarray(losses[way]) / np.asarray(losses["one at a time"]) - 1))
            print(f"{k:>3} {way:<14} {1e3 * t_step:>9.1f} {60 * k / (FIG4['steps'] * t_step):>15.3f} {diff:>14.1e}",
                  flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", choices=("binary", "gaussian"), default="binary",
                        help="chapter 03's binary Transformer or chapter 04's Fig. 4 Transformer")
    parser.add_argument("--widths", type=int, nargs="+", help="default 8 16 (binary), 128 (gaussian)")
    parser.add_argument("--depth", type=int, default=1, help="binary only (Fig. 4: 2 layers)")
    parser.add_argument("--length", type=int, help="symbols per sequence: default 128 (binary; full profile: 512), "
                        "1024 (gaussian, a power of 4)")
    parser.add_argument("--members", type=int, nargs="+", default=[1, 2, 4, 8], help="values of K")
    parser.add_argument("--steps", type=int, default=4, help="timed training steps per case")
    parser.add_argument("--repeats", type=int, default=2, help="timed runs of each case (best is kept)")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--ops", action="store_true",
                        help="count the operations of a step on the CPU instead of timing (widths: the first)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    device = resolve_device(args.device)
    if args.ops:
        ops_main(args)
        return
    if args.task == "gaussian":
        gaussian_main(args, device)
        return
    args.widths, args.length = args.widths or [8, 16], args.length or 128
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
