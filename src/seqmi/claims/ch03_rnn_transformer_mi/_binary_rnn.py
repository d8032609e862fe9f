"""Chapter 03's claims on binary sequences about vanilla RNNs and LSTMs (Figs. 1a-1d, 7, App. E.1.1).

Re-exported by :mod:`seqmi.claims.ch03_rnn_transformer_mi`, where the public ones are documented.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from seqmi.claims import (EQUIVALENCE_LEVEL, EQUIVALENCE_MARGIN, MIN_SEEDS, Claim, Design, combine, decide,
                          decide_equivalence)
from seqmi.claims.ch03_rnn_transformer_mi._shared import (H1_RATIO, PAPER_CLEAR_LSTM, PAPER_SMALL_LSTM, PAPER_WIDE_RNN,
                                                          SATURATION_WIDTH, Arrays, _binary_scale, _binary_tokens,
                                                          _criterion, _diff_ci, _duration, _forms, _hold, _losses,
                                                          _mean_ci, _model_n, _pct, _power, _power_text, _pt, _rates,
                                                          _scale, _sd, _seed_seconds, _seeds_for, _tost_power,
                                                          _tost_seeds, _xi_str, _xis, at_paper_width)
from seqmi.results.ch03_rnn_transformer_mi import Results
from seqmi.stats import geometric_ratio_ci, slope_ci


# ---------------------------------------------------------------- Fig. 1a: exponential RNNs


def decide_exponential(forms: Arrays, rates: Arrays, data_rate_hi: float) -> str:
    """Fig. 1a: at every width the decay form above 0 and the decay rate above the data's (95%, over seeds)."""
    parts = []
    for f, k in zip(forms, rates):
        parts += [decide(_mean_ci(f), 0.0), decide(_mean_ci(k), data_rate_hi)]
    return combine(parts)


def _rnn_exponential(r: Results) -> Claim:
    widths = [w for w in r.settings.rnn_widths if _pt(r, "rnn", w)]
    data = r.data_fit
    data_rate_hi = 1.0 / data.xi_ci[0]
    models = [_pt(r, "rnn", w) for w in widths]
    forms, rates = [_forms(p) for p in models], [_rates(p) for p in models]
    verdict, needs = _hold(r, decide_exponential(forms, rates, data_rate_hi), models)
    n = _model_n(models)
    if verdict == "inconclusive" and not needs and n >= 2:
        cost = {w: _seed_seconds(p, _binary_tokens(r)) for w, p in zip(widths, models)}
        needs = [f"width {w}: {_seeds_for(f, seed_s=cost[w])} (form), "
                 f"{_seeds_for(k, threshold=data_rate_hi, seed_s=cost[w])} (rate)" for w, f, k in zip(widths, forms, rates)]
    power = math.prod(_power(f.mean(), [_sd(f)], n) * _power(k.mean() - data_rate_hi, [_sd(k)], n)
                      for f, k in zip(forms, rates)) if models else math.nan
    notes = [f"{_xi_str(f'rnn {w}', p)}, ln(RSS_pow/RSS_exp) ∈ [{_mean_ci(f)[0]:+.2f}, {_mean_ci(f)[1]:+.2f}]"
             for w, p, f in zip(widths, models, forms)]
    design = Design(
        h1=f"at every width the RNN's samples decay exponentially (ln(RSS_pow/RSS_exp) > 0) with ξ below the "
           f"data's {data.xi:.0f}",
        h0="at some width the power law fits at least as well (ln(RSS_pow/RSS_exp) ≤ 0), or ξ reaches the data's",
        test="per width, Student-t 95% intervals over the seeds: the decay form above 0 and the decay rate 1/ξ above "
             "the data's bootstrap interval; every part must hold (an intersection–union test, size ≤ 2.5%)",
        unit=f"independently trained seeds ({n} per width, {len(widths)} widths)",
        power=_power_text(power, n, "the recorded means and spreads"))
    return Claim("shen2019.fig1a.rnn-exponential", "Shen 2019 Sec. 4.2.1, Fig. 1a",
                 "Vanilla-RNN samples decay exponentially, with ξ far below the data's", "statistical",
                 None, None,
                 "at every width, Student-t 95% intervals over the seeds: ln(RSS_power/RSS_exp) of each seed's samples "
                 "above 0 (exponential fits better), and the decay rate 1/ξ above the data's (its bootstrap interval); "
                 "any interval on the wrong side: not reproduced",
                 verdict, "", _scale(_binary_scale(r), verdict, needs), "; ".join(notes) + f"; data ξ={data.xi:.0f} "
                 f"[{data.xi_ci[0]:.0f}, {data.xi_ci[1]:.0f}]", design)


