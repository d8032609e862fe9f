"""Check every model the full profiles train on a device against the CPU, and time it there.

For each trained model kind of chapters 03, 04 and 06 (the sizes of their ``full`` blocks
in ``notebooks/profiles.yml``, or tiny ones with ``--tiny``):

1. **Agreement**: one model, built on the CPU, is copied to the device; a tiny batch
   (2 sequences of at most 32 steps) goes forward and backward on both, in float32
   without autocast. The loss is the mean square of the outputs (any scalar does: the
   point is the gradients). Reported: the largest absolute difference of the outputs and
   of the parameter gradients, each over the largest absolute CPU value, against
   ``OUTPUT_RTOL`` and ``GRAD_RTOL``. IEEE float32 on both sides differs by summation
   order only (about 1e-7 per operation, amplified over the recurrences); TF32 (10-bit
   significand, about 5e-4 per product) would exceed the output tolerance.
2. **Timing**: 2 warm-up steps, then ``--steps`` (default 20) steps of forward, backward
   and AdamW at the profile's batch and length, under bf16 autocast where training uses
   it (``amp_safe`` models on CUDA), synchronised, as seconds per step and tokens per
   second.

It prints the float32 precision settings in force (after the device is resolved, as a
chapter would resolve it) and writes everything to a JSON report. On a machine without a
GPU ``--device auto`` compares the CPU with itself (differences zero) and times the CPU.

Usage: ``python scripts/gpu_check.py [--tiny] [--out PATH] [--steps 20] [--only NAME ...]
[--device auto]``. Exit status 1 when a model disagrees beyond the tolerances.
"""

from __future__ import annotations

import argparse
import copy
import json
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
import yaml
from torch import nn

from seqmi.device import precision_flags, resolve_device
from seqmi.validate import check_int

ROOT = Path(__file__).resolve().parents[1]
PROFILES = ROOT / "notebooks" / "profiles.yml"
OUTPUT_RTOL = 1e-4  # max |device - cpu| / max |cpu| of the outputs
GRAD_RTOL = 1e-3  # the same for every parameter gradient (the largest over parameters)
COMPARE_BATCH, COMPARE_LENGTH = 2, 32
CHAR_VOCAB, WORD_VOCAB = 60, 12000  # KJV characters; words seen 3 times or more (chapter 03)


@dataclass
class Case:
    """One trained model kind: how to build it and feed it.

    Attributes
    ----------
    name, chapter : str
        Its label in the report and the chapter that trains it.
    make : callable
        ``make() -> nn.Module``, the model at the profile's size.
    inputs : callable
        ``inputs(batch, length, generator) -> tensor`` on the CPU.
    batch, length : int
        The profile's batch and sequence length (tokens per step = their product).
    """

    name: str
    chapter: str
    make: Callable[[], nn.Module]
    inputs: Callable[[int, int, torch.Generator], torch.Tensor]
    batch: int
    length: int


def _tokens(vocab: int) -> Callable[[int, int, torch.Generator], torch.Tensor]:
    return lambda b, n, g: torch.randint(vocab, (b, n), generator=g)


def _vectors(dim: int) -> Callable[[int, int, torch.Generator], torch.Tensor]:
    return lambda b, n, g: torch.randn(b, n, dim, generator=g)


