"""Claims of chapter 03: what trained RNNs, LSTMs and Transformers generate (Shen 2019).

A claim about an architecture is a claim about what it learns, not about one trained
network: every model is trained as several independent seeds (their own weights and data
order), and every trained-model claim is decided by 95% intervals *over the seeds*, the
seed's own sampling noise nested inside its value: for binary models the decay rate
``1/ξ``, the exponent and the decay form ``ln(RSS_pow / RSS_exp)`` of each seed's samples
(:func:`seqmi.fit.decay_fits`); for text, each seed's mean
mismatch over its sample sets, every set against its own same-size sample of the
training text (:func:`seqmi.experiments.ch03_rnn_transformer_mi.set_gaps`). One model is a
Student-t interval over its seeds, two are Welch's. A verdict needs at least ``MIN_SEEDS``
seeds per model and every seed converged (:func:`seqmi.train.converged`, the criterion the
run records); otherwise it is inconclusive whichever way the interval points, and says
what would decide it. The paper's own reading, the best seed on validation (its
"restarts"), is what the chapter's figures draw.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from seqmi.claims import MIN_SEEDS, Claim, combine, decide, decide_within, profile_of
from seqmi.stats import Z95, mean_ci, mean_diff_ci, needed_for_interval, needed_samples, standard_error

SATURATION_WIDTH = 32  # Fig. 1c: ξ grows like ln m up to m ≈ 32, then saturates
GAMMA_TOLERANCE = 0.15  # the Transformer's exponent counts as the data's within this
# Sec. 5.1: "A single-layer Transformer of width m=16 can already capture the algebraic behavior"
PAPER_TRANSFORMER_WIDTH = 16
# App. E.1.1: "the correlation length of m=32 vanilla RNN is shorter than the m=4 LSTM"
PAPER_WIDE_RNN, PAPER_SMALL_LSTM = 32, 4
# Fig. 7: a deeper LSTM "does not improve" when its ξ gains less than this fraction
DEPTH_MARGIN = 0.10
# Sec. 5.1's magnitude: ln(I_model / I_data) averaged over the first lags, where the MI is far above the floor,
# counts as "coinciding" within this (about 15% either way)
MAGNITUDE_LAGS = 10
MAGNITUDE_TOLERANCE = 0.15
# the text fits' threshold (App. E.1.2; seqmi.experiments.ch03_rnn_transformer_mi.TEXT_THRESHOLD)
TEXT_FIT_THRESHOLD = 2e-3
# App. F: the rank correlation over character-model seeds needs at least this many of them
MIN_QUALITY_POINTS = 6
HEAD_WORDS_NOTE = "each passage the first 600 generated characters of the seed's first sample"
TEXT_SUBSTITUTION = "KJV Bible (Genesis–Revelation splits) instead of WikiText-2"


def _pt(r: dict[str, Any], kind: str, width: int, depth: int = 1) -> dict[str, Any] | None:
    return r["points"].get(f"{kind}_w{width}_d{depth}")


def _seeds(p: dict[str, Any]) -> list[dict[str, Any]]:
    """A model's independently trained seeds (a recording from before seeds: its one kept model)."""
    return p.get("seeds", [p])


def _rates(p: dict[str, Any]) -> np.ndarray:
    """Per seed, the decay rate ``1/ξ`` of its samples (0 where ξ is infinite: no decay)."""
    return np.array([1.0 / s["xi"] if s["xi"] > 0 else math.nan for s in _seeds(p)], dtype=float)


def _forms(p: dict[str, Any]) -> np.ndarray:
    """Per seed, ``ln(RSS_power/RSS_exp)`` of its samples' fits (positive: exponential fits better)."""
    return np.array([math.log(s["pow_rss"] / s["exp_rss"]) for s in _seeds(p)], dtype=float)


def _xi_of(rates: Sequence[float]) -> float:
    """The correlation length of a mean decay rate."""
    rate = float(np.mean(rates))
    return 1.0 / rate if rate > 0 else math.inf


def _xi_str(name: str, p: dict[str, Any]) -> str:
    """A model's ξ over its seeds: the ξ of the mean rate, and the seeds' own."""
    rates = _rates(p)
    each = "/".join(f"{1 / v:.0f}" if v > 0 else "∞" for v in rates)
    return f"{name}: ξ={_xi_of(rates):.0f} (seeds {each})"


def _criterion(r: dict[str, Any]) -> str:
    """The convergence criterion the run recorded (:func:`seqmi.train.converged`)."""
    c = r.get("convergence")
    if c is None:
        return "no convergence flags in this recording"
    return (f"early stopping, or the best validation loss improved by less than {c['tol']:.0%} over the last "
            f"{c['window']} epochs")


def _unconverged(r: dict[str, Any], models: Sequence[dict[str, Any]]) -> str:
    """What keeps a comparison of ``models`` from being decided: seeds too few or not converged ("" if none)."""
    if not models:
        return "the models it compares (none recorded in this run)"
    n = min(len(_seeds(p)) for p in models)
    if n < MIN_SEEDS:
        return f"≥ {MIN_SEEDS} independently trained seeds per model (this run: {n})"
    runs = [s for p in models for s in _seeds(p)]
    done = sum(bool(s.get("converged")) for s in runs)
    if done < len(runs):
        return (f"every seed trained to convergence ({done}/{len(runs)} converged by {_criterion(r)}): more epochs "
                "or a longer schedule")
    return ""


