"""Calibrations of chapter 03's binary-sequence rules, at the recorded scale.

Each draws one data set under a claim's h0 or h1 and returns the verdict of the rule's
own ``decide_*`` function (:mod:`seqmi.claims.calibration`).
Re-exported by :mod:`seqmi.claims.ch03_rnn_transformer_mi`, where the public ones are documented.
"""

from __future__ import annotations

import math
import numpy as np

from seqmi.claims import EQUIVALENCE_MARGIN
from seqmi.claims.calibration import Calibration
from seqmi.claims.ch03_rnn_transformer_mi._binary_rnn import (_saturation_inputs, decide_depth_beats_width,
                                                              decide_exponential, decide_lstm, decide_lstm_exponential,
                                                              decide_no_gain, decide_saturation, decide_small_lstm)
from seqmi.claims.ch03_rnn_transformer_mi._binary_transformer import (_beyond_inputs, _data_rate_ci, _gamma_se,
                                                                      _magnitudes, decide_beyond_lstms,
                                                                      decide_magnitude, decide_not_exponential,
                                                                      decide_overestimates, decide_power_law)
from seqmi.claims.ch03_rnn_transformer_mi._shared import (H1_RATIO, MAGNITUDE_LAGS, PAPER_CLEAR_LSTM,
                                                          PAPER_NARROWEST_TRANSFORMER, PAPER_SMALL_LSTM,
                                                          PAPER_TRANSFORMER_WIDTH, PAPER_WIDE_RNN, SATURATION_WIDTH,
                                                          _forms, _geomean, _log_sd, _lognormal, _model_n, _normal, _pt,
                                                          _rates, _sd, _seeds, _seeds_note, _xis)
from seqmi.results.ch03_rnn_transformer_mi import Results
from seqmi.stats import Z95


def _cal_exponential(r: Results) -> Calibration | None:
    widths = [w for w in r.settings.rnn_widths if _pt(r, "rnn", w)]
    if not widths:
        return None
    models = [_pt(r, "rnn", w) for w in widths]
    n = _model_n(models)
    fm, fs = [_forms(p).mean() for p in models], [_sd(_forms(p)) for p in models]
    km, ks = [_rates(p).mean() for p in models], [_sd(_rates(p)) for p in models]
    data_rate_hi = 1.0 / r.data_fit.xi_ci[0]
    weakest = int(np.argmin([m / s if s > 0 else math.inf for m, s in zip(fm, fs)]))

    def verdict(hypothesis: str, rng: np.random.Generator) -> str:
        forms = [_normal(rng, 0.0 if hypothesis == "h0" and i == weakest else fm[i], fs[i], n)
                 for i in range(len(widths))]
        return decide_exponential(forms, [_normal(rng, m, s, n) for m, s in zip(km, ks)], data_rate_hi)

    return Calibration("shen2019.fig1a.rnn-exponential",
                       f"RNN widths {widths}, {_seeds_note(r)} (normal): decay forms and rates",
                       f"the decay form of width {widths[weakest]} (the least clear) 0, the rest as recorded",
                       "every width's decay form and rate as recorded", verdict)