def outputs(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    """Every output of ``model`` on ``x``, flattened into one float tensor."""
    out = model(x)
    parts = out if isinstance(out, tuple) else (out,)
    return torch.cat([p.float().reshape(-1) for p in parts if isinstance(p, torch.Tensor)])


def cases(full: dict[str, dict[str, Any]], tiny: bool) -> list[Case]:
    """The models of chapters 03, 04 and 06 at the sizes of their ``full`` profile blocks.

    Parameters
    ----------
    full : dict
        The ``full`` block of ``notebooks/profiles.yml``.
    tiny : bool
        Width 8, one layer, batch 2, length 16 (and vocabularies of 60 words) instead.

    Returns
    -------
    list of Case
    """
    from seqmi.experiments.ch03_rnn_transformer_mi import BINARY_HEADS, TEXT_HEADS
    from seqmi.experiments.ch06_attention_gradients import N_IN, N_OUT, RHO, TASK_NU
    from seqmi.models.attentive_rnn import TaskModel
    from seqmi.models.gaussian_lm import GaussianSequenceModel
    from seqmi.models.lm import RNNLM, TransformerLM
    from seqmi.models.mamba import MambaLM
    from seqmi.models.agent import CELL_CODES, Agent

    p3, p4, p6 = (full[k] for k in ("03_rnn_transformer_mi", "04_bipartite_mi_l2m", "06_attention_gradients"))

    def size(value: int) -> int:
        return 8 if tiny else value

    def run(batch: int, length: int) -> tuple[int, int]:
        return (2, 16) if tiny else (batch, length)

    words = CHAR_VOCAB if tiny else WORD_VOCAB
    w_rnn, w_tf = size(max(p3["rnn_widths"])), size(max(p3["transformer_widths"]))
    d_tf = 1 if tiny else max(p3["transformer_depths"])
    c_lstm, c_tf = size(max(p3["text_lstm_widths"])), size(max(p3["text_transformer_widths"]))
    w_lstm, w_wtf = size(max(p3["word_lstm_widths"])), size(p3["word_transformer_depth_width"])
    d_wtf = 1 if tiny else max(p3["word_transformer_depths"])
    g_width, g_layers = size(max(p4["model_widths"])), 1 if tiny else p4["model_layers"]
    token_dim, g_len = size(p4["token_dim"]), max(p4["l2m_lengths"])
    ch_width, ch_depth = size(p4["char_width"]), 1 if tiny else p4["char_depth"]
    ch_len = max(p4["char_lengths"])
    # the chapter matches the Mamba's parameters to the Transformer's (about 1.25 x its width)
    ch_mamba = size(4 * round(1.25 * p4["char_width"] / 4))
    hidden, t6 = size(64), max(p6["task_lengths"])
    view = 7 * 7 * sum(CELL_CODES)

    def views(b: int, n: int, g: torch.Generator) -> torch.Tensor:
        return (torch.rand(b, n, view, generator=g) < 0.1).float()

    out = [
        Case("binary RNN", "03", lambda: RNNLM(2, w_rnn, 1, "rnn", embed_dim=2), _tokens(2), *run(50, p3["length"])),
        Case("binary LSTM", "03", lambda: RNNLM(2, w_rnn, 1, "lstm", embed_dim=2), _tokens(2), *run(50, p3["length"])),
        Case("binary Transformer", "03",
             lambda: TransformerLM(2, w_tf, d_tf, heads=BINARY_HEADS if w_tf % BINARY_HEADS == 0 else 1,
                                   max_len=p3["length"] + 1), _tokens(2), *run(50, p3["length"])),
        Case("char LSTM", "03", lambda: RNNLM(CHAR_VOCAB, c_lstm, 1, "lstm", embed_dim=min(200, c_lstm)),
             _tokens(CHAR_VOCAB), *run(p3["text_lstm_batch"], 100)),
        Case("char Transformer", "03",
             lambda: TransformerLM(CHAR_VOCAB, c_tf, 1, heads=TEXT_HEADS if c_tf % TEXT_HEADS == 0 else 1,
                                   max_len=p3["text_window"]),
             _tokens(CHAR_VOCAB), *run(p3["text_transformer_batch"], p3["text_window"])),
        Case("word LSTM", "03", lambda: RNNLM(words, w_lstm, 1, "lstm", embed_dim=w_lstm, tie_weights=True),
             _tokens(words), *run(p3["word_lstm_batch"], 50)),
        Case("word Transformer", "03",
             lambda: TransformerLM(words, w_wtf, d_wtf, heads=TEXT_HEADS if w_wtf % TEXT_HEADS == 0 else 1,
                                   max_len=p3["word_window"], tie_weights=True),
             _tokens(words), *run(p3["word_transformer_batch"], p3["word_window"])),
    ]
    for backbone in ("transformer", "mamba"):
        out.append(Case(f"Gaussian {backbone}", "04",
                        lambda b=backbone: GaussianSequenceModel(b, token_dim, g_width, g_layers, p4["heads"],
                                                                 max(g_len, COMPARE_LENGTH), p4["d_state"]),
                        _vectors(token_dim), *run(p4["batch"], g_len)))
    out += [
        Case("char Transformer (L2M)", "04",
             lambda: TransformerLM(CHAR_VOCAB, ch_width, ch_depth,
                                   heads=p4["char_heads"] if ch_width % p4["char_heads"] == 0 else 1, max_len=ch_len),
             _tokens(CHAR_VOCAB), *run(p4["char_batch"], ch_len)),
        Case("char Mamba (L2M)", "04", lambda: MambaLM(CHAR_VOCAB, ch_mamba, ch_depth, 16), _tokens(CHAR_VOCAB),
             *run(p4["char_batch"], ch_len)),
    ]
    for kind in TaskModel.KINDS:
        out.append(Case(f"task {kind}", "06", lambda k=kind: TaskModel(k, N_IN, N_OUT, hidden, TASK_NU["copy"], RHO),
                        _tokens(N_IN), *run(p6.get("batch", 10), t6)))
    for kind in p6["minigrid_kinds"]:
        out.append(Case(f"MiniGrid agent {kind}", "06", lambda k=kind: Agent(k, hidden), views,
                        *run(p6["minigrid_n_envs"], 64)))
    return out


def max_abs(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a.detach().cpu().float() - b.detach().cpu().float()).abs().max())