def _gated(r: dict[str, Any], verdict: str, models: Sequence[dict[str, Any]], scale: str) -> tuple[str, str]:
    """``verdict`` held back as inconclusive, whichever way it points, when :func:`_unconverged` objects."""
    missing = _unconverged(r, models)
    if not missing:
        return verdict, scale
    if verdict == "inconclusive":
        return verdict, scale + f"; a verdict also needs {missing}"
    return "inconclusive", scale + f"; {verdict} by its intervals, held back: a verdict needs {missing}"


def _trained(s: dict[str, Any]) -> str:
    """How many models per configuration a run trained, and which it measured."""
    if "seeds" not in s:  # recorded before seeds
        return f"{s['restarts']} restart(s) per model, the best on validation alone measured"
    return (f"{s['seeds']} seed(s) per model, every one measured (training seeds 0–{s['seeds'] - 1} of chapter "
            f"seed {s['seed']})")


def _binary_scale(r: dict[str, Any]) -> str:
    s = r["settings"]
    return (f"{profile_of(r)}: {_trained(s)}, RNN/LSTM widths {min(s['rnn_widths'])}–{max(s['rnn_widths'])}, {r['n_train']} "
            f"training sequences of length {r['length']}, {r['n_generate']} generated sequences per seed")


def _text_scale(r: dict[str, Any]) -> str:
    s = r["settings"]
    return (f"{profile_of(r)}: {_trained(s)}, {s['text_train_chars'] or 'all'} training characters, {s['text_epochs']} (char) / "
            f"{s['word_epochs']} (word) epochs at most, {s['text_sets']} sets of {s['text_generate']} generated "
            f"characters per seed, τ ≤ {s['text_max_lag']}")


def _seed_need(n: int, values: np.ndarray, effect: float) -> str:
    """The seeds at which a normal interval of the measured spread resolves ``effect``."""
    return f"; its interval asks for ≈ {needed_samples(n, standard_error(values), abs(effect))} seeds per model"


def _rnn_exponential(r: dict[str, Any]) -> Claim:
    widths = [w for w in r["settings"]["rnn_widths"] if _pt(r, "rnn", w)]
    data = r["data_fit"]
    data_rate_hi = 1.0 / data["xi_ci"][0]
    parts, notes, models = [], [], []
    for w in widths:
        p = _pt(r, "rnn", w)
        models.append(p)
        form, rate = mean_ci(_forms(p)), mean_ci(_rates(p))
        # ξ far below the data's: the seeds' mean decay rate above the data's whole interval
        parts += [decide(form, 0.0, claim_above=True), decide(rate, data_rate_hi, claim_above=True)]
        notes.append(f"{_xi_str(f'rnn {w}', p)}, ln(RSS_pow/RSS_exp) ∈ [{form[0]:+.2f}, {form[1]:+.2f}]")
    verdict, scale = _gated(r, combine(parts), models, _binary_scale(r))
    return Claim("shen2019.fig1a.rnn-exponential", "Shen 2019 Sec. 4.2.1, Fig. 1a",
                 "Vanilla-RNN samples decay exponentially, with ξ far below the data's", "statistical",
                 None, None,
                 "at every width, Student-t 95% intervals over the seeds: ln(RSS_power/RSS_exp) of each seed's samples "
                 "above 0 (exponential fits better), and the decay rate 1/ξ above the data's (its bootstrap interval); "
                 "any interval on the wrong side: not reproduced",
                 verdict, "", scale, "; ".join(notes) + f"; data ξ={data['xi']:.0f} "
                 f"[{data['xi_ci'][0]:.0f}, {data['xi_ci'][1]:.0f}]")


def _slope(widths: Sequence[int], xis: Sequence[float]) -> float:
    """Least-squares slope of ξ against ln m."""
    return float(np.polyfit(np.log(widths), xis, 1)[0])


def _saturation(r: dict[str, Any], kind: str) -> tuple[list[str], str, list[dict[str, Any]], str]:
    """Fig. 1c for ``kind``: per seed, the slope of ξ against ln m up to 32, and above it.

    Seed ``i`` of every width makes one replicate (the seeds of different widths are
    independent, so any pairing is). Growth: the slope below 32 above 0; saturation: the
    slope above 32 minus the slope below, under 0. Returns the two parts' verdicts, a
    note, the models compared, and what is missing for a decision.
    """
    widths = [w for w in r["settings"]["rnn_widths"] if _pt(r, kind, w)]
    small = [w for w in widths if w <= SATURATION_WIDTH]
    large = [w for w in widths if w >= SATURATION_WIDTH]
    models = [_pt(r, kind, w) for w in widths]
    if len(small) < 2 or len(large) < 2 or SATURATION_WIDTH not in widths:
        return (["inconclusive"], "", models,
                f"widths {SATURATION_WIDTH}, two below it and one above it (paper: 1 to 256)")
    n = min(len(_seeds(p)) for p in models)
    xi = {w: [1.0 / v if v > 0 else math.inf for v in _rates(_pt(r, kind, w))[:n]] for w in widths}
    below = np.array([_slope(small, [xi[w][i] for w in small]) for i in range(n)])
    above = np.array([_slope(large, [xi[w][i] for w in large]) for i in range(n)])
    grow, change = mean_ci(below), mean_ci(above - below)
    note = (f"{kind}: slope of ξ against ln m {below.mean():+.1f} [{grow[0]:+.1f}, {grow[1]:+.1f}] up to "
            f"{SATURATION_WIDTH}, {above.mean():+.1f} above it (change {change[0]:+.1f} to {change[1]:+.1f})")
    return [decide(grow, 0.0), decide(change, 0.0, claim_above=False)], note, models, ""


