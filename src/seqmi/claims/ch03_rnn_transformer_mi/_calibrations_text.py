"""Calibrations of chapter 03's text and split rules, at the recorded scale.

Each draws one data set under a claim's h0 or h1 and returns the verdict of the rule's
own ``decide_*`` function (:mod:`seqmi.claims.calibration`).
Re-exported by :mod:`seqmi.claims.ch03_rnn_transformer_mi`, where the public ones are documented.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import numpy as np

from seqmi.claims import EQUIVALENCE_MARGIN
from seqmi.claims.calibration import Calibration
from seqmi.claims.ch03_rnn_transformer_mi._binary_rnn import decide_no_gain
from seqmi.claims.ch03_rnn_transformer_mi._shared import (CONTROL_DRAWS, H1_RHO, MIDDLE_LAGS, PAPER_TAIL_DEPTHS,
                                                          PAPER_TAIL_LAG, SHORT_LAGS, TAIL_START, _forms, _geomean,
                                                          _log_sd, _lognormal, _normal, _sd, _seeds_note, _shapes, _xis)
from seqmi.claims.ch03_rnn_transformer_mi._splits import decide_floor, decide_uniform
from seqmi.claims.ch03_rnn_transformer_mi._text import (_depth_pairs, _lag_gaps, _short_context, _text_model,
                                                        decide_gaps, decide_rank_link, decide_text_forms)
from seqmi.claims.ch03_rnn_transformer_mi._text_range import _tail_forms, _xi_se, decide_mid_range, decide_tail
from seqmi.results.ch03_rnn_transformer_mi import LongRange, Results
from seqmi.stats import MIN_RANK_PAIRS


def _cal_mid_range(r: Results) -> Calibration | None:
    pts = r.text_points
    names = [f"transformer {w}×1" for w, d in _shapes(pts, "transformer") if d == 1]
    if not names or r.samples_floor_dominated:
        return None
    xis = [_xis(_text_model(r, m)) for m in names]
    n = min(len(v) for v in xis)
    cvs = [_sd(v) / v.mean() for v in xis]
    held = [bool(_short_context(r, m)) for m in names]
    text = r.corpus_small_fit
    se = _xi_se(text)

    def verdict(hypothesis: str, rng: np.random.Generator) -> str:
        ref = text.xi + se * rng.standard_normal()
        level = [text.xi * (1 - EQUIVALENCE_MARGIN * (hypothesis == "h0" and i == 0)) for i in range(len(cvs))]
        drawn = [m * (1 + cv * rng.standard_normal(n)) for m, cv in zip(level, cvs)]
        return decide_mid_range(drawn, ref, se, held)[0]

    return Calibration("shen2019.fig10a.char-transformer-mid-range", f"{len(names)} single-layer character "
                       f"Transformers, {_seeds_note(r)} of ξ (normal, the recorded relative spread); the text's "
                       f"ξ drawn with its regression standard error ({se / text.xi:.0%}); held back as recorded "
                       f"({sum(held)} of {len(names)}: short of Shen's context)",
                       f"the first Transformer's ξ {EQUIVALENCE_MARGIN:.0%} below the text's (the margin), the others "
                       "equal to it", "every Transformer's ξ the text's", verdict)


def _cal_tail(r: Results) -> Calibration | None:
    shapes = _shapes(r.text_points, "transformer")
    if not shapes:
        return None
    # the deep models of the recording, else as many as the statement names
    models = sum(d >= min(PAPER_TAIL_DEPTHS) for _, d in shapes) or len(PAPER_TAIL_DEPTHS)
    proxy = max(shapes, key=lambda wd: wd[1])
    forms = _tail_forms(_text_model(r, f"transformer {proxy[0]}×{proxy[1]}"))
    n, sd = len(forms), _sd(forms)
    lags = f"τ = {TAIL_START}–{min(r.settings.text_max_lag, PAPER_TAIL_LAG)}"

    def verdict(hypothesis: str, rng: np.random.Generator) -> str:
        # the rule as a decisive recording runs it (its reach granted): at this recording's scale it says
        # "inconclusive" whatever the data
        return decide_tail([_normal(rng, 0.0 if hypothesis == "h0" and i == 0 else -1.0, sd, n)
                            for i in range(models)], True)

    return Calibration("shen2019.sec5-2.deep-transformer-power-law-tail", f"{models} deep character Transformers, "
                       f"{n} seeds each, tail decay forms normal at the spread of the recorded transformer "
                       f"{proxy[0]}×{proxy[1]}'s over {lags} (sd {sd:.3f}, a stand-in for the decisive models' "
                       f"spread); the rule as a recording reaching τ = {PAPER_TAIL_LAG} with "
                       f"{'- and '.join(map(str, PAPER_TAIL_DEPTHS))}-layer models runs it (this one's verdict is "
                       "inconclusive whatever the data)",
                       "the first model's tail decay form 0 (the exponential fits as well), the others −1",
                       "every model's tail decay form −1 (the power law e-fold better)", verdict)


def _control_draw(rng: np.random.Generator, g: LongRange, excess: float) -> LongRange:
    """One recording of App. D.2's control: ``CONTROL_DRAWS`` same-size subsamples and a held-out set."""
    null = _normal(rng, g.null_mean, g.null_sd, CONTROL_DRAWS)
    valid = g.null_mean * (1 + excess) + g.null_sd * rng.standard_normal()
    # the z-scores, which no decision reads, stay the recorded ones
    return dataclasses.replace(g, valid=float(valid), null_mean=float(null.mean()), null_sd=_sd(null))