def compare(case: Case, device: torch.device, seed: int) -> dict[str, Any]:
    """Outputs and gradients of one model on the device against the CPU, float32, tiny batch."""
    torch.manual_seed(seed)
    cpu_model = case.make()
    dev_model = copy.deepcopy(cpu_model).to(device)
    length = min(case.length, COMPARE_LENGTH)
    x = case.inputs(COMPARE_BATCH, length, torch.Generator().manual_seed(seed))
    results = []
    for model, where in ((cpu_model, torch.device("cpu")), (dev_model, device)):
        out = outputs(model, x.to(where))
        out.square().mean().backward()
        grads = {n: p.grad for n, p in model.named_parameters() if p.grad is not None}
        results.append((out, grads))
    (out_c, grads_c), (out_d, grads_d) = results
    out_scale = float(out_c.detach().abs().max())
    grad_diff = max((max_abs(grads_c[n], grads_d[n]) / max(float(grads_c[n].abs().max()), 1e-12)
                     for n in grads_c), default=0.0)
    out_rel = max_abs(out_c, out_d) / max(out_scale, 1e-12)
    return {"batch": COMPARE_BATCH, "length": length, "output_max_abs_diff": max_abs(out_c, out_d),
            "output_max_abs": out_scale, "output_rel_diff": out_rel, "grad_rel_diff": grad_diff,
            "output_ok": out_rel <= OUTPUT_RTOL, "grad_ok": grad_diff <= GRAD_RTOL}


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def time_steps(case: Case, device: torch.device, steps: int, seed: int) -> dict[str, Any]:
    """Seconds per training step (forward, backward, AdamW) at the profile's batch and length."""
    torch.manual_seed(seed)
    model = case.make().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    amp = device.type == "cuda" and bool(getattr(model, "amp_safe", False))
    x = case.inputs(case.batch, case.length, torch.Generator().manual_seed(seed)).to(device)

    def step() -> None:
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=amp):
            loss = outputs(model, x).square().mean()
        loss.backward()
        optimizer.step()

    for _ in range(2):
        step()
    _sync(device)
    start = time.perf_counter()
    for _ in range(steps):
        step()
    _sync(device)
    per_step = (time.perf_counter() - start) / steps
    return {"batch": case.batch, "length": case.length, "steps": steps, "seconds_per_step": per_step,
            "tokens_per_s": case.batch * case.length / per_step, "bf16_autocast": amp,
            "parameters": sum(p.numel() for p in model.parameters())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiny", action="store_true", help="tiny models and batches (CI), not the full profiles")
    parser.add_argument("--out", default="_build/gpu_check.json", help="where the JSON report goes")
    parser.add_argument("--steps", type=int, default=20, help="timed training steps per model")
    parser.add_argument("--device", default="auto", help='"auto" | "cpu" | "cuda" | "cuda:N"')
    parser.add_argument("--only", nargs="*", help="model names to check (default: all)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    check_int("steps", args.steps, 1)
    device = resolve_device(args.device)  # on CUDA this also sets IEEE float32 (seqmi.device)
    flags = precision_flags()
    print(f"device {device} ({torch.cuda.get_device_name(device) if device.type == 'cuda' else platform.machine()}),"
          f" torch {torch.__version__}, CUDA {torch.version.cuda}")
    print("float32 precision in force:", ", ".join(f"{k}={v}" for k, v in flags.items()),
          "(CUDA settings: the CPU computes IEEE float32 whatever they say)" if device.type == "cpu" else "")
    all_cases = cases(yaml.safe_load(PROFILES.read_text())["full"], args.tiny)
    names = [c.name for c in all_cases]
    unknown = sorted(set(args.only or ()) - set(names))
    if unknown:
        raise SystemExit(f"unknown model names {unknown}; choose from {names}")
    rows = []
    start = time.perf_counter()
    for case in all_cases:
        if args.only and case.name not in args.only:
            continue
        row = {"name": case.name, "chapter": case.chapter, "compare": compare(case, device, args.seed),
               "timing": time_steps(case, device, args.steps, args.seed)}
        rows.append(row)
        c, t = row["compare"], row["timing"]
        verdict = "ok" if c["output_ok"] and c["grad_ok"] else "DIFFERS"
        print(f"{case.name:<24} ch {case.chapter}  out {c['output_rel_diff']:.1e}  grad {c['grad_rel_diff']:.1e}"
              f"  {verdict:<7} {t['seconds_per_step'] * 1e3:9.1f} ms/step  {t['tokens_per_s']:12,.0f} tok/s"
              f"  ({t['parameters']:,} parameters, batch {t['batch']} x {t['length']})", flush=True)
    ok = all(r["compare"]["output_ok"] and r["compare"]["grad_ok"] for r in rows)
    report = {"device": str(device), "device_name": torch.cuda.get_device_name(device) if device.type == "cuda"
              else platform.processor() or platform.machine(), "torch": torch.__version__, "cuda": torch.version.cuda,
              "python": platform.python_version(), "precision_flags": flags, "tiny": args.tiny,
              "tolerances": {"output_rel": OUTPUT_RTOL, "grad_rel": GRAD_RTOL}, "models": rows, "ok": ok,
              "wall_s": time.perf_counter() - start}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1) + "\n")
    print(f"{'all models agree' if ok else 'SOME MODELS DIFFER'}; report in {out}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
