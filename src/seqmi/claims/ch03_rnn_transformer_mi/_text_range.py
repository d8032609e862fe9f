"""Chapter 03's claims on the character Transformers' range: mid-range ξ and the far tail (Fig. 10a, Sec. 5.2).

Re-exported by :mod:`seqmi.claims.ch03_rnn_transformer_mi`, where the public ones are documented.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
import numpy as np

from seqmi.claims import EQUIVALENCE_LEVEL, EQUIVALENCE_MARGIN, MIN_SEEDS, Claim, Design, combine, decide
from seqmi.claims.ch03_rnn_transformer_mi._shared import (FLOOR_FRACTION, PAPER_CHAR_CONTEXT, PAPER_GENERATE,
                                                          PAPER_MAX_LAG, PAPER_TAIL_DEPTHS, PAPER_TAIL_LAG,
                                                          PAPER_TEXT_DEPTH_WIDTH, TAIL_START, TEXT_FIT_THRESHOLD,
                                                          TEXT_SUBSTITUTION, Arrays, _duration, _hold, _mean_ci,
                                                          _model_n, _pct, _power, _power_text, _scale, _sd, _seeds,
                                                          _seeds_for, _shapes, _text_scale, _xis)
from seqmi.claims.ch03_rnn_transformer_mi._text import (_context, _context_cost, _short_context, _text_model,
                                                        _text_seconds)
from seqmi.results.ch03_rnn_transformer_mi import DecayFit, Model, Results
from seqmi.stats import Z95, decay_form, ratio_to_reference_ci


# ---------------------------------------------------------------- Fig. 10a and Sec. 5.2: the Transformers' range


def _xi_se(fit: DecayFit) -> float:
    """Standard error of a fit's ξ: its interval is that of the decay rate ``1/ξ``, symmetric (delta method)."""
    lo, hi = fit.xi_ci
    rate_se = (1.0 / lo - (1.0 / hi if math.isfinite(hi) else 0.0)) / (2 * Z95)
    return fit.xi ** 2 * rate_se


def decide_mid_range(xis: Arrays, text_xi: float, text_se: float,
                     held: Sequence[bool]) -> tuple[str, list[tuple[float, list[float]]]]:
    """Fig. 10a: every character Transformer's ξ not shorter than the text's by the margin.

    Per model, the mean ξ of its seeds relative to the text's with the text's own standard
    error (:func:`seqmi.stats.intervals.ratio_to_reference_ci`, 90%): its lower bound above
    ``-EQUIVALENCE_MARGIN`` (a non-inferiority test at 5%): reproduced; its upper bound below
    it: not reproduced. A model ``held`` (weaker than the paper's: a Transformer short of
    Shen's context) counts only where it succeeds, a fortiori; its failure is inconclusive.
    """
    rel = [ratio_to_reference_ci(x, text_xi, text_se, EQUIVALENCE_LEVEL) for x in xis]
    parts = [decide(ci, -EQUIVALENCE_MARGIN) for _, ci in rel]
    return combine([v if v == "reproduced" or not h else "inconclusive" for v, h in zip(parts, held)]), rel


def _noninferiority_power(relative_se: float) -> float:
    """Power of one model's non-inferiority at no difference (normal, one-sided 5%)."""
    from scipy import stats

    if not (math.isfinite(relative_se) and relative_se > 0):
        return math.nan
    return float(stats.norm.cdf(EQUIVALENCE_MARGIN / relative_se - _noninferiority_z()))