def _rnn_saturates(r: dict[str, Any]) -> Claim:
    parts, note, models, missing = _saturation(r, "rnn")
    scale = _binary_scale(r)
    verdict, scale = (_gated(r, combine(parts), models, scale) if not missing
                      else ("inconclusive", scale + f"; needs {missing}"))
    widths = [w for w in r["settings"]["rnn_widths"] if _pt(r, "rnn", w)]
    return Claim("shen2019.fig1c.rnn-xi-saturates", "Shen 2019 Sec. 4.2.1, Fig. 1c",
                 "Vanilla-RNN ξ grows like ln m up to m≈32, then saturates", "statistical", None, None,
                 f"per seed, the slope of ξ against ln m over the widths up to {SATURATION_WIDTH} and over those from "
                 f"{SATURATION_WIDTH} up; Student-t 95% intervals over the seeds: the slope up to {SATURATION_WIDTH} "
                 "above 0 (growth) and the slope above it minus the slope below under 0 (saturation); either on the "
                 "wrong side: not reproduced",
                 verdict, "", scale, "; ".join([note] * bool(note) + [_xi_str(f"rnn {w}", _pt(r, "rnn", w))
                                                                      for w in widths])
                 + "; the paper's plateau, ξ ≈ 100, belongs to its data's ξ: ours is in the data ξ of Fig. 1a")


def _lstm(r: dict[str, Any]) -> Claim:
    data = r["data_fit"]
    data_rate_lo = 1.0 / data["xi_ci"][1] if math.isfinite(data["xi_ci"][1]) else 0.0
    lstm_widths = [w for w in r["settings"]["rnn_widths"] if _pt(r, "lstm", w)]
    common = [w for w in lstm_widths if _pt(r, "rnn", w)]
    # the LSTM's ξ above the RNN's: the RNN's decay rate minus the LSTM's above 0 (Welch)
    beats = [decide(mean_diff_ci(_rates(_pt(r, "rnn", w)), _rates(_pt(r, "lstm", w))), 0.0) for w in common]
    below = [decide(mean_ci(_rates(_pt(r, "lstm", w))), data_rate_lo) for w in lstm_widths]
    sat_parts, note, _, missing = _saturation(r, "lstm")
    models = [_pt(r, k, w) for k in ("rnn", "lstm") for w in common] + [_pt(r, "lstm", w) for w in lstm_widths]
    scale = _binary_scale(r)
    verdict, scale = _gated(r, combine(beats + below + sat_parts[-1:]), models, scale)
    if missing:
        scale += f"; the saturation needs {missing}"
    return Claim("shen2019.fig1c.lstm-beats-rnn-saturates", "Shen 2019 Fig. 1c, App. E.1.1",
                 "LSTM ξ exceeds the vanilla RNN's and saturates below the data's baseline", "statistical",
                 None, None,
                 "95% intervals over the seeds: at every common width the RNN's decay rate 1/ξ minus the LSTM's above "
                 "0 (Welch); every LSTM's rate above the data's; the LSTM's slope of ξ against ln m above "
                 f"{SATURATION_WIDTH} minus its slope below under 0 (needs widths on both sides of {SATURATION_WIDTH})",
                 verdict, "", scale,
                 "; ".join([_xi_str(f"lstm {w}", _pt(r, "lstm", w)) for w in lstm_widths] + [note] * bool(note))
                 + f"; LSTM above RNN (interval-wise) at {beats.count('reproduced')}/{len(common)} widths")


def _depth(r: dict[str, Any]) -> Claim:
    s = r["settings"]
    deep = _pt(r, "rnn", s["depth_widths"][0], max(s["rnn_depths"]))
    wider = [w for w in s["rnn_widths"] if _pt(r, "rnn", w) and deep and _pt(r, "rnn", w)["params"] >= deep["params"]]
    scale = _binary_scale(r)
    rule = ("the narrowest single-layer RNN with at least the deepest RNN's parameters: its decay rate 1/ξ minus the "
            "deep one's, Welch 95% interval over the seeds, above 0; below 0: not reproduced")
    if deep is None or max(s["rnn_depths"]) < 2 or not wider:
        need = f"a single-layer RNN with at least {deep['params'] if deep else '?'} parameters"
        return Claim("shen2019.fig1d.rnn-depth-beats-width", "Shen 2019 Fig. 1d", "Depth beats width for vanilla RNNs",
                     "statistical", None, None, rule, "inconclusive", "", scale + f"; needs {need}",
                     (_xi_str("deepest rnn", deep) if deep else "no deep RNN") + "; no wider RNN with as many parameters")
    w = _pt(r, "rnn", wider[0])
    diff = _rates(w).mean() - _rates(deep).mean()
    ci = mean_diff_ci(_rates(w), _rates(deep))
    verdict = decide(ci, 0.0)
    if verdict == "inconclusive" and min(len(_seeds(deep)), len(_seeds(w))) >= 2:
        scale += _seed_need(len(_seeds(deep)), np.concatenate([_rates(w), _rates(deep)]), diff)
    verdict, scale = _gated(r, verdict, [deep, w], scale)
    return Claim("shen2019.fig1d.rnn-depth-beats-width", "Shen 2019 Fig. 1d", "Depth beats width for vanilla RNNs",
                 "statistical", float(diff), ci, rule, verdict, "", scale,
                 f"{_xi_str('deep', deep)} vs {_xi_str(f'rnn {wider[0]}', w)}; rate difference {diff:+.4f}")