def _cal_splits(r: Results) -> list[Calibration]:
    g = r.split_long_range
    out = []
    if "contiguous" in g:
        c = g["contiguous"]

        def uniform(hypothesis: str, rng: np.random.Generator) -> str:
            d = _control_draw(rng, c, EQUIVALENCE_MARGIN if hypothesis == "h0" else 0.0)
            return decide_uniform(d.valid, d.null_mean, d.null_sd, CONTROL_DRAWS)[0]

        out.append(Calibration("shen2019.appD2.split-nonuniform", f"the contiguous split: {CONTROL_DRAWS} same-size "
                               "subsamples and one held-out set, normal at the recorded mean and spread of the "
                               "subsamples' long-range mean I", f"the held-out set {EQUIVALENCE_MARGIN:.0%} above "
                               "same-size training text (the margin)", "the held-out set as same-size training text",
                               uniform))
    if g:
        def floor(hypothesis: str, rng: np.random.Generator) -> str:
            excess = [EQUIVALENCE_MARGIN if hypothesis == "h0" and i == 0 else 0.0 for i in range(len(g))]
            return decide_floor([_control_draw(rng, v, e) for v, e in zip(g.values(), excess)], CONTROL_DRAWS)[0]

        out.append(Calibration("shen2019.appD2.valid-excess-is-sample-size", f"{len(g)} splits: {CONTROL_DRAWS} "
                               "same-size subsamples and one held-out set each, normal at the recorded mean and spread; "
                               "the whole training split as recorded", f"the {next(iter(g))} held-out set "
                               f"{EQUIVALENCE_MARGIN:.0%} above same-size training text (the margin), the other equal",
                               "every held-out set as same-size training text", floor))
    return out


def _cal_text_forms(r: Results) -> Calibration | None:
    s, pts = r.settings, r.text_points
    char = [_forms(pts[f"lstm_w{w}_d1"]) for w in s.text_lstm_widths if f"lstm_w{w}_d1" in pts]
    word = [_forms(pts[f"word_lstm_w{w}_d1"]) for w in s.word_lstm_widths if f"word_lstm_w{w}_d1" in pts]
    if not char or not word:
        return None
    n = min(len(v) for v in char + word)
    csd, wsd = [_sd(v) for v in char], [_sd(v) for v in word]

    def verdict(hypothesis: str, rng: np.random.Generator) -> str:
        words = [_normal(rng, 0.0 if hypothesis == "h0" and i == 0 else -1.0, sd, n) for i, sd in enumerate(wsd)]
        return decide_text_forms([_normal(rng, 1.0, sd, n) for sd in csd], words)

    return Calibration("shen2019.fig2.char-lstm-no-power-law-tail", f"{len(char)} character and {len(word)} word "
                       f"LSTMs, {_seeds_note(r)} of the decay form (normal)", "the narrowest word LSTM's decay form 0, "
                       "the character LSTMs' +1 and the other word LSTMs' −1",
                       "every character LSTM's decay form +1 (the exponential fits e-fold better), every word LSTM's "
                       "−1", verdict)