def _mid_range(r: Results) -> Claim:
    pts = r.text_points
    names = [f"transformer {w}×1" for w, d in _shapes(pts, "transformer") if d == 1]
    lstms = [f"lstm {w}×1" for w, d in _shapes(pts, "lstm") if d == 1]
    text, whole = r.corpus_small_fit, r.corpus_fit
    text_se = _xi_se(text)
    xis = {name: _xis(_text_model(r, name)) for name in names}
    short = {name: _short_context(r, name) for name in names}
    models = [_text_model(r, name) for name in names]
    n = _model_n(models)
    floor = r.samples_floor_dominated
    rule = ("every single-layer character Transformer (Fig. 10a's width panel): the mean ξ of its seeds' samples "
            f"(fits on the lags with I(τ) > {TEXT_FIT_THRESHOLD:g}, τ ≲ 50) relative to a same-size sample of the "
            "training text's (its regression standard error included), 90% interval; lower bound above "
            f"−{EQUIVALENCE_MARGIN:.0%} (not shorter than the text's: non-inferiority): reproduced; wholly below "
            f"−{EQUIVALENCE_MARGIN:.0%}: not reproduced. A Transformer short of Shen's {PAPER_CHAR_CONTEXT} "
            "characters is weaker than his: its success counts a fortiori, its failure is inconclusive; every seed "
            "converged")
    rel: list[tuple[float, list[float]]] = []
    parts: dict[str, str] = {}
    if not names:
        verdict, needs = "inconclusive", ["single-layer character Transformers"]
    elif floor:
        verdict, needs = "inconclusive", [f"samples long enough that the same-size text sample's I(τ) falls below "
                                          f"{TEXT_FIT_THRESHOLD:g} within the recorded lags (here its fit takes "
                                          "every lag: the estimator's floor at this size)"]
    else:
        raw, rel = decide_mid_range(list(xis.values()), text.xi, text_se, [bool(v) for v in short.values()])
        parts = {m: decide(ci, -EQUIVALENCE_MARGIN) for m, (_, ci) in zip(names, rel)}
        verdict, needs = _hold(r, raw, models)
    if verdict == "inconclusive" and parts:
        failing = [m for m in names if short[m] and parts[m] != "reproduced"]
        if failing:
            needs.append(_context_cost(r, failing))
        limit = EQUIVALENCE_MARGIN / _noninferiority_z()
        if text_se / text.xi >= limit:
            # no number of seeds brings the interval past the margin while the reference is this loose
            needs.append(f"the text's same-size ξ with a relative standard error below {limit:.1%} (here "
                         f"{text_se / text.xi:.0%}, the regression interval of one sample): a fit over more "
                         "same-size samples of the text")
        else:
            needs += [f"{m}: " + _seeds_for(np.log(xis[m] / text.xi), threshold=math.log1p(-EQUIVALENCE_MARGIN),
                                            level=EQUIVALENCE_LEVEL, seed_s=_text_seconds(r, [m]))
                      for m in names if not short[m] and parts[m] == "inconclusive"]
    cvs = [_sd(v) / v.mean() for v in xis.values() if v.size and v.mean() > 0]
    power = (math.prod(_noninferiority_power(math.sqrt(cv**2 / n + (text_se / text.xi) ** 2)) for cv in cvs)
             if names and n >= 2 else math.nan)
    design = Design(
        h1=f"every single-layer character Transformer's ξ (τ ≲ 50) reaches the text's at the samples' size: not "
           f"shorter by {EQUIVALENCE_MARGIN:.0%} or more (Shen: 'can capture the mid-range interactions well')",
        h0=f"some character Transformer's ξ is shorter than the text's by at least {EQUIVALENCE_MARGIN:.0%}, as the "
           "character LSTMs' of Fig. 8a ('cannot capture intermediate-range features unless extremely wide')",
        test="per model, the 90% interval of the relative difference of its mean ξ from the text's (delta method, "
             f"the text's standard error included) above −{EQUIVALENCE_MARGIN:.0%} (non-inferiority at 5%); every "
             "model must hold",
        unit=f"independently trained seeds ({n} per model), each scored on its first sample set",
        power=("0 at this run's scale: the same-size text sample's fit takes every lag (the estimator's floor). "
               if floor else "") + _power_text(power, n, "ξ equal to the text's, at the recorded spreads and the "
                                                         "text's standard error"),
        margin=f"−{EQUIVALENCE_MARGIN:.0%} relative ξ (the book's one margin, one-sided)")
    detail = [f"{m}: ξ per seed {'/'.join(f'{v:.2f}' for v in xis[m])}, mean relative to the text's {c:+.1%}, 90% "
              f"interval {_pct(ci)}" + (f" ({parts[m]} by its test, held back: {short[m]})"
                                         if short[m] and parts[m] != "reproduced" else "")
              for m, (c, ci) in zip(names, rel)]
    # models not compared (the samples at the floor) and the LSTMs Shen sets them against
    detail += [f"{m}: ξ per seed {'/'.join(f'{v:.2f}' for v in _xis(_text_model(r, m)))}"
               for m in names[len(rel):] + lstms]
    detail.append(f"training text at the samples' size ξ = {text.xi:.1f} [{text.xi_ci[0]:.1f}, "
                  f"{text.xi_ci[1]:.1f}] on {text.n_fit_points} lags; the whole training text's "
                  f"{whole.xi:.1f} [{whole.xi_ci[0]:.1f}, {whole.xi_ci[1]:.1f}] on "
                  f"{whole.n_fit_points}")
    return Claim("shen2019.fig10a.char-transformer-mid-range", "Shen 2019 App. E.2.2, Fig. 10a",
                 "Different from character-level LSTMs, character-level Transformers capture the mid-range "
                 "interactions well: their correlation length fitted on τ ≲ 50 reaches the training text's",
                 "statistical", None, None, rule, verdict, TEXT_SUBSTITUTION,
                 _scale(_text_scale(r, None) + "; the text's ξ from its first same-size sample (the samples' floor)",
                        verdict, needs), "; ".join(detail), design)