def _transformer(r: dict[str, Any]) -> Claim:
    s, data = r["settings"], r["data_fit"]
    width = PAPER_TRANSFORMER_WIDTH
    p = _pt(r, "transformer", width)
    scale = _binary_scale(r)
    claim = ("shen2019.fig3a.transformer-power-law", "Shen 2019 Sec. 5.1, Fig. 3a, 9",
             f"A single-layer Transformer of width {width} reproduces the power law (exponent close to the data's)",
             "statistical")
    rule = (f"the paper's single-layer Transformer of width {width}, every seed above threshold over ≥ half the "
            "data's lags; Student-t 95% intervals over the seeds: ln(RSS_power/RSS_exp) below 0, and γ − γ_data "
            f"within ±{GAMMA_TOLERANCE} (the seeds' interval against the data's bootstrap interval)")
    if p is None:  # not in this profile's widths, or its sweep point is pending (a run stopped by time_budget_s)
        why = "pending" if width in s["transformer_widths"] else "not in this profile's widths"
        return Claim(*claim, None, None, rule, "inconclusive", "",
                     scale + f"; needs the single-layer Transformer of width {width}", f"width {width}: {why}")
    seeds = _seeds(p)
    gammas = np.array([x["gamma"] for x in seeds], dtype=float)
    form, gamma = mean_ci(_forms(p)), mean_ci(gammas)
    diff = [gamma[0] - data["gamma_ci"][1], gamma[1] - data["gamma_ci"][0]]
    reach = ("reproduced" if all(x["n_fit_points"] >= data["n_fit_points"] / 2 for x in seeds)
             else "not reproduced")
    verdict, scale = _gated(r, combine([reach, decide(form, 0.0, claim_above=False),
                                     decide_within(diff, -GAMMA_TOLERANCE, GAMMA_TOLERANCE)]), [p], scale)
    return Claim(*claim, float(gammas.mean()), gamma, rule, verdict, "", scale,
                 f"width {width}: γ per seed {'/'.join(f'{g:.2f}' for g in gammas)} vs data {data['gamma']:.2f} "
                 f"(difference ∈ [{diff[0]:+.2f}, {diff[1]:+.2f}]), points "
                 f"{'/'.join(str(x['n_fit_points']) for x in seeds)} of the data's {data['n_fit_points']}, "
                 f"ln(RSS_pow/RSS_exp) ∈ [{form[0]:+.2f}, {form[1]:+.2f}]")


def _shows_shen_nonuniformity(g: dict[str, float]) -> bool:
    """A split's long-range MI above the training split's by > 3 SE, and no decay resolved at 3 SE."""
    return g["excess"] > 3 * g["excess_se"] and g["decay"] < 3 * g["decay_se"]


def _split_nonuniform(r: dict[str, Any], scale: str) -> Claim:
    claim = ("shen2019.appD2.split-nonuniform", "Shen 2019 Sec. 4.2.2, App. D.2, Fig. 6",
             "A by-article split's validation and test sets have a much larger long-range MI than the training set, "
             "without its algebraic decay (WikiText, Penn Treebank); a split made by the authors (text8) is more "
             "uniform", "statistical")
    rule = ("from τ = 50 on, batch-means standard errors: a held-out split shows the non-uniformity when its mean "
            "I exceeds the training split's by more than 3 SE and its decay (mean I over the range's first third "
            "minus its last third) is under 3 SE; reproduced when the contiguous split's validation or test set "
            "shows it and neither set of the random split does, not reproduced otherwise")
    shape = r.get("split_long_range_shape")
    if shape is None:  # recorded before the rule read Shen's statement
        return Claim(*claim, None, None, rule, "inconclusive", TEXT_SUBSTITUTION,
                     scale + "; not measured in this recording", "no long-range shape recorded")
    shows = {name: _shows_shen_nonuniformity(g) for name, g in shape.items()}
    contiguous = shows["contiguous_valid"] or shows["contiguous_test"]
    random = shows["random_valid"] or shows["random_test"]
    cv = shape["contiguous_valid"]
    train = cv["train_decay"], cv["train_decay_se"]
    return Claim(*claim, cv["excess"], [cv["excess"] - Z95 * cv["excess_se"], cv["excess"] + Z95 * cv["excess_se"]],
                 rule, "reproduced" if contiguous and not random else "not reproduced", TEXT_SUBSTITUTION, scale,
                 "; ".join(f"{name}: excess {g['excess']:+.1e}±{g['excess_se']:.1e}, decay {g['decay']:+.1e}±"
                           f"{g['decay_se']:.1e} ({'shows it' if shows[name] else 'does not'})"
                           for name, g in shape.items())
                 + f"; the training split's own decay {train[0]:+.1e}±{train[1]:.1e}")


def _splits(r: dict[str, Any]) -> list[Claim]:
    g = r["split_long_range"]
    size_ok = all(abs(v["z_valid"]) < 3 and v["z_train"] < -3 for v in g.values())
    scale = f"{profile_of(r)}: rows of {r['settings']['split_row']} characters, τ ≤ {r['settings']['split_max_lag']}"
    return [
        _split_nonuniform(r, scale),
        Claim("shen2019.appD2.valid-excess-is-sample-size", "Shen 2019 Sec. 4.2.2, App. D.2, Fig. 6; control of this chapter",
              "The validation split's larger, flat long-range MI (Shen's non-uniformity) is matched by a same-size "
              "training subsample: a sample-size floor of the estimator", "statistical", None, None,
              "validation within 3 sd of same-size training subsamples, the whole training split more than 3 sd below",
              "reproduced" if size_ok else "not reproduced", TEXT_SUBSTITUTION, scale,
              "; ".join(f"{h}: valid {v['valid']:.1e}, train {v['train']:.1e}, subsamples {v['null_mean']:.1e}±"
                        f"{v['null_sd']:.1e} (z {v['z_valid']:+.1f} / {v['z_train']:+.1f})" for h, v in g.items())),
    ]