# ---------------------------------------------------------------- Fig. 1b: exponential LSTMs


def decide_lstm_exponential(forms: Arrays) -> str:
    """Fig. 1b: at every width it names, the LSTM's decay form above 0 (Student-t 95% over seeds).

    Fig. 1a's form test (:func:`decide_exponential` without its rate part): every
    interval of ``ln(RSS_pow/RSS_exp)`` above 0; any below 0: not reproduced.
    """
    return combine([decide(_mean_ci(f), 0.0) for f in forms])


def _lstm_exponential(r: Results) -> Claim:
    widths = [w for w in r.settings.rnn_widths if _pt(r, "lstm", w)]
    small = [w for w in widths if w <= PAPER_CLEAR_LSTM]
    models = {w: _pt(r, "lstm", w) for w in widths}
    forms = {w: _forms(p) for w, p in models.items()}
    n = _model_n([models[w] for w in small])
    base = _binary_scale(r)
    if small:
        verdict, needs = _hold(r, decide_lstm_exponential([forms[w] for w in small]), [models[w] for w in small])
        if verdict == "inconclusive" and not needs:
            needs = [f"width {w}: {_seeds_for(forms[w], seed_s=_seed_seconds(models[w], _binary_tokens(r)))}"
                     for w in small if decide(_mean_ci(forms[w]), 0.0) == "inconclusive"]
        power = math.prod(_power(forms[w].mean(), [_sd(forms[w])], n) for w in small)
    else:
        verdict, needs, power = "inconclusive", [f"LSTMs of width ≤ {PAPER_CLEAR_LSTM} (paper: 1 to 8)"], math.nan
    design = Design(
        h1=f"at every LSTM width up to {PAPER_CLEAR_LSTM} the samples decay exponentially: the exponential fits "
           "better than the power law (ln(RSS_pow/RSS_exp) > 0)",
        h0=f"at some width up to {PAPER_CLEAR_LSTM} the power law fits at least as well (ln(RSS_pow/RSS_exp) ≤ 0)",
        test=f"per width up to {PAPER_CLEAR_LSTM}, a Student-t 95% interval over the seeds of the mean decay form "
             "above 0; every width must hold (an intersection–union test, size ≤ 2.5%)",
        unit=f"independently trained seeds ({n} per width, {len(small)} widths)",
        power=_power_text(power, n, "the recorded decay forms"))
    notes = [f"{_xi_str(f'lstm {w}', models[w])}, ln(RSS_pow/RSS_exp) ∈ [{_mean_ci(forms[w])[0]:+.2f}, "
             f"{_mean_ci(forms[w])[1]:+.2f}]" + ("" if w <= PAPER_CLEAR_LSTM else " (not decided: the paper "
                                                     "finds the forms hard to tell apart there)") for w in widths]
    return Claim("shen2019.fig1b.lstm-exponential", "Shen 2019 Abstract, Sec. 4.2.1, Fig. 1b",
                 "LSTM samples decay exponentially too: clearly in very small LSTMs (Fig. 1b inset); beyond m = 8 the "
                 "exponential decay is hard to tell from the algebraic one", "statistical", None, None,
                 f"at every LSTM width up to {PAPER_CLEAR_LSTM} (depth 1; Sec. 4.2.1: 'the exponential decay can "
                 f"still be seen clearly in very small LSTMs ... When m > 8, it is hard to distinguish'), Student-t "
                 "95% interval over the seeds of ln(RSS_power/RSS_exp) of each seed's samples above 0: reproduced; "
                 "one below 0: not reproduced; wider LSTMs shown, not decided",
                 verdict, "", _scale(base, verdict, needs), "; ".join(notes), design)