def _noninferiority_z() -> float:
    """The normal quantile of a one-sided 5% test (the 90% interval's bound)."""
    from scipy import stats

    return float(stats.norm.ppf(EQUIVALENCE_LEVEL + (1 - EQUIVALENCE_LEVEL) / 2))


def _tail_forms(p: Model) -> np.ndarray:
    """Per seed, ``ln(RSS_pow/RSS_exp)`` over ``τ = TAIL_START``–``PAPER_TAIL_LAG`` of its samples' MI.

    Power law and exponential each with the estimator's floor profiled as an offset
    (:func:`seqmi.stats.decay.decay_form`; its statistic is half ``ln(RSS_exp/RSS_pow)``);
    negative: the power law fits better; NaN where too few lags are positive.
    """
    out = []
    for s in _seeds(p):
        try:
            out.append(-2.0 * decay_form(np.asarray(s.mi, dtype=float)[:PAPER_TAIL_LAG], TAIL_START).llr)
        except ValueError:  # fewer than 2 * DECAY_BLOCKS positive lags past TAIL_START
            out.append(math.nan)
    return np.array(out, dtype=float)


def decide_tail(forms: Arrays, reach: bool) -> str:
    """Sec. 5.2: every deep Transformer's tail decay form below 0 (Student-t 95% over its seeds).

    Decided only where the recording ``reach``es the statement: Transformers of Shen's
    depths and context measured to ``PAPER_TAIL_LAG``; otherwise inconclusive.
    """
    if not reach:
        return "inconclusive"
    return combine([decide(_mean_ci(f), 0.0, claim_above=False) for f in forms])


def _params(width: int, depth: int, vocab: float) -> float:
    """Parameters of this book's character Transformer (:class:`seqmi.models.lm.TransformerLM`, untied).

    ``depth`` blocks of ``12 w² + 13 w`` (two norms, the attention's projections, a 4× MLP),
    and ``w (2 V + 3) + V`` outside them (embedding with the start token, the last norm,
    the output layer); a test pins it to the model.
    """
    return depth * (12 * width**2 + 13 * width) + width * (2 * vocab + 3) + vocab


def _vocab(params: float, width: int, depth: int) -> float:
    """The alphabet size ``V`` of a recorded character Transformer, from its parameters (:func:`_params`)."""
    return (params - depth * (12 * width**2 + 13 * width) - 3 * width) / (2 * width + 1)


def _compute_time(seconds: float, device: str) -> str:
    """Recorded seconds of ``device`` as GPU-hours on a GPU, else core-time (:func:`_duration`)."""
    if str(device).startswith("cuda") and math.isfinite(seconds):
        return f"≈ {seconds / 3600:.2f} GPU-hours"
    return _duration(seconds)


def _far_levels(r: Results) -> tuple[float, float]:
    """Mean I over ``τ ≥ TAIL_START`` of the same-size text sample (the samples' floor) and of the whole training
    text; NaN where the run stops short of ``TAIL_START``."""
    small, whole = (np.asarray(mi, dtype=float)[TAIL_START - 1:] for mi in (r.corpus_small_mi, r.corpus_mi))
    return (float(small.mean()), float(whole.mean())) if small.size and whole.size else (math.nan, math.nan)


