"""Time one training update of chapter 06's task models: RelRNN, full attention and a plain RNN.

One update is what ``train_task_model`` does per step: forward pass, cross-entropy on every
step, ``zero_grad``, backward pass, gradient-norm clipping and an Adam step, on one Copy
batch. The settings are chapter 06's (hidden width 64, batch 10, ``nu = 10``, ``rho = 15``);
``T`` is the Copy delay, so a sequence has ``T + 20`` steps.

Usage: ``python benchmarks/bench_relrnn.py [--repeats 10] [--budget 20] [--lengths 100 1000]
[--device cpu]``.
Each model first makes one untimed update on a short batch (compilation, first-call costs),
then up to ``--repeats`` timed ones, fewer once a case has used ``--budget`` seconds. Reported:
the best wall time per update, and the best process CPU time (all threads), which does not
count the time spent waiting for a core when the machine is shared. To time another version
of seqmi, run the script with that version's ``src`` first on ``PYTHONPATH``.
"""

from __future__ import annotations

import argparse
import time

import torch
from torch import nn

from seqmi.data.copy_tasks import copy_task
from seqmi.device import resolve_device
from seqmi.models.attentive_rnn import TaskModel

HIDDEN, BATCH, NU, RHO, LR = 64, 10, 10, 15, 0.01


def update_seconds(kind: str, T: int, repeats: int, budget: float,
                   device: torch.device = torch.device("cpu")) -> tuple[float, float, int]:
    """Best wall and CPU seconds of one update of a fresh ``kind`` model at Copy delay ``T``
    on ``device``, and the number of timed updates."""
    torch.manual_seed(0)
    model = TaskModel(kind, 10, 9, HIDDEN, nu=NU, rho=RHO).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    lossf = nn.CrossEntropyLoss()

    def update(tok: torch.Tensor, tgt: torch.Tensor) -> None:
        logits, _ = model(tok)
        loss = lossf(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if device.type == "cuda":  # the update's kernels have run when the clock stops
            torch.cuda.synchronize(device)

    update(*(torch.as_tensor(a, device=device) for a in copy_task(BATCH, 10, 1)))
    batch = [torch.as_tensor(a, device=device) for a in copy_task(BATCH, T, 0)]
    wall, cpu, spent, runs = float("inf"), float("inf"), 0.0, 0
    while runs < repeats and (runs == 0 or spent < budget):
        start, start_cpu = time.perf_counter(), time.process_time()
        update(*batch)
        elapsed = time.perf_counter() - start
        wall, cpu = min(wall, elapsed), min(cpu, time.process_time() - start_cpu)
        spent, runs = spent + elapsed, runs + 1
    return wall, cpu, runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10, help="most timed updates per case (best is kept)")
    parser.add_argument("--budget", type=float, default=20.0, help="seconds per case after which no update starts")
    parser.add_argument("--lengths", type=int, nargs="+", default=[100, 1000], help="Copy delays T")
    parser.add_argument("--kinds", nargs="+", default=["relrnn", "full", "rnn"], choices=TaskModel.KINDS)
    parser.add_argument("--threads", type=int, default=2, help="torch.set_num_threads")
    parser.add_argument("--device", default="cpu", help='"cpu", "cuda" or "auto"')
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    device = resolve_device(args.device)
    print(f"device: {torch.cuda.get_device_name(device) if device.type == 'cuda' else 'CPU'}")

    print(f"{'kind':<8} {'T':>6} {'steps':>6} {'wall s/update':>14} {'CPU s/update':>13} {'ms/step':>8} {'runs':>5}")
    for kind in args.kinds:
        for T in args.lengths:
            wall, cpu, runs = update_seconds(kind, T, args.repeats, args.budget, device)
            print(f"{kind:<8} {T:>6} {T + 20:>6} {wall:>14.4f} {cpu:>13.4f} {wall / (T + 20) * 1e3:>8.3f} {runs:>5}")


if __name__ == "__main__":
    main()