def _seed_means(gaps: dict[str, Any], name: str) -> np.ndarray:
    """Per seed, a model's mean gap over its sample sets (a recording from before seeds: one seed)."""
    sets = gaps[name]
    per_seed = sets if sets and isinstance(sets[0], list) else [sets]
    return np.array([np.mean(g) for g in per_seed], dtype=float)


def _text_model(r: dict[str, Any], name: str) -> dict[str, Any]:
    """The record of the text model ``"kind W×D"`` (a gap key)."""
    kind, shape = name.split(" ")
    width, depth = shape.split("×")
    return r["text_points"][f"{kind}_w{width}_d{depth}"]


def _gap_claim(r: dict[str, Any], cid: str, source: str, statement: str, rule: str,
               gaps: dict[str, Any], pairs: dict[str, tuple[str, str]], positive: bool, detail: str) -> Claim:
    """A text claim on mismatch differences ``a − b``, each a Welch interval over the two models' seeds."""
    diffs = {name: (_seed_means(gaps, a), _seed_means(gaps, b)) for name, (a, b) in pairs.items()}
    cis = {name: mean_diff_ci(a, b) for name, (a, b) in diffs.items()}
    parts = {name: decide(ci, 0.0, claim_above=positive) for name, ci in cis.items()}
    verdict = combine(list(parts.values()))
    scale = _text_scale(r)
    if r.get("samples_floor_dominated"):
        scale += "; samples floor-dominated (the training text at their size stays above 2e-3 at every τ)"
    undecided = [name for name, v in parts.items() if v == "inconclusive"]
    if verdict == "inconclusive" and undecided and all(min(len(a), len(b)) >= 2 for a, b in diffs.values()):
        # the comparison nearest to deciding sets the count; the others need at least as many
        worst = min(undecided, key=lambda n: standard_error(*diffs[n]) / max(abs(_effect(diffs[n])), 1e-12))
        a, b = diffs[worst]
        need = needed_samples(min(len(a), len(b)), standard_error(a, b), abs(_effect(diffs[worst])))
        scale += f"; deciding {worst} needs ≈ {need} seeds per model"
    verdict, scale = _gated(r, verdict, [_text_model(r, key) for pair in pairs.values() for key in pair], scale)
    measured = "; ".join(f"{name}: {_effect(diffs[name]):+.2f} [{cis[name][0]:+.2f}, {cis[name][1]:+.2f}] "
                         f"(seeds {'/'.join(f'{v:.2f}' for v in diffs[name][0])} vs "
                         f"{'/'.join(f'{v:.2f}' for v in diffs[name][1])})" for name in diffs)
    return Claim(cid, source, statement, "statistical", None, None, rule, verdict, TEXT_SUBSTITUTION, scale,
                 f"{detail}; difference of mean |Δ ln I| (95% interval over seeds; each seed's mean over its sample "
                 f"sets) {measured}; two disjoint samples of the text differ by {r['gap_null']:.2f}")


def _effect(pair: tuple[np.ndarray, np.ndarray]) -> float:
    return float(pair[0].mean() - pair[1].mean())


def _depth_pairs(r: dict[str, Any], family: str) -> dict[str, tuple[str, str]]:
    """The depth comparisons of a family (``"lstm"`` matches character and word LSTMs): shallow, deep.

    Named ``"kind W×A→B"``: model ``"kind W×A"`` against ``"kind W×B"``.
    """
    names = r["depth_pairs"] if "depth_pairs" in r else r["depth_gains"]  # recordings from before seeds
    pairs = {}
    for name in names:
        head, depths = name.split("×")
        shallow, deep = depths.split("→")
        pairs[name] = (f"{head}×{shallow}", f"{head}×{deep}")
    return {name: pair for name, pair in pairs.items() if family in name}


def _text(r: dict[str, Any]) -> list[Claim]:
    s, gaps, mid = r["settings"], r["text_gaps"], r["intermediate_gaps"]
    same_w = [w for w in s["text_lstm_widths"] if f"lstm {w}×1" in gaps and f"transformer {w}×1" in gaps]
    word_pairs = [(k, w) for k, ws in (("word_lstm", s["word_lstm_widths"]), ("word_transformer", s["word_transformer_widths"]))
                  for w in ws if f"{k} {w}×1" in mid and f"lstm {w}×1" in mid]
    band = (f"per seed ({s.get('seeds', 1)} independently trained models per configuration, each writing "
            f"{s['text_sets']} sets of generated characters, each set against its own same-size sample of the "
            "training text), the mean |Δ ln I| over its sets; Welch 95% interval over the seeds of two models' "
            "difference, decided only when every seed converged; ")
    gap_means = "; ".join(f"{k}: mean |Δ ln I| = {_seed_means(gaps, k).mean():.2f}" for k in gaps
                          if k.split(" ")[0] in ("lstm", "transformer") and k.endswith("×1"))
    return [
        _gap_claim(r, "shen2019.fig3b.char-transformer-beats-lstm", "Shen 2019 Sec. 5.2, Fig. 2a vs 3b",
                   "Character-level Transformers track the text's MI better than LSTMs of equal width",
                   band + "reproduced when mean |Δ ln I| of the LSTM minus the Transformer's is above 0 at every width",
                   gaps, {f"width {w}": (f"lstm {w}×1", f"transformer {w}×1") for w in same_w}, True, gap_means),
        _gap_claim(r, "shen2019.fig3c.word-beats-char-intermediate", "Shen 2019 Sec. 4.2.2, 5.2, App. E.1.2, Fig. 2, 3c, 8a",
                   "Word-level models capture the intermediate-range MI better than character-level LSTMs of the same width",
                   band + f"reproduced when the character LSTM's mean |Δ ln I(τ≥{s['mid_start']})| minus the word "
                   "model's is above 0 for every pair",
                   mid, {f"{k} {w}": (f"lstm {w}×1", f"{k} {w}×1") for k, w in word_pairs}, True,
                   "; ".join(f"{k}: {_seed_means(mid, k).mean():.2f}" for k in dict.fromkeys(
                       [f"{k} {w}×1" for k, w in word_pairs] + [f"lstm {w}×1" for _, w in word_pairs]))),
        _gap_claim(r, "shen2019.fig8b.lstm-depth-no-gain", "Shen 2019 App. E.1.2, Fig. 8b",
                   "LSTM depth does not help: going deeper does not bring the curve closer to the text's",
                   band + "reproduced when every LSTM depth gain (shallow minus deep mismatch) is below 0, not "
                   "reproduced when one is above 0",
                   gaps, _depth_pairs(r, "lstm"), False, "gain = the shallow model's mean |Δ ln I| minus the deep one's"),
        _gap_claim(r, "shen2019.fig10b.transformer-depth-gain", "Shen 2019 Sec. 5.2, App. E.2.2, Fig. 10b",
                   "Deeper Transformers do better: going deeper brings the curve closer to the text's",
                   band + "reproduced when every Transformer depth gain is above 0",
                   gaps, _depth_pairs(r, "transformer"), True,
                   "gain = the shallow model's mean |Δ ln I| minus the deep one's"),
    ]