# ---------------------------------------------------------------- Fig. 1c: growth and saturation


def decide_saturation(widths: Sequence[int], xis: Arrays, losses: Arrays,
                      growth: bool = True) -> tuple[str, dict[str, Any]]:
    """Fig. 1c: ξ grows with ln m up to ``SATURATION_WIDTH`` and stays within the margin above it.

    Growth: the slope of the per-width mean ξ against ln m over the widths up to
    ``SATURATION_WIDTH``, its 95% interval a contrast of the per-width means (seeds never
    paired), above 0. Saturation: every wider model's geometric-mean ξ within ±``EQUIVALENCE_MARGIN``
    of the ``SATURATION_WIDTH`` model's, by two one-sided tests (90% interval). A wider
    model whose validation loss is worse than a narrower one's (Welch 95% interval above 0)
    has not been trained to its capacity: its plateau is inconclusive.

    ``widths`` must hold ``SATURATION_WIDTH`` and, with ``growth``, a narrower width.
    Returns the verdict and ``{"growth": (slope, ci), "steps": {w: (relative change, ci)},
    "collapsed": [w, ...]}``.
    """
    base = list(widths).index(SATURATION_WIDTH)
    parts, info = [], {"steps": {}, "collapsed": []}
    if growth:
        small = [i for i, w in enumerate(widths) if w <= SATURATION_WIDTH]
        slope, ci = slope_ci(np.log([widths[i] for i in small]), [xis[i] for i in small])
        info["growth"] = (slope, ci)
        parts.append(decide(ci, 0.0))
    for i, w in enumerate(widths):
        if w <= SATURATION_WIDTH:
            continue
        if any(_diff_ci(losses[i], losses[j])[0] > 0 for j in range(i) if widths[j] < w):
            info["collapsed"].append(w)
            parts.append("inconclusive")
            continue
        change, ci = geometric_ratio_ci(xis[i], xis[base], EQUIVALENCE_LEVEL)
        info["steps"][w] = (change, ci)
        parts.append(decide_equivalence(ci))
    return combine(parts), info


def _saturation_inputs(r: Results, kind: str) -> tuple[list[int], str]:
    """The widths of ``kind`` Fig. 1c reads, and what is missing for it ("" if none)."""
    widths = [w for w in r.settings.rnn_widths if _pt(r, kind, w)]
    if SATURATION_WIDTH not in widths or min(widths) >= SATURATION_WIDTH or max(widths) <= SATURATION_WIDTH:
        return widths, f"widths {SATURATION_WIDTH}, one below it and one above it (paper: 1 to 256)"
    return widths, ""


def _saturation_note(kind: str, info: dict[str, Any], losses: dict[int, np.ndarray]) -> str:
    out = []
    if "growth" in info:
        slope, ci = info["growth"]
        out.append(f"{kind}: slope of mean ξ against ln m up to {SATURATION_WIDTH} {slope:+.1f} [{ci[0]:+.1f}, "
                   f"{ci[1]:+.1f}]")
    out += [f"{kind} {w} against {SATURATION_WIDTH}: ξ {change:+.1%} (geometric means), 90% interval {_pct(ci)}"
            for w, (change, ci) in info["steps"].items()]
    out += [f"{kind} {w}: validation loss {losses[w].mean():.4f} above a narrower model's (width "
            f"{SATURATION_WIDTH}: {losses[SATURATION_WIDTH].mean():.4f}): not trained to its capacity, its plateau "
            "inconclusive" for w in info["collapsed"]]
    return "; ".join(out)


def _saturation_needs(r: Results, kind: str, widths: Sequence[int], info: dict[str, Any]) -> list[str]:
    """What would decide the saturation: wide models trained to capacity, and the seeds a plateau needs."""
    needs = [f"the {kind} of width {w} trained at least to the validation loss of the narrower widths (more epochs, "
             f"a lower learning rate or restarts; {_duration(_seed_seconds(_pt(r, kind, w), _binary_tokens(r)))} "
             "per seed at the recorded throughput)" for w in info["collapsed"]]
    for w in widths:
        if w > SATURATION_WIDTH:
            cost = sum(_seed_seconds(_pt(r, kind, v), _binary_tokens(r)) for v in (w, SATURATION_WIDTH))
            seeds = _tost_seeds(_xis(_pt(r, kind, w)), _xis(_pt(r, kind, SATURATION_WIDTH)),
                                planning=w in info["collapsed"], seed_s=cost)
            needs.append(f"{kind} {w} against {SATURATION_WIDTH}: {seeds}")
    return needs


