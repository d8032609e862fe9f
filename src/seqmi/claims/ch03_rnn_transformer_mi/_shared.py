"""What chapter 03's rules share: the paper's numbers, the recorded readings, intervals, power and seed counts.

The readings of a recorded model (its seeds' decay rates, forms and losses), the intervals
over seeds, the power and seed-count texts of a design, the convergence a verdict needs,
the claims' scale texts, and the draws the calibrations make.
Re-exported by :mod:`seqmi.claims.ch03_rnn_transformer_mi`, where the public ones are documented.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from seqmi.claims import EQUIVALENCE_LEVEL, EQUIVALENCE_MARGIN, MIN_SEEDS, would_decide
from seqmi.convergence import converged
from seqmi.results.ch03_rnn_transformer_mi import Model, Results, Seed, Settings
from seqmi.stats import contrast_ci, seeds_to_decide, t_power

SATURATION_WIDTH = 32  # Fig. 1c: ξ grows like ln m up to m ≈ 32, then saturates
# Sec. 5.1: "A single-layer Transformer of width m=16 can already capture the algebraic behavior"
PAPER_TRANSFORMER_WIDTH = 16
# Sec. 5.1: "the mutual information does not decay exponentially even in the simplest m=4 model"
PAPER_NARROWEST_TRANSFORMER = 4
# Sec. 4.2.1: "the exponential decay can still been seen clearly in very small LSTMs ... When m > 8, it is hard
# to distinguish the exponential decay from the algebraic decay"
PAPER_CLEAR_LSTM = 8
# App. E.1.1: "the correlation length of m=32 vanilla RNN is shorter than the m=4 LSTM"
PAPER_WIDE_RNN, PAPER_SMALL_LSTM = 32, 4
# Sec. 5.1's magnitude: ln(I_model / I_data) averaged over the first lags, where the MI is far above the floor
MAGNITUDE_LAGS = 10
# the text fits' threshold (App. E.1.2; seqmi.experiments.ch03_rnn_transformer_mi.TEXT_THRESHOLD)
TEXT_FIT_THRESHOLD = 2e-3
# the lag ranges the text statements name (Sec. 4.2.2: short τ ≲ 10, the word level; long 50 ≲ τ ≲ 1000;
# intermediate between them; Figs. 8 and 10: "features up to τ ≲ 50")
SHORT_LAGS = (1, 10)
MIDDLE_LAGS = (1, 50)
INTERMEDIATE_LAGS = (10, 50)
# Sec. 5.2: "our three and five-layer Transformer models have a slowly decaying power-law tail up to τ∼500";
# Sec. 4.2.2: the long distance is 50 ≲ τ ≲ 1000, and the samples are "a long sequence with 2MB characters"
PAPER_TAIL_DEPTHS, PAPER_TAIL_LAG, TAIL_START, PAPER_MAX_LAG = (3, 5), 500, 50, 1000
PAPER_GENERATE = 2_000_000
# Fig. 10b: "The width of character-level networks is 128"
PAPER_TEXT_DEPTH_WIDTH = 128
# a tail is read against the estimator's floor, profiled as an offset: a decisive sample puts the floor at most a
# tenth of the text's own far-lag MI
FLOOR_FRACTION = 10
# Sec. 5: "On WikiText-2, n is limited to 512 characters at character level and 128 tokens at word level"
PAPER_CHAR_CONTEXT, PAPER_WORD_CONTEXT = 512, 128
# binary models' validation losses differ by 0.0001-0.005 nats, below the run's 1% criterion (0.005
# nats): a comparison of them asks for a tolerance of 0.1% (0.0005 nats) over the recipe's patience
# (App. E.1.1: "not improving in the recent 5 epochs")
FINE_TOL, FINE_WINDOW = 1e-3, 5
# same-size training subsamples of App. D.2's control (seqmi.experiments.ch03_rnn_transformer_mi.subsample_control,
# as the chapter calls it)
CONTROL_DRAWS = 10
# the stated effects of the calibrations' h1 (and of the designs' power): one model's ξ or rate half again
# another's; a text mismatch lower by the gap between two same-size samples of the text (the run's
# gap_null); a rank correlation of -0.5
H1_RATIO = 1.5
H1_RHO = -0.5
SIGNIFICANCE = 0.05  # the one-sided level of App. F's permutation test
PERMUTATIONS = 2000  # drawn permutations of App. F's test (all of them up to 6 seeds)
SEED_LIMIT = 10_000  # seed counts beyond this are reported as out of reach
HEAD_WORDS_NOTE = "each passage the first 600 generated characters of the seed's first sample"
TEXT_SUBSTITUTION = "KJV Bible (Genesis–Revelation splits) instead of WikiText-2"

Arrays = Sequence[np.ndarray]


# ---------------------------------------------------------------- recorded values


def _pt(r: Results, kind: str, width: int, depth: int = 1) -> Model | None:
    return r.points.get(f"{kind}_w{width}_d{depth}")


def _seeds(p: Model) -> list[Seed]:
    """A model's independently trained seeds."""
    return p.seeds