def _cal_saturation(r: Results, kind: str) -> Calibration | None:
    widths, missing = _saturation_inputs(r, kind)
    if missing:
        return None
    models = [_pt(r, kind, w) for w in widths]
    n = _model_n(models)
    means = {w: _geomean(_xis(p)) for w, p in zip(widths, models)}
    sds = {w: _log_sd(_xis(p)) for w, p in zip(widths, models)}
    losses = [np.zeros(n)] * len(widths)  # models trained to capacity: no wider one worse
    common = [w for w in widths if _pt(r, "rnn", w)] if kind == "lstm" else []
    rnn = {w: (_geomean(_xis(_pt(r, "rnn", w))), _log_sd(_xis(_pt(r, "rnn", w)))) for w in common}
    data = r.data_fit
    data_rate_lo = 1.0 / data.xi_ci[1] if math.isfinite(data.xi_ci[1]) else 0.0

    def verdict(hypothesis: str, rng: np.random.Generator) -> str:
        # above the saturation width, ξ exactly at the margin (h0) or equal to width 32's (h1)
        target = {w: means[SATURATION_WIDTH] * (1 + EQUIVALENCE_MARGIN * (hypothesis == "h0"))
                  if w > SATURATION_WIDTH else means[w] for w in widths}
        xis = [_lognormal(rng, target[w], sds[w], n) for w in widths]
        if kind == "rnn":
            return decide_saturation(widths, xis, losses)[0]
        rnn_rates = [1.0 / _lognormal(rng, *rnn[w], n) for w in common]
        lstm_rates = [1.0 / xis[widths.index(w)] for w in common]
        return decide_lstm(rnn_rates, lstm_rates, [1.0 / x for x in xis], data_rate_lo, widths, xis, losses)[0]

    cid = "shen2019.fig1c.rnn-xi-saturates" if kind == "rnn" else "shen2019.fig1c.lstm-beats-rnn-saturates"
    return Calibration(cid, f"{kind.upper()} widths {widths}, {_seeds_note(r)} of ln ξ (lognormal); validation "
                            "losses equal (no collapse)" + (", RNNs as recorded" if kind == "lstm" else ""),
                       f"geometric-mean ξ above {SATURATION_WIDTH} {EQUIVALENCE_MARGIN:.0%} above width "
                       f"{SATURATION_WIDTH}'s "
                       "(the margin), the narrower widths as recorded",
                       f"geometric-mean ξ above {SATURATION_WIDTH} equal to width {SATURATION_WIDTH}'s, the narrower "
                       "widths as "
                       "recorded", verdict)


def _cal_depth(r: Results) -> Calibration | None:
    s = r.settings
    deep = _pt(r, "rnn", s.depth_widths[0], max(s.rnn_depths))
    wider = [w for w in s.rnn_widths if _pt(r, "rnn", w) and deep and _pt(r, "rnn", w).params >= deep.params]
    if deep is None or not wider:
        return None
    wide = _pt(r, "rnn", wider[0])
    n = _model_n([deep, wide])
    m, sd_deep, sd_wide = float(_rates(deep).mean()), _sd(_rates(deep)), _sd(_rates(wide))

    def verdict(hypothesis: str, rng: np.random.Generator) -> str:
        factor = 1.0 if hypothesis == "h0" else H1_RATIO
        return decide_depth_beats_width(_normal(rng, m * factor, sd_wide, n), _normal(rng, m, sd_deep, n))[0]

    return Calibration("shen2019.fig1d.rnn-depth-beats-width", f"the deep RNN and the width-{wider[0]} one, "
                       f"{_seeds_note(r)} of the decay rate (normal)", "both decay rates the deep RNN's",
                       f"the wide RNN's rate {H1_RATIO:g}× the deep one's (its ξ {H1_RATIO:g}× shorter)", verdict)


def _cal_no_gain_xi(r: Results) -> Calibration | None:
    s = r.settings
    deepest = max(s.rnn_depths)
    pairs = [(_pt(r, "lstm", w, 2), _pt(r, "lstm", w, deepest)) for w in s.depth_widths]
    pairs = [p for p in pairs if None not in p]
    if deepest < 3 or not pairs:
        return None
    n = _model_n([p for pair in pairs for p in pair])
    spec = [(_geomean(_xis(two)), _log_sd(_xis(two)), _log_sd(_xis(deep))) for two, deep in pairs]

    def verdict(hypothesis: str, rng: np.random.Generator) -> str:
        gain = 1 + EQUIVALENCE_MARGIN * (hypothesis == "h0")
        return decide_no_gain([(_lognormal(rng, m, a, n), _lognormal(rng, m * gain, b, n)) for m, a, b in spec])[0]

    return Calibration("shen2019.fig7.lstm-depth-over-two", f"the depth-2 and depth-{deepest} LSTMs, {_seeds_note(r)} "
                       "of ln ξ (lognormal)",
                       f"the deeper LSTM's geometric-mean ξ {EQUIVALENCE_MARGIN:.0%} longer (the margin)",
                       "equal geometric-mean ξ", verdict)