def _rnn_saturates(r: Results) -> Claim:
    widths, missing = _saturation_inputs(r, "rnn")
    models = [_pt(r, "rnn", w) for w in widths]
    base = _binary_scale(r)
    n = _model_n(models)
    note = ""
    if missing:
        verdict, needs = "inconclusive", [missing]
        power = math.nan
    else:
        xis, losses = [_xis(p) for p in models], [_losses(p) for p in models]
        raw, info = decide_saturation(widths, xis, losses)
        verdict, needs = _hold(r, raw, models, fine=True)
        if verdict == "inconclusive":
            needs += _saturation_needs(r, "rnn", widths, info)
        note = _saturation_note("rnn", info, dict(zip(widths, losses)))
        wide = max(widths)
        power = _tost_power([_sd(np.log(xis[widths.index(wide)])), _sd(np.log(xis[widths.index(SATURATION_WIDTH)]))], n)
    design = Design(
        h1=f"mean ξ grows with ln m up to m = {SATURATION_WIDTH} and every wider RNN's stays within "
           f"±{EQUIVALENCE_MARGIN:.0%} of the width-{SATURATION_WIDTH} one's (saturation)",
        h0=f"no growth up to {SATURATION_WIDTH} (slope 0), or ξ still changes by at least {EQUIVALENCE_MARGIN:.0%} "
           f"beyond it (a growth like ln m would add about 20% from {SATURATION_WIDTH} to 64)",
        test=f"slope of per-width mean ξ against ln m up to {SATURATION_WIDTH}, its 95% interval a contrast of the "
             "per-width means (Welch–Satterthwaite) above 0; each wider width's relative change of geometric-mean "
             "ξ, two one-sided tests on its 90% interval; a wider model with a worse validation loss (Welch 95%) is inconclusive",
        unit=f"independently trained seeds ({n} per width), never paired across widths",
        power=_power_text(power, n, f"no change of ξ above {SATURATION_WIDTH} (the plateau's tests)"),
        margin=f"±{EQUIVALENCE_MARGIN:.0%} relative change of geometric-mean ξ (the book's one margin)")
    return Claim("shen2019.fig1c.rnn-xi-saturates", "Shen 2019 Sec. 4.2.1, Fig. 1c",
                 "Vanilla-RNN ξ grows like ln m up to m≈32, then saturates", "statistical", None, None,
                 f"growth: the slope of the per-width mean ξ against ln m up to {SATURATION_WIDTH}, 95% interval over "
                 f"the seeds of each width, above 0; saturation: every wider width's geometric-mean ξ within "
                 f"±{EQUIVALENCE_MARGIN:.0%} of width {SATURATION_WIDTH}'s (two one-sided tests, 90% interval), "
                 "decided only between models whose validation loss is not worse than a narrower one's, every seed "
                 f"converged by {_criterion(r, fine=True)}",
                 verdict, "", _scale(base, verdict, needs),
                 "; ".join([note] * bool(note) + [_xi_str(f"rnn {w}", p) for w, p in zip(widths, models)])
                 + "; the paper's plateau, ξ ≈ 100, belongs to its data's ξ: ours is in the data ξ of Fig. 1a",
                 design)


