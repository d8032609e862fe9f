"""The Gaussian-token sampler of chapter 04's Fig. 4, numpy against the device, and its share of a step.

Every training step of :func:`seqmi.recipes.gaussian_tokens.train_gaussian` draws a fresh
batch of ``batch`` sequences of ``copies`` stacked copies of the sub-volume Gaussian with
their exact conditionals. The script times, per batch (the minimum over ``--repeats``
draws, the machine being shared; the median beside it):

- ``numpy``: :meth:`~seqmi.data.subvolume.SubvolumeGaussian.sample` (layer maps, one CPU
  core) and :meth:`~seqmi.data.subvolume.SubvolumeGaussian.conditionals` (a float64
  triangular solve on the device), as the sampler ``"numpy"`` draws a batch;
- ``device-cholesky``: :meth:`~seqmi.data.subvolume.SubvolumeGaussian.sample_with_conditionals`
  (one product with the cached Cholesky factor, no solve);

and one training step of the Fig. 4 models (forward, KL loss, backward, clipping, AdamW)
on the same device, so that the sampler's share of a step, ``t_sampler / (t_sampler +
t_step)``, is known before and after. On a GPU run (``--device cuda``) everything is
timed there, synchronised. Sizes default to the full profile's Fig. 4 block of
``notebooks/profiles.yml`` (batch, ``token_dim`` copies, lengths, widths, depth).

It also states the device sampler's numerical error: the largest difference between its
conditional means and :meth:`conditionals` applied to the same ``z`` (relative to
``sigma_i``), the same for a float32 product (the alternative the sampler's comment
rejects), and the empirical covariance of ``--cov-samples`` sequences of one copy against
the exact one, in standard errors ``sqrt((S_ii S_jj + S_ij^2) / n)`` of each entry (largest,
and mean square: 1 for a correct sampler).

Without a GPU, the share on an H200 is estimated from ``benchmarks/gpu_check_h200.json``
(its measured ms per step of the Gaussian models at the full profile's size, ``L = 1024``)
and the sampler's work: the product's ``2 L^2 n copies`` float64 flops at 60 TFLOP/s, 16
passes over the ``8 L n copies``-byte batch at 4.8 TB/s (the draw writes it once, the product
reads and writes it, the means take five, the two reorders four, the casts to float32 of
``z``, ``mu`` and ``sigma`` three and a half), and 12 kernel launches at 5 us each.

Usage: ``python benchmarks/bench_gaussian_sampler.py [--device cpu] [--threads 1]
[--repeats 10] [--model-steps 3] [--cov-samples 102400] [--out PATH]``.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml

from seqmi.data.subvolume import SubvolumeGaussian
from seqmi.device import resolve_device
from seqmi.models.gaussian_lm import GaussianSequenceModel, gaussian_kl
from seqmi.recipes.gaussian_tokens import _conditional_targets

ROOT = Path(__file__).resolve().parents[1]
PROFILES = ROOT / "notebooks" / "profiles.yml"
GPU_CHECK = ROOT / "benchmarks" / "gpu_check_h200.json"
# an H200's float64 tensor-core rate and memory bandwidth (data sheet), and a kernel launch
H200_FP64_FLOPS = 60e12
H200_BYTES_PER_S = 4.8e12
LAUNCH_S = 5e-6
SAMPLER_KERNELS = 12
BATCH_PASSES = 16


def timed(fn: Callable[[], Any], device: torch.device, repeats: int) -> dict[str, float]:
    """Seconds of ``fn()`` over ``repeats`` calls after one warm-up: minimum and median."""
    fn()
    times = []
    for _ in range(repeats):
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        start = time.perf_counter()
        fn()
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        times.append(time.perf_counter() - start)
    return {"min_s": min(times), "median_s": statistics.median(times), "repeats": repeats}


def sampler_times(dist: SubvolumeGaussian, batch: int, device: torch.device, repeats: int) -> dict[str, Any]:
    """Per-batch seconds of the two samplers, and of the numpy sampler's two parts."""
    rng = np.random.default_rng(0)
    z = torch.as_tensor(dist.sample(batch, rng), device=device)
    dist.cholesky(device)  # the factor is computed once per device and cached: not per batch
    return {
        "numpy": timed(lambda: _conditional_targets(dist, batch, rng, device, "numpy"), device, repeats),
        "numpy_sample_only": timed(lambda: dist.sample(batch, rng), device, repeats),
        "numpy_conditionals_only": timed(lambda: dist.conditionals(z), device, repeats),
        "device-cholesky": timed(lambda: _conditional_targets(dist, batch, rng, device, "device-cholesky"),
                                 device, repeats),
    }


