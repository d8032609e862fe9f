"""Claims of chapter 03: what trained RNNs, LSTMs and Transformers generate (Shen 2019).

Every trained-model claim is decided from intervals: for binary models the 95% bootstrap
intervals, over the generated sequences, of the fitted correlation lengths and exponents
and of the decay form ``ln(RSS_pow / RSS_exp)`` (``form_ci`` of
:func:`seqmi.experiments.ch03_rnn_transformer_mi.decay_fits`), and, for the text curves,
Student-t intervals over independent sample sets of each model: every set is compared
with its own same-size sample of the training text
(:func:`seqmi.experiments.ch03_rnn_transformer_mi.set_gaps`), and two models' sets are
paired by index. When an interval admits both outcomes the claim is inconclusive and
says how many generated sequences (or sample sets) would decide it, from
``n ≈ n0·(half-width/effect)²`` (the half-width falls as ``1/√n``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from seqmi.claims import (Claim, combine, decide, decide_within, mean_ci, needed_for_interval, needed_samples,
                          profile_of, standard_error)

SATURATION_WIDTH = 32  # Fig. 1c: ξ grows like ln m up to m ≈ 32, then saturates
GAMMA_TOLERANCE = 0.15  # the Transformer's exponent counts as the data's within this
# Sec. 5.1: "A single-layer Transformer of width m=16 can already capture the algebraic behavior"
PAPER_TRANSFORMER_WIDTH = 16
TEXT_SUBSTITUTION = "KJV Bible (Genesis–Revelation splits) instead of WikiText-2"


def _xi_str(name: str, p: dict[str, Any]) -> str:
    return f"{name}: ξ={p['xi']:.0f} [{p['xi_ci'][0]:.0f}, {min(p['xi_ci'][1], 1e6):.0f}]"


def _pt(r: dict[str, Any], kind: str, width: int, depth: int = 1) -> dict[str, Any] | None:
    return r["points"].get(f"{kind}_w{width}_d{depth}")


def _binary_scale(r: dict[str, Any]) -> str:
    s = r["settings"]
    return (f"{profile_of(r)}: {s['restarts']} restart(s) per model, RNN/LSTM widths "
            f"{min(s['rnn_widths'])}–{max(s['rnn_widths'])}, {r['n_train']} training sequences of length "
            f"{r['length']}, {r['n_generate']} generated sequences")


def _text_scale(r: dict[str, Any]) -> str:
    s = r["settings"]
    return (f"{profile_of(r)}: {s['text_train_chars'] or 'all'} training characters, {s['text_epochs']} "
            f"(char) / {s['word_epochs']} (word) epochs, {s['text_generate']} generated characters per model, "
            f"τ ≤ {s['text_max_lag']}")


def _form_needs(n_generate: int, form: list[float]) -> str:
    """What would decide a decay-form interval that straddles 0 (a clause of the scale column)."""
    half, mid = (form[1] - form[0]) / 2, (form[0] + form[1]) / 2
    need = needed_for_interval(n_generate, half, mid)
    if need >= 100 * n_generate:
        return (f"; the interval is centred at {mid:+.3f}: the power law and the exponential fit about equally well, "
                "and no affordable number of sequences decides between them")
    return f"; deciding the decay form needs ≈ {need:,} generated sequences"


def _rnn_exponential(r: dict[str, Any]) -> Claim:
    widths = [w for w in r["settings"]["rnn_widths"] if _pt(r, "rnn", w)]
    data = r["data_fit"]
    parts, notes, forms = [], [], []
    for w in widths:
        p = _pt(r, "rnn", w)
        form = p["form_ci"]
        forms.append(form)
        # ξ far below the data's: the whole interval under the data's
        short = ("reproduced" if p["xi_ci"][1] < data["xi_ci"][0]
                 else "not reproduced" if p["xi_ci"][0] > data["xi_ci"][1] else "inconclusive")
        parts += [decide(form, 0.0, claim_above=True), short]
        notes.append(f"{_xi_str(f'rnn {w}', p)}, ln(RSS_pow/RSS_exp) ∈ [{form[0]:+.2f}, {form[1]:+.2f}]")
    verdict = combine(parts)
    scale = _binary_scale(r)
    if verdict == "inconclusive":
        worst = min((f for f in forms if all(map(math.isfinite, f))), key=lambda f: abs(sum(f)) / 2,
                    default=[float("nan")] * 2)
        scale += _form_needs(r["n_generate"], worst)
    return Claim("shen2019.fig1a.rnn-exponential", "Shen 2019 Sec. 4.2.1, Fig. 1a",
                 "Vanilla-RNN samples decay exponentially, with ξ far below the data's", "statistical",
                 None, None,
                 "at every width: the bootstrap interval (over generated sequences) of ln(RSS_power/RSS_exp) above 0 "
                 "(exponential fits better) and the ξ interval below the data's; any interval on the wrong side: "
                 "not reproduced",
                 verdict, "", scale, "; ".join(notes) + f"; data ξ={data['xi']:.0f} "
                 f"[{data['xi_ci'][0]:.0f}, {data['xi_ci'][1]:.0f}]")


def _growth_and_saturation(r: dict[str, Any], kind: str) -> tuple[list[str], list[str], str]:
    """Parts of the Fig. 1c shape for ``kind``: ξ grows up to 32, then saturates."""
    widths = [w for w in r["settings"]["rnn_widths"] if _pt(r, kind, w)]
    small = [w for w in widths if w <= SATURATION_WIDTH]
    large = [w for w in widths if w > SATURATION_WIDTH]
    parts, notes = [], []
    missing = ""
    if len(small) >= 2:
        a, b = _pt(r, kind, small[0]), _pt(r, kind, small[-1])
        parts.append("reproduced" if b["xi_ci"][0] > a["xi_ci"][1]
                     else "not reproduced" if b["xi_ci"][1] < a["xi_ci"][0] else "inconclusive")
    else:
        missing = f"two widths ≤ {SATURATION_WIDTH}"
    if large and small:
        a, b = _pt(r, kind, small[-1]), _pt(r, kind, large[-1])
        # saturation: the widest model's ξ less than twice the width-32 model's
        parts.append("reproduced" if b["xi_ci"][1] < 2 * a["xi_ci"][0]
                     else "not reproduced" if b["xi_ci"][0] > 2 * a["xi_ci"][1] else "inconclusive")
    else:
        missing = missing or f"widths above {SATURATION_WIDTH} (paper: up to 256)"
        parts.append("inconclusive")
    notes = [_xi_str(f"{kind} {w}", _pt(r, kind, w)) for w in widths]
    return parts, notes, missing


def _rnn_saturates(r: dict[str, Any]) -> Claim:
    parts, notes, missing = _growth_and_saturation(r, "rnn")
    verdict = combine(parts)
    scale = _binary_scale(r) + (f"; needs {missing}" if missing else "")
    return Claim("shen2019.fig1c.rnn-xi-saturates", "Shen 2019 Fig. 1c",
                 "Vanilla-RNN ξ grows like ln m up to m≈32, then saturates (≈100)", "statistical", None, None,
                 f"ξ interval of the widest model ≤ {SATURATION_WIDTH} above the narrowest's (growth), and the widest "
                 f"model's ξ below twice the width-{SATURATION_WIDTH} one's (saturation); without widths on both "
                 "sides of 32 the claim cannot be decided", verdict, "", scale, "; ".join(notes))


def _lstm(r: dict[str, Any]) -> Claim:
    data = r["data_fit"]
    common = [w for w in r["settings"]["rnn_widths"] if _pt(r, "rnn", w) and _pt(r, "lstm", w)]
    beats = []
    for w in common:
        lo_l, hi_l = _pt(r, "lstm", w)["xi_ci"]
        lo_r, hi_r = _pt(r, "rnn", w)["xi_ci"]
        beats.append("reproduced" if lo_l > hi_r else "not reproduced" if hi_l < lo_r else "inconclusive")
    below = [("reproduced" if _pt(r, "lstm", w)["xi_ci"][1] < data["xi_ci"][0] else
              "not reproduced" if _pt(r, "lstm", w)["xi_ci"][0] > data["xi_ci"][1] else "inconclusive")
             for w in r["settings"]["rnn_widths"] if _pt(r, "lstm", w)]
    sat_parts, notes, missing = _growth_and_saturation(r, "lstm")
    verdict = combine(beats + below + sat_parts[-1:])
    scale = _binary_scale(r) + (f"; the saturation needs {missing}" if missing else "")
    return Claim("shen2019.fig1c.lstm-beats-rnn-saturates", "Shen 2019 Fig. 1c, App. E.1.1",
                 "LSTM ξ exceeds the vanilla RNN's and saturates below the data's baseline", "statistical",
                 None, None,
                 "at every common width the LSTM's ξ interval above the RNN's; every LSTM ξ interval below the "
                 f"data's; the widest LSTM's ξ below twice the width-{SATURATION_WIDTH} one's (needs widths above "
                 f"{SATURATION_WIDTH})", verdict, "", scale,
                 "; ".join(notes) + f"; LSTM above RNN (interval-wise) at {beats.count('reproduced')}/{len(common)} widths")


def _depth(r: dict[str, Any]) -> Claim:
    s = r["settings"]
    deep = _pt(r, "rnn", s["depth_widths"][0], max(s["rnn_depths"]))
    wider = [w for w in s["rnn_widths"] if _pt(r, "rnn", w) and deep and _pt(r, "rnn", w)["params"] >= deep["params"]]
    scale = _binary_scale(r)
    if deep is None or max(s["rnn_depths"]) < 2 or not wider:
        need = f"a single-layer RNN with at least {deep['params'] if deep else '?'} parameters"
        return Claim("shen2019.fig1d.rnn-depth-beats-width", "Shen 2019 Fig. 1d", "Depth beats width for vanilla RNNs",
                     "statistical", None, None,
                     "the deepest RNN's ξ interval above that of the narrowest single-layer RNN with at least as many "
                     "parameters", "inconclusive", "", scale + f"; needs {need}",
                     (_xi_str("deepest rnn", deep) if deep else "no deep RNN") + "; no wider RNN with as many parameters")
    w = _pt(r, "rnn", wider[0])
    verdict = ("reproduced" if deep["xi_ci"][0] > w["xi_ci"][1]
               else "not reproduced" if deep["xi_ci"][1] < w["xi_ci"][0] else "inconclusive")
    if verdict == "inconclusive":
        # the two intervals overlap: their half-widths add up against the difference of the ξ
        half = (deep["xi_ci"][1] - deep["xi_ci"][0] + w["xi_ci"][1] - w["xi_ci"][0]) / 2
        scale += f"; needs ≈ {needed_for_interval(r['n_generate'], half, deep['xi'] - w['xi'])} generated sequences"
    return Claim("shen2019.fig1d.rnn-depth-beats-width", "Shen 2019 Fig. 1d", "Depth beats width for vanilla RNNs",
                 "statistical", deep["xi"], deep["xi_ci"],
                 "the deepest RNN's ξ interval above that of the narrowest single-layer RNN with at least as many "
                 "parameters; below it: not reproduced", verdict, "", scale,
                 f"{_xi_str('deep', deep)} vs {_xi_str(f'rnn {wider[0]}', w)}")


def _transformer(r: dict[str, Any]) -> Claim:
    s, data = r["settings"], r["data_fit"]
    width = PAPER_TRANSFORMER_WIDTH
    p = _pt(r, "transformer", width)
    scale = _binary_scale(r)
    claim = ("shen2019.fig3a.transformer-power-law", "Shen 2019 Sec. 5.1, Fig. 3a, 9",
             f"A single-layer Transformer of width {width} reproduces the power law (exponent close to the data's)",
             "statistical")
    rule = (f"the paper's single-layer Transformer of width {width}: above threshold over ≥ half the data's lags, "
            "bootstrap interval (over generated sequences) of ln(RSS_power/RSS_exp) below 0, and γ − γ_data within "
            f"±{GAMMA_TOLERANCE} (interval of the difference)")
    if p is None:  # not in this profile's widths, or its sweep point is pending (a run stopped by time_budget_s)
        why = "pending" if width in s["transformer_widths"] else "not in this profile's widths"
        return Claim(*claim, None, None, rule, "inconclusive", "",
                     scale + f"; needs the single-layer Transformer of width {width}", f"width {width}: {why}")
    form = p["form_ci"]
    diff = [p["gamma_ci"][0] - data["gamma_ci"][1], p["gamma_ci"][1] - data["gamma_ci"][0]]
    reach = "reproduced" if p["n_fit_points"] >= data["n_fit_points"] / 2 else "not reproduced"
    form_v = decide(form, 0.0, claim_above=False)
    verdict = combine([reach, form_v, decide_within(diff, -GAMMA_TOLERANCE, GAMMA_TOLERANCE)])
    if verdict == "inconclusive" and form_v == "inconclusive":
        scale += _form_needs(r["n_generate"], form)
    return Claim(*claim, p["gamma"], p["gamma_ci"], rule, verdict, "", scale,
                 f"width {width}: γ={p['gamma']:.2f} vs data {data['gamma']:.2f} "
                 f"(difference ∈ [{diff[0]:+.2f}, {diff[1]:+.2f}]), {p['n_fit_points']}/{data['n_fit_points']} points, "
                 f"ln(RSS_pow/RSS_exp) ∈ [{form[0]:+.2f}, {form[1]:+.2f}]")


def _splits(r: dict[str, Any]) -> list[Claim]:
    d = r["split_short_range_difference"]
    nonuniform = {how: any(abs(d[f"{how}_{p}"][0]) > 3 * d[f"{how}_{p}"][1] for p in ("valid", "test"))
                  for how in ("contiguous", "random")}
    g = r["split_long_range"]
    size_ok = all(abs(v["z_valid"]) < 3 and v["z_train"] < -3 for v in g.values())
    scale = f"{profile_of(r)}: rows of {r['settings']['split_row']} characters, τ ≤ {r['settings']['split_max_lag']}"
    cv = d["contiguous_valid"]
    return [
        Claim("shen2019.appD2.split-nonuniform", "Shen 2019 App. D.2, Fig. 6",
              "Contiguous (by-article) splits are non-uniform; a random-document split is not", "statistical",
              cv[0], [cv[0] - 1.96 * cv[1], cv[0] + 1.96 * cv[1]],
              "short-range MI difference split − training beyond 3 batch-means standard errors in the contiguous "
              "split (validation or test), within 3 in the random split",
              "reproduced" if nonuniform["contiguous"] and not nonuniform["random"] else "not reproduced",
              TEXT_SUBSTITUTION, scale, "; ".join(f"{k}: {v[0]:+.4f}±{v[1]:.4f}" for k, v in d.items())),
        Claim("shen2019.appD2.valid-excess-is-sample-size", "Shen 2019 Sec. 4.2.2, App. D.2, Fig. 6; control of this chapter",
              "The validation split's larger, flat long-range MI (Shen's non-uniformity) is matched by a same-size "
              "training subsample: a sample-size floor of the estimator", "statistical", None, None,
              "validation within 3 sd of same-size training subsamples, the whole training split more than 3 sd below",
              "reproduced" if size_ok else "not reproduced", TEXT_SUBSTITUTION, scale,
              "; ".join(f"{h}: valid {v['valid']:.1e}, train {v['train']:.1e}, subsamples {v['null_mean']:.1e}±"
                        f"{v['null_sd']:.1e} (z {v['z_valid']:+.1f} / {v['z_train']:+.1f})" for h, v in g.items())),
    ]


def _gap_claim(r: dict[str, Any], cid: str, source: str, statement: str, rule: str,
               diffs: dict[str, list[float]], positive: bool, detail: str) -> Claim:
    """A text claim on mismatch differences, each a Student-t interval over the sample sets."""
    cis = {name: mean_ci(d) for name, d in diffs.items()}
    parts = {name: decide(ci, 0.0, claim_above=positive) for name, ci in cis.items()}
    verdict = combine(list(parts.values()))
    scale = _text_scale(r)
    if r.get("samples_floor_dominated"):
        scale += "; samples floor-dominated (the training text at their size stays above 2e-3 at every τ)"
    undecided = [name for name, v in parts.items() if v == "inconclusive"]
    if verdict == "inconclusive" and undecided:
        # the comparison nearest to deciding sets the count; the others need at least as many
        worst = min(undecided, key=lambda n: standard_error(diffs[n]) / max(abs(float(np.mean(diffs[n]))), 1e-12))
        d = np.asarray(diffs[worst], dtype=float)
        need = needed_samples(d.size, standard_error(d), abs(float(d.mean())))
        scale += (f"; deciding {worst} needs ≈ {need:,} sample sets of {r['settings']['text_generate']:,} "
                  "characters per model")
    measured = "; ".join(f"{name}: {float(np.mean(d)):+.2f} [{cis[name][0]:+.2f}, {cis[name][1]:+.2f}]"
                         for name, d in diffs.items())
    return Claim(cid, source, statement, "statistical", None, None, rule, verdict, TEXT_SUBSTITUTION, scale,
                 f"{detail}; difference (mean over sets, 95% interval) {measured}; two disjoint samples of the "
                 f"text differ by {r['gap_null']:.2f}")


def _sets_mean(gaps: dict[str, list[float]], name: str) -> float:
    return float(np.mean(gaps[name]))


def _diff(gaps: dict[str, list[float]], a: str, b: str) -> list[float]:
    """Per sample set, model ``a``'s gap minus model ``b``'s (sets paired by index)."""
    return (np.asarray(gaps[a], dtype=float) - np.asarray(gaps[b], dtype=float)).tolist()


def _text(r: dict[str, Any]) -> list[Claim]:
    s, gaps, mid, gains = r["settings"], r["text_gaps"], r["intermediate_gaps"], r["depth_gains"]
    same_w = [w for w in s["text_lstm_widths"] if f"lstm {w}×1" in gaps and f"transformer {w}×1" in gaps]
    word_pairs = [(k, w) for k, ws in (("word_lstm", s["word_lstm_widths"]), ("word_transformer", s["word_transformer_widths"]))
                  for w in ws if f"{k} {w}×1" in mid and f"lstm {w}×1" in mid]
    band = (f"per sample set ({s['text_sets']} independent sets of generated characters per model, each set "
            "against its own same-size sample of the training text, two models' sets paired), the difference of "
            "mean |Δ ln I|; Student-t 95% interval over the sets; ")
    return [
        _gap_claim(r, "shen2019.fig3b.char-transformer-beats-lstm", "Shen 2019 Sec. 5.2, Fig. 2a vs 3b",
                   "Character-level Transformers track the text's MI better than LSTMs of equal width",
                   band + "reproduced when mean |Δ ln I| of the LSTM minus the Transformer's is above 0 at every width",
                   {f"width {w}": _diff(gaps, f"lstm {w}×1", f"transformer {w}×1") for w in same_w}, True,
                   "; ".join(f"{k}: mean |Δ ln I| = {_sets_mean(gaps, k):.2f}" for k in gaps
                             if k.split(" ")[0] in ("lstm", "transformer") and k.endswith("×1"))),
        _gap_claim(r, "shen2019.fig3c.word-beats-char-intermediate", "Shen 2019 Sec. 4.2.2, 5.2, App. E.1.2, Fig. 2, 3c, 8a",
                   "Word-level models capture the intermediate-range MI better than character-level LSTMs of the same width",
                   band + f"reproduced when the character LSTM's mean |Δ ln I(τ≥{s['mid_start']})| minus the word "
                   "model's is above 0 for every pair",
                   {f"{k} {w}": _diff(mid, f"lstm {w}×1", f"{k} {w}×1") for k, w in word_pairs}, True,
                   "; ".join(f"{k}: {_sets_mean(mid, k):.2f}" for k in dict.fromkeys(
                       [f"{k} {w}×1" for k, w in word_pairs] + [f"lstm {w}×1" for _, w in word_pairs]))),
        _gap_claim(r, "shen2019.fig8b.lstm-depth-no-gain", "Shen 2019 App. E.1.2, Fig. 8b",
                   "LSTM depth does not help: going deeper does not bring the curve closer to the text's",
                   band + "reproduced when every LSTM depth gain (shallow minus deep mismatch) is below 0, not "
                   "reproduced when one is above 0",
                   {n: g for n, g in gains.items() if "lstm" in n}, False,
                   "gain = the shallow model's mean |Δ ln I| minus the deep one's"),
        _gap_claim(r, "shen2019.fig10b.transformer-depth-gain", "Shen 2019 Sec. 5.2, App. E.2.2, Fig. 10b",
                   "Deeper Transformers do better: going deeper brings the curve closer to the text's",
                   band + "reproduced when every Transformer depth gain is above 0",
                   {n: g for n, g in gains.items() if "transformer" in n}, True,
                   "gain = the shallow model's mean |Δ ln I| minus the deep one's"),
    ]


def rules(r: dict[str, Any]) -> list[Claim]:
    """The chapter's claims from its results dict."""
    return [_rnn_exponential(r), _rnn_saturates(r), _lstm(r), _depth(r), _transformer(r), *_splits(r), *_text(r)]
