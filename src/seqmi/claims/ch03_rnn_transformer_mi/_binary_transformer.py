"""Chapter 03's claims on binary sequences about Transformers (Sec. 5.1, Figs. 3a, 9).

Re-exported by :mod:`seqmi.claims.ch03_rnn_transformer_mi`, where the public ones are documented.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
import numpy as np

from seqmi.claims import (EQUIVALENCE_LEVEL, EQUIVALENCE_MARGIN, MIN_SEEDS, Claim, Design, combine, decide,
                          decide_equivalence)
from seqmi.claims.ch03_rnn_transformer_mi._shared import (H1_RATIO, MAGNITUDE_LAGS, PAPER_NARROWEST_TRANSFORMER,
                                                          PAPER_TRANSFORMER_WIDTH, Arrays, _binary_scale,
                                                          _binary_tokens, _criterion, _diff_ci, _duration, _forms,
                                                          _hold, _mean_ci, _model_n, _pct, _power, _power_text, _pt,
                                                          _rates, _scale, _sd, _seed_seconds, _seeds, _seeds_for,
                                                          _shapes, _tost_power, _tost_seeds, _xi_str, at_paper_width)
from seqmi.results.ch03_rnn_transformer_mi import DecayFit, Model, Results
from seqmi.stats import Z95, ratio_to_reference_ci


# ---------------------------------------------------------------- Transformers on binary data


def decide_power_law(forms: np.ndarray, gammas: np.ndarray, reach: bool, data_gamma: float,
                     data_gamma_se: float) -> tuple[str, tuple[float, list[float]]]:
    """Fig. 3a: every seed reaches far, the power law fits better, and the exponent matches the data's.

    Reach: every seed's curve above threshold over at least half the data's lags (a
    check, not a test). Form: Student-t 95% interval of ln(RSS_pow/RSS_exp) below 0.
    Exponent: the mean γ relative to the data's within ±``EQUIVALENCE_MARGIN`` by two
    one-sided tests (:func:`seqmi.stats.intervals.ratio_to_reference_ci`, 90%).
    """
    match = ratio_to_reference_ci(gammas, data_gamma, data_gamma_se, EQUIVALENCE_LEVEL)
    parts = ["reproduced" if reach else "not reproduced", decide(_mean_ci(forms), 0.0, claim_above=False),
             decide_equivalence(match[1])]
    return combine(parts), match


def _gamma_se(fit: DecayFit) -> float:
    return (fit.gamma_ci[1] - fit.gamma_ci[0]) / (2 * Z95)


def _transformer(r: Results) -> Claim:
    s, data = r.settings, r.data_fit
    width = PAPER_TRANSFORMER_WIDTH
    p = _pt(r, "transformer", width)
    base = _binary_scale(r)
    claim = ("shen2019.fig3a.transformer-power-law", "Shen 2019 Sec. 5.1, Fig. 3a, 9",
             f"A single-layer Transformer of width {width} reproduces the power law (exponent close to the data's)",
             "statistical")
    rule = (f"the paper's single-layer Transformer of width {width}, every seed above threshold over ≥ half the "
            "data's lags; Student-t 95% interval over the seeds of ln(RSS_power/RSS_exp) below 0; its mean γ relative "
            f"to the data's (bootstrap standard error included) inside ±{EQUIVALENCE_MARGIN:.0%} by two one-sided "
            "tests (90% interval), wholly outside: not reproduced")
    design = Design(
        h1=f"the width-{width} Transformer's samples follow a power law (the power law fits better) with γ within "
           f"±{EQUIVALENCE_MARGIN:.0%} of the data's {data.gamma:.2f}",
        h0=f"the exponential fits at least as well, or γ is off the data's by at least {EQUIVALENCE_MARGIN:.0%}",
        test="Student-t 95% interval of the decay form below 0, and two one-sided tests on the 90% interval of the "
             "relative difference of mean γ from the data's",
        unit="independently trained seeds", power="not computable: the model is not in this run",
        margin=f"±{EQUIVALENCE_MARGIN:.0%} relative difference of γ (the book's one margin)")
    if p is None:  # not in this profile's widths, or its sweep point is pending (a run stopped by time_budget_s)
        why = "pending" if width in s.transformer_widths else "not in this profile's widths"
        return Claim(*claim, None, None, rule, "inconclusive", "",
                     _scale(base, "inconclusive", [f"the single-layer Transformer of width {width}"]),
                     f"width {width}: {why}", design)
    seeds = _seeds(p)
    gammas, forms = np.array([x.gamma for x in seeds], dtype=float), _forms(p)
    reach = all(x.n_fit_points >= data.n_fit_points / 2 for x in seeds)
    raw, (change, rel) = decide_power_law(forms, gammas, reach, data.gamma, _gamma_se(data))
    verdict, needs = _hold(r, raw, [p])
    n = len(seeds)
    if verdict == "inconclusive":
        cost = _seed_seconds(p, _binary_tokens(r))
        needs += [f"the form: {_seeds_for(forms, seed_s=cost)}",
                  f"the exponent: {_tost_seeds(gammas / data.gamma, seed_s=cost)}"]
    power = (_power(-forms.mean(), [_sd(forms)], n)
             * _tost_power([_sd(np.log(gammas)) if (gammas > 0).all() else math.nan], n))
    design = Design(h1=design.h1, h0=design.h0, test=design.test, unit=f"independently trained seeds ({n})",
                    power=_power_text(power, n, "the recorded decay form and γ equal to the data's"),
                    margin=design.margin)
    return Claim(*claim, float(gammas.mean()), _mean_ci(gammas), rule, verdict, "", _scale(base, verdict, needs),
                 f"width {width}: γ per seed {'/'.join(f'{g:.2f}' for g in gammas)} vs data {data.gamma:.2f}: "
                 f"relative difference {change:+.1%}, 90% interval {_pct(rel)}; points "
                 f"{'/'.join(str(x.n_fit_points) for x in seeds)} of the data's {data.n_fit_points}, "
                 f"ln(RSS_pow/RSS_exp) ∈ [{_mean_ci(forms)[0]:+.2f}, {_mean_ci(forms)[1]:+.2f}]", design)


def decide_overestimates(rates: np.ndarray, data_rate_ci: Sequence[float]) -> tuple[str, list[float]]:
    """Fig. 9: the Transformer's decay rate (Student-t 95%) below the data's bootstrap interval (ξ above it)."""
    ci = _mean_ci(rates)
    verdict = ("reproduced" if ci[1] < data_rate_ci[0] else "not reproduced" if ci[0] > data_rate_ci[1]
               else "inconclusive")
    return verdict, ci


def _data_rate_ci(data: DecayFit) -> list[float]:
    return [1.0 / data.xi_ci[1] if math.isfinite(data.xi_ci[1]) else 0.0, 1.0 / data.xi_ci[0]]


def _transformer_xi_over_data(r: Results) -> Claim:
    data = r.data_fit
    p = _pt(r, "transformer", PAPER_TRANSFORMER_WIDTH)
    claim = ("shen2019.fig9.transformer-16-overestimates-xi", "Shen 2019 App. E.2.1, Fig. 9",
             f"The single-layer Transformer of width {PAPER_TRANSFORMER_WIDTH} overestimates the correlation length "
             "of the training data", "statistical")
    rule = ("the Transformer's decay rate 1/ξ, Student-t 95% interval over the seeds, below the data's (its bootstrap "
            "interval): reproduced; above it: not reproduced")
    base = _binary_scale(r)
    data_rate = _data_rate_ci(data)
    n = len(_seeds(p)) if p else 0
    rates = _rates(p) if p else np.array([])
    effect = (data_rate[0] - data_rate[0] / H1_RATIO)
    design = Design(
        h1=f"the width-{PAPER_TRANSFORMER_WIDTH} Transformer's ξ above the data's {data.xi:.0f}",
        h0="its ξ equals the data's",
        test="Student-t 95% interval of the mean decay rate over the seeds wholly below the data's bootstrap interval",
        unit=f"independently trained seeds ({n})",
        power=_power_text(_power(effect, [_sd(rates)], n) if p else math.nan, n,
                          f"a Transformer ξ {H1_RATIO:g}× the data's, at the recorded spread"))
    if p is None:
        return Claim(*claim, None, None, rule, "inconclusive", "",
                     _scale(base, "inconclusive", [f"the single-layer Transformer of width {PAPER_TRANSFORMER_WIDTH}"]),
                     "not in this run", design)
    raw, ci = decide_overestimates(rates, data_rate)
    verdict, needs = _hold(r, raw, [p])
    if verdict == "inconclusive":
        toward = data_rate[1] if rates.mean() > data_rate[1] else data_rate[0]
        needs.append(_seeds_for(rates, threshold=toward, seed_s=_seed_seconds(p, _binary_tokens(r))))
    return Claim(*claim, None, ci, rule, verdict, "", _scale(base, verdict, needs),
                 f"{_xi_str(f'transformer {PAPER_TRANSFORMER_WIDTH}', p)} vs data ξ={data.xi:.0f} "
                 f"[{data.xi_ci[0]:.0f}, {data.xi_ci[1]:.0f}]", design)


def decide_beyond_lstms(transformers: Arrays, lstms: Arrays) -> tuple[str, list[list[list[float]]]]:
    """Fig. 9: every Transformer's decay rate below every LSTM's, hence below the best LSTM's.

    Per Transformer and LSTM, Welch's 95% interval of the LSTM's mean decay rate minus the
    Transformer's (seeds never paired), above 0; every pair must hold (an
    intersection–union test: which LSTM is the best is not known, so each is beaten).
    Returns the verdict and, per Transformer, the interval against each LSTM.
    """
    cis = [[_diff_ci(lstm, t) for lstm in lstms] for t in transformers]
    return combine([decide(ci, 0.0) for row in cis for ci in row]), cis


def _beyond_inputs(r: Results, panel: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The Transformers Fig. 9's ``panel`` ("a": width, "b": depth) decides on, and every LSTM of the run."""
    shapes = _shapes(r.points, "transformer")
    if panel == "a":
        chosen = [(w, d) for w, d in shapes if d == 1 and w >= PAPER_TRANSFORMER_WIDTH]
    else:
        chosen = [(w, d) for w, d in shapes if d > 1 and w == PAPER_TRANSFORMER_WIDTH]
    return chosen, _shapes(r.points, "lstm")