def conditional_errors(dist: SubvolumeGaussian, batch: int, device: torch.device) -> dict[str, float]:
    """Largest ``|mu - mu_solve| / sigma_i``, float64 sampler and a float32 product, against the solve."""
    z, mu, sigma = dist.sample_with_conditionals(batch, 12345, device)
    mu_solve, sigma_solve = dist.conditionals(z)
    factor = dist.cholesky(device)
    diag = torch.diagonal(factor)
    # the float32 alternative: the same normals (recovered by the solve), product and means in float32
    flat = z.movedim(1, 0).reshape(dist.length, -1)
    eps = torch.linalg.solve_triangular(factor, flat, upper=False).float()
    z32 = factor.float() @ eps
    mu32 = z32 - diag.float()[:, None] * eps
    mu32_exact, _ = dist.conditionals(z32.double().view(dist.length, batch, -1).movedim(0, 1))
    mu32 = mu32.double().view(dist.length, batch, -1).movedim(0, 1)
    return {"mu_max_abs_over_sigma": float(((mu - mu_solve).abs() / sigma).max()),
            "mu_max_abs_over_max_abs_mu": float((mu - mu_solve).abs().max() / mu_solve.abs().max()),
            "sigma_max_abs_diff": float((sigma - sigma_solve).abs().max()),
            "min_sigma": float(diag.min()),
            "float32_mu_max_abs_over_sigma": float(((mu32 - mu32_exact).abs() / sigma).max())}