def _tail_needs(r: Results) -> str:
    """What would decide Sec. 5.2's tail, with the characters it takes and its cost at the recorded throughput."""
    s, pts = r.settings, r.text_points
    n_now, max_lag = int(s.text_generate), int(s.text_max_lag)
    floor_now, level = _far_levels(r)
    # the estimator's floor falls as 1/N: the size at which it is a tenth of the text's own far-lag MI
    n_floor = math.ceil(n_now * floor_now * FLOOR_FRACTION / level) if floor_now > 0 and level > 0 else 0
    n_chars = max(PAPER_GENERATE, n_floor)
    floor = (f"the estimator's floor, the χ² bias of the pair counts, falls as 1/N from {floor_now:.1e} at N = "
             f"{n_now:,} (the same-size text sample's mean I over τ = {TAIL_START}–{max_lag}) to a tenth of the "
             f"training text's own {level:.1e} there at N = {n_floor:,}" if n_floor else
             f"the floor not measured (this run's lags stop before τ = {TAIL_START})")
    out = (f"{'- and '.join(map(str, PAPER_TAIL_DEPTHS))}-layer character Transformers of width "
           f"{PAPER_TEXT_DEPTH_WIDTH} (Fig. 10b's) reading Shen's {PAPER_CHAR_CONTEXT} characters, {MIN_SEEDS} "
           f"seeds each, their samples' MI measured to τ = {PAPER_MAX_LAG} in rows longer than that (Sec. 4.2.2's "
           f"long range, 50 ≲ τ ≲ 1000; this run: τ ≤ {max_lag}), {n_chars:,} generated characters per seed (this "
           f"run: {n_now:,}; Shen: {PAPER_GENERATE:,}): {floor}")
    tfs = [f"transformer {w}×{d}" for w, d in _shapes(pts, "transformer")]
    if not tfs:
        return out + "; its cost unknown (no character Transformer's throughput recorded)"
    # the recorded model nearest the paper's: the most parameters
    name = max(tfs, key=lambda m: _text_model(r, m).params)
    p = _text_model(r, name)
    width, depth = (int(v) for v in name.split(" ")[1].split("×"))
    ctx = _context(r, name)
    vocab = _vocab(p.params, width, depth)
    work_now = 6 * p.params + 12 * depth * width * ctx
    epochs = float(np.mean([x.epochs for x in _seeds(p)]))
    chars = float(s.text_train_chars or r.train_split_chars)
    sampling = n_now / float(np.mean([x.sample_s for x in _seeds(p)]))
    parts, total = [], 0.0
    for d in PAPER_TAIL_DEPTHS:
        params = _params(PAPER_TEXT_DEPTH_WIDTH, d, vocab)
        factor = (6 * params + 12 * d * PAPER_TEXT_DEPTH_WIDTH * PAPER_CHAR_CONTEXT) / work_now
        total += MIN_SEEDS * factor * (epochs * chars / p.tokens_per_s + n_chars / sampling)
        parts.append(f"×{factor:.1f} for {d} layers ({params:,.0f} parameters)")
    device = p.device
    return (out + f"; cost {_compute_time(total, device)}: {MIN_SEEDS} seeds × (training, {epochs:.0f} "
            f"epochs × {chars:,.0f} characters at the {p.tokens_per_s:,.0f} tokens/s recorded for {name} "
            f"({p.params:,} parameters, context {ctx}; {device}), plus sampling {n_chars:,} characters at "
            f"its recorded {sampling:,.0f} characters/s), each scaled by the work per token, 6·parameters + "
            "12·depth·width·context: " + ", ".join(parts))