def _transformer_beyond_lstms(r: Results, panel: str) -> Claim:
    tf_shapes, lstm_shapes = _beyond_inputs(r, panel)
    tfs = {f"transformer {w}×{d}": _pt(r, "transformer", w, d) for w, d in tf_shapes}
    lstms = {f"lstm {w}×{d}": _pt(r, "lstm", w, d) for w, d in lstm_shapes}
    which, why = ((f"every single-layer Transformer of width ≥ {PAPER_TRANSFORMER_WIDTH}",
                   f"Sec. 5.1 and App. E.2.1 name the width-{PAPER_TRANSFORMER_WIDTH} one; narrower ones shown, not "
                   "decided") if panel == "a" else
                  (f"every width-{PAPER_TRANSFORMER_WIDTH} Transformer deeper than one layer", "Fig. 9b's depth panel"))
    rule = (f"{which} ({why}) against every LSTM of the run, any width or depth (the best LSTM is not known in "
            "advance, so each must be beaten): Welch 95% interval over the seeds of the LSTM's decay rate 1/ξ minus the "
            "Transformer's above 0 for every pair: reproduced; one below 0: not reproduced; every seed converged by "
            + _criterion(r, fine=True))
    claim = (("shen2019.fig9a.transformer-xi-beyond-lstm", "Shen 2019 Sec. 5.1, App. E.2.1, Fig. 9a",
              f"Single-layer Transformers from width {PAPER_TRANSFORMER_WIDTH} on reach a longer correlation length "
              "than the best LSTM: App. E.2.1 sets Fig. 9 against 'our best LSTM', below 350, and the width-"
              f"{PAPER_TRANSFORMER_WIDTH} model overestimates even the data's 420") if panel == "a" else
             ("shen2019.fig9b.deep-transformer-xi-beyond-lstm", "Shen 2019 App. E.2.1, Fig. 9b",
              f"Deeper Transformers of width {PAPER_TRANSFORMER_WIDTH} (Fig. 9b) too reach a longer correlation "
              "length than the best LSTM, whose ξ App. E.2.1 puts below 350 (the data's 420)"))
    rates = {name: _rates(p) for name, p in {**tfs, **lstms}.items()}
    models = [*tfs.values(), *lstms.values()]
    n = _model_n(models)
    base = _binary_scale(r)
    shown = [f"{_xi_str(f'transformer {w}×{d}', _pt(r, 'transformer', w, d))}"
             for w, d in _shapes(r.points, "transformer") if (w, d) not in tf_shapes
             and (d == 1 if panel == "a" else w == PAPER_TRANSFORMER_WIDTH)]
    if not tfs or not lstms:
        missing = ("LSTMs" if tfs else
                   f"the single-layer Transformer of width {PAPER_TRANSFORMER_WIDTH}" if panel == "a" else
                   f"a Transformer of width {PAPER_TRANSFORMER_WIDTH} deeper than one layer")
        verdict, needs, power, detail = "inconclusive", [missing], math.nan, "not in this run"
    else:
        raw, cis = decide_beyond_lstms([rates[t] for t in tfs], [rates[k] for k in lstms])
        verdict, needs = _hold(r, raw, models, fine=True)
        pairs = [(t, k, ci) for t, row in zip(tfs, cis) for k, ci in zip(lstms, row)]
        if verdict == "inconclusive":
            cost = {name: _seed_seconds(p, _binary_tokens(r)) for name, p in {**tfs, **lstms}.items()}
            needs += [f"{t} against {k}: {_seeds_for(rates[k], rates[t], seed_s=cost[t] + cost[k])}"
                      for t, k, ci in pairs if decide(ci, 0.0) == "inconclusive"]
        power = math.prod(_power(rates[k].mean() * (1 - 1 / H1_RATIO), [_sd(rates[k]), _sd(rates[t])], n)
                          for t, k, _ in pairs)
        detail = "; ".join([_xi_str(t, p) for t, p in tfs.items()] + [_xi_str(k, p) for k, p in lstms.items()]
                           + [f"{k} minus {t}, decay rate [{ci[0]:+.4f}, {ci[1]:+.4f}]" for t, k, ci in pairs])
    design = Design(
        h1=f"{which} has a longer ξ (a lower decay rate) than every LSTM of the run, so than the best",
        h0="some LSTM's ξ is at least as long as the Transformer's (equal decay rates)",
        test="per Transformer and LSTM, Welch 95% interval of the LSTM's mean decay rate minus the Transformer's "
             "above 0; every pair must hold (an intersection–union test, size ≤ 2.5%)",
        unit=f"independently trained seeds ({n} per model), never paired",
        power=_power_text(power, n, f"a Transformer ξ {H1_RATIO:g}× each LSTM's, at the recorded spreads"))
    return Claim(*claim, "statistical", None, None, rule, verdict, "", _scale(base, verdict, needs),
                 "; ".join([detail] + shown) + "; the paper's best LSTM: ξ < 350, its data's 420", design)