def _log_xis(p: dict[str, Any]) -> np.ndarray:
    """Per seed, ``ln ξ`` (infinite where the samples do not decay)."""
    with np.errstate(divide="ignore"):
        return -np.log(_rates(p))


def _lstm_depth(r: dict[str, Any]) -> Claim:
    s = r["settings"]
    deepest = max(s["rnn_depths"])
    pairs = {w: (_pt(r, "lstm", w, 2), _pt(r, "lstm", w, deepest)) for w in s["depth_widths"]}
    pairs = {w: pair for w, pair in pairs.items() if None not in pair}
    claim = ("shen2019.fig7.lstm-depth-over-two", "Shen 2019 App. E.1.1, Fig. 7",
             "Increasing LSTM depth over two layers does not improve ξ", "statistical")
    rule = (f"at every depth-sweep width, ln ξ of the deepest LSTM minus that of the two-layer one, Welch 95% interval "
            f"over the seeds: below ln(1 + {DEPTH_MARGIN}) (less than a {DEPTH_MARGIN:.0%} gain): reproduced; above 0: "
            "not reproduced")
    if deepest < 3 or not pairs:
        return Claim(*claim, None, None, rule, "inconclusive", "", _binary_scale(r) + "; needs LSTMs of depth 2 and 3",
                     "no LSTM deeper than two layers in this run")
    cis = {w: mean_diff_ci(_log_xis(deep), _log_xis(two)) for w, (two, deep) in pairs.items()}
    parts = ["reproduced" if ci[1] < math.log1p(DEPTH_MARGIN) else "not reproduced" if ci[0] > 0 else "inconclusive"
             for ci in cis.values()]
    verdict, scale = _gated(r, combine(parts), [p for pair in pairs.values() for p in pair], _binary_scale(r))
    return Claim(*claim, None, None, rule, verdict, "", scale,
                 "; ".join(f"width {w}: {_xi_str('2 layers', two)}, {_xi_str(f'{deepest} layers', deep)}, "
                           f"ln ratio ∈ [{cis[w][0]:+.2f}, {cis[w][1]:+.2f}]" for w, (two, deep) in pairs.items()))


def _not_in_run(claim: tuple[str, str, str, str], rule: str, scale: str, need: str) -> Claim:
    """A claim whose models this run did not train: inconclusive, saying which it needs."""
    return Claim(*claim, None, None, rule, "inconclusive", "", f"{scale}; needs {need}", "not in this run")


def _lstm_beats_wider_rnn(r: dict[str, Any]) -> Claim:
    widths = r["settings"]["rnn_widths"]
    small = [w for w in widths if w <= PAPER_SMALL_LSTM and _pt(r, "lstm", w)]
    rnn = _pt(r, "rnn", PAPER_WIDE_RNN)
    claim = ("shen2019.appE11.small-lstm-beats-rnn-32", "Shen 2019 App. E.1.1",
             f"A width-{PAPER_SMALL_LSTM} LSTM (126 parameters) has a longer ξ than a width-{PAPER_WIDE_RNN} vanilla RNN "
             "(1,190): the LSTM's advantage is not its parameter count", "statistical")
    rule = ("the RNN's decay rate 1/ξ minus the LSTM's, Welch 95% interval over the seeds, above 0: reproduced; below "
            "0: not reproduced")
    if not small or rnn is None:
        return _not_in_run(claim, rule, _binary_scale(r),
                           f"a width-{PAPER_WIDE_RNN} RNN and an LSTM of width ≤ {PAPER_SMALL_LSTM}")
    w = max(small)
    lstm = _pt(r, "lstm", w)
    ci = mean_diff_ci(_rates(rnn), _rates(lstm))
    verdict, scale = _gated(r, decide(ci, 0.0), [rnn, lstm], _binary_scale(r))
    sub = "" if w == PAPER_SMALL_LSTM else f"LSTM of width {w} ({lstm['params']} parameters) for the paper's width 4"
    return Claim(*claim, None, ci, rule, verdict, sub, scale,
                 f"{_xi_str(f'lstm {w}', lstm)} ({lstm['params']} parameters) vs "
                 f"{_xi_str(f'rnn {PAPER_WIDE_RNN}', rnn)} ({rnn['params']} parameters)")


