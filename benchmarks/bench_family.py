"""Models per second: a family of K members trained together against the same K one at a time.

The models and data of chapter 03's binary sweep, quick profile: 800 training and 200
validation sequences of 128 binary symbols (power-law MI, A = 0.1, gamma = 0.4), batch
50, vanilla RNNs and LSTMs of widths 2 and 8 (depth 1) and an LSTM 8 x 2, RMSprop as in
the chapter, and the Transformer of width 8 (Adam, cosine schedule). Every member runs
the same number of epochs (no early stopping, so that both sides do the same work); the
members differ by seed (weights and data order).

Three ways to train the K members:

- ``together``: one :func:`seqmi.train.fit` call, the family in lockstep, as
  :func:`seqmi.train.train_family` trains it (vanilla RNNs: one batched recurrence,
  :class:`seqmi.family.RecurrentFamily`; LSTMs and Transformers: each member's own
  forward pass);
- ``alone``: one :func:`fit` call per member with the same code (K = 1), which ends
  with bit-identical weights (checked here);
- ``own forward``: one call per member through the model's own forward pass
  (``nn.RNN``), the way the package trained vanilla RNNs before it had families (for
  LSTMs and Transformers this is ``alone``).

Usage: ``python benchmarks/bench_family.py [--members 16] [--epochs 10] [--repeats 2]
[--threads 2] [--only lstm8 ...]``. Wall-clock seconds, best of ``--repeats``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
import torch
from torch import nn

from seqmi.data.binary import binary_power_law
from seqmi.family import RecurrentFamily, family_key
from seqmi.models.lm import RNNLM, TransformerLM
from seqmi.train import Member, Sequences, TrainConfig, fit, init_seed, language_model_task, order_rng

N_TRAIN, N_VALID, LENGTH, BATCH = 800, 200, 128, 50
RNN = dict(optimizer="rmsprop", clip=0.25, batch_size=BATCH, patience=None, restarts=1)
KINDS: dict[str, tuple[Callable[[], nn.Module], dict]] = {
    "rnn2": (lambda: RNNLM(2, 2, 1, "rnn", embed_dim=2), dict(RNN, lr=0.005)),
    "rnn8": (lambda: RNNLM(2, 8, 1, "rnn", embed_dim=2), dict(RNN, lr=0.005)),
    "lstm2": (lambda: RNNLM(2, 2, 1, "lstm", embed_dim=2), dict(RNN, lr=0.01)),
    "lstm8": (lambda: RNNLM(2, 8, 1, "lstm", embed_dim=2), dict(RNN, lr=0.01)),
    "lstm8x2": (lambda: RNNLM(2, 8, 2, "lstm", embed_dim=2), dict(RNN, lr=0.01)),
    "transformer8": (lambda: TransformerLM(2, 8, 1, heads=4, max_len=LENGTH + 1),
                     dict(optimizer="adam", lr=0.003, clip=5.0, batch_size=BATCH, patience=None, restarts=1,
                          schedule="cosine", min_lr_ratio=1 / 32)),
}


def members(make_model: Callable[[], nn.Module], configs: list[TrainConfig], task) -> list[Member]:
    out = []
    for config in configs:
        torch.manual_seed(init_seed(config, 0))
        out.append(Member(make_model(), config, order_rng(config, 0), task))
    return out


def best_of(fn: Callable[[], list[Member]], repeats: int) -> tuple[float, list[Member]]:
    times, result = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=16, help="K, the family's size")
    parser.add_argument("--epochs", type=int, default=10, help="epochs per member (quick profile: 10)")
    parser.add_argument("--repeats", type=int, default=2, help="timed runs of each way (best is kept)")
    parser.add_argument("--threads", type=int, default=2, help="torch CPU threads")
    parser.add_argument("--only", nargs="*", choices=list(KINDS), help="architectures to run")
    parser.add_argument("--skip-own-forward", action="store_true", help="do not time the own-forward baseline")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    raw = binary_power_law(N_TRAIN + N_VALID, LENGTH, 0.1, 0.4, 0).astype(np.int64)
    data = Sequences(raw[:N_TRAIN], raw[N_TRAIN:])
    cpu = torch.device("cpu")
    print(f"K = {args.members} members, {args.epochs} epochs each, {args.threads} threads, best of {args.repeats}")
    print(f"{'model':<13} {'together':>14} {'alone':>14} {'own forward':>14} {'speed-up':>9} {'vs own':>7} "
          f"{'identical':>9}")
    for name in args.only or list(KINDS):
        make_model, kw = KINDS[name]
        configs = [TrainConfig(max_epochs=args.epochs, seed=s, **kw) for s in range(args.members)]
        key = family_key(make_model(), True, cpu)
        recurrent = key is not None and key[0] == "recurrent"
        family = RecurrentFamily(data.valid, cpu) if recurrent else None
        task = language_model_task(data, BATCH, cpu, family=family)
        own = language_model_task(data, BATCH, cpu)

        def together() -> list[Member]:
            group = members(make_model, configs, task)
            fit(group, task, progress=False)
            return group

        def alone(task=task) -> list[Member]:
            out = []
            for config in configs:
                group = members(make_model, [config], task)
                fit(group, task, progress=False)
                out += group
            return out

        t_together, fam = best_of(together, args.repeats)
        t_alone, solo = best_of(alone, args.repeats)
        same = all(torch.equal(x, y) for a, b in zip(fam, solo)
                   for x, y in zip(a.model.state_dict().values(), b.model.state_dict().values()))
        t_own = float("nan")
        if recurrent and not args.skip_own_forward:
            t_own, _ = best_of(lambda: alone(own), args.repeats)
        elif not recurrent:
            t_own = t_alone  # LSTM and Transformer families run each member's own forward
        k = args.members
        print(f"{name:<13} {k / t_together:>8.2f} mod/s {k / t_alone:>8.2f} mod/s {k / t_own:>8.2f} mod/s "
              f"{t_alone / t_together:>8.1f}x {t_own / t_together:>6.1f}x {'yes' if same else 'NO':>9}", flush=True)


if __name__ == "__main__":
    main()