def _rates(p: Model) -> np.ndarray:
    """Per seed, the decay rate ``1/ξ`` of its samples (0 where ξ is infinite: no decay)."""
    return np.array([1.0 / s.xi if s.xi > 0 else math.nan for s in _seeds(p)], dtype=float)


def _xis(p: Model) -> np.ndarray:
    """Per seed, the correlation length ξ of its samples."""
    return np.array([s.xi for s in _seeds(p)], dtype=float)


def _forms(p: Model) -> np.ndarray:
    """Per seed, ``ln(RSS_power/RSS_exp)`` of its samples' fits (positive: exponential fits better)."""
    return np.array([math.log(s.pow_rss / s.exp_rss) for s in _seeds(p)], dtype=float)


def _losses(p: Model) -> np.ndarray:
    """Per seed, its best validation loss."""
    return np.array([s.val_loss for s in _seeds(p)], dtype=float)


def _xi_of(rates: Sequence[float]) -> float:
    """The correlation length of a mean decay rate."""
    rate = float(np.mean(rates))
    return 1.0 / rate if rate > 0 else math.inf


def _xi_str(name: str, p: Model) -> str:
    """A model's ξ over its seeds: the ξ of the mean rate, and the seeds' own."""
    rates = _rates(p)
    each = "/".join(f"{1 / v:.0f}" if v > 0 else "∞" for v in rates)
    return f"{name}: ξ={_xi_of(rates):.0f} (seeds {each})"


def _sd(values: np.ndarray) -> float:
    """The spread between seeds (0 with fewer than two)."""
    values = np.asarray(values, dtype=float)
    return float(values.std(ddof=1)) if values.size > 1 and np.isfinite(values).all() else 0.0


def _pct(ci: Sequence[float]) -> str:
    return f"[{ci[0]:+.1%}, {ci[1]:+.1%}]"


def _shapes(points: Mapping[str, Any], kind: str) -> list[tuple[int, int]]:
    """The (width, depth) of every recorded model of ``kind`` (``"lstm"`` does not match ``"word_lstm"``)."""
    out = []
    for key in points:
        head, _, shape = key.rpartition("_w")
        if head == kind:
            width, depth = shape.split("_d")
            out.append((int(width), int(depth)))
    return sorted(out)


# ---------------------------------------------------------------- intervals, power, sizes


def _mean_ci(values: np.ndarray, level: float = 0.95) -> list[float]:
    """Student-t interval of one model's mean over its seeds."""
    return contrast_ci([values], [1.0], level)


def _diff_ci(a: np.ndarray, b: np.ndarray, level: float = 0.95) -> list[float]:
    """Welch's interval of ``mean(a) - mean(b)`` over two models' seeds (never paired)."""
    return contrast_ci([a, b], [1.0, -1.0], level)


def _power(effect: float, sds: Sequence[float], n: int, level: float = 0.95) -> float:
    """:func:`seqmi.stats.power.t_power`; NaN where the spread is not measured."""
    if n < 2 or not math.isfinite(effect) or not all(math.isfinite(s) and s > 0 for s in sds):
        return math.nan
    return t_power(effect, list(sds), n, level)


def _tost_power(sds_log: Sequence[float], n: int) -> float:
    """Power of two one-sided tests (90% interval inside the margin) at no difference, ``n`` seeds per group.

    ``sds_log`` are the spreads of the groups' log values (one group: a ratio to a fixed
    reference), where the margin is about ``ln(1.1)``. The estimate is normal; its standard
    error varies as a χ² with the Welch–Satterthwaite degrees of freedom, integrated on a
    grid of its quantiles.
    """
    from scipy import special, stats

    if n < 2 or not sds_log or not all(math.isfinite(s) and s > 0 for s in sds_log):
        return math.nan
    variances = [float(s) ** 2 for s in sds_log]
    df = sum(variances) ** 2 * (n - 1) / sum(v**2 for v in variances)
    sigma = math.sqrt(sum(variances) / n)
    t = float(special.stdtrit(df, 0.5 + EQUIVALENCE_LEVEL / 2))
    se = sigma * np.sqrt(stats.chi2.ppf((np.arange(200) + 0.5) / 200, df) / df)
    inside = 2 * stats.norm.cdf((math.log1p(EQUIVALENCE_MARGIN) - t * se) / sigma) - 1
    return float(np.clip(inside, 0.0, None).mean())


def _power_text(power: float, n: int, against: str) -> str:
    value = f"≈ {power:.2f}" if math.isfinite(power) else "not computable (no spread measured)"
    return f"{n} seeds per model: power {value} against {against} (t approximations; simulated on the calibration page)"