def _cal_small_lstm(r: Results) -> Calibration | None:
    small = [w for w in r.settings.rnn_widths if w <= PAPER_SMALL_LSTM and _pt(r, "lstm", w)]
    rnn = _pt(r, "rnn", PAPER_WIDE_RNN)
    if not small or rnn is None:
        return None
    w = max(small)
    lstm = _pt(r, "lstm", w)
    n = _model_n([rnn, lstm])
    m, sd_rnn, sd_lstm = float(_rates(rnn).mean()), _sd(_rates(rnn)), _sd(_rates(lstm))

    def verdict(hypothesis: str, rng: np.random.Generator) -> str:
        factor = 1.0 if hypothesis == "h0" else 1 / H1_RATIO
        return decide_small_lstm(_normal(rng, m, sd_rnn, n), _normal(rng, m * factor, sd_lstm, n), w)[0]

    return Calibration("shen2019.appE11.small-lstm-beats-rnn-32", f"the width-{PAPER_WIDE_RNN} RNN and the recorded "
                       f"width-{w} LSTM, {_seeds_note(r)} of the decay rate (normal), read at width {w}",
                       "equal decay rates", f"the LSTM's ξ {H1_RATIO:g}× the RNN's", verdict)


def _cal_power_law(r: Results) -> Calibration | None:
    p = _pt(r, "transformer", PAPER_TRANSFORMER_WIDTH)
    if p is None:
        return None
    data = r.data_fit
    seeds = _seeds(p)
    n = len(seeds)
    gammas = np.array([x.gamma for x in seeds], dtype=float)
    fm, fs, gs = float(_forms(p).mean()), _sd(_forms(p)), _sd(gammas)
    reach = all(x.n_fit_points >= data.n_fit_points / 2 for x in seeds)
    se = _gamma_se(data)

    def verdict(hypothesis: str, rng: np.random.Generator) -> str:
        target = data.gamma * (1 + EQUIVALENCE_MARGIN * (hypothesis == "h0"))
        data_gamma = data.gamma + se * rng.standard_normal()
        return decide_power_law(_normal(rng, fm, fs, n), _normal(rng, target, gs, n), reach, data_gamma, se)[0]

    return Calibration("shen2019.fig3a.transformer-power-law", f"the width-{PAPER_TRANSFORMER_WIDTH} Transformer, "
                       f"{_seeds_note(r)} (normal) of the decay form and γ; the data's γ drawn with its bootstrap "
                       "standard error", f"γ {EQUIVALENCE_MARGIN:.0%} above the data's (the margin), the decay form as "
                       "recorded", "γ equal to the data's, the decay form as recorded", verdict)


def _cal_overestimates(r: Results) -> Calibration | None:
    p = _pt(r, "transformer", PAPER_TRANSFORMER_WIDTH)
    if p is None:
        return None
    n, sd = len(_seeds(p)), _sd(_rates(p))
    lo, hi = _data_rate_ci(r.data_fit)
    centre, se = (lo + hi) / 2, (hi - lo) / (2 * Z95)

    def verdict(hypothesis: str, rng: np.random.Generator) -> str:
        drawn = centre + se * rng.standard_normal()
        rate = centre if hypothesis == "h0" else centre / H1_RATIO
        return decide_overestimates(_normal(rng, rate, sd, n), [drawn - Z95 * se, drawn + Z95 * se])[0]

    return Calibration("shen2019.fig9.transformer-16-overestimates-xi", f"the width-{PAPER_TRANSFORMER_WIDTH} "
                       f"Transformer, {_seeds_note(r)} of the decay rate (normal); the data's rate drawn with its "
                       "bootstrap standard error", "the Transformer's ξ the data's",
                       f"the Transformer's ξ {H1_RATIO:g}× the data's", verdict)


def _cal_not_exponential(r: Results) -> Calibration | None:
    widths = [w for w in r.settings.transformer_widths if _pt(r, "transformer", w)]
    if not widths:
        return None
    w = min(widths)
    forms = _forms(_pt(r, "transformer", w))
    n, m, sd = len(forms), float(forms.mean()), _sd(forms)

    def verdict(hypothesis: str, rng: np.random.Generator) -> str:
        return decide_not_exponential(_normal(rng, 0.0 if hypothesis == "h0" else m, sd, n), w)[0]

    return Calibration("shen2019.sec5-1.smallest-transformer-not-exponential", f"the width-{w} Transformer (the "
                       f"narrowest recorded; the statement's is {PAPER_NARROWEST_TRANSFORMER}), {_seeds_note(r)} of "
                       "the decay form (normal), read at its width", "decay form 0 (the exponential fits as well)",
                       f"the recorded decay form ({m:+.2f})", verdict)