def _transformer_xi_over_data(r: dict[str, Any]) -> Claim:
    data = r["data_fit"]
    p = _pt(r, "transformer", PAPER_TRANSFORMER_WIDTH)
    claim = ("shen2019.fig9.transformer-16-overestimates-xi", "Shen 2019 App. E.2.1, Fig. 9",
             f"The single-layer Transformer of width {PAPER_TRANSFORMER_WIDTH} overestimates the correlation length "
             "of the training data", "statistical")
    rule = ("the Transformer's decay rate 1/ξ, Student-t 95% interval over the seeds, below the data's (its bootstrap "
            "interval): reproduced; above it: not reproduced")
    if p is None:
        return _not_in_run(claim, rule, _binary_scale(r),
                           f"the single-layer Transformer of width {PAPER_TRANSFORMER_WIDTH}")
    data_rate = [1.0 / data["xi_ci"][1] if math.isfinite(data["xi_ci"][1]) else 0.0, 1.0 / data["xi_ci"][0]]
    ci = mean_ci(_rates(p))
    part = "reproduced" if ci[1] < data_rate[0] else "not reproduced" if ci[0] > data_rate[1] else "inconclusive"
    verdict, scale = _gated(r, part, [p], _binary_scale(r))
    return Claim(*claim, None, None, rule, verdict, "", scale,
                 f"{_xi_str(f'transformer {PAPER_TRANSFORMER_WIDTH}', p)} vs data ξ={data['xi']:.0f} "
                 f"[{data['xi_ci'][0]:.0f}, {data['xi_ci'][1]:.0f}]")


def _magnitudes(r: dict[str, Any], p: dict[str, Any]) -> np.ndarray:
    """Per seed, the mean of ``ln(I_model / I_data)`` over ``τ ≤ MAGNITUDE_LAGS``."""
    data = np.asarray(r["data_mi"], dtype=float)[:MAGNITUDE_LAGS]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.array([np.mean(np.log(np.asarray(s["mi"], dtype=float)[:MAGNITUDE_LAGS] / data))
                         for s in _seeds(p)])


def _transformer_shape(r: dict[str, Any]) -> list[Claim]:
    s = r["settings"]
    tf = {w: _pt(r, "transformer", w) for w in s["transformer_widths"] if _pt(r, "transformer", w)}
    lstms = {w: _pt(r, "lstm", w) for w in s["rnn_widths"] if _pt(r, "lstm", w)}
    scale = _binary_scale(r)
    narrow = min(tf) if tf else None
    form_rule = ("the narrowest single-layer Transformer: ln(RSS_power/RSS_exp) of each seed's samples, Student-t 95% "
                 "interval over the seeds, below 0 (the exponential fits worse): reproduced; above 0: not reproduced")
    if narrow is None:
        form = Claim("shen2019.sec5-1.smallest-transformer-not-exponential", "Shen 2019 Sec. 5.1, Fig. 3a",
                     "The MI of Transformer samples does not decay exponentially, even at width m = 4", "statistical",
                     None, None, form_rule, "inconclusive", "", scale + "; needs a Transformer", "no Transformer")
    else:
        ci = mean_ci(_forms(tf[narrow]))
        verdict, fscale = _gated(r, decide(ci, 0.0, claim_above=False), [tf[narrow]], scale)
        form = Claim("shen2019.sec5-1.smallest-transformer-not-exponential", "Shen 2019 Sec. 5.1, Fig. 3a",
                     "The MI of Transformer samples does not decay exponentially, even at width m = 4", "statistical",
                     float(np.mean(_forms(tf[narrow]))), ci, form_rule, verdict,
                     "" if narrow == 4 else f"narrowest Transformer of this run: width {narrow} (paper: 4)", fscale,
                     f"width {narrow}: ln(RSS_pow/RSS_exp) per seed "
                     + "/".join(f"{v:+.2f}" for v in _forms(tf[narrow])))
    mag_rule = (f"per seed, the mean of ln(I_model/I_data) over τ ≤ {MAGNITUDE_LAGS}; Student-t 95% intervals over the "
                f"seeds: every single-layer Transformer's within ±{MAGNITUDE_TOLERANCE} and every LSTM's below 0: "
                "reproduced; a Transformer's outside or an LSTM's above 0: not reproduced")
    cis = {f"transformer {w}": mean_ci(_magnitudes(r, p)) for w, p in tf.items()}
    lcis = {f"lstm {w}": mean_ci(_magnitudes(r, p)) for w, p in lstms.items()}
    parts = [decide_within(ci, -MAGNITUDE_TOLERANCE, MAGNITUDE_TOLERANCE) for ci in cis.values()]
    parts += [decide(ci, 0.0, claim_above=False) for ci in lcis.values()]
    verdict, mscale = (_gated(r, combine(parts), [*tf.values(), *lstms.values()], scale) if tf and lstms
                       else ("inconclusive", scale + "; needs Transformers and LSTMs"))
    magnitude = Claim("shen2019.sec5-1.transformer-magnitude-matches", "Shen 2019 Sec. 5.1",
                      "The magnitude of the Transformers' MI coincides with the training data's, while the LSTMs' is "
                      "almost always slightly smaller", "statistical", None, None, mag_rule, verdict, "", mscale,
                      "; ".join(f"{n}: [{ci[0]:+.3f}, {ci[1]:+.3f}]" for n, ci in {**cis, **lcis}.items()))
    return [form, magnitude]