def covariance_check(dist: SubvolumeGaussian, samples: int, device: torch.device) -> dict[str, float]:
    """Empirical covariance of ``samples`` sequences of one copy against the exact one, in standard errors."""
    per_batch = max(1, 16384 // dist.copies)
    second = torch.zeros(dist.length, dist.length, dtype=torch.float64, device=device)
    drawn, seed = 0, 0
    while drawn < samples:
        z, _, _ = dist.sample_with_conditionals(per_batch, seed, device)
        flat = z.movedim(2, 1).reshape(-1, dist.length)  # (n * copies, L): the copies are independent
        second += flat.T @ flat
        drawn += flat.shape[0]
        seed += 1
    emp = (second / drawn).cpu().numpy()
    cov = dist.covariance()
    se = np.sqrt((np.outer(np.diag(cov), np.diag(cov)) + cov ** 2) / drawn)
    dev = ((emp - cov) / se)[np.triu_indices(dist.length)]
    return {"samples": drawn, "entries": int(dev.size), "max_abs_standardised": float(np.abs(dev).max()),
            "mean_square_standardised": float((dev ** 2).mean()),
            "relative_frobenius": float(np.linalg.norm(emp - cov) / np.linalg.norm(cov))}


def model_step(backbone: str, width: int, length: int, p4: dict[str, Any], device: torch.device,
               steps: int) -> dict[str, float]:
    """Seconds of one training step of a Fig. 4 model (data drawn beforehand), as ``train_gaussian`` takes it."""
    torch.manual_seed(0)
    copies = p4["token_dim"]
    model = GaussianSequenceModel(backbone, copies, width, p4["model_layers"], p4["heads"], length,
                                  p4["d_state"]).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    dist = SubvolumeGaussian(round(math.log(length, 4)), copies=copies)
    z, mu_p, sigma_p = _conditional_targets(dist, p4["batch"], np.random.default_rng(0), device, "device-cholesky")

    def step() -> None:
        mu_q, sigma_q = model(z)
        loss = gaussian_kl(mu_p, sigma_p, mu_q, sigma_q).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()

    return timed(step, device, steps)


def gpu_estimate(length: int, batch: int, copies: int, gpu_steps: dict[str, tuple[int, float]],
                 numpy_s: float) -> dict[str, Any]:
    """The device sampler's time on an H200 from its work, and both samplers' shares of the steps
    measured there at this length."""
    columns = batch * copies
    flops = 2.0 * length ** 2 * columns
    bytes_moved = BATCH_PASSES * 8.0 * length * columns
    seconds = flops / H200_FP64_FLOPS + bytes_moved / H200_BYTES_PER_S + SAMPLER_KERNELS * LAUNCH_S
    out: dict[str, Any] = {"flops": flops, "bytes": bytes_moved, "sampler_s": seconds,
                           "arithmetic": (f"{flops / 1e9:.3f} GFLOP / 60 TFLOP/s + {bytes_moved / 1e6:.0f} MB "
                                          f"/ 4.8 TB/s + {SAMPLER_KERNELS} launches x 5 us = {seconds * 1e6:.0f} us"),
                           # the share stays at most 10% while the step takes at least 9 sampler times
                           "step_s_for_10_percent": 9 * seconds}
    for name, (step_length, step_s) in gpu_steps.items():
        if step_length != length:
            continue
        out[name] = {"step_s": step_s, "share_device_cholesky": seconds / (seconds + step_s),
                     # the numpy sampler's CPU time as measured here (the triangular solve on the
                     # GPU and the copy to it left out: a lower bound of its share)
                     "share_numpy_at_least": numpy_s / (numpy_s + step_s)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", help='"cpu" | "cuda" | "auto"')
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    parser.add_argument("--repeats", type=int, default=10, help="timed batches per sampler and length")
    parser.add_argument("--model-steps", type=int, default=3, help="timed steps per model (0: skip the models)")
    parser.add_argument("--cov-samples", type=int, default=102_400, help="sequences of one copy for the covariance")
    parser.add_argument("--cov-lengths", type=int, nargs="*", default=[256], help="lengths of the covariance check")
    parser.add_argument("--out", default=None,
                        help="JSON report (default: benchmarks/bench_gaussian_sampler_<device type>.json)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    device = resolve_device(args.device)
    p4 = yaml.safe_load(PROFILES.read_text())["full"]["04_bipartite_mi_l2m"]
    batch, copies, lengths, widths = p4["batch"], p4["token_dim"], p4["l2m_lengths"], p4["model_widths"]
    gpu = json.loads(GPU_CHECK.read_text())
    gpu_steps = {m["name"]: (m["timing"]["length"], m["timing"]["seconds_per_step"]) for m in gpu["models"]
                 if m["name"].startswith("Gaussian")}
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else \
        f"{platform.processor() or platform.machine()} CPU, {torch.get_num_threads()} torch thread(s)"
    print(f"device: {name}; full profile Fig. 4: batch {batch}, {copies} copies, L = {lengths}, widths {widths}")
    report: dict[str, Any] = {"device": str(device), "device_name": name, "torch": torch.__version__,
                              "threads": torch.get_num_threads(), "batch": batch, "copies": copies,
                              "lengths": {}}
    for length in lengths:
        dist = SubvolumeGaussian(round(math.log(length, 4)), copies=copies)
        row: dict[str, Any] = {"samplers": sampler_times(dist, batch, device, args.repeats),
                               "errors": conditional_errors(dist, batch, device), "models": {}}
        t_old, t_new = (row["samplers"][k]["min_s"] for k in ("numpy", "device-cholesky"))
        print(f"L = {length}: per batch numpy {t_old * 1e3:.1f} ms (sample "
              f"{row['samplers']['numpy_sample_only']['min_s'] * 1e3:.1f}, conditionals "
              f"{row['samplers']['numpy_conditionals_only']['min_s'] * 1e3:.1f}), device-cholesky "
              f"{t_new * 1e3:.1f} ms: {t_old / t_new:.2f}x")
        e = row["errors"]
        print(f"  mu against the solve: {e['mu_max_abs_over_sigma']:.1e} sigma (float32 product: "
              f"{e['float32_mu_max_abs_over_sigma']:.1e}); min sigma {e['min_sigma']:.3f}")
        if length in args.cov_lengths:
            row["covariance"] = covariance_check(dist, args.cov_samples, device)
            c = row["covariance"]
            print(f"  covariance of {c['samples']:,} sequences: max {c['max_abs_standardised']:.2f} standard errors "
                  f"over {c['entries']:,} entries, mean square {c['mean_square_standardised']:.3f}")
        for backbone in ("transformer", "mamba") if args.model_steps else ():
            for width in widths:
                step = model_step(backbone, width, length, p4, device, args.model_steps)
                t = step["min_s"]
                step.update(share_numpy=t_old / (t_old + t), share_device_cholesky=t_new / (t_new + t))
                row["models"][f"{backbone} {width}"] = step
                print(f"  {backbone:<11} width {width:>3}: step {t * 1e3:8.1f} ms; sampler share "
                      f"numpy {step['share_numpy']:.1%}, device-cholesky {step['share_device_cholesky']:.1%}")
        if device.type == "cpu":
            row["h200_estimate"] = gpu_estimate(length, batch, copies, gpu_steps, t_old)
            est = row["h200_estimate"]
            shares = [f"{k}: {v['share_device_cholesky']:.1%} (numpy at least {v['share_numpy_at_least']:.0%})"
                      for k, v in est.items() if isinstance(v, dict)]
            print(f"  H200 estimate: {est['arithmetic']}; at most 10% of any step over "
                  f"{est['step_s_for_10_percent'] * 1e3:.2f} ms" + ("; share of the measured step: " if shares else "")
                  + ", ".join(shares))
        report["lengths"][str(length)] = row
    out = Path(args.out) if args.out else ROOT / "benchmarks" / f"bench_gaussian_sampler_{device.type}.json"
    out.write_text(json.dumps(report, indent=1) + "\n")
    print(f"written: {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}")


if __name__ == "__main__":
    main()