def decide_lstm(rnn_rates: Arrays, lstm_rates: Arrays, all_lstm_rates: Arrays, data_rate_lo: float,
                widths: Sequence[int], xis: Arrays, losses: Arrays) -> tuple[str, dict[str, Any]]:
    """Fig. 1c's LSTM: above the RNN at every common width, below the data, and a plateau above 32.

    The RNN's decay rate minus the LSTM's above 0 (Welch 95%) at every common width; every
    LSTM's rate above the data's lower bound (ξ below the data's); the plateau of
    :func:`decide_saturation` (without its growth part).
    """
    beats = [decide(_diff_ci(a, b), 0.0) for a, b in zip(rnn_rates, lstm_rates)]
    below = [decide(_mean_ci(k), data_rate_lo) for k in all_lstm_rates]
    plateau, info = decide_saturation(widths, xis, losses, growth=False)
    info["beats"] = beats
    return combine(beats + below + [plateau]), info


def _lstm(r: Results) -> Claim:
    data = r.data_fit
    data_rate_lo = 1.0 / data.xi_ci[1] if math.isfinite(data.xi_ci[1]) else 0.0
    widths, missing = _saturation_inputs(r, "lstm")
    common = [w for w in widths if _pt(r, "rnn", w)]
    lstms = [_pt(r, "lstm", w) for w in widths]
    models = [_pt(r, k, w) for k in ("rnn", "lstm") for w in common] + lstms
    base = _binary_scale(r)
    n = _model_n(models)
    note, power = "", math.nan
    if missing:
        verdict, needs = "inconclusive", [missing]
    else:
        xis, losses = [_xis(p) for p in lstms], [_losses(p) for p in lstms]
        raw, info = decide_lstm([_rates(_pt(r, "rnn", w)) for w in common], [_rates(_pt(r, "lstm", w)) for w in common],
                                [_rates(p) for p in lstms], data_rate_lo, widths, xis, losses)
        verdict, needs = _hold(r, raw, models, fine=True)
        if verdict == "inconclusive":
            needs += _saturation_needs(r, "lstm", widths, info)
        note = (_saturation_note("lstm", info, dict(zip(widths, losses)))
                + f"; LSTM above RNN (interval-wise) at {info['beats'].count('reproduced')}/{len(common)} widths")
        power = _tost_power([_sd(np.log(xis[-1])), _sd(np.log(xis[widths.index(SATURATION_WIDTH)]))], n)
    design = Design(
        h1=f"at every width the LSTM's ξ exceeds the RNN's, stays below the data's {data.xi:.0f}, and every LSTM "
           f"wider than {SATURATION_WIDTH} keeps ξ within ±{EQUIVALENCE_MARGIN:.0%} of width {SATURATION_WIDTH}'s",
        h0=f"at some width the LSTM's ξ is at most the RNN's, or reaches the data's, or still changes by at least "
           f"{EQUIVALENCE_MARGIN:.0%} above {SATURATION_WIDTH}",
        test="Welch 95% intervals of the RNN's decay rate minus the LSTM's (above 0) and Student-t ones of the LSTM's "
             "rate (above the data's); the plateau by two one-sided tests on the 90% interval of the relative change "
             "of geometric-mean ξ, models with a worse validation loss than a narrower one's inconclusive",
        unit=f"independently trained seeds ({n} per model), never paired",
        power=_power_text(power, n, f"no change of ξ above {SATURATION_WIDTH} (the plateau, the binding part)"),
        margin=f"±{EQUIVALENCE_MARGIN:.0%} relative change of geometric-mean ξ (the book's one margin)")
    return Claim("shen2019.fig1c.lstm-beats-rnn-saturates", "Shen 2019 Fig. 1c, App. E.1.1",
                 "LSTM ξ exceeds the vanilla RNN's and saturates below the data's baseline", "statistical",
                 None, None,
                 "95% intervals over the seeds: at every common width the RNN's decay rate 1/ξ minus the LSTM's above "
                 "0 (Welch); every LSTM's rate above the data's; every LSTM wider than "
                 f"{SATURATION_WIDTH} within ±{EQUIVALENCE_MARGIN:.0%} of width {SATURATION_WIDTH}'s geometric-mean "
                 "ξ (two "
                 "one-sided tests, 90%), unless its validation loss is worse than a narrower one's; every seed "
                 f"converged by {_criterion(r, fine=True)}",
                 verdict, "", _scale(base, verdict, needs),
                 "; ".join([_xi_str(f"lstm {w}", p) for w, p in zip(widths, lstms)] + [note] * bool(note)), design)