def _text_forms(r: dict[str, Any]) -> Claim:
    """Fig. 2: character LSTMs show no power-law tail; word LSTMs follow the power law."""
    s = r["settings"]
    pts = r["text_points"]
    char = {w: pts[f"lstm_w{w}_d1"] for w in s["text_lstm_widths"] if f"lstm_w{w}_d1" in pts}
    word = {w: pts[f"word_lstm_w{w}_d1"] for w in s["word_lstm_widths"] if f"word_lstm_w{w}_d1" in pts}
    rule = (f"per seed, ln(RSS_power/RSS_exp) of the fits to its samples' I(τ) above {TEXT_FIT_THRESHOLD:g}; "
            "Student-t 95% intervals over the seeds: above 0 (exponential fits better) for every character LSTM and "
            "below 0 for every word LSTM: reproduced; either on the other side: not reproduced")
    cis = {**{f"lstm {w}": mean_ci(_forms(p)) for w, p in char.items()},
           **{f"word_lstm {w}": mean_ci(_forms(p)) for w, p in word.items()}}
    parts = [decide(cis[f"lstm {w}"], 0.0) for w in char] + [decide(cis[f"word_lstm {w}"], 0.0, claim_above=False)
                                                           for w in word]
    scale = _text_scale(r)
    verdict, scale = (_gated(r, combine(parts), [*char.values(), *word.values()], scale) if char and word
                      else ("inconclusive", scale + "; needs character and word LSTMs"))
    return Claim("shen2019.fig2.char-lstm-no-power-law-tail", "Shen 2019 Sec. 4.2.2, 5.2, Fig. 2a, 2b",
                 "Character-level LSTMs capture no power-law decay (an exponential decay at intermediate distance); "
                 "word-level LSTMs follow the power law", "statistical", None, None, rule, verdict, TEXT_SUBSTITUTION,
                 scale, "; ".join(f"{n}: ln(RSS_pow/RSS_exp) ∈ [{ci[0]:+.2f}, {ci[1]:+.2f}]" for n, ci in cis.items()))


def _spearman_ci(x: np.ndarray, y: np.ndarray) -> tuple[float, list[float]]:
    """Spearman's ρ of paired values and its 95% percentile bootstrap interval over the pairs."""
    from scipy import stats

    rho = float(stats.spearmanr(x, y).statistic)
    res = stats.bootstrap((x, y), lambda a, b: stats.spearmanr(a, b).statistic, paired=True, vectorized=False,
                          n_resamples=2000, method="percentile", random_state=np.random.default_rng(0))
    return rho, [float(res.confidence_interval.low), float(res.confidence_interval.high)]


def _text_quality(r: dict[str, Any]) -> Claim:
    claim = ("shen2019.appF.mi-shows-in-text-quality", "Shen 2019 App. F",
             "The MI profile shows in the quality of the generated text: character models whose MI tracks the "
             "text's write better-spelled text", "statistical")
    rule = ("over every seed of every character model: Spearman's ρ between the seed's mean |Δ ln I| (its sets' mean "
            "mismatch to the text's I(τ)) and the fraction of its passage's words found in the training text, with a "
            "95% bootstrap interval over the seeds; below 0: reproduced; above 0: not reproduced")
    spelling = r.get("spelling")
    scale = _text_scale(r)
    if not spelling:  # recorded before the passages were scored
        return Claim(*claim, None, None, rule, "inconclusive", TEXT_SUBSTITUTION, scale + "; not measured in this "
                     "recording", "no spelling recorded")
    gaps = np.concatenate([_seed_means(r["text_gaps"], name) for name in spelling])
    spelled = np.concatenate([np.asarray(v, dtype=float) for v in spelling.values()])
    keep = np.isfinite(gaps) & np.isfinite(spelled)
    if keep.sum() < MIN_QUALITY_POINTS:
        return Claim(*claim, None, None, rule, "inconclusive", TEXT_SUBSTITUTION,
                     scale + f"; needs at least {MIN_QUALITY_POINTS} character-model seeds (this run: {keep.sum()})",
                     f"{keep.sum()} seeds")
    rho, ci = _spearman_ci(gaps[keep], spelled[keep])
    verdict = decide(ci, 0.0, claim_above=False)
    if verdict == "inconclusive":  # the interval's half-width shrinks as 1/√n over seeds
        n = int(keep.sum())
        scale += (f"; needs ≈ {needed_for_interval(n, (ci[1] - ci[0]) / 2, rho)} character-model seeds "
                  f"for an interval of that width to leave 0 out (this run: {n})")
    return Claim(*claim, rho, ci, rule, verdict, TEXT_SUBSTITUTION,
                 scale + f"; {HEAD_WORDS_NOTE}",
                 f"ρ = {rho:+.2f} [{ci[0]:+.2f}, {ci[1]:+.2f}] over {keep.sum()} seeds; "
                 + "; ".join(f"{name}: spelled {np.nanmean(v):.0%}, mean |Δ ln I| "
                             f"{_seed_means(r['text_gaps'], name).mean():.2f}" for name, v in spelling.items()))


def rules(r: dict[str, Any]) -> list[Claim]:
    """The chapter's claims from its results dict."""
    return [_rnn_exponential(r), _rnn_saturates(r), _lstm(r), _depth(r), _lstm_depth(r), _lstm_beats_wider_rnn(r),
            _transformer(r), _transformer_xi_over_data(r), *_transformer_shape(r), *_splits(r), _text_forms(r),
            *_text(r), _text_quality(r)]