def decide_not_exponential(forms: np.ndarray, width: int) -> tuple[str, list[float]]:
    """Sec. 5.1: ln(RSS_pow/RSS_exp) below 0 (Student-t 95%), read at the Transformer's width (paper: 4)."""
    ci = _mean_ci(forms)
    return at_paper_width(decide(ci, 0.0, claim_above=False), width, PAPER_NARROWEST_TRANSFORMER), ci


def _magnitudes(r: Results, p: Model) -> np.ndarray:
    """Per seed, the mean of ``ln(I_model / I_data)`` over ``τ ≤ MAGNITUDE_LAGS``."""
    data = np.asarray(r.data_mi, dtype=float)[:MAGNITUDE_LAGS]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.array([np.mean(np.log(np.asarray(s.mi, dtype=float)[:MAGNITUDE_LAGS] / data))
                         for s in _seeds(p)])


def decide_magnitude(transformers: Arrays, lstms: Arrays) -> tuple[str, list[list[float]], list[list[float]]]:
    """Sec. 5.1: every Transformer's MI coincides with the data's, every LSTM's is smaller.

    Per seed the mean ``ln(I_model / I_data)`` over the first lags. Transformers: the 90%
    interval of ``exp(mean) - 1`` inside ±``EQUIVALENCE_MARGIN`` (two one-sided tests);
    LSTMs: the Student-t 95% interval of the mean below 0.
    """
    tf = [[math.expm1(v) for v in _mean_ci(x, EQUIVALENCE_LEVEL)] for x in transformers]
    ls = [_mean_ci(x) for x in lstms]
    return combine([decide_equivalence(ci) for ci in tf] + [decide(ci, 0.0, claim_above=False) for ci in ls]), tf, ls