def _cal_magnitude(r: Results) -> Calibration | None:
    s = r.settings
    tf = [_magnitudes(r, _pt(r, "transformer", w)) for w in s.transformer_widths if _pt(r, "transformer", w)]
    ls = [_magnitudes(r, _pt(r, "lstm", w)) for w in s.rnn_widths if _pt(r, "lstm", w)]
    if not tf or not ls:
        return None
    n = min(len(v) for v in tf + ls)
    tsd, lsd = [_sd(v) for v in tf], [_sd(v) for v in ls]
    smaller = math.log1p(-EQUIVALENCE_MARGIN)

    def verdict(hypothesis: str, rng: np.random.Generator) -> str:
        tfv = [_normal(rng, smaller if hypothesis == "h0" and i == 0 else 0.0, sd, n) for i, sd in enumerate(tsd)]
        return decide_magnitude(tfv, [_normal(rng, smaller, sd, n) for sd in lsd])[0]

    return Calibration("shen2019.sec5-1.transformer-magnitude-matches", f"{len(tf)} Transformers and {len(ls)} LSTMs, "
                       f"{_seeds_note(r)} of the mean ln(I_model/I_data) over τ ≤ {MAGNITUDE_LAGS} (normal)",
                       f"the narrowest Transformer {EQUIVALENCE_MARGIN:.0%} below the data (the margin), the others "
                       f"equal to it, the LSTMs {EQUIVALENCE_MARGIN:.0%} below",
                       f"every Transformer equal to the data, every LSTM {EQUIVALENCE_MARGIN:.0%} below it", verdict)


def _cal_lstm_exponential(r: Results) -> Calibration | None:
    widths = [w for w in r.settings.rnn_widths if w <= PAPER_CLEAR_LSTM and _pt(r, "lstm", w)]
    if not widths:
        return None
    forms = [_forms(_pt(r, "lstm", w)) for w in widths]
    n = min(len(f) for f in forms)
    means, sds = [float(f.mean()) for f in forms], [_sd(f) for f in forms]
    weakest = int(np.argmin([m / s if s > 0 else math.inf for m, s in zip(means, sds)]))

    def verdict(hypothesis: str, rng: np.random.Generator) -> str:
        return decide_lstm_exponential([_normal(rng, 0.0 if hypothesis == "h0" and i == weakest else m, sd, n)
                                        for i, (m, sd) in enumerate(zip(means, sds))])

    return Calibration("shen2019.fig1b.lstm-exponential", f"LSTM widths {widths} (those up to {PAPER_CLEAR_LSTM}), "
                       f"{_seeds_note(r)} of the decay form (normal)",
                       f"the decay form of width {widths[weakest]} (the least clear) 0, the rest as recorded",
                       "every width's decay form as recorded", verdict)


def _cal_beyond_lstms(r: Results, panel: str) -> Calibration | None:
    tf_shapes, lstm_shapes = _beyond_inputs(r, panel)
    if not tf_shapes or not lstm_shapes:
        return None
    tfs = [_rates(_pt(r, "transformer", w, d)) for w, d in tf_shapes]
    lstms = [_rates(_pt(r, "lstm", w, d)) for w, d in lstm_shapes]
    n = min(len(v) for v in tfs + lstms)
    best = min(float(v.mean()) for v in lstms)

    def verdict(hypothesis: str, rng: np.random.Generator) -> str:
        # under h0 the first Transformer's ξ is the best LSTM's (the boundary), the others as under h1
        drawn = [_normal(rng, best if hypothesis == "h0" and i == 0 else best / H1_RATIO, _sd(v), n)
                 for i, v in enumerate(tfs)]
        return decide_beyond_lstms(drawn, [_normal(rng, float(v.mean()), _sd(v), n) for v in lstms])[0]

    cid = ("shen2019.fig9a.transformer-xi-beyond-lstm" if panel == "a" else
           "shen2019.fig9b.deep-transformer-xi-beyond-lstm")
    return Calibration(cid, f"Transformers {', '.join(f'{w}×{d}' for w, d in tf_shapes)} and the {len(lstms)} LSTMs, "
                            f"{_seeds_note(r)} of the decay rate (normal)",
                       "the first Transformer's decay rate the best LSTM's (the lowest recorded mean), the LSTMs as "
                       "recorded", f"every Transformer's ξ {H1_RATIO:g}× the best LSTM's, the LSTMs as recorded",
                       verdict)
