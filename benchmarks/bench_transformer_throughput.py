"""Training throughput and model FLOPs utilisation (MFU) of the book's largest Transformer.

The largest Transformer any chapter trains is chapter 03's full-profile word model:
width 512, 4 layers, 8 heads, windows of 128 tokens, batch 32, a vocabulary of about
12,000 words, tied input and output embeddings (App. E.2.2). This script trains that
model for ``--steps`` updates on random tokens through the package's own loop
(:func:`seqmi.train.train`, bf16 autocast on a GPU as in the chapters) and reports

- tokens/s: ``TrainResult.tokens_per_s``, tokens through forward and backward per second
  of training compute (evaluation excluded);
- model FLOPs per token, PaLM's count (Chowdhery et al. 2022, App. B):
  ``6 N + 12 n_layer d_model T``, with ``N`` the parameters (the tied embedding once)
  and ``T`` the window;
- MFU: achieved model FLOP/s over the peak. The peak is ``--peak-tflops`` when given (a
  data-sheet figure, e.g. 989 for the dense bf16 tensor cores of an H100 or H200 SXM);
  otherwise the best rate of a large matrix product in the training dtype measured here,
  which makes the ratio one of achievable, not nominal, throughput (the report says which).

Usage: ``python benchmarks/bench_transformer_throughput.py [--device auto] [--steps 50]
[--width 512 --depth 4 --window 128 --batch 32 --vocab 12000] [--peak-tflops 989]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from seqmi.device import resolve_device
from seqmi.models.lm import TransformerLM
from seqmi.train import Sequences, TrainConfig, train


def model_flops_per_token(params: int, depth: int, width: int, window: int) -> float:
    """PaLM's training FLOPs per token: ``6 N + 12 n_layer d_model T``."""
    return 6.0 * params + 12.0 * depth * width * window


def matmul_tflops(device: torch.device, dtype: torch.dtype, size: int = 4096, repeats: int = 10) -> float:
    """Best TFLOP/s of a ``size x size`` matrix product in ``dtype`` on ``device``."""
    a = torch.randn(size, size, device=device, dtype=dtype)
    b = torch.randn(size, size, device=device, dtype=dtype)
    best = float("inf")
    for _ in range(repeats):
        if device.type == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        a @ b
        if device.type == "cuda":
            torch.cuda.synchronize()
        best = min(best, time.perf_counter() - start)
    return 2 * size**3 / best / 1e12


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="auto")
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--width", type=int, default=512)
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--window", type=int, default=128)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--vocab", type=int, default=12000)
    parser.add_argument("--peak-tflops", type=float, default=None)
    args = parser.parse_args()
    device = resolve_device(args.device)
    rng = np.random.default_rng(0)
    rows = rng.integers(0, args.vocab, (args.steps * args.batch + args.batch, args.window + 1))
    data = Sequences(rows[: args.steps * args.batch], rows[args.steps * args.batch:])

    def make() -> TransformerLM:
        return TransformerLM(args.vocab, args.width, args.depth, heads=8, max_len=args.window + 1, tie_weights=True)

    config = TrainConfig(optimizer="adam", lr=2.5e-4, clip=5.0, batch_size=args.batch, max_epochs=1, patience=None,
                         restarts=1, seed=0)
    result = train(make, data, config, device=device, progress=False)
    params = sum(p.numel() for p in result.model.parameters())
    flops = model_flops_per_token(params, args.depth, args.width, args.window)
    achieved = result.tokens_per_s * flops / 1e12
    dtype = torch.bfloat16 if result.amp else torch.float32
    peak, source = ((args.peak_tflops, "data sheet") if args.peak_tflops
                    else (matmul_tflops(device, dtype), f"measured {str(dtype).removeprefix('torch.')} matmul"))
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else f"CPU, {torch.get_num_threads()} threads"
    print(f"device: {name}; bf16 autocast: {result.amp}")
    print(f"model: width {args.width}, {args.depth} layers, window {args.window}, batch {args.batch}, "
          f"vocabulary {args.vocab:,}: {params:,} parameters, {flops / 1e6:.1f} MFLOP per token")
    print(f"throughput: {result.tokens_per_s:,.0f} tokens/s over {args.steps} steps "
          f"({result.seconds_per_step * 1e3:.1f} ms per step)")
    print(f"model FLOP/s: {achieved:.3f} TFLOP/s; peak {peak:.2f} TFLOP/s ({source}): MFU {achieved / peak:.1%}")


if __name__ == "__main__":
    main()