def _transformer_shape(r: Results) -> list[Claim]:
    s = r.settings
    tf = {w: _pt(r, "transformer", w) for w in s.transformer_widths if _pt(r, "transformer", w)}
    lstms = {w: _pt(r, "lstm", w) for w in s.rnn_widths if _pt(r, "lstm", w)}
    base = _binary_scale(r)
    narrow = min(tf) if tf else None
    form_rule = ("the narrowest single-layer Transformer: ln(RSS_power/RSS_exp) of each seed's samples, Student-t 95% "
                 "interval over the seeds, below 0 (the exponential fits worse): reproduced; above 0: not reproduced. "
                 f"The statement is about width {PAPER_NARROWEST_TRANSFORMER}: a narrower model's success counts a "
                 "fortiori, a wider model decides nothing on its own")
    form_id = ("shen2019.sec5-1.smallest-transformer-not-exponential", "Shen 2019 Sec. 5.1, Fig. 3a",
               f"The MI of Transformer samples does not decay exponentially, even at width m = "
               f"{PAPER_NARROWEST_TRANSFORMER}", "statistical")
    paper_run = (f"the single-layer Transformer of width {PAPER_NARROWEST_TRANSFORMER} (4 heads of size 1) trained as "
                 f"≥ {MIN_SEEDS} seeds at this run's settings")
    if narrow is None:
        design = Design(h1="the power law fits the samples better", h0="the exponential fits at least as well",
                        test="Student-t 95% interval of the decay form below 0", unit="independently trained seeds",
                        power="not computable: no Transformer in this run")
        form = Claim(*form_id, None, None, form_rule, "inconclusive", "", _scale(base, "inconclusive", [paper_run]),
                     "no Transformer", design)
    else:
        forms = _forms(tf[narrow])
        raw, ci = decide_not_exponential(forms, narrow)
        verdict, needs = _hold(r, raw, [tf[narrow]])
        n = len(forms)
        if narrow != PAPER_NARROWEST_TRANSFORMER and verdict == "inconclusive":
            cost = _seed_seconds(tf[narrow], _binary_tokens(r))
            needs.insert(0, f"{paper_run} (≤ {_duration(cost)} per seed, the width-{narrow} one's recorded epochs, "
                            "throughput and sampling)")
        design = Design(
            h1=f"the width-{PAPER_NARROWEST_TRANSFORMER} Transformer's samples fit a power law better than an "
               "exponential",
            h0="the exponential fits at least as well (ln(RSS_pow/RSS_exp) ≥ 0)",
            test=f"Student-t 95% interval of the mean decay form below 0, read on width {PAPER_NARROWEST_TRANSFORMER} "
                 "(a narrower model's success a fortiori)",
            unit=f"independently trained seeds ({n})",
            power=(_power_text(_power(-forms.mean(), [_sd(forms)], n), n, "the recorded decay form")
                   if narrow == PAPER_NARROWEST_TRANSFORMER else
                   f"0 at this run's width {narrow}: a wider model than the paper's decides nothing"))
        form = Claim(*form_id, float(np.mean(forms)), ci, form_rule, verdict,
                     "" if narrow == PAPER_NARROWEST_TRANSFORMER else
                     f"narrowest Transformer of this run: width {narrow} (paper: {PAPER_NARROWEST_TRANSFORMER})",
                     _scale(base, verdict, needs),
                     f"width {narrow}: ln(RSS_pow/RSS_exp) per seed " + "/".join(f"{v:+.2f}" for v in forms)
                     + ("" if narrow == PAPER_NARROWEST_TRANSFORMER else
                        f"; its interval [{ci[0]:+.2f}, {ci[1]:+.2f}] is a stronger model's than the paper's"), design)
    mag_rule = (f"per seed, the mean of ln(I_model/I_data) over τ ≤ {MAGNITUDE_LAGS}; every single-layer Transformer's "
                f"relative magnitude exp(mean) − 1 inside ±{EQUIVALENCE_MARGIN:.0%} by two one-sided tests (90% "
                "interval over the seeds) and every LSTM's mean below 0 (Student-t 95%): reproduced; a Transformer's "
                "wholly outside or an LSTM's above 0: not reproduced")
    tfv = {w: _magnitudes(r, p) for w, p in tf.items()}
    lsv = {w: _magnitudes(r, p) for w, p in lstms.items()}
    n = _model_n([*tf.values(), *lstms.values()])
    power = (math.prod(_tost_power([_sd(v)], n) for v in tfv.values())
             * math.prod(_power(-math.log1p(-EQUIVALENCE_MARGIN), [_sd(v)], n) for v in lsv.values())
             if tf and lstms else math.nan)
    design = Design(
        h1=f"every Transformer's I(τ ≤ {MAGNITUDE_LAGS}) within ±{EQUIVALENCE_MARGIN:.0%} of the data's, every LSTM's "
           "smaller",
        h0=f"some Transformer's magnitude off the data's by at least {EQUIVALENCE_MARGIN:.0%}, or some LSTM's not "
           "smaller",
        test="two one-sided tests on the 90% interval of each Transformer's relative magnitude; Student-t 95% interval "
             "of each LSTM's mean log ratio below 0",
        unit=f"independently trained seeds ({n} per model)",
        power=_power_text(power, n, f"Transformers equal to the data, LSTMs {EQUIVALENCE_MARGIN:.0%} below it"),
        margin=f"±{EQUIVALENCE_MARGIN:.0%} relative magnitude (the book's one margin)")
    if tf and lstms:
        raw, tcis, lcis = decide_magnitude(list(tfv.values()), list(lsv.values()))
        verdict, needs = _hold(r, raw, [*tf.values(), *lstms.values()])
        if verdict == "inconclusive":
            cost = {**{("transformer", w): _seed_seconds(p, _binary_tokens(r)) for w, p in tf.items()},
                    **{("lstm", w): _seed_seconds(p, _binary_tokens(r)) for w, p in lstms.items()}}
            needs += [f"transformer {w}: {_tost_seeds(np.exp(v), seed_s=cost['transformer', w])}"
                      for w, v in tfv.items()]
            needs += [f"lstm {w}: {_seeds_for(v, seed_s=cost['lstm', w])}" for w, v in lsv.items()
                      if decide(_mean_ci(v), 0.0) == "inconclusive"]
        detail = "; ".join([f"transformer {w}: relative magnitude 90% {_pct(ci)}" for w, ci in zip(tf, tcis)]
                           + [f"lstm {w}: mean ln ratio [{ci[0]:+.3f}, {ci[1]:+.3f}]" for w, ci in zip(lstms, lcis)])
    else:
        verdict, needs, detail = "inconclusive", ["Transformers and LSTMs"], "not in this run"
    magnitude = Claim("shen2019.sec5-1.transformer-magnitude-matches", "Shen 2019 Sec. 5.1",
                      "The magnitude of the Transformers' MI coincides with the training data's, while the LSTMs' is "
                      "almost always slightly smaller", "statistical", None, None, mag_rule, verdict, "",
                      _scale(base, verdict, needs), detail, design)
    return [form, magnitude]