def _deep_tail(r: Results) -> Claim:
    pts, s = r.text_points, r.settings
    shapes = _shapes(pts, "transformer")
    names = [f"transformer {w}×{d}" for w, d in shapes if d >= min(PAPER_TAIL_DEPTHS)]
    max_lag, lags = int(s.text_max_lag), f"τ = {TAIL_START}–{min(int(s.text_max_lag), PAPER_TAIL_LAG)}"
    depths = " and ".join(map(str, PAPER_TAIL_DEPTHS))
    missing = [] if names else [f"character Transformers of {depths} layers (this run's deepest: "
                                f"{max((d for _, d in shapes), default=0)})"]
    missing += [f"their MI to τ = {PAPER_TAIL_LAG} (this run: τ ≤ {max_lag})"] * (max_lag < PAPER_TAIL_LAG)
    missing += [why for why in (_short_context(r, m) for m in names) if why]
    forms = {m: _tail_forms(_text_model(r, m)) for m in names}
    models = [_text_model(r, m) for m in names]
    verdict, needs = decide_tail(list(forms.values()), not missing), []
    if models:
        verdict, needs = _hold(r, verdict, models)
    n = _model_n(models) or s.seeds
    if verdict == "inconclusive" and missing:
        needs.append(_tail_needs(r))
    elif verdict == "inconclusive":
        needs += [f"{m}: {_seeds_for(f, seed_s=_text_seconds(r, [m]))}" for m, f in forms.items()
                  if decide(_mean_ci(f), 0.0) == "inconclusive"]
    seen = {f"transformer {w}×{d}": _tail_forms(_text_model(r, f"transformer {w}×{d}")) for w, d in shapes}
    # the spread between seeds of the deepest recorded model's tail form stands in for the decisive models'
    proxy = max(seen, key=lambda m: int(m.split("×")[1]), default=None)
    sd = _sd(seen[proxy]) if proxy else math.nan
    at_scale = _power(1.0, [sd], n) ** max(len(names), len(PAPER_TAIL_DEPTHS)) if sd > 0 else math.nan
    design = Design(
        h1=f"every character Transformer of {depths} layers writes samples whose MI over τ = {TAIL_START}–"
           f"{PAPER_TAIL_LAG} follows a power law better than an exponential (ln(RSS_pow/RSS_exp) < 0, each form "
           "with the estimator's floor profiled)",
        h0="the exponential (to the floor) fits at least as well: the tail decays exponentially, as an RNN's",
        test="per model, Student-t 95% interval over the seeds of the mean tail decay form below 0; every model must "
             f"hold; decided only on a recording with such models, lags to {PAPER_TAIL_LAG} and Shen's context",
        unit="independently trained seeds, each scored on its first sample set",
        power=("0 at this run's scale: " + "; ".join(missing) + ". At the decisive scale, " if missing else "")
        + _power_text(at_scale, n, f"a tail decay form of −1 (the power law e-fold better) at the spread of "
                                   f"{proxy or 'no recorded model'}'s tail forms (sd {sd:.3f}, over {lags})"))
    floor_now, level = _far_levels(r)
    detail = [f"{m}: ln(RSS_pow/RSS_exp) over {lags} per seed " + "/".join(f"{v:+.3f}" for v in f)
              for m, f in seen.items()]
    if math.isfinite(floor_now):
        detail.append(f"the same-size text sample's mean I over τ ≥ {TAIL_START} is {floor_now:.1e}, "
                      f"{floor_now / level:.1f}× the whole training text's {level:.1e}: at the samples' size the far "
                      "lags are mostly the estimator's floor")
    return Claim("shen2019.sec5-2.deep-transformer-power-law-tail", "Shen 2019 Sec. 5.2, Fig. 3b",
                 "The three- and five-layer character Transformers keep a slowly decaying power-law tail of the MI "
                 f"up to τ ≈ {PAPER_TAIL_LAG}, although its power does not track the training text's", "statistical",
                 None, None,
                 f"every character Transformer of {depths} layers reading Shen's {PAPER_CHAR_CONTEXT} characters, its "
                 f"samples measured to τ ≥ {PAPER_TAIL_LAG}: per seed, ln(RSS_pow/RSS_exp) of power-law and "
                 "exponential fits, each with a profiled offset (the estimator's floor), over τ = "
                 f"{TAIL_START}–{PAPER_TAIL_LAG}; Student-t 95% interval over the seeds below 0: reproduced; above 0: "
                 "not reproduced; a recording without such models, lags or context: inconclusive",
                 verdict, TEXT_SUBSTITUTION, _scale(_text_scale(r, (TAIL_START, PAPER_TAIL_LAG)), verdict, needs),
                 "; ".join(detail), design)