def _extra(n: int, groups: Sequence[np.ndarray], seed_s: float) -> str:
    """The cost of ``n`` seeds per model beyond this run's, ``seed_s`` core-seconds for one more of each model."""
    more = max(n - min(len(g) for g in groups), 0)
    return f" ({_duration(more * seed_s)} for the seeds beyond this run's)" if math.isfinite(seed_s) else ""


def _seeds_for(*groups: np.ndarray, threshold: float = 0.0, level: float = 0.95, seed_s: float = math.nan) -> str:
    """How many seeds per model the measured means and spreads need to leave ``threshold`` out.

    ``seed_s``: recorded core-seconds of one more seed of every model compared (its cost).
    """
    if min(len(g) for g in groups) < 2 or not all(np.isfinite(g).all() for g in groups):
        return f"≥ {MIN_SEEDS} seeds per model to measure their spread"
    n = seeds_to_decide(*groups, threshold=threshold, level=level, limit=SEED_LIMIT)
    return (f"more than {SEED_LIMIT:,} seeds per model: the measured effect is too small for its spread" if n is None
            else f"≈ {n} seeds per model at the measured means and spreads" + _extra(n, groups, seed_s))


def _tost_seeds(*groups: np.ndarray, planning: bool = False, seed_s: float = math.nan) -> str:
    """Seeds per model that decide an equivalence of two groups (or of one group's ratio to 1).

    Read on the log scale, where the margin is ``ln(1 ± EQUIVALENCE_MARGIN)``: the seeds at
    which the 90% interval would fall inside the margin, or wholly beyond it, at the
    measured difference and spread; with ``planning`` (a measured difference that says
    nothing, as a model's not trained to its capacity), at no difference.
    """
    logs = [np.log(np.asarray(g, dtype=float)) for g in groups]
    if min(len(g) for g in logs) < 2 or not all(np.isfinite(g).all() for g in logs):
        return f"≥ {MIN_SEEDS} seeds per model to measure their spread"
    diff = logs[0].mean() - (logs[1].mean() if len(logs) == 2 else 0.0)
    if planning:
        logs, diff = [g - g.mean() for g in logs], 0.0
    bound = math.log1p(EQUIVALENCE_MARGIN) if diff >= 0 else math.log1p(-EQUIVALENCE_MARGIN)
    n = seeds_to_decide(*logs, threshold=bound, level=EQUIVALENCE_LEVEL, limit=SEED_LIMIT)
    where = ("were the two equal" if planning else
             f"at the measured difference ({math.expm1(diff):+.1%})")
    side = "wholly beyond" if abs(diff) >= abs(bound) else "inside"
    if n is None:
        return f"more than {SEED_LIMIT:,} seeds per model: the measured difference sits at the margin"
    return (f"≈ {n} seeds per model for its 90% interval to fall {side} ±{EQUIVALENCE_MARGIN:.0%} {where}, at the "
            "measured spread" + _extra(n, groups, seed_s))