def _cal_gaps(r: Results, cid: str, names: dict[str, tuple[str, str]], lags: tuple[int, int],
              positive_effect: Callable[[str], bool]) -> Calibration | None:
    """A text superiority claim: the first model of each pair worse than the second by ``gap_null`` under h1.

    Every model is drawn once (a model in two pairs is the same seeds in both), normal at
    its recorded mean and spread over the lags; under h0 the first pair's second model
    equals the first (no difference), the others as under h1.
    """
    if not names:
        return None
    keys = list(dict.fromkeys(k for pair in names.values() for k in pair))
    gaps = {k: _lag_gaps(r, k, lags) for k in keys}
    n = min(len(v) for v in gaps.values())
    spread = {k: _sd(v) for k, v in gaps.items()}
    held = [bool(_short_context(r, a) or _short_context(r, b)) for a, b in names.values()]
    effect = r.gap_null
    first = next(iter(names))

    def verdict(hypothesis: str, rng: np.random.Generator) -> str:
        level = {k: float(gaps[k].mean()) for k in keys}
        for name, (a, b) in names.items():
            if positive_effect(name) and not (hypothesis == "h0" and name == first):
                level[b] = level[a] - effect
            elif positive_effect(name):
                level[b] = level[a]
        drawn = {k: _normal(rng, level[k], spread[k], n) for k in keys}
        return decide_gaps([(drawn[a], drawn[b]) for a, b in names.values()], True, held)[0]

    return Calibration(cid, f"{len(names)} pairs of text models, {_seeds_note(r)} of the mismatch over τ = "
                            f"{lags[0]}–{lags[1]} (normal); pairs held back as recorded "
                            f"({sum(held)} of {len(names)}: a Transformer short of Shen's context)",
                       f"the first pair ({first}) equal, the others as under h1",
                       f"in every pair the second model's mismatch lower by {effect:.2f} (the gap between two "
                       "same-size samples of the text)", verdict)


def _cal_no_gain_text(r: Results) -> Calibration | None:
    names = _depth_pairs(r, "lstm")
    if not names:
        return None
    pairs = [(_lag_gaps(r, a, MIDDLE_LAGS), _lag_gaps(r, b, MIDDLE_LAGS)) for a, b in names.values()]
    n = min(min(len(a), len(b)) for a, b in pairs)
    spec = [(_geomean(a), _log_sd(a), _log_sd(b)) for a, b in pairs]

    def verdict(hypothesis: str, rng: np.random.Generator) -> str:
        drawn = [(_lognormal(rng, m, sa, n),
                  _lognormal(rng, m * (1 - EQUIVALENCE_MARGIN * (hypothesis == "h0" and i == 0)), sb, n))
                 for i, (m, sa, sb) in enumerate(spec)]
        return decide_no_gain(drawn)[0]

    return Calibration("shen2019.fig8b.lstm-depth-no-gain", f"{len(names)} LSTM depth pairs, {_seeds_note(r)} of ln "
                       f"mismatch over τ = {MIDDLE_LAGS[0]}–{MIDDLE_LAGS[1]} (lognormal)",
                       f"the first pair's deeper LSTM {EQUIVALENCE_MARGIN:.0%} closer to the text (the margin), the "
                       "others equal", "every deeper LSTM's mismatch the shallow one's", verdict)


def _cal_rank_link(r: Results) -> Calibration | None:
    spelling = r.spelling
    if not spelling:
        return None
    gaps = np.concatenate([_lag_gaps(r, name, SHORT_LAGS) for name in spelling])
    spelled = np.concatenate([np.asarray(v, dtype=float) for v in spelling.values()])
    keep = np.isfinite(gaps) & np.isfinite(spelled)
    n = int(keep.sum())
    if n < MIN_RANK_PAIRS:
        return None
    gm, gs, sm, ss = gaps[keep].mean(), _sd(gaps[keep]), spelled[keep].mean(), _sd(spelled[keep])
    # Spearman's ρ of a bivariate normal is (6/π) asin(r/2): the Pearson r that gives H1_RHO
    pearson = 2 * math.sin(math.pi * H1_RHO / 6)

    def verdict(hypothesis: str, rng: np.random.Generator) -> str:
        z = rng.standard_normal((2, n))
        if hypothesis == "h1":
            z[1] = pearson * z[0] + math.sqrt(1 - pearson**2) * z[1]
        return decide_rank_link(gm + gs * z[0], sm + ss * z[1])[0]

    return Calibration("shen2019.appF.mi-shows-in-text-quality", f"{n} character-model seeds: mismatch over τ = "
                       f"{SHORT_LAGS[0]}–{SHORT_LAGS[1]} and spelled fraction, normal at their recorded means and "
                       "spreads", "independent (no link)", f"bivariate normal with Spearman's ρ = {H1_RHO:+.1f}",
                       verdict)