# ---------------------------------------------------------------- Fig. 1d, Fig. 7: depth


def decide_depth_beats_width(wide_rates: np.ndarray, deep_rates: np.ndarray) -> tuple[str, list[float]]:
    """Fig. 1d: the wide RNN's decay rate minus the deep one's, Welch 95% interval, above 0."""
    ci = _diff_ci(wide_rates, deep_rates)
    return decide(ci, 0.0), ci


def _depth(r: Results) -> Claim:
    s = r.settings
    deep = _pt(r, "rnn", s.depth_widths[0], max(s.rnn_depths))
    wider = [w for w in s.rnn_widths if _pt(r, "rnn", w) and deep and _pt(r, "rnn", w).params >= deep.params]
    base = _binary_scale(r)
    rule = ("the narrowest single-layer RNN with at least the deepest RNN's parameters: its decay rate 1/ξ minus the "
            "deep one's, Welch 95% interval over the seeds, above 0; below 0: not reproduced; every seed converged by "
            + _criterion(r, fine=True))
    claim = ("shen2019.fig1d.rnn-depth-beats-width", "Shen 2019 Fig. 1d", "Depth beats width for vanilla RNNs",
             "statistical")
    if deep is None or max(s.rnn_depths) < 2 or not wider:
        need = f"a single-layer RNN with at least {deep.params if deep else '?'} parameters"
        design = Design(h1="the deep RNN's ξ longer than the wide one's", h0="no difference of decay rates",
                        test="Welch 95% interval of the decay-rate difference", unit="independently trained seeds",
                        power="not computable: the comparison is not in this run")
        return Claim(*claim, None, None, rule, "inconclusive", "", _scale(base, "inconclusive", [need]),
                     (_xi_str("deepest rnn", deep) if deep else "no deep RNN") + "; no wider RNN with as many parameters",
                     design)
    w = _pt(r, "rnn", wider[0])
    wide_rates, deep_rates = _rates(w), _rates(deep)
    raw, ci = decide_depth_beats_width(wide_rates, deep_rates)
    verdict, needs = _hold(r, raw, [deep, w], fine=True)
    if verdict == "inconclusive":
        needs.append(_seeds_for(wide_rates, deep_rates,
                                seed_s=sum(_seed_seconds(p, _binary_tokens(r)) for p in (w, deep))))
    n = _model_n([deep, w])
    effect = deep_rates.mean() * (H1_RATIO - 1)  # the wide RNN's rate half again the deep one's
    design = Design(
        h1=f"the {max(s.rnn_depths)}-layer RNN of width {s.depth_widths[0]} has a longer ξ (lower decay rate) "
           f"than the single-layer RNN of width {wider[0]}, which has at least as many parameters",
        h0="the two decay rates are equal",
        test="Welch 95% interval of the wide RNN's mean decay rate minus the deep one's, above 0",
        unit=f"independently trained seeds ({n} per model)",
        power=_power_text(_power(effect, [_sd(wide_rates), _sd(deep_rates)], n), n,
                          f"a wide-RNN rate {H1_RATIO:g}× the deep one's"))
    diff = wide_rates.mean() - deep_rates.mean()
    return Claim(*claim, float(diff), ci, rule, verdict, "", _scale(base, verdict, needs),
                 f"{_xi_str('deep', deep)} vs {_xi_str(f'rnn {wider[0]}', w)}; rate difference {diff:+.4f}", design)


def decide_no_gain(pairs: Sequence[tuple[np.ndarray, np.ndarray]]) -> tuple[str, list[tuple[float, list[float]]]]:
    """"Does not improve": for every (before, after) pair, ``mean(after) / mean(before) - 1`` within the margin.

    Two one-sided tests on the 90% interval of each relative difference
    (:func:`seqmi.claims.decide_equivalence`); every pair must be equivalent.
    """
    rel = [geometric_ratio_ci(after, before, EQUIVALENCE_LEVEL) for before, after in pairs]
    return combine([decide_equivalence(ci) for _, ci in rel]), rel