def _duration(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "an unknown time"
    if seconds < 120:
        return f"≈ {seconds:.0f} core-seconds"
    if seconds < 7200:
        return f"≈ {seconds / 60:.0f} core-minutes"
    return f"≈ {seconds / 3600:.1f} core-hours"


def _seed_seconds(p: Model, tokens_per_epoch: float, factor: float = 1.0) -> float:
    """Recorded core-seconds of one seed: its epochs at the model's training throughput, and its sampling.

    ``factor`` scales both (a longer context's work per token).
    """
    if not p.tokens_per_s:
        return math.nan
    return factor * float(np.mean([s.epochs * tokens_per_epoch / p.tokens_per_s + s.sample_s
                                   for s in _seeds(p)]))


# ---------------------------------------------------------------- convergence


def _criterion(r: Results, fine: bool = False) -> str:
    """The convergence criterion a claim reads (:func:`seqmi.convergence.converged`)."""
    if fine:
        return (f"early stopping, or the best validation loss improved by less than {FINE_TOL:.1%} over the last "
                f"{FINE_WINDOW} epochs")
    c = r.convergence
    return (f"early stopping, or the best validation loss improved by less than {c.tol:.0%} over the last "
            f"{c.window} epochs")


def _converged(s: Seed, fine: bool) -> bool:
    if not fine:
        return s.converged
    return converged(s.val_history, s.stopped, window=FINE_WINDOW, tol=FINE_TOL)


def _unconverged(r: Results, models: Sequence[Model], fine: bool = False) -> str:
    """What keeps a comparison of ``models`` from being decided: seeds too few or not converged ("" if none)."""
    if not models:
        return "the models it compares (none recorded in this run)"
    n = min(len(_seeds(p)) for p in models)
    if n < MIN_SEEDS:
        return f"≥ {MIN_SEEDS} independently trained seeds per model (this run: {n})"
    runs = [s for p in models for s in _seeds(p)]
    done = sum(_converged(s, fine) for s in runs)
    if done < len(runs):
        return (f"every seed trained to convergence ({done}/{len(runs)} converged by {_criterion(r, fine)}): more "
                "epochs or a longer schedule")
    return ""


def _hold(r: Results, raw: str, models: Sequence[Model], fine: bool = False) -> tuple[str, list[str]]:
    """``raw`` held back as inconclusive, whichever way it points, when :func:`_unconverged` objects."""
    missing = _unconverged(r, models, fine)
    if not missing:
        return raw, []
    if raw == "inconclusive":
        return raw, [missing]
    return "inconclusive", [f"{missing} ({raw} by its test, held back)"]


def _scale(base: str, verdict: str, needs: Sequence[str]) -> str:
    """A claim's scale: ``base``, and for an inconclusive one what would decide it."""
    if verdict != "inconclusive":
        return base
    return f"{base}; {would_decide('; '.join(needs) or 'more seeds per model')}"


def _trained(s: Settings) -> str:
    """How many models per configuration a run trained, and which it measured."""
    return (f"{s.seeds} seed(s) per model, every one measured (training seeds 0–{s.seeds - 1} of chapter "
            f"seed {s.seed})")


def _binary_trained(r: Results) -> str:
    """The binary models' seeds, by kind, and the sweep points the recording read."""
    s = r.settings
    seeds = s.binary_seeds
    if seeds is None:  # recorded before the binary seeds were counted apart
        return _trained(s)
    kinds = ", ".join(f"{kind} {len(v)} (training seeds {v[0]}–{v[-1]})" for kind, v in seeds.items() if v)
    points = len(r.point_keys.binary) if r.point_keys is not None else 0
    return (f"seeds per model: {kinds} of chapter seed {s.seed}, every one measured; read from {points} "
            "sweep points (one seed of one family each, named in the recording's point_keys: the ledger's "
            "results/points/03_rnn_transformer_mi/<key>.json where the run kept one)")


def _binary_scale(r: Results) -> str:
    s = r.settings
    return (f"{r.profile}: {_binary_trained(r)}, RNN/LSTM widths {min(s.rnn_widths)}–{max(s.rnn_widths)}, {r.n_train} "
            f"training sequences of length {r.length}, {r.n_generate} generated sequences per seed")


def _text_scale(r: Results, lags: tuple[int, int] | None) -> str:
    """The text claims' scale; ``lags`` the range a claim is decided on (None: the fits' own lags)."""
    s = r.settings
    where = (f"decided at τ = {lags[0]}–{lags[1]} (of the recorded τ ≤ {s.text_max_lag})" if lags else
             f"fits on the lags with I(τ) > {TEXT_FIT_THRESHOLD:g} (of the recorded τ ≤ {s.text_max_lag})")
    return (f"{r.profile}: {_trained(s)}, {s.text_train_chars or 'all'} training characters, {s.text_epochs} (char) / "
            f"{s.word_epochs} (word) epochs at most, {s.text_generate} generated characters per sample set; "
            + where)


def _binary_tokens(r: Results) -> float:
    return float(r.n_train * r.length)


def _model_n(models: Sequence[Model]) -> int:
    return min((len(_seeds(p)) for p in models), default=0)


# ---------------------------------------------------------------- models of another size than the paper's


def at_paper_width(raw: str, width: int, paper_width: int) -> str:
    """A verdict read on a model of ``width`` for a statement about the paper's ``paper_width``.

    Never decided against a weaker model than the paper's: a narrower model's success
    counts a fortiori, its failure is inconclusive; a wider model is stronger than the
    paper's and decides nothing on its own.
    """
    if width == paper_width:
        return raw
    return raw if width < paper_width and raw == "reproduced" else "inconclusive"


# ---------------------------------------------------------------- draws of the calibrations


def _normal(rng: np.random.Generator, mean: float, sd: float, n: int) -> np.ndarray:
    return mean + sd * rng.standard_normal(n)


def _lognormal(rng: np.random.Generator, centre: float, sd_log: float, n: int) -> np.ndarray:
    """Positive values whose logs are normal about ``ln centre`` (the geometric mean) with spread ``sd_log``."""
    return centre * np.exp(sd_log * rng.standard_normal(n))


def _geomean(values: np.ndarray) -> float:
    return float(np.exp(np.mean(np.log(values))))


def _log_sd(values: np.ndarray) -> float:
    values = np.asarray(values, dtype=float)
    return _sd(np.log(values)) if (values > 0).all() and np.isfinite(values).all() else 0.0


def _seeds_note(r: Results) -> str:
    return f"{r.settings.seeds} seeds per model, each model's recorded mean and spread between seeds"