def _lstm_depth(r: Results) -> Claim:
    s = r.settings
    deepest = max(s.rnn_depths)
    pairs = {w: (_pt(r, "lstm", w, 2), _pt(r, "lstm", w, deepest)) for w in s.depth_widths}
    pairs = {w: pair for w, pair in pairs.items() if None not in pair}
    claim = ("shen2019.fig7.lstm-depth-over-two", "Shen 2019 App. E.1.1, Fig. 7",
             "Increasing LSTM depth over two layers does not improve ξ", "statistical")
    rule = (f"at every depth-sweep width, the deepest LSTM's geometric-mean ξ relative to the two-layer one's: its "
            "90% interval "
            f"over the seeds inside ±{EQUIVALENCE_MARGIN:.0%} (two one-sided tests): reproduced; wholly outside: not "
            f"reproduced; every seed converged by {_criterion(r, fine=True)}")
    models = [p for pair in pairs.values() for p in pair]
    n = _model_n(models)
    design = Design(
        h1=f"the {deepest}-layer LSTM's geometric-mean ξ within ±{EQUIVALENCE_MARGIN:.0%} of the two-layer one's",
        h0=f"depth changes geometric-mean ξ by at least {EQUIVALENCE_MARGIN:.0%}",
        test="two one-sided tests on the 90% interval of the relative difference of ξ (the seeds' geometric means: "
             "Welch's interval of the difference of mean ln ξ)",
        unit=f"independently trained seeds ({n} per model)",
        power=_power_text(_tost_power([_sd(np.log(_xis(p))) for p in next(iter(pairs.values()))], n)
                          if pairs else math.nan, n, "equal ξ"),
        margin=f"±{EQUIVALENCE_MARGIN:.0%} relative difference of geometric-mean ξ (the book's one margin)")
    if deepest < 3 or not pairs:
        return Claim(*claim, None, None, rule, "inconclusive", "",
                     _scale(_binary_scale(r), "inconclusive", ["LSTMs of depth 2 and 3"]),
                     "no LSTM deeper than two layers in this run", design)
    raw, rel = decide_no_gain([(_xis(two), _xis(deep)) for two, deep in pairs.values()])
    verdict, needs = _hold(r, raw, models, fine=True)
    if verdict == "inconclusive":
        for w, (two, deep) in pairs.items():
            cost = sum(_seed_seconds(p, _binary_tokens(r)) for p in (two, deep))
            needs.append(f"width {w}: {_tost_seeds(_xis(deep), _xis(two), seed_s=cost)}")
    return Claim(*claim, None, None, rule, verdict, "", _scale(_binary_scale(r), verdict, needs),
                 "; ".join(f"width {w}: {_xi_str('2 layers', two)}, {_xi_str(f'{deepest} layers', deep)}, "
                           f"relative change {change:+.1%}, 90% interval {_pct(ci)}"
                           for (w, (two, deep)), (change, ci) in zip(pairs.items(), rel)), design)


# ---------------------------------------------------------------- App. E.1.1: a small LSTM against a wide RNN


def decide_small_lstm(rnn_rates: np.ndarray, lstm_rates: np.ndarray, width: int) -> tuple[str, list[float]]:
    """App. E.1.1: the RNN's decay rate minus the LSTM's (Welch 95%) above 0, read at the LSTM's width."""
    ci = _diff_ci(rnn_rates, lstm_rates)
    return at_paper_width(decide(ci, 0.0), width, PAPER_SMALL_LSTM), ci


def _lstm_beats_wider_rnn(r: Results) -> Claim:
    widths = r.settings.rnn_widths
    lstm_widths = [w for w in widths if _pt(r, "lstm", w)]
    small = [w for w in lstm_widths if w <= PAPER_SMALL_LSTM]
    rnn = _pt(r, "rnn", PAPER_WIDE_RNN)
    claim = ("shen2019.appE11.small-lstm-beats-rnn-32", "Shen 2019 App. E.1.1",
             f"A width-{PAPER_SMALL_LSTM} LSTM (126 parameters) has a longer ξ than a width-{PAPER_WIDE_RNN} vanilla RNN "
             "(1,190): the LSTM's advantage is not its parameter count", "statistical")
    rule = (f"the RNN's decay rate 1/ξ minus the width-{PAPER_SMALL_LSTM} LSTM's, Welch 95% interval over the seeds, "
            "above 0: reproduced; below 0: not reproduced. Never decided against a weaker model than the paper's: a "
            f"narrower LSTM's win counts a fortiori, its loss is inconclusive; a wider LSTM decides nothing; every seed "
            f"converged by {_criterion(r, fine=True)}")
    base = _binary_scale(r)
    # the cost of the paper's model, from its recorded neighbours' epochs, throughput and sampling
    near = [w for w in lstm_widths if w != PAPER_SMALL_LSTM]
    near = sorted(near, key=lambda w: abs(math.log(w / PAPER_SMALL_LSTM)))[:2]
    costs = {w: _seed_seconds(_pt(r, "lstm", w), _binary_tokens(r)) for w in near}
    cost = (f"≈ {' to '.join(dict.fromkeys(f'{v:.0f}' for v in sorted(costs.values())))} core-seconds per seed, as "
            f"for the recorded "
            f"LSTMs of widths {' and '.join(map(str, sorted(costs)))} ({r.n_train} sequences of {r.length} "
            "symbols per epoch, their epochs, throughput and sampling)") if costs else "its cost unknown"
    paper_run = (f"the paper's width-{PAPER_SMALL_LSTM} LSTM trained as ≥ {MIN_SEEDS} seeds at this run's settings "
                 f"({cost})")
    design = Design(
        h1=f"the width-{PAPER_SMALL_LSTM} LSTM's ξ longer than the width-{PAPER_WIDE_RNN} RNN's (its decay rate lower)",
        h0="the two decay rates are equal",
        test="Welch 95% interval of the RNN's mean decay rate minus the LSTM's, above 0; read only on the paper's "
             "width, or a narrower LSTM's win",
        unit="independently trained seeds",
        power="not computable: the paper's model is not in this run")
    if not small or rnn is None:
        return Claim(*claim, None, None, rule, "inconclusive", "", _scale(base, "inconclusive", [paper_run]),
                     "not in this run", design)
    w = max(small)
    lstm = _pt(r, "lstm", w)
    raw, ci = decide_small_lstm(_rates(rnn), _rates(lstm), w)
    verdict, needs = _hold(r, raw, [rnn, lstm], fine=True)
    n = _model_n([rnn, lstm])
    effect = _rates(rnn).mean() * (1 - 1 / H1_RATIO)  # the LSTM's ξ half again the RNN's
    design = Design(h1=design.h1, h0=design.h0, test=design.test, unit=f"independently trained seeds ({n} per model)",
                    power=_power_text(_power(effect, [_sd(_rates(rnn)), _sd(_rates(lstm))], n), n,
                                      f"an LSTM ξ {H1_RATIO:g}× the RNN's, at the recorded spreads (width {w})"))
    notes = [f"{_xi_str(f'lstm {w}', lstm)} ({lstm.params} parameters) vs {_xi_str(f'rnn {PAPER_WIDE_RNN}', rnn)} "
             f"({rnn.params} parameters), rate difference [{ci[0]:+.4f}, {ci[1]:+.4f}]"]
    if w != PAPER_SMALL_LSTM and verdict == "inconclusive":
        outcome = {"not reproduced": "it loses", "inconclusive": "its interval is open"}.get(decide(ci, 0.0), "it wins")
        needs.insert(0, f"{paper_run}; the width-{w} LSTM is weaker than the paper's, and {outcome}")
    for wide in [v for v in lstm_widths if v > PAPER_SMALL_LSTM][:1]:
        other = _diff_ci(_rates(rnn), _rates(_pt(r, "lstm", wide)))
        notes.append(f"the width-{wide} LSTM ({_pt(r, 'lstm', wide).params} parameters), stronger than the paper's, "
                     f"gives [{other[0]:+.4f}, {other[1]:+.4f}] and cannot decide the claim either way on its own")
    sub = "" if w == PAPER_SMALL_LSTM else f"LSTM of width {w} ({lstm.params} parameters) for the paper's width 4"
    return Claim(*claim, None, ci, rule, verdict, sub, _scale(base, verdict, needs), "; ".join(notes), design)
